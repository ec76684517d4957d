/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The Seatbelt generator against golden profiles (tests/golden/NAME.sb),
 * byte for byte.  AIRLOCK_UPDATE_GOLDEN=1 rewrites them.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "policy/sandbox_defaults.h"
#include "policy/seatbelt.h"

static char *
slurp(const char *path)
{
	FILE *fp;
	char *buf;
	long n;

	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, n + 1);
	if (fread(buf, 1, n, fp) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	return buf;
}

static void
golden(const char *name, const char *got)
{
	char path[1024], *want;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	if (getenv("AIRLOCK_UPDATE_GOLDEN") != NULL) {
		ck_assert_ptr_nonnull(fp = fopen(path, "w"));
		fputs(got, fp);
		fclose(fp);
	}
	want = slurp(path);
	ck_assert_msg(want != NULL, "missing %s", path);
	ck_assert_msg(strcmp(want, got) == 0, "%s differs:\n%s", name, got);
	free(want);
}

static char **
strv(const char *a, const char *b, const char *c, size_t *n)
{
	char **v = calloc(4, sizeof(*v));
	const char *in[3] = { a, b, c };
	size_t i;

	*n = 0;
	for (i = 0; i < 3 && in[i] != NULL; i++)
		v[(*n)++] = strdup(in[i]);
	return v;
}

START_TEST(test_default_policy_matches_golden_profile)
{
	struct sandbox_policy sp;
	char *out;

	sandbox_policy_init_defaults(&sp);
	ck_assert_int_eq(seatbelt_profile(&sp, "/Users/dev/project",
	    "/Users/dev", &out), 0);
	golden("default.sb", out);
	ck_assert_ptr_nonnull(strstr(out, "(deny default)"));
	ck_assert_ptr_nonnull(strstr(out,
	    "(deny file-write* (subpath \"/Users/dev/project/.git\"))"));
	ck_assert_ptr_nonnull(strstr(out,
	    "(deny file-write-unlink (literal \"/Users/dev/project\"))"));
	free(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

START_TEST(test_custom_policy_denies_reads_and_protects_ancestors)
{
	struct sandbox_policy sp;
	char *out;

	sandbox_policy_init_defaults(&sp);
	sandbox_policy_free_arrays(&sp);
	sp.deny_read = strv("~/.ssh", "/etc/secret \"quoted\"", "~/.aws",
	    &sp.ndeny_read);
	sp.protected = strv(".git", "config/prod/secrets.env", NULL,
	    &sp.nprotected);
	sp.read_only = strv(NULL, NULL, NULL, &sp.nread_only);
	sp.network = 1;
	ck_assert_int_eq(seatbelt_profile(&sp, "/Users/dev/my project",
	    "/Users/dev", &out), 0);
	golden("custom.sb", out);
	ck_assert_ptr_nonnull(strstr(out,
	    "(deny file-read* (subpath \"/Users/dev/.ssh\"))"));
	ck_assert_ptr_nonnull(strstr(out, "\\\"quoted\\\""));
	ck_assert_ptr_nonnull(strstr(out, "(deny file-write-unlink (literal "
	    "\"/Users/dev/my project/config/prod\"))"));
	ck_assert_ptr_nonnull(strstr(out, "(deny file-write-unlink (literal "
	    "\"/Users/dev/my project/config\"))"));
	free(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

START_TEST(test_bad_paths_are_refused)
{
	struct sandbox_policy sp;
	char *out;

	sandbox_policy_init_defaults(&sp);
	ck_assert_int_eq(seatbelt_profile(&sp, "relative", NULL, &out),
	    AL_ERR_PATH);
	ck_assert_int_eq(seatbelt_profile(&sp, "/ws/", NULL, &out),
	    AL_ERR_PATH);
	free(sp.protected[0]);
	sp.protected[0] = strdup("../escape");
	ck_assert_int_eq(seatbelt_profile(&sp, "/ws", NULL, &out),
	    AL_ERR_PATH);
	ck_assert_ptr_null(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("seatbelt");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_default_policy_matches_golden_profile);
	tcase_add_test(tc,
	    test_custom_policy_denies_reads_and_protects_ancestors);
	tcase_add_test(tc, test_bad_paths_are_refused);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
