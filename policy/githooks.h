/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * githooks: the files of a working tree that git's hooks run: the
 * hooks directories of git's config (core.hooksPath: husky's
 * ".husky/_", a project's ".githooks"), the config files it includes,
 * and the config of the hook managers its hooks call.  A hook there runs on the host at the person's next
 * commit, checkout or push, so a write beneath it is the git rule's, as
 * a write in .git/hooks is (policy/writepolicy.h: the callers mark such
 * entries in_git_dir).
 *
 * git_hooks_find() reads the config files git reads for the repository
 * that holds the workspace (the system's /etc/gitconfig, the person's
 * ~/.gitconfig and $XDG_CONFIG_HOME/git/config from $HOME, the
 * repository's config, config.worktree and its common directory's), and
 * the files they include, each include followed whatever its condition
 * (more protection, never less).  Also the files $GIT_CONFIG_SYSTEM and
 * $GIT_CONFIG_GLOBAL name (besides the defaults, not instead) and the
 * $GIT_CONFIG_COUNT pairs.  Those outer files themselves are kept where
 * they lie inside the workspace (the workspace is $HOME, ~/.gitconfig a
 * dotfiles checkout's file through a symlink): git obeys them in every
 * repository.  Every core.hooksPath value found,
 * not only the one git would pick, is kept where it falls inside the
 * workspace: relative to the working tree's top, "~/" from $HOME, or
 * absolute.  Husky's hooks directory ".husky/_" runs the scripts of its
 * parent, so a directory named "_" covers its parent too.  An included
 * config file inside the workspace (a team's tracked ".gitconfig" that
 * the repository's config includes) is kept too: git obeys it as it
 * does .git/config, core.fsmonitor and all.  And the hook managers
 * whose hooks (in .git/hooks or a hooks directory) run commands from a
 * tracked file: pre-commit's .pre-commit-config.yaml (or the hook's
 * --config=), lefthook's configs (lefthook.yml, .lefthook.yml,
 * .config/lefthook.yml and their -local kin, in each of its formats,
 * or the one $LEFTHOOK_CONFIG names), what they extend with, the
 * directories of their scripts and the rc file their hook sources
 * (policy/lefthook.h; a config that cannot be read, or an rc that cannot
 * be told, refuses), lint-staged's .lintstagedrc and its kin (a hook that
 * runs lint-staged; at any depth beneath the top, git_hooks_cover()),
 * husky v4's .huskyrc and husky.config.js, and what husky's own scripts
 * source from the person's home (husky 9's
 * ${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh, husky 4 to 8's
 * ~/.huskyrc) and the hook repositories pre-commit cloned into
 * $PRE_COMMIT_HOME where the workspace holds them; and the keys of
 * package.json that lint-staged and husky v4 read (git_hooks_keys()).
 * Read lexically: the paths need not exist.
 */
#ifndef AIRLOCK_POLICY_GITHOOKS_H
#define AIRLOCK_POLICY_GITHOOKS_H

#include <stddef.h>

#define GIT_HOOKS_MAX 128 /* paths kept; more: an error */
#define GIT_HOOK_NAMES 28 /* the names git runs as hooks (githooks(5)) */

struct git_hooks {
	/* Workspace-relative, without "." or ".." components; "" is the
	 * workspace itself (then only files named like hooks count). */
	char *dir[GIT_HOOKS_MAX];
	size_t n;
	/* A hook runs lint-staged: beneath this (workspace-relative, "":
	 * all of it) its config files count at any depth, and each
	 * package.json's "lint-staged" key; else NULL. */
	char *lintstaged;
	/* A hook is husky v4's: the top's package.json (workspace-relative),
	 * whose "husky" key counts; else NULL. */
	char *husky_pkg;
};

/*
 * Fills |h| for the workspace open at |rootfd| (a directory).  Returns 0,
 * or -1 with |err| set when a config file exists but cannot be read, an
 * include nests past 10 files, or more than GIT_HOOKS_MAX directories
 * are found: the caller cannot tell what is a hook and refuses.
 */
int git_hooks_find(int rootfd, struct git_hooks *h, char *err, size_t errlen);
/* The same for the workspace at the absolute, resolved path |ws|. */
int git_hooks_find_path(const char *ws, struct git_hooks *h, char *err,
    size_t errlen);

/* 1 if the workspace-relative |path| is a hooks directory of |h|, is
 * beneath one, or (for the workspace itself) is named like a hook. */
int git_hooks_cover(const struct git_hooks *h, const char *path);

void git_hooks_free(struct git_hooks *h);

/*
 * The keys of the file at workspace-relative |path| that a hook manager
 * runs commands from (a package.json's "lint-staged", the top
 * package.json's "husky" and, for yorkie's hooks, "gitHooks"): a mask of
 * GIT_HOOKS_KEY_*, 0 for none.  A
 * change to such a file is the git rule's when
 * git_hooks_keys_changed() says so: 1 when a key of |keys| has a value
 * in |after| that differs from |before|'s (either NULL: no file), or
 * |after| is not a JSON object read unambiguously (not JSON, a key
 * given twice); 0 otherwise (a key removed, other keys changed).
 */
#define GIT_HOOKS_KEY_LINTSTAGED 0x1u
#define GIT_HOOKS_KEY_HUSKY 0x2u /* "husky" and "gitHooks" (yorkie) */
/* A package.json larger than this is taken as changed, unread (by the
 * change sets, write_file and a session's runners alike). */
#define GIT_HOOKS_KEYS_MAX_BYTES (8u << 20)
unsigned git_hooks_keys(const struct git_hooks *h, const char *path);
int git_hooks_keys_changed(unsigned keys, const char *before, size_t blen,
    const char *after, size_t alen);

/*
 * git_hooks_find_path() as what a sandbox covers: each directory or file
 * of |h| (workspace-relative), and where the workspace itself is a hooks
 * directory, each hook's name in it; and |h|'s lintstaged and husky_pkg,
 * for the configs at any depth and the package.json keys, which no list
 * of paths made ahead can name.
 */
struct git_hooks_list {
	char **paths; /* NULL-terminated, n entries, at most
			 GIT_HOOKS_MAX + GIT_HOOK_NAMES */
	size_t n;
	char *lintstaged; /* as struct git_hooks' */
	char *husky_pkg;
};
/* Fills |l| (freed with git_hooks_list_free()).  0, or -1 with |err| as
 * git_hooks_find(). */
int git_hooks_list(const char *ws, struct git_hooks_list *l, char *err,
    size_t errlen);
void git_hooks_list_free(struct git_hooks_list *l);

/* lint-staged's config file names (NULL-terminated; package.json's key
 * aside), which count at any depth beneath git_hooks.lintstaged. */
extern const char *const git_hooks_lintstaged_files[];

/*
 * For the fuzzer (fuzz/fuzz_gitconfig.c): parses |text| (|len| bytes) as
 * the config file TOP/.git/config of a working tree at |top| holding the
 * workspace |ws| (both absolute), with no $HOME; includes are read from
 * the files they name.  As git_hooks_find() otherwise.
 */
int git_hooks_parse(const char *text, size_t len, const char *ws,
    const char *top, struct git_hooks *h, char *err, size_t errlen);

#endif
