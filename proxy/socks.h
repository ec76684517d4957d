/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * socks: a strict parser for the SOCKS5 greeting and request (RFC 1928,
 * CONNECT with no authentication only), as the egress proxy receives
 * them from sandboxed code.
 *
 * Pure: no I/O, no allocation.  The proxy answers the greeting itself
 * and decides the request's destination exactly like an HTTP CONNECT's:
 * the parser only cuts the destination out and prints it as an
 * authority ("host:port", "[v6]:port") for the proxy's one authority
 * parser (proxy/rules.h rules_parse_authority()), which judges the name.
 *
 *   - the greeting is VER NMETHODS METHODS; VER is 5, and one of the
 *     NMETHODS (1..255) methods is 0 ("no authentication required");
 *   - the request is VER CMD RSV ATYP DST.ADDR DST.PORT; VER is 5, RSV
 *     0, CMD 1 (CONNECT), ATYP 1 (4 address bytes), 3 (a length byte
 *     and that many name bytes) or 4 (16 address bytes);
 *   - a name holding ':' or NUL is refused here: printed as an
 *     authority it would read as another host or port;
 *   - bytes after the request (early data) are not looked at.
 */
#ifndef AIRLOCK_PROXY_SOCKS_H
#define AIRLOCK_PROXY_SOCKS_H

#include <stddef.h>
#include <stdint.h>

#define SOCKS_VERSION 5
#define SOCKS_ATYP_IPV4 1
#define SOCKS_ATYP_NAME 3
#define SOCKS_ATYP_IPV6 4
#define SOCKS_NAME_MAX 255
/* "[" 39-byte IPv6 "]:" 5 digits, or a 255-byte name ":" 5 digits, NUL. */
#define SOCKS_AUTHORITY_MAX 272
#define SOCKS_WHY_MAX 96

struct socks_greeting {
	size_t len; /* bytes of the greeting */
	char why[SOCKS_WHY_MAX]; /* set when refused */
};

struct socks_request {
	size_t len; /* bytes of the request, through DST.PORT */
	unsigned char cmd; /* SOCKS5 command: 1, CONNECT */
	unsigned char atyp; /* SOCKS_ATYP_* */
	unsigned char addr[16]; /* ATYP 1: the first 4; ATYP 4: all 16 */
	char name[SOCKS_NAME_MAX + 1]; /* ATYP 3, NUL-terminated */
	uint16_t port; /* DST.PORT, host order; 0 is left to the caller */
	/* The destination as an authority, NUL-terminated: "a.b.c.d:port",
	 * "[v6]:port" (inet_ntop's forms) or "name:port". */
	char authority[SOCKS_AUTHORITY_MAX];
	char why[SOCKS_WHY_MAX]; /* set when refused */
};

/*
 * Parses the greeting at the start of |buf| (|len| bytes; what follows
 * it is the request and is not looked at).
 *
 * Returns 1 when a complete greeting offers "no authentication"
 * (g->len is its length), 0 when more bytes are needed (nothing seen so
 * far is wrong), AL_ERR_FORMAT when the version is not 5, or
 * AL_ERR_UNSUPPORTED when no method, or none of those offered, is
 * "no authentication".  g->why (printable, NUL-terminated) says why; it
 * is empty otherwise.  g is cleared first.
 */
int socks_greeting_parse(
    const unsigned char *buf, size_t len, struct socks_greeting *g);

/*
 * Parses the request at the start of |buf| (|len| bytes; bytes after it
 * are early data for the destination and are not looked at).  Fewer
 * than 5 bytes always ask for more, as do 5 or more that hold a
 * well-formed start of a request that is not yet complete.
 *
 * Returns 1 with every field of |r| set, 0 when more bytes are needed,
 * AL_ERR_FORMAT when the version is not 5, the reserved byte is not 0,
 * or a name holds ':' or NUL, or AL_ERR_UNSUPPORTED when the command is
 * not CONNECT or the address type is not 1, 3 or 4.  r->why (printable,
 * NUL-terminated) says why, and is all there is to read of |r|; it is
 * empty otherwise.  r is cleared first.
 */
int socks_request_parse(
    const unsigned char *buf, size_t len, struct socks_request *r);

#endif
