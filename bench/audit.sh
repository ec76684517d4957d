#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# bench/audit.sh [DIR]: audit appends per second (medians over 7 runs),
# signed+chained against plain writes, with and without fdatasync.
# DIR defaults to a fresh directory under /var/tmp (a real disk, not a
# tmpfs, so fdatasync costs what it costs in production).
set -eu
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
dir=${1:-}
if [ -z "$dir" ]; then
	dir=$(mktemp -d /var/tmp/airlock-audit-bench.XXXXXX)
	trap 'rm -rf "$dir"' EXIT
fi
make -C "$top_builddir" -s bench/audit_bench >/dev/null
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r) $(nproc) cpus; dir $dir ($(df -T "$dir" | awk 'NR == 2 { print $2 }'))"
"$top_builddir/bench/audit_bench" -r 7 -n 20000 -s 300 "$dir"
