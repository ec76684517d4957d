/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seatbelt_exec: the macOS runner backend.  runner_seatbelt_exec() is
 * compiled only on macOS; what it hands to sandbox-exec(1) is built by
 * the functions before it, compiled and tested everywhere.
 */
#ifndef AIRLOCK_SEATBELT_EXEC_H
#define AIRLOCK_SEATBELT_EXEC_H

#include "policy/manifest.h"

/*
 * The environment sandbox-exec(1), and through it the command, gets:
 * |env| (NULL-terminated: the one "airlock exec" built,
 * overrides_exec_env()) and nothing of this process's own, with TMPDIR
 * set to the run's own temporary directory |tmpdir|, and a HOME of /tmp
 * made |tmpdir| too: the Linux sandbox's /tmp is the run's own, macOS's
 * is every user's, and the profile lets the command write only |tmpdir|
 * (a HOME given with --env is kept).  A new NULL-terminated, heap-
 * allocated array (strv_free()); |env| is not changed.
 */
char	**seatbelt_exec_env(char *const env[], const char *tmpdir);

/*
 * Replaces the process with |sandbox_exec| (/usr/bin/sandbox-exec, or a
 * stand-in in the tests) as "sandbox-exec -p |profile| argv..." in the
 * directory |dir|, with the environment seatbelt_exec_env(|env|,
 * |tmpdir|) and no other.  Returns only on failure: AL_ERR_SYSTEM
 * (errno).
 */
int	seatbelt_exec_handoff(const char *sandbox_exec, const char *profile,
	    const char *dir, char *const argv[], char *const env[],
	    const char *tmpdir);

#ifdef __APPLE__
/*
 * Replaces the process with sandbox-exec(1) running |argv| under the
 * Seatbelt profile of |sp| for |workspace| (an absolute path), in a
 * temporary directory of its own, with the environment |env|
 * (seatbelt_exec_handoff()).  Returns only on failure: AL_ERR_PATH,
 * AL_ERR_ALLOC or AL_ERR_SYSTEM (errno).
 */
int	runner_seatbelt_exec(const struct sandbox_policy *sp,
	    const char *workspace, char *const argv[], char *const env[]);
#endif

#endif
