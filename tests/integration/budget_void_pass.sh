#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# runBudget.maxPatchAttemptsPerGate counts the patches made while a
# required gate fails, until it passes.  A pass that counts toward no
# gate (its pinned code changed, or the workspace was written while it
# ran) is no pass: before, it ended the count all the same.  An agent
# whose gate failed wrote "exit 0" into the check's pinned script (one
# attempt), ran the check (a pass, void: pinnedCodeChanged), and from
# then on patched without any being counted, until it ran the check
# again; with the script put back, the gate still failing.  Now its
# patches go on counting: the one that puts the script back is the
# second attempt and stops the session under maxPatchAttemptsPerGate: 1.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/tests"
orig='grep -qx fixed flag\n'
printf "$orig" >"$ws/tests/run.sh"
echo broken >"$ws/flag"
cat >"$T/m.yaml" <<'EOF2'
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
    timeoutMs: 10000
checks:
  unit: ["sh", "tests/run.sh"]
gates:
  required: [unit]
runBudget:
  maxPatchAttemptsPerGate: 1
EOF2
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
mcp_call run_check '{"checkId":"unit"}'
expect_eq "the gate fails" "$(jr .result.structuredContent.exitCode)" 1
mcp_call write_file '{"path":"tests/run.sh","content":"exit 0\n"}'
expect_ok_result "the agent writes exit 0 into the check's script (attempt 1)"
mcp_call run_check '{"checkId":"unit"}'
expect_eq "the check passes" "$(jr .result.structuredContent.exitCode)" 0
expect_contains "... a pass that does not count" "$R" "does not count toward acceptance"
mcp_call write_file "{\"path\":\"tests/run.sh\",\"content\":\"$orig\"}"
expect_error_class "the script put back is attempt 2: the session stops" budget_exhausted
expect_contains "... for maxPatchAttemptsPerGate" "$(jr .result.structuredContent.message)" maxPatchAttemptsPerGate
mcp_call write_file '{"path":"flag","content":"still broken\n"}'
expect_error_class "no patch after it lands" budget_exhausted
mcp_stop
check "the stop is audited" grep -q '"budget_stop".*maxPatchAttemptsPerGate' "$sess/audit.jsonl"
expect_eq "the pinned script is back, the flag untouched" "$(cat "$ws/flag")" broken
finish
