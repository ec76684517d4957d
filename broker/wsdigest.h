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

/*
 * The base digest of a set of files for apply_patch's expectedBaseSha:
 * for one file, the SHA-256 of its content (what read_file reports); for
 * several, SHA-256 over "PATH\0SHA256HEX\n" for each, sorted by path,
 * with an absent file's content digest spelled "-".
 * contents[i] may be NULL for an absent file.
 */
void	wsdigest_files(const char *const *paths, const char *const *contents,
	    const size_t *lens, size_t n, char hex[SHA256_HEX_LEN + 1]);

#endif
