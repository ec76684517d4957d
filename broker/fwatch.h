/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * fwatch: which workspace files changed by something other than the
 * agent's own calls (issue 13, item 6).
 *
 * An inotify watch on every directory of the workspace (skipping the
 * root's .git: a nested .git is watched, as the digest holds it; a change
 * beneath a root .airlock-* name, airlock's own, is counted but not
 * reported), read from the broker's event loop:
 * no rehash, no scan per call.  What the broker itself writes for a call
 * (write_file, apply_patch, a run's change set landing) is bracketed by
 * fwatch_own_begin()/fwatch_own_end() and not reported; everything else
 * (a human's editor, a background job's writes landing) is kept until
 * fwatch_tail() puts it at the tail of the agent's next result.
 *
 * What is not seen: changes inside a directory created and filled before
 * its watch was added (the directory itself is reported), directories
 * past FWATCH_MAX_DIRS or deeper than FWATCH_MAX_DEPTH (fileChanges then
 * says it is incomplete), and
 * changes made through another mount of the same files in the instant of
 * an own-write bracket.  Not for use outside broker/.
 */
#ifndef AIRLOCK_FWATCH_H
#define AIRLOCK_FWATCH_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define FWATCH_MAX_DIRS 8192 /* directories watched */
#define FWATCH_MAX_DEPTH 128 /* ...and how deep (the walk recurses) */
#define FWATCH_MAX_PATHS 1000 /* changes remembered between results */
#define FWATCH_SHOWN 20 /* changes listed in one result */

struct fwatch;
struct loop;

/*
 * Watches the workspace |root| (an absolute host path) from |l|.  Returns
 * the watcher, or NULL with err set (inotify unavailable): the broker then
 * runs without fileChanges.
 */
struct fwatch *fwatch_new(
    struct loop *l, const char *root, char *err, size_t errlen);
void fwatch_free(struct fwatch *fw);

/* Reads what the kernel has queued: changes by others, until now. */
void fwatch_drain(struct fwatch *fw);

/* Around a write the broker makes for the agent: its changes are not reported. */
void fwatch_own_begin(struct fwatch *fw);
void fwatch_own_end(struct fwatch *fw);

/*
 * While a change set lands (broker/landjob.h), the kernel's queue is not
 * read as it fills: the loop would wake for every file the lander makes,
 * and each wake-up takes the CPU from it.  fwatch_quiet(fw, 0) reads it
 * all at once, then watches again.
 */
void fwatch_quiet(struct fwatch *fw, int on);

/*
 * Appends the changes since the last result to |result|'s content (a
 * text block) and to |structured| ("fileChanges": {files: [{path,
 * change}], more, incomplete}; when not NULL), then forgets them.
 * Nothing when nothing changed.  |fw| may be NULL.
 */
void fwatch_tail(struct fwatch *fw, json_t *result, json_t *structured);

/*
 * Whether fwatch_tail() would add anything now.  Reads the kernel's queue
 * at most once per event-loop turn (fwatch_turn_end() starts the next):
 * the results of one turn cost one read, and a change made during a turn
 * is reported with a result of the next.  |fw| may be NULL (returns 0).
 */
int fwatch_pending(struct fwatch *fw);
void fwatch_turn_end(struct fwatch *fw);

/*
 * How many changes by others it has seen since it was made (a count that
 * only grows; the kernel's queue is read first), and in *complete
 * whether it sees them all: 0 for good (not only until fwatch_tail()
 * has said the list may be incomplete) once the queue overflowed or a
 * directory went unwatched (FWATCH_MAX_DIRS, FWATCH_MAX_DEPTH, or the
 * kernel's max_user_watches), and for NULL.  The broker binds gates and
 * approvals to it (broker.c, approvalflow.c).
 */
uint64_t fwatch_others(struct fwatch *fw, int *complete);

/*
 * Around every write the broker makes (for a call or a job, its own or
 * not: fwatch_own_begin() says what is news to the agent), fwatch_broker(fw,
 * 1) and (fw, 0): fwatch_foreign() counts, as fwatch_others() does, the
 * changes seen outside such brackets only, which are no broker write's
 * (the queue is read first, each time).  A change made by others inside
 * one, in the instant a write lands, is counted by fwatch_others() alone.
 */
void fwatch_broker(struct fwatch *fw, int on);
uint64_t fwatch_foreign(struct fwatch *fw, int *complete);

/* Makes |fw| only count (fwatch_others()): it keeps nothing to report. */
void fwatch_count_only(struct fwatch *fw);

#endif
