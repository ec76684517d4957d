/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock profile --seatbelt: prints the macOS Seatbelt profile that
 * enforces the manifest's sandbox policy for a workspace.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "policy/sandbox_defaults.h"
#include "policy/githooks.h"
#include "policy/seatbelt.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"

static void
usage(void)
{
	cli_usage("profile");
}

int
cmd_profile(int argc, char **argv)
{
	static const struct option longopts[] = { { "seatbelt", no_argument,
						      NULL, 's' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "home", required_argument, NULL, 'H' },
		{ "tmpdir", required_argument, NULL, 'T' },
		{ "tty", required_argument, NULL, 'y' },
		{ "proxy-port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct sandbox_policy defaults, eff;
	const struct sandbox_policy *policy;
	struct seatbelt_run run;
	struct manifest *m = NULL;
	struct git_hooks_list hooks;
	const char *manifest = NULL, *workspace = ".";
	char *ws, *gitdir = NULL, *profile, *end, err[512];
	long port;
	int ch, seatbelt = 0, rc;

	memset(&run, 0, sizeof(run));
	run.home = getenv("HOME");
	optind = 1;
	while ((ch = getopt_long(argc, argv, "sm:w:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			seatbelt = 1;
			break;
		case 'm':
			manifest = optarg;
			break;
		case 'w':
			workspace = optarg;
			break;
		case 'H':
			run.home = optarg;
			break;
		case 'T':
			run.tmpdir = optarg;
			break;
		case 'y':
			run.tty = optarg;
			break;
		case 'p':
			errno = 0;
			port = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || port < 1 ||
			    port > 65535) {
				log_warnx("profile: --proxy-port: not a port: "
					  "%s",
				    optarg);
				return EXIT_USAGE;
			}
			run.proxy_port = (int)port;
			break;
		case 'h':
			(void)cli_help("profile", stdout);
			return 0;
		default:
			usage();
			return EXIT_USAGE;
		}
	}
	if (!seatbelt || optind != argc) {
		usage();
		return EXIT_USAGE;
	}
	if ((ws = realpath(workspace, NULL)) == NULL) {
		rc = errno == ENOENT ? EXIT_NOINPUT : EXIT_USAGE;
		log_warn("profile: workspace %s", workspace);
		return rc;
	}
	if (git_pointer_target(ws, &gitdir) != 0) {
		log_warnx(
		    "profile: %s/.git is a gitdir: file whose target "
		    "cannot be resolved; refusing a profile that could leave "
		    "the repository writable",
		    ws);
		free(ws);
		return EXIT_CONFIG;
	}
	/* Its git hooks outside .git (core.hooksPath, included config
	 * files): writes there run at the person's next commit. */
	if (git_hooks_list(ws, &hooks, err, sizeof(err)) != 0) {
		log_warnx("profile: %s; refusing a profile that could leave "
			  "a git hook writable",
		    err);
		free(ws);
		free(gitdir);
		return EXIT_CONFIG;
	}
	run.hooks = (const char *const *)hooks.paths;
	run.nhooks = hooks.n;
	run.lintstaged = hooks.lintstaged;
	run.husky_pkg = hooks.husky_pkg;
	run.workspace = ws;
	run.gitdir = gitdir;
	sandbox_policy_init_defaults(&defaults);
	policy = &defaults;
	if (manifest != NULL) {
		if (manifest_load(manifest, &m, err, sizeof(err)) != 0) {
			log_warnx("%s", err);
			free(ws);
			free(gitdir);
			git_hooks_list_free(&hooks);
			sandbox_policy_free_arrays(&defaults);
			return EXIT_CONFIG;
		}
		policy = &m->sandbox;
	}
	/* The agent's own configuration in the home, read-only, and its
	 * scratch directories (agent.homeReadOnly, agent.homeScratch), as
	 * the Linux runner has them. */
	eff = *policy;
	if (m != NULL) {
		eff.home_ro = m->agent.home_ro;
		eff.nhome_ro = m->agent.nhome_ro;
		eff.home_scratch = m->agent.home_scratch;
		eff.nhome_scratch = m->agent.nhome_scratch;
	}
	/* airlock's own directories, wherever this environment puts them,
	 * and what a secret or a home entry resolves to through a symlink. */
	if (seatbelt_run_paths(&eff, &run, err, sizeof(err)) != 0) {
		log_warnx("profile: %s", err);
		rc = EXIT_CONFIG;
		goto out;
	}
	rc = seatbelt_profile(&eff, &run, &profile);
	if (rc == 0) {
		fputs(profile, stdout);
		free(profile);
		rc = fflush(stdout) == 0 ? 0 : 1;
	} else {
		log_warnx(
		    "profile: no profile for workspace %s: it must not be "
		    "a system root (/, /tmp, /Users, ...) nor the home "
		    "directory or above it, and no path may hold a quote, a backslash "
		    "or a control character (%s)",
		    ws, al_strerror(rc));
		rc = EXIT_CONFIG;
	}
out:
	free(ws);
	free(gitdir);
	seatbelt_run_paths_free(&run);
	git_hooks_list_free(&hooks);
	if (m != NULL)
		manifest_free(m);
	sandbox_policy_free_arrays(&defaults);
	return rc;
}
