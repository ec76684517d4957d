/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * bench_shrules: the cost of deciding an exec tool's command string under
 * the shipped rule set (contrib/manifests/shell-rules.yaml), per string,
 * against the cost of the fork+exec of /bin/true that running any command
 * costs at the least.
 *
 * usage: bench_shrules MANIFEST [ROUNDS]
 * Each round times one batch per input (short, a pipeline, a 4 KiB
 * script with a here-document, and find's expression with links and
 * removals decided with a workspace hook, as the broker decides) and
 * one batch of fork+exec+wait of /bin/true, interleaved; prints the median microseconds per call with
 * the minimum and maximum, and the ratio to fork+exec.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "policy/manifest.h"
#include "policy/shrules.h"

#define BATCH 2000
#define SPAWNS 50

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The broker's hook asks the workspace; here nothing is a link. */
static enum shfs_where
inside(void *arg, const char *rel)
{
	(void)arg;
	(void)rel;
	return SHFS_INSIDE;
}

static double
spawn_us(void)
{
	double t0 = now_us();
	int i, st;
	pid_t pid;

	for (i = 0; i < SPAWNS; i++) {
		if ((pid = fork()) == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (pid == -1 || waitpid(pid, &st, 0) == -1)
			exit(1);
	}
	return (now_us() - t0) / SPAWNS;
}

int
main(int argc, char **argv)
{
	static char big[4200];
	static const struct shfs fs = { inside, NULL };
	const char *inputs[4];
	const char *names[4] = { "git status", "pipeline of 4",
		"4 KiB script + heredoc", "find, ln, rm -r (fs hook)" };
	const struct shell_rules *r;
	struct manifest *m;
	struct shverdict v;
	double *t[5], med[5];
	char err[512];
	int rounds, i, k, b;
	size_t off = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_shrules MANIFEST [ROUNDS]\n");
		return 2;
	}
	rounds = argc > 2 ? atoi(argv[2]) : 21;
	if (rounds < 1)
		rounds = 1;
	if (manifest_load(argv[1], &m, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (m->ntools == 0 || (r = m->tools[0].shell_rules) == NULL) {
		fprintf(
		    stderr, "%s: the first tool has no shell rules\n", argv[1]);
		return 1;
	}
	off += (size_t)snprintf(big, sizeof(big), "cat <<'EOF' >notes.txt\n");
	while (off < 3000)
		off += (size_t)snprintf(big + off, sizeof(big) - off,
		    "line %zu of the notes $(not run)\n", off);
	off += (size_t)snprintf(big + off, sizeof(big) - off, "EOF\n");
	while (off < 4000)
		off += (size_t)snprintf(big + off, sizeof(big) - off,
		    "make test && git diff --stat | sort -n; ");
	inputs[0] = "git status";
	inputs[1] = "git log --oneline | grep -v wip | sort | head -20 >o";
	inputs[2] = big;
	inputs[3] = "cd src && ln -s ../build out && find . \\( -name '*.o' "
		    "-o -name '*.a' \\) ! -path './keep/*' -delete && "
		    "mv out old && rm -rf old build/x/ ../tmp/";
	for (k = 0; k < 5; k++)
		t[k] = calloc((size_t)rounds, sizeof(double));
	for (i = 0; i < rounds; i++) {
		for (k = 0; k < 4; k++) {
			double t0 = now_us();

			for (b = 0; b < BATCH; b++)
				(void)shrules_decide_fs(r, inputs[k],
				    strlen(inputs[k]), "/ws",
				    k == 3 ? &fs : NULL, &v);
			t[k][i] = (now_us() - t0) / BATCH;
		}
		t[4][i] = spawn_us();
	}
	for (k = 0; k < 5; k++) {
		qsort(t[k], (size_t)rounds, sizeof(double), cmp);
		med[k] = t[k][rounds / 2];
	}
	printf("%-26s %12s %12s %12s %10s\n", "input", "median us", "min us",
	    "max us", "/ spawn");
	for (k = 0; k < 4; k++)
		printf("%-26s %12.2f %12.2f %12.2f %10.4f\n", names[k], med[k],
		    t[k][0], t[k][rounds - 1], med[k] / med[4]);
	printf("%-26s %12.2f %12.2f %12.2f %10.4f\n", "fork+exec /bin/true",
	    med[4], t[4][0], t[4][rounds - 1], 1.0);
	printf("(%d rounds, %d decisions or %d spawns per batch, "
	       "interleaved)\n",
	    rounds, BATCH, SPAWNS);
	for (k = 0; k < 5; k++)
		free(t[k]);
	manifest_free(m);
	return 0;
}
