/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/jsonrpc.h"
#include "common/util.h"

/*
 * Measures bracket nesting outside strings so that a deeply nested frame
 * is refused before jansson recurses into it.  Returns the maximum depth.
 */
static size_t
json_text_depth(const char *s, size_t len, size_t stop_at)
{
	size_t i, depth = 0, max = 0;
	int in_string = 0;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = 0;
			continue;
		}
		switch (c) {
		case '"':
			in_string = 1;
			break;
		case '[':
		case '{':
			if (++depth > max)
				max = depth;
			if (max > stop_at)
				return max;
			break;
		case ']':
		case '}':
			if (depth > 0)
				depth--;
			break;
		}
	}
	return max;
}

static int
fail(char *err, size_t errlen, int code, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return code;
}

static int
id_valid(const json_t *id)
{
	/* MCP: a string or an integer; never null. */
	return json_is_string(id) || json_is_integer(id);
}

int
jsonrpc_decode(const char *frame, size_t len, struct jsonrpc_msg *msg,
    json_t **id_out, char *err, size_t errlen)
{
	json_error_t	 jerr;
	json_t		*root, *v, *id;

	memset(msg, 0, sizeof(*msg));
	*id_out = NULL;
	if (err != NULL && errlen > 0)
		err[0] = '\0';

	if (!utf8_valid(frame, len))
		return fail(err, errlen, JSONRPC_PARSE_ERROR,
		    "frame is not valid UTF-8");
	if (json_text_depth(frame, len, JSONRPC_MAX_DEPTH) > JSONRPC_MAX_DEPTH)
		return fail(err, errlen, JSONRPC_PARSE_ERROR,
		    "JSON nested too deeply");
	root = json_loadb(frame, len,
	    JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (root == NULL) {
		snprintf(err, errlen, "invalid JSON at column %d: %s",
		    jerr.column, jerr.text);
		return JSONRPC_PARSE_ERROR;
	}
	if (json_is_array(root)) {
		json_decref(root);
		return fail(err, errlen, JSONRPC_INVALID_REQUEST,
		    "batches are not supported");
	}
	if (!json_is_object(root)) {
		json_decref(root);
		return fail(err, errlen, JSONRPC_INVALID_REQUEST,
		    "message must be a JSON object");
	}
	id = json_object_get(root, "id");
	if (id != NULL && id_valid(id))
		*id_out = json_incref(id);
	v = json_object_get(root, "jsonrpc");
	if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0) {
		json_decref(root);
		return fail(err, errlen, JSONRPC_INVALID_REQUEST,
		    "\"jsonrpc\" must be \"2.0\"");
	}
	if (id != NULL && !id_valid(id)) {
		json_decref(root);
		return fail(err, errlen, JSONRPC_INVALID_REQUEST,
		    "\"id\" must be a string or an integer");
	}
	msg->root = root;
	msg->id = id;
	v = json_object_get(root, "method");
	if (v == NULL) {
		if (id == NULL || (json_object_get(root, "result") == NULL &&
		    json_object_get(root, "error") == NULL)) {
			jsonrpc_msg_clear(msg);
			return fail(err, errlen, JSONRPC_INVALID_REQUEST,
			    "\"method\" is missing");
		}
		msg->kind = JSONRPC_RESPONSE;
		return 0;
	}
	if (!json_is_string(v) || json_string_length(v) == 0) {
		jsonrpc_msg_clear(msg);
		return fail(err, errlen, JSONRPC_INVALID_REQUEST,
		    "\"method\" must be a non-empty string");
	}
	msg->method = json_string_value(v);
	msg->kind = id != NULL ? JSONRPC_REQUEST : JSONRPC_NOTIFICATION;
	v = json_object_get(root, "params");
	if (v != NULL && !json_is_object(v) && !json_is_array(v)) {
		jsonrpc_msg_clear(msg);
		return fail(err, errlen, JSONRPC_INVALID_REQUEST,
		    "\"params\" must be an object or an array");
	}
	msg->params = v;
	return 0;
}

void
jsonrpc_msg_clear(struct jsonrpc_msg *msg)
{
	json_decref(msg->root);
	memset(msg, 0, sizeof(*msg));
}

static char *
encode_line(json_t *obj)
{
	char *s, *line;
	size_t n;

	s = json_dumps(obj, JSON_COMPACT);
	json_decref(obj);
	if (s == NULL)
		return NULL;
	n = strlen(s);
	if ((line = realloc(s, n + 2)) == NULL) {
		free(s);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	return line;
}

char *
jsonrpc_encode_result(json_t *id, json_t *result)
{
	return encode_line(json_pack("{s:s, s:O, s:O}", "jsonrpc", "2.0",
	    "id", id != NULL ? id : json_null(), "result", result));
}

char *
jsonrpc_encode_error(json_t *id, int code, const char *message, json_t *data)
{
	json_t *e;

	e = json_pack("{s:i, s:s}", "code", code, "message", message);
	if (e == NULL)
		return NULL;
	if (data != NULL)
		json_object_set(e, "data", data);
	return encode_line(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0",
	    "id", id != NULL ? id : json_null(), "error", e));
}

char *
jsonrpc_encode_notification(const char *method, json_t *params)
{
	return encode_line(json_pack("{s:s, s:s, s:O}", "jsonrpc", "2.0",
	    "method", method, "params", params));
}

int
jsonrpc_id_equal(const json_t *a, const json_t *b)
{
	return a != NULL && b != NULL && json_equal((json_t *)a, (json_t *)b);
}
