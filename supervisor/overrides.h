/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * overrides: per-run additions to a manifest's policy from the command
 * line of "airlock run" and "airlock exec".
 *
 *   --allow-host HOST[:PORT]  one more allowlist entry (port 443 when left
 *                             out); an IP literal is an explicit address
 *                             rule, the way to reach a loopback or private
 *                             address (a local LLM gateway)
 *   --env NAME[=VALUE]        NAME passed from the caller's environment, or
 *                             set to VALUE
 *   --ro PATH                 one more read-only bind (must exist)
 *   --rw PATH                 a read-write bind of a host directory or file
 *                             at its own path (must exist)
 *
 * Each is checked when it is added, so that a bad one is a usage error
 * naming its flag.  Paths are resolved (realpath) and refused when they
 * are /, /proc, /sys or /dev or beneath them, or when they hold or lie
 * beneath airlock's state directory; a --rw path is also refused when it
 * holds or lies beneath the workspace (writes to it go through the
 * broker) — see overrides_check_workspace().
 */
#ifndef AIRLOCK_OVERRIDES_H
#define AIRLOCK_OVERRIDES_H

#include <stddef.h>

#include <jansson.h>

enum override_kind {
	OVERRIDE_ALLOW_HOST,
	OVERRIDE_ENV,
	OVERRIDE_RO,
	OVERRIDE_RW,
};

struct overrides {
	char **hosts; /* "host:port", NULL-terminated */
	size_t nhosts;
	char **env; /* "NAME=VALUE", NULL-terminated */
	size_t nenv;
	int *env_given; /* 1: VALUE was on the command line */
	char **ro; /* resolved absolute paths */
	size_t nro;
	char **rw;
	size_t nrw;
};

/* Clears |o| (empty lists, each NULL-terminated). */
void overrides_init(struct overrides *o);

/*
 * Checks and adds one override of kind |k| with argument |arg|.
 * |state_dir| is airlock's state directory (it need not exist); |getenv_fn|
 * reads the caller's environment (getenv, or a fake in tests).  Returns 0,
 * or AL_ERR_FORMAT / AL_ERR_DENIED / AL_ERR_NOT_FOUND with a message that
 * names the flag ("--rw /: ...") in err[0..errlen).
 */
int overrides_add(struct overrides *o, enum override_kind k, const char *arg,
    const char *state_dir, char *(*getenv_fn)(const char *), char *err,
    size_t errlen) __attribute__((warn_unused_result));

/*
 * Refuses a --rw path that holds or lies beneath |workspace| (a resolved
 * path).  Returns 0 or AL_ERR_DENIED with a message.
 */
int overrides_check_workspace(const struct overrides *o, const char *workspace,
    char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * The one option parser of the overrides, shared by "run" and "exec":
 * OVERRIDES_LONGOPTS goes into a getopt_long table, and each getopt_long
 * result goes to overrides_option() first.  --setenv NAME VALUE takes two
 * words (the VALUE is argv[*optindp], consumed) and is --env NAME=VALUE.
 * Returns 0 if |ch| is not an override option, 1 when it was added, or -1
 * with a message naming the flag in err[0..errlen) (a usage error).
 */
#define OVERRIDE_OPT_BASE 0x200
#define OVERRIDES_LONGOPTS \
	{ "allow-host", required_argument, NULL, \
		OVERRIDE_OPT_BASE + OVERRIDE_ALLOW_HOST }, \
	    { "env", required_argument, NULL, \
		    OVERRIDE_OPT_BASE + OVERRIDE_ENV }, \
	    { "ro", required_argument, NULL, \
		    OVERRIDE_OPT_BASE + OVERRIDE_RO }, \
	    { "rw", required_argument, NULL, \
		    OVERRIDE_OPT_BASE + OVERRIDE_RW }, \
	{ \
		"setenv", required_argument, NULL, OVERRIDE_OPT_BASE + 0x80 \
	}
int overrides_option(struct overrides *o, int ch, const char *arg, int argc,
    char **argv, int *optindp, const char *state_dir, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* 1 if |o| holds nothing. */
int overrides_empty(const struct overrides *o);

/*
 * The audit form: {"allowHosts": [...], "env": [{"name", "source"}],
 * "readOnly": [...], "readWrite": [...]}.  Values of --env are never in
 * it, only names and where the value came from ("caller" or
 * "commandLine").  Returns a new reference, or NULL on exhaustion.
 */
json_t *overrides_json(const struct overrides *o);

/*
 * Sets or replaces NAME=VALUE for each --env in the NULL-terminated,
 * heap-allocated |*envp| (strings and array owned by it; grown).
 */
void overrides_apply_env(const struct overrides *o, char ***envp);

/*
 * The whole environment of a command "airlock exec" runs, and nothing
 * else of the caller's: PATH, HOME=/tmp, TMPDIR=/tmp, LANG=C.UTF-8, TERM
 * when |getenv_fn| (getenv, or a fake in tests) finds it, then each
 * --env of |o| (overrides_apply_env()) and, with an --allow-host, the
 * egress proxy's variables (egress_env()).  NULL-terminated, heap-
 * allocated (strv_free()).  The Linux runner and the macOS one
 * (seatbelt_exec_env()) both pass it to execve(2).
 */
char **overrides_exec_env(
    const struct overrides *o, char *(*getenv_fn)(const char *));

/*
 * Refuses what the macOS runner cannot do as the Linux one does
 * (runner/seatbelt_exec.c: no bind mounts, no egress proxy): --rw (the
 * Seatbelt profile lets the command write only the workspace and its
 * TMPDIR, whose rules for .git and the protected paths a new writable
 * directory would lack), --ro (no bind either: a path in the workspace
 * would stay writable, one the profile denies would stay unreadable)
 * and --allow-host.  Returns 0, or AL_ERR_DENIED with a message naming
 * the first such flag and its value in err[0..errlen) (a usage error).
 */
int overrides_check_seatbelt(const struct overrides *o, char *err,
    size_t errlen) __attribute__((warn_unused_result));

void overrides_free(struct overrides *o);

#endif
