#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# What airlock exec's spare audit writer keeps from one exec for the next
# (supervisor/exec_audit.c, runner.h): its own empty cgroups, lent to each
# exec it serves, and the last sandbox's network namespace once it is
# found as it was made.  Checked from outside: back-to-back execs run in
# the same cgroups and network namespace, each with its own limits set
# again.  And attacked, from inside real sandboxes: an abstract unix
# socket kept alive past its sandbox's end (a descriptor cycle in flight)
# must not reach the next sandbox; a run that brings its loopback up
# (egress through the proxy) does not pass it on; a run that hits its
# memory or pids limit does not pass its counters, or its lower limits,
# on; a sandbox cannot bring its loopback up itself (the premise: it has
# no capability over the namespace); an exec killed mid-run leaves
# nothing the next one trips on.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "the spare's network namespace and cgroups are made as root"
command -v python3 >/dev/null || skip "python3 is not installed"
ws=$(make_workspace)
cd "$ws" || exit 1
ST=$AIRLOCK_HOME
io="$T/io"
mkdir -p "$io"
chmod 1777 "$io"	# the command runs as the runner uid

# spare_ready: waits until a spare is published (an exec started sooner
# forks a writer of its own, which keeps nothing yet).
sock() { find "$ST/spare" -maxdepth 1 -name 'exec-*.sock' ! -name '*-held-*' 2>/dev/null | head -n 1; }
has_sock() { [ -n "$(sock)" ]; }
spare_ready() { wait_for has_sock || fail "a spare is published"; }
# netns: the network namespace the sandbox's command is in.
netns() { spare_ready; "$AIRLOCK" exec -- readlink /proc/self/ns/net; }
# spare_cgroups: the cgroup directories named for this test's writers
# (the spares, one per slot: back to back, an exec may find one busy and
# take the other).
spare_cgroups() {
	local p
	for p in $(writers_in_T); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = airlock-writer ] || continue
		find /sys/fs/cgroup -maxdepth 6 -type d -name "airlock-$p-*" 2>/dev/null
	done | sort
}
# in_cgroup_of DIR: the pids (or v2) cgroup DIR holds a task now.
has_task() { [ -n "$(cat "$1/tasks" 2>/dev/null || cat "$1/cgroup.procs" 2>/dev/null)" ]; }

# 0. A first exec forks its writer, which stays on as the spare; from the
#    second on, a spare serves and keeps.
"$AIRLOCK" exec -- true
"$AIRLOCK" exec -- true
spare_ready
for i in 1 2 3; do netns; done >/dev/null
cgs=$(spare_cgroups)
check "the spare has made its own cgroups" test -n "$cgs"

# 1. Kept: the same network namespaces and cgroups, run after run (one
#    of each per spare; an exec that finds every spare busy forks a writer
#    of its own, whose first run gets a new namespace: so at most half of
#    ten runs, not all ten, have one nobody had before).
for i in 1 2 3 4 5 6 7 8 9 10; do netns; done >"$T/netns"
new=$(sort -u "$T/netns" | wc -l)
check "back to back, the commands' network namespaces are kept ($new new in 10 runs)" \
    test "$new" -le 5
spare_ready
expect_eq "the spares' cgroups are still the same ones" "$(spare_cgroups)" "$cgs"
# The command runs in them (seen from outside while it waits).
mkfifo "$io/go"
"$AIRLOCK" exec --rw "$io" -- sh -c "read x <'$io/go'" &
run=$!
# busy_pids: the spare's pids cgroup with a task in it now (one spare
# serves the run: the one whose cgroups it took).
busy_pids() {
	local c
	for c in $(printf '%s\n' $cgs | grep '/pids/'); do
		has_task "$c" && { echo "$c"; return 0; }
	done
	return 1
}
has_busy_pids() { busy_pids >/dev/null; }
check "the command runs in a spare's lent cgroup" wait_for has_busy_pids
pidscg=$(busy_pids)
# The memory cgroup of the same spare: airlock-PID-N, the same PID.
owner=$(basename "$pidscg" | cut -d- -f2)
memcg=$(printf '%s\n' $cgs | grep "/memory/.*/airlock-$owner-" | head -n 1)
expect_eq "with this run's memory limit (the default, 1024 MiB)" \
    "$(cat "$memcg/memory.limit_in_bytes" 2>/dev/null)" $((1024 * 1024 * 1024))
echo go >"$io/go"
wait "$run"
expect_eq "that run succeeds" "$?" 0

# 2. The premise: a sandbox holds no capability over its network
#    namespace, so it cannot bring its loopback up.
py_lo='
import fcntl, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
req = struct.pack("16sH14x", b"lo", 0)
flags = struct.unpack("16sH14x", fcntl.ioctl(s, 0x8913, req))[1]
if sys.argv[1] == "up":
    try:
        fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", b"lo", flags | 1))
        print("up")
    except OSError as e:
        print("refused", e.errno)
else:
    print("up" if flags & 1 else "down")
'
expect_eq "a sandbox cannot bring its loopback up (EPERM)" \
    "$("$AIRLOCK" exec -- python3 -c "$py_lo" up)" "refused 1"
expect_eq "and the next one's is down" \
    "$("$AIRLOCK" exec -- python3 -c "$py_lo" get)" "down"

# 3. Attack: a sandbox leaves an abstract unix socket behind, alive only
#    through descriptors in flight (a cycle the kernel collects later),
#    for the next sandbox to find; it must not reach it.
py_leave='
import array, socket
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
c.bind("\0airlock-reuse-probe")
fds = array.array("i", [b.fileno(), c.fileno()])
a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
b.sendmsg([b"y"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [a.fileno()]))])
print("left")
'
py_find='
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    s.sendto(b"hello", "\0airlock-reuse-probe")
    print("reached")
except OSError as e:
    print("refused", e.errno)
'
#    The kernel collects such a cycle soon (its garbage collector runs
#    as the last descriptor closes, usually before the next sandbox
#    starts), so the leaver and the finder run twice; what each run
#    cannot do is reach the socket.
reached=0 fresh=0
for i in 1 2; do
	spare_ready
	"$AIRLOCK" exec --rw "$io" -- sh -c "readlink /proc/self/ns/net >'$io/leaver-ns'; python3 -c '$py_leave'" \
	    >"$T/leave.out" 2>&1
	grep -q left "$T/leave.out" || fail "the leaver leaves its socket in flight ($i)"
	spare_ready
	found=$("$AIRLOCK" exec --no-landlock --rw "$io" -- sh -c "readlink /proc/self/ns/net >'$io/finder-ns'; python3 -c '$py_find'")
	[ "$found" = "refused 111" ] || reached=$((reached + 1))
	[ "$(cat "$io/finder-ns")" = "$(cat "$io/leaver-ns")" ] || fresh=$((fresh + 1))
done
expect_eq "no sandbox reached the socket the one before it left (ECONNREFUSED)" "$reached" 0
echo "# the finder ran in a new namespace $fresh times of 2 (else the cycle was collected first)"

#    A socket that does outlive its sandbox: sent to a process outside,
#    which keeps it (a host service listening in a --rw directory).  The
#    next sandbox must not be given the namespace it lives in.
py_hold='
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(4)
open(sys.argv[2], "w").close()
c, _ = s.accept()
msg, anc, _, _ = c.recvmsg(16, socket.CMSG_SPACE(16))
open(sys.argv[3], "w").write("held %d\\n" % len(anc))
time.sleep(60)
'
py_send='
import array, socket, sys
c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
c.bind("\0airlock-reuse-probe")
k = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
k.connect(sys.argv[1])
k.sendmsg([b"fd"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [c.fileno()]))])
print("sent")
'
python3 -c "$py_hold" "$io/hold.sock" "$io/hold.ready" "$io/hold.out" &
holder=$!
wait_for test -e "$io/hold.ready"
spare_ready
out=$("$AIRLOCK" exec --rw "$io" -- python3 -c "$py_send" "$io/hold.sock" 2>&1)
expect_eq "a sandbox hands its abstract socket to a process outside" "$out" "sent"
check "which holds it" wait_for grep -q "held 1" "$io/hold.out"
spare_ready
# Without landlock, whose scope of abstract sockets would refuse it too
# (EPERM): the network namespace alone is checked here.
found=$("$AIRLOCK" exec --no-landlock -- python3 -c "$py_find")
expect_eq "the next sandbox cannot reach it: no such socket where it runs (ECONNREFUSED)" \
    "$found" "refused 111"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# 4. A run with egress (the proxy's listener on its loopback, brought up
#    before the command) does not pass that namespace on.
"$AIRLOCK" exec --rw "$io" --allow-host example.invalid -- sh -c \
    "readlink /proc/self/ns/net >'$io/proxy-ns'; python3 -c '$py_lo' get >'$io/proxy-lo'" \
    >"$T/proxy.out" 2>&1
expect_eq "a run with egress has its loopback up" "$(cat "$io/proxy-lo")" "up"
spare_ready
after=$("$AIRLOCK" exec --rw "$io" -- sh -c "readlink /proc/self/ns/net; python3 -c '$py_lo' get")
check "after a run with egress, the next runs in another namespace" \
    test "$(printf '%s\n' "$after" | head -n 1)" != "$(cat "$io/proxy-ns")"
expect_eq "whose loopback is down" "$(printf '%s\n' "$after" | tail -n 1)" "down"

# 5. Limits: a run that hits its memory limit, then one without it.
py_alloc='
import sys
b = bytearray(int(sys.argv[1]) * 1024 * 1024)
for i in range(0, len(b), 4096):
    b[i] = 1
print("allocated")
'
"$AIRLOCK" exec --limit memory=32 -- python3 -c "$py_alloc" 96 >"$T/oom.out" 2>&1
expect_eq "over a 32 MiB memory limit: killed (137)" "$?" 137
out=$("$AIRLOCK" exec -- python3 -c "$py_alloc" 96 2>"$T/after-oom.err")
rc=$?
expect_eq "the next run, with the default limit, allocates 96 MiB" "$rc/$out" "0/allocated"
check "and is told of no limit hit" bash -c "! grep -qi 'limit' '$T/after-oom.err'"
out=$("$AIRLOCK" exec -- true 2>&1)
expect_eq "a run after it ends cleanly, with nothing said" "$?/$out" "0/"

#    A lower limit set by one run is not left for the next, which asks
#    for none (0): the kept cgroups' limits are reset.
out=$("$AIRLOCK" exec --limit memory=64 -- python3 -c "$py_alloc" 16 2>&1)
expect_eq "a run under a 64 MiB limit allocates 16 MiB" "$?/$out" "0/allocated"
out=$("$AIRLOCK" exec --limit memory=0 -- python3 -c "$py_alloc" 96 2>&1)
expect_eq "the next, with no memory limit, allocates 96 MiB" "$?/$out" "0/allocated"
out=$("$AIRLOCK" exec --limit nproc=8 -- sh -c 'sleep 0.2 & sleep 0.2 & wait; echo ok' 2>&1)
expect_eq "a run under an 8-process limit starts 2" "$?/$out" "0/ok"
out=$("$AIRLOCK" exec --limit nproc=0 -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do sleep 0.2 & done; wait; echo forked' 2>&1)
expect_eq "the next, with no process limit, starts 16" "$?/$out" "0/forked"

#    ...and the pids limit hit.
"$AIRLOCK" exec --limit nproc=8 -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 1 & done; wait' \
    >"$T/pids.out" 2>&1
rc=$?
check "a run over an 8-process limit fails ($rc)" test "$rc" -ne 0
spare_ready
out=$("$AIRLOCK" exec --limit nproc=8 -- true 2>&1)
expect_eq "the next run under the same limit ends cleanly, with nothing said" "$?/$out" "0/"
# A run that refuses the lent pids cgroup makes one of its own, which the
# writer removes once the run is over.  A limit of 1 refuses any (a peak
# of 0 is within one of it), and the run fails to start its command under
# it (71): the limit was in force in the cgroup it made.
spare_ready
"$AIRLOCK" exec --limit nproc=1 -- true >"$T/nproc1.out" 2>&1 &
xpid=$!
wait "$xpid"
expect_eq "a run under a limit of 1 cannot start its command (71)" "$?" 71
expect_contains "for want of a process" "$(cat "$T/nproc1.out")" "clone command"
none_left() { ! find /sys/fs/cgroup -maxdepth 6 -type d -name "airlock-$xpid-*" 2>/dev/null | grep -q .; }
check "the pids cgroup that run made itself is removed after it" wait_for none_left
out=$("$AIRLOCK" exec -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do sleep 0.2 & done; wait; echo forked' 2>"$T/after-pids.err")
expect_eq "a run with the default limit starts 16 processes" "$?/$out" "0/forked"
check "and is told of no limit hit" bash -c "! grep -qi 'limit' '$T/after-pids.err'"

# 6. An exec killed while its command runs: the next exec works.
"$AIRLOCK" exec --rw "$io" -- sh -c "touch '$io/started'; sleep 30" &
run=$!
wait_for test -e "$io/started"
kill -KILL "$run"
wait "$run" 2>/dev/null
out=$("$AIRLOCK" exec -- echo fine 2>&1)
expect_eq "after an exec was killed mid-run, the next one runs" "$?/$out" "0/fine"
out=$("$AIRLOCK" exec -- echo fine 2>&1)
expect_eq "and the one after it" "$?/$out" "0/fine"

finish
