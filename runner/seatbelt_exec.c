/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seatbelt_exec: the macOS runner backend: sandbox-exec(1) with the
 * profile policy/seatbelt.c generates.  runner_seatbelt_exec() is built
 * only on macOS; the environment and the hand-off to sandbox-exec are
 * built everywhere, so that the tests run them on Linux too.  Not yet
 * run on a macOS machine: see docs/SANDBOX.md.
 */
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

char **
seatbelt_exec_env(char *const env[], const char *tmpdir)
{
	char **envp, *e;
	size_t i;

	envp = xcalloc(1, sizeof(*envp));
	for (i = 0; env[i] != NULL; i++)
		env_put(&envp, env[i], 1);
	xasprintf(&e, "TMPDIR=%s", tmpdir);
	env_put(&envp, e, 1);
	free(e);
	for (i = 0; envp[i] != NULL; i++)
		if (strcmp(envp[i], "HOME=/tmp") == 0) {
			free(envp[i]);
			xasprintf(&envp[i], "HOME=%s", tmpdir);
		}
	return envp;
}

int
seatbelt_exec_handoff(const char *sandbox_exec, const char *profile,
    const char *dir, char *const argv[], char *const env[], const char *tmpdir)
{
	char **av, **envp;
	size_t n, i;

	for (n = 0; argv[n] != NULL; n++)
		;
	av = xcalloc(n + 4, sizeof(*av));
	av[0] = "sandbox-exec";
	av[1] = "-p";
	av[2] = (char *)profile;
	for (i = 0; i < n; i++)
		av[3 + i] = argv[i];
	envp = seatbelt_exec_env(env, tmpdir);
	if (chdir(dir) == 0)
		execve(sandbox_exec, av, envp);
	free(av);
	strv_free(envp);
	return AL_ERR_SYSTEM;
}

#ifdef __APPLE__
int
runner_seatbelt_exec(const struct sandbox_policy *sp, const char *workspace,
    char *const argv[], char *const env[])
{
	struct seatbelt_run run = { 0 };
	char err[512];
	struct git_hooks_list hooks;
	char base[PATH_MAX], tmpl[PATH_MAX], *tmp, *ws, *gitdir = NULL;
	char *profile;
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
	(void)seatbelt_exec_handoff(
	    "/usr/bin/sandbox-exec", profile, ws, argv, env, tmp);
	free(profile);
	free(ws);
	free(tmp);
	return AL_ERR_SYSTEM;
}
#endif
