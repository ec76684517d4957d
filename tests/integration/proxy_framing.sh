#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Request smuggling through the egress proxy, tried for real (issue 11,
# item 5).  On a plain-HTTP connection the proxy forwards exactly one
# request: its head, then exactly Content-Length bytes of body; anything
# the client sends after that never reaches the origin.  Heads whose
# framing the proxy and an origin could read differently are refused.
#
# Two loopback origins stand in for the internet: "allowed" (in the
# allowlist) and "other" (not).  Both log every byte each connection
# received, so the checks below look at what really arrived upstream.
# Runs in a private network and mount namespace like proxy.sh.
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"

"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
printf '127.0.0.1\tlocalhost allowed.test other.test\n' > "$T/hosts"
chmod 644 "$T/hosts"
mount --bind "$T/hosts" /etc/hosts || { echo "not ok - cannot mount hosts"; exit 1; }

# start_srv NAME: an origin logging to $T/NAME.log; sets SP_NAME, SRV_NAME.
start_srv() {
	"$H" serve "$T/$1.srv" 120 "$T/$1.log" &
	i=0; while [ ! -s "$T/$1.srv" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	read -r sp spid < "$T/$1.srv"
	eval "SP_$1=$sp; SRV_$1=$spid"
}
start_srv allowed
start_srv other
SA=$SP_allowed
SO=$SP_other
: > "$T/allowed.log"

PXPID=""
cleanup() {
	[ -n "$PXPID" ] && kill "$PXPID" 2>/dev/null
	kill -TERM "-$SRV_allowed" "-$SRV_other" 2>/dev/null
}
at_exit cleanup

"$AIRLOCK" proxy --listen 127.0.0.1:0 --port-file "$T/px.port" \
    --events "$T/px.events" --allow "allowed.test:$SA" \
    --allow-ip "127.0.0.1/32:$SA" 2>"$T/px.err" &
PXPID=$!
i=0; while [ ! -s "$T/px.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
P=$(cat "$T/px.port")

ask() { printf '%b' "$1" | "$H" req 127.0.0.1 "$P" --timeout 3000 2>/dev/null; }

# records: how many connections the allowed origin has logged.
records() { grep -c '^=== end$' "$T/allowed.log"; }
# wait_records N: until the allowed origin has logged N connections.
wait_records() {
	i=0; while [ "$(records)" -lt "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
# last_record: the bytes the allowed origin's latest connection received.
last_record() { awk '/^=== connection/ { r = "" } { r = r $0 "\n" } END { printf "%s", r }' "$T/allowed.log"; }

GOOD="GET http://allowed.test:$SA/hello HTTP/1.1\r\nHost: allowed.test\r\n\r\n"
SMUG="GET http://other.test:$SO/smuggled HTTP/1.1\r\nHost: other.test:$SO\r\n\r\n"

# --- the allowlisted single request still works --------------------------------
n0=$(records)
out=$(ask "$GOOD")
expect_contains "a normal request is forwarded" "$out" "hello from airlock test server"
wait_records $((n0 + 1))
rec=$(last_record)
expect_contains "the origin got the request in origin form" "$rec" "GET /hello HTTP/1.1"
expect_contains "the origin was asked to close" "$rec" "Connection: close"

# --- pipelining: a second request on the connection is never forwarded ----------
n0=$(records)
out=$(ask "$GOOD$SMUG")
expect_contains "pipelined: the first request is answered" "$out" "hello from airlock test server"
c=$(printf '%s' "$out" | grep -c '^HTTP/1.1 ')
expect_eq "pipelined: exactly one response comes back" "$c" "1"
wait_records $((n0 + 1))
rec=$(last_record)
expect_not_contains "pipelined: the second request did not reach the origin" "$rec" "smuggled"
c=$(printf '%s' "$rec" | grep -c '^GET ')
expect_eq "pipelined: the origin received exactly one request" "$c" "1"

n0=$(records)
out=$(ask "$GOOD""GET /smuggled HTTP/1.1\r\nHost: allowed.test\r\n\r\n")
wait_records $((n0 + 1))
expect_not_contains "pipelined origin-form request did not reach the origin" "$(last_record)" "smuggled"

# A body of exactly Content-Length goes; what follows it does not.
n0=$(records)
out=$(ask "POST http://allowed.test:$SA/echo HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 11\r\n\r\nhello=world$SMUG")
expect_contains "POST with a body is answered" "$out" "HTTP/1.1 200 OK"
wait_records $((n0 + 1))
rec=$(last_record)
expect_contains "the declared body reached the origin" "$rec" "hello=world"
expect_not_contains "bytes after the declared body did not reach the origin" "$rec" "smuggled"

# The same when the trailing request arrives after the head, in a later segment.
n0=$(records)
{ printf 'POST http://allowed.test:%s/echo HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 11\r\n\r\n' "$SA"
  sleep 0.3; printf 'hello=world'; sleep 0.3; printf '%b' "$SMUG"; } |
    "$H" req 127.0.0.1 "$P" --timeout 3000 >/dev/null 2>&1
wait_records $((n0 + 1))
rec=$(last_record)
expect_contains "a body sent late is forwarded" "$rec" "hello=world"
expect_not_contains "a request sent after a late body is not forwarded" "$rec" "smuggled"

sleep 0.2
expect_contains "discarded bytes are recorded in the audit event" "$(cat "$T/px.events")" '"end":"bytes after the request not forwarded"'
expect_eq "the other origin never got a connection" "$(cat "$T/other.log" 2>/dev/null)" ""

# --- framing the proxy refuses ---------------------------------------------------
# refused NAME REQUEST STATUS REASON: the client gets STATUS naming REASON.
refused() {
	out=$(ask "$2")
	case "$out" in
	"HTTP/1.1 $3 "*"X-Airlock-Reason: $4"*) pass "$1 is refused with $3" ;;
	*) fail "$1 is refused with $3 ($4)"; printf '  got: %s\n' "$out" | head -5 ;;
	esac
}
R="POST http://allowed.test:$SA/echo HTTP/1.1\r\nHost: allowed.test\r\n"
C="CONNECT allowed.test:$SA HTTP/1.1\r\nHost: allowed.test:$SA\r\n"
n0=$(records)

refused "CL.TE (Content-Length then Transfer-Encoding)" \
    "${R}Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n$SMUG" \
    400 "Content-Length together with Transfer-Encoding"
refused "TE.CL (Transfer-Encoding then Content-Length)" \
    "${R}Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n5c\r\n$SMUG\r\n0\r\n\r\n" \
    400 "Content-Length together with Transfer-Encoding"
refused "duplicate Content-Length with different values" \
    "${R}Content-Length: 5\r\nContent-Length: 60\r\n\r\nhello$SMUG" \
    400 "duplicate Content-Length header"
refused "duplicate Content-Length with equal values" \
    "${R}Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello" \
    400 "duplicate Content-Length header"
refused "Content-Length as a comma list" \
    "${R}Content-Length: 5, 5\r\n\r\nhello" 400 "malformed Content-Length"
refused "signed Content-Length" \
    "${R}Content-Length: +5\r\n\r\nhello" 400 "malformed Content-Length"
refused "negative Content-Length" \
    "${R}Content-Length: -1\r\n\r\n$SMUG" 400 "malformed Content-Length"
refused "overflowing Content-Length" \
    "${R}Content-Length: 18446744073709551621\r\n\r\nhello" 400 "malformed Content-Length"
refused "hex Content-Length" \
    "${R}Content-Length: 0x5\r\n\r\nhello" 400 "malformed Content-Length"
# The proxy drops every header a Connection header names (hop-by-hop):
# naming Content-Length would strip it from the forwarded head while the
# body still goes, and the origin would read that body as a second
# request (here one with its own Host).  Refused before any connection.
n=$(printf '%b' "$SMUG" | wc -c | tr -d ' ')
refused "Content-Length hidden by a Connection header" \
    "${R}Connection: Content-Length\r\nContent-Length: $n\r\n\r\n$SMUG" \
    400 "Connection header lists Content-Length"
refused "Content-Length hidden by a second Connection header" \
    "${R}Content-Length: $n\r\nConnection: close\r\nConnection: keep-alive, content-length\r\n\r\n$SMUG" \
    400 "Connection header lists Content-Length"
refused "Host named by a Connection header" \
    "${R}Connection: Host\r\n\r\n" 400 "Connection header lists Host"
refused "Transfer-Encoding: chunked (no length)" \
    "${R}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n$SMUG" \
    411 "chunked request bodies are not supported"
refused "Transfer-Encoding other than chunked" \
    "${R}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" \
    400 "Transfer-Encoding other than chunked"
refused "Transfer-Encoding with a look-alike value" \
    "${R}Transfer-Encoding: xchunked\r\n\r\n" 400 "Transfer-Encoding other than chunked"
refused "duplicate Transfer-Encoding" \
    "${R}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n" \
    400 "duplicate Transfer-Encoding header"
refused "Transfer-Encoding hidden by obsolete line folding" \
    "${R}Content-Length: 5\r\nX-Fold: a\r\n Transfer-Encoding: chunked\r\n\r\nhello" \
    400 "folded header line"
refused "whitespace between header name and colon" \
    "${R}Content-Length: 5\r\nTransfer-Encoding : chunked\r\n\r\nhello" \
    400 "whitespace between header name and colon"
refused "bare LF line endings" \
    "GET http://allowed.test:$SA/hello HTTP/1.1\nHost: allowed.test\n\n" \
    400 "bare LF in request head"
refused "a bare LF hiding a header" \
    "${R}X-A: 1\nContent-Length: 60\r\nContent-Length: 5\r\n\r\nhello" \
    400 "bare LF in request head"
refused "a bare CR inside a header" \
    "${R}X-A: 1\rContent-Length: 60\r\n\r\n" 400 "bare CR in request head"
refused "a NUL in the head" \
    "${R}X-A: a\0b\r\n\r\n" 400 "NUL byte in request head"
refused "a request line with four parts" \
    "GET http://allowed.test:$SA/ x HTTP/1.1\r\nHost: allowed.test\r\n\r\n" \
    400 "malformed request line"
refused "a request line with two parts (HTTP/0.9)" \
    "GET http://allowed.test:$SA/hello\r\n\r\n" 400 "malformed request line"
refused "HTTP/2.0 in the request line" \
    "GET http://allowed.test:$SA/ HTTP/2.0\r\nHost: allowed.test\r\n\r\n" \
    400 "unsupported HTTP version"
refused "missing Host on HTTP/1.1" \
    "GET http://allowed.test:$SA/hello HTTP/1.1\r\n\r\n" 400 "missing Host header"
refused "duplicate Host" \
    "GET http://allowed.test:$SA/hello HTTP/1.1\r\nHost: allowed.test\r\nHost: other.test:$SO\r\n\r\n" \
    400 "duplicate Host header"
many="GET http://allowed.test:$SA/hello HTTP/1.1\r\nHost: allowed.test\r\n"
i=0; while [ $i -lt 130 ]; do many="${many}X-$i: 1\r\n"; i=$((i + 1)); done
refused "more than 128 header fields" "$many\r\n" 431 "more than 128 header fields"
big=$(head -c 33000 /dev/zero | tr '\0' b)
refused "a header section over 32 KiB" \
    "GET http://allowed.test:$SA/hello HTTP/1.1\r\nHost: allowed.test\r\nX-Big: $big\r\n\r\n" \
    431 "request head larger than 32768 bytes"

# CONNECT heads are held to the same rules.
refused "CONNECT with Content-Length" \
    "${C}Content-Length: 5\r\n\r\nhello" 400 "CONNECT request with a body"
refused "CONNECT with Transfer-Encoding" \
    "${C}Transfer-Encoding: chunked\r\n\r\n" 400 "CONNECT request with a body"
refused "CONNECT with bare LF line endings" \
    "CONNECT allowed.test:$SA HTTP/1.1\nHost: allowed.test\n\n" 400 "bare LF in request head"
refused "CONNECT with a folded header" \
    "${C}X-A: 1\r\n\tX-B: 2\r\n\r\n" 400 "folded header line"
refused "CONNECT with whitespace before a colon" \
    "${C}X-A : 1\r\n\r\n" 400 "whitespace between header name and colon"
refused "CONNECT with a NUL" "${C}X-A: \0\r\n\r\n" 400 "NUL byte in request head"
refused "CONNECT with a bad version" \
    "CONNECT allowed.test:$SA HTTP/1.2\r\n\r\n" 400 "unsupported HTTP version"

# None of the refused requests opened a connection to the origin.
out=$(ask "$GOOD")
expect_contains "a normal request still works after the refusals" "$out" "hello from airlock test server"
wait_records $((n0 + 1))
sleep 0.3
expect_eq "refused requests never reached the origin" "$(records)" "$((n0 + 1))"
expect_not_contains "no smuggled request reached the allowed origin" "$(cat "$T/allowed.log")" "smuggled"
expect_eq "no request reached the other origin" "$(cat "$T/other.log" 2>/dev/null)" ""

# --- absolute-form URI vs Host: the URI wins, Host is rewritten -------------------
n0=$(records)
out=$(ask "GET http://allowed.test:$SA/echo HTTP/1.1\r\nHost: other.test:$SO\r\n\r\n")
expect_contains "URI host wins over the Host header" "$out" "Host: allowed.test:$SA"
expect_not_contains "the client's Host is not forwarded" "$out" "other.test"
wait_records $((n0 + 1))
expect_eq "a Host naming another origin does not reach it" "$(cat "$T/other.log" 2>/dev/null)" ""

# --- audit --------------------------------------------------------------------------
sleep 0.2
ev=$(cat "$T/px.events")
expect_contains "framing refusals are audited with the reason" "$ev" '"decision":"error","rule":"","reason":"Content-Length together with Transfer-Encoding","status":400'
expect_contains "the method of a refused head is audited" "$ev" '"method":"POST","host":"","port":0,"address":"","decision":"error","rule":"","reason":"duplicate Content-Length header"'
expect_contains "411 is audited" "$ev" '"status":411'
kill -0 "$PXPID" 2>/dev/null
expect_eq "the proxy survived" "$?" "0"

finish
