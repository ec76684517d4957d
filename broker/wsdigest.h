/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wsdigest: the digest of a workspace's content, to bind gate results to
 * exactly what they ran against.
 *
 * SHA-256 over every entry beneath the root, in byte order of their
 * relative paths, except .git: for each, its path, its kind, and its
 * content (a symlink's target text; symlinks are never followed).  A
 * regular file's content goes extent by extent (data with its offset and
 * length, holes as their offset and length only), so a sparse file costs
 * what it stores, not its apparent size.
 */
#ifndef AIRLOCK_WSDIGEST_H
#define AIRLOCK_WSDIGEST_H

#include "common/util.h"

#define WSDIGEST_MAX_ENTRIES	200000

/*
 * Computes the digest of the tree beneath the directory |rootfd| into
 * |hex|.  Returns 0, AL_ERR_LIMIT past WSDIGEST_MAX_ENTRIES entries, or
 * AL_ERR_SYSTEM.
 */
int	wsdigest_compute(int rootfd, char hex[SHA256_HEX_LEN + 1]);

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
