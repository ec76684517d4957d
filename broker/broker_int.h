/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * broker_int: what broker.c shares with the action handlers in
 * broker/actions.c.  Not for use outside broker/.
 */
#ifndef AIRLOCK_BROKER_INT_H
#define AIRLOCK_BROKER_INT_H

#include <stdio.h>
#include <sys/queue.h>
#include <time.h>

#include <jansson.h>

#include "broker/broker.h"
#include "broker/ledger.h"
#include "broker/wsdigest.h"
#include "common/util.h"
#include "runner/runner.h"

struct idset;
struct call;
struct wsjob;
struct wsdigester;
struct denials;
struct escalation;
struct conn;

typedef int (*action_fn_t)(struct call *, json_t **);

/* One tools/call from accepted to answered. */
struct call {
	struct broker		*b;
	struct conn		*conn;		/* where the answer goes */
	json_t			*id;		/* owned reference */
	const struct tool	*tool;
	json_t			*args;		/* owned reference */
	char			 args_digest[SHA256_HEX_LEN + 1];
	int64_t			 started;	/* monotonic ms */
	int64_t			 seq;		/* call number, for the trace */
	/* Set while a runner works for this call. */
	struct runner_proc	*proc;
	struct runner_request	 req;
	char			**argv;		/* owned, NULL-terminated */
	char			**envp;		/* owned, NULL-terminated */
	int			 watch;
	const struct check	*check;
	/* The run's overlay upper layer, owned (broker/changeset.h). */
	char			*changes;
	char			*changes_upper;
	char			*changes_work;
	int			 changes_fd;	/* or a detached tmpfs; -1 */
	/* The mode bits of the run's set that did not land (its land's
	 * modesDropped, broker/landjob.h), for its result; or NULL. */
	json_t			*modes_dropped;
	/*
	 * Turns the runner's result into the action's (ACTION_DONE or
	 * ACTION_ERROR and *out); |cmd| is the generic command output
	 * (borrowed).  NULL: |cmd| is the result.
	 */
	int			(*finish)(struct call *c,
				    const struct runner_result *res,
				    json_t *cmd, json_t **out);
	/* The runner's line_keep (runner/runner.h), called with the call;
	 * NULL: all of stdout is kept. */
	int			(*line_keep)(void *c, const char *name);
	size_t			 line_names_max;
	struct timespec		 search_since;	/* CLOCK_REALTIME */
	char			 ws_digest[SHA256_HEX_LEN + 1];	/* run_check */
	/* While the workspace digest is computed (off the loop). */
	struct wsjob		*wsjob;
	int			 runs_after_digest;	/* counts as a
							   process meanwhile */
	int64_t			 digest_gen;	/* broker_ws_gen() when asked */
	int			 redigests;	/* digests taken again */
	int			 ws_written;	/* ...and it moved before the
						   check's run ended, or the
						   agent's writes could not
						   be watched */
	/*
	 * The seal of the digest taken before a check ran (wsindex.h), to
	 * compare with the one taken after it (gate_seal()); "" when it
	 * proves nothing.  ws_unsealed: no seal could show the run's
	 * window unwritten (tmpfs, ...), so ws_written was set.
	 */
	char			 ws_seal[SHA256_HEX_LEN + 1];
	int			 ws_unsealed;
	/* Regular files of that digest with another name (a hard link,
	 * perhaps from outside the workspace: written through it, the
	 * file changes unwatched, so a check's run is sealed even where
	 * the agent cannot write the workspace): all of them, and those
	 * whose other name may lie where the agent writes (broker/wslinks.h).
	 * Read through call_ws_linked(). */
	size_t			 ws_linked_any;
	size_t			 ws_linked;
	/*
	 * A run granted a secret in a copy-on-write session: broker_ws_gen()
	 * as it started (secret_run_start()), to tell whether the agent's
	 * view was written while it ran.
	 */
	int			 secret_watched;
	int			 view_frozen;	/* holds the view read-only
						   (broker/viewfreeze.h) */
	int			 ws_still;	/* an approved run: holds the
						   broker's writes off the
						   workspace (runcall.h) */
	int64_t			 still_gen;	/* ...broker_ws_gen() as it
						   started */
	int64_t			 secret_gen;
	/* |hex| is the digest, or when rc != 0 why there is none. */
	void			(*digested)(struct call *c, int rc,
				    const char *hex);
	const char		*idem_key;	/* borrowed from args */
	int			 ran;		/* a runner was started */
	int			 cancelled;	/* notifications/cancelled: its
						   command was stopped, nothing
						   of it lands */
	int			 budget_killed;	/* a budget stopped the session
						   while its command ran: the
						   command was killed, nothing
						   of it lands (jobs.h) */
	int			 idem_forget;	/* refused, nothing ran: the
						   key is not used up */
	char			 patch_hash[17];	/* trace: short hash */
	char			 gate[160];		/* trace: gate result */
	/* While waiting for a human. */
	char			 approval[16];
	/*
	 * What a human approves (action_plan(); owned, or NULL), checked
	 * again at grant and before the runner starts; the id it was
	 * granted under; notes of approvals voided on the way (owned
	 * array, or NULL), told to the agent with the result.
	 */
	json_t			*binding;
	char			 approved[16];
	/*
	 * The workspace's digest taken once a human granted the call, which
	 * must be the one the approval was asked on (binding's "workspace"):
	 * "" before the grant's digest.  A check digests the workspace again
	 * before it starts (act_run_check()): that digest replaces it.
	 */
	char			 granted_ws[65];
	/* The seal of the grant's digest, while a second one is taken to
	 * compare with it (approval_grant_digested()). */
	char			 grant_seal[SHA256_HEX_LEN + 1];
	/*
	 * An exec tool with shell rules (policy/shrules.h): the rule that
	 * decided the command string, shown to the approver, or "".
	 */
	char			 shell_rule[512];
	json_t			*voided;
	json_t			*pinned_changed;	/* run_check: owned */
	char			 note[256];	/* trace: why, or "" */
	char			 egress[96];	/* the proxy's name for it, or "" */
	json_t			*progress_token;	/* owned, or NULL */
	json_t			*reason;	/* _meta.reason: owned, or NULL */
	int			 progress_watch;
	int64_t			 progress_n;
	action_fn_t		 action;
	/*
	 * Background jobs (broker/jobs.h): the blockMs asked for (-1: none)
	 * and its watch; the job this run became (its answer was sent);
	 * for a job_output/job_kill waiting on a job, that job.
	 */
	int64_t			 block_ms;
	int			 block_watch;
	struct job		*job;
	struct job		*wait_job;
	int			 wait_end;	/* 1: wake only at the end */
	/*
	 * Denials (broker/escalate.h): what the sandbox refused this run
	 * (owned array, or NULL), and, for an escalated re-run, the
	 * widening a human is asked for (owned, or NULL).
	 */
	json_t			*denied;
	struct escalation	*esc;
	/*
	 * After its run: the change set landing (broker/landjob.h), and the
	 * run's result and artifact meanwhile (owned).
	 */
	struct lander		*land;
	struct runner_result	*res;
	char			 uri[256];
	/*
	 * Held while a change set lands (call.c, call_hold()): HOLD_*,
	 * 0 when not held, and the request's params for HOLD_DECIDE.
	 */
	int			 held;
	json_t			*held_params;
	TAILQ_ENTRY(call)	 hold_entry;
	TAILQ_ENTRY(call)	 entry;
};
#define HOLD_DECIDE	1	/* broker_call_decide() with held_params */
#define HOLD_GRANTED	2	/* approval_granted() */
#define HOLD_DIGEST	3	/* call_redigest() */
TAILQ_HEAD(callq, call);

/*
 * One agent connection: its frames, its MCP state and its request ids.
 * Calls, budgets, approvals, the ledger and the trace are the session's.
 */
struct conn {
	struct broker		*b;
	int			 in_fd;
	int			 out_fd;
	int			 primary;	/* the caller's fds (fd 3, stdio) */
	int64_t			 seq;		/* connection number, for the audit */
	struct buf		*in;
	int			 in_watch;
	int			 state;		/* BROKER_STATE_* */
	int			 closed;
	int			 input_done;	/* the agent sent EOF */
	int			 eof;		/* ...read, its frames may wait */
	int			 in_paused;	/* not read: calls are held */
	size_t			 ncalls;	/* calls in flight from here */
	size_t			 refs;		/* open + ncalls + input handler */
	struct idset		*ids;		/* request ids seen */
	char			*oq;		/* replies held for the audit */
	size_t			 oqlen, oqcap;	/* batch (broker_turn_end) */
	int			 out_sock;	/* out_fd is a socket */
	int			 out_own;	/* a non-blocking open of the
						   pipe out_fd, or -1 */
	char			*wq;		/* replies the agent has not
						   read yet (conn_write) */
	size_t			 wqoff, wqlen, wqcap;
	int			 out_watch;	/* waiting for room in out_fd */
	int			 out_full;	/* input not read meanwhile */
	TAILQ_ENTRY(conn)	 entry;
};
TAILQ_HEAD(connq, conn);

/* An airlock/session/status request waiting for the workspace digest. */
struct status_req {
	struct conn		*conn;		/* holds a reference */
	json_t			*id;
	struct wsjob		*wsjob;		/* NULL while held */
	int			 runs_after_digest;	/* counts as a
							   process meanwhile */
	int64_t			 gen;		/* broker_ws_gen() when asked */
	int			 redigests;
	TAILQ_ENTRY(status_req)	 entry;
};
TAILQ_HEAD(statusq, status_req);

#define BROKER_MAX_CONNS	32

/*
 * Runners of one session at once, whatever runBudget.maxParallelProcesses
 * says (its default is no limit).  Each holds one or two of the event
 * loop's 1024 watches (broker/loop.c), as does every job_output waiting
 * (JOB_WAITERS_MAX in jobs.c): an agent that sent a thousand calls at
 * once took the last watch and the broker died ("too many watches"),
 * its session with it.  Past this a call is "busy", like one past
 * maxParallelProcesses.
 */
#define BROKER_MAX_RUNNERS	256

/* Digests taken again (the workspace changed while one was read) before
 * a check runs regardless, or a status is answered with the last. */
#define DIGEST_RETRIES 3

struct broker {
	struct broker_config	 cfg;
	const struct manifest	*m;
	int			 rootfd;	/* O_PATH of the workspace */
	int			 cow_view;	/* rootfd is a copy-on-write
						   session's view (cowview.h) */
	char			*cow_upper;	/* its upper layer, or NULL */
	int			 view_frozen;	/* runs holding the view
						   read-only (viewfreeze.h) */
	int			 view_stuck;	/* ...and it could not be
						   made writable again */
	int			 ws_still;	/* approved runs running: no
						   write_file, patch or set
						   lands (runcall.h) */
	int			 view_userns;	/* the view's namespaces, or */
	int			 view_mntns;	/* -1 (viewfreeze_set_ns()) */
	struct connq		 conns;
	size_t			 nconns;
	int			 turn_hook;	/* broker_turn_end() on the loop */
	int64_t			 conn_seq;
	int			 listen_fd;	/* borrowed, or -1 */
	int			 listen_watch;
	broker_peer_fn		 peer_ok;
	void			*peer_arg;
	struct callq		 running;	/* calls with a runner */
	struct callq		 waiting;	/* calls waiting for a human */
	struct callq		 followers;	/* retries of calls in flight */
	size_t			 nfollowers;	/* ...at most FOLLOWERS_MAX */
	struct callq		 digesting;	/* waiting for the workspace digest */
	size_t			 ndigesting;	/* its length */
	struct statusq		 statuses;	/* status requests digesting */
	size_t			 nstatuses;	/* ...at most STATUSES_MAX */
	unsigned		 artifact_seq;
	struct artifact_store	*artifacts;	/* the session's outputs */
	int			 budget_stopped;
	int			 cut_off;	/* agent_cut_off: no more agent */
	void			(*on_cut_off)(void *, const char *);
	void			*cut_off_arg;
	int			 elapsed_watch;	/* maxElapsedMinutes, or 0 */
	int			 egress_watch;	/* egress_recorded(), or 0 */
	struct ledger		*ledger;
	struct wsdigester	*digester;	/* the workspace digest worker */
	/*
	 * The hard-linked files of the trees the agent writes, walked
	 * before it started (broker/wslinks.h), by which a digest judges
	 * the workspace's linked files; NULL: every one is exposed (no walk:
	 * "airlock serve", whose agent writes what it will).  links_all: a
	 * runner was since given a tree to write (an escalation's
	 * widening) that no walk judged: every one is, from then on.
	 */
	struct wslinks		*links;
	int			 links_all;
	/*
	 * Pinned code at session start (broker/pins.h), one set per check
	 * and per tool (NULL for a tool that needs none); owned.
	 */
	json_t			**check_pins;
	json_t			**tool_pins;
	FILE			*trace;
	struct jobs		*jobs;		/* background jobs */
	struct fwatch		*fwatch;	/* changes by others, or NULL */
	struct fwatch		*view_watch;	/* a copy-on-write view's,
						   counted only, or NULL */
	size_t			 nrunning;
	size_t			 nstarting;	/* run_checks digesting */
	int64_t			 ncalls;		/* tools/call seen */
	struct denials		*denials;	/* recent calls refused
						   something (denials.h) */
	/*
	 * One change set lands at a time, off the loop (landjob.h): the
	 * call whose set is landing, the calls whose runs ended meanwhile,
	 * and the calls held until no set is landing (call_hold()).
	 */
	struct lander		*lander;
	struct call		*landing;
	struct callq		 landq;
	struct callq		 held;
	size_t			 nheld_new;	/* held before their decision */
	/* Escalations granted a write while an approved run on a linked
	 * workspace runs, held until none does (escalate_hold()). */
	struct callq		 esc_held;
	int			 input_paused;	/* no agent input is read */
	int64_t			 ws_gen;	/* up at each write the broker
						   makes to the workspace, and
						   at a land's start and end */
	int64_t			 check_foreign;	/* broker_ws_foreign() when
						   the last check was digested */
	/* Keys the digests of files holding a secret (wsdigest.h). */
	unsigned char		 digest_key[WSDIGEST_KEY_LEN];
};

/*
 * The key of the workspace digest (wsindex_set_key()): b->digest_key
 * when the session grants a secret, else NULL (the plain digest).
 */
const unsigned char	*broker_digest_key(const struct broker *b);

#define BROKER_STATE_NEW		0x1	/* before initialize */
#define BROKER_STATE_INITIALIZING	0x2	/* initialize answered */
#define BROKER_STATE_READY		0x4	/* notifications/initialized seen */
#define BROKER_STATE_ANY		0x7

/*
 * What an action handler returns: ACTION_DONE with *out set to the
 * action's full result object (broker.c projects it onto the tool's
 * declared output and validates it), ACTION_ERROR with *out set to an
 * error body from tool_error(), or ACTION_PENDING after starting a runner
 * (the runner's completion calls call_complete()).
 */
#define ACTION_DONE	0
#define ACTION_ERROR	1
#define ACTION_PENDING	2

typedef action_fn_t action_fn;

/* Returns the handler for |action|, or NULL if it has none yet. */
action_fn	 action_handler(enum tool_action action);

/* Builds an error body {errorClass, retryable, message[, hint]}. */
json_t		*tool_error(const char *error_class, int retryable,
		    const char *hint, const char *fmt, ...)
		    __attribute__((format(printf, 4, 5)));

/* Appends an audit record; returns 0 or AL_ERR_IO. */
int		 broker_audit(struct broker *b, const char *event, json_t *fields);

/*
 * The files of |c|'s last digest that may be written where the agent
 * or a runner writes, unseen (a hard link's other name): those the walk
 * judged exposed (c->ws_linked), or every linked one once a runner was
 * given a tree to write that no walk judged (b->links_all).
 */
size_t		 call_ws_linked(const struct call *c);
/*
 * The workspace's generation, to which a gate binds its check's run: up
 * at each write the broker makes (b->ws_gen) and at each change by others
 * that its watches see (an agent with a writable workspace, a human's
 * editor: the checkout's; the agent's writes to a copy-on-write view:
 * the view's; broker/fwatch.h).  *blind is set when the agent writes the
 * workspace directly and the watch of what it writes does not see all of
 * it: no window is then known to be unwritten.
 */
int64_t		 broker_ws_gen(struct broker *b, int *blind);
/*
 * The changes the watches saw that no write of the broker's made (for a
 * call or a job: between broker_writing(b, 1) and (b, 0), which brackets
 * each), a count that only grows; *blind as above.
 */
int64_t		 broker_ws_foreign(struct broker *b, int *blind);
void		 broker_writing(struct broker *b, int on);
/*
 * The end of an event-loop turn (loop_on_turn_end()): signs and writes
 * the audit batch, then sends the replies held for it; if the batch was
 * lost, each held reply is replaced by a refusal with its id.
 */
void		 broker_turn_end(void *arg);

/*
 * Stops the session for a hard budget limit: audits budget_stop and marks
 * the broker; later calls get budget_exhausted.
 */
void		 broker_budget_stop(struct broker *b, const char *limit);

/*
 * runBudget.maxAuditMiB.  broker_audit_spent() returns 1 once the audit
 * log holds that much; every frame of the agent's and every connection
 * asks it first, since each can add records.  broker_audit_cut_off()
 * then ends the session: the budget stop and the cut-off are recorded,
 * the request |id| of |k| (either may be NULL) answered with the reason,
 * every connection closed and no other accepted.
 */
int		 broker_audit_spent(const struct broker *b);
void		 broker_audit_cut_off(struct broker *b, struct conn *k,
		    json_t *id);
/*
 * Tells the ledger where each dependency file really is (a link may make
 * it another file: ledger_dependency_real()), before it counts a write.
 */
void		 broker_dependency_real(struct broker *b);
/* The budget_exhausted error for |limit|, naming the session's trace. */
json_t		*broker_budget_error(struct broker *b, const char *limit);

/* Writes one line of the readable trace (step, tool, decision, ...). */
void		 broker_trace(struct broker *b, struct call *c,
		    const char *decision, const char *note);

/* Joins the strings of |list| with ", " into buf[0..len) (cut short if
 * it does not fit). */
void		 join_paths(json_t *list, char *buf, size_t len);

/*
 * What |c| will run, for an approval to bind to: {argv, cwd, env,
 * pinned}: the resolved argv (null for an action that runs nothing), the
 * runner's working directory, the names (never the values) of its
 * environment, and its pinned code (pins_collect() of the argv and the
 * tool's and check's pin lists).  Returns a new reference, or NULL with
 * *out set to an error body.
 */
json_t		*action_plan(struct call *c, json_t **out);

/*
 * The pinned code of check |ck| or tool |t| that differs from the
 * session start: a new JSON array of paths, empty when none changed.
 * Code that can no longer be hashed (too large) counts as changed.
 */
json_t		*broker_pins_changed(struct broker *b, const struct check *ck,
		    const struct tool *t);

/*
 * Decides on |c| (its request already audited) as tools/call does:
 * validation, the manifest's decision, budget, then its action or an
 * approval; |params| (borrowed) is the request's params (for _meta).
 * The escalate tool hands its re-run here with c->esc set: then the call
 * always needs a human's approval and is never an idempotent replay.
 */
void		 broker_call_decide(struct call *c, json_t *params);

/* Sends the notification |method| with |params| (borrowed) to every ready connection. */
void		 broker_notify(struct broker *b, const char *method,
		    json_t *params);

/*
 * Saves |data|, redacted, as a new artifact; writes its URI to
 * uri[0..urilen) and the SHA-256 (hex) of the redacted bytes, what the
 * artifact holds, to |digest| (SHA256_HEX_LEN + 1 bytes): a digest of
 * the bytes as printed would test a guess of a secret in them.
 */
int		 broker_save_artifact(struct broker *b, const char *label,
		    const char *data, size_t len, char *uri, size_t urilen,
		    char *digest);

#include "broker/call.h"

#endif
