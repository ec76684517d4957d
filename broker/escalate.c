/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/approvalflow.h"
#include "broker/broker_int.h"
#include "broker/call.h"
#include "broker/denials.h"
#include "broker/escalate.h"
#include "common/log.h"
#include "common/util.h"

#define REASON_MAX 1024
#define ESC_IDS_MAX DENIALS_PER_CALL

struct escalation {
	json_t *call_id; /* the refused call's id */
	json_t *widening; /* its denial objects asked for */
	json_t *denied; /* everything that call was refused */
	json_t *reason; /* the agent's, a string */
	struct net_allow net; /* escalate_net(), or empty */
	int net_built;
	/* The re-run's sandbox policy: a shallow copy of the manifest's with
	 * these lists (owned, NULL-terminated). */
	struct sandbox_policy policy;
	char **read_only;
	char **read_write;
	char **syscalls;
	/* Each bound path and the host path it resolved to just before the
	 * run, after the check (owned). */
	struct exact_bind *exact;
	size_t nexact;
	int64_t held_at; /* when first held (escalate_hold()), or 0 */
};

/* The escalate tool: a broker built-in, not a manifest entry. */
static const struct tool escalate_tool = {
	.name = "escalate",
	.side_effect = SIDE_EFFECT_NONE,
	.timeout_ms = 1000,
	.authorization = AUTHZ_ALLOW,
};

int
escalate_enabled(const struct manifest *m)
{
	size_t i;

	for (i = 0; i < m->ntools; i++)
		if (m->tools[i].escalation)
			return 1;
	return 0;
}

json_t *
escalate_tool_entry(void)
{
	json_t *t = json_pack(
	    "{s:s, s:s, s:{s:s, s:{s:{s:[s,s], s:s}, "
	    "s:{s:s, s:{s:s, s:i}, s:i, s:i}, s:{s:s, s:i, s:i}}, s:[s,s,s], "
	    "s:b}, s:{s:s, s:b, s:b, s:b, s:b}}",
	    "name", "escalate", "description",
	    "Ask a human to re-run one call the sandbox "
	    "refused something, once, with exactly the refused permissions "
	    "added. callId: the refused call's callId; denied: ids from its "
	    "denied list (d1, ...); reason: why the command needs them. "
	    "Waits for the human's decision; the result is the re-run's. "
	    "Nothing is kept for later calls. [returns: the re-run's result; "
	    "sideEffect: as the original tool; authorization: approval]",
	    "inputSchema", "type", "object", "properties", "callId", "type",
	    "string", "integer", "description", "the id of the refused call",
	    "denied", "type", "array", "items", "type", "string", "maxLength",
	    8, "minItems", 1, "maxItems", ESC_IDS_MAX, "reason", "type",
	    "string", "minLength", 1, "maxLength", REASON_MAX, "required",
	    "callId", "denied", "reason", "additionalProperties", 0,
	    "annotations", "title", "escalate", "readOnlyHint", 0,
	    "destructiveHint", 1, "idempotentHint", 0, "openWorldHint", 1);

	if (t == NULL)
		fatalx("json_pack");
	return t;
}

/* A call of escalate itself, as tools_call() makes one. */
static struct call *
call_new(struct conn *k, json_t *id, json_t *args)
{
	struct call *c = xcalloc(1, sizeof(*c));
	char *text;

	c->b = k->b;
	c->conn = k;
	k->ncalls++;
	k->refs++;
	c->id = json_incref(id);
	c->tool = &escalate_tool;
	c->args = args != NULL ? json_incref(args) : json_object();
	c->started = now_monotonic_ms();
	c->seq = ++k->b->ncalls;
	c->changes_fd = -1;
	c->block_ms = -1;
	text = json_dumps(c->args, JSON_COMPACT | JSON_SORT_KEYS);
	sha256_hex(text, text != NULL ? strlen(text) : 0, c->args_digest);
	free(text);
	return c;
}

/* Refuses |c| without asking: audited, answered, freed. */
static void
refuse(struct call *c, json_t *call_id, const char *reason, unsigned cls,
    const char *msg)
{
	json_t *out;

	(void)broker_audit(c->b, "decision",
	    json_pack("{s:O, s:s, s:s, "
		      "s:s}",
		"id", c->id, "tool", "escalate", "decision", "deny", "reason",
		msg));
	(void)broker_audit(c->b, "escalation_refused",
	    json_pack("{s:O, "
		      "s:O?, s:s, s:s*}",
		"id", c->id, "callId", call_id, "reason", reason, "class",
		cls != 0 ? escalate_class_name(cls) : NULL));
	out = tool_error("escalation_refused", 0, NULL, "%s", msg);
	json_object_set_new(out, "reason", json_string(reason));
	if (cls != 0)
		json_object_set_new(
		    out, "class", json_string(escalate_class_name(cls)));
	snprintf(c->note, sizeof(c->note), "escalation refused: %s", reason);
	call_complete(c, ACTION_ERROR, out);
}

/* The arguments' shape; returns NULL or what is wrong. */
static const char *
bad_args(json_t *args)
{
	json_t *id = json_object_get(args, "callId");
	json_t *ids = json_object_get(args, "denied");
	json_t *reason = json_object_get(args, "reason");
	json_t *v, *w;
	const char *k;
	size_t i, j;

	if (!json_is_object(args))
		return "arguments must be an object";
	json_object_foreach(args, k, v)
	{
		if (strcmp(k, "callId") != 0 && strcmp(k, "denied") != 0 &&
		    strcmp(k, "reason") != 0)
			return "unknown argument (expected callId, denied, "
			       "reason)";
	}
	if (!json_is_string(id) && !json_is_integer(id))
		return "callId must be the refused call's id (a string or "
		       "an integer)";
	if (!json_is_array(ids) || json_array_size(ids) == 0 ||
	    json_array_size(ids) > ESC_IDS_MAX)
		return "denied must be a list of 1 to 20 denial ids";
	json_array_foreach(ids, i, v)
	{
		if (!json_is_string(v) || json_string_length(v) > 8)
			return "each denied entry must be a denial id (d1, ...)";
		for (j = 0; j < i; j++) {
			w = json_array_get(ids, j);
			if (json_equal(v, w))
				return "a denial id is listed twice";
		}
	}
	if (!json_is_string(reason) || json_string_length(reason) == 0 ||
	    json_string_length(reason) > REASON_MAX)
		return "reason must be a non-empty string of at most 1024 "
		       "bytes";
	return NULL;
}

/*
 * The widening asked for by denial |d| (a new copy): a filesystem one
 * with "resolved", what its path resolves to now (a bind follows links)
 * or null when it is absent.  The human is shown it, the approval's
 * digest binds it, and the re-run binds nothing else
 * (widening_recheck()).
 */
static json_t *
widening_entry(json_t *d)
{
	json_t *w = json_deep_copy(d);
	const char *path = json_string_value(json_object_get(d, "path"));
	const char *layer = json_string_value(json_object_get(d, "layer"));
	char real[PATH_MAX];

	if (w == NULL)
		fatalx("json_deep_copy");
	if (layer != NULL && strcmp(layer, "filesystem") == 0 && path != NULL)
		/* Not UTF-8: no "resolved", and the re-run is refused. */
		json_object_set_new(w, "resolved",
		    realpath(path, real) != NULL ? json_string(real)
						 : json_null());
	return w;
}

void
escalate_call(struct conn *k, json_t *id, json_t *params)
{
	struct broker *b = k->b;
	json_t *args = json_object_get(params, "arguments");
	struct call *c = call_new(k, id, args);
	struct denial_call *dc;
	const struct tool *t;
	struct escalation *e;
	json_t *call_id, *ids, *v, *d, *widening;
	const char *why;
	char msg[512];
	size_t i;
	unsigned cls;

	if (broker_audit(b, "request",
		json_pack("{s:O, s:s, s:s}", "id", c->id, "tool", "escalate",
		    "argsDigest", c->args_digest)) != 0) {
		call_complete(c, ACTION_ERROR,
		    tool_error("audit_unavailable", 1, NULL,
			"the audit log cannot be written"));
		return;
	}
	if ((why = bad_args(c->args)) != NULL) {
		(void)broker_audit(b, "decision",
		    json_pack("{s:O, s:s, s:s, "
			      "s:s}",
			"id", c->id, "tool", "escalate", "decision", "invalid",
			"reason", why));
		call_complete(c, ACTION_ERROR,
		    tool_error("invalid_arguments", 0, NULL,
			"arguments do not fit the contract of escalate: "
			"%s",
			why));
		return;
	}
	call_id = json_object_get(c->args, "callId");
	ids = json_object_get(c->args, "denied");
	if ((dc = denials_find(b->denials, call_id)) == NULL) {
		refuse(c, call_id, "unknownCall", 0,
		    "no recent call with "
		    "that callId was refused anything by the sandbox "
		    "(unknown, or too old: only the last 64 are kept)");
		return;
	}
	if ((t = manifest_tool(b->m, dc->tool)) == NULL || !t->escalation) {
		snprintf(msg, sizeof(msg),
		    "the manifest does not allow "
		    "escalation for %s (escalation: ask)",
		    dc->tool);
		refuse(c, call_id, "notEnabled", 0, msg);
		return;
	}
	json_array_foreach(ids, i, v)
	{
		if (denial_call_get(dc, json_string_value(v)) == NULL) {
			snprintf(msg, sizeof(msg),
			    "%s is not in that call's "
			    "denied list: only what was refused can be asked "
			    "for",
			    json_string_value(v));
			refuse(c, call_id, "notDenied", 0, msg);
			return;
		}
	}
	json_array_foreach(ids, i, v)
	{
		d = denial_call_get(dc, json_string_value(v));
		cls = denials_class(b->m, b->cfg.workspace, d);
		if (cls == ESCALATE_CLASS_PROTECTED ||
		    (b->m->escalation.forbid & cls) != 0) {
			if (cls == ESCALATE_CLASS_PROTECTED &&
			    denials_metadata(d))
				snprintf(msg, sizeof(msg),
				    "%s is the cloud's metadata service, "
				    "which hands out this machine's cloud "
				    "credentials: never widened",
				    json_string_value(v));
			else if (cls == ESCALATE_CLASS_PROTECTED)
				snprintf(msg, sizeof(msg),
				    "%s touches a "
				    "protected path (.git, protected patterns, "
				    "denyRead, credential stores, airlock's own "
				    "state): never widened",
				    json_string_value(v));
			else
				snprintf(msg, sizeof(msg),
				    "%s is a %s "
				    "widening, which the manifest's "
				    "escalation.forbid refuses",
				    json_string_value(v),
				    escalate_class_name(cls));
			refuse(c, call_id, "forbidden", cls, msg);
			return;
		}
	}
	json_array_foreach(ids, i, v)
	{
		if (json_object_get(dc->used, json_string_value(v)) != NULL) {
			snprintf(msg, sizeof(msg),
			    "%s was escalated once "
			    "already: a denial is escalated at most once",
			    json_string_value(v));
			refuse(c, call_id, "used", 0, msg);
			return;
		}
	}
	/* Single use, from now: a second request while this waits fails. */
	widening = json_array();
	json_array_foreach(ids, i, v)
	{
		json_object_set_new(
		    dc->used, json_string_value(v), json_true());
		json_array_append_new(widening,
		    widening_entry(denial_call_get(dc, json_string_value(v))));
	}
	e = xcalloc(1, sizeof(*e));
	e->call_id = json_incref(call_id);
	e->widening = widening;
	e->denied = json_incref(dc->list);
	e->reason = json_incref(json_object_get(c->args, "reason"));
	/* The call becomes the original one, its arguments as they were. */
	json_decref(c->args);
	if ((c->args = json_deep_copy(dc->args)) == NULL)
		fatalx("json_deep_copy");
	c->tool = t;
	c->esc = e;
	json_decref(c->reason);
	c->reason = json_incref(e->reason);
	{
		char *text = json_dumps(c->args, JSON_COMPACT | JSON_SORT_KEYS);

		sha256_hex(
		    text, text != NULL ? strlen(text) : 0, c->args_digest);
		free(text);
	}
	broker_call_decide(c, params);
}

json_t *
escalate_record(struct call *c, json_t *egress, const struct runner_result *res)
{
	json_t *list = denials_build(egress, res), *d, *rec;
	size_t i;

	if (list == NULL)
		return NULL;
	json_array_foreach(list, i, d)
	{
		if ((rec = json_deep_copy(d)) == NULL)
			fatalx("json_deep_copy");
		json_object_set(rec, "id", c->id);
		json_object_set_new(rec, "tool", json_string(c->tool->name));
		(void)broker_audit(c->b, "sandbox_denial", rec);
	}
	denials_remember(c->b->denials, c->id, c->tool->name, c->args, list);
	return list;
}

void
escalate_annotate(struct call *c, json_t *structured)
{
	if (c->denied == NULL || structured == NULL)
		return;
	json_object_set(structured, "callId", c->id);
	json_object_set(structured, "denied", c->denied);
}

json_t *
escalate_note(const struct call *c)
{
	char what[1024], *line, *idj, *cid;
	json_t *ids, *d, *note;
	size_t i;

	if (c->denied == NULL)
		return NULL;
	denials_summary(c->denied, what, sizeof(what));
	if (!c->tool->escalation) {
		xasprintf(&line,
		    "[airlock: the sandbox refused %s; see denied "
		    "in the result]",
		    what);
	} else {
		ids = json_array();
		json_array_foreach(c->denied, i, d)
		{
			json_array_append(ids, json_object_get(d, "denial"));
		}
		idj = json_dumps(ids, JSON_COMPACT);
		cid = json_dumps(c->id, JSON_COMPACT | JSON_ENCODE_ANY);
		json_decref(ids);
		xasprintf(&line,
		    "[airlock: the sandbox refused %s; to ask a human to "
		    "re-run this call once with exactly that allowed, call "
		    "escalate with {\"callId\":%s,\"denied\":%s,"
		    "\"reason\":\"...\"}]",
		    what, cid != NULL ? cid : "null", idj != NULL ? idj : "[]");
		free(cid);
		free(idj);
	}
	if ((note = json_string(line)) == NULL)
		fatalx("json_string");
	free(line);
	return note;
}

void
escalate_evidence(struct call *c, json_t *evidence)
{
	if (c->esc == NULL || !json_is_object(evidence))
		return;
	/*
	 * What the widening reaches that is not the internet, as this
	 * machine (the broker's, where the re-run runs) sees it: an approver
	 * elsewhere (a notify hook's chat message, approve --sign on another
	 * machine) cannot tell this machine's own addresses.
	 */
	json_object_set_new(evidence, "escalation",
	    json_pack("{s:O, s:O, "
		      "s:O, s:o, s:O, s:s}",
		"callId", c->esc->call_id, "denied", c->esc->denied, "widening",
		c->esc->widening, "warnings",
		denials_warnings(c->esc->widening), "reason", c->esc->reason,
		"scope", "this one re-run only; nothing is kept"));
}

json_t *
escalate_binding(struct call *c)
{
	return c->esc != NULL ? json_incref(c->esc->widening) : NULL;
}

int64_t
escalate_wait_ms(struct call *c)
{
	const struct manifest *m = c->b->m;

	if (m->escalation.expires_s > 0)
		return m->escalation.expires_s * 1000;
	return m->approvals.ttl_seconds * 1000;
}

void
escalate_requested(struct call *c, const char *approval)
{
	if (c->esc == NULL)
		return;
	(void)broker_audit(c->b, "escalation_request",
	    json_pack("{s:O, s:O, "
		      "s:s, s:O, s:O, s:s}",
		"id", c->id, "callId", c->esc->call_id, "tool", c->tool->name,
		"widening", c->esc->widening, "reason", c->esc->reason,
		"approval", approval));
}

void
escalate_decided(struct call *c, enum approval_outcome o)
{
	if (c->esc == NULL)
		return;
	(void)broker_audit(c->b, "escalation_decision",
	    json_pack("{s:O, s:O, "
		      "s:s}",
		"id", c->id, "callId", c->esc->call_id, "outcome",
		o == APPROVAL_GRANTED	   ? "approved"
		    : o == APPROVAL_DENIED ? "denied"
					   : "expired"));
}

const struct net_allow *
escalate_net(struct call *c, const struct net_allow *allow)
{
	struct escalation *e = c->esc;
	json_t *d;
	size_t i, n;
	char hp[300];

	if (e == NULL)
		return allow;
	if (!e->net_built) {
		e->net_built = 1;
		e->net.hosts =
		    xcalloc(allow->nhosts + json_array_size(e->widening) + 1,
			sizeof(char *));
		for (n = 0; n < allow->nhosts; n++)
			e->net.hosts[n] = xstrdup(allow->hosts[n]);
		json_array_foreach(e->widening, i, d)
		{
			const char *host =
			    json_string_value(json_object_get(d, "host"));

			if (host == NULL ||
			    strcmp(
				json_string_value(json_object_get(d, "layer")),
				"network") != 0)
				continue;
			snprintf(hp, sizeof(hp),
			    strchr(host, ':') != NULL ? "[%s]:%lld" : "%s:%lld",
			    host,
			    (long long)json_integer_value(
				json_object_get(d, "port")));
			e->net.hosts[n++] = xstrdup(hp);
		}
		e->net.nhosts = n;
		e->net.addresses = xcalloc(1, sizeof(char *));
	}
	return &e->net;
}

/* A new NULL-terminated copy of |v| (|n| entries) with room for |more|. */
static char **
strv_grow(char *const *v, size_t n, size_t more)
{
	char **w = xcalloc(n + more + 1, sizeof(*w));
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = xstrdup(v[i]);
	return w;
}

/* Doubles the limit |name| in |l| (or the wall clock in *timeout_ms). */
static void
double_limit(struct resource_limits *l, int64_t *timeout_ms, const char *name)
{
	if (strcmp(name, "memory") == 0)
		l->memory_mb *= 2;
	else if (strcmp(name, "processes") == 0)
		l->processes *= 2;
	else if (strcmp(name, "cpu") == 0)
		l->cpu_seconds *= 2;
	else if (strcmp(name, "fileSize") == 0)
		l->file_size_mb *= 2;
	else if (strcmp(name, "wallClock") == 0)
		*timeout_ms *= 2;
}

static void
exact_drop(struct escalation *e)
{
	size_t i;

	for (i = 0; i < e->nexact; i++)
		free((char *)e->exact[i].src);
	free(e->exact);
	e->exact = NULL;
	e->nexact = 0;
}

/* An escalation's re-run refused for |reason|, said in |msg|: audited,
 * and the refusal in *out; returns -1. */
static int
rerun_refused(struct call *c, const char *reason, const char *msg, json_t **out)
{
	int forbidden = strcmp(reason, "forbidden") == 0;

	(void)broker_audit(c->b, "escalation_refused",
	    json_pack("{s:O, s:O?, s:s, s:s*}", "id", c->id, "callId",
		c->esc->call_id, "reason", reason, "class",
		forbidden ? escalate_class_name(ESCALATE_CLASS_PROTECTED)
			  : NULL));
	*out = tool_error("escalation_refused", 0, NULL, "%s", msg);
	json_object_set_new(*out, "reason", json_string(reason));
	if (forbidden)
		json_object_set_new(*out, "class",
		    json_string(escalate_class_name(ESCALATE_CLASS_PROTECTED)));
	snprintf(c->note, sizeof(c->note), "escalation refused: %s", reason);
	return -1;
}

/*
 * A filesystem widening, checked again now that it is about to be bound
 * (the agent may have swapped a path it owns for a link since the
 * escalation was asked for): 0 with *real set to what the path resolves
 * to, which must be the "resolved" the human was shown; 1 when it is
 * absent (nothing to bind); or -1 when it is protected now (forbidden)
 * or resolves elsewhere than it did (changed), with the escalation
 * refused in *out.
 */
static int
widening_recheck(struct call *c, json_t *d, char *real, json_t **out)
{
	const char *path = json_string_value(json_object_get(d, "path"));
	const char *did = json_string_value(json_object_get(d, "denial"));
	const char *was = json_string_value(json_object_get(d, "resolved"));
	const char *reason = "forbidden";
	char msg[PATH_MAX + 512];

	if (denials_class(c->b->m, c->b->cfg.workspace, d) !=
	    ESCALATE_CLASS_PROTECTED) {
		if (realpath(path, real) != NULL) {
			if (was != NULL && strcmp(real, was) == 0)
				return 0;
			reason = "changed";
		} else if (errno == ENOENT || errno == ENOTDIR)
			return 1;
	}
	if (strcmp(reason, "changed") == 0)
		snprintf(msg, sizeof(msg),
		    "%s: %s resolves to %s now, not to what the human was "
		    "shown (%s): never widened; nothing was run",
		    did != NULL ? did : "?", path, real,
		    was != NULL ? was : "nothing");
	else
		snprintf(msg, sizeof(msg),
		    "%s touches a protected path now (.git, "
		    "protected patterns, denyRead, credential stores, airlock's "
		    "own state), though it did not when the escalation was "
		    "asked for: never widened; nothing was run",
		    did != NULL ? did : "?");
	return rerun_refused(c, reason, msg, out);
}

/*
 * A run approved by a human, running now, whose workspace held a file
 * with another name (a hard link) when it was granted: none of them
 * counted then (call_ws_linked(): their other names lay where no
 * runner wrote), so nothing refused it; or NULL.
 */
static const struct call *
linked_approved_running(const struct broker *b)
{
	const struct call *r;

	TAILQ_FOREACH(r, &b->running, entry)
	if (r->ws_still && r->ws_linked_any > 0)
		return r;
	return NULL;
}

/* Whether |e| widens a write (a tree no walk for hard links judged). */
static int
widens_write(const struct escalation *e)
{
	json_t *d;
	size_t i;

	json_array_foreach(e->widening, i, d)
	{
		const char *access =
		    json_string_value(json_object_get(d, "access"));

		if (access != NULL && strcmp(access, "write") == 0)
			return 1;
	}
	return 0;
}

int
escalate_hold(struct call *c)
{
	struct broker *b = c->b;
	const struct call *r;
	char why[128];

	if (c->esc == NULL || !widens_write(c->esc) ||
	    (r = linked_approved_running(b)) == NULL)
		return 0;
	if (c->esc->held_at == 0)
		c->esc->held_at = now_monotonic_ms();
	(void)broker_audit(b, "escalation_held",
	    json_pack("{s:O, s:O?, s:s, s:s, s:O, s:s}", "id", c->id, "callId",
		c->esc->call_id, "tool", c->tool->name, "approval", c->approved,
		"runId", r->id, "runTool", r->tool->name));
	snprintf(
	    why, sizeof(why), "held until %s, approved, ends", r->tool->name);
	broker_trace(b, c, "escalation_held", why);
	log_info("escalation of %s (approval %s) %s", c->tool->name,
	    c->approved, why);
	TAILQ_INSERT_TAIL(&b->esc_held, c, entry);
	return 1;
}

void
escalate_resume(struct broker *b)
{
	struct callq go;
	struct call *c;

	if (TAILQ_EMPTY(&b->esc_held) || linked_approved_running(b) != NULL)
		return;
	/* Each starts over from the grant: a held one may be held again
	 * behind one started before it. */
	TAILQ_INIT(&go);
	TAILQ_CONCAT(&go, &b->esc_held, entry);
	while ((c = TAILQ_FIRST(&go)) != NULL) {
		TAILQ_REMOVE(&go, c, entry);
		call_clear_exec(c);
		approval_granted(c);
	}
}

void
escalate_session_end(struct broker *b)
{
	struct call *c;

	while ((c = TAILQ_FIRST(&b->esc_held)) != NULL) {
		TAILQ_REMOVE(&b->esc_held, c, entry);
		(void)broker_audit(b, "escalation_refused",
		    json_pack("{s:O, s:O?, s:s}", "id", c->id, "callId",
			c->esc->call_id, "reason", "sessionEnded"));
		call_free(c);
	}
}

/* A held escalation's re-run starts now: escalation_applied. */
static void
held_applied(struct call *c)
{
	if (c->esc->held_at == 0)
		return;
	(void)broker_audit(c->b, "escalation_applied",
	    json_pack("{s:O, s:O?, s:s, s:I}", "id", c->id, "callId",
		c->esc->call_id, "approval", c->approved, "heldMs",
		(json_int_t)(now_monotonic_ms() - c->esc->held_at)));
}

int
escalate_prepare_run(struct call *c, json_t **out)
{
	const struct sandbox_policy *sp = &c->b->m->sandbox;
	struct escalation *e = c->esc;
	char real[PATH_MAX];
	json_t *d;
	size_t i, nro, nrw, nsys;
	int rc;

	c->req.allow_syscalls = (const char *const *)sp->allow_syscalls;
	c->req.nallow_syscalls = sp->nallow_syscalls;
	if (e == NULL)
		return 0;
	strv_free(e->read_only);
	strv_free(e->read_write);
	strv_free(e->syscalls);
	exact_drop(e);
	e->exact = xcalloc(json_array_size(e->widening) + 1, sizeof(*e->exact));
	e->policy = *c->req.policy;
	e->read_only = strv_grow(e->policy.read_only, e->policy.nread_only,
	    json_array_size(e->widening));
	e->read_write = strv_grow(e->policy.read_write, e->policy.nread_write,
	    json_array_size(e->widening));
	e->syscalls = strv_grow(sp->allow_syscalls, sp->nallow_syscalls,
	    json_array_size(e->widening));
	nro = e->policy.nread_only;
	nrw = e->policy.nread_write;
	nsys = sp->nallow_syscalls;
	json_array_foreach(e->widening, i, d)
	{
		const char *layer =
		    json_string_value(json_object_get(d, "layer"));
		const char *access =
		    json_string_value(json_object_get(d, "access"));
		const char *path =
		    json_string_value(json_object_get(d, "path"));

		if (layer == NULL)
			continue;
		if (strcmp(layer, "filesystem") == 0 && path != NULL &&
		    access != NULL) {
			if ((rc = widening_recheck(c, d, real, out)) < 0)
				return -1;
			if (rc > 0)
				continue;
			/* A tree no walk judged for hard links: every
			 * linked workspace file counts from now on. */
			if (strcmp(access, "write") == 0) {
				c->b->links_all = 1;
				path = e->read_write[nrw++] = xstrdup(path);
			} else
				path = e->read_only[nro++] = xstrdup(path);
			e->exact[e->nexact].path = path;
			e->exact[e->nexact++].src = xstrdup(real);
		} else if (strcmp(layer, "syscall") == 0 &&
		    json_is_string(json_object_get(d, "syscall")))
			e->syscalls[nsys++] = xstrdup(
			    json_string_value(json_object_get(d, "syscall")));
		else if (strcmp(layer, "limit") == 0 &&
		    json_is_string(json_object_get(d, "limit")))
			double_limit(&e->policy.limits, &c->req.timeout_ms,
			    json_string_value(json_object_get(d, "limit")));
	}
	held_applied(c);
	e->policy.read_only = e->read_only;
	e->policy.nread_only = nro;
	e->policy.read_write = e->read_write;
	e->policy.nread_write = nrw;
	c->req.policy = &e->policy;
	e->policy.exact = e->exact;
	e->policy.nexact = e->nexact;
	c->req.allow_syscalls = (const char *const *)e->syscalls;
	c->req.nallow_syscalls = nsys;
	return 0;
}

void
escalate_free(struct escalation *e)
{
	size_t i;

	if (e == NULL)
		return;
	strv_free(e->read_only);
	strv_free(e->read_write);
	strv_free(e->syscalls);
	exact_drop(e);
	json_decref(e->call_id);
	json_decref(e->widening);
	json_decref(e->denied);
	json_decref(e->reason);
	for (i = 0; i < e->net.nhosts; i++)
		free(e->net.hosts[i]);
	free(e->net.hosts);
	free(e->net.addresses);
	free(e);
}
