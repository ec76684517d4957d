/*
 * sandbox_defaults: the sandbox policy a manifest gets when it says
 * nothing (no "sandbox:" section, or keys left out of it).
 */
#ifndef AIRLOCK_SANDBOX_DEFAULTS_H
#define AIRLOCK_SANDBOX_DEFAULTS_H

#include "policy/manifest.h"

/*
 * Fills |p| with the defaults: uid/gid 65534 (nobody), read-only
 * /usr /bin /lib /lib64 /sbin /etc, protected ".git", no network, the
 * default seccomp profile, landlock on, direct workspace, and the default
 * resource limits.  The arrays (read_only, deny_read, protected) are
 * heap-allocated, NULL-terminated, with their counts set; the caller
 * frees each string and each array with free() (manifest_free does).
 * Anything |p| held before is overwritten, not freed.  Stops the process
 * if memory runs out.
 */
void sandbox_policy_init_defaults(struct sandbox_policy *p);

#endif
