/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* githooks: a repository's configured hooks directories (githooks.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "policy/githooks.h"

#define CONFIG_MAX (1 << 20) /* bytes read of one config file */
#define INCLUDE_DEPTH 10

/* The names git runs as hooks (githooks(5)). */
static const char *const hook_names[] = { "applypatch-msg", "pre-applypatch",
	"post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase",
	"post-checkout", "post-merge", "pre-push", "pre-receive", "update",
	"proc-receive", "post-receive", "post-update", "reference-transaction",
	"push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
	"fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist",
	"p4-post-changelist", "p4-pre-submit", "post-index-change", NULL };

struct find {
	struct git_hooks *h;
	char ws[PATH_MAX]; /* the workspace, resolved */
	char top[PATH_MAX]; /* the working tree's top ("": none found) */
	const char *home; /* NULL: unset */
	char *err;
	size_t errlen;
};

/*
 * |path| made absolute (relative to |base|) and read lexically: no "."
 * or ".." components, no repeated or trailing '/'.  0, or -1 if it
 * does not fit.
 */
static int
normalize(const char *base, const char *path, char *out, size_t outlen)
{
	char buf[2 * PATH_MAX + 2], *c, *save = NULL;
	size_t len = 0;

	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s",
		path[0] == '/' ? "" : base, path) >= sizeof(buf))
		return -1;
	out[0] = '\0';
	for (c = strtok_r(buf, "/", &save); c != NULL;
	     c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = '\0';
			continue;
		}
		if (len + 1 + strlen(c) + 1 > outlen)
			return -1;
		out[len++] = '/';
		memcpy(out + len, c, strlen(c) + 1);
		len += strlen(c);
	}
	if (len == 0)
		snprintf(out, outlen, "/");
	return 0;
}

/* Keeps absolute |dir| if it is the workspace or beneath it. */
static int
keep(struct find *f, const char *dir)
{
	size_t wl = strlen(f->ws);
	const char *rel;
	size_t i;

	if (strcmp(f->ws, "/") == 0)
		rel = dir + 1;
	else if (strncmp(dir, f->ws, wl) == 0 &&
	    (dir[wl] == '\0' || dir[wl] == '/'))
		rel = dir[wl] == '/' ? dir + wl + 1 : "";
	else
		return 0;
	for (i = 0; i < f->h->n; i++)
		if (strcmp(f->h->dir[i], rel) == 0)
			return 0;
	if (f->h->n == GIT_HOOKS_MAX) {
		snprintf(f->err, f->errlen,
		    "more than %d hooks directories "
		    "in git's config",
		    GIT_HOOKS_MAX);
		return -1;
	}
	f->h->dir[f->h->n++] = xstrdup(rel);
	return 0;
}

/* A core.hooksPath |value|: where git would look, kept if inside. */
static int
hooks_value(struct find *f, const char *value)
{
	char path[PATH_MAX], *slash;
	const char *base = f->top;
	int rc;

	if (value[0] == '\0')
		return 0;
	if (strncmp(value, "~/", 2) == 0) {
		if (f->home == NULL)
			return 0;
		base = f->home;
		value += 2;
	} else if (value[0] != '/' && base[0] == '\0')
		return 0; /* relative, and no working tree */
	if (normalize(base, value, path, sizeof(path)) != 0)
		return 0;
	if ((rc = keep(f, path)) != 0)
		return rc;
	/* Husky's ".husky/_" runs the scripts of ".husky". */
	slash = strrchr(path, '/');
	if (slash != NULL && strcmp(slash + 1, "_") == 0 && slash > path) {
		*slash = '\0';
		return keep(f, path);
	}
	return 0;
}

/*
 * A config value: leading blanks dropped, double quotes removed,
 * backslash escapes read, a '#' or ';' outside quotes ends it, trailing
 * blanks dropped.  In place.
 */
static char *
config_value(char *s)
{
	char *out, *v;
	int quoted = 0;
	size_t keep_len = 0, len = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	v = out = s;
	for (; *s != '\0'; s++) {
		if (*s == '"') {
			quoted = !quoted;
			keep_len = len;
			continue;
		}
		if (!quoted && (*s == '#' || *s == ';'))
			break;
		if (*s == '\\' && s[1] != '\0') {
			s++;
			out[len++] = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
			keep_len = len;
			continue;
		}
		out[len++] = *s;
		if (quoted || (*s != ' ' && *s != '\t'))
			keep_len = len;
	}
	out[keep_len] = '\0';
	return v;
}

static int read_config(struct find *, const char *, int);

/*
 * An include's |value|, relative to the directory of |from|.  A file it
 * names inside the workspace is git's config as much as .git/config is
 * (core.fsmonitor, an alias, core.hooksPath itself): kept, as a hooks
 * directory is.
 */
static int
include(struct find *f, const char *from, const char *value, int depth)
{
	char dir[PATH_MAX], path[PATH_MAX], *slash;
	int rc;

	if (strncmp(value, "~/", 2) == 0) {
		if (f->home == NULL)
			return 0;
		if (normalize(f->home, value + 2, path, sizeof(path)) != 0)
			return 0;
	} else {
		snprintf(dir, sizeof(dir), "%s", from);
		if ((slash = strrchr(dir, '/')) != NULL)
			*slash = '\0';
		if (normalize(dir, value, path, sizeof(path)) != 0)
			return 0;
	}
	if ((rc = keep(f, path)) != 0)
		return rc;
	return read_config(f, path, depth + 1);
}

/*
 * One config file: core.hooksPath and include paths ([include] and
 * [includeIf "..."], whatever the condition).  A file that does not
 * exist is no error; one that cannot be read is.
 */
static int
read_config(struct find *f, const char *path, int depth)
{
	char *buf, *line, *next, *p, *key, *end;
	char sect[32] = "";
	ssize_t n;
	size_t len = 0, i;
	int fd, rc = 0;

	if (depth > INCLUDE_DEPTH) {
		snprintf(f->err, f->errlen,
		    "git's config includes nest more "
		    "than %d files deep (%s)",
		    INCLUDE_DEPTH, path);
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(f->err, f->errlen, "cannot read git's config %s: %s",
		    path, strerror(errno));
		return -1;
	}
	buf = xcalloc(1, CONFIG_MAX + 1);
	while (len < CONFIG_MAX &&
	    (n = read(fd, buf + len, CONFIG_MAX - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(f->err, f->errlen,
			    "cannot read git's config "
			    "%s: %s",
			    path, strerror(errno));
			close(fd);
			free(buf);
			return -1;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	for (line = buf; rc == 0 && line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[') {
			/* The section's name, to a blank, a quote, a dot or
			 * the bracket; a key may follow on the line. */
			for (p++, i = 0; *p != '\0' && *p != ']' && *p != ' ' &&
			     *p != '"' && *p != '.' && i < sizeof(sect) - 1;
			     p++)
				sect[i++] = *p;
			sect[i] = '\0';
			if ((p = strchr(p, ']')) == NULL)
				continue;
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
		}
		if (*p == '\0' || *p == '#' || *p == ';')
			continue;
		key = p;
		while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-')
			p++;
		end = p;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '=')
			continue;
		*end = '\0';
		p = config_value(p + 1);
		if (strcasecmp(sect, "core") == 0 &&
		    strcasecmp(key, "hooksPath") == 0)
			rc = hooks_value(f, p);
		else if ((strcasecmp(sect, "include") == 0 ||
			     strcasecmp(sect, "includeIf") == 0) &&
		    strcasecmp(key, "path") == 0)
			rc = include(f, path, p, depth);
	}
	free(buf);
	return rc;
}

/*
 * The repository that holds the workspace: the nearest .git at or above
 * it, a directory or a "gitdir:" file.  Fills f->top and |gitdir|; 0 if
 * none (nothing of a repository's own config to read).
 */
static int
find_repository(struct find *f, char *gitdir, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], text[PATH_MAX + 16], *nl;
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(dir, sizeof(dir), "%s", f->ws);
	for (;;) {
		snprintf(path, sizeof(path), "%s/.git",
		    strcmp(dir, "/") == 0 ? "" : dir);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (strlen(path) >= len)
				return 0;
			memcpy(gitdir, path, strlen(path) + 1);
			break;
		}
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
				return 0;
			n = read(fd, text, sizeof(text) - 1);
			close(fd);
			text[n > 0 ? n : 0] = '\0';
			if ((nl = strchr(text, '\n')) != NULL)
				*nl = '\0';
			if (strncmp(text, "gitdir:", 7) != 0 ||
			    normalize(
				dir, config_value(text + 7), gitdir, len) != 0)
				return 0;
			break;
		}
		if (strcmp(dir, "/") == 0)
			return 0;
		if ((nl = strrchr(dir, '/')) == dir)
			dir[1] = '\0';
		else
			*nl = '\0';
	}
	snprintf(f->top, sizeof(f->top), "%s", dir);
	return 1;
}

int
git_hooks_find(int rootfd, struct git_hooks *h, char *err, size_t errlen)
{
	struct find f;
	char link[64], gitdir[PATH_MAX], path[PATH_MAX + 32], common[PATH_MAX],
	    text[PATH_MAX], *nl, *xdg;
	ssize_t n;
	int fd, rc = 0;

	memset(h, 0, sizeof(*h));
	memset(&f, 0, sizeof(f));
	f.h = h;
	f.err = err;
	f.errlen = errlen;
	f.home = getenv("HOME");
	if (f.home != NULL && f.home[0] != '/')
		f.home = NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", rootfd);
	if ((n = readlink(link, f.ws, sizeof(f.ws) - 1)) <= 0 ||
	    f.ws[0] != '/') {
		snprintf(err, errlen, "cannot tell where the workspace is: %s",
		    n == -1 ? strerror(errno) : "not a path");
		return -1;
	}
	f.ws[n] = '\0';
	if (find_repository(&f, gitdir, sizeof(gitdir)) == 0)
		f.top[0] = '\0';
	rc = read_config(&f, "/etc/gitconfig", 0);
	if (rc == 0 && (xdg = getenv("XDG_CONFIG_HOME")) != NULL &&
	    xdg[0] == '/') {
		snprintf(path, sizeof(path), "%s/git/config", xdg);
		rc = read_config(&f, path, 0);
	} else if (rc == 0 && f.home != NULL) {
		snprintf(path, sizeof(path), "%s/.config/git/config", f.home);
		rc = read_config(&f, path, 0);
	}
	if (rc == 0 && f.home != NULL) {
		snprintf(path, sizeof(path), "%s/.gitconfig", f.home);
		rc = read_config(&f, path, 0);
	}
	if (rc == 0 && f.top[0] != '\0') {
		/* A linked worktree's config is its common directory's. */
		snprintf(path, sizeof(path), "%s/commondir", gitdir);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
			n = read(fd, text, sizeof(text) - 1);
			close(fd);
			text[n > 0 ? n : 0] = '\0';
			if ((nl = strchr(text, '\n')) != NULL)
				*nl = '\0';
			if (text[0] != '\0' &&
			    normalize(gitdir, text, common, sizeof(common)) ==
				0) {
				snprintf(
				    path, sizeof(path), "%s/config", common);
				rc = read_config(&f, path, 0);
			}
		}
		if (rc == 0) {
			snprintf(path, sizeof(path), "%s/config", gitdir);
			rc = read_config(&f, path, 0);
		}
		if (rc == 0) {
			snprintf(
			    path, sizeof(path), "%s/config.worktree", gitdir);
			rc = read_config(&f, path, 0);
		}
	}
	if (rc != 0)
		git_hooks_free(h);
	return rc;
}

int
git_hooks_cover(const struct git_hooks *h, const char *path)
{
	size_t i, k, len;

	for (i = 0; i < h->n; i++) {
		len = strlen(h->dir[i]);
		if (len == 0) {
			if (strchr(path, '/') != NULL)
				continue;
			for (k = 0; hook_names[k] != NULL; k++)
				if (strcmp(path, hook_names[k]) == 0)
					return 1;
			continue;
		}
		if (strncmp(path, h->dir[i], len) == 0 &&
		    (path[len] == '\0' || path[len] == '/'))
			return 1;
	}
	return 0;
}

void
git_hooks_free(struct git_hooks *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->dir[i]);
	h->n = 0;
}
