/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * result: a tools/call's reply, shaped from what its action produced
 * (result.h).  broker.c keeps the call's lifecycle: it audits the result,
 * then sends or withholds the line made here.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "broker/broker_int.h"
#include "broker/escalate.h"
#include "broker/fwatch.h"
#include "broker/jobs.h"
#include "broker/jsonout.h"
#include "broker/jsonrpc.h"
#include "broker/redact.h"
#include "broker/result.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "policy/types.h"

/*
 * Keeps only the tool's declared output fields of |full| and validates
 * them.  Returns the projected object, or NULL with err set: a result
 * that does not fit its contract is never passed on.
 */
static json_t *
project_output(struct call *c, json_t *full, char *err, size_t errlen)
{
	const struct tool	*t = c->tool;
	json_t			*out;
	size_t			 i;

	if ((out = json_object()) == NULL)
		fatalx("json_object");
	for (i = 0; i < t->noutput; i++) {
		json_t *v = json_object_get(full, t->output[i].name);

		if (v != NULL)
			json_object_set(out, t->output[i].name, v);
	}
	if (type_validate_fields(t->output, t->noutput, out,
	    manifest_check_exists, (void *)c->b->m, err, errlen) != 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/*
 * The reply line of a result that is remembered for a retry (the ledger
 * keeps a json_t) or that takes what happened meanwhile at its tail: the
 * result built as a json_t, remembered, then the tail added to a copy.
 */
char *
result_line(struct call *c, const char *text, int is_error,
    json_t *structured, json_t *const *extra, size_t nextra)
{
	struct broker	*b = c->b;
	json_t		*result, *sent;
	char		*line;
	size_t		 i;

	result = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text",
	    "text", text, "isError", is_error);
	if (result == NULL)
		fatalx("json_pack");
	if (!is_error)
		json_object_set(result, "structuredContent", structured);
	for (i = 0; i < nextra; i++)
		json_array_append_new(json_object_get(result, "content"),
		    json_pack("{s:s, s:O}", "type", "text", "text", extra[i]));
	call_remember(c, result);
	/*
	 * Late injection, after the ledger kept the result (a replay does
	 * not repeat it): what happened meanwhile goes at the tail.
	 */
	if ((sent = json_deep_copy(result)) == NULL)
		fatalx("json_deep_copy");
	json_decref(result);
	fwatch_tail(b->fwatch, sent, is_error ? NULL :
	    json_object_get(sent, "structuredContent"));
	jobs_tail(b->jobs, sent, is_error ? NULL :
	    json_object_get(sent, "structuredContent"));
	line = jsonrpc_encode_result(c->id, sent);
	json_decref(sent);
	return line;
}


void
result_shape(struct call *c, int status, json_t *out, struct result_shaped *r)
{
	struct broker	*b = c->b;
	json_t		*structured, *text_extra = NULL, *note, **extra;
	json_t		*gate_note = NULL;
	char		*text, *line, err[512];
	const char	*eclass = NULL;
	size_t		 nextra;
	int		 is_error = status != ACTION_DONE;

	if (!is_error) {
		json_t *hint = json_object_get(out, "hint");
		json_t *dropped = json_object_get(out, "modesDropped");

		text_extra = json_object_get(out, "_text");
		if (text_extra != NULL)
			json_incref(text_extra);
		/* Why a check's result counts toward no gate (runcall.c). */
		gate_note = json_object_get(out, "_note");
		if (gate_note != NULL)
			json_incref(gate_note);
		structured = project_output(c, out, err, sizeof(err));
		/* The sandbox's hint reaches the model in every form, and so
		 * do the mode bits of a run's set that did not land. */
		if (structured != NULL && json_is_string(hint))
			json_object_set(structured, "hint", hint);
		if (structured != NULL && json_is_array(dropped))
			json_object_set(structured, "modesDropped", dropped);
		json_decref(out);
		if (structured == NULL) {
			log_warnx("tool %s: result does not fit its contract: %s",
			    c->tool->name, err);
			structured = tool_error("contract_violation", 0, NULL,
			    "the result of %s does not fit its declared output: %s",
			    c->tool->name, err);
			is_error = 1;
		}
	} else
		structured = out;
	/* What the sandbox refused: callId and the denied list. */
	escalate_annotate(c, structured);
	/* Nothing a granted secret looks like leaves the broker. */
	if (b->cfg.redact != NULL) {
		if (redact_json(b->cfg.redact, structured) < 0 ||
		    (text_extra != NULL &&
		    redact_json(b->cfg.redact, text_extra) < 0) ||
		    (gate_note != NULL &&
		    redact_json(b->cfg.redact, gate_note) < 0))
			fatalx("out of memory redacting a result");
	}
	if (is_error)
		eclass = json_string_value(json_object_get(structured,
		    "errorClass"));
	if (is_error && !c->ran &&
	    json_is_true(json_object_get(structured, "retryable")))
		c->idem_forget = 1;

	/*
	 * An error body is text only: structuredContent must fit the tool's
	 * outputSchema, and MCP clients that check it (the TypeScript SDK:
	 * Gemini CLI, opencode) would replace airlock's refusal with a
	 * schema error.  The text is the same JSON object.
	 */
	text = jsonout_dumps(structured);
	if (text == NULL)
		fatalx("out of memory encoding a result");
	/* Text blocks after the first: what the sandbox refused, why a
	 * check's result counts toward no gate, the excerpt, then voided
	 * approvals. */
	if (!json_is_string(text_extra) || (!is_error &&
	    json_object_get(structured, "output") != NULL)) {
		json_decref(text_extra);
		text_extra = NULL;
	}
	/* What the sandbox refused, right after the result itself. */
	note = escalate_note(c);
	if (!json_is_string(gate_note)) {
		json_decref(gate_note);
		gate_note = NULL;
	}
	nextra = (note != NULL) + (gate_note != NULL) + (text_extra != NULL) +
	    json_array_size(c->voided);
	extra = xcalloc(nextra + 1, sizeof(*extra));
	nextra = 0;
	if (note != NULL)
		extra[nextra++] = note;
	if (gate_note != NULL)
		extra[nextra++] = gate_note;
	if (text_extra != NULL)
		extra[nextra++] = text_extra;
	if (c->voided != NULL) {
		json_t	*v;
		size_t	 i;

		json_array_foreach(c->voided, i, v) {
			extra[nextra++] = v;
		}
	}
	broker_trace(b, c, is_error ? (eclass != NULL ? eclass : "error") :
	    "ok", c->note[0] != '\0' ? c->note : NULL);
	/*
	 * The common case, nothing to remember for a retry and nothing to
	 * add at the tail: the reply is written from |text| directly, the
	 * structured JSON encoded once (broker/jsonout.h).
	 */
	if (c->idem_key == NULL && !fwatch_pending(b->fwatch) &&
	    !jobs_pending(b->jobs))
		line = jsonrpc_encode_tool_result(c->id, text, strlen(text),
		    is_error, extra, nextra);
	else
		line = result_line(c, text, is_error, structured, extra,
		    nextra);
	free(text);
	free(extra);
	json_decref(text_extra);
	json_decref(gate_note);
	json_decref(note);
	r->line = line;
	r->structured = structured;
	r->is_error = is_error;
	r->eclass = eclass;
}
