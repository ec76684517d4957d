/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Pinned code; see pins.h.
 *
 * Every open goes through path_resolve() or, inside a directory it
 * returned, through openat() with O_NOFOLLOW: nothing here follows a
 * symlink, so nothing outside the workspace is ever read.  Sizes are
 * checked from fstat() before reading and again on what was read, so a
 * sparse or growing file costs at most PINS_FILE_MAX.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker/pins.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/path.h"
#include "policy/types.h"

#define PINS_DEPTH_MAX 64
#define HEAD_LINES 40
#define HEAD_BYTES 4096

struct collect {
	int rootfd;
	json_t *set;
	size_t total;
	char *err;
	size_t errlen;
};

static int
add(struct collect *k, const char *path, const char *digest)
{
	if (json_object_get(k->set, path) == NULL &&
	    json_object_size(k->set) >= PINS_ENTRIES_MAX) {
		snprintf(k->err, k->errlen, "more than %d pinned files",
		    PINS_ENTRIES_MAX);
		return AL_ERR_LIMIT;
	}
	if (json_object_set_new(k->set, path, json_string(digest)) != 0)
		fatalx("json_object_set_new");
	return 0;
}

/* Hashes the regular file open on |fd| as |path| into the set. */
static int
add_file(struct collect *k, int fd, const char *path, const struct stat *st)
{
	char hex[SHA256_HEX_LEN + 1], *data;
	size_t len;

	if (st->st_nlink > 1)
		return add(k, path, "refused:hard link");
	if (st->st_size > PINS_FILE_MAX) {
		snprintf(k->err, k->errlen,
		    "pinned file %s is larger than "
		    "%d bytes",
		    path, PINS_FILE_MAX);
		return AL_ERR_LIMIT;
	}
	if ((data = read_fd_upto(fd, PINS_FILE_MAX + 1, &len)) == NULL) {
		snprintf(
		    k->err, k->errlen, "reading %s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (len > PINS_FILE_MAX || k->total + len > PINS_TOTAL_MAX) {
		free(data);
		if (len > PINS_FILE_MAX)
			snprintf(k->err, k->errlen,
			    "pinned file %s is larger "
			    "than %d bytes",
			    path, PINS_FILE_MAX);
		else
			snprintf(k->err, k->errlen,
			    "pinned code is larger "
			    "than %d bytes in all (at %s)",
			    PINS_TOTAL_MAX, path);
		return AL_ERR_LIMIT;
	}
	k->total += len;
	sha256_hex(data, len, hex);
	free(data);
	return add(k, path, hex);
}

/* Everything beneath the directory |dirfd| (consumed), named |prefix|. */
static int
add_dir(struct collect *k, int dirfd, const char *prefix, int depth)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	char path[PATH_REL_MAX + 1], target[PATH_REL_MAX + 16];
	int fd, rc = 0;
	ssize_t n;

	if (depth > PINS_DEPTH_MAX) {
		close(dirfd);
		snprintf(k->err, k->errlen,
		    "pinned directory %s is deeper "
		    "than %d levels",
		    prefix, PINS_DEPTH_MAX);
		return AL_ERR_LIMIT;
	}
	if ((d = fdopendir(dirfd)) == NULL) {
		close(dirfd);
		snprintf(k->err, k->errlen, "%s: %s", prefix, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, ".git") == 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s%s", prefix,
			de->d_name) >= sizeof(path))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue; /* gone meanwhile */
		if (S_ISLNK(st.st_mode)) {
			memcpy(target, "symlink:", 8);
			n = readlinkat(
			    dirfd, de->d_name, target + 8, sizeof(target) - 9);
			target[n < 0 ? 8 : 8 + n] = '\0';
			rc = add(k, path, target);
		} else if (S_ISDIR(st.st_mode)) {
			fd = openat(dirfd, de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd == -1)
				rc = add(
				    k, path, "refused:unreadable directory");
			else if (strlen(path) + 2 < sizeof(path)) {
				strcat(path, "/");
				rc = add_dir(k, fd, path, depth + 1);
			} else
				close(fd);
		} else if (S_ISREG(st.st_mode)) {
			fd = openat(dirfd, de->d_name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				O_CLOEXEC);
			if (fd == -1 || fstat(fd, &st) == -1 ||
			    !S_ISREG(st.st_mode))
				rc = add(k, path, "refused:unreadable");
			else
				rc = add_file(k, fd, path, &st);
			if (fd != -1)
				close(fd);
		} else
			rc = add(k, path, "special");
	}
	closedir(d);
	return rc;
}

/*
 * One path: a file named by argv (|optional|: only if it is one) or by a
 * pin list (recorded whatever it is, absent included).
 */
static int
add_path(struct collect *k, const char *rel, int optional)
{
	char e[256], key[PATH_REL_MAX + 1], why[PATH_REL_MAX + 300];
	struct stat st;
	size_t len;
	int fd, rc;

	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	len = strlen(rel);
	if (len == 0 || len > PATH_REL_MAX ||
	    type_path_syntax_error(rel, len) != NULL)
		return optional ? 0 : add(k, rel, "refused:not a path");
	snprintf(key, sizeof(key), "%s", rel);
	while (len > 1 && key[len - 1] == '/')
		key[--len] = '\0';
	rc = path_resolve(k->rootfd, key, O_RDONLY | O_NOCTTY | O_NONBLOCK, &fd,
	    e, sizeof(e));
	if (rc == AL_ERR_NOT_FOUND)
		return optional ? 0 : add(k, key, "-");
	if (rc != 0) {
		if (optional && rc != AL_ERR_PATH)
			return 0;
		snprintf(why, sizeof(why), "refused:%s", e);
		return add(k, key, why);
	}
	if (fstat(fd, &st) == -1) {
		close(fd);
		snprintf(k->err, k->errlen, "%s: %s", key, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (S_ISDIR(st.st_mode)) {
		if (optional) {
			close(fd);
			return 0;
		}
		if (strcmp(key, ".") == 0)
			key[0] = '\0';
		else
			strcat(key, "/"); /* fits: len < PATH_REL_MAX */
		return add_dir(k, fd, key, 0);
	}
	rc = add_file(k, fd, key, &st);
	close(fd);
	return rc;
}

static int
is_make(const char *prog)
{
	const char *p = strrchr(prog, '/');

	p = p != NULL ? p + 1 : prog;
	return strcmp(p, "make") == 0 || strcmp(p, "gmake") == 0;
}

int
pins_collect(int rootfd, const char *workspace, char *const *argv,
    char *const *pin, char *const *pin2, json_t **out, char *err, size_t errlen)
{
	static const char *const makefiles[] = { "GNUmakefile", "makefile",
		"Makefile", NULL };
	struct collect k;
	size_t i, wl = strlen(workspace);
	int rc = 0;

	*out = NULL;
	memset(&k, 0, sizeof(k));
	k.rootfd = rootfd;
	k.err = err;
	k.errlen = errlen;
	if ((k.set = json_object()) == NULL)
		fatalx("json_object");
	for (i = 0; rc == 0 && argv != NULL && argv[i] != NULL; i++) {
		const char *a = argv[i];

		if (a[0] == '/') {
			if (wl < 2 || strncmp(a, workspace, wl) != 0 ||
			    a[wl] != '/')
				continue;
			a += wl + 1;
		}
		rc = add_path(&k, a, 1);
	}
	if (rc == 0 && argv != NULL && argv[0] != NULL && is_make(argv[0]))
		for (i = 0; rc == 0 && makefiles[i] != NULL; i++)
			rc = add_path(&k, makefiles[i], 0);
	for (i = 0; rc == 0 && pin != NULL && pin[i] != NULL; i++)
		rc = add_path(&k, pin[i], 0);
	for (i = 0; rc == 0 && pin2 != NULL && pin2[i] != NULL; i++)
		rc = add_path(&k, pin2[i], 0);
	if (rc != 0) {
		json_decref(k.set);
		return rc;
	}
	*out = k.set;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
	    json_string_value(*(json_t *const *)b));
}

json_t *
pins_changed(json_t *was, json_t *now)
{
	const char *path;
	json_t *v, *list, *sorted, **e;
	size_t i, n;

	if ((list = json_array()) == NULL || (sorted = json_array()) == NULL)
		fatalx("json_array");
	json_object_foreach(was, path, v)
	{
		if (!json_equal(v, json_object_get(now, path)))
			json_array_append_new(list, json_string(path));
	}
	json_object_foreach(now, path, v)
	{
		if (json_object_get(was, path) == NULL)
			json_array_append_new(list, json_string(path));
	}
	n = json_array_size(list);
	e = xcalloc(n ? n : 1, sizeof(*e));
	for (i = 0; i < n; i++)
		e[i] = json_array_get(list, i);
	qsort(e, n, sizeof(*e), cmp_str);
	for (i = 0; i < n; i++)
		json_array_append(sorted, e[i]);
	free(e);
	json_decref(list);
	return sorted;
}

/*
 * The first lines of a text file, or NULL; *cut says whether the file
 * goes on past them.
 */
static json_t *
head(int rootfd, const char *path, int *cut)
{
	struct stat st;
	char *data, *clean;
	size_t len, i, lines = 0;
	json_t *s;
	int fd;

	if (path_resolve(rootfd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK, &fd,
		NULL, 0) != 0)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (data = read_fd_upto(fd, HEAD_BYTES, &len)) == NULL) {
		close(fd);
		return NULL;
	}
	close(fd);
	*cut = st.st_size > (off_t)len;
	for (i = 0; i < len; i++)
		if (data[i] == '\n' && ++lines == HEAD_LINES) {
			*cut |= i + 1 < len;
			len = i + 1;
			break;
		}
	if (memchr(data, '\0', len) != NULL) {
		free(data);
		return NULL;
	}
	clean = utf8_sanitize(data, len);
	free(data);
	s = json_string(clean);
	free(clean);
	return s;
}

json_t *
pins_changes(int rootfd, json_t *was, json_t *now)
{
	json_t *paths, *out, *p, *h;
	size_t i;

	if ((out = json_object()) == NULL)
		fatalx("json_object");
	paths = pins_changed(was, now);
	json_array_foreach(paths, i, p)
	{
		const char *path = json_string_value(p);
		json_t *was_sha = json_object_get(was, path);
		json_t *now_sha = json_object_get(now, path);
		json_t *c;
		int cut = 0;

		c = json_pack("{s:O, s:O}", "approvedSha",
		    was_sha != NULL ? was_sha : json_null(), "nowSha",
		    now_sha != NULL ? now_sha : json_null());
		if (c == NULL)
			fatalx("json_pack");
		if (now_sha != NULL && (h = head(rootfd, path, &cut)) != NULL) {
			json_object_set_new(c, "nowHead", h);
			/* A cut the reviewer is told of: a benign start
			 * would pass for the whole script. */
			if (cut)
				json_object_set_new(
				    c, "nowHeadCut", json_true());
		}
		json_object_set_new(out, path, c);
	}
	json_decref(paths);
	return out;
}

void
pins_merge(json_t *dst, json_t *src)
{
	json_t *v, *w;
	size_t i, j;

	json_array_foreach(src, i, v)
	{
		json_array_foreach(dst, j, w)
		{
			if (json_equal(v, w))
				break;
		}
		if (j == json_array_size(dst))
			json_array_append(dst, v);
	}
}
