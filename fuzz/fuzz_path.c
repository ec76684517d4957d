/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for policy/path.c: resolving an agent's path beneath
 * a real directory tree.
 *
 * A tree is built once in a temporary directory:
 *
 *	root/dir/file, root/dir/sub/deep, root/file (and a hard link
 *	root/hard to root/file), root/in -> dir (inside), root/rel ->
 *	dir/sub/deep, root/up -> .. (escapes), root/abs -> /etc (absolute),
 *	root/dir/esc -> ../../outside, root/loop -> loop, root/dangling ->
 *	nowhere, root/magic -> /proc/self/root, root/fd -> /proc/self/fd/0,
 *	outside/secret beside root.
 *
 * The first input byte picks the resolver (openat2, the O_NOFOLLOW walk,
 * or the parent resolver) and the open flags (read-only flags only, so
 * the tree does not change); the rest is the path.
 *
 * Invariants checked, beyond "does not crash":
 *   - on success the descriptor's /proc/self/fd link is the root or
 *     beneath it; on failure *out_fd is -1 and the code is documented;
 *   - no descriptor leaks (the lowest free descriptor is unchanged).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "policy/path.h"

static char top[PATH_MAX], root[PATH_MAX];
static size_t rootlen;
static int rootfd = -1;

static void
mk(const char *fmt, const char *a, const char *b)
{
	char p[PATH_MAX], q[PATH_MAX];
	int fd;

	if (snprintf(p, sizeof(p), "%s/%s", top, a) >= (int)sizeof(p))
		abort();
	if (strcmp(fmt, "dir") == 0) {
		if (mkdir(p, 0755) == -1)
			abort();
	} else if (strcmp(fmt, "file") == 0) {
		if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644)) == -1)
			abort();
		if (write(fd, "data\n", 5) != 5)
			abort();
		close(fd);
	} else if (strcmp(fmt, "symlink") == 0) {
		if (symlink(b, p) == -1)
			abort();
	} else if (strcmp(fmt, "link") == 0) {
		if (snprintf(q, sizeof(q), "%s/%s", top, b) >= (int)sizeof(q))
			abort();
		if (link(q, p) == -1)
			abort();
	}
}

static void
cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (top[0] != '\0' && strncmp(top, "/tmp/", 5) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		if (system(cmd) != 0)
			fprintf(stderr, "fuzz_path: cannot remove %s\n", top);
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char tmpl[] = "/tmp/airlock-fuzz-path.XXXXXX";

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, top) == NULL)
		abort();
	atexit(cleanup);
	mk("dir", "root", NULL);
	mk("dir", "outside", NULL);
	mk("file", "outside/secret", NULL);
	mk("dir", "root/dir", NULL);
	mk("dir", "root/dir/sub", NULL);
	mk("file", "root/dir/file", NULL);
	mk("file", "root/dir/sub/deep", NULL);
	mk("file", "root/file", NULL);
	mk("link", "root/hard", "root/file");
	mk("symlink", "root/in", "dir");
	mk("symlink", "root/rel", "dir/sub/deep");
	mk("symlink", "root/dir/back", "../file");
	mk("symlink", "root/up", "..");
	mk("symlink", "root/abs", "/etc");
	mk("symlink", "root/dir/esc", "../../outside");
	mk("symlink", "root/loop", "loop");
	mk("symlink", "root/dangling", "nowhere");
	mk("symlink", "root/magic", "/proc/self/root");
	mk("symlink", "root/fd", "/proc/self/fd/0");
	if (snprintf(root, sizeof(root), "%s/root", top) >= (int)sizeof(root))
		abort();
	rootlen = strlen(root);
	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		abort();
	return 0;
}

static void
check_beneath(int fd, const char *rel)
{
	char proc[64], target[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if ((n = readlink(proc, target, sizeof(target) - 1)) == -1)
		abort();
	target[n] = '\0';
	if (strncmp(target, root, rootlen) != 0 ||
	    (target[rootlen] != '\0' && target[rootlen] != '/')) {
		fprintf(stderr, "path %s resolved to %s, outside %s\n", rel,
		    target, root);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int flags[] = { O_RDONLY, O_RDONLY | O_DIRECTORY, O_PATH,
		O_RDONLY | O_NOFOLLOW, O_PATH | O_NOFOLLOW,
		O_RDONLY | O_NONBLOCK, O_WRONLY | O_APPEND, O_RDWR };
	char rel[PATH_REL_MAX + 64], err[256], name[256];
	int fd = -2, lowest, after, rc, mode;

	if (size < 1 || size - 1 >= sizeof(rel))
		return 0;
	mode = data[0];
	memcpy(rel, data + 1, size - 1);
	rel[size - 1] = '\0';
	if ((lowest = dup(0)) == -1)
		abort();
	close(lowest);

	memset(err, 'X', sizeof(err));
	switch ((mode >> 3) % 3) {
	case 0:
		rc = path_resolve(
		    rootfd, rel, flags[mode & 7], &fd, err, sizeof(err));
		break;
	case 1:
		rc = path_resolve_walk(
		    rootfd, rel, flags[mode & 7], &fd, err, sizeof(err));
		break;
	default:
		rc = path_resolve_parent(rootfd, rel, &fd, name,
		    (mode & 0x40) ? 4 : sizeof(name), err, sizeof(err));
		if (rc == 0 &&
		    (name[0] == '\0' || strcmp(name, ".") == 0 ||
			strcmp(name, "..") == 0 || strchr(name, '/') != NULL))
			abort();
		break;
	}
	/* err is written only on failure. */
	if (rc != 0 && memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	if (rc == 0) {
		if (fd < 0)
			abort();
		check_beneath(fd, rel);
		close(fd);
	} else {
		if (fd != -1 || err[0] == '\0')
			abort();
		if (rc != AL_ERR_PATH && rc != AL_ERR_NOT_FOUND &&
		    rc != AL_ERR_SYSTEM && rc != AL_ERR_LIMIT)
			abort();
	}
	if ((after = dup(0)) == -1)
		abort();
	close(after);
	if (after != lowest) {
		fprintf(stderr, "descriptor leak resolving %s\n", rel);
		abort();
	}
	return 0;
}
