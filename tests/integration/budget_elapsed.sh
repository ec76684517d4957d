#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# runBudget.maxElapsedMinutes bounds the session, runs included: a call
# admitted a moment before the limit, with a timeoutMs of its own far
# beyond it (or a job), ran on past it.  A runner's deadline is now the
# sooner of its timeoutMs and what is left of the session's minutes
# (runner_start's timeoutMs says which).
# And the minute runs out on its own: a command still running then (here
# a blocking call that wrote a file, then sleeps) was cut off as a
# timeout, and its write landed, the session stopped only when a next
# call came.  Now the session stops at its minute whether or not a call
# comes (budget_stop, maxElapsedMinutes), the command is stopped with it,
# and nothing of it lands.
# A limit too large to count in milliseconds is refused when the manifest
# loads: INT64_MAX minutes wrapped when multiplied into milliseconds, and
# the session (and the agent's own sandbox) stopped at its first call.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

# elapsed_manifest MINUTES: the manifest below with that limit, in $T/big.yaml.
elapsed_manifest() {
	cat >"$T/big.yaml" <<YAML
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
runBudget:
  maxElapsedMinutes: $1
YAML
}
elapsed_manifest 9223372036854775807
out=$("$AIRLOCK" check "$T/big.yaml" 2>&1)
expect_eq "a limit of INT64_MAX minutes is refused when the manifest loads" "$?" 78
expect_contains "... naming the field and the bound" "$out" \
    "big.yaml:9:22: runBudget.maxElapsedMinutes: must be at most 1000000000"
elapsed_manifest 1000000000
mcp_start "$T/big.yaml" "$ws"
mcp_call sh '{"command":"echo ran"}'
expect_ok_result "the largest limit is a long session, not one stopped at once"
mcp_stop
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
check "its deadline is what is left of the minute and half a second, not its hour ($t ms)" \
    test -n "$t" -a "$t" -gt 0 -a "$t" -le 60500
mcp_send '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sh","arguments":{"command":"echo late >late.txt; sleep 600"}}}'
mcp_wait_id 7 90
check "the running command is answered once the minute is up" test -n "$R"
check "... as an error" test "$(r_is_error)" = true
sleep 1
check "what it wrote did not land" test ! -e "$ws/late.txt"
check "the session stopped on its own, no call after (budget_stop maxElapsedMinutes)" \
    grep -q '"budget_stop".*"maxElapsedMinutes"' "$sess/audit.jsonl"
mcp_call sh '{"command":"true"}'
expect_error_class "a call after the minute is refused" budget_exhausted
mcp_stop
finish
