#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The egress proxy and resolv.conf's search domains, attacked from inside
# a real sandbox.  A grant of "*.wild.test" lets the command choose a
# name under it; one that does not exist must not be looked up again
# with the host's search domain appended ("nx.wild.test.corp.internal"),
# which names another host, outside the grant.
#
# The test runs in a private network and mount namespace: a DNS server
# on its loopback (python3) answers for corp.internal and real.wild.test,
# /etc/resolv.conf (bind-mounted) points at it with "search
# corp.internal", and the "corp" host at 9.9.9.9 is a server in a netns
# of its own behind a veth pair, a public address that is not this
# machine's.  Nothing leaves the machine.
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"
for c in bash ip nsenter python3; do
	command -v $c >/dev/null || { echo "not ok - $c is missing"; exit 1; }
done

"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
# The corp host: its own netns, reached over a veth pair.
unshare --net sleep 120 &
NSPID=$!
SRVPID=""
DNSPID=""
at_exit 'kill $NSPID $DNSPID 2>/dev/null; [ -n "$SRVPID" ] && kill -TERM "-$SRVPID" 2>/dev/null'
i=0; while [ "$(readlink /proc/$NSPID/ns/net)" = "$(readlink /proc/$$/ns/net)" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ip link add al-v0 type veth peer name al-v1 netns "$NSPID" &&
    ip addr add 9.9.9.1/24 dev al-v0 && ip link set al-v0 up &&
    nsenter -t "$NSPID" -n sh -c 'ip link set lo up && ip addr add 9.9.9.9/24 dev al-v1 && ip link set al-v1 up' ||
    { echo "not ok - cannot wire the corp host"; exit 1; }
: > "$T/corp.log"
nsenter -t "$NSPID" -n "$H" serve-on 9.9.9.9 "$T/corp.srv" 120 "$T/corp.log" &
i=0; while [ ! -s "$T/corp.srv" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
read -r SP SRVPID < "$T/corp.srv"

# DNS: NAME=ADDR answers, "*.ZONE" for a whole zone; NXDOMAIN otherwise.
cat > "$T/dns.py" <<'EOF'
import signal, socket, struct, sys
signal.alarm(120)  # ends by itself, whatever happens to the test
log, table = sys.argv[1], dict(a.split('=') for a in sys.argv[2:])
def lookup(name):
    for k, v in table.items():
        if name == k or (k.startswith('*.') and name.endswith(k[1:])):
            return v
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('127.0.0.1', 53))
open(log, 'a').close()
while True:
    q, peer = s.recvfrom(512)
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode()); i += 1 + q[i]
    qtype, = struct.unpack('>H', q[i + 1:i + 3])
    name, addr = '.'.join(labels).lower(), None
    addr = lookup(name)
    with open(log, 'a') as f:
        f.write('%s %d\n' % (name, qtype))
    head = q[:2] + struct.pack('>HHHHH', 0x8180 if addr else 0x8183, 1,
        1 if addr and qtype == 1 else 0, 0, 0)
    ans = b''
    if addr and qtype == 1:
        ans = b'\xc0\x0c' + struct.pack('>HHIH', 1, 1, 60, 4) + socket.inet_aton(addr)
    s.sendto(head + q[12:i + 5] + ans, peer)
EOF
python3 "$T/dns.py" "$T/dns.log" '*.corp.internal=9.9.9.9' real.wild.test=9.9.9.9 &
DNSPID=$!
printf 'nameserver 127.0.0.1\nsearch corp.internal\noptions timeout:1 attempts:2\n' > "$T/resolv.conf"
chmod 644 "$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf || { echo "not ok - cannot mount resolv.conf"; exit 1; }
i=0; while [ ! -e "$T/dns.log" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ws=$(make_workspace)

# ask NAME REQUEST... (printf text): from inside "airlock exec", one
# connection to the proxy per request; prints "NAME | status | reason".
A="$T/atk"
mkdir "$A"
cat > "$A/ask.sh" <<'EOF'
#!/bin/bash
while [ $# -gt 1 ]; do
	exec 3<>/dev/tcp/127.0.0.1/3128 || { echo "$1 | no proxy"; shift 2; continue; }
	printf "$2" >&3
	r=$(timeout 10 cat <&3 | tr -d '\r' |
	    grep -E '^(HTTP/1\.1 |X-Airlock-Reason: |hello from)' | tr '\n' ' ')
	exec 3<&-
	echo "$1 | $r"
	shift 2
done
EOF
chmod +x "$A/ask.sh"
# (HTTP/1.0 without Host: a request in a tunnel names no other host.)
TUN='\r\n\r\nGET /hello HTTP/1.0\r\nConnection: close\r\n\r\n'
corp_hits() { grep -c '^=== connection' "$T/corp.log"; }

# The allowed name exists as written: reached (the corp host stands in
# for the internet here, and the wiring works).
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" --allow-host "*.wild.test:$SP" -- \
    "$A/ask.sh" real "CONNECT real.wild.test:$SP HTTP/1.1$TUN" 2>&1)
expect_contains "an allowed name that resolves as written is reached" "$out" \
    "real | HTTP/1.1 200 Connection established HTTP/1.1 200 OK hello from"
n0=$(corp_hits)
expect_eq "... the corp host's server saw it" "$n0" "1"

# The attack: a name under the grant that does not exist.
: > "$T/dns.log"
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" --allow-host "*.wild.test:$SP" -- \
    "$A/ask.sh" nx "CONNECT nx.wild.test:$SP HTTP/1.1$TUN" \
    nx-get "GET http://nx.wild.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n" \
    nx-again "CONNECT NX.wild.test.:$SP HTTP/1.1$TUN" 2>&1)
for n in nx nx-get nx-again; do
	line=$(printf '%s\n' "$out" | grep "^$n |")
	case "$line" in
	*"502 Bad Gateway X-Airlock-Reason: cannot resolve nx.wild.test"*)
		pass "$n: a missing name under the grant is not completed with the search domain" ;;
	*) fail "$n: a missing name under the grant is not completed with the search domain"
	   printf '  got: %s\n' "$line" ;;
	esac
done
expect_eq "the corp host outside the grant got no connection" "$(corp_hits)" "$n0"
expect_not_contains "the proxy never asked for nx.wild.test.corp.internal" \
    "$(cat "$T/dns.log")" "nx.wild.test.corp.internal"
expect_contains "... it asked for the name as written" "$(cat "$T/dns.log")" "nx.wild.test 1"

# A name without a dot is the manifest's own choice (a wildcard needs two
# labels): it still gets the search domain, as the host's resolver does.
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" --allow-host "gateway:$SP" -- \
    "$A/ask.sh" gateway "CONNECT gateway:$SP HTTP/1.1$TUN" 2>&1)
expect_contains "an allowed single-label name is completed with the search domain" "$out" \
    "gateway | HTTP/1.1 200 Connection established HTTP/1.1 200 OK hello from"
finish
