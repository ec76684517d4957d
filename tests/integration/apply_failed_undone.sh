#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An apply that fails after it changed the workspace (the disk says EIO
# to the sync after its renames: strace, attached to the broker or its
# lander, injects it) is rolled back in the same process from its
# journal (applyjournal_end()): the workspace is as it was, no trash is
# left, and the retry lands.  For write_file and apply_patch (wswrite.c,
# the directory's fsync after the renames) and a check's change set
# (changeset.c, the syncfs before the commit point).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
{ write_tools_yaml; cat <<'EOF2'
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  rewrite: ["sh", "-c", "echo new >a.txt && echo made >b.txt"]
EOF2
} >"$T/m.yaml"
printf -- '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n' >"$T/p.diff"
patch="{\"patch\":$(json_str "$T/p.diff"),\"expectedBaseSha\":\"$(printf 'old\n' | sha256sum | cut -d' ' -f1)\"}"

# undone TOOL ARGS PID CALL WHEN: CALL (fsync or syncfs) of the workspace
# fails for the WHEN-th time in PID while TOOL applies ARGS.
undone() {
	local tool=$1 args=$2 pid=$3 call=$4 when=$5 sp
	printf 'old\n' >"$ws/a.txt"
	rm -f "$ws/b.txt"
	chmod -R a+rwX "$ws"
	timeout 30 strace -qq -o /dev/null -p "$pid" -P "$ws" \
	    -e trace=fsync,syncfs -e inject="$call":error=EIO:when="$when" \
	    2>/dev/null &
	sp=$!
	check "$tool: strace is attached" wait_for pid_traced "$pid"
	mcp_call "$tool" "$args"
	expect_error_class "$tool, its $call failing: write_failed" write_failed
	expect_eq "... a.txt is as it was" "$(cat "$ws/a.txt")" old
	check "... no b.txt" test ! -e "$ws/b.txt"
	expect_eq "... no trash left" "$(ls -A "$ws" | grep -c '^\.airlock-')" 0
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	mcp_call "$tool" "$args"
	expect_ok_result "$tool retried: applied"
	expect_eq "... a.txt written" "$(cat "$ws/a.txt")" new
}

printf 'old\n' >"$ws/a.txt"
mcp_start "$T/m.yaml" "$ws"
# The first fsync of the workspace's directory makes the trash; the
# second follows the renames.
undone write_file '{"path":"a.txt","content":"new\n"}' "$MCP_PID" fsync 2
undone apply_patch "$patch" "$(mcp_lander_pid)" fsync 2
undone run_check '{"checkId":"rewrite"}' "$(mcp_lander_pid)" syncfs 1
expect_eq "the check's retry made b.txt" "$(cat "$ws/b.txt")" made
mcp_stop
finish
