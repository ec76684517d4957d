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

/*
 * The keeper's protocol, one SOCK_SEQPACKET message each way: the proxy
 * sends a struct resolver_keep_req; the keeper kills and reaps
 * |kill_pid| if that is one of its resolvers (0: none), forks a new
 * resolver and answers with a struct resolver_keep_rep holding its pid
 * and, as SCM_RIGHTS, the proxy's end of its socket; pid -1 and no
 * descriptor if it could not (RESOLVER_KEEPER_MAX resolvers alive, or
 * fork failed).  Nothing else crosses: the keeper reads no names.
 */
#define RESOLVER_KEEPER_MAX	16	/* resolvers alive at once */

struct resolver_keep_req {
	int32_t		kill_pid;
};

struct resolver_keep_rep {
	int32_t		pid;
};

/*
 * Forks the keeper.  The child keeps only its end of a new socketpair
 * and stderr, dies with its parent, installs proxy_confine_keeper()'s
 * filter and serves until its socket closes; its resolvers die with it.
 * Call before proxy_confine(), which forbids fork.  Returns the
 * keeper's pid with the parent's end (close-on-exec, blocking) in
 * *fd_out, or a negative code.
 */
pid_t	proxy_resolver_keeper_spawn(int *fd_out);

#endif
