#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A write the broker refuses spends no budget.  write_file counted its
# file against maxChangedFiles and maxAddedDependencies (and a failing
# gate's patch attempts) before the write found its target a directory,
# a symbolic link or a file of two hard links and refused it
# (path_refused, nothing written): two write_file calls of a directory
# named package.json spent maxAddedDependencies: 2, and the third
# stopped the session for dependencies never added.  Now every check
# the write makes (wswrite_check()) comes before the budgets count it,
# for apply_patch too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir "$ws/package.json"
echo 'a==1' >"$ws/requirements.txt"
ln "$ws/requirements.txt" "$ws/hard.txt"
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 10000
dependencyFiles: [ "package.json", "requirements.txt" ]
runBudget:
  maxAddedDependencies: 2
EOF2
mcp_start "$T/m.yaml" "$ws"
for i in 1 2 3; do
	mcp_call write_file '{"path":"package.json","content":"{}\n"}'
	expect_error_class "write_file of a directory #$i: path_refused" path_refused
	expect_contains "... saying why" "$(jr .result.structuredContent.message)" \
	    "package.json is not a regular file"
done
mcp_call write_file '{"path":"requirements.txt","content":"b==2\n"}'
expect_error_class "write_file of a file of two links: path_refused" path_refused
expect_eq "... it is unchanged" "$(cat "$ws/requirements.txt")" 'a==1'
mcp_rpc airlock/session/status '{}'
expect_eq "no dependency counted" \
    "$(jr .result.budgets.maxAddedDependencies.used)" 0
expect_eq "no changed file counted" \
    "$(jr .result.budgets.maxChangedFiles.used)" 0
# The control: once it is a place a file may go, the write lands and
# counts.
rmdir "$ws/package.json"
mcp_call write_file '{"path":"package.json","content":"{}\n"}'
expect_ok_result "write_file of package.json: applied"
expect_eq "... written" "$(cat "$ws/package.json")" '{}'
mcp_rpc airlock/session/status '{}'
expect_eq "... one dependency counted" \
    "$(jr .result.budgets.maxAddedDependencies.used)" 1
mcp_stop

# A write that fails after the budgets counted it (the disk said EIO:
# strace, attached to the broker or its lander, injects it into the
# first fsync of the workspace) is undone, and so is its count: a full
# disk spent maxAddedDependencies on every retry, and the session
# stopped for dependencies never added.
{ write_tools_yaml; cat <<'EOF2'
dependencyFiles: [ "package.json" ]
runBudget:
  maxAddedDependencies: 1
EOF2
} >"$T/m2.yaml"
printf -- '--- a/package.json\n+++ b/package.json\n@@ -1 +1 @@\n-{}\n+{"a": 1}\n' >"$T/p.diff"
patch_args="{\"patch\":$(json_str "$T/p.diff"),\"expectedBaseSha\":\"$(printf '{}\n' | sha256sum | cut -d' ' -f1)\"}"
for tool in write_file apply_patch; do
	printf '{}\n' >"$ws/package.json"
	mcp_start "$T/m2.yaml" "$ws"
	case $tool in
	write_file) pid=$MCP_PID args='{"path":"package.json","content":"{\"a\": 1}\n"}' ;;
	*) pid=$(mcp_lander_pid) args=$patch_args ;;
	esac
	timeout 30 strace -qq -o /dev/null -p "$pid" -P "$ws" -e trace=fsync \
	    -e inject=fsync:error=EIO:when=1 2>/dev/null &
	sp=$!
	check "$tool: strace is attached" wait_for pid_traced "$pid"
	mcp_call "$tool" "$args"
	expect_error_class "$tool failing on EIO: write_failed" write_failed
	expect_eq "... retryable" "$(jr .result.structuredContent.retryable)" true
	expect_eq "... the file is as it was" "$(cat "$ws/package.json")" '{}'
	mcp_rpc airlock/session/status '{}'
	expect_eq "... no dependency counted" \
	    "$(jr .result.budgets.maxAddedDependencies.used)" 0
	mcp_call "$tool" "$args"
	expect_ok_result "$tool retried: applied"
	expect_eq "... written" "$(cat "$ws/package.json")" '{"a": 1}'
	mcp_rpc airlock/session/status '{}'
	expect_eq "... one dependency counted" \
	    "$(jr .result.budgets.maxAddedDependencies.used)" 1
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	mcp_stop
done
finish
