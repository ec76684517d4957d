/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* proxy_testsrv: see proxy_testsrv.h. */
#include "config.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "tests/proxy_testsrv.h"

#define HEAD_MAX	65536
#define REC_MAX		(256 * 1024)

static const char *log_path;
static const char *bind_addr = "127.0.0.1";
static char rec[REC_MAX];	/* what this connection received */
static size_t reclen;

/* recv() that also keeps a copy of what arrived, for the log. */
static ssize_t
rec_recv(int fd, char *buf, size_t n)
{
	ssize_t r;
	size_t k;

	r = recv(fd, buf, n, 0);
	if (r > 0) {
		k = (size_t)r < REC_MAX - reclen ? (size_t)r : REC_MAX - reclen;
		memcpy(rec + reclen, buf, k);
		reclen += k;
	}
	return r;
}

/* Appends one record of everything the connection received to the log. */
static void
rec_flush(void)
{
	static char out[REC_MAX + 128];
	int fd, n;

	if (log_path == NULL)
		return;
	n = snprintf(out, sizeof(out), "=== connection %zu bytes\n", reclen);
	memcpy(out + n, rec, reclen);
	n += (int)reclen;
	n += snprintf(out + n, sizeof(out) - (size_t)n, "\n=== end\n");
	if ((fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) == -1)
		return;
	if (write(fd, out, (size_t)n) != n)
		perror("testsrv log");
	close(fd);
}

void
testsrv_set_log(const char *path)
{
	log_path = path;
}

static int
send_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
respond(int fd, int code, const char *extra, const char *body, size_t blen,
    int keep)
{
	char head[512];
	int n;

	n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\n"
	    "Content-Length: %zu\r\n%s%s\r\n", code, code == 200 ? "OK" :
	    code == 302 ? "Found" : "Not Found", blen, extra,
	    keep ? "" : "Connection: close\r\n");
	if (send_all(fd, head, (size_t)n) != 0)
		return -1;
	return blen ? send_all(fd, body, blen) : 0;
}

static void
serve_conn(int fd)
{
	static char head[HEAD_MAX + 1], chunk[65536];
	size_t len = 0, hlen, n;
	char *end, *path, *sp;
	ssize_t r;
	int keep;

	memset(chunk, 'x', sizeof(chunk));
	for (;;) {
		while ((end = strstr(head, "\r\n\r\n")) == NULL) {
			if (len >= HEAD_MAX)
				return;
			r = rec_recv(fd, head + len, HEAD_MAX - len);
			if (r <= 0)
				return;
			len += (size_t)r;
			head[len] = '\0';
		}
		hlen = (size_t)(end - head) + 4;
		keep = strcasestr(head, "\r\nConnection: close") == NULL &&
		    strncmp(strchr(head, '\n') - 4, "1.0", 3) != 0;
		path = strchr(head, ' ');
		if (path == NULL)
			return;
		path++;
		if ((sp = strchr(path, ' ')) == NULL)
			return;
		if (strncmp(path, "/hello ", 7) == 0) {
			static const char b[] = "hello from airlock test server\n";

			if (respond(fd, 200, "", b, sizeof(b) - 1, keep))
				return;
		} else if (strncmp(path, "/ping ", 6) == 0) {
			if (respond(fd, 200, "", "pong", 4, keep))
				return;
		} else if (strncmp(path, "/echo ", 6) == 0 ||
		    strncmp(path, "/echo?", 6) == 0) {
			if (respond(fd, 200, "", head, hlen, keep))
				return;
		} else if (strncmp(path, "/redirect ", 10) == 0) {
			if (respond(fd, 302, "Location: http://169.254.169.254/"
			    "latest/meta-data/\r\n", "", 0, keep))
				return;
		} else if (strncmp(path, "/size/", 6) == 0) {
			unsigned long long total = strtoull(path + 6, NULL, 10);
			char h[256];
			int hn;

			hn = snprintf(h, sizeof(h), "HTTP/1.1 200 OK\r\n"
			    "Content-Length: %llu\r\n%s\r\n", total,
			    keep ? "" : "Connection: close\r\n");
			if (send_all(fd, h, (size_t)hn) != 0)
				return;
			while (total > 0) {
				n = total < sizeof(chunk) ? (size_t)total :
				    sizeof(chunk);
				if (send_all(fd, chunk, n) != 0)
					return;
				total -= n;
			}
		} else if (respond(fd, 404, "", "", 0, keep))
			return;
		if (!keep)
			return;
		memmove(head, head + hlen, len - hlen);
		len -= hlen;
		head[len] = '\0';
	}
}

static void
serve(int lfd, unsigned lifetime_s)
{
	struct sigaction sa;
	int fd, one = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = SA_NOCLDWAIT;
	sigaction(SIGCHLD, &sa, NULL);
	alarm(lifetime_s);
	for (;;) {
		fd = accept(lfd, NULL, NULL);
		if (fd == -1) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		switch (fork()) {
		case 0:
			close(lfd);
			alarm(lifetime_s);
			serve_conn(fd);
			shutdown(fd, SHUT_WR);
			/* Let the peer read everything before closing. */
			{
				char junk[4096];
				struct pollfd pfd = { fd, POLLIN, 0 };

				while (poll(&pfd, 1, 2000) > 0 &&
				    rec_recv(fd, junk, sizeof(junk)) > 0)
					;
			}
			rec_flush();
			_exit(0);
		default:
			close(fd);
		}
	}
}

void
testsrv_set_addr(const char *ip)
{
	bind_addr = ip;
}

pid_t
testsrv_start(uint16_t *port, unsigned lifetime_s)
{
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;
	struct sockaddr *sa;
	socklen_t slen;
	pid_t pid;
	int lfd, zero = 0;

	memset(&sin, 0, sizeof(sin));
	memset(&sin6, 0, sizeof(sin6));
	sin.sin_family = AF_INET;
	sin6.sin6_family = AF_INET6;
	if (inet_pton(AF_INET, bind_addr, &sin.sin_addr) == 1) {
		sa = (struct sockaddr *)&sin;
		slen = sizeof(sin);
	} else if (inet_pton(AF_INET6, bind_addr, &sin6.sin6_addr) == 1) {
		sa = (struct sockaddr *)&sin6;
		slen = sizeof(sin6);
	} else {
		errno = EINVAL;
		return -1;
	}
	if ((lfd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) ==
	    -1)
		return -1;
	if (sa->sa_family == AF_INET6)
		(void)setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
		    sizeof(zero));
	if (bind(lfd, sa, slen) == -1 || listen(lfd, 256) == -1 ||
	    getsockname(lfd, sa, &slen) == -1) {
		close(lfd);
		return -1;
	}
	*port = ntohs(sa->sa_family == AF_INET ? sin.sin_port :
	    sin6.sin6_port);
	if ((pid = fork()) == -1) {
		close(lfd);
		return -1;
	}
	if (pid == 0) {
		/* Handlers inherited from a test framework must not run here. */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		setpgid(0, 0);
		serve(lfd, lifetime_s);
		_exit(0);
	}
	setpgid(pid, pid);
	close(lfd);
	return pid;
}

int
testsrv_connect(const char *ip, uint16_t port)
{
	struct sockaddr_in sin;
	int fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

ssize_t
testsrv_read_all(int fd, char *buf, size_t cap, int timeout_ms)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	size_t len = 0;
	ssize_t r;

	while (len < cap) {
		if (poll(&pfd, 1, timeout_ms) <= 0)
			break;
		r = recv(fd, buf + len, cap - len, 0);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return len > 0 ? (ssize_t)len : -1;
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (len < cap)
		buf[len] = '\0';
	return (ssize_t)len;
}
