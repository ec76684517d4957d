/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seatbelt_exec: the macOS runner backend.  Compiled only on macOS.
 */
#ifndef AIRLOCK_SEATBELT_EXEC_H
#define AIRLOCK_SEATBELT_EXEC_H

#ifdef __APPLE__
#include "policy/manifest.h"

/*
 * Replaces the process with sandbox-exec(1) running |argv| under the
 * Seatbelt profile of |sp| for |workspace| (an absolute path).  Returns
 * only on failure: AL_ERR_PATH, AL_ERR_ALLOC or AL_ERR_SYSTEM (errno).
 */
int	runner_seatbelt_exec(const struct sandbox_policy *sp,
	    const char *workspace, char *const argv[]);
#endif

#endif
