/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The workspace digest off the event loop; see wsjob.h.
 *
 * A process rather than a thread: the broker clones runners, and a clone
 * taken while another thread holds a libc lock could deadlock.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "broker/wsdigest.h"
#include "broker/wsjob.h"
#include "common/errors.h"

#define REPLY_LEN (sizeof(int) + SHA256_HEX_LEN)

struct wsjob {
	struct wsdigester *d;
	wsjob_fn fn;
	void *arg;
	int inflight; /* the digest under way is its */
	TAILQ_ENTRY(wsjob) entry;
};
TAILQ_HEAD(wsjobq, wsjob);

struct wsdigester {
	struct loop *l;
	pid_t pid;
	int fd; /* -1 once the worker is gone */
	int watch;
	int busy; /* a request is with the worker */
	struct wsjobq jobs;
	unsigned char buf[REPLY_LEN];
	size_t len;
};

static void __attribute__((noreturn)) worker(int rootfd, int fd)
{
	unsigned char out[REPLY_LEN];
	char hex[SHA256_HEX_LEN + 1], req;
	int keep[2] = { rootfd, fd }, rc;

	if (close_fds_from(3, keep, 2) != 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		_exit(1);
	/* Background work: the broker's loop comes first for the CPU. */
	(void)setpriority(PRIO_PROCESS, 0, 10);
	for (;;) {
		ssize_t n = read(fd, &req, 1);

		if (n == -1 && errno == EINTR)
			continue;
		if (n != 1)
			_exit(0);
		rc = wsdigest_compute(rootfd, hex);
		memcpy(out, &rc, sizeof(rc));
		memcpy(out + sizeof(rc), hex, SHA256_HEX_LEN);
		if (write_all(fd, out, sizeof(out)) != 0)
			_exit(1);
	}
}

/* Hands the worker a request for everything queued, if it is idle. */
static void
kick(struct wsdigester *d)
{
	struct wsjob *j;
	char req = 'd';

	if (d->busy || d->fd == -1 || TAILQ_EMPTY(&d->jobs))
		return;
	if (write_all(d->fd, &req, 1) != 0)
		return; /* the read side sees the end */
	d->busy = 1;
	for (j = TAILQ_FIRST(&d->jobs); j != NULL; j = TAILQ_NEXT(j, entry))
		j->inflight = 1;
}

/*
 * Answers the jobs in flight (or all, when the worker is gone).  They are
 * taken off the queue first: a callback may queue a new job, which must
 * wait for a digest of its own.
 */
static void
answer(struct wsdigester *d, int rc, const char *hex, int all)
{
	struct wsjobq done;
	struct wsjob *j, *next;

	TAILQ_INIT(&done);
	for (j = TAILQ_FIRST(&d->jobs); j != NULL; j = next) {
		next = TAILQ_NEXT(j, entry);
		if (j->inflight || all) {
			TAILQ_REMOVE(&d->jobs, j, entry);
			TAILQ_INSERT_TAIL(&done, j, entry);
		}
	}
	while ((j = TAILQ_FIRST(&done)) != NULL) {
		TAILQ_REMOVE(&done, j, entry);
		j->fn(j->arg, rc, hex);
		free(j);
	}
}

static void
worker_event(int fd, int why, void *arg)
{
	struct wsdigester *d = arg;
	char hex[SHA256_HEX_LEN + 1];
	ssize_t n;
	int rc;

	(void)why;
	n = read(fd, d->buf + d->len, sizeof(d->buf) - d->len);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* The worker is gone: nothing more will be digested. */
		loop_unwatch(d->l, d->watch);
		d->watch = 0;
		close(d->fd);
		d->fd = -1;
		answer(d, AL_ERR_SYSTEM, NULL, 1);
		return;
	}
	if ((d->len += (size_t)n) < sizeof(d->buf))
		return;
	d->len = 0;
	d->busy = 0;
	memcpy(&rc, d->buf, sizeof(rc));
	memcpy(hex, d->buf + sizeof(rc), SHA256_HEX_LEN);
	hex[SHA256_HEX_LEN] = '\0';
	answer(d, rc, rc == 0 ? hex : NULL, 0);
	kick(d);
}

struct wsdigester *
wsdigester_new(struct loop *l, int rootfd)
{
	struct wsdigester *d;
	int sv[2], fd, e;

	if ((fd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	d->l = l;
	TAILQ_INIT(&d->jobs);
	if ((d->pid = fork()) == -1) {
		e = errno;
		close(sv[0]);
		close(sv[1]);
		close(fd);
		free(d);
		errno = e;
		return NULL;
	}
	if (d->pid == 0)
		worker(fd, sv[1]);
	close(sv[1]);
	close(fd);
	d->fd = sv[0];
	(void)fd_set_nonblock(d->fd, 1);
	if ((d->watch = loop_watch(l, d->fd, INT64_MAX, worker_event, d)) < 0) {
		d->watch = 0;
		wsdigester_free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void
wsdigester_free(struct wsdigester *d)
{
	struct wsjob *j;

	if (d == NULL)
		return;
	if (d->watch > 0)
		loop_unwatch(d->l, d->watch);
	if (d->fd != -1)
		close(d->fd);
	kill(d->pid, SIGKILL);
	while (waitpid(d->pid, NULL, 0) == -1 && errno == EINTR)
		;
	while ((j = TAILQ_FIRST(&d->jobs)) != NULL) {
		TAILQ_REMOVE(&d->jobs, j, entry);
		free(j);
	}
	free(d);
}

struct wsjob *
wsjob_start(struct wsdigester *d, wsjob_fn fn, void *arg)
{
	struct wsjob *j;

	if (d == NULL || d->fd == -1) {
		errno = EPIPE;
		return NULL;
	}
	j = xcalloc(1, sizeof(*j));
	j->d = d;
	j->fn = fn;
	j->arg = arg;
	TAILQ_INSERT_TAIL(&d->jobs, j, entry);
	kick(d);
	return j;
}

void
wsjob_cancel(struct wsjob *j)
{
	if (j == NULL)
		return;
	/* A digest under way still comes back; it then answers no one. */
	TAILQ_REMOVE(&j->d->jobs, j, entry);
	free(j);
}
