/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * agent_bin: the agent command as typed on the host resolves to the host
 * paths it needs, checked against fake install trees in a temporary
 * directory (an npm global with a platform package, an nvm-style prefix
 * with "#!/usr/bin/env node", a Python venv, a single binary).
 */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "supervisor/agent_bin.h"

static char root[256];

static void
mkfile(const char *rel, const char *content, mode_t mode)
{
	char path[PATH_MAX], *p;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	fputs(content, fp);
	fclose(fp);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static void
mklink(const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ck_assert_int_eq(symlink(target, path), 0);
}

/* The reason given for binding ROOT/|rel|, or NULL if it is not bound. */
static const char *
bound(const struct agent_bin *ab, const char *rel)
{
	char path[PATH_MAX];
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (i = 0; i < ab->nbinds; i++)
		if (strcmp(ab->binds[i].path, path) == 0)
			return ab->binds[i].why;
	return NULL;
}

static void
setup(void)
{
	char tmpl[] = "/tmp/test_agent_bin.XXXXXX", real[PATH_MAX];

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, real));
	ck_assert_uint_lt(strlen(real), sizeof(root));
	snprintf(root, sizeof(root), "%s", real);
	mkfile("nodebin/node", "\177ELF fake node\n", 0755);
}

static void
teardown(void)
{
	char cmd[sizeof(root) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
}

START_TEST(test_npm_global_binds_node_modules_and_keeps_the_symlink)
{
	struct agent_bin *ab;
	char path[PATH_MAX], err[256];
	const char *why;

	mkfile("usr/lib/node_modules/@openai/codex/package.json", "{}\n", 0644);
	mkfile("usr/lib/node_modules/@openai/codex/bin/codex.js",
	    "#!/usr/bin/env node\nrequire('x')\n", 0755);
	mkfile("usr/lib/node_modules/@openai/codex-linux-x64/package.json",
	    "{}\n", 0644);
	mkfile("usr/bin/.keep", "", 0644);
	mklink(
	    "../lib/node_modules/@openai/codex/bin/codex.js", "usr/bin/codex");
	snprintf(path, sizeof(path), "%s/usr/bin:%s/nodebin", root, root);
	ck_assert_int_eq(
	    agent_bin_resolve("codex", path, &ab, err, sizeof(err)), 0);

	/* Executed by the symlink's own path, found in its own directory. */
	snprintf(path, sizeof(path), "%s/usr/bin/codex", root);
	ck_assert_str_eq(ab->path, path);
	snprintf(path, sizeof(path), "%s/usr/bin", root);
	ck_assert_str_eq(ab->dir, path);
	ck_assert_ptr_nonnull(bound(ab, "usr/bin/codex"));
	/* The whole node_modules: the platform package is a sibling. */
	ck_assert_ptr_nonnull(why = bound(ab, "usr/lib/node_modules"));
	ck_assert_ptr_nonnull(strstr(why, "npm package of "));
	ck_assert_ptr_nonnull(why = bound(ab, "nodebin/node"));
	ck_assert_ptr_nonnull(strstr(why, "interpreter of "));
	ck_assert_ptr_null(bound(ab, "usr/lib/node_modules/@openai"));
	agent_bin_free(ab);
}
END_TEST

START_TEST(test_venv_script_binds_the_venv_and_its_base_python)
{
	struct agent_bin *ab;
	char path[PATH_MAX], err[256];

	mkfile("base/bin/python3", "\177ELF fake python\n", 0755);
	mkfile("venv/pyvenv.cfg", "home = /base/bin\n", 0644);
	mkfile("venv/bin/.keep", "", 0644);
	mklink("../../base/bin/python3", "venv/bin/python");
	snprintf(path, sizeof(path), "#!%s/venv/bin/python\nimport x\n", root);
	mkfile("venv/bin/aider", path, 0755);
	ck_assert_int_eq(
	    agent_bin_resolve("aider", "/nonexistent", &ab, err, sizeof(err)),
	    AL_ERR_NOT_FOUND);
	snprintf(path, sizeof(path), "%s/venv/bin", root);
	ck_assert_int_eq(
	    agent_bin_resolve("aider", path, &ab, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(bound(ab, "venv"));
	ck_assert_ptr_nonnull(strstr(bound(ab, "venv"), "Python venv of "));
	ck_assert_ptr_nonnull(bound(ab, "base/bin/python3"));
	ck_assert_ptr_nonnull(bound(ab, "venv/bin/aider"));
	/* Not a package: nothing beyond what it names. */
	ck_assert_ptr_null(bound(ab, "usr/lib/node_modules"));
	agent_bin_free(ab);
}
END_TEST

START_TEST(test_single_binary_binds_itself_only)
{
	struct agent_bin *ab;
	char path[PATH_MAX], err[256];

	mkfile("opt/tool/bin/tool", "\177ELF a binary\n", 0755);
	snprintf(path, sizeof(path), "%s/opt/tool/bin/tool", root);
	ck_assert_int_eq(
	    agent_bin_resolve(path, NULL, &ab, err, sizeof(err)), 0);
	ck_assert_str_eq(ab->path, path);
	ck_assert_uint_eq(ab->nbinds, 1);
	ck_assert_ptr_nonnull(bound(ab, "opt/tool/bin/tool"));
	agent_bin_free(ab);
}
END_TEST

START_TEST(test_missing_interpreter_and_program_are_errors)
{
	struct agent_bin *ab = NULL;
	char path[PATH_MAX], err[256];

	mkfile("bin/agent", "#!/usr/bin/env no-such-interp-xyz\n", 0755);
	mkfile("bin/noexec", "\177ELF\n", 0644);
	snprintf(path, sizeof(path), "%s/bin", root);
	ck_assert_int_eq(
	    agent_bin_resolve("agent", path, &ab, err, sizeof(err)),
	    AL_ERR_NOT_FOUND);
	ck_assert_ptr_null(ab);
	ck_assert_ptr_nonnull(strstr(err,
	    "interpreter no-such-interp-xyz "
	    "not found in PATH"));
	ck_assert_int_eq(
	    agent_bin_resolve("noexec", path, &ab, err, sizeof(err)),
	    AL_ERR_NOT_FOUND);
	ck_assert_int_eq(agent_bin_resolve("", path, &ab, err, sizeof(err)),
	    AL_ERR_NOT_FOUND);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("agent_bin");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(
	    tc, test_npm_global_binds_node_modules_and_keeps_the_symlink);
	tcase_add_test(tc, test_venv_script_binds_the_venv_and_its_base_python);
	tcase_add_test(tc, test_single_binary_binds_itself_only);
	tcase_add_test(tc, test_missing_interpreter_and_program_are_errors);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
