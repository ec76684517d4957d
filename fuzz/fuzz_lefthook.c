/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for policy/lefthook.c: the input's first byte picks
 * the format (yml, json, jsonc, toml), the rest is a lefthook config's
 * text (a file of the working tree, which a reviewed change may have
 * written).
 *
 * Invariants checked, beyond "does not crash":
 *   - 0, or -1 with a message;
 *   - every value handed over is a string shorter than the input.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/lefthook.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static size_t limit;

static int
check_value(void *arg, enum lefthook_key key, const char *value)
{
	(void)arg;
	if ((key != LEFTHOOK_EXTENDS && key != LEFTHOOK_SOURCE_DIR &&
		key != LEFTHOOK_RC) ||
	    strlen(value) > limit)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const exts[] = { "yml", "json", "jsonc", "toml" };
	char err[512];
	int rc;

	if (size < 1)
		return 0;
	limit = size;
	err[0] = '\0';
	rc = lefthook_paths((const char *)data + 1, size - 1, exts[data[0] % 4],
	    check_value, NULL, err, sizeof(err));
	if (rc != 0 && (rc != -1 || err[0] == '\0'))
		abort();
	return 0;
}
