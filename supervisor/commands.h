/*
 * commands: one function per "airlock SUBCOMMAND".  Each takes the
 * arguments after the subcommand name (argv[0] is the subcommand) and
 * returns the process exit status.  Each lives in supervisor/cmd_NAME.c.
 */
#ifndef AIRLOCK_COMMANDS_H
#define AIRLOCK_COMMANDS_H

int	cmd_run(int argc, char **argv);
int	cmd_serve(int argc, char **argv);
int	cmd_connect(int argc, char **argv);
int	cmd_check(int argc, char **argv);
int	cmd_patch_jail(int argc, char **argv);
int	cmd_pending(int argc, char **argv);
int	cmd_approve(int argc, char **argv);
int	cmd_deny(int argc, char **argv);
int	cmd_trace(int argc, char **argv);
int	cmd_exec(int argc, char **argv);
int	cmd_profile(int argc, char **argv);
int	cmd_audit(int argc, char **argv);
int	cmd_sessions(int argc, char **argv);
int	cmd_paths(int argc, char **argv);
int	cmd_secret(int argc, char **argv);
int	cmd_proxy(int argc, char **argv);

/* Exit statuses shared by the commands. */
#define EXIT_USAGE		64	/* bad command line (sysexits EX_USAGE) */
#define EXIT_CONFIG		78	/* bad manifest (EX_CONFIG) */
#define EXIT_BUDGET		75	/* run stopped: budget exhausted */
#define EXIT_SANDBOX		71	/* sandbox could not be built */

#endif
