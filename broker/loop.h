/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * loop: the single-threaded event loop that the broker and supervisor
 * share.  A watch is a descriptor to poll for input, with an optional
 * deadline; its callback runs when the descriptor is readable (or hung
 * up) or when the deadline passes.  No threads, no signals in callbacks:
 * signals arrive through a signalfd watch.
 */
#ifndef AIRLOCK_LOOP_H
#define AIRLOCK_LOOP_H

#include <stdint.h>

#define LOOP_READABLE	0x1	/* input, hangup or error on the fd */
#define LOOP_DEADLINE	0x2	/* the watch's deadline passed */
#define LOOP_WRITABLE	0x4	/* room to write, hangup or error on the fd */

struct loop;

typedef void (*loop_fn)(int fd, int why, void *arg);

/* Returns a new loop, or NULL. */
struct loop	*loop_new(void);
/* Frees |l| (watches are dropped; descriptors are not closed). */
void		 loop_free(struct loop *l);

/*
 * Watches |fd| (>= 0), or only a deadline when |fd| is -1.  |deadline|
 * is on the now_monotonic_ms() scale, INT64_MAX for none.  Returns an id
 * (> 0) or AL_ERR_ALLOC/AL_ERR_LIMIT.
 */
int		 loop_watch(struct loop *l, int fd, int64_t deadline, loop_fn fn,
		    void *arg);

/*
 * Watches |fd| (>= 0) for room to write (no deadline): |fn| runs with
 * LOOP_WRITABLE.  Returns an id (> 0) or AL_ERR_LIMIT.
 */
int		 loop_watch_writable(struct loop *l, int fd, loop_fn fn,
		    void *arg);
/* Changes the deadline of watch |id|. */
void		 loop_set_deadline(struct loop *l, int id, int64_t deadline);

/* Removes watch |id|; safe from inside any callback, including its own. */
void		 loop_unwatch(struct loop *l, int id);

/*
 * Calls |fn|(|arg|) at the end of every turn (after the callbacks of one
 * poll(2) have run, before the loop waits again) and once more when
 * loop_run() returns.  The broker flushes its audit batch and queued
 * replies there (broker/audit.h).  At most LOOP_MAX_TURN_END hooks, run
 * in the order added; returns 0 or AL_ERR_LIMIT.
 */
#define LOOP_MAX_TURN_END	64
typedef void (*loop_turn_fn)(void *arg);
int		 loop_on_turn_end(struct loop *l, loop_turn_fn fn, void *arg);
/* Removes the hook (|fn|, |arg|) if present. */
void		 loop_off_turn_end(struct loop *l, loop_turn_fn fn, void *arg);

/* Runs until loop_stop() is called.  Returns 0 or AL_ERR_SYSTEM. */
int		 loop_run(struct loop *l);
void		 loop_stop(struct loop *l);

#endif
