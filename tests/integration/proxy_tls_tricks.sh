#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# What is left of a CONNECT tunnel's TLS after its first ClientHello was
# checked (proxy_sni.sh), attacked from inside a real sandbox against a
# real TLS 1.3 server (python's ssl, OpenSSL) that logs every server
# name it is asked for and every byte it receives.  A grant of
# front.test:PORT must not reach hidden.test:
#   - an Encrypted Client Hello (0xfe0d) or ESNI (0xffce) extension
#     beside the outer name front.test: a front end that decrypts it
#     routes by the inner name (here the "encrypted" part holds the
#     inner name in clear, so that the log shows whether it arrived);
#   - a second ClientHello: a ClientHello with no key share makes the
#     server answer with a HelloRetryRequest, and OpenSSL takes the
#     server name of the second ClientHello (its servername callback
#     runs again), sent after the HelloRetryRequest, sent at once behind
#     the first, sent with the CONNECT head, or split over two records;
#   - a ClientHello behind Postgres's SSLRequest or MySQL's SSL request:
#     database front ends route by its name (Neon, PlanetScale, TiDB
#     Cloud), and the request made the tunnel "not TLS", unread;
#   - an SSL 2.0-format ClientHello (no extensions, so no name: the
#     front end's default site) and an HTTP/0.9 request
#     ("GET http://hidden.test/", no version: nginx routes it by host);
#   - an HTTP/1.0 request without Host (the front end's default site):
#     it now goes with the CONNECT host's;
#   - a PROXY protocol header (v1 text, v2 binary), which made the
#     tunnel "not HTTP" while a request for hidden.test followed it (a
#     server listening with proxy_protocol reads both).
# A ClientHello for front.test after a HelloRetryRequest, and whole
# TLS 1.3 and TLS 1.2 sessions, still work.
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
tls_front front.test

# The server: names.log gets "N NAME" for each server name a connection
# asked for, raw.log every byte, "N end BYTES" when a connection ends.
cat > "$T/srv.py" <<'EOF'
import ssl
from front import lock, server_context, serve_forever, t
PG = bytes.fromhex('0000000804d2162f')
MY = bytes.fromhex('20000001')
def log(f, data):
    with lock, open(t + '/' + f, 'ab') as o:
        o.write(data)
def serve(s, n):
    names = []
    def sni(obj, name, c):
        log('names.log', b'%d %s\n' % (n, name.encode()))
    ctx2 = server_context()
    ctx2.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx2.sni_callback = sni
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx2.wrap_bio(i, o, server_side=True)
    s.settimeout(10)
    total, done, start = 0, False, b''
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            total += len(d)
            log('raw.log', d)
            if start is not None:
                # A database's request for TLS first: Postgres's
                # SSLRequest (answered "S"), MySQL's SSL request.
                start += d
                if PG.startswith(start[:8]) and len(start) < 8 or \
                   MY.startswith(start[:4]) and len(start) < 36:
                    continue
                if start.startswith(PG):
                    s.sendall(b'S')
                    start = start[8:]
                elif start.startswith(MY):
                    start = start[36:]
                d, start = start, None
            i.write(d)
            try:
                if not done:
                    tls.do_handshake()
                    done = True
                x = tls.read(65536)
                tls.write(b'pong ' + x)
            except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
                pass
            except ssl.SSLError:
                pass
            out = o.read()
            if out:
                s.sendall(out)
    except OSError:
        pass
    log('names.log', b'%d end %d\n' % (n, total))
    s.close()
serve_forever(serve)
EOF
: > "$T/names.log"
: > "$T/raw.log"
tls_front_serve
read -r SP < "$T/srv.port"
ws=$(make_workspace)

tls_front_client
cat > "$A/attack.py" <<'EOF'
import os, ssl, struct, sys
from proxied import attack, client_context, tunnel as proxied_tunnel
port = int(sys.argv[1])
def u16(n): return struct.pack('>H', n)
def vec16(b): return u16(len(b)) + b
def ext(t, body): return u16(t) + vec16(body)
def hello(sni, share=True, extra=b''):
    e = ext(0, vec16(b'\0' + vec16(sni.encode())))
    e += ext(10, vec16(u16(0x001d)))                # x25519
    e += ext(13, vec16(u16(0x0403) + u16(0x0804)))
    e += ext(43, b'\x02\x03\x04')                   # TLS 1.3
    e += ext(51, vec16(u16(0x001d) + vec16(os.urandom(32)) if share else b''))
    e += extra
    body = (b'\x03\x03' + os.urandom(32) + b'\x20' + os.urandom(32) +
            vec16(u16(0x1301)) + b'\x01\x00' + vec16(e))
    hs = b'\x01' + struct.pack('>I', len(body))[1:] + body
    return b'\x16\x03\x01' + vec16(hs)
CCS = b'\x14\x03\x03\x00\x01\x01'
def tunnel(early=b''):
    return proxied_tunnel(port, early)
def answer(s):
    got = b''
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            got += c
            if len(got) > 2000:
                break
    except OSError:
        pass
    return got
def hrr(got):
    return b'\xcf\x21\xad\x74\xe5\x9a\x61\x11' in got
def ech(t):
    def f():
        # The inner ClientHello, "encrypted": here in clear.
        s = tunnel()
        s.sendall(hello('front.test', extra=ext(t, b'\0\0\x01\x00' + hello('hidden.test'))))
        return len(answer(s))
    return f
def second(wait):
    def f():
        s = tunnel()
        s.sendall(hello('front.test', share=False) + (b'' if wait else CCS + hello('hidden.test')))
        if not wait:
            return len(answer(s))
        got = s.recv(65536)
        s.sendall(CCS + hello('hidden.test'))
        return 'hrr %s, then %d' % (hrr(got), len(answer(s)))
    return f
def second_split():
    # The second ClientHello's handshake message over two records.
    s = tunnel()
    s.sendall(hello('front.test', share=False))
    got = s.recv(65536)
    m = hello('hidden.test')[5:]
    s.sendall(b'\x16\x03\x03' + u16(40) + m[:40] + b'\x16\x03\x03' + u16(len(m) - 40) + m[40:])
    return 'hrr %s, then %d' % (hrr(got), len(answer(s)))
def second_early():
    s = tunnel(hello('front.test', share=False) + CCS + hello('hidden.test'))
    return len(answer(s))
def second_good():
    s = tunnel()
    s.sendall(hello('front.test', share=False))
    got = s.recv(65536)
    s.sendall(CCS + hello('front.test'))
    s.settimeout(1)  # the server then waits for a Finished
    more = answer(s)
    return 'hrr %s, then server hello %s' % (hrr(got), more[:1] == b'\x16' and not hrr(more))
def session(v):
    def f():
        ctx = client_context()
        ctx.maximum_version = v
        s = ctx.wrap_socket(tunnel(), server_hostname='front.test')
        s.sendall(b'ping')
        return '%s %s' % (s.version(), s.recv(100).decode())
    return f
def pg(name):
    def f():
        s = tunnel()
        s.sendall(bytes.fromhex('0000000804d2162f'))
        if s.recv(1) != b'S':
            return 'no S'
        if name is None:
            t = client_context().wrap_socket(s, server_hostname='front.test')
            t.sendall(b'ping')
            return '%s %s' % (t.version(), t.recv(100).decode())
        s.sendall(hello(name))
        return len(answer(s))
    return f
def mysql():
    # The SSL request (CLIENT_SSL | CLIENT_PROTOCOL_41) and the
    # ClientHello in one write.
    req = bytes.fromhex('20000001') + struct.pack('<IIB', 0x0a00, 1 << 24, 33) + bytes(23)
    s = tunnel()
    s.sendall(req + hello('hidden.test'))
    return len(answer(s))
def raw(data):
    def f():
        s = tunnel()
        s.sendall(data)
        return len(answer(s))
    return f
attack('ech', ech(0xfe0d))
attack('esni', ech(0xffce))
attack('second-after-hrr', second(True))
attack('second-at-once', second(False))
attack('second-with-connect', second_early)
attack('second-split', second_split)
attack('sslv2', raw(b'\x80\x2e\x01\x03\x01\x00\x15\x00\x00\x00\x10' + b'\x00\x00\x2f' * 7 + os.urandom(16)))
attack('http09', raw(b'GET http://hidden.test/\r\n\r\n'))
attack('http10-nohost', raw(b'GET /nohost HTTP/1.0\r\n\r\n'))
HIDDEN = b'GET / HTTP/1.1\r\nHost: hidden.test\r\n\r\n'
attack('proxy-v1', raw(b'PROXY TCP4 10.0.0.1 10.0.0.2 1 2\r\n' + HIDDEN))
attack('proxy-v2', raw(b'\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0c' + bytes(12) + HIDDEN))
attack('postgres', pg('hidden.test'))
attack('mysql', mysql)
attack('second-good', second_good)
attack('postgres-good', pg(None))
attack('tls13', session(ssl.TLSVersion.TLSv1_3))
attack('tls12', session(ssl.TLSVersion.TLSv1_2))
EOF
tls_front_attack "$SP"
denied() { printf '%s\n' "$out" | grep -c "denied: network front.test:$SP (proxy): $1"; }
expect_eq "an ECH or ESNI extension beside the CONNECT host's name is refused" \
    "$(denied 'TLS ClientHello with an encrypted ClientHello or server name (0x')" "2"
expect_eq "a second ClientHello, or one behind a database's request for TLS, naming another server is refused" \
    "$(denied 'TLS server name hidden.test is not the CONNECT host front.test')" "5"
expect_eq "... when asked for (the server did ask)" "$(attack_line second-after-hrr)" \
    "second-after-hrr | hrr True, then 0"
expect_contains "... and one split over two records" "$out" \
    "denied: network front.test:$SP (proxy): TLS ClientHello not whole in its record"
expect_contains "an SSL 2.0-format ClientHello is refused" "$out" \
    "denied: network front.test:$SP (proxy): SSL 2.0-format ClientHello"
expect_contains "an HTTP/0.9 request is refused" "$out" \
    "denied: network front.test:$SP (proxy): malformed request line"
expect_eq "a PROXY protocol header (v1, v2) with a request behind it is refused" \
    "$(denied 'PROXY protocol header in a tunnel')" "2"
expect_eq "an HTTP/1.0 request without Host is given the CONNECT host's" \
    "$(tr -d '\r' < "$T/raw.log" | grep -a -A1 'GET /nohost HTTP/1.0$' | grep -a -c '^Host: front.test$')" "1"
expect_eq "a second ClientHello for the CONNECT host is answered" \
    "$(attack_line second-good)" "second-good | hrr True, then server hello True"
expect_eq "a TLS 1.3 session works" "$(attack_line tls13)" "tls13 | TLSv1.3 pong ping"
expect_eq "... and one after Postgres's SSLRequest" "$(attack_line postgres-good)" \
    "postgres-good | TLSv1.3 pong ping"
expect_eq "a TLS 1.2 session works" "$(attack_line tls12)" "tls12 | TLSv1.2 pong ping"
expect_eq "the server was never asked for hidden.test" \
    "$(grep -c hidden "$T/names.log")" "0"
expect_eq "... nor sent its name" "$(grep -a -c hidden "$T/raw.log")" "0"
expect_eq "it was asked for front.test by every ClientHello that reached it" \
    "$(grep -c ' front\.test$' "$T/names.log")" "9"
finish
