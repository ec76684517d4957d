/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * path: opening a path from the agent beneath the workspace, or refusing.
 *
 * Invariant (DESIGN.md, security invariant 1): a descriptor returned here
 * refers to a file beneath the directory |rootfd|, at the moment it was
 * opened.  Refused: absolute paths, any ".." component, symlinks whose
 * target leaves the root (absolute symlinks are always refused), magic
 * links (/proc/PID/fd/..., /proc/self/root), regular files with more than
 * one hard link, and anything that is not a regular file or directory
 * (FIFOs, sockets, devices: opened with O_NONBLOCK so a FIFO cannot hang
 * the caller, then refused).
 *
 * Symlinks that stay inside the workspace are followed (openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS does this atomically, so a
 * concurrent rename cannot move the walk outside).  Where openat2 is
 * missing (ENOSYS, or EPERM from a seccomp filter), a component walk
 * with O_NOFOLLOW is used instead; it refuses every symlink, since it
 * cannot follow one safely.
 *
 * Hard links: a regular file whose st_nlink > 1 is refused for reads and
 * writes.  Its other name may be outside the workspace (a hard link to
 * ~/.ssh/id_ed25519 made by anyone who could read it), and the broker may
 * run with more privilege than whoever made the link; nothing about the
 * descriptor tells the two cases apart, so the rule fails closed.
 */
#ifndef AIRLOCK_PATH_H
#define AIRLOCK_PATH_H

#include <sys/stat.h>

#include <stddef.h>

#define PATH_REL_MAX	4096

/*
 * Opens |rel| beneath |rootfd| with |open_flags| (O_RDONLY, O_WRONLY,
 * O_DIRECTORY, O_PATH, O_CREAT, O_TRUNC...; O_CLOEXEC is always added;
 * O_CREAT creates with mode 0644).  Returns 0 and sets *out_fd (caller
 * closes), or:
 *   AL_ERR_PATH       the path is refused (syntax, escape, symlink out,
 *                     magic link, hard link); reason in err
 *   AL_ERR_NOT_FOUND  a component does not exist
 *   AL_ERR_SYSTEM     another failure; errno is set, reason in err
 * *out_fd is -1 on failure.  err may be NULL.
 */
int	path_resolve(int rootfd, const char *rel, int open_flags, int *out_fd,
	    char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * The fallback that path_resolve() uses when openat2 is unavailable:
 * one component at a time with O_NOFOLLOW, no symlinks at all.  Same
 * contract.  Exposed so tests exercise both implementations.
 */
int	path_resolve_walk(int rootfd, const char *rel, int open_flags,
	    int *out_fd, char *err, size_t errlen)
	    __attribute__((warn_unused_result));

/*
 * lstat(2) of |rel| beneath |rootfd| as path_resolve_walk() walks it, no
 * symlink followed: 0 with *st when it is there; 1 when it is not: a
 * component is missing, or one above it is not a directory (a symlink
 * included: nothing beneath a link is the workspace's at that path); or
 * AL_ERR_PATH (the syntax) or AL_ERR_SYSTEM (errno set).
 */
int	path_lstat_beneath(int rootfd, const char *rel, struct stat *st)
	    __attribute__((warn_unused_result));

/*
 * For creating or replacing a file: opens the parent directory of |rel|
 * beneath |rootfd| (O_DIRECTORY | O_PATH is not used: the fd is a real
 * directory descriptor, usable with openat, renameat, unlinkat) and
 * copies the final component to name[0..namelen).  The final component
 * is never "", "." or "..".  The caller then uses
 * openat(*out_dirfd, name, O_CREAT|O_EXCL|O_NOFOLLOW|...) or a temporary
 * file and renameat(), so the final step cannot follow a symlink either.
 * Same returns as path_resolve(); AL_ERR_LIMIT if the name does not fit.
 */
int	path_resolve_parent(int rootfd, const char *rel, int *out_dirfd,
	    char *name, size_t namelen, char *err, size_t errlen)
	    __attribute__((warn_unused_result));

#endif
