#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approved run reads the workspace as it goes (approval_run_still.sh:
# the broker writes nothing beneath it).  An agent that writes the
# workspace itself is not the broker: "deploy" (approved) sleeps, then
# sources lib.sh, and the agent, from inside its sandbox, rewrote lib.sh
# once the approved run had started.  Before, the human's yes ran the
# rewrite ("PAYLOAD"), in both modes, and the call succeeded.  Now:
#  - cow: the session's view is held read-only while a run a human
#    approved runs (broker/viewfreeze.h), so the agent's write fails
#    (EROFS) and the run reads what the approver was shown;
#  - rw: the checkout cannot be held; the write is seen by the watch of
#    the agent's writes, nothing of the run lands, the call fails
#    workspace_written and approved_run_written is audited (what the
#    run did is not undone: docs/SECURITY.md).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")
DEPLOY='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{}}}'
agent_uid=65534
[ "$(id -u)" -eq 0 ] || agent_uid=$(id -u)

for mode in cow rw; do
	# The agent's home (on the host: the test tells the agent through
	# it that the approved run has started).
	H="$T/home-$mode"
	mkdir -p "$H"
	chmod 755 "$H"
	[ "$(id -u)" -eq 0 ] && chown "$agent_uid:$agent_uid" "$H"
	ws="$T/ws-$mode"
	mkdir -p "$ws"
	cat >"$T/$mode.yaml" <<EOF2
tools:
  - name: deploy
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh"]
    sideEffect: external
    authorization: approval
    timeoutMs: 30000
approvals:
  approvers: [$(id -un)]
  ttlSeconds: 60
agent:
  workspace: $mode
  home: $H
EOF2
	chmod 644 "$T/$mode.yaml"
	# Long enough for the agent's write to come while it sleeps.
	printf '#!/bin/sh\nsleep 5\n. ./lib.sh\ngreet\n: >deployed\n' >"$ws/deploy.sh"
	printf 'greet() { echo deploying; }\n' >"$ws/lib.sh"
	chmod -R a+rwX "$ws"
	{
		echo '#!/bin/sh'
		echo "(while [ ! -e $H/go ]; do sleep 0.1; done"
		echo " echo 'greet() { echo PAYLOAD; }' >lib.sh; echo \"WROTE \$?\" >&2) &"
		CONNECT_HOLD=12 connect_calls "$DEPLOY"
		echo 'wait'
	} >"$T/agent-$mode.sh"
	chmod 755 "$T/agent-$mode.sh"
	(cd "$ws" && timeout 90 "$A" run --manifest "$T/$mode.yaml" \
	    --workspace "$ws" -- "$T/agent-$mode.sh" >"$T/out-$mode" \
	    2>"$T/err-$mode") &
	run=$!
	id=$(mcp_pending deploy)
	check "$mode: deploy waits for a human" test -n "$id"
	"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
	started() { L=$(newest_session_log) && grep -q '"runner_start".*"deploy"' "$L"; }
	check "$mode: the approved deploy starts" wait_for started
	touch "$H/go"
	wait $run
	R=$(grep '"id":2,' "$T/out-$mode")
	L=$(newest_session_log)
	check "$mode: the agent tried its write while the run ran" grep -q "^WROTE" "$T/err-$mode"
	case $mode in
	cow)
		expect_ok_result "cow: the approved deploy ran"
		expect_eq "cow: ... on the lib.sh the approver was shown" \
		    "$(jr .result.structuredContent.stdout)" "deploying"
		expect_contains "cow: the agent's write was refused: its view was read-only" \
		    "$(cat "$T/err-$mode")" "Read-only file system"
		check "cow: view_frozen is audited" grep -q '"view_frozen"' "$L"
		check "cow: ... and view_thawed" grep -q '"view_thawed"' "$L"
		;;
	rw)
		check "rw: the approved deploy fails" test "$(jr .result.isError)" = true
		expect_eq "rw: ... workspace_written: the workspace was written while it ran" \
		    "$(jr '.result.content[0].text | fromjson | .errorClass')" workspace_written
		check "rw: approved_run_written is audited, naming the approval" \
		    grep -q "\"approved_run_written\".*\"approval\":\"$id\"" "$L"
		check "rw: nothing of it landed" test ! -e "$ws/deployed"
		;;
	esac
done
finish
