/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * bench/proxy: what the egress proxy costs, measured side by side in one
 * run against a direct loopback connection to the same origin server.
 *
 *   throughput   one large GET (Connection: close), direct vs plain-HTTP
 *                proxy vs CONNECT tunnel; MB/s, median of --runs
 *   connection   a new connection per small GET (connect, request,
 *                response, close); median round trip
 *   in-tunnel    small request/response round trips on one persistent
 *                connection, direct keep-alive vs inside a CONNECT tunnel
 *
 * The proxy is started the way the supervisor starts it (proxy_spawn(),
 * unprivileged, listener handed over the control socket).  Runs
 * alternate between the direct and proxied paths so machine noise hits
 * both alike; only medians and ratios are reported.
 *
 * usage: bench/proxy [--size MIB] [--runs N] [--conns N] [--pings N]
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/errors.h"
#include "proxy/ipc.h"
#include "proxy/proxy.h"
#include "tests/proxy_testsrv.h"

static uint16_t srv_port, px_port;
static char *buf;
#define BUFSZ	(1 << 20)

static int64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t
median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
send_str(int fd, const char *s)
{
	size_t n = strlen(s);
	ssize_t w;

	while (n > 0) {
		if ((w = send(fd, s, n, MSG_NOSIGNAL)) <= 0) {
			perror("send");
			exit(1);
		}
		s += w;
		n -= (size_t)w;
	}
}

/* CPU time (user + system) used so far by |pid|, in milliseconds. */
static int64_t
cpu_ms(pid_t pid)
{
	char path[64], line[1024], *p;
	unsigned long long ut, st;
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(line, sizeof(line), fp) == NULL) {
		fclose(fp);
		return 0;
	}
	fclose(fp);
	/* Fields after the command name, which ends with the last ')'. */
	if ((p = strrchr(line, ')')) == NULL)
		return 0;
	for (i = 0; i < 12 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p, " %llu %llu", &ut, &st) != 2)
		return 0;
	return (int64_t)((ut + st) * 1000 / (unsigned long long)
	    sysconf(_SC_CLK_TCK));
}

/* Reads until EOF; returns the byte count. */
static uint64_t
drain(int fd)
{
	uint64_t total = 0;
	ssize_t n;

	while ((n = recv(fd, buf, BUFSZ, 0)) > 0)
		total += (uint64_t)n;
	return total;
}

/* Reads until the received bytes end with |tail|. */
static void
read_until(int fd, const char *tail)
{
	size_t len = 0, tl = strlen(tail);
	ssize_t n;

	for (;;) {
		n = recv(fd, buf + len, BUFSZ - len - 1, 0);
		if (n <= 0) {
			fprintf(stderr, "bench: connection closed early\n");
			exit(1);
		}
		len += (size_t)n;
		if (len >= tl && memcmp(buf + len - tl, tail, tl) == 0)
			return;
	}
}

/* mode 0: direct; 1: plain-HTTP proxy; 2: CONNECT tunnel. */
static int
open_path(int mode)
{
	char req[256];
	int fd;

	fd = testsrv_connect("127.0.0.1", mode == 0 ? srv_port : px_port);
	if (fd == -1) {
		perror("connect");
		exit(1);
	}
	if (mode == 2) {
		snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%u HTTP/1.1\r\n"
		    "\r\n", srv_port);
		send_str(fd, req);
		read_until(fd, "\r\n\r\n");
	}
	return fd;
}

static void
get(int fd, int mode, const char *path, int keep)
{
	char req[256];

	if (mode == 1)
		snprintf(req, sizeof(req), "GET http://127.0.0.1:%u%s HTTP/1.1"
		    "\r\nHost: x\r\n%s\r\n", srv_port, path, keep ? "" :
		    "Connection: close\r\n");
	else
		snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n%s"
		    "\r\n", path, keep ? "" : "Connection: close\r\n");
	send_str(fd, req);
}

int
main(int argc, char **argv)
{
	static const char *names[] = { "direct", "proxy (plain HTTP)",
	    "proxy (CONNECT)" };
	struct proxy_limits lim;
	char rule[64], err[256], path[64];
	const char *allow_ip[] = { rule, NULL };
	unsigned size_mib = 256, runs = 5, conns = 300, pings = 2000, i;
	int64_t *tp[3], *lat[2], *rtt[2], t0, med_tp[3], med_lat[2], med_rtt[2];
	int64_t cpu[3] = { 0, 0, 0 };
	uint64_t got;
	pid_t srv, px;
	int ctl, lfd, fd, m;

	for (m = 1; m + 1 < argc; m += 2) {
		if (strcmp(argv[m], "--size") == 0)
			size_mib = (unsigned)atoi(argv[m + 1]);
		else if (strcmp(argv[m], "--runs") == 0)
			runs = (unsigned)atoi(argv[m + 1]);
		else if (strcmp(argv[m], "--conns") == 0)
			conns = (unsigned)atoi(argv[m + 1]);
		else if (strcmp(argv[m], "--pings") == 0)
			pings = (unsigned)atoi(argv[m + 1]);
		else
			break;
	}
	if (m != argc || size_mib == 0 || runs == 0 || conns == 0 ||
	    pings == 0) {
		fprintf(stderr, "usage: bench/proxy [--size MIB] [--runs N] "
		    "[--conns N] [--pings N]\n");
		return 64;
	}
	signal(SIGPIPE, SIG_IGN);
	if ((buf = malloc(BUFSZ)) == NULL)
		return 1;
	if ((srv = testsrv_start(&srv_port, 600)) == -1) {
		perror("testsrv_start");
		return 1;
	}
	proxy_limits_default(&lim);
	if ((px = proxy_spawn(&lim, -1, &ctl, err, sizeof(err))) < 0) {
		fprintf(stderr, "proxy_spawn: %s: %s\n", al_strerror(px), err);
		return 1;
	}
	if ((lfd = proxy_listener_in_current_netns(&px_port)) < 0) {
		perror("listener");
		return 1;
	}
	snprintf(rule, sizeof(rule), "127.0.0.1/32:%u", srv_port);
	if (proxy_ctl_add(ctl, lfd, "bench", NULL, allow_ip, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "proxy_ctl_add: %s\n", err);
		return 1;
	}
	close(lfd);

	for (m = 0; m < 3; m++)
		tp[m] = calloc(runs, sizeof(int64_t));
	for (m = 0; m < 2; m++) {
		lat[m] = calloc(conns, sizeof(int64_t));
		rtt[m] = calloc(pings, sizeof(int64_t));
	}
	snprintf(path, sizeof(path), "/size/%llu",
	    (unsigned long long)size_mib << 20);
	for (i = 0; i < runs; i++) {
		for (m = 0; m < 3; m++) {
			int64_t c0 = cpu_ms(px);

			t0 = now_us();
			fd = open_path(m);
			get(fd, m, path, 0);
			got = drain(fd);
			close(fd);
			cpu[m] += cpu_ms(px) - c0;
			/* MB/s * 1000, from bytes and microseconds */
			tp[m][i] = (int64_t)(got * 1000 / (uint64_t)(now_us() -
			    t0 + 1));
			if (got < (uint64_t)size_mib << 20) {
				fprintf(stderr, "bench: short transfer on %s\n",
				    names[m]);
				return 1;
			}
		}
	}
	for (i = 0; i < conns; i++) {
		for (m = 0; m < 2; m++) {
			t0 = now_us();
			fd = open_path(m);
			get(fd, m, "/ping", 0);
			(void)drain(fd);
			close(fd);
			lat[m][i] = now_us() - t0;
		}
	}
	{
		int pfd[2];

		pfd[0] = open_path(0);
		pfd[1] = open_path(2);
		for (i = 0; i < pings; i++) {
			for (m = 0; m < 2; m++) {
				t0 = now_us();
				get(pfd[m], 0, "/ping", 1);
				read_until(pfd[m], "pong");
				rtt[m][i] = now_us() - t0;
			}
		}
		close(pfd[0]);
		close(pfd[1]);
	}
	for (m = 0; m < 3; m++)
		med_tp[m] = median(tp[m], runs);
	for (m = 0; m < 2; m++) {
		med_lat[m] = median(lat[m], conns);
		med_rtt[m] = median(rtt[m], pings);
	}
	printf("# bench/proxy --size %u --runs %u --conns %u --pings %u\n",
	    size_mib, runs, conns, pings);
	printf("throughput, %u MiB GET (median of %u)\n", size_mib, runs);
	for (m = 0; m < 3; m++) {
		printf("  %-20s %9.1f MB/s   ratio to direct %.2f", names[m],
		    med_tp[m] / 1000.0, (double)med_tp[m] / (double)med_tp[0]);
		if (m > 0)
			printf("   proxy CPU %.0f ms/GiB", (double)cpu[m] *
			    1024.0 / ((double)size_mib * runs));
		printf("\n");
	}
	printf("new connection + GET /ping + close (median of %u)\n", conns);
	printf("  %-20s %9lld us\n", names[0], (long long)med_lat[0]);
	printf("  %-20s %9lld us   ratio %.2f, added %lld us\n", names[1],
	    (long long)med_lat[1], (double)med_lat[1] / (double)med_lat[0],
	    (long long)(med_lat[1] - med_lat[0]));
	printf("request round trip on one open connection (median of %u)\n",
	    pings);
	printf("  %-20s %9lld us\n", names[0], (long long)med_rtt[0]);
	printf("  %-20s %9lld us   ratio %.2f, added %lld us\n", names[2],
	    (long long)med_rtt[1], (double)med_rtt[1] / (double)med_rtt[0],
	    (long long)(med_rtt[1] - med_rtt[0]));

	close(ctl);
	waitpid(px, NULL, 0);
	kill(-srv, SIGTERM);
	waitpid(srv, NULL, 0);
	return 0;
}
