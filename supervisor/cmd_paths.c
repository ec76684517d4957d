/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock paths: where airlock keeps its state, runtime and
 * configuration on this host, and why (common/paths.h).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/log.h"
#include "common/paths.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"

int
cmd_paths(int argc, char **argv)
{
	char state[PATH_MAX], run[PATH_MAX], conf[PATH_MAX];
	json_t *o;
	char *s;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--json") != 0)) {
		cli_usage("paths");
		return EXIT_USAGE;
	}
	if (paths_state_dir(state, sizeof(state)) != 0 ||
	    paths_runtime_dir(run, sizeof(run)) != 0 ||
	    paths_config_dir(conf, sizeof(conf)) != 0) {
		log_warnx("a directory's path is too long");
		return 1;
	}
	if (argc == 2) {
		o = json_pack("{s:{s:s, s:s}, s:{s:s, s:s}, s:{s:s, s:s}, "
			      "s:{s:s, s:s, s:s}}",
		    "state", "path", state, "source", paths_state_source(),
		    "runtime", "path", run, "source", paths_runtime_source(),
		    "config", "path", conf, "source", paths_config_source(),
		    "defaults", "state", PATHS_STATE_DEFAULT, "runtime",
		    PATHS_RUNTIME_DEFAULT, "config", PATHS_CONFIG_DEFAULT);
		if (o == NULL || (s = json_dumps(o, JSON_COMPACT)) == NULL)
			fatalx("out of memory");
		printf("%s\n", s);
		free(s);
		json_decref(o);
		return 0;
	}
	printf("state    %s  (%s)\n", state, paths_state_source());
	printf("runtime  %s  (%s)\n", run, paths_runtime_source());
	printf("config   %s  (%s)\n", conf, paths_config_source());
	printf("configured for root: state %s, runtime %s, config %s\n",
	    PATHS_STATE_DEFAULT, PATHS_RUNTIME_DEFAULT, PATHS_CONFIG_DEFAULT);
	return 0;
}
