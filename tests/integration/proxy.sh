#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The egress proxy ("airlock proxy") against loopback servers that stand
# in for the internet.  The whole test runs in a private network and
# mount namespace: its own lo is the only interface, so even a broken
# proxy could not send a packet off this machine, and /etc/hosts is a
# bind-mounted temporary file that maps test names to every forbidden
# address class.
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"

"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
cat > "$T/hosts" <<'EOF'
127.0.0.1	localhost allowed.test a.wild.test b.a.wild.test wild.test badwild.test
127.0.0.1	allowed-ip.forbidden.test
10.0.0.5	private.forbidden.test
172.16.3.4	private172.forbidden.test
192.168.1.1	private192.forbidden.test
100.64.0.1	cgnat.forbidden.test
127.0.0.2	loop2.forbidden.test
169.254.169.254	meta.forbidden.test
169.254.1.1	linklocal.forbidden.test
0.0.0.0		zero.forbidden.test
0.1.2.3		thisnet.forbidden.test
224.0.0.1	mcast.forbidden.test
255.255.255.255	bcast.forbidden.test
::1		v6loop.forbidden.test
fd00:ec2::254	v6meta.forbidden.test
fd12:3456::1	ula.forbidden.test
fe80::1		v6linklocal.forbidden.test
::ffff:10.0.0.5	mapped.forbidden.test
::127.0.0.1	compat.forbidden.test
64:ff9b::a9fe:a9fe	nat64.forbidden.test
64:ff9b:1::1	nat64local.forbidden.test
2002:a00:5::1	sixtofour.forbidden.test
ff02::1		v6mcast.forbidden.test
127.0.0.1	mixed.forbidden.test
10.0.0.5	mixed.forbidden.test
EOF
chmod 644 "$T/hosts"
mount --bind "$T/hosts" /etc/hosts || { echo "not ok - cannot mount hosts"; exit 1; }
# A DNS server on this netns's loopback that never answers.
printf 'nameserver 127.0.0.1\noptions timeout:2 attempts:1\n' > "$T/resolv.conf"
chmod 644 "$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf || { echo "not ok - cannot mount resolv.conf"; exit 1; }
"$H" udp-sink 60 &
DNSPID=$!

origin_start 120

PIDS=""
cleanup() {
	for p in $PIDS $DNSPID; do kill "$p" 2>/dev/null; done
}
at_exit cleanup

# start_proxy NAME ARGS...: starts a proxy; sets PORT_NAME and PID_NAME.
start_proxy() {
	name=$1; shift
	rm -f "$T/$name.port"
	"$AIRLOCK" proxy --listen 127.0.0.1:0 --port-file "$T/$name.port" \
	    --events "$T/$name.events" "$@" 2>"$T/$name.err" &
	pid=$!
	PIDS="$PIDS $pid"
	i=0; while [ ! -s "$T/$name.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	eval "PORT_$name=\$(cat \"\$T/\$name.port\")"
	eval "PID_$name=$pid"
}

# ask PORT REQUEST [req options]: REQUEST is printf %b text.
ask() { p=$1; r=$2; shift 2; printf '%b' "$r" | "$H" req 127.0.0.1 "$p" "$@" 2>/dev/null; }

start_proxy main --allow "allowed.test:$SP" --allow "*.wild.test:$SP" \
    --allow "*.forbidden.test:$SP" --allow "localhost:$SP" \
    --allow-ip "127.0.0.1/32:$SP"
P=$PORT_main

# --- allowed traffic ------------------------------------------------------
out=$(ask $P "GET http://allowed.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "plain GET to an allowed host is forwarded" "$out" "HTTP/1.1 200 OK"
expect_contains "plain GET returns the origin's body" "$out" "hello from airlock test server"

out=$(ask $P "CONNECT allowed.test:$SP HTTP/1.1\r\nHost: allowed.test:$SP\r\n\r\nGET /hello HTTP/1.1\r\nHost: allowed.test:$SP\r\nConnection: close\r\n\r\n")
expect_contains "CONNECT to an allowed host is established" "$out" "HTTP/1.1 200 Connection established"
expect_contains "bytes flow through the CONNECT tunnel" "$out" "hello from airlock test server"

out=$(ask $P "GET http://allowed.test:$SP/echo?q=1 HTTP/1.1\r\nHost: evil.test\r\nProxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\nConnection: x-hop, X-Other\r\nX-Hop: 1\r\nx-other: 2\r\nX-Kept: yes\r\n\r\n")
expect_contains "absolute-form is rewritten to origin-form" "$out" "GET /echo?q=1 HTTP/1.1"
expect_contains "Host header is set from the request URI" "$out" "Host: allowed.test:$SP"
expect_not_contains "client Host header is not forwarded" "$out" "evil.test"
expect_not_contains "Proxy-Authorization is stripped" "$out" "c2VjcmV0"
expect_not_contains "Proxy-Connection is stripped" "$out" "Proxy-Connection"
expect_contains "other headers pass through" "$out" "X-Kept: yes"
expect_not_contains "headers named in Connection are hop-by-hop" "$out" "X-Hop"
expect_not_contains "all headers named in Connection are removed" "$out" "x-other"
expect_contains "forwarded request asks the origin to close" "$out" "Connection: close"

out=$(ask $P "GET http://allowed.test:$SP/redirect HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "a redirect is passed to the client, not followed" "$out" "302 Found"
expect_contains "redirect target is left to the client" "$out" "Location: http://169.254.169.254/"

out=$(ask $P "GET http://ALLOWED.TEST.:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "host names are case-insensitive, trailing dot ignored" "$out" "200 OK"

out=$(ask $P "GET http://[::ffff:127.0.0.1]:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "IPv4-mapped literal covered by the IP rule is allowed" "$out" "200 OK"

out=$(ask $P "GET http://nohost.wild.test:$SP/ HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "an allowed name that does not resolve gets 502" "$out" "X-Airlock-Reason: cannot resolve nohost.wild.test"

# A lookup that hangs (the DNS server above never answers) must not stall
# the proxy for everybody else: lookups run in resolver processes.
printf 'GET http://hangs.wild.test:%s/ HTTP/1.1\r\nHost: x\r\n\r\n' "$SP" | \
    "$H" req 127.0.0.1 $P >"$T/hang.out" 2>"$T/hang.err" &
hangpid=$!
# Poll (up to 5 s) until the hanging request's connection is up.
i=0; while [ "$(ss -Htn state established "( dport = :$P )" | wc -l)" -lt 1 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
t=$(printf 'GET http://allowed.test:%s/hello HTTP/1.1\r\nHost: x\r\n\r\n' "$SP" | "$H" req 127.0.0.1 $P 2>&1 >"$T/fast.out")
ms=${t#elapsed_ms=}
if grep -q "200 OK" "$T/fast.out" && [ "$ms" -lt 1000 ]; then pass "a hanging lookup does not stall other requests (${ms} ms)"
else fail "a hanging lookup does not stall other requests ($t)"; fi
wait $hangpid
expect_contains "the hanging lookup ends in 502" "$(cat "$T/hang.out")" "X-Airlock-Reason: cannot resolve hangs.wild.test"
ms=$(sed -n 's/elapsed_ms=//p' "$T/hang.err")
if [ "$ms" -ge 1000 ]; then pass "the lookup really hung (${ms} ms)"; else fail "the lookup really hung (${ms} ms)"; fi

# --- refused by the allowlist -----------------------------------------------
out=$(ask $P "CONNECT evil.test:443 HTTP/1.1\r\n\r\n")
expect_contains "host outside the allowlist gets 403" "$out" "HTTP/1.1 403 Forbidden"
expect_contains "403 names the refusing rule" "$out" "X-Airlock-Reason: host not in allowlist: evil.test:443"
out=$(ask $P "CONNECT allowed.test:$((SP + 1)) HTTP/1.1\r\n\r\n")
expect_contains "allowed host on another port is refused" "$out" "host not in allowlist: allowed.test:$((SP + 1))"

out=$(ask $P "GET http://a.wild.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "wildcard matches a subdomain" "$out" "200 OK"
out=$(ask $P "GET http://b.a.wild.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "wildcard matches a deeper subdomain" "$out" "200 OK"
out=$(ask $P "GET http://wild.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "wildcard does not match the bare domain" "$out" "host not in allowlist: wild.test:$SP"
out=$(ask $P "GET http://badwild.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "wildcard does not match a suffix without a dot" "$out" "host not in allowlist: badwild.test:$SP"
out=$(ask $P "GET http://a.wild.test.evil.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "wildcard does not match as an infix" "$out" "403 Forbidden"

# --- refused by address class (names resolve via the private /etc/hosts) ----
while read -r name want; do
	out=$(ask $P "GET http://$name:$SP/ HTTP/1.1\r\nHost: x\r\n\r\n")
	case "$out" in
	*"403 Forbidden"*"X-Airlock-Reason: "*"$want"*) pass "resolved address refused: $name ($want)" ;;
	*) fail "resolved address refused: $name ($want)"; printf '  got: %s\n' "$out" | head -8 ;;
	esac
done <<EOF
private.forbidden.test address 10.0.0.5 is private (RFC 1918)
private172.forbidden.test address 172.16.3.4 is private (RFC 1918)
private192.forbidden.test address 192.168.1.1 is private (RFC 1918)
cgnat.forbidden.test CGNAT
loop2.forbidden.test address 127.0.0.2 is loopback
meta.forbidden.test address 169.254.169.254 is cloud metadata
linklocal.forbidden.test link-local
zero.forbidden.test unspecified
thisnet.forbidden.test this network
mcast.forbidden.test multicast
bcast.forbidden.test broadcast
v6loop.forbidden.test address ::1 is loopback
v6meta.forbidden.test cloud metadata (fd00:ec2::254)
ula.forbidden.test unique local
v6linklocal.forbidden.test link-local (fe80::/10)
mapped.forbidden.test 10.0.0.5, private
compat.forbidden.test IPv4-compatible address embedding 127.0.0.1
nat64.forbidden.test NAT64 address embedding 169.254.169.254
nat64local.forbidden.test local-use NAT64
sixtofour.forbidden.test 6to4 address embedding 10.0.0.5
v6mcast.forbidden.test multicast (ff00::/8)
mixed.forbidden.test address 10.0.0.5 is private
EOF
out=$(ask $P "GET http://localhost:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "a name that resolves to an IP-rule address is allowed" "$out" "200 OK"
out=$(ask $P "GET http://allowed-ip.forbidden.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "the IP rule is the exception for a forbidden class" "$out" "200 OK"

# --- raw IP literals ----------------------------------------------------------
for lit in 169.254.169.254:80 10.0.0.5:443 "[fd00:ec2::254]:80" "[::1]:$SP" \
    "[::ffff:169.254.169.254]:80" "[64:ff9b::a00:5]:80" 127.0.0.2:$SP; do
	out=$(ask $P "CONNECT $lit HTTP/1.1\r\n\r\n")
	expect_contains "IP literal $lit refused by address class" "$out" "X-Airlock-Reason: address "
done
for lit in 2130706433 0177.0.0.1 0x7f.0.0.1 0x7f000001 127.1 127.0.0.01; do
	out=$(ask $P "CONNECT $lit:$SP HTTP/1.1\r\n\r\n")
	expect_contains "non-canonical IPv4 literal $lit refused" "$out" "non-canonical IPv4 literal"
done
out=$(ask $P "GET http://user@allowed.test:$SP/ HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "userinfo in the request URI is refused" "$out" "400 Bad Request"

# --- SOCKS5 (RFC 1928) on the same port ----------------------------------------
# socks5 NAME PORT: a no-auth greeting and a CONNECT to NAME:PORT, as %b text
socks5() {
	printf '\\05\\01\\00\\05\\01\\00\\03\\0%03o%s\\0%03o\\0%03o' "${#1}" "$1" $(($2 / 256)) $(($2 % 256))
}
out=$(ask $P "$(socks5 allowed.test $SP)GET /hello HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n")
expect_contains "SOCKS5 CONNECT to an allowed host is tunnelled" "$out" "hello from airlock test server"
rep=$(ask $P "$(socks5 evil.test 443)" | od -An -tx1 | tr -d ' \n')
expect_eq "SOCKS5 CONNECT to a host outside the allowlist is refused" "$rep" "050005020001000000000000"
rep=$(ask $P "$(socks5 meta.forbidden.test $SP)" | od -An -tx1 | tr -d ' \n')
expect_eq "SOCKS5 CONNECT to a name resolving to metadata is refused" "$rep" "050005020001000000000000"
rep=$(ask $P "\05\01\00\05\01\00\01\0251\0376\0251\0376\00\0120" | od -An -tx1 | tr -d ' \n')
expect_eq "SOCKS5 CONNECT to the metadata IPv4 address is refused" "$rep" "050005020001000000000000"
rep=$(ask $P "$(socks5 2130706433 $SP)" | od -An -tx1 | tr -d ' \n')
expect_eq "SOCKS5 non-canonical IPv4 name is refused" "$rep" "050005010001000000000000"
rep=$(ask $P "\05\01\02" | od -An -tx1 | tr -d ' \n')
expect_eq "SOCKS5 without the no-auth method is refused" "$rep" "05ff"
rep=$(ask $P "\05\01\00\05\02\00\01\0177\00\00\01\00\0120" | od -An -tx1 | tr -d ' \n')
expect_eq "SOCKS5 BIND is refused" "$rep" "050005010001000000000000"
# The events are written after the reply: poll (up to 5 s) for the last.
i=0; while ! grep -q 'address 169.254.169.254 is cloud metadata' "$T/main.events" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ev=$(cat "$T/main.events")
expect_contains "SOCKS5 denials are audited with the reason" "$ev" '"method":"SOCKS5","host":"evil.test","port":443,"address":"","decision":"deny","rule":"","reason":"host not in allowlist: evil.test:443"'
expect_contains "SOCKS5 metadata denial names the address" "$ev" 'address 169.254.169.254 is cloud metadata'

# --- malformed and oversized requests -----------------------------------------
long=$(head -c 9000 /dev/zero | tr '\0' a)
out=$(ask $P "GET http://allowed.test:$SP/$long HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "request line over 8 KiB is refused" "$out" "X-Airlock-Reason: request line longer than 8192 bytes"
hdr=$(head -c 1000 /dev/zero | tr '\0' b)
reqh="GET http://allowed.test:$SP/hello HTTP/1.1\r\n"
i=0; while [ $i -lt 40 ]; do reqh="${reqh}X-Big-$i: $hdr\r\n"; i=$((i + 1)); done
out=$(ask $P "$reqh\r\n")
expect_contains "request head over 32 KiB is refused with 431" "$out" "HTTP/1.1 431 Request Header Fields Too Large"
out=$(ask $P "GET https://allowed.test:$SP/ HTTP/1.1\r\nHost: x\r\n\r\n")
expect_contains "https absolute-form is refused (use CONNECT)" "$out" "400 Bad Request"
out=$(ask $P "GET /hello HTTP/1.1\r\nHost: allowed.test\r\n\r\n")
expect_contains "origin-form request is not proxied" "$out" "only absolute http://"
out=$(ask $P "GET http://allowed.test:$SP/ HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n")
expect_contains "obsolete header folding is refused" "$out" "folded header line"
out=$(ask $P "GET http://allowed.test:$SP/ HTTP/1.1\r\nX-A: 1\rX-Smuggled: 2\r\n\r\n")
expect_contains "a bare CR inside a header is refused" "$out" "bare CR in request head"

# Garbage of every shape: the proxy answers or closes, and keeps serving.
g0=$(date +%s)
i=0
while [ $i -lt 60 ]; do
	n=$(( (i * 97) % 3000 + 1 ))
	case $((i % 4)) in
	0) head -c $n /dev/urandom ;;
	1) head -c $n /dev/urandom | tr -d '\000' ;;
	2) printf 'GET http://allowed.test:%s/' "$SP"; head -c $n /dev/urandom | tr -d '\000\n' ; printf '\r\n\r\n' ;;
	3) printf 'CONNECT '; head -c $n /dev/urandom | tr -dc 'a-z0-9.:[]%@-' ; printf ' HTTP/1.1\r\n\r\n' ;;
	esac | "$H" req 127.0.0.1 $P --count --timeout 2000 >/dev/null 2>&1
	i=$((i + 1))
done
out=$(ask $P "GET http://allowed.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n")
echo "# garbage took $(( $(date +%s) - g0 )) s"
expect_contains "the proxy still serves after 60 garbage requests" "$out" "200 OK"
kill -0 "$PID_main" 2>/dev/null
expect_eq "the proxy process survived the garbage" "$?" "0"

# --- limits ---------------------------------------------------------------------
start_proxy closed --allow-ip "127.0.0.1/32:1"
out=$(ask $PORT_closed "CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n")
expect_contains "a refused outbound connect gets 502 with the cause" "$out" "X-Airlock-Reason: connect to 127.0.0.1 port 1 failed: Connection refused"

start_proxy cap --allow "allowed.test:$SP" --allow-ip "127.0.0.1/32:$SP" --max-bytes 100000
out=$(ask $PORT_cap "GET http://allowed.test:$SP/size/1000000 HTTP/1.1\r\nHost: x\r\n\r\n" --count)
n=${out#bytes=}
if [ "$n" -le 100000 ] && [ "$n" -ge 50000 ]; then pass "byte cap stops a large response ($n bytes)"
else fail "byte cap stops a large response ($out)"; fi
out=$(ask $PORT_cap "GET http://allowed.test:$SP/size/50000 HTTP/1.1\r\nHost: x\r\n\r\n" --count)
n=${out#bytes=}
if [ "$n" -gt 50000 ]; then pass "a response under the byte cap is whole"; else fail "a response under the byte cap is whole ($out)"; fi

# 61 bytes of response head + 99939 of body: exactly the cap, not over it.
start_proxy exact --allow "allowed.test:$SP" --allow-ip "127.0.0.1/32:$SP" --max-bytes 100000
out=$(ask $PORT_exact "GET http://allowed.test:$SP/size/99939 HTTP/1.1\r\nHost: x\r\n\r\n" --count)
expect_eq "a response of exactly the byte cap is delivered whole" "$out" "bytes=100000"
# Poll (up to 5 s) for the request's closing event.
i=0; while ! grep -q '"end":' "$T/exact.events" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
expect_not_contains "a response of exactly the byte cap is not cut" "$(cat "$T/exact.events")" '"end":"byte cap"'

start_proxy idle --allow "allowed.test:$SP" --allow-ip "127.0.0.1/32:$SP" --idle-ms 300
t=$(printf 'CONNECT allowed.test:%s HTTP/1.1\r\n\r\n' "$SP" | "$H" req 127.0.0.1 $PORT_idle --no-shutdown 2>&1 >/dev/null)
ms=${t#elapsed_ms=}
if [ "$ms" -ge 250 ] && [ "$ms" -lt 3000 ]; then pass "idle tunnel is closed after the idle timeout (${ms} ms)"
else fail "idle tunnel is closed after the idle timeout ($t)"; fi
t=$(printf 'GET http://allowed.test:%s/' "$SP" | "$H" req 127.0.0.1 $PORT_idle --no-shutdown 2>&1 >/dev/null)
ms=${t#elapsed_ms=}
if [ "$ms" -ge 250 ] && [ "$ms" -lt 3000 ]; then pass "an unfinished request head times out (${ms} ms)"
else fail "an unfinished request head times out ($t)"; fi

start_proxy conns --allow "allowed.test:$SP" --allow-ip "127.0.0.1/32:$SP" --max-conns 2 --idle-ms 2000
for k in 1 2; do
	printf 'CONNECT allowed.test:%s HTTP/1.1\r\n\r\n' "$SP" | \
	    "$H" req 127.0.0.1 $PORT_conns --no-shutdown --timeout 3000 >"$T/held$k" 2>&1 &
done
i=0; while [ "$(cat "$T"/held1 "$T"/held2 | grep -c 'Connection established')" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
out=$(ask $PORT_conns "CONNECT allowed.test:$SP HTTP/1.1\r\n\r\n")
expect_contains "connection cap refuses the third connection" "$out" "HTTP/1.1 429 Too Many Requests"
expect_contains "connection cap names the limit" "$out" "connection limit reached: 2"

# --- audit events ---------------------------------------------------------------
ev=$(cat "$T/main.events")
expect_contains "events record allowed connections with the rule" "$ev" '"decision":"allow","rule":"allow allowed.test:'
expect_contains "events record the resolved address" "$ev" '"address":"127.0.0.1"'
expect_contains "events record denials with the reason" "$ev" '"decision":"deny","rule":"","reason":"host not in allowlist: evil.test:443"'
expect_contains "events carry byte counts" "$ev" '"bytes_down":'
lines=$(wc -l < "$T/main.events")
if [ "$lines" -ge 50 ]; then pass "one event per connection ($lines)"; else fail "one event per connection ($lines)"; fi
expect_contains "byte-cap end is recorded" "$(cat "$T/cap.events")" '"end":"byte cap"'
expect_contains "idle end is recorded" "$(cat "$T/idle.events")" '"end":"idle timeout"'

# --- the process ------------------------------------------------------------------
st=$(cat "/proc/$PID_main/status")
expect_contains "proxy run as root drops to its own uid, 65533" "$st" "Uid:	65533	65533	65533	65533"
expect_contains "proxy sets no_new_privs" "$st" "NoNewPrivs:	1"
if grep -q __asan_init "$AIRLOCK"; then
	pass "proxy seccomp filter (not applied in sanitizer builds)"
else
	expect_contains "proxy runs under a seccomp filter" "$st" "Seccomp:	2"
fi
"$AIRLOCK" proxy --listen 127.0.0.1:0 --allow '*:443' 2>"$T/usage.err"
expect_eq "a wildcard-everything rule is a usage error" "$?" "64"
expect_contains "bad rule is explained" "$(cat "$T/usage.err")" "*:443"
"$AIRLOCK" proxy --listen 127.0.0.1:0 --allow 'example.com' 2>"$T/usage.err"
expect_contains "a host rule needs a port" "$(cat "$T/usage.err")" "port required"

finish
