#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec stops its egress proxy (--allow-host) after the command,
# and a proxy that does not stop is killed: the exec still ends, with
# the command's status and its exec_end on the disk.  The proxy is held
# with SIGSTOP from outside (a stopped process does not act on SIGTERM;
# a real proxy could be stuck in the kernel or spinning).  airlock exec
# waited for it for good: no exit, no exec_end.  The broker's proxy is
# stopped by the same code (tests/unit/test_egress floods it instead).
. "$top_srcdir/tests/lib.sh"
chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws"

# A bound on the exec, so that the old behaviour fails instead of hanging.
timeout 60 "$AIRLOCK" exec --workspace "$ws" --allow-host example.com:443 \
    -- sh -c 'sleep 3; exit 7' >"$T/out" 2>"$T/err" &
tpid=$!
# The exec (timeout's child) and its proxy (tests/lib.sh).
found() { proxy=$(exec_proxy_pid "$tpid") && [ -n "$proxy" ]; }
check "the exec's proxy is found (sanity)" wait_for found
resolvers_up() {
	keeper=$(pgrep -P "${proxy:-0}" | tr '\n' ' ')
	resolvers="$keeper $(for k in $keeper; do pgrep -P "$k"; done | tr '\n' ' ')"
	[ "$(echo $resolvers | wc -w)" -eq 5 ]
}
check "the proxy has its resolver keeper, and the keeper its four resolvers (sanity: it is the proxy)" \
    wait_for resolvers_up
# Not found (a loaded machine: the command ended first): stop here, since
# "kill -STOP 0" would stop this test's whole process group, make too.
if [ -z "$proxy" ]; then
	kill "$tpid" 2>/dev/null
	wait "$tpid"
	finish
	exit 1
fi
kill -STOP "$proxy"
start=$(date +%s)
wait "$tpid"
status=$?
took=$(($(date +%s) - start))
expect_eq "the exec ends with the command's status" "$status" 7
check "within the proxy's 5 s and a margin ($took s)" test "$took" -le 20
expect_contains "it says the proxy was killed" "$(cat "$T/err")" \
    "the egress proxy did not stop: killed"
gone() { ! kill -0 "$1" 2>/dev/null; }
check "the proxy is gone" wait_for gone "$proxy"
for r in $resolvers; do
	check "its resolver $r is gone" wait_for gone "$r"
done
log=$(newest_session_log)
expect_eq "exec_end is in the audit log, with the status" \
    "$(jq -c 'select(.event == "exec_end") | .fields.exitCode' "$log")" 7
check "the log verifies" "$AIRLOCK" audit verify "$log"

# A proxy that stops when told to ends the exec at once, with no word.
start=$(date +%s%N)
"$AIRLOCK" exec --workspace "$ws" --allow-host example.com:443 -- true \
    2>"$T/err2"
expect_eq "an exec with a proxy that stops: status 0" "$?" 0
took=$((($(date +%s%N) - start) / 1000000))
# An exec that waited out the proxy's 5 s takes that and its own time
# (138 ms here); the bound leaves room for an ASan build on a loaded
# machine, where the exec alone has taken seconds.
check "... in well under the proxy's 5 s ($took ms < 4500 ms)" test "$took" -lt 4500
expect_eq "... and nothing about the proxy on stderr" \
    "$(grep -c 'egress proxy' "$T/err2")" 0

finish
