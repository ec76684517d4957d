/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * udiff: writes the unified diff between two texts (what airlock suggest
 * prints).  Pure code: no I/O.  Lines are compared byte for byte with
 * their line breaks ("\r\n" stays part of the line), by Myers' O(ND)
 * algorithm, so a few edits to a large file cost little.  The output is
 * in the form diff -u writes and policy/diff.h reads: "--- OLD" and
 * "+++ NEW" headers, hunks with three lines of context, "\ No newline at
 * end of file" after a last line without one.
 */
#ifndef AIRLOCK_UDIFF_H
#define AIRLOCK_UDIFF_H

#include <stddef.h>

#define UDIFF_MAX_EDITS 4000 /* inserted plus removed lines */

/*
 * Sets *out to a new NUL-terminated diff turning old[0..oldlen) into
 * new[0..newlen) (the caller frees it; "" when they are equal), with
 * the header labels |oldlabel| and |newlabel|.  Returns 0, AL_ERR_LIMIT
 * when the texts differ in more than UDIFF_MAX_EDITS lines, or
 * AL_ERR_ALLOC; *out is NULL on failure.
 */
int udiff_make(const char *old, size_t oldlen, const char *new, size_t newlen,
    const char *oldlabel, const char *newlabel, char **out);

#endif
