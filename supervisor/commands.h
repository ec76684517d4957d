/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
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
int	cmd_approver(int argc, char **argv);
int	cmd_deny(int argc, char **argv);
int	cmd_trace(int argc, char **argv);
int	cmd_exec(int argc, char **argv);
int	cmd_profile(int argc, char **argv);
int	cmd_audit(int argc, char **argv);
int	cmd_sessions(int argc, char **argv);
int	cmd_paths(int argc, char **argv);
int	cmd_secret(int argc, char **argv);
int	cmd_proxy(int argc, char **argv);
int	cmd_diff(int argc, char **argv);
int	cmd_commit(int argc, char **argv);
int	cmd_discard(int argc, char **argv);
int	cmd_suggest(int argc, char **argv);

/*
 * Exit statuses shared by the commands: the table in airlock(1), EXIT
 * STATUS, and tests/integration/cli.sh.  The same mistake gives the same
 * status from every command.  0 is success, 1 a failure or a negative
 * answer (a log that does not verify, an action not approved); "run" and
 * "exec" otherwise pass their command's status through (128+N for a
 * signal).
 */
#define EXIT_USAGE		64	/* bad command line (sysexits EX_USAGE) */
#define EXIT_NOINPUT		66	/* a named workspace, session, log or
					   approval does not exist (EX_NOINPUT) */
#define EXIT_SANDBOX		71	/* sandbox could not be built */
#define EXIT_APPLY		74	/* exec: its change set could not be
					   applied (EX_IOERR); nothing changed */
#define EXIT_BUDGET		75	/* run stopped: budget exhausted */
#define EXIT_NOPERM		77	/* exec: the write policy refused its
					   change set (EX_NOPERM); none landed */
#define EXIT_CONFIG		78	/* bad manifest (EX_CONFIG) */
#define EXIT_TIMEOUT		124	/* exec --timeout expired, as timeout(1) */

#endif
