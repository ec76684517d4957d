/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * output: the model-facing layer of results (issue 13).
 *
 * Shapes what a command, a file read or an artifact read returns so that
 * its text stays within the tool's cap (the tool's inlineChars, else the
 * manifest's output.inlineChars) without losing what explains a failure,
 * and serves this session's artifacts: MCP resources/list, resources/read
 * and resources/templates/list, and the read_output action.  Everything
 * it returns is redacted before it is cut.  Not for use outside broker/.
 */
#ifndef AIRLOCK_OUTPUT_H
#define AIRLOCK_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct broker;
struct call;
struct runner_result;
struct tool;

/* The cap of |t|'s text in bytes (its inlineChars, else the manifest's). */
size_t output_cap(const struct broker *b, const struct tool *t);

/*
 * A capture the runner's output cap cut (res->truncated), or of a command
 * killed (a timeout, a signal) while it wrote, may end in the first bytes
 * of a secret, which no redactor can recognise: each stream of such a
 * capture loses its last redact_longest() - 1 bytes, whatever they hold,
 * save a form that begins before them (redact_release()): dropped only
 * when it began like a secret, a tail the agent had a tool echo told it
 * whether its guess was the secret's beginning.  Called once, on the result as the runner
 * gave it, before anything reads it (artifact, jobs, excerpts).
 */
void output_settle_cut(const struct broker *b, struct runner_result *res);

/*
 * The result every command produces: exitCode, durationMs, timedOut,
 * signal, truncated, stdout, stderr and output (excerpts within the cap),
 * artifactUri and outputInfo {uri, bytes, lines, truncated, kept}, hint
 * (the sandbox's, when there is one) and "_text" (the excerpt, for the
 * second text block).  |uri| is the saved artifact, or "" when it was not
 * kept.  Returns a new object.
 */
json_t *output_command(struct broker *b, const struct tool *t,
    const struct runner_result *res, const char *uri);

/*
 * data[0..len) redacted and cut to |t|'s cap (head, failure lines when
 * |failed|, tail; the marker says |how| to read the rest, may be NULL).
 * Returns a new string.
 */
char *output_text(struct broker *b, const struct tool *t, const char *data,
    size_t len, int failed, const char *how);

/*
 * read_file's result for the file |rel|, the regular file |fd| of |size|
 * bytes (read here, at most |size| bytes; refused as binary_file unless
 * UTF-8 text without NUL): content (lines start..end, as
 * output_line_arg() reads them, when given, else the whole file; cut
 * with a marker to |limit|, or to |t|'s cap when |t| declares a range),
 * sha256 of the whole file, path, size, totalLines, startLine, endLine,
 * truncated.  The file is redacted whole before the lines are picked
 * and cut, so the lines are counted in the redacted text (a granted
 * secret of several lines is one).  Uses nothing of the call or the
 * loop: the lander runs it for a large file (broker/landjob.h).
 * Returns ACTION_DONE or ACTION_ERROR with *out set.
 */
int output_file(struct broker *b, const struct tool *t, int64_t start,
    int64_t end, const char *rel, int fd, size_t size, size_t limit,
    json_t **out);

/* An optional line number of |args|: 0 when absent, -1 when below 1. */
int64_t output_line_arg(const json_t *args, const char *name);

/* The read_output action (an action_fn). */
int output_act_read(struct call *c, json_t **out);

/* resources/list and resources/templates/list results (new objects). */
json_t *output_resources_list(struct broker *b);
json_t *output_resources_templates(struct broker *b);

/*
 * resources/read of params.uri (with the template's ?lines=A-B or
 * ?grep=TEXT).  Returns 0 with *result set (new), or a JSON-RPC error
 * code with err[0..errlen) set.
 */
int output_resources_read(struct broker *b, const json_t *params,
    json_t **result, char *err, size_t errlen);

#endif
