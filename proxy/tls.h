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
 *   - a ClientHello with an Encrypted Client Hello extension (0xfe0d,
 *     its drafts' codepoints) or ESNI (0xffce) is refused: its server
 *     name is only the outer one, and a front end that decrypts it
 *     routes by the hidden inner name (GREASE ECH looks the same, by
 *     design, and is refused too);
 *   - a ClientHello without the extension is reported as having no
 *     name (the caller decides).
 * After it, the client's records are walked for a renegotiation
 * (tls_walk()), what it offers to resume is read
 * (tls_client_hello_resume()) and the server's handshake for the TLS 1.2
 * tickets it issues (tls_server_walk()); a tunnel that starts otherwise
 * is read for a text protocol's request for TLS (tls_asks_for_tls():
 * STARTTLS), after which a ClientHello is read again.
 */
#ifndef AIRLOCK_PROXY_TLS_H
#define AIRLOCK_PROXY_TLS_H

#include <stddef.h>

#define TLS_RECORD_MAX (5 + 16384) /* header and largest plaintext */
#define TLS_NAME_MAX 254 /* longest name + NUL */
#define TLS_WHY_MAX 96

/*
 * Do |len| bytes start a TLS record of any content type (20..24), or an
 * SSL 2.0 record holding a ClientHello (first byte 0x80 and up, third
 * byte 1; said of 1 or 2 such bytes until the third comes)?  A tunnel whose first record is not a ClientHello (an
 * alert, say, before it) is refused, not let through unread, and so is
 * an SSLv2-format ClientHello (it has no extensions, so no name).
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

/*
 * A TLS 1.3 server that wants another key share answers the first
 * ClientHello with a HelloRetryRequest and reads a second ClientHello,
 * whose server name it takes as the connection's (OpenSSL's servername
 * callback runs again).  Reads the first bytes the server sent back
 * (at most TLS_SERVER_FIRST of them): returns -1 when more are needed;
 * 1 when its first handshake message is a HelloRetryRequest or cannot
 * be told from one (a first record shorter than a ServerHello's start,
 * a handshake message other than ServerHello): a second ClientHello may
 * follow; 0 when it is not one (a ServerHello, an alert, bytes that are
 * no handshake record).
 */
#define TLS_SERVER_FIRST (5 + 38)
int tls_server_retries(const unsigned char *buf, size_t len);

/*
 * tls_client_hello_name() for what a client sends after a
 * HelloRetryRequest: whole change_cipher_spec and application_data
 * records (the compatibility record; early data, which the server
 * skips) are passed over, then the first other record must hold the
 * second ClientHello, whole.
 */
int tls_second_hello_name(const unsigned char *buf, size_t len,
    char name[TLS_NAME_MAX], char why[TLS_WHY_MAX]);

/*
 * Where the second ClientHello that tls_second_hello_name() accepted in
 * the same |len| bytes of |buf| ends: what follows is the client's
 * stream after it (tls_walk()).
 */
size_t tls_second_hello_end(const unsigned char *buf, size_t len);

/*
 * The records a client sends after its checked ClientHello (or second
 * ClientHello), walked as they go: a TLS 1.2 renegotiation is a new
 * ClientHello, encrypted, in a record that still says handshake (22),
 * and a server that allows it takes the name in it (OpenSSL runs its
 * servername callback again).  TLS 1.3 has none: after the ClientHello
 * everything but change_cipher_spec is application_data (23), KeyUpdate
 * and post-handshake messages inside.  So, fail closed:
 *   - every record is change_cipher_spec, alert, handshake or
 *     application_data (20..23), version 3.x, at most 2^14 + 2048 bytes
 *     (a TLS 1.2 ciphertext's most);
 *   - a handshake record after an application_data record, or more than
 *     one after the client's first change_cipher_spec (its Finished), is
 *     refused: the client's handshake is over, and what it starts is a
 *     renegotiation.
 * A zeroed struct starts at a record boundary.
 */
struct tls_records {
	unsigned char hdr[5]; /* the header of the current record */
	size_t hdrlen; /* how much of it came */
	size_t left; /* its body bytes still to come */
};
struct tls_walk {
	struct tls_records rec;
	int ccs; /* a change_cipher_spec came */
	int after_ccs; /* handshake records since */
	int app; /* an application_data record came */
};

/*
 * Walks |len| more bytes of the client's stream.  Returns 0, or -1 with
 * the reason in |why| (NUL-terminated) once a record is refused; the
 * walk is then over.
 */
int tls_walk(struct tls_walk *w, const unsigned char *buf, size_t len,
    char why[TLS_WHY_MAX]);

/*
 * A protocol that turns to TLS after a first message of its own sends
 * its ClientHello next, and front ends that route those protocols by
 * server name (database proxies) read it there.  Returns the length of
 * such a message at the start of |buf|: Postgres's SSLRequest (8
 * bytes), MySQL's SSL request (36 bytes, sequence 1, CLIENT_SSL); -1
 * when |len| bytes could still become one; 0 when they are not one.
 */
int tls_upgrade_prelude(const unsigned char *buf, size_t len);

/*
 * Text protocols turn to TLS in the middle of a session (STARTTLS), and
 * the ClientHello that follows names the server again.  Finds, in a
 * client's stream read in pieces, the end of a request for TLS:
 *   - a line (ending in LF) whose last word is STARTTLS (SMTP, LMTP,
 *     IMAP, NNTP, ManageSieve, IRC) or STLS (POP3), or whose two words
 *     are AUTH and TLS... or SSL... (FTP, RFC 4217), any case;
 *   - XMPP's <starttls/> element (any namespace prefix; quoted
 *     attribute values skipped), self-closed or closed by </starttls>;
 *   - LDAP's StartTLS extended request (its requestName, the OID
 *     1.3.6.1.4.1.1466.20037, ends it).
 * Returns the offset in |buf| just past the first such end, or 0 when
 * none ends in these |len| bytes.  A zeroed struct starts at the
 * beginning of the stream (a line's, and no tag's).
 */
enum { ASK_NO_TAG, ASK_TAG_NAME, ASK_STARTTLS, ASK_OTHER_TAG };
struct tls_ask {
	char word[8]; /* the line's current word (its first bytes) */
	size_t wordlen; /* its length, 9 for longer */
	int nwords; /* the line's words so far */
	int last_asks; /* its last word was STARTTLS or STLS */
	int auth, auth_tls; /* its first word is AUTH, its second TLS... */
	int tag; /* ASK_*: where in an XML tag */
	char name[8]; /* the tag's name (no prefix), its first bytes */
	size_t namelen; /* its length, 9 for longer */
	int closing; /* </...> */
	int slash; /* its last byte but space was '/' */
	unsigned char quote; /* inside an attribute value quoted so */
	unsigned char ldap[22]; /* the last bytes, for LDAP's OID (a ring) */
	size_t ldapn; /* bytes seen */
};
size_t tls_asks_for_tls(
    struct tls_ask *a, const unsigned char *buf, size_t len);

/*
 * TLS 1.2 resumption.  In TLS 1.2 the server name belongs to the session:
 * a server resuming one takes the name it was made for, not the
 * ClientHello's (OpenSSL's SSL_get_servername() does, for a ticket), so
 * a ticket got elsewhere for another name reaches that name through a
 * checked ClientHello.  The proxy lets a ticket resume only when it saw
 * it issued, in clear, for the CONNECT host (a TLS 1.2 NewSessionTicket
 * comes before the server's change_cipher_spec).
 */
#define TLS_HASH 32 /* SHA-256 */

struct tls_resume {
	int ticket; /* a non-empty session_ticket extension */
	unsigned char ticket_hash[TLS_HASH]; /* SHA-256 of the ticket */
};

/*
 * What the ClientHello in the first record of |buf| (one that
 * tls_client_hello_name() read) offers to resume.  Returns 0, or -1
 * when it does not parse.
 */
int tls_client_hello_resume(
    const unsigned char *buf, size_t len, struct tls_resume *r);

/*
 * The records a server sends from its first byte, read until its own
 * change_cipher_spec (what comes after is encrypted; TLS 1.3 sends one,
 * or application_data, right after its ServerHello), an alert or bytes
 * that are no TLS handshake (w->done).  Handshake messages are put
 * together across records; a NewSessionTicket's body is kept (at most
 * TLS_SERVER_KEEP bytes: a longer ticket is not learned).  A zeroed
 * struct starts at the stream's first byte.
 */
#define TLS_SERVER_KEEP 4096
struct tls_server_walk {
	struct tls_records rec;
	unsigned char mh[4]; /* the current handshake message's header */
	size_t mhlen, mleft;
	unsigned char body[TLS_SERVER_KEEP]; /* its body, if kept */
	size_t bodylen;
	int keep; /* the current message's body is kept */
	int done; /* nothing more to learn */
	int ticket; /* a NewSessionTicket was read: ticket_hash */
	unsigned char ticket_hash[TLS_HASH];
};

/*
 * Reads |len| more bytes the server sent.  Sets w->ticket when a
 * NewSessionTicket ended in them (the caller clears it once used).
 */
void tls_server_walk(
    struct tls_server_walk *w, const unsigned char *buf, size_t len);

#endif
