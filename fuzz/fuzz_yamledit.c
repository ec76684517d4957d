/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for policy/yamledit (airlock suggest's text editor).
 *
 * Input: YAML text.  If it parses, the edits airlock suggest makes are
 * tried on it (an item added to sandbox.readOnly, to the first tool's
 * network, a number set at sandbox.limits.memoryMb), and the invariants
 * are checked: a refused edit leaves the text byte for byte as it was; an
 * accepted one leaves text that parses again, in which the value is found
 * where it was put, and that is no shorter than before (edits only add,
 * or replace one scalar by a longer-or-equal "99999").
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "policy/yamledit.h"

static void
check_seq(struct yamledit *ye, const char *const *path, size_t npath,
    const char *item)
{
	char err[512], *before;
	const char *t;
	size_t blen, len;
	struct yamledit *again;
	int rc;

	t = yamledit_text(ye, &blen);
	if ((before = malloc(blen + 1)) == NULL)
		abort();
	memcpy(before, t, blen + 1);
	rc = yamledit_seq_add(
	    ye, path, npath, &item, 1, "why", err, sizeof(err));
	t = yamledit_text(ye, &len);
	if (rc <= 0) {
		if (len != blen || memcmp(t, before, len) != 0)
			abort(); /* refused or nothing to do: unchanged */
	} else {
		if (len <= blen)
			abort();
		if (yamledit_new(t, len, &again, err, sizeof(err)) != 0)
			abort();
		yamledit_free(again);
		/* Adding it again finds it there. */
		if (yamledit_seq_add(
			ye, path, npath, &item, 1, NULL, err, sizeof(err)) != 0)
			abort();
	}
	free(before);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ro[] = { "sandbox", "readOnly" };
	static const char *const net[] = { "tools", "[0]", "network" };
	static const char *const mem[] = { "sandbox", "limits", "memoryMb" };
	struct yamledit *ye;
	char err[512];
	const char *v;
	int rc;

	if (yamledit_new((const char *)data, size, &ye, err, sizeof(err)) != 0)
		return 0;
	check_seq(ye, ro, 2, "/opt/fuzz dir");
	check_seq(ye, net, 3, "fuzz.example:443");
	rc = yamledit_set_scalar(ye, mem, 3, "99999", "why", err, sizeof(err));
	if (rc > 0 &&
	    ((v = yamledit_get_scalar(ye, mem, 3)) == NULL ||
		strcmp(v, "99999") != 0))
		abort();
	yamledit_free(ye);
	return 0;
}
