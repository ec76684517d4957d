/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * denywatch: what the host does to a denied directory in a bind it
 * writes while a sandbox runs (the workspace bound live, a readWrite
 * entry, agent.home).  The sandbox masks such a directory by a mount on
 * its dentry (runner/child.c), which a process outside every sandbox
 * takes away by removing or moving the directory, or a directory above
 * it below the bind's top ("rm -rf d; mkdir d", "mv d d.old", "mv new
 * d", "mv conf conf.old" for conf/d): what it makes at the name next is
 * shown.  No mount in the sandbox's namespace can stop that; the runner
 * kills the sandbox when it happens (runner_proc_step()).
 */
#ifndef AIRLOCK_DENYWATCH_H
#define AIRLOCK_DENYWATCH_H

#include <stddef.h>

struct deny_watch;

/*
 * Watches the directory |dir| (resolved, absolute) and each directory
 * between it and |top| (the bind's top, resolved; not itself watched
 * but as the parent of what is) for their removal or move, adding to
 * *wp (made at the first call).  0, or -1 with errno (inotify).
 */
int deny_watch_add(struct deny_watch **wp, const char *dir, const char *top);

/* The descriptor to poll: readable when an event came. */
int deny_watch_fd(const struct deny_watch *w);

/*
 * Reads what came; the watched directory that was removed or moved (or
 * "events were lost" when the queue overflowed: the same, fail closed),
 * a string *w owns, or NULL when nothing that matters did.
 */
const char *deny_watch_read(struct deny_watch *w);

void deny_watch_free(struct deny_watch *w);

#endif
