/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* status: the agent's airlock/session/status requests (status.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/audit.h"
#include "broker/broker_int.h"
#include "broker/conn.h"
#include "broker/jobs.h"
#include "broker/jsonrpc.h"
#include "broker/ledger.h"
#include "broker/runcall.h"
#include "broker/status.h"
#include "broker/wsdigest.h"
#include "broker/wsindex.h"
#include "broker/wsjob.h"
#include "common/util.h"

/* What the workspace index did for this digest (broker/wsindex.h). */
static json_t *
workspace_index_json(const struct wsdigester *d)
{
	struct wsindex_stats s;

	wsdigester_stats(d, &s);
	return json_pack("{s:I,s:I,s:I,s:I}", "files", (json_int_t)s.files,
	    "hashed", (json_int_t)s.hashed, "racy", (json_int_t)s.racy,
	    "bytes", (json_int_t)s.bytes);
}

static void	status_digested(void *, int, const char *, const char *);

/* Takes status request |r|, answered, off the list and frees it. */
static void
status_free(struct status_req *r)
{
	struct conn	*k = r->conn;

	json_decref(r->id);
	free(r);
	k->b->nstatuses--;
	k->ncalls--;
	conn_maybe_close(k);
	conn_unref(k);
}

/* Answers status request |r| with |st| and frees it. */
static void
status_answer(struct status_req *r, json_t *st)
{
	TAILQ_REMOVE(&r->conn->b->statuses, r, entry);
	conn_send(r->conn, jsonrpc_encode_result(r->id, st));
	status_free(r);
}

/* Answers status request |r| with the error |code|, |fmt| and frees it. */
static void __attribute__((format(printf, 3, 4)))
status_fail(struct status_req *r, int code, const char *fmt, ...)
{
	char	why[1024];
	va_list	ap;

	TAILQ_REMOVE(&r->conn->b->statuses, r, entry);
	va_start(ap, fmt);
	(void)vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	conn_error(r->conn, r->id, code, "%s", why);
	status_free(r);
}

/*
 * Starts the digest of status request |r| (in b->statuses); on failure
 * answers it with the error and frees it.
 */
static void
status_digest(struct status_req *r)
{
	struct conn	*k = r->conn;
	struct broker	*b = k->b;
	int		 blind;

	r->gen = broker_ws_gen(b, &blind);
	if ((r->wsjob = wsjob_start(b->digester, status_digested, r)) == NULL)
		status_fail(r, JSONRPC_INTERNAL_ERROR,
		    "cannot digest the workspace: %s", strerror(errno));
}

/* Digests again the status requests held while a set landed. */
void
statuses_release(struct broker *b)
{
	struct status_req	*r, *next;

	for (r = TAILQ_FIRST(&b->statuses); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		if (r->wsjob == NULL)
			status_digest(r);
	}
}

static void
status_digested(void *arg, int rc, const char *hex, const char *why)
{
	struct status_req	*r = arg;
	struct conn		*k = r->conn;
	struct broker		*b = k->b;
	json_t			*st, *budgets;
	int			 blind;

	r->wsjob = NULL;
	/*
	 * A set lands (the digest may be of half of it: held until it has
	 * landed, as calls are), or the workspace was written while it was
	 * read: taken again, up to DIGEST_RETRIES times.
	 */
	if (rc == 0 && b->landing != NULL)
		return;
	if (rc == 0 && r->gen != broker_ws_gen(b, &blind) &&
	    r->redigests < DIGEST_RETRIES) {
		r->redigests++;
		status_digest(r);
		return;
	}
	if (rc != 0) {
		status_fail(r, JSONRPC_INTERNAL_ERROR,
		    "cannot digest the workspace: %s", why);
		return;
	}
	st = ledger_status(b->ledger, hex, now_monotonic_ms());
	/* The broker's own counts: every runBudget key has its entry. */
	budgets = json_object_get(st, "budgets");
	json_object_set_new(budgets, "maxParallelProcesses",
	    ledger_budget_entry((double)(b->nrunning +
	    runcall_waiting_to_land(b)),
	    (double)b->m->budget.max_parallel_processes));
	json_object_set_new(budgets, "maxAuditMiB",
	    ledger_budget_entry(b->cfg.audit != NULL ?
	    (double)audit_size(b->cfg.audit) / (1024.0 * 1024.0) : 0,
	    (double)b->m->budget.max_audit_mib));
	json_object_set_new(st, "session", json_string(b->cfg.session_id));
	json_object_set_new(st, "steps", json_integer(ledger_steps(b->ledger)));
	json_object_set_new(st, "workspaceIndex",
	    workspace_index_json(b->digester));
	json_object_set_new(st, "jobs", jobs_status(b->jobs));
	status_answer(r, st);
	json_decref(st);
}

/*
 * Requests wait for a digest, all of them for as long as a change set
 * lands, and nothing else bounds them (they are not audited): an agent
 * that sent 300000 during a land of 40000 files made the broker hold
 * 200 MB, then answer them all in one turn.  Past STATUSES_MAX waiting,
 * all connections together, one more is refused at once.  They share
 * one digest, so a client needs no more.
 */
#define STATUSES_MAX	64

/*
 * The status needs the workspace digest: it is answered when that is in,
 * also after the agent's end of input (it counts as a call in flight).
 */
void
status_request(struct conn *k, struct jsonrpc_msg *msg)
{
	struct broker		*b = k->b;
	struct status_req	*r;

	if (b->nstatuses >= STATUSES_MAX) {
		conn_error(k, msg->id, JSONRPC_REFUSED, "busy: %d status "
		    "requests already wait for the workspace digest; ask "
		    "again when one is answered", STATUSES_MAX);
		return;
	}
	b->nstatuses++;
	r = xcalloc(1, sizeof(*r));
	r->conn = k;
	r->id = json_incref(msg->id);
	k->refs++;
	k->ncalls++;
	TAILQ_INSERT_TAIL(&b->statuses, r, entry);
	status_digest(r);
}

/*
 * Stops |k|'s status request |id| (it waits for its workspace digest) and
 * answers it with an error; 1, or 0 when there is none.
 */
int
status_cancel(struct broker *b, struct conn *k, const json_t *id)
{
	struct status_req	*r;

	for (r = TAILQ_FIRST(&b->statuses); r != NULL;
	    r = TAILQ_NEXT(r, entry))
		if (r->conn == k && json_equal(r->id, id))
			break;
	if (r == NULL)
		return 0;
	if (r->wsjob != NULL)
		wsjob_cancel(r->wsjob);
	r->wsjob = NULL;
	status_fail(r, JSONRPC_REFUSED, "the request was cancelled "
	    "(notifications/cancelled): no status was taken");
	return 1;
}

void
statuses_free(struct broker *b)
{
	struct status_req	*r;

	while ((r = TAILQ_FIRST(&b->statuses)) != NULL) {
		TAILQ_REMOVE(&b->statuses, r, entry);
		wsjob_cancel(r->wsjob);
		json_decref(r->id);
		conn_unref(r->conn);
		free(r);
	}
}
