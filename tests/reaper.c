/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * reaper PIDFILE CMD [ARGS...]: runs CMD as a child of a subreaper and
 * tells what CMD left behind.
 *
 * Writes CMD's pid to PIDFILE (so that a test can signal it), waits for
 * it, then lists every process that was reparented to us (orphans of
 * CMD's tree, alive or zombie) as "left PID STATE COMM" lines in
 * PIDFILE.left, kills and reaps them, and ends that file with
 * "left-count N".  With REAPER_GRACE_MS set, waits that long first, so
 * that processes already dying (a death signal on its way) are zombies
 * by then.  Exits with CMD's
 * status as a shell reports it (128+N for a signal).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The parent pid and state of |pid| from /proc, or -1. */
static int
proc_ppid(pid_t pid, char *state, char *comm, size_t commlen)
{
	char	 path[64], buf[1024], *p, *q;
	FILE	*fp;
	int	 ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), fp) == NULL) {
		fclose(fp);
		return -1;
	}
	fclose(fp);
	if ((p = strchr(buf, '(')) == NULL || (q = strrchr(buf, ')')) == NULL)
		return -1;
	snprintf(comm, commlen, "%.*s", (int)(q - p - 1), p + 1);
	if (sscanf(q + 2, "%c %d", state, &ppid) != 2)
		return -1;
	return ppid;
}

int
main(int argc, char **argv)
{
	struct dirent	*de;
	DIR		*d;
	FILE		*fp, *rep;
	char		 rpath[4096];
	pid_t		 child, me = getpid();
	int		 status, rc, left = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: reaper PIDFILE CMD [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1) {
		perror("reaper: PR_SET_CHILD_SUBREAPER");
		return 2;
	}
	if ((child = fork()) == -1) {
		perror("reaper: fork");
		return 2;
	}
	if (child == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if ((fp = fopen(argv[1], "w")) != NULL) {
		fprintf(fp, "%d\n", (int)child);
		fclose(fp);
	}
	while (waitpid(child, &status, 0) == -1)
		if (errno != EINTR) {
			perror("reaper: waitpid");
			return 2;
		}
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	if (getenv("REAPER_GRACE_MS") != NULL)
		usleep((useconds_t)atoi(getenv("REAPER_GRACE_MS")) * 1000);
	snprintf(rpath, sizeof(rpath), "%s.left", argv[1]);
	if ((rep = fopen(rpath, "w")) == NULL) {
		perror(rpath);
		return 2;
	}
	/* Whatever is our child now was left behind by CMD's tree. */
	if ((d = opendir("/proc")) != NULL) {
		while ((de = readdir(d)) != NULL) {
			pid_t	pid = (pid_t)atoi(de->d_name);
			char	state, comm[64];

			if (pid <= 0 || proc_ppid(pid, &state, comm,
			    sizeof(comm)) != me)
				continue;
			fprintf(rep, "left %d %c %s\n", (int)pid, state, comm);
			kill(pid, SIGKILL);
			left++;
		}
		closedir(d);
	}
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	fprintf(rep, "left-count %d\n", left);
	fclose(rep);
	return rc;
}
