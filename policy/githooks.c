/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* githooks: a repository's configured hooks directories (githooks.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "common/util.h"
#include "policy/githooks.h"
#include "policy/lefthook.h"

#define CONFIG_MAX (1 << 20) /* bytes read of one config file */
#define INCLUDE_DEPTH 10
#define LEFTHOOK_REFS_MAX 256 /* paths lefthook's configs may name */
#define LEFTHOOK_DEPTH 10 /* extends within extends */

/* The names git runs as hooks (githooks(5)). */
static const char *const hook_names[] = { "applypatch-msg", "pre-applypatch",
	"post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase",
	"post-checkout", "post-merge", "pre-push", "pre-receive", "update",
	"proc-receive", "post-receive", "post-update", "reference-transaction",
	"push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
	"fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist",
	"p4-post-changelist", "p4-pre-submit", "post-index-change", NULL };
_Static_assert(sizeof(hook_names) / sizeof(hook_names[0]) ==
	GIT_HOOK_NAMES + 1, "GIT_HOOK_NAMES");

struct find {
	struct git_hooks *h;
	char *scan[GIT_HOOKS_MAX + 1]; /* hooks directories, absolute */
	size_t nscan;
	char ws[PATH_MAX]; /* the workspace, resolved */
	char top[PATH_MAX]; /* the working tree's top ("": none found) */
	const char *home; /* NULL: unset */
	int lefthook; /* lefthook's configs read (once) */
	size_t nlefthook; /* paths they named */
	int lefthook_depth; /* extends being read within extends */
	char *err;
	size_t errlen;
};

static int read_text(struct find *, const char *, const char *, char **,
    size_t *);

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
keep_one(struct find *f, const char *dir)
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

/* keep_one() of absolute |path| as written and, where it exists, as it
 * resolves (a symlink in $HOME's path, a linked directory). */
static int
keep(struct find *f, const char *path)
{
	char real[PATH_MAX];
	int rc;

	if ((rc = keep_one(f, path)) != 0 || realpath(path, real) == NULL ||
	    strcmp(real, path) == 0)
		return rc;
	return keep_one(f, real);
}

/* Keeps absolute hooks directory |dir| for hook_managers(). */
static int
scan_later(struct find *f, const char *dir)
{
	size_t i;

	for (i = 0; i < f->nscan; i++)
		if (strcmp(f->scan[i], dir) == 0)
			return 0;
	if (f->nscan == GIT_HOOKS_MAX) {
		snprintf(f->err, f->errlen,
		    "more than %d hooks directories "
		    "in git's config",
		    GIT_HOOKS_MAX);
		return -1;
	}
	f->scan[f->nscan++] = xstrdup(dir);
	return 0;
}

/* |rel| (to the working tree's top) kept if inside the workspace. */
static int
keep_top(struct find *f, const char *rel)
{
	char path[PATH_MAX];

	if (f->top[0] == '\0' ||
	    normalize(f->top, rel, path, sizeof(path)) != 0)
		return 0;
	return keep(f, path);
}

/*
 * The files lefthook reads its commands from, at the working tree's top
 * (lefthook.dev/configuration): the main config and the -local one it
 * merges, each as lefthook.EXT, .lefthook.EXT or .config/lefthook.EXT
 * in any of its formats, and the directories of the scripts they run
 * (source_dir, source_dir_local: their defaults).
 */
static const char *const lefthook_bases[] = { "lefthook", ".lefthook",
	".config/lefthook", NULL };
static const char *const lefthook_exts[] = { "yml", "yaml", "toml",
	"json", "jsonc", NULL };
static const char *const lefthook_dirs[] = { ".lefthook", ".lefthook-local",
	NULL };

/* lint-staged's config files (a hook that runs it runs their commands),
 * at any depth (since lint-staged 12.2.1 each staged file takes the
 * nearest), as its lib/configFiles.js lists them; package.json (its
 * "lint-staged" key, GIT_HOOKS_KEY_LINTSTAGED) aside. */
const char *const git_hooks_lintstaged_files[] = { "package.yaml",
	"package.yml", ".lintstagedrc", ".lintstagedrc.json",
	".lintstagedrc.yaml", ".lintstagedrc.yml", ".lintstagedrc.mjs",
	".lintstagedrc.mts", ".lintstagedrc.js", ".lintstagedrc.ts",
	".lintstagedrc.cjs", ".lintstagedrc.cts", "lint-staged.config.mjs",
	"lint-staged.config.mts", "lint-staged.config.js",
	"lint-staged.config.ts", "lint-staged.config.cjs",
	"lint-staged.config.cts", NULL };

/* husky v4's (its hooks run the commands these name). */
static const char *const husky4_files[] = { ".huskyrc", ".huskyrc.json",
	".huskyrc.yaml", ".huskyrc.yml", ".huskyrc.js", ".huskyrc.cjs",
	"husky.config.js", "husky.config.cjs", NULL };

/*
 * What husky's own scripts source before a hook's, from the person's
 * home: husky 9's "h" (which each of its hooks in .husky/_ sources)
 * ${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh, husky 4 to 8
 * ~/.huskyrc.  Kept where they lie in the workspace (the workspace is
 * $HOME, or holds ~/.config): a file written there ran at the next
 * commit of every repository husky manages.
 */
static int
keep_husky_init(struct find *f)
{
	char path[PATH_MAX];
	const char *xdg = getenv("XDG_CONFIG_HOME");
	int rc = 0;

	if (xdg != NULL && xdg[0] == '/') {
		snprintf(path, sizeof(path), "%s/husky/init.sh", xdg);
		rc = keep(f, path);
	} else if (f->home != NULL) {
		snprintf(path, sizeof(path), "%s/.config/husky/init.sh",
		    f->home);
		rc = keep(f, path);
	}
	if (rc == 0 && f->home != NULL) {
		snprintf(path, sizeof(path), "%s/.huskyrc", f->home);
		rc = keep(f, path);
	}
	return rc;
}

/*
 * Where pre-commit keeps the hook repositories it cloned, whose code its
 * hooks run: $PRE_COMMIT_HOME, else ${XDG_CACHE_HOME:-~/.cache}/pre-commit.
 * Kept where it lies in the workspace (the workspace is $HOME).
 */
static int
keep_precommit_home(struct find *f)
{
	char path[PATH_MAX];
	const char *v;

	if ((v = getenv("PRE_COMMIT_HOME")) != NULL && v[0] == '/')
		snprintf(path, sizeof(path), "%s", v);
	else if ((v = getenv("XDG_CACHE_HOME")) != NULL && v[0] == '/')
		snprintf(path, sizeof(path), "%s/pre-commit", v);
	else if (f->home != NULL)
		snprintf(path, sizeof(path), "%s/.cache/pre-commit", f->home);
	else
		return 0;
	return keep(f, path);
}

/*
 * The working tree's top relative to the workspace: "" where the
 * workspace is the top or beneath it, NULL where the top is neither the
 * workspace, beneath it nor above it (or there is none).  Allocated.
 */
static char *
top_rel(const struct find *f)
{
	size_t wl = strlen(f->ws), tl = strlen(f->top);

	if (f->top[0] == '\0')
		return NULL;
	if (strcmp(f->top, "/") == 0 || (strncmp(f->ws, f->top, tl) == 0 &&
	    (f->ws[tl] == '\0' || f->ws[tl] == '/')))
		return xstrdup("");
	if (strcmp(f->ws, "/") == 0)
		return xstrdup(f->top + 1);
	if (strncmp(f->top, f->ws, wl) == 0 && f->top[wl] == '/')
		return xstrdup(f->top + wl + 1);
	return NULL;
}

/* A hook runs lint-staged: its config files count at any depth beneath
 * the top, and each package.json's "lint-staged" key. */
static void
watch_lintstaged(struct find *f)
{
	if (f->h->lintstaged == NULL)
		f->h->lintstaged = top_rel(f);
}

/* A hook is husky v4's: the top package.json's "husky" key counts. */
static void
watch_husky(struct find *f)
{
	char *rel;

	/* (The top's package.json lies in the workspace only when the top
	 * is the workspace or beneath it.) */
	if (f->h->husky_pkg != NULL || (rel = top_rel(f)) == NULL)
		return;
	if (rel[0] != '\0' || strcmp(f->ws, f->top) == 0)
		xasprintf(&f->h->husky_pkg, "%s%spackage.json", rel,
		    rel[0] != '\0' ? "/" : "");
	free(rel);
}

/* keep_top() of each of |names|. */
static int
keep_all(struct find *f, const char *const *names)
{
	size_t k;
	int rc = 0;

	for (k = 0; rc == 0 && names[k] != NULL; k++)
		rc = keep_top(f, names[k]);
	return rc;
}

static int lefthook_read(struct find *, const char *);

/*
 * The file lefthook's "rc" |value| names, absolute in |out|, as the
 * hook's shell reads ". VALUE" at the working tree's top: in single
 * quotes, the text as it is; in double quotes or none, a leading
 * "$HOME/", "${HOME}/" or "${XDG_CONFIG_HOME:-$HOME/.config}/"
 * (lefthook's own example) expanded, and, unquoted, "~/"; relative to
 * the top.  Any other expansion, a quote or escape left inside, a
 * pattern, or no $HOME to expand: -1 with f->err set (what the hook
 * would source cannot be told, so nothing is written).
 */
static int
rc_path(struct find *f, const char *value, char *out, size_t outlen)
{
	static const char *const homes[] = { "$HOME/", "${HOME}/", "~/",
		NULL };
	static const char xdg[] = "${XDG_CONFIG_HOME:-$HOME/.config}/";
	char word[PATH_MAX], base[PATH_MAX];
	const char *rest = word, *x;
	size_t len = strlen(value), i;
	char q = 0;

	base[0] = '\0';
	if (len >= 2 && (value[0] == '"' || value[0] == '\'') &&
	    value[len - 1] == value[0]) {
		q = value[0];
		snprintf(word, sizeof(word), "%.*s", (int)(len - 2), value + 1);
	} else
		snprintf(word, sizeof(word), "%s", value);
	if (q == '\'') {
		if (strchr(word, '\'') != NULL || word[0] == '\0')
			goto unknown;
		rest = word;
		goto resolve;
	}
	/* (A tilde is expanded only outside quotes.) */
	for (i = 0; homes[i] != NULL && (q == 0 || homes[i][0] != '~'); i++)
		if (strncmp(word, homes[i], strlen(homes[i])) == 0) {
			if (f->home == NULL)
				goto unknown;
			snprintf(base, sizeof(base), "%s", f->home);
			rest = word + strlen(homes[i]);
			break;
		}
	if (strncmp(word, xdg, sizeof(xdg) - 1) == 0) {
		x = getenv("XDG_CONFIG_HOME");
		if (x != NULL && x[0] != '\0')
			snprintf(base, sizeof(base), "%s", x);
		else if (f->home != NULL)
			snprintf(base, sizeof(base), "%s/.config", f->home);
		else
			goto unknown;
		rest = word + sizeof(xdg) - 1;
	}
	if (rest[0] == '\0' || strpbrk(rest, "$`\\\"'") != NULL ||
	    (q == 0 && (rest[0] == '~' || strpbrk(rest, "*?[ \t") != NULL)))
		goto unknown;
resolve:
	if (normalize(base[0] != '\0' ? base : f->top, rest, out, outlen) ==
	    0)
		return 0;
unknown:
	snprintf(f->err, f->errlen,
	    "lefthook's rc \"%s\" is a file airlock cannot tell (write it "
	    "as a plain path, relative to the working tree's top or "
	    "absolute)",
	    value);
	return -1;
}

/*
 * A path a lefthook config names (policy/lefthook.h), kept: relative to
 * the working tree's top or absolute.  An extends glob: the directory
 * above its first pattern (a pattern in the first component cannot be
 * covered by a directory: refused); a scripts directory that is the top
 * itself: the directories named like hooks in it.  lefthook merges the
 * extends of what it extends too (relative to the top), so each config
 * extends names, or its glob matches now, is read in turn.  -2 with
 * f->err set on an error.
 */
static int
lefthook_ref(void *arg, enum lefthook_key key, const char *value)
{
	struct find *f = arg;
	char path[PATH_MAX], sub[PATH_MAX + 32], *pat, *slash;
	glob_t g;
	size_t i;
	int rc;

	if (++f->nlefthook > LEFTHOOK_REFS_MAX) {
		snprintf(f->err, f->errlen,
		    "lefthook's configs name more than %d paths",
		    LEFTHOOK_REFS_MAX);
		return -2;
	}
	if (value[0] == '\0')
		return 0;
	if (key == LEFTHOOK_RC)
		return rc_path(f, value, path, sizeof(path)) == 0 &&
			keep(f, path) == 0 ? 0 : -2;
	if (normalize(value[0] == '/' ? "" : f->top, value, path,
	    sizeof(path)) != 0)
		return 0;
	if (key == LEFTHOOK_SOURCE_DIR) {
		if (strcmp(path, f->top) != 0)
			return keep(f, path) == 0 ? 0 : -2;
		/* Scripts at the top: beneath the directories named like
		 * hooks (SOURCE_DIR/pre-commit/x.sh), which the top kept as
		 * "" does not cover. */
		for (i = 0; hook_names[i] != NULL; i++) {
			snprintf(sub, sizeof(sub), "%s/%s", path,
			    hook_names[i]);
			if (keep(f, sub) != 0)
				return -2;
		}
		return 0;
	}
	if (strpbrk(path, "*?[") == NULL) {
		if (keep(f, path) != 0)
			return -2;
		return lefthook_read(f, path) == 0 ? 0 : -2;
	}
	/* Its directory (the top cannot be covered); then the configs the
	 * glob matches now, read. */
	snprintf(sub, sizeof(sub), "%s", path);
	pat = strpbrk(sub, "*?[");
	*pat = '\0';
	if ((slash = strrchr(sub, '/')) != NULL)
		*slash = '\0';
	if (strcmp(sub, f->top) == 0 || sub[0] == '\0') {
		snprintf(f->err, f->errlen,
		    "lefthook's extends "
		    "\"%s\" is a pattern at the working tree's top",
		    value);
		return -2;
	}
	if (keep(f, sub) != 0)
		return -2;
	/* (No match, or a directory it cannot read: nothing to read.) */
	memset(&g, 0, sizeof(g));
	(void)glob(path, GLOB_NOSORT, NULL, &g);
	rc = 0;
	for (i = 0; rc == 0 && g.gl_pathv != NULL && i < g.gl_pathc; i++)
		rc = lefthook_read(f, g.gl_pathv[i]) == 0 ? 0 : -2;
	globfree(&g);
	return rc;
}

/*
 * What the lefthook config at absolute |path| names, kept, when it
 * exists and lefthook reads its format (by its extension).  0, or -1
 * with f->err set: it cannot be read, or extends nest too deep.
 */
static int
lefthook_read(struct find *f, const char *path)
{
	char why[PATH_MAX + 64], *text;
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	size_t len, e;
	int rc;

	if (dot == NULL || (slash != NULL && dot < slash))
		return 0;
	for (e = 0; lefthook_exts[e] != NULL; e++)
		if (strcmp(dot + 1, lefthook_exts[e]) == 0)
			break;
	if (lefthook_exts[e] == NULL)
		return 0;
	if (f->lefthook_depth >= LEFTHOOK_DEPTH) {
		snprintf(f->err, f->errlen,
		    "lefthook's extends nest more than %d files deep (%s)",
		    LEFTHOOK_DEPTH, path);
		return -1;
	}
	if ((rc = read_text(f, path, "lefthook's config", &text, &len)) != 1)
		return rc;
	f->lefthook_depth++;
	rc = lefthook_paths(text, len, lefthook_exts[e], lefthook_ref, f, why,
	    sizeof(why));
	f->lefthook_depth--;
	free(text);
	if (rc == -1)
		snprintf(f->err, f->errlen, "cannot read lefthook's config %s: %s",
		    path, why);
	return rc == 0 ? 0 : -1;
}

/*
 * The config $LEFTHOOK_CONFIG names instead of the main one (lefthook
 * 1.12.2 on), as the hook will see it if it runs with this environment:
 * absolute, or relative to the working tree's top and to where airlock
 * runs, both kept (more protection, never less), and read.
 */
static int
keep_lefthook_env(struct find *f)
{
	const char *v = getenv("LEFTHOOK_CONFIG");
	char cwd[PATH_MAX], path[PATH_MAX];
	int rc = 0;

	if (v == NULL || v[0] == '\0')
		return 0;
	if (normalize(f->top, v, path, sizeof(path)) == 0 &&
	    (rc = keep(f, path)) == 0)
		rc = lefthook_read(f, path);
	if (rc == 0 && v[0] != '/' && getcwd(cwd, sizeof(cwd)) != NULL &&
	    normalize(cwd, v, path, sizeof(path)) == 0 &&
	    (rc = keep(f, path)) == 0)
		rc = lefthook_read(f, path);
	return rc;
}

/*
 * lefthook's configs and scripts directories (lefthook_bases[]), the
 * one $LEFTHOOK_CONFIG names, and what each config there extends with,
 * takes its scripts from or has its hooks source.
 */
static int
keep_lefthook(struct find *f)
{
	char name[64], path[PATH_MAX];
	size_t b, l, e;
	int rc = 0;

	if (f->lefthook)
		return 0;
	f->lefthook = 1;
	for (b = 0; rc == 0 && lefthook_bases[b] != NULL; b++)
		for (l = 0; rc == 0 && l < 2; l++)
			for (e = 0; rc == 0 && lefthook_exts[e] != NULL; e++) {
				snprintf(name, sizeof(name), "%s%s.%s",
				    lefthook_bases[b], l ? "-local" : "",
				    lefthook_exts[e]);
				if ((rc = keep_top(f, name)) == 0 &&
				    normalize(f->top, name, path,
				    sizeof(path)) == 0)
					rc = lefthook_read(f, path);
			}
	if (rc == 0)
		rc = keep_lefthook_env(f);
	return rc == 0 ? keep_all(f, lefthook_dirs) : rc;
}

/*
 * The hook managers whose hooks run commands from a file of the working
 * tree: pre-commit's scripts ("File generated by pre-commit") run the
 * entries of .pre-commit-config.yaml (or their --config=), lefthook's
 * those of lefthook.yml and its kin; a hook that runs lint-staged, those
 * of .lintstagedrc and its kin; husky v4's, those of .huskyrc.  A hook
 * of |dir| that is theirs makes those files the git rule's.  A hook
 * that exists but cannot be read refuses, as a config does.
 */
static int
hook_managers(struct find *f, const char *dir)
{
	char path[PATH_MAX + 64], text[4097], conf[256], *c;
	struct stat st;
	ssize_t n;
	size_t i, k;
	int fd, rc = 0;

	for (i = 0; rc == 0 && hook_names[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, hook_names[i]);
		if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) ==
		    -1) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue;
			snprintf(f->err, f->errlen,
			    "cannot read the git hook "
			    "%s: %s",
			    path, strerror(errno));
			return -1;
		}
		if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
		    (n = read(fd, text, sizeof(text) - 1)) < 0)
			n = 0;
		close(fd);
		text[n] = '\0';
		if (strstr(text, "File generated by pre-commit") != NULL) {
			snprintf(conf, sizeof(conf), ".pre-commit-config.yaml");
			if ((c = strstr(text, "--config=")) != NULL) {
				c += 9;
				for (k = 0;
				     k < sizeof(conf) - 1 && c[k] != '\0' &&
				     strchr(" \t\n)\"'", c[k]) == NULL;
				     k++)
					conf[k] = c[k];
				conf[k] = '\0';
			}
			rc = keep_top(f, conf);
			if (rc == 0)
				rc = keep_precommit_home(f);
		} else if (strstr(text, "lefthook") != NULL)
			rc = keep_lefthook(f);
		if (rc == 0 && strstr(text, "lint-staged") != NULL) {
			rc = keep_all(f, git_hooks_lintstaged_files);
			watch_lintstaged(f);
		}
		if (rc == 0 && strstr(text, "husky") != NULL) {
			rc = keep_all(f, husky4_files);
			watch_husky(f);
			if (rc == 0)
				rc = keep_husky_init(f);
		}
		/* yorkie's (husky's fork in Vue CLI) runs the top
		 * package.json's "gitHooks" commands. */
		if (rc == 0 && strstr(text, "yorkie") != NULL)
			watch_husky(f);
	}
	return rc;
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
	if ((rc = scan_later(f, path)) != 0 || (rc = keep(f, path)) != 0)
		return rc;
	/* Husky's ".husky/_" runs the scripts of ".husky". */
	slash = strrchr(path, '/');
	if (slash != NULL && strcmp(slash + 1, "_") == 0 && slash > path) {
		*slash = '\0';
		/* (Its scripts are the hooks that name the tools run.) */
		if ((rc = scan_later(f, path)) != 0 ||
		    (rc = keep_husky_init(f)) != 0)
			return rc;
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
 * The text |buf| (NUL-terminated; changed in place) of the config file
 * at |path|: core.hooksPath and include paths ([include] and
 * [includeIf "..."], whatever the condition).
 */
static int
parse_config(struct find *f, const char *path, char *buf, int depth)
{
	char *line, *next, *p, *key, *end;
	char sect[32] = "";
	size_t i;
	int rc = 0;

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
	return rc;
}

/*
 * The text of the file at |path| (at most CONFIG_MAX bytes) in *buf
 * (allocated, NUL-terminated) and *len: 1, or 0 when there is no such
 * file, or -1 with f->err set ("cannot read |what| PATH: ...") when it
 * exists but cannot be read or is not a regular file.
 */
static int
read_text(struct find *f, const char *path, const char *what, char **buf,
    size_t *len)
{
	struct stat st;
	ssize_t n;
	int fd;

	*len = 0;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(f->err, f->errlen, "cannot read %s %s: %s", what,
		    path, strerror(errno));
		return -1;
	}
	/* Not a device or a pipe that would keep us waiting. */
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(f->err, f->errlen, "cannot read %s %s: %s", what,
		    path, "not a regular file");
		close(fd);
		return -1;
	}
	*buf = xcalloc(1, CONFIG_MAX + 1);
	while (*len < CONFIG_MAX &&
	    (n = read(fd, *buf + *len, CONFIG_MAX - *len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(f->err, f->errlen, "cannot read %s %s: %s",
			    what, path, strerror(errno));
			close(fd);
			free(*buf);
			return -1;
		}
		*len += (size_t)n;
	}
	close(fd);
	(*buf)[*len] = '\0';
	return 1;
}

/*
 * One config file, read and parsed (parse_config()).  A file that does
 * not exist is no error; one that cannot be read is.
 */
static int
read_config(struct find *f, const char *path, int depth)
{
	char *buf;
	size_t len;
	int rc;

	if (depth > INCLUDE_DEPTH) {
		snprintf(f->err, f->errlen,
		    "git's config includes nest more "
		    "than %d files deep (%s)",
		    INCLUDE_DEPTH, path);
		return -1;
	}
	if ((rc = read_text(f, path, "git's config", &buf, &len)) != 1)
		return rc;
	rc = parse_config(f, path, buf, depth);
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

/*
 * One of the person's or the system's config files (not the
 * repository's): read, and kept itself where it lies inside the
 * workspace (the workspace is $HOME, ~/.gitconfig is a dotfiles
 * checkout's file through a symlink, $GIT_CONFIG_GLOBAL names one): git
 * obeys it in every repository, core.fsmonitor and all.  /dev/null (a
 * common $GIT_CONFIG_GLOBAL) is no config.
 */
static int
read_outer_config(struct find *f, const char *path)
{
	int rc;

	if (strcmp(path, "/dev/null") == 0)
		return 0;
	if ((rc = keep(f, path)) != 0)
		return rc;
	return read_config(f, path, 0);
}

/* $GIT_CONFIG_GLOBAL or $GIT_CONFIG_SYSTEM (|name|), as git takes it:
 * absolute, or relative to where it runs (here). */
static int
read_env_config(struct find *f, const char *name)
{
	char cwd[PATH_MAX], path[PATH_MAX];
	const char *v = getenv(name);

	if (v == NULL || v[0] == '\0')
		return 0;
	if (v[0] == '/')
		return read_outer_config(f, v);
	if (getcwd(cwd, sizeof(cwd)) == NULL ||
	    normalize(cwd, v, path, sizeof(path)) != 0) {
		snprintf(f->err, f->errlen, "cannot tell where $%s is", name);
		return -1;
	}
	return read_outer_config(f, path);
}

/*
 * The config git takes from its environment ($GIT_CONFIG_COUNT pairs of
 * $GIT_CONFIG_KEY_<n> and $GIT_CONFIG_VALUE_<n>): core.hooksPath, and
 * includes (which git takes only absolute or from ~/ there).
 */
static int
env_config(struct find *f)
{
	char name[64], value[PATH_MAX], *end;
	const char *count = getenv("GIT_CONFIG_COUNT"), *key, *v;
	size_t klen;
	long n, i;
	int rc = 0;

	if (count == NULL || count[0] == '\0')
		return 0;
	n = strtol(count, &end, 10);
	if (*end != '\0' || n < 0)
		return 0; /* git refuses to run */
	for (i = 0; rc == 0 && i < n; i++) {
		snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%ld", i);
		if ((key = getenv(name)) == NULL)
			break; /* git refuses to run */
		snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%ld", i);
		if ((v = getenv(name)) == NULL)
			break;
		snprintf(value, sizeof(value), "%s", v);
		klen = strlen(key);
		if (strcasecmp(key, "core.hooksPath") == 0)
			rc = hooks_value(f, value);
		else if ((strcasecmp(key, "include.path") == 0 ||
			     (strncasecmp(key, "includeIf.", 10) == 0 &&
				 klen > 15 &&
				 strcasecmp(key + klen - 5, ".path") == 0)) &&
		    (value[0] == '/' || strncmp(value, "~/", 2) == 0))
			rc = include(f, "/", value, 1);
	}
	return rc;
}

int
git_hooks_find(int rootfd, struct git_hooks *h, char *err, size_t errlen)
{
	char link[64], ws[PATH_MAX];
	ssize_t n;

	memset(h, 0, sizeof(*h));
	snprintf(link, sizeof(link), "/proc/self/fd/%d", rootfd);
	if ((n = readlink(link, ws, sizeof(ws) - 1)) <= 0 || ws[0] != '/') {
		snprintf(err, errlen, "cannot tell where the workspace is: %s",
		    n == -1 ? strerror(errno) : "not a path");
		return -1;
	}
	ws[n] = '\0';
	return git_hooks_find_path(ws, h, err, errlen);
}

int
git_hooks_find_path(const char *ws, struct git_hooks *h, char *err,
    size_t errlen)
{
	struct find f;
	char gitdir[PATH_MAX], path[PATH_MAX + 32], common[PATH_MAX],
	    text[PATH_MAX], *nl, *xdg;
	ssize_t n;
	size_t i;
	int fd, rc = 0;

	memset(h, 0, sizeof(*h));
	memset(&f, 0, sizeof(f));
	common[0] = '\0';
	f.h = h;
	f.err = err;
	f.errlen = errlen;
	f.home = getenv("HOME");
	if (f.home != NULL && f.home[0] != '/')
		f.home = NULL;
	if (ws[0] != '/' || strlen(ws) >= sizeof(f.ws)) {
		snprintf(err, errlen, "cannot tell where the workspace is: %s",
		    "not an absolute path");
		return -1;
	}
	snprintf(f.ws, sizeof(f.ws), "%s", ws);
	if (find_repository(&f, gitdir, sizeof(gitdir)) == 0)
		f.top[0] = '\0';
	/* The files git reads and those the environment names in their
	 * stead, all of them: more protection, never less. */
	rc = read_outer_config(&f, "/etc/gitconfig");
	if (rc == 0)
		rc = read_env_config(&f, "GIT_CONFIG_SYSTEM");
	if (rc == 0 && (xdg = getenv("XDG_CONFIG_HOME")) != NULL &&
	    xdg[0] == '/') {
		snprintf(path, sizeof(path), "%s/git/config", xdg);
		rc = read_outer_config(&f, path);
	} else if (rc == 0 && f.home != NULL) {
		snprintf(path, sizeof(path), "%s/.config/git/config", f.home);
		rc = read_outer_config(&f, path);
	}
	if (rc == 0 && f.home != NULL) {
		snprintf(path, sizeof(path), "%s/.gitconfig", f.home);
		rc = read_outer_config(&f, path);
	}
	if (rc == 0)
		rc = read_env_config(&f, "GIT_CONFIG_GLOBAL");
	if (rc == 0)
		rc = env_config(&f);
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
	/* The hooks of .git/hooks (the common directory's), and of each
	 * hooks directory of the config, by hook manager. */
	if (rc == 0 && f.top[0] != '\0') {
		snprintf(path, sizeof(path), "%s/hooks",
		    common[0] != '\0' ? common : gitdir);
		rc = scan_later(&f, path);
	}
	for (i = 0; rc == 0 && i < f.nscan; i++)
		rc = hook_managers(&f, f.scan[i]);
	for (i = 0; i < f.nscan; i++)
		free(f.scan[i]);
	if (rc != 0)
		git_hooks_free(h);
	return rc;
}

/* 1 if workspace-relative |path| is |dir| or beneath it ("": all), in
 * any case: on a case-insensitive workspace (vfat, exFAT, an SMB share,
 * WSL's /mnt/c, an ext4 casefold directory) ".HUSKY/_" is ".husky/_",
 * and the kernel's name for a directory is the spelling that looked it
 * up, which is the agent's when it made the lookup. */
static int
beneath(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return len == 0 || (strncasecmp(path, dir, len) == 0 &&
	    (path[len] == '\0' || path[len] == '/'));
}

/* |path|'s last component. */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

static int
is_one_of(const char *name, const char *const *names)
{
	size_t k;

	for (k = 0; names[k] != NULL; k++)
		if (strcasecmp(name, names[k]) == 0) /* beneath(): any case */
			return 1;
	return 0;
}

int
git_hooks_cover(const struct git_hooks *h, const char *path)
{
	size_t i;

	if (h->lintstaged != NULL && beneath(path, h->lintstaged) &&
	    is_one_of(base_name(path), git_hooks_lintstaged_files))
		return 1;
	for (i = 0; i < h->n; i++) {
		/* The workspace itself a hooks directory: its hooks only. */
		if (h->dir[i][0] == '\0') {
			if (strchr(path, '/') == NULL &&
			    is_one_of(path, hook_names))
				return 1;
		} else if (beneath(path, h->dir[i]))
			return 1;
	}
	return 0;
}

int
git_hooks_list(const char *ws, struct git_hooks_list *l, char *err,
    size_t errlen)
{
	struct git_hooks h;
	size_t i, k;
	int root = 0;

	memset(l, 0, sizeof(*l));
	if (git_hooks_find_path(ws, &h, err, errlen) != 0)
		return -1;
	/* "" at most once (keep_one() keeps each path once). */
	l->paths = xcalloc(GIT_HOOKS_MAX + GIT_HOOK_NAMES + 1,
	    sizeof(*l->paths));
	for (i = 0; i < h.n; i++) {
		if (h.dir[i][0] != '\0')
			l->paths[l->n++] = xstrdup(h.dir[i]);
		else if (!root) {
			for (k = 0; hook_names[k] != NULL; k++)
				l->paths[l->n++] = xstrdup(hook_names[k]);
			root = 1;
		}
	}
	l->lintstaged = h.lintstaged;
	l->husky_pkg = h.husky_pkg;
	h.lintstaged = h.husky_pkg = NULL;
	git_hooks_free(&h);
	return 0;
}

void
git_hooks_list_free(struct git_hooks_list *l)
{
	strv_free(l->paths);
	free(l->lintstaged);
	free(l->husky_pkg);
	memset(l, 0, sizeof(*l));
}

void
git_hooks_free(struct git_hooks *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->dir[i]);
	h->n = 0;
	free(h->lintstaged);
	free(h->husky_pkg);
	h->lintstaged = h->husky_pkg = NULL;
}

/*
 * 1 if |path| lies beneath a node_modules directory.  npm writes a
 * package.json there for every package, many published with their own
 * "lint-staged" key, and Node reads each to load the package: taking
 * them as configs refused every install and, in a session's view, masked
 * the packages.  lint-staged takes configs only from files git lists
 * (tracked, or untracked and not ignored: its searchConfigs()), and
 * node_modules is ignored wherever it is installed; a repository that
 * tracks node_modules is not covered (docs/SECURITY.md).
 */
static int
in_node_modules(const char *path)
{
	const char *s;

	for (s = path; (s = strstr(s, "node_modules/")) != NULL; s++)
		if (s == path || s[-1] == '/')
			return 1;
	return 0;
}

unsigned
git_hooks_keys(const struct git_hooks *h, const char *path)
{
	unsigned keys = 0;

	if (h->lintstaged != NULL && beneath(path, h->lintstaged) &&
	    strcasecmp(base_name(path), "package.json") == 0 &&
	    !in_node_modules(path))
		keys |= GIT_HOOKS_KEY_LINTSTAGED;
	if (h->husky_pkg != NULL && strcasecmp(path, h->husky_pkg) == 0)
		keys |= GIT_HOOKS_KEY_HUSKY;
	return keys;
}

/* |text|'s JSON (NULL: no file, an empty object), or NULL: not JSON, a
 * key twice (both JavaScript and jansson take the last, but a reader
 * that did not would run other commands than those compared), not an
 * object. */
static json_t *
package_json(const char *text, size_t len, int *bad)
{
	json_t *o;

	*bad = 0;
	if (text == NULL)
		return json_object();
	o = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
	    NULL);
	if (o == NULL || !json_is_object(o)) {
		json_decref(o);
		*bad = 1;
		return NULL;
	}
	return o;
}

int
git_hooks_keys_changed(unsigned keys, const char *before, size_t blen,
    const char *after, size_t alen)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = { { GIT_HOOKS_KEY_LINTSTAGED, "lint-staged" },
		{ GIT_HOOKS_KEY_HUSKY, "husky" },
		{ GIT_HOOKS_KEY_HUSKY, "gitHooks" } };
	json_t *b, *a, *bv, *av;
	int bbad, abad, changed = 0;
	size_t i;

	b = package_json(before, blen, &bbad);
	a = package_json(after, alen, &abad);
	if (abad)
		changed = 1; /* what it would run cannot be told */
	for (i = 0; !changed && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(keys & names[i].bit))
			continue;
		av = json_object_get(a, names[i].name);
		bv = bbad ? NULL : json_object_get(b, names[i].name);
		if (av != NULL && (bv == NULL || !json_equal(av, bv)))
			changed = 1;
	}
	json_decref(a);
	json_decref(b);
	return changed;
}

int
git_hooks_parse(const char *text, size_t len, const char *ws, const char *top,
    struct git_hooks *h, char *err, size_t errlen)
{
	struct find f;
	char *buf, path[PATH_MAX + 16];
	size_t i;
	int rc;

	memset(h, 0, sizeof(*h));
	memset(&f, 0, sizeof(f));
	f.h = h;
	f.err = err;
	f.errlen = errlen;
	f.home = NULL;
	snprintf(f.ws, sizeof(f.ws), "%s", ws);
	snprintf(f.top, sizeof(f.top), "%s", top);
	snprintf(path, sizeof(path), "%s/.git/config", top);
	buf = xcalloc(1, len + 1);
	memcpy(buf, text, len);
	rc = parse_config(&f, path, buf, 0);
	free(buf);
	for (i = 0; i < f.nscan; i++)
		free(f.scan[i]);
	if (rc != 0)
		git_hooks_free(h);
	return rc;
}
