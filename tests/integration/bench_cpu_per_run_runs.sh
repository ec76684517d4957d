#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The CPU-per-run bench (bench/cpu_per_run.sh, issue 14 item 2) still runs
# through to its figures, and leaves no cgroup or process behind: a few
# runs, one round; what it prints is checked, not timed.
. "$top_srcdir/tests/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skip: the bench makes a cgroup of its own, which needs root"; exit 77; }
command -v bwrap >/dev/null || { echo "skip: bwrap (Debian package bubblewrap) is missing"; exit 77; }
[ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
    { echo "skip: neither cgroup v1's cpuacct nor cgroup v2 is mounted at /sys/fs/cgroup"; exit 77; }
sh "$top_srcdir/bench/cpu_per_run.sh" -n 3 -r 1 "$AIRLOCK" >"$T/out" 2>"$T/err"
expect_eq "bench/cpu_per_run.sh runs to its end" "$?" 0
check "...and prints bwrap's CPU a run" grep -qE '^round 1 +bwrap +cpu +[0-9.]+ ms/run' "$T/out"
check "...and airlock's, with its ratio" grep -qE '^round 1 +airlock +cpu +[0-9.]+ ms/run .* [0-9.]+x bwrap$' "$T/out"
check "...and the median" grep -qE '^median CPU ratio to bwrap: airlock [0-9.]+x' "$T/out"
expect_eq "...with nothing on stderr" "$(cat "$T/err")" ""
check "...and no cgroup of its own left" sh -c '! ls -d /sys/fs/cgroup/cpuacct/airlock-cpu-per-run.* /sys/fs/cgroup/airlock-cpu-per-run.* 2>/dev/null | grep -q .'
finish
