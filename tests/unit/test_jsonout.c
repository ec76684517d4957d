/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * broker/jsonout.c writes what jansson's json_dumps(JSON_COMPACT) writes:
 * checked against jansson itself for every byte value, every UTF-8
 * length, random trees, and the fixed-shape tools/call reply against the
 * same result built as a json_t.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "broker/jsonout.h"
#include "broker/jsonrpc.h"

/* jsonout_dumps(v) == json_dumps(v, COMPACT | ENCODE_ANY), byte for byte. */
static void
same(const json_t *v)
{
	char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	char *got = jsonout_dumps(v);

	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
}

START_TEST(every_ascii_byte)
{
	char s[3];
	int c;

	/* Alone and between letters: each byte 0x00..0x7f. */
	for (c = 0; c < 0x80; c++) {
		json_t *v;

		s[0] = 'a';
		s[1] = (char)c;
		s[2] = 'b';
		v = json_stringn(s, 3);
		ck_assert_ptr_nonnull(v);
		same(v);
		json_decref(v);
		v = json_stringn(s + 1, 1);
		same(v);
		json_decref(v);
	}
}
END_TEST

/* Encodes code point |cp| as UTF-8 into out; returns the length. */
static size_t
utf8(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

START_TEST(every_lead_byte)
{
	/*
	 * Every byte value 0x80..0xff appears: as a continuation byte of
	 * some sequence and as the lead of every valid 2-, 3- and 4-byte
	 * sequence (U+0080..U+10FFFF in steps that hit each lead byte),
	 * including U+2028/U+2029 and U+FFFF, which jansson copies as is.
	 */
	static const uint32_t fixed[] = { 0x80, 0x7ff, 0x800, 0x2028, 0x2029,
		0xd7ff, 0xe000, 0xfeff, 0xfffd, 0xffff, 0x10000, 0x10ffff };
	char buf[64];
	uint32_t cp;
	size_t i, n;
	json_t *v;

	for (cp = 0x80; cp <= 0x10ffff; cp += (cp < 0x800 ? 1 : 61)) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		n = utf8(cp, buf + 1);
		buf[0] = '"';
		buf[n + 1] = '\n';
		v = json_stringn(buf, n + 2);
		ck_assert_msg(v != NULL, "U+%04X", cp);
		same(v);
		json_decref(v);
	}
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		n = utf8(fixed[i], buf);
		v = json_stringn(buf, n);
		ck_assert_ptr_nonnull(v);
		same(v);
		json_decref(v);
	}
}
END_TEST

START_TEST(scalars_and_keys)
{
	json_t *v;

	v = json_pack("{s:I, s:I, s:I, s:b, s:b, s:n, s:[], s:{}, s:f, s:f}",
	    "zero", (json_int_t)0, "min", (json_int_t)INT64_MIN, "max",
	    (json_int_t)INT64_MAX, "t", 1, "f", 0, "null", "ea", "eo", "real",
	    0.1, "big", 1e300);
	ck_assert_ptr_nonnull(v);
	/* A key needing escapes, and one with a NUL inside. */
	json_object_set_new(v, "k\"\\\x01\n", json_string("v"));
	json_object_setn_new(v, "a\0b", 3, json_integer(7));
	same(v);
	json_decref(v);
	v = json_integer(-42);
	same(v);
	json_decref(v);
	v = json_null();
	same(v);
}
END_TEST

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static json_t *
random_value(int depth)
{
	char s[64];
	size_t n = 0, len;
	json_t *v;
	uint32_t i, k;

	switch (depth > 5 ? 2 + rnd(4) : rnd(6)) {
	case 0:
		v = json_object();
		for (i = rnd(6); i > 0; i--) {
			snprintf(s, sizeof(s), "k%u\t%u", rnd(100), i);
			json_object_set_new(v, s, random_value(depth + 1));
		}
		return v;
	case 1:
		v = json_array();
		for (i = rnd(6); i > 0; i--)
			json_array_append_new(v, random_value(depth + 1));
		return v;
	case 2:
		len = rnd(12);
		for (k = 0; k < len; k++) {
			uint32_t cp =
			    rnd(4) == 0 ? 0x80 + rnd(0x10ff7f) : rnd(0x80);

			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = '\\';
			n += utf8(cp, s + n);
		}
		return json_stringn(s, n);
	case 3:
		return json_integer((json_int_t)rnd(UINT32_MAX) - INT32_MAX);
	case 4:
		return json_boolean(rnd(2));
	default:
		return json_null();
	}
}

START_TEST(random_trees)
{
	int i;

	for (i = 0; i < 2000; i++) {
		json_t *v = random_value(0);

		ck_assert_ptr_nonnull(v);
		same(v);
		json_decref(v);
	}
}
END_TEST

START_TEST(cycle_refused)
{
	json_t *a = json_array(), *b = json_array();
	struct jsonout o;

	json_array_append(a, b);
	json_array_append(b, a);
	jsonout_init(&o, 16);
	jsonout_lit(&o, "x");
	ck_assert_int_eq(jsonout_value(&o, a), -1);
	ck_assert_str_eq(o.p, "x"); /* left as it was */
	jsonout_free(&o);
	json_array_clear(b);
	json_decref(a);
	json_decref(b);
}
END_TEST

/* The fixed-shape reply equals jsonrpc_encode_result() of the json_t. */
static void
same_reply(json_t *id, json_t *structured, int is_error, json_t *extra)
{
	char *text = json_dumps(structured, JSON_COMPACT);
	json_t *result, *ex[1] = { extra };
	char *want, *got;

	result = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text",
	    "text", text, "isError", is_error);
	if (!is_error)
		json_object_set(result, "structuredContent", structured);
	if (extra != NULL)
		json_array_append_new(json_object_get(result, "content"),
		    json_pack("{s:s, s:O}", "type", "text", "text", extra));
	want = jsonrpc_encode_result(id, result);
	got = jsonrpc_encode_tool_result(
	    id, text, strlen(text), is_error, ex, extra != NULL);
	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	/* And it is what jansson itself dumps. */
	{
		json_t *msg = json_pack("{s:s, s:O, s:O}", "jsonrpc", "2.0",
		    "id", id, "result", result);
		char *dump = json_dumps(msg, JSON_COMPACT);

		ck_assert_int_eq(strncmp(got, dump, strlen(dump)), 0);
		ck_assert_str_eq(got + strlen(dump), "\n");
		free(dump);
		json_decref(msg);
	}
	free(want);
	free(got);
	free(text);
	json_decref(result);
}

START_TEST(tool_result_shape)
{
	json_t *id = json_integer(17), *sid = json_string("a\"b");
	json_t *s = json_pack("{s:s, s:s, s:I, s:b}", "content",
	    "line \"one\"\n\ttwo \\ \x01 \xc3\xa9\xe2\x80\xa8", "sha256",
	    "00ff", "size", (json_int_t)4096, "truncated", 0);
	json_t *x = json_string("excerpt\n\x7f");

	same_reply(id, s, 0, NULL);
	same_reply(sid, s, 0, x);
	same_reply(id, s, 1, NULL);
	same_reply(json_null(), s, 1, x);
	json_decref(id);
	json_decref(sid);
	json_decref(s);
	json_decref(x);
}
END_TEST

START_TEST(notification_and_error)
{
	json_t *p = json_pack("{s:s, s:i}", "level", "info", "n", 3);
	json_t *msg = json_pack("{s:s, s:s, s:O}", "jsonrpc", "2.0", "method",
	    "notifications/message", "params", p);
	char *want = json_dumps(msg, JSON_COMPACT), *got;

	got = jsonrpc_encode_notification("notifications/message", p);
	ck_assert_int_eq(strncmp(got, want, strlen(want)), 0);
	ck_assert_str_eq(got + strlen(want), "\n");
	free(got);
	free(want);
	json_decref(msg);
	ck_assert_ptr_null(jsonrpc_encode_result(NULL, NULL));
	json_decref(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("jsonout");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, every_ascii_byte);
	tcase_add_test(tc, every_lead_byte);
	tcase_add_test(tc, scalars_and_keys);
	tcase_add_test(tc, random_trees);
	tcase_add_test(tc, cycle_refused);
	tcase_add_test(tc, tool_result_shape);
	tcase_add_test(tc, notification_and_error);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
