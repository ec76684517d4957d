/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * path: resolution beneath the workspace root.  See path.h for the rules.
 *
 * Why the component walk (the ENOSYS fallback) is safe against renames
 * too: each step is an openat() relative to a directory we hold open,
 * with O_NOFOLLOW, so a symlink swapped in is refused and a directory
 * swapped for another is still one beneath the root; moving a directory
 * out from under the walk would need write access outside the workspace,
 * which no runner has.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/openat2.h>

#include "common/errors.h"
#include "policy/path.h"
#include "policy/types.h"

#define OPENAT2_RETRIES	16	/* EAGAIN: a rename raced a ".." lookup */

static int
perr(int code, char *err, size_t errlen, const char *rel, const char *fmt,
    ...) __attribute__((format(printf, 5, 6)));

static int
perr(int code, char *err, size_t errlen, const char *rel, const char *fmt,
    ...)
{
	char msg[256];
	va_list ap;
	int saved = errno;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		snprintf(err, errlen, "%.200s: %s", rel, msg);
	}
	errno = saved;
	return code;
}

static int
syntax(const char *rel, char *err, size_t errlen)
{
	const char *why;
	size_t len = strnlen(rel, PATH_REL_MAX + 1);

	if ((why = type_path_syntax_error(rel, len)) != NULL)
		return perr(AL_ERR_PATH, err, errlen, rel, "%s", why);
	return 0;
}

static int
map_errno(const char *rel, char *err, size_t errlen)
{
	switch (errno) {
	case EXDEV:
		return perr(AL_ERR_PATH, err, errlen, rel,
		    "resolves outside the workspace");
	case ELOOP:
		return perr(AL_ERR_PATH, err, errlen, rel,
		    "symlink loop, refused symlink, or magic link");
	case ENOENT:
		return perr(AL_ERR_NOT_FOUND, err, errlen, rel,
		    "no such file or directory");
	case ENXIO:	/* O_NONBLOCK write open of a FIFO without reader */
		return perr(AL_ERR_PATH, err, errlen, rel,
		    "not a regular file or directory; refused");
	default:
		return perr(AL_ERR_SYSTEM, err, errlen, rel, "%s",
		    strerror(errno));
	}
}

/*
 * The last checks on an opened descriptor: no multiply-linked regular
 * file, then the truncation the caller asked for (deferred until now so a
 * refused file is never truncated).
 */
static int
finish(int fd, int open_flags, const char *rel, int *out_fd, char *err,
    size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) == -1) {
		close(fd);
		return perr(AL_ERR_SYSTEM, err, errlen, rel, "fstat: %s",
		    strerror(errno));
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
	    !((open_flags & O_PATH) && S_ISLNK(st.st_mode))) {
		close(fd);
		return perr(AL_ERR_PATH, err, errlen, rel,
		    "not a regular file or directory (FIFO, socket or "
		    "device); refused");
	}
	if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
		close(fd);
		return perr(AL_ERR_PATH, err, errlen, rel,
		    "file has %lu hard links; refused (another name may be "
		    "outside the workspace)", (unsigned long)st.st_nlink);
	}
	if ((open_flags & O_TRUNC) && S_ISREG(st.st_mode) &&
	    ftruncate(fd, 0) == -1) {
		close(fd);
		return perr(AL_ERR_SYSTEM, err, errlen, rel, "ftruncate: %s",
		    strerror(errno));
	}
	/* O_NONBLOCK was ours, so opening a FIFO could not hang. */
	if (!(open_flags & (O_NONBLOCK | O_PATH)) &&
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1) {
		close(fd);
		return perr(AL_ERR_SYSTEM, err, errlen, rel, "fcntl: %s",
		    strerror(errno));
	}
	*out_fd = fd;
	return 0;
}

int
path_resolve_walk(int rootfd, const char *rel, int open_flags, int *out_fd,
    char *err, size_t errlen)
{
	char buf[PATH_REL_MAX + 1], *p, *slash, *end, *last = NULL;
	struct stat st;
	int dfd, nfd, r, flags;

	*out_fd = -1;
	if ((r = syntax(rel, err, errlen)) != 0)
		return r;
	snprintf(buf, sizeof(buf), "%s", rel);
	if ((dfd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return map_errno(rel, err, errlen);
	/* Every component but the last, as a directory, never a symlink. */
	for (p = buf; ; p = end + 1) {
		/*
		 * Cut at the FIRST slash of a run: "link//" must not leave
		 * "link/", whose trailing slash makes openat() follow the
		 * symlink despite O_NOFOLLOW.
		 */
		slash = strchr(p, '/');
		end = slash;
		while (end != NULL && end[1] == '/')
			end++;
		if (end == NULL || end[1] == '\0') {
			if (slash != NULL)
				*slash = '\0';
			last = p;
			break;
		}
		*slash = '\0';
		if (*p == '\0' || strcmp(p, ".") == 0)
			continue;
		nfd = openat(dfd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (nfd == -1) {
			if (errno == ENOTDIR &&
			    fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				errno = ELOOP;
			close(dfd);
			return map_errno(rel, err, errlen);
		}
		close(dfd);
		dfd = nfd;
	}
	flags = (open_flags & ~O_TRUNC) | O_NOFOLLOW | O_CLOEXEC;
	if (!(open_flags & O_PATH))
		flags |= O_NONBLOCK;
	if (*last == '\0' || strcmp(last, ".") == 0)
		nfd = openat(dfd, ".", flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW));
	else
		nfd = openat(dfd, last, flags, 0644);
	if (nfd == -1) {
		/* O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR. */
		if (errno == ENOTDIR &&
		    fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			errno = ELOOP;
		r = map_errno(rel, err, errlen);
		close(dfd);
		return r;
	}
	close(dfd);
	/* O_NOFOLLOW|O_PATH on a symlink opens the link itself. */
	if ((open_flags & O_PATH) && fstat(nfd, &st) == 0 &&
	    S_ISLNK(st.st_mode)) {
		close(nfd);
		errno = ELOOP;
		return map_errno(rel, err, errlen);
	}
	return finish(nfd, open_flags, rel, out_fd, err, errlen);
}

int
path_lstat_beneath(int rootfd, const char *rel, struct stat *st)
{
	char buf[PATH_REL_MAX + 1], *p, *slash;
	int dfd, nfd, r;

	if ((r = syntax(rel, NULL, 0)) != 0)
		return r;
	snprintf(buf, sizeof(buf), "%s", rel);
	if ((dfd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return AL_ERR_SYSTEM;
	for (p = buf; (slash = strchr(p, '/')) != NULL; p = slash + 1) {
		*slash = '\0';
		if (*p == '\0' || strcmp(p, ".") == 0)
			continue;
		/* A symlink fails O_NOFOLLOW | O_DIRECTORY with ENOTDIR. */
		if ((nfd = openat(dfd, p, O_PATH | O_NOFOLLOW | O_DIRECTORY |
		    O_CLOEXEC)) == -1) {
			r = errno == ENOENT || errno == ENOTDIR ||
			    errno == ELOOP ? 1 : AL_ERR_SYSTEM;
			close(dfd);
			return r;
		}
		close(dfd);
		dfd = nfd;
	}
	if (*p == '\0')
		p = ".";
	if (fstatat(dfd, p, st, AT_SYMLINK_NOFOLLOW) == -1)
		r = errno == ENOENT || errno == ENOTDIR ? 1 : AL_ERR_SYSTEM;
	else
		r = 0;
	close(dfd);
	return r;
}

int
path_resolve(int rootfd, const char *rel, int open_flags, int *out_fd,
    char *err, size_t errlen)
{
	struct open_how how;
	int fd, r, tries;

	*out_fd = -1;
	if ((r = syntax(rel, err, errlen)) != 0)
		return r;
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned)((open_flags & ~O_TRUNC) | O_CLOEXEC);
	if (!(open_flags & O_PATH))
		how.flags |= O_NONBLOCK;	/* a FIFO must not block us */
	if ((open_flags & O_CREAT) || (open_flags & O_TMPFILE) == O_TMPFILE)
		how.mode = 0644;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	for (tries = 0; ; tries++) {
		fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
		if (fd >= 0)
			break;
		/* No openat2 (old kernel, or a seccomp filter that says so). */
		if (errno == ENOSYS || errno == EPERM)
			return path_resolve_walk(rootfd, rel, open_flags,
			    out_fd, err, errlen);
		if ((errno == EAGAIN || errno == EINTR) &&
		    tries < OPENAT2_RETRIES)
			continue;
		return map_errno(rel, err, errlen);
	}
	return finish(fd, open_flags, rel, out_fd, err, errlen);
}

int
path_resolve_parent(int rootfd, const char *rel, int *out_dirfd, char *name,
    size_t namelen, char *err, size_t errlen)
{
	char dir[PATH_REL_MAX + 1];
	const char *base;
	size_t len;
	int r;

	*out_dirfd = -1;
	if (namelen > 0)
		name[0] = '\0';
	if ((r = syntax(rel, err, errlen)) != 0)
		return r;
	len = strlen(rel);
	while (len > 1 && rel[len - 1] == '/')
		len--;
	memcpy(dir, rel, len);
	dir[len] = '\0';
	if ((base = strrchr(dir, '/')) != NULL)
		base++;
	else
		base = dir;
	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return perr(AL_ERR_PATH, err, errlen, rel,
		    "names no file (final component is empty or a dot)");
	if (strlen(base) >= namelen)
		return perr(AL_ERR_LIMIT, err, errlen, rel, "name too long");
	snprintf(name, namelen, "%s", base);
	if (base == dir)
		snprintf(dir, sizeof(dir), ".");
	else
		dir[base - dir - 1] = '\0';
	if (dir[0] == '\0')
		snprintf(dir, sizeof(dir), ".");
	return path_resolve(rootfd, dir, O_RDONLY | O_DIRECTORY, out_dirfd,
	    err, errlen);
}
