/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The incremental workspace digest; see wsindex.h.
 *
 * Entries are kept in walk order, which is bytewise order of their paths
 * with '/' below every other byte (a directory's entries come right after
 * it, before a sibling such as "a.c" after "a").  A refresh walks in the
 * same order and finds each file's old entry by advancing a cursor
 * through the old array: no hash table, no lookups, O(n) in all.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/wsindex.h"
#include "common/errors.h"
#include "common/util.h"

#define HASH_LEN 32

/*
 * Filesystems on which every write through a shared mapping to a page
 * that is clean moves mtime and ctime (their page_mkwrite() calls
 * file_update_time(), and writeback write-protects a page as it cleans
 * it): ext2/3/4, XFS, btrfs.  On others a hash is never reused: tmpfs
 * maps its pages writable on the first touch and never moves the times
 * for a write through a mapping, an overlay's mapping is of its upper
 * layer's file (which the overlay's descriptor cannot sync), and of the
 * rest nothing is known.
 */
#define FS_EXT4 0xEF53
#define FS_XFS 0x58465342
#define FS_BTRFS 0x9123683E
/*
 * An overlay (a copy-on-write session's view): its mapping is of the
 * upper layer's file, whose pages syncfs() on the overlay writes back
 * (the upper filesystem's, whole).  Trusted for the seal only, and only
 * when its upper layer is on one of the above (wsindex_trust_overlay()).
 */
#define FS_OVERLAY 0x794C7630

struct wsent {
	uint64_t dev, ino;
	int64_t size, mtime, ctime; /* times in ns */
	uint64_t path; /* offset in the path arena */
	uint32_t pathlen;
	uint32_t mode;
	unsigned char hash[HASH_LEN];
	unsigned char racy; /* or on a filesystem not to be trusted */
};

struct table {
	struct wsent *ents;
	size_t n, cap;
	char *paths;
	size_t plen, pcap;
};

struct wsindex {
	struct table cur;
	size_t hashed, racy, unsealed;
	int overlay_ok; /* wsindex_trust_overlay() */
	int want_seal; /* wsindex_want_seal() */
	char seal[SHA256_HEX_LEN + 1]; /* of the last refresh, or "" */
};

struct walk {
	struct wsindex *x;
	struct table *old, *neu;
	size_t oldpos;
	int64_t now; /* ns, before the walk */
	int trusted; /* the directory walked is on such a filesystem */
	int overlay; /* ...or on the overlay synced (ovl_synced) */
	int ovl_synced; /* the root's overlay was written back... */
	int64_t ovl_since; /* ...from this time on (coarse clock, ns) */
	dev_t ovl_dev; /* and is the one of this st_dev */
	crypto_generichash_state st;
	crypto_generichash_state seal; /* wsindex_seal() */
	char path[PATH_MAX];
	size_t plen;
	char *err;
	size_t errlen;
	unsigned char buf[65536];
};

struct wsindex *
wsindex_new(void)
{
	return xcalloc(1, sizeof(struct wsindex));
}

static void
table_free(struct table *t)
{
	free(t->ents);
	free(t->paths);
	memset(t, 0, sizeof(*t));
}

void
wsindex_free(struct wsindex *x)
{
	if (x == NULL)
		return;
	table_free(&x->cur);
	free(x);
}

static int
fs_trusted(const struct statfs *fs)
{
	return fs->f_type == FS_EXT4 || fs->f_type == FS_XFS ||
	    fs->f_type == FS_BTRFS;
}

int
wsindex_path_trusted(const char *path)
{
	struct statfs fs;

	return statfs(path, &fs) == 0 && fs_trusted(&fs);
}

void
wsindex_want_seal(struct wsindex *x)
{
	x->want_seal = 1;
}

void
wsindex_trust_overlay(struct wsindex *x)
{
	x->overlay_ok = 1;
}

void
wsindex_seal(const struct wsindex *x, char hex[SHA256_HEX_LEN + 1])
{
	memcpy(hex, x->seal, SHA256_HEX_LEN + 1);
}

void
wsindex_stats(const struct wsindex *x, struct wsindex_stats *s)
{
	s->files = x->cur.n;
	s->hashed = x->hashed;
	s->racy = x->racy;
	s->unsealed = x->unsealed;
	s->bytes = x->cur.cap * sizeof(struct wsent) + x->cur.pcap;
}

/* Walk order: bytewise, with '/' below every other byte. */
static int
cmp_walk(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i, n = alen < blen ? alen : blen;
	int ca, cb;

	for (i = 0; i < n; i++) {
		if (a[i] == b[i])
			continue;
		ca = a[i] == '/' ? -1 : (unsigned char)a[i];
		cb = b[i] == '/' ? -1 : (unsigned char)b[i];
		return ca - cb;
	}
	return alen < blen ? -1 : alen > blen;
}

/* The old entry for the current path, or NULL. */
static const struct wsent *
old_entry(struct walk *w)
{
	struct table *o = w->old;
	const struct wsent *e;
	int c;

	while (w->oldpos < o->n) {
		e = &o->ents[w->oldpos];
		if (e->pathlen == w->plen &&
		    memcmp(o->paths + e->path, w->path, w->plen) == 0) {
			w->oldpos++;
			return e;
		}
		c = cmp_walk(o->paths + e->path, e->pathlen, w->path, w->plen);
		if (c > 0)
			return NULL;
		w->oldpos++; /* gone from the tree */
	}
	return NULL;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

/* The message: why, then the path (its last 160 bytes at most). */
static int
fail(struct walk *w, int rc, const char *what)
{
	int e = errno;
	size_t shown = w->plen > 160 ? 160 : w->plen;

	snprintf(w->err, w->errlen, "%s: %s%.*s",
	    rc == AL_ERR_SYSTEM ? strerror(e) : what,
	    shown < w->plen ? "..." : "", w->plen == 0 ? 1 : (int)shown,
	    w->plen == 0 ? "." : w->path + w->plen - shown);
	errno = e;
	return rc;
}

static void
hash_segment(crypto_generichash_state *st, char kind, off_t off, off_t len)
{
	unsigned char h[17];
	uint64_t o = (uint64_t)off, n = (uint64_t)len;

	h[0] = (unsigned char)kind;
	memcpy(h + 1, &o, 8);
	memcpy(h + 9, &n, 8);
	crypto_generichash_update(st, h, sizeof(h));
}

/*
 * Hashes a regular file's content into |md|: each data extent as ('D',
 * offset, length, bytes), each hole as ('H', offset, length), and a file
 * that shrank while being read as ('T', offset, length missing).  A file
 * with as many blocks as its size needs has no holes, and is read
 * without asking.
 *
 * Before it is read, its dirty pages are written back (on a trusted
 * filesystem): a page dirtied through a shared mapping stays writable
 * until then, and writes to it move no time, so a hash read before would
 * be reused after them.  Written back, each page is write-protected, and
 * the next write through any mapping faults and moves mtime and ctime.
 * *|untrusted| is set when that could not be done, or the file opened is
 * not the one |sb| is of: its hash is then not to be reused.  *|unsealed|
 * is set when it does not prove the file unwritten since (wsindex_seal()):
 * on a trusted filesystem, when that could not be done; anywhere, when
 * the file opened is not the one |sb| is of.
 */
static int
hash_file(struct walk *w, int dirfd, const char *name, const struct stat *sb,
    unsigned char md[HASH_LEN], int *untrusted, int *unsealed)
{
	crypto_generichash_state st;
	struct stat fsb;
	off_t off = 0, data, hole, left, size = sb->st_size;
	ssize_t n;
	int fd, rc = 0, dense;

	crypto_generichash_init(&st, NULL, 0, HASH_LEN);
	if (size == 0) /* nothing to read */
		return crypto_generichash_final(&st, md, HASH_LEN);
	fd = openat(dirfd, name,
	    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd == -1)
		return fail(w, AL_ERR_SYSTEM, NULL);
	if (!w->trusted)
		*untrusted = 1;
	else if (sync_file_range(fd, 0, 0,
		     SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
			 SYNC_FILE_RANGE_WAIT_AFTER) == -1)
		*untrusted = *unsealed = 1;
	if (fstat(fd, &fsb) == -1 || fsb.st_dev != sb->st_dev ||
	    fsb.st_ino != sb->st_ino)
		*untrusted = *unsealed = 1;
	dense = (off_t)sb->st_blocks * 512 >= size;
	while (off < size && rc == 0) {
		if (dense) {
			data = off;
			hole = size;
		} else
			fd_next_data(fd, off, size, &data, &hole);
		if (data > off)
			hash_segment(&st, 'H', off, data - off);
		if (data >= size)
			break;
		hash_segment(&st, 'D', data, hole - data);
		if (!dense && lseek(fd, data, SEEK_SET) == -1) {
			rc = fail(w, AL_ERR_SYSTEM, NULL);
			break;
		}
		for (left = hole - data; left > 0; left -= n) {
			n = read(fd, w->buf,
			    left < (off_t)sizeof(w->buf) ? (size_t)left
							 : sizeof(w->buf));
			if (n == -1 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0) {
				/* Shrunk underneath us: the hash says so. */
				if (n < 0)
					rc = fail(w, AL_ERR_SYSTEM, NULL);
				hash_segment(&st, 'T', hole - left, left);
				break;
			}
			crypto_generichash_update(&st, w->buf, (size_t)n);
		}
		off = hole;
	}
	close(fd);
	crypto_generichash_final(&st, md, HASH_LEN);
	return rc;
}

static int
add_entry(struct walk *w, const struct stat *sb, const unsigned char *md,
    int untrusted)
{
	struct table *t = w->neu;
	struct wsent *e;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->ents = reallocarray(t->ents, t->cap, sizeof(*t->ents));
		if (t->ents == NULL)
			return fail(w, AL_ERR_ALLOC, "out of memory");
	}
	if (t->plen + w->plen > t->pcap) {
		t->pcap = t->pcap ? t->pcap * 2 : 65536;
		if (t->pcap < t->plen + w->plen)
			t->pcap = t->plen + w->plen;
		if ((t->paths = realloc(t->paths, t->pcap)) == NULL)
			return fail(w, AL_ERR_ALLOC, "out of memory");
	}
	e = &t->ents[t->n++];
	e->dev = sb->st_dev;
	e->ino = sb->st_ino;
	e->size = sb->st_size;
	e->mtime = ts_ns(&sb->st_mtim);
	e->ctime = ts_ns(&sb->st_ctim);
	e->mode = sb->st_mode;
	e->path = t->plen;
	e->pathlen = (uint32_t)w->plen;
	memcpy(t->paths + t->plen, w->path, w->plen);
	t->plen += w->plen;
	memcpy(e->hash, md, HASH_LEN);
	/* Written in the same tick as it was recorded: not to be trusted. */
	e->racy = e->mtime >= w->now - WSINDEX_RACY_NS ||
	    e->ctime >= w->now - WSINDEX_RACY_NS;
	/* Nor a file whose writes through a mapping may move no time. */
	if (untrusted)
		e->racy = 1;
	return 0;
}

static int
same_stat(const struct wsent *e, const struct stat *sb)
{
	return !e->racy && e->dev == sb->st_dev && e->ino == sb->st_ino &&
	    e->size == sb->st_size && e->mtime == ts_ns(&sb->st_mtim) &&
	    e->ctime == ts_ns(&sb->st_ctim) && e->mode == sb->st_mode;
}

static int
file_proves(const struct walk *w, const struct wsent *e)
{
	if (w->trusted)
		return 1;
	/* The overlay written back: if it has not changed since. */
	return w->overlay && e->mtime < w->ovl_since && e->ctime < w->ovl_since;
}

/*
 * Adds the file |e| (just recorded) to the seal: its path and stat.  It
 * proves nothing (the seal is then "") on a filesystem where a write
 * through a mapping may move no time; on the overlay, when it changed
 * since it was written back (a page of it may be writable: a write to it
 * would move nothing); and when |unsealed| (hash_file()).
 */
static void
seal_file(struct walk *w, const struct wsent *e, int unsealed)
{
	int64_t v[6] = { (int64_t)w->plen, (int64_t)e->dev, (int64_t)e->ino,
		e->size, e->mtime, e->ctime };
	uint32_t mode = e->mode;

	if (!w->x->want_seal)
		return;
	if (unsealed || !file_proves(w, e))
		w->x->unsealed++;
	crypto_generichash_update(
	    &w->seal, (const unsigned char *)v, sizeof(v));
	crypto_generichash_update(
	    &w->seal, (const unsigned char *)w->path, w->plen);
	crypto_generichash_update(
	    &w->seal, (const unsigned char *)&mode, sizeof(mode));
}

static int
regular(struct walk *w, int dirfd, const char *name, const struct stat *sb)
{
	const struct wsent *e = old_entry(w);
	unsigned char md[HASH_LEN];
	int rc, untrusted = !w->trusted, unsealed = 0;

	if (!untrusted && e != NULL && same_stat(e, sb))
		memcpy(md, e->hash, HASH_LEN);
	else {
		if ((rc = hash_file(
			 w, dirfd, name, sb, md, &untrusted, &unsealed)) != 0)
			return rc;
		w->x->hashed++;
	}
	if ((rc = add_entry(w, sb, md, untrusted)) != 0)
		return rc;
	if (w->neu->ents[w->neu->n - 1].racy)
		w->x->racy++;
	crypto_generichash_update(&w->st, md, HASH_LEN);
	seal_file(w, w->neu->ents + w->neu->n - 1, unsealed);
	return 0;
}

struct names {
	char *buf;
	size_t len, cap;
	size_t *off;
	size_t n, ocap;
};

static const char *sort_base;

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(
	    sort_base + *(const size_t *)a, sort_base + *(const size_t *)b);
}

static int
read_names(struct walk *w, int dirfd, struct names *nm)
{
	DIR *d;
	struct dirent *de;
	size_t l;
	int fd;

	if ((fd = dup(dirfd)) == -1)
		return fail(w, AL_ERR_SYSTEM, NULL);
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return fail(w, AL_ERR_SYSTEM, NULL);
	}
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' &&
		    (de->d_name[1] == '\0' ||
			(de->d_name[1] == '.' && de->d_name[2] == '\0') ||
			(w->plen == 0 && strcmp(de->d_name, ".git") == 0)))
			continue;
		l = strlen(de->d_name) + 1;
		if (nm->len + l > nm->cap) {
			nm->cap = (nm->cap + l) * 2;
			nm->buf = xreallocarray(nm->buf, nm->cap, 1);
		}
		if (nm->n == nm->ocap) {
			nm->ocap = nm->ocap ? nm->ocap * 2 : 64;
			nm->off =
			    xreallocarray(nm->off, nm->ocap, sizeof(*nm->off));
		}
		memcpy(nm->buf + nm->len, de->d_name, l);
		nm->off[nm->n++] = nm->len;
		nm->len += l;
	}
	closedir(d);
	if (nm->n > 1) {
		sort_base = nm->buf;
		qsort(nm->off, nm->n, sizeof(*nm->off), cmp_names);
	}
	return 0;
}

static void
hash_str(struct walk *w, const char *s, size_t len)
{
	crypto_generichash_update(&w->st, (const unsigned char *)s, len);
}

static int
walk_dir(struct walk *w, int dirfd)
{
	struct names nm = { 0 };
	struct statfs fs;
	struct stat sb;
	char target[PATH_MAX];
	const char *name;
	size_t i, base = w->plen, l;
	ssize_t tl;
	int rc, sub, trusted, overlay;

	/* Per directory: a mount beneath may be of another kind. */
	trusted = fstatfs(dirfd, &fs) == 0 && fs_trusted(&fs);
	/* The root's overlay only: another was not written back. */
	overlay = !trusted && w->ovl_synced && fs.f_type == FS_OVERLAY &&
	    fstat(dirfd, &sb) == 0 && sb.st_dev == w->ovl_dev;
	if ((rc = read_names(w, dirfd, &nm)) != 0)
		goto out;
	for (i = 0; i < nm.n && rc == 0; i++) {
		name = nm.buf + nm.off[i];
		l = strlen(name);
		if (base + l + 2 > sizeof(w->path)) {
			w->plen = base;
			rc = fail(w, AL_ERR_LIMIT, "path too long to digest");
			break;
		}
		memcpy(w->path + base, name, l);
		w->plen = base + l;
		w->trusted = trusted; /* again after a subdirectory's walk */
		w->overlay = overlay;
		if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno != ENOENT)
				rc = fail(w, AL_ERR_SYSTEM, NULL);
			continue;
		}
		hash_str(w, w->path, w->plen);
		if (S_ISREG(sb.st_mode)) {
			hash_str(w, (sb.st_mode & 0111) ? "\0x" : "\0f", 3);
			rc = regular(w, dirfd, name, &sb);
		} else if (S_ISDIR(sb.st_mode)) {
			hash_str(w, "\0d", 3);
			sub = openat(dirfd, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1) {
				rc = fail(w, AL_ERR_SYSTEM, NULL);
				break;
			}
			w->path[w->plen++] = '/';
			rc = walk_dir(w, sub);
			close(sub);
		} else if (S_ISLNK(sb.st_mode)) {
			hash_str(w, "\0l", 3);
			tl =
			    readlinkat(dirfd, name, target, sizeof(target) - 1);
			if (tl < 0 && errno != ENOENT) {
				rc = fail(w, AL_ERR_SYSTEM, NULL);
				break;
			}
			hash_str(w, target, tl < 0 ? 0 : (size_t)tl);
			hash_str(w, "", 1);
		} else
			hash_str(w, "\0o", 3);
	}
out:
	w->plen = base;
	free(nm.buf);
	free(nm.off);
	return rc;
}

int
wsindex_refresh(struct wsindex *x, int rootfd, char hex[SHA256_HEX_LEN + 1],
    char *err, size_t errlen)
{
	struct walk *w;
	struct table neu = { 0 };
	struct timespec now;
	struct statfs fs;
	struct stat sb;
	unsigned char md[HASH_LEN];
	int fd, rc;

	w = xcalloc(1, sizeof(*w));
	w->x = x;
	w->old = &x->cur;
	w->neu = &neu;
	w->err = err;
	w->errlen = errlen;
	x->hashed = x->racy = x->unsealed = 0;
	x->seal[0] = '\0';
	clock_gettime(CLOCK_REALTIME, &now);
	w->now = ts_ns(&now);
	crypto_generichash_init(&w->st, NULL, 0, HASH_LEN);
	crypto_generichash_init(&w->seal, NULL, 0, HASH_LEN);
	/* rootfd may be O_PATH: reopen it for reading. */
	if ((fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		rc = fail(w, AL_ERR_SYSTEM, NULL);
	else {
		/*
		 * An overlay whose upper layer is trusted: every dirty page
		 * of it is written back (write-protected) first.  A file
		 * whose times are from this instant or later may have been
		 * written through a mapping since, and its page left
		 * writable: it breaks the seal (seal_file()).  The coarse
		 * clock: a time the kernel gives an inode later is no
		 * earlier.
		 */
		if (x->overlay_ok && fstatfs(fd, &fs) == 0 &&
		    fs.f_type == FS_OVERLAY && fstat(fd, &sb) == 0) {
			clock_gettime(CLOCK_REALTIME_COARSE, &now);
			w->ovl_since = ts_ns(&now);
			w->ovl_dev = sb.st_dev;
			w->ovl_synced = syncfs(fd) == 0;
		}
		rc = walk_dir(w, fd);
		close(fd);
	}
	table_free(&x->cur);
	if (rc == 0) {
		x->cur = neu;
		crypto_generichash_final(&w->st, md, HASH_LEN);
		sodium_bin2hex(hex, SHA256_HEX_LEN + 1, md, HASH_LEN);
		/* The seal holds the digest too. */
		crypto_generichash_update(&w->seal, md, HASH_LEN);
		crypto_generichash_final(&w->seal, md, HASH_LEN);
		if (x->want_seal && x->unsealed == 0)
			sodium_bin2hex(x->seal, sizeof(x->seal), md, HASH_LEN);
	} else
		table_free(&neu);
	free(w);
	return rc;
}
