#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# `airlock exec -- true` against bwrap with the CPUs taken: each round
# runs bench/spawnbench (RUNS each, interleaved, no gap) with 0, 1 and 2
# busy loops (`sh -c 'while :; do :; done'`, at the bench's priority)
# beside it, and prints per load the medians in ms and the ratio to
# bwrap's.  A second airlock binary BASE (an older build) is timed beside
# the first when given.  Each binary gets an AIRLOCK_HOME of its own
# under a temporary directory; the workspace is a fresh directory of it.
# Needs bwrap.
# usage: bench/start_under_load.sh [-n RUNS] [-r ROUNDS] [AIRLOCK [BASE]]
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
d=$(mktemp -d /tmp/start_under_load.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir "$d/ws" "$d/home" "$d/home-base"
cd "$d/ws"
lines=2
[ -n "$base" ] && lines=3
B="bwrap --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc true"
round=1
while [ "$round" -le "$rounds" ]; do
	for hogs in 0 1 2; do
		pids=""
		i=0
		while [ "$i" -lt "$hogs" ]; do
			sh -c 'while :; do :; done' &
			pids="$pids $!"
			i=$((i + 1))
		done
		sleep 0.3
		if [ -n "$base" ]; then
			SPAWNBENCH_GAP_MS=0 "$top/bench/spawnbench" "$runs" bwrap "$B" \
			    airlock "AIRLOCK_HOME=$d/home $airlock exec -- true" \
			    base "AIRLOCK_HOME=$d/home-base $base exec -- true" >"$d/out" 2>&1 || true
		else
			SPAWNBENCH_GAP_MS=0 "$top/bench/spawnbench" "$runs" bwrap "$B" \
			    airlock "AIRLOCK_HOME=$d/home $airlock exec -- true" >"$d/out" 2>&1 || true
		fi
		# shellcheck disable=SC2086 # one pid a word
		[ -n "$pids" ] && kill $pids
		tail -n "$lines" "$d/out" | awk -v r="$round" -v h="$hogs" \
		    '{ printf "%s %s ms %sx | ", $1, $2, $5 } END { printf "busy=%s round=%s\n", h, r }'
	done
	round=$((round + 1))
done
