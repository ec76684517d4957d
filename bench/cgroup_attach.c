/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cgroup_attach: the cost of placing a process in a cgroup, by kernel
 * interface.  For each PARENT directory given (a cgroup of a v1 or v2
 * hierarchy that may be written), makes PARENT/cgbench-PID and moves a
 * sleeping child into it and back out, N times, timing each
 * write(cgroup.procs) (the v1/v2 attach: cgroup_threadgroup_rwsem taken
 * for writing).  For a v2 PARENT it also times clone3(CLONE_INTO_CGROUP)
 * of a child that exits at once, against a plain fork of the same, until
 * it is reaped.  For a v1 PARENT it also times the calling thread
 * moving itself in and back ("0" to each tasks file: no
 * cgroup_threadgroup_rwsem, how airlock places a runner on v1).  Prints
 * median and p10..p90 in microseconds.
 *
 * With GAP_MS > 0 every measured step is preceded by GAP_MS of idleness:
 * after a while without writers, the first attach waits for an RCU grace
 * period (rcu_sync of cgroup_threadgroup_rwsem), as a one-shot
 * `airlock exec` does; back-to-back attaches stay on the writer's side
 * and are cheap.
 *
 * usage: cgroup_attach N GAP_MS PARENT...
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/magic.h>
#include <linux/sched.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
report(const char *what, const char *where, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("%-28s %-40s %8.1f us  [p10 %.1f .. p90 %.1f]\n", what, where,
	    v[n / 2], v[n / 10], v[n * 9 / 10]);
}

static int
move(const char *dir, pid_t pid)
{
	char path[4096], v[32];
	int fd, len, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	len = snprintf(v, sizeof(v), "%d", (int)pid);
	ok = write(fd, v, (size_t)len) == len;
	close(fd);
	return ok ? 0 : -1;
}

/* The calling thread into |dir|'s cgroup: "0" to its tasks file. */
static int
move_self(const char *dir)
{
	char path[4096];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/tasks", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	ok = write(fd, "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static pid_t
spawn(int cgfd)
{
	struct clone_args a;

	if (cgfd < 0)
		return fork();
	memset(&a, 0, sizeof(a));
	a.flags = CLONE_INTO_CGROUP;
	a.exit_signal = SIGCHLD;
	a.cgroup = (uint64_t)cgfd;
	return (pid_t)syscall(SYS_clone3, &a, sizeof(a));
}

int
main(int argc, char **argv)
{
	double *in, *out, *c3, *fk;
	char dir[4096];
	struct statfs sf;
	pid_t pid, kid;
	struct timespec gap;
	int n, i, a, fd, gap_ms;

	if (argc < 4 || (n = atoi(argv[1])) < 10 ||
	    (gap_ms = atoi(argv[2])) < 0) {
		fprintf(
		    stderr, "usage: cgroup_attach N(>=10) GAP_MS PARENT...\n");
		return 2;
	}
	gap.tv_sec = gap_ms / 1000;
	gap.tv_nsec = (long)(gap_ms % 1000) * 1000000L;
	in = calloc((size_t)n, sizeof(double));
	out = calloc((size_t)n, sizeof(double));
	c3 = calloc((size_t)n, sizeof(double));
	fk = calloc((size_t)n, sizeof(double));
	if (in == NULL || out == NULL || c3 == NULL || fk == NULL)
		return 1;
	for (a = 3; a < argc; a++) {
		snprintf(
		    dir, sizeof(dir), "%s/cgbench-%d", argv[a], (int)getpid());
		if (mkdir(dir, 0755) == -1) {
			perror(dir);
			return 1;
		}
		if ((pid = fork()) == 0) {
			pause();
			_exit(0);
		}
		for (i = 0; i < n; i++) {
			double t0, t1, t2;

			nanosleep(&gap, NULL);
			t0 = now_us();
			if (move(dir, pid) == -1) {
				perror("cgroup.procs");
				break;
			}
			in[i] = now_us() - t0;
			nanosleep(&gap, NULL);
			t1 = now_us();
			if (move(argv[a], pid) == -1) {
				perror("cgroup.procs (back)");
				break;
			}
			t2 = now_us();
			out[i] = t2 - t1;
		}
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (i == n) {
			report("attach (cgroup.procs)", argv[a], in, n);
			report("attach back", argv[a], out, n);
		}
		if (statfs(dir, &sf) == 0 &&
		    sf.f_type != (typeof(sf.f_type))CGROUP2_SUPER_MAGIC) {
			/* v1: this thread in and back, each after the gap. */
			for (i = 0; i < n; i++) {
				double t0;

				nanosleep(&gap, NULL);
				t0 = now_us();
				if (move_self(dir) == -1) {
					perror("tasks");
					break;
				}
				in[i] = now_us() - t0;
				t0 = now_us();
				if (move_self(argv[a]) == -1) {
					perror("tasks (back)");
					return 1;
				}
				out[i] = now_us() - t0;
			}
			if (i == n) {
				report("self in (tasks)", argv[a], in, n);
				report("self back", argv[a], out, n);
			}
		}
		if (statfs(dir, &sf) == 0 &&
		    sf.f_type == (typeof(sf.f_type))CGROUP2_SUPER_MAGIC &&
		    (fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) !=
			-1) {
			/* Interleaved: clone3 into the cgroup, then a fork. */
			for (i = 0; i < n; i++) {
				double t0;

				nanosleep(&gap, NULL);
				t0 = now_us();
				if ((kid = spawn(fd)) == 0)
					_exit(0);
				waitpid(kid, NULL, 0);
				c3[i] = now_us() - t0;
				nanosleep(&gap, NULL);
				t0 = now_us();
				if ((kid = spawn(-1)) == 0)
					_exit(0);
				waitpid(kid, NULL, 0);
				fk[i] = now_us() - t0;
			}
			report("clone3 CLONE_INTO_CGROUP", argv[a], c3, n);
			report("fork (same parent cgroup)", argv[a], fk, n);
			close(fd);
		}
		if (rmdir(dir) == -1)
			perror(dir);
	}
	return 0;
}
