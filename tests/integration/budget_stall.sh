#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A change set of many files against the budget: the ledger counted the
# distinct paths of a run's change set (up to 256k) by comparing each with
# every other and with every path the session had written, on the
# broker's event loop, so a command that made 150000 empty files stalled
# the broker for half a minute (pings unanswered) before the refusal.
# Now the paths are sorted and searched, and the walk of the upper layer
# is done by the landing process (broker/landjob.h), off the loop: 1.4-2.1
# s with the walk on the loop, 20-50 ms since.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
N=150000
cat >"$T/m.yaml" <<'YAML'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 300000
runBudget:
  maxChangedFiles: 100
YAML
mcp_start "$T/m.yaml" "$ws"
mcp_send "{\"jsonrpc\":\"2.0\",\"id\":100,\"method\":\"tools/call\",\"params\":{\"name\":\"sh\",\"arguments\":{\"command\":\"mkdir d && cd d && seq $N | xargs touch && echo made\"}}}"
# A ping every 0.2 s until the call is answered; the slowest answer.
worst=0 result=
for i in $(seq 1 3000); do
	t0=$(date +%s%N)
	mcp_send "{\"jsonrpc\":\"2.0\",\"id\":$((1000 + i)),\"method\":\"ping\"}"
	while mcp_recv 120; do
		case $R in
		*'"id":100,'*) result=$R ;;
		*"\"id\":$((1000 + i)),"*) break ;;
		esac
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -gt "$worst" ] && worst=$ms
	[ -n "$result" ] && break
	sleep 0.2
done
R=$result
expect_eq "the run's change set is refused" "$(jr '.result.content[0].text' | jq -r .errorClass)" change_refused
expect_contains "... by maxChangedFiles" "$R" "maxChangedFiles"
check "nothing of it landed" test ! -e "$ws/d"
echo "# slowest ping while $N paths were counted: $worst ms"
check "the broker answered every ping within 1 s (30 s and more, then 1.4-2.1 s before)" test "$worst" -lt 1000
mcp_stop
finish
