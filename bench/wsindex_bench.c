/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wsindex_bench: the workspace index timed (bench/wsindex.sh).
 *
 *   wsindex_bench index DIR [FILE...]
 *	prints "files N mem BYTES", then "first MS" (a refresh of an empty
 *	index), "noop MS" (a refresh with nothing changed, once no entry is
 *	racy) and, when FILEs are given, "changed MS" (a refresh after one
 *	byte of each FILE was changed; they are changed back afterwards).
 *   wsindex_bench time CMD [ARG...]
 *	runs CMD with its output to /dev/null and prints its wall-clock ms.
 */
#include "config.h"

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/wsindex.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double
refresh(struct wsindex *x, int root)
{
	char hex[SHA256_HEX_LEN + 1], why[512];
	double t0 = now_ms();

	if (wsindex_refresh(x, root, hex, why, sizeof(why)) != 0)
		errx(1, "refresh: %s", why);
	return now_ms() - t0;
}

static void
flip(int root, const char *path)
{
	unsigned char c;
	int fd;

	if ((fd = openat(root, path, O_RDWR)) == -1)
		err(1, "%s", path);
	if (pread(fd, &c, 1, 0) != 1)
		err(1, "%s: read", path);
	c ^= 1;
	if (pwrite(fd, &c, 1, 0) != 1)
		err(1, "%s: write", path);
	close(fd);
}

static int
cmd_index(int argc, char **argv)
{
	struct wsindex *x = wsindex_new();
	struct wsindex_stats s;
	double first, noop, sealed, changed = 0;
	int root, i;

	if (argc < 1)
		errx(2, "usage: wsindex_bench index DIR [FILE...]");
	if ((root = open(argv[0], O_RDONLY | O_DIRECTORY)) == -1)
		err(1, "%s", argv[0]);
	first = refresh(x, root);
	wsindex_stats(x, &s);
	printf("files %zu mem %zu\n", s.files, s.bytes);
	/* Files changed by the last round are racy for a while. */
	while (s.racy > 0) {
		usleep(250000);
		refresh(x, root);
		wsindex_stats(x, &s);
	}
	noop = refresh(x, root);
	wsindex_stats(x, &s);
	if (s.hashed != 0)
		errx(1, "a refresh with nothing changed hashed %zu files",
		    s.hashed);
	/* The same with the seal (an agent that writes the workspace). */
	wsindex_want_seal(x);
	sealed = refresh(x, root);
	if (argc > 1) {
		for (i = 1; i < argc; i++)
			flip(root, argv[i]);
		changed = refresh(x, root);
		wsindex_stats(x, &s);
		if (s.hashed < (size_t)(argc - 1))
			errx(1, "%d files changed, %zu hashed", argc - 1,
			    s.hashed);
		for (i = 1; i < argc; i++)
			flip(root, argv[i]);
	}
	printf("first %.2f\nnoop %.2f\nsealed %.2f\n", first, noop, sealed);
	if (argc > 1)
		printf("changed %.2f\n", changed);
	wsindex_free(x);
	close(root);
	return 0;
}

static int
cmd_time(char **argv)
{
	double t0 = now_ms();
	pid_t pid;
	int st, fd;

	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) != -1)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) == -1)
		err(1, "waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		errx(1, "%s failed", argv[0]);
	printf("%.2f\n", now_ms() - t0);
	return 0;
}

int
main(int argc, char **argv)
{
	if (sodium_init() < 0)
		errx(1, "sodium_init");
	if (argc >= 3 && strcmp(argv[1], "index") == 0)
		return cmd_index(argc - 2, argv + 2);
	if (argc >= 3 && strcmp(argv[1], "time") == 0)
		return cmd_time(argv + 2);
	fprintf(stderr,
	    "usage: wsindex_bench index DIR [FILE...]\n"
	    "       wsindex_bench time CMD [ARG...]\n");
	return 2;
}
