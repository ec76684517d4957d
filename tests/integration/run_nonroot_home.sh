#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock run as a user other than root, with a profile whose agent.home
# (like the shipped /var/lib/airlock-agents/NAME) that user cannot create:
# the per-user state directory stands in for it
# ($XDG_STATE_HOME/airlock/agents/NAME, else ~/.local/state/...), one line
# says so, and HOME inside always names a directory that exists.
# And the agent's broker socket is pinned to its pid namespace however late
# the parent reads it after clone().
. "$top_srcdir/tests/lib.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null ||
    ! id nobody >/dev/null 2>&1; then
	echo "# SKIP: needs root, setpriv and the user nobody"
	TESTS_FINISHED=1
	exit 77
fi
command -v strace >/dev/null || { echo "Bail out! strace is needed (Debian package strace)"; exit 99; }
NOGROUP=$(id -gn nobody)
chmod 755 "$T"
U="$T/user"
mkdir -p "$U" "$T/root-only"
cp -a "$top_srcdir/contrib/example-project" "$U/ws"
chmod -R u+w "$U/ws"
chown -R nobody:"$NOGROUP" "$U"
cat >"$T/m.yaml" <<EOF2
tools: []
agent:
  home: $T/root-only/agents/testagent
EOF2
chmod 644 "$T/m.yaml"

# as_nobody ENV...: airlock run of the probe agent as nobody.
as_nobody() {
	setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups \
	    env -i PATH=/usr/local/bin:/usr/bin:/bin AIRLOCK_HOME="$U/state" \
	    "$@" timeout 60 "$AIRLOCK" run --manifest "$T/m.yaml" \
	    --workspace "$U/ws" -- \
	    sh -c 'echo "HOME=$HOME"; test -d "$HOME" && echo HOME-EXISTS;
		ls "$HOME/x" 2>/dev/null && echo PERSISTED; touch "$HOME/x"' 2>&1
}

out=$(as_nobody XDG_STATE_HOME="$U/xdg" HOME="$U/home")
expect_contains "the XDG state home stands in" "$out" "HOME=$U/xdg/airlock/agents/testagent"
expect_contains "HOME exists inside" "$out" "HOME-EXISTS"
expect_contains "one line says where the home went" "$out" \
    "agent home $T/root-only/agents/testagent is not usable by uid $(id -u nobody)"
expect_contains "the line names the replacement" "$out" "using $U/xdg/airlock/agents/testagent"
check "the agent's file landed in the per-user home" test -f "$U/xdg/airlock/agents/testagent/x"
check "nothing was created in the root-only directory" test ! -e "$T/root-only/agents"
out=$(as_nobody XDG_STATE_HOME="$U/xdg" HOME="$U/home")
expect_contains "the per-user home persists across runs" "$out" "PERSISTED"

out=$(as_nobody HOME="$U/home")
expect_contains "without XDG_STATE_HOME: ~/.local/state/airlock/agents/NAME" "$out" \
    "HOME=$U/home/.local/state/airlock/agents/testagent"
expect_contains "that HOME exists inside too" "$out" "HOME-EXISTS"

# No usable per-user directory either: HOME is the private /tmp, said so.
out=$(as_nobody HOME=relative)
expect_contains "with no persistent home, HOME is /tmp" "$out" "HOME=/tmp"
expect_contains "and /tmp exists" "$out" "HOME-EXISTS"
expect_contains "and it says so" "$out" "HOME is the sandbox's private /tmp"

# The parent descheduled after clone(): each of its stat calls waits 30 ms
# (strace traces airlock's own process only; the child runs freely).  The
# child must not become non-dumpable before the parent has read its
# /proc/PID/ns/pid, or an ordinary user's parent may not read it, and the
# agent's broker socket cannot be pinned (the agent is killed).
out=$(timeout 60 strace -qq -o "$T/slow.strace" -e trace=newfstatat,statx \
    -e inject=newfstatat,statx:delay_enter=30000 \
    setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups \
    env -i PATH=/usr/local/bin:/usr/bin:/bin AIRLOCK_HOME="$U/state" \
    HOME="$U/home" "$AIRLOCK" run --manifest "$T/m.yaml" \
    --workspace "$U/ws" -- sh -c 'test -S /run/airlock/mcp.sock && echo SOCKET-THERE' 2>&1)
expect_not_contains "a slow parent still pins the broker socket" "$out" "broker socket"
expect_contains "and the agent ran to its end" "$out" "SOCKET-THERE"
check "the parent's stat calls were the ones delayed" grep -q '/ns/pid".*(DELAYED)' "$T/slow.strace"

# As root, the manifest's home is used as it is.
out=$(AIRLOCK_HOME="$T/rootstate" timeout 60 "$AIRLOCK" run --manifest "$T/m.yaml" \
    --workspace "$U/ws" -- sh -c 'echo "HOME=$HOME"; test -d "$HOME" && echo HOME-EXISTS' 2>&1)
expect_contains "root gets the manifest's home" "$out" "HOME=$T/root-only/agents/testagent"
expect_contains "which exists inside" "$out" "HOME-EXISTS"
finish
