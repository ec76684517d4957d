#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A job whose sandbox could not be built ran nothing, and its exit event
# says so.  Before, the broker took the failed setup for an empty change
# set that landed: the event read "job-1 ended with exit code 128; its
# changes landed" with "landed": true, and an agent (or a human reading
# the log of notifications) took a job that never ran for one that did.
# The setup fails for real, from inside a copy-on-write session's agent:
# it removes .git from its view, and a job granted a secret will not run
# on a view without the checkout's own .git (cow_runner_git.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
secret='n0t-for-the-agent-43'
. "$top_srcdir/tests/integration/cow_lib.sh"
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: diff
    command: ["git", "--no-optional-locks", "diff"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
    jobs:
      maxBlockMs: 5000
      events:
        - exit: any
agent:
  workspace: cow
EOF
chmod 644 "$T/m.yaml"
CALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"diff","arguments":{"blockMs":0}}}'
cat >"$T/agent.sh" <<EOF
#!/bin/sh

rm -rf .git && test ! -e .git && echo GIT-REMOVED
{ printf '%s\n' '$INIT' '$READY' '$CALL'; sleep 3; } | $A connect
EOF
chmod 755 "$T/agent.sh"

cow_run_setup root
run
out=$(cat "$T/out")
expect_contains "the agent removed .git in its view" "$out" GIT-REMOVED
ev=$(grep '"event":"exit"' "$T/out" | head -n 1)
check "the job's exit event came" test -n "$ev"
expect_eq "it says nothing landed, and why" \
    "$(printf '%s' "$ev" | jq -c '[.params.level, (.params.data | .status, .landed, .errorClass)]')" \
    '["warning","failed",false,"sandbox_setup"]'
expect_eq "... in the line the model reads: the job never ran" \
    "$(printf '%s' "$ev" | jq -r '.params.data.line')" \
    'job-1 did not start: its sandbox could not be built; nothing of it ran (sandbox_setup)'
expect_eq "... and gives no exit code: there was no command" \
    "$(printf '%s' "$ev" | jq -c '.params.data | has("exitCode")')" false
log=$(ls -d "$st"/sessions/*/audit.jsonl | head -n 1)
expect_eq "the log's job_end says it failed in its setup" \
    "$(jq -c 'select(.event == "job_end") | .fields | [.status, .errorClass]' "$log")" \
    '["failed","sandbox_setup"]'
check "the log verifies" "$A" audit verify -q "$log"
finish
