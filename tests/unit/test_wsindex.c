/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wsindex: the racy rule, reuse of unchanged entries, the digest as a
 * function of content, kinds and modes, and the one-shot wsdigest.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/wsdigest.h"
#include "broker/wsindex.h"
#include "common/errors.h"
#include "tests/unit/scratch.h"

static char ws[256];
static int rootfd = -1;

static void
put(const char *rel, const char *content)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", ws, rel);
	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	fputs(content, fp);
	fclose(fp);
}

static void
setup(void)
{
	char path[512];

	ck_assert_int_ge(sodium_init(), 0);
	snprintf(ws, sizeof(ws), "%s/ws.XXXXXX", scratch_dir);
	ck_assert_ptr_nonnull(mkdtemp(ws));
	snprintf(path, sizeof(path), "%s/a", ws);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	put("a/x.c", "one\n");
	put("a.c", "two\n");
	put("b", "three\n");
	ck_assert_int_ge(rootfd = open(ws, O_RDONLY | O_DIRECTORY), 0);
}

static void
teardown(void)
{
	char cmd[600];

	close(rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", ws);
	ck_assert_int_eq(system(cmd), 0);
}

static void
refresh(
    struct wsindex *x, char hex[SHA256_HEX_LEN + 1], struct wsindex_stats *s)
{
	char err[256];

	ck_assert_int_eq(wsindex_refresh(x, rootfd, hex, err, sizeof(err)), 0);
	wsindex_stats(x, s);
}

/*
 * Files written just now are racy: hashed again until they are older.
 * So is one written just now with an old mtime put back: its ctime is new.
 */
START_TEST(test_wsindex_racy_entries_are_hashed_again)
{
	struct wsindex *x = wsindex_new();
	struct wsindex_stats s;
	char h1[SHA256_HEX_LEN + 1], h2[SHA256_HEX_LEN + 1];
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	char path[512];

	snprintf(path, sizeof(path), "%s/b", ws);
	ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
	refresh(x, h1, &s);
	ck_assert_uint_eq(s.files, 3);
	ck_assert_uint_eq(s.hashed, 3);
	ck_assert_uint_eq(s.racy, 3);
	refresh(x, h2, &s);
	ck_assert_uint_eq(s.hashed, 3); /* racy: not trusted */
	ck_assert_str_eq(h1, h2);
	wsindex_free(x);
}
END_TEST

/*
 * The same content gives the same digest whatever the history; one more
 * byte, a mode bit, a rename or a new empty file changes it.
 */
START_TEST(test_wsindex_digest_is_of_content_kind_and_mode)
{
	struct wsindex *x = wsindex_new();
	struct wsindex_stats s;
	char h0[SHA256_HEX_LEN + 1], h[SHA256_HEX_LEN + 1];
	char err[256], path[512];

	refresh(x, h0, &s);
	ck_assert_int_eq(wsdigest_compute(rootfd, h, err, sizeof(err)), 0);
	ck_assert_str_eq(h, h0); /* one-shot and incremental agree */
	put("b", "threE\n");
	refresh(x, h, &s);
	ck_assert_str_ne(h, h0);
	put("b", "three\n");
	refresh(x, h, &s);
	ck_assert_str_eq(h, h0);
	snprintf(path, sizeof(path), "%s/b", ws);
	ck_assert_int_eq(chmod(path, 0755), 0);
	refresh(x, h, &s);
	ck_assert_str_ne(h, h0);
	ck_assert_int_eq(chmod(path, 0644), 0);
	put("c", "");
	refresh(x, h, &s);
	ck_assert_str_ne(h, h0);
	ck_assert_uint_eq(s.files, 4);
	snprintf(path, sizeof(path), "%s/c", ws);
	ck_assert_int_eq(unlink(path), 0);
	refresh(x, h, &s);
	ck_assert_str_eq(h, h0);
	ck_assert_uint_eq(s.files, 3);
	wsindex_free(x);
}
END_TEST

/*
 * Old entries are found in walk order ("a/x.c" before "a.c": '/' sorts
 * below every byte) and reused; a content change with the mtime put back
 * is seen by its ctime.  Waits (polling the clock) past the racy window.
 */
START_TEST(test_wsindex_reuses_old_entries_sees_ctime)
{
	struct wsindex *x = wsindex_new();
	struct wsindex_stats s;
	char h[SHA256_HEX_LEN + 1];
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	char path[512];
	struct stat st;
	time_t t0 = time(NULL);

	/* Past the racy window: every entry is then trusted. */
	while (time(NULL) < t0 + 3)
		usleep(100000);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.racy, 0);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.hashed, 0);
	/* Content changed, mtime put back: the ctime tells. */
	snprintf(path, sizeof(path), "%s/a.c", ws);
	ck_assert_int_eq(stat(path, &st), 0);
	put("a.c", "twO\n");
	old[0] = st.st_atim;
	old[1] = st.st_mtim;
	ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.hashed, 1);
	wsindex_free(x);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("wsindex");
	TCase *tc = tcase_create("wsindex");
	SRunner *sr;
	int failed;

	scratch_prefix = "/tmp/test_wsindex";
	tcase_add_unchecked_fixture(tc, scratch_make, scratch_remove);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_wsindex_racy_entries_are_hashed_again);
	tcase_add_test(tc, test_wsindex_digest_is_of_content_kind_and_mode);
	tcase_add_test(tc, test_wsindex_reuses_old_entries_sees_ctime);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
