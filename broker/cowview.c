/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* cowview: see cowview.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "broker/broker_int.h"
#include "broker/cowview.h"
#include "broker/landjob.h"
#include "broker/wsjob.h"
#include "common/errors.h"
#include "common/util.h"

int
cowview_attach(struct broker *b, int viewfd, const char *upper)
{
	if (viewfd < 0 || viewfd == b->rootfd) {
		errno = EBADF;
		return AL_ERR_SYSTEM;
	}
	if (dup3(viewfd, b->rootfd, O_CLOEXEC) == -1)
		return AL_ERR_SYSTEM;
	b->cow_view = 1;
	free(b->cow_upper);
	b->cow_upper = xstrdup(upper);
	/*
	 * The digest worker and the lander hold the root they were forked
	 * with, the real checkout: made again on the view, or a gate would
	 * be bound to the checkout's digest and a run's set would land in
	 * the checkout.
	 */
	wsdigester_free(b->digester);
	lander_free(b->lander);
	b->lander = NULL;
	if ((b->digester = wsdigester_new(b->cfg.loop, b->rootfd)) == NULL ||
	    (b->lander = lander_new(b)) == NULL)
		return AL_ERR_SYSTEM;
	return 0;
}

int
cowview_active(const struct broker *b)
{
	return b->cow_view;
}

void
cowview_call_prepare(struct call *c)
{
	if (!c->b->cow_view)
		return;
	c->req.lower_upper = c->b->cow_upper;
}
