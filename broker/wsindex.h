/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wsindex: the workspace digest, kept up to date incrementally, as git's
 * index keeps a tree's state.
 *
 * The digest is BLAKE2b-256 over every entry beneath the root except
 * .git, in walk order (each directory's names sorted bytewise, a
 * directory's entries right after it): its path, its kind ("d", "f",
 * "x" for an executable file, "l", "o" for anything else), for a regular
 * file or a directory its permission bits (st_mode & 07777, two bytes
 * little-endian: a directory nobody may enter lists as empty to a check,
 * a file nobody may read as absent), and for a regular file the
 * BLAKE2b-256 of its content, for a symlink its target text (symlinks
 * are never followed).  A file's content is hashed extent
 * by extent (data with its offset and length, holes as their offset and
 * length only), so a sparse file costs what it stores.
 *
 * The index remembers, per regular file, (dev, ino, size, mtime, ctime,
 * mode) and its content hash.  A refresh walks the tree, stats every
 * entry, and reuses the remembered hash only when all six match and the
 * entry is not racy; every other file is hashed again.  An entry is racy
 * when its mtime or ctime was within WSINDEX_RACY_NS of the clock when
 * it was recorded: a write in that same timestamp tick could leave
 * every stat field as it was, so such a file is hashed again on the next
 * refresh (and then, once older, trusted).  Content cannot change behind
 * the index unnoticed: a write sets mtime and ctime to the clock; touch
 * -d or utimensat() can put mtime back but sets ctime to the clock; a
 * rename or copy over changes ino; and a write so fast that the clock did
 * not tick is what the racy rule catches.  (Setting the system clock
 * back needs CAP_SYS_TIME, which no sandbox has.)
 *
 * A write through a shared writable mapping moves the times only when it
 * faults: on ext2/3/4, XFS and btrfs, the first write to a clean page.  A
 * page dirtied before a refresh stays writable until writeback cleans
 * it, and writes to it meanwhile move nothing; so a file is written back
 * (sync_file_range()) before it is hashed, which write-protects its pages.
 * On any other filesystem (tmpfs, whose pages take writes through a
 * mapping without ever moving the times; an overlay, whose mapping is of
 * its upper layer's file; anything else) no hash is reused: every file
 * there is hashed on every refresh, and counted as racy.
 *
 * The seal (wsindex_seal()) tells whether the workspace was written
 * between two refreshes, even if its content was put back: BLAKE2b-256
 * over the digest and every regular file's path and (dev, ino, size,
 * mtime, ctime, mode).  Equal seals of refreshes A and B prove that no
 * regular file was written (by write(2), a truncate, or through a
 * mapping) from A's walk to B's: a file's hash was read after its pages
 * were written back (at A, or when last hashed, and its stat has not
 * moved since), so any later write through a mapping faulted and moved
 * its ctime, and every other write does.  That holds only where writes
 * through a mapping fault: on ext2/3/4, XFS and btrfs; and on an overlay
 * whose upper layer is on one of them (wsindex_trust_overlay()): its
 * upper filesystem is written back (syncfs()) before the walk, and a
 * file whose times are from then or later (written through a mapping
 * since, its page perhaps left writable) proves nothing.  When any
 * regular file proves nothing (tmpfs, anything else, a file that could
 * not be written back) the seal is "": no window can be shown unwritten.
 *
 * There is no entry cap.  Memory is sizeof(struct wsent) (96 bytes on
 * 64-bit Linux) plus the path's length plus one per regular file, and
 * paths are at most PATH_MAX.  A refresh lists the tree first, on several
 * threads (wsscan.h): sizeof(struct wsscan_ent) (112 bytes) plus the
 * name's length per entry, beside the old index, which is freed when the
 * listing is done; the new index then grows as the listing is freed.  1M
 * files of 30-byte paths take ~127 MiB, some 250 MiB at the peak of a
 * refresh (at 100k files the peak RSS of bench/wsindex_bench went from
 * 24.8 to 30.6 MB with the listing).
 */
#ifndef AIRLOCK_WSINDEX_H
#define AIRLOCK_WSINDEX_H

#include <stddef.h>

#include "common/util.h"

#define WSINDEX_RACY_NS (2LL * 1000000000LL)

struct wsindex;

/* An empty index (the first refresh hashes everything).  Never NULL. */
struct wsindex *wsindex_new(void);
void wsindex_free(struct wsindex *);

/*
 * Brings the index up to date with the tree beneath the directory
 * |rootfd| (borrowed; may be O_PATH) and writes the digest into |hex|.
 * Returns 0; or AL_ERR_LIMIT (a path longer than PATH_MAX), AL_ERR_ALLOC
 * or AL_ERR_SYSTEM (an entry that cannot be read: errno holds why), with
 * a message naming the path in |err|.  On failure the index is left
 * empty, so the next refresh starts over.
 */
int wsindex_refresh(struct wsindex *, int rootfd, char hex[SHA256_HEX_LEN + 1],
    char *err, size_t errlen);

/* What the last refresh did, for benches and tests. */
struct wsindex_stats {
	size_t files; /* regular files in the index */
	size_t hashed; /* of which hashed (not reused) */
	size_t racy; /* of which racy (or on a filesystem not trusted), to
			hash again next time */
	size_t bytes; /* memory held by the index */
	size_t unsealed; /* regular files that break the seal */
	size_t linked; /* regular files with another name (a hard link),
			  which may lie outside the tree: written through
			  it, the file changes with no event in the tree */
	size_t exposed; /* of which wslinks_exposed() by the walk that
			   wsindex_set_links() gave (all when none) */
};
void wsindex_stats(const struct wsindex *, struct wsindex_stats *);

/*
 * The seal of the last refresh (hex), or "" when it failed, a regular
 * file proves nothing (see above), or no seal was asked for.
 */
void wsindex_seal(const struct wsindex *, char hex[SHA256_HEX_LEN + 1]);

/*
 * Asks every later refresh for the seal.  Without it (an index's
 * default) no seal is computed, which saves a hash of every file's stat
 * per refresh, and wsindex_seal() is "": a caller that needs one and
 * forgot finds nothing proven.
 */
void wsindex_want_seal(struct wsindex *);

/*
 * Keys every later digest: BLAKE2b-256 with key[0..WSINDEX_KEY_LEN)
 * (copied) over the same entries.  A session that grants a secret keys
 * it with a key random per session: a workspace file may hold the secret
 * the agent is shown redacted, and an unkeyed digest of a tree the agent
 * otherwise reads whole tests a guess of it offline.
 */
#define WSINDEX_KEY_LEN 32
void wsindex_set_key(struct wsindex *, const unsigned char *key);

/*
 * Trusts an overlay root for the seal: its upper layer is on ext2/3/4,
 * XFS or btrfs (the caller knows; the overlay's statfs() does not say).
 * Each refresh of such a root then starts with syncfs().
 */
void wsindex_trust_overlay(struct wsindex *);

/*
 * Judges every later refresh's linked files by |l| (borrowed, outlives
 * the index; wslinks.h): wsindex_stats()'s exposed.  NULL: all are.
 */
struct wslinks;
void wsindex_set_links(struct wsindex *, const struct wslinks *l);

/* Whether |path| is on ext2/3/4, XFS or btrfs (for the above). */
int wsindex_path_trusted(const char *path);

#endif
