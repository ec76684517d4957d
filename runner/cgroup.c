/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cgroup: one cgroup per runner, for the limits rlimits cannot express
 * (memory of the whole tree, number of tasks, CPU share).
 *
 * cgroup v2 is used when the hierarchy delegates the memory and pids
 * controllers to airlock's own cgroup; otherwise the v1 memory, pids and
 * cpu hierarchies are used (each under the cgroup airlock itself is in,
 * so that outer limits keep applying).  A controller that cannot be set
 * up is skipped: the pid namespace and rlimits still bound the runner,
 * and the result does not report RUNNER_LAYER_CGROUP.
 *
 * Placement: the child is born in its cgroup, with no cgroup.procs write
 * (which takes cgroup_threadgroup_rwsem for writing and, when no other
 * writer came just before, waits an RCU grace period: 6 to 25 ms here).
 * - v2: clone3() with CLONE_INTO_CGROUP.
 * - v1: the child joins them itself (runner_cgroup_joined_by_child()).
 *   The parent clones first, then makes the cgroups and sets their
 *   limits while the child builds its root (three v1 cgroups and their
 *   limits took 0.25 ms here, on the way to clone() when the parent
 *   moved itself in, cloned and moved back), and hands it their tasks
 *   files (runner_cgroup_join_fds(), opened by the parent: the kernel
 *   checks the opener's credentials); the child writes "0" to each, a
 *   thread moving only itself, which skips that rwsem (Linux 6.1 on) and
 *   costs microseconds, before it may run anything, and takes a cgroup
 *   namespace rooted there.  If it cannot, it fails and the command
 *   never starts.  The child's root is charged to the caller's
 *   cgroups, the command and all it makes to the runner's.
 * When neither can be done (clone3 refused with ENOSYS or EPERM by an
 * outer seccomp filter, an older kernel, a tasks file we may not write),
 * the parent clones and moves the child with a cgroup.procs write while
 * the child builds its root; the child cannot run the command before it
 * is placed.  (A helper that started the grace period early by writing
 * itself into its own cgroup measured slower: docs/PERFORMANCE.md.)
 *
 * AIRLOCK_CGROUP2_ROOT names a directory of a cgroup v2 hierarchy to use
 * instead of the one airlock is in (tests mount a private cgroup2
 * hierarchy; hosts whose v2 hierarchy is mounted elsewhere): runner
 * cgroups are made beneath it, with whatever controllers it delegates.  A
 * value that is not a cgroup2 directory means no cgroup at all (limits
 * asked for are then refused, or run without under best-effort).
 * AIRLOCK_CGROUP_ATTACH=1 (or the older AIRLOCK_CGROUP2_ATTACH=1) takes
 * the attach path on v1 and v2 alike, as when placement at birth cannot
 * be done; bench/cgroup_startup.sh compares the two.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <linux/magic.h>
#include <linux/sched.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "runner/runner.h"
#include "runner/runner_int.h"

enum { CG_MEMORY, CG_PIDS, CG_CPU, CG_N };

/* Names make_dir() tries before it gives up (each taken name is a
 * cgroup still in use by an earlier process of the same pid). */
#define CG_NAME_TRIES 64

static const char *const v1_names[CG_N] = { "memory", "pids", "cpu" };

struct runner_cgroup {
	int	 v2;
	char	*path[CG_N];	/* v2: path[0] only */
	char	*procs[CG_N];	/* the cgroup.procs files to join */
	size_t	 nprocs;
	char	*tasks[CG_N];	/* v1: their tasks files, for the child */
	int	 dirfd;		/* v2: the cgroup's directory, else -1 */
	int64_t	 max_pids;
	/* The counters runner_cgroup_limit_hit() reads, opened ahead by
	 * runner_cgroup_watch(), or -1 (then opened when read). */
	int	 watch[3];
	int	 killed;	/* v2: cgroup.kill was written */
};

/* runner_cgroup.watch[]: the OOM kills, the pids limit's refusals and
 * the most tasks there were. */
enum { W_OOM, W_PIDS_MAX, W_PIDS_PEAK };

static struct {
	int	 probed;
	int	 v2;
	int	 attach_only;	/* AIRLOCK_CGROUP_ATTACH=1: attach only */
	int	 self_move;	/* v1: a thread moving itself skips the rwsem */
	char	*base[CG_N];
} cg;

static int
write_file(const char *dir, const char *file, const char *val)
{
	char path[RUNNER_MAX_PATH];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return rc;
}

static int
read_file(const char *dir, const char *file, char *buf, size_t len)
{
	char path[RUNNER_MAX_PATH];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Finds our own cgroup for |ctrl| ("" for v2) in |text|, what
 * /proc/self/cgroup holds. */
static char *
own_path(const char *text, const char *ctrl)
{
	char line[1024], *s, *c, *tok, *save;
	char *found = NULL;
	size_t len;

	for (; found == NULL && *text != '\0'; text += len + (text[len] != '\0')) {
		len = strcspn(text, "\n");
		if (len >= sizeof(line))
			continue;
		memcpy(line, text, len);
		line[len] = '\0';
		if ((s = strchr(line, ':')) == NULL ||
		    (c = strchr(s + 1, ':')) == NULL)
			continue;
		*c = '\0';
		if (*ctrl == '\0') {
			if (s[1] == '\0')
				found = xstrdup(c + 1);
			continue;
		}
		for (tok = strtok_r(s + 1, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save))
			if (strcmp(tok, ctrl) == 0)
				found = xstrdup(c + 1);
	}
	return found;
}

/*
 * An empty cgroup named for a pid this process cannot see is removed
 * only once its mtime (set by the kernel at mkdir) is this many seconds
 * old.  A pid is not seen because its process is gone, or because it
 * lives in another pid namespace sharing the hierarchy (an airlock in
 * another container, or under unshare -p): that airlock's cgroups are
 * empty from their mkdir until its child joins them, and removing one
 * then failed its run (exit 71).  Nothing alive leaves a cgroup of its
 * own empty this long before its child joins it.
 */
#define STALE_AGE_SECONDS 60

/* 1 if |name| in |dirfd| was last modified (a cgroup: made) |age|
 * seconds ago or more; 0 when it cannot tell. */
static int
older_than(int dirfd, const char *name, time_t age)
{
	struct timespec now;
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    clock_gettime(CLOCK_REALTIME, &now) == -1)
		return 0;
	return now.tv_sec - st.st_mtim.tv_sec >= age;
}

/*
 * Removes the empty cgroups that airlock processes which no longer exist
 * left in |base| (killed before they could clean up).  Once per process,
 * before it makes any: so one named with this process's own pid is an
 * earlier process's that had the same pid (pids wrap at pid_max, 32768
 * on a small machine), and goes too.  One named with a pid we cannot
 * see goes once it is STALE_AGE_SECONDS old.
 */
static void
collect_stale(const char *base)
{
	char path[RUNNER_MAX_PATH];
	struct dirent *de;
	unsigned seq;
	DIR *dir;
	int pid;

	if (base == NULL || (dir = opendir(base)) == NULL)
		return;
	while ((de = readdir(dir)) != NULL) {
		if (sscanf(de->d_name, "airlock-%d-%u", &pid, &seq) != 2 ||
		    pid <= 0)
			continue;
		if (pid != getpid() && (kill(pid, 0) == 0 || errno != ESRCH ||
		    !older_than(dirfd(dir), de->d_name, STALE_AGE_SECONDS)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		(void)rmdir(path);	/* fails if still in use: fine */
	}
	closedir(dir);
}

/* 1 if the kernel is |major|.|minor| or later. */
static int
kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma, mi;

	if (uname(&u) == -1 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

static int
env_is_1(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && strcmp(v, "1") == 0;
}

static void
probe(void)
{
	static const char *const roots[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified", NULL
	};
	char buf[512], dir[RUNNER_MAX_PATH], *mine, *own;
	size_t i, len;
	int fd;

	cg.probed = 1;
	cg.attach_only = env_is_1("AIRLOCK_CGROUP_ATTACH") ||
	    env_is_1("AIRLOCK_CGROUP2_ATTACH");
	cg.self_move = kernel_at_least(6, 1);
	if ((own = getenv("AIRLOCK_CGROUP2_ROOT")) != NULL && *own != '\0') {
		struct statfs sf;

		if (statfs(own, &sf) == 0 &&
		    sf.f_type == (typeof(sf.f_type))CGROUP2_SUPER_MAGIC &&
		    access(own, W_OK) == 0) {
			cg.v2 = 1;
			cg.base[0] = xstrdup(own);
			collect_stale(cg.base[0]);
		} else
			log_warnx("AIRLOCK_CGROUP2_ROOT=%s is not a writable "
			    "cgroup2 directory: no cgroup", own);
		return;
	}
	/* Read once for the four lookups below (none found: no cgroup). */
	mine = NULL;
	if ((fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC)) != -1) {
		mine = read_fd_upto(fd, 65536, &len);
		close(fd);
	}
	if (mine == NULL)
		mine = xstrdup("");
	if ((own = own_path(mine, "")) != NULL) {
		for (i = 0; roots[i] != NULL; i++) {
			snprintf(dir, sizeof(dir), "%s%s", roots[i],
			    strcmp(own, "/") == 0 ? "" : own);
			if (read_file(dir, "cgroup.subtree_control", buf,
			    sizeof(buf)) == 0 && strstr(buf, "memory") &&
			    strstr(buf, "pids")) {
				cg.v2 = 1;
				cg.base[0] = xstrdup(dir);
				collect_stale(cg.base[0]);
				free(own);
				free(mine);
				return;
			}
		}
		free(own);
	}
	for (i = 0; i < CG_N; i++) {
		if ((own = own_path(mine, v1_names[i])) == NULL)
			continue;
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup/%s%s", v1_names[i],
		    strcmp(own, "/") == 0 ? "" : own);
		free(own);
		if (access(dir, W_OK) == 0) {
			cg.base[i] = xstrdup(dir);
			collect_stale(cg.base[i]);
		}
	}
	free(mine);
}

/*
 * A new cgroup in |base|, airlock-PID-SEQ.  A name that is taken belongs
 * to an earlier process with this pid whose cgroup is still in use
 * (collect_stale() could not remove it): the next SEQ is tried.
 */
static char *
make_dir(const char *base)
{
	static unsigned seq;
	char *path;
	int tries;

	for (tries = 0; tries < CG_NAME_TRIES; tries++) {
		xasprintf(&path, "%s/airlock-%d-%u", base, (int)getpid(),
		    seq++);
		if (mkdir(path, 0755) == 0)
			return path;
		free(path);
		if (errno != EEXIST)
			break;
	}
	return NULL;
}

/* |v1|: |dir| is a v1 cgroup, whose tasks file the child may join. */
static void
add_procs(struct runner_cgroup *c, const char *dir, int v1)
{
	if (v1)
		xasprintf(&c->tasks[c->nprocs], "%s/tasks", dir);
	xasprintf(&c->procs[c->nprocs++], "%s/cgroup.procs", dir);
}

static long long field(int fd, const char *dir, const char *file,
    const char *key);

/*
 * Writes the memory limit of |lim| (none when not asked for) to the v1
 * cgroup |dir|; 0 if the limit asked for is set.  The swap limit goes
 * with it (memory.memsw, absent without swap accounting); a limit may
 * never be above it, so when a taken cgroup's lower one is in the way
 * it is raised first.
 */
static int
set_v1_memory(const char *dir, const struct resource_limits *lim)
{
	char v[64] = "-1";

	if (lim->memory_mb > 0)
		snprintf(v, sizeof(v), "%lld",
		    (long long)lim->memory_mb * 1024 * 1024);
	if (write_file(dir, "memory.limit_in_bytes", v) != 0 &&
	    (write_file(dir, "memory.memsw.limit_in_bytes", v) != 0 ||
		write_file(dir, "memory.limit_in_bytes", v) != 0))
		return -1;
	(void)write_file(dir, "memory.memsw.limit_in_bytes", v);
	return lim->memory_mb > 0 ? 0 : -1;
}

/*
 * Sets |lim|'s limits in the new (|reused| 0) or taken cgroup |dir| of
 * controller |i| (v1), or in the v2 cgroup |dir| (|i| == CG_N): a limit
 * not asked for is left alone in a new cgroup and reset to none in a
 * taken one.  Adds the LIMIT_ASKED_* bits of those set to *enforced.
 */
static void
set_limits(size_t i, const char *dir, const struct resource_limits *lim,
    int reused, unsigned *enforced)
{
	int v2 = i == CG_N;
	char v[64] = "max";

	if ((v2 || i == CG_MEMORY) && (lim->memory_mb > 0 || reused)) {
		if (!v2 && set_v1_memory(dir, lim) == 0)
			*enforced |= LIMIT_ASKED_MEMORY;
		if (v2) {
			if (lim->memory_mb > 0)
				snprintf(v, sizeof(v), "%lld",
				    (long long)lim->memory_mb * 1024 * 1024);
			if (write_file(dir, "memory.max",
				lim->memory_mb > 0 ? v : "max") == 0 &&
			    lim->memory_mb > 0)
				*enforced |= LIMIT_ASKED_MEMORY;
			(void)write_file(dir, "memory.swap.max",
			    lim->memory_mb > 0 ? "0" : "max");
		}
	}
	if ((v2 || i == CG_PIDS) && (lim->processes > 0 || reused)) {
		snprintf(v, sizeof(v), "%lld", (long long)lim->processes);
		if (write_file(dir, "pids.max", lim->processes > 0 ? v : "max") ==
			0 &&
		    lim->processes > 0)
			*enforced |= LIMIT_ASKED_PIDS;
	}
	if ((v2 || i == CG_CPU) && (lim->cpu_percent > 0 || reused)) {
		snprintf(v, sizeof(v), v2 ? "%lld 100000" : "%lld",
		    (long long)lim->cpu_percent * 1000);
		if (v2) {
			if (write_file(dir, "cpu.max",
				lim->cpu_percent > 0 ? v : "max 100000") == 0 &&
			    lim->cpu_percent > 0)
				*enforced |= LIMIT_ASKED_CPU;
		} else {
			(void)write_file(dir, "cpu.cfs_period_us", "100000");
			if (write_file(dir, "cpu.cfs_quota_us",
				lim->cpu_percent > 0 ? v : "-1") == 0 &&
			    lim->cpu_percent > 0)
				*enforced |= LIMIT_ASKED_CPU;
		}
	}
}

/* The number in |file| of |dir|, or -1 if it cannot be read. */
static long long
read_number(const char *dir, const char *file)
{
	char buf[64];

	if (read_file(dir, file, buf, sizeof(buf)) != 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * The cgroup of |ready| in |base| (of controller |ctrl|, CG_N: v2's),
 * if it is still the directory it was
 * made as and a run with |lim| can tell its own limit hits from the
 * earlier runs' (a pids.peak already within one task of the limit would
 * read as a hit: pids_peaked()); its path, or NULL.  Its mtime is made
 * now: collect_stale() in an airlock of another pid namespace, which
 * cannot see the writer it is named for, judges it by its age.
 */
static char *
take_ready(const struct runner_cgroup_ready *ready, size_t ctrl,
    const char *base, const struct resource_limits *lim)
{
	size_t i, blen = strlen(base);
	const char *name;
	struct stat st;
	long long peak;

	for (i = 0; ready != NULL && i < ready->n; i++) {
		if (strncmp(ready->path[i], base, blen) != 0 ||
		    ready->path[i][blen] != '/')
			continue;
		name = ready->path[i] + blen + 1;
		if (strncmp(name, "airlock-", 8) != 0 ||
		    strchr(name, '/') != NULL ||
		    lstat(ready->path[i], &st) != 0 || !S_ISDIR(st.st_mode) ||
		    st.st_ino != ready->ino[i])
			return NULL;
		peak = lim->processes > 0 && (ctrl == CG_PIDS || ctrl == CG_N)
		    ? read_number(ready->path[i], "pids.peak")
		    : -1;
		if ((lim->processes > 0 && peak >= lim->processes - 1) ||
		    utimensat(AT_FDCWD, ready->path[i], NULL, 0) != 0) {
			runner_cgroup_rmdir(AT_FDCWD, ready->path[i], st.st_ino);
			return NULL;
		}
		return xstrdup(ready->path[i]);
	}
	return NULL;
}

/*
 * 1 if |lim|'s memory limit, asked for of controller |i| (CG_N: v2's),
 * is not among |set| though the cgroup |dir| has the file for it: the
 * write failed for what the cgroup holds (more charged there than the
 * limit, and it could not be reclaimed), which a new cgroup would not.
 */
static int
memory_refused(size_t i, const char *dir, const struct resource_limits *lim,
    unsigned set)
{
	char path[RUNNER_MAX_PATH];

	if ((i != CG_MEMORY && i != CG_N) || lim->memory_mb <= 0 ||
	    (set & LIMIT_ASKED_MEMORY))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir,
	    i == CG_N ? "memory.max" : "memory.limit_in_bytes");
	return access(path, F_OK) == 0;
}

/*
 * A cgroup in |base| for |lim|: one of |ready|, else a new one; its
 * limits set.  A taken one in which the memory limit asked for cannot be
 * set (memory_refused()) is removed and a new one made.  Its path, or
 * NULL.
 */
static char *
cgroup_for(size_t i, const char *base, const struct resource_limits *lim,
    const struct runner_cgroup_ready *ready, unsigned *enforced)
{
	unsigned set = 0;
	struct stat st;
	char *path;

	if ((path = take_ready(ready, i, base, lim)) != NULL) {
		set_limits(i, path, lim, 1, &set);
		if (!memory_refused(i, path, lim, set)) {
			*enforced |= set;
			return path;
		}
		if (lstat(path, &st) == 0)
			runner_cgroup_rmdir(AT_FDCWD, path, st.st_ino);
		free(path);
	}
	if ((path = make_dir(base)) == NULL)
		return NULL;
	set_limits(i, path, lim, 0, enforced);
	return path;
}

struct runner_cgroup *
runner_cgroup_create(const struct resource_limits *lim, unsigned *enforced,
    const struct runner_cgroup_ready *ready)
{
	struct runner_cgroup *c;
	size_t i;
	int ok = 0;

	*enforced = 0;
	if (!cg.probed)
		probe();
	c = xcalloc(1, sizeof(*c));
	c->max_pids = lim->processes;
	c->dirfd = -1;
	c->watch[W_OOM] = c->watch[W_PIDS_MAX] = c->watch[W_PIDS_PEAK] = -1;
	if (cg.v2) {
		c->v2 = 1;
		if ((c->path[0] =
			cgroup_for(CG_N, cg.base[0], lim, ready, enforced)) ==
		    NULL)
			goto none;
		/* For clone3(CLONE_INTO_CGROUP); -1 leaves the attach. */
		c->dirfd = open(c->path[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		add_procs(c, c->path[0], 0);
		return c;
	}
	for (i = 0; i < CG_N; i++) {
		if (cg.base[i] == NULL ||
		    (c->path[i] = cgroup_for(i, cg.base[i], lim, ready,
			 enforced)) == NULL)
			continue;
		add_procs(c, c->path[i], 1);
		if (i != CG_CPU)
			ok = 1;
	}
	if (ok)
		return c;
none:
	*enforced = 0;
	runner_cgroup_destroy(c, NULL, NULL);
	return NULL;
}

size_t
runner_cgroup_ready_make(struct runner_cgroup_ready *r)
{
	struct stat st;
	char *path;
	size_t i;

	r->n = 0;
	if (!cg.probed)
		probe();
	for (i = 0; i < CG_N && r->n < RUNNER_CGROUP_READY_MAX; i++) {
		if (cg.base[i] == NULL || (cg.v2 && i > 0) ||
		    (path = make_dir(cg.base[i])) == NULL)
			continue;
		if (strlen(path) < sizeof(r->path[0]) &&
		    lstat(path, &st) == 0) {
			memcpy(r->path[r->n], path, strlen(path) + 1);
			r->ino[r->n++] = st.st_ino;
		} else
			(void)rmdir(path);
		free(path);
	}
	return r->n;
}

int
runner_cgroup_ready_text(const struct runner_cgroup_ready *r, char *buf,
    size_t len)
{
	size_t i, off = 0;
	int n;

	buf[0] = '\0';
	for (i = 0; i < r->n; i++) {
		n = snprintf(buf + off, len - off, "%llu %s\n",
		    (unsigned long long)r->ino[i], r->path[i]);
		if (n < 0 || (size_t)n >= len - off) {
			buf[0] = '\0';
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

int
runner_cgroup_ready_parse(const char *text, struct runner_cgroup_ready *r)
{
	const char *s = text, *sp, *nl;
	char *end;
	unsigned long long ino;

	r->n = 0;
	while (*s != '\0') {
		if ((nl = strchr(s, '\n')) == NULL ||
		    (sp = memchr(s, ' ', (size_t)(nl - s))) == NULL ||
		    r->n == RUNNER_CGROUP_READY_MAX ||
		    (size_t)(nl - sp - 1) >= sizeof(r->path[0]) ||
		    sp[1] != '/')
			goto bad;
		errno = 0;
		ino = strtoull(s, &end, 10);
		if (end != sp || errno != 0 || ino == 0)
			goto bad;
		memcpy(r->path[r->n], sp + 1, (size_t)(nl - sp - 1));
		r->path[r->n][nl - sp - 1] = '\0';
		r->ino[r->n++] = (ino_t)ino;
		s = nl + 1;
	}
	return 0;
bad:
	r->n = 0;
	return -1;
}

/* The controller whose base holds the cgroup |path| (CG_N: v2's), or
 * -1 if none does. */
static int
ctrl_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t i;

	if (!cg.probed)
		probe();
	for (i = 0; slash != NULL && i < CG_N; i++)
		if (cg.base[i] != NULL &&
		    strlen(cg.base[i]) == (size_t)(slash - path) &&
		    strncmp(cg.base[i], path, (size_t)(slash - path)) == 0)
			return cg.v2 ? CG_N : (int)i;
	return -1;
}

int
runner_cgroup_ready_reusable(const char *path, ino_t ino)
{
	char buf[64];
	struct stat st;
	int ctrl = ctrl_of(path);

	if (ctrl == -1 || lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_ino != ino)
		return 0;
	/* Every task gone (v1's tasks lists threads, wherever their
	 * process is). */
	if (read_file(path, ctrl == CG_N ? "cgroup.procs" : "tasks", buf,
		sizeof(buf)) != 0 ||
	    buf[0] != '\0')
		return 0;
	/* No limit hit: the counters only grow. */
	if ((ctrl == CG_MEMORY &&
		field(-1, path, "memory.oom_control", "oom_kill") != 0) ||
	    (ctrl == CG_N &&
		field(-1, path, "memory.events", "oom_kill") != 0) ||
	    ((ctrl == CG_PIDS || ctrl == CG_N) &&
		field(-1, path, "pids.events", "max") != 0))
		return 0;
	return 1;
}

void
runner_cgroup_ready_remove(struct runner_cgroup_ready *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		runner_cgroup_rmdir(AT_FDCWD, r->path[i], r->ino[i]);
	r->n = 0;
}

static pid_t
plain_clone(unsigned long flags, int *pidfd)
{
	return (pid_t)syscall(SYS_clone, flags | CLONE_PIDFD, 0, pidfd, 0, 0);
}

static void
close_all(int *fds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fds[i] != -1)
			close(fds[i]);
}

pid_t
runner_cgroup_clone(const struct runner_cgroup *c, unsigned long flags,
    int *pidfd, int *placed)
{
	struct clone_args args;
	long pid;

	*placed = 0;
	if (c != NULL && c->dirfd != -1 && !cg.attach_only) {
		memset(&args, 0, sizeof(args));
		args.flags = (flags & ~(unsigned long)CSIGNAL) | CLONE_PIDFD |
		    CLONE_INTO_CGROUP;
		args.exit_signal = flags & CSIGNAL;
		args.pidfd = (uint64_t)(uintptr_t)pidfd;
		args.cgroup = (uint64_t)c->dirfd;
		pid = syscall(SYS_clone3, &args, sizeof(args));
		if (pid != -1) {
			*placed = 1;
			return (pid_t)pid;
		}
		/* Refused (an outer seccomp, an older kernel): attach instead. */
		log_debug("clone3(CLONE_INTO_CGROUP): %s; attaching instead",
		    strerror(errno));
	}
	return plain_clone(flags, pidfd);
}

int
runner_cgroup_joined_by_child(void)
{
	size_t i;

	if (!cg.probed)
		probe();
	if (cg.v2 || !cg.self_move || cg.attach_only)
		return 0;
	for (i = 0; i < CG_N; i++)
		if (cg.base[i] != NULL)
			return 1;
	return 0;
}

size_t
runner_cgroup_join_fds(const struct runner_cgroup *c, int *fds, size_t max)
{
	size_t i, n = 0;

	for (i = 0; c != NULL && !c->v2 && i < c->nprocs && n < max; i++) {
		if ((fds[n] = open(c->tasks[i], O_WRONLY | O_CLOEXEC)) == -1) {
			close_all(fds, n);
			return (size_t)-1;
		}
		n++;
	}
	return n;
}

int
runner_cgroup_attach(const struct runner_cgroup *c, pid_t pid)
{
	char v[32];
	size_t i, len;
	int fd, e;
	ssize_t n;

	len = (size_t)snprintf(v, sizeof(v), "%d", (int)pid);
	for (i = 0; i < c->nprocs; i++) {
		if ((fd = open(c->procs[i], O_WRONLY | O_CLOEXEC)) == -1)
			return -1;
		n = write(fd, v, len);
		e = errno;
		close(fd);
		if (n != (ssize_t)len) {
			errno = n == -1 ? e : EIO;
			return -1;
		}
	}
	return 0;
}

void
runner_cgroup_kill(struct runner_cgroup *c)
{
	if (c != NULL && c->v2 && c->path[0] != NULL) {
		c->killed = 1;
		(void)write_file(c->path[0], "cgroup.kill", "1");
	}
}

/* Reads |file| in |dir| into buf[0..len), NUL-terminated, from |fd| if it
 * is open (opened ahead: the file as it is now), else by name. */
static int
read_counter(int fd, const char *dir, const char *file, char *buf,
    size_t len)
{
	ssize_t n;

	if (fd == -1)
		return dir != NULL ? read_file(dir, file, buf, len) : -1;
	if ((n = pread(fd, buf, len - 1, 0)) < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static long long
field(int fd, const char *dir, const char *file, const char *key)
{
	char buf[2048], *s;
	size_t klen = strlen(key);

	if (read_counter(fd, dir, file, buf, sizeof(buf)) == -1)
		return 0;
	for (s = buf; s != NULL && *s != '\0'; ) {
		if (strncmp(s, key, klen) == 0 && s[klen] == ' ')
			return strtoll(s + klen + 1, NULL, 10);
		if ((s = strchr(s, '\n')) != NULL)
			s++;
	}
	return 0;
}

/* 1 if the tree came within one task of the limit (RLIMIT_NPROC, which
 * is the same number, usually refuses the fork before pids.max does). */
static int
pids_peaked(const struct runner_cgroup *c, const char *dir)
{
	char buf[64];

	if (c->max_pids <= 0 || read_counter(c->watch[W_PIDS_PEAK], dir,
	    "pids.peak", buf, sizeof(buf)) == -1)
		return 0;
	return strtoll(buf, NULL, 10) >= c->max_pids - 1;
}

int
runner_cgroup_limit_hit(struct runner_cgroup *c)
{
	if (c == NULL)
		return 0;
	if (c->v2) {
		if (field(c->watch[W_OOM], c->path[0], "memory.events",
		    "oom_kill") > 0)
			return 1;
		if (field(c->watch[W_PIDS_MAX], c->path[0], "pids.events",
		    "max") > 0 || pids_peaked(c, c->path[0]))
			return 2;
		return 0;
	}
	if (field(c->watch[W_OOM], c->path[CG_MEMORY], "memory.oom_control",
	    "oom_kill") > 0)
		return 1;
	if (field(c->watch[W_PIDS_MAX], c->path[CG_PIDS], "pids.events",
	    "max") > 0 || pids_peaked(c, c->path[CG_PIDS]))
		return 2;
	return 0;
}

/* Opens |file| in |dir| into *fd (left -1 if it cannot be). */
static void
watch_one(int *fd, const char *dir, const char *file)
{
	char path[RUNNER_MAX_PATH];

	if (*fd == -1 && dir != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		*fd = open(path, O_RDONLY | O_CLOEXEC);
	}
}

void
runner_cgroup_watch(struct runner_cgroup *c)
{
	const char *mem, *pids;

	if (c == NULL)
		return;
	mem = c->v2 ? c->path[0] : c->path[CG_MEMORY];
	pids = c->v2 ? c->path[0] : c->path[CG_PIDS];
	watch_one(&c->watch[W_OOM], mem,
	    c->v2 ? "memory.events" : "memory.oom_control");
	watch_one(&c->watch[W_PIDS_MAX], pids, "pids.events");
	if (c->max_pids > 0)
		watch_one(&c->watch[W_PIDS_PEAK], pids, "pids.peak");
}

/*
 * runner.h.  (airlock exec's audit writer removes a cgroup after the exec
 * has exited, by when its pid may be another airlock's, whose
 * collect_stale() removed it and whose make_dir() took the name again:
 * the inode tells them apart.)
 */
void
runner_cgroup_rmdir(int dirfd, const char *name, ino_t ino)
{
	struct timespec ts = { 0, 1000000 };
	struct stat st;
	int tries;

	for (tries = 0; tries <= 200; tries++) {
		if (ino != 0 &&
		    (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
			!S_ISDIR(st.st_mode) || st.st_ino != ino))
			return;
		if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno != EBUSY)
			return;
		nanosleep(&ts, NULL);
	}
}

void
runner_cgroup_destroy(struct runner_cgroup *c,
    void (*left)(void *arg, const char *path), void *arg)
{
	size_t i;

	if (c == NULL)
		return;
	if (c->dirfd != -1)
		close(c->dirfd);
	for (i = 0; i < sizeof(c->watch) / sizeof(c->watch[0]); i++)
		if (c->watch[i] != -1)
			close(c->watch[i]);
	for (i = 0; i < CG_N; i++) {
		if (c->path[i] == NULL)
			continue;
		/*
		 * The last tasks may still be on their way out.  One that
		 * cgroup.kill emptied is removed here, never handed on to be
		 * kept for another run: the kernel (6.18 here) kills every
		 * task later born into it with CLONE_INTO_CGROUP.
		 */
		if (left != NULL && !c->killed)
			left(arg, c->path[i]);
		else
			runner_cgroup_rmdir(AT_FDCWD, c->path[i], 0);
		free(c->path[i]);
		free(c->procs[i]);
		free(c->tasks[i]);
	}
	free(c);
}
