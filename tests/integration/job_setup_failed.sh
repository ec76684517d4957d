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
# And its reason may quote the agent's bytes: a view nested past the
# runner's 4096 bytes of path fails the setup naming the name that went
# over, and one that is not UTF-8 made job_output's answer fail to build
# ("job_read: json_pack"): the broker stopped.
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
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 8000
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

# A view nested 17 names of 251 bytes deep, each beginning with \377.
READ='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"job_output","arguments":{"jobId":"job-1","waitMs":5000}}}'
PING='{"jsonrpc":"2.0","id":4,"method":"ping"}'
cat >"$T/agent.sh" <<EOF
#!/bin/sh
n=\$(printf '\\377'; printf 'a%.0s' \$(seq 250))
for i in \$(seq 17); do mkdir "\$n" && cd -P "\$n" || exit 1; done
echo DEEP-MADE
{ printf '%s\n' '$INIT' '$READY' '$CALL'; sleep 2; printf '%s\n' '$READ' '$PING'; sleep 3; } | $A connect
EOF
rm -rf "${T:?}/root"
cow_run_setup root
run
out=$(cat "$T/out")
expect_contains "the agent nested its view past the runner's bound" "$out" DEEP-MADE
r=$(grep '"id":3' "$T/out")
expect_eq "job_output answers: the job failed in its setup" \
    "$(printf '%s' "$r" | jq -r .result.structuredContent.status)" failed
expect_contains "  saying why, U+FFFD for the byte that is not UTF-8" \
    "$(printf '%s' "$r" | jq -r .result.structuredContent.output)" \
    "job-1 did not start: sandbox setup failed: path "$'\357\277\275'aaaa
expect_eq "and the broker serves on" "$(grep '"id":4' "$T/out" | jq -c .result)" '{}'
expect_not_contains "  it did not stop" "$(cat "$T/err")" json_pack
finish
