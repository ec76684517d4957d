#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A workspace file with another name (a hard link) is written through
# that name unseen by any watch; since gates3 every approval failed
# closed (workspace_linked) and every check was sealed when the
# workspace held any such file.  That refused every approval in a
# project whose dependencies are hard-linked from a store the agent
# cannot reach (pnpm's node_modules from ~/.local/share/pnpm/store, uv's
# .venv from ~/.cache/uv, `cp -al`).  The agent cannot make a new link
# into the workspace (link(2) across mounts is EXDEV), so only a link
# whose other name already lies where it writes matters: the broker
# walks those trees (its home, --rw binds) before it starts
# (broker/wslinks.h).  Here the store lies under $T, which the agent's
# sandbox never shows: deploy's approval is asked and granted, and the
# check's pass counts.  The same store bound --rw (the agent may write
# it): refused, as before; and with the store in the agent's home, the
# agent's rewrite through it is refused too.  Played for real from
# inside the agent's read-only sandbox.  Under `airlock serve`, which
# knows nothing of what its agent writes, nothing is walked and the
# store outside counts (refused).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")
DEPLOY='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{}}}'
CHECK='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"lib"}}}'
STATUS='{"jsonrpc":"2.0","id":9,"method":"airlock/session/status","params":{}}'
GATE='[.result.acceptanceMet, (.result.gates[] | select(.checkId == "lib") | .state)]'

# run_case NAME [airlock run options]: the agent asks for deploy (which
# a human approves at once when asked), runs the check, then the
# status; the replies are left in $D, $C and $S, the approval's id in
# $id.  $T/ws-NAME/node_modules/lib.sh is a hard link of
# $T/store-NAME/lib.sh (or $STORE when set).
run_case() {
	local name=$1 ws="$T/ws-$1" store=${STORE:-$T/store-$1} run
	shift
	mkdir -p "$ws/node_modules" "$store"
	printf '#!/bin/sh\n. ./node_modules/lib.sh\ngreet\n' >"$ws/deploy.sh"
	printf 'greet() { echo deploying; }\n' >"$store/lib.sh"
	ln "$store/lib.sh" "$ws/node_modules/lib.sh"
	chmod -R a+rwX "$ws" "$store"
	{
		echo '#!/bin/sh'
		[ -n "${ATTACK:-}" ] &&
		    echo "(sleep 2; echo 'greet() { echo PAYLOAD; }' >$ATTACK) &"
		CONNECT_HOLD=4 connect_calls "$DEPLOY"
		connect_calls "$CHECK"
		connect_calls "$STATUS"
		echo wait
	} >"$T/agent-$name.sh"
	chmod 755 "$T/agent-$name.sh"
	(cd "$ws" && timeout 90 "$A" run "$@" --manifest "$T/m.yaml" \
	    --workspace "$ws" -- "$T/agent-$name.sh" >"$T/out-$name" \
	    2>"$T/err-$name") &
	run=$!
	id=
	while [ -z "$id" ] && kill -0 $run 2>/dev/null; do
		id=$("$AIRLOCK" pending 2>/dev/null | awk '$3 == "deploy" { print $1; exit }')
		sleep 0.1
	done
	[ -n "$id" ] && "$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
	wait $run
	D=$(grep '"id":2,' "$T/out-$name")
	C=$(grep '"id":3,' "$T/out-$name")
	S=$(grep '"id":9,' "$T/out-$name")
}

manifest() {
	cat >"$T/m.yaml" <<EOF
tools:
  - name: deploy
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh"]
    sideEffect: external
    authorization: approval
    timeoutMs: 30000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
checks:
  lib: ["sh", "-c", ". ./node_modules/lib.sh; greet | grep -qx deploying"]
gates:
  required: [lib]
approvals:
  approvers: [$(id -un)]
  ttlSeconds: 60
agent:
  workspace: ro
$1
EOF
	chmod 644 "$T/m.yaml"
}

# The store outside every tree the agent writes.
manifest ""
run_case outside
R=$D
check "outside: deploy's approval was asked" test -n "$id"
expect_eq "outside: ... granted, deploy ran" \
    "$(jr .result.structuredContent.stdout)" deploying
R=$C
expect_eq "outside: the check passed" "$(jr .result.structuredContent.exitCode)" 0
R=$S
expect_eq "outside: ... and counts" "$(jr -c "$GATE")" '[true,"pass"]'
log=$(newest_session_log)
expect_eq "outside: the walk finished, no linked file where the agent writes" \
    "$(jq -c 'select(.event == "workspace_links_walked") | .fields | [.complete, .linkedFiles]' "$log")" \
    '[true,0]'

# The store bound --rw: the agent may write it.
run_case rw --rw "$T/store-rw"
check "rw: nobody was asked" test -z "$id"
R=$D
expect_eq "rw: deploy fails workspace_linked" \
    "$(jr '.result.content[0].text | fromjson | .errorClass')" workspace_linked
log=$(newest_session_log)
expect_eq "rw: the walk found the store's name" \
    "$(jq -c 'select(.event == "workspace_links_walked") | .fields | [.complete, .linkedFiles]' "$log")" \
    '[true,1]'

# The store in the agent's home, which the agent rewrites through it
# once deploy has started.
home="$T/agent-home"
mkdir -p "$home/.local/share/pnpm"
chmod -R a+rwX "$home"
# Owned by the sandbox's uid (airlock run's agent_home()).
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$home"
manifest "  home: $home"
STORE="$home/.local/share/pnpm" ATTACK="$home/.local/share/pnpm/lib.sh" \
    run_case home
check "home: the agent rewrote lib.sh through its home" \
    grep -q PAYLOAD "$T/ws-home/node_modules/lib.sh"
check "home: nobody was asked" test -z "$id"
R=$D
expect_eq "home: deploy fails workspace_linked" \
    "$(jr '.result.content[0].text | fromjson | .errorClass')" workspace_linked
check "home: the rewrite never ran" test -z "$(jr '.result.structuredContent.stdout // empty')"

# airlock serve, whose agent writes what it will: nothing is walked, and
# the store out of every sandbox's sight counts all the same.
manifest ""
mcp_start "$T/m.yaml" "$T/ws-outside"
mcp_call deploy '{}' 10
expect_eq "serve: deploy fails workspace_linked, nobody asked" \
    "$(jr .result.structuredContent.errorClass)" workspace_linked
mcp_stop
expect_eq "serve: nothing was walked" \
    "$(jq -c 'select(.event == "workspace_links_walked")' "$(newest_session_log)")" ""
finish
