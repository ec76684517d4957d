#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An agent refused in a loop: every refused tools/call is a signed
# request and decision (and result) in the audit log, and the broker
# refuses 47k calls a second: an agent that sent "shell_exec" in a loop
# wrote 27 MB of log a second until maxElapsedMinutes ran out, filling
# the host's disk and burying the session in records no reviewer reads.
# Now runBudget.maxRefusedCalls (10000 by default, 1000 here) bounds them: the next
# call is refused with the reason, the stop and the cut-off are recorded,
# and the broker closes the agent's connections.  The agent floods from
# inside its sandbox, through "airlock connect", with three kinds of
# refusal: a tool it does not have, a tool the manifest denies, a read
# out of the workspace.
# The session is then over for the agent too: "airlock run" gives it 5 s
# to end and kills it (it kept running, and the session with it, until
# maxElapsedMinutes), and a later "airlock connect" is refused at once
# (it waited in the listening socket's backlog for ever).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<'YAML'
tools:
  - name: read_file
    action: read_file
    input: { path: workspace_relative_path }
    output: { content: string }
    sideEffect: none
    timeoutMs: 2000
  - name: deploy
    command: ["true"]
    output: { exitCode: integer }
    sideEffect: external
    timeoutMs: 2000
    authorization: deny
runBudget:
  maxRefusedCalls: 1000
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null 2>&1
expect_eq "the manifest loads" "$?" 0
printf 'tools: []\nrunBudget:\n  maxRefusedCalls: -2\n' >"$T/bad.yaml"
expect_contains "a maxRefusedCalls below -1 is refused" \
    "$("$AIRLOCK" check "$T/bad.yaml" 2>&1)" "runBudget.maxRefusedCalls"

# 3000 refused calls in one go, then a ping.
cat >"$T/agent.sh" <<EOF
#!/bin/sh
exec 3>&-
mkfifo /tmp/in || exit 1
env -i $AIRLOCK connect </tmp/in >/tmp/out 2>/tmp/err &
pid=\$!
exec 4>/tmp/in
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&4
i=1000; while [ \$i -lt 4000 ]; do
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"shell_exec","arguments":{}}}\n' \$i
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"deploy","arguments":{}}}\n' \$((i + 1))
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"../../etc/passwd"}}}\n' \$((i + 2))
	i=\$((i + 3))
done >&4 2>/dev/null
printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"ping"}' >&4 2>/dev/null
exec 4>&-
wait \$pid
cat /tmp/out
EOF
chmod 755 "$T/agent.sh"

timeout 60 "$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$T/agent.sh" >"$T/out" 2>"$T/err"
rc=$?
expect_eq "the session ends stopped by its budget (exit status 75)" "$rc" 75 ||
    tail -5 "$T/err" | sed 's/^/# /'
replies=$(grep -c '"id":[0-9]*,"\(error\|result\)"' "$T/out")
expect_eq "1000 refusals, then the call that stops the session, are answered" \
    "$replies" 1002
R=$(grep '"id":2000,' "$T/out")
expect_eq "  the last one is refused (-32001)" "$(jr .error.code)" -32001
expect_contains "  saying why" "$(jr .error.message)" \
    "the run budget is exhausted (maxRefusedCalls: 1000 calls were refused); the session is stopped"
check "  and nothing after it is answered" sh -c "! grep -q '\"id\":2001,' '$T/out'"

log=$(sed -n 's/.*audit log \(.*\)$/\1/p' "$T/err" | tail -1)
"$AIRLOCK" audit verify "$log" >"$T/verify.out" 2>&1
expect_eq "the log verifies, valid and closed" "$?" 0
check "the log stays small ($(wc -c <"$log") bytes)" test "$(wc -c <"$log")" -lt 1500000
expect_eq "every refused call is in it, the last one too" \
    "$(grep -c '"event":"request"' "$log")" 1001
expect_eq "  the last one's decision names the limit" \
    "$(jq -r 'select(.event == "decision" and .fields.id == 2000) | .fields.decision + " " + .fields.reason' "$log")" \
    "deny the run budget is exhausted (maxRefusedCalls: 1000 calls were refused); the session is stopped"
expect_eq "the stop is recorded" \
    "$(jq -r 'select(.event == "budget_stop") | .fields.limit' "$log")" maxRefusedCalls
expect_eq "  and so is the cut-off" \
    "$(jq -r 'select(.event == "agent_cut_off") | "\(.fields.limit) \(.fields.refusedCalls)"' "$log")" \
    "maxRefusedCalls 1001"

# Cut off, an agent that connects again and then does not end: the
# connect is refused at once, and the agent is killed 5 s after the
# cut-off (it ran on, holding the session, until the test's timeout).
cat >"$T/agent3.sh" <<EOF
#!/bin/sh
exec 3>&-
i=1000; while [ \$i -lt 1002 ]; do
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"shell_exec","arguments":{}}}\n' \$i
	i=\$((i + 1))
done >/tmp/calls
(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}'; cat /tmp/calls) |
    env -i $AIRLOCK connect >/dev/null
env -i timeout 20 $AIRLOCK connect </dev/null
echo "late connect: \$?" >&2
exec sleep 600
EOF
chmod 755 "$T/agent3.sh"
sed 's/maxRefusedCalls: 1000/maxRefusedCalls: 1/' "$T/m.yaml" >"$T/m3.yaml"
timeout 20 "$AIRLOCK" run --manifest "$T/m3.yaml" --workspace "$ws" -- "$T/agent3.sh" >"$T/out" 2>"$T/err"
rc=$?
expect_eq "an agent that runs on after its cut-off: the session ends (exit status 75)" "$rc" 75 ||
    tail -5 "$T/err" | sed 's/^/# /'
expect_contains "  a late connect is refused at once, saying why" \
    "$(cat "$T/err")" "/run/airlock/mcp.sock: the broker accepts no more connections: the session is over"
check "  (airlock connect exits 1)" grep -qx "late connect: 1" "$T/err"
expect_contains "  the agent is told to stop" "$(cat "$T/err")" \
    "the session is over: stopping the agent (killed if it has not ended within 5 s)"
expect_contains "  and, still running, killed" "$(cat "$T/err")" \
    "the agent did not end within 5 s of its cut-off: killed"
log=$(sed -n 's/.*audit log \(.*\)$/\1/p' "$T/err" | tail -1)
expect_eq "  the agent's end is recorded, killed" \
    "$(jq -r 'select(.event == "agent_end") | .fields.signal' "$log")" 9

# Allowed calls and "busy" refusals are records too, and nothing else
# bounds them without maxModelSteps: an agent that read a file in a loop
# wrote 13 MB of log a second, one that retried a "busy" call 9 MB, until
# maxElapsedMinutes.  runBudget.maxAuditMiB (1024 by default, 1 here)
# bounds the log: the frame that finds it full is refused with the reason,
# the stop and the cut-off are recorded, and the agent is cut off.
cat >"$T/m2.yaml" <<'YAML'
tools:
  - name: read_file
    action: read_file
    input: { path: workspace_relative_path }
    output: { content: string }
    sideEffect: none
    timeoutMs: 2000
  - name: nap
    command: ["sleep", "10"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
runBudget:
  maxParallelProcesses: 1
  maxAuditMiB: 1
YAML
printf 'tools: []\nrunBudget:\n  maxAuditMiB: 0\n' >"$T/bad.yaml"
expect_contains "a maxAuditMiB of 0 is refused" \
    "$("$AIRLOCK" check "$T/bad.yaml" 2>&1)" \
    "runBudget.maxAuditMiB: must be at least 1 (MiB), or -1 for no limit"

# One nap runs; then 2000 reads and 2000 naps refused "busy", in one go.
cat >"$T/agent2.sh" <<EOF
#!/bin/sh
exec 3>&-
mkfifo /tmp/in || exit 1
env -i $AIRLOCK connect </tmp/in >/tmp/out 2>/tmp/err &
pid=\$!
exec 4>/tmp/in
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nap","arguments":{}}}' >&4
i=1000; while [ \$i -lt 5000 ]; do
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/todo.sh"}}}\n' \$i
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"nap","arguments":{}}}\n' \$((i + 1))
	i=\$((i + 2))
done >&4 2>/dev/null
exec 4>&-
wait \$pid
cat /tmp/out
EOF
chmod 755 "$T/agent2.sh"
timeout 60 "$AIRLOCK" run --manifest "$T/m2.yaml" --workspace "$ws" -- "$T/agent2.sh" >"$T/out" 2>"$T/err"
rc=$?
expect_eq "a flood of allowed and busy calls ends stopped by maxAuditMiB (exit status 75)" "$rc" 75 ||
    tail -5 "$T/err" | sed 's/^/# /'
check "  reads were answered" grep -q '"id":1000,"result"' "$T/out"
check "  and naps refused busy" grep -q '"id":1001,"result".*busy' "$T/out"
R=$(grep '"error":{"code":-32001,' "$T/out")
expect_contains "  the call that found the log full is refused, saying why" \
    "$(jr .error.message)" "the run budget is exhausted (maxAuditMiB: the audit log holds "
last=$(jr .id)
check "  and nothing after it ($last) is answered" sh -c \
    "! grep -q '\"id\":$((last + 1)),' '$T/out'"
log=$(sed -n 's/.*audit log \(.*\)$/\1/p' "$T/err" | tail -1)
"$AIRLOCK" audit verify "$log" >"$T/verify.out" 2>&1
expect_eq "the log verifies, valid and closed" "$?" 0
size=$(wc -c <"$log")
check "the log stays near 1 MiB ($size bytes)" test "$size" -lt 1100000
expect_eq "the stop is recorded" \
    "$(jq -r 'select(.event == "budget_stop") | .fields.limit' "$log")" maxAuditMiB
expect_eq "  and so is the cut-off" \
    "$(jq -r 'select(.event == "agent_cut_off") | .fields.limit' "$log")" maxAuditMiB
expect_eq "  and the nap stopped with it" \
    "$(jq -r 'select(.event == "run_stopped") | .fields.limit' "$log")" maxAuditMiB
# Each connection to the agent's egress proxy is an "egress" record, and
# the broker checked the log's size only before a frame or a connection
# of its own: an agent that connected to its proxy in a loop (a refused
# CONNECT) wrote the log past maxAuditMiB at the proxy's speed, to the
# end of maxElapsedMinutes.  The record that fills the log cuts the
# agent off now, and its proxy stops serving it.
cat >"$T/m4.yaml" <<'YAML'
tools: []
agent:
  network: ["api.example.com:443"]
runBudget:
  maxAuditMiB: 1
YAML
h=$(printf '%0250d' 0 | tr 0 h)
cat >"$T/agent4.sh" <<AGENT
#!/bin/bash
exec 3>&-
i=0; while [ \$i -lt 2500 ]; do
	exec 5<>/dev/tcp/127.0.0.1/3128 || { echo "refused at \$i"; exit 9; }
	printf 'CONNECT $h.example:443 HTTP/1.1\r\nHost: x\r\n\r\n' >&5
	head -c 64 <&5 >/dev/null 2>&1
	exec 5>&-
	i=\$((i + 1))
done
echo "all 2500 served"
AGENT
chmod 755 "$T/agent4.sh"
timeout 60 "$AIRLOCK" run --manifest "$T/m4.yaml" --workspace "$ws" -- "$T/agent4.sh" >"$T/out" 2>"$T/err"
rc=$?
expect_eq "a flood of egress connections ends stopped by maxAuditMiB (exit status 75)" "$rc" 75 ||
    tail -5 "$T/err" | sed 's/^/# /'
check "  the proxy stopped serving the agent ($(cat "$T/out"))" \
    grep -q '^refused at' "$T/out"
log=$(sed -n 's/.*audit log \(.*\)$/\1/p' "$T/err" | tail -1)
"$AIRLOCK" audit verify "$log" >"$T/verify.out" 2>&1
expect_eq "  the log verifies, valid and closed" "$?" 0
size=$(wc -c <"$log")
check "  the log stays near 1 MiB ($size bytes)" test "$size" -lt 1100000
expect_eq "  the cut-off is recorded" \
    "$(jq -r 'select(.event == "agent_cut_off") | .fields.limit' "$log")" maxAuditMiB
finish
