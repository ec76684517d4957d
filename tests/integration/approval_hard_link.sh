#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approval binds the workspace the approver was shown, and the broker
# holds its own writes off it while the approved run runs; a read-only
# agent cannot write it, and a copy-on-write agent's view is held
# read-only meanwhile.  But a workspace file with another name (a hard
# link) in a directory the agent may write (a package store, here an
# `airlock run --rw` bind) is written through that name with no watch
# seeing it and no view to freeze: "deploy" (approved) sleeps, then
# sources lib.sh, and the agent rewrote lib.sh through the store's name
# once the run had started.  The human's yes ran the rewrite
# ("PAYLOAD").  Now an approval is neither asked for nor run while the
# workspace's digest finds a file with another name
# (`workspace_linked`), in any mode.  Played for real from inside the
# agent's sandbox, ro and cow.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")
DEPLOY='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{}}}'

for mode in ro cow; do
	ws="$T/ws-$mode" store="$T/store-$mode"
	mkdir -p "$ws" "$store"
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
EOF2
	chmod 644 "$T/$mode.yaml"
	printf '#!/bin/sh\nsleep 4\n. ./lib.sh\ngreet\n' >"$ws/deploy.sh"
	printf 'greet() { echo deploying; }\n' >"$store/lib.sh"
	ln "$store/lib.sh" "$ws/lib.sh"
	chmod -R a+rwX "$ws" "$store"
	# The agent rewrites lib.sh through the store's name 2 s after it
	# asked (the test approves at once).
	{
		echo '#!/bin/sh'
		echo "(sleep 2; echo 'greet() { echo PAYLOAD; }' >$store/lib.sh) &"
		CONNECT_HOLD=8 connect_calls "$DEPLOY"
		echo 'wait'
	} >"$T/agent-$mode.sh"
	chmod 755 "$T/agent-$mode.sh"
	(cd "$ws" && timeout 90 "$A" run --rw "$store" --manifest "$T/$mode.yaml" \
	    --workspace "$ws" -- "$T/agent-$mode.sh" >"$T/out-$mode" \
	    2>"$T/err-$mode") &
	run=$!
	# A human approves as soon as there is something to approve.
	id=
	while [ -z "$id" ] && kill -0 $run 2>/dev/null; do
		id=$("$AIRLOCK" pending 2>/dev/null | awk '$3 == "deploy" { print $1; exit }')
		sleep 0.1
	done
	[ -n "$id" ] && "$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
	wait $run
	R=$(grep '"id":2,' "$T/out-$mode")
	check "$mode: the agent rewrote lib.sh through its other name" \
	    grep -q PAYLOAD "$ws/lib.sh"
	expect_eq "$mode: nobody was asked" "$id" ""
	check "$mode: deploy fails" test "$(jr .result.isError)" = true
	expect_eq "$mode: ... workspace_linked" \
	    "$(jr '.result.content[0].text | fromjson | .errorClass')" workspace_linked
	expect_contains "$mode: ... naming why" \
	    "$(jr '.result.content[0].text | fromjson | .message')" \
	    "1 file(s) of the workspace have another name (a hard link)"
	check "$mode: the rewrite never ran" test -z "$(jr '.result.structuredContent.stdout // empty')"
done
finish
