#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The seed's Workboard loop through the broker, on a scratch copy of
# contrib/example-project: read, failing gate, patch guarded by the base
# sha, passing gate, acceptance bound to the workspace digest; and the
# failure paths: wrong base, fuzzy hunks, multi-file atomicity, budgets,
# repeated failure fingerprints, idempotent retries, the trace.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env

# manifest FILE BUDGET-YAML: the Workboard tools with the given runBudget.
manifest() {
	cat >"$1" <<EOF
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: sha256 }
    sideEffect: none
    timeoutMs: 2000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 2000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: "string?" }
    output: { exitCode: integer, artifactUri: string, durationMs: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  unit.todo-transition: ["sh", "tests/run.sh", "todo-transition"]
  unit.all: ["sh", "tests/run.sh"]
gates:
  required: [unit.todo-transition]
runBudget:
$2
EOF
}
sha_of() { sha256sum <"$1" | cut -d' ' -f1; }
status() { mcp_rpc airlock/session/status '{}'; }
# patch_json FILE: a unified diff from FILE as a JSON string.
patch_json() { json_str "$1"; }

# The fix from the demo agent: complete only the caller's tenant's todo.
cat >"$T/fix.diff" <<'EOF'
--- a/src/todo.sh
+++ b/src/todo.sh
@@ -15,4 +15,4 @@
 todo_complete() {
 	tenant=$1 id=$2
-	sed -i "s/^\([^|]*\)|$id|open|/\1|$id|done|/" "$TODO_DB"
+	sed -i "s/^$tenant|$id|open|/$tenant|$id|done|/" "$TODO_DB"
 }
EOF
# The same hunk placed at the wrong line: no fuzz may move it.
sed 's/^@@ -15,4 +15,4 @@$/@@ -5,4 +5,4 @@/' "$T/fix.diff" >"$T/fuzzy.diff"
# The right line, a context line that does not match.
sed 's/^ todo_complete() {$/ todo_finish() {/' "$T/fix.diff" >"$T/badctx.diff"
# Two files: README.md applies, src/todo.sh conflicts.
cat >"$T/multi.diff" <<'EOF'
--- a/README.md
+++ b/README.md
@@ -1,1 +1,1 @@
-# Workboard (example project)
+# Workboard (patched by the multi-file diff)
--- a/src/todo.sh
+++ b/src/todo.sh
@@ -15,4 +15,4 @@
 todo_complete() {
 	tenant=$1 id=$2
-	this line is not in the file
+	sed -i "s/x/y/" "$TODO_DB"
 }
EOF

# ===== The loop ==================================================================
M="$T/loop.yaml"
manifest "$M" "  maxModelSteps: 100
  maxPatchAttemptsPerGate: 10
  maxChangedFiles: 10
  stopOnRepeatedFailureFingerprint: 10"
ws=$(make_workspace)
todo_orig=$(sha_of "$ws/src/todo.sh")
readme_orig=$(sha_of "$ws/README.md")
mcp_start "$M" "$ws"

status
expect_eq "status before anything: gate not run, acceptance not met" \
    "$(jr -c '[.result.acceptanceMet, (.result.gates[] | select(.checkId == "unit.todo-transition") | .state)]')" '[false,"not_run"]'
SESSION=$(jr .result.session)

mcp_call read_file '{"path":"src/todo.sh"}'
sha=$(jr .result.structuredContent.sha256)
expect_eq "read_file gives the base sha" "$sha" "$todo_orig"

mcp_call run_check '{"checkId":"unit.todo-transition"}'
expect_eq "the gate fails before the fix" "$(jr .result.structuredContent.exitCode)" 1
expect_contains "the failing gate says why" "$(jr .result.structuredContent.stdout)" "FAIL WB-TODO-002 other tenant untouched"
status
expect_eq "status after the failing gate: fail, acceptance not met" \
    "$(jr -c '[.result.acceptanceMet, (.result.gates[] | select(.checkId == "unit.todo-transition") | .state)]')" '[false,"fail"]'

# Wrong base sha.
mcp_call apply_patch "{\"patch\":$(patch_json "$T/fix.diff"),\"expectedBaseSha\":\"$readme_orig\"}"
expect_error_class "apply_patch with a wrong base sha: base_mismatch" base_mismatch
expect_eq "base_mismatch left the file unchanged" "$(sha_of "$ws/src/todo.sh")" "$todo_orig"
mcp_call apply_patch "{\"patch\":$(patch_json "$T/fix.diff"),\"expectedBaseSha\":\"$(printf '%064d' 0)\"}"
expect_error_class "apply_patch with an all-zero base sha: base_mismatch" base_mismatch

# Fuzzy hunks.
mcp_call apply_patch "{\"patch\":$(patch_json "$T/fuzzy.diff"),\"expectedBaseSha\":\"$sha\"}"
expect_error_class "a hunk at the wrong line is not fuzzed into place: patch_conflict" patch_conflict
expect_eq "patch_conflict wrote nothing" "$(sha_of "$ws/src/todo.sh")" "$todo_orig"
mcp_call apply_patch "{\"patch\":$(patch_json "$T/badctx.diff"),\"expectedBaseSha\":\"$sha\"}"
expect_error_class "a hunk whose context does not match: patch_conflict" patch_conflict
expect_eq "context mismatch wrote nothing" "$(sha_of "$ws/src/todo.sh")" "$todo_orig"

# Multi-file atomicity: the base of several files (broker/wsdigest.h).
multibase=$(printf 'README.md\0%s\nsrc/todo.sh\0%s\n' "$readme_orig" "$todo_orig" | sha256sum | cut -d' ' -f1)
mcp_call apply_patch "{\"patch\":$(patch_json "$T/multi.diff"),\"expectedBaseSha\":\"$multibase\"}"
expect_error_class "multi-file patch whose 2nd file conflicts: patch_conflict" patch_conflict
expect_eq "multi-file conflict: the 1st file (README.md) is unchanged" "$(sha_of "$ws/README.md")" "$readme_orig"
expect_eq "multi-file conflict: the 2nd file is unchanged" "$(sha_of "$ws/src/todo.sh")" "$todo_orig"
check "multi-file conflict: no stray files in the workspace" test "$(cd "$ws" && find . -newer "$T/multi.diff" -type f | wc -l)" = 0
mcp_call apply_patch "{\"patch\":$(patch_json "$T/multi.diff"),\"expectedBaseSha\":\"$todo_orig\"}"
expect_error_class "multi-file patch with a single file's sha as base: base_mismatch" base_mismatch

# The right patch.
mcp_call apply_patch "{\"patch\":$(patch_json "$T/fix.diff"),\"expectedBaseSha\":\"$sha\"}"
expect_ok_result "apply_patch with the right base sha applies"
expect_eq "apply_patch reports the changed file" "$(jr -c .result.structuredContent.changedFiles)" '["src/todo.sh"]'
expect_eq "newSha is the sha256 of the new content" "$(jr .result.structuredContent.newSha)" "$(sha_of "$ws/src/todo.sh")"
expect_contains "the fix is in the file" "$(cat "$ws/src/todo.sh")" 's/^$tenant|$id|open|/$tenant|$id|done|/'
mcp_call apply_patch "{\"patch\":$(patch_json "$T/fix.diff"),\"expectedBaseSha\":\"$sha\"}"
expect_error_class "applying it again on the old base: base_mismatch" base_mismatch

mcp_call run_check '{"checkId":"unit.todo-transition"}'
expect_eq "the gate passes after the fix" "$(jr .result.structuredContent.exitCode)" 0
status
expect_eq "acceptanceMet true on the current digest" \
    "$(jr -c '[.result.acceptanceMet, (.result.gates[] | select(.checkId == "unit.todo-transition") | .state)]')" '[true,"pass"]'
digest1=$(jr .result.workspaceDigest)

mcp_call write_file '{"path":"NOTES.md","content":"a further change\n"}'
expect_ok_result "a further write"
status
expect_eq "after a further write the gate is stale and acceptance not met" \
    "$(jr -c '[.result.acceptanceMet, (.result.gates[] | select(.checkId == "unit.todo-transition") | .state)]')" '[false,"stale"]'
check "the workspace digest changed" test "$(jr .result.workspaceDigest)" != "$digest1"
echo "edited behind the broker's back" >>"$ws/NOTES.md"
mcp_call run_check '{"checkId":"unit.todo-transition"}'
status
expect_eq "the gate passes again on the new digest" "$(jr .result.acceptanceMet)" true
echo "another edit behind the broker's back" >>"$ws/README.md"
status
expect_eq "an edit outside the broker also makes the gate stale" "$(jr .result.acceptanceMet)" false

# Idempotent retry: the same key and arguments replay the first result.
sess_dir="$AIRLOCK_HOME/sessions/$SESSION"
starts_before=$(grep -c '"runner_start"' "$sess_dir/audit.jsonl")
arts_before=$(ls "$sess_dir/artifacts" | wc -l)
mcp_call run_check '{"checkId":"unit.all","idempotencyKey":"gate-1"}'
# Less its late-injected tail: the README edit above is news once
# (fileChanges, docs/OUTPUT.md), not part of the result a replay repeats.
expect_eq "the first answer tells of the edit behind the broker's back" \
    "$(jr -c '.result.structuredContent.fileChanges.files')" '[{"path":"README.md","change":"modified"}]'
first=$(jr -c '.result | del(.structuredContent.fileChanges) | .content |= map(select(.text | startswith("[airlock: workspace files changed") | not))')
mcp_call run_check '{"checkId":"unit.all","idempotencyKey":"gate-1"}'
expect_eq "same idempotencyKey and arguments: the same result" "$(jr -c .result)" "$first"
starts_after=$(grep -c '"runner_start"' "$sess_dir/audit.jsonl")
expect_eq "the retried check ran once (audit runner_start count)" "$((starts_after - starts_before))" 1
expect_eq "the retried check ran once (artifacts count)" "$(( $(ls "$sess_dir/artifacts" | wc -l) - arts_before ))" 1
check "the replay is audited" grep -q '"idempotent_replay"' "$sess_dir/audit.jsonl"
mcp_call run_check '{"checkId":"unit.todo-transition","idempotencyKey":"gate-1"}'
expect_error_class "same idempotencyKey, other arguments: idempotency_conflict" idempotency_conflict
expect_eq "a conflict runs nothing" "$(grep -c '"runner_start"' "$sess_dir/audit.jsonl")" "$starts_after"
mcp_call run_check '{"checkId":"unit.all","idempotencyKey":"gate-2"}'
expect_eq "a new key runs the check again" "$(grep -c '"runner_start"' "$sess_dir/audit.jsonl")" "$((starts_after + 1))"

# A retry sent while the original call is still running (the agent timed
# out waiting) must not run the check a second time either.
starts_before=$(grep -c '"runner_start"' "$sess_dir/audit.jsonl")
mcp_send '{"jsonrpc":"2.0","id":"orig","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"unit.all","idempotencyKey":"gate-3"}}}'
mcp_send '{"jsonrpc":"2.0","id":"retry","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"unit.all","idempotencyKey":"gate-3"}}}'
mcp_wait_id orig 20
orig=$(jr -c .result)
mcp_wait_id retry 20
expect_eq "the retry gets the original's result" "$(jr -c .result)" "$orig"
expect_eq "a retry while the original runs does not run the check again" \
    "$(( $(grep -c '"runner_start"' "$sess_dir/audit.jsonl") - starts_before ))" 1

mcp_stop
expect_eq "serve exits 0 at the end of the loop" "$?" 0

# The trace.
trace="$sess_dir/trace.txt"
check "trace.txt exists" test -s "$trace"
expect_contains "trace has the read" "$(cat "$trace")" "read_file"
expect_contains "trace has the base mismatch" "$(cat "$trace")" "base_mismatch"
expect_contains "trace has the patch conflict" "$(cat "$trace")" "patch_conflict"
expect_contains "trace has the passing gate" "$(cat "$trace")" "unit.todo-transition pass"
expect_contains "trace has the failing gate" "$(cat "$trace")" "unit.todo-transition fail"
expect_contains "trace has the replay" "$(cat "$trace")" "replay"
n=$(grep -c -E '^[0-9]+ ' "$trace")
expect_eq "trace has one line per tools/call (19)" "$n" 19
"$AIRLOCK" trace "$SESSION" >"$T/trace.out" 2>&1
expect_eq "airlock trace ID exits 0" "$?" 0
check "airlock trace ID prints trace.txt" cmp -s "$T/trace.out" "$trace"
"$AIRLOCK" trace "$sess_dir" >"$T/trace2.out" 2>&1
check "airlock trace DIR prints trace.txt" cmp -s "$T/trace2.out" "$trace"
"$AIRLOCK" trace 20000101T000000-000000 >/dev/null 2>&1
check "airlock trace of an unknown session fails" test $? -ne 0

"$AIRLOCK" audit verify "$sess_dir/audit.jsonl" >"$T/verify.out" 2>&1
expect_eq "the loop's audit log verifies" "$?" 0

# ===== apply_patch may not write .git, by any spelling ===============================
ws=$(make_workspace)
mkdir -p "$ws/.git/hooks"
echo "[core]" >"$ws/.git/config"
ln -s .git "$ws/gitlink"
empty=$(printf '' | sha256sum | cut -d' ' -f1)
mcp_start "$M" "$ws"
for p in .git/hooks/pre-commit ./.git/hooks/pre-commit gitlink/hooks/pre-commit; do
	printf -- '--- /dev/null\n+++ b/%s\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo pwned\n' "$p" >"$T/hook.diff"
	mcp_call apply_patch "{\"patch\":$(patch_json "$T/hook.diff"),\"expectedBaseSha\":\"$empty\"}"
	case "$(r_is_error):$(r_class)" in
	true:denied|true:path_refused|true:malformed_patch) pass "apply_patch creating $p is refused" ;;
	*) fail "apply_patch creating $p is refused"; printf '  got: %.400s\n' "$R" ;;
	esac
done
cfg=$(sha_of "$ws/.git/config")
for p in .git/config gitlink/config; do
	printf -- '--- a/%s\n+++ b/%s\n@@ -1,1 +1,2 @@\n [core]\n+\thooksPath = /tmp\n' "$p" "$p" >"$T/cfg.diff"
	mcp_call apply_patch "{\"patch\":$(patch_json "$T/cfg.diff"),\"expectedBaseSha\":\"$cfg\"}"
	case "$(r_is_error):$(r_class)" in
	true:denied|true:path_refused|true:malformed_patch) pass "apply_patch changing $p is refused" ;;
	*) fail "apply_patch changing $p is refused"; printf '  got: %.400s\n' "$R" ;;
	esac
done
check "no hook was created in .git" test -z "$(ls -A "$ws/.git/hooks")"
expect_eq ".git/config unchanged by patches" "$(cat "$ws/.git/config")" "[core]"
mcp_stop

# ===== maxChangedFiles =============================================================
manifest "$T/files.yaml" "  maxModelSteps: 100
  maxChangedFiles: 2"
ws=$(make_workspace)
mcp_start "$T/files.yaml" "$ws"
mcp_call write_file '{"path":"a.txt","content":"a\n"}'
mcp_call write_file '{"path":"b.txt","content":"b\n"}'
mcp_call write_file '{"path":"a.txt","content":"a again\n"}'
expect_ok_result "rewriting an already changed file stays within maxChangedFiles"
mcp_call write_file '{"path":"c.txt","content":"c\n"}'
expect_error_class "a 3rd changed file with maxChangedFiles 2: budget_exhausted" budget_exhausted
expect_contains "the refusal names maxChangedFiles" "$(jr .result.structuredContent.message)" maxChangedFiles
check "the 3rd file was not written" test ! -e "$ws/c.txt"
mcp_call read_file '{"path":"a.txt"}'
expect_error_class "after the stop every call is refused" budget_exhausted
status
expect_eq "status shows the stop and its reason" "$(jr -c '[.result.stopped, .result.stopReason]')" '[true,"maxChangedFiles"]'
mcp_stop
expect_eq "serve exits 75 after a budget stop" "$?" 75

# ===== maxPatchAttemptsPerGate ===================================================
manifest "$T/attempts.yaml" "  maxModelSteps: 100
  maxPatchAttemptsPerGate: 2"
ws=$(make_workspace)
mcp_start "$T/attempts.yaml" "$ws"
mcp_call run_check '{"checkId":"unit.todo-transition"}'
expect_eq "the required gate fails" "$(jr .result.structuredContent.exitCode)" 1
# readme_patch N: turns README's title N-1 into title N.
readme_patch() {
	printf -- '--- a/README.md\n+++ b/README.md\n@@ -1,1 +1,1 @@\n-%s\n+# Workboard v%d\n' \
	    "$(head -n 1 "$ws/README.md")" "$1" >"$T/readme.diff"
	mcp_call apply_patch "{\"patch\":$(patch_json "$T/readme.diff"),\"expectedBaseSha\":\"$(sha_of "$ws/README.md")\"}"
}
readme_patch 1
expect_ok_result "1st patch attempt while the gate fails"
# A write_file is an attempt too: it cannot be a way around the count.
mcp_call write_file "{\"path\":\"README.md\",\"content\":\"# Workboard v2\\n\"}"
expect_ok_result "2nd attempt, by write_file, while the gate fails"
readme_patch 3
expect_error_class "a 3rd patch attempt with maxPatchAttemptsPerGate 2: budget_exhausted" budget_exhausted
expect_eq "the 3rd attempt wrote nothing" "$(head -n 1 "$ws/README.md")" "# Workboard v2"
mcp_stop
expect_eq "serve exits 75 after maxPatchAttemptsPerGate" "$?" 75

# ===== Repeated failure fingerprint ====================================================
manifest "$T/fp.yaml" "  maxModelSteps: 100
  stopOnRepeatedFailureFingerprint: 2"
ws=$(make_workspace)
mcp_start "$T/fp.yaml" "$ws"
mcp_call run_check '{"checkId":"unit.todo-transition"}'
expect_eq "1st failure" "$(jr .result.structuredContent.exitCode)" 1
fp1=$(jr .result.structuredContent.failureFingerprint)
mcp_call run_check '{"checkId":"unit.todo-transition"}'
expect_ok_result "the same failure on the same digest does not count twice"
mcp_call write_file '{"path":"irrelevant.txt","content":"nothing to do with the bug\n"}'
expect_ok_result "an irrelevant change"
mcp_call run_check '{"checkId":"unit.todo-transition"}'
expect_eq "2nd failure after the change still reported" "$(jr .result.structuredContent.exitCode)" 1
mcp_call read_file '{"path":"README.md"}'
expect_error_class "the same fingerprint on 2 digests stops the session" budget_exhausted
expect_contains "the stop names stopOnRepeatedFailureFingerprint" "$(jr .result.structuredContent.message)" stopOnRepeatedFailureFingerprint
expect_contains "the stop points to the trace" "$(jr .result.structuredContent.hint)" trace.txt
mcp_stop
expect_eq "serve exits 75 after a fingerprint stop" "$?" 75
sess=$(newest_session)
check "the stop is audited (budget_stop)" grep -q '"budget_stop"' "$sess/audit.jsonl"
check "the failures are audited with their fingerprint" test "$(grep -c '"check_failure"' "$sess/audit.jsonl")" -ge 2
expect_contains "the trace says STOP" "$(cat "$sess/trace.txt")" "STOP"

# ===== maxModelSteps under airlock run: exit status 75 ================================
manifest "$T/steps.yaml" "  maxModelSteps: 3"
ws=$(make_workspace)
cat >"$ws/agent.sh" <<'EOF'
#!/bin/sh
i=0
printf '%s\n' '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
IFS= read -r line <&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
while [ $i -lt 5 ]; do
	i=$((i + 1))
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"README.md"}}}\n' $i >&3
	IFS= read -r line <&3
	printf '%s\n' "$line"
done
exit 0
EOF
chmod 755 "$ws/agent.sh"
timeout 60 "$AIRLOCK" run --manifest "$T/steps.yaml" --workspace "$ws" -- "$ws/agent.sh" >"$T/steps.out" 2>"$T/steps.err"
expect_eq "airlock run exits 75 when the budget stops the run" "$?" 75
mapfile -t CLASSES < <(jq -r 'if .result.isError then (.result.content[0].text | fromjson | .errorClass) else "ok" end' "$T/steps.out")
expect_eq "3 steps allowed, then budget_exhausted" "${CLASSES[*]}" "ok ok ok budget_exhausted budget_exhausted"

finish
