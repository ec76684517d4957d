/*
 * airlock connect: joins stdin/stdout to the broker socket in $AIRLOCK_FD,
 * so an agent inside "airlock run" can name it as its MCP server command.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
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

int
cmd_connect(int argc, char **argv)
{
	struct pollfd	 pfd[2];
	struct stat	 st;
	const char	*env;
	char		*end;
	long		 fd;
	int		 in_open = 1, rc;

	(void)argv;
	log_init("airlock connect", 0);
	if (argc != 1) {
		fprintf(stderr, "usage: airlock connect\n");
		return EXIT_USAGE;
	}
	if ((env = getenv("AIRLOCK_FD")) == NULL) {
		log_warnx("AIRLOCK_FD is not set: run me inside \"airlock run\"");
		return 1;
	}
	fd = strtol(env, &end, 10);
	if (*end != '\0' || fd < 3 || fd > 1024 || fstat((int)fd, &st) == -1 ||
	    !S_ISSOCK(st.st_mode)) {
		log_warnx("AIRLOCK_FD=%s is not a socket descriptor", env);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		pfd[0].fd = in_open ? STDIN_FILENO : -1;
		pfd[0].events = POLLIN;
		pfd[1].fd = (int)fd;
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		if (pfd[0].revents != 0) {
			if ((rc = relay_once(STDIN_FILENO, (int)fd)) <= 0) {
				/* Our client is done: half-close toward the broker. */
				shutdown((int)fd, SHUT_WR);
				in_open = 0;
				if (rc < 0)
					return 1;
			}
		}
		if (pfd[1].revents != 0) {
			if ((rc = relay_once((int)fd, STDOUT_FILENO)) <= 0)
				return rc == 0 ? 0 : 1;
		}
	}
}
