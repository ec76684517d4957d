/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * tls: the server name of a TLS ClientHello, as the first bytes a
 * sandboxed client sends through a CONNECT tunnel.
 *
 * Pure: no I/O, no allocation.  The proxy checks the name the tunnel's
 * TLS asks for against the CONNECT host before any byte goes upstream:
 * a shared front end (a CDN) routes by that name, so a tunnel checked
 * for one host could otherwise reach another behind the same address.
 *
 *   - only a first record of type 22 (handshake), version 3.x and at
 *     most 2^14 bytes, holding one whole ClientHello, is read; a
 *     ClientHello split over records is refused (clients send it whole);
 *   - the server_name extension (RFC 6066) must hold exactly one
 *     host_name, of 1..253 bytes without NUL; a list with more, an
 *     extension seen twice, or a length that runs past its container is
 *     refused;
 *   - a ClientHello without the extension is reported as having no
 *     name (the caller decides).
 */
#ifndef AIRLOCK_PROXY_TLS_H
#define AIRLOCK_PROXY_TLS_H

#include <stddef.h>

#define TLS_RECORD_MAX (5 + 16384) /* header and largest plaintext */
#define TLS_NAME_MAX 254 /* longest name + NUL */
#define TLS_WHY_MAX 96

/*
 * Do |len| bytes start a TLS record of any content type (20..24)?  A
 * tunnel whose first record is not a ClientHello (an alert, say, before
 * it) is refused, not let through unread.
 */
int tls_is_record(const unsigned char *buf, size_t len);

/*
 * Reads the ClientHello in the first record of |buf|.  Returns 0 when
 * more bytes are needed, 1 with the server name in |name| (empty when
 * the ClientHello carries none), or -1 with the reason in |why|.  Both
 * buffers are always NUL-terminated.
 */
int tls_client_hello_name(const unsigned char *buf, size_t len,
    char name[TLS_NAME_MAX], char why[TLS_WHY_MAX]);

#endif
