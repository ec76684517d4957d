/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cowdiff: a copy-on-write session's change set as text for a person
 * (airlock diff), and its digest (airlock commit records it).
 *
 * One block per path, in byte order of the path (deterministic):
 *
 *   diff --airlock a/PATH b/PATH          every block starts so
 *   RUNS ON TOOL: what                    a written file or symlink
 *                                         that configures a program
 *                                         its tool runs (.npmrc,
 *                                         rust-toolchain.toml:
 *                                         writepolicy_runs_on()); such
 *                                         a file is never binary; one
 *                                         a tool reads through a
 *                                         symlink, and the link, say
 *                                         "(read as NAME)", "(read
 *                                         beneath NAME/)"
 *   new file mode 100644                  a file the checkout lacks
 *   deleted file mode 100644              a file removed
 *   old mode 100644 / new mode 100755     a mode change (also 4755:
 *                                         special bits are shown)
 *   rename from OLD / rename to NEW       a removed file and a new one
 *                                         with the same bytes
 *   sha256 HEX                            a written file's bytes as
 *                                         they would land (the digest
 *                                         of the text binds them)
 *   Binary files a/PATH and b/PATH differ a binary format (an image,
 *                                         an archive, an executable: its
 *                                         first bytes) with a NUL in the
 *                                         first 8 KiB, not text but for
 *                                         its NULs; any other new file,
 *                                         and a change of a text file,
 *                                         is shown as text
 *   Binary file a/PATH replaced by text, shown whole
 *                                         then every line of the new
 *                                         file, as a new file's
 *   symlink PATH -> TARGET                a new or changed symlink
 *   new directory PATH/ mode 0755         and "deleted directory",
 *                                         "directory mode PATH/ A -> B"
 *   special file PATH (fifo|socket|device)
 *
 * followed, for text files, by "diff -u" output (diffutils) of the
 * checkout's file (or /dev/null) against the session's.  Every byte that
 * came from the session (names, link targets, file contents) is escaped
 * with vis (common/vis.h, newlines and tabs kept), so the text cannot
 * drive the terminal of the person reading it.  Files are opened beneath
 * each root without following any symlink.
 */
#ifndef AIRLOCK_COWDIFF_H
#define AIRLOCK_COWDIFF_H

#include <stddef.h>

struct changeset;

/*
 * Writes the text for |cs| (collected from the upper layer |upperfd|
 * against the checkout |rootfd|) into a new buffer *out of *outlen bytes
 * (caller frees; "" when the set is empty).  The checkout is walked for
 * its symlinks, for the labels.  Returns 0, or a negative code with a
 * message in err[0..errlen) (AL_ERR_SYSTEM also when the checkout
 * cannot be walked).
 */
int cowdiff_text(const struct changeset *cs, int upperfd, int rootfd,
    char **out, size_t *outlen, char *err, size_t errlen)
    __attribute__((warn_unused_result));

#endif
