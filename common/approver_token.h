/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * approver_token: Ed25519 approver keys and signed decision tokens.
 *
 * An approver holds a secret key on their own machine ("airlock approver
 * keygen"); a manifest pins the public keys that may decide
 * (approvals.keys) and the ones refused even if pinned
 * (approvals.revokedKeys).  A public key is written as
 *   airlock-ed25519:BASE64      (32 bytes, standard base64 with padding)
 * and a secret key file holds one line
 *   airlock-ed25519-secret:BASE64   (the 64-byte libsodium secret key)
 *
 * A decision token is one JSON object:
 *   {"type":"airlock-decision","version":1,"session":S,"approval":ID,
 *    "digest":D,"decision":"approve"|"deny","text":T,"expires":UNIX_S,
 *    "key":PUBLIC_KEY,"signature":BASE64}
 * The signature is Ed25519 over "airlock-decision-v1\n" followed by the
 * canonical JSON (compact, sorted keys, ASCII) of every member except
 * "signature".  Binding to the session, approval id and digest is
 * checked by the broker (broker/approval.c), which knows the pending
 * action; this module checks the shape and the signature only.
 *
 * Every function is pure except approver_keygen() and
 * approver_secret_load(), which touch the named files.
 */
#ifndef AIRLOCK_APPROVER_TOKEN_H
#define AIRLOCK_APPROVER_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define APPROVER_PK_PREFIX "airlock-ed25519:"
#define APPROVER_SK_PREFIX "airlock-ed25519-secret:"
/* Room for a public key in text, NUL included. */
#define APPROVER_PK_TEXT (sizeof(APPROVER_PK_PREFIX) + 48)
/* The most a token may weigh on the wire. */
#define APPROVER_TOKEN_MAX (16 * 1024)

/* Decodes a public key's text.  Returns 0 or AL_ERR_FORMAT. */
int approver_pk_decode(const char *text, unsigned char pk[32]);

/* Writes a public key's text into |out|. */
void approver_pk_encode(const unsigned char pk[32], char out[APPROVER_PK_TEXT]);

/*
 * Creates a key pair: the secret key in |path| (created 0600, never
 * overwritten) and the public key in |path|.pub.  Writes the public
 * key's text into |pub|.  Returns 0, or an error code with |err| set;
 * on error nothing is left behind.
 */
int approver_keygen(
    const char *path, char pub[APPROVER_PK_TEXT], char *err, size_t errlen);

/*
 * Reads a secret key file (a regular file, not readable by group or
 * others).  Returns 0 or an error code with |err| set.
 */
int approver_secret_load(
    const char *path, unsigned char sk[64], char *err, size_t errlen);

/*
 * Signs a decision.  The fields are copied; |text| may be NULL.
 * Returns a new token (the caller owns it) or NULL on a bad argument.
 */
json_t *approver_token_sign(const char *session, const char *approval,
    const char *digest, int approve, const char *text, int64_t expires,
    const unsigned char sk[64]);

/*
 * Checks a token's shape and signature ("expires" must be a time in
 * seconds whose thousandfold fits int64_t).  On success returns 0 and
 * writes the signing key into |pk|.  Otherwise returns AL_ERR_FORMAT
 * (malformed) or AL_ERR_CRYPTO (the signature does not verify), with
 * |why| set.  The token is borrowed.
 */
int approver_token_check(
    json_t *token, unsigned char pk[32], char *why, size_t whylen);

/*
 * What a signature over a JSON object covers: |context| followed by the
 * canonical JSON (compact, keys sorted, ASCII) of |t| without its member
 * |omit| (the signature's own).  A NUL-terminated string (malloc'd), or
 * NULL.  Decision tokens (|context| "airlock-decision-v1\n") and pending
 * approvals (broker/reqsig.h) are signed so.
 */
char *json_signed_bytes(json_t *t, const char *context, const char *omit);

#endif
