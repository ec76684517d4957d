/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Table-driven tests for the egress proxy's SOCKS5 parser (proxy/socks.h):
 * a greeting without "no authentication", a command other than CONNECT,
 * an unknown address type and a name that would print as another host or
 * port are refused with their reason; a request is cut out exactly, its
 * destination printed as the authority the proxy's rules judge, and every
 * prefix of a valid greeting or request asks for more.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "proxy/socks.h"

/* A byte string with its length: the inputs hold NULs. */
#define B(s) (const unsigned char *)(s), sizeof(s) - 1

static const struct greeting_row {
	const unsigned char *in;
	size_t len;
	int rc; /* 1, 0 (need more), or an AL_ERR_ */
	size_t used; /* when rc == 1 */
	const char *why; /* a substring of the reason */
} greeting_rows[] = {
	{ B("\x05\x01\x00"), 1, 3, NULL },
	{ B("\x05\x03\x02\x01\x00"), 1, 5, NULL },
	/* the request that follows is not looked at */
	{ B("\x05\x01\x00\x05\x01\x00\x01"), 1, 3, NULL },
	{ B(""), 0, 0, NULL },
	{ B("\x05"), 0, 0, NULL },
	{ B("\x05\x02\x00"), 0, 0, NULL },
	{ B("\x05\x01\x02"), AL_ERR_UNSUPPORTED, 0,
	    "no 'no authentication' method" },
	{ B("\x05\x00"), AL_ERR_UNSUPPORTED, 0,
	    "no 'no authentication' method" },
	{ B("\x05\x02\x01\x02"), AL_ERR_UNSUPPORTED, 0,
	    "no 'no authentication' method" },
	{ B("\x04\x01\x00"), AL_ERR_FORMAT, 0, "version 4" },
	{ B("G"), AL_ERR_FORMAT, 0, "not a SOCKS5 greeting" },
};

START_TEST(test_greeting_needs_no_authentication)
{
	const struct greeting_row *r = &greeting_rows[_i];
	struct socks_greeting g;
	int rc;

	memset(&g, 0xa5, sizeof(g));
	rc = socks_greeting_parse(r->in, r->len, &g);
	ck_assert_msg(
	    rc == r->rc, "row %d: rc %d, want %d (%s)", _i, rc, r->rc, g.why);
	if (rc == 1) {
		ck_assert_uint_eq(g.len, r->used);
		ck_assert_str_eq(g.why, "");
	} else if (rc == 0)
		ck_assert_str_eq(g.why, "");
	else
		ck_assert_msg(strstr(g.why, r->why) != NULL,
		    "row %d: reason \"%s\" lacks \"%s\"", _i, g.why, r->why);
}
END_TEST

static const struct request_row {
	const unsigned char *in;
	size_t len;
	int rc; /* 1, 0 (need more), or an AL_ERR_ */
	size_t used; /* when rc == 1 */
	const char *authority; /* when rc == 1; else a substring of why */
} request_rows[] = {
	{ B("\x05\x01\x00\x01\x7f\x00\x00\x01\x01\xbb"), 1, 10,
	    "127.0.0.1:443" },
	{ B("\x05\x01\x00\x03\x06"
	    "a.test"
	    "\x00\x50"),
	    1, 13, "a.test:80" },
	{ B("\x05\x01\x00\x04"
	    "\x20\x01\x0d\xb8\x00\x00\x00\x00"
	    "\x00\x00\x00\x00\x00\x00\x00\x01"
	    "\x00\x16"),
	    1, 22, "[2001:db8::1]:22" },
	/* port 0 and an empty name are the authority parser's to refuse */
	{ B("\x05\x01\x00\x01\x0a\x00\x00\x01\x00\x00"), 1, 10, "10.0.0.1:0" },
	{ B("\x05\x01\x00\x03\x00\x00\x50"), 1, 7, ":80" },
	/* early data follows, and is not looked at */
	{ B("\x05\x01\x00\x01\x01\x02\x03\x04\x00\x50GET / HTTP/1.1\r\n"), 1,
	    10, "1.2.3.4:80" },
	/* need more */
	{ B("\x05\x01\x00\x01"), 0, 0, NULL },
	{ B("\x05\x01\x00\x01\x7f\x00\x00\x01\x01"), 0, 0, NULL },
	{ B("\x05\x01\x00\x03\x06"
	    "a.tes"),
	    0, 0, NULL },
	{ B("\x05\x01\x00\x03\xff"
	    "a"),
	    0, 0, NULL },
	{ B("\x04\x01"), 0, 0, NULL },
	/* refused */
	{ B("\x04\x01\x00\x01\x7f"), AL_ERR_FORMAT, 0,
	    "malformed SOCKS5 request" },
	{ B("\x05\x01\x01\x01\x7f"), AL_ERR_FORMAT, 0,
	    "malformed SOCKS5 request" },
	{ B("\x05\x02\x00\x01\x7f"), AL_ERR_UNSUPPORTED, 0,
	    "command 2 not supported (CONNECT only)" },
	{ B("\x05\x03\x00\x01\x7f"), AL_ERR_UNSUPPORTED, 0,
	    "command 3 not supported" },
	{ B("\x05\x01\x00\x02\x7f"), AL_ERR_UNSUPPORTED, 0,
	    "address type 2 not supported" },
	{ B("\x05\x01\x00\x03\x08"
	    "a.test:1"
	    "\x00\x50"),
	    AL_ERR_FORMAT, 0, "bad SOCKS5 host name" },
	{ B("\x05\x01\x00\x03\x08"
	    "a.test\x00x"
	    "\x00\x50"),
	    AL_ERR_FORMAT, 0, "bad SOCKS5 host name" },
	{ B("\x05\x01\x00\x03\x07"
	    "[::1]:1"
	    "\x00\x50"),
	    AL_ERR_FORMAT, 0, "bad SOCKS5 host name" },
};

START_TEST(test_request_is_connect_to_one_destination)
{
	const struct request_row *row = &request_rows[_i];
	struct socks_request r;
	int rc;

	memset(&r, 0xa5, sizeof(r));
	rc = socks_request_parse(row->in, row->len, &r);
	ck_assert_msg(rc == row->rc, "row %d: rc %d, want %d (%s)", _i, rc,
	    row->rc, r.why);
	if (rc == 1) {
		ck_assert_uint_eq(r.len, row->used);
		ck_assert_str_eq(r.authority, row->authority);
		ck_assert_uint_eq(r.cmd, 1);
		ck_assert_str_eq(r.why, "");
	} else if (rc == 0)
		ck_assert_str_eq(r.why, "");
	else
		ck_assert_msg(strstr(r.why, row->authority) != NULL,
		    "row %d: reason \"%s\" lacks \"%s\"", _i, r.why,
		    row->authority);
}
END_TEST

START_TEST(test_request_fields_are_the_bytes_sent)
{
	static const unsigned char v4[] = "\x05\x01\x00\x01\xc0\x00\x02\x07"
					  "\xff\xff";
	static const unsigned char name[] = "\x05\x01\x00\x03\x03"
					    "EX."
					    "\x12\x34";
	struct socks_request r;

	ck_assert_int_eq(socks_request_parse(v4, sizeof(v4) - 1, &r), 1);
	ck_assert_uint_eq(r.atyp, SOCKS_ATYP_IPV4);
	ck_assert_uint_eq(r.port, 65535);
	ck_assert(memcmp(r.addr, "\xc0\x00\x02\x07", 4) == 0);
	ck_assert_str_eq(r.authority, "192.0.2.7:65535");
	ck_assert_int_eq(socks_request_parse(name, sizeof(name) - 1, &r), 1);
	ck_assert_uint_eq(r.atyp, SOCKS_ATYP_NAME);
	ck_assert_uint_eq(r.port, 0x1234);
	/* The name as sent: the authority parser lowercases and judges it. */
	ck_assert_str_eq(r.name, "EX.");
	ck_assert_str_eq(r.authority, "EX.:4660");
}
END_TEST

/* The longest name, 255 bytes, fits the authority whole. */
START_TEST(test_longest_name_fits_the_authority)
{
	unsigned char in[4 + 1 + 255 + 2];
	char want[SOCKS_AUTHORITY_MAX];
	struct socks_request r;

	memcpy(in, "\x05\x01\x00\x03\xff", 5);
	memset(in + 5, 'a', 255);
	in[260] = 0xff;
	in[261] = 0xff;
	ck_assert_int_eq(socks_request_parse(in, sizeof(in), &r), 1);
	ck_assert_uint_eq(r.len, sizeof(in));
	snprintf(want, sizeof(want), "%.255s:65535", (const char *)in + 5);
	ck_assert_str_eq(r.authority, want);
}
END_TEST

START_TEST(test_every_prefix_of_a_valid_request_waits_for_more)
{
	static const unsigned char greeting[] = "\x05\x02\x02\x00";
	static const unsigned char request[] = "\x05\x01\x00\x03\x06"
					       "a.test"
					       "\x01\xbb";
	struct socks_greeting g;
	struct socks_request r;
	size_t n;

	for (n = 0; n < sizeof(greeting) - 1; n++)
		ck_assert_msg(socks_greeting_parse(greeting, n, &g) == 0,
		    "greeting prefix %zu: %s", n, g.why);
	ck_assert_int_eq(
	    socks_greeting_parse(greeting, sizeof(greeting) - 1, &g), 1);
	for (n = 0; n < sizeof(request) - 1; n++)
		ck_assert_msg(socks_request_parse(request, n, &r) == 0,
		    "request prefix %zu: %s", n, r.why);
	ck_assert_int_eq(
	    socks_request_parse(request, sizeof(request) - 1, &r), 1);
	ck_assert_str_eq(r.authority, "a.test:443");
}
END_TEST

#define NROWS(a) ((int)(sizeof(a) / sizeof((a)[0])))

int
main(void)
{
	Suite *s = suite_create("proxy_socks");
	TCase *tc = tcase_create("socks");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(
	    tc, test_greeting_needs_no_authentication, 0, NROWS(greeting_rows));
	tcase_add_loop_test(tc, test_request_is_connect_to_one_destination, 0,
	    NROWS(request_rows));
	tcase_add_test(tc, test_request_fields_are_the_bytes_sent);
	tcase_add_test(tc, test_longest_name_fits_the_authority);
	tcase_add_test(tc, test_every_prefix_of_a_valid_request_waits_for_more);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
