#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A check's result counts toward a gate only if the workspace was not
# written while it ran.  The broker saw the agent's own writes through
# inotify (gate_agent_writes.sh), which sees no write through a shared
# writable mapping: an agent that writes its workspace (agent.workspace:
# rw, or its copy-on-write view) mapped "flag" (content "broke") before
# it asked for the check, wrote "fixed" through the mapping while the
# check ran (the check passed on it), and "broke" back once it was over:
# no workspaceWrittenDuringRun, and acceptance was met on content that
# fails the check.  Now the workspace is digested again after the run and
# the seals of the two digests compared (broker/wsindex.h): on ext4 (and
# on an overlay whose upper layer is) a write through a mapping moves the
# file's ctime, which putting the content back does not undo.  On tmpfs
# nothing can show it: a run while the agent can write the workspace
# there counts toward no gate (workspaceUnsealable).  Played for real from
# inside the agent's sandbox: rw and cow on ext4, rw on a tmpfs; and a
# run that nothing writes still counts (rw, cow).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# A mount namespace of its own, for the tmpfs workspace.
if [ -z "${GATE_MMAP_RUN_NS:-}" ]; then
	GATE_MMAP_RUN_NS=1 exec unshare -m bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
A=$(realpath "$AIRLOCK")
CHECK='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"slow"}}}'
STATUS='{"jsonrpc":"2.0","id":9,"method":"airlock/session/status","params":{}}'
GATE='[.result.acceptanceMet, (.result.gates[] | select(.checkId == "slow") | .state)]'
fstype=$(stat -f -c %T "$T")
case "$fstype" in
ext2/ext3 | ext4 | xfs | btrfs) ;;
*) echo "SKIP: $T is on $fstype, not ext4, xfs or btrfs"; exit 77 ;;
esac

# play NAME MODE: the workspace $T/ws-NAME, agent.workspace MODE, and the
# agent $T/agent-NAME.sh; the check's reply is left in $R, the status's
# in $S.
play() {
	local ws="$T/ws-$1"

	cat >"$T/$1.yaml" <<EOF
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
  workspace: $2
EOF
	chmod -R a+rwX "$ws"
	chmod 755 "$T/agent-$1.sh"
	(cd "$ws" && timeout 90 "$A" run --manifest "$T/$1.yaml" \
	    --workspace "$ws" -- "$T/agent-$1.sh" >"$T/out-$1" 2>"$T/err-$1")
	S=$(grep '"id":9,' "$T/out-$1")
	R=$(grep '"id":2,' "$T/out-$1")
}

# The attack: "flag" is mapped and written (its own bytes: its page is
# then dirty and writable, and stays so until it is written back) before
# the check is asked for; 1.5 s into the check's 4 s run "fixed" is
# written through the mapping, and once the result is back "broke" again.
# With "loop", "broke" is written through it every half millisecond
# until then, so that a write lands after a digest wrote the page back and
# before it stat()s the file: the page is then writable again, and
# writes to it move no time.
attack() {
	cat >"$T/agent-$1.sh" <<EOF
#!/bin/sh
python3 -c '
import mmap, os, sys, time
fd = os.open("flag", os.O_RDWR)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
os.close(fd)
m[0:6] = m[0:6]
open("/tmp/ready", "w").close()
while not os.path.exists("/tmp/go"):
    time.sleep(0.05)
t = time.time()
while time.time() < t + 1.5:
    if sys.argv[1] == "loop":
        m[0:6] = b"broke\n"
    time.sleep(0.0005)
m[0:6] = b"fixed\n"
while not os.path.exists("/tmp/done"):
    time.sleep(0.05)
m[0:6] = b"broke\n"
m.close()
open("/tmp/restored", "w").close()
' $2 &
while [ ! -e /tmp/ready ]; do sleep 0.05; done
touch /tmp/go
$(connect_calls "$CHECK")
touch /tmp/done
wait
echo "FLAG-AFTER \$(cat flag)" >&2
$(connect_calls "$STATUS")
EOF
}

# rw and cow on ext4 (and cow with a writer that keeps writing); rw on a
# tmpfs; cow with its session (whose upper layer is the view's) on a
# tmpfs.
for mode in rw cow cowloop tmpfs cowtmpfs; do
	ws="$T/ws-$mode"
	mkdir -p "$ws"
	export AIRLOCK_HOME="$T/home-$mode"
	mkdir -p "$AIRLOCK_HOME"
	if [ "$mode" = tmpfs ]; then
		mount -t tmpfs tmpfs "$ws" || { fail "a tmpfs on $ws"; continue; }
	elif [ "$mode" = cowtmpfs ]; then
		mount -t tmpfs tmpfs "$AIRLOCK_HOME" ||
		    { fail "a tmpfs on $AIRLOCK_HOME"; continue; }
	fi
	echo broke >"$ws/flag"
	attack "$mode" "$([ "$mode" = cowloop ] && echo loop || echo once)"
	play "$mode" "$(case $mode in cow*) echo cow ;; *) echo rw ;; esac)"
	expect_eq "$mode: the check passed on what the mapping held meanwhile" \
	    "$(jr .result.structuredContent.exitCode)" 0
	expect_contains "$mode: broke was put back through the mapping" \
	    "$(cat "$T/err-$mode")" "FLAG-AFTER broke"
	audit="$(newest_session)/audit.jsonl"
	case $mode in
	*tmpfs)
		expect_contains "$mode: the run counts toward no gate: nothing there can show it unwritten" \
		    "$(jr '.result.content[1].text')" \
		    "where a write through a shared mapping moves no time"
		check "$mode: the audit log says why" grep -q \
		    '"gate_workspace_written".*"unsealable":true' "$audit"
		;;
	cowloop)
		expect_contains "$mode: the run counts toward no gate" \
		    "$(jr '.result.content[1].text')" \
		    "does not count toward acceptance"
		;;
	*)
		expect_contains "$mode: the run is reported written" \
		    "$(jr '.result.content[1].text')" \
		    "the workspace was written (or could not be watched) while it ran"
		check "$mode: the audit log says why" grep -q \
		    '"gate_workspace_written".*"unsealable":false' "$audit"
		;;
	esac
	R=$S
	expect_eq "$mode: with broke back, acceptance is not met" \
	    "$(jr -c "$GATE")" '[false,"stale"]'
	[ "$mode" = tmpfs ] && umount "$ws"
	[ "$mode" = cowtmpfs ] && umount -l "$AIRLOCK_HOME"
done

# A run that nothing writes still counts, with the seal checked.
for mode in rw cow; do
	export AIRLOCK_HOME="$T/home-quiet-$mode"
	mkdir -p "$AIRLOCK_HOME"
	ws="$T/ws-quiet-$mode"
	mkdir -p "$ws"
	echo fixed >"$ws/flag"
	{
		echo '#!/bin/sh'
		connect_calls "$CHECK"
		connect_calls "$STATUS"
	} >"$T/agent-quiet-$mode.sh"
	play "quiet-$mode" "$mode"
	expect_eq "quiet $mode: the check passed" \
	    "$(jr .result.structuredContent.exitCode)" 0
	expect_not_contains "quiet $mode: ... and counts" "$R" \
	    "does not count toward acceptance"
	expect_not_contains "quiet $mode: not written, says the audit log" \
	    "$(cat "$(newest_session)/audit.jsonl")" '"gate_workspace_written"'
	R=$S
	expect_eq "quiet $mode: and acceptance is met" \
	    "$(jr -c "$GATE")" '[true,"pass"]'
done
finish
