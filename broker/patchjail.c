/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

#include "broker/patchjail.h"
#include "common/buf.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/diff.h"

#define JAIL_MAX_FRAME	(64 * 1024 * 1024)
#define JAIL_TIMEOUT_MS	10000

struct patchjail {
	pid_t	 pid;
	int	 to;		/* the jail's stdin */
	int	 from;		/* the jail's stdout */
	struct buf *in;
	json_t	*reply;		/* last reply, owned */
};

/* Both sides: send one JSON object as a line.  0 or AL_ERR_SYSTEM. */
static int
send_obj(int fd, json_t *obj)
{
	char	*s;
	int	 rc;

	/*
	 * Not built when the other side would refuse it: JSON writes a
	 * control character in 6 bytes, and 16 MiB of them became a
	 * message of 96 MiB (226 MiB of the broker's memory at its peak).
	 */
	if (json_dumpb(obj, NULL, 0, JSON_COMPACT) >= JAIL_MAX_FRAME) {
		json_decref(obj);
		return AL_ERR_LIMIT;
	}
	s = json_dumps(obj, JSON_COMPACT);
	json_decref(obj);
	if (s == NULL)
		return AL_ERR_ALLOC;
	rc = write_all(fd, s, strlen(s));
	if (rc == 0)
		rc = write_all(fd, "\n", 1);
	free(s);
	return rc;
}

/*
 * Both sides: receive one JSON object.  The parent bounds the wait;
 * the child blocks.  Returns the object (new reference) or NULL.
 */
static json_t *
recv_obj(struct buf *in, int fd, int timeout_ms)
{
	const char	*frame;
	size_t		 len;
	int		 rc;
	int64_t		 deadline = now_monotonic_ms() + timeout_ms;

	for (;;) {
		rc = buf_next_frame(in, &frame, &len);
		if (rc == 1)
			return json_loadb(frame, len, JSON_REJECT_DUPLICATES,
			    NULL);
		if (rc < 0)
			return NULL;
		if (timeout_ms > 0) {
			struct pollfd	pfd = { .fd = fd, .events = POLLIN };
			int64_t		left = deadline - now_monotonic_ms();

			if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
				return NULL;
		}
		if (buf_fill(in, fd) <= 0)
			return NULL;
	}
}

static int
jail_error(json_t *reply, char *err, size_t errlen)
{
	const char *msg = json_string_value(json_object_get(reply, "error"));
	const char *cls = json_string_value(json_object_get(reply,
	    "errorClass"));

	if (msg == NULL)
		return 0;
	snprintf(err, errlen, "%s", msg);
	if (cls != NULL && strcmp(cls, "patch_conflict") == 0)
		return AL_ERR_CONFLICT;
	if (cls != NULL && strcmp(cls, "path_refused") == 0)
		return AL_ERR_PATH;
	if (cls != NULL && strcmp(cls, "too_large") == 0)
		return AL_ERR_LIMIT;
	return AL_ERR_FORMAT;
}

int
patchjail_parse(const char *patch, size_t len, struct patchjail **out,
    json_t **files, char *err, size_t errlen)
{
	struct patchjail	*j;
	int			 in[2], outp[2], rc;
	json_t			*msg;

	*out = NULL;
	*files = NULL;
	if (pipe2(in, O_CLOEXEC) == -1)
		return AL_ERR_SYSTEM;
	if (pipe2(outp, O_CLOEXEC) == -1) {
		close(in[0]);
		close(in[1]);
		return AL_ERR_SYSTEM;
	}
	j = xcalloc(1, sizeof(*j));
	if ((j->in = buf_new(JAIL_MAX_FRAME)) == NULL)
		fatalx("out of memory");
	switch ((j->pid = fork())) {
	case -1:
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(in[0]); close(in[1]); close(outp[0]); close(outp[1]);
		buf_free(j->in);
		free(j);
		return AL_ERR_SYSTEM;
	case 0:
		if (dup2(in[0], 0) == -1 || dup2(outp[1], 1) == -1)
			_exit(127);
		(void)close_fds_from(3, NULL, 0);
		execl("/proc/self/exe", "airlock", "__patch-jail", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	j->to = in[1];
	j->from = outp[0];
	*out = j;
	msg = json_pack("{s:s%}", "patch", patch, len);
	if (msg == NULL || send_obj(j->to, msg) != 0 ||
	    (j->reply = recv_obj(j->in, j->from, JAIL_TIMEOUT_MS)) == NULL) {
		snprintf(err, errlen, "the patch parser did not answer");
		return AL_ERR_SYSTEM;
	}
	if ((rc = jail_error(j->reply, err, errlen)) != 0)
		return rc;
	if (!json_is_array(*files = json_object_get(j->reply, "files"))) {
		snprintf(err, errlen, "the patch parser answered nonsense");
		*files = NULL;
		return AL_ERR_FORMAT;
	}
	return 0;
}

int
patchjail_apply(struct patchjail *j, const char *const *contents,
    const size_t *lens, size_t n, json_t **results, char *err, size_t errlen)
{
	json_t	*arr, *msg;
	size_t	 i;
	int	 rc;

	*results = NULL;
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, contents[i] == NULL ? json_null() :
		    json_stringn(contents[i], lens[i]));
	msg = json_pack("{s:o}", "contents", arr);
	json_decref(j->reply);
	j->reply = NULL;
	rc = msg == NULL ? AL_ERR_ALLOC : send_obj(j->to, msg);
	if (rc == AL_ERR_LIMIT) {
		snprintf(err, errlen, "the files it changes are more than %d "
		    "bytes as the applier reads them (JSON, a control "
		    "character 6 bytes)", JAIL_MAX_FRAME);
		return AL_ERR_LIMIT;
	}
	if (rc != 0 ||
	    (j->reply = recv_obj(j->in, j->from, JAIL_TIMEOUT_MS)) == NULL) {
		snprintf(err, errlen, "the patch applier did not answer");
		return AL_ERR_SYSTEM;
	}
	if ((rc = jail_error(j->reply, err, errlen)) != 0)
		return rc;
	*results = json_object_get(j->reply, "results");
	if (!json_is_array(*results) || json_array_size(*results) != n) {
		snprintf(err, errlen, "the patch applier answered nonsense");
		*results = NULL;
		return AL_ERR_FORMAT;
	}
	for (i = 0; i < n; i++) {
		json_t *r = json_array_get(*results, i);

		if (!json_is_null(r) && !json_is_string(r)) {
			snprintf(err, errlen, "the patch applier answered "
			    "nonsense");
			*results = NULL;
			return AL_ERR_FORMAT;
		}
	}
	return 0;
}

void
patchjail_free(struct patchjail *j)
{
	int status;

	if (j == NULL)
		return;
	if (j->to != -1)
		close(j->to);
	close(j->from);
	if (j->pid > 0) {
		kill(j->pid, SIGKILL);
		while (waitpid(j->pid, &status, 0) == -1 && errno == EINTR)
			;
	}
	buf_free(j->in);
	json_decref(j->reply);
	free(j);
}

/* The jail's side. */

/*
 * What the jail may do once it has read nothing yet: read its stdin,
 * write its stdout, manage memory and exit.  Everything else kills it.
 */
static void
jail_confine(void)
{
	static const int allowed[] = {
		SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(exit),
		SCMP_SYS(exit_group), SCMP_SYS(brk), SCMP_SYS(mmap),
		SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
		SCMP_SYS(rt_sigreturn), SCMP_SYS(futex), SCMP_SYS(close),
	};
	scmp_filter_ctx	ctx;
	size_t		i;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("no_new_privs");
	if ((ctx = seccomp_init(SCMP_ACT_KILL_PROCESS)) == NULL)
		fatalx("seccomp_init");
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0) != 0)
			fatalx("seccomp_rule_add");
	if (seccomp_load(ctx) != 0)
		fatalx("seccomp_load");
	seccomp_release(ctx);
}

static const char *
kind_name(enum diff_kind k)
{
	switch (k) {
	case DIFF_CREATE:	return "create";
	case DIFF_DELETE:	return "delete";
	default:		return "modify";
	}
}

static const char *
class_of(int rc)
{
	switch (rc) {
	case AL_ERR_CONFLICT:	return "patch_conflict";
	case AL_ERR_PATH:	return "path_refused";
	case AL_ERR_LIMIT:	return "too_large";
	default:		return "malformed_patch";
	}
}

static int
reply_error(int rc, const char *msg)
{
	(void)send_obj(1, json_pack("{s:s, s:s}", "error", msg,
	    "errorClass", class_of(rc)));
	return 0;
}

int
patchjail_child_main(void)
{
	struct buf	*in;
	struct diff	*d = NULL;
	json_t		*req, *files, *contents, *results;
	const char	*patch;
	char		 err[1024];
	size_t		 i, n;
	int		 rc;

	/* Seed jansson's hash before the filter forbids reading randomness. */
	json_object_seed(1);
	if ((in = buf_new(JAIL_MAX_FRAME)) == NULL)
		return 1;
	jail_confine();

	if ((req = recv_obj(in, 0, 0)) == NULL ||
	    (patch = json_string_value(json_object_get(req, "patch"))) == NULL)
		return 1;
	if ((rc = diff_parse(patch, json_string_length(json_object_get(req,
	    "patch")), &d, err, sizeof(err))) != 0)
		return reply_error(rc, err);
	json_decref(req);
	n = diff_nfiles(d);
	files = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(files, json_pack("{s:s, s:s}",
		    "path", diff_path(d, i),
		    "kind", kind_name(diff_file_kind(d, i))));
	if (send_obj(1, json_pack("{s:o}", "files", files)) != 0)
		return 1;

	if ((req = recv_obj(in, 0, 0)) == NULL ||
	    !json_is_array(contents = json_object_get(req, "contents")) ||
	    json_array_size(contents) != n)
		return 1;
	results = json_array();
	for (i = 0; i < n; i++) {
		json_t	*c = json_array_get(contents, i);
		char	*newbuf;
		size_t	 newlen;

		rc = diff_apply_file(d, i, json_string_value(c),
		    json_is_string(c) ? json_string_length(c) : 0,
		    &newbuf, &newlen, err, sizeof(err));
		if (rc != 0) {
			json_decref(results);
			return reply_error(rc, err);
		}
		json_array_append_new(results,
		    diff_file_kind(d, i) == DIFF_DELETE ? json_null() :
		    json_stringn(newbuf, newlen));
		free(newbuf);
	}
	json_decref(req);
	diff_free(d);
	return send_obj(1, json_pack("{s:o}", "results", results)) == 0 ? 0 : 1;
}
