#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The egress proxy out of descriptors: its RLIMIT_NOFILE is lowered from
# outside (prlimit) to what it holds, and a sandboxed command connects.
# accept() fails with EMFILE and the connection stays queued, so the
# listener stays readable: the proxy used to call accept() again at once,
# spinning at full CPU and logging a line a pass.  Now it logs once, stops
# watching its listeners for a moment, and serves the queued connection
# once descriptors are free again.
. "$top_srcdir/tests/lib.sh"
for c in prlimit setpriv; do
	command -v $c >/dev/null || { echo "not ok - $c (util-linux) is missing"; exit 1; }
done
chmod 755 "$T"
ws=$(make_workspace)
A="$T/atk" D="$T/io"
mkdir "$A" "$D"
chmod 777 "$D"
cat > "$A/ask.sh" <<'SH'
#!/bin/bash
# ask.sh DIR: says it is up, waits for DIR/go, then asks the proxy once.
touch "$1/ready"
while [ ! -e "$1/go" ]; do sleep 0.05; done
exec 3<>/dev/tcp/127.0.0.1/3128 || { echo "no proxy"; exit 3; }
printf 'CONNECT evil.test:443 HTTP/1.1\r\n\r\n' >&3
touch "$1/sent"
timeout 30 head -n 1 <&3 | tr -d '\r'
SH
chmod 755 "$A/ask.sh"

timeout 90 "$AIRLOCK" exec --workspace "$ws" --ro "$A" --rw "$D" \
    --allow-host example.com:443 -- "$A/ask.sh" "$D" >"$T/out" 2>"$T/err" &
tpid=$!
found() { proxy=$(exec_proxy_pid "$tpid") && [ -n "$proxy" ]; }
check "the exec's proxy is found (sanity)" wait_for found
# The command runs once the proxy serves its listener.
check "the command is up (sanity)" wait_for test -e "$D/ready"
# The lowest descriptor number the proxy does not hold: with it as the
# soft limit, every new descriptor fails with EMFILE.
fd=0
while [ -e "/proc/$proxy/fd/$fd" ]; do fd=$((fd + 1)); done
# prlimit as the proxy's own user (root here may lack CAP_SYS_RESOURCE).
puid=$(awk '/^Uid:/ { print $2 }' "/proc/$proxy/status")
pgid=$(awk '/^Gid:/ { print $2 }' "/proc/$proxy/status")
nofile() {
	setpriv --reuid "$puid" --regid "$pgid" --clear-groups \
	    prlimit --pid "$proxy" "$@"
}
soft=$(nofile --nofile --noheadings --output SOFT)
check "the proxy's descriptors are limited to the $fd it holds (sanity)" \
    nofile --nofile="$fd:"
ticks() { awk '{ print $14 + $15 }' "/proc/$proxy/stat"; }
touch "$D/go"
check "the command connected (sanity)" wait_for test -e "$D/sent"
t0=$(ticks)
sleep 2
t1=$(ticks)
used=$((t1 - t0))
hz=$(getconf CLK_TCK)
# A spinning proxy used the whole 2 s (about 200 ticks of 100 Hz here,
# fewer beside the rest of the suite); a waiting one, next to nothing.
check "the proxy does not spin without descriptors ($used ticks of $hz Hz in 2 s)" \
    test "$used" -lt $((hz / 5))
nlog=$(grep -c 'accept' "$T/err")
check "it says so once, not once a pass ($nlog lines)" test "$nlog" -le 1
expect_contains "... naming the listener and the error" "$(head -n 1 "$T/err")" \
    "accept on exec (not accepting for 250 ms at a time until it succeeds): Too many open files"
check "the proxy is still running" kill -0 "$proxy"
# Descriptors free again: the queued connection is served.
check "the limit is restored (sanity)" nofile --nofile="$soft:"
wait "$tpid"
expect_eq "the exec ends with the command's status" "$?" 0
expect_eq "the queued connection is answered once descriptors are free" \
    "$(cat "$T/out")" "HTTP/1.1 403 Forbidden"
expect_eq "... and recorded in exec_end" \
    "$(jq -c 'select(.event == "exec_end") | .fields.egress | [.connections, .refused]' \
    "$(newest_session_log)")" "[1,1]"
finish
