/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/applyjournal.h"
#include "broker/wswrite.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/githooks.h"
#include "policy/path.h"
#include "policy/sensitive.h"
#include "policy/writepolicy.h"

int
wswrite_is_protected(const struct sandbox_policy *p, const char *path)
{
	return writepolicy_path(p, path) != NULL;
}

/*
 * Whether a directory above |rel| (resolved: no symlink in it) holds a
 * HEAD, which makes it a git directory whatever its name (writepolicy.h,
 * the git rule), or |rel| is in a hooks directory of git's config
 * (policy/githooks.h).  Those directories exist: what cannot be told
 * counts.
 */
static int
in_git_dir(int rootfd, const char *rel, const struct ws_change *c)
{
	struct git_hooks h;
	char dir[4096], err[256];
	struct stat st;
	size_t i;
	int fd, rc;

	if (snprintf(dir, sizeof(dir), "%s", rel) >= (int)sizeof(dir))
		return 1;
	if (git_hooks_find(rootfd, &h, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		return 1;
	}
	rc = git_hooks_cover(&h, rel) ||
	    wswrite_hook_keys_changed(&h, rootfd, rel, c->content, c->len);
	git_hooks_free(&h);
	if (rc)
		return 1;
	if (fstatat(rootfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT)
		return 1;
	for (i = 0; dir[i] != '\0'; i++) {
		if (dir[i] != '/')
			continue;
		dir[i] = '\0';
		rc = path_resolve_walk(
		    rootfd, dir, O_PATH | O_DIRECTORY, &fd, NULL, 0);
		dir[i] = '/';
		if (rc != 0)
			return 1;
		rc = fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW);
		close(fd);
		if (rc == 0 || errno != ENOENT)
			return 1;
	}
	return 0;
}

/* The write policy's rule for |c| at |path|; |in_git_dir|: a directory
 * above it holds a HEAD (writepolicy.h, the git rule). */
static const char *
rule_for(const struct sandbox_policy *p, const struct ws_change *c,
    const char *path, int in_git_dir)
{
	struct wp_entry e;

	memset(&e, 0, sizeof(e));
	e.path = path;
	e.kind = c->content != NULL ? WP_FILE : WP_DELETE;
	e.mode = 0644;
	e.nlink = 1;
	e.in_git_dir = in_git_dir;
	return writepolicy_check(p, &e);
}

const char *
wswrite_rule(const struct sandbox_policy *p, const struct ws_change *c,
    const char *path)
{
	return rule_for(p, c, path, 0);
}

/* wswrite_rule() for |canon|, where the change really lands, with what
 * the workspace says of the directories above it. */
static const char *
rule_at(int rootfd, const struct sandbox_policy *p, const struct ws_change *c,
    const char *canon)
{
	return rule_for(
	    p, c, canon, c->content != NULL && in_git_dir(rootfd, canon, c));
}

int
wswrite_hook_keys_changed(const struct git_hooks *h, int rootfd,
    const char *path, const char *after, size_t alen)
{
	unsigned keys = git_hooks_keys(h, path);
	char *before, err[256];
	size_t blen;
	int rc;

	if (keys == 0)
		return 0;
	if (wswrite_read(rootfd, path, GIT_HOOKS_KEYS_MAX_BYTES, &before, &blen,
	    NULL, 0, err, sizeof(err)) != 0)
		return 1;
	rc = git_hooks_keys_changed(keys, before, blen, after, alen);
	free(before);
	return rc;
}

/* Opens the parent directory of |path| beneath |rootfd|; *base is borrowed. */
static int
open_parent(int rootfd, const char *path, int *dirfd, const char **base,
    char *err, size_t errlen)
{
	char	 dir[4096];
	const char *slash = strrchr(path, '/');

	if (slash == NULL) {
		snprintf(dir, sizeof(dir), ".");
		*base = path;
	} else {
		if ((size_t)(slash - path) >= sizeof(dir)) {
			snprintf(err, errlen, "%s: path too long", path);
			return AL_ERR_LIMIT;
		}
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		*base = slash + 1;
	}
	if ((*base)[0] == '\0' || strcmp(*base, ".") == 0 ||
	    strcmp(*base, "..") == 0) {
		snprintf(err, errlen, "%s: not a file path", path);
		return AL_ERR_PATH;
	}
	return path_resolve(rootfd, dir, O_RDONLY | O_DIRECTORY, dirfd, err,
	    errlen);
}

/* |fd|'s name relative to the workspace |rootfd| ("" for the root), as
 * the kernel names it.  Returns 0 or AL_ERR_SYSTEM. */
static int
rel_name(int rootfd, int fd, char *out, size_t outlen)
{
	char	 root[4096], dir[4096], link[64];
	ssize_t	 n;
	size_t	 rl;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", rootfd);
	if ((n = readlink(link, root, sizeof(root) - 1)) < 0)
		return AL_ERR_SYSTEM;
	root[n] = '\0';
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, dir, sizeof(dir) - 1)) < 0)
		return AL_ERR_SYSTEM;
	dir[n] = '\0';
	rl = strlen(root);
	if (strncmp(dir, root, rl) != 0 || (dir[rl] != '\0' && dir[rl] != '/'))
		return AL_ERR_SYSTEM;
	n = snprintf(out, outlen, "%s", dir[rl] == '/' ? dir + rl + 1 : "");
	return n < 0 || (size_t)n >= outlen ? AL_ERR_SYSTEM : 0;
}

/*
 * Where |base| in |dirfd| really is, relative to the workspace: the
 * kernel's name for the resolved directory, so that "./.git/x" or a
 * symlink "gitlink" -> ".git" cannot dodge the protected-path check.
 * Returns 0 or AL_ERR_SYSTEM.
 */
static int
canonical_path(int rootfd, int dirfd, const char *base, char *out,
    size_t outlen)
{
	char	 dir[4096];
	int	 n;

	if (rel_name(rootfd, dirfd, dir, sizeof(dir)) != 0)
		return AL_ERR_SYSTEM;
	if (dir[0] == '\0')
		n = snprintf(out, outlen, "%s", base);
	else
		n = snprintf(out, outlen, "%s/%s", dir, base);
	return n < 0 || (size_t)n >= outlen ? AL_ERR_SYSTEM : 0;
}

int
wswrite_real(int rootfd, const char *path, char *out, size_t outlen)
{
	int	fd, rc;

	if ((rc = path_resolve(rootfd, path, O_PATH, &fd, NULL, 0)) != 0)
		return rc;
	rc = rel_name(rootfd, fd, out, outlen);
	close(fd);
	return rc;
}

int
wswrite_where(int rootfd, const char *path, char *out, size_t outlen,
    char *err, size_t errlen)
{
	const char	*base;
	int		 dirfd, rc;

	if ((rc = open_parent(rootfd, path, &dirfd, &base, err, errlen)) != 0)
		return rc;
	rc = canonical_path(rootfd, dirfd, base, out, outlen);
	close(dirfd);
	if (rc != 0)
		snprintf(err, errlen, "%s: cannot tell where it is", path);
	return rc != 0 ? AL_ERR_PATH : 0;
}

char **
wswrite_dependency_real(int rootfd, char *const *files, size_t nfiles,
    size_t *n)
{
	char	**real, buf[PATH_REL_MAX + 1];
	size_t	  i;

	real = xcalloc(nfiles + 1, sizeof(*real));
	*n = 0;
	for (i = 0; i < nfiles; i++)
		if (wswrite_real(rootfd, files[i], buf, sizeof(buf)) == 0 &&
		    strcmp(buf, files[i]) != 0)
			real[(*n)++] = xstrdup(buf);
	return real;
}

/* Checks the existing target: a regular file with one link, or absent. */
static int
check_target(int dirfd, const char *base, const char *path, struct stat *st,
    int *exists, char *err, size_t errlen)
{
	*exists = 0;
	if (fstatat(dirfd, base, st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	*exists = 1;
	if (S_ISLNK(st->st_mode)) {
		snprintf(err, errlen, "%s is a symbolic link; refusing to "
		    "write through it", path);
		return AL_ERR_PATH;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s is not a regular file", path);
		return AL_ERR_PATH;
	}
	if (st->st_nlink > 1) {
		snprintf(err, errlen, "%s has %ju hard links; refusing to "
		    "write a file that may alias one outside the workspace",
		    path, (uintmax_t)st->st_nlink);
		return AL_ERR_PATH;
	}
	return 0;
}

void
wswrite_denied_text(char *buf, size_t len, const char *path, const char *why)
{
	snprintf(buf, len, "%s: refused: %s (sandbox.denyRead hides it from "
	    "the agent)", path, why);
}

const char *
wswrite_missing_denied(int rootfd, const char *path, char *const *deny,
    size_t ndeny)
{
	char		 buf[PATH_REL_MAX + 1], *slash;
	const char	*why, *next = NULL;
	int		 fd, n;

	if (ndeny == 0)
		return NULL;
	n = snprintf(buf, sizeof(buf), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return NULL;
	/*
	 * The deepest place that resolves, up to the workspace itself, and
	 * the first name on the way that does not, by its name: a denied
	 * path absent when a sandbox started is whited out in its view
	 * (runner/child.c absent_layer()) whatever the host has made since.
	 */
	for (;;) {
		if (path_resolve(rootfd, buf[0] != '\0' ? buf : ".", O_PATH,
		    &fd, NULL, 0) == 0) {
			why = sensitive_fd_denied(fd, deny, ndeny);
			if (why == NULL && next != NULL)
				why = sensitive_at_denied(
				    fd, next, deny, ndeny);
			close(fd);
			return why;
		}
		if (buf[0] == '\0')
			return NULL;
		if ((slash = strrchr(buf, '/')) != NULL) {
			*slash = '\0';
			next = path + (slash - buf) + 1;
		} else {
			next = path;
			buf[0] = '\0';
		}
	}
}

const char *
wswrite_denied(int rootfd, const char *path, char *const *deny, size_t ndeny)
{
	const char *base, *why;
	char err[256];
	int dirfd;

	if (ndeny == 0)
		return NULL;
	if (open_parent(rootfd, path, &dirfd, &base, err, sizeof(err)) != 0)
		return wswrite_missing_denied(rootfd, path, deny, ndeny);
	why = sensitive_at_denied(dirfd, base, deny, ndeny);
	close(dirfd);
	return why;
}

/*
 * open_parent() for what the agent may see: |path| refused, as absent or
 * present alike, where sandbox.denyRead (deny[0..ndeny)) hides it.
 */
static int
open_parent_shown(int rootfd, const char *path, char *const *deny,
    size_t ndeny, int *dirfd, const char **base, char *err, size_t errlen)
{
	const char	*why;
	int		 rc;

	if ((rc = open_parent(rootfd, path, dirfd, base, err, errlen)) != 0) {
		if ((why = wswrite_missing_denied(rootfd, path, deny, ndeny)) ==
		    NULL)
			return rc;
	} else if ((why = sensitive_at_denied(*dirfd, *base, deny, ndeny)) ==
	    NULL)
		return 0;
	else
		close(*dirfd);
	*dirfd = -1;
	wswrite_denied_text(err, errlen, path, why);
	return AL_ERR_PATH;
}

int
wswrite_read(int rootfd, const char *path, size_t max, char **data,
    size_t *len, char *const *deny, size_t ndeny, char *err, size_t errlen)
{
	struct stat	 st;
	const char	*base, *why;
	int		 dirfd, fd, exists, rc;

	*data = NULL;
	*len = 0;
	if ((rc = open_parent_shown(rootfd, path, deny, ndeny, &dirfd, &base,
	    err, errlen)) != 0)
		return rc;
	if ((rc = check_target(dirfd, base, path, &st, &exists, err,
	    errlen)) != 0 || !exists) {
		close(dirfd);
		return rc;
	}
	if ((size_t)st.st_size > max) {
		close(dirfd);
		snprintf(err, errlen, "%s is larger than %zu bytes", path, max);
		return AL_ERR_LIMIT;
	}
	fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK);
	close(dirfd);
	if (fd == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if ((why = sensitive_fd_denied(fd, deny, ndeny)) != NULL) {
		close(fd);
		wswrite_denied_text(err, errlen, path, why);
		return AL_ERR_PATH;
	}
	*data = read_fd_upto(fd, (size_t)st.st_size, len);
	close(fd);
	return 0;
}

/* One change in flight: where it goes, and how to undo it. */
struct pending {
	int	 dirfd;
	char	 base[256];
	char	 canon[4096];	/* where it lands, no symlink in it */
	int	 exists;
	uid_t	 uid;		/* the new file's owner, and its mode */
	gid_t	 gid;
	mode_t	 mode;
};

/* The name of change |i|'s new content in the trash directory. */
static void
new_name(char *out, size_t outlen, size_t i)
{
	snprintf(out, outlen, "new-%zu", i);
}

/* Writes |c|'s content as |name| in the trash |trashfd|, synced. */
static int
write_new(int trashfd, const char *name, const struct pending *pd,
    const struct ws_change *c, char *err, size_t errlen)
{
	int	fd, e;

	fd = openat(trashfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1) {
		snprintf(err, errlen, "%s: %s", c->path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	/* Without privilege, fchown fails and the file stays ours: fine. */
	if (fchown(fd, pd->uid, pd->gid) == -1)
		errno = 0;
	if (fchmod(fd, pd->mode) == -1 ||
	    write_all(fd, c->content, c->len) != 0 || fsync(fd) == -1) {
		e = errno;
		snprintf(err, errlen, "%s: %s", c->path, strerror(e));
		close(fd);
		return applyjournal_failed(e);
	}
	close(fd);
	return 0;
}

/*
 * The apply journal of changes[0..n) (broker/applyjournal.h): every
 * existing target is a removal, every content a write step, in order.
 */
static json_t *
journal_of(const struct ws_change *changes, const struct pending *pd,
    size_t n)
{
	json_t	*removals = json_array(), *steps = json_array(), *step;
	size_t	 i, k = 0;

	for (i = 0; i < n; i++) {
		if (pd[i].exists)
			json_array_append_new(removals,
			    json_string(pd[i].canon));
		if (changes[i].content == NULL) {
			k += pd[i].exists;
			continue;
		}
		step = json_pack("{s:s, s:s}", "op", "write", "path",
		    pd[i].canon);
		if (pd[i].exists)
			json_object_set_new(step, "removal",
			    json_integer((json_int_t)k++));
		json_array_append_new(steps, step);
	}
	return json_pack("{s:i, s:o, s:o}", "version", 2, "removals",
	    removals, "steps", steps);
}

/*
 * Lands the checked changes as a change set lands (broker/changeset.c):
 * a journal in a trash directory first, then every new content written
 * there and synced, every replaced or removed file moved into it, every
 * new file renamed into place; the commit point; the trash removed.  A
 * failure is undone from the journal; a broker killed half way is undone
 * by the next start (changeset_recover()), never left half-applied.
 */
static int
land(int rootfd, const struct ws_change *changes, struct pending *pd,
    size_t n, char *err, size_t errlen)
{
	char	 trash[64], name[32];
	json_t	*journal;
	size_t	 i, k = 0, made = 0;
	int	 wsfd, trashfd, rc = 0;

	if ((wsfd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "workspace: %s", strerror(errno));
		return AL_ERR_SYSTEM;
	}
	journal = journal_of(changes, pd, n);
	if ((rc = applyjournal_begin(wsfd, journal, trash, sizeof(trash),
	    &trashfd, err, errlen)) != 0) {
		json_decref(journal);
		close(wsfd);
		return rc;
	}
	for (i = 0; i < n && rc == 0; i++) {
		new_name(name, sizeof(name), i);
		if (changes[i].content != NULL)
			rc = write_new(trashfd, name, &pd[i], &changes[i], err,
			    errlen);
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (!pd[i].exists)
			continue;
		snprintf(name, sizeof(name), "%zu", k++);
		if (renameat(pd[i].dirfd, pd[i].base, trashfd, name) == -1) {
			rc = applyjournal_failed(errno);
			snprintf(err, errlen, "%s: %s", changes[i].path,
			    strerror(errno));
		}
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (changes[i].content == NULL)
			continue;
		new_name(name, sizeof(name), i);
		if (renameat2(trashfd, name, pd[i].dirfd, pd[i].base,
		    RENAME_NOREPLACE) == -1) {
			rc = applyjournal_failed(errno);
			snprintf(err, errlen, "%s: %s", changes[i].path,
			    strerror(errno));
			break;
		}
		made++;
	}
	for (i = 0; i < n && rc == 0; i++)
		if (fsync(pd[i].dirfd) == -1 && errno != EINVAL) {
			snprintf(err, errlen, "%s: %s", changes[i].path,
			    strerror(errno));
			rc = AL_ERR_IO;
		}
	if (rc == 0 && (fsync(trashfd) == -1 ||
	    applyjournal_commit(trashfd) != 0)) {
		snprintf(err, errlen, "apply journal: %s", strerror(errno));
		rc = AL_ERR_IO;
	}
	rc = applyjournal_end(wsfd, trashfd, trash, journal, made, rc);
	close(wsfd);
	return rc;
}

/*
 * Every check of changes[0..n) wswrite_apply() makes before it touches
 * anything, each one's place into pd[0..n) (their dirfd, -1 before, the
 * caller's to close).  0, or a code as wswrite_apply()'s.
 */
static int
check_all(int rootfd, const struct sandbox_policy *p,
    const struct ws_change *changes, struct pending *pd, size_t n,
    const char **denied, char *err, size_t errlen)
{
	struct stat	 st, dst;
	const char	*base, *rule;
	size_t		 i;
	int		 rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		const struct ws_change *c = &changes[i];

		if ((rule = wswrite_rule(p, c, c->path)) != NULL) {
			snprintf(err, errlen, "%s: %s (%s)", c->path,
			    writepolicy_rule_text(rule), rule);
			rc = AL_ERR_DENIED;
			break;
		}
		/* Hidden from the agent: neither created nor replaced. */
		if ((rc = open_parent_shown(rootfd, c->path, p->deny_read,
		    p->ndeny_read, &pd[i].dirfd, &base, err, errlen)) != 0)
			break;
		snprintf(pd[i].base, sizeof(pd[i].base), "%s", base);
		if (canonical_path(rootfd, pd[i].dirfd, base, pd[i].canon,
		    sizeof(pd[i].canon)) != 0) {
			snprintf(err, errlen, "%s: cannot tell where it is",
			    c->path);
			rc = AL_ERR_PATH;
			break;
		}
		if ((rule = rule_at(rootfd, p, c, pd[i].canon)) != NULL) {
			snprintf(err, errlen, "%s is %s: %s (%s)", c->path,
			    pd[i].canon, writepolicy_rule_text(rule), rule);
			*denied = rule;
			rc = AL_ERR_DENIED;
			break;
		}
		if ((rc = check_target(pd[i].dirfd, base, c->path, &st,
		    &pd[i].exists, err, errlen)) != 0)
			break;
		if (pd[i].exists && !c->must_exist && !c->may_exist) {
			snprintf(err, errlen, "%s already exists", c->path);
			rc = AL_ERR_CONFLICT;
			break;
		}
		if (!pd[i].exists && c->must_exist) {
			snprintf(err, errlen, "%s does not exist", c->path);
			rc = AL_ERR_NOT_FOUND;
			break;
		}
		/* A replaced file keeps its owner and mode; a new one takes
		 * its directory's owner, mode 0644. */
		if (pd[i].exists) {
			pd[i].uid = st.st_uid;
			pd[i].gid = st.st_gid;
			pd[i].mode = st.st_mode & 0777;
		} else {
			if (fstat(pd[i].dirfd, &dst) == -1) {
				snprintf(err, errlen, "%s: %s", c->path,
				    strerror(errno));
				rc = AL_ERR_SYSTEM;
				break;
			}
			pd[i].uid = dst.st_uid;
			pd[i].gid = dst.st_gid;
			pd[i].mode = 0644;
		}
	}
	return rc;
}

/* Checks changes[0..n) (check_all()), then lands them if |apply|. */
static int
check_and_land(int rootfd, const struct sandbox_policy *p,
    const struct ws_change *changes, size_t n, int apply,
    const char **denied, char *err, size_t errlen)
{
	struct pending	*pd;
	size_t		 i;
	int		 rc;

	pd = xcalloc(n ? n : 1, sizeof(*pd));
	for (i = 0; i < n; i++)
		pd[i].dirfd = -1;
	/* Every check first: nothing is touched until all pass. */
	rc = check_all(rootfd, p, changes, pd, n, denied, err, errlen);
	if (rc == 0 && n > 0 && apply)
		rc = land(rootfd, changes, pd, n, err, errlen);
	for (i = 0; i < n; i++)
		if (pd[i].dirfd != -1)
			close(pd[i].dirfd);
	free(pd);
	return rc;
}

int
wswrite_check(int rootfd, const struct sandbox_policy *p,
    const struct ws_change *changes, size_t n, const char **denied, char *err,
    size_t errlen)
{
	return check_and_land(rootfd, p, changes, n, 0, denied, err, errlen);
}

int
wswrite_apply(int rootfd, const struct sandbox_policy *p,
    const struct ws_change *changes, size_t n, const char **denied, char *err,
    size_t errlen)
{
	return check_and_land(rootfd, p, changes, n, 1, denied, err, errlen);
}
