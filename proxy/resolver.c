/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* resolver: see resolver.h. */
#include "config.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "proxy/ipc.h"
#include "proxy/resolver.h"

void
proxy_resolve(const struct resolver_req *req, struct resolver_rep *rep)
{
	struct addrinfo hints, *res = NULL, *ai;
	char host[RULES_HOST_MAX];

	memset(rep, 0, sizeof(*rep));
	rep->id = req->id;
	memcpy(host, req->host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	/*
	 * A name with a dot is looked up as written, never again with
	 * resolv.conf's search domains appended: under a grant of
	 * "*.example.com" the client picks "nx.example.com", and when that
	 * does not exist "nx.example.com.corp.example" is another host,
	 * which no rule allowed.  A dotless name can only come from an
	 * exact rule (a wildcard needs two labels), and keeps them.
	 * res_init() re-reads resolv.conf for every lookup, and
	 * RES_NORELOAD keeps glibc from putting the file's options back
	 * (it would, at the next lookup, for an unchanged file).
	 */
	if (res_init() != 0) {
		rep->gai_rc = EAI_SYSTEM;
		return;
	}
	_res.options = (_res.options & ~(unsigned long)RES_DNSRCH) |
	    RES_NORELOAD;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	if ((rep->gai_rc = getaddrinfo(host, NULL, &hints, &res)) != 0)
		return;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
		    ai->ai_addrlen > sizeof(rep->addrs[0]))
			continue;
		if (rep->naddrs == RESOLVER_MAX_ADDRS) {
			/* Unchecked addresses must not be dropped silently. */
			rep->gai_rc = RESOLVER_TOO_MANY;
			rep->naddrs = 0;
			break;
		}
		memcpy(&rep->addrs[rep->naddrs], ai->ai_addr, ai->ai_addrlen);
		rep->lens[rep->naddrs] = (uint32_t)ai->ai_addrlen;
		rep->naddrs++;
	}
	freeaddrinfo(res);
}

static void __attribute__((noreturn))
resolver_serve(int fd)
{
	struct resolver_req req;
	struct resolver_rep rep;
	ssize_t n;

	for (;;) {
		n = recv(fd, &req, sizeof(req), 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		if ((size_t)n != sizeof(req))
			continue;	/* not from our proxy: ignore */
		proxy_resolve(&req, &rep);
		if (send(fd, &rep, sizeof(rep), MSG_NOSIGNAL) != sizeof(rep))
			_exit(0);
	}
}

static pid_t spawn_child(int *, int);

pid_t
proxy_resolver_spawn(int *fd_out)
{
	return spawn_child(fd_out, 0);
}

/*
 * The keeper's loop.  It trusts nothing in a request but its shape: a
 * pid to kill is acted on only if it is one of the keeper's own
 * resolvers, so a proxy that has been taken over cannot have it signal
 * anything else.
 */
static void __attribute__((noreturn))
keeper_serve(int fd)
{
	pid_t kids[RESOLVER_KEEPER_MAX];
	struct resolver_keep_req req;
	struct resolver_keep_rep rep;
	size_t nkids = 0, i;
	pid_t pid;
	ssize_t n;
	int rfd;

	for (;;) {
		n = recv(fd, &req, sizeof(req), 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);	/* its resolvers die with it */
		if ((size_t)n != sizeof(req))
			continue;
		for (i = 0; i < nkids; i++) {
			if (req.kill_pid > 0 && kids[i] == req.kill_pid &&
			    kill(kids[i], SIGKILL) == 0) {
				while (waitpid(kids[i], NULL, 0) == -1 &&
				    errno == EINTR)
					;
			} else if (waitpid(kids[i], NULL, WNOHANG) != kids[i])
				continue;
			kids[i--] = kids[--nkids];	/* gone */
		}
		rep.pid = -1;
		rfd = -1;
		if (nkids < RESOLVER_KEEPER_MAX &&
		    (pid = proxy_resolver_spawn(&rfd)) > 0) {
			kids[nkids++] = pid;
			rep.pid = (int32_t)pid;
		}
		if (proxy_send_fd(fd, rfd, &rep, sizeof(rep)) != 0)
			_exit(0);
		if (rfd >= 0)
			close(rfd);
	}
}

/*
 * Forks a child of the proxy's on a socketpair of which it keeps its end
 * only: it dies with its parent, sets no_new_privs and its seccomp filter,
 * then serves, the keeper (|keeper|, in a session of its own) or a
 * resolver.  Returns its pid with *fd_out our end (a resolver's not
 * blocking), or AL_ERR_SYSTEM.
 */
static pid_t
spawn_child(int *fd_out, int keeper)
{
	int sv[2];
	pid_t pid, parent = getpid();

	*fd_out = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return AL_ERR_SYSTEM;
	if ((pid = fork()) == -1) {
		close(sv[0]);
		close(sv[1]);
		return AL_ERR_SYSTEM;
	}
	if (pid == 0) {
		close(sv[0]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
			fatal("prctl(PR_SET_PDEATHSIG)");
		if (getppid() != parent)
			_exit(0);
		/* The keeper's process group is its own (see
		 * proxy_confine_keeper()). */
		if (keeper && setsid() == -1)
			fatal("setsid");
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_IGN);
		if (close_fds_from(3, &sv[1], 1) != 0)
			fatal("close_fds_from");
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
			fatal("prctl(PR_SET_NO_NEW_PRIVS)");
		if (keeper && proxy_confine_keeper() != 0)
			fatal("seccomp");
		if (!keeper && proxy_confine() != 0)
			fatal("seccomp");
		if (keeper)
			keeper_serve(sv[1]);
		resolver_serve(sv[1]);
	}
	close(sv[1]);
	if (!keeper && fd_set_nonblock(sv[0], 1) != 0) {
		close(sv[0]);
		return AL_ERR_SYSTEM;
	}
	*fd_out = sv[0];
	return pid;
}

pid_t
proxy_resolver_keeper_spawn(int *fd_out)
{
	return spawn_child(fd_out, 1);
}
