/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * egress: the supervisor's side of the egress proxy.
 *
 * The proxy runs in its own unprivileged process (proxy/ipc.h), started
 * on first use.  A sandbox that is granted hosts gets, through its runner,
 * a listener on 127.0.0.1 inside its own network namespace; egress hands
 * that listener to the proxy with the sandbox's allowlist, and records
 * every connection the proxy reports ("egress" audit records).  Entries
 * of the allowlist whose host is an IP literal also become explicit IP
 * rules for that address and port: naming an address is the explicit
 * choice the proxy requires to reach a private or loopback one.
 */
#ifndef AIRLOCK_EGRESS_H
#define AIRLOCK_EGRESS_H

#include <stddef.h>

#include <jansson.h>

#include "broker/audit.h"
#include "broker/loop.h"
#include "policy/manifest.h"

struct egress;

/* Returns an egress that will start the proxy when first needed. */
struct egress	*egress_new(struct loop *loop, struct audit *audit);

/* Stops the proxy (if started) and frees.  NULL is fine. */
void		 egress_free(struct egress *e);

/*
 * Waits (bounded) for the listener that a runner sends on |sock| and has
 * the proxy serve it for |sandbox| with |allow|.  Returns 0, or a negative
 * code with a message in err (the runner then has no way out at all).
 */
int		 egress_attach(struct egress *e, int sock, const char *sandbox,
		    const struct net_allow *allow, char *err, size_t errlen);

/*
 * Names what would allow more for |sandbox| (attached): |key| is the
 * manifest key of its grant without the last component ("tools[2]",
 * "checks.build"), |who| what it belongs to ("tool fetch"), or NULL.  A
 * refused connection's audit record then says "allowWith": KEY.network
 * (a host name) or KEY.allowAddresses (an IP literal, or the address a
 * name resolved to), then (WHO); a |who| ending in "--allow-host" gets
 * the refused destination after it, as that flag takes it.
 */
void		 egress_label(struct egress *e, const char *sandbox,
		    const char *key, const char *who);

/*
 * The connections of |sandbox| refused so far, reading what the proxy
 * has reported: a new array of {host, port, reason, allowWith}, or NULL
 * when none; forgets them and the label.
 */
json_t		*egress_denials(struct egress *e, const char *sandbox);

/*
 * Has |fn|(|arg|) called after each "egress" record is written (NULL: no
 * more): the broker bounds the log's size (runBudget.maxAuditMiB), and a
 * sandbox that connects in a loop writes a record a connection without a
 * request to the broker.
 */
void		 egress_on_record(struct egress *e, void (*fn)(void *),
		    void *arg);

/* Stops serving |sandbox|; its connections are closed. */
void		 egress_detach(struct egress *e, const char *sandbox);

/*
 * Appends the proxy variables (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and
 * lowercase, NO_PROXY empty) to the NULL-terminated |*envp| (grown).
 */
void		 egress_env(char ***envp);

#endif
