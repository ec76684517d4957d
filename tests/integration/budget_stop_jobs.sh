#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A budget stop stops everything that still runs.  Before, once a write
# past maxChangedFiles stopped the session, calls were refused and the
# writes of running jobs were refused when they ended, but a background
# job's processes ran on until their timeout or the session's end, and
# talked to the outside through the egress proxy all the while; so did a
# blocking call's command.  Now the stop kills every running command, a
# job or not: its processes are gone at once, its traffic stops, nothing
# of it lands, each is recorded (run_stopped: which, and why), job_output
# says "stopped" by the budget, and the job's exit event says so too.
# The test runs in a private network and mount namespace: a loopback
# server stands in for the internet (as in egress_wired.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
if [ -z "${AIRLOCK_EGRESS_TEST_NS:-}" ]; then
	AIRLOCK_EGRESS_TEST_NS=1 exec unshare --net --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
H="$top_builddir/tests/proxy_helper"
"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
mcp_env
ws=$(make_workspace)
origin_start 120 "$T/srv.log"
mark="beacon$$"
mark2="sleeper$$"

# The job: every 0.2 s one request to the "outside" through the proxy,
# and one line into a workspace file (which must never land).
cat >"$ws/beacon.sh" <<'SH'
i=0
while :; do
	i=$((i + 1))
	echo "tick $i" >>beacon.txt
	if exec 3<>/dev/tcp/127.0.0.1/3128; then
		printf 'GET http://127.0.0.1:%s/%s-%d HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$1" "$2" "$i" >&3
		cat <&3 >/dev/null
		exec 3<&-
	fi
	sleep 0.2
done
SH
cat >"$T/m.yaml" <<YAML
tools:
  - name: beacon
    command: ["bash", "beacon.sh", "$SP", "$mark"]
    output: { exitCode: integer }
    sideEffect: network
    authorization: allow
    timeoutMs: 60000
    allowAddresses: ["127.0.0.1:$SP"]
    jobs:
      maxBlockMs: 5000
      events:
        - exit: any
  - name: sleeper
    command: ["sh", "-c", "echo started >sleeper.txt; sleep 40; : $mark2"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 2000
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
runBudget:
  maxChangedFiles: 1
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; "$AIRLOCK" check "$T/m.yaml"; exit 1; }

beacons() { cat "$T/srv.log" 2>/dev/null | grep -c "/$mark-"; }
beacons_ge() { [ "$(beacons)" -ge "$1" ]; }
alive() { pgrep -f "$1" >/dev/null; }
gone() { ! pgrep -f "$1" >/dev/null; }

mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
mcp_call beacon '{"blockMs":0}'
jid=$(jr .result.structuredContent.jobId)
expect_eq "the beacon runs as a background job" "$(jr .result.structuredContent.status)" running
mcp_send '{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"sleeper","arguments":{}}}'
check "the job reaches the outside through the proxy" wait_for beacons_ge 3
check "the blocking call's command runs" wait_for alive "$mark2"
check "the job's processes run" alive "$mark"

# A read of the job that waits for news (the job prints nothing).
mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"w1\",\"method\":\"tools/call\",\"params\":{\"name\":\"job_output\",\"arguments\":{\"jobId\":\"$jid\",\"waitMs\":30000}}}"
mcp_call write_file '{"path":"a.txt","content":"a"}'
expect_ok_result "the first write is within maxChangedFiles"
mcp_call write_file '{"path":"b.txt","content":"b"}'
expect_error_class "the second write stops the session" budget_exhausted
t0=$(date +%s%N)

# Within a short time (not at their 60 s timeout, nor the session's end).
short() {	# COND...: within 3 s
	local i=0
	while [ $i -lt 60 ]; do "$@" && return 0; sleep 0.05; i=$((i + 1)); done
	return 1
}
check "the job's processes are gone at once" short gone "$mark"
check "the blocking call's command is gone at once" short gone "$mark2"
# (Up to 20 s for the answer: a loaded machine tears the sandbox down
# late; one answered when its command ended would take 40 s.)
mcp_wait_id s1 20
s1=$R
ms=$((($(date +%s%N) - t0) / 1000000))
R=$s1
expect_error_class "the blocking call is answered budget_exhausted ($ms ms after the stop)" budget_exhausted
expect_contains "... saying its command was killed" "$(jr .result.structuredContent.message)" "this command was killed and nothing of it was applied"
n1=$(beacons)
sleep 1.5
n2=$(beacons)
expect_eq "the job's traffic to the outside stopped ($n1 requests)" "$n2" "$n1"

mcp_wait_id w1 20
expect_eq "the waiting job_output: the job is stopped, not exited or failed" "$(jr .result.structuredContent.status)" stopped
expect_contains "... by the budget, in the text the model reads" "$(jr '.result.content[].text')" \
    "[airlock: $jid was stopped: the run budget is exhausted (maxChangedFiles)"
mcp_rpc airlock/session/status '{}'
expect_eq "the session's status lists the job as stopped by the budget" \
    "$(jr -c ".result.jobs[] | select(.jobId == \"$jid\") | [.tool, .status, .errorClass, .stoppedBy.reason, .stoppedBy.limit]")" \
    '["beacon","stopped","budget_exhausted","budget_stop","maxChangedFiles"]'
check "nothing of the job landed" test ! -e "$ws/beacon.txt"
check "nothing of the blocking call landed" test ! -e "$ws/sleeper.txt"
mcp_stop

expect_contains "the job's exit event says stopped by the budget, nothing applied" \
    "$(cat "$T/notes" 2>/dev/null)" \
    "\"line\":\"$jid was stopped by the run budget (maxChangedFiles) with exit code 137; nothing of it was applied (budget_exhausted)\",\"rule\":0,\"exitCode\":137,\"status\":\"stopped\",\"landed\":false,\"errorClass\":\"budget_exhausted\""
a="$sess/audit.jsonl"
expect_eq "each stopped run is recorded: which, and why" \
    "$(jq -c 'select(.event == "run_stopped") | .fields | [.id, .tool, .jobId, .reason, .limit]' "$a" | sort | tr '\n' ' ')" \
    "[\"s1\",\"sleeper\",null,\"budget_stop\",\"maxChangedFiles\"] [2,\"beacon\",\"$jid\",\"budget_stop\",\"maxChangedFiles\"] "
expect_eq "... after the budget_stop record" \
    "$(jq -r .event "$a" | sed -n '/^budget_stop$/,$p' | grep -c '^run_stopped$')" 2
expect_eq "the job's end is recorded as stopped by the budget" \
    "$(jq -c 'select(.event == "job_end") | .fields | [.status, .reason, .limit, .errorClass]' "$a")" \
    '["stopped","budget_stop","maxChangedFiles","budget_exhausted"]'
expect_eq "no change set of theirs was applied" \
    "$(jq -c 'select(.event == "change_applied") | .fields.id' "$a" | grep -c -e '"s1"' -e '^2$')" 0
# The records' fields are those docs/AUDIT.md lists.
audit_doc_fields "$top_srcdir/docs/AUDIT.md" >"$T/doc"
undoc=
for f in $(jq -r 'select(.event == "run_stopped" or .event == "job_end") | .event as $e | .fields | keys[] | "\($e).\(.)"' "$a" | sort -u); do
	grep -qE "^${f%%.*} ${f#*.} [01]\$" "$T/doc" || undoc="$undoc $f"
done
expect_eq "run_stopped and job_end fields are documented" "$undoc" ""
check "the log verifies" "$AIRLOCK" audit verify -q "$a"
finish
