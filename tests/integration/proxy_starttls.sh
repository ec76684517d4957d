#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# STARTTLS through a CONNECT tunnel to a name, attacked from inside a
# real sandbox against a real server (python's ssl, OpenSSL) on a port
# other than 443 that speaks SMTP-, IMAP- and XMPP-like text and turns
# to TLS on STARTTLS (purging what it had read behind it, as Postfix
# does), logging every server name it is asked for.  A tunnel's start
# that is neither TLS nor HTTP (EHLO, a tag and CAPABILITY, an XMPP
# stream header) passed unread, and so did the ClientHello that came
# after the protocol's request for TLS: it named hidden.test, and the
# server took that name.  The proxy now reads such a tunnel's client
# bytes for a request for TLS (a line ending in STARTTLS or STLS, AUTH
# TLS, XMPP's <starttls/>, LDAP's StartTLS): it goes alone, and what
# follows must be a ClientHello naming the CONNECT host (bytes other
# than TLS there end the tunnel: a server purges them and reads the
# ClientHello behind).  SMTP with STARTTLS to front.test, and plain
# text, still work.
if [ -z "${AIRLOCK_PROXY_TEST_NS:-}" ]; then
	AIRLOCK_PROXY_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
tls_front front.test

# The server: a banner, "250 ok" to each line, and on a line whose last
# word is STARTTLS (or an XMPP <starttls/>) "220 go" (or <proceed/>),
# the rest of what it read thrown away, then TLS ("echo X": "pong X").
# names.log gets each server name asked for.
cat > "$T/srv.py" <<'EOF'
import re
from front import log_name, server_context, serve_forever
ctx = server_context()
ctx.sni_callback = log_name
def starttls(s):
    tls = ctx.wrap_socket(s, server_side=True)
    for line in tls.makefile('rb'):
        w = line.split()
        if len(w) == 2 and w[0] == b'echo':
            tls.sendall(b'pong ' + w[1] + b'\n')
def serve(s, n):
    try:
        s.settimeout(10)
        s.sendall(b'220 front.test ready\r\n')
        buf = b''
        while True:
            d = s.recv(65536)
            if not d:
                break
            buf += d
            if re.search(rb'<starttls[^>]*/>', buf):
                s.sendall(b"<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>")
                return starttls(s)
            while b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                w = line.split()
                if w and w[-1].upper() == b'STARTTLS':
                    s.sendall(b'220 go\r\n')
                    return starttls(s)
                s.sendall(b'250 ok\r\n')
    except (OSError, ValueError):
        pass
    finally:
        s.close()
serve_forever(serve)
EOF
: > "$T/names.log"
tls_front_serve
read -r SP < "$T/srv.port"
ws=$(make_workspace)

tls_front_client
cat > "$A/attack.py" <<'EOF'
import sys
from proxied import attack, client_context, tunnel as proxied_tunnel
port = int(sys.argv[1])
def tunnel():
    s = proxied_tunnel(port)
    expect(s, b'220 front.test ready\r\n')
    return s
def expect(s, what):
    r = b''
    while len(r) < len(what):
        c = s.recv(len(what) - len(r))
        if not c:
            raise OSError('closed')
        r += c
    if r != what:
        raise OSError('answer %r' % r)
def tls(s, name):
    s = client_context().wrap_socket(s, server_hostname=name)
    s.sendall(b'echo ' + name.encode() + b'\n')
    return '%s %s' % (s.version(), s.recv(100).decode().strip())
def smtp(name, junk=b''):
    def f():
        # The request for TLS at the tunnel's start, with its EHLO.
        s = tunnel()
        s.sendall(b'EHLO sandbox\r\nSTARTTLS\r\n' + junk)
        expect(s, b'250 ok\r\n220 go\r\n')
        return tls(s, name)
    return f
def imap():
    # The request for TLS after the start, in a write of its own.
    s = tunnel()
    s.sendall(b'a1 CAPABILITY\r\n')
    expect(s, b'250 ok\r\n')
    s.sendall(b'a2 STARTTLS\r\n')
    expect(s, b'220 go\r\n')
    return tls(s, 'hidden.test')
def xmpp():
    s = tunnel()
    s.sendall(b"<?xml version='1.0'?><stream:stream to='front.test' "
              b"xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>")
    s.sendall(b"<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>")
    expect(s, b"<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>")
    return tls(s, 'hidden.test')
def plain():
    s = tunnel()
    s.sendall(b'EHLO sandbox\r\n')
    expect(s, b'250 ok\r\n')
    s.sendall(b'QUIT\r\n')
    expect(s, b'250 ok\r\n')
    return 'ok'
attack('smtp-other', smtp('hidden.test'))
attack('imap-other', imap)
attack('xmpp-other', xmpp)
attack('smtp-junk', smtp('hidden.test', b'NOOP'))
attack('smtp-good', smtp('front.test'))
attack('plain', plain)
EOF
tls_front_attack "$SP"
denied() { printf '%s\n' "$out" | grep -c "denied: network front.test:$SP (proxy): $1"; }
expect_eq "a ClientHello after SMTP's, IMAP's or XMPP's STARTTLS naming another server is refused" \
    "$(denied 'TLS server name hidden.test is not the CONNECT host front.test')" "3"
expect_eq "... and the client gets no session" \
    "$(attack_line smtp-other) $(attack_line imap-other) $(attack_line xmpp-other)" \
    "smtp-other | error imap-other | error xmpp-other | error"
expect_eq "bytes other than TLS after STARTTLS (which the server throws away) end the tunnel" \
    "$(denied 'bytes other than a TLS record after a request for TLS (STARTTLS)')" "1"
expect_eq "SMTP with STARTTLS to the CONNECT host works" "$(attack_line smtp-good)" \
    "smtp-good | TLSv1.3 pong front.test"
expect_eq "plain text passes" "$(attack_line plain)" "plain | ok"
expect_eq "the server was never asked for hidden.test" \
    "$(grep -c hidden "$T/names.log")" "0"
expect_eq "it was asked for front.test" \
    "$(grep -c '^front\.test$' "$T/names.log")" "1"
finish
