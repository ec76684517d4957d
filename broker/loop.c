/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "broker/loop.h"
#include "common/errors.h"
#include "common/util.h"

#define LOOP_MAX_WATCHES	1024

struct watch {
	int	 id;		/* 0: free slot */
	int	 fd;
	short	 events;	/* POLLIN or POLLOUT */
	int64_t	 deadline;
	loop_fn	 fn;
	void	*arg;
};

struct loop {
	struct watch	 w[LOOP_MAX_WATCHES];
	size_t		 n;		/* slots in use, high-water mark */
	int		 next_id;
	int		 stop;
	loop_turn_fn	 turn_fn[LOOP_MAX_TURN_END];
	void		*turn_arg[LOOP_MAX_TURN_END];
	size_t		 nturn;
};

int
loop_on_turn_end(struct loop *l, loop_turn_fn fn, void *arg)
{
	if (l->nturn == LOOP_MAX_TURN_END)
		return AL_ERR_LIMIT;
	l->turn_fn[l->nturn] = fn;
	l->turn_arg[l->nturn++] = arg;
	return 0;
}

void
loop_off_turn_end(struct loop *l, loop_turn_fn fn, void *arg)
{
	size_t i;

	for (i = 0; i < l->nturn; i++) {
		if (l->turn_fn[i] == fn && l->turn_arg[i] == arg) {
			memmove(&l->turn_fn[i], &l->turn_fn[i + 1],
			    (l->nturn - i - 1) * sizeof(l->turn_fn[0]));
			memmove(&l->turn_arg[i], &l->turn_arg[i + 1],
			    (l->nturn - i - 1) * sizeof(l->turn_arg[0]));
			l->nturn--;
			return;
		}
	}
}

static void
turn_end(struct loop *l)
{
	size_t i;

	for (i = 0; i < l->nturn; i++)
		l->turn_fn[i](l->turn_arg[i]);
}

struct loop *
loop_new(void)
{
	struct loop *l;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		return NULL;
	l->next_id = 1;
	return l;
}

void
loop_free(struct loop *l)
{
	free(l);
}

static int
watch_add(struct loop *l, int fd, short events, int64_t deadline, loop_fn fn,
    void *arg)
{
	size_t i;

	for (i = 0; i < LOOP_MAX_WATCHES; i++)
		if (l->w[i].id == 0)
			break;
	if (i == LOOP_MAX_WATCHES)
		return AL_ERR_LIMIT;
	if (l->next_id == INT32_MAX)
		l->next_id = 1;
	l->w[i].id = l->next_id++;
	l->w[i].fd = fd;
	l->w[i].events = events;
	l->w[i].deadline = deadline;
	l->w[i].fn = fn;
	l->w[i].arg = arg;
	if (i >= l->n)
		l->n = i + 1;
	return l->w[i].id;
}

int
loop_watch(struct loop *l, int fd, int64_t deadline, loop_fn fn, void *arg)
{
	return watch_add(l, fd, POLLIN, deadline, fn, arg);
}

int
loop_watch_writable(struct loop *l, int fd, loop_fn fn, void *arg)
{
	return watch_add(l, fd, POLLOUT, INT64_MAX, fn, arg);
}

static struct watch *
loop_find(struct loop *l, int id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->w[i].id == id)
			return &l->w[i];
	return NULL;
}

void
loop_set_deadline(struct loop *l, int id, int64_t deadline)
{
	struct watch *w;

	if ((w = loop_find(l, id)) != NULL)
		w->deadline = deadline;
}

void
loop_unwatch(struct loop *l, int id)
{
	struct watch *w;

	if ((w = loop_find(l, id)) == NULL)
		return;
	w->id = 0;
	while (l->n > 0 && l->w[l->n - 1].id == 0)
		l->n--;
}

void
loop_stop(struct loop *l)
{
	l->stop = 1;
}

int
loop_run(struct loop *l)
{
	struct pollfd	 pfd[LOOP_MAX_WATCHES];
	int		 ids[LOOP_MAX_WATCHES];
	size_t		 i, np;
	int64_t		 now, next;
	int		 timeout, rc;

	l->stop = 0;
	while (!l->stop) {
		turn_end(l);
		if (l->stop)
			break;
		np = 0;
		next = INT64_MAX;
		for (i = 0; i < l->n; i++) {
			if (l->w[i].id == 0)
				continue;
			if (l->w[i].deadline < next)
				next = l->w[i].deadline;
			if (l->w[i].fd < 0)
				continue;
			pfd[np].fd = l->w[i].fd;
			pfd[np].events = l->w[i].events;
			pfd[np].revents = 0;
			ids[np++] = l->w[i].id;
		}
		now = now_monotonic_ms();
		if (next == INT64_MAX)
			timeout = -1;
		else if (next <= now)
			timeout = 0;
		else
			timeout = next - now > INT32_MAX ? INT32_MAX :
			    (int)(next - now);
		if ((rc = poll(pfd, np, timeout)) == -1) {
			if (errno == EINTR)
				continue;
			turn_end(l);
			return AL_ERR_SYSTEM;
		}
		/* Callbacks may add or remove watches: look each one up again. */
		for (i = 0; i < np && !l->stop; i++) {
			struct watch *w;

			if (pfd[i].revents == 0)
				continue;
			if ((w = loop_find(l, ids[i])) != NULL)
				w->fn(w->fd, w->events == POLLOUT ?
				    LOOP_WRITABLE : LOOP_READABLE, w->arg);
		}
		now = now_monotonic_ms();
		for (i = 0; i < l->n && !l->stop; i++) {
			struct watch *w = &l->w[i];

			if (w->id != 0 && w->deadline <= now) {
				w->deadline = INT64_MAX;
				w->fn(w->fd, LOOP_DEADLINE, w->arg);
			}
		}
	}
	turn_end(l);
	return 0;
}
