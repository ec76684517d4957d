#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# bench/wsindex_ab.sh [-r ROUNDS] BASE_BUILDDIR [FILES] [DIR]: a refresh
# with nothing changed of this tree's workspace index against another
# build's (BASE_BUILDDIR, with bench/wsindex_bench built) and git status,
# on the tree of FILES files (default 100000) that bench/wsindex.sh made
# under DIR (default /var/tmp/airlock-wsindex), in ROUNDS rounds
# (default 6) whose order rotates.  Prints each one's times and medians.
set -eu
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
rounds=6
while getopts r: o; do
	case $o in
	r) rounds=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] BASE_BUILDDIR [FILES] [DIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-r ROUNDS] BASE_BUILDDIR [FILES] [DIR]" >&2; exit 2; }
base=$1
files=${2:-100000}
tree=${3:-/var/tmp/airlock-wsindex}/t$files
[ -f "$tree/.done" ] || { echo "$0: no tree $tree: run sh bench/wsindex.sh -s $files first" >&2; exit 1; }
make -C "$top_builddir" -s bench/wsindex_bench >/dev/null
[ -x "$base/bench/wsindex_bench" ] || make -C "$base" -s bench/wsindex_bench >/dev/null
new=$top_builddir/bench/wsindex_bench
old=$base/bench/wsindex_bench
cd "$tree"
git status >/dev/null
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); t$files, $rounds rounds; ms"
r=0
while [ $r -lt "$rounds" ]; do
	for k in 0 1 2; do
		case $(((k + r) % 3)) in
		0) printf 'base %s\n' "$("$old" index . | sed -n 's/^noop //p')" ;;
		1) printf 'this %s\n' "$("$new" index . | sed -n 's/^noop //p')" ;;
		2) printf 'gitst %s\n' "$("$new" time git status --porcelain)" ;;
		esac
	done
	r=$((r + 1))
done | awk '
{ n[$1]++; v[$1, n[$1]] = $2 }
END {
	split("base this gitst", ks, " ")
	for (i = 1; i <= 3; i++) {
		k = ks[i]; m = n[k]
		for (a = 1; a <= m; a++) x[a] = v[k, a]
		for (a = 2; a <= m; a++) for (b = a; b > 1 && x[b-1] > x[b]; b--) { t = x[b]; x[b] = x[b-1]; x[b-1] = t }
		line = ""
		for (a = 1; a <= m; a++) line = line sprintf(" %.0f", x[a])
		med[k] = m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
		printf "%-6s%s  median %.0f\n", k, line, med[k]
	}
	printf "this/gitst %.2fx   base/gitst %.2fx\n", med["this"] / med["gitst"], med["base"] / med["gitst"]
}'
