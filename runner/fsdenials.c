/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * fsdenials: the paths a command's error lines name, checked against the
 * runner's policy (see fsdenials.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "runner/denials.h"
#include "runner/fsdenials.h"

#define LINE_MAX_SCAN 8192 /* longer lines are cut */
#define LINES_MAX_SCAN 4096 /* lines looked at, in all */

enum kind { K_NONE, K_ENOENT, K_EACCES, K_EPERM, K_EROFS };

static const struct {
	const char *text;
	enum kind kind;
} markers[] = {
	{ "Read-only file system", K_EROFS },
	{ "read-only file system", K_EROFS },
	{ "EROFS", K_EROFS },
	{ "Permission denied", K_EACCES },
	{ "permission denied", K_EACCES },
	{ "EACCES", K_EACCES },
	{ "Operation not permitted", K_EPERM },
	{ "operation not permitted", K_EPERM },
	{ "EPERM", K_EPERM },
	{ "No such file or directory", K_ENOENT },
	{ "no such file or directory", K_ENOENT },
	{ "ENOENT", K_ENOENT },
};

/* Words that say the refused access was a write. */
static const char *const write_words[] = { "cannot touch", "cannot create",
	"cannot remove", "cannot make", "cannot move", "cannot open '",
	"for writing", "cannot overwrite", "cannot change", "cannot link",
	"cannot rename", "mkdir", "unlink", "rmdir", "rename", "cannot write",
	"Errno 30", "EROFS", NULL };

static enum kind
line_kind(const char *line)
{
	size_t i;

	for (i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (strstr(line, markers[i].text) != NULL)
			return markers[i].kind;
	return K_NONE;
}

static int
says_write(const char *line)
{
	size_t i;

	for (i = 0; write_words[i] != NULL; i++)
		if (strstr(line, write_words[i]) != NULL)
			return 1;
	return 0;
}

int
runner_fs_normalize(const char *cwd, const char *path, char *out, size_t outlen)
{
	char buf[RUNNER_MAX_DENIAL_PATH * 2];
	const char *s;
	size_t len = 0, n;

	if (*path == '/')
		n = (size_t)snprintf(buf, sizeof(buf), "%s", path);
	else
		n = (size_t)snprintf(buf, sizeof(buf), "%s/%s", cwd, path);
	if (n >= sizeof(buf) || outlen < 2)
		return -1;
	out[0] = '\0';
	for (s = buf; *s != '\0';) {
		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 0)
			break;
		if (n == 1 && s[0] == '.') {
			/* nothing */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--; /* the slash */
			out[len] = '\0';
		} else {
			if (len + 1 + n + 1 > outlen)
				return -1;
			out[len++] = '/';
			memcpy(out + len, s, n);
			len += n;
			out[len] = '\0';
		}
		s += n;
	}
	if (len == 0) {
		out[0] = '/';
		out[1] = '\0';
	}
	return 0;
}

static int
beneath_any(const char *path, const char *const *roots, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (roots[i] != NULL && path_is_beneath(path, roots[i]))
			return 1;
	return 0;
}

/* The sandbox's own filesystems: what they hold is the sandbox's. */
static const char *const own[] = { "/tmp", "/dev/shm", "/dev", "/proc" };

static int
visible(const struct runner_fs_view *v, const char *path)
{
	return path_is_beneath(path, v->workspace) ||
	    beneath_any(path, v->ro, v->nro) ||
	    beneath_any(path, v->rw, v->nrw) ||
	    beneath_any(path, own, sizeof(own) / sizeof(own[0]));
}

static int
protected_path(const struct runner_fs_view *v, const char *path)
{
	char abs[RUNNER_MAX_DENIAL_PATH];
	size_t i;
	int n;

	for (i = 0; i < v->nprotected; i++) {
		n = snprintf(
		    abs, sizeof(abs), "%s/%s", v->workspace, v->protected[i]);
		if (n > 0 && (size_t)n < sizeof(abs) &&
		    path_is_beneath(path, abs))
			return 1;
	}
	return 0;
}

static int
writable(const struct runner_fs_view *v, const char *path)
{
	if (path_is_beneath(path, v->workspace))
		return !v->workspace_ro && !protected_path(v, path);
	return beneath_any(path, v->rw, v->nrw) ||
	    path_is_beneath(path, "/tmp") || path_is_beneath(path, "/dev/shm");
}

/* The path or, for a file to be made, its directory exists on the host. */
static int
host_exists(const struct runner_fs_view *v, const char *path, int parent)
{
	char dir[RUNNER_MAX_DENIAL_PATH];
	char *slash;

	if (v->exists(path, v->exists_arg))
		return 1;
	if (!parent)
		return 0;
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
		return 0;
	*slash = '\0';
	return v->exists(dir, v->exists_arg);
}

static size_t
check_path(const struct runner_fs_view *v, const char *cwd, const char *cand,
    enum kind kind, int wr, struct runner_denial *list, size_t *n)
{
	char path[RUNNER_MAX_DENIAL_PATH];

	if (*cand == '\0' || *cand == '~' || *cand == '-' ||
	    runner_fs_normalize(cwd, cand, path, sizeof(path)) != 0)
		return 0;
	if (beneath_any(path, v->deny, v->ndeny))
		return runner_denial_add_fs(
			   list, n, "mount", path, wr ? "write" : "read") == 1;
	if (!visible(v, path)) {
		if (!host_exists(v, path, wr))
			return 0; /* missing anywhere: not a denial */
		return runner_denial_add_fs(
			   list, n, "mount", path, wr ? "write" : "read") == 1;
	}
	if (!wr || writable(v, path) || kind == K_ENOENT)
		return 0;
	return runner_denial_add_fs(list, n,
		   kind == K_EROFS ? "mount" : "landlock", path, "write") == 1;
}

/* Strips what commonly follows a path in a message. */
static void
trim(char *s)
{
	size_t len = strlen(s);

	while (len > 0 && strchr(":,;.)'\"`", s[len - 1]) != NULL)
		s[--len] = '\0';
}

static size_t
scan_line(const struct runner_fs_view *v, const char *cwd, char *line,
    struct runner_denial *list, size_t *n)
{
	static const struct {
		const char *open, *close;
	} quotes[] = {
		{ "'", "'" }, { "\"", "\"" }, { "`", "'" },
		{ "\xe2\x80\x98", "\xe2\x80\x99" }, /* U+2018 U+2019 */
	};
	char cand[RUNNER_MAX_DENIAL_PATH];
	const char *s, *e, *q;
	enum kind kind;
	size_t added = 0, i, len, found = 0;
	int wr;

	if ((kind = line_kind(line)) == K_NONE)
		return 0;
	wr = kind == K_EROFS || says_write(line);
	/* Quoted: 'PATH', "PATH", `PATH', U+2018 PATH U+2019. */
	for (i = 0; i < sizeof(quotes) / sizeof(quotes[0]); i++)
		for (s = line; (q = strstr(s, quotes[i].open)) != NULL;) {
			q += strlen(quotes[i].open);
			if ((e = strstr(q, quotes[i].close)) == NULL)
				break;
			len = (size_t)(e - q);
			if (len > 0 && len < sizeof(cand) &&
			    memchr(q, '/', len) != NULL) {
				memcpy(cand, q, len);
				cand[len] = '\0';
				found++;
				added +=
				    check_path(v, cwd, cand, kind, wr, list, n);
			}
			s = e + strlen(quotes[i].close);
		}
	/*
	 * Else "PROG: PATH: message" fields; else bare absolute words.  A
	 * quoted path may hold spaces or ": ", so a line with quotes is
	 * not also cut into words (a word could be a parent of the path).
	 */
	for (s = line; found == 0 && *s != '\0'; s = e) {
		if ((e = strstr(s, ": ")) == NULL)
			e = s + strlen(s);
		len = (size_t)(e - s);
		if (len > 0 && len < sizeof(cand) &&
		    (*s == '/' || strncmp(s, "./", 2) == 0 ||
			strncmp(s, "../", 3) == 0)) {
			memcpy(cand, s, len);
			cand[len] = '\0';
			found++;
			added += check_path(v, cwd, cand, kind, wr, list, n);
		}
		if (*e != '\0')
			e += 2;
	}
	for (s = line; found == 0 && *s != '\0'; s = e) {
		while (*s == ' ')
			s++;
		e = s + strcspn(s, " ");
		len = (size_t)(e - s);
		if (len > 1 && len < sizeof(cand) && *s == '/') {
			memcpy(cand, s, len);
			cand[len] = '\0';
			trim(cand);
			added += check_path(v, cwd, cand, kind, wr, list, n);
		}
	}
	return added;
}

size_t
runner_fs_denials(const struct runner_fs_view *v, const char *cwd,
    const char *err, size_t errlen, struct runner_denial *list, size_t *n)
{
	char line[LINE_MAX_SCAN];
	const char *s = err, *end = err + errlen, *nl;
	size_t added = 0, len, lines = 0;

	while (s < end && lines++ < LINES_MAX_SCAN && *n < RUNNER_DENIALS_MAX) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		len = (size_t)(nl - s);
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, s, len);
		line[len] = '\0';
		if (strlen(line) == len) /* no NUL inside */
			added += scan_line(v, cwd, line, list, n);
		s = nl + 1;
	}
	return added;
}
