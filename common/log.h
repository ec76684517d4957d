/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * log: diagnostics for the daemon side of airlock.
 *
 * Library code never calls fatal(); it returns an error code from
 * common/errors.h.  Only mains and irreversible steps (privilege drop,
 * sandbox entry) stop the process, loudly, with the function's name.
 */
#ifndef AIRLOCK_LOG_H
#define AIRLOCK_LOG_H

#include <stdarg.h>

/* Sets the program name printed before each message; verbosity 0..2. */
void	log_init(const char *progname, int verbosity);

/*
 * Messages go to stderr: "progname: message[: strerror(errno)]", the
 * message escaped (common/vis.h) and the line folded to the terminal's
 * width (vis_fold(); taken in log_init()).
 */
void	log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A message as log_warnx() writes it (escaped, folded), but without the
 * program's name: for a line whose form is fixed, a manifest's error
 * "FILE:LINE:COLUMN: FIELD: problem" as compilers print one.
 */
void	log_bare(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print and _exit(1)-free exit(1); fatal() adds strerror(errno). */
void	fatal_impl(const char *func, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3), noreturn));
void	fatalx_impl(const char *func, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3), noreturn));
#define fatal(...)	fatal_impl(__func__, __VA_ARGS__)
#define fatalx(...)	fatalx_impl(__func__, __VA_ARGS__)

#endif
