/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * hostkey: the long-term audit host key and its public files.
 *
 * The host key is a 32-byte Ed25519 seed at STATE/keys/audit.key (mode
 * 0600 in a 0700 directory, STATE as in session.h), created on first
 * use.  Beside it: audit.pub (the current public key, hex, one line) and
 * trusted.pub (every public key this host has used, one per line with
 * the date it was added: what a central verifier keeps).  The host key
 * certifies each session's key (broker/audit.h, audit_open_certified());
 * it is never bound into a sandbox (the state directory is not).
 *
 * Every function returns 0 or a negative AL_ERR_* code with a message in
 * err[0..errlen).
 */
#ifndef AIRLOCK_HOSTKEY_H
#define AIRLOCK_HOSTKEY_H

#include <stddef.h>

#include "broker/audit.h"

/* Writes the host key's path to out[0..outlen).  0 or AL_ERR_LIMIT. */
int hostkey_path(char *out, size_t outlen);

/*
 * Creates the host key if absent (and its directory), makes sure
 * audit.pub and trusted.pub name it, and writes its public key (hex) to
 * |hex|.  AL_ERR_DENIED if the key file is not private to the euid.
 */
int hostkey_ensure(
    char hex[AUDIT_PUBKEY_HEX_LEN + 1], char *err, size_t errlen);

/*
 * Replaces the host key with a fresh one: the old secret is removed,
 * its public key stays in trusted.pub, the new one is added to it and
 * written to audit.pub.  |oldhex| and |newhex| receive both public keys.
 * AL_ERR_NOT_FOUND if there is no host key to rotate.
 */
int hostkey_rotate(char oldhex[AUDIT_PUBKEY_HEX_LEN + 1],
    char newhex[AUDIT_PUBKEY_HEX_LEN + 1], char *err, size_t errlen);

/*
 * Reads up to |max| public keys of trusted.pub (32 bytes each) into
 * |keys|; lines that are not a key are skipped.  Returns how many: 0
 * when there is no such file.
 */
#define HOSTKEY_MAX_TRUSTED 64
size_t hostkey_trusted(unsigned char keys[][32], size_t max);

#endif
