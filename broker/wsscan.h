/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * wsscan: reads a directory tree for the workspace index (wsindex.h),
 * on as many threads as the process has CPUs (at most WSSCAN_THREADS).
 *
 * Each directory is listed by one thread: its names, sorted bytewise
 * (".git" at the root left out), and for each name its lstat, a
 * symlink's target, and a regular file's content hash, which is taken
 * from the caller when the caller has one to reuse and else computed
 * (BLAKE2b-256, extent by extent: data with its offset and length,
 * holes as their offset and length, a file that shrank while read as
 * the length missing).  The threads share the directories met on the
 * way; the result is the same tree of listings whatever they did, and
 * the caller reads it in walk order.  The threads are gone when
 * wsscan_tree() returns (the caller may fork or clone then); when none
 * can be started, the calling thread does all the work.
 *
 * A file is written back (sync_file_range()) before it is read, on a
 * trusted filesystem (ext2/3/4, XFS, btrfs: wsscan_fs_trusted()), so
 * that its pages are write-protected and a later write through a
 * mapping moves its times; wsindex.h says why.
 */
#ifndef AIRLOCK_WSSCAN_H
#define AIRLOCK_WSSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define WSSCAN_HASH_LEN 32
#define WSSCAN_THREADS 4

/* What the index keeps of a regular file's lstat. */
struct wsscan_stat {
	uint64_t dev, ino;
	int64_t size, mtime, ctime; /* times in ns */
	uint32_t mode;
};

struct wsscan_dir;

struct wsscan_ent {
	uint32_t name, namelen; /* in the directory's text */
	uint32_t target, targetlen; /* a symlink's target, ditto */
	char kind; /* 'f' regular, 'x' executable, 'd', 'l', 'o' other */
	unsigned char hashed; /* 'f'/'x': computed, not reused */
	unsigned char untrusted; /* ...: its hash is not to be reused */
	unsigned char unsealed; /* ...: the read proves nothing (wsindex) */
	unsigned char linked; /* ...: it has another name (st_nlink > 1) */
	uint16_t perm; /* 'f'/'x'/'d': st_mode & 07777 */
	struct wsscan_stat st; /* 'f'/'x' */
	unsigned char hash[WSSCAN_HASH_LEN]; /* 'f'/'x' */
	struct wsscan_dir *sub; /* 'd' */
};

struct wsscan_dir {
	char *text;
	size_t tlen, tcap;
	struct wsscan_ent *ents;
	size_t n, cap;
	int trusted; /* on a trusted filesystem */
	int overlay; /* on the overlay that wsscan_opts names */
	int rc; /* 0, or the error that stopped the listing after ents[n-1] */
	char *err; /* rc != 0: why, naming the path */
};

/*
 * Called (from any of the threads, so it may only read shared state)
 * for a regular file on a trusted filesystem, with its path relative to
 * the root: returns 1 with the hash to reuse in |hash|, or 0.
 */
typedef int (*wsscan_reuse_fn)(void *arg, const char *path, size_t len,
    const struct wsscan_stat *st, unsigned char hash[WSSCAN_HASH_LEN]);

struct wsscan_opts {
	wsscan_reuse_fn reuse;
	void *arg;
	dev_t overlay_dev; /* when overlay_synced: the overlay written back */
	int overlay_synced;
};

/*
 * Lists the tree beneath |dirfd| (borrowed, open for reading).  Never
 * NULL.  An entry that cannot be read stops its directory's listing:
 * that directory's rc is then AL_ERR_LIMIT (a path longer than
 * PATH_MAX) or AL_ERR_SYSTEM, with err naming the path; the rest of the
 * tree is still listed.
 */
struct wsscan_dir *wsscan_tree(int dirfd, const struct wsscan_opts *opts);

/* Frees a listing and every listing beneath it. */
void wsscan_free(struct wsscan_dir *);

/* Whether a statfs() f_type is ext2/3/4, XFS or btrfs; an overlay. */
int wsscan_fs_trusted(long f_type);
int wsscan_fs_overlay(long f_type);

#endif
