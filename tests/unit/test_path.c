/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Unit tests for policy/path.c against a real directory tree with
 * symlinks, hard links and a live rename race.  Both implementations
 * (openat2, and the O_NOFOLLOW walk used where openat2 is missing) run
 * every row.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <check.h>

#include "common/errors.h"
#include "tests/unit/scratch.h"
#include "policy/path.h"

static char top[256];		/* T */
static int wsfd = -1;		/* T/ws */

typedef int (*resolve_fn)(int, const char *, int, int *, char *, size_t);
static const resolve_fn impls[] = { path_resolve, path_resolve_walk };
static const char *const impl_names[] = { "openat2", "walk" };

static void
xwrite(const char *rel, const char *text)
{
	char p[512];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	ck_assert_msg((fp = fopen(p, "w")) != NULL, "%s", p);
	fputs(text, fp);
	fclose(fp);
}

static void
xmkdir(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void
xsymlink(const char *target, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	ck_assert_int_eq(symlink(target, p), 0);
}

static void
setup(void)
{
	char p[512], q[512];

	snprintf(top, sizeof(top), "%s/t.XXXXXX", scratch_dir);
	ck_assert_ptr_nonnull(mkdtemp(top));
	xmkdir("outside");
	xwrite("outside/secret", "OUTSIDE");
	xmkdir("outside/d");
	xwrite("outside/d/f", "OUTSIDE");
	xmkdir("ws");
	xwrite("ws/file", "in");
	xmkdir("ws/dir");
	xmkdir("ws/dir/sub");
	xwrite("ws/dir/sub/file2", "in2");
	xsymlink("dir/sub", "ws/link_in");
	xsymlink("file", "ws/link_in_file");
	xsymlink("..", "ws/dir/up");
	xsymlink("../..", "ws/dir/upup");
	xsymlink("../outside", "ws/link_out");
	xsymlink("../outside/secret", "ws/link_out_file");
	xsymlink("/etc", "ws/link_abs");
	snprintf(p, sizeof(p), "%s/ws/file", top);
	xsymlink(p, "ws/link_abs_in");
	xsymlink("/proc/self/root", "ws/proc");
	xsymlink("loop2", "ws/loop1");
	xsymlink("loop1", "ws/loop2");
	xsymlink("nowhere", "ws/dangling");
	snprintf(p, sizeof(p), "%s/ws/fifo", top);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	snprintf(p, sizeof(p), "%s/outside/secret", top);
	snprintf(q, sizeof(q), "%s/ws/hard", top);
	ck_assert_int_eq(link(p, q), 0);
	snprintf(p, sizeof(p), "%s/ws", top);
	ck_assert_int_ge(wsfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC), 0);
}

static void
teardown(void)
{
	char cmd[600];

	close(wsfd);
	wsfd = -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		ck_abort_msg("cleanup failed");
}

/* What a row expects from each implementation. */
#define OK	0
#define ESC	AL_ERR_PATH
#define NOENT	AL_ERR_NOT_FOUND

static const struct prow {
	const char	*rel;
	int		 flags;
	int		 want_openat2;
	int		 want_walk;	/* the walk follows no symlinks */
	const char	*target;	/* file it must be, under T */
} prows[] = {
	{ "file",			O_RDONLY, OK, OK, "ws/file" },
	{ "dir/sub/file2",		O_RDONLY, OK, OK, "ws/dir/sub/file2" },
	{ "./dir//sub/./file2",		O_RDONLY, OK, OK, "ws/dir/sub/file2" },
	{ "dir/sub/",			O_RDONLY | O_DIRECTORY, OK, OK, "ws/dir/sub" },
	{ ".",				O_RDONLY | O_DIRECTORY, OK, OK, "ws" },
	{ "link_in/file2",		O_RDONLY, OK, ESC, "ws/dir/sub/file2" },
	{ "link_in_file",		O_RDONLY, OK, ESC, "ws/file" },
	{ "dir/up/file",		O_RDONLY, OK, ESC, "ws/file" },
	{ "link_in_file",		O_PATH, OK, ESC, "ws/file" },
	/* Escapes. */
	{ "/etc/passwd",		O_RDONLY, ESC, ESC, NULL },
	{ "../outside/secret",		O_RDONLY, ESC, ESC, NULL },
	{ "dir/../../outside/secret",	O_RDONLY, ESC, ESC, NULL },
	{ "dir/../file",		O_RDONLY, ESC, ESC, NULL },
	{ "..",				O_RDONLY, ESC, ESC, NULL },
	{ "",				O_RDONLY, ESC, ESC, NULL },
	{ "link_out/secret",		O_RDONLY, ESC, ESC, NULL },
	{ "link_out",			O_RDONLY | O_DIRECTORY, ESC, ESC, NULL },
	{ "link_out_file",		O_RDONLY, ESC, ESC, NULL },
	{ "link_out_file",		O_PATH, ESC, ESC, NULL },
	{ "link_abs/passwd",		O_RDONLY, ESC, ESC, NULL },
	{ "link_abs_in",		O_RDONLY, ESC, ESC, NULL },
	{ "dir/upup/outside/secret",	O_RDONLY, ESC, ESC, NULL },
	{ "proc/etc/passwd",		O_RDONLY, ESC, ESC, NULL },
	{ "loop1",			O_RDONLY, ESC, ESC, NULL },
	{ "hard",			O_RDONLY, ESC, ESC, NULL },
	{ "hard",			O_WRONLY | O_TRUNC, ESC, ESC, NULL },
	{ "link_out/newfile",		O_WRONLY | O_CREAT, ESC, ESC, NULL },
	{ "link_out_file",		O_WRONLY | O_TRUNC, ESC, ESC, NULL },
	/* A FIFO would block the broker forever; a write has no reader. */
	{ "fifo",			O_RDONLY, ESC, ESC, NULL },
	{ "fifo",			O_WRONLY, ESC, ESC, NULL },
	/* Writes and misses. */
	{ "file",			O_WRONLY, OK, OK, "ws/file" },
	{ "dir/newfile",		O_WRONLY | O_CREAT, OK, OK, "ws/dir/newfile" },
	{ "missing",			O_RDONLY, NOENT, NOENT, NULL },
	{ "missing/x",			O_RDONLY, NOENT, NOENT, NULL },
	{ "dangling",			O_RDONLY, NOENT, ESC, NULL },
};

static void
assert_outside_untouched(void)
{
	char p[512], buf[32] = "";
	FILE *fp;

	snprintf(p, sizeof(p), "%s/outside/secret", top);
	ck_assert_ptr_nonnull(fp = fopen(p, "r"));
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	ck_assert_str_eq(buf, "OUTSIDE");
	snprintf(p, sizeof(p), "%s/outside/newfile", top);
	ck_assert_int_eq(access(p, F_OK), -1);
}

START_TEST(test_resolve_opens_beneath_the_workspace_or_refuses)
{
	size_t impl;

	for (impl = 0; impl < 2; impl++) {
		const struct prow *r = &prows[_i];
		int want = impl == 0 ? r->want_openat2 : r->want_walk;
		struct stat got, exp;
		char err[512], p[512];
		int fd = 12345, rc;

		err[0] = '\0';
		rc = impls[impl](wsfd, r->rel, r->flags, &fd, err, sizeof(err));
		ck_assert_msg(rc == want, "%s \"%s\": got %d (%s), want %d",
		    impl_names[impl], r->rel, rc, err, want);
		if (rc != 0) {
			ck_assert_int_eq(fd, -1);
			ck_assert_msg(err[0] != '\0', "no reason given");
			assert_outside_untouched();
			continue;
		}
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(fstat(fd, &got), 0);
		snprintf(p, sizeof(p), "%s/%s", top, r->target);
		ck_assert_int_eq(stat(p, &exp), 0);
		ck_assert_msg(got.st_ino == exp.st_ino && got.st_dev == exp.st_dev,
		    "%s \"%s\" opened the wrong file", impl_names[impl], r->rel);
		ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
		if (!(r->flags & O_PATH))
			ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
		close(fd);
		if (r->flags & O_CREAT)
			unlink(p);
	}
}
END_TEST

START_TEST(test_resolve_refuses_overlong_paths)
{
	char *rel = malloc(PATH_REL_MAX + 2), err[256];
	int fd;

	memset(rel, 'a', PATH_REL_MAX + 1);
	rel[PATH_REL_MAX + 1] = '\0';
	ck_assert_int_eq(path_resolve(wsfd, rel, O_RDONLY, &fd, err,
	    sizeof(err)), AL_ERR_PATH);
	ck_assert_ptr_nonnull(strstr(err, "longer than 4096"));
	free(rel);
}
END_TEST

START_TEST(test_resolve_refuses_proc_magic_links)
{
	int procfd, fd, rc;
	char err[256];

	ck_assert_int_ge(procfd = open("/proc/self", O_RDONLY | O_DIRECTORY), 0);
	rc = path_resolve(procfd, "root/etc/passwd", O_RDONLY, &fd, err,
	    sizeof(err));
	ck_assert_int_eq(rc, AL_ERR_PATH);
	rc = path_resolve(procfd, "cwd", O_RDONLY | O_DIRECTORY, &fd, err,
	    sizeof(err));
	ck_assert_int_eq(rc, AL_ERR_PATH);
	rc = path_resolve(procfd, "fd/0", O_RDONLY, &fd, err, sizeof(err));
	ck_assert_int_eq(rc, AL_ERR_PATH);
	rc = path_resolve_walk(procfd, "cwd", O_RDONLY | O_DIRECTORY, &fd, err,
	    sizeof(err));
	ck_assert_int_eq(rc, AL_ERR_PATH);
	close(procfd);
}
END_TEST

START_TEST(test_refused_hardlink_write_does_not_truncate)
{
	char err[256];
	int fd;

	ck_assert_int_eq(path_resolve(wsfd, "hard", O_WRONLY | O_TRUNC, &fd,
	    err, sizeof(err)), AL_ERR_PATH);
	ck_assert_ptr_nonnull(strstr(err, "hard links"));
	assert_outside_untouched();
	/* The same flags truncate an ordinary file. */
	ck_assert_int_eq(path_resolve(wsfd, "file", O_WRONLY | O_TRUNC, &fd,
	    err, sizeof(err)), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_END), 0);
	close(fd);
}
END_TEST

/* {rel, result, parent under T, final name} */
static const struct parent_row {
	const char	*rel;
	int		 want;
	const char	*parent;
	const char	*name;
} parent_rows[] = {
	{ "new.txt",		OK,	"ws",		"new.txt" },
	{ "dir/sub/new.txt",	OK,	"ws/dir/sub",	"new.txt" },
	{ "dir/sub/",		OK,	"ws/dir",	"sub" },
	{ "link_in/new.txt",	OK,	"ws/dir/sub",	"new.txt" },
	{ "link_out/new.txt",	ESC,	NULL,		NULL },
	{ "dir/upup/x",		ESC,	NULL,		NULL },
	{ "dir/..",		ESC,	NULL,		NULL },
	{ ".",			ESC,	NULL,		NULL },
	{ "/tmp/x",		ESC,	NULL,		NULL },
	{ "missing/x",		NOENT,	NULL,		NULL },
};

START_TEST(test_resolve_parent_opens_the_directory_and_returns_the_name)
{
	const struct parent_row *r = &parent_rows[_i];
	struct stat got, exp;
	char name[256], err[256], p[512];
	int dfd, rc;

	rc = path_resolve_parent(wsfd, r->rel, &dfd, name, sizeof(name), err,
	    sizeof(err));
	ck_assert_msg(rc == r->want, "\"%s\": got %d (%s)", r->rel, rc, err);
	if (rc != 0) {
		ck_assert_int_eq(dfd, -1);
		return;
	}
	ck_assert_str_eq(name, r->name);
	ck_assert_int_eq(fstat(dfd, &got), 0);
	snprintf(p, sizeof(p), "%s/%s", top, r->parent);
	ck_assert_int_eq(stat(p, &exp), 0);
	ck_assert(got.st_ino == exp.st_ino);
	close(dfd);
}
END_TEST

/*
 * The rename race: one thread swaps ws/race (a directory holding f) with
 * ws/racelink (a symlink to ../outside/d, which holds its own f) as fast
 * as it can, while the test resolves race/f and racelink/f in a loop.
 * No descriptor may ever be the outside file.
 */
static volatile int racing;

static void *
swapper(void *arg)
{
	(void)arg;
	while (racing)
		(void)renameat2(wsfd, "race", wsfd, "racelink", RENAME_EXCHANGE);
	return NULL;
}

START_TEST(test_resolve_survives_a_rename_race_to_a_symlink_out)
{
	struct stat outside, st;
	pthread_t th;
	char p[512], err[256];
	size_t impl, i, inside = 0, outside_hits = 0, refused = 0;
	int fd;

	xmkdir("ws/race");
	xwrite("ws/race/f", "INSIDE");
	xsymlink("../outside/d", "ws/racelink");
	snprintf(p, sizeof(p), "%s/outside/d/f", top);
	ck_assert_int_eq(stat(p, &outside), 0);
	racing = 1;
	ck_assert_int_eq(pthread_create(&th, NULL, swapper, NULL), 0);
	for (impl = 0; impl < 2; impl++) {
		for (i = 0; i < 20000; i++) {
			const char *rel = (i & 1) ? "race/f" : "racelink/f";

			if (impls[impl](wsfd, rel, O_RDONLY, &fd, err,
			    sizeof(err)) != 0) {
				refused++;
				continue;
			}
			ck_assert_int_eq(fstat(fd, &st), 0);
			if (st.st_ino == outside.st_ino &&
			    st.st_dev == outside.st_dev)
				outside_hits++;
			else
				inside++;
			close(fd);
		}
	}
	racing = 0;
	pthread_join(th, NULL);
	ck_assert_msg(outside_hits == 0, "%zu descriptors landed outside",
	    outside_hits);
	/* The race really ran both ways. */
	ck_assert_uint_gt(inside, 0);
	ck_assert_uint_gt(refused, 0);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("path");
	TCase *tc = tcase_create("core");

	scratch_prefix = "/tmp/airlock-path";
	tcase_add_unchecked_fixture(tc, scratch_make, scratch_remove);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_resolve_opens_beneath_the_workspace_or_refuses,
	    0, sizeof(prows) / sizeof(prows[0]));
	tcase_add_test(tc, test_resolve_refuses_overlong_paths);
	tcase_add_test(tc, test_resolve_refuses_proc_magic_links);
	tcase_add_test(tc, test_refused_hardlink_write_does_not_truncate);
	tcase_add_loop_test(tc,
	    test_resolve_parent_opens_the_directory_and_returns_the_name, 0,
	    sizeof(parent_rows) / sizeof(parent_rows[0]));
	tcase_add_test(tc, test_resolve_survives_a_rename_race_to_a_symlink_out);
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
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
