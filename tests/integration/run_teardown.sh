#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock run: the agent's exit status becomes airlock's; the agent lives
# in its own pid and network namespaces with only fd 3 (the broker) beyond
# stdio, no privileges and no view of airlock's state; and on SIGTERM or
# SIGINT the whole tree goes, leaving no orphans and no zombies.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
# A numeric marker: it also makes a valid "sleep 1000.MARK" argument.
MARK="$$$RANDOM"

# The agent: a shell script in the workspace (the agent sees the workspace;
# /tmp inside its sandbox is its own).
cat >"$ws/agent.sh" <<'EOF'
#!/bin/sh
# agent.sh MODE MARK HOSTPID STATEDIR
mode=$1 mark=$2 hostpid=$3 state=$4
case $mode in
exit) exit "$5" ;;
inspect)
	echo "PID $$"
	echo "AIRLOCK_FD ${AIRLOCK_FD:-unset}"
	# What a child of the agent inherits: ls lists its own descriptors
	# (plus the one it opens on /proc/self/fd itself).
	ls -l /proc/self/fd >/tmp/fds
	sed -n 's/.* \([0-9][0-9]*\) -> \(.*\)$/FD \1 \2/p' /tmp/fds
	echo "NPROCS $(ls -d /proc/[0-9]* | wc -l)"
	if [ -e "/proc/$hostpid" ]; then echo "HOSTPID visible"; else echo "HOSTPID hidden"; fi
	echo "NETDEVS $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
	grep -E '^(NoNewPrivs|CapEff|CapPrm|CapBnd|CapAmb|Seccomp):' /proc/self/status | tr -d '\t' | sed 's/^/STATUS /'
	[ "$state" = file ] && state=$(cat state-path)
	if [ -e "$state" ]; then echo "STATE visible"; else echo "STATE hidden"; fi
	if cat "$state"/sessions/*/audit.jsonl >/dev/null 2>&1; then echo "AUDIT readable"; else echo "AUDIT unreadable"; fi
	echo "UID $(id -u)"
	exit 0 ;;
tree)
	sleep 1000.$mark &
	sh -c "sleep 1001.$mark" &
	echo ready
	wait
	exit 0 ;;
esac
exit 99
EOF
chmod 755 "$ws/agent.sh"
A="$ws/agent.sh"

run() { timeout 60 "$AIRLOCK" run --workspace "$ws" -- "$@"; }

# --- Exit status ----------------------------------------------------------------
run "$A" exit x 0 x 7 >/dev/null 2>&1
expect_eq "airlock run exits with the agent's status (7)" "$?" 7
run "$A" exit x 0 x 0 >/dev/null 2>&1
expect_eq "airlock run exits with the agent's status (0)" "$?" 0
run "$A" exit x 0 x 255 >/dev/null 2>&1
expect_eq "airlock run exits with the agent's status (255)" "$?" 255
run /bin/sh -c 'exit 7' >/dev/null 2>"$T/sh.err"
expect_eq "airlock run -- /bin/sh -c 'exit 7' exits 7" "$?" 7
sed 's/^/  # /' "$T/sh.err" | head -n 3
cp "$A" "$T/agent-in-tmp.sh"
run "$T/agent-in-tmp.sh" exit x 0 x 7 >/dev/null 2>"$T/tmp.err"
expect_eq "an agent program outside the workspace (under /tmp) runs: exit 7" "$?" 7
sed 's/^/  # /' "$T/tmp.err" | head -n 3

run "$ws/no-such-agent" >/dev/null 2>&1
expect_eq "airlock run of a missing agent program (by path) exits 64" "$?" 64
expect_eq "a failed start leaves no control socket behind" "$(ls "$AIRLOCK_RUNTIME_DIR")" ""
run no-such-agent-program >/dev/null 2>&1
expect_eq "airlock run of a missing agent program (by name) exits 64" "$?" 64
printf 'tools: [\n' >"$T/bad.yaml"
timeout 20 "$AIRLOCK" run --manifest "$T/bad.yaml" --workspace "$ws" -- "$A" exit x 0 x 0 >/dev/null 2>&1
expect_eq "airlock run with a broken manifest exits 78" "$?" 78

# --- What the agent sees ----------------------------------------------------------------
# The agent learns where the state is from a file in the workspace.
echo "$AIRLOCK_HOME" >"$ws/state-path"
exec 9<"$top_srcdir/Makefile.am"
run "$A" inspect "$MARK" $$ file >"$T/inspect.out" 2>"$T/inspect.err"
expect_eq "inspecting agent exits 0" "$?" 0
exec 9<&-
I=$(cat "$T/inspect.out")
# pid 1 is airlock's tiny init (it reaps and reports); the agent comes next.
expect_contains "the agent is the first process after init in its own pid namespace" "$I" "PID 2"
expect_contains "the agent cannot see the host's pids" "$I" "HOSTPID hidden"
n=$(sed -n 's/^NPROCS //p' "$T/inspect.out")
check "the agent's pid namespace holds only its own few processes ($n)" test "${n:-99}" -le 5
expect_eq "the agent's network namespace has only lo" "$(sed -n 's/^NETDEVS //p' "$T/inspect.out")" "lo "
expect_contains "AIRLOCK_FD=3" "$I" "AIRLOCK_FD 3"
expect_contains "fd 3 is the broker's socket" "$I" "FD 3 socket:"
fds=$(sed -n 's/^FD \([0-9]*\) .*/\1/p' "$T/inspect.out" | tr '\n' ' ')
# The loop's own glob may hold one more descriptor on /proc/self/fd.
extra=$(grep '^FD ' "$T/inspect.out" | grep -v -E '^FD [0-3] ' | grep -v -E ' /proc/[0-9]+/fd$' || true)
expect_eq "no inherited descriptor beyond 0-3 (had fd 9 open)" "$extra" ""
expect_not_contains "fd 9 did not reach the agent" " $fds" " 9 "
expect_contains "no_new_privs is set in the agent" "$I" "STATUS NoNewPrivs:1"
expect_contains "the agent has no effective capabilities" "$I" "STATUS CapEff:0000000000000000"
expect_contains "the agent has no permitted capabilities" "$I" "STATUS CapPrm:0000000000000000"
expect_contains "the agent has an empty bounding set" "$I" "STATUS CapBnd:0000000000000000"
expect_contains "the agent runs under seccomp" "$I" "STATUS Seccomp:2"
expect_contains "the state dir (AIRLOCK_HOME) is absent in the agent's view" "$I" "STATE hidden"
expect_contains "the agent cannot read the audit log" "$I" "AUDIT unreadable"
expect_not_contains "the agent does not run as root" "$I" "UID 0"

# A state directory outside /tmp (the agent's /tmp is private anyway).
state2=$(mktemp -d /var/tmp/airlock-itest-state.XXXXXX)
at_exit 'rm -rf "$state2"'
chmod 755 "$state2"
echo "$state2" >"$ws/state-path"
AIRLOCK_HOME="$state2" run "$A" inspect "$MARK" $$ file >"$T/inspect2.out" 2>/dev/null
I=$(cat "$T/inspect2.out")
expect_contains "a state dir under /var/tmp is absent in the agent's view" "$I" "STATE hidden"
expect_contains "its audit log is unreadable by the agent" "$I" "AUDIT unreadable"
check "that session's audit log exists on the host" test -n "$(ls "$state2"/sessions/*/audit.jsonl 2>/dev/null)"
# airlock binds absolute paths named in the agent's argv into its view;
# its own state directory must never be one of them.
AIRLOCK_HOME="$state2" run "$A" inspect "$MARK" $$ "$state2" >"$T/inspect3.out" 2>/dev/null
I=$(cat "$T/inspect3.out")
expect_contains "the state dir stays absent even when named in the agent's argv" "$I" "STATE hidden"
expect_contains "the audit log stays unreadable when named in the agent's argv" "$I" "AUDIT unreadable"
rm -rf "$state2"

# --- airlock connect: the relay an agent names as its MCP server --------------
cat >"$ws/connect.sh" <<'EOF'
#!/bin/sh
# An MCP client that spawns "airlock connect", sends its requests, closes
# its end, and expects the server to answer and exit.
printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"README.md"}}}' |
    timeout 5 airlock connect >/tmp/replies
echo "CONNECT-RC $?"
echo "REPLIES $(wc -l </tmp/replies)"
grep -c '"id":2,"result"' /tmp/replies | sed 's/^/READ-OK /'
EOF
chmod 755 "$ws/connect.sh"
run "$ws/connect.sh" >"$T/connect.out" 2>"$T/connect.err"
C=$(cat "$T/connect.out")
expect_contains "airlock connect relays the replies to its client" "$C" "READ-OK 1"
expect_contains "airlock connect relays every reply (2)" "$C" "REPLIES 2"
expect_contains "airlock connect exits 0 once its client closed and the replies are in" "$C" "CONNECT-RC 0"
# Where the broker's socket is absent, AIRLOCK_FD must name a socket.
AIRLOCK_FD=0 "$AIRLOCK" connect --socket "$T/no-such.sock" </dev/null >/dev/null 2>&1
check "airlock connect refuses a socket path that is not there" test $? -eq 1
if [ ! -e /run/airlock/mcp.sock ]; then
	err=$(AIRLOCK_FD=0 "$AIRLOCK" connect </dev/null 2>&1 >/dev/null)
	expect_contains "airlock connect refuses an AIRLOCK_FD that is not a socket" "$err" "AIRLOCK_FD=0 is not a socket descriptor"
fi
AIRLOCK_FD= "$AIRLOCK" connect </dev/null >/dev/null 2>&1
check "airlock connect outside airlock run fails" test $? -ne 0

# --- Teardown on signals --------------------------------------------------------------
# marked: the processes (any state) whose command line holds the marker.
marked() { ps -eo pid=,stat=,args= | grep -F "$MARK" | grep -v -e grep -e 'ps -eo' || true; }

REAPER="$top_builddir/tests/reaper"
# reaped PIDFILE CMD...: CMD in the background under tests/reaper; sets
# $pid (the reaper) and $apid (CMD, once it started).
reaped() {
	local pf=$1 i
	shift
	rm -f "$pf" "$pf.left"
	"$REAPER" "$pf" "$@" &
	pid=$!
	for i in $(seq 50); do [ -s "$pf" ] && break; sleep 0.1; done
	apid=$(cat "$pf" 2>/dev/null)
}
# left PIDFILE [live]: what the reaped command left behind (or only the
# live processes).
left() {
	if [ "${2:-}" = live ]; then
		grep '^left ' "$1.left" | awk '$3 != "Z"' || true
	else
		grep '^left ' "$1.left" || true
	fi
}
# stopped NAME: waits for the reaper; passes NAME if airlock exited.
stopped() {
	local i
	for i in $(seq 100); do kill -0 "$apid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$apid" 2>/dev/null; then
		fail "$1"
		kill -KILL "$apid"
	else
		pass "$1"
	fi
	{ wait "$pid"; } 2>/dev/null
	rc=$?
}

teardown() {	# SIGNAL
	local sig=$1 out="$T/tree-$1.out" pf="$T/tree-$1.pid" i

	: >"$out"
	reaped "$pf" "$AIRLOCK" run --workspace "$ws" -- "$A" tree "$MARK" $$ x >"$out" 2>"$T/tree-$sig.err"
	for i in $(seq 100); do
		grep -q ready "$out" && break
		sleep 0.1
	done
	expect_contains "SIG$sig: the agent started its tree" "$(cat "$out")" ready
	for i in $(seq 100); do
		n=$(pgrep -c -f "^sleep 100[01][.]$MARK")
		[ "$n" = 2 ] && break
		sleep 0.05
	done
	expect_eq "SIG$sig: the agent's grandchildren run (sanity)" "$n" 2
	kill -"$sig" "$apid"
	stopped "SIG$sig: airlock exits"
	check "SIG$sig: airlock reports failure ($rc)" test "$rc" -ne 0
	expect_eq "SIG$sig: airlock left no process behind, not even a zombie" "$(left "$pf")" ""
	expect_eq "SIG$sig: no process of the agent's tree survives" "$(marked)" ""
	expect_contains "SIG$sig: airlock says the session ended" "$(cat "$T/tree-$sig.err")" "ended"
	sess=$(newest_session)
	check "SIG$sig: the agent's end is audited" grep -q '"agent_end"' "$sess/audit.jsonl"
}
teardown TERM
teardown INT
teardown HUP

# --- SIGTERM while a tool call runs: the runner's tree goes too ----------------
cat >"$T/slow.yaml" <<EOF
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
checks:
  slow: ["sh", "-c", "sleep 2000.$MARK & sleep 2001.$MARK; echo never"]
EOF
cat >"$ws/caller.sh" <<'EOF'
#!/bin/sh
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
IFS= read -r line <&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"slow"}}}' >&3
echo called
IFS= read -r line <&3
echo "reply $line"
EOF
chmod 755 "$ws/caller.sh"
runners() { pgrep -c -f "^sleep 200[01][.]$MARK"; }
reaped "$T/inflight.pid" "$AIRLOCK" run --manifest "$T/slow.yaml" --workspace "$ws" -- "$ws/caller.sh" \
    >"$T/inflight.out" 2>"$T/inflight.err"
for i in $(seq 100); do [ "$(runners)" = 2 ] && break; sleep 0.1; done
expect_eq "a runner is in flight (sanity)" "$(runners)" 2
kill -TERM "$apid"
stopped "SIGTERM with a runner in flight: airlock exits"
expect_eq "SIGTERM with a runner in flight: nothing left behind" "$(left "$T/inflight.pid")" ""
expect_eq "SIGTERM with a runner in flight: the runner's tree is gone" "$(marked)" ""
sess=$(newest_session)
check "the interrupted runner's end is audited" grep -q '"runner_end".*session ended' "$sess/audit.jsonl"

# --- SIGKILL to airlock itself: nothing it started may live on ----------------
REAPER_GRACE_MS=1000 reaped "$T/sigkill.pid" "$AIRLOCK" run --manifest "$T/slow.yaml" --workspace "$ws" -- "$ws/caller.sh" \
    >"$T/sigkill.out" 2>/dev/null
for i in $(seq 100); do [ "$(runners)" = 2 ] && break; sleep 0.1; done
expect_eq "a runner is in flight before SIGKILL (sanity)" "$(runners)" 2
kill -KILL "$apid"
stopped "SIGKILL: airlock is gone"
# Its dead children are reparented to the reaper as zombies: that much
# SIGKILL allows.  Nothing may still be alive (death signals): poll (up
# to 5 s) for the signals to land.
for i in $(seq 100); do
	[ -z "$(left "$T/sigkill.pid" live)" ] && break
	sleep 0.05
done
expect_eq "SIGKILL to airlock: no agent or runner process lives on" "$(left "$T/sigkill.pid" live)" ""
expect_eq "SIGKILL to airlock: no marked process anywhere" "$(marked | awk '$2 !~ /^Z/')" ""

# --- The agent killed by a signal ------------------------------------------------------------
out="$T/killed.out"
reaped "$T/killed.pid" "$AIRLOCK" run --workspace "$ws" -- "$A" tree "$MARK" $$ x >"$out" 2>/dev/null
for i in $(seq 100); do grep -q ready "$out" && break; sleep 0.1; done
# The sandbox's init (a neutral argv) is airlock's child; the agent is its.
init=$(pgrep -P "$apid" -f '^airlock-init' | head -1)
agent=$(pgrep -P "${init:-0}" -f "agent.sh tree $MARK")
check "the agent's host pid is found" test -n "$agent"
kill -KILL "$agent"
stopped "agent killed: airlock exits"
expect_eq "agent killed by SIGKILL: airlock exits 128+9" "$rc" 137
expect_eq "agent killed: nothing left behind" "$(left "$T/killed.pid")" ""
expect_eq "agent killed: its children went with its pid namespace" "$(marked)" ""

finish
