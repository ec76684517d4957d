/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * writepolicy: see writepolicy.h.  Paths are compared component by
 * component, so "a/.github/workflows" and ".github/workflows" are the
 * same pattern at different depths, and nothing depends on what exists
 * in the workspace: a protected path absent at start is as protected as
 * one that is there.
 */
#include "config.h"

#include <fnmatch.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/util.h"
#include "policy/vcsdirs.h"
#include "policy/writepolicy.h"

#define WP_MAX_DEPTH 512
#define WP_MAX_PATH 4096

struct comps {
	char buf[WP_MAX_PATH];
	char *c[WP_MAX_DEPTH];
	size_t n;
};

/* Splits |path| at '/', dropping empty and "." components; -1 if too big. */
static int
split(const char *path, struct comps *out)
{
	char *s, *save = NULL;

	out->n = 0;
	if (strlen(path) >= sizeof(out->buf))
		return -1;
	strcpy(out->buf, path);
	for (s = strtok_r(out->buf, "/", &save); s != NULL;
	     s = strtok_r(NULL, "/", &save)) {
		if (strcmp(s, ".") == 0)
			continue;
		if (out->n == WP_MAX_DEPTH)
			return -1;
		out->c[out->n++] = s;
	}
	return 0;
}

/* Case-folded, as the git rule is: on a case-insensitive checkout (a
 * casefold directory, an SMB share, WSL's /mnt/c) ".VSCODE/tasks.json"
 * is .vscode's. */
static int
comp_match(const char *pat, const char *name)
{
	return fnmatch(pat, name, FNM_PERIOD | FNM_CASEFOLD) == 0;
}

/*
 * 1 if pattern |pc| sits at depth |k| of |ec| with |ec| at or beneath it
 * (*beneath = 1), or with |ec| a proper ancestor of it (*beneath = 0).
 */
static int
window(const struct comps *pc, const struct comps *ec, size_t k, int *beneath)
{
	size_t i;

	for (i = 0; i < pc->n && k + i < ec->n; i++)
		if (!comp_match(pc->c[i], ec->c[k + i]))
			return 0;
	*beneath = i == pc->n;
	return 1;
}

/* The protected rule for an entry of kind |kind| at |ec|. */
static int
protected_hit(
    const struct sandbox_policy *p, const struct comps *ec, enum wp_kind kind)
{
	struct comps pc;
	size_t i, k;
	int beneath;

	for (i = 0; i < p->nprotected; i++) {
		if (split(p->protected[i], &pc) != 0 || pc.n == 0)
			return 1;
		for (k = 0; k < ec->n; k++) {
			if (!window(&pc, ec, k, &beneath))
				continue;
			if (beneath || kind != WP_DIR)
				return 1;
		}
	}
	return 0;
}

/*
 * A version-control directory (.git, .hg, .jj, .sl: policy/vcsdirs.h)
 * at any depth; or a file or symlink named "HEAD", which is what
 * makes a directory of any name a git directory: git takes a directory
 * holding a valid HEAD beside "objects" and "refs" (or a "commondir") for
 * a bare repository, and "git status" in or beneath it obeys its "config"
 * (core.fsmonitor, with core.worktree) as it would a nested .git's.
 * So is a write beneath a directory the caller found holding a HEAD (a
 * repository the checkout already has: its config is as good as
 * .git/config).  Removing makes no repository: allowed.
 */
static int
git_hit(const struct comps *ec, enum wp_kind kind, int in_git_dir)
{
	size_t i;

	if (in_git_dir && kind != WP_DELETE)
		return 1;

	/* Case-folded: on a case-insensitive checkout ".GIT" is ".git".
	 * Mercurial's ".hg" is the same door: "hg status" in or beneath a
	 * planted .hg runs the hooks of its hgrc; so are Sapling's and
	 * jj's. */
	for (i = 0; i < ec->n; i++)
		if (vcs_dir_name(ec->c[i]))
			return 1;
	return (kind == WP_FILE || kind == WP_SYMLINK) &&
	    strcasecmp(ec->c[ec->n - 1], "HEAD") == 0;
}

/*
 * 1 if |target|, a relative link text that is not empty (the caller,
 * writepolicy_link_resolve(), refuses the others), read from the
 * directory of |ec|, leaves the workspace or could: a ".." after a name
 * is refused (see below).
 */
static int
symlink_escapes(const struct comps *ec, const char *target)
{
	struct comps tc;
	size_t i;
	long depth;

	if (split(target, &tc) != 0)
		return 1;
	depth = ec->n > 0 ? (long)ec->n - 1 : 0;
	for (i = 0; i < tc.n; i++) {
		if (strcmp(tc.c[i], "..") == 0) {
			/*
			 * After a name, ".." climbs from wherever that name
			 * leads, and a name may be a symlink: "s/../../x"
			 * with s -> "../.." (inside) leaves the workspace
			 * although it reads as staying in.  Only a leading
			 * run of ".." climbs from the link's own directory.
			 */
			if (i > 0 && strcmp(tc.c[i - 1], "..") != 0)
				return 1;
			if (--depth < 0)
				return 1;
		} else
			depth++;
	}
	return 0;
}

/*
 * A name of airlock's own at the workspace root (".airlock-trash-*": an
 * apply's trash and journal, which the next start rolls back from):
 * planted by a run, it would make airlock itself write what it names.
 * Case-folded, as .git is.
 */
static int
airlock_hit(const struct comps *ec)
{
	return ec->n > 0 &&
	    strncasecmp(
		ec->c[0], WP_AIRLOCK_PREFIX, strlen(WP_AIRLOCK_PREFIX)) == 0;
}

const char *const writepolicy_agent_config[] = { ".claude", ".mcp.json",
	".codex", ".gemini", ".env", ".opencode", "opencode.json",
	"opencode.jsonc", NULL };

/*
 * An agent's own project configuration at the workspace root, made,
 * changed or removed: the mask airlock run's agent sees there covers
 * only what its start found (a name made later, or a file renamed over
 * a masked one, is shown), so no manifest may leave it out.
 * Case-folded, as .git is.
 */
static int
agent_config_hit(const struct comps *ec)
{
	size_t i;

	for (i = 0; ec->n > 0 && writepolicy_agent_config[i] != NULL; i++)
		if (strcasecmp(ec->c[0], writepolicy_agent_config[i]) == 0)
			return 1;
	return 0;
}

/* Appends component |c| to |out| (|*len| bytes so far); -1 if it does
 * not fit. */
static int
append(char *out, size_t outlen, size_t *len, const char *c)
{
	int n =
	    snprintf(out + *len, outlen - *len, "%s%s", *len > 0 ? "/" : "", c);

	if (n < 0 || (size_t)n >= outlen - *len)
		return -1;
	*len += (size_t)n;
	return 0;
}

int
writepolicy_link_resolve(
    const char *path, const char *target, char *out, size_t outlen)
{
	struct comps ec, tc;
	size_t i, ups, len = 0;

	if (outlen == 0)
		return -2;
	out[0] = '\0';
	if (split(path, &ec) != 0 || ec.n == 0 || target == NULL ||
	    target[0] == '\0' || target[0] == '/')
		return -1;
	/* Too long or too deep to be read: not known to leave. */
	if (split(target, &tc) != 0)
		return -2;
	/* symlink_escapes(): only a leading run of ".." climbs, and no
	 * higher than the workspace. */
	if (symlink_escapes(&ec, target))
		return -1;
	for (ups = 0; ups < tc.n && strcmp(tc.c[ups], "..") == 0; ups++)
		;
	for (i = 0; i + ups < ec.n - 1; i++)
		if (append(out, outlen, &len, ec.c[i]) != 0)
			return -2;
	for (i = ups; i < tc.n; i++)
		if (append(out, outlen, &len, tc.c[i]) != 0)
			return -2;
	return 0;
}

/*
 * 1 if a symlink leading to |dest| (workspace-relative, "" the root)
 * would have what writes through it written where the git, airlock or
 * protected rule guards: the path itself, beneath it, a protected
 * path's ancestor that the pattern begins at (".github" for
 * ".github/workflows"), or the workspace root, beneath which all of
 * them are: an archive unpacked into out/ with out -> . names
 * .git/hooks/pre-commit where no review shows it.  |in_git_dir|: the
 * caller found |dest| in a git directory or a hooks directory of git's
 * config.
 */
static const char *path_rules(
    const struct sandbox_policy *, const struct comps *, enum wp_kind, int);

static int
dest_guarded(const struct sandbox_policy *p, const char *dest, int in_git_dir)
{
	struct comps dc;

	if (in_git_dir)
		return 1;
	if (split(dest, &dc) != 0)
		return 1;
	if (dc.n == 0)
		return 1; /* the root: every guarded path is beneath it */
	return path_rules(p, &dc, WP_FILE, 0) != NULL;
}

/*
 * What a case-insensitive Linux filesystem takes a name for beyond
 * ASCII's case: ext4's and f2fs's casefold compare names case-folded
 * and decomposed (utf8 "nfdicf"), so ".\u017fl" is ".sl" there,
 * "hoo\u212as" "hooks", ".vs\ufb01..." a ligature's letters; before
 * Linux 6.13 they also left out the code points HFS+ ignores, so
 * ".g\u200cit" was ".git".  The same lists as policy/seatbelt.c's
 * fold_other and hfs_ignorable.  And WSL's /mnt/c is NTFS, where
 * "git~1" is .git's short name (git's own is_ntfs_dotgit()).
 */
static const struct {
	const char *utf8, *ascii; /* "": left out */
} wp_fold[] = {
	{ "\xe2\x84\xaa", "k" }, /* U+212A KELVIN SIGN */
	{ "\xc5\xbf", "s" }, /* U+017F LATIN SMALL LETTER LONG S */
	{ "\xc3\x9f", "ss" }, /* U+00DF, U+1E9E: sharp s */
	{ "\xe1\xba\x9e", "ss" },
	{ "\xef\xac\x80", "ff" }, /* U+FB00..FB06, the Latin ligatures */
	{ "\xef\xac\x81", "fi" },
	{ "\xef\xac\x82", "fl" },
	{ "\xef\xac\x83", "ffi" },
	{ "\xef\xac\x84", "ffl" },
	{ "\xef\xac\x85", "st" },
	{ "\xef\xac\x86", "st" },
	{ "\xcd\xbe", ";" }, /* U+037E GREEK QUESTION MARK (NFD: ';') */
	{ "\xe1\xbf\xaf", "`" }, /* U+1FEF GREEK VARIA (NFD: '`') */
	{ "\xe2\x80\x8c", "" }, /* U+200C..200F, 202A..202E, 206A..206F, */
	{ "\xe2\x80\x8d", "" }, /* U+FEFF: ignorable */
	{ "\xe2\x80\x8e", "" },
	{ "\xe2\x80\x8f", "" },
	{ "\xe2\x80\xaa", "" },
	{ "\xe2\x80\xab", "" },
	{ "\xe2\x80\xac", "" },
	{ "\xe2\x80\xad", "" },
	{ "\xe2\x80\xae", "" },
	{ "\xe2\x81\xaa", "" },
	{ "\xe2\x81\xab", "" },
	{ "\xe2\x81\xac", "" },
	{ "\xe2\x81\xad", "" },
	{ "\xe2\x81\xae", "" },
	{ "\xe2\x81\xaf", "" },
	{ "\xef\xbb\xbf", "" },
};

/*
 * |in| with each component as such a filesystem takes it, into |out|;
 * 0 if no component changed.  A fold is never longer than what it
 * replaces, so what |in| holds fits.
 */
static int
fold_comps(const struct comps *in, struct comps *out)
{
	size_t i, k, len = 0, l;
	const char *s;
	int changed = 0;

	out->n = in->n;
	for (i = 0; i < in->n; i++) {
		out->c[i] = out->buf + len;
		if (strcasecmp(in->c[i], "git~1") == 0) {
			memcpy(out->buf + len, ".git", 5);
			len += 5;
			changed = 1;
			continue;
		}
		for (s = in->c[i]; *s != '\0';) {
			for (k = 0; k < sizeof(wp_fold) / sizeof(wp_fold[0]);
			     k++) {
				l = strlen(wp_fold[k].utf8);
				if (strncmp(s, wp_fold[k].utf8, l) == 0)
					break;
			}
			if (k == sizeof(wp_fold) / sizeof(wp_fold[0])) {
				out->buf[len++] = *s++;
				continue;
			}
			l = strlen(wp_fold[k].ascii);
			memcpy(out->buf + len, wp_fold[k].ascii, l);
			len += l;
			s += strlen(wp_fold[k].utf8);
			changed = 1;
		}
		out->buf[len++] = '\0';
	}
	return changed;
}

static const char *
path_rules(const struct sandbox_policy *p, const struct comps *ec,
    enum wp_kind kind, int in_git_dir)
{
	struct comps fc;
	const struct comps *v[2] = { ec, &fc };
	size_t i, n = fold_comps(ec, &fc) ? 2 : 1;

	for (i = 0; i < n; i++) {
		if (git_hit(v[i], kind, in_git_dir))
			return WP_RULE_GIT;
		if (airlock_hit(v[i]))
			return WP_RULE_AIRLOCK;
		if (protected_hit(p, v[i], kind))
			return WP_RULE_PROTECTED;
		if (agent_config_hit(v[i]))
			return WP_RULE_AGENT_CONFIG;
	}
	return NULL;
}

const char *
writepolicy_check(const struct sandbox_policy *p, const struct wp_entry *e)
{
	struct comps ec;
	size_t i;

	/* An unreadable path is refused under the strictest rule. */
	if (e->path == NULL || split(e->path, &ec) != 0 || ec.n == 0)
		return WP_RULE_PROTECTED;
	for (i = 0; i < ec.n; i++)
		if (strcmp(ec.c[i], "..") == 0)
			return WP_RULE_PROTECTED;
	/* Refusals, audit records and the apply journal are JSON. */
	if (!utf8_valid(e->path, strlen(e->path)))
		return WP_RULE_NAME;
	/*
	 * So is what reads a link's text back out of the workspace (a pin
	 * set, a later session's records): one that is not UTF-8 is
	 * refused at the land, not met by each reader after it.
	 */
	if (e->kind == WP_SYMLINK && e->target != NULL &&
	    !utf8_valid(e->target, strlen(e->target)))
		return WP_RULE_NAME;
	switch (e->kind) {
	case WP_DEVICE:
	case WP_FIFO:
	case WP_SOCKET:
		return WP_RULE_SPECIAL_FILE;
	case WP_FILE:
	case WP_DIR:
		if (e->mode & (S_ISUID | S_ISGID | S_ISVTX))
			return WP_RULE_SPECIAL_BITS;
		if (e->kind == WP_FILE && e->nlink > 1)
			return WP_RULE_HARD_LINK;
		break;
	case WP_SYMLINK:
	case WP_DELETE:
		break;
	}
	if (path_rules(p, &ec, e->kind, e->in_git_dir) != NULL)
		return path_rules(p, &ec, e->kind, e->in_git_dir);
	if (e->kind == WP_SYMLINK) {
		char dest[WP_MAX_PATH];
		int rc = writepolicy_link_resolve(
		    e->path, e->target, dest, sizeof(dest));

		if (rc == -1)
			return WP_RULE_SYMLINK;
		/* Where it leads cannot be told: refused for that, not
		 * for leaving or for what it leads to. */
		if (rc != 0 || e->target_too_long)
			return WP_RULE_SYMLINK_LENGTH;
		if (e->target_dest != NULL)
			snprintf(dest, sizeof(dest), "%s", e->target_dest);
		if (dest_guarded(p, dest, e->target_in_git_dir))
			return WP_RULE_SYMLINK_TARGET;
	}
	return NULL;
}

const char *
writepolicy_path(const struct sandbox_policy *p, const char *path)
{
	struct wp_entry e;

	memset(&e, 0, sizeof(e));
	e.path = path;
	e.kind = WP_FILE;
	e.mode = 0644;
	e.nlink = 1;
	return writepolicy_check(p, &e);
}

/*
 * Configuration that names a program its tool runs at the person's next
 * ordinary command.  Each is text that reads as settings, not code, and
 * some tools read past any first bytes: npm obeyed the script-shell of
 * an .npmrc that began as a PNG does, which airlock diff showed as
 * "Binary files ... differ".  A pattern is the path's last components.
 */
static const struct {
	const char *pattern, *runs;
} runs_on[] = {
	{ ".npmrc",
	    "npm: the shell, node options and git of its scripts "
	    "(script-shell, node-options, git)" },
	{ ".yarnrc", "yarn: the program every yarn command runs (yarn-path)" },
	{ ".yarnrc.yml",
	    "yarn: the program every yarn command runs (yarnPath), its "
	    "plugins" },
	{ ".pnpmfile.cjs", "pnpm: code run at every install" },
	{ "pnpm-workspace.yaml",
	    "pnpm: its settings (scriptShell, nodeOptions, pnpmfile)" },
	{ "bunfig.toml", "bun: the scripts it preloads (preload)" },
	{ "pyvenv.cfg",
	    "python: the interpreter whose standard library this "
	    "environment loads (home)" },
	{ ".cargo/config.toml",
	    "cargo: the programs it runs (build.rustc-wrapper, linker, "
	    "runner, alias)" },
	{ ".cargo/config",
	    "cargo: the programs it runs (build.rustc-wrapper, linker, "
	    "runner, alias)" },
	{ "rust-toolchain.toml",
	    "cargo, rustc (rustup): the toolchain whose programs run "
	    "(path)" },
	{ "rust-toolchain",
	    "cargo, rustc (rustup): the toolchain whose programs run "
	    "(path)" },
	{ ".envrc", "direnv: a shell script run on entering the directory" },
	{ ".env",
	    "direnv (dotenv in .envrc): variables of every command run here "
	    "(LD_PRELOAD, NODE_OPTIONS, BASH_ENV)" },
	{ ".yarn/releases/*", "yarn: the yarn every yarn command runs" },
	{ ".yarn/plugins/*", "yarn: a plugin every yarn command loads" },
	{ ".yarn/plugins/*/*", "yarn: a plugin every yarn command loads" },
	{ "*.code-workspace",
	    "VS Code, opening it: its settings and tasks (runOn "
	    "folderOpen)" },
	{ ".devcontainer.json",
	    "VS Code Dev Containers: initializeCommand runs on the host" },
	{ ".devcontainer/devcontainer.json",
	    "VS Code Dev Containers: initializeCommand runs on the host" },
	{ ".devcontainer/*/devcontainer.json",
	    "VS Code Dev Containers: initializeCommand runs on the host" },
	{ "site-packages/*.pth",
	    "python: a line beginning with import runs at every start" },
	{ "dist-packages/*.pth",
	    "python: a line beginning with import runs at every start" },
	{ ".pre-commit-config.yaml", "pre-commit: the commands its hooks run" },
	{ ".git/hooks/*",
	    "git: a hook it runs (pre-commit at the next commit, "
	    "post-checkout, pre-push)" },
	{ "gradle/wrapper/gradle-wrapper.properties",
	    "./gradlew: the gradle it fetches and runs (distributionUrl)" },
	{ ".mvn/jvm.config", "mvn: the options of its JVM (-javaagent)" },
	{ ".mvn/extensions.xml", "mvn: extensions it loads and runs" },
	{ "Directory.Build.props",
	    "dotnet, msbuild: imported by every project beneath" },
	{ "Directory.Build.targets",
	    "dotnet, msbuild: imported by every project beneath" },
	/*
	 * A shell's start-up files: run by the next shell of the user
	 * whose home holds them (a checkout of dotfiles is linked into
	 * one; a workspace may be one), outside any sandbox.
	 */
	{ ".bashrc", "bash: every interactive shell runs it" },
	{ ".bash_profile", "bash: every login shell runs it" },
	{ ".bash_login", "bash: every login shell runs it" },
	{ ".bash_logout", "bash: every login shell runs it as it exits" },
	{ ".profile", "sh, bash: every login shell runs it" },
	{ ".zshenv", "zsh: every zsh runs it, a script's too" },
	{ ".zshrc", "zsh: every interactive shell runs it" },
	{ ".zprofile", "zsh: every login shell runs it" },
	{ ".zlogin", "zsh: every login shell runs it" },
	{ ".zlogout", "zsh: every login shell runs it as it exits" },
	{ ".bash_aliases",
	    "bash: sourced by the .bashrc Debian and Ubuntu "
	    "ship, at every interactive shell" },
	{ ".kshrc", "ksh: every interactive shell runs it ($ENV)" },
	{ ".mkshrc", "mksh: every interactive shell runs it" },
	{ ".cshrc", "csh, tcsh: every shell runs it" },
	{ ".tcshrc", "tcsh: every shell runs it" },
	{ ".login", "csh, tcsh: every login shell runs it" },
	{ ".config/fish/config.fish", "fish: every shell runs it" },
	{ ".config/fish/conf.d/*.fish", "fish: every shell runs it" },
	/* Programs a person's next ordinary command runs. */
	{ ".gitconfig",
	    "git: the programs it runs (core.pager, core.fsmonitor, "
	    "core.sshCommand, core.hooksPath, an alias beginning with !)" },
	{ ".config/git/config",
	    "git: the programs it runs (core.pager, core.fsmonitor, "
	    "core.sshCommand, core.hooksPath, an alias beginning with !)" },
	{ ".ssh/config",
	    "ssh: ProxyCommand and LocalCommand run at the next ssh, git "
	    "push or fetch" },
	{ ".ssh/rc", "sshd: run at every login over ssh" },
	{ ".vimrc", "vim: run at every start (:! runs a shell)" },
	{ ".tmux.conf", "tmux: run at every start (run-shell)" },
	{ ".gdbinit", "gdb: run at every start (shell)" },
	{ ".config/autostart/*.desktop",
	    "the desktop session: its Exec runs at every log-in" },
	{ ".config/systemd/user/*.service",
	    "systemd --user: its ExecStart runs (once enabled)" },
	{ ".xprofile", "the X session: every graphical log-in runs it" },
	{ ".xinitrc", "startx: the X session runs it" },
	{ ".xsession", "the X session: every graphical log-in runs it" },
	/* sandbox.protected's by default: marked where a manifest's list
	 * leaves .vscode out. */
	{ ".vscode/tasks.json",
	    "VS Code, opening the folder: a task with runOn folderOpen" },
	{ ".vscode/settings.json",
	    "VS Code, opening the folder: the programs its extensions run "
	    "(git.path, python.defaultInterpreterPath, "
	    "terminal.integrated.env)" },
};

#define RUNS_ON_N (sizeof(runs_on) / sizeof(runs_on[0]))

const char *
writepolicy_runs_on(const char *path)
{
	struct comps ec, pc;
	const char *last;
	size_t i, j;

	if (path == NULL || split(path, &ec) != 0 || ec.n == 0)
		return NULL;
	for (i = 0; i < RUNS_ON_N; i++) {
		/* the last components first: most paths end there (a shell
		   command's every word is asked about) */
		last = strrchr(runs_on[i].pattern, '/');
		last = last != NULL ? last + 1 : runs_on[i].pattern;
		if (fnmatch(last, ec.c[ec.n - 1], FNM_CASEFOLD) != 0 ||
		    split(runs_on[i].pattern, &pc) != 0 || pc.n > ec.n)
			continue;
		for (j = 0; j < pc.n; j++)
			if (fnmatch(pc.c[j], ec.c[ec.n - pc.n + j],
				FNM_CASEFOLD) != 0)
				break;
		if (j == pc.n)
			return runs_on[i].runs;
	}
	return NULL;
}

const char *
writepolicy_runs_on_beneath(const char *path)
{
	struct comps ec, pc;
	size_t i, j, k;

	if (path == NULL || split(path, &ec) != 0)
		return NULL;
	/* The path's last k components are a pattern's first k. */
	for (i = 0; i < RUNS_ON_N; i++) {
		if (strchr(runs_on[i].pattern, '/') == NULL ||
		    split(runs_on[i].pattern, &pc) != 0)
			continue;
		for (k = 1; k < pc.n && k <= ec.n; k++) {
			for (j = 0; j < k; j++)
				if (fnmatch(pc.c[j], ec.c[ec.n - k + j],
					FNM_CASEFOLD) != 0)
					break;
			if (j == k)
				return runs_on[i].runs;
		}
	}
	return NULL;
}

const char *
writepolicy_runs_on_name(size_t i, const char **runs)
{
	size_t k;

	for (k = 0; k < RUNS_ON_N; k++)
		if (strpbrk(runs_on[k].pattern, "/*?[") == NULL && i-- == 0) {
			*runs = runs_on[k].runs;
			return runs_on[k].pattern;
		}
	return NULL;
}

const char *
writepolicy_word_runs_on(const char *w)
{
	const char *runs, *eq, *base, *name;
	size_t i;

	if ((runs = writepolicy_runs_on(w)) != NULL)
		return runs;
	if ((eq = strchr(w, '=')) != NULL &&
	    (runs = writepolicy_runs_on(eq + 1)) != NULL)
		return runs;
	/* A glob the shell expands to one: ">> ~/.b?shrc". */
	base = strrchr(w, '/');
	base = base != NULL ? base + 1 : w;
	if (strpbrk(base, "*?[") != NULL)
		for (i = 0; (name = writepolicy_runs_on_name(i, &runs)) != NULL;
		     i++)
			if (fnmatch(base, name, FNM_PERIOD | FNM_CASEFOLD) == 0)
				return runs;
	return NULL;
}

const char *
writepolicy_word_sets_up(const char *w)
{
	static const struct {
		const char *word, *runs;
	} t[] = {
		{ "crontab",
		    "cron: the table crontab installs runs on its "
		    "schedule" },
		{ "core.hooksPath",
		    "git: the hooks of the directory it names "
		    "run at the next commit, checkout or "
		    "push" },
		{ "core.fsmonitor",
		    "git: the program it names runs at every "
		    "git status" },
		{ "core.sshCommand",
		    "git: the program it names runs at every "
		    "fetch and push" },
		{ "include.path",
		    "git: the config it names is obeyed, "
		    "core.hooksPath and all" },
	};
	const char *base = strrchr(w, '/');
	size_t i, n;

	base = base != NULL ? base + 1 : w;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		n = strlen(t[i].word);
		if (strcmp(t[i].word, "crontab") == 0
			? strcmp(base, "crontab") == 0
			: strncasecmp(w, t[i].word, n) == 0 &&
			    (w[n] == '\0' || w[n] == '='))
			return t[i].runs;
	}
	return NULL;
}

const char *
writepolicy_rule_text(const char *rule)
{
	static const struct {
		const char *rule, *text;
	} texts[] = {
		{ WP_RULE_SPECIAL_FILE,
		    "device nodes, FIFOs and sockets may "
		    "not be written to the workspace" },
		{ WP_RULE_SPECIAL_BITS,
		    "setuid, setgid and sticky bits may "
		    "not be set" },
		{ WP_RULE_HARD_LINK, "a file may not be a hard link" },
		{ WP_RULE_SYMLINK,
		    "a symbolic link may not point outside the "
		    "workspace" },
		{ WP_RULE_SYMLINK_LENGTH,
		    "a symbolic link whose text, or the path it leads to "
		    "through the links on the way, is over 4096 bytes or "
		    "512 names deep: where it leads cannot be told" },
		{ WP_RULE_SYMLINK_TARGET,
		    "a symbolic link may not lead to what the git, airlock "
		    "or protected rule guards (.git and its kin, a git "
		    "directory, a hooks directory of git's config, "
		    "sandbox.protected), nor to a protected path's "
		    "ancestor or the workspace root: what writes through "
		    "it later would write there" },
		{ WP_RULE_GIT,
		    "no .git, .hg, .jj or .sl, nor a file named HEAD (a git "
		    "directory's), nor anything in a directory holding one or "
		    "in a hooks directory of git's config (core.hooksPath), "
		    "may be written, at any depth" },
		{ WP_RULE_NAME,
		    "a path, and a symbolic link's text, must be valid UTF-8" },
		{ WP_RULE_AIRLOCK,
		    "names beginning with .airlock- at the workspace root "
		    "are airlock's own (an apply's trash and journal)" },
		{ WP_RULE_AGENT_CONFIG,
		    "an agent's own configuration at the workspace root "
		    "(.claude, .mcp.json, .codex, .gemini, .env, .opencode, "
		    "opencode.json, opencode.jsonc) may not be written, "
		    "whatever sandbox.protected says" },
		{ WP_RULE_SECRET,
		    "a run granted a secret may not write it into the "
		    "workspace (a file's content, a link or a name)" },
		{ WP_RULE_DENIED,
		    "sandbox.denyRead hides the path from the agent: a run "
		    "may neither create nor replace it" },
		{ WP_RULE_UNREADABLE,
		    "a file the user cannot read, or a directory the user "
		    "cannot list (a run's chmod 000), can be neither "
		    "reviewed nor landed: give it a readable mode, or "
		    "remove it" },
		{ WP_RULE_PROTECTED,
		    "the path is protected by the manifest "
		    "(sandbox.protected), at any depth" },
	};
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (strcmp(texts[i].rule, rule) == 0)
			return texts[i].text;
	return rule;
}
