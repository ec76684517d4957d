/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Decoding untrusted frames into JSON-RPC messages: table-driven. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "broker/jsonrpc.h"

static const struct row {
	const char	*name;
	const char	*frame;
	size_t		 len;		/* 0: strlen */
	int		 want;		/* 0 or a JSON-RPC error code */
	int		 kind;		/* when want == 0 */
	int		 id_back;	/* an id is recovered for the error */
} rows[] = {
	{ "request", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 0,
	    0, JSONRPC_REQUEST, 1 },
	{ "string id", "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"x\"}", 0,
	    0, JSONRPC_REQUEST, 1 },
	{ "notification", "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}", 0, 0,
	    JSONRPC_NOTIFICATION, 0 },
	{ "response", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", 0, 0,
	    JSONRPC_RESPONSE, 1 },
	{ "params array", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\","
	    "\"params\":[1]}", 0, 0, JSONRPC_REQUEST, 1 },
	{ "invalid JSON", "{\"jsonrpc\":", 0, JSONRPC_PARSE_ERROR, 0, 0 },
	{ "invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", 0,
	    JSONRPC_PARSE_ERROR, 0, 0 },
	{ "overlong UTF-8", "{\"a\":\"\xc0\xaf\"}", 0, JSONRPC_PARSE_ERROR,
	    0, 0 },
	{ "escaped NUL", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\\u0000\"}",
	    0, JSONRPC_PARSE_ERROR, 0, 0 },
	{ "duplicate key", "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,"
	    "\"method\":\"m\"}", 0, JSONRPC_PARSE_ERROR, 0, 0 },
	{ "scalar", "42", 0, JSONRPC_INVALID_REQUEST, 0, 0 },
	{ "batch", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}]", 0,
	    JSONRPC_INVALID_REQUEST, 0, 0 },
	{ "wrong version", "{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"m\"}", 0,
	    JSONRPC_INVALID_REQUEST, 0, 1 },
	{ "null id", "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"m\"}", 0,
	    JSONRPC_INVALID_REQUEST, 0, 0 },
	{ "real id", "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"m\"}", 0,
	    JSONRPC_INVALID_REQUEST, 0, 0 },
	/* Beyond 2^53-1, jq and JavaScript round it: two calls read as one. */
	{ "id 2^53-1", "{\"jsonrpc\":\"2.0\",\"id\":9007199254740991,"
	    "\"method\":\"m\"}", 0, 0, JSONRPC_REQUEST, 1 },
	{ "id -(2^53-1)", "{\"jsonrpc\":\"2.0\",\"id\":-9007199254740991,"
	    "\"method\":\"m\"}", 0, 0, JSONRPC_REQUEST, 1 },
	{ "id 2^53", "{\"jsonrpc\":\"2.0\",\"id\":9007199254740992,"
	    "\"method\":\"m\"}", 0, JSONRPC_INVALID_REQUEST, 0, 0 },
	{ "id -2^53", "{\"jsonrpc\":\"2.0\",\"id\":-9007199254740992,"
	    "\"method\":\"m\"}", 0, JSONRPC_INVALID_REQUEST, 0, 0 },
	{ "id 2^63-1", "{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,"
	    "\"method\":\"m\"}", 0, JSONRPC_INVALID_REQUEST, 0, 0 },
	{ "empty method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", 0,
	    JSONRPC_INVALID_REQUEST, 0, 1 },
	{ "method not a string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":3}",
	    0, JSONRPC_INVALID_REQUEST, 0, 1 },
	{ "scalar params", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\","
	    "\"params\":5}", 0, JSONRPC_INVALID_REQUEST, 0, 1 },
	{ "no method, no result", "{\"jsonrpc\":\"2.0\",\"id\":1}", 0,
	    JSONRPC_INVALID_REQUEST, 0, 1 },
};

START_TEST(test_jsonrpc_decode_table)
{
	const struct row	*r = &rows[_i];
	struct jsonrpc_msg	 msg;
	json_t			*id;
	char			 err[256];
	int			 rc;

	rc = jsonrpc_decode(r->frame, r->len ? r->len : strlen(r->frame),
	    &msg, &id, err, sizeof(err));
	ck_assert_msg(rc == r->want, "%s: got %d (%s), want %d", r->name, rc,
	    err, r->want);
	if (rc == 0) {
		ck_assert_msg((int)msg.kind == r->kind, "%s: kind", r->name);
		jsonrpc_msg_clear(&msg);
	} else
		ck_assert_msg(err[0] != '\0', "%s: no message", r->name);
	ck_assert_msg((id != NULL) == r->id_back, "%s: id recovery", r->name);
	json_decref(id);
}
END_TEST

/* Depth is measured before the parser runs; strings do not count. */
START_TEST(test_jsonrpc_depth_limit)
{
	char		 deep[1024], quoted[1024];
	struct jsonrpc_msg msg;
	json_t		*id;
	char		 err[128];
	size_t		 i, n = 0;

	for (i = 0; i < JSONRPC_MAX_DEPTH + 1; i++)
		deep[n++] = '[';
	for (i = 0; i < JSONRPC_MAX_DEPTH + 1; i++)
		deep[n++] = ']';
	deep[n] = '\0';
	ck_assert_int_eq(jsonrpc_decode(deep, n, &msg, &id, err, sizeof(err)),
	    JSONRPC_PARSE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "deep"));
	n = (size_t)snprintf(quoted, sizeof(quoted),
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"}",
	    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[");
	ck_assert_int_eq(jsonrpc_decode(quoted, n, &msg, &id, err,
	    sizeof(err)), 0);
	jsonrpc_msg_clear(&msg);
	json_decref(id);
}
END_TEST

START_TEST(test_jsonrpc_encoders_end_in_newline)
{
	json_t	*id = json_integer(3), *r = json_object();
	char	*a = jsonrpc_encode_result(id, r);
	char	*b = jsonrpc_encode_error(NULL, -32600, "bad", NULL);

	ck_assert_str_eq(a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n");
	ck_assert_str_eq(b, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":"
	    "{\"code\":-32600,\"message\":\"bad\"}}\n");
	free(a);
	free(b);
	json_decref(id);
	json_decref(r);
}
END_TEST

/* A message quoting the agent cut inside a character ("unknown tool:
 * %.128s") is still an error reply: NULL stopped the broker. */
START_TEST(test_jsonrpc_error_message_cut_in_a_character)
{
	char *b = jsonrpc_encode_error(
	    NULL, -32602, "unknown tool: x\xc3\xa9\xc3", NULL);

	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(b, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":"
	    "{\"code\":-32602,\"message\":"
	    "\"unknown tool: x\xc3\xa9\xef\xbf\xbd\"}}\n");
	free(b);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("jsonrpc");
	TCase	*tc = tcase_create("decode");
	SRunner	*sr;
	int	 failed;

	tcase_add_loop_test(tc, test_jsonrpc_decode_table, 0,
	    sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, test_jsonrpc_depth_limit);
	tcase_add_test(tc, test_jsonrpc_encoders_end_in_newline);
	tcase_add_test(tc, test_jsonrpc_error_message_cut_in_a_character);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
