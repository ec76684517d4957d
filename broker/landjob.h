/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * landjob: a run's change set checked and landed off the event loop.
 *
 * Landing costs what the run wrote: a walk of its upper layer, a check
 * of every entry, a read of every file when the tool was granted a
 * secret, and the kernel's work creating each file in the workspace.  A
 * run can write hundreds of thousands of files, so none of it runs in
 * the broker's loop (DESIGN.md, invariant 7).  A process of its own (the
 * lander, forked when the broker starts) collects the set
 * (changeset_collect()), checks it (changeset_check(), the byte quota,
 * and the secrets the tool was granted: a file, a link or a name that
 * holds one is refused), then sends the loop the paths the set writes
 * and waits.  The loop counts them against the budgets
 * (ledger_admit_write(): the ledger is the loop's), writes
 * change_landing to the log (on the disk, signed, before the answer: the
 * workspace changes only once the log says it will) and answers; on a yes
 * the process applies the set (changeset_apply(): all or nothing,
 * journalled).  Either way it then removes the upper layer (a large one
 * takes time to free too), and only then is the call told.  If the
 * process is lost after a yes, the loop rolls the workspace back from
 * the journal (changeset_recover()) before it answers, unless the apply
 * had passed its commit point (the process said so, or its trash holds
 * "done"): then the set landed, and the call is told so as if the
 * process had ended well; the next land forks a new one.
 *
 * The caller lands one set at a time and holds every other reader and
 * writer of the workspace meanwhile (broker.c): nothing sees a
 * half-landed set.  Not for use outside broker/.
 */
#ifndef AIRLOCK_LANDJOB_H
#define AIRLOCK_LANDJOB_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct broker;
struct call;
struct lander;

/* At most this many refused entries are listed (the count is whole). */
#define LANDJOB_REFUSED_MAX 1000

/*
 * Called once, from the loop: |rc| 0 when the set landed or was empty
 * (|out| NULL, a patch's result, or for a run whose mode bits did not
 * all land {"modesDropped": [{path, mode, landed}...], "modesDroppedTotal":
 * n}, even when the lander was lost past its commit point), else -1
 * with |out| an error body (change_refused, budget_exhausted,
 * write_failed); owned by the callee.  The change_applied or
 * change_refused record has been written.
 */
typedef void (*landjob_fn)(struct call *c, int rc, json_t *out);

/*
 * Forks the lander for |b| (its manifest, secrets and workspace as they
 * are now).  Returns NULL with errno set.  lander_free() lets a land
 * under way finish (the call is not told), then reaps it.
 */
struct lander *lander_new(struct broker *b);
void lander_free(struct lander *l);

/*
 * Lands |c|'s change set (c->changes_fd or c->changes_upper; nothing to
 * land without either: |fn| is then called at once with 0) through
 * c->b->lander, which must be idle.  |fn| is called once, from the loop
 * or from here.  The upper layer is the lander's from now on:
 * c->changes_fd is closed here, the directory is removed by the lander.
 */
void landjob_start(struct call *c, landjob_fn fn);

/*
 * Lands the patch |patch| (|len| bytes, copied) of |c|, an apply_patch
 * call, checked against |expected| (patchland.h), through c->b->lander,
 * which must be idle.  |fn| is called once, from the loop or from here:
 * |rc| 0 with |out| the call's result, or -1 with an error body.
 */
void landjob_start_patch(struct call *c, const char *patch, size_t len,
    const char *expected, landjob_fn fn);

/*
 * read_file of the open regular file |fd| (|size| bytes; borrowed: the
 * lander gets its own), |rel| as asked, for |c| whose tool is the
 * manifest's |tool|th, lines |start|..|end| (output_line_arg()), at
 * most |limit| bytes (output_file()), through c->b->lander, which must
 * be idle: a large file is read, hashed, redacted and cut off the loop.
 * |fn| is called once, from the loop or from here: |rc| 0 with |out|
 * the call's result, or -1 with an error body.
 */
void landjob_start_read(struct call *c, int fd, size_t tool, const char *rel,
    int64_t start, int64_t end, size_t size, size_t limit, landjob_fn fn);

/* Forgets |c|'s land in flight (the broker's end): |fn| is not called. */
void landjob_abandon(struct call *c);

/*
 * At the broker's end, |c|'s land in flight, if any: when the process
 * was told yes (change_landing is in the log), waits for it to end and
 * records what came of it, change_applied (or, for a process lost,
 * the recovery, apply_recovered, and change_applied if it had landed),
 * as the loop would have; |fn| is not
 * called, the call is not told.  A land cut off by a budget stop that
 * ended the session applied its set, and the log ended at
 * change_landing, which reads as a land cut short.  Then as
 * landjob_abandon().
 */
void landjob_settle(struct call *c);

#endif
