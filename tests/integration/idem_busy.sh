#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An idempotencyKey remembers what a call did, not a refusal that did
# nothing and said "retry": a call a human approved while
# maxParallelProcesses was full is refused "busy" (retryable) as it
# starts; its retry with the same key, once the slot is free, runs
# (after a new approval), and is not answered with the old "busy" for
# ever.  A retry that arrives while the busy call is still waiting gets
# the busy answer too (it is concurrent), and the key is then free.
# A retryable error of a call that did run (a timeout) is still what the
# key did: its retry is replayed, nothing runs twice.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: gated_sleep
    input: { secs: integer, idempotencyKey: string }
    output: { exitCode: integer }
    command: ["sleep", "{secs}"]
    sideEffect: sandbox_process
    authorization: approval
    timeoutMs: 60000
  - name: slow
    input: { secs: integer, idempotencyKey: string }
    output: { exitCode: integer }
    command: ["sleep", "{secs}"]
    sideEffect: sandbox_process
    timeoutMs: 1000
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

mcp_send '{"jsonrpc":"2.0","id":"g1","method":"tools/call","params":{"name":"gated_sleep","arguments":{"secs":2,"idempotencyKey":"k1"}}}'
mcp_send '{"jsonrpc":"2.0","id":"g2","method":"tools/call","params":{"name":"gated_sleep","arguments":{"secs":2,"idempotencyKey":"k2"}}}'
ids=$(pending_ids 2)
check "both calls wait for a human" test "$(printf '%s\n' "$ids" | grep -c .)" -eq 2
for id in $ids; do
	"$AIRLOCK" approve "$id" --yes >>"$T/approve.out" 2>&1
done
mcp_wait_id g1 20
r1=$R
mcp_wait_id g2 20
r2=$R
# Which one was busy, and its key.
R=$r1
if [ "$(r_is_error)" = true ]; then busykey=k1; else busykey=k2; R=$r2; fi
expect_error_class "of two approved calls past the limit, one is busy" busy
if [[ $R =~ [{,]\"retryable\":true ]]; then pass "busy says retry"; else fail "busy says retry"; fi

# The slot is free: the retry with the same key runs (a new approval).
mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"g3\",\"method\":\"tools/call\",\"params\":{\"name\":\"gated_sleep\",\"arguments\":{\"secs\":2,\"idempotencyKey\":\"$busykey\"}}}"
if ids=$(pending_ids 1); then
	for id in $ids; do
		"$AIRLOCK" approve "$id" --yes >>"$T/approve.out" 2>&1
	done
fi
mcp_wait_id g3 20
expect_ok_result "the retry of a busy call with its idempotencyKey runs"

# A timeout is retryable too, but the command ran: the key is used up.
mcp_call slow '{"secs":5,"idempotencyKey":"t1"}' 20
expect_error_class "a command past its timeoutMs" timeout
mcp_call slow '{"secs":5,"idempotencyKey":"t1"}' 20
expect_error_class "its retry with the same key is the same answer" timeout
sess=$(newest_session)
mcp_stop
n=$(grep -c '"runner_start".*"gated_sleep"' "$sess/audit.jsonl")
expect_eq "two gated_sleep runners started (the first and the retry)" "$n" 2
n=$(grep -c '"runner_start".*"slow"' "$sess/audit.jsonl")
expect_eq "one slow runner started (the retry was replayed)" "$n" 1
n=$(grep -c '"idempotent_replay".*"gated_sleep"' "$sess/audit.jsonl")
expect_eq "no gated_sleep call was replayed" "$n" 0

finish
