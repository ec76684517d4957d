#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approval is bound to the workspace the approver was shown, not only
# to the files the manifest pins.  "deploy" runs deploy.sh (pinned: it is
# in its argv), which sources lib.sh (not pinned: nothing names it).
# While the approval is pending the agent rewrites lib.sh.  Before, the
# human's yes ran the rewritten lib.sh: a Makefile, package.json or a
# sourced script is code the approver never saw.  Now the grant digests
# the workspace again; a digest other than the request's voids the
# approval (audited, when: grant, changedExecution.workspace), nothing
# runs, and a new approval shows the workspace as it is now.  An
# approval whose workspace did not change runs at once.
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
printf '#!/bin/sh\n. ./lib.sh\ngreet "$1"\n' >"$ws/deploy.sh"
printf 'greet() { echo "deploying $1"; }\n' >"$ws/lib.sh"
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)

# ===== an unchanged workspace: the yes runs at once ===============================
mcp_send '{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"staging"}}}'
id=$(mcp_pending deploy)
check "deploy waits for a human" test -n "$id"
expect_contains "the approver is shown the workspace's digest" "$("$AIRLOCK" pending -v)" "workspaceDigest"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
mcp_wait_id 100
expect_ok_result "approved on an unchanged workspace: it runs"
expect_eq "... the code the human was shown" "$(jr .result.structuredContent.stdout)" "deploying staging"

# ===== lib.sh rewritten while the approval is pending ============================
mcp_send '{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"prod"}}}'
id1=$(mcp_pending deploy "$id")
check "the second deploy waits for a human" test -n "$id1"
shown=$("$AIRLOCK" pending --json | jq -r --arg id "$id1" '.pending[] | select(.id == $id) | .evidence.workspaceDigest')
check "its evidence has a workspace digest" test "${#shown}" -eq 64
mcp_call write_file "{\"path\":\"lib.sh\",\"content\":$(jq -Rs . <<<'greet() { echo "deploying $1"; : >PWNED; }')}"
expect_ok_result "the agent rewrites lib.sh (not pinned) while the approval is pending"
"$AIRLOCK" approve "$id1" --yes >/dev/null 2>&1
id2=$(mcp_pending deploy "$id1")
check "the yes is void: a new approval is pending in its place" test -n "$id2" -a "$id2" != "$id1"
check "the rewritten lib.sh did not run on the old yes" test ! -e "$ws/PWNED"
check "no runner started for it" bash -c '[ "$(grep -c "\"runner_start\".*\"deploy\"" "$1")" -eq 1 ]' _ "$sess/audit.jsonl"
v=$(grep '"approval_voided"' "$sess/audit.jsonl" | tail -n 1)
expect_contains "the void is audited at the grant" "$v" '"when":"grant"'
expect_contains "... saying the workspace changed, from the digest shown" "$v" "\"approved\":\"$shown\""
now=$("$AIRLOCK" pending --json | jq -r --arg id "$id2" '.pending[] | select(.id == $id) | .evidence.workspaceDigest')
check "the new approval shows the workspace as it is now" test "${#now}" -eq 64 -a "$now" != "$shown"
"$AIRLOCK" deny "$id2" --reason "lib.sh changed" >/dev/null 2>&1
mcp_wait_id 101
expect_error_class "denied once the human saw the change" approval_denied
expect_contains "the agent is told its first approval was voided" "$(jr '.result.content[].text')" "the workspace changed"
check "lib.sh's payload never ran" test ! -e "$ws/PWNED"

# ===== a workspace that keeps changing while the grant digests it ================
# A file opened for writing and closed, again and again, from the moment
# the approval is pending (its bytes never change, so every digest says
# what the approver saw): whatever the grant's digest says, it was taken
# while the workspace was written (a write after a file was hashed is not
# in it), so it matches nothing: the yes is void, nothing runs.
# Enough files that each of the grant's digests (the first and its
# retries) takes a while to walk, with two writers: every one of them is
# taken while the workspace is written.
printf 'x\n' >"$ws/churn.txt"
mkdir "$ws/many" && (cd "$ws/many" && seq 1 30000 | xargs touch)
mcp_send '{"jsonrpc":"2.0","id":102,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"churn"}}}'
id3=$(mcp_pending deploy "$id2")
check "the third deploy waits for a human" test -n "$id3"
( while [ ! -e "$T/stop-churn" ]; do : >>"$ws/churn.txt"; done ) &
churn=$!
( while [ ! -e "$T/stop-churn" ]; do : >>"$ws/many/1"; done ) &
churn2=$!
sleep 0.3
"$AIRLOCK" approve "$id3" --yes >/dev/null 2>&1
id4=$(mcp_pending deploy "$id3")
touch "$T/stop-churn"
wait $churn $churn2
check "a digest taken while the workspace kept changing matches nothing: a new approval" \
    test -n "$id4" -a "$id4" != "$id3"
check "... and nothing ran on the old yes" \
    bash -c '[ "$(grep -c "\"runner_start\".*\"deploy\"" "$1")" -eq 1 ]' _ "$sess/audit.jsonl"
"$AIRLOCK" deny "$id4" --reason "stop" >/dev/null 2>&1
mcp_wait_id 102
expect_error_class "denied" approval_denied

# ===== a workspace that keeps changing from before the request ===================
# The same writers, started before the request: its digest too is taken
# while the workspace is written, so the approval is bound to no digest
# (""), and so was the grant's.  The two "" were equal: lib.sh rewritten
# while the approval was pending ran on the yes of an approver that
# decides through the session's socket ("airlock approve" itself refuses
# this request: its evidence shows a digest its binding does not hold).
# Now a binding to no digest matches nothing: the yes is void, nothing
# runs.
rm -f "$T/stop-churn"
( while [ ! -e "$T/stop-churn" ]; do : >>"$ws/churn.txt"; done ) &
churn=$!
( while [ ! -e "$T/stop-churn" ]; do : >>"$ws/many/1"; done ) &
churn2=$!
sleep 0.3
mcp_send '{"jsonrpc":"2.0","id":103,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"late"}}}'
id5=$(mcp_pending deploy "$id4")
check "the fourth deploy waits for a human" test -n "$id5"
printf 'greet() { echo "deploying $1"; : >PWNED; }\n' >"$ws/lib.sh"
dg=$("$AIRLOCK" pending --json | jq -r --arg id "$id5" '.pending[] | select(.id == $id) | .digest')
ans=$(python3 - "$AIRLOCK_RUNTIME_DIR/$(basename "$sess").sock" "$id5" "$dg" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall((json.dumps({"op": "approve", "id": sys.argv[2], "digest": sys.argv[3]}) + "\n").encode())
print(s.makefile().readline().strip())
PY
)
expect_contains "an approver grants it through the session's socket" "$ans" '"ok"'
id6=$(mcp_pending deploy "$id5")
touch "$T/stop-churn"
wait $churn $churn2
check "a request digest taken while the workspace kept changing matches no grant: a new approval" \
    test -n "$id6" -a "$id6" != "$id5"
check "... and the rewritten lib.sh did not run on the old yes" test ! -e "$ws/PWNED"
check "... nor any runner" \
    bash -c '[ "$(grep -c "\"runner_start\".*\"deploy\"" "$1")" -eq 1 ]' _ "$sess/audit.jsonl"
[ -n "$id6" ] && "$AIRLOCK" deny "$id6" --reason "stop" >/dev/null 2>&1
mcp_wait_id 103
expect_error_class "denied" approval_denied

mcp_stop
finish
