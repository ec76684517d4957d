/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * approvalflow: a call that needs a human's yes, from the request to the
 * run.
 *
 * A call the manifest says needs approval (or an escalated re-run, or
 * request_approval) is bound to what it will run (action_plan(): argv,
 * cwd, env names, pinned code, and the workspace digest the approver is
 * shown), then parked in b->waiting with an approval request
 * (broker/approval.h) until a human decides.  While it waits the agent
 * gets a progress notification every 5 s when it asked for progress.
 * On a grant the workspace is digested again (twice, seals compared,
 * when the agent writes it) and the execution worked out again
 * (approval_rebind()): anything changed since the request
 * voids the approval (an "approval_voided" record, a note in the
 * result) and a human is asked again, with what changed as evidence.
 * A denial or an expiry ends the call with approval_denied or
 * approval_expired; nothing runs.
 *
 * The call lifecycle it uses (call_complete(), call_digest(),
 * call_hold()) is call.c's (call.h), broker_trace() broker.c's
 * (broker_int.h).
 */
#ifndef AIRLOCK_APPROVALFLOW_H
#define AIRLOCK_APPROVALFLOW_H

#include <jansson.h>

struct call;

/*
 * Parks |c| until a human decides on it; |evidence| (owned) is shown to
 * the approver.  On a grant, c->action runs (or, for request_approval,
 * the decision is the result).  Returns ACTION_PENDING, or ACTION_ERROR
 * with *out set.
 */
int call_await_approval(struct call *c, json_t *evidence, json_t **out);

/*
 * The then of call_digest() for a call that needs approval: binds |c| to
 * its plan and the digest (|rc| 0 and |hex|; else bound to no workspace
 * a grant can match) and asks for the approval, or finishes the call.
 */
void approval_digested(struct call *c, int rc, const char *hex);

/*
 * An approval holds only for what it was given: at the grant and just
 * before the runner starts (|when|: "grant", "start"), the execution is
 * worked out again (argv, cwd, env names, pinned code, the workspace
 * digest).  Unchanged (or |c| was never approved): returns -1 and the
 * call goes on.  Changed: the approval is void; a new one is opened whose
 * evidence shows what changed, and the call waits for it
 * (ACTION_PENDING), or fails (ACTION_ERROR with *out set).
 */
int approval_rebind(struct call *c, const char *when, json_t **out);

/* A human granted |c|: it runs as approved, once no set is landing
 * (held with HOLD_GRANTED until then). */
void approval_granted(struct call *c);

#endif /* AIRLOCK_APPROVALFLOW_H */
