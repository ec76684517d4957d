#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Pipelined broker throughput with the signed audit log on: ping, a refused
# tools/call and read_file of 4 KiB through one "airlock serve" session,
# DEPTH requests in flight, for one or more airlock binaries interleaved.
# usage: bench/pipe.sh [-n N] [-r REPEATS] [-d DEPTH] [AIRLOCK...]
# (default: 20000 requests, 7 repeats, 64 in flight, ./airlock)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=20000 reps=7 depth=64
while getopts n:r:d: o; do
	case $o in
	n) n=$OPTARG ;;
	r) reps=$OPTARG ;;
	d) depth=$OPTARG ;;
	*) echo "usage: bench/pipe.sh [-n N] [-r REPEATS] [-d DEPTH] [AIRLOCK...]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$top/airlock"
ws=$(mktemp -d /tmp/airlock-pipe.XXXXXX)
export AIRLOCK_HOME="$ws.state" AIRLOCK_RUNTIME_DIR="$ws.run"
trap 'rm -rf "$ws" "$ws.state" "$ws.run"' EXIT
head -c 4096 /dev/zero | tr '\0' 'a' >"$ws/data4k.txt"
make -s -C "$top" bench/mcp_pipe >/dev/null
echo "bench/pipe.sh: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$top/bench/mcp_pipe" "$ws" "$top/bench/bench.yaml" "$n" "$reps" "$depth" "$@"
echo "signed audit records written: $(cat "$ws.state"/sessions/*/audit.jsonl | wc -l)"
