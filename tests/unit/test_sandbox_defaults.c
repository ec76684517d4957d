/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* The default sandbox policy is the safe one the documentation promises. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "policy/sandbox_defaults.h"

START_TEST(test_defaults_run_as_nobody_without_network)
{
	struct sandbox_policy p;

	sandbox_policy_init_defaults(&p);
	ck_assert_uint_eq(p.uid, 65534);
	ck_assert_uint_eq(p.gid, 65534);
	ck_assert_int_eq(p.network, 0);
	ck_assert_int_eq(p.seccomp, SECCOMP_PROFILE_DEFAULT);
	ck_assert_int_eq(p.landlock, 1);
	ck_assert_int_eq(p.workspace, WORKSPACE_DIRECT);
	sandbox_policy_free_arrays(&p);
}
END_TEST

START_TEST(test_defaults_protect_git_in_heap_arrays)
{
	struct sandbox_policy p;
	size_t i;

	sandbox_policy_init_defaults(&p);
	/* The repository, and the editors' project settings and dev
	 * container configurations that run code on the human's host when
	 * the checkout is opened (docs/SECURITY.md). */
	ck_assert_uint_eq(p.nprotected, 5);
	ck_assert_str_eq(p.protected[0], ".git");
	ck_assert_str_eq(p.protected[1], ".vscode");
	ck_assert_str_eq(p.protected[2], ".idea");
	ck_assert_str_eq(p.protected[3], ".devcontainer");
	ck_assert_str_eq(p.protected[4], ".devcontainer.json");
	ck_assert_ptr_null(p.protected[5]);
	ck_assert_uint_gt(p.nread_only, 7);
	ck_assert_str_eq(p.read_only[0], "/usr");
	ck_assert_ptr_null(p.read_only[p.nread_only]);
	ck_assert_uint_eq(p.ndeny_read, 0);
	ck_assert_ptr_nonnull(p.deny_read);
	ck_assert_ptr_null(p.deny_read[0]);
	/* The loader frees each element and the array with free(). */
	for (i = 0; i < p.nprotected; i++)
		free(p.protected[i]);
	free(p.protected);
	for (i = 0; i < p.nread_only; i++)
		free(p.read_only[i]);
	free(p.read_only);
	free(p.deny_read);
}
END_TEST

START_TEST(test_default_limits)
{
	struct sandbox_policy p;

	sandbox_policy_init_defaults(&p);
	ck_assert_int_eq(p.limits.cpu_seconds, 60);
	ck_assert_int_eq(p.limits.address_space_mb, 0);
	ck_assert_int_eq(p.limits.file_size_mb, 1024);
	ck_assert_int_eq(p.limits.open_files, 256);
	ck_assert_int_eq(p.limits.processes, 256);
	ck_assert_int_eq(p.limits.memory_mb, 1024);
	ck_assert_int_eq(p.limits.cpu_percent, 100);
	ck_assert_int_eq(p.limits.tmp_size_mb, 64);
	ck_assert_int_eq(p.limits.output_bytes, 1024 * 1024);
	sandbox_policy_free_arrays(&p);
	ck_assert_ptr_null(p.protected);
	ck_assert_uint_eq(p.nprotected, 0);
}
END_TEST

START_TEST(test_default_read_only_lists_system_paths)
{
	struct sandbox_policy p;
	size_t i;
	int etc_passwd = 0, shadow = 0;

	sandbox_policy_init_defaults(&p);
	for (i = 0; i < p.nread_only; i++) {
		ck_assert_int_eq(p.read_only[i][0], '/');
		if (strcmp(p.read_only[i], "/etc/passwd") == 0)
			etc_passwd = 1;
		if (strstr(p.read_only[i], "shadow") != NULL)
			shadow = 1;
	}
	ck_assert(etc_passwd);
	ck_assert(!shadow);
	sandbox_policy_free_arrays(&p);
}
END_TEST

/* A denied path absent on the host is matched by its name alone: empty
 * and "." components go, as trailing slashes do. */
START_TEST(test_deny_read_path_drops_empty_and_dot_components)
{
	static const struct {
		const char *in, *home, *out;
	} rows[] = {
		{ "/a//./b/", NULL, "/a/b" },
		{ "/ws/./conf/db/pw", NULL, "/ws/conf/db/pw" },
		{ "/ws//secrets//", NULL, "/ws/secrets" },
		{ "/a/.b/.", NULL, "/a/.b" },
		{ "/.", NULL, "/" },
		{ "//", NULL, "/" },
		{ "~/x//./y", "/h", "/h/x/y" },
	};
	size_t i;
	char *out;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_ptr_null(
		    sandbox_deny_read_path(rows[i].in, rows[i].home, &out));
		ck_assert_str_eq(out, rows[i].out);
		free(out);
	}
}
END_TEST

START_TEST(test_system_dirs_are_absolute)
{
	size_t i;

	for (i = 0; sandbox_system_dirs[i] != NULL; i++)
		ck_assert_int_eq(sandbox_system_dirs[i][0], '/');
	for (i = 0; sandbox_etc_entries[i] != NULL; i++) {
		ck_assert_ptr_null(strchr(sandbox_etc_entries[i], '/'));
		ck_assert_str_ne(sandbox_etc_entries[i], "shadow");
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sandbox_defaults");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_defaults_run_as_nobody_without_network);
	tcase_add_test(tc, test_defaults_protect_git_in_heap_arrays);
	tcase_add_test(tc, test_default_limits);
	tcase_add_test(tc, test_system_dirs_are_absolute);
	tcase_add_test(tc, test_deny_read_path_drops_empty_and_dot_components);
	tcase_add_test(tc, test_default_read_only_lists_system_paths);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
