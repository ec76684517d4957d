/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * A call that needs a human's yes, from the request to the run
 * (broker/approvalflow.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/approval.h"
#include "broker/approvalflow.h"
#include "broker/broker_int.h"
#include "broker/conn.h"
#include "broker/cowview.h"
#include "broker/escalate.h"
#include "broker/fwatch.h"
#include "broker/jsonrpc.h"
#include "broker/ledger.h"
#include "broker/loop.h"
#include "broker/pins.h"
#include "common/log.h"
#include "common/util.h"

/*
 * What the approver sees besides the arguments; |ws| is the workspace
 * digest, or NULL when it could not be computed.
 */
static json_t *
approval_evidence(struct broker *b, struct call *c, const char *ws)
{
	json_t *st, *ev, *gates;
	size_t i;

	ev = json_object();
	if (c->tool->action == ACTION_APPLY_PATCH)
		json_object_set(ev, "diff", json_object_get(c->args, "patch"));
	if (c->shell_rule[0] != '\0')
		json_object_set_new(
		    ev, "shellRule", json_string(c->shell_rule));
	if (ws != NULL) {
		json_object_set_new(ev, "workspaceDigest", json_string(ws));
		st = ledger_status(b->ledger, ws, now_monotonic_ms());
		gates = json_object_get(st, "gates");
		for (i = 0; i < json_array_size(gates); i++) {
			json_t *g = json_array_get(gates, i);
			const char *id =
			    json_string_value(json_object_get(g, "checkId"));
			const char *want = json_string_value(
			    json_object_get(c->args, "checkId"));

			if (want == NULL ||
			    (id != NULL && strcmp(id, want) == 0))
				json_object_set(ev, "gates", gates);
		}
		json_decref(st);
	}
	escalate_evidence(c, ev);
	return ev;
}

/*
 * Whether the agent writes the workspace and the watch of its writes has
 * not seen all of it since the session began (broker_ws_gen(): blind).
 * A digest binds what the approver saw to what runs only because every
 * write made while it was taken is seen (call.c, call_digest_done()):
 * one in a directory the watch never had (past FWATCH_MAX_DIRS, deeper
 * than FWATCH_MAX_DEPTH, made while its queue overflowed) left the grant's
 * digest as the request's and ran unseen.  Such an approval fails closed.
 */
static int
approval_unwatched(
    struct call *c, const char *doing, const char *undone, json_t **out)
{
	int blind;

	(void)broker_ws_gen(c->b, &blind);
	if (!blind)
		return 0;
	*out = tool_error("workspace_unwatchable", 0, NULL,
	    "%s %s, but the agent writes the workspace and airlock cannot "
	    "watch all of it (over %d directories, deeper than %d, or more "
	    "changes than the kernel queues): a change made between what "
	    "the approver was shown and the run would go unseen; %s (run "
	    "the agent with agent.workspace: ro)",
	    c->tool->name, doing, FWATCH_MAX_DIRS, FWATCH_MAX_DEPTH, undone);
	return 1;
}

/*
 * Whether the last digest of |c| (call.c, call_digest_done()) found a
 * regular file with another name: a hard link, whose other name may lie
 * where the agent writes (a package store, an `airlock run --rw` bind,
 * its home).  A write through that name is seen by no watch, and no
 * view held read-only stops it: a read-only or copy-on-write agent
 * rewrote lib.sh that way once the approved deploy.sh had started, and
 * the human's yes ran the rewrite.  Such an approval fails closed.
 */
static int
approval_linked(
    struct call *c, const char *doing, const char *undone, json_t **out)
{
	/* Counted only since an escalation granted a write (links_all). */
	int escalated = call_ws_linked(c) > c->ws_linked;

	if (call_ws_linked(c) == 0)
		return 0;
	*out = tool_error("workspace_linked", 0, NULL,
	    "%s %s, but %zu file(s) of the workspace have another name (a "
	    "hard link), which may lie where the agent writes%s: a change "
	    "made through it between what the approver was shown and the "
	    "end of the run would go unseen; %s (give each workspace file "
	    "its own copy)",
	    c->tool->name, doing, call_ws_linked(c),
	    escalated ? " or where a run of this session was given a write "
			"by an escalation (every such file counts for the "
			"rest of the session)"
		      : "",
	    undone);
	return 1;
}

void
approval_digested(struct call *c, int rc, const char *hex)
{
	json_t *out = NULL;
	int status;

	if (approval_unwatched(c, "needs a human's approval",
		"nobody was asked and nothing was done", &out) ||
	    approval_linked(c, "needs a human's approval",
		"nobody was asked and nothing was done", &out)) {
		call_complete(c, ACTION_ERROR, out);
		return;
	}
	json_decref(c->binding);
	if ((c->binding = action_plan(c, &out)) == NULL) {
		call_complete(c, ACTION_ERROR, out);
		return;
	}
	/* Bound to the workspace as the approver is shown it (checked at
	 * the grant: approval_grant_digested()); "" when it could not be
	 * digested now, which no grant's digest matches. */
	json_object_set_new(c->binding, "workspace",
	    json_string(rc == 0 && c->digest_gen != -1 ? hex : ""));
	status = call_await_approval(
	    c, approval_evidence(c->b, c, rc == 0 ? hex : NULL), &out);
	if (status != ACTION_PENDING)
		call_complete(c, status, out);
}

/* Every 5 s while |c| waits for a human, if its request carried a
 * progressToken: a notifications/progress that says who is asked. */
static void
progress_tick(int fd, int why, void *arg)
{
	struct call *c = arg;
	char msg[128];
	json_t *p;

	(void)fd;
	(void)why;
	snprintf(msg, sizeof(msg),
	    "waiting for a human to approve %s "
	    "(airlock approve %s)",
	    c->tool->name, c->approval);
	p = json_pack("{s:O, s:I, s:s}", "progressToken", c->progress_token,
	    "progress", (json_int_t)++c->progress_n, "message", msg);
	conn_send(
	    c->conn, jsonrpc_encode_notification("notifications/progress", p));
	json_decref(p);
	loop_set_deadline(
	    c->b->cfg.loop, c->progress_watch, now_monotonic_ms() + 5000);
}

int
approval_rebind(struct call *c, const char *when, json_t **out)
{
	struct broker *b = c->b;
	json_t *now, *ev, *files, *exec, *paths;
	const char *keys[] = { "argv", "cwd", "env", NULL };
	char list[200], *note;
	size_t i;
	int status, unbound;

	if (c->binding == NULL)
		return -1;
	/* At the grant, and again as it starts (a check digests it again). */
	if (json_object_get(c->binding, "workspace") != NULL &&
	    (approval_unwatched(c, "was approved", "nothing was done", out) ||
		approval_linked(c, "was approved", "nothing was done", out)))
		return ACTION_ERROR;
	if ((now = action_plan(c, out)) == NULL)
		return ACTION_ERROR;
	/* The workspace as it was at the grant (approval_grant_digested()). */
	if (json_object_get(c->binding, "workspace") != NULL)
		json_object_set_new(
		    now, "workspace", json_string(c->granted_ws));
	/* A digest taken while the workspace kept changing ("") is of no
	 * workspace: it matches none, not even a request's "" taken while
	 * it kept changing too (the agent's writes kept going throughout,
	 * and what ran is not what the approver saw). */
	unbound = json_object_get(c->binding, "workspace") != NULL &&
	    c->granted_ws[0] == '\0';
	if (!unbound && json_equal(now, c->binding)) {
		json_decref(now);
		return -1;
	}
	files = pins_changes(b->rootfd, json_object_get(c->binding, "pinned"),
	    json_object_get(now, "pinned"));
	paths = pins_changed(json_object_get(c->binding, "pinned"),
	    json_object_get(now, "pinned"));
	exec = json_object();
	for (i = 0; keys[i] != NULL; i++)
		if (!json_equal(json_object_get(c->binding, keys[i]),
			json_object_get(now, keys[i])))
			json_object_set_new(exec, keys[i],
			    json_pack("{s:O, s:O}", "approved",
				json_object_get(c->binding, keys[i]), "now",
				json_object_get(now, keys[i])));
	if (unbound ||
	    !json_equal(json_object_get(c->binding, "workspace"),
		json_object_get(now, "workspace")))
		json_object_set_new(exec, "workspace",
		    json_pack("{s:O, s:O}", "approved",
			json_object_get(c->binding, "workspace"), "now",
			json_object_get(now, "workspace")));
	join_paths(paths, list, sizeof(list));
	if (json_object_size(exec) > 1 ||
	    (json_object_size(exec) == 1 &&
		json_object_get(exec, "workspace") == NULL))
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
		    "%sthe command or its environment", list[0] ? ", " : "");
	if (json_object_get(exec, "workspace") != NULL)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
		    "%sthe workspace", list[0] ? ", " : "");
	(void)broker_audit(b, "approval_voided",
	    json_pack("{s:O, s:s, s:s, s:s, s:O, s:O}", "id", c->id, "approval",
		c->approved, "tool", c->tool->name, "when", when,
		"changedFiles", paths, "changedExecution", exec));
	xasprintf(&note,
	    "airlock: approval %s of %s was voided at %s: %s "
	    "changed after it was requested; a human was asked again",
	    c->approved, c->tool->name, when, list);
	if (c->voided == NULL)
		c->voided = json_array();
	json_array_append_new(c->voided, json_string(note));
	free(note);
	snprintf(c->note, sizeof(c->note), "approval %s voided: %s changed",
	    c->approved, list);
	broker_trace(b, c, "approval_voided", c->note);
	ev = json_pack("{s:s, s:o, s:o, s:O?}", "voidedApproval", c->approved,
	    "changed", files, "changedExecution", exec, "workspaceDigest",
	    json_object_get(now, "workspace"));
	/* An escalated re-run asked again is one still: say what it gets. */
	escalate_evidence(c, ev);
	json_decref(paths);
	json_decref(c->binding);
	c->binding = now;
	c->approved[0] = '\0';
	/* Built again by the action once a human grants the new approval. */
	call_clear_exec(c);
	status = call_await_approval(c, ev, out);
	return status;
}

/* Runs a granted |c| if it is still what was approved (approval_rebind()). */
static void
approval_go(struct call *c)
{
	json_t *out = NULL;
	int status;

	if ((status = approval_rebind(c, "grant", &out)) != -1) {
		if (status != ACTION_PENDING)
			call_complete(c, status, out);
		return;
	}
	status = c->action(c, &out);
	if (status != ACTION_PENDING)
		call_complete(c, status, out);
}

/*
 * The second digest of a grant (approval_grant_digested()): its seal must
 * be the first's, or a regular file was written since the first read it
 * (through a shared mapping, which no watch sees), and the grant's
 * digest matches nothing.
 */
static void
approval_grant_sealed(struct call *c, int rc, const char *hex)
{
	if (rc != 0 || c->digest_gen == -1 || c->ws_seal[0] == '\0' ||
	    strcmp(c->ws_seal, c->grant_seal) != 0 ||
	    strcmp(hex, c->granted_ws) != 0)
		c->granted_ws[0] = '\0';
	approval_go(c);
}

/*
 * The workspace as the grant finds it: what the approver was shown (the
 * request's digest) is what the command will read, or the approval is
 * void.  A tool that runs a script, a Makefile or package.json reads
 * code the agent can change while a human reads the request.  A digest
 * taken while the workspace kept changing matches nothing.
 */
static void
approval_grant_digested(struct call *c, int rc, const char *hex)
{
	json_t *out = NULL;

	if (rc != 0) {
		/* Not retryable: the same workspace fails the same way. */
		call_complete(c, ACTION_ERROR,
		    tool_error("workspace_undigestable", 0, NULL,
			"%s was approved, but "
			"the workspace cannot be digested to check it against "
			"what the approver saw; nothing was done: %s",
			c->tool->name, hex));
		return;
	}
	snprintf(c->granted_ws, sizeof(c->granted_ws), "%s",
	    c->digest_gen != -1 ? hex : "");
	/*
	 * An agent that writes the workspace can write a file through a
	 * shared mapping once the digest has read it, and inotify sees no
	 * such write: the workspace is digested once more, and the two
	 * seals compared (broker/wsindex.h), as a gate's are after its run.
	 * Where no seal can show that (tmpfs, ...) the call fails.
	 */
	if (c->granted_ws[0] != '\0' &&
	    (cowview_active(c->b) || c->b->m->agent.workspace_writable)) {
		if (c->ws_seal[0] == '\0') {
			call_complete(c, ACTION_ERROR,
			    tool_error("workspace_unsealable", 0, NULL,
				"%s was approved, but the agent writes the "
				"workspace and it is on a filesystem where a "
				"write through a shared mapping moves no time "
				"(tmpfs, or an overlay whose upper layer is not "
				"ext2/3/4, XFS or btrfs): a change made after "
				"the grant's digest read a file would go unseen; "
				"nothing was done (keep the workspace, and a cow "
				"session's directory, on ext2/3/4, XFS or btrfs, or "
				"give the agent a read-only workspace)",
				c->tool->name));
			return;
		}
		snprintf(
		    c->grant_seal, sizeof(c->grant_seal), "%s", c->ws_seal);
		if (call_digest(c, approval_grant_sealed, &out) !=
		    ACTION_PENDING)
			call_complete(c, ACTION_ERROR, out);
		return;
	}
	approval_go(c);
}

void
approval_granted(struct call *c)
{
	json_t *out = NULL;

	if (call_hold(c, HOLD_GRANTED, NULL))
		return;
	c->granted_ws[0] = '\0';
	if (json_object_get(c->binding, "workspace") == NULL)
		approval_go(c);
	else if (call_digest(c, approval_grant_digested, &out) !=
	    ACTION_PENDING)
		call_complete(c, ACTION_ERROR, out);
}

static void
approval_done(void *arg, enum approval_outcome outcome, const char *approver,
    const char *text)
{
	struct call *c = arg;
	struct broker *b = c->b;
	json_t *out = NULL;

	TAILQ_REMOVE(&b->waiting, c, entry);
	if (c->progress_watch > 0)
		loop_unwatch(b->cfg.loop, c->progress_watch);
	c->progress_watch = 0;
	if (outcome == APPROVAL_GRANTED)
		snprintf(c->approved, sizeof(c->approved), "%s", c->approval);
	c->approval[0] = '\0';
	escalate_decided(c, outcome);
	if (c->tool->action == ACTION_REQUEST_APPROVAL &&
	    outcome != APPROVAL_EXPIRED) {
		out = json_pack("{s:s, s:s, s:s?}", "decision",
		    outcome == APPROVAL_GRANTED ? "approved" : "rejected",
		    "approver", approver, "note", text);
		call_complete(c, ACTION_DONE, out);
		return;
	}
	switch (outcome) {
	case APPROVAL_GRANTED:
		approval_granted(c);
		return;
	case APPROVAL_DENIED:
		out = tool_error("approval_denied", 0, NULL, "%s denied %s: %s",
		    approver, c->tool->name,
		    text != NULL ? text : "(no reason)");
		break;
	case APPROVAL_EXPIRED:
		out = tool_error("approval_expired", 1, NULL,
		    "no human decided on %s in time; nothing was done (fail "
		    "closed)",
		    c->tool->name);
		break;
	}
	call_complete(c, ACTION_ERROR, out);
}

/* The errorClass of a request nobody was asked about. */
static const char *
refusal_class(enum approval_refusal refused)
{
	switch (refused) {
	case APPROVAL_REFUSED_UNRECORDED:
		return "audit_unavailable";
	case APPROVAL_REFUSED_DENIED:
		return "approval_denied";
	case APPROVAL_REFUSED_RATE:
		return "approval_rate_limited";
	case APPROVAL_REFUSED_BUSY:
		break;
	}
	return "busy";
}

int
call_await_approval(struct call *c, json_t *evidence, json_t **out)
{
	struct broker *b = c->b;
	const char *id;
	enum approval_refusal refused;
	char why[512];

	if (b->cfg.approvals == NULL) {
		json_decref(evidence);
		*out = tool_error("approval_required", 0, NULL,
		    "%s needs a human's approval, which this session cannot "
		    "obtain",
		    c->tool->name);
		return ACTION_ERROR;
	}
	/* What the agent says it wants this for: not part of the digest. */
	if (c->reason != NULL && json_is_object(evidence))
		json_object_set(evidence, "agentReason", c->reason);
	else if (c->tool->action == ACTION_REQUEST_APPROVAL &&
	    json_is_object(evidence) &&
	    json_is_string(json_object_get(c->args, "reason")))
		json_object_set(evidence, "agentReason",
		    json_object_get(c->args, "reason"));
	id = approvals_request(b->cfg.approvals, c->tool->name, c->args,
	    c->binding, evidence,
	    c->esc != NULL ? escalate_wait_ms(c) : c->tool->timeout_ms,
	    approval_done, c, &refused, why, sizeof(why));
	json_decref(evidence);
	if (id == NULL) {
		*out = tool_error(refusal_class(refused),
		    refused == APPROVAL_REFUSED_BUSY ||
			refused == APPROVAL_REFUSED_RATE,
		    NULL, "%s", why);
		return ACTION_ERROR;
	}
	snprintf(c->approval, sizeof(c->approval), "%s", id);
	escalate_requested(c, id);
	TAILQ_INSERT_TAIL(&b->waiting, c, entry);
	if (c->progress_token != NULL &&
	    (json_is_string(c->progress_token) ||
		json_is_integer(c->progress_token)))
		c->progress_watch = loop_watch(b->cfg.loop, -1,
		    now_monotonic_ms() + 1000, progress_tick, c);
	log_info("approval %s pending for %s: airlock approve %s", id,
	    c->tool->name, id);
	return ACTION_PENDING;
}