/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * reqsig: a session's signature over a pending approval as it hands it
 * out ("pending" on the control socket, hence airlock pending --json;
 * the notify hook's payload), so that an approver who gets the request
 * by a channel anyone may edit (chat, a ticket, a shared folder) can
 * check that all of it is what the session sent: the evidence the
 * digest does not bind (the gates' results, the agent's reason, what
 * changed) as much as the action.
 *
 * The approval object carries
 *   "attestation": {"sessionKey": HEX, "hostKey": HEX, "cert": B64,
 *                   "signature": B64}
 * "signature" is the session key's Ed25519 signature (the key that signs
 * the session's audit log) over REQSIG_CONTEXT followed by the approval
 * without "attestation" as canonical JSON (json_signed_bytes());
 * "cert" is the host key's certificate of the session key for this
 * session (audit_cert_message()), as in the log's session_start.  The
 * approver trusts a host key (its audit.pub), not a session.
 */
#ifndef AIRLOCK_REQSIG_H
#define AIRLOCK_REQSIG_H

#include <stddef.h>

#include <jansson.h>

#define REQSIG_CONTEXT "airlock-approval-request-v1\n"
#define REQSIG_MEMBER "attestation"

/*
 * The bytes the session signs for |approval| (its REQSIG_MEMBER left
 * out): a NUL-terminated string (malloc'd), or NULL.
 */
char *reqsig_message(json_t *approval);

/*
 * Checks |approval|'s attestation: its host key is one of |keys|
 * (nkeys of them), the host key certifies the session key for the
 * approval's "session", and the session key signed the approval as it
 * is.  Returns 1 with the host key in |host_hex|, or 0 with |why| set
 * (none, malformed, an untrusted host key, a certificate or a signature
 * that does not verify).
 */
int reqsig_verify(json_t *approval, const unsigned char (*keys)[32],
    size_t nkeys, char host_hex[65], char *why, size_t whylen);

#endif
