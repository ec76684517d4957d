/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * unixclient PATH: sends stdin to the stream socket PATH, half-closes,
 * and copies what the peer answers to stdout.  For tests that speak to a
 * control socket directly (no socat on every machine).
 * Exits 0 when connected, 1 when the socket cannot be reached.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int
copy(int from, int to)
{
	char	buf[65536];
	ssize_t	n, off, w;

	while ((n = read(from, buf, sizeof(buf))) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (off = 0; off < n; off += w)
			if ((w = write(to, buf + off, (size_t)(n - off))) == -1)
				return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un	sun;
	int			fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "usage: unixclient PATH\n");
		return 2;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, argv[1], strlen(argv[1]) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		fprintf(stderr, "unixclient: %s: %s\n", argv[1],
		    strerror(errno));
		return 1;
	}
	/* A peer that refuses us may close first: still read its answer. */
	signal(SIGPIPE, SIG_IGN);
	(void)copy(STDIN_FILENO, fd);
	shutdown(fd, SHUT_WR);
	if (copy(fd, STDOUT_FILENO) == -1)
		return 1;
	close(fd);
	return 0;
}
