/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * jobs: background jobs, job_output/job_kill and pushed events.
 */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <jansson.h>

#include "broker/broker_int.h"
#include "broker/jobs.h"
#include "broker/jobtext.h"
#include "broker/loop.h"
#include "broker/output.h"
#include "broker/redact.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "runner/runner.h"

#define JOBS_MAX 64 /* jobs kept per session, ended included */
#define JOB_EVENTS_MAX 100 /* events one job may push */
#define EVENT_LINE_MAX 300 /* bytes of a line in an event */
#define PENDING_MAX 20 /* events kept for the next result */
#define WAIT_MAX_MS (10 * 60 * 1000)
/*
 * job_output calls waiting at once for news with a deadline (waitMs), all
 * jobs together.  Each holds one of the event loop's watches
 * (LOOP_MAX_WATCHES, 1024 for the whole broker): a thousand of them sent
 * in one go took the last one, and the broker died ("too many watches")
 * with its session.  A call that waits for a job's end (a job_kill, or a
 * read while its set lands) holds none: the end answers it.
 */
#define JOB_WAITERS_MAX 128
/*
 * Calls parked until a job's end (job_kill, a read while its writes
 * land) hold no watch, but memory until then, and a job's set may wait
 * behind a land as long as the agent can make one: at most this many.
 */
#define JOB_END_WAITERS_MAX 256

enum job_state { JOB_RUNNING, JOB_ENDED };

struct job {
	struct jobs *js;
	char name[16]; /* "job-N" */
	const struct tool *tool;
	struct call *c; /* the run, while it goes on */
	enum job_state state;
	int killed;
	int64_t started; /* monotonic ms */
	/* After the end. */
	char *out, *err;
	size_t out_len, err_len;
	int exit_code; /* 128 + signal if killed */
	int timed_out;
	char stopped[64]; /* the budget that stopped it, or "" */
	int landed; /* its set landed (or was empty) */
	int never_ran; /* its sandbox could not be built */
	int truncated;
	char uri[256];
	char error_class[64]; /* the run's error, or "" */
	char error_msg[256];
	char hint[256]; /* the sandbox's, or "" */
	/* Reading and matching. */
	struct jobtext_cursor cur;
	struct jobtext_scan scan_out, scan_err;
	regex_t **res; /* per tool rule; NULL: exit */
	size_t nres;
	size_t nevents;
	size_t reads;
	struct callq waiters;
	TAILQ_ENTRY(job) entry;
};
TAILQ_HEAD(jobq, job);

struct jobs {
	struct broker *b;
	struct jobq list;
	size_t njobs;
	unsigned seq;
	json_t *pending; /* events for the next result */
	size_t dropped; /* events past PENDING_MAX */
	size_t nwaiters; /* parked calls holding a watch (job_park()) */
	size_t nend_waiters; /* parked until a job's end, no watch */
};

struct jobs *
jobs_new(struct broker *b)
{
	struct jobs *js = xcalloc(1, sizeof(*js));

	js->b = b;
	TAILQ_INIT(&js->list);
	if ((js->pending = json_array()) == NULL)
		fatalx("json_array");
	return js;
}

static void
job_free(struct job *j)
{
	size_t i;

	for (i = 0; i < j->nres; i++) {
		if (j->res[i] != NULL) {
			regfree(j->res[i]);
			free(j->res[i]);
		}
	}
	free(j->res);
	free(j->out);
	free(j->err);
	free(j);
}

void
jobs_free(struct jobs *js)
{
	struct job *j;
	struct call *w;

	if (js == NULL)
		return;
	while ((j = TAILQ_FIRST(&js->list)) != NULL) {
		TAILQ_REMOVE(&js->list, j, entry);
		while ((w = TAILQ_FIRST(&j->waiters)) != NULL) {
			TAILQ_REMOVE(&j->waiters, w, entry);
			if (w->watch > 0)
				loop_unwatch(js->b->cfg.loop, w->watch);
			w->wait_job = NULL;
			call_free(w);
		}
		if (j->c != NULL)
			j->c->job = NULL;
		job_free(j);
	}
	json_decref(js->pending);
	free(js);
}

int
jobs_take_block_ms(
    const struct tool *t, json_t *args, int64_t *ms, char *err, size_t errlen)
{
	json_t *v;

	*ms = -1;
	if (t->jobs.max_block_ms <= 0 ||
	    (v = json_object_get(args, "blockMs")) == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > t->jobs.max_block_ms) {
		snprintf(err, errlen,
		    "blockMs must be an integer from 0 to "
		    "%lld",
		    (long long)t->jobs.max_block_ms);
		return -1;
	}
	*ms = json_integer_value(v);
	json_object_del(args, "blockMs");
	return 0;
}

json_t *
jobs_block_schema(const struct tool *t)
{
	char desc[256];

	if (t->jobs.max_block_ms <= 0)
		return NULL;
	snprintf(desc, sizeof(desc),
	    "wait at most this many ms; a command "
	    "still running then goes on as a background job (its jobId is "
	    "returned). Absent: wait for the end (up to timeoutMs)");
	return json_pack("{s:s, s:i, s:I, s:s}", "type", "integer", "minimum",
	    0, "maximum", (json_int_t)t->jobs.max_block_ms, "description",
	    desc);
}

/* The name of the tool with action |a| the manifest grants, or NULL. */
static const char *
granted_tool(const struct broker *b, enum tool_action a)
{
	size_t i;

	for (i = 0; i < b->m->ntools; i++) {
		const struct tool *t = &b->m->tools[i];

		if (t->action == a &&
		    manifest_tool_authorization(b->m, t) != AUTHZ_DENY)
			return t->name;
	}
	return NULL;
}

/*
 * What the job has printed: its final output, or the runner's so far.  A
 * run granted a secret in a copy-on-write session gives out nothing before
 * it ended: only then is it known whether the agent's view was written
 * while it ran, which withholds all of it (secret_run_start() in
 * broker.c).
 */
static void
job_peek(const struct job *j, const char **out, size_t *outlen,
    const char **err, size_t *errlen)
{
	if (j->state == JOB_ENDED || j->c == NULL || j->c->proc == NULL) {
		*out = j->out;
		*outlen = j->out_len;
		*err = j->err;
		*errlen = j->err_len;
	} else if (j->c->secret_watched) {
		*out = *err = "";
		*outlen = *errlen = 0;
	} else
		runner_proc_peek(j->c->proc, out, outlen, err, errlen);
}

/*
 * How much of what the job printed a read may give out: all of it once it
 * ended; while it runs, not its last redact_longest() - 1 bytes, where a
 * secret (or a form of one) the next bytes complete may have begun and
 * would reach the agent in pieces the redactor cannot recognise.  That
 * tail waits for the next read, whatever it holds: held back only when it
 * began like a secret, a tail the agent had the job echo told it whether
 * its guess was the secret's beginning, a byte at a time.
 */
static void
job_settled(const struct job *j, const char *out, size_t outlen,
    const char *err, size_t errlen, size_t *giveout, size_t *giveerr)
{
	const struct redact *r = j->js->b->cfg.redact;

	*giveout = outlen;
	*giveerr = errlen;
	if (j->state == JOB_ENDED)
		return;
	if (outlen > j->cur.out)
		*giveout = j->cur.out +
		    redact_release(r, out + j->cur.out, outlen - j->cur.out);
	if (errlen > j->cur.err)
		*giveerr = j->cur.err +
		    redact_release(r, err + j->cur.err, errlen - j->cur.err);
}

static const char *job_status(const struct job *j);
static void job_exit_events(struct job *j);

/* One event: pushed now, kept for the next result's tail. */
static void
job_event(
    struct job *j, const char *kind, const char *line, size_t len, size_t rule)
{
	struct jobs *js = j->js;
	json_t *ev, *params;
	char *clean, *valid, text[EVENT_LINE_MAX + 1];
	size_t cleanlen, n;
	int warn;

	if (j->nevents >= JOB_EVENTS_MAX) {
		j->nevents++;
		return;
	}
	j->nevents++;
	if (redact_buf(js->b->cfg.redact, line, len, &clean, &cleanlen) < 0)
		fatalx("%s: out of memory redacting", __func__);
	/*
	 * UTF-8, cut between characters: the line is the command's bytes,
	 * and json_pack() failed on a byte that is not UTF-8, or on a
	 * character cut at EVENT_LINE_MAX (a line of 200 "é" after an odd
	 * byte), and fatalx() stopped the broker.
	 */
	valid = utf8_sanitize(clean, cleanlen);
	free(clean);
	if ((n = strlen(valid)) > EVENT_LINE_MAX)
		for (n = EVENT_LINE_MAX;
		     n > 0 && ((unsigned char)valid[n] & 0xc0) == 0x80; n--)
			;
	memcpy(text, valid, n);
	text[n] = '\0';
	free(valid);
	ev = json_pack("{s:s, s:s, s:s, s:I}", "jobId", j->name, "event", kind,
	    "line", text, "rule", (json_int_t)rule);
	if (ev == NULL)
		fatalx("json_pack");
	/* A job that never ran has no exit code to give. */
	if (j->state == JOB_ENDED && !j->never_ran)
		json_object_set_new(ev, "exitCode", json_integer(j->exit_code));
	/* An exit event goes out once the land's outcome is known. */
	if (strcmp(kind, "exit") == 0) {
		json_object_set_new(ev, "status", json_string(job_status(j)));
		json_object_set_new(ev, "landed", json_boolean(j->landed));
		if (j->error_class[0] != '\0')
			json_object_set_new(
			    ev, "errorClass", json_string(j->error_class));
	}
	/* A warning: the job failed, or nothing of it was applied. */
	warn = strcmp(kind, "exit") == 0 &&
	    (j->exit_code != 0 || !j->landed || j->error_class[0] != '\0');
	params = json_pack("{s:s, s:s, s:O}", "level",
	    warn ? "warning" : "info", "logger", "airlock.jobs", "data", ev);
	broker_notify(js->b, "notifications/message", params);
	json_decref(params);
	if (json_array_size(js->pending) < PENDING_MAX)
		json_array_append(js->pending, ev);
	else
		js->dropped++;
	(void)broker_audit(js->b, "job_event",
	    json_pack("{s:s, s:s, s:I}", "jobId", j->name, "event", kind,
		"rule", (json_int_t)rule));
	json_decref(ev);
}

static void
line_matched(const char *line, size_t len, size_t rule, void *arg)
{
	job_event(arg, "match", line, len, rule);
}

/*
 * Feeds the new complete lines of one stream (all of them when |final|)
 * to the job's rules, redacted as the stream is, not line by line: a
 * secret printed over several lines (base64(1)'s 76 columns, xxd -p's 60,
 * a PEM key) is a piece per line, each too short for the redactor, and an
 * event per line gave it all out.  So the scan takes, from where it is,
 * the longest run of whole lines that no secret (or form of one) runs
 * past, short of the stream's tail a form could still be completing
 * (redact_release_lines()), redacts that run as one text and matches the
 * rules against its lines: a rule sees what the agent would be given.
 * The tail is held back whatever it holds: held back only when it began
 * like a secret (redact_settled()), the line of a guess the agent had a
 * tool echo, in hex (which may go on past a line break), was pushed at
 * once unless it was the beginning of the secret's hex.
 */
static void
job_scan_stream(struct job *j, struct jobtext_scan *s, const char *data,
    size_t len, int final)
{
	const struct redact *r = j->js->b->cfg.redact;
	struct jobtext_scan piece;
	const char *w;
	char *clean;
	size_t wlen, cut, cleanlen;

	if (s->done >= len)
		return;
	w = data + s->done;
	wlen = len - s->done;
	/* Whole lines, the stream's tail held back whatever it holds. */
	cut = final ? wlen : redact_release_lines(r, w, wlen);
	if (cut == 0)
		return;
	if (redact_buf(r, w, cut, &clean, &cleanlen) < 0)
		fatalx("%s: out of memory redacting", __func__);
	memset(&piece, 0, sizeof(piece));
	jobtext_scan_lines(
	    &piece, clean, cleanlen, 1, j->res, j->nres, line_matched, j);
	free(clean);
	s->done += cut;
}

/* Feeds the job's new complete lines (all of them when |final|) to its rules. */
static void
job_scan(struct job *j, int final)
{
	const char *out, *err;
	size_t outlen, errlen;

	if (j->nres == 0)
		return;
	job_peek(j, &out, &outlen, &err, &errlen);
	job_scan_stream(j, &j->scan_out, out, outlen, final);
	job_scan_stream(j, &j->scan_err, err, errlen, final);
}

static const char *
job_status(const struct job *j)
{
	if (j->state == JOB_RUNNING)
		return "running";
	if (j->stopped[0] != '\0')
		return "stopped";
	if (j->killed)
		return "killed";
	if (j->timed_out)
		return "timed_out";
	if (j->error_class[0] != '\0')
		return "failed";
	return "exited";
}

/*
 * A job's answer to a read: what is new since the last one (capped) and
 * its status; advances the cursor.  Returns a new object with "_text".
 */
static json_t *
job_read(struct job *j)
{
	struct broker *b = j->js->b;
	const char *out, *err, *reader;
	char *fresh, *text, how[400];
	size_t outlen, errlen, giveout, giveerr, n;
	json_t *res;
	int failed;

	job_peek(j, &out, &outlen, &err, &errlen);
	job_settled(j, out, outlen, err, errlen, &giveout, &giveerr);
	fresh = jobtext_take(&j->cur, out, giveout, err, giveerr, &n);
	failed = j->state == JOB_ENDED && (j->exit_code != 0 || j->timed_out);
	reader = granted_tool(b, ACTION_JOB_OUTPUT);
	if (j->state == JOB_ENDED && j->uri[0] != '\0')
		snprintf(how, sizeof(how),
		    "the whole output is the artifact "
		    "%s (read_output or MCP resources/read)",
		    j->uri);
	else
		snprintf(how, sizeof(how),
		    "later output comes with the next "
		    "%s {jobId}",
		    reader != NULL ? reader : "job_output");
	text = output_text(b, j->tool, fresh, n, failed, how);
	free(fresh);
	/* The model reads why the job is over wherever it reads its output. */
	if (j->state == JOB_ENDED && j->never_ran) {
		char *t;

		xasprintf(&t, "%s[airlock: %s did not start: %s]\n", text,
		    j->name, j->error_msg);
		free(text);
		text = t;
	} else if (j->state == JOB_ENDED && j->stopped[0] != '\0') {
		char *t;

		xasprintf(&t, "%s%s[airlock: %s was stopped: %s]\n", text,
		    *text != '\0' && text[strlen(text) - 1] != '\n' ? "\n" : "",
		    j->name, j->error_msg);
		free(text);
		text = t;
	}
	res = json_pack("{s:s, s:s, s:s, s:I, s:I, s:b}", "jobId", j->name,
	    "status", job_status(j), "output", text, "newBytes", (json_int_t)n,
	    "totalBytes", (json_int_t)(outlen + errlen), "truncated",
	    j->state == JOB_ENDED ? j->truncated : 0);
	if (res == NULL)
		fatalx("json_pack");
	if (j->state == JOB_ENDED) {
		if (!j->never_ran)
			json_object_set_new(
			    res, "exitCode", json_integer(j->exit_code));
		if (j->uri[0] != '\0')
			json_object_set_new(
			    res, "artifactUri", json_string(j->uri));
		if (j->error_class[0] != '\0')
			json_object_set_new(res, "error",
			    json_pack("{s:s, s:s}", "errorClass",
				j->error_class, "message", j->error_msg));
	}
	/* The sandbox's hint reaches the model in every form. */
	if (j->state == JOB_ENDED && j->hint[0] != '\0') {
		char *t;

		json_object_set_new(res, "hint", json_string(j->hint));
		xasprintf(&t, "%s%s[airlock: hint: %s]\n", text,
		    *text != '\0' && text[strlen(text) - 1] != '\n' ? "\n" : "",
		    j->hint);
		free(text);
		text = t;
	}
	json_object_set_new(res, "_text", json_string(text));
	free(text);
	j->reads++;
	return res;
}

/* Answers a waiting job_output or job_kill. */
static void
waiter_answer(struct call *w)
{
	struct job *j = w->wait_job;
	json_t *out;

	TAILQ_REMOVE(&j->waiters, w, entry);
	if (w->watch > 0) {
		loop_unwatch(j->js->b->cfg.loop, w->watch);
		j->js->nwaiters--;
	} else
		j->js->nend_waiters--;
	w->watch = 0;
	w->wait_job = NULL;
	out = job_read(j);
	(void)broker_audit(j->js->b, "job_read",
	    json_pack("{s:O, s:s, s:s}", "id", w->id, "jobId", j->name,
		"status", job_status(j)));
	call_complete(w, ACTION_DONE, out);
}

struct call *
jobs_take_waiter(struct jobs *js, const struct conn *conn, const json_t *id)
{
	struct job *j;
	struct call *w;

	if (js == NULL)
		return NULL;
	for (j = TAILQ_FIRST(&js->list); j != NULL; j = TAILQ_NEXT(j, entry)) {
		for (w = TAILQ_FIRST(&j->waiters); w != NULL;
		     w = TAILQ_NEXT(w, entry)) {
			if (w->conn != conn || !json_equal(w->id, id))
				continue;
			TAILQ_REMOVE(&j->waiters, w, entry);
			if (w->watch > 0) {
				loop_unwatch(js->b->cfg.loop, w->watch);
				js->nwaiters--;
			} else
				js->nend_waiters--;
			w->watch = 0;
			w->wait_job = NULL;
			return w;
		}
	}
	return NULL;
}

/*
 * Whether |j|'s command has ended but its change set has not landed yet
 * (the land may still refuse it): the job is not over, and no read says
 * how it ended before jobs_complete() knows.
 */
static int
job_landing(const struct job *j)
{
	return j->state == JOB_ENDED && j->c != NULL;
}

static void
waiter_deadline(int fd, int why, void *arg)
{
	struct call *w = arg;

	(void)fd;
	(void)why;
	/* Its end is news only once the set landed: wait for that. */
	if (job_landing(w->wait_job)) {
		loop_unwatch(w->b->cfg.loop, w->watch);
		w->watch = 0;
		w->wait_job->js->nwaiters--;
		/* Past the bound, if need be: it was let in already. */
		w->wait_job->js->nend_waiters++;
		w->wait_end = 1;
		return;
	}
	waiter_answer(w);
}

/* Answers the waiters that have something new (all, once it ended). */
static void
job_wake(struct job *j)
{
	struct call *w, *next;
	const char *out, *err;
	size_t outlen, errlen;
	int fresh;

	job_peek(j, &out, &outlen, &err, &errlen);
	job_settled(j, out, outlen, err, errlen, &outlen, &errlen);
	fresh = outlen > j->cur.out || errlen > j->cur.err;
	for (w = TAILQ_FIRST(&j->waiters); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (j->state == JOB_ENDED || (fresh && !w->wait_end))
			waiter_answer(w);
	}
}

/* Compiles the tool's match rules for |j| (exit rules stay NULL). */
static void
job_compile(struct job *j)
{
	size_t i;

	j->nres = j->tool->jobs.nevents;
	j->res = xcalloc(j->nres + 1, sizeof(*j->res));
	for (i = 0; i < j->nres; i++) {
		const char *m = j->tool->jobs.events[i].match;

		if (m == NULL)
			continue;
		j->res[i] = xcalloc(1, sizeof(regex_t));
		/* The manifest loader compiled it once already. */
		if (regcomp(j->res[i], m, REG_EXTENDED | REG_NOSUB) != 0)
			fatalx("job rule %s no longer compiles", m);
	}
}

/* The first text block of a job's start: what happened, what to call. */
static char *
start_text(struct call *c, const struct job *j, const char *excerpt)
{
	const char *rd = granted_tool(c->b, ACTION_JOB_OUTPUT);
	const char *kl = granted_tool(c->b, ACTION_JOB_KILL);
	char how[256], *text;

	how[0] = '\0';
	if (rd != NULL)
		snprintf(how, sizeof(how),
		    "; read its new output with %s "
		    "{jobId}",
		    rd);
	if (kl != NULL)
		snprintf(how + strlen(how), sizeof(how) - strlen(how),
		    "; end it with %s {jobId}", kl);
	xasprintf(&text,
	    "[airlock: %s is still running after %lld ms as "
	    "background job %s%s; it ends at its timeout (%lld ms) or the "
	    "session's end]\n%s",
	    c->tool->name, (long long)c->block_ms, j->name, how,
	    (long long)c->tool->timeout_ms, excerpt);
	return text;
}

/* blockMs passed and the run goes on: it becomes a job. */
static void
block_expired(int fd, int why, void *arg)
{
	struct call *c = arg;
	struct broker *b = c->b;
	struct jobs *js = b->jobs;
	struct job *j;
	json_t *out;
	char *text;

	(void)fd;
	(void)why;
	loop_unwatch(b->cfg.loop, c->block_watch);
	c->block_watch = 0;
	if (c->proc == NULL)
		return;
	if (js->njobs >= JOBS_MAX) {
		/* Too many: this one blocks to its end like any call. */
		log_warnx(
		    "session has %d jobs; %s blocks", JOBS_MAX, c->tool->name);
		return;
	}
	j = xcalloc(1, sizeof(*j));
	j->js = js;
	snprintf(j->name, sizeof(j->name), "job-%u", ++js->seq);
	j->tool = c->tool;
	j->c = c;
	j->started = c->started;
	TAILQ_INIT(&j->waiters);
	job_compile(j);
	c->job = j;
	TAILQ_INSERT_TAIL(&js->list, j, entry);
	js->njobs++;
	(void)broker_audit(b, "job_start",
	    json_pack("{s:O, s:s, s:s, s:I}", "id", c->id, "tool",
		c->tool->name, "jobId", j->name, "blockMs",
		(json_int_t)c->block_ms));
	job_scan(j, 0);
	out = job_read(j);
	j->reads = 0;
	json_object_set_new(
	    out, "durationMs", json_integer(now_monotonic_ms() - c->started));
	text =
	    start_text(c, j, json_string_value(json_object_get(out, "_text")));
	json_object_del(out, "_text");
	call_answer_early(c, out, text);
	free(text);
	json_decref(out);
}

void
jobs_arm(struct call *c)
{
	if (c->block_ms < 0 || c->proc == NULL)
		return;
	c->block_watch = loop_watch(
	    c->b->cfg.loop, -1, c->started + c->block_ms, block_expired, c);
	if (c->block_watch < 0)
		fatalx("too many watches");
}

void
jobs_step(struct call *c)
{
	if (c->job == NULL)
		return;
	job_scan(c->job, 0);
	job_wake(c->job);
}

/*
 * Keeps |msg| as |j|'s error: UTF-8 (U+FFFD for a byte that is not),
 * cut between characters.  A sandbox's setup error quotes the agent's
 * names (a path too long in its view) cut at 256 bytes by the runner,
 * and a refusal quotes its paths: a byte that is not UTF-8, or a
 * character cut in two, made json_pack() of job_output's answer fail,
 * and fatalx() stopped the broker.
 */
static void
job_set_error(struct job *j, const char *msg)
{
	char *valid = utf8_sanitize(msg, strlen(msg));
	size_t n = strlen(valid);

	if (n >= sizeof(j->error_msg)) {
		n = sizeof(j->error_msg) - 1;
		while (n > 0 && ((unsigned char)valid[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(j->error_msg, valid, n);
	j->error_msg[n] = '\0';
	free(valid);
}

void
jobs_ended(struct call *c, const struct runner_result *res, const char *uri)
{
	struct job *j = c->job;

	if (c->block_watch > 0) {
		loop_unwatch(c->b->cfg.loop, c->block_watch);
		c->block_watch = 0;
	}
	if (j == NULL)
		return;
	/* The scan's offsets are into the same bytes, now the final copy. */
	j->out = xcalloc(1, res->out_len + 1);
	memcpy(j->out, res->out, res->out_len);
	j->out_len = res->out_len;
	j->err = xcalloc(1, res->err_len + 1);
	memcpy(j->err, res->err, res->err_len);
	j->err_len = res->err_len;
	j->exit_code = res->exited ? res->exit_code : 128 + res->signal;
	j->timed_out = res->timed_out;
	snprintf(j->hint, sizeof(j->hint), "%s", res->hint);
	j->truncated = res->truncated;
	if (res->setup_failed) {
		j->never_ran = 1;
		snprintf(
		    j->error_class, sizeof(j->error_class), "sandbox_setup");
		job_set_error(j, res->setup_error);
	}
	snprintf(j->uri, sizeof(j->uri), "%s", uri);
	j->state = JOB_ENDED;
	job_scan(j, 1);
}

/*
 * The exit rules, once the job is over: its command ended and its set
 * landed or was refused, which the event says (an agent told "ended"
 * before that would take writes for landed that may yet be refused).
 */
static void
job_exit_events(struct job *j)
{
	size_t i;

	for (i = 0; i < j->tool->jobs.nevents; i++) {
		char line[400], land[128];

		if (!jobtext_exit_matches(
			j->tool->jobs.events[i].exit, j->exit_code))
			continue;
		if (j->never_ran) {
			snprintf(line, sizeof(line),
			    "%s did not start: its sandbox could not be built; "
			    "nothing of it ran (sandbox_setup)",
			    j->name);
			job_event(j, "exit", line, strlen(line), i);
			continue;
		}
		if (j->landed)
			snprintf(land, sizeof(land), "its changes landed");
		else
			snprintf(land, sizeof(land),
			    "nothing of it was applied (%s)",
			    j->error_class[0] != '\0' ? j->error_class
						      : "refused");
		if (j->stopped[0] != '\0')
			snprintf(line, sizeof(line),
			    "%s was stopped by the run budget (%s) with exit "
			    "code %d; %s",
			    j->name, j->stopped, j->exit_code, land);
		else
			snprintf(line, sizeof(line),
			    "%s %s with exit code %d; %s", j->name,
			    j->killed	       ? "was killed"
				: j->timed_out ? "timed out"
					       : "ended",
			    j->exit_code, land);
		job_event(j, "exit", line, strlen(line), i);
	}
}

int
jobs_complete(struct call *c, int status, json_t *out)
{
	struct job *j = c->job;
	json_t *rec;

	if (j == NULL)
		return 0;
	if (status != ACTION_DONE && j->error_class[0] == '\0') {
		const char *ec =
		    json_string_value(json_object_get(out, "errorClass"));
		const char *msg =
		    json_string_value(json_object_get(out, "message"));

		snprintf(j->error_class, sizeof(j->error_class), "%s",
		    ec != NULL ? ec : "error");
		job_set_error(j, msg != NULL ? msg : "");
	}
	/* A job refused at its end (its change set refused, its memory
	 * limit reached) is a refused call, as the same command's blocking
	 * call is: uncounted, an agent refused in the background went on
	 * without end. */
	if (call_refusal(status, out))
		ledger_refused(c->b->ledger);
	json_decref(out);
	rec = json_pack("{s:O, s:s, s:s, s:i, s:s, s:I, s:s}", "id", c->id,
	    "jobId", j->name, "status", job_status(j), "exitCode", j->exit_code,
	    "errorClass", j->error_class, "durationMs",
	    (json_int_t)(now_monotonic_ms() - j->started), "artifactUri",
	    j->uri);
	if (rec != NULL && j->stopped[0] != '\0') {
		json_object_set_new(rec, "reason", json_string("budget_stop"));
		json_object_set_new(rec, "limit", json_string(j->stopped));
	}
	(void)broker_audit(c->b, "job_end", rec);
	j->c = NULL;
	c->job = NULL;
	call_free(c);
	job_exit_events(j);
	job_wake(j);
	return 1;
}

void
jobs_landed(struct call *c, int rc, const json_t *out)
{
	struct job *j = c->job;
	const char *ec, *msg;

	if (j == NULL)
		return;
	/* A run whose sandbox was never built has nothing that landed. */
	j->landed = rc == 0 && !j->never_ran;
	if (rc == 0)
		return;
	ec = json_string_value(json_object_get(out, "errorClass"));
	msg = json_string_value(json_object_get(out, "message"));
	snprintf(j->error_class, sizeof(j->error_class), "%s",
	    ec != NULL ? ec : "error");
	job_set_error(j, msg != NULL ? msg : "");
}

json_t *
jobs_stop_error(struct call *c)
{
	const char *limit = ledger_stopped(c->b->ledger);

	return tool_error("budget_exhausted", 0, NULL,
	    "the run budget is exhausted (%s): the session is stopped, this "
	    "command was killed and nothing of it was applied",
	    limit != NULL ? limit : "a limit");
}

void
jobs_budget_stop(struct broker *b, const char *limit)
{
	struct call *c;

	for (c = TAILQ_FIRST(&b->running); c != NULL;
	     c = TAILQ_NEXT(c, entry)) {
		if (c->proc == NULL || c->budget_killed || c->cancelled)
			continue;
		c->budget_killed = 1;
		if (c->job != NULL)
			snprintf(c->job->stopped, sizeof(c->job->stopped), "%s",
			    limit);
		/* Killed whether or not the record could be written. */
		(void)broker_audit(b, "run_stopped",
		    json_pack("{s:O, s:s, s:s*, s:s, s:s}", "id", c->id, "tool",
			c->tool->name, "jobId",
			c->job != NULL ? c->job->name : NULL, "reason",
			"budget_stop", "limit", limit));
		runner_proc_kill(c->proc);
	}
}

void
jobs_call_gone(struct call *c)
{
	if (c->job != NULL) {
		(void)broker_audit(c->b, "job_end",
		    json_pack("{s:O, s:s, s:s, s:s}", "id", c->id, "jobId",
			c->job->name, "status", "killed", "reason",
			"session ended"));
		c->job->state = JOB_ENDED;
		c->job->killed = 1;
		c->job->c = NULL;
		c->job = NULL;
	}
	if (c->block_watch > 0) {
		loop_unwatch(c->b->cfg.loop, c->block_watch);
		c->block_watch = 0;
	}
}

/* The job the call's jobId names, or NULL with *out set. */
static struct job *
job_lookup(struct call *c, json_t **out)
{
	const char *id = json_string_value(json_object_get(c->args, "jobId"));
	struct job *j;

	if (id == NULL) {
		*out = tool_error("invalid_arguments", 0, NULL,
		    "%s needs a jobId", c->tool->name);
		return NULL;
	}
	for (j = TAILQ_FIRST(&c->b->jobs->list); j != NULL;
	     j = TAILQ_NEXT(j, entry))
		if (strcmp(j->name, id) == 0)
			return j;
	*out = tool_error(
	    "not_found", 0, NULL, "no job %.64s in this session", id);
	return NULL;
}

/*
 * Parks |c| on |j| until it has news or |ms| pass, or (|until_end|) until
 * it ends, with no deadline: ACTION_PENDING, or ACTION_ERROR with *out
 * "busy" (retryable) when JOB_WAITERS_MAX calls wait with a deadline
 * already.
 */
static int
job_park(struct call *c, struct job *j, int until_end, int64_t ms, json_t **out)
{
	if (!until_end) {
		if (j->js->nwaiters >= JOB_WAITERS_MAX) {
			*out = tool_error("busy", 1, NULL,
			    "%d calls already wait on jobs; retry when one is "
			    "answered",
			    JOB_WAITERS_MAX);
			return ACTION_ERROR;
		}
		c->watch = loop_watch(c->b->cfg.loop, -1,
		    now_monotonic_ms() + ms, waiter_deadline, c);
		if (c->watch < 0)
			fatalx("too many watches");
		j->js->nwaiters++;
	} else {
		if (j->js->nend_waiters >= JOB_END_WAITERS_MAX) {
			*out = tool_error("busy", 1, NULL,
			    "%d calls already wait for jobs to end; retry when "
			    "one is answered",
			    JOB_END_WAITERS_MAX);
			return ACTION_ERROR;
		}
		c->watch = 0;
		j->js->nend_waiters++;
	}
	c->wait_job = j;
	c->wait_end = until_end;
	TAILQ_INSERT_TAIL(&j->waiters, c, entry);
	return ACTION_PENDING;
}

int
jobs_act_output(struct call *c, json_t **out)
{
	struct job *j;
	json_t *w = json_object_get(c->args, "waitMs");
	const char *o, *e;
	size_t ol, el;
	int64_t wait = 0;

	if ((j = job_lookup(c, out)) == NULL)
		return ACTION_ERROR;
	if (w != NULL) {
		if (!json_is_integer(w) || json_integer_value(w) < 0 ||
		    json_integer_value(w) > WAIT_MAX_MS) {
			*out = tool_error("invalid_arguments", 0, NULL,
			    "waitMs must be an integer from 0 to %d",
			    WAIT_MAX_MS);
			return ACTION_ERROR;
		}
		wait = json_integer_value(w);
	}
	if (job_landing(j))
		return job_park(c, j, 1, 0, out);
	job_peek(j, &o, &ol, &e, &el);
	job_settled(j, o, ol, e, el, &ol, &el);
	if (wait > 0 && j->state == JOB_RUNNING && ol <= j->cur.out &&
	    el <= j->cur.err)
		return job_park(c, j, 0, wait, out);
	*out = job_read(j);
	(void)broker_audit(c->b, "job_read",
	    json_pack("{s:O, s:s, s:s}", "id", c->id, "jobId", j->name,
		"status", job_status(j)));
	return ACTION_DONE;
}

int
jobs_act_kill(struct call *c, json_t **out)
{
	struct job *j;

	if ((j = job_lookup(c, out)) == NULL)
		return ACTION_ERROR;
	(void)broker_audit(c->b, "job_kill",
	    json_pack("{s:O, s:s, s:s}", "id", c->id, "jobId", j->name,
		"status", job_status(j)));
	if (job_landing(j))
		return job_park(c, j, 1, 0, out);
	if (j->state == JOB_ENDED || j->c == NULL || j->c->proc == NULL) {
		*out = job_read(j);
		return ACTION_DONE;
	}
	j->killed = 1;
	runner_proc_kill(j->c->proc);
	/* The end comes through the loop; answer then. */
	return job_park(c, j, 1, 0, out);
}

json_t *
jobs_status(const struct jobs *js)
{
	const struct job *j;
	json_t *list, *e;

	if ((list = json_array()) == NULL)
		fatalx("json_array");
	if (js == NULL)
		return list;
	TAILQ_FOREACH(j, &js->list, entry)
	{
		/* Not over before its set landed or was refused. */
		e = json_pack("{s:s, s:s, s:s}", "jobId", j->name, "tool",
		    j->tool->name, "status",
		    job_landing(j) ? "landing" : job_status(j));
		if (e == NULL)
			fatalx("json_pack");
		if (j->state == JOB_ENDED && !j->never_ran)
			json_object_set_new(
			    e, "exitCode", json_integer(j->exit_code));
		if (j->error_class[0] != '\0')
			json_object_set_new(
			    e, "errorClass", json_string(j->error_class));
		if (j->stopped[0] != '\0')
			json_object_set_new(e, "stoppedBy",
			    json_pack("{s:s, s:s}", "reason", "budget_stop",
				"limit", j->stopped));
		json_array_append_new(list, e);
	}
	return list;
}

int
jobs_pending(const struct jobs *js)
{
	return js != NULL && json_array_size(js->pending) > 0;
}

void
jobs_tail(struct jobs *js, json_t *result, json_t *structured)
{
	json_t *ev;
	char *text, *p;
	size_t i, len = 0;

	if (js == NULL || json_array_size(js->pending) == 0)
		return;
	json_array_foreach(js->pending, i, ev)
	{
		len +=
		    strlen(json_string_value(json_object_get(ev, "line"))) + 64;
	}
	text = p = xcalloc(1, len + 200);
	p += sprintf(p,
	    "[airlock: events from background jobs since your "
	    "last call]\n");
	json_array_foreach(js->pending, i, ev)
	{
		p += sprintf(p, "%s %s: %s\n",
		    json_string_value(json_object_get(ev, "jobId")),
		    json_string_value(json_object_get(ev, "event")),
		    json_string_value(json_object_get(ev, "line")));
	}
	if (js->dropped > 0)
		sprintf(
		    p, "[airlock: %zu more events not shown]\n", js->dropped);
	json_array_append_new(json_object_get(result, "content"),
	    json_pack("{s:s, s:s}", "type", "text", "text", text));
	free(text);
	if (structured != NULL && json_is_object(structured))
		json_object_set(structured, "events", js->pending);
	json_decref(js->pending);
	if ((js->pending = json_array()) == NULL)
		fatalx("json_array");
	js->dropped = 0;
}
