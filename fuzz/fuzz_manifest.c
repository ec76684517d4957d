/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for the manifest loader (policy/manifest.c, libyaml).
 *
 * Invariants checked, beyond "does not crash":
 *   - a refused manifest leaves *out NULL and a terminated message that
 *     names the file;
 *   - a manifest that loads prints canonically, the canonical text loads
 *     again, and printing that gives the same text (a fixed point).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "policy/manifest.h"

/* Returns the canonical text of |m| (caller frees). */
static char *
canonical(const struct manifest *m, size_t *len)
{
	char *text = NULL;
	FILE *fp;

	if ((fp = open_memstream(&text, len)) == NULL)
		abort();
	if (manifest_print_canonical(m, fp) != 0)
		abort();
	if (fclose(fp) != 0)
		abort();
	return text;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest *m = (struct manifest *)1, *m2 = NULL;
	char err[512], *c1, *c2;
	size_t l1, l2;
	int rc;

	memset(err, 'X', sizeof(err));
	rc = manifest_load_buffer(
	    "fuzz.yaml", (const char *)data, size, &m, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	if (rc != 0) {
		if (m != NULL || rc >= 0 || strncmp(err, "fuzz.yaml", 9) != 0)
			abort();
		return 0;
	}
	if (m == NULL)
		abort();
	c1 = canonical(m, &l1);
	if (manifest_load_buffer(
		"canonical.yaml", c1, l1, &m2, err, sizeof(err)) != 0) {
		fprintf(
		    stderr, "canonical form does not load: %s\n%s\n", err, c1);
		abort();
	}
	c2 = canonical(m2, &l2);
	if (l1 != l2 || memcmp(c1, c2, l1) != 0) {
		fprintf(stderr,
		    "canonical form is not a fixed point:\n"
		    "--- first\n%s--- second\n%s",
		    c1, c2);
		abort();
	}
	free(c1);
	free(c2);
	manifest_free(m2);
	manifest_free(m);
	return 0;
}
