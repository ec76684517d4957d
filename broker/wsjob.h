/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wsjob: the workspace digest, computed off the broker's event loop.
 *
 * Hashing is proportional to what the agent put in the workspace, so it
 * never runs in the loop: one worker process, forked when the broker
 * starts (while it is small), computes wsdigest_compute() on request and
 * answers over a socketpair the loop watches.  Requests that arrive while
 * a digest is being computed share the next one, which starts after them:
 * every answer reflects the workspace as it was when the request came,
 * or later, and the worker's CPU use stays at one digest at a time.
 * Meanwhile the loop answers pings, approvals and other calls, and runner
 * deadlines fire on time.
 */
#ifndef AIRLOCK_WSJOB_H
#define AIRLOCK_WSJOB_H

#include "broker/loop.h"
#include "broker/wsindex.h"
#include "common/util.h"

struct wsdigester;
struct wsjob;

/*
 * Called once, from the loop, with wsindex_refresh()'s code (or
 * AL_ERR_SYSTEM if the worker is gone) and, when that is 0, the digest
 * in |hex|; otherwise |why| says what could not be digested.  No
 * failure is transient: an entry that cannot be read stays so until the
 * workspace changes.  The job is freed after it returns.
 */
typedef void (*wsjob_fn)(void *arg, int rc, const char *hex, const char *why);

/* wsdigester_new()'s flags. */
#define WSDIGEST_SEAL 0x1 /* each digest's seal (wsindex_want_seal()) */
#define WSDIGEST_OVERLAY_TRUSTED \
	0x2 /* |rootfd| may be an overlay whose upper layer is on a \
	       filesystem trusted for the seal (wsindex_trust_overlay()) */

/*
 * Forks the worker for the workspace |rootfd| (borrowed; the worker keeps
 * its own copy and no other descriptor), with |flags| (WSDIGEST_*); its
 * digests keyed with |key| (WSINDEX_KEY_LEN bytes, copied; NULL: not
 * keyed, wsindex_set_key()), their linked files judged by |links| (the
 * worker's copy of it as it is now; NULL: all exposed,
 * wsindex_set_links()).  Returns NULL with errno set.
 */
struct wslinks;
struct wsdigester *wsdigester_new(struct loop *l, int rootfd, int flags,
    const unsigned char *key, const struct wslinks *links);

/* Kills and reaps the worker; every job still queued is dropped unanswered. */
void wsdigester_free(struct wsdigester *d);

/*
 * Asks for a digest.  Returns the job (|fn| will be called), or NULL with
 * errno set when the worker is gone (nothing will call |fn|).
 */
struct wsjob *wsjob_start(struct wsdigester *d, wsjob_fn fn, void *arg);

/* What the last refresh did (all zero before the first). */
void wsdigester_stats(const struct wsdigester *d, struct wsindex_stats *s);

/*
 * The seal of the last refresh (wsindex_seal()): from a job's callback,
 * the one of the refresh that answered it.  "" when it proves nothing, or
 * before the first.
 */
const char *wsdigester_seal(const struct wsdigester *d);

/* Withdraws |j|; |fn| is not called.  NULL is fine. */
void wsjob_cancel(struct wsjob *j);

#endif
