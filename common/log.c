/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/vis.h"

static const char *log_progname = "airlock";
static int log_verbosity;

void
log_init(const char *progname, int verbosity)
{
	log_progname = progname;
	log_verbosity = verbosity;
}

/*
 * Messages quote tool names, file lines, results and errors that the
 * agent can shape, and they go to a person's terminal: the formatted
 * message is escaped (common/vis.h) as a whole before it is written.
 */
static void log_vmsg(const char *, int, const char *, va_list)
    __attribute__((format(printf, 3, 0)));

static void
log_vmsg(const char *func, int with_errno, const char *fmt, va_list ap)
{
	int saved = errno;
	char *msg = NULL, *safe = NULL;

	fprintf(stderr, "%s: ", log_progname);
	if (func != NULL)
		fprintf(stderr, "%s: ", func);
	if (vasprintf(&msg, fmt, ap) == -1)
		msg = NULL;
	if (msg != NULL)
		safe = vis_str(msg, 0);
	/* Without memory, the format (ours, constant) rather than nothing. */
	fputs(safe != NULL ? safe : fmt, stderr);
	free(safe);
	free(msg);
	if (with_errno)
		fprintf(stderr, ": %s", strerror(saved));
	fputc('\n', stderr);
	errno = saved;
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(NULL, 1, fmt, ap);
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
fatal_impl(const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(func, 1, fmt, ap);
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
