/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * resolver: name resolution for the proxy in helper processes, so that a
 * slow lookup for one sandbox does not stall every other connection.
 *
 * A resolver process answers one request at a time on a SOCK_SEQPACKET
 * socket: a struct resolver_req in, a struct resolver_rep out.  It only
 * calls getaddrinfo() (a name with a dot without resolv.conf's search
 * domains: see proxy_resolve()); every address it returns is checked by
 * the proxy (rules_check_addr()) before any connect, exactly as for an
 * inline lookup, and the proxy connects only to the sockaddrs it
 * received.
 */
#ifndef AIRLOCK_PROXY_RESOLVER_H
#define AIRLOCK_PROXY_RESOLVER_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "proxy/rules.h"

#define RESOLVER_MAX_ADDRS	64	/* more: the lookup is refused */
#define RESOLVER_TOO_MANY	-1000	/* gai_rc: more than the maximum */

struct resolver_req {
	uint64_t	id;
	char		host[RULES_HOST_MAX];	/* NUL-terminated */
};

struct resolver_rep {
	uint64_t		id;
	int32_t			gai_rc;		/* getaddrinfo()'s result */
	uint32_t		naddrs;
	uint32_t		lens[RESOLVER_MAX_ADDRS];
	struct sockaddr_storage	addrs[RESOLVER_MAX_ADDRS];
};

/*
 * Forks a resolver process.  The child keeps only its end of a new
 * socketpair and stderr, dies with its parent, installs the proxy's
 * seccomp filter and serves until its socket closes.  Returns the
 * child's pid with the parent's end (close-on-exec, non-blocking) in
 * *fd_out, or a negative code.
 */
pid_t	proxy_resolver_spawn(int *fd_out);

/*
 * Resolves req->host (AF_UNSPEC, SOCK_STREAM) into *rep: a name with a
 * dot as written, never with resolv.conf's search domains appended (it
 * re-reads resolv.conf and changes the calling thread's resolver
 * options).  Used by the resolver process and by the proxy when it has
 * no resolver.
 */
void	proxy_resolve(const struct resolver_req *req, struct resolver_rep *rep);

#endif
