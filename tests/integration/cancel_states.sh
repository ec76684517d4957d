#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# notifications/cancelled stops a call in every state, not only while its
# command runs.  Before, a call in any other state went on after the
# client had given up on it:
#   (a) waiting for a human: the approver could still say yes, and the
#       privileged action then ran for nobody.  Now the approval is
#       withdrawn: gone from airlock pending, an approve of it is refused
#       naming the cancel (airlock approve, and the control socket for an
#       approver who listed it before), audited; the action never runs.
#   (b) held while another call's change set lands: it started once the
#       land was done.  Now it never starts.
#   (c) its run ended while another set landed: its set landed next.
#       Now nothing of it lands.
#   (d) digesting the workspace before its check: the check ran once the
#       digest came.  Now it never starts.
#   (e) a cancel after the set began landing does not half-apply it: the
#       land completes, and cancel_request says stopped: false.
#   (f) an idempotent retry waiting for the original stops waiting; the
#       original's key stays in flight: the other retries still wait for
#       its result, and the command does not run twice.
#   (g) a job_output waiting on a job (waitMs) stopped only at its
#       deadline.  Now it is answered cancelled at once; the job goes on.
#   (h) an airlock/session/status waiting for its workspace digest was
#       answered when the digest came, and the cancel recorded
#       stopped: false.  Now it is answered at once with an error.
# The lander and the digest worker are stopped (SIGSTOP) to hold a call
# in a state for as long as the test needs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
UC="$top_builddir/tests/unixclient"
ws=$(make_workspace)
# A pinned approver key: a token signed before the cancel is refused too.
"$AIRLOCK" approver keygen "$T/alice" >/dev/null 2>&1
cat >"$T/m.yaml" <<YAML
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
  - name: deploy
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "-c", "echo deployed >deployed.txt"]
    sideEffect: sandbox_process
    authorization: approval
    timeoutMs: 60000
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string? }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
  - name: bg
    command: ["sh", "-c", "sleep 6; echo bg >bg.txt"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 30000
    jobs: { maxBlockMs: 5000 }
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
checks:
  mark: ["sh", "-c", "echo checked >checked.txt"]
  once: ["sh", "-c", "sleep 3; echo ran >>once.txt"]
approvals:
  approvers: [root]
  ttlSeconds: 120
  keys:
    - { name: alice, key: "$(cat "$T/alice.pub")" }
YAML
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
sock="$AIRLOCK_RUNTIME_DIR/$(basename "$sess").sock"
log="$sess/audit.jsonl"
cancel() {	# ID REASON
	mcp_send "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"$1\",\"reason\":\"$2\"}}"
}
# audited EVENT ID: an EVENT record for request ID is in the log.
# (jq -e would say what the log's last record did.)
audited() { [ -n "$(jq -c --arg e "$1" --arg i "$2" \
    'select(.event == $e and .fields.id == $i)' "$log")" ]; }
wait_audited() {	# EVENT ID
	local i
	for i in $(seq 300); do audited "$1" "$2" && return 0; sleep 0.1; done
	return 1
}
# none FILTER: no record of the log matches the jq FILTER.
none() { [ -z "$(jq -c "select($1)" "$log")" ]; }
# took: ms since $t0.
took() { echo $((($(date +%s%N) - t0) / 1000000)); }

# ===== (a) a call waiting for a human ========================================
mcp_send '{"jsonrpc":"2.0","id":"a1","method":"tools/call","params":{"name":"deploy","arguments":{}}}'
for i in $(seq 200); do
	p=$("$AIRLOCK" pending --json 2>/dev/null |
	    jq -c '.pending[] | select(.tool == "deploy")')
	[ -n "$p" ] && break
	sleep 0.1
done
id=$(printf '%s' "$p" | jq -r .id)
digest=$(printf '%s' "$p" | jq -r .digest)
check "deploy waits for a human (airlock pending lists it)" test -n "$id" -a -n "$digest"
"$AIRLOCK" pending --json >"$T/req.json"
"$AIRLOCK" approve --sign --key "$T/alice" --host-key "$("$AIRLOCK" audit key 2>/dev/null)" \
    --yes --id "$id" "$T/req.json" --out "$T/alice.tok" >/dev/null 2>&1
check "an approver signs a grant of it (before the cancel)" test -s "$T/alice.tok"
t0=$(date +%s%N)
cancel a1 "the user pressed Esc"
mcp_wait_id a1 20
expect_error_class "the cancelled call is answered cancelled" cancelled
check "... at once ($(took) ms)" test "$(took)" -lt 4000
expect_contains "... saying its approval was withdrawn" "$(jr .result.structuredContent.message)" "withdrawn"
check "the approval is gone from airlock pending" \
    test -z "$("$AIRLOCK" pending --json | jq -c --arg i "$id" '.pending[] | select(.id == $i)')"
"$AIRLOCK" approve "$id" --yes >"$T/approve.out" 2>&1
rc=$?
check "airlock approve of it afterwards fails (exit $rc)" test "$rc" -ne 0
expect_contains "... saying it was withdrawn because the agent cancelled the call" \
    "$(cat "$T/approve.out")" "withdrawn: the agent cancelled the call"
expect_not_contains "... and not that it approved anything" "$(cat "$T/approve.out")" "approved $id"
# An approver who listed it before the cancel still holds its digest:
# the session itself refuses the decision.
r=$(printf '{"op":"approve","id":"%s","digest":"%s"}\n' "$id" "$digest" | "$UC" "$sock")
expect_contains "the control socket refuses to approve it, naming the cancel" "$r" \
    "withdrawn: the agent cancelled the call"
out=$("$AIRLOCK" approve --token - <"$T/alice.tok" 2>&1)
expect_contains "the signed grant delivered after the cancel is refused, naming the cancel" \
    "$out" "withdrawn: the agent cancelled the call"
check "... audited as a token refused for a withdrawn approval" \
    test -n "$(jq -c --arg a "$id" 'select(.event == "approval_token_refused" and .fields.refused == "withdrawn" and .fields.approval == $a)' "$log")"
sleep 1
check "the action never ran: deployed.txt is absent" test ! -e "$ws/deployed.txt"
check "no runner started for it" none '.event == "runner_start" and .fields.tool == "deploy"' 
check "no grant is in the log" sh -c "! grep -q '\"approval_granted\"' '$log'"
expect_eq "the withdrawal is audited with the approval's id and the cancel as its reason" \
    "$(jq -r --arg a "$id" 'select(.event == "approval_withdrawn" and .fields.approval == $a) | .fields.reason' "$log")" \
    "the agent cancelled the call (notifications/cancelled)"
expect_eq "cancel_request says the call was stopped while it awaited approval $id" \
    "$(jq -c 'select(.event == "cancel_request" and .fields.id == "a1") | [.fields.stopped, .fields.state, .fields.approval]' "$log")" \
    "[true,\"awaiting_approval\",\"$id\"]"

# ===== (b), (c), (e): while a change set lands ================================
lander=$(pgrep -P "$MCP_PID" -x airlock-lander)
check "the lander runs" test -n "$lander"
kill -STOP $lander
# q1 ends while l1's set lands (c); h1 arrives meanwhile and is held (b).
mcp_send '{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":{"name":"sh","arguments":{"command":"sleep 2; echo q >q.txt"}}}'
mcp_send '{"jsonrpc":"2.0","id":"l1","method":"tools/call","params":{"name":"sh","arguments":{"command":"echo l >l.txt"}}}'
check "l1's run ended (its set lands, stuck)" wait_audited runner_end l1
mcp_send '{"jsonrpc":"2.0","id":"h1","method":"tools/call","params":{"name":"sh","arguments":{"command":"echo h >h.txt"}}}'
mcp_rpc ping '{}'
check "h1 is held: read, not decided" none '.event == "decision" and .fields.id == "h1"' 
t0=$(date +%s%N)
cancel h1 "held"
mcp_wait_id h1 20
expect_error_class "(b) the held call is answered cancelled" cancelled
check "... at once, while the land is still stopped ($(took) ms)" test "$(took)" -lt 4000
check "q1's run ended while l1's set landed" wait_audited runner_end q1
cancel q1 "queued"
mcp_wait_id q1 20
expect_error_class "(c) the call whose set waited to land is answered cancelled" cancelled
cancel l1 "too late"
kill -CONT $lander
mcp_wait_id l1 30
expect_ok_result "(e) the call whose set was landing completes all the same"
check "... and its set landed whole" grep -qx l "$ws/l.txt"
mcp_call sh '{"command":"echo after >after.txt"}'
expect_ok_result "the next call runs"
check "(b) the held call never ran: h.txt is absent" test ! -e "$ws/h.txt"
check "... nor was it decided or started" none '(.event == "decision" or .event == "runner_start") and .fields.id == "h1"' 
check "(c) nothing of the queued set landed: q.txt is absent" test ! -e "$ws/q.txt"

# ===== (d) a call digesting the workspace =====================================
digester=$(pgrep -P "$MCP_PID" -x airlock-digest)
check "the digest worker runs" test -n "$digester"
kill -STOP $digester
mcp_send '{"jsonrpc":"2.0","id":"d1","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"mark"}}}'
mcp_rpc ping '{}'
t0=$(date +%s%N)
cancel d1 "digesting"
mcp_wait_id d1 20
expect_error_class "(d) the digesting call is answered cancelled" cancelled
check "... at once, while the digest is stopped ($(took) ms)" test "$(took)" -lt 4000
kill -CONT $digester
mcp_call sh '{"command":"true"}'
expect_ok_result "the next call runs"
sleep 1
check "(d) its check never ran: checked.txt is absent" test ! -e "$ws/checked.txt"
check "... no runner started for it" none '.event == "runner_start" and .fields.id == "d1"' 

# ===== (h) a status request digesting the workspace ===========================
kill -STOP $digester
mcp_send '{"jsonrpc":"2.0","id":"s1","method":"airlock/session/status","params":{}}'
mcp_rpc ping '{}'
t0=$(date +%s%N)
cancel s1 "status"
mcp_wait_id s1 20
expect_eq "(h) the status request is answered with an error" \
    "$(jr -c '[.error.code, .error.message, has("result")]')" \
    '[-32001,"the request was cancelled (notifications/cancelled): no status was taken",false]'
check "... at once, while the digest is stopped ($(took) ms)" test "$(took)" -lt 4000
kill -CONT $digester
mcp_rpc airlock/session/status '{}'
check "a later status is answered" test "$(jr '.result.session | type')" = string

# ===== (f) an idempotent retry waiting for the original =======================
retry() { mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"$1\",\"method\":\"tools/call\",\"params\":{\"name\":\"run_check\",\"arguments\":{\"checkId\":\"once\",\"idempotencyKey\":\"k1\"}}}"; }
retry i1
check "the original runs" wait_audited runner_start i1
retry i2
retry i3
check "two retries wait for it" wait_audited idempotent_retry_waits i3
cancel i2 "retry"
mcp_wait_id i2 20
expect_error_class "(f) the cancelled retry is answered cancelled" cancelled
retry i4
check "a retry after the cancel still waits for the original (its key is in flight)" \
    wait_audited idempotent_retry_waits i4
mcp_wait_id i1 20
expect_ok_result "the original completes"
for i in i3 i4; do
	mcp_wait_id $i 20
	expect_ok_result "the retry $i not cancelled gets the original's result"
done
check "... and the command ran once" test "$(grep -c ran "$ws/once.txt")" = 1

# ===== (g) a job_output waiting on a job ======================================
mcp_call bg '{"blockMs":0}'
jid=$(jr .result.structuredContent.jobId)
check "the job runs in the background" test -n "$jid" -a "$jid" != null
mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"g1\",\"method\":\"tools/call\",\"params\":{\"name\":\"job_output\",\"arguments\":{\"jobId\":\"$jid\",\"waitMs\":20000}}}"
mcp_rpc ping '{}'
t0=$(date +%s%N)
cancel g1 "waiting"
mcp_wait_id g1 20
expect_error_class "(g) the waiting job_output is answered cancelled" cancelled
check "... at once, not at its waitMs ($(took) ms)" test "$(took)" -lt 4000
mcp_call job_output "{\"jobId\":\"$jid\",\"waitMs\":20000}" 30
expect_eq "the job itself went on, and ended" "$(jr .result.structuredContent.status)" exited
check "... its writes landed" test -e "$ws/bg.txt"
mcp_stop
expect_eq "each cancel is recorded with the state it stopped the call in" \
    "$(jq -c 'select(.event == "cancel_request") | [.fields.id, .fields.stopped, .fields.state]' "$log" | tr '\n' ' ')" \
    '["a1",true,"awaiting_approval"] ["h1",true,"held"] ["q1",true,"awaiting_land"] ["l1",false,"landing"] ["d1",true,"digesting"] ["s1",true,"status_digesting"] ["i2",true,"retry_waiting"] ["g1",true,"job_waiting"] '
check "the log verifies" "$AIRLOCK" audit verify "$log"
finish
