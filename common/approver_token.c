/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * approver_token: see approver_token.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/approver_token.h"
#include "common/errors.h"
#include "common/util.h"

#define TOKEN_CONTEXT "airlock-decision-v1\n"

static int
b64_decode(const char *s, unsigned char *out, size_t want)
{
	size_t got = 0;

	if (sodium_base642bin(out, want, s, strlen(s), NULL, &got, NULL,
		sodium_base64_VARIANT_ORIGINAL) != 0 ||
	    got != want)
		return AL_ERR_FORMAT;
	return 0;
}

int
approver_pk_decode(const char *text, unsigned char pk[32])
{
	size_t plen = strlen(APPROVER_PK_PREFIX);

	if (text == NULL || strncmp(text, APPROVER_PK_PREFIX, plen) != 0 ||
	    strlen(text) != plen + 44)
		return AL_ERR_FORMAT;
	return b64_decode(text + plen, pk, 32);
}

void
approver_pk_encode(const unsigned char pk[32], char out[APPROVER_PK_TEXT])
{
	size_t plen = strlen(APPROVER_PK_PREFIX);

	snprintf(out, APPROVER_PK_TEXT, "%s", APPROVER_PK_PREFIX);
	sodium_bin2base64(out + plen, APPROVER_PK_TEXT - plen, pk, 32,
	    sodium_base64_VARIANT_ORIGINAL);
}

static int
write_new(const char *path, mode_t mode, const char *text)
{
	int fd, rc;

	if ((fd = open(path,
		 O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)) ==
	    -1)
		return -1;
	rc = write_all(fd, text, strlen(text));
	if (rc == 0 && fsync(fd) == -1)
		rc = -1;
	if (close(fd) == -1)
		rc = -1;
	if (rc != 0)
		(void)unlink(path);
	return rc;
}

int
approver_keygen(
    const char *path, char pub[APPROVER_PK_TEXT], char *err, size_t errlen)
{
	unsigned char pk[32], sk[64];
	char line[sizeof(APPROVER_SK_PREFIX) + 96], *pubpath;
	size_t plen = strlen(APPROVER_SK_PREFIX);

	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium cannot start");
		return AL_ERR_CRYPTO;
	}
	crypto_sign_keypair(pk, sk);
	snprintf(line, sizeof(line), "%s", APPROVER_SK_PREFIX);
	sodium_bin2base64(line + plen, sizeof(line) - plen - 1, sk, sizeof(sk),
	    sodium_base64_VARIANT_ORIGINAL);
	strcat(line, "\n");
	sodium_memzero(sk, sizeof(sk));
	xasprintf(&pubpath, "%s.pub", path);
	if (write_new(path, 0600, line) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		sodium_memzero(line, sizeof(line));
		free(pubpath);
		return AL_ERR_SYSTEM;
	}
	sodium_memzero(line, sizeof(line));
	approver_pk_encode(pk, pub);
	snprintf(line, sizeof(line), "%s\n", pub);
	if (write_new(pubpath, 0644, line) != 0) {
		snprintf(err, errlen, "%s: %s", pubpath, strerror(errno));
		(void)unlink(path);
		free(pubpath);
		return AL_ERR_SYSTEM;
	}
	free(pubpath);
	return 0;
}

int
approver_secret_load(
    const char *path, unsigned char sk[64], char *err, size_t errlen)
{
	char buf[256];
	size_t plen = strlen(APPROVER_SK_PREFIX), n;
	struct stat st;
	ssize_t got;
	int fd, rc = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return AL_ERR_FORMAT;
	}
	if ((st.st_mode & 0077) != 0) {
		snprintf(err, errlen,
		    "%s: a secret key must not be readable "
		    "by group or others (chmod 600)",
		    path);
		close(fd);
		return AL_ERR_DENIED;
	}
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	buf[got] = '\0';
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	if (strncmp(buf, APPROVER_SK_PREFIX, plen) != 0 ||
	    b64_decode(buf + plen, sk, 64) != 0) {
		snprintf(err, errlen, "%s: not an airlock approver secret key",
		    path);
		rc = AL_ERR_FORMAT;
	}
	sodium_memzero(buf, sizeof(buf));
	return rc;
}

char *
json_signed_bytes(json_t *t, const char *context, const char *omit)
{
	json_t *c = json_copy(t);
	char *canon, *out;

	if (c == NULL)
		return NULL;
	json_object_del(c, omit);
	canon =
	    json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(c);
	if (canon == NULL)
		return NULL;
	xasprintf(&out, "%s%s", context, canon);
	free(canon);
	return out;
}

json_t *
approver_token_sign(const char *session, const char *approval,
    const char *digest, int approve, const char *text, int64_t expires,
    const unsigned char sk[64])
{
	unsigned char sig[crypto_sign_BYTES], pk[32];
	char pktext[APPROVER_PK_TEXT], sigtext[100], *msg;
	json_t *t;

	if (session == NULL || approval == NULL || digest == NULL)
		return NULL;
	crypto_sign_ed25519_sk_to_pk(pk, sk);
	approver_pk_encode(pk, pktext);
	t = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:I, s:s}", "type",
	    "airlock-decision", "version", 1, "session", session, "approval",
	    approval, "digest", digest, "decision",
	    approve ? "approve" : "deny", "expires", (json_int_t)expires, "key",
	    pktext);
	if (t == NULL)
		return NULL;
	if (text != NULL)
		json_object_set_new(t, "text", json_string(text));
	if ((msg = json_signed_bytes(t, TOKEN_CONTEXT, "signature")) == NULL) {
		json_decref(t);
		return NULL;
	}
	crypto_sign_detached(
	    sig, NULL, (const unsigned char *)msg, strlen(msg), sk);
	free(msg);
	sodium_bin2base64(sigtext, sizeof(sigtext), sig, sizeof(sig),
	    sodium_base64_VARIANT_ORIGINAL);
	json_object_set_new(t, "signature", json_string(sigtext));
	return t;
}

int
approver_token_check(
    json_t *token, unsigned char pk[32], char *why, size_t whylen)
{
	static const char *const strs[] = { "session", "approval", "digest",
		"decision", "key", "signature", NULL };
	static const char *const known[] = { "type", "version", "session",
		"approval", "digest", "decision", "text", "expires", "key",
		"signature", NULL };
	unsigned char sig[crypto_sign_BYTES];
	const char *k, *type, *decision;
	json_int_t exp;
	json_t *v;
	char *msg;
	size_t i;
	int rc;

	if (!json_is_object(token)) {
		snprintf(why, whylen, "a token is a JSON object");
		return AL_ERR_FORMAT;
	}
	json_object_foreach(token, k, v)
	{
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(known[i], k) == 0)
				break;
		if (known[i] == NULL) {
			char name[65];

			/* Cut between characters: the refusal is JSON. */
			utf8_fit(name, sizeof(name), k);
			snprintf(why, whylen, "unknown member \"%s\"", name);
			return AL_ERR_FORMAT;
		}
	}
	type = json_string_value(json_object_get(token, "type"));
	if (type == NULL || strcmp(type, "airlock-decision") != 0 ||
	    json_integer_value(json_object_get(token, "version")) != 1 ||
	    !json_is_integer(json_object_get(token, "expires"))) {
		snprintf(
		    why, whylen, "not an airlock-decision version 1 token");
		return AL_ERR_FORMAT;
	}
	/* Compared in milliseconds: a time whose thousandfold overflows
	 * (-9223372036854776 wraps to "never expires") is no time. */
	exp = json_integer_value(json_object_get(token, "expires"));
	if (exp <= 0 || exp > INT64_MAX / 1000) {
		snprintf(why, whylen,
		    "\"expires\" is not a time (seconds since 1970)");
		return AL_ERR_FORMAT;
	}
	for (i = 0; strs[i] != NULL; i++)
		if (!json_is_string(json_object_get(token, strs[i]))) {
			snprintf(why, whylen,
			    "\"%s\" is missing or not a "
			    "string",
			    strs[i]);
			return AL_ERR_FORMAT;
		}
	if ((v = json_object_get(token, "text")) != NULL &&
	    !json_is_string(v)) {
		snprintf(why, whylen, "\"text\" is not a string");
		return AL_ERR_FORMAT;
	}
	decision = json_string_value(json_object_get(token, "decision"));
	if (strcmp(decision, "approve") != 0 && strcmp(decision, "deny") != 0) {
		snprintf(why, whylen,
		    "\"decision\" is neither approve nor "
		    "deny");
		return AL_ERR_FORMAT;
	}
	if (approver_pk_decode(
		json_string_value(json_object_get(token, "key")), pk) != 0) {
		snprintf(why, whylen, "\"key\" is not an approver public key");
		return AL_ERR_FORMAT;
	}
	if (b64_decode(json_string_value(json_object_get(token, "signature")),
		sig, sizeof(sig)) != 0) {
		snprintf(why, whylen,
		    "\"signature\" is not a base64 Ed25519 "
		    "signature");
		return AL_ERR_FORMAT;
	}
	if ((msg = json_signed_bytes(token, TOKEN_CONTEXT, "signature")) ==
	    NULL) {
		snprintf(why, whylen, "cannot encode the token");
		return AL_ERR_FORMAT;
	}
	rc = crypto_sign_verify_detached(
	    sig, (const unsigned char *)msg, strlen(msg), pk);
	free(msg);
	if (rc != 0) {
		snprintf(why, whylen,
		    "bad signature: the token was not signed "
		    "by its key or was changed after signing");
		return AL_ERR_CRYPTO;
	}
	return 0;
}
