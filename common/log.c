/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "common/vis.h"

static const char *log_progname = "airlock";
static int log_verbosity;
static size_t log_width; /* 0: not folded (no terminal) */
static int log_width_taken;

void
log_init(const char *progname, int verbosity)
{
	log_progname = progname;
	log_verbosity = verbosity;
	log_width = term_columns_known(STDERR_FILENO);
	log_width_taken = 1;
}

/*
 * Messages quote tool names, file lines, results, paths and errors that
 * the agent can shape, and they go to a person's terminal: the formatted
 * message is escaped (common/vis.h) as a whole, and the line is folded
 * to the terminal's width (vis_fold()) before it is written; where no
 * terminal is found (term_columns_known(): a daemon's stderr, journald)
 * it stays one line, for the tools that read it.  A path
 * the agent padded to the edge began the terminal's next row with
 * whatever it held after, "airlock run: session ... ended" to the eye.
 */
#define LOG_ERRNO 0x01 /* ": strerror(errno)" after the message */
#define LOG_NONAME 0x02 /* no "progname: " before it (log_bare()) */

static void log_vmsg(const char *, int, const char *, va_list)
    __attribute__((format(printf, 3, 0)));

static void
log_vmsg(const char *func, int flags, const char *fmt, va_list ap)
{
	int saved = errno;
	char *msg = NULL, *safe = NULL, *line = NULL, *folded = NULL;

	if (vasprintf(&msg, fmt, ap) == -1)
		msg = NULL;
	if (msg != NULL)
		safe = vis_str(msg, 0);
	if (safe == NULL || asprintf(&line, "%s%s%s%s%s%s%s\n",
	    flags & LOG_NONAME ? "" : log_progname,
	    flags & LOG_NONAME ? "" : ": ", func != NULL ? func : "",
	    func != NULL ? ": " : "", safe, flags & LOG_ERRNO ? ": " : "",
	    flags & LOG_ERRNO ? strerror(saved) : "") == -1)
		line = NULL;
	if (line != NULL) {
		if (!log_width_taken) {
			log_width = term_columns_known(STDERR_FILENO);
			log_width_taken = 1;
		}
		folded = log_width > 0 ? vis_fold(line, strlen(line), log_width)
				       : xstrdup(line);
	}
	/*
	 * Without memory, the format (ours, constant) rather than nothing,
	 * and never the agent's text unescaped or unfolded.
	 */
	if (folded != NULL)
		fputs(folded, stderr);
	else
		fprintf(stderr, "%s: %s\n", log_progname, fmt);
	free(folded);
	free(line);
	free(safe);
	free(msg);
	errno = saved;
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(NULL, LOG_ERRNO, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(NULL, 0, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	if (log_verbosity < 1)
		return;
	va_start(ap, fmt);
	log_vmsg(NULL, 0, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_verbosity < 2)
		return;
	va_start(ap, fmt);
	log_vmsg(NULL, 0, fmt, ap);
	va_end(ap);
}

void
log_bare(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(NULL, LOG_NONAME, fmt, ap);
	va_end(ap);
}

void
fatal_impl(const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(func, LOG_ERRNO, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx_impl(const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(func, 0, fmt, ap);
	va_end(ap);
	exit(1);
}
