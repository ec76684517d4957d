/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * ipc: the OS side of the egress proxy.  Starting the proxy process,
 * making a listener inside a sandbox's network namespace, and passing
 * descriptors between processes with SCM_RIGHTS.
 *
 * How the pieces fit (see docs/PROXY.md):
 *
 *   runner child, inside the new netns, before seccomp:
 *       proxy_lo_up();
 *       lfd = proxy_listener_in_current_netns(&port);
 *       proxy_send_fd(sock_to_supervisor, lfd, "", 0); close(lfd);
 *       setenv HTTP_PROXY=http://127.0.0.1:<port> ...
 *   supervisor:
 *       pid = proxy_spawn(&limits, event_fd, &ctl);       (once)
 *       proxy_recv_fd(sock_from_runner, &lfd, ...);
 *       proxy_ctl_add(ctl, lfd, "call-17", allow, allow_ip, err, len);
 *       close(lfd);
 *       ... the command runs ...
 *       proxy_ctl_remove(ctl, "call-17");
 *       (teardown) close(ctl); proxy_stop(pid, event_fd, ...);
 */
#ifndef AIRLOCK_PROXY_IPC_H
#define AIRLOCK_PROXY_IPC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proxy/proxy.h"

#define PROXY_CTL_MAX		65536	/* bytes in one control message */

/*
 * The proxy's own uid when airlock runs as root (docs/PROXY.md, "The
 * proxy's own uid"): not the runners' (65534 by default), so that no
 * sandboxed command shares the kernel's per-user budgets with it, and a
 * proxy taken over by the bytes it parses cannot reach a sandbox
 * (/proc/PID/mem, /proc/PID/root, signals).  PROXY_UID_ENV overrides
 * PROXY_UID_DEFAULT; the gid is the same number.
 */
#define PROXY_UID_DEFAULT	65533	/* unused in systemd's uid ranges */
#define PROXY_UID_ENV		"AIRLOCK_PROXY_UID"

/*
 * The configured proxy uid: PROXY_UID_ENV when set, else
 * PROXY_UID_DEFAULT.  No lookup.  Returns 0 with *uid set, or
 * AL_ERR_FORMAT when the variable is not a decimal uid in 1..4294967294
 * (with the reason in |err|).
 */
int	proxy_uid_configured(uid_t *uid, char *err, size_t errlen);

/*
 * proxy_uid_configured(), refused (AL_ERR_DENIED, the reason in |err|)
 * when the uid, or the gid of the same number, is not mapped in this
 * user namespace (setresuid() would fail), when the uid names an
 * account or the number a group, or either falls in a range of
 * /etc/subuid or /etc/subgid (an account's user namespaces could run as
 * it); and when any of these cannot be looked up.  Call as root, before
 * proxy_drop_privileges().
 */
int	proxy_uid_choose(uid_t *uid, char *err, size_t errlen);

/*
 * Brings the loopback interface of the current network namespace up
 * (ioctl SIOCSIFFLAGS; a new netns starts with lo down).  Returns 0 or
 * AL_ERR_SYSTEM.
 */
int	proxy_lo_up(void);

/*
 * Binds a TCP socket to 127.0.0.1:0 in the CURRENT network namespace and
 * listens on it.  Call it inside the sandbox's netns, before seccomp.
 * Returns the descriptor (close-on-exec) with the chosen port in
 * *port_out, or a negative AL_ERR_SYSTEM.
 */
int	proxy_listener_in_current_netns(uint16_t *port_out);

/*
 * The environment a sandboxed command gets: HTTP_PROXY, HTTPS_PROXY,
 * ALL_PROXY and their lowercase forms set to "http://127.0.0.1:PORT",
 * and NO_PROXY/no_proxy emptied (nothing bypasses the proxy; there is
 * no route anyway).  Fills entries[0..PROXY_ENV_COUNT) with "NAME=VALUE"
 * strings.  Pure.
 */
#define PROXY_ENV_COUNT		8
#define PROXY_ENV_LEN		48
void	proxy_env(uint16_t port, char entries[PROXY_ENV_COUNT][PROXY_ENV_LEN]);

/*
 * Sends |len| bytes of |msg| (at least one byte is always sent) with
 * descriptor |fd| attached (fd -1: none) over the unix socket |sock|.
 * The caller keeps |fd|.  Returns 0 or AL_ERR_SYSTEM.
 */
int	proxy_send_fd(int sock, int fd, const void *msg, size_t len);

/*
 * Receives one message of at most |cap| bytes and at most one descriptor
 * over |sock|.  *fd_out is the received descriptor (close-on-exec; the
 * caller owns it) or -1; *len_out the message length.  Returns 1 for a
 * message, 0 at end of file, AL_ERR_SYSTEM, or AL_ERR_FORMAT for a
 * truncated message or more than one descriptor (any received
 * descriptors are closed).
 */
int	proxy_recv_fd(int sock, int *fd_out, void *msg, size_t cap,
	    size_t *len_out);

/*
 * When running as root: drops to uid and gid |uid| (from
 * proxy_uid_choose()) with no supplementary groups.  Always sets
 * no_new_privs.  Irreversible: on any failure the process dies (fatal).
 */
void	proxy_drop_privileges(uid_t uid);

/*
 * Installs the proxy process's seccomp filter (an allowlist of the calls
 * serving needs; everything else fails with EPERM: no exec, fork,
 * ptrace, mount, namespaces, bpf).  Call after proxy_drop_privileges().
 * Not applied in sanitizer builds.  Returns 0, AL_ERR_ALLOC or
 * AL_ERR_SYSTEM.
 */
int	proxy_confine(void);

/*
 * The resolver keeper's filter (proxy/resolver.h): proxy_confine()'s
 * calls and those that forking, confining and killing a resolver needs:
 * clone without namespace flags, kill with SIGKILL and a positive pid,
 * socketpair, prctl, seccomp.  Same returns.
 */
int	proxy_confine_keeper(void);

/*
 * Forks the resolver keeper, has it fork |n| resolver processes
 * (proxy/resolver.h) and gives them and the keeper to |p|, which asks
 * the keeper for a new resolver in place of one that hung or died.
 * Call before proxy_confine(), which forbids fork.  Returns 0 or a
 * negative code.
 */
#define PROXY_RESOLVERS		4
int	proxy_start_resolvers(struct proxy *p, int n);

/* Raises the soft descriptor limit to the hard one (best effort). */
void	proxy_raise_nofile(void);

/*
 * Forks the proxy process.  The child keeps only |event_fd| (may be -1),
 * its end of a new control socket and stderr; when started as root it
 * drops to proxy_uid_choose()'s uid with no supplementary groups (or
 * dies; a uid refused there is refused here, before the fork, with the
 * reason in |err|),
 * it always sets no_new_privs and a parent-death signal, forks
 * PROXY_RESOLVERS resolver processes, installs the seccomp filter of
 * proxy_confine(); then it
 * runs proxy_run() with |lim| until SIGTERM or until the control socket
 * closes.  Returns the child's pid with the supervisor's end of the
 * control socket (SOCK_SEQPACKET, close-on-exec) in *ctl_out, or a
 * negative code.  The caller still owns |event_fd| in the parent.
 */
pid_t	proxy_spawn(const struct proxy_limits *lim, int event_fd,
	    int *ctl_out, char *err, size_t errlen);

/*
 * Stops the proxy |pid| from proxy_spawn() (the caller has closed its
 * control socket): SIGTERM, then SIGKILL after |wait_ms|, and reaps it.
 * Its event pipe |event_fd| (-1: none) is read meanwhile and to its end:
 * a proxy blocked writing an event to a full pipe would never see the
 * signal.  |drain|(|arg|) is called whenever |event_fd| is readable; it
 * reads what is there and returns 0 at the end of the file (or on an
 * error: the pipe is then no longer read), 1 otherwise.  The caller
 * still owns |event_fd|.  Returns 0 if the proxy exited, 1 if it was
 * killed.
 */
#define PROXY_STOP_MS		5000
int	proxy_stop(pid_t pid, int event_fd, int (*drain)(void *), void *arg,
	    int wait_ms);

/*
 * Asks the proxy behind |ctl| to serve |listen_fd| (the caller keeps and
 * should then close its copy) for |sandbox|, with host rules |allow| and
 * IP rules |allow_ip| (NULL-terminated lists; either may be NULL).
 * Waits for the proxy's answer.  Returns 0, AL_ERR_FORMAT with the
 * proxy's message in |err| (a bad rule or id), AL_ERR_LIMIT if the
 * message would exceed PROXY_CTL_MAX, or AL_ERR_SYSTEM.
 */
int	proxy_ctl_add(int ctl, int listen_fd, const char *sandbox,
	    const char *const *allow, const char *const *allow_ip, char *err,
	    size_t errlen);

/* Stops serving |sandbox|.  Returns 0, AL_ERR_NOT_FOUND or AL_ERR_SYSTEM. */
int	proxy_ctl_remove(int ctl, const char *sandbox);

#endif
