#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A gate binds its check's result to the workspace digest taken before
# the check ran; a check during whose run the workspace was written
# counts toward no gate.  With a read-only agent only the broker's
# writes and the watch of others' were looked at, and the watch sees a
# write only through the name it watches: a workspace file with a second
# name outside the workspace (a hard link into a package store, or any
# directory the agent may write: here an `airlock run --rw` bind) was
# written there by the agent while the check ran, "fixed", and put back
# after, "broken": acceptance was met on content whose check fails.
# Now a digest that finds a file with another name is sealed again after
# the run (broker/wsindex.h), as with an agent that writes the workspace,
# and a different seal makes the run count toward no gate.  Played for
# real from inside the agent's read-only sandbox.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")
CHECK='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"slow"}}}'
STATUS='{"jsonrpc":"2.0","id":9,"method":"airlock/session/status","params":{}}'
GATE='[.result.acceptanceMet, (.result.gates[] | select(.checkId == "slow") | .state)]'

# run_agent NAME: airlock run with the agent script $T/agent-NAME.sh in
# $T/ws-NAME, whose flag is a hard link of $T/store-NAME/flag, bound
# read-write into the agent's sandbox; the check's reply is left in $R,
# the status's in $S.
run_agent() {
	local ws="$T/ws-$1" store="$T/store-$1"

	chmod 755 "$T/agent-$1.sh"
	(cd "$ws" && timeout 90 "$A" run --rw "$store" --manifest "$T/m.yaml" \
	    --workspace "$ws" -- "$T/agent-$1.sh" >"$T/out-$1" 2>"$T/err-$1")
	S=$(grep '"id":9,' "$T/out-$1")
	R=$(grep '"id":2,' "$T/out-$1")
}

cat >"$T/m.yaml" <<EOF
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
  workspace: ro
EOF
for name in link still; do
	mkdir -p "$T/ws-$name" "$T/store-$name"
	echo broken >"$T/store-$name/flag"
	[ "$name" = still ] && echo fixed >"$T/store-$name/flag"
	ln "$T/store-$name/flag" "$T/ws-$name/flag"
	chmod -R a+rwX "$T/ws-$name" "$T/store-$name"
done

# The agent: the check starts on "broken"; 1.5 s into its 4 s run the
# agent writes "fixed" through the store's name; once the result is
# back, "broken" again.
store="$T/store-link"
{
	echo '#!/bin/sh'
	echo "(sleep 1.5; echo fixed >$store/flag) &"
	connect_calls "$CHECK"
	echo 'wait'
	echo "echo broken >$store/flag"
	connect_calls "$STATUS"
} >"$T/agent-link.sh"
run_agent link
expect_eq "the check passed on what the agent wrote through the link" \
    "$(jr .result.structuredContent.exitCode)" 0
expect_contains "... its result says it counts toward no gate" \
    "$(jr '.result.content[1].text')" \
    "airlock: this result of slow does not count toward acceptance: "
expect_contains "... naming the files with another name" \
    "$(jr '.result.content[1].text')" "1 file(s) of it have another name, a hard link"
check "the workspace holds broken again" grep -qx broken "$T/ws-link/flag"
R=$S
expect_eq "with broken put back, acceptance is not met" \
    "$(jr -c "$GATE")" '[false,"stale"]'
log=$(newest_session_log)
expect_eq "the audit log says why" \
    "$(jq -c 'select(.event == "gate_workspace_written") | .fields | [.check, .linkedFiles]' "$log")" \
    '["slow",1]'

# The same link, nothing written through it: on a filesystem where a
# write through a mapping moves the times the seals match and the pass
# counts; elsewhere (tmpfs) no run can be shown unwritten.
{
	echo '#!/bin/sh'
	connect_calls "$CHECK"
	connect_calls "$STATUS"
} >"$T/agent-still.sh"
run_agent still
expect_eq "still: the check passes" "$(jr .result.structuredContent.exitCode)" 0
case $(stat -f -c %T "$T/ws-still") in
ext2/ext3 | xfs | btrfs)
	R=$S
	expect_eq "still: unwritten, the pass counts" "$(jr -c "$GATE")" '[true,"pass"]'
	;;
*)
	expect_contains "still: unsealable, the pass counts toward no gate" \
	    "$(jr '.result.content[1].text')" "no run there can be shown unwritten"
	R=$S
	expect_eq "still: ... and acceptance is not met" "$(jr -c "$GATE")" '[false,"stale"]'
	;;
esac

# runBudget.maxPatchAttemptsPerGate counts a read-only agent's changes
# through the broker only: its edits through the link between failing
# checks were none, and it tried fix after fix without end.  With a
# file of another name in the workspace a changed digest with no broker
# write between is an attempt, as for an agent that writes the
# workspace (gate_agent_edits.sh): the second edit, under 1, stops the
# session before its check runs.
sed 's/^gates:/runBudget:\n  maxPatchAttemptsPerGate: 1\ngates:/; s/sleep 4; //' \
    "$T/m.yaml" >"$T/budget.yaml"
mkdir -p "$T/ws-budget" "$T/store-budget"
echo broken >"$T/store-budget/flag"
ln "$T/store-budget/flag" "$T/ws-budget/flag"
chmod -R a+rwX "$T/ws-budget" "$T/store-budget"
check_call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"slow"}}}' "$1"
}
store="$T/store-budget"
{
	echo '#!/bin/sh'
	connect_calls "$(check_call 3)"
	echo "echo try1 >$store/flag"
	connect_calls "$(check_call 4)"
	echo "echo try2 >$store/flag"
	connect_calls "$(check_call 5)"
} >"$T/agent-budget.sh"
chmod 755 "$T/agent-budget.sh"
(cd "$T/ws-budget" && timeout 90 "$A" run --rw "$store" \
    --manifest "$T/budget.yaml" --workspace "$T/ws-budget" \
    -- "$T/agent-budget.sh" >"$T/out-budget" 2>"$T/err-budget")
for id in 3 4; do
	R=$(grep "\"id\":$id," "$T/out-budget")
	expect_eq "budget: check $id runs and fails" \
	    "$(jr .result.structuredContent.exitCode)" 1
done
R=$(grep '"id":5,' "$T/out-budget")
expect_eq "budget: the second edit through the link is attempt 2: the session stops" \
    "$(jr '.result.content[0].text | fromjson | .errorClass')" budget_exhausted
expect_contains "budget: ... for maxPatchAttemptsPerGate" \
    "$(jr '.result.content[0].text | fromjson | .message')" maxPatchAttemptsPerGate
# A check's pinned script with another name: pinned as refused, never
# read, its digest the same whatever it held.  The agent rewrote it to
# "exit 0" through the store's name before the check (nothing to seal)
# and the gate counted, pinned code unchanged.  Now a pinned path that
# cannot be read as a file of the workspace is changed, always.
ws="$T/ws-pin" store="$T/store-pin"
mkdir -p "$ws/tests" "$store"
echo broken >"$ws/flag"
echo 'grep -qx fixed flag' >"$store/run.sh"
ln "$store/run.sh" "$ws/tests/run.sh"
chmod -R a+rwX "$ws" "$store"
sed 's/slow: \[.*\]$/slow: ["sh", "tests\/run.sh"]/' "$T/m.yaml" >"$T/pin.yaml"
{
	echo '#!/bin/sh'
	echo "echo 'exit 0' >$store/run.sh"
	connect_calls "$(check_call 2)"
	connect_calls "$STATUS"
} >"$T/agent-pin.sh"
chmod 755 "$T/agent-pin.sh"
(cd "$ws" && timeout 90 "$A" run --rw "$store" --manifest "$T/pin.yaml" \
    --workspace "$ws" -- "$T/agent-pin.sh" >"$T/out-pin" 2>"$T/err-pin")
R=$(grep '"id":2,' "$T/out-pin")
expect_eq "pin: the rewritten script passes" "$(jr .result.structuredContent.exitCode)" 0
expect_contains "pin: ... and does not count: its pinned code is named" \
    "$(jr '.result.content[1].text')" "its pinned code changed since the session started (tests/run.sh)"
R=$(grep '"id":9,' "$T/out-pin")
expect_eq "pin: acceptance is not met, the script named" \
    "$(jr -c '[.result.acceptanceMet, .result.pinnedCodeChanged]')" '[false,["tests/run.sh"]]'
finish
