/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* SOCKS5 greeting and request parsing: see socks.h. */
#include "config.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "proxy/socks.h"

static int refuse(char *why, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
refuse(char *why, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, SOCKS_WHY_MAX, fmt, ap);
	va_end(ap);
	return rc;
}

int
socks_greeting_parse(
    const unsigned char *buf, size_t len, struct socks_greeting *g)
{
	memset(g, 0, sizeof(*g));
	if (len >= 1 && buf[0] != SOCKS_VERSION)
		return refuse(g->why, AL_ERR_FORMAT,
		    "not a SOCKS5 greeting (version %u)", buf[0]);
	if (len < 2 || len - 2 < (size_t)buf[1])
		return 0;
	if (buf[1] == 0 || memchr(buf + 2, 0x00, buf[1]) == NULL)
		return refuse(g->why, AL_ERR_UNSUPPORTED,
		    "SOCKS5 client offers no 'no authentication' method");
	g->len = 2 + (size_t)buf[1];
	return 1;
}

int
socks_request_parse(
    const unsigned char *buf, size_t len, struct socks_request *r)
{
	char a[INET6_ADDRSTRLEN];
	size_t alen;

	memset(r, 0, sizeof(*r));
	/* Nothing is judged before the first byte of the address. */
	if (len < 5)
		return 0;
	if (buf[0] != SOCKS_VERSION || buf[2] != 0)
		return refuse(
		    r->why, AL_ERR_FORMAT, "malformed SOCKS5 request");
	if (buf[1] != 1)
		return refuse(r->why, AL_ERR_UNSUPPORTED,
		    "SOCKS5 command %u not supported (CONNECT only)", buf[1]);
	switch (buf[3]) {
	case SOCKS_ATYP_IPV4:
		alen = 4;
		break;
	case SOCKS_ATYP_IPV6:
		alen = 16;
		break;
	case SOCKS_ATYP_NAME:
		alen = 1 + (size_t)buf[4];
		break;
	default:
		return refuse(r->why, AL_ERR_UNSUPPORTED,
		    "SOCKS5 address type %u not supported", buf[3]);
	}
	/* VER CMD RSV ATYP, the address, the port: at most 4 + 256 + 2. */
	if (len < 4 + alen + 2)
		return 0;
	r->cmd = buf[1];
	r->atyp = buf[3];
	r->port = (uint16_t)(buf[4 + alen] << 8 | buf[5 + alen]);
	r->len = 4 + alen + 2;
	if (r->atyp == SOCKS_ATYP_NAME) {
		/* Every byte of the name goes through the authority
		 * parser; these two would be read as something else. */
		if (memchr(buf + 5, ':', buf[4]) != NULL ||
		    memchr(buf + 5, '\0', buf[4]) != NULL) {
			r->len = 0;
			return refuse(
			    r->why, AL_ERR_FORMAT, "bad SOCKS5 host name");
		}
		memcpy(r->name, buf + 5, buf[4]);
		snprintf(r->authority, sizeof(r->authority), "%s:%u", r->name,
		    r->port);
		return 1;
	}
	memcpy(r->addr, buf + 4, alen);
	if (inet_ntop(r->atyp == SOCKS_ATYP_IPV4 ? AF_INET : AF_INET6, r->addr,
		a, sizeof(a)) == NULL) {
		r->len = 0;
		return refuse(r->why, AL_ERR_FORMAT, "bad SOCKS5 address");
	}
	snprintf(r->authority, sizeof(r->authority),
	    r->atyp == SOCKS_ATYP_IPV4 ? "%s:%u" : "[%s]:%u", a, r->port);
	return 1;
}
