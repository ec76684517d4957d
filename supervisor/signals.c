/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "broker/loop.h"
#include "common/log.h"
#include "common/util.h"
#include "supervisor/signals.h"

static int			 sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t	 sig_last;

static void
on_signal(int sig)
{
	int	saved = errno;
	char	c = (char)sig;

	sig_last = sig;
	if (write(sig_pipe[1], &c, 1) == -1) {
		/* The pipe is full: a stop is already pending. */
	}
	errno = saved;
}

static void
on_pipe(int fd, int why, void *arg)
{
	char buf[64];

	(void)why;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	loop_stop(arg);
}

int
signals_watch(struct loop *loop)
{
	struct sigaction sa;
	int id;

	if (sig_pipe[0] == -1) {
		if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) == -1)
			fatal("pipe2");
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((id = loop_watch(loop, sig_pipe[0], INT64_MAX, on_pipe, loop)) < 0)
		fatalx("loop_watch");
	return id;
}

void
signals_unwatch(struct loop *loop, int id)
{
	loop_unwatch(loop, id);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

int
signals_received(void)
{
	return sig_last;
}
