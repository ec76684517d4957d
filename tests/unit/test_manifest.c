/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Unit tests for policy/manifest.c: loading, errors, canonical form. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "policy/sandbox_defaults.h"
#include "policy/types.h"

#ifndef GOLDEN_DIR
#error GOLDEN_DIR must name tests/golden
#endif

#define TOOL_HEAD "tools:\n  - name: t\n    action: read_file\n"

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp;
	char *buf;
	long n;

	if ((fp = fopen(path, "rb")) == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, fp);
	buf[*len] = '\0';
	fclose(fp);
	return buf;
}

static char *
canonical(const struct manifest *m, size_t *len)
{
	char *out = NULL;
	FILE *fp = open_memstream(&out, len);

	ck_assert_int_eq(manifest_print_canonical(m, fp), 0);
	fclose(fp);
	return out;
}

START_TEST(test_seed_workboard_manifest_loads_unmodified)
{
	struct manifest *m;
	const struct tool *t;
	char err[512];

	ck_assert_msg(manifest_load(GOLDEN_DIR "/workboard.yaml", &m, err,
	    sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(m->ntools, 4);
	ck_assert_str_eq(m->tools[0].name, "read_file");
	ck_assert_int_eq(m->tools[0].action, ACTION_READ_FILE);
	ck_assert_int_eq(m->tools[0].side_effect, SIDE_EFFECT_NONE);
	ck_assert_int_eq(m->tools[0].timeout_ms, 2000);
	ck_assert_int_eq(m->tools[0].authorization, AUTHZ_ALLOW);
	ck_assert_str_eq(m->tools[0].input[0].name, "path");
	ck_assert_str_eq(m->tools[0].input[0].type->name,
	    "workspace_relative_path");
	ck_assert_int_eq(m->tools[0].input[0].required, 1);
	t = manifest_tool(m, "apply_patch");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->action, ACTION_APPLY_PATCH);
	ck_assert_int_eq(t->side_effect, SIDE_EFFECT_WORKSPACE_WRITE);
	ck_assert_str_eq(t->input[1].name, "expectedBaseSha");
	ck_assert_str_eq(t->input[1].type->name, "sha256");
	ck_assert_str_eq(t->output[0].type->name, "string_list");
	t = manifest_tool(m, "run_check");
	ck_assert_int_eq(t->side_effect, SIDE_EFFECT_SANDBOX_PROCESS);
	ck_assert_int_eq(t->timeout_ms, 120000);
	ck_assert_str_eq(t->input[0].type->name, "approved_check");
	t = manifest_tool(m, "request_approval");
	ck_assert_int_eq(t->timeout_ms, 86400000);
	ck_assert_str_eq(t->output[0].type->name, "approved_or_rejected");
	ck_assert_ptr_null(manifest_tool(m, "exec"));
	ck_assert_int_eq(m->budget.max_model_steps, 24);
	ck_assert_int_eq(m->budget.max_patch_attempts_per_gate, 4);
	ck_assert_int_eq(m->budget.max_elapsed_minutes, 30);
	ck_assert_int_eq(m->budget.max_changed_files, 12);
	ck_assert_int_eq(m->budget.max_added_dependencies, 1);
	ck_assert(m->budget.max_tool_cost_usd == 4.0);
	ck_assert_int_eq(m->budget.max_parallel_processes, 2);
	ck_assert_int_eq(m->budget.stop_on_repeated_failure_fingerprint, 2);
	/* What the seed leaves out gets airlock's defaults. */
	ck_assert_uint_eq(m->nchecks, 0);
	ck_assert_int_eq(m->sandbox.uid, 65534);
	ck_assert_int_eq(m->sandbox.landlock, 1);
	ck_assert_str_eq(m->sandbox.protected[0], ".git");
	ck_assert_str_eq(m->sandbox.protected[1], ".vscode");
	ck_assert_str_eq(m->sandbox.protected[2], ".idea");
	ck_assert_str_eq(m->sandbox.protected[3], ".devcontainer");
	ck_assert_str_eq(m->sandbox.protected[4], ".devcontainer.json");
	ck_assert_ptr_null(m->sandbox.protected[5]);
	ck_assert_int_eq(m->approvals.ttl_seconds, 900);
	ck_assert_uint_eq(m->max_frame_bytes, 1048576);
	manifest_free(m);
}
END_TEST

START_TEST(test_golden_copy_matches_the_shared_seed)
{
	static const char *const candidates[] = {
		GOLDEN_DIR "/../../../shared/examples/workboard.yaml",
		GOLDEN_DIR "/../../../../shared/examples/workboard.yaml",
	};
	char *a, *b;
	size_t alen, blen, i, found = 0;

	char hex[SHA256_HEX_LEN + 1];

	a = slurp(GOLDEN_DIR "/workboard.yaml", &alen);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(strstr(a, "stopOnRepeatedFailureFingerprint: 2"));
	/*
	 * The digest of ../shared/examples/workboard.yaml as the seed gave
	 * it: the copy is checked even where shared/ is not beside the tree
	 * (a release tarball, a clone elsewhere).
	 */
	sha256_hex(a, alen, hex);
	ck_assert_str_eq(hex,
	    "7f38f55caaa014a51308b8317a9f73f9ab0a0a1a38b017b75df594820d01d9f2");
	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if ((b = slurp(candidates[i], &blen)) == NULL)
			continue;
		found++;
		ck_assert_uint_eq(alen, blen);
		ck_assert_msg(memcmp(a, b, alen) == 0, "%s differs",
		    candidates[i]);
		free(b);
	}
	free(a);
	(void)found;	/* where shared/ is beside the tree, compared too */
}
END_TEST

START_TEST(test_default_manifest_binds_the_seed_checks)
{
	struct manifest *m;
	const struct check *ck;
	char err[512];

	ck_assert_msg(manifest_load_default(&m, err, sizeof(err)) == 0, "%s",
	    err);
	/* The seed's four, and read_output for the artifacts (issue 13). */
	ck_assert_uint_eq(m->ntools, 5);
	ck_assert_ptr_nonnull(manifest_tool(m, "run_check"));
	ck_assert_int_eq(manifest_tool(m, "read_output")->action,
	    ACTION_READ_OUTPUT);
	ck = manifest_check(m, "unit.todo-transition");
	ck_assert_ptr_nonnull(ck);
	ck_assert_str_eq(ck->argv[0], "sh");
	ck_assert_str_eq(ck->argv[1], "tests/run.sh");
	ck_assert_str_eq(ck->argv[2], "todo-transition");
	ck_assert_ptr_null(ck->argv[3]);
	ck_assert_int_eq(ck->timeout_ms, 120000);
	ck = manifest_check(m, "unit.all");
	ck_assert_ptr_nonnull(ck);
	ck_assert_ptr_null(ck->argv[2]);
	ck_assert_ptr_null(manifest_check(m, "deploy"));
	ck_assert_uint_eq(m->nrequired_gates, 1);
	ck_assert_str_eq(m->required_gates[0], "unit.todo-transition");
	ck_assert_int_eq(m->budget.max_model_steps, 24);
	ck_assert_str_eq(m->path, "<default>");
	manifest_free(m);
}
END_TEST

/* Canonical round trip: print, load what was printed, print again. */
static const char *const roundtrip_files[] = {
	GOLDEN_DIR "/workboard.yaml",
	GOLDEN_DIR "/full.yaml",
	GOLDEN_DIR "/../../contrib/manifests/default.yaml",
};

START_TEST(test_canonical_form_round_trips_byte_for_byte)
{
	struct manifest *m, *m2;
	char err[512], *one, *two;
	size_t n1, n2;

	setenv("HOME", "/home/tester", 1);
	ck_assert_msg(manifest_load(roundtrip_files[_i], &m, err,
	    sizeof(err)) == 0, "%s", err);
	one = canonical(m, &n1);
	ck_assert_msg(manifest_load_buffer("canon.yaml", one, n1, &m2, err,
	    sizeof(err)) == 0, "%s\n%s", err, one);
	two = canonical(m2, &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert_msg(memcmp(one, two, n1) == 0, "differs:\n%s\n---\n%s",
	    one, two);
	free(one);
	free(two);
	manifest_free(m);
	manifest_free(m2);
}
END_TEST

START_TEST(test_canonical_form_keeps_awkward_strings)
{
	static const char yaml[] =
	    "tools:\n"
	    "  - name: read_file\n"
	    "    description: \"tab\\there \\\"q\\\" back\\\\slash nl\\n"
	    " nel\\N ls\\L ps\\P bell\\a caf\\u00e9 # not a comment\"\n"
	    "    sideEffect: none\n"
	    "    timeoutMs: 1\n"
	    "checks:\n"
	    "  \"-odd:id\": [\"a b\", \"{x}\", \"it's\", \"\"]\n";
	struct manifest *m, *m2;
	char err[512], *one, *two;
	size_t n1, n2;

	ck_assert_msg(manifest_load_buffer("s.yaml", yaml, sizeof(yaml) - 1,
	    &m, err, sizeof(err)) == 0, "%s", err);
	one = canonical(m, &n1);
	ck_assert_msg(manifest_load_buffer("c.yaml", one, n1, &m2, err,
	    sizeof(err)) == 0, "%s\n%s", err, one);
	ck_assert_str_eq(m2->tools[0].description, m->tools[0].description);
	ck_assert_ptr_nonnull(strstr(m->tools[0].description, "\xe2\x80\xa8"));
	ck_assert_str_eq(m2->checks[0].id, "-odd:id");
	ck_assert_str_eq(m2->checks[0].argv[3], "");
	two = canonical(m2, &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert(memcmp(one, two, n1) == 0);
	free(one);
	free(two);
	manifest_free(m);
	manifest_free(m2);
}
END_TEST

/* {YAML text, exact error} for manifests that must be refused. */
static const struct erow {
	const char	*yaml;
	const char	*err;
} erows[] = {
	{ "", "t.yaml:1:1: manifest: empty; expected a mapping with a tools: list" },
	{ "[1, 2]\n", "t.yaml:1:1: manifest: expected a mapping, got a list" },
	{ "types: {}\n", "t.yaml:1:1: manifest: missing key \"tools\"" },
	{ "tools: []\nbogus: 1\n", "t.yaml:2:1: bogus: unknown key" },
	{ "tools: []\ntools: []\n", "t.yaml:2:1: tools: duplicate key" },
	{ "tools: {}\n", "t.yaml:1:8: tools: expected a list, got a mapping" },
	{ "tools: [\n", "t.yaml:2:1: yaml: did not find expected node content "
	    "while parsing a flow node" },
	{ "tools: []\n---\ntools: []\n",
	    "t.yaml:2:1: yaml: more than one YAML document" },
	{ "tools: &a []\n", "t.yaml:1:8: yaml: anchors are not allowed" },
	{ "x: &a 1\ntools: *a\n", "t.yaml:1:4: yaml: anchors are not allowed" },
	{ "tools: !!seq []\n", "t.yaml:1:8: yaml: tags are not allowed" },
	{ "tools: [\"a\\0b\"]\n", "t.yaml:1:9: yaml: NUL byte in a scalar" },
	{ "tools:\n  - name: t\n    sideEffect: none\n    timeoutMs: 1\n"
	    "    sideEfect: none\n",
	    "t.yaml:5:5: tools[0].sideEfect: unknown key" },
	{ "tools:\n  - name: read_file\n    sideEffect: none\n    timeoutMs: 1\n"
	    "  - name: read_file\n    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:5:11: tools[1].name: duplicate tool name \"read_file\" "
	    "(first at line 2)" },
	{ "tools:\n  - name: t\n    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:2:5: tools[0]: unknown tool action; set action: or command:" },
	{ TOOL_HEAD "    sideEffect: none\n",
	    "t.yaml:2:5: tools[0]: missing key \"timeoutMs\"" },
	{ "tools:\n  - name: read.file\n    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:2:11: tools[0].name: tool name must be [A-Za-z_][A-Za-z0-9_-]*, "
	    "at most 64" },
	{ TOOL_HEAD "    sideEffect: nothing\n    timeoutMs: 1\n",
	    "t.yaml:4:17: tools[0].sideEffect: expected one of: none, "
	    "workspace_write, sandbox_process, network, external" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: -5\n",
	    "t.yaml:5:16: tools[0].timeoutMs: must be positive" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1.5\n",
	    "t.yaml:5:16: tools[0].timeoutMs: expected an integer" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 0100\n",
	    "t.yaml:5:16: tools[0].timeoutMs: expected an integer without "
	    "leading zeros" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: \"10\"\n",
	    "t.yaml:5:16: tools[0].timeoutMs: expected an integer" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 99999999999999999999\n",
	    "t.yaml:5:16: tools[0].timeoutMs: integer out of range" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n    input: [path]\n",
	    "t.yaml:6:12: tools[0].input: expected a mapping, got a list" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n"
	    "    input: { path: filename }\n",
	    "t.yaml:6:20: tools[0].input.path: unknown type \"filename\"" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n"
	    "    input: { path: string, path: string }\n",
	    "t.yaml:6:28: tools[0].input.path: duplicate key" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n"
	    "    authorization: maybe\n",
	    "t.yaml:6:20: tools[0].authorization: expected one of: allow, deny, "
	    "approval" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n    costUsd: -1\n",
	    "t.yaml:6:14: tools[0].costUsd: must not be negative" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n"
	    "    network: [\"example.com\"]\n",
	    "t.yaml:6:15: tools[0].network[0]: expected host:port" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n"
	    "    network: [\"ex*ample.com:443\"]\n",
	    "t.yaml:6:15: tools[0].network[0]: bad host name (a leading \"*.\" "
	    "is the only wildcard)" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n"
	    "    secrets: [{ name: token }]\n",
	    "t.yaml:6:15: tools[0].secrets[0]: missing key \"env\"" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n"
	    "    secrets: [{ name: token, file: /run/t }]\n",
	    "t.yaml:6:36: tools[0].secrets[0].file: file grants are not "
	    "supported: grant the secret through env:" },
	{ TOOL_HEAD "    sideEffect: none\n    timeoutMs: 1\n"
	    "    command: [\"cat\"]\n",
	    "t.yaml:6:14: tools[0].command: only for action command or exec" },
	{ "tools:\n  - name: t\n    action: command\n    sideEffect: none\n"
	    "    timeoutMs: 1\n",
	    "t.yaml:2:5: tools[0]: action command needs command:" },
	/* Command templates: one typed argument fills one whole element. */
	{ "tools:\n  - name: t\n    input: { msg: string }\n"
	    "    command: [\"sh\", \"-c\", \"{msg}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:14: tools[0].command: refusing a shell or interpreter "
	    "with -c/-e and a placeholder: the argument would become code; give "
	    "each argument its own argv element of a program that is not a "
	    "shell" },
	{ "tools:\n  - name: t\n    input: { msg: string }\n"
	    "    command: [\"/usr/bin/env\", \"bash\", \"-ec\", \"echo\", \"{msg}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:14: tools[0].command: refusing a shell or interpreter "
	    "with -c/-e and a placeholder: the argument would become code; give "
	    "each argument its own argv element of a program that is not a "
	    "shell" },
	{ "tools:\n  - name: t\n    input: { msg: string }\n"
	    "    command: [\"busybox\", \"sh\", \"-c\", \"x\", \"{msg}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:14: tools[0].command: refusing a shell or interpreter "
	    "with -c/-e and a placeholder: the argument would become code; give "
	    "each argument its own argv element of a program that is not a "
	    "shell" },
	{ "tools:\n  - name: t\n    input: { msg: string }\n"
	    "    command: [\"python3\", \"-c\", \"{msg}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:14: tools[0].command: refusing a shell or interpreter "
	    "with -c/-e and a placeholder: the argument would become code; give "
	    "each argument its own argv element of a program that is not a "
	    "shell" },
	{ "tools:\n  - name: t\n    input: { msg: string }\n"
	    "    command: [\"env\", \"-S\", \"sh -c\", \"{msg}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:14: tools[0].command: refusing a shell or interpreter "
	    "with -c/-e and a placeholder: the argument would become code; give "
	    "each argument its own argv element of a program that is not a "
	    "shell" },
	{ "tools:\n  - name: t\n    input: { msg: string }\n"
	    "    command: [\"timeout\", \"10\", \"/bin/dash\", \"-c\", \"{msg}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:14: tools[0].command: refusing a shell or interpreter "
	    "with -c/-e and a placeholder: the argument would become code; give "
	    "each argument its own argv element of a program that is not a "
	    "shell" },
	{ "tools:\n  - name: t\n    input: { msg: string }\n"
	    "    command: [\"find\", \".\", \"-exec\", \"sh\", \"-c\", \"{msg}\", \";\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:14: tools[0].command: refusing a shell or interpreter "
	    "with -c/-e and a placeholder: the argument would become code; give "
	    "each argument its own argv element of a program that is not a "
	    "shell" },
	{ "tools:\n  - name: t\n    input: { msg: string }\n"
	    "    command: [\"perl\", \"-pe\", \"{msg}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:14: tools[0].command: refusing a shell or interpreter "
	    "with -c/-e and a placeholder: the argument would become code; give "
	    "each argument its own argv element of a program that is not a "
	    "shell" },
	{ "tools:\n  - name: t\n    input: { msg: string }\n"
	    "    command: [\"awk\", \"{msg}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:14: tools[0].command: refusing a shell or interpreter "
	    "with -c/-e and a placeholder: the argument would become code; give "
	    "each argument its own argv element of a program that is not a "
	    "shell" },
	{ "tools:\n  - name: t\n    input: { f: string }\n"
	    "    command: [\"grep\", \"--file={f}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:23: tools[0].command[1]: a placeholder must be a whole "
	    "argv element" },
	{ "tools:\n  - name: t\n    input: { f: string }\n"
	    "    command: [\"grep\", \"{g}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:23: tools[0].command[1]: placeholder {g} names no input "
	    "field" },
	{ "tools:\n  - name: t\n    input: { f: string }\n"
	    "    command: [\"{f}\", \"x\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:15: tools[0].command[0]: argv[0] must be a fixed program, "
	    "not a placeholder" },
	{ "tools:\n  - name: t\n    input: { f: \"string?\" }\n"
	    "    command: [\"grep\", \"{f}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:23: tools[0].command[1]: placeholder {f} names an "
	    "optional input field" },
	{ "tools:\n  - name: t\n    input: { f: string_list }\n"
	    "    command: [\"grep\", \"{f}\"]\n"
	    "    sideEffect: none\n    timeoutMs: 1\n",
	    "t.yaml:4:23: tools[0].command[1]: placeholder {f} has a list or "
	    "object type; one argument fills one argv element" },
	/* checks:, gates: */
	{ "tools: []\nchecks:\n  unit: []\n",
	    "t.yaml:3:9: checks.unit: empty argv" },
	{ "tools: []\nchecks:\n  unit: { argv: [\"x\"], timeoutMs: -1 }\n",
	    "t.yaml:3:35: checks.unit.timeoutMs: must be positive" },
	{ "tools: []\nchecks:\n  unit: { argv: [\"x\"], env: { 1A: b } }\n",
	    "t.yaml:3:31: checks.unit.env.1A: not an environment variable name" },
	{ "tools: []\nchecks:\n  \"bad id\": [\"x\"]\n",
	    "t.yaml:3:3: checks.bad id: not a check id ([A-Za-z0-9._:-], at most "
	    "128)" },
	{ "tools: []\nchecks:\n  unit: [\"x\"]\ngates:\n  required: [unit, e2e]\n",
	    "t.yaml:5:20: gates.required[1]: unknown check id \"e2e\"" },
	{ "tools: []\ngates:\n  requires: []\n",
	    "t.yaml:3:3: gates.requires: unknown key" },
	{ "tools: []\ndependencyFiles: [\"/etc/x\"]\n",
	    "t.yaml:2:19: dependencyFiles[0]: not a workspace-relative path: "
	    "absolute path" },
	{ "tools: []\nforbidSideEffects: [deploy]\n",
	    "t.yaml:2:21: forbidSideEffects[0]: expected one of: none, "
	    "workspace_write, sandbox_process, network, external" },
	/* runBudget: */
	{ "tools: []\nrunBudget:\n  maxModelStep: 3\n",
	    "t.yaml:3:3: runBudget.maxModelStep: unknown key" },
	{ "tools: []\nrunBudget:\n  maxModelSteps: 2.5\n",
	    "t.yaml:3:18: runBudget.maxModelSteps: expected an integer" },
	{ "tools: []\nrunBudget:\n  maxModelSteps: -2\n",
	    "t.yaml:3:18: runBudget.maxModelSteps: must be at least -1" },
	/* Its milliseconds wrapped: "no limit" stopped the first call. */
	{ "tools: []\nrunBudget:\n  maxElapsedMinutes: 9223372036854775807\n",
	    "t.yaml:3:22: runBudget.maxElapsedMinutes: must be at most "
	    "1000000000" },
	{ "tools: []\nrunBudget:\n  maxToolCostUsd: -0.5\n",
	    "t.yaml:3:19: runBudget.maxToolCostUsd: must be >= 0, or -1 for no "
	    "limit" },
	/* The audit log's bound: 0 would stop at once, none is -1. */
	{ "tools: []\nrunBudget:\n  maxAuditMiB: 0\n",
	    "t.yaml:3:16: runBudget.maxAuditMiB: must be at least 1 (MiB), or "
	    "-1 for no limit" },
	{ "tools: []\nrunBudget:\n  maxAuditMiB: -2\n",
	    "t.yaml:3:16: runBudget.maxAuditMiB: must be at least -1" },
	{ "tools: []\nrunBudget:\n  maxAuditMiB: 1048577\n",
	    "t.yaml:3:16: runBudget.maxAuditMiB: must be at most 1048576" },
	{ "tools: []\nrunBudget:\n  maxAuditMiB: 1.5\n",
	    "t.yaml:3:16: runBudget.maxAuditMiB: expected an integer" },
	{ "tools: []\nrunBudget: [1]\n",
	    "t.yaml:2:12: runBudget: expected a mapping, got a list" },
	/* sandbox:, approvals:, agent:, limits: */
	{ "tools: []\nsandbox:\n  network: open\n",
	    "t.yaml:3:12: sandbox.network: expected one of: none, proxy" },
	{ "tools: []\nsandbox:\n  landlock: yes\n",
	    "t.yaml:3:13: sandbox.landlock: expected true or false" },
	{ "tools: []\nsandbox:\n  readOnly: [usr]\n",
	    "t.yaml:3:14: sandbox.readOnly[0]: expected an absolute path" },
	{ "tools: []\nsandbox:\n  denyRead: [\".ssh\"]\n",
	    "t.yaml:3:14: sandbox.denyRead[0]: expected an absolute path "
	    "(or ~ with an absolute $HOME)" },
	{ "tools: []\nsandbox:\n  denyRead: [/srv/x/../etc/shadow]\n",
	    "t.yaml:3:14: sandbox.denyRead[0]: '..' component" },
	{ "tools: []\nsandbox:\n  protected: [\"../x\"]\n",
	    "t.yaml:3:15: sandbox.protected[0]: not a workspace-relative path: "
	    "'..' component" },
	{ "tools: []\nsandbox:\n  limits: { cpuSeconds: -1 }\n",
	    "t.yaml:3:25: sandbox.limits.cpuSeconds: must not be negative" },
	{ "tools: []\nsandbox:\n  limits: { cpus: 1 }\n",
	    "t.yaml:3:13: sandbox.limits.cpus: unknown key" },
	{ "tools: []\napprovals:\n  approvers: [no-such-user-xyz]\n",
	    "t.yaml:3:15: approvals.approvers[0]: unknown user "
	    "\"no-such-user-xyz\"" },
	{ "tools: []\napprovals:\n  ttlSeconds: 0\n",
	    "t.yaml:3:15: approvals.ttlSeconds: must be positive" },
	{ "tools: []\nagent:\n  workspace: write\n",
	    "t.yaml:3:14: agent.workspace: expected one of: ro, rw, cow" },
	{ "tools: []\nagent:\n  env: [\"A B\"]\n",
	    "t.yaml:3:9: agent.env[0]: not an environment variable name" },
	/* Local addresses only through an explicit address rule. */
	{ "tools: []\nagent:\n  network: [\"127.0.0.1:8080\"]\n",
	    "t.yaml:3:13: agent.network[0]: 127.0.0.1:8080 is a loopback "
	    "(127.0.0.0/8) address, reachable only through an explicit rule: "
	    "use agent.allowAddresses" },
	{ "tools: []\nagent:\n  network: [\"a.example:443\", \"10.0.0.5:443\"]\n",
	    "t.yaml:3:30: agent.network[1]: 10.0.0.5:443 is a private (RFC 1918) "
	    "address, reachable only through an explicit rule: use "
	    "agent.allowAddresses" },
	{ "tools: []\nagent:\n  network: [\"169.254.169.254:80\"]\n",
	    "t.yaml:3:13: agent.network[0]: 169.254.169.254:80 is a cloud "
	    "metadata (169.254.169.254) address, reachable only through an "
	    "explicit rule: use agent.allowAddresses" },
	{ "tools: []\nagent:\n  network: [\"[fd00::1]:443\"]\n",
	    "t.yaml:3:13: agent.network[0]: [fd00::1]:443 is a unique local "
	    "(fc00::/7) address, reachable only through an explicit rule: use "
	    "agent.allowAddresses" },
	{ "tools:\n  - { name: f, action: exec, sideEffect: network, "
	    "timeoutMs: 1, network: [\"192.168.1.2:80\"] }\n",
	    "t.yaml:2:75: tools[0].network[0]: 192.168.1.2:80 is a private "
	    "(RFC 1918) address, reachable only through an explicit rule: use "
	    "tools[0].allowAddresses" },
	{ "tools: []\nchecks:\n  unit: { argv: [x], network: [\"127.0.0.1:1\"] }\n",
	    "t.yaml:3:32: checks.unit.network[0]: 127.0.0.1:1 is a loopback "
	    "(127.0.0.0/8) address, reachable only through an explicit rule: "
	    "use checks.unit.allowAddresses" },
	{ "tools: []\nagent:\n  allowAddresses: [\"gateway.corp:8080\"]\n",
	    "t.yaml:3:20: agent.allowAddresses[0]: expected an IP address and "
	    "port (\"127.0.0.1:8080\", \"[::1]:8080\"); names belong in "
	    "network" },
	{ "tools: []\nagent:\n  allowAddresses: [\"127.0.0.1\"]\n",
	    "t.yaml:3:20: agent.allowAddresses[0]: expected host:port" },
	{ "tools: []\nsandbox:\n  readOnlyReplace: 1\n",
	    "t.yaml:3:20: sandbox.readOnlyReplace: expected true or false" },
	{ "tools: []\nlimits:\n  maxFrameBytes: 10\n",
	    "t.yaml:3:18: limits.maxFrameBytes: must be at least 1024" },
	/* types: */
	{ "types:\n  a: { type: list, items: b }\n  b: { type: list, items: a }\n"
	    "tools: []\n",
	    "t.yaml:2:3: types.a: type refers to itself (cycle)" },
	{ "types:\n  string: { type: string }\ntools: []\n",
	    "t.yaml:2:3: types.string: redefines the built-in type \"string\"" },
	{ "types:\n  a: { type: text }\ntools: []\n",
	    "t.yaml:2:14: types.a.type: expected one of: string, integer, number, "
	    "boolean, list, object" },
	{ "types:\n  a: { type: integer, maxLength: 3 }\ntools: []\n",
	    "t.yaml:2:23: types.a.maxLength: not allowed for type integer" },
	{ "types:\n  a: { type: string, pattern: \"a(\" }\ntools: []\n",
	    "t.yaml:2:31: types.a.pattern: bad pattern: Unmatched ( or \\(" },
	{ "types:\n  a: { type: string, minLength: 5, maxLength: 2 }\ntools: []\n",
	    "t.yaml:2:33: types.a.minLength: greater than maxLength" },
	{ "types:\n  a: { type: list, items: nope }\ntools: []\n",
	    "t.yaml:2:27: types.a.items: unknown type \"nope\"" },
	{ "types:\n  a: { type: object, fields: { x: string }, required: [y] }\n"
	    "tools: []\n",
	    "t.yaml:2:56: types.a.required[0]: no field \"y\"" },
	{ "types:\n  a: { type: integer, min: 5, max: 1 }\ntools: []\n",
	    "t.yaml:2:36: types.a.max: less than min" },
};

START_TEST(test_bad_manifest_is_refused_with_position_and_field)
{
	const struct erow *r = &erows[_i];
	struct manifest *m = (struct manifest *)1;
	char err[1024];
	int rc;

	rc = manifest_load_buffer("t.yaml", r->yaml, strlen(r->yaml), &m, err,
	    sizeof(err));
	ck_assert_msg(rc < 0, "row %d accepted:\n%s", _i, r->yaml);
	ck_assert_ptr_null(m);
	ck_assert_msg(strcmp(err, r->err) == 0, "row %d:\n got: %s\nwant: %s",
	    _i, err, r->err);
}
END_TEST

START_TEST(test_deeply_nested_types_are_refused)
{
	char yaml[4096], err[512];
	struct manifest *m;
	size_t off, i;

	off = (size_t)snprintf(yaml, sizeof(yaml), "types:\n  t0: { type: list,"
	    " items: string }\n");
	for (i = 1; i <= TYPE_MAX_DEPTH; i++)
		off += (size_t)snprintf(yaml + off, sizeof(yaml) - off,
		    "  t%zu: { type: list, items: t%zu }\n", i, i - 1);
	snprintf(yaml + off, sizeof(yaml) - off, "tools: []\n");
	ck_assert_int_lt(manifest_load_buffer("t.yaml", yaml, strlen(yaml), &m,
	    err, sizeof(err)), 0);
	ck_assert_str_eq(err, "t.yaml:18:3: types.t16: nested deeper than 16");
	/* One level less is fine. */
	*strstr(yaml, "  t16:") = '\0';
	strcat(yaml, "tools: []\n");
	ck_assert_msg(manifest_load_buffer("t.yaml", yaml, strlen(yaml), &m,
	    err, sizeof(err)) == 0, "%s", err);
	manifest_free(m);
}
END_TEST

START_TEST(test_exponentially_expanding_types_are_refused_quickly)
{
	/* 16 levels of objects with 64 fields each of the level below:
	 * 64^15 schema nodes.  Each type is visited once, and the manifest
	 * is refused before tools/list could try to print it. */
	size_t cap = 128 * 1024, off, i, j;
	char *yaml = malloc(cap), err[512];
	struct manifest *m;

	off = (size_t)snprintf(yaml, cap, "types:\n  t0: { type: string }\n");
	for (i = 1; i <= TYPE_MAX_DEPTH; i++) {
		off += (size_t)snprintf(yaml + off, cap - off,
		    "  t%zu: { type: object, fields: {", i);
		for (j = 0; j < 64; j++)
			off += (size_t)snprintf(yaml + off, cap - off,
			    "%s f%zu: t%zu", j ? "," : "", j, i - 1);
		off += (size_t)snprintf(yaml + off, cap - off, " } }\n");
	}
	snprintf(yaml + off, cap - off, "tools: []\n");
	ck_assert_int_lt(manifest_load_buffer("w.yaml", yaml, strlen(yaml), &m,
	    err, sizeof(err)), 0);
	ck_assert_str_eq(err, "w.yaml:5:3: types.t3: expands to more than "
	    "10000 schema nodes");
	/* Two levels (1 + 64 + 64 * 64 = 4161 nodes) are fine. */
	*strstr(yaml, "  t3:") = '\0';
	strcat(yaml, "tools: []\n");
	ck_assert_msg(manifest_load_buffer("w.yaml", yaml, strlen(yaml), &m,
	    err, sizeof(err)) == 0, "%s", err);
	manifest_free(m);
	free(yaml);
}
END_TEST

START_TEST(test_oversize_and_deep_yaml_is_refused)
{
	struct manifest *m;
	char err[512], *big;
	size_t n = 1024 * 1024 + 1, i;

	big = malloc(n + 1);
	memset(big, '#', n);
	big[n] = '\0';
	ck_assert_int_eq(manifest_load_buffer("big.yaml", big, n, &m, err,
	    sizeof(err)), AL_ERR_LIMIT);
	ck_assert_str_eq(err, "big.yaml:1:1: manifest: larger than 1048576 bytes");
	for (i = 0; i < 100; i++)
		big[i] = '[';
	big[i] = '\0';
	ck_assert_int_lt(manifest_load_buffer("deep.yaml", big, i, &m, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(err, "deep.yaml:1:65: yaml: nested deeper than 64");
	free(big);
}
END_TEST

START_TEST(test_missing_file_names_the_file)
{
	struct manifest *m;
	char err[512];

	ck_assert_int_eq(manifest_load("/nonexistent/m.yaml", &m, err,
	    sizeof(err)), AL_ERR_SYSTEM);
	ck_assert_str_eq(err, "/nonexistent/m.yaml: No such file or directory");
}
END_TEST

START_TEST(test_extensions_load_with_their_meaning)
{
	static const char yaml[] =
	    "types:\n"
	    "  msgs: { type: list, items: msg, maxItems: 3 }\n"	/* forward */
	    "  msg: { type: string, maxLength: 80 }\n"
	    "  pt: { type: object, fields: { x: integer, y: \"integer?\" } }\n"
	    "  pt2: { type: object, fields: { a: integer, b: integer },"
	    " required: [b] }\n"
	    "checks:\n"
	    "  unit.fast: [\"make\", \"check\"]\n"
	    "  lint: { argv: [\"make\", \"lint\"], env: { CI: \"1\" },"
	    " timeoutMs: 9000, network: [\"*.pypi.org:443\"] }\n"
	    "tools:\n"
	    "  - name: grep\n"
	    "    description: Search the tree.\n"
	    "    input: { pattern: msg, dir: \"workspace_relative_path?\" }\n"
	    "    output: { lines: msgs }\n"
	    "    command: [\"grep\", \"-rn\", \"--\", \"{pattern}\", \".\"]\n"
	    "    sideEffect: sandbox_process\n"
	    "    timeoutMs: 1000\n"
	    "  - name: fetch\n"
	    "    action: exec\n"
	    "    sideEffect: network\n"
	    "    timeoutMs: 1000\n"
	    "    costUsd: 0.25\n"
	    "    secrets: [{ name: gh.token, env: GH_TOKEN }]\n"
	    "    network: [\"api.github.com:443\", \"1.2.3.4:443\"]\n"
	    "    allowAddresses: [\"[::1]:8080\"]\n"
	    "gates: { required: [lint] }\n"
	    "forbidSideEffects: [external]\n"
	    "sandbox:\n"
	    "  denyRead: [\"~/.ssh\", /srv/secret/]\n"
	    "  readOnly: [/usr, /opt/tools]\n"
	    "  network: proxy\n"
	    "  workspace: cow\n"
	    "  limits: { memoryMb: 512 }\n"
	    "approvals: { approvers: [root, 1000], ttlSeconds: 60,"
	    " notify: [\"notify-send\", \"airlock\"] }\n"
	    "agent: { workspace: rw, home: /home/agent, env: [TERM] }\n"
	    "limits: { maxFrameBytes: 65536 }\n";
	const struct tool *t;
	const struct check *ck;
	const struct type *ty;
	struct manifest *m;
	char err[512];

	setenv("HOME", "/home/tester", 1);
	ck_assert_msg(manifest_load_buffer("x.yaml", yaml, sizeof(yaml) - 1, &m,
	    err, sizeof(err)) == 0, "%s", err);
	ty = type_lookup(m->types, "msgs");
	ck_assert_ptr_eq(ty->items, type_lookup(m->types, "msg"));
	ck_assert_uint_eq(ty->max_items, 3);
	ck_assert_uint_eq(type_lookup(m->types, "msg")->max_length, 80);
	ty = type_lookup(m->types, "pt");
	ck_assert_int_eq(ty->fields[0].required, 1);
	ck_assert_int_eq(ty->fields[1].required, 0);
	ty = type_lookup(m->types, "pt2");
	ck_assert_int_eq(ty->fields[0].required, 0);
	ck_assert_int_eq(ty->fields[1].required, 1);

	t = manifest_tool(m, "grep");
	ck_assert_int_eq(t->action, ACTION_COMMAND);
	ck_assert_str_eq(t->description, "Search the tree.");
	ck_assert_uint_eq(t->ncommand, 5);
	ck_assert_str_eq(t->command[3], "{pattern}");
	ck_assert_int_eq(t->input[1].required, 0);
	ck_assert_int_eq(t->authorization, AUTHZ_ALLOW);
	t = manifest_tool(m, "fetch");
	ck_assert_int_eq(t->action, ACTION_EXEC);
	ck_assert_int_eq(t->authorization, AUTHZ_APPROVAL);	/* network */
	ck_assert(t->cost_usd == 0.25);
	ck_assert_str_eq(t->secrets[0].name, "gh.token");
	ck_assert_str_eq(t->secrets[0].env, "GH_TOKEN");
	ck_assert_ptr_null(t->secrets[0].file);
	/* The address rules follow the hosts in the one allowlist. */
	ck_assert_uint_eq(t->network.nhosts, 3);
	ck_assert_uint_eq(t->network.naddresses, 1);
	ck_assert_str_eq(t->network.hosts[1], "1.2.3.4:443");
	ck_assert_str_eq(t->network.hosts[2], "[::1]:8080");
	ck_assert_str_eq(t->network.addresses[0], "[::1]:8080");

	ck = manifest_check(m, "lint");
	ck_assert_str_eq(ck->env[0], "CI=1");
	ck_assert_int_eq(ck->timeout_ms, 9000);
	ck_assert_str_eq(ck->network.hosts[0], "*.pypi.org:443");
	ck_assert_str_eq(m->required_gates[0], "lint");
	ck_assert_int_eq(m->forbid_side_effect[SIDE_EFFECT_EXTERNAL], 1);
	ck_assert_int_eq(m->forbid_side_effect[SIDE_EFFECT_NETWORK], 0);

	ck_assert_str_eq(m->sandbox.deny_read[0], "/home/tester/.ssh");
	ck_assert_str_eq(m->sandbox.deny_read[1], "/srv/secret");
	/* readOnly extends the defaults: /usr is one of them already. */
	{
		struct sandbox_policy d;

		sandbox_policy_init_defaults(&d);
		ck_assert_uint_eq(m->sandbox.nread_only, d.nread_only + 1);
		ck_assert_str_eq(m->sandbox.read_only[0], "/usr");
		ck_assert_str_eq(m->sandbox.read_only[d.nread_only],
		    "/opt/tools");
		sandbox_policy_free_arrays(&d);
	}
	ck_assert_int_eq(m->sandbox.network, 1);
	ck_assert_int_eq(m->sandbox.workspace, WORKSPACE_COW);
	ck_assert_int_eq(m->sandbox.limits.memory_mb, 512);
	ck_assert_int_eq(m->sandbox.limits.cpu_seconds, 60);	/* default */
	ck_assert_uint_eq(m->approvals.napprovers, 2);
	ck_assert_int_eq(m->approvals.approvers[0], 0);
	ck_assert_int_eq(m->approvals.approvers[1], 1000);
	ck_assert_int_eq(m->approvals.ttl_seconds, 60);
	ck_assert_str_eq(m->approvals.notify[1], "airlock");
	ck_assert_int_eq(m->agent.workspace_writable, 1);
	ck_assert_str_eq(m->agent.home, "/home/agent");
	ck_assert_str_eq(m->agent.env_pass[0], "TERM");
	ck_assert_uint_eq(m->max_frame_bytes, 65536);
	/* Budget keys left out mean "no limit". */
	ck_assert_int_eq(m->budget.max_model_steps, -1);
	ck_assert(m->budget.max_tool_cost_usd == -1);
	/* ...except the two that bound what the agent can make airlock
	 * write (records in the audit log). */
	ck_assert_int_eq(m->budget.max_refused_calls, 10000);
	ck_assert_int_eq(m->budget.max_audit_mib, 1024);
	manifest_free(m);
}
END_TEST

START_TEST(test_read_only_extends_defaults_unless_replaced)
{
	static const char ext[] = "tools: []\n"
	    "sandbox: { readOnly: [/opt/a, /usr, /opt/a] }\n";
	static const char repl[] = "tools: []\n"
	    "sandbox: { readOnlyReplace: true, readOnly: [/opt/a] }\n";
	static const char none[] = "tools: []\n"
	    "sandbox: { readOnlyReplace: true }\n";
	struct sandbox_policy d;
	struct manifest *m;
	char err[512];

	sandbox_policy_init_defaults(&d);
	ck_assert_msg(manifest_load_buffer("x.yaml", ext, sizeof(ext) - 1, &m,
	    err, sizeof(err)) == 0, "%s", err);
	/* Defaults first, each entry once. */
	ck_assert_uint_eq(m->sandbox.nread_only, d.nread_only + 1);
	ck_assert_str_eq(m->sandbox.read_only[d.nread_only - 1],
	    d.read_only[d.nread_only - 1]);
	ck_assert_str_eq(m->sandbox.read_only[d.nread_only], "/opt/a");
	ck_assert_ptr_null(m->sandbox.read_only[d.nread_only + 1]);
	manifest_free(m);

	ck_assert_msg(manifest_load_buffer("x.yaml", repl, sizeof(repl) - 1,
	    &m, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(m->sandbox.nread_only, 1);
	ck_assert_str_eq(m->sandbox.read_only[0], "/opt/a");
	ck_assert_ptr_null(m->sandbox.read_only[1]);
	manifest_free(m);

	ck_assert_msg(manifest_load_buffer("x.yaml", none, sizeof(none) - 1,
	    &m, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(m->sandbox.nread_only, 0);
	manifest_free(m);
	sandbox_policy_free_arrays(&d);
}
END_TEST

START_TEST(test_run_check_accepts_only_defined_check_ids)
{
	const struct tool *t;
	struct manifest *m;
	char err[512];
	json_t *v;

	ck_assert_int_eq(manifest_load_default(&m, err, sizeof(err)), 0);
	t = manifest_tool(m, "run_check");
	v = json_pack("{s:s,s:s}", "checkId", "unit.todo-transition",
	    "idempotencyKey", "k1");
	ck_assert_int_eq(type_validate_fields(t->input, t->ninput, v,
	    manifest_check_exists, m, err, sizeof(err)), 0);
	json_decref(v);
	v = json_pack("{s:s,s:s}", "checkId", "rm -rf /", "idempotencyKey", "k1");
	ck_assert_int_eq(type_validate_fields(t->input, t->ninput, v,
	    manifest_check_exists, m, err, sizeof(err)), AL_ERR_TYPE);
	ck_assert_str_eq(err, "/checkId: not a check id");
	json_decref(v);
	v = json_pack("{s:s,s:s}", "checkId", "unit.deploy", "idempotencyKey",
	    "k1");
	ck_assert_int_eq(type_validate_fields(t->input, t->ninput, v,
	    manifest_check_exists, m, err, sizeof(err)), AL_ERR_TYPE);
	ck_assert_str_eq(err, "/checkId: not an approved check id");
	json_decref(v);
	manifest_free(m);
}
END_TEST

START_TEST(test_forbidden_side_effect_makes_a_tool_denied)
{
	static const char yaml[] =
	    "tools:\n"
	    "  - { name: read_file, sideEffect: none, timeoutMs: 1 }\n"
	    "  - { name: fetch, action: exec, sideEffect: network, timeoutMs: 1 }\n"
	    "  - { name: push, action: exec, sideEffect: external, timeoutMs: 1,"
	    " authorization: allow }\n"
	    "forbidSideEffects: [external]\n";
	struct manifest *m;
	char err[512];

	ck_assert_msg(manifest_load_buffer("f.yaml", yaml, sizeof(yaml) - 1, &m,
	    err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(manifest_tool_authorization(m,
	    manifest_tool(m, "read_file")), AUTHZ_ALLOW);
	ck_assert_int_eq(manifest_tool_authorization(m,
	    manifest_tool(m, "fetch")), AUTHZ_APPROVAL);
	ck_assert_int_eq(manifest_tool(m, "push")->authorization, AUTHZ_ALLOW);
	ck_assert_int_eq(manifest_tool_authorization(m,
	    manifest_tool(m, "push")), AUTHZ_DENY);
	manifest_free(m);
}
END_TEST

/* Commands with placeholders that run no code text must load. */
static const char *const ok_commands[] = {
	"[\"sh\", \"scripts/greet.sh\", \"{msg}\"]",
	"[\"python3\", \"-u\", \"tools/x.py\", \"--\", \"{msg}\"]",
	"[\"git\", \"log\", \"--grep\", \"{msg}\"]",
	"[\"grep\", \"-rnF\", \"-e\", \"{msg}\", \".\"]",
	"[\"sh\", \"-c\", \"make test\"]",
	"[\"printf\", \"%s{not_a_placeholder\", \"{msg}\"]",
};

START_TEST(test_commands_without_code_text_are_accepted)
{
	struct manifest *m;
	char yaml[512], err[512];

	snprintf(yaml, sizeof(yaml), "tools:\n  - name: t\n"
	    "    input: { msg: string }\n    command: %s\n"
	    "    sideEffect: none\n    timeoutMs: 1\n", ok_commands[_i]);
	ck_assert_msg(manifest_load_buffer("ok.yaml", yaml, strlen(yaml), &m,
	    err, sizeof(err)) == 0, "%s: %s", ok_commands[_i], err);
	ck_assert_int_eq(m->tools[0].action, ACTION_COMMAND);
	manifest_free(m);
}
END_TEST

START_TEST(test_enum_names_match_manifest_spelling)
{
	ck_assert_str_eq(side_effect_name(SIDE_EFFECT_WORKSPACE_WRITE),
	    "workspace_write");
	ck_assert_str_eq(authorization_name(AUTHZ_APPROVAL), "approval");
	ck_assert_str_eq(tool_action_name(ACTION_REQUEST_APPROVAL),
	    "request_approval");
	ck_assert_str_eq(tool_action_name(ACTION_COMMAND), "command");
	manifest_free(NULL);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("manifest");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_seed_workboard_manifest_loads_unmodified);
	tcase_add_test(tc, test_golden_copy_matches_the_shared_seed);
	tcase_add_test(tc, test_default_manifest_binds_the_seed_checks);
	tcase_add_loop_test(tc, test_canonical_form_round_trips_byte_for_byte,
	    0, sizeof(roundtrip_files) / sizeof(roundtrip_files[0]));
	tcase_add_test(tc, test_canonical_form_keeps_awkward_strings);
	tcase_add_loop_test(tc,
	    test_bad_manifest_is_refused_with_position_and_field, 0,
	    sizeof(erows) / sizeof(erows[0]));
	tcase_add_test(tc, test_deeply_nested_types_are_refused);
	tcase_add_test(tc, test_exponentially_expanding_types_are_refused_quickly);
	tcase_add_test(tc, test_oversize_and_deep_yaml_is_refused);
	tcase_add_test(tc, test_missing_file_names_the_file);
	tcase_add_test(tc, test_extensions_load_with_their_meaning);
	tcase_add_test(tc, test_read_only_extends_defaults_unless_replaced);
	tcase_add_test(tc, test_run_check_accepts_only_defined_check_ids);
	tcase_add_test(tc, test_forbidden_side_effect_makes_a_tool_denied);
	tcase_add_loop_test(tc, test_commands_without_code_text_are_accepted, 0,
	    sizeof(ok_commands) / sizeof(ok_commands[0]));
	tcase_add_test(tc, test_enum_names_match_manifest_spelling);
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
