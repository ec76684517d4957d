/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* reqsig: the session's signature over a pending approval (reqsig.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "broker/audit.h"
#include "broker/audit_verify.h"
#include "broker/reqsig.h"
#include "common/approver_token.h"

char *
reqsig_message(json_t *approval)
{
	return json_signed_bytes(approval, REQSIG_CONTEXT, REQSIG_MEMBER);
}

/* |b64| as exactly one Ed25519 signature.  0, or -1. */
static int
parse_sig(const char *b64, unsigned char sig[crypto_sign_BYTES])
{
	size_t n;

	if (b64 == NULL ||
	    sodium_base642bin(sig, crypto_sign_BYTES, b64, strlen(b64), NULL,
		&n, NULL, sodium_base64_VARIANT_ORIGINAL) != 0 ||
	    n != crypto_sign_BYTES)
		return -1;
	return 0;
}

int
reqsig_verify(json_t *approval, const unsigned char (*keys)[32], size_t nkeys,
    char host_hex[65], char *why, size_t whylen)
{
	json_t *att = json_object_get(approval, REQSIG_MEMBER);
	const char *session, *skhex, *hhex;
	unsigned char spk[32], hpk[32], cert[crypto_sign_BYTES],
	    sig[crypto_sign_BYTES];
	char cmsg[512], *msg;
	size_t i;
	int ok;

	host_hex[0] = '\0';
	if (!json_is_object(att)) {
		snprintf(why, whylen,
		    "it carries no attestation: the session did not sign it");
		return 0;
	}
	session = json_string_value(json_object_get(approval, "session"));
	skhex = json_string_value(json_object_get(att, "sessionKey"));
	hhex = json_string_value(json_object_get(att, "hostKey"));
	if (session == NULL || skhex == NULL || hhex == NULL ||
	    audit_parse_pubkey(skhex, spk) != 0 ||
	    audit_parse_pubkey(hhex, hpk) != 0 ||
	    parse_sig(json_string_value(json_object_get(att, "cert")), cert) !=
		0 ||
	    parse_sig(json_string_value(json_object_get(att, "signature")),
		sig) != 0) {
		snprintf(why, whylen, "its attestation is malformed");
		return 0;
	}
	for (i = 0, ok = 0; i < nkeys && !ok; i++)
		ok = sodium_memcmp(keys[i], hpk, 32) == 0;
	if (!ok) {
		snprintf(why, whylen,
		    "it is attested by host key %.16s..., which is not one "
		    "you trust",
		    hhex);
		return 0;
	}
	/* The certificate names the key in lowercase hex, as written. */
	sodium_bin2hex(cmsg, AUDIT_PUBKEY_HEX_LEN + 1, spk, sizeof(spk));
	if (strcmp(cmsg, skhex) != 0 ||
	    audit_cert_message(session, skhex, cmsg, sizeof(cmsg)) != 0 ||
	    crypto_sign_verify_detached(
		cert, (const unsigned char *)cmsg, strlen(cmsg), hpk) != 0) {
		snprintf(why, whylen,
		    "the host key's certificate of its session key does not "
		    "verify for session %s",
		    session);
		return 0;
	}
	if ((msg = reqsig_message(approval)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return 0;
	}
	ok = crypto_sign_verify_detached(
		 sig, (const unsigned char *)msg, strlen(msg), spk) == 0;
	free(msg);
	if (!ok) {
		snprintf(why, whylen,
		    "the session's signature does not verify: it was changed "
		    "after the session signed it");
		return 0;
	}
	snprintf(host_hex, 65, "%s", hhex);
	return 1;
}
