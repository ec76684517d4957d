/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* airlock: dispatch to a subcommand. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"

#ifdef AIRLOCK_SANITIZERS
/*
 * Sanitizer builds only.  Inside an airlock sandbox (AIRLOCK_FD is set:
 * "airlock connect" in an agent's sandbox) ptrace is refused by design,
 * and LeakSanitizer, which needs it at exit, would fail the process.
 * Leak checking stays on everywhere else.
 */
int	__lsan_is_turned_off(void);

int
__lsan_is_turned_off(void)
{
	return getenv("AIRLOCK_FD") != NULL;
}
#endif

static const struct command {
	const char	*name;
	int		(*fn)(int, char **);
	const char	*summary;
	/* -h/--help anywhere before "--", not only first: the command runs
	 * no command line of its own that could hold one. */
	int		 help_anywhere;
} commands[] = {
	/* Each subcommand's module adds its row here. */
	{ "run",	cmd_run,	"run an agent sandboxed, brokering its tool calls", 0 },
	{ "serve",	cmd_serve,	"serve the broker on stdin/stdout (MCP)", 1 },
	{ "connect",	cmd_connect,	"relay stdin/stdout to the broker (MCP server command)", 1 },
	{ "pending",	cmd_pending,	"list the approvals waiting for a human", 1 },
	{ "approve",	cmd_approve,	"approve one pending action", 1 },
	{ "deny",	cmd_deny,	"deny one pending action", 1 },
	{ "approver",	cmd_approver,	"approver keys (keygen) and manifest signing", 1 },
	{ "trace",	cmd_trace,	"print a session's readable trace", 1 },
	/* Internal: apply_patch's confined parser (broker/patchjail.h). */
	{ "__patch-jail", cmd_patch_jail, NULL, 0 },
	{ "check", cmd_check, "validate a manifest and print its tools", 1 },
	{ "sessions", cmd_sessions, "list, pin and prune recorded sessions", 1 },
	{ "paths", cmd_paths, "print the state, runtime and config directories",
	    1 },
	{ "audit", cmd_audit, "verify, show and follow audit logs", 1 },
	{ "suggest", cmd_suggest,
	    "turn a session's sandbox denials into a manifest diff", 1 },
	{ "secret", cmd_secret, "set, list and remove sealed credentials", 1 },
	{ "exec", cmd_exec, "run one command in a runner sandbox", 0 },
	{ "profile", cmd_profile, "print a sandbox profile (--seatbelt)", 1 },
	{ "proxy", cmd_proxy, "run the egress proxy standalone", 1 },
	{ "diff", cmd_diff, "show what a copy-on-write session changed", 1 },
	{ "commit", cmd_commit, "apply a copy-on-write session to the checkout",
	    1 },
	{ "discard", cmd_discard, "throw away a copy-on-write session's changes",
	    1 },
	{ NULL, NULL, NULL, 0 }
};

static void
usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: airlock COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; commands[i].name != NULL; i++)
		if (commands[i].summary != NULL)
			fprintf(fp, "  %-10s %s\n", commands[i].name,
			    commands[i].summary);
	fprintf(fp, "\noptions:\n  -h, --help     print this help; "
	    "airlock help COMMAND: that command's\n"
	    "  -V, --version  print the version\n"
	    "\nSee airlock(1) and airlock-manifest(5).\n");
}

int
main(int argc, char **argv)
{
	size_t i;

	proc_args_save(argc, argv);
	log_init("airlock", 0);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc != 3) {
			cli_usage("help");
			return EXIT_USAGE;
		}
		if (cli_help(argv[2], stdout) != 0) {
			log_warnx("help: unknown command '%s'", argv[2]);
			usage(stderr);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("airlock %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (i = 0; commands[i].name != NULL; i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			if (commands[i].summary != NULL &&
			    cli_wants_help(argc - 1, argv + 1,
			    commands[i].help_anywhere)) {
				(void)cli_help(commands[i].name, stdout);
				return 0;
			}
			return commands[i].fn(argc - 1, argv + 1);
		}
	log_warnx("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
