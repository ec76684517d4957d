/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * agent_bin: what the agent command, as typed on the host, needs to run
 * inside its sandbox.
 *
 * "airlock run -- claude" finds claude on the host's PATH, as a shell
 * would.  What it finds is often not the program itself: a symlink into
 * an npm package (/usr/bin/claude -> ../lib/node_modules/@anthropic-ai/
 * claude-code/cli.js), a script whose interpreter lives elsewhere
 * ("#!/usr/bin/env node", a venv's python), or a single binary.
 * agent_bin_resolve() follows it and lists the host paths to bind
 * read-only, each with the reason, so the command runs inside by the
 * same path it has outside:
 *
 *   - the path as found, when it is a symlink (recreated inside);
 *   - the resolved program;
 *   - for a program inside an npm package (a directory holding
 *     package.json beneath a node_modules directory): that whole
 *     node_modules directory, so that sibling packages such as
 *     @openai/codex-linux-x64, an optional dependency holding the native
 *     binary, come along;
 *   - for a script: its interpreter ("env NAME" looked up in PATH), as
 *     found and resolved, and, when the interpreter belongs to a Python
 *     virtual environment (a pyvenv.cfg beside its bin directory), the
 *     environment's root.
 *
 * It reads the file system (stat, readlink, the first line of a script)
 * and nothing else: no process, no environment; the caller passes PATH.
 */
#ifndef AIRLOCK_AGENT_BIN_H
#define AIRLOCK_AGENT_BIN_H

#include <stddef.h>

#define AGENT_BIN_MAX_BINDS 8

struct agent_bin_bind {
	char *path; /* absolute, every directory resolved; the
				   last component may be a symlink */
	char *why; /* "npm package of /usr/bin/claude" */
};

struct agent_bin {
	char *path; /* what to execute: the command as found,
					   absolute, its directory resolved */
	char *dir; /* the directory it was found in */
	struct agent_bin_bind binds[AGENT_BIN_MAX_BINDS];
	size_t nbinds;
};

/*
 * Looks |cmd| up as execvp(3) would in |path_env| (a colon-separated
 * list; NULL means "/usr/local/bin:/usr/bin:/bin"), unless it holds a
 * '/', and works out what it needs (above).  Returns 0 and sets *out
 * (caller frees with agent_bin_free), or AL_ERR_NOT_FOUND with a message
 * in err[0..errlen) when there is no such executable, or AL_ERR_PATH when
 * it cannot be resolved.
 */
int agent_bin_resolve(const char *cmd, const char *path_env,
    struct agent_bin **out, char *err, size_t errlen)
    __attribute__((warn_unused_result));

void agent_bin_free(struct agent_bin *ab);

#endif
