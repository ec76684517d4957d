#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The replies of one turn of the broker's loop leave in one write
# (broker/conn.c, conn_send()): an agent that pipelines 500 pings is
# answered in a handful of writes, not in one system call a reply (which
# capped ping throughput, bench/pipe.sh), and every reply is there, in
# order.  Watched from outside with strace on "airlock serve", its stdout
# a pipe as an agent's is.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
# LeakSanitizer cannot run under ptrace (strace below) and makes a
# sanitizer build exit 1: leaks are checked by the other tests.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mcp_env
ws=$(make_workspace)
N=500

{
	printf '%s\n' "$MCP_INIT" "$MCP_READY"
	awk -v n="$N" 'BEGIN { for (i = 2; i < n + 2; i++)
	    printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i }'
} >"$T/in"
strace -f -qq -s 40 -e trace=write,sendto,writev -e signal=none \
    -o "$T/trace" "$AIRLOCK" serve --workspace "$ws" <"$T/in" 2>"$T/err" |
    cat >"$T/out"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || sed 's/^/# serve: /' "$T/err"
expect_eq "serve exits 0 at the end of its input" "$status" 0
expect_eq "every ping is answered" "$(grep -c '"result":{}' "$T/out")" "$N"
expect_eq "... in order" \
    "$(jq -r 'select(.result == {}) | .id' "$T/out" | awk '$1 != NR + 1 { bad++ } END { print bad + 0 }')" 0
# The writes that carry replies: their text starts as a reply does.
writes=$(grep -cE '^[0-9]+ +(write|sendto|writev)\([0-9]+, "\{\\"jsonrpc\\":\\"2\.0\\",\\"id\\":' "$T/trace")
check "replies were written (sanity: $writes writes)" test "$writes" -gt 0
check "$N replies leave in at most 50 writes ($writes)" test "$writes" -le 50
finish
