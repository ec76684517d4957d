/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * sensitive_deny_linked() (policy/sensitive.c): a denied file with a name
 * (a hard link) that no denied path holds, itself or beneath a denied
 * directory, is named; one whose names are all denied passes.
 */
#include "config.h"

#include <sys/stat.h>

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/sensitive.h"

static char root[] = "/tmp/airlock-sensitive.XXXXXX";
static char msg[2 * PATH_MAX];

/* root/rel, in a static buffer of |n| (0..3). */
static char *
at(int n, const char *rel)
{
	static char buf[4][PATH_MAX];

	snprintf(buf[n], sizeof(buf[n]), "%s/%s", root, rel);
	return buf[n];
}

static void
mkfile(const char *rel)
{
	int fd = open(at(3, rel), O_WRONLY | O_CREAT | O_EXCL, 0600);

	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(write(fd, "secret\n", 7), 7);
	close(fd);
}

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(root));
	ck_assert_int_eq(mkdir(at(0, "d"), 0700), 0);
	ck_assert_int_eq(mkdir(at(0, "sec"), 0700), 0);
	ck_assert_int_eq(mkdir(at(0, "sec/sub"), 0700), 0);
	mkfile("key");
	mkfile("lone");
	mkfile("sec/sub/k2");
	ck_assert_int_eq(link(at(0, "key"), at(1, "d/copy")), 0);
	ck_assert_int_eq(link(at(0, "sec/sub/k2"), at(1, "sec/k2same")), 0);
}

static void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(root + strlen(root) - 6, "XXXXXX");
}

static const char *
linked(size_t max, int n, ...)
{
	char *deny[8];
	va_list ap;
	int i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		deny[i] = va_arg(ap, char *);
	va_end(ap);
	return sensitive_deny_linked(deny, (size_t)n, max, msg, sizeof(msg));
}

START_TEST(test_deny_linked_names_a_file_with_another_name)
{
	const char *r = linked(SENSITIVE_LINKS_MAX, 1, at(0, "key"));

	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(strstr(r, "has 2 names (hard links), 1 denied"));
	ck_assert_ptr_nonnull(strstr(r, "-samefile "));
	ck_assert_ptr_nonnull(strstr(r, at(0, "key")));
}
END_TEST

START_TEST(test_deny_linked_passes_when_every_name_is_denied)
{
	/* One through its directory; one named twice and with "/./". */
	ck_assert_ptr_null(linked(SENSITIVE_LINKS_MAX, 4, at(0, "key"),
	    at(1, "d"), at(2, "key"), at(3, "./lone")));
	ck_assert_ptr_null(linked(SENSITIVE_LINKS_MAX, 1, at(0, "lone")));
}
END_TEST

START_TEST(test_deny_linked_passes_an_absent_path)
{
	ck_assert_ptr_null(linked(
	    SENSITIVE_LINKS_MAX, 2, at(0, "nothere"), at(1, "nothere/below")));
}
END_TEST

START_TEST(test_deny_linked_walks_a_denied_directory)
{
	const char *r;

	/* sec/sub/k2 has a third name outside sec. */
	ck_assert_ptr_null(linked(SENSITIVE_LINKS_MAX, 1, at(0, "sec")));
	ck_assert_int_eq(link(at(0, "sec/sub/k2"), at(1, "out")), 0);
	r = linked(SENSITIVE_LINKS_MAX, 1, at(0, "sec/"));
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(strstr(r, "in a denied path, has 3 names"));
	ck_assert_ptr_nonnull(strstr(r, "2 denied"));
	ck_assert_ptr_null(
	    linked(SENSITIVE_LINKS_MAX, 2, at(0, "sec"), at(1, "out")));
	/* A deny path beneath another is not counted twice. */
	ck_assert_ptr_nonnull(
	    linked(SENSITIVE_LINKS_MAX, 2, at(0, "sec"), at(1, "sec/sub/k2")));
}
END_TEST

START_TEST(test_deny_linked_fails_closed_past_its_bound)
{
	const char *r;

	/* sec holds sub, sub/k2 and k2same: three entries. */
	ck_assert_ptr_null(linked(3, 1, at(0, "sec")));
	r = linked(2, 1, at(0, "sec"));
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(strstr(r, "more than 2 entries"));
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("sensitive");
	TCase *tc = tcase_create("deny_linked");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_deny_linked_names_a_file_with_another_name);
	tcase_add_test(tc, test_deny_linked_passes_when_every_name_is_denied);
	tcase_add_test(tc, test_deny_linked_passes_an_absent_path);
	tcase_add_test(tc, test_deny_linked_walks_a_denied_directory);
	tcase_add_test(tc, test_deny_linked_fails_closed_past_its_bound);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
