#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# runBudget.stopOnRepeatedFailureFingerprint counts a check's failure
# even when the workspace was written while the check ran: an agent that
# writes a file (write_file) during each run_check, so that no run is
# bound to a workspace digest, still has its repeated failure counted
# and the session stops, as it does for the same loop without the race.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 2000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  unit.same: ["sh", "-c", "sleep 1; echo 'FAIL: the same failure'; exit 1"]
runBudget:
  stopOnRepeatedFailureFingerprint: 2
EOF2

# loop RACE: four rounds of a write and the failing check; the write
# while the check runs (RACE=1) or before it (RACE=0).  Prints the
# errorClass of each round's check result (or exitCode): the second
# failure is answered, then the session is stopped.
loop() {
	local i out=""
	for i in 1 2 3 4; do
		if [ "$1" = 0 ]; then
			mcp_call write_file "{\"path\":\"f.txt\",\"content\":\"try $i\"}" 10
		fi
		mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"c$i\",\"method\":\"tools/call\",\"params\":{\"name\":\"run_check\",\"arguments\":{\"checkId\":\"unit.same\"}}}"
		if [ "$1" = 1 ]; then
			sleep 0.3
			mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"w$i\",\"method\":\"tools/call\",\"params\":{\"name\":\"write_file\",\"arguments\":{\"path\":\"f.txt\",\"content\":\"try $i\"}}}"
			mcp_wait_id "w$i" 10
		fi
		mcp_wait_id "c$i" 20
		if [ "$(r_is_error)" = true ]; then
			out="$out $(r_class)"
		else
			out="$out $(printf '%s' "$R" | jq -r .result.structuredContent.exitCode)"
		fi
	done
	echo $out
}

ws=$(make_workspace)
mcp_start "$T/m.yaml" "$ws"
got=$(loop 0)
mcp_stop
expect_eq "the same failure twice on changed workspaces stops the session" \
    "$got" "1 1 budget_exhausted budget_exhausted"

ws=$(make_workspace)
mcp_start "$T/m.yaml" "$ws"
got=$(loop 1)
sess=$(newest_session)
mcp_stop
expect_eq "written while each check ran, the same failure still stops it" \
    "$got" "1 1 budget_exhausted budget_exhausted"
n=$(grep -c '"budget_stop".*stopOnRepeatedFailureFingerprint' "$sess/audit.jsonl")
expect_eq "the stop is audited" "$n" 1
finish
