/* airlock: dispatch to a subcommand. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
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
} commands[] = {
	/* Each subcommand's module adds its row here. */
	{ "run",	cmd_run,	"run an agent sandboxed, brokering its tool calls" },
	{ "serve",	cmd_serve,	"serve the broker on stdin/stdout (MCP)" },
	{ "connect",	cmd_connect,	"relay stdin/stdout to $AIRLOCK_FD (MCP server command)" },
	{ "pending",	cmd_pending,	"list the approvals waiting for a human" },
	{ "approve",	cmd_approve,	"approve one pending action" },
	{ "deny",	cmd_deny,	"deny one pending action" },
	{ "trace",	cmd_trace,	"print a session's readable trace" },
	/* Internal: apply_patch's confined parser (broker/patchjail.h). */
	{ "__patch-jail", cmd_patch_jail, NULL },
	{ "check", cmd_check, "validate a manifest and print its tools" },
	{ "audit", cmd_audit, "verify, show and follow audit logs" },
	{ "sessions", cmd_sessions, "list, pin and prune recorded sessions" },
	{ "paths", cmd_paths, "print the state, runtime and config directories" },
	{ "secret", cmd_secret, "set, list and remove sealed credentials" },
	{ "exec", cmd_exec, "run one command in a runner sandbox" },
	{ "profile", cmd_profile, "print a sandbox profile (--seatbelt)" },
	{ "proxy", cmd_proxy, "run the egress proxy standalone" },
	{ NULL, NULL, NULL }
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
	fprintf(fp, "\nSee airlock(1) and airlock-manifest(5).\n");
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
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("airlock %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (i = 0; commands[i].name != NULL; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	log_warnx("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
