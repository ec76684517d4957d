/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * applyjournal: makes a change set's apply (broker/changeset.c) survive
 * the applying process being killed.
 *
 * An apply works in a trash directory it makes in the workspace root,
 * named ".airlock-trash-ID".  Before its first change to the workspace it
 * writes there, and fsyncs, a journal ("journal", JSON) naming every step
 * it is about to take, in order:
 *   {"version": 2,
 *    "removals": [PATH, ...],           moved to the trash as "0", "1", ...
 *    "steps": [{"op": "mkdir", "path": P},
 *              {"op": "chmod", "path": P, "mode": OLD},
 *              {"op": "write", "path": P, "removal": I?}],
 *    "seal": HEX}
 * Removals come first, then the steps.  A "write" creates a file or
 * symlink at P, where nothing stands (what stood there is in the trash),
 * in place: no temporary file, since an interrupted write is undone with
 * the rest; "removal" is the index of the removal that cleared P, if any.
 * Before the commit point the whole filesystem is synced (syncfs).
 * When every step is done the journal is renamed to "done" (the commit
 * point) and the trash directory is removed.
 *
 * Recovery rolls an interrupted apply back rather than finishing it: the
 * new content came from the run's upper layer, which as root is a tmpfs
 * that died with the broker and otherwise may have been moved out file
 * by file, so finishing is not always possible, while everything needed
 * to undo (the removed files, the old modes) is in the trash and the
 * journal.  Undo, in reverse: a written path is unlinked,
 * unless its removal never happened; a made directory
 * is removed if empty; a mode is set back; then every removed path in
 * the trash is renamed back.  Each undo step is idempotent, so a
 * recovery killed in turn is simply run again.
 *
 * The seal is a keyed BLAKE2b-256 of the trash directory's name and the
 * journal's other members (compact JSON, keys sorted), under a key of the
 * user's that no sandbox sees: STATE/keys/apply.key (32 random bytes,
 * mode 0600, made at the first apply; STATE as in common/paths.h).  A
 * rollback runs as the user (often root) and undoes what the journal
 * names: unlinks, renames back and sets old modes, special bits
 * included.  An agent that writes the workspace directly could plant a
 * journal (a setgid mode on any directory, its own file renamed into
 * place); one whose seal does not verify is not rolled back but left for
 * a human, as is one copied from another trash.
 *
 * The applying process holds an exclusive flock on the trash directory;
 * recovery skips a trash directory whose lock is held (an apply in
 * progress in another process).
 */
#ifndef AIRLOCK_APPLYJOURNAL_H
#define AIRLOCK_APPLYJOURNAL_H

#include <stddef.h>

#include <jansson.h>

struct sandbox_policy;

/* The journal's names inside the trash directory. */
#define APPLYJOURNAL_NAME "journal"
#define APPLYJOURNAL_DONE "done"
/* The prefix of trash directories in the workspace root. */
#define APPLYJOURNAL_TRASH_PREFIX ".airlock-trash-"

/* The sealing key's name in STATE/keys, its length, its seal's. */
#define APPLYJOURNAL_KEY_NAME "apply.key"
#define APPLYJOURNAL_KEY_LEN 32
#define APPLYJOURNAL_SEAL_HEX 64

/*
 * Writes |journal| (borrowed; an object without "seal") into the trash
 * directory |trashfd| named |name| as described above, sealed: to a
 * temporary name, fsynced, renamed into place, the directory fsynced.
 * The key is made if it is absent.  Returns 0, or -1 with errno set
 * (nothing is written without its seal).
 */
int applyjournal_write(int trashfd, const char *name, const json_t *journal);

/*
 * Starts an apply in the workspace |wsfd| (an O_RDONLY directory
 * descriptor): makes a trash directory (its name, ".airlock-trash-ID",
 * in trash[0..trashlen)), opens it as *trashfd, locks it (held until it
 * is closed: recovery leaves a live apply alone), syncs the workspace
 * directory and writes |journal| (borrowed) there with
 * applyjournal_write().  Returns 0, or AL_ERR_SYSTEM or AL_ERR_IO with a
 * message in err and nothing left behind.
 */
int applyjournal_begin(int wsfd, const json_t *journal, char *trash,
    size_t trashlen, int *trashfd, char *err, size_t errlen);

/*
 * Marks the apply in |trashfd| complete (renames the journal to "done").
 * Returns 0, or -1 with errno set (then the apply is still rolled back
 * on recovery).
 */
int applyjournal_commit(int trashfd);

/*
 * Who is told of this process's applies: fn(trash, arg) once
 * applyjournal_begin() has made the trash directory |trash|, before its
 * journal or any change, and fn(NULL, arg) once applyjournal_commit()
 * has passed the commit point, before the trash is deleted.  The lander
 * (broker/landjob.c) tells the loop, which must know, should the lander
 * be lost, whether its apply landed: a trash still holding "done" says
 * so, but one whose "done" is deleted, or that is gone, says nothing.
 * NULL (the default): no one.
 */
typedef void (*applyjournal_watch_fn)(const char *trash, void *arg);
void applyjournal_watch(applyjournal_watch_fn fn, void *arg);

/*
 * Undoes the journaled apply in |trashfd| beneath the workspace |wsfd|
 * (an O_RDONLY directory descriptor): the first |ndone| steps (SIZE_MAX:
 * all, when it is not known how far the apply got) and every removal.  Returns 0 when everything was put
 * back, or -1 with a message in err (what could not be put back stays in
 * the trash).  *nsteps gets the number of steps and removals considered.
 */
int applyjournal_rollback(int wsfd, int trashfd, const json_t *journal,
    size_t ndone, size_t *nsteps, char *err, size_t errlen);

/*
 * Looks for interrupted applies in the workspace |rootfd| (any
 * descriptor of its root) and recovers each that no live process holds:
 * a journal is rolled back, a "done" marker means the apply had
 * finished and only the trash goes, an empty or half-made trash
 * directory (no journal yet: nothing was changed) is removed.  A trash
 * directory holding neither journal nor marker (left by an airlock
 * without journals) is left for a human and named in the report.
 *
 * Returns the number of trash directories handled (>= 0) with *report
 * (caller frees; NULL when 0) an array of {"trash", "action"
 * ("rolled_back", "finished", "removed_empty", "left"), "entries"?}, or
 * -1 with a message in err when an apply could not be rolled back (the
 * workspace is then in an unknown state: callers refuse to go on).
 * A journal whose seal does not verify, or naming a path the write
 * policy |p| refuses (.git, a protected path, a ".airlock-" name; NULL:
 * no protected patterns), was not written by an apply but planted by
 * something that writes the workspace: it is not rolled back, and that
 * is an error too.
 */
int applyjournal_recover(int rootfd, const struct sandbox_policy *p,
    json_t **report, char *err, size_t errlen);

/* Removes |name| in |dfd| and everything beneath it; no link followed. */
void applyjournal_rm_tree(int dfd, const char *name);

/*
 * Removes the trash directory |trash| of an apply finished or rolled
 * back in |wsfd|: everything in it, then its journal or its "done",
 * then itself, so that an apply killed meanwhile is still recovered
 * from what is left.  In the order a directory is read, "done" went
 * before the files the apply had removed: killed between, the trash
 * held the old files and no marker, and recovery left it for a human.
 */
void applyjournal_remove(int wsfd, const char *trash);

/*
 * Ends an apply begun with applyjournal_begin() in |wsfd| (its trash
 * |trash|, open as |trashfd|) that made the first |made| steps of
 * |journal| and came to |rc|, committed (applyjournal_commit()) when 0:
 * one that failed is rolled back as a crash's would be.  The trash is
 * then removed, unless the rollback failed: it is left for the next
 * start's recovery, which says so, and the reason is logged.  Frees
 * |journal|, closes |trashfd|; returns |rc|.
 */
int applyjournal_end(int wsfd, int trashfd, const char *trash, json_t *journal,
    size_t made, int rc);

/*
 * The code of an apply's step (a write, a rename, a sync) that failed
 * with errno |e|: AL_ERR_IO, which the call's error says is retryable,
 * only where the same apply may succeed later (a full disk or quota, an
 * I/O error, no memory or descriptors); else AL_ERR_SYSTEM, not
 * retryable.  A directory a run made 0555 refused the broker's rename
 * (EACCES, as an ordinary user) every time, and a retryable refusal is
 * not counted by runBudget.maxRefusedCalls.
 */
int applyjournal_failed(int e);

#endif
