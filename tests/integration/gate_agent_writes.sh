#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A gate binds its check's result to the workspace digest taken before
# the check ran, and a check during whose run the workspace was written
# counts toward no gate.  Only the broker's own writes were seen: an
# agent that writes the workspace itself (agent.workspace: rw, or its
# copy-on-write view) could run the check on "broken", write "fixed"
# while it ran (the check passes on it), then put "broken" back: the
# digest was the one the gate was bound to, and acceptance was met on
# content that fails.  Now the broker's watch of changes by others
# counts too, for rw on the checkout and for cow on the view.  Played for
# real from inside the agent's sandbox, for both modes.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")
CHECK='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"slow"}}}'
STATUS='{"jsonrpc":"2.0","id":9,"method":"airlock/session/status","params":{}}'
GATE='[.result.acceptanceMet, (.result.gates[] | select(.checkId == "slow") | .state)]'

# run_agent NAME WS: airlock run with $T/NAME.yaml and the agent script
# $T/agent-NAME.sh, in WS; the check's reply is left in $R, the status's
# in $S.
run_agent() {
	chmod 755 "$T/agent-$1.sh"
	(cd "$2" && timeout 90 "$A" run --manifest "$T/$1.yaml" \
	    --workspace "$2" -- "$T/agent-$1.sh" >"$T/out-$1" 2>"$T/err-$1")
	S=$(grep '"id":9,' "$T/out-$1")
	R=$(grep '"id":2,' "$T/out-$1")
}

for mode in rw cow; do
	ws="$T/ws-$mode"
	mkdir -p "$ws"
	echo broken >"$ws/flag"
	chmod -R a+rwX "$ws"
	cat >"$T/$mode.yaml" <<EOF
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
checks:
  slow: ["sh", "-c", "sleep 4; grep -qx fixed flag"]
gates:
  required: [slow]
agent:
  workspace: $mode
EOF
	# The agent: the check starts on "broken"; 1.5 s into its 4 s run
	# the agent writes "fixed"; once the result is back, "broken" again.
	{
		echo '#!/bin/sh'
		echo '(sleep 1.5; echo fixed >flag) &'
		connect_calls "$CHECK"
		echo 'wait'
		echo 'echo broken >flag'
		connect_calls "$STATUS"
	} >"$T/agent-$mode.sh"
	run_agent "$mode" "$ws"
	expect_eq "$mode: the check passed on what the agent wrote meanwhile" \
	    "$(jr .result.structuredContent.exitCode)" 0
	if [ "$mode" = rw ]; then
		expect_contains "rw: the write is reported as a change by others" \
		    "$(jr -c .result.structuredContent.fileChanges.files)" '"path":"flag"'
	else
		expect_eq "cow: the agent's own edit in its view is not news to it" \
		    "$(jr -c .result.structuredContent.fileChanges)" null
	fi
	R=$S
	expect_eq "$mode: with broken put back, acceptance is not met" \
	    "$(jr -c "$GATE")" '[false,"stale"]'
	check "$mode: the audit log says why" grep -q '"gate_workspace_written"' "$(newest_session)/audit.jsonl"
done

# A watch that cannot see everything (a tree deeper than the watch
# follows, FWATCH_MAX_DEPTH) cannot tell that a run's window was
# unwritten: with an agent that writes the workspace, no check counts.
ws="$T/ws-blind"
mkdir -p "$ws"
echo fixed >"$ws/flag"
sed 's/sleep 4; //' "$T/rw.yaml" >"$T/blind.yaml"
{
	echo '#!/bin/sh'
	printf 'mkdir -p %s\n' "$(printf 'd/%.0s' $(seq 200))"
	connect_calls "$CHECK"
	connect_calls "$STATUS"
} >"$T/agent-blind.sh"
run_agent blind "$ws"
expect_eq "blind: the check passes" "$(jr .result.structuredContent.exitCode)" 0
R=$S
expect_eq "blind: ... and counts toward no gate" "$(jr -c "$GATE")" '[false,"stale"]'
finish
