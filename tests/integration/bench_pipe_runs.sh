#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The throughput bench (bench/pipe.sh, issue 14 item 3) still runs through
# to its figures: its manifest (bench/bench.yaml) once left the run budget
# at its defaults, and maxRefusedCalls (10000) stopped the session half way
# through the refused calls it measures.  A run of a little over 10000
# calls of each kind, one repeat: what it prints is checked, not timed.
. "$top_srcdir/tests/lib.sh"
ws="$T/ws"
mkdir -p "$ws"
head -c 4096 /dev/zero | tr '\0' 'a' >"$ws/data4k.txt"
"$top_builddir/bench/mcp_pipe" "$ws" "$top_srcdir/bench/bench.yaml" 10050 1 64 \
    "$AIRLOCK" >"$T/out" 2>"$T/err"
expect_eq "bench/mcp_pipe runs to its end" "$?" 0
for kind in "ping" "tools/call refused (path)" "tools/call read_file 4 KiB"; do
	check "...and prints $kind" grep -qF "$kind" "$T/out"
done
expect_eq "...with no session stopped on the way" "$(grep -c 'budget' "$T/err")" 0
finish
