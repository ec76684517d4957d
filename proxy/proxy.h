/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * proxy: airlock's egress proxy engine.
 *
 * One single-threaded poll() loop serves any number of listening
 * sockets.  Each listener belongs to one sandbox: it was created inside
 * that sandbox's network namespace (see proxy/ipc.h) and carries the
 * sandbox's id and its own allowlist (proxy/rules.h).  Clients speak
 * HTTP/1.x to it:
 *
 *   CONNECT host:port HTTP/1.1      a byte tunnel (TLS stays end to end)
 *   GET http://host[:port]/path ... one plain-HTTP request, forwarded in
 *                                   origin form, Proxy-* and hop-by-hop
 *                                   headers removed, "Connection: close"
 *
 * The proxy resolves names itself, checks EVERY resolved address and
 * connects only to addresses that passed; it never interprets responses
 * and so never follows redirects.  Refusals are HTTP errors carrying an
 * X-Airlock-Reason header that names the rule.  Every client connection
 * ends in exactly one JSON line on the event descriptor ("proxy.connection"),
 * but those closed with no reply over the cap (max_conns counted and
 * max_conns 429s in flight): they are counted per listener and reported
 * in one "proxy.over_cap" line {sandbox, connections} at most a second
 * after the first, and when the listener is removed.
 *
 * Nothing here exits or forks; proxy/ipc.h has the OS glue.
 */
#ifndef AIRLOCK_PROXY_PROXY_H
#define AIRLOCK_PROXY_PROXY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proxy/rules.h"

#define PROXY_SANDBOX_ID_MAX	64	/* [A-Za-z0-9._:-], 1..64 bytes */
#define PROXY_RESOLVERS_MAX	8	/* resolver processes per proxy */
#define PROXY_LOOKUP_MS		10000	/* one lookup's deadline in a
					   resolver process */

struct proxy_limits {
	size_t		max_line;	/* request line bytes (8192) */
	size_t		max_header;	/* request head bytes (32768) */
	uint64_t	max_bytes;	/* relayed bytes per direction per
					   connection; 0: unlimited */
	int		idle_ms;	/* no traffic for this long: close (60000) */
	int		connect_ms;	/* outbound connect deadline (10000) */
	int		max_conns;	/* concurrent connections per
					   listener (64) */
};

struct proxy;

/* Fills |lim| with the defaults shown above. */
void		 proxy_limits_default(struct proxy_limits *lim);

/*
 * Returns a proxy with no listeners, or NULL on exhaustion.  Events are
 * written to |event_fd| (one JSON object per line; -1: none).  The proxy
 * owns |event_fd| and closes it in proxy_free().
 */
struct proxy	*proxy_new(const struct proxy_limits *lim, int event_fd);

/* Closes every descriptor the proxy holds; proxy_free(NULL) is a no-op. */
void		 proxy_free(struct proxy *p);

/*
 * Serves |listen_fd| (a listening stream socket) for sandbox |sandbox|
 * with allowlist |rules|.  Takes ownership of |listen_fd| and |rules| in
 * every case (they are released on failure).  Returns 0, AL_ERR_FORMAT
 * for a bad sandbox id, AL_ERR_CONFLICT if the id is already served,
 * AL_ERR_SYSTEM or AL_ERR_ALLOC.
 */
int		 proxy_add_listener(struct proxy *p, int listen_fd,
		    const char *sandbox, struct rules *rules);

/*
 * Stops serving |sandbox|: closes its listener and ends its connections
 * (each with its event).  Returns 0 or AL_ERR_NOT_FOUND.
 */
int		 proxy_remove_listener(struct proxy *p, const char *sandbox);

/*
 * Takes |fd|, the proxy's end of the socket of resolver process |pid|
 * (proxy/resolver.h).  Lookups go to idle resolvers, oldest request
 * first, so a slow one does not stall the loop; one sandbox has at most
 * all resolvers but one busy with its lookups (with a single resolver,
 * that one), counted until each lookup ends even if its client has
 * gone, so that a sandbox whose names hang cannot hold every resolver.
 * A lookup still running after PROXY_LOOKUP_MS is answered with 504
 * and its resolver replaced (proxy_set_resolver_keeper()).  With no
 * resolver, names are looked up inline (blocking).  Returns 0, or
 * AL_ERR_LIMIT past PROXY_RESOLVERS_MAX (fd closed).
 */
int		 proxy_add_resolver(struct proxy *p, int fd, pid_t pid);

/*
 * Takes |keeper_fd|, the socket of the resolver keeper that forked the
 * resolvers (proxy/resolver.h).  The proxy asks it to kill a resolver
 * whose lookup ran past its deadline (or that died) and to start
 * another; without a keeper such a resolver is dropped, not replaced.
 */
void		 proxy_set_resolver_keeper(struct proxy *p, int keeper_fd);

/*
 * Takes |ctl_fd|, a SOCK_SEQPACKET socket on which the supervisor sends
 * "add"/"remove" messages (proxy/ipc.h: proxy_ctl_add/proxy_ctl_remove).
 * When the peer closes it, proxy_run() returns.
 */
void		 proxy_set_control(struct proxy *p, int ctl_fd);

/*
 * Runs the loop until *stop becomes non-zero (checked at least every
 * 500 ms and after every signal) or the control peer hangs up.  Returns
 * 0, or AL_ERR_SYSTEM if poll() itself failed.  The caller must ignore
 * SIGPIPE (splice() to a closed socket raises it).  Each relayed
 * connection holds six descriptors (two sockets, two pipes); out of
 * descriptors, the listeners are left unwatched for 250 ms at a time
 * (logged once) and their queued connections wait.
 */
int		 proxy_run(struct proxy *p, volatile sig_atomic_t *stop);

/* Number of open client connections (for tests). */
size_t		 proxy_nconns(const struct proxy *p);

#endif
