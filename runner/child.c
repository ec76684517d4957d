/*
 * child: the runner process between clone() and execve().
 *
 * It starts as the first process of fresh user, mount, pid, net, ipc,
 * uts and cgroup namespaces, with every capability in its own user
 * namespace and none outside.  It builds a new root from read-only binds,
 * drops to the runner uid, sheds every capability, sets no_new_privs,
 * enters landlock and seccomp, and executes the command.  Each step either
 * succeeds or the child reports which one failed on report_fd and exits:
 * there is no half-sandboxed command.
 *
 * Nothing here allocates: the parent prepared everything (runner_plan),
 * and after a raw clone() the child must not take malloc's locks.
 */
#include "config.h"

#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/seccomp.h>

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/sandbox_defaults.h"
#include "runner/runner_int.h"

#define OLDROOT		"/.oldroot"
#define MASK_FILE	"/.airlock-masked"
#define MASK_DIR	"/.airlock-masked.d"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

/* Kernel files that leak host state or act on the host. */
static const char *const proc_masked[] = {
	"/proc/kcore", "/proc/sysrq-trigger", "/proc/kmsg", "/proc/timer_list",
	"/proc/keys", "/proc/kallsyms", "/proc/sys", NULL
};

static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", NULL
};

static void __attribute__((noreturn))
fail(const struct runner_plan *p, const char *step, const char *arg)
{
	char buf[256];
	int e = errno, n;

	n = snprintf(buf, sizeof(buf), "%s%s%s: %s", step,
	    arg != NULL ? " " : "", arg != NULL ? arg : "", strerror(e));
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	(void)!write(p->report_fd, buf, n);
	_exit(RUNNER_SETUP_EXIT);
}

/* Returns |a| followed by |b| in |buf|, or fails on overflow. */
static const char *
cat(const struct runner_plan *p, char *buf, const char *a, const char *b)
{
	if (snprintf(buf, RUNNER_MAX_PATH, "%s%s", a, b) >= RUNNER_MAX_PATH) {
		errno = ENAMETOOLONG;
		fail(p, "path", b);
	}
	return buf;
}

static void
mkdir_p(const struct runner_plan *p, const char *path, mode_t mode)
{
	char buf[RUNNER_MAX_PATH];
	char *s;

	cat(p, buf, "", path);
	for (s = buf + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(buf, mode) == -1 && errno != EEXIST)
			fail(p, "mkdir", buf);
		*s = c;
		if (c == '\0')
			break;
	}
}

/* Creates an empty mount point for |src| (a file or directory) at |dst|. */
static void
make_point(const struct runner_plan *p, const char *dst, int isdir)
{
	char buf[RUNNER_MAX_PATH];
	char *slash;
	int fd;

	cat(p, buf, "", dst);
	if ((slash = strrchr(buf, '/')) != NULL && slash != buf) {
		*slash = '\0';
		mkdir_p(p, buf, 0755);
	}
	if (isdir) {
		if (mkdir(dst, 0755) == -1 && errno != EEXIST)
			fail(p, "mkdir", dst);
	} else {
		fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		    0444);
		if (fd == -1) {
			if (errno != EEXIST && errno != EROFS &&
			    errno != EISDIR)
				fail(p, "create", dst);
		} else
			close(fd);
	}
}

/* Binds host path |path| (under OLDROOT) at the same path, if it exists. */
static void
bind_host(const struct runner_plan *p, const char *path, int required)
{
	char src[RUNNER_MAX_PATH], lnk[RUNNER_MAX_PATH];
	struct stat st;
	ssize_t n;

	cat(p, src, OLDROOT, path);
	if (lstat(src, &st) == -1) {
		if ((errno == ENOENT || errno == EACCES) && !required)
			return;
		fail(p, "stat", path);
	}
	if (S_ISLNK(st.st_mode) && strncmp(path, "/etc/", 5) != 0) {
		/* /bin -> usr/bin on merged-/usr systems. */
		if ((n = readlink(src, lnk, sizeof(lnk) - 1)) == -1)
			fail(p, "readlink", path);
		lnk[n] = '\0';
		if (symlink(lnk, path) == -1 && errno != EEXIST)
			fail(p, "symlink", path);
		return;
	}
	if (stat(src, &st) == -1) {
		if (!required)
			return;
		fail(p, "stat", path);
	}
	make_point(p, path, S_ISDIR(st.st_mode));
	if (mount(src, path, NULL, MS_BIND | MS_REC, NULL) == -1)
		fail(p, "bind", path);
}

static void
build_dev(const struct runner_plan *p)
{
	char src[RUNNER_MAX_PATH], dst[RUNNER_MAX_PATH];
	size_t i;

	make_point(p, "/dev", 1);
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
	    "size=64k,nr_inodes=64,mode=0755") == -1)
		fail(p, "mount tmpfs", "/dev");
	for (i = 0; dev_nodes[i] != NULL; i++) {
		cat(p, dst, "/dev/", dev_nodes[i]);
		cat(p, src, OLDROOT "/dev/", dev_nodes[i]);
		make_point(p, dst, 0);
		if (mount(src, dst, NULL, MS_BIND, NULL) == -1)
			fail(p, "bind", dst);
	}
	if (symlink("/proc/self/fd", "/dev/fd") == -1 ||
	    symlink("/proc/self/fd/0", "/dev/stdin") == -1 ||
	    symlink("/proc/self/fd/1", "/dev/stdout") == -1 ||
	    symlink("/proc/self/fd/2", "/dev/stderr") == -1)
		fail(p, "symlink", "/dev");
	if (mkdir("/dev/shm", 01777) == -1)
		fail(p, "mkdir", "/dev/shm");
}

static void
build_proc(const struct runner_plan *p)
{
	struct stat st;
	size_t i;

	make_point(p, "/proc", 1);
	if (mount("proc", "/proc", "proc",
	    MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
		fail(p, "mount", "/proc");
	for (i = 0; proc_masked[i] != NULL; i++) {
		if (stat(proc_masked[i], &st) == -1)
			continue;
		if (mount(S_ISDIR(st.st_mode) ? MASK_DIR : MASK_FILE,
		    proc_masked[i], NULL, MS_BIND, NULL) == -1)
			fail(p, "mask", proc_masked[i]);
	}
}

static void
mount_tmpfs(const struct runner_plan *p, const char *path, int64_t mb)
{
	char opts[64];

	if (mb <= 0)
		mb = 64;
	snprintf(opts, sizeof(opts), "size=%lldm,mode=1777",
	    (long long)mb);
	if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opts) == -1)
		fail(p, "mount tmpfs", path);
}

static void
setattr(const struct runner_plan *p, int dfd, const char *path,
    unsigned flags, uint64_t set, uint64_t clr)
{
	struct mount_attr ma;

	memset(&ma, 0, sizeof(ma));
	ma.attr_set = set;
	ma.attr_clr = clr;
	if (mount_setattr(dfd, path, flags, &ma, sizeof(ma)) == -1)
		fail(p, "mount_setattr", path[0] ? path : "workspace");
}

static void
build_root(const struct runner_plan *p)
{
	const struct sandbox_policy *sp = p->policy;
	char buf[RUNNER_MAX_PATH], path[RUNNER_MAX_PATH];
	struct stat st;
	size_t i;
	int fd, wsfd;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		fail(p, "make mounts private", "/");
	/* A fresh tmpfs becomes "/"; the host tree waits under OLDROOT. */
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
	    "size=1m,nr_inodes=4096,mode=0755") == -1)
		fail(p, "mount root tmpfs", NULL);
	if (mkdir("/tmp" OLDROOT, 0700) == -1)
		fail(p, "mkdir", OLDROOT);
	if (syscall(SYS_pivot_root, "/tmp", "/tmp" OLDROOT) == -1)
		fail(p, "pivot_root", NULL);
	if (chdir("/") == -1)
		fail(p, "chdir", "/");

	if ((fd = open(MASK_FILE, O_CREAT | O_WRONLY | O_CLOEXEC, 0)) == -1)
		fail(p, "create", MASK_FILE);
	close(fd);
	if (mkdir(MASK_DIR, 0) == -1)
		fail(p, "mkdir", MASK_DIR);

	for (i = 0; sandbox_system_dirs[i] != NULL; i++)
		bind_host(p, sandbox_system_dirs[i], 0);
	make_point(p, "/etc", 1);
	for (i = 0; sandbox_etc_entries[i] != NULL; i++)
		bind_host(p, cat(p, buf, "/etc/", sandbox_etc_entries[i]), 0);
	for (i = 0; i < sp->nread_only; i++)
		bind_host(p, sp->read_only[i], 0);
	build_dev(p);
	build_proc(p);
	make_point(p, "/tmp", 1);
	mkdir_p(p, p->workspace, 0755);

	/* Take the workspace along as a detached tree before the host goes. */
	wsfd = open_tree(AT_FDCWD, cat(p, buf, OLDROOT, p->workspace),
	    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (wsfd == -1)
		fail(p, "open workspace", p->workspace);
	if (umount2(OLDROOT, MNT_DETACH) == -1)
		fail(p, "umount", OLDROOT);
	if (rmdir(OLDROOT) == -1)
		fail(p, "rmdir", OLDROOT);

	/* Everything so far is read-only, in one recursive step. */
	setattr(p, AT_FDCWD, "/", AT_RECURSIVE,
	    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0);

	mount_tmpfs(p, "/tmp", sp->limits.tmp_size_mb);
	mount_tmpfs(p, "/dev/shm", sp->limits.tmp_size_mb);
	/* A workspace beneath /tmp needs its mount point in the new /tmp. */
	if (strncmp(p->workspace, "/tmp/", 5) == 0 ||
	    strncmp(p->workspace, "/dev/shm/", 9) == 0)
		mkdir_p(p, p->workspace, 0755);
	setattr(p, wsfd, "", AT_EMPTY_PATH | AT_RECURSIVE,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0);
	if (move_mount(wsfd, "", AT_FDCWD, p->workspace,
	    MOVE_MOUNT_F_EMPTY_PATH) == -1)
		fail(p, "mount workspace", p->workspace);
	close(wsfd);

	/* .git and the protected paths: read-only again, beneath the rw bind. */
	for (i = 0; i < sp->nprotected; i++) {
		cat(p, path, p->workspace, "/");
		cat(p, buf, path, sp->protected[i]);
		if (lstat(buf, &st) == -1 || S_ISLNK(st.st_mode))
			continue;
		if (mount(buf, buf, NULL, MS_BIND | MS_REC, NULL) == -1)
			fail(p, "bind protected", buf);
		setattr(p, AT_FDCWD, buf, AT_RECURSIVE,
		    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0);
	}
	/* Denied paths that are visible through some bind get masked; the
	 * masks come from the read-only root, so the binds are read-only. */
	for (i = 0; i < p->ndeny; i++) {
		if (stat(p->deny[i], &st) == -1)
			continue;
		if (mount(S_ISDIR(st.st_mode) ? MASK_DIR : MASK_FILE,
		    p->deny[i], NULL, MS_BIND, NULL) == -1)
			fail(p, "mask", p->deny[i]);
	}
}

static void
set_limit(const struct runner_plan *p, int res, int64_t v, int64_t scale,
    const char *name)
{
	struct rlimit rl;

	if (v <= 0)
		return;
	rl.rlim_cur = rl.rlim_max = (rlim_t)v * (rlim_t)scale;
	if (setrlimit(res, &rl) == -1)
		fail(p, "setrlimit", name);
}

static void
apply_rlimits(const struct runner_plan *p)
{
	const struct resource_limits *l = &p->policy->limits;

	set_limit(p, RLIMIT_CPU, l->cpu_seconds, 1, "RLIMIT_CPU");
	set_limit(p, RLIMIT_AS, l->address_space_mb, 1024 * 1024, "RLIMIT_AS");
	set_limit(p, RLIMIT_FSIZE, l->file_size_mb, 1024 * 1024,
	    "RLIMIT_FSIZE");
	set_limit(p, RLIMIT_NOFILE, l->open_files, 1, "RLIMIT_NOFILE");
	set_limit(p, RLIMIT_NPROC, l->processes, 1, "RLIMIT_NPROC");
	set_limit(p, RLIMIT_CORE, 0, 1, "RLIMIT_CORE");
}

static void
setup_fds(const struct runner_plan *p)
{
	size_t i;
	int fd;

	if (p->stdin_fd == -1) {
		if ((fd = open("/dev/null", O_RDONLY)) == -1)
			fail(p, "open", "/dev/null");
	} else
		fd = p->stdin_fd;
	if (fd != 0 && dup2(fd, 0) == -1)
		fail(p, "dup2", "stdin");
	if (p->out_fd != 1 && dup2(p->out_fd, 1) == -1)
		fail(p, "dup2", "stdout");
	if (p->err_fd != 2 && dup2(p->err_fd, 2) == -1)
		fail(p, "dup2", "stderr");
	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_SETFD, 0) == -1)
			fail(p, "fcntl", "stdio");
	/* Everything else closes at exec, except what the caller keeps. */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		fail(p, "close_range", NULL);
	for (i = 0; i < p->nkeep_fds; i++)
		if (fcntl(p->keep_fds[i], F_SETFD, 0) == -1)
			fail(p, "keep fd", NULL);
}

static void
drop_caps(const struct runner_plan *p)
{
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(CAPNG_SELECT_ALL) != 0) {
		errno = EPERM;
		fail(p, "drop capabilities", NULL);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		fail(p, "clear ambient capabilities", NULL);
}

/* Reads one go-ahead byte from the parent; EOF means it died. */
static void
wait_parent(const struct runner_plan *p, char want)
{
	char c;
	ssize_t n;

	do
		n = read(p->sync_fd, &c, 1);
	while (n == -1 && errno == EINTR);
	if (n != 1 || c != want)
		_exit(RUNNER_SETUP_EXIT);
}

/* execvpe() with the search path from the command's environment. */
static void __attribute__((noreturn))
exec_command(const struct runner_plan *p)
{
	static char *const defenv[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
		"HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8", NULL
	};
	char *const *envp = p->envp != NULL ? p->envp : defenv;
	const char *path = NULL, *s, *e, *cmd = p->argv[0];
	char buf[RUNNER_MAX_PATH];
	size_t i, len;
	int err = ENOENT;

	for (i = 0; envp[i] != NULL; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			path = envp[i] + 5;
	if (path == NULL)
		path = defenv[0] + 5;
	if (strchr(cmd, '/') != NULL) {
		execve(cmd, p->argv, envp);
		err = errno;
	} else {
		for (s = path; ; s = e + 1) {
			if ((e = strchr(s, ':')) == NULL)
				e = s + strlen(s);
			len = e - s;
			if (len > 0 && len + strlen(cmd) + 2 < sizeof(buf)) {
				memcpy(buf, s, len);
				buf[len] = '/';
				strcpy(buf + len + 1, cmd);
				execve(buf, p->argv, envp);
				if (errno != ENOENT && errno != ENOTDIR)
					err = errno;
			}
			if (*e == '\0')
				break;
		}
	}
	dprintf(2, "airlock: %s: %s\n", cmd, strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

void
runner_child(const struct runner_plan *p)
{
	struct pollfd pfd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		fail(p, "prctl PR_SET_PDEATHSIG", NULL);
	/* The parent has written our uid/gid maps. */
	wait_parent(p, 'g');
	if (p->root && setgroups(0, NULL) == -1)
		fail(p, "setgroups", NULL);
	if (setresgid(p->gid, p->gid, p->gid) == -1)
		fail(p, "setresgid", NULL);
	if (setresuid(p->uid, p->uid, p->uid) == -1)
		fail(p, "setresuid", NULL);
	/* A credential change resets the death signal: set it again, and
	 * make sure the parent did not die in between. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		fail(p, "prctl PR_SET_PDEATHSIG", NULL);
	pfd.fd = p->sync_fd;
	pfd.events = 0;
	if (poll(&pfd, 1, 0) == -1 || (pfd.revents & POLLHUP))
		_exit(RUNNER_SETUP_EXIT);
	if (setsid() == -1)
		fail(p, "setsid", NULL);
	if (p->policy->workspace == WORKSPACE_COW) {
		errno = ENOTSUP;
		fail(p, "workspace mode cow", NULL);
	}
	build_root(p);
	if (sethostname("airlock", 7) == -1)
		fail(p, "sethostname", NULL);
	if (chdir(p->cwd) == -1)
		fail(p, "chdir (is the workspace readable by the runner uid?)",
		    p->cwd);
	setup_fds(p);
	drop_caps(p);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fail(p, "prctl PR_SET_NO_NEW_PRIVS", NULL);
	if (p->landlock_abi > 0) {
		const char *step = "landlock";

		if (runner_landlock_apply(p, &step) == -1)
			fail(p, step, NULL);
	}
	/* The parent has put us in our cgroup. */
	wait_parent(p, 'c');
	/* Last, so RLIMIT_NOFILE cannot fail the opens above (EMFILE). */
	apply_rlimits(p);
	if (p->bpf != NULL &&
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, p->bpf) == -1)
		fail(p, "seccomp", NULL);
	exec_command(p);
}
