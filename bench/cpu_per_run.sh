#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The CPU one run costs, every process it makes counted: `airlock exec --
# true` (with the spare audit writers its runs fork, which outlive the
# run and which bench/spawnbench cannot see) against bwrap.  Each batch
# runs RUNS times in a loop inside a cgroup of its own (cgroup v1's
# cpuacct, else a v2 cgroup's cpu.stat), after one warm-up run; the batch
# is charged what the cgroup used, the loop's shell included (the same
# for every command).  The commands take turns, the order rotated every
# round; the output is per round and command: CPU ms per run, wall ms
# per run and the CPU ratio to bwrap's, then the median ratio over the
# rounds.  Kernel threads' work (a network
# namespace's teardown, block completions) is nobody's cgroup's and is
# not counted, for either.  A second airlock binary BASE (an older build)
# is timed beside the first when given.  Each binary gets an AIRLOCK_HOME
# of its own under a temporary directory.  Needs root and bwrap.  On
# cgroup v2 airlock's runner cgroups are made beneath the cgroup it is
# in, so they are counted there too (run on v1 only so far).
# usage: bench/cpu_per_run.sh [-n RUNS] [-r ROUNDS] [AIRLOCK [BASE]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=100 rounds=3
while getopts n:r: o; do
	case $o in
	n) runs=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-r ROUNDS] [AIRLOCK [BASE]]" >&2; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
airlock=$(realpath "${1:-$top/airlock}")
base=${2:+$(realpath "$2")}
command -v bwrap >/dev/null || { echo "bwrap (Debian package bubblewrap) is missing" >&2; exit 69; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root (a cgroup of its own)" >&2; exit 77; }
if [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ]; then
	cgroot=/sys/fs/cgroup/cpuacct
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	cgroot=/sys/fs/cgroup
else
	echo "$0: neither cgroup v1's cpuacct nor cgroup v2 is mounted at /sys/fs/cgroup" >&2
	exit 69
fi
d=$(mktemp -d /tmp/cpu_per_run.XXXXXX)
cg="$cgroot/airlock-cpu-per-run.$$"
cleanup() {
	if [ -d "$cg" ]; then
		xargs -r kill -9 <"$cg/cgroup.procs" 2>/dev/null || true
		sleep 0.2
		rmdir "$cg" 2>/dev/null || true
	fi
	rm -rf "$d"
}
trap cleanup EXIT
mkdir "$d/ws" "$d/home" "$d/home-base"
cd "$d/ws"
B="bwrap --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc true"

# batch NAME HOME CMD...: RUNS runs of CMD in a fresh cgroup; prints
# "NAME cpu_ms wall_ms".
batch() {
	name=$1 home=$2
	shift 2
	mkdir "$cg"
	# a shell of its own joins the cgroup, so that every process it makes
	# is counted and this script is not
	sh -c '
	cg=$1 runs=$2 name=$3 home=$4 cgroot=$5
	shift 5
	echo $$ >"$cg/cgroup.procs"
	usage() {
		if [ "$cgroot" = /sys/fs/cgroup/cpuacct ]; then
			cat "$cg/cpuacct.usage"
		else
			awk '\''$1 == "usage_usec" { print $2 * 1000 }'\'' "$cg/cpu.stat"
		fi
	}
	AIRLOCK_HOME=$home "$@" >/dev/null 2>&1 || true
	sleep 0.2
	u0=$(usage)
	t0=$(date +%s%N)
	i=0
	while [ "$i" -lt "$runs" ]; do
		AIRLOCK_HOME=$home "$@" >/dev/null 2>&1 || { echo "$name: run $i failed" >&2; exit 1; }
		i=$((i + 1))
	done
	t1=$(date +%s%N)
	# the last run'\''s writer finishes its syncs after the run
	sleep 0.3
	u1=$(usage)
	echo "$u0 $u1 $t0 $t1" | awk -v n="$runs" -v name="$name" \
	    '\''{ printf "%s %.3f %.3f\n", name, ($2 - $1) / n / 1e6, ($4 - $3) / n / 1e6 }'\''
	' batch "$cg" "$runs" "$name" "$home" "$cgroot" "$@"
	# the spares the runs left wait in the cgroup: they go with it
	xargs -r kill -9 <"$cg/cgroup.procs" 2>/dev/null || true
	# (a killed task may hold the cgroup a moment after it left the list)
	# (on v2 the killed spares' kept cgroups are beneath it)
	i=0
	until rmdir "$cg"/airlock-* 2>/dev/null; rmdir "$cg" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { echo "$0: cannot remove $cg" >&2; exit 1; }
		sleep 0.05
	done
}

round=1
: >"$d/ratios"
while [ "$round" -le "$rounds" ]; do
	: >"$d/round"
	# rotate the order every round
	case $(((round - 1) % 3)) in
	0) order="bwrap airlock base" ;;
	1) order="airlock base bwrap" ;;
	*) order="base bwrap airlock" ;;
	esac
	for who in $order; do
		# shellcheck disable=SC2086 # $B: the command's words
		case $who in
		bwrap) batch bwrap "$d/home" $B >>"$d/round" ;;
		airlock) batch airlock "$d/home" "$airlock" exec -- true >>"$d/round" ;;
		base) [ -z "$base" ] || batch base "$d/home-base" "$base" exec -- true >>"$d/round" ;;
		esac
	done
	awk -v r="$round" 'NR == FNR { if ($1 == "bwrap") b = $2; next }
	    { printf "round %s  %-8s cpu %6.3f ms/run  wall %6.3f ms/run  %.2fx bwrap\n",
	        r, $1, $2, $3, $2 / b }' "$d/round" "$d/round"
	awk 'NR == FNR { if ($1 == "bwrap") b = $2; next } $1 != "bwrap" { print $1, $2 / b }' \
	    "$d/round" "$d/round" >>"$d/ratios"
	round=$((round + 1))
done
sort -k1,1 -k2,2n "$d/ratios" | awk '{ v[$1] = v[$1] " " $2; n[$1]++ }
    END { for (k in v) { split(substr(v[k], 2), a, " "); m = a[int((n[k] + 1) / 2)];
        printf "median CPU ratio to bwrap: %s %.2fx (rounds:%s)\n", k, m, v[k] } }'
