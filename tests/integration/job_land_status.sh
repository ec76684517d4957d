#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A job has not "exited" until its change set has landed: a job_output
# waiting on a job (waitMs) whose deadline passes after the job's command
# ended but before its writes landed (here: queued behind another run's
# large change set, about 3 s of landing) must not answer "exited" with
# exit code 0 and no error, when the land then refuses the writes (a
# symlink out of the workspace) and the job is "failed": the waiter waits
# for the land.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

BIGN=${BIGN:-100000}
cat >"$T/m.yaml" <<EOF2
tools:
  - name: bg
    command: ["sh", "-c", "sleep 2; echo x >j1; ln -s /etc/passwd out"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 30000
    jobs: { maxBlockMs: 5000 }
  - name: big
    command: ["sh", "-c", "mkdir big && cd big && seq 1 ${BIGN} | xargs touch"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 30000
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
EOF2

mcp_start "$T/m.yaml" "$ws"
t0=$EPOCHREALTIME
mcp_call bg '{"blockMs":0}' 10
jid=$(printf '%s' "$R" | jq -r '.result.structuredContent.jobId')
check "the job runs in the background" test -n "$jid" -a "$jid" != null
# The big run's set lands while the job ends: the job's set waits.
mcp_send '{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"big","arguments":{}}}'
mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"w1\",\"method\":\"tools/call\",\"params\":{\"name\":\"job_output\",\"arguments\":{\"jobId\":\"$jid\",\"waitMs\":${WAIT_MS:-3000}}}}"
mcp_wait_id w1 60
w1=$R
t1=$EPOCHREALTIME
mcp_wait_id big 60
t2=$EPOCHREALTIME
echo "# big after $(awk -v a="$t0" -v b="$t2" 'BEGIN{printf "%d", (b-a)*1000}') ms"
echo "# w1 after $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%d", (b-a)*1000}') ms: $(printf '%.400s' "$w1")"
mcp_call job_output "{\"jobId\":\"$jid\",\"waitMs\":20000}" 30
final=$(printf '%s' "$R" | jq -r '.result.structuredContent.status // (.result.content[0].text | fromjson | .status)')
first=$(printf '%s' "$w1" | jq -r '.result.structuredContent.status')
check "the job's writes were refused (a symlink out)" test ! -e "$ws/j1"
expect_eq "the job is failed in the end" "$final" failed
# Its deadline passes while the job's set waits behind big's (the job
# ended about 2 s in, big's 100k files land for about 3 s more): the
# answer waits for the land.  On a machine slow enough that the job has
# not ended by then, "running" is the truthful answer.
check "the waiting job_output did not say exited before the land refused it" \
    test "$first" = failed -o "$first" = running
mcp_stop
finish
