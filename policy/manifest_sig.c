/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * manifest_sig: see manifest_sig.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/approver_token.h"
#include "common/errors.h"
#include "common/util.h"
#include "policy/manifest_sig.h"

#define SIG_MAGIC "airlock-manifest-sig-v1"
#define SIG_CONTEXT "airlock-manifest-v1\n"
#define SIG_FILE_MAX 512
#define MANIFEST_MAX (1024 * 1024) /* as manifest_load() */

int
manifest_sig_keys_path(char *out, size_t outlen)
{
	const char *env = getenv("AIRLOCK_MANIFEST_KEYS");

	snprintf(out, outlen, "%s", env != NULL ? env : MANIFEST_KEYS_DEFAULT);
	return env != NULL;
}

/*
 * Whether the trusted-keys file |path| is absent, so that manifests load
 * unsigned: no such name, and no symbolic link to nothing in its place
 * or in place of a directory above it.  A link whose target is missing
 * (a configuration mount not there yet, a target removed or renamed) is
 * not "no file": the host asked for signatures, and the caller fails
 * closed reading it.
 */
static int
keys_absent(const char *path)
{
	char buf[PATH_MAX], *slash;
	struct stat st;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return 0;
	if (lstat(buf, &st) == 0 || errno != ENOENT)
		return 0;
	/* A component above is missing: is it a link to nothing? */
	while ((slash = strrchr(buf, '/')) != NULL && slash != buf) {
		*slash = '\0';
		if (lstat(buf, &st) == 0)
			return !(S_ISLNK(st.st_mode) && stat(buf, &st) == -1);
		if (errno != ENOENT)
			return 0;
	}
	return 1;
}

/*
 * The trusted-keys file's owner and mode: a key that another user could
 * add would be trusted.  Root's or the caller's, and writable by no one
 * else.
 */
static int
keys_owner_ok(const char *path, const struct stat *st, char *err, size_t errlen)
{
	if ((st->st_uid != 0 && st->st_uid != geteuid()) ||
	    (st->st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(err, errlen,
		    "the trusted-keys file %s is owned by uid %u with mode "
		    "%04o: another user could add a key to it; it must be "
		    "root's or yours and writable by no one else",
		    path, (unsigned)st->st_uid,
		    (unsigned)(st->st_mode & 07777));
		return AL_ERR_FORMAT;
	}
	return 0;
}

/*
 * Reads a regular file of at most |max| bytes.  NUL-terminated.  With
 * |keys|, the file must also pass keys_owner_ok().
 */
static int
read_small(const char *path, size_t max, int keys, char **data, size_t *len,
    char *err, size_t errlen)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	char *buf;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > max) {
		snprintf(err, errlen,
		    "%s: not a regular file of at most %zu "
		    "bytes",
		    path, max);
		close(fd);
		return AL_ERR_FORMAT;
	}
	if (keys && keys_owner_ok(path, &st, err, errlen) != 0) {
		close(fd);
		return AL_ERR_FORMAT;
	}
	buf = xcalloc(1, max + 2);
	while (got < max + 1 && (n = read(fd, buf + got, max + 1 - got)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			free(buf);
			return AL_ERR_SYSTEM;
		}
		got += (size_t)n;
	}
	close(fd);
	if (got > max) {
		snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
		free(buf);
		return AL_ERR_LIMIT;
	}
	*data = buf;
	*len = got;
	return 0;
}

static void
sig_message(const char *data, size_t len, unsigned char **msg, size_t *mlen)
{
	size_t clen = strlen(SIG_CONTEXT);

	*mlen = clen + len;
	*msg = xcalloc(1, *mlen + 1);
	memcpy(*msg, SIG_CONTEXT, clen);
	memcpy(*msg + clen, data, len);
}

/* Whether |pk| is listed in the keys file |text|. */
static int
key_trusted(char *text, const unsigned char pk[32], const char *kpath,
    char *err, size_t errlen)
{
	unsigned char k[32];
	char *line, *save = NULL;
	int lineno = 0, found = 0;

	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		line[strcspn(line, "#\r")] = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		line[strcspn(line, " \t")] = '\0';
		if (*line == '\0')
			continue;
		if (approver_pk_decode(line, k) != 0) {
			snprintf(err, errlen,
			    "%s:%d: not a public key (%sBASE64)", kpath, lineno,
			    APPROVER_PK_PREFIX);
			return AL_ERR_FORMAT;
		}
		if (sodium_memcmp(k, pk, 32) == 0)
			found = 1;
	}
	return found;
}

int
manifest_load_verified(
    const char *path, struct manifest **out, char *err, size_t errlen)
{
	char kpath[PATH_MAX], *sigpath = NULL, *keys = NULL;
	char *data = NULL, *sig = NULL, *f[4], *save = NULL;
	unsigned char pk[32], s[crypto_sign_BYTES], *msg;
	size_t len, klen, slen, mlen, got = 0, i;
	int rc, explicit;

	*out = NULL;
	/* Named in the environment, the file must be there: a typo must
	 * not turn the signatures off. */
	explicit = manifest_sig_keys_path(kpath, sizeof(kpath));
	if (kpath[0] != '/') {
		snprintf(err, errlen,
		    "AIRLOCK_MANIFEST_KEYS (%s) is not an "
		    "absolute path",
		    kpath);
		return AL_ERR_FORMAT;
	}
	if (!explicit && keys_absent(kpath))
		return manifest_load(path, out, err, errlen);
	if ((rc = read_small(kpath, 64 * 1024, 1, &keys, &klen, err, errlen)) !=
	    0) {
		struct stat st;

		if (explicit && keys_absent(kpath))
			snprintf(err, errlen,
			    "AIRLOCK_MANIFEST_KEYS names %s, which is not "
			    "there; no manifest is loaded until it is (unset "
			    "the variable for %s)",
			    kpath, MANIFEST_KEYS_DEFAULT);
		else if (stat(kpath, &st) == -1 && errno == ENOENT)
			snprintf(err, errlen,
			    "the trusted-keys file %s leads through a symbolic "
			    "link to nothing; this host asks for signed "
			    "manifests, so none is loaded until the link's "
			    "target is there",
			    kpath);
		return AL_ERR_FORMAT;
	}
	if ((rc = read_small(
		 path, MANIFEST_MAX, 0, &data, &len, err, errlen)) != 0) {
		free(keys);
		return rc;
	}
	xasprintf(&sigpath, "%s.sig", path);
	rc = AL_ERR_CRYPTO;
	if (read_small(sigpath, SIG_FILE_MAX, 0, &sig, &slen, err, errlen) !=
	    0) {
		snprintf(err, errlen,
		    "%s is not signed (no %s), and this host "
		    "accepts only manifests signed by a key in %s",
		    path, sigpath, kpath);
		goto done;
	}
	for (i = 0; i < 4; i++)
		f[i] = strtok_r(i == 0 ? sig : NULL, " \t\r\n", &save);
	if (f[0] == NULL || strcmp(f[0], SIG_MAGIC) != 0 || f[1] == NULL ||
	    f[2] == NULL || f[3] != NULL || approver_pk_decode(f[1], pk) != 0 ||
	    sodium_base642bin(s, sizeof(s), f[2], strlen(f[2]), NULL, &got,
		NULL, sodium_base64_VARIANT_ORIGINAL) != 0 ||
	    got != sizeof(s)) {
		snprintf(err, errlen,
		    "%s: not a manifest signature (%s KEY "
		    "SIGNATURE)",
		    sigpath, SIG_MAGIC);
		goto done;
	}
	switch (key_trusted(keys, pk, kpath, err, errlen)) {
	case 1:
		break;
	case 0:
		snprintf(err, errlen,
		    "%s is signed by %s, which is not a "
		    "trusted key in %s",
		    path, f[1], kpath);
		goto done;
	default:
		rc = AL_ERR_FORMAT;
		goto done;
	}
	sig_message(data, len, &msg, &mlen);
	if (crypto_sign_verify_detached(s, msg, mlen, pk) != 0) {
		snprintf(err, errlen,
		    "%s: the signature in %s does not match "
		    "its content (changed after signing?)",
		    path, sigpath);
		free(msg);
		goto done;
	}
	free(msg);
	/* Exactly the bytes that were verified are parsed. */
	rc = manifest_load_buffer(path, data, len, out, err, errlen);
done:
	free(keys);
	free(data);
	free(sig);
	free(sigpath);
	return rc;
}

int
manifest_sign(
    const char *path, const unsigned char sk[64], char *err, size_t errlen)
{
	unsigned char s[crypto_sign_BYTES], pk[32], *msg;
	char pktext[APPROVER_PK_TEXT], stext[100], *data, *line;
	char *sigpath, *tmp;
	size_t len, mlen;
	int rc, fd;

	if ((rc = read_small(
		 path, MANIFEST_MAX, 0, &data, &len, err, errlen)) != 0)
		return rc;
	sig_message(data, len, &msg, &mlen);
	free(data);
	crypto_sign_detached(s, NULL, msg, mlen, sk);
	free(msg);
	crypto_sign_ed25519_sk_to_pk(pk, sk);
	approver_pk_encode(pk, pktext);
	sodium_bin2base64(
	    stext, sizeof(stext), s, sizeof(s), sodium_base64_VARIANT_ORIGINAL);
	xasprintf(&line, "%s %s %s\n", SIG_MAGIC, pktext, stext);
	xasprintf(&sigpath, "%s.sig", path);
	xasprintf(&tmp, "%s.sig.tmp", path);
	rc = 0;
	if ((fd = open(tmp,
		 O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		 0644)) == -1)
		rc = AL_ERR_SYSTEM;
	else {
		if (write_all(fd, line, strlen(line)) != 0 || fsync(fd) == -1)
			rc = AL_ERR_SYSTEM;
		if (close(fd) == -1)
			rc = AL_ERR_SYSTEM;
		if (rc == 0 && rename(tmp, sigpath) == -1)
			rc = AL_ERR_SYSTEM;
	}
	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", sigpath, strerror(errno));
		(void)unlink(tmp);
	}
	free(line);
	free(sigpath);
	free(tmp);
	return rc;
}
