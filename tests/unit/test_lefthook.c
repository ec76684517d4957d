/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Unit tests for policy/lefthook.c: the paths a lefthook config extends
 * with or takes scripts from, in each of its formats (YAML, JSON, JSON
 * with comments, TOML); other keys, nested keys and tables passed over;
 * text that cannot be read refused.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <check.h>

#include "policy/lefthook.h"

/* Collects "e:PATH" / "s:PATH" / "r:PATH", comma-separated. */
static int
collect(void *arg, enum lefthook_key key, const char *value)
{
	char *out = arg;
	size_t n = strlen(out);

	snprintf(
	    out + n, 1024 - n, "%s%c:%s", n > 0 ? "," : "", "esr"[key], value);
	return 0;
}

static int
paths(const char *text, const char *ext, char *out)
{
	char err[256];
	int rc;

	out[0] = '\0';
	rc = lefthook_paths(
	    text, strlen(text), ext, collect, out, err, sizeof(err));
	if (rc != 0)
		snprintf(out, 1024, "!%s", err);
	return rc;
}

START_TEST(test_yaml)
{
	char out[1024];

	ck_assert_int_eq(
	    paths("# lefthook.yml\n"
		  "extends:\n  - ci/shared.yml\n  - /abs/x.yml\n"
		  "  - projects/*/lh.yml\n"
		  "source_dir: tools/lh/\nsource_dir_local: .mine/\n"
		  "pre-commit:\n  commands:\n    extends: {run: nothing}\n"
		  "    lint:\n      run: yarn lint\n",
		"yml", out),
	    0);
	ck_assert_str_eq(out,
	    "e:ci/shared.yml,e:/abs/x.yml,"
	    "e:projects/*/lh.yml,s:tools/lh/,s:.mine/");
	/* "rc": the file the hooks source, at the top level only. */
	ck_assert_int_eq(
	    paths("rc: ./.lefthookrc\npre-commit:\n  rc: no\n", "yml", out), 0);
	ck_assert_str_eq(out, "r:./.lefthookrc");
	ck_assert_int_eq(paths("rc = \"mine/rc.sh\"\n", "toml", out), 0);
	ck_assert_str_eq(out, "r:mine/rc.sh");
	ck_assert_int_eq(paths("{\"rc\": \"~/.lefthookrc\"}", "json", out), 0);
	ck_assert_str_eq(out, "r:~/.lefthookrc");
	/* A single string; an anchor's value through its alias. */
	ck_assert_int_eq(paths("x: &a one.yml\nextends: *a\n", "yaml", out), 0);
	ck_assert_str_eq(out, "e:one.yml");
	/* A merge key brings them in (lefthook's YAML reader honours it),
	 * a mapping or a list of them. */
	ck_assert_int_eq(paths("base: &b\n  extends: [m.yml]\n"
			       "more: &c\n  source_dir: sd\n<<: *b\n",
			     "yml", out),
	    0);
	ck_assert_str_eq(out, "e:m.yml");
	ck_assert_int_eq(
	    paths("b: &b {extends: m.yml}\nc: &c {source_dir: sd}\n"
		  "<<: [*b, *c]\n",
		"yml", out),
	    0);
	ck_assert_str_eq(out, "e:m.yml,s:sd");
	/* Merges past 8 deep, or a mapping that merges itself: refused. */
	ck_assert_int_eq(
	    paths(
		"a: &a {x: 1}\nb: &b {<<: *a}\nc: &c {<<: *b}\n"
		"d: &d {<<: *c}\ne: &e {<<: *d}\nf: &f {<<: *e}\ng: &g {<<: *f}\n"
		"h: &h {<<: *g}\ni: &i {<<: *h}\n<<: *i\n",
		"yml", out),
	    -1);
	/* None of them. */
	ck_assert_int_eq(paths("pre-push:\n  commands: {}\n", "yml", out), 0);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(paths("", "yml", out), 0);
	ck_assert_int_eq(paths("extends: [a.yml\n", "yml", out), -1);
}
END_TEST

START_TEST(test_json)
{
	char out[1024];

	ck_assert_int_eq(
	    paths("{\n\t\"extends\": [\"a.json\", \"b\\/c.json\"],"
		  "\n\t\"source_dir\": \"s\",\n\t\"pre-commit\": {\"extends\": "
		  "\"no\"}\n}\n",
		"json", out),
	    0);
	ck_assert_str_eq(out, "e:a.json,e:b/c.json,s:s");
	/* With comments, which are not JSON; a "//" in a string stays. */
	ck_assert_int_eq(
	    paths("// the team's\n{\n  /* shared */ \"extends\":"
		  " [\"x//y.jsonc\"], // more\n  \"source_dir\": \"d\"\n}\n",
		"jsonc", out),
	    0);
	ck_assert_str_eq(out, "e:x//y.jsonc,s:d");
	ck_assert_int_eq(paths("{\"extends\": [\"a\"", "json", out), -1);
}
END_TEST

START_TEST(test_toml)
{
	char out[1024];

	ck_assert_int_eq(
	    paths(
		"# lefthook.toml\n"
		"min_version = \"1.5\"\n"
		"extends = [\n  \"ci/a.toml\", # one\n  'lit\\eral.toml',\n]\n"
		"description = \"\"\"\n[not a table]\nextends = \"no\"\n\"\"\"\n"
		"source_dir = \"tools/lh\"\n"
		"other.extends = \"no\"\n"
		"colors = { extends = \"no\" }\n"
		"[pre-commit.commands.lint]\nrun = \"x\"\n"
		"extends = \"after a table: not top-level\"\n",
		"toml", out),
	    0);
	ck_assert_str_eq(out, "e:ci/a.toml,e:lit\\eral.toml,s:tools/lh");
	/* Quoted key; escapes. */
	ck_assert_int_eq(
	    paths("\"extends\" = \"a\\\"b.toml\"\n", "toml", out), 0);
	ck_assert_str_eq(out, "e:a\"b.toml");
	/* Cannot be read: refused, not passed over. */
	ck_assert_int_eq(paths("extends = [\"a.toml\"\n", "toml", out), -1);
	ck_assert_int_eq(paths("extends = \"a\n", "toml", out), -1);
	ck_assert_int_eq(paths("extends = \"\\u0041\"\n", "toml", out), -1);
	ck_assert_int_eq(paths("just words\n", "toml", out), -1);
	ck_assert_int_eq(paths("extends = \"a\" \"b\"\n", "toml", out), -1);
	ck_assert_int_eq(paths("x", "ini", out), -1);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("lefthook");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_yaml);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_toml);
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
