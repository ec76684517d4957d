/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * runner: the parent's side of a sandboxed run.
 *
 * runner_start() prepares everything the child needs (paths, the seccomp
 * program, the landlock ABI), clones the child into all the new
 * namespaces at once, writes its uid/gid maps, puts it in its cgroup and
 * lets it go.  The child builds the sandbox itself (child.c).  The
 * parent then collects output up to the cap, enforces the deadline by
 * killing the namespace's first process (which takes every other process
 * in the pid namespace with it), and reaps.
 */
#include "config.h"

#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/sandbox_defaults.h"
#include "policy/sensitive.h"
#include "policy/syscalls.h"
#include "proxy/ipc.h"
#include "runner/denials.h"
#include "runner/denywatch.h"
#include "runner/fsdenials.h"
#include "runner/runner.h"
#include "runner/runner_int.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD	0x00001000
#endif
#ifndef P_PIDFD
#define P_PIDFD		3
#endif

/* The user namespace comes with these when airlock is not root; as root,
 * the child creates it after building the root (see child.c). */
#define RUNNER_NS_FLAGS	(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | \
	CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

#define RUNNER_BASE_LAYERS (RUNNER_LAYER_USERNS | RUNNER_LAYER_MOUNTNS | \
	RUNNER_LAYER_PIDNS | RUNNER_LAYER_NETNS | RUNNER_LAYER_IPCNS | \
	RUNNER_LAYER_UTSNS | RUNNER_LAYER_CGROUPNS | RUNNER_LAYER_SECCOMP | \
	RUNNER_LAYER_NOCAPS | RUNNER_LAYER_NNP | RUNNER_LAYER_RLIMITS)

#define RUNNER_DEFAULT_CAP	(1024 * 1024)

struct stream {
	int	 fd;		/* -1 once closed */
	char	*buf;
	size_t	 len;
};

/* stdout read through req->line_keep (runner.h), a line at a time. */
struct lines {
	char	 name[PATH_MAX + 1];	/* the line's NAME so far */
	size_t	 nlen;			/* may pass sizeof(name): too long */
	int	 body;			/* past the NAME's NUL */
	int	 keep;			/* the line is kept */
	int	 cut;			/* the line before had no NUL */
	char	*last;			/* the NAME asked about last */
	int	 verdict;		/* and line_keep()'s answer */
	size_t	 names;			/* NAMEs kept, or stood for */
};

struct runner_proc {
	const struct runner_request *req;
	struct lines		*lines;		/* with req->line_keep */
	char			 warning[256];	/* limits not enforced */
	struct runner_plan	 plan;
	pid_t			 pid;
	int			 pidfd;
	int			 epfd;
	int			 report_fd;	/* read end, or -1 at its end */
	char			 report[200];	/* what came on it */
	size_t			 report_len;
	int			 ended;		/* the init reported the
						   command's status */
	int			 sync_fd;	/* open while we live */
	int			 kmsg_fd;	/* /dev/kmsg, or -1 */
	struct stream		 out, err;
	size_t			 cap;		/* bytes kept, in all */
	int			 truncated;
	struct runner_cgroup	*cg;
	int64_t			 start, deadline;
	int			 reaped;
	siginfo_t		 si;
	int			 timed_out;
	unsigned		 layers;
	struct stat		 pidns;		/* its pid namespace */
	int			 pidns_ok;
	int			 notify_fd;	/* seccomp listener, or -1 */
	uint32_t		 native_arch;	/* AUDIT_ARCH_* of ours */
	/* What was refused: allocated at the first entry (4 KiB each, and
	 * the broker keeps dozens of runs in flight). */
	struct runner_denial	*denials;
	size_t			 ndenials;
	struct deny_watch	*deny_watch;	/* or NULL (denywatch.h) */
	const char		*unmasked;	/* what it reported */
};

static void
plan_free(struct runner_plan *pl)
{
	size_t i;

	for (i = 0; i < pl->nbinds; i++)
		free(pl->binds[i].src);
	free(pl->binds);
	free(pl->workspace);
	free(pl->cwd);
	for (i = 0; i < pl->ndeny; i++)
		free(pl->deny[i]);
	free(pl->deny);
	for (i = 0; i < pl->nlive_deny; i++) {
		free(pl->live_deny[i].res);
		free(pl->live_deny[i].top);
	}
	free(pl->live_deny);
	free(pl->extra_ro);
	git_hooks_list_free(&pl->hooks);
}

/*
 * 1 (with the reason in |err|) when a root runner's |uid| or |gid| is the
 * egress proxy's (proxy_uid_configured()): a sandbox of that uid would
 * share the proxy's per-user budgets and could reach its processes.
 * An unreadable setting is the proxy's refusal to make, not the runner's.
 */
static int
runner_is_proxy_uid(uid_t uid, gid_t gid, char *err, size_t errlen)
{
	char why[128];
	uid_t proxy;

	if (proxy_uid_configured(&proxy, why, sizeof(why)) != 0 ||
	    (uid != proxy && gid != (gid_t)proxy))
		return 0;
	snprintf(err, errlen, "the runner uid/gid must not be the egress "
	    "proxy's (%lu, %s)", (unsigned long)proxy, PROXY_UID_ENV);
	return 1;
}

/*
 * The checkout's git hooks, for a runner of a session's view (with
 * lower_upper): the view's git reads the checkout's config (vcs_real()
 * in child.c), whose hooks directories, included files and hook
 * managers' configs are files of the working tree, which the agent
 * writes in its view; and the hook managers' configs the agent wrote
 * deeper or changed in package.json (policy/hookplants.h).  A check
 * granted a secret that commits, or runs "git status" under an included
 * core.fsmonitor, would run the agent's hook with the secret; child.c
 * covers each path found here with the checkout's own, or masks it.  A
 * config or a change that cannot be read refuses the run.
 */
static int
plan_hooks(struct runner_plan *pl, char *err, size_t errlen)
{
	char gerr[512];

	if (git_hooks_list(pl->workspace, &pl->hooks, gerr,
	    sizeof(gerr)) != 0) {
		snprintf(err, errlen, "the checkout's git hooks cannot be "
		    "told: %s", gerr);
		return AL_ERR_SYSTEM;
	}
	if (hookplants_find(&pl->hooks, pl->workspace, pl->lower_upper, gerr,
	    sizeof(gerr)) != 0) {
		snprintf(err, errlen, "the session's hook-manager configs "
		    "cannot be told: %s", gerr);
		return AL_ERR_SYSTEM;
	}
	if (pl->hooks.n > RUNNER_MAX_HOOKS) {
		snprintf(err, errlen, "the checkout has more git hooks than a "
		    "runner covers (%d)", RUNNER_MAX_HOOKS);
		return AL_ERR_SYSTEM;
	}
	return 0;
}

/* Returns 1 if the workspace-relative |rel| has no ".." component. */
static int
rel_ok(const char *rel)
{
	const char *s = rel;
	size_t n;

	if (*rel == '/')
		return 0;
	while (*s != '\0') {
		n = strcspn(s, "/");
		if (n == 2 && s[0] == '.' && s[1] == '.')
			return 0;
		s += n;
		while (*s == '/')
			s++;
	}
	return 1;
}

/* Returns 1 if |path| is one of the system paths every runner gets. */
static int
is_base_path(const char *path)
{
	size_t i;

	/*
	 * Anything beneath a bound system directory is visible already; a
	 * second bind would need a mount point made through the host's own
	 * directory, which must never be written.
	 */
	for (i = 0; sandbox_system_dirs[i] != NULL; i++)
		if (path_is_beneath(path, sandbox_system_dirs[i]))
			return 1;
	if (strncmp(path, "/etc/", 5) != 0)
		return 0;
	for (i = 0; sandbox_etc_entries[i] != NULL; i++)
		if (path_is_beneath(path + 5, sandbox_etc_entries[i]))
			return 1;
	return 0;
}

/* The highest capability the kernel knows (cached), or 63. */
static int
cap_last(void)
{
	static int last = -1;
	char buf[16];
	ssize_t n;
	int fd;

	if (last != -1)
		return last;
	last = 63;
	if ((fd = open("/proc/sys/kernel/cap_last_cap",
	    O_RDONLY | O_CLOEXEC)) != -1) {
		if ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = '\0';
			if (atoi(buf) > 0 && atoi(buf) < 64)
				last = atoi(buf);
		}
		close(fd);
	}
	return last;
}

const char *const runner_user_counts[RUNNER_USER_COUNTS] = {
	"max_inotify_instances", "max_inotify_watches",
	"max_fanotify_groups", "max_fanotify_marks",
	"max_user_namespaces", "max_mnt_namespaces", "max_pid_namespaces",
	"max_net_namespaces", "max_ipc_namespaces", "max_uts_namespaces",
	"max_cgroup_namespaces", "max_time_namespaces"
};

/*
 * The cap of a sandbox on per-user count |i| (runner_int.h): the
 * RUNNER_USER_SHARE-th part of what our user namespace allows a user, at
 * least 1 where it allows any, read once.  -1 for a count this kernel
 * does not have; 0 where the value cannot be read: fail closed.
 */
static long
user_cap(size_t i)
{
	static long caps[RUNNER_USER_COUNTS];
	static int known[RUNNER_USER_COUNTS];
	char path[64], buf[32], *end;
	ssize_t n;
	long v;
	int fd;

	if (known[i])
		return caps[i];
	known[i] = 1;
	snprintf(path, sizeof(path), "/proc/sys/user/%s",
	    runner_user_counts[i]);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return caps[i] = errno == ENOENT ? -1 : 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return caps[i] = 0;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0') ||
	    v < 0)
		return caps[i] = 0;
	return caps[i] = v > 0 && v < RUNNER_USER_SHARE ? 1 :
	    v / RUNNER_USER_SHARE;
}

/*
 * Each sandbox's caps on the per-user counts.  The namespaces' counts
 * only where the run may call unshare(2): the seccomp filter refuses
 * every other way to make one (clone's flags, clone3), and each cap costs
 * the sandbox's start a write to /proc (-1: not written).
 */
static void
plan_user_caps(struct runner_plan *pl, const struct runner_request *req)
{
	size_t i;
	int may_unshare = 0;

	for (i = 0; i < req->nallow_syscalls; i++)
		if (strcmp(req->allow_syscalls[i], "unshare") == 0)
			may_unshare = 1;
	for (i = 0; i < RUNNER_USER_COUNTS; i++)
		pl->user_caps[i] = i < RUNNER_USER_NS_FIRST || may_unshare ?
		    user_cap(i) : -1;
}

static int	write_file(const char *path, const char *text);

/*
 * The session's user namespace holder, forked from |parent|: becomes
 * |uid| and |gid|, makes a user namespace, caps it as plan_user_caps()
 * caps a runner's (every count: a runner that may unshare() makes its
 * own inside), says so on |st| ('1', or '0' if a step failed), then
 * holds the namespace until a byte comes on |hold| or |parent| dies (a
 * child we fork meanwhile may hold a copy of the other end: no hang-up
 * would come).  System calls only: it is a copy of one thread of ours.
 */
static void __attribute__((noreturn))
session_holder(pid_t parent, uid_t uid, gid_t gid, int st, int hold)
{
	char path[64], val[32], c = '1';
	size_t i;
	int fd;

	/* Nothing of ours stays open in it but its two pipes, as 0 and 1. */
	if ((st == 0 && (st = dup(st)) == -1) || dup2(hold, 0) == -1 ||
	    dup2(st, 1) == -1 ||
	    syscall(SYS_close_range, 2U, ~0U, 0) == -1)
		_exit(1);
	st = 1;
	hold = 0;
	(void)prctl(PR_SET_NAME, "airlock-userns");
	/* Its uid changes: it is no longer dumpable, and nobody of the
	 * runner uid may read its copy of our memory. */
	if (syscall(SYS_setgroups, 0, NULL) == -1 ||
	    syscall(SYS_setresgid, gid, gid, gid) == -1 ||
	    syscall(SYS_setresuid, uid, uid, uid) == -1 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent ||
	    unshare(CLONE_NEWUSER) == -1)
		c = '0';
	for (i = 0; c == '1' && i < RUNNER_USER_COUNTS; i++) {
		if (user_cap(i) < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/sys/user/%s",
		    runner_user_counts[i]);
		snprintf(val, sizeof(val), "%ld\n", user_cap(i));
		if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1 ||
		    write(fd, val, strlen(val)) != (ssize_t)strlen(val))
			c = '0';
		if (fd != -1)
			close(fd);
	}
	(void)!write(st, &c, 1);
	(void)!read(hold, &c, 1);
	_exit(0);
}

/*
 * A holder forked, not yet finished (session_finish()), or one finished
 * and not yet reaped (session_reap()); pid -1: none.
 */
struct session_holding {
	pid_t	pid;
	uid_t	uid;
	gid_t	gid;
	int	st, hold;	/* our ends of its pipes */
};

static int session_nested;
static struct session_holding session_pending = { -1, 0, 0, -1, -1 };
static pid_t session_unreaped = -1;

/* Forks a holder for |uid|, |gid| into |h|; h->pid -1 if it cannot. */
static void
session_start(struct session_holding *h, uid_t uid, gid_t gid)
{
	int st[2], hold[2];
	pid_t parent;
	size_t i;

	h->pid = -1;
	/* Each holder's share is read before it forks. */
	for (i = 0; i < RUNNER_USER_COUNTS; i++)
		(void)user_cap(i);
	if (pipe2(st, O_CLOEXEC) == -1)
		return;
	if (pipe2(hold, O_CLOEXEC) == -1) {
		close(st[0]);
		close(st[1]);
		return;
	}
	parent = getpid();
	if ((h->pid = fork()) == 0) {
		close(st[0]);
		close(hold[1]);
		session_holder(parent, uid, gid, st[1], hold[0]);
	}
	close(st[1]);
	close(hold[0]);
	if (h->pid == -1) {
		close(st[0]);
		close(hold[1]);
		return;
	}
	h->uid = uid;
	h->gid = gid;
	h->st = st[0];
	h->hold = hold[1];
}

/* Reaps the namespace holder *|pid| (-1: none), which has exited or is
 * about to, and sets it to -1. */
static void
holder_reap(pid_t *pid)
{
	while (*pid != -1 && waitpid(*pid, NULL, 0) == -1 && errno == EINTR)
		;
	*pid = -1;
}

/* Reaps the last finished holder. */
static void
session_reap(void)
{
	holder_reap(&session_unreaped);
}

/*
 * Waits for |h|'s namespace, maps it and lets the holder go: a
 * descriptor of the namespace, or -1.  Not reaped here: its exit, and
 * its wait for a CPU, would be on the way to the sandbox.
 */
static int
session_finish(struct session_holding *h)
{
	char path[64], map[64], c = '0';
	int fd = -1, ok;

	ok = read(h->st, &c, 1) == 1 && c == '1';
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)h->pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)h->uid,
	    (unsigned)h->uid);
	ok = ok && write_file(path, map);
	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)h->pid);
	ok = ok && write_file(path, "deny");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)h->pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)h->gid,
	    (unsigned)h->gid);
	ok = ok && write_file(path, map);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)h->pid);
	if (ok)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	(void)!write(h->hold, "x", 1);
	close(h->st);
	close(h->hold);
	session_reap();
	session_unreaped = h->pid;
	h->pid = -1;
	return fd;
}

void
runner_session_nest(uid_t uid, gid_t gid)
{
	session_nested = 1;
	/* Made while the session starts, off the way to its first runner. */
	if (geteuid() == 0 && uid != 0 && gid != 0 && session_pending.pid == -1)
		session_start(&session_pending, uid, gid);
}

/*
 * The session's user namespace for runners of |pl|'s uid and gid (see
 * runner_session_nest()): a descriptor, kept for the process's life, or
 * -1.  The holder maps only the runner's ids, as a runner's namespace
 * does; we write its maps and keep its namespace.
 */
static int
session_userns(const struct runner_plan *pl)
{
	static struct { uid_t uid; gid_t gid; int fd; } cache[4];
	static size_t ncache;
	struct session_holding now, *h = &session_pending;
	size_t i;
	int fd;

	for (i = 0; i < ncache; i++)
		if (cache[i].uid == pl->uid && cache[i].gid == pl->gid)
			return cache[i].fd;
	if (ncache == sizeof(cache) / sizeof(cache[0]))
		return -1;
	if (h->pid == -1 || h->uid != pl->uid || h->gid != pl->gid) {
		h = &now;
		session_start(h, pl->uid, pl->gid);
		if (h->pid == -1)
			return -1;
	}
	if ((fd = session_finish(h)) != -1) {
		cache[ncache].uid = pl->uid;
		cache[ncache].gid = pl->gid;
		cache[ncache++].fd = fd;
	}
	return fd;
}

/*
 * Is the absolute |e| named through a symbolic link that lies in a place
 * a sandbox may write (the workspace, agent.home, bound here or not: the
 * agent writes it while the broker's runners start, a readWrite entry)?
 * The agent could point the link elsewhere: the next run's mask of a
 * denied path, made from the name, would miss what it hid, and a bind
 * would show what the reviewer of the name never saw.  The link is
 * written to |link| (1), else 0.
 */
static int
through_rewritable_link(
    const struct runner_plan *pl, const char *e, char *link, size_t linklen)
{
	const struct sandbox_policy *sp = pl->policy;
	char **roots;
	size_t i, n = 0;
	int rc;

	roots = xcalloc(sp->nread_write + 3, sizeof(*roots));
	roots[n++] = xstrdup(pl->workspace);
	if (sp->home != NULL)
		roots[n++] = realpath(sp->home, NULL);
	if (sp->agent_home != NULL)
		roots[n++] = realpath(sp->agent_home, NULL);
	for (i = 0; i < sp->nread_write; i++)
		roots[n++] = realpath(sp->read_write[i], NULL);
	rc = sensitive_link_rewritable(
	    e, (const char *const *)roots, n, link, linklen);
	for (i = 0; i < n; i++)
		free(roots[i]);
	free(roots);
	return rc;
}

/* Is |dir| a denied path, or beneath one, so that its mask hides it? */
static int
masked(const struct runner_plan *pl, const char *dir)
{
	size_t i;

	for (i = 0; i < pl->ndeny; i++)
		if (path_is_beneath(dir, pl->deny[i]))
			return 1;
	return 0;
}

/*
 * How the child binds the read-only or read-write entry |path|: what it
 * resolves to now, checked here, and nothing swapped in after.  A bind
 * follows the host's links, and an entry beneath a directory the agent
 * can write (its home) may have become a link since the manifest was
 * reviewed: one that leads somewhere forbidden (sensitive_forbidden()) that
 * its name is not refuses the run.  An entry that is a link itself, bound
 * read-only outside /tmp and /etc, is made again as that link (/bin ->
 * usr/bin); an absent one is not bound.  0, or AL_ERR_DENIED with err.
 */
static int
plan_bind_one(struct runner_plan *pl, const char *path, int rw,
    struct plan_bind *b, char *err, size_t errlen)
{
	const struct sandbox_policy *sp = pl->policy;
	char real[PATH_MAX], lnk[PATH_MAX], own[PATH_MAX], why[128], why2[128];
	const char *what;
	struct stat st;
	ssize_t n;
	size_t i;

	b->path = path;
	b->src = NULL;
	b->how = PLAN_SKIP;
	/* An escalation's widening, resolved and checked by the broker. */
	for (i = 0; i < sp->nexact; i++)
		if (strcmp(sp->exact[i].path, path) == 0) {
			if (sensitive_holds_own(sp->exact[i].src, own,
			    sizeof(own)) && !masked(pl, own)) {
				snprintf(err, errlen, "%s holds airlock's own "
				    "state %s: refused", path, own);
				return AL_ERR_DENIED;
			}
			b->src = xstrdup(sp->exact[i].src);
			b->how = PLAN_BIND;
			return 0;
		}
	if (lstat(path, &st) == -1)
		return 0;
	if (S_ISLNK(st.st_mode) && !rw && !runner_under_tmp(path) &&
	    strncmp(path, "/etc/", 5) != 0) {
		if ((n = readlink(path, lnk, sizeof(lnk) - 1)) == -1)
			return 0;
		lnk[n] = '\0';
		b->src = xstrdup(lnk);
		b->how = PLAN_LINK;
		return 0;
	}
	if (realpath(path, real) == NULL)
		return 0;
	/*
	 * airlock's own state beneath it (the secret store and its key, the
	 * audit key, the control sockets) is never shown, whatever holds it
	 * (~/.local for pip's tools holds ~/.local/state/airlock), unless a
	 * denied path masks it.  As airlock run's --ro and --rw refuse it.
	 */
	if ((sensitive_holds_own(real, own, sizeof(own)) ||
	    sensitive_holds_own(path, own, sizeof(own))) &&
	    !masked(pl, own)) {
		snprintf(err, errlen, "%s path %s holds airlock's own state "
		    "%s (its secret store, keys and sockets): refused; name "
		    "it in sandbox.denyRead to bind the rest",
		    rw ? "read-write" : "read-only", path, own);
		return AL_ERR_DENIED;
	}
	if (strcmp(real, path) != 0 &&
	    (what = sensitive_forbidden(real, pl->deny, pl->ndeny, why,
	    sizeof(why))) != NULL &&
	    sensitive_forbidden(path, pl->deny, pl->ndeny, why2,
	    sizeof(why2)) == NULL) {
		snprintf(err, errlen, "%s path %s leads to %s, %s: refused",
		    rw ? "read-write" : "read-only", path, real, what);
		return AL_ERR_DENIED;
	}
	/*
	 * Through a link the agent may rewrite, the directory it leads to
	 * now is walked as an escalation's is (sensitive_tree()): a link to
	 * /srv/ci showed the deploy/.ssh it holds, whose name no check saw.
	 */
	if (strcmp(path, real) != 0 &&
	    through_rewritable_link(pl, path, lnk, sizeof(lnk)) &&
	    (what = sensitive_tree(real, pl->deny, pl->ndeny)) != NULL) {
		snprintf(err, errlen, "%s path %s leads through the link %s, "
		    "which a sandbox may rewrite, to %s, which %s: refused",
		    rw ? "read-write" : "read-only", path, lnk, real, what);
		return AL_ERR_DENIED;
	}
	b->src = xstrdup(real);
	b->how = PLAN_BIND;
	return 0;
}

/* Adds |d| (owned) to the denied paths. */
static void
deny_add(struct runner_plan *pl, char *d)
{
	pl->deny = xreallocarray(pl->deny, pl->ndeny + 2, sizeof(*pl->deny));
	pl->deny[pl->ndeny++] = d;
	pl->deny[pl->ndeny] = NULL;
}

/* plan_bind_one() for every extra read-only and read-write entry. */
static int
plan_binds(struct runner_plan *pl, char *err, size_t errlen)
{
	const struct sandbox_policy *sp = pl->policy;
	size_t i;
	int rc;

	pl->binds = xcalloc(pl->nextra_ro + sp->nread_write + 1,
	    sizeof(*pl->binds));
	for (i = 0; i < pl->nextra_ro; i++)
		if ((rc = plan_bind_one(pl, pl->extra_ro[i], 0,
		    &pl->binds[pl->nbinds++], err, errlen)) != 0)
			return rc;
	for (i = 0; i < sp->nread_write; i++)
		if ((rc = plan_bind_one(pl, sp->read_write[i], 1,
		    &pl->binds[pl->nbinds++], err, errlen)) != 0)
			return rc;
	return 0;
}

/*
 * A denied path in a repository the sandbox shows (the workspace's, or a
 * bind's) would be read through its history ("git show HEAD:.env"):
 * the run is refused unless the repository's metadata is denied too.
 */
static int
plan_vcs_stores(struct runner_plan *pl, char *err, size_t errlen)
{
	char store[PATH_MAX];
	const char *d;
	size_t i;

	d = sensitive_vcs_exposed(pl->workspace, pl->deny, pl->ndeny, store,
	    sizeof(store));
	for (i = 0; d == NULL && i < pl->nbinds; i++)
		if (pl->binds[i].how == PLAN_BIND)
			d = sensitive_vcs_exposed(pl->binds[i].src, pl->deny,
			    pl->ndeny, store, sizeof(store));
	if (d == NULL)
		return 0;
	snprintf(err, errlen, SENSITIVE_VCS_SHOWN, d, store);
	return AL_ERR_PATH;
}

/*
 * The masks hide names: another name (a hard link) of a denied file, or
 * of one beneath a denied directory, refuses the run.  The walk costs a
 * stat per entry beneath the denied directories (8-13 ms for a denied
 * .git of 1855 entries), and a session's broker starts every runner with
 * the same denied paths, while no sandbox can make a new name for a
 * masked file (EXDEV across the mask's mount) nor the broker one for a
 * denied path (sensitive_at_denied()): a list this process found clean
 * is not walked again.  A link made meanwhile by a process outside every
 * sandbox is found at the next session's start (airlock exec: the next
 * exec).
 */
static int
plan_deny_links(struct runner_plan *pl, char *err, size_t errlen)
{
	static char clean[SHA256_HEX_LEN + 1];
	char hex[SHA256_HEX_LEN + 1], *names;
	size_t i, len = 0, n;

	for (i = 0; i < pl->ndeny; i++)
		len += strlen(pl->deny[i]) + 1;
	names = xcalloc(1, len + 1);
	for (i = 0, len = 0; i < pl->ndeny; i++) {
		n = strlen(pl->deny[i]) + 1;
		memcpy(names + len, pl->deny[i], n);
		len += n;
	}
	sha256_hex(names, len, hex);
	free(names);
	if (strcmp(hex, clean) == 0)
		return 0;
	if (sensitive_deny_linked(pl->deny, pl->ndeny, SENSITIVE_LINKS_MAX,
	    err, errlen) != NULL)
		return AL_ERR_PATH;
	memcpy(clean, hex, sizeof(clean));
	return 0;
}

/*
 * |path| in |out| with its deepest existing ancestor resolved (realpath)
 * and the rest as it is: an absent denied path named through a link (a
 * HOME under a linked /home) still meets the bind it lies in.
 */
static void
resolve_existing(const char *path, char *out, size_t outlen)
{
	char head[PATH_MAX], real[PATH_MAX], *slash;

	snprintf(out, outlen, "%s", path);
	if ((size_t)snprintf(head, sizeof(head), "%s", path) >= sizeof(head))
		return;
	while (realpath(head, real) == NULL) {
		if ((errno != ENOENT && errno != ENOTDIR) ||
		    (slash = strrchr(head, '/')) == NULL || slash == head)
			return;
		*slash = '\0';
	}
	snprintf(out, outlen, "%s%s", strcmp(real, "/") == 0 ? "" : real,
	    path + strlen(head));
}

/* The bind of the sandbox that |deny| (as named, and |res|, as resolved)
 * lies in, or NULL: |name| as the policy names it, |real| resolved
 * (NULL: it did not resolve), which *top gets then ("/" for NULL). */
static const char *
beneath_bind(const char *deny, const char *res, const char *name,
    const char *real, const char **top)
{
	const char *in = NULL;

	if (name != NULL && path_is_beneath(deny, name))
		in = name;
	else if (real != NULL && path_is_beneath(res, real))
		in = name != NULL ? name : real;
	if (in != NULL)
		*top = real != NULL ? real : "/";
	return in;
}

/* Whether |pl| binds anything the host writes while it runs: the
 * workspace live, a readWrite entry, agent.home. */
static int
plan_has_live_bind(const struct runner_plan *pl)
{
	return plan_ws_view(pl) == PLAN_WS_LIVE ||
	    pl->policy->nread_write > 0 || pl->policy->home != NULL;
}

/*
 * The live bind (plan_deny_live()) that denied path |i| of |pl| lies
 * in, as the policy names it, or NULL; |res| gets the path resolved as
 * far as it exists, |top| the bind resolved ("/" where it does not
 * resolve), *fix what would hide it there otherwise.
 * |home_real|: agent.home resolved, or NULL.
 */
static const char *
deny_live_bind(const struct runner_plan *pl, size_t i, const char *home_real,
    char *res, size_t reslen, char *top, size_t toplen, const char **fix)
{
	const struct sandbox_policy *sp = pl->policy;
	char real[PATH_MAX];
	const char *in, *t = NULL;
	size_t j;

	resolve_existing(pl->deny[i], res, reslen);
	*fix = "use agent.workspace: cow (--cow), or deny an existing "
	    "directory that holds it";
	in = plan_ws_view(pl) != PLAN_WS_LIVE ? NULL :
	    beneath_bind(pl->deny[i], res, NULL, pl->workspace, &t);
	for (j = 0; in == NULL && j < sp->nread_write; j++) {
		*fix = "bind it read-only (readOnly, --ro), or deny an "
		    "existing directory that holds it";
		in = beneath_bind(pl->deny[i], res, sp->read_write[j],
		    realpath(sp->read_write[j], real), &t);
	}
	if (in == NULL && sp->home != NULL) {
		*fix = "deny an existing directory that holds it";
		in = beneath_bind(pl->deny[i], res, sp->home, home_real, &t);
	}
	if (in != NULL)
		snprintf(top, toplen, "%s", t);
	return in;
}

/* Records denied path |i| of |pl|, a directory in the live bind |in|
 * (as resolved, |res|; the bind, |top|), for deny_watch_start(). */
static void
plan_add_live_deny(struct runner_plan *pl, size_t i, const char *in,
    const char *res, const char *top)
{
	struct plan_live_deny *d;

	pl->live_deny = xreallocarray(pl->live_deny, pl->nlive_deny + 1,
	    sizeof(*pl->live_deny));
	d = &pl->live_deny[pl->nlive_deny++];
	d->path = pl->deny[i];
	d->bind = in;
	d->res = xstrdup(res);
	d->top = xstrdup(top);
}

/*
 * A denied path in a bind the host writes while the sandbox runs (the
 * workspace bound as it is, PLAN_WS_LIVE; a readWrite entry; agent.home)
 * is masked by a mount on the dentry its name has at the start, and
 * nothing else can hide it there: a bind is no overlay (whose whiteouts
 * would hide an absent name, absent_layer(), but whose cached lookups
 * would hide new files from the agent), and landlock grants only.  So
 * an absent one was shown once the host made it (a .env written while
 * the agent ran), and a file renamed over a masked one on the host (as
 * editors, sed -i and credential tools write a file) detached the mask
 * (the kernel drops mounts on a dentry replaced from another mount
 * namespace) and was shown.  Only a mask over a directory that stays
 * survives what is made or renamed inside it (one the host removes or
 * moves kills the sandbox: deny_watch_start(), which watches what this
 * records in pl->live_deny).  Each other one refuses the run, naming
 * the path, the bind and what would hide it: 0, or AL_ERR_PATH with err.
 */
static int
plan_deny_live(struct runner_plan *pl, char *err, size_t errlen)
{
	const struct sandbox_policy *sp = pl->policy;
	char res[PATH_MAX], top[PATH_MAX], hreal[PATH_MAX];
	const char *in, *fix, *home_real = NULL;
	struct stat st;
	size_t i;
	int e;

	/* No live bind (a runner's overlay, no readWrite, no home): the
	 * common start, which resolves nothing. */
	if (!plan_has_live_bind(pl))
		return 0;
	if (sp->home != NULL)
		home_real = realpath(sp->home, hreal);
	for (i = 0; i < pl->ndeny; i++) {
		in = deny_live_bind(pl, i, home_real, res, sizeof(res), top,
		    sizeof(top), &fix);
		if (in == NULL)
			continue;
		e = stat(pl->deny[i], &st) == -1 ? errno : 0;
		if (e == 0 && S_ISDIR(st.st_mode)) {
			plan_add_live_deny(pl, i, in, res, top);
			continue;
		}
		if (e == 0)
			snprintf(err, errlen, "denied path %s is not a "
			    "directory, in %s, bound live: one renamed over it "
			    "on the host would not be hidden; %s", pl->deny[i],
			    in, fix);
		else if (e == ENOENT || e == ENOTDIR)
			snprintf(err, errlen, "denied path %s is absent from "
			    "%s, bound live: a file made there later would not "
			    "be hidden; %s", pl->deny[i], in, fix);
		else
			snprintf(err, errlen, "denied path %s, in %s (bound "
			    "live): %s", pl->deny[i], in, strerror(e));
		return AL_ERR_PATH;
	}
	return 0;
}

/*
 * Watches each denied directory in a live bind (pl->live_deny, as
 * plan_deny_live() resolved it), and those between it and the bind's
 * top, for the host removing or moving it (runner/denywatch.h): the
 * masks made on them would go with them.  Before the clone, so that
 * nothing the host does after the masks are made goes unseen.  0, or
 * AL_ERR_SYSTEM with err: a sandbox that could not be watched does not
 * start.
 */
static int
deny_watch_start(struct runner_proc *p, char *err, size_t errlen)
{
	const struct plan_live_deny *d;
	size_t i;

	for (i = 0; i < p->plan.nlive_deny; i++) {
		d = &p->plan.live_deny[i];
		if (deny_watch_add(&p->deny_watch, d->res, d->top) != 0) {
			snprintf(err, errlen, "watch the denied path %s, in %s "
			    "(bound live): %s", d->path, d->bind,
			    strerror(errno));
			return AL_ERR_SYSTEM;
		}
	}
	return 0;
}

/*
 * Warns, once per process, when the kernel's landlock ABI |abi| leaves
 * out rules the runner would apply: a kernel without landlock, or with an
 * older ABI, is a weaker sandbox, and the user is told, not left to find
 * "landlock" missing from -v's layers.
 */
static void
warn_landlock_missing(int abi)
{
	static int warned;
	char what[256];

	if (warned || !runner_landlock_missing(abi, what, sizeof(what)))
		return;
	warned = 1;
	log_warnx("warning: %s (docs/SANDBOX.md, Landlock)", what);
}

static int
plan_init(struct runner_plan *pl, const struct runner_request *req,
    char *err, size_t errlen)
{
	const struct sandbox_policy *sp = req->policy;
	const char *home;
	size_t i;
	int rc;

	memset(pl, 0, sizeof(*pl));
	pl->argv = req->argv;
	pl->envp = req->envp;
	pl->policy = sp;
	pl->stdin_fd = req->stdin_fd;
	pl->keep_fds = req->keep_fds;
	pl->nkeep_fds = req->nkeep_fds;
	pl->use_proxy = req->use_proxy;
	pl->proxy_sock = req->use_proxy ? req->proxy_sock : -1;
	pl->upper_dir = req->upper_dir;
	pl->work_dir = req->work_dir;
	pl->upper_fd = req->upper_mnt ? req->upper_fd : -1;
	pl->netns_fd = -1;
	pl->session_userns = -1;
	pl->workspace_readonly = req->workspace_readonly;
	pl->live_workspace = req->live_workspace;
	pl->upper_durable = req->upper_durable;
	pl->lower_upper = req->lower_upper;
	if (pl->lower_upper != NULL &&
	    strpbrk(pl->lower_upper, ":,\\") != NULL) {
		snprintf(err, errlen, "%s: a layer's path cannot hold ':', "
		    "',' or '\\'", pl->lower_upper);
		return AL_ERR_PATH;
	}
	pl->view_sock = req->send_view ? req->view_sock : -1;
	if ((pl->workspace = realpath(req->workspace, NULL)) == NULL) {
		snprintf(err, errlen, "workspace %s: %s", req->workspace,
		    strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (strcmp(pl->workspace, "/") == 0) {
		snprintf(err, errlen, "the workspace cannot be /");
		return AL_ERR_PATH;
	}
	if (req->cwd != NULL && *req->cwd != '\0') {
		if (!rel_ok(req->cwd)) {
			snprintf(err, errlen, "cwd %s is not beneath the "
			    "workspace", req->cwd);
			return AL_ERR_PATH;
		}
		xasprintf(&pl->cwd, "%s/%s", pl->workspace, req->cwd);
	} else
		pl->cwd = xstrdup(pl->workspace);
	if (pl->lower_upper != NULL && (rc = plan_hooks(pl, err, errlen)) != 0)
		return rc;
	pl->deny = xcalloc(1, sizeof(*pl->deny));
	home = getenv("HOME");
	for (i = 0; i < sp->ndeny_read; i++) {
		const char *why;
		char *e, real[PATH_MAX];

		/* A path that masks nothing is refused, not skipped. */
		if ((why = sandbox_deny_read_path(sp->deny_read[i], home,
		    &e)) != NULL) {
			snprintf(err, errlen, "denied path %s: %s",
			    sp->deny_read[i], why);
			return AL_ERR_PATH;
		}
		if (through_rewritable_link(pl, e, real, sizeof(real))) {
			snprintf(err, errlen, "denied path %s leads through the "
			    "link %s, which a sandbox may rewrite: name the "
			    "path it leads to in sandbox.denyRead",
			    sp->deny_read[i], real);
			free(e);
			return AL_ERR_PATH;
		}
		deny_add(pl, e);
		/* The sandbox sees the workspace and binds by what they
		 * resolve to: a name through a link must reach them too. */
		if (realpath(e, real) != NULL && strcmp(real, e) != 0)
			deny_add(pl, xstrdup(real));
	}
	pl->extra_ro = xcalloc(sp->nread_only + 1, sizeof(*pl->extra_ro));
	for (i = 0; i < sp->nread_only; i++) {
		if (sp->read_only[i][0] != '/') {
			snprintf(err, errlen, "read-only path %s is not "
			    "absolute", sp->read_only[i]);
			return AL_ERR_PATH;
		}
		/* The base set is always bound: do not bind it twice. */
		if (!is_base_path(sp->read_only[i]))
			pl->extra_ro[pl->nextra_ro++] = sp->read_only[i];
	}
	/* An entry beneath another is visible through it already. */
	for (i = 0; i < pl->nextra_ro; i++) {
		size_t j;

		for (j = 0; j < pl->nextra_ro; j++)
			if (j != i && strcmp(pl->extra_ro[i],
			    pl->extra_ro[j]) != 0 &&
			    path_is_beneath(pl->extra_ro[i], pl->extra_ro[j]))
				break;
		if (j < pl->nextra_ro) {
			memmove(&pl->extra_ro[i], &pl->extra_ro[i + 1],
			    (pl->nextra_ro - i - 1) * sizeof(*pl->extra_ro));
			pl->nextra_ro--;
			i--;
		}
	}
	if (sp->nread_write > RUNNER_MAX_RW) {
		snprintf(err, errlen, "more than %d read-write paths",
		    RUNNER_MAX_RW);
		return AL_ERR_LIMIT;
	}
	for (i = 0; i < sp->nread_write; i++)
		if (sp->read_write[i][0] != '/') {
			snprintf(err, errlen, "read-write path %s is not "
			    "absolute", sp->read_write[i]);
			return AL_ERR_PATH;
		}
	for (i = 0; i < sp->nprotected; i++)
		if (!rel_ok(sp->protected[i])) {
			snprintf(err, errlen, "protected path %s is not "
			    "workspace-relative", sp->protected[i]);
			return AL_ERR_PATH;
		}
	if ((rc = plan_binds(pl, err, errlen)) != 0)
		return rc;
	if ((rc = plan_vcs_stores(pl, err, errlen)) != 0)
		return rc;
	if ((rc = plan_deny_links(pl, err, errlen)) != 0)
		return rc;
	if ((rc = plan_deny_live(pl, err, errlen)) != 0)
		return rc;
	pl->landlock_abi = sp->landlock ? runner_landlock_abi() : 0;
	if (sp->landlock)
		warn_landlock_missing(pl->landlock_abi);
	pl->cap_last = cap_last();
	plan_user_caps(pl, req);
	pl->root = geteuid() == 0;
	pl->uid = pl->root ? sp->uid : geteuid();
	pl->gid = pl->root ? sp->gid : getegid();
	if (pl->root && (pl->uid == 0 || pl->gid == 0)) {
		snprintf(err, errlen, "the runner uid/gid must not be 0");
		return AL_ERR_DENIED;
	}
	if (pl->root && runner_is_proxy_uid(pl->uid, pl->gid, err, errlen))
		return AL_ERR_DENIED;
	if (pl->root && session_nested &&
	    (pl->session_userns = session_userns(pl)) == -1) {
		snprintf(err, errlen, "cannot make the session's user "
		    "namespace for uid %u", (unsigned)pl->uid);
		return AL_ERR_SYSTEM;
	}
	/*
	 * As root, the runner's uid does not own the workspace: an idmapped
	 * mount shows the owner's files as the runner's, and what the runner
	 * writes lands on disk as the owner's.  No file changes owner.
	 */
	if (pl->root) {
		struct stat st;

		/* Made after clone() and sent to the child (runner_start()). */
		if (stat(pl->workspace, &st) == 0 &&
		    (st.st_uid != pl->uid || st.st_gid != pl->gid)) {
			pl->idmap_later = 1;
			pl->idmap_uid = st.st_uid;
			pl->idmap_gid = st.st_gid;
		}
	}
	return 0;
}

static char idmap_stack[16 * 1024] __attribute__((aligned(16)));
/* The last holder, until it is reaped (idmap_reap()); -1: none. */
static pid_t idmap_holder_pid = -1;
/*
 * Its pipe.  Static, as its stack is: the holder shares our memory and
 * may first run after runner_idmap_userns() has returned, when a pipe on
 * that function's stack would be whatever was written there since (a
 * descriptor number it then read from: the run's audit writer's answer,
 * a client's request).  Reused only after idmap_reap().
 */
static int idmap_pipe[2] = { -1, -1 };

/* Reaps the last holder. */
static void
idmap_reap(void)
{
	holder_reap(&idmap_holder_pid);
}

/*
 * Shares our memory (not our descriptors): closes its copy of the write
 * end, blocks until ours closes, then exits.
 */
static int
idmap_holder(void *arg)
{
	char c;

	(void)arg;
	close(idmap_pipe[1]);
	(void)!read(idmap_pipe[0], &c, 1);
	return 0;
}

struct idmap_cache {
	uid_t	from_uid, to_uid;
	gid_t	from_gid, to_gid;
	int	fd;
};

int
runner_idmap_userns(uid_t from_uid, gid_t from_gid, uid_t to_uid,
    gid_t to_gid)
{
	static struct idmap_cache cache[8];
	static size_t ncache;
	char path[64], map[64];
	int fd, ok;
	size_t i;
	pid_t pid;

	for (i = 0; i < ncache; i++)
		if (cache[i].from_uid == from_uid && cache[i].to_uid == to_uid &&
		    cache[i].from_gid == from_gid && cache[i].to_gid == to_gid)
			return cache[i].fd;
	/* Valgrind cannot follow this clone(); runners fail closed there. */
	if (RUNNING_ON_VALGRIND)
		return -1;
	/* The last holder is gone before its pipe is made again. */
	idmap_reap();
	if (pipe2(idmap_pipe, O_CLOEXEC) == -1)
		return -1;
	/*
	 * A child born in the new user namespace that only holds it while we
	 * map it: clone(CLONE_NEWUSER | CLONE_VM) on a small stack of its
	 * own, so there is no copy of our page tables and no waiting for an
	 * unshare() to happen.
	 */
	pid = clone(idmap_holder, idmap_stack + sizeof(idmap_stack),
	    CLONE_NEWUSER | CLONE_VM | SIGCHLD, NULL);
	if (pid == -1) {
		close(idmap_pipe[0]);
		close(idmap_pipe[1]);
		return -1;
	}
	/* Our copy of the read end only: the holder has its own. */
	close(idmap_pipe[0]);
	/* The idmapping: on-disk id (inside) -> the id the runner has. */
	ok = 1;
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)from_uid,
	    (unsigned)to_uid);
	ok &= write_file(path, map);
	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
	ok &= write_file(path, "deny");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)from_gid,
	    (unsigned)to_gid);
	ok &= write_file(path, map);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	fd = ok ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	/*
	 * It exits now, and is reaped once the run is under way (or before
	 * its stack is used again): waiting here would put its exit, and
	 * the wait for a CPU to run it on, on the way to the sandbox.
	 */
	close(idmap_pipe[1]);
	idmap_holder_pid = pid;
	if (fd != -1 && ncache < sizeof(cache) / sizeof(cache[0])) {
		cache[ncache].from_uid = from_uid;
		cache[ncache].from_gid = from_gid;
		cache[ncache].to_uid = to_uid;
		cache[ncache].to_gid = to_gid;
		cache[ncache++].fd = fd;
	}
	return fd;
}

static int
write_file(const char *path, const char *text)
{
	int fd, ok;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return 0;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

static void
closefd(int *fd)
{
	if (*fd != -1)
		close(*fd);
	*fd = -1;
}

static void
proc_free(struct runner_proc *p)
{
	closefd(&p->out.fd);
	closefd(&p->err.fd);
	closefd(&p->pidfd);
	closefd(&p->epfd);
	closefd(&p->report_fd);
	closefd(&p->sync_fd);
	closefd(&p->kmsg_fd);
	closefd(&p->notify_fd);
	deny_watch_free(p->deny_watch);
	free(p->denials);
	free(p->out.buf);
	free(p->err.buf);
	if (p->lines != NULL)
		free(p->lines->last);
	free(p->lines);
	runner_cgroup_destroy(p->cg, p->req->cgroup_left, p->req->cgroup_left_arg);
	plan_free(&p->plan);
	free(p);
}

/*
 * 1 if a cgroup limit asked for (lim->asked) is not among |enforced|,
 * with a message naming each in |msg|.
 */
static int
limits_unenforced(const struct resource_limits *lim, unsigned enforced,
    char *msg, size_t len)
{
	unsigned missing = lim->asked & ~enforced;
	size_t off;

	if (lim->memory_mb <= 0)
		missing &= ~LIMIT_ASKED_MEMORY;
	if (lim->processes <= 0)
		missing &= ~LIMIT_ASKED_PIDS;
	if (lim->cpu_percent <= 0)
		missing &= ~LIMIT_ASKED_CPU;
	if (missing == 0)
		return 0;
	off = (size_t)snprintf(msg, len, "cannot enforce");
	if ((missing & LIMIT_ASKED_MEMORY) && off < len)
		off += (size_t)snprintf(msg + off, len - off, " memory=%lld MB",
		    (long long)lim->memory_mb);
	if ((missing & LIMIT_ASKED_PIDS) && off < len)
		off += (size_t)snprintf(msg + off, len - off, " processes=%lld",
		    (long long)lim->processes);
	if ((missing & LIMIT_ASKED_CPU) && off < len)
		off += (size_t)snprintf(msg + off, len - off, " cpu=%lld%%",
		    (long long)lim->cpu_percent);
	if (off < len)
		snprintf(msg + off, len - off, ": no cgroup controller is "
		    "delegated to uid %d", (int)geteuid());
	return 1;
}

/*
 * The limits |enforced| left out: a warning, or (limits.enforce:
 * required) a refusal to start, in err.  0 or AL_ERR_UNSUPPORTED.
 */
static int
limits_check(struct runner_proc *p, const struct resource_limits *lim,
    unsigned enforced, char *err, size_t errlen)
{
	if (!limits_unenforced(lim, enforced, p->warning, sizeof(p->warning)))
		return 0;
	if (!lim->best_effort) {
		snprintf(err, errlen, "%s; refusing to start "
		    "(limits.enforce: required).  Run airlock in a "
		    "cgroup delegated to it (a systemd unit with "
		    "Delegate=yes: see docs/SANDBOX.md), or set "
		    "limits.enforce: best-effort", p->warning);
		return AL_ERR_UNSUPPORTED;
	}
	log_warnx("warning: %s; running without (limits.enforce: "
	    "best-effort)", p->warning);
	return 0;
}

/*
 * Makes the cgroup of a child that joins it itself (plan.cg_join) and
 * sends it, on |sync|, the file of each v1 cgroup ("C" with the
 * descriptor), then "c": the child writes "0" to each before it reads
 * the seccomp program (child.c).  0, or an error in err (the caller
 * kills the child).
 */
static int
cgroup_for_child(struct runner_proc *p, int sync,
    const struct resource_limits *lim, char *err, size_t errlen)
{
	unsigned enforced;
	int fds[8], rc;
	size_t n, i;

	p->cg = runner_cgroup_create(lim, &enforced, p->req->cgroup_ready);
	if ((rc = limits_check(p, lim, enforced, err, errlen)) != 0)
		return rc;
	if ((n = runner_cgroup_join_fds(p->cg, fds, 8)) == (size_t)-1) {
		snprintf(err, errlen, "opening the runner's cgroup: %s",
		    strerror(errno));
		return AL_ERR_SYSTEM;
	}
	rc = 0;
	for (i = 0; i < n; i++) {
		if (rc == 0 && proxy_send_fd(sync, fds[i], "C", 1) != 0)
			rc = AL_ERR_SYSTEM;
		close(fds[i]);
	}
	if (rc == 0 && proxy_send_fd(sync, -1, "c", 1) != 0)
		rc = AL_ERR_SYSTEM;
	/* A child that died already says why itself. */
	if (rc != 0 && errno != EPIPE) {
		snprintf(err, errlen, "sending the runner's cgroup: %s",
		    strerror(errno));
		return rc;
	}
	return 0;
}

int
runner_start(const struct runner_request *req, struct runner_proc **out,
    char *err, size_t errlen)
{
	struct runner_proc *p;
	struct runner_netns netns = { .started = 0, .fd = -1 };
	struct epoll_event ev;
	int syncp[2] = { -1, -1 }, repp[2] = { -1, -1 };
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	const struct sock_fprog *bpf;
	struct sock_fprog *own_bpf = NULL;
	const char *env;
	uint32_t len;
	int pidfd = -1, rc, e, placed = 0;
	unsigned enforced;
	long pid;

	*out = NULL;
	if (errlen > 0)
		err[0] = '\0';
	if (req->argv == NULL || req->argv[0] == NULL || req->policy == NULL ||
	    req->workspace == NULL) {
		snprintf(err, errlen, "incomplete runner request");
		return AL_ERR_INTERNAL;
	}
	p = xcalloc(1, sizeof(*p));
	p->req = req;
	p->pidfd = p->epfd = p->report_fd = p->sync_fd = p->kmsg_fd = -1;
	p->notify_fd = -1;
	p->native_arch = seccomp_arch_native();
	p->out.fd = p->err.fd = -1;
	p->cap = req->output_cap > 0 ? req->output_cap : RUNNER_DEFAULT_CAP;
	p->start = now_monotonic_ms();
	p->plan.netns_fd = -1;
	/*
	 * As root the child joins a network namespace a thread makes while
	 * we work out the plan and the cgroups (netns.c); an unprivileged
	 * child could not join it, and gets one from clone().
	 */
	if (geteuid() == 0 && !req->netns_ahead)
		runner_netns_begin(&netns);
	if ((rc = plan_init(&p->plan, req, err, errlen)) != 0 ||
	    (rc = deny_watch_start(p, err, errlen)) != 0)
		goto fail;
	/* A one-run widening is checked before anything starts. */
	if ((rc = runner_seccomp_check_allow((const char *const *)
	    req->allow_syscalls, req->nallow_syscalls, err, errlen)) != 0)
		goto fail;
	/* The child polls its end of this pair to see the parent alive. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, syncp) == -1 ||
	    pipe2(repp, O_CLOEXEC) == -1 ||
	    (!req->passthrough && pipe2(outp, O_CLOEXEC) == -1) ||
	    ((!req->passthrough || req->scan_stderr) &&
	    pipe2(errp, O_CLOEXEC) == -1)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		rc = AL_ERR_SYSTEM;
		goto fail;
	}
	p->plan.sync_fd = syncp[0];
	p->plan.report_fd = repp[1];
	p->plan.out_fd = req->passthrough ? 1 : outp[1];
	/* A scanned stderr comes through us even when it is the caller's:
	 * passed on as it comes, read for the paths refusals name. */
	p->plan.err_fd = req->passthrough && !req->scan_stderr ? 2 : errp[1];

	/*
	 * The cgroup exists before the child does (v2: it is born in it, or
	 * we move it in while it builds its root: see below); or, on v1, we
	 * make it while the child builds its root and the child joins it
	 * itself (runner/cgroup.c).
	 */
	p->plan.cg_join = runner_cgroup_joined_by_child();
	if (!p->plan.cg_join) {
		p->cg = runner_cgroup_create(
		    &req->policy->limits, &enforced, req->cgroup_ready);
		if ((rc = limits_check(p, &req->policy->limits, enforced, err,
		    errlen)) != 0)
			goto fail;
	}

	/*
	 * A raw clone: fork semantics plus the namespaces, and a pidfd; on
	 * cgroup v2 the child is born in its cgroup (runner/cgroup.c).
	 */
	if (p->plan.root)
		p->plan.netns_fd = req->netns_ahead ?
		    runner_netns_ahead(req->netns_fd) :
		    runner_netns_end(&netns);
	pid = runner_cgroup_clone(p->cg, (RUNNER_NS_FLAGS &
	    ~(p->plan.netns_fd != -1 ? CLONE_NEWNET : 0)) | SIGCHLD |
	    (p->plan.root ? 0 : CLONE_NEWUSER), &pidfd, &placed);
	if (pid == -1) {
		snprintf(err, errlen, "clone: %s", strerror(errno));
		rc = errno == EINVAL || errno == EPERM ?
		    AL_ERR_UNSUPPORTED : AL_ERR_SYSTEM;
		goto fail;
	}
	if (pid == 0) {
		close(syncp[1]);
		close(repp[0]);
		if (outp[0] != -1)
			close(outp[0]);
		if (errp[0] != -1)
			close(errp[0]);
		runner_child(&p->plan);
	}
	p->pid = pid;
	p->pidfd = pidfd;
	closefd(&p->plan.netns_fd);
	/*
	 * Its pid namespace, now, before the seccomp program is sent: the
	 * child waits for the program before it changes its credentials or
	 * makes itself non-dumpable (child.c), after which a parent without
	 * CAP_SYS_PTRACE could no longer read its /proc/PID/ns.
	 */
	{
		char nspath[64];

		snprintf(nspath, sizeof(nspath), "/proc/%d/ns/pid", (int)pid);
		p->pidns_ok = stat(nspath, &p->pidns) == 0;
		if (req->mntns_out != NULL) {
			snprintf(nspath, sizeof(nspath), "/proc/%d/ns/mnt",
			    (int)pid);
			*req->mntns_out = open(nspath, O_RDONLY | O_CLOEXEC);
		}
	}
	/*
	 * The user namespace of its idmapped workspace, while it builds the
	 * rest of its root: it waits for it there (a clone and three writes
	 * of id maps, 0.17 ms here, on the way to clone() before).  No
	 * namespace ("I" alone): the runner keeps the owner's permissions.
	 */
	if (p->plan.idmap_later &&
	    proxy_send_fd(syncp[1], runner_idmap_userns(p->plan.idmap_uid,
	    p->plan.idmap_gid, p->plan.uid, p->plan.gid), "I", 1) != 0 &&
	    errno != EPIPE) {
		snprintf(err, errlen, "sending the workspace's id map: %s",
		    strerror(errno));
		rc = AL_ERR_SYSTEM;
		goto kill;
	}
	/* Its cgroup, while it builds its root, and the files to join it. */
	if (p->plan.cg_join &&
	    (rc = cgroup_for_child(p, syncp[1], &req->policy->limits, err,
	    errlen)) != 0)
		goto kill;
	/*
	 * Into its cgroup, while it builds its root: a cgroup v1 attach
	 * waits for an RCU grace period (milliseconds), which overlaps with
	 * the child's work instead of adding to it.  The child cannot run
	 * the command before this is done: it waits for the seccomp program,
	 * which is sent after.
	 */
	if (p->cg != NULL && !placed && !p->plan.cg_join &&
	    runner_cgroup_attach(p->cg, (pid_t)pid) != 0) {
		snprintf(err, errlen, "joining the runner's cgroup: %s",
		    strerror(errno));
		rc = AL_ERR_SYSTEM;
		goto kill;
	}
	/*
	 * The caller's last word, while the child builds its root: nothing
	 * of the command's may run unless it agrees.  The child cannot: it
	 * waits for the seccomp program, which is sent after.
	 */
	if (req->gate != NULL && req->gate(req->gate_arg, err, errlen) != 0) {
		if (errlen > 0 && err[0] == '\0')
			snprintf(err, errlen, "the run was refused before the "
			    "command started");
		rc = AL_ERR_SYSTEM;
		goto kill;
	}
	/*
	 * The seccomp program goes to the child over the socket while it
	 * builds its root: compiling it (once per process) overlaps with
	 * the child's work instead of delaying clone().
	 */
	if (req->nallow_syscalls > 0)
		bpf = own_bpf = runner_seccomp_program_allowing(req->policy,
		    (const char *const *)req->allow_syscalls,
		    req->nallow_syscalls, err, errlen);
	else
		bpf = runner_seccomp_program(req->policy, err, errlen);
	if (bpf == NULL) {
		rc = AL_ERR_INTERNAL;
		goto kill;
	}
	/*
	 * Refusals are user notifications we answer (see child.c), unless
	 * AIRLOCK_SECCOMP_NOTIFY=off (plain EPERM, nothing recorded: for
	 * measuring the difference, and for kernels that misbehave).
	 */
	len = bpf->len;
	if ((env = getenv("AIRLOCK_SECCOMP_NOTIFY")) == NULL ||
	    strcmp(env, "off") != 0)
		len |= RUNNER_SECCOMP_NOTIFY;
	if (send(syncp[1], &len, sizeof(len), MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(len) ||
	    send(syncp[1], bpf->filter, bpf->len * sizeof(*bpf->filter),
	    MSG_NOSIGNAL) != (ssize_t)(bpf->len * sizeof(*bpf->filter))) {
		if (errno != EPIPE) {
			snprintf(err, errlen, "sending the seccomp program: "
			    "%s", strerror(errno));
			rc = AL_ERR_SYSTEM;
			goto kill;
		}
	}
	runner_seccomp_program_free(own_bpf);
	own_bpf = NULL;
	idmap_reap();
	session_reap();
	/* While the child builds its root: the end reads them. */
	runner_cgroup_watch(p->cg);
	/* Where the kernel log stands now, to explain a seccomp kill. */
	if (p->plan.root && (p->kmsg_fd = open("/dev/kmsg",
	    O_RDONLY | O_NONBLOCK | O_CLOEXEC)) != -1)
		(void)lseek(p->kmsg_fd, 0, SEEK_END);
	p->sync_fd = syncp[1];
	p->report_fd = repp[0];
	p->out.fd = outp[0];
	p->err.fd = errp[0];
	close(syncp[0]);
	close(repp[1]);
	if (outp[1] != -1)
		close(outp[1]);
	if (errp[1] != -1)
		close(errp[1]);
	syncp[0] = syncp[1] = repp[0] = repp[1] = -1;
	outp[0] = outp[1] = errp[0] = errp[1] = -1;

	p->layers = RUNNER_BASE_LAYERS;
	if (p->plan.landlock_abi > 0)
		p->layers |= RUNNER_LAYER_LANDLOCK;
	if (p->cg != NULL)
		p->layers |= RUNNER_LAYER_CGROUP;

	if ((p->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		snprintf(err, errlen, "epoll_create1: %s", strerror(errno));
		rc = AL_ERR_SYSTEM;
		goto kill;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = p->pidfd;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->pidfd, &ev) == -1)
		goto epollfail;
	/* The seccomp listener comes back on it. */
	ev.data.fd = p->sync_fd;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->sync_fd, &ev) == -1)
		goto epollfail;
	/* A setup failure, or the command's status as soon as it ends. */
	ev.data.fd = p->report_fd;
	if (fd_set_nonblock(p->report_fd, 1) != 0 ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->report_fd, &ev) == -1)
		goto epollfail;
	if (p->out.fd != -1) {
		ev.data.fd = p->out.fd;
		if (fd_set_nonblock(p->out.fd, 1) != 0 ||
		    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->out.fd, &ev) == -1)
			goto epollfail;
	}
	ev.data.fd = p->err.fd;
	if (p->err.fd != -1 && (fd_set_nonblock(p->err.fd, 1) != 0 ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->err.fd, &ev) == -1))
		goto epollfail;
	if (p->deny_watch != NULL) {
		ev.data.fd = deny_watch_fd(p->deny_watch);
		if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev) == -1)
			goto epollfail;
	}
	p->deadline = req->timeout_ms > 0 ? p->start + req->timeout_ms :
	    INT64_MAX;
	*out = p;
	return 0;

epollfail:
	snprintf(err, errlen, "epoll_ctl: %s", strerror(errno));
	rc = AL_ERR_SYSTEM;
kill:
	e = errno;
	syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
	while (waitid(P_PIDFD, p->pidfd, &p->si, WEXITED) == -1 &&
	    errno == EINTR)
		;
	errno = e;
fail:
	idmap_reap();
	session_reap();
	if (netns.started)
		(void)close(runner_netns_end(&netns));
	closefd(&p->plan.netns_fd);
	runner_seccomp_program_free(own_bpf);
	closefd(&syncp[0]);
	closefd(&syncp[1]);
	closefd(&repp[0]);
	closefd(&repp[1]);
	closefd(&outp[0]);
	closefd(&outp[1]);
	closefd(&errp[0]);
	closefd(&errp[1]);
	proc_free(p);
	return rc;
}

int
runner_proc_fd(const struct runner_proc *p)
{
	return p->epfd;
}

pid_t
runner_proc_pid(const struct runner_proc *p)
{
	return p->pid;
}

int
runner_proc_pidns(const struct runner_proc *p, dev_t *dev, ino_t *ino)
{
	if (!p->pidns_ok)
		return -1;
	*dev = p->pidns.st_dev;
	*ino = p->pidns.st_ino;
	return 0;
}

int64_t
runner_proc_deadline(const struct runner_proc *p)
{
	return p->reaped ? INT64_MAX : p->deadline;
}

/* Bytes of a passed-through stderr kept for runner_fs_denials(). */
#define RUNNER_SCAN_CAP	(64 * 1024)

/* Passes the command's stderr on to ours (the caller's). */
static void
err_tee(const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(2, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* Keeps data[0..n) of |s| while under the cap, drops the rest. */
static void
stream_keep(struct runner_proc *p, struct stream *s, const char *data,
    size_t n)
{
	size_t keep, used = p->out.len + p->err.len;

	keep = used >= p->cap ? 0 : p->cap - used;
	if (keep > n)
		keep = n;
	if (keep < n)
		p->truncated = 1;
	if (keep > 0) {
		s->buf = xreallocarray(s->buf, s->len + keep + 1, 1);
		memcpy(s->buf + s->len, data, keep);
		s->len += keep;
		s->buf[s->len] = '\0';
	}
}

/*
 * The line's NAME has ended: whether its line is kept, asking
 * req->line_keep() once for each run of lines of one NAME; the NAME
 * goes to the cap when kept, or once as a line of its own ("NAME NUL
 * NL") for an answer of 2.
 */
static void
lines_named(struct runner_proc *p, struct lines *ln)
{
	int fresh, full;

	ln->body = 1;
	ln->keep = 0;
	if (ln->cut || ln->nlen >= sizeof(ln->name)) {
		ln->cut = 0;
		return;
	}
	ln->name[ln->nlen] = '\0';
	fresh = ln->last == NULL || strcmp(ln->last, ln->name) != 0;
	/*
	 * Past the cap, or past the NAMEs shown, nothing more is kept: the
	 * output is truncated at the first NAME that would have been (one
	 * whose lines are dropped tells nothing), and then no more NAMEs
	 * are asked about (each may mean reading a file).
	 */
	full = p->out.len + p->err.len >= p->cap ||
	    (p->req->line_names_max > 0 &&
	    ln->names >= p->req->line_names_max);
	if (fresh && full && p->truncated)
		return;
	if (fresh) {
		free(ln->last);
		ln->last = xstrdup(ln->name);
		ln->verdict = p->req->line_keep(p->req->line_arg, ln->name);
		if (full) {
			p->truncated |= ln->verdict != 0;
			ln->verdict = 0;
			return;
		}
		ln->names += ln->verdict != 0;
	}
	if (ln->verdict == 1) {
		ln->keep = 1;
		stream_keep(p, &p->out, ln->name, ln->nlen + 1);
	} else if (ln->verdict == 2 && fresh) {
		stream_keep(p, &p->out, ln->name, ln->nlen + 1);
		stream_keep(p, &p->out, "\n", 1);
	}
}

/*
 * Feeds stdout's data[0..n) through req->line_keep(): the lines it does
 * not keep are not kept, nor counted against the cap.
 */
static void
lines_feed(struct runner_proc *p, const char *data, size_t n)
{
	struct lines *ln = p->lines;
	const char *e;
	size_t i = 0, k;

	while (i < n) {
		if (ln->body) {
			e = memchr(data + i, '\n', n - i);
			k = e != NULL ? (size_t)(e - (data + i)) + 1 : n - i;
			if (ln->keep)
				stream_keep(p, &p->out, data + i, k);
			i += k;
			if (e != NULL)
				ln->body = ln->keep = 0, ln->nlen = 0;
			continue;
		}
		if (data[i] == '\0')
			lines_named(p, ln);
		else if (data[i] == '\n') {
			/* No NAME's end: a NAME holding a newline, whose
			 * last piece may name another file. */
			ln->cut = 1;
			ln->nlen = 0;
		} else {
			if (ln->nlen < sizeof(ln->name))
				ln->name[ln->nlen] = data[i];
			if (ln->nlen <= sizeof(ln->name))
				ln->nlen++;
		}
		i++;
	}
}

/*
 * Reads what |s| has; keeps it while under the cap, drops the rest.  A
 * passed-through stderr is written on as it comes, its head kept.
 */
static void
stream_read(struct runner_proc *p, struct stream *s)
{
	char tmp[16384];
	size_t keep;
	ssize_t n;

	while (s->fd != -1) {
		n = read(s->fd, tmp, sizeof(tmp));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0) {
			epoll_ctl(p->epfd, EPOLL_CTL_DEL, s->fd, NULL);
			closefd(&s->fd);
			return;
		}
		if (s == &p->err && p->req->passthrough) {
			err_tee(tmp, (size_t)n);
			keep = s->len >= RUNNER_SCAN_CAP ? 0 :
			    RUNNER_SCAN_CAP - s->len;
			if (keep > (size_t)n)
				keep = n;
			if (keep > 0) {
				s->buf = xreallocarray(s->buf, s->len + keep +
				    1, 1);
				memcpy(s->buf + s->len, tmp, keep);
				s->len += keep;
				s->buf[s->len] = '\0';
			}
			continue;
		}
		if (s == &p->out && p->req->line_keep != NULL) {
			if (p->lines == NULL)
				p->lines = xcalloc(1, sizeof(*p->lines));
			lines_feed(p, tmp, (size_t)n);
		} else
			stream_keep(p, s, tmp, (size_t)n);
	}
}

static void
reap(struct runner_proc *p)
{
	siginfo_t si;

	if (p->reaped)
		return;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, p->pidfd, &si, WEXITED | WNOHANG) == 0 &&
	    si.si_pid != 0) {
		p->si = si;
		p->reaped = 1;
		epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->pidfd, NULL);
	}
}

void
runner_proc_kill(struct runner_proc *p)
{
	if (p->reaped)
		return;
	/* The namespace's init takes every process in it along. */
	syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
	runner_cgroup_kill(p->cg);
}

/* The run's denial list, allocated on first use. */
static struct runner_denial *
denials(struct runner_proc *p)
{
	if (p->denials == NULL)
		p->denials = xcalloc(RUNNER_DENIALS_MAX, sizeof(*p->denials));
	return p->denials;
}

/* The child's message on sync_fd: the seccomp listener, or a hang-up. */
static void
sync_read(struct runner_proc *p)
{
	struct epoll_event ev;
	char msg[1];
	size_t len = 0;
	int fd = -1, rc;

	rc = proxy_recv_fd(p->sync_fd, &fd, msg, sizeof(msg), &len);
	if (rc == 1 && fd != -1 && len == 1 && msg[0] == 'N' &&
	    p->notify_fd == -1) {
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.fd = fd;
		if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) == 0) {
			p->notify_fd = fd;
			fd = -1;
		}
	}
	if (fd != -1)
		close(fd);
	/* One message only: nothing else is read from the child. */
	epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->sync_fd, NULL);
	if (p->notify_fd == -1 && rc == 1)
		log_debug("runner: no seccomp listener; refused calls are "
		    "not recorded");
}

/*
 * Answers the pending seccomp notifications: every one is a call the
 * policy refuses with EPERM (only those were turned into notifications),
 * so each gets exactly EPERM back, never "continue", and is recorded.
 * RECV after a readable poll cannot block: a call withdrawn meanwhile
 * (its caller was killed) makes it fail with ENOENT instead.
 */
static void
notify_read(struct runner_proc *p)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct pollfd pfd;
	char *name, other[32];
	int i;

	for (i = 0; i < 64 && p->notify_fd != -1; i++) {
		pfd.fd = p->notify_fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, 0) <= 0)
			return;
		if (!(pfd.revents & POLLIN)) {
			/* Every process under the filter is gone. */
			if (pfd.revents & (POLLHUP | POLLERR)) {
				epoll_ctl(p->epfd, EPOLL_CTL_DEL,
				    p->notify_fd, NULL);
				closefd(&p->notify_fd);
			}
			return;
		}
		memset(&req, 0, sizeof(req));
		if (ioctl(p->notify_fd, SECCOMP_IOCTL_NOTIF_RECV, &req) == -1)
			continue;	/* ENOENT: withdrawn; EINTR */
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.error = -EPERM;
		(void)ioctl(p->notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		name = syscalls_name(req.data.arch, req.data.nr);
		if (req.data.arch != p->native_arch || name == NULL) {
			snprintf(other, sizeof(other), "%s%d",
			    req.data.arch != p->native_arch ? "foreign:" :
			    "nr:", req.data.nr);
			(void)runner_denial_add_syscall(denials(p),
			    &p->ndenials, "seccomp", other, req.data.nr);
		} else
			(void)runner_denial_add_syscall(denials(p),
			    &p->ndenials, "seccomp", name, req.data.nr);
		free(name);
	}
}

/*
 * Whether the run may have met a sandbox denial by the time its command
 * ended (|status|): one recorded already (seccomp's), anything on its
 * stderr, from which runner_proc_finish() reads the filesystem and
 * rlimit refusals (what the pipe still holds is read first: the command
 * wrote it before it ended), a signal or a shell's 128 + N (the
 * rlimits'), a cgroup limit hit, or another process of the sandbox
 * still running ("w": one the command left behind, whose denial may come
 * after this, until the init's exit kills it).  A run that may have is not
 * reported early (runner_request.on_status): its denials are known only
 * once it is finished, and airlock exec records them before exec_end.
 */
static int
may_have_denied(struct runner_proc *p, int status)
{
	if (p->ndenials > 0 || p->report[0] != 'W')
		return 1;
	stream_read(p, &p->err);
	if (p->err.len > 0)
		return 1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) >= 128)
		return 1;
	return runner_cgroup_limit_hit(p->cg) != 0;
}

/*
 * Reads what the child or the init wrote on report_fd: a setup failure
 * ("E" and the reason), or the command's wait status ("W" and an int, one
 * write, the last thing the init does before it exits; "w" when another
 * process was left in the sandbox then).  The status goes
 * to req->on_status at once: the command has ended, and the caller may
 * record it while the namespace is torn down.
 */
static void
report_read(struct runner_proc *p)
{
	ssize_t n;
	int status;

	while (p->report_fd != -1) {
		n = read(p->report_fd, p->report + p->report_len,
		    sizeof(p->report) - 1 - p->report_len);
		if (n > 0) {
			p->report_len += (size_t)n;
			if (p->report_len < sizeof(p->report) - 1)
				continue;
		} else if (n == -1 && errno == EINTR)
			continue;
		else if (n == -1 && errno == EAGAIN)
			break;
		/* The end (every writer gone), an error, or full. */
		epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->report_fd, NULL);
		closefd(&p->report_fd);
	}
	if (p->ended || p->report_len != 1 + sizeof(int) ||
	    (p->report[0] != 'W' && p->report[0] != 'w'))
		return;
	memcpy(&status, p->report + 1, sizeof(status));
	p->ended = 1;
	/* It ended in time: the deadline no longer applies. */
	p->deadline = INT64_MAX;
	if (p->req->on_status != NULL && !may_have_denied(p, status))
		p->req->on_status(p->req->status_arg, status);
}

/*
 * The host removed or moved a watched denied directory (denywatch.h):
 * what it makes at its name next would be shown, so the whole sandbox
 * is killed at once, and the result says why.
 */
static void
deny_watch_event(struct runner_proc *p)
{
	const char *hit;

	if ((hit = deny_watch_read(p->deny_watch)) == NULL ||
	    p->unmasked != NULL)
		return;
	p->unmasked = hit;
	runner_proc_kill(p);
}

int
runner_proc_step(struct runner_proc *p)
{
	struct epoll_event ev[8];
	int n, i;

	n = epoll_wait(p->epfd, ev, 8, 0);
	for (i = 0; i < n; i++) {
		if (ev[i].data.fd == p->out.fd)
			stream_read(p, &p->out);
		else if (ev[i].data.fd == p->err.fd)
			stream_read(p, &p->err);
		else if (ev[i].data.fd == p->pidfd)
			reap(p);
		else if (ev[i].data.fd == p->sync_fd)
			sync_read(p);
		else if (p->report_fd != -1 && ev[i].data.fd == p->report_fd)
			report_read(p);
		else if (p->notify_fd != -1 && ev[i].data.fd == p->notify_fd)
			notify_read(p);
		else if (p->deny_watch != NULL &&
		    ev[i].data.fd == deny_watch_fd(p->deny_watch))
			deny_watch_event(p);
	}
	if (!p->reaped && now_monotonic_ms() >= p->deadline) {
		p->timed_out = 1;
		runner_proc_kill(p);
		p->deadline = INT64_MAX;
	}
	if (!p->reaped)
		return 0;
	/* Every writer died with the namespace: what is left is buffered. */
	stream_read(p, &p->out);
	stream_read(p, &p->err);
	closefd(&p->out.fd);
	closefd(&p->err.fd);
	return 1;
}

void
runner_proc_peek(const struct runner_proc *p, const char **out,
    size_t *outlen, const char **err, size_t *errlen)
{
	*out = p->out.buf;
	*outlen = p->out.len;
	*err = p->err.buf;
	*errlen = p->err.len;
}

static const char *
errno_hint(const char *err)
{
	if (err == NULL)
		return NULL;
	if (strstr(err, "Read-only file system") != NULL)
		return "EROFS: only the workspace and /tmp are writable; "
		    ".git and protected paths are read-only";
	if (strstr(err, "Operation not permitted") != NULL)
		return "EPERM: seccomp, missing capabilities or landlock "
		    "refused a call";
	if (strstr(err, "Permission denied") != NULL)
		return "EACCES: landlock, the runner uid or a denied path";
	if (strstr(err, "Network is unreachable") != NULL)
		return "no network: the runner has an empty network namespace";
	if (strstr(err, "Resource temporarily unavailable") != NULL)
		return "EAGAIN: the process limit (RLIMIT_NPROC/pids.max) "
		    "may have been reached";
	if (strstr(err, "File too large") != NULL ||
	    strstr(err, "No space left on device") != NULL)
		return "file size limit or the size of /tmp";
	return NULL;
}

static void
make_hint(struct runner_proc *p, struct runner_result *res, int limit)
{
	const struct resource_limits *l = &p->req->policy->limits;
	char why[200];
	const char *s = NULL;

	why[0] = '\0';
	if (res->unmasked[0] != '\0')
		snprintf(why, sizeof(why), "the host removed or moved the "
		    "denied directory %.64s, which its mask went with: the "
		    "whole process tree was killed", res->unmasked);
	else if (res->timed_out)
		snprintf(why, sizeof(why), "wall-clock limit of %lld ms "
		    "reached; the whole process tree was killed%s",
		    (long long)p->req->timeout_ms, limit == 2 ?
		    "; the process limit was hit too (a fork bomb?)" : "");
	else if (limit == 1)
		snprintf(why, sizeof(why), "memory limit of %lld MB reached "
		    "(cgroup)", (long long)l->memory_mb);
	else if (res->signal == SIGSYS) {
		struct runner_denial d;
		char call[96];

		memset(&d, 0, sizeof(d));
		if (runner_seccomp_culprit(p->kmsg_fd, p->plan.uid, p->pid,
		    call, sizeof(call), &d) == 0) {
			snprintf(why, sizeof(why), "seccomp killed the "
			    "process: %s", call);
			(void)runner_denial_add(denials(p), &p->ndenials, &d);
		} else
			snprintf(why, sizeof(why), "seccomp killed the "
			    "process: a foreign system call ABI (i386/x32) or "
			    "a forbidden call");
	}
	else if (res->signal == SIGXCPU)
		snprintf(why, sizeof(why), "CPU time limit of %lld s reached",
		    (long long)l->cpu_seconds);
	else if (res->signal == SIGXFSZ)
		snprintf(why, sizeof(why), "file size limit of %lld MB "
		    "reached", (long long)l->file_size_mb);
	else if (limit == 2)
		snprintf(why, sizeof(why), "process limit of %lld reached "
		    "(pids cgroup)", (long long)l->processes);
	else if (res->exited && res->exit_code != 0 &&
	    (s = errno_hint(res->err)) != NULL)
		snprintf(why, sizeof(why), "%s", s);
	if (why[0] != '\0')
		snprintf(res->hint, sizeof(res->hint), "this may be blocked by "
		    "the sandbox, not a command error (%s)", why);
}

/*
 * The limits the run hit, as denial entries with the value in force:
 * the cgroup's own counters, the signals the rlimits send, the deadline.
 * A command that ignores SIGXFSZ (Python does) sees EFBIG instead, which
 * it reports as "File too large"; RLIMIT_NPROC shows as EAGAIN from fork
 * ("Resource temporarily unavailable").
 */
static void
limit_denials(struct runner_proc *p, const struct runner_result *res,
    int limit, const char *err)
{
	const struct resource_limits *l = &p->req->policy->limits;

	if (limit == 1 && l->memory_mb > 0)
		(void)runner_denial_add_limit(denials(p), &p->ndenials,
		    "cgroup", "memory", (long long)l->memory_mb);
	if (limit == 2 && l->processes > 0)
		(void)runner_denial_add_limit(denials(p), &p->ndenials,
		    "cgroup", "processes", (long long)l->processes);
	else if (limit != 2 && l->processes > 0 && res->exited &&
	    res->exit_code != 0 &&
	    strstr(err, "Resource temporarily unavailable") != NULL &&
	    (strstr(err, "fork") != NULL || strstr(err, "clone") != NULL ||
	    strstr(err, "thread") != NULL))
		(void)runner_denial_add_limit(denials(p), &p->ndenials,
		    "rlimit", "processes", (long long)l->processes);
	/* A shell reports its child's death by signal N as 128 + N. */
	if (l->cpu_seconds > 0 && (res->signal == SIGXCPU ||
	    (res->exited && res->exit_code == 128 + SIGXCPU)))
		(void)runner_denial_add_limit(denials(p), &p->ndenials,
		    "rlimit", "cpu", (long long)l->cpu_seconds);
	if (l->file_size_mb > 0 && (res->signal == SIGXFSZ ||
	    (res->exited && res->exit_code == 128 + SIGXFSZ) ||
	    (res->exited && res->exit_code != 0 &&
	    strstr(err, "File too large") != NULL)))
		(void)runner_denial_add_limit(denials(p), &p->ndenials,
		    "rlimit", "fileSize", (long long)l->file_size_mb);
	if (res->timed_out && p->req->timeout_ms > 0)
		(void)runner_denial_add_limit(denials(p), &p->ndenials,
		    "timeout", "wallClock", (long long)p->req->timeout_ms);
}

/* Whether |uid| and |gid| alone (a runner has no other groups) may
 * search the directory |st| is of. */
static int
dir_searchable(const struct stat *st, uid_t uid, gid_t gid)
{
	if (!S_ISDIR(st->st_mode))
		return 0;
	if (st->st_uid == uid)
		return (st->st_mode & S_IXUSR) != 0;
	if (st->st_gid == gid)
		return (st->st_mode & S_IXGRP) != 0;
	return (st->st_mode & S_IXOTH) != 0;
}

/* Whether every directory above the absolute |path|, as the kernel
 * follows it, may be searched by |uid| and |gid| (ACLs are not read:
 * one that grants more only hides a denial). */
static int
parents_searchable(const char *path, uid_t uid, gid_t gid)
{
	char dir[PATH_MAX];
	struct stat st;
	char *s;

	if (path[0] != '/' ||
	    snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return 0;
	if (stat("/", &st) == -1 || !dir_searchable(&st, uid, gid))
		return 0;
	for (s = dir + 1; (s = strchr(s, '/')) != NULL; *s++ = '/') {
		*s = '\0';
		if (stat(dir, &st) == -1 || !dir_searchable(&st, uid, gid))
			return 0;
	}
	return 1;
}

/*
 * fs_denials()' |exists|: |path| exists on the host, and the runner's
 * own user could have found it there.  Run as root, the broker sees
 * every name: a line the command printed ("cat: /root/x: No such file
 * or directory") told it whether a file existed in a directory that its
 * user, on the host, may not even search (the names in another user's
 * 0700 home).  Through a link, the directories it leads through count
 * too (realpath: the agent may leave one in its own home).
 */
static int
path_exists(const char *path, void *arg)
{
	const struct runner_plan *pl = arg;
	char real[PATH_MAX];
	struct stat st;

	if (lstat(path, &st) == -1)
		return 0;
	/* Not root: we are the runner's user, and lstat(2) says no more. */
	if (!pl->root)
		return 1;
	if (!parents_searchable(path, pl->uid, pl->gid))
		return 0;
	return realpath(path, real) == NULL ||
	    parents_searchable(real, pl->uid, pl->gid);
}

/* The filesystem refusals stderr reports, checked against our policy. */
static void
fs_denials(struct runner_proc *p, const char *err, size_t len)
{
	const struct runner_plan *pl = &p->plan;
	const struct sandbox_policy *sp = pl->policy;
	struct runner_fs_view v;
	const char **ro, **rw;
	char **etc;
	size_t i, nro = 0, nrw = 0, nsys, netc;

	for (nsys = 0; sandbox_system_dirs[nsys] != NULL; nsys++)
		;
	for (netc = 0; sandbox_etc_entries[netc] != NULL; netc++)
		;
	ro = xcalloc(nsys + netc + pl->nextra_ro + 1, sizeof(*ro));
	rw = xcalloc(sp->nread_write + 2, sizeof(*rw));
	etc = xcalloc(netc + 1, sizeof(*etc));
	for (i = 0; i < nsys; i++)
		ro[nro++] = sandbox_system_dirs[i];
	for (i = 0; i < netc; i++) {
		xasprintf(&etc[i], "/etc/%s", sandbox_etc_entries[i]);
		ro[nro++] = etc[i];
	}
	for (i = 0; i < pl->nextra_ro; i++)
		ro[nro++] = pl->extra_ro[i];
	for (i = 0; i < sp->nread_write; i++)
		rw[nrw++] = sp->read_write[i];
	if (sp->home != NULL)
		rw[nrw++] = sp->home;
	memset(&v, 0, sizeof(v));
	v.workspace = pl->workspace;
	v.workspace_ro = pl->workspace_readonly;
	v.ro = ro;
	v.nro = nro;
	v.rw = rw;
	v.nrw = nrw;
	v.deny = (const char *const *)pl->deny;
	v.ndeny = pl->ndeny;
	v.protected = (const char *const *)sp->protected;
	v.nprotected = sp->nprotected;
	v.exists = path_exists;
	v.exists_arg = (void *)pl;
	(void)runner_fs_denials(&v, pl->cwd, err, len, denials(p),
	    &p->ndenials);
	for (i = 0; i < netc; i++)
		free(etc[i]);
	free(etc);
	free(ro);
	free(rw);
}

void
runner_result_reset(struct runner_result *res)
{
	memset(res, 0, offsetof(struct runner_result, denials));
	res->ndenials = 0;
}

int
runner_proc_finish(struct runner_proc *p, struct runner_result *res)
{
	char msg[200], *scan = NULL;
	size_t scanlen = 0;
	ssize_t n;
	int limit, status;

	runner_result_reset(res);
	if (!p->reaped) {
		runner_proc_kill(p);
		while (waitid(P_PIDFD, p->pidfd, &p->si, WEXITED) == -1 &&
		    errno == EINTR)
			;
		p->reaped = 1;
	}
	stream_read(p, &p->out);
	stream_read(p, &p->err);
	res->duration_ms = now_monotonic_ms() - p->start;
	res->timed_out = p->timed_out;
	report_read(p);
	n = (ssize_t)p->report_len;
	memcpy(msg, p->report, p->report_len);
	if (n == 1 + (ssize_t)sizeof(int) &&
	    (msg[0] == 'W' || msg[0] == 'w')) {
		/* The init reports the command's own status. */
		memcpy(&status, msg + 1, sizeof(status));
		if (WIFEXITED(status)) {
			res->exited = 1;
			res->exit_code = WEXITSTATUS(status);
		} else if (WIFSIGNALED(status))
			res->signal = WTERMSIG(status);
	} else if (p->si.si_code == CLD_EXITED) {
		res->exited = 1;
		res->exit_code = p->si.si_status;
	} else
		res->signal = p->si.si_status;
	if (n > 1 && msg[0] == 'E') {
		msg[n] = '\0';
		res->setup_failed = 1;
		res->exited = 0;
		snprintf(res->setup_error, sizeof(res->setup_error),
		    "sandbox setup failed: %s", msg + 1);
	} else
		res->layers = p->layers;
	snprintf(res->limits_warning, sizeof(res->limits_warning), "%s",
	    p->warning);
	if (p->unmasked != NULL)
		snprintf(res->unmasked, sizeof(res->unmasked), "%s",
		    p->unmasked);
	res->out = p->out.buf != NULL ? p->out.buf : xstrdup("");
	res->out_len = p->out.len;
	if (p->req->passthrough) {
		scan = p->err.buf;
		scanlen = p->err.len;
		res->err = xstrdup("");
		res->err_len = 0;
	} else {
		res->err = p->err.buf != NULL ? p->err.buf : xstrdup("");
		res->err_len = p->err.len;
		scan = res->err;
		scanlen = res->err_len;
	}
	p->out.buf = p->err.buf = NULL;
	res->truncated = p->truncated;
	limit = runner_cgroup_limit_hit(p->cg);
	/* Cut off mid-way by the kernel, as a timeout cuts it off: what
	 * it wrote is half of what it meant to (runner.h). */
	res->oom_killed = limit == 1 && !res->exited && res->signal == SIGKILL;
	if (!res->setup_failed) {
		/* Calls still queued when the run ended are not answered:
		 * their callers are dead. */
		make_hint(p, res, limit);
		limit_denials(p, res, limit, scan != NULL ? scan : "");
		if (scan != NULL)
			fs_denials(p, scan, scanlen);
		if (p->ndenials > 0)
			memcpy(res->denials, p->denials,
			    p->ndenials * sizeof(*p->denials));
		res->ndenials = p->ndenials;
	}
	if (scan != res->err)
		free(scan);
	proc_free(p);
	return 0;
}

int
runner_run(const struct runner_request *req, struct runner_result *res)
{
	struct runner_proc *p;
	struct pollfd pfd;
	int64_t now, dl;
	int rc, timeout;

	runner_result_reset(res);
	if ((rc = runner_start(req, &p, res->setup_error,
	    sizeof(res->setup_error))) != 0) {
		res->setup_failed = 1;
		return rc;
	}
	for (;;) {
		if ((rc = runner_proc_step(p)) != 0)
			break;
		pfd.fd = runner_proc_fd(p);
		pfd.events = POLLIN;
		dl = runner_proc_deadline(p);
		now = now_monotonic_ms();
		if (dl == INT64_MAX)
			timeout = -1;
		else if (dl <= now)
			timeout = 0;
		else
			timeout = dl - now > INT_MAX ? INT_MAX :
			    (int)(dl - now);
		if (poll(&pfd, 1, timeout) == -1 && errno != EINTR)
			break;
	}
	return runner_proc_finish(p, res) == 0 && rc >= 0 ? 0 : AL_ERR_SYSTEM;
}

void
runner_result_clear(struct runner_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
	res->out_len = res->err_len = 0;
}

void
runner_layers_string(unsigned layers, char *out, size_t outlen)
{
	static const struct {
		unsigned	 bit;
		const char	*name;
	} names[] = {
		{ RUNNER_LAYER_USERNS, "userns" },
		{ RUNNER_LAYER_MOUNTNS, "mountns" },
		{ RUNNER_LAYER_PIDNS, "pidns" },
		{ RUNNER_LAYER_NETNS, "netns" },
		{ RUNNER_LAYER_IPCNS, "ipcns" },
		{ RUNNER_LAYER_UTSNS, "utsns" },
		{ RUNNER_LAYER_CGROUPNS, "cgroupns" },
		{ RUNNER_LAYER_SECCOMP, "seccomp" },
		{ RUNNER_LAYER_LANDLOCK, "landlock" },
		{ RUNNER_LAYER_NOCAPS, "nocaps" },
		{ RUNNER_LAYER_NNP, "nnp" },
		{ RUNNER_LAYER_RLIMITS, "rlimits" },
		{ RUNNER_LAYER_CGROUP, "cgroup" },
	};
	size_t i, len = 0;
	int n;

	if (outlen == 0)
		return;
	out[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(layers & names[i].bit))
			continue;
		n = snprintf(out + len, outlen - len, "%s%s",
		    len > 0 ? "," : "", names[i].name);
		if (n < 0 || (size_t)n >= outlen - len)
			break;
		len += n;
	}
}
