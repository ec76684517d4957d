/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* The ledger: run budgets, idempotency, gates and failure fingerprints. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "broker/ledger.h"
#include "common/errors.h"
#include "policy/manifest.h"

static const char yaml[] =
    "tools:\n"
    "  - name: run_check\n"
    "    input: { checkId: approved_check, idempotencyKey: string }\n"
    "    output: { exitCode: integer }\n"
    "    sideEffect: sandbox_process\n"
    "    timeoutMs: 1000\n"
    "    costUsd: 1.5\n"
    "  - name: read_file\n"
    "    input: { path: workspace_relative_path }\n"
    "    output: { content: string }\n"
    "    sideEffect: none\n"
    "    timeoutMs: 1000\n"
    "checks:\n"
    "  unit: [\"true\"]\n"
    "gates: { required: [unit] }\n"
    "dependencyFiles: [package.json, web/app/package.json]\n"
    "runBudget:\n"
    "  maxModelSteps: %d\n"
    "  maxPatchAttemptsPerGate: 2\n"
    "  maxElapsedMinutes: 1\n"
    "  maxChangedFiles: 2\n"
    "  maxAddedDependencies: 1\n"
    "  maxToolCostUsd: %s\n"
    "  maxParallelProcesses: 2\n"
    "  stopOnRepeatedFailureFingerprint: 2\n";

static struct manifest *
load(int steps, const char *cost)
{
	struct manifest	*m;
	char		 text[2048], err[512];
	int		 n;

	n = snprintf(text, sizeof(text), yaml, steps, cost);
	ck_assert_msg(manifest_load_buffer("t.yaml", text, (size_t)n, &m, err,
	    sizeof(err)) == 0, "%s", err);
	return m;
}

START_TEST(test_ledger_steps_stop_the_session)
{
	struct manifest		*m = load(2, "100");
	struct ledger		*l = ledger_new(m, 0);
	const struct tool	*t = manifest_tool(m, "read_file");
	char			 lim[64];

	ck_assert_int_eq(ledger_admit(l, t, 0, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit(l, t, 0, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit(l, t, 0, 0, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxModelSteps");
	ck_assert_str_eq(ledger_stopped(l), "maxModelSteps");
	/* Stopped means stopped, whatever the next call is. */
	ck_assert_int_eq(ledger_admit(l, manifest_tool(m, "run_check"), 0, 0,
	    lim, sizeof(lim)), AL_ERR_BUDGET);
	ledger_free(l);
	manifest_free(m);
}
END_TEST

START_TEST(test_ledger_cost_elapsed_and_parallel)
{
	struct manifest		*m = load(100, "4.0");
	struct ledger		*l = ledger_new(m, 0);
	const struct tool	*t = manifest_tool(m, "run_check");
	char			 lim[64];

	/* Parallel processes: refused for now, not a stop. */
	ck_assert_int_eq(ledger_admit(l, t, 0, 2, lim, sizeof(lim)),
	    AL_ERR_LIMIT);
	ck_assert_ptr_null(ledger_stopped(l));
	ck_assert_int_eq(ledger_admit(l, t, 0, 1, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit(l, t, 0, 1, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit(l, t, 0, 0, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxToolCostUsd");
	ledger_free(l);

	l = ledger_new(m, 0);
	ck_assert_int_eq(ledger_admit(l, manifest_tool(m, "read_file"),
	    61 * 1000, 0, lim, sizeof(lim)), AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxElapsedMinutes");
	ledger_free(l);
	manifest_free(m);
}
END_TEST

START_TEST(test_ledger_changed_files_and_dependencies)
{
	struct manifest	*m = load(100, "100");
	struct ledger	*l = ledger_new(m, 0);
	const char	*a[] = { "a.c" }, *b[] = { "b.c", "a.c" }, *c[] = { "c.c" };
	const char	*dep[] = { "package.json" };
	char		 lim[64];

	ck_assert_int_eq(ledger_admit_write(l, a, 1, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(l, b, 2, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(l, c, 1, 0, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxChangedFiles");
	ledger_free(l);

	l = ledger_new(m, 0);
	ck_assert_int_eq(ledger_admit_write(l, dep, 1, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(l, dep, 1, 0, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxAddedDependencies");
	ledger_free(l);
	manifest_free(m);
}
END_TEST

/*
 * A change of a directory on a dependency file's way (a link made or
 * retargeted there) changes what the file holds: it counts.
 */
START_TEST(test_ledger_dependency_counted_by_the_directories_on_its_way)
{
	static const struct {
		const char	*path;
		int		 counts;
	} rows[] = {
		{ "web/app/package.json", 1 },
		{ "web/app", 1 },
		{ "web", 1 },
		{ "we", 0 },
		{ "web/ap", 0 },
		{ "webx", 0 },
		{ "web/app/package.json.bak", 0 },
		{ "web/app/package.jso", 0 },
		{ "web/other", 0 },
	};
	struct manifest	*m = load(100, "100");
	struct ledger	*l;
	const char	*one[1], *dep[] = { "package.json" };
	char		 lim[64];
	size_t		 i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		l = ledger_new(m, 0);
		/* maxAddedDependencies is 1: a second dependency stops. */
		ck_assert_int_eq(
		    ledger_admit_write(l, dep, 1, 0, lim, sizeof(lim)), 0);
		one[0] = rows[i].path;
		ck_assert_msg(ledger_admit_write(l, one, 1, 0, lim,
		    sizeof(lim)) == (rows[i].counts ? AL_ERR_BUDGET : 0),
		    "%s", rows[i].path);
		ledger_free(l);
	}
	manifest_free(m);
}
END_TEST

START_TEST(test_ledger_patch_attempts_per_failing_gate)
{
	struct manifest	*m = load(100, "100");
	struct ledger	*l = ledger_new(m, 0);
	const char	*a[] = { "a.c" };
	char		 lim[64], fp[65];

	ck_assert_int_eq(ledger_record_check(l, "unit", 1, "FAIL x", 6, "d1", NULL,
	    fp), 0);
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxPatchAttemptsPerGate");
	ledger_free(l);

	/* A pass resets the count. */
	l = ledger_new(m, 0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 1, "FAIL x", 6, "d1", NULL,
	    fp), 0);
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 0, "", 0, "d2", NULL, fp), 0);
	ck_assert_str_eq(fp, "");
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)), 0);
	ledger_free(l);

	/* A void pass (no digest bound: written during its run; or its
	 * pinned code changed) ends no failure: the count goes on, also
	 * in a resumed run. */
	l = ledger_new(m, 0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 1, "FAIL x", 6, "d1", NULL,
	    fp), 0);
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 0, "", 0, "", NULL, fp), 0);
	{
		json_t *pin = json_pack("[s]", "tests/run.sh"), *carry;
		struct ledger *r = ledger_new(m, 0);
		char err[128];

		ck_assert_int_eq(ledger_record_check(l, "unit", 0, "", 0, "d3",
		    pin, fp), 0);
		json_decref(pin);
		carry = ledger_export(l, 0);
		ck_assert_int_eq(ledger_restore(r, carry, 0, err, sizeof(err)),
		    0);
		json_decref(carry);
		ck_assert_int_eq(ledger_admit_write(r, a, 1, 1, lim, sizeof(lim)),
		    0);
		ck_assert_int_eq(ledger_admit_write(r, a, 1, 1, lim, sizeof(lim)),
		    AL_ERR_BUDGET);
		ledger_free(r);
	}
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxPatchAttemptsPerGate");
	ledger_free(l);
	manifest_free(m);
}
END_TEST

/*
 * The agent's own edits (agent.workspace rw or cow) between checks: a
 * digest other than the last check's, written by others and with no
 * broker attempt between, is an attempt at a failing gate.
 */
START_TEST(test_ledger_agent_edits_are_attempts)
{
	struct manifest	*m = load(100, "100");
	struct ledger	*l = ledger_new(m, 0);
	const char	*a[] = { "a.c" }, *o[] = { "out.log" };
	char		 lim[64], fp[65];

	ck_assert_int_eq(ledger_admit_check(l, "d1", 1, 0, lim, sizeof(lim)),
	    0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 1, "FAIL x", 6, "d1",
	    NULL, fp), 0);
	/* Written, same digest (a touch): no attempt. */
	ck_assert_int_eq(ledger_admit_check(l, "d1", 1, 1, lim, sizeof(lim)),
	    0);
	/* Another digest, the check's output and nothing else seen: none. */
	ck_assert_int_eq(ledger_admit_write(l, o, 1, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_check(l, "d2", 1, 0, lim, sizeof(lim)),
	    0);
	/* A patch, then the agent's edits: one attempt, the patch. */
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 1, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_check(l, "d3", 1, 1, lim, sizeof(lim)),
	    0);
	/* Another digest, no broker write, nothing seen (a write through a
	 * mapping): the second. */
	ck_assert_int_eq(ledger_admit_check(l, "d4", 1, 0, lim, sizeof(lim)),
	    0);
	/* Back to an earlier digest (a revert) beside the check's output:
	 * the third, refused. */
	ck_assert_int_eq(ledger_admit_write(l, o, 1, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_check(l, "d1", 1, 1, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxPatchAttemptsPerGate");
	ck_assert_str_eq(ledger_stopped(l), "maxPatchAttemptsPerGate");
	ledger_free(l);

	/* A passing gate counts no edit, nor does a read-only agent's
	 * workspace changed by others (a human). */
	l = ledger_new(m, 0);
	ck_assert_int_eq(ledger_admit_check(l, "d1", 1, 0, lim, sizeof(lim)),
	    0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 0, "", 0, "d1", NULL,
	    fp), 0);
	ck_assert_int_eq(ledger_admit_check(l, "d2", 1, 1, lim, sizeof(lim)),
	    0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 1, "FAIL x", 6, "d2",
	    NULL, fp), 0);
	ck_assert_int_eq(ledger_admit_check(l, "d3", 0, 1, lim, sizeof(lim)),
	    0);
	ck_assert_int_eq(ledger_admit_check(l, "d4", 0, 1, lim, sizeof(lim)),
	    0);
	ck_assert_int_eq(ledger_admit_check(l, "d5", 0, 0, lim, sizeof(lim)),
	    0);
	ledger_free(l);
	manifest_free(m);
}
END_TEST

/* A write admitted that changed nothing gives back its dependencies and
 * its patch attempts, once; its changed paths stay counted. */
START_TEST(test_ledger_write_undone_gives_back_its_count)
{
	struct manifest	*m = load(100, "100");
	struct ledger	*l = ledger_new(m, 0);
	const char	*dep[] = { "package.json" };
	char		 lim[64], fp[65];
	json_t		*st;

	ck_assert_int_eq(ledger_record_check(l, "unit", 1, "FAIL x", 6, "d1", NULL,
	    fp), 0);
	/* maxAddedDependencies 1, maxPatchAttemptsPerGate 2: undone, the
	 * same write goes through three times and more. */
	ck_assert_int_eq(ledger_admit_write(l, dep, 1, 1, lim, sizeof(lim)), 0);
	ledger_write_undone(l);
	ledger_write_undone(l);	/* once only */
	ck_assert_int_eq(ledger_admit_write(l, dep, 1, 1, lim, sizeof(lim)), 0);
	ledger_write_undone(l);
	ck_assert_int_eq(ledger_admit_write(l, dep, 1, 1, lim, sizeof(lim)), 0);
	st = ledger_status(l, "d1", 0);
	ck_assert_int_eq((int)json_real_value(json_object_get(json_object_get(
	    json_object_get(st, "budgets"), "maxAddedDependencies"), "used")), 1);
	ck_assert_int_eq((int)json_real_value(json_object_get(json_object_get(
	    json_object_get(st, "budgets"), "maxChangedFiles"), "used")), 1);
	json_decref(st);
	/* Not undone: the next is over both. */
	ck_assert_int_eq(ledger_admit_write(l, dep, 1, 1, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	/* A refused write is not one to give back: nothing changes. */
	ledger_write_undone(l);
	st = ledger_status(l, "d1", 0);
	ck_assert_int_eq((int)json_real_value(json_object_get(json_object_get(
	    json_object_get(st, "budgets"), "maxAddedDependencies"), "used")), 1);
	json_decref(st);
	ledger_free(l);
	manifest_free(m);
}
END_TEST

START_TEST(test_ledger_repeated_fingerprint_after_patches_stops)
{
	struct manifest	*m = load(100, "100");
	struct ledger	*l = ledger_new(m, 0);
	char		 fp1[65], fp2[65], fp3[65];

	/* Line numbers and counts fold: the same failure, twice on one digest. */
	ck_assert_int_eq(ledger_record_check(l, "unit", 1,
	    "FAIL line 12: 3 != 4\n", 21, "d1", NULL, fp1), 0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 1,
	    "FAIL line 99: 7 != 8\n", 21, "d1", NULL, fp2), 0);
	ck_assert_str_eq(fp1, fp2);
	ck_assert_ptr_null(ledger_stopped(l));
	/* The same failure after a patch (new digest): stop. */
	ck_assert_int_eq(ledger_record_check(l, "unit", 1,
	    "FAIL line 13: 3 != 4\n", 21, "d2", NULL, fp3), AL_ERR_BUDGET);
	ck_assert_str_eq(fp1, fp3);
	ck_assert_str_eq(ledger_stopped(l), "stopOnRepeatedFailureFingerprint");
	ledger_free(l);
	manifest_free(m);
}
END_TEST

START_TEST(test_ledger_idempotency_replay_conflict_in_flight)
{
	struct manifest	*m = load(100, "100");
	struct ledger	*l = ledger_new(m, 0);
	json_t		*r = json_string("result"), *got;

	ck_assert_int_eq(ledger_replay(l, "run_check", "k", "A", &got), 0);
	ledger_remember(l, "run_check", "k", "A", NULL);
	ck_assert_int_eq(ledger_replay(l, "run_check", "k", "A", &got), 2);
	ledger_remember(l, "run_check", "k", "A", r);
	ck_assert_int_eq(ledger_replay(l, "run_check", "k", "A", &got), 1);
	ck_assert_ptr_eq(got, r);
	ck_assert_int_eq(ledger_replay(l, "run_check", "k", "B", &got),
	    AL_ERR_CONFLICT);
	/* Keys are per tool. */
	ck_assert_int_eq(ledger_replay(l, "other", "k", "B", &got), 0);
	json_decref(r);
	ledger_free(l);
	manifest_free(m);
}
END_TEST

START_TEST(test_ledger_acceptance_only_on_the_current_digest)
{
	struct manifest	*m = load(100, "100");
	struct ledger	*l = ledger_new(m, 0);
	json_t		*st;
	char		 fp[65];

	ck_assert_int_eq(ledger_acceptance_met(l, "d1"), 0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 0, "", 0, "d1", NULL, fp), 0);
	ck_assert_int_eq(ledger_acceptance_met(l, "d1"), 1);
	ck_assert_int_eq(ledger_acceptance_met(l, "d2"), 0);
	st = ledger_status(l, "d2", 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(st, "gates"), 0), "state")), "stale");
	ck_assert(json_is_false(json_object_get(st, "acceptanceMet")));
	json_decref(st);
	ledger_free(l);
	manifest_free(m);
}
END_TEST

START_TEST(test_ledger_gate_with_changed_pinned_code_does_not_count)
{
	struct manifest	*m = load(100, "100");
	struct ledger	*l = ledger_new(m, 0);
	json_t		*st, *changed = json_pack("[s]", "tests/run.sh");
	char		 fp[65];

	ck_assert_int_eq(ledger_record_check(l, "unit", 0, "", 0, "d1",
	    changed, fp), 0);
	ck_assert_int_eq(ledger_acceptance_met(l, "d1"), 0);
	st = ledger_status(l, "d1", 0);
	ck_assert(json_is_false(json_object_get(st, "acceptanceMet")));
	ck_assert(json_equal(json_object_get(st, "pinnedCodeChanged"),
	    changed));
	ck_assert(json_equal(json_object_get(json_array_get(
	    json_object_get(st, "gates"), 0), "pinnedCodeChanged"), changed));
	json_decref(st);
	/* The same gate on its pinned code: it counts again. */
	ck_assert_int_eq(ledger_record_check(l, "unit", 0, "", 0, "d1", NULL,
	    fp), 0);
	ck_assert_int_eq(ledger_acceptance_met(l, "d1"), 1);
	json_decref(changed);
	ledger_free(l);
	manifest_free(m);
}
END_TEST

START_TEST(test_ledger_restore_carries_the_budget_but_no_pass)
{
	struct manifest		*m = load(3, "100");
	struct ledger		*l = ledger_new(m, 0), *r;
	const struct tool	*t = manifest_tool(m, "read_file");
	const char		*a[] = { "a.c" }, *b[] = { "b.c" };
	json_t			*carry, *st;
	char			 lim[64], fp[65], err[256];

	ck_assert_int_eq(ledger_admit(l, t, 0, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit(l, t, 0, 0, lim, sizeof(lim)), 0);
	ledger_refused(l);
	ck_assert_int_eq(ledger_admit_write(l, a, 1, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_record_check(l, "unit", 0, "", 0, "d1", NULL,
	    fp), 0);
	ck_assert_int_eq(ledger_acceptance_met(l, "d1"), 1);
	ledger_remember(l, "run_check", "k1", "a1", json_true());
	ledger_remember(l, "deploy", "k2", "a2", NULL);	/* in flight */
	carry = ledger_export(l, 20 * 1000);
	ledger_free(l);

	/* Resumed on another clock: what was spent is spent. */
	r = ledger_new(m, 5000);
	ck_assert_int_eq(ledger_restore(r, carry, 5000, err, sizeof(err)), 0);
	ck_assert_int_eq(ledger_steps(r), 2);
	ck_assert_int_eq(ledger_refused_calls(r), 1);
	ck_assert_int_eq(ledger_time_left(r, 5000), 40 * 1000);
	/* Keys used before, done or in flight, are refused; others not. */
	ck_assert_int_eq(ledger_replay(r, "run_check", "k1", "a1", &st), 3);
	ck_assert_int_eq(ledger_replay(r, "deploy", "k2", "a2", &st), 3);
	ck_assert_int_eq(ledger_replay(r, "run_check", "k2", "a1", &st), 0);
	ck_assert_int_eq(ledger_replay(r, "deploy", "k1", "a1", &st), 0);
	/* The pass is stale on every digest, "" included. */
	ck_assert_int_eq(ledger_acceptance_met(r, "d1"), 0);
	ck_assert_int_eq(ledger_acceptance_met(r, ""), 0);
	st = ledger_status(r, "", 5000);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(st, "gates"), 0), "state")), "stale");
	json_decref(st);
	/* a.c again is no new file; b.c is the second of two. */
	ck_assert_int_eq(ledger_admit_write(r, a, 1, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(r, b, 1, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit(r, t, 5000, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit(r, t, 5000, 0, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxModelSteps");
	json_decref(carry);

	/* A stop is carried; what does not parse is refused. */
	carry = ledger_export(r, 6000);
	ledger_free(r);
	r = ledger_new(m, 0);
	ck_assert_int_eq(ledger_restore(r, carry, 0, err, sizeof(err)), 0);
	ck_assert_str_eq(ledger_stopped(r), "maxModelSteps");
	/* Carried on through a second resume. */
	ck_assert_int_eq(ledger_replay(r, "run_check", "k1", "a1", &st), 3);
	ledger_free(r);
	json_array_append_new(json_object_get(carry, "idempotencyKeys"),
	    json_string("not a digest"));
	r = ledger_new(m, 0);
	ck_assert_int_eq(ledger_restore(r, carry, 0, err, sizeof(err)),
	    AL_ERR_FORMAT);
	ledger_free(r);
	json_array_remove(json_object_get(carry, "idempotencyKeys"),
	    json_array_size(json_object_get(carry, "idempotencyKeys")) - 1);
	json_object_set_new(carry, "steps", json_integer(-1));
	r = ledger_new(m, 0);
	ck_assert_int_eq(ledger_restore(r, carry, 0, err, sizeof(err)),
	    AL_ERR_FORMAT);
	ledger_free(r);
	json_decref(carry);
	manifest_free(m);
}
END_TEST

/*
 * Changed paths are kept as their SHA-256, and named for the carry only
 * up to LEDGER_CARRY_PATH_BYTES: the count stays exact in the session
 * (a path written again is no new file) and across a resume (the named
 * paths are known again, the rest carried as a number).
 */
START_TEST(test_ledger_changed_paths_counted_exactly_and_carried)
{
	static const char	 y[] =
	    "tools:\n"
	    "  - name: read_file\n"
	    "    input: { path: workspace_relative_path }\n"
	    "    output: { content: string }\n"
	    "    sideEffect: none\n"
	    "    timeoutMs: 1000\n"
	    "runBudget:\n"
	    "  maxChangedFiles: 101\n";
	struct manifest		*m;
	struct ledger		*l, *r;
	json_t			*carry, *st;
	char			*buf, lim[64], err[512];
	const char		*v[100], *one[1];
	size_t			 i, named;

	ck_assert_msg(manifest_load_buffer("t.yaml", y, sizeof(y) - 1, &m,
	    err, sizeof(err)) == 0, "%s", err);
	/* 100 paths of 4000 bytes: 400 KB of names. */
	buf = calloc(100, 4001);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < 100; i++) {
		memset(buf + i * 4001, 'd', 3995);
		snprintf(buf + i * 4001 + 3995, 6, "%05zu", i);
		v[i] = buf + i * 4001;
	}
	l = ledger_new(m, 0);
	ck_assert_int_eq(ledger_admit_write(l, v, 50, 0, lim, sizeof(lim)), 0);
	ck_assert_int_eq(ledger_admit_write(l, v, 100, 0, lim, sizeof(lim)),
	    0);
	ck_assert_int_eq(ledger_admit_write(l, v + 20, 80, 0, lim,
	    sizeof(lim)), 0);
	st = ledger_status(l, "", 0);
	ck_assert_int_eq((int)json_number_value(json_object_get(
	    json_object_get(json_object_get(st, "budgets"), "maxChangedFiles"),
	    "used")), 100);
	json_decref(st);
	carry = ledger_export(l, 0);
	ledger_free(l);
	named = json_array_size(json_object_get(carry, "changedFiles"));
	ck_assert_uint_eq(named, LEDGER_CARRY_PATH_BYTES / 4004);
	ck_assert_int_eq(json_integer_value(json_object_get(carry,
	    "changedUncounted")), (json_int_t)(100 - named));

	/* A named path again is none new; one more fits, two do not. */
	r = ledger_new(m, 0);
	ck_assert_int_eq(ledger_restore(r, carry, 0, err, sizeof(err)), 0);
	one[0] = json_string_value(json_array_get(json_object_get(carry,
	    "changedFiles"), named - 1));
	ck_assert_int_eq(ledger_admit_write(r, one, 1, 0, lim, sizeof(lim)),
	    0);
	one[0] = "new.c";
	ck_assert_int_eq(ledger_admit_write(r, one, 1, 0, lim, sizeof(lim)),
	    0);
	one[0] = "newer.c";
	ck_assert_int_eq(ledger_admit_write(r, one, 1, 0, lim, sizeof(lim)),
	    AL_ERR_BUDGET);
	ck_assert_str_eq(lim, "maxChangedFiles");
	ledger_free(r);
	json_decref(carry);
	free(buf);
	manifest_free(m);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("ledger");
	TCase	*tc = tcase_create("budgets");
	SRunner	*sr;
	int	 failed;

	tcase_add_test(tc, test_ledger_steps_stop_the_session);
	tcase_add_test(tc, test_ledger_cost_elapsed_and_parallel);
	tcase_add_test(tc, test_ledger_changed_files_and_dependencies);
	tcase_add_test(tc,
	    test_ledger_dependency_counted_by_the_directories_on_its_way);
	tcase_add_test(tc, test_ledger_patch_attempts_per_failing_gate);
	tcase_add_test(tc, test_ledger_agent_edits_are_attempts);
	tcase_add_test(tc, test_ledger_write_undone_gives_back_its_count);
	tcase_add_test(tc, test_ledger_repeated_fingerprint_after_patches_stops);
	tcase_add_test(tc, test_ledger_idempotency_replay_conflict_in_flight);
	tcase_add_test(tc, test_ledger_acceptance_only_on_the_current_digest);
	tcase_add_test(tc, test_ledger_gate_with_changed_pinned_code_does_not_count);
	tcase_add_test(tc, test_ledger_restore_carries_the_budget_but_no_pass);
	tcase_add_test(tc, test_ledger_changed_paths_counted_exactly_and_carried);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
