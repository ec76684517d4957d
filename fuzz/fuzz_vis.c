/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for common/vis.c: escaping agent bytes for the
 * terminal.
 *
 * The first input byte picks the flags; the rest is the text.
 *
 * Invariants checked, beyond "does not crash":
 *   - the output holds no C0 control (but a kept newline or tab), no DEL,
 *     no byte that is not part of valid UTF-8, and no C1, bidi or
 *     zero-width character, and no run of more than 32 blanks (spaces,
 *     kept tabs): escaping it again with the same flags and
 *     VIS_NOSLASH changes nothing;
 *   - it is at most VIS_MAX_EXPANSION times the input;
 *   - vis_buf with exactly the needed size succeeds and agrees, one byte
 *     less is refused (AL_ERR_LIMIT, "") and never truncated;
 *   - vis_fit never exceeds its budget and its prefix escapes within it.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/vis.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data + 1;
	size_t len, outlen, again_len, fit, n, blanks = 0;
	char *out, *again, *exact;
	int flags;

	if (size < 1)
		return 0;
	flags = data[0] & (VIS_KEEP_NL | VIS_KEEP_TAB);
	len = size - 1;
	if ((out = vis_dup(in, len, flags)) == NULL)
		abort();
	outlen = strlen(out);
	if (outlen > len * VIS_MAX_EXPANSION)
		abort();
	for (n = 0; n < outlen; n++) {
		unsigned char c = (unsigned char)out[n];

		if ((c < 0x20 && !(c == '\n' && (flags & VIS_KEEP_NL)) &&
			!(c == '\t' && (flags & VIS_KEEP_TAB))) ||
		    c == 0x7f)
			abort();
		blanks = c == ' ' || (c == '\t' && (flags & VIS_KEEP_TAB))
		    ? blanks + 1
		    : 0;
		if (blanks > 32)
			abort();
	}
	/* Already safe: a second pass (backslashes left alone) is a no-op. */
	if ((again = vis_dup(out, outlen, flags | VIS_NOSLASH)) == NULL)
		abort();
	if (strcmp(again, out) != 0)
		abort();
	free(again);

	if ((exact = malloc(outlen + 1)) == NULL)
		abort();
	if (vis_buf(exact, outlen + 1, in, len, flags, &again_len) != 0 ||
	    again_len != outlen || memcmp(exact, out, outlen + 1) != 0)
		abort();
	if (outlen > 0 &&
	    (vis_buf(exact, outlen, in, len, flags, &again_len) !=
		    AL_ERR_LIMIT ||
		exact[0] != '\0' || again_len != outlen))
		abort();
	free(exact);

	fit = vis_fit(in, len, flags, (size_t)data[0]);
	if (fit > len)
		abort();
	/* The cut, escaped as in the whole: a prefix of the whole's escape. */
	again = vis_dup_fit(in, len, flags, (size_t)data[0], &n);
	if (again == NULL || n != fit)
		abort();
	if (strlen(again) > data[0] || strncmp(again, out, strlen(again)) != 0)
		abort();
	free(again);
	free(out);
	return 0;
}
