/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock trace SESSION: print the readable trace of a session.  The
 * broker escapes what it writes there; the file is escaped again on the
 * way to the terminal, line by line, in case it was written by an older
 * broker or edited, and folded to the terminal's width (vis_fold()): a
 * row is wider than 80 columns, and the terminal's own wrap began a row
 * with what a note quoted (a pinned file's name), a forged row of a
 * call whose gate passed.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "common/vis.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"
#include "supervisor/session.h"

int
cmd_trace(int argc, char **argv)
{
	char	 state[PATH_MAX], path[2 * PATH_MAX], *line = NULL, *v;
	size_t	 cap = 0, width;
	ssize_t	 n;
	FILE	*fp;

	log_init("airlock trace", 0);
	if (argc != 2 || argv[1][0] == '-') {
		cli_usage("trace");
		return EXIT_USAGE;
	}
	if (strchr(argv[1], '/') != NULL)
		snprintf(path, sizeof(path), "%s/trace.txt", argv[1]);
	else {
		if (session_state_dir(state, sizeof(state)) != 0)
			fatalx("state directory path too long");
		snprintf(path, sizeof(path), "%s/sessions/%s/trace.txt", state,
		    argv[1]);
	}
	if ((fp = fopen(path, "re")) == NULL) {
		int missing = errno == ENOENT;

		log_warn("%s", path);
		return missing ? EXIT_NOINPUT : 1;
	}
	width = term_columns(STDOUT_FILENO);
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		if ((v = vis_dup(line, (size_t)n, VIS_KEEP_TAB | VIS_NOSLASH)) ==
		    NULL)
			fatalx("out of memory");
		if (vis_fold_printf(stdout, width, "%s\n", v) == -1)
			fatalx("out of memory");
		free(v);
	}
	free(line);
	fclose(fp);
	return 0;
}
