/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * artifact: the session's stored outputs, and the URIs that name them.
 *
 * Every command's full output (redacted by the caller) is one file under
 * SESSION_DIR/artifacts, named "NNNN-LABEL.log" and addressed as
 * "airlock://SESSION_ID/artifacts/NNNN-LABEL.log".  The store knows the
 * artifacts this broker wrote, and reads only those: a URI of another
 * session, an unknown name, or a name with anything but [A-Za-z0-9._-]
 * (no "..", no "/") is refused.  Past the session's quota an output is
 * not kept at all.
 */
#ifndef AIRLOCK_ARTIFACT_H
#define AIRLOCK_ARTIFACT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct artifact_store;

#define ARTIFACT_URI_MAX 256

/*
 * A store for the session |session_id| whose files go in |dir| (an
 * existing directory; both copied).  |quota| is the most bytes the
 * session keeps.  Never returns NULL.
 */
struct artifact_store *artifact_store_new(
    const char *dir, const char *session_id, uint64_t quota);
void artifact_store_free(struct artifact_store *s);

/*
 * Saves data[0..len) (already redacted) as a new artifact labelled
 * |label| (unsafe characters become '_').  Returns 0 with its URI in
 * uri[0..urilen), AL_ERR_BUDGET when the quota would be passed (nothing
 * is written; uri is ""), or AL_ERR_SYSTEM.
 */
int artifact_save(struct artifact_store *s, const char *label, const char *data,
    size_t len, char *uri, size_t urilen);

/*
 * Checks that |uri| names an artifact of this session.  Returns 0 with
 * its name in name[0..namelen), AL_ERR_PATH for a malformed URI or
 * unsafe name, AL_ERR_DENIED for another session's, AL_ERR_NOT_FOUND
 * for an unknown name; err[0..errlen) says why.
 */
int artifact_check_uri(const struct artifact_store *s, const char *uri,
    char *name, size_t namelen, char *err, size_t errlen);

/*
 * Reads the artifact |uri| whole (after artifact_check_uri()).  Returns 0
 * with *data (caller frees, NUL-terminated) and *len, or a code from
 * artifact_check_uri() or AL_ERR_SYSTEM, with err set.
 */
int artifact_read(const struct artifact_store *s, const char *uri, char **data,
    size_t *len, char *err, size_t errlen);

/* MCP resources/list's "resources": one object per artifact (new). */
json_t *artifact_list(const struct artifact_store *s);

/* Bytes kept so far, and the quota. */
uint64_t artifact_used(const struct artifact_store *s);
uint64_t artifact_quota(const struct artifact_store *s);

#endif
