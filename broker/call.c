/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* The life of one tools/call (broker/call.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "broker/approvalflow.h"
#include "broker/broker_int.h"
#include "broker/changeset.h"
#include "broker/conn.h"
#include "broker/escalate.h"
#include "broker/jobs.h"
#include "broker/jsonrpc.h"
#include "broker/landjob.h"
#include "broker/ledger.h"
#include "broker/redact.h"
#include "broker/result.h"
#include "broker/runcall.h"
#include "broker/status.h"
#include "broker/viewfreeze.h"
#include "broker/wsdigest.h"
#include "broker/wsjob.h"
#include "common/log.h"
#include "common/util.h"

void
call_clear_exec(struct call *c)
{
	size_t	i;

	strv_free(c->argv);
	c->argv = NULL;
	/* The environment may hold granted secrets: wipe it. */
	for (i = 0; c->envp != NULL && c->envp[i] != NULL; i++) {
		sodium_memzero(c->envp[i], strlen(c->envp[i]));
		free(c->envp[i]);
	}
	free(c->envp);
	c->envp = NULL;
}

void
call_free(struct call *c)
{
	struct conn	*k;
	int		 still;

	if (c == NULL)
		return;
	jobs_call_gone(c);
	/* A run that never got to its end still lets go of the view, and
	 * of the workspace an approved run held still (and the escalations
	 * held behind it may start). */
	still = c->ws_still;
	if (viewfreeze_release(c) | runcall_ws_release(c))
		lands_resume(c->b);
	if (still)
		escalate_resume(c->b);
	k = c->conn;
	json_decref(c->id);
	json_decref(c->args);
	json_decref(c->progress_token);
	json_decref(c->reason);
	json_decref(c->binding);
	json_decref(c->voided);
	json_decref(c->pinned_changed);
	json_decref(c->denied);
	json_decref(c->modes_dropped);
	escalate_free(c->esc);
	call_clear_exec(c);
	changeset_call_clear(c);
	json_decref(c->held_params);
	call_result_free(c->res);
	free(c);
	if (k == NULL)
		return;		/* a job: its connection was released */
	k->ncalls--;
	conn_maybe_close(k);
	conn_unref(k);
}

/*
 * An idempotent call's result is remembered, and retries that arrived
 * while it ran get the same.
 */
void
call_remember(struct call *c, json_t *result)
{
	struct broker	*b = c->b;
	struct call	*f, *next;

	if (c->idem_key == NULL)
		return;
	/*
	 * A refusal that started nothing and says "retry" (busy, an approval
	 * that expired) is not what the key did: the retries waiting get it,
	 * and the key is free again, or every retry would replay it.
	 */
	if (c->idem_forget)
		ledger_forget(b->ledger, c->tool->name, c->idem_key);
	else
		ledger_remember(b->ledger, c->tool->name, c->idem_key,
		    c->args_digest, result);
	for (f = TAILQ_FIRST(&b->followers); f != NULL; f = next) {
		next = TAILQ_NEXT(f, entry);
		if (strcmp(f->tool->name, c->tool->name) != 0 ||
		    strcmp(f->idem_key, c->idem_key) != 0)
			continue;
		TAILQ_REMOVE(&b->followers, f, entry);
		b->nfollowers--;
		broker_trace(b, f, "replay", "retry while in flight");
		conn_send(f->conn, jsonrpc_encode_result(f->id, result));
		call_free(f);
	}
	/* A job answers once: its end is not remembered again. */
	c->idem_key = NULL;
}

/* Releases |c|'s connection: its request was answered, it lives on. */
static void
call_release_conn(struct call *c)
{
	struct conn *k = c->conn;

	c->conn = NULL;
	k->ncalls--;
	conn_maybe_close(k);
	conn_unref(k);
}

void
call_answer_early(struct call *c, json_t *structured, const char *text)
{
	struct broker	*b = c->b;
	json_t		*sc, *tx = NULL;
	char		*dump, *line;

	sc = json_deep_copy(structured);
	if (text != NULL)
		tx = json_string(text);
	if (sc == NULL || (text != NULL && tx == NULL))
		fatalx("out of memory answering a call");
	if (b->cfg.redact != NULL && (redact_json(b->cfg.redact, sc) < 0 ||
	    (tx != NULL && redact_json(b->cfg.redact, tx) < 0)))
		fatalx("out of memory redacting a result");
	dump = json_dumps(sc, JSON_COMPACT);
	line = result_line(c, dump != NULL ? dump : "", 0, sc,
	    tx != NULL ? &tx : NULL, tx != NULL);
	free(dump);
	broker_trace(b, c, "job", json_string_value(json_object_get(sc,
	    "jobId")));
	if (broker_audit(b, "result", json_pack("{s:O, s:s, s:b, s:s, s:I}",
	    "id", c->id, "tool", c->tool->name, "isError", 0, "jobId",
	    json_string_value(json_object_get(sc, "jobId")), "durationMs",
	    (json_int_t)(now_monotonic_ms() - c->started))) != 0) {
		free(line);
		conn_error(c->conn, c->id, JSONRPC_REFUSED,
		    "audit log cannot be written; result withheld");
	} else
		conn_send(c->conn, line);
	json_decref(sc);
	json_decref(tx);
	call_release_conn(c);
}

int
call_refusal(int status, const json_t *out)
{
	return status == ACTION_ERROR &&
	    !json_is_true(json_object_get(out, "retryable"));
}

void
call_complete(struct call *c, int status, json_t *out)
{
	struct result_shaped r;
	int refused;

	/* A background job's result is kept for job_output instead. */
	if (jobs_complete(c, status, out))
		return;
	/* Refused (not "busy", "retry"): runBudget.maxRefusedCalls. */
	refused = call_refusal(status, out);
	result_shape(c, status, out, &r);
	if (broker_audit(c->b, "result", json_pack("{s:O, s:s, s:b, s:s?, s:I}",
	    "id", c->id, "tool", c->tool->name, "isError", r.is_error,
	    "errorClass", r.eclass,
	    "durationMs", (json_int_t)(now_monotonic_ms() - c->started))) != 0) {
		free(r.line);
		conn_error(c->conn, c->id, JSONRPC_REFUSED,
		    "audit log cannot be written; result withheld");
	} else {
		if (refused)
			ledger_refused(c->b->ledger);
		conn_send(c->conn, r.line);
	}
	json_decref(r.structured);
	call_free(c);
}

/*
 * Holding calls while a change set lands: a call is decided, a granted
 * one started and a digest taken only when no set is landing, so none
 * reads or writes a half-landed workspace, and budgets count the land
 * first.  Pings, approvals and status go on meanwhile.  c->held says
 * why a call is held (HOLD_*, broker_int.h).
 */

static void	call_redigest(struct call *);

/*
 * A flood of requests while a set lands would be held without bound: at
 * CALLS_HELD_MAX new calls held, no agent input is read until they go on
 * (the agent's pipe fills and it waits, as for any slow reader).
 */
#define CALLS_HELD_MAX	64

int
call_hold(struct call *c, int kind, json_t *params)
{
	struct broker	*b = c->b;

	if (b->landing == NULL)
		return 0;
	c->held = kind;
	c->held_params = json_incref(params);
	TAILQ_INSERT_TAIL(&b->held, c, hold_entry);
	if (kind == HOLD_DECIDE && ++b->nheld_new >= CALLS_HELD_MAX)
		conns_pause_input(b);
	return 1;
}

/* Goes on with every held call, in the order they were held. */
void
calls_release(struct broker *b)
{
	struct call	*c;
	json_t		*params;
	int		 kind;

	while (b->landing == NULL && (c = TAILQ_FIRST(&b->held)) != NULL) {
		TAILQ_REMOVE(&b->held, c, hold_entry);
		kind = c->held;
		c->held = 0;
		if (kind == HOLD_DECIDE)
			b->nheld_new--;
		params = c->held_params;
		c->held_params = NULL;
		switch (kind) {
		case HOLD_DECIDE:
			broker_call_decide(c, params);
			break;
		case HOLD_GRANTED:
			approval_granted(c);
			break;
		default:
			call_redigest(c);
			break;
		}
		json_decref(params);
	}
	if (b->landing == NULL)
		statuses_release(b);
	if (b->landing == NULL && b->input_paused)
		conns_resume_input(b);
}

size_t
call_ws_linked(const struct call *c)
{
	return c->b->links_all ? c->ws_linked_any : c->ws_linked;
}

static void
call_digest_done(void *arg, int rc, const char *hex, const char *why)
{
	struct call *c = arg;
	int blind;

	TAILQ_REMOVE(&c->b->digesting, c, entry);
	c->b->ndigesting--;
	c->wsjob = NULL;
	if (c->runs_after_digest)
		c->b->nstarting--;
	snprintf(c->ws_seal, sizeof(c->ws_seal), "%s",
	    rc == 0 ? wsdigester_seal(c->b->digester) : "");
	c->ws_linked = c->ws_linked_any = 0;
	if (rc == 0) {
		struct wsindex_stats st;

		wsdigester_stats(c->b->digester, &st);
		c->ws_linked_any = st.linked;
		c->ws_linked = st.exposed;
	}
	/* The workspace was written while it was read (a change set, a
	 * write_file, the agent's own writes): the digest may be of neither
	 * state, and a gate would bind content its check never ran on.
	 * Again, once none lands; after DIGEST_RETRIES the check runs all
	 * the same, and its result counts toward no gate (a workspace that
	 * never stops changing must not hold the call for ever). */
	if (c->digest_gen != broker_ws_gen(c->b, &blind)) {
		if (c->redigests < DIGEST_RETRIES) {
			c->redigests++;
			if (!call_hold(c, HOLD_DIGEST, NULL))
				call_redigest(c);
			return;
		}
		c->digest_gen = -1;
	}
	c->digested(c, rc, rc == 0 ? hex : why);
}

static void
call_redigest(struct call *c)
{
	json_t	*out = NULL;

	if (call_digest(c, c->digested, &out) != ACTION_PENDING)
		call_complete(c, ACTION_ERROR, out);
}

int
call_digest(struct call *c, void (*then)(struct call *, int, const char *),
    json_t **out)
{
	int	blind;

	c->digested = then;
	c->digest_gen = broker_ws_gen(c->b, &blind);
	if ((c->wsjob = wsjob_start(c->b->digester, call_digest_done,
	    c)) == NULL) {
		*out = tool_error("internal", 1, NULL,
		    "cannot digest the workspace: %s", strerror(errno));
		return ACTION_ERROR;
	}
	TAILQ_INSERT_TAIL(&c->b->digesting, c, entry);
	c->b->ndigesting++;
	if (c->runs_after_digest)
		c->b->nstarting++;
	return ACTION_PENDING;
}

/*
 * Calls that wait for a digest, all of them together, since one digest
 * answers every call that waits for it: nothing else bounded them
 * outside a land (calls_release()), and a digest is as slow as the
 * workspace the agent made is large: 100000 run_check calls sent while
 * 100000 fresh files were digested held 145-273 MB of the broker's
 * memory.  Past DIGEST_WAIT_MAX, a new call is refused "busy" at once;
 * a call already in (a digest again, after its run, at its grant) is
 * not.  As many as the runners a session runs at once.
 */
#define DIGEST_WAIT_MAX	256

int
call_digest_new(struct call *c, void (*then)(struct call *, int, const char *),
    json_t **out)
{
	if (c->b->ndigesting >= DIGEST_WAIT_MAX) {
		*out = tool_error("busy", 1, NULL, "%d calls already wait "
		    "for the workspace digest; retry when one is answered",
		    DIGEST_WAIT_MAX);
		return ACTION_ERROR;
	}
	return call_digest(c, then, out);
}
