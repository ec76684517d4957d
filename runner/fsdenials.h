/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * fsdenials: filesystem refusals from the command's own report, checked
 * against the runner's policy.
 *
 * Without kernel audit the runner cannot see which path landlock or a
 * missing bind refused, but the command usually says so on stderr
 * ("cat: /root/.npmrc: No such file or directory", "touch: cannot touch
 * '/usr/x': Read-only file system", "[Errno 13] Permission denied:
 * '/x'").  runner_fs_denials() takes the paths such lines name, resolves
 * them against the command's directory (lexically: "." and ".." only)
 * and records one only when the policy really refuses that access:
 *
 *   read   the path exists on the host but is not visible in the sandbox
 *          (not beneath the workspace, a read-only or read-write bind, or
 *          the sandbox's own /tmp, /dev/shm, /dev, /proc), or it is
 *          beneath a denyRead path: source "mount";
 *   write  the line says EROFS, or names a write ("cannot touch",
 *          "cannot create", ...), for a path outside the writable roots
 *          (the workspace minus its protected paths, the read-write binds,
 *          /tmp, /dev/shm, the home) that exists on the host or whose
 *          directory does: source "mount" for EROFS or a hidden path,
 *          "landlock" for EACCES/EPERM.
 *
 * A line naming a path the policy allows gives nothing: a genuinely
 * missing file is not a denial.  Because the line is only the command's
 * word, an entry names at most the path the line names (never a parent)
 * and only one the policy does refuse.  Pure apart from the
 * |exists| callback; unit-tested.
 */
#ifndef AIRLOCK_RUNNER_FSDENIALS_H
#define AIRLOCK_RUNNER_FSDENIALS_H

#include <stddef.h>

#include "runner/runner.h"

/* The longest path an entry holds, with its NUL (runner_denial.path). */
#define RUNNER_MAX_DENIAL_PATH 4096

struct runner_fs_view {
	const char *workspace; /* absolute, resolved */
	int workspace_ro; /* nothing written there */
	const char *const *ro; /* visible read-only roots */
	size_t nro;
	const char *const *rw; /* writable roots besides the
						   workspace (absolute) */
	size_t nrw;
	const char *const *deny; /* denyRead, absolute */
	size_t ndeny;
	const char *const *protected; /* workspace-relative */
	size_t nprotected;
	/*
	 * 1 if |path| exists on the host (lstat) where the runner's own
	 * user could find it, else 0; |exists_arg| is passed on.
	 */
	int (*exists)(const char *path, void *arg);
	void *exists_arg;
};

/*
 * Adds the refusals err[0..errlen) reports to list[0..*n)
 * (runner_denial_add semantics) for a command that ran in |cwd|
 * (absolute).  Returns how many were added.
 */
size_t runner_fs_denials(const struct runner_fs_view *v, const char *cwd,
    const char *err, size_t errlen, struct runner_denial *list, size_t *n);

/*
 * Resolves |path| against |cwd| lexically (no symlinks) into out: 0, or
 * -1 if it does not fit.  Exposed for the tests.
 */
int runner_fs_normalize(
    const char *cwd, const char *path, char *out, size_t outlen);

#endif
