#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Resource exhaustion inside a runner ends with a clear result, and the
# host is fine afterwards.
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws"
cp "$top_builddir/tests/escape/probe" "$ws/probe"
chown -R 65534:65534 "$ws"
cd "$ws" || exit 1

run() {
	out=$("$AIRLOCK" exec "$@" 2>&1)
	status=$?
}

marker="airlock-bomb-$$"
run --timeout 3000 --limit nproc=64 -- ./probe fork-bomb "$marker"
expect_eq "fork_bomb_ends_at_the_deadline" "$status" 124
expect_contains "fork_bomb_explained" "$out" "the process limit was hit too"
left=$(ps -eo args | grep -c "[f]ork-bomb $marker")
expect_eq "fork_bomb_leaves_no_processes" "$left" 0

run --limit memory=128 -- ./probe memory-bomb
expect_eq "memory_bomb_killed" "$status" 137
expect_contains "memory_bomb_explained" "$out" "memory limit of 128 MB reached"

run --limit fsize=8 -- ./probe fill "$ws/big"
expect_contains "file_size_limit_stops_disk_fill" "$out" "fill: errno=EFBIG"
size=$(stat -c %s "$ws/big")
expect_eq "disk_fill_stopped_at_limit" "$size" 8388608
rm -f "$ws/big"

run --limit tmp=4 -- ./probe fill /tmp/big
expect_contains "tmp_fill_stops_at_tmpfs_size" "$out" "fill: errno=ENOSPC"
# Empty files take no blocks but an inode each, kernel memory that no
# cgroup bounds where the run has none: two inodes per page of the size
# (4 MB: 2048; the tmpfs default was half the RAM's pages).
for where in tmp:/tmp shm:/dev/shm cow:"$ws"; do
	name=${where%%:*} d=${where#*:} copt=
	[ "$name" = cow ] && copt=--cow
	run --limit tmp=4 $copt -- ./probe inodes "$d"
	expect_contains "${name}_inodes_run_out" "$out" "inodes: errno=ENOSPC"
	n=$(printf '%s\n' "$out" | sed -n 's/^inodes: \([0-9]*\) files$/\1/p')
	check "${name}_inodes_bounded_by_its_size (${n:-no} files)" \
	    test "${n:-99999}" -le 2048
done

run --limit cpu=1 -- sh -c 'while :; do :; done'
expect_eq "cpu_limit_kills_with_sigxcpu" "$status" 152
expect_contains "cpu_limit_explained" "$out" "CPU time limit of 1 s reached"

# The runner dies with airlock: kill airlock, nothing of the run survives.
marker="airlock-orphan-$$"
"$AIRLOCK" exec -- ./probe escape-timeout "$marker" >/dev/null 2>&1 &
apid=$!
for i in $(seq 200); do	# up to 10 s for the runner to start
	running=$(ps -eo args | grep -c "[e]scape-timeout $marker")
	[ "$running" -ge 1 ] && break
	sleep 0.05
done
check "orphan_test_started" test "$running" -ge 1
kill -KILL "$apid"
wait "$apid" 2>/dev/null
for i in $(seq 200); do	# up to 10 s for the death signal to land
	left=$(ps -eo args | grep -c "[e]scape-timeout $marker")
	[ "$left" -eq 0 ] && break
	sleep 0.05
done
expect_eq "runner_dies_with_airlock" "$left" 0
# A killed airlock cannot remove its cgroups: the test does.
for i in 1 2 3 4 5 6 7 8 9 10; do
	for d in /sys/fs/cgroup/*/airlock-"$apid"-* \
	    /sys/fs/cgroup/*/*/*/airlock-"$apid"-*; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	ls -d /sys/fs/cgroup/*/airlock-"$apid"-* \
	    /sys/fs/cgroup/*/*/*/airlock-"$apid"-* >/dev/null 2>&1 || break
	sleep 0.5
done

finish
