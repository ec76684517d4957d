#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A job has not "exited" until its change set has landed: a job_output
# waiting on a job (waitMs) whose deadline passes after the job's command
# ended but before its writes landed must not answer "exited" with exit
# code 0 and no error, when the land then refuses the writes (a symlink
# out of the workspace) and the job is "failed": the waiter waits for the
# land.  The lander is stopped (SIGSTOP) to hold the job's set between
# its command's end and its land for as long as the test needs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
# The waiter's deadline: the job's command (a second's sleep) must have
# ended before it, under ASan on a loaded machine too (1.2 s here).
WAIT=10000

cat >"$T/m.yaml" <<EOF2
tools:
  - name: bg
    command: ["sh", "-c", "sleep 1; echo x >j1; ln -s /etc/passwd out"]
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
EOF2

mcp_start "$T/m.yaml" "$ws"
log="$(newest_session)/audit.jsonl"
lander=$(pgrep -P "$MCP_PID" -x airlock-lander)
check "the lander runs" test -n "$lander"
kill -STOP $lander
mcp_call bg '{"blockMs":0}' 10
jid=$(jr .result.structuredContent.jobId)
check "the job runs in the background" test -n "$jid" -a "$jid" != null
# A job_output waits on it (a call arriving while a set lands would be
# held instead, before it waits on anything).
t0=$(date +%s%N)
mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"w1\",\"method\":\"tools/call\",\"params\":{\"name\":\"job_output\",\"arguments\":{\"jobId\":\"$jid\",\"waitMs\":$WAIT}}}"
ended=no
for i in $(seq 300); do
	[ -n "$(jq -c 'select(.event == "runner_end")' "$log")" ] &&
	    { ended=yes; break; }
	sleep 0.05
done
took=$((($(date +%s%N) - t0) / 1000000))
expect_eq "the job's command ended (its set waits for the stopped lander)" "$ended" yes
check "... ${took} ms in, before the waiter's deadline ($WAIT ms)" test "$took" -lt $((WAIT - 1000))
# Its deadline passes while the set waits to land: no answer yet.
mcp_recv $(((WAIT - took) / 1000 + 2))
early=$R
expect_eq "the waiting job_output does not answer when its deadline passes before the land" "$early" ""
kill -CONT $lander
[ -n "$early" ] || mcp_wait_id w1 30
expect_eq "once the land refused the writes, it answers failed" \
    "$(jr .result.structuredContent.status)" failed
check "the job's writes were refused (a symlink out)" test ! -e "$ws/j1"
mcp_call job_output "{\"jobId\":\"$jid\"}" 30
expect_eq "the job is failed in the end" "$(jr .result.structuredContent.status)" failed
mcp_stop
finish
