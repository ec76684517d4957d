/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Unit tests for policy/yamledit: each row is a file, one edit, and the
 * exact text it must give (or the error it must refuse with, leaving the
 * text unchanged).  Everything not edited must stay byte for byte.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "common/errors.h"
#include "policy/manifest.h"
#include "policy/udiff.h"
#include "policy/yamledit.h"

enum op { SEQ, SET };

struct row {
	const char *name;
	const char *in;
	enum op op;
	const char *path[6]; /* NULL-terminated */
	const char *items[4]; /* SEQ: NULL-terminated; SET: [0] */
	const char *comment;
	int rc;
	const char *out; /* expected text (rc >= 0) */
	const char *err; /* substring of the error (rc < 0) */
};

static const struct row rows[] = {
	{ "block_sequence_gets_item_at_siblings_indent",
	    "sandbox:\n  readOnly:\n    - /opt/a   # first\n    - /opt/b\n"
	    "# trailing\ntools: []\n",
	    SEQ, { "sandbox", "readOnly", NULL }, { "/opt/c", NULL }, "why", 1,
	    "sandbox:\n  readOnly:\n    - /opt/a   # first\n    - /opt/b\n"
	    "    # why\n    - /opt/c\n# trailing\ntools: []\n",
	    NULL },
	{ "indentless_block_sequence",
	    "sandbox:\n  readOnly:\n  - /opt/a\n  landlock: true\n", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/opt/c", NULL }, NULL, 1,
	    "sandbox:\n  readOnly:\n  - /opt/a\n  - /opt/c\n"
	    "  landlock: true\n",
	    NULL },
	{ "flow_sequence_gets_item_before_bracket",
	    "sandbox:\n  readOnly: [/opt/a, \"/opt/b\"]  # keep me\n", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/opt/c", NULL }, "why", 1,
	    "sandbox:\n  # why\n  readOnly: [/opt/a, \"/opt/b\", /opt/c]"
	    "  # keep me\n",
	    NULL },
	{ "empty_flow_sequence", "sandbox: { readOnly: [] }\n", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/x", NULL }, NULL, 1,
	    "sandbox: { readOnly: [/x] }\n", NULL },
	{ "flow_keeps_double_quotes_of_siblings",
	    "tools:\n  - name: f\n    network: [\"a.example:443\"]\n", SEQ,
	    { "tools", "[0]", "network", NULL }, { "b.example:443", NULL },
	    NULL, 1,
	    "tools:\n  - name: f\n    network: [\"a.example:443\", "
	    "\"b.example:443\"]\n",
	    NULL },
	{ "flow_quotes_a_colon_value", "tools:\n  - name: f\n    network: []\n",
	    SEQ, { "tools", "[0]", "network", NULL }, { "b.example:443", NULL },
	    NULL, 1, "tools:\n  - name: f\n    network: [\"b.example:443\"]\n",
	    NULL },
	{ "single_quoted_siblings_stay_single", "a:\n  - 'x'\n", SEQ,
	    { "a", NULL }, { "it's", NULL }, NULL, 1,
	    "a:\n  - 'x'\n  - 'it''s'\n", NULL },
	{ "present_item_is_not_added_twice", "sandbox:\n  readOnly: [/opt/a]\n",
	    SEQ, { "sandbox", "readOnly", NULL }, { "/opt/a", "/opt/a", NULL },
	    "why", 0, "sandbox:\n  readOnly: [/opt/a]\n", NULL },
	{ "missing_key_added_under_parent_mapping",
	    "sandbox:\n  # the sandbox\n  landlock: true\n  limits:\n"
	    "    memoryMb: 512\ntools: []\n",
	    SEQ, { "sandbox", "allowSyscalls", NULL }, { "keyctl", NULL },
	    "why", 1,
	    "sandbox:\n  # the sandbox\n  landlock: true\n  limits:\n"
	    "    memoryMb: 512\n  # why\n  allowSyscalls:\n    - keyctl\n"
	    "tools: []\n",
	    NULL },
	{ "missing_parent_mapping_is_created", "# top\ntools: []\n", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/srv/data", NULL }, "why", 1,
	    "# top\ntools: []\n# why\nsandbox:\n  readOnly:\n"
	    "    - /srv/data\n",
	    NULL },
	{ "missing_key_in_a_sequence_item_mapping",
	    "tools:\n  - name: a\n    input: {}\n  - name: b\n", SEQ,
	    { "tools", "[0]", "network", NULL }, { "x.org:443", NULL }, NULL, 1,
	    "tools:\n  - name: a\n    input: {}\n    network:\n"
	    "      - x.org:443\n  - name: b\n",
	    NULL },
	{ "missing_key_in_a_flow_mapping", "sandbox: {landlock: true}\n", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/a", NULL }, NULL, 1,
	    "sandbox: {landlock: true, readOnly: [/a]}\n", NULL },
	{ "crlf_file_keeps_crlf",
	    "sandbox:\r\n  readOnly:\r\n    - /a\r\nx: 1\r\n", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/b", NULL }, "why", 1,
	    "sandbox:\r\n  readOnly:\r\n    - /a\r\n    # why\r\n"
	    "    - /b\r\nx: 1\r\n",
	    NULL },
	{ "cr_only_file_keeps_cr", "a: 1\rb: [x]\r", SEQ, { "c", NULL },
	    { "z", NULL }, "why", 1, "a: 1\rb: [x]\r# why\rc:\r  - z\r", NULL },
	{ "tagged_mapping_key_column_not_tag_column",
	    "sandbox: !!map\n  landlock: true\n", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/a", NULL }, NULL, 1,
	    "sandbox: !!map\n  landlock: true\n  readOnly:\n    - /a\n", NULL },
	{ "explicit_key_column_is_the_question_mark", "? a\n: 1\n", SEQ,
	    { "b", NULL }, { "z", NULL }, NULL, 1, "? a\n: 1\nb:\n  - z\n",
	    NULL },
	{ "file_without_trailing_newline", "sandbox:\n  readOnly:\n    - /a",
	    SEQ, { "sandbox", "readOnly", NULL }, { "/b", NULL }, NULL, 1,
	    "sandbox:\n  readOnly:\n    - /a\n    - /b\n", NULL },
	{ "missing_key_at_end_without_newline", "tools: []", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/b", NULL }, NULL, 1,
	    "tools: []\nsandbox:\n  readOnly:\n    - /b\n", NULL },
	{ "anchors_elsewhere_are_kept",
	    "base: &lim {memoryMb: 1}\nother: *lim\nsandbox:\n"
	    "  readOnly: [/a]\n",
	    SEQ, { "sandbox", "readOnly", NULL }, { "/b", NULL }, NULL, 1,
	    "base: &lim {memoryMb: 1}\nother: *lim\nsandbox:\n"
	    "  readOnly: [/a, /b]\n",
	    NULL },
	{ "anchored_sequence_is_refused",
	    "ro: &ro [/a]\nsandbox:\n  readOnly: *ro\n", SEQ, { "ro", NULL },
	    { "/b", NULL }, NULL, AL_ERR_UNSUPPORTED, NULL, "anchor" },
	{ "path_through_an_alias_is_refused",
	    "ro: &ro [/a]\nsandbox:\n  readOnly: *ro\n", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/b", NULL }, NULL,
	    AL_ERR_UNSUPPORTED, NULL, "alias" },
	{ "null_value_is_refused", "sandbox:\n  readOnly:\n", SEQ,
	    { "sandbox", "readOnly", NULL }, { "/b", NULL }, NULL,
	    AL_ERR_UNSUPPORTED, NULL, "null" },
	{ "missing_sequence_index_is_refused", "tools:\n  - name: a\n", SEQ,
	    { "tools", "[3]", "network", NULL }, { "x:1", NULL }, NULL,
	    AL_ERR_NOT_FOUND, NULL, "no item [3]" },
	{ "value_needing_quotes_is_double_quoted", "a:\n  - x\n", SEQ,
	    { "a", NULL }, { "/path with # hash", NULL }, NULL, 1,
	    "a:\n  - x\n  - \"/path with # hash\"\n", NULL },
	{ "yaml_words_are_quoted", "a: [x]\n", SEQ, { "a", NULL },
	    { "yes", NULL }, NULL, 1, "a: [x, \"yes\"]\n", NULL },
	{ "comment_breaks_are_flattened", "a:\n  - x\n", SEQ, { "a", NULL },
	    { "z", NULL }, "one\ntwo", 1, "a:\n  - x\n  # one two\n  - z\n",
	    NULL },
	/* YAML 1.1's other breaks end a comment too: what followed would
	   be an item, shown on the comment's line. */
	{ "comment_unicode_breaks_are_flattened", "a:\n  - x\n", SEQ,
	    { "a", NULL }, { "z", NULL },
	    "c\xc2\x85  - /root/.ssh\xe2\x80\xa8  - l\xe2\x80\xa9  - p\xc2\x9b",
	    1, "a:\n  - x\n  # c   - /root/.ssh   - l   - p?\n  - z\n", NULL },
	{ "value_unicode_breaks_are_escaped", "a: ['x']\n", SEQ, { "a", NULL },
	    { "/n\xc2\x85/l\xe2\x80\xa8/p\xe2\x80\xa9/c\xc2\x9b", NULL }, NULL,
	    1, "a: ['x', \"/n\\x85/l\\L/p\\P/c\\x9b\"]\n", NULL },
	{ "set_replaces_only_the_scalar",
	    "sandbox:\n  limits: { memoryMb: 512, processes: 64 }  # lim\n",
	    SET, { "sandbox", "limits", "memoryMb", NULL }, { "1024" }, "why",
	    1,
	    "sandbox:\n  # why\n  limits: { memoryMb: 1024, processes: 64 }"
	    "  # lim\n",
	    NULL },
	{ "set_block_value", "sandbox:\n  limits:\n    memoryMb: 512 # mb\n",
	    SET, { "sandbox", "limits", "memoryMb", NULL }, { "1024" }, NULL, 1,
	    "sandbox:\n  limits:\n    memoryMb: 1024 # mb\n", NULL },
	{ "set_same_value_is_no_change", "a: 5\n", SET, { "a", NULL }, { "5" },
	    "why", 0, "a: 5\n", NULL },
	{ "set_missing_key_creates_it", "sandbox:\n  landlock: true\n", SET,
	    { "sandbox", "limits", "memoryMb", NULL }, { "2048" }, "why", 1,
	    "sandbox:\n  landlock: true\n  # why\n  limits:\n"
	    "    memoryMb: 2048\n",
	    NULL },
	{ "set_on_a_list_is_refused", "a: [1]\n", SET, { "a", NULL }, { "2" },
	    NULL, AL_ERR_UNSUPPORTED, NULL, "not a value" },
	{ "utf8_before_the_edit_counts_bytes",
	    "# caf\xc3\xa9\nname: \"\xc3\xa9t\xc3\xa9\"\nlist: [\xc3\xa9, b]\n",
	    SEQ, { "list", NULL }, { "c", NULL }, NULL, 1,
	    "# caf\xc3\xa9\nname: \"\xc3\xa9t\xc3\xa9\"\n"
	    "list: [\xc3\xa9, b, c]\n",
	    NULL },
	{ "block_scalar_before_the_end", "a:\n  - x\ndesc: |\n  text\n  more\n",
	    SEQ, { "b", NULL }, { "y", NULL }, NULL, 1,
	    "a:\n  - x\ndesc: |\n  text\n  more\nb:\n  - \"y\"\n", NULL },
	{ NULL, NULL, SEQ, { NULL }, { NULL }, NULL, 0, NULL, NULL }
};

#define NROWS (sizeof(rows) / sizeof(rows[0]) - 1)

START_TEST(test_yamledit_rows)
{
	const struct row *r = &rows[_i];
	struct yamledit *ye;
	char err[512] = "";
	const char *text;
	size_t np = 0, ni = 0, len;
	int rc;

	while (r->path[np] != NULL)
		np++;
	while (r->op == SEQ && r->items[ni] != NULL)
		ni++;
	ck_assert_msg(
	    yamledit_new(r->in, strlen(r->in), &ye, err, sizeof(err)) == 0,
	    "%s: parse: %s", r->name, err);
	if (r->op == SEQ)
		rc = yamledit_seq_add(ye, r->path, np, r->items, ni, r->comment,
		    err, sizeof(err));
	else
		rc = yamledit_set_scalar(
		    ye, r->path, np, r->items[0], r->comment, err, sizeof(err));
	text = yamledit_text(ye, &len);
	ck_assert_msg(
	    rc == r->rc, "%s: rc %d, want %d (%s)", r->name, rc, r->rc, err);
	if (rc >= 0)
		ck_assert_msg(strcmp(text, r->out) == 0,
		    "%s: got\n%s\nwant\n%s", r->name, text, r->out);
	else {
		ck_assert_msg(strstr(err, r->err) != NULL,
		    "%s: error \"%s\" lacks \"%s\"", r->name, err, r->err);
		ck_assert_msg(strcmp(text, r->in) == 0,
		    "%s: a refused edit changed the text", r->name);
	}
	yamledit_free(ye);
}
END_TEST

START_TEST(test_yamledit_refuses_bad_input)
{
	struct yamledit *ye = NULL;
	char err[256];

	ck_assert_int_eq(
	    yamledit_new("a: [", 4, &ye, err, sizeof(err)), AL_ERR_FORMAT);
	ck_assert_ptr_null(ye);
	ck_assert_int_eq(yamledit_new("- a\n", 4, &ye, err, sizeof(err)),
	    AL_ERR_UNSUPPORTED);
	ck_assert_int_eq(
	    yamledit_new("a: 1\n---\nb: 2\n", 14, &ye, err, sizeof(err)),
	    AL_ERR_UNSUPPORTED);
	ck_assert(strstr(err, "more than one") != NULL);
	ck_assert_int_eq(
	    yamledit_new("a: 1\0", 5, &ye, err, sizeof(err)), AL_ERR_FORMAT);
}
END_TEST

START_TEST(test_yamledit_edits_build_on_each_other)
{
	static const char *const ro[] = { "sandbox", "readOnly" };
	static const char *const sc[] = { "sandbox", "allowSyscalls" };
	static const char *const one[] = { "/a" }, *const two[] = { "/b" };
	static const char *const k[] = { "keyctl" };
	struct yamledit *ye;
	char err[256];
	const char *in = "tools: []\n";

	ck_assert_int_eq(
	    yamledit_new(in, strlen(in), &ye, err, sizeof(err)), 0);
	ck_assert_int_eq(
	    yamledit_seq_add(ye, ro, 2, one, 1, "r1", err, sizeof(err)), 1);
	ck_assert_int_eq(
	    yamledit_seq_add(ye, ro, 2, two, 1, "r2", err, sizeof(err)), 1);
	ck_assert_int_eq(
	    yamledit_seq_add(ye, sc, 2, k, 1, "r3", err, sizeof(err)), 1);
	ck_assert_str_eq(yamledit_text(ye, NULL),
	    "tools: []\n# r1\nsandbox:\n  readOnly:\n    - /a\n    # r2\n"
	    "    - /b\n  # r3\n  allowSyscalls:\n    - keyctl\n");
	ck_assert_int_eq(
	    yamledit_find_item(ye, (const char *[]){ "tools" }, 1, "name", "x"),
	    -1);
	yamledit_free(ye);
}
END_TEST

START_TEST(test_yamledit_finds_items_and_scalars)
{
	const char *in = "tools:\n  - name: a\n  - name: b\n    timeoutMs: 5\n";
	static const char *const tools[] = { "tools" };
	static const char *const t[] = { "tools", "[1]", "timeoutMs" };
	struct yamledit *ye;
	char err[256];

	ck_assert_int_eq(
	    yamledit_new(in, strlen(in), &ye, err, sizeof(err)), 0);
	ck_assert_int_eq(yamledit_find_item(ye, tools, 1, "name", "b"), 1);
	ck_assert_int_eq(yamledit_find_item(ye, tools, 1, "name", "c"), -1);
	ck_assert_str_eq(yamledit_get_scalar(ye, t, 3), "5");
	ck_assert_ptr_null(yamledit_get_scalar(ye, tools, 1));
	yamledit_free(ye);
}
END_TEST

/*
 * The editor on the project's own manifests: the edits suggest makes
 * give a file the manifest loader accepts, with the new values in it, and
 * remove no line but the one whose value changed.
 */
START_TEST(test_yamledit_real_manifests_still_load)
{
	static const char *const files[] = { "tests/golden/full.yaml",
		"tests/golden/workboard.yaml", "contrib/manifests/default.yaml",
		"contrib/manifests/shell-rules.yaml",
		"tests/suggest/layers.yaml" };
	static const char *const ro[] = { "sandbox", "readOnly" };
	static const char *const mem[] = { "sandbox", "limits", "memoryMb" };
	static const char *const item[] = { "/srv" };
	const char *top = getenv("top_srcdir"), *text, *p;
	char path[4096], err[1024], *buf, *d;
	struct manifest *m;
	struct yamledit *ye;
	size_t i, j, len, n, minus;
	FILE *fp;
	int found;

	if (top == NULL)
		top = ".";
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", top, files[i]);
		ck_assert_msg((fp = fopen(path, "r")) != NULL, "%s", path);
		buf = calloc(1, 1 << 20);
		len = fread(buf, 1, (1 << 20) - 1, fp);
		fclose(fp);
		ck_assert_msg(
		    yamledit_new(buf, len, &ye, err, sizeof(err)) == 0,
		    "%s: %s", path, err);
		ck_assert_int_ge(yamledit_seq_add(ye, ro, 2, item, 1,
				     "airlock suggest: test", err, sizeof(err)),
		    0);
		ck_assert_int_ge(yamledit_set_scalar(ye, mem, 3, "4096",
				     "airlock suggest: test", err, sizeof(err)),
		    0);
		text = yamledit_text(ye, &n);
		ck_assert_msg(manifest_load_buffer(
				  path, text, n, &m, err, sizeof(err)) == 0,
		    "%s: the edited manifest does not load: %s\n%s", path, err,
		    text);
		ck_assert_int_eq(m->sandbox.limits.memory_mb, 4096);
		for (found = 0, j = 0; j < m->sandbox.nread_only; j++)
			if (strcmp(m->sandbox.read_only[j], "/srv") == 0)
				found = 1;
		ck_assert_msg(found, "%s: /srv is not in readOnly", path);
		manifest_free(m);
		ck_assert_int_eq(
		    udiff_make(buf, len, text, n, "a", "b", &d), 0);
		for (minus = 0, p = d; (p = strstr(p, "\n-")) != NULL; p++)
			minus++;
		ck_assert_msg(
		    minus <= 2, "%s: %zu lines removed:\n%s", path, minus, d);
		free(d);
		yamledit_free(ye);
		free(buf);
	}
}
END_TEST

static Suite *
yamledit_suite(void)
{
	Suite *s = suite_create("yamledit");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_yamledit_rows, 0, NROWS);
	tcase_add_test(tc, test_yamledit_refuses_bad_input);
	tcase_add_test(tc, test_yamledit_edits_build_on_each_other);
	tcase_add_test(tc, test_yamledit_finds_items_and_scalars);
	tcase_add_test(tc, test_yamledit_real_manifests_still_load);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(yamledit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
