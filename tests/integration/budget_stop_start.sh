#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Once a budget has stopped the session nothing more runs: a run_check
# admitted just before the stop (its workspace digest still being taken
# when a write_file past maxChangedFiles stops the session) is refused as
# its runner would start, not run after the stop (the same guard stops
# a call a human approves after the stop).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
# A workspace big enough that its first digest takes a moment.
mkdir -p "$ws/data"
for i in $(seq 200); do head -c 100000 /dev/urandom >"$ws/data/f$i"; done

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
    timeoutMs: 20000
checks:
  unit.marker: ["sh", "-c", "echo ran"]
runBudget:
  maxChangedFiles: 1
EOF2

mcp_start "$T/m.yaml" "$ws"
# One write: 1 of 1 changed files.
mcp_call write_file '{"path":"a.txt","content":"a"}' 10
expect_ok_result "the first write is within maxChangedFiles"
# The check and, in the same read, a write past the budget.
mcp_send '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"unit.marker"}}}
{"jsonrpc":"2.0","id":"w2","method":"tools/call","params":{"name":"write_file","arguments":{"path":"b.txt","content":"b"}}}'
mcp_wait_id w2 10
expect_error_class "the second write stops the session" budget_exhausted
mcp_wait_id c1 20
c1=$R
echo "# c1: $(printf '%.300s' "$c1")"
sess=$(newest_session)
mcp_stop
R=$c1
expect_error_class "the check admitted before the stop does not run after it" budget_exhausted
# No runner_start after the budget_stop record.
after=$(jq -r '.event' "$sess/audit.jsonl" | sed -n '/^budget_stop$/,$p' | grep -c '^runner_start$')
expect_eq "no runner started after the budget stop" "$after" 0
finish
