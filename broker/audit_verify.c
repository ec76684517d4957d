/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_verify: the checks in audit_verify.h, in the order that names
 * the most useful cause for the first bad line.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "common/errors.h"
#include "common/vis.h"
#include "broker/audit_verify.h"

#define SIG_MEMBER	",\"sig\":\""

struct verifier {
	const unsigned char	(*keys)[32];
	size_t			 nkeys;
	unsigned char		 pk[crypto_sign_PUBLICKEYBYTES];
	uint64_t		 line;
	int			 ended;		/* saw session_end */
	uint64_t		 unsigned_from;	/* first line not yet covered */
	char			 last_event[64];
	char			 session[129];	/* line 1's, as is */
	struct audit_verify_result *res;
};

/*
 * Copies |s| into dst[0..dstlen), escaped (common/vis.h) and cut between
 * characters.  Whatever the result holds may come from the log, which a
 * tamperer wrote: a reason quoting an edited "event", a forged session id
 * or time.  Escaped, it cannot drive the reviewer's terminal (erase the
 * word TAMPERED, print "valid and closed", conceal what follows).
 */
static void
copy_vis(char *dst, size_t dstlen, const char *s)
{
	char *v = vis_dup_fit(s, strlen(s), 0, dstlen - 1, NULL);

	if (v == NULL || strlen(v) >= dstlen)
		dst[0] = '\0';
	else
		memcpy(dst, v, strlen(v) + 1);
	free(v);
}

static int
is_hex64(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[64] == '\0';
}

int
audit_parse_pubkey(const char *hex, unsigned char pk[32])
{
	size_t n;

	if (strlen(hex) != 64 ||
	    sodium_hex2bin(pk, 32, hex, 64, NULL, &n, NULL) != 0 || n != 32)
		return AL_ERR_FORMAT;
	return 0;
}

static int
bad(struct verifier *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
bad(struct verifier *v, const char *fmt, ...)
{
	char reason[sizeof(v->res->reason)];
	va_list ap;

	v->res->status = AUDIT_VERIFY_BAD;
	v->res->bad_line = v->line;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	copy_vis(v->res->reason, sizeof(v->res->reason), reason);
	return AUDIT_VERIFY_BAD;
}

static int
members_valid(json_t *rec)
{
	static const char *names[] = {
		"event", "fields", "prev", "seq", "session", "sig", "time", NULL
	};
	size_t i, want;

	/* "sig" is absent from a record that a later one's signature covers. */
	want = json_object_get(rec, "sig") != NULL ? 7 : 6;
	if (json_object_size(rec) != want)
		return 0;
	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], "sig") != 0 &&
		    json_object_get(rec, names[i]) == NULL)
			return 0;
	return json_is_integer(json_object_get(rec, "seq")) &&
	    json_is_string(json_object_get(rec, "time")) &&
	    json_is_string(json_object_get(rec, "session")) &&
	    json_is_string(json_object_get(rec, "event")) &&
	    json_is_object(json_object_get(rec, "fields")) &&
	    json_is_string(json_object_get(rec, "prev")) &&
	    (want == 6 || json_is_string(json_object_get(rec, "sig")));
}

static int
key_listed(const struct verifier *v, const unsigned char *pk)
{
	size_t i;

	for (i = 0; i < v->nkeys; i++)
		if (sodium_memcmp(v->keys[i], pk, 32) == 0)
			return 1;
	return 0;
}

/*
 * Line 1: decides whether the session key (v->pk) is trusted, directly
 * or through the host key's certificate in |fields|.
 */
static int
check_trust(struct verifier *v, json_t *fields, const char *session)
{
	struct audit_verify_result *res = v->res;
	json_t *hk = json_object_get(fields, "hostKey");
	json_t *cert = json_object_get(fields, "cert");
	unsigned char hpk[32], sig[crypto_sign_BYTES];
	char msg[512];
	const char *pkhex = json_string_value(json_object_get(fields,
	    "pubkey")), *ctxt, *end;
	size_t n;
	int certified = 0;

	if (v->nkeys > 0 && key_listed(v, v->pk)) {
		snprintf(res->trust, sizeof(res->trust), "direct");
		return 0;
	}
	if (hk != NULL || cert != NULL) {
		if (!json_is_string(hk) || !is_hex64(json_string_value(hk)) ||
		    audit_parse_pubkey(json_string_value(hk), hpk) != 0 ||
		    !json_is_string(cert))
			return bad(v, "session_start has a malformed \"hostKey\" "
			    "or \"cert\"");
		ctxt = json_string_value(cert);
		if (sodium_base642bin(sig, sizeof(sig), ctxt, strlen(ctxt),
		    NULL, &n, &end, sodium_base64_VARIANT_ORIGINAL) != 0 ||
		    n != sizeof(sig) || *end != '\0' ||
		    audit_cert_message(session, pkhex, msg, sizeof(msg)) != 0 ||
		    crypto_sign_verify_detached(sig, (unsigned char *)msg,
		    strlen(msg), hpk) != 0)
			return bad(v, "the host key's certificate does not "
			    "verify for this session key: the log was re-signed "
			    "under another key");
		certified = 1;
		snprintf(res->hostkey, sizeof(res->hostkey), "%s",
		    json_string_value(hk));
	}
	if (v->nkeys == 0) {
		snprintf(res->trust, sizeof(res->trust), "none");
		return 0;
	}
	if (certified && key_listed(v, hpk)) {
		snprintf(res->trust, sizeof(res->trust), "host-key");
		return 0;
	}
	bad(v, "UNTRUSTED: signed with key %s%s%s, not the pinned key nor "
	    "certified by a trusted host key: the log was rewritten or comes "
	    "from elsewhere", pkhex, certified ? " certified by " : "",
	    certified ? res->hostkey : "");
	res->status = AUDIT_VERIFY_UNTRUSTED;
	return AUDIT_VERIFY_UNTRUSTED;
}

/* Checks line v->line: line[0..len) without its newline. */
static int
verify_line(struct verifier *v, const char *line, size_t len)
{
	struct audit_verify_result *res = v->res;
	unsigned char sig[crypto_sign_BYTES];
	char head[AUDIT_HASH_HEX_LEN + 1];
	unsigned char md[crypto_generichash_BYTES];
	const char *event, *session, *prev, *sigtxt, *p;
	json_t *rec, *fields;
	json_error_t err;
	json_int_t seq;
	char *body = NULL;
	size_t siglen, cut, n;
	int rc = 0;

	if (v->ended)
		return bad(v, "record after session_end (appended after the "
		    "session closed)");
	if ((rec = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err)) ==
	    NULL)
		return bad(v, "not a JSON record (%s at column %d): edited or "
		    "corrupt", err.text, err.column);
	if (!json_is_object(rec) || !members_valid(rec)) {
		json_decref(rec);
		return bad(v, "record does not have exactly the members "
		    "event, fields, prev, seq, session, time (and sig)");
	}
	seq = json_integer_value(json_object_get(rec, "seq"));
	event = json_string_value(json_object_get(rec, "event"));
	session = json_string_value(json_object_get(rec, "session"));
	prev = json_string_value(json_object_get(rec, "prev"));
	sigtxt = json_string_value(json_object_get(rec, "sig"));
	fields = json_object_get(rec, "fields");

	/*
	 * An unsigned record is checked like the others (members, seq,
	 * prev); the signature of the next signed record covers it through
	 * the chain, and a log that ends before one is truncated.
	 */
	if (sigtxt == NULL) {
		cut = len - 1;
		if (v->unsigned_from == 0)
			v->unsigned_from = v->line;
		goto no_sig;
	}
	/* The signature member is last, textually, and is the parsed one. */
	siglen = strlen(sigtxt);
	if (len < strlen(SIG_MEMBER) + siglen + 2 ||
	    memcmp(line + len - 2, "\"}", 2) != 0 ||
	    (cut = len - 2 - siglen - strlen(SIG_MEMBER),
	    memcmp(line + cut, SIG_MEMBER, strlen(SIG_MEMBER)) != 0) ||
	    memcmp(line + cut + strlen(SIG_MEMBER), sigtxt, siglen) != 0) {
		rc = bad(v, "\"sig\" is not the last member: edited");
		goto out;
	}
	if (sodium_base642bin(sig, sizeof(sig), sigtxt, siglen, NULL, &n,
	    &p, sodium_base64_VARIANT_ORIGINAL) != 0 || n != sizeof(sig) ||
	    p != sigtxt + siglen) {
		rc = bad(v, "signature is not 64 bytes of base64: edited");
		goto out;
	}
 no_sig:

	if (v->line == 1) {
		json_t *pk = json_object_get(fields, "pubkey");
		json_t *kind = json_object_get(fields, "key");

		if (strcmp(event, "session_start") != 0) {
			rc = bad(v, "first record is \"%s\" (seq %lld), not "
			    "session_start: the start of the log was deleted",
			    event, (long long)seq);
			goto out;
		}
		if (!json_is_string(pk) || !is_hex64(json_string_value(pk)) ||
		    audit_parse_pubkey(json_string_value(pk), v->pk) != 0) {
			rc = bad(v, "session_start has no valid \"pubkey\"");
			goto out;
		}
		if ((rc = check_trust(v, fields, session)) != 0)
			goto out;
		snprintf(res->pubkey, sizeof(res->pubkey), "%s",
		    json_string_value(pk));
		snprintf(v->session, sizeof(v->session), "%s", session);
		copy_vis(res->session, sizeof(res->session), session);
		/*
		 * Whoever signed the log chose it: a log signed with a key
		 * of one's own verifies (NOT pinned), and "session\e[8m"
		 * concealed the words that say so.
		 */
		copy_vis(res->keykind, sizeof(res->keykind),
		    json_is_string(kind) ? json_string_value(kind) : "?");
		copy_vis(res->command, sizeof(res->command),
		    json_is_string(json_object_get(fields, "command")) ?
		    json_string_value(json_object_get(fields, "command")) : "");
		copy_vis(res->first_time, sizeof(res->first_time),
		    json_string_value(json_object_get(rec, "time")));
	} else if (strcmp(event, "session_start") == 0) {
		rc = bad(v, "a second session_start: records from another "
		    "log were inserted");
		goto out;
	}
	if (strcmp(session, v->session) != 0) {
		rc = bad(v, "session is \"%.40s\", not \"%.40s\": record "
		    "inserted from another log (or edited)", session,
		    v->session);
		goto out;
	}

	if ((body = malloc(cut + 2)) == NULL) {
		json_decref(rec);
		return AL_ERR_ALLOC;
	}
	memcpy(body, line, cut);
	body[cut] = '}';
	if (sigtxt != NULL && crypto_sign_verify_detached(sig,
	    (unsigned char *)body, cut + 1, v->pk) != 0) {
		rc = bad(v, "signature does not verify: the record was edited "
		    "(or signed with another key)");
		goto out;
	}

	if ((uint64_t)seq != v->line) {
		if (seq > 0 && (uint64_t)seq > v->line)
			rc = bad(v, "seq %lld, expected %llu: %llu record(s) "
			    "before it deleted, or records reordered",
			    (long long)seq, (unsigned long long)v->line,
			    (unsigned long long)((uint64_t)seq - v->line));
		else
			rc = bad(v, "seq %lld, expected %llu: a record was "
			    "duplicated, inserted or moved here",
			    (long long)seq, (unsigned long long)v->line);
		goto out;
	}
	if (strcmp(prev, res->head) != 0) {
		rc = bad(v, "prev does not match the hash of line %llu: the "
		    "record before it was replaced or edited",
		    (unsigned long long)(v->line - 1));
		goto out;
	}

	crypto_generichash(md, sizeof(md), (const unsigned char *)line, len,
	    NULL, 0);
	sodium_bin2hex(head, sizeof(head), md, sizeof(md));
	memcpy(res->head, head, sizeof(res->head));
	res->records++;
	copy_vis(res->last_time, sizeof(res->last_time),
	    json_string_value(json_object_get(rec, "time")));
	snprintf(v->last_event, sizeof(v->last_event), "%s", event);
	if (sigtxt != NULL)
		v->unsigned_from = 0;
	if (strcmp(event, "session_end") == 0)
		v->ended = 1;
 out:
	free(body);
	json_decref(rec);
	return rc;
}

/*
 * Reads one line of at most |max| bytes plus its newline into *buf.
 * Returns its length with the newline, 0 at end of file, -1 on a read
 * error, -2 if the line is longer than |max| (it is not kept whole).
 */
static ssize_t
read_line(FILE *fp, char **buf, size_t *cap, size_t max)
{
	size_t len = 0;
	char *nb;
	int c;

	while ((c = getc_unlocked(fp)) != EOF) {
		if (len + 1 >= *cap) {
			if (*cap > max + 1)
				return -2;
			if ((nb = realloc(*buf, *cap ? *cap * 2 : 4096)) == NULL)
				return -1;
			*buf = nb;
			*cap = *cap ? *cap * 2 : 4096;
		}
		(*buf)[len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (ferror(fp))
		return -1;
	if (len > max + 1)
		return -2;
	return (ssize_t)len;
}

int
audit_verify_fp(FILE *fp, const unsigned char *pin, const char *want_head,
    struct audit_verify_result *res)
{
	const unsigned char (*keys)[32] = (const unsigned char (*)[32])pin;

	return audit_verify_fp_trusted(fp, keys, pin != NULL ? 1 : 0,
	    want_head, res);
}

int
audit_verify_fp_trusted(FILE *fp, const unsigned char (*keys)[32],
    size_t nkeys, const char *want_head, struct audit_verify_result *res)
{
	struct verifier v;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0, head_seen = 0;

	memset(res, 0, sizeof(*res));
	memset(res->head, '0', AUDIT_HASH_HEX_LEN);
	memset(&v, 0, sizeof(v));
	v.keys = keys;
	v.nkeys = nkeys;
	v.res = res;
	if (sodium_init() < 0)
		return AL_ERR_INTERNAL;
	while ((n = read_line(fp, &line, &cap, AUDIT_MAX_LINE)) != 0) {
		v.line++;
		if (n == -1) {
			free(line);
			return AL_ERR_SYSTEM;
		}
		if (n == -2) {
			rc = bad(&v, "record longer than %d bytes",
			    AUDIT_MAX_LINE);
			break;
		}
		if (line[n - 1] != '\n') {
			rc = bad(&v, "incomplete last record (no newline): the "
			    "file was truncated or a write was torn");
			break;
		}
		if (memchr(line, '\0', (size_t)n) != NULL) {
			rc = bad(&v, "record contains a NUL byte: edited or "
			    "corrupt");
			break;
		}
		if ((rc = verify_line(&v, line, (size_t)n - 1)) != 0)
			break;
		if (want_head != NULL && strcmp(res->head, want_head) == 0)
			head_seen = 1;
	}
	free(line);
	if (rc < 0)
		return rc;
	if (rc != 0)
		return res->status;
	if (v.line == 0) {
		v.line = 1;
		return bad(&v, "empty log: no session_start");
	}
	if (v.unsigned_from != 0) {
		v.line = v.unsigned_from;
		res->records = v.unsigned_from - 1;
		return bad(&v, "records from line %llu on are not covered by a "
		    "signature: the signed end of their batch was cut off (or "
		    "its \"sig\" removed)", (unsigned long long)v.unsigned_from);
	}
	if (want_head != NULL && !head_seen) {
		v.line++;
		return bad(&v, "the exported head %.16s... is not in the log: "
		    "records were cut off the end or the log was replaced",
		    want_head);
	}
	res->status = v.ended ? AUDIT_VERIFY_CLOSED : AUDIT_VERIFY_OPEN;
	if (!v.ended) {
		char reason[sizeof(res->reason)];

		snprintf(reason, sizeof(reason),
		    "open (no session_end yet): last record is %s, seq %llu",
		    v.last_event, (unsigned long long)res->records);
		copy_vis(res->reason, sizeof(res->reason), reason);
	}
	return res->status;
}

json_t *
audit_record_parse(const char *line, size_t len)
{
	json_t *rec;

	if ((rec = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL)) ==
	    NULL)
		return NULL;
	if (!json_is_object(rec) ||
	    !json_is_integer(json_object_get(rec, "seq")) ||
	    !json_is_string(json_object_get(rec, "event")) ||
	    !json_is_string(json_object_get(rec, "session")) ||
	    !json_is_string(json_object_get(rec, "time"))) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

static int
digits(const char **s, int n, int *out)
{
	int i, v = 0;

	for (i = 0; i < n; i++) {
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return -1;
		v = v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	*out = v;
	return 0;
}

int
audit_parse_time(const char *s, int64_t *ms)
{
	struct tm tm;
	int y, mo, d, h = 0, mi = 0, sec = 0, frac = 0, fd = 0, oh, om;
	int64_t off = 0;
	time_t t;

	*ms = 0;
	memset(&tm, 0, sizeof(tm));
	if (digits(&s, 4, &y) || *s++ != '-' || digits(&s, 2, &mo) ||
	    *s++ != '-' || digits(&s, 2, &d))
		return AL_ERR_FORMAT;
	if (*s == 'T' || *s == 't' || *s == ' ') {
		s++;
		if (digits(&s, 2, &h) || *s++ != ':' || digits(&s, 2, &mi) ||
		    *s++ != ':' || digits(&s, 2, &sec))
			return AL_ERR_FORMAT;
		if (*s == '.') {
			s++;
			if (*s < '0' || *s > '9')
				return AL_ERR_FORMAT;
			for (; *s >= '0' && *s <= '9'; s++, fd++)
				if (fd < 3)
					frac = frac * 10 + (*s - '0');
			for (; fd < 3; fd++)
				frac *= 10;
		}
		if (*s == 'Z' || *s == 'z')
			s++;
		else if (*s == '+' || *s == '-') {
			int sign = *s++ == '-' ? -1 : 1;

			if (digits(&s, 2, &oh) || *s++ != ':' ||
			    digits(&s, 2, &om))
				return AL_ERR_FORMAT;
			off = sign * ((int64_t)oh * 3600 + om * 60);
		} else
			return AL_ERR_FORMAT;
	}
	if (*s != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60)
		return AL_ERR_FORMAT;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	*ms = ((int64_t)t - off) * 1000 + frac;
	return 0;
}
