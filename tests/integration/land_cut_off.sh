#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A budget stop that ends the session while a change set lands: the set
# was counted and announced (change_landing) before the stop, so it
# lands, but the broker's end abandoned the land without reading its
# outcome: the workspace held the run's 40001 files, and the log went
# from change_landing to session_end with no change_applied and no
# result, which reads as a land cut short (docs/AUDIT.md) when it was
# whole.  An agent cut off by maxRefusedCalls right after the
# announcement left exactly that.  Now the end waits for the land and
# records change_applied before session_end; the log verifies.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
N=40000
cat >"$T/m.yaml" <<'YAML'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 300000
runBudget:
  maxRefusedCalls: 1
YAML
mcp_start "$T/m.yaml" "$ws"
mcp_send "{\"jsonrpc\":\"2.0\",\"id\":100,\"method\":\"tools/call\",\"params\":{\"name\":\"sh\",\"arguments\":{\"command\":\"mkdir d && cd d && seq $N | xargs touch && echo last >zz\"}}}"
L=$(newest_session)/audit.jsonl
announced() { grep -q '"event":"change_landing"' "$L"; }
check "the land is announced" wait_for announced
# Two calls to a tool that does not exist: the second is over
# maxRefusedCalls 1, and the agent is cut off, the session ended.
for i in 7 8; do
	mcp_send "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"nosuch\",\"arguments\":{}}}"
done
mcp_stop
events=$(jq -r .event "$L" | tr '\n' ' ')
expect_contains "the session was cut off" "$events" "budget_stop agent_cut_off"
check "the set landed whole" test -f "$ws/d/$N" -a -f "$ws/d/zz"
expect_contains "its outcome is in the log before the end" "$events" \
    "change_applied session_end"
expect_eq "change_applied names the call" \
    "$(jq -c 'select(.event == "change_applied") | .fields.id' "$L")" 100
expect_eq "no trash directory left" \
    "$(compgen -G "$ws/.airlock-trash-*" | wc -l)" 0
"$AIRLOCK" audit verify "$L" >"$T/verify" 2>&1
expect_contains "the log verifies" "$(cat "$T/verify")" "valid and closed"
finish
