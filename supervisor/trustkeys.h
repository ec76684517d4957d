/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * trustkeys: the host keys a command trusts, named on its command line
 * (airlock audit verify --key and --key-file, airlock approve --sign
 * --host-key): Ed25519 public keys, at most TRUSTED_MAX.
 */
#ifndef AIRLOCK_TRUSTKEYS_H
#define AIRLOCK_TRUSTKEYS_H

#include <stddef.h>

#define TRUSTED_MAX 64

struct trusted {
	unsigned char keys[TRUSTED_MAX][32];
	size_t n;
};

/*
 * Adds the keys of |path|: the 32-byte long-term seed itself (its
 * public key), or a list of public keys, one per line in hex (what
 * follows the key on its line, blank lines and lines starting with '#'
 * are ignored), as the host's trusted.pub keeps them.  0, or -1 said
 * (no key in it, a line that is not a key, too many keys).
 */
int trusted_load_file(const char *path, struct trusted *t);

/*
 * Adds |arg|: 64 hex digits, or a file as for trusted_load_file().
 * |opt| names the option in what is said.  0, or -1 said.
 */
int trusted_load_arg(const char *arg, const char *opt, struct trusted *t);

/* Whether |pk| is one of |t|'s keys. */
int trusted_has(const struct trusted *t, const unsigned char pk[32]);

#endif
