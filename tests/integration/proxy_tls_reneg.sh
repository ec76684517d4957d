#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A TLS 1.2 renegotiation through a CONNECT tunnel, attacked from inside
# a real sandbox against a real server (python's ssl, OpenSSL, allowing
# client-initiated renegotiation) that logs every server name it is
# asked for.  The tunnel's first ClientHello names front.test, as the
# proxy checks (proxy_sni.sh); the client then renegotiates with a
# ClientHello naming hidden.test, encrypted, in a record that still says
# handshake (22), and OpenSSL's servername callback ran again with
# hidden.test (a front end switching sites there serves it).  The proxy
# now walks the records the client sends after its ClientHello: a
# handshake record after application data, or a second one after the
# client's change_cipher_spec (its Finished), ends the tunnel, and
# nothing of it reaches the server.
# Whole TLS 1.2 and TLS 1.3 sessions still work both ways (4 MiB down,
# 2 MiB up, records of every size), a TLS 1.2 session resumed with its
# ticket, and a TLS 1.3 KeyUpdate (inside application_data records).
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
tls_front front.test

# The server: names.log gets each server name asked for.  A line
# "echo X" is answered "pong X", "get N" with N bytes, "put N" reads N
# bytes and answers "got N".
cat > "$T/srv.py" <<'EOF'
import ssl
from front import log_name, server_context, serve_forever
ctx = server_context()
ctx.minimum_version = ssl.TLSVersion.TLSv1_2
ctx.options |= 0x100    # SSL_OP_ALLOW_CLIENT_RENEGOTIATION (OpenSSL 3)
ctx.sni_callback = log_name
def serve(s, n):
    try:
        s.settimeout(10)
        tls = ctx.wrap_socket(s, server_side=True)
        f = tls.makefile('rb')
        for line in f:
            w = line.split()
            if not w:
                break
            if w[0] == b'echo':
                tls.sendall(b'pong ' + w[1] + b'\n')
            elif w[0] == b'get':
                n = int(w[1])
                tls.sendall(bytes(i % 251 for i in range(n)))
            elif w[0] == b'put':
                n, got = int(w[1]), 0
                while got < n:
                    got += len(f.read(min(65536, n - got)))
                tls.sendall(b'got %d\n' % got)
    except (OSError, ValueError):
        pass
    s.close()
serve_forever(serve)
EOF
: > "$T/names.log"
tls_front_serve
read -r SP < "$T/srv.port"
ws=$(make_workspace)

# The attacker: OpenSSL's own renegotiation, reached through python's
# SSL object (its SSL * follows the object head and the socket's
# weak reference; SSL_version() checks it is one).
tls_front_client
cat > "$A/attack.py" <<'EOF'
import ctypes, ssl, sys
from proxied import attack, client_context, tunnel
port = int(sys.argv[1])
lib = ctypes.CDLL('libssl.so.3')
for f in ('SSL_version', 'SSL_renegotiate', 'SSL_do_handshake'):
    getattr(lib, f).argtypes = [ctypes.c_void_p]
lib.SSL_key_update.argtypes = [ctypes.c_void_p, ctypes.c_int]
lib.SSL_ctrl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_long,
                         ctypes.c_char_p]
def ssl_ptr(s):
    p = ctypes.c_void_p.from_address(id(s._sslobj) + 2 * 8 + 8).value
    if lib.SSL_version(p) not in (0x303, 0x304):
        raise OSError('no SSL object')
    return p
def context(v):
    ctx = client_context()
    ctx.minimum_version = ctx.maximum_version = v
    return ctx
def tls(v, ctx=None, session=None):
    ctx = ctx or context(v)
    return ctx.wrap_socket(tunnel(port, timeout=10),
                           server_hostname='front.test', session=session)
def line(s):
    r = b''
    while not r.endswith(b'\n'):
        c = s.recv(1)
        if not c:
            raise OSError('closed')
        r += c
    return r.decode().strip()
def echo(s, x):
    s.sendall(b'echo %s\n' % x.encode())
    return line(s)
def reneg(first):
    def f():
        s = tls(ssl.TLSVersion.TLSv1_2)
        r = echo(s, 'one') if first else 'none'
        p = ssl_ptr(s)
        lib.SSL_ctrl(p, 55, 0, b'hidden.test')  # SSL_set_tlsext_host_name
        lib.SSL_renegotiate(p)
        hs = lib.SSL_do_handshake(p)
        try:
            r2 = echo(s, 'two')
        except OSError:
            r2 = 'closed'
        return '%s, renegotiated %s, %s' % (r, 'yes' if hs == 1 else 'no', r2)
    return f
def transfer(v):
    def f():
        s = tls(v)
        s.sendall(b'get 4194304\n')
        got = 0
        while got < 4194304:
            got += len(s.recv(65536))
        s.sendall(b'put 2097152\n')
        for n in (1, 5, 300, 16384, 65536):
            s.sendall(bytes(n))
        s.sendall(bytes(2097152 - 1 - 5 - 300 - 16384 - 65536))
        up, version = line(s), s.version()
        if v == ssl.TLSVersion.TLSv1_3:
            lib.SSL_key_update(ssl_ptr(s), 1)  # SSL_KEY_UPDATE_REQUESTED
        return '%s %d, %s, %s' % (version, got, up, echo(s, 'three'))
    return f
def resumed():
    ctx = context(ssl.TLSVersion.TLSv1_2)
    s = tls(None, ctx)
    echo(s, 'four')
    s2 = tls(None, ctx, s.session)
    return '%s %s' % (s2.session_reused, echo(s2, 'five'))
attack('reneg-other', reneg(True))
attack('reneg-at-once', reneg(False))
attack('tls12', transfer(ssl.TLSVersion.TLSv1_2))
attack('tls13', transfer(ssl.TLSVersion.TLSv1_3))
attack('tls12-resumed', resumed)
EOF
tls_front_attack "$SP"
expect_eq "a renegotiation after application data is refused" \
    "$(attack_line reneg-other)" "reneg-other | pong one, renegotiated no, closed"
expect_eq "... and one at once after the handshake" \
    "$(attack_line reneg-at-once)" "reneg-at-once | none, renegotiated no, closed"
expect_eq "... both for a handshake record after the handshake" \
    "$(printf '%s\n' "$out" | grep -c "denied: network front.test:$SP (proxy): TLS handshake record after the handshake (a renegotiation)")" "2"
expect_eq "a TLS 1.2 session carries 4 MiB down and 2 MiB up" "$(attack_line tls12)" \
    "tls12 | TLSv1.2 4194304, got 2097152, pong three"
expect_eq "... and a TLS 1.3 session, with a KeyUpdate" "$(attack_line tls13)" \
    "tls13 | TLSv1.3 4194304, got 2097152, pong three"
expect_eq "a TLS 1.2 session is resumed with its ticket" \
    "$(attack_line tls12-resumed)" "tls12-resumed | True pong five"
expect_eq "the server was never asked for hidden.test" \
    "$(grep -c hidden "$T/names.log")" "0"
expect_eq "it was asked for front.test by every ClientHello" \
    "$(grep -c '^front\.test$' "$T/names.log")" "6"
finish
