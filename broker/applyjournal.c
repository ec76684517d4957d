/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * applyjournal: see applyjournal.h.  Every path is resolved beneath the
 * workspace without following a symlink (path_resolve_walk), as the
 * apply itself does.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/applyjournal.h"
#include "broker/audit.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/paths.h"
#include "common/util.h"
#include "policy/path.h"
#include "policy/writepolicy.h"

#define JOURNAL_TMP "journal.tmp"
/* The largest journal read back: 256k entries of long paths. */
#define JOURNAL_MAX (256LL * 1024 * 1024)

/* The journal's text for its seal: its members but "seal", sorted. */
#define JOURNAL_DUMP (JSON_COMPACT | JSON_SORT_KEYS)

/*
 * Reads the key that seals journals into key[0..32), creating it (and
 * the state and keys directories) first when |create|.  0, or -1 with
 * errno.
 */
static int
seal_key(unsigned char key[APPLYJOURNAL_KEY_LEN], int create)
{
	char state[PATH_MAX], dir[PATH_MAX + 8], path[PATH_MAX + 32];
	int rc;

	if (sodium_init() < 0) {
		errno = ENOSYS;
		return -1;
	}
	if (paths_state_dir(state, sizeof(state)) != 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/keys", state);
	snprintf(path, sizeof(path), "%s/" APPLYJOURNAL_KEY_NAME, dir);
	if (create &&
	    ((mkdir(state, 0700) == -1 && errno != EEXIST) ||
		(mkdir(dir, 0700) == -1 && errno != EEXIST)))
		return -1;
	if ((rc = audit_keyfile_load(path, create, key)) != 0) {
		if (rc != AL_ERR_SYSTEM)
			errno = rc == AL_ERR_NOT_FOUND ? ENOENT
			    : rc == AL_ERR_DENIED      ? EACCES
						       : EBADMSG;
		return -1;
	}
	return 0;
}

/* The seal of the journal text[0..len) in trash |name| under |key|. */
static void
seal_of(const char *name, const char *text, size_t len,
    const unsigned char key[APPLYJOURNAL_KEY_LEN],
    char hex[APPLYJOURNAL_SEAL_HEX + 1])
{
	unsigned char md[APPLYJOURNAL_SEAL_HEX / 2];
	crypto_generichash_state st;

	crypto_generichash_init(&st, key, APPLYJOURNAL_KEY_LEN, sizeof(md));
	/* The name with its NUL: no name and text run into another pair. */
	crypto_generichash_update(
	    &st, (const unsigned char *)name, strlen(name) + 1);
	crypto_generichash_update(&st, (const unsigned char *)text, len);
	crypto_generichash_final(&st, md, sizeof(md));
	sodium_bin2hex(hex, APPLYJOURNAL_SEAL_HEX + 1, md, sizeof(md));
}

int
applyjournal_write(int trashfd, const char *name, const json_t *journal)
{
	unsigned char key[APPLYJOURNAL_KEY_LEN];
	char hex[APPLYJOURNAL_SEAL_HEX + 1], tail[APPLYJOURNAL_SEAL_HEX + 16];
	size_t len;
	char *text;
	int fd, e;

	if (!json_is_object(journal) || json_object_size(journal) == 0 ||
	    json_object_get(journal, "seal") != NULL) {
		errno = EINVAL;
		return -1;
	}
	if (seal_key(key, 1) != 0)
		return -1;
	if ((text = json_dumps(journal, JOURNAL_DUMP)) == NULL) {
		sodium_memzero(key, sizeof(key));
		errno = ENOMEM;
		return -1;
	}
	len = strlen(text);
	seal_of(name, text, len, key, hex);
	sodium_memzero(key, sizeof(key));
	/* The text with the seal as its last member: "...,"seal":"HEX"}". */
	snprintf(tail, sizeof(tail), ",\"seal\":\"%s\"}", hex);
	fd = openat(trashfd, JOURNAL_TMP,
	    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1 || write_all(fd, text, len - 1) != 0 ||
	    write_all(fd, tail, strlen(tail)) != 0 || fsync(fd) == -1) {
		e = errno;
		if (fd != -1)
			close(fd);
		free(text);
		errno = e;
		return -1;
	}
	close(fd);
	free(text);
	if (renameat(trashfd, JOURNAL_TMP, trashfd, APPLYJOURNAL_NAME) == -1)
		return -1;
	return fsync(trashfd);
}

/* applyjournal_watch()'s: this process's only. */
static applyjournal_watch_fn watch_fn;
static void *watch_arg;

void
applyjournal_watch(applyjournal_watch_fn fn, void *arg)
{
	watch_fn = fn;
	watch_arg = arg;
}

int
applyjournal_commit(int trashfd)
{
	if (renameat(trashfd, APPLYJOURNAL_NAME, trashfd, APPLYJOURNAL_DONE) ==
	    -1)
		return -1;
	if (watch_fn != NULL)
		watch_fn(NULL, watch_arg);
	return 0;
}

/* Splits |path| into a parent directory descriptor and a name. */
static int
parent_of(int wsfd, const char *path, int *dfd, const char **name)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_REL_MAX];

	if (slash == NULL) {
		*name = path;
		*dfd = fcntl(wsfd, F_DUPFD_CLOEXEC, 0);
		return *dfd == -1 ? -1 : 0;
	}
	if ((size_t)(slash - path) >= sizeof(dir))
		return -1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	*name = slash + 1;
	return path_resolve_walk(
		   wsfd, dir, O_RDONLY | O_DIRECTORY, dfd, NULL, 0) == 0
	    ? 0
	    : -1;
}

/* Whether the removal |idx| happened: its file is in the trash. */
static int
in_trash(int trashfd, json_int_t idx)
{
	char name[32];
	struct stat st;

	snprintf(name, sizeof(name), "%lld", (long long)idx);
	return fstatat(trashfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void
undo_step(int wsfd, int trashfd, json_t *step)
{
	const char *op = json_string_value(json_object_get(step, "op"));
	const char *path = json_string_value(json_object_get(step, "path"));
	json_t *removal = json_object_get(step, "removal");
	const char *name;
	struct stat st;
	int dfd, fd;

	if (op == NULL || path == NULL ||
	    parent_of(wsfd, path, &dfd, &name) != 0)
		return;
	if (strcmp(op, "write") == 0) {
		/* Its removal never happened: what stands there is the
		 * original. */
		if (json_is_integer(removal) &&
		    !in_trash(trashfd, json_integer_value(removal))) {
			close(dfd);
			return;
		}
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode))
			(void)unlinkat(dfd, name, 0);
	} else if (strcmp(op, "mkdir") == 0) {
		(void)unlinkat(dfd, name, AT_REMOVEDIR);
	} else if (strcmp(op, "chmod") == 0) {
		fd = openat(
		    dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd != -1) {
			/* The old mode whole: a setgid directory stays. */
			(void)fchmod(fd,
			    (mode_t)json_integer_value(
				json_object_get(step, "mode")) &
				07777);
			close(fd);
		}
	}
	close(dfd);
}

int
applyjournal_rollback(int wsfd, int trashfd, const json_t *journal,
    size_t ndone, size_t *nsteps, char *err, size_t errlen)
{
	json_t *steps = json_object_get(journal, "steps");
	json_t *removals = json_object_get(journal, "removals");
	const char *path, *name;
	char idx[32];
	size_t i;
	int dfd, rc = 0;

	*nsteps = 0;
	if (!json_is_array(steps) || !json_is_array(removals)) {
		snprintf(err, errlen, "the journal is malformed");
		return -1;
	}
	*nsteps = json_array_size(steps) + json_array_size(removals);
	if (ndone > json_array_size(steps))
		ndone = json_array_size(steps);
	for (i = ndone; i > 0; i--)
		undo_step(wsfd, trashfd, json_array_get(steps, i - 1));
	for (i = json_array_size(removals); i > 0; i--) {
		path = json_string_value(json_array_get(removals, i - 1));
		if (path == NULL || !in_trash(trashfd, (json_int_t)(i - 1)))
			continue;
		snprintf(idx, sizeof(idx), "%zu", i - 1);
		if (parent_of(wsfd, path, &dfd, &name) != 0) {
			snprintf(err, errlen,
			    "%s: its directory is gone; the original is "
			    "kept in the trash as %s",
			    path, idx);
			rc = -1;
			continue;
		}
		if (renameat2(trashfd, idx, dfd, name, RENAME_NOREPLACE) ==
		    -1) {
			snprintf(err, errlen,
			    "%s cannot be put back (%s); the original is "
			    "kept in the trash as %s",
			    path, strerror(errno), idx);
			rc = -1;
		}
		close(dfd);
	}
	if (rc == 0)
		(void)fsync(wsfd);
	return rc;
}

int
applyjournal_begin(int wsfd, const json_t *journal, char *trash,
    size_t trashlen, int *trashfd, char *err, size_t errlen)
{
	tmp_name(trash, trashlen, "trash");
	if (mkdirat(wsfd, trash, 0700) == -1 ||
	    (*trashfd = openat(wsfd, trash,
		 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "trash directory: %s", strerror(errno));
		(void)unlinkat(wsfd, trash, AT_REMOVEDIR);
		return AL_ERR_SYSTEM;
	}
	if (watch_fn != NULL)
		watch_fn(trash, watch_arg);
	if (flock(*trashfd, LOCK_EX) == -1 || fsync(wsfd) == -1 ||
	    applyjournal_write(*trashfd, trash, journal) != 0) {
		snprintf(err, errlen, "apply journal: %s", strerror(errno));
		close(*trashfd);
		*trashfd = -1;
		applyjournal_rm_tree(wsfd, trash);
		return AL_ERR_IO;
	}
	return 0;
}

int
applyjournal_failed(int e)
{
	switch (e) {
	case ENOSPC:
	case EDQUOT:
	case EIO:
	case ENOMEM:
	case EAGAIN:
	case EINTR:
	case ENFILE:
	case EMFILE:
		return AL_ERR_IO;
	default:
		return AL_ERR_SYSTEM;
	}
}

void
applyjournal_rm_tree(int dfd, const char *name)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return;
	if (!S_ISDIR(st.st_mode)) {
		(void)unlinkat(dfd, name, 0);
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 && errno == EACCES) {
		/* overlayfs leaves its work directory mode 0. */
		(void)!fchmodat(dfd, name, 0700, 0);
		fd = openat(
		    dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd != -1) {
		int keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);

		if ((d = fdopendir(fd)) == NULL)
			close(fd);
		else {
			while (keep != -1 && (de = readdir(d)) != NULL)
				if (strcmp(de->d_name, ".") != 0 &&
				    strcmp(de->d_name, "..") != 0)
					applyjournal_rm_tree(keep, de->d_name);
			closedir(d);
		}
		if (keep != -1)
			close(keep);
	}
	(void)unlinkat(dfd, name, AT_REMOVEDIR);
}

int
applyjournal_end(int wsfd, int trashfd, const char *trash, json_t *journal,
    size_t made, int rc)
{
	char rberr[256];
	size_t nsteps;

	if (rc != 0 &&
	    applyjournal_rollback(wsfd, trashfd, journal, made, &nsteps, rberr,
		sizeof(rberr)) != 0) {
		log_warnx("%s: %s", trash, rberr);
		json_decref(journal);
		close(trashfd);
		return rc;
	}
	json_decref(journal);
	close(trashfd);
	applyjournal_remove(wsfd, trash);
	return rc;
}

void
applyjournal_remove(int wsfd, const char *trash)
{
	struct dirent *de;
	DIR *d;
	int fd, dup;

	fd = openat(
	    wsfd, trash, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd != -1 && (dup = fcntl(fd, F_DUPFD_CLOEXEC, 0)) != -1) {
		if ((d = fdopendir(dup)) == NULL)
			close(dup);
		else {
			while ((de = readdir(d)) != NULL)
				if (strcmp(de->d_name, ".") != 0 &&
				    strcmp(de->d_name, "..") != 0 &&
				    strcmp(de->d_name, APPLYJOURNAL_NAME) !=
					0 &&
				    strcmp(de->d_name, APPLYJOURNAL_DONE) != 0)
					applyjournal_rm_tree(fd, de->d_name);
			closedir(d);
		}
		(void)unlinkat(fd, APPLYJOURNAL_NAME, 0);
		(void)unlinkat(fd, APPLYJOURNAL_DONE, 0);
	}
	if (fd != -1)
		close(fd);
	applyjournal_rm_tree(wsfd, trash);
}

/* Reads the journal in |trashfd|: 1 with *out, 0 if absent, -1. */
static int
read_journal(int trashfd, const char *name, json_t **out)
{
	json_error_t je;
	struct stat st;
	int fd;

	*out = NULL;
	fd = openat(trashfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > JOURNAL_MAX) {
		close(fd);
		return -1;
	}
	*out = json_loadfd(fd, 0, &je);
	close(fd);
	return *out != NULL ? 1 : -1;
}

/* Whether directory |fd| holds nothing but |allowed| names. */
static int
only_holds(int fd, const char *allowed)
{
	struct dirent *de;
	DIR *d;
	int dup, ok = 1;

	if ((dup = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1)
		return 0;
	if ((d = fdopendir(dup)) == NULL) {
		close(dup);
		return 0;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, allowed) != 0)
			ok = 0;
	closedir(d);
	return ok;
}

/*
 * Whether every path |journal| names is one a change set may write under
 * |p|: an apply only journals what passed the write policy, so a journal
 * naming .git, a protected path or a trash of airlock's was not written
 * by an apply (a run or an agent that writes the workspace planted it),
 * and rolling it back would make airlock write there itself.  0, or -1
 * with err.
 */
static int
journal_allowed(const struct sandbox_policy *p, const char *name,
    const json_t *journal, char *err, size_t errlen)
{
	json_t *steps = json_object_get(journal, "steps");
	json_t *removals = json_object_get(journal, "removals");
	json_t *v;
	struct wp_entry e;
	const char *op, *rule;
	size_t i;

	if (!json_is_array(steps) || !json_is_array(removals)) {
		snprintf(
		    err, errlen, "%s: the apply journal is malformed", name);
		return -1;
	}
	memset(&e, 0, sizeof(e));
	e.nlink = 1;
	json_array_foreach(removals, i, v)
	{
		e.kind = WP_DELETE;
		if ((e.path = json_string_value(v)) == NULL ||
		    (rule = writepolicy_check(p, &e)) != NULL)
			goto refused;
	}
	json_array_foreach(steps, i, v)
	{
		op = json_string_value(json_object_get(v, "op"));
		e.path = json_string_value(json_object_get(v, "path"));
		e.kind =
		    op != NULL && strcmp(op, "write") == 0 ? WP_FILE : WP_DIR;
		if (op == NULL || e.path == NULL ||
		    (rule = writepolicy_check(p, &e)) != NULL)
			goto refused;
	}
	return 0;
refused:
	snprintf(err, errlen,
	    "%s: the apply journal names %s, which no change set may write; "
	    "it was not written by an apply: left for a human",
	    name, e.path != NULL ? e.path : "an entry that is not a path");
	return -1;
}

/*
 * Whether |journal|, read from trash |name|, carries the seal
 * applyjournal_write() gave it (then removed from it): written by an
 * apply of this user's airlock for this trash, not planted or edited by
 * whatever else writes the workspace.  0, or -1 with err.
 */
static int
journal_sealed(const char *name, json_t *journal, char *err, size_t errlen)
{
	unsigned char key[APPLYJOURNAL_KEY_LEN];
	char want[APPLYJOURNAL_SEAL_HEX + 1], got[APPLYJOURNAL_SEAL_HEX + 1];
	const char *seal = json_string_value(json_object_get(journal, "seal"));
	char *text = NULL;
	int ok;

	if (seal == NULL || strlen(seal) != APPLYJOURNAL_SEAL_HEX) {
		snprintf(err, errlen,
		    "%s: the apply journal has no seal; it was not written by "
		    "an apply of airlock's: left for a human",
		    name);
		return -1;
	}
	snprintf(got, sizeof(got), "%s", seal);
	(void)json_object_del(journal, "seal");
	ok = seal_key(key, 0) == 0 &&
	    (text = json_dumps(journal, JOURNAL_DUMP)) != NULL;
	if (ok) {
		seal_of(name, text, strlen(text), key, want);
		ok = sodium_memcmp(want, got, APPLYJOURNAL_SEAL_HEX) == 0;
	}
	sodium_memzero(key, sizeof(key));
	free(text);
	if (!ok) {
		snprintf(err, errlen,
		    "%s: the apply journal's seal does not verify with this "
		    "user's key (keys/" APPLYJOURNAL_KEY_NAME " in the state "
		    "directory); it was not written by an apply of this "
		    "user's airlock for this trash: left for a human",
		    name);
		return -1;
	}
	return 0;
}

/* Recovers the trash directory |name|; appends to |report|.  0 or -1. */
static int
recover_one(const struct sandbox_policy *p, int wsfd, const char *name,
    json_t *report, char *err, size_t errlen)
{
	json_t *journal;
	size_t n = 0;
	int tfd, rc;

	tfd =
	    openat(wsfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd == -1)
		return 0; /* not a directory, or gone meanwhile */
	if (flock(tfd, LOCK_EX | LOCK_NB) == -1) {
		close(tfd); /* an apply in progress */
		return 0;
	}
	rc = read_journal(tfd, APPLYJOURNAL_NAME, &journal);
	if (rc == 1) {
		if (journal_allowed(p, name, journal, err, errlen) != 0 ||
		    journal_sealed(name, journal, err, errlen) != 0 ||
		    applyjournal_rollback(
			wsfd, tfd, journal, SIZE_MAX, &n, err, errlen) != 0) {
			json_decref(journal);
			close(tfd);
			return -1;
		}
		json_decref(journal);
		json_array_append_new(report,
		    json_pack("{s:s, s:s, s:I}", "trash", name, "action",
			"rolled_back", "entries", (json_int_t)n));
	} else if (rc == -1) {
		snprintf(err, errlen,
		    "%s: the apply journal cannot be read; "
		    "the workspace may hold a half-applied change set",
		    name);
		close(tfd);
		return -1;
	} else if (faccessat(tfd, APPLYJOURNAL_DONE, F_OK,
		       AT_SYMLINK_NOFOLLOW) == 0) {
		json_array_append_new(report,
		    json_pack(
			"{s:s, s:s}", "trash", name, "action", "finished"));
	} else if (only_holds(tfd, JOURNAL_TMP)) {
		json_array_append_new(report,
		    json_pack("{s:s, s:s}", "trash", name, "action",
			"removed_empty"));
	} else {
		json_array_append_new(report,
		    json_pack("{s:s, s:s}", "trash", name, "action", "left"));
		close(tfd);
		return 0;
	}
	applyjournal_remove(wsfd, name);
	close(tfd);
	return 0;
}

int
applyjournal_recover(int rootfd, const struct sandbox_policy *p,
    json_t **report, char *err, size_t errlen)
{
	struct sandbox_policy none;
	struct dirent *de;
	json_t *names, *v;
	size_t i, n, plen = strlen(APPLYJOURNAL_TRASH_PREFIX);
	DIR *d;
	int wsfd, fd, rc = 0;

	*report = NULL;
	if (p == NULL) {
		/* No manifest at hand: .git and airlock's names still hold. */
		memset(&none, 0, sizeof(none));
		p = &none;
	}
	if ((wsfd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1) {
		snprintf(err, errlen, "workspace: %s", strerror(errno));
		return -1;
	}
	if ((fd = fcntl(wsfd, F_DUPFD_CLOEXEC, 0)) == -1 ||
	    (d = fdopendir(fd)) == NULL) {
		snprintf(err, errlen, "workspace: %s", strerror(errno));
		if (fd != -1)
			close(fd);
		close(wsfd);
		return -1;
	}
	names = json_array();
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, APPLYJOURNAL_TRASH_PREFIX, plen) == 0)
			json_array_append_new(names, json_string(de->d_name));
	closedir(d);
	*report = json_array();
	json_array_foreach(names, i, v)
	{
		if (recover_one(p, wsfd, json_string_value(v), *report, err,
			errlen) != 0) {
			rc = -1;
			break;
		}
	}
	json_decref(names);
	close(wsfd);
	n = json_array_size(*report);
	if (rc != 0 || n == 0) {
		json_decref(*report);
		*report = NULL;
	}
	return rc != 0 ? -1 : (int)n;
}
