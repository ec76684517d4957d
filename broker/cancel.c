/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* cancel: notifications/cancelled (cancel.h). */
#include "config.h"

#include <stdio.h>

#include "broker/approval.h"
#include "broker/broker_int.h"
#include "broker/runcall.h"
#include "broker/cancel.h"
#include "broker/jobs.h"
#include "broker/jsonrpc.h"
#include "broker/status.h"
#include "broker/wsjob.h"
#include "runner/runner.h"

/*
 * notifications/cancelled {requestId, reason}: the client gave up on the
 * call and drops its answer; its user takes the work for undone.  So a
 * cancel stops the call of this connection wherever it is, and nothing
 * of it is done afterwards:
 *  - running its command: the command is stopped, nothing of its run
 *    lands (call_runner_event()); a check's run failed, and is recorded
 *    so (check_abandoned() in runcall.c): its output is an artifact
 *    away, and a failure the agent read there and cancelled before it
 *    was recorded was counted by no budget;
 *  - waiting for a human: the approval is withdrawn (approvals_withdraw():
 *    a later approve of it is refused), nothing runs;
 *  - held while a change set lands, or digesting the workspace before a
 *    check or an approval, or an escalation granted a write held until
 *    an approved run ends (escalate_hold()): it never starts;
 *  - its run ended and its set waits for another to land: it never lands
 *    (a check is recorded failed, as above);
 *  - an idempotent retry waiting for the original: it stops waiting;
 *  - a job_output or job_kill waiting on a job: it stops waiting (the job
 *    goes on; a job_kill's signal was sent when it was asked).
 * Each is answered with errorClass cancelled, as MCP allows (the client
 * ignores the answer).  A set already landing completes: a half-applied
 * set is worse than an unwanted whole one, and the change is then the
 * agent's to undo (stopped: false, state: landing).  A background job's
 * request was answered; job_kill stops a job.  Every cancel is recorded:
 * cancel_request {id, reason, stopped, state, approval}.
 */
/* |k|'s call |id| while it runs its command (not a job), or NULL. */
static struct call *
running_call(struct broker *b, const struct conn *k, const json_t *id)
{
	struct call	*c;

	TAILQ_FOREACH(c, &b->running, entry)
		if (c->conn == k && c->job == NULL && c->proc != NULL &&
		    !c->cancelled && json_equal(c->id, id))
			return c;
	return NULL;
}

/* |c| is |k|'s request |id| and still owes it an answer. */
static int
cancel_matches(const struct call *c, const struct conn *k, const json_t *id)
{
	return c->conn == k && c->job == NULL && json_equal(c->id, id);
}

/*
 * Finds |k|'s call |id| in a state where it has not started (or, for
 * CANCEL_LANDQ, not landed); takes it out of that state's queue.
 * Returns the state, or CANCEL_NONE.
 */
#define CANCEL_NONE	0
#define CANCEL_WAITING	1	/* a human's approval */
#define CANCEL_HELD	2	/* while a set lands (call_hold()) */
#define CANCEL_DIGEST	3	/* the workspace digest */
#define CANCEL_LANDQ	4	/* its set waits for another's to land */
#define CANCEL_FOLLOWER	5	/* an idempotent retry waiting */
#define CANCEL_JOBWAIT	6	/* a job_output or job_kill waiting on a job */
#define CANCEL_ESCHELD	7	/* an escalation held (escalate_hold()) */

static int
cancel_take(struct broker *b, struct conn *k, const json_t *id,
    struct call **out)
{
	struct call	*c;

	*out = NULL;
	TAILQ_FOREACH(c, &b->waiting, entry)
		if (cancel_matches(c, k, id)) {
			TAILQ_REMOVE(&b->waiting, c, entry);
			*out = c;
			return CANCEL_WAITING;
		}
	TAILQ_FOREACH(c, &b->held, hold_entry)
		if (cancel_matches(c, k, id)) {
			TAILQ_REMOVE(&b->held, c, hold_entry);
			if (c->held == HOLD_DECIDE)
				b->nheld_new--;
			c->held = 0;
			json_decref(c->held_params);
			c->held_params = NULL;
			*out = c;
			return CANCEL_HELD;
		}
	TAILQ_FOREACH(c, &b->digesting, entry)
		if (cancel_matches(c, k, id)) {
			TAILQ_REMOVE(&b->digesting, c, entry);
			b->ndigesting--;
			wsjob_cancel(c->wsjob);
			c->wsjob = NULL;
			/* Its run ended: the digest after it (gate_seal()). */
			if (c->res != NULL) {
				*out = c;
				return CANCEL_LANDQ;
			}
			if (c->runs_after_digest)
				b->nstarting--;
			*out = c;
			return CANCEL_DIGEST;
		}
	TAILQ_FOREACH(c, &b->landq, entry)
		if (cancel_matches(c, k, id)) {
			TAILQ_REMOVE(&b->landq, c, entry);
			*out = c;
			return CANCEL_LANDQ;
		}
	TAILQ_FOREACH(c, &b->followers, entry)
		if (cancel_matches(c, k, id)) {
			TAILQ_REMOVE(&b->followers, c, entry);
			b->nfollowers--;
			*out = c;
			return CANCEL_FOLLOWER;
		}
	if ((*out = jobs_take_waiter(b->jobs, k, id)) != NULL)
		return CANCEL_JOBWAIT;
	TAILQ_FOREACH(c, &b->esc_held, entry)
		if (cancel_matches(c, k, id)) {
			TAILQ_REMOVE(&b->esc_held, c, entry);
			*out = c;
			return CANCEL_ESCHELD;
		}
	return CANCEL_NONE;
}

void
cancel_request(struct conn *k, struct jsonrpc_msg *msg)
{
	static const char *states[] = { NULL, "awaiting_approval", "held",
		"digesting", "awaiting_land", "retry_waiting", "job_waiting",
		"escalation_held" };
	struct broker	*b = k->b;
	json_t		*rid = json_object_get(msg->params, "requestId");
	const char	*why = json_string_value(json_object_get(msg->params,
			    "reason"));
	const char	*state = NULL;
	char		 approval[16] = "";
	struct call	*c;
	int		 where = CANCEL_NONE, status = 0;

	if (rid == NULL)
		return;
	if ((c = running_call(b, k, rid)) != NULL)
		state = "running";
	else if ((where = cancel_take(b, k, rid, &c)) != CANCEL_NONE)
		state = states[where];
	else if (b->landing != NULL && cancel_matches(b->landing, k, rid))
		state = "landing";
	else if ((status = status_cancel(b, k, rid)) != 0)
		state = "status_digesting";
	if (where == CANCEL_WAITING)
		snprintf(approval, sizeof(approval), "%s", c->approval);
	(void)broker_audit(b, "cancel_request", json_pack(
	    "{s:O, s:s*, s:b, s:s*, s:s*}", "id", rid, "reason", why,
	    "stopped", c != NULL || status, "state", state, "approval",
	    approval[0] != '\0' ? approval : NULL));
	if (c == NULL)
		return;
	c->cancelled = 1;
	switch (where) {
	case CANCEL_NONE:	/* running: call_runner_event() answers */
		runner_proc_kill(c->proc);
		return;
	case CANCEL_LANDQ:
		runcall_cancel_ended(c);
		return;
	case CANCEL_WAITING:
		if (c->progress_watch > 0)
			loop_unwatch(b->cfg.loop, c->progress_watch);
		c->progress_watch = 0;
		(void)approvals_withdraw(b->cfg.approvals, c->approval,
		    "the agent cancelled the call (notifications/cancelled)");
		c->approval[0] = '\0';
		break;
	case CANCEL_FOLLOWER:
		/* The original's key is not this retry's to remember. */
		c->idem_key = NULL;
		break;
	case CANCEL_JOBWAIT:
		/* The job goes on (job_kill's signal was sent already). */
		call_complete(c, ACTION_ERROR, tool_error("cancelled", 1, NULL,
		    "the call was cancelled while it waited on a job; the "
		    "job itself was not stopped by it"));
		return;
	}
	/* Nothing ran: retryable, and an idempotencyKey is free again. */
	call_complete(c, ACTION_ERROR, tool_error("cancelled", 1, NULL,
	    "the call was cancelled while %s; nothing of it was done",
	    where == CANCEL_WAITING ? "it waited for a human's approval, "
	    "which was withdrawn" : where == CANCEL_HELD ? "it was held "
	    "while another change set landed" : where == CANCEL_DIGEST ?
	    "the workspace was digested before it" : where == CANCEL_ESCHELD ?
	    "its escalation was held until an approved run ended" :
	    "it waited for the same call's result"));
}
