#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approval binds the workspace the approver was shown, checked at the
# grant and just before the runner starts; but an approved run reads the
# workspace as it goes.  "deploy" runs deploy.sh (pinned), which waits,
# then sources lib.sh.  Before, once the approved run had started, the
# agent rewrote lib.sh through write_file (the default read-only agent's
# own way to write), or through another tool's run whose change set
# landed meanwhile, and the approved deploy ran the rewrite: code the
# approver never saw, on the human's yes ("PAYLOAD staging").  Now the
# broker writes nothing beneath a run a human approved until its
# processes are gone: write_file and apply_patch are refused "busy"
# (retryable), and a change set waits to land until the approved run
# ends.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<'EOF2'
types:
  target: { type: string, maxLength: 32, pattern: "[a-z]+" }
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: stage
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "stage.sh"]
    sideEffect: workspace_write
    timeoutMs: 20000
  - name: deploy
    input: { target: target }
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh", "{target}"]
    sideEffect: external
    authorization: approval
    timeoutMs: 60000
approvals:
  approvers: [root]
  ttlSeconds: 60
EOF2
# deploy.sh waits long enough for the writes below to be tried while it
# runs (a loaded machine may be slow to answer them).
printf '#!/bin/sh\nsleep 4\n. ./lib.sh\ngreet "$1"\n' >"$ws/deploy.sh"
printf 'greet() { echo "deploying $1"; }\n' >"$ws/lib.sh"
cat >"$ws/stage.sh" <<'EOF2'
echo 'greet() { echo "PAYLOAD $1"; }' >lib.sh
echo staged
EOF2
payload='greet() { echo "PAYLOAD $1"; }'
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
starts() { grep -c '"runner_start".*"deploy"' "$sess/audit.jsonl"; }

# ===== write_file and apply_patch while the approved run runs ====================
mcp_send '{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"staging"}}}'
id=$(mcp_pending deploy)
check "deploy waits for a human" test -n "$id"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
check "the approved deploy starts" wait_for bash -c '[ "$(grep -c "\"runner_start\".*\"deploy\"" "$1")" -ge 1 ]' _ "$sess/audit.jsonl"
mcp_call write_file "{\"path\":\"lib.sh\",\"content\":$(jq -Rs . <<<"$payload")}"
expect_error_class "write_file beneath the approved run is refused" busy
expect_contains "... saying a run a human approved is running" "$(jr '.result.structuredContent.message')" "a run a human approved is running"
check "... retryable" test "$(jr '.result.structuredContent.retryable')" = true
zero=$(printf '%064d' 0)
mcp_call apply_patch "{\"patch\":$(jq -Rs . <<<$'--- a/lib.sh\n+++ b/lib.sh\n@@ -1 +1 @@\n-greet() { echo "deploying $1"; }\n+greet() { echo "PAYLOAD $1"; }'),\"expectedBaseSha\":\"$zero\"}"
expect_error_class "apply_patch beneath the approved run is refused" busy
expect_contains "... saying why" "$(jr '.result.structuredContent.message')" "a run a human approved is running"
mcp_wait_id 100 60
expect_ok_result "the approved deploy ran"
expect_eq "... the code the approver was shown, not the agent's rewrite" "$(jr .result.structuredContent.stdout)" "deploying staging"
mcp_call write_file "{\"path\":\"note.txt\",\"content\":\"x\"}"
expect_ok_result "once it ended, write_file writes again"

# ===== another run's change set lands only after the approved run ================
mcp_send '{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"prod"}}}'
id1=$(mcp_pending deploy "$id")
check "the second deploy waits for a human" test -n "$id1"
"$AIRLOCK" approve "$id1" --yes >/dev/null 2>&1
check "the second approved deploy starts" wait_for bash -c '[ "$(grep -c "\"runner_start\".*\"deploy\"" "$1")" -ge 2 ]' _ "$sess/audit.jsonl"
mcp_send '{"jsonrpc":"2.0","id":102,"method":"tools/call","params":{"name":"stage","arguments":{}}}'
mcp_wait_id 101 60
expect_ok_result "the approved deploy ran"
expect_eq "... on the lib.sh the approver was shown: the other run's set waited" "$(jr .result.structuredContent.stdout)" "deploying prod"
mcp_wait_id 102 60
expect_ok_result "the other run's set landed once the approved run had ended"
expect_eq "... rewriting lib.sh then" "$(cat "$ws/lib.sh")" "$payload"
check "two deploys ran, both approved" test "$(starts)" -eq 2

mcp_stop
finish
