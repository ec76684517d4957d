/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * viewfreeze: a copy-on-write session's view is read-only while a run
 * granted both a secret and the network, or one a human approved, runs.
 *
 * Such a run sees the agent's view live (broker/cowview.h).  Its runner
 * masks the repositories the agent planted before it started
 * (runner/child.c), and if the view is written while it runs its output
 * is withheld (secret_run_tampered() in broker.c).  With the network
 * that comes too late: a repository planted while it runs (a src/.git
 * whose diff.external runs the agent's command when the run's git reads
 * it) could send the secret to a host the run may reach before the run
 * ends.  So from before its runner starts until its processes are gone,
 * the overlay the agent sees is made read-only at its superblock
 * (fspick(2), "ro", FSCONFIG_CMD_RECONFIGURE): every write through any
 * mount of it fails with EROFS, the agent's and the broker's alike, and
 * the kernel makes the switch only while no file of the view is open for
 * writing or mapped shared and writable (EBUSY otherwise), so no write in
 * flight slips past it.  The runner reads the session's upper layer
 * directly, not through the overlay, so the run itself is unaffected.
 *
 * Runs holding it are counted: the first makes the view read-only, the
 * last to end makes it writable again.  Meanwhile the broker's own writes
 * (write_file, apply_patch) are refused "busy" and change sets wait to
 * land (broker.c).  The state changes are audited: "view_frozen" {id,
 * tool} and "view_thawed" {id}, or "view_thaw_failed" {id, error}, after
 * which the view stays read-only for the session (fail closed).
 */
#ifndef AIRLOCK_VIEWFREEZE_H
#define AIRLOCK_VIEWFREEZE_H
#include <jansson.h>

struct broker;
struct call;

/*
 * Whether |c|, in a copy-on-write session, must hold the view read-only
 * while it runs: granted secrets with |hosts| allowed on the network, or
 * approved by a human (the run reads the view as it goes, and an agent
 * that rewrote a script it sources once it had started ran code the
 * approver never saw: approval_run_still.sh).
 */
int viewfreeze_needed(const struct call *c, size_t hosts);

/*
 * Holds the view read-only for |c| (once per call).  0, or -1 with *out
 * the call's error: "busy" (retryable) while a change set lands or a file
 * of the view is open for writing, "sandbox_setup" when the kernel
 * refuses otherwise.  Nothing is held on failure.
 */
int viewfreeze_hold(struct call *c, json_t **out);

/*
 * Lets go of |c|'s hold, if it has one; returns 1 when the view was made
 * writable again (the last hold), else 0.
 */
int viewfreeze_release(struct call *c);

/*
 * The user and mount namespaces the view was mounted in (descriptors of
 * /proc/PID/ns/user and .../mnt of the process that made it, which it
 * sent with the view; taken over, -1 for none; -1, -1 closes them).  An
 * airlock run by an ordinary user holds no capability over the mount
 * its agent's sandbox made: a short-lived child of the broker joins them
 * to switch the view.  As root the broker switches it itself.
 */
void viewfreeze_set_ns(struct broker *b, int userns, int mntns);

/* Whether the view is read-only now (held, or stuck). */
int viewfreeze_active(const struct broker *b);

/* Whether making it writable again failed: it stays read-only, and a
 * change set that would land in it is refused instead of waiting. */
int viewfreeze_stuck(const struct broker *b);

#endif
