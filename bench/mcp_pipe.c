/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * mcp_pipe: requests per second through one "airlock serve" session with
 * a fixed number of requests in flight (pipelined), for several airlock
 * binaries interleaved in the same run so that all see the same load.
 *
 * usage: mcp_pipe WORKSPACE MANIFEST N REPEATS DEPTH AIRLOCK...
 * Each repeat starts one session per AIRLOCK and measures, in turn, ping,
 * a refused tools/call (a path outside the workspace) and read_file of
 * WORKSPACE/data4k.txt, N requests each, DEPTH in flight.  Prints the
 * median and range (min..max) of requests/s over the repeats per binary
 * and kind, and the median over repeats of each binary's per-repeat ratio
 * to the first binary's.  Every reply is checked: a ping must have a
 * result, a refusal must have isError true, a read must carry a sha256.
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

#define MAXBIN 4

struct kind {
	const char *label;
	const char *fmt; /* '@' is replaced by the request id */
	const char *expect; /* every reply must contain this */
};

static const struct kind kinds[] = {
	{ "ping", "{\"jsonrpc\":\"2.0\",\"id\":@,\"method\":\"ping\"}\n",
	    "\"result\"" },
	{ "tools/call refused (path)",
	    "{\"jsonrpc\":\"2.0\",\"id\":@,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\","
	    "\"arguments\":{\"path\":\"../etc/passwd\"}}}\n",
	    "\"isError\":true" },
	{ "tools/call read_file 4 KiB",
	    "{\"jsonrpc\":\"2.0\",\"id\":@,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\","
	    "\"arguments\":{\"path\":\"data4k.txt\"}}}\n",
	    "sha256" },
};
#define NKIND (sizeof(kinds) / sizeof(kinds[0]))

struct peer {
	pid_t pid;
	int fd;
	char *buf;
	size_t have, cap;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
die(const char *msg)
{
	fprintf(stderr, "mcp_pipe: %s\n", msg);
	exit(1);
}

static void
start(struct peer *p, const char *airlock, const char *ws, const char *manifest)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		die("socketpair");
	if ((p->pid = fork()) == 0) {
		close(sv[0]);
		dup2(sv[1], 0);
		dup2(sv[1], 1);
		execl(airlock, "airlock", "serve", "--workspace", ws,
		    "--manifest", manifest, (char *)NULL);
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
write_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, s, len);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write to the broker failed");
		s += n;
		len -= (size_t)n;
	}
}

/*
 * Reads what is available and consumes every complete reply line,
 * checking it against |expect|.  Lines without an "id" (notifications)
 * are not counted.  Returns the number of replies consumed.
 */
static int
read_replies(struct peer *p, const char *expect)
{
	int got = 0;
	char *start, *nl;
	ssize_t n;

	if (p->have == p->cap)
		die("reply longer than the read buffer");
	n = read(p->fd, p->buf + p->have, p->cap - p->have);
	if (n <= 0)
		die("the broker closed the session");
	p->have += (size_t)n;
	start = p->buf;
	while ((nl = memchr(start, '\n', p->have - (size_t)(start - p->buf)))) {
		*nl = '\0';
		if (strstr(start, "\"id\"") != NULL) {
			if (strstr(start, expect) == NULL) {
				fprintf(stderr,
				    "mcp_pipe: unexpected reply "
				    "(wanted %s): %.300s\n",
				    expect, start);
				exit(1);
			}
			got++;
		}
		start = nl + 1;
	}
	p->have -= (size_t)(start - p->buf);
	memmove(p->buf, start, p->have);
	return got;
}

/* Copies |fmt| to |out| with every '@' replaced by |id|; returns length. */
static size_t
fill(char *out, size_t cap, const char *fmt, long id)
{
	size_t o = 0;
	char num[24];
	int len = snprintf(num, sizeof(num), "%ld", id);

	for (; *fmt != '\0' && o + sizeof(num) + 1 < cap; fmt++) {
		if (*fmt == '@') {
			memcpy(out + o, num, (size_t)len);
			o += (size_t)len;
		} else
			out[o++] = *fmt;
	}
	out[o] = '\0';
	return o;
}

/* N requests of |k| with |depth| in flight; returns requests/s. */
static double
run(struct peer *p, const struct kind *k, int n, int depth)
{
	static long id = 100;
	size_t cap = (size_t)depth * 512, len;
	char *out = malloc(cap);
	int sent = 0, done = 0;
	double t0 = now_s();

	if (out == NULL)
		die("out of memory");
	while (done < n) {
		len = 0;
		while (sent < n && sent - done < depth) {
			len += fill(out + len, cap - len, k->fmt, id++);
			sent++;
		}
		if (len > 0)
			write_all(p->fd, out, len);
		done += read_replies(p, k->expect);
	}
	free(out);
	return n / (now_s() - t0);
}

int
main(int argc, char **argv)
{
	static struct peer peers[MAXBIN];
	double *rate, v[256];
	int n, reps, depth, nbin, r, b;
	size_t ki;

	if (argc < 7 || argc - 6 > MAXBIN) {
		fprintf(stderr,
		    "usage: mcp_pipe WORKSPACE MANIFEST N REPEATS "
		    "DEPTH AIRLOCK...\n");
		return 2;
	}
	n = atoi(argv[3]);
	reps = atoi(argv[4]);
	depth = atoi(argv[5]);
	nbin = argc - 6;
	if (n < 1 || reps < 1 || reps > 256 || depth < 1 || depth > 4096)
		die("N, REPEATS (<= 256) and DEPTH (<= 4096) must be positive");
	signal(SIGPIPE, SIG_IGN);
	rate = calloc((size_t)(reps * nbin) * NKIND, sizeof(double));
	if (rate == NULL)
		die("out of memory");
#define RATE(r, b, k) rate[((r)*nbin + (b)) * (int)NKIND + (int)(k)]
	for (b = 0; b < nbin; b++) {
		peers[b].cap = 1 << 22;
		if ((peers[b].buf = malloc(peers[b].cap)) == NULL)
			die("out of memory");
	}
	for (r = 0; r < reps; r++) {
		for (b = 0; b < nbin; b++) {
			static const char init[] =
			    "{\"jsonrpc\":\"2.0\","
			    "\"id\":1,\"method\":\"initialize\",\"params\":"
			    "{\"protocolVersion\":\"2025-06-18\"}}\n";

			start(&peers[b], argv[6 + b], argv[1], argv[2]);
			write_all(peers[b].fd, init, strlen(init));
			while (read_replies(&peers[b], "\"result\"") == 0)
				;
		}
		/* Interleave: each kind runs on every binary before the next. */
		for (ki = 0; ki < NKIND; ki++)
			for (b = 0; b < nbin; b++)
				RATE(r, b, ki) =
				    run(&peers[b], &kinds[ki], n, depth);
		for (b = 0; b < nbin; b++)
			stop(&peers[b]);
	}
	printf("%d requests per kind, %d in flight, %d repeats "
	       "(requests/s: median [min..max])\n",
	    n, depth, reps);
	for (ki = 0; ki < NKIND; ki++) {
		for (b = 0; b < nbin; b++) {
			for (r = 0; r < reps; r++)
				v[r] = RATE(r, b, ki);
			qsort(v, (size_t)reps, sizeof(double), cmp_double);
			printf("%-28s bin%d %9.0f [%.0f..%.0f]",
			    kinds[ki].label, b, v[reps / 2], v[0], v[reps - 1]);
			if (b > 0) {
				for (r = 0; r < reps; r++)
					v[r] = RATE(r, b, ki) / RATE(r, 0, ki);
				qsort(v, (size_t)reps, sizeof(double),
				    cmp_double);
				printf("  %.2fx bin0 [%.2f..%.2f]", v[reps / 2],
				    v[0], v[reps - 1]);
			}
			printf("  %s\n", argv[6 + b]);
		}
	}
	for (b = 0; b < nbin; b++)
		free(peers[b].buf);
	free(rate);
	return 0;
}
