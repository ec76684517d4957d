/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* airlock serve: the broker alone, on stdin/stdout. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "common/log.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"
#include "supervisor/service.h"

static void
serve_on_close(void *arg)
{
	loop_stop(arg);
}

int
cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*mpath = NULL, *wpath = NULL;
	struct service	 sv;
	int		 ch, verbose = 0, rc;

	while ((ch = getopt_long(argc, argv, "m:w:v", opts, NULL)) != -1) {
		switch (ch) {
		case 'm': mpath = optarg; break;
		case 'w': wpath = optarg; break;
		case 'v': verbose++; break;
		default: goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	log_init("airlock serve", verbose);
	if ((rc = service_open(&sv, "serve", mpath, wpath, NULL, NULL)) != 0)
		return rc;
	service_start_broker(&sv, STDIN_FILENO, STDOUT_FILENO, serve_on_close,
	    sv.loop);
	log_info("session %s, audit log %s", sv.session.id,
	    sv.session.audit_path);
	if (loop_run(sv.loop) != 0)
		log_warn("event loop");
	rc = broker_budget_stopped(sv.broker) ? EXIT_BUDGET : 0;
	service_close(&sv);
	return rc;
usage:
	cli_usage("serve");
	return EXIT_USAGE;
}
