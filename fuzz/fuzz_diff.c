/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for policy/diff.
 *
 * Input: either a patch alone, or BASE '\0' PATCH, or 0x01 CTX OLD '\0' NEW
 * for a round trip through a generated diff (see round_trip()).  The patch
 * is parsed; if it parses, every file is applied to BASE (or to the empty
 * text and a fixed ten-line text when there is no BASE), and the
 * invariants the broker relies on are checked: paths are relative and free
 * of "..", results are NUL-terminated and bounded by base + patch, failures
 * leave no buffer behind, and every message is terminated.
 *
 * Build (not part of the default build):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -Ibuild \
 *	fuzz/fuzz_diff.c policy/diff.c common/buf.c common/errors.c \
 *	common/log.c common/util.c common/sha256.c \
 *	$(pkg-config --cflags --libs libsodium jansson) -o fuzz/fuzz_diff
 *   ./fuzz/fuzz_diff -max_total_time=60 fuzz/corpus/diff
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "policy/diff.h"

static const char fixed[] = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10";

static void
check_path(const char *p)
{
	size_t n;

	if (p == NULL)
		return;
	n = strlen(p);
	if (n == 0 || p[0] == '/' || strstr(p, "//") != NULL ||
	    strcmp(p, "..") == 0 || strncmp(p, "../", 3) == 0 ||
	    strstr(p, "/../") != NULL ||
	    (n >= 3 && strcmp(p + n - 3, "/..") == 0) ||
	    strchr(p, '\\') != NULL || p[n - 1] == '/')
		abort();
}

static void
apply(const struct diff *d, size_t i, const char *base, size_t baselen,
    size_t patchlen)
{
	char err[256], *out = (char *)1;
	size_t outlen = 1;
	int rc;

	memset(err, 'X', sizeof(err));
	rc = diff_apply_file(d, i, base, baselen, &out, &outlen, err,
	    sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	if (rc != 0) {
		if (out != NULL || outlen != 0 || err[0] == '\0' ||
		    (rc != AL_ERR_CONFLICT && rc != AL_ERR_ALLOC))
			abort();
		return;
	}
	if (out == NULL || out[outlen] != '\0' ||
	    outlen > baselen + patchlen + 1 || err[0] != '\0')
		abort();
	if (diff_file_kind(d, i) == DIFF_DELETE && outlen != 0)
		abort();
	/* Touch every byte so that ASan sees the whole result. */
	if (outlen > 0 && memchr(out, '\0', outlen) == out + outlen)
		abort();
	free(out);
}

/* Splits s[0..n) into lines: starts in *ls (caller frees), count returned. */
static size_t
split(const char *s, size_t n, size_t **ls)
{
	size_t i, k = 0;

	*ls = malloc((n + 2) * sizeof(**ls));
	if (*ls == NULL)
		abort();
	for (i = 0; i < n; i++)
		if (i == 0 || s[i - 1] == '\n')
			(*ls)[k++] = i;
	(*ls)[k] = n;
	return k;
}

static void
put_line(char **p, char prefix, const char *s, size_t a, size_t b)
{
	*(*p)++ = prefix;
	memcpy(*p, s + a, b - a);
	*p += b - a;
	if (b == a || s[b - 1] != '\n') {
		static const char m[] = "\n\\ No newline at end of file\n";

		memcpy(*p, m, sizeof(m) - 1);
		*p += sizeof(m) - 1;
	}
}

/*
 * Round trip: input 0x01 CTX OLD '\0' NEW.  Writes the one-hunk unified
 * diff of OLD and NEW (common prefix and suffix lines, CTX lines of
 * context), and checks that it parses and applies to exactly NEW.
 */
static void
round_trip(const char *in, size_t size)
{
	const char *old, *new, *nul;
	size_t oldlen, newlen, *ol, *nl, m, n, pre = 0, suf = 0, cb, ca, i;
	size_t os, oc, ns, nc, outlen, cap;
	char *patch, *p, err[256], *out;
	struct diff *d;
	unsigned ctx;

	if (size < 2 || (nul = memchr(in + 2, '\0', size - 2)) == NULL)
		return;
	ctx = (unsigned char)in[1] % 4;
	old = in + 2;
	oldlen = (size_t)(nul - old);
	new = nul + 1;
	newlen = size - 2 - oldlen - 1;
	if (memchr(new, '\0', newlen) != NULL)
		return;
	m = split(old, oldlen, &ol);
	n = split(new, newlen, &nl);
	while (pre < m && pre < n && ol[pre + 1] - ol[pre] ==
	    nl[pre + 1] - nl[pre] && memcmp(old + ol[pre], new + nl[pre],
	    ol[pre + 1] - ol[pre]) == 0)
		pre++;
	while (suf < m - pre && suf < n - pre &&
	    ol[m - suf] - ol[m - suf - 1] == nl[n - suf] - nl[n - suf - 1] &&
	    memcmp(old + ol[m - suf - 1], new + nl[n - suf - 1],
	    ol[m - suf] - ol[m - suf - 1]) == 0)
		suf++;
	if (pre == m && pre == n)
		goto done;	/* equal */
	cb = pre < ctx ? pre : ctx;
	ca = suf < ctx ? suf : ctx;
	oc = cb + (m - suf - pre) + ca;
	nc = cb + (n - suf - pre) + ca;
	os = pre - cb + (oc > 0 ? 1 : 0);
	ns = pre - cb + (nc > 0 ? 1 : 0);
	cap = 64 + 2 * (oldlen + newlen) + 40 * (m + n);
	if ((patch = p = malloc(cap)) == NULL)
		abort();
	/* An empty side is /dev/null: a create or a delete. */
	p += snprintf(p, cap, "--- %s\n+++ %s\n@@ -%zu,%zu +%zu,%zu @@\n",
	    oldlen == 0 ? "/dev/null" : "a/f", newlen == 0 ? "/dev/null" :
	    "b/f", os, oc, ns, nc);
	for (i = pre - cb; i < pre; i++)
		put_line(&p, ' ', old, ol[i], ol[i + 1]);
	for (i = pre; i < m - suf; i++)
		put_line(&p, '-', old, ol[i], ol[i + 1]);
	for (i = pre; i < n - suf; i++)
		put_line(&p, '+', new, nl[i], nl[i + 1]);
	for (i = m - suf; i < m - suf + ca; i++)
		put_line(&p, ' ', old, ol[i], ol[i + 1]);
	if ((size_t)(p - patch) > cap)
		abort();
	if (diff_parse(patch, (size_t)(p - patch), &d, err, sizeof(err)) !=
	    0) {
		/* Only a limit or a NUL may refuse a well-formed diff. */
		if (p - patch <= DIFF_MAX_PATCH)
			abort();
		free(patch);
		goto done;
	}
	if (diff_file_kind(d, 0) != (oldlen == 0 ? DIFF_CREATE :
	    newlen == 0 ? DIFF_DELETE : DIFF_MODIFY))
		abort();
	if (diff_apply_file(d, 0, old, oldlen, &out, &outlen, err,
	    sizeof(err)) != 0 || outlen != newlen ||
	    memcmp(out, new, newlen) != 0)
		abort();
	free(out);
	diff_free(d);
	free(patch);
 done:
	free(ol);
	free(nl);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *base = NULL, *patch = text;
	size_t baselen = 0, patchlen = size, i;
	const uint8_t *nul;
	struct diff *d = NULL;
	char err[256];
	int rc;

	if (size > 0 && data[0] == 0x01) {
		round_trip(text, size);
		return 0;
	}
	if ((nul = memchr(data, '\0', size)) != NULL) {
		base = text;
		baselen = (size_t)(nul - data);
		patch = (const char *)nul + 1;
		patchlen = size - baselen - 1;
	}
	memset(err, 'X', sizeof(err));
	rc = diff_parse(patch, patchlen, &d, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	if (rc != 0) {
		if (d != NULL || err[0] == '\0')
			abort();
		return 0;
	}
	if (diff_nfiles(d) == 0 || diff_nfiles(d) > DIFF_MAX_FILES)
		abort();
	for (i = 0; i < diff_nfiles(d); i++) {
		check_path(diff_old_path(d, i));
		check_path(diff_new_path(d, i));
		if (diff_path(d, i) == NULL)
			abort();
		if (base != NULL)
			apply(d, i, base, baselen, patchlen);
		else {
			apply(d, i, NULL, 0, patchlen);
			apply(d, i, fixed, sizeof(fixed) - 1, patchlen);
		}
	}
	diff_free(d);
	return 0;
}
