#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The egress proxy attacked from inside a real sandbox: a command run by
# "airlock exec --allow-host" (and a manifest tool under "airlock serve")
# tries to reach what its grant does not name.  The whole test runs in a
# private network and mount namespace whose lo also carries a public
# IPv4 and IPv6 address, the metadata address and a private one, as a
# host's interfaces do; one server listens on all of them.  /etc/hosts
# (bind-mounted) points names under the granted wildcard at each.  The
# server's log says whether anything arrived: a refusal that still
# connected is a failure too.
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"
command -v bash >/dev/null || { echo "not ok - bash (for /dev/tcp) is missing"; exit 1; }
command -v ip >/dev/null || { echo "not ok - ip (iproute2) is missing"; exit 1; }

OWN4=93.184.216.34
OWN6=2606:2800:220:1:248:1893:25c8:1946
"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
for a in $OWN4/32 169.254.169.254/32 10.0.0.5/32; do
	ip addr add "$a" dev lo || { echo "not ok - cannot add $a to lo"; exit 1; }
done
ip -6 addr add "$OWN6/128" dev lo || { echo "not ok - cannot add $OWN6 to lo"; exit 1; }
cat > "$T/hosts" <<EOF
127.0.0.1	localhost loop.wild.test
$OWN4	own4.wild.test
$OWN6	own6.wild.test
169.254.169.254	meta.wild.test
10.0.0.5	intranet.wild.test
EOF
chmod 644 "$T/hosts"
mount --bind "$T/hosts" /etc/hosts || { echo "not ok - cannot mount hosts"; exit 1; }

# The machine's services: one server on every address of this netns.
: > "$T/srv.log"
origin_start --on :: 120 "$T/srv.log"
ws=$(make_workspace)

# The attacker: each line of $A/attacks is "NAME<TAB>REQUEST" (printf
# text); each request goes on a connection of its own to the proxy, and
# "NAME | status line | reason" comes back.
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
	# (With a second argument, a request left unanswered ends the
	# run: a stalled proxy answers none of the rest either.)
	[ -n "$r" ] || [ $# -lt 2 ] || exit 3
done < "$1"
EOF
chmod +x "$A/attack.sh"
TUN='\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
cat > "$A/attacks" <<EOF
own4	CONNECT own4.wild.test:$SP HTTP/1.1$TUN
own4-get	GET http://own4.wild.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n
own6	CONNECT own6.wild.test:$SP HTTP/1.1$TUN
own4-literal	CONNECT $OWN4:$SP HTTP/1.1$TUN
loop	CONNECT loop.wild.test:$SP HTTP/1.1$TUN
meta	CONNECT meta.wild.test:$SP HTTP/1.1$TUN
intranet	GET http://intranet.wild.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n
decimal	CONNECT 2130706433:$SP HTTP/1.1$TUN
octal	CONNECT 0177.0.0.1:$SP HTTP/1.1$TUN
short	CONNECT 127.1:$SP HTTP/1.1$TUN
hex	CONNECT 0x7f.0.0.1:$SP HTTP/1.1$TUN
mapped	CONNECT [::ffff:127.0.0.1]:$SP HTTP/1.1$TUN
unspecified	CONNECT [::]:$SP HTTP/1.1$TUN
zone	CONNECT [fe80::1%%25lo]:$SP HTTP/1.1$TUN
userinfo	GET http://loop.wild.test:$SP@127.0.0.1:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n
percent	GET http://own4%%2ewild.test:$SP/hello HTTP/1.1\r\nHost: x\r\n\r\n
apex	CONNECT wild.test:$SP HTTP/1.1$TUN
suffix	CONNECT evilwild.test:$SP HTTP/1.1$TUN
port+	CONNECT own4.wild.test:+$SP HTTP/1.1$TUN
port0	CONNECT own4.wild.test:0 HTTP/1.1$TUN
origin-form	GET /hello HTTP/1.1\r\nHost: 127.0.0.1:$SP\r\n\r\n
EOF

# attack NAME REASON: the attack NAME was refused, naming REASON.
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
attack own4 "address $OWN4 is this machine's own"
attack own4-get "address $OWN4 is this machine's own"
attack own6 "address $OWN6 is this machine's own"
attack own4-literal "host not in allowlist: $OWN4:$SP"
attack loop "address 127.0.0.1 is loopback"
attack meta "address 169.254.169.254 is cloud metadata"
attack intranet "address 10.0.0.5 is private"
for a in decimal octal short hex; do
	attack $a "non-canonical IPv4 literal refused"
done
attack mapped "IPv4-mapped address embedding 127.0.0.1, loopback"
attack unspecified "address :: is unspecified"
attack zone "invalid IPv6 literal"
attack userinfo "userinfo in authority refused"
attack percent "invalid character in host name"
attack apex "host not in allowlist: wild.test:$SP"
attack suffix "host not in allowlist: evilwild.test:$SP"
attack port+ "invalid port"
attack port0 "invalid port"
attack origin-form "only absolute http:// request targets are proxied"
expect_eq "nothing the sandbox sent reached the machine's services" \
    "$(grep -c '^=== connection' "$T/srv.log")" "0"

# airlock exec's refusals reach its audit log (exec_end's egress) and
# its stderr, like the sandbox's other denials.
rec=$(jq -c 'select(.event == "exec_end") | .fields.egress' \
    "$(newest_session_log)")
expect_eq "exec_end counts the proxy's connections and refusals" \
    "$(printf '%s' "$rec" | jq -c '[.connections, .refused, (.denied | length)]')" \
    "[$(wc -l < "$A/attacks"),$(wc -l < "$A/attacks"),$(wc -l < "$A/attacks")]"
expect_eq "exec_end names the refusal of the machine's own address" \
    "$(printf '%s' "$rec" | jq -c '.denied[0] | [.host, .port, .address, .decision, .status, .reason]')" \
    "[\"own4.wild.test\",$SP,\"$OWN4\",\"deny\",403,\"address $OWN4 is this machine's own (it reaches the host's services) (own4.wild.test resolves to it)\"]"
expect_contains "exec_end names the metadata refusal" "$rec" \
    '"host":"meta.wild.test","method":"CONNECT","port":'"$SP"',"reason":"address 169.254.169.254 is cloud metadata'
expect_contains "exec prints each refused connection on stderr" "$out" \
    "airlock: denied: network own4.wild.test:$SP (proxy): address $OWN4 is this machine's own"
expect_contains "... an IPv6 literal in brackets" "$out" \
    "airlock: denied: network [::]:$SP (proxy): address :: is unspecified"

# Refusals by the hundred: the proxy does not stall on its records (a
# pipe holds about 150), the first 64 are listed, all are counted.
: > "$A/flood"
i=0; while [ $i -lt 400 ]; do printf 'f%s\tCONNECT evil.test:443 HTTP/1.1\\r\\n\\r\\n\n' $i >> "$A/flood"; i=$((i + 1)); done
# (Each connection forks five processes in the sandbox: 400 of them took
# 20 s beside the rest of the suite two at a time; the limit is for a
# proxy that stalls, not for the machine's speed.  A stalled proxy
# leaves a request unanswered for 5 s, which ends the attack at once.)
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" --allow-host "*.wild.test:$SP" \
    --timeout 180000 -- "$A/attack.sh" "$A/flood" stop 2>&1)
expect_eq "400 refusals in one exec are all answered" \
    "$(printf '%s\n' "$out" | grep -c '| HTTP/1.1 403 .*host not in allowlist: evil.test:443')" "400"
rec=$(jq -c 'select(.event == "exec_end") | .fields.egress' \
    "$(newest_session_log)")
expect_eq "... counted in exec_end, the first 64 listed" \
    "$(printf '%s' "$rec" | jq -c '[.connections, .refused, (.denied | length)]')" "[400,400,64]"
expect_contains "... and the rest summed up on stderr" "$out" \
    "airlock: denied: network: 336 more connections (proxy)"

# An explicit address rule is the way to reach the machine's own
# address: the attack above would have landed.
printf 'own4-literal\tCONNECT %s:%s HTTP/1.1%s\nown6-literal\tCONNECT [%s]:%s HTTP/1.1%s\n' \
    "$OWN4" "$SP" "$TUN" "$OWN6" "$SP" "$TUN" > "$A/explicit"
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" --allow-host "$OWN4:$SP" \
    --allow-host "[$OWN6]:$SP" -- "$A/attack.sh" "$A/explicit" 2>&1)
expect_contains "--allow-host IP:PORT reaches the machine's own IPv4 address" \
    "$out" "own4-literal | HTTP/1.1 200 Connection established HTTP/1.1 200 OK hello from"
expect_contains "--allow-host [IPv6]:PORT reaches the machine's own IPv6 address" \
    "$out" "own6-literal | HTTP/1.1 200 Connection established HTTP/1.1 200 OK hello from"

# The same refusal for a manifest tool, and in the session's audit log.
# The server logs a connection once it has closed, which may be after the
# client printed the reply: the two above must be in before the log is
# emptied, or one lands in the next count.
srv_logged() { [ "$(grep -c '^=== connection' "$T/srv.log")" -ge 2 ]; }
check "the explicit rules' two connections are logged (sanity)" wait_for srv_logged
: > "$T/srv.log"
cat > "$T/m.yaml" <<YAML
tools:
  - name: fetch_own
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET http://own4.wild.test:$SP/hello HTTP/1.1\\\\r\\\\nHost: x\\\\r\\\\n\\\\r\\\\n' >&3 && cat <&3"]
    network: ["*.wild.test:$SP"]
YAML
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch_own","arguments":{}}}' |
    "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" | grep '"id":2')
expect_contains "a tool's request to the machine's own address is refused" "$out" \
    "X-Airlock-Reason: address $OWN4 is this machine's own"
expect_not_contains "... and nothing came back from the machine's service" "$out" "hello from"
rec=$(grep -h '"event":"egress"' "$AIRLOCK_HOME"/sessions/*/audit.jsonl | grep own4.wild.test)
expect_contains "the refusal is in the audit log as a denial" "$rec" '"decision":"deny"'
expect_contains "... naming the address refused" "$rec" "\"address\":\"$OWN4\","
expect_contains "... with its reason" "$rec" "address $OWN4 is this machine's own (it reaches the host's services) (own4.wild.test resolves to it)"
expect_eq "the tool reached nothing" "$(grep -c '^=== connection' "$T/srv.log")" "0"
expect_contains "the record names the key that allows the address" "$rec" \
    '"allowWith":"tools[0].allowAddresses (tool fetch_own)"'
hint=$(printf '%s' "$out" | jq -r .result.structuredContent.hint)
expect_contains "the result's hint names the address, not the name, for allowAddresses" \
    "$hint" "to allow it add \"$OWN4:$SP\" to tools[0].allowAddresses (tool fetch_own)"
# ... and following it works.
sed "s/    network: \[\"\*.wild.test:$SP\"\]/&\n    allowAddresses: [\"$OWN4:$SP\"]/" "$T/m.yaml" > "$T/m2.yaml"
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch_own","arguments":{}}}' |
    "$AIRLOCK" serve --manifest "$T/m2.yaml" --workspace "$ws" | grep '"id":2')
expect_contains "with the hint's allowAddresses entry the tool reaches the address" "$out" "hello from"
finish
