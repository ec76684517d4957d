/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * runner internals: the plan the parent prepares before clone(), and the
 * pieces that build the sandbox.  Everything the child needs is computed
 * by the parent first, so that the child allocates nothing between
 * clone() and execve() (no malloc locks, no libseccomp, no stdio).  The
 * parent has no other thread when it clones (the network namespace's
 * maker is joined before the clone; airlock exec's audit writer is a
 * process): the child is a copy of one thread and would hold whatever
 * lock another one held (libcap-ng's fopen() in the child hung so, when
 * that writer was a thread).  The child changes its credentials and
 * drops its capabilities by raw system call all the same (glibc's
 * setresuid() asks every thread it knows of; libcap-ng reads
 * /proc/self/status through stdio).
 */
#ifndef AIRLOCK_RUNNER_INT_H
#define AIRLOCK_RUNNER_INT_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <string.h>

#include <pthread.h>

#include "policy/githooks.h"
#include "policy/hookplants.h"
#include "policy/manifest.h"

#define RUNNER_MAX_PATH	4096

/* Child exit status when a setup step failed (the reason is on the pipe). */
#define RUNNER_SETUP_EXIT	125

/*
 * The seccomp program's length word on sync_fd: with this bit set, the
 * child turns the program's EPERM refusals into user notifications and
 * sends the listener back (message "N", SCM_RIGHTS) before the command
 * starts; the parent answers each with EPERM and records the call.
 */
#define RUNNER_SECCOMP_NOTIFY	0x80000000u

/* Read-only binds beneath /tmp or /dev/shm a runner can take. */
#define RUNNER_MAX_LATE	16

/* Read-write binds (sandbox_policy.read_write) a runner can take. */
#define RUNNER_MAX_RW	16

/* The checkout's git hooks a runner covers in a session's view: each
 * hooks directory and file, and a hook's name where the workspace itself
 * is a hooks directory (policy/githooks.h); and the hook managers'
 * configs the agent wrote (policy/hookplants.h). */
#define RUNNER_MAX_HOOKS	(GIT_HOOKS_MAX + GIT_HOOK_NAMES + HOOKPLANTS_MAX)

/*
 * The per-user counts a user namespace caps (/proc/sys/user/NAME).  Every
 * sandbox of every session runs as the same uid, and the kernel's budget
 * for a uid is one (128 inotify instances by default): one sandbox that
 * held them all made inotify_init1() fail with EMFILE in another
 * session's.  The kernel charges these counts to the user namespace of
 * the process and to every one above it, each against its own cap, so a
 * cap on the sandbox's namespace bounds what it takes of the uid's
 * budget: RUNNER_USER_SHARE-th part of what the namespace above allows.
 * The rlimits the kernel counts per user the same way (pending signals,
 * message queue bytes, locked shared memory) get that share too; the
 * processes are the manifest's (limits.processes).
 */
#define RUNNER_USER_COUNTS	12
#define RUNNER_USER_NS_FIRST	4	/* the namespaces' counts */
#define RUNNER_USER_SHARE	8
extern const char *const runner_user_counts[RUNNER_USER_COUNTS];

/*
 * How the child binds one read-only or read-write entry of the policy, as
 * the parent resolved and checked it (plan_binds() in runner.c).
 */
enum plan_bind_how {
	PLAN_SKIP,	/* absent when checked: not bound, whatever comes */
	PLAN_LINK,	/* a link when checked: made again, its text src */
	PLAN_BIND	/* bound from src, opened with no link followed */
};

/* The new /tmp and /dev/shm are empty tmpfs: binds beneath them come late. */
static inline int
runner_under_tmp(const char *path)
{
	return strncmp(path, "/tmp/", 5) == 0 ||
	    strncmp(path, "/dev/shm/", 9) == 0;
}

struct plan_bind {
	const char		*path;	/* as the policy names it */
	char			*src;	/* see above (owned); NULL: SKIP */
	enum plan_bind_how	 how;
};

/*
 * A denied directory in a bind the host writes while the sandbox runs,
 * as plan_deny_live() found it: what deny_watch_start() watches, from
 * |res| up to |top| (runner/denywatch.h).
 */
struct plan_live_deny {
	const char		*path;	/* the denied path (plan's deny) */
	const char		*bind;	/* the bind it lies in, as the policy
					   names it (not owned) */
	char			*res;	/* path resolved (owned) */
	char			*top;	/* bind resolved, or "/" (owned) */
};

struct runner_plan {
	char *const	*argv;
	char *const	*envp;
	char		*workspace;	/* realpath, owned */
	char		*cwd;		/* absolute, owned */
	char		**deny;		/* deny_read, "~" expanded (owned) */
	size_t		 ndeny;
	struct plan_live_deny *live_deny;	/* those of deny in a live
					   bind (owned) */
	size_t		 nlive_deny;
	const char	**extra_ro;	/* read_only minus the base set
					   (array owned, strings not) */
	size_t		 nextra_ro;
	struct plan_bind *binds;	/* each of extra_ro and read_write
					   (owned) */
	size_t		 nbinds;
	const struct sandbox_policy *policy;
	uid_t		 uid, gid;	/* inside the namespace */
	int		 root;		/* airlock runs as root */
	int		 cg_join;	/* joins its cgroups itself: the
					 * parent sends their files first
					 * (runner_cgroup_joined_by_child) */
	int		 landlock_abi;	/* 0: none */
	int		 cap_last;	/* highest capability number */
	int		 stdin_fd;
	int		 out_fd, err_fd;	/* child's stdout/stderr */
	int		 sync_fd;	/* the seccomp program comes on it;
					   hangs up when the parent dies */
	int		 report_fd;	/* write: setup failure reason */
	const int	*keep_fds;
	size_t		 nkeep_fds;
	int		 use_proxy;	/* see runner_request */
	int		 proxy_sock;
	int		 idmap_later;	/* the parent sends the user
					 * namespace of an idmapped
					 * workspace after clone() ("I",
					 * child.c), mapping idmap_uid:gid
					 * to uid:gid */
	uid_t		 idmap_uid;
	gid_t		 idmap_gid;
	long		 user_caps[RUNNER_USER_COUNTS];	/* for each of
					 * runner_user_counts; -1: the
					 * kernel has no such count */
	int		 session_userns;	/* as root under
					 * runner_session_nest(): the
					 * session's user namespace, which
					 * the child's is made in; or -1 */
	const char	*upper_dir;	/* see runner_request */
	const char	*work_dir;
	int		 upper_fd;	/* see runner_request; -1: none */
	int		 workspace_readonly;
	int		 live_workspace;	/* see runner_request */
	int		 upper_durable;	/* see runner_request */
	const char	*lower_upper;	/* see runner_request */
	struct git_hooks_list hooks;	/* with lower_upper: the
					 * checkout's git hooks,
					 * workspace-relative (hooks_cover()
					 * in child.c), and the hook
					 * managers' names and keys at any
					 * depth (vcs_walk()) */
	int		 view_sock;	/* see runner_request; -1: none */
	int		 netns_fd;	/* a fresh network namespace the
					   child joins first, or -1: the
					   clone made one */
};

/*
 * How the sandbox shows the workspace: through an overlay with no upper
 * layer (PLAN_WS_OVERLAY_RO: a read-only run that needs no live view),
 * through one with an upper layer (PLAN_WS_OVERLAY: copy-on-write, a
 * change set, a session's layer), or bound as it is (PLAN_WS_LIVE: the
 * agent's sandbox, sandbox.workspace direct), where whatever the host
 * does to it shows at once.  Pure: the parent's checks and the child's
 * build_root() decide alike.
 */
enum plan_ws_view {
	PLAN_WS_LIVE,
	PLAN_WS_OVERLAY,
	PLAN_WS_OVERLAY_RO
};

static inline enum plan_ws_view
plan_ws_view(const struct runner_plan *p)
{
	int changes = p->upper_dir != NULL || p->upper_fd != -1;

	if (!p->live_workspace && !changes && p->lower_upper == NULL &&
	    (p->workspace_readonly || p->policy->workspace_readonly))
		return PLAN_WS_OVERLAY_RO;
	if (((p->policy->workspace == WORKSPACE_COW || changes) &&
	    !p->workspace_readonly) || p->lower_upper != NULL)
		return PLAN_WS_OVERLAY;
	return PLAN_WS_LIVE;
}

/* The child: builds the sandbox and executes the command.  Never returns. */
void	runner_child(const struct runner_plan *plan)
	    __attribute__((noreturn));

/*
 * A fresh network namespace made on a thread of its own (netns.c) while
 * the caller goes on.  runner_netns_end() waits for it and returns its
 * descriptor (never the caller's own namespace), or -1 when none could
 * be made: then the child's clone() must make one (CLONE_NEWNET).
 */
struct runner_netns {
	pthread_t	 thread;
	int		 started;
	int		 fd;
};
void	runner_netns_begin(struct runner_netns *n);
int	runner_netns_end(struct runner_netns *n);
/* A copy of a namespace made ahead (runner_request.netns_ahead), or -1
 * when |fd| is not a network namespace other than ours. */
int	runner_netns_ahead(int fd);

/*
 * Returns a user namespace descriptor whose mapping shows files owned by
 * |from_uid|:|from_gid| as owned by |to_uid|:|to_gid| through an idmapped
 * mount (cached per tuple for the life of the process), or -1.
 */
int	runner_idmap_userns(uid_t from_uid, gid_t from_gid, uid_t to_uid,
	    gid_t to_gid);

/*
 * Returns the filter for |sp|: the one compiled at build time for its
 * profile when this architecture and libseccomp version are the build's
 * (tools/seccomp_gen), else compiled once per profile; NULL on failure.
 */
const struct sock_fprog *runner_seccomp_program(const struct sandbox_policy *sp,
	    char *err, size_t errlen);

/*
 * The program for |sp| with the rules for allow[0..nallow) replaced by
 * an allow (an approved one-run widening), compiled afresh: the caller
 * frees it with runner_seccomp_program_free().  NULL with err filled if
 * a name is refused (see runner_seccomp_check_allow()) or compiling
 * failed.
 */
struct sock_fprog *runner_seccomp_program_allowing(
	    const struct sandbox_policy *sp, const char *const *allow,
	    size_t nallow, char *err, size_t errlen);
void	runner_seccomp_program_free(struct sock_fprog *prog);

/* 1 if |prog| is one of the programs compiled at build time. */
int	runner_seccomp_is_prebuilt(const struct sock_fprog *prog);

/*
 * 0 if every name in allow[0..nallow) is on the seccomp deny list
 * (seccomp_denied_syscalls) and known on this architecture; else a
 * negative code with err filled.
 */
int	runner_seccomp_check_allow(const char *const *allow, size_t nallow,
	    char *err, size_t errlen);

/*
 * Rewrites every "return |from|" of the program f[0..len) into "return
 * |to|" (only BPF_RET|BPF_K instructions); returns how many.  The child
 * turns the EPERM refusals into user notifications with it (and back,
 * when the kernel has no listener for it).  Allocates nothing.
 */
size_t	runner_seccomp_retarget(struct sock_filter *f, size_t len,
	    uint32_t from, uint32_t to);

/*
 * Names the call of the last seccomp kill of |uid| logged after |kmsg_fd|
 * (/dev/kmsg, positioned at its end when the run started) into
 * out[0..outlen), and fills *d (a RUNNER_DENY_SYSCALL entry; a foreign
 * ABI's call is named "i386:NAME" or "x32:NAME"): 0, or -1 if there is
 * no log (-1 fd) or no such record (the kernel rate-limits them).
 */
struct runner_denial;
int	runner_seccomp_culprit(int kmsg_fd, uid_t uid, pid_t after, char *out,
	    size_t outlen, struct runner_denial *d);

/* Returns the landlock ABI version (cached), or 0 when unavailable. */
int	runner_landlock_abi(void);

/*
 * What a kernel of landlock ABI |abi| leaves out of the rules the runner
 * applies at ABI 6 (none at all at 0; at 1..5 truncate, TCP, device
 * ioctl, the scopes...), as a phrase in out: 1, or 0 if nothing is left
 * out.  The runner warns with it rather than degrade in silence.
 */
int	runner_landlock_missing(int abi, char *out, size_t outlen);

/* Applies the landlock rules for |plan|; 0 or -1 with errno set. */
int	runner_landlock_apply(const struct runner_plan *plan,
	    const char **step);

/* A per-runner cgroup (v2 when usable, else the v1 hierarchies). */
struct runner_cgroup;
struct runner_cgroup_ready;

/*
 * Creates the cgroup with |lim|; NULL if none could be.  The parent moves
 * the child into it with runner_cgroup_attach() (0, or -1 with errno)
 * while the child builds its root, before the child may run anything.
 * *|enforced| gets the LIMIT_ASKED_* bits of the limits set (a limit of 0
 * needs none), whether or not the result is NULL.  A cgroup of |ready|
 * (NULL: none) in the right place is taken instead of a new one, its
 * limits set again (runner.h).
 */
struct runner_cgroup *runner_cgroup_create(const struct resource_limits *lim,
	    unsigned *enforced, const struct runner_cgroup_ready *ready);
int	runner_cgroup_attach(const struct runner_cgroup *cg, pid_t pid);
/*
 * 1 when the child is to join its cgroups itself (v1, where a thread
 * moving only itself is cheap): the caller then clones first, makes the
 * cgroup while the child builds its root, and hands it the files of
 * runner_cgroup_join_fds() (runner/cgroup.c).
 */
int	runner_cgroup_joined_by_child(void);
/*
 * Opens, for writing, the file of each of |cg|'s v1 cgroups that moves
 * the thread writing "0" into it, into fds[0..max): their count, 0 for
 * none (NULL, v2), or (size_t)-1 with errno.
 */
size_t	runner_cgroup_join_fds(const struct runner_cgroup *cg, int *fds,
	    size_t max);
/*
 * clone() with |flags| (namespaces | exit signal) and CLONE_PIDFD into
 * *|pidfd|, the child born in |cg| where that can be done (v2: clone3
 * with CLONE_INTO_CGROUP) with *|placed| = 1, else a plain clone with
 * *|placed| = 0 (attach it, or, v1, it joins itself).  |cg| may be NULL.
 * Returns as clone() does (0 in the child, -1 with errno).
 */
pid_t	runner_cgroup_clone(const struct runner_cgroup *cg,
	    unsigned long flags, int *pidfd, int *placed);
/* Kills every process in it (where the kernel can). */
void	runner_cgroup_kill(struct runner_cgroup *cg);
/*
 * Opens the counters runner_cgroup_limit_hit() reads, ahead (while the
 * child builds its root), so that reading them once the run is over
 * costs a read each.  Those it cannot open are opened when read.
 */
void	runner_cgroup_watch(struct runner_cgroup *cg);
/* 1 if the memory limit was hit, 2 if the pids limit was, else 0. */
int	runner_cgroup_limit_hit(struct runner_cgroup *cg);
/*
 * Removes it and frees |cg|.  With |left| non-NULL, each directory is
 * given to left(arg, path) to remove instead (runner_request.cgroup_left).
 */
void	runner_cgroup_destroy(struct runner_cgroup *cg,
    void (*left)(void *arg, const char *path), void *arg);

#endif
