/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * jobtext: a background job's new output and its line rules (pure).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "broker/jobtext.h"
#include "common/util.h"
#include "policy/manifest.h"

char *
jobtext_take(struct jobtext_cursor *c, const char *out, size_t outlen,
    const char *err, size_t errlen, size_t *n)
{
	size_t a = outlen > c->out ? outlen - c->out : 0;
	size_t b = errlen > c->err ? errlen - c->err : 0;
	char *s = xcalloc(1, a + b + 1);

	if (a > 0)
		memcpy(s, out + c->out, a);
	if (b > 0)
		memcpy(s + a, err + c->err, b);
	if (outlen > c->out)
		c->out = outlen;
	if (errlen > c->err)
		c->err = errlen;
	*n = a + b;
	return s;
}

/* Matches data[0..len) (not NUL-terminated) against |re|. */
static int
line_matches(const regex_t *re, const char *data, size_t len)
{
	char stack[1024], *line = stack;
	int rc;

	if (len >= sizeof(stack))
		line = xcalloc(1, len + 1);
	memcpy(line, data, len);
	line[len] = '\0';
	rc = regexec(re, line, 0, NULL, 0);
	if (line != stack)
		free(line);
	return rc == 0;
}

size_t
jobtext_scan_lines(struct jobtext_scan *s, const char *data, size_t len,
    int final, regex_t *const *res, size_t nres, jobtext_match_fn fn, void *arg)
{
	size_t matches = 0, i;

	while (s->done < len) {
		const char *start = data + s->done;
		const char *nl = memchr(start, '\n', len - s->done);
		size_t n;

		if (nl == NULL && !final)
			break;
		n = nl != NULL ? (size_t)(nl - start) : len - s->done;
		s->done += n + (nl != NULL);
		if (n > 0 && start[n - 1] == '\r')
			n--;
		for (i = 0; i < nres; i++) {
			if (res[i] == NULL || !line_matches(res[i], start, n))
				continue;
			fn(start, n, i, arg);
			matches++;
			break;
		}
	}
	return matches;
}

int
jobtext_exit_matches(int mode, int code)
{
	switch (mode) {
	case JOB_EXIT_ANY:
		return 1;
	case JOB_EXIT_NONZERO:
		return code != 0;
	default:
		return 0;
	}
}
