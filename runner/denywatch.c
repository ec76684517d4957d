/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * denywatch: see denywatch.h.  Each watched directory is watched itself
 * (IN_MOVE_SELF, IN_DELETE_SELF) and by name in its parent (IN_DELETE,
 * IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE): the parent's events come from
 * the rename or rmdir itself, while IN_DELETE_SELF waits for the last
 * reference to the dentry, which the sandbox's own mount may hold.
 */
#include "config.h"

#include <sys/inotify.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "runner/denywatch.h"

#define WATCH_SELF (IN_MOVE_SELF | IN_DELETE_SELF)
#define WATCH_NAME (IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE)

struct watch {
	int wd;
	char *name; /* in the directory wd; NULL: wd itself */
	char *path; /* what is reported */
};

struct deny_watch {
	int fd;
	struct watch *v;
	size_t n;
};

static const char lost[] = "events were lost";

/* Watches |dir| for |mask| and records it as |name| (NULL: itself). */
static int
watch_one(struct deny_watch *w, const char *dir, uint32_t mask,
    const char *name, const char *path)
{
	int wd;

	wd = inotify_add_watch(
	    w->fd, dir, mask | IN_MASK_ADD | IN_ONLYDIR | IN_DONT_FOLLOW);
	if (wd == -1)
		return -1;
	w->v = xreallocarray(w->v, w->n + 1, sizeof(*w->v));
	w->v[w->n].wd = wd;
	w->v[w->n].name = name != NULL ? xstrdup(name) : NULL;
	w->v[w->n].path = xstrdup(path);
	w->n++;
	return 0;
}

int
deny_watch_add(struct deny_watch **wp, const char *dir, const char *top)
{
	char path[PATH_MAX], *slash;
	size_t n = strlen(top);

	while (n > 1 && top[n - 1] == '/')
		n--;
	if (strlen(dir) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (*wp == NULL) {
		*wp = xcalloc(1, sizeof(**wp));
		if (((*wp)->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) ==
		    -1) {
			free(*wp);
			*wp = NULL;
			return -1;
		}
	}
	strcpy(path, dir);
	/* From the directory up to the bind's top (or the root, where
	 * the directory is not beneath it as named: more is watched). */
	while ((slash = strrchr(path, '/')) != NULL && slash != path &&
	    !(strlen(path) == n && strncmp(path, top, n) == 0)) {
		if (watch_one(*wp, path, WATCH_SELF, NULL, dir) != 0)
			return -1;
		*slash = '\0';
		if (watch_one(*wp, path, WATCH_NAME, slash + 1, dir) != 0)
			return -1;
	}
	return 0;
}

int
deny_watch_fd(const struct deny_watch *w)
{
	return w->fd;
}

/* The watched directory event |ev| takes away, or NULL. */
static const char *
event_hit(const struct deny_watch *w, const struct inotify_event *ev)
{
	size_t i;

	if (ev->mask & IN_Q_OVERFLOW)
		return lost;
	for (i = 0; i < w->n; i++) {
		if (w->v[i].wd != ev->wd)
			continue;
		if (w->v[i].name == NULL && (ev->mask & WATCH_SELF))
			return w->v[i].path;
		if (w->v[i].name != NULL && (ev->mask & WATCH_NAME) &&
		    ev->len > 0 && strcmp(ev->name, w->v[i].name) == 0)
			return w->v[i].path;
	}
	return NULL;
}

const char *
deny_watch_read(struct deny_watch *w)
{
	char buf[4096]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	const char *hit = NULL;
	ssize_t len, off;

	for (;;) {
		len = read(w->fd, buf, sizeof(buf));
		if (len == -1 && errno == EINTR)
			continue;
		if (len <= 0)
			return hit;
		for (off = 0; off < len;
		     off += (ssize_t)(sizeof(*ev) + ev->len)) {
			ev = (const struct inotify_event *)(buf + off);
			if (hit == NULL)
				hit = event_hit(w, ev);
		}
	}
}

void
deny_watch_free(struct deny_watch *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->n; i++) {
		free(w->v[i].name);
		free(w->v[i].path);
	}
	free(w->v);
	if (w->fd != -1)
		close(w->fd);
	free(w);
}
