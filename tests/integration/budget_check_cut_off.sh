#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A check cut off by its timeout (or its memory limit) failed: its
# failure counts toward runBudget.stopOnRepeatedFailureFingerprint and
# makes its gate fail, so the patches after it count toward
# maxPatchAttemptsPerGate.  Before, such a run was recorded nowhere in
# the ledger: an agent whose check hung (a test it broke into a loop)
# patched and re-ran it without end, neither budget ever counting, the
# gate "not_run" in the session status.  So was a check whose change set
# the write policy refused (change_refused): an agent's test that leaves
# a link out of the workspace made every failing run of it uncounted.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env

manifest() {	# BUDGET (a runBudget line) [CHECK argv]
	local check=${2:-}

	[ -n "$check" ] ||
	    check='["sh", "-c", "echo FAIL: still waiting for the lock; sleep 30"]'
	cat <<EOF2
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 2000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 700
checks:
  unit: $check
gates:
  required: [unit]
runBudget:
  $1
EOF2
}

# loop: four rounds of a patch and the check; prints each round's
# write_file and run_check outcome (errorClass, or ok).
loop() {
	local i out=""
	for i in 1 2 3 4; do
		mcp_call write_file "{\"path\":\"f.txt\",\"content\":\"try $i\"}" 10
		if [ "$(r_is_error)" = true ]; then out="$out w:$(r_class)"; else out="$out w:ok"; fi
		mcp_call run_check '{"checkId":"unit"}' 20
		if [ "$(r_is_error)" = true ]; then out="$out c:$(r_class)"; else out="$out c:ok"; fi
	done
	echo $out
}

manifest "stopOnRepeatedFailureFingerprint: 2" >"$T/fp.yaml"
ws=$(make_workspace)
mcp_start "$T/fp.yaml" "$ws"
got=$(loop)
mcp_send '{"jsonrpc":"2.0","id":"st","method":"airlock/session/status","params":{}}'
mcp_wait_id st 20
gate=$(jr '.result.gates[0].state')
sess=$(newest_session)
mcp_stop
expect_eq "the same timeout twice on changed workspaces stops the session" \
    "$got" "w:ok c:timeout w:ok c:timeout w:budget_exhausted c:budget_exhausted w:budget_exhausted c:budget_exhausted"
expect_eq "the stop is audited" \
    "$(grep -c '"budget_stop".*stopOnRepeatedFailureFingerprint' "$sess/audit.jsonl")" 1
expect_eq "the gate reads fail, not not_run" "$gate" fail
expect_eq "each timeout is a check_failure record" \
    "$(grep -c '"check_failure"' "$sess/audit.jsonl")" 2

manifest "maxPatchAttemptsPerGate: 1" >"$T/pa.yaml"
ws=$(make_workspace)
mcp_start "$T/pa.yaml" "$ws"
got=$(loop)
sess=$(newest_session)
mcp_stop
expect_eq "after a timed-out check, the second patch stops the session" \
    "$got" "w:ok c:timeout w:ok c:timeout w:budget_exhausted c:budget_exhausted w:budget_exhausted c:budget_exhausted"
expect_eq "the stop is audited" \
    "$(grep -c '"budget_stop".*maxPatchAttemptsPerGate' "$sess/audit.jsonl")" 1

manifest "stopOnRepeatedFailureFingerprint: 2" '["sh", "tests/run.sh"]' >"$T/rf.yaml"
ws=$(make_workspace)
mkdir -p "$ws/tests"
printf 'ln -sf /etc/passwd leak\necho "FAIL: the same failure"\nexit 1\n' >"$ws/tests/run.sh"
mcp_start "$T/rf.yaml" "$ws"
got=$(loop)
sess=$(newest_session)
mcp_stop
expect_eq "a check whose writes are refused, failing the same twice, stops the session" \
    "$got" "w:ok c:change_refused w:ok c:change_refused w:budget_exhausted c:budget_exhausted w:budget_exhausted c:budget_exhausted"
expect_eq "the stop is audited" \
    "$(grep -c '"budget_stop".*stopOnRepeatedFailureFingerprint' "$sess/audit.jsonl")" 1
check "nothing of it landed" test ! -L "$ws/leak"
finish
