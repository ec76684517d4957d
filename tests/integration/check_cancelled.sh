#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A check the agent cancels once its run has started failed: before, a
# cancelled check was recorded nowhere.  Its output was kept as an
# artifact all the same, so an agent ran its failing check, cancelled it
# once the failure was printed (the code under test then hanging), read
# the failure with resources/read, and patched: its gate never failed,
# so maxPatchAttemptsPerGate counted nothing, nor did
# stopOnRepeatedFailureFingerprint.  Now a cancelled check is a failure
# (exit code 128 + SIGKILL), recorded as a cut-off one is, its gate
# failing on the digest it ran on, and audited (check_failure with
# cancelled: true); a check cancelled before it ran records nothing.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
echo broken >"$ws/flag"
cat >"$T/m.yaml" <<'YAML'
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
    timeoutMs: 30000
checks:
  unit: ["sh", "-c", "grep -qx fixed flag || { echo FAIL: flag is not fixed; sleep 9.0213; exit 1; }"]
gates:
  required: [unit]
runBudget:
  maxPatchAttemptsPerGate: 1
YAML
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
mcp_send '{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"unit"}}}'
check "the check prints its failure and hangs (sanity)" wait_for pgrep -f '^sleep 9[.]0213$'
mcp_send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":100}}'
mcp_wait_id 100 20
expect_eq "the cancelled check is answered cancelled" "$(jr .result.structuredContent.errorClass)" cancelled
mcp_rpc resources/list '{}'
uri=$(jr '.result.resources[] | select(.uri | test("unit")) | .uri' | head -n 1)
mcp_rpc resources/read "{\"uri\":\"$uri\"}"
expect_contains "its output is an artifact the agent reads (sanity)" "$(jr '.result.contents[0].text')" "FAIL: flag is not fixed"
mcp_rpc airlock/session/status '{}'
expect_eq "its gate fails on the digest it ran on" \
    "$(jr '.result.gates[] | select(.checkId == "unit") | .state')" fail
mcp_call write_file '{"path":"flag","content":"try 1\n"}'
expect_ok_result "a patch after it is attempt 1"
mcp_call write_file '{"path":"flag","content":"try 2\n"}'
expect_error_class "the next is attempt 2: the session stops" budget_exhausted
mcp_stop
check "the cancelled failure is audited" \
    grep -q '"check_failure".*"cancelled":true' "$sess/audit.jsonl"
expect_eq "the flag holds the one attempt admitted" "$(cat "$ws/flag")" "try 1"

# The session's end cuts a check short the same way: the agent starts
# it, waits for the failure to be printed, and exits.
echo broken >"$ws/flag"
chmod -R a+rwX "$ws"
A=$(realpath "$AIRLOCK")
CHECK='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"unit"}}}'
{
	echo '#!/bin/sh'
	CONNECT_HOLD=5 connect_calls "$CHECK" | sed 's/$/ \&/'
	echo 'sleep 2'
} >"$T/agent.sh"
chmod 755 "$T/agent.sh"
(cd "$ws" && timeout 60 "$A" run --manifest "$T/m.yaml" --workspace "$ws" \
    -- "$T/agent.sh" >"$T/out" 2>"$T/err")
sess=$(newest_session)
check "the check ran (sanity)" grep -q '"runner_start"' "$sess/audit.jsonl"
check "a check the session's end cut short is a failure, audited" \
    grep -q '"check_failure".*"cancelled":true' "$sess/audit.jsonl"
check "... and the log verifies" "$AIRLOCK" audit verify "$sess/audit.jsonl"
finish
