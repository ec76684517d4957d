#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A run whose processes are gone but whose change set waits to land
# still holds its upper layer (a tmpfs of up to 2 GiB, memory), and
# counts as running for maxParallelProcesses.  Sets wait while a run a
# human approved runs; maxParallelProcesses counted only the runs whose
# processes were alive, so meanwhile the agent ran one command after
# another, each ending with what it wrote held, without bound: with
# maxParallelProcesses: 2 and the approved run holding one, its first
# run's 20 MB waited and a second one ran all the same (and a third,
# and so on).  Now the second is "busy" (retryable) until the approved
# run ends and the first lands; the status counts the first.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 30000
  - name: hold
    input: {}
    output: { exitCode: integer }
    command: ["sleep", "8"]
    sideEffect: external
    authorization: approval
    timeoutMs: 30000
approvals:
  approvers: [root]
  ttlSeconds: 60
runBudget:
  maxParallelProcesses: 2
EOF2
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
ended() { [ "$(grep -c '"event":"runner_end"' "$sess/audit.jsonl")" -ge "$1" ]; }

mcp_send '{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"hold","arguments":{}}}'
id=$(mcp_pending hold)
check "hold waits for a human" test -n "$id"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
check "the approved run starts" wait_for bash -c 'grep -q "\"runner_start\".*\"hold\"" "$1"' _ "$sess/audit.jsonl"
# The agent's first run: it writes 20 MB and ends; its set waits.
call_async 101 "$(js 'head -c 20000000 /dev/zero >big1')"
check "the first run ends, its set waiting" wait_for ended 1
mcp_rpc airlock/session/status '{}'
expect_eq "the status counts it as running, with the approved run" \
    "$(jr .result.budgets.maxParallelProcesses.used)" 2
# A second one now would be a third upper layer held at once.
shell 'head -c 20000000 /dev/zero >big2'
expect_error_class "a second run meanwhile is refused" busy
check "... retryable" test "$(jr .result.structuredContent.retryable)" = true
expect_contains "... saying why" "$(jr .result.structuredContent.message)" maxParallelProcesses
mcp_wait_id 100 60
expect_ok_result "the approved run ends"
mcp_wait_id 101 60
expect_ok_result "the first run's set lands after it"
check "... its file is there" test "$(stat -c %s "$ws/big1" 2>&1)" = 20000000
shell 'head -c 20000000 /dev/zero >big2'
expect_ok_result "once it landed, the next run runs"
check "... and lands" test -e "$ws/big2"
mcp_stop
finish
