/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * yamledit: small edits to a YAML file's text that keep everything else
 * byte for byte: comments, key order, quoting, indentation, line endings.
 *
 * Pure code: no I/O.  The text is parsed with libyaml only to find where
 * nodes are (the events' start and end marks); edits are made to the
 * text, and the text is parsed again before the next edit, so every edit
 * sees the file as the previous ones left it.
 *
 * A node is named by a path of components: a mapping key ("sandbox"), or
 * a sequence index written "[N]" ("tools", "[1]", "network").  Only
 * mapping keys that are missing are created (as block mappings, two
 * spaces deeper than their parent's keys, or in flow form inside a flow
 * mapping); a missing sequence index is an error.
 *
 * Refused (AL_ERR_UNSUPPORTED, nothing edited): a path through an alias,
 * an anchored node that would change (its aliases would change with it),
 * a target that is not of the expected kind (a scalar where a sequence
 * is wanted), a null value ("key:" with nothing after it), more than one
 * document, tabs used for indentation in the lines an edit touches.
 */
#ifndef AIRLOCK_YAMLEDIT_H
#define AIRLOCK_YAMLEDIT_H

#include <stddef.h>

#define YAMLEDIT_MAX_TEXT (4 * 1024 * 1024) /* bytes of YAML */
#define YAMLEDIT_MAX_PATH 16 /* path components */

struct yamledit;

/*
 * Copies text[0..len) and parses it.  Returns 0 and sets *out (the
 * caller frees it with yamledit_free()), or a negative code with a
 * message in err[0..errlen): AL_ERR_LIMIT (too large), AL_ERR_FORMAT (not
 * YAML, with line and column), AL_ERR_UNSUPPORTED (more than one
 * document, or the top is not a mapping), AL_ERR_ALLOC.
 */
int yamledit_new(const char *text, size_t len, struct yamledit **out, char *err,
    size_t errlen);

/* Frees |ye|.  yamledit_free(NULL) is a no-op. */
void yamledit_free(struct yamledit *ye);

/*
 * Appends the scalars items[0..nitems) to the sequence at |path|,
 * creating the sequence (and any missing parent mappings) if absent.
 * Items already in the sequence (equal scalar values) are skipped.
 * A block sequence gets one "- item" line per item at its items'
 * indentation after its last item; a flow sequence gets ", item" before
 * its closing bracket.  Items are written plain when that is safe and
 * the existing items are plain, else in the existing items' quoting
 * (single or double), else double-quoted.  If |comment| is not NULL, a
 * line "# COMMENT" is added above the change, at the indentation of the
 * line it precedes.  Returns the number of items added (0: all were
 * there already, and nothing changed), or a negative code with a message
 * in err[0..errlen): AL_ERR_NOT_FOUND (a missing sequence index),
 * AL_ERR_UNSUPPORTED (see above), AL_ERR_FORMAT (the result does not
 * parse: a bug, reported rather than kept), AL_ERR_LIMIT, AL_ERR_ALLOC.
 * On failure the text is unchanged.
 */
int yamledit_seq_add(struct yamledit *ye, const char *const *path, size_t npath,
    const char *const *items, size_t nitems, const char *comment, char *err,
    size_t errlen);

/*
 * Sets the scalar at |path| to |value| (written plain: the caller gives
 * a number or a plain-safe word), creating the key (and any missing
 * parent mappings) if absent; replaces only the old scalar's text.
 * |comment| as for yamledit_seq_add().  Returns 1 if the text changed, 0
 * if the value was already |value|, or a negative code as above.
 */
int yamledit_set_scalar(struct yamledit *ye, const char *const *path,
    size_t npath, const char *value, const char *comment, char *err,
    size_t errlen);

/*
 * Looks up the scalar at |path|: returns a pointer to its value
 * (borrowed, valid until the next edit or yamledit_free()), or NULL if
 * the path does not exist or does not name a scalar.
 */
const char *yamledit_get_scalar(
    struct yamledit *ye, const char *const *path, size_t npath);

/*
 * Finds the index of the item of the sequence at |path| that is a
 * mapping whose |key| is the scalar |value| (e.g. the tool named X in
 * "tools").  Returns the index (>= 0) or -1.
 */
long yamledit_find_item(struct yamledit *ye, const char *const *path,
    size_t npath, const char *key, const char *value);

/*
 * The current text, NUL-terminated, |*len| bytes without the NUL (|len|
 * may be NULL).  Borrowed: valid until the next edit or yamledit_free().
 */
const char *yamledit_text(const struct yamledit *ye, size_t *len);

#endif
