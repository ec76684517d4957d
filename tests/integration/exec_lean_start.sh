#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# What airlock exec's start and end must not cost, and must not leave:
# - the child unmounts once (the old root, and with it the overlay's
#   layers parked beneath it): every unmount waits for an RCU grace
#   period, and the upper layer, the idmapped workspace and a writable
#   /proc clone used to be unmounted one by one;
# - the id-mapping helper, the audit writer and the sandbox's init are
#   all reaped: nothing is left behind, not even a zombie (a pid 1 that
#   does not reap orphans, as on this machine, would keep them for ever);
# - nothing of that work shows inside the sandbox: no mount points in its
#   root, no descriptor of the host's /proc;
# - the audit writer, which yields to airlock until the gate, runs at
#   normal priority once the command waits for it;
# - the sandbox's mount namespace is taken down by the audit writer after
#   the exec, not by the init on the way to the exit status, and nothing
#   keeps it longer;
# - the id map's user namespace and the v1 cgroups are made after the
#   sandbox's clone, while the child builds its root.
. "$top_srcdir/tests/lib.sh"
# LeakSanitizer cannot run under ptrace (strace below): leaks are checked
# by the other tests of a sanitizer build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

REAPER="$top_builddir/tests/reaper"
chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws"
# Owned by root, run by the runner uid: the idmapped path, with its helper.
echo data >"$ws/file"

# --- one unmount, whichever kind of upper layer ---------------------------
umounts() {	# ARGS...: the umount2 calls of airlock exec ARGS's whole tree
	strace -f -qq -e trace=umount2 -o "$T/umount.trace" \
	    "$AIRLOCK" exec --workspace "$ws" "$@" >/dev/null 2>&1
	grep -c 'umount2(' "$T/umount.trace"
}
expect_eq "change set (the caller's tmpfs, idmapped): one unmount" "$(umounts -- true)" 1
expect_eq "--cow (a tmpfs of the child's): one unmount" "$(umounts --cow -- true)" 1
expect_eq "--dry-run: one unmount" "$(umounts --dry-run -- true)" 1
grep -q 'umount2("/.oldroot", MNT_DETACH)' "$T/umount.trace"
expect_eq "the one unmount is the old root's" "$?" 0

# The id map's user namespace (a helper clone and three map writes) and
# the v1 cgroups are made after the sandbox's clone, while the child
# builds its root, not on the way to it.
strace -qq -e trace=clone,mkdir -o "$T/order.trace" \
    "$AIRLOCK" exec --workspace "$ws" -- true >/dev/null 2>&1
order=$(awk '/clone\(.*CLONE_NEWPID/ { s = s "C" }
	/clone\(.*CLONE_NEWUSER/ { s = s "u" }
	/^mkdir\(".*\/airlock-[0-9]+-[0-9]+"/ { s = s "m" }
	END { print s }' "$T/order.trace")
case $order in
*u*C*) fail "the sandbox is cloned before its id map's namespace ($order)" ;;
*C*u*) pass "the sandbox is cloned before its id map's namespace ($order)" ;;
*) fail "the sandbox is cloned before its id map's namespace ($order)" ;;
esac
own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
if [ -n "$own" ] && [ -w "/sys/fs/cgroup/memory${own%/}/tasks" ]; then
	case $order in
	C*m*) pass "and, on cgroup v1, before its cgroups ($order)" ;;
	*) fail "and, on cgroup v1, before its cgroups ($order)" ;;
	esac
else
	echo "# no writable cgroup v1 memory hierarchy: on v2 the child is born in a cgroup made before the clone"
fi

# The run still works through the parked layers.
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c 'cat file; echo new >new' 2>&1)
expect_eq "the workspace reads through the parked lower layer" "$out" "data"
expect_eq "the change lands through the parked upper layer" "$(cat "$ws/new" 2>&1)" "new"
out=$("$AIRLOCK" exec --workspace "$ws" --cow -- sh -c 'echo gone >cow; cat cow' 2>&1)
expect_eq "--cow writes to its own upper layer" "$out" "gone"
check "--cow leaves the workspace alone" test ! -e "$ws/cow"

# --- nothing of it inside the sandbox -------------------------------------
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c 'ls -a /' 2>&1)
case "$out" in
*airlock-cow* | *airlock-lower* | *oldroot*) fail "no mount point of the layers in the sandbox's root ($out)" ;;
*) pass "no mount point of the layers in the sandbox's root" ;;
esac
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c 'ls /proc/$$/fd' 2>&1 | tr '\n' ' ')
expect_eq "the command holds stdio only (no host /proc descriptor)" "$out" "0 1 2 "
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c \
    'awk "\$5 ~ /^\/\.oldroot/" /proc/self/mountinfo; cat /proc/self/uid_map' 2>&1)
expect_eq "the id map was written (no mount under the old root's place)" \
    "$(echo "$out" | awk '{print $1, $2, $3}')" "65534 65534 1"

# --- nothing left behind ----------------------------------------------------
# (The writer's spare stays on purpose, for the next exec: exec_spare.sh.
# Without it, nothing at all may stay.)
export AIRLOCK_EXEC_SPARE=0
"$REAPER" "$T/exec.pid" "$AIRLOCK" exec --workspace "$ws" -- true
expect_eq "exec's status passes through the reaper (sanity)" "$?" 0
expect_eq "airlock exec leaves no process behind, not even a zombie" \
    "$(grep '^left ' "$T/exec.pid.left")" ""
check "the reaper counted (sanity)" grep -q '^left-count 0' "$T/exec.pid.left"
"$REAPER" "$T/fail.pid" "$AIRLOCK" exec --workspace "$ws" --read-only /no/such/path -- true \
    >/dev/null 2>&1
expect_eq "a run refused at setup leaves nothing behind either" \
    "$(grep '^left ' "$T/fail.pid.left")" ""
unset AIRLOCK_EXEC_SPARE

# --- the sandbox's mount namespace is taken down off the exit's way ---------
# The init would unmount the whole root as it exits, and the exec would
# wait for it: the writer gets the namespace with exec_end and drops it
# once the exec has let go.  strace -yy names the namespace a descriptor
# is; the command names its own.  (No spare: one made earlier would not
# be traced.)
AIRLOCK_EXEC_SPARE=0 strace -f -qq -yy -e trace=close -o "$T/mntns.trace" \
    "$AIRLOCK" exec --workspace "$ws" -- readlink /proc/self/ns/mnt >"$T/mntns" 2>/dev/null
ns=$(cat "$T/mntns")
expect_contains "the command's mount namespace (sanity)" "$ns" "mnt:["
# The writer: the process that closes the session's log.
writer_pid=$(awk '/close\(.*audit\.jsonl/ { print $1; exit }' "$T/mntns.trace")
check "the writer is found (sanity)" test -n "$writer_pid"
closes_ns() {	# PID: whether PID closes a descriptor of $ns
	awk -v p="$1" -v ns="<$ns>)" \
	    '$1 == p && index($0, "close(") && index($0, ns) { f = 1 } END { exit !f }' \
	    "$T/mntns.trace"
}
check "the writer closes a descriptor of it" closes_ns "$writer_pid"
# Nothing holds it longer: a host mount bound into the sandbox is free
# once the exec is over.
mkdir -p "$T/mnt"
mount -t tmpfs tmpfs "$T/mnt"
"$AIRLOCK" exec --workspace "$ws" --rw "$T/mnt" -- true
check "a bound host mount is no longer held after the exec" wait_for umount "$T/mnt"

# --- the writer's priority once it is awaited -------------------------------
# (Waits of up to 20 s each: a loaded machine starts it late.)
"$AIRLOCK" exec --workspace "$ws" -- sleep 7 >/dev/null 2>&1 &
apid=$!
for i in $(seq 400); do
	pgrep -f '^sleep 7$' >/dev/null && break
	sleep 0.05
done
# The writer: the process that holds the session's log open (forked by
# this exec, or a spare an earlier one left).
writer=""
for i in $(seq 400); do
	for p in /proc/[0-9]*; do
		if ls -l "$p/fd" 2>/dev/null | grep -q "$AIRLOCK_HOME/sessions/.*/audit.jsonl"; then
			writer=${p#/proc/}
			break
		fi
	done
	[ -n "$writer" ] && break
	sleep 0.05
done
check "the audit writer is found (sanity)" test -n "$writer"
expect_eq "the writer runs at normal priority while the command runs" \
    "$(ps -o ni= -p "${writer:-0}" | tr -d ' ')" 0
wait "$apid"
expect_eq "the sleeping run ends well (sanity)" "$?" 0

finish
