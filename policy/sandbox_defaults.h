/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * sandbox_defaults: the safe default sandbox policy.
 *
 * The manifest loader starts from these values and overrides what the
 * manifest sets; "airlock exec" without a manifest uses them as they are.
 */
#ifndef AIRLOCK_SANDBOX_DEFAULTS_H
#define AIRLOCK_SANDBOX_DEFAULTS_H

#include "policy/manifest.h"

/* System directories bound read-only into every runner (NULL-terminated). */
extern const char *const sandbox_system_dirs[];

/* Files and directories under /etc bound read-only when present. */
extern const char *const sandbox_etc_entries[];

/*
 * Fills |p| with the defaults: uid/gid 65534, read_only = the system
 * directories and /etc entries above (as absolute paths; the runner binds
 * these in any case, so a policy that lists other paths cannot lose
 * them), no denied paths, protected {".git"}, no network, the default seccomp
 * profile, landlock on, direct workspace, and the default limits (CPU 60 s,
 * address space unlimited, file size 1024 MB, 256 open files, 256
 * processes, memory 1024 MB, one CPU, /tmp 64 MB, output 1 MiB).
 *
 * Every array is heap-allocated and NULL-terminated, with its count set;
 * the owner frees each element and then the array with free() (or with
 * sandbox_policy_free_arrays()).  Stops the process if memory runs out.
 */
void	sandbox_policy_init_defaults(struct sandbox_policy *p);

/* Frees the arrays of |p| (read_only, deny_read, protected) and NULLs them. */
void	sandbox_policy_free_arrays(struct sandbox_policy *p);

/*
 * sandbox.denyRead's and "airlock exec --deny-read"'s rule for one path
 * |s|: absolute, or "~" or "~/..." with |home| (the caller's $HOME, may
 * be NULL) absolute; no ".." component.  On success stores the absolute
 * path, "~" expanded, empty and "." components and trailing slashes
 * dropped ("/a//./.env/" names "/a/.env"), in *out (caller frees) and returns NULL; else sets *out to
 * NULL and returns a static reason.  Stops the process if memory runs
 * out.
 */
const char	*sandbox_deny_read_path(const char *s, const char *home,
		    char **out);

#endif
