/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * runner: runs one command in a fresh sandbox and reports what happened.
 *
 * runner_run() forks a child that builds the sandbox (namespaces, a new
 * root, seccomp, capabilities, landlock, rlimits, cgroup) and executes
 * the command; the parent captures stdout and stderr up to a cap, enforces
 * the wall-clock limit by killing the whole tree, and reaps it.  Building
 * the sandbox either completes or the child dies: there is no
 * half-sandboxed command.
 */
#ifndef AIRLOCK_RUNNER_H
#define AIRLOCK_RUNNER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy/manifest.h"

/* Which layers were in force for a run (reported in results and audit). */
#define RUNNER_LAYER_USERNS	0x0001
#define RUNNER_LAYER_MOUNTNS	0x0002
#define RUNNER_LAYER_PIDNS	0x0004
#define RUNNER_LAYER_NETNS	0x0008
#define RUNNER_LAYER_IPCNS	0x0010
#define RUNNER_LAYER_UTSNS	0x0020
#define RUNNER_LAYER_CGROUPNS	0x0040
#define RUNNER_LAYER_SECCOMP	0x0080
#define RUNNER_LAYER_LANDLOCK	0x0100
#define RUNNER_LAYER_NOCAPS	0x0200
#define RUNNER_LAYER_NNP	0x0400
#define RUNNER_LAYER_RLIMITS	0x0800
#define RUNNER_LAYER_CGROUP	0x1000

struct runner_request {
	char *const		*argv;		/* argv[0] looked up in PATH */
	char *const		*envp;		/* full environment, or NULL for
						   a minimal default */
	const char		*workspace;	/* host path, mounted at the same
						   path inside */
	const char		*cwd;		/* workspace-relative, or NULL */
	const struct sandbox_policy *policy;
	int64_t			 timeout_ms;	/* wall clock; <= 0: none */
	size_t			 output_cap;	/* bytes kept of stdout+stderr */
	int			 stdin_fd;	/* -1: /dev/null */
	/*
	 * With |line_keep|, stdout is read as grep -Z prints it, lines of
	 * NAME NUL TEXT, and only the lines kept are kept and counted
	 * against |output_cap|: line_keep(line_arg, NAME) says, once for
	 * each run of lines of one NAME, 1 to keep them, 0 to drop them,
	 * or 2 to drop them but keep "NAME NUL NL" once in their place.
	 * A line with no NUL (a NAME holding a newline), the one after it,
	 * and a NAME longer than PATH_MAX are dropped.  What a dropped line
	 * held then neither shows nor moves where the cap cuts (search:
	 * the lines of a file holding a granted secret).  Once the cap is
	 * reached, or |line_names_max| NAMEs (if not 0) were kept or stood
	 * for, the lines of a new NAME are dropped; the first such NAME that
	 * line_keep() would have kept sets truncated, and no NAME after it
	 * is asked about.
	 */
	int			(*line_keep)(void *line_arg, const char *name);
	void			*line_arg;
	size_t			 line_names_max;
	int			 passthrough;	/* 1: stdout/stderr are the
						   caller's (airlock exec) */
	/*
	 * With |passthrough|: the command's stderr is a pipe to the runner,
	 * which writes it on to its own stderr as it comes and keeps the
	 * first 64 KiB to find the filesystem refusals it reports
	 * (runner/fsdenials.h).  Without it a passed-through stderr is the
	 * caller's own descriptor (a terminal stays a terminal) and no
	 * filesystem denial is recorded.  Captured output is always read.
	 */
	int			 scan_stderr;
	const int		*keep_fds;	/* extra fds passed through */
	size_t			 nkeep_fds;
	/*
	 * Egress through airlock's proxy: the runner brings up lo in its
	 * network namespace, listens on 127.0.0.1:RUNNER_PROXY_PORT there,
	 * and sends that listening socket over |proxy_sock| (SCM_RIGHTS)
	 * before the command starts; landlock then allows TCP connect to
	 * that port only.  The caller serves the socket with the proxy and
	 * puts HTTP(S)_PROXY in envp.
	 */
	int			 use_proxy;
	int			 proxy_sock;
	/*
	 * Where the run's writes go.  With |upper_dir| set (a host directory
	 * airlock made, empty, with |work_dir| beside it on the same
	 * filesystem), the workspace is an overlay: the real workspace is its
	 * lower layer, read-only, and every change lands in |upper_dir| for
	 * the caller to check and apply (broker/changeset.h).  With
	 * |workspace_readonly| set, the workspace is mounted read-only and
	 * nothing is written at all.  Neither: the manifest's
	 * sandbox.workspace mode.
	 */
	const char		*upper_dir;
	const char		*work_dir;
	/*
	 * Instead of |upper_dir|: with |upper_mnt| set,
	 * |upper_fd| is a detached mount (a tmpfs) holding the directories
	 * "upper" and "work", empty; they are the overlay's upper and work
	 * directories.  The descriptor stays the caller's and never reaches
	 * the command.
	 */
	int			 upper_mnt;
	int			 upper_fd;
	int			 workspace_readonly;
	/*
	 * |live_workspace|: the workspace is bound as it is, not through an
	 * overlay, so that the command sees the caller's own writes to it at
	 * once (the agent's sandbox under airlock run: an overlay's cached
	 * lookups would hide new files).  Each unix socket beneath it when
	 * the sandbox is built is then masked by an empty file (connect()
	 * needs only write permission on a socket, which no read-only mount
	 * or landlock rule takes away); a socket bound there later stays
	 * reachable.  The walk is bounded: a workspace with more entries,
	 * depth or sockets than the runner looks through fails the run
	 * (a setup error).  0, every other run: a read-only workspace is an
	 * overlay with no upper layer, on which no socket bound on the host
	 * accepts a connection (ECONNREFUSED).  A writable workspace that
	 * is not an overlay (sandbox.workspace: direct, no change set) is
	 * bound and walked as a live one is.
	 */
	int			 live_workspace;
	/*
	 * Copy-on-write agent sessions (supervisor/cowsession.h).
	 *
	 * |upper_durable|: with |upper_dir|, the overlay is not "volatile":
	 * the upper layer is a session's, kept across runs, and reaches the
	 * disk like any file.
	 *
	 * |lower_upper|: a session's upper layer (a host directory, no ':',
	 * ',' or '\\' in its path), stacked as the topmost lower layer over
	 * the workspace, so that the command sees the session's view (the
	 * real workspace plus the session's changes) and its own writes
	 * still land in its own upper layer.  The workspace is then always
	 * an overlay (read-only with |workspace_readonly|).
	 *
	 * |send_view|: once the workspace is mounted, the runner sends an
	 * O_PATH descriptor of it over |view_sock| (SCM_RIGHTS, message "V")
	 * and closes its end before the command starts, so that the caller
	 * can read and write the very overlay the command sees.
	 */
	int			 upper_durable;
	const char		*lower_upper;
	int			 send_view;
	int			 view_sock;
	/*
	 * Syscalls taken off the seccomp deny list for this one run (an
	 * approved escalation, or sandbox.allowSyscalls): each name must be
	 * on the profile's deny list (seccomp_policy_denies()); a name that
	 * is not, or that is unknown, fails the run closed with a setup
	 * error before anything is started.  NULL/0: none.
	 */
	const char *const	*allow_syscalls;
	size_t			 nallow_syscalls;
	/*
	 * The caller's last word before the command may start: called once,
	 * in the parent, after the child exists and while it builds its
	 * root, so that the caller's own slow work (airlock exec's durable
	 * exec_start record, written by a process of its own) overlaps with
	 * the child's.  The child cannot run anything of the command's
	 * before |gate| returns: it waits for the seccomp program, which is
	 * sent after.  A nonzero return kills the child and fails the run
	 * with the message |gate| left in err[0..errlen) (a setup error:
	 * nothing of the command ran).  The caller must have no other
	 * thread when it calls runner_start() (runner_int.h).  NULL: none.
	 */
	int			(*gate)(void *arg, char *err, size_t errlen);
	void			*gate_arg;
	/*
	 * Called once, from runner_proc_step(), with the command's wait
	 * status as soon as the namespace's init reports it: the command has
	 * ended by itself (not timed out: the deadline stops applying), and
	 * the rest of the sandbox is being torn down, which the caller may
	 * overlap with its own work (airlock exec's exec_end record).  The
	 * run is not over: runner_proc_finish() still reaps it, and only
	 * then is nothing of it left.  Not called for a run that failed to
	 * start, timed out or was killed, nor for one that may have met a
	 * denial (one recorded, anything on its stderr, a signal or an exit
	 * status of 128 or more, a cgroup limit hit, or another process left
	 * running in the sandbox when the command ended): its denials are known
	 * only from runner_proc_finish(), and the caller's record of its
	 * end (exec_end) must follow their records.  NULL: none.
	 */
	void			(*on_status)(void *arg, int wait_status);
	void			*status_arg;
	/*
	 * As root: a fresh, unused network namespace made ahead (airlock
	 * exec's spare writer, supervisor/exec_spare.h), which the child
	 * joins instead of one made on a thread (borrowed; the caller
	 * closes it).  Checked to be a network namespace other than ours;
	 * if it is not, the child's clone() makes one.  0: none (whatever
	 * netns_fd holds).
	 */
	int			 netns_ahead;
	int			 netns_fd;
	/*
	 * Non-NULL: once the child is cloned, *mntns_out is a descriptor of
	 * its mount namespace (close-on-exec; the caller owns it), or -1.
	 * Whoever holds it last takes the namespace down (every mount of
	 * the sandbox's root, synchronously): without it that is the
	 * namespace's init, as it exits, and the run ends only after it.
	 * airlock exec hands it to its audit writer, which drops it after
	 * the exec is over (exec_audit_hold()).
	 */
	int			*mntns_out;
	/*
	 * Non-NULL: the run's cgroup directories, empty once it is over,
	 * are given to it (each path once, borrowed for the call) to remove
	 * instead of removed before runner_run() returns: airlock exec has
	 * its audit writer remove them after the exec is over
	 * (exec_audit_rmdir()).  One left behind is removed by the next
	 * run that makes cgroups in the same place (once its pid is gone).
	 */
	void			(*cgroup_left)(void *arg, const char *path);
	void			*cgroup_left_arg;
	/*
	 * Non-NULL: empty cgroups made ahead (runner_cgroup_ready_make()),
	 * taken instead of new ones where they are still what they were;
	 * every limit is set again.  Borrowed for the call.
	 */
	const struct runner_cgroup_ready *cgroup_ready;
};

/*
 * Cgroups made ahead and taken again, run after run: a mkdir and an
 * rmdir per controller are most of what a run's cgroups cost (about
 * 0.3 ms of a v1 start here).  airlock exec's spare audit writer makes
 * one empty cgroup per controller in use, named for itself
 * (runner_cgroup_ready_make()), lends them to each exec it serves as
 * text (runner_cgroup_ready_text(), runner_cgroup_ready_parse()), whose
 * runner takes them (runner_request.cgroup_ready), and once that exec is
 * over keeps each one runner_cgroup_ready_reusable() passes for the next
 * and removes the rest (runner_cgroup_ready_remove()).
 */
#define RUNNER_CGROUP_READY_MAX	3
#define RUNNER_CGROUP_PATH_MAX	4096
struct runner_cgroup_ready {
	size_t	 n;
	char	 path[RUNNER_CGROUP_READY_MAX][RUNNER_CGROUP_PATH_MAX];
	ino_t	 ino[RUNNER_CGROUP_READY_MAX];
};

/* Makes one empty cgroup, no limit set, per controller runners would
 * use; |r|->n of them (0: none could be, or none are in use). */
size_t	runner_cgroup_ready_make(struct runner_cgroup_ready *r);
/* "INO PATH\n" per cgroup into buf[0..len): 0, or -1 (too long). */
int	runner_cgroup_ready_text(const struct runner_cgroup_ready *r,
	    char *buf, size_t len);
/* The text runner_cgroup_ready_text() made: 0, or -1 (|r| empty). */
int	runner_cgroup_ready_parse(const char *text,
	    struct runner_cgroup_ready *r);
/*
 * 1 if the cgroup at |path| may serve another run: still the directory
 * |ino|, no task in it, and no limit was hit in it (no OOM kill, no fork
 * the pids limit refused), which its counters would go on reporting.
 */
int	runner_cgroup_ready_reusable(const char *path, ino_t ino);
/* Removes each of |r|'s cgroups that is still its directory; n = 0. */
void	runner_cgroup_ready_remove(struct runner_cgroup_ready *r);

/*
 * rmdir(2) of the cgroup |name| in |dirfd| (AT_FDCWD: a path), again
 * while its last tasks are on their way out (EBUSY), 200 ms at most.
 * With |ino| non-zero, only while |name| is still that directory.
 */
void	runner_cgroup_rmdir(int dirfd, const char *name, ino_t ino);

/*
 * A fresh network namespace for runner_request.netns_ahead: its
 * descriptor, or -1.  As root.  The calling thread makes it and goes
 * back to its own (it exits the process, fatal(), if it cannot), so
 * nothing else may run on that thread meanwhile.
 */
int	runner_netns_new(void);

/*
 * 1 if the network namespace |fd|, one runner_netns_new() made whose
 * sandbox is over (no process of it left: its cgroups are empty), is
 * still as it was made, as far as a sandbox could change it: its
 * loopback device down and not one socket in it (the namespace's
 * sockstat counts them all, those kept alive only by descriptors in
 * flight too: an abstract unix name among them).  A sandbox holds no
 * capability over it (it belongs to our user namespace, the sandbox's
 * is a child), so nothing else of it can have changed.  Then it may
 * serve the next sandbox.  The calling thread enters it and comes back,
 * as in runner_netns_new().
 */
int	runner_netns_unused(int fd);

/*
 * From the next runner on, as root, every runner of this process makes
 * its user namespace inside one the process holds for the session, capped
 * as each runner's is (runner_int.h, an eighth of the uid's per-user
 * budgets): the sandboxes of the session together then take at most that
 * share, however many run at once.  For a process that serves one
 * session's many runners (airlock run, serve); airlock exec runs one.
 * The namespace for runners of |uid|, |gid| (the manifest's) is begun
 * now, by a child of ours, and taken at the first runner; a runner whose
 * session namespace cannot be made is refused.  No thread of ours may
 * run meanwhile (the child is a copy of this one).
 */
void	runner_session_nest(uid_t uid, gid_t gid);

#define RUNNER_PROXY_PORT	3128

/*
 * What one sandbox layer refused during a run, in terms a manifest can
 * express.  Network refusals are not the runner's: the egress proxy
 * reports them (broker/egress.h).
 */
enum runner_denial_layer {
	RUNNER_DENY_FS = 1,
	RUNNER_DENY_SYSCALL,
	RUNNER_DENY_LIMIT,
};

struct runner_denial {
	enum runner_denial_layer layer;
	char	 source[16];	/* "landlock" | "mount" | "seccomp" |
				   "cgroup" | "rlimit" | "timeout" */
	char	 path[4096];	/* FS: absolute path as the command named
				   it (binds keep host paths) */
	char	 access[8];	/* FS: "read" | "write" | "exec" */
	char	 syscall[32];	/* SYSCALL: name, e.g. "keyctl" */
	int	 nr;		/* SYSCALL: number (native arch) */
	char	 limit[16];	/* LIMIT: "memory" | "processes" | "cpu" |
				   "fileSize" | "wallClock" */
	long long value;	/* LIMIT: the limit in force (MB, count, s,
				   MB, ms) */
};

#define RUNNER_DENIALS_MAX	16

struct runner_result {
	int	 exited;		/* 1: exit_code is valid */
	int	 exit_code;
	int	 signal;		/* killing signal, or 0 */
	int	 timed_out;
	int	 oom_killed;		/* SIGKILLed by its memory limit */
	int	 setup_failed;		/* the sandbox could not be built */
	char	 setup_error[256];	/* why, when setup_failed */
	int64_t	 duration_ms;
	char	*out;			/* captured stdout (NUL-terminated) */
	size_t	 out_len;
	char	*err;			/* captured stderr (NUL-terminated) */
	size_t	 err_len;
	int	 truncated;		/* output exceeded output_cap */
	unsigned layers;		/* RUNNER_LAYER_* in force */
	char	 hint[256];		/* "this may be blocked by the sandbox
					   ...", or empty */
	char	 limits_warning[256];	/* limits asked for but not
					   enforced (best-effort), or empty */
	/*
	 * A denied directory in a bind the host writes while the sandbox
	 * ran, which a process outside it removed or moved (or one above
	 * it, below the bind's top), taking the sandbox's mask with it:
	 * the sandbox was killed at once (runner/denywatch.h).  Or empty.
	 */
	char	 unmasked[512];
	/*
	 * What the sandbox refused, deduplicated, in order of first
	 * occurrence (at most RUNNER_DENIALS_MAX; later ones are dropped).
	 */
	struct runner_denial denials[RUNNER_DENIALS_MAX];
	size_t	 ndenials;
};

/*
 * Runs |req|.  Returns 0 with *res filled (the command may still have
 * failed: see res->exited/exit_code/signal/timed_out), or a negative code
 * if the run could not be started at all (res->setup_error says why).
 * The caller frees res->out and res->err with runner_result_clear().
 */
int	runner_run(const struct runner_request *req, struct runner_result *res)
	    __attribute__((warn_unused_result));

void	runner_result_clear(struct runner_result *res);

/*
 * Empties |res| but the entries of denials[] (ndenials says how many hold
 * anything): they are 64 KiB, whose pages a full clear would touch, each
 * a page fault (copy-on-write after the sandbox's clone).  runner_run()
 * and runner_proc_finish() start with it.
 */
void	runner_result_reset(struct runner_result *res);

/*
 * The same, without blocking, for the broker's event loop.
 *
 * runner_start() starts |req| and returns a handle; |req| and everything
 * it points to must stay valid until runner_proc_finish().  The handle
 * exposes one descriptor to poll for input (an epoll set over the output
 * pipes and the child's pidfd) and a monotonic deadline (now_monotonic_ms()
 * scale; INT64_MAX when there is none).  Call runner_proc_step() when the
 * descriptor is readable or the deadline has passed; it returns 1 once the
 * run is over, 0 while it goes on, or a negative code.  Then
 * runner_proc_finish() fills *res and frees the handle.
 * runner_proc_kill() kills the whole tree (used at teardown); the handle
 * must still be finished.
 */
struct runner_proc;

int	runner_start(const struct runner_request *req, struct runner_proc **out,
	    char *err, size_t errlen) __attribute__((warn_unused_result));
int	runner_proc_fd(const struct runner_proc *p);
/* The sandbox's first process (pid 1 of its pid namespace), host pid. */
pid_t	runner_proc_pid(const struct runner_proc *p);
/*
 * The identity of the sandbox's pid namespace, read as it was cloned:
 * 0, or -1 if it could not be read.
 */
int	runner_proc_pidns(const struct runner_proc *p, dev_t *dev, ino_t *ino);
int64_t	runner_proc_deadline(const struct runner_proc *p);
int	runner_proc_step(struct runner_proc *p);
/*
 * What the run has printed so far (the bytes kept under the cap):
 * pointers into the handle's buffers, valid until the next
 * runner_proc_step() or runner_proc_finish(); NULL with a length of 0
 * when nothing came yet.
 */
void	runner_proc_peek(const struct runner_proc *p, const char **out,
	    size_t *outlen, const char **err, size_t *errlen);
void	runner_proc_kill(struct runner_proc *p);
int	runner_proc_finish(struct runner_proc *p, struct runner_result *res);

/* Blocks until the run |p| is over (after runner_proc_kill(), at teardown). */
void	runner_proc_wait(struct runner_proc *p);

/* Returns a short comma-separated list of the layer names in |layers|. */
void	runner_layers_string(unsigned layers, char *out, size_t outlen);

#endif
