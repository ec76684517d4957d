/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for policy/githooks.c's reading of git's config: the
 * input is the text of a repository's .git/config (a file a tracked
 * config the repository includes can be, which a run may have written
 * before).
 *
 * Invariants checked, beyond "does not crash":
 *   - at most GIT_HOOKS_MAX paths, or an error with a message;
 *   - each path is relative to the workspace: no leading '/', no empty,
 *     "." or ".." component;
 *   - each path is covered by git_hooks_cover(), and so is a file
 *     beneath it.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/githooks.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct git_hooks h;
	char err[512], beneath[4200];
	const char *d, *c;
	size_t i, n;

	err[0] = '\0';
	if (git_hooks_parse((const char *)data, size, "/nonexistent-ws/sub",
	    "/nonexistent-ws", &h, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		return 0;
	}
	if (h.n > GIT_HOOKS_MAX)
		abort();
	for (i = 0; i < h.n; i++) {
		d = h.dir[i];
		if (d[0] == '/')
			abort();
		for (c = d; d[0] != '\0'; c += n + (c[n] == '/')) {
			n = strcspn(c, "/");
			if (n == 0 || (n == 1 && c[0] == '.') ||
			    (n == 2 && c[0] == '.' && c[1] == '.'))
				abort();
			if (c[n] == '\0')
				break;
		}
		if (d[0] != '\0' && !git_hooks_cover(&h, d))
			abort();
		snprintf(beneath, sizeof(beneath), "%s/x", d);
		if (d[0] != '\0' && !git_hooks_cover(&h, beneath))
			abort();
	}
	git_hooks_free(&h);
	return 0;
}
