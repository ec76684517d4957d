/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wsindex: the racy rule, reuse of unchanged entries, the digest as a
 * function of content, kinds and modes, the one-shot wsdigest, and the
 * digest of a wide tree listed on several threads against one computed
 * here from wsindex.h's definition.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/wsdigest.h"
#include "broker/wsindex.h"
#include "broker/wslinks.h"
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
 * byte, a mode bit (a file's, a directory's), a rename or a new empty
 * file changes it.
 */
START_TEST(test_wsindex_digest_is_of_content_kind_and_mode)
{
	struct wsindex *x = wsindex_new();
	struct wsindex_stats s;
	char h0[SHA256_HEX_LEN + 1], h[SHA256_HEX_LEN + 1];
	char h1[SHA256_HEX_LEN + 1], err[256], path[512];

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
	refresh(x, h, &s);
	ck_assert_str_eq(h, h0);
	/* Modes a check reads the tree by: unreadable, a closed directory. */
	ck_assert_int_eq(chmod(path, 0600), 0);
	refresh(x, h, &s);
	ck_assert_str_ne(h, h0);
	ck_assert_int_eq(chmod(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/d", ws);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	refresh(x, h1, &s);
	ck_assert_int_eq(chmod(path, 0), 0);
	refresh(x, h, &s);
	ck_assert_str_ne(h, h1);
	ck_assert_int_eq(chmod(path, 0755), 0);
	refresh(x, h, &s);
	ck_assert_str_eq(h, h1);
	ck_assert_int_eq(rmdir(path), 0);
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

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* BLAKE2b-256 of a file with no holes: ('D', 0, size) and its bytes. */
static void
ref_file(int dirfd, const char *name, off_t size, unsigned char md[32])
{
	crypto_generichash_state st;
	unsigned char h[17], buf[4096];
	uint64_t z = 0, n = (uint64_t)size;
	ssize_t r;
	int fd;

	crypto_generichash_init(&st, NULL, 0, 32);
	if (size > 0) {
		h[0] = 'D';
		memcpy(h + 1, &z, 8);
		memcpy(h + 9, &n, 8);
		crypto_generichash_update(&st, h, sizeof(h));
		ck_assert_int_ge(fd = openat(dirfd, name, O_RDONLY), 0);
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			crypto_generichash_update(&st, buf, (size_t)r);
		close(fd);
	}
	crypto_generichash_final(&st, md, 32);
}

/* A file's or directory's permission bits, as wsindex.h defines them. */
static void
ref_perm(crypto_generichash_state *st, const struct stat *sb)
{
	unsigned char b[2] = { sb->st_mode & 0xff, (sb->st_mode >> 8) & 017 };

	crypto_generichash_update(st, b, 2);
}

/* The digest as wsindex.h defines it, one directory at a time. */
static void
ref_walk(crypto_generichash_state *st, int dirfd, char *path, size_t plen)
{
	DIR *d;
	struct dirent *de;
	struct stat sb;
	char *names[512], target[256];
	unsigned char md[32];
	size_t n = 0, i, l;
	ssize_t tl;
	int sub;

	ck_assert_ptr_nonnull(d = fdopendir(dup(dirfd)));
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    !(plen == 0 && strcmp(de->d_name, ".git") == 0)) {
			ck_assert_uint_lt(n, 512);
			names[n++] = strdup(de->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		l = strlen(names[i]);
		memcpy(path + plen, names[i], l);
		crypto_generichash_update(
		    st, (const unsigned char *)path, plen + l);
		ck_assert_int_eq(
		    fstatat(dirfd, names[i], &sb, AT_SYMLINK_NOFOLLOW), 0);
		if (S_ISREG(sb.st_mode)) {
			crypto_generichash_update(st,
			    (const unsigned char *)((sb.st_mode & 0111)
				    ? "\0x"
				    : "\0f"),
			    3);
			ref_perm(st, &sb);
			ref_file(dirfd, names[i], sb.st_size, md);
			crypto_generichash_update(st, md, 32);
		} else if (S_ISDIR(sb.st_mode)) {
			crypto_generichash_update(
			    st, (const unsigned char *)"\0d", 3);
			ref_perm(st, &sb);
			ck_assert_int_ge(
			    sub = openat(dirfd, names[i], O_RDONLY), 0);
			path[plen + l] = '/';
			ref_walk(st, sub, path, plen + l + 1);
			close(sub);
		} else if (S_ISLNK(sb.st_mode)) {
			crypto_generichash_update(
			    st, (const unsigned char *)"\0l", 3);
			tl =
			    readlinkat(dirfd, names[i], target, sizeof(target));
			ck_assert_int_ge(tl, 0);
			crypto_generichash_update(
			    st, (const unsigned char *)target, (size_t)tl);
			crypto_generichash_update(
			    st, (const unsigned char *)"", 1);
		} else
			crypto_generichash_update(
			    st, (const unsigned char *)"\0o", 3);
		free(names[i]);
	}
}

/* The threads of this process (wsscan's must be gone after a refresh). */
static int
task_count(void)
{
	DIR *d;
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d = opendir("/proc/self/task"));
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * A tree wider than the listing threads' queue (64 directories waiting),
 * deep, with names created out of order and names that sort around '/'
 * ("s1" and "s1.c": the directory's entries come between), executables,
 * empty files, symlinks, a FIFO and a .git left out: the digest is the
 * one wsindex.h defines, from the one-shot and the incremental index,
 * and no thread is left behind.
 */
START_TEST(test_wsindex_wide_tree_digest_is_defined_one)
{
	struct wsindex *x = wsindex_new();
	struct wsindex_stats s;
	crypto_generichash_state st;
	unsigned char md[32];
	char want[SHA256_HEX_LEN + 1], h[SHA256_HEX_LEN + 1];
	char rel[512], path[4096], err[256];
	int i, j, k;

	for (i = 0; i < 150; i++) {
		k = (i * 37) % 150; /* out of order */
		snprintf(rel, sizeof(rel), "%s/s%d", ws, k);
		ck_assert_int_eq(mkdir(rel, 0755), 0);
		snprintf(rel, sizeof(rel), "s%d.c", k);
		put(rel, "sibling\n");
		for (j = 0; j < 3; j++) {
			snprintf(rel, sizeof(rel), "s%d/f%d", k, 2 - j);
			put(rel, j == 1 ? "" : rel);
		}
		if (k % 10 == 0) {
			snprintf(rel, sizeof(rel), "%s/s%d/sub", ws, k);
			ck_assert_int_eq(mkdir(rel, 0755), 0);
			snprintf(rel, sizeof(rel), "s%d/sub/deep", k);
			put(rel, "deep\n");
			snprintf(rel, sizeof(rel), "%s/s%d/sub/deep", ws, k);
			ck_assert_int_eq(chmod(rel, 0755), 0);
			snprintf(rel, sizeof(rel), "%s/s%d/sub/ln", ws, k);
			ck_assert_int_eq(symlink("../f0", rel), 0);
		}
	}
	snprintf(rel, sizeof(rel), "%s/fifo", ws);
	ck_assert_int_eq(mkfifo(rel, 0600), 0);
	snprintf(rel, sizeof(rel), "%s/.git", ws);
	ck_assert_int_eq(mkdir(rel, 0755), 0);
	put(".git/HEAD", "ref: refs/heads/main\n");

	crypto_generichash_init(&st, NULL, 0, 32);
	ref_walk(&st, rootfd, path, 0);
	crypto_generichash_final(&st, md, 32);
	sodium_bin2hex(want, sizeof(want), md, 32);

	refresh(x, h, &s);
	ck_assert_str_eq(h, want);
	ck_assert_uint_eq(s.files, 3 + 150 * 4 + 15);
	refresh(x, h, &s);
	ck_assert_str_eq(h, want);
	ck_assert_int_eq(wsdigest_compute(rootfd, h, err, sizeof(err)), 0);
	ck_assert_str_eq(h, want);
	ck_assert_int_eq(task_count(), 1);
	wsindex_free(x);
}
END_TEST

/*
 * A regular file with another name (a hard link, which may lie outside
 * the tree) is counted, whether its hash was computed or reused: a
 * write through that name changes the file with no event in the tree
 * (broker/runcall.c, gate_seal()).
 */
START_TEST(test_wsindex_counts_files_with_another_name)
{
	struct wsindex *x = wsindex_new();
	struct wsindex_stats s;
	char h[SHA256_HEX_LEN + 1], path[512], other[512];

	refresh(x, h, &s);
	ck_assert_uint_eq(s.linked, 0);
	snprintf(path, sizeof(path), "%s/b", ws);
	snprintf(other, sizeof(other), "%s/b.other", scratch_dir);
	ck_assert_int_eq(link(path, other), 0);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.linked, 1);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.linked, 1);
	ck_assert_int_eq(unlink(other), 0);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.linked, 0);
	wsindex_free(x);
}
END_TEST

/*
 * The linked files judged by a walk of the trees the agent writes
 * (broker/wslinks.h): one whose other name lies outside them is not
 * exposed, one whose other name lies in them is, and so is one linked
 * after the walk began (a link made since sets its ctime), which the
 * walk could not judge.  No walk: every one is.
 */
START_TEST(test_wsindex_judges_linked_files_by_the_walk)
{
	struct wsindex *x = wsindex_new();
	struct wsindex_stats s;
	struct wslinks *l;
	struct stat sb;
	struct timespec nap = { 0, 30000000 };
	char h[SHA256_HEX_LEN + 1], path[512], other[600], agent[512];
	const char *roots[1] = { agent };

	snprintf(agent, sizeof(agent), "%s/agent-writes", scratch_dir);
	ck_assert_int_eq(mkdir(agent, 0755), 0);
	snprintf(path, sizeof(path), "%s/b", ws);
	snprintf(other, sizeof(other), "%s/b.store", scratch_dir);
	ck_assert_int_eq(link(path, other), 0);
	snprintf(path, sizeof(path), "%s/a.c", ws);
	snprintf(other, sizeof(other), "%s/a.c.agent", agent);
	ck_assert_int_eq(link(path, other), 0);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.linked, 2);
	ck_assert_uint_eq(s.exposed, 2);
	/* The links' ctimes a coarse tick behind the walk's start. */
	nanosleep(&nap, NULL);
	ck_assert_int_eq(stat(ws, &sb), 0);
	l = wslinks_walk((uint64_t)sb.st_dev, roots, 1);
	ck_assert_int_eq(l->complete, 1);
	ck_assert_uint_eq(l->n, 1);
	wsindex_set_links(x, l);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.linked, 2);
	ck_assert_uint_eq(s.exposed, 1);
	snprintf(path, sizeof(path), "%s/a/x.c", ws);
	snprintf(other, sizeof(other), "%s/x.c.store", scratch_dir);
	ck_assert_int_eq(link(path, other), 0);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.linked, 3);
	ck_assert_uint_eq(s.exposed, 2);
	wsindex_set_links(x, NULL);
	refresh(x, h, &s);
	ck_assert_uint_eq(s.exposed, 3);
	wsindex_free(x);
	wslinks_free(l);
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
	tcase_add_test(tc, test_wsindex_wide_tree_digest_is_defined_one);
	tcase_add_test(tc, test_wsindex_counts_files_with_another_name);
	tcase_add_test(tc, test_wsindex_judges_linked_files_by_the_walk);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
