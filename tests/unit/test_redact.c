/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Unit tests for broker/redact.c: every encoding of a secret is replaced. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "common/errors.h"
#include "broker/redact.h"

#define PW	"p@ss word/+?x9"	/* '@', ' ', '/', '+', '?' make forms differ */

static const struct {
	const char	*name;
	const char	*in;
	const char	*out;
	int		 count;
} rows[] = {
	{ "raw value", "token=" PW ";", "token=[REDACTED:PW];", 1 },
	{ "raw value twice", PW PW, "[REDACTED:PW][REDACTED:PW]", 2 },
	{ "lowercase hex", "h=7040737320776f72642f2b3f7839",
	    "h=[REDACTED:PW]", 1 },
	{ "uppercase hex", "7040737320776F72642F2B3F7839.", "[REDACTED:PW].", 1 },
	{ "percent-encoded, uppercase", "?pw=p%40ss%20word%2F%2B%3Fx9&a=1",
	    "?pw=[REDACTED:PW]&a=1", 1 },
	{ "percent-encoded, lowercase", "p%40ss%20word%2f%2b%3fx9",
	    "[REDACTED:PW]", 1 },
	{ "form-encoded with plus", "pw=p%40ss+word%2F%2B%3Fx9",
	    "pw=[REDACTED:PW]", 1 },
	{ "percent-encoded, / kept (urllib.parse.quote)",
	    "/keys/p%40ss%20word/%2B%3Fx9", "/keys/[REDACTED:PW]", 1 },
	{ "base64 padded", "x cEBzcyB3b3JkLys/eDk= y", "x [REDACTED:PW] y", 1 },
	{ "base64 unpadded", "cEBzcyB3b3JkLys/eDk", "[REDACTED:PW]", 1 },
	{ "base64url padded", "cEBzcyB3b3JkLys_eDk=", "[REDACTED:PW]", 1 },
	{ "base64url unpadded", "/cEBzcyB3b3JkLys_eDk/", "/[REDACTED:PW]/", 1 },
	{ "basic auth: base64 of user:secret",
	    "Authorization: Basic dXNlcjpwQHNzIHdvcmQvKz94OQ==",
	    "Authorization: Basic dXNlcjp[REDACTED:PW]Q==", 1 },
	{ "echo secret | base64 (trailing newline)", "cEBzcyB3b3JkLys/eDkK",
	    "[REDACTED:PW]K", 1 },
	{ "base64 at offset 0 followed by other bytes",
	    "cEBzcyB3b3JkLys/eDn//w==", "[REDACTED:PW]n//w==", 1 },
	{ "base64 at offset 1", "dXBAc3Mgd29yZC8rP3g5eno=",
	    "dX[REDACTED:PW]eno=", 1 },
	{ "coloured by grep --color=always inside it",
	    "t=p@ss \033[01;31m\033[Kwo\033[m\033[Krd/+?x9.", "t=[REDACTED:PW].", 1 },
	{ "bash printf %q", "pw=p@ss\\ word/+\\?x9\n", "pw=[REDACTED:PW]\n", 1 },
	{ "PHP json_encode: / as \\/", "{\"pw\":\"p@ss word\\/+?x9\"}",
	    "{\"pw\":\"[REDACTED:PW]\"}", 1 },
	{ "no secret: unchanged", "nothing to see here", "nothing to see here",
	    0 },
	{ "a prefix of the secret is not replaced", "p@ss wor", "p@ss wor", 0 },
	{ "empty input", "", "", 0 },
};

START_TEST(test_redact_replaces_every_encoding)
{
	struct redact *r;
	char *out;
	size_t outlen;
	int n;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "PW", PW, strlen(PW)), 0);
	n = redact_buf(r, rows[_i].in, strlen(rows[_i].in), &out, &outlen);
	ck_assert_msg(n == rows[_i].count, "%s: %d replacements, want %d",
	    rows[_i].name, n, rows[_i].count);
	ck_assert_msg(strcmp(out, rows[_i].out) == 0, "%s: got '%s' want '%s'",
	    rows[_i].name, out, rows[_i].out);
	ck_assert_uint_eq(outlen, strlen(rows[_i].out));
	free(out);
	redact_free(r);
}
END_TEST

static const struct {
	const char	*name;
	const char	*secret_name;
	const char	*value;
	size_t		 len;
	int		 rc;
} add_rows[] = {
	{ "three bytes is too short to redact", "SHORT", "abc", 3,
	    AL_ERR_LIMIT },
	{ "empty value", "EMPTY", "", 0, AL_ERR_LIMIT },
	{ "four bytes is the minimum", "MIN", "abcd", 4, 0 },
	{ "empty name", "", "abcdef", 6, AL_ERR_FORMAT },
	{ "name with a space", "A B", "abcdef", 6, AL_ERR_FORMAT },
	{ "name with a bracket", "A]", "abcdef", 6, AL_ERR_FORMAT },
	{ "binary value with NUL", "BIN", "\0\1\2\3\4\5", 6, 0 },
};

START_TEST(test_redact_refuses_ungrantable_secrets)
{
	struct redact *r;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_msg(redact_add(r, add_rows[_i].secret_name,
	    add_rows[_i].value, add_rows[_i].len) == add_rows[_i].rc, "%s",
	    add_rows[_i].name);
	ck_assert_uint_eq(redact_count(r), add_rows[_i].rc == 0 ? 1 : 0);
	ck_assert_int_eq(redact_grantable(add_rows[_i].len),
	    add_rows[_i].rc != AL_ERR_LIMIT);
	redact_free(r);
}
END_TEST

START_TEST(test_redact_prefers_the_longer_secret)
{
	struct redact *r;
	char *out;
	size_t outlen;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "SHORTER", "secret", 6), 0);
	ck_assert_int_eq(redact_add(r, "LONGER", "secret-token-42", 15), 0);
	ck_assert_int_eq(redact_buf(r, "a secret-token-42 and a secret", 30,
	    &out, &outlen), 2);
	ck_assert_str_eq(out, "a [REDACTED:LONGER] and a [REDACTED:SHORTER]");
	free(out);
	redact_free(r);
}
END_TEST

/* What a runner is handed must be the value the redactor hides. */
START_TEST(test_redact_holds_exactly_the_value)
{
	struct redact *r;

	ck_assert_int_eq(redact_holds(NULL, "TOKEN", "secret-token-42", 15), 0);
	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "TOKEN", "secret-token-42", 15), 0);
	ck_assert_int_eq(redact_add(r, "TOKEN2", "other-value", 11), 0);
	ck_assert_int_eq(redact_holds(r, "TOKEN", "secret-token-42", 15), 1);
	ck_assert_int_eq(redact_holds(r, "TOKEN2", "other-value", 11), 1);
	/* a changed value, a prefix, another secret's value or name */
	ck_assert_int_eq(redact_holds(r, "TOKEN", "secret-token-43", 15), 0);
	ck_assert_int_eq(redact_holds(r, "TOKEN", "secret-token-4", 14), 0);
	ck_assert_int_eq(redact_holds(r, "TOKEN", "other-value", 11), 0);
	ck_assert_int_eq(redact_holds(r, "TOKEN2", "secret-token-42", 15), 0);
	ck_assert_int_eq(redact_holds(r, "TOKE", "secret-token-42", 15), 0);
	ck_assert_int_eq(redact_holds(r, "UNKNOWN", "secret-token-42", 15), 0);
	redact_free(r);
}
END_TEST

/*
 * A growing stream is given out only up to where no secret may have
 * begun: cutting "token=secret-to" there would give out "secret-to" now
 * and "ken-42" later, neither of which the redactor recognises.
 */
START_TEST(test_redact_settled_holds_back_a_secret_begun)
{
	static const char s1[] = "token=secret-to";
	static const char s2[] = "a secret-token-42 ~";	/* ~ begins no form */
	static const char s3[] = "x secret-token-42 secret-t";
	struct redact *r;

	ck_assert_uint_eq(redact_settled(NULL, s1, strlen(s1)), strlen(s1));
	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_uint_eq(redact_settled(r, s1, strlen(s1)), strlen(s1));
	ck_assert_int_eq(redact_add(r, "LONGER", "secret-token-42", 15), 0);
	ck_assert_uint_eq(redact_settled(r, s1, strlen(s1)), 6);
	ck_assert_uint_eq(redact_settled(r, s2, strlen(s2)), strlen(s2));
	/* the whole one is settled; the one begun after it is not */
	ck_assert_uint_eq(redact_settled(r, s3, strlen(s3)), 18);
	/* a begun hex form, and a begun last byte */
	ck_assert_uint_eq(redact_settled(r, "id 7365637265", 13), 3);
	ck_assert_uint_eq(redact_settled(r, "ends s", 6), 5);
	ck_assert_uint_eq(redact_settled(r, "", 0), 0);
	redact_free(r);
}
END_TEST

/*
 * base64(1) breaks its lines at 76 columns and xxd -p at 60: a hex or
 * base64 form broken by "\n" or "\r\n" between two characters is still
 * the secret's, and a stream that ends inside one is not settled.  Two
 * breaks in a row, or a raw value broken, are other text.
 */
START_TEST(test_redact_wrapped_forms)
{
	struct redact *r;
	char *out;
	size_t outlen;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "TOK", "secret-token-42", 15), 0);
	/* base64: c2VjcmV0LXRva2VuLTQy; hex: 7365637265742d746f6b656e2d3432 */
	ck_assert_int_eq(redact_buf(r, "b c2VjcmV0\nLXRva2VuLTQy\n", 24,
	    &out, &outlen), 1);
	ck_assert_str_eq(out, "b [REDACTED:TOK]\n");
	free(out);
	ck_assert_int_eq(redact_buf(r,
	    "7365637265742d\r\n746f6b656e2d3432", 32, &out, &outlen), 1);
	ck_assert_str_eq(out, "[REDACTED:TOK]");
	free(out);
	ck_assert_int_eq(redact_buf(r, "c2VjcmV0\n\nLXRva2VuLTQy", 22,
	    &out, &outlen), 0);
	free(out);
	ck_assert_int_eq(redact_buf(r, "secret-\ntoken-42", 16, &out,
	    &outlen), 0);
	free(out);
	ck_assert_int_eq(redact_contains(r, "x c2Vj\ncmV0LXRva2VuLTQy", 23), 1);
	ck_assert_uint_eq(redact_settled(r, "id c2VjcmV0\n", 12), 3);
	ck_assert_uint_eq(redact_settled(r, "id c2VjcmV0\r", 12), 3);
	ck_assert_uint_ge(redact_longest(r), 3 * 30 - 2);
	redact_free(r);
}
END_TEST

/*
 * A hex dump puts separators between the bytes of a secret's hex and
 * breaks it over lines, an offset before each and the secret's bytes in
 * the ASCII column after: the match runs to the end of its last line.
 * Terminal sequences other than CSI (OSC, 8-bit CSI, a charset, a lone
 * ESC) may stand between its characters.
 */
START_TEST(test_redact_hex_dumps_and_terminal_sequences)
{
	static const struct {
		const char	*in, *out;
	} c[] = {
		{ "00000000: 6964 3a20 7365 6372 6574 2d74 6f6b 656e  "
		  "id: secret-token\n00000010: 2d34 32                  "
		  "                -42\n",
		  "00000000: 6964 3a20 [REDACTED:TOK]\n" },
		{ "00000000  69 64 3a 20 73 65 63 72  65 74 2d 74 6f 6b 65 6e"
		  "  |id: secret-token|\n00000010  2d 34 32              "
		  "                            |-42|\n00000013\n",
		  "00000000  69 64 3a 20 [REDACTED:TOK]\n00000013\n" },
		{ "00000000: 73 65 63 72 65 74 2d 74  secret-t\r\n"
		  "00000008: 6f 6b 65 6e 2d 34 32     oken-42\r\n",
		  "00000000: [REDACTED:TOK]\r\n" },
		{ "k 73:65:63:72:65:74:2d:74:6f:6b:65:6e:2d:34:32 k",
		  "k [REDACTED:TOK] k" },
		{ "k 73 65 63 72 65 74 2D 74 6F 6B 65 6E 2D 34 32",
		  "k [REDACTED:TOK]" },
		{ "k 73 65 63 72 65 74 2d 74 6f 6b 65 6e 2d 34 33",
		  "k 73 65 63 72 65 74 2d 74 6f 6b 65 6e 2d 34 33" },
		{ "73 65   63 72", "73 65   63 72" },
		{ "0000000 6573 7263 7465 742d 6b6f 6e65 342d 0a32\n"
		  "0000020\n", "0000000 [REDACTED:TOK]\n0000020\n" },
		{ "0000000 2078 6573 7263 7465 742d 6b6f 6e65 342d\n"
		  "0000020 0032\n", "0000000 2078 [REDACTED:TOK]\n" },
		{ "0000000 6573 7263 7465 742d 6b6f 6e65 342d 0a31\n",
		  "0000000 6573 7263 7465 742d 6b6f 6e65 342d 0a31\n" },
		{ "secret\x1b]8;;https://x/\x1b\\-token\x1b]8;;\a-42 k",
		  "[REDACTED:TOK] k" },
		{ "secret-\x9b" "1mtoken\x9bm-42", "[REDACTED:TOK]" },
		{ "secret-to\x1b(B\x1b[mken-42", "[REDACTED:TOK]" },
		{ "secret\x1b-token-42", "[REDACTED:TOK]" },
		{ "secret-\x1b" "7token-42", "[REDACTED:TOK]" },
	};
	struct redact *r;
	char *out;
	size_t i, outlen;
	const char *grow;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "TOK", "secret-token-42", 15), 0);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ck_assert_int_ge(redact_buf(r, c[i].in, strlen(c[i].in), &out,
		    &outlen), 0);
		ck_assert_str_eq(out, c[i].out);
		free(out);
	}
	/* A dump's last line not yet ended is not settled. */
	grow = "x 00000000: 7365 6372 6574 2d74 6f6b 656e 2d34  "
	    "secret-token-4\n00000010: 32                    2";
	ck_assert_uint_eq(redact_settled(r, grow, strlen(grow)), 12);
	redact_free(r);
}
END_TEST

/*
 * A dump of little-endian 4- or 8-byte words (od -t x4, od -t x8,
 * xxd -e) reverses each word's bytes; a dump of 8 or 32 bytes a line
 * (xxd -c 8, od -w8, xxd -c 32) changes lines at other intervals; a
 * one-line dump's ASCII column shows a byte outside " " to "~" as ".";
 * a hyperlink or a colour a character at a time puts over 64 bytes of
 * escape sequences inside the secret.
 */
START_TEST(test_redact_dump_words_widths_and_ascii_column)
{
	static const struct {
		const char	*in, *out;
	} c[] = {
		{ "0000000 203a6469 72636573 742d7465 6e656b6f\n"
		  "0000020 0a32342d\n0000024\n",
		  "0000000 203a6469 [REDACTED:TOK]\n0000024\n" },
		{ "0000000 72636573203a6469 6e656b6f742d7465\n"
		  "0000020 000000000a32342d\n0000024\n",
		  "0000000 [REDACTED:TOK]\n0000024\n" },
		{ "00000000: 203a6469 72636573 742d7465 6e656b6f  "
		  "id: secret-token\n00000010: 0a32342d                  "
		  "           -42.\n",
		  "00000000: 203a6469 [REDACTED:TOK]\n" },
		/* the other bytes of its last word are not its own */
		{ "0000000 203a6469 72636573 742d7465 6e656b6f\n"
		  "0000020 0a32342e\n",
		  "0000000 203a6469 72636573 742d7465 6e656b6f\n"
		  "0000020 0a32342e\n" },
		{ "00000000: 6d79 2069 643a 2073  my id: s\n"
		  "00000008: 6563 7265 742d 746f  ecret-to\n"
		  "00000010: 6b65 6e2d 3432 0a    ken-42.\n",
		  "00000000: 6d79 2069 643a 20[REDACTED:TOK]\n" },
		{ "000000 69 64 3a 20 73 65 63 72  >id: secr<\n"
		  "000008 65 74 2d 74 6f 6b 65 6e  >et-token<\n"
		  "000010 2d 34 32 0a              >-42.<\n000014\n",
		  "000000 69 64 3a 20 [REDACTED:TOK]\n000014\n" },
		{ "00000000: 7468 6520 6964 206f 6620 7468 6973 206f 6e65 "
		  "2069 733a 2073 6563 7265 742d 746f  the id of this one "
		  "is: secret-to\n00000020: 6b65 6e2d 3432 0a              "
		  "                                                  "
		  "ken-42.\n",
		  "00000000: 7468 6520 6964 206f 6620 7468 6973 206f 6e65 "
		  "2069 733a 20[REDACTED:TOK]\n" },
		{ "00000000: 6b3a 2073 e963 7265 742d 746f 6b0a       "
		  "k: s.cret-tok.\n",
		  "00000000: 6b3a 20[REDACTED:DOT]0a       k: "
		  "[REDACTED:DOT].\n" },
		{ "secret\x1b]8;;https://ci.example/aaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "\x1b\\-token\x1b]8;;\x1b\\-42 k",
		  "[REDACTED:TOK] k" },
		{ "s\x1b[1m" "e\x1b[0mc\x1b[1mr\x1b[0me\x1b[1mt\x1b[0m-"
		  "\x1b[1mt\x1b[0mo\x1b[1mk\x1b[0me\x1b[1mn\x1b[0m-42",
		  "[REDACTED:TOK]" },
		/* its ASCII column begins with the hex digit it needs next */
		{ "00000000: 3278 7365 6372 6574  2xsecret\n"
		  "00000008: 2d74 6f6b 656e 2d34  -token-4\n"
		  "00000010: 32                   2\n",
		  "00000000: 3278 [REDACTED:TOK]\n" },
		/* ... and its next line too: the same line goes on */
		{ "73 65 63 72\n0000004 65 74 2d 74 6f 6b 65 6e 2d 34 32\n",
		  "[REDACTED:TOK]\n" },
		/* xxd -e's spaces for the bytes its last word lacks */
		{ "00000000: 72636573 742d7465 6e656b6f  secret-token\n"
		  "0000000c:   32342d                    -42\n",
		  "00000000: [REDACTED:TOK]\n" },
		/* a column of dots and 2 bytes shown is no form */
		{ "..ab..", "..ab.." },
	};
	struct redact *r;
	char *out;
	size_t i, outlen;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "TOK", "secret-token-42", 15), 0);
	ck_assert_int_eq(redact_add(r, "DOT", "s\xe9" "cret-tok", 10), 0);
	ck_assert_int_eq(redact_add(r, "BIN", "\x01\x02" "ab\x03\x04", 6), 0);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ck_assert_int_ge(redact_buf(r, c[i].in, strlen(c[i].in), &out,
		    &outlen), 0);
		ck_assert_str_eq(out, c[i].out);
		free(out);
	}
	redact_free(r);
}
END_TEST

/*
 * A dump in uppercase (xxd -u, xxd -e -u, hexdump -e '4/4 "%08X "', its
 * lines without an offset), as a C array (xxd -i: ", 0x" between bytes,
 * a line break and an indent every few), as "\x" escapes, of fewer than
 * 8 bytes a line (xxd -c 4: a change of line every 4 bytes) or with an
 * ASCII column over 40 bytes (xxd -c 48), as od -c prints it (each byte
 * in a field of 4 columns, a control byte as \001): each gave the
 * secret back.
 */
START_TEST(test_redact_dump_case_arrays_and_widths)
{
	static const struct {
		const char	*in, *out;
	} c[] = {
		{ "00000000: 203A6469 72636573 742D7465 6E656B6F  "
		  "id: secret-token\n00000010: 0A32342D                   "
		  "          -42.\n",
		  "00000000: 203A6469 [REDACTED:TOK]\n" },
		{ "203A6469 72636573 742D7465 6E656B6F\n0A32342D         "
		  "                  \n",
		  "203A6469 [REDACTED:TOK]                           \n" },
		/* xxd -p: no ASCII column, the rest of the line is kept */
		{ "7878207365637265742d\n746f6b656e2d34322079\n",
		  "787820[REDACTED:TOK]2079\n" },
		{ "k 73 65 63 72 65 74 2D 74 6f 6B 65 6e 2d 34 32 k",
		  "k [REDACTED:TOK] k" },
		{ "  0x69, 0x64, 0x3a, 0x20, 0x73, 0x65, 0x63, 0x72,\n"
		  "  0x65, 0x74, 0x2d, 0x74, 0x6f, 0x6b, 0x65, 0x6e,\n"
		  "  0x2d, 0x34, 0x32, 0x0a\n",
		  "  0x69, 0x64, 0x3a, 0x20, 0x[REDACTED:TOK], 0x0a\n" },
		{ "{0X73,0X65,0X63,0X72,0X65,0X74,0X2D,0X74,0X6F,0X6B,0X65,"
		  "0X6E,0X2D,0X34,0X32}",
		  "{0X[REDACTED:TOK]}" },
		{ "b'\\x73\\x65\\x63\\x72\\x65\\x74\\x2d\\x74\\x6f\\x6b\\x65"
		  "\\x6e\\x2d\\x34\\x32'",
		  "b'\\x[REDACTED:TOK]'" },
		{ "00000000: 6b65 793d  key=\n00000004: 7365 6372  secr\n"
		  "00000008: 6574 2d74  et-t\n0000000c: 6f6b 656e  oken\n"
		  "00000010: 2d34 32    -42\n",
		  "00000000: 6b65 793d  key=\n00000004: [REDACTED:TOK]\n" },
		{ "00000000: 7468 6520 6964 206f 6620 7468 6973 206f 6e65 "
		  "2069 7320 6865 7265 2c20 616e 6420 6974 2069 733a 2073 "
		  "6563 7265 742d 746f  the id of this one is here, and it is:"
		  " secret-to\n00000030: 6b65 6e2d 3432 0a                   "
		  "                                                          "
		  "                                           ken-42.\n",
		  "00000000: 7468 6520 6964 206f 6620 7468 6973 206f 6e65 "
		  "2069 7320 6865 7265 2c20 616e 6420 6974 2069 733a 20"
		  "[REDACTED:TOK]\n" },
		{ "0000000   i   d   :       s   e   c   r   e   t   -   t   o   k"
		  "   e   n\n0000020   -   4   2  \\n\n0000024\n",
		  "0000000   i   d   :       [REDACTED:TOK]  \\n\n0000024\n" },
		{ "000000   k 001   c   t\n000004   l   -   v   a\n"
		  "000008   l   9  \\n\n00000b\n",
		  "000000   k [REDACTED:CTL]  \\n\n00000b\n" },
	};
	/* Ordinary dumps, and dumps of the secret with its last byte changed. */
	static const char *const same[] = {
		"00000000: 6275 696c 6420 6f6b 0a                   build ok.\n",
		"00000000: 203A6469 72636573 742D7465 6E656B6F  "
		"id: secret-token\n00000010: 0A33342D                   "
		"          -43.\n",
		"  0x73, 0x65, 0x63, 0x72, 0x65, 0x74, 0x2d, 0x74, 0x6f, 0x6b,"
		" 0x65, 0x6e,\n  0x2d, 0x34, 0x33\n",
		"00000000: 7365 6372  secr\n00000004: 6574 2d74  et-t\n"
		"00000008: 6f6b 656e  oken\n0000000c: 2d34 33    -43\n",
		"DEADBEEF 0BADF00D 73656372 65742D74\n6F6B656E 2D343300\n",
		"0x73, 0x65, 0x63, 0x72, 0x65, 0x74, 0x2d, 0x74, 0x6f, 0x6b, "
		"0x65, 0x6e, 0x2d, 0x34",
		"00000000  6d 61 6b 65 5b 32 5d 3a  20 4c 65 61 76 69 6e 67  "
		"|make[2]: Leaving|\n00000010  20 64 69 72 65 63 74 6f  72 79 "
		"20 2f 62 75 69 6c  | directory /buil|\n00000020  64 2f 73 72 "
		"63 0a                                 |d/src.|\n00000026\n",
		"  0x6d, 0x61, 0x6b, 0x65, 0x3a, 0x20,\n  0x6f, 0x6b, 0x20, "
		"0x30, 0x78, 0x34,\n  0x31, 0x0a\n",
		"00000000: 7374 6174  stat\n00000004: 7573 3D32  us=2\n"
		"00000008: 3030 204F  00 O\n0000000c: 4B0A       K.\n",
		"0000000   i   d   :       s   e   c   r   e   t   -   t   o   k"
		"   e   n\n0000020   -   4   3  \\n\n0000024\n",
		"0000000   b   u   i   l   d       o   k  \\n\n0000011\n",
	};
	struct redact *r;
	char *out;
	size_t i, outlen;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "TOK", "secret-token-42", 15), 0);
	ck_assert_int_eq(redact_add(r, "CTL", "\001ctl-val9", 9), 0);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ck_assert_int_ge(redact_buf(r, c[i].in, strlen(c[i].in), &out,
		    &outlen), 1);
		ck_assert_str_eq(out, c[i].out);
		free(out);
	}
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		ck_assert_int_eq(redact_buf(r, same[i], strlen(same[i]), &out,
		    &outlen), 0);
		ck_assert_str_eq(out, same[i]);
		free(out);
		ck_assert_int_eq(redact_contains(r, same[i], strlen(same[i])),
		    0);
	}
	redact_free(r);
}
END_TEST

/* An input, what redact_buf() makes of it (NULL: the same), how many. */
struct redact_case {
	const char	*in, *out;
	int		 count;
};

static void
expect_cases(const struct redact *r, const struct redact_case *c, size_t n)
{
	char *out;
	size_t i, outlen;
	int rc;

	for (i = 0; i < n; i++) {
		rc = redact_buf(r, c[i].in, strlen(c[i].in), &out, &outlen);
		ck_assert_msg(rc == c[i].count, "case %zu: %d, want %d", i, rc,
		    c[i].count);
		ck_assert_msg(strcmp(out, c[i].out != NULL ? c[i].out :
		    c[i].in) == 0, "case %zu: got '%s'", i, out);
		free(out);
	}
}

/*
 * xxd -c |width| of in[0..n) into out (xxd's layout: an offset, 2-byte
 * groups, two spaces, the ASCII column).
 */
static size_t
mini_xxd(char *out, const char *in, size_t n, size_t width)
{
	size_t l, b, o = 0;

	for (l = 0; l < n; l += width) {
		o += (size_t)sprintf(out + o, "%08zx:", l);
		for (b = l; b < l + width; b++) {
			if ((b - l) % 2 == 0)
				out[o++] = ' ';
			if (b < n)
				o += (size_t)sprintf(out + o, "%02x",
				    (unsigned char)in[b]);
			else
				o += (size_t)sprintf(out + o, "  ");
		}
		o += (size_t)sprintf(out + o, "  ");
		for (b = l; b < l + width && b < n; b++)
			out[o++] = in[b] >= 0x20 && in[b] < 0x7f ? in[b] : '.';
		out[o++] = '\n';
	}
	out[o] = '\0';
	return o;
}

/*
 * od -t x1 -c and od -c -t x1 (a line of characters under each line of
 * hex, or of hex under characters), od -b, od -a, a dump of 64 or 128
 * bytes a line with the secret across two, base32 at any offset, the
 * secret reversed or a separator between its characters, sed -n l's
 * broken line, a key's control bytes as sed -n l, cat -v and cat -A
 * print them; and the same layout of another value unchanged.
 */
START_TEST(test_redact_od_fields_wide_dumps_and_transforms)
{
	static const struct redact_case cases[] = {
		{ "0000000  70  77  3d  70  40  73  73  20\n"
		    "          p   w   =   p   @   s   s    \n"
		    "0000010  77  6f  72  64  2f  2b  3f  78\n"
		    "          w   o   r   d   /   +   ?   x\n"
		    "0000020  39  3b  0a\n"
		    "          9   ;  \\n\n"
		    "0000023\n",
		    "0000000  70  77  3d  [REDACTED:PW]\n0000023\n", 1 },
		{ "0000000   p   w   =   p   @   s   s    \n"
		    "         70  77  3d  70  40  73  73  20\n"
		    "0000010   w   o   r   d   /   +   ?   x\n"
		    "         77  6f  72  64  2f  2b  3f  78\n"
		    "0000020   9   ;  \\n\n"
		    "         39  3b  0a\n"
		    "0000023\n",
		    "0000000   p   w   =   [REDACTED:PW]\n0000023\n", 1 },
		/* The line of hex under begins with the next field's "9". */
		{ "0000000 220   a   b   p   @   s   s       w   o   r   d   /"
		    "   +   ?   x\n"
		    "         90  61  62  70  40  73  73  20  77  6f  72  64  2f"
		    "  2b  3f  78\n"
		    "0000020   9   !  \\n\n"
		    "         39  21  0a\n"
		    "0000023\n",
		    "0000000 220   a   b   [REDACTED:PW]\n0000023\n", 1 },
		{ "0000000 160 167 075 160 100 163 163 040\n"
		    "0000010 167 157 162 144 057 053 077 170\n"
		    "0000020 071 073 012\n",
		    "0000000 160 167 075 [REDACTED:PW] 073 012\n", 1 },
		{ "   p   w   =   p   @   s   s  sp   w   o   r   d   /\n"
		    "   +   ?   x   9   ;  nl\n",
		    "   p   w   =   [REDACTED:PW]   ;  nl\n", 1 },
		{ "OBAHG4ZAO5XXEZBPFM7XQOI=\nPBYEA43TEB3W64TEF4VT66BZ\n"
		    "PB4XU4CAONZSA53POJSC6KZ7PA4Q====\n",
		    "[REDACTED:PW]\nPB[REDACTED:PW]\nPB4XU[REDACTED:PW]Q====\n", 3 },
		{ "rev: 9x?+/drow ss@p\n", "rev: [REDACTED:PW]\n", 1 },
		{ "[112, 64, 115, 115, 32, 119, 111, 114, 100, 47, 43, 63, 120, "
		    "57]", "[[REDACTED:PW]]", 1 },
		{ "[112,64,115,115,32,119,111,114,100,47,43,63,120,57,0]",
		    "[[REDACTED:PW],0]", 1 },
		{ "[112, 64, 115, 115, 32, 119, 111, 114, 100, 47, 43, 63, 120, "
		    "58]", NULL, 0 },
		{ "p @ s s   w o r d / + ? x 9 \n", "[REDACTED:PW] \n", 1 },
		{ "p\n@\ns\ns\n \nw\no\nr\nd\n/\n+\n?\nx\n9\n",
		    "[REDACTED:PW]\n", 1 },
		/* Another value (wore): nothing under a line is taken. */
		{ "0000000  70  77  3d  70  40  73  73  20\n"
		    "          p   w   =   p   @   s   s    \n"
		    "0000010  77  6f  72  65  2f  2b  3f  78\n"
		    "          w   o   r   e   /   +   ?   x\n"
		    "0000020  39  3b  0a\n"
		    "          9   ;  \\n\n", NULL, 0 },
		{ "0000000   p   w   =   p   @   s   s    \n"
		    "         70  77  3d  70  40  73  73  20\n"
		    "0000010   w   o   r   e   /   +   ?   x\n"
		    "         77  6f  72  65  2f  2b  3f  78\n", NULL, 0 },
		{ "N52GQZLS p w o r d x 9 p @ s s\n", NULL, 0 },
		/* sed -n l breaks a line at 69 columns with "\\". */
		{ "pw=p@ss wo\\\nrd/+?x9$\n", "pw=[REDACTED:PW]$\n", 1 },
		{ "pw=p@ss wo\\\nre/+?x9$\n", NULL, 0 },
	};
	/* A key with control bytes, as sed -n l, cat -v and cat -A show it. */
	static const char key[] = "k\001Zq\211x\tL\177w\033";
	static const struct redact_case keyed[] = {
		{ "k=k\\001Zq\\211x\\tL\\177w\\033$\n", "k=[REDACTED:K]$\n", 1 },
		{ "k=k\\001Zq\\211\\\nx\\tL\\177w\\033$\n", "k=[REDACTED:K]$\n",
		    1 },
		{ "k=k^AZqM-^Ix\tL^?w^[\n", "k=[REDACTED:K]\n", 1 },
		{ "k=k^AZqM-^Ix^IL^?w^[$\n", "k=[REDACTED:K]$\n", 1 },
		{ "k=k^AZqM-^Ix^IL^?w^A$\n", NULL, 0 },
	};
	struct redact *rk;
	struct redact *r;
	char in[2048], dump[8192], *out;
	size_t n, w, outlen;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "PW", PW, strlen(PW)), 0);
	expect_cases(r, cases, sizeof(cases) / sizeof(cases[0]));
	ck_assert_ptr_nonnull(rk = redact_new());
	ck_assert_int_eq(redact_add(rk, "K", key, strlen(key)), 0);
	expect_cases(rk, keyed, sizeof(keyed) / sizeof(keyed[0]));
	redact_free(rk);
	/* The secret across two lines of 64 or 128 bytes, and another. */
	for (w = 64; w <= 128; w *= 2) {
		memset(in, 'x', w - 8);
		memcpy(in + w - 8, PW "!\n", strlen(PW) + 2);
		n = mini_xxd(dump, in, w - 8 + strlen(PW) + 2, w);
		ck_assert_int_eq(redact_buf(r, dump, n, &out, &outlen), 1);
		ck_assert_ptr_nonnull(strstr(out, "7878 [REDACTED:PW]\n"));
		ck_assert_ptr_null(strstr(out, "x9"));
		free(out);
		in[w - 8 + 9] = 'e';	/* p@ss wore */
		n = mini_xxd(dump, in, w - 8 + strlen(PW) + 2, w);
		ck_assert_int_eq(redact_buf(r, dump, n, &out, &outlen), 0);
		ck_assert_str_eq(out, dump);
		free(out);
	}
	redact_free(r);
}
END_TEST

START_TEST(test_redact_binary_buffer_with_nul)
{
	static const char in[] = "a\0" PW "\0b";
	struct redact *r;
	char *out;
	size_t outlen;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "PW", PW, strlen(PW)), 0);
	ck_assert_int_eq(redact_buf(r, in, sizeof(in) - 1, &out, &outlen), 1);
	ck_assert_uint_eq(outlen, 2 + strlen("[REDACTED:PW]") + 2);
	ck_assert_int_eq(memcmp(out, "a\0[REDACTED:PW]\0b", outlen), 0);
	free(out);
	redact_free(r);
}
END_TEST

START_TEST(test_redact_null_redactor_copies)
{
	char *out;
	size_t outlen;

	ck_assert_int_eq(redact_buf(NULL, "abc", 3, &out, &outlen), 0);
	ck_assert_str_eq(out, "abc");
	free(out);
	redact_free(NULL);
}
END_TEST

/*
 * A secret that ends inside a UTF-8 character: replacing it leaves the
 * character's last byte alone, which is not UTF-8, so the JSON string
 * cannot hold the result.  The whole string is dropped then, never kept
 * with the secret in it.
 */
START_TEST(test_redact_json_drops_a_string_it_cannot_rewrite)
{
	static const char secret[] = "split-secret-\xc3";
	struct redact *r;
	json_t *root;
	char *s;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "SPLIT", secret, strlen(secret)), 0);
	root = json_pack("{s:s}", "v", "before split-secret-\xc3\xa9 after");
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(redact_json(r, root), 1);
	s = json_dumps(root, JSON_COMPACT);
	ck_assert_str_eq(s, "{\"v\":\"[REDACTED]\"}");
	ck_assert_ptr_null(strstr(s, "split-secret"));
	free(s);
	json_decref(root);
	redact_free(r);
}
END_TEST

/*
 * A tool that prints JSON escapes a quote, a backslash and a line break
 * (jq, jansson, Python's json: "\n"; other control bytes "\u00xx", in
 * lowercase or uppercase hex).
 */
START_TEST(test_redact_json_escaped_form)
{
	/* é, U+1F600 (a surrogate pair), "&" and "/". */
	static const char v[] = "q\"b\\s\nk\x1bz\xc3\xa9\xf0\x9f\x98\x80&/";
	static const char *const in[] = {
		"{\"k\":\"q\\\"b\\\\s\\nk\\u001bz\xc3\xa9\xf0\x9f\x98\x80&/\"}",
		"{\"k\":\"q\\\"b\\\\s\\nk\\u001Bz\xc3\xa9\xf0\x9f\x98\x80&/\"}",
		/* Python's json.dumps (ensure_ascii) */
		"{\"k\":\"q\\\"b\\\\s\\nk\\u001bz\\u00e9\\ud83d\\ude00&/\"}",
		/* PHP's json_encode */
		"{\"k\":\"q\\\"b\\\\s\\nk\\u001bz\\u00e9\\ud83d\\ude00&\\/\"}",
		/* Go's encoding/json */
		"{\"k\":\"q\\\"b\\\\s\\nk\\u001bz\xc3\xa9\xf0\x9f\x98\x80\\u0026/\"}",
	};
	struct redact *r;
	char *out;
	size_t i, outlen;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "J", v, strlen(v)), 0);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		ck_assert_int_eq(
		    redact_buf(r, in[i], strlen(in[i]), &out, &outlen), 1);
		ck_assert_str_eq(out, "{\"k\":\"[REDACTED:J]\"}");
		free(out);
	}
	redact_free(r);
}
END_TEST

/*
 * redact_release() holds back the same tail whatever it holds, and gives
 * a form that begins before the tail whole.
 */
START_TEST(test_redact_release_ignores_content)
{
	struct redact *r;
	char in[8193];
	size_t keep;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_uint_eq(redact_release(r, "abc", 3), 3);
	ck_assert_int_eq(redact_add(r, "S", "s3cr", 4), 0);
	keep = redact_longest(r) - 1;
	/*
	 * Its hex (8 characters) broken into lines, or a dump's changes of
	 * line: the first after an ASCII column of up to 264 bytes and an
	 * offset (289 in all: xxd -c 256; an offset takes up to 17, 4
	 * spaces after it as hexdump -x prints), each of the 4 bytes on a
	 * line of its own (34: the byte in the ASCII column, its padding, an
	 * offset), the rest of its last line (1040: a line of 256), and
	 * lines of characters under its first and last lines (2 * 274: od
	 * -t x1 -c -w64) and a later one (21, and 16 for its 8 characters).
	 */
	ck_assert_uint_eq(keep, 3 * 8 - 3 + REDACT_MAX_ESC + 289 + 4 * 34 +
	    1040 + 2 * 274 + 21 + 16);
	ck_assert_uint_eq(redact_release(r, "abc", 3), 0);
	memset(in, 'x', 8192);
	in[8192] = '\0';
	memcpy(in + 126, "s3", 2);
	ck_assert_uint_eq(redact_release(r, in, 8192), 8192 - keep);
	memcpy(in + 126, "q3", 2);
	ck_assert_uint_eq(redact_release(r, in, 8192), 8192 - keep);
	/* s3cr begins a byte before the tail: given whole. */
	memcpy(in + 8192 - keep - 1, "s3cr", 4);
	ck_assert_uint_eq(redact_release(r, in, 8192), 8192 - keep + 3);
	redact_free(r);
}
END_TEST

/*
 * redact_release_lines() gives whole lines short of the same tail,
 * whatever it holds, and never cuts inside a form broken into lines.
 */
START_TEST(test_redact_release_lines_ignores_content)
{
	struct redact *r;
	char in[8193];

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_uint_eq(redact_release_lines(r, "ab\ncd", 5), 3);
	ck_assert_int_eq(redact_add(r, "S", "s3cr", 4), 0);
	/* 7333 begins the hex of s3cr, 7334 does not: the same lines. */
	memset(in, 'y', 8192);
	in[8192] = '\0';
	memcpy(in, "xxxx\n", 5);
	memcpy(in + 8186, "\n7333\n", 6);
	ck_assert_uint_eq(redact_release_lines(r, in, 8192), 5);
	memcpy(in + 8186, "\n7334\n", 6);
	ck_assert_uint_eq(redact_release_lines(r, in, 8192), 5);
	/* The hex of s3cr over two lines, before the tail: given whole. */
	memset(in, 'z', 8192);
	memcpy(in, "xxxx\n73\n336372\n", 15);
	ck_assert_uint_eq(redact_release_lines(r, in, 8192), 15);
	/* ... and its line break is no place to cut. */
	memset(in, 'z', 8192);
	memcpy(in, "xxxx\n7333\n6372", 14);
	ck_assert_uint_eq(redact_release_lines(r, in, 8192), 5);
	redact_free(r);
}
END_TEST

START_TEST(test_redact_json_tree_values_and_keys)
{
	struct redact *r;
	json_t *root;
	char *s;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "PW", PW, strlen(PW)), 0);
	root = json_pack("{s:s, s:[s, i, {s:s}], s:s, s:b}",
	    "a", "x " PW " y",
	    "list", "cEBzcyB3b3JkLys/eDk=", 7, "deep", "p%40ss%20word%2F%2B%3Fx9",
	    PW, "a key that is the secret",
	    "flag", 1);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(redact_json(r, root), 4);
	s = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_str_eq(s, "{\"[REDACTED:PW]\":\"a key that is the secret\","
	    "\"a\":\"x [REDACTED:PW] y\",\"flag\":true,\"list\":"
	    "[\"[REDACTED:PW]\",7,{\"deep\":\"[REDACTED:PW]\"}]}");
	ck_assert_ptr_null(strstr(s, PW));
	free(s);
	json_decref(root);
	redact_free(r);
}
END_TEST

/*
 * Decimal dumps in any layout (od -t u1, od -A n -t d1 -w5, jq's array,
 * hexdump -e '/1 "%u\n"', zero-padded as "%03d", a repeated byte as
 * hexdump's "*"), hex with a bare comma, base32hex, lowercase
 * base32, base85 (RFC 1924 alone, Ascii85 at an offset, Z85 of a longer
 * value), base58, rot13; and near misses left as they are: a last byte
 * off, a number inside a longer one.
 */
START_TEST(test_redact_decimal_dumps_and_other_bases)
{
	static const struct redact_case cases[] = {
		{ "0000000 112  64 115 115  32 119 111 114 100  47  43  63 120"
		    "  57\n0000016\n", "0000000 [REDACTED:PW]\n0000016\n", 1 },
		{ "  112   64  115  115   32\n  119  111  114  100   47\n"
		    "   43   63  120   57\n", "  [REDACTED:PW]\n", 1 },
		{ "[\n  112,\n  64,\n  115,\n  115,\n  32,\n  119,\n  111,\n"
		    "  114,\n  100,\n  47,\n  43,\n  63,\n  120,\n  57\n]",
		    "[\n  [REDACTED:PW]\n]", 1 },
		{ "112\n64\n115\n115\n32\n119\n111\n114\n100\n47\n43\n63\n"
		    "120\n57\n", "[REDACTED:PW]\n", 1 },
		{ "112 064 115 115 032 119 111 114 100 047 043 063 120 057 010",
		    "[REDACTED:PW] 010", 1 },
		{ "70,40,73,73,20,77,6f,72,64,2f,2b,3f,78,39,",
		    "[REDACTED:PW],", 1 },
		{ "0x70,0x40,0x73,0x73,0x20,0x77,0x6f,0x72,0x64,0x2f,0x2b,0x3f,"
		    "0x78,0x39", "0x[REDACTED:PW]", 1 },
		{ "E1076SP0ETNN4P1F5CVNGE8=", "[REDACTED:PW]", 1 },
		{ "obahg4zao5xxezbpfm7xqoi=", "[REDACTED:PW]", 1 },
		{ "a6of&Aa`$aWG^c}csT", "[REDACTED:PW]", 1 },
		{ "G]5ohF!,[FEb$gR5Bo0", "G]5oh[REDACTED:PW]5Bo0", 1 },
		{ "A6OF=aA}:Awg]C$CSy1[", "[REDACTED:PW]CSy1[", 1 },
		{ "iGX5tTQF8qzCdGQfi6L", "[REDACTED:PW]", 1 },
		/* hexdump with no -v: a repeated byte once, then "*". */
		{ "70 40 73 *\n20 77 6f 72 64 2f 2b 3f 78 39 0a ",
		    "[REDACTED:PW] 0a ", 1 },
		{ "112,64,115,*\n32,119,111,114,100,47,43,63,120,57,10,",
		    "[REDACTED:PW],10,", 1 },
		{ "70 *\n40 73 *\n20 77 6f 72 64 2f 2b 3f 78 39 0a ",
		    "[REDACTED:PW] 0a ", 1 },
		/* ... at the end of the text, shorter than the form */
		{ "112 64 115 *\n32 119 111 114 100 47 43 63 120 57 ",
		    "[REDACTED:PW] ", 1 },
		{ "c@ff jbeq/+?k9", "[REDACTED:PW]", 1 },
		/*
		 * Near misses: p@ss word/+?x8 (its base32hex differs from the
		 * secret's in the last 2 bits alone, and is redacted), a
		 * number inside a longer one.
		 */
		{ "0000000 112  64 115 115  32 119 111 114 100  47  43  63 120"
		    "  56\n0000016\n", NULL, 0 },
		{ "[1112, 64, 115, 115, 32, 119, 111, 114, 100, 47, 43, 63, "
		    "120, 57]", NULL, 0 },
		{ "[112, 64, 115, 115, 32, 119, 111, 114, 100, 47, 43, 63, "
		    "120, 570]", NULL, 0 },
		{ "70,40,73,73,20,77,6f,72,64,2f,2b,3f,78,38,", NULL, 0 },
		{ "E5076SP0ETNN4P1F5CVNGE8=", NULL, 0 },	/* q@ss word/+?x9 */
		{ "c@ff jbeq/+?k8", NULL, 0 },
		{ "70 40 73 *\n20 77 6f 72 64 2f 2b 3f 78 38 0a ", NULL, 0 },
		{ "112,64,115,*\n32,119,111,114,100,47,43,63,120,56,", NULL, 0 },
	};

	/* A first byte of one digit, held as "9,": other gaps after it. */
	static const struct redact_case tab[] = {
		{ "0000000   9 107 101 121  61\n", "0000000   [REDACTED:TAB]\n",
		    1 },
		{ "9 107 101 121 61 ", "[REDACTED:TAB] ", 1 },
		{ "[9, 107, 101, 121, 61]", "[[REDACTED:TAB]]", 1 },
		{ "[9, 107, 101, 121, 62]", NULL, 0 },
		{ "010 009 107 101 121 061 ", "010 00[REDACTED:TAB] ", 1 },
		{ "109 107 101 121 61 ", NULL, 0 },
	};
	struct redact *r;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "PW", "p@ss word/+?x9", 14), 0);
	expect_cases(r, cases, sizeof(cases) / sizeof(cases[0]));
	redact_free(r);
	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "TAB", "\tkey=", 5), 0);
	expect_cases(r, tab, sizeof(tab) / sizeof(tab[0]));
	redact_free(r);
}
END_TEST

/*
 * od -t d8 and od -t u8 of a binary key (a word's top bit set: negative
 * in od -t d8), at offset 0 and 1 (the word it shares with a neighbour
 * stays), and its base64 in groups of 4 (a space or "-" between, and a
 * line break after a space).
 */
START_TEST(test_redact_words_of_8_and_grouped_radix)
{
	static const char key[] = "k\xe9y-\xff\x01\x02\x03"
	    "\x90\x91\x92\x93\x94\x95\x96\x97";
	static const struct redact_case cases[] = {
		{ "0000000   216737927558457707 -7523661662112280176\n0000020\n",
		    "0000000   [REDACTED:K]\n0000020\n", 1 },
		{ "0000000   216737927558457707 10923082411597271440\n",
		    "0000000   [REDACTED:K]\n", 1 },
		{ "   144677233836518209 -7596001834950356989\n"
		    "                  151\n", "   144677233836518209 "
		    "[REDACTED:K]\n                  151\n", 1 },
		{ "a+l5 Lf8B AgOQ kZKT lJWW lw== ", "[REDACTED:K] ", 1 },
		{ "a+l5-Lf8B-AgOQ-kZKT-lJWW-lw==", "[REDACTED:K]", 1 },
		{ "a+l5 Lf8B \nAgOQ kZKT \nlJWW lw==\n", "[REDACTED:K]\n", 1 },
		/* Near misses: its last byte 0x98; two spaces between. */
		{ "   216737927558457707 -7451604068074352240\n", NULL, 0 },
		{ "a+l5  Lf8B  AgOQ  kZKT  lJWW  lw==", NULL, 0 },
	};
	struct redact *r;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "K", key, sizeof(key) - 1), 0);
	expect_cases(r, cases, sizeof(cases) / sizeof(cases[0]));
	redact_free(r);
}
END_TEST

static Suite *
redact_suite(void)
{
	Suite *s = suite_create("redact");
	TCase *tc = tcase_create("redact");

	tcase_add_loop_test(tc, test_redact_replaces_every_encoding, 0,
	    sizeof(rows) / sizeof(rows[0]));
	tcase_add_loop_test(tc, test_redact_refuses_ungrantable_secrets, 0,
	    sizeof(add_rows) / sizeof(add_rows[0]));
	tcase_add_test(tc, test_redact_prefers_the_longer_secret);
	tcase_add_test(tc, test_redact_holds_exactly_the_value);
	tcase_add_test(tc, test_redact_settled_holds_back_a_secret_begun);
	tcase_add_test(tc, test_redact_wrapped_forms);
	tcase_add_test(tc, test_redact_hex_dumps_and_terminal_sequences);
	tcase_add_test(tc, test_redact_dump_words_widths_and_ascii_column);
	tcase_add_test(tc, test_redact_dump_case_arrays_and_widths);
	tcase_add_test(tc, test_redact_od_fields_wide_dumps_and_transforms);
	tcase_add_test(tc, test_redact_decimal_dumps_and_other_bases);
	tcase_add_test(tc, test_redact_words_of_8_and_grouped_radix);
	tcase_add_test(tc, test_redact_binary_buffer_with_nul);
	tcase_add_test(tc, test_redact_null_redactor_copies);
	tcase_add_test(tc, test_redact_json_tree_values_and_keys);
	tcase_add_test(tc, test_redact_json_escaped_form);
	tcase_add_test(tc, test_redact_release_ignores_content);
	tcase_add_test(tc, test_redact_release_lines_ignores_content);
	tcase_add_test(tc, test_redact_json_drops_a_string_it_cannot_rewrite);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(redact_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
