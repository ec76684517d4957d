/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * excerpt: what of a long text reaches the model.
 *
 * Pure functions over bytes: no I/O, no global state.  A command's full
 * output is kept as an artifact elsewhere; these decide which lines go
 * inline, within a cap, and say in ONE marker line how much was cut and
 * how to read the rest.  Every result is valid UTF-8 (invalid input bytes
 * become U+FFFD) and at most |cap| bytes long, so at most |cap|
 * characters.
 */
#ifndef AIRLOCK_EXCERPT_H
#define AIRLOCK_EXCERPT_H

#include <stddef.h>

/* Lines kept around each line that matches a failure pattern. */
#define EXCERPT_CONTEXT 2

/* The smallest cap an excerpt honours (a smaller one is raised to it). */
#define EXCERPT_CAP_MIN 1000

/*
 * The failure patterns used when the manifest names none: case-insensitive
 * substrings ("error", "fail", "panic", "assert", "traceback",
 * "exception").  NULL-terminated.
 */
extern const char *const excerpt_default_patterns[];

struct excerpt_opts {
	size_t cap; /* bytes of the result, markers included */
	int failed; /* 1: keep lines matching |patterns| */
	const char *const *patterns; /* NULL-terminated; NULL: defaults */
	size_t context; /* lines around a match */
	int head_only; /* 1: the head and the marker, no tail */
	size_t first_line; /* number of data's first line; 0 = 1 */
	const char *uri; /* where the whole text is, or NULL */
	const char *how; /* how to read the rest (borrowed), or NULL */
};

struct excerpt_info {
	size_t bytes; /* of the input */
	size_t lines; /* of the input; a last line without \n counts */
	int truncated; /* 1: something was cut */
	size_t matches; /* failure-pattern matches kept (failed only) */
};

/*
 * The excerpt of data[0..len) under |o| (see above): the whole text when
 * it fits; else its head, the lines matching a failure pattern with
 * |context| lines around them (when o->failed; each kept region starts
 * with a label line giving its line numbers) and its tail, with one marker
 * line after the head naming what was cut, o->uri and o->how.  Lines too
 * long to show are cut and end with " [...]".  Returns a new string
 * (caller frees); fills *info if not NULL.  Never fails (out of memory is
 * fatal).
 */
char *excerpt_make(const char *data, size_t len, const struct excerpt_opts *o,
    struct excerpt_info *info);

/*
 * The lines matching |pattern| (a fixed string, case-insensitive) with
 * |context| lines around each, as "N:line" (a match) or "N-line"
 * (context), groups separated by "--"; line numbers count from
 * o->first_line.  At most o->cap bytes: when more matched, a last marker
 * line says how many matches were left out and names o->uri and o->how.
 * o->failed, o->patterns and o->head_only are ignored.  Returns a new
 * string (caller frees); *info->matches is the number of matching lines.
 */
char *excerpt_grep(const char *data, size_t len, const char *pattern,
    const struct excerpt_opts *o, struct excerpt_info *info);

/*
 * Finds lines [start, end] (1-based, inclusive; end 0 or past the last
 * line: to the end) of data[0..len).  Returns 0 with *off and *n set to
 * the byte range, or -1 if start is 0, past the last line, or after end.
 */
int excerpt_lines(const char *data, size_t len, size_t start, size_t end,
    size_t *off, size_t *n);

/* The number of lines in data[0..len) (a last line without \n counts). */
size_t excerpt_count_lines(const char *data, size_t len);

#endif
