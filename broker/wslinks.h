/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wslinks: which of the workspace's hard-linked files may be written
 * where the agent writes.
 *
 * A workspace file with another name (st_nlink > 1) can be written
 * through that name, seen by no watch of the workspace; that matters
 * only when the agent, or a runner of another call, can write the other
 * name.  Neither can make a new one: link(2) between two mounts is EXDEV,
 * and the sandbox's workspace is a mount of its own.  So the trees they
 * write (the agent's home, `airlock run --rw` binds, the manifest's
 * read-write binds; an agent that writes the workspace may write every
 * name there, and every linked file counts) are walked once, before the agent starts, and the (dev, ino)
 * of every regular file there with st_nlink > 1 kept.  A linked
 * workspace file is then exposed when its (dev, ino) is among them, or
 * when it cannot be judged by that walk: its inode was changed since the
 * walk began (ctime at or after its start: a link made since, by the
 * host, sets it), or it is on another device than the workspace's
 * (an overlay's view of it), or the walk could not finish.
 *
 * The walk never follows a symlink, descends into every directory
 * (another filesystem's too: a mount of the workspace's may lie below),
 * and stops, unfinished, at an unreadable directory, at
 * WSLINKS_MAX_ENTRIES entries, or after WSLINKS_MAX_MS: every linked
 * file then counts, as if every other name lay where the agent writes.
 * Memory: 16 bytes per linked file found (at most WSLINKS_MAX_ENTRIES,
 * 16 MiB), plus nftw(3)'s descriptors (at most 64).
 */
#ifndef AIRLOCK_WSLINKS_H
#define AIRLOCK_WSLINKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define WSLINKS_MAX_ENTRIES 1000000
#define WSLINKS_MAX_MS 10000

struct wslinks {
	uint64_t dev; /* the workspace's st_dev */
	int64_t since; /* ns, the coarse real-time clock as the walk began */
	uint64_t (*ids)[2]; /* (ino, dev) of linked files, sorted */
	size_t n;
	size_t entries; /* visited */
	int complete; /* 0: every linked file is exposed */
	char why[320]; /* !complete: what stopped the walk */
};

/*
 * Walks |roots| (absolute host paths with no symlink in them, n of
 * them; one that does not exist is skipped, one that is a symlink or
 * cannot be looked at leaves the walk unfinished) for the workspace on
 * device |ws_dev| and returns the result (never NULL; complete or not,
 * see above).
 */
struct wslinks *wslinks_walk(
    uint64_t ws_dev, const char *const *roots, size_t n);

void wslinks_free(struct wslinks *);

/*
 * Whether a workspace file with another name, of this (dev, ino,
 * ctime in ns), may be written where the agent writes: 1 when |l| is
 * NULL (nothing walked), the walk did not finish, or see above.
 */
int wslinks_exposed(
    const struct wslinks *l, uint64_t dev, uint64_t ino, int64_t ctime);

#endif
