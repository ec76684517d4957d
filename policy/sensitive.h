/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * sensitive: the host paths that no widening opens by itself.  One list
 * for the two places that judge a widening: an escalation refuses them
 * as its "protected" class (broker/denials.c), and airlock suggest flags
 * a change naming them WEAKENS (policy/suggest.c).
 *
 * sensitive_path() looks at the path as written (no filesystem access):
 * a credential store at any depth (~/.ssh, ~/.aws, .git-credentials...)
 * or the host's secrets and kernel interfaces (/etc/shadow, /etc/ssh,
 * /proc, /sys, /dev, /run, the X11 socket directory...).  It returns
 * NULL, or a static phrase naming what |path| is in ("a credential store
 * (~/.ssh)"), written to |buf| (at most |len| bytes, NUL-terminated).
 *
 * sensitive_forbidden() is what no bind may reach, for the runner's
 * check of a link (runner/runner.c) and an escalation's protected class
 * (broker/denials.c): the absolute |path| is sensitive_path(), or is
 * deny[0..ndeny) (sandbox.denyRead, "~" expanded) or airlock's own
 * state, config or runtime directory (common/paths.h), or beneath one.
 * A directory named with trailing slashes counts without them, and "/"
 * holds every absolute path.  It returns NULL or a short reason:
 * sensitive_path()'s phrase in |why| (|whylen| bytes), "a denyRead path"
 * or "airlock's own state".
 */
#ifndef AIRLOCK_SENSITIVE_H
#define AIRLOCK_SENSITIVE_H

#include <stddef.h>

const char *sensitive_path(const char *path, char *buf, size_t len);
const char *sensitive_forbidden(const char *path, char *const *deny,
    size_t ndeny, char *why, size_t whylen);

/* Does |path| hold |comp| ("a" or "a/b") as whole consecutive components? */
int path_has_components(const char *path, const char *comp);

#endif
