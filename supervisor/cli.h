/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cli: the one command-line convention every "airlock COMMAND" follows.
 *
 *   airlock COMMAND --help, airlock COMMAND -h, airlock help COMMAND
 *       print COMMAND's usage with every option described to stdout and
 *       exit 0 (cli_help()).
 *   a bad command line
 *       prints one line naming the mistake, then COMMAND's synopsis and a
 *       pointer to "airlock help COMMAND", to stderr, and exits EXIT_USAGE
 *       (cli_usage()).
 *
 * The exit statuses are shared (commands.h, and the table in airlock(1)):
 * the same mistake gives the same status from every command.  The help
 * texts live in cli.c, one entry per command of main.c's table; the test
 * tests/integration/cli.sh checks each against the man pages.
 */
#ifndef AIRLOCK_CLI_H
#define AIRLOCK_CLI_H

#include <stdio.h>

/*
 * Prints the full help of |cmd| ("run", "audit", ...) to |fp|.  Returns 0,
 * or -1 (printing nothing) when |cmd| has no help entry.
 */
int cli_help(const char *cmd, FILE *fp);

/* Prints the synopsis of |cmd| and "Try 'airlock help CMD'" to stderr. */
void cli_usage(const char *cmd);

/*
 * 1 if argv[1..argc) asks for help before any "--": -h or --help as the
 * first argument, or anywhere when |anywhere| is set (commands that take
 * no command line of their own to run).
 */
int cli_wants_help(int argc, char **argv, int anywhere);

#endif
