/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "broker/redact.h"
#include "broker/wsdigest.h"
#include "broker/wsindex.h"
#include "common/errors.h"
#include "common/util.h"

int
wsdigest_compute(int rootfd, char hex[SHA256_HEX_LEN + 1], char *err,
    size_t errlen)
{
	struct wsindex	*x = wsindex_new();
	int		 rc;

	rc = wsindex_refresh(x, rootfd, hex, err, errlen);
	wsindex_free(x);
	return rc;
}

struct file_entry {
	const char	*path;
	char		 sha[SHA256_HEX_LEN + 1];
};

static int
cmp_entries(const void *a, const void *b)
{
	return strcmp(((const struct file_entry *)a)->path,
	    ((const struct file_entry *)b)->path);
}

void
wsdigest_content(const struct redact *r, const unsigned char *key,
    const char *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	unsigned char md[crypto_generichash_BYTES];

	if (r == NULL || redact_count(r) == 0 ||
	    !redact_contains(r, data, len)) {
		sha256_hex(data, len, hex);
		return;
	}
	crypto_generichash(md, sizeof(md), (const unsigned char *)data, len,
	    key, WSDIGEST_KEY_LEN);
	sodium_bin2hex(hex, SHA256_HEX_LEN + 1, md, sizeof(md));
}

void
wsdigest_files(const struct redact *r, const unsigned char *key,
    const char *const *paths, const char *const *contents,
    const size_t *lens, size_t n, char hex[SHA256_HEX_LEN + 1])
{
	struct file_entry		*e;
	crypto_hash_sha256_state	 st;
	unsigned char			 md[crypto_hash_sha256_BYTES];
	size_t				 i;

	if (n == 1) {
		if (contents[0] == NULL)
			sha256_hex("", 0, hex);
		else
			wsdigest_content(r, key, contents[0], lens[0], hex);
		return;
	}
	e = xcalloc(n, sizeof(*e));
	for (i = 0; i < n; i++) {
		e[i].path = paths[i];
		if (contents[i] == NULL)
			snprintf(e[i].sha, sizeof(e[i].sha), "-");
		else
			wsdigest_content(r, key, contents[i], lens[i],
			    e[i].sha);
	}
	qsort(e, n, sizeof(*e), cmp_entries);
	crypto_hash_sha256_init(&st);
	for (i = 0; i < n; i++) {
		crypto_hash_sha256_update(&st, (const unsigned char *)e[i].path,
		    strlen(e[i].path) + 1);
		crypto_hash_sha256_update(&st, (const unsigned char *)e[i].sha,
		    strlen(e[i].sha));
		crypto_hash_sha256_update(&st, (const unsigned char *)"\n", 1);
	}
	crypto_hash_sha256_final(&st, md);
	sodium_bin2hex(hex, SHA256_HEX_LEN + 1, md, sizeof(md));
	free(e);
}
