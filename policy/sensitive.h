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

/*
 * The credential stores, as components at any depth (".ssh",
 * ".config/gh", ".pgpass", ...), NULL-terminated: what sensitive_path()
 * looks for, and what the Seatbelt profile denies beneath HOME
 * (policy/seatbelt.c), where nothing else keeps them out.
 */
extern const char *const sensitive_cred_stores[];

const char *sensitive_path(const char *path, char *buf, size_t len);
const char *sensitive_forbidden(const char *path, char *const *deny,
    size_t ndeny, char *why, size_t whylen);

/*
 * What the broker reads or writes for the agent in its workspace must be
 * hidden where the runner's sandbox masks it (sandbox.denyRead, which may
 * name a path inside the workspace): one rule for every action.
 * sensitive_fd_denied() says whether the open |fd| is, or is beneath, one
 * of deny[0..ndeny) (absolute) as it is now: by device and inode along
 * the path the kernel names |fd| by (a symbolic or hard link, "./", "//",
 * a trailing "/" or a case variant on a case-insensitive directory reach
 * the same objects), and by that path's name.  NULL, or a short reason;
 * one too when |fd|'s place cannot be told (fail closed).
 * sensitive_stat_denied() is 1 when |st| is the object a deny path
 * leads to now (stat(2) follows it, as the runner's mask does), else 0.
 */
const char *sensitive_fd_denied(int fd, char *const *deny, size_t ndeny);
/*
 * The same for the entry |base| (one name, no "/") of the open directory
 * |dirfd|, present or not: the directory by sensitive_fd_denied(), the
 * entry by its name and, when it exists, by its device and inode.  What
 * the broker writes for the agent passes it, as what it reads does: a
 * denied file is neither read, created nor replaced.
 */
const char *sensitive_at_denied(
    int dirfd, const char *base, char *const *deny, size_t ndeny);
struct stat;
int sensitive_stat_denied(
    const struct stat *st, char *const *deny, size_t ndeny);

/*
 * sensitive_holds_own() is 1 when binding the absolute |path| would show
 * airlock's own state, runtime or configuration directory (common/paths.h;
 * the secret store and its key, the audit keys, the sessions' control
 * sockets): |path| is one of them or holds one (~/.local holds
 * ~/.local/state/airlock), by name or as resolved now.  The directory is
 * written to |own| (|ownlen| bytes).  Else 0.
 */
int sensitive_holds_own(const char *path, char *own, size_t ownlen);

/*
 * Binding a socket, a device or a FIFO read-only still lets it be used
 * (connect(2) to a read-only socket works): sensitive_plain_tree() is 1
 * when |path|, followed as a bind follows it, is a regular file or a
 * directory holding only regular files, symbolic links and such
 * directories, or does not exist; else 0.  A directory is walked to
 * SENSITIVE_PLAIN_MAX entries; a larger one, or one that cannot be read
 * whole, is not plain (fail closed).  An escalation refuses what is not
 * plain as "protected" (broker/denials.c); airlock suggest flags it
 * WEAKENS (policy/suggest.c).  Reads the filesystem.
 */
#define SENSITIVE_PLAIN_MAX 4096

int sensitive_plain_tree(const char *path);

/*
 * A bind is of a whole tree: what binding |path| (absolute, as resolved:
 * the walk follows |path| itself as a bind does) would open that
 * sensitive_forbidden() keeps out.  NULL when |path| is absent, or is
 * sensitive_plain_tree() and no entry beneath it, by its path as the walk
 * reaches it, is sensitive_forbidden() (a credential store at any depth,
 * a denyRead path, airlock's own directories...), and neither a
 * deny[0..ndeny) path nor airlock's state, config or runtime directory
 * (as named or as it resolves) is strictly beneath it; else a short
 * reason.  Reads the filesystem.  Whether |path| itself is forbidden is
 * sensitive_forbidden()'s to say.
 */
const char *sensitive_tree(const char *path, char *const *deny, size_t ndeny);

/*
 * A mask or rule made from a denied path's name is only as good as the
 * links on its way: one the sandbox may rewrite points elsewhere by the
 * next run, and the name then hides a decoy.  sensitive_link_rewritable()
 * walks the absolute |path| from the root, as named; the first of its
 * prefixes that is a symbolic link (lstat(2)) and whose directory, as
 * resolved now, is one of roots[0..nroots) or beneath one (resolved
 * paths; NULL entries skipped) is written to |link| (|linklen| bytes) and
 * 1 returned.  0 when there is none or a part of |path| does not exist
 * (nothing further can be a link).  Reads the filesystem.  The Linux
 * runner (runner/runner.c) and the Seatbelt profile (policy/seatbelt.c)
 * refuse such a denyRead path.
 */
int sensitive_link_rewritable(const char *path, const char *const *roots,
    size_t nroots, char *link, size_t linklen);

/*
 * A denyRead path inside a repository that a sandbox shows is hidden by
 * name only: its content may be in the repository's store (a commit,
 * the index, a stash, a pack: "git show HEAD:.env"), which the sandbox
 * reads.  Which objects hold it cannot be told cheaply (any commit of
 * its history may), so the store itself must be masked.
 * sensitive_vcs_exposed() looks, for each deny[0..ndeny) strictly
 * beneath the directory |top| (absolute, resolved: the workspace or a
 * bind's source), by its name and as it resolves now, in |top| and in
 * each directory between |top| and it, for version-control metadata
 * (vcs_dirs: .git, .hg, .jj, .sl; a directory holding anything but
 * directories, or a file or link, such as the .git file of a worktree or
 * a submodule) that
 * no deny path masks (one naming the metadata itself or a directory
 * above it).  Returns the first such
 * deny[i], with the metadata's path in |store| (|storelen| bytes), or
 * NULL.  A place that cannot be looked at counts as holding metadata
 * (fail closed).  Reads the filesystem.
 */
const char *sensitive_vcs_exposed(const char *top, char *const *deny,
    size_t ndeny, char *store, size_t storelen);
/* The refusal of a sandbox for it: the deny path, then the metadata. */
#define SENSITIVE_VCS_SHOWN \
	"denied path %s may be in the history of %s, which the sandbox " \
	"reads (git show HEAD:...): deny the repository too, or keep the " \
	"secret out of it"

/*
 * A mask made from a denied path's name hides that name, and a hard link
 * is another name for the same file: "cat d/copy" printed a denied key
 * that d/copy was a link to.  sensitive_deny_linked() looks at each of
 * deny[0..ndeny) (absolute, "~" expanded) as it resolves now, as the
 * mask follows it, and, for a directory, at everything beneath it (the
 * walk crosses mounts, as the mask hides them too, and follows no link
 * below the top): each object that is not a directory (directories
 * cannot be hard-linked) and has more names than the walk found beneath
 * the deny paths (st_nlink) has one the mask does not hide.  A name
 * reached twice (two deny paths, or one named through a link and as it
 * resolves) counts once.  An absent deny path hides nothing and is
 * passed.  NULL when there is none; else the first such object, or a
 * place that cannot be read whole, or a walk past |max| entries in all
 * (fail closed: SENSITIVE_LINKS_MAX for a sandbox, whose every start
 * walks them), is written to |msg| (|msglen| bytes) with the remedy and
 * |msg| returned.  Reads the filesystem.
 */
#define SENSITIVE_LINKS_MAX 10000

const char *sensitive_deny_linked(
    char *const *deny, size_t ndeny, size_t max, char *msg, size_t msglen);

/* Does |path| hold |comp| ("a" or "a/b") as whole consecutive components? */
int path_has_components(const char *path, const char *comp);

#endif
