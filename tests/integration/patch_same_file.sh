#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A patch that changes one file under two names: "deps/package.json"
# and "alias/package.json", with "alias" -> "deps" a link the agent's
# own check made (the parser refuses a name given twice, not two names
# of one file).  The lander read both, the loop counted the file (and a
# dependency added) and said yes, and wswrite_apply()'s second rename
# found nothing to move: the call failed "write_failed", retryable,
# every time, so runBudget.maxRefusedCalls never counted it, and
# maxAddedDependencies was spent on a file that never changed (5 such
# patches: maxAddedDependencies used 5, the file as it was).  Now the
# patch is refused malformed_patch before the budgets see it, naming
# both, and a loop of it is cut off by maxRefusedCalls.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/deps"
echo one >"$ws/deps/package.json"

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
checks:
  alias: ["ln", "-s", "deps", "alias"]
dependencyFiles: [ "deps/package.json" ]
runBudget:
  maxAddedDependencies: 5
  maxRefusedCalls: 3
EOF2

# base PATH...: expectedBaseSha of the named files (broker/wsdigest.h:
# each name, NUL, its content's SHA-256 and a newline, sorted by name).
base() {
	local p
	for p in "$@"; do
		printf '%s\0%s\n' "$p" "$(sha256sum <"$ws/$p" | cut -d' ' -f1)"
	done | sha256sum | cut -d' ' -f1
}
printf -- '--- a/deps/package.json\n+++ b/deps/package.json\n@@ -1 +1 @@\n-one\n+two\n--- a/alias/package.json\n+++ b/alias/package.json\n@@ -1 +1 @@\n-one\n+three\n' >"$T/p.diff"

mcp_start "$T/m.yaml" "$ws"
mcp_call run_check '{"checkId":"alias"}' 60
expect_eq "the check's link landed" "$(readlink "$ws/alias")" deps
args="{\"patch\":$(json_str "$T/p.diff"),\"expectedBaseSha\":\"$(base alias/package.json deps/package.json)\"}"
mcp_call apply_patch "$args"
expect_eq "one file under two names: malformed_patch" \
    "$(jr .result.structuredContent.errorClass)" malformed_patch
expect_eq "not retryable" "$(jr .result.structuredContent.retryable)" false
expect_contains "the refusal names both and the file" \
    "$(jr .result.structuredContent.message)" \
    "deps/package.json and alias/package.json are the same file"
expect_eq "the file unchanged" "$(cat "$ws/deps/package.json")" one
mcp_rpc airlock/session/status '{}'
expect_eq "no dependency counted" \
    "$(jr .result.budgets.maxAddedDependencies.used)" 0
expect_eq "no changed file counted but the link" \
    "$(jr .result.budgets.maxChangedFiles.used)" 1
expect_eq "counted as refused" "$(jr .result.budgets.maxRefusedCalls.used)" 1
# In a loop: the third refusal spends maxRefusedCalls, the next call is
# refused with it (before: write_failed, retryable, without end).
mcp_call apply_patch "$args"
mcp_call apply_patch "$args"
expect_eq "the third: malformed_patch" \
    "$(jr .result.structuredContent.errorClass)" malformed_patch
mcp_call apply_patch "$args"
expect_contains "the fourth: cut off by maxRefusedCalls" "$(jr .error.message)" \
    maxRefusedCalls
expect_eq "the file still unchanged" "$(cat "$ws/deps/package.json")" one
mcp_stop

# The control: the file under one name lands.
rm -f "$ws/alias"
printf -- '--- a/deps/package.json\n+++ b/deps/package.json\n@@ -1 +1 @@\n-one\n+two\n' >"$T/p1.diff"
mcp_start "$T/m.yaml" "$ws"
mcp_call apply_patch "{\"patch\":$(json_str "$T/p1.diff"),\"expectedBaseSha\":\"$(sha256sum <"$ws/deps/package.json" | cut -d' ' -f1)\"}"
expect_eq "one name: applied" "$(jr .result.isError)" false
expect_eq "the file changed" "$(cat "$ws/deps/package.json")" two
mcp_stop
finish
