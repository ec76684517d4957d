/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* The excerpt rules (broker/excerpt.c): what of a long output is inline. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/excerpt.h"
#include "common/util.h"

#define URI "airlock://s1/artifacts/0001-big.log"

/* |n| numbered lines; |bad| (1-based, 0: none) say "error: LINE N". */
static char *
numbered(size_t n, size_t bad1, size_t bad2, size_t *len)
{
	char *s = xcalloc(n, 64), *p = s;
	size_t i;

	for (i = 1; i <= n; i++)
		p += sprintf(p,
		    i == bad1 || i == bad2 ? "error: broken at line %zu\n"
					   : "compiling unit %zu ok\n",
		    i);
	*len = (size_t)(p - s);
	return s;
}

static struct excerpt_opts
opts(size_t cap, int failed)
{
	struct excerpt_opts o;

	memset(&o, 0, sizeof(o));
	o.cap = cap;
	o.failed = failed;
	o.context = EXCERPT_CONTEXT;
	o.uri = URI;
	o.how = "read it with read_output";
	return o;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay++;
	}
	return n;
}

START_TEST(test_excerpt_short_output_is_whole)
{
	struct excerpt_opts o = opts(10000, 1);
	struct excerpt_info info;
	char *e = excerpt_make("one\ntwo\n", 8, &o, &info);

	ck_assert_str_eq(e, "one\ntwo\n");
	ck_assert_int_eq(info.truncated, 0);
	ck_assert_uint_eq(info.lines, 2);
	ck_assert_uint_eq(info.bytes, 8);
	free(e);
}
END_TEST

START_TEST(test_excerpt_long_output_fits_cap_with_one_marker)
{
	struct excerpt_opts o = opts(10000, 0);
	struct excerpt_info info;
	size_t len;
	char *in = numbered(50000, 0, 0, &len);
	char *e = excerpt_make(in, len, &o, &info);

	ck_assert_uint_le(strlen(e), 10000);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_uint_eq(info.lines, 50000);
	ck_assert_uint_eq(count(e, "lines ("), 1);
	ck_assert_ptr_nonnull(strstr(e, URI));
	ck_assert_ptr_nonnull(strstr(e, "read it with read_output"));
	/* Head and tail both. */
	ck_assert_ptr_nonnull(strstr(e, "compiling unit 1 ok\n"));
	ck_assert_ptr_nonnull(strstr(e, "compiling unit 50000 ok\n"));
	ck_assert_ptr_nonnull(strstr(e, ", the end]"));
	free(e);
	free(in);
}
END_TEST

START_TEST(test_excerpt_failure_keeps_error_lines_from_the_middle)
{
	struct excerpt_opts o = opts(10000, 1);
	struct excerpt_info info;
	size_t len;
	char *in = numbered(50000, 10, 25000, &len);
	char *e = excerpt_make(in, len, &o, &info);

	ck_assert_uint_le(strlen(e), 10000);
	ck_assert_ptr_nonnull(strstr(e, "error: broken at line 10\n"));
	ck_assert_ptr_nonnull(strstr(e, "error: broken at line 25000\n"));
	/* Its context, and a label naming the region. */
	ck_assert_ptr_nonnull(strstr(e, "compiling unit 24998 ok\n"));
	ck_assert_ptr_nonnull(strstr(e, "compiling unit 25002 ok\n"));
	ck_assert_ptr_null(strstr(e, "compiling unit 25003 ok\n"));
	ck_assert_ptr_nonnull(strstr(e,
	    "[airlock: lines 24998-25002 of 50000, around a "
	    "failure line]\n"));
	ck_assert_uint_eq(info.matches, 2);
	free(e);
	free(in);
}
END_TEST

START_TEST(test_excerpt_success_does_not_hunt_for_errors)
{
	struct excerpt_opts o = opts(10000, 0);
	size_t len;
	char *in = numbered(50000, 10, 25000, &len);
	char *e = excerpt_make(in, len, &o, NULL);

	ck_assert_ptr_null(strstr(e, "line 25000"));
	free(e);
	free(in);
}
END_TEST

START_TEST(test_excerpt_patterns_are_case_insensitive_and_configurable)
{
	const char *const pats[] = { "segfault", NULL };
	struct excerpt_opts o = opts(5000, 1);
	size_t len;
	char *in = numbered(20000, 0, 0, &len);
	char *e;

	memcpy(strstr(in, "compiling unit 9000 ok"), "SEGFAULT!", 9);
	o.patterns = pats;
	e = excerpt_make(in, len, &o, NULL);
	ck_assert_ptr_nonnull(strstr(e, "SEGFAULT!"));
	ck_assert_uint_le(strlen(e), 5000);
	free(e);
	free(in);
}
END_TEST

START_TEST(test_excerpt_many_errors_stay_within_cap)
{
	struct excerpt_opts o = opts(3000, 1);
	struct excerpt_info info;
	char *in = xcalloc(100000, 40), *p = in, *e;
	size_t i;

	for (i = 0; i < 100000; i++)
		p += sprintf(p, "ERROR %zu\n", i);
	e = excerpt_make(in, (size_t)(p - in), &o, &info);
	ck_assert_uint_le(strlen(e), 3000);
	ck_assert_uint_gt(info.matches, 0);
	ck_assert_ptr_nonnull(strstr(e, "ERROR 99999\n"));
	free(e);
	free(in);
}
END_TEST

START_TEST(test_excerpt_one_huge_line_is_cut_and_marked)
{
	struct excerpt_opts o = opts(2000, 0);
	char *in = xcalloc(1, 100001), *e;

	memset(in, 'x', 100000);
	e = excerpt_make(in, 100000, &o, NULL);
	ck_assert_uint_le(strlen(e), 2000);
	ck_assert_ptr_nonnull(strstr(e, "x [...]\n"));
	ck_assert_ptr_nonnull(strstr(e, URI));
	free(e);
	free(in);
}
END_TEST

START_TEST(test_excerpt_never_splits_utf8_and_cleans_bytes)
{
	struct excerpt_opts o = opts(1000, 0);
	char *in = xcalloc(1, 30001), *e;
	size_t i;

	for (i = 0; i + 2 <= 30000; i += 2)
		memcpy(in + i, "\xc3\xa9", 2);
	in[5] = '\xff';
	in[100] = '\0';
	e = excerpt_make(in, 30000, &o, NULL);
	ck_assert_int_eq(utf8_valid(e, strlen(e)), 1);
	ck_assert_uint_le(strlen(e), 1000);
	free(e);
	free(in);
}
END_TEST

START_TEST(test_excerpt_head_only_for_files)
{
	struct excerpt_opts o = opts(4000, 1);
	size_t len;
	char *in = numbered(10000, 0, 9999, &len);
	char *e;

	o.head_only = 1;
	o.uri = NULL;
	o.how = "read a range with read_file {path, startLine, endLine}";
	e = excerpt_make(in, len, &o, NULL);
	ck_assert_uint_le(strlen(e), 4000);
	ck_assert_ptr_nonnull(strstr(e, "compiling unit 1 ok\n"));
	ck_assert_ptr_null(strstr(e, "line 9999"));
	ck_assert_ptr_nonnull(strstr(e, "of 10000 lines"));
	/* The marker is the last line. */
	ck_assert_ptr_nonnull(strstr(e, "endLine}]\n"));
	ck_assert_str_eq(strstr(e, "endLine}]\n"), "endLine}]\n");
	free(e);
	free(in);
}
END_TEST

START_TEST(test_excerpt_lines_finds_ranges)
{
	const char *s = "a\nbb\nccc\nd";
	size_t off, n;

	ck_assert_int_eq(excerpt_lines(s, strlen(s), 2, 3, &off, &n), 0);
	ck_assert_uint_eq(off, 2);
	ck_assert_uint_eq(n, 7);
	ck_assert_int_eq(excerpt_lines(s, strlen(s), 4, 0, &off, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(excerpt_lines(s, strlen(s), 3, 99, &off, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(excerpt_lines(s, strlen(s), 5, 0, &off, &n), -1);
	ck_assert_int_eq(excerpt_lines(s, strlen(s), 0, 2, &off, &n), -1);
	ck_assert_int_eq(excerpt_lines(s, strlen(s), 3, 2, &off, &n), -1);
	ck_assert_uint_eq(excerpt_count_lines(s, strlen(s)), 4);
	ck_assert_uint_eq(excerpt_count_lines("x\n", 2), 1);
	ck_assert_uint_eq(excerpt_count_lines("", 0), 0);
}
END_TEST

START_TEST(test_excerpt_grep_numbers_matches_and_context)
{
	struct excerpt_opts o = opts(10000, 0);
	struct excerpt_info info;
	size_t len;
	char *in = numbered(1000, 10, 500, &len);
	char *e = excerpt_grep(in, len, "ERROR:", &o, &info);

	ck_assert_uint_eq(info.matches, 2);
	ck_assert_ptr_nonnull(strstr(e, "8-compiling unit 8 ok\n"));
	ck_assert_ptr_nonnull(strstr(e, "10:error: broken at line 10\n"));
	ck_assert_ptr_nonnull(strstr(e, "--\n498-compiling unit 498 ok\n"));
	ck_assert_ptr_nonnull(strstr(e, "502-compiling unit 502 ok\n"));
	ck_assert_int_eq(info.truncated, 0);
	free(e);
	free(in);
}
END_TEST

START_TEST(test_excerpt_grep_caps_and_says_how_many_were_left)
{
	struct excerpt_opts o = opts(2000, 0);
	struct excerpt_info info;
	size_t len;
	char *in = numbered(5000, 0, 0, &len);
	char *e = excerpt_grep(in, len, "ok", &o, &info);

	ck_assert_uint_le(strlen(e), 2000);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_uint_eq(info.matches, 5000);
	ck_assert_ptr_nonnull(strstr(e, "more matching lines not shown"));
	free(e);
	free(in);
}
END_TEST

static Suite *
excerpt_suite(void)
{
	Suite *s = suite_create("excerpt");
	TCase *tc = tcase_create("excerpt");

	tcase_add_test(tc, test_excerpt_short_output_is_whole);
	tcase_add_test(tc, test_excerpt_long_output_fits_cap_with_one_marker);
	tcase_add_test(
	    tc, test_excerpt_failure_keeps_error_lines_from_the_middle);
	tcase_add_test(tc, test_excerpt_success_does_not_hunt_for_errors);
	tcase_add_test(
	    tc, test_excerpt_patterns_are_case_insensitive_and_configurable);
	tcase_add_test(tc, test_excerpt_many_errors_stay_within_cap);
	tcase_add_test(tc, test_excerpt_one_huge_line_is_cut_and_marked);
	tcase_add_test(tc, test_excerpt_never_splits_utf8_and_cleans_bytes);
	tcase_add_test(tc, test_excerpt_head_only_for_files);
	tcase_add_test(tc, test_excerpt_lines_finds_ranges);
	tcase_add_test(tc, test_excerpt_grep_numbers_matches_and_context);
	tcase_add_test(tc, test_excerpt_grep_caps_and_says_how_many_were_left);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(excerpt_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
