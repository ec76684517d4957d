/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The Seatbelt generator: golden profiles (tests/golden/NAME.sb, byte for
 * byte; AIRLOCK_UPDATE_GOLDEN=1 rewrites them), the path canonicalisation
 * table, refusals, and the protected-path rules run for real: every
 * (regex #"...") the profile emits is compiled with regcomp(3) and matched
 * against paths that must and must not be protected.  And what the macOS
 * runner hands to sandbox-exec(1): the environment "airlock exec" built
 * and nothing of the caller's (a planted token must not get through), run
 * for real with a stand-in for sandbox-exec; what it refuses.
 */
#include "config.h"

#include <check.h>
#include <fnmatch.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/sandbox_defaults.h"
#include "policy/seatbelt.h"
#include "policy/sensitive.h"
#include "runner/seatbelt_exec.h"
#include "supervisor/overrides.h"

static char *
slurp(const char *path)
{
	FILE *fp;
	char *buf;
	long n;

	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, n + 1);
	if (fread(buf, 1, n, fp) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	return buf;
}

static void
golden(const char *name, const char *got)
{
	char path[1024], *want;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	if (getenv("AIRLOCK_UPDATE_GOLDEN") != NULL) {
		ck_assert_ptr_nonnull(fp = fopen(path, "w"));
		fputs(got, fp);
		fclose(fp);
	}
	want = slurp(path);
	ck_assert_msg(want != NULL, "missing %s", path);
	ck_assert_msg(strcmp(want, got) == 0, "%s differs:\n%s", name, got);
	free(want);
}

static char **
strv(const char *a, const char *b, const char *c, size_t *n)
{
	char **v = calloc(4, sizeof(*v));
	const char *in[3] = { a, b, c };
	size_t i;

	*n = 0;
	for (i = 0; i < 3 && in[i] != NULL; i++)
		v[(*n)++] = strdup(in[i]);
	return v;
}

static struct seatbelt_run
run_at(const char *ws)
{
	struct seatbelt_run r;

	memset(&r, 0, sizeof(r));
	r.workspace = ws;
	r.home = "/Users/dev";
	r.tmpdir = "/private/var/folders/xy/abc123/T/airlock.Q1w2e3";
	return r;
}

/*
 * 1 if |path| matches a (regex #"...") rule of |op| ("deny file-write*"
 * or "deny file-write-unlink file-write-create") in |profile|.
 */
static int
regex_denies(const char *profile, const char *op, const char *path)
{
	char head[128], re[2048];
	const char *s = profile, *q, *end;
	regex_t rx;
	int hit = 0;

	snprintf(head, sizeof(head), "(%s (regex #\"", op);
	while (!hit && (q = strstr(s, head)) != NULL) {
		q += strlen(head);
		end = strstr(q, "\"))");
		ck_assert_ptr_nonnull(end);
		ck_assert_int_lt(end - q, (long)sizeof(re));
		memcpy(re, q, end - q);
		re[end - q] = '\0';
		ck_assert_msg(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0,
		    "bad regex %s", re);
		hit = regexec(&rx, path, 0, NULL, 0) == 0;
		regfree(&rx);
		s = end;
	}
	return hit;
}

/* Each of |denied| is denied a write by a regex rule of |profile|, none of
 * |allowed| is. */
static void
expect_writes(const char *profile, const char *const *denied, size_t nd,
    const char *const *allowed, size_t na)
{
	size_t i;

	for (i = 0; i < nd; i++)
		ck_assert_msg(
		    regex_denies(profile, "deny file-write*", denied[i]),
		    "%s writable", denied[i]);
	for (i = 0; i < na; i++)
		ck_assert_msg(
		    !regex_denies(profile, "deny file-write*", allowed[i]),
		    "%s not writable", allowed[i]);
}

/* 1 if |path| is beneath a (subpath "...") of a rule starting |rule|
 * ("(deny file-read*"), or matches its (regex ...). */
static int
subpath_rule(const char *profile, const char *rule, const char *path)
{
	char head[256];
	const char *q;
	size_t n;

	if (regex_denies(profile, rule + 1, path))
		return 1;
	snprintf(head, sizeof(head), "%s (subpath \"", rule);
	for (q = profile; (q = strstr(q, head)) != NULL; q++) {
		q += strlen(head);
		n = strcspn(q, "\"");
		if (strncmp(path, q, n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

START_TEST(test_canonical_paths)
{
	static const struct {
		const char *in, *out;
	} rows[] = {
		{ "/tmp", "/private/tmp" },
		{ "/tmp/ws", "/private/tmp/ws" },
		{ "/var/folders/xy/T", "/private/var/folders/xy/T" },
		{ "/etc/hosts", "/private/etc/hosts" },
		{ "/tmpfoo/x", "/tmpfoo/x" },
		{ "/private/tmp/a", "/private/tmp/a" },
		{ "/System/Volumes/Data/Users/dev/p", "/Users/dev/p" },
		{ "/System/Volumes/Data/private/tmp/a", "/private/tmp/a" },
		{ "/System/Volumes/Data/usr/local/bin", "/usr/local/bin" },
		{ "/System/Volumes/Data/usr/bin",
		    "/System/Volumes/Data/usr/bin" },
		{ "/Users//dev/./p/", "/Users/dev/p" },
		{ "/", "/" },
	};
	char out[256];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_int_eq(
		    seatbelt_canonical(rows[i].in, out, sizeof(out)), 0);
		ck_assert_str_eq(out, rows[i].out);
	}
	ck_assert_int_eq(
	    seatbelt_canonical("rel/p", out, sizeof(out)), AL_ERR_PATH);
	ck_assert_int_eq(
	    seatbelt_canonical("/a/../b", out, sizeof(out)), AL_ERR_PATH);
	ck_assert_int_eq(
	    seatbelt_canonical("/tmp/abcdef", out, 8), AL_ERR_PATH);
}
END_TEST

START_TEST(test_default_policy_matches_golden_profile)
{
	struct sandbox_policy sp;
	struct seatbelt_run r = run_at("/Users/dev/project");
	char *out, p[256];
	size_t i;

	sandbox_policy_init_defaults(&sp);
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	golden("default.sb", out);
	ck_assert_ptr_nonnull(strstr(out, "(version 1)\n(deny default)\n"));
	/* Nothing broad: every allow of these carries a filter. */
	ck_assert_ptr_null(strstr(out, "(allow mach-lookup)"));
	ck_assert_ptr_null(strstr(out, "(allow sysctl-read)"));
	ck_assert_ptr_null(strstr(out, "(allow file-write*)"));
	ck_assert_ptr_null(strstr(out, "(allow network"));
	ck_assert_ptr_null(
	    strstr(out, "(global-name \"com.apple.coreservices"));
	ck_assert_ptr_null(strstr(out, "\"/private/tmp\""));
	ck_assert_ptr_null(strstr(out, "\"/private/var/folders\""));
	ck_assert_ptr_nonnull(strstr(out, "(deny network*)"));
	/* In every spelling: on a case-insensitive APFS volume ~/.SSH,
	 * /users/DEV/.ssh and ~/.\u017fsh (LONG S) are ~/.ssh, and U+00DF
	 * is "ss". */
	ck_assert_ptr_nonnull(strstr(out,
	    "(deny file-read* (regex #\"^/[Uu]([Ss]|\xc5\xbf)[Ee][Rr]([Ss]|"
	    "\xc5\xbf)/[Dd][Ee][Vv]/\\.(([Ss]|\xc5\xbf)([Ss]|\xc5\xbf)|"
	    "\xc3\x9f|\xe1\xba\x9e)[Hh](/.*)?$\"))"));
	ck_assert(
	    regex_denies(out, "deny file-read*", "/users/DEV/.SSH/id_rsa"));
	ck_assert(regex_denies(
	    out, "deny file-read*", "/Users/dev/.\xc3\x9fh/id_rsa"));
	ck_assert(!regex_denies(out, "deny file-read*", "/Users/dev/.sh"));
	/* Not written, and after the allow of the workspace: SBPL's last
	 * match wins. */
	ck_assert_ptr_nonnull(strstr(strstr(out, "(allow file-write*\n"),
	    "(deny file-write* (regex #\"^/[Uu]([Ss]|\xc5\xbf)[Ee][Rr]"));
	ck_assert_int_eq(subpath_rule(out, "(allow file-write*\n   ",
			     "/Users/dev/project/src/a.c"),
	    1);
	/* Every credential store airlock knows, beneath HOME. */
	for (i = 0; sensitive_cred_stores[i] != NULL; i++) {
		snprintf(
		    p, sizeof(p), "/Users/dev/%s/x", sensitive_cred_stores[i]);
		ck_assert_msg(subpath_rule(out, "(deny file-read*", p) == 1,
		    "%s readable", p);
	}
	free(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

START_TEST(test_git_is_protected_at_any_depth)
{
	static const char *const denied[] = {
		"/Users/dev/project/.git",
		"/Users/dev/project/.git/config",
		"/Users/dev/project/.git/hooks/pre-commit",
		"/Users/dev/project/src/.git",
		"/Users/dev/project/src/.git/config",
		"/Users/dev/project/vendor/lib/.git",
		"/Users/dev/project/a/b/c/.GIT/HEAD",
		"/Users/dev/project/.Git",
		/* The TMPDIR, whence a tree renamed into the workspace. */
		"/private/var/folders/xy/abc123/T/airlock.Q1w2e3/r/.git/config",
		"/private/var/folders/xy/abc123/T/airlock.Q1w2e3/r/HEAD",
	};
	static const char *const allowed[] = {
		"/Users/dev/project/.gitignore",
		"/Users/dev/project/src/.github/x",
		"/Users/dev/project/git/config",
		"/Users/dev/project/src/a.git",
		"/Users/dev/project2/.git",
	};
	struct sandbox_policy sp;
	struct seatbelt_run r = run_at("/Users/dev/project");
	char *out;

	sandbox_policy_init_defaults(&sp);
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	expect_writes(out, denied, sizeof(denied) / sizeof(denied[0]), allowed,
	    sizeof(allowed) / sizeof(allowed[0]));
	free(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

START_TEST(test_git_hooks_are_protected)
{
	static const char *const hooks[] = { ".husky/_", ".husky",
		"team.gitconfig", "pre-commit" };
	static const char *const denied[] = {
		"/Users/dev/project/.husky/pre-commit",
		"/Users/dev/project/.husky/_/h",
		"/Users/dev/project/.HUSKY/pre-push",
		"/Users/dev/project/team.gitconfig",
		"/Users/dev/project/Team.GitConfig",
		"/Users/dev/project/pre-commit",
	};
	static const char *const allowed[] = {
		"/Users/dev/project/src/.husky/pre-commit",
		"/Users/dev/project/.huskyrc",
		"/Users/dev/project/team.gitconfig.bak",
		"/Users/dev/project/src/pre-commit",
	};
	const char *hooks_bad[1];
	struct sandbox_policy sp;
	struct seatbelt_run r = run_at("/Users/dev/project");
	char *out;

	sandbox_policy_init_defaults(&sp);
	r.hooks = hooks;
	r.nhooks = sizeof(hooks) / sizeof(hooks[0]);
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	expect_writes(out, denied, sizeof(denied) / sizeof(denied[0]), allowed,
	    sizeof(allowed) / sizeof(allowed[0]));
	/* Moving .husky away would take the hooks with it. */
	ck_assert(regex_denies(out, "deny file-write-unlink file-write-create",
	    "/Users/dev/project/.husky"));
	free(out);
	/* A hooks path that is not workspace-relative: no profile. */
	hooks_bad[0] = "../elsewhere";
	r.hooks = hooks_bad;
	r.nhooks = 1;
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), AL_ERR_PATH);
	ck_assert_ptr_null(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

/* A hook runs lint-staged: its configs and package.json at any depth;
 * husky v4's: the top package.json alone. */
START_TEST(test_hook_manager_configs_at_any_depth)
{
	static const char *const denied[] = {
		"/Users/dev/project/.lintstagedrc.json",
		"/Users/dev/project/packages/a/.lintstagedrc.json",
		"/Users/dev/project/packages/a/.LintStagedRC.JSON",
		"/Users/dev/project/x/y/lint-staged.config.ts",
		"/Users/dev/project/x/package.yaml",
		"/Users/dev/project/package.json",
		"/Users/dev/project/packages/b/package.json",
	};
	static const char *const allowed[] = {
		"/Users/dev/project/src/index.ts",
		"/Users/dev/project/package-lock.json",
		"/Users/dev/project/x/.lintstagedrc.json.bak",
		"/Users/dev/project/x/my.lintstagedrc",
		"/Users/dev/other/.lintstagedrc.json",
	};
	static const char *const husky_denied[] = {
		"/Users/dev/project/package.json",
	};
	static const char *const husky_allowed[] = {
		"/Users/dev/project/packages/b/package.json",
		"/Users/dev/project/packages/a/.lintstagedrc.json",
	};
	struct sandbox_policy sp;
	struct seatbelt_run r = run_at("/Users/dev/project");
	char *out;

	sandbox_policy_init_defaults(&sp);
	r.lintstaged = "";
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	expect_writes(out, denied, sizeof(denied) / sizeof(denied[0]), allowed,
	    sizeof(allowed) / sizeof(allowed[0]));
	free(out);
	r.lintstaged = NULL;
	r.husky_pkg = "package.json";
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	expect_writes(out, husky_denied, 1, husky_allowed,
	    sizeof(husky_allowed) / sizeof(husky_allowed[0]));
	free(out);
	r.husky_pkg = "../package.json";
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), AL_ERR_PATH);
	ck_assert_ptr_null(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

START_TEST(test_protected_patterns_and_ancestors)
{
	struct sandbox_policy sp;
	struct seatbelt_run r = run_at("/Users/dev/my project");
	char *out;

	sandbox_policy_init_defaults(&sp);
	sandbox_policy_free_arrays(&sp);
	sp.deny_read =
	    strv("~/.config/secret", "/etc/secret", "~/.aws", &sp.ndeny_read);
	sp.protected = strv(
	    ".github/workflows", "*.pem", "config/prod/db.env", &sp.nprotected);
	sp.read_only = strv(NULL, NULL, NULL, &sp.nread_only);
	sp.network = 1;
	r.tty = "/dev/ttys004";
	r.gitdir = "/Users/dev/src/main.git/worktrees/p";
	r.proxy_port = 41823;
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	golden("custom.sb", out);
	/* At any depth, whether or not the path exists. */
	ck_assert(regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/.github/workflows/ci.yml"));
	ck_assert(regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/sub/.github/workflows"));
	ck_assert(regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/keys/server.pem"));
	ck_assert(regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/config/prod/db.env"));
	/* In any case: a macOS volume is case-insensitive. */
	ck_assert(regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/.GitHub/WORKFLOWS/ci.yml"));
	ck_assert(regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/keys/server.PEM"));
	ck_assert(regex_denies(out, "deny file-write-unlink file-write-create",
	    "/Users/dev/my project/.GITHUB"));
	/* And in the other spellings a case-insensitive APFS volume folds
	 * to the same name: U+212A KELVIN SIGN is k, U+FB02 is "fl", U+017F
	 * LONG S is s. */
	ck_assert(regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/.github/wor\xe2\x84\xaa"
	    "flows/ci.yml"));
	ck_assert(regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/.github/work\xef\xac\x82ows/ci.yml"));
	ck_assert(regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/.\xc5\xbfl/x"));
	/* A repository by any door: .hg, a bare repository's HEAD. */
	ck_assert(regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/src/.hg/hgrc"));
	ck_assert(regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/lib/.HG"));
	ck_assert(regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/src/HEAD"));
	ck_assert(!regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/.hgignore"));
	/* Sapling's and jj's: their config runs commands too. */
	ck_assert(regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/src/.sl/config"));
	ck_assert(regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/.jj/repo/config.toml"));
	ck_assert(regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/lib/.JJ"));
	ck_assert(!regex_denies(
	    out, "deny file-write*", "/Users/dev/my project/.jjconfig.toml"));
	ck_assert(!regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/web/Head/index.html"));
	ck_assert(!regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/.github/dependabot.yml"));
	ck_assert(!regex_denies(out, "deny file-write*",
	    "/Users/dev/my project/config/dev/db.env"));
	/* Moving an ancestor away is refused; a sibling is not. */
	ck_assert(regex_denies(out, "deny file-write-unlink file-write-create",
	    "/Users/dev/my project/.github"));
	ck_assert(regex_denies(out, "deny file-write-unlink file-write-create",
	    "/Users/dev/my project/x/config/prod"));
	ck_assert(!regex_denies(out, "deny file-write-unlink file-write-create",
	    "/Users/dev/my project/.github2"));
	/* Nor made where it is missing: renaming a directory written as
	 * .gh/workflows to .github would bring the pattern in. */
	ck_assert_ptr_nonnull(strstr(out,
	    "(deny file-write-unlink file-write-create (regex #\"^/Users/dev/"
	    "my project(/.*)?/\\.[gG][iI][tT][hH][uU][bB]$\"))"));
	/* /etc is /private/etc to Seatbelt. */
	ck_assert_int_eq(
	    subpath_rule(out, "(deny file-read*", "/private/etc/secret/x"), 1);
	ck_assert_int_eq(
	    subpath_rule(out, "(deny file-read*", "/Users/dev/.config/secret"),
	    1);
	free(out);
	/* A denied path in the workspace: neither it nor a directory above
	 * it in the workspace moved away to be read under another name. */
	free(sp.deny_read[0]);
	sp.deny_read[0] = strdup("/Users/dev/my project/cfg/prod/db.env");
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	ck_assert_ptr_nonnull(strstr(strstr(out, "(allow file-write*\n"),
	    "(deny file-write* (regex #\"^/Users/dev/my project/[Cc][Ff][Gg]/"
	    "[Pp][Rr][Oo][Dd]/[Dd][Bb]\\.[Ee][Nn][Vv](/.*)?$\"))\n"
	    "(deny file-write-unlink (regex #\"^/Users/dev/my project$\"))\n"
	    "(deny file-write-unlink (regex #\"^/Users/dev/my "
	    "project/[Cc][Ff][Gg]$\"))\n"
	    "(deny file-write-unlink (regex #\"^/Users/dev/my "
	    "project/[Cc][Ff][Gg]/[Pp][Rr][Oo][Dd]$\"))\n"));
	/* In every spelling a case-insensitive volume takes for it. */
	ck_assert(regex_denies(
	    out, "deny file-write-unlink", "/Users/dev/my project/CFG/Prod"));
	ck_assert(regex_denies(
	    out, "deny file-read*", "/Users/dev/my project/cfg/PROD/db.env"));
	ck_assert(regex_denies(
	    out, "deny file-read*", "/USERS/dev/.\xc5\xbfsh/id_rsa"));
	ck_assert_int_eq(subpath_rule(out, "(deny file-write*",
			     "/Users/dev/src/main.git/worktrees/p/HEAD"),
	    1);
	ck_assert_ptr_nonnull(strstr(
	    out, "(allow network-outbound (remote tcp \"localhost:41823\"))"));
	ck_assert_ptr_nonnull(strstr(out, "\"com.apple.trustd.agent\""));
	ck_assert_ptr_nonnull(strstr(out, "(literal \"/dev/ttys004\")"));
	free(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

START_TEST(test_parameters_when_run_values_are_unknown)
{
	struct sandbox_policy sp;
	struct seatbelt_run r = run_at("/Users/dev/project");
	char *out;

	sandbox_policy_init_defaults(&sp);
	sp.network = 1;
	r.tmpdir = NULL;
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "(subpath (param \"TMPDIR\"))"));
	ck_assert_ptr_nonnull(strstr(
	    out, "(string-append \"localhost:\" (param \"PROXY_PORT\"))"));
	ck_assert_ptr_null(strstr(out, "localhost:*"));
	/* The TMPDIR unknown: a repository at any depth of anything. */
	ck_assert(regex_denies(out, "deny file-write*",
	    "/private/var/folders/zz/T/x/.git/config"));
	free(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

/*
 * A protected glob's regex matches at least what fnmatch(3) does, as the
 * change sets judge it (policy/writepolicy.c): bracket expressions as
 * fnmatch reads them ("[]a]", "[[:digit:]]"), an unclosed '[' as itself.
 */
START_TEST(test_protected_globs_match_what_fnmatch_does)
{
	static const struct {
		const char *pat, *name;
	} rows[] = {
		{ "[[:digit:]]x.key", "5x.key" },
		{ "[]a]b", "]b" },
		{ "[]a]b", "ab" },
		{ "[!]]b", "cb" },
		{ "a[bc", "a[bc" },
		{ "k[[.-.]]y", "k-y" },
		{ "*.pem", "server.PEM" },
		{ "s?cret", "secret" },
	};
	struct sandbox_policy sp;
	struct seatbelt_run r = run_at("/Users/dev/project");
	char *out, path[256];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_msg(fnmatch(rows[i].pat, rows[i].name,
				  FNM_PERIOD | FNM_CASEFOLD) == 0,
		    "fnmatch %s %s", rows[i].pat, rows[i].name);
		sandbox_policy_init_defaults(&sp);
		free(sp.protected[1]);
		sp.protected[1] = strdup(rows[i].pat);
		ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
		snprintf(path, sizeof(path), "/Users/dev/project/d/%s",
		    rows[i].name);
		ck_assert_msg(regex_denies(out, "deny file-write*", path),
		    "%s not protected by %s", path, rows[i].pat);
		free(out);
		sandbox_policy_free_arrays(&sp);
	}
}
END_TEST

/* airlock's own directories, wherever the environment put them. */
START_TEST(test_run_secrets_are_denied)
{
	static const char *const secrets[] = { "/srv/airlock-state",
		"/tmp/airlock-run-0" };
	static const char *const bad[] = { "relative/state" };
	struct sandbox_policy sp;
	struct seatbelt_run r = run_at("/Users/dev/project");
	char *out;

	sandbox_policy_init_defaults(&sp);
	r.secrets = secrets;
	r.nsecrets = 2;
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	ck_assert_int_eq(subpath_rule(out, "(deny file-read*",
			     "/srv/airlock-state/secrets.key"),
	    1);
	ck_assert_int_eq(subpath_rule(out, "(deny file-read*",
			     "/private/tmp/airlock-run-0/x"),
	    1);
	ck_assert_int_eq(subpath_rule(out, "(deny file-write*",
			     "/srv/airlock-state/keys/audit.key"),
	    1);
	free(out);
	r.secrets = bad;
	r.nsecrets = 1;
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), AL_ERR_PATH);
	ck_assert_ptr_null(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

/*
 * The agent's home (agent.homeReadOnly, agent.homeScratch): a file entry
 * denied as a literal, a directory's as a subpath, a scratch directory
 * unreadable in every spelling; one a link leads into the workspace
 * (run's home_ro) denied there in every spelling, with its ancestors
 * neither unlinked nor made; entries that are not home-relative, and
 * targets that are not absolute, refuse the profile.
 */
START_TEST(test_agent_home_entries_are_denied)
{
	static char *const ro[] = { ".claude/settings.json", ".claude/rules/" };
	static char *const scratch[] = { ".gemini/tmp/" };
	static const char *const targets[] = {
		"/Users/dev/project/claude/CLAUDE.md"
	};
	static char *const bad_ro[] = { "../.claude/settings.json" };
	static const char *const bad_targets[] = { "claude/CLAUDE.md" };
	struct sandbox_policy sp;
	struct seatbelt_run r = run_at("/Users/dev/project");
	char *out;

	sandbox_policy_init_defaults(&sp);
	sp.home_ro = ro;
	sp.nhome_ro = 2;
	sp.home_scratch = scratch;
	sp.nhome_scratch = 1;
	r.home_ro = targets;
	r.nhome_ro = 1;
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	ck_assert_ptr_nonnull(strstr(out,
	    "(deny file-write* (literal \"/Users/dev/.claude/settings.json\"))"
	    "  ; .claude/settings.json\n"));
	ck_assert_ptr_nonnull(strstr(out,
	    "(deny file-write* (subpath \"/Users/dev/.claude/rules\"))"
	    "  ; .claude/rules/\n"));
	ck_assert_ptr_nonnull(strstr(
	    out, "(deny file-write* (subpath \"/Users/dev/.gemini/tmp\"))"));
	ck_assert_int_eq(regex_denies(out, "deny file-read*",
			     "/Users/dev/.GEMINI/tmp/p/memory/MEMORY.md"),
	    1);
	ck_assert_int_eq(regex_denies(out, "deny file-read*",
			     "/Users/dev/.gemini/settings.json"),
	    0);
	ck_assert_int_eq(regex_denies(out, "deny file-write*",
			     "/Users/dev/project/Claude/claude.MD"),
	    1);
	ck_assert_int_eq(
	    regex_denies(out, "deny file-write-unlink file-write-create",
		"/Users/dev/project/CLAUDE"),
	    1);
	ck_assert_int_eq(regex_denies(out, "deny file-write*",
			     "/Users/dev/project/claude/notes.md"),
	    0);
	free(out);
	/* No home: its entries are skipped, as "~" paths are. */
	r.home = NULL;
	r.nhome_ro = 0;
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), 0);
	ck_assert_ptr_null(strstr(out, "agent.homeReadOnly"));
	free(out);
	r = run_at("/Users/dev/project");
	sp.home_ro = bad_ro;
	sp.nhome_ro = 1;
	out = (char *)1;
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), AL_ERR_PATH);
	ck_assert_ptr_null(out);
	sp.home_ro = ro;
	r.home_ro = bad_targets;
	r.nhome_ro = 1;
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), AL_ERR_PATH);
	sp.home_ro = NULL;
	sp.nhome_ro = 0;
	sp.home_scratch = NULL;
	sp.nhome_scratch = 0;
	sandbox_policy_free_arrays(&sp);
}
END_TEST

START_TEST(test_bad_inputs_are_refused)
{
	static const char *const bad_ws[] = { "relative", "/ws/", "/", "/tmp",
		"/private/tmp", "/var/folders", "/Users", "/Users/dev",
		"/Users", "/ws/\"q\"", "/ws/a\\b", "/ws/new\nline", "/a/../b" };
	struct sandbox_policy sp;
	struct seatbelt_run r;
	char *out;
	size_t i;

	sandbox_policy_init_defaults(&sp);
	for (i = 0; i < sizeof(bad_ws) / sizeof(bad_ws[0]); i++) {
		r = run_at(bad_ws[i]);
		out = (char *)1;
		ck_assert_msg(seatbelt_profile(&sp, &r, &out) == AL_ERR_PATH,
		    "workspace %s accepted", bad_ws[i]);
		ck_assert_ptr_null(out);
	}
	r = run_at("/ws");
	r.tmpdir = "tmp";
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), AL_ERR_PATH);
	r = run_at("/ws");
	r.gitdir = "/x/\"y";
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), AL_ERR_PATH);
	r = run_at("/ws");
	free(sp.protected[0]);
	sp.protected[0] = strdup("../escape");
	ck_assert_int_eq(seatbelt_profile(&sp, &r, &out), AL_ERR_PATH);
	ck_assert_ptr_null(out);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

/*
 * The caller's environment on a developer's Mac: tokens, and a HOME the
 * command must not get.  runner_seatbelt_exec() once ran sandbox-exec
 * with execv(3), that is with all of it.
 */
static const char *const planted[][2] = {
	{ "GITHUB_TOKEN", "ghp_plantedSEATBELTsecret0001" },
	{ "ANTHROPIC_API_KEY", "sk-ant-plantedSEATBELTsecret0002" },
	{ "AWS_SECRET_ACCESS_KEY", "plantedSEATBELTsecret0003" },
	{ "HOME", "/Users/dev" },
	{ "TERM", "xterm-256color" },
	{ "PASSED", "from-the-caller" },
};

static void
plant(void)
{
	size_t i;

	for (i = 0; i < sizeof(planted) / sizeof(planted[0]); i++)
		ck_assert_int_eq(setenv(planted[i][0], planted[i][1], 1), 0);
}

#define RUN_TMPDIR "/private/var/folders/zz/abc/T/airlock.Q1w2E3"

/* What the command must get, and nothing else. */
static const char *const want_env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
	"HOME=" RUN_TMPDIR, "TMPDIR=" RUN_TMPDIR, "LANG=C.UTF-8",
	"TERM=xterm-256color", "FOO=bar=baz", "PASSED=from-the-caller", NULL
};

/* "airlock exec --env FOO=bar=baz --env PASSED": the built environment. */
static char **
built_env(struct overrides *ov)
{
	char err[256];

	overrides_init(ov);
	ck_assert_int_eq(overrides_add(ov, OVERRIDE_ENV, "FOO=bar=baz", "",
			     getenv, err, sizeof(err)),
	    0);
	ck_assert_int_eq(overrides_add(ov, OVERRIDE_ENV, "PASSED", "", getenv,
			     err, sizeof(err)),
	    0);
	return overrides_exec_env(ov, getenv);
}

/* 1 if |line| is an entry of |want|. */
static int
wanted(const char *line, const char *const want[])
{
	size_t i;

	for (i = 0; want[i] != NULL; i++)
		if (strcmp(line, want[i]) == 0)
			return 1;
	return 0;
}

static void
assert_no_planted_secret(const char *what)
{
	size_t i;

	for (i = 0; i < 3; i++)
		ck_assert_msg(strstr(what, planted[i][1]) == NULL,
		    "%s (planted in the caller's environment) reached the "
		    "command",
		    planted[i][0]);
}

START_TEST(test_exec_env_is_the_built_one)
{
	struct overrides ov;
	char **env, **envp;
	size_t i;

	plant();
	env = built_env(&ov);
	envp = seatbelt_exec_env(env, RUN_TMPDIR);
	for (i = 0; envp[i] != NULL; i++) {
		assert_no_planted_secret(envp[i]);
		ck_assert_msg(
		    wanted(envp[i], want_env), "unexpected %s", envp[i]);
	}
	for (i = 0; want_env[i] != NULL; i++)
		ck_assert_str_eq(envp[i], want_env[i]);
	ck_assert_ptr_null(envp[i]);
	/* The built one is left as it was (the Linux runner's). */
	ck_assert_str_eq(env[1], "HOME=/tmp");
	ck_assert_str_eq(env[2], "TMPDIR=/tmp");
	strv_free(envp);
	/* A HOME the caller asked for is kept; TMPDIR is always the run's. */
	env_put(&env, "HOME=/Users/dev/agent", 1);
	env_put(&env, "TMPDIR=/elsewhere", 1);
	envp = seatbelt_exec_env(env, RUN_TMPDIR);
	ck_assert_str_eq(envp[1], "HOME=/Users/dev/agent");
	ck_assert_str_eq(envp[2], "TMPDIR=" RUN_TMPDIR);
	strv_free(envp);
	strv_free(env);
	overrides_free(&ov);
}
END_TEST

/*
 * The hand-off for real: a stand-in for /usr/bin/sandbox-exec that checks
 * its "-p PROFILE" and runs the command, env(1), in the child of a
 * process whose own environment holds the planted tokens.
 */
START_TEST(test_exec_handoff_passes_only_the_built_env)
{
	static const char fake[] =
	    "#!/bin/sh\n"
	    "[ \"$1\" = -p ] && [ \"$2\" = '(version 1)' ] "
	    "|| exit 3\n"
	    "shift 2\nexec \"$@\"\n";
	char dir[] = "/tmp/test_seatbelt.XXXXXX", real[PATH_MAX];
	char sbx[PATH_MAX + 32], out[8192], *line, *save;
	char *argv[] = { "/usr/bin/env", NULL };
	struct overrides ov;
	char **env;
	FILE *fp;
	size_t len = 0, nwant = 0, ngot = 0;
	ssize_t r;
	pid_t pid;
	int fds[2], status, pwd = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_ptr_nonnull(realpath(dir, real));
	snprintf(sbx, sizeof(sbx), "%s/sandbox-exec", real);
	ck_assert_ptr_nonnull(fp = fopen(sbx, "w"));
	fputs(fake, fp);
	fclose(fp);
	ck_assert_int_eq(chmod(sbx, 0755), 0);
	plant();
	env = built_env(&ov);
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_ne(pid = fork(), -1);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		(void)seatbelt_exec_handoff(
		    sbx, "(version 1)", real, argv, env, RUN_TMPDIR);
		_exit(99);
	}
	close(fds[1]);
	while (len < sizeof(out) - 1 &&
	    (r = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)r;
	out[len] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the stand-in for sandbox-exec failed: %d", status);
	assert_no_planted_secret(out);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		/* The stand-in's shell adds its directory: the workspace. */
		if (strncmp(line, "PWD=", 4) == 0) {
			ck_assert_str_eq(line + 4, real);
			pwd = 1;
			continue;
		}
		ck_assert_msg(wanted(line, want_env), "the command got %.*s",
		    (int)strcspn(line, "="), line);
		ngot++;
	}
	for (nwant = 0; want_env[nwant] != NULL; nwant++)
		;
	ck_assert_uint_eq(ngot, nwant);
	ck_assert(pwd);
	unlink(sbx);
	rmdir(real);
	strv_free(env);
	overrides_free(&ov);
}
END_TEST

/* What needs a bind or the egress proxy is refused on macOS, by name. */
START_TEST(test_exec_overrides_refused_on_macos)
{
	static const struct {
		enum override_kind k;
		const char *arg, *flag;
	} refused[] = {
		{ OVERRIDE_RW, "/usr", "--rw /usr: not on macOS" },
		{ OVERRIDE_RO, "/usr", "--ro /usr: not on macOS" },
		{ OVERRIDE_ALLOW_HOST, "example.com",
		    "--allow-host example.com:443: not on macOS" },
	};
	struct overrides ov;
	char err[256];
	size_t i;

	overrides_init(&ov);
	ck_assert_int_eq(overrides_add(&ov, OVERRIDE_ENV, "A=b", "", getenv,
			     err, sizeof(err)),
	    0);
	ck_assert_int_eq(overrides_check_seatbelt(&ov, err, sizeof(err)), 0);
	overrides_free(&ov);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		overrides_init(&ov);
		ck_assert_int_eq(
		    overrides_add(&ov, refused[i].k, refused[i].arg, "", getenv,
			err, sizeof(err)),
		    0);
		err[0] = '\0';
		ck_assert_int_eq(
		    overrides_check_seatbelt(&ov, err, sizeof(err)),
		    AL_ERR_DENIED);
		ck_assert_msg(
		    strncmp(err, refused[i].flag, strlen(refused[i].flag)) == 0,
		    "%s", err);
		overrides_free(&ov);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("seatbelt");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_canonical_paths);
	tcase_add_test(tc, test_default_policy_matches_golden_profile);
	tcase_add_test(tc, test_git_is_protected_at_any_depth);
	tcase_add_test(tc, test_git_hooks_are_protected);
	tcase_add_test(tc, test_hook_manager_configs_at_any_depth);
	tcase_add_test(tc, test_protected_patterns_and_ancestors);
	tcase_add_test(tc, test_parameters_when_run_values_are_unknown);
	tcase_add_test(tc, test_protected_globs_match_what_fnmatch_does);
	tcase_add_test(tc, test_run_secrets_are_denied);
	tcase_add_test(tc, test_bad_inputs_are_refused);
	tcase_add_test(tc, test_agent_home_entries_are_denied);
	tcase_add_test(tc, test_exec_env_is_the_built_one);
	tcase_add_test(tc, test_exec_handoff_passes_only_the_built_env);
	tcase_add_test(tc, test_exec_overrides_refused_on_macos);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
