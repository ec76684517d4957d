#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The broker's socket in the agent's sandbox (/run/airlock/mcp.sock): an
# MCP client that starts "airlock connect" with no inherited descriptor and
# an empty environment (as Claude Code and Codex do) reaches the broker;
# several connections each get their own MCP state and share the session's
# budget and audit log; runners do not see the socket; a process outside
# the agent's sandbox that reaches the socket's host path is refused and
# audited; the socket goes with the session.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
READY='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# A manifest whose budget allows three tool calls in all, and a check that
# looks for the socket from inside a runner.
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string }
    output: { exitCode: integer, artifactUri: string, durationMs: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  probe: { argv: ["sh", "-c", "if [ -e /run/airlock/mcp.sock ]; then echo RUNNER-SEES-SOCKET; else echo RUNNER-NO-SOCKET; fi"], timeoutMs: 10000 }
runBudget:
  maxModelSteps: 3
EOF

# The agent: closes fd 3, clears its environment, and speaks through
# "airlock connect" twice at once.  Writes what it got to the workspace's
# stdout.
cat >"$T/agent.sh" <<EOF
#!/bin/sh
exec 3>&-
A=$AIRLOCK
{
	printf '%s\n' '$INIT' '$READY' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/todo.sh"}}}'
	sleep 2
} | env -i "\$A" connect >/tmp/c1.out 2>/tmp/c1.err &
# The second connection uses the same request ids: they are its own.
printf '%s\n' '$INIT' '$READY' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"probe","idempotencyKey":"p1"}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/todo.sh"}}}' \
    | env -i "\$A" connect >/tmp/c2.out 2>/tmp/c2.err
wait
# A third connection after the budget is gone.
printf '%s\n' '$INIT' '$READY' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/todo.sh"}}}' \
    | env -i "\$A" connect >/tmp/c3.out 2>/tmp/c3.err
for f in c1 c2 c3; do sed "s/^/\$f /" /tmp/\$f.out; sed "s/^/\$f-err /" /tmp/\$f.err; done
EOF
chmod 755 "$T/agent.sh"

timeout 60 "$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$T/agent.sh" >"$T/out" 2>"$T/err"
rc=$?
out=$(cat "$T/out")
log=$(sed -n 's/.*audit log \(.*\)$/\1/p' "$T/err" | tail -1)
sdir=$(dirname "$log")
# Three calls fit the budget of three; the fourth stops the session (75).
expect_eq "the budget stopped the session (exit status 75)" "$rc" 75 || cat "$T/err"
c1_init=$(grep -c '^c1 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion"' "$T/out")
c2_init=$(grep -c '^c2 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion"' "$T/out")
expect_eq "connection 1 initialized without fd 3 or environment" "$c1_init" 1
expect_eq "connection 2 initialized with the same request id (own MCP state)" "$c2_init" 1
expect_contains "connection 1 read a file" "$(grep '^c1 ' "$T/out")" '"sha256":'
probe=$(grep '^c2 .*"id":2' "$T/out" | sed 's/^c2 //')
expect_contains "runners do not see the agent's socket" \
    "$(printf '%s' "$probe" | jq -r .result.structuredContent.output)" 'RUNNER-NO-SOCKET'
expect_eq "the first three calls, on two connections, were served" \
    "$(grep -E '^c[12] .*"isError":false' "$T/out" | wc -l)" 3
expect_contains "the budget is the session's: a fourth call on a new connection is refused" \
    "$(grep '^c3 .*"id":2' "$T/out")" 'budget_exhausted'
expect_eq "three connections are audited" "$(grep -c '"event":"connect"' "$log")" 3
expect_eq "and their ends" "$(grep -c '"event":"disconnect"' "$log")" 3
check "the audit log verifies" "$AIRLOCK" audit verify "$log"
check "the socket directory goes with the session" test ! -e "$sdir/broker"

# --- A peer outside the agent's sandbox -----------------------------------------
# The agent waits; meanwhile the host (root, another pid namespace) dials
# the socket's host path directly.
cat >"$T/wait.sh" <<'EOF'
#!/bin/sh
i=0
while [ ! -e /tmp/never ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
EOF
chmod 755 "$T/wait.sh"
timeout 60 "$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$T/wait.sh" >/dev/null 2>"$T/err2" &
rpid=$!
sock=
for _ in $(seq 100); do
	sock=$(ls "$AIRLOCK_HOME"/sessions/*/broker/mcp.sock 2>/dev/null | tail -1)
	[ -n "$sock" ] && ! grep -q "$(dirname "$(dirname "$sock")")" "$T/err" && break
	sleep 0.05
done
reply=$(printf '%s\n' "$INIT" | timeout 10 "$top_builddir/tests/unixclient" "$sock" 2>&1)
expect_not_contains "a host process gets no answer from the agent's socket" "$reply" '"result"'
kill "$rpid" 2>/dev/null
wait "$rpid"
log2=$(sed -n 's/.*audit log \(.*\)$/\1/p' "$T/err2" | tail -1)
refused=$(grep '"event":"connection_refused"' "$log2")
expect_contains "the refusal is audited with its reason" "$refused" "is not in the agent's sandbox"
finish
