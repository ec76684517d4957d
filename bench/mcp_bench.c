/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * mcp_bench: tools/call round trips through "airlock serve", against a
 * bare socketpair echo in the same run.
 *
 * usage: mcp_bench AIRLOCK WORKSPACE MANIFEST N
 * Prints, for each kind of request, calls per second and the median and
 * 90th percentile round-trip latency in microseconds, and the ratio of
 * the median to the echo's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
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
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Reads one line from fd into buf (a crude but adequate line reader). */
static int
read_line(int fd, char *buf, size_t cap, size_t *have)
{
	for (;;) {
		char	*nl = memchr(buf, '\n', *have);
		ssize_t	 n;

		if (nl != NULL) {
			size_t used = (size_t)(nl - buf) + 1;

			memmove(buf, buf + used, *have - used);
			*have -= used;
			return 0;
		}
		if (*have == cap)
			*have = 0;	/* an over-long line: drop it */
		n = read(fd, buf + *have, cap - *have);
		if (n <= 0)
			return -1;
		*have += (size_t)n;
	}
}

struct peer {
	pid_t	 pid;
	int	 fd;
	char	 buf[1 << 20];
	size_t	 have;
};

static void
start_echo(struct peer *p)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		exit(1);
	if ((p->pid = fork()) == 0) {
		char	buf[65536];
		ssize_t	n;

		close(sv[0]);
		while ((n = read(sv[1], buf, sizeof(buf))) > 0)
			if (write(sv[1], buf, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	close(sv[1]);
	p->fd = sv[0];
	p->have = 0;
}

static void
start_airlock(struct peer *p, const char *airlock, const char *ws,
    const char *manifest)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		exit(1);
	if ((p->pid = fork()) == 0) {
		close(sv[0]);
		dup2(sv[1], 0);
		dup2(sv[1], 1);
		execl(airlock, "airlock", "serve", "--workspace", ws,
		    "--manifest", manifest,
		    (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	p->fd = sv[0];
	p->have = 0;
}

static void
stop(struct peer *p)
{
	int status;

	close(p->fd);
	waitpid(p->pid, &status, 0);
}

static void
call(struct peer *p, const char *line)
{
	if (write(p->fd, line, strlen(line)) != (ssize_t)strlen(line) ||
	    read_line(p->fd, p->buf, sizeof(p->buf), &p->have) != 0) {
		fprintf(stderr, "mcp_bench: peer died\n");
		exit(1);
	}
}

/* Copies |fmt| to |out| with every '@' replaced by |id|. */
static void
fill(char *out, size_t cap, const char *fmt, int id)
{
	size_t	o = 0;
	char	num[16];

	snprintf(num, sizeof(num), "%d", id);
	for (; *fmt != '\0' && o + sizeof(num) < cap; fmt++) {
		if (*fmt == '@') {
			memcpy(out + o, num, strlen(num));
			o += strlen(num);
		} else
			out[o++] = *fmt;
	}
	out[o] = '\0';
}

static double
measure(struct peer *p, const char *label, const char *fmt, int n,
    double ref_median)
{
	double	*lat = calloc((size_t)n, sizeof(double));
	double	 t0, total, median;
	char	 line[1024];
	int	 i;
	static int id = 100;

	total = now_us();
	for (i = 0; i < n; i++) {
		fill(line, sizeof(line), fmt, id++);
		t0 = now_us();
		call(p, line);
		lat[i] = now_us() - t0;
	}
	total = now_us() - total;
	qsort(lat, (size_t)n, sizeof(double), cmp_double);
	median = lat[n / 2];
	printf("%-28s %8.0f calls/s  median %8.1f us  p90 %8.1f us",
	    label, n / (total / 1e6), median, lat[n * 9 / 10]);
	if (ref_median > 0)
		printf("  %6.1fx echo", median / ref_median);
	printf("\n");
	free(lat);
	return median;
}

/* One "airlock exec -- true", timed from fork to reaped. */
static double
time_exec(const char *airlock, const char *ws, const char *manifest)
{
	double	t0 = now_us();
	pid_t	pid;
	int	status;

	if ((pid = fork()) == 0) {
		execl(airlock, "airlock", "exec", "--workspace", ws,
		    "--manifest", manifest, "--", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	return now_us() - t0;
}

/*
 * run_check of "true" through the broker against "airlock exec -- true",
 * interleaved one for one so that both see the same load.
 */
static void
exec_vs_check(struct peer *p, const char *airlock, const char *ws,
    const char *manifest, int n)
{
	double	*ex = calloc((size_t)n, sizeof(double));
	double	*rc = calloc((size_t)n, sizeof(double));
	char	 line[1024];
	double	 t0;
	int	 i;

	for (i = 0; i < n; i++) {
		ex[i] = time_exec(airlock, ws, manifest);
		fill(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":\"x@\","
		    "\"method\":\"tools/call\",\"params\":{\"name\":"
		    "\"run_check\",\"arguments\":{\"checkId\":\"bench.true\","
		    "\"idempotencyKey\":\"x@\"}}}\n", i);
		t0 = now_us();
		call(p, line);
		rc[i] = now_us() - t0;
	}
	qsort(ex, (size_t)n, sizeof(double), cmp_double);
	qsort(rc, (size_t)n, sizeof(double), cmp_double);
	printf("%-28s median %8.1f us\n", "airlock exec -- true", ex[n / 2]);
	printf("%-28s median %8.1f us  %+.1f%% over exec (interleaved, n=%d)\n",
	    "run_check true (broker)", rc[n / 2],
	    100.0 * (rc[n / 2] - ex[n / 2]) / ex[n / 2], n);
	free(ex);
	free(rc);
}

int
main(int argc, char **argv)
{
	struct peer	*p = calloc(1, sizeof(*p));
	double		 echo;
	int		 n;

	if (argc != 5) {
		fprintf(stderr, "usage: mcp_bench AIRLOCK WORKSPACE MANIFEST N\n");
		return 2;
	}
	n = atoi(argv[4]);
	signal(SIGPIPE, SIG_IGN);

	start_echo(p);
	echo = measure(p, "socketpair echo (reference)",
	    "{\"jsonrpc\":\"2.0\",\"id\":@,\"method\":\"ping\"}\n", n, 0);
	stop(p);

	start_airlock(p, argv[1], argv[2], argv[3]);
	call(p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n");
	measure(p, "ping", "{\"jsonrpc\":\"2.0\",\"id\":@,\"method\":"
	    "\"ping\"}\n", n, echo);
	measure(p, "tools/call refused (path)", "{\"jsonrpc\":\"2.0\",\"id\":@,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\","
	    "\"arguments\":{\"path\":\"../etc/passwd\"}}}\n", n, echo);
	measure(p, "tools/call read_file 4 KiB", "{\"jsonrpc\":\"2.0\",\"id\":@,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\","
	    "\"arguments\":{\"path\":\"data4k.txt\"}}}\n", n, echo);
	measure(p, "tools/call run_check true", "{\"jsonrpc\":\"2.0\",\"id\":@,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"run_check\","
	    "\"arguments\":{\"checkId\":\"bench.true\",\"idempotencyKey\":"
	    "\"k@\"}}}\n", n / 10 > 0 ? n / 10 : 1, echo);
	exec_vs_check(p, argv[1], argv[2], argv[3], n / 10 > 0 ? n / 10 : 1);
	stop(p);
	free(p);
	return 0;
}
