/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seatbelt_exec: the macOS runner backend: sandbox-exec(1) with the
 * profile policy/seatbelt.c generates.  Only built on macOS; on other
 * systems this file is empty.  Not yet run on a macOS machine: see
 * docs/SANDBOX.md.
 */
#ifdef __APPLE__
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/util.h"
#include "common/log.h"
#include "policy/githooks.h"
#include "policy/seatbelt.h"
#include "runner/seatbelt_exec.h"

int
runner_seatbelt_exec(const struct sandbox_policy *sp, const char *workspace,
    char *const argv[])
{
	struct seatbelt_run run = { 0 };
	char err[512];
	struct git_hooks_list hooks;
	char base[PATH_MAX], tmpl[PATH_MAX], *tmp, *ws, *gitdir = NULL;
	char *profile, **av;
	size_t n, i;
	int rc;

	/* Canonical paths: Seatbelt matches /private/tmp, not /tmp. */
	if ((ws = realpath(workspace, NULL)) == NULL)
		return AL_ERR_PATH;
	if (git_pointer_target(ws, &gitdir) != 0) {
		free(ws);
		return AL_ERR_PATH;
	}
	/* Its git hooks outside .git, denied as .git is. */
	if (git_hooks_list(ws, &hooks, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		free(ws);
		free(gitdir);
		return AL_ERR_PATH;
	}
	run.hooks = (const char *const *)hooks.paths;
	run.nhooks = hooks.n;
	run.lintstaged = hooks.lintstaged;
	run.husky_pkg = hooks.husky_pkg;
	/* A temporary directory of this run's own, as its TMPDIR. */
	if (confstr(_CS_DARWIN_USER_TEMP_DIR, base, sizeof(base)) == 0)
		strlcpy(base, "/private/tmp/", sizeof(base));
	snprintf(tmpl, sizeof(tmpl), "%s/airlock.XXXXXX", base);
	if (mkdtemp(tmpl) == NULL || (tmp = realpath(tmpl, NULL)) == NULL) {
		free(ws);
		free(gitdir);
		git_hooks_list_free(&hooks);
		return AL_ERR_SYSTEM;
	}
	run.workspace = ws;
	run.home = getenv("HOME");
	run.tmpdir = tmp;
	run.tty = isatty(STDIN_FILENO) ? ttyname(STDIN_FILENO) : NULL;
	run.gitdir = gitdir;
	/* No egress proxy on macOS yet: a profile that grants network
	 * takes PROXY_PORT as a parameter, which sandbox-exec refuses to
	 * leave undefined, so such a run fails closed. */
	run.proxy_port = 0;
	/* airlock's own directories, wherever this environment puts them,
	 * and what a secret or an entry of the agent's home
	 * (agent.homeReadOnly, agent.homeScratch) resolves to through a
	 * symlink. */
	if ((rc = seatbelt_run_paths(sp, &run, err, sizeof(err))) == 0) {
		rc = seatbelt_profile(sp, &run, &profile);
		seatbelt_run_paths_free(&run);
	} else
		log_warnx("%s", err);
	free(gitdir);
	git_hooks_list_free(&hooks);
	if (rc != 0) {
		free(ws);
		free(tmp);
		return rc;
	}
	if (setenv("TMPDIR", tmp, 1) == -1)
		return AL_ERR_SYSTEM;
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
	if (chdir(ws) == 0)
		execv("/usr/bin/sandbox-exec", av);
	free(av);
	free(profile);
	free(ws);
	free(tmp);
	return AL_ERR_SYSTEM;
}
#endif
