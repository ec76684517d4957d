/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Tests for the egress proxy's ClientHello reader (proxy/tls.h): the
 * server name is cut out of a whole ClientHello; a ClientHello without
 * the extension has none; two names, the extension twice, a ClientHello
 * split over records, lengths that run past their container and a name
 * holding NUL are refused, and so are an Encrypted Client Hello, ESNI
 * and an SSLv2-format ClientHello; every prefix of a valid record asks
 * for more.  A server's HelloRetryRequest is told from its ServerHello,
 * and the second ClientHello is read behind the records that may come
 * before it; Postgres's and MySQL's requests for TLS are told.  The
 * records after the ClientHello are walked: a renegotiation's handshake
 * record is refused, TLS 1.2 and 1.3 sessions in any pieces are not.
 * The requests for TLS of text protocols (STARTTLS) are found; a TLS
 * 1.2 ticket is learned from the server's handshake and told in a
 * ClientHello.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/tls.h"

struct msg {
	unsigned char b[2 * TLS_RECORD_MAX];
	size_t len;
};

static void
put(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

static void
put16(struct msg *m, size_t v)
{
	unsigned char x[2] = { (unsigned char)(v >> 8), (unsigned char)v };

	put(m, x, 2);
}

/* A server_name extension holding |names| (NULL-terminated). */
static void
sni_ext(struct msg *m, const char *const *names)
{
	size_t list = 0, i;

	for (i = 0; names[i] != NULL; i++)
		list += 3 + strlen(names[i]);
	put16(m, 0);
	put16(m, list + 2);
	put16(m, list);
	for (i = 0; names[i] != NULL; i++) {
		put(m, "\0", 1);
		put16(m, strlen(names[i]));
		put(m, names[i], strlen(names[i]));
	}
}

/*
 * A record holding one ClientHello whose extensions are |ext| (|elen|
 * bytes; with_ext 0: no extensions block at all).
 */
static void
hello(struct msg *out, const struct msg *ext, int with_ext)
{
	struct msg body = { .len = 0 };
	unsigned char z[32] = { 0 };
	size_t hl;

	put(&body, "\x03\x03", 2);
	put(&body, z, 32); /* random */
	put(&body, "\x00", 1); /* session id */
	put(&body, "\x00\x02\x13\x01", 4); /* one cipher suite */
	put(&body, "\x01\x00", 2); /* null compression */
	if (with_ext) {
		put16(&body, ext->len);
		put(&body, ext->b, ext->len);
	}
	hl = body.len;
	out->len = 0;
	put(out, "\x16\x03\x01", 3);
	put16(out, hl + 4);
	put(out, "\x01", 1);
	put(out,
	    (unsigned char[]){ 0, (unsigned char)(hl >> 8), (unsigned char)hl },
	    3);
	put(out, body.b, body.len);
}

static int
parse(const struct msg *m, char *name, char *why)
{
	return tls_client_hello_name(m->b, m->len, name, why);
}

START_TEST(test_the_server_name_is_cut_out)
{
	static struct msg ext, m;
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];
	size_t i;

	put16(&ext, 43); /* another extension first */
	put16(&ext, 3);
	put(&ext, "\x02\x03\x04", 3);
	sni_ext(&ext, (const char *const[]){ "Front.Example.com", NULL });
	hello(&m, &ext, 1);
	ck_assert_int_eq(parse(&m, name, why), 1);
	ck_assert_str_eq(name, "Front.Example.com");
	ck_assert(tls_is_record(m.b, 1));
	ck_assert(!tls_is_record((const unsigned char *)"SSH-2.0", 7));
	for (i = 0; i < m.len; i++)
		ck_assert_int_eq(tls_client_hello_name(m.b, i, name, why), 0);
}
END_TEST

START_TEST(test_a_hello_without_the_extension_has_no_name)
{
	static struct msg ext, m;
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];

	hello(&m, &ext, 0);
	ck_assert_int_eq(parse(&m, name, why), 1);
	ck_assert_str_eq(name, "");
	put16(&ext, 43);
	put16(&ext, 0);
	hello(&m, &ext, 1);
	ck_assert_int_eq(parse(&m, name, why), 1);
	ck_assert_str_eq(name, "");
}
END_TEST

START_TEST(test_ambiguous_names_are_refused)
{
	static struct msg ext, m;
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];

	sni_ext(&ext, (const char *const[]){ "a.test", "b.test", NULL });
	hello(&m, &ext, 1);
	ck_assert_int_eq(parse(&m, name, why), -1);
	ck_assert_ptr_nonnull(strstr(why, "exactly one host name"));

	ext.len = 0;
	sni_ext(&ext, (const char *const[]){ "a.test", NULL });
	sni_ext(&ext, (const char *const[]){ "b.test", NULL });
	hello(&m, &ext, 1);
	ck_assert_int_eq(parse(&m, name, why), -1);
	ck_assert_ptr_nonnull(strstr(why, "twice"));

	/* A name holding a NUL: "a.t\0est". */
	ext.len = 0;
	put16(&ext, 0);
	put16(&ext, 2 + 3 + 7);
	put16(&ext, 3 + 7);
	put(&ext, "\0", 1);
	put16(&ext, 7);
	put(&ext, "a.t\0est", 7);
	hello(&m, &ext, 1);
	ck_assert_int_eq(parse(&m, name, why), -1);
	ck_assert_ptr_nonnull(strstr(why, "malformed TLS server name"));
}
END_TEST

START_TEST(test_bad_framing_is_refused)
{
	static struct msg ext, m;
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];

	sni_ext(&ext, (const char *const[]){ "a.test", NULL });
	hello(&m, &ext, 1);
	/* The ClientHello says it is longer than its record. */
	m.b[8]++;
	ck_assert_int_eq(parse(&m, name, why), -1);
	ck_assert_ptr_nonnull(strstr(why, "not whole in its record"));
	m.b[8]--;
	/* The extension's length runs past the extensions. */
	m.b[m.len - ext.len + 3]++;
	ck_assert_int_eq(parse(&m, name, why), -1);
	m.b[m.len - ext.len + 3]--;
	/* Not a ClientHello, not a handshake, too long a record. */
	m.b[5] = 2;
	ck_assert_int_eq(parse(&m, name, why), -1);
	m.b[5] = 1;
	ck_assert_int_eq(parse(&m, name, why), 1);
	m.b[0] = 21; /* an alert first */
	ck_assert(tls_is_record(m.b, m.len));
	ck_assert_int_eq(parse(&m, name, why), -1);
	m.b[0] = 22;
	m.b[3] = 0x40;
	m.b[4] = 0x01;
	ck_assert_int_eq(parse(&m, name, why), -1);
	ck_assert_ptr_nonnull(strstr(why, "malformed TLS record"));
}
END_TEST

/*
 * Encrypted Client Hello (and GREASE ECH, which looks the same) or the
 * old ESNI hide the name a front end routes by behind an outer name
 * that may be the CONNECT host: refused, the name before or after it.
 */
START_TEST(test_an_encrypted_name_is_refused)
{
	static const size_t types[] = { 0xfe0d, 0xffce, 0xfe0a, 0xfd00 };
	static struct msg ext, m;
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		ext.len = 0;
		sni_ext(&ext, (const char *const[]){ "front.test", NULL });
		put16(&ext, types[i]);
		put16(&ext, 4);
		put(&ext, "\x00\x00\x01\x00", 4);
		hello(&m, &ext, 1);
		ck_assert_int_eq(parse(&m, name, why), -1);
		ck_assert_ptr_nonnull(strstr(why, "encrypted ClientHello"));
	}
	/* Before the server name too. */
	ext.len = 0;
	put16(&ext, 0xfe0d);
	put16(&ext, 0);
	sni_ext(&ext, (const char *const[]){ "front.test", NULL });
	hello(&m, &ext, 1);
	ck_assert_int_eq(parse(&m, name, why), -1);
	/* A neighbouring codepoint is only an unknown extension. */
	ext.len = 0;
	sni_ext(&ext, (const char *const[]){ "front.test", NULL });
	put16(&ext, 0xfe0e);
	put16(&ext, 0);
	hello(&m, &ext, 1);
	ck_assert_int_eq(parse(&m, name, why), 1);
	ck_assert_str_eq(name, "front.test");
}
END_TEST

/* An SSLv2-format ClientHello has no extensions, so no name. */
START_TEST(test_an_sslv2_hello_is_refused)
{
	static const unsigned char v2[] = { 0x80, 0x2e, 0x01, 0x03, 0x01, 0x00,
		0x15 };
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];

	ck_assert(tls_is_record(v2, 1));
	ck_assert(tls_is_record(v2, 3));
	/* Memcached's binary magic, a little-endian length: not SSL 2.0. */
	ck_assert(!tls_is_record((const unsigned char *)"\x80\x00\x00\x05", 4));
	ck_assert(!tls_is_record((const unsigned char *)"\xc8\x00\x00\x00", 4));
	ck_assert_int_eq(tls_client_hello_name(v2, 4, name, why), 0);
	ck_assert_int_eq(tls_client_hello_name(v2, sizeof(v2), name, why), -1);
	ck_assert_ptr_nonnull(strstr(why, "SSL 2.0"));
}
END_TEST

/* A ServerHello of TLS 1.3 whose random is |random|. */
static void
server_hello(struct msg *m, const unsigned char random[32])
{
	m->len = 0;
	put(m, "\x16\x03\x03\x00\x30\x02\x00\x00\x2c\x03\x03", 11);
	put(m, random, 32);
	put(m, "\x00\x13\x01\x00\x00\x04\x00\x2b\x00\x02", 10);
}

/*
 * A HelloRetryRequest is told from a ServerHello by its random; a first
 * answer that cannot be told from one (a short first record, another
 * handshake message) counts as one; an alert or other bytes do not.
 */
START_TEST(test_a_hello_retry_request_is_told)
{
	static const unsigned char hrr[32] = { 0xcf, 0x21, 0xad, 0x74, 0xe5,
		0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8,
		0x91, 0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07,
		0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c };
	unsigned char other[32];
	static struct msg m;
	size_t i;

	server_hello(&m, hrr);
	for (i = 0; i < TLS_SERVER_FIRST; i++)
		ck_assert_int_eq(tls_server_retries(m.b, i), -1);
	ck_assert_int_eq(tls_server_retries(m.b, TLS_SERVER_FIRST), 1);
	ck_assert_int_eq(tls_server_retries(m.b, m.len), 1);
	memcpy(other, hrr, sizeof(other));
	other[31] ^= 1;
	server_hello(&m, other);
	ck_assert_int_eq(tls_server_retries(m.b, m.len), 0);
	m.b[5] = 11; /* a Certificate first */
	ck_assert_int_eq(tls_server_retries(m.b, m.len), 1);
	m.b[5] = 2;
	m.b[4] = 10; /* a first record too short to tell */
	ck_assert_int_eq(tls_server_retries(m.b, 14), -1);
	ck_assert_int_eq(tls_server_retries(m.b, 15), 1);
	ck_assert_int_eq(tls_server_retries(
			     (const unsigned char *)"\x15\x03\x03\x00\x02", 5),
	    0);
	ck_assert_int_eq(
	    tls_server_retries((const unsigned char *)"SSH-", 4), 0);
}
END_TEST

/*
 * After a HelloRetryRequest, change_cipher_spec and application_data
 * records go by whole; the next record must be the second ClientHello.
 */
START_TEST(test_the_second_hello_is_read_behind_skipped_records)
{
	static struct msg ext, ch, m;
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];
	size_t i;

	sni_ext(&ext, (const char *const[]){ "hidden.test", NULL });
	hello(&ch, &ext, 1);
	put(&m, "\x14\x03\x03\x00\x01\x01", 6);
	put(&m,
	    "\x17\x03\x03\x00\x03"
	    "abc",
	    8);
	put(&m, ch.b, ch.len);
	ck_assert_int_eq(tls_second_hello_name(m.b, m.len, name, why), 1);
	ck_assert_str_eq(name, "hidden.test");
	for (i = 0; i < m.len; i++)
		ck_assert_int_eq(tls_second_hello_name(m.b, i, name, why), 0);
	/* Another record before it: an alert, a handshake fragment. */
	m.b[6] = 21;
	ck_assert_int_eq(tls_second_hello_name(m.b, m.len, name, why), -1);
	m.b[6] = 22;
	ck_assert_int_eq(tls_second_hello_name(m.b, m.len, name, why), -1);
	/* Plain bytes are no ClientHello. */
	ck_assert_int_eq(
	    tls_second_hello_name(
		(const unsigned char *)"GET / HTTP/1.1\r\n", 16, name, why),
	    -1);
}
END_TEST

/* Postgres's and MySQL's requests for TLS, told from other bytes. */
START_TEST(test_a_database_request_for_tls_is_told)
{
	static const unsigned char pg[] = { 0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f,
		0x16 };
	unsigned char my[40] = { 32, 0, 0, 1, 0x00, 0x0a };
	size_t i;

	for (i = 1; i < 8; i++)
		ck_assert_int_eq(tls_upgrade_prelude(pg, i), -1);
	ck_assert_int_eq(tls_upgrade_prelude(pg, 8), 8);
	ck_assert_int_eq(tls_upgrade_prelude(pg, sizeof(pg)), 8);
	for (i = 1; i < 36; i++)
		ck_assert_int_eq(tls_upgrade_prelude(my, i), -1);
	ck_assert_int_eq(tls_upgrade_prelude(my, sizeof(my)), 36);
	my[5] = 0x02; /* CLIENT_SSL not set: a login in clear */
	ck_assert_int_eq(tls_upgrade_prelude(my, sizeof(my)), 0);
	ck_assert_int_eq(
	    tls_upgrade_prelude(
		(const unsigned char *)"\0\0\0\x08\x04\xd2\x16\x30", 8),
	    0); /* GSSENCRequest */
	ck_assert_int_eq(
	    tls_upgrade_prelude((const unsigned char *)"SSH-2.0", 7), 0);
	ck_assert_int_eq(
	    tls_upgrade_prelude((const unsigned char *)"\x16\x03\x01", 3), 0);
}
END_TEST

/* Walks |m| in pieces of |step| bytes; the result of the last piece. */
static int
walk_in(const struct msg *m, size_t step, char *why)
{
	struct tls_walk w;
	size_t off, n;

	memset(&w, 0, sizeof(w));
	for (off = 0; off < m->len; off += n) {
		n = m->len - off < step ? m->len - off : step;
		if (tls_walk(&w, m->b + off, n, why) != 0)
			return -1;
	}
	return 0;
}

/* A record of |type| with |n| body bytes. */
static void
record(struct msg *m, unsigned char type, size_t n)
{
	static const unsigned char z[2 * TLS_RECORD_MAX];

	put(m, (unsigned char[]){ type, 3, 3 }, 3);
	put16(m, n);
	put(m, z, n);
}

/*
 * What a client sends after its ClientHello: a TLS 1.2 handshake
 * (ClientKeyExchange, change_cipher_spec, Finished, then data), a
 * TLS 1.3 one (all application_data), in any pieces; a handshake record
 * after data, or a second one after change_cipher_spec, is refused.
 */
START_TEST(test_a_renegotiation_is_refused)
{
	static struct msg m12, m13, m;
	char why[TLS_WHY_MAX];
	size_t step;

	record(&m12, 22, 70); /* ClientKeyExchange */
	record(&m12, 20, 1);
	record(&m12, 22, 40); /* Finished */
	record(&m12, 23, 16384 + 2048);
	record(&m12, 23, 0);
	record(&m12, 21, 26); /* close_notify */
	record(&m13, 20, 1);
	record(&m13, 23, 53); /* Finished */
	record(&m13, 23, 300);
	record(&m13, 23, 22); /* KeyUpdate */
	for (step = 1; step <= 7; step++) {
		ck_assert_int_eq(walk_in(&m12, step, why), 0);
		ck_assert_int_eq(walk_in(&m13, step, why), 0);
	}
	ck_assert_int_eq(walk_in(&m12, m12.len, why), 0);
	/* A ClientHello, encrypted, after data */
	m = m12;
	record(&m, 22, 200);
	for (step = 1; step <= 7; step++)
		ck_assert_int_eq(walk_in(&m, step, why), -1);
	ck_assert_str_eq(
	    why, "TLS handshake record after the handshake (a renegotiation)");
	m = m13;
	record(&m, 22, 200);
	ck_assert_int_eq(walk_in(&m, 5, why), -1);
	/* ... or at once after the Finished */
	m.len = 0;
	record(&m, 22, 70);
	record(&m, 20, 1);
	record(&m, 22, 40);
	record(&m, 22, 200);
	ck_assert_int_eq(walk_in(&m, m.len, why), -1);
	/* A record of another type, version or too long a one */
	m.len = 0;
	record(&m, 24, 3);
	ck_assert_int_eq(walk_in(&m, m.len, why), -1);
	m.len = 0;
	record(&m, 23, 16384 + 2049);
	ck_assert_int_eq(walk_in(&m, m.len, why), -1);
	m.len = 0;
	record(&m, 23, 3);
	m.b[1] = 2;
	ck_assert_int_eq(walk_in(&m, m.len, why), -1);
	m.b[1] = 3;
	ck_assert_int_eq(walk_in(&m, m.len, why), 0);
	/* A header not whole yet is not judged */
	m.len = 0;
	record(&m, 22, 0);
	record(&m, 23, 0);
	put(&m, "\x16\x03\x03\x00", 4);
	ck_assert_int_eq(walk_in(&m, 1, why), 0);
}
END_TEST

/* Where the second ClientHello ends, behind the records skipped. */
START_TEST(test_the_second_hello_end_is_found)
{
	static struct msg ext, ch, m;
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];
	size_t end;

	sni_ext(&ext, (const char *const[]){ "front.test", NULL });
	hello(&ch, &ext, 1);
	put(&m, "\x14\x03\x03\x00\x01\x01", 6);
	put(&m, ch.b, ch.len);
	end = m.len;
	put(&m, "\x17\x03\x03\x00\x01x", 6);
	ck_assert_int_eq(tls_second_hello_name(m.b, m.len, name, why), 1);
	ck_assert_uint_eq(tls_second_hello_end(m.b, m.len), end);
	ck_assert_uint_eq(tls_second_hello_end(m.b, end), end);
}
END_TEST

/* Where |s| ends a request for TLS, fed in pieces of |step| bytes. */
static size_t
asks_in(const char *s, size_t len, size_t step)
{
	struct tls_ask a;
	size_t off, n, end;

	memset(&a, 0, sizeof(a));
	for (off = 0; off < len; off += n) {
		n = len - off < step ? len - off : step;
		end = tls_asks_for_tls(&a, (const unsigned char *)s + off, n);
		if (end != 0)
			return off + end;
	}
	return 0;
}

/* |s| asks for TLS, ending |tail| bytes before its end, in any pieces. */
static void
asks(const char *s, size_t len, size_t tail)
{
	size_t step;

	for (step = 1; step <= len; step++)
		ck_assert_uint_eq(asks_in(s, len, step), len - tail);
}

#define ASKS(s, tail) asks(s, sizeof(s) - 1, tail)
#define ASKS_NOT(s) ck_assert_uint_eq(asks_in(s, sizeof(s) - 1, 3), 0)

/*
 * STARTTLS: SMTP's, IMAP's, POP3's, FTP's, XMPP's and LDAP's requests
 * for TLS are found where they end, whatever the pieces; other lines,
 * tags and bytes are not.
 */
START_TEST(test_a_request_for_tls_is_found)
{
	static char long_tag[300];

	ASKS("EHLO sandbox\r\nSTARTTLS\r\n", 0);
	ASKS("EHLO sandbox\r\nstarttls  \r\n\x16\x03\x01", 3);
	ASKS("a1 CAPABILITY\r\na2 StartTLS\r\n", 0);
	ASKS("STLS\n", 0);
	ASKS("AUTH TLS\r\n", 0);
	ASKS("auth ssl\r\n", 0);
	ASKS("<?xml version='1.0'?><stream:stream to='front.test'>"
	     "<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>",
	    0);
	ASKS("<tls:starttls xmlns='a>b' />", 0);
	ASKS("<starttls xmlns='x'></starttls>", 0);
	ASKS("\x30\x1d\x02\x01\x01\x77\x18\x80\x16"
	     "1.3.6.1.4.1.1466.20037x",
	    1);
	ASKS("\x30\x1e\x02\x01\x01\x77\x19\x80\x81\x16"
	     "1.3.6.1.4.1.1466.20037",
	    0); /* a long-form length */
	/* A long tag before the command */
	memset(long_tag, 'a', sizeof(long_tag));
	memcpy(long_tag + 250, " STARTTLS\r\n", 11);
	asks(long_tag, 261, 0);
	ASKS_NOT("EHLO sandbox\r\nMAIL FROM:<a@front.test>\r\n");
	ASKS_NOT("STARTTLSX\r\n");
	ASKS_NOT("STARTTLS is a word\r\n");
	ASKS_NOT("AUTH PLAIN AHUAcA==\r\n");
	ASKS_NOT("<starttlsx/>");
	ASKS_NOT("<starttls xmlns='x'>");
	ASKS_NOT("<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>");
	ASKS_NOT("SSH-2.0-OpenSSH_9.6\r\n");
	ASKS_NOT("STARTTLS");
}
END_TEST

/* A handshake message of |type| with |body|, in |m|. */
static void
hs_msg(struct msg *m, unsigned char type, const void *body, size_t n)
{
	put(m, &type, 1);
	put(m,
	    (unsigned char[]){ (unsigned char)(n >> 16),
		(unsigned char)(n >> 8), (unsigned char)n },
	    3);
	put(m, body, n);
}

/*
 * A ClientHello's ticket is hashed as a NewSessionTicket's is, the
 * server's handshake read across records in any pieces: the ticket is
 * learned from a TLS 1.2 server's flight, nothing past its
 * change_cipher_spec.
 */
START_TEST(test_a_ticket_is_learned_and_told)
{
	static struct msg ext, ch, hs, m;
	static struct tls_server_walk w;
	static const unsigned char ticket[] =
	    "an opaque ticket, 33 bytes long.";
	unsigned char nst[4 + 2 + sizeof(ticket)] = { 0, 0, 1, 0, 0,
		sizeof(ticket) };
	unsigned char big[TLS_SERVER_KEEP + 16] = { 0 };
	struct tls_resume r;
	size_t step, off, n, cut;
	int learned;

	/* The ClientHello: server_name, then the ticket */
	sni_ext(&ext, (const char *const[]){ "front.test", NULL });
	put16(&ext, 35);
	put16(&ext, sizeof(ticket));
	put(&ext, ticket, sizeof(ticket));
	hello(&ch, &ext, 1);
	ck_assert_int_eq(tls_client_hello_resume(ch.b, ch.len, &r), 0);
	ck_assert_int_eq(r.ticket, 1);
	/* An empty one offers none */
	ext.len = 0;
	put16(&ext, 35);
	put16(&ext, 0);
	hello(&m, &ext, 1);
	ck_assert_int_eq(tls_client_hello_resume(m.b, m.len, &r), 0);
	ck_assert_int_eq(r.ticket, 0);
	ck_assert_int_eq(tls_client_hello_resume(ch.b, ch.len, &r), 0);

	/* The server: a ServerHello, a Certificate over two records, its
	 * ticket, change_cipher_spec, then what is encrypted */
	memcpy(nst + 6, ticket, sizeof(ticket));
	hs_msg(&hs, 2, (unsigned char[38]){ 3, 3 }, 38);
	hs_msg(&hs, 11, big, 300);
	cut = hs.len - 100;
	m.len = 0;
	put(&m, "\x16\x03\x03", 3);
	put16(&m, cut);
	put(&m, hs.b, cut);
	put(&m, "\x16\x03\x03", 3);
	put16(&m, hs.len - cut);
	put(&m, hs.b + cut, hs.len - cut);
	hs.len = 0;
	hs_msg(&hs, 4, nst, sizeof(nst));
	put(&m, "\x16\x03\x03", 3);
	put16(&m, hs.len);
	put(&m, hs.b, hs.len);
	put(&m, "\x14\x03\x03\x00\x01\x01", 6);
	hs.len = 0;
	hs_msg(&hs, 4, nst, sizeof(nst)); /* "encrypted": not read */
	put(&m, "\x16\x03\x03", 3);
	put16(&m, hs.len);
	put(&m, hs.b, hs.len);
	for (step = 1; step <= 9; step++) {
		memset(&w, 0, sizeof(w));
		learned = 0;
		for (off = 0; off < m.len; off += n) {
			n = m.len - off < step ? m.len - off : step;
			tls_server_walk(&w, m.b + off, n);
			if (w.ticket) {
				ck_assert_mem_eq(
				    w.ticket_hash, r.ticket_hash, TLS_HASH);
				w.ticket = 0;
				learned++;
			}
		}
		ck_assert_int_eq(learned, 1);
		ck_assert_int_eq(w.done, 1);
	}
	/* A ticket too long to keep is not learned */
	m.len = 0;
	hs.len = 0;
	big[5] = 0xff;
	big[4] = 0x10;
	hs_msg(&hs, 4, big, sizeof(big));
	put(&m, "\x16\x03\x03", 3);
	put16(&m, hs.len);
	put(&m, hs.b, hs.len);
	memset(&w, 0, sizeof(w));
	tls_server_walk(&w, m.b, m.len);
	ck_assert_int_eq(w.ticket, 0);
	/* Bytes that are no TLS handshake end the walk */
	memset(&w, 0, sizeof(w));
	tls_server_walk(&w, (const unsigned char *)"S\x16\x03\x03\x00", 5);
	ck_assert_int_eq(w.done, 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("proxy_tls");
	TCase *tc = tcase_create("tls");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_the_server_name_is_cut_out);
	tcase_add_test(tc, test_a_hello_without_the_extension_has_no_name);
	tcase_add_test(tc, test_ambiguous_names_are_refused);
	tcase_add_test(tc, test_bad_framing_is_refused);
	tcase_add_test(tc, test_an_encrypted_name_is_refused);
	tcase_add_test(tc, test_an_sslv2_hello_is_refused);
	tcase_add_test(tc, test_a_hello_retry_request_is_told);
	tcase_add_test(
	    tc, test_the_second_hello_is_read_behind_skipped_records);
	tcase_add_test(tc, test_a_database_request_for_tls_is_told);
	tcase_add_test(tc, test_a_renegotiation_is_refused);
	tcase_add_test(tc, test_the_second_hello_end_is_found);
	tcase_add_test(tc, test_a_request_for_tls_is_found);
	tcase_add_test(tc, test_a_ticket_is_learned_and_told);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
