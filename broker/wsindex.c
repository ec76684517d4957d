/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The incremental workspace digest; see wsindex.h.
 *
 * Entries are kept in walk order, which is bytewise order of their paths
 * with '/' below every other byte (a directory's entries come right after
 * it, before a sibling such as "a.c" after "a").  A refresh lists the
 * tree on several threads (wsscan.h), each finding a file's old entry by
 * a binary search of the old array, which they only read; then this
 * thread goes through the listing in walk order, building the new array
 * and the digest, and frees each directory's listing as it is done.
 */
#include "config.h"

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
#include "broker/wslinks.h"
#include "broker/wsscan.h"
#include "common/errors.h"
#include "common/util.h"

#define HASH_LEN WSSCAN_HASH_LEN

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
	size_t hashed, racy, unsealed, linked, exposed;
	const struct wslinks *links; /* wsindex_set_links() */
	int overlay_ok; /* wsindex_trust_overlay() */
	int want_seal; /* wsindex_want_seal() */
	int keyed; /* wsindex_set_key() */
	unsigned char key[WSINDEX_KEY_LEN];
	char seal[SHA256_HEX_LEN + 1]; /* of the last refresh, or "" */
};

/* The second pass: the listing, in walk order, into the new index. */
struct walk {
	struct wsindex *x;
	struct table *neu;
	int64_t now; /* ns, before the listing */
	int64_t ovl_since; /* the root's overlay written back from then on */
	crypto_generichash_state st;
	crypto_generichash_state seal; /* wsindex_seal() */
	char path[PATH_MAX];
	size_t plen;
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

int
wsindex_path_trusted(const char *path)
{
	struct statfs fs;

	return statfs(path, &fs) == 0 && wsscan_fs_trusted(fs.f_type);
}

void
wsindex_want_seal(struct wsindex *x)
{
	x->want_seal = 1;
}

void
wsindex_set_key(struct wsindex *x, const unsigned char *key)
{
	memcpy(x->key, key, WSINDEX_KEY_LEN);
	x->keyed = 1;
}

void
wsindex_set_links(struct wsindex *x, const struct wslinks *l)
{
	x->links = l;
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
	s->linked = x->linked;
	s->exposed = x->exposed;
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

/* The entry of |old| for |path|, or NULL. */
static const struct wsent *
old_entry(const struct table *old, const char *path, size_t len)
{
	const struct wsent *e;
	size_t lo = 0, hi = old->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		e = &old->ents[mid];
		c = cmp_walk(old->paths + e->path, e->pathlen, path, len);
		if (c == 0)
			return e;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int
same_stat(const struct wsent *e, const struct wsscan_stat *sb)
{
	return !e->racy && e->dev == sb->dev && e->ino == sb->ino &&
	    e->size == sb->size && e->mtime == sb->mtime &&
	    e->ctime == sb->ctime && e->mode == sb->mode;
}

/* wsscan's question: the old entry's hash, if its stat is the same. */
static int
reuse_old(void *arg, const char *path, size_t len, const struct wsscan_stat *st,
    unsigned char hash[WSSCAN_HASH_LEN])
{
	const struct wsent *e = old_entry(arg, path, len);

	if (e == NULL || !same_stat(e, st))
		return 0;
	memcpy(hash, e->hash, HASH_LEN);
	return 1;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static int
add_entry(struct walk *w, const struct wsscan_ent *f)
{
	struct table *t = w->neu;
	struct wsent *e;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->ents = reallocarray(t->ents, t->cap, sizeof(*t->ents));
		if (t->ents == NULL)
			return AL_ERR_ALLOC;
	}
	if (t->plen + w->plen > t->pcap) {
		t->pcap = t->pcap ? t->pcap * 2 : 65536;
		if (t->pcap < t->plen + w->plen)
			t->pcap = t->plen + w->plen;
		if ((t->paths = realloc(t->paths, t->pcap)) == NULL)
			return AL_ERR_ALLOC;
	}
	e = &t->ents[t->n++];
	e->dev = f->st.dev;
	e->ino = f->st.ino;
	e->size = f->st.size;
	e->mtime = f->st.mtime;
	e->ctime = f->st.ctime;
	e->mode = f->st.mode;
	e->path = t->plen;
	e->pathlen = (uint32_t)w->plen;
	memcpy(t->paths + t->plen, w->path, w->plen);
	t->plen += w->plen;
	memcpy(e->hash, f->hash, HASH_LEN);
	/* Written in the same tick as it was recorded: not to be trusted. */
	e->racy = e->mtime >= w->now - WSINDEX_RACY_NS ||
	    e->ctime >= w->now - WSINDEX_RACY_NS;
	/* Nor a file whose writes through a mapping may move no time. */
	if (f->untrusted)
		e->racy = 1;
	return 0;
}

static int
file_proves(
    const struct walk *w, const struct wsscan_dir *d, const struct wsent *e)
{
	if (d->trusted)
		return 1;
	/* The overlay written back: if it has not changed since. */
	return d->overlay && e->mtime < w->ovl_since && e->ctime < w->ovl_since;
}

/*
 * Adds the file |e| of |d| (just recorded) to the seal: its path and
 * stat.  It proves nothing (the seal is then "") on a filesystem where a
 * write through a mapping may move no time; on the overlay, when it
 * changed since it was written back (a page of it may be writable: a
 * write to it would move nothing); and when |unsealed| (wsscan.h).
 */
static void
seal_file(struct walk *w, const struct wsscan_dir *d, const struct wsent *e,
    int unsealed)
{
	int64_t v[6] = { (int64_t)w->plen, (int64_t)e->dev, (int64_t)e->ino,
		e->size, e->mtime, e->ctime };
	uint32_t mode = e->mode;

	if (!w->x->want_seal)
		return;
	if (unsealed || !file_proves(w, d, e))
		w->x->unsealed++;
	crypto_generichash_update(
	    &w->seal, (const unsigned char *)v, sizeof(v));
	crypto_generichash_update(
	    &w->seal, (const unsigned char *)w->path, w->plen);
	crypto_generichash_update(
	    &w->seal, (const unsigned char *)&mode, sizeof(mode));
}

static int
regular(struct walk *w, const struct wsscan_dir *d, const struct wsscan_ent *f)
{
	const struct wsent *e;

	if (add_entry(w, f) != 0)
		return AL_ERR_ALLOC;
	e = &w->neu->ents[w->neu->n - 1];
	if (f->hashed)
		w->x->hashed++;
	if (e->racy)
		w->x->racy++;
	if (f->linked)
		w->x->linked++;
	if (f->linked &&
	    wslinks_exposed(w->x->links, f->st.dev, f->st.ino, f->st.ctime))
		w->x->exposed++;
	crypto_generichash_update(&w->st, f->hash, HASH_LEN);
	seal_file(w, d, e, f->unsealed);
	return 0;
}

static void
hash_str(struct walk *w, const char *s, size_t len)
{
	crypto_generichash_update(&w->st, (const unsigned char *)s, len);
}

/*
 * A file's or directory's permission bits, two bytes little-endian: a
 * check or an approved run reads the tree as its modes let it (a
 * directory no one may enter lists as empty, an unreadable file as
 * absent), so they are part of the content a gate or an approval binds.
 */
static void
hash_perm(struct walk *w, uint16_t perm)
{
	unsigned char b[2] = { (unsigned char)(perm & 0xff),
		(unsigned char)(perm >> 8) };

	crypto_generichash_update(&w->st, b, sizeof(b));
}

/*
 * Goes through |d|'s listing in walk order, and frees each
 * subdirectory's once done.  Returns 0, or the error that stopped it,
 * with its message in |err|: the first in walk order.
 */
static int
walk_dir(struct walk *w, struct wsscan_dir *d, char *err, size_t errlen)
{
	struct wsscan_ent *f;
	size_t i, base = w->plen;
	int rc = 0;

	for (i = 0; i < d->n && rc == 0; i++) {
		f = &d->ents[i];
		/* wsscan kept every path below PATH_MAX, with room for '/'. */
		memcpy(w->path + base, d->text + f->name, f->namelen);
		w->plen = base + f->namelen;
		hash_str(w, w->path, w->plen);
		switch (f->kind) {
		case 'f':
		case 'x':
			hash_str(w, f->kind == 'x' ? "\0x" : "\0f", 3);
			hash_perm(w, f->perm);
			if ((rc = regular(w, d, f)) != 0)
				snprintf(err, errlen, "out of memory");
			break;
		case 'd':
			hash_str(w, "\0d", 3);
			hash_perm(w, f->perm);
			w->path[w->plen++] = '/';
			rc = walk_dir(w, f->sub, err, errlen);
			wsscan_free(f->sub);
			f->sub = NULL;
			break;
		case 'l':
			hash_str(w, "\0l", 3);
			hash_str(w, d->text + f->target, f->targetlen);
			hash_str(w, "", 1);
			break;
		default:
			hash_str(w, "\0o", 3);
		}
	}
	w->plen = base;
	if (rc == 0 && d->rc != 0) {
		snprintf(err, errlen, "%s", d->err);
		rc = d->rc;
	}
	return rc;
}

/*
 * The coarse real-time clock once it has moved past its present value:
 * at most a tick away (1-10 ms).  Should it not move within 100 ms, its
 * value then, which leaves files of that tick unproven (fail closed).
 */
static int64_t
coarse_next_tick(void)
{
	struct timespec ts, nap = { 0, 1000000 };
	int64_t t0, t;
	int i;

	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	t0 = t = ts_ns(&ts);
	for (i = 0; i < 100 && t <= t0; i++) {
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, &ts);
		t = ts_ns(&ts);
	}
	return t;
}

int
wsindex_refresh(struct wsindex *x, int rootfd, char hex[SHA256_HEX_LEN + 1],
    char *err, size_t errlen)
{
	struct walk *w;
	struct table neu = { 0 };
	struct wsscan_opts opts = { .reuse = reuse_old, .arg = &x->cur };
	struct wsscan_dir *tree = NULL;
	struct timespec now;
	struct statfs fs;
	struct stat sb;
	unsigned char md[HASH_LEN];
	int fd, rc;

	w = xcalloc(1, sizeof(*w));
	w->x = x;
	w->neu = &neu;
	x->hashed = x->racy = x->unsealed = x->linked = x->exposed = 0;
	x->seal[0] = '\0';
	clock_gettime(CLOCK_REALTIME, &now);
	w->now = ts_ns(&now);
	crypto_generichash_init(&w->st, x->keyed ? x->key : NULL,
	    x->keyed ? WSINDEX_KEY_LEN : 0, HASH_LEN);
	crypto_generichash_init(&w->seal, NULL, 0, HASH_LEN);
	/* rootfd may be O_PATH: reopen it for reading. */
	if ((fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1) {
		snprintf(err, errlen, "%s: .", strerror(errno));
		rc = AL_ERR_SYSTEM;
	} else {
		/*
		 * An overlay whose upper layer is trusted: every dirty page
		 * of it is written back (write-protected) first.  A file
		 * whose times are from this instant or later may have been
		 * written through a mapping since, and its page left
		 * writable: it breaks the seal (seal_file()).  The coarse
		 * clock: a time the kernel gives an inode later is no
		 * earlier.  The instant is the coarse clock's next tick: a
		 * file written in the tick the refresh began in (a change
		 * set that landed just before) is then older than it, not
		 * taken for one written meanwhile.
		 */
		if (x->overlay_ok && fstatfs(fd, &fs) == 0 &&
		    wsscan_fs_overlay(fs.f_type) && fstat(fd, &sb) == 0) {
			w->ovl_since = coarse_next_tick();
			opts.overlay_dev = sb.st_dev;
			opts.overlay_synced = syncfs(fd) == 0;
		}
		tree = wsscan_tree(fd, &opts);
		close(fd);
		/* The old entries served their turn: their memory goes now. */
		table_free(&x->cur);
		rc = walk_dir(w, tree, err, errlen);
	}
	wsscan_free(tree);
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
