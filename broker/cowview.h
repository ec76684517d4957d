/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cowview: the broker of a copy-on-write agent session works on the
 * session's overlay, not on the real checkout.
 *
 * cowview_attach() makes |viewfd| (an O_PATH descriptor of the overlay
 * the agent sees: runner_request.send_view) the broker's workspace root:
 * the descriptor number every module holds (b->rootfd) is replaced in
 * place with dup3(), so reads, the broker's own writes (write_file,
 * apply_patch), change sets of runners and the workspace digest all
 * see and change the session's view, and the real checkout is untouched
 * (the digest worker and the lander, which hold the root they were
 * forked with, are forked again on the view; a second watch of changes
 * (broker/fwatch.h), on the view, counts the agent's own writes to it,
 * which void a gate whose check they overlap).
 * Runners of the session see the same view: the session's upper layer
 * |upper| (copied) over the workspace as their lower layers
 * (cowview_call_prepare(); a mount of another namespace cannot be a
 * layer).  Call it before the broker serves a request.  |viewfd| stays
 * the caller's.  Returns 0, or AL_ERR_SYSTEM (errno set).
 */
#ifndef AIRLOCK_COWVIEW_H
#define AIRLOCK_COWVIEW_H

struct broker;
struct call;

int cowview_attach(struct broker *b, int viewfd, const char *upper)
    __attribute__((warn_unused_result));

/* Whether |b| works on a session's view. */
int cowview_active(const struct broker *b);

/*
 * For a runner of |c| in such a session: its lower layers are the
 * view's (runner_request.lower_upper).  A no-op otherwise.
 */
void cowview_call_prepare(struct call *c);

#endif
