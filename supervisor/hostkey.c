/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * hostkey: the long-term audit host key (see hostkey.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/errors.h"
#include "broker/audit_verify.h"
#include "common/util.h"
#include "supervisor/hostkey.h"
#include "supervisor/session.h"

static int
keys_dir(char *out, size_t outlen)
{
	char state[PATH_MAX];
	int n;

	if (session_state_dir(state, sizeof(state)) != 0)
		return AL_ERR_LIMIT;
	n = snprintf(out, outlen, "%s/keys", state);
	return n < 0 || (size_t)n >= outlen ? AL_ERR_LIMIT : 0;
}

int
hostkey_path(char *out, size_t outlen)
{
	char dir[PATH_MAX];
	int n;

	if (keys_dir(dir, sizeof(dir)) != 0)
		return AL_ERR_LIMIT;
	n = snprintf(out, outlen, "%s/audit.key", dir);
	return n < 0 || (size_t)n >= outlen ? AL_ERR_LIMIT : 0;
}

/* Replaces |path| with |text| atomically (mode 0644: public data). */
static int
write_public(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	int fd, rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return AL_ERR_LIMIT;
	fd = open(
	    tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd == -1)
		return AL_ERR_SYSTEM;
	rc = write_all(fd, text, strlen(text));
	if (rc == 0 && fsync(fd) == -1)
		rc = AL_ERR_SYSTEM;
	close(fd);
	if (rc == 0 && rename(tmp, path) == -1)
		rc = AL_ERR_SYSTEM;
	if (rc != 0)
		unlink(tmp);
	return rc;
}

/* Whether |path| is a regular file that holds exactly |text|. */
static int
holds(const char *path, const char *text)
{
	char buf[AUDIT_PUBKEY_HEX_LEN + 8];
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	if (len >= sizeof(buf) ||
	    (fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)len && memcmp(buf, text, len) == 0;
}

/* Appends |hex| to trusted.pub unless it is listed already (then sets
 * *added). */
static int
trust_add(const char *dir, const char *hex, int *added)
{
	char path[PATH_MAX], line[256], stamp[80];
	time_t now = time(NULL);
	struct tm tm;
	FILE *fp;
	int rc = 0;

	if (snprintf(path, sizeof(path), "%s/trusted.pub", dir) >=
	    (int)sizeof(path))
		return AL_ERR_LIMIT;
	if ((fp = fopen(path, "re")) != NULL) {
		while (fgets(line, sizeof(line), fp) != NULL)
			if (strncmp(line, hex, AUDIT_PUBKEY_HEX_LEN) == 0) {
				fclose(fp);
				return 0;
			}
		fclose(fp);
	}
	if ((fp = fopen(path, "ae")) == NULL)
		return AL_ERR_SYSTEM;
	*added = 1;
	utc_time(now, &tm);
	snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec);
	if (fprintf(fp, "%s added %s\n", hex, stamp) < 0)
		rc = AL_ERR_SYSTEM;
	if (fflush(fp) != 0 || fsync(fileno(fp)) == -1)
		rc = AL_ERR_SYSTEM;
	if (fclose(fp) != 0)
		rc = AL_ERR_SYSTEM;
	return rc;
}

/*
 * Makes audit.pub name |hex| (rewritten only when it does not: every
 * session start passes here) and trusted.pub list it.  When it wrote
 * anything, or |made| (the key file was just made or renamed into
 * place), the directory is synced too: a session certified by a new key
 * whose name, or whose line in trusted.pub, a power loss took back would
 * no longer verify (on a file system that does not journal metadata).
 */
static int
publish(const char *dir, const char *hex, int made, char *err, size_t errlen)
{
	char path[PATH_MAX], text[AUDIT_PUBKEY_HEX_LEN + 2];
	int wrote = made, rc = 0;

	snprintf(text, sizeof(text), "%s\n", hex);
	if (snprintf(path, sizeof(path), "%s/audit.pub", dir) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		rc = AL_ERR_SYSTEM;
	} else if (!holds(path, text)) {
		wrote = 1;
		rc = write_public(path, text);
	}
	if (rc == 0)
		rc = trust_add(dir, hex, &wrote);
	if (rc == 0 && wrote)
		rc = fsync_dir(dir);
	if (rc != 0) {
		snprintf(err, errlen,
		    "cannot write the public key files in "
		    "%s: %s",
		    dir, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	return 0;
}

static int
make_dir(const char *dir, char *err, size_t errlen)
{
	char state[PATH_MAX];

	if (session_state_dir(state, sizeof(state)) != 0) {
		snprintf(err, errlen, "state directory path too long");
		return AL_ERR_LIMIT;
	}
	if (mkdir(state, 0700) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", state,
		    strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (mkdir(dir, 0700) == 0)
		(void)fsync_dir(state); /* its name, as publish() does */
	else if (errno != EEXIST) {
		snprintf(
		    err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	return 0;
}

static void
key_error(int rc, const char *path, char *err, size_t errlen)
{
	if (rc == AL_ERR_DENIED)
		snprintf(err, errlen,
		    "%s: must be a regular file owned by "
		    "you, mode 0600",
		    path);
	else if (rc == AL_ERR_SYSTEM)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else
		snprintf(err, errlen, "%s: %s", path, al_strerror(rc));
}

/*
 * What the last hostkey_ensure() of this process left: the key file,
 * audit.pub and trusted.pub as stat() found them after it, and the
 * public key.  A process that starts many sessions (an exec's audit
 * writer, a session each) then checks the three with stat() and skips
 * the rest while none of them changed: each has a new inode or ctime
 * after any write, rename or chmod.
 */
static struct {
	int valid;
	char dir[PATH_MAX];
	struct stat st[3];
	char hex[AUDIT_PUBKEY_HEX_LEN + 1];
} ensured;

/* stat() of the key file, audit.pub and trusted.pub in |dir| into
 * st[0..3); 0, or -1 when one is missing or a name is too long. */
static int
stat_key_files(const char *dir, struct stat st[3])
{
	static const char *const names[3] = { "audit.key", "audit.pub",
		"trusted.pub" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < 3; i++)
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >=
			(int)sizeof(path) ||
		    lstat(path, &st[i]) == -1)
			return -1;
	return 0;
}

/* 1 if what |ensured| holds is still so for |dir|. */
static int
still_ensured(const char *dir)
{
	struct stat st[3];
	size_t i;

	if (!ensured.valid || strcmp(ensured.dir, dir) != 0 ||
	    stat_key_files(dir, st) != 0)
		return 0;
	for (i = 0; i < 3; i++)
		if (!stat_unchanged(&st[i], &ensured.st[i]))
			return 0;
	return 1;
}

int
hostkey_ensure(char hex[AUDIT_PUBKEY_HEX_LEN + 1], char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat before;
	int rc, have_before;

	if (keys_dir(dir, sizeof(dir)) != 0 ||
	    hostkey_path(path, sizeof(path)) != 0) {
		snprintf(err, errlen, "state directory path too long");
		return AL_ERR_LIMIT;
	}
	if (still_ensured(dir)) {
		memcpy(hex, ensured.hex, sizeof(ensured.hex));
		return 0;
	}
	ensured.valid = 0;
	if ((rc = make_dir(dir, err, errlen)) != 0)
		return rc;
	/* The key as it was before it was read (absent: made below). */
	have_before = lstat(path, &before) == 0;
	if ((rc = audit_key_public(path, 1, hex)) != 0) {
		key_error(rc, path, err, errlen);
		return rc;
	}
	if ((rc = publish(dir, hex, !have_before, err, errlen)) != 0)
		return rc;
	/*
	 * The public files after publish() wrote them; the key file must be
	 * the one read (a rotation by another process meanwhile: nothing is
	 * kept, and the next call reads the new key).
	 */
	if (have_before && stat_key_files(dir, ensured.st) == 0 &&
	    stat_unchanged(&ensured.st[0], &before)) {
		snprintf(ensured.dir, sizeof(ensured.dir), "%s", dir);
		memcpy(ensured.hex, hex, sizeof(ensured.hex));
		ensured.valid = 1;
	}
	return 0;
}

int
hostkey_rotate(char oldhex[AUDIT_PUBKEY_HEX_LEN + 1],
    char newhex[AUDIT_PUBKEY_HEX_LEN + 1], char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX], next[PATH_MAX];
	int rc;

	if (keys_dir(dir, sizeof(dir)) != 0 ||
	    hostkey_path(path, sizeof(path)) != 0 ||
	    snprintf(next, sizeof(next), "%s.new", path) >= (int)sizeof(next)) {
		snprintf(err, errlen, "state directory path too long");
		return AL_ERR_LIMIT;
	}
	if ((rc = audit_key_public(path, 0, oldhex)) != 0) {
		if (rc == AL_ERR_NOT_FOUND)
			snprintf(err, errlen,
			    "%s: no host key to rotate "
			    "(create one with: airlock audit key)",
			    path);
		else
			key_error(rc, path, err, errlen);
		return rc;
	}
	/* The old public key must be listed before its secret goes. */
	if ((rc = publish(dir, oldhex, 0, err, errlen)) != 0)
		return rc;
	(void)unlink(next);
	if ((rc = audit_key_public(next, 1, newhex)) != 0) {
		key_error(rc, next, err, errlen);
		return rc;
	}
	if (rename(next, path) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		unlink(next);
		return AL_ERR_SYSTEM;
	}
	return publish(dir, newhex, 1, err, errlen);
}

size_t
hostkey_trusted(unsigned char keys[][32], size_t max)
{
	char state[PATH_MAX], path[PATH_MAX + 32], *line = NULL;
	size_t cap = 0, n = 0;
	FILE *fp;

	if (session_state_dir(state, sizeof(state)) != 0)
		return 0;
	snprintf(path, sizeof(path), "%s/keys/trusted.pub", state);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (n < max && getline(&line, &cap, fp) > 0) {
		line[strcspn(line, " \t\r\n")] = '\0';
		if (audit_parse_pubkey(line, keys[n]) == 0)
			n++;
	}
	free(line);
	fclose(fp);
	return n;
}
