/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * changeset: see changeset.h.  Why every path is walked from the root
 * with no symlink followed (path_resolve_walk): the upper layer and the
 * workspace both hold symlinks the run made or found, and an entry's
 * path is where the overlay put it, never through a link.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <linux/fs.h>

#include "broker/applyjournal.h"
#include "broker/broker_int.h"
#include "broker/changeset.h"
#include "broker/cowview.h"
#include "broker/wswrite.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/githooks.h"
#include "policy/path.h"
#include "policy/writepolicy.h"

#define CS_MAX_ENTRIES (256 * 1024)
/* Mode drops kept to be told (changeset_dropped()); the rest counted. */
#define CS_DROPPED_KEPT 1000
/* Directory levels walked: each is a stack frame of several KiB. */
#define CS_MAX_DEPTH 256

enum cs_op {
	CS_NONE, /* policy and counting only (a removed file) */
	CS_MKDIR,
	CS_CHMOD,
	CS_WRITE, /* a file or a symlink */
};

struct cs_entry {
	char *path;
	enum wp_kind kind;
	enum cs_op op;
	mode_t mode; /* what lands */
	mode_t kept; /* the special bits of |mode| the workspace's
			directory had already, or a new directory
			inherited (landing keeps them) */
	mode_t old_mode; /* CS_CHMOD: the mode it had */
	nlink_t nlink;
	char *target; /* symlink text */
	off_t size;
	uid_t uid; /* who the landed file belongs to */
	gid_t gid;
	int in_git_dir; /* beneath a directory that holds a HEAD, or a
			   hooks directory of git's config */
	char *dest; /* symlink: where it leads (mark_links()), or NULL */
	int dest_in_git_dir; /* symlink: that is in a git or hooks
				directory, or cannot be told */
	int dest_too_long; /* symlink: a path on its way is too long to
			      be followed (link_dest()) */
	int unreadable; /* a file this process cannot read, a directory
			   it cannot list: refused (changeset_check()) */
};

struct changeset {
	struct cs_entry *e;
	size_t n, cap;
	char **removals; /* moved to the trash before writing */
	size_t nremovals;
	size_t capremovals;
	uid_t uid; /* the workspace root's owner */
	gid_t gid;
	int userxattr;
	int rootfd;
	json_t *dropped; /* [{path, mode, landed}]: bits that do not land,
			    the first CS_DROPPED_KEPT */
	size_t ndropped; /* how many in all */
};

static struct cs_entry *
add(struct changeset *cs, const char *path, enum wp_kind kind)
{
	struct cs_entry *e;

	if (cs->n == CS_MAX_ENTRIES)
		return NULL;
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 64;
		cs->e = xreallocarray(cs->e, cs->cap, sizeof(*cs->e));
	}
	e = &cs->e[cs->n++];
	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	e->kind = kind;
	e->nlink = 1;
	e->uid = cs->uid;
	e->gid = cs->gid;
	return e;
}

static void
add_removal(struct changeset *cs, const char *path)
{
	if (cs->nremovals == cs->capremovals) {
		cs->capremovals = cs->capremovals ? cs->capremovals * 2 : 64;
		cs->removals = xreallocarray(
		    cs->removals, cs->capremovals, sizeof(*cs->removals));
	}
	cs->removals[cs->nremovals++] = xstrdup(path);
}

/* Whether |path| is nested deeper than CS_MAX_DEPTH; sets err if so. */
static int
too_deep(const char *path, char *err, size_t errlen)
{
	size_t depth = 0;

	for (; *path != '\0'; path++)
		if (*path == '/' && ++depth > CS_MAX_DEPTH) {
			snprintf(
			    err, errlen, "nested deeper than %d", CS_MAX_DEPTH);
			return 1;
		}
	return 0;
}

/*
 * Whether |path| is longer than a workspace path may be: it cannot be
 * looked up there (real_lstat()); sets err if so, the why before the
 * path, which fills the message (it said only "a/a/a...", cut before
 * the why, or nothing at all).
 */
static int
too_long(const char *path, char *err, size_t errlen)
{
	if (strlen(path) <= PATH_REL_MAX)
		return 0;
	snprintf(
	    err, errlen, "a path longer than %d bytes: %s", PATH_REL_MAX, path);
	return 1;
}

static char *
join(const char *dir, const char *name)
{
	char *p;

	if (dir[0] == '\0')
		return xstrdup(name);
	xasprintf(&p, "%s/%s", dir, name);
	return p;
}

/* Splits |path| into a parent descriptor (no symlinks) and a name. */
static int
open_parent(
    int rootfd, const char *path, int flags, int *dirfd, const char **name)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_REL_MAX];

	if (slash == NULL) {
		*name = path;
		if ((*dirfd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) == -1)
			return AL_ERR_SYSTEM;
		return 0;
	}
	if ((size_t)(slash - path) >= sizeof(dir))
		return AL_ERR_LIMIT;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	*name = slash + 1;
	return path_resolve_walk(
	    rootfd, dir, flags | O_DIRECTORY, dirfd, NULL, 0);
}

/*
 * 0 with *st if |path| exists in the workspace, 1 if absent, or < 0.  A
 * path beneath a symlink of the workspace is absent: the walk reaches it
 * only through a directory of the upper layer that replaces the link.
 * Before, it could not be told, and a session whose agent made a
 * symlinked directory a real one (rm lnk; mkdir lnk; echo x >lnk/f)
 * could be neither diffed, committed nor discarded.
 */
static int
real_lstat(int rootfd, const char *path, struct stat *st)
{
	return path_lstat_beneath(rootfd, path, st);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in directory |fd| (consumed), sorted; NULL-terminated. */
static char **
list_dir(int fd, size_t *n)
{
	DIR *d;
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		/* Doubling: a directory of 150k names is copied O(n) times,
		 * not O(n^2) (an allocator without mremap, ASan's, took
		 * minutes). */
		if (*n + 2 > cap) {
			cap = cap ? cap * 2 : 64;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (v == NULL)
		v = xcalloc(1, sizeof(*v));
	v[*n] = NULL;
	qsort(v, *n, sizeof(*v), cmp_names);
	return v;
}

static void
strv_free_n(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A removal of |path| from the workspace, and every file beneath it. */
static int
expand_delete(struct changeset *cs, const char *path, const struct stat *st,
    char *err, size_t errlen)
{
	char **names, *child;
	size_t n, i;
	int fd, rc = 0;
	struct stat cst;

	if (add(cs, path, WP_DELETE) == NULL)
		goto too_many;
	if (!S_ISDIR(st->st_mode))
		return 0;
	if (too_deep(path, err, errlen))
		return AL_ERR_LIMIT;
	if (path_resolve_walk(
		cs->rootfd, path, O_RDONLY | O_DIRECTORY, &fd, NULL, 0) != 0) {
		snprintf(err, errlen, "%s: cannot read what it removes", path);
		return AL_ERR_PATH;
	}
	names = list_dir(fd, &n);
	for (i = 0; i < n && rc == 0; i++) {
		child = join(path, names[i]);
		/* A checkout's tree holding a path too long to look up is
		 * not removed unchecked: refused, saying why (the set failed
		 * with no message at all). */
		if (too_long(child, err, errlen))
			rc = AL_ERR_LIMIT;
		else if ((rc = real_lstat(cs->rootfd, child, &cst)) == 0)
			rc = expand_delete(cs, child, &cst, err, errlen);
		else if (rc == 1)
			rc = 0;
		else
			snprintf(err, errlen, "%s: cannot tell what it removes",
			    child);
		free(child);
	}
	strv_free_n(names, n);
	return rc;
too_many:
	snprintf(err, errlen, "more than %d entries", CS_MAX_ENTRIES);
	return AL_ERR_LIMIT;
}

static int
is_opaque(const struct changeset *cs, int fd)
{
	char v[4];
	ssize_t n;

	n = fgetxattr(fd,
	    cs->userxattr ? "user.overlay.opaque" : "trusted.overlay.opaque", v,
	    sizeof(v));
	return n == 1 && v[0] == 'y';
}

static int walk(
    struct changeset *, int, const char *, int, int, gid_t, char *, size_t);

/*
 * Whether the workspace's directory |dir| holds a HEAD, which makes it a
 * git directory whatever its name (writepolicy.h, the git rule); what
 * cannot be told counts as one.
 */
static int
holds_head(const struct changeset *cs, const char *dir)
{
	struct stat st;
	char *head = join(dir, "HEAD");
	int rc = real_lstat(cs->rootfd, head, &st);

	free(head);
	return rc <= 0;
}

/* Notes in |cs| that |path|, |asked| in the upper layer, lands |landed|. */
static void
note_dropped(
    struct changeset *cs, const char *path, mode_t asked, mode_t landed)
{
	char a[8], l[8], *safe;

	if (cs->ndropped++ >= CS_DROPPED_KEPT)
		return;
	if (cs->dropped == NULL)
		cs->dropped = json_array();
	snprintf(a, sizeof(a), "%04o", (unsigned)asked);
	snprintf(l, sizeof(l), "%04o", (unsigned)landed);
	safe = utf8_sanitize(path, strlen(path));
	json_array_append_new(cs->dropped,
	    json_pack("{s:s, s:s, s:s}", "path", safe, "mode", a, "landed", l));
	free(safe);
}

/*
 * The mode that lands for |st|, an entry of the upper directory |ufd| at
 * |path|, where the workspace has |rst| (NULL: nothing): in *mode, with
 * in *kept the special bits of it that the workspace's directory had
 * already, or that a new directory has from its setgid parent.  A bit
 * that does not land is noted (note_dropped()).
 *  - The world-write bit lands only where the workspace has it on the
 *    same kind of file: a run's chmod 777 left a root-owned file or
 *    directory that any local user could change.  Nor where the run took
 *    the sticky bit off the workspace's directory: a run's chmod -t of a
 *    1777 directory let any local user delete or replace the owner's
 *    files in it.
 *  - A setgid bit the kernel gave a directory the run made in a setgid
 *    directory (it is inherited) lands, kept: what is made in it later,
 *    outside any sandbox, takes the shared group as it would have had
 *    the owner made it (it landed without the bit, and the owner's next
 *    file there had the owner's group).  A setgid bit the run set
 *    itself is refused (writepolicy_check()).
 *  - The setuid, setgid and sticky bits a workspace's directory has stay
 *    when the run changes its other bits (they are not the run's to
 *    land), or left alone: a 1777 directory the run wrote a file into
 *    was a mode change, its world-write bit dropped, and refused.
 * Any other special bit is the run's: writepolicy_check() refuses it.
 * 0, or an errno.
 */
static int
landed_mode(struct changeset *cs, int ufd, const char *path,
    const struct stat *st, const struct stat *rst, mode_t *mode, mode_t *kept)
{
	struct stat pst;
	mode_t asked = st->st_mode & 07777, keep = 0, drop = 0;
	int same =
	    rst != NULL && (st->st_mode & S_IFMT) == (rst->st_mode & S_IFMT);

	*mode = asked;
	*kept = 0;
	/* A symlink's mode is no one's: symlinkat() makes every one 0777,
	 * and no bit of it is dropped (each was told as a drop to 0775). */
	if (S_ISLNK(st->st_mode))
		return 0;
	if (same && S_ISDIR(st->st_mode))
		*kept = asked & rst->st_mode & (S_ISUID | S_ISGID | S_ISVTX);
	if (same && (!(rst->st_mode & S_ISVTX) || (asked & S_ISVTX)))
		keep = rst->st_mode & S_IWOTH;
	drop = asked & S_IWOTH & ~keep;
	if (!same && S_ISDIR(st->st_mode) && (asked & S_ISGID)) {
		if (fstat(ufd, &pst) == -1)
			return errno;
		if (pst.st_mode & S_ISGID)
			*kept = S_ISGID;
	}
	*mode = asked & ~drop;
	if (drop != 0)
		note_dropped(cs, path, asked, *mode);
	return 0;
}

/*
 * The group of what the run makes in the workspace's directory |rst|
 * (lstat), which lands with |mode|: as the kernel gives it, the
 * directory's own group where it is setgid (a group-shared directory;
 * a file the run made there landed with the workspace root's group,
 * and the group-write bit a umask of 002 gives went to that group),
 * else the workspace root's.
 */
static gid_t
made_group(const struct changeset *cs, const struct stat *rst, mode_t mode)
{
	return (rst->st_mode & mode & S_ISGID) ? rst->st_gid : cs->gid;
}

/*
 * Whether this process cannot read |name| of |ufd| (stat |st|): a file
 * it may not open for reading, a directory it may not list and search
 * (a run's chmod 000, 200, 100 as an ordinary user; root reads them
 * all).  What cannot be read is not known, so it is refused; before, it
 * failed the whole set ("nothing was applied: f: Permission denied")
 * and a copy-on-write session's diff, which then showed nothing.
 */
static int
cannot_read(int ufd, const char *name, const struct stat *st)
{
	int want = S_ISDIR(st->st_mode) ? R_OK | X_OK : R_OK;

	return faccessat(ufd, name, want, AT_EACCESS | AT_SYMLINK_NOFOLLOW) ==
	    -1 &&
	    errno == EACCES;
}

/* One name of the upper directory |ufd| at workspace path |path|;
 * |gitdir|: the directory it is in is, or is beneath, a git directory;
 * |group|: what the run makes in it lands with (made_group()). */
static int
walk_one(struct changeset *cs, int ufd, const char *name, const char *path,
    int opaque_ctx, int gitdir, gid_t group, char *err, size_t errlen)
{
	struct stat st, rst;
	struct cs_entry *e;
	char buf[PATH_REL_MAX];
	ssize_t len;
	uid_t uid;
	gid_t gid;
	mode_t mode, kept;
	int real, fd, rc;

	if (too_long(path, err, errlen))
		return AL_ERR_LIMIT;
	if (fstatat(ufd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if ((real = real_lstat(cs->rootfd, path, &rst)) < 0) {
		snprintf(err, errlen, "%s: cannot tell what it replaces", path);
		return AL_ERR_PATH;
	}
	/* A whiteout: the path is deleted. */
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {
		if (real != 0)
			return 0;
		add_removal(cs, path);
		return expand_delete(cs, path, &rst, err, errlen);
	}
	/* A file, or something of another type, stands where the real
	 * one was: the real one goes (to the trash, until the end). */
	uid = cs->uid;
	gid = group;
	if ((rc = landed_mode(cs, ufd, path, &st, real == 0 ? &rst : NULL,
		 &mode, &kept)) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(rc));
		return AL_ERR_SYSTEM;
	}
	if (real == 0 &&
	    (S_ISDIR(st.st_mode) != S_ISDIR(rst.st_mode) ||
		!S_ISDIR(st.st_mode))) {
		add_removal(cs, path);
		if (S_ISDIR(rst.st_mode) || S_ISDIR(st.st_mode)) {
			if ((rc = expand_delete(cs, path, &rst, err, errlen)) !=
			    0)
				return rc;
		} else {
			/* A modified file keeps its owner. */
			uid = rst.st_uid;
			gid = rst.st_gid;
		}
		real = 1;
	}
	if (S_ISDIR(st.st_mode)) {
		int child_opaque;
		/* A directory made in a setgid one takes its group, and so
		 * does what is made beneath it (the kernel gives it the
		 * setgid bit, which lands with it: landed_mode()). */
		gid_t child_group =
		    real != 0 ? group : made_group(cs, &rst, mode);

		/* Neither walked nor landed: refused by name. */
		if (cannot_read(ufd, name, &st)) {
			if ((e = add(cs, path, WP_DIR)) == NULL) {
				snprintf(err, errlen, "too many entries");
				return AL_ERR_LIMIT;
			}
			e->op = real != 0 ? CS_MKDIR : CS_CHMOD;
			e->mode = mode;
			e->old_mode = real != 0 ? 0 : rst.st_mode & 07777;
			e->unreadable = 1;
			return 0;
		}
		if ((fd = openat(ufd, name,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) ==
		    -1) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return AL_ERR_SYSTEM;
		}
		child_opaque = real == 0 && (opaque_ctx || is_opaque(cs, fd));
		if (real != 0 || (rst.st_mode & 07777) != mode) {
			if ((e = add(cs, path, WP_DIR)) == NULL) {
				close(fd);
				snprintf(err, errlen, "too many entries");
				return AL_ERR_LIMIT;
			}
			e->op = real != 0 ? CS_MKDIR : CS_CHMOD;
			e->gid = gid;
			e->mode = mode;
			e->kept = kept;
			e->old_mode = real != 0 ? 0 : rst.st_mode & 07777;
			e->in_git_dir = gitdir;
		}
		return walk(cs, fd, path, child_opaque, gitdir, child_group,
		    err, errlen);
	}
	if (S_ISREG(st.st_mode))
		e = add(cs, path, WP_FILE);
	else if (S_ISLNK(st.st_mode))
		e = add(cs, path, WP_SYMLINK);
	else if (S_ISFIFO(st.st_mode))
		e = add(cs, path, WP_FIFO);
	else if (S_ISSOCK(st.st_mode))
		e = add(cs, path, WP_SOCKET);
	else
		e = add(cs, path, WP_DEVICE);
	if (e == NULL) {
		snprintf(err, errlen, "too many entries");
		return AL_ERR_LIMIT;
	}
	e->mode = mode;
	e->nlink = st.st_nlink;
	e->uid = uid;
	e->gid = gid;
	e->in_git_dir = gitdir;
	/* Allocated bytes: holes cost the disk nothing. */
	e->size = S_ISREG(st.st_mode) ? (off_t)st.st_blocks * 512 : 0;
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		e->op = CS_WRITE;
	if (S_ISREG(st.st_mode))
		e->unreadable = cannot_read(ufd, name, &st);
	if (S_ISLNK(st.st_mode)) {
		if ((len = readlinkat(ufd, name, buf, sizeof(buf) - 1)) < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return AL_ERR_SYSTEM;
		}
		buf[len] = '\0';
		e->target = xstrdup(buf);
	}
	return 0;
}

/* Walks upper directory |fd| (consumed) at workspace path |dir|; |gitdir|:
 * a directory above it is a git directory; |group|: what the run makes in
 * |dir| lands with. */
static int
walk(struct changeset *cs, int fd, const char *dir, int opaque_ctx, int gitdir,
    gid_t group, char *err, size_t errlen)
{
	char **names, **real = NULL, *path;
	size_t n, nreal = 0, i;
	int ufd, rfd, rc = 0;
	struct stat rst;

	if (too_deep(dir, err, errlen)) {
		close(fd);
		return AL_ERR_LIMIT;
	}
	if ((ufd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "%s: %s", dir[0] != '\0' ? dir : ".",
		    strerror(errno));
		close(fd);
		return AL_ERR_SYSTEM;
	}
	names = list_dir(fd, &n);
	gitdir = gitdir || holds_head(cs, dir);
	/* An opaque directory hides what the real one held: removed. */
	if (opaque_ctx &&
	    path_resolve_walk(
		cs->rootfd, dir, O_RDONLY | O_DIRECTORY, &rfd, NULL, 0) == 0)
		real = list_dir(rfd, &nreal);
	for (i = 0; i < nreal && rc == 0; i++) {
		if (bsearch(&real[i], names, n, sizeof(*names), cmp_names) !=
		    NULL)
			continue;
		path = join(dir, real[i]);
		if (real_lstat(cs->rootfd, path, &rst) == 0) {
			add_removal(cs, path);
			rc = expand_delete(cs, path, &rst, err, errlen);
		}
		free(path);
	}
	for (i = 0; i < n && rc == 0; i++) {
		path = join(dir, names[i]);
		rc = walk_one(cs, ufd, names[i], path, opaque_ctx, gitdir,
		    group, err, errlen);
		free(path);
	}
	if (names != NULL)
		strv_free_n(names, n);
	if (real != NULL)
		strv_free_n(real, nreal);
	close(ufd);
	return rc;
}

/*
 * Whether entry |e| changes a key of a file a hook manager runs commands
 * from (a package.json's "lint-staged": wswrite_hook_keys_changed()).
 * Anything but a regular file there (a symlink to a file of other
 * content), or an upper file that cannot be read, counts as a change;
 * a removal does not (the key goes with it).
 */
static int
hook_keys_changed(const struct changeset *cs, const struct git_hooks *h,
    int upperfd, const struct cs_entry *e)
{
	char *after, err[256];
	size_t alen;
	int rc;

	if (e->kind == WP_DELETE || e->kind == WP_DIR ||
	    git_hooks_keys(h, e->path) == 0)
		return 0;
	if (e->kind != WP_FILE ||
	    wswrite_read(upperfd, e->path, GIT_HOOKS_KEYS_MAX_BYTES, &after,
		&alen, NULL, 0, err, sizeof(err)) != 0 ||
	    after == NULL)
		return 1;
	rc = wswrite_hook_keys_changed(h, cs->rootfd, e->path, after, alen);
	free(after);
	return rc;
}

/* Links are followed at most this many times, as the kernel's 40. */
#define CS_MAX_HOPS 40

static int
cmp_entry_path(const void *a, const void *b)
{
	const struct cs_entry *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

/*
 * The text of the symlink at workspace path |path| once the set lands
 * (|links|: the set's symlinks, sorted; else the checkout's) into
 * *text (caller frees): 1; 0 when no symlink is there; -1 when it
 * cannot be told.
 */
static int
link_text(const struct changeset *cs, struct cs_entry *const *links,
    size_t nlinks, const char *path, char **text)
{
	struct cs_entry key, *kp = &key, *const * hit;
	char buf[PATH_REL_MAX];
	const char *name;
	struct stat st;
	ssize_t len;
	int fd, rc;

	*text = NULL;
	key.path = (char *)path;
	if ((hit = bsearch(
		 &kp, links, nlinks, sizeof(*links), cmp_entry_path)) != NULL) {
		*text = xstrdup((*hit)->target);
		return 1;
	}
	if ((rc = real_lstat(cs->rootfd, path, &st)) != 0)
		return rc == 1 ? 0 : -1;
	if (!S_ISLNK(st.st_mode))
		return 0;
	if (open_parent(cs->rootfd, path, O_PATH, &fd, &name) != 0)
		return -1;
	len = readlinkat(fd, name, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0)
		return -1;
	buf[len] = '\0';
	*text = xstrdup(buf);
	return 1;
}

/*
 * Where symlink |e| leads once the set lands, workspace-relative ("" the
 * root), into |out|: its target read from its directory, each symlink on
 * the way (the set's, else the checkout's) followed in turn, as the
 * kernel would.  0; 1 when it leaves the workspace (no rule of the
 * workspace's applies there; the symlink rule judges e's own text); 2
 * when a path on the way is too long or too deep to be followed (the
 * symlink_length rule; it was refused as symlink_target, for a guarded
 * destination it need not have); -1 when it cannot be told otherwise (a
 * loop, a link that cannot be read).
 */
static int
link_dest(const struct changeset *cs, struct cs_entry *const *links,
    size_t nlinks, const struct cs_entry *e, char *out, size_t outlen)
{
	char cur[PATH_REL_MAX], pre[PATH_REL_MAX], next[PATH_REL_MAX];
	char *text;
	size_t i;
	int hops = 0, rc;

	if ((rc = writepolicy_link_resolve(
		 e->path, e->target, cur, sizeof(cur))) != 0)
		return rc == -2 ? 2 : 1;
again:
	for (i = 0; cur[i] != '\0' || i > 0; i++) {
		if (cur[i] != '/' && cur[i] != '\0')
			continue;
		memcpy(pre, cur, i);
		pre[i] = '\0';
		if ((rc = link_text(cs, links, nlinks, pre, &text)) < 0)
			return -1;
		if (rc == 1) {
			if (++hops > CS_MAX_HOPS) {
				free(text);
				return -1;
			}
			rc = writepolicy_link_resolve(
			    pre, text, next, sizeof(next));
			free(text);
			if (rc != 0)
				return rc == -2 ? 2 : 1;
			if (cur[i] == '/' &&
			    (size_t)snprintf(pre, sizeof(pre), "%s%s%s", next,
				next[0] != '\0' ? "/" : "",
				cur + i + 1) >= sizeof(pre))
				return 2;
			snprintf(
			    cur, sizeof(cur), "%s", cur[i] == '/' ? pre : next);
			goto again;
		}
		if (cur[i] == '\0')
			break;
	}
	if ((size_t)snprintf(out, outlen, "%s", cur) >= outlen)
		return 2;
	return 0;
}

/*
 * Whether |dest| (workspace-relative, "" the root) is in a git
 * directory of the checkout (itself or a directory above it holds a
 * HEAD) or a hooks directory of git's config, or is the ancestor of one
 * (the root aside; any case, as git_hooks_cover()): a write through a
 * link to it lands there.
 */
static int
dest_hooked(
    const struct changeset *cs, const struct git_hooks *h, const char *dest)
{
	char dir[PATH_REL_MAX];
	size_t i, len = strlen(dest);

	if (git_hooks_cover(h, dest))
		return 1;
	for (i = 0; len > 0 && i < h->n; i++)
		if (strncasecmp(h->dir[i], dest, len) == 0 &&
		    h->dir[i][len] == '/')
			return 1;
	if (len >= sizeof(dir))
		return 1;
	memcpy(dir, dest, len + 1);
	for (i = len;; i--) {
		if (i == len || dir[i] == '/') {
			dir[i] = '\0';
			if (holds_head(cs, dir))
				return 1;
		}
		if (i == 0)
			break;
	}
	return holds_head(cs, "");
}

/* Fills each symlink's dest and dest_in_git_dir (see struct cs_entry). */
static void
mark_links(struct changeset *cs, const struct git_hooks *h)
{
	struct cs_entry **links = xcalloc(cs->n, sizeof(*links));
	char dest[PATH_REL_MAX];
	size_t i, n = 0;
	int rc;

	for (i = 0; i < cs->n; i++)
		if (cs->e[i].kind == WP_SYMLINK && cs->e[i].target != NULL)
			links[n++] = &cs->e[i];
	qsort(links, n, sizeof(*links), cmp_entry_path);
	for (i = 0; i < n; i++) {
		rc = link_dest(cs, links, n, links[i], dest, sizeof(dest));
		if (rc < 0)
			links[i]->dest_in_git_dir = 1;
		else if (rc == 2)
			links[i]->dest_too_long = 1;
		else if (rc == 0) {
			links[i]->dest = xstrdup(dest);
			links[i]->dest_in_git_dir = dest_hooked(cs, h, dest);
		}
	}
	free(links);
}

/*
 * Marks the entries in a hooks directory of git's config (core.hooksPath:
 * policy/githooks.h) as the git rule's, as those beneath a HEAD are.  A
 * config that cannot be read fails the set: what is a hook cannot be
 * told.
 */
static int
mark_hooks(struct changeset *cs, int upperfd, char *err, size_t errlen)
{
	struct git_hooks h;
	size_t i;

	if (cs->n == 0)
		return 0;
	if (git_hooks_find(cs->rootfd, &h, err, errlen) != 0)
		return AL_ERR_SYSTEM;
	for (i = 0; i < cs->n; i++)
		if (git_hooks_cover(&h, cs->e[i].path) ||
		    hook_keys_changed(cs, &h, upperfd, &cs->e[i]))
			cs->e[i].in_git_dir = 1;
	mark_links(cs, &h);
	git_hooks_free(&h);
	return 0;
}

/*
 * Notes the mode of the upper layer's root |fd| as dropped where it is
 * not the workspace root's |rst|: the runner gives the upper root the
 * workspace's mode, so a difference is the run's chmod of "." (700, 777,
 * g+s), which never lands (the root's mode is the owner's: who may read
 * the whole tree hangs on it) and was told nowhere (the walk compares
 * the names in the root, never the root itself).  Unknown modes fail.
 * 0, or an errno.
 */
static int
note_root_mode(struct changeset *cs, int fd, const struct stat *rst)
{
	struct stat st;

	if (rst == NULL || fstat(fd, &st) == -1)
		return rst == NULL ? EIO : errno;
	if ((st.st_mode & 07777) != (rst->st_mode & 07777))
		note_dropped(cs, ".", st.st_mode & 07777, rst->st_mode & 07777);
	return 0;
}

int
changeset_collect(int upperfd, int rootfd, int userxattr,
    struct changeset **out, char *err, size_t errlen)
{
	struct changeset *cs;
	struct stat st;
	int fd, rc, known;

	*out = NULL;
	cs = xcalloc(1, sizeof(*cs));
	cs->userxattr = userxattr;
	cs->rootfd = rootfd;
	if ((known = fstat(rootfd, &st) == 0)) {
		cs->uid = st.st_uid;
		cs->gid = st.st_gid;
	}
	if ((fd = openat(upperfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1) {
		snprintf(err, errlen, "upper layer: %s", strerror(errno));
		changeset_free(cs);
		return AL_ERR_SYSTEM;
	}
	if ((rc = note_root_mode(cs, fd, known ? &st : NULL)) != 0) {
		snprintf(err, errlen, "the workspace root: %s", strerror(rc));
		close(fd);
		changeset_free(cs);
		return AL_ERR_SYSTEM;
	}
	if ((rc = walk(cs, fd, "", 0, 0, cs->gid, err, errlen)) != 0 ||
	    (rc = mark_hooks(cs, upperfd, err, errlen)) != 0) {
		changeset_free(cs);
		return rc;
	}
	*out = cs;
	return 0;
}

void
changeset_free(struct changeset *cs)
{
	size_t i;

	if (cs == NULL)
		return;
	for (i = 0; i < cs->n; i++) {
		free(cs->e[i].path);
		free(cs->e[i].target);
		free(cs->e[i].dest);
	}
	free(cs->e);
	strv_free_n(cs->removals, cs->nremovals);
	json_decref(cs->dropped);
	free(cs);
}

int
changeset_has_dropped(const struct changeset *cs)
{
	return cs->ndropped > 0;
}

json_t *
changeset_dropped(
    const struct changeset *cs, size_t max, size_t max_bytes, size_t *total)
{
	json_t *out, *d;
	size_t i, bytes = 0;

	*total = cs->ndropped;
	if (*total == 0)
		return NULL;
	out = json_array();
	for (i = 0; i < json_array_size(cs->dropped) && i < max; i++) {
		d = json_array_get(cs->dropped, i);
		bytes +=
		    json_str_len(json_string_value(json_object_get(d, "path")));
		if (bytes > max_bytes)
			break;
		json_array_append(out, d);
	}
	return out;
}

json_t *
changeset_refused_few(const json_t *refused, size_t max, size_t max_bytes)
{
	json_t *out = json_array(), *e, *v;
	const char *k;
	size_t i, bytes = 0;

	for (i = 0; i < json_array_size(refused) && i < max; i++) {
		e = json_array_get(refused, i);
		/* "key":value, and a number at its longest. */
		json_object_foreach(e, k, v)
		{
			bytes += strlen(k) + 4;
			bytes += json_is_string(v)
			    ? json_str_len(json_string_value(v)) + 2
			    : 24;
		}
		if (bytes > max_bytes)
			break;
		json_array_append(out, e);
	}
	return out;
}

size_t
changeset_count(const struct changeset *cs)
{
	return cs->n;
}

json_t *
changeset_check(const struct changeset *cs, const struct sandbox_policy *p,
    int rootfd, int64_t max_bytes)
{
	json_t *refused = json_array();
	struct wp_entry we;
	const char *rule;
	int64_t bytes = 0;
	size_t i;

	for (i = 0; i < cs->n; i++) {
		const struct cs_entry *e = &cs->e[i];

		we.path = e->path;
		we.kind = e->kind;
		we.mode = e->mode & ~e->kept;
		we.nlink = e->nlink;
		we.target = e->target;
		we.in_git_dir = e->in_git_dir;
		we.target_dest = e->dest;
		we.target_in_git_dir = e->dest_in_git_dir;
		we.target_too_long = e->dest_too_long;
		rule = e->unreadable ? WP_RULE_UNREADABLE
				     : writepolicy_check(p, &we);
		if (rule == NULL &&
		    wswrite_denied(
			rootfd, e->path, p->deny_read, p->ndeny_read) != NULL)
			rule = WP_RULE_DENIED;
		if (rule != NULL) {
			/* The path as JSON can hold (U+FFFD for what is
			 * not UTF-8): no refusal may be lost. */
			char *safe = utf8_sanitize(e->path, strlen(e->path));

			json_array_append_new(refused,
			    json_pack(
				"{s:s, s:s}", "path", safe, "rule", rule));
			free(safe);
		}
		bytes += e->size;
	}
	if (max_bytes > 0 && bytes > max_bytes)
		json_array_append_new(refused,
		    json_pack("{s:s, s:s, s:I}", "path", ".", "rule", "quota",
			"bytes", (json_int_t)bytes));
	if (json_array_size(refused) == 0) {
		json_decref(refused);
		return NULL;
	}
	return refused;
}

/* Whether entry |i| is a directory the set makes with something of the
 * set beneath it (the walk adds a directory's entries right after it). */
static int
made_dir_holds(const struct changeset *cs, size_t i)
{
	size_t len = strlen(cs->e[i].path);

	return cs->e[i].op == CS_MKDIR && i + 1 < cs->n &&
	    strncmp(cs->e[i + 1].path, cs->e[i].path, len) == 0 &&
	    cs->e[i + 1].path[len] == '/';
}

const char **
changeset_paths(const struct changeset *cs, size_t *n)
{
	const char **v = xcalloc(cs->n + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < cs->n; i++)
		if (cs->e[i].kind != WP_DIR || !made_dir_holds(cs, i))
			v[(*n)++] = cs->e[i].path;
	return v;
}

int
changeset_item(const struct changeset *cs, size_t i, struct changeset_item *out)
{
	const struct cs_entry *e;

	if (i >= cs->n)
		return AL_ERR_NOT_FOUND;
	e = &cs->e[i];
	out->path = e->path;
	out->kind = e->kind;
	out->op = e->op == CS_MKDIR ? CHANGESET_OP_MKDIR
	    : e->op == CS_CHMOD	    ? CHANGESET_OP_CHMOD
	    : e->op == CS_WRITE	    ? CHANGESET_OP_WRITE
				    : CHANGESET_OP_NONE;
	out->mode = e->mode;
	out->target = e->target;
	out->unreadable = e->unreadable;
	return 0;
}

json_t *
changeset_describe(const struct changeset *cs)
{
	static const char *const kinds[] = {
		[WP_FILE] = "write",
		[WP_DIR] = "mkdir",
		[WP_SYMLINK] = "symlink",
		[WP_DELETE] = "delete",
		[WP_DEVICE] = "device",
		[WP_FIFO] = "fifo",
		[WP_SOCKET] = "socket",
	};
	json_t *v = json_array();
	const char *op;
	size_t i;

	for (i = 0; i < cs->n; i++) {
		op = cs->e[i].op == CS_CHMOD ? "chmod" : kinds[cs->e[i].kind];
		json_array_append_new(v,
		    json_pack("{s:s, s:s}", "op", op, "path", cs->e[i].path));
	}
	return v;
}

/* Applying. */

/* Removes |name| in |dfd| and everything beneath it; no link followed. */
static void
rm_tree(int dfd, const char *name)
{
	applyjournal_rm_tree(dfd, name);
}

/* Copies |from| to |to|, holes kept as holes (SEEK_DATA/SEEK_HOLE). */
static int
copy_file(int from, int to)
{
	char buf[65536];
	struct stat st;
	off_t data, hole;
	ssize_t n;

	if (fstat(from, &st) == -1)
		return -1;
	for (data = 0; data < st.st_size; data = hole) {
		fd_next_data(from, data, st.st_size, &data, &hole);
		if (data >= st.st_size)
			break;
		if (lseek(from, data, SEEK_SET) == -1 ||
		    lseek(to, data, SEEK_SET) == -1)
			return -1;
		while (data < hole) {
			n = read(from, buf,
			    (size_t)(hole - data) < sizeof(buf)
				? (size_t)(hole - data)
				: sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return -1;
			if (write_all(to, buf, (size_t)n) != 0)
				return -1;
			data += n;
		}
	}
	/* A file that ends in a hole is still short. */
	if (lseek(to, 0, SEEK_END) == st.st_size)
		return 0;
	return ftruncate(to, st.st_size);
}

/*
 * The inode flags a file's owner sets (chattr(1): nodump, sync, noatime,
 * nocow, compression, ...) and those a copy never has (verity); the
 * filesystem's own (extents, inline data) are not among them.
 */
#define OWNER_SET_FLAGS \
	(FS_SECRM_FL | FS_UNRM_FL | FS_COMPR_FL | FS_SYNC_FL | \
	    FS_IMMUTABLE_FL | FS_APPEND_FL | FS_NODUMP_FL | FS_NOATIME_FL | \
	    FS_NOCOMP_FL | FS_JOURNAL_DATA_FL | FS_NOTAIL_FL | FS_DIRSYNC_FL | \
	    FS_TOPDIR_FL | FS_VERITY_FL | FS_NOCOW_FL | FS_DAX_FL | \
	    FS_PROJINHERIT_FL)

/* Whether the file |fd| has a flag of OWNER_SET_FLAGS; a filesystem
 * that has no flags has none. */
static int
has_owner_flags(int fd)
{
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == -1)
		return errno != ENOTTY && errno != EOPNOTSUPP &&
		    errno != EINVAL && errno != ENOSYS;
	return (flags & OWNER_SET_FLAGS) != 0;
}

/*
 * Makes the upper layer's file |fd| land as a copy would: no extended
 * attribute of the layer's (the overlay's trusted.overlay.origin, a
 * run's user.* names or POSIX ACL, file capabilities), no inode flag the
 * run set (has_owner_flags(): then it is copied) and the time of
 * the apply, not one the run chose.  Labels of a security module
 * (security.*, but for file capabilities) are the system's: left alone.
 * Returns 0, or -1 when one cannot be removed (the caller then copies).
 */
static int
strip_layer_meta(int fd)
{
	char names[65536], *n;
	ssize_t len;

	/* The run's chattr +d (say) moved with the file, unseen by the
	 * diff: such a file is copied, with the flags a new file there gets
	 * from its directory. */
	if (has_owner_flags(fd))
		return -1;
	if ((len = flistxattr(fd, names, sizeof(names))) == -1)
		return errno == ENOTSUP ? futimens(fd, NULL) : -1;
	for (n = names; n < names + len; n += strlen(n) + 1) {
		if (strncmp(n, "security.", 9) == 0 &&
		    strcmp(n, "security.capability") != 0)
			continue;
		if (fremovexattr(fd, n) == -1 && errno != ENODATA)
			return -1;
	}
	return futimens(fd, NULL);
}

/* Renames the upper layer's |path| to |name| in |dfd|, if one filesystem. */
static int
move_upper(int upperfd, const char *path, int dfd, const char *name)
{
	const char *base;
	int ufd, rc;

	if (open_parent(upperfd, path, O_RDONLY, &ufd, &base) != 0)
		return -1;
	rc = renameat2(ufd, base, dfd, name, RENAME_NOREPLACE);
	close(ufd);
	return rc;
}

/*
 * Writes entry |e| (a file or symlink) as |name| in |dfd|, where nothing
 * stands (what stood there is in the trash): created in place, no
 * temporary file and rename, since the journal undoes a half-written
 * file with the rest.  |same_fs|: the upper layer is on the workspace's
 * filesystem, so the file itself moves.  *made is set once |name| exists.
 */
static int
write_entry(const struct cs_entry *e, int upperfd, int dfd, const char *name,
    int same_fs, int *made, char *err, size_t errlen)
{
	struct stat st;
	int in, outfd, e_errno;

	if (e->kind == WP_SYMLINK) {
		if (symlinkat(e->target, dfd, name) == -1)
			goto fail;
		*made = 1;
		if (fchownat(dfd, name, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) ==
		    -1)
			errno = 0; /* not ours to give: stays ours */
		return 0;
	}
	if (path_resolve_walk(upperfd, e->path, O_RDONLY, &in, err, errlen) !=
	    0)
		return AL_ERR_PATH;
	/*
	 * On the workspace's filesystem the file itself moves: no copy,
	 * holes stay holes.  The run is over, so nothing else holds it;
	 * its owner, mode, attributes and times are set before it lands.
	 */
	if (same_fs) {
		if (fchown(in, e->uid, e->gid) == -1)
			errno = 0;
		if (fchmod(in, e->mode & 0777) == 0 &&
		    strip_layer_meta(in) == 0 &&
		    move_upper(upperfd, e->path, dfd, name) == 0) {
			*made = 1;
			close(in);
			return 0;
		}
	}
	/* Owner and mode are changed only where they differ: each change is
	 * one more metadata update of the workspace's filesystem. */
	outfd = openat(dfd, name,
	    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    e->mode & 0777);
	if (outfd == -1) {
		close(in);
		goto fail;
	}
	*made = 1;
	if (fstat(outfd, &st) == -1) {
		close(in);
		close(outfd);
		goto fail;
	}
	if ((st.st_uid != e->uid || st.st_gid != e->gid) &&
	    fchown(outfd, e->uid, e->gid) == -1)
		errno = 0;
	if (copy_file(in, outfd) != 0 ||
	    ((st.st_mode & 07777) != (e->mode & 0777) &&
		fchmod(outfd, e->mode & 0777) == -1)) {
		close(in);
		close(outfd);
		goto fail;
	}
	close(in);
	close(outfd);
	return 0;
fail:
	e_errno = errno;
	snprintf(err, errlen, "%s: %s", e->path, strerror(e_errno));
	return applyjournal_failed(e_errno);
}

static int
apply_entry(const struct cs_entry *e, int upperfd, int rootfd, int same_fs,
    int *made, char *err, size_t errlen)
{
	const char *name;
	int dfd, fd, rc;

	/* A removed entry went to the trash with its removed ancestor. */
	if (e->op == CS_NONE)
		return 0;
	if ((rc = open_parent(rootfd, e->path, O_RDONLY, &dfd, &name)) != 0) {
		snprintf(err, errlen,
		    "%s: its directory cannot be opened "
		    "beneath the workspace",
		    e->path);
		return AL_ERR_PATH;
	}
	switch (e->op) {
	case CS_MKDIR:
		if (mkdirat(dfd, name, 0700) == -1)
			break;
		/* FALLTHROUGH */
	case CS_CHMOD:
		*made = 1;
		if ((fd = openat(dfd, name,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) ==
		    -1)
			break;
		if (e->op == CS_MKDIR && fchown(fd, e->uid, e->gid) == -1)
			errno = 0;
		rc = fchmod(fd, (e->mode & 0777) | e->kept);
		close(fd);
		if (rc == -1)
			break;
		close(dfd);
		return 0;
	case CS_WRITE:
		rc = write_entry(
		    e, upperfd, dfd, name, same_fs, made, err, errlen);
		close(dfd);
		return rc;
	case CS_NONE:
		close(dfd);
		return 0;
	}
	rc = errno;
	snprintf(err, errlen, "%s: %s", e->path, strerror(rc));
	close(dfd);
	return applyjournal_failed(rc);
}

/*
 * The journal of applying |cs| (applyjournal.h), or NULL if a path
 * cannot be held in JSON (not UTF-8: writepolicy_check() refuses those).
 */
static json_t *
journal_new(const struct changeset *cs)
{
	json_t *j, *removals, *steps, *index, *step, *ri;
	int bad = 0;
	size_t i;

	removals = json_array();
	index = json_object();
	for (i = 0; i < cs->nremovals; i++) {
		if (json_array_append_new(
			removals, json_string(cs->removals[i])) != 0)
			bad = 1;
		json_object_set_new(
		    index, cs->removals[i], json_integer((json_int_t)i));
	}
	steps = json_array();
	for (i = 0; i < cs->n; i++) {
		const struct cs_entry *e = &cs->e[i];

		switch (e->op) {
		case CS_NONE:
			continue;
		case CS_MKDIR:
			step = json_pack(
			    "{s:s, s:s}", "op", "mkdir", "path", e->path);
			break;
		case CS_CHMOD:
			step = json_pack("{s:s, s:s, s:i}", "op", "chmod",
			    "path", e->path, "mode", (int)e->old_mode);
			break;
		case CS_WRITE:
		default:
			step = json_pack(
			    "{s:s, s:s}", "op", "write", "path", e->path);
			if ((ri = json_object_get(index, e->path)) != NULL)
				json_object_set(step, "removal", ri);
			break;
		}
		if (json_array_append_new(steps, step) != 0)
			bad = 1;
	}
	json_decref(index);
	if (bad) {
		json_decref(removals);
		json_decref(steps);
		return NULL;
	}
	j = json_pack("{s:i, s:o, s:o}", "version", 2, "removals", removals,
	    "steps", steps);
	return j;
}

int
changeset_apply(const struct changeset *cs, int upperfd, int rootfd, char *err,
    size_t errlen)
{
	char trash[64], idx[32];
	const char *name;
	struct stat ust, wst;
	json_t *journal;
	size_t i, made_steps = 0;
	int trashfd, wsfd, dfd, same_fs, made, rc = 0;

	if (cs->n == 0 && cs->nremovals == 0)
		return 0;
	/* rootfd may be O_PATH: a real descriptor for mkdirat and friends. */
	if ((wsfd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1) {
		snprintf(err, errlen, "workspace: %s", strerror(errno));
		return AL_ERR_SYSTEM;
	}
	same_fs = fstat(upperfd, &ust) == 0 && fstat(wsfd, &wst) == 0 &&
	    ust.st_dev == wst.st_dev;
	if ((journal = journal_new(cs)) == NULL) {
		snprintf(err, errlen, "apply journal: %s", strerror(EILSEQ));
		close(wsfd);
		return AL_ERR_IO;
	}
	if ((rc = applyjournal_begin(wsfd, journal, trash, sizeof(trash),
		 &trashfd, err, errlen)) != 0) {
		json_decref(journal);
		close(wsfd);
		return rc;
	}
	for (i = 0; i < cs->nremovals && rc == 0; i++) {
		if (open_parent(wsfd, cs->removals[i], O_RDONLY, &dfd, &name) !=
		    0) {
			snprintf(err, errlen,
			    "%s: its directory cannot be "
			    "opened beneath the workspace",
			    cs->removals[i]);
			rc = AL_ERR_PATH;
			break;
		}
		snprintf(idx, sizeof(idx), "%zu", i);
		if (renameat(dfd, name, trashfd, idx) == -1) {
			rc = applyjournal_failed(errno);
			snprintf(err, errlen, "%s: %s", cs->removals[i],
			    strerror(errno));
		}
		close(dfd);
	}
	/* made_steps: the journal's steps that changed something, so that a
	 * failure (EEXIST: something appeared meanwhile) undoes only ours. */
	for (i = 0; i < cs->n && rc == 0; i++) {
		made = 0;
		rc = apply_entry(
		    &cs->e[i], upperfd, wsfd, same_fs, &made, err, errlen);
		if (cs->e[i].op != CS_NONE && (rc == 0 || made))
			made_steps++;
	}
	/*
	 * One syncfs, not an fsync per file: every file and rename is on
	 * disk before the commit point, so that after a power loss either
	 * the journal is there (rolled back) or the whole set is.  After a
	 * failed commit all steps were made.
	 */
	if (rc == 0 &&
	    (syncfs(wsfd) == -1 || applyjournal_commit(trashfd) != 0)) {
		snprintf(err, errlen, "apply journal: %s", strerror(errno));
		rc = AL_ERR_IO;
	}
	/* What failed is undone as a crash would be, from the journal. */
	rc = applyjournal_end(wsfd, trashfd, trash, journal, made_steps, rc);
	close(wsfd);
	return rc;
}

int
changeset_recover(int rootfd, const struct sandbox_policy *p, json_t **report,
    char *err, size_t errlen)
{
	return applyjournal_recover(rootfd, p, report, err, errlen);
}

/* The broker's side. */

/* Whether |v| is the string |s|. */
static int
str_eq(const json_t *v, const char *s)
{
	return json_is_string(v) && strcmp(json_string_value(v), s) == 0;
}

int
changeset_broker_recover(struct broker *b, const char *trash, int *finished,
    char *err, size_t errlen)
{
	json_t *report, *v;
	size_t i;

	if (finished != NULL)
		*finished = 0;
	if (changeset_recover(b->rootfd, &b->m->sandbox, &report, err, errlen) <
	    0) {
		(void)broker_audit(b, "apply_recovered",
		    json_pack("{s:s, s:s}", "action", "failed", "error", err));
		return -1;
	}
	json_array_foreach(report, i, v)
	{
		log_warnx("workspace: an interrupted apply (%s): %s",
		    json_string_value(json_object_get(v, "trash")),
		    json_string_value(json_object_get(v, "action")));
		if (finished != NULL && trash != NULL &&
		    str_eq(json_object_get(v, "trash"), trash))
			*finished =
			    str_eq(json_object_get(v, "action"), "finished");
		if (broker_audit(b, "apply_recovered", json_incref(v)) != 0) {
			snprintf(
			    err, errlen, "the audit log cannot be written");
			json_decref(report);
			return -1;
		}
	}
	json_decref(report);
	return 0;
}

/* The size of the in-memory upper layer, in MiB: the change set's quota. */
static long long
upper_size_mb(const struct broker *b)
{
	(void)b;
	return CHANGESET_MAX_BYTES / (1024 * 1024);
}

/*
 * The upper layer in a tmpfs of its own, detached (in no mount table; it
 * goes with its last descriptor), of upper_size_mb(): a run that writes
 * more gets ENOSPC inside, and nothing of it reaches the host's disk.
 * Made here as root, else by upper_tmpfs_userns().  Returns the mount's
 * descriptor, holding "upper" and "work", or -1 (errno set).
 */
static int
upper_tmpfs_here(const struct broker *b)
{
	char size[32], inodes[32];
	int fd, mfd, e;

	snprintf(size, sizeof(size), "%lldm", upper_size_mb(b));
	/* Its inodes are kernel memory no cgroup may bound (an ordinary
	 * user has none delegated): the tmpfs default, half the RAM's pages,
	 * let a run pin gigabytes in empty files.  A set of more entries
	 * than CS_MAX_ENTRIES is refused anyway; twice that leaves room for
	 * the directories copied up above them. */
	snprintf(inodes, sizeof(inodes), "%d", 2 * CS_MAX_ENTRIES);
	if ((fd = fsopen("tmpfs", FSOPEN_CLOEXEC)) == -1)
		return -1;
	if (fsconfig(fd, FSCONFIG_SET_STRING, "size", size, 0) == -1 ||
	    fsconfig(fd, FSCONFIG_SET_STRING, "nr_inodes", inodes, 0) == -1 ||
	    fsconfig(fd, FSCONFIG_SET_STRING, "mode", "0700", 0) == -1 ||
	    fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == -1 ||
	    (mfd = fsmount(fd, FSMOUNT_CLOEXEC,
		 MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)) ==
		-1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	if (mkdirat(mfd, "upper", 0755) == -1 ||
	    mkdirat(mfd, "work", 0700) == -1) {
		e = errno;
		close(mfd);
		errno = e;
		return -1;
	}
	return mfd;
}

/*
 * Not root: a process may mount a tmpfs only in a user namespace of its
 * own.  A helper is cloned into a new user and mount namespace (its own
 * uid and gid mapped, setgroups denied), sharing our memory and our
 * descriptor table, so that the tmpfs it makes is ours when it exits;
 * the runner's overlay, in its own user namespace, takes it as the upper
 * layer (tmpfs holds the user.* xattrs of "userxattr" since Linux 6.6:
 * the helper checks that too).
 */
struct upper_helper {
	const struct broker *b;
	uid_t uid; /* ours, read before: inside, unmapped yet */
	gid_t gid;
	int mfd; /* the tmpfs, or -1 */
	int err; /* errno where mfd is -1 */
	const char *what;
};

static char upper_helper_stack[16 * 1024] __attribute__((aligned(16)));

static int
upper_map(const char *file, const char *map)
{
	int fd, ok;

	if ((fd = open(file, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	ok = write(fd, map, strlen(map)) == (ssize_t)strlen(map);
	close(fd);
	return ok ? 0 : -1;
}

static int
upper_helper(void *arg)
{
	struct upper_helper *h = arg;
	char map[64];
	int mfd, dfd;

	h->what = "setgroups";
	if (upper_map("/proc/self/setgroups", "deny") == -1)
		goto fail;
	h->what = "uid_map";
	snprintf(
	    map, sizeof(map), "%u %u 1\n", (unsigned)h->uid, (unsigned)h->uid);
	if (upper_map("/proc/self/uid_map", map) == -1)
		goto fail;
	h->what = "gid_map";
	snprintf(
	    map, sizeof(map), "%u %u 1\n", (unsigned)h->gid, (unsigned)h->gid);
	if (upper_map("/proc/self/gid_map", map) == -1)
		goto fail;
	h->what = "tmpfs";
	if ((mfd = upper_tmpfs_here(h->b)) == -1)
		goto fail;
	/* The overlay's "userxattr" keeps its whiteouts and opaque
	 * directories in user.* xattrs. */
	h->what = "user xattrs on tmpfs (Linux 6.6)";
	if ((dfd = openat(mfd, "upper", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
		-1 ||
	    fsetxattr(dfd, "user.airlock", "", 0, 0) == -1 ||
	    fremovexattr(dfd, "user.airlock") == -1) {
		h->err = errno;
		if (dfd != -1)
			close(dfd);
		close(mfd);
		return 1;
	}
	close(dfd);
	h->mfd = mfd;
	return 0;
fail:
	h->err = errno;
	return 1;
}

static int
upper_tmpfs_userns(const struct broker *b, const char **what)
{
	struct upper_helper h = { b, geteuid(), getegid(), -1, 0, "clone" };
	pid_t pid;
	int status;

	pid = clone(upper_helper,
	    upper_helper_stack + sizeof(upper_helper_stack),
	    CLONE_NEWUSER | CLONE_NEWNS | CLONE_VM | CLONE_FILES | SIGCHLD, &h);
	if (pid == -1) {
		*what = "clone (a user namespace)";
		return -1;
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		continue;
	if (h.mfd == -1) {
		*what = h.what;
		errno = h.err != 0 ? h.err : EIO;
		return -1;
	}
	return h.mfd;
}

/*
 * The tmpfs of upper_tmpfs_here(), as root or through the helper; -1
 * with the reason logged where it cannot be made (then the caller's
 * directory on disk serves, bounded only when the set lands: say so
 * once).
 */
static int
upper_tmpfs(const struct broker *b)
{
	static int warned;
	const char *what = "tmpfs";
	int mfd, e;

	if (geteuid() == 0)
		mfd = upper_tmpfs_here(b);
	else
		mfd = upper_tmpfs_userns(b, &what);
	if (mfd == -1 && !warned) {
		e = errno;
		warned = 1;
		log_warnx("warning: no size-limited tmpfs for the run's upper "
			  "layer (%s: %s): its writes go to the disk, and the "
			  "change set's size is checked only when it lands",
		    what, strerror(e));
		errno = e;
	}
	return mfd;
}

int
changeset_upper_new(
    const char *dir, struct changeset_upper *u, char *err, size_t errlen)
{
	memset(u, 0, sizeof(*u));
	u->mnt_fd = -1;
	if ((u->mnt_fd = upper_tmpfs(NULL)) != -1)
		return 0;
	if (dir == NULL) {
		snprintf(err, errlen, "no tmpfs upper layer could be made");
		return -1;
	}
	if (mkdir(dir, 0700) == -1) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	u->dir = xstrdup(dir);
	xasprintf(&u->upper, "%s/upper", dir);
	xasprintf(&u->work, "%s/work", dir);
	if (mkdir(u->upper, 0755) == -1 || mkdir(u->work, 0700) == -1) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		changeset_upper_free(u);
		return -1;
	}
	return 0;
}

int
changeset_upper_open(const struct changeset_upper *u)
{
	if (u->mnt_fd != -1)
		return openat(u->mnt_fd, "upper",
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return open(u->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int
changeset_tmpfs_full(int mfd)
{
	struct statvfs sv;

	if (fstatvfs(mfd, &sv) == -1)
		return 1;
	return sv.f_bavail == 0 || sv.f_favail == 0;
}

int
changeset_upper_full(const struct changeset_upper *u)
{
	return u->mnt_fd != -1 && changeset_tmpfs_full(u->mnt_fd);
}

void
changeset_upper_free(struct changeset_upper *u)
{
	if (u->dir != NULL)
		rm_tree(AT_FDCWD, u->dir);
	if (u->mnt_fd != -1)
		close(u->mnt_fd);
	free(u->dir);
	free(u->upper);
	free(u->work);
	memset(u, 0, sizeof(*u));
	u->mnt_fd = -1;
}

int
changeset_call_prepare(struct call *c, json_t **out)
{
	struct broker *b = c->b;
	char *base, *dir;

	(void)out;
	/* A copy-on-write session's runners see and change its view. */
	cowview_call_prepare(c);
	if (c->tool->side_effect == SIDE_EFFECT_NONE) {
		c->req.workspace_readonly = 1;
		return 0;
	}
	/* The copy-on-write and read-only modes write nothing anyway. */
	if (b->m->sandbox.workspace == WORKSPACE_COW ||
	    b->m->sandbox.workspace_readonly || b->cfg.session_dir == NULL)
		return 0;
	/* Where that fails, the session directory serves. */
	if ((c->changes_fd = upper_tmpfs(b)) != -1) {
		c->req.upper_mnt = 1;
		c->req.upper_fd = c->changes_fd;
		return 0;
	}
	xasprintf(&base, "%s/changes", b->cfg.session_dir);
	if (mkdir(base, 0700) == -1 && errno != EEXIST) {
		*out = tool_error(
		    "internal", 1, NULL, "%s: %s", base, strerror(errno));
		free(base);
		return -1;
	}
	xasprintf(&dir, "%s/%lld", base, (long long)c->seq);
	free(base);
	rm_tree(AT_FDCWD, dir);
	if (mkdir(dir, 0700) == -1) {
		*out = tool_error(
		    "internal", 1, NULL, "%s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	c->changes = dir;
	xasprintf(&c->changes_upper, "%s/upper", dir);
	xasprintf(&c->changes_work, "%s/work", dir);
	if (mkdir(c->changes_upper, 0755) == -1 ||
	    mkdir(c->changes_work, 0700) == -1) {
		*out = tool_error(
		    "internal", 1, NULL, "%s: %s", dir, strerror(errno));
		changeset_call_clear(c);
		return -1;
	}
	c->req.upper_dir = c->changes_upper;
	c->req.work_dir = c->changes_work;
	return 0;
}

void
changeset_call_clear(struct call *c)
{
	if (c->changes != NULL)
		rm_tree(AT_FDCWD, c->changes);
	if (c->changes_fd != -1)
		close(c->changes_fd);
	c->changes_fd = -1;
	free(c->changes);
	free(c->changes_upper);
	free(c->changes_work);
	c->changes = c->changes_upper = c->changes_work = NULL;
}
