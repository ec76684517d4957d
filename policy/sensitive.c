/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/paths.h"
#include "common/util.h"
#include "policy/sensitive.h"
#include "policy/vcsdirs.h"

const char *const sensitive_cred_stores[] = { ".ssh", ".aws", ".gnupg",
	".netrc", ".docker", ".kube", ".config/gh", ".config/gcloud", ".azure",
	".git-credentials", ".npmrc", ".pypirc", ".config/hub",
	".password-store", ".local/share/keyrings", ".pgpass", NULL };

/* The host's secrets, kernel interfaces and sockets, as prefixes. */
static const char *const system_paths[] = { "/proc", "/sys", "/dev", "/boot",
	"/run", "/var/run", "/etc/shadow", "/etc/gshadow", "/etc/sudoers",
	"/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private", "/tmp/.X11-unix",
	"/tmp/.ICE-unix", NULL };

int
path_has_components(const char *p, const char *comp)
{
	size_t n = strlen(comp);
	const char *s;

	for (s = p; (s = strstr(s, comp)) != NULL; s++)
		if ((s == p || s[-1] == '/') && (s[n] == '\0' || s[n] == '/'))
			return 1;
	return 0;
}

/*
 * Is |p| |dir| or beneath it?  Trailing slashes of |dir| do not count
 * ("/a/" holds "/a/b"), and "/" holds every absolute path.
 */
static int
beneath(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 0 && dir[n - 1] == '/')
		n--;
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

const char *
sensitive_path(const char *path, char *buf, size_t len)
{
	size_t i;

	for (i = 0; sensitive_cred_stores[i] != NULL; i++)
		if (path_has_components(path, sensitive_cred_stores[i])) {
			snprintf(buf, len, "a credential store (~/%s)",
			    sensitive_cred_stores[i]);
			return buf;
		}
	for (i = 0; system_paths[i] != NULL; i++)
		if (beneath(path, system_paths[i])) {
			snprintf(buf, len, "the host's %s", system_paths[i]);
			return buf;
		}
	return NULL;
}

int
sensitive_holds_own(const char *path, char *own, size_t ownlen)
{
	static int (*const own_dir[])(char *, size_t) = { paths_state_dir,
		paths_runtime_dir, paths_config_dir };
	char dir[PATH_MAX], real[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(own_dir) / sizeof(own_dir[0]); i++) {
		if (own_dir[i](dir, sizeof(dir)) != 0 || dir[0] != '/')
			continue;
		/* As a bind sees it: through the host's links. */
		if (realpath(dir, real) == NULL)
			snprintf(real, sizeof(real), "%s", dir);
		if (beneath(real, path) || beneath(dir, path)) {
			snprintf(own, ownlen, "%s", real);
			return 1;
		}
	}
	return 0;
}

const char *
sensitive_forbidden(
    const char *path, char *const *deny, size_t ndeny, char *why, size_t whylen)
{
	char dir[PATH_MAX];
	size_t i;

	if (sensitive_path(path, why, whylen) != NULL)
		return why;
	for (i = 0; i < ndeny; i++)
		if (beneath(path, deny[i]))
			return "a denyRead path";
	if ((paths_state_dir(dir, sizeof(dir)) == 0 && beneath(path, dir)) ||
	    (paths_config_dir(dir, sizeof(dir)) == 0 && beneath(path, dir)) ||
	    (paths_runtime_dir(dir, sizeof(dir)) == 0 && beneath(path, dir)))
		return "airlock's own state";
	return NULL;
}

int
sensitive_stat_denied(const struct stat *st, char *const *deny, size_t ndeny)
{
	struct stat ds;
	size_t i;

	for (i = 0; i < ndeny; i++)
		if (stat(deny[i], &ds) == 0 && ds.st_dev == st->st_dev &&
		    ds.st_ino == st->st_ino)
			return 1;
	return 0;
}

const char *
sensitive_fd_denied(int fd, char *const *deny, size_t ndeny)
{
	char link[64], path[PATH_MAX], *slash;
	struct stat st;
	ssize_t n;
	size_t i;

	if (ndeny == 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st) == -1 ||
	    (n = readlink(link, path, sizeof(path))) <= 0 ||
	    (size_t)n >= sizeof(path) || path[0] != '/')
		return "its place cannot be told";
	path[n] = '\0';
	if (sensitive_stat_denied(&st, deny, ndeny))
		return "a denyRead path";
	for (i = 0; i < ndeny; i++)
		if (beneath(path, deny[i]))
			return "a denyRead path";
	/* Its directories up to "/", as the kernel names them. */
	while ((slash = strrchr(path, '/')) != NULL && path[1] != '\0') {
		if (slash == path)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(path, &st) == -1)
			return "its place cannot be told";
		if (sensitive_stat_denied(&st, deny, ndeny))
			return "beneath a denyRead path";
	}
	return NULL;
}

const char *
sensitive_at_denied(
    int dirfd, const char *base, char *const *deny, size_t ndeny)
{
	char link[64], path[PATH_MAX];
	const char *why;
	struct stat st;
	ssize_t n;
	size_t i;
	int m;

	if (ndeny == 0)
		return NULL;
	if ((why = sensitive_fd_denied(dirfd, deny, ndeny)) != NULL)
		return why;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	if ((n = readlink(link, path, sizeof(path))) <= 0 ||
	    (size_t)n >= sizeof(path) || path[0] != '/')
		return "its place cannot be told";
	m = snprintf(
	    path + n, sizeof(path) - (size_t)n, "%s%s", n > 1 ? "/" : "", base);
	if (m < 0 || (size_t)m >= sizeof(path) - (size_t)n)
		return "its place cannot be told";
	for (i = 0; i < ndeny; i++)
		if (beneath(path, deny[i]))
			return "a denyRead path";
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? NULL : "its place cannot be told";
	if (sensitive_stat_denied(&st, deny, ndeny))
		return "a denyRead path";
	return NULL;
}

/* What sensitive_tree() checks each entry's path against, or NULL. */
struct tree_names {
	char *const *deny;
	size_t ndeny;
	char path[PATH_MAX]; /* the entry's, as the walk reached it */
};

/* Is |dir| strictly beneath |p| (trailing slashes of |p| do not count)? */
static int
holds(const char *p, const char *dir)
{
	size_t n = strlen(p);

	while (n > 0 && p[n - 1] == '/')
		n--;
	return strncmp(dir, p, n) == 0 && dir[n] == '/' && dir[n + 1] != '\0';
}

/*
 * The walk of sensitive_plain_tree() and sensitive_tree(): |dfd| is
 * consumed; with |names|, names->path is the directory's path and each
 * entry's path must not be sensitive_forbidden().  1 if every entry, to
 * any depth, is a directory, or (unless |dirs_only|) a regular file or
 * a symbolic link; 0 if one is not, a place cannot be read, or past
 * SENSITIVE_PLAIN_MAX entries (*seen counts them).
 */
static int
plain_walk(int dfd, size_t *seen, struct tree_names *names, int dirs_only)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	char why[128];
	size_t len = names != NULL ? strlen(names->path) : 0;
	int fd, ok = 1;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return 0;
	}
	while (ok && (errno = 0, e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++*seen > SENSITIVE_PLAIN_MAX ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
			-1) {
			ok = 0;
			continue;
		}
		if (names != NULL) {
			int n = snprintf(names->path + len,
			    sizeof(names->path) - len, "%s%s",
			    len > 0 && names->path[len - 1] == '/' ? "" : "/",
			    e->d_name);

			if (n < 0 || (size_t)n >= sizeof(names->path) - len ||
			    sensitive_forbidden(names->path, names->deny,
				names->ndeny, why, sizeof(why)) != NULL) {
				ok = 0;
				continue;
			}
		}
		if (S_ISDIR(st.st_mode)) {
			fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			ok = fd != -1 && plain_walk(fd, seen, names, dirs_only);
		} else
			ok = !dirs_only &&
			    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
		if (names != NULL)
			names->path[len] = '\0';
	}
	if (errno != 0)
		ok = 0;
	closedir(d);
	return ok;
}

/* sensitive_plain_tree(), and with |names|, sensitive_tree()'s walk. */
static int
plain_tree(const char *path, struct tree_names *names)
{
	struct stat st;
	size_t seen = 0;
	int fd;

	if (stat(path, &st) == -1)
		return errno == ENOENT;
	if (S_ISREG(st.st_mode))
		return 1;
	if (!S_ISDIR(st.st_mode))
		return 0;
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 0;
	return plain_walk(fd, &seen, names, 0);
}

int
sensitive_plain_tree(const char *path)
{
	return plain_tree(path, NULL);
}

const char *
sensitive_tree(const char *path, char *const *deny, size_t ndeny)
{
	struct tree_names names;
	char dir[PATH_MAX], real[PATH_MAX];
	size_t i;
	int (*const which[3])(char *, size_t) = { paths_state_dir,
		paths_config_dir, paths_runtime_dir };

	if (path == NULL || path[0] != '/' ||
	    strlen(path) >= sizeof(names.path))
		return "not an absolute path";
	for (i = 0; i < ndeny; i++)
		if (holds(path, deny[i]) ||
		    (realpath(deny[i], real) != NULL && holds(path, real)))
			return "holds a denyRead path";
	for (i = 0; i < 3; i++)
		if (which[i](dir, sizeof(dir)) == 0 &&
		    (holds(path, dir) ||
			(realpath(dir, real) != NULL && holds(path, real))))
			return "holds airlock's own state";
	names.deny = deny;
	names.ndeny = ndeny;
	snprintf(names.path, sizeof(names.path), "%s", path);
	if (!plain_tree(path, &names))
		return "is or holds a socket, device, FIFO, credential store "
		       "or other protected path (or more than 4096 entries, "
		       "or cannot be read whole)";
	return NULL;
}

int
sensitive_link_rewritable(const char *path, const char *const *roots,
    size_t nroots, char *link, size_t linklen)
{
	char p[PATH_MAX], real[PATH_MAX], *slash;
	struct stat st;
	size_t i, k;

	if (path[0] != '/')
		return 0;
	for (i = 1; path[i - 1] != '\0'; i++) {
		if ((path[i] != '/' && path[i] != '\0') || path[i - 1] == '/')
			continue;
		if (i >= sizeof(p))
			return 0;
		memcpy(p, path, i);
		p[i] = '\0';
		if (lstat(p, &st) == -1)
			return 0;
		if (!S_ISLNK(st.st_mode))
			continue;
		slash = strrchr(p, '/');
		*slash = '\0';
		if (realpath(p[0] != '\0' ? p : "/", real) != NULL)
			for (k = 0; k < nroots; k++)
				if (roots[k] != NULL &&
				    path_is_beneath(real, roots[k])) {
					*slash = '/';
					snprintf(link, linklen, "%s", p);
					return 1;
				}
	}
	return 0;
}

/*
 * |p| as it resolves now into |out|: itself; or, where it does not exist
 * (a denied file not made yet), its directory resolved and its last
 * component appended; else |p| with its trailing slashes dropped.
 */
static void
resolve_now(const char *p, char out[PATH_MAX])
{
	char dir[PATH_MAX], *slash;
	size_t n;

	snprintf(dir, sizeof(dir), "%s", p);
	for (n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		dir[n - 1] = '\0';
	if (realpath(dir, out) != NULL)
		return;
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (realpath(dir, out) != NULL &&
		    (size_t)snprintf(out + strlen(out), PATH_MAX - strlen(out),
			"/%s", slash + 1) < PATH_MAX - strlen(out))
			return;
		*slash = '/';
	}
	snprintf(out, PATH_MAX, "%s", dir);
}

/* Does some deny path, by its name or as it resolves now, hold |p|? */
static int
vcs_masked(const char *p, char *const *deny, size_t ndeny)
{
	char real[PATH_MAX];
	size_t i;

	for (i = 0; i < ndeny; i++) {
		if (beneath(p, deny[i]))
			return 1;
		resolve_now(deny[i], real);
		if (beneath(p, real))
			return 1;
	}
	return 0;
}

/*
 * Does the directory |dir| hold version-control metadata that no deny
 * path masks, for the denied |d| beneath it?  1 with its path in |meta|
 * (also when it cannot be looked at), else 0.
 */
static int
vcs_meta_exposed(const char *dir, const char *d, char *const *deny,
    size_t ndeny, char meta[PATH_MAX])
{
	struct stat st;
	size_t k, seen;
	int fd;

	for (k = 0; vcs_dirs[k] != NULL; k++) {
		if ((size_t)snprintf(
			meta, PATH_MAX, "%s/%s", dir, vcs_dirs[k]) >= PATH_MAX)
			return 1;
		if (lstat(meta, &st) == -1) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue;
			return 1;
		}
		/* The store's own files (.git/config) are not in its history;
		 * a tree of empty directories holds none. */
		if (beneath(d, meta) || vcs_masked(meta, deny, ndeny))
			continue;
		seen = 0;
		if (!S_ISDIR(st.st_mode) ||
		    (fd = open(meta,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) ==
			-1 ||
		    !plain_walk(fd, &seen, NULL, 1))
			return 1;
	}
	return 0;
}

const char *
sensitive_vcs_exposed(const char *top, char *const *deny, size_t ndeny,
    char *store, size_t storelen)
{
	char d[PATH_MAX], dir[PATH_MAX], meta[PATH_MAX], *s;
	size_t i, n = strlen(top);
	int pass;

	while (n > 0 && top[n - 1] == '/')
		n--;
	for (i = 0; i < ndeny; i++)
		for (pass = 0; pass < 2; pass++) {
			if (pass == 0)
				resolve_now(deny[i], d);
			else
				snprintf(d, sizeof(d), "%s", deny[i]);
			/* Strictly beneath |top|: d[n] is the '/' after it. */
			if (strncmp(d, top, n) != 0 || d[n] != '/' ||
			    d[n + 1] == '\0')
				continue;
			/* |top| and each directory between it and d. */
			for (s = d + n; s != NULL; s = strchr(s + 1, '/')) {
				snprintf(
				    dir, sizeof(dir), "%.*s", (int)(s - d), d);
				if (vcs_meta_exposed(
					dir, d, deny, ndeny, meta)) {
					snprintf(store, storelen, "%s", meta);
					return deny[i];
				}
			}
		}
	return NULL;
}

/* A name, found beneath a deny path, of an object that has several. */
struct link_name {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	dev_t pdev; /* the directory holding the name */
	ino_t pino;
	char *path; /* as the walk reached it */
	const char *root; /* the deny path it is beneath, as resolved */
};

struct link_walk {
	struct link_name *v;
	size_t n;
	size_t seen;
	size_t max;
	const char *root;
	char path[PATH_MAX];
	char *msg;
	size_t msglen;
};

/* Fails the walk at |path|, which cannot be read whole: -1. */
static int
links_unreadable(struct link_walk *w, const char *path, int err)
{
	snprintf(w->msg, w->msglen,
	    "%s (a denied path or in one): %s; what a denied path holds "
	    "is checked for other names (hard links) its mask would not "
	    "hide, and this cannot be",
	    path, strerror(err));
	return -1;
}

static void
links_note(struct link_walk *w, const struct stat *st, const struct stat *dir)
{
	struct link_name *l;

	w->v = xreallocarray(w->v, w->n + 1, sizeof(*w->v));
	l = &w->v[w->n++];
	l->dev = st->st_dev;
	l->ino = st->st_ino;
	l->nlink = st->st_nlink;
	l->pdev = dir->st_dev;
	l->pino = dir->st_ino;
	l->path = xstrdup(w->path);
	l->root = w->root;
}

/* Walks the directory |dfd| (consumed), named w->path: 0, or -1. */
static int
links_walk(struct link_walk *w, int dfd)
{
	struct stat dst, st;
	struct dirent *e;
	size_t len = strlen(w->path);
	DIR *d;
	int fd, n, rc = 0;

	if (fstat(dfd, &dst) == -1 || (d = fdopendir(dfd)) == NULL) {
		n = errno;
		close(dfd);
		return links_unreadable(w, w->path, n);
	}
	while (rc == 0 && (errno = 0, e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++w->seen > w->max) {
			snprintf(w->msg, w->msglen,
			    "denied path %s: more than %zu entries (with the "
			    "other denied paths) to check, at every sandbox "
			    "start, for other names (hard links) its mask "
			    "would not hide: deny smaller directories, or the "
			    "files themselves",
			    w->root, w->max);
			rc = -1;
			break;
		}
		n = snprintf(w->path + len, sizeof(w->path) - len, "%s%s",
		    len > 0 && w->path[len - 1] == '/' ? "" : "/", e->d_name);
		if (n < 0 || (size_t)n >= sizeof(w->path) - len) {
			w->path[len] = '\0';
			rc = links_unreadable(w, w->path, ENAMETOOLONG);
			break;
		}
		/* A name gone since readdir() shows nothing. */
		if (e->d_type != DT_DIR &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
			-1) {
			if (errno != ENOENT)
				rc = links_unreadable(w, w->path, errno);
		} else if (e->d_type == DT_DIR || S_ISDIR(st.st_mode)) {
			fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd != -1)
				rc = links_walk(w, fd);
			else if (errno != ENOENT)
				rc = links_unreadable(w, w->path, errno);
		} else if (st.st_nlink > 1)
			links_note(w, &st, &dst);
		w->path[len] = '\0';
	}
	if (rc == 0 && errno != 0)
		rc = links_unreadable(w, w->path, errno);
	closedir(d);
	return rc;
}

static int
link_name_cmp(const void *a, const void *b)
{
	const struct link_name *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->pdev != y->pdev)
		return x->pdev < y->pdev ? -1 : 1;
	if (x->pino != y->pino)
		return x->pino < y->pino ? -1 : 1;
	return strcmp(strrchr(x->path, '/'), strrchr(y->path, '/'));
}

/*
 * The top of the filesystem that holds |path| (absolute, resolved), as
 * far as its parents tell (the same st_dev): where find -xdev looks.
 */
static void
links_fs_top(const char *path, dev_t dev, char top[PATH_MAX])
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	snprintf(top, PATH_MAX, "/");
	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) == -1 || st.st_dev != dev)
			return;
		snprintf(top, PATH_MAX, "%s", dir);
	}
}

/*
 * Each object of v[0..n) (sorted) that has more names than were found:
 * NULL, or the first, written to |msg|.
 */
static const char *
links_unhidden(const struct link_name *v, size_t n, char *msg, size_t msglen)
{
	char top[PATH_MAX];
	const struct link_name *l;
	size_t i, j, names;
	nlink_t most;

	for (i = 0; i < n; i = j) {
		names = 1;
		most = v[i].nlink;
		for (j = i + 1;
		     j < n && v[j].dev == v[i].dev && v[j].ino == v[i].ino;
		     j++) {
			if (link_name_cmp(&v[j - 1], &v[j]) != 0)
				names++;
			if (v[j].nlink > most)
				most = v[j].nlink;
		}
		if (names >= most)
			continue;
		l = &v[i];
		links_fs_top(l->path, l->dev, top);
		snprintf(msg, msglen,
		    "%s%s%s has %ju names (hard links), %zu denied: the mask "
		    "hides names, not the file; find the others (find %s "
		    "-xdev -samefile %s), then remove or deny them",
		    strcmp(l->path, l->root) == 0 ? "denied path " : "",
		    l->path,
		    strcmp(l->path, l->root) == 0 ? "" : ", in a denied path,",
		    (uintmax_t)most, names, top, l->path);
		return msg;
	}
	return NULL;
}

const char *
sensitive_deny_linked(
    char *const *deny, size_t ndeny, size_t max, char *msg, size_t msglen)
{
	struct link_walk w;
	struct stat st, dst;
	const char *ret = NULL;
	char **roots, *slash;
	size_t i, j, nroots = 0;
	int fd;

	if (ndeny == 0)
		return NULL;
	memset(&w, 0, sizeof(w));
	w.max = max;
	w.msg = msg;
	w.msglen = msglen;
	roots = xcalloc(ndeny, sizeof(*roots));
	/* As the mask follows it; an absent one hides nothing. */
	for (i = 0; i < ndeny; i++) {
		if ((roots[nroots] = realpath(deny[i], NULL)) != NULL)
			nroots++;
		else if (errno != ENOENT && errno != ENOTDIR) {
			links_unreadable(&w, deny[i], errno);
			ret = msg;
			goto out;
		}
	}
	for (i = 0; i < nroots; i++) {
		/* One beneath another, or named twice, is walked once. */
		for (j = 0; j < nroots; j++)
			if (j != i &&
			    (holds(roots[j], roots[i]) ||
				(j < i && strcmp(roots[j], roots[i]) == 0)))
				break;
		if (j < nroots)
			continue;
		w.root = roots[i];
		snprintf(w.path, sizeof(w.path), "%s", roots[i]);
		if (lstat(roots[i], &st) == -1) {
			if (errno == ENOENT)
				continue;
			links_unreadable(&w, roots[i], errno);
			ret = msg;
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			if ((fd = open(roots[i],
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				     O_CLOEXEC)) == -1) {
				links_unreadable(&w, roots[i], errno);
				ret = msg;
				goto out;
			}
			if (links_walk(&w, fd) != 0) {
				ret = msg;
				goto out;
			}
			continue;
		}
		if (st.st_nlink <= 1)
			continue;
		/* Its directory, for a name reached twice to count once. */
		slash = strrchr(w.path, '/');
		*slash = '\0';
		if (stat(slash == w.path ? "/" : w.path, &dst) == -1) {
			links_unreadable(&w, w.path, errno);
			ret = msg;
			goto out;
		}
		*slash = '/';
		links_note(&w, &st, &dst);
	}
	if (w.n > 1)
		qsort(w.v, w.n, sizeof(*w.v), link_name_cmp);
	ret = links_unhidden(w.v, w.n, msg, msglen);
out:
	for (i = 0; i < w.n; i++)
		free(w.v[i].path);
	free(w.v);
	for (i = 0; i < nroots; i++)
		free(roots[i]);
	free(roots);
	return ret;
}
