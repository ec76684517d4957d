/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Reads a workspace tree in parallel; see wsscan.h.
 *
 * The directories still to list wait on a stack, each with its open
 * descriptor and its path.  A thread takes one, lists it, and pushes
 * each subdirectory it meets, or lists that subdirectory itself (depth
 * first, as a single thread would) when WSSCAN_PENDING are waiting
 * already: that bounds the descriptors held open, whatever the shape of
 * the tree.  The work is done when the stack is empty and no thread is
 * listing.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/wsscan.h"
#include "common/errors.h"
#include "common/util.h"

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
#define FS_OVERLAY 0x794C7630

#define WSSCAN_PENDING 64
#define ERR_LEN 512

struct job {
	int fd;
	struct wsscan_dir *dir;
	char *path; /* relative to the root, '/'-terminated unless "" */
	size_t plen;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job jobs[WSSCAN_PENDING];
	size_t njobs;
	int busy; /* threads listing a directory */
	const struct wsscan_opts *opts;
};

/* One thread's scratch. */
struct scanner {
	struct pool *p;
	char path[PATH_MAX];
	size_t plen;
	char target[PATH_MAX];
	unsigned char buf[65536];
};

int
wsscan_fs_trusted(long f_type)
{
	return f_type == FS_EXT4 || f_type == FS_XFS || f_type == FS_BTRFS;
}

int
wsscan_fs_overlay(long f_type)
{
	return f_type == FS_OVERLAY;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

/* Stops |d|'s listing: why, then the path (its last 160 bytes at most). */
static int
fail(struct scanner *s, struct wsscan_dir *d, int rc, const char *what)
{
	int e = errno;
	size_t shown = s->plen > 160 ? 160 : s->plen;

	d->err = xcalloc(1, ERR_LEN);
	snprintf(d->err, ERR_LEN, "%s: %s%.*s",
	    rc == AL_ERR_SYSTEM ? strerror(e) : what,
	    shown < s->plen ? "..." : "", s->plen == 0 ? 1 : (int)shown,
	    s->plen == 0 ? "." : s->path + s->plen - shown);
	d->rc = rc;
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
 * Hashes the regular file |name| of |d| into |e|.  A file with as many
 * blocks as its size needs has no holes, and is read without asking.
 * Its dirty pages are written back first on a trusted filesystem;
 * e->untrusted is set when that could not be done or the file opened is
 * not the one lstat saw (its hash is then not to be reused), and
 * e->unsealed when the read proves nothing of later writes.
 */
static int
hash_file(struct scanner *s, struct wsscan_dir *d, int dirfd, const char *name,
    const struct stat *sb, struct wsscan_ent *e)
{
	crypto_generichash_state st;
	struct stat fsb;
	off_t off = 0, data, hole, left, size = sb->st_size;
	ssize_t n;
	int fd, rc = 0, dense;

	crypto_generichash_init(&st, NULL, 0, WSSCAN_HASH_LEN);
	if (size == 0) /* nothing to read */
		return crypto_generichash_final(&st, e->hash, WSSCAN_HASH_LEN);
	fd = openat(dirfd, name,
	    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd == -1)
		return fail(s, d, AL_ERR_SYSTEM, NULL);
	if (!d->trusted)
		e->untrusted = 1;
	else if (sync_file_range(fd, 0, 0,
		     SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
			 SYNC_FILE_RANGE_WAIT_AFTER) == -1)
		e->untrusted = e->unsealed = 1;
	if (fstat(fd, &fsb) == -1 || fsb.st_dev != sb->st_dev ||
	    fsb.st_ino != sb->st_ino)
		e->untrusted = e->unsealed = 1;
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
			rc = fail(s, d, AL_ERR_SYSTEM, NULL);
			break;
		}
		for (left = hole - data; left > 0; left -= n) {
			n = read(fd, s->buf,
			    left < (off_t)sizeof(s->buf) ? (size_t)left
							 : sizeof(s->buf));
			if (n == -1 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0) {
				/* Shrunk underneath us: the hash says so. */
				if (n < 0)
					rc = fail(s, d, AL_ERR_SYSTEM, NULL);
				hash_segment(&st, 'T', hole - left, left);
				break;
			}
			crypto_generichash_update(&st, s->buf, (size_t)n);
		}
		off = hole;
	}
	close(fd);
	crypto_generichash_final(&st, e->hash, WSSCAN_HASH_LEN);
	return rc;
}

/* Appends |len| bytes to |d|'s text; returns their offset. */
static uint32_t
put_text(struct wsscan_dir *d, const char *p, size_t len)
{
	size_t off = d->tlen;

	if (d->tlen + len > d->tcap) {
		d->tcap = (d->tcap + len) * 2;
		d->text = xreallocarray(d->text, d->tcap, 1);
	}
	memcpy(d->text + off, p, len);
	d->tlen += len;
	return (uint32_t)off;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * |d|'s names, sorted, into its text (NUL-terminated each) and |*names|
 * (pointers into a copy the caller frees with free(*names)).
 */
static int
read_names(struct scanner *s, struct wsscan_dir *d, int dirfd, char ***names,
    size_t *n)
{
	DIR *dh;
	struct dirent *de;
	char *buf = NULL, **v;
	size_t len = 0, cap = 0, i, off, l;
	int fd;

	*names = NULL;
	*n = 0;
	if ((fd = dup(dirfd)) == -1)
		return fail(s, d, AL_ERR_SYSTEM, NULL);
	if ((dh = fdopendir(fd)) == NULL) {
		close(fd);
		return fail(s, d, AL_ERR_SYSTEM, NULL);
	}
	while ((de = readdir(dh)) != NULL) {
		if (de->d_name[0] == '.' &&
		    (de->d_name[1] == '\0' ||
			(de->d_name[1] == '.' && de->d_name[2] == '\0') ||
			(s->plen == 0 && strcmp(de->d_name, ".git") == 0)))
			continue;
		l = strlen(de->d_name) + 1;
		if (len + l > cap) {
			cap = (cap + l) * 2;
			buf = xreallocarray(buf, cap, 1);
		}
		memcpy(buf + len, de->d_name, l);
		len += l;
		(*n)++;
	}
	closedir(dh);
	/* One block: the pointers, then the names they point into. */
	v = xreallocarray(NULL, *n * sizeof(*v) + len + 1, 1);
	if (len > 0)
		memcpy((char *)(v + *n), buf, len);
	free(buf);
	for (i = 0, off = 0; i < *n; i++) {
		v[i] = (char *)(v + *n) + off;
		off += strlen(v[i]) + 1;
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_names);
	*names = v;
	return 0;
}

static struct wsscan_ent *
new_ent(struct wsscan_dir *d, const char *name, size_t l, char kind)
{
	struct wsscan_ent *e;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->ents = xreallocarray(d->ents, d->cap, sizeof(*d->ents));
	}
	e = &d->ents[d->n++];
	memset(e, 0, sizeof(*e));
	e->name = put_text(d, name, l);
	e->namelen = (uint32_t)l;
	e->kind = kind;
	return e;
}

static int
regular(struct scanner *s, struct wsscan_dir *d, int dirfd, const char *name,
    size_t l, const struct stat *sb)
{
	const struct wsscan_opts *o = s->p->opts;
	struct wsscan_ent *e =
	    new_ent(d, name, l, (sb->st_mode & 0111) ? 'x' : 'f');

	e->perm = (uint16_t)(sb->st_mode & 07777);

	e->st.dev = sb->st_dev;
	e->st.ino = sb->st_ino;
	e->st.size = sb->st_size;
	e->st.mtime = ts_ns(&sb->st_mtim);
	e->st.ctime = ts_ns(&sb->st_ctim);
	e->st.mode = sb->st_mode;
	e->linked = sb->st_nlink > 1;
	e->untrusted = !d->trusted;
	if (d->trusted && o->reuse != NULL &&
	    o->reuse(o->arg, s->path, s->plen, &e->st, e->hash))
		return 0;
	e->hashed = 1;
	if (hash_file(s, d, dirfd, name, sb, e) != 0) {
		d->n--; /* the listing stops before it */
		return d->rc;
	}
	return 0;
}

static void list_dir(struct scanner *, struct wsscan_dir *, int);

/* Hands |fd| (a subdirectory of s->path, which is s->plen long) to a
 * thread that waits, or lists it here when enough are waiting. */
static void
subdir(struct scanner *s, struct wsscan_dir *sub, int fd)
{
	struct pool *p = s->p;
	struct job *j;

	pthread_mutex_lock(&p->mu);
	if (p->njobs < WSSCAN_PENDING) {
		j = &p->jobs[p->njobs++];
		j->fd = fd;
		j->dir = sub;
		j->plen = s->plen;
		j->path = xcalloc(1, s->plen + 1);
		memcpy(j->path, s->path, s->plen);
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		return;
	}
	pthread_mutex_unlock(&p->mu);
	list_dir(s, sub, fd);
	close(fd);
}

/* Lists the directory |dirfd|, whose path is s->path. */
static void
list_dir(struct scanner *s, struct wsscan_dir *d, int dirfd)
{
	const struct wsscan_opts *o = s->p->opts;
	struct statfs fs;
	struct stat sb;
	struct wsscan_ent *e;
	char **names = NULL;
	const char *name;
	size_t i, n, base = s->plen, l;
	ssize_t tl;
	int sub;

	/* Per directory: a mount beneath may be of another kind. */
	d->trusted = fstatfs(dirfd, &fs) == 0 && wsscan_fs_trusted(fs.f_type);
	/* The root's overlay only: another was not written back. */
	d->overlay = !d->trusted && o->overlay_synced &&
	    wsscan_fs_overlay(fs.f_type) && fstat(dirfd, &sb) == 0 &&
	    sb.st_dev == o->overlay_dev;
	if (read_names(s, d, dirfd, &names, &n) != 0)
		goto out;
	for (i = 0; i < n && d->rc == 0; i++) {
		name = names[i];
		l = strlen(name);
		if (base + l + 2 > sizeof(s->path)) {
			s->plen = base;
			fail(s, d, AL_ERR_LIMIT, "path too long to digest");
			break;
		}
		memcpy(s->path + base, name, l);
		s->plen = base + l;
		if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno != ENOENT) /* else gone: not listed */
				fail(s, d, AL_ERR_SYSTEM, NULL);
			continue;
		}
		if (S_ISREG(sb.st_mode))
			regular(s, d, dirfd, name, l, &sb);
		else if (S_ISDIR(sb.st_mode)) {
			sub = openat(dirfd, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1) {
				fail(s, d, AL_ERR_SYSTEM, NULL);
				break;
			}
			e = new_ent(d, name, l, 'd');
			e->perm = (uint16_t)(sb.st_mode & 07777);
			e->sub = xcalloc(1, sizeof(*e->sub));
			s->path[s->plen++] = '/';
			subdir(s, e->sub, sub);
		} else if (S_ISLNK(sb.st_mode)) {
			tl = readlinkat(
			    dirfd, name, s->target, sizeof(s->target) - 1);
			if (tl < 0 && errno != ENOENT) {
				fail(s, d, AL_ERR_SYSTEM, NULL);
				break;
			}
			e = new_ent(d, name, l, 'l');
			e->targetlen = tl < 0 ? 0 : (uint32_t)tl;
			e->target = put_text(d, s->target, e->targetlen);
		} else
			new_ent(d, name, l, 'o');
	}
out:
	s->plen = base;
	free(names);
}

/* Takes directories off the stack until none is left to list. */
static void *
scan_thread(void *arg)
{
	struct scanner *s = arg;
	struct pool *p = s->p;
	struct job j;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->njobs == 0 && p->busy > 0)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->njobs == 0)
			break;
		j = p->jobs[--p->njobs];
		p->busy++;
		pthread_mutex_unlock(&p->mu);
		memcpy(s->path, j.path, j.plen);
		s->plen = j.plen;
		free(j.path);
		list_dir(s, j.dir, j.fd);
		close(j.fd);
		pthread_mutex_lock(&p->mu);
		if (--p->busy == 0 && p->njobs == 0)
			pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* How many threads: the CPUs this process may run on, within bounds. */
static int
thread_count(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > WSSCAN_THREADS ? WSSCAN_THREADS : n;
}

struct wsscan_dir *
wsscan_tree(int dirfd, const struct wsscan_opts *opts)
{
	struct pool p;
	struct scanner *s;
	struct wsscan_dir *root = xcalloc(1, sizeof(*root));
	pthread_t tid[WSSCAN_THREADS];
	int i, n = thread_count(), started = 0, fd;

	memset(&p, 0, sizeof(p));
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	p.opts = opts;
	s = xcalloc((size_t)n, sizeof(*s));
	for (i = 0; i < n; i++)
		s[i].p = &p;
	if ((fd = dup(dirfd)) == -1) {
		fail(&s[0], root, AL_ERR_SYSTEM, NULL);
		goto out;
	}
	p.jobs[0] =
	    (struct job){ .fd = fd, .dir = root, .path = xcalloc(1, 1) };
	p.njobs = 1;
	/* Those that cannot be started leave their share to the rest. */
	for (i = 1; i < n; i++)
		if (pthread_create(&tid[started], NULL, scan_thread, &s[i]) ==
		    0)
			started++;
	scan_thread(&s[0]);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
out:
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	free(s);
	return root;
}

void
wsscan_free(struct wsscan_dir *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->n; i++)
		wsscan_free(d->ents[i].sub);
	free(d->ents);
	free(d->text);
	free(d->err);
	free(d);
}
