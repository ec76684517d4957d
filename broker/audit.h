/*
 * audit: the append-only, hash-chained and signed record of a session.
 *
 * One JSON object per line.  Each record carries "seq" (from 1), "time"
 * (RFC 3339), "session", "event", the event's own fields, "prev" (the
 * BLAKE2b-256 hex of the previous line, or 64 zeros for the first) and
 * "sig" (Ed25519 over the line without "sig", base64).  The first record
 * of a session ("session_start") carries the public key.
 *
 * Fail closed: if a record cannot be written durably, audit_append()
 * returns AL_ERR_IO and the broker refuses requests until a later append
 * succeeds.
 */
#ifndef AIRLOCK_AUDIT_H
#define AIRLOCK_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct audit;

/*
 * Opens (creating, mode 0600) the log at |path| for session |session_id|
 * with a fresh Ed25519 signing key held in sodium_malloc'd memory.
 * Returns 0 and *out, or AL_ERR_SYSTEM/AL_ERR_ALLOC.
 */
int	audit_open(const char *path, const char *session_id,
	    struct audit **out) __attribute__((warn_unused_result));

/*
 * Appends one record: |event| plus the members of |fields| (borrowed;
 * may be NULL).  Returns 0 or AL_ERR_IO (the record is not written and
 * the chain is unchanged, so a later append can succeed).
 */
int	audit_append(struct audit *a, const char *event, json_t *fields)
	    __attribute__((warn_unused_result));

/* Returns 1 if the last append failed (the broker is refusing), else 0. */
int	audit_failing(const struct audit *a);

/* Returns the log's path (borrowed). */
const char *audit_path(const struct audit *a);

/* Appends "session_end", closes, wipes the key.  NULL is fine. */
void	audit_close(struct audit *a);

#endif
