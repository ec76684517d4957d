/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * A run's change set landed off the event loop; see landjob.h.
 *
 * A process rather than a thread, as the digest worker (wsjob.c): the
 * broker clones runners.  It is forked for each land, so it sees the
 * call, the manifest and the secrets as they are now.
 *
 * The process speaks in frames: a type byte, the payload's length (a
 * uint64_t in host order: both ends are this program) and the payload.
 *   'U' the upper layer could not be read (payload: why)
 *   'E' the run changed nothing
 *   'R' entries refused: {"total": n, "refused": [{path, rule}...]}, at
 *       most LANDJOB_REFUSED_MAX listed
 *   'A' the set passed its checks: a uint64_t count of entries, then the
 *       paths it writes or removes, each NUL-terminated; the process then
 *       waits for one byte from the loop, 'y' (apply) or anything else
 *   'O' applied (after a 'y')
 *   'F' not applied (after a 'y'): an int code, then why
 * Every frame but 'A' is the last, sent after the upper layer is gone.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "broker/applyjournal.h"
#include "broker/broker_int.h"
#include "broker/changeset.h"
#include "broker/landjob.h"
#include "broker/ledger.h"
#include "broker/redact.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/path.h"
#include "policy/writepolicy.h"

/* A frame larger than this is refused (fail closed): the set's entries
 * are bounded by changeset_collect(), their paths by PATH_MAX. */
#define FRAME_MAX (256UL * 1024 * 1024)
#define HEAD_LEN (1 + sizeof(uint64_t))

struct landjob {
	struct call *c;
	landjob_fn fn;
	pid_t pid;
	int fd; /* our end; -1 once closed */
	int watch;
	char *buf; /* frames read, not yet handled */
	size_t len, cap;
	int said_yes; /* the process may be applying */
	int decided; /* rc and out hold the outcome */
	int rc;
	json_t *out;
	size_t entries;
};

/* The process's side. */

static void
send_frame(int fd, char type, const void *payload, size_t len)
{
	char head[HEAD_LEN];
	uint64_t n = len;

	head[0] = type;
	memcpy(head + 1, &n, sizeof(n));
	if (write_all(fd, head, sizeof(head)) != 0 ||
	    (len > 0 && write_all(fd, payload, len) != 0))
		_exit(1);
}

/*
 * Whether the upper layer's file |path| holds a secret or one of its
 * forms; a file that cannot be read whole counts as holding one (fail
 * closed).
 */
static int
file_holds_secret(int upperfd, const char *path, const struct redact *r)
{
	struct stat st;
	void *p;
	int fd, hit;

	if (path_resolve(upperfd, path, O_RDONLY | O_NOFOLLOW, &fd, NULL, 0) !=
	    0)
		return 1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 1;
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 1;
	hit = redact_contains(r, p, (size_t)st.st_size);
	munmap(p, (size_t)st.st_size);
	return hit;
}

/*
 * A run granted a secret may write it into the workspace, where the agent
 * reads it past the broker's redaction (through its own view of the
 * workspace): the entries of its set that hold a secret or one of its
 * forms, in a file's content, a link's text or a name, as refusals (a
 * name that holds one is reported as "."); NULL if none.
 */
static json_t *
secret_refusals(const struct changeset *cs, int upperfd, const struct redact *r)
{
	struct changeset_item it;
	json_t *refused = NULL;
	size_t i;
	int named;

	if (r == NULL || redact_count(r) == 0)
		return NULL;
	for (i = 0; changeset_item(cs, i, &it) == 0; i++) {
		named = redact_contains(r, it.path, strlen(it.path));
		if (!named &&
		    (it.target == NULL ||
			!redact_contains(r, it.target, strlen(it.target))) &&
		    (it.kind != WP_FILE ||
			!file_holds_secret(upperfd, it.path, r)))
			continue;
		if (refused == NULL)
			refused = json_array();
		json_array_append_new(refused,
		    json_pack("{s:s, s:s}", "path", named ? "." : it.path,
			"rule", WP_RULE_SECRET));
	}
	return refused;
}

/* The 'R' frame's payload for |refused| (stolen): the count, and the
 * first LANDJOB_REFUSED_MAX entries. */
static char *
refused_text(json_t *refused)
{
	size_t total = json_array_size(refused);
	json_t *msg;
	char *text;

	while (json_array_size(refused) > LANDJOB_REFUSED_MAX)
		json_array_remove(refused, json_array_size(refused) - 1);
	msg = json_pack(
	    "{s:I, s:o}", "total", (json_int_t)total, "refused", refused);
	text = msg != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;
	json_decref(msg);
	if (text == NULL)
		_exit(1);
	return text;
}

/*
 * Collects and checks the set, and, when the loop says yes, applies it.
 * The reply that ends it is |*type| with |*payload| (allocated) of
 * |*len| bytes, or type 0 when the loop said no.
 */
static void
land_work(struct call *c, int fd, int upperfd, char *type, char **payload,
    size_t *len)
{
	struct broker *b = c->b;
	struct changeset *cs = NULL;
	const char **paths;
	json_t *refused;
	char err[512], verdict;
	size_t i, n, off;
	uint64_t count;
	int rc;

	*type = 0;
	*payload = NULL;
	*len = 0;
	if (changeset_collect(upperfd, b->rootfd, geteuid() != 0, &cs, err,
		sizeof(err)) != 0) {
		*type = 'U';
		*payload = xstrdup(err);
		*len = strlen(err);
		return;
	}
	if (changeset_count(cs) == 0) {
		*type = 'E';
		goto out;
	}
	if ((refused = changeset_check(
		 cs, &b->m->sandbox, CHANGESET_MAX_BYTES)) != NULL ||
	    (c->tool->nsecrets > 0 &&
		(refused = secret_refusals(cs, upperfd, b->cfg.redact)) !=
		    NULL)) {
		*type = 'R';
		*payload = refused_text(refused);
		*len = strlen(*payload);
		goto out;
	}
	paths = changeset_paths(cs, &n);
	for (*len = sizeof(count), i = 0; i < n; i++)
		*len += strlen(paths[i]) + 1;
	*payload = xcalloc(1, *len);
	count = changeset_count(cs);
	memcpy(*payload, &count, sizeof(count));
	for (off = sizeof(count), i = 0; i < n; i++) {
		memcpy(*payload + off, paths[i], strlen(paths[i]) + 1);
		off += strlen(paths[i]) + 1;
	}
	free(paths);
	send_frame(fd, 'A', *payload, *len);
	free(*payload);
	*payload = NULL;
	*len = 0;
	do
		rc = (int)read(fd, &verdict, 1);
	while (rc == -1 && errno == EINTR);
	if (rc != 1 || verdict != 'y')
		goto out;
	if ((rc = changeset_apply(cs, upperfd, b->rootfd, err, sizeof(err))) ==
	    0) {
		*type = 'O';
		goto out;
	}
	*type = 'F';
	*len = sizeof(rc) + strlen(err);
	*payload = xcalloc(1, *len);
	memcpy(*payload, &rc, sizeof(rc));
	memcpy(*payload + sizeof(rc), err, strlen(err));
out:
	changeset_free(cs);
}

static void __attribute__((noreturn))
land_main(struct call *c, int fd, int upperfd)
{
	int keep[4] = { fd, upperfd, c->b->rootfd, c->changes_fd };
	char type, *payload;
	size_t len;

	if (close_fds_from(3, keep, c->changes_fd != -1 ? 4 : 3) != 0)
		_exit(1);
	signal(SIGPIPE, SIG_IGN);
	land_work(c, fd, upperfd, &type, &payload, &len);
	/* The upper layer goes before the answer: freeing a large one is
	 * work too, and the loop's own clean-up then finds nothing. */
	close(upperfd);
	if (c->changes_fd != -1)
		close(c->changes_fd);
	if (c->changes != NULL)
		applyjournal_rm_tree(AT_FDCWD, c->changes);
	if (type != 0)
		send_frame(fd, type, payload, len);
	_exit(0);
}

/* The loop's side. */

/* The dependency files among the set's paths, or "." for the whole set. */
static const char *
budget_entry(const struct manifest *m, const char *const *paths, size_t n,
    const char *limit)
{
	size_t i, j;

	if (strcmp(limit, "maxAddedDependencies") != 0)
		return ".";
	for (i = 0; i < n; i++)
		for (j = 0; j < m->ndependency_files; j++)
			if (strcmp(paths[i], m->dependency_files[j]) == 0)
				return paths[i];
	return ".";
}

/* The error body for |refused| (stolen), of |total| entries refused in
 * all, and its change_refused record. */
static json_t *
refusal(struct call *c, json_t *refused, size_t total)
{
	json_t *first = json_array_get(refused, 0), *body;
	const char *rule = json_string_value(json_object_get(first, "rule"));

	body = tool_error("change_refused", 0, NULL,
	    "the run's changes were not applied: %zu %s refused; first: "
	    "%s: %s",
	    total, total == 1 ? "entry" : "entries",
	    json_string_value(json_object_get(first, "path")),
	    writepolicy_rule_text(rule));
	json_object_set(body, "refused", refused);
	if (total > json_array_size(refused))
		json_object_set_new(
		    body, "refusedTotal", json_integer((json_int_t)total));
	(void)broker_audit(c->b, "change_refused",
	    json_pack("{s:O, s:s, s:s?, s:O, s:I}", "id", c->id, "tool",
		c->tool->name, "check", c->check != NULL ? c->check->id : NULL,
		"entries", refused, "total", (json_int_t)total));
	json_decref(refused);
	return body;
}

static void
decide(struct landjob *j, int rc, json_t *out)
{
	if (j->decided) {
		json_decref(out);
		return;
	}
	j->decided = 1;
	j->rc = rc;
	j->out = out;
}

/* 'A': the budgets count the set's paths; the process is told. */
static void
admit(struct landjob *j, char *payload, size_t len)
{
	struct call *c = j->c;
	struct broker *b = c->b;
	const char **paths;
	char limit[64], verdict = 'n';
	uint64_t count;
	size_t i, n = 0, off;
	int rc;

	if (len < sizeof(count) || payload[len - 1] != '\0') {
		decide(j, -1,
		    tool_error("write_failed", 1, NULL,
			"nothing was applied: the landing process answered "
			"nonsense"));
		(void)write_all(j->fd, &verdict, 1);
		return;
	}
	memcpy(&count, payload, sizeof(count));
	j->entries = (size_t)count;
	for (off = sizeof(count); off < len; off += strlen(payload + off) + 1)
		n++;
	paths = xcalloc(n + 1, sizeof(*paths));
	for (i = 0, off = sizeof(count); off < len;
	     off += strlen(payload + off) + 1)
		paths[i++] = payload + off;
	/* A command's writes are an attempt at a failing gate, as a patch
	 * is; a check's own (its build output) are not. */
	rc = ledger_admit_write(
	    b->ledger, paths, n, c->check == NULL, limit, sizeof(limit));
	if (rc == AL_ERR_BUDGET) {
		json_t *refused = json_pack("[{s:s, s:s}]", "path",
		    budget_entry(b->m, paths, n, limit), "rule", limit);

		broker_budget_stop(b, limit);
		decide(j, -1, refusal(c, refused, 1));
	} else {
		verdict = 'y';
		j->said_yes = 1;
	}
	free(paths);
	if (write_all(j->fd, &verdict, 1) != 0)
		j->said_yes = 0; /* it is gone: it applies nothing */
}

/* Handles one whole frame. */
static void
frame(struct landjob *j, char type, char *payload, size_t len)
{
	struct call *c = j->c;
	json_t *msg, *refused;
	char text[600];
	int rc;

	switch (type) {
	case 'A':
		if (!j->decided && !j->said_yes) {
			admit(j, payload, len);
			return;
		}
		break;
	case 'E':
		decide(j, 0, NULL);
		return;
	case 'U':
		snprintf(text, sizeof(text), "%.*s", (int)len, payload);
		decide(j, -1,
		    refusal(c,
			json_pack("[{s:s, s:s, s:s}]", "path", ".", "rule",
			    "unreadable", "message", text),
			1));
		return;
	case 'R':
		msg = json_loadb(payload, len, 0, NULL);
		refused = json_object_get(msg, "refused");
		if (json_array_size(refused) > 0) {
			decide(j, -1,
			    refusal(c, json_incref(refused),
				(size_t)json_integer_value(
				    json_object_get(msg, "total"))));
			json_decref(msg);
			return;
		}
		json_decref(msg);
		break;
	case 'O':
		if (!j->said_yes)
			break;
		(void)broker_audit(c->b, "change_applied",
		    json_pack("{s:O, s:I}", "id", c->id, "entries",
			(json_int_t)j->entries));
		decide(j, 0, NULL);
		return;
	case 'F':
		if (!j->said_yes || len < sizeof(rc))
			break;
		memcpy(&rc, payload, sizeof(rc));
		snprintf(text, sizeof(text), "%.*s", (int)(len - sizeof(rc)),
		    payload + sizeof(rc));
		decide(j, -1,
		    tool_error("write_failed", rc == AL_ERR_IO, NULL,
			"nothing was applied: %s", text));
		return;
	}
	decide(j, -1,
	    tool_error("write_failed", 1, NULL,
		"nothing was applied: the landing process answered "
		"nonsense"));
}

/* Handles the whole frames read; 0, or -1 for one too large. */
static int
frames(struct landjob *j)
{
	uint64_t n;
	size_t off = 0;

	while (j->len - off >= HEAD_LEN) {
		memcpy(&n, j->buf + off + 1, sizeof(n));
		if (n > FRAME_MAX)
			return -1;
		if (j->len - off - HEAD_LEN < n)
			break;
		frame(j, j->buf[off], j->buf + off + HEAD_LEN, (size_t)n);
		off += HEAD_LEN + (size_t)n;
	}
	memmove(j->buf, j->buf + off, j->len - off);
	j->len -= off;
	return 0;
}

/* Closes our end and reaps the process (it has nothing left to do). */
static void
reap(struct landjob *j)
{
	struct broker *b = j->c->b;

	if (j->watch > 0)
		loop_unwatch(b->cfg.loop, j->watch);
	j->watch = 0;
	if (j->fd != -1)
		close(j->fd);
	j->fd = -1;
	while (waitpid(j->pid, NULL, 0) == -1 && errno == EINTR)
		;
	free(j->buf);
	j->buf = NULL;
}

/* The process is gone: the outcome goes to the call. */
static void
finish(struct landjob *j)
{
	struct call *c = j->c;
	char err[512];

	reap(j);
	if (!j->decided && j->said_yes) {
		/* It may have been applying: put the workspace back. */
		if (changeset_broker_recover(c->b, err, sizeof(err)) != 0)
			decide(j, -1,
			    tool_error("write_failed", 0, NULL,
				"the landing process was lost and the "
				"workspace could not be put back: %s",
				err));
		else
			decide(j, -1,
			    tool_error("write_failed", 1, NULL,
				"nothing was applied: the landing process "
				"was lost"));
	} else if (!j->decided)
		decide(j, -1,
		    tool_error("write_failed", 1, NULL,
			"nothing was applied: the landing process was lost"));
	c->land = NULL;
	j->fn(c, j->rc, j->out);
	free(j);
}

static void
land_event(int fd, int why, void *arg)
{
	struct landjob *j = arg;
	ssize_t n;

	(void)why;
	for (;;) {
		if (j->cap - j->len < 4096) {
			j->cap = j->cap * 2 + 4096;
			j->buf = xreallocarray(j->buf, j->cap, 1);
		}
		n = read(fd, j->buf + j->len, j->cap - j->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			break;
		if (n <= 0) {
			if (frames(j) != 0 || j->len != 0)
				decide(j, -1,
				    tool_error("write_failed", 1, NULL,
					"nothing was applied: the landing "
					"process answered nonsense"));
			finish(j);
			return;
		}
		j->len += (size_t)n;
	}
	if (frames(j) != 0) {
		/* Only a set's paths come before a verdict and can be this
		 * large: the process, told nothing, applies nothing. */
		decide(j, -1,
		    tool_error("write_failed", 1, NULL,
			"nothing was applied: the landing process answered "
			"nonsense"));
		finish(j);
	}
}

void
landjob_start(struct call *c, landjob_fn fn)
{
	struct broker *b = c->b;
	struct landjob *j;
	int upperfd, sv[2];

	if (c->changes_upper == NULL && c->changes_fd == -1) {
		fn(c, 0, NULL);
		return;
	}
	if ((upperfd = c->changes_fd != -1
		    ? openat(c->changes_fd, "upper",
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		    : open(c->changes_upper,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1) {
		fn(c, -1,
		    tool_error("write_failed", 0, NULL,
			"nothing was applied: upper layer: %s",
			strerror(errno)));
		return;
	}
	if (c->changes_fd != -1 && changeset_tmpfs_full(c->changes_fd)) {
		close(upperfd);
		(void)broker_audit(b, "change_refused",
		    json_pack("{s:O, s:s, s:s?, s:s}", "id", c->id, "tool",
			c->tool->name, "check",
			c->check != NULL ? c->check->id : NULL, "reason",
			"upper layer full"));
		fn(c, -1,
		    tool_error("change_refused", 0, NULL,
			"the run's changes were not applied: its writes filled "
			"the %lld MiB upper layer and failed with ENOSPC",
			(long long)(CHANGESET_MAX_BYTES / (1024 * 1024))));
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		close(upperfd);
		fn(c, -1,
		    tool_error("write_failed", 1, NULL,
			"nothing was applied: socketpair: %s",
			strerror(errno)));
		return;
	}
	j = xcalloc(1, sizeof(*j));
	j->c = c;
	j->fn = fn;
	if ((j->pid = fork()) == -1) {
		close(sv[0]);
		close(sv[1]);
		close(upperfd);
		free(j);
		fn(c, -1,
		    tool_error("write_failed", 1, NULL,
			"nothing was applied: fork: %s", strerror(errno)));
		return;
	}
	if (j->pid == 0) {
		close(sv[0]);
		land_main(c, sv[1], upperfd);
	}
	close(sv[1]);
	close(upperfd);
	/* The process holds the upper layer now (landjob.h). */
	if (c->changes_fd != -1)
		close(c->changes_fd);
	c->changes_fd = -1;
	j->fd = sv[0];
	(void)fd_set_nonblock(j->fd, 1);
	c->land = j;
	if ((j->watch = loop_watch(
		 b->cfg.loop, j->fd, INT64_MAX, land_event, j)) < 0)
		fatalx("too many watches");
}

void
landjob_abandon(struct call *c)
{
	struct landjob *j = c->land;

	if (j == NULL)
		return;
	/* A process waiting for its verdict reads the end as a no. */
	reap(j);
	json_decref(j->out);
	c->land = NULL;
	free(j);
}
