/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * output: results within a cap, and the session's artifacts for the agent.
 *
 * Why here and not in each action: every result passes the broker, so the
 * cap, the marker and the failure lines are applied once, the same way,
 * for every agent airlock wraps.  The text is redacted before it is cut,
 * so that a cut never splits a secret into pieces the redactor misses.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/artifact.h"
#include "broker/broker_int.h"
#include "broker/excerpt.h"
#include "broker/jsonrpc.h"
#include "broker/output.h"
#include "broker/redact.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"

#define GREP_CONTEXT_MAX 20

size_t
output_cap(const struct broker *b, const struct tool *t)
{
	if (t != NULL && t->inline_chars > 0)
		return (size_t)t->inline_chars;
	return (size_t)b->m->output.inline_chars;
}

/* The tool that reads artifacts, if the manifest grants one. */
static const char *
reader_tool(const struct broker *b)
{
	size_t i;

	for (i = 0; i < b->m->ntools; i++) {
		const struct tool *t = &b->m->tools[i];

		if (t->action == ACTION_READ_OUTPUT &&
		    manifest_tool_authorization(b->m, t) != AUTHZ_DENY)
			return t->name;
	}
	return NULL;
}

/* How to read the rest of an artifact, for the marker. */
static void
how_to_read(const struct broker *b, char *buf, size_t len)
{
	const char *t = reader_tool(b);

	if (t != NULL)
		snprintf(buf, len,
		    "read it with %s {uri, startLine, endLine} "
		    "or {uri, pattern}, or MCP resources/read",
		    t);
	else
		snprintf(buf, len,
		    "read it with MCP resources/read "
		    "(URI?lines=A-B or URI?grep=TEXT)");
}

/* data[0..len) redacted, as a new buffer. */
static char *
redacted(const struct broker *b, const char *data, size_t len, size_t *outlen)
{
	char *clean;

	if (redact_buf(b->cfg.redact, data, len, &clean, outlen) < 0)
		fatalx("%s: out of memory redacting", __func__);
	return clean;
}

static json_t *
excerpt_json(const char *data, size_t len, const struct excerpt_opts *o,
    struct excerpt_info *info)
{
	char *e = excerpt_make(data, len, o, info);
	size_t n = strlen(e);
	/* Checked here (faster than jansson's check, the same rule). */
	json_t *s = utf8_valid(e, n) ? json_stringn_nocheck(e, n) : NULL;

	free(e);
	if (s == NULL)
		fatalx("%s: json_string", __func__);
	return s;
}

void
output_settle_cut(const struct broker *b, struct runner_result *res)
{
	if (!res->truncated && !res->timed_out && res->exited)
		return;
	res->out_len = redact_release(b->cfg.redact, res->out, res->out_len);
	res->out[res->out_len] = '\0';
	res->err_len = redact_release(b->cfg.redact, res->err, res->err_len);
	res->err[res->err_len] = '\0';
}

char *
output_text(struct broker *b, const struct tool *t, const char *data,
    size_t len, int failed, const char *how)
{
	struct excerpt_opts o;
	size_t cleanlen;
	char *clean, *e;

	memset(&o, 0, sizeof(o));
	o.cap = output_cap(b, t);
	o.failed = failed;
	o.patterns = (const char *const *)b->m->output.failure_patterns;
	o.context = EXCERPT_CONTEXT;
	o.how = how;
	clean = redacted(b, data, len, &cleanlen);
	e = excerpt_make(clean, cleanlen, &o, NULL);
	free(clean);
	return e;
}

json_t *
output_command(struct broker *b, const struct tool *t,
    const struct runner_result *res, const char *uri)
{
	struct excerpt_opts o;
	struct excerpt_info info, sinfo;
	char how[256], *both, *all, *sout, *serr;
	size_t n, alllen, soutlen, serrlen;
	int code = res->exited ? res->exit_code : 128 + res->signal;
	int kept = uri[0] != '\0';
	json_t *out, *text;

	memset(&o, 0, sizeof(o));
	o.cap = output_cap(b, t);
	o.failed = code != 0 || res->timed_out;
	o.patterns = (const char *const *)b->m->output.failure_patterns;
	o.context = EXCERPT_CONTEXT;
	if (kept) {
		o.uri = uri;
		how_to_read(b, how, sizeof(how));
	} else
		snprintf(how, sizeof(how), "the full output was not kept: %s",
		    artifact_used(b->artifacts) < artifact_quota(b->artifacts)
			? "it would pass the session's artifact quota "
			  "(output.artifactQuotaMb)"
			: "the session's artifact quota (output.artifactQuotaMb) "
			  "is used up");
	o.how = how;

	n = res->out_len + res->err_len;
	both = xcalloc(1, n + 1);
	memcpy(both, res->out, res->out_len);
	memcpy(both + res->out_len, res->err, res->err_len);
	all = redacted(b, both, n, &alllen);
	free(both);
	sout = redacted(b, res->out, res->out_len, &soutlen);
	serr = redacted(b, res->err, res->err_len, &serrlen);

	text = excerpt_json(all, alllen, &o, &info);
	out = json_pack("{s:i, s:s, s:I, s:b, s:i, s:b, s:o, s:o}", "exitCode",
	    code, "artifactUri", uri, "durationMs",
	    (json_int_t)res->duration_ms, "timedOut", res->timed_out, "signal",
	    res->signal, "truncated", res->truncated, "stdout",
	    excerpt_json(sout, soutlen, &o, &sinfo), "stderr",
	    excerpt_json(serr, serrlen, &o, &sinfo));
	if (out == NULL)
		fatalx("%s: json_pack", __func__);
	json_object_set_new(out, "outputInfo",
	    json_pack("{s:s?, s:I, s:I, s:b, s:b, s:I}", "uri",
		kept ? uri : NULL, "bytes", (json_int_t)info.bytes, "lines",
		(json_int_t)info.lines, "truncated",
		info.truncated || res->truncated, "kept", kept, "inlineChars",
		(json_int_t)o.cap));
	if (!kept)
		json_object_del(json_object_get(out, "outputInfo"), "uri");
	/*
	 * The excerpt goes twice: as a field a contract may declare
	 * ("output: string"), for clients that give the model only the
	 * structured result, and as a second text block for the others.
	 */
	json_object_set(out, "output", text);
	if (res->hint[0] != '\0') {
		char *withhint;

		json_object_set_new(out, "hint", json_string(res->hint));
		xasprintf(&withhint, "%s%s[airlock: hint: %s]\n",
		    json_string_value(text),
		    json_string_length(text) > 0 &&
			    json_string_value(
				text)[json_string_length(text) - 1] != '\n'
			? "\n"
			: "",
		    res->hint);
		json_object_set_new(out, "_text", json_string(withhint));
		free(withhint);
		json_decref(text);
	} else
		json_object_set_new(out, "_text", text);
	free(all);
	free(sout);
	free(serr);
	return out;
}

static int
tool_has_input(const struct tool *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ninput; i++)
		if (strcmp(t->input[i].name, name) == 0)
			return 1;
	return 0;
}

/* An optional line number: 0 when absent, -1 when below 1. */
static int64_t
arg_int(const json_t *args, const char *name)
{
	json_t *v = json_object_get(args, name);

	if (!json_is_integer(v))
		return 0;
	return json_integer_value(v) < 1 ? -1 : (int64_t)json_integer_value(v);
}

/*
 * Picks lines [start, end] of data[0..len) into *off and *n; start 0 means 1.
 * Returns 0, or ACTION_ERROR with *out set.
 */
static int
pick_lines(const char *data, size_t len, int64_t start, int64_t end,
    size_t total, size_t *off, size_t *n, json_t **out)
{
	*off = 0;
	*n = len;
	if (start == 0 && end == 0)
		return 0;
	if (start < 0 || end < 0 || (end != 0 && end < (start ? start : 1)) ||
	    excerpt_lines(data, len, start ? (size_t)start : 1, (size_t)end,
		off, n) != 0) {
		*out = tool_error("invalid_arguments", 0,
		    "lines are numbered from 1; endLine >= startLine",
		    "no lines %lld-%lld: the text has %zu lines",
		    (long long)(start ? start : 1), (long long)end, total);
		return ACTION_ERROR;
	}
	return 0;
}

int64_t
output_line_arg(const json_t *args, const char *name)
{
	return arg_int(args, name);
}

int
output_file(struct broker *b, const struct tool *t, int64_t start, int64_t end,
    const char *rel, int fd, size_t size, size_t limit, json_t **out)
{
	struct excerpt_opts o;
	struct excerpt_info info;
	char hex[SHA256_HEX_LEN + 1], how[256];
	size_t total, off, n, first, last, len;
	int ranged =
	    tool_has_input(t, "startLine") || tool_has_input(t, "endLine");
	json_t *content;
	size_t cleanlen, textlen;
	const char *text;
	char *clean, *data;

	data = read_fd_upto(fd, size, &len);
	if (!utf8_valid(data, len) || memchr(data, '\0', len) != NULL) {
		free(data);
		*out = tool_error("binary_file", 0, NULL,
		    "%s is not UTF-8 text; read_file returns text only", rel);
		return ACTION_ERROR;
	}
	/*
	 * The file's own digest, so that apply_patch binds to it: keyed
	 * when it holds a secret, which the agent is shown redacted.
	 */
	wsdigest_content(b->cfg.redact, b->digest_key, data, len, hex);
	/*
	 * Redacted whole before a range is picked or the cap cuts: a line
	 * of a secret of several lines (a PEM key), or the head of one the
	 * cap cut, is no form the redactor knows.  The lines are the
	 * redacted text's, the same at every read.  (Without secrets, the
	 * file as it is: no copy.)
	 */
	if (redact_count(b->cfg.redact) > 0)
		clean = redacted(b, data, len, &cleanlen);
	else
		clean = NULL;
	text = clean != NULL ? clean : data;
	textlen = clean != NULL ? cleanlen : len;
	total = excerpt_count_lines(text, textlen);
	if (pick_lines(text, textlen, start, end, total, &off, &n, out) != 0) {
		free(clean);
		free(data);
		return ACTION_ERROR;
	}
	first = start > 0 ? (size_t)start : 1;
	memset(&o, 0, sizeof(o));
	o.cap = ranged && output_cap(b, t) < limit ? output_cap(b, t) : limit;
	o.head_only = 1;
	o.first_line = first;
	if (ranged)
		snprintf(how, sizeof(how),
		    "read more with %s {path, "
		    "startLine, endLine}; sha256 is the whole file's",
		    t->name);
	else
		snprintf(how, sizeof(how),
		    "%s takes no line range here (the "
		    "manifest can declare startLine/endLine)",
		    t->name);
	o.how = how;
	content = excerpt_json(text + off, n, &o, &info);
	free(clean);
	free(data);
	last = info.lines == 0 ? first : first + info.lines - 1;
	if (info.truncated) {
		/* The last line shown whole: the one before the marker. */
		const char *s = json_string_value(content);
		size_t k, shown = 0;

		for (k = 0; s[k] != '\0'; k++)
			if (s[k] == '\n')
				shown++;
		last = shown > 1 ? first + shown - 2 : first;
	}
	*out = json_pack("{s:o, s:s, s:s, s:I, s:I, s:I, s:I, s:b}", "content",
	    content, "sha256", hex, "path", rel, "size", (json_int_t)len,
	    "totalLines", (json_int_t)total, "startLine", (json_int_t)first,
	    "endLine", (json_int_t)last, "truncated", info.truncated);
	if (*out == NULL)
		fatalx("%s: json_pack", __func__);
	return ACTION_DONE;
}

/*
 * The text of a read of an artifact: lines [start, end] when given, the
 * lines matching |pattern| (with |ctx| lines around them) when given,
 * else the whole, cut to |cap|.  Returns a new string, or NULL with *out
 * (a tool error) set.
 */
static char *
read_piece(struct broker *b, const char *uri, const char *data, size_t len,
    int64_t start, int64_t end, const char *pattern, int64_t ctx, size_t cap,
    struct excerpt_info *info, json_t **out)
{
	struct excerpt_opts o;
	char how[256];
	size_t off, n, total = excerpt_count_lines(data, len);

	if (pick_lines(data, len, start, end, total, &off, &n, out) != 0)
		return NULL;
	memset(&o, 0, sizeof(o));
	o.cap = cap;
	o.uri = uri;
	o.first_line = start > 0 ? (size_t)start : 1;
	o.context = ctx < 0	     ? 0
	    : ctx > GREP_CONTEXT_MAX ? GREP_CONTEXT_MAX
				     : (size_t)ctx;
	how_to_read(b, how, sizeof(how));
	o.how = how;
	if (pattern != NULL && pattern[0] != '\0')
		return excerpt_grep(data + off, n, pattern, &o, info);
	return excerpt_make(data + off, n, &o, info);
}

static json_t *
read_refusal(int rc, const char *err)
{
	switch (rc) {
	case AL_ERR_NOT_FOUND:
		return tool_error("not_found", 0, NULL, "%s", err);
	case AL_ERR_DENIED:
	case AL_ERR_PATH:
		return tool_error("path_refused", 0, NULL, "%s", err);
	default:
		return tool_error("internal", 1, NULL, "%s", err);
	}
}

int
output_act_read(struct call *c, json_t **out)
{
	const char *uri = json_string_value(json_object_get(c->args, "uri"));
	const char *pattern =
	    json_string_value(json_object_get(c->args, "pattern"));
	int64_t start = arg_int(c->args, "startLine");
	int64_t end = arg_int(c->args, "endLine");
	json_t *ctxv = json_object_get(c->args, "context");
	struct excerpt_info info;
	char err[256], *data, *text;
	size_t len;
	int rc;

	if (uri == NULL) {
		*out = tool_error(
		    "invalid_arguments", 0, NULL, "read_output needs a uri");
		return ACTION_ERROR;
	}
	if ((rc = artifact_read(
		 c->b->artifacts, uri, &data, &len, err, sizeof(err))) != 0) {
		*out = read_refusal(rc, err);
		return ACTION_ERROR;
	}
	text = read_piece(c->b, uri, data, len, start, end, pattern,
	    json_is_integer(ctxv) ? json_integer_value(ctxv) : EXCERPT_CONTEXT,
	    output_cap(c->b, c->tool), &info, out);
	if (text == NULL) {
		free(data);
		return ACTION_ERROR;
	}
	*out = json_pack("{s:s, s:s, s:I, s:I, s:I, s:b, s:I}", "uri", uri,
	    "text", text, "totalLines",
	    (json_int_t)excerpt_count_lines(data, len), "bytes",
	    (json_int_t)len, "matches", (json_int_t)info.matches, "truncated",
	    info.truncated, "startLine", (json_int_t)(start > 0 ? start : 1));
	free(text);
	free(data);
	if (*out == NULL)
		fatalx("%s: json_pack", __func__);
	return ACTION_DONE;
}

json_t *
output_resources_list(struct broker *b)
{
	json_t *r =
	    json_pack("{s:o}", "resources", artifact_list(b->artifacts));

	if (r == NULL)
		fatalx("%s: json_pack", __func__);
	return r;
}

json_t *
output_resources_templates(struct broker *b)
{
	char tmpl[ARTIFACT_URI_MAX];
	json_t *r;

	snprintf(tmpl, sizeof(tmpl),
	    "airlock://%s/artifacts/{name}{?lines,grep,context}",
	    b->cfg.session_id);
	r = json_pack("{s:[{s:s, s:s, s:s, s:s}]}", "resourceTemplates",
	    "uriTemplate", tmpl, "name", "artifact-lines", "description",
	    "Part of a command's full output: lines=A-B (1-based, "
	    "inclusive), or grep=TEXT (fixed string, case-insensitive) with "
	    "context=N lines around each match; every answer is capped and "
	    "says what it left out.",
	    "mimeType", "text/plain");
	if (r == NULL)
		fatalx("%s: json_pack", __func__);
	return r;
}

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Percent-decodes s in place; returns -1 on a bad escape or a NUL. */
static int
pct_decode(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++) {
		if (*s == '+')
			*o++ = ' ';
		else if (*s == '%') {
			int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);

			if (lo < 0 || (hi == 0 && lo == 0))
				return -1;
			*o++ = (char)(hi * 16 + lo);
			s += 2;
		} else
			*o++ = *s;
	}
	*o = '\0';
	return 0;
}

/* A decimal number of at most 9 digits, or -1. */
static int64_t
small_num(const char *s, const char **end)
{
	int64_t v = 0;
	int k = 0;

	while (*s >= '0' && *s <= '9' && k < 10) {
		v = v * 10 + (*s++ - '0');
		k++;
	}
	*end = s;
	return k == 0 || k > 9 ? -1 : v;
}

int
output_resources_read(struct broker *b, const json_t *params, json_t **result,
    char *err, size_t errlen)
{
	const char *arg = json_string_value(json_object_get(params, "uri"));
	struct excerpt_info info;
	char *uri, *q, *kv, *save = NULL, *data = NULL, *text, *grep = NULL;
	const char *e;
	int64_t start = 0, end = 0, ctx = EXCERPT_CONTEXT;
	json_t *terr = NULL;
	size_t len;
	int rc = JSONRPC_INVALID_PARAMS;

	*result = NULL;
	if (arg == NULL) {
		snprintf(err, errlen, "resources/read needs params.uri");
		return JSONRPC_INVALID_PARAMS;
	}
	uri = xstrdup(arg);
	if ((q = strchr(uri, '?')) != NULL)
		*q++ = '\0';
	for (kv = q != NULL ? strtok_r(q, "&", &save) : NULL; kv != NULL;
	     kv = strtok_r(NULL, "&", &save)) {
		char *v = strchr(kv, '=');

		if (v == NULL || pct_decode(++v) != 0)
			goto badq;
		if (strncmp(kv, "lines=", 6) == 0) {
			if ((start = small_num(v, &e)) < 1)
				goto badq;
			if (*e == '-' && e[1] != '\0') {
				if ((end = small_num(e + 1, &e)) < 1)
					goto badq;
			} else if (*e == '-')
				e++;
			else
				end = start;
			if (*e != '\0')
				goto badq;
		} else if (strncmp(kv, "grep=", 5) == 0)
			grep = v;
		else if (strncmp(kv, "context=", 8) == 0) {
			if ((ctx = small_num(v, &e)) < 0 || *e != '\0')
				goto badq;
		} else
			goto badq;
	}
	if ((rc = artifact_read(b->artifacts, uri, &data, &len, err, errlen)) !=
	    0) {
		rc = JSONRPC_INVALID_PARAMS;
		goto done;
	}
	text = read_piece(b, uri, data, len, start, end, grep, ctx,
	    output_cap(b, NULL), &info, &terr);
	if (text == NULL) {
		snprintf(err, errlen, "%s",
		    json_string_value(json_object_get(terr, "message")));
		json_decref(terr);
		rc = JSONRPC_INVALID_PARAMS;
		goto done;
	}
	*result = json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", arg,
	    "mimeType", "text/plain", "text", text);
	free(text);
	if (*result == NULL)
		fatalx("%s: json_pack", __func__);
	if (redact_json(b->cfg.redact, *result) < 0)
		fatalx("%s: out of memory redacting", __func__);
	rc = 0;
	goto done;
badq:
	snprintf(err, errlen,
	    "bad query in the URI: use ?lines=A-B, "
	    "?grep=TEXT and &context=N");
	rc = JSONRPC_INVALID_PARAMS;
done:
	free(data);
	free(uri);
	return rc;
}
