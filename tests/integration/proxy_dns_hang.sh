#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The egress proxy's resolver processes, held by names that never
# resolve, attacked from inside a real sandbox.  A grant of "*.hang.test"
# lets the command choose names under a zone whose DNS server never
# answers; four such lookups used to hold all four resolver processes
# (each lookup as long as the host's resolver options allow: here 60 s),
# so every other lookup, of any sandbox the proxy serves, waited its 30 s
# and got 504.  Now a lookup has PROXY_LOOKUP_MS (10 s), after which its
# resolver is killed and replaced (checked on a standalone "airlock
# proxy": its keeper's resolvers are renewed), and one sandbox holds at
# most all resolvers but one.
#
# The test runs in a private network and mount namespace: a DNS server
# on its loopback (python3) answers real.test with 127.0.0.1 and never
# answers a name under hang.test; /etc/resolv.conf (bind-mounted) points
# at it with "options timeout:30 attempts:2".  real.test's server is a
# loopback server, reached through an explicit address rule.
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"
for c in bash python3 jq; do
	command -v $c >/dev/null || { echo "not ok - $c is missing"; exit 1; }
done

chmod 755 "$T"	# as root, runners run as nobody
"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
DNSPID=""
at_exit 'kill $DNSPID 2>/dev/null'
origin_start 300

# DNS: real.test is 127.0.0.1; a name under hang.test gets no answer at
# all; anything else NXDOMAIN.  Every query is logged.
cat > "$T/dns.py" <<'EOF'
import signal, socket, struct, sys
signal.alarm(300)  # ends by itself, whatever happens to the test
log = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('127.0.0.1', 53))
open(log, 'a').close()
while True:
    q, peer = s.recvfrom(512)
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode()); i += 1 + q[i]
    qtype, = struct.unpack('>H', q[i + 1:i + 3])
    name = '.'.join(labels).lower()
    with open(log, 'a') as f:
        f.write('%s %d\n' % (name, qtype))
    if name.endswith('.hang.test'):
        continue
    addr = '127.0.0.1' if name == 'real.test' else None
    head = q[:2] + struct.pack('>HHHHH', 0x8180 if addr else 0x8183, 1,
        1 if addr and qtype == 1 else 0, 0, 0)
    ans = b''
    if addr and qtype == 1:
        ans = b'\xc0\x0c' + struct.pack('>HHIH', 1, 1, 60, 4) + socket.inet_aton(addr)
    s.sendto(head + q[12:i + 5] + ans, peer)
EOF
python3 "$T/dns.py" "$T/dns.log" &
DNSPID=$!
printf 'nameserver 127.0.0.1\noptions timeout:30 attempts:2\n' > "$T/resolv.conf"
chmod 644 "$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf || { echo "not ok - cannot mount resolv.conf"; exit 1; }
i=0; while [ ! -e "$T/dns.log" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ws=$(make_workspace)

# hang.sh N WAIT PORT [M]: from inside the sandbox, N connections asking
# for names under hang.test, kept open; then (after WAIT s) one CONNECT
# to real.test:PORT, timed (PORT "-": none), and M more hung ones after
# it; then each hung connection's answer.
A="$T/atk"
mkdir "$A"
cat > "$A/hang.sh" <<'EOF'
#!/bin/bash
n=$1 wait=$2 sp=$3 m=${4:-0}
fds=()
hang() {
	exec {fd}<>/dev/tcp/127.0.0.1/3128 || { echo "no proxy"; exit 1; }
	printf 'CONNECT h%d.hang.test:443 HTTP/1.1\r\n\r\n' "$1" >&$fd
	fds+=("$fd")
}
for i in $(seq 1 "$n"); do hang "$i"; done
sleep "$wait"
[ "$sp" = - ] || {
t0=$(date +%s%N)
exec 3<>/dev/tcp/127.0.0.1/3128
printf 'CONNECT real.test:%s HTTP/1.1\r\n\r\nGET /hello HTTP/1.1\r\nHost: real.test\r\nConnection: close\r\n\r\n' "$sp" >&3
[ "$m" -gt 0 ] && sleep 0.5
for i in $(seq 1 "$m"); do hang $((n + i)); done
r=$(timeout 60 cat <&3 | tr -d '\r' | grep -E '^(HTTP/1\.1 |X-Airlock-Reason: |hello from)' | tr '\n' ' ')
echo "normal | $r| ms=$((($(date +%s%N) - t0) / 1000000))"
}
for fd in "${fds[@]}"; do
	r=$(timeout 60 cat <&$fd | tr -d '\r' | grep -E '^(HTTP/1\.1 |X-Airlock-Reason: )' | tr '\n' ' ')
	echo "hung | $r"
done
EOF
chmod +x "$A/hang.sh"
ms_of() { printf '%s\n' "$1" | sed -n 's/^normal | .*| ms=\([0-9]*\)$/\1/p'; }

# The pool works: an allowed name is reached at once.
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" --allow-host "real.test:$SP" \
    --allow-host "127.0.0.1:$SP" -- "$A/hang.sh" 0 0 "$SP" 2>&1)
expect_contains "an allowed name is reached through the proxy" "$out" \
    "normal | HTTP/1.1 200 Connection established HTTP/1.1 200 OK hello from"

# The attack in one sandbox: four lookups that never end, then one of a
# name that resolves at once, then three more that never end.  It waits
# for a resolver until the first hung lookups' deadline (10 s), not for
# the host's 60 s nor the 30 s after which it used to get 504, nor for
# the hung lookups asked after it (oldest first); the hung ones get 504
# naming the lookup's deadline.
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" --allow-host "real.test:$SP" \
    --allow-host "127.0.0.1:$SP" --allow-host "*.hang.test:443" -- \
    "$A/hang.sh" 4 1 "$SP" 3 2>&1)
printf '%s\n' "$out" | sed 's/^/# /'
expect_contains "with four hung lookups, an allowed name is still reached" "$out" \
    "normal | HTTP/1.1 200 Connection established HTTP/1.1 200 OK hello from"
ms=$(ms_of "$out")
if [ -n "$ms" ] && [ "$ms" -lt 15000 ]; then
	pass "... within the first hung lookups' deadline, not the 30 s queue deadline ($ms ms)"
else
	fail "... within the first hung lookups' deadline, not the 30 s queue deadline (${ms:-?} ms)"
fi
expect_eq "every hung lookup is answered 504, naming the lookup's deadline" \
    "$(printf '%s\n' "$out" | grep -c '^hung | HTTP/1.1 504 Gateway Timeout X-Airlock-Reason: name lookup of h[0-9].hang.test timed out: no answer within 10 s')" "7"
expect_contains "the hung names were asked of the DNS server" "$(cat "$T/dns.log")" "h1.hang.test 1"

# The attack across sandboxes: one tool call of a session ("hang") holds
# four names under hang.test while another call of the same session
# ("fetch", a sandbox of its own, served by the same proxy) asks for
# real.test.  The hung call holds three of the four resolvers, not the
# fourth: the other call's lookup does not wait at all (it used to wait
# 30 s, and get 504).
cat > "$T/m.yaml" <<YAML
tools:
  - name: hang
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 60000
    command: ["bash", "hang.sh", "4", "0", "-"]
    network: ["*.hang.test:443"]
  - name: fetch
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 60000
    command: ["bash", "hang.sh", "0", "0", "$SP"]
    network: ["real.test:$SP"]
    allowAddresses: ["127.0.0.1:$SP"]
runBudget:
  maxParallelProcesses: 2
YAML
cp "$A/hang.sh" "$ws/hang.sh"
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; "$AIRLOCK" check "$T/m.yaml"; exit 1; }
: > "$T/dns.log"
: > "$T/serve.out"
{
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hang","arguments":{}}}'
	# The fetch call once the hung lookups are in flight.
	i=0; while [ "$(grep -o 'h[0-9].hang.test' "$T/dns.log" | sort -u | wc -l)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fetch","arguments":{}}}'
	i=0; while [ "$(grep -c '"id":[23],"result"' "$T/serve.out")" -lt 2 ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
} | timeout 120 "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" >"$T/serve.out" 2>"$T/serve.err"
fetch=$(jq -r 'select(.id == 3) | .result.structuredContent.stdout' "$T/serve.out")
hang=$(jq -r 'select(.id == 2) | .result.structuredContent.stdout' "$T/serve.out")
printf '%s\n%s\n' "$fetch" "$hang" | sed 's/^/# /'
expect_contains "another call's allowed name is reached while a call holds four hung lookups" "$fetch" \
    "normal | HTTP/1.1 200 Connection established HTTP/1.1 200 OK hello from"
ms=$(ms_of "$fetch")
if [ -n "$ms" ] && [ "$ms" -lt 5000 ]; then
	pass "... without waiting for the hung lookups ($ms ms)"
else
	fail "... without waiting for the hung lookups (${ms:-?} ms)"
fi
expect_eq "... which were still hung then, and each answered 504 at its deadline" \
    "$(printf '%s\n' "$hang" | grep -c '^hung | HTTP/1.1 504 Gateway Timeout X-Airlock-Reason: name lookup of h[0-9].hang.test timed out')" "4"

# The resolvers of hung lookups are killed, not left inside getaddrinfo()
# (here for 60 s more): after three lookups reach their deadline, the
# keeper of a standalone "airlock proxy" has four resolvers again, and
# only one of the four it had before (the one that was idle).
"$AIRLOCK" proxy --listen 127.0.0.1:0 --port-file "$T/pport" \
    --allow '*.hang.test:443' 2>"$T/proxy.err" &
PXPID=$!
at_exit 'kill $PXPID 2>/dev/null'
resolvers() { for k in $(pgrep -P "$PXPID"); do pgrep -P "$k"; done | sort; }
four() { [ -s "$T/pport" ] && [ "$(resolvers | wc -l)" -eq 4 ]; }
check "the standalone proxy has its keeper and four resolvers (sanity)" wait_for four
before=$(resolvers)
read -r PP < "$T/pport"
bash -c 'for i in 1 2 3; do exec {fd}<>/dev/tcp/127.0.0.1/'"$PP"'; printf "CONNECT k%d.hang.test:443 HTTP/1.1\r\n\r\n" $i >&$fd; fds+=($fd); done
    for fd in "${fds[@]}"; do timeout 30 head -n 1 <&$fd | tr -d "\r"; echo; done' >"$T/k.out"
expect_eq "the three hung lookups are answered 504" \
    "$(grep -c '^HTTP/1.1 504 Gateway Timeout' "$T/k.out")" "3"
renewed() {
	now=$(resolvers)
	[ "$(printf '%s\n' "$now" | wc -l)" -eq 4 ] &&
	    [ "$(printf '%s\n' "$before" "$now" | sort | uniq -d | wc -l)" -eq 1 ]
}
check "... and the keeper has four resolvers again, three of them new: the hung ones were killed" \
    wait_for renewed
finish
