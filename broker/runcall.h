/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * runcall: a call's runner, from its start to its answer.
 *
 * call_start_runner() checks again what may have changed while the call
 * waited (the approval, the budgets, maxParallelProcesses, the session's
 * minutes left, a secret-granted tool's pinned code), grants its
 * secrets, starts the runner (runner/runner.h), attaches its egress and
 * writes runner_start (a runner whose record cannot be written is
 * killed and the call refused), and puts it under the loop's watch.  When the runner ends
 * (call_runner_event()), its output is kept as an artifact and
 * runner_end written; a run cut off (its timeout, its memory limit, a
 * budget, a cancel), whose secret-granted view was written meanwhile, or
 * whose records cannot be written lands nothing.  Otherwise its change
 * set lands through the change-set policy (broker/landjob.h), one set at
 * a time, off the loop, while every other reader and writer of the
 * workspace is held (call_hold()); then call_landed() answers: the
 * command's output, and for a check its gate (void when its pinned code
 * changed or the workspace was written while it ran).
 *
 * The call lifecycle it uses (call_complete(), tool_error(),
 * broker_audit(), calls_release()) is broker.c's (broker_int.h).
 */
#ifndef AIRLOCK_RUNCALL_H
#define AIRLOCK_RUNCALL_H

#include <stdint.h>

#include <jansson.h>

struct broker;
struct call;
struct runner_proc;
struct runner_result;

/*
 * A run's deadline is this many ms past the session's maxElapsedMinutes
 * (elapsed_up() in broker.c stops the session, and the run, first: a run
 * cut off by its own timeout would land its writes).
 */
#define ELAPSED_GRACE_MS 500

/*
 * Starts the runner for |c| with c->argv/c->envp set by the caller.
 * Returns ACTION_PENDING, or ACTION_ERROR with *out set.
 */
int call_start_runner(struct call *c, int64_t timeout_ms, json_t **out);

/*
 * What follows the land of |c|'s change set (rc 0, or -1 with |out| the
 * error): the call's answer, its budgets and its job's end.
 */
void call_landed(struct call *c, int rc, json_t *out);

/*
 * Answers |c|, which the agent cancelled after its run ended and before
 * its set landed (cancel.c): nothing of it lands, and a check is
 * recorded failed (check_abandoned() in runcall.c).
 */
void runcall_cancel_ended(struct call *c);

/*
 * The session ends under |c|, whose run started (running, or ended and
 * its set not landed): a check is recorded failed, before the budget
 * the session spent is written (broker_free()).  |c| is freed by the
 * caller.
 */
void runcall_session_end(struct call *c);

/* Lands the next set waiting, once nothing lands, the view is
 * writable (broker/viewfreeze.h) and no approved run runs. */
void lands_resume(struct broker *b);

/*
 * The runs of |b| whose processes are gone but whose change sets wait to
 * land: each holds its upper layer (up to CHANGESET_MAX_BYTES of memory
 * in a tmpfs) until it lands, so each counts as running for
 * maxParallelProcesses and BROKER_MAX_RUNNERS.  While a run a human
 * approved ran (or a view was held still), an agent ran one command
 * after another, each ending with 2 GiB written, and every one of them
 * waited with its upper layer: maxParallelProcesses bounded none.
 */
size_t runcall_waiting_to_land(const struct broker *b);

/*
 * An approved run reads the workspace as it runs (a script it sources,
 * a Makefile's recipes), and its approval binds the workspace digest
 * taken before it started: a write_file, a patch or another run's change
 * set landing while it runs would hand it code the approver never saw.
 * So from just before its runner starts until its processes are gone the
 * broker writes nothing there: write_file and apply_patch are refused
 * "busy" (runcall_ws_still()) and change sets wait to land.
 * runcall_ws_still() is whether such a run holds the workspace;
 * runcall_ws_release() lets go of |c|'s hold, if it has one, and returns
 * 1 when it was the last (the sets waiting may land: lands_resume()).
 */
int runcall_ws_still(const struct broker *b);
int runcall_ws_release(struct call *c);

/* Frees a run's result (c->res); NULL is fine. */
void call_result_free(struct runner_result *res);

/* Kills a run whose result nobody wants, and waits for it to be over. */
void runner_reap_quietly(struct runner_proc *p);

#endif
