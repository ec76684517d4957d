/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/jsonout.h"
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

/* 2^53 - 1: the largest integer every JSON reader holds exactly. */
#define ID_SAFE_MAX 9007199254740991LL

static int
id_valid(const json_t *id)
{
	/*
	 * MCP: a string or an integer; never null.  An integer beyond
	 * +-(2^53 - 1) is refused: the audit log signs it exactly, but jq
	 * and JavaScript, where a reviewer reads the log, round it, and two
	 * calls, 2^53 and 2^53 + 1, read as one.
	 */
	if (json_is_integer(id))
		return json_integer_value(id) >= -ID_SAFE_MAX &&
		    json_integer_value(id) <= ID_SAFE_MAX;
	return json_is_string(id);
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
		    "\"id\" must be a string or an integer from "
		    "-(2^53-1) to 2^53-1 (beyond, JSON readers round it)");
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

/*
 * {"jsonrpc":"2.0"[,"id":ID][,"method":METHOD],KEY:VALUE}\n as jansson's
 * compact dump of the same object would write it; |obj| alone (KEY "")
 * writes obj itself.  Returns the line, or NULL.
 */
static char *
encode_msg(json_t *id, const char *method, const char *key, json_t *value)
{
	struct jsonout o;

	jsonout_init(&o, 256);
	if (key[0] == '\0') {
		if (jsonout_value(&o, value) != 0)
			goto fail;
	} else {
		jsonout_lit(&o, "{\"jsonrpc\":\"2.0\"");
		if (id != NULL) {
			jsonout_lit(&o, ",\"id\":");
			if (jsonout_value(&o, id) != 0)
				goto fail;
		}
		if (method != NULL) {
			jsonout_lit(&o, ",\"method\":");
			jsonout_string(&o, method, strlen(method));
		}
		jsonout_lit(&o, ",\"");
		jsonout_lit(&o, key);
		jsonout_lit(&o, "\":");
		if (value == NULL || jsonout_value(&o, value) != 0)
			goto fail;
		jsonout_lit(&o, "}");
	}
	jsonout_lit(&o, "\n");
	return jsonout_take(&o);
fail:
	jsonout_free(&o);
	return NULL;
}

static char *
encode_line(json_t *obj)
{
	char *line;

	if (obj == NULL)
		return NULL;
	line = encode_msg(NULL, NULL, "", obj);
	json_decref(obj);
	return line;
}

char *
jsonrpc_encode_result(json_t *id, json_t *result)
{
	return encode_msg(id != NULL ? id : json_null(), NULL, "result",
	    result);
}

char *
jsonrpc_encode_tool_result(json_t *id, const char *structured, size_t len,
    int is_error, json_t *const *extra, size_t nextra)
{
	struct jsonout	o;
	size_t		i;

	jsonout_init(&o, 2 * len + 160);
	jsonout_lit(&o, "{\"jsonrpc\":\"2.0\",\"id\":");
	if (jsonout_value(&o, id != NULL ? id : json_null()) != 0)
		goto fail;
	jsonout_lit(&o, ",\"result\":{\"content\":[{\"type\":\"text\","
	    "\"text\":");
	jsonout_string(&o, structured, len);
	jsonout_lit(&o, "}");
	for (i = 0; i < nextra; i++) {
		if (!json_is_string(extra[i]))
			goto fail;
		jsonout_lit(&o, ",{\"type\":\"text\",\"text\":");
		jsonout_value(&o, extra[i]);
		jsonout_lit(&o, "}");
	}
	if (is_error)
		jsonout_lit(&o, "],\"isError\":true}}\n");
	else {
		jsonout_lit(&o, "],\"isError\":false,\"structuredContent\":");
		jsonout_raw(&o, structured, len);
		jsonout_lit(&o, "}}\n");
	}
	return jsonout_take(&o);
fail:
	jsonout_free(&o);
	return NULL;
}

char *
jsonrpc_encode_error(json_t *id, int code, const char *message, json_t *data)
{
	json_t *e;
	char *clean;

	/*
	 * A message quotes the agent's bytes cut at a bound ("unknown
	 * tool: %.128s", a 512-byte buffer): a character cut in two is not
	 * UTF-8, json_pack() failed, and conn_send() stopped the broker on
	 * one call with a long name of accented letters.  U+FFFD for it.
	 */
	clean = utf8_sanitize(message, strlen(message));
	e = json_pack("{s:i, s:s}", "code", code, "message", clean);
	free(clean);
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
	return encode_msg(NULL, method, "params", params);
}

int
jsonrpc_id_equal(const json_t *a, const json_t *b)
{
	return a != NULL && b != NULL && json_equal((json_t *)a, (json_t *)b);
}
