# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Helpers for the approval tests (bash; sourced after tests/lib.sh and
# mcp_lib.sh, with mcp_env done and $ws a workspace).
#
# A scripted agent under "airlock run": one tools/call per line of a
# script file in the workspace, each reply printed as "R<n> <reply>".
#
# appr_agent_start MANIFEST SCRIPT   start it; $RUN_PID, output in $OUT
# appr_reply N                       wait (20 s) for reply N, into $R
# appr_pending_id TARGET [AS...]     wait for a pending deploy of TARGET as
#                                    seen by "AS... airlock pending --json"
# appr_agent_stop                    wait for it to finish (10 s), then kill
OUT="$T/agent.out"

cat >"$ws/agent.sh" <<'AGENT'
#!/bin/sh
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
IFS= read -r line <&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
n=0
while IFS= read -r call; do
	n=$((n + 1))
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}\n' $n "$call" >&3
	while IFS= read -r line <&3; do
		case $line in
		*'"method":'*) continue ;;
		esac
		break
	done
	printf 'R%d %s\n' $n "$line"
done <"$1"
echo DONE
AGENT
chmod 755 "$ws/agent.sh"

appr_agent_start() {
	: >"$OUT"
	"$AIRLOCK" run --manifest "$1" --workspace "$ws" -- "$ws/agent.sh" "$ws/$2" \
	    >"$OUT" 2>"$T/run.err" &
	RUN_PID=$!
}
appr_reply() {
	local i
	R=
	for i in $(seq 200); do
		R=$(sed -n "s/^R$1 //p" "$OUT")
		[ -n "$R" ] && { mcp_error_body; return 0; }
		sleep 0.1
	done
	return 1
}
appr_pending_id() {
	local t=$1 i id
	shift
	for i in $(seq 200); do
		id=$("$@" "$AIRLOCK" pending --json 2>/dev/null |
		    jq -r --arg t "$t" '.pending[] | select(.arguments.target == $t) | .id' | head -n 1)
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.1
	done
	return 1
}
appr_agent_stop() {
	local i
	for i in $(seq 100); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.1; done
	kill "$RUN_PID" 2>/dev/null
	wait "$RUN_PID"
}
