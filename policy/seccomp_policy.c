/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seccomp_policy: the runner's seccomp filter as a table.
 *
 * Why these rules: each denied call either reaches kernel attack surface
 * an ordinary build or test never needs (bpf, io_uring, userfaultfd,
 * perf, keyrings, modules), or undoes another layer (mount, namespaces,
 * ptrace, setgroups, personality flags that turn off ASLR), or reaches
 * outside the sandbox (TIOCSTI, TIOCLINUX, TIOCSETD and TIOCEXCL on an
 * inherited terminal; exotic socket families, from socket(2) and socketpair(2)
 * alike).  clone3 gets ENOSYS so that libc falls back to clone, whose
 * flags a classic filter can inspect.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/strlist.h"
#include "policy/seccomp_policy.h"

/* From <linux/sched.h> and <asm/ioctls.h>, kept here to stay pure. */
#define SCP_CLONE_NEWNS		0x00020000ULL
#define SCP_CLONE_NEWCGROUP	0x02000000ULL
#define SCP_CLONE_NEWUTS	0x04000000ULL
#define SCP_CLONE_NEWIPC	0x08000000ULL
#define SCP_CLONE_NEWUSER	0x10000000ULL
#define SCP_CLONE_NEWPID	0x20000000ULL
#define SCP_CLONE_NEWNET	0x40000000ULL
#define SCP_TIOCSTI		0x5412ULL
#define SCP_TIOCLINUX		0x541cULL
#define SCP_TIOCSETD		0x5423ULL
#define SCP_TIOCEXCL		0x540cULL
#define SCP_AF_UNIX		1
#define SCP_AF_INET		2
#define SCP_AF_INET6		10

static const uint64_t clone_new_flags[] = {
	SCP_CLONE_NEWNS, SCP_CLONE_NEWCGROUP, SCP_CLONE_NEWUTS,
	SCP_CLONE_NEWIPC, SCP_CLONE_NEWUSER, SCP_CLONE_NEWPID,
	SCP_CLONE_NEWNET,
};
#define SCP_CLONE_NEW_MASK	(SCP_CLONE_NEWNS | SCP_CLONE_NEWCGROUP | \
	SCP_CLONE_NEWUTS | SCP_CLONE_NEWIPC | SCP_CLONE_NEWUSER | \
	SCP_CLONE_NEWPID | SCP_CLONE_NEWNET)

const char *const seccomp_denied_syscalls[] = {
	"ptrace", "process_vm_readv", "process_vm_writev",
	"mount", "umount2", "pivot_root", "move_mount", "open_tree",
	"fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
	"open_tree_attr", "listmount", "statmount",
	"unshare", "setns",
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module",
	"open_by_handle_at", "name_to_handle_at",
	"reboot", "swapon", "swapoff", "acct",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"setgroups", "syslog", "quotactl", "quotactl_fd", "lookup_dcookie",
	"uselib",
	"vhangup", "iopl", "ioperm",
	NULL
};

/*
 * The strict profile's allowlist: what compilers, interpreters, shells
 * and test runners use.  Everything else fails with EPERM.
 */
static const char *const strict_allowed[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv",
	"pwritev", "preadv2", "pwritev2", "open", "openat", "openat2",
	"close", "close_range", "creat", "stat", "fstat", "lstat",
	"newfstatat", "statx", "statfs", "fstatfs", "access", "faccessat",
	"faccessat2", "lseek", "mmap", "mprotect", "munmap", "mremap",
	"madvise", "msync", "mincore", "mlock", "munlock", "brk",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend",
	"rt_sigpending", "rt_sigtimedwait", "rt_sigqueueinfo", "sigaltstack",
	"pipe", "pipe2", "select", "pselect6", "poll", "ppoll",
	"epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
	"epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "signalfd",
	"signalfd4", "timerfd_create", "timerfd_settime", "timerfd_gettime",
	"sched_yield", "sched_getaffinity", "sched_setaffinity",
	"sched_getparam", "sched_getscheduler", "sched_get_priority_max",
	"sched_get_priority_min", "dup", "dup2", "dup3", "nanosleep",
	"clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday",
	"time", "times", "getitimer", "setitimer", "alarm", "getpid",
	"getppid", "gettid", "getuid", "geteuid", "getgid", "getegid",
	"getresuid", "getresgid", "getgroups", "getpgrp", "getpgid",
	"setpgid", "getsid", "setsid", "getpriority", "setpriority",
	"getrlimit", "setrlimit", "prlimit64", "getrusage", "sysinfo",
	"uname", "umask", "fork", "vfork", "execve", "execveat", "exit",
	"exit_group", "wait4", "waitid", "kill", "tkill", "tgkill",
	"fcntl", "flock", "fsync", "fdatasync", "truncate", "ftruncate",
	"fallocate", "getdents", "getdents64", "getcwd", "chdir", "fchdir",
	"rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir",
	"link", "linkat", "unlink", "unlinkat", "symlink", "symlinkat",
	"readlink", "readlinkat", "chmod", "fchmod", "fchmodat", "chown",
	"fchown", "lchown", "fchownat", "utime", "utimes", "utimensat",
	"futimesat", "mknod", "mknodat", "sync", "syncfs", "sync_file_range",
	"copy_file_range", "sendfile", "splice", "tee", "fadvise64",
	"readahead", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
	"llistxattr", "flistxattr", "setxattr", "lsetxattr", "fsetxattr",
	"removexattr", "lremovexattr", "fremovexattr", "inotify_init",
	"inotify_init1", "inotify_add_watch", "inotify_rm_watch",
	"futex", "futex_waitv", "set_robust_list", "get_robust_list",
	"set_tid_address", "arch_prctl", "prctl", "rseq", "getrandom",
	"memfd_create", "membarrier", "capget", "rt_tgsigqueueinfo",
	"socketpair", "connect", "accept", "accept4", "bind", "listen",
	"getsockname", "getpeername", "sendto", "recvfrom", "sendmsg",
	"recvmsg", "sendmmsg", "recvmmsg", "shutdown", "setsockopt",
	"getsockopt", "mq_open", "mq_unlink", "mq_timedsend",
	"mq_timedreceive", "shmget", "shmat", "shmdt", "shmctl", "semget",
	"semop", "semctl", "semtimedop", "msgget", "msgsnd", "msgrcv",
	"msgctl", "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
	"process_mrelease", "landlock_create_ruleset", "landlock_add_rule",
	"landlock_restrict_self", "seccomp", "ioprio_get", "ioprio_set",
	"get_mempolicy", "set_mempolicy", "mbind", "fstatfs", "ustat",
	"restart_syscall", "pause", "personality", "sched_getattr",
	"sched_setattr", "name_to_handle_at", "cachestat", "map_shadow_stack",
	NULL
};

/* ioctls the strict profile allows (terminal queries, fd flags). */
static const uint64_t strict_ioctls[] = {
	0x5401,		/* TCGETS */
	0x5402,		/* TCSETS */
	0x5403,		/* TCSETSW */
	0x5404,		/* TCSETSF */
	0x540f,		/* TIOCGPGRP */
	0x5410,		/* TIOCSPGRP */
	0x5413,		/* TIOCGWINSZ */
	0x5414,		/* TIOCSWINSZ */
	0x541b,		/* FIONREAD */
	0x5421,		/* FIONBIO */
	0x5450,		/* FIONCLEX */
	0x5451,		/* FIOCLEX */
	0x5452,		/* FIOASYNC */
	0x80086601,	/* FS_IOC_GETFLAGS */
};

struct table {
	struct scp_rule	*v;
	size_t		 n, cap;
	int		 failed;
};

static void
add(struct table *t, const char *name, struct scp_action a,
    const struct scp_cond *c)
{
	struct scp_rule *nv;

	if (t->failed)
		return;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 128;
		if ((nv = reallocarray(t->v, t->cap, sizeof(*nv))) == NULL) {
			t->failed = 1;
			return;
		}
		t->v = nv;
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	t->v[t->n].syscall = name;
	t->v[t->n].action = a;
	if (c != NULL) {
		t->v[t->n].has_cond = 1;
		t->v[t->n].cond = *c;
	}
	t->n++;
}

static void
add_cond(struct table *t, const char *name, struct scp_action a,
    unsigned arg, enum scp_op op, uint64_t mask, uint64_t datum)
{
	struct scp_cond c = { arg, op, mask, datum };

	add(t, name, a, &c);
}

/*
 * personality(2) may only be called with PER_LINUX (0) or the query
 * 0xffffffff: anything else could turn off ASLR (ADDR_NO_RANDOMIZE) or
 * make data executable (READ_IMPLIES_EXEC).  A classic filter can test an
 * argument once per rule, so "neither all zeros nor all ones in the low
 * 32 bits" is written as "some bit i is 1 and bit i+1 (cyclically) is 0":
 * 32 masked comparisons, exact.
 */
static void
add_personality_deny(struct table *t, struct scp_action deny)
{
	unsigned i;
	uint64_t lo, hi;

	for (i = 0; i < 32; i++) {
		lo = 1ULL << i;
		hi = 1ULL << ((i + 1) % 32);
		add_cond(t, "personality", deny, 0, SCP_OP_MASKED_EQ,
		    lo | hi, lo);
	}
}

/*
 * The calls that give a file its mode, and which argument holds it.  A
 * sandbox that writes host paths directly (the workspace of an agent
 * with agent.workspace: rw, its home, --rw binds) would otherwise leave
 * a setuid or setgid file there, owned on the host by the workspace's
 * owner (root, often): no change set's write policy sees those writes.
 * open and openat take a mode only with O_CREAT; the C libraries pass 0
 * otherwise.  openat2's mode is in a structure a filter cannot read:
 * ENOSYS, and the C libraries fall back to openat.
 */
static const struct {
	const char *name;
	unsigned arg;
} mode_setters[] = {
	{ "chmod", 1 }, { "fchmod", 1 }, { "fchmodat", 2 },
	{ "fchmodat2", 2 }, { "open", 2 }, { "openat", 3 }, { "creat", 1 },
	{ "mknod", 1 }, { "mknodat", 2 },
};
#define SCP_S_ISUID 04000
#define SCP_S_ISGID 02000

int
seccomp_policy_refuses_special_bits(const struct sandbox_policy *sp)
{
	return sp->host_writes || sp->nread_write > 0 || sp->home != NULL;
}

/* Default profile: the mode setters fail with EPERM when asked for a
 * setuid or a setgid bit; openat2 is ENOSYS. */
static void
deny_special_bits(struct table *t)
{
	struct scp_action eperm = { SCP_ERRNO, EPERM };
	struct scp_action enosys = { SCP_ERRNO, ENOSYS };
	size_t i;

	for (i = 0; i < sizeof(mode_setters) / sizeof(mode_setters[0]); i++) {
		add_cond(t, mode_setters[i].name, eperm, mode_setters[i].arg,
		    SCP_OP_MASKED_EQ, SCP_S_ISUID, SCP_S_ISUID);
		add_cond(t, mode_setters[i].name, eperm, mode_setters[i].arg,
		    SCP_OP_MASKED_EQ, SCP_S_ISGID, SCP_S_ISGID);
	}
	add(t, "openat2", enosys, NULL);
}

/* Whether |name| is one of mode_setters (or openat2). */
static int
is_mode_setter(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(mode_setters) / sizeof(mode_setters[0]); i++)
		if (strcmp(name, mode_setters[i].name) == 0)
			return 1;
	return strcmp(name, "openat2") == 0;
}

/*
 * The calls that set an extended attribute.  Where a sandbox writes host
 * paths directly (as for the special bits above), a user.overlay.*
 * attribute it sets on the checkout is read by every later runner's
 * overlay: an airlock run by an ordinary user mounts it with userxattr,
 * so user.overlay.opaque on a directory and user.overlay.whiteout on an
 * empty file in it hid that file from every check while the workspace
 * (and its digest) had it.  A filter cannot read the attribute's name:
 * every set fails with EOPNOTSUPP, which cp -a, tar and Python's
 * copystat take as a file system without them and go on.  Removing one
 * stays allowed.
 */
static const char *const xattr_setters[] = {
	"setxattr", "lsetxattr", "fsetxattr", "setxattrat", NULL
};

static void
refuse_xattr_sets(struct table *t)
{
	struct scp_action enotsup = { SCP_ERRNO, EOPNOTSUPP };
	size_t i;

	for (i = 0; xattr_setters[i] != NULL; i++)
		add(t, xattr_setters[i], enotsup, NULL);
}

/* Strict profile: the mode setters are allowed only without a setuid or
 * setgid bit (one rule: both bits clear); openat2 is ENOSYS. */
static void
allow_plain_modes(struct table *t)
{
	struct scp_action allow = { SCP_ALLOW, 0 };
	struct scp_action enosys = { SCP_ERRNO, ENOSYS };
	size_t i;

	for (i = 0; i < sizeof(mode_setters) / sizeof(mode_setters[0]); i++)
		add_cond(t, mode_setters[i].name, allow, mode_setters[i].arg,
		    SCP_OP_MASKED_EQ, SCP_S_ISUID | SCP_S_ISGID, 0);
	add(t, "openat2", enosys, NULL);
}

static void
compile_default(struct table *t)
{
	struct scp_action eperm = { SCP_ERRNO, EPERM };
	struct scp_action enosys = { SCP_ERRNO, ENOSYS };
	size_t i;
	uint64_t af;

	for (i = 0; seccomp_denied_syscalls[i] != NULL; i++)
		add(t, seccomp_denied_syscalls[i], eperm, NULL);
	add(t, "clone3", enosys, NULL);
	for (i = 0; i < sizeof(clone_new_flags) / sizeof(clone_new_flags[0]);
	    i++)
		add_cond(t, "clone", eperm, 0, SCP_OP_MASKED_EQ,
		    clone_new_flags[i], clone_new_flags[i]);
	add_personality_deny(t, eperm);
	add_cond(t, "ioctl", eperm, 1, SCP_OP_MASKED_EQ, 0xffffffffULL,
	    SCP_TIOCSTI);
	add_cond(t, "ioctl", eperm, 1, SCP_OP_MASKED_EQ, 0xffffffffULL,
	    SCP_TIOCLINUX);
	/* A line discipline outlives the sandbox on an inherited terminal
	 * (N_NULL drops what the user types) and loads its module. */
	add_cond(t, "ioctl", eperm, 1, SCP_OP_MASKED_EQ, 0xffffffffULL,
	    SCP_TIOCSETD);
	/* So does exclusive mode: the user's sudo, su or ssh can no longer
	 * open the terminal (EBUSY). */
	add_cond(t, "ioctl", eperm, 1, SCP_OP_MASKED_EQ, 0xffffffffULL,
	    SCP_TIOCEXCL);
	/* Families other than AF_UNIX, AF_INET, AF_INET6. */
	for (af = 0; af < SCP_AF_INET6; af++)
		if (af != SCP_AF_UNIX && af != SCP_AF_INET)
			add_cond(t, "socket", eperm, 0, SCP_OP_EQ, 0, af);
	add_cond(t, "socket", eperm, 0, SCP_OP_GT, 0, SCP_AF_INET6);
	/*
	 * socketpair(2) makes its two sockets with the family's own create
	 * (loading its module), and AF_TIPC pairs them: AF_UNIX alone.
	 */
	add_cond(t, "socketpair", eperm, 0, SCP_OP_EQ, 0, 0);
	add_cond(t, "socketpair", eperm, 0, SCP_OP_GT, 0, SCP_AF_UNIX);
}

static void
compile_strict(struct table *t, int plain_modes)
{
	struct scp_action allow = { SCP_ALLOW, 0 };
	struct scp_action enosys = { SCP_ERRNO, ENOSYS };
	size_t i, j;
	int skip;

	for (i = 0; strict_allowed[i] != NULL; i++) {
		/* name_to_handle_at, personality and socketpair are listed
		 * only to be skipped: they get conditions or stay denied. */
		skip = strcmp(strict_allowed[i], "personality") == 0 ||
		    strcmp(strict_allowed[i], "socketpair") == 0 ||
		    (plain_modes && (is_mode_setter(strict_allowed[i]) ||
		    str_in_list(strict_allowed[i], xattr_setters))) ||
		    str_in_list(strict_allowed[i], seccomp_denied_syscalls);
		for (j = 0; j < i; j++)
			if (strcmp(strict_allowed[i], strict_allowed[j]) == 0)
				skip = 1;
		if (!skip)
			add(t, strict_allowed[i], allow, NULL);
	}
	add(t, "clone3", enosys, NULL);
	add_cond(t, "clone", allow, 0, SCP_OP_MASKED_EQ, SCP_CLONE_NEW_MASK,
	    0);
	add_cond(t, "personality", allow, 0, SCP_OP_EQ, 0, 0);
	add_cond(t, "personality", allow, 0, SCP_OP_EQ, 0, 0xffffffffULL);
	add_cond(t, "socket", allow, 0, SCP_OP_EQ, 0, SCP_AF_UNIX);
	add_cond(t, "socket", allow, 0, SCP_OP_EQ, 0, SCP_AF_INET);
	add_cond(t, "socket", allow, 0, SCP_OP_EQ, 0, SCP_AF_INET6);
	add_cond(t, "socketpair", allow, 0, SCP_OP_EQ, 0, SCP_AF_UNIX);
	for (i = 0; i < sizeof(strict_ioctls) / sizeof(strict_ioctls[0]); i++)
		add_cond(t, "ioctl", allow, 1, SCP_OP_MASKED_EQ,
		    0xffffffffULL, strict_ioctls[i]);
}

int
seccomp_policy_compile(const struct sandbox_policy *sp,
    struct seccomp_policy **out)
{
	struct seccomp_policy *p;
	struct table t;

	*out = NULL;
	memset(&t, 0, sizeof(t));
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return AL_ERR_ALLOC;
	p->profile = sp->seccomp;
	p->badarch_action.kind = SCP_KILL_PROCESS;
	if (sp->seccomp == SECCOMP_PROFILE_STRICT) {
		p->default_action.kind = SCP_ERRNO;
		p->default_action.err = EPERM;
		compile_strict(&t, seccomp_policy_refuses_special_bits(sp));
		if (seccomp_policy_refuses_special_bits(sp)) {
			allow_plain_modes(&t);
			refuse_xattr_sets(&t);
		}
	} else {
		p->default_action.kind = SCP_ALLOW;
		compile_default(&t);
		if (seccomp_policy_refuses_special_bits(sp)) {
			deny_special_bits(&t);
			refuse_xattr_sets(&t);
		}
	}
	if (t.failed) {
		free(t.v);
		free(p);
		return AL_ERR_ALLOC;
	}
	p->rules = t.v;
	p->nrules = t.n;
	*out = p;
	return 0;
}

void
seccomp_policy_free(struct seccomp_policy *p)
{
	if (p == NULL)
		return;
	free(p->rules);
	free(p);
}

static int
cond_matches(const struct scp_cond *c, const uint64_t args[6])
{
	uint64_t v = args[c->arg];

	switch (c->op) {
	case SCP_OP_EQ:
		return v == c->datum;
	case SCP_OP_GT:
		return v > c->datum;
	case SCP_OP_MASKED_EQ:
		return (v & c->mask) == c->datum;
	}
	return 0;
}

struct scp_action
seccomp_policy_eval(const struct seccomp_policy *p, const char *syscall,
    const uint64_t args[6])
{
	size_t i;

	for (i = 0; i < p->nrules; i++) {
		if (strcmp(p->rules[i].syscall, syscall) != 0)
			continue;
		if (!p->rules[i].has_cond ||
		    cond_matches(&p->rules[i].cond, args))
			return p->rules[i].action;
	}
	return p->default_action;
}

int
seccomp_policy_denies(const struct seccomp_policy *p, const char *syscall)
{
	size_t i;
	int listed = 0;

	for (i = 0; i < p->nrules; i++) {
		if (strcmp(p->rules[i].syscall, syscall) != 0)
			continue;
		listed = 1;
		if (!p->rules[i].has_cond)
			return p->rules[i].action.kind != SCP_ALLOW;
	}
	if (listed)
		return 0;
	return p->default_action.kind != SCP_ALLOW;
}
