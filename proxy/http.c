/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* http: see http.h. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/errors.h"
#include "proxy/http.h"

static int refuse(struct http_head *h, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
refuse(struct http_head *h, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->why, sizeof(h->why), fmt, ap);
	va_end(ap);
	h->status = status;
	return status == 431 ? AL_ERR_LIMIT : AL_ERR_FORMAT;
}

static int
is_tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') ||
	    (ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

int
http_starts_request(const char *buf, size_t len, size_t max_line, size_t *lead)
{
	const char *nl;
	size_t k = 0, n, i;

	while (k < len &&
	    (buf[k] == '\r' || buf[k] == '\n' || buf[k] == ' ' ||
		buf[k] == '\t'))
		k++;
	*lead = k;
	if (k == len)
		return -1;
	if (!is_tchar((unsigned char)buf[k]))
		return 0;
	/* HTTP/0.9: "GET target", no version. */
	if (len - k >= 4 && strncasecmp(buf + k, "GET ", 4) == 0)
		return 1;
	nl = memchr(buf + k, '\n', len - k);
	n = nl != NULL ? (size_t)(nl - (buf + k)) : len - k;
	for (i = 0; i + 5 <= n; i++)
		if (strncasecmp(buf + k + i, "HTTP/", 5) == 0)
			return 1;
	if (n > max_line)
		return 1;
	return nl != NULL ? 0 : -1;
}

int
http_proxy_header(const char *buf, size_t len)
{
	static const char v1[] = "PROXY ", v2[] = "\r\n\r\n\0\r\nQUIT\n";
	size_t n1 = sizeof(v1) - 1, n2 = sizeof(v2) - 1;

	if (memcmp(buf, v1, len < n1 ? len : n1) == 0)
		return len < n1 ? -1 : 1;
	if (memcmp(buf, v2, len < n2 ? len : n2) == 0)
		return len < n2 ? -1 : 1;
	return 0;
}

int
http_field_is(const char *buf, const struct http_field *f, const char *name)
{
	return strlen(name) == f->name.len &&
	    strncasecmp(buf + f->name.off, name, f->name.len) == 0;
}

/* METHOD SP TARGET SP VERSION, in [s, s + n). */
static int
parse_request_line(const char *buf, size_t s, size_t n, struct http_head *h)
{
	const char *l = buf + s, *sp1, *sp2;
	size_t i, mlen, tlen, vlen;

	if ((sp1 = memchr(l, ' ', n)) == NULL ||
	    (sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - l))) == NULL ||
	    memchr(sp2 + 1, ' ', n - (size_t)(sp2 + 1 - l)) != NULL)
		return refuse(h, 400, "malformed request line");
	mlen = (size_t)(sp1 - l);
	tlen = (size_t)(sp2 - sp1 - 1);
	vlen = n - (size_t)(sp2 + 1 - l);
	if (mlen == 0 || mlen >= sizeof(h->method))
		return refuse(h, 400, "malformed method");
	for (i = 0; i < mlen; i++)
		if (!is_tchar((unsigned char)l[i]))
			return refuse(h, 400, "malformed method");
	memcpy(h->method, l, mlen);
	h->method[mlen] = '\0';
	h->is_connect = strcmp(h->method, "CONNECT") == 0;
	if (tlen == 0)
		return refuse(h, 400, "malformed request target");
	for (i = 0; i < tlen; i++) {
		unsigned char ch = (unsigned char)sp1[1 + i];

		if (ch <= 0x20 || ch >= 0x7f)
			return refuse(h, 400, "malformed request target");
	}
	h->target.off = s + mlen + 1;
	h->target.len = tlen;
	if (vlen == 8 && memcmp(sp2 + 1, "HTTP/1.1", 8) == 0)
		h->minor = 1;
	else if (vlen == 8 && memcmp(sp2 + 1, "HTTP/1.0", 8) == 0)
		h->minor = 0;
	else
		return refuse(h, 400, "unsupported HTTP version");
	return 0;
}

/* 1*DIGIT, at most HTTP_CL_MAX. */
static int
parse_length(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;
	size_t i;

	*out = 0;
	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		if (x > (HTTP_CL_MAX - (uint64_t)(v[i] - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return 0;
}

/*
 * Does a Connection value (|n| bytes) list a field that frames or routes
 * the request?  The proxy drops every field a Connection header names
 * (they are hop-by-hop); dropping Content-Length would leave the body it
 * forwards for the origin to read as a second request.  Returns the
 * field's name, or NULL.
 */
static const char *
connection_names_framing(const char *v, size_t n)
{
	static const char *framing[] = { "Content-Length", "Transfer-Encoding",
		"Host", NULL };
	size_t i = 0, ts, j;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		for (ts = i;
		     i < n && v[i] != ' ' && v[i] != '\t' && v[i] != ','; i++)
			;
		for (j = 0; framing[j] != NULL; j++)
			if (strlen(framing[j]) == i - ts &&
			    strncasecmp(v + ts, framing[j], i - ts) == 0)
				return framing[j];
	}
	return NULL;
}

/* NAME ":" OWS VALUE OWS, in [s, s + n); n > 0. */
static int
parse_field(
    const char *buf, size_t s, size_t n, struct http_head *h, int *seen_te)
{
	const char *l = buf + s, *colon;
	struct http_field *f;
	size_t i, nlen, vs, ve;

	if (l[0] == ' ' || l[0] == '\t')
		return refuse(h, 400, "folded header line");
	if ((colon = memchr(l, ':', n)) == NULL || colon == l)
		return refuse(h, 400, "malformed header line");
	nlen = (size_t)(colon - l);
	if (l[nlen - 1] == ' ' || l[nlen - 1] == '\t')
		return refuse(
		    h, 400, "whitespace between header name and colon");
	for (i = 0; i < nlen; i++)
		if (!is_tchar((unsigned char)l[i]))
			return refuse(h, 400, "malformed header name");
	vs = nlen + 1;
	ve = n;
	while (vs < ve && (l[vs] == ' ' || l[vs] == '\t'))
		vs++;
	while (ve > vs && (l[ve - 1] == ' ' || l[ve - 1] == '\t'))
		ve--;
	for (i = vs; i < ve; i++) {
		unsigned char ch = (unsigned char)l[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return refuse(
			    h, 400, "control character in header value");
	}
	if (h->nfields == HTTP_FIELDS_MAX)
		return refuse(
		    h, 431, "more than %d header fields", HTTP_FIELDS_MAX);
	f = &h->fields[h->nfields++];
	f->name.off = s;
	f->name.len = nlen;
	f->value.off = s + vs;
	f->value.len = ve - vs;

	if (http_field_is(buf, f, "connection")) {
		const char *framing;

		if ((framing = connection_names_framing(l + vs, ve - vs)) !=
		    NULL)
			return refuse(
			    h, 400, "Connection header lists %s", framing);
	} else if (http_field_is(buf, f, "host")) {
		if (h->has_host)
			return refuse(h, 400, "duplicate Host header");
		h->has_host = 1;
		h->host = f->value;
	} else if (http_field_is(buf, f, "content-length")) {
		if (h->has_length)
			return refuse(
			    h, 400, "duplicate Content-Length header");
		h->has_length = 1;
		if (parse_length(l + vs, ve - vs, &h->content_length) != 0)
			return refuse(h, 400, "malformed Content-Length");
	} else if (http_field_is(buf, f, "transfer-encoding")) {
		if (*seen_te)
			return refuse(
			    h, 400, "duplicate Transfer-Encoding header");
		*seen_te = 1;
		if (ve - vs != 7 || strncasecmp(l + vs, "chunked", 7) != 0)
			*seen_te = 2;
	}
	return 0;
}

/* The head parsed; is its framing unambiguous? */
static int
check_framing(struct http_head *h, int seen_te)
{
	if (seen_te && h->has_length)
		return refuse(
		    h, 400, "Content-Length together with Transfer-Encoding");
	if (h->is_connect && (seen_te || h->has_length))
		return refuse(h, 400, "CONNECT request with a body");
	if (seen_te == 2)
		return refuse(h, 400, "Transfer-Encoding other than chunked");
	if (seen_te == 1)
		return refuse(h, 411,
		    "chunked request bodies are not supported: send Content-Length");
	if (h->minor == 1 && !h->is_connect && !h->has_host)
		return refuse(h, 400, "missing Host header");
	return 0;
}

int
http_head_parse(const char *buf, size_t len, size_t max_line, size_t max_head,
    struct http_head *h)
{
	const char *nl;
	size_t pos = 0, eol, end, i, n;
	int lineno, rc, seen_te = 0;

	memset(h, 0, sizeof(*h));
	for (lineno = 0;; lineno++) {
		nl = memchr(buf + pos, '\n', len - pos);
		eol = nl != NULL ? (size_t)(nl - buf) : len;
		/* A line's bytes so far must be plain, complete or not. */
		for (i = pos; i < eol; i++) {
			if (buf[i] == '\0')
				return refuse(
				    h, 400, "NUL byte in request head");
			if (buf[i] == '\r' && i + 1 < len && buf[i + 1] != '\n')
				return refuse(
				    h, 400, "bare CR in request head");
		}
		/*
		 * The request line's length without its CR, which may be the
		 * last byte so far: a line of max_line bytes whose LF has not
		 * arrived yet waits for it.
		 */
		n = eol - pos;
		if (n > 0 && buf[eol - 1] == '\r')
			n--;
		if (lineno == 0 && n > max_line)
			return refuse(h, 400,
			    "request line longer than %zu bytes", max_line);
		if (nl == NULL) {
			if (len >= max_head)
				return refuse(h, 431,
				    "request head larger than %zu bytes",
				    max_head);
			return 0;
		}
		if (eol == pos || buf[eol - 1] != '\r')
			return refuse(h, 400,
			    "bare LF in request head (lines must end in CRLF)");
		if (eol + 1 > max_head)
			return refuse(h, 431,
			    "request head larger than %zu bytes", max_head);
		end = eol - 1; /* the line is [pos, end) */
		if (lineno == 0)
			rc = parse_request_line(buf, pos, end - pos, h);
		else if (end == pos) {
			h->len = eol + 1;
			if ((rc = check_framing(h, seen_te)) != 0)
				return rc;
			return 1;
		} else
			rc = parse_field(buf, pos, end - pos, h, &seen_te);
		if (rc != 0)
			return rc;
		pos = eol + 1;
	}
}
