/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * fwatch: workspace changes made by others, through inotify.
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
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include <jansson.h>

#include "broker/fwatch.h"
#include "broker/loop.h"
#include "common/log.h"
#include "common/util.h"

#define WATCH_MASK \
	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | \
	    IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_ONLYDIR | \
	    IN_DONT_FOLLOW | IN_EXCL_UNLINK)

struct fwatch {
	struct loop *loop;
	char *root;
	int fd;
	int watch;
	char **dirs; /* by wd: workspace-relative, "" = root */
	size_t ndirs_cap;
	size_t ndirs;
	int own; /* inside an own-write bracket */
	int broker; /* inside a broker-write bracket (fwatch_broker()) */
	uint64_t foreign; /* changes by others made outside one, ever */
	json_t *changed; /* path -> "created"|"modified"|"deleted" */
	size_t more; /* past FWATCH_MAX_PATHS */
	int incomplete; /* a queue overflow or too many dirs */
	int unwatched; /* ...and so, for good, a directory may be unwatched */
	uint64_t others; /* changes by others seen, ever */
	int drained; /* fwatch_pending() read the queue this turn */
	int count_only; /* fwatch_count_only(): nothing kept to report */
};

/*
 * The name airlock never watches, in the directory |dir|: .git, at the
 * root only.  The workspace digest holds every other entry, a nested
 * .git's files among them, and a grant's digest is bound to it because
 * the watch sees every write made while it is taken: skipped at any
 * depth, an rw agent's rewrite of src/.git/config, made while the
 * grant's digest was taken, reached the run a human approved.
 */
static int
skipped(const char *dir, const char *name)
{
	return *dir == '\0' && strcmp(name, ".git") == 0;
}

/*
 * A path beneath a root name beginning with ".airlock-" (an apply's
 * trash): counted as a change, as the digest holds it, but never
 * reported to the agent.  Unwatched, an rw agent's .airlock-note,
 * rewritten once the grant's second digest had read it, reached the run
 * a human approved.
 */
static int
own_name(const char *path)
{
	return strncmp(path, ".airlock-", 9) == 0;
}

static void add_tree(struct fwatch *, const char *);

/* How many directories deep |rel| is ("" is 0). */
static size_t
depth_of(const char *rel)
{
	size_t n = *rel != '\0';

	for (; *rel != '\0'; rel++)
		n += *rel == '/';
	return n;
}

/* Watches the directory |rel| and, when |recurse|, those beneath it. */
static void
add_dir(struct fwatch *fw, const char *rel, int recurse)
{
	char path[PATH_MAX];
	int wd;

	if (fw->ndirs >= FWATCH_MAX_DIRS || depth_of(rel) > FWATCH_MAX_DEPTH) {
		fw->incomplete = fw->unwatched = 1;
		return;
	}
	if (snprintf(path, sizeof(path), "%s%s%s", fw->root, *rel ? "/" : "",
		rel) >= (int)sizeof(path))
		return;
	if ((wd = inotify_add_watch(fw->fd, path, WATCH_MASK)) < 0) {
		if (errno == ENOSPC)
			fw->incomplete = fw->unwatched = 1;
		return;
	}
	if ((size_t)wd >= fw->ndirs_cap) {
		size_t n = fw->ndirs_cap ? fw->ndirs_cap : 64;

		while (n <= (size_t)wd)
			n *= 2;
		fw->dirs = xreallocarray(fw->dirs, n, sizeof(*fw->dirs));
		memset(fw->dirs + fw->ndirs_cap, 0,
		    (n - fw->ndirs_cap) * sizeof(*fw->dirs));
		fw->ndirs_cap = n;
	}
	if (fw->dirs[wd] == NULL)
		fw->ndirs++;
	free(fw->dirs[wd]);
	fw->dirs[wd] = xstrdup(rel);
	if (recurse)
		add_tree(fw, rel);
}

/* Watches the subdirectories of |rel| (not following symlinks). */
static void
add_tree(struct fwatch *fw, const char *rel)
{
	char path[PATH_MAX], sub[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int fd;

	if (snprintf(path, sizeof(path), "%s%s%s", fw->root, *rel ? "/" : "",
		rel) >= (int)sizeof(path))
		return;
	if ((fd = open(
		 path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 || skipped(rel, e->d_name))
			continue;
		if (e->d_type != DT_DIR &&
		    (e->d_type != DT_UNKNOWN ||
			fstatat(dirfd(d), e->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) != 0 ||
			!S_ISDIR(st.st_mode)))
			continue;
		if (snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
			e->d_name) >= (int)sizeof(sub))
			continue;
		add_dir(fw, sub, 1);
	}
	closedir(d);
}

/* Records a change of |path| by others. */
static void
note(struct fwatch *fw, const char *name, const char *change)
{
	/*
	 * A key of JSON is UTF-8: U+FFFD for a byte that is not (as
	 * list_files shows it), or json_object_set_new() refused the name
	 * and the change was dropped from the notice without a word.
	 */
	char *path = utf8_sanitize(name, strlen(name));
	const char *was = json_string_value(json_object_get(fw->changed, path));

	if (was == NULL && json_object_size(fw->changed) >= FWATCH_MAX_PATHS) {
		fw->more++;
		free(path);
		return;
	}
	/* Created, then written: still new; deleted, then created: modified. */
	if (was != NULL && strcmp(was, "created") == 0 &&
	    strcmp(change, "modified") == 0) {
		free(path);
		return;
	}
	if (was != NULL && strcmp(was, "deleted") == 0 &&
	    strcmp(change, "created") == 0)
		change = "modified";
	json_object_set_new(fw->changed, path, json_string(change));
	free(path);
}

static void
handle(struct fwatch *fw, const struct inotify_event *ev)
{
	char path[PATH_MAX];
	const char *dir, *change;

	/* A directory made meanwhile was never told of: never watched. */
	if (ev->mask & IN_Q_OVERFLOW) {
		fw->incomplete = fw->unwatched = 1;
		fw->others++;
		fw->foreign++;
		return;
	}
	if (ev->wd < 0 || (size_t)ev->wd >= fw->ndirs_cap ||
	    (dir = fw->dirs[ev->wd]) == NULL)
		return;
	if (ev->mask & IN_IGNORED) {
		free(fw->dirs[ev->wd]);
		fw->dirs[ev->wd] = NULL;
		fw->ndirs--;
		return;
	}
	if (ev->len == 0 || ev->name[0] == '\0' || skipped(dir, ev->name))
		return;
	if (snprintf(path, sizeof(path), "%s%s%s", dir, *dir ? "/" : "",
		ev->name) >= (int)sizeof(path))
		return;
	if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO)))
		add_dir(fw, path, 1);
	if (!fw->broker)
		fw->foreign++;
	if (fw->own)
		return;
	fw->others++;
	if (fw->count_only || own_name(path))
		return;
	if (ev->mask & (IN_CREATE | IN_MOVED_TO))
		change = "created";
	else if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
		change = "deleted";
	else
		change = "modified";
	note(fw, path, change);
}

void
fwatch_drain(struct fwatch *fw)
{
	char buf[16384]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	char *p;

	if (fw == NULL)
		return;
	for (;;) {
		n = read(fw->fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const void *)p;

			handle(fw, ev);
			p += sizeof(*ev) + ev->len;
		}
	}
}

int
fwatch_pending(struct fwatch *fw)
{
	if (fw == NULL)
		return 0;
	if (!fw->drained) {
		fwatch_drain(fw);
		fw->drained = 1;
	}
	return json_object_size(fw->changed) > 0 || fw->more > 0 ||
	    fw->incomplete;
}

void
fwatch_count_only(struct fwatch *fw)
{
	if (fw != NULL)
		fw->count_only = 1;
}

uint64_t
fwatch_others(struct fwatch *fw, int *complete)
{
	*complete = 0;
	if (fw == NULL)
		return 0;
	fwatch_drain(fw);
	/* Not !incomplete: fwatch_tail() clears that once it has said so,
	 * and the directories it could not watch stay unwatched. */
	*complete = !fw->unwatched;
	return fw->others;
}

uint64_t
fwatch_foreign(struct fwatch *fw, int *complete)
{
	(void)fwatch_others(fw, complete); /* reads the queue, sets *complete */
	return fw != NULL ? fw->foreign : 0;
}

void
fwatch_broker(struct fwatch *fw, int on)
{
	if (fw == NULL)
		return;
	fwatch_drain(fw);
	fw->broker = on;
}

void
fwatch_turn_end(struct fwatch *fw)
{
	if (fw != NULL)
		fw->drained = 0;
}

static void
readable(int fd, int why, void *arg)
{
	(void)fd;
	(void)why;
	fwatch_drain(arg);
}

struct fwatch *
fwatch_new(struct loop *l, const char *root, char *err, size_t errlen)
{
	struct fwatch *fw = xcalloc(1, sizeof(*fw));

	fw->loop = l;
	fw->root = xstrdup(root);
	if ((fw->changed = json_object()) == NULL)
		fatalx("json_object");
	if ((fw->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1) {
		snprintf(err, errlen, "inotify: %s", strerror(errno));
		fwatch_free(fw);
		return NULL;
	}
	add_dir(fw, "", 1);
	if (fw->ndirs == 0) {
		snprintf(err, errlen, "inotify cannot watch %s", root);
		fwatch_free(fw);
		return NULL;
	}
	fw->watch = loop_watch(l, fw->fd, INT64_MAX, readable, fw);
	if (fw->watch < 0) {
		snprintf(err, errlen, "too many watches");
		fwatch_free(fw);
		return NULL;
	}
	return fw;
}

void
fwatch_free(struct fwatch *fw)
{
	size_t i;

	if (fw == NULL)
		return;
	if (fw->watch > 0)
		loop_unwatch(fw->loop, fw->watch);
	if (fw->fd >= 0)
		close(fw->fd);
	for (i = 0; i < fw->ndirs_cap; i++)
		free(fw->dirs[i]);
	free(fw->dirs);
	free(fw->root);
	json_decref(fw->changed);
	free(fw);
}

void
fwatch_own_begin(struct fwatch *fw)
{
	if (fw == NULL)
		return;
	fwatch_drain(fw);
	fw->own = 1;
}

void
fwatch_quiet(struct fwatch *fw, int on)
{
	if (fw == NULL)
		return;
	if (on && fw->watch > 0) {
		loop_unwatch(fw->loop, fw->watch);
		fw->watch = 0;
	} else if (!on && fw->watch == 0) {
		fwatch_drain(fw);
		fw->watch =
		    loop_watch(fw->loop, fw->fd, INT64_MAX, readable, fw);
		if (fw->watch < 0)
			fatalx("too many watches");
	}
}

void
fwatch_own_end(struct fwatch *fw)
{
	if (fw == NULL)
		return;
	fwatch_drain(fw);
	fw->own = 0;
}

void
fwatch_tail(struct fwatch *fw, json_t *result, json_t *structured)
{
	json_t *files, *v, *f;
	const char *path;
	char *text, *p;
	size_t i, shown = 0, rest, len = 512;

	if (fw == NULL)
		return;
	fwatch_drain(fw);
	if (json_object_size(fw->changed) == 0 && fw->more == 0 &&
	    !fw->incomplete)
		return;
	if ((files = json_array()) == NULL)
		fatalx("json_array");
	json_object_foreach(fw->changed, path, v)
	{
		if (shown >= FWATCH_SHOWN)
			break;
		shown++;
		len += strlen(path) + 16;
		json_array_append_new(
		    files, json_pack("{s:s, s:O}", "path", path, "change", v));
	}
	rest = json_object_size(fw->changed) + fw->more - shown;
	text = p = xcalloc(1, len);
	p += sprintf(p,
	    "[airlock: workspace files changed outside your "
	    "calls since your last result; re-read before editing]\n");
	json_array_foreach(files, i, f)
	{
		p += sprintf(p, "%s %s\n",
		    json_string_value(json_object_get(f, "change")),
		    json_string_value(json_object_get(f, "path")));
	}
	if (rest > 0)
		p += sprintf(p, "[airlock: and %zu more]\n", rest);
	if (fw->incomplete)
		sprintf(p,
		    "[airlock: the list may be incomplete (too many "
		    "changes or directories to watch)]\n");
	json_array_append_new(json_object_get(result, "content"),
	    json_pack("{s:s, s:s}", "type", "text", "text", text));
	free(text);
	if (structured != NULL && json_is_object(structured))
		json_object_set_new(structured, "fileChanges",
		    json_pack("{s:o, s:I, s:b}", "files", files, "more",
			(json_int_t)rest, "incomplete", fw->incomplete));
	else
		json_decref(files);
	json_object_clear(fw->changed);
	fw->more = 0;
	fw->incomplete = 0;
}
