/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit: the append-only, hash-chained, signed session log.
 *
 * A line is the canonical JSON of the record without "sig" (jansson,
 * JSON_COMPACT | JSON_SORT_KEYS) with ,"sig":"BASE64" inserted before
 * the closing brace: the signature covers exactly the bytes a verifier
 * gets back by cutting that member out, with no re-serialisation.
 * "prev" is BLAKE2b-256 of the previous line without its newline.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <sodium.h>

#include "common/errors.h"
#include "common/util.h"
#include "broker/audit.h"
#include "broker/redact.h"

#define AUDIT_SEED_LEN		crypto_sign_SEEDBYTES
#define AUDIT_MAX_SESSION	128
#define AUDIT_MAX_EVENT		64
#define AUDIT_BATCH_RECORDS	128	/* a batch is flushed at this size */
#define AUDIT_BATCH_BYTES	(64 * 1024)

/*
 * TRANSIENT: a key that lives for one call (a seed read from its file,
 * the host's secret key while it signs a certificate) is a local array,
 * wiped with sodium_memzero() before the call returns; libsodium keeps
 * what it derives from it on the stack the same way.  The session's own
 * secret key, which lives as long as the log, is the one kept in
 * guarded, locked memory (sodium_malloc, read-only once made): a
 * sodium_malloc() and sodium_free() cost ten system calls, five of them
 * mprotect()s, which an airlock exec paid for five keys at every start.
 * A closed log's page is wiped and kept for the next log this process
 * opens (sk_take(), sk_give()): an exec's audit writer opens one log per
 * session, and reusing the page costs two mprotect()s.
 */

struct audit {
	int			 fd;
	char			*path;
	char			 session[AUDIT_MAX_SESSION + 1];
	unsigned char		*sk;	/* sodium_malloc, crypto_sign_SECRETKEYBYTES */
	char			 pk_hex[AUDIT_PUBKEY_HEX_LEN + 1];
	/* The host key and its certificate of pk_hex, or "" (uncertified). */
	char			 host_hex[AUDIT_PUBKEY_HEX_LEN + 1];
	char			 cert[AUDIT_SIG_B64_LEN];
	char			 head[AUDIT_HASH_HEX_LEN + 1];
	uint64_t		 seq;
	off_t			 size;	/* bytes of complete records */
	int			 failing;
	int			 broken;	/* could not roll back: stay failed */
	int			 sync;
	int			 durable_next;	/* sync the next record */
	const char		*keykind;
	const struct redact	*redact;
	audit_sink		 sink;
	void			*sink_arg;
	/* Batching (audit_batch()): records chained but not yet written. */
	int			 batch;
	int			 hold;		/* pend even key records */
	int			 lost;	/* a batch failed to be written */
	int			 ended;	/* audit_end() was called */
	int			 end_rc;	/* ...and its answer */
	int			 psync;	/* a pending record wants a sync */
	char			*pend;	/* their unsigned lines, '\n' each */
	size_t			 plen, pcap;
	struct pending {
		size_t		 off, len;	/* in pend, without '\n' */
		json_t		*rec;
	}			*prec;
	size_t			 npend, cpend;
	/* Prepared, not yet begun: session_start's fields (audit_begin()). */
	json_t			*startf;
};

static audit_sink	 default_sink;
static void		*default_sink_arg;

void
audit_set_default_sink(audit_sink fn, void *arg)
{
	default_sink = fn;
	default_sink_arg = arg;
}

static int
session_valid(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > AUDIT_MAX_SESSION)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

static int
event_valid(const char *e)
{
	size_t i, n = strlen(e);

	if (n == 0 || n > AUDIT_MAX_EVENT || !(e[0] >= 'a' && e[0] <= 'z'))
		return 0;
	for (i = 0; i < n; i++)
		if (!((e[i] >= 'a' && e[i] <= 'z') ||
		    (e[i] >= '0' && e[i] <= '9') || e[i] == '_'))
			return 0;
	return 1;
}

/* Records after which the line is forced to the disk in AUDIT_SYNC_KEY. */
static int
event_is_key(const char *e)
{
	static const char *key[] = {
		"session_start", "session_end", "budget_stop",
		"sandbox_denial", "record_too_large", NULL
	};
	size_t i;

	if (strncmp(e, "approval_", 9) == 0)
		return 1;
	for (i = 0; key[i] != NULL; i++)
		if (strcmp(e, key[i]) == 0)
			return 1;
	return 0;
}

/*
 * Writes a new key into the empty key file |fd| (locked): 0, or an
 * error with the file left empty.
 */
static int
keyfile_make(int fd, unsigned char seed[32])
{
	int rc;

	randombytes_buf(seed, AUDIT_SEED_LEN);
	rc = write_all(fd, seed, AUDIT_SEED_LEN);
	if (rc == 0 && fsync(fd) == -1)
		rc = AL_ERR_SYSTEM;
	if (rc != 0) {
		sodium_memzero(seed, AUDIT_SEED_LEN);
		if (ftruncate(fd, 0) == -1)
			rc = AL_ERR_SYSTEM;
	}
	return rc;
}

int
audit_keyfile_load(const char *keyfile, int create, unsigned char seed[32])
{
	struct stat st;
	ssize_t n;
	int fd, rc;

	/*
	 * Made under a lock, in a file that may be empty: a process killed
	 * between creating the file and writing its key (the first apply,
	 * the first session) left one of 0 bytes, and every later load
	 * failed (AL_ERR_FORMAT): no change set, write_file or apply_patch
	 * landed again, in any session, until a human removed it.  An
	 * empty key file was never a key: nothing was sealed or signed
	 * with it, and it is made now as if absent.
	 */
	fd = open(keyfile, (create ? O_RDWR | O_CREAT : O_RDONLY) |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1)
		return errno == ENOENT ? AL_ERR_NOT_FOUND : AL_ERR_SYSTEM;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return AL_ERR_SYSTEM;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		close(fd);
		return AL_ERR_DENIED;
	}
	if (create) {
		/* Another process may be making it: its key, once written,
		 * is the one. */
		while (flock(fd, LOCK_EX) == -1)
			if (errno != EINTR) {
				close(fd);
				return AL_ERR_SYSTEM;
			}
		if (fstat(fd, &st) == -1) {
			close(fd);
			return AL_ERR_SYSTEM;
		}
		if (st.st_size == 0) {
			rc = keyfile_make(fd, seed);
			close(fd);
			return rc;
		}
	}
	if (st.st_size != AUDIT_SEED_LEN) {
		close(fd);
		return AL_ERR_FORMAT;
	}
	do {
		n = pread(fd, seed, AUDIT_SEED_LEN, 0);
	} while (n == -1 && errno == EINTR);
	close(fd);
	if (n != AUDIT_SEED_LEN)
		return n == -1 ? AL_ERR_SYSTEM : AL_ERR_FORMAT;
	return 0;
}

int
audit_key_public(const char *keyfile, int create,
    char hex[AUDIT_PUBKEY_HEX_LEN + 1])
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];
	unsigned char seed[AUDIT_SEED_LEN], sk[crypto_sign_SECRETKEYBYTES];
	int rc;

	hex[0] = '\0';
	if (sodium_init() < 0)
		return AL_ERR_INTERNAL;
	/* TRANSIENT */
	if ((rc = audit_keyfile_load(keyfile, create, seed)) == 0) {
		crypto_sign_seed_keypair(pk, sk, seed);
		sodium_bin2hex(hex, AUDIT_PUBKEY_HEX_LEN + 1, pk, sizeof(pk));
	}
	sodium_memzero(sk, sizeof(sk));
	sodium_memzero(seed, sizeof(seed));
	return rc;
}

static void
hash_hex(const char *line, size_t len, char hex[AUDIT_HASH_HEX_LEN + 1])
{
	unsigned char md[crypto_generichash_BYTES];

	crypto_generichash(md, sizeof(md), (const unsigned char *)line, len,
	    NULL, 0);
	sodium_bin2hex(hex, AUDIT_HASH_HEX_LEN + 1, md, sizeof(md));
}

/*
 * Writes all of line[0..len) and, if |sync|, forces it to the disk.  On
 * any failure the file is cut back to the last complete record, so the
 * chain stays intact and a later append can succeed.
 */
static int
write_line(struct audit *a, const char *line, size_t len, int sync)
{
	size_t done = 0;
	ssize_t n;
	int saved;

	if (a->broken)
		return AL_ERR_IO;
	while (done < len) {
		n = write(a->fd, line + done, len - done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			goto rollback;
		done += (size_t)n;
	}
	if (sync && fdatasync(a->fd) == -1)
		goto rollback;
	a->size += (off_t)len;
	return 0;
 rollback:
	saved = errno;
	if (done > 0 || sync) {
		if (ftruncate(a->fd, a->size) == -1)
			a->broken = 1;
	}
	errno = saved;
	return AL_ERR_IO;
}

/* Forgets the pending records (after they were written or lost). */
static void
drop_pending(struct audit *a)
{
	size_t i;

	for (i = 0; i < a->npend; i++)
		json_decref(a->prec[i].rec);
	a->npend = 0;
	a->plen = 0;
	a->psync = 0;
}

/*
 * Signs the newest pending record and writes every pending line in one
 * write(2): the older ones unsigned (the signed one's "prev" chain covers
 * them), the newest with "sig".  Then, and only then, the sinks.  On a
 * failure the file is cut back, the records are dropped and a->lost set.
 */
static int
flush_pending(struct audit *a)
{
	unsigned char sig[crypto_sign_BYTES];
	char b64[sodium_base64_ENCODED_LEN(crypto_sign_BYTES,
	    sodium_base64_VARIANT_ORIGINAL)];
	char head[AUDIT_HASH_HEX_LEN + 1];
	struct pending *last;
	char *out;
	size_t olen, slen, i;
	int rc;

	if (a->npend == 0)
		return 0;
	last = &a->prec[a->npend - 1];
	crypto_sign_detached(sig, NULL, (unsigned char *)a->pend + last->off,
	    last->len, a->sk);
	sodium_bin2base64(b64, sizeof(b64), sig, sizeof(sig),
	    sodium_base64_VARIANT_ORIGINAL);
	/* The newest line becomes body minus '}' + ,"sig":"..."} + '\n'. */
	slen = last->len - 1 + strlen(",\"sig\":\"") + strlen(b64) +
	    strlen("\"}");
	olen = last->off + slen + 1;
	if ((out = malloc(olen + 1)) == NULL) {
		drop_pending(a);
		a->lost = 1;
		return AL_ERR_ALLOC;
	}
	memcpy(out, a->pend, last->off);
	snprintf(out + last->off, slen + 2, "%.*s,\"sig\":\"%s\"}\n",
	    (int)(last->len - 1), a->pend + last->off, b64);
	a->durable_next = 0;
	if ((rc = write_line(a, out, olen, a->psync)) != 0) {
		a->failing = 1;
		a->lost = 1;
		drop_pending(a);
		free(out);
		return rc;
	}
	hash_hex(out + last->off, slen, head);
	memcpy(a->head, head, sizeof(a->head));
	a->seq += a->npend;
	a->failing = 0;
	/* The file has them: now, and only now, the copies. */
	if (a->sink != NULL) {
		for (i = 0; i + 1 < a->npend; i++)
			a->sink(a->sink_arg, out + a->prec[i].off,
			    a->prec[i].len, a->prec[i].rec);
		a->sink(a->sink_arg, out + last->off, slen, last->rec);
	}
	drop_pending(a);
	free(out);
	return 0;
}

static int append_record(struct audit *, const char *, json_t *);

/*
 * A record over AUDIT_MAX_LINE is refused (AL_ERR_LIMIT), but not
 * silently: a short record_too_large names its event, its size, the
 * SHA-256 of its (redacted) fields and, when short, their "id", so the
 * log shows that something happened and what it concerned.  Returns 0 or
 * the error of writing it.
 */
static int
note_too_large(struct audit *a, const char *event, json_t *f, size_t blen)
{
	char digest[SHA256_HEX_LEN + 1], *text;
	json_t *id = json_object_get(f, "id"), *note;
	int rc;

	if ((text = json_dumps(f, JSON_COMPACT | JSON_SORT_KEYS)) == NULL)
		return AL_ERR_ALLOC;
	sha256_hex(text, strlen(text), digest);
	free(text);
	if (json_is_string(id) && strlen(json_string_value(id)) > 256)
		id = NULL;
	if ((note = json_pack("{s:s, s:I, s:s}", "event", event, "bytes",
	    (json_int_t)blen, "fieldsDigest", digest)) == NULL)
		return AL_ERR_ALLOC;
	if (id != NULL && (json_is_string(id) || json_is_integer(id)))
		json_object_set(note, "id", id);
	rc = append_record(a, "record_too_large", note);
	json_decref(note);
	return rc;
}

/*
 * Builds and chains one record.  It is written, the newest pending one
 * signed, at once unless a batch is open and the record need not reach
 * the disk now.  |fields| is borrowed.
 */
static int
append_record(struct audit *a, const char *event, json_t *fields)
{
	char when[64], prev[AUDIT_HASH_HEX_LEN + 1];
	json_t *rec = NULL, *f;
	char *body = NULL;
	size_t blen, need;
	int rc = AL_ERR_ALLOC, sync;

	if (!event_valid(event))
		return AL_ERR_FORMAT;
	if (fields != NULL && !json_is_object(fields))
		return AL_ERR_TYPE;
	if (a->broken)
		return AL_ERR_IO;
	if (a->startf != NULL)	/* prepared: audit_begin() comes first */
		return AL_ERR_INTERNAL;
	if (fields == NULL)
		f = json_object();
	else if (a->redact != NULL)
		f = json_deep_copy(fields);
	else
		f = json_incref(fields);
	if (f == NULL)
		return AL_ERR_ALLOC;
	if (a->redact != NULL && fields != NULL &&
	    (rc = redact_json(a->redact, f)) < 0) {
		json_decref(f);
		return rc;
	}
	/* The chain runs through the pending records, unsigned as written. */
	if (a->npend > 0)
		hash_hex(a->pend + a->prec[a->npend - 1].off,
		    a->prec[a->npend - 1].len, prev);
	else
		memcpy(prev, a->head, sizeof(prev));
	format_rfc3339(now_wall_ms(), when);
	if ((rec = json_object()) == NULL ||
	    json_object_set_new(rec, "seq",
	    json_integer((json_int_t)(a->seq + a->npend + 1))) != 0 ||
	    json_object_set_new(rec, "time", json_string(when)) != 0 ||
	    json_object_set_new(rec, "session", json_string(a->session)) != 0 ||
	    json_object_set_new(rec, "event", json_string(event)) != 0 ||
	    json_object_set(rec, "fields", f) != 0 ||
	    json_object_set_new(rec, "prev", json_string(prev)) != 0) {
		rc = AL_ERR_ALLOC;
		goto out;
	}
	if ((body = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS)) == NULL) {
		rc = AL_ERR_ALLOC;
		goto out;
	}
	blen = strlen(body);
	if (blen < 2 || body[blen - 1] != '}') {
		rc = AL_ERR_INTERNAL;
		goto out;
	}
	/* Any record may end up the signed one: its signed line must fit. */
	if (blen - 1 + strlen(",\"sig\":\"") +
	    sodium_base64_ENCODED_LEN(crypto_sign_BYTES,
	    sodium_base64_VARIANT_ORIGINAL) - 1 + strlen("\"}") >
	    AUDIT_MAX_LINE) {
		rc = AL_ERR_LIMIT;
		/* Refused, but its trace is in the log (or the log fails). */
		if (strcmp(event, "record_too_large") != 0 &&
		    note_too_large(a, event, f, blen) == AL_ERR_IO)
			rc = AL_ERR_IO;
		goto out;
	}
	need = a->plen + blen + 1;
	if (need > a->pcap) {
		size_t cap = a->pcap ? a->pcap : 4096;
		char *np;

		while (cap < need)
			cap *= 2;
		if ((np = realloc(a->pend, cap)) == NULL) {
			rc = AL_ERR_ALLOC;
			goto out;
		}
		a->pend = np;
		a->pcap = cap;
	}
	if (a->npend == a->cpend) {
		size_t cap = a->cpend ? a->cpend * 2 : 16;
		struct pending *np;

		if ((np = reallocarray(a->prec, cap, sizeof(*np))) == NULL) {
			rc = AL_ERR_ALLOC;
			goto out;
		}
		a->prec = np;
		a->cpend = cap;
	}
	a->prec[a->npend].off = a->plen;
	a->prec[a->npend].len = blen;
	a->prec[a->npend].rec = json_incref(rec);
	a->npend++;
	memcpy(a->pend + a->plen, body, blen);
	a->plen += blen;
	a->pend[a->plen++] = '\n';
	sync = a->sync == AUDIT_SYNC_ALL ||
	    (a->sync == AUDIT_SYNC_KEY && (event_is_key(event) ||
	    a->durable_next));
	if (sync)
		a->psync = 1;
	/*
	 * A key or durable record ends the batch: it is written on return.
	 * So does a full batch, which bounds the memory a flood can hold.
	 */
	rc = a->hold || (a->batch && !sync && !event_is_key(event) &&
	    !a->durable_next && a->npend < AUDIT_BATCH_RECORDS &&
	    a->plen < AUDIT_BATCH_BYTES) ? 0 : flush_pending(a);
	a->durable_next = 0;
 out:
	free(body);
	json_decref(rec);
	json_decref(f);
	return rc;
}

int
audit_flush(struct audit *a)
{
	return flush_pending(a);
}

void
audit_batch(struct audit *a, int on)
{
	a->batch = on;
}

int
audit_lost(struct audit *a)
{
	int lost = a->lost;

	a->lost = 0;
	return lost;
}

/*
 * fsync(2) the directory holding |path| and the one above it, so that
 * both new entries survive: the log's in its session's directory, and
 * the session directory's own in STATE/sessions (made there, or moved
 * there from STATE/spare when a spare is adopted).  Without the second,
 * a file system that does not journal metadata (ext2, ext4 without a
 * journal) could, after a power loss, leave a synced log in a directory
 * that no name leads to, or under STATE/spare where no command looks.
 */
static void
sync_parent(const char *path)
{
	char *copy, *dir;
	int i;

	if ((copy = strdup(path)) == NULL)
		return;
	for (i = 0, dir = dirname(copy); i < 2; i++, dir = dirname(dir))
		if (fsync_dir(dir) != 0)
			break;
	free(copy);
}

/*
 * The bytes a host key signs to certify a session key: a fixed context,
 * the session id and the session's public key in hex, so a certificate
 * names one key for one session and cannot be moved to another.
 */
int
audit_cert_message(const char *session_id, const char *pk_hex, char *out,
    size_t outlen)
{
	int n;

	n = snprintf(out, outlen, "%s\n%s\n%s", AUDIT_CERT_CONTEXT,
	    session_id, pk_hex);
	return n < 0 || (size_t)n >= outlen ? AL_ERR_LIMIT : 0;
}

/*
 * Adds "hostKey" and "cert" to |f|, and keeps them in |a|: the host key
 * (seed |hseed|) signs the certificate message for |a|'s session and key.
 */
static int
certify(struct audit *a, json_t *f, const unsigned char *hseed)
{
	unsigned char hpk[crypto_sign_PUBLICKEYBYTES], sig[crypto_sign_BYTES];
	char msg[AUDIT_MAX_SESSION + AUDIT_PUBKEY_HEX_LEN + 64];
	unsigned char hsk[crypto_sign_SECRETKEYBYTES];
	int rc;

	if ((rc = audit_cert_message(a->session, a->pk_hex, msg,
	    sizeof(msg))) != 0)
		return rc;
	crypto_sign_seed_keypair(hpk, hsk, hseed);
	crypto_sign_detached(sig, NULL, (const unsigned char *)msg,
	    strlen(msg), hsk);
	sodium_memzero(hsk, sizeof(hsk));
	sodium_bin2hex(a->host_hex, sizeof(a->host_hex), hpk, sizeof(hpk));
	sodium_bin2base64(a->cert, sizeof(a->cert), sig, sizeof(sig),
	    sodium_base64_VARIANT_ORIGINAL);
	if (json_object_set_new(f, "hostKey", json_string(a->host_hex)) != 0 ||
	    json_object_set_new(f, "cert", json_string(a->cert)) != 0)
		return AL_ERR_ALLOC;
	return 0;
}

/*
 * The page kept for the next log's secret key: wiped, read-write, and
 * locked by the process that kept it (|spare_sk_pid|: a child made by
 * fork() or clone() has a copy that is not locked, and leaves it).
 */
static unsigned char *spare_sk;
static pid_t spare_sk_pid;
static pthread_mutex_t spare_sk_lock = PTHREAD_MUTEX_INITIALIZER;

/* Guarded memory for a secret key, read-write: the kept page or a new
 * one.  NULL when out of memory. */
static unsigned char *
sk_take(void)
{
	unsigned char *sk;

	pthread_mutex_lock(&spare_sk_lock);
	sk = spare_sk_pid == getpid() ? spare_sk : NULL;
	spare_sk = NULL;
	pthread_mutex_unlock(&spare_sk_lock);
	return sk != NULL ? sk : sodium_malloc(crypto_sign_SECRETKEYBYTES);
}

/* Wipes |sk| (sk_take()'s) and keeps it for the next log, or frees it
 * when one is kept already. */
static void
sk_give(unsigned char *sk)
{
	pid_t self = getpid();

	if (sk == NULL)
		return;
	if (sodium_mprotect_readwrite(sk) == 0) {
		sodium_memzero(sk, crypto_sign_SECRETKEYBYTES);
		pthread_mutex_lock(&spare_sk_lock);
		if (spare_sk == NULL || spare_sk_pid != self) {
			spare_sk = sk;
			spare_sk_pid = self;
			sk = NULL;
		}
		pthread_mutex_unlock(&spare_sk_lock);
	}
	sodium_free(sk);
}

/* Frees |a| and what it holds; the log file stays as it is. */
static void
audit_free(struct audit *a)
{
	int saved = errno;

	if (a->fd != -1)
		close(a->fd);
	/* session_start may still be pending when |first| was refused. */
	drop_pending(a);
	json_decref(a->startf);
	free(a->pend);
	free(a->prec);
	sk_give(a->sk);
	free(a->path);
	free(a);
	errno = saved;
}

/*
 * The part of opening a log that needs none of its records: the key pair
 * (from |seed|, or fresh), the log opened, locked and found empty, and
 * session_start's own fields in a->startf, certified by the host key
 * seed |hseed| when not NULL.
 */
static int
audit_prepare_seed(const char *path, const char *session_id,
    const unsigned char *seed, const char *keykind,
    const unsigned char *hseed, struct audit **out)
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];
	struct audit *a;
	struct stat st;
	int rc;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return AL_ERR_ALLOC;
	a->fd = -1;
	a->sync = AUDIT_SYNC_KEY;
	a->keykind = keykind;
	a->sink = default_sink;
	a->sink_arg = default_sink_arg;
	memset(a->head, '0', AUDIT_HASH_HEX_LEN);
	snprintf(a->session, sizeof(a->session), "%s", session_id);
	if ((a->path = strdup(path)) == NULL ||
	    (a->sk = sk_take()) == NULL) {
		rc = AL_ERR_ALLOC;
		goto fail;
	}
	if (seed != NULL)
		crypto_sign_seed_keypair(pk, a->sk, seed);
	else
		crypto_sign_keypair(pk, a->sk);
	sodium_mprotect_readonly(a->sk);
	sodium_bin2hex(a->pk_hex, sizeof(a->pk_hex), pk, sizeof(pk));

	a->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (a->fd == -1 || flock(a->fd, LOCK_EX | LOCK_NB) == -1 ||
	    fstat(a->fd, &st) == -1) {
		rc = AL_ERR_SYSTEM;
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_size != 0) {
		errno = S_ISREG(st.st_mode) ? EEXIST : EINVAL;
		rc = AL_ERR_SYSTEM;
		goto fail;
	}
	if ((a->startf = json_pack("{s:s, s:s, s:I, s:s}", "pubkey",
	    a->pk_hex, "key", keykind, "pid", (json_int_t)getpid(),
	    "version", PACKAGE_VERSION)) == NULL) {
		rc = AL_ERR_ALLOC;
		goto fail;
	}
	if (hseed != NULL &&
	    (rc = certify(a, a->startf, hseed)) != 0)
		goto fail;
	*out = a;
	return 0;
 fail:
	audit_free(a);
	return rc;
}

/*
 * Writes session_start (a->startf and the members of |extra| it lacks);
 * with |first| (an event name, not NULL) also that record, durable, in
 * the same write and sync.  On failure neither record is in the file.
 */
static int
audit_begin(struct audit *a, json_t *extra, const char *first,
    json_t *first_fields)
{
	json_t *f = a->startf;
	int rc;

	if (f == NULL)
		return AL_ERR_INTERNAL;
	a->startf = NULL;
	/* The caller's context after: it cannot replace the key members. */
	if (extra != NULL && json_object_update_missing(f, extra) != 0) {
		json_decref(f);
		a->broken = 1;
		return AL_ERR_ALLOC;
	}
	/* With a first record, session_start waits for it: one write, one
	 * signature (the first record's, covering both), one sync. */
	a->hold = first != NULL;
	rc = append_record(a, "session_start", f);
	a->hold = 0;
	json_decref(f);
	/* Durable: it flushes both (or, failing, drops both). */
	if (rc == 0 && first != NULL) {
		a->durable_next = a->sync == AUDIT_SYNC_KEY;
		rc = append_record(a, first, first_fields);
	}
	if (rc != 0) {
		drop_pending(a);
		a->broken = 1;
		return rc;
	}
	/*
	 * The new entry, after the records' own sync: that sync committed
	 * it on file systems that journal metadata in order (ext4, xfs),
	 * so this one is cheap there, and still makes it durable elsewhere.
	 */
	sync_parent(a->path);
	return 0;
}

/* Opens the log and writes session_start (and |first|): both of the above;
 * when the write fails, the log it made goes too (audit_abandon()). */
static int
audit_open_seed(const char *path, const char *session_id,
    const unsigned char *seed, const char *keykind,
    const unsigned char *hseed, json_t *extra, const char *first,
    json_t *first_fields, struct audit **out)
{
	struct audit *a;
	int rc;

	if ((rc = audit_prepare_seed(path, session_id, seed, keykind, hseed,
	    &a)) != 0)
		return rc;
	if ((rc = audit_begin(a, extra, first, first_fields)) != 0) {
		/* The file it made goes with it: it was cut back, empty. */
		audit_abandon(a);
		return rc;
	}
	*out = a;
	return 0;
}

int
audit_open(const char *path, const char *session_id, struct audit **out)
{
	*out = NULL;
	if (sodium_init() < 0)
		return AL_ERR_INTERNAL;
	if (!session_valid(session_id))
		return AL_ERR_FORMAT;
	return audit_open_seed(path, session_id, NULL, "session", NULL, NULL,
	    NULL, NULL, out);
}

int
audit_open_certified(const char *path, const char *session_id,
    const char *hostkey, json_t *extra, struct audit **out)
{
	return audit_open_certified_first(path, session_id, hostkey, extra,
	    NULL, NULL, out);
}

/* What audit_open_certified_first() checks of its arguments. */
static int
certified_args_valid(const char *session_id, json_t *extra, const char *first)
{
	if (!session_valid(session_id))
		return AL_ERR_FORMAT;
	if (extra != NULL && !json_is_object(extra))
		return AL_ERR_TYPE;
	/* Written by open and close only (audit_append()). */
	if (first != NULL && (strcmp(first, "session_start") == 0 ||
	    strcmp(first, "session_end") == 0))
		return AL_ERR_FORMAT;
	return 0;
}

int
audit_prepare_certified(const char *path, const char *session_id,
    const char *hostkey, struct audit **out)
{
	unsigned char hseed[AUDIT_SEED_LEN];
	int rc;

	*out = NULL;
	if (sodium_init() < 0)
		return AL_ERR_INTERNAL;
	if ((rc = certified_args_valid(session_id, NULL, NULL)) != 0)
		return rc;
	/* The host key is read, used once and wiped before any record. */
	if ((rc = audit_keyfile_load(hostkey, 1, hseed)) == 0)
		rc = audit_prepare_seed(path, session_id, NULL, "session",
		    hseed, out);
	sodium_memzero(hseed, sizeof(hseed));
	return rc;
}

int
audit_begin_first(struct audit *a, json_t *extra, const char *first,
    json_t *first_fields)
{
	int rc;

	if ((rc = certified_args_valid(a->session, extra, first)) != 0)
		return rc;
	return audit_begin(a, extra, first, first_fields);
}

void
audit_abandon(struct audit *a)
{
	struct stat fst, pst;

	if (a == NULL)
		return;
	/* Only a log that is still empty, and still the one at its path. */
	if (a->seq == 0 && fstat(a->fd, &fst) == 0 && fst.st_size == 0 &&
	    lstat(a->path, &pst) == 0 && pst.st_dev == fst.st_dev &&
	    pst.st_ino == fst.st_ino)
		(void)unlink(a->path);
	audit_free(a);
}

int
audit_open_certified_first(const char *path, const char *session_id,
    const char *hostkey, json_t *extra, const char *first,
    json_t *first_fields, struct audit **out)
{
	struct audit *a;
	int rc;

	*out = NULL;
	if ((rc = certified_args_valid(session_id, extra, first)) != 0)
		return rc;
	if ((rc = audit_prepare_certified(path, session_id, hostkey, &a)) != 0)
		return rc;
	if ((rc = audit_begin(a, extra, first, first_fields)) != 0) {
		/* The file it made goes with it: it was cut back, empty. */
		audit_abandon(a);
		return rc;
	}
	*out = a;
	return 0;
}

int
audit_open_with_key(const char *path, const char *session_id,
    const char *keyfile, struct audit **out)
{
	unsigned char seed[AUDIT_SEED_LEN];
	int rc;

	*out = NULL;
	if (sodium_init() < 0)
		return AL_ERR_INTERNAL;
	if (!session_valid(session_id))
		return AL_ERR_FORMAT;
	if ((rc = audit_keyfile_load(keyfile, 1, seed)) == 0)
		rc = audit_open_seed(path, session_id, seed, "long-term", NULL,
		    NULL, NULL, NULL, out);
	sodium_memzero(seed, sizeof(seed));
	return rc;
}

int
audit_append(struct audit *a, const char *event, json_t *fields)
{
	/* These two are written only by open and close. */
	if (strcmp(event, "session_start") == 0 ||
	    strcmp(event, "session_end") == 0)
		return AL_ERR_FORMAT;
	return append_record(a, event, fields);
}

int
audit_append_durable(struct audit *a, const char *event, json_t *fields)
{
	if (a->sync == AUDIT_SYNC_KEY)
		a->durable_next = 1;
	return audit_append(a, event, fields);
}

int
audit_failing(const struct audit *a)
{
	return a->failing || a->broken;
}

const char *
audit_path(const struct audit *a)
{
	return a->path;
}

int
audit_moved(struct audit *a, const char *path)
{
	char *copy;

	if ((copy = strdup(path)) == NULL)
		return AL_ERR_ALLOC;
	free(a->path);
	a->path = copy;
	return 0;
}

const char *
audit_public_key(const struct audit *a)
{
	return a->pk_hex;
}

json_t *
audit_attest(const struct audit *a, const char *msg, size_t len)
{
	unsigned char sig[crypto_sign_BYTES];
	char b64[AUDIT_SIG_B64_LEN];

	if (a == NULL || a->sk == NULL || a->cert[0] == '\0')
		return NULL;
	crypto_sign_detached(sig, NULL, (const unsigned char *)msg, len,
	    a->sk);
	sodium_bin2base64(b64, sizeof(b64), sig, sizeof(sig),
	    sodium_base64_VARIANT_ORIGINAL);
	return json_pack("{s:s, s:s, s:s, s:s}", "sessionKey", a->pk_hex,
	    "hostKey", a->host_hex, "cert", a->cert, "signature", b64);
}

const char *
audit_head(const struct audit *a)
{
	return a->head;
}

uint64_t
audit_seq(const struct audit *a)
{
	return a->seq;
}

uint64_t
audit_size(const struct audit *a)
{
	return (uint64_t)a->size + a->plen;
}

void
audit_set_sync(struct audit *a, int mode)
{
	a->sync = mode;
}

void
audit_set_redact(struct audit *a, const struct redact *r)
{
	a->redact = r;
}

int
audit_end(struct audit *a)
{
	json_t *f;
	int rc;

	if (a->ended)
		return a->end_rc;
	a->ended = 1;
	/*
	 * session_end joins the records still pending (one write, one
	 * signature, one sync for them all); whatever it could not join is
	 * written on its own.
	 */
	a->batch = 0;
	if ((f = json_pack("{s:I}", "records",
	    (json_int_t)(a->seq + a->npend))) != NULL) {
		a->sync = a->sync == AUDIT_SYNC_NONE ? AUDIT_SYNC_NONE :
		    AUDIT_SYNC_ALL;
		rc = append_record(a, "session_end", f);
		json_decref(f);
	} else
		rc = AL_ERR_ALLOC;
	if (flush_pending(a) != 0 && rc == 0)
		rc = AL_ERR_IO;
	a->end_rc = rc;
	return rc;
}

int
audit_sync(struct audit *a)
{
	return a->broken || fdatasync(a->fd) == -1 ? AL_ERR_IO : 0;
}

int
audit_sync_fd(const struct audit *a)
{
	return a->broken ? -1 : a->fd;
}

int
audit_writer_active(const char *path)
{
	int fd, held = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB) == -1 && errno == EWOULDBLOCK)
		held = 1;
	close(fd);
	return held;
}

void
audit_close(struct audit *a)
{
	if (a == NULL)
		return;
	(void)audit_end(a);
	drop_pending(a);
	free(a->pend);
	free(a->prec);
	close(a->fd);
	sk_give(a->sk);
	free(a->path);
	free(a);
}
