/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock profile --seatbelt: prints the macOS Seatbelt profile that
 * enforces the manifest's sandbox policy for a workspace.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/log.h"
#include "policy/manifest.h"
#include "policy/sandbox_defaults.h"
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
	static const struct option longopts[] = {
		{ "seatbelt", no_argument, NULL, 's' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct sandbox_policy defaults;
	const struct sandbox_policy *policy;
	struct manifest *m = NULL;
	const char *manifest = NULL, *workspace = ".";
	char *ws, *profile, err[512];
	int ch, seatbelt = 0, rc;

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
	sandbox_policy_init_defaults(&defaults);
	policy = &defaults;
	if (manifest != NULL) {
		if (manifest_load(manifest, &m, err, sizeof(err)) != 0) {
			log_warnx("%s", err);
			free(ws);
			sandbox_policy_free_arrays(&defaults);
			return EXIT_CONFIG;
		}
		policy = &m->sandbox;
	}
	rc = seatbelt_profile(policy, ws, getenv("HOME"), &profile);
	if (rc == 0) {
		fputs(profile, stdout);
		free(profile);
		rc = fflush(stdout) == 0 ? 0 : 1;
	} else {
		log_warnx("profile: %s", al_strerror(rc));
		rc = EXIT_CONFIG;
	}
	free(ws);
	if (m != NULL)
		manifest_free(m);
	sandbox_policy_free_arrays(&defaults);
	return rc;
}
