#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Budgets count a runner's change set with the same counters as the
# broker's own writes (issue 12, fourth bullet): files a check creates and
# a dependency it appends use maxChangedFiles and maxAddedDependencies
# exactly as write_file does, in either order, and the status reports it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
echo "requests==2.0" >"$ws/requirements.txt"

# manifest FILE MAXCHANGED MAXDEPS
manifest() {
	cat >"$1" <<EOF2
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 2000
checks:
  many: ["sh", "-c", "mkdir -p gen && for i in \$(seq 1 60); do echo \$i >gen/f\$i; done"]
  deps: ["sh", "-c", "echo evilpkg==6.6.6 >>requirements.txt"]
  dirs: ["sh", "-c", "for i in \$(seq 1 20); do mkdir -p e\$i/x/y; done"]
  chmod: ["sh", "-c", "chmod 700 sub"]
dependencyFiles: [ "requirements.txt" ]
runBudget:
  maxChangedFiles: $2
  maxAddedDependencies: $3
EOF2
}
# used LIMIT: the session status's use of budget LIMIT (in $USED; not a
# subshell: the request ids must advance).
used() {
	mcp_rpc airlock/session/status '{}'
	USED=$(jr ".result.budgets.$1.used")
}

# Enough room: every write counts, whoever made it.
manifest "$T/a.yaml" 63 1
mcp_start "$T/a.yaml" "$ws"
mcp_call write_file '{"path":"notes.txt","content":"x"}'
expect_eq "write_file: applied" "$(jr .result.isError)" false
used maxChangedFiles
expect_eq "write_file counts one changed file" "$USED" 1
# Every runBudget key is in the status, with its use and its limit
# (null: none): maxAuditMiB, maxParallelProcesses, maxPatchAttemptsPerGate
# and stopOnRepeatedFailureFingerprint were missing.
mcp_rpc airlock/session/status '{}'
expect_eq "the status shows every runBudget key, each with use and limit" \
    "$(jr -c '[.result.budgets | to_entries[] | select((.value | has("used")) and (.value | has("limit"))) | .key] | sort')" \
    '["maxAddedDependencies","maxAuditMiB","maxChangedFiles","maxElapsedMinutes","maxModelSteps","maxParallelProcesses","maxPatchAttemptsPerGate","maxRefusedCalls","maxToolCostUsd","stopOnRepeatedFailureFingerprint"]'
expect_eq "... the audit log's MiB against maxAuditMiB's default" \
    "$(jr '.result.budgets.maxAuditMiB | (.used > 0 and .used < 1), .limit')" "true
1024"
mcp_call run_check '{"checkId":"many"}' 60
expect_eq "a check creating 60 files: applied" "$(jr .result.structuredContent.exitCode)" 0
used maxChangedFiles
expect_eq "its 60 files count on the same counter (1 + 60)" "$USED" 61
mcp_call run_check '{"checkId":"deps"}' 60
expect_eq "a check appending a dependency: applied" "$(jr .result.structuredContent.exitCode)" 0
used maxAddedDependencies
expect_eq "the appended dependency counts" "$USED" 1
used maxChangedFiles
expect_eq "requirements.txt counts as a changed file too" "$USED" 62
mcp_call write_file '{"path":"requirements.txt","content":"requests==2.0\nother==1\n"}'
expect_eq "then write_file adding a dependency: over maxAddedDependencies 1" \
    "$(jr .result.structuredContent.errorClass)" budget_exhausted
expect_contains "names maxAddedDependencies" "$(jr .result.structuredContent)" maxAddedDependencies
expect_eq "requirements.txt keeps the check's version" "$(tail -1 "$ws/requirements.txt")" "evilpkg==6.6.6"
mcp_stop

# A broker write first, then the check's set goes over: refused whole.
rm -rf "$ws/gen" "$ws/notes.txt"
manifest "$T/b.yaml" 60 5
mcp_start "$T/b.yaml" "$ws"
mcp_call write_file '{"path":"notes.txt","content":"x"}'
mcp_call run_check '{"checkId":"many"}' 60
expect_eq "write_file then 60 files with maxChangedFiles 60: refused" \
    "$(jr .result.structuredContent.errorClass)" change_refused
expect_contains "the refusal names maxChangedFiles" "$(jr -c .result.structuredContent.refused)" '"rule":"maxChangedFiles"'
check "none of the 60 files landed" test ! -e "$ws/gen"
mcp_stop

# Directories are changes too: a directory's mode, and a directory made
# with nothing of the set in it (else 20 empty trees went uncounted).
rm -rf "$ws/gen" "$ws/notes.txt"
mkdir -m 755 "$ws/sub"
echo keep >"$ws/sub/f"
manifest "$T/c.yaml" 10 5
mcp_start "$T/c.yaml" "$ws"
mcp_call run_check '{"checkId":"chmod"}' 60
expect_eq "a check changing a directory's mode: applied" "$(jr .result.structuredContent.exitCode)" 0
expect_eq "the mode landed" "$(stat -c %a "$ws/sub")" 700
used maxChangedFiles
expect_eq "the mode change counts one" "$USED" 1
mcp_call run_check '{"checkId":"dirs"}' 60
expect_eq "20 empty trees with maxChangedFiles 10: refused" \
    "$(jr .result.structuredContent.errorClass)" change_refused
expect_contains "the refusal names maxChangedFiles" "$(jr -c .result.structuredContent.refused)" '"rule":"maxChangedFiles"'
check "none of the directories landed" test ! -e "$ws/e1"
mcp_stop
manifest "$T/d.yaml" 20 5
mcp_start "$T/d.yaml" "$ws"
mcp_call run_check '{"checkId":"dirs"}' 60
expect_eq "with maxChangedFiles 20: applied" "$(jr .result.structuredContent.exitCode)" 0
used maxChangedFiles
expect_eq "each empty tree counts once, by its deepest directory" "$USED" 20
check "the trees landed" test -d "$ws/e20/x/y"
mcp_stop
finish
