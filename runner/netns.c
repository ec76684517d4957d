/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * netns: the runner's network namespace, made on a thread of its own
 * (runner_int.h).  Making a network namespace is the dearest part of the
 * runner's clone() (the loopback device, the sysctl tables, every
 * subsystem's per-namespace state: about half a millisecond here), and
 * none of it needs the child: a thread makes it while runner_start()
 * works out the plan and the cgroups, and the child joins it with
 * setns() as its first step.  runner_netns_new() makes one ahead for a
 * later runner on the calling thread instead, and goes back: a process
 * that makes one per session (an exec's audit writer) would otherwise
 * pay for a thread each time.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/nsfs.h>
#include <net/if.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "runner/runner_int.h"

static void *
make_netns(void *arg)
{
	struct runner_netns *n = arg;

	/* This thread alone moves into it; it goes when the thread ends. */
	if (unshare(CLONE_NEWNET) == 0)
		n->fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	return NULL;
}

void
runner_netns_begin(struct runner_netns *n)
{
	pthread_attr_t attr;

	n->fd = -1;
	n->started = 0;
	if (pthread_attr_init(&attr) != 0)
		return;
	/* Two system calls deep: not the default 8 MiB to map and unmap. */
	if (pthread_attr_setstacksize(&attr, 64 * 1024) == 0)
		n->started = pthread_create(&n->thread, &attr, make_netns,
		    n) == 0;
	pthread_attr_destroy(&attr);
}

/* |fd| if it is a network namespace other than ours, else closes it: -1. */
static int
fresh_netns(int fd)
{
	struct stat ns, own;

	if (fd == -1)
		return -1;
	if (ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET || fstat(fd, &ns) == -1 ||
	    stat("/proc/self/ns/net", &own) == -1 ||
	    (ns.st_dev == own.st_dev && ns.st_ino == own.st_ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

int
runner_netns_ahead(int fd)
{
	return fresh_netns(fcntl(fd, F_DUPFD_CLOEXEC, 3));
}

int
runner_netns_end(struct runner_netns *n)
{
	int fd;

	if (!n->started)
		return -1;
	n->started = 0;
	if (pthread_join(n->thread, NULL) != 0)
		return -1;
	fd = n->fd;
	n->fd = -1;
	/* Never the namespace we are in ourselves. */
	return fresh_netns(fd);
}

/* The namespace runner_netns_new() and runner_netns_unused() come back
 * to, opened once: 0, or -1. */
static int home = -1;

static int
open_home(void)
{
	if (home == -1 && (home = open("/proc/thread-self/ns/net",
			       O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	return 0;
}

/* Back to our own namespace.  Root may always go back; if it could not,
 * nothing this thread does next may happen in the other one. */
static void
go_home(void)
{
	if (setns(home, CLONE_NEWNET) == -1)
		fatal("setns back to our network namespace");
}

int
runner_netns_new(void)
{
	int fd;

	if (open_home() != 0 || unshare(CLONE_NEWNET) == -1)
		return -1;
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	go_home();
	return fresh_netns(fd);
}

/* The "sockets: used" count of the namespace this thread is in, or -1. */
static long
sockets_used(void)
{
	char buf[512], *s;
	ssize_t n;
	int fd;

	if ((fd = open("/proc/thread-self/net/sockstat", O_RDONLY | O_CLOEXEC)) ==
	    -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (strncmp(buf, "sockets: used ", 14) != 0)
		return -1;
	s = buf + 14;
	return s[0] >= '0' && s[0] <= '9' ? strtol(s, NULL, 10) : -1;
}

/* 1 if the loopback device of the namespace this thread is in is down. */
static int
lo_down(void)
{
	struct ifreq ifr;
	int s, down;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	down = ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP);
	close(s);
	return down;
}

int
runner_netns_unused(int fd)
{
	int unused, copy;

	/* A network namespace, and not ours. */
	if ((copy = fresh_netns(fcntl(fd, F_DUPFD_CLOEXEC, 3))) == -1)
		return 0;
	close(copy);
	if (open_home() != 0 || setns(fd, CLONE_NEWNET) == -1)
		return 0;
	/* The count first: the probe's own socket is one. */
	unused = sockets_used() == 0;
	unused = unused && lo_down();
	go_home();
	return unused;
}
