/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * manifest_sig: manifests signed by a team key, and refused unsigned
 * where a host says so.
 *
 * A host that wants only signed manifests lists the team's public keys
 * (airlock-ed25519:BASE64, as "airlock approver keygen" writes them; one
 * per line, "#" comments) in the trusted-keys file:
 * $AIRLOCK_MANIFEST_KEYS if set, else /etc/airlock/manifest-keys.  When
 * that file exists, a manifest FILE is loaded only with FILE.sig, one line
 *   airlock-manifest-sig-v1 PUBLIC-KEY BASE64-SIGNATURE
 * whose key is listed and whose Ed25519 signature covers
 * "airlock-manifest-v1\n" followed by exactly the bytes that are parsed
 * (read once).  The built-in default manifest is part of the binary and
 * needs no signature.  Without the file nothing changes; a symbolic link
 * to nothing in its place (or in place of a directory above it) is not
 * "without": nothing loads; nor is a file $AIRLOCK_MANIFEST_KEYS names
 * and that is not there.  The file must be root's or the caller's and
 * writable by no one else.
 */
#ifndef AIRLOCK_MANIFEST_SIG_H
#define AIRLOCK_MANIFEST_SIG_H

#include <stddef.h>

#include "common/paths.h"
#include "policy/manifest.h"

#define MANIFEST_KEYS_DEFAULT PATHS_CONFIG_DEFAULT "/manifest-keys"

/*
 * Writes the trusted-keys file's path: $AIRLOCK_MANIFEST_KEYS as it is,
 * or the default.  Returns 1 when the variable named it (then the file
 * must exist, and the path be absolute), else 0.
 */
int manifest_sig_keys_path(char *out, size_t outlen);

/*
 * manifest_load(), requiring a trusted signature when the trusted-keys
 * file exists.  Returns 0 with *out set, or a negative code with |err|
 * set: AL_ERR_CRYPTO for a missing, malformed, untrusted or
 * non-matching signature, AL_ERR_FORMAT for an unreadable keys file.
 */
int manifest_load_verified(const char *path, struct manifest **out, char *err,
    size_t errlen) __attribute__((warn_unused_result));

/*
 * Signs the manifest at |path| with |sk|: writes PATH.sig (replacing
 * it).  Returns 0, or an error code with |err| set.
 */
int manifest_sign(
    const char *path, const unsigned char sk[64], char *err, size_t errlen);

#endif
