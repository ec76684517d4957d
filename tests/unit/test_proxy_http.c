/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Table-driven tests for the egress proxy's request-head parser: every
 * framing ambiguity a smuggling attack needs is refused, with the right
 * status and reason, and ordinary heads parse.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "proxy/http.h"

#define U "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n"

static const struct head_row {
	const char *in;
	int rc; /* 1, 0 (need more), or an AL_ERR_ */
	int status; /* when refused */
	const char *why; /* a substring of the reason */
	long long length; /* Content-Length when rc == 1 */
} head_rows[] = {
	/* ordinary heads */
	{ U "\r\n", 1, 0, NULL, 0 },
	{ U "Content-Length: 5\r\n\r\nhello", 1, 0, NULL, 5 },
	{ U "Content-Length:0\r\n\r\n", 1, 0, NULL, 0 },
	{ U "Content-Length: \t 42 \t\r\n\r\n", 1, 0, NULL, 42 },
	{ U "Content-Length: 9223372036854775807\r\n\r\n", 1, 0, NULL,
	    9223372036854775807LL },
	{ "GET http://a.test/ HTTP/1.0\r\n\r\n", 1, 0, NULL, 0 },
	{ "CONNECT a.test:443 HTTP/1.1\r\n\r\n", 1, 0, NULL, 0 },
	{ "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n", 1, 0, NULL,
	    0 },
	{ U "X-Obs: caf\xc3\xa9\r\n\r\n", 1, 0, NULL, 0 },

	/* incomplete: wait for more */
	{ "", 0, 0, NULL, 0 },
	{ "GET http://a.test/ HTTP/1.1", 0, 0, NULL, 0 },
	{ "GET http://a.test/ HTTP/1.1\r", 0, 0, NULL, 0 },
	{ U, 0, 0, NULL, 0 },
	{ U "\r", 0, 0, NULL, 0 },

	/* Content-Length and Transfer-Encoding */
	{ U "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
	    AL_ERR_FORMAT, 400, "Content-Length together with Transfer-", 0 },
	{ U "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
	    AL_ERR_FORMAT, 400, "Content-Length together with Transfer-", 0 },
	{ U "Content-Length: 5\r\nContent-Length: 5\r\n\r\n", AL_ERR_FORMAT,
	    400, "duplicate Content-Length", 0 },
	{ U "Content-Length: 5\r\ncontent-length: 6\r\n\r\n", AL_ERR_FORMAT,
	    400, "duplicate Content-Length", 0 },
	{ U "Content-Length: 5, 5\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed Content-Length", 0 },
	{ U "Content-Length: +5\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed Content-Length", 0 },
	{ U "Content-Length: -1\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed Content-Length", 0 },
	{ U "Content-Length: 0x10\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed Content-Length", 0 },
	{ U "Content-Length: 1 0\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed Content-Length", 0 },
	{ U "Content-Length:\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed Content-Length", 0 },
	{ U "Content-Length: 9223372036854775808\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed Content-Length", 0 },
	{ U "Content-Length: 18446744073709551621\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed Content-Length", 0 },
	{ U "Transfer-Encoding: chunked\r\n\r\n", AL_ERR_FORMAT, 411,
	    "chunked request bodies are not supported", 0 },
	{ U "Transfer-Encoding: gzip, chunked\r\n\r\n", AL_ERR_FORMAT, 400,
	    "Transfer-Encoding other than chunked", 0 },
	{ U "Transfer-Encoding: xchunked\r\n\r\n", AL_ERR_FORMAT, 400,
	    "Transfer-Encoding other than chunked", 0 },
	{ U "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
	    AL_ERR_FORMAT, 400, "duplicate Transfer-Encoding", 0 },
	{ "GET http://a.test/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
	    AL_ERR_FORMAT, 411, "chunked", 0 },
	{ "CONNECT a.test:443 HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
	    AL_ERR_FORMAT, 400, "CONNECT request with a body", 0 },
	{ "CONNECT a.test:443 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
	    AL_ERR_FORMAT, 400, "CONNECT request with a body", 0 },

	/* a Connection header listing a framing field: the proxy drops the
	 * fields Connection names, and without its Content-Length the body
	 * it forwards is a second request to the origin */
	{ U "Connection: Content-Length\r\nContent-Length: 5\r\n\r\n",
	    AL_ERR_FORMAT, 400, "Connection header lists Content-Length", 0 },
	{ U "Content-Length: 5\r\nConnection: close,content-length\r\n\r\n",
	    AL_ERR_FORMAT, 400, "Connection header lists Content-Length", 0 },
	{ U "Connection: close\r\nConnection:\tkeep-alive , CONTENT-LENGTH\r\n"
	    "\r\n",
	    AL_ERR_FORMAT, 400, "Connection header lists Content-Length", 0 },
	{ U "Connection: Transfer-Encoding\r\n\r\n", AL_ERR_FORMAT, 400,
	    "Connection header lists Transfer-Encoding", 0 },
	{ U "Connection: host\r\n\r\n", AL_ERR_FORMAT, 400,
	    "Connection header lists Host", 0 },
	{ "CONNECT a.test:443 HTTP/1.1\r\nConnection: Host\r\n\r\n",
	    AL_ERR_FORMAT, 400, "Connection header lists Host", 0 },
	{ U "Connection: close, keep-alive, X-Content-Length, hostx\r\n"
	    "Content-Length: 5\r\n\r\nhello",
	    1, 0, NULL, 5 },
	{ U "Connection:\r\n\r\n", 1, 0, NULL, 0 },

	/* line endings and bytes */
	{ "GET http://a.test/ HTTP/1.1\nHost: a.test\r\n\r\n", AL_ERR_FORMAT,
	    400, "bare LF", 0 },
	{ U "X-A: 1\n\r\n", AL_ERR_FORMAT, 400, "bare LF", 0 },
	{ U "\n", AL_ERR_FORMAT, 400, "bare LF", 0 },
	{ U "X-A: 1\rX-Smuggled: 2\r\n\r\n", AL_ERR_FORMAT, 400, "bare CR", 0 },
	{ U "X-A: 1\r\r\n\r\n", AL_ERR_FORMAT, 400, "bare CR", 0 },
	{ "GET http://a.test/\rx HTTP/1.1\r\n", AL_ERR_FORMAT, 400, "bare CR",
	    0 },
	{ U "X-A: 1\r\n\r\r\n", AL_ERR_FORMAT, 400, "bare CR", 0 },

	/* field lines */
	{ U "X-A: 1\r\n folded\r\n\r\n", AL_ERR_FORMAT, 400,
	    "folded header line", 0 },
	{ U "X-A: 1\r\n\tfolded\r\n\r\n", AL_ERR_FORMAT, 400,
	    "folded header line", 0 },
	{ U "Content-Length : 5\r\n\r\n", AL_ERR_FORMAT, 400,
	    "whitespace between header name and colon", 0 },
	{ U "Transfer-Encoding\t: chunked\r\n\r\n", AL_ERR_FORMAT, 400,
	    "whitespace between header name and colon", 0 },
	{ U "X A: 1\r\n\r\n", AL_ERR_FORMAT, 400, "malformed header name", 0 },
	{ U "X-A 1\r\n\r\n", AL_ERR_FORMAT, 400, "malformed header line", 0 },
	{ U ": 1\r\n\r\n", AL_ERR_FORMAT, 400, "malformed header line", 0 },
	{ U "X-A: 1\x01\r\n\r\n", AL_ERR_FORMAT, 400, "control character", 0 },
	{ U "X-A: 1\x7f\r\n\r\n", AL_ERR_FORMAT, 400, "control character", 0 },

	/* Host */
	{ "GET http://a.test/ HTTP/1.1\r\n\r\n", AL_ERR_FORMAT, 400,
	    "missing Host header", 0 },
	{ U "Host: b.test\r\n\r\n", AL_ERR_FORMAT, 400, "duplicate Host header",
	    0 },

	/* request line */
	{ "GET  http://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed request", 0 },
	{ "GET http://a.test/ HTTP/1.1 x\r\nHost: a\r\n\r\n", AL_ERR_FORMAT,
	    400, "malformed request line", 0 },
	{ "GET http://a.test/\r\nHost: a\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed request line", 0 },
	{ "GET http://a.test/ HTTP/1.1 \r\nHost: a\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed request line", 0 },
	{ "\r\nGET http://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n", AL_ERR_FORMAT,
	    400, "malformed request line", 0 },
	{ "GET http://a.test/ HTTP/2.0\r\nHost: a\r\n\r\n", AL_ERR_FORMAT, 400,
	    "unsupported HTTP version", 0 },
	{ "GET http://a.test/ HTTP/1.10\r\nHost: a\r\n\r\n", AL_ERR_FORMAT, 400,
	    "unsupported HTTP version", 0 },
	{ "GET http://a.test/ http/1.1\r\nHost: a\r\n\r\n", AL_ERR_FORMAT, 400,
	    "unsupported HTTP version", 0 },
	{ "G(T http://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n", AL_ERR_FORMAT, 400,
	    "malformed method", 0 },
	{ "VERYLONGMETHODNAME http://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n",
	    AL_ERR_FORMAT, 400, "malformed method", 0 },
	{ "GET http://a.test/\x7f HTTP/1.1\r\nHost: a\r\n\r\n", AL_ERR_FORMAT,
	    400, "malformed request target", 0 },
};

START_TEST(test_request_head_framing_is_strict)
{
	const struct head_row *r = &head_rows[_i];
	static struct http_head h;
	int rc;

	rc = http_head_parse(r->in, strlen(r->in), 8192, 32768, &h);
	ck_assert_msg(rc == r->rc, "row %d (%s): rc %d, want %d (%s)", _i,
	    r->in, rc, r->rc, h.why);
	if (rc < 0) {
		ck_assert_int_eq(h.status, r->status);
		ck_assert_msg(strstr(h.why, r->why) != NULL,
		    "row %d: why '%s', "
		    "want '%s'",
		    _i, h.why, r->why);
	} else if (rc == 1) {
		ck_assert_int_eq(h.content_length, (uint64_t)r->length);
		ck_assert_uint_le(h.len, strlen(r->in));
		ck_assert_int_eq(memcmp(r->in + h.len - 4, "\r\n\r\n", 4), 0);
	}
}
END_TEST

/* A NUL cannot sit in a string literal row. */
START_TEST(test_nul_in_head_is_refused)
{
	static const char in[] = U "X-A: a\0b\r\n\r\n";
	static struct http_head h;

	ck_assert_int_eq(http_head_parse(in, sizeof(in) - 1, 8192, 32768, &h),
	    AL_ERR_FORMAT);
	ck_assert_int_eq(h.status, 400);
	ck_assert_str_eq(h.why, "NUL byte in request head");
}
END_TEST

START_TEST(test_head_parse_reports_fields_and_body_start)
{
	static const char in[] =
	    "POST http://a.test/x?y HTTP/1.1\r\n"
	    "Host:  a.test \r\nContent-Length: 5\r\nX-Empty:\r\n\r\n"
	    "helloGET /smuggled HTTP/1.1\r\n\r\n";
	static struct http_head h;

	ck_assert_int_eq(
	    http_head_parse(in, sizeof(in) - 1, 8192, 32768, &h), 1);
	ck_assert_str_eq(h.method, "POST");
	ck_assert_int_eq(h.minor, 1);
	ck_assert_int_eq(h.is_connect, 0);
	ck_assert_int_eq(h.target.len, 17);
	ck_assert_int_eq(memcmp(in + h.target.off, "http://a.test/x?y", 17), 0);
	ck_assert_int_eq(h.nfields, 3);
	ck_assert(http_field_is(in, &h.fields[0], "HOST"));
	ck_assert_int_eq(h.host.len, 6);
	ck_assert_int_eq(memcmp(in + h.host.off, "a.test", 6), 0);
	ck_assert_int_eq(h.fields[2].value.len, 0);
	ck_assert_int_eq(h.content_length, 5);
	/* The body starts right after the blank line. */
	ck_assert_int_eq(memcmp(in + h.len, "hello", 5), 0);
}
END_TEST

START_TEST(test_head_limits_give_400_for_the_line_and_431_for_the_head)
{
	static char in[40000];
	static struct http_head h;
	size_t n;

	/* A request line longer than max_line, even before its CRLF. */
	memset(in, 'a', sizeof(in));
	memcpy(in, "GET http://a.test/", 18);
	ck_assert_int_eq(
	    http_head_parse(in, 200, 100, 32768, &h), AL_ERR_FORMAT);
	ck_assert_int_eq(h.status, 400);
	ck_assert_str_eq(h.why, "request line longer than 100 bytes");

	/* A head that does not end within max_head. */
	n = (size_t)snprintf(in, sizeof(in), U);
	while (n + 400 < 32768)
		n += (size_t)snprintf(
		    in + n, sizeof(in) - n, "X-Pad: %0300zu\r\n", n);
	ck_assert_int_eq(http_head_parse(in, n, 8192, 32768, &h), 0);
	memset(in + n, 'b', 32768 - n);
	ck_assert_int_eq(
	    http_head_parse(in, 32768, 8192, 32768, &h), AL_ERR_LIMIT);
	ck_assert_int_eq(h.status, 431);

	/* Too many field lines. */
	n = (size_t)snprintf(in, sizeof(in), U);
	while (n < 3000)
		n += (size_t)snprintf(in + n, sizeof(in) - n, "X: 1\r\n");
	n += (size_t)snprintf(in + n, sizeof(in) - n, "\r\n");
	ck_assert_int_eq(http_head_parse(in, n, 8192, 32768, &h), AL_ERR_LIMIT);
	ck_assert_int_eq(h.status, 431);
	ck_assert_str_eq(h.why, "more than 128 header fields");
}
END_TEST

/*
 * Every prefix of a valid head is "need more", never an error, also when
 * the head is exactly as long as the limits allow (a request line of
 * max_line bytes whose LF has not arrived yet; found by fuzz_proxy).
 */
static const char prefix_in[] = U "Content-Length: 3\r\nX-A: b\r\n\r\n";
static const struct prefix_row {
	size_t max_line, max_head;
} prefix_rows[] = {
	{ 8192, 32768 }, /* the proxy's defaults */
	{ 27, 32768 }, /* the request line's length */
	{ 27, sizeof(prefix_in) - 1 }, /* and the head's */
};

START_TEST(test_every_prefix_of_a_valid_head_waits_for_more)
{
	const struct prefix_row *r = &prefix_rows[_i];
	static struct http_head h;
	size_t n;

	for (n = 0; n < sizeof(prefix_in) - 1; n++)
		ck_assert_msg(http_head_parse(prefix_in, n, r->max_line,
				  r->max_head, &h) == 0,
		    "limits %zu, %zu: prefix %zu: %s", r->max_line, r->max_head,
		    n, h.why);
	ck_assert_int_eq(http_head_parse(prefix_in, sizeof(prefix_in) - 1,
			     r->max_line, r->max_head, &h),
	    1);
}
END_TEST

#define NROWS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* What a server would read as an HTTP request, at a tunnel's start. */
START_TEST(test_tunnel_bytes_that_start_a_request)
{
	static const struct {
		const char *in;
		int rc;
		size_t lead;
	} rows[] = {
		{ "GET / HTTP/1.1\r\n", 1, 0 },
		{ "GET / HTTP/1.1", 1, 0 }, /* the version already says it */
		{ "\r\n get  /  http/1.0\r\n", 1, 3 },
		{ "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 1, 0 },
		{ "POST /", -1, 0 }, /* the line is not whole */
		{ "GE", -1, 0 },
		/* HTTP/0.9: no version; nginx routes an absolute target */
		{ "GET /", 1, 0 },
		{ "GET http://hidden.test/\r\n", 1, 0 },
		{ "\r\nget /\r\n", 1, 2 },
		{ "GETS /\r\n", 0, 0 },
		{ "\r\n", -1, 2 },
		{ "SSH-2.0-OpenSSH_9.6\r\n", 0, 0 },
		{ "EHLO mail.test\r\n", 0, 0 },
		{ "\x16\x03\x01", 0, 0 },
		{ "\x00\x00\x00\x08", 0, 0 },
	};
	size_t i, lead;
	char longline[40];

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_msg(http_starts_request(rows[i].in,
				  strlen(rows[i].in) + (rows[i].in[0] == '\0'),
				  8192, &lead) == rows[i].rc,
		    "row %zu", i);
		ck_assert_uint_eq(lead, rows[i].lead);
	}
	/* A PROXY protocol header, v1 or v2, and prefixes of one. */
	ck_assert_int_eq(http_proxy_header("PROXY TCP4 1.2.3.4 ", 19), 1);
	ck_assert_int_eq(http_proxy_header("PROX", 4), -1);
	ck_assert_int_eq(
	    http_proxy_header("\r\n\r\n\0\r\nQUIT\n\x21\x11", 14), 1);
	ck_assert_int_eq(http_proxy_header("\r\n\r\n\0", 5), -1);
	ck_assert_int_eq(http_proxy_header("PRI * HTTP/2.0\r\n", 16), 0);
	ck_assert_int_eq(http_proxy_header("POST / HTTP/1.1\r\n", 17), 0);
	ck_assert_int_eq(http_proxy_header("\r\nGET", 5), 0);
	/* A first line past the line limit, with no LF yet, is taken as one. */
	memset(longline, 'a', sizeof(longline));
	longline[3] = ' ';
	ck_assert_int_eq(
	    http_starts_request(longline, sizeof(longline), 16, &lead), 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("proxy_http");
	TCase *tc = tcase_create("head");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(
	    tc, test_request_head_framing_is_strict, 0, NROWS(head_rows));
	tcase_add_test(tc, test_nul_in_head_is_refused);
	tcase_add_test(tc, test_tunnel_bytes_that_start_a_request);
	tcase_add_test(tc, test_head_parse_reports_fields_and_body_start);
	tcase_add_test(
	    tc, test_head_limits_give_400_for_the_line_and_431_for_the_head);
	tcase_add_loop_test(tc,
	    test_every_prefix_of_a_valid_head_waits_for_more, 0,
	    NROWS(prefix_rows));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
