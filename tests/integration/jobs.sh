#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Background jobs and pushed events over MCP (issue 13, items 4 and 5):
# blockMs turns a long run into a job; job_output returns only what is new
# (waiting for it when asked); job_kill ends a job; jobs count against
# maxParallelProcesses and die with the session; a job's writes land when
# it ends; event rules push notifications/message and the matching lines
# reach the tail of the agent's next result, once.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mark="jobmark$$"

M="$T/jobs.yaml"
cat >"$M" <<YAML
tools:
  - name: slow
    command: ["sh", "-c", "echo start; for i in 1 2 3; do echo tick \$i; sleep 0.8; done; echo 'FAIL: boom'; exit 3"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
    jobs:
      maxBlockMs: 5000
      events:
        - match: "^FAIL"
        - exit: nonzero
  - name: server
    command: ["sh", "-c", "sleep 0.3; echo listening on 8080; while :; do sleep 0.2; done; : $mark"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
    jobs:
      maxBlockMs: 5000
      events:
        - match: "listening on [0-9]+"
  - name: writer
    command: ["sh", "-c", "sleep 0.5; echo data > written.txt; echo wrote"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
    jobs: { maxBlockMs: 5000 }
  - name: quick
    command: ["sh", "-c", "echo quick"]
    output: { exitCode: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
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
    output: { jobId: string, status: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
runBudget:
  maxParallelProcesses: 2
YAML

"$AIRLOCK" check "$M" >"$T/check.out" 2>&1
expect_eq "the manifest with jobs: loads" "$?" 0
"$AIRLOCK" check -v "$M" >"$T/checkv.out" 2>&1
expect_contains "airlock check -v shows a tool's jobs" "$(cat "$T/checkv.out")" "    jobs:
      maxBlockMs: 5000
      events:
        - match: \"^FAIL\"
        - exit: nonzero"
cat >"$T/bad.yaml" <<'YAML'
tools:
  - name: read_file
    sideEffect: none
    timeoutMs: 2000
    jobs: { maxBlockMs: 100 }
YAML
"$AIRLOCK" check "$T/bad.yaml" >"$T/bad.out" 2>&1
expect_contains "jobs: on a tool that runs no process is refused" "$(cat "$T/bad.out")" "tools[0].jobs: only tools with action exec or command"
sed 's/"\^FAIL"/"(unclosed"/' "$M" >"$T/bad2.yaml"
"$AIRLOCK" check "$T/bad2.yaml" >"$T/bad2.out" 2>&1
expect_contains "a bad event regex is refused" "$(cat "$T/bad2.out")" "tools[0].jobs.events[0].match: not a POSIX extended regular expression"

mcp_start "$M" "$ws"

mcp_rpc tools/list '{}'
expect_eq "tools/list offers blockMs up to maxBlockMs" \
    "$(jr -c '.result.tools[] | select(.name == "slow") | .inputSchema.properties.blockMs | [.type, .maximum]')" '["integer",5000]'

mcp_call quick '{"blockMs":5000}'
expect_ok_result "a command done within blockMs answers as usual"
expect_eq "... with its result and no job" "$(jr -c '.result.structuredContent | [.exitCode, .output, .jobId]')" '[0,"quick\n",null]'
mcp_call quick '{"blockMs":99999}'
expect_error_class "blockMs past maxBlockMs is refused" invalid_arguments

# --- a job, read incrementally ------------------------------------------------
mcp_call slow '{"blockMs":0}'
expect_ok_result "blockMs 0 answers at once"
expect_eq "... as a running job" "$(jr -c '.result.structuredContent | [.jobId, .status]')" '["job-1","running"]'
expect_not_contains "... before the run printed its end" "$(jr .result.structuredContent.output)" "FAIL: boom"
expect_contains "the text says how to read and end it" "$(jr '.result.content[1].text')" "read its new output with job_output {jobId}; end it with job_kill {jobId}"
all=$(jr .result.structuredContent.output)$'\n'
status=running
deadline=$((SECONDS + 30))
reads=0
while [ "$status" = running ] && [ $SECONDS -lt $deadline ]; do
	mcp_call job_output '{"jobId":"job-1","waitMs":5000}'
	status=$(jr .result.structuredContent.status)
	all+=$(jr .result.structuredContent.output)$'\n'
	reads=$((reads + 1))
done
expect_eq "the job ends with its exit code" "$(jr -c '.result.structuredContent | [.status, .exitCode]')" '["exited",3]'
check "waitMs reads returned as output came ($reads reads)" [ "$reads" -ge 2 ]
expect_eq "every line came exactly once over the reads" \
    "$(printf '%s\n' "$all" | grep -cE '^(start|tick [123]|FAIL: boom)$')" 5
mcp_call job_output '{"jobId":"job-1"}'
expect_eq "a read after the end has nothing new" "$(jr -c '.result.structuredContent | [.status, .output]')" '["exited",""]'
mcp_call job_output '{"jobId":"job-99"}'
expect_error_class "an unknown job is not_found" not_found

# --- events: pushed, then at the tail of the next result, once --------------
expect_contains "the FAIL line was pushed as notifications/message" "$(cat "$T/notes" 2>/dev/null)" '"method":"notifications/message","params":{"level":"info","logger":"airlock.jobs","data":{"jobId":"job-1","event":"match","line":"FAIL: boom"'
expect_contains "the non-zero exit was pushed as a warning, once its set landed" "$(cat "$T/notes" 2>/dev/null)" '"level":"warning","logger":"airlock.jobs","data":{"jobId":"job-1","event":"exit","line":"job-1 ended with exit code 3; its changes landed"'

: >"$T/notes"
mcp_call server '{"blockMs":0}'
expect_eq "a server starts as a job" "$(jr -c '.result.structuredContent | [.jobId, .status]')" '["job-2","running"]'
# Wait for the push, without a request in flight.
got=
deadline=$((SECONDS + 30))
while [ -z "$got" ] && [ $SECONDS -lt $deadline ]; do
	mcp_recv 5
	[[ $R == *'"listening on 8080"'* ]] && got=$R
done
expect_contains "the server's ready line is pushed without a call" "$got" '"method":"notifications/message"'
mcp_call quick '{}'
expect_ok_result "the next call answers"
expect_eq "its own result comes first, unchanged" "$(jr -c '.result.content[0].text | fromjson | .exitCode')" 0
expect_contains "the event is at the tail of its result" "$(jr '.result.content[-1].text')" "job-2 match: listening on 8080"
expect_eq "and in structuredContent.events" "$(jr -c '.result.structuredContent.events | map(.line)')" '["listening on 8080"]'
mcp_call quick '{}'
expect_eq "the next result does not repeat it" "$(jr -c '[.result.structuredContent.events, (.result.content | length)]')" '[null,1]'

# --- the parallel limit, kill, writes landing --------------------------------
mcp_call server '{"blockMs":0}'
expect_eq "a second server job" "$(jr .result.structuredContent.jobId)" job-3
mcp_call quick '{}'
expect_error_class "jobs count against maxParallelProcesses" busy
mcp_call job_kill '{"jobId":"job-2"}'
expect_eq "job_kill answers when the job is over" "$(jr -c '.result.structuredContent | [.jobId, .status, .exitCode]')" '["job-2","killed",137]'
mcp_call writer '{"blockMs":0}'
expect_eq "a freed slot runs a new job" "$(jr -c '.result.structuredContent.status')" running
deadline=$((SECONDS + 30))
while [ "$(jr .result.structuredContent.status)" = running ] && [ $SECONDS -lt $deadline ]; do
	mcp_call job_output '{"jobId":"job-4","waitMs":5000}'
done
expect_eq "the writing job exited" "$(jr -c '.result.structuredContent.status')" exited
expect_eq "its write landed in the workspace" "$(cat "$ws/written.txt" 2>/dev/null)" data

check "the live job's processes run before the session ends" pgrep -f "$mark" >/dev/null
mcp_stop
deadline=$((SECONDS + 20))
while pgrep -f "$mark" >/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
no_marked() { ! pgrep -f "$mark" >/dev/null; }
check "the session's end killed its jobs" no_marked
sess=$(newest_session)
a="$sess/audit.jsonl"
check "job starts are audited" [ "$(grep -c '"job_start"' "$a")" -eq 4 ]
check "job reads are audited" grep -q '"job_read"' "$a"
check "job kills are audited" grep -q '"job_kill"' "$a"
check "a job killed by the session's end is audited" grep -q '"job_end".*"session ended"' "$a"
check "job ends are audited with the exit code" grep -q '"job_end".*"exitCode":3' "$a"
check "events are audited" grep -q '"job_event"' "$a"
"$AIRLOCK" audit verify "$a" >/dev/null 2>&1
expect_eq "the audit log verifies" "$?" 0
finish
