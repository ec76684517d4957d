/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * errors: the only error codes that cross a module boundary.
 *
 * Functions return 0 (or a count) on success and one of these negative
 * codes on failure.  AL_ERR_SYSTEM means errno holds the cause.
 */
#ifndef AIRLOCK_ERRORS_H
#define AIRLOCK_ERRORS_H

#define AL_OK			0
#define AL_ERR_INTERNAL		-1	/* a bug: an invariant did not hold */
#define AL_ERR_ALLOC		-2	/* out of memory */
#define AL_ERR_SYSTEM		-3	/* a system call failed; see errno */
#define AL_ERR_LIMIT		-4	/* a size, depth or count limit was hit */
#define AL_ERR_FORMAT		-5	/* malformed input (JSON, YAML, diff) */
#define AL_ERR_UTF8		-6	/* input is not valid UTF-8 */
#define AL_ERR_TYPE		-7	/* a value does not fit its declared type */
#define AL_ERR_PATH		-8	/* a path is not beneath the workspace */
#define AL_ERR_NOT_FOUND	-9	/* no such file, tool, check or id */
#define AL_ERR_DENIED		-10	/* policy refused the action */
#define AL_ERR_CONFLICT		-11	/* state changed underneath (sha mismatch) */
#define AL_ERR_TIMEOUT		-12	/* a deadline passed */
#define AL_ERR_UNSUPPORTED	-13	/* the kernel or platform lacks a feature */
#define AL_ERR_CRYPTO		-14	/* a signature, MAC or hash did not verify */
#define AL_ERR_BUDGET		-15	/* a run budget is exhausted */
#define AL_ERR_IO		-16	/* a write to durable storage failed */

/* Returns a static, human-readable description of |code|. */
const char	*al_strerror(int code);

#endif
