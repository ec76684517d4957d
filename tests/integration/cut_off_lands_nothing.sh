#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A run cut off mid-way lands nothing: what a command wrote before its
# timeout or the kernel's OOM killer stopped it is half of what it meant
# to write, and a half-written file would replace a whole one.  Before,
# airlock exec and a broker's tool both landed it: a file rewritten in
# two steps ("half" then the rest) was left "half" in the workspace, and
# a new file appeared, while the caller was told "timed out".  As root
# and as uid 4242 (airlock exec), and through a broker's tool call.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
chmod 755 "$T"
U=4242

newest_log() {
	find "$T" -name audit.jsonl -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-
}

for u in 0 $U; do
	ws="$T/ws$u"
	mkdir -p "$ws"
	echo "whole config" >"$ws/conf.txt"
	chown -R "$u:$u" "$ws"
	export AIRLOCK_HOME="$T/home$u"
	mkdir -p "$AIRLOCK_HOME"
	chown "$u:$u" "$AIRLOCK_HOME"

	out=$(cd "$ws" && as_uid "$u" env AIRLOCK_HOME="$AIRLOCK_HOME" "$AIRLOCK" exec --workspace "$ws" --timeout 1500 -- \
	    sh -c 'echo half >conf.txt; echo new >new.txt; sleep 10; echo rest >>conf.txt' 2>&1)
	status=$?
	expect_eq "uid $u: a timed-out exec exits 124" "$status" 124
	expect_contains "uid $u: ... and says nothing of it was applied" "$out" "nothing was applied: the command timed out"
	expect_eq "uid $u: the file it was rewriting is whole" "$(cat "$ws/conf.txt")" "whole config"
	check "uid $u: the file it made did not land" test ! -e "$ws/new.txt"
	expect_eq "uid $u: exec_end says why" \
	    "$(jq -c 'select(.event == "exec_end") | .fields | [.timedOut, .changeSet]' "$(newest_log)")" \
	    '[true,{"applied":0,"error":"the command was cut off"}]'

	# Ended on its own, the same writes land (nothing else changed).
	out=$(cd "$ws" && as_uid "$u" env AIRLOCK_HOME="$AIRLOCK_HOME" "$AIRLOCK" exec --workspace "$ws" --timeout 20000 -- \
	    sh -c 'echo half >conf.txt; echo new >new.txt' 2>&1)
	expect_eq "uid $u: a run that ends on its own exits 0" "$?" 0
	expect_eq "uid $u: ... and its writes land" "$(cat "$ws/conf.txt" "$ws/new.txt")" "half
new"
done

# Killed by the kernel at its memory limit (root: the v1 or v2 memory
# cgroup is ours to set).  The command itself is killed (a child killed
# while the command goes on is the command's to handle).
ws="$T/wsm"
mkdir -p "$ws"
echo "whole config" >"$ws/conf.txt"
export AIRLOCK_HOME="$T/homem"
out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" --limit memory=64 -- \
    sh -c 'echo half >conf.txt; echo new >new.txt; exec dd if=/dev/zero of=/dev/null bs=256M count=1' 2>&1)
status=$?
expect_eq "killed at its memory limit: exit 137" "$status" 137
expect_contains "... saying nothing of it was applied" "$out" "nothing was applied: the command was killed at its memory limit"
expect_eq "... the file it was rewriting is whole" "$(cat "$ws/conf.txt")" "whole config"
check "... the file it made did not land" test ! -e "$ws/new.txt"

# A broker's tool: the call fails timeout, saying nothing was applied,
# and nothing of the run lands.
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
echo "whole config" >"$ws/conf.txt"
chmod 666 "$ws/conf.txt"
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: rewrite
    command: ["sh", "-c", "echo half >conf.txt; echo new >new.txt; sleep 10; echo rest >>conf.txt"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 1500
EOF2
mcp_start "$T/m.yaml" "$ws"
mcp_call rewrite '{}' 30
expect_eq "broker: the call fails timeout" "$(jr .result.structuredContent.errorClass)" timeout
expect_contains "broker: ... saying nothing of it was applied" "$(jr .result.structuredContent.message)" "nothing of it was applied"
expect_eq "broker: the file it was rewriting is whole" "$(cat "$ws/conf.txt")" "whole config"
check "broker: the file it made did not land" test ! -e "$ws/new.txt"
mcp_stop
log="$(newest_session)/audit.jsonl"
check "broker: no change was applied" test -z "$(jq -c 'select(.event == "change_applied")' "$log")"
finish
