/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * http: a strict parser for the head of an HTTP/1.x request (RFC 9112),
 * as the egress proxy receives it from sandboxed code.
 *
 * Pure: no I/O, no allocation.  The proxy forwards exactly one request
 * per client connection, so the parser's job is to make sure that the
 * proxy and the origin server cannot disagree about where that request
 * ends.  Anything ambiguous is refused rather than repaired:
 *
 *   - every line ends in CRLF; a bare LF, a bare CR or a NUL anywhere
 *     in the head is refused;
 *   - the request line is exactly METHOD SP TARGET SP HTTP/1.0|HTTP/1.1;
 *   - field lines are NAME ":" OWS VALUE OWS with NAME a token; no
 *     obsolete line folding, no whitespace before the colon, no control
 *     characters in values;
 *   - at most one Host, one Content-Length and one Transfer-Encoding
 *     (duplicates are refused even when equal);
 *   - Content-Length is 1*DIGIT and fits in 63 bits (no sign, no comma
 *     list, no whitespace inside);
 *   - Content-Length together with Transfer-Encoding is refused;
 *     Transfer-Encoding other than exactly "chunked" is refused with
 *     400, and "chunked" with 411 (request bodies must carry a length);
 *   - CONNECT carries no body framing at all;
 *   - no Connection header lists Content-Length, Transfer-Encoding or
 *     Host (the proxy drops what Connection names: the body would be
 *     forwarded without its length);
 *   - an HTTP/1.1 request other than CONNECT must carry Host.
 */
#ifndef AIRLOCK_PROXY_HTTP_H
#define AIRLOCK_PROXY_HTTP_H

#include <stddef.h>
#include <stdint.h>

#define HTTP_METHOD_MAX 16 /* including the NUL */
#define HTTP_FIELDS_MAX 128 /* more field lines: 431 */
#define HTTP_WHY_MAX 128
#define HTTP_CL_MAX ((uint64_t)INT64_MAX)

/* Bytes [off, off + len) of the buffer that was parsed. */
struct http_span {
	size_t off, len;
};

struct http_field {
	struct http_span name;
	struct http_span value; /* without leading/trailing OWS */
};

struct http_head {
	size_t len; /* bytes through the blank line */
	char method[HTTP_METHOD_MAX];
	struct http_span target;
	int minor; /* 0: HTTP/1.0, 1: HTTP/1.1 */
	int is_connect;
	struct http_field fields[HTTP_FIELDS_MAX];
	size_t nfields;
	int has_host;
	struct http_span host;
	int has_length;
	uint64_t content_length; /* 0 if !has_length */

	/* Set when http_head_parse() refuses the head. */
	int status; /* 400, 411 or 431 */
	char why[HTTP_WHY_MAX];
};

/*
 * Parses the request head at the start of |buf| (|len| bytes; bytes
 * after the head are body and are not looked at).  |max_line| bounds
 * the request line, |max_head| the whole head including the blank line.
 *
 * Returns 1 when a complete, valid head was parsed (h->len is its
 * length, and the body is exactly h->content_length bytes), 0 when more
 * bytes are needed (nothing seen so far is wrong), or AL_ERR_FORMAT or
 * AL_ERR_LIMIT with h->status (400, 411 or 431) and h->why (a
 * printable, NUL-terminated reason) set.  h->method is filled as soon
 * as the request line parsed, even when a later check fails.  Spans
 * point into |buf|, which the caller keeps.
 */
int http_head_parse(const char *buf, size_t len, size_t max_line,
    size_t max_head, struct http_head *h);

/*
 * Returns 1 if the field name at |buf|+|f|->name equals |name|
 * (case-insensitive), else 0.
 */
int http_field_is(
    const char *buf, const struct http_field *f, const char *name);

/*
 * Do the first bytes of a tunnel start a PROXY protocol header (v1
 * "PROXY ", v2's 12-byte signature)?  A server that reads one takes
 * the source address it claims, and reads an HTTP request behind it,
 * which would pass as bytes that are not one.  Returns 1, 0, or -1
 * while |len| bytes are a prefix of one.
 */
int http_proxy_header(const char *buf, size_t len);

/*
 * Do the first bytes a client sends through a tunnel (|len| of them)
 * start an HTTP/1.x request, as a server would read them?  That is: a
 * token at the start of the first line (after any CR, LF, SP or HTAB,
 * which servers skip), and "HTTP/" (any case) somewhere in that line, or
 * a first line longer than |max_line| bytes, or a first line starting
 * with "GET " (any case): an HTTP/0.9 request has no version, and a
 * server that still answers one (nginx) routes an absolute target
 * ("GET http://other.example/") by its host.  Returns 1, 0, or -1 when
 * the first line is not whole yet.  *lead is set to the bytes before
 * the token.
 */
int http_starts_request(
    const char *buf, size_t len, size_t max_line, size_t *lead);

#endif
