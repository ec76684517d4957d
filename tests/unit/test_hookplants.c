/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Unit tests for policy/hookplants.c: the hook managers' files an agent
 * wrote in a session's upper layer, read from a real checkout and upper
 * layer in a temporary tree: lint-staged's names at any depth beneath the
 * top and nowhere else, package.json keys compared with the checkout's
 * (a new value, the same, removed, spelled with \u escapes, not JSON,
 * past 8 MiB, a symlink), husky v4's top key, whiteouts passed over, a
 * path counted once, and the bound on plants.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <check.h>

#include "common/util.h"
#include "policy/hookplants.h"

static char tmp[256], ws[300], up[300];

static void
put(const char *rel, const char *text)
{
	char path[512], cmd[600], *slash;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

static void
setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/test_hookplants.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(ws, sizeof(ws), "%s/ws", tmp);
	snprintf(up, sizeof(up), "%s/up", tmp);
	ck_assert_int_eq(mkdir(ws, 0755), 0);
	ck_assert_int_eq(mkdir(up, 0755), 0);
}

static void
teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* hookplants_find() with |lintstaged| and |husky| (NULL: not watched),
 * starting from one path of the checkout's own ("hooks/x"); the paths
 * it added, sorted, joined by ',' into |out| ("!" and the error on
 * failure). */
static void
find(const char *lintstaged, const char *husky, char *out, size_t len)
{
	struct git_hooks_list l;
	char err[512];
	size_t i;

	memset(&l, 0, sizeof(l));
	l.paths = xcalloc(GIT_HOOKS_MAX + GIT_HOOK_NAMES + 1, sizeof(*l.paths));
	l.paths[l.n++] = xstrdup("hooks/x");
	l.lintstaged = lintstaged != NULL ? xstrdup(lintstaged) : NULL;
	l.husky_pkg = husky != NULL ? xstrdup(husky) : NULL;
	out[0] = '\0';
	if (hookplants_find(&l, ws, up, err, sizeof(err)) != 0)
		snprintf(out, len, "!%s", err);
	else {
		qsort(l.paths + 1, l.n - 1, sizeof(*l.paths), by_name);
		for (i = 1; i < l.n; i++)
			snprintf(out + strlen(out), len - strlen(out), "%s%s",
			    i > 1 ? "," : "", l.paths[i]);
	}
	ck_assert_ptr_null(l.paths[l.n]);
	git_hooks_list_free(&l);
}

START_TEST(test_not_watched)
{
	char out[1024];

	put("up/a/.lintstagedrc.json", "{}");
	put("up/package.json", "{\"lint-staged\": {\"*\": \"x\"}}");
	find(NULL, NULL, out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_names_at_any_depth)
{
	char out[1024];

	put("up/.lintstagedrc", "x");
	put("up/packages/a/.lintstagedrc.json", "{}");
	put("up/packages/b/c/lint-staged.config.ts", "x");
	put("up/packages/b/package.yaml", "x");
	put("up/src/lintstagedrc.json", "{}"); /* not a name of its */
	put("up/src/.lintstagedrc.json.bak", "{}");
	find("", NULL, out, sizeof(out));
	ck_assert_str_eq(out, ".lintstagedrc,packages/a/.lintstagedrc.json,"
			      "packages/b/c/lint-staged.config.ts,"
			      "packages/b/package.yaml");
	/* Beneath the top only ("top" the working tree's top). */
	find("top", NULL, out, sizeof(out));
	ck_assert_str_eq(out, "");
	put("up/top/x/.lintstagedrc.yml", "x");
	find("top", NULL, out, sizeof(out));
	ck_assert_str_eq(out, "top/x/.lintstagedrc.yml");
}
END_TEST

START_TEST(test_package_keys)
{
	char out[1024];

	put("ws/a/package.json", "{\"name\": \"a\", \"lint-staged\": {\"*\": "
				 "\"eslint\"}}");
	put("ws/b/package.json", "{\"name\": \"b\", \"lint-staged\": {\"*\": "
				 "\"eslint\"}}");
	put("ws/c/package.json", "{\"name\": \"c\", \"lint-staged\": {\"*\": "
				 "\"eslint\"}}");
	/* a: a new value; b: the same, other keys changed; c: removed. */
	put("up/a/package.json", "{\"name\": \"a\", \"lint-staged\": {\"*\": "
				 "\"sh x\"}}");
	put("up/b/package.json", "{\"name\": \"b2\", \"lint-staged\": {\"*\": "
				 "\"eslint\"}}");
	put("up/c/package.json", "{\"name\": \"c\"}");
	/* d: new, with the key spelled with an escape; e: new, no key. */
	put("up/d/package.json",
	    "{\"lint\\u002dstaged\": {\"*\": \"sh x\"}}");
	put("up/e/package.json", "{\"name\": \"e\", \"scripts\": {}}");
	/* f: not JSON and no key named: lint-staged passes over it. */
	put("up/f/package.json", "{not json");
	/* g: not JSON, with an escape: cannot be told. */
	put("up/g/package.json", "{\"a\\u0022: 1");
	/* An installed package's own key: npm's, not a config. */
	put("up/node_modules/h/package.json",
	    "{\"lint-staged\": {\"*\": \"sh x\"}}");
	find("", NULL, out, sizeof(out));
	ck_assert_str_eq(out, "a/package.json,d/package.json,g/package.json");
}
END_TEST

START_TEST(test_package_symlink_and_size)
{
	char out[1024], path[512];
	FILE *fp;

	put("ws/a/package.json", "{\"name\": \"a\"}");
	put("up/evil.json", "{\"lint-staged\": {\"*\": \"sh x\"}}");
	put("up/a/x", "");
	snprintf(path, sizeof(path), "%s/a/package.json", up);
	ck_assert_int_eq(symlink("../evil.json", path), 0);
	/* Past 8 MiB: covered unread. */
	put("up/big/package.json", "");
	snprintf(path, sizeof(path), "%s/big/package.json", up);
	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	ck_assert_int_eq(fseek(fp, GIT_HOOKS_KEYS_MAX_BYTES, SEEK_SET), 0);
	fputs("{}", fp);
	fclose(fp);
	find("", NULL, out, sizeof(out));
	ck_assert_str_eq(out, "a/package.json,big/package.json");
}
END_TEST

START_TEST(test_husky_top_key)
{
	char out[1024];

	put("ws/package.json", "{\"husky\": {\"hooks\": {}}}");
	put("up/package.json", "{\"husky\": {\"hooks\": {\"pre-commit\": "
			       "\"sh x\"}}}");
	put("up/sub/package.json", "{\"husky\": {\"hooks\": {\"pre-commit\": "
				   "\"sh x\"}}}");
	put("up/.lintstagedrc.json", "{}");
	/* Only the top's, and no lint-staged names without lint-staged. */
	find(NULL, "package.json", out, sizeof(out));
	ck_assert_str_eq(out, "package.json");
}
END_TEST

START_TEST(test_whiteout_and_once)
{
	char out[1024], path[512];

	/* A whiteout (char 0/0) where a config was: a removal. */
	snprintf(path, sizeof(path), "%s/.lintstagedrc.json", up);
	ck_assert_int_eq(mknod(path, S_IFCHR | 0600, makedev(0, 0)), 0);
	/* A path the checkout's list already names is not added twice. */
	put("up/hooks/x/.lintstagedrc", "x");
	put("up/hooks/x2/.lintstagedrc", "x");
	find("", NULL, out, sizeof(out));
	ck_assert_str_eq(out, "hooks/x/.lintstagedrc,hooks/x2/.lintstagedrc");
}
END_TEST

START_TEST(test_too_many)
{
	char out[1024], rel[64];
	int i;

	for (i = 0; i <= HOOKPLANTS_MAX; i++) {
		snprintf(rel, sizeof(rel), "up/p%d/.lintstagedrc", i);
		put(rel, "x");
	}
	find("", NULL, out, sizeof(out));
	ck_assert_int_eq(out[0], '!');
	ck_assert_ptr_nonnull(strstr(out, "more than 64"));
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("hookplants");
	TCase *tc = tcase_create("find");

	/* Files of 8 MiB and trees of them: past Check's 4 s on slow VMs. */
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_not_watched);
	tcase_add_test(tc, test_names_at_any_depth);
	tcase_add_test(tc, test_package_keys);
	tcase_add_test(tc, test_package_symlink_and_size);
	tcase_add_test(tc, test_husky_top_key);
	tcase_add_test(tc, test_whiteout_and_once);
	tcase_add_test(tc, test_too_many);
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
