/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* A background job's new-output cursor and its line rules (broker/jobtext.c). */
#include "config.h"

#include <check.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/jobtext.h"
#include "policy/manifest.h"

struct hits {
	char lines[8][64];
	size_t rules[8];
	size_t n;
};

static void
hit(const char *line, size_t len, size_t rule, void *arg)
{
	struct hits *h = arg;

	if (h->n < 8) {
		snprintf(h->lines[h->n], sizeof(h->lines[0]), "%.*s", (int)len,
		    line);
		h->rules[h->n] = rule;
	}
	h->n++;
}

START_TEST(test_jobtext_take_returns_only_what_is_new)
{
	struct jobtext_cursor c = { 0, 0 };
	char *s;
	size_t n;

	s = jobtext_take(&c, "abc", 3, "E1", 2, &n);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(s, "abcE1");
	free(s);
	/* Nothing new: empty. */
	s = jobtext_take(&c, "abc", 3, "E1", 2, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_str_eq(s, "");
	free(s);
	/* Each stream resumes where it was. */
	s = jobtext_take(&c, "abcdef", 6, "E1E2", 4, &n);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(s, "defE2");
	free(s);
	ck_assert_uint_eq(c.out, 6);
	ck_assert_uint_eq(c.err, 4);
	/* A NULL stream (nothing printed yet) is nothing new. */
	s = jobtext_take(&c, NULL, 0, NULL, 0, &n);
	ck_assert_uint_eq(n, 0);
	free(s);
}
END_TEST

START_TEST(test_jobtext_scan_matches_each_complete_line_once)
{
	struct jobtext_scan sc = { 0 };
	struct hits h;
	regex_t r0, r1;
	regex_t *res[3];
	const char *data =
	    "starting\nListening on :8080\nGET / 200\nFAIL: x\npart";

	memset(&h, 0, sizeof(h));
	ck_assert_int_eq(
	    regcomp(&r0, "[Ll]istening on", REG_EXTENDED | REG_NOSUB), 0);
	ck_assert_int_eq(
	    regcomp(&r1, "^(FAIL|panic)", REG_EXTENDED | REG_NOSUB), 0);
	res[0] = &r0;
	res[1] = NULL; /* an exit rule */
	res[2] = &r1;
	/* The first bytes: one line is complete, the second is not. */
	ck_assert_uint_eq(
	    jobtext_scan_lines(&sc, data, 20, 0, res, 3, hit, &h), 0);
	ck_assert_uint_eq(sc.done, 9);
	/* More: two matches, the partial last line waits. */
	ck_assert_uint_eq(
	    jobtext_scan_lines(&sc, data, strlen(data), 0, res, 3, hit, &h), 2);
	ck_assert_str_eq(h.lines[0], "Listening on :8080");
	ck_assert_uint_eq(h.rules[0], 0);
	ck_assert_str_eq(h.lines[1], "FAIL: x");
	ck_assert_uint_eq(h.rules[1], 2);
	/* Scanning the same bytes again reports nothing twice. */
	ck_assert_uint_eq(
	    jobtext_scan_lines(&sc, data, strlen(data), 0, res, 3, hit, &h), 0);
	ck_assert_uint_lt(sc.done, strlen(data));
	/* At the end, the last line without a newline counts. */
	ck_assert_uint_eq(
	    jobtext_scan_lines(&sc, "panic: now", 10, 1, res, 3, hit, &h), 0);
	regfree(&r0);
	regfree(&r1);
}
END_TEST

START_TEST(test_jobtext_scan_final_line_and_crlf)
{
	struct jobtext_scan sc = { 0 };
	struct hits h;
	regex_t r;
	regex_t *res[1];

	memset(&h, 0, sizeof(h));
	ck_assert_int_eq(regcomp(&r, "ready$", REG_EXTENDED | REG_NOSUB), 0);
	res[0] = &r;
	ck_assert_uint_eq(jobtext_scan_lines(&sc, "a ready\r\nb ready", 16, 0,
			      res, 1, hit, &h),
	    1);
	ck_assert_str_eq(h.lines[0], "a ready");
	ck_assert_uint_eq(jobtext_scan_lines(&sc, "a ready\r\nb ready", 16, 1,
			      res, 1, hit, &h),
	    1);
	ck_assert_str_eq(h.lines[1], "b ready");
	ck_assert_uint_eq(sc.done, 16);
	regfree(&r);
}
END_TEST

START_TEST(test_jobtext_exit_rules)
{
	ck_assert_int_eq(jobtext_exit_matches(JOB_EXIT_ANY, 0), 1);
	ck_assert_int_eq(jobtext_exit_matches(JOB_EXIT_ANY, 3), 1);
	ck_assert_int_eq(jobtext_exit_matches(JOB_EXIT_NONZERO, 0), 0);
	ck_assert_int_eq(jobtext_exit_matches(JOB_EXIT_NONZERO, 137), 1);
	ck_assert_int_eq(jobtext_exit_matches(JOB_EXIT_NONE, 1), 0);
}
END_TEST

static Suite *
jobtext_suite(void)
{
	Suite *s = suite_create("jobtext");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_jobtext_take_returns_only_what_is_new);
	tcase_add_test(tc, test_jobtext_scan_matches_each_complete_line_once);
	tcase_add_test(tc, test_jobtext_scan_final_line_and_crlf);
	tcase_add_test(tc, test_jobtext_exit_rules);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(jobtext_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
