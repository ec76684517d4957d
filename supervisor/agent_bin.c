/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * agent_bin: the host paths the agent command needs (see agent_bin.h).
 *
 * Paths are resolved directory by directory but the last component is
 * kept as found: a symlink such as /usr/bin/claude must exist inside by
 * that name, pointing where it points outside, for the program to find
 * its own files relative to it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/util.h"
#include "supervisor/agent_bin.h"

#define SHEBANG_MAX 256

/* Adds |path| once, with the reason "|what| |of|". */
static void
add_bind(
    struct agent_bin *ab, const char *path, const char *what, const char *of)
{
	size_t i;

	for (i = 0; i < ab->nbinds; i++)
		if (strcmp(ab->binds[i].path, path) == 0)
			return;
	if (ab->nbinds == AGENT_BIN_MAX_BINDS)
		return;
	ab->binds[ab->nbinds].path = xstrdup(path);
	xasprintf(&ab->binds[ab->nbinds].why, "%s %s", what, of);
	ab->nbinds++;
}

/* An executable regular file (following symlinks)? */
static int
is_exec(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

/*
 * Finds |cmd| as execvp would: itself if it holds a '/', else the first
 * executable DIR/cmd of |path_env|.  Writes it to out[PATH_MAX]; 0 or -1.
 */
static int
lookup(const char *cmd, const char *path_env, char *out)
{
	const char *s, *e;
	size_t len;

	if (*cmd == '\0')
		return -1;
	if (strchr(cmd, '/') != NULL) {
		if (snprintf(out, PATH_MAX, "%s", cmd) >= PATH_MAX)
			return -1;
		return is_exec(out) ? 0 : -1;
	}
	if (path_env == NULL)
		path_env = "/usr/local/bin:/usr/bin:/bin";
	for (s = path_env;; s = e + 1) {
		if ((e = strchr(s, ':')) == NULL)
			e = s + strlen(s);
		len = e - s;
		/* An empty entry is the current directory; not for the agent. */
		if (len > 0 &&
		    snprintf(out, PATH_MAX, "%.*s/%s", (int)len, s, cmd) <
			PATH_MAX &&
		    is_exec(out))
			return 0;
		if (*e == '\0')
			return -1;
	}
}

/*
 * |path| with its directory resolved and its last component kept
 * ("./bin/claude" -> "/usr/bin/claude", even if that is a symlink).
 * Writes out[PATH_MAX]; 0 or -1.
 */
static int
resolve_dir(const char *path, char *out)
{
	char dir[PATH_MAX], rdir[PATH_MAX];
	const char *base;
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -1;
	if ((slash = strrchr(dir, '/')) == NULL) {
		base = path;
		snprintf(dir, sizeof(dir), ".");
	} else {
		base = path + (slash - dir) + 1;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -1;
	if (realpath(dir, rdir) == NULL)
		return -1;
	if (snprintf(out, PATH_MAX, "%s%s%s", rdir,
		strcmp(rdir, "/") == 0 ? "" : "/", base) >= PATH_MAX)
		return -1;
	return 0;
}

/* Cuts the last component off |path| in place; 0, or -1 at "/". */
static int
up(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash == NULL || strcmp(path, "/") == 0)
		return -1;
	if (slash == path)
		slash[1] = '\0';
	else
		*slash = '\0';
	return 0;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/*
 * The outermost node_modules directory above |real| when |real| lies in
 * a package (a package.json between the two), into out[PATH_MAX]; 0 or -1.
 */
static int
npm_tree(const char *real, char *out)
{
	char dir[PATH_MAX], pj[PATH_MAX + 16];
	int in_package = 0, found = 0;

	snprintf(dir, sizeof(dir), "%s", real);
	while (up(dir) == 0 && strcmp(dir, "/") != 0) {
		if (strcmp(base_name(dir), "node_modules") == 0) {
			if (!in_package)
				break;
			snprintf(out, PATH_MAX, "%s", dir);
			found = 1;
			continue;
		}
		snprintf(pj, sizeof(pj), "%s/package.json", dir);
		if (!found && access(pj, F_OK) == 0)
			in_package = 1;
	}
	return found ? 0 : -1;
}

/*
 * The interpreter named by the "#!" line of |real|, as found (directory
 * resolved) into out[PATH_MAX].  Returns 1 with it, 0 when |real| is not
 * a script, or -1 when the interpreter cannot be found (err says why).
 */
static int
shebang(
    const char *real, const char *path_env, char *out, char *err, size_t errlen)
{
	char line[SHEBANG_MAX + 1], found[PATH_MAX], *tok, *save = NULL;
	const char *want;
	ssize_t n;
	int fd;

	if ((fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return 0;
	n = read(fd, line, SHEBANG_MAX);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if ((tok = strtok_r(line + 2, " \t", &save)) == NULL)
		return 0;
	want = tok;
	if (strcmp(base_name(tok), "env") == 0) {
		/* "env [-S] [NAME=VALUE]... PROGRAM [ARGS]" */
		while ((tok = strtok_r(NULL, " \t", &save)) != NULL &&
		    (tok[0] == '-' || strchr(tok, '=') != NULL))
			;
		if (tok == NULL)
			return 0;
		want = tok;
	}
	if (lookup(want, path_env, found) != 0 ||
	    resolve_dir(found, out) != 0) {
		snprintf(err, errlen, "%s: interpreter %s not found%s", real,
		    want, strchr(want, '/') == NULL ? " in PATH" : "");
		return -1;
	}
	return 1;
}

int
agent_bin_resolve(const char *cmd, const char *path_env, struct agent_bin **out,
    char *err, size_t errlen)
{
	struct agent_bin *ab;
	char found[PATH_MAX], path[PATH_MAX], real[PATH_MAX];
	char interp[PATH_MAX], ireal[PATH_MAX], tree[PATH_MAX];
	char venv[PATH_MAX + 16];
	struct stat st;
	int rc;

	*out = NULL;
	if (lookup(cmd, path_env, found) != 0) {
		snprintf(err, errlen, "%s: not found or not executable", cmd);
		return AL_ERR_NOT_FOUND;
	}
	if (resolve_dir(found, path) != 0 || realpath(path, real) == NULL) {
		snprintf(err, errlen, "%s: cannot resolve: %s", found,
		    strerror(errno));
		return AL_ERR_PATH;
	}
	ab = xcalloc(1, sizeof(*ab));
	ab->path = xstrdup(path);
	ab->dir = xstrdup(path);
	(void)up(ab->dir);
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		add_bind(ab, path, "symlink to", real);
	if (npm_tree(real, tree) == 0)
		add_bind(ab, tree, "npm package of", path);
	add_bind(ab, real, "the program run as", path);
	if ((rc = shebang(real, path_env, interp, err, errlen)) < 0) {
		agent_bin_free(ab);
		return AL_ERR_NOT_FOUND;
	}
	if (rc == 1 && realpath(interp, ireal) != NULL) {
		if (strcmp(interp, ireal) != 0)
			add_bind(ab, interp, "interpreter of", path);
		add_bind(ab, ireal, "interpreter of", path);
		/* VENV/bin/python with VENV/pyvenv.cfg */
		snprintf(venv, sizeof(venv), "%s", interp);
		if (up(venv) == 0 && up(venv) == 0) {
			size_t len = strlen(venv);

			snprintf(venv + len, sizeof(venv) - len, "/pyvenv.cfg");
			if (access(venv, F_OK) == 0) {
				venv[len] = '\0';
				add_bind(ab, venv, "Python venv of", path);
			}
		}
		if (npm_tree(ireal, tree) == 0)
			add_bind(ab, tree, "npm package of", interp);
	}
	*out = ab;
	return 0;
}

void
agent_bin_free(struct agent_bin *ab)
{
	size_t i;

	if (ab == NULL)
		return;
	for (i = 0; i < ab->nbinds; i++) {
		free(ab->binds[i].path);
		free(ab->binds[i].why);
	}
	free(ab->path);
	free(ab->dir);
	free(ab);
}
