/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wsdigest: the digest of a workspace's content, to bind gate results to
 * exactly what they ran against (defined in broker/wsindex.h, which
 * keeps it up to date incrementally), and the base digest of a set of
 * files for apply_patch.
 */
#ifndef AIRLOCK_WSDIGEST_H
#define AIRLOCK_WSDIGEST_H

#include "common/util.h"

/*
 * Computes the digest of the tree beneath the directory |rootfd| into
 * |hex| from scratch (wsindex_refresh() on an empty index).  Returns 0 or
 * wsindex_refresh()'s code, with a message in |err|.
 */
int	wsdigest_compute(int rootfd, char hex[SHA256_HEX_LEN + 1], char *err,
	    size_t errlen);

/* Bytes of the key of wsdigest_content(): one random key per session. */
#define WSDIGEST_KEY_LEN	32

struct redact;

/*
 * The digest of one file's content data[0..len) as the agent is told it,
 * as hex into |hex|: its SHA-256; but when the redactor |r| (NULL for
 * none) finds a secret in it, BLAKE2b-256 keyed with key[0..
 * WSDIGEST_KEY_LEN).  The agent is shown such a file redacted and the
 * rest of it in the clear: a plain SHA-256 would test a guessed secret
 * offline.
 */
void	wsdigest_content(const struct redact *r, const unsigned char *key,
	    const char *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

/*
 * The base digest of a set of files for apply_patch's expectedBaseSha:
 * for one file, the digest of its content (wsdigest_content(), what
 * read_file reports); for several, SHA-256 over "PATH\0DIGESTHEX\n" for
 * each, sorted by path, with an absent file's content digest spelled
 * "-".  contents[i] may be NULL for an absent file.
 */
void	wsdigest_files(const struct redact *r, const unsigned char *key,
	    const char *const *paths, const char *const *contents,
	    const size_t *lens, size_t n, char hex[SHA256_HEX_LEN + 1]);

#endif
