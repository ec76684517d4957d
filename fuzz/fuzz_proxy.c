/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for the egress proxy's parsers, the first code to read
 * what sandboxed code sends the proxy: proxy/http.c http_head_parse (the
 * request head) and proxy/rules.c rules_parse_authority (host[:port] and
 * its host normalisation), and proxy/socks.c socks_greeting_parse and
 * socks_request_parse (the SOCKS5 greeting and CONNECT request) with the
 * authorities they print.
 *
 * Each input is read as:
 *   1. a request head, with the proxy's limits and with small ones, and
 *      again in the prefixes the proxy sees as the head arrives;
 *   2. the destination of a head that parses, cut out as conn_request()
 *      does (CONNECT's target; an absolute http:// target's authority,
 *      port 80 by default), and its Host value;
 *   3. an authority, with no default port (CONNECT) and with 80;
 *   4. a SOCKS5 greeting and, after one that parses, a request; a
 *      request alone; and a request of each address type whose address
 *      (4 or 16 bytes, or a name of the input's length less 2) and port
 *      are the input's bytes.
 *
 * Invariants checked, beyond "does not crash" (ASan, UBSan):
 *   - a refused head has status 400, 411 or 431 (431 alone with
 *     AL_ERR_LIMIT) and a printable reason; "need more" is never said of
 *     bytes that hold a blank line;
 *   - a head that parses ends in CRLF CRLF, holds no NUL, bare CR or bare
 *     LF; its request line is METHOD SP TARGET SP HTTP/1.x within the line
 *     limit; every field is a token name, a colon and a trimmed value
 *     with no control byte (so no CR, LF or NUL); there is at most one
 *     Host (the one h->host names), at most one Content-Length (its
 *     digits are h->content_length), no Transfer-Encoding, no Connection
 *     naming a framing field, a Host in every HTTP/1.1 request but
 *     CONNECT, no body framing on CONNECT;
 *   - every prefix of that head asks for more bytes, the head alone parses
 *     the same, and smaller limits never accept what the proxy's refuse;
 *   - a parsed authority's host is 1..253 bytes, a name is lowercase
 *     [a-z0-9_-] labels of 1..63 bytes joined by single dots (no leading
 *     or trailing dot), is the input's host lowercased without its one
 *     trailing dot, and is neither an IPv4 literal inet_aton(3) would read
 *     (a resolver would) nor an IPv6 one; an IPv4 literal is in canonical
 *     dotted-quad form and its bytes; an IPv6 literal came in brackets and
 *     is inet_ntop's form of its bytes; the port is 1..65535, and the
 *     default port only when none was written; a refusal gives a reason;
 *   - the canonical form printed back, also in upper case, with a
 *     trailing dot, or without the port when it is the default, parses to
 *     the same destination; the input in upper or lower case parses the
 *     same way;
 *   - a host rule written from the canonical form allows the destination
 *     (a name; a literal only if its address is public), the same host on
 *     another port is not allowed, "*.host" never matches host itself and
 *     "*.parent" matches it;
 *   - a SOCKS5 greeting or request is accepted only when whole and as
 *     RFC 1928 says (version 5, "no authentication" offered, CONNECT,
 *     reserved byte 0, address type 1, 3 or 4), its length is what its
 *     bytes say, every prefix asks for more, and it alone parses the
 *     same; "need more" is never said of a whole one; a refusal comes
 *     with a printable reason, and never before a request's fifth byte;
 *   - a SOCKS5 address's authority parses back to the same bytes and
 *     port (port 0 refused); a name is the bytes sent, holds no ':', and
 *     never becomes an IPv6 literal;
 *   - proxy/tls.c tls_client_hello_name (the server name of the
 *     ClientHello a tunnel starts with) judges only a whole first record:
 *     every prefix of it asks for more, it alone reads the same, and
 *     "need more" is never said of a whole one; a name is 1..253 bytes
 *     without NUL, found in the record's bytes; a refusal gives a
 *     printable reason; only a record of a TLS type is judged at all;
 *   - proxy/tls.c tls_server_retries (is the server's first message a
 *     HelloRetryRequest?) decides on at most TLS_SERVER_FIRST bytes and
 *     never changes its mind on more; tls_second_hello_name (the
 *     ClientHello after one) takes its name from the bytes;
 *     tls_upgrade_prelude (a database's request for TLS) is 8 or 36
 *     bytes, read from those alone, and never wants more than 36;
 *     tls_second_hello_end is within the bytes, past the second
 *     ClientHello's name;
 *   - proxy/tls.c tls_walk (the records after the ClientHello: a
 *     renegotiation is refused) decides the same whatever pieces the
 *     stream comes in, a refusal gives a printable reason, and a stream
 *     of application_data records alone is never refused;
 *   - proxy/tls.c tls_asks_for_tls (the end of a request for TLS in a
 *     text protocol: STARTTLS) finds the same end whatever pieces the
 *     stream comes in, within the bytes, at a LF, a '>' or LDAP's OID's
 *     last '7';
 *   - proxy/tls.c tls_server_walk (the server's handshake, read for the
 *     TLS 1.2 tickets it issues) learns the same tickets at the same
 *     bytes whatever pieces the stream comes in, and stops for good;
 *     tls_client_hello_resume reads any bytes without harm and offers a
 *     ticket only from a record that holds its extension;
 *   - proxy/http.c http_starts_request (is a tunnel's start an HTTP
 *     request?) says so of every head http_head_parse accepts, and of
 *     every prefix of it that holds its first line; "not a request" is
 *     never said of bytes the parser would accept; http_proxy_header
 *     never wants more than the 12 bytes of the longest signature.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/errors.h"
#include "proxy/http.h"
#include "proxy/rules.h"
#include "proxy/socks.h"
#include "proxy/tls.h"

/* The proxy's defaults (proxy_limits_default) and small ones. */
#define MAX_LINE 8192
#define MAX_HEAD 32768
#define SMALL_LINE 64
#define SMALL_HEAD 512

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fail(const char *what, const char *in, size_t len)
{
	fprintf(stderr, "fuzz_proxy: %s: input \"%.*s\"\n", what,
	    (int)(len > 512 ? 512 : len), in);
	abort();
}

static int
is_tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') ||
	    (ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

static int
span_is(const char *buf, struct http_span s, const char *name)
{
	return s.len == strlen(name) &&
	    strncasecmp(buf + s.off, name, s.len) == 0;
}

/* Is the message (|cap| bytes) NUL-terminated, printable and non-empty? */
static int
reason_ok(const char *why, size_t cap)
{
	size_t i;

	if (memchr(why, '\0', cap) == NULL || why[0] == '\0')
		return 0;
	for (i = 0; why[i] != '\0'; i++)
		if ((unsigned char)why[i] < 0x20 ||
		    (unsigned char)why[i] > 0x7e)
			return 0;
	return 1;
}

/* --- authorities ----------------------------------------------------------- */

static int
same_target(const struct rules_target *a, const struct rules_target *b)
{
	return strcmp(a->host, b->host) == 0 && a->port == b->port &&
	    a->family == b->family && memcmp(a->addr, b->addr, 16) == 0;
}

/* Parses |s| (a NUL-terminated string) and wants exactly |want|. */
static void
expect_same(const char *s, uint16_t defport, const struct rules_target *want,
    const char *what)
{
	struct rules_target t;
	char why[RULES_REASON_MAX];

	if (rules_parse_authority(
		s, strlen(s), defport, &t, why, sizeof(why)) != 0 ||
	    !same_target(&t, want)) {
		fprintf(stderr,
		    "fuzz_proxy: %s: %s parses as %s:%u, not %s:%u\n", what, s,
		    t.host, t.port, want->host, want->port);
		abort();
	}
}

/* Is |s| (|n| bytes) numeric in the URL standard's sense? */
static int
numeric_label(const char *s, size_t n)
{
	size_t i = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n; i++)
			if (!isxdigit((unsigned char)s[i]))
				return 0;
		return 1;
	}
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
}

static void
check_name(const char *in, size_t len, const struct rules_target *t)
{
	const char *h = t->host, *colon;
	struct in_addr a4;
	unsigned char a6[16];
	size_t i, n = strlen(h), label = 0, last = 0, hlen;

	for (i = 0; i < n; i++) {
		if (h[i] == '.') {
			if (label == 0)
				fail("empty label in a parsed host", in, len);
			label = 0;
			last = i + 1;
			continue;
		}
		if (!((h[i] >= 'a' && h[i] <= 'z') ||
			(h[i] >= '0' && h[i] <= '9') || h[i] == '-' ||
			h[i] == '_'))
			fail("byte outside [a-z0-9_-] in a parsed host", in,
			    len);
		if (++label > 63)
			fail("label longer than 63 bytes in a parsed host", in,
			    len);
	}
	if (label == 0)
		fail("parsed host ends in a dot or is empty", in, len);
	if (numeric_label(h + last, n - last))
		fail("name whose last label is a number", in, len);
	if (inet_aton(h, &a4) != 0)
		fail("name a resolver reads as an IPv4 literal", in, len);
	if (inet_pton(AF_INET6, h, a6) == 1)
		fail("name that is an IPv6 literal", in, len);
	for (i = 0; i < 16; i++)
		if (t->addr[i] != 0)
			fail("name with an address", in, len);
	/* The host written, lowercased, less one trailing dot. */
	hlen =
	    (colon = memchr(in, ':', len)) != NULL ? (size_t)(colon - in) : len;
	if (hlen > 0 && in[hlen - 1] == '.')
		hlen--;
	if (hlen != n)
		fail("parsed host is not the host written", in, len);
	for (i = 0; i < n; i++)
		if (tolower((unsigned char)in[i]) != h[i])
			fail("parsed host is not the host written", in, len);
}

static void
check_literal(const char *in, size_t len, const struct rules_target *t)
{
	unsigned char a[16];
	char back[INET6_ADDRSTRLEN];
	size_t i;

	if (t->family == AF_INET) {
		if (len > 0 && in[0] == '[')
			fail("bracketed IPv4 literal", in, len);
		if (inet_pton(AF_INET, t->host, a) != 1 ||
		    memcmp(a, t->addr, 4) != 0)
			fail("IPv4 literal does not hold its address", in, len);
		for (i = 4; i < 16; i++)
			if (t->addr[i] != 0)
				fail("IPv4 literal with bytes past 4", in, len);
		if (inet_ntop(AF_INET, t->addr, back, sizeof(back)) == NULL ||
		    strcmp(back, t->host) != 0)
			fail("IPv4 literal not in canonical form", in, len);
		return;
	}
	if (len == 0 || in[0] != '[')
		fail("IPv6 literal without brackets", in, len);
	if (inet_ntop(AF_INET6, t->addr, back, sizeof(back)) == NULL ||
	    strcmp(back, t->host) != 0)
		fail("IPv6 literal not in inet_ntop form", in, len);
}

/* A host rule written from |canon| decides |t| as it should. */
static void
check_rules(
    const char *in, size_t len, const struct rules_target *t, const char *canon)
{
	struct rules *r;
	char rule[RULES_REASON_MAX], reason[RULES_REASON_MAX];
	char pat[RULES_HOST_MAX + 16], err[RULES_REASON_MAX];
	struct rules_target other;
	const char *dot;
	int allowed;

	if ((r = rules_new()) == NULL)
		abort();
	if (rules_add_host(r, canon, err, sizeof(err)) != 0)
		fail("the canonical form is not a host rule", in, len);
	allowed = rules_check_target(
	    r, t, rule, sizeof(rule), reason, sizeof(reason));
	if (t->family == 0 ? !allowed
			   : allowed !=
		    (rules_classify(t->family, t->addr, NULL, 0) ==
			ADDR_PUBLIC))
		fail("host rule from the canonical form decides wrongly", in,
		    len);
	if (!allowed && !reason_ok(reason, sizeof(reason)))
		fail("refusal without a reason", in, len);
	other = *t;
	other.port = t->port == 65535 ? 1 : t->port + 1;
	if (rules_check_target(
		r, &other, rule, sizeof(rule), reason, sizeof(reason)))
		fail("host rule allows another port", in, len);
	rules_free(r);
	if (t->family != 0)
		return;

	/* "*.host" never matches host; "*.parent" matches host. */
	if ((r = rules_new()) == NULL)
		abort();
	snprintf(pat, sizeof(pat), "*.%s:%u", t->host, t->port);
	if (rules_add_host(r, pat, err, sizeof(err)) == 0 &&
	    rules_check_target(
		r, t, rule, sizeof(rule), reason, sizeof(reason)))
		fail("*.host matches host itself", in, len);
	rules_free(r);
	if ((dot = strchr(t->host, '.')) == NULL ||
	    strchr(dot + 1, '.') == NULL)
		return;
	if ((r = rules_new()) == NULL)
		abort();
	snprintf(pat, sizeof(pat), "*.%s:*", dot + 1);
	if (rules_add_host(r, pat, err, sizeof(err)) != 0 ||
	    !rules_check_target(
		r, t, rule, sizeof(rule), reason, sizeof(reason)))
		fail("*.parent does not match a subdomain", in, len);
	rules_free(r);
}

/* Parses |len| bytes at |in| as an authority and checks the result. */
static int
check_authority(
    const char *in, size_t len, uint16_t defport, struct rules_target *out)
{
	struct rules_target t, u;
	char why[RULES_REASON_MAX], canon[RULES_HOST_MAX + 16];
	const char *close;
	char *alt;
	size_t i, n;
	int rc, rc2, written;

	memset(why, 'X', sizeof(why));
	rc = rules_parse_authority(in, len, defport, &t, why, sizeof(why));
	if (memchr(why, '\0', sizeof(why)) == NULL)
		fail("reason not terminated", in, len);
	if (rc != 0) {
		if (rc != AL_ERR_FORMAT)
			fail("undocumented error code", in, len);
		if (!reason_ok(why, sizeof(why)))
			fail("refusal without a printable reason", in, len);
	} else {
		n = strnlen(t.host, sizeof(t.host));
		if (why[0] != '\0')
			fail("a reason for an authority that parsed", in, len);
		if (n == 0 || n > 253)
			fail("parsed host empty or longer than 253 bytes", in,
			    len);
		if (t.port == 0)
			fail("port 0", in, len);
		if (t.family == 0)
			check_name(in, len, &t);
		else if (t.family == AF_INET || t.family == AF_INET6)
			check_literal(in, len, &t);
		else
			fail("unknown family", in, len);
		/* A port was written iff ':' follows the host. */
		if (t.family == AF_INET6)
			written = (close = memchr(in, ']', len)) != NULL &&
			    close + 1 < in + len;
		else
			written = memchr(in, ':', len) != NULL;
		if (!written && (defport == 0 || t.port != defport))
			fail("port not written, and not the default", in, len);

		/* The canonical form, and its variants. */
		snprintf(canon, sizeof(canon),
		    t.family == AF_INET6 ? "[%s]:%u" : "%s:%u", t.host, t.port);
		expect_same(canon, 0, &t, "canonical form");
		expect_same(canon, t.port, &t, "canonical form");
		for (i = 0; canon[i] != '\0'; i++)
			canon[i] = (char)toupper((unsigned char)canon[i]);
		expect_same(canon, 0, &t, "canonical form in upper case");
		snprintf(canon, sizeof(canon),
		    t.family == AF_INET6 ? "[%s]" : "%s", t.host);
		expect_same(canon, t.port, &t, "canonical form, default port");
		if (t.family != AF_INET6) {
			snprintf(
			    canon, sizeof(canon), "%s.:%u", t.host, t.port);
			expect_same(
			    canon, 0, &t, "canonical form, trailing dot");
		}
		snprintf(canon, sizeof(canon),
		    t.family == AF_INET6 ? "[%s]:%u" : "%s:%u", t.host, t.port);
		check_rules(in, len, &t, canon);
	}

	/* Case never matters. */
	if ((alt = malloc(len + 1)) == NULL)
		abort();
	for (i = 0; i < len; i++)
		alt[i] = (char)toupper((unsigned char)in[i]);
	rc2 = rules_parse_authority(alt, len, defport, &u, why, sizeof(why));
	if (rc2 != rc || (rc == 0 && !same_target(&t, &u)))
		fail("upper case parses differently", in, len);
	for (i = 0; i < len; i++)
		alt[i] = (char)tolower((unsigned char)in[i]);
	rc2 = rules_parse_authority(alt, len, defport, &u, why, sizeof(why));
	if (rc2 != rc || (rc == 0 && !same_target(&t, &u)))
		fail("lower case parses differently", in, len);
	free(alt);
	if (out != NULL)
		*out = t;
	return rc;
}

/* --- SOCKS5 (proxy/socks.c) ---------------------------------------------- */

static int
socks_rc_ok(int rc)
{
	return rc == 1 || rc == 0 || rc == AL_ERR_FORMAT ||
	    rc == AL_ERR_UNSUPPORTED;
}

static void
check_greeting(const unsigned char *d, size_t size)
{
	struct socks_greeting g, g2;
	const char *in = (const char *)d;
	size_t i;
	int rc;

	memset(&g, 0xa5, sizeof(g));
	rc = socks_greeting_parse(d, size, &g);
	if (!socks_rc_ok(rc))
		fail("SOCKS5 greeting: undocumented return", in, size);
	if (memchr(g.why, '\0', sizeof(g.why)) == NULL)
		fail("SOCKS5 greeting: reason not terminated", in, size);
	if (rc >= 0 && g.why[0] != '\0')
		fail("SOCKS5 greeting: a reason without a refusal", in, size);
	if (rc < 0 && !reason_ok(g.why, sizeof(g.why)))
		fail("SOCKS5 greeting: refusal without a printable reason", in,
		    size);
	if (rc == 0 && size >= 2 && d[0] == 5 && size >= 2 + (size_t)d[1])
		fail("SOCKS5 greeting: more bytes asked for a whole one", in,
		    size);
	if (rc == 0 && size >= 1 && d[0] != 5)
		fail("SOCKS5 greeting: more bytes asked for a bad version", in,
		    size);
	if (rc == 1) {
		if (d[0] != 5 || g.len != 2 + (size_t)d[1] || g.len > size ||
		    d[1] == 0 || memchr(d + 2, 0, d[1]) == NULL)
			fail("SOCKS5 greeting accepted wrongly", in, size);
		/* As it arrives: each prefix asks for more. */
		for (i = 0; i < g.len; i++)
			if (socks_greeting_parse(d, i, &g2) != 0)
				fail("SOCKS5 greeting: a prefix is refused", in,
				    size);
		if (socks_greeting_parse(d, g.len, &g2) != 1 || g2.len != g.len)
			fail("SOCKS5 greeting alone parses differently", in,
			    size);
	}
}

/* The prefixes of a request that parsed ask for more; it alone parses
 * the same. */
static void
check_request_prefixes(
    const unsigned char *d, size_t size, const struct socks_request *r)
{
	static struct socks_request r2;
	size_t i;

	for (i = 0; i < r->len; i++)
		if (socks_request_parse(d, i, &r2) != 0)
			fail("SOCKS5 request: a prefix is not 'need more'",
			    (const char *)d, size);
	if (socks_request_parse(d, r->len, &r2) != 1 || r2.len != r->len ||
	    strcmp(r2.authority, r->authority) != 0 || r2.port != r->port ||
	    r2.atyp != r->atyp || memcmp(r2.addr, r->addr, 16) != 0 ||
	    strcmp(r2.name, r->name) != 0)
		fail("SOCKS5 request alone parses differently", (const char *)d,
		    size);
}

/* Parses |d| as a request, checks it, and its authority as the proxy
 * then parses it. */
static void
check_request(const unsigned char *d, size_t size)
{
	static struct socks_request r;
	const char *in = (const char *)d;
	struct rules_target t;
	size_t alen, nlen;
	int rc;

	memset(&r, 0xa5, sizeof(r));
	rc = socks_request_parse(d, size, &r);
	if (!socks_rc_ok(rc))
		fail("SOCKS5 request: undocumented return", in, size);
	if (memchr(r.why, '\0', sizeof(r.why)) == NULL)
		fail("SOCKS5 request: reason not terminated", in, size);
	if (rc >= 0 && r.why[0] != '\0')
		fail("SOCKS5 request: a reason without a refusal", in, size);
	if (rc < 0 && !reason_ok(r.why, sizeof(r.why)))
		fail("SOCKS5 request: refusal without a printable reason", in,
		    size);
	if (rc < 0 && size < 5)
		fail("SOCKS5 request refused before its fifth byte", in, size);
	if (rc == 0 && size >= 5 && d[0] == 5 && d[1] == 1 && d[2] == 0 &&
	    (d[3] == 1 || d[3] == 3 || d[3] == 4)) {
		alen = d[3] == 1 ? 4 : d[3] == 4 ? 16 : 1 + (size_t)d[4];
		if (size >= 4 + alen + 2)
			fail("SOCKS5 request: more bytes asked for a whole one",
			    in, size);
	}
	if (rc != 1)
		return;
	if (d[0] != 5 || d[1] != 1 || d[2] != 0 || r.cmd != 1 || r.atyp != d[3])
		fail("SOCKS5 request accepted wrongly", in, size);
	alen = r.atyp == SOCKS_ATYP_IPV4 ? 4
	    : r.atyp == SOCKS_ATYP_IPV6	 ? 16
	    : r.atyp == SOCKS_ATYP_NAME	 ? 1 + (size_t)d[4]
					 : 0;
	if (alen == 0 || r.len != 4 + alen + 2 || r.len > size ||
	    r.port != (uint16_t)(d[4 + alen] << 8 | d[5 + alen]))
		fail("SOCKS5 request: length or port", in, size);
	if (memchr(r.authority, '\0', sizeof(r.authority)) == NULL)
		fail("SOCKS5 authority not terminated", in, size);
	check_request_prefixes(d, size, &r);
	rc = check_authority(r.authority, strlen(r.authority), 0, &t);
	if (r.atyp == SOCKS_ATYP_NAME) {
		nlen = strlen(r.name);
		if (nlen != d[4] || memcmp(r.name, d + 5, nlen) != 0 ||
		    memchr(r.name, ':', nlen) != NULL)
			fail("SOCKS5 name is not the bytes sent", in, size);
		if (rc == 0 && (t.family == AF_INET6 || t.port != r.port))
			fail("SOCKS5 name parsed wrongly", r.authority,
			    strlen(r.authority));
		return;
	}
	if (memcmp(r.addr, d + 4, alen) != 0)
		fail("SOCKS5 address is not the bytes sent", in, size);
	if (r.port == 0 ? rc == 0
			: rc != 0 ||
		    t.family !=
			(r.atyp == SOCKS_ATYP_IPV4 ? AF_INET : AF_INET6) ||
		    memcmp(t.addr, r.addr, alen) != 0 || t.port != r.port)
		fail("SOCKS5 address does not parse back", r.authority,
		    strlen(r.authority));
}

/*
 * The input as a greeting and, after one that parsed, a request, as the
 * proxy reads them; as a request alone; and its bytes as the address of
 * a request of each type (a name of up to 255 bytes).
 */
static void
check_socks(const uint8_t *data, size_t size)
{
	static unsigned char req[4 + 1 + 255 + 2 + 16];
	struct socks_greeting g;
	size_t n;

	check_greeting(data, size);
	if (socks_greeting_parse(data, size, &g) == 1)
		check_request(data + g.len, size - g.len);
	check_request(data, size);
	memcpy(req, "\x05\x01\x00", 3);
	n = size > sizeof(req) - 4 ? sizeof(req) - 4 : size;
	req[3] = SOCKS_ATYP_IPV4;
	memcpy(req + 4, data, n);
	check_request(req, 4 + n);
	req[3] = SOCKS_ATYP_IPV6;
	check_request(req, 4 + n);
	req[3] = SOCKS_ATYP_NAME;
	n = size > sizeof(req) - 5 ? sizeof(req) - 5 : size;
	req[4] = (unsigned char)(size < 2 ? 0
		: size - 2 > 255	  ? 255
					  : size - 2);
	memcpy(req + 5, data, n);
	check_request(req, 5 + n);
}

/* --- request heads ------------------------------------------------------- */

static int
same_head(const struct http_head *a, const struct http_head *b)
{
	return a->len == b->len && strcmp(a->method, b->method) == 0 &&
	    a->target.off == b->target.off && a->target.len == b->target.len &&
	    a->minor == b->minor && a->is_connect == b->is_connect &&
	    a->nfields == b->nfields &&
	    memcmp(a->fields, b->fields, a->nfields * sizeof(a->fields[0])) ==
	    0 &&
	    a->has_host == b->has_host && a->host.off == b->host.off &&
	    a->host.len == b->host.len && a->has_length == b->has_length &&
	    a->content_length == b->content_length;
}

/* Does a Connection value list a field that frames or routes? */
static int
lists_framing(const char *v, size_t n)
{
	static const char *framing[] = { "content-length", "transfer-encoding",
		"host" };
	size_t i = 0, s, j;

	while (i < n) {
		while (i < n && strchr(" \t,", v[i]) != NULL)
			i++;
		for (s = i; i < n && strchr(" \t,", v[i]) == NULL; i++)
			;
		for (j = 0; j < 3; j++)
			if (i - s == strlen(framing[j]) &&
			    strncasecmp(v + s, framing[j], i - s) == 0)
				return 1;
	}
	return 0;
}

static void
check_fields(const char *buf, const struct http_head *h, size_t line1)
{
	const struct http_field *f;
	size_t i, j, pos = line1, eol, nhost = 0, nlen = 0;
	uint64_t cl;
	const char *v, *cr;

	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if ((cr = memchr(buf + pos, '\r', h->len - pos)) == NULL)
			fail("field line without CR", buf, h->len);
		eol = (size_t)(cr - buf);
		if (f->name.off != pos || f->name.len == 0 ||
		    buf[f->name.off + f->name.len] != ':')
			fail("field name is not its line's start", buf, h->len);
		for (j = 0; j < f->name.len; j++)
			if (!is_tchar((unsigned char)buf[pos + j]))
				fail("field name not a token", buf, h->len);
		if (f->value.off <= f->name.off + f->name.len ||
		    f->value.off + f->value.len > eol)
			fail("field value outside its line", buf, h->len);
		for (j = f->name.off + f->name.len + 1; j < f->value.off; j++)
			if (buf[j] != ' ' && buf[j] != '\t')
				fail("bytes between colon and value", buf,
				    h->len);
		for (j = f->value.off + f->value.len; j < eol; j++)
			if (buf[j] != ' ' && buf[j] != '\t')
				fail("bytes after the value", buf, h->len);
		v = buf + f->value.off;
		if (f->value.len > 0 &&
		    (v[0] == ' ' || v[0] == '\t' ||
			v[f->value.len - 1] == ' ' ||
			v[f->value.len - 1] == '\t'))
			fail("field value not trimmed", buf, h->len);
		for (j = 0; j < f->value.len; j++)
			if (((unsigned char)v[j] < 0x20 && v[j] != '\t') ||
			    (unsigned char)v[j] == 0x7f)
				fail("control byte (CR, LF, NUL...) in a value",
				    buf, h->len);
		if (span_is(buf, f->name, "host")) {
			nhost++;
			if (h->host.off != f->value.off ||
			    h->host.len != f->value.len)
				fail("h->host is not the Host field", buf,
				    h->len);
		} else if (span_is(buf, f->name, "content-length")) {
			nlen++;
			cl = 0;
			if (f->value.len == 0)
				fail("empty Content-Length accepted", buf,
				    h->len);
			for (j = 0; j < f->value.len; j++) {
				if (v[j] < '0' || v[j] > '9' ||
				    cl > ((uint64_t)INT64_MAX -
					     (uint64_t)(v[j] - '0')) /
					    10)
					fail(
					    "Content-Length not a 63-bit number",
					    buf, h->len);
				cl = cl * 10 + (uint64_t)(v[j] - '0');
			}
			if (cl != h->content_length)
				fail("content_length is not the field's", buf,
				    h->len);
		} else if (span_is(buf, f->name, "transfer-encoding"))
			fail("Transfer-Encoding accepted", buf, h->len);
		else if (span_is(buf, f->name, "connection") &&
		    lists_framing(v, f->value.len))
			fail("Connection naming a framing field accepted", buf,
			    h->len);
		pos = eol + 2;
	}
	if (pos + 2 != h->len)
		fail("fields do not cover the head", buf, h->len);
	if (nhost > 1 || (nhost == 1) != (h->has_host != 0))
		fail("not exactly the one Host h->has_host says", buf, h->len);
	if (nlen > 1 || (nlen == 1) != (h->has_length != 0) ||
	    (nlen == 0 && h->content_length != 0))
		fail("Content-Length count or value", buf, h->len);
	if (h->minor == 1 && !h->is_connect && !h->has_host)
		fail("HTTP/1.1 request without Host", buf, h->len);
	if (h->is_connect && h->has_length)
		fail("CONNECT with a body", buf, h->len);
}

static void
check_parsed(const char *buf, size_t len, const struct http_head *h)
{
	const char *sp1, *sp2, *cr;
	size_t i, line, mlen;

	if (h->len < 4 || h->len > len || h->len > MAX_HEAD ||
	    memcmp(buf + h->len - 4, "\r\n\r\n", 4) != 0)
		fail("head does not end in CRLF CRLF", buf, len);
	for (i = 0; i < h->len; i++) {
		if (buf[i] == '\0')
			fail("NUL in a head that parsed", buf, len);
		if (buf[i] == '\r' && buf[i + 1] != '\n')
			fail("bare CR in a head that parsed", buf, len);
		if (buf[i] == '\n' && (i == 0 || buf[i - 1] != '\r'))
			fail("bare LF in a head that parsed", buf, len);
	}
	cr = memchr(buf, '\r', h->len);
	line = (size_t)(cr - buf);
	if (line > MAX_LINE)
		fail("request line over the limit", buf, len);
	/* METHOD SP TARGET SP HTTP/1.x */
	mlen = strlen(h->method);
	sp1 = buf + mlen;
	if (mlen == 0 || mlen >= HTTP_METHOD_MAX ||
	    memcmp(buf, h->method, mlen) != 0 || *sp1 != ' ')
		fail("method is not the line's first word", buf, len);
	for (i = 0; i < mlen; i++)
		if (!is_tchar((unsigned char)h->method[i]))
			fail("method not a token", buf, len);
	if ((h->is_connect != 0) != (strcmp(h->method, "CONNECT") == 0))
		fail("is_connect", buf, len);
	if (h->target.off != mlen + 1 || h->target.len == 0)
		fail("target is not the line's second word", buf, len);
	for (i = 0; i < h->target.len; i++)
		if ((unsigned char)buf[h->target.off + i] <= 0x20 ||
		    (unsigned char)buf[h->target.off + i] >= 0x7f)
			fail("space or control byte in the target", buf, len);
	sp2 = buf + h->target.off + h->target.len;
	if (*sp2 != ' ' || cr - sp2 != 9 ||
	    memcmp(sp2 + 1, h->minor == 1 ? "HTTP/1.1" : "HTTP/1.0", 8) != 0 ||
	    (h->minor != 0 && h->minor != 1))
		fail("version is not the line's third word", buf, len);
	check_fields(buf, h, line + 2);
}

/*
 * The head |h| parsed under the limits alone parses the same, and its
 * prefixes (as the proxy sees it arrive) ask for more.
 */
static void
check_prefixes(const char *buf, const struct http_head *h, size_t max_line,
    size_t max_head)
{
	static struct http_head again;
	size_t i, k, line;

	if (http_head_parse(buf, h->len, max_line, max_head, &again) != 1 ||
	    !same_head(h, &again))
		fail("the head alone parses differently", buf, h->len);
	line = (size_t)((const char *)memchr(buf, '\r', h->len) - buf);
	for (i = 0; i < 6; i++) {
		k = i == 0   ? h->len - 1
		    : i == 1 ? h->len - 2
		    : i == 2 ? h->len - 3
		    : i == 3 ? line
		    : i == 4 ? line + 1
			     : h->len / 2;
		if (http_head_parse(buf, k, max_line, max_head, &again) != 0) {
			fprintf(stderr,
			    "fuzz_proxy: its first %zu bytes (limits %zu, %zu): "
			    "%s\n",
			    k, max_line, max_head, again.why);
			fail(
			    "a prefix of a valid head is refused", buf, h->len);
		}
	}
}

/* The destination, cut out as conn_request() cuts it. */
static void
check_destination(const char *buf, const struct http_head *h)
{
	const char *target = buf + h->target.off;
	size_t tlen = h->target.len, alen;

	if (h->is_connect)
		check_authority(target, tlen, 0, NULL);
	else if (tlen >= 7 && strncasecmp(target, "http://", 7) == 0) {
		for (alen = 0; alen < tlen - 7; alen++)
			if (strchr("/?#", target[7 + alen]) != NULL)
				break;
		check_authority(target + 7, alen, 80, NULL);
	}
	if (h->has_host)
		check_authority(buf + h->host.off, h->host.len, 80, NULL);
}

static void
check_head(const char *buf, size_t len)
{
	static struct http_head h, s;
	int rc, src;

	memset(&h, 0xa5, sizeof(h));
	rc = http_head_parse(buf, len, MAX_LINE, MAX_HEAD, &h);
	switch (rc) {
	case 1:
		if (h.status != 0 || h.why[0] != '\0')
			fail("a head that parsed has a status", buf, len);
		check_parsed(buf, len, &h);
		check_prefixes(buf, &h, MAX_LINE, MAX_HEAD);
		check_destination(buf, &h);
		break;
	case 0:
		if (h.status != 0 || len >= MAX_HEAD ||
		    memmem(buf, len, "\r\n\r\n", 4) != NULL)
			fail("more bytes asked for a complete head", buf, len);
		break;
	case AL_ERR_FORMAT:
	case AL_ERR_LIMIT:
		if (h.status != 400 && h.status != 411 && h.status != 431)
			fail("refusal with another status", buf, len);
		if ((h.status == 431) != (rc == AL_ERR_LIMIT))
			fail("431 and AL_ERR_LIMIT disagree", buf, len);
		if (!reason_ok(h.why, sizeof(h.why)))
			fail("refusal without a printable reason", buf, len);
		break;
	default:
		fail("undocumented return", buf, len);
	}

	/* Small limits: never accept what the proxy's refuse. */
	src = http_head_parse(buf, len, SMALL_LINE, SMALL_HEAD, &s);
	if (src == 1 && (rc != 1 || !same_head(&h, &s)))
		fail("small limits accept what large ones do not", buf, len);
	if (src == 1)
		check_prefixes(buf, &s, SMALL_LINE, SMALL_HEAD);
	if (rc == 1 && src != 1 && h.len <= SMALL_HEAD &&
	    (size_t)((const char *)memchr(buf, '\r', len) - buf) <= SMALL_LINE)
		fail("small limits refuse a head within them", buf, len);
}

/* --- the ClientHello of a tunnel (proxy/tls.c) -------------------------- */

static void
check_tls(const uint8_t *data, size_t size)
{
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX], n2[TLS_NAME_MAX],
	    w2[TLS_WHY_MAX];
	const char *in = (const char *)data;
	size_t whole, i, nl;
	int rc;

	rc = tls_client_hello_name(data, size, name, why);
	if (rc < -1 || rc > 1 || memchr(name, '\0', sizeof(name)) == NULL ||
	    memchr(why, '\0', sizeof(why)) == NULL)
		fail("tls: bad return or unterminated buffers", in, size);
	if (rc == -1 && !reason_ok(why, sizeof(why)))
		fail("tls: refusal without a printable reason", in, size);
	if (size < 5) {
		if (rc != 0)
			fail("tls: judged before the record header", in, size);
		return;
	}
	if (rc == 1 && !tls_is_record(data, size))
		fail("tls: a non-record read as a ClientHello", in, size);
	whole = 5 + ((size_t)data[3] << 8 | data[4]);
	if (rc == 0 && size >= whole)
		fail("tls: need more of a whole record", in, size);
	if (rc != 1)
		return;
	nl = strlen(name);
	if (nl >= TLS_NAME_MAX ||
	    (nl > 0 && memmem(data + 5, whole - 5, name, nl) == NULL))
		fail("tls: name not from the record", in, size);
	for (i = 0; i < whole; i++)
		if (tls_client_hello_name(data, i, n2, w2) != 0)
			fail("tls: a prefix of a ClientHello judged", in, size);
	if (tls_client_hello_name(data, whole, n2, w2) != 1 ||
	    strcmp(n2, name) != 0)
		fail("tls: the record alone reads differently", in, size);
}

/*
 * The server's first bytes: a decision never needs more than
 * TLS_SERVER_FIRST bytes, never changes once made; the second
 * ClientHello reader's name comes from the bytes.
 */
static void
check_tls_second(const uint8_t *data, size_t size)
{
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];
	const char *in = (const char *)data;
	size_t first = size < TLS_SERVER_FIRST ? size : TLS_SERVER_FIRST, i;
	int rc, r2;

	rc = tls_server_retries(data, size);
	if (rc < -1 || rc > 1 || (size >= TLS_SERVER_FIRST && rc == -1) ||
	    tls_server_retries(data, first) != rc)
		fail("tls: the server's first bytes judged wrongly", in, size);
	for (i = 0; i < first && rc != -1; i++)
		if ((r2 = tls_server_retries(data, i)) != -1 && r2 != rc)
			fail("tls: a decision on the server's bytes changed",
			    in, size);
	rc = tls_second_hello_name(data, size, name, why);
	if (rc < -1 || rc > 1 || memchr(name, '\0', sizeof(name)) == NULL ||
	    memchr(why, '\0', sizeof(why)) == NULL)
		fail("tls: second hello: bad return or buffers", in, size);
	if (rc == -1 && !reason_ok(why, sizeof(why)))
		fail("tls: second hello: refusal without a printable reason",
		    in, size);
	if (rc == 1 && name[0] != '\0' &&
	    memmem(data, size, name, strlen(name)) == NULL)
		fail("tls: second hello: name not from the bytes", in, size);
	if (rc == 1 &&
	    (tls_second_hello_end(data, size) > size ||
		(name[0] != '\0' &&
		    memmem(data, tls_second_hello_end(data, size), name,
			strlen(name)) == NULL)))
		fail("tls: second hello: its end before its name", in, size);
	rc = tls_upgrade_prelude(data, size);
	if (rc != -1 && rc != 0 && rc != 8 && rc != 36)
		fail("tls: a request for TLS of an odd length", in, size);
	if (rc > 0 && tls_upgrade_prelude(data, (size_t)rc) != rc)
		fail("tls: a request for TLS read past its end", in, size);
	if (rc == -1 && size >= 36)
		fail("tls: more than a request for TLS wanted", in, size);
}

/* Walks |data| in pieces of |step| bytes (the first |first| alone). */
static int
walk_pieces(const uint8_t *data, size_t size, size_t first, size_t step,
    char why[TLS_WHY_MAX])
{
	struct tls_walk w;
	size_t off = 0, n;

	memset(&w, 0, sizeof(w));
	for (n = first < size ? first : size; off < size; n = step) {
		if (n > size - off)
			n = size - off;
		if (tls_walk(&w, data + off, n, why) != 0)
			return -1;
		off += n;
	}
	return 0;
}

/*
 * The client's records after its ClientHello: the same decision in any
 * pieces; application_data records alone pass.
 */
static void
check_tls_walk(const uint8_t *data, size_t size)
{
	char why[TLS_WHY_MAX];
	const char *in = (const char *)data;
	size_t first = size > 0 ? data[0] % 11 : 0, step;
	int rc, only_app = size > 0, r2;
	size_t off, len;

	rc = walk_pieces(data, size, size, size, why);
	if (rc != 0 && rc != -1)
		fail("tls walk: bad return", in, size);
	if (rc == -1 && !reason_ok(why, sizeof(why)))
		fail("tls walk: refusal without a printable reason", in, size);
	for (step = 1; step <= 7; step++)
		if ((r2 = walk_pieces(data, size, first, step, why)) != rc)
			fail("tls walk: pieces decide differently", in, size);
	for (off = 0; off < size && only_app; off += 5 + len) {
		if (size - off < 5)
			break;
		len = (size_t)data[off + 3] << 8 | data[off + 4];
		only_app = data[off] == 23 && data[off + 1] == 3 &&
		    len <= 16384 + 2048;
	}
	if (only_app && rc != 0)
		fail("tls walk: application data refused", in, size);
}

/* Where |data| ends a request for TLS, fed in pieces of |step|. */
static size_t
ask_pieces(const uint8_t *data, size_t size, size_t step)
{
	struct tls_ask a;
	size_t off, n, end;

	memset(&a, 0, sizeof(a));
	for (off = 0; off < size; off += n) {
		n = size - off < step ? size - off : step;
		if ((end = tls_asks_for_tls(&a, data + off, n)) != 0) {
			if (end > n)
				fail("tls ask: an end past the bytes",
				    (const char *)data, size);
			return off + end;
		}
	}
	return 0;
}

static void
check_tls_ask(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	size_t end = ask_pieces(data, size, size), step;

	if (end > 0 && data[end - 1] != '\n' && data[end - 1] != '>' &&
	    data[end - 1] != '7')
		fail("tls ask: an end at an odd byte", in, size);
	for (step = 1; step <= 5; step++)
		if (ask_pieces(data, size, step) != end)
			fail("tls ask: pieces find another end", in, size);
}

/*
 * Walks the server's bytes in pieces of |step|; the offsets (in |at|, at
 * most 8) after which a ticket was learned, and their hashes' first
 * bytes.  Returns how many.
 */
static size_t
server_pieces(const uint8_t *data, size_t size, size_t step, size_t at[8],
    unsigned char first[8])
{
	static struct tls_server_walk w;
	size_t off, n, k = 0;

	memset(&w, 0, sizeof(w));
	for (off = 0; off < size; off += n) {
		n = size - off < step ? size - off : step;
		tls_server_walk(&w, data + off, n);
		if (w.ticket && k < 8) {
			at[k] = off + n;
			first[k++] = w.ticket_hash[0];
		}
		w.ticket = 0;
		if (w.done && off + n < size) {
			tls_server_walk(&w, data + off + n, size - off - n);
			if (w.ticket)
				fail("tls server walk: a ticket after the end",
				    (const char *)data, size);
			break;
		}
	}
	return k;
}

static void
check_tls_resume(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	struct tls_resume r;
	size_t at[8], at1[8], k, k1, i;
	unsigned char first[8], first1[8];

	if (tls_client_hello_resume(data, size, &r) == 0 && r.ticket &&
	    (size < 5 || data[0] != 22 ||
		memmem(data, size, "\0\x23", 2) == NULL))
		fail("tls resume: a ticket from no extension", in, size);
	k = server_pieces(data, size, size, at, first);
	k1 = server_pieces(data, size, 1, at1, first1);
	if (k != k1 || (k > 0 && memcmp(first, first1, k) != 0))
		fail("tls server walk: pieces learn differently", in, size);
	for (i = 0; i < k1; i++)
		if (server_pieces(data, at1[i] - 1, 1, at, first) > i)
			fail("tls server walk: a ticket before its last byte",
			    in, size);
}

/* --- a tunnel's start (proxy/http.c http_starts_request) ---------------- */

static void
check_tunnel_start(const char *in, size_t size)
{
	static struct http_head h;
	const char *nl;
	size_t lead, i;
	int rc;

	rc = http_proxy_header(in, size);
	if (rc < -1 || rc > 1 || (rc == -1 && size >= 12))
		fail("tunnel start: a PROXY header judged wrongly", in, size);
	rc = http_starts_request(in, size, MAX_LINE, &lead);
	if (rc < -1 || rc > 1 || lead > size)
		fail("tunnel start: bad return", in, size);
	if (http_head_parse(in, size, MAX_LINE, MAX_HEAD, &h) != 1)
		return;
	if (rc != 1 || lead != 0)
		fail("tunnel start: an accepted head not seen as a request", in,
		    size);
	nl = memchr(in, '\n', size);
	for (i = (size_t)(nl - in) + 1; i <= h.len; i++)
		if (http_starts_request(in, i, MAX_LINE, &lead) != 1)
			fail("tunnel start: a prefix of a head not seen as a "
			     "request",
			    in, size);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = size > 0 ? (const char *)data : "";

	check_head(in, size);
	check_authority(in, size, 0, NULL);
	check_authority(in, size, 80, NULL);
	check_socks(data, size);
	check_tls(data, size);
	check_tls_second(data, size);
	check_tls_walk(data, size);
	check_tls_ask(data, size);
	check_tls_resume(data, size);
	check_tunnel_start(in, size);
	return 0;
}
