/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * secrets: the sealed store described in secrets.h.  The plaintext of
 * the whole store exists only inside one call, in sodium_malloc'd
 * memory, and is wiped before the call returns.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <sodium.h>

#include "common/errors.h"
#include "common/paths.h"
#include "common/util.h"
#include "broker/redact.h"
#include "broker/secrets.h"

#define MAGIC		"ALSECRT1"
#define KDF_KEYFILE	1
#define KDF_ARGON2ID	2
#define HDR_LEN		16
#define SALT_LEN	crypto_pwhash_SALTBYTES
#define KDF_LEN		(SALT_LEN + 16)
#define NONCE_LEN	crypto_secretbox_NONCEBYTES
#define KEY_LEN		crypto_secretbox_KEYBYTES
#define MAX_STORE	(HDR_LEN + KDF_LEN + NONCE_LEN + crypto_secretbox_MACBYTES + \
			    4 + SECRETS_MAX_COUNT * (1 + SECRETS_MAX_NAME + 4) + \
			    8 * 1024 * 1024)

struct secrets {
	int		 dirfd;	/* the directory checked: every access */
	int		 kdf;
	unsigned char	 salt[SALT_LEN];
	uint64_t	 opslimit, memlimit;
	unsigned char	*key;	/* sodium_malloc, PROT_NONE between uses */
};

/* A decrypted store: plaintext in sodium_malloc'd memory. */
struct plain {
	unsigned char	*p;
	size_t		 len, cap;
};

int
secrets_name_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > SECRETS_MAX_NAME)
		return 0;
	if (!((name[0] >= 'a' && name[0] <= 'z') ||
	    (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_'))
		return 0;
	for (i = 1; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

int
secrets_default_dir(char **out)
{
	char dir[PATH_MAX];

	*out = NULL;
	if (paths_state_dir(dir, sizeof(dir)) != 0)
		return AL_ERR_LIMIT;
	if ((*out = strdup(dir)) == NULL)
		return AL_ERR_ALLOC;
	return 0;
}

static void
put_u32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static uint32_t
get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static void
put_u64(unsigned char *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t
get_u64(const unsigned char *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* mkdir -p with mode 0700 for what we create. */
static int
mkdirs(const char *dir)
{
	char *p, *copy;
	int rc = 0;

	if ((copy = strdup(dir)) == NULL)
		return AL_ERR_ALLOC;
	for (p = copy + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(copy, 0700) == -1 && errno != EEXIST) {
				rc = AL_ERR_SYSTEM;
				break;
			}
			*p = c;
			if (c == '\0')
				break;
		}
	}
	free(copy);
	return rc;
}

/* A file or directory holding secrets must be ours and private. */
static int
private_enough(const struct stat *st, mode_t forbidden)
{
	return st->st_uid == geteuid() && (st->st_mode & forbidden) == 0;
}

static int
read_file(int dirfd, const char *name, size_t max, unsigned char **out,
    size_t *len)
{
	struct stat st;
	unsigned char *p;
	size_t done = 0;
	ssize_t n;
	int fd;

	*out = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO in its place must not hang the open. */
	if ((fd = openat(dirfd, name,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1)
		return errno == ENOENT ? AL_ERR_NOT_FOUND : AL_ERR_SYSTEM;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return AL_ERR_SYSTEM;
	}
	if (!S_ISREG(st.st_mode) || !private_enough(&st, 077)) {
		close(fd);
		return AL_ERR_DENIED;
	}
	if ((size_t)st.st_size > max) {
		close(fd);
		return AL_ERR_FORMAT;
	}
	if ((p = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return AL_ERR_ALLOC;
	}
	while (done < (size_t)st.st_size) {
		n = read(fd, p + done, (size_t)st.st_size - done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	if (done != (size_t)st.st_size) {
		free(p);
		return AL_ERR_SYSTEM;
	}
	*out = p;
	*len = done;
	return 0;
}

/*
 * Writes |name| in the store directory atomically, mode 0600: all of it
 * through s->dirfd, the directory opened and checked, never by its path,
 * which whoever may write a parent can point elsewhere meanwhile.  The
 * temporary file is new (O_EXCL), never followed through a link.
 */
static int
write_file_atomic(struct secrets *s, const char *name, const void *data,
    size_t len)
{
	unsigned char rnd[8];
	char hex[2 * sizeof(rnd) + 1], tmp[32];
	int fd, rc;

	randombytes_buf(rnd, sizeof(rnd));
	sodium_bin2hex(hex, sizeof(hex), rnd, sizeof(rnd));
	snprintf(tmp, sizeof(tmp), ".secrets.%s", hex);
	if ((fd = openat(s->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		return AL_ERR_SYSTEM;
	if (fchmod(fd, 0600) == -1 || (rc = write_all(fd, data, len)) != 0 ||
	    fsync(fd) == -1) {
		close(fd);
		unlinkat(s->dirfd, tmp, 0);
		return AL_ERR_SYSTEM;
	}
	close(fd);
	if (renameat(s->dirfd, tmp, s->dirfd, name) == -1) {
		unlinkat(s->dirfd, tmp, 0);
		return AL_ERR_SYSTEM;
	}
	(void)fsync(s->dirfd);
	return 0;
}

static int
keyfile_load(struct secrets *s)
{
	unsigned char *raw;
	size_t len;
	int fd, rc;

	rc = read_file(s->dirfd, SECRETS_KEYFILE, KEY_LEN, &raw, &len);
	if (rc == AL_ERR_NOT_FOUND) {
		/* First use: a fresh random key, never replaced. */
		fd = openat(s->dirfd, SECRETS_KEYFILE, O_WRONLY | O_CREAT |
		    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd == -1)
			return AL_ERR_SYSTEM;
		sodium_mprotect_readwrite(s->key);
		randombytes_buf(s->key, KEY_LEN);
		rc = write_all(fd, s->key, KEY_LEN);
		sodium_mprotect_noaccess(s->key);
		if (rc == 0 && fsync(fd) == -1)
			rc = AL_ERR_SYSTEM;
		close(fd);
		if (rc != 0)
			unlinkat(s->dirfd, SECRETS_KEYFILE, 0);
		(void)fsync(s->dirfd);
		return rc;
	}
	if (rc != 0)
		return rc;
	if (len != KEY_LEN) {
		sodium_memzero(raw, len);
		free(raw);
		return AL_ERR_FORMAT;
	}
	sodium_mprotect_readwrite(s->key);
	memcpy(s->key, raw, KEY_LEN);
	sodium_mprotect_noaccess(s->key);
	sodium_memzero(raw, len);
	free(raw);
	return 0;
}

static void
plain_free(struct plain *pl)
{
	sodium_free(pl->p);
	pl->p = NULL;
	pl->len = pl->cap = 0;
}

/* Reads the sealed store's bytes; AL_ERR_NOT_FOUND if there is none. */
static int
store_read_raw(struct secrets *s, unsigned char **raw, size_t *rawlen)
{
	return read_file(s->dirfd, SECRETS_STORE, MAX_STORE, raw, rawlen);
}

static int
store_parse_header(const unsigned char *raw, size_t len, int *kdf,
    unsigned char *salt, uint64_t *ops, uint64_t *mem, size_t *off)
{
	size_t i;

	if (len < HDR_LEN || memcmp(raw, MAGIC, 8) != 0)
		return AL_ERR_FORMAT;
	for (i = 9; i < HDR_LEN; i++)
		if (raw[i] != 0)
			return AL_ERR_FORMAT;
	*kdf = raw[8];
	*off = HDR_LEN;
	if (*kdf == KDF_ARGON2ID) {
		if (len < HDR_LEN + KDF_LEN)
			return AL_ERR_FORMAT;
		memcpy(salt, raw + HDR_LEN, SALT_LEN);
		*ops = get_u64(raw + HDR_LEN + SALT_LEN);
		*mem = get_u64(raw + HDR_LEN + SALT_LEN + 8);
		/* Bound what a forged header can make us spend. */
		if (*ops < crypto_pwhash_OPSLIMIT_MIN ||
		    *ops > crypto_pwhash_OPSLIMIT_SENSITIVE ||
		    *mem < crypto_pwhash_MEMLIMIT_MIN ||
		    *mem > crypto_pwhash_MEMLIMIT_SENSITIVE)
			return AL_ERR_FORMAT;
		*off += KDF_LEN;
	} else if (*kdf != KDF_KEYFILE)
		return AL_ERR_FORMAT;
	if (len < *off + NONCE_LEN + crypto_secretbox_MACBYTES)
		return AL_ERR_FORMAT;
	return 0;
}

/*
 * Opens the store into |pl| (sodium_malloc'd; plain_free() it).  A
 * missing store is an empty one.  The header must match what |s| was
 * opened with: a store swapped for one under another key or salt is
 * AL_ERR_CRYPTO.
 */
static int
store_load(struct secrets *s, struct plain *pl)
{
	unsigned char salt[SALT_LEN];
	unsigned char *raw;
	uint64_t ops, mem;
	size_t rawlen, off, clen;
	int rc, kdf;

	memset(pl, 0, sizeof(*pl));
	rc = store_read_raw(s, &raw, &rawlen);
	if (rc == AL_ERR_NOT_FOUND) {
		if ((pl->p = sodium_malloc(4)) == NULL)
			return AL_ERR_ALLOC;
		put_u32(pl->p, 0);
		pl->len = pl->cap = 4;
		return 0;
	}
	if (rc != 0)
		return rc;
	if ((rc = store_parse_header(raw, rawlen, &kdf, salt, &ops, &mem,
	    &off)) != 0)
		goto out;
	if (kdf != s->kdf || (kdf == KDF_ARGON2ID &&
	    (memcmp(salt, s->salt, SALT_LEN) != 0 || ops != s->opslimit ||
	    mem != s->memlimit))) {
		rc = AL_ERR_CRYPTO;
		goto out;
	}
	clen = rawlen - off - NONCE_LEN;
	pl->cap = clen - crypto_secretbox_MACBYTES;
	if ((pl->p = sodium_malloc(pl->cap ? pl->cap : 1)) == NULL) {
		rc = AL_ERR_ALLOC;
		goto out;
	}
	sodium_mprotect_readonly(s->key);
	rc = crypto_secretbox_open_easy(pl->p, raw + off + NONCE_LEN, clen,
	    raw + off, s->key);
	sodium_mprotect_noaccess(s->key);
	if (rc != 0) {
		plain_free(pl);
		rc = AL_ERR_CRYPTO;
		goto out;
	}
	pl->len = pl->cap;
	if (pl->len < 4) {
		plain_free(pl);
		rc = AL_ERR_FORMAT;
	}
 out:
	free(raw);
	return rc;
}

/* store_load() under a shared lock on the store's directory, which a
 * writer (store_modify()) holds exclusively. */
static int
store_load_shared(struct secrets *s, struct plain *pl)
{
	int rc;

	memset(pl, 0, sizeof(*pl));
	if (flock(s->dirfd, LOCK_SH) == -1)
		return AL_ERR_SYSTEM;
	rc = store_load(s, pl);
	flock(s->dirfd, LOCK_UN);
	return rc;
}

static int
store_save(struct secrets *s, const struct plain *pl)
{
	unsigned char *raw;
	size_t off = HDR_LEN, rawlen;
	int rc;

	rawlen = HDR_LEN + (s->kdf == KDF_ARGON2ID ? KDF_LEN : 0) +
	    NONCE_LEN + crypto_secretbox_MACBYTES + pl->len;
	if ((raw = calloc(1, rawlen)) == NULL)
		return AL_ERR_ALLOC;
	memcpy(raw, MAGIC, 8);
	raw[8] = (unsigned char)s->kdf;
	if (s->kdf == KDF_ARGON2ID) {
		memcpy(raw + off, s->salt, SALT_LEN);
		put_u64(raw + off + SALT_LEN, s->opslimit);
		put_u64(raw + off + SALT_LEN + 8, s->memlimit);
		off += KDF_LEN;
	}
	randombytes_buf(raw + off, NONCE_LEN);
	sodium_mprotect_readonly(s->key);
	crypto_secretbox_easy(raw + off + NONCE_LEN, pl->p, pl->len, raw + off,
	    s->key);
	sodium_mprotect_noaccess(s->key);
	rc = write_file_atomic(s, SECRETS_STORE, raw, rawlen);
	free(raw);
	return rc;
}

/*
 * Walks the entries.  Returns the number of entries, or AL_ERR_FORMAT.
 * For each entry calls fn(name, namelen, value, valuelen, arg); a
 * non-zero return stops the walk and is returned.
 */
static int
plain_walk(const struct plain *pl, int (*fn)(const unsigned char *, size_t,
    const unsigned char *, size_t, void *), void *arg)
{
	size_t off = 4, nl, vl;
	uint32_t count, i;
	int rc;

	if (pl->len < 4)
		return AL_ERR_FORMAT;
	count = get_u32(pl->p);
	if (count > SECRETS_MAX_COUNT)
		return AL_ERR_FORMAT;
	for (i = 0; i < count; i++) {
		if (pl->len - off < 1)
			return AL_ERR_FORMAT;
		nl = pl->p[off++];
		if (nl == 0 || nl > SECRETS_MAX_NAME || pl->len - off < nl + 4)
			return AL_ERR_FORMAT;
		vl = get_u32(pl->p + off + nl);
		if (vl > SECRETS_MAX_VALUE || pl->len - off - nl - 4 < vl)
			return AL_ERR_FORMAT;
		if (fn != NULL && (rc = fn(pl->p + off, nl, pl->p + off + nl + 4,
		    vl, arg)) != 0)
			return rc;
		off += nl + 4 + vl;
	}
	if (off != pl->len)
		return AL_ERR_FORMAT;
	return (int)count;
}

static int
secrets_open_kdf(const char *dir, const char *pass, size_t passlen,
    struct secrets **out)
{
	struct secrets *s;
	struct plain pl;
	struct stat st;
	unsigned char *raw = NULL;
	size_t rawlen, off;
	int rc, kdf = 0;

	*out = NULL;
	if (sodium_init() < 0)
		return AL_ERR_INTERNAL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return AL_ERR_ALLOC;
	s->dirfd = -1;
	if ((s->key = sodium_malloc(KEY_LEN)) == NULL) {
		rc = AL_ERR_ALLOC;
		goto fail;
	}
	sodium_mprotect_noaccess(s->key);
	if ((rc = mkdirs(dir)) != 0)
		goto fail;
	if ((s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		rc = AL_ERR_SYSTEM;
		goto fail;
	}
	if (fstat(s->dirfd, &st) == -1) {
		rc = AL_ERR_SYSTEM;
		goto fail;
	}
	if (!private_enough(&st, 022)) {
		rc = AL_ERR_DENIED;
		goto fail;
	}

	/* What is the existing store sealed with? */
	rc = store_read_raw(s, &raw, &rawlen);
	if (rc == 0) {
		rc = store_parse_header(raw, rawlen, &kdf, s->salt,
		    &s->opslimit, &s->memlimit, &off);
		free(raw);
		if (rc != 0)
			goto fail;
	} else if (rc != AL_ERR_NOT_FOUND)
		goto fail;

	if (pass == NULL) {
		if (kdf == KDF_ARGON2ID) {
			rc = AL_ERR_CONFLICT;
			goto fail;
		}
		s->kdf = KDF_KEYFILE;
		if ((rc = keyfile_load(s)) != 0)
			goto fail;
	} else {
		if (kdf == KDF_KEYFILE) {
			rc = AL_ERR_CONFLICT;
			goto fail;
		}
		s->kdf = KDF_ARGON2ID;
		if (kdf == 0) {
			randombytes_buf(s->salt, SALT_LEN);
			s->opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
			s->memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
		}
		sodium_mprotect_readwrite(s->key);
		rc = crypto_pwhash(s->key, KEY_LEN, pass, passlen, s->salt,
		    s->opslimit, (size_t)s->memlimit, crypto_pwhash_ALG_ARGON2ID13);
		sodium_mprotect_noaccess(s->key);
		if (rc != 0) {
			rc = AL_ERR_ALLOC;
			goto fail;
		}
	}
	/* Prove the key opens the store now, not at first use. */
	if ((rc = store_load_shared(s, &pl)) != 0)
		goto fail;
	plain_free(&pl);
	*out = s;
	return 0;
 fail:
	secrets_close(s);
	return rc;
}

int
secrets_open(const char *dir, struct secrets **out)
{
	return secrets_open_kdf(dir, NULL, 0, out);
}

int
secrets_open_passphrase(const char *dir, const char *pass, size_t len,
    struct secrets **out)
{
	if (pass == NULL) {
		*out = NULL;
		return AL_ERR_INTERNAL;
	}
	return secrets_open_kdf(dir, pass, len, out);
}

void
secrets_close(struct secrets *s)
{
	if (s == NULL)
		return;
	if (s->dirfd != -1)
		close(s->dirfd);
	sodium_free(s->key);
	free(s);
}

void
secrets_value_free(unsigned char *value)
{
	sodium_free(value);
}

struct find {
	const char	*name;
	size_t		 namelen;
	unsigned char	*value;
	size_t		 len;
};

static int
find_cb(const unsigned char *n, size_t nl, const unsigned char *v, size_t vl,
    void *arg)
{
	struct find *f = arg;

	if (nl != f->namelen || memcmp(n, f->name, nl) != 0)
		return 0;
	if ((f->value = sodium_malloc(vl + 1)) == NULL)
		return AL_ERR_ALLOC;
	memcpy(f->value, v, vl);
	f->value[vl] = '\0';
	f->len = vl;
	return 1;
}

int
secrets_get(struct secrets *s, const char *name, unsigned char **value,
    size_t *len)
{
	struct find f;
	struct plain pl;
	int rc;

	*value = NULL;
	*len = 0;
	if (!secrets_name_valid(name))
		return AL_ERR_FORMAT;
	if ((rc = store_load_shared(s, &pl)) != 0)
		return rc;
	memset(&f, 0, sizeof(f));
	f.name = name;
	f.namelen = strlen(name);
	rc = plain_walk(&pl, find_cb, &f);
	plain_free(&pl);
	if (rc < 0)
		return rc;
	if (rc != 1 || f.value == NULL)
		return AL_ERR_NOT_FOUND;
	*value = f.value;
	*len = f.len;
	return 0;
}

struct rebuild {
	struct plain	*out;
	const char	*skip;	/* name to drop */
	size_t		 skiplen;
	int		 found;
	uint32_t	 count;
};

static int
plain_append(struct plain *pl, const void *name, size_t nl, const void *v,
    size_t vl)
{
	size_t need = 1 + nl + 4 + vl;

	if (pl->cap - pl->len < need)
		return AL_ERR_INTERNAL;
	pl->p[pl->len] = (unsigned char)nl;
	memcpy(pl->p + pl->len + 1, name, nl);
	put_u32(pl->p + pl->len + 1 + nl, (uint32_t)vl);
	memcpy(pl->p + pl->len + 1 + nl + 4, v, vl);
	pl->len += need;
	return 0;
}

static int
rebuild_cb(const unsigned char *n, size_t nl, const unsigned char *v,
    size_t vl, void *arg)
{
	struct rebuild *rb = arg;
	int rc;

	if (nl == rb->skiplen && memcmp(n, rb->skip, nl) == 0) {
		rb->found = 1;
		return 0;
	}
	if ((rc = plain_append(rb->out, n, nl, v, vl)) != 0)
		return rc;
	rb->count++;
	return 0;
}

/* Rewrites the store without |name|, then with name=value if value. */
static int
store_modify(struct secrets *s, const char *name, const void *value,
    size_t len)
{
	struct plain old, nw;
	struct rebuild rb;
	int rc;

	if (flock(s->dirfd, LOCK_EX) == -1)
		return AL_ERR_SYSTEM;
	if ((rc = store_load(s, &old)) != 0)
		goto unlock;
	memset(&nw, 0, sizeof(nw));
	nw.cap = old.len + (value != NULL ? 1 + strlen(name) + 4 + len : 0);
	if ((nw.p = sodium_malloc(nw.cap)) == NULL) {
		plain_free(&old);
		rc = AL_ERR_ALLOC;
		goto unlock;
	}
	nw.len = 4;
	memset(&rb, 0, sizeof(rb));
	rb.out = &nw;
	rb.skip = name;
	rb.skiplen = strlen(name);
	rc = plain_walk(&old, rebuild_cb, &rb);
	plain_free(&old);
	if (rc < 0)
		goto done;
	if (value == NULL && !rb.found) {
		rc = AL_ERR_NOT_FOUND;
		goto done;
	}
	if (value != NULL) {
		if (rb.count >= SECRETS_MAX_COUNT) {
			rc = AL_ERR_LIMIT;
			goto done;
		}
		if ((rc = plain_append(&nw, name, strlen(name), value, len)) != 0)
			goto done;
		rb.count++;
	}
	put_u32(nw.p, rb.count);
	rc = store_save(s, &nw);
 done:
	plain_free(&nw);
 unlock:
	flock(s->dirfd, LOCK_UN);
	return rc;
}

int
secrets_set(struct secrets *s, const char *name, const void *value,
    size_t len)
{
	if (!secrets_name_valid(name))
		return AL_ERR_FORMAT;
	if (len == 0 || len > SECRETS_MAX_VALUE)
		return AL_ERR_LIMIT;
	return store_modify(s, name, value, len);
}

int
secrets_remove(struct secrets *s, const char *name)
{
	if (!secrets_name_valid(name))
		return AL_ERR_FORMAT;
	return store_modify(s, name, NULL, 0);
}

struct names {
	char	**v;
	size_t	  n;
};

static int
names_cb(const unsigned char *n, size_t nl, const unsigned char *v, size_t vl,
    void *arg)
{
	struct names *ns = arg;

	if ((ns->v[ns->n] = strndup((const char *)n, nl)) == NULL)
		return AL_ERR_ALLOC;
	ns->n++;
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
secrets_list_free(char **names)
{
	strv_free(names);
}

int
secrets_list(struct secrets *s, char ***names, size_t *n)
{
	struct names ns;
	struct plain pl;
	int rc;

	*names = NULL;
	*n = 0;
	if ((rc = store_load_shared(s, &pl)) != 0)
		return rc;
	if ((rc = plain_walk(&pl, NULL, NULL)) < 0) {
		plain_free(&pl);
		return rc;
	}
	if ((ns.v = calloc((size_t)rc + 1, sizeof(char *))) == NULL) {
		plain_free(&pl);
		return AL_ERR_ALLOC;
	}
	ns.n = 0;
	rc = plain_walk(&pl, names_cb, &ns);
	plain_free(&pl);
	if (rc < 0) {
		secrets_list_free(ns.v);
		return rc;
	}
	qsort(ns.v, ns.n, sizeof(char *), name_cmp);
	*names = ns.v;
	*n = ns.n;
	return 0;
}

int
secrets_add_to_redact(struct secrets *s, const char *const *names, size_t n,
    struct redact *r)
{
	unsigned char *v;
	size_t i, len;
	int rc;

	for (i = 0; i < n; i++) {
		if ((rc = secrets_get(s, names[i], &v, &len)) != 0)
			return rc;
		/*
		 * A grant goes through the environment, which ends the value
		 * at its first NUL: the tool would get a prefix that is no
		 * form of the value redacted, and print it in the clear.
		 */
		if (memchr(v, '\0', len) != NULL)
			rc = AL_ERR_FORMAT;
		else
			rc = redact_add(r, names[i], v, len);
		secrets_value_free(v);
		if (rc != 0)
			return rc;
	}
	return 0;
}
