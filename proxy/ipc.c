/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * ipc: starting the proxy process, in-netns listeners, and descriptor
 * passing.  This is the part of the proxy that touches the OS.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <errno.h>
#include <netdb.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seccomp.h>

#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "proxy/ipc.h"
#include "proxy/proxy.h"
#include "proxy/resolver.h"

#define CTL_REPLY_MS	10000

int
proxy_lo_up(void)
{
	struct ifreq ifr;
	int fd, rc = 0;

	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return AL_ERR_SYSTEM;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == -1)
		rc = AL_ERR_SYSTEM;
	else if ((ifr.ifr_flags & IFF_UP) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) == -1)
			rc = AL_ERR_SYSTEM;
	}
	close(fd);
	return rc;
}

int
proxy_listener_in_current_netns(uint16_t *port_out)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd, saved;

	*port_out = 0;
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return AL_ERR_SYSTEM;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 128) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return AL_ERR_SYSTEM;
	}
	*port_out = ntohs(sin.sin_port);
	return fd;
}

void
proxy_env(uint16_t port, char entries[PROXY_ENV_COUNT][PROXY_ENV_LEN])
{
	static const char *names[PROXY_ENV_COUNT] = {
		"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
		"https_proxy", "all_proxy", "NO_PROXY", "no_proxy"
	};
	size_t i;

	for (i = 0; i < PROXY_ENV_COUNT; i++) {
		if (i < 6)
			snprintf(entries[i], PROXY_ENV_LEN,
			    "%s=http://127.0.0.1:%u", names[i], port);
		else
			snprintf(entries[i], PROXY_ENV_LEN, "%s=", names[i]);
	}
}

int
proxy_send_fd(int sock, int fd, const void *msg, size_t len)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cmsg;
	struct msghdr mh;
	struct iovec iov;
	char one = '\n';
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	memset(&cmsg, 0, sizeof(cmsg));
	if (len == 0) {
		msg = &one;
		len = 1;
	}
	iov.iov_base = (void *)(uintptr_t)msg;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fd >= 0) {
		struct cmsghdr *ch;

		mh.msg_control = cmsg.buf;
		mh.msg_controllen = sizeof(cmsg.buf);
		ch = CMSG_FIRSTHDR(&mh);
		ch->cmsg_level = SOL_SOCKET;
		ch->cmsg_type = SCM_RIGHTS;
		ch->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(ch), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return AL_ERR_SYSTEM;
	if ((size_t)n != len) {
		errno = EMSGSIZE;
		return AL_ERR_SYSTEM;
	}
	return 0;
}

int
proxy_recv_fd(int sock, int *fd_out, void *msg, size_t cap, size_t *len_out)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int) * 4)];
	} cmsg;
	struct msghdr mh;
	struct cmsghdr *ch;
	struct iovec iov;
	int fds[4], nfd = 0, bad = 0, i;
	ssize_t n;

	*fd_out = -1;
	*len_out = 0;
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = msg;
	iov.iov_len = cap;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cmsg.buf;
	mh.msg_controllen = sizeof(cmsg.buf);
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return AL_ERR_SYSTEM;
	for (ch = CMSG_FIRSTHDR(&mh); ch != NULL; ch = CMSG_NXTHDR(&mh, ch)) {
		size_t k;

		if (ch->cmsg_level != SOL_SOCKET || ch->cmsg_type != SCM_RIGHTS)
			continue;
		for (k = 0; CMSG_LEN((k + 1) * sizeof(int)) <= ch->cmsg_len &&
		    nfd < 4; k++)
			memcpy(&fds[nfd++], CMSG_DATA(ch) + k * sizeof(int),
			    sizeof(int));
	}
	if (nfd > 1 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		bad = 1;
	if (bad) {
		for (i = 0; i < nfd; i++)
			close(fds[i]);
		return AL_ERR_FORMAT;
	}
	if (n == 0 && nfd == 0)
		return 0;
	*fd_out = nfd == 1 ? fds[0] : -1;
	*len_out = (size_t)n;
	return 1;
}

int
proxy_uid_configured(uid_t *uid, char *err, size_t errlen)
{
	const char *v = getenv(PROXY_UID_ENV);
	unsigned long long n;
	char *end;

	*uid = PROXY_UID_DEFAULT;
	if (v == NULL)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (v[0] < '1' || v[0] > '9' || *end != '\0' || errno != 0 ||
	    n > 4294967294ULL) {
		snprintf(err, errlen, "%s=%.32s is not a uid from 1 to "
		    "4294967294", PROXY_UID_ENV, v);
		return AL_ERR_FORMAT;
	}
	*uid = (uid_t)n;
	return 0;
}

/*
 * Whether |id| falls in a subordinate range of |file| ("owner:first:count"
 * lines, subuid(5)): 1 with the owner in |owner|, 0 if not or the file
 * does not exist, -1 if it cannot be read.
 */
static int
subid_owner(const char *file, unsigned long id, char *owner, size_t len)
{
	char line[512], *first, *count;
	unsigned long lo, n;
	FILE *fp;
	int in = 0;

	if ((fp = fopen(file, "re")) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (!in && fgets(line, sizeof(line), fp) != NULL) {
		if ((first = strchr(line, ':')) == NULL ||
		    (count = strchr(first + 1, ':')) == NULL)
			continue;
		*first++ = '\0';
		*count++ = '\0';
		lo = strtoul(first, NULL, 10);
		n = strtoul(count, NULL, 10);
		if (id >= lo && id - lo < n) {
			snprintf(owner, len, "%.64s", line);
			in = 1;
		}
	}
	if (ferror(fp))
		in = -1;
	fclose(fp);
	return in;
}

/*
 * Whether |id| is mapped in this process's user namespace: 1 when a line
 * of |map| (/proc/self/uid_map or gid_map: "first outside count") covers
 * it, 0 when none does, -1 when the map cannot be read.
 */
static int
id_mapped(const char *map, unsigned long id)
{
	unsigned long first, outside, count;
	FILE *fp;
	int in = 0;

	if ((fp = fopen(map, "re")) == NULL)
		return -1;
	while (!in && fscanf(fp, "%lu %lu %lu", &first, &outside, &count) == 3)
		in = id >= first && id - first < count;
	fclose(fp);
	return in;
}

/*
 * Whether getpwuid() or getgrgid() returning NULL with |e| in errno
 * failed, rather than found no entry (getpwuid(3) lists 0, ENOENT,
 * ESRCH, EBADF and EPERM for "not found").
 */
static int
lookup_failed(int e)
{
	return e != 0 && e != ENOENT && e != ESRCH && e != EBADF &&
	    e != EPERM;
}

/* Says why the proxy may not have |uid|: "the egress proxy's uid N WHY
 * NAME (set ...)".  Returns AL_ERR_DENIED. */
static int
uid_refused(uid_t uid, const char *why, const char *name, char *err,
    size_t errlen)
{
	snprintf(err, errlen, "the egress proxy's uid %lu %s%.64s (set %s to "
	    "an unused uid)", (unsigned long)uid, why, name, PROXY_UID_ENV);
	return AL_ERR_DENIED;
}

int
proxy_uid_choose(uid_t *uid, char *err, size_t errlen)
{
	static const char *const files[] = { "/etc/subuid", "/etc/subgid" };
	const struct passwd *pw;
	const struct group *gr;
	char owner[128];
	size_t i;
	int rc;

	if ((rc = proxy_uid_configured(uid, err, errlen)) != 0)
		return rc;
	if (id_mapped("/proc/self/uid_map", *uid) != 1 ||
	    id_mapped("/proc/self/gid_map", *uid) != 1)
		return uid_refused(*uid, "is not mapped in airlock's user "
		    "namespace", "", err, errlen);
	errno = 0;
	if ((pw = getpwuid(*uid)) != NULL)
		return uid_refused(*uid, "is the account ", pw->pw_name, err,
		    errlen);
	if (lookup_failed(errno))
		return uid_refused(*uid, "cannot be looked up", "", err, errlen);
	errno = 0;
	if ((gr = getgrgid((gid_t)*uid)) != NULL)
		return uid_refused(*uid, "is the gid of the group ", gr->gr_name,
		    err, errlen);
	if (lookup_failed(errno))
		return uid_refused(*uid, "cannot be looked up as a gid", "", err,
		    errlen);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		rc = subid_owner(files[i], *uid, owner, sizeof(owner));
		if (rc != 0)
			return uid_refused(*uid, rc < 0 ? "cannot be checked "
			    "against " : "is in a subordinate range of ",
			    rc < 0 ? files[i] : owner, err, errlen);
	}
	return 0;
}

void
proxy_drop_privileges(uid_t uid)
{
	if (geteuid() == 0) {
		if (setgroups(0, NULL) == -1)
			fatal("setgroups");
		if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) == -1)
			fatal("setresgid");
		if (setresuid(uid, uid, uid) == -1)
			fatal("setresuid");
		if (setuid(0) != -1 || setgid(0) != -1)
			fatalx("privileges were not dropped");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("prctl(PR_SET_NO_NEW_PRIVS)");
}

void
proxy_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * What the proxy process may ask of the kernel once it serves: sockets,
 * pipes and splice, poll, the files and sockets name resolution reads,
 * memory, time and exit.  Anything else fails with EPERM (not a kill: a
 * libc path we did not foresee degrades to an error reply instead of
 * taking every sandbox's network down); the calls that would turn a
 * compromised proxy into something more (exec, fork, ptrace, mount,
 * namespaces, bpf, ...) are not listed and so cannot succeed.
 */
static const char *const proxy_syscalls[] = {
	"read", "write", "readv", "writev", "pread64", "close", "openat",
	"open", "newfstatat", "fstat", "stat", "lstat", "statx", "lseek",
	"access", "faccessat", "faccessat2", "readlink", "readlinkat",
	"getdents64", "mmap", "munmap", "mprotect", "mremap", "brk",
	"madvise", "poll", "ppoll", "accept", "accept4", "socket", "connect",
	"bind", "getsockname", "getpeername", "getsockopt", "setsockopt",
	"shutdown", "recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg",
	"sendmmsg", "splice", "pipe2", "fcntl", "ioctl", "clock_gettime",
	"clock_nanosleep", "nanosleep", "gettimeofday", "time", "getpid",
	"gettid", "getppid", "getuid", "geteuid", "getgid", "getegid",
	"getrandom", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
	"sigaltstack", "exit", "exit_group", "futex", "uname", "sysinfo",
	"prlimit64", "getrlimit", "restart_syscall", "set_robust_list",
	"rseq", "sched_yield", "sched_getaffinity", "wait4", "waitid",
};

/*
 * What the resolver keeper may do beyond that: fork a resolver, which
 * sets its parent-death signal and no_new_privs and installs the
 * proxy's filter on top of this one, and SIGKILL a resolver.  clone
 * without a namespace flag (glibc's fork() uses clone, never clone3,
 * whose flags a filter cannot see); kill with SIGKILL and a positive
 * pid only (not -1, every process of the uid; 0, its process group, is
 * its own session's: the keeper calls setsid()).
 */
#define CLONE_NEW_ANY	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | \
			    CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | \
			    CLONE_NEWNET)
static const char *const keeper_syscalls[] = {
	"socketpair", "prctl", "seccomp",
};

static int
keeper_rules(scmp_filter_ctx ctx)
{
	size_t i;
	int rc, nr;

	for (i = 0; i < sizeof(keeper_syscalls) / sizeof(keeper_syscalls[0]);
	    i++) {
		if ((nr = seccomp_syscall_resolve_name(keeper_syscalls[i])) ==
		    __NR_SCMP_ERROR)
			continue;
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) != 0)
			return rc;
	}
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEW_ANY, 0))) != 0)
		return rc;
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 2,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffff80000000ULL, 0),
	    SCMP_A1(SCMP_CMP_EQ, SIGKILL, 0));
}

static int
confine_with(int keeper)
{
	struct addrinfo hints, *res = NULL;
	scmp_filter_ctx ctx;
	size_t i, n = sizeof(proxy_syscalls) / sizeof(proxy_syscalls[0]);
	int rc, nr;

#if defined(__SANITIZE_ADDRESS__)
	/* The sanitizers' runtime needs calls a served proxy never makes. */
	(void)keeper;
	return 0;
#endif
	/* Load the resolver's modules and files before the filter. */
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo("localhost", NULL, &hints, &res) == 0)
		freeaddrinfo(res);
	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL)
		return AL_ERR_ALLOC;
	for (i = 0; i < n; i++) {
		if ((nr = seccomp_syscall_resolve_name(proxy_syscalls[i])) ==
		    __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) != 0) {
			seccomp_release(ctx);
			errno = -rc;
			return AL_ERR_SYSTEM;
		}
	}
	if (keeper && (rc = keeper_rules(ctx)) != 0) {
		seccomp_release(ctx);
		errno = -rc;
		return AL_ERR_SYSTEM;
	}
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0) {
		errno = -rc;
		return AL_ERR_SYSTEM;
	}
	return 0;
}

int
proxy_confine(void)
{
	return confine_with(0);
}

int
proxy_confine_keeper(void)
{
	return confine_with(1);
}

int
proxy_start_resolvers(struct proxy *p, int n)
{
	struct resolver_keep_req req = { .kill_pid = 0 };
	struct resolver_keep_rep rep;
	size_t len;
	pid_t kpid;
	int i, kfd, fd, rc;

	if ((kpid = proxy_resolver_keeper_spawn(&kfd)) < 0)
		return (int)kpid;
	for (i = 0; i < n; i++) {
		fd = -1;
		if ((rc = proxy_send_fd(kfd, -1, &req, sizeof(req))) != 0 ||
		    (rc = proxy_recv_fd(kfd, &fd, &rep, sizeof(rep), &len)) !=
		    1 || len != sizeof(rep) || fd < 0 || rep.pid <= 0) {
			if (fd >= 0)
				close(fd);
			close(kfd);
			return rc < 0 ? rc : AL_ERR_SYSTEM;
		}
		if (proxy_add_resolver(p, fd, rep.pid) != 0) {
			close(kfd);
			return AL_ERR_LIMIT;
		}
	}
	proxy_set_resolver_keeper(p, kfd);
	return 0;
}

static volatile sig_atomic_t term_seen;

static void
on_term(int sig)
{
	(void)sig;
	term_seen = 1;
}

/*
 * The child side of proxy_spawn().  Dropping privileges is irreversible
 * and either completes or the process dies.
 */
static void __attribute__((noreturn))
proxy_child(const struct proxy_limits *lim, int event_fd, int ctl, pid_t parent,
    uid_t uid)
{
	struct sigaction sa;
	struct proxy *p;
	int keep[2], nkeep = 0, rc;

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		fatal("prctl(PR_SET_PDEATHSIG)");
	if (getppid() != parent)
		_exit(0);
	keep[nkeep++] = ctl;
	if (event_fd >= 0)
		keep[nkeep++] = event_fd;
	if (close_fds_from(3, keep, (size_t)nkeep) != 0)
		fatal("close_fds_from");
	proxy_drop_privileges(uid);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	proxy_raise_nofile();
	if ((p = proxy_new(lim, event_fd)) == NULL)
		fatalx("proxy_new: out of memory");
	/* Resolvers are forked before the filter forbids fork. */
	if (proxy_start_resolvers(p, PROXY_RESOLVERS) != 0)
		fatal("resolver processes");
	if (proxy_confine() != 0)
		fatal("seccomp");
	proxy_set_control(p, ctl);
	rc = proxy_run(p, &term_seen);
	proxy_free(p);
	_exit(rc == 0 ? 0 : 1);
}

pid_t
proxy_spawn(const struct proxy_limits *lim, int event_fd, int *ctl_out,
    char *err, size_t errlen)
{
	int sv[2], rc;
	pid_t pid, parent = getpid();
	uid_t uid = 0;

	*ctl_out = -1;
	if (geteuid() == 0 && (rc = proxy_uid_choose(&uid, err, errlen)) != 0)
		return rc;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return AL_ERR_SYSTEM;
	}
	if (pid == 0) {
		close(sv[0]);
		proxy_child(lim, event_fd, sv[1], parent, uid);
	}
	close(sv[1]);
	*ctl_out = sv[0];
	return pid;
}

/* Waits for the proxy's one-line answer. */
static int
ctl_wait(int ctl, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = ctl, .events = POLLIN };
	char buf[512];
	size_t len;
	int fd, rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	rc = poll(&pfd, 1, CTL_REPLY_MS);
	if (rc == 0) {
		errno = ETIMEDOUT;
		return AL_ERR_SYSTEM;
	}
	if (rc == -1)
		return AL_ERR_SYSTEM;
	rc = proxy_recv_fd(ctl, &fd, buf, sizeof(buf) - 1, &len);
	if (fd >= 0)
		close(fd);
	if (rc == 0) {
		errno = EPIPE;
		return AL_ERR_SYSTEM;
	}
	if (rc < 0)
		return rc;
	buf[len] = '\0';
	if (strcmp(buf, "ok") == 0)
		return 0;
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", strncmp(buf, "error ", 6) == 0 ?
		    buf + 6 : buf);
	if (strstr(buf, "no such sandbox") != NULL)
		return AL_ERR_NOT_FOUND;
	return AL_ERR_FORMAT;
}

/* Appends "PREFIX LINE\n" lines to msg; AL_ERR_LIMIT if it would not fit. */
static int
ctl_append(char *msg, size_t *len, const char *prefix, const char *s)
{
	size_t need = strlen(prefix) + strlen(s) + 2;

	if (strchr(s, '\n') != NULL)
		return AL_ERR_FORMAT;
	if (need > PROXY_CTL_MAX - *len)
		return AL_ERR_LIMIT;
	*len += (size_t)snprintf(msg + *len, PROXY_CTL_MAX - *len + 1,
	    "%s %s\n", prefix, s);
	return 0;
}

int
proxy_ctl_add(int ctl, int listen_fd, const char *sandbox,
    const char *const *allow, const char *const *allow_ip, char *err,
    size_t errlen)
{
	char *msg;
	size_t len = 0, i;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if ((msg = malloc(PROXY_CTL_MAX + 1)) == NULL)
		return AL_ERR_ALLOC;
	rc = ctl_append(msg, &len, "add", sandbox);
	for (i = 0; rc == 0 && allow != NULL && allow[i] != NULL; i++)
		rc = ctl_append(msg, &len, "allow", allow[i]);
	for (i = 0; rc == 0 && allow_ip != NULL && allow_ip[i] != NULL; i++)
		rc = ctl_append(msg, &len, "allow-ip", allow_ip[i]);
	if (rc == 0)
		rc = proxy_send_fd(ctl, listen_fd, msg, len);
	free(msg);
	if (rc != 0)
		return rc;
	return ctl_wait(ctl, err, errlen);
}

int
proxy_stop(pid_t pid, int event_fd, int (*drain)(void *), void *arg,
    int wait_ms)
{
	struct pollfd pfd = { .fd = event_fd, .events = POLLIN };
	int64_t left, deadline = now_monotonic_ms() + wait_ms;
	int reading = event_fd != -1, killed = 0, status;
	pid_t r;

	(void)kill(pid, SIGTERM);
	while ((r = waitpid(pid, &status, WNOHANG)) != pid) {
		if (r == -1 && errno != EINTR)
			break;
		if ((left = deadline - now_monotonic_ms()) <= 0) {
			(void)kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
				;
			killed = 1;
			break;
		}
		/* Every 10 ms at least, to see it gone. */
		if (reading && poll(&pfd, 1, left < 10 ? (int)left : 10) == 1)
			reading = drain(arg) != 0;
		else if (!reading)
			(void)poll(NULL, 0, left < 10 ? (int)left : 10);
	}
	/* What it wrote last, up to the end of the file: its exit closed
	 * the pipe (its resolvers do not hold it). */
	while (reading && poll(&pfd, 1, 1000) == 1)
		reading = drain(arg) != 0;
	return killed;
}

int
proxy_ctl_remove(int ctl, const char *sandbox)
{
	char msg[PROXY_SANDBOX_ID_MAX + 16];
	int rc;

	if (strlen(sandbox) > PROXY_SANDBOX_ID_MAX ||
	    strchr(sandbox, '\n') != NULL)
		return AL_ERR_NOT_FOUND;
	snprintf(msg, sizeof(msg), "remove %s\n", sandbox);
	if ((rc = proxy_send_fd(ctl, -1, msg, strlen(msg))) != 0)
		return rc;
	return ctl_wait(ctl, NULL, 0);
}
