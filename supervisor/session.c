/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/audit.h"
#include "common/errors.h"
#include "common/paths.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "supervisor/session.h"

int
session_state_dir(char *out, size_t outlen)
{
	return paths_state_dir(out, outlen);
}

/* mkdir -p with mode 0700 for every directory it creates (the parents
 * only when the directory's own mkdir finds one missing). */
static int
mkdirs(const char *path)
{
	char	 tmp[PATH_MAX], *p;

	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return AL_ERR_SYSTEM;
	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return AL_ERR_LIMIT;
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
			return AL_ERR_SYSTEM;
		*p = '/';
	}
	if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
		return AL_ERR_SYSTEM;
	return 0;
}

/* A new session's directory STATE/|sub|/ID, its log named |log|, and,
 * when |artifacts|, its artifacts/ (session_create()). */
static int
session_create_in(struct session *s, const char *sub, const char *log,
    int artifacts, char *err, size_t errlen)
{
	char		 state[PATH_MAX], art[PATH_MAX + 16];
	unsigned char	 rnd[3];
	time_t		 now = time(NULL);
	struct tm	 tm;

	memset(s, 0, sizeof(*s));
	if (session_state_dir(state, sizeof(state)) != 0) {
		snprintf(err, errlen, "state directory path too long");
		return AL_ERR_LIMIT;
	}
	utc_time(now, &tm);
	randombytes_buf(rnd, sizeof(rnd));
	snprintf(s->id, sizeof(s->id), "%04d%02d%02dT%02d%02d%02d-%02x%02x%02x",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, rnd[0], rnd[1], rnd[2]);
	if (snprintf(s->dir, sizeof(s->dir), "%s/%s/%s", state, sub,
	    s->id) >= (int)sizeof(s->dir) ||
	    snprintf(s->audit_path, sizeof(s->audit_path), "%s/%s",
	    s->dir, log) >= (int)sizeof(s->audit_path) ||
	    snprintf(s->trace_path, sizeof(s->trace_path), "%s/trace.txt",
	    s->dir) >= (int)sizeof(s->trace_path)) {
		snprintf(err, errlen, "state directory path too long");
		return AL_ERR_LIMIT;
	}
	snprintf(art, sizeof(art), "%s/artifacts", s->dir);
	if (mkdirs(s->dir) != 0 || (artifacts && mkdirs(art) != 0)) {
		snprintf(err, errlen, "cannot create %s: %s", s->dir,
		    strerror(errno));
		return AL_ERR_SYSTEM;
	}
	return 0;
}

int
session_create(struct session *s, char *err, size_t errlen)
{
	return session_create_in(s, "sessions", "audit.jsonl", 1, err, errlen);
}

int
session_create_spare(struct session *s, char *err, size_t errlen)
{
	return session_create_in(s, "spare", SESSION_SPARE_LOG, 0, err, errlen);
}

int
session_publish(struct session *s, char *err, size_t errlen)
{
	char state[PATH_MAX], sessions[PATH_MAX], log[PATH_MAX];
	struct session to;

	to = *s;
	if (session_state_dir(state, sizeof(state)) != 0 ||
	    snprintf(sessions, sizeof(sessions), "%s/sessions", state) >=
	    (int)sizeof(sessions) ||
	    snprintf(to.dir, sizeof(to.dir), "%s/%s", sessions, s->id) >=
	    (int)sizeof(to.dir) ||
	    snprintf(to.audit_path, sizeof(to.audit_path), "%s/audit.jsonl",
	    to.dir) >= (int)sizeof(to.audit_path) ||
	    snprintf(to.trace_path, sizeof(to.trace_path), "%s/trace.txt",
	    to.dir) >= (int)sizeof(to.trace_path)) {
		snprintf(err, errlen, "state directory path too long");
		return AL_ERR_LIMIT;
	}
	if (snprintf(log, sizeof(log), "%s/" SESSION_SPARE_LOG, to.dir) >=
	    (int)sizeof(log)) {
		snprintf(err, errlen, "state directory path too long");
		return AL_ERR_LIMIT;
	}
	if (mkdirs(sessions) != 0 || renameat2(AT_FDCWD, s->dir, AT_FDCWD,
	    to.dir, RENAME_NOREPLACE) == -1) {
		snprintf(err, errlen, "cannot move %s to %s: %s", s->dir,
		    to.dir, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	/* Its log gets the name of every session's, or it goes back. */
	if (rename(log, to.audit_path) == -1) {
		snprintf(err, errlen, "cannot rename %s: %s", log,
		    strerror(errno));
		(void)rename(to.dir, s->dir);
		return AL_ERR_SYSTEM;
	}
	*s = to;
	return 0;
}

int
session_record_start(struct audit *a, const char *command,
    const struct manifest *m, const char *workspace, const struct session *s,
    char *const *agent_argv, json_t *overrides)
{
	char	 digest[65];
	json_t	*fields, *argv;
	size_t	 i;
	int	 rc;

	sodium_bin2hex(digest, sizeof(digest), m->digest, sizeof(m->digest));
	fields = json_pack("{s:s, s:s, s:s, s:s, s:s}", "command", command,
	    "manifest", m->path, "manifestDigest", digest,
	    "workspace", workspace, "sessionDir", s->dir);
	if (fields == NULL)
		return AL_ERR_ALLOC;
	if (agent_argv != NULL) {
		argv = json_array();
		for (i = 0; agent_argv[i] != NULL; i++)
			json_array_append_new(argv, json_string(agent_argv[i]));
		json_object_set_new(fields, "agentArgv", argv);
	}
	if (overrides != NULL)
		json_object_set(fields, "overrides", overrides);
	rc = audit_append(a, "session_config", fields);
	json_decref(fields);
	return rc;
}

json_t *
session_start_context(const struct manifest *m, const char *workspace)
{
	char	 digest[65];
	json_t	*f;

	f = json_pack("{s:s, s:s}", "manifest",
	    m != NULL ? m->path : SESSION_NO_MANIFEST, "workspace", workspace);
	if (f == NULL || m == NULL)
		return f;
	sodium_bin2hex(digest, sizeof(digest), m->digest, sizeof(m->digest));
	if (json_object_set_new(f, "manifestDigest", json_string(digest)) !=
	    0) {
		json_decref(f);
		return NULL;
	}
	return f;
}

json_t *
session_start_fields(const char *command, const struct manifest *m,
    const char *workspace, char *const *agent_argv)
{
	char		 host[256], user[64], cwd[PATH_MAX];
	struct passwd	 pw, *pwp = NULL;
	char		 pwbuf[4096];
	json_t		*f, *ctx, *argv;
	size_t		 i;

	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = '\0';
	if (getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 &&
	    pwp != NULL)
		snprintf(user, sizeof(user), "%s", pw.pw_name);
	else
		snprintf(user, sizeof(user), "%u", (unsigned)getuid());
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		snprintf(cwd, sizeof(cwd), "?");
	f = json_pack("{s:s, s:s, s:I, s:I, s:s}", "host", host, "user", user,
	    "uid", (json_int_t)getuid(), "gid", (json_int_t)getgid(),
	    "command", command);
	ctx = session_start_context(m, workspace);
	if (f == NULL || ctx == NULL || json_object_update(f, ctx) != 0 ||
	    json_object_set_new(f, "cwd", json_string(cwd)) != 0) {
		json_decref(ctx);
		json_decref(f);
		return NULL;
	}
	json_decref(ctx);
	if (agent_argv != NULL) {
		if ((argv = json_array()) == NULL ||
		    json_object_set_new(f, "agentArgv", argv) != 0) {
			json_decref(f);
			return NULL;
		}
		for (i = 0; agent_argv[i] != NULL; i++) {
			json_t *a = json_string(agent_argv[i]);

			if (a == NULL)	/* not UTF-8 */
				a = json_string("(not UTF-8)");
			if (json_array_append_new(argv, a) != 0) {
				json_decref(f);
				return NULL;
			}
		}
	}
	return f;
}

int
session_log_matches(const char *file, const char *session)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *base = strrchr(file, '/'), *name;
	size_t n;

	if (base == NULL || strcmp(base + 1, "audit.jsonl") != 0)
		return 1;
	for (n = (size_t)(base - file); n > 0 && file[n - 1] == '/'; n--)
		;
	if (n >= sizeof(dir))
		return 0;
	memcpy(dir, file, n);
	dir[n] = '\0';
	name = strrchr(dir, '/') != NULL ? strrchr(dir, '/') + 1 : dir;
	/* "sessions/ID/./audit.jsonl", "./audit.jsonl": the directory's own
	 * name (a link named as the session is taken at its word). */
	if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		if (realpath(n > 0 ? dir : "/", real) == NULL)
			return 0;
		name = strrchr(real, '/') + 1;
	}
	return strcmp(name, session) == 0;
}

int
session_log_place_matches(const char *file, const char *session,
    int own_log)
{
	char owner[PATH_MAX];
	const char *base = strrchr(file, '/'), *p;
	size_t n, dirlen;

	base = base != NULL ? base + 1 : file;
	if (strcmp(base, "audit.jsonl") == 0)
		return own_log && session_log_matches(file, session);
	n = strlen(base);
	if (n <= 6 || strcmp(base + n - 6, ".jsonl") != 0)
		return 0;
	/* DIR/commits/NAME.jsonl: a commit log of the session DIR is. */
	for (dirlen = (size_t)(base - file); dirlen > 0 &&
	    file[dirlen - 1] == '/'; dirlen--)
		;
	for (p = file + dirlen; p > file && p[-1] != '/'; p--)
		;
	if ((size_t)(file + dirlen - p) == 7 && strncmp(p, "commits", 7) == 0) {
		if (snprintf(owner, sizeof(owner), "%.*s%saudit.jsonl",
		    (int)(p - file), file, p == file ? "./" : "") >=
		    (int)sizeof(owner))
			return 0;
		return !own_log && session_log_matches(owner, session);
	}
	/* DIR/NAME.jsonl: a shipped copy of session NAME's log. */
	return own_log && strlen(session) == n - 6 &&
	    strncmp(base, session, n - 6) == 0;
}
