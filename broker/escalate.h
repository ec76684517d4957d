/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * escalate: one-call escalation after a human's yes.
 *
 * A tool marked "escalation: ask" whose run the sandbox refused something
 * (broker/denials.h) may be re-run once with exactly the denied
 * permissions added.  The agent calls the built-in tool "escalate"
 * {"callId": ID, "denied": ["d1", ...], "reason": TEXT}.  Refused without
 * asking anyone (an "escalation_refused" audit record and a tool error
 * with errorClass "escalation_refused" and "reason"): an unknown or
 * forgotten call (unknownCall), a tool without escalation: ask
 * (notEnabled), an id that call was not refused (notDenied), a class the
 * manifest's escalation.forbid names or the always-forbidden protected
 * class (forbidden, with "class"), a denial already escalated once
 * (used).  Otherwise the original call, with its original arguments,
 * goes through the ordinary tools/call path (validation, budget, audit,
 * change-set policy) as a call that needs a human's approval: bound to
 * the tool, the arguments and the exact widening (in the execution the
 * digest covers), single-use, expiring after escalation.expiresSeconds.
 * The approved run gets the widening for that run only; nothing is kept.
 * A write widening granted while a run a human approved runs on a
 * workspace with a hard-linked file waits for it (escalate_hold()).
 *
 * Audit: escalation_request {id, callId, tool, widening, reason,
 * approval}; escalation_refused {id, callId, reason, class?};
 * escalation_decision {id, callId, outcome}; escalation_held and
 * escalation_applied (escalate_hold(), escalate_resume()); the re-run's
 * runner_start carries "escalation": the approval id.
 */
#ifndef AIRLOCK_ESCALATE_H
#define AIRLOCK_ESCALATE_H

#include <stdint.h>

#include <jansson.h>

#include "broker/approval.h"
#include "policy/manifest.h"
#include "runner/runner.h"

struct broker;
struct call;
struct conn;
struct escalation;

/* Whether some tool of |m| has escalation: ask (escalate is offered). */
int escalate_enabled(const struct manifest *m);

/* The tools/list entry of escalate: a new reference. */
json_t *escalate_tool_entry(void);

/*
 * tools/call of escalate with request id |id| and |params| (borrowed):
 * answers it (a refusal) or hands the re-run to broker_call_decide().
 */
void escalate_call(struct conn *k, json_t *id, json_t *params);

/*
 * After |c|'s run: its denials (egress refusals |egress|, borrowed, and
 * the runner's |res|) become sandbox_denial records and are remembered
 * for escalate.  Returns the list (new reference, kept in c->denied by
 * the caller), or NULL when nothing was refused.
 */
json_t *escalate_record(
    struct call *c, json_t *egress, const struct runner_result *res);

/*
 * Adds "callId" and "denied" to |structured| (the result's body) when
 * c->denied is set.
 */
void escalate_annotate(struct call *c, json_t *structured);

/*
 * The text block that follows the result's own when c->denied is set:
 * one line saying what was refused and, for a tool with escalation: ask,
 * how to ask for a re-run.  A new JSON string, or NULL.
 */
json_t *escalate_note(const struct call *c);

/* An escalated call: adds "escalation" to the approver's |evidence|. */
void escalate_evidence(struct call *c, json_t *evidence);

/* An escalated call's widening for its execution binding: new ref. */
json_t *escalate_binding(struct call *c);

/* How long an escalated call's approval may wait, in ms. */
int64_t escalate_wait_ms(struct call *c);

/* The approval |approval| was opened: escalation_request. */
void escalate_requested(struct call *c, const char *approval);

/* The human decided: escalation_decision. */
void escalate_decided(struct call *c, enum approval_outcome o);

/*
 * The network |allow| of an escalated call's run with the widened
 * host:port entries added (owned by the escalation), or |allow| itself.
 */
const struct net_allow *escalate_net(
    struct call *c, const struct net_allow *allow);

/*
 * Called for every run once c->req is filled: the manifest's
 * sandbox.allowSyscalls go to the runner; for an escalated re-run, the
 * widening too, for that run only: a filesystem read binds the path
 * read-only, a write read-write, a syscall comes off the seccomp deny
 * list, a limit is doubled (c->req.policy then points at the
 * escalation's copy of the sandbox policy; the network part is
 * escalate_net()'s).  Each filesystem widening is checked again here, as
 * it is now, and bound only as it resolves now with no symlink followed
 * (sandbox_policy.exact).  Returns 0, or -1 with *out set when a path
 * became protected since the escalation was asked for: nothing runs.
 */
int escalate_prepare_run(struct call *c, json_t **out);

/*
 * At the start of |c|'s run (call_start_runner(), before anything of it
 * is done): an escalated re-run that widens a write, a tree no walk for
 * hard links judged, while a run a human approved runs on a workspace
 * with a hard-linked file (whose other name the re-run could rewrite
 * under it, unseen) is held in b->esc_held, audited escalation_held
 * {id, callId, tool, approval, runId, runTool}: returns 1 (the call is
 * pending).  Otherwise 0.
 */
int escalate_hold(struct call *c);

/*
 * Once no approved run on a linked workspace runs (after each run's
 * processes are gone, and as a call is freed): each held escalation
 * starts over from its grant (approval_granted(): the workspace digested
 * again and held to what the approver was shown); it may be held again
 * behind a run started meanwhile.  Its re-run's start is audited
 * escalation_applied {id, callId, approval, heldMs}.
 */
void escalate_resume(struct broker *b);

/*
 * The session ends: every held escalation is refused, audited
 * escalation_refused {id, callId, reason: sessionEnded}, and freed;
 * nothing of it runs.
 */
void escalate_session_end(struct broker *b);

/* Frees.  NULL is fine. */
void escalate_free(struct escalation *e);

#endif
