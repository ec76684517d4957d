/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cowrun: airlock run's side of a copy-on-write agent session
 * (supervisor/cowsession.h): the session's state, the agent's overlay
 * on it, and the broker's handle on that overlay.
 *
 * cowrun_prepare() creates the session (or, with |resume|, opens and
 * locks an earlier one for the same workspace and manifest), records it
 * in the audit log ("cow_session") and points |req| at its upper layer;
 * the session's file last_run names the run now using it.  A resumed
 * session carries its run budget on: the last run's audit log (named by
 * last_run) must verify, closed, under a trusted host key, and hold the
 * "run_budget" record its broker wrote at its end (broker_config's
 * record_budget); that is cr->carry.  A log that cannot be read or
 * verified, a run that did not end (crashed: what it spent is unknown),
 * a session a budget stopped or whose maxElapsedMinutes,
 * maxModelSteps or maxRefusedCalls are spent: refused
 * (AL_ERR_BUDGET for a spent budget), nothing started.
 * the agent's runner then sends back its workspace overlay.
 * cowrun_attach(), right after runner_start(), receives it and makes it
 * the broker's workspace (broker/cowview.h) before any request is
 * served.  cowrun_end() says where the changes are and releases the
 * session.  Each returns 0 or a negative code with a message in
 * err[0..errlen).
 */
#ifndef AIRLOCK_COWRUN_H
#define AIRLOCK_COWRUN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct audit;
struct broker;
struct manifest;
struct runner_request;
struct session;

struct cowrun {
	struct cowsession *cs; /* NULL: not a copy-on-write session */
	int sock[2]; /* the view comes on sock[0] */
	int resumed;
	/* Resumed: what the session spent (its last run's "run_budget"
	 * record, for broker_config.carry) and the milliseconds left of
	 * runBudget.maxElapsedMinutes (INT64_MAX: no limit). */
	json_t *carry;
	int64_t time_left_ms;
};

void cowrun_init(struct cowrun *cr);

int cowrun_prepare(struct cowrun *cr, const struct session *s, struct audit *a,
    const struct manifest *m, const char *workspace, const char *resume,
    struct runner_request *req, char *err, size_t errlen)
    __attribute__((warn_unused_result));

int cowrun_attach(struct cowrun *cr, struct broker *b, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Prints where the changes are (to stderr) and frees; safe twice. */
void cowrun_end(struct cowrun *cr);

/*
 * Whether this kernel can mount overlayfs in a user namespace (5.11 and
 * later): 1, or 0 with the release in rel[0..rellen).
 */
int cowrun_kernel_ok(char *rel, size_t rellen);

#endif
