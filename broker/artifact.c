/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * artifact: the session's outputs on disk, named by URIs the agent may
 * hold.  A URI is untrusted input: it is parsed strictly, must carry this
 * session's id, and names a file only if this store wrote it (the list in
 * memory), so no path the agent writes ever reaches openat().
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker/artifact.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"

#define NAME_MAX_LEN 128

struct artifact {
	char name[NAME_MAX_LEN + 1];
	uint64_t bytes;
};

struct artifact_store {
	char *dir;
	char *session_id;
	uint64_t quota;
	uint64_t used;
	unsigned seq;
	struct artifact *v;
	size_t n, slots;
};

struct artifact_store *
artifact_store_new(const char *dir, const char *session_id, uint64_t quota)
{
	struct artifact_store *s = xcalloc(1, sizeof(*s));

	s->dir = xstrdup(dir);
	s->session_id = xstrdup(session_id);
	s->quota = quota;
	return s;
}

void
artifact_store_free(struct artifact_store *s)
{
	if (s == NULL)
		return;
	free(s->dir);
	free(s->session_id);
	free(s->v);
	free(s);
}

static int
name_char_ok(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
}

static void
uri_of(
    const struct artifact_store *s, const char *name, char *uri, size_t urilen)
{
	snprintf(uri, urilen, "airlock://%s/artifacts/%s", s->session_id, name);
}

int
artifact_save(struct artifact_store *s, const char *label, const char *data,
    size_t len, char *uri, size_t urilen)
{
	char path[4096], name[NAME_MAX_LEN + 1];
	size_t i;
	int fd, rc;

	uri[0] = '\0';
	if (len > s->quota || s->used > s->quota - len)
		return AL_ERR_BUDGET;
	snprintf(name, sizeof(name), "%04u-%.64s.log", ++s->seq,
	    label != NULL && label[0] != '\0' ? label : "output");
	for (i = 0; name[i] != '\0'; i++)
		if (!name_char_ok(name[i]))
			name[i] = '_';
	if (snprintf(path, sizeof(path), "%s/%s", s->dir, name) >=
	    (int)sizeof(path))
		return AL_ERR_SYSTEM;
	fd = open(
	    path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1)
		return AL_ERR_SYSTEM;
	rc = write_all(fd, data, len);
	if (close(fd) == -1 && rc == 0)
		rc = AL_ERR_SYSTEM;
	if (rc != 0) {
		(void)unlink(path);
		return rc;
	}
	if (s->n == s->slots) {
		s->slots = s->slots ? s->slots * 2 : 16;
		s->v = xreallocarray(s->v, s->slots, sizeof(*s->v));
	}
	memcpy(s->v[s->n].name, name, sizeof(name));
	s->v[s->n].bytes = len;
	s->n++;
	s->used += len;
	uri_of(s, name, uri, urilen);
	return 0;
}

static int
fail(char *err, size_t errlen, int rc, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return rc;
}

int
artifact_check_uri(const struct artifact_store *s, const char *uri, char *name,
    size_t namelen, char *err, size_t errlen)
{
	static const char scheme[] = "airlock://";
	static const char mid[] = "/artifacts/";
	size_t idlen, i;
	const char *p, *nm;

	if (namelen > 0)
		name[0] = '\0';
	if (uri == NULL || strncmp(uri, scheme, sizeof(scheme) - 1) != 0)
		return fail(err, errlen, AL_ERR_PATH,
		    "not an artifact URI (airlock://SESSION/artifacts/NAME)");
	p = uri + sizeof(scheme) - 1;
	idlen = strlen(s->session_id);
	if (strncmp(p, s->session_id, idlen) != 0 ||
	    strncmp(p + idlen, mid, sizeof(mid) - 1) != 0) {
		if (strchr(p, '/') != NULL &&
		    strncmp(strchr(p, '/'), mid, sizeof(mid) - 1) == 0)
			return fail(err, errlen, AL_ERR_DENIED,
			    "the URI names another session's artifact; only "
			    "this session's are readable");
		return fail(err, errlen, AL_ERR_PATH,
		    "not an artifact URI (airlock://SESSION/artifacts/NAME)");
	}
	nm = p + idlen + sizeof(mid) - 1;
	if (nm[0] == '\0' || nm[0] == '.' || strlen(nm) > NAME_MAX_LEN)
		return fail(err, errlen, AL_ERR_PATH, "unsafe artifact name");
	for (i = 0; nm[i] != '\0'; i++)
		if (!name_char_ok(nm[i]))
			return fail(err, errlen, AL_ERR_PATH,
			    "unsafe artifact name (only A-Z a-z 0-9 . _ -)");
	if (strstr(nm, "..") != NULL)
		return fail(err, errlen, AL_ERR_PATH, "unsafe artifact name");
	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, nm) == 0)
			break;
	if (i == s->n)
		return fail(err, errlen, AL_ERR_NOT_FOUND,
		    "no such artifact in this session (resources/list lists "
		    "them)");
	snprintf(name, namelen, "%s", nm);
	return 0;
}

int
artifact_read(const struct artifact_store *s, const char *uri, char **data,
    size_t *len, char *err, size_t errlen)
{
	char name[NAME_MAX_LEN + 1], path[4096];
	struct stat st;
	int fd, rc;

	*data = NULL;
	*len = 0;
	if ((rc = artifact_check_uri(
		 s, uri, name, sizeof(name), err, errlen)) != 0)
		return rc;
	snprintf(path, sizeof(path), "%s/%s", s->dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) ==
	    -1)
		return fail(err, errlen, AL_ERR_SYSTEM,
		    "the artifact cannot be opened (removed by retention?)");
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(err, errlen, AL_ERR_SYSTEM,
		    "the artifact is not a regular file");
	}
	*data = read_fd_upto(fd, (size_t)st.st_size, len);
	close(fd);
	if (*data == NULL)
		return fail(
		    err, errlen, AL_ERR_SYSTEM, "the artifact cannot be read");
	return 0;
}

json_t *
artifact_list(const struct artifact_store *s)
{
	json_t *list = json_array(), *r;
	char uri[ARTIFACT_URI_MAX];
	size_t i;

	for (i = 0; i < s->n; i++) {
		uri_of(s, s->v[i].name, uri, sizeof(uri));
		r = json_pack("{s:s, s:s, s:s, s:s, s:I}", "uri", uri, "name",
		    s->v[i].name, "description",
		    "full output of a command of this session (redacted)",
		    "mimeType", "text/plain", "size",
		    (json_int_t)s->v[i].bytes);
		if (r == NULL)
			fatalx("%s: json_pack", __func__);
		json_array_append_new(list, r);
	}
	return list;
}

uint64_t
artifact_used(const struct artifact_store *s)
{
	return s->used;
}

uint64_t
artifact_quota(const struct artifact_store *s)
{
	return s->quota;
}
