/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * suggest: turns a session's sandbox denials into the smallest manifest
 * change that would have allowed them (airlock suggest, like
 * audit2allow).  Pure code: no I/O; the caller reads and verifies the
 * log and the manifest.
 *
 * Input: the log's records as JSON objects ({"event", "fields", ...}).
 * Read are:
 *   sandbox_denial	with "layer" (docs/DENIALS.md): filesystem, network,
 *			syscall, limit; one without "layer" (older runners:
 *			only a "hint") becomes a not-expressible note;
 *   egress		with "decision": "deny" and "allowWith": a network
 *			denial, attributed to the call whose runner was
 *			running for that tool;
 *   escalation_request	its "widening" entries, denials of "callId";
 *   escalation_decision	its "outcome", noted in the reason;
 *   escalation_refused	its "reason" and "class", noted likewise.
 * Everything else is ignored.
 *
 * Output: one change per manifest key, each value once (the same path
 * denied five times is one value with five references), never broader
 * than what was denied:
 *   filesystem read/exec P	sandbox.readOnly gains P (exactly P);
 *   filesystem write P		not expressible (one-run escalation or --rw);
 *   network H:P		the key in "allowWith" gains "H:P"
 *				(tools[N].network, tools[N].allowAddresses,
 *				checks.ID.network, agent.network...);
 *   syscall S			sandbox.allowSyscalls gains S;
 *   limit L = V		sandbox.limits.KEY set to 2 V (memory: memoryMb,
 *				processes, cpu: cpuSeconds, fileSize:
 *				fileSizeMb); wallClock: tools[N].timeoutMs.
 * A change WEAKENS a protected class when it reads a credential store
 * (~/.ssh ~/.aws ~/.gnupg ~/.netrc ~/.docker ~/.kube ~/.config/gh ...),
 * a denyRead or protected path, .git, airlock's own state or config
 * directories, or a directory holding any of them, a socket, device or
 * FIFO or a directory holding one (sensitive_plain_tree()), or when it
 * allows a dangerous syscall (ptrace, bpf, mount, keyctl, kexec*, module
 * loading, perf_event_open, userfaultfd, unshare, setns...: every name
 * of seccomp_denied_syscalls, and pidfd_getfd, kcmp, fanotify_init...),
 * or a connection to an address that is not public (rules_classify():
 * loopback, private, link-local, the cloud's metadata...).
 */
#ifndef AIRLOCK_SUGGEST_H
#define AIRLOCK_SUGGEST_H

#include <stddef.h>

#include <jansson.h>

struct yamledit;

/* What the planner knows of the host and the manifest (all may be NULL). */
struct suggest_ctx {
	const char *home; /* $HOME, for credential stores */
	const char *workspace; /* the session's workspace */
	const char *const *deny_read; /* sandbox.denyRead, expanded */
	size_t ndeny_read;
	const char *const *protected; /* sandbox.protected patterns */
	size_t nprotected;
	const char *const *state_dirs; /* airlock state/config dirs */
	size_t nstate_dirs;
	const char *agent_home; /* agent.home, or NULL */
};

enum suggest_kind {
	SUGGEST_ADD = 1, /* values join the list at path */
	SUGGEST_RAISE, /* the number at path becomes |number| */
	SUGGEST_NOTE, /* not expressible: |reason| says why */
};

struct suggest_change {
	enum suggest_kind kind;
	char layer[16]; /* filesystem, network, ... */
	char *key; /* "sandbox.readOnly", ... */
	char *path[8]; /* YAML path (yamledit.h form) */
	size_t npath;
	char *tool; /* tools[N] keys: the tool's
						   name, or NULL */
	char **values; /* SUGGEST_ADD */
	size_t nvalues;
	long long number; /* SUGGEST_RAISE */
	char *reason; /* one line, names calls and
						   denial ids */
	char *weakens; /* why it weakens, or NULL */
};

struct suggest_plan {
	struct suggest_change *changes; /* changes, then notes */
	size_t n;
	size_t denials; /* denial records read */
	size_t dropped; /* denials past the planner's caps (256
			   keys, 256 values a key): not planned */
};

/*
 * Plans the changes for |records| (a JSON array of log records;
 * borrowed).  Returns 0 and sets *out (free with suggest_plan_free();
 * no denials: an empty plan), or AL_ERR_FORMAT with a message in
 * err[0..errlen) for a denial record that is malformed (a layer without
 * its fields, a negative limit, a path that is not absolute),
 * AL_ERR_ALLOC.
 */
int suggest_plan(json_t *records, const struct suggest_ctx *ctx,
    struct suggest_plan **out, char *err, size_t errlen);

/*
 * The same, a record at a time, for a log too large to hold: new, feed
 * each record in log order (|rec| borrowed), finish.  feed returns 0 or
 * suggest_plan()'s codes; after an error, free the planner.  finish
 * always consumes |sp| and sets *out as suggest_plan() does (or returns
 * AL_ERR_ALLOC).  |ctx| is borrowed until finish.
 */
struct suggest_planner;

int suggest_planner_new(
    const struct suggest_ctx *ctx, struct suggest_planner **out);
int suggest_planner_feed(
    struct suggest_planner *sp, json_t *rec, char *err, size_t errlen);
int suggest_planner_finish(
    struct suggest_planner *sp, struct suggest_plan **out);
void suggest_planner_free(struct suggest_planner *sp);

void suggest_plan_free(struct suggest_plan *p);

/* Number of changes that weaken a protected class. */
size_t suggest_plan_weakens(const struct suggest_plan *p);

/*
 * Applies every SUGGEST_ADD and SUGGEST_RAISE of |p| to |ye|, each with
 * its reason as a comment line above it.  A tools[N] key is found by the
 * tool's name in the file (the index in the record names the session's
 * manifest, which may not be this one).  A raise never lowers: a value
 * already at or above the new one is left alone.  Returns the number of
 * changes that altered the text, or a negative code (yamledit.h's, or
 * AL_ERR_NOT_FOUND for a tool or check the file does not have) with a
 * message naming the key in err[0..errlen); |ye| is then partly edited
 * and must be discarded.
 */
int suggest_apply(const struct suggest_plan *p, struct yamledit *ye, char *err,
    size_t errlen);

/*
 * The plan as JSON: {"denials": N, "dropped": N, "changes": [{"kind": "add"|"raise",
 * "key", "layer", "values"|"value", "reason", "weakens"?}], "notes":
 * [{"layer", "reason"}]}.  A new reference, or NULL when out of memory.
 */
json_t *suggest_plan_json(const struct suggest_plan *p);

#endif
