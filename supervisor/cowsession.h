/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cowsession: a copy-on-write agent session's state on the host.
 *
 * With agent.workspace: cow (or airlock run --cow) the agent sees the
 * workspace through an overlay whose upper layer is
 * STATE/sessions/ID/cow/upper, owned by airlock and visible in no
 * sandbox except as that overlay.  Runners and the broker's own writes
 * in the session go through the same overlay (runner_request.lower_view,
 * broker/cowview.h), so the real checkout is untouched until a human
 * runs airlock commit (or airlock discard).  The directory holds:
 *
 *   upper/      the overlay's upper layer: the session's changes
 *   work/       the overlay's work directory, emptied before each start
 *   meta.json   session id, workspace, manifest path and digest, and
 *               whether the overlay ran in a user namespace (userxattr)
 *   base        the checkout as it was when the session began (below)
 *   lock        flock(2)ed exclusively by the run using the session and
 *               by commit and discard, so that they never overlap
 *
 * Conflicts.  airlock commit must refuse a path that changed in the real
 * checkout since the session began.  The overlay's lower layer is the
 * live checkout, so "began" cannot be read from the overlay itself, and
 * nothing tells airlock when the kernel copies a file up.  So when the
 * session begins (and again after each commit or discard) one walk of
 * the checkout records, for every path but those beneath a ".git"
 * directory, its type and mode, inode, size, mtime and ctime: stat(2)
 * only, no file is read, so the walk costs about what "git status" does
 * on a cold index.  At commit, every path the change set writes or
 * removes must still match that record exactly (or still be absent).
 * ctime cannot be set by a user, so any write, rename over, chmod or
 * link count change of the file is seen, even one that keeps its
 * content; that errs on the side of a conflict (a file touched but not
 * changed is reported), never of a lost edit.  Hashing every file at
 * start was rejected: it reads the whole checkout on every start.
 *
 * Every function returns 0 or a negative AL_ERR_* code with a message in
 * err[0..errlen); nothing exits.
 */
#ifndef AIRLOCK_COWSESSION_H
#define AIRLOCK_COWSESSION_H

#include <limits.h>
#include <stddef.h>

#include <jansson.h>

struct manifest;

struct cowsession {
	char id[64];
	char dir[PATH_MAX]; /* STATE/sessions/ID/cow */
	char upper[PATH_MAX];
	char work[PATH_MAX];
	char workspace[PATH_MAX]; /* the real checkout, resolved */
	char manifest[PATH_MAX]; /* empty: the built-in manifest */
	char digest[65]; /* the manifest's, hex */
	int userxattr; /* the overlay ran in a user namespace */
	int lockfd; /* -1: not locked */
};

/* How cowsession_open() locks the session. */
#define COWSESSION_NOLOCK 0 /* airlock diff: read only */
#define COWSESSION_LOCK 1 /* exclusive, or AL_ERR_CONFLICT if in use */

/*
 * Makes the copy-on-write state of the new session |id| in |session_dir|
 * for |workspace| (resolved) under |m|: the directories, meta.json and
 * the base record; the session is locked.  Returns 0 with *out (free
 * with cowsession_free()), or a negative code.
 */
int cowsession_create(const char *session_dir, const char *id,
    const char *workspace, const struct manifest *m, struct cowsession **out,
    char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * Opens the session |id| (a session id, or the path of a session
 * directory) from the state directory, locked as |lock| says.  Returns 0
 * with *out, AL_ERR_NOT_FOUND (no such copy-on-write session),
 * AL_ERR_CONFLICT (another airlock holds it), or another negative code.
 */
int cowsession_open(const char *id, int lock, struct cowsession **out,
    char *err, size_t errlen) __attribute__((warn_unused_result));

/* Releases the lock and frees |cs|; NULL is fine. */
void cowsession_free(struct cowsession *cs);

/* Empties the work directory (an overlay refuses a used one). */
int cowsession_reset_work(struct cowsession *cs, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/*
 * Checks the |n| workspace-relative |paths| against the base record.
 * Returns NULL if none changed in the real checkout since the session
 * began, else a new array of {path, reason}.  |*rc| gets 0, or a
 * negative code when the record cannot be read (then NULL is returned
 * and the caller must refuse).
 */
json_t *cowsession_conflicts(const struct cowsession *cs,
    const char *const *paths, size_t n, int *rc, char *err, size_t errlen);

/*
 * Counts what the session's upper layer holds (every file, directory,
 * symlink and whiteout, none followed), for the record of a discard:
 * no diff is built, so nothing the agent left can make it fail or
 * stall.  Never fails: *complete is 0 when part could not be read or lies
 * deeper than 256 levels (then *entries is what was counted).
 */
void cowsession_count(
    const struct cowsession *cs, unsigned long long *entries, int *complete);

/*
 * Empties the upper and work directories and records the checkout
 * anew: after a commit or a discard the session continues from the
 * checkout as it then is.
 */
int cowsession_clear(struct cowsession *cs, char *err, size_t errlen)
    __attribute__((warn_unused_result));

#endif
