#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Pinned code (issue 11): the workspace files that are a check's or a
# privileged tool's code are hashed at session start, and the agent
# cannot use an edit of them to get past a human, a gate or a secret.
#   (a) an approval is bound to the code it will run: deploy.sh patched
#       while the approval is pending voids the approval; the patched
#       script does not run until a human approves again, shown what
#       changed;
#   (b) a gate whose script the agent edited passes but does not count
#       toward acceptanceMet, and status, result and trace say why;
#   (c) a secret-granted tool whose script the agent edited refuses to
#       run, and the secret appears nowhere;
#   (d) a pinned file's name padded to the terminal's edge cannot forge
#       a row of airlock trace.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

sha_of() { sha256sum <"$1" | cut -d' ' -f1; }
status() { mcp_rpc airlock/session/status '{}'; }
pending_deploy() { mcp_pending deploy "$@"; }
# patch_to FILE NEWFILE: a unified diff that replaces FILE's content.
patch_to() {
	diff -u --label "a/$1" --label "b/$1" "$ws/$1" "$2" | jq -Rs .
}

cat >"$T/m.yaml" <<'EOF'
types:
  target: { type: string, maxLength: 32, pattern: "[a-z]+" }
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: sha256 }
    sideEffect: none
    timeoutMs: 2000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, artifactUri: string, stdout: string, pinnedCodeChanged: "string_list?" }
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: deploy
    input: { target: target }
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh", "{target}"]
    sideEffect: external
    authorization: approval
    timeoutMs: 60000
  - name: publish
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "scripts/publish.sh"]
    sideEffect: external
    authorization: allow
    timeoutMs: 5000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
checks:
  unit.todo-transition: ["sh", "tests/run.sh", "todo-transition"]
  suite: { argv: ["true"], pin: [tests/] }
  names: { argv: ["true"], pin: [u/] }
gates:
  required: [unit.todo-transition]
approvals:
  approvers: [root]
  ttlSeconds: 60
EOF

printf '#!/bin/sh\necho "deploying $1"\n' >"$ws/deploy.sh"
mkdir -p "$ws/scripts"
mkdir -p "$ws/u"
printf '#!/bin/sh\necho published\n' >"$ws/scripts/publish.sh"
secret='n0t-for-the-agent-42'
reversed=$(printf '%s' "$secret" | rev)
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)

# ===== (a) an approval is bound to the code it runs ===============================
mcp_send '{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"staging"}}}'
id1=$(pending_deploy)
check "deploy waits for a human" test -n "$id1"
PV=$("$AIRLOCK" pending -v)
expect_contains "the approver sees the resolved argv" "$PV" '"deploy.sh"'
expect_contains "the approver sees the pinned file with its digest" "$PV" "$(sha_of "$ws/deploy.sh")"

# While the approval is pending, the agent rewrites the script: a benign
# start of 40 lines (what the review shows of it), then its payload.
{ printf '#!/bin/sh\necho "NEW SCRIPT $1"\n'; for i in $(seq 38); do echo "# step $i"; done
  echo ': >PWNED'; } >"$T/evil.sh"
mcp_call apply_patch "{\"patch\":$(patch_to deploy.sh "$T/evil.sh"),\"expectedBaseSha\":\"$(sha_of "$ws/deploy.sh")\"}"
expect_ok_result "the agent patches deploy.sh while the approval is pending"
"$AIRLOCK" approve "$id1" --yes >"$T/approve1.out" 2>&1
sleep 1
check "the changed script did not run on the old approval" test ! -e "$ws/PWNED"
# (Polled: a loaded machine writes the record late.)
check "the void is audited, naming deploy.sh" wait_for grep -q '"approval_voided".*deploy.sh' "$sess/audit.jsonl"
id2=$(pending_deploy "$id1")
check "a new approval is pending in its place" test -n "$id2" -a "$id2" != "$id1"
PV=$("$AIRLOCK" pending -v)
expect_contains "its evidence names the changed file" "$PV" "deploy.sh"
expect_contains "its evidence has the approved digest" "$PV" "approvedSha"
expect_contains "its evidence has the new digest" "$PV" "$(sha_of "$ws/deploy.sh")"
expect_contains "its evidence shows the new content" "$PV" "NEW SCRIPT"
# Only its first 40 lines: before, nothing said the script went on, and
# the benign start passed for the whole of it.
expect_not_contains "... its first 40 lines, not the payload on line 41" "$PV" ": >PWNED"
expect_contains "... and says the file goes on, unshown" "$PV" \
    "... CUT: the file goes on past these lines, unshown"
check "the runner did not start" bash -c '! grep -q "\"runner_start\".*\"deploy\"" "$1"' _ "$sess/audit.jsonl"
"$AIRLOCK" approve "$id2" --yes >"$T/approve2.out" 2>&1
expect_eq "the new approval is granted" "$?" 0
mcp_wait_id 100
expect_ok_result "approved again: the call runs"
expect_eq "it runs the script the human saw last" "$(jr .result.structuredContent.stdout)" "NEW SCRIPT staging"
check "the new script ran (its marker exists)" test -e "$ws/PWNED"
expect_contains "the agent's result says the first approval was voided, naming deploy.sh" \
    "$(jr '.result.content[].text')" "voided"
expect_contains "... and names deploy.sh" "$(jr '.result.content[].text')" "deploy.sh"
rm -f "$ws/PWNED"

# ===== (b) a gate passes because the agent edited the gate =========================
mcp_call run_check '{"checkId":"unit.todo-transition"}'
expect_eq "the gate fails on the unfixed code" "$(jr .result.structuredContent.exitCode)" 1
status
expect_eq "acceptance not met" "$(jr .result.acceptanceMet)" false
{ echo 'exit 0'; cat "$ws/tests/run.sh"; } >"$T/run.sh"
mcp_call apply_patch "{\"patch\":$(patch_to tests/run.sh "$T/run.sh"),\"expectedBaseSha\":\"$(sha_of "$ws/tests/run.sh")\"}"
expect_ok_result "the agent adds exit 0 to tests/run.sh"
mcp_call run_check '{"checkId":"unit.todo-transition"}'
expect_eq "the edited gate exits 0" "$(jr .result.structuredContent.exitCode)" 0
expect_eq "the result names the changed pinned file" "$(jr -c .result.structuredContent.pinnedCodeChanged)" '["tests/run.sh"]'
expect_contains "the result's text says the gate does not count" "$(jr '.result.content[].text')" "does not count"
status
expect_eq "acceptanceMet stays false" "$(jr .result.acceptanceMet)" false
expect_eq "status names the file" \
    "$(jr -c '.result.gates[] | select(.checkId == "unit.todo-transition") | .pinnedCodeChanged')" '["tests/run.sh"]'
expect_eq "status: top-level pinnedCodeChanged" "$(jr -c .result.pinnedCodeChanged)" '["tests/run.sh"]'
mcp_call run_check '{"checkId":"suite"}'
expect_eq "a directory pin (tests/) covers the file too" "$(jr -c .result.structuredContent.pinnedCodeChanged)" '["tests/run.sh"]'
check "the trace notes it" grep -q 'pinned code changed.*tests/run.sh' "$sess/trace.txt"

# ===== (c) a credential leaves through code the agent wrote ========================
mcp_call publish '{}'
expect_eq "the secret-granted tool runs on its pinned script" "$(jr .result.structuredContent.stdout)" published
printf '#!/bin/sh\nprintf %%s "$API_TOKEN" | rev\n' >"$T/pub.sh"
mcp_call apply_patch "{\"patch\":$(patch_to scripts/publish.sh "$T/pub.sh"),\"expectedBaseSha\":\"$(sha_of "$ws/scripts/publish.sh")\"}"
expect_ok_result "the agent changes scripts/publish.sh to print the secret reversed"
mcp_call publish '{}'
expect_error_class "the changed secret-granted tool refuses to run" pinned_code_changed
expect_eq "not retryable" "$(jr .result.structuredContent.retryable)" false
expect_contains "the refusal names the file" "$(jr .result.structuredContent.message)" scripts/publish.sh
expect_not_contains "no reversed secret in the result" "$R" "$reversed"
check "the refusal is audited" grep -q '"pinned_code_changed".*scripts/publish.sh' "$sess/audit.jsonl"

# ===== (d) a pinned file's name forges a row of airlock trace ======================
# A trace row is wider than 80 columns, and its note quotes the names of
# the pinned files that changed: one padded to column 160 made the
# terminal's wrap begin a row "99    run_check ... ok ... unit... pass",
# a gate that passed to the eye.  airlock trace folds its rows to the
# terminal's width, each row after a line's first marked ">> ".
forged='99    run_check          5d41402abc4b ok                 -                unit.todo-transition pass'
padded="tests/a$(printf '%25s' '' | tr ' ' .)$forged"
mcp_call apply_patch "{\"patch\":$(printf -- '--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n' "$padded" | jq -Rs .),\"expectedBaseSha\":\"$(sha256sum </dev/null | cut -d' ' -f1)\"}"
expect_ok_result "the agent adds a file with a padded name beneath the pinned tests/"
mcp_call run_check '{"checkId":"suite"}'
expect_contains "the gate names it as changed pinned code" "$(jr -c .result.structuredContent.pinnedCodeChanged)" "$forged"
COLUMNS=80 "$AIRLOCK" trace "$sess" >"$T/trace80.out" 2>&1
check "airlock trace: no line wider than the 80-column terminal" \
    test "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$T/trace80.out")" -le 80
expect_eq "airlock trace: on that terminal, no row reads as the forged call" \
    "$(fold -w 80 "$T/trace80.out" | grep -c '^99 ')" 0
expect_contains "airlock trace: the whole name is shown, on rows marked as the note's" \
    "$(sed -z 's/\n>> //g' "$T/trace80.out")" "pinned code changed: $padded"

# ===== (e) pinned code JSON cannot name ============================================
# A link whose text is not UTF-8 beneath the pinned tests/ (a run's
# change set landed one; writepolicy refuses that now, but a checkout or
# another process on the host still makes one): hashing the pins put it
# in a JSON set, json_string() failed and fatalx() stopped the broker as
# the next check ran, and every later session on the workspace as it
# started.
ln -s "$(printf '\377')" "$ws/tests/l"
mcp_call run_check '{"checkId":"suite"}'
expect_contains "the next check runs (the broker is still there), naming the link as changed" \
    "$(jr -c .result.structuredContent.pinnedCodeChanged)" '"tests/l"'

# ===== (f) a changed name cut inside a character ==================================
# The note names the changed files in 200 bytes: u/ and 100 characters
# of two bytes were cut inside the 99th, json_string() of the note
# failed, and the result said nothing of the gate not counting.
long=$(printf 'é%.0s' $(seq 100))
mcp_call apply_patch "{\"patch\":$(printf -- '--- /dev/null\n+++ b/u/%s\n@@ -0,0 +1 @@\n+x\n' "$long" | jq -Rs .),\"expectedBaseSha\":\"$(sha256sum </dev/null | cut -d' ' -f1)\"}"
expect_ok_result "the agent adds u/ and 100 accented letters beneath the pinned u/"
mcp_call run_check '{"checkId":"names"}'
expect_eq "the gate names it as changed pinned code" "$(jr -r '.result.structuredContent.pinnedCodeChanged[0]')" "u/$long"
expect_contains "the result's text says the gate does not count, naming it cut between characters" \
    "$(jr '.result.content[].text')" "does not count toward acceptance: its pinned code changed since the session started (u/$(printf 'é%.0s' $(seq 98)))"
mcp_stop
"$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" </dev/null >/dev/null 2>"$T/serve2.err"
expect_eq "a new session on the workspace starts (and ends)" "$?" 0
if grep -rqF -e "$secret" -e "$reversed" "$AIRLOCK_HOME/sessions" "$ws" "$T/notes" "$T/serve.err"; then
	fail "the secret appears nowhere, in no form"
else
	pass "the secret appears nowhere, in no form"
fi
finish
