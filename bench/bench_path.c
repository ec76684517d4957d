/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * bench_path: the cost of resolving an agent's path beneath the
 * workspace, against a plain openat() of the same path.
 *
 * usage: bench_path [ROUNDS]
 * Builds a small tree in a temporary directory, then runs ROUNDS rounds,
 * each timing one batch of 2000 open+close of "a/b/c/file" per method;
 * prints the median nanoseconds per open, and the ratio to plain openat().
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "policy/path.h"

#define BATCH	2000

static int
plain(int rootfd, const char *rel, int flags, int *fd, char *err, size_t n)
{
	(void)err;
	(void)n;
	*fd = openat(rootfd, rel, flags | O_CLOEXEC);
	return *fd == -1 ? -1 : 0;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	static const struct {
		const char	*name;
		int		(*fn)(int, const char *, int, int *, char *, size_t);
	} methods[] = {
		{ "openat (no checks)", plain },
		{ "path_resolve (openat2)", path_resolve },
		{ "path_resolve_walk (O_NOFOLLOW)", path_resolve_walk },
	};
	char dir[] = "/tmp/bench-path.XXXXXX", p[256], err[256];
	int rounds = argc > 1 ? atoi(argv[1]) : 21, rootfd, fd, r, i, m;
	double *t, med[3];
	FILE *fp;

	if (rounds < 1 || mkdtemp(dir) == NULL)
		return 1;
	snprintf(p, sizeof(p), "%s/a", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/b", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/b/c", dir);
	if (mkdir(p, 0755) != 0)
		return 1;
	snprintf(p, sizeof(p), "%s/a/b/c/file", dir);
	if ((fp = fopen(p, "w")) == NULL)
		return 1;
	fputs("x", fp);
	fclose(fp);
	rootfd = open(dir, O_RDONLY | O_DIRECTORY);
	/* Rounds interleave the methods, so drift on a noisy machine hits all. */
	t = calloc((size_t)rounds * 3, sizeof(*t));
	for (r = 0; r < rounds; r++) {
		for (m = 0; m < 3; m++) {
			double t0 = now_ns();

			for (i = 0; i < BATCH; i++) {
				if (methods[m].fn(rootfd, "a/b/c/file", O_RDONLY,
				    &fd, err, sizeof(err)) != 0)
					return 2;
				close(fd);
			}
			t[m * rounds + r] = (now_ns() - t0) / BATCH;
		}
	}
	for (m = 0; m < 3; m++) {
		qsort(t + m * rounds, (size_t)rounds, sizeof(*t), cmp);
		med[m] = t[m * rounds + rounds / 2];
		printf("%-34s median %7.0f ns/open  ratio %.2f\n",
		    methods[m].name, med[m], med[m] / med[0]);
	}
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	return system(p) != 0;
}
