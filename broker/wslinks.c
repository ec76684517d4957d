/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The walk of the trees the agent writes for hard-linked files; see
 * wslinks.h.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "broker/wslinks.h"
#include "common/util.h"

/* nftw(3) takes no argument for its callback: the walk under way. */
static struct walk {
	struct wslinks *l;
	size_t cap;
	int64_t deadline; /* ns, CLOCK_MONOTONIC */
} * cur;

static int64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int
stop(struct wslinks *l, const char *why, const char *path)
{
	l->complete = 0;
	snprintf(l->why, sizeof(l->why), "%s: %s", path, why);
	return 1;
}

static int
visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	struct wslinks *l = cur->l;

	(void)ftw;
	if (++l->entries > WSLINKS_MAX_ENTRIES)
		return stop(l, "more entries than the walk reads", path);
	if ((l->entries & 1023) == 0 &&
	    clock_ns(CLOCK_MONOTONIC) > cur->deadline)
		return stop(l, "the walk took too long", path);
	if (type == FTW_DNR)
		return stop(l, "a directory that cannot be read", path);
	if (type == FTW_NS)
		return stop(l, "an entry that cannot be stat()ed", path);
	if (type != FTW_F || !S_ISREG(sb->st_mode) || sb->st_nlink < 2 ||
	    (uint64_t)sb->st_dev != l->dev)
		return 0;
	if (l->n == cur->cap) {
		cur->cap = cur->cap ? cur->cap * 2 : 256;
		l->ids = xreallocarray(l->ids, cur->cap, sizeof(*l->ids));
	}
	l->ids[l->n][0] = (uint64_t)sb->st_ino;
	l->ids[l->n][1] = (uint64_t)sb->st_dev;
	l->n++;
	return 0;
}

static int
cmp_id(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

struct wslinks *
wslinks_walk(uint64_t ws_dev, const char *const *roots, size_t n)
{
	struct wslinks *l = xcalloc(1, sizeof(*l));
	struct walk w = { .l = l };
	struct stat sb;
	size_t i;
	int rc;

	l->dev = ws_dev;
	l->complete = 1;
	/* A change to an inode from now on sets its ctime to this or later. */
	l->since = clock_ns(CLOCK_REALTIME_COARSE);
	w.deadline = clock_ns(CLOCK_MONOTONIC) + WSLINKS_MAX_MS * 1000000LL;
	cur = &w;
	for (i = 0; i < n && l->complete; i++) {
		if (lstat(roots[i], &sb) == -1) {
			if (errno != ENOENT)
				stop(l, strerror(errno), roots[i]);
			continue;
		}
		/* Not followed: what it names went unwalked. */
		if (S_ISLNK(sb.st_mode)) {
			stop(l, "a symlink", roots[i]);
			break;
		}
		rc = nftw(roots[i], visit, 64, FTW_PHYS);
		if (rc == -1 && l->complete)
			stop(l, strerror(errno), roots[i]);
	}
	cur = NULL;
	if (l->n > 1)
		qsort(l->ids, l->n, sizeof(*l->ids), cmp_id);
	return l;
}

void
wslinks_free(struct wslinks *l)
{
	if (l == NULL)
		return;
	free(l->ids);
	free(l);
}

int
wslinks_exposed(
    const struct wslinks *l, uint64_t dev, uint64_t ino, int64_t ctime)
{
	uint64_t key[2] = { ino, dev };

	if (l == NULL || !l->complete || dev != l->dev || ctime >= l->since)
		return 1;
	/* None found: no list to search (bsearch() of a NULL one is
	 * undefined, and UBSan stopped the digest worker on it). */
	if (l->n == 0)
		return 0;
	return bsearch(key, l->ids, l->n, sizeof(*l->ids), cmp_id) != NULL;
}
