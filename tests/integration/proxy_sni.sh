#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The TLS server name in a CONNECT tunnel, attacked from inside a real
# sandbox.  A grant of front.test:PORT let a command open
# "CONNECT front.test:PORT" and then send a ClientHello naming another
# server (hidden.test): a CDN or shared front end that routes by the
# server name then serves hidden.test, a host no rule names, from the
# checked address.  The proxy now reads the ClientHello before any byte
# of the tunnel goes upstream: a server name other than the CONNECT
# host, or none, closes the tunnel, and nothing reaches the server; so
# through SOCKS5.
# Plain HTTP in the tunnel picked its site by Host, as many times as it
# liked: such a request is now forwarded alone, with Connection: close,
# and only when its Host is the CONNECT host.  Bytes that are neither
# still pass (a tunnel may carry any protocol).
# The whole test runs in a private network and mount namespace;
# /etc/hosts (bind-mounted) points front.test at the loopback server,
# which logs every byte it receives.
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"
for c in bash openssl; do
	command -v $c >/dev/null || { echo "not ok - $c is missing"; exit 1; }
done

"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
printf '127.0.0.1\tlocalhost front.test\n' > "$T/hosts"
chmod 644 "$T/hosts"
mount --bind "$T/hosts" /etc/hosts || { echo "not ok - cannot mount hosts"; exit 1; }

: > "$T/srv.log"
origin_start --on 127.0.0.1 120 "$T/srv.log"
ws=$(make_workspace)

# The attacker: a ClientHello for each server name through the tunnel
# to front.test ("-" sends none), an alert record before the name, then
# plain text.
A="$T/atk"
mkdir "$A"
cat > "$A/attack.sh" <<'EOF'
#!/bin/bash
for sni in hidden.test - FRONT.test; do
	if [ "$sni" = - ]; then opt=-noservername; else opt="-servername $sni"; fi
	timeout 5 openssl s_client -proxy 127.0.0.1:3128 \
	    -connect "front.test:$1" $opt </dev/null >/dev/null 2>&1
	echo "sent $sni"
done
# Through SOCKS5: curl names front.test to the proxy and hidden.test in
# its ClientHello.
timeout 5 curl -sk -x "socks5h://127.0.0.1:3128" \
    --connect-to "hidden.test:$1:front.test:$1" "https://hidden.test:$1/" \
    >/dev/null 2>&1
echo "sent socks"
# An alert record first, then what a ClientHello for hidden.test holds.
exec 3<>/dev/tcp/127.0.0.1/3128 || exit 1
printf 'CONNECT front.test:%s HTTP/1.1\r\n\r\n\025\003\001\000\002\001\000hidden.test' "$1" >&3
timeout 5 cat <&3 >/dev/null
exec 3<&-
echo "sent alert"
# Plain HTTP in the tunnel: NAME BYTES (printf text) after the CONNECT.
tun() {
	exec 3<>/dev/tcp/127.0.0.1/3128 || exit 1
	printf "CONNECT front.test:$P HTTP/1.1\r\n\r\n$2" >&3
	r=$(timeout 5 cat <&3 | tr -d '\r' |
	    grep -E '^(HTTP/1\.1 |hello from)' | tr '\n' ' ')
	exec 3<&-
	echo "$1 | $r"
}
P=$1
tun host-other 'GET /hello HTTP/1.1\r\nHost: hidden.test\r\n\r\n'
tun blank-first '\r\nGET /hello HTTP/1.1\r\nHost: hidden.test\r\n\r\n'
tun absolute 'GET http://hidden.test/hello HTTP/1.1\r\nHost: front.test\r\n\r\n'
tun second 'GET /hello HTTP/1.1\r\nHost: front.test:'$P'\r\n\r\nGET /hidden HTTP/1.1\r\nHost: hidden.test\r\n\r\n'
tun ssh 'SSH-2.0-hidden.test\r\n'
EOF
chmod +x "$A/attack.sh"
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" \
    --allow-host "front.test:$SP" --allow-host "127.0.0.1:$SP" \
    -- "$A/attack.sh" "$SP" 2>&1)
expect_contains "every ClientHello was sent" "$out" "sent alert"
expect_contains "a ClientHello naming another server is refused" "$out" \
    "denied: network front.test:$SP (proxy): TLS server name hidden.test is not the CONNECT host front.test"
expect_contains "a ClientHello naming no server is refused" "$out" \
    "denied: network front.test:$SP (proxy): TLS ClientHello without a server name"
expect_eq "the same through SOCKS5" \
    "$(printf '%s\n' "$out" | grep -c 'TLS server name hidden.test is not the CONNECT host front.test')" "2"
srv_logged() { grep -qi "front\.test" "$T/srv.log" && grep -q 'GET /hello' "$T/srv.log" && grep -q 'SSH-2.0' "$T/srv.log"; }
check "the ClientHello naming the CONNECT host reached the server" wait_for srv_logged
# tun_is NAME ANSWER WHAT: the line NAME's answer is ANSWER; "-": none
# but the "200" (a refused tunnel closes before or after it).
tun_is() {
	case "$2:$(printf '%s\n' "$out" | grep "^$1 |")" in
	"-:$1 | "|"-:$1 | HTTP/1.1 200 Connection established ") pass "$3" ;;
	"$2:$1 | $2") pass "$3" ;;
	*) fail "$3"; printf '  got: %s\n' "$(printf '%s\n' "$out" | grep "^$1 |")" ;;
	esac
}
expect_contains "plain HTTP in the tunnel naming another Host is refused" "$out" \
    "denied: network front.test:$SP (proxy): HTTP Host hidden.test in the tunnel is not the CONNECT host front.test"
tun_is host-other - "... and gets no answer"
tun_is blank-first - "a blank line before the request is refused"
tun_is absolute - "an absolute-form target in the tunnel is refused"
tun_is second "HTTP/1.1 200 Connection established HTTP/1.1 200 OK hello from airlock test server " \
    "a request naming the CONNECT host is answered, the one behind it is not sent"
expect_contains "bytes that are not HTTP still pass" "$out" "ssh | HTTP/1.1 200 Connection established"
expect_eq "nothing naming the other server reached the server" \
    "$(grep -a -v SSH-2.0 "$T/srv.log" | grep -a -c hidden)" "0"
expect_eq "the refused tunnels carried no byte to the server" \
    "$(grep -c "^=== connection 0 bytes" "$T/srv.log")" "7"
finish
