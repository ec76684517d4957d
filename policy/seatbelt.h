/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seatbelt: a macOS Seatbelt (SBPL) profile from a sandbox policy.
 *
 * Pure: the profile is built in memory and depends only on its inputs,
 * so it can be compared byte for byte with golden files.  On macOS it is
 * what sandbox-exec(1) would be given; on Linux it is only printed
 * ("airlock profile --seatbelt").
 *
 * The profile denies by default; allows exec, fork and signals within
 * the sandbox; allows reading everything except the policy's deny_read
 * paths; allows writing only beneath the workspace, the temporary
 * directories and /dev/null; denies every write to .git and the protected
 * paths, including unlinking or renaming them or any of their ancestors
 * in the workspace; and denies the network (network = 1 allows only
 * localhost, where airlock's egress proxy listens).
 */
#ifndef AIRLOCK_SEATBELT_H
#define AIRLOCK_SEATBELT_H

#include "policy/manifest.h"

/*
 * Writes the profile for |sp| with the workspace at |workspace| (an
 * absolute path without a trailing slash) into *out (NUL-terminated,
 * caller frees).  |home| expands "~" in deny_read paths (entries with
 * "~" are skipped when it is NULL).  Returns 0, AL_ERR_PATH if
 * |workspace| is not absolute or a protected path is not
 * workspace-relative, or AL_ERR_ALLOC.
 */
int	seatbelt_profile(const struct sandbox_policy *sp,
	    const char *workspace, const char *home, char **out)
	    __attribute__((warn_unused_result));

#endif
