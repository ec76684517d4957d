#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# runBudget.maxElapsedMinutes bounds the session, runs included: a call
# admitted a moment before the limit, with a timeoutMs of its own far
# beyond it (or a job), ran on past it.  A runner's deadline is now the
# sooner of its timeoutMs and what is left of the session's minutes
# (runner_start's timeoutMs says which).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
cat >"$T/m.yaml" <<'YAML'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 3600000
runBudget:
  maxElapsedMinutes: 1
YAML
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
mcp_call sh '{"command":"true"}'
expect_ok_result "a run within the session's minute"
t=$(jq -r 'select(.event == "runner_start") | .fields.timeoutMs' "$sess/audit.jsonl" | tail -1)
check "its deadline is what is left of the minute, not its hour ($t ms)" \
    test -n "$t" -a "$t" -gt 0 -a "$t" -le 60000
mcp_stop
finish
