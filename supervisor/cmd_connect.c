/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock connect: joins stdin/stdout to the broker, so an agent inside
 * "airlock run" can name it as its MCP server command.  It dials
 * /run/airlock/mcp.sock (each connection is a session of its own MCP
 * state), or uses the descriptor in $AIRLOCK_FD where that socket is not.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"

/* Copies what is readable on |from| to |to|; returns 0 at EOF, -1 on error. */
static int
relay_once(int from, int to)
{
	char	buf[65536];
	ssize_t	n;

	do
		n = read(from, buf, sizeof(buf));
	while (n == -1 && errno == EINTR);
	/* A broker that closed with our bytes unread resets: that is its end. */
	if (n == -1 && errno == ECONNRESET)
		n = 0;
	if (n <= 0)
		return n == 0 ? 0 : -1;
	return write_all(to, buf, (size_t)n) == 0 ? 1 : -1;
}

/*
 * Dials |path|; returns the connected socket, or -1 with errno.  The
 * path is relative to nothing: it is SANDBOX_BROKER_SOCKET or the user's.
 */
static int
dial(const char *path)
{
	struct sockaddr_un	sun;
	int			fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * The broker: the socket at its fixed place in the agent's sandbox (it
 * needs nothing inherited), else the descriptor in $AIRLOCK_FD (a
 * home-grown loop that passed fd 3 on).  Returns the fd, or -1 after
 * saying why.
 */
static int
broker_fd(const char *sock)
{
	struct stat	 st;
	const char	*env;
	char		*end;
	long		 fd;
	int		 s;

	if (sock != NULL || (sock = getenv("AIRLOCK_SOCKET")) != NULL) {
		if ((s = dial(sock)) == -1)
			log_warn("%s", sock);
		return s;
	}
	if ((s = dial(SANDBOX_BROKER_SOCKET)) != -1)
		return s;
	if (errno == ECONNREFUSED) {
		log_warnx("%s: the broker accepts no more connections: the "
		    "session is over (a run budget stopped it, or it is "
		    "ending)", SANDBOX_BROKER_SOCKET);
		return -1;
	}
	if (errno != ENOENT) {
		log_warn("%s", SANDBOX_BROKER_SOCKET);
		return -1;
	}
	if ((env = getenv("AIRLOCK_FD")) == NULL) {
		log_warnx("no broker: %s does not exist and AIRLOCK_FD is not "
		    "set (run me inside \"airlock run\")",
		    SANDBOX_BROKER_SOCKET);
		return -1;
	}
	fd = strtol(env, &end, 10);
	if (*end != '\0' || fd < 3 || fd > 1024 || fstat((int)fd, &st) == -1 ||
	    !S_ISSOCK(st.st_mode)) {
		log_warnx("no broker: %s does not exist and AIRLOCK_FD=%s is "
		    "not a socket descriptor", SANDBOX_BROKER_SOCKET, env);
		return -1;
	}
	return (int)fd;
}

int
cmd_connect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	static char	 up[65536];
	struct pollfd	 pfd[2];
	const char	*sock = NULL;
	size_t		 upoff = 0, uplen = 0;
	ssize_t		 n;
	int		 in_open = 1, rc, ch, fd;

	log_init("airlock connect", 0);
	while ((ch = getopt_long(argc, argv, "s:", opts, NULL)) != -1) {
		switch (ch) {
		case 's': sock = optarg; break;
		default:
			cli_usage("connect");
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		cli_usage("connect");
		return EXIT_USAGE;
	}
	if ((fd = broker_fd(sock)) == -1)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		/*
		 * Toward the broker, what was read from our client waits
		 * in |up| and is sent without blocking: a broker that
		 * reads no more until its replies are read (an agent
		 * that stopped reading them) must still get its replies
		 * read here, else both wait for each other.
		 */
		pfd[0].fd = in_open && uplen == 0 ? STDIN_FILENO : -1;
		pfd[0].events = POLLIN;
		pfd[1].fd = fd;
		pfd[1].events = POLLIN | (uplen > 0 ? POLLOUT : 0);
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		if (pfd[0].revents != 0) {
			do
				n = read(STDIN_FILENO, up, sizeof(up));
			while (n == -1 && errno == EINTR);
			if (n <= 0) {
				/* Our client is done: half-close toward the broker. */
				shutdown(fd, SHUT_WR);
				in_open = 0;
				if (n < 0)
					return 1;
			} else {
				uplen = (size_t)n;
				upoff = 0;
			}
		}
		if (uplen > 0 && (pfd[1].revents & (POLLOUT | POLLERR |
		    POLLHUP)) != 0) {
			do
				n = send(fd, up + upoff, uplen, MSG_DONTWAIT |
				    MSG_NOSIGNAL);
			while (n == -1 && errno == EINTR);
			if (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK)
				/* The broker went away: its replies end it. */
				uplen = 0, in_open = 0;
			else if (n > 0) {
				upoff += (size_t)n;
				uplen -= (size_t)n;
			}
		}
		if ((pfd[1].revents & ~POLLOUT) != 0) {
			if ((rc = relay_once(fd, STDOUT_FILENO)) <= 0)
				return rc == 0 ? 0 : 1;
		}
	}
}
