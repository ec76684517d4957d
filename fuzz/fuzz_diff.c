/*
 * libFuzzer target for policy/diff.
 *
 * Input: either a patch alone, or BASE '\0' PATCH.  The patch is parsed;
 * if it parses, every file is applied to BASE (or to the empty text and a
 * fixed ten-line text when there is no BASE), and the invariants the
 * broker relies on are checked: paths are relative and free of "..",
 * results are NUL-terminated and bounded by base + patch, failures leave
 * no buffer behind, and every message is terminated.
 *
 * Build (not part of the default build):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -Ibuild \
 *	fuzz/fuzz_diff.c policy/diff.c common/buf.c common/errors.c \
 *	common/log.c common/util.c \
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *base = NULL, *patch = text;
	size_t baselen = 0, patchlen = size, i;
	const uint8_t *nul;
	struct diff *d = NULL;
	char err[256];
	int rc;

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
