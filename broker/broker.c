/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The broker's request loop: frames in, decisions and results out.
 *
 * Everything the agent sends arrives through a connection (broker/conn.c),
 * is decoded by jsonrpc_decode(), and is dispatched from methods[] below
 * (broker_dispatch()).
 * Nothing the agent sends is trusted: a frame that fails any check gets a
 * JSON-RPC error and the loop goes on with the next frame.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/artifact.h"
#include "broker/approvalflow.h"
#include "broker/audit_fields.h"
#include "broker/broker.h"
#include "broker/broker_int.h"
#include "broker/cancel.h"
#include "broker/changeset.h"
#include "broker/denials.h"
#include "broker/egress.h"
#include "broker/escalate.h"
#include "broker/conn.h"
#include "broker/cowview.h"
#include "broker/viewfreeze.h"
#include "broker/fwatch.h"
#include "broker/jobs.h"
#include "broker/jsonrpc.h"
#include "broker/landjob.h"
#include "broker/ledger.h"
#include "broker/output.h"
#include "broker/pins.h"
#include "broker/jsonout.h"
#include "broker/redact.h"
#include "broker/result.h"
#include "broker/runcall.h"
#include "broker/secrets.h"
#include "broker/status.h"
#include "broker/wsdigest.h"
#include "broker/wswrite.h"
#include "broker/wsjob.h"
#include "broker/wslinks.h"
#include "broker/shellgate.h"
#include "common/buf.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "common/vis.h"
#include "policy/path.h"
#include "policy/types.h"

#define MCP_PROTOCOL_LATEST	"2025-06-18"

static const char *mcp_protocols[] = {
	"2025-06-18", "2025-03-26", "2024-11-05", NULL
};

int
broker_audit(struct broker *b, const char *event, json_t *fields)
{
	int rc;

	rc = audit_append(b->cfg.audit, event, fields);
	json_decref(fields);
	if (rc != 0)
		log_warnx("audit log %s cannot be written: refusing requests",
		    audit_path(b->cfg.audit));
	return rc;
}

/*
 * One column of trace.txt: |s| escaped (common/vis.h), cut between
 * characters to at most |width| bytes.  Caller frees.
 */
static char *
trace_col(const char *s, size_t width)
{
	char *v;

	if (s == NULL)
		s = "";
	if ((v = vis_dup_fit(s, strlen(s), 0, width, NULL)) == NULL)
		fatalx("out of memory");
	return v;
}

void
broker_dependency_real(struct broker *b)
{
	char **real;
	size_t i, n;

	real = wswrite_dependency_real(b->rootfd, b->m->dependency_files,
	    b->m->ndependency_files, &n);
	ledger_dependency_real(b->ledger, (const char *const *)real, n);
	for (i = 0; i < n; i++)
		free(real[i]);
	free(real);
}

void
broker_budget_stop(struct broker *b, const char *limit)
{
	if (b->budget_stopped)
		return;
	b->budget_stopped = 1;
	ledger_stop(b->ledger, limit);
	log_warnx("run budget exhausted (%s): the session is stopped", limit);
	(void)broker_audit(b, "budget_stop", json_pack("{s:s, s:I, s:s}",
	    "limit", limit, "steps", (json_int_t)ledger_steps(b->ledger),
	    "trace", b->cfg.session_dir));
	if (b->trace != NULL) {
		char *v = trace_col(limit, SIZE_MAX);

		fprintf(b->trace, "STOP  budget exhausted: %s\n", v);
		free(v);
		fflush(b->trace);
	}
	/* Nothing runs on after the stop: jobs and blocking calls alike. */
	jobs_budget_stop(b, limit);
}

/*
 * maxElapsedMinutes runs out on its own, not only when the next call
 * comes: what still runs then is stopped like any budget's, and nothing
 * of it lands.  A run's deadline is ELAPSED_GRACE_MS past the session's
 * (call_start_runner()), so that the stop comes first: a run cut off by
 * its own timeout would land its writes.
 */
static void
elapsed_up(int fd, int why, void *arg)
{
	struct broker *b = arg;

	(void)fd;
	(void)why;
	loop_unwatch(b->cfg.loop, b->elapsed_watch);
	b->elapsed_watch = 0;
	broker_budget_stop(b, "maxElapsedMinutes");
}

/*
 * trace.txt is read by people (airlock trace, or cat): every field is
 * escaped, since the decision, gate and note can quote what the agent
 * or its workspace produced.
 */
void
broker_trace(struct broker *b, struct call *c, const char *decision,
    const char *note)
{
	char *tool, *digest, *dec, *hash, *gate, *text;

	if (b->trace == NULL)
		return;
	tool = trace_col(c->tool->name, 18);
	digest = trace_col(c->args_digest, 12);
	dec = trace_col(decision, 18);
	hash = trace_col(c->patch_hash[0] != '\0' ? c->patch_hash : "-",
	    SIZE_MAX);
	gate = trace_col(c->gate[0] != '\0' ? c->gate : "-", 32);
	text = trace_col(note, SIZE_MAX);
	fprintf(b->trace, "%-5lld %-18s %-12s %-18s %-16s %-32s %s\n",
	    (long long)c->seq, tool, digest, dec, hash, gate, text);
	fflush(b->trace);
	free(tool);
	free(digest);
	free(dec);
	free(hash);
	free(gate);
	free(text);
}

json_t *
broker_budget_error(struct broker *b, const char *limit)
{
	char hint[PATH_MAX + 64];

	snprintf(hint, sizeof(hint), "trace: %s/trace.txt",
	    b->cfg.session_dir);
	return tool_error("budget_exhausted", 0, hint,
	    "the run budget is exhausted (%s); the session is stopped", limit);
}

/* Tool results. */

json_t *
tool_error(const char *error_class, int retryable, const char *hint,
    const char *fmt, ...)
{
	char	 msg[1024];
	va_list	 ap;
	json_t	*e;

	char	*clean;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Truncation or a quoted file line may have left broken UTF-8. */
	clean = utf8_sanitize(msg, strlen(msg));
	e = json_pack("{s:s, s:b, s:s}", "errorClass", error_class,
	    "retryable", retryable, "message", clean);
	free(clean);
	if (e == NULL)
		fatalx("json_pack");
	if (hint != NULL && hint[0] != '\0') {
		clean = utf8_sanitize(hint, strlen(hint));
		json_object_set_new(e, "hint", json_string(clean));
		free(clean);
	}
	return e;
}


void
broker_notify(struct broker *b, const char *method, json_t *params)
{
	struct conn *k, *next;

	for (k = TAILQ_FIRST(&b->conns); k != NULL; k = next) {
		next = TAILQ_NEXT(k, entry);
		if (k->closed || k->state != BROKER_STATE_READY)
			continue;
		k->refs++;
		conn_send(k, jsonrpc_encode_notification(method, params));
		conn_unref(k);
	}
}

/* Runners: broker/runcall.c. */

void
join_paths(json_t *list, char *buf, size_t len)
{
	json_t	*v;
	size_t	 i, off = 0;

	buf[0] = '\0';
	json_array_foreach(list, i, v) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
		    json_string_value(v));

		/* Cut, it ends between characters (json_string() of a
		 * note quoting it would fail and drop the note). */
		if (n < 0 || (size_t)n >= len - off) {
			(void)utf8_trim(buf);
			break;
		}
		off += n;
	}
}

/*
 * Whether the watches miss some of what the agent writes: its view's
 * (copy-on-write), or the checkout's when it writes that (rw).
 */
static int
ws_blind(const struct broker *b, int complete, int view_complete)
{
	return cowview_active(b) ? !view_complete :
	    !complete && b->m->agent.workspace_writable;
}

int64_t
broker_ws_gen(struct broker *b, int *blind)
{
	int	complete, view_complete;
	int64_t	others = (int64_t)fwatch_others(b->fwatch, &complete);

	others += (int64_t)fwatch_others(b->view_watch, &view_complete);
	*blind = ws_blind(b, complete, view_complete);
	return b->ws_gen + others;
}

int64_t
broker_ws_foreign(struct broker *b, int *blind)
{
	int	complete, view_complete;
	int64_t	n = (int64_t)fwatch_foreign(b->fwatch, &complete);

	n += (int64_t)fwatch_foreign(b->view_watch, &view_complete);
	*blind = ws_blind(b, complete, view_complete);
	return n;
}

void
broker_writing(struct broker *b, int on)
{
	fwatch_broker(b->fwatch, on);
	fwatch_broker(b->view_watch, on);
}

json_t *
broker_pins_changed(struct broker *b, const struct check *ck,
    const struct tool *t)
{
	json_t	*was, *now, *changed;
	char	 err[512], *msg;

	if (ck != NULL) {
		was = b->check_pins[ck - b->m->checks];
		if (pins_collect(b->rootfd, b->cfg.workspace, ck->argv, ck->pin,
		    NULL, 0, &now, err, sizeof(err)) != 0)
			now = NULL;
	} else if (t == NULL)
		return json_array();	/* nothing pinned, nothing changed */
	else {
		was = b->tool_pins[t - b->m->tools];
		if (pins_collect(b->rootfd, b->cfg.workspace, t->command,
		    t->pin, NULL, t->nsecrets > 0, &now, err, sizeof(err)) != 0)
			now = NULL;
	}
	if (now == NULL) {
		xasprintf(&msg, "(cannot hash: %s)", err);
		changed = json_pack("[s]", msg);
		free(msg);
		return changed;
	}
	changed = pins_changed(was, now);
	json_decref(now);
	return changed;
}

/*
 * Hashes the pinned code of every check and of every tool that needs a
 * human's approval or is granted a secret, as the session starts.
 * Returns 0, or -1 with err set.
 */
static int
broker_pin_all(struct broker *b, char *err, size_t errlen)
{
	const struct manifest	*m = b->m;
	char			 why[512];
	size_t			 i;

	b->check_pins = xcalloc(m->nchecks + 1, sizeof(*b->check_pins));
	b->tool_pins = xcalloc(m->ntools + 1, sizeof(*b->tool_pins));
	for (i = 0; i < m->nchecks; i++)
		if (pins_collect(b->rootfd, b->cfg.workspace,
		    m->checks[i].argv, m->checks[i].pin, NULL, 0,
		    &b->check_pins[i], why, sizeof(why)) != 0) {
			snprintf(err, errlen, "check %s: pinned code: %s",
			    m->checks[i].id, why);
			return -1;
		}
	for (i = 0; i < m->ntools; i++) {
		const struct tool *t = &m->tools[i];

		if (t->nsecrets == 0 &&
		    manifest_tool_authorization(m, t) != AUTHZ_APPROVAL)
			continue;
		if (pins_collect(b->rootfd, b->cfg.workspace, t->command,
		    t->pin, NULL, t->nsecrets > 0, &b->tool_pins[i], why,
		    sizeof(why)) != 0) {
			snprintf(err, errlen, "tool %s: pinned code: %s",
			    t->name, why);
			return -1;
		}
	}
	return 0;
}

static void
broker_unpin_all(struct broker *b)
{
	size_t i;

	for (i = 0; b->check_pins != NULL && i < b->m->nchecks; i++)
		json_decref(b->check_pins[i]);
	for (i = 0; b->tool_pins != NULL && i < b->m->ntools; i++)
		json_decref(b->tool_pins[i]);
	free(b->check_pins);
	free(b->tool_pins);
}

int
broker_save_artifact(struct broker *b, const char *label, const char *data,
    size_t len, char *uri, size_t urilen, char *digest)
{
	char	*clean;
	size_t	 cleanlen;
	int	 rc;

	/* Nothing a granted secret looks like is stored, or digested. */
	if (redact_buf(b->cfg.redact, data, len, &clean, &cleanlen) < 0)
		fatalx("out of memory redacting an artifact");
	sha256_hex(clean, cleanlen, digest);
	rc = artifact_save(b->artifacts, label, clean, cleanlen, uri, urilen);
	free(clean);
	return rc;
}

/* Methods. */

static void
m_initialize(struct conn *k, struct jsonrpc_msg *msg)
{
	struct broker	*b = k->b;
	const char	*want = NULL, *agreed = MCP_PROTOCOL_LATEST;
	json_t		*v, *result;
	size_t		 i;

	if (k->state != BROKER_STATE_NEW) {
		conn_error(k, msg->id, JSONRPC_INVALID_REQUEST,
		    "already initialized");
		return;
	}
	if (!json_is_object(msg->params) ||
	    !json_is_string(v = json_object_get(msg->params,
	    "protocolVersion"))) {
		conn_error(k, msg->id, JSONRPC_INVALID_PARAMS,
		    "initialize needs params.protocolVersion (a string)");
		return;
	}
	want = json_string_value(v);
	for (i = 0; mcp_protocols[i] != NULL; i++)
		if (strcmp(want, mcp_protocols[i]) == 0)
			agreed = mcp_protocols[i];
	result = json_pack("{s:s, s:{s:{s:b}, s:{}}, s:{s:s, s:s, s:s}, s:s}",
	    "protocolVersion", agreed,
	    "capabilities", "tools", "listChanged", 0, "resources",
	    "serverInfo", "name", "airlock", "title", "airlock broker",
	    "version", PACKAGE_VERSION,
	    "instructions",
	    "Every tool call is validated against the manifest, may need a "
	    "human's approval, runs in a sandbox and is recorded in an audit "
	    "log. Tool failures are results with errorClass and retryable.");
	k->state = BROKER_STATE_INITIALIZING;
	(void)broker_audit(b, "initialize", json_pack("{s:s, s:s}",
	    "requested", want, "agreed", agreed));
	conn_send(k, jsonrpc_encode_result(msg->id, result));
	json_decref(result);
}

static void
m_initialized(struct conn *k, struct jsonrpc_msg *msg)
{
	(void)msg;
	k->state = BROKER_STATE_READY;
}

static void
m_ping(struct conn *k, struct jsonrpc_msg *msg)
{
	json_t *empty = json_object();

	conn_send(k, jsonrpc_encode_result(msg->id, empty));
	json_decref(empty);
}

static json_t *
tool_annotations(const struct tool *t)
{
	int ro = 0, destructive = 0, open_world = 0, idempotent = 0;

	switch (t->side_effect) {
	case SIDE_EFFECT_NONE:
		ro = 1;
		idempotent = 1;
		break;
	case SIDE_EFFECT_WORKSPACE_WRITE:
		destructive = 1;
		break;
	case SIDE_EFFECT_SANDBOX_PROCESS:
		idempotent = 1;
		break;
	case SIDE_EFFECT_NETWORK:
		open_world = 1;
		break;
	case SIDE_EFFECT_EXTERNAL:
	case SIDE_EFFECT_COUNT:
		destructive = 1;
		open_world = 1;
		break;
	}
	return json_pack("{s:s, s:b, s:b, s:b, s:b}", "title", t->name,
	    "readOnlyHint", ro, "destructiveHint", destructive,
	    "idempotentHint", idempotent, "openWorldHint", open_world);
}

static void
m_tools_list(struct conn *k, struct jsonrpc_msg *msg)
{
	struct broker	*b = k->b;
	json_t	*tools, *result, *t;
	size_t	 i, j;

	tools = json_array();
	for (i = 0; i < b->m->ntools; i++) {
		const struct tool *tool = &b->m->tools[i];
		char desc[512];

		if (tool->authorization == AUTHZ_DENY ||
		    b->m->forbid_side_effect[tool->side_effect])
			continue;
		snprintf(desc, sizeof(desc), "%s [returns: ",
		    tool->description != NULL ? tool->description : tool->name);
		for (j = 0; j < tool->noutput; j++)
			snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc),
			    "%s%s", j > 0 ? ", " : "", tool->output[j].name);
		snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc),
		    "; sideEffect: %s; authorization: %s; timeout %lld ms]",
		    side_effect_name(tool->side_effect),
		    authorization_name(tool->authorization),
		    (long long)tool->timeout_ms);
		/*
		 * No outputSchema: the broker checks every result against the
		 * declared output itself, before it leaves; and MCP clients on
		 * the TypeScript SDK (Gemini CLI) hold an error result against
		 * the outputSchema and hand the model a schema error instead of
		 * airlock's refusal.  The output fields are in the description.
		 */
		t = json_pack("{s:s, s:s, s:o, s:o}",
		    "name", tool->name, "description", desc,
		    "inputSchema", type_fields_schema(tool->input, tool->ninput),
		    "annotations", tool_annotations(tool));
		if (t == NULL)
			fatalx("json_pack");
		if (tool->jobs.max_block_ms > 0) {
			json_t *props = json_object_get(json_object_get(t,
			    "inputSchema"), "properties");

			if (props == NULL) {
				props = json_object();
				json_object_set_new(json_object_get(t,
				    "inputSchema"), "properties", props);
			}
			json_object_set_new(props, "blockMs",
			    jobs_block_schema(tool));
		}
		json_array_append_new(tools, t);
	}
	if (escalate_enabled(b->m) && manifest_tool(b->m, "escalate") == NULL)
		json_array_append_new(tools, escalate_tool_entry());
	result = json_pack("{s:o}", "tools", tools);
	conn_send(k, jsonrpc_encode_result(msg->id, result));
	json_decref(result);
}

/*
 * The run budget, checked for an allowed call before it runs.  Returns 1
 * with *out set if the call is refused.
 */
static int
budget_refuses(struct broker *b, struct call *c, json_t **out)
{
	char	limit[64];
	int	rc;

	/* A check digesting the workspace is as good as running, and so
	 * is a run whose set waits to land (runcall_waiting_to_land()). */
	rc = ledger_admit(b->ledger, c->tool, now_monotonic_ms(),
	    b->nrunning + b->nstarting + runcall_waiting_to_land(b),
	    limit, sizeof(limit));
	if (rc == 0)
		return 0;
	if (rc == AL_ERR_LIMIT) {
		*out = tool_error("busy", 1, NULL, "%s processes already run "
		    "(%s); retry when one ends", limit, limit);
		return 1;
	}
	broker_budget_stop(b, limit);
	*out = broker_budget_error(b, limit);
	return 1;
}

/*
 * A retry of a call still running waits for its result, with no timer:
 * at most FOLLOWERS_MAX wait at once, and the others are "busy".  An
 * agent that retried a running call in a loop held every retry until the
 * call ended (100000 retries: 265 MB of the broker's memory).
 */
#define FOLLOWERS_MAX	256

/*
 * Idempotency: a side-effecting call with an idempotencyKey is done once.
 * Returns 1 when the call was answered here (a replay, or a conflict with
 * *out set).
 */
static int
idempotent_replay(struct broker *b, struct call *c, json_t **out)
{
	json_t	*prev;
	int	 rc;

	if (c->tool->side_effect == SIDE_EFFECT_NONE ||
	    (c->idem_key = json_string_value(json_object_get(c->args,
	    "idempotencyKey"))) == NULL)
		return 0;
	rc = ledger_replay(b->ledger, c->tool->name, c->idem_key,
	    c->args_digest, &prev);
	if (rc == AL_ERR_CONFLICT || rc == 3) {
		c->idem_key = NULL;
		*out = tool_error("idempotency_conflict", 0, NULL,
		    rc == 3 ? "idempotencyKey was used in an earlier run of "
			      "this session, whose result is not kept: use "
			      "a new key to run the call again"
			    : "idempotencyKey was used before with other "
			      "arguments");
		return 1;
	}
	if (rc == 0) {
		/* Mark it in flight: a retry meanwhile waits for this result. */
		ledger_remember(b->ledger, c->tool->name, c->idem_key,
		    c->args_digest, NULL);
		return 0;
	}
	if (rc == 2 && b->nfollowers >= FOLLOWERS_MAX) {
		/* The running call's key is not this retry's to free. */
		c->idem_key = NULL;
		*out = tool_error("busy", 1, NULL, "%d retries already wait "
		    "for calls with their idempotencyKey still running; retry "
		    "when this one has ended", FOLLOWERS_MAX);
		return 1;
	}
	if (rc == 2) {
		b->nfollowers++;
		(void)broker_audit(b, "idempotent_retry_waits", json_pack(
		    "{s:O, s:s, s:s}", "id", c->id, "tool", c->tool->name,
		    "idempotencyKey", c->idem_key));
		TAILQ_INSERT_TAIL(&b->followers, c, entry);
		*out = NULL;
		return 1;
	}
	(void)broker_audit(b, "idempotent_replay", json_pack("{s:O, s:s, s:s}",
	    "id", c->id, "tool", c->tool->name, "idempotencyKey", c->idem_key));
	broker_trace(b, c, "replay", "idempotent retry: original result");
	conn_send(c->conn, jsonrpc_encode_result(c->id, prev));
	*out = NULL;
	call_free(c);
	return 1;
}

/*
 * tools/call: validate, decide, record, then hand to the action.  The
 * order matters: nothing runs and nothing is read from the workspace
 * until the arguments fit the contract and the decision is recorded.
 */
/*
 * Whether a call of |tool|, once allowed, has no effect outside the
 * broker before its reply: read_file runs in the broker (no runner, no
 * approval, no job) and its only effect is the reply, which conn_send()
 * holds while the batch is unsigned.
 */
static int
batchable(const struct tool *tool)
{
	return tool->action == ACTION_READ_FILE &&
	    tool->authorization != AUTHZ_APPROVAL &&
	    tool->jobs.max_block_ms == 0;
}

static void tools_call(struct conn *, struct jsonrpc_msg *);

/*
 * A tools/call refused before it is a call (no tool name, arguments that
 * are not an object, a tool the manifest does not have) is a request all
 * the same: its request and decision (|decision|, with |msg| as the
 * reason) are recorded and counted (runBudget.maxRefusedCalls), then the
 * JSON-RPC error |code| with |msg| is sent; if they cannot be recorded,
 * the usual "audit log cannot be written" refusal is sent instead.
 */
static void
refuse_call_as(struct conn *k, json_t *id, json_t *name, json_t *args,
    int code, const char *decision, const char *msg)
{
	struct broker *b = k->b;
	const char *tool = json_string_value(name);
	char digest[SHA256_HEX_LEN + 1], *text, *why;

	text = json_dumps(args != NULL ? args : json_null(),
	    JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	sha256_hex(text != NULL ? text : "", text != NULL ? strlen(text) : 0,
	    digest);
	free(text);
	/* The reason may end in a character cut in two ("%.128s"): the
	 * decision record, without it, was written with no fields. */
	why = utf8_sanitize(msg, strlen(msg));
	if (b->cfg.audit != NULL &&
	    (broker_audit(b, "request", json_pack("{s:O?, s:s?, s:s}", "id",
	    id, "tool", tool, "argsDigest", digest)) != 0 ||
	    broker_audit(b, "decision", json_pack("{s:O?, s:s?, s:s, s:s}",
	    "id", id, "tool", tool, "decision", decision, "reason", why)) !=
	    0)) {
		free(why);
		conn_error(k, id, JSONRPC_REFUSED,
		    "audit log cannot be written; refusing requests");
		return;
	}
	free(why);
	ledger_refused(b->ledger);
	conn_error(k, id, code, "%s", msg);
}

static void
refuse_call(struct conn *k, json_t *id, json_t *name, json_t *args,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
refuse_call(struct conn *k, json_t *id, json_t *name, json_t *args,
    const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	refuse_call_as(k, id, name, args, JSONRPC_INVALID_PARAMS, "invalid",
	    msg);
}

/*
 * runBudget.maxRefusedCalls is spent: an agent refused that often is
 * looping, and each refusal is a signed record or two, written at the
 * broker's speed.  This call is the last one: recorded (decision "deny",
 * the limit as its reason) and answered with the reason, the stop and the
 * cut-off recorded; then every connection is closed and no other is
 * accepted, so that nothing the agent sends grows the log any more.
 */
/*
 * The agent is cut off: |limit| stopped the session (budget_stop), the
 * cut-off is recorded with |fields| (taken), every connection is closed,
 * no other is accepted (conns_stop_listening()), and the supervisor is
 * told (broker_on_cut_off()), with |why|, so that it stops the agent: a
 * session over for its broker is over for its agent too.
 */
static void
agent_cut_off(struct broker *b, const char *limit, const char *why,
    json_t *fields)
{
	struct conn *c, *next;

	if (b->cut_off) {
		json_decref(fields);
		return;
	}
	b->cut_off = 1;
	broker_budget_stop(b, limit);
	log_warnx("%s: the agent is cut off", why);
	(void)broker_audit(b, "agent_cut_off", fields);
	conns_stop_listening(b);
	/* conn_close() signs the batch and sends the held replies first. */
	for (c = TAILQ_FIRST(&b->conns); c != NULL; c = next) {
		c->refs++;
		conn_close(c);
		next = TAILQ_NEXT(c, entry);
		conn_unref(c);
	}
	if (b->on_cut_off != NULL)
		b->on_cut_off(b->cut_off_arg, why);
}

void
broker_on_cut_off(struct broker *b, void (*fn)(void *, const char *),
    void *arg)
{
	b->on_cut_off = fn;
	b->cut_off_arg = arg;
}

static void
refusals_spent(struct conn *k, json_t *id, json_t *name, json_t *args)
{
	struct broker *b = k->b;
	char msg[256];

	snprintf(msg, sizeof(msg), "the run budget is exhausted "
	    "(maxRefusedCalls: %lld calls were refused); the session is "
	    "stopped", (long long)ledger_refused_calls(b->ledger));
	refuse_call_as(k, id, name, args, JSONRPC_REFUSED, "deny", msg);
	agent_cut_off(b, "maxRefusedCalls", msg, json_pack("{s:s, s:I}",
	    "limit", "maxRefusedCalls", "refusedCalls",
	    (json_int_t)ledger_refused_calls(b->ledger)));
}

/*
 * Allowed calls, "busy" refusals, artifact reads and connections are
 * records too, and nothing else bounds them without maxModelSteps: an
 * agent that read one file in a loop wrote 13 MB of log a second.  The
 * log's size is checked before each frame and connection is served, so
 * that it ends at most one frame's records past the limit.
 */
int
broker_audit_spent(const struct broker *b)
{
	int64_t mib = b->m->budget.max_audit_mib;

	return b->cfg.audit != NULL && mib > 0 &&
	    audit_size(b->cfg.audit) >= (uint64_t)mib * 1024 * 1024;
}

void
broker_audit_cut_off(struct broker *b, struct conn *k, json_t *id)
{
	uint64_t size = b->cfg.audit != NULL ? audit_size(b->cfg.audit) : 0;
	char msg[256];

	snprintf(msg, sizeof(msg), "the run budget is exhausted "
	    "(maxAuditMiB: the audit log holds %llu bytes, at most %lld MiB); "
	    "the session is stopped", (unsigned long long)size,
	    (long long)b->m->budget.max_audit_mib);
	if (k != NULL && id != NULL)
		conn_error(k, id, JSONRPC_REFUSED, "%s", msg);
	agent_cut_off(b, "maxAuditMiB", msg, json_pack("{s:s, s:I}",
	    "limit", "maxAuditMiB", "auditBytes", (json_int_t)size));
}

/* The cut-off egress_recorded() asked for, from the loop. */
static void
egress_spent(int fd, int why, void *arg)
{
	struct broker *b = arg;

	(void)fd;
	(void)why;
	loop_unwatch(b->cfg.loop, b->egress_watch);
	b->egress_watch = 0;
	broker_audit_cut_off(b, NULL, NULL);
}

/*
 * An "egress" record was written (egress_on_record()): a sandbox that
 * connects to its proxy in a loop writes one a connection, and sends
 * the broker no frame, whose check (broker_dispatch()) never came; the
 * log grew past maxAuditMiB at the proxy's speed.  The cut-off is made
 * from the loop: this can run inside a call's end (egress_denials()).
 */
static void
egress_recorded(void *arg)
{
	struct broker *b = arg;

	if (b->cut_off || b->egress_watch > 0 || !broker_audit_spent(b))
		return;
	if ((b->egress_watch = loop_watch(b->cfg.loop, -1,
	    now_monotonic_ms(), egress_spent, b)) < 0)
		fatalx("loop_watch");
}

/*
 * A tools/call's records go into the audit batch of this turn: request,
 * decision and, for a refusal or a read_file, the result.  Anything
 * else flushes the batch before its first effect (tools_call()).
 */
static void
m_tools_call(struct conn *k, struct jsonrpc_msg *msg)
{
	struct audit *a = k->b->cfg.audit;

	if (a != NULL)
		audit_batch(a, 1);
	tools_call(k, msg);
	if (a != NULL)
		audit_batch(a, 0);
}

static void
tools_call(struct conn *k, struct jsonrpc_msg *msg)
{
	struct broker	*b = k->b;
	const struct tool	*tool;
	json_t			*name, *args;
	struct call		*c;
	char			*text;

	name = json_object_get(msg->params, "name");
	args = json_object_get(msg->params, "arguments");
	if (ledger_refusals_spent(b->ledger)) {
		refusals_spent(k, msg->id, name, args);
		return;
	}
	if (!json_is_object(msg->params) || !json_is_string(name)) {
		refuse_call(k, msg->id, name, args,
		    "tools/call needs params.name (a string)");
		return;
	}
	if (args != NULL && !json_is_object(args)) {
		refuse_call(k, msg->id, name, args,
		    "params.arguments must be an object");
		return;
	}
	if ((tool = manifest_tool(b->m, json_string_value(name))) == NULL &&
	    escalate_enabled(b->m) &&
	    strcmp(json_string_value(name), "escalate") == 0) {
		escalate_call(k, msg->id, msg->params);
		return;
	}
	if (tool == NULL) {
		refuse_call(k, msg->id, name, args, "unknown tool: %.128s",
		    json_string_value(name));
		return;
	}

	c = xcalloc(1, sizeof(*c));
	c->b = b;
	c->conn = k;
	k->ncalls++;
	k->refs++;
	c->id = json_incref(msg->id);
	c->tool = tool;
	/* blockMs is airlock's, not the contract's: taken out of a copy. */
	c->args = args != NULL ? (tool->jobs.max_block_ms > 0 ?
	    json_deep_copy(args) : json_incref(args)) : json_object();
	if (c->args == NULL)
		fatalx("out of memory copying arguments");
	c->started = now_monotonic_ms();
	c->seq = ++b->ncalls;
	c->changes_fd = -1;
	c->block_ms = -1;
	text = json_dumps(c->args, JSON_COMPACT | JSON_SORT_KEYS);
	sha256_hex(text, strlen(text), c->args_digest);
	free(text);

	if (broker_audit(b, "request", json_pack("{s:O, s:s, s:s}",
	    "id", c->id, "tool", tool->name, "argsDigest",
	    c->args_digest)) != 0) {
		conn_error(k, c->id, JSONRPC_REFUSED,
		    "audit log cannot be written; refusing requests");
		call_free(c);
		return;
	}
	broker_call_decide(c, msg->params);
}

void
broker_call_decide(struct call *c, json_t *params)
{
	struct broker		*b = c->b;
	struct conn		*k = c->conn;
	const struct tool	*tool = c->tool;
	json_t			*out = NULL, *fields;
	char			 err[512];
	const char		*decision = "allow", *reason = "allowed by manifest";
	action_fn		 fn = NULL;
	int			 status, rc;
	enum authorization	 authz = tool->authorization;

	if (call_hold(c, HOLD_DECIDE, params))
		return;

	if (jobs_take_block_ms(tool, c->args, &c->block_ms, err,
	    sizeof(err)) != 0 || type_validate_fields(tool->input,
	    tool->ninput, c->args, manifest_check_exists, (void *)b->m, err,
	    sizeof(err)) != 0) {
		decision = "invalid";
		reason = err;
		out = tool_error("invalid_arguments", 0, NULL,
		    "arguments do not fit the contract of %s: %s", tool->name,
		    err);
	} else if (b->m->forbid_side_effect[tool->side_effect]) {
		decision = "deny";
		reason = "side-effect class forbidden by manifest";
		out = tool_error("denied", 0, NULL, "the manifest forbids "
		    "tools with side effect %s",
		    side_effect_name(tool->side_effect));
	} else if (tool->authorization == AUTHZ_DENY) {
		decision = "deny";
		reason = "tool denied by manifest";
		out = tool_error("denied", 0, NULL,
		    "the manifest denies %s", tool->name);
	} else if (tool->authorization == AUTHZ_APPROVAL &&
	    b->cfg.approvals == NULL) {
		decision = "approval_required";
		reason = "tool needs a human's approval";
		out = tool_error("approval_required", 0, NULL,
		    "%s needs a human's approval, which this session cannot "
		    "obtain (no control socket)", tool->name);
	} else if ((authz = shellgate_decide(b, c, &out)) == AUTHZ_DENY) {
		decision = "deny";
		reason = c->shell_rule;
	} else if (c->esc != NULL && b->cfg.approvals == NULL) {
		decision = "approval_required";
		reason = "an escalation needs a human's approval";
		out = tool_error("approval_required", 0, NULL,
		    "re-running %s with more room needs a human's approval, "
		    "which this session cannot obtain (no control socket)",
		    tool->name);
	} else if (authz == AUTHZ_APPROVAL && b->cfg.approvals == NULL) {
		decision = "approval_required";
		reason = c->shell_rule;
		out = tool_error("approval_required", 0, NULL,
		    "%s needs a human's approval for this command (%s), which "
		    "this session cannot obtain (no control socket)",
		    tool->name, c->shell_rule);
	} else if ((fn = action_handler(tool->action)) == NULL) {
		decision = "deny";
		reason = "action not available";
		out = tool_error("unsupported", 0, NULL,
		    "action %s is not available in this build",
		    tool_action_name(tool->action));
	}
	/* A re-run with more room is a human's decision, always. */
	if (out == NULL && c->esc != NULL) {
		authz = AUTHZ_APPROVAL;
		decision = "approval_required";
		reason = "escalation: waiting for a human's decision";
	} else if (out == NULL && authz == AUTHZ_APPROVAL) {
		decision = "approval_required";
		reason = c->shell_rule[0] != '\0' ? c->shell_rule :
		    "waiting for a human's decision";
	} else if (out == NULL && c->shell_rule[0] != '\0')
		reason = c->shell_rule;
	/*
	 * A decision that lets an effect outside the sandbox happen (network,
	 * external) reaches the disk before it; reads, refusals and the
	 * reversible in-sandbox work (workspace writes, checks) need not wait
	 * for a disk flush: their records are written, not yet synced.
	 */
	fields = json_pack("{s:O, s:s, s:s, s:s}", "id", c->id, "tool",
	    tool->name, "decision", decision, "reason", reason);
	if (out == NULL && (tool->side_effect == SIDE_EFFECT_NETWORK ||
	    tool->side_effect == SIDE_EFFECT_EXTERNAL))
		rc = audit_append_durable(b->cfg.audit, "decision", fields);
	else
		rc = audit_append(b->cfg.audit, "decision", fields);
	json_decref(fields);
	if (rc != 0) {
		json_decref(out);
		conn_error(k, c->id, JSONRPC_REFUSED,
		    "audit log cannot be written; refusing requests");
		call_free(c);
		return;
	}
	if (out != NULL) {
		call_complete(c, ACTION_ERROR, out);
		return;
	}
	/* A runner, an approval, a job: their records on disk, signed, first. */
	if (!batchable(tool) || strcmp(decision, "allow") != 0) {
		audit_batch(b->cfg.audit, 0);
		if (audit_flush(b->cfg.audit) != 0) {
			conn_error(k, c->id, JSONRPC_REFUSED,
			    "audit log cannot be written; refusing requests");
			call_free(c);
			return;
		}
	}
	if (budget_refuses(b, c, &out) ||
	    (c->esc == NULL && idempotent_replay(b, c, &out))) {
		if (out != NULL)
			call_complete(c, ACTION_ERROR, out);
		return;
	}
	c->action = fn;
	if (json_is_object(json_object_get(params, "_meta"))) {
		json_t *meta = json_object_get(params, "_meta");

		c->progress_token = json_incref(json_object_get(meta,
		    "progressToken"));
		/* The agent's stated reason, shown to the approver (bounded). */
		if (c->esc == NULL &&
		    json_is_string(json_object_get(meta, "reason")) &&
		    json_string_length(json_object_get(meta, "reason")) <= 4096)
			c->reason = json_incref(json_object_get(meta,
			    "reason"));
	}
	if (authz == AUTHZ_APPROVAL &&
	    tool->action != ACTION_REQUEST_APPROVAL)
		status = call_digest_new(c, approval_digested, &out);
	else
		status = fn(c, &out);
	if (status != ACTION_PENDING)
		call_complete(c, status, out);
}

/* The resources methods: this session's artifacts (broker/output.c). */
static void
m_resources_list(struct conn *k, struct jsonrpc_msg *msg)
{
	json_t	*r = output_resources_list(k->b);

	conn_send(k, jsonrpc_encode_result(msg->id, r));
	json_decref(r);
}

static void
m_resources_templates(struct conn *k, struct jsonrpc_msg *msg)
{
	json_t	*r = output_resources_templates(k->b);

	conn_send(k, jsonrpc_encode_result(msg->id, r));
	json_decref(r);
}

static void
m_resources_read(struct conn *k, struct jsonrpc_msg *msg)
{
	json_t	*r;
	char	 err[256];
	int	 rc;

	rc = output_resources_read(k->b, msg->params, &r, err, sizeof(err));
	(void)broker_audit(k->b, "resource_read", json_pack("{s:O, s:O?, s:b}",
	    "id", msg->id, "uri", json_object_get(msg->params, "uri"),
	    "ok", rc == 0));
	if (rc != 0) {
		conn_error(k, msg->id, rc, "%s", err);
		return;
	}
	conn_send(k, jsonrpc_encode_result(msg->id, r));
	json_decref(r);
}

/*
 * The dispatch table.  Each row is a method, the states in which it is
 * accepted, and whether it is a notification.  Anything not listed is
 * answered with -32601; a listed method in the wrong state with -32002.
 */
static const struct method {
	const char	*name;
	int		 states;
	int		 notification;
	void		(*fn)(struct conn *, struct jsonrpc_msg *);
} methods[] = {
	{ "initialize", BROKER_STATE_ANY, 0, m_initialize },
	{ "notifications/initialized", BROKER_STATE_INITIALIZING |
	    BROKER_STATE_READY, 1, m_initialized },
	{ "ping", BROKER_STATE_ANY, 0, m_ping },
	{ "notifications/cancelled", BROKER_STATE_INITIALIZING |
	    BROKER_STATE_READY, 1, cancel_request },
	{ "tools/list", BROKER_STATE_INITIALIZING | BROKER_STATE_READY, 0,
	    m_tools_list },
	{ "tools/call", BROKER_STATE_INITIALIZING | BROKER_STATE_READY, 0,
	    m_tools_call },
	{ "resources/list", BROKER_STATE_INITIALIZING | BROKER_STATE_READY, 0,
	    m_resources_list },
	{ "resources/templates/list", BROKER_STATE_INITIALIZING |
	    BROKER_STATE_READY, 0, m_resources_templates },
	{ "resources/read", BROKER_STATE_INITIALIZING | BROKER_STATE_READY, 0,
	    m_resources_read },
	{ "airlock/session/status", BROKER_STATE_INITIALIZING |
	    BROKER_STATE_READY, 0, status_request },
	{ NULL, 0, 0, NULL }
};

void
broker_dispatch(struct conn *k, const char *frame, size_t len)
{
	struct jsonrpc_msg	 msg;
	const struct method	*m;
	json_t			*id = NULL;
	char			 err[256];
	int			 rc;

	if ((rc = jsonrpc_decode(frame, len, &msg, &id, err,
	    sizeof(err))) != 0) {
		conn_error(k, id, rc, "%s", err);
		json_decref(id);
		return;
	}
	json_decref(id);
	if (msg.kind == JSONRPC_RESPONSE) {
		/* The broker sends no requests; stray responses are dropped. */
		jsonrpc_msg_clear(&msg);
		return;
	}
	if (broker_audit_spent(k->b)) {
		broker_audit_cut_off(k->b, k,
		    msg.kind == JSONRPC_REQUEST ? msg.id : NULL);
		jsonrpc_msg_clear(&msg);
		return;
	}
	if (msg.kind == JSONRPC_REQUEST && conn_id_seen(k, msg.id)) {
		conn_error(k, msg.id, JSONRPC_INVALID_REQUEST,
		    "request id already used in this session");
		jsonrpc_msg_clear(&msg);
		return;
	}
	for (m = methods; m->name != NULL; m++)
		if (strcmp(m->name, msg.method) == 0)
			break;
	if (m->name == NULL || (m->notification !=
	    (msg.kind == JSONRPC_NOTIFICATION))) {
		/* Unknown notifications are ignored, as JSON-RPC requires. */
		if (msg.kind == JSONRPC_REQUEST)
			conn_error(k, msg.id, JSONRPC_METHOD_NOT_FOUND,
			    "method not found: %.128s", msg.method);
	} else if ((m->states & k->state) == 0) {
		if (msg.kind == JSONRPC_REQUEST)
			conn_error(k, msg.id, JSONRPC_NOT_INITIALIZED,
			    "%s is not allowed before initialize", m->name);
	} else
		m->fn(k, &msg);
	jsonrpc_msg_clear(&msg);
}

const unsigned char *
broker_digest_key(const struct broker *b)
{
	return redact_count(b->cfg.redact) > 0 ? b->digest_key : NULL;
}

/* |path| resolved, or as it is when it cannot be: the walk then stops at
 * the symlink in it, unfinished (wslinks_walk()). */
static char *
real_or_same(const char *path)
{
	char *r = realpath(path, NULL);

	return r != NULL ? r : xstrdup(path);
}

/*
 * Walks the trees the agent writes for hard-linked files, before it
 * starts (broker/wslinks.h): its home and --rw binds (the caller's) and
 * the manifest's read-write binds; an agent that writes the workspace
 * (rw, cow) may write every linked file there (b->links_all).  Audited
 * as workspace_links_walked; a walk that could not finish says why in
 * the log too (every linked file then counts).  Nothing when the caller
 * knows no such trees (b->links NULL).
 */
static void
links_walk(struct broker *b)
{
	const struct broker_config *cfg = &b->cfg;
	const struct sandbox_policy *sp = &b->m->sandbox;
	char **roots;
	size_t i, n = 0;
	struct stat st;
	int64_t t0 = now_monotonic_ms();

	if (!cfg->agent_writes_known || fstat(b->rootfd, &st) == -1)
		return;
	/* An agent that writes the workspace may write every name of a file
	 * there: a walk of it would find them all. */
	b->links_all = b->m->agent.workspace_writable;
	roots = xcalloc(cfg->nagent_writes + sp->nread_write + 2,
	    sizeof(*roots));
	for (i = 0; i < cfg->nagent_writes; i++)
		roots[n++] = real_or_same(cfg->agent_writes[i]);
	for (i = 0; i < sp->nread_write; i++)
		roots[n++] = real_or_same(sp->read_write[i]);
	b->links = wslinks_walk(
	    (uint64_t)st.st_dev, (const char *const *)roots, n);
	for (i = 0; i < n; i++)
		free(roots[i]);
	free(roots);
	if (!b->links->complete)
		log_warnx("the walk of the trees the agent writes for hard "
			  "links did not finish (%s): every workspace file "
			  "with another name counts as one it may write",
		    b->links->why);
	(void)broker_audit(b, "workspace_links_walked",
	    json_pack("{s:b, s:I, s:I, s:I, s:s}", "complete",
		b->links->complete, "entries", (json_int_t)b->links->entries,
		"linkedFiles", (json_int_t)b->links->n, "ms",
		(json_int_t)(now_monotonic_ms() - t0), "why", b->links->why));
}

struct broker *
broker_new(const struct broker_config *cfg, char *err, size_t errlen)
{
	struct broker *b;

	b = xcalloc(1, sizeof(*b));
	b->cfg = *cfg;
	b->m = cfg->manifest;
	b->listen_fd = -1;
	TAILQ_INIT(&b->conns);
	TAILQ_INIT(&b->running);
	TAILQ_INIT(&b->waiting);
	TAILQ_INIT(&b->followers);
	TAILQ_INIT(&b->digesting);
	TAILQ_INIT(&b->statuses);
	TAILQ_INIT(&b->landq);
	TAILQ_INIT(&b->held);
	TAILQ_INIT(&b->esc_held);
	b->view_userns = b->view_mntns = -1;
	randombytes_buf(b->digest_key, sizeof(b->digest_key));
	b->rootfd = open(cfg->workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (b->rootfd == -1) {
		snprintf(err, errlen, "workspace %s: %s", cfg->workspace,
		    strerror(errno));
		free(b);
		return NULL;
	}
	/* An apply killed last time is rolled back before anything else. */
	if (changeset_broker_recover(b, NULL, NULL, err, errlen) != 0) {
		close(b->rootfd);
		free(b);
		return NULL;
	}
	if (broker_pin_all(b, err, errlen) != 0) {
		broker_unpin_all(b);
		close(b->rootfd);
		free(b);
		return NULL;
	}
	b->ledger = ledger_new(b->m, now_monotonic_ms());
	if (cfg->carry != NULL && (ledger_restore(b->ledger, cfg->carry,
	    now_monotonic_ms(), err, errlen) != 0 ||
	    (cfg->approvals != NULL && approvals_denied_restore(cfg->approvals,
	    json_object_get(cfg->carry, "deniedActions"), err, errlen) != 0))) {
		ledger_free(b->ledger);
		broker_unpin_all(b);
		close(b->rootfd);
		free(b);
		return NULL;
	}
	if (b->m->budget.max_elapsed_minutes >= 0 &&
	    (b->elapsed_watch = loop_watch(cfg->loop, -1, now_monotonic_ms() +
	    ledger_time_left(b->ledger, now_monotonic_ms()), elapsed_up,
	    b)) < 0)
		fatalx("loop_watch");
	if (b->cfg.egress != NULL)
		egress_on_record(b->cfg.egress, egress_recorded, b);
	b->denials = denials_new();
	{
		char dir[PATH_MAX + 16];

		snprintf(dir, sizeof(dir), "%s/artifacts", cfg->session_dir);
		b->artifacts = artifact_store_new(dir, cfg->session_id,
		    (uint64_t)b->m->output.artifact_quota_mb * 1024 * 1024);
	}
	links_walk(b);
	/* Every digest's seal: a gate needs one when the agent writes the
	 * workspace, or a file of it has a name elsewhere (runcall.c,
	 * gate_seal()), which only a digest tells. */
	if ((b->digester = wsdigester_new(cfg->loop, b->rootfd, WSDIGEST_SEAL,
		 broker_digest_key(b), b->links)) == NULL ||
	    (b->lander = lander_new(b)) == NULL) {
		snprintf(err, errlen, "the %s: %s", b->digester == NULL ?
		    "workspace digest worker" : "change-set lander",
		    strerror(errno));
		wsdigester_free(b->digester);
		wslinks_free(b->links);
		artifact_store_free(b->artifacts);
		ledger_free(b->ledger);
		broker_unpin_all(b);
		close(b->rootfd);
		free(b);
		return NULL;
	}
	{
		char path[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/trace.txt", cfg->session_dir);
		if ((b->trace = fopen(path, "wxe")) != NULL)
			fprintf(b->trace, "%-5s %-18s %-12s %-18s %-16s %-32s %s\n",
			    "step", "tool", "args", "decision", "patch",
			    "gate", "note");
	}
	b->jobs = jobs_new(b);
	if ((b->fwatch = fwatch_new(cfg->loop, cfg->workspace, err,
	    errlen)) == NULL)
		log_warnx("no fileChanges in results: %s", err);
	if (loop_on_turn_end(cfg->loop, broker_turn_end, b) != 0) {
		snprintf(err, errlen, "too many brokers on one event loop");
		broker_free(b);
		return NULL;
	}
	b->turn_hook = 1;
	if (cfg->in_fd >= 0)
		(void)conn_new(b, cfg->in_fd, cfg->out_fd, 1);
	return b;
}

void
broker_free(struct broker *b)
{
	struct call		*c;
	struct conn		*k;

	if (b == NULL)
		return;
	/* What the agent was answered goes out, its batch signed. */
	broker_turn_end(b);
	if (b->turn_hook)
		loop_off_turn_end(b->cfg.loop, broker_turn_end, b);
	if (b->listen_watch > 0)
		loop_unwatch(b->cfg.loop, b->listen_watch);
	if (b->elapsed_watch > 0)
		loop_unwatch(b->cfg.loop, b->elapsed_watch);
	if (b->egress_watch > 0)
		loop_unwatch(b->cfg.loop, b->egress_watch);
	if (b->cfg.egress != NULL)
		egress_on_record(b->cfg.egress, NULL, NULL);
	/* No more input, no more replies: the session is over. */
	for (k = TAILQ_FIRST(&b->conns); k != NULL; k = TAILQ_NEXT(k, entry)) {
		k->closed = 1;
		if (k->in_watch > 0)
			loop_unwatch(b->cfg.loop, k->in_watch);
		k->in_watch = 0;
		if (k->out_watch > 0)
			loop_unwatch(b->cfg.loop, k->out_watch);
		k->out_watch = 0;
		k->refs++;
	}
	/* Held escalations never run (first: a call freed below would
	 * start them). */
	escalate_session_end(b);
	/* A set landing lands or not; the rest go with the session. */
	if ((c = b->landing) != NULL) {
		landjob_settle(c);
		lander_free(b->lander);
		b->lander = NULL;
		broker_writing(b, 0);
		if (c->job == NULL)
			fwatch_own_end(b->fwatch);
		b->landing = NULL;
		runcall_session_end(c);
		call_free(c);
	}
	/* A check that ran and is not told failed (runcall_session_end()). */
	while ((c = TAILQ_FIRST(&b->landq)) != NULL) {
		TAILQ_REMOVE(&b->landq, c, entry);
		runcall_session_end(c);
		call_free(c);
	}
	while ((c = TAILQ_FIRST(&b->held)) != NULL) {
		TAILQ_REMOVE(&b->held, c, hold_entry);
		call_free(c);
	}
	while ((c = TAILQ_FIRST(&b->running)) != NULL) {
		TAILQ_REMOVE(&b->running, c, entry);
		loop_unwatch(b->cfg.loop, c->watch);
		runner_reap_quietly(c->proc);
		if (c->egress[0] != '\0')
			egress_detach(b->cfg.egress, c->egress);
		(void)broker_audit(b, "runner_end", json_pack("{s:O, s:s}",
		    "id", c->id, "reason", "session ended"));
		runcall_session_end(c);
		call_free(c);
	}
	/* Every job's run was just killed with the others. */
	jobs_free(b->jobs);
	b->jobs = NULL;
	fwatch_free(b->fwatch);
	b->fwatch = NULL;
	fwatch_free(b->view_watch);
	b->view_watch = NULL;
	while ((c = TAILQ_FIRST(&b->followers)) != NULL) {
		TAILQ_REMOVE(&b->followers, c, entry);
		call_free(c);
	}
	while ((c = TAILQ_FIRST(&b->digesting)) != NULL) {
		TAILQ_REMOVE(&b->digesting, c, entry);
		wsjob_cancel(c->wsjob);
		/* Its run ended: the digest after it (gate_seal()). */
		if (c->res != NULL)
			runcall_session_end(c);
		call_free(c);
	}
	statuses_free(b);
	while ((c = TAILQ_FIRST(&b->waiting)) != NULL) {
		TAILQ_REMOVE(&b->waiting, c, entry);
		if (c->progress_watch > 0)
			loop_unwatch(b->cfg.loop, c->progress_watch);
		/* Nobody will run it: approvers' channels are told. */
		if (b->cfg.approvals != NULL)
			(void)approvals_withdraw(b->cfg.approvals, c->approval,
			    "the session ended");
		call_free(c);
	}
	while ((k = TAILQ_FIRST(&b->conns)) != NULL)
		conn_free(k);
	wsdigester_free(b->digester);
	wslinks_free(b->links);
	lander_free(b->lander);
	/* What a resumed run of the session carries on from. */
	if (b->cfg.record_budget) {
		json_t *rb = ledger_export(b->ledger, now_monotonic_ms());

		/* The actions a human denied are not asked again after a
		 * resume either (approvals_request()). */
		json_object_set_new(rb, "deniedActions",
		    approvals_denied_export(b->cfg.approvals));
		(void)broker_audit(b, "run_budget", rb);
	}
	ledger_free(b->ledger);
	denials_free(b->denials);
	artifact_store_free(b->artifacts);
	broker_unpin_all(b);
	if (b->trace != NULL)
		fclose(b->trace);
	close(b->rootfd);
	viewfreeze_set_ns(b, -1, -1);
	free(b->cow_upper);
	free(b);
}

int
broker_budget_stopped(const struct broker *b)
{
	return b->budget_stopped;
}
