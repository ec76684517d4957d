#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Gates in a copy-on-write agent session (agent.workspace: cow).  The
# broker works on the session's view, but its digest worker and its
# lander were forked on the real checkout before the view was attached:
# the gate was bound to the checkout's digest, so an edit the agent made
# in its view after a passing check left acceptance met on content no
# check ever ran on, and a run's change set landed in the real checkout.
# Now both are forked again on the view.  (A status asked for just before
# the end of input is answered too: it was dropped.)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
A=$(realpath "$AIRLOCK")

STATUS='{"jsonrpc":"2.0","id":9,"method":"airlock/session/status","params":{}}'

cat >"$T/m.yaml" <<'EOF'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  mk: ["sh", "-c", "echo made >src/made.txt"]
  ok: ["true"]
gates:
  required: [ok]
agent:
  workspace: cow
EOF

calls() { connect_calls "$@"; }
held() { CONNECT_HOLD=3 connect_calls "$@"; }
{
	echo '#!/bin/sh'
	calls '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"mk"}}}'
	calls '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"ok"}}}'
	held "$STATUS"
	echo 'echo "# an edit after the check" >>src/todo.sh'
	held "$STATUS"
	calls "${STATUS/\"id\":9/\"id\":10}"
	echo 'echo "VIEW-HAS $(cat src/made.txt)"'
} >"$T/agent.sh"
chmod 755 "$T/agent.sh"
timeout 60 "$A" run --manifest "$T/m.yaml" --workspace "$ws" \
    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
gates=$(grep '"id":9,' "$T/out" | jq -c '[.result.acceptanceMet, (.result.gates[] | select(.checkId == "ok") | .state)]')
expect_eq "the check passed, then the agent edited its view" \
    "$(printf '%s\n' "$gates" | tr '\n' ' ')" '[true,"pass"] [false,"stale"] '
check "a status asked for just before the end of input is answered" grep -q '"id":10,"result"' "$T/out"
expect_contains "a check's own write landed in the view" "$(cat "$T/out")" "VIEW-HAS made"
check "... not in the real checkout" test ! -e "$ws/src/made.txt"
finish
