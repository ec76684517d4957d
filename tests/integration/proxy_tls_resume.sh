#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A TLS 1.2 resumption through a CONNECT tunnel, attacked from inside a
# real sandbox against real servers (python's ssl, OpenSSL) that log the
# server name their servername callback is given.  In TLS 1.2 the name
# belongs to the session: OpenSSL's SSL_get_servername() on a resumed
# session gives the name it was made for.  A session for hidden.test,
# got from the same server outside the sandbox and put in the workspace
# (its DER, set with SSL_set_session()), resumed by its ticket through
# CONNECT front.test with front.test in the ClientHello, and the server
# was given hidden.test.  (By its session ID, OpenSSL 3.0 does not
# resume it under another name: a full handshake for front.test.)  The
# proxy now lets a ticket resume only when it saw it issued, in clear
# (a TLS 1.2 NewSessionTicket), for the CONNECT host: another closes
# the tunnel before the ClientHello goes.  Sessions made through the
# proxy for front.test resume, by ticket and by session ID (a server
# with tickets off), and a TLS 1.3 session resumes (its name is the
# ClientHello's).
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
tls_front front.test hidden.test

# Two servers: "ticket" (tickets on) and "id" (tickets off: its session
# cache); names.log gets "SERVER NAME" for each name the callback is
# given.  A connection's first bytes are answered "pong" and them.
cat > "$T/srv.py" <<'EOF'
import socket, ssl, threading
from front import server_context, t
def server(kind):
    def sni(obj, name, c):
        with open(t + '/names.log', 'a') as o:
            o.write('%s %s\n' % (kind, name))
    ctx = server_context()
    ctx.sni_callback = sni
    if kind == 'id':
        ctx.options |= ssl.OP_NO_TICKET
    ls = socket.socket()
    ls.bind(('127.0.0.1', 0))
    ls.listen(16)
    def one(s):
        try:
            s.settimeout(5)
            x = ctx.wrap_socket(s, server_side=True)
            x.sendall(b'pong ' + x.recv(100))
            x.recv(1)
        except Exception:
            pass
        s.close()
    def loop():
        while True:
            s, _ = ls.accept()
            threading.Thread(target=one, args=(s,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
    return ls.getsockname()[1]
ports = '%d %d\n' % (server('ticket'), server('id'))
with open(t + '/srv.port', 'w') as f:
    f.write(ports)
threading.Event().wait()
EOF
: > "$T/names.log"
tls_front_serve
read -r PT PI < "$T/srv.port"
ws=$(make_workspace)

tls_front_client
# A session's DER and back, through python's objects: the SSL_SESSION *
# follows an SSLSession's object head, the SSL * an _SSLSocket's head
# and its socket's weak reference (SSL_version() checks it is one).
cat > "$A/sess.py" <<'EOF'
import ctypes, os, socket, ssl
lib = ctypes.CDLL('libssl.so.3')
lib.i2d_SSL_SESSION.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
lib.d2i_SSL_SESSION.restype = ctypes.c_void_p
lib.d2i_SSL_SESSION.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_long]
lib.SSL_set_session.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.SSL_version.argtypes = [ctypes.c_void_p]
from proxied import client_context
def context(v):
    ctx = client_context()
    ctx.maximum_version = v
    return ctx
def der(sess):
    sp = ctypes.c_void_p.from_address(id(sess) + 16).value
    n = lib.i2d_SSL_SESSION(sp, None)
    buf = ctypes.create_string_buffer(n)
    pp = ctypes.c_void_p(ctypes.addressof(buf))
    lib.i2d_SSL_SESSION(sp, ctypes.byref(pp))
    return buf.raw
def resume_der(x, data):
    p = ctypes.c_void_p.from_address(id(x._sslobj) + 24).value
    if lib.SSL_version(p) not in (0x301, 0x302, 0x303, 0x304):
        raise OSError('no SSL object')
    src = ctypes.create_string_buffer(data, len(data))
    q = ctypes.c_void_p(ctypes.addressof(src))
    lib.SSL_set_session(p, lib.d2i_SSL_SESSION(None, ctypes.byref(q), len(data)))
EOF
# Outside the sandbox: a session for hidden.test, straight from the server.
cat > "$A/get.py" <<'EOF'
import socket, ssl, sys
sys.path.insert(0, sys.argv[1])
from sess import context, der
s = context(ssl.TLSVersion.TLSv1_2).wrap_socket(
    socket.create_connection(('127.0.0.1', int(sys.argv[2]))),
    server_hostname='hidden.test')
s.sendall(b'x')
s.recv(100)
sess = s.session
open(sys.argv[1] + '/ticket.der', 'wb').write(der(sess))
EOF
cat > "$A/attack.py" <<'EOF'
import os, ssl, sys
from proxied import attack, tunnel
from sess import context, resume_der
PT, PI = int(sys.argv[1]), int(sys.argv[2])
def ping(x, what):
    x.sendall(what)
    return x.recv(100).decode()
def foreign(port, f):
    def run():
        x = context(ssl.TLSVersion.TLSv1_2).wrap_socket(
            tunnel(port), server_hostname='front.test',
            do_handshake_on_connect=False)
        resume_der(x, open(os.path.dirname(sys.argv[0]) + '/' + f, 'rb').read())
        x.do_handshake()
        return '%s %s' % (x.session_reused, ping(x, b'hidden'))
    return run
def own(port, v):
    def run():
        ctx = context(v)
        x = ctx.wrap_socket(tunnel(port), server_hostname='front.test')
        ping(x, b'one')
        sess = x.session
        y = ctx.wrap_socket(tunnel(port), server_hostname='front.test',
                            session=sess)
        return '%s %s' % (y.session_reused, ping(y, b'two'))
    return run
attack('foreign-ticket', foreign(PT, 'ticket.der'))
attack('own-ticket', own(PT, ssl.TLSVersion.TLSv1_2))
attack('own-id', own(PI, ssl.TLSVersion.TLSv1_2))
attack('own-tls13', own(PT, ssl.TLSVersion.TLSv1_3))
EOF
python3 "$A/get.py" "$A" "$PT" || { echo "not ok - cannot get the session"; exit 1; }
expect_eq "the server made the session for hidden.test" \
    "$(cat "$T/names.log")" "ticket hidden.test"
tls_front_attack "$PT" "$PI"
expect_eq "a ticket for hidden.test is refused" "$(attack_line foreign-ticket)" \
    "foreign-ticket | error"
expect_contains "... before the ClientHello goes" "$out" \
    "denied: network front.test:$PT (proxy): TLS session ticket not issued for front.test through the proxy"
expect_eq "a session made through the proxy resumes by its ticket" \
    "$(attack_line own-ticket)" "own-ticket | True pong two"
expect_eq "... and by its session ID" "$(attack_line own-id)" "own-id | True pong two"
expect_eq "a TLS 1.3 session resumes" "$(attack_line own-tls13)" \
    "own-tls13 | True pong two"
expect_eq "the server was given hidden.test only outside the sandbox" \
    "$(grep -c hidden "$T/names.log")" "1"
finish
