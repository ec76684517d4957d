#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The egress proxy and the machine's own addresses that are not the
# source the kernel picks for them, attacked from inside a real sandbox.
# A connection to any address the kernel delivers locally reaches the
# host's services, as 127.0.0.1 does.  Asking which source address a
# connection would use finds an interface's primary address, but not
#   - a secondary address (a second address in the same subnet, such as
#     a floating or virtual IP): its local route's source is the
#     primary address;
#   - an address of a prefix on lo, or of an "AnyIP" local route
#     ("ip route add local PREFIX dev lo"): no interface holds it, and
#     the source is another address of the machine.
# Each must be refused like the primary address, and so must each
# written as an IPv4-mapped IPv6 address (an IPv6 socket connects to
# ::ffff:a.b.c.d over IPv4).
#
# The test runs in a private network and mount namespace: a veth
# interface carries a public subnet's primary and secondary addresses,
# lo an IPv6 address and an IPv6 AnyIP prefix; /etc/hosts (bind-mounted)
# points names under the granted wildcard at them; one server listens on
# all of them.  Its log says whether anything arrived.
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"
for c in bash ip; do
	command -v $c >/dev/null || { echo "not ok - $c is missing"; exit 1; }
done

PRIM4=93.184.216.34
VIP4=93.184.216.35
LO4=8.8.4.9
OWN6=2606:2800:220:1::1
ANY6=2606:4700:10::5
"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
ip link add al-o0 type veth peer name al-o1 &&
    ip link set al-o0 up &&
    ip addr add "$PRIM4/24" dev al-o0 &&
    ip addr add "$VIP4/24" dev al-o0 &&
    ip addr add 8.8.4.4/24 dev lo &&
    ip -6 addr add "$OWN6/128" dev lo &&
    ip -6 route add local 2606:4700:10::/64 dev lo ||
    { echo "not ok - cannot add the machine's addresses"; exit 1; }
cat > "$T/hosts" <<EOF
127.0.0.1	localhost
$PRIM4	prim.wild.test
$VIP4	vip.wild.test
$LO4	lo.wild.test
$ANY6	anyip.wild.test
::ffff:$PRIM4	mapped-prim.wild.test
::ffff:$VIP4	mapped.wild.test
EOF
chmod 644 "$T/hosts"
mount --bind "$T/hosts" /etc/hosts || { echo "not ok - cannot mount hosts"; exit 1; }

# The machine's services: one server on every address of this netns.
: > "$T/srv.log"
origin_start --on :: 120 "$T/srv.log"
ws=$(make_workspace)

# The server answers on these addresses outside the sandbox.
for a in "$PRIM4" "$VIP4" "$LO4"; do
	r=$(printf 'GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
	    "$H" req "$a" "$SP" --timeout 5000 2>/dev/null)
	expect_contains "outside the sandbox, $a reaches the machine's service" \
	    "$r" "hello from"
done
# The server logs a connection once it has closed: all three before the
# log is emptied.
srv_logged() { [ "$(grep -c '^=== connection' "$T/srv.log")" -ge 3 ]; }
check "the three connections are logged (sanity)" wait_for srv_logged
: > "$T/srv.log"

A="$T/atk"
mkdir "$A"
cat > "$A/attack.sh" <<'EOF'
#!/bin/bash
while IFS='	' read -r name req; do
	exec 3<>/dev/tcp/127.0.0.1/3128 || { echo "$name | no proxy"; continue; }
	printf "$req" >&3
	r=$(timeout 5 cat <&3 | tr -d '\r' |
	    grep -E '^(HTTP/1\.1 |X-Airlock-Reason: |hello from)' | tr '\n' ' ')
	exec 3<&-
	echo "$name | $r"
done < "$1"
EOF
chmod +x "$A/attack.sh"
TUN='\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
cat > "$A/attacks" <<EOF
prim	CONNECT prim.wild.test:$SP HTTP/1.1$TUN
vip	CONNECT vip.wild.test:$SP HTTP/1.1$TUN
vip-get	GET http://vip.wild.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n
lo-prefix	CONNECT lo.wild.test:$SP HTTP/1.1$TUN
anyip	CONNECT anyip.wild.test:$SP HTTP/1.1$TUN
mapped-prim	CONNECT mapped-prim.wild.test:$SP HTTP/1.1$TUN
mapped	CONNECT mapped.wild.test:$SP HTTP/1.1$TUN
EOF

attack() {
	line=$(printf '%s\n' "$out" | grep "^$1 |")
	case "$line" in
	*"X-Airlock-Reason: "*"$2"*) pass "from a sandbox, $1 is refused ($2)" ;;
	*) fail "from a sandbox, $1 is refused ($2)"; printf '  got: %s\n' "$line" ;;
	esac
}
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" --allow-host "*.wild.test:$SP" \
    -- "$A/attack.sh" "$A/attacks" 2>&1)
expect_eq "every attack was made and answered" \
    "$(printf '%s\n' "$out" | grep -c ' | HTTP/1.1 ')" "$(wc -l < "$A/attacks")"
attack prim "address $PRIM4 is this machine's own"
attack vip "address $VIP4 is this machine's own"
attack vip-get "address $VIP4 is this machine's own"
attack lo-prefix "address $LO4 is this machine's own"
attack anyip "address $ANY6 is this machine's own"
attack mapped-prim "is this machine's own"
attack mapped "is this machine's own"
expect_not_contains "no attack got an answer from the machine's service" \
    "$out" "hello from"
expect_eq "nothing the sandbox sent reached the machine's services" \
    "$(grep -c '^=== connection' "$T/srv.log")" "0"

# An explicit address rule is still the way to reach one of them.
printf 'vip-literal\tCONNECT %s:%s HTTP/1.1%s\n' "$VIP4" "$SP" "$TUN" > "$A/explicit"
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" --allow-host "$VIP4:$SP" \
    -- "$A/attack.sh" "$A/explicit" 2>&1)
expect_contains "--allow-host IP:PORT reaches the machine's secondary address" \
    "$out" "vip-literal | HTTP/1.1 200 Connection established HTTP/1.1 200 OK hello from"
finish
