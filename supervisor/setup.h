/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * setup: what run, serve and exec share before they start serving: the
 * manifest (a file or the built-in default) and the canonical workspace.
 */
#ifndef AIRLOCK_SETUP_H
#define AIRLOCK_SETUP_H

#include <limits.h>

#include "policy/manifest.h"

/*
 * Loads |path|, or the built-in default manifest when |path| is NULL.
 * Returns the manifest, or prints the diagnostic and returns NULL.
 */
struct manifest	*setup_manifest(const char *path);

/*
 * Resolves |path| (default ".") to a canonical absolute directory in
 * out[PATH_MAX].  Refuses "/" and anything that is not a directory.
 * Returns 0, or prints why and returns the exit status (commands.h):
 * EXIT_NOINPUT when |path| does not exist, else EXIT_USAGE.
 */
int		 setup_workspace(const char *path, char out[PATH_MAX]);

/*
 * Refuses a workspace |ws| (canonical) that contains, or lies inside,
 * airlock's state (sessions, audit logs), runtime (approvals) or
 * credential directories: runners and the agent would see them.  Returns
 * 0, or prints both paths and returns -1 (also when they cannot be told).
 */
int		 setup_workspace_apart(const char *ws);

/*
 * Makes the manifest |m| was loaded from, and its signature (PATH.sig),
 * protected paths (sandbox.protected) of |m|'s sandbox when they lie in
 * the workspace |workspace|: the name in its directory and, for a link,
 * what it resolves to.  An agent that could write them would choose the
 * policy of the next session (with signatures required, any manifest
 * the team ever signed: an older, looser version and its .sig from the
 * history, or another of the team's manifests).
 */
void		 setup_protect_manifest(struct manifest *m,
    const char *workspace);

#endif
