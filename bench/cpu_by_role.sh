#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Where the CPU of `airlock exec -- true` goes, by process role: the exec,
# the sandbox's child (root building, then the namespace's init), the
# audit writer (a spare: the runs' sessions, syncs, what it keeps), the
# command.  perf samples every CPU (cpu-clock, HZ a second) over RUNS
# runs, with the kernel's fork and exec events to tell the processes
# apart; bench/cpu_by_role.py charges each sample to its outermost system
# call, a page fault or a user function.  Kernel threads and other
# processes are not counted (bench/cpu_per_run.sh gives the totals
# against bwrap).  Needs root and perf.
# usage: bench/cpu_by_role.sh [-n RUNS] [AIRLOCK]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=300 hz=4000
while getopts n: o; do
	case $o in
	n) runs=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [AIRLOCK]" >&2; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
airlock=$(realpath "${1:-$top/airlock}")
command -v perf >/dev/null || { echo "$0: perf (Debian package linux-perf) is missing" >&2; exit 69; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root (perf -a)" >&2; exit 77; }
d=$(mktemp -d /tmp/cpu_by_role.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir "$d/ws" "$d/home"
cd "$d/ws"
# a spare first, as the runs will have
for i in 1 2 3; do AIRLOCK_HOME=$d/home "$airlock" exec -- true; done
perf record -q -F "$hz" -a -g -e cpu-clock -e sched:sched_process_fork \
    -e sched:sched_process_exec -o "$d/perf.data" -- sh -c '
	i=0
	while [ "$i" -lt "$1" ]; do
		AIRLOCK_HOME=$2 "$3" exec -- true
		i=$((i + 1))
	done' loop "$runs" "$d/home" "$airlock" >/dev/null 2>&1
perf script -i "$d/perf.data" -F comm,pid,tid,time,event,trace,ip,sym,dso 2>/dev/null |
    python3 "$top/bench/cpu_by_role.py" "$runs" "$hz" "$airlock" true
