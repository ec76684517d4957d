#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A background job refused at its end counts as a refused call
# (runBudget.maxRefusedCalls), as the same command's blocking call does:
# a job whose change set the write policy refused (a symlink out of the
# workspace) was not counted (jobs_complete() answered before the
# count), so an agent could have its writes refused in the background
# without end.  A job that exits non-zero or that the agent kills is not
# refused, and is not counted.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: escape
    command: ["sh", "-c", "ln -s /etc/passwd out"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
    jobs: { maxBlockMs: 5000 }
  - name: fails
    command: ["sh", "-c", "exit 3"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
    jobs: { maxBlockMs: 5000 }
  - name: sleeps
    command: ["sleep", "30"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 40000
    jobs: { maxBlockMs: 5000 }
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
  - name: job_kill
    action: job_kill
    input: { jobId: string }
    output: { jobId: string, status: string }
    sideEffect: none
    timeoutMs: 20000
runBudget:
  maxRefusedCalls: 2
EOF2
# job TOOL: starts TOOL in the background and waits for its job_end
# record (a call made before it is admitted, whatever the job's end).
job() {
	mcp_call "$1" '{"blockMs":0}' 20
	jid=$(jr .result.structuredContent.jobId)
	for i in $(seq 300); do
		[ -n "$(jq -c "select(.event == \"job_end\" and .fields.jobId == \"$jid\")" "$log")" ] && break
		sleep 0.05
	done
}
# refused: the refused calls counted, in $N (not in a subshell: the
# request ids count on).
refused() { mcp_rpc airlock/session/status '{}'; N=$(jr .result.budgets.maxRefusedCalls.used); }

mcp_start "$T/m.yaml" "$ws"
log="$(newest_session)/audit.jsonl"
job fails
mcp_call job_output "{\"jobId\":\"$jid\"}"
expect_eq "a job that exits 3 ends" "$(jr .result.structuredContent.exitCode)" 3
mcp_call sleeps '{"blockMs":0}' 20
jid=$(jr .result.structuredContent.jobId)
mcp_call job_kill "{\"jobId\":\"$jid\"}" 30
expect_eq "a job the agent kills ends killed" "$(jr .result.structuredContent.status)" killed
refused
expect_eq "neither is a refused call" "$N" 0

job escape
mcp_call job_output "{\"jobId\":\"$jid\"}"
expect_eq "a job whose change set is refused fails" "$(jr .result.structuredContent.status)" failed
check "... its symlink out did not land" test ! -e "$ws/out" -a ! -L "$ws/out"
refused
expect_eq "... and is a refused call" "$N" 1
job escape
mcp_call job_output "{\"jobId\":\"$jid\"}"
expect_contains "the second spends maxRefusedCalls: the next call is refused" \
    "$(jr .error.message)" "maxRefusedCalls: 2 calls were refused"
mcp_stop
expect_eq "the agent is cut off by maxRefusedCalls" \
    "$(jq -c 'select(.event == "agent_cut_off") | .fields.limit' "$log")" \
    '"maxRefusedCalls"'
finish
