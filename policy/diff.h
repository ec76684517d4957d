/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * diff: a strict, bounded unified-diff engine for the apply_patch tool.
 *
 * Pure code: no I/O.  The broker reads the files a patch names, calls
 * diff_apply_file() for each, and writes the results.  The patch comes
 * from the model and is hostile input: everything here is bounded, and
 * nothing is applied "approximately".  A hunk applies at exactly the line
 * its header states, with every context and removed line matching byte
 * for byte, or the file is refused with the hunk that failed.  There is
 * no fuzz, no offset search and no whitespace leniency.
 *
 * Accepted (docs/PATCHES.md has the full grammar and the reasons):
 *   - "--- a/PATH" / "+++ b/PATH" file headers; the a/ and b/ prefixes are
 *     required and stripped; "/dev/null" on one side makes a create
 *     (old side; one hunk "@@ -0,0 +1,N @@") or a delete (new side; one
 *     hunk "@@ -1,N +0,0 @@").  Text after a TAB (a timestamp) is ignored.
 *   - an optional git header "diff --git a/PATH b/PATH" followed by
 *     "index ...", "new file mode 100644", "deleted file mode 100644|100755"
 *     lines; a git header with "new file mode" or "deleted file mode" and
 *     no ---/+++ lines creates or deletes an empty file.
 *   - hunks "@@ -A[,B] +C[,D] @@[ text]" whose line counts match the body
 *     exactly, in increasing non-overlapping order, with new-side start
 *     numbers consistent with the old side and the preceding hunks.
 *   - "\ No newline at end of file" (or any line of 12 bytes or more that
 *     starts with "\ ") after the last line of either side.
 *   - a bare empty line inside a hunk as an empty context line; empty
 *     lines after the last hunk of the patch; a missing final newline at
 *     the end of the patch text (treated as present).
 *
 * Refused: renames, copies, mode changes, symlinks and submodules,
 * executable new files, binary patches, quoted (C-escaped) paths, paths
 * that are absolute, empty, contain ".", ".." or ".git" components, empty
 * components or components with a leading or trailing space, a backslash,
 * control characters or invalid UTF-8, the same path twice, any line
 * outside the grammar, NUL bytes anywhere.
 */
#ifndef AIRLOCK_DIFF_H
#define AIRLOCK_DIFF_H

#include <stddef.h>

#define DIFF_MAX_PATCH		(1024 * 1024)	/* bytes of patch text */
#define DIFF_MAX_FILES		256		/* files in one patch */
#define DIFF_MAX_HUNKS		4096		/* hunks in one patch, total */
#define DIFF_MAX_PATH		4096		/* bytes in one path */
#define DIFF_MAX_COMPONENT	255		/* bytes in a path component */
#define DIFF_MAX_LINENO		100000000	/* largest hunk header number */

enum diff_kind {
	DIFF_MODIFY,	/* old and new path are the same existing file */
	DIFF_CREATE,	/* --- /dev/null: the file must not exist yet */
	DIFF_DELETE,	/* +++ /dev/null: every line is removed */
};

struct diff;

/*
 * Parses text[0..len) as a unified diff.  On success returns 0 and sets
 * *out to a new diff the caller frees with diff_free().  On failure
 * returns a negative code, leaves *out NULL and, if |err| is not NULL,
 * writes a message of at most errlen - 1 bytes naming the patch line
 * and, where known, the file and hunk number:
 *   AL_ERR_LIMIT	len > DIFF_MAX_PATCH, too many files or hunks, a
 *			number or path that is too long;
 *   AL_ERR_PATH	a path that is absolute, has a "." / ".." / ".git"
 *			component, an empty component, a backslash, a
 *			control character or invalid UTF-8;
 *   AL_ERR_FORMAT	anything else that is not in the accepted grammar:
 *			malformed headers, counts that do not match the
 *			body, out-of-order or overlapping hunks, NUL bytes,
 *			duplicate paths, and the refused forms (rename,
 *			copy, mode change, binary), each with its own message;
 *   AL_ERR_ALLOC	out of memory.
 * |text| need not be NUL-terminated and is copied; the caller keeps it.
 */
int		 diff_parse(const char *text, size_t len, struct diff **out,
		    char *err, size_t errlen);

/* Frees |d| and everything it owns.  diff_free(NULL) is a no-op. */
void		 diff_free(struct diff *d);

/* Returns the number of files |d| changes (at least 1). */
size_t		 diff_nfiles(const struct diff *d);

/* Returns what file |i| (0 <= i < diff_nfiles()) does. */
enum diff_kind	 diff_file_kind(const struct diff *d, size_t i);

/*
 * Returns file |i|'s old path (NULL for DIFF_CREATE) or new path (NULL for
 * DIFF_DELETE), without the a/ or b/ prefix.  For DIFF_MODIFY both are
 * equal.  Borrowed: valid until diff_free(d).
 */
const char	*diff_old_path(const struct diff *d, size_t i);
const char	*diff_new_path(const struct diff *d, size_t i);

/*
 * Returns the one workspace-relative path file |i| touches: the new path,
 * or the old path of a delete.  Never NULL; borrowed.  No two files of a
 * diff share a path, so these name every file the patch changes exactly
 * once, in patch order (the broker sorts them itself if it needs to).
 */
const char	*diff_path(const struct diff *d, size_t i);

/* Returns file |i|'s number of hunks (0 only for an empty create/delete). */
size_t		 diff_file_nhunks(const struct diff *d, size_t i);

/* Stores how many lines file |i| adds and removes (either may be NULL). */
void		 diff_file_stat(const struct diff *d, size_t i, size_t *added,
		    size_t *removed);

/*
 * Applies file |i|'s hunks to old[0..oldlen) (old may be NULL when oldlen
 * is 0: for a create, pass the absent file as NULL, 0; the broker itself
 * must refuse a create whose path exists).  On success returns 0 and sets
 * *newbuf to a malloc'd, NUL-terminated buffer the caller frees, holding
 * *newlen bytes (not counting the NUL; 0 for a delete).  The result is at
 * most oldlen + the patch's length.  On failure returns a negative code
 * and leaves *newbuf NULL and *newlen 0:
 *   AL_ERR_CONFLICT	the content is not what the patch expects: a hunk's
 *			context or removed line differs at its stated line
 *			(the message names the file, hunk number and header,
 *			the old line number, and the expected and found
 *			lines, escaped and truncated), the file is shorter
 *			than a hunk's start, a create's old content is not
 *			empty, a delete would leave content, or a line would
 *			follow one that has no newline at end of file;
 *   AL_ERR_ALLOC	out of memory;
 *   AL_ERR_INTERNAL	|i| out of range or old NULL with oldlen > 0.
 */
int		 diff_apply_file(const struct diff *d, size_t i,
		    const char *old, size_t oldlen, char **newbuf,
		    size_t *newlen, char *err, size_t errlen);

#endif
