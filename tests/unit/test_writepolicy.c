/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Unit tests for policy/writepolicy.c: one table, one row per rule and
 * per edge, {entry, expected rule or NULL}, under a policy that protects
 * .git, .github/workflows, secrets and *.pem.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <check.h>

#include "policy/writepolicy.h"

static char *protected[] = { ".git", ".github/workflows", "secrets", "*.pem",
	NULL };

struct row {
	const char *name;
	struct wp_entry e;
	const char *want; /* NULL: allowed */
};

#define F(p, m) \
	{ \
		(p), WP_FILE, (m), 1, NULL, 0, NULL, 0, 0 \
	}
#define D(p, m) \
	{ \
		(p), WP_DIR, (m), 1, NULL, 0, NULL, 0, 0 \
	}
#define L(p, t) \
	{ \
		(p), WP_SYMLINK, 0777, 1, (t), 0, NULL, 0, 0 \
	}
#define X(p) \
	{ \
		(p), WP_DELETE, 0, 0, NULL, 0, NULL, 0, 0 \
	}

static const struct row rows[] = {
	{ "plain new file", F("src/a.c", 0644), NULL },
	{ "executable script", F("tests/run.sh", 0755), NULL },
	{ "world-writable dir is allowed", D("tmp", 0777), NULL },
	{ "setuid file", F("sbash", 04755), WP_RULE_SPECIAL_BITS },
	{ "a name that is not UTF-8", F("src/\377", 0644), WP_RULE_NAME },
	{ "a .git beneath a name that is not UTF-8",
	    F("\377/.git/config", 0644), WP_RULE_NAME },
	{ "setgid file", F("x", 02755), WP_RULE_SPECIAL_BITS },
	{ "setgid world-writable dir", D("d", 02777), WP_RULE_SPECIAL_BITS },
	{ "sticky dir", D("d", 01777), WP_RULE_SPECIAL_BITS },
	{ "device node", { "dev", WP_DEVICE, 0666, 1, NULL, 0, NULL, 0, 0 },
	    WP_RULE_SPECIAL_FILE },
	{ "fifo", { "src/pipe", WP_FIFO, 0644, 1, NULL, 0, NULL, 0, 0 },
	    WP_RULE_SPECIAL_FILE },
	{ "socket", { "s", WP_SOCKET, 0755, 1, NULL, 0, NULL, 0, 0 },
	    WP_RULE_SPECIAL_FILE },
	{ "hard link", { "a", WP_FILE, 0644, 2, NULL, 0, NULL, 0, 0 },
	    WP_RULE_HARD_LINK },
	{ "top-level .git file", F(".git/config", 0644), WP_RULE_GIT },
	{ "nested .git dir", D("src/.git", 0755), WP_RULE_GIT },
	{ "nested .git config", F("src/.git/config", 0644), WP_RULE_GIT },
	{ "a .git file (gitdir:)", F("vendor/lib/.git", 0644), WP_RULE_GIT },
	{ "case-folded .GIT", F("src/.GIT/config", 0644), WP_RULE_GIT },
	{ "deleting a nested .git", X("src/.git/HEAD"), WP_RULE_GIT },
	{ ".gitignore is fine", F("src/.gitignore", 0644), NULL },
	{ "nested .hg dir", D("src/.hg", 0755), WP_RULE_GIT },
	{ "nested .hg hgrc", F("src/.hg/hgrc", 0644), WP_RULE_GIT },
	{ ".HG, case-folded", F("lib/.HG/hgrc", 0644), WP_RULE_GIT },
	{ "deleting a nested .hg", X("src/.hg/hgrc"), WP_RULE_GIT },
	{ ".hgignore is fine", F(".hgignore", 0644), NULL },
	/* Folded as a casefold ext4 or f2fs takes a name (and, before
	 * Linux 6.13, its ignorable code points left out), and NTFS's
	 * short name of .git on WSL's /mnt/c. */
	{ ".\u017fl (long s) is .sl", F("src/.\xc5\xbfl/config", 0644),
	    WP_RULE_GIT },
	{ "wor\u212aflows (Kelvin) is workflows",
	    F(".github/wor\342\204\252flows/ci.yml", 0644), WP_RULE_PROTECTED },
	{ ".g\u200cit is .git", F("src/.g\xe2\x80\x8cit/config", 0644),
	    WP_RULE_GIT },
	{ "HE\ufeffAD is HEAD", F("src/HE\357\273\277AD", 0644), WP_RULE_GIT },
	{ "GIT~1 is .git's short name", F("GIT~1/hooks/pre-commit", 0644),
	    WP_RULE_GIT },
	{ ".airlock\u2010 is not folded", F(".airlock\xe2\x80\x90x", 0644),
	    NULL },
	{ ".airloc\u212a-trash is airlock's",
	    F(".airloc\xe2\x84\xaa-trash-1/j", 0644), WP_RULE_AIRLOCK },
	{ "\u017fecrets is protected", F("\305\277ecrets/k", 0644),
	    WP_RULE_PROTECTED },
	{ "x.pe\u200dm is a .pem", F("x.pe\xe2\x80\x8dm", 0644),
	    WP_RULE_PROTECTED },
	{ "a plain non-ASCII name is fine",
	    F("docs/\xc3\xa9t\xc3\xa9.md", 0644), NULL },
	{ "a link to .\u017fl", L("l", ".\xc5\xbfl"), WP_RULE_SYMLINK_TARGET },
	/* Sapling's .sl/config runs [hooks] as hg's hgrc does; jj's
	 * .jj/repo/config.toml names the pager, editor and tools it runs. */
	{ "nested .sl config", F("src/.sl/config", 0644), WP_RULE_GIT },
	{ ".SL, case-folded", D("lib/.SL", 0755), WP_RULE_GIT },
	{ "a .jj at the root", F(".jj/repo/config.toml", 0644), WP_RULE_GIT },
	{ "nested .jj dir", D("src/.jj", 0755), WP_RULE_GIT },
	{ ".Jj, case-folded", F("src/.Jj/repo/config.toml", 0644),
	    WP_RULE_GIT },
	{ "deleting a nested .jj", X("src/.jj/repo/config.toml"), WP_RULE_GIT },
	{ ".jjconfig and .slignore are fine", F("src/.jjconfig.toml", 0644),
	    NULL },
	{ "a name holding .sl is fine", F("docs/.sl.md", 0644), NULL },
	{ "a HEAD: a bare repository's", F("src/HEAD", 0644), WP_RULE_GIT },
	{ "a HEAD at the root", F("HEAD", 0644), WP_RULE_GIT },
	{ "a HEAD, case-folded", F("src/head", 0644), WP_RULE_GIT },
	{ "a HEAD that is a symlink to refs/", L("src/HEAD", "refs/heads/main"),
	    WP_RULE_GIT },
	{ "a directory named Head is fine", D("web/Head", 0755), NULL },
	{ "a file beneath a directory named Head is fine",
	    F("web/Head/index.html", 0644), NULL },
	{ "removing a HEAD is fine", X("fixtures/repo/HEAD"), NULL },
	{ "HEAD.md is fine", F("docs/HEAD.md", 0644), NULL },
	{ "a file in a git directory the workspace has",
	    { "fixtures/repo.git/config", WP_FILE, 0644, 1, NULL, 1, NULL, 0,
		0 },
	    WP_RULE_GIT },
	{ "a directory in a git directory the workspace has",
	    { "fixtures/repo.git/hooks", WP_DIR, 0755, 1, NULL, 1, NULL, 0, 0 },
	    WP_RULE_GIT },
	{ "a symlink in a git directory the workspace has",
	    { "fixtures/repo.git/x", WP_SYMLINK, 0777, 1, "y", 1, NULL, 0, 0 },
	    WP_RULE_GIT },
	{ "a removal in a git directory the workspace has",
	    { "fixtures/repo.git/description", WP_DELETE, 0, 0, NULL, 1, NULL,
		0, 0 },
	    NULL },
	{ "protected file", F(".github/workflows/ci.yml", 0644),
	    WP_RULE_PROTECTED },
	{ "protected at depth", F("sub/.github/workflows/ci.yml", 0644),
	    WP_RULE_PROTECTED },
	{ "protected dir itself", D("secrets", 0755), WP_RULE_PROTECTED },
	{ "beneath a protected dir", F("secrets/key", 0600),
	    WP_RULE_PROTECTED },
	{ "glob pattern", F("certs/server.pem", 0644), WP_RULE_PROTECTED },
	{ "deleting a protected file", X(".github/workflows/ci.yml"),
	    WP_RULE_PROTECTED },
	{ "deleting an ancestor of a protected path", X(".github"),
	    WP_RULE_PROTECTED },
	{ "a file replacing an ancestor", F(".github", 0644),
	    WP_RULE_PROTECTED },
	{ "a symlink replacing an ancestor", L(".github", "evil"),
	    WP_RULE_PROTECTED },
	{ "a directory above a protected path", D(".github", 0755), NULL },
	{ "a sibling of a protected path", F(".github/dependabot.yml", 0644),
	    NULL },
	{ "a look-alike name", F(".github.old/workflows/ci.yml", 0644), NULL },
	{ "protected, another case (a case-insensitive checkout)",
	    F(".GitHub/Workflows/ci.yml", 0644), WP_RULE_PROTECTED },
	{ "a glob, another case", F("certs/server.PEM", 0644),
	    WP_RULE_PROTECTED },
	{ "an ancestor of a protected path, another case", X(".GITHUB"),
	    WP_RULE_PROTECTED },
	{ "secretsfile is not secrets", F("secretsfile", 0644), NULL },
	{ "relative symlink inside", L("src/link", "../README.md"), NULL },
	{ "a link whose text is not UTF-8", L("src/l", "x\377"), WP_RULE_NAME },
	{ "a link whose text is UTF-8", L("src/l", "\303\251"), NULL },
	{ "relative symlink in place", L("a/b/l", "c/d"), NULL },
	{ "absolute symlink", L("src/l", "/etc/passwd"), WP_RULE_SYMLINK },
	{ "symlink climbing out", L("src/shadow", "../../etc/shadow"),
	    WP_RULE_SYMLINK },
	{ "symlink out at top level", L("l", ".."), WP_RULE_SYMLINK },
	{ "symlink down then out", L("l", "a/../../x"), WP_RULE_SYMLINK },
	{ "empty symlink", L("l", ""), WP_RULE_SYMLINK },
	{ "dot-dot through a symlink that climbs",
	    L("d1/d2/l", "s/../../../etc/passwd"), WP_RULE_SYMLINK },
	{ "dot-dot after a name", L("a/l", "b/../c"), WP_RULE_SYMLINK },
	{ "leading dot-dots then names", L("a/b/l", "../../c/d"), NULL },
	{ "a symlink to .git/config", L("gcfg", ".git/config"),
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink to a .git", L("gdir", ".git"), WP_RULE_SYMLINK_TARGET },
	{ "a symlink up to .git/hooks", L("src/h", "../.git/hooks"),
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink to .GIT, another case", L("a/b/g", "../../.GIT/hooks"),
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink to a nested .hg", L("h", "./sub/.hg/hgrc"),
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink to a protected file", L("docs/k", "../x/secrets/k"),
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink to a protected path's ancestor", L("w", ".github"),
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink to a HEAD", L("s/h", "HEAD"), WP_RULE_SYMLINK_TARGET },
	{ "a symlink to airlock's trash", L("s/t", "../.airlock-trash-1"),
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink the caller found leading into a hooks directory",
	    { "out", WP_SYMLINK, 0777, 1, "tools", 0, "tools/hooks", 1, 0 },
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink the caller followed to .git",
	    { "out", WP_SYMLINK, 0777, 1, "l/hooks", 0, ".git/hooks", 0, 0 },
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink to the workspace root", L("a/root", ".."),
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink to the workspace root, in place", L("out", "."),
	    WP_RULE_SYMLINK_TARGET },
	{ "a symlink to its own directory", L("a/b/self", "."), NULL },
	{ "a symlink to .github's sibling", L("w", ".github-io"), NULL },
	{ "a symlink to .gitignore", L("i", ".gitignore"), NULL },
	{ "dot-dot in the entry path", F("a/../b", 0644), WP_RULE_PROTECTED },
	{ "empty path", F("", 0644), WP_RULE_PROTECTED },
	{ "plain delete", X("src/old.c"), NULL },
	{ "an apply's trash at the root", F(".airlock-trash-1/journal", 0644),
	    WP_RULE_AIRLOCK },
	{ "airlock's name, case-folded", D(".AIRLOCK-trash-1", 0755),
	    WP_RULE_AIRLOCK },
	{ "deleting a trash", X(".airlock-trash-1"), WP_RULE_AIRLOCK },
	{ "airlock's name below the root", F("src/.airlock-trash-1", 0644),
	    NULL },
	/* An agent's own configuration at the root, whatever
	 * sandbox.protected lists (here none of it). */
	{ "Claude Code's settings at the root",
	    F(".claude/settings.json", 0644), WP_RULE_AGENT_CONFIG },
	{ "an MCP server list at the root", F(".mcp.json", 0644),
	    WP_RULE_AGENT_CONFIG },
	{ "a .gemini directory at the root", D(".gemini", 0755),
	    WP_RULE_AGENT_CONFIG },
	{ "an .env, case-folded", F(".ENV", 0644), WP_RULE_AGENT_CONFIG },
	{ "opencode.jsonc at the root", F("opencode.jsonc", 0644),
	    WP_RULE_AGENT_CONFIG },
	{ "removing a .codex", X(".codex/config.toml"), WP_RULE_AGENT_CONFIG },
	{ "a link to .opencode", L("p", ".opencode/plugin"),
	    WP_RULE_SYMLINK_TARGET },
	{ "an agent's configuration below the root is the manifest's",
	    F("src/.claude/settings.json", 0644), NULL },
	{ ".envrc is fine", F(".envrc", 0644), NULL },
};

START_TEST(test_writepolicy_table)
{
	struct sandbox_policy p;
	const struct row *r = &rows[_i];
	const char *got;

	memset(&p, 0, sizeof(p));
	p.protected = protected;
	p.nprotected = 4;
	got = writepolicy_check(&p, &r->e);
	if (r->want == NULL)
		ck_assert_msg(got == NULL, "%s: refused by %s", r->name, got);
	else
		ck_assert_msg(got != NULL && strcmp(got, r->want) == 0,
		    "%s: want %s, got %s", r->name, r->want,
		    got != NULL ? got : "allowed");
}
END_TEST

START_TEST(test_writepolicy_path_matches_check)
{
	struct sandbox_policy p;

	memset(&p, 0, sizeof(p));
	p.protected = protected;
	p.nprotected = 4;
	ck_assert_ptr_null(writepolicy_path(&p, "src/a.c"));
	ck_assert_str_eq(writepolicy_path(&p, "src/.git/config"), WP_RULE_GIT);
	ck_assert_str_eq(
	    writepolicy_path(&p, "x/secrets/k"), WP_RULE_PROTECTED);
	ck_assert_str_ne(writepolicy_rule_text(WP_RULE_GIT), WP_RULE_GIT);
	ck_assert_str_ne(writepolicy_rule_text(WP_RULE_SYMLINK_TARGET),
	    WP_RULE_SYMLINK_TARGET);
}
END_TEST

START_TEST(test_writepolicy_link_resolve)
{
	static const struct {
		const char *path, *target, *want; /* want NULL: -1 */
	} r[] = {
		{ "gcfg", ".git/config", ".git/config" },
		{ "a/b/h", "../../.git/hooks", ".git/hooks" },
		{ "a/b/h", "../c/./d", "a/c/d" },
		{ "a/l", "..", "" },
		{ "a/l", "../..", NULL },
		{ "a/l", "/etc", NULL },
		{ "a/l", "b/../c", NULL },
		{ "l", ".", "" },
	};
	char out[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		rc = writepolicy_link_resolve(
		    r[i].path, r[i].target, out, sizeof(out));
		if (r[i].want == NULL)
			ck_assert_msg(rc == -1, "%s -> %s: %d %s", r[i].path,
			    r[i].target, rc, out);
		else
			ck_assert_msg(rc == 0 && strcmp(out, r[i].want) == 0,
			    "%s -> %s: %d %s", r[i].path, r[i].target, rc, out);
	}
	ck_assert_int_eq(writepolicy_link_resolve("a", "bcdef", out, 4), -2);
}
END_TEST

/* A link too long or too deep to follow is refused for that
 * (symlink_length), not as one that leaves (symlink) or leads to what
 * is guarded (symlink_target): it need be neither. */
START_TEST(test_writepolicy_symlink_length)
{
	struct sandbox_policy p;
	struct wp_entry e;
	char deep[4096], dir[4096], abs[4096];
	size_t i;

	memset(&p, 0, sizeof(p));
	memset(&e, 0, sizeof(e));
	e.kind = WP_SYMLINK;
	e.mode = 0777;
	e.nlink = 1;
	/* 1000 names "b": over 512. */
	for (i = 0; i < 1000; i++)
		memcpy(deep + 2 * i, "b/", 2);
	deep[1999] = '\0';
	e.path = "l";
	e.target = deep;
	ck_assert_str_eq(writepolicy_check(&p, &e), WP_RULE_SYMLINK_LENGTH);
	/* Its text fits, its directory and it together do not. */
	memset(dir, 'd', 3000);
	dir[200] = dir[400] = dir[600] = '/';
	strcpy(dir + 3000, "/l");
	memset(deep, 'e', 1500);
	deep[200] = deep[400] = '/';
	deep[1500] = '\0';
	e.path = dir;
	ck_assert_str_eq(writepolicy_check(&p, &e), WP_RULE_SYMLINK_LENGTH);
	/* The caller could not follow it. */
	e.path = "l";
	e.target = "b/x";
	e.target_too_long = 1;
	ck_assert_str_eq(writepolicy_check(&p, &e), WP_RULE_SYMLINK_LENGTH);
	e.target_too_long = 0;
	ck_assert_ptr_null(writepolicy_check(&p, &e));
	/* Absolute, or leaving, it is the symlink rule's still. */
	abs[0] = '/';
	memset(abs + 1, 'a', 3000);
	abs[3001] = '\0';
	e.target = abs;
	ck_assert_str_eq(writepolicy_check(&p, &e), WP_RULE_SYMLINK);
	e.target = "../x";
	ck_assert_str_eq(writepolicy_check(&p, &e), WP_RULE_SYMLINK);
	ck_assert_str_ne(writepolicy_rule_text(WP_RULE_SYMLINK_LENGTH),
	    WP_RULE_SYMLINK_LENGTH);
}
END_TEST

/* Files that configure a program their tool runs are marked for the
 * diff, at any depth and in any case; their look-alikes are not. */
START_TEST(test_writepolicy_runs_on_marks_configs_that_run_programs)
{
	static const struct {
		const char *path, *tool; /* tool NULL: not marked */
	} r[] = {
		{ ".npmrc", "npm:" },
		{ "pkg/a/.NPMRC", "npm:" },
		{ ".yarnrc.yml", "yarn:" },
		{ "rust-toolchain.toml", "cargo, rustc (rustup):" },
		{ "crates/x/.cargo/config.toml", "cargo:" },
		{ ".cargo/config", "cargo:" },
		{ ".venv/lib/python3.11/site-packages/zz.pth", "python:" },
		{ ".envrc", "direnv:" },
		{ "pnpm-workspace.yaml", "pnpm:" },
		{ "bunfig.toml", "bun:" },
		{ ".venv/pyvenv.cfg", "python:" },
		{ "app/.env", "direnv (dotenv in .envrc):" },
		{ ".yarn/releases/yarn-4.5.0.cjs", "yarn:" },
		{ ".yarn/plugins/@yarnpkg/plugin-x.cjs", "yarn:" },
		{ "team.code-workspace", "VS Code, opening it:" },
		{ ".devcontainer/devcontainer.json",
		    "VS Code Dev Containers:" },
		{ ".env.example", NULL },
		{ "src/yarn/releases/x.cjs", NULL },
		{ "gradle/wrapper/gradle-wrapper.properties", "./gradlew:" },
		{ "npmrc", NULL },
		{ "docs/.npmrc.md", NULL },
		{ "cargo/config.toml", NULL },
		{ "zz.pth", NULL },
		{ "package.json", NULL },
		{ ".bashrc", "bash:" },
		{ "dotfiles/.BASH_PROFILE", "bash:" },
		{ ".profile", "sh, bash:" },
		{ "home/u/.zshenv", "zsh:" },
		{ ".zshrc", "zsh:" },
		{ ".vscode/tasks.json", "VS Code, opening the folder:" },
		{ "a/.vscode/settings.json", "VS Code, opening the folder:" },
		{ "home/u/.gitconfig", "git:" },
		{ "dot/.config/git/config", "git:" },
		{ ".ssh/config", "ssh:" },
		{ ".bash_aliases", "bash:" },
		{ ".config/fish/config.fish", "fish:" },
		{ ".config/autostart/evil.desktop", "the desktop session:" },
		{ "ssh/config", NULL },
		{ "config.fish", NULL },
		{ ".git/hooks/pre-commit", "git:" },
		{ "sub/.git/hooks/post-checkout", "git:" },
		{ "hooks/pre-commit", NULL },
		{ "bashrc", NULL },
		{ ".bashrc.d/x.sh", NULL },
		{ "Makefile", NULL },
		{ "tasks.json", NULL },
		{ "", NULL },
	};
	const char *got;
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		got = writepolicy_runs_on(r[i].path);
		if (r[i].tool == NULL)
			ck_assert_msg(got == NULL, "%s: %s", r[i].path, got);
		else
			ck_assert_msg(got != NULL &&
				strncmp(got, r[i].tool, strlen(r[i].tool)) == 0,
			    "%s: %s", r[i].path, got ? got : "(none)");
	}
	ck_assert_ptr_null(writepolicy_runs_on(NULL));
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("writepolicy");
	TCase *tc = tcase_create("rules");

	tcase_add_loop_test(
	    tc, test_writepolicy_table, 0, sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, test_writepolicy_link_resolve);
	tcase_add_test(tc, test_writepolicy_symlink_length);
	tcase_add_test(tc, test_writepolicy_path_matches_check);
	tcase_add_test(
	    tc, test_writepolicy_runs_on_marks_configs_that_run_programs);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
