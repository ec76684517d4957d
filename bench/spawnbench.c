/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * spawnbench: interleaved start-up timing.  On a shared, noisy machine a
 * sequential benchmark (all runs of A, then all of B) measures the load
 * as much as the commands; running A, B, C, A, B, C... exposes every
 * command to the same conditions.
 *
 * usage: spawnbench RUNS NAME CMDLINE [NAME CMDLINE]...
 * CMDLINE is split on spaces (no shell); leading NAME=VALUE words go into
 * the command's environment (as env(1) would, without a second execve
 * charged to the command).  Prints, per command, the median
 * and the 25th/75th percentiles of the wall time in milliseconds, and the
 * median's ratio to the first command's.
 *
 * SPAWNBENCH_GAP_MS=N pauses N ms before each run (not timed): what a
 * command leaves running after it exits (a kernel worker tearing down a
 * namespace, airlock's audit writer making the next session ahead)
 * then finishes before the next run instead of landing on it, as when
 * an agent's tool calls are apart.  0, the default: back to back.
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXARGS	1024

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static char **
split(const char *s)
{
	char **v = calloc(MAXARGS + 1, sizeof(*v)), *copy = strdup(s), *tok;
	size_t n = 0;

	for (tok = strtok(copy, " "); tok != NULL && n < MAXARGS;
	    tok = strtok(NULL, " "))
		v[n++] = tok;
	return v;
}

static double
run_once(char **argv)
{
	double t0 = now_ms();
	pid_t pid;
	int status;

	if ((pid = fork()) == -1) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		while (argv[0] != NULL && strchr(argv[0], '=') != NULL)
			putenv(*argv++);
		if (argv[0] != NULL)
			execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "spawnbench: %s failed (status %#x)\n",
		    argv[0], status);
		exit(1);
	}
	return now_ms() - t0;
}

int
main(int argc, char **argv)
{
	int runs, ncmd, i, k, r;
	char ***cmds, *gap_env;
	double **t, base = 0;
	struct timespec gap = { 0, 0 };
	long gap_ms;

	if (argc < 4 || (argc - 2) % 2 != 0) {
		fprintf(stderr, "usage: spawnbench RUNS NAME CMD...\n");
		return 64;
	}
	runs = atoi(argv[1]);
	if ((gap_env = getenv("SPAWNBENCH_GAP_MS")) != NULL &&
	    (gap_ms = atol(gap_env)) > 0) {
		gap.tv_sec = gap_ms / 1000;
		gap.tv_nsec = (gap_ms % 1000) * 1000000L;
	}
	ncmd = (argc - 2) / 2;
	cmds = calloc(ncmd, sizeof(*cmds));
	t = calloc(ncmd, sizeof(*t));
	for (i = 0; i < ncmd; i++) {
		cmds[i] = split(argv[3 + 2 * i]);
		t[i] = calloc(runs, sizeof(**t));
		run_once(cmds[i]);	/* warm-up */
	}
	/*
	 * The order rotates every round: each command follows each other
	 * one equally often.  (Tearing down a network namespace is deferred
	 * work that the next clone(CLONE_NEWNET) waits on, so a fixed order
	 * charges one command for its predecessor's exit.)
	 */
	for (r = 0; r < runs; r++)
		for (k = 0; k < ncmd; k++) {
			i = (k + r) % ncmd;
			if (gap.tv_sec > 0 || gap.tv_nsec > 0)
				nanosleep(&gap, NULL);
			t[i][r] = run_once(cmds[i]);
		}
	for (i = 0; i < ncmd; i++) {
		qsort(t[i], runs, sizeof(double), cmp);
		if (i == 0)
			base = t[i][runs / 2];
		printf("%s\t%.3f\t%.3f\t%.3f\t%.2f\n", argv[2 + 2 * i],
		    t[i][runs / 2], t[i][runs / 4], t[i][3 * runs / 4],
		    t[i][runs / 2] / base);
	}
	return 0;
}
