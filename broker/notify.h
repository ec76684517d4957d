/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * notify: the approvals notify hook, run in its own sandbox.
 *
 * The manifest's approvals.notify names a command.  It runs in a runner
 * sandbox like a tool's (its own namespaces, seccomp, landlock, no
 * capabilities), with: no workspace (an empty read-only directory), none
 * of airlock's state, the network its entry allows through the egress
 * proxy (approvals.notify.network / allowAddresses; none by default), and
 * a clean environment (PATH, LANG, HOME=/tmp, AIRLOCK_NOTIFY_EVENT) plus
 * the variables named in approvals.notify.env, copied from airlock's own
 * environment.  It gets one payload on stdin (documented, versioned, in
 * airlock-manifest(5)):
 *   {"version":1,
 *    "event":"created"|"granted"|"denied"|"expired"|"withdrawn",
 *    "session":S, "approval":APPROVAL, "decision":{"by":B,"text":T},
 *    "withdrawal":{"reason":R}}
 * ("decision" only for granted and denied, "withdrawal" only for
 * withdrawn: the agent cancelled the call, or the session ended; R is
 * airlock's text, never the agent's), ASCII-only JSON.  Each run is
 * audited (approval_notify: event, approval, exit status, the first
 * bytes of its output); airlock never waits for a hook, and one that
 * outlives approvals.notify.timeoutMs is killed.
 */
#ifndef AIRLOCK_NOTIFY_H
#define AIRLOCK_NOTIFY_H

#include <stddef.h>

#include <jansson.h>

#include "broker/egress.h"
#include "broker/loop.h"
#include "policy/manifest.h"

struct notifier;

/*
 * Called for every audit record (fields borrowed); returns 0 when it is
 * in the log (the approvals' function, broker/approval.h).
 */
typedef int (*notify_audit_fn)(void *arg, const char *event, json_t *f);

/*
 * Returns a notifier for |m|'s hook (NULL with err set when the hook
 * cannot be run; a manifest without a hook yields a notifier that does
 * nothing).  |egress| may be NULL if the hook needs no network.
 */
struct notifier *notifier_new(const struct manifest *m, struct loop *loop,
    struct egress *egress, notify_audit_fn audit, void *audit_arg, char *err,
    size_t errlen);

/*
 * Runs the hook for |event| ("created", "granted", "denied", "expired",
 * "withdrawn") on |approval| (borrowed), if the manifest's events include
 * it.  |by| and |text| (may be NULL) describe a decision; for "withdrawn",
 * |by| is NULL and |text| says why.  Never blocks.
 */
void notifier_fire(struct notifier *n, const char *event, const char *session,
    json_t *approval, const char *by, const char *text);

/* Kills the hooks still running, waits for them, frees.  NULL is fine. */
void notifier_free(struct notifier *n);

#endif
