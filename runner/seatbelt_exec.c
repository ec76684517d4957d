/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seatbelt_exec: the macOS runner backend: sandbox-exec(1) with the
 * profile policy/seatbelt.c generates.  Only built on macOS; on other
 * systems this file is empty.
 */
#ifdef __APPLE__
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "common/errors.h"
#include "policy/seatbelt.h"
#include "runner/seatbelt_exec.h"

int
runner_seatbelt_exec(const struct sandbox_policy *sp, const char *workspace,
    char *const argv[])
{
	char *profile, **av;
	size_t n, i;
	int rc;

	if ((rc = seatbelt_profile(sp, workspace, getenv("HOME"),
	    &profile)) != 0)
		return rc;
	for (n = 0; argv[n] != NULL; n++)
		;
	if ((av = calloc(n + 4, sizeof(*av))) == NULL) {
		free(profile);
		return AL_ERR_ALLOC;
	}
	av[0] = "sandbox-exec";
	av[1] = "-p";
	av[2] = profile;
	for (i = 0; i < n; i++)
		av[3 + i] = argv[i];
	if (chdir(workspace) == 0)
		execv("/usr/bin/sandbox-exec", av);
	free(av);
	free(profile);
	return AL_ERR_SYSTEM;
}
#endif
