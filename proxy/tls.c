/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* tls: see tls.h. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/sha256.h"
#include "proxy/tls.h"

#define TLS_CHANGE_CIPHER_SPEC 20
#define TLS_HANDSHAKE 22
#define TLS_APP_DATA 23
#define TLS_CLIENT_HELLO 1
#define TLS_SERVER_HELLO 2
#define TLS_NEW_SESSION_TICKET 4
#define TLS_EXT_SESSION_TICKET 35
#define TLS_EXT_SERVER_NAME 0
#define TLS_NAME_HOST 0

/*
 * Extensions that carry a second, encrypted ClientHello or server name:
 * Encrypted Client Hello (draft-ietf-tls-esni's 0xfe0d, earlier
 * drafts' 0xfe08..0xfe0c and 0xff02, ech_outer_extensions 0xfd00) and
 * ESNI (0xffce).  The outer name is then only the front end's; the one
 * it routes by is hidden.
 */
static int
hides_a_name(size_t type)
{
	return type == 0xfe0d || (type >= 0xfe08 && type <= 0xfe0c) ||
	    type == 0xff02 || type == 0xfd00 || type == 0xffce;
}

/* A cursor over [p, end). */
struct cur {
	const unsigned char *p, *end;
};

static int refuse(char why[TLS_WHY_MAX], const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
refuse(char why[TLS_WHY_MAX], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, TLS_WHY_MAX, fmt, ap);
	va_end(ap);
	return -1;
}

/* Takes an |n|-byte big-endian number; -1 if fewer bytes are left. */
static int
take_num(struct cur *c, size_t n, size_t *out)
{
	size_t i;

	if ((size_t)(c->end - c->p) < n)
		return -1;
	*out = 0;
	for (i = 0; i < n; i++)
		*out = *out << 8 | c->p[i];
	c->p += n;
	return 0;
}

/*
 * Takes a vector with an |n|-byte length prefix as the cursor *v; -1 if
 * it runs past |c|'s end.
 */
static int
take_vec(struct cur *c, size_t n, struct cur *v)
{
	size_t len;

	if (take_num(c, n, &len) != 0 || (size_t)(c->end - c->p) < len)
		return -1;
	v->p = c->p;
	v->end = c->p + len;
	c->p += len;
	return 0;
}

/*
 * An SSL 2.0 record header (a length with its top bit set) holding a
 * MSG-CLIENT-HELLO (1); until its third byte came, it may be one.
 */
static int
sslv2_hello(const unsigned char *buf, size_t len)
{
	return len >= 1 && (buf[0] & 0x80) && (len < 3 || buf[2] == 1);
}

int
tls_is_record(const unsigned char *buf, size_t len)
{
	return len >= 1 &&
	    ((buf[0] >= 20 && buf[0] <= 24) || sslv2_hello(buf, len));
}

/* The server_name extension's body |e|: exactly one host_name. */
static int
server_name(struct cur *e, char name[TLS_NAME_MAX], char why[TLS_WHY_MAX])
{
	struct cur list, hn;
	size_t type;

	if (take_vec(e, 2, &list) != 0 || e->p != e->end)
		return refuse(why, "malformed TLS server_name extension");
	if (take_num(&list, 1, &type) != 0 || type != TLS_NAME_HOST ||
	    take_vec(&list, 2, &hn) != 0 || list.p != list.end)
		return refuse(why,
		    "TLS server_name extension without "
		    "exactly one host name");
	if (hn.p == hn.end || (size_t)(hn.end - hn.p) >= TLS_NAME_MAX ||
	    memchr(hn.p, '\0', (size_t)(hn.end - hn.p)) != NULL)
		return refuse(why, "malformed TLS server name");
	memcpy(name, hn.p, (size_t)(hn.end - hn.p));
	name[hn.end - hn.p] = '\0';
	return 1;
}

int
tls_client_hello_name(const unsigned char *buf, size_t len,
    char name[TLS_NAME_MAX], char why[TLS_WHY_MAX])
{
	struct cur rec, hello, skip, exts, ext;
	size_t reclen, hlen, type, seen = 0;

	name[0] = '\0';
	why[0] = '\0';
	if (len < 5)
		return 0;
	if (sslv2_hello(buf, len))
		return refuse(why,
		    "SSL 2.0-format ClientHello (it carries "
		    "no server name)");
	reclen = (size_t)buf[3] << 8 | buf[4];
	if (buf[0] != TLS_HANDSHAKE || buf[1] != 3 || reclen == 0 ||
	    reclen > TLS_RECORD_MAX - 5)
		return refuse(why, "malformed TLS record");
	if (len < 5 + reclen)
		return 0;
	rec.p = buf + 5;
	rec.end = rec.p + reclen;
	if (take_num(&rec, 1, &type) != 0 || type != TLS_CLIENT_HELLO)
		return refuse(why, "TLS handshake other than a ClientHello");
	if (take_num(&rec, 3, &hlen) != 0 || hlen != (size_t)(rec.end - rec.p))
		return refuse(why, "TLS ClientHello not whole in its record");
	hello = rec;
	/* version, random, session id, cipher suites, compression */
	if ((size_t)(hello.end - hello.p) < 34)
		return refuse(why, "malformed TLS ClientHello");
	hello.p += 34;
	if (take_vec(&hello, 1, &skip) != 0 ||
	    take_vec(&hello, 2, &skip) != 0 || take_vec(&hello, 1, &skip) != 0)
		return refuse(why, "malformed TLS ClientHello");
	if (hello.p == hello.end)
		return 1; /* no extensions, no name */
	if (take_vec(&hello, 2, &exts) != 0 || hello.p != hello.end)
		return refuse(why, "malformed TLS ClientHello extensions");
	while (exts.p != exts.end) {
		if (take_num(&exts, 2, &type) != 0 ||
		    take_vec(&exts, 2, &ext) != 0)
			return refuse(why,
			    "malformed TLS ClientHello "
			    "extensions");
		if (hides_a_name(type))
			return refuse(why,
			    "TLS ClientHello with an encrypted "
			    "ClientHello or server name (0x%04zx)",
			    type);
		if (type != TLS_EXT_SERVER_NAME)
			continue;
		if (seen++ > 0)
			return refuse(why, "TLS server_name extension twice");
		if (server_name(&ext, name, why) != 1)
			return -1;
	}
	return 1;
}

/*
 * The length of the whole change_cipher_spec and application_data
 * records at the start of [buf, buf + len); SIZE_MAX while the last of
 * them is not whole yet.
 */
static size_t
skippable_records(const unsigned char *buf, size_t len)
{
	size_t off = 0, reclen;

	while (len - off >= 5 &&
	    (buf[off] == TLS_CHANGE_CIPHER_SPEC || buf[off] == TLS_APP_DATA) &&
	    buf[off + 1] == 3) {
		reclen = (size_t)buf[off + 3] << 8 | buf[off + 4];
		if (len - off - 5 < reclen)
			return SIZE_MAX;
		off += 5 + reclen;
	}
	return off;
}

int
tls_second_hello_name(const unsigned char *buf, size_t len,
    char name[TLS_NAME_MAX], char why[TLS_WHY_MAX])
{
	size_t off = skippable_records(buf, len);

	if (off == SIZE_MAX) {
		name[0] = '\0';
		why[0] = '\0';
		return 0;
	}
	return tls_client_hello_name(buf + off, len - off, name, why);
}

size_t
tls_second_hello_end(const unsigned char *buf, size_t len)
{
	size_t off = skippable_records(buf, len);

	if (off == SIZE_MAX || len - off < 5)
		return len;
	off += 5 + ((size_t)buf[off + 3] << 8 | buf[off + 4]);
	return off < len ? off : len;
}

#define TLS_CIPHERTEXT_MAX (16384 + 2048)

enum { REC_BODY, REC_PART, REC_HEADER };

/*
 * Takes the next bytes of [buf, buf + len) from the record stream |r|:
 * body bytes of the current record (*kind REC_BODY), bytes of the next
 * header (REC_PART), or its last ones (REC_HEADER: r->hdr is whole and
 * r->left its length).  Returns how many were taken.
 */
static size_t
records_take(
    struct tls_records *r, const unsigned char *buf, size_t len, int *kind)
{
	size_t n;

	if (r->left > 0) {
		n = len < r->left ? len : r->left;
		r->left -= n;
		*kind = REC_BODY;
		return n;
	}
	n = sizeof(r->hdr) - r->hdrlen;
	if (n > len)
		n = len;
	memcpy(r->hdr + r->hdrlen, buf, n);
	r->hdrlen += n;
	*kind = REC_PART;
	if (r->hdrlen == sizeof(r->hdr)) {
		r->hdrlen = 0;
		r->left = (size_t)r->hdr[3] << 8 | r->hdr[4];
		*kind = REC_HEADER;
	}
	return n;
}

/* The header in w->rec.hdr begins a record: may it? */
static int
walk_record(struct tls_walk *w, char why[TLS_WHY_MAX])
{
	size_t type = w->rec.hdr[0];

	if (type < TLS_CHANGE_CIPHER_SPEC || type > TLS_APP_DATA ||
	    w->rec.hdr[1] != 3 || w->rec.left > TLS_CIPHERTEXT_MAX)
		return refuse(why,
		    "malformed TLS record after the "
		    "ClientHello");
	if (type == TLS_CHANGE_CIPHER_SPEC)
		w->ccs = 1;
	else if (type == TLS_APP_DATA)
		w->app = 1;
	else if (type == TLS_HANDSHAKE &&
	    (w->app || (w->ccs && w->after_ccs++ > 0)))
		return refuse(why,
		    "TLS handshake record after the "
		    "handshake (a renegotiation)");
	return 0;
}

int
tls_walk(struct tls_walk *w, const unsigned char *buf, size_t len,
    char why[TLS_WHY_MAX])
{
	size_t n;
	int kind;

	why[0] = '\0';
	while (len > 0) {
		n = records_take(&w->rec, buf, len, &kind);
		if (kind == REC_HEADER && walk_record(w, why) != 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

/* SHA-256("HelloRetryRequest"), a ServerHello's random in an HRR. */
static const unsigned char hrr_random[32] = {
	0xcf,
	0x21,
	0xad,
	0x74,
	0xe5,
	0x9a,
	0x61,
	0x11,
	0xbe,
	0x1d,
	0x8c,
	0x02,
	0x1e,
	0x65,
	0xb8,
	0x91,
	0xc2,
	0xa2,
	0x11,
	0x16,
	0x7a,
	0xbb,
	0x8c,
	0x5e,
	0x07,
	0x9e,
	0x09,
	0xe2,
	0xc8,
	0xa8,
	0x33,
	0x9c,
};

int
tls_server_retries(const unsigned char *buf, size_t len)
{
	size_t reclen, want;

	if (len < 1)
		return -1;
	if (buf[0] != TLS_HANDSHAKE)
		return 0;
	if (len < 5)
		return -1;
	reclen = (size_t)buf[3] << 8 | buf[4];
	want = reclen < 38 ? reclen : 38;
	if (len < 5 + want)
		return -1;
	/* type, length, version, random: else it cannot be told */
	if (reclen < 38 || buf[5] != TLS_SERVER_HELLO)
		return 1;
	return memcmp(buf + 5 + 6, hrr_random, sizeof(hrr_random)) == 0;
}

/* Postgres's SSLRequest: length 8, code 80877103. */
static const unsigned char pg_ssl_request[8] = { 0, 0, 0, 8, 0x04, 0xd2, 0x16,
	0x2f };

#define MYSQL_SSL_REQUEST 36 /* header, then 32 bytes */
#define MYSQL_CLIENT_SSL 0x08 /* CLIENT_SSL (0x800), second byte */

int
tls_upgrade_prelude(const unsigned char *buf, size_t len)
{
	static const unsigned char my[4] = { 32, 0, 0, 1 };
	size_t n = len < sizeof(pg_ssl_request) ? len : sizeof(pg_ssl_request);

	if (len == 0)
		return -1;
	if (memcmp(buf, pg_ssl_request, n) == 0)
		return n == sizeof(pg_ssl_request) ? (int)n : -1;
	n = len < sizeof(my) ? len : sizeof(my);
	if (memcmp(buf, my, n) != 0)
		return 0;
	if (len < 6)
		return -1;
	if (!(buf[5] & MYSQL_CLIENT_SSL))
		return 0;
	return len < MYSQL_SSL_REQUEST ? -1 : MYSQL_SSL_REQUEST;
}

/* LDAP's StartTLS OID, its request's requestName (whatever length form
 * BER gave it). */
static const unsigned char ldap_starttls[] = "1.3.6.1.4.1.1466.20037";
#define LDAP_STARTTLS (sizeof(ldap_starttls) - 1)
_Static_assert(sizeof(((struct tls_ask *)0)->ldap) == LDAP_STARTTLS,
    "tls_ask's ring holds LDAP's StartTLS OID");

/* The word that just ended (a->word, a->wordlen) is the line's a->nwords'th. */
static void
ask_word(struct tls_ask *a)
{
	int tls = a->wordlen == 8 && strncasecmp(a->word, "STARTTLS", 8) == 0;

	if (a->wordlen == 0)
		return;
	tls = tls || (a->wordlen == 4 && strncasecmp(a->word, "STLS", 4) == 0);
	a->last_asks = tls;
	if (a->nwords == 0)
		a->auth =
		    a->wordlen == 4 && strncasecmp(a->word, "AUTH", 4) == 0;
	else if (a->nwords == 1 && a->auth)
		a->auth_tls = a->wordlen >= 3 &&
		    (strncasecmp(a->word, "TLS", 3) == 0 ||
			strncasecmp(a->word, "SSL", 3) == 0);
	a->nwords++;
	a->wordlen = 0;
}

/* Takes byte |ch| of a line; 1 when it ends one that asks for TLS. */
static int
ask_line(struct tls_ask *a, unsigned char ch)
{
	int asks;

	if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') {
		if (a->wordlen < sizeof(a->word))
			a->word[a->wordlen] = (char)ch;
		if (a->wordlen <= sizeof(a->word))
			a->wordlen++;
		return 0;
	}
	ask_word(a);
	if (ch != '\n')
		return 0;
	asks = a->last_asks || (a->auth && a->auth_tls && a->nwords == 2);
	a->last_asks = a->auth = a->auth_tls = 0;
	a->nwords = 0;
	return asks;
}

/* Takes byte |ch| as XML; 1 when it ends a <starttls/> element. */
static int
ask_tag(struct tls_ask *a, unsigned char ch)
{
	int ends;

	switch (a->tag) {
	case ASK_NO_TAG:
		if (ch == '<') {
			a->tag = ASK_TAG_NAME;
			a->namelen = 0;
			a->closing = 0;
		}
		return 0;
	case ASK_TAG_NAME:
		if (ch == '/' && a->namelen == 0 && !a->closing) {
			a->closing = 1;
			return 0;
		}
		if (ch == ':') {
			a->namelen = 0; /* a namespace prefix */
			return 0;
		}
		if (!isspace(ch) && ch != '/' && ch != '>') {
			if (a->namelen <= sizeof(a->name))
				a->namelen++;
			if (a->namelen <= sizeof(a->name))
				a->name[a->namelen - 1] = (char)ch;
			return 0;
		}
		a->tag = a->namelen == sizeof(a->name) &&
			memcmp(a->name, "starttls", sizeof(a->name)) == 0
		    ? ASK_STARTTLS
		    : ASK_OTHER_TAG;
		a->quote = 0;
		a->slash = 0;
		break;
	}
	if (a->quote != 0) {
		if (ch == a->quote)
			a->quote = 0;
		return 0;
	}
	if (ch == '"' || ch == '\'')
		a->quote = ch;
	else if (ch == '>') {
		ends = a->tag == ASK_STARTTLS && (a->closing || a->slash);
		a->tag = ASK_NO_TAG;
		return ends;
	} else if (!isspace(ch))
		a->slash = ch == '/';
	return 0;
}

/* Takes byte |ch| as LDAP; 1 when it ends the StartTLS OID. */
static int
ask_ldap(struct tls_ask *a, unsigned char ch)
{
	size_t k, at;

	a->ldap[a->ldapn++ % LDAP_STARTTLS] = ch;
	if (ch != '7' || a->ldapn < LDAP_STARTTLS)
		return 0;
	at = a->ldapn % LDAP_STARTTLS; /* the oldest byte kept */
	for (k = 0; k < LDAP_STARTTLS; k++)
		if (a->ldap[(at + k) % LDAP_STARTTLS] != ldap_starttls[k])
			return 0;
	return 1;
}

size_t
tls_asks_for_tls(struct tls_ask *a, const unsigned char *buf, size_t len)
{
	size_t i;
	int l, t, d;

	for (i = 0; i < len; i++) {
		l = ask_line(a, buf[i]);
		t = ask_tag(a, buf[i]);
		d = ask_ldap(a, buf[i]);
		if (l || t || d)
			return i + 1;
	}
	return 0;
}

int
tls_client_hello_resume(
    const unsigned char *buf, size_t len, struct tls_resume *r)
{
	struct cur rec, skip, exts, ext;
	size_t reclen, type;

	memset(r, 0, sizeof(*r));
	if (len < 5)
		return -1;
	reclen = (size_t)buf[3] << 8 | buf[4];
	if (len - 5 < reclen || reclen < 4 + 34)
		return -1;
	rec.p = buf + 5 + 4 + 34; /* record and handshake headers, version
				     and random */
	rec.end = buf + 5 + reclen;
	if (take_vec(&rec, 1, &skip) != 0 || take_vec(&rec, 2, &skip) != 0 ||
	    take_vec(&rec, 1, &skip) != 0)
		return -1;
	if (rec.p == rec.end)
		return 0;
	if (take_vec(&rec, 2, &exts) != 0)
		return -1;
	while (exts.p != exts.end) {
		if (take_num(&exts, 2, &type) != 0 ||
		    take_vec(&exts, 2, &ext) != 0)
			return -1;
		if (type == TLS_EXT_SESSION_TICKET && ext.p != ext.end) {
			r->ticket = 1;
			sha256(
			    r->ticket_hash, ext.p, (size_t)(ext.end - ext.p));
		}
	}
	return 0;
}

/* A NewSessionTicket's body: lifetime hint, then the ticket. */
static void
new_session_ticket(struct tls_server_walk *w)
{
	struct cur c = { w->body, w->body + w->bodylen }, t;
	size_t hint;

	if (take_num(&c, 4, &hint) != 0 || take_vec(&c, 2, &t) != 0 ||
	    t.p == t.end)
		return;
	sha256(w->ticket_hash, t.p, (size_t)(t.end - t.p));
	w->ticket = 1;
}

/* Takes |n| bytes of handshake messages from a record's body. */
static void
server_messages(struct tls_server_walk *w, const unsigned char *p, size_t n)
{
	size_t k;

	while (n > 0 && !w->done) {
		if (w->mhlen < sizeof(w->mh)) {
			w->mh[w->mhlen++] = *p++;
			n--;
			if (w->mhlen < sizeof(w->mh))
				continue;
			w->mleft = (size_t)w->mh[1] << 16 |
			    (size_t)w->mh[2] << 8 | w->mh[3];
			w->keep = w->mh[0] == TLS_NEW_SESSION_TICKET;
			w->bodylen = 0;
			if (w->keep && w->mleft > sizeof(w->body))
				w->keep = 0; /* too long to keep: not learned */
		} else {
			k = n < w->mleft ? n : w->mleft;
			if (w->keep)
				memcpy(w->body + w->bodylen, p, k);
			w->bodylen += w->keep ? k : 0;
			w->mleft -= k;
			p += k;
			n -= k;
		}
		if (w->mhlen == sizeof(w->mh) && w->mleft == 0) {
			if (w->mh[0] == TLS_NEW_SESSION_TICKET)
				new_session_ticket(w);
			w->mhlen = 0;
		}
	}
}

void
tls_server_walk(struct tls_server_walk *w, const unsigned char *buf, size_t len)
{
	size_t n;
	int kind;

	while (len > 0 && !w->done) {
		n = records_take(&w->rec, buf, len, &kind);
		if (kind == REC_BODY)
			server_messages(w, buf, n);
		else if (kind == REC_HEADER &&
		    (w->rec.hdr[0] != TLS_HANDSHAKE || w->rec.hdr[1] != 3))
			w->done = 1;
		buf += n;
		len -= n;
	}
}
