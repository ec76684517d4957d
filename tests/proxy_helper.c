/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * proxy_helper: the tools tests/integration/proxy.sh needs, without curl
 * or python (neither is on a bare Debian 12).
 *
 *   proxy_helper serve FILE LIFETIME_S [LOG]
 *                                        start the test origin server on
 *                                        127.0.0.1:0; write "PORT PID" to
 *                                        FILE; wait for it; with LOG, the
 *                                        server appends there every byte
 *                                        each connection received
 *   proxy_helper serve-on IP FILE LIFETIME_S [LOG]
 *                                        the same on IP ("0.0.0.0", "::":
 *                                        every address of this netns)
 *   proxy_helper req IP PORT [--no-shutdown] [--count] [--timeout MS]
 *                                        send stdin, print the answer (or
 *                                        "bytes=N" with --count) and
 *                                        "elapsed_ms=N" on stderr
 *   proxy_helper lo-up                   bring lo up in this netns
 *   proxy_helper udp-sink SECONDS        bind UDP 127.0.0.1:53 and never
 *                                        answer (a DNS server that hangs)
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "proxy/ipc.h"
#include "tests/proxy_testsrv.h"

#define REQ_MAX		(1 << 20)

static int
do_serve(const char *file, unsigned lifetime)
{
	FILE *fp;
	uint16_t port;
	pid_t pid;

	if ((pid = testsrv_start(&port, lifetime)) == -1) {
		perror("testsrv_start");
		return 1;
	}
	if ((fp = fopen(file, "w")) == NULL) {
		perror(file);
		return 1;
	}
	fprintf(fp, "%u %ld\n", port, (long)pid);
	fclose(fp);
	waitpid(pid, NULL, 0);
	return 0;
}

static int
do_req(int argc, char **argv)
{
	static char req[REQ_MAX];
	char *resp;
	size_t rlen = 0, total;
	ssize_t n;
	int fd, i, shut = 1, count = 0, timeout = 10000;
	int64_t t0;

	for (i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--no-shutdown") == 0)
			shut = 0;
		else if (strcmp(argv[i], "--count") == 0)
			count = 1;
		else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
			timeout = atoi(argv[++i]);
		else {
			fprintf(stderr, "req: bad option %s\n", argv[i]);
			return 64;
		}
	}
	while (rlen < sizeof(req) && (n = read(0, req + rlen,
	    sizeof(req) - rlen)) > 0)
		rlen += (size_t)n;
	t0 = now_monotonic_ms();
	if ((fd = testsrv_connect(argv[2], (uint16_t)atoi(argv[3]))) == -1) {
		printf("connect failed: %s\n", strerror(errno));
		return 2;
	}
	if (rlen > 0 && write_all(fd, req, rlen) != 0) {
		printf("send failed: %s\n", strerror(errno));
		/* The proxy may have answered already; read it. */
	}
	if (shut)
		shutdown(fd, SHUT_WR);
	/* Stream the answer so a caller can watch it arrive. */
	if ((resp = malloc(65536)) == NULL)
		return 1;
	total = 0;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };

		if (poll(&pfd, 1, timeout) <= 0)
			break;
		n = recv(fd, resp, 65536, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
		if (!count && write_all(1, resp, (size_t)n) != 0)
			break;
	}
	if (count)
		printf("bytes=%zu\n", total);
	fprintf(stderr, "elapsed_ms=%lld\n",
	    (long long)(now_monotonic_ms() - t0));
	free(resp);
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "serve-on") == 0) {
		testsrv_set_addr(argv[2]);
		if (argc == 6)
			testsrv_set_log(argv[5]);
		return do_serve(argv[3], (unsigned)atoi(argv[4]));
	}
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "serve") == 0) {
		if (argc == 5)
			testsrv_set_log(argv[4]);
		return do_serve(argv[2], (unsigned)atoi(argv[3]));
	}
	if (argc >= 4 && strcmp(argv[1], "req") == 0)
		return do_req(argc, argv);
	if (argc == 3 && strcmp(argv[1], "udp-sink") == 0) {
		struct sockaddr_in sin;
		int fd;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons(53);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) == -1 ||
		    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
			perror("udp-sink");
			return 1;
		}
		sleep((unsigned)atoi(argv[2]));
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "lo-up") == 0) {
		if (proxy_lo_up() != 0) {
			perror("lo-up");
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "usage: proxy_helper serve FILE LIFETIME [LOG] | "
	    "serve-on IP FILE LIFETIME [LOG] | req IP PORT [opts] | lo-up\n");
	return 64;
}
