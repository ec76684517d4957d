/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * child: the runner process between clone() and execve().
 *
 * It starts as the first process of fresh mount, pid, net, ipc, uts and
 * cgroup namespaces.  As root it joins its cgroup, builds the new root
 * from read-only binds as real root, drops to the runner uid/gid and only
 * then creates its user namespace, so that it holds no capability over
 * the other namespaces; as an ordinary user the user namespace came with
 * clone() and it maps itself first.  Then it sheds every capability, sets
 * no_new_privs, enters landlock and seccomp, and stays as the namespace's
 * init while a vfork-style child executes the command.  Each step either
 * succeeds or the child reports which one failed on report_fd and exits:
 * there is no half-sandboxed command.
 *
 * The child does not call malloc: the parent prepared everything
 * (runner_plan), and after a raw clone() malloc's locks may be held by a
 * thread that no longer exists here.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/seccomp.h>

#include <linux/capability.h>
#include <linux/openat2.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/util.h"
#include "policy/sandbox_defaults.h"
#include "policy/vcsdirs.h"
#include "policy/writepolicy.h"
#include "proxy/ipc.h"
#include "runner/runner.h"
#include "runner/runner_int.h"

#define OLDROOT		"/.oldroot"
#define MASK_FILE	"/.airlock-masked"
#define MASK_DIR	"/.airlock-masked.d"
/* A socket's mask: connect() to it passes the permission check and finds
 * no socket (ECONNREFUSED, as when the service is down); the mount it
 * comes from is read-only, so nothing can be written there either. */
#define MASK_SOCK	"/.airlock-socket"
/* The agents' project configuration's masks: empty, readable, so that an
 * agent reads no settings there rather than fails on them. */
#define EMPTY_FILE	"/.airlock-empty"
#define EMPTY_DIR	"/.airlock-empty.d"
/*
 * Where the overlay's layers are mounted while it is made: over two
 * directories of the old root, so that they leave with it in the one
 * umount2(OLDROOT) instead of an unmount each.  Every unmount waits for
 * an RCU grace period (0.05-0.4 ms on a busy 2-core machine), and a
 * detached mount (the caller's upper layer, the idmapped workspace)
 * unmounts itself when its last descriptor closes, which waits for one
 * too.  These mounts are private to the child's namespace, and no path
 * is looked up under them but the layers' own.
 */
#define PARK_UPPER	OLDROOT "/proc"
#define PARK_LOWER	OLDROOT "/sys"
/* A tmpfs for the layers of the overlays that hide denied paths (each
 * absent path's whiteout, absent_layer(); a read-only bind made an
 * overlay, masked_tree()), made only when one is needed and gone before
 * the command runs (park_drop()): each overlay holds its own clones of
 * its layers. */
#define PARK_MASKS	"/.airlock-park"
/* The run's writes form a change set for the caller (runner_request). */
#define CHANGES(p)	((p)->upper_dir != NULL || (p)->upper_fd != -1)

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

/*
 * The host's /proc (root mode only), where the process writes its id maps
 * (its own entry there, self/): the new /proc is read-only by then.  A
 * detached clone of the new one would do, but it would unmount itself at
 * its close, an RCU grace period on the way to the command; the host's
 * leaves with the old root.  It is reachable only through this
 * descriptor, which enter_userns() closes, before the command exists.
 */
static int proc_fd = -1;

static void __attribute__((noreturn))
fail(const struct runner_plan *p, const char *step, const char *arg)
{
	char buf[256];
	int e = errno, n;

	n = snprintf(buf, sizeof(buf), "E%s%s%s: %s", step,
	    arg != NULL ? " " : "", arg != NULL ? arg : "", strerror(e));
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	(void)!write(p->report_fd, buf, n);
	_exit(RUNNER_SETUP_EXIT);
}

/* fail() for a step that failed on a bound of the child's, not errno. */
static void __attribute__((noreturn))
failx(const struct runner_plan *p, const char *what)
{
	char buf[256];
	int n;

	n = snprintf(buf, sizeof(buf), "E%s", what);
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
	char *s, c;

	cat(p, buf, "", path);
	for (s = buf + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
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

	cat(p, buf, "", dst);
	if ((slash = strrchr(buf, '/')) != NULL && slash != buf) {
		*slash = '\0';
		mkdir_p(p, buf, 0755);
	}
	if (isdir) {
		if (mkdir(dst, 0755) == -1 && errno != EEXIST)
			fail(p, "mkdir", dst);
	} else if (mknod(dst, S_IFREG | 0444, 0) == -1 && errno != EEXIST &&
	    errno != EROFS)
		/* Create-only, never open() for writing: as root, an existing
		 * |dst| could be a host file (a running binary, say). */
		fail(p, "create", dst);
}

/* The plan's entry for the read-only or read-write entry |path|, or NULL
 * (a path of the base set). */
static const struct plan_bind *
planned(const struct runner_plan *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->nbinds; i++)
		if (strcmp(p->binds[i].path, path) == 0)
			return &p->binds[i];
	return NULL;
}

/*
 * A detached copy of the host source the parent checked for |b|
 * (PLAN_BIND), opened with no symlink followed in any component: what was
 * swapped in since the check fails the run instead of being bound.
 */
static int
planned_tree(const struct runner_plan *p, const struct plan_bind *b,
    struct stat *st)
{
	struct open_how how;
	char src[RUNNER_MAX_PATH];
	int fd, tfd;

	cat(p, src, OLDROOT, b->src);
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS;
	if ((fd = (int)syscall(SYS_openat2, AT_FDCWD, src, &how,
	    sizeof(how))) == -1 || fstat(fd, st) == -1)
		fail(p, "open as checked (no symlink followed)", b->path);
	if ((tfd = open_tree(fd, "", AT_EMPTY_PATH | OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_RECURSIVE)) == -1)
		fail(p, "open_tree", b->path);
	close(fd);
	return tfd;
}

/* Makes |path| a symbolic link to |text|, and its directory first (it may
 * exist only in the new root: an agent's command in ~/.local/bin, say). */
static void
make_link(const struct runner_plan *p, const char *path, const char *text)
{
	char dir[RUNNER_MAX_PATH];

	cat(p, dir, "", path);
	*strrchr(dir, '/') = '\0';
	if (dir[0] != '\0')
		mkdir_p(p, dir, 0755);
	if (symlink(text, path) == -1 && errno != EEXIST)
		fail(p, "symlink", path);
}

static int masked_tree(const struct runner_plan *, const char *, int);
static int park_made; /* PARK_MASKS is mounted */

/* The masks' layers leave, once every overlay of them is made. */
static void
park_drop(const struct runner_plan *p)
{
	if (!park_made)
		return;
	if (umount2(PARK_MASKS, MNT_DETACH) == -1 || rmdir(PARK_MASKS) == -1)
		fail(p, "remove", PARK_MASKS);
}

/* Binds host path |path| (under OLDROOT) at the same path, if it exists. */
static void
bind_host(const struct runner_plan *p, const char *path, int required)
{
	char src[RUNNER_MAX_PATH], lnk[RUNNER_MAX_PATH];
	const struct plan_bind *b;
	struct stat st;
	ssize_t n;
	int fd;

	/* A policy entry: as the parent checked it (plan_binds()). */
	if ((b = planned(p, path)) != NULL) {
		if (b->how == PLAN_LINK)
			make_link(p, path, b->src);
		if (b->how != PLAN_BIND)
			return;
		fd = planned_tree(p, b, &st);
		if (S_ISDIR(st.st_mode))
			fd = masked_tree(p, path, fd);
		make_point(p, path, S_ISDIR(st.st_mode));
		if (move_mount(fd, "", AT_FDCWD, path,
		    MOVE_MOUNT_F_EMPTY_PATH) == -1)
			fail(p, "bind", path);
		close(fd);
		return;
	}
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
		make_link(p, path, lnk);
		return;
	}
	/* What a link under /etc/ names (lstat() told the rest). */
	if (S_ISLNK(st.st_mode) && stat(src, &st) == -1) {
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
	if (p->root && (proc_fd = open(OLDROOT "/proc", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		fail(p, "open", "/proc");
	for (i = 0; proc_masked[i] != NULL; i++) {
		if (stat(proc_masked[i], &st) == -1)
			continue;
		if (mount(S_ISDIR(st.st_mode) ? MASK_DIR : MASK_FILE,
		    proc_masked[i], NULL, MS_BIND, NULL) == -1)
			fail(p, "mask", proc_masked[i]);
	}
}

/*
 * The inodes a tmpfs of |mb| may hold: two per page of its size.  They
 * are kernel memory, charged to no cgroup where the run has none (an
 * ordinary user's), and the tmpfs default is half the RAM's pages: a run
 * that made two million empty files in /tmp pinned 2 GB of it.  A file
 * with data takes a page anyway; the second is for directories and
 * empty files.
 */
static long long
tmpfs_inodes(int64_t mb)
{
	return mb > (1LL << 30) ? 1LL << 39 : (long long)mb * 512;
}

static void
mount_tmpfs(const struct runner_plan *p, const char *path, int64_t mb)
{
	char opts[96];

	if (mb <= 0)
		mb = 64;
	snprintf(opts, sizeof(opts), "size=%lldm,nr_inodes=%lld,mode=1777",
	    (long long)mb, tmpfs_inodes(mb));
	if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opts) == -1)
		fail(p, "mount tmpfs", path);
}

/*
 * Takes |path| of the host along as a detached mount, for binding after
 * the new /tmp exists; -1 if it does not exist.  *isdir says what it is.
 */
static int
detach_host(const struct runner_plan *p, const char *path, int *isdir)
{
	const struct plan_bind *b;
	char src[RUNNER_MAX_PATH];
	struct stat st;
	int fd;

	*isdir = 0;
	if ((b = planned(p, path)) != NULL) {
		if (b->how != PLAN_BIND)
			return -1;
		fd = planned_tree(p, b, &st);
		*isdir = S_ISDIR(st.st_mode);
		return fd;
	}
	cat(p, src, OLDROOT, path);
	if (stat(src, &st) == -1)
		return -1;
	*isdir = S_ISDIR(st.st_mode);
	if ((fd = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_RECURSIVE)) == -1)
		fail(p, "open_tree", path);
	return fd;
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
fsconf(const struct runner_plan *p, int fd, const char *key, const char *val)
{
	if (fsconfig(fd, val != NULL ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG,
	    key, val, 0) == -1)
		fail(p, "overlay option", key);
}

/*
 * Repository metadata at the workspace root that a session's runner
 * takes from the real checkout, never from the session's upper layer:
 * the agent of a copy-on-write session writes that layer freely, and a
 * .git/config or hook of its making (core.fsmonitor, diff.external,
 * core.sshCommand, a pre-push hook) would run in a check or a tool
 * granted a secret or the network.  The names are policy/vcsdirs.h's
 * (.git, .hg, .jj, .sl).
 */

/* Detached read-only copies of LOWER/.git etc.; -1 where there is none. */
static void
vcs_open(const struct runner_plan *p, const char *lower, int *vcsfd)
{
	char buf[RUNNER_MAX_PATH], dir[RUNNER_MAX_PATH];
	struct mount_attr ma;
	size_t i;

	for (i = 0; vcs_dirs[i] != NULL; i++) {
		cat(p, dir, lower, "/");
		cat(p, buf, dir, vcs_dirs[i]);
		vcsfd[i] = open_tree(AT_FDCWD, buf, OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
		if (vcsfd[i] == -1) {
			if (errno != ENOENT)
				fail(p, "open", buf);
			continue;
		}
		memset(&ma, 0, sizeof(ma));
		ma.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NODEV;
		if (mount_setattr(vcsfd[i], "", AT_EMPTY_PATH | AT_RECURSIVE,
		    &ma, sizeof(ma)) == -1)
			fail(p, "read-only", buf);
	}
}

/*
 * Puts the real checkout's metadata (vcs_open) over the session's view
 * at |ws|, read-only; where the checkout has none, whatever the view
 * holds by that name is masked.  A view whose entry cannot be covered
 * (the agent removed the real one, or made it another type) fails the
 * run: it never runs on the session's copy.
 */
static void
vcs_real(const struct runner_plan *p, const char *ws, int *vcsfd)
{
	char buf[RUNNER_MAX_PATH], dir[RUNNER_MAX_PATH];
	struct stat st;
	size_t i;

	for (i = 0; vcs_dirs[i] != NULL; i++) {
		cat(p, dir, ws, "/");
		cat(p, buf, dir, vcs_dirs[i]);
		if (vcsfd[i] == -1) {
			if (lstat(buf, &st) == -1) {
				if (errno != ENOENT)
					fail(p, "stat", buf);
				continue;
			}
			if (mount(S_ISDIR(st.st_mode) ? MASK_DIR : MASK_FILE,
			    buf, NULL, MS_BIND, NULL) == -1)
				fail(p, "mask the session's", buf);
			setattr(p, AT_FDCWD, buf, 0, MOUNT_ATTR_RDONLY |
			    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0);
			continue;
		}
		if (move_mount(vcsfd[i], "", AT_FDCWD, buf,
		    MOVE_MOUNT_F_EMPTY_PATH) == -1)
			fail(p, "the checkout's own", buf);
		close(vcsfd[i]);
		vcsfd[i] = -1;
	}
}

/*
 * Repository metadata the agent planted deeper in its view: vcs_real()
 * covers the root, but git run in src/ reads src/.git (or src/ itself,
 * a bare repository: a HEAD beside objects/ and refs/), and its config
 * runs commands just the same.  The session's upper layer holds every
 * entry the agent made or changed, and only those, so that is what is
 * walked: each entry named .git, .hg, .jj or .sl (any case; a directory, a
 * gitdir: file or a symlink) or a file or symlink named HEAD (any
 * case), at any depth, is covered in the runner's view after the
 * overlay is mounted (vcs_cover()).  Where the checkout has the same
 * path, of the same type (a submodule's .git, a nested repository the
 * agent touched), the checkout's own is bound over it read-only, as at
 * the root; everywhere else an empty directory or file is, read-only,
 * and git walks past it (an empty HEAD is no repository's) or stops on
 * it (a gitdir: file it cannot read).  Masking rather than refusing: a
 * session whose agent ran "git init" in a directory still runs its
 * checks, and it is what vcs_real() does where the checkout has no
 * .git.  The walk is bounded; a view past a bound, an entry that cannot be read and
 * more plants than VCS_MAX_PLANTS fail the run (sandbox_setup) instead
 * of running on what was not looked at.  Whiteouts (a removal) show
 * nothing and are passed over.
 */
#define VCS_MAX_PLANTS	64
#define VCS_MAX_DEPTH	256
#define VCS_MAX_ENTRIES	(1L << 20)

struct vcs_plant {
	char	path[RUNNER_MAX_PATH];	/* relative to the workspace */
	int	fd;	/* the checkout's own, detached; -1: mask it */
	int	isdir;
};

static struct vcs_plant vcs_plants[VCS_MAX_PLANTS];
static size_t vcs_nplants;

struct vcs_dirent {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

/*
 * A bounded walk of a tree by its directories' descriptors (getdents,
 * no allocation: the runner's child walks with what it has).  |path|
 * (RUNNER_MAX_PATH bytes) holds the walked directory's path, |len|
 * bytes, for messages; each entry's is appended while it is visited.
 * A walk past max_depth or max_entries fails the run with the walk's
 * own words (failx); a name gone since it was listed is passed over.
 */
struct tree_walk {
	int	 max_depth;
	long	 max_entries;
	long	 entries;
	const char *too_deep;	/* failx() text past max_depth */
	const char *too_many;	/* failx() text past max_entries */
	const char *unreadable;	/* fail() text of a directory not listed */
	/* Called for each entry, |name| in |dfd|, its path |path| (|sub|
	 * bytes), its type |mode| (S_IFMT bits); descends by calling
	 * tree_walk_dir() itself. */
	void	(*visit)(const struct runner_plan *, struct tree_walk *,
		    int dfd, const char *name, char *path, size_t sub,
		    mode_t mode, int depth);
	void	*arg;
};

static void
tree_walk_dir(const struct runner_plan *p, struct tree_walk *w, int dfd,
    char *path, size_t len, int depth)
{
	char buf[1024] __attribute__((aligned(8)));
	struct vcs_dirent *de;
	struct stat st;
	mode_t mode;
	long n, off;
	size_t sub;

	if (depth > w->max_depth)
		failx(p, w->too_deep);
	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += de->d_reclen) {
			de = (struct vcs_dirent *)(buf + off);
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (++w->entries > w->max_entries)
				failx(p, w->too_many);
			sub = len + (len > 0) + strlen(de->d_name);
			if (sub >= RUNNER_MAX_PATH) {
				errno = ENAMETOOLONG;
				fail(p, "path", de->d_name);
			}
			if (len > 0)
				path[len] = '/';
			memcpy(path + len + (len > 0), de->d_name,
			    sub - len - (len > 0) + 1);
			if (de->d_type != DT_UNKNOWN)
				mode = DTTOIF(de->d_type);
			else if (fstatat(dfd, de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0)
				mode = st.st_mode & S_IFMT;
			else if (errno == ENOENT)
				mode = 0;
			else
				fail(p, "stat", path);
			if (mode != 0)
				w->visit(p, w, dfd, de->d_name, path, sub, mode,
				    depth);
			path[len] = '\0';
		}
	}
	if (n == -1)
		fail(p, w->unreadable, len > 0 ? path : "view");
}

/* Whether |name| in a directory at |depth| (0: the root) is a plant. */
static int
vcs_planted(const char *name, int depth, int isdir)
{
	if (vcs_dir_name(name))
		/* The root's own .git, .hg etc. are vcs_real()'s. */
		return depth > 0 || !vcs_dir_exact(name);
	return !isdir && strcasecmp(name, "HEAD") == 0;
}

/*
 * Records the plant at |rel| (of type |mode| in the view): with the
 * checkout's own, detached and read-only, where |lowerfd| (the real
 * checkout) has |rel| with the same type, no symlink followed.
 */
static void
vcs_record(const struct runner_plan *p, int lowerfd, const char *rel,
    mode_t mode)
{
	struct vcs_plant *v;
	struct open_how how;
	struct mount_attr ma;
	struct stat st;
	int fd;

	if (vcs_nplants == VCS_MAX_PLANTS)
		failx(p, "the session's view holds more than 64 .git, .hg, "
		    ".jj, .sl or HEAD entries of its own; a runner covers no "
		    "more");
	v = &vcs_plants[vcs_nplants++];
	cat(p, v->path, "", rel);
	v->isdir = S_ISDIR(mode);
	v->fd = -1;
	if (!S_ISDIR(mode) && !S_ISREG(mode))
		return;
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH;
	if ((fd = (int)syscall(SYS_openat2, lowerfd, rel, &how,
	    sizeof(how))) == -1) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return;
		fail(p, "open the checkout's", rel);
	}
	if (fstat(fd, &st) == -1)
		fail(p, "stat the checkout's", rel);
	if ((st.st_mode & S_IFMT) != (mode & S_IFMT)) {
		close(fd);
		return;
	}
	if ((v->fd = open_tree(fd, "", AT_EMPTY_PATH | OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_RECURSIVE)) == -1)
		fail(p, "open_tree the checkout's", rel);
	close(fd);
	memset(&ma, 0, sizeof(ma));
	ma.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	if (mount_setattr(v->fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma,
	    sizeof(ma)) == -1)
		fail(p, "read-only", rel);
}

/*
 * Walks directory |dfd| of the session's upper layer, whose path in the
 * view is |path| (|len| bytes; "" for the root).  |path| is one buffer
 * of RUNNER_MAX_PATH for the whole walk, each level appending its names,
 * so that a level costs the stack only its getdents buffer.
 */
static void
vcs_visit(const struct runner_plan *p, struct tree_walk *w, int dfd,
    const char *name, char *path, size_t sub, mode_t mode, int depth)
{
	int fd;

	/* A whiteout (char 0/0): the name is removed from the view; the
	 * agent makes no other device. */
	if (S_ISCHR(mode))
		return;
	if (vcs_planted(name, depth, S_ISDIR(mode)))
		vcs_record(p, *(int *)w->arg, path, mode);
	else if (S_ISDIR(mode) && (depth > 0 || !vcs_dir_exact(name))) {
		/* (The root's .git, .hg etc.: covered whole.) */
		if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1)
			fail(p, "open the session's", path);
		tree_walk_dir(p, w, fd, path, sub, depth + 1);
		close(fd);
	}
}

/*
 * Finds the plants in the session's upper layer (p->lower_upper), with
 * |lower| the real checkout, before the overlay is made of them.
 */
static void
vcs_walk(const struct runner_plan *p, const char *lower)
{
	struct tree_walk w = {
		.max_depth = VCS_MAX_DEPTH,
		.max_entries = VCS_MAX_ENTRIES,
		.too_deep = "the session's changes nest more than 256 "
		    "directories deep; a runner checks no deeper for "
		    "repository metadata",
		.too_many = "the session's changes hold more than 1048576 "
		    "entries; a runner checks no more for repository metadata",
		.unreadable = "read the session's",
		.visit = vcs_visit,
	};
	char buf[RUNNER_MAX_PATH], path[RUNNER_MAX_PATH];
	int ufd, lfd;

	vcs_nplants = 0;
	if ((ufd = open(cat(p, buf, OLDROOT, p->lower_upper), O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		fail(p, "open the session's upper layer", p->lower_upper);
	if ((lfd = open(lower, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		fail(p, "open workspace", p->workspace);
	path[0] = '\0';
	w.arg = &lfd;
	tree_walk_dir(p, &w, ufd, path, 0, 0);
	close(lfd);
	close(ufd);
}

/* Sends /proc/self/ns/|name| over the view socket, tagged |tag|. */
static void
send_ns(const struct runner_plan *p, const char *name, const char *tag)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		fail(p, "open", path);
	if (proxy_send_fd(p->view_sock, fd, tag, 1) != 0)
		fail(p, "hand the view's namespaces to airlock", NULL);
	close(fd);
}

/*
 * Covers each plant of vcs_walk() in the view mounted at |ws|: with the
 * checkout's own, or a read-only mask of the type it has now.  The path
 * is opened with no symlink followed and never above |ws|: the agent
 * may have changed its view since the walk, and a symlink of its making
 * must not take a mount elsewhere.
 */
static void
vcs_cover(const struct runner_plan *p, const char *ws)
{
	char buf[RUNNER_MAX_PATH], dir[RUNNER_MAX_PATH];
	struct vcs_plant *v;
	struct open_how how;
	struct mount_attr ma;
	struct stat st;
	size_t i;
	int wfd, tfd, mfd;

	if ((wfd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		fail(p, "open", ws);
	for (i = 0; i < vcs_nplants; i++) {
		v = &vcs_plants[i];
		cat(p, dir, ws, "/");
		cat(p, buf, dir, v->path);
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
		how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH;
		if ((tfd = (int)syscall(SYS_openat2, wfd, v->path, &how,
		    sizeof(how))) == -1) {
			/* Gone from the view since the walk: nothing
			 * there to see. */
			if (errno == ENOENT && v->fd == -1)
				continue;
			fail(p, "cover the agent's repository metadata", buf);
		}
		if (fstat(tfd, &st) == -1)
			fail(p, "stat", buf);
		if (v->fd != -1) {
			if (S_ISDIR(st.st_mode) != v->isdir) {
				errno = EEXIST;
				fail(p, "the checkout's own", buf);
			}
			mfd = v->fd;
		} else if ((mfd = open_tree(AT_FDCWD, S_ISDIR(st.st_mode) ?
		    MASK_DIR : MASK_FILE, OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC)) == -1)
			fail(p, "open_tree", MASK_FILE);
		memset(&ma, 0, sizeof(ma));
		ma.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NODEV;
		if (mount_setattr(mfd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma,
		    sizeof(ma)) == -1 || move_mount(mfd, "", tfd, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) == -1)
			fail(p, v->fd != -1 ? "the checkout's own" :
			    "mask the agent's repository metadata", buf);
		close(mfd);
		close(tfd);
		v->fd = -1;
	}
	close(wfd);
	vcs_nplants = 0;
}

/*
 * The checkout's git hooks in a session's view (plan.hooks, found by the
 * parent in the checkout: policy/githooks.h): the hooks directories of
 * its config (husky's .husky/_ and .husky, a .githooks), the config files
 * it includes, the hook managers' configs.  git run by a check reads the
 * checkout's config (vcs_real()), and that config runs these files of
 * the working tree, which in the view are the agent's to write: a check
 * granted a secret that commits, or that runs "git status" under an
 * included core.fsmonitor, would run the agent's command with the
 * secret.  hooks_open() takes the checkout's own of each (a directory or
 * regular file, no symlink followed) before the old root goes;
 * hooks_cover() puts it over the view's, read-only, or masks the view's
 * where the checkout has none of that type.  A symlink of the view's on
 * the way is masked where it stands, so git finds no hooks through it.
 * A path the view lacks is left alone: nothing runs from it.  The plan
 * also names the hook managers' configs the agent wrote deeper (a
 * nested .lintstagedrc.json, a package.json's "lint-staged" key),
 * found by the parent in the session's upper layer
 * (policy/hookplants.h); they are covered the same way.
 */
static int hook_fd[RUNNER_MAX_HOOKS];
static unsigned char hook_isdir[RUNNER_MAX_HOOKS];

static void
hooks_open(const struct runner_plan *p, const char *lower)
{
	struct open_how how;
	struct mount_attr ma;
	struct stat st;
	size_t i;
	int lfd, fd;

	if ((lfd = open(lower, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		fail(p, "open workspace", p->workspace);
	for (i = 0; i < p->hooks.n; i++) {
		hook_fd[i] = -1;
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
		how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH;
		if ((fd = (int)syscall(SYS_openat2, lfd, p->hooks.paths[i], &how,
		    sizeof(how))) == -1) {
			if (errno == ENOENT || errno == ENOTDIR ||
			    errno == ELOOP)
				continue;
			fail(p, "open the checkout's", p->hooks.paths[i]);
		}
		if (fstat(fd, &st) == -1)
			fail(p, "stat the checkout's", p->hooks.paths[i]);
		if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) {
			hook_isdir[i] = S_ISDIR(st.st_mode);
			if ((hook_fd[i] = open_tree(fd, "", AT_EMPTY_PATH |
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			    AT_RECURSIVE)) == -1)
				fail(p, "open_tree the checkout's",
				    p->hooks.paths[i]);
			memset(&ma, 0, sizeof(ma));
			ma.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			    MOUNT_ATTR_NODEV;
			if (mount_setattr(hook_fd[i], "", AT_EMPTY_PATH |
			    AT_RECURSIVE, &ma, sizeof(ma)) == -1)
				fail(p, "read-only", p->hooks.paths[i]);
		}
		close(fd);
	}
	close(lfd);
}

/* Mounts the detached |mfd| over |tfd| read-only, and closes |mfd|. */
static void
cover_with(const struct runner_plan *p, int mfd, int tfd, const char *what,
    const char *path)
{
	struct mount_attr ma;

	memset(&ma, 0, sizeof(ma));
	ma.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	if (mount_setattr(mfd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma,
	    sizeof(ma)) == -1 || move_mount(mfd, "", tfd, "",
	    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) == -1)
		fail(p, what, path);
	close(mfd);
}

/* A mask of |st|'s type (an empty directory or file), detached. */
static int
mask_tree(const struct runner_plan *p, const struct stat *st)
{
	int mfd;

	if ((mfd = open_tree(AT_FDCWD, S_ISDIR(st->st_mode) ? MASK_DIR :
	    MASK_FILE, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) == -1)
		fail(p, "open_tree", MASK_FILE);
	return mfd;
}

/*
 * Opens |rel| in the view at |wfd| with no symlink followed.  Where a
 * symlink stands on the way, cuts |rel| to it (|buf|) and opens that.
 * -1 where the view has nothing there.
 */
static int
hook_open_view(const struct runner_plan *p, int wfd, const char *rel,
    char *buf)
{
	struct open_how how;
	char *slash;
	int fd;

	cat(p, buf, "", rel);
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH;
	for (;;) {
		if ((fd = (int)syscall(SYS_openat2, wfd, buf, &how,
		    sizeof(how))) != -1)
			return fd;
		if (errno == ENOENT || errno == ENOTDIR)
			return -1;
		if (errno != ELOOP)
			fail(p, "open the session's", rel);
		/* A symlink before the last name: try the shorter path,
		 * whose last name may be it. */
		if ((slash = strrchr(buf, '/')) == NULL)
			fail(p, "open the session's", rel);
		*slash = '\0';
	}
}

static void
hooks_cover(const struct runner_plan *p, const char *ws)
{
	char buf[RUNNER_MAX_PATH];
	struct stat st;
	size_t i;
	int wfd, tfd, mfd, same;

	if ((wfd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		fail(p, "open", ws);
	for (i = 0; i < p->hooks.n; i++) {
		if ((tfd = hook_open_view(p, wfd, p->hooks.paths[i], buf)) == -1)
			goto next;
		if (fstat(tfd, &st) == -1)
			fail(p, "stat", buf);
		/* The checkout's own where the view has that path, of its
		 * type; a mask elsewhere. */
		same = strcmp(buf, p->hooks.paths[i]) == 0 && !S_ISLNK(st.st_mode) &&
		    S_ISDIR(st.st_mode) == hook_isdir[i];
		if (hook_fd[i] != -1 && same) {
			mfd = hook_fd[i];
			hook_fd[i] = -1;
		} else
			mfd = mask_tree(p, &st);
		cover_with(p, mfd, tfd, "cover the session's git hook", buf);
		close(tfd);
next:
		if (hook_fd[i] != -1)
			close(hook_fd[i]);
		hook_fd[i] = -1;
	}
	close(wfd);
}

/*
 * The user namespace of an idmapped workspace (as root, when the runner's
 * uid does not own it), or -1: the parent makes it after clone() and
 * sends it while we build the rest of the root (plan.idmap_later): "I"
 * with it, or "I" alone when none could be made (the runner then keeps
 * the owner's permissions).
 */
static int idmap_fd = -1;

static void
receive_idmap(const struct runner_plan *p)
{
	size_t len;
	char tag;

	if (!p->idmap_later)
		return;
	if (proxy_recv_fd(p->sync_fd, &idmap_fd, &tag, 1, &len) != 1 ||
	    len != 1)
		_exit(RUNNER_SETUP_EXIT);
	if (tag != 'I') {
		errno = EPROTO;
		fail(p, "the workspace's id map", NULL);
	}
}

/* Makes the mask layer's directory |dir| with the owner and mode of
 * |real|, the directory it stands over in the overlay (which shows the
 * topmost layer's). */
static void
absent_dir_like(const struct runner_plan *p, const char *dir,
    const char *real)
{
	struct stat st;

	if (stat(real, &st) == -1)
		fail(p, "stat", real);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		fail(p, "mkdir", dir);
	if (chown(dir, st.st_uid, st.st_gid) == -1 && p->root)
		fail(p, "chown", dir);
	if (chmod(dir, st.st_mode & 07777) == -1)
		fail(p, "chmod", dir);
}

/*
 * Whites out |rel| ("/a/b/c", beneath |lower|) in the layer |layer|,
 * with the directories on its way made like |lower|'s.
 */
static void
absent_whiteout(const struct runner_plan *p, const char *lower,
    const char *layer, char *rel)
{
	char real[RUNNER_MAX_PATH], mask[RUNNER_MAX_PATH];
	size_t j;

	for (j = 1; rel[j] != '\0'; j++) {
		if (rel[j] != '/')
			continue;
		rel[j] = '\0';
		absent_dir_like(p, cat(p, mask, layer, rel),
		    cat(p, real, lower, rel));
		rel[j] = '/';
	}
	if (mknod(cat(p, mask, layer, rel), S_IFCHR, makedev(0, 0)) == -1 &&
	    errno != EEXIST)
		fail(p, "whiteout", mask);
}

/* PARK_MASKS/|name| (a new directory) in |out|, the tmpfs made first. */
static const char *
park_dir(const struct runner_plan *p, const char *name, char *out)
{
	if (!park_made++ && (mkdir(PARK_MASKS, 0700) == -1 ||
	    mount("tmpfs", PARK_MASKS, "tmpfs", MS_NOSUID | MS_NODEV,
	    "size=1m,nr_inodes=4096,mode=0700") == -1))
		fail(p, "mount tmpfs", "the masks' layers");
	cat(p, out, PARK_MASKS "/", name);
	if (mkdir(out, 0700) == -1)
		fail(p, "mkdir", out);
	return out;
}

/* |path| ("/a//./b/") as "/a/b" in |rel| (RUNNER_MAX_PATH bytes). */
static void
absent_rel(const struct runner_plan *p, const char *path, char *rel)
{
	size_t j = 0, k;

	while (*path != '\0') {
		while (*path == '/')
			path++;
		k = strcspn(path, "/");
		if (k > 0 && !(k == 1 && path[0] == '.')) {
			if (j + 1 + k >= RUNNER_MAX_PATH) {
				errno = ENAMETOOLONG;
				fail(p, "path", path);
			}
			rel[j++] = '/';
			memcpy(rel + j, path, k);
			j += k;
		}
		path += k;
	}
	rel[j] = '\0';
}

/*
 * Each denied path beneath |top| (the workspace, or a read-only bind,
 * as the sandbox names it) that |lower| (the same as the overlay's lower
 * layer) does not hold is whited out at its first missing component in
 * a layer the overlay puts above |lower|, PARK_MASKS/|name|.  A mask
 * is a mount, which needs a place: such a path was masked by nothing,
 * and a file made there on the host once the run had started (a .env
 * the user wrote, a key a tool fetched) showed through to a job or a
 * copy-on-write agent.  What the run itself makes there
 * is in its own upper layer, above the whiteout.  The layer is made
 * only when needed: its path in |layer| (RUNNER_MAX_PATH bytes), or
 * NULL.
 */
static const char *
absent_layer(const struct runner_plan *p, const char *top, const char *lower,
    const char *name, char *layer)
{
	char real[RUNNER_MAX_PATH], rel[RUNNER_MAX_PATH];
	struct stat st;
	size_t i, j, n = strlen(top);
	int made = 0;
	char c;

	for (i = 0; i < p->ndeny; i++) {
		if (strncmp(p->deny[i], top, n) != 0 || p->deny[i][n] != '/')
			continue;
		absent_rel(p, p->deny[i] + n, rel);
		for (j = 1; rel[j - 1] != '\0'; j++) {
			if ((c = rel[j]) != '/' && c != '\0')
				continue;
			rel[j] = '\0';
			if (lstat(cat(p, real, lower, rel), &st) == -1) {
				if (errno == ENOENT) {
					if (!made++)
						absent_dir_like(p, park_dir(p,
						    name, layer), lower);
					absent_whiteout(p, lower, layer, rel);
				}
				break;
			}
			/* Present: the mask mounted over it covers it. */
			if (c == '\0' || !S_ISDIR(st.st_mode))
				break;
			rel[j] = c;
		}
	}
	return made ? layer : NULL;
}

/*
 * The read-only bind of |path| (its tree detached as |tfd|, consumed)
 * where a denied path lies beneath it: an overlay of the tree instead,
 * with the absent denied paths whited out above it (absent_layer()).  A
 * mask is a mount, and one on the host's own dentry is detached by the
 * kernel when the file is renamed over from another mount namespace:
 * "aws configure" or "gh auth login" replacing a masked token while a
 * job or the agent ran unmasked it there, as did a token written once
 * the sandbox was up.  The overlay's dentries are its own: a rename in
 * the tree beneath does not touch a mask on them.  What it costs: a
 * name the sandbox looked up before the host made it stays absent to
 * it, and the mounts beneath the tree are not shown.  Returns the
 * overlay (detached), or |tfd| itself where nothing is denied beneath.
 */
static int
masked_tree(const struct runner_plan *p, const char *path, int tfd)
{
	static int nmasked;
	char tree[RUNNER_MAX_PATH], layer[RUNNER_MAX_PATH], name[32];
	char lbuf[2 * RUNNER_MAX_PATH + sizeof(MASK_DIR) + 3];
	const char *absent;
	size_t i, n = strlen(path);
	int fd, mfd;

	for (i = 0; i < p->ndeny; i++)
		if (strncmp(p->deny[i], path, n) == 0 && p->deny[i][n] == '/')
			break;
	if (i == p->ndeny)
		return tfd;
	snprintf(name, sizeof(name), "tree%d", nmasked);
	if (move_mount(tfd, "", AT_FDCWD, park_dir(p, name, tree),
	    MOVE_MOUNT_F_EMPTY_PATH) == -1)
		fail(p, "park", path);
	close(tfd);
	snprintf(name, sizeof(name), "absent%d", nmasked++);
	absent = absent_layer(p, path, tree, name, layer);
	/* An overlay with no upper layer needs two lower ones. */
	if ((size_t)snprintf(lbuf, sizeof(lbuf), "%s%s%s:%s",
	    absent != NULL ? absent : "", absent != NULL ? ":" : "", tree,
	    MASK_DIR) >= sizeof(lbuf)) {
		errno = ENAMETOOLONG;
		fail(p, "overlay option", "lowerdir");
	}
	if ((fd = fsopen("overlay", FSOPEN_CLOEXEC)) == -1)
		fail(p, "fsopen", "overlay");
	fsconf(p, fd, "lowerdir", lbuf);
	if (!p->root)
		fsconf(p, fd, "userxattr", NULL);
	if (fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == -1)
		fail(p, "create overlay", path);
	if ((mfd = fsmount(fd, FSMOUNT_CLOEXEC, 0)) == -1)
		fail(p, "fsmount", path);
	close(fd);
	return mfd;
}

/*
 * An overlay whose lower layer is the workspace.  WORKSPACE_COW: the
 * upper layer is a tmpfs of tmp_size_mb; the command's writes vanish with
 * the run.  With p->upper_dir: the upper layer is that host directory,
 * airlock's, and the writes stay there for the broker to check and apply
 * as a change set; with p->upper_fd, the same in the broker's detached
 * tmpfs.  With |ro|: no upper layer at all, the workspace over an empty
 * directory (an overlay needs two layers then), read-only.  Either way
 * the real workspace is untouched, and a unix socket bound in it on the
 * host refuses a connection made through the overlay (ECONNREFUSED): its
 * inode there is the overlay's.  Returns a detached mount.
 */
static int
cow_workspace(const struct runner_plan *p, const char *lower, int *vcsfd,
    int ro)
{
	struct stat st;
	char opts[96], lbuf[3 * RUNNER_MAX_PATH + 2];
	char layer[RUNNER_MAX_PATH];
	const char *absent;
	char ubuf[RUNNER_MAX_PATH], wbuf[RUNNER_MAX_PATH];
	const char *upper = PARK_UPPER "/upper", *work = PARK_UPPER "/work";
	int64_t mb;
	int fd, mfd;

	if (ro)
		;
	else if (p->upper_fd != -1) {
		/* The caller's tmpfs joins the old root (PARK_UPPER).  A
		 * kernel that cannot move it there still reaches it through
		 * this process's /proc. */
		if (move_mount(p->upper_fd, "", AT_FDCWD, PARK_UPPER,
		    MOVE_MOUNT_F_EMPTY_PATH) == -1) {
			snprintf(ubuf, sizeof(ubuf), "/proc/self/fd/%d/upper",
			    p->upper_fd);
			snprintf(wbuf, sizeof(wbuf), "/proc/self/fd/%d/work",
			    p->upper_fd);
			upper = ubuf;
			work = wbuf;
		}
	} else if (p->upper_dir != NULL) {
		upper = cat(p, ubuf, OLDROOT, p->upper_dir);
		work = cat(p, wbuf, OLDROOT, p->work_dir);
	} else {
		mb = p->policy->limits.tmp_size_mb > 0 ?
		    p->policy->limits.tmp_size_mb : 64;
		snprintf(opts, sizeof(opts), "size=%lldm,nr_inodes=%lld,"
		    "mode=0755", (long long)mb, tmpfs_inodes(mb));
		if (mount("tmpfs", PARK_UPPER, "tmpfs", MS_NOSUID | MS_NODEV,
		    opts) == -1)
			fail(p, "mount tmpfs", "the upper layer");
		if (mkdir(upper, 0700) == -1 || mkdir(work, 0700) == -1)
			fail(p, "mkdir", "the upper layer");
	}
	/* The overlay's root takes the upper directory's owner and mode:
	 * give it the workspace's, as the runner will see it. */
	if (stat(lower, &st) == -1)
		fail(p, "stat", p->workspace);
	if (idmap_fd != -1) {
		/*
		 * The lower layer is the workspace through an idmapped mount,
		 * so the runner's uid may change the owner's files there too
		 * (the changes land in the upper layer).
		 */
		struct mount_attr ma;
		int lfd;

		if ((lfd = open_tree(AT_FDCWD, lower, OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC | AT_RECURSIVE)) == -1)
			fail(p, "open workspace", p->workspace);
		memset(&ma, 0, sizeof(ma));
		ma.attr_set = MOUNT_ATTR_IDMAP;
		ma.userns_fd = (uint64_t)idmap_fd;
		/* Moved before it is closed: closing it detached would
		 * unmount it on its own. */
		if (mount_setattr(lfd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma,
		    sizeof(ma)) == 0 && move_mount(lfd, "", AT_FDCWD,
		    PARK_LOWER, MOVE_MOUNT_F_EMPTY_PATH) == 0) {
			lower = PARK_LOWER;
			st.st_uid = p->uid;
			st.st_gid = p->gid;
		}
		close(lfd);
	}
	if (!ro && chown(upper, st.st_uid, st.st_gid) == -1 && p->root)
		fail(p, "chown", upper);
	if (!ro && chmod(upper, st.st_mode & 07777) == -1)
		fail(p, "chmod", upper);
	/* The denied paths absent now, whited out above the workspace. */
	absent = absent_layer(p, p->workspace, lower, "absent", layer);
	if ((fd = fsopen("overlay", FSOPEN_CLOEXEC)) == -1)
		fail(p, "fsopen", "overlay");
	if (ro) {
		/* The overlay's root takes the topmost layer's owner and
		 * mode: the workspace's. */
		if ((size_t)snprintf(lbuf, sizeof(lbuf), "%s%s%s:%s",
		    absent != NULL ? absent : "", absent != NULL ? ":" : "",
		    lower, MASK_DIR) >= sizeof(lbuf)) {
			errno = ENAMETOOLONG;
			fail(p, "overlay option", "lowerdir");
		}
		fsconf(p, fd, "lowerdir", lbuf);
		if (!p->root)
			fsconf(p, fd, "userxattr", NULL);
		goto create;
	}
	if (p->lower_upper != NULL) {
		/* The checkout's own repository metadata, for vcs_real(). */
		vcs_open(p, lower, vcsfd);
		/* And what the agent planted deeper, for vcs_cover(). */
		vcs_walk(p, lower);
		/* The checkout's git hooks, for hooks_cover(). */
		hooks_open(p, lower);
		/* A session's changes over the workspace (lower_upper). */
		if ((size_t)snprintf(lbuf, sizeof(lbuf), "%s%s:%s%s%s", OLDROOT,
		    p->lower_upper, absent != NULL ? absent : "",
		    absent != NULL ? ":" : "", lower) >= sizeof(lbuf)) {
			errno = ENAMETOOLONG;
			fail(p, "overlay option", "lowerdir");
		}
		fsconf(p, fd, "lowerdir", lbuf);
	} else {
		if ((size_t)snprintf(lbuf, sizeof(lbuf), "%s%s%s",
		    absent != NULL ? absent : "", absent != NULL ? ":" : "",
		    lower) >= sizeof(lbuf)) {
			errno = ENAMETOOLONG;
			fail(p, "overlay option", "lowerdir");
		}
		fsconf(p, fd, "lowerdir", lbuf);
	}
	fsconf(p, fd, "upperdir", upper);
	fsconf(p, fd, "workdir", work);
	if (!p->root)
		fsconf(p, fd, "userxattr", NULL);
	/* The session's upper layer is another overlay's, in use: no
	 * index, which would refuse it. */
	if (p->lower_upper != NULL && !CHANGES(p))
		fsconf(p, fd, "index", "off");
	if (CHANGES(p)) {
		/*
		 * The change set is read from the upper layer alone: every
		 * changed file there whole (no metadata-only copies), no
		 * redirects to lower directories, no index of hard links.
		 */
		fsconf(p, fd, "metacopy", "off");
		/* "off" still follows where the kernel is built with
		 * redirect_always_follow, which userxattr refuses. */
		fsconf(p, fd, "redirect_dir", "nofollow");
		fsconf(p, fd, "index", "off");
		/* No sync of the upper filesystem when the run ends (that
		 * would wait for every dirty page on the host's disk): the
		 * broker syncs each file it applies. */
		if (!p->upper_durable)
			fsconf(p, fd, "volatile", NULL);
	}
create:
	if (fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == -1)
		fail(p, "create overlay", p->workspace);
	if ((mfd = fsmount(fd, FSMOUNT_CLOEXEC, 0)) == -1)
		fail(p, "fsmount", "overlay");
	close(fd);
	/* The overlay holds its own references to its layers; they leave
	 * with the old root. */
	return mfd;
}

/*
 * The unix sockets beneath a workspace bound as it is (live_workspace,
 * runner.h): connect() needs only write permission on a socket's inode,
 * which neither a read-only mount nor landlock takes away, so each one
 * is masked by an empty file (MASK_SOCK), through its directory's
 * descriptor (no path is looked up again).  The walk crosses the mounts
 * beneath the workspace, which the sandbox sees too, follows no
 * symlink, and is bounded: past SOCK_MAX_* the run fails (a setup
 * error) rather than leave a socket unmasked.  A directory the walk
 * may not list but may pass through fails it too; one it may not even
 * pass through is skipped (the command, with no more rights, cannot
 * reach into it either).
 */
#define SOCK_MAX_DEPTH		256
#define SOCK_MAX_ENTRIES	(1L << 22)
#define SOCK_MAX_MASKS		4096

static long sock_masks;

static void
sockets_visit(const struct runner_plan *p, struct tree_walk *w, int dfd,
    const char *name, char *path, size_t sub, mode_t mode, int depth)
{
	int fd, mfd;

	if (S_ISSOCK(mode)) {
		if (++sock_masks > SOCK_MAX_MASKS)
			failx(p, "the workspace holds more than 4096 unix "
			    "sockets; airlock masks no more");
		if ((mfd = open_tree(AT_FDCWD, MASK_SOCK, OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC)) == -1)
			fail(p, "open_tree", MASK_SOCK);
		if (move_mount(mfd, "", dfd, name, MOVE_MOUNT_F_EMPTY_PATH) ==
		    -1 && errno != ENOENT)
			fail(p, "mask the unix socket", path);
		close(mfd);
	} else if (S_ISDIR(mode)) {
		if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) != -1) {
			tree_walk_dir(p, w, fd, path, sub, depth + 1);
			close(fd);
		} else if (errno != ENOENT && (errno != EACCES ||
		    faccessat(dfd, name, X_OK, AT_EACCESS) == 0))
			fail(p, "list (to mask its unix sockets)", path);
	}
}

/*
 * The agents' own project configuration at the workspace's top: a cloned
 * repository's hooks, helpers, MCP servers, plugins, models and
 * environment for Claude Code, Codex, Gemini CLI and opencode, which the
 * agent started there would read (docs/WRAPPING.md).  The agent's sandbox
 * (live_workspace) sees each one present at its start as an empty
 * directory or file (EMPTY_DIR, EMPTY_FILE), read-only; a name that is a
 * symbolic link is masked where it leads, when that is in the workspace,
 * and one that leads to the workspace itself fails the start.  The
 * broker's tools and the runners still see them; none of them may make,
 * change or remove one (writepolicy's agent_config rule), which the mask,
 * on what the start found, would not cover.
 */
static const char *const *const agent_config = writepolicy_agent_config;

/*
 * The agents' instruction files at the workspace's top (Claude Code's,
 * Codex's and opencode's, Gemini CLI's), which each CLI puts before the
 * model as it starts.  They are the repository's text, which the model
 * reads through the broker anyway, and are shown as they are; but one
 * that is a symbolic link out of the workspace would put what it leads
 * to in the agent's sandbox before the model: /proc/self/environ (the
 * agent's API key), a token in agent.home.
 */
static const char *const agent_instructions[] = {
	"AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "CLAUDE.local.md",
	"GEMINI.md", NULL
};

/*
 * Masks the symbolic link |name| in the workspace's top (|wsfd|) itself
 * with an empty file, which no lookup follows past: for one that does
 * not lead into the workspace, where nothing is the repository's.
 */
static void
agent_link_mask(const struct runner_plan *p, int wsfd, const char *name,
    const char *path)
{
	int mfd;

	if ((mfd = open_tree(AT_FDCWD, EMPTY_FILE, OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC)) == -1)
		fail(p, "open_tree", EMPTY_FILE);
	if (move_mount(mfd, "", wsfd, name, MOVE_MOUNT_F_EMPTY_PATH) == -1)
		fail(p, "mask the link", path);
	close(mfd);
}

/*
 * Masks |name| at the workspace's top (|wsfd|): a configuration name
 * (|config|) where it leads in the workspace; any link that leads out of
 * it, or nowhere the start can tell, itself.
 */
static void
agent_name_mask(const struct runner_plan *p, int wsfd, const char *name,
    int config)
{
	char path[RUNNER_MAX_PATH], real[PATH_MAX];
	struct stat st;
	size_t n = strlen(p->workspace);
	int link;

	cat(p, real, p->workspace, "/");
	cat(p, path, real, name);
	if (fstatat(wsfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno == ENOENT)
			return;
		fail(p, "stat the agent's configuration", path);
	}
	link = S_ISLNK(st.st_mode);
	if (realpath(path, real) == NULL) {
		if (link) {
			agent_link_mask(p, wsfd, name, path);
			return;
		}
		/* Nothing the agent could read either. */
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP ||
		    errno == EACCES)
			return;
		fail(p, "resolve the agent's configuration", path);
	}
	/* A link to the workspace itself shows its top as the
	 * configuration (.claude/settings.json its settings.json): no mask
	 * can cover that. */
	if (config && strcmp(real, p->workspace) == 0) {
		errno = ELOOP;
		fail(p, "mask the agent's configuration (a link to the "
		    "workspace)", path);
	}
	if (strncmp(real, p->workspace, n) != 0 || real[n] != '/') {
		if (link)
			agent_link_mask(p, wsfd, name, path);
		return;
	}
	if (!config)
		return;
	if (stat(real, &st) == -1)
		fail(p, "stat the agent's configuration", real);
	if (mount(S_ISDIR(st.st_mode) ? EMPTY_DIR : EMPTY_FILE, real, NULL,
	    MS_BIND, NULL) == -1)
		fail(p, "mask the agent's configuration", real);
}

static void
agent_config_mask(const struct runner_plan *p)
{
	size_t i;
	int wsfd;

	if ((wsfd = open(p->workspace, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		fail(p, "open", p->workspace);
	for (i = 0; agent_config[i] != NULL; i++)
		agent_name_mask(p, wsfd, agent_config[i], 1);
	for (i = 0; agent_instructions[i] != NULL; i++)
		agent_name_mask(p, wsfd, agent_instructions[i], 0);
	close(wsfd);
}

static void
sockets_mask(const struct runner_plan *p, const char *ws)
{
	struct tree_walk w = {
		.max_depth = SOCK_MAX_DEPTH,
		.max_entries = SOCK_MAX_ENTRIES,
		.too_deep = "the workspace nests more than 256 directories "
		    "deep; airlock looks no deeper for unix sockets to mask",
		.too_many = "the workspace holds more than 4194304 entries; "
		    "airlock looks no further for unix sockets to mask",
		.unreadable = "list (to mask its unix sockets)",
		.visit = sockets_visit,
	};
	char path[RUNNER_MAX_PATH];
	size_t len;
	int fd;

	sock_masks = 0;
	len = strlen(ws);
	while (len > 0 && ws[len - 1] == '/')
		len--;
	if (len >= sizeof(path)) {
		errno = ENAMETOOLONG;
		fail(p, "path", ws);
	}
	memcpy(path, ws, len);
	path[len] = '\0';
	if ((fd = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		fail(p, "open", ws);
	tree_walk_dir(p, &w, fd, path, len, 0);
	close(fd);
}

/*
 * Each directory between |top|, a writable bind, and the denied path
 * |deny| beneath it is bound on itself before the mask: a mount point
 * cannot be renamed (EBUSY).  Before, "mv conf c2" in a writable
 * workspace carried a masked conf/secrets to c2/secrets, a name the
 * next runner's mask (made from names) and the broker's checks did not
 * know, and they showed it.  MS_REC keeps the binds beneath (.git, the
 * protected paths); a bind keeps the flags of the mount it comes from.
 */
static void
pin_parents(const struct runner_plan *p, const char *deny, const char *top)
{
	char path[RUNNER_MAX_PATH];
	struct stat st;
	size_t n = strlen(top), i;

	while (n > 0 && top[n - 1] == '/')
		n--;
	if (strncmp(deny, top, n) != 0 || deny[n] != '/')
		return;
	for (i = n + 1; deny[i] != '\0'; i++) {
		if (deny[i] != '/' || deny[i - 1] == '/')
			continue;
		if (i >= sizeof(path)) {
			errno = ENAMETOOLONG;
			fail(p, "pin", deny);
		}
		memcpy(path, deny, i);
		path[i] = '\0';
		if (lstat(path, &st) == -1 || !S_ISDIR(st.st_mode))
			return;
		if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) == -1)
			fail(p, "pin the parent of a denied path", path);
	}
}

/*
 * Makes the missing home entry |path| (agent.homeReadOnly |rel|) a mount
 * point, with the missing directories above it, owned as the home |top|
 * is (the agent's, for its later writes beside it): a directory when
 * |rel| ends in "/", else a file, empty but for "{}" in a .json file
 * (what the agents read as no settings).
 */
static void
home_entry_make(const struct runner_plan *p, const char *top,
    const char *path, const char *rel)
{
	char buf[RUNNER_MAX_PATH];
	struct stat home;
	size_t i, n = strlen(rel);
	int fd, dir = n > 0 && rel[n - 1] == '/';

	if (lstat(top, &home) == -1)
		fail(p, "stat", top);
	for (i = strlen(top) + 1; ; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(buf, path, i);
		buf[i] = '\0';
		if (path[i] == '\0' && !dir) {
			if ((fd = open(buf, O_CREAT | O_EXCL | O_WRONLY |
			    O_NOFOLLOW | O_CLOEXEC, 0644)) == -1)
				fail(p, "create a read-only home entry", buf);
			if (n > 5 && strcmp(rel + n - 5, ".json") == 0 &&
			    write(fd, "{}\n", 3) != 3)
				fail(p, "write", buf);
			close(fd);
		} else if (mkdir(buf, 0755) == -1) {
			if (errno != EEXIST)
				fail(p, "mkdir", buf);
			if (path[i] == '\0')
				break;
			continue;
		}
		if (lchown(buf, home.st_uid, home.st_gid) == -1)
			fail(p, "chown a read-only home entry", buf);
		if (path[i] == '\0')
			break;
	}
}

/*
 * Fails unless no component of |path| beneath the home |top| is a symbolic
 * link: the link is no mount point, so the agent could put a file of its
 * own in its place, which the next session would bind read-only and run.
 */
static void
home_no_link(const struct runner_plan *p, const char *path, const char *top)
{
	char buf[RUNNER_MAX_PATH];
	struct stat st;
	size_t i;

	for (i = strlen(top) + 1; ; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(buf, path, i);
		buf[i] = '\0';
		if (lstat(buf, &st) == -1 || S_ISLNK(st.st_mode)) {
			errno = ELOOP;
			fail(p, "read-only home entry (a symbolic link)", buf);
		}
		if (path[i] == '\0')
			return;
	}
}

/*
 * Sets |path| (RUNNER_MAX_PATH bytes) to the home |top|'s entry |rel|
 * (agent.homeReadOnly, agent.homeScratch) without a trailing "/", made
 * first when missing (home_entry_make()), each directory between |top|
 * and it pinned (pin_parents()); fails if a symbolic link is on the way
 * (home_no_link()).
 */
static void
home_entry_ready(const struct runner_plan *p, const char *top,
    const char *rel, char *path)
{
	char buf[RUNNER_MAX_PATH];
	struct stat st;
	size_t n;

	cat(p, path, cat(p, buf, top, "/"), rel);
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	if (lstat(path, &st) == -1) {
		if (errno != ENOENT)
			fail(p, "home entry", path);
		home_entry_make(p, top, path, rel);
	}
	pin_parents(p, path, top);
	home_no_link(p, path, top);
}

/*
 * The agent's own configuration in its home (agent.homeReadOnly), what
 * its CLI reads and runs programs from (hooks, MCP servers, notify): each
 * entry bound read-only on itself, a missing one made first, and each
 * directory between the home and it pinned (pin_parents()), so that no
 * write, rename over it, rename of a directory above it or link in its
 * place lands a file the next session runs.  A symbolic link on the way
 * fails the start (home_no_link()).
 */
static void
home_read_only(const struct runner_plan *p, const struct sandbox_policy *sp)
{
	char path[RUNNER_MAX_PATH];
	size_t i;

	for (i = 0; i < sp->nhome_ro; i++) {
		home_entry_ready(p, sp->home, sp->home_ro[i], path);
		if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) == -1)
			fail(p, "bind read-only home entry", path);
		setattr(p, AT_FDCWD, path, AT_RECURSIVE,
		    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
		    0);
	}
}

/*
 * The agent's scratch directories in its home (agent.homeScratch), what
 * its CLI writes per project and reads back at a later start (Gemini
 * CLI's ~/.gemini/tmp/<project>/memory/MEMORY.md, put before the model):
 * each an empty tmpfs, the home owner's, made anew in every session, so
 * that nothing the agent writes there reaches the next one, whatever
 * project name it is under.  A missing one is made first; the
 * directories above it are pinned (pin_parents()) and no link may be on
 * the way (home_no_link()), as for home_read_only().
 */
static void
home_scratch(const struct runner_plan *p, const struct sandbox_policy *sp)
{
	char path[RUNNER_MAX_PATH], opts[128];
	struct stat home;
	size_t i;

	if (sp->nhome_scratch > 0 && lstat(sp->home, &home) == -1)
		fail(p, "stat", sp->home);
	for (i = 0; i < sp->nhome_scratch; i++) {
		home_entry_ready(p, sp->home, sp->home_scratch[i], path);
		snprintf(opts, sizeof(opts),
		    "size=64m,nr_inodes=%lld,mode=0700,uid=%lu,gid=%lu",
		    tmpfs_inodes(64), (unsigned long)home.st_uid,
		    (unsigned long)home.st_gid);
		if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV,
		    opts) == -1)
			fail(p, "mount home scratch directory", path);
	}
}

static void
build_root(const struct runner_plan *p)
{
	const struct sandbox_policy *sp = p->policy;
	char buf[RUNNER_MAX_PATH], path[RUNNER_MAX_PATH];
	struct stat st;
	size_t i, j, nlate = 0;
	int fd, wsfd, homefd, brokerfd, vcsfd[VCS_DIRS], bound;
	int late[RUNNER_MAX_LATE], late_dir[RUNNER_MAX_LATE];
	int rwfd[RUNNER_MAX_RW], rwdir[RUNNER_MAX_RW];

	for (i = 0; i < VCS_DIRS; i++)
		vcsfd[i] = -1;
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
	if ((fd = open(MASK_SOCK, O_CREAT | O_WRONLY | O_CLOEXEC, 0)) == -1 ||
	    fchmod(fd, 0666) == -1)
		fail(p, "create", MASK_SOCK);
	close(fd);
	if ((fd = open(EMPTY_FILE, O_CREAT | O_WRONLY | O_CLOEXEC, 0)) == -1 ||
	    fchmod(fd, 0444) == -1)
		fail(p, "create", EMPTY_FILE);
	close(fd);
	if (mkdir(EMPTY_DIR, 0555) == -1 || chmod(EMPTY_DIR, 0555) == -1)
		fail(p, "mkdir", EMPTY_DIR);

	for (i = 0; sandbox_system_dirs[i] != NULL; i++)
		bind_host(p, sandbox_system_dirs[i], 0);
	make_point(p, "/etc", 1);
	for (i = 0; sandbox_etc_entries[i] != NULL; i++)
		bind_host(p, cat(p, buf, "/etc/", sandbox_etc_entries[i]), 0);
	for (i = 0; i < p->nextra_ro; i++)
		if (!runner_under_tmp(p->extra_ro[i]))
			bind_host(p, p->extra_ro[i], 0);
		else if (nlate == RUNNER_MAX_LATE)
			fail(p, "too many read-only paths beneath /tmp",
			    p->extra_ro[i]);
		else {
			late[nlate] = detach_host(p, p->extra_ro[i],
			    &late_dir[nlate]);
			if (late[nlate] != -1 && late_dir[nlate])
				late[nlate] = masked_tree(p, p->extra_ro[i],
				    late[nlate]);
			nlate++;
		}
	build_dev(p);
	build_proc(p);
	make_point(p, "/tmp", 1);
	mkdir_p(p, p->workspace, 0755);

	/* The agent's persistent home comes along as a detached tree. */
	homefd = -1;
	if (sp->home != NULL) {
		mkdir_p(p, sp->home, 0755);
		if ((homefd = open_tree(AT_FDCWD, cat(p, buf, OLDROOT,
		    sp->home), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) == -1)
			fail(p, "open home", sp->home);
	}
	/* And the broker's socket directory, at its fixed place. */
	brokerfd = -1;
	if (sp->broker_dir != NULL) {
		mkdir_p(p, SANDBOX_BROKER_DIR, 0755);
		if ((brokerfd = open_tree(AT_FDCWD, cat(p, buf, OLDROOT,
		    sp->broker_dir), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) == -1)
			fail(p, "open broker directory", sp->broker_dir);
	}
	/* So do the read-write binds (airlock run --rw). */
	for (i = 0; i < sp->nread_write; i++) {
		if ((rwfd[i] = detach_host(p, sp->read_write[i],
		    &rwdir[i])) == -1)
			fail(p, "open read-write path", sp->read_write[i]);
		if (!runner_under_tmp(sp->read_write[i]))
			make_point(p, sp->read_write[i], rwdir[i]);
	}
	receive_idmap(p);
	/*
	 * The workspace last: its overlay's layers cover parts of the old
	 * root (PARK_UPPER, PARK_LOWER).  A read-only workspace is an
	 * overlay too, with no upper layer, unless the run needs the live
	 * one (the agent's sandbox): a socket a host service has bound in
	 * the workspace refuses connections there.
	 */
	bound = plan_ws_view(p) == PLAN_WS_LIVE;
	if (!bound)
		wsfd = cow_workspace(p, cat(p, buf, OLDROOT, p->workspace),
		    vcsfd, plan_ws_view(p) == PLAN_WS_OVERLAY_RO);
	else if ((wsfd = open_tree(AT_FDCWD, cat(p, buf, OLDROOT,
	    p->workspace), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_RECURSIVE)) == -1)
		fail(p, "open workspace", p->workspace);
	else if (idmap_fd != -1) {
		struct mount_attr ma;

		/* Where the filesystem cannot idmap, the runner keeps the
		 * owner's permissions: writes then fail, never land. */
		memset(&ma, 0, sizeof(ma));
		ma.attr_set = MOUNT_ATTR_IDMAP;
		ma.userns_fd = (uint64_t)idmap_fd;
		(void)mount_setattr(wsfd, "", AT_EMPTY_PATH | AT_RECURSIVE,
		    &ma, sizeof(ma));
	}
	park_drop(p);
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
	/* Read-only binds that live beneath the new /tmp come in now. */
	for (i = 0, j = 0; i < p->nextra_ro; i++) {
		if (!runner_under_tmp(p->extra_ro[i]))
			continue;
		if (late[j] != -1) {
			make_point(p, p->extra_ro[i], late_dir[j]);
			setattr(p, late[j], "", AT_EMPTY_PATH | AT_RECURSIVE,
			    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			    MOUNT_ATTR_NODEV, 0);
			if (move_mount(late[j], "", AT_FDCWD, p->extra_ro[i],
			    MOVE_MOUNT_F_EMPTY_PATH) == -1)
				fail(p, "bind", p->extra_ro[i]);
			close(late[j]);
		}
		j++;
	}
	setattr(p, wsfd, "", AT_EMPTY_PATH | AT_RECURSIVE,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0);
	if (move_mount(wsfd, "", AT_FDCWD, p->workspace,
	    MOVE_MOUNT_F_EMPTY_PATH) == -1)
		fail(p, "mount workspace", p->workspace);
	close(wsfd);
	if (p->lower_upper != NULL) {
		vcs_real(p, p->workspace, vcsfd);
		vcs_cover(p, p->workspace);
		hooks_cover(p, p->workspace);
	}
	if (p->view_sock != -1) {
		/* The caller's handle on this very overlay (send_view). */
		if ((fd = open(p->workspace, O_PATH | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			fail(p, "open", p->workspace);
		if (proxy_send_fd(p->view_sock, fd, "V", 1) != 0)
			fail(p, "hand the workspace view to airlock", NULL);
		close(fd);
		/* ...and the namespaces it was made in, where the broker
		 * of an ordinary user's run can make it read-only
		 * (broker/viewfreeze.h). */
		send_ns(p, "user", "U");
		send_ns(p, "mnt", "M");
		close(p->view_sock);
	}
	if (homefd != -1) {
		if (runner_under_tmp(sp->home))
			mkdir_p(p, sp->home, 0755);
		setattr(p, homefd, "", AT_EMPTY_PATH,
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0);
		if (move_mount(homefd, "", AT_FDCWD, sp->home,
		    MOVE_MOUNT_F_EMPTY_PATH) == -1)
			fail(p, "mount home", sp->home);
		close(homefd);
		home_scratch(p, sp);
		home_read_only(p, sp);
	}
	if (brokerfd != -1) {
		setattr(p, brokerfd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY |
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, 0);
		if (move_mount(brokerfd, "", AT_FDCWD, SANDBOX_BROKER_DIR,
		    MOVE_MOUNT_F_EMPTY_PATH) == -1)
			fail(p, "mount broker directory", SANDBOX_BROKER_DIR);
		close(brokerfd);
	}
	for (i = 0; i < sp->nread_write; i++) {
		if (runner_under_tmp(sp->read_write[i]))
			make_point(p, sp->read_write[i], rwdir[i]);
		setattr(p, rwfd[i], "", AT_EMPTY_PATH | AT_RECURSIVE,
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0);
		if (move_mount(rwfd[i], "", AT_FDCWD, sp->read_write[i],
		    MOVE_MOUNT_F_EMPTY_PATH) == -1)
			fail(p, "bind read-write", sp->read_write[i]);
		close(rwfd[i]);
	}
	if (sp->workspace_readonly || p->workspace_readonly)
		setattr(p, AT_FDCWD, p->workspace, AT_RECURSIVE,
		    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0);

	/*
	 * .git and the protected paths: read-only again, on the rw bind.
	 * Not over an overlay whose change set the broker checks: there the
	 * write policy refuses them at any depth, present or not, and a run
	 * that tries is refused as a whole.
	 */
	for (i = 0; !CHANGES(p) && i < sp->nprotected; i++) {
		cat(p, path, p->workspace, "/");
		cat(p, buf, path, sp->protected[i]);
		if (lstat(buf, &st) == -1 || S_ISLNK(st.st_mode))
			continue;
		if (mount(buf, buf, NULL, MS_BIND | MS_REC, NULL) == -1)
			fail(p, "bind protected", buf);
		setattr(p, AT_FDCWD, buf, AT_RECURSIVE,
		    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
		    0);
	}
	/* Denied paths that are visible through some bind get masked; the
	 * masks come from the read-only root, so the binds are read-only. */
	for (i = 0; i < p->ndeny; i++) {
		pin_parents(p, p->deny[i], p->workspace);
		if (sp->home != NULL)
			pin_parents(p, p->deny[i], sp->home);
		for (j = 0; j < sp->nread_write; j++)
			pin_parents(p, p->deny[i], sp->read_write[j]);
	}
	for (i = 0; i < p->ndeny; i++) {
		if (stat(p->deny[i], &st) == -1)
			continue;
		if (mount(S_ISDIR(st.st_mode) ? MASK_DIR : MASK_FILE,
		    p->deny[i], NULL, MS_BIND, NULL) == -1)
			fail(p, "mask", p->deny[i]);
	}
	if (bound)
		sockets_mask(p, p->workspace);
	if (p->live_workspace)
		agent_config_mask(p);
}

static void
set_limit(const struct runner_plan *p, int res, int64_t v, int64_t scale,
    const char *name)
{
	struct rlimit rl;

	if (v <= 0)
		return;
	rl.rlim_cur = rl.rlim_max = (rlim_t)v * (rlim_t)scale;
	/* SIGXCPU first, so that the cause can be told; SIGKILL 1 s later. */
	if (res == RLIMIT_CPU)
		rl.rlim_max = rl.rlim_cur + 1;
	if (setrlimit(res, &rl) == -1)
		fail(p, "setrlimit", name);
}

/*
 * The RUNNER_USER_SHARE-th part of a limit the kernel counts per user
 * (runner_int.h), soft and hard.  The limit bounds the count of the
 * process's user namespace; the count of the namespace above, the sum of
 * all below it, is bounded by the limit the maker of the namespace below
 * had when it made it.  So in the session's namespace, set before the
 * runner's is made, it bounds the session's sum too.  An unlimited one
 * leaves nothing to share.
 */
static void
share_limit(const struct runner_plan *p, int res, const char *name)
{
	struct rlimit rl;

	if (getrlimit(res, &rl) == -1)
		fail(p, "getrlimit", name);
	if (rl.rlim_cur == RLIM_INFINITY)
		return;
	rl.rlim_cur /= RUNNER_USER_SHARE;
	rl.rlim_max = rl.rlim_cur;
	if (setrlimit(res, &rl) == -1)
		fail(p, "setrlimit", name);
}

static void
share_limits(const struct runner_plan *p)
{
	share_limit(p, RLIMIT_SIGPENDING, "RLIMIT_SIGPENDING");
	share_limit(p, RLIMIT_MSGQUEUE, "RLIMIT_MSGQUEUE");
	share_limit(p, RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK");
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
	if (p->session_userns == -1)
		share_limits(p);
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

/*
 * No capability in any set, by system call alone: libcap-ng would reread
 * /proc/self/status through stdio (a lock, an allocation), which the
 * child must not take (runner_int.h).  The bounding set first (dropping
 * from it needs CAP_SETPCAP, which the capset() below takes away), then
 * the ambient set, then effective, permitted and inheritable at once.
 */
static void
drop_caps(const struct runner_plan *p)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int cap;

	for (cap = 0; cap <= p->cap_last; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1 &&
		    errno != EINVAL)
			fail(p, "drop bounding capabilities", NULL);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		fail(p, "clear ambient capabilities", NULL);
	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capset, &hdr, data) == -1)
		fail(p, "drop capabilities", NULL);
}

/* Exits quietly if the parent is gone (its end of sync_fd hung up). */
static void
check_parent(const struct runner_plan *p)
{
	struct pollfd pfd;

	pfd.fd = p->sync_fd;
	pfd.events = 0;
	if (poll(&pfd, 1, 0) == -1 || (pfd.revents & POLLHUP))
		_exit(RUNNER_SETUP_EXIT);
}

static void
write_at(const struct runner_plan *p, int dfd, const char *file,
    const char *val)
{
	size_t len = strlen(val);
	int fd;

	if ((fd = openat(dfd, file, O_WRONLY | O_CLOEXEC)) == -1)
		fail(p, "open", file);
	if (write(fd, val, len) != (ssize_t)len)
		fail(p, "write", file);
	close(fd);
}


/*
 * Caps the new user namespace's share of its uid's per-user counts
 * (runner_int.h), while the process holds CAP_SYS_RESOURCE in it; |dfd|
 * and |dir| name the directory /proc is in.  No process of the sandbox
 * can raise them: none has a capability once the command runs.
 */
static void
cap_user_counts(const struct runner_plan *p, int dfd, const char *dir)
{
	char path[RUNNER_MAX_PATH], file[64], val[32];
	size_t i;

	for (i = 0; i < RUNNER_USER_COUNTS; i++) {
		if (p->user_caps[i] < 0)
			continue;
		snprintf(file, sizeof(file), "sys/user/%s",
		    runner_user_counts[i]);
		snprintf(val, sizeof(val), "%ld\n", p->user_caps[i]);
		write_at(p, dfd, cat(p, path, dir, file), val);
	}
}

/*
 * The user namespace: as root it is created here, after the root was
 * built and root was dropped, so that the mount, pid, net, ipc, uts and
 * cgroup namespaces belong to the initial user namespace and the runner
 * holds no capability over any of them.  Either way the process maps
 * only its own uid and gid, and setgroups is denied, and the namespace
 * caps what its processes take of the uid's per-user counts; as root in
 * a session it is made inside the session's, which caps the session's.
 */
static void
enter_userns(const struct runner_plan *p)
{
	char map[64], path[RUNNER_MAX_PATH];
	const char *dir;
	int dfd;

	/* Our /proc/self files belong to root until we are dumpable. */
	if (prctl(PR_SET_DUMPABLE, 1) == -1)
		fail(p, "prctl PR_SET_DUMPABLE", NULL);
	/*
	 * Made in the session's (runner_session_nest()), the namespace
	 * takes our limits as its caps on the session's sum
	 * (share_limits()): set first.
	 */
	if (p->session_userns != -1) {
		share_limits(p);
		if (setns(p->session_userns, CLONE_NEWUSER) == -1)
			fail(p, "setns", "the session's user namespace");
		close(p->session_userns);
	}
	if (p->root && unshare(CLONE_NEWUSER) == -1)
		fail(p, "unshare", "CLONE_NEWUSER");
	dfd = proc_fd != -1 ? proc_fd : AT_FDCWD;
	dir = proc_fd != -1 ? "self/" : "/proc/self/";
	write_at(p, dfd, cat(p, path, dir, "setgroups"), "deny");
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)p->uid,
	    (unsigned)p->uid);
	write_at(p, dfd, cat(p, path, dir, "uid_map"), map);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)p->gid,
	    (unsigned)p->gid);
	write_at(p, dfd, cat(p, path, dir, "gid_map"), map);
	cap_user_counts(p, dfd, proc_fd != -1 ? "" : "/proc/");
	if (proc_fd != -1)
		close(proc_fd);
	proc_fd = -1;
}

/*
 * execvpe() with the search path from the command's environment.  It runs
 * on the init's private stack (see run_init), which AddressSanitizer
 * cannot follow: it is not instrumented.
 */
static void __attribute__((noreturn, no_sanitize_address))
exec_command(const struct runner_plan *p)
{
	static char *const defenv[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:"
		    "/sbin",
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

static char command_stack[64 * 1024] __attribute__((aligned(16)));

static int __attribute__((no_sanitize_address))
command_main(void *arg)
{
	const struct runner_plan *p = arg;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		_exit(RUNNER_SETUP_EXIT);
	exec_command(p);
}

/*
 * The namespace's first process stays a tiny init, fully sandboxed like
 * the command: it reaps orphans and, when the command ends, reports its
 * wait status on report_fd and exits, which kills whatever the command
 * left behind.  The command itself is not pid 1, so signals it sends
 * itself behave as usual.
 */
/*
 * The command's argv and environment, copied out of this process's own
 * command line (p->argv may point into the supervisor's, which the init
 * overwrites with a neutral one before the command can read
 * /proc/1/cmdline).  The copy is one anonymous mapping (mmap, not malloc:
 * the child may not allocate), as large as the vectors are.
 */
static struct runner_plan init_plan;

/* The bytes |v| needs: its pointers and its strings. */
static size_t
vec_size(char *const *v, size_t *n)
{
	size_t bytes = 0;

	for (*n = 0; v != NULL && v[*n] != NULL; (*n)++)
		bytes += strlen(v[*n]) + 1;
	return bytes + (*n + 1) * sizeof(char *);
}

/* Lays |v| (|n| entries) out at *at; returns the copy's vector. */
static char **
vec_copy(char *const *v, size_t n, char **at)
{
	char **out = (char **)(void *)*at, *str = *at + (n + 1) * sizeof(char *);
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(v[i]) + 1;
		memcpy(str, v[i], len);
		out[i] = str;
		str += len;
	}
	out[n] = NULL;
	/* The next vector's pointers stay aligned. */
	*at = str + (-(uintptr_t)str & (sizeof(char *) - 1));
	return out;
}

static const struct runner_plan *
plan_with_own_vectors(const struct runner_plan *p)
{
	size_t na, ne, bytes;
	char *map, *at;

	bytes = vec_size(p->argv, &na) + vec_size(p->envp, &ne) +
	    2 * sizeof(char *);
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		fail(p, "mmap", "the command's arguments");
	init_plan = *p;
	at = map;
	init_plan.argv = vec_copy(p->argv, na, &at);
	if (p->envp != NULL)
		init_plan.envp = vec_copy(p->envp, ne, &at);
	return &init_plan;
}

/*
 * Whether the init has a child left once the command is reaped: every
 * process of the namespace descends from it, and the command's own
 * children are made ours before its end reaches us.  A waitid() that
 * neither waits nor reaps; 1 if it cannot tell.
 */
static int
others_left(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 ||
	    errno != ECHILD;
}

static void __attribute__((noreturn))
run_init(const struct runner_plan *p)
{
	unsigned char rec[1 + sizeof(int)];
	pid_t pid, cmd;
	int status;

	/* The init shows a neutral command line before the command starts. */
	p = plan_with_own_vectors(p);
	proc_args_set("airlock-init");
	/* vfork semantics on a stack of its own: no copy of the page
	 * tables this process inherited from airlock. */
	cmd = clone(command_main, command_stack + sizeof(command_stack),
	    CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)p);
	if (cmd == -1)
		fail(p, "clone", "command");
	close(0);
	close(1);
	close(2);
	for (;;) {
		pid = wait(&status);
		if (pid == -1 && errno == EINTR)
			continue;
		if (pid == -1)
			_exit(RUNNER_SETUP_EXIT);
		if (pid == cmd)
			break;
	}
	/* 'w': others of the command's are left (an orphan its end made
	 * ours), until our exit kills them; a denial of theirs may still
	 * come (runner.c: report_read()). */
	rec[0] = others_left() ? 'w' : 'W';
	memcpy(rec + 1, &status, sizeof(status));
	(void)!write(p->report_fd, rec, sizeof(rec));
	_exit(0);
}

/*
 * The only way out of the network namespace: a listener on 127.0.0.1
 * inside it, handed to the proxy outside, which makes every outbound
 * connection itself after checking it.  Runs while we still hold the
 * capabilities over this network namespace.
 */
static void
proxy_listener(const struct runner_plan *p)
{
	struct sockaddr_in	sin;
	int			lfd, one = 1;

	if (!p->use_proxy)
		return;
	if (proxy_lo_up() != 0)
		fail(p, "bring up lo", NULL);
	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fail(p, "socket", "proxy listener");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(RUNNER_PROXY_PORT);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	(void)setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(lfd, 64) == -1)
		fail(p, "listen", "127.0.0.1:" "3128");
	if (proxy_send_fd(p->proxy_sock, lfd, "L", 1) != 0)
		fail(p, "hand the listener to the proxy", NULL);
	close(lfd);
	close(p->proxy_sock);
}

/* Reads exactly |len| bytes from the parent; EOF means it died. */
static void
read_parent(const struct runner_plan *p, void *buf, size_t len)
{
	char *b = buf;
	ssize_t n;

	while (len > 0) {
		n = read(p->sync_fd, b, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(RUNNER_SETUP_EXIT);
		b += n;
		len -= n;
	}
}

/*
 * Joins the cgroups the parent made while we built the root (plan.cg_join,
 * runner/cgroup.c): "0" to each file it sends, then a new cgroup
 * namespace, rooted there as it would be had we been born in them.
 * Before anything of the command's: the init and the command it forks
 * are under the limits from their start.
 */
static void
join_cgroups(const struct runner_plan *p)
{
	char tag;
	size_t len;
	int fd, rc;

	for (;;) {
		rc = proxy_recv_fd(p->sync_fd, &fd, &tag, 1, &len);
		if (rc != 1 || len != 1)
			_exit(RUNNER_SETUP_EXIT);
		if (tag == 'c' && fd == -1)
			break;
		if (tag != 'C' || fd == -1) {
			errno = EPROTO;
			fail(p, "join the runner's cgroup", NULL);
		}
		if (write(fd, "0", 1) != 1)
			fail(p, "join the runner's cgroup", NULL);
		close(fd);
	}
	if (unshare(CLONE_NEWCGROUP) == -1)
		fail(p, "unshare", "the cgroup namespace");
}

/* The seccomp program, as the parent sent it (receive_seccomp()). */
static struct sock_filter filter[BPF_MAXINSNS];
static uint32_t filter_len, filter_notify;

/*
 * The parent sends the compiled program while we build the root; it
 * sends it after it has read our /proc/PID/ns/pid (runner.c).  So we
 * take it before we change our credentials or make ourselves
 * non-dumpable: from then on a parent without CAP_SYS_PTRACE (an
 * ordinary user, root in a container) could no longer read that link,
 * and a parent descheduled after clone() would lose the race.
 */
static void
receive_seccomp(const struct runner_plan *p)
{
	read_parent(p, &filter_len, sizeof(filter_len));
	filter_notify = filter_len & RUNNER_SECCOMP_NOTIFY;
	filter_len &= ~RUNNER_SECCOMP_NOTIFY;
	if (filter_len == 0 || filter_len > BPF_MAXINSNS) {
		errno = EINVAL;
		fail(p, "seccomp program", NULL);
	}
	read_parent(p, filter, filter_len * sizeof(filter[0]));
}

/*
 * Loads the program receive_seccomp() took.  When the parent asks for
 * notifications, the EPERM refusals become SECCOMP_RET_USER_NOTIF and
 * the listener goes back to the parent, which answers each with the same
 * EPERM (never "continue") and records the call.  A kernel that cannot
 * give a listener (no USER_NOTIF, one already in force above us: EBUSY,
 * no descriptor left) gets the program as it was: the refusals stay,
 * only the record is lost.  The listener is closed here before the
 * command exists, so nothing in the sandbox can answer its own calls; if
 * the parent dies the kernel fails pending calls with ENOSYS, still a
 * refusal, and the death signal takes the sandbox down.
 */
static void
load_seccomp(const struct runner_plan *p)
{
	struct sock_fprog prog;
	long fd;

	prog.len = filter_len;
	prog.filter = filter;
	if (filter_notify && runner_seccomp_retarget(filter, filter_len,
	    SECCOMP_RET_ERRNO | EPERM, SECCOMP_RET_USER_NOTIF) > 0) {
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		if (fd >= 0) {
			if (proxy_send_fd(p->sync_fd, (int)fd, "N", 1) != 0)
				fail(p, "send the seccomp listener", NULL);
			close((int)fd);
			return;
		}
		/* No listener to be had: the same refusals, unrecorded. */
		if (errno != EINVAL && errno != EBUSY && errno != EMFILE &&
		    errno != ENFILE)
			fail(p, "seccomp", NULL);
		(void)runner_seccomp_retarget(filter, filter_len,
		    SECCOMP_RET_USER_NOTIF, SECCOMP_RET_ERRNO | EPERM);
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == -1)
		fail(p, "seccomp", NULL);
}

void
runner_child(const struct runner_plan *p)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		fail(p, "prctl PR_SET_PDEATHSIG", NULL);
	check_parent(p);
	/* The network namespace the parent's thread made (netns.c), first:
	 * nothing below may run in the host's. */
	if (p->netns_fd != -1) {
		if (setns(p->netns_fd, CLONE_NEWNET) == -1)
			fail(p, "setns", "the network namespace");
		close(p->netns_fd);
	}
	if (p->root) {
		/* Real root, in fresh namespaces: build the root, then drop
		 * root for good before anything of the command's runs. */
		build_root(p);
		proxy_listener(p);
		if (sethostname("airlock", 7) == -1)
			fail(p, "sethostname", NULL);
		if (p->cg_join)
			join_cgroups(p);
		receive_seccomp(p);
		/*
		 * Raw system calls: glibc's wrappers would ask every thread
		 * of a multithreaded parent to change too, and this copy of
		 * the parent has only one (runner_int.h).
		 */
		if (syscall(SYS_setgroups, 0, NULL) == -1)
			fail(p, "setgroups", NULL);
		if (syscall(SYS_setresgid, p->gid, p->gid, p->gid) == -1)
			fail(p, "setresgid", NULL);
		if (syscall(SYS_setresuid, p->uid, p->uid, p->uid) == -1)
			fail(p, "setresuid", NULL);
		/* A credential change resets the death signal. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
			fail(p, "prctl PR_SET_PDEATHSIG", NULL);
		check_parent(p);
		enter_userns(p);
	} else {
		enter_userns(p);
		build_root(p);
		proxy_listener(p);
		if (sethostname("airlock", 7) == -1)
			fail(p, "sethostname", NULL);
		/* While we hold the capabilities of our user namespace. */
		if (p->cg_join)
			join_cgroups(p);
	}
	if (setsid() == -1)
		fail(p, "setsid", NULL);
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
	if (!p->root)
		receive_seccomp(p);
	/* This process keeps a copy of the parent's memory: nobody in the
	 * sandbox may read it through /proc/1/mem or ptrace. */
	if (prctl(PR_SET_DUMPABLE, 0) == -1)
		fail(p, "prctl PR_SET_DUMPABLE", NULL);
	/*
	 * The filter before the rlimits: its listener is a new descriptor,
	 * and the broker's child may still hold more than RLIMIT_NOFILE of
	 * the broker's (close-on-exec) ones.  Both filters allow
	 * setrlimit/prlimit64.  The rlimits last, so that RLIMIT_NOFILE
	 * cannot fail the opens above (EMFILE).
	 */
	load_seccomp(p);
	apply_rlimits(p);
	run_init(p);
}
