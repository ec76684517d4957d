/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wswrite: changes files in the workspace, all or none.
 *
 * Used by write_file and apply_patch, which run in the broker: every path
 * is checked by the write policy every change set also obeys
 * (policy/writepolicy.h: .git and protected patterns at any depth),
 * opened beneath the workspace with path_resolve(), and must be a regular
 * file with one link (a hardlink could alias a file elsewhere) or absent.
 * Only then is anything touched, and the writes land as a change set
 * does (broker/applyjournal.h): a journal in a trash directory of the
 * workspace root, the new contents written and synced there, every
 * replaced or removed file moved into it, every new one renamed into
 * place, the commit point.  A failing step is undone from the journal;
 * a broker killed half way is undone by the next start
 * (changeset_recover()), so a change is never half-applied.  A new file
 * takes the owner of its directory (mode 0644), a replaced one keeps its
 * owner and mode.
 */
#ifndef AIRLOCK_WSWRITE_H
#define AIRLOCK_WSWRITE_H

#include <stddef.h>

#include "policy/manifest.h"

struct ws_change {
	const char	*path;		/* workspace-relative */
	const char	*content;	/* NULL deletes the file */
	size_t		 len;
	int		 must_exist;	/* 1: modify/delete; 0: create only */
	int		 may_exist;	/* for write_file: create or replace */
};

/*
 * Returns 1 if writing |path| breaks a path rule of the write policy
 * (.git or a protected pattern, at any depth: policy/writepolicy.h),
 * else 0.  Pure.
 */
int	wswrite_is_protected(const struct sandbox_policy *p, const char *path);

/*
 * The write policy's verdict on change |c| at |path| (its path as given,
 * or where it really resolves): NULL or the rule's name.  Pure.  Every
 * write wswrite_apply() makes passes it first.
 */
const char *wswrite_rule(const struct sandbox_policy *p,
	    const struct ws_change *c, const char *path);

/*
 * 1 if |after| (|alen| bytes), the new content of workspace-relative
 * |path|, changes a key a hook manager of |h| runs commands from
 * (policy/githooks.h: git_hooks_keys()), against the file's current
 * content beneath |rootfd|, or that content cannot be read (larger than
 * GIT_HOOKS_KEYS_MAX_BYTES and the like); else 0.  Such a write is the git
 * rule's.
 */
struct git_hooks;
int	wswrite_hook_keys_changed(const struct git_hooks *h, int rootfd,
	    const char *path, const char *after, size_t alen);

/*
 * Reads the current content of |path| beneath |rootfd| (NULL if absent)
 * with the same checks as a write, and refused (AL_ERR_PATH) when it, or
 * the directory that would hold it, is or is beneath one of
 * deny[0..ndeny) (sensitive_fd_denied()).  Returns 0 with *data (caller
 * frees, NUL-terminated) or a negative code with a message in err.
 */
/*
 * A |path| beneath |rootfd| that does not resolve (absent, not a
 * directory on the way, refused as it is) is told apart from a denied
 * one only where it is not beneath one of deny[0..ndeny): the deepest
 * place on its way that resolves is checked (sensitive_fd_denied()).
 * NULL, or the reason to say "refused" in place of the error, so that
 * which names a denied directory holds cannot be probed.
 */
const char *wswrite_missing_denied(int rootfd, const char *path,
	    char *const *deny, size_t ndeny);

/*
 * Why |path| beneath |rootfd|, present or not, is hidden by
 * deny[0..ndeny) (sandbox.denyRead) as the broker's own writes refuse
 * it: its directory or the path denied, by device and inode or by name
 * (sensitive_at_denied()), or, where it does not resolve, the deepest
 * place on its way (wswrite_missing_denied()).  NULL if it is not.
 */
const char *wswrite_denied(int rootfd, const char *path, char *const *deny,
	    size_t ndeny);

/* The one text of such a refusal of |path| for |why|, into |buf|. */
void	wswrite_denied_text(char *buf, size_t len, const char *path,
	    const char *why);

int	wswrite_read(int rootfd, const char *path, size_t max, char **data,
	    size_t *len, char *const *deny, size_t ndeny, char *err,
	    size_t errlen)
	    __attribute__((warn_unused_result));

/*
 * Where a write of |path| lands beneath |rootfd|, as wswrite_apply()
 * resolves it: its directory opened beneath the workspace and named as
 * the kernel names it, so that "./x", "d//x" and "link/x" (link -> ".")
 * all give "x".  The budgets count this name: the ledger compares
 * strings, and a dependency file written as "./requirements.txt" was
 * counted as none.  Returns 0 with |out|, or a negative code with a
 * message in err (then wswrite_apply() would refuse |path| too).
 */
int	wswrite_where(int rootfd, const char *path, char *out, size_t outlen,
	    char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * Where |path| beneath |rootfd| really is, every link on the way (the
 * last one too) followed, never out of the workspace: 0 with |out|
 * (workspace-relative), or a negative code (absent, a link out, ...).
 */
int	wswrite_real(int rootfd, const char *path, char *out, size_t outlen)
	    __attribute__((warn_unused_result));

/*
 * The dependency files files[0..nfiles) beneath |rootfd| that a link
 * (theirs or a directory's above them) makes other files: where each
 * really is (wswrite_real()), *n of them, for ledger_dependency_real().
 * The caller frees each string and the array.
 */
char	**wswrite_dependency_real(int rootfd, char *const *files,
	    size_t nfiles, size_t *n);

/*
 * Applies changes[0..n) atomically as described above.  Returns 0, or a
 * negative code with a message in err; on failure nothing has changed.
 * AL_ERR_DENIED: the write policy refused where a change really lands,
 * and *rule names the rule.
 */
int	wswrite_apply(int rootfd, const struct sandbox_policy *p,
	    const struct ws_change *changes, size_t n, const char **rule,
	    char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * Every check wswrite_apply() makes of changes[0..n) before it touches
 * anything (the write policy where each really lands, its directory, an
 * existing target a regular file of one link, must_exist and may_exist),
 * and nothing else: the same codes and *rule, nothing written.  Made
 * before the budgets count a write (patchland.h, writes_checked()): a
 * write refused here after they had counted it spent them on nothing.
 */
int	wswrite_check(int rootfd, const struct sandbox_policy *p,
	    const struct ws_change *changes, size_t n, const char **rule,
	    char *err, size_t errlen) __attribute__((warn_unused_result));

#endif
