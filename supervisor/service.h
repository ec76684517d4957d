/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * service: everything "airlock run" and "airlock serve" set up around a
 * broker, in one place: the manifest, the workspace, the session
 * directory, the audit log, the control socket for approvals, the event
 * loop with its signal watch, and the broker itself.
 */
#ifndef AIRLOCK_SERVICE_H
#define AIRLOCK_SERVICE_H

#include <limits.h>

#include "broker/approval.h"
#include "broker/audit.h"
#include "broker/broker.h"
#include "broker/egress.h"
#include "broker/loop.h"
#include "broker/redact.h"
#include "broker/secrets.h"
#include "policy/manifest.h"
#include "supervisor/session.h"

struct service {
	struct manifest		*m;
	char			 workspace[PATH_MAX];
	struct session		 session;
	struct audit		*audit;
	struct approvals	*approvals;
	struct egress		*egress;	/* the proxy, started on first use */
	struct secrets		*secrets;	/* open only if tools are granted any */
	struct redact		*redact;	/* every granted secret's value */
	struct loop		*loop;
	int			 sigwatch;
	struct broker		*broker;
	struct audit_ship	*ship;		/* journald/syslog copies, or NULL */
	/* broker_config's carry and record_budget (a copy-on-write run). */
	const json_t		*carry;
	int			 record_budget;
	/* broker_config's agent_writes, nagent_writes, agent_writes_known
	 * (airlock run: the agent's home and --rw binds; borrowed). */
	const char *const	*agent_writes;
	size_t			 nagent_writes;
	int			 agent_writes_known;
};

/*
 * Sets up |sv| for |command| ("run" or "serve").  |mpath| NULL means the
 * built-in manifest, |wpath| NULL the current directory.  |overrides|
 * (borrowed, may be NULL) goes into the session's first record.  The
 * broker is not started yet.  Returns 0, or an exit status (EXIT_CONFIG,
 * EXIT_USAGE) after printing why; fatal on what cannot be set up safely.
 */
int	service_open(struct service *sv, const char *command,
	    const char *mpath, const char *wpath, char *const *agent_argv,
	    json_t *overrides);

/* Starts the broker on in_fd/out_fd; |on_close| as in broker_config. */
void	service_start_broker(struct service *sv, int in_fd, int out_fd,
	    void (*on_close)(void *), void *arg);

/* Tears down in order: broker, approvals, audit log, loop, manifest. */
void	service_close(struct service *sv);

#endif
