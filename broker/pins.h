/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * pins: the workspace files that are a check's or a tool's code, and the
 * digests of their content (DESIGN.md, pinned code; docs/SECURITY.md).
 *
 * The code of a check or tool is:
 *   - every argv element that names an existing regular file beneath the
 *     workspace ("deploy.sh", "tests/run.sh"; an absolute path beneath
 *     the workspace counts as its relative path);
 *   - Makefile, GNUmakefile and makefile when argv[0] is make or gmake
 *     (recorded absent when missing: making one later is a change);
 *   - with |interp| (a tool granted a secret: its code must be all
 *     pinned; a check runs the agent's code by design, and an approval
 *     binds the whole workspace's digest), for python (python3,
 *     python3.N; also after env): every module
 *     file (NAME.py, .pyc, .so) and package __init__ directly in its
 *     script's real directory (the root for -c/-m), which Python imports
 *     from ahead of its standard library (options read as python reads
 *     them: -W and -X take an argument), and for -m a.b.c every module
 *     file and package __init__ directly in a and a/b and
 *     a/b/c/__main__.py, whole or absent; for node: every node_modules
 *     from each file argument's directory (a preload, -r FILE, comes
 *     before the script) up to the root, whole or absent; the program
 *     is the one after env's assignments and -i, -0, -v, -u NAME (any
 *     other env option: AL_ERR_SYSTEM, the program cannot be told);
 *   - every path of its manifest "pin:" list; a directory pins every
 *     entry beneath it, a missing path is recorded absent.
 * Files are opened through path_resolve() (beneath the workspace; a
 * symlink that leaves it is refused, never followed).  Inside a pinned
 * directory nothing is followed: a symlink is pinned as its target text.
 *
 * A pin set is a JSON object {PATH: DIGEST}: DIGEST is the SHA-256 hex of
 * the file's content, "-" for an absent path, or "refused:..." /
 * "symlink:..." / "special" for what cannot be read as a file.  Two sets
 * are equal exactly when the code is.
 */
#ifndef AIRLOCK_PINS_H
#define AIRLOCK_PINS_H

#include <stddef.h>

#include <jansson.h>

#define PINS_FILE_MAX (4 * 1024 * 1024) /* bytes of one pinned file */
#define PINS_TOTAL_MAX (16 * 1024 * 1024) /* bytes of one pin set */
#define PINS_ENTRIES_MAX 4096 /* entries of one pin set */

/*
 * Hashes the code of a command |argv| (NULL-terminated, may be NULL: no
 * command) with the manifest pin lists |pin| and |pin2| (NULL-terminated,
 * either may be NULL) beneath the workspace |rootfd|, whose host path is
 * |workspace|.  Returns 0 and sets *out to a new pin set (caller
 * decrefs), or, with *out NULL and a message in err:
 *   AL_ERR_LIMIT   a file larger than PINS_FILE_MAX, a set larger than
 *                  PINS_TOTAL_MAX or with more than PINS_ENTRIES_MAX
 *                  entries
 *   AL_ERR_SYSTEM  a read failed
 * Reads at most PINS_TOTAL_MAX bytes: fine on the event loop.
 */
int pins_collect(int rootfd, const char *workspace, char *const *argv,
    char *const *pin, char *const *pin2, int interp, json_t **out, char *err,
    size_t errlen) __attribute__((warn_unused_result));

/* How the digest of a path that cannot be read as a file begins. */
#define PINS_REFUSED "refused:"

/*
 * The paths whose digest differs between the sets |was| and |now|
 * (present in one only counts), and every path of |now| whose digest
 * begins PINS_REFUSED (what it holds is bound by nothing: a hard link
 * written through its other name, a symlink's destination out of the
 * workspace), sorted.  Returns a new JSON array, empty when the code is
 * unchanged and every path of it could be read.  Pure.
 */
json_t *pins_changed(json_t *was, json_t *now);

/* Appends to the array |dst| the paths of |src| it does not hold yet. */
void pins_merge(json_t *dst, json_t *src);

/*
 * What changed, for a person to review: {PATH: {approvedSha, nowSha,
 * nowHead, nowHeadCut}} for every path of pins_changed(), where nowHead
 * is the first lines of the file as it is now (at most 40 lines, 4 KiB;
 * absent for what is not a readable text file) and nowHeadCut is true
 * when the file goes on past them (else absent).  Returns a new object.
 */
json_t *pins_changes(int rootfd, json_t *was, json_t *now);

#endif
