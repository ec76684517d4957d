/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * hookplants: the hook managers' files an agent wrote in its session's
 * view, for the runners that see that view.
 *
 * A copy-on-write session's runner reads the checkout's git config, and
 * a hook of the checkout that runs lint-staged takes, for each staged
 * file, the lint-staged config nearest it (any depth) or a package.json's
 * "lint-staged" key; husky v4's hook the top package.json's "husky" key
 * (policy/githooks.h).  In the view those files are the agent's: a check
 * granted a secret that runs "git commit" would run the agent's commands
 * with the secret.  No list made from the checkout names them, so the
 * session's upper layer, which holds every entry the agent made or
 * changed and only those, is walked: each entry named like a lint-staged
 * config beneath the working tree's top, and each package.json whose
 * watched key the agent gave a new value (git_hooks_keys_changed()
 * against the checkout's; or that is now a symlink, or is past
 * GIT_HOOKS_KEYS_MAX_BYTES), is added to the paths the runner covers with
 * the checkout's own (runner/child.c hooks_cover()).  Whiteouts (a
 * removal) and other devices are passed over.  Nothing is followed: the
 * upper layer is opened a directory at a time with O_NOFOLLOW, the
 * checkout with RESOLVE_BENEATH and no symlinks.
 */
#ifndef AIRLOCK_POLICY_HOOKPLANTS_H
#define AIRLOCK_POLICY_HOOKPLANTS_H

#include <stddef.h>

#include "policy/githooks.h"

/* More than this many plants: the run is refused, not half covered. */
#define HOOKPLANTS_MAX 64
/* Bounds of the walk; past either the run is refused. */
#define HOOKPLANTS_MAX_DEPTH 256
#define HOOKPLANTS_MAX_ENTRIES (1L << 20)

/*
 * Appends to |l| (from git_hooks_list() for the checkout at |ws|) the
 * plants found in the upper layer |upper| (both absolute), when |l|
 * watches lint-staged or husky v4 (else does nothing).  0, or -1 with
 * |err| set: more than HOOKPLANTS_MAX plants, a walk past its bounds, an
 * entry or file that cannot be read.  |l| keeps what was added either
 * way (git_hooks_list_free() frees it).
 */
int hookplants_find(struct git_hooks_list *l, const char *ws,
    const char *upper, char *err, size_t errlen);

#endif
