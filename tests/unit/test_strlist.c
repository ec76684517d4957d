/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * A name in a NULL-terminated list (common/strlist.c): table-driven,
 * each row a name and whether the list holds it.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "common/strlist.h"

static const char *const names[] = { "chmod", "fchmod", "setxattr", NULL };
static const char *const none[] = { NULL };

static const struct {
	const char *s;
	const char *const *list;
	int in;
} rows[] = {
	{ "chmod", names, 1 },
	/* The last one. */
	{ "setxattr", names, 1 },
	/* One of them is a prefix of it; it is a prefix of one of them. */
	{ "fchmodat", names, 0 },
	{ "chmo", names, 0 },
	/* Byte for byte. */
	{ "CHMOD", names, 0 },
	{ "", names, 0 },
	/* An empty list. */
	{ "chmod", none, 0 },
	/* No name (a field a record does not have): in no list. */
	{ NULL, names, 0 },
};

START_TEST(test_name_is_in_the_list_only_when_listed)
{
	ck_assert_int_eq(str_in_list(rows[_i].s, rows[_i].list), rows[_i].in);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("strlist");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_name_is_in_the_list_only_when_listed, 0,
	    sizeof(rows) / sizeof(rows[0]));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
