/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * broker: serves the agent's MCP requests, for one session, on any number
 * of connections (fd 3 or stdio, and sockets accepted from a listener).
 * Each connection has its own MCP state and request ids; the budget,
 * ledger, approvals, audit log and trace are the session's.
 *
 * The broker reads frames through common/buf.c, decodes them with
 * broker/jsonrpc.c, dispatches each method from a table that says in which
 * session state it is allowed, validates tool arguments against the
 * manifest, decides (allow, deny, approval), runs the tool (in a runner
 * for anything that executes), validates the result against the tool's
 * declared output, and records every request and decision in the audit
 * log.  It is driven by a struct loop shared with the supervisor.
 */
#ifndef AIRLOCK_BROKER_H
#define AIRLOCK_BROKER_H

#include <stddef.h>

#include "broker/approval.h"
#include "broker/audit.h"
#include "broker/loop.h"
#include "policy/manifest.h"

struct broker;
struct egress;
struct redact;
struct secrets;

struct broker_config {
	const struct manifest	*manifest;	/* borrowed, outlives the broker */
	const char		*workspace;	/* absolute, canonical host path */
	const char		*session_id;
	const char		*session_dir;	/* artifacts and trace go here */
	struct audit		*audit;		/* borrowed */
	struct approvals	*approvals;	/* borrowed; NULL: approval
						   tools answer approval_required */
	struct secrets		*secrets;	/* borrowed; NULL if none granted */
	const struct redact	*redact;	/* borrowed; NULL: nothing to hide */
	struct egress		*egress;	/* borrowed; NULL: no egress */
	struct loop		*loop;		/* borrowed */
	int			 in_fd;		/* frames from the agent, or -1:
						   only listened connections */
	int			 out_fd;	/* replies to the agent */
	/* Called once when in_fd's agent closes its end (or it cannot be
	 * written).  Accepted connections do not call it. */
	void			(*on_close)(void *arg);
	void			*arg;
	/* A resumed copy-on-write session's spent budget (ledger_restore(),
	 * borrowed), or NULL: the run begins with none spent. */
	const json_t		*carry;
	/* Whether broker_free() records what the session spent
	 * (ledger_export()) as "run_budget", for a later resume. */
	int			 record_budget;
	/*
	 * The host trees the agent writes besides the workspace (its home,
	 * `airlock run --rw`), absolute; with agent_writes_known set, they
	 * are walked for hard-linked files before the agent starts
	 * (broker/wslinks.h).  Unset ("airlock serve"): the agent may write
	 * anywhere, and every linked workspace file counts as exposed.
	 */
	const char *const	*agent_writes;
	size_t			 nagent_writes;
	int			 agent_writes_known;
};

/*
 * Returns a broker serving |cfg| (registered on cfg->loop), or NULL with
 * a message in err[0..errlen).
 */
struct broker	*broker_new(const struct broker_config *cfg, char *err,
		    size_t errlen);

/*
 * Stops serving: kills every runner still running (and waits for it),
 * answers nothing further, unregisters from the loop, frees.  NULL is fine.
 */
void		 broker_free(struct broker *b);

/*
 * Decides whether an accepted connection may speak to the broker: returns
 * 0 to serve it, or -1 with the reason in why[0..whylen) (audited as
 * connection_refused).  |fd| is the accepted socket, |cred| its SO_PEERCRED.
 */
struct ucred;
typedef int (*broker_peer_fn)(int fd, const struct ucred *cred, void *arg,
    char *why, size_t whylen);

/*
 * Serves every connection accepted on the listening socket |fd|
 * (borrowed: the caller closes it after broker_free()), each checked by
 * |peer_ok| first (NULL: no check).  Returns 0, or a negative code.
 */
int		 broker_listen(struct broker *b, int fd, broker_peer_fn peer_ok,
		    void *arg);

/*
 * Calls |fn|(|arg|, |why|) once, when the broker cuts the agent off: a
 * budget that ends the session for the agent (runBudget.maxRefusedCalls,
 * runBudget.maxAuditMiB) was spent, every connection is closed and no
 * other is accepted.  |why| (borrowed for the call) is the reason, as the
 * agent was told it.  The caller stops the agent.
 */
void		 broker_on_cut_off(struct broker *b,
		    void (*fn)(void *arg, const char *why), void *arg);

/* Returns 1 if a hard budget stopped the session, else 0. */
int		 broker_budget_stopped(const struct broker *b);

#endif
