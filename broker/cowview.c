/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* cowview: see cowview.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "broker/broker_int.h"
#include "broker/cowview.h"
#include "broker/fwatch.h"
#include "broker/landjob.h"
#include "broker/wsindex.h"
#include "broker/wsjob.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"

int
cowview_attach(struct broker *b, int viewfd, const char *upper)
{
	char root[64], err[256];

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
	/* Its seal proves something only if the upper layer's filesystem
	 * moves the times for a write through a mapping (wsindex.h). */
	if ((b->digester = wsdigester_new(b->cfg.loop, b->rootfd,
		 WSDIGEST_SEAL |
		     (wsindex_path_trusted(upper) ? WSDIGEST_OVERLAY_TRUSTED
						  : 0),
		 broker_digest_key(b), b->links)) == NULL ||
	    (b->lander = lander_new(b)) == NULL)
		return AL_ERR_SYSTEM;
	/*
	 * And a watch of the view: the agent writes there, not in the
	 * checkout (whose watch stays, for a human's edits), and a write it
	 * makes while a check runs must void that check's gate
	 * (broker_ws_gen()).  It only counts: the agent's own edits are not
	 * news to it.  Through the view's descriptor ("/." so that the
	 * watch's own O_NOFOLLOW opens reach the directory); without
	 * inotify there is none, and no gate counts (blind).
	 */
	fwatch_free(b->view_watch);
	snprintf(root, sizeof(root), "/proc/self/fd/%d/.", b->rootfd);
	if ((b->view_watch = fwatch_new(b->cfg.loop, root, err, sizeof(err))) ==
	    NULL)
		log_warnx("the copy-on-write view cannot be watched: %s; no "
			  "check counts toward a gate",
		    err);
	fwatch_count_only(b->view_watch);
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
