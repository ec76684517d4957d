/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Unit tests for policy/types.c: validation and JSON Schema, table-driven. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "common/errors.h"
#include "policy/manifest.h"
#include "policy/types.h"

static const char types_yaml[] =
    "types:\n"
    "  shortName: { type: string, minLength: 2, maxLength: 8, pattern: \"[a-z]+\" }\n"
    "  pet: { type: string, pattern: \"cat|dog\" }\n"
    "  color: { type: string, enum: [red, green] }\n"
    "  percent: { type: integer, min: 0, max: 100 }\n"
    "  ratio: { type: number, min: 0, max: 1 }\n"
    "  names: { type: list, items: shortName, maxItems: 2 }\n"
    "  point: { type: object, fields: { x: integer, y: integer, label: \"string?\" } }\n"
    "  pointList: { type: list, items: point, maxItems: 3 }\n"
    "tools: []\n";

static struct manifest *m;

static void
setup(void)
{
	char err[512];

	if (manifest_load_buffer("types.yaml", types_yaml, strlen(types_yaml),
	    &m, err, sizeof(err)) != 0)
		ck_abort_msg("types.yaml: %s", err);
}

static void
teardown(void)
{
	manifest_free(m);
	m = NULL;
}

static int
only_unit_checks(const char *id, void *arg)
{
	(void)arg;
	return strncmp(id, "unit.", 5) == 0;
}

#define DIFF "diff --git a/x b/x\\n--- a/x\\n+++ b/x\\n@@ -1 +1 @@\\n-a\\n+b\\n"
#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* {type, JSON value, NULL if valid else a substring of the error} */
static const struct vrow {
	const char	*type;
	const char	*json;
	const char	*err;
} vrows[] = {
	{ "string", "\"abc\"", NULL },
	{ "string", "1", "/: expected a string" },
	{ "string", "\"a\\u0000b\"", "NUL byte" },
	{ "shortName", "\"abc\"", NULL },
	{ "shortName", "\"a\"", "shorter than 2 bytes" },
	{ "shortName", "\"abcdefghi\"", "longer than 8 bytes" },
	/* The pattern is matched against the whole value. */
	{ "shortName", "\"abc1\"", "does not match the pattern" },
	{ "shortName", "\"1abc\"", "does not match the pattern" },
	{ "pet", "\"dog\"", NULL },
	{ "pet", "\"cats\"", "does not match the pattern" },
	{ "pet", "\"hotdog\"", "does not match the pattern" },
	{ "color", "\"red\"", NULL },
	{ "color", "\"blue\"", "not one of the allowed values" },
	{ "integer", "5", NULL },
	{ "integer", "-9223372036854775808", NULL },
	{ "integer", "5.0", NULL },
	{ "integer", "5.5", "expected an integer" },
	{ "integer", "1e300", "integer out of range" },
	{ "integer", "9.3e18", "integer out of range" },
	{ "integer", "\"5\"", "expected an integer" },
	{ "integer", "true", "expected an integer" },
	{ "percent", "100", NULL },
	{ "percent", "101", "above the maximum 100" },
	{ "percent", "-1", "below the minimum 0" },
	{ "number", "1.5", NULL },
	{ "number", "\"x\"", "expected a number" },
	{ "ratio", "1.5", "above the maximum 1" },
	{ "boolean", "true", NULL },
	{ "boolean", "1", "expected a boolean" },
	{ "string_list", "[\"a\", \"b\"]", NULL },
	{ "string_list", "[\"a\", 1]", "/1: expected a string" },
	{ "string_list", "{}", "expected a list" },
	{ "sha256", "\"" SHA "\"", NULL },
	{ "sha256", "\"0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\"",
	    "not a sha256" },
	{ "sha256", "\"abc\"", "shorter than 64 bytes" },
	{ "workspace_relative_path", "\"src/a.c\"", NULL },
	{ "workspace_relative_path", "\"a/..b/c..\"", NULL },
	{ "workspace_relative_path", "\"/etc/passwd\"", "absolute path" },
	{ "workspace_relative_path", "\"a/../../b\"", "'..' component" },
	{ "workspace_relative_path", "\"..\"", "'..' component" },
	{ "workspace_relative_path", "\"a/..\"", "'..' component" },
	{ "workspace_relative_path", "\"\"", "shorter than 1 bytes" },
	{ "workspace_relative_path", "\"a\\u0000b\"", "NUL byte" },
	{ "unified_diff", "\"" DIFF "\"", NULL },
	{ "unified_diff", "\"rm -rf /\"", "not a unified diff" },
	{ "unified_diff", "\"--- a\\n+++ b\\n\"", "not a unified diff" },
	{ "approved_check", "\"unit.todo-transition\"", NULL },
	{ "approved_check", "\"deploy.prod\"", "not an approved check id" },
	{ "approved_check", "\"sh -c x\"", "not a check id" },
	{ "approved_or_rejected", "\"approved\"", NULL },
	{ "approved_or_rejected", "\"rejected\"", NULL },
	{ "approved_or_rejected", "\"maybe\"", "not one of the allowed values" },
	{ "names", "[\"ab\", \"cd\"]", NULL },
	{ "names", "[\"ab\", \"cd\", \"ef\"]", "more than 2 items" },
	{ "names", "[\"ab\", \"a\"]", "/1: shorter than 2 bytes" },
	{ "point", "{\"x\": 1, \"y\": 2}", NULL },
	{ "point", "{\"x\": 1, \"y\": 2, \"label\": \"p\"}", NULL },
	{ "point", "{\"x\": 1}", "/y: missing required field" },
	{ "point", "{\"x\": 1, \"y\": 2, \"z\": 3}", "/z: unknown field" },
	{ "point", "{\"x\": 1, \"y\": 2, \"a/b~\": 3}", "/a~1b~0: unknown field" },
	{ "point", "{\"x\": \"1\", \"y\": 2}", "/x: expected an integer" },
	{ "point", "[1, 2]", "expected an object" },
	{ "pointList", "[{\"x\": 1, \"y\": 2}, {\"x\": 1}]", "/1/y: missing required field" },
};

START_TEST(test_validate_accepts_and_refuses_values_by_type)
{
	const struct vrow *r = &vrows[_i];
	const struct type *t;
	json_error_t je;
	json_t *v;
	char err[512];
	int rc;

	ck_assert_msg((t = type_lookup(m->types, r->type)) != NULL, "%s",
	    r->type);
	v = json_loads(r->json, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	ck_assert_msg(v != NULL, "row %d: bad JSON %s", _i, r->json);
	rc = type_validate(t, v, only_unit_checks, NULL, err, sizeof(err));
	if (r->err == NULL)
		ck_assert_msg(rc == 0, "row %d (%s %s): %s", _i, r->type,
		    r->json, err);
	else {
		ck_assert_msg(rc == AL_ERR_TYPE, "row %d (%s %s) accepted", _i,
		    r->type, r->json);
		ck_assert_msg(strstr(err, r->err) != NULL,
		    "row %d: \"%s\" lacks \"%s\"", _i, err, r->err);
	}
	json_decref(v);
}
END_TEST

START_TEST(test_validate_bounds_default_string_and_list_sizes)
{
	const struct type *s = type_lookup(m->types, "string");
	const struct type *l = type_lookup(m->types, "string_list");
	char *big, err[256];
	json_t *v, *a;
	size_t i;

	big = malloc(TYPE_DEFAULT_MAX_STRING + 2);
	memset(big, 'a', TYPE_DEFAULT_MAX_STRING + 1);
	big[TYPE_DEFAULT_MAX_STRING + 1] = '\0';
	v = json_string(big);
	ck_assert_int_eq(type_validate(s, v, NULL, NULL, err, sizeof(err)),
	    AL_ERR_TYPE);
	ck_assert_ptr_nonnull(strstr(err, "longer than 262144 bytes"));
	json_decref(v);
	big[TYPE_DEFAULT_MAX_STRING] = '\0';
	v = json_string(big);
	ck_assert_int_eq(type_validate(s, v, NULL, NULL, err, sizeof(err)), 0);
	json_decref(v);
	free(big);

	a = json_array();
	for (i = 0; i <= TYPE_DEFAULT_MAX_ITEMS; i++)
		json_array_append_new(a, json_string("x"));
	ck_assert_int_eq(type_validate(l, a, NULL, NULL, err, sizeof(err)),
	    AL_ERR_TYPE);
	ck_assert_ptr_nonnull(strstr(err, "more than 1024 items"));
	json_array_remove(a, 0);
	ck_assert_int_eq(type_validate(l, a, NULL, NULL, err, sizeof(err)), 0);
	json_decref(a);
}
END_TEST

START_TEST(test_validate_refuses_integers_beyond_int64_at_parse)
{
	json_error_t je;

	/* jansson refuses these before they can reach type_validate. */
	ck_assert_ptr_null(json_loads("9223372036854775808", JSON_DECODE_ANY,
	    &je));
	ck_assert_ptr_null(json_loads("-9223372036854775809", JSON_DECODE_ANY,
	    &je));
}
END_TEST

START_TEST(test_validate_fields_checks_a_tool_input)
{
	const struct tool *t;
	json_t *v;
	char err[256];

	ck_assert_ptr_nonnull(m);
	{
		struct manifest *wb;
		static const char wbtext[] =
		    "tools:\n"
		    "  - name: read_file\n"
		    "    input: { path: workspace_relative_path, max: \"integer?\" }\n"
		    "    output: { content: string }\n"
		    "    sideEffect: none\n"
		    "    timeoutMs: 2000\n";

		ck_assert_int_eq(manifest_load_buffer("wb.yaml", wbtext,
		    strlen(wbtext), &wb, err, sizeof(err)), 0);
		t = manifest_tool(wb, "read_file");
		ck_assert_ptr_nonnull(t);
		v = json_pack("{s:s}", "path", "src/x.c");
		ck_assert_int_eq(type_validate_fields(t->input, t->ninput, v,
		    NULL, NULL, err, sizeof(err)), 0);
		json_decref(v);
		v = json_pack("{s:s,s:i}", "path", "src/x.c", "max", 3);
		ck_assert_int_eq(type_validate_fields(t->input, t->ninput, v,
		    NULL, NULL, err, sizeof(err)), 0);
		json_decref(v);
		v = json_pack("{s:s}", "path", "../x");
		ck_assert_int_eq(type_validate_fields(t->input, t->ninput, v,
		    NULL, NULL, err, sizeof(err)), AL_ERR_TYPE);
		ck_assert_str_eq(err, "/path: not a workspace-relative path: "
		    "'..' component");
		json_decref(v);
		v = json_pack("{}");
		ck_assert_int_eq(type_validate_fields(t->input, t->ninput, v,
		    NULL, NULL, err, sizeof(err)), AL_ERR_TYPE);
		ck_assert_str_eq(err, "/path: missing required field");
		json_decref(v);
		v = json_pack("[]");
		ck_assert_int_eq(type_validate_fields(t->input, t->ninput, v,
		    NULL, NULL, err, sizeof(err)), AL_ERR_TYPE);
		json_decref(v);
		manifest_free(wb);
	}
}
END_TEST

/* {type, expected JSON Schema} */
static const struct srow {
	const char	*type;
	const char	*schema;
} srows[] = {
	{ "string", "{\"type\":\"string\",\"maxLength\":262144}" },
	{ "integer", "{\"type\":\"integer\"}" },
	{ "number", "{\"type\":\"number\"}" },
	{ "boolean", "{\"type\":\"boolean\"}" },
	{ "string_list", "{\"type\":\"array\",\"items\":{\"type\":\"string\","
	    "\"maxLength\":262144},\"maxItems\":1024}" },
	{ "sha256", "{\"type\":\"string\",\"minLength\":64,\"maxLength\":64,"
	    "\"pattern\":\"^[0-9a-f]{64}$\",\"description\":\"SHA-256 digest: "
	    "64 lowercase hex digits\"}" },
	{ "approved_or_rejected", "{\"type\":\"string\",\"maxLength\":16,"
	    "\"enum\":[\"approved\",\"rejected\"]}" },
	{ "shortName", "{\"type\":\"string\",\"minLength\":2,\"maxLength\":8,"
	    "\"pattern\":\"^([a-z]+)$\"}" },
	{ "color", "{\"type\":\"string\",\"maxLength\":262144,"
	    "\"enum\":[\"red\",\"green\"]}" },
	{ "percent", "{\"type\":\"integer\",\"minimum\":0,\"maximum\":100}" },
	{ "ratio", "{\"type\":\"number\",\"minimum\":0.0,\"maximum\":1.0}" },
	{ "names", "{\"type\":\"array\",\"items\":{\"type\":\"string\","
	    "\"minLength\":2,\"maxLength\":8,\"pattern\":\"^([a-z]+)$\"},"
	    "\"maxItems\":2}" },
	{ "point", "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":"
	    "\"integer\"},\"y\":{\"type\":\"integer\"},\"label\":{\"type\":"
	    "\"string\",\"maxLength\":262144}},\"required\":[\"x\",\"y\"],"
	    "\"additionalProperties\":false}" },
};

START_TEST(test_schema_is_derived_from_the_type)
{
	const struct srow *r = &srows[_i];
	json_t *got, *want;
	json_error_t je;
	char *s;

	got = type_schema(type_lookup(m->types, r->type));
	want = json_loads(r->schema, 0, &je);
	ck_assert_msg(want != NULL, "row %d: bad JSON: %s", _i, je.text);
	ck_assert_ptr_nonnull(got);
	s = json_dumps(got, JSON_COMPACT);
	ck_assert_msg(json_equal(got, want), "row %d (%s): got %s", _i,
	    r->type, s);
	free(s);
	json_decref(got);
	json_decref(want);
}
END_TEST

START_TEST(test_schema_describes_workspace_paths)
{
	json_t *s = type_schema(type_lookup(m->types,
	    "workspace_relative_path"));

	ck_assert_int_eq(json_integer_value(json_object_get(s, "maxLength")),
	    4096);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(s,
	    "description")), "relative to the workspace root"));
	json_decref(s);
}
END_TEST

START_TEST(test_table_refuses_duplicate_names)
{
	struct type_table *tt = type_table_new();
	struct type *t = calloc(1, sizeof(*t));

	t->name = strdup("string");
	ck_assert_int_eq(type_table_add(tt, t), AL_ERR_CONFLICT);
	type_free(t);
	ck_assert_uint_eq(type_table_count(tt), 10);
	ck_assert_str_eq(type_table_at(tt, 0)->name, "string");
	ck_assert_ptr_null(type_table_at(tt, 10));
	type_table_free(tt);
	type_table_free(NULL);
}
END_TEST

START_TEST(test_set_pattern_reports_bad_regex)
{
	struct type t;
	char err[256];

	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(type_set_pattern(&t, "a(b", err, sizeof(err)),
	    AL_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err, "bad pattern"));
	free(t.pattern);
}
END_TEST

START_TEST(test_path_normalize_gives_one_spelling)
{
	static const char *const rows[][2] = {
		{ "requirements.txt", "requirements.txt" },
		{ "./requirements.txt", "requirements.txt" },
		{ ".//deps/./package.json/", "deps/package.json" },
		{ "a//b///c", "a/b/c" },
		{ ".hidden/.x", ".hidden/.x" },
		{ "./", "" },
		{ ".", "" },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", rows[i][0]);
		ck_assert_uint_eq(type_path_normalize(buf), strlen(rows[i][1]));
		ck_assert_str_eq(buf, rows[i][1]);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("types");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_validate_accepts_and_refuses_values_by_type,
	    0, sizeof(vrows) / sizeof(vrows[0]));
	tcase_add_test(tc, test_validate_bounds_default_string_and_list_sizes);
	tcase_add_test(tc, test_validate_refuses_integers_beyond_int64_at_parse);
	tcase_add_test(tc, test_validate_fields_checks_a_tool_input);
	tcase_add_loop_test(tc, test_schema_is_derived_from_the_type, 0,
	    sizeof(srows) / sizeof(srows[0]));
	tcase_add_test(tc, test_schema_describes_workspace_paths);
	tcase_add_test(tc, test_table_refuses_duplicate_names);
	tcase_add_test(tc, test_set_pattern_reports_bad_regex);
	tcase_add_test(tc, test_path_normalize_gives_one_spelling);
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
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
