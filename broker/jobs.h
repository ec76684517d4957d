/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * jobs: background jobs and their pushed events (issue 13, items 4, 5).
 *
 * A tool whose manifest entry has jobs: takes a blockMs argument.  A run
 * still going blockMs after it started becomes a job: the call is
 * answered {jobId, status: "running", output (so far, capped)} and the
 * run goes on in the broker's event loop, the same struct call, in the
 * broker's running queue: it counts against maxParallelProcesses, keeps
 * its cgroup, timeout and egress, and its writes land through the change
 * set when it ends, as any run's.  job_output returns what is new since
 * the last read (optionally waiting for it), job_kill ends a job; the
 * session's end kills every job, and a budget stop kills every command
 * still running, a job's or a blocking call's (jobs_budget_stop()).
 * Each start, read, kill, stop and end is audited.  Nothing here blocks:
 * waits are loop deadlines.
 *
 * Event rules (jobs.events) are matched on each complete output line and
 * on the exit (once the job's set landed or was refused, which the event
 * carries); a match is sent as notifications/message to every ready
 * connection and kept for the tail of the agent's next tool result (late
 * injection: nothing earlier in the conversation changes).
 *
 * Not for use outside broker/.
 */
#ifndef AIRLOCK_JOBS_H
#define AIRLOCK_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct broker;
struct call;
struct conn;
struct jobs;
struct runner_result;
struct tool;

/* The session's jobs, none yet.  Never fails. */
struct jobs *jobs_new(struct broker *b);
/*
 * Frees the jobs and answers nothing: the broker has already killed the
 * runs (their calls are freed) when this is called; waiting job_output
 * calls are freed.
 */
void jobs_free(struct jobs *js);

/*
 * Takes the blockMs argument out of |args| (a tool without jobs: leaves
 * it, and the contract refuses it).  Returns 0 with *ms set (-1 when
 * absent), or -1 with err set (not an integer in 0..maxBlockMs).
 */
int jobs_take_block_ms(
    const struct tool *t, json_t *args, int64_t *ms, char *err, size_t errlen);

/* The inputSchema property the tool's blockMs adds (new), or NULL. */
json_t *jobs_block_schema(const struct tool *t);

/* After |c|'s runner started: arms its blockMs, if it has one. */
void jobs_arm(struct call *c);
/* After each step of a job's runner: events, and waiting readers. */
void jobs_step(struct call *c);
/*
 * When |c|'s runner is over (before its writes land): disarms blockMs;
 * a job keeps its final output (|res|, |uri| borrowed) and matches its
 * output rules on its last lines.  Its exit rules wait for the land.
 */
void jobs_ended(
    struct call *c, const struct runner_result *res, const char *uri);
/*
 * Instead of answering |c|: when |c| is a job, records the outcome
 * (status, out as call_complete() takes them; out is consumed), audits
 * job_end, counts a refusal (call_refusal()) for runBudget.maxRefusedCalls
 * as a blocking call's error is counted, sends its exit events (with the
 * land's outcome), answers its waiters, frees |c| and returns 1.  Else 0.
 */
int jobs_complete(struct call *c, int status, json_t *out);
/* From call_free(): |c| is going away. */
void jobs_call_gone(struct call *c);

/*
 * A hard budget stopped the session (|limit| borrowed; from
 * broker_budget_stop()): every call still running its command, a
 * background job or a blocking call, has its process tree killed now, is
 * marked (c->budget_killed: nothing of its run lands, broker.c) and
 * audited (run_stopped: id, tool, jobId, reason budget_stop, limit).  A
 * job then reads as status "stopped", error budget_exhausted.
 */
void jobs_budget_stop(struct broker *b, const char *limit);
/*
 * The error body a budget-killed run ends with (new; budget_exhausted,
 * naming the limit).
 */
json_t *jobs_stop_error(struct call *c);
/*
 * From call_landed(), before the call is finished: the outcome of |c|'s
 * land, |rc| 0 (landed, or nothing to land) or -1 with |out| its error
 * body (borrowed).  A job keeps it for its exit event, which goes out
 * only once the outcome is known (jobs_complete()).
 */
void jobs_landed(struct call *c, int rc, const json_t *out);

/* The job_output and job_kill actions (action_fn). */
int jobs_act_output(struct call *c, json_t **out);
int jobs_act_kill(struct call *c, json_t **out);

/*
 * Takes the job_output or job_kill of |conn| with request |id| that waits
 * on a job (waitMs, or the job's end) out of its wait, unanswered; NULL
 * when none waits.  A job_kill's signal was sent already.
 */
struct call *jobs_take_waiter(
    struct jobs *js, const struct conn *conn, const json_t *id);

/*
 * Late injection: appends the events since the last result to the tail
 * of |result| (a text block) and to |structured| ("events"; when not
 * NULL), then forgets them.
 */
void jobs_tail(struct jobs *js, json_t *result, json_t *structured);
/*
 * The session's jobs for airlock/session/status (new array): each
 * {jobId, tool, status, exitCode (once ended), errorClass (when it
 * failed or was refused), stoppedBy {reason: budget_stop, limit} (when a
 * budget stopped it)}.  |js| may be NULL.
 */
json_t *jobs_status(const struct jobs *js);
/* Whether jobs_tail() would add anything (|js| may be NULL). */
int jobs_pending(const struct jobs *js);

#endif
