/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * denials: what the sandbox refused, per call, in terms a manifest can
 * express, and the session's memory of the recent calls that had any.
 *
 * A finished run's denials become a list of objects (the shared denial
 * contract, docs/ESCALATION.md):
 *   {"denial": "d1", "layer": "filesystem"|"network"|"syscall"|"limit",
 *    "source": ..., filesystem: "path", "access"; network: "host",
 *    "port", "allowWith"; syscall: "syscall", "nr"; limit: "limit",
 *    "value"; "hint": the human text}
 * Each is one "sandbox_denial" audit record (with "id" and "tool"), and
 * the call's result carries them as "denied" with "callId".  The store
 * keeps the last DENIALS_CALLS_MAX such calls (oldest dropped) with
 * their original arguments, for the escalate tool (broker/escalate.h).
 */
#ifndef AIRLOCK_BROKER_DENIALS_H
#define AIRLOCK_BROKER_DENIALS_H

#include <stddef.h>

#include <jansson.h>

#include "policy/manifest.h"
#include "runner/runner.h"

#define DENIALS_CALLS_MAX 64 /* calls remembered per session */
#define DENIALS_PER_CALL 20 /* denials kept per call */

struct denials;

/* One remembered call.  All fields owned by the store. */
struct denial_call {
	char *key; /* the call id as canonical JSON */
	char *tool;
	json_t *args; /* the original arguments */
	json_t *list; /* the denial objects, ids d1.. */
	json_t *used; /* denial id -> true once escalated */
};

/* A new, empty store. */
struct denials *denials_new(void);

/* Frees the store and everything in it.  NULL is fine. */
void denials_free(struct denials *d);

/*
 * The denials of one finished run: |egress| (borrowed, may be NULL) is
 * egress_denials()'s array of {host, port, reason, allowWith}; |res| the
 * runner's result.  Returns a new array of denial objects (at most
 * DENIALS_PER_CALL, numbered d1.. in order of first occurrence), or NULL
 * when nothing was refused.
 */
json_t *denials_build(json_t *egress, const struct runner_result *res);

/*
 * Remembers call |id| of |tool| with |args| and its |list| (all
 * borrowed: copied or referenced).  A call already remembered under the
 * same id is replaced.  Drops the oldest beyond DENIALS_CALLS_MAX.
 */
void denials_remember(struct denials *d, json_t *id, const char *tool,
    json_t *args, json_t *list);

/*
 * The remembered call |id|, or NULL (never seen, or dropped).  Borrowed:
 * valid until the next denials_remember() or denials_free().
 */
struct denial_call *denials_find(struct denials *d, json_t *id);

/* The denial |did| ("d1") of |dc|, borrowed, or NULL. */
json_t *denial_call_get(const struct denial_call *dc, const char *did);

/*
 * One line for the model: what was refused ("network 10.0.0.5:80 (d1),
 * filesystem read /etc/x (d2)"), into buf[0..len).
 */
void denials_summary(json_t *list, char *buf, size_t len);

/*
 * Returns 1 if network denial |d| names, as an IP literal, an address
 * the egress proxy classifies as the cloud's metadata service
 * (rules_classify(): 169.254.169.254, fd00:ec2::254, 168.63.129.16, or
 * one embedding them), else 0.
 */
int denials_metadata(json_t *d);

/*
 * What network denial (or widening) |d| reaches that is not the
 * internet, or NULL: an IP literal the egress proxy refuses unless
 * allowAddresses names it (rules_classify(): the cloud's metadata,
 * loopback, private, link-local ...), or an address of this machine's
 * interfaces (getifaddrs(3): the view of the machine that calls it).
 * Returns "WIDENS TO THIS MACHINE'S SERVICES", "WIDENS TO THE LOCAL
 * NETWORK'S SERVICES" or "WIDENS TO CLOUD METADATA (...)"; |desc| gets
 * what the address is ("loopback (127.0.0.0/8)").  A host name is
 * resolved by the proxy, which refuses such an address still: NULL.
 * For a filesystem write, what it lets the run write that runs as code
 * at someone's next ordinary action, outside any sandbox, as this
 * machine's files are: a file writepolicy_runs_on() names (~/.bashrc,
 * a .npmrc), a directory holding one or beneath which a tool reads one,
 * a home directory or one above homes (the passwd database's); returns
 * "WRITES WHAT RUNS LATER, OUTSIDE ANY SANDBOX", and |desc| gets what
 * runs it in the table's words only (the path is the agent's).
 */
const char *denials_warning(json_t *d, char *desc, size_t desclen);

/*
 * The warnings of widening |w| (an array of denials), one string each,
 * "d1 WIDENS TO THIS MACHINE'S SERVICES: 127.0.0.1 port 2375 is
 * loopback (127.0.0.0/8)" (denials_warning()), as the approval's
 * evidence carries them (escalation.warnings) and airlock approve
 * prints them.  A new array, empty when none.
 */
json_t *denials_warnings(json_t *w);

/*
 * The escalation class of denial |d| (an ESCALATE_CLASS_* bit): network,
 * syscall, limit, or for a filesystem denial read or write, unless the
 * path is protected (ESCALATE_CLASS_PROTECTED): any path under .git or a
 * credential store (.ssh, .aws, .gnupg, .netrc, .docker, .kube,
 * .git-credentials, .password-store, .pgpass, .npmrc, .pypirc) at any
 * depth, airlock's state, config and runtime directories, a denyRead
 * path of |m|, a sandbox.protected pattern of |m| beneath |workspace|
 * (may be NULL), or a path that is not absolute and clean; as named and
 * as it resolves.  A bind is of a whole tree, so a directory that holds
 * any of these, a socket, device or FIFO, or |workspace| itself is
 * protected too (sensitive_tree()).  Anything malformed is protected
 * too.  A network denial of the cloud's metadata address
 * (denials_metadata()) is protected.  Reads the filesystem.
 */
unsigned denials_class(
    const struct manifest *m, const char *workspace, json_t *d);

#endif
