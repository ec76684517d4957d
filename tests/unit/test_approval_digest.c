/*
 * approvals_digest: a human's decision is bound to exactly one action.
 * Every part of it (the tool, each argument, what will run) changes the
 * digest; what does not change the action (key order) does not.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "broker/approval.h"

static void
digest(const char *tool, const char *args, const char *exec, char hex[65])
{
	json_t *a = json_loads(args, 0, NULL), *e = NULL;

	ck_assert_ptr_nonnull(a);
	if (exec != NULL)
		ck_assert_ptr_nonnull(e = json_loads(exec, 0, NULL));
	approvals_digest(tool, a, e, hex);
	json_decref(a);
	json_decref(e);
	ck_assert_uint_eq(strlen(hex), 64);
}

START_TEST(test_each_part_of_the_action_changes_the_digest)
{
	static const char *args = "{\"target\":\"prod\"}";
	static const char *exec = "{\"argv\":[\"deploy\",\"prod\"],"
				  "\"cwd\":\"/ws\"}";
	char base[65], other[65];

	digest("deploy", args, exec, base);
	/* The same action, the same digest. */
	digest("deploy", args, exec, other);
	ck_assert_str_eq(base, other);
	/* Another tool with the same arguments. */
	digest("rollback", args, exec, other);
	ck_assert_str_ne(base, other);
	/* Another argument value. */
	digest("deploy", "{\"target\":\"staging\"}", exec, other);
	ck_assert_str_ne(base, other);
	/* Another command or directory behind the same call. */
	digest("deploy", args,
	    "{\"argv\":[\"deploy\",\"--force\",\"prod\"],\"cwd\":\"/ws\"}",
	    other);
	ck_assert_str_ne(base, other);
	digest("deploy", args,
	    "{\"argv\":[\"deploy\",\"prod\"],\"cwd\":\"/other\"}", other);
	ck_assert_str_ne(base, other);
	/* No execution recorded is not the same as one. */
	digest("deploy", args, NULL, other);
	ck_assert_str_ne(base, other);
}
END_TEST

START_TEST(test_the_tool_name_and_arguments_cannot_be_shifted)
{
	char a[65], b[65];

	/* "ab" + {"c":1} must not equal "a" + something starting with b. */
	digest("ab", "{\"c\":1}", NULL, a);
	digest("a", "{\"bc\":1}", NULL, b);
	ck_assert_str_ne(a, b);
}
END_TEST

START_TEST(test_key_order_does_not_matter)
{
	char a[65], b[65];

	digest("t", "{\"x\":1,\"y\":[1,2]}", "{\"argv\":[\"a\"],\"cwd\":\"/\"}",
	    a);
	digest("t", "{\"y\":[1,2],\"x\":1}", "{\"cwd\":\"/\",\"argv\":[\"a\"]}",
	    b);
	ck_assert_str_eq(a, b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("approval_digest");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	if (sodium_init() < 0)
		return EXIT_FAILURE;
	tcase_add_test(tc, test_each_part_of_the_action_changes_the_digest);
	tcase_add_test(tc, test_the_tool_name_and_arguments_cannot_be_shifted);
	tcase_add_test(tc, test_key_order_does_not_matter);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
