/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * A call's runner, from its start to its answer (broker/runcall.h).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/approvalflow.h"
#include "broker/audit_fields.h"
#include "broker/broker_int.h"
#include "broker/changeset.h"
#include "broker/cowview.h"
#include "broker/egress.h"
#include "broker/escalate.h"
#include "broker/fwatch.h"
#include "broker/jobs.h"
#include "broker/landjob.h"
#include "broker/ledger.h"
#include "broker/output.h"
#include "broker/pins.h"
#include "broker/redact.h"
#include "broker/runcall.h"
#include "broker/secrets.h"
#include "broker/viewfreeze.h"
#include "broker/wsjob.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"

/*
 * A run's result, kept until its set has landed (many runs may wait to
 * land).  Mapped, not on the heap: its 64 KiB of denials, most never
 * touched, would otherwise pin the heap's high-water mark.
 */
static struct runner_result *
call_result_new(void)
{
	void *p;

	p = mmap(NULL, sizeof(struct runner_result), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fatal("mmap");
	return p;
}

void
call_result_free(struct runner_result *res)
{
	if (res == NULL)
		return;
	runner_result_clear(res);
	munmap(res, sizeof(*res));
}

/*
 * The result every command produces: exit status, duration, capped
 * stdout and stderr, the artifact holding all of it, and the sandbox's
 * hint when the failure looks like its doing.
 */
static json_t *
runner_output(struct call *c, const struct runner_result *res, const char *uri)
{
	return output_command(c->b, c->tool, res, uri);
}

/*
 * Adds |msg| to the notes of |out| ("_note"): a text block of the reply
 * of its own, before the output's, whatever the contract declares (a
 * declared "output" field drops the output's text block, not this).
 */
static void
add_note(json_t *out, const char *msg)
{
	json_t *old = json_object_get(out, "_note");
	char *both;

	if (!json_is_string(old)) {
		json_object_set_new(out, "_note", json_string(msg));
		return;
	}
	xasprintf(&both, "%s%s", json_string_value(old), msg);
	json_object_set_new(out, "_note", json_string(both));
	free(both);
}

/*
 * After a check ran: its pinned code is hashed again (an edit during the
 * run counts as much as one before it).  If any changed, the result says
 * so and will not count toward acceptance.
 */
static void
gate_pins_after(struct call *c, json_t *out)
{
	json_t *after;
	char files[200], *msg;

	after = broker_pins_changed(c->b, c->check, NULL);
	if (c->pinned_changed == NULL)
		c->pinned_changed = json_array();
	pins_merge(c->pinned_changed, after);
	json_decref(after);
	if (json_array_size(c->pinned_changed) == 0)
		return;
	join_paths(c->pinned_changed, files, sizeof(files));
	json_object_set(out, "pinnedCodeChanged", c->pinned_changed);
	snprintf(c->note, sizeof(c->note),
	    "pinned code changed: %s; does "
	    "not count toward acceptance",
	    files);
	xasprintf(&msg,
	    "airlock: this result of %s does not count toward "
	    "acceptance: its pinned code changed since the session started "
	    "(%s); a path that cannot be read as a file of the workspace (a "
	    "hard link, a symlink out) counts as changed\n",
	    c->check->id, files);
	add_note(out, msg);
	free(msg);
	(void)broker_audit(c->b, "gate_pinned_code_changed",
	    json_pack("{s:O, s:s, s:O}", "id", c->id, "check", c->check->id,
		"pinnedCodeChanged", c->pinned_changed));
}

/*
 * A check's result is bound to the digest taken before it ran; if the
 * workspace was written while it ran (a write_file, a patch, another
 * run's change set, the agent's own writes: broker_ws_gen(); the agent's
 * writes through a mapping: gate_seal()), or the agent writes it
 * directly and it could not be watched, or it is on a filesystem where
 * that cannot be shown (ws_unsealed), the check may have read content
 * the digest never held, and its result counts toward no gate.
 */
static void
gate_written_during(struct call *c, json_t *out)
{
	static const char unsealed[] =
	    "the agent can write the workspace and it is on a filesystem "
	    "where a write through a shared mapping moves no time (tmpfs, "
	    "or an overlay whose upper layer is not ext2/3/4, XFS or btrfs): "
	    "no run there can be shown unwritten";
	static const char unsealed_linked[] =
	    "the workspace is on a filesystem where a write through a "
	    "shared mapping moves no time (tmpfs, ...): no run there can be "
	    "shown unwritten";
	static const char written[] = "the workspace was written (or could "
				      "not be watched) while it ran; run it "
				      "again";
	const char *why = written;
	char *msg, linked[200] = "";

	if (!c->ws_written)
		return;
	json_object_set_new(out, "workspaceWrittenDuringRun", json_true());
	if (c->ws_unsealed) {
		json_object_set_new(out, "workspaceUnsealable", json_true());
		/* Sealed for its linked files alone (gate_seal()). */
		why = cowview_active(c->b) || c->b->m->agent.workspace_writable
		    ? unsealed
		    : unsealed_linked;
	}
	if (call_ws_linked(c) > 0) {
		json_object_set_new(out, "workspaceLinkedFiles",
		    json_integer((json_int_t)call_ws_linked(c)));
		snprintf(linked, sizeof(linked),
		    " (%zu file(s) of it have another name, a hard link, "
		    "through which they may be written unwatched; give each "
		    "its own copy)",
		    call_ws_linked(c));
	}
	snprintf(c->note, sizeof(c->note),
	    "%s; does not count toward acceptance",
	    c->ws_unsealed
		? "its filesystem cannot show the workspace unwritten"
		: "the workspace was written (or could not be "
		  "watched) while it ran");
	xasprintf(&msg,
	    "airlock: this result of %s does not count toward acceptance: "
	    "%s%s\n",
	    c->check->id, why, linked);
	add_note(out, msg);
	free(msg);
	(void)broker_audit(c->b, "gate_workspace_written",
	    json_pack("{s:O, s:s, s:b, s:I}", "id", c->id, "check",
		c->check->id, "unsealable", c->ws_unsealed, "linkedFiles",
		(json_int_t)call_ws_linked(c)));
}

/*
 * A connection the egress proxy refused is the likeliest reason a
 * networked command failed: the hint names the host and the manifest key
 * that would allow it (before any other hint the runner had).
 */
static void
egress_hint(struct runner_result *res, json_t *denied)
{
	json_t *d = json_array_get(denied, 0);
	char hint[1024];

	if (d == NULL)
		return;
	snprintf(hint, sizeof(hint),
	    "the egress proxy refused %s:%lld "
	    "(not allowed)%s; to allow it add \"%s:%lld\" to %s in the "
	    "manifest%s%s",
	    json_string_value(json_object_get(d, "host")),
	    (long long)json_integer_value(json_object_get(d, "port")),
	    json_array_size(denied) > 1 ? " and more" : "",
	    json_string_value(json_object_get(d, "host")),
	    (long long)json_integer_value(json_object_get(d, "port")),
	    json_string_value(json_object_get(d, "allowWith")),
	    res->hint[0] != '\0' ? "; " : "", res->hint);
	memcpy(res->hint, hint, sizeof(res->hint) - 1);
	res->hint[sizeof(res->hint) - 1] = '\0';
}

static void call_done_ran(struct call *, int, json_t *);

/*
 * A run granted a secret in a copy-on-write session sees the agent's view
 * as it is while it runs.  Its runner masks the repositories the agent
 * planted before it started (runner/child.c), but one planted while it
 * runs (a src/.git whose config runs the agent's command when the run's
 * git reads it) would run with the secret.  So the view is watched from
 * the start, and if it was written meanwhile (or could not be watched)
 * the run's output goes nowhere and nothing of it lands
 * (secret_run_tampered()).
 */
static void
secret_run_start(struct call *c)
{
	int blind;

	c->secret_watched = c->tool->nsecrets > 0 && cowview_active(c->b);
	if (c->secret_watched)
		c->secret_gen = broker_ws_gen(c->b, &blind);
}

/* 1 when |c|'s output is withheld: its bytes are wiped from |res|. */
static int
secret_run_tampered(struct call *c, struct runner_result *res)
{
	int blind;

	if (!c->secret_watched ||
	    (broker_ws_gen(c->b, &blind) == c->secret_gen && !blind))
		return 0;
	sodium_memzero(res->out, res->out_len);
	sodium_memzero(res->err, res->err_len);
	res->out_len = res->err_len = 0;
	(void)broker_audit(c->b, "secret_output_withheld",
	    json_pack("{s:O, s:s}", "id", c->id, "tool", c->tool->name));
	return 1;
}
static void call_land(struct call *);
static void check_record(
    struct call *, const struct runner_result *, json_t *, int);
static void check_abandoned(
    struct call *, const struct runner_result *, json_t *);
static void call_land_done(struct call *, int, json_t *);
static int approved_run_written(struct call *);

/*
 * The digest after a check's run is back: the run counts only if its
 * seal is the one taken before the run, and nothing the broker wrote or
 * its watches saw moved meanwhile.  Then its set lands.
 */
static void
gate_sealed(void *arg, int rc, const char *hex, const char *why)
{
	struct call *c = arg;
	struct broker *b = c->b;
	const char *seal = wsdigester_seal(b->digester);
	int blind;

	(void)hex;
	(void)why;
	TAILQ_REMOVE(&b->digesting, c, entry);
	b->ndigesting--;
	c->wsjob = NULL;
	if (rc != 0 || seal[0] == '\0') {
		c->ws_written = 1;
		c->ws_unsealed = rc == 0;
	} else if (strcmp(seal, c->ws_seal) != 0 ||
	    broker_ws_gen(b, &blind) != c->digest_gen || blind)
		c->ws_written = 1;
	call_land(c);
}

/*
 * A check ran while the agent could write the workspace itself (rw, or
 * its copy-on-write view): the watch of changes by others sees no write
 * through a shared mapping (inotify never does), so an agent that mapped
 * a file before the run could write what the check needs while it ran
 * and put the old content back after, unseen.  Nor does it see a write
 * through a file's other name (a hard link) outside the workspace, in
 * any mode: an agent with a read-only workspace whose file had a name in
 * a directory it may write (a package store, a --rw bind) wrote it
 * there while the check ran and put it back after.  So when the agent
 * writes the workspace, or its digest found a file with another name
 * (c->ws_linked), the workspace is digested again after the run, before
 * its set lands, and the two seals compared (broker/wsindex.h: equal
 * seals prove no regular file was written in between, even through a
 * mapping).  Where no seal can (tmpfs, an overlay whose upper layer is on
 * one, ...) the result counts toward no gate.  Returns 1 when the digest
 * was asked for (its answer lands the set), 0 when the caller lands it
 * now.
 */
static int
gate_seal(struct call *c)
{
	struct broker *b = c->b;

	if (c->check == NULL || c->ws_written ||
	    !(cowview_active(b) || b->m->agent.workspace_writable ||
		call_ws_linked(c) > 0))
		return 0;
	if (c->ws_seal[0] == '\0') {
		c->ws_written = c->ws_unsealed = 1;
		return 0;
	}
	/* Its run is over: no longer a process starting (cancel.c). */
	c->runs_after_digest = 0;
	if ((c->wsjob = wsjob_start(b->digester, gate_sealed, c)) == NULL) {
		c->ws_written = 1;
		return 0;
	}
	TAILQ_INSERT_TAIL(&b->digesting, c, entry);
	b->ndigesting++;
	return 1;
}

/*
 * The answer of a run cut off mid-way, by its timeout or by the kernel at
 * its memory limit: what it wrote is half of what it meant to, so none of
 * it lands (a half-written file would replace a whole one).
 */
static json_t *
cut_off_error(struct call *c, const struct runner_result *res)
{
	json_t *out;

	if (res->timed_out)
		out = tool_error("timeout", 1, NULL,
		    "the command ran past its "
		    "%lld ms limit and was killed; nothing of it was applied",
		    (long long)c->req.timeout_ms);
	else
		out = tool_error("resource_limit", 0, NULL,
		    "the command was "
		    "killed at its memory limit of %lld MB; nothing of it was "
		    "applied",
		    (long long)c->req.policy->limits.memory_mb);
	json_object_set_new(out, "durationMs", json_integer(res->duration_ms));
	return out;
}

static void
call_runner_event(int fd, int why, void *arg)
{
	struct call *c = arg;
	struct broker *b = c->b;
	struct runner_result *res;
	char layers[256], digest[SHA256_HEX_LEN + 1];
	json_t *denied = NULL;
	int64_t gen;
	int rc, blind, unrecorded, tampered, written;

	(void)fd;
	(void)why;
	if ((rc = runner_proc_step(c->proc)) == 0) {
		loop_set_deadline(
		    b->cfg.loop, c->watch, runner_proc_deadline(c->proc));
		jobs_step(c);
		return;
	}
	loop_unwatch(b->cfg.loop, c->watch);
	TAILQ_REMOVE(&b->running, c, entry);
	b->nrunning--;
	if (c->egress[0] != '\0') {
		denied = egress_denials(b->cfg.egress, c->egress);
		egress_detach(b->cfg.egress, c->egress);
	}
	/* Before its own set lands: did another write land meanwhile? */
	if (c->check != NULL) {
		gen = broker_ws_gen(b, &blind);
		c->ws_written = c->digest_gen != gen || blind;
	}
	res = c->res = call_result_new();
	rc = runner_proc_finish(c->proc, res);
	c->proc = NULL;
	egress_hint(res, denied);
	if (rc != 0) {
		json_decref(denied);
		call_done_ran(c, ACTION_ERROR,
		    tool_error("internal", 1, NULL, "the runner failed: %s",
			al_strerror(rc)));
		return;
	}
	/* Before any of its output is kept anywhere. */
	tampered = secret_run_tampered(c, res);
	/* Before the hold is let go (the sets waiting would move it). */
	written = approved_run_written(c);
	/* Its processes are gone: the view may be written again, and the
	 * sets that waited land (after the check above: they are not the
	 * view written while it ran). */
	if (viewfreeze_release(c) | runcall_ws_release(c))
		lands_resume(b);
	/* ...and a write widening held behind it may start. */
	escalate_resume(b);
	output_settle_cut(b, res);
	runner_layers_string(res->layers, layers, sizeof(layers));
	c->uri[0] = '\0';
	{
		size_t n = res->out_len + res->err_len;
		char *all = xcalloc(1, n + 64);

		memcpy(all, res->out, res->out_len);
		memcpy(all + res->out_len, res->err, res->err_len);
		(void)broker_save_artifact(b,
		    c->check != NULL ? c->check->id : c->tool->name, all, n,
		    c->uri, sizeof(c->uri), digest);
		free(all);
	}
	jobs_ended(c, res, c->uri);
	unrecorded =
	    broker_audit(b, "runner_end",
		json_pack("{s:O, s:b, s:i, s:i, s:b, s:b, s:I, s:s, s:s, s:s}",
		    "id", c->id, "exited", res->exited, "exitCode",
		    res->exit_code, "signal", res->signal, "timedOut",
		    res->timed_out, "setupFailed", res->setup_failed,
		    "durationMs", (json_int_t)res->duration_ms, "layers",
		    layers, "outputDigest", digest, "artifactUri", c->uri)) !=
	    0;
	/* limits.enforce: best-effort ran it without a limit asked for. */
	if (res->limits_warning[0] != '\0')
		(void)broker_audit(b, "limits_not_enforced",
		    json_pack("{s:O, s:s}", "id", c->id, "message",
			res->limits_warning));
	/* One record per structured denial; else the runner's guess. */
	if ((c->denied = escalate_record(c, denied, res)) == NULL &&
	    res->hint[0] != '\0')
		(void)broker_audit(b, "sandbox_denial",
		    json_pack("{s:O, s:s, s:s}", "id", c->id, "tool",
			c->tool->name, "hint", res->hint));
	json_decref(denied);
	/*
	 * The run's writes land only through the change-set policy, off
	 * the loop, one set at a time (call_land()).
	 */
	/* Landing is the run's effect outside the broker: the records of
	 * its end are written first, or nothing of it lands (audit.h). */
	if (res->setup_failed)
		call_landed(c, 0, NULL);
	else if (c->cancelled) {
		json_t *out = tool_error("cancelled", 0, NULL,
		    "the call was cancelled: its command was stopped and "
		    "nothing of it was applied");

		check_abandoned(c, res, out);
		call_landed(c, -1, out);
	} else if (c->budget_killed)
		call_landed(c, -1, jobs_stop_error(c));
	else if (res->timed_out || res->oom_killed) {
		json_t *out = cut_off_error(c, res);

		if (c->check != NULL)
			check_record(c, res, out, 1);
		call_landed(c, -1, out);
	} else if (tampered)
		call_landed(c, -1,
		    tool_error("output_withheld", 1, NULL,
			"the agent's view of the workspace was written while %s "
			"ran with a secret (or could not be watched): its output "
			"is withheld and nothing of it was applied; run it again "
			"while nothing writes",
			c->tool->name));
	else if (written)
		call_landed(c, -1,
		    tool_error("workspace_written", 0, NULL,
			"the workspace was written (or could not be watched) "
			"while %s, approved by a human, ran: it may have read "
			"what the approver was never shown; nothing of it was "
			"applied (give the agent a read-only workspace or a "
			"copy-on-write one)",
			c->tool->name));
	else if (unrecorded || audit_flush(b->cfg.audit) != 0)
		call_landed(c, -1,
		    tool_error("audit_unavailable", 1, NULL,
			"the audit log cannot be written; nothing of the run "
			"was applied"));
	else if (!gate_seal(c))
		call_land(c);
}

/*
 * Frees the run's result and finishes |c|: a job's call lives on with
 * its answer kept, without the runner's buffers.
 */
static void
call_done_ran(struct call *c, int status, json_t *out)
{
	/* A run's mode bits that did not land are told, as the audit
	 * record's change_applied tells them. */
	if (c->modes_dropped != NULL && json_is_object(out))
		json_object_set(out, "modesDropped", c->modes_dropped);
	call_result_free(c->res);
	c->res = NULL;
	call_complete(c, status, out);
}

/*
 * Records in the ledger that |c|'s check ended with exit code |code|
 * (128 + the signal that ended it), having printed |text| (|len| bytes,
 * as printed: redacted here; none for a run killed unseen): its gate
 * passes or fails on the digest it ran on, its failure fingerprint is
 * counted (stopOnRepeatedFailureFingerprint) and audited as
 * check_failure, and |out| (a result, or an error when |failed|: its
 * _note goes) is told the digest and fingerprint.  For check_record()
 * and a check killed at its cancel or the session's end.
 */
static void
check_ledger(struct call *c, int code, const char *text, size_t len,
    json_t *out, int failed)
{
	struct broker *b = c->b;
	char fp[SHA256_HEX_LEN + 1];
	size_t cleanlen;
	char *clean;
	int rc;

	/*
	 * The fingerprint (in the result and the audit log) is an
	 * unkeyed SHA-256 of the first error lines: of the output as
	 * printed, it tested a guessed secret offline against lines
	 * the result shows redacted.  So it is of the output redacted.
	 */
	if (redact_buf(b->cfg.redact, text, len, &clean, &cleanlen) < 0)
		fatalx("%s: out of memory redacting", __func__);
	gate_pins_after(c, out);
	gate_written_during(c, out);
	/* No digest is bound to a run the broker wrote under. */
	rc = ledger_record_check(b->ledger, c->check->id, code, clean, cleanlen,
	    c->ws_written ? "" : c->ws_digest, c->pinned_changed, fp);
	free(clean);
	json_object_set_new(out, "workspaceDigest", json_string(c->ws_digest));
	snprintf(c->gate, sizeof(c->gate), "%s %s%s", c->check->id,
	    code == 0 ? "pass" : "fail",
	    json_array_size(c->pinned_changed) > 0 || c->ws_written ? " (void)"
								    : "");
	if (fp[0] != '\0') {
		json_object_set_new(out, "failureFingerprint", json_string(fp));
		(void)broker_audit(b, "check_failure",
		    json_pack("{s:O, s:s, s:i, s:s, s:s, s:b}", "id", c->id,
			"check", c->check->id, "exitCode", code, "fingerprint",
			fp, "workspaceDigest", c->ws_digest, "cancelled",
			c->cancelled));
	}
	if (rc == AL_ERR_BUDGET)
		broker_budget_stop(b, "stopOnRepeatedFailureFingerprint");
	/* An error's fields say it; the note is for a result's text. */
	if (failed)
		json_object_del(out, "_note");
}

/*
 * A check's run is over: its result is recorded in the ledger (its gate,
 * its failure fingerprint) and told in |out|, a result or the error of
 * a run that failed whatever it exited with (|failed|: exit code 1 if
 * it said 0): one its timeout or memory limit cut off (cut_off_error(),
 * 128 + the signal), or whose change set was refused.  Recorded nowhere,
 * such a check left its gate as it was (not_run) and was counted by
 * neither maxPatchAttemptsPerGate nor stopOnRepeatedFailureFingerprint,
 * so an agent patched and re-ran it without end.
 */
static void
check_record(
    struct call *c, const struct runner_result *res, json_t *out, int failed)
{
	size_t n = res->out_len + res->err_len;
	char *all = xcalloc(1, n + 1);
	int code = res->exited ? res->exit_code : 128 + res->signal;

	if (code == 0 && failed)
		code = 1; /* whatever it said */
	if (res->out_len > 0)
		memcpy(all, res->out, res->out_len);
	if (res->err_len > 0)
		memcpy(all + res->out_len, res->err, res->err_len);
	check_ledger(c, code, all, n, out, failed);
	free(all);
}

/*
 * A check whose run started and whose result the agent will never be
 * told: cancelled (notifications/cancelled) or cut short by the
 * session's end.  It failed, as one its timeout cut off did (exit code
 * 128 plus the signal, or 1 if it ended with 0 before the cancel), and
 * is recorded so, its gate failing on the digest it ran on and
 * check_failure audited with cancelled: true.  Recorded nowhere, such a
 * check left its gate as it was (not_run) while its output was an
 * artifact away: an agent cancelled its failing check once the failure
 * was printed, read it, and patched uncounted.  |res| is NULL for a run
 * still running (killed: 128 + SIGKILL, no output).
 */
static void
check_abandoned(struct call *c, const struct runner_result *res, json_t *out)
{
	if (c->check == NULL)
		return;
	c->cancelled = 1;
	if (res != NULL)
		check_record(c, res, out, 1);
	else
		check_ledger(c, 128 + SIGKILL, "", 0, out, 1);
}

void
runcall_cancel_ended(struct call *c)
{
	json_t *out = tool_error("cancelled", 0, NULL,
	    "the call was cancelled: its command had ended, and nothing of "
	    "it was applied");

	check_abandoned(c, c->res, out);
	call_landed(c, -1, out);
}

void
runcall_session_end(struct call *c)
{
	json_t *out = json_object();

	check_abandoned(c, c->res, out);
	json_decref(out);
}

/* What follows the land of |c|'s change set: the call's answer. */
void
call_landed(struct call *c, int rc, json_t *out)
{
	const struct runner_result *res = c->res;

	jobs_landed(c, rc, out);
	if (rc != 0) {
		json_object_set_new(out, "artifactUri", json_string(c->uri));
		if (res->hint[0] != '\0' &&
		    json_object_get(out, "hint") == NULL)
			json_object_set_new(
			    out, "hint", json_string(res->hint));
		call_done_ran(c, ACTION_ERROR, out);
		return;
	}
	json_decref(c->modes_dropped);
	c->modes_dropped = json_incref(json_object_get(out, "modesDropped"));
	json_decref(out);
	if (res->setup_failed) {
		out = tool_error("sandbox_setup", 0, NULL,
		    "the sandbox could not be built: %s", res->setup_error);
		call_done_ran(c, ACTION_ERROR, out);
		return;
	}
	out = runner_output(c, res, c->uri);
	if (c->finish != NULL) {
		json_t *fout = NULL;
		int st = c->finish(c, res, out, &fout);

		if (st == ACTION_DONE && res->hint[0] != '\0')
			json_object_set_new(
			    fout, "hint", json_string(res->hint));
		json_decref(out);
		call_done_ran(c, st, fout);
		return;
	}
	if (c->check != NULL)
		check_record(c, res, out, 0);
	call_done_ran(c, ACTION_DONE, out);
}

/*
 * Change sets land one at a time, off the loop (broker/landjob.h); while
 * one does, every other reader and writer of the workspace is held
 * (call_hold()).  A run that ends meanwhile waits its turn.
 */
static void
land_begin(struct call *c)
{
	struct broker *b = c->b;

	b->ws_gen++;
	/* A blocking call's writes are the agent's own, a job's are news
	 * to it (broker/fwatch.h). */
	if (c->job == NULL)
		fwatch_own_begin(b->fwatch);
	broker_writing(b, 1);
	fwatch_quiet(b->fwatch, 1);
	landjob_start(c, call_land_done);
}

static void
call_land(struct call *c)
{
	struct broker *b = c->b;

	if (viewfreeze_stuck(b)) {
		call_landed(c, -1,
		    tool_error("write_failed", 0, NULL,
			"the session's view could not be made writable again "
			"(view_thaw_failed); nothing of the run was applied"));
		return;
	}
	/* While a run a human approved runs, sets wait to land
	 * (runcall_ws_still()). */
	if (runcall_ws_still(b)) {
		TAILQ_INSERT_TAIL(&b->landq, c, entry);
		return;
	}
	/* While a run holds the view read-only, sets wait to land. */
	if (b->landing != NULL || viewfreeze_active(b)) {
		TAILQ_INSERT_TAIL(&b->landq, c, entry);
		return;
	}
	b->landing = c;
	land_begin(c);
}

void
lands_resume(struct broker *b)
{
	struct call *next;

	if (b->landing != NULL || viewfreeze_active(b) || runcall_ws_still(b) ||
	    (next = TAILQ_FIRST(&b->landq)) == NULL)
		return;
	TAILQ_REMOVE(&b->landq, next, entry);
	b->landing = next;
	land_begin(next);
}

size_t
runcall_waiting_to_land(const struct broker *b)
{
	const struct call *c;
	size_t n = 0;

	TAILQ_FOREACH(c, &b->landq, entry)
	{
		n++;
	}
	return n;
}

int
runcall_ws_still(const struct broker *b)
{
	return b->ws_still > 0;
}

int
runcall_ws_release(struct call *c)
{
	if (!c->ws_still)
		return 0;
	c->ws_still = 0;
	return --c->b->ws_still == 0;
}

/* |c| runs under a human's yes: the broker writes nothing beneath it
 * until its processes are gone (runcall.h). */
static void
runcall_ws_hold(struct call *c)
{
	int blind;

	if (c->approved[0] == '\0' || c->ws_still)
		return;
	c->ws_still = 1;
	c->b->ws_still++;
	c->still_gen = broker_ws_gen(c->b, &blind);
}

/*
 * Whether the workspace was written while |c|, approved by a human, ran
 * (or the watch could not see all of it).  The broker wrote nothing
 * meanwhile (runcall_ws_still()), and a copy-on-write view was held
 * read-only (broker/viewfreeze.h), but an agent that writes the checkout
 * itself (agent.workspace: rw) cannot be held off: its rewrite of a
 * script the run sourced once it had started ran on the human's yes.
 * That is not undone, but nothing of such a run lands, the agent is told
 * it failed, and the audit log says so (approved_run_written).
 */
static int
approved_run_written(struct call *c)
{
	int blind;

	if (!c->ws_still ||
	    (broker_ws_gen(c->b, &blind) == c->still_gen && !blind))
		return 0;
	(void)broker_audit(c->b, "approved_run_written",
	    json_pack("{s:O, s:s, s:s}", "id", c->id, "tool", c->tool->name,
		"approval", c->approved));
	return 1;
}

/* Whether |out| is the lander's refusal of a run's change set. */
static int
change_refused(json_t *out)
{
	const char *cls = json_string_value(json_object_get(out, "errorClass"));

	return cls != NULL && strcmp(cls, "change_refused") == 0;
}

static void
call_land_done(struct call *c, int rc, json_t *out)
{
	struct broker *b = c->b;
	struct call *next;

	fwatch_quiet(b->fwatch, 0);
	broker_writing(b, 0);
	if (c->job == NULL)
		fwatch_own_end(b->fwatch);
	b->ws_gen++;
	/* Held calls stay held while the next set lands (no run holds the
	 * view read-only meanwhile: viewfreeze_hold() waits for a land). */
	if ((next = TAILQ_FIRST(&b->landq)) != NULL)
		TAILQ_REMOVE(&b->landq, next, entry);
	b->landing = next;
	/* A check whose writes were refused failed, and is recorded so:
	 * unrecorded, an agent whose tests left a link out of the
	 * workspace re-ran a failing check without end, counted by
	 * neither maxPatchAttemptsPerGate nor a fingerprint. */
	if (rc != 0 && c->check != NULL && change_refused(out))
		check_record(c, c->res, out, 1);
	call_landed(c, rc, out);
	if (next != NULL)
		land_begin(next);
	else
		calls_release(b);
}

/*
 * Adds the tool's granted secrets to the runner's environment: the only
 * place a secret value goes.  The agent never sees it; results, artifacts
 * and audit records are redacted.  Returns 0, or -1 with *out set.
 */
static int
grant_secrets(struct call *c, json_t **out)
{
	const struct tool *t = c->tool;
	size_t n, i;
	int rc;

	if (t->nsecrets == 0)
		return 0;
	if (c->b->cfg.secrets == NULL) {
		*out = tool_error(
		    "internal", 0, NULL, "the credential store is not open");
		return -1;
	}
	for (n = 0; c->envp[n] != NULL; n++)
		;
	c->envp = xreallocarray(c->envp, n + t->nsecrets + 1, sizeof(*c->envp));
	for (i = 0; i < t->nsecrets; i++) {
		const struct secret_grant *g = &t->secrets[i];
		unsigned char *v;
		size_t len, elen;

		c->envp[n] = NULL;
		if (g->env == NULL) {
			*out = tool_error("unsupported", 0, NULL,
			    "secret %s: only environment grants (env:) are "
			    "supported",
			    g->name);
			return -1;
		}
		if ((rc = secrets_get(c->b->cfg.secrets, g->name, &v, &len)) !=
		    0) {
			*out = tool_error("secret_unavailable", 0, NULL,
			    "secret %s: %s", g->name, al_strerror(rc));
			return -1;
		}
		/*
		 * The store is read again at every call, the redactor was
		 * loaded once at session start: a value set since (a rotated
		 * token) would reach the tool and come back unredacted.
		 */
		if (!redact_holds(c->b->cfg.redact, g->name, v, len)) {
			secrets_value_free(v);
			(void)broker_audit(c->b, "secret_refused",
			    json_pack("{s:O, s:s, s:s, s:s}", "id", c->id,
				"tool", c->tool->name, "secret", g->name,
				"reason", "changed since the session started"));
			*out = tool_error("secret_unavailable", 0,
			    "a secret is handed only with the value the "
			    "session redacts; ask a human to start a new "
			    "session",
			    "secret %s changed in the store since the session "
			    "started: %s was not run",
			    g->name, c->tool->name);
			return -1;
		}
		elen = strlen(g->env) + 1 + len + 1;
		c->envp[n] = xcalloc(1, elen);
		memcpy(c->envp[n], g->env, strlen(g->env));
		c->envp[n][strlen(g->env)] = '=';
		memcpy(c->envp[n] + strlen(g->env) + 1, v, len);
		secrets_value_free(v);
		c->envp[++n] = NULL;
	}
	return 0;
}

/*
 * A secret is never handed to code the agent could have changed: a
 * secret-granted tool whose pinned code differs from the session start
 * does not run.  Returns 0, or -1 with *out set.
 */
static int
secret_pins_refuse(struct call *c, json_t **out)
{
	json_t *changed;
	char files[512];

	if (c->tool->nsecrets == 0)
		return 0;
	/* An exec tool runs the agent's own command: nothing is pinned. */
	if (c->tool->action == ACTION_EXEC) {
		(void)broker_audit(c->b, "secret_refused",
		    json_pack("{s:O, s:s, s:s}", "id", c->id, "tool",
			c->tool->name, "reason",
			"exec runs the agent's command"));
		*out = tool_error("denied", 0,
		    "a secret is granted only to "
		    "code the agent cannot change: a command tool, not exec",
		    "%s is granted a secret and runs the agent's own command: "
		    "it was not run",
		    c->tool->name);
		return -1;
	}
	/* run_check runs the check's code, pinned like a tool's. */
	changed = broker_pins_changed(c->b, c->check, c->tool);
	if (c->check != NULL && json_array_size(changed) == 0) {
		json_decref(changed);
		changed = broker_pins_changed(c->b, NULL, c->tool);
	}
	if (json_array_size(changed) == 0) {
		json_decref(changed);
		return 0;
	}
	join_paths(changed, files, sizeof(files));
	(void)broker_audit(c->b, "pinned_code_changed",
	    json_pack("{s:O, s:s, s:O, s:s}", "id", c->id, "tool",
		c->tool->name, "pinnedCodeChanged", changed, "refused",
		"secret grant"));
	json_decref(changed);
	snprintf(
	    c->note, sizeof(c->note), "pinned code changed: %.200s", files);
	*out = tool_error("pinned_code_changed", 0,
	    "a tool granted a secret "
	    "runs only the code it had when the session started; restore "
	    "the files, or ask a human to start a new session",
	    "%s is granted a secret and its pinned code changed since the "
	    "session started (%s): it was not run (a path that cannot be "
	    "read as a file of the workspace, a hard link or a symlink out, "
	    "counts as changed)",
	    c->tool->name, files);
	return -1;
}

void
runner_reap_quietly(struct runner_proc *p)
{
	struct runner_result res;

	runner_proc_kill(p);
	runner_proc_wait(p);
	memset(&res, 0, sizeof(res));
	(void)runner_proc_finish(p, &res);
	runner_result_clear(&res);
}

/* Tells egress which manifest key grants |c|'s network. */
static void
egress_label_call(struct call *c)
{
	char key[160], who[96];

	if (c->check != NULL) {
		snprintf(key, sizeof(key), "checks.%s", c->check->id);
		egress_label(c->b->cfg.egress, c->egress, key, NULL);
		return;
	}
	snprintf(
	    key, sizeof(key), "tools[%zu]", (size_t)(c->tool - c->b->m->tools));
	snprintf(who, sizeof(who), "tool %s", c->tool->name);
	egress_label(c->b->cfg.egress, c->egress, key, who);
}

int
call_start_runner(struct call *c, int64_t timeout_ms, json_t **out)
{
	struct broker *b = c->b;
	const struct net_allow *allow;
	char err[256], layers[256];
	int64_t left;
	int rc, psock[2] = { -1, -1 };

	/* A write granted beside an approved run on a linked workspace
	 * waits for it to end (escalate.h). */
	if (escalate_hold(c))
		return ACTION_PENDING;
	/* What a human approved is what starts, or nothing does. */
	if ((rc = approval_rebind(c, "start", out)) != -1)
		return rc;
	/* A budget stopped the session while the call waited (for its
	 * digest, a human, a land): nothing starts after the stop. */
	if (ledger_stopped(b->ledger) != NULL) {
		*out = broker_budget_error(b, ledger_stopped(b->ledger));
		return ACTION_ERROR;
	}
	/*
	 * Counted again as it starts: a call admitted while nothing ran may
	 * have waited for a human (or a digest) while others started.
	 */
	if (b->m->budget.max_parallel_processes >= 0 &&
	    (int64_t)(b->nrunning + runcall_waiting_to_land(b)) >=
		b->m->budget.max_parallel_processes) {
		*out = tool_error("busy", 1, NULL,
		    "maxParallelProcesses "
		    "processes already run (maxParallelProcesses); retry when "
		    "one ends");
		return ACTION_ERROR;
	}
	if (b->nrunning + runcall_waiting_to_land(b) >= BROKER_MAX_RUNNERS) {
		*out = tool_error("busy", 1, NULL,
		    "%d processes already run, as many as airlock runs at once "
		    "for a session; retry when one ends",
		    BROKER_MAX_RUNNERS);
		return ACTION_ERROR;
	}
	/* No run outlives the session's maxElapsedMinutes (a call may have
	 * waited for a human since it was admitted). */
	if ((left = ledger_time_left(b->ledger, now_monotonic_ms())) == 0) {
		broker_budget_stop(b, "maxElapsedMinutes");
		*out = tool_error("budget_exhausted", 0, NULL,
		    "run budget exhausted (maxElapsedMinutes): nothing was run");
		return ACTION_ERROR;
	}
	/* Past the session's end by a little: elapsed_up() stops it, and
	 * the run with it, first; its own timeout is the backstop. */
	if (left < INT64_MAX - ELAPSED_GRACE_MS &&
	    left + ELAPSED_GRACE_MS < timeout_ms)
		timeout_ms = left + ELAPSED_GRACE_MS;
	if (secret_pins_refuse(c, out) != 0)
		return ACTION_ERROR;
	if (grant_secrets(c, out) != 0)
		return ACTION_ERROR;
	secret_run_start(c);
	allow = escalate_net(
	    c, c->check != NULL ? &c->check->network : &c->tool->network);
	/* A secret and the network: the agent's view holds still. */
	if (viewfreeze_needed(c, allow->nhosts) && viewfreeze_hold(c, out) != 0)
		return ACTION_ERROR;
	if (allow->nhosts > 0) {
		if (b->cfg.egress == NULL) {
			*out = tool_error("denied", 0, NULL,
			    "%s needs the network, which this session cannot "
			    "provide",
			    c->tool->name);
			return ACTION_ERROR;
		}
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, psock) ==
		    -1) {
			*out = tool_error("internal", 1, NULL, "socketpair: %s",
			    strerror(errno));
			return ACTION_ERROR;
		}
		egress_env(&c->envp);
	}
	memset(&c->req, 0, sizeof(c->req));
	c->req.use_proxy = allow->nhosts > 0;
	c->req.proxy_sock = psock[1];
	c->req.argv = c->argv;
	c->req.envp = c->envp;
	c->req.workspace = b->cfg.workspace;
	c->req.policy = &b->m->sandbox;
	c->req.timeout_ms = timeout_ms;
	c->req.output_cap = b->m->sandbox.limits.output_bytes > 0
	    ? (size_t)b->m->sandbox.limits.output_bytes
	    : 1024 * 1024;
	c->req.stdin_fd = -1;
	c->req.line_keep = c->line_keep;
	c->req.line_arg = c;
	c->req.line_names_max = c->line_names_max;
	if (escalate_prepare_run(c, out) != 0 ||
	    changeset_call_prepare(c, out) != 0) {
		if (c->req.use_proxy) {
			close(psock[0]);
			close(psock[1]);
		}
		return ACTION_ERROR;
	}
	runcall_ws_hold(c);
	rc = runner_start(&c->req, &c->proc, err, sizeof(err));
	if (rc == 0)
		c->ran = 1;
	if (c->req.use_proxy) {
		close(psock[1]);
		if (rc == 0) {
			snprintf(c->egress, sizeof(c->egress), "%s-%lld",
			    b->cfg.session_id, (long long)c->seq);
			egress_label_call(c);
			if (egress_attach(b->cfg.egress, psock[0], c->egress,
				allow, err, sizeof(err)) != 0) {
				/* No way out for it: better no run at all. */
				c->egress[0] = '\0';
				runner_reap_quietly(c->proc);
				c->proc = NULL;
				close(psock[0]);
				*out = tool_error("sandbox_setup", 0, NULL,
				    "egress for the runner: %s", err);
				return ACTION_ERROR;
			}
		}
		close(psock[0]);
	}
	if (rc != 0) {
		*out = tool_error("sandbox_setup", 0, NULL,
		    "the runner could not start: %s", err);
		return ACTION_ERROR;
	}
	runner_layers_string(RUNNER_LAYER_USERNS, layers, sizeof(layers));
	if (broker_audit(b, "runner_start",
		json_pack("{s:O, s:s, s:s?, s:o*,"
			  " s:s, s:s?, s:o*, s:o*, s:o*, s:I, s:s*}",
		    "id", c->id, "tool", c->tool->name, "check",
		    c->check != NULL ? c->check->id : NULL, "argv",
		    audit_fields_argv(c->req.argv), "workspace",
		    b->cfg.workspace, "cwd",
		    c->req.cwd != NULL ? c->req.cwd : ".", "envNames",
		    audit_fields_env_names(c->req.envp), "sandbox",
		    audit_fields_sandbox(c->req.policy), "limits",
		    audit_fields_limits(&c->req.policy->limits), "timeoutMs",
		    (json_int_t)timeout_ms, "escalation",
		    c->esc != NULL ? c->approved : NULL)) != 0) {
		runner_reap_quietly(c->proc);
		c->proc = NULL;
		*out = tool_error("audit_unavailable", 1, NULL,
		    "the audit log cannot be written; nothing was run");
		return ACTION_ERROR;
	}
	c->watch = loop_watch(b->cfg.loop, runner_proc_fd(c->proc),
	    runner_proc_deadline(c->proc), call_runner_event, c);
	if (c->watch < 0)
		fatalx("too many watches");
	TAILQ_INSERT_TAIL(&b->running, c, entry);
	b->nrunning++;
	jobs_arm(c);
	return ACTION_PENDING;
}
