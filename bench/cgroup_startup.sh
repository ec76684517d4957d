#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Runner start-up by cgroup interface: `airlock exec -- true` against bwrap
# and unshare, interleaved (bench/spawnbench), REPEATS times:
#   nocg   airlock with no cgroup at all (AIRLOCK_CGROUP2_ROOT names a
#          directory that is not cgroup2: the cost of everything else)
#   v1     the host's cgroup v1 memory, pids and cpu hierarchies: the
#          child joins its cgroups itself (the parent makes them after
#          the clone, while the child builds its root)
#   v1-attach  the same, the child attached by a cgroup.procs write while
#          it builds its root (AIRLOCK_CGROUP_ATTACH=1)
#   v2     a private cgroup2 hierarchy mounted on a temporary directory in
#          a private mount namespace (AIRLOCK_CGROUP2_ROOT): the child is
#          born in its cgroup by clone3(CLONE_INTO_CGROUP).  Here memory
#          and pids are bound to v1, so this v2 cgroup has no memory/pids
#          controllers: the figure is the placement cost alone.
#   v2-attach  the same v2 cgroup, the child attached by a cgroup.procs
#          write (AIRLOCK_CGROUP_ATTACH=1: clone3 is not tried)
#   v1-base    v1 with a second airlock binary BASE (an older build), when
#          given
# Prints each repeat's table (median, p25, p75 ms, ratio to bwrap) and a
# summary: per command the median over repeats of the median, the range
# of the medians, and the median and range of the per-repeat ratio to bwrap.
# Needs root (mount), bwrap and unshare.  /sys/fs/cgroup is not touched.
# usage: bench/cgroup_startup.sh [-n RUNS] [-r REPEATS] [AIRLOCK [BASE]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=40 reps=5
while getopts n:r: o; do
	case $o in
	n) runs=$OPTARG ;;
	r) reps=$OPTARG ;;
	*) echo "usage: bench/cgroup_startup.sh [-n RUNS] [-r REPEATS] [AIRLOCK [BASE]]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
al=${1:-$top/airlock}
base=${2:-}
if [ -z "${CGSTART_INNER:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "bench/cgroup_startup.sh: needs root" >&2; exit 2; }
	make -s -C "$top" bench/spawnbench >/dev/null
	exec unshare -m --propagation private env CGSTART_INNER=1 \
	    sh "$0" -n "$runs" -r "$reps" "$al" $base
fi
d=$(mktemp -d /tmp/airlock-cgbench.XXXXXX)
# Each exec is a session with a synced audit log: kept on the disk the
# default state directory is on (/var), not in /tmp (a tmpfs on many
# hosts), and removed afterwards instead of filling /var/lib/airlock.
state=$(mktemp -d /var/tmp/airlock-cgbench-state.XXXXXX)
export AIRLOCK_HOME="$state"
ws="$d/ws"
mkdir "$ws" "$d/cg2"
mount -t cgroup2 none "$d/cg2"
mkdir "$d/cg2/airlock-bench.$$"
trap 'rmdir "$d"/cg2/airlock-bench.$$/airlock-* "$d/cg2/airlock-bench.$$" 2>/dev/null || :; umount "$d/cg2"; rm -rf "$d" "$state"' EXIT
B="bwrap --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc true"
echo "bench/cgroup_startup.sh: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "$runs runs per command per repeat, $reps repeats; ms: median p25 p75, ratio to bwrap"
out="$d/all"
: >"$out"
i=0
while [ "$i" -lt "$reps" ]; do
	i=$((i + 1))
	echo "-- repeat $i (load $(cut -d' ' -f1 /proc/loadavg))"
	set -- bwrap "$B"
	[ -z "$base" ] || set -- "$@" v1-base "$base exec -w $ws -- true"
	"$top/bench/spawnbench" "$runs" "$@" \
	    unshare "unshare -mpfnuiC --mount-proc true" \
	    nocg "AIRLOCK_CGROUP2_ROOT=$ws $al exec -w $ws -- true" \
	    v1 "$al exec -w $ws -- true" \
	    v1-attach "AIRLOCK_CGROUP_ATTACH=1 $al exec -w $ws -- true" \
	    v2 "AIRLOCK_CGROUP2_ROOT=$d/cg2/airlock-bench.$$ $al exec -w $ws -- true" \
	    v2-attach "AIRLOCK_CGROUP2_ROOT=$d/cg2/airlock-bench.$$ AIRLOCK_CGROUP_ATTACH=1 $al exec -w $ws -- true" \
	    2>"$d/err" | tee -a "$out" || { cat "$d/err" >&2; exit 1; }
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at end"
echo "summary over $reps repeats: median of medians [range] ms, ratio to bwrap median [range]"
awk -F'\t' '
{ n[$1]++; m[$1, n[$1]] = $2; r[$1, n[$1]] = $5; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
function sort(a, c,   i, j, t) { for (i = 2; i <= c; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
END {
	for (o = 1; o <= k; o++) {
		c = order[o]
		for (i = 1; i <= n[c]; i++) { x[i] = m[c, i]; y[i] = r[c, i] }
		sort(x, n[c]); sort(y, n[c])
		printf "%-10s %8.2f [%.2f..%.2f] ms  %5.2fx [%.2f..%.2f]\n", c,
		    x[int((n[c] + 1) / 2)], x[1], x[n[c]], y[int((n[c] + 1) / 2)], y[1], y[n[c]]
	}
}' "$out"
