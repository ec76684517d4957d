#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The incremental workspace index (broker/wsindex.h) reused a file's hash
# when its stat was as recorded, on the premise that a write moves mtime
# and ctime.  A write through a shared writable mapping does not always:
# on ext4 (and xfs, btrfs) only the first write to a clean page faults
# and moves the times, and a page dirtied before a refresh stays writable
# until writeback cleans it (half a minute), so later writes to it move
# nothing; on tmpfs no write through a mapping moves them at all.  An
# agent that writes its workspace (agent.workspace: rw, or its cow view)
# ran the gate's check on "fixed" and then wrote "broke" through a
# mapping: the digest stayed the one the gate was bound to, and
# acceptance was met on content that fails the check (a full re-hash
# would have seen it).  Now a file is synced before it is hashed, so that
# any later write through a mapping faults and moves its times, and the
# hash is reused only on filesystems known to do that.  Played for real
# from inside the agent's sandbox: rw on ext4 (a mapping held across
# the refresh, on an ext4 of its own), cow (the same, through the
# overlay), rw on tmpfs (a mapping made after the check).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# A mount namespace of its own, for the tmpfs workspace.
if [ -z "${WSINDEX_MMAP_NS:-}" ]; then
	WSINDEX_MMAP_NS=1 exec unshare -m bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
A=$(realpath "$AIRLOCK")
CHECK='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"flag"}}}'
STATUS1='{"jsonrpc":"2.0","id":8,"method":"airlock/session/status","params":{}}'
STATUS2='{"jsonrpc":"2.0","id":9,"method":"airlock/session/status","params":{}}'
GATE='[.result.acceptanceMet, (.result.gates[] | select(.checkId == "flag") | .state)]'

for mode in rw cow tmpfs; do
	ws="$T/ws-$mode"
	mkdir -p "$ws"
	if [ "$mode" = tmpfs ]; then
		mount -t tmpfs tmpfs "$ws" || { fail "a tmpfs on $ws"; continue; }
	fi
	# rw: an ext4 of the test's own.  On the shared one, a syncfs() by
	# anything else (a change set landing, a cow session: the mutant
	# runs share the machine) writes the page back between the two
	# writes, and the second faults whether or not airlock wrote it back.
	if [ "$mode" = rw ]; then
		truncate -s 32M "$T/rw.img" &&
		    mkfs.ext4 -q -F "$T/rw.img" 2>/dev/null &&
		    mount -o loop "$T/rw.img" "$ws" ||
		    echo "NOTE: no loop-mounted ext4 (no loop device?): rw on" \
			"the shared filesystem, where another process's sync" \
			"may hide a file hashed without being written back"
	fi
	echo fixed >"$ws/flag"
	chmod -R a+rwX "$ws"
	cat >"$T/$mode.yaml" <<EOF
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
checks:
  flag: ["grep", "-qx", "fixed", "flag"]
gates:
  required: [flag]
agent:
  workspace: $([ "$mode" = cow ] && echo cow || echo rw)
EOF
	# hold: the mapping is made and written (same bytes: one fault, the
	# times move) before the check; fresh: it is made after the check.
	# Either way "broke" is written through it once the check passed,
	# and the file's stat is compared before and after.
	how=hold
	[ "$mode" = tmpfs ] && how=fresh
	cat >"$T/agent-$mode.sh" <<EOF
#!/bin/sh
python3 -c '
import mmap, os, sys, time
def st():
    s = os.stat("flag")
    return (s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_mode)
def mapit():
    fd = os.open("flag", os.O_RDWR)
    m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    os.close(fd)
    return m
m = mapit() if sys.argv[1] == "hold" else None
if m is not None:
    m[0:1] = m[0:1]
open("/tmp/ready", "w").close()
while not os.path.exists("/tmp/go"):
    time.sleep(0.05)
before = st()
if m is None:
    m = mapit()
    m[0]
m[0:6] = b"broke\n"
m.close()
sys.stderr.write("STAT %s\n" % ("same" if st() == before else "moved"))
open("/tmp/done", "w").close()
' $how &
while [ ! -e /tmp/ready ]; do sleep 0.05; done
sleep 3
$(connect_calls "$CHECK")
$(connect_calls "$STATUS1")
touch /tmp/go
wait
cat flag >&2
$(connect_calls "$STATUS2")
EOF
	chmod 755 "$T/agent-$mode.sh"
	(cd "$ws" && timeout 90 "$A" run --manifest "$T/$mode.yaml" \
	    --workspace "$ws" -- "$T/agent-$mode.sh" >"$T/out-$mode" \
	    2>"$T/err-$mode")
	R=$(grep '"id":2,' "$T/out-$mode")
	expect_eq "$mode: the check passed on fixed" \
	    "$(jr .result.structuredContent.exitCode)" 0
	R=$(grep '"id":8,' "$T/out-$mode")
	# On tmpfs no run the agent could write under counts toward a gate
	# (gate_mmap_run.sh): the digest is what is checked here.
	if [ "$mode" = tmpfs ]; then
		expect_eq "tmpfs: the check counts toward no gate" \
		    "$(jr -c "$GATE")" '[false,"stale"]'
	else
		expect_eq "$mode: and acceptance was met on it" \
		    "$(jr -c "$GATE")" '[true,"pass"]'
	fi
	d1=$(jr .result.workspaceDigest)
	expect_contains "$mode: broke was written through the mapping" \
	    "$(cat "$T/err-$mode")" "broke"
	if [ "$mode" != tmpfs ]; then
		# Hashed, the file was written back (on cow, the overlay's
		# upper filesystem, by syncfs(): broker/wsindex.h's seal): its
		# page is no longer writable, and the write faulted and moved
		# the times.
		expect_contains "$mode: the write through the mapping moved the stat" \
		    "$(cat "$T/err-$mode")" "STAT moved"
	else
		expect_contains "$mode: the file's stat did not move" \
		    "$(cat "$T/err-$mode")" "STAT same"
	fi
	R=$(grep '"id":9,' "$T/out-$mode")
	expect_eq "$mode: on broke acceptance is not met" "$(jr -c "$GATE")" '[false,"stale"]'
	check "$mode: the digest changed" test -n "$d1" -a \
	    "$(jr .result.workspaceDigest)" != "$d1"
	[ "$mode" = cow ] || ! mountpoint -q "$ws" || umount "$ws"
done
finish
