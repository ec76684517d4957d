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
#include <limits.h>
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

/*
 * |s| as JSON can hold it: |tag| and the hex of its bytes when it is not
 * UTF-8 (one to one, and never a workspace-relative path nor another
 * value of a set: a tag begins with '/' or "symlink-bytes:"), else NULL
 * (|s| itself will do).  Caller frees.
 */
static char *
not_utf8(const char *s, const char *tag)
{
	size_t len = strlen(s), tl = strlen(tag), i;
	char *out;

	if (utf8_valid(s, len))
		return NULL;
	out = xcalloc(1, tl + 2 * len + 1);
	memcpy(out, tag, tl + 1); /* its NUL, written over below */
	for (i = 0; i < len; i++)
		snprintf(out + tl + 2 * i, 3, "%02x", (unsigned char)s[i]);
	return out;
}

static int
add(struct collect *k, const char *path, const char *digest)
{
	/*
	 * A name, or a link's text, that is not UTF-8 (a link a run's
	 * change set landed, a file of the checkout or of a view the agent
	 * writes) cannot be a JSON key or string: json_object_set_new()
	 * failed and fatalx() stopped the broker when the check ran, and
	 * every later session on the workspace as it started.
	 */
	const char *text = strncmp(digest, "symlink:", 8) == 0
	    ? strchr(digest, ':') + 1
	    : NULL;
	char *key = not_utf8(path, "/not-utf-8/");
	char *val = text != NULL ? not_utf8(text, "symlink-bytes:") : NULL;
	int rc = 0;

	if (key != NULL)
		path = key;
	if (val != NULL)
		digest = val;
	if (json_object_get(k->set, path) == NULL &&
	    json_object_size(k->set) >= PINS_ENTRIES_MAX) {
		snprintf(k->err, k->errlen, "more than %d pinned files",
		    PINS_ENTRIES_MAX);
		rc = AL_ERR_LIMIT;
	} else if (json_object_set_new(k->set, path, json_string(digest)) != 0)
		fatalx("json_object_set_new");
	free(key);
	free(val);
	return rc;
}

/* Hashes the regular file open on |fd| as |path| into the set. */
static int
add_file(struct collect *k, int fd, const char *path, const struct stat *st)
{
	char hex[SHA256_HEX_LEN + 1], *data;
	size_t len;

	if (st->st_nlink > 1)
		return add(k, path, PINS_REFUSED "hard link");
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
 * The path beneath the workspace of what |fd| is open on, symlinks
 * resolved, into |real| ("." for the root).  Returns 0, or -1 when the
 * kernel cannot tell (no /proc) or it is not beneath the workspace.
 */
static int
real_rel(struct collect *k, int fd, char *real, size_t len)
{
	char link[64], root[PATH_MAX + 1], path[PATH_MAX + 1];
	ssize_t n, r;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", k->rootfd);
	if ((r = readlink(link, root, sizeof(root) - 1)) <= 0)
		return -1;
	root[r] = '\0';
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) <= 0)
		return -1;
	path[n] = '\0';
	if (strcmp(root, "/") == 0)
		r = 0;
	if (strncmp(path, root, r) != 0)
		return -1;
	if (path[r] == '\0')
		return snprintf(real, len, ".") >= (int)len ? -1 : 0;
	if (path[r] != '/' || path[r + 1] == '\0')
		return -1;
	return snprintf(real, len, "%s", path + r + 1) >= (int)len ? -1 : 0;
}

/*
 * One path: a file named by argv (|optional|: only if it is one) or by a
 * pin list (recorded whatever it is, absent included).  With |real| not
 * NULL and the path an argv file or directory, sets *real to its path
 * with symlinks resolved, or to "/" when that cannot be told (else
 * leaves it as it was).
 */
static int
add_path(struct collect *k, const char *rel, int optional, char *real,
    size_t reallen)
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
	if (real != NULL && optional &&
	    (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) &&
	    real_rel(k, fd, real, reallen) != 0)
		snprintf(real, reallen, "/");
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

/* |name| up to its first dot is a Python identifier (any byte >= 0x80
 * may be part of one). */
static int
py_stem(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;

	if (*p == '.' || *p == '\0' || (*p >= '0' && *p <= '9'))
		return 0;
	for (; *p != '\0' && *p != '.'; p++)
		if (!(*p == '_' || *p >= 0x80 || (*p >= 'a' && *p <= 'z') ||
			(*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

/* What Python's path finder imports a module from: N.py, N.pyc, N.so
 * and N.TAG.so, N an identifier. */
static int
py_module_file(const char *name)
{
	size_t n = strlen(name);

	if (!py_stem(name))
		return 0;
	return (n > 3 && strcmp(name + n - 3, ".py") == 0) ||
	    (n > 4 && strcmp(name + n - 4, ".pyc") == 0) ||
	    (n > 3 && strcmp(name + n - 3, ".so") == 0);
}

/*
 * What Python imports from the directory |dir| ("." for the root) ahead
 * of its standard library and installed packages, when |dir| is
 * sys.path[0]: every module file directly in it, and the __init__ of
 * every package directly in it.  A name created later is a new entry of
 * the set, so a tools/json.py the agent writes is a change.  __pycache__
 * is not pinned: runs write it, and the runner's environment points
 * PYTHONPYCACHEPREFIX away from the workspace, so none is read.
 */
static int
add_py_dir(struct collect *k, const char *dir)
{
	char path[PATH_REL_MAX + 1], sub[PATH_REL_MAX + 1];
	const char *pre = strcmp(dir, ".") == 0 ? "" : dir;
	const char *sep = pre[0] != '\0' ? "/" : "";
	struct dirent *de, *de2;
	DIR *d, *d2;
	int fd, fd2, rc = 0;

	if (path_resolve(
		k->rootfd, dir, O_RDONLY | O_DIRECTORY, &fd, NULL, 0) != 0)
		return add(k, dir, "refused:not a directory");
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		snprintf(k->err, k->errlen, "%s: %s", dir, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", pre, sep,
			de->d_name) >= sizeof(path))
			continue;
		if (py_module_file(de->d_name)) {
			rc = add_path(k, path, 0, NULL, 0);
			continue;
		}
		if (strchr(de->d_name, '.') != NULL || !py_stem(de->d_name) ||
		    strcmp(de->d_name, "__pycache__") == 0)
			continue;
		/* A package: its __init__ runs on import. */
		if (path_resolve(k->rootfd, path, O_RDONLY | O_DIRECTORY, &fd2,
			NULL, 0) != 0)
			continue; /* not a directory beneath the workspace */
		if ((d2 = fdopendir(fd2)) == NULL) {
			close(fd2);
			rc = add(k, path, "refused:unreadable directory");
			continue;
		}
		while (rc == 0 && (de2 = readdir(d2)) != NULL)
			if (strncmp(de2->d_name, "__init__.", 9) == 0 &&
			    py_module_file(de2->d_name) &&
			    (size_t)snprintf(sub, sizeof(sub), "%s/%s", path,
				de2->d_name) < sizeof(sub))
				rc = add_path(k, sub, 0, NULL, 0);
		closedir(d2);
	}
	closedir(d);
	return rc;
}

/*
 * The node_modules directories node looks a bare require() up in from
 * the directory |dir|: dir/node_modules, then each parent's, up to the
 * workspace root's; each pinned whole, or recorded absent.
 */
static int
add_node_dirs(struct collect *k, const char *dir)
{
	char d[PATH_REL_MAX + 1], path[PATH_REL_MAX + 32], *slash;
	int rc = 0;

	snprintf(d, sizeof(d), "%s", strcmp(dir, ".") == 0 ? "" : dir);
	for (;;) {
		snprintf(path, sizeof(path), "%s%snode_modules", d,
		    d[0] != '\0' ? "/" : "");
		if (json_object_get(k->set, path) == NULL &&
		    (rc = add_path(k, path, 0, NULL, 0)) != 0) {
			if (rc == AL_ERR_LIMIT) {
				char why[256];

				snprintf(why, sizeof(why), "%s", k->err);
				snprintf(k->err, k->errlen,
				    "%s is on node's module lookup path, so "
				    "it is pinned whole: %s; pin a smaller "
				    "tree or run the tool from elsewhere",
				    path, why);
			}
			return rc;
		}
		if (d[0] == '\0')
			return 0;
		if ((slash = strrchr(d, '/')) != NULL)
			*slash = '\0';
		else
			d[0] = '\0';
	}
}

static const char *
base_name(const char *prog)
{
	const char *p = strrchr(prog, '/');

	return p != NULL ? p + 1 : prog;
}

/* python, python3, python3.12, python2.7 */
static int
is_python(const char *prog)
{
	const char *p = base_name(prog);

	if (strncmp(p, "python", 6) != 0)
		return 0;
	for (p += 6; *p != '\0'; p++)
		if (!(*p == '.' || (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

static int
is_node(const char *prog)
{
	const char *p = base_name(prog);

	return strcmp(p, "node") == 0 || strcmp(p, "nodejs") == 0;
}

static int
is_make(const char *prog)
{
	const char *p = base_name(prog);

	return strcmp(p, "make") == 0 || strcmp(p, "gmake") == 0;
}

/*
 * Where in |argv| the program it runs is: 0, or after "env" and its
 * assignments (NAME=VALUE) and options (-i, -0, -u NAME, --unset=NAME,
 * ...).  "env PYTHONUNBUFFERED=1 python3 tools/deploy.py" was taken
 * for a program named PYTHONUNBUFFERED=1, not python, and the script's
 * directory went unpinned.  Returns -1 when that cannot be told (an
 * option this does not know, such as -S, which splits a string into
 * the program and its arguments, or -C, which moves the working
 * directory the module search starts from).
 */
static int
prog_index(char *const *argv)
{
	static const char *const flags[] = { "-", "-i", "-0", "-v",
		"--ignore-environment", "--null", "--debug", NULL };
	const char *a;
	size_t i, j;

	if (argv == NULL || argv[0] == NULL ||
	    strcmp(base_name(argv[0]), "env") != 0)
		return 0;
	for (i = 1; (a = argv[i]) != NULL; i++) {
		if (strcmp(a, "--") == 0)
			return argv[i + 1] != NULL ? (int)i + 1 : -1;
		if (a[0] != '-') {
			if (strchr(a, '=') == NULL)
				return i < INT_MAX ? (int)i : -1;
			continue; /* NAME=VALUE */
		}
		for (j = 0; flags[j] != NULL; j++)
			if (strcmp(a, flags[j]) == 0)
				break;
		if (flags[j] != NULL || strncmp(a, "--unset=", 8) == 0 ||
		    (strncmp(a, "-u", 2) == 0 && a[2] != '\0'))
			continue;
		if ((strcmp(a, "-u") == 0 || strcmp(a, "--unset") == 0) &&
		    argv[i + 1] != NULL) {
			i++;
			continue;
		}
		return -1;
	}
	return -1;
}

/*
 * The module search of an interpreter |argv| runs (python, node; after
 * "env" too), for its argument |real| (a workspace file or directory as
 * resolved, "/" when that could not be told) or, with |real| NULL, for
 * the working directory (the workspace root) that -c, -m, -e use.
 */
static int
add_interp(
    struct collect *k, char *const *argv, const char *a, const char *real)
{
	char dir[PATH_REL_MAX + 1], *slash;
	const char *prog;
	struct stat st;
	int fd, pi = prog_index(argv);

	if (pi < 0) {
		snprintf(k->err, k->errlen,
		    "cannot tell which program %s runs: give it no option but "
		    "-i, -0, -v or -u",
		    argv[0]);
		return AL_ERR_SYSTEM;
	}
	prog = argv[pi];
	if (!is_python(prog) && !is_node(prog))
		return 0;
	if (real != NULL && strcmp(real, "/") == 0) {
		snprintf(k->err, k->errlen,
		    "cannot tell where %s lies with its symlinks resolved "
		    "(is /proc mounted?)",
		    a);
		return AL_ERR_SYSTEM;
	}
	snprintf(dir, sizeof(dir), "%s", real != NULL ? real : ".");
	if (real != NULL) {
		/* A script: its directory.  Python runs a directory
		 * argument's __main__.py with the directory first. */
		if (path_resolve(k->rootfd, dir, O_RDONLY, &fd, NULL, 0) != 0)
			return 0;
		if (fstat(fd, &st) == -1)
			st.st_mode = 0;
		close(fd);
		if (!S_ISDIR(st.st_mode)) {
			if ((slash = strrchr(dir, '/')) != NULL)
				*slash = '\0';
			else
				snprintf(dir, sizeof(dir), ".");
		}
	}
	return is_python(prog) ? add_py_dir(k, dir) : add_node_dirs(k, dir);
}

/*
 * What a python option cluster |a| ("-bWignore", "-m", "-Bc") means for
 * the module search, read as python reads it: a letter that takes an
 * argument takes the rest of the cluster, or the next argv element when
 * the rest is empty (*rest is set to the rest).  -Wignore was read as
 * holding -e (code from the working directory, no script), and the
 * script that followed had its directory's modules left unpinned.
 */
enum py_opt { PYOPT_FLAGS, PYOPT_ARG, PYOPT_CODE, PYOPT_MODULE };

static enum py_opt
py_option(const char *a, const char **rest)
{
	const char *p;

	*rest = "";
	for (p = a + 1; *p != '\0'; p++) {
		*rest = p + 1;
		if (*p == 'c')
			return PYOPT_CODE;
		if (*p == 'm')
			return PYOPT_MODULE;
		if (*p == 'W' || *p == 'X')
			return PYOPT_ARG;
	}
	return PYOPT_FLAGS;
}

/*
 * The module "python -m |mod|" runs, found from the workspace root
 * (sys.path[0]; the root's own modules are add_py_dir(".")'s): for
 * a.b.c, every module file and package __init__ directly in a and in
 * a/b (a/b/c.py, a/b/c.so, a/b/c/__init__.py and the packages' own
 * __init__ files that run on import), and a/b/c/__main__.py, which runs
 * when c is a package; each recorded absent when missing, so a module
 * made later, shadowing an installed one, is a change.  No argv element
 * names these files: python3 -m tools.deploy ran the agent's rewrite of
 * tools/deploy.py with the tool's secret.  A name that is not a dotted
 * identifier is no module python imports from here, and pins nothing.
 */
static int
add_py_module(struct collect *k, const char *mod)
{
	char path[PATH_REL_MAX + 1];
	const char *seg, *dot;
	size_t len = 0, n;
	int rc = 0;

	if (mod[0] == '\0' ||
	    strlen(mod) > PATH_REL_MAX - sizeof("/__main__.py"))
		return 0;
	for (seg = mod; *seg != '\0'; seg = dot + 1) {
		dot = strchr(seg, '.');
		n = dot != NULL ? (size_t)(dot - seg) : strlen(seg);
		if (n == 0 || !py_stem(seg))
			return 0;
		if (dot == NULL)
			break;
		if (dot[1] == '\0')
			return 0;
	}
	for (seg = mod; rc == 0; seg = dot + 1) {
		dot = strchr(seg, '.');
		n = dot != NULL ? (size_t)(dot - seg) : strlen(seg);
		len += (size_t)snprintf(path + len, sizeof(path) - len,
		    "%s%.*s", len > 0 ? "/" : "", (int)n, seg);
		if (dot == NULL)
			break;
		rc = add_py_dir(k, path);
	}
	if (rc == 0) {
		snprintf(path + len, sizeof(path) - len, "/__main__.py");
		rc = add_path(k, path, 0, NULL, 0);
	}
	return rc;
}

int
pins_collect(int rootfd, const char *workspace, char *const *argv,
    char *const *pin, char *const *pin2, int interp, json_t **out, char *err,
    size_t errlen)
{
	static const char *const makefiles[] = { "GNUmakefile", "makefile",
		"Makefile", NULL };
	struct collect k;
	char real[PATH_REL_MAX + 1];
	const char *prog, *rest;
	size_t i, wl = strlen(workspace), opt_arg = 0;
	int rc = 0, script = !interp; /* no module search to pin */
	int pi;
	enum py_opt opt;

	*out = NULL;
	memset(&k, 0, sizeof(k));
	k.rootfd = rootfd;
	k.err = err;
	k.errlen = errlen;
	if ((k.set = json_object()) == NULL)
		fatalx("json_object");
	pi = interp ? prog_index(argv) : 0;
	prog = argv != NULL && argv[0] != NULL && pi >= 0 ? argv[pi] : "";
	for (i = 0; rc == 0 && argv != NULL && argv[i] != NULL; i++) {
		const char *a = argv[i];

		if (!script && pi < 0) {
			/* add_interp() says why. */
			rc = add_interp(&k, argv, a, NULL);
			break;
		}
		if (i <= (size_t)pi) {
			/* The program, env and its own arguments. */
		} else if (!script && is_python(prog) && a[0] == '-' &&
		    a[1] != '-' && a[1] != '\0') {
			opt = py_option(a, &rest);
			if (opt == PYOPT_ARG && rest[0] == '\0')
				opt_arg = i + 1; /* not the script */
			if (opt == PYOPT_CODE || opt == PYOPT_MODULE) {
				/* Code found from the working directory,
				 * and no script follows. */
				script = 1;
				rc = add_interp(&k, argv, a, NULL);
			}
			if (rc == 0 && opt == PYOPT_MODULE &&
			    (rest[0] != '\0' || argv[i + 1] != NULL))
				rc = add_py_module(
				    &k, rest[0] != '\0' ? rest : argv[i + 1]);
			if (rc != 0)
				break;
		} else if (!script && !is_python(prog) && a[0] == '-' &&
		    a[1] != '-' && strpbrk(a + 1, "cmep") != NULL) {
			/* -c, -m (python), -e, -p (node) before any
			 * script: code found from the working directory,
			 * and no script follows. */
			script = 1;
			if ((rc = add_interp(&k, argv, a, NULL)) != 0)
				break;
		}
		if (a[0] == '/') {
			if (wl < 2 || strncmp(a, workspace, wl) != 0 ||
			    a[wl] != '/')
				continue;
			a += wl + 1;
		}
		real[0] = '\0';
		rc = add_path(&k, a, 1, real, sizeof(real));
		/* The first file argument is the interpreter's script. */
		if (rc == 0 && i > (size_t)pi && !script && real[0] != '\0' &&
		    i != opt_arg) {
			script = 1;
			rc = add_interp(&k, argv, a, real);
		} else if (rc == 0 && interp && i > (size_t)pi &&
		    real[0] != '\0' && is_node(prog)) {
			/*
			 * Node: which file is the script is not told by
			 * its options (-r FILE, --import FILE, --loader
			 * FILE preload code before it), so every file
			 * argument's node_modules are pinned: node -r
			 * ./hook.js web/publish.js took the hook for the
			 * script, and web/node_modules went unpinned.
			 */
			rc = add_interp(&k, argv, a, real);
		}
	}
	if (rc == 0 && argv != NULL && argv[0] != NULL && is_make(argv[0]))
		for (i = 0; rc == 0 && makefiles[i] != NULL; i++)
			rc = add_path(&k, makefiles[i], 0, NULL, 0);
	for (i = 0; rc == 0 && pin != NULL && pin[i] != NULL; i++)
		rc = add_path(&k, pin[i], 0, NULL, 0);
	for (i = 0; rc == 0 && pin2 != NULL && pin2[i] != NULL; i++)
		rc = add_path(&k, pin2[i], 0, NULL, 0);
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

/*
 * Whether the digest |v| binds no content: a path refused ("refused:...":
 * a file with another name, a hard link, or a symlink that leads out of
 * the workspace) is never read, so what it holds could change, written
 * through the other name (a package store's, where the agent may write),
 * and the pin stay the same: a read-only agent rewrote a check's
 * hard-linked script to "exit 0" and the gate counted, pinned code
 * unchanged.  Such a pin is always changed.
 */
static int
unbound(const json_t *v)
{
	const char *s = json_string_value(v);

	return s != NULL && strncmp(s, PINS_REFUSED, strlen(PINS_REFUSED)) == 0;
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
		if (!json_equal(v, json_object_get(now, path)) ||
		    unbound(json_object_get(now, path)))
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
