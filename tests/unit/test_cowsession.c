/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Unit tests for supervisor/cowsession.c's conflict check: one table,
 * one row per way the checkout can change under a session, {what is done
 * to the checkout after the session began, the path the session touches,
 * the expected reason or NULL}.  Each row gets a fresh checkout and
 * session in a temporary directory.
 */
#include "config.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "supervisor/cowsession.h"
#include "tests/unit/scratch.h"

#define CHANGED "changed in the checkout since the session began"
#define CREATED "created in the checkout since the session began"
#define REMOVED "removed from the checkout since the session began"

struct row {
	const char *name;
	const char *sh; /* run in the checkout after the session began */
	const char *path; /* the path the session writes or removes */
	const char *want; /* NULL: no conflict */
};

static const struct row rows[] = {
	{ "untouched file", ":", "a.txt", NULL },
	{ "a path absent then and now", ":", "new.txt", NULL },
	{ "content changed", "echo other >a.txt", "a.txt", CHANGED },
	{ "same content rewritten (ctime moves)", "cp a.txt t && mv t a.txt",
	    "a.txt", CHANGED },
	{ "touched only", "touch -d '2001-01-01' a.txt", "a.txt", CHANGED },
	{ "same size rewritten, mtime put back (only the ctime moves)",
	    "touch -r a.txt ../ref && echo z >a.txt && touch -r ../ref a.txt",
	    "a.txt", CHANGED },
	{ "mode changed", "chmod 600 a.txt", "a.txt", CHANGED },
	{ "replaced by a symlink", "rm a.txt && ln -s b.txt a.txt", "a.txt",
	    CHANGED },
	{ "removed", "rm a.txt", "a.txt", REMOVED },
	{ "created meanwhile", "echo x >new.txt", "new.txt", CREATED },
	{ "another file changed", "echo other >b.txt", "a.txt", NULL },
	{ "a file in a subdirectory", "echo other >d/c.txt", "d/c.txt",
	    CHANGED },
	{ "a directory gains an entry (not a conflict for the directory)",
	    "echo x >d/new.txt", "d", NULL },
	{ "beneath .git is not recorded: anything there is new", ":",
	    ".git/config", CREATED },
};

START_TEST(test_cowsession_conflicts_table)
{
	const struct row *r = &rows[_i];
	struct cowsession *cs = NULL;
	struct manifest *m = NULL;
	char dir[160], ws[PATH_MAX + 8], sess[PATH_MAX + 8], *cmd, err[1024];
	const char *paths[1] = { r->path };
	json_t *out;
	int rc;

	/* Under the runner's scratch directory: a failed test leaves
	 * nothing in /tmp (make mutants fails them on purpose). */
	snprintf(dir, sizeof(dir), "%s/t.XXXXXX", scratch_dir);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(ws, sizeof(ws), "%s/ws", dir);
	snprintf(sess, sizeof(sess), "%s/s", dir);
	xasprintf(&cmd,
	    "mkdir -p %s/d %s/.git %s && cd %s && echo a >a.txt && "
	    "echo b >b.txt && echo c >d/c.txt && echo g >.git/config",
	    ws, ws, sess, ws);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_int_eq(manifest_load_default(&m, err, sizeof(err)), 0);
	rc = cowsession_create(sess, "t", ws, m, &cs, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	/* A later ctime needs a later clock tick on coarse filesystems. */
	usleep(20000);
	xasprintf(&cmd, "cd %s && %s", ws, r->sh);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	out = cowsession_conflicts(cs, paths, 1, &rc, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	if (r->want == NULL)
		ck_assert_msg(out == NULL, "%s: unexpected conflict", r->name);
	else {
		ck_assert_msg(out != NULL, "%s: no conflict", r->name);
		ck_assert_str_eq(json_string_value(json_object_get(
				     json_array_get(out, 0), "reason")),
		    r->want);
		ck_assert_str_eq(json_string_value(json_object_get(
				     json_array_get(out, 0), "path")),
		    r->path);
	}
	json_decref(out);
	cowsession_free(cs);
	manifest_free(m);
	xasprintf(&cmd, "rm -rf %s", dir);
	(void)!system(cmd);
	free(cmd);
}
END_TEST

START_TEST(test_cowsession_clear_records_anew)
{
	struct cowsession *cs = NULL;
	struct manifest *m = NULL;
	char dir[160], ws[PATH_MAX + 8], sess[PATH_MAX + 8], *cmd, err[1024];
	const char *paths[1] = { "a.txt" };
	json_t *out;
	int rc;

	/* Under the runner's scratch directory: a failed test leaves
	 * nothing in /tmp (make mutants fails them on purpose). */
	snprintf(dir, sizeof(dir), "%s/t.XXXXXX", scratch_dir);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(ws, sizeof(ws), "%s/ws", dir);
	snprintf(sess, sizeof(sess), "%s/s", dir);
	xasprintf(&cmd, "mkdir -p %s %s && echo a >%s/a.txt", ws, sess, ws);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_int_eq(manifest_load_default(&m, err, sizeof(err)), 0);
	ck_assert_int_eq(
	    cowsession_create(sess, "t", ws, m, &cs, err, sizeof(err)), 0);
	xasprintf(&cmd, "echo x >%s/a.txt && echo y >%s/cow/upper/f", ws, sess);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	out = cowsession_conflicts(cs, paths, 1, &rc, err, sizeof(err));
	ck_assert_ptr_nonnull(out);
	json_decref(out);
	/* After a commit or discard the session starts from the checkout. */
	ck_assert_int_eq(cowsession_clear(cs, err, sizeof(err)), 0);
	ck_assert_ptr_null(
	    cowsession_conflicts(cs, paths, 1, &rc, err, sizeof(err)));
	xasprintf(&cmd, "%s/cow/upper/f", sess);
	ck_assert_int_ne(access(cmd, F_OK), 0);
	free(cmd);
	/* The session is locked: a second opener is refused. */
	{
		struct cowsession *again = NULL;
		char sdir[PATH_MAX + 16];

		snprintf(sdir, sizeof(sdir), "%s/", sess);
		ck_assert_int_eq(cowsession_open(sdir, COWSESSION_LOCK, &again,
				     err, sizeof(err)),
		    AL_ERR_CONFLICT);
		ck_assert_ptr_null(again);
	}
	cowsession_free(cs);
	manifest_free(m);
	xasprintf(&cmd, "rm -rf %s", dir);
	(void)!system(cmd);
	free(cmd);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cowsession");
	TCase *tc = tcase_create("conflicts");

	tcase_set_timeout(tc, 30);
	scratch_prefix = "/tmp/airlock-cowtest";
	tcase_add_unchecked_fixture(tc, scratch_make, scratch_remove);
	tcase_add_loop_test(tc, test_cowsession_conflicts_table, 0,
	    sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, test_cowsession_clear_records_anew);
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
