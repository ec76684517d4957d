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

#include "broker/wsindex.h"
#include "broker/wsjob.h"
#include "common/errors.h"

#define WHY_LEN 256
#define STATS_OFF (sizeof(int) + SHA256_HEX_LEN + WHY_LEN)
#define SEAL_OFF (STATS_OFF + sizeof(struct wsindex_stats))
#define REPLY_LEN (SEAL_OFF + SHA256_HEX_LEN + 1)

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
	struct wsindex_stats stats; /* of the last refresh */
	char seal[SHA256_HEX_LEN + 1]; /* ...and its seal */
};

static void __attribute__((noreturn)) worker(int rootfd, int fd, int flags,
    const unsigned char *key, const struct wslinks *links)
{
	unsigned char out[REPLY_LEN];
	char hex[SHA256_HEX_LEN + 1], why[WHY_LEN], seal[SHA256_HEX_LEN + 1];
	char req;
	int keep[2] = { rootfd, fd }, rc;
	struct wsindex *x;
	struct wsindex_stats st;

	if (close_fds_from(3, keep, 2) != 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		_exit(1);
	/* Named for ps(1) and for the tests that wait on its reads. */
	(void)prctl(PR_SET_NAME, "airlock-digest");
	/* Background work: the broker's loop comes first for the CPU. */
	(void)setpriority(PRIO_PROCESS, 0, 10);
	x = wsindex_new();
	if (flags & WSDIGEST_OVERLAY_TRUSTED)
		wsindex_trust_overlay(x);
	if (flags & WSDIGEST_SEAL)
		wsindex_want_seal(x);
	if (key != NULL)
		wsindex_set_key(x, key);
	wsindex_set_links(x, links);
	for (;;) {
		ssize_t n = read(fd, &req, 1);

		if (n == -1 && errno == EINTR)
			continue;
		if (n != 1)
			_exit(0);
		memset(hex, 0, sizeof(hex));
		memset(why, 0, sizeof(why));
		rc = wsindex_refresh(x, rootfd, hex, why, sizeof(why));
		memcpy(out, &rc, sizeof(rc));
		memcpy(out + sizeof(rc), hex, SHA256_HEX_LEN);
		memcpy(out + sizeof(rc) + SHA256_HEX_LEN, why, WHY_LEN);
		wsindex_stats(x, &st);
		memcpy(out + STATS_OFF, &st, sizeof(st));
		wsindex_seal(x, seal);
		memcpy(out + SEAL_OFF, seal, sizeof(seal));
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
answer(struct wsdigester *d, int rc, const char *hex, const char *why, int all)
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
		j->fn(j->arg, rc, hex, why);
		free(j);
	}
}

static void
worker_event(int fd, int why, void *arg)
{
	struct wsdigester *d = arg;
	char hex[SHA256_HEX_LEN + 1], reason[WHY_LEN];
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
		answer(d, AL_ERR_SYSTEM, NULL, "the digest worker is gone", 1);
		return;
	}
	if ((d->len += (size_t)n) < sizeof(d->buf))
		return;
	d->len = 0;
	d->busy = 0;
	memcpy(&rc, d->buf, sizeof(rc));
	memcpy(hex, d->buf + sizeof(rc), SHA256_HEX_LEN);
	hex[SHA256_HEX_LEN] = '\0';
	memcpy(reason, d->buf + sizeof(rc) + SHA256_HEX_LEN, WHY_LEN);
	reason[WHY_LEN - 1] = '\0';
	memcpy(&d->stats, d->buf + STATS_OFF, sizeof(d->stats));
	memcpy(d->seal, d->buf + SEAL_OFF, sizeof(d->seal));
	d->seal[SHA256_HEX_LEN] = '\0';
	if (rc != 0)
		d->seal[0] = '\0';
	answer(d, rc, rc == 0 ? hex : NULL, rc == 0 ? NULL : reason, 0);
	kick(d);
}

struct wsdigester *
wsdigester_new(struct loop *l, int rootfd, int flags, const unsigned char *key,
    const struct wslinks *links)
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
		worker(fd, sv[1], flags, key, links);
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

void
wsdigester_stats(const struct wsdigester *d, struct wsindex_stats *s)
{
	*s = d->stats;
}

const char *
wsdigester_seal(const struct wsdigester *d)
{
	return d->seal;
}
