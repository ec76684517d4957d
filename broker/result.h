/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * result: a tools/call's reply, shaped from what its action produced, for
 * the call lifecycle in call.c (call_complete(), call_answer_early()),
 * which audits the result and then sends the line, or withholds it.
 */
#ifndef AIRLOCK_RESULT_H
#define AIRLOCK_RESULT_H

#include <stddef.h>

#include <jansson.h>

struct call;

/* A shaped result: what result_shape() gives the lifecycle. */
struct result_shaped {
	char		*line;		/* the JSON-RPC reply (free it) */
	json_t		*structured;	/* the result object (decref it) */
	int		 is_error;
	const char	*eclass;	/* its errorClass, in structured; or NULL */
};

/*
 * Shapes the result of call |c|, which ended with |status| (ACTION_DONE or
 * an error) and |out| (taken: the action's output object, or the error
 * object).  A done call's output is projected onto the tool's declared
 * output fields and checked against them (one that does not fit becomes
 * a contract_violation error: it is never passed on); the sandbox's hint
 * is kept.  What the sandbox refused is annotated, what a granted secret
 * looks like is redacted, the call is traced, and the reply is encoded
 * once, or through result_line() when a retry may replay it or a tail is
 * pending.  An error's body is text only: clients that check
 * structuredContent against the tool's outputSchema would replace
 * airlock's refusal with a schema error.
 */
void	result_shape(struct call *c, int status, json_t *out,
	    struct result_shaped *r);

/*
 * The reply line of a result built as a json_t: the text block |text|,
 * isError, structuredContent |structured| (borrowed; not for an error),
 * then the text blocks |extra| (strings, borrowed).  It is remembered for
 * retries (call_remember()), and what happened meanwhile (file watches,
 * jobs) goes at the tail of this answer only.  Returns the line (free it).
 */
char	*result_line(struct call *c, const char *text, int is_error,
	    json_t *structured, json_t *const *extra, size_t nextra);

#endif
