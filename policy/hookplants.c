/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* hookplants: the hook managers' files an agent wrote (hookplants.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common/util.h"
#include "policy/hookplants.h"

struct walk {
	struct git_hooks_list *l;
	struct git_hooks h; /* l's lintstaged and husky_pkg, no dirs */
	size_t cap; /* l->paths' room, the NULL included */
	size_t planted;
	long entries;
	int lowerfd; /* the checkout */
	char path[4096]; /* workspace-relative, of the entry walked */
	char *err;
	size_t errlen;
};

static int
failed(struct walk *w, const char *what)
{
	snprintf(w->err, w->errlen, "%s the session's %s: %s", what,
	    w->path[0] != '\0' ? w->path : "upper layer", strerror(errno));
	return -1;
}

/* The whole regular file |fd| (closed), NUL-terminated, or NULL with
 * *len SIZE_MAX: not a regular file or past GIT_HOOKS_KEYS_MAX_BYTES. */
static char *
slurp(int fd, size_t *len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	size_t got = 0;

	*len = SIZE_MAX;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > GIT_HOOKS_KEYS_MAX_BYTES) {
		close(fd);
		return NULL;
	}
	buf = xcalloc((size_t)st.st_size + 1, 1);
	/* (It may have grown since: read no more than room for.) */
	while (got < (size_t)st.st_size &&
	    (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

/*
 * Whether |text| may give a key of |keys| a value: it names the key, or
 * holds a backslash (JSON spells "lint-staged" as "lint\u002dstaged"
 * too).  Else the key is absent, which changes nothing (a removal is
 * not a plant), or the text is not JSON, which lint-staged passes over
 * in a package.json.  Spares parsing every package.json of a session's
 * node_modules.
 */
static int
may_name(const char *text, size_t len, unsigned keys)
{
	return memchr(text, '\\', len) != NULL ||
	    ((keys & GIT_HOOKS_KEY_LINTSTAGED) != 0 &&
		memmem(text, len, "lint-staged", 11) != NULL) ||
	    ((keys & GIT_HOOKS_KEY_HUSKY) != 0 &&
		memmem(text, len, "husky", 5) != NULL);
}

/*
 * Whether the package.json |name| in the upper layer's directory |dfd|
 * (at w->path) gives a key of |keys| a new value against the checkout's.
 * 1, 0, or -1 (errno): a file that cannot be opened.
 */
static int
keys_planted(struct walk *w, int dfd, const char *name, unsigned keys)
{
	struct open_how how;
	char *before = NULL, *after;
	size_t blen = 0, alen;
	int fd, rc;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return errno == ELOOP ? 1 : -1; /* a symlink: covered */
	if ((after = slurp(fd, &alen)) == NULL)
		return 1; /* not regular, or too large to compare */
	if (!may_name(after, alen, keys)) {
		free(after);
		return 0;
	}
	memset(&how, 0, sizeof(how));
	how.flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
	if ((fd = (int)syscall(SYS_openat2, w->lowerfd, w->path, &how,
	    sizeof(how))) != -1) {
		if ((before = slurp(fd, &blen)) == NULL && blen == SIZE_MAX) {
			free(after);
			return 1; /* the checkout's, too large */
		}
	} else if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP) {
		free(after);
		return -1;
	}
	rc = git_hooks_keys_changed(keys, before, blen, after, alen);
	free(before);
	free(after);
	return rc;
}

/* Adds w->path to the paths covered, unless already there. */
static int
plant(struct walk *w)
{
	size_t i;

	for (i = 0; i < w->l->n; i++)
		if (strcmp(w->l->paths[i], w->path) == 0)
			return 0;
	if (++w->planted > HOOKPLANTS_MAX) {
		snprintf(w->err, w->errlen, "the session's view holds more "
		    "than %d hook-manager configs of its own; a runner covers "
		    "no more", HOOKPLANTS_MAX);
		return -1;
	}
	if (w->l->n + 2 > w->cap) {
		w->cap = w->cap * 2 + 8;
		w->l->paths = xreallocarray(w->l->paths, w->cap,
		    sizeof(*w->l->paths));
	}
	w->l->paths[w->l->n++] = xstrdup(w->path);
	w->l->paths[w->l->n] = NULL;
	return 0;
}

/* Walks the upper layer's directory |dfd| (closed), at w->path (|len|
 * bytes), |depth| levels down. */
static int
walk_dir(struct walk *w, int dfd, size_t len, int depth)
{
	struct dirent *de;
	struct stat st;
	unsigned keys;
	mode_t mode;
	size_t sub;
	DIR *d;
	int fd, n, rc = 0;

	if (depth > HOOKPLANTS_MAX_DEPTH) {
		close(dfd);
		snprintf(w->err, w->errlen, "the session's changes nest more "
		    "than %d directories deep; a runner looks no deeper for "
		    "hook-manager configs", HOOKPLANTS_MAX_DEPTH);
		return -1;
	}
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return failed(w, "read");
	}
	while (rc == 0) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0)
				rc = failed(w, "read");
			break;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->entries > HOOKPLANTS_MAX_ENTRIES) {
			snprintf(w->err, w->errlen, "the session's changes "
			    "hold more than %ld entries; a runner looks no "
			    "further for hook-manager configs",
			    HOOKPLANTS_MAX_ENTRIES);
			rc = -1;
			break;
		}
		n = snprintf(w->path + len, sizeof(w->path) - len, "%s%s",
		    len > 0 ? "/" : "", de->d_name);
		if (n < 0 || (size_t)n >= sizeof(w->path) - len) {
			w->path[len] = '\0';
			errno = ENAMETOOLONG;
			rc = failed(w, "walk");
			break;
		}
		sub = len + (size_t)n;
		if (de->d_type != DT_UNKNOWN)
			mode = DTTOIF(de->d_type);
		else if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0)
			mode = st.st_mode & S_IFMT;
		else {
			rc = failed(w, "stat");
			break;
		}
		if (S_ISDIR(mode)) {
			if ((fd = openat(dirfd(d), de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
				rc = failed(w, "open");
			else
				rc = walk_dir(w, fd, sub, depth + 1);
		} else if (S_ISREG(mode) || S_ISLNK(mode)) {
			/* (A whiteout is a character device: a removal.) */
			if (git_hooks_cover(&w->h, w->path))
				rc = plant(w);
			else if ((keys = git_hooks_keys(&w->h, w->path)) != 0) {
				if ((rc = keys_planted(w, dirfd(d), de->d_name,
				    keys)) == -1)
					rc = failed(w, "read");
				else if (rc == 1)
					rc = plant(w);
			}
		}
		w->path[len] = '\0';
	}
	closedir(d);
	return rc;
}

int
hookplants_find(struct git_hooks_list *l, const char *ws, const char *upper,
    char *err, size_t errlen)
{
	struct walk w;
	int fd, rc;

	if (l->lintstaged == NULL && l->husky_pkg == NULL)
		return 0;
	memset(&w, 0, sizeof(w));
	w.l = l;
	w.h.lintstaged = l->lintstaged;
	w.h.husky_pkg = l->husky_pkg;
	w.cap = GIT_HOOKS_MAX + GIT_HOOK_NAMES + 1;
	w.err = err;
	w.errlen = errlen;
	if ((w.lowerfd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "open the checkout %s: %s", ws,
		    strerror(errno));
		return -1;
	}
	if ((fd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		rc = failed(&w, "open");
	else
		rc = walk_dir(&w, fd, 0, 0);
	close(w.lowerfd);
	return rc;
}
