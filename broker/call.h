/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * call: the life of one tools/call once the broker has it (struct call,
 * broker_int.h), apart from the decision (broker.c) and the actions
 * (actions.c, runcall.c): held while a change set lands, waiting for the
 * workspace digest a gate binds to, answered (early, for a background
 * job, or at the end, shaped by result.c), remembered for idempotent
 * retries, and freed.
 *
 * Each function runs on the event loop; none blocks.  A call is answered
 * once: call_complete() and call_answer_early() send the reply only
 * after its "result" record is in the audit batch, and withhold it
 * (a refusal with its id) when that record cannot be written.
 */
#ifndef AIRLOCK_CALL_H
#define AIRLOCK_CALL_H

#include <jansson.h>

struct broker;
struct call;

/* Frees what |c|'s action built to run (argv, the environment, wiped):
 * built again when it runs again. */
void		 call_clear_exec(struct call *c);

/* Frees |c| (its connection reference too) without answering it. */
void		 call_free(struct call *c);

/*
 * Remembers |result| (borrowed) for an idempotent call's retries, and
 * answers the retries that arrived while it ran with it.
 */
void		 call_remember(struct call *c, json_t *result);

/*
 * Answers |c|'s request now with |structured| (borrowed) and the extra
 * text block |text| (or NULL), redacted, with the late-injected tail,
 * audited; releases the connection.  |c| lives on (as a background job).
 */
void		 call_answer_early(struct call *c, json_t *structured,
		    const char *text);

/* Finishes |c| with (status, out) as an action would return them. */
void		 call_complete(struct call *c, int status, json_t *out);

/*
 * Whether (status, out), as call_complete() takes them, is a refusal that
 * runBudget.maxRefusedCalls counts: an error that does not say retryable
 * (not "busy", "timeout").  A call's, or a background job's at its end.
 */
int		 call_refusal(int status, const json_t *out);

/*
 * Holds |c| while a change set lands (|kind| HOLD_*, |params| borrowed,
 * kept for the release): 1, or 0 if none lands and |c| goes on now.
 */
int		 call_hold(struct call *c, int kind, json_t *params);
/* Goes on with every call held while a set landed, in the order they
 * were held, once none lands. */
void		 calls_release(struct broker *b);

/*
 * Computes the workspace digest off the event loop, then calls
 * |then|(c, rc, hex) from the loop, which must finish the call (start a
 * runner, await an approval, or call_complete()).  Returns ACTION_PENDING,
 * or ACTION_ERROR with *out set.
 */
int		 call_digest(struct call *c, void (*then)(struct call *c, int rc,
		    const char *hex), json_t **out);

/*
 * call_digest() for a new call (a check's digest before its run, or a
 * call's before its approval), or ACTION_ERROR with *out "busy"
 * (retryable) when DIGEST_WAIT_MAX calls already wait for one.
 */
int		 call_digest_new(struct call *c, void (*then)(struct call *c,
		    int rc, const char *hex), json_t **out);
#endif
