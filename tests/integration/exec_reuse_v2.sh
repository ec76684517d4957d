#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The cgroups airlock exec's spare audit writer keeps from one exec for the
# next (exec_reuse.sh), on cgroup v2: a private cgroup2 hierarchy
# (AIRLOCK_CGROUP2_ROOT, mounted in a private mount namespace, as
# cgroup_v2_clone.sh does).  Back-to-back runs are born in the same
# cgroup, and each run's limits are set there again: a limit one run asked
# for is not left for the next, which asks for another or for none.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "mounting a cgroup2 hierarchy needs root"
mnt="$T/cg2"
mkdir -p "$mnt"
if [ -z "${CG2_INNER:-}" ]; then
	unshare -m --propagation private true 2>/dev/null ||
	    skip "no mount namespaces (unshare -m)"
	TESTS_FINISHED=1
	exec unshare -m --propagation private env CG2_INNER="$T" \
	    bash "$0" "$@"
fi
rm -rf "$T"; T=$CG2_INNER; mnt="$T/cg2"
mount -t cgroup2 none "$mnt" 2>"$T/merr" ||
    skip "no cgroup2 hierarchy can be mounted here: $(cat "$T/merr")"
root="$mnt/airlock-test-$$"
mkdir "$root"
at_exit 'end_writers_in_T; for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$root"/airlock-* 2>/dev/null; rmdir "$root" 2>/dev/null && break; sleep 0.1; done; umount "$mnt"'
# The memory and pids controllers, where v1 does not hold them (here it
# does: this hierarchy then has neither, and only the placement is
# checked; exec_reuse.sh checks the limits on v1).
limits=0
if grep -qw memory "$mnt/cgroup.controllers" && grep -qw pids "$mnt/cgroup.controllers" &&
    echo "+memory +pids" >"$mnt/cgroup.subtree_control" 2>/dev/null &&
    echo "+memory +pids" >"$root/cgroup.subtree_control" 2>/dev/null; then
	limits=1
else
	echo "# this cgroup2 hierarchy has no memory or pids controller (cgroup v1 holds them): placement only"
fi
export AIRLOCK_CGROUP2_ROOT="$root"
ST=$AIRLOCK_HOME
ws=$(make_workspace)
cd "$ws" || exit 1
sock() { find "$ST/spare" -maxdepth 1 -name 'exec-*.sock' ! -name '*-held-*' 2>/dev/null | head -n 1; }
has_sock() { [ -n "$(sock)" ]; }
spare_ready() { wait_for has_sock || fail "a spare is published"; }
# kept: the cgroups in the root, with their inodes.
kept() { ls -id "$root"/airlock-* 2>/dev/null | sort; }
# one FILE: FILE of the one kept cgroup (one spare here: runs wait for it).
one() { cat "$(ls -d "$root"/airlock-* | head -n 1)/$1"; }
run() { spare_ready; "$AIRLOCK" exec "$@"; }

"$AIRLOCK" exec -- true
run -- true
run -- true
before=$(kept)
check "a spare keeps a cgroup of its own in AIRLOCK_CGROUP2_ROOT" test -n "$before"
out=$(run -- sh -c 'grep "^0::" /proc/self/cgroup')
expect_eq "the command runs in it (the root of its cgroup namespace)" "$out" "0::/"
run -- true
expect_eq "back to back, the same cgroup serves" "$(kept)" "$before"

# A run that a timeout ends (its whole cgroup killed through cgroup.kill):
# that cgroup is not kept (the kernel kills every task later born into a
# cgroup once killed so, with CLONE_INTO_CGROUP: the next run would die
# at its start, 137).
run --timeout 300 -- sh -c 'sleep 1000 & sleep 1000 & wait' >/dev/null 2>&1
expect_eq "the timeout ends the run (exit 124)" "$?" 124
out=$(run -- sh -c 'echo ran; grep "^0::" /proc/self/cgroup' 2>&1)
expect_eq "the next runs, in its own cgroup namespace (exit $?)" "$out" "ran
0::/"
check "in another cgroup than the killed one" test "$(kept)" != "$before"
before=$(kept)
out=$(run -- echo ran 2>&1)
expect_eq "and the one after it too" "$?/$out" "0/ran"
expect_eq "in that same new cgroup" "$(kept)" "$before"
if [ "$limits" != 1 ]; then
	finish
	exit # finish's status: "exit" after a false test was 1
fi

# Each run's limits, set again in the kept cgroup (left as it set them).
run --limit memory=64 --limit nproc=16 -- true
expect_eq "a run asking for 64 MiB set memory.max" "$(one memory.max)" $((64 * 1024 * 1024))
expect_eq "and 16 processes, pids.max" "$(one pids.max)" 16
run --limit memory=0 --limit nproc=0 -- true
expect_eq "the next, asking for no memory limit, has none" "$(one memory.max)" max
expect_eq "nor a process limit" "$(one pids.max)" max
run -- true
expect_eq "the next, with the defaults, has 1024 MiB" "$(one memory.max)" $((1024 * 1024 * 1024))
expect_eq "and 256 processes" "$(one pids.max)" 256
expect_eq "all in the same cgroup" "$(kept)" "$before"

# A run whose memory limit killed it: its cgroup is not kept.
py_alloc='
b = bytearray(96 * 1024 * 1024)
for i in range(0, len(b), 4096):
    b[i] = 1
'
run --limit memory=32 -- python3 -c "$py_alloc" >/dev/null 2>&1
expect_eq "over a 32 MiB limit: killed (137)" "$?" 137
spare_ready
check "its cgroup, whose counters say so, is not kept" test "$(kept)" != "$before"
out=$(run -- true 2>&1)
expect_eq "the next run ends cleanly, with nothing said" "$?/$out" "0/"

finish
