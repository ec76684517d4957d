/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * jobtext: pure logic over a background job's output (broker/jobs.h).
 *
 * A job's stdout and stderr grow while it runs.  A cursor remembers how
 * much of each the agent has been given, so a read returns only what is
 * new; a line scanner feeds each complete line, once, to the job's event
 * rules.  No I/O, no global state, no allocation but the returned text.
 */
#ifndef AIRLOCK_JOBTEXT_H
#define AIRLOCK_JOBTEXT_H

#include <regex.h>
#include <stddef.h>

/* How much of each stream the agent has read. */
struct jobtext_cursor {
	size_t out;
	size_t err;
};

/*
 * The bytes of out[0..outlen) and err[0..errlen) past |c| (stdout's new
 * bytes, then stderr's), as a new NUL-terminated string of *n bytes;
 * advances |c| to the ends.  A stream shorter than its cursor (never, for
 * a growing buffer) counts as nothing new.
 */
char *jobtext_take(struct jobtext_cursor *c, const char *out, size_t outlen,
    const char *err, size_t errlen, size_t *n);

/* Where a line scanner is in one stream. */
struct jobtext_scan {
	size_t done; /* bytes whose lines were scanned */
};

/* Called for each line (no newline) matching rule |rule|. */
typedef void (*jobtext_match_fn)(
    const char *line, size_t len, size_t rule, void *arg);

/*
 * Scans the complete lines of data[s->done..len) (with |final|, the last
 * line without a newline too) against the compiled rules res[0..nres)
 * (NULL entries are skipped); calls |fn| for each (line, rule) match, the
 * first matching rule of a line only.  Advances s->done past the scanned
 * lines.  Returns the number of matches.
 */
size_t jobtext_scan_lines(struct jobtext_scan *s, const char *data, size_t len,
    int final, regex_t *const *res, size_t nres, jobtext_match_fn fn,
    void *arg);

/*
 * Does an exit rule |mode| (JOB_EXIT_ANY, JOB_EXIT_NONZERO of
 * policy/manifest.h) match a run that ended with exit status |code|
 * (128 + signal for a killed run)?  Returns 1 or 0.
 */
int jobtext_exit_matches(int mode, int code);

#endif
