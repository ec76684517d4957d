/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cowsession: see cowsession.h.  The checkout is walked with openat()
 * and O_NOFOLLOW throughout: it is the human's tree, but a symlink in it
 * must not take the walk elsewhere.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "policy/path.h"
#include "supervisor/cowsession.h"
#include "supervisor/session.h"

#define BASE_MAX_DEPTH 256

/* One path of the base record. */
struct base_rec {
	char *path;
	char type; /* f d l o */
	unsigned mode;
	unsigned long long ino;
	long long size, mt, mtn, ct, ctn;
};

static int
set_paths(struct cowsession *cs, const char *dir, char *err, size_t errlen)
{
	if ((size_t)snprintf(cs->dir, sizeof(cs->dir), "%s/cow", dir) >=
		sizeof(cs->dir) ||
	    (size_t)snprintf(cs->upper, sizeof(cs->upper), "%s/upper",
		cs->dir) >= sizeof(cs->upper) ||
	    (size_t)snprintf(cs->work, sizeof(cs->work), "%s/work", cs->dir) >=
		sizeof(cs->work)) {
		snprintf(err, errlen, "%s: path too long", dir);
		return AL_ERR_LIMIT;
	}
	return 0;
}

static int
take_lock(struct cowsession *cs, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/lock", cs->dir);
	if ((cs->lockfd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		 0600)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (flock(cs->lockfd, LOCK_EX | LOCK_NB) == -1) {
		int e = errno;

		close(cs->lockfd);
		cs->lockfd = -1;
		if (e == EWOULDBLOCK) {
			snprintf(err, errlen,
			    "session %s is in use by another airlock "
			    "(a running agent, a commit or a discard)",
			    cs->id);
			return AL_ERR_CONFLICT;
		}
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return AL_ERR_SYSTEM;
	}
	return 0;
}

/* Where a directory moved up by drain() goes in the directory emptied. */
#define EMPTY_MOVED ".airlock-discard-"

/*
 * Empties directory |sub|, an entry of |top|: removes what is not a
 * directory and moves each directory up into |top| under a new name, to
 * be emptied there in turn.  Returns how many entries went.
 */
static size_t
drain(int top, int sub, unsigned long *serial)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	char name[64];
	size_t gone = 0;
	int dup, rc;

	if ((dup = fcntl(sub, F_DUPFD_CLOEXEC, 0)) == -1)
		return 0;
	if ((d = fdopendir(dup)) == NULL) {
		close(dup);
		return 0;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(sub, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			gone += unlinkat(sub, de->d_name, 0) == 0;
			continue;
		}
		/* Moving a directory to another parent needs write
		 * permission on it (its ".."). */
		(void)!fchmodat(sub, de->d_name, 0700, 0);
		do {
			snprintf(
			    name, sizeof(name), EMPTY_MOVED "%lu", (*serial)++);
			rc = renameat2(
			    sub, de->d_name, top, name, RENAME_NOREPLACE);
		} while (rc == -1 && errno == EEXIST);
		gone += rc == 0;
	}
	closedir(d);
	return gone;
}

/*
 * Removes everything beneath directory |dfd| (not |dfd| itself), at any
 * depth, holding no more than two directories open: each directory in
 * |dfd| is drained (its directories moved up into |dfd|) and removed,
 * and again until |dfd| is empty.  The recursion it replaced held two
 * descriptors a level, and at the default limit of 1024 left a tree the
 * agent nested 2000 deep where it was, the session "discarded".
 * Returns 0 when |dfd| is empty, -1 when what is left cannot be removed.
 */
static int
empty_dir(int dfd)
{
	unsigned long serial = 0;
	struct dirent *de;
	struct stat st;
	size_t seen, gone;
	DIR *d;
	int fd, dup;

	do {
		if ((dup = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
			return -1;
		if ((d = fdopendir(dup)) == NULL) {
			close(dup);
			return -1;
		}
		rewinddir(d);
		seen = gone = 0;
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			seen++;
			if (fstatat(dfd, de->d_name, &st,
				AT_SYMLINK_NOFOLLOW) == -1)
				continue;
			if (!S_ISDIR(st.st_mode)) {
				gone += unlinkat(dfd, de->d_name, 0) == 0;
				continue;
			}
			/* The agent may have left a directory it cannot
			 * enter; overlayfs leaves its work directory mode 0. */
			(void)!fchmodat(dfd, de->d_name, 0700, 0);
			if ((fd = openat(dfd, de->d_name,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				     O_CLOEXEC)) != -1) {
				gone += drain(dfd, fd, &serial);
				close(fd);
			}
			gone += unlinkat(dfd, de->d_name, AT_REMOVEDIR) == 0;
		}
		closedir(d);
	} while (seen > 0 && gone > 0);
	return seen == 0 ? 0 : -1;
}

/* Counts the entries beneath directory |dfd| into *n (see
 * cowsession_count()). */
static void
count_dir(int dfd, int depth, unsigned long long *n, int *complete)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	int fd, dup;

	if (depth > BASE_MAX_DEPTH) {
		*complete = 0;
		return;
	}
	if ((dup = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1) {
		*complete = 0;
		return;
	}
	if ((d = fdopendir(dup)) == NULL) {
		close(dup);
		*complete = 0;
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		(*n)++;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			*complete = 0;
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if ((fd = openat(dfd, de->d_name,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) ==
		    -1) {
			*complete = 0;
			continue;
		}
		count_dir(fd, depth + 1, n, complete);
		close(fd);
	}
	closedir(d);
}

void
cowsession_count(
    const struct cowsession *cs, unsigned long long *entries, int *complete)
{
	int fd;

	*entries = 0;
	*complete = 1;
	if ((fd = open(cs->upper,
		 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		*complete = 0;
		return;
	}
	count_dir(fd, 0, entries, complete);
	close(fd);
}

static int
empty_path(const char *path, char *err, size_t errlen)
{
	int fd, rc;

	if ((fd = open(path,
		 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	rc = empty_dir(fd);
	close(fd);
	if (rc != 0) {
		snprintf(err, errlen, "%s: what it holds cannot all be removed",
		    path);
		return AL_ERR_SYSTEM;
	}
	return 0;
}

int
cowsession_reset_work(struct cowsession *cs, char *err, size_t errlen)
{
	return empty_path(cs->work, err, errlen);
}

/* Writes one record for |name| in |dfd| at |rel| and descends. */
static int
base_walk(FILE *fp, int dfd, const char *rel, int depth)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	char *path;
	char type;
	int fd, dup, rc = 0;

	if (depth > BASE_MAX_DEPTH)
		return AL_ERR_LIMIT;
	if ((dup = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return AL_ERR_SYSTEM;
	if ((d = fdopendir(dup)) == NULL) {
		close(dup);
		return AL_ERR_SYSTEM;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		type = S_ISREG(st.st_mode) ? 'f'
		    : S_ISDIR(st.st_mode)  ? 'd'
		    : S_ISLNK(st.st_mode)  ? 'l'
					   : 'o';
		if (rel[0] == '\0')
			path = xstrdup(de->d_name);
		else
			xasprintf(&path, "%s/%s", rel, de->d_name);
		/* A commit never writes beneath .git (the git rule). */
		if (type == 'd' && strcmp(de->d_name, ".git") == 0) {
			free(path);
			continue;
		}
		if (fprintf(fp, "%c %o %llu %lld %lld %ld %lld %ld\t%s", type,
			(unsigned)(st.st_mode & 07777),
			(unsigned long long)st.st_ino, (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			(long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
			path) < 0 ||
		    fputc('\0', fp) == EOF)
			rc = AL_ERR_IO;
		if (rc == 0 && type == 'd' &&
		    (fd = openat(dfd, de->d_name,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) !=
			-1) {
			rc = base_walk(fp, fd, path, depth + 1);
			close(fd);
		}
		free(path);
	}
	closedir(d);
	return rc;
}

/* Records the checkout in cs->dir/base, atomically. */
static int
base_record(const struct cowsession *cs, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
	FILE *fp;
	int wsfd, fd, rc;

	snprintf(path, sizeof(path), "%s/base", cs->dir);
	snprintf(tmp, sizeof(tmp), "%s/base.new", cs->dir);
	if ((wsfd = open(cs->workspace,
		 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", cs->workspace, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if ((fd = open(tmp,
		 O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		 0600)) == -1 ||
	    (fp = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd != -1)
			close(fd);
		close(wsfd);
		return AL_ERR_SYSTEM;
	}
	rc = base_walk(fp, wsfd, "", 0);
	close(wsfd);
	if (fflush(fp) == EOF || fsync(fileno(fp)) == -1)
		rc = rc != 0 ? rc : AL_ERR_IO;
	if (fclose(fp) == EOF && rc == 0)
		rc = AL_ERR_IO;
	if (rc == 0 && rename(tmp, path) == -1)
		rc = AL_ERR_IO;
	if (rc != 0) {
		(void)unlink(tmp);
		snprintf(err, errlen, "recording the checkout %s failed",
		    cs->workspace);
	}
	return rc;
}

static int
write_meta(const struct cowsession *cs, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
	json_t *j;
	int rc;

	snprintf(path, sizeof(path), "%s/meta.json", cs->dir);
	snprintf(tmp, sizeof(tmp), "%s/meta.json.new", cs->dir);
	j = json_pack("{s:s, s:s, s:s?, s:s, s:b}", "session", cs->id,
	    "workspace", cs->workspace, "manifest",
	    cs->manifest[0] != '\0' ? cs->manifest : NULL, "manifestDigest",
	    cs->digest, "userxattr", cs->userxattr);
	rc = json_dump_file(j, tmp, JSON_SORT_KEYS);
	json_decref(j);
	if (rc != 0 || rename(tmp, path) == -1) {
		snprintf(err, errlen, "%s: cannot be written", path);
		return AL_ERR_IO;
	}
	return 0;
}

static int
read_meta(struct cowsession *cs, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	json_error_t je;
	json_t *j;
	const char *ws, *man, *dig, *id;

	snprintf(path, sizeof(path), "%s/meta.json", cs->dir);
	if ((j = json_load_file(path, 0, &je)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, je.text);
		return AL_ERR_FORMAT;
	}
	id = json_string_value(json_object_get(j, "session"));
	ws = json_string_value(json_object_get(j, "workspace"));
	man = json_string_value(json_object_get(j, "manifest"));
	dig = json_string_value(json_object_get(j, "manifestDigest"));
	if (id == NULL || ws == NULL || dig == NULL ||
	    strlen(id) >= sizeof(cs->id) ||
	    strlen(ws) >= sizeof(cs->workspace) ||
	    (man != NULL && strlen(man) >= sizeof(cs->manifest)) ||
	    strlen(dig) >= sizeof(cs->digest)) {
		json_decref(j);
		snprintf(err, errlen, "%s: malformed", path);
		return AL_ERR_FORMAT;
	}
	snprintf(cs->id, sizeof(cs->id), "%s", id);
	snprintf(cs->workspace, sizeof(cs->workspace), "%s", ws);
	snprintf(
	    cs->manifest, sizeof(cs->manifest), "%s", man != NULL ? man : "");
	snprintf(cs->digest, sizeof(cs->digest), "%s", dig);
	cs->userxattr = json_is_true(json_object_get(j, "userxattr"));
	json_decref(j);
	return 0;
}

int
cowsession_create(const char *session_dir, const char *id,
    const char *workspace, const struct manifest *m, struct cowsession **out,
    char *err, size_t errlen)
{
	struct cowsession *cs;
	int rc;

	*out = NULL;
	cs = xcalloc(1, sizeof(*cs));
	cs->lockfd = -1;
	snprintf(cs->id, sizeof(cs->id), "%s", id);
	if ((rc = set_paths(cs, session_dir, err, errlen)) != 0)
		goto fail;
	if (realpath(workspace, cs->workspace) == NULL) {
		snprintf(err, errlen, "%s: %s", workspace, strerror(errno));
		rc = AL_ERR_SYSTEM;
		goto fail;
	}
	/* "<default>": the built-in manifest, recorded as "". */
	if (m->path != NULL && m->path[0] != '<' &&
	    realpath(m->path, cs->manifest) == NULL)
		snprintf(cs->manifest, sizeof(cs->manifest), "%s", m->path);
	sodium_bin2hex(
	    cs->digest, sizeof(cs->digest), m->digest, sizeof(m->digest));
	cs->userxattr = geteuid() != 0;
	if (mkdir(cs->dir, 0700) == -1 || mkdir(cs->upper, 0755) == -1 ||
	    mkdir(cs->work, 0700) == -1) {
		snprintf(err, errlen, "%s: %s", cs->dir, strerror(errno));
		rc = AL_ERR_SYSTEM;
		goto fail;
	}
	if ((rc = take_lock(cs, err, errlen)) != 0 ||
	    (rc = write_meta(cs, err, errlen)) != 0 ||
	    (rc = base_record(cs, err, errlen)) != 0)
		goto fail;
	*out = cs;
	return 0;
fail:
	cowsession_free(cs);
	return rc;
}

int
cowsession_open(
    const char *id, int lock, struct cowsession **out, char *err, size_t errlen)
{
	struct cowsession *cs;
	struct stat st;
	char state[PATH_MAX], dir[PATH_MAX];
	int rc;

	*out = NULL;
	if (strchr(id, '/') != NULL)
		snprintf(dir, sizeof(dir), "%s", id);
	else if (id[0] == '\0' || id[0] == '.' ||
	    session_state_dir(state, sizeof(state)) != 0 ||
	    (size_t)snprintf(dir, sizeof(dir), "%s/sessions/%s", state, id) >=
		sizeof(dir)) {
		snprintf(err, errlen, "%s: not a session id", id);
		return AL_ERR_NOT_FOUND;
	}
	cs = xcalloc(1, sizeof(*cs));
	cs->lockfd = -1;
	if ((rc = set_paths(cs, dir, err, errlen)) != 0)
		goto fail;
	if (lstat(cs->dir, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid()) {
		snprintf(err, errlen,
		    "%s: no copy-on-write session of yours there "
		    "(airlock run --cow starts one)",
		    id);
		rc = AL_ERR_NOT_FOUND;
		goto fail;
	}
	if ((rc = read_meta(cs, err, errlen)) != 0)
		goto fail;
	if (lock == COWSESSION_LOCK && (rc = take_lock(cs, err, errlen)) != 0)
		goto fail;
	*out = cs;
	return 0;
fail:
	cowsession_free(cs);
	return rc;
}

void
cowsession_free(struct cowsession *cs)
{
	if (cs == NULL)
		return;
	if (cs->lockfd != -1)
		close(cs->lockfd);
	free(cs);
}

static int
cmp_rec(const void *a, const void *b)
{
	return strcmp(((const struct base_rec *)a)->path,
	    ((const struct base_rec *)b)->path);
}

/* Parses the base record in |buf| (NUL-separated; modified in place). */
static struct base_rec *
base_parse(char *buf, size_t len, size_t *n)
{
	struct base_rec *v = NULL, *r;
	size_t cap = 0;
	char *p = buf, *end = buf + len, *tab;

	*n = 0;
	while (p < end) {
		size_t l = strnlen(p, (size_t)(end - p));

		if (p + l == end || (tab = strchr(p, '\t')) == NULL)
			goto bad;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		r = &v[*n];
		*tab = '\0';
		if (sscanf(p, "%c %o %llu %lld %lld %lld %lld %lld", &r->type,
			&r->mode, &r->ino, &r->size, &r->mt, &r->mtn, &r->ct,
			&r->ctn) != 8)
			goto bad;
		r->path = tab + 1;
		(*n)++;
		p += l + 1;
	}
	if (v == NULL)
		v = xcalloc(1, sizeof(*v));
	qsort(v, *n, sizeof(*v), cmp_rec);
	return v;
bad:
	free(v);
	return NULL;
}

json_t *
cowsession_conflicts(const struct cowsession *cs, const char *const *paths,
    size_t n, int *rc, char *err, size_t errlen)
{
	struct base_rec *recs, key, *r;
	json_t *out = json_array();
	struct stat st;
	char path[PATH_MAX + 32], *buf;
	const char *why;
	size_t len, nrec, i;
	int fd, wsfd;

	*rc = 0;
	snprintf(path, sizeof(path), "%s/base", cs->dir);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    (buf = read_fd_whole(fd, (size_t)1 << 31, &len)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		json_decref(out);
		*rc = AL_ERR_SYSTEM;
		return NULL;
	}
	close(fd);
	if ((recs = base_parse(buf, len, &nrec)) == NULL) {
		snprintf(err, errlen, "%s: malformed", path);
		free(buf);
		json_decref(out);
		*rc = AL_ERR_FORMAT;
		return NULL;
	}
	if ((wsfd = open(cs->workspace,
		 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", cs->workspace, strerror(errno));
		free(recs);
		free(buf);
		json_decref(out);
		*rc = AL_ERR_SYSTEM;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		int exists;

		/* The paths come from a walk that followed no symlink; a
		 * symlinked ancestor in the checkout reads as "absent" (it
		 * was followed, and the set's new lnk/f conflicted with the
		 * file f of the directory lnk pointed to). */
		if ((exists = path_lstat_beneath(wsfd, paths[i], &st)) < 0) {
			json_array_append_new(out,
			    json_pack("{s:s, s:s}", "path", paths[i], "reason",
				"cannot be examined in the checkout"));
			continue;
		}
		exists = exists == 0;
		key.path = (char *)paths[i];
		r = bsearch(&key, recs, nrec, sizeof(*recs), cmp_rec);
		why = NULL;
		if (r == NULL && exists)
			why = "created in the checkout since the session began";
		else if (r != NULL && !exists)
			why = "removed from the checkout since the session "
			      "began";
		else if (r != NULL &&
		    (r->type !=
			    (S_ISREG(st.st_mode)	  ? 'f'
				    : S_ISDIR(st.st_mode) ? 'd'
				    : S_ISLNK(st.st_mode) ? 'l'
							  : 'o') ||
			r->mode != (unsigned)(st.st_mode & 07777) ||
			(r->type != 'd' &&
			    (r->ino != (unsigned long long)st.st_ino ||
				r->size != (long long)st.st_size ||
				r->mt != (long long)st.st_mtim.tv_sec ||
				r->mtn != st.st_mtim.tv_nsec ||
				r->ct != (long long)st.st_ctim.tv_sec ||
				r->ctn != st.st_ctim.tv_nsec))))
			why = "changed in the checkout since the session began";
		if (why != NULL)
			json_array_append_new(out,
			    json_pack(
				"{s:s, s:s}", "path", paths[i], "reason", why));
	}
	close(wsfd);
	free(recs);
	free(buf);
	if (json_array_size(out) == 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

int
cowsession_clear(struct cowsession *cs, char *err, size_t errlen)
{
	int rc;

	if ((rc = empty_path(cs->upper, err, errlen)) != 0 ||
	    (rc = empty_path(cs->work, err, errlen)) != 0)
		return rc;
	return base_record(cs, err, errlen);
}
