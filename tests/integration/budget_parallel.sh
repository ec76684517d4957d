#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# runBudget.maxParallelProcesses counts every runner, whatever the tool's
# sideEffect says and however long an approval kept the call waiting:
#   (a) a command tool declared network or none does not start a second
#       process past the limit while another runs (it is "busy");
#   (b) calls admitted while nothing ran, then held for a human's
#       approval, do not all start at once when the human approves them:
#       the limit is counted again when a runner starts.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: hold
    input: { secs: integer }
    output: { exitCode: integer }
    command: ["sleep", "{secs}"]
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: net_sleep
    input: { secs: integer }
    output: { exitCode: integer }
    command: ["sleep", "{secs}"]
    sideEffect: network
    authorization: allow
    timeoutMs: 20000
  - name: quiet_sleep
    input: { secs: integer }
    output: { exitCode: integer }
    command: ["sleep", "{secs}"]
    sideEffect: none
    timeoutMs: 20000
  - name: gated_sleep
    input: { secs: integer }
    output: { exitCode: integer }
    command: ["sleep", "{secs}"]
    sideEffect: sandbox_process
    authorization: approval
    timeoutMs: 60000
runBudget:
  maxParallelProcesses: 1
approvals:
  approvers: [root]
  ttlSeconds: 60
EOF2

# pending_ids N: waits for N pending gated_sleep approvals; prints them.
pending_ids() {
	local i ids
	for i in $(seq 200); do
		ids=$("$AIRLOCK" pending 2>/dev/null |
		    awk '$3 == "gated_sleep" { print $1 }')
		[ "$(printf '%s\n' "$ids" | grep -c .)" -ge "$1" ] &&
		    { echo "$ids"; return 0; }
		sleep 0.1
	done
	return 1
}

mcp_start "$T/m.yaml" "$ws"

# ===== (a) a tool's declared sideEffect does not exempt its process ==========
mcp_send '{"jsonrpc":"2.0","id":"h1","method":"tools/call","params":{"name":"hold","arguments":{"secs":3}}}'
sleep 0.5
mcp_send '{"jsonrpc":"2.0","id":"n1","method":"tools/call","params":{"name":"net_sleep","arguments":{"secs":3}}}'
mcp_wait_id n1 10
expect_error_class "a sideEffect: network command beyond maxParallelProcesses is busy" busy
mcp_send '{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":{"name":"quiet_sleep","arguments":{"secs":3}}}'
mcp_wait_id q1 10
expect_error_class "a sideEffect: none command beyond maxParallelProcesses is busy" busy
mcp_wait_id h1 20
expect_ok_result "the process that held the slot finishes"
mcp_call net_sleep '{"secs":0}'
expect_ok_result "with no process running, the network command runs"

# ===== (b) approved calls start no more processes than the limit ==============
mcp_send '{"jsonrpc":"2.0","id":"g1","method":"tools/call","params":{"name":"gated_sleep","arguments":{"secs":4}}}'
mcp_send '{"jsonrpc":"2.0","id":"g2","method":"tools/call","params":{"name":"gated_sleep","arguments":{"secs":4}}}'
ids=$(pending_ids 2)
check "both calls wait for a human" test "$(printf '%s\n' "$ids" | grep -c .)" -eq 2
for id in $ids; do
	"$AIRLOCK" approve "$id" --yes >>"$T/approve.out" 2>&1
done
mcp_wait_id g1 20
r1=$R
mcp_wait_id g2 20
r2=$R
busy=0 ok=0
for R in "$r1" "$r2"; do
	[ "$(r_is_error)" = false ] && ok=$((ok + 1))
	[ "$(r_is_error)" = true ] && [ "$(r_class)" = busy ] && busy=$((busy + 1))
done
expect_eq "of two approved calls, one runs and one is busy (ok busy)" "$ok $busy" "1 1"
sess=$(newest_session)
mcp_stop
n=$(grep -c '"runner_start".*"gated_sleep"' "$sess/audit.jsonl")
expect_eq "one gated_sleep runner started" "$n" 1

finish
