/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * A run's change set landed off the event loop; see landjob.h.
 *
 * A process rather than a thread, as the digest worker (wsjob.c): the
 * broker clones runners.  One process, forked when the broker starts
 * (while it is small: a fork per land cost some 4 ms of copy-on-write
 * faults on a 2-core VM), lands one set at a time; forked again if it
 * is lost.  It sees the manifest and the secrets as the broker had them
 * then: neither changes during a session.
 *
 * The loop hands it a land as a struct land_req with one descriptor
 * attached: the run's tmpfs (req.tmpfs) or its upper directory.  It
 * answers in frames: a type byte, the payload's length (a uint64_t in
 * host order: both ends are this program) and the payload.
 *   'U' the upper layer could not be read (payload: why)
 *   'E' the run changed nothing; its payload as 'O''s (mode bits that
 *       did not land: a chmod o+w of a directory, all it did)
 *   'R' entries refused: {"total": n, "refused": [{path, rule}...]}, at
 *       most LANDJOB_REFUSED_MAX listed
 *   'A' the set passed its checks: a uint64_t count of entries, then the
 *       paths it writes or removes, each NUL-terminated; the process then
 *       waits for one byte from the loop, 'y' (apply) or anything else
 *   'T' (after a 'y') its apply's trash directory is made (payload: its
 *       name), before the journal and any change (applyjournal_watch())
 *   'C' (after a 'T') its apply passed the commit point: it landed
 *   'N' not applied: the loop said no
 *   'W' (after a 'y', before its 'T') its 'O''s payload, should the set
 *       land, when it has one: sent ahead, for a lander lost past its
 *       commit point
 *   'O' applied (after a 'y'); its payload, when mode bits did not land
 *       (changeset_dropped()): {"modesDropped": [{path, mode, landed}...]}
 *   'F' not applied (after a 'y'): an int code, then why
 * Every frame but 'A', 'T', 'C' and 'W' ends the land, sent after the
 * upper layer is gone.  Should the process be lost after a 'y', the
 * set landed if it said 'C', or if its trash is found past the commit
 * point ("done" in it); else it was rolled back or never begun
 * (lost_after_yes()).
 *
 * A patch (apply_patch, broker/patchland.h) lands the same way: the
 * descriptor is a memfd holding its text, the 'A' frame counts its
 * files, a 'y' is followed by
 *   'W' the call's result, JSON, should the patch land (before its 'T'),
 * and it ends with
 *   'O' applied: the call's result, JSON
 *   'P' not applied (before its 'A' or after a 'y'): an error body, JSON
 *   'N' the loop said no
 * and a large file's read (read_file, broker/output.h), the descriptor
 * the file opened, with 'O' (the call's result) or 'P' (an error body),
 * no 'A': it writes nothing.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/prctl.h>
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
#include "broker/output.h"
#include "broker/patchland.h"
#include "broker/redact.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/path.h"
#include "policy/writepolicy.h"
#include "proxy/ipc.h"

/* A frame larger than this is refused (fail closed): the set's entries
 * are bounded by changeset_collect(), their paths by PATH_MAX. */
#define FRAME_MAX (256UL * 1024 * 1024)
#define HEAD_LEN (1 + sizeof(uint64_t))

/* The parent's view of the process, and of the land in flight. */
struct lander {
	struct broker *b;
	pid_t pid; /* -1: none (lost; forked again for the next land) */
	int fd;
	int watch;
	char *buf; /* frames read, not yet handled */
	size_t len, cap;
	struct call *c; /* the call whose set lands, or NULL */
	landjob_fn fn;
	int said_yes; /* the process may be applying */
	int decided; /* rc and out hold the outcome */
	int rc;
	json_t *out;
	size_t entries;
	char kind; /* LAND_RUN, LAND_PATCH or LAND_READ */
	char trash[64]; /* the apply's trash directory ('T'), or "" */
	int committed; /* the apply passed its commit point ('C') */
	json_t *staged; /* a patch's result, or a run's 'O' payload, should
			   it land ('W') */
};

/* What a land is: a run's change set (the default), a patch
 * (patchland.h) or a large file's read (output_file()). */
#define LAND_RUN 0
#define LAND_PATCH 1
#define LAND_READ 2

/* A land, as the loop hands it over (with one descriptor). */
struct land_req {
	char secrets; /* the tool was granted a secret */
	char tmpfs; /* the descriptor is the run's tmpfs, else its upper */
	char dir[PATH_MAX]; /* the upper layer's directory to remove, or "" */
	char kind; /* LAND_*: what the descriptor is */
	char expected[SHA256_HEX_LEN + 1]; /* its expectedBaseSha */
	uint32_t tool; /* read: the tool's place in the manifest */
	int64_t start, end; /* read: the lines asked (output_line_arg()) */
	uint64_t size, limit; /* read: the file's size, what it returns */
	char rel[PATH_MAX]; /* read: its path, as asked */
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

/* A frame of |msg| (stolen) as compact JSON. */
static void
send_json_frame(int fd, char type, json_t *msg)
{
	char *text = msg != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;

	json_decref(msg);
	if (text == NULL)
		_exit(1);
	send_frame(fd, type, text, strlen(text));
	free(text);
}

/* The loop is told of an apply's trash and commit point ('T', 'C'). */
static void
tell_apply(const char *trash, void *arg)
{
	int fd = *(const int *)arg;

	if (trash != NULL)
		send_frame(fd, 'T', trash, strlen(trash));
	else
		send_frame(fd, 'C', NULL, 0);
}

/*
 * A file scanned for secrets as one stream fed in pieces: what is fed
 * collects in buf, which is scanned when full and at the end; its last
 * |keep| bytes (the longest form but one) stay to be scanned again with
 * what follows, so a form cut between two pieces is found.
 */
#define SCAN_CHUNK 65536

struct scan {
	const struct redact *r;
	unsigned char *buf;
	size_t keep, len, cap; /* cap: SCAN_CHUNK + keep */
	int hit;
};

static void
scan_flush(struct scan *s)
{
	size_t keep = s->len < s->keep ? s->len : s->keep;

	if (!s->hit)
		s->hit = redact_contains(s->r, s->buf, s->len);
	memmove(s->buf, s->buf + s->len - keep, keep);
	s->len = keep;
}

static void
scan_feed(struct scan *s, const unsigned char *p, size_t n)
{
	size_t part;

	while (n > 0 && !s->hit) {
		part = n < s->cap - s->len ? n : s->cap - s->len;
		memcpy(s->buf + s->len, p, part);
		s->len += part;
		p += part;
		n -= part;
		if (s->len == s->cap)
			scan_flush(s);
	}
}

/*
 * Feeds the |n| bytes of |fd| from |off| (data), or |n| zero bytes (a
 * hole): a form's match holds at most longest zero bytes of a hole's
 * start or end, or longest zeros within it, so a hole is fed as at most
 * twice that many zeros.  The holes are never read: a read of a tmpfs
 * file through a mapping would allocate its holes, and a sparse file
 * of a terabyte would fill the run's tmpfs.  Returns 0, or -1 if the
 * file could not be read whole.
 */
static int
scan_range(struct scan *s, int fd, off_t off, off_t n, int hole)
{
	static const unsigned char zeros[4096];
	unsigned char chunk[SCAN_CHUNK];
	off_t most = 2 * (off_t)s->keep + 2;
	size_t part;
	ssize_t got;

	if (hole && n > most)
		n = most;
	while (n > 0 && !s->hit) {
		if (hole) {
			part = n < (off_t)sizeof(zeros) ? (size_t)n
							: sizeof(zeros);
			scan_feed(s, zeros, part);
		} else {
			part = n < (off_t)sizeof(chunk) ? (size_t)n
							: sizeof(chunk);
			if ((got = pread(fd, chunk, part, off)) == -1 &&
			    errno == EINTR)
				continue;
			if (got <= 0)
				return -1;
			part = (size_t)got;
			scan_feed(s, chunk, part);
			off += (off_t)part;
		}
		n -= (off_t)part;
	}
	return 0;
}

/* Whether the regular file |fd| holds a secret or one of its forms. */
static int
fd_holds_secret(int fd, off_t size, const struct redact *r)
{
	struct scan s;
	off_t off, data, hole;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.r = r;
	s.keep = redact_longest(r) > 0 ? redact_longest(r) - 1 : 0;
	s.cap = SCAN_CHUNK + s.keep;
	if ((s.buf = malloc(s.cap)) == NULL)
		return 1;
	for (off = 0; off < size && rc == 0 && !s.hit; off = hole) {
		fd_next_data(fd, off, size, &data, &hole);
		if (scan_range(&s, fd, off, data - off, 1) != 0 ||
		    scan_range(&s, fd, data, hole - data, 0) != 0)
			rc = -1;
	}
	if (rc == 0)
		scan_flush(&s);
	free(s.buf);
	return rc != 0 || s.hit;
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
	int fd, hit;

	if (path_resolve(upperfd, path, O_RDONLY | O_NOFOLLOW, &fd, NULL, 0) !=
	    0)
		return 1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 1;
	}
	hit = fd_holds_secret(fd, st.st_size, r);
	close(fd);
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

/* Bytes of paths in a change_applied record's modesDropped, as in a
 * change_refused record's entries (refused_for_log()). */
#define LANDJOB_DROPPED_BYTES (256 * 1024)

/* The 'O' (or 'E') frame's payload for the mode bits of |cs| that did
 * not land (changeset_dropped()), in *payload and *len; none if none. */
static void
dropped_payload(const struct changeset *cs, char **payload, size_t *len)
{
	json_t *dropped, *msg;
	size_t total;

	if ((dropped = changeset_dropped(cs, LANDJOB_REFUSED_MAX,
		 LANDJOB_DROPPED_BYTES, &total)) == NULL)
		return;
	msg = json_pack("{s:o, s:I}", "modesDropped", dropped,
	    "modesDroppedTotal", (json_int_t)total);
	*payload = msg != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;
	json_decref(msg);
	if (*payload == NULL)
		_exit(1);
	*len = strlen(*payload);
}

/*
 * Sends the 'A' frame of |count| entries writing paths[0..n) and waits
 * for the loop's verdict: 'y' to apply, anything else not.
 */
static char
admitted(int fd, uint64_t count, const char *const *paths, size_t n)
{
	char *payload, verdict;
	size_t i, len, off;
	ssize_t rc;

	for (len = sizeof(count), i = 0; i < n; i++)
		len += strlen(paths[i]) + 1;
	payload = xcalloc(1, len);
	memcpy(payload, &count, sizeof(count));
	for (off = sizeof(count), i = 0; i < n; i++) {
		memcpy(payload + off, paths[i], strlen(paths[i]) + 1);
		off += strlen(paths[i]) + 1;
	}
	send_frame(fd, 'A', payload, len);
	free(payload);
	do
		rc = read(fd, &verdict, 1);
	while (rc == -1 && errno == EINTR);
	return rc == 1 ? verdict : 'n';
}

/* The whole text of the patch in |pfd| (a memfd the loop wrote, its
 * offset at the end): 0, or -1. */
static int
patch_text(int pfd, char **text, size_t *len)
{
	struct stat st;

	if (fstat(pfd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > FRAME_MAX || lseek(pfd, 0, SEEK_SET) != 0)
		return -1;
	*text = read_fd_upto(pfd, (size_t)st.st_size, len);
	if (*len == (size_t)st.st_size)
		return 0;
	free(*text);
	return -1;
}

/*
 * A read's result |out| as its 'O' frame: the result without its content
 * as JSON, a NUL, then the content's bytes (content_of() takes it
 * apart).  Parsed as JSON, the content of a large file (a few hundred
 * KiB shown) took the loop some 50 ms.  Returns 0, or -1 if |out| has no
 * content string.
 */
static int
read_result(json_t *out, char **payload, size_t *len)
{
	json_t *content = json_incref(json_object_get(out, "content"));
	char *rest;
	size_t restlen, clen;

	if (!json_is_string(content)) {
		json_decref(content);
		return -1;
	}
	(void)json_object_del(out, "content");
	if ((rest = json_dumps(out, JSON_COMPACT)) == NULL)
		_exit(1);
	restlen = strlen(rest);
	clen = json_string_length(content);
	*len = restlen + 1 + clen;
	*payload = xcalloc(1, *len + 1);
	memcpy(*payload, rest, restlen);
	memcpy(*payload + restlen + 1, json_string_value(content), clen);
	free(rest);
	json_decref(content);
	return 0;
}

/*
 * read_file of the file |fd| as |req| asks (output_file()): 'O' with the
 * result or 'P' with an error body in |*type| and |*payload|.
 */
static void
read_work(struct broker *b, const struct land_req *req, int fd, char *type,
    char **payload, size_t *len)
{
	json_t *out = NULL;
	int status = ACTION_ERROR;

	if (req->tool < b->m->ntools)
		status = output_file(b, &b->m->tools[req->tool], req->start,
		    req->end, req->rel, fd, (size_t)req->size,
		    (size_t)req->limit, &out);
	else
		out = tool_error("internal", 0, NULL,
		    "the landing process was asked for no such tool");
	*type = status == ACTION_DONE ? 'O' : 'P';
	if (status == ACTION_DONE && read_result(out, payload, len) == 0) {
		json_decref(out);
		return;
	}
	if (out == NULL || (*payload = json_dumps(out, JSON_COMPACT)) == NULL)
		_exit(1);
	json_decref(out);
	*len = strlen(*payload);
}

/*
 * A patch's land (patchland.h): prepared, counted by the loop, applied
 * on its yes.  The frame that ends it is |*type| with |*payload|.
 */
static void
patch_work(struct broker *b, int fd, int pfd, const char *expected, char *type,
    char **payload, size_t *len)
{
	struct patchland *pl = NULL;
	const char *const *where;
	json_t *out = NULL;
	char *text;
	size_t tlen, n;

	*type = 'P';
	*payload = NULL;
	*len = 0;
	if (patch_text(pfd, &text, &tlen) != 0) {
		out = tool_error("internal", 1, NULL,
		    "nothing was written: the patch could not be handed over");
	} else {
		if (patchland_prepare(b, text, tlen, expected, &pl, &out) ==
		    0) {
			where = patchland_where(pl, &n);
			if (admitted(fd, n, where, n) != 'y')
				*type = 'N';
			else {
				send_json_frame(fd, 'W', patchland_result(pl));
				if (patchland_apply(pl, &out) == 0)
					*type = 'O';
			}
		}
		patchland_free(pl);
		free(text);
	}
	if (*type == 'N')
		return;
	if (out == NULL || (*payload = json_dumps(out, JSON_COMPACT)) == NULL)
		_exit(1);
	json_decref(out);
	*len = strlen(*payload);
}

/*
 * Collects and checks the set read from |upperfd|, and, when the loop
 * says yes, applies it.  The frame that ends it is |*type| with
 * |*payload| (allocated) of |*len| bytes.
 */
static void
land_work(struct broker *b, int secrets, int fd, int upperfd, char *type,
    char **payload, size_t *len)
{
	struct changeset *cs = NULL;
	const char **paths;
	json_t *refused;
	char err[512], verdict;
	size_t n;
	int rc;

	*type = 'N';
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
		/* A run whose only change was a mode bit that does not land
		 * (chmod o+w of a directory) changed nothing: it is told. */
		*type = 'E';
		dropped_payload(cs, payload, len);
		goto out;
	}
	if ((refused = changeset_check(
		 cs, &b->m->sandbox, b->rootfd, CHANGESET_MAX_BYTES)) != NULL ||
	    (secrets &&
		(refused = secret_refusals(cs, upperfd, b->cfg.redact)) !=
		    NULL)) {
		*type = 'R';
		*payload = refused_text(refused);
		*len = strlen(*payload);
		goto out;
	}
	paths = changeset_paths(cs, &n);
	verdict = admitted(fd, changeset_count(cs), paths, n);
	free(paths);
	if (verdict != 'y')
		goto out;
	/* What the 'O' will say, ahead: should this process be lost past
	 * the commit point, the loop records it all the same. */
	dropped_payload(cs, payload, len);
	if (*payload != NULL)
		send_frame(fd, 'W', *payload, *len);
	if ((rc = changeset_apply(cs, upperfd, b->rootfd, err, sizeof(err))) ==
	    0) {
		*type = 'O';
		goto out;
	}
	free(*payload);
	*type = 'F';
	*len = sizeof(rc) + strlen(err);
	*payload = xcalloc(1, *len);
	memcpy(*payload, &rc, sizeof(rc));
	memcpy(*payload + sizeof(rc), err, strlen(err));
out:
	changeset_free(cs);
}

/* Reads one whole struct land_req and its descriptor: 1, or 0 when the
 * loop is gone or broke the framing. */
static int
recv_req(int fd, struct land_req *req, int *given)
{
	size_t got, off;
	ssize_t n;

	if (proxy_recv_fd(fd, given, req, sizeof(*req), &got) != 1)
		return 0;
	for (off = got; off < sizeof(*req); off += (size_t)n) {
		do
			n = read(fd, (char *)req + off, sizeof(*req) - off);
		while (n == -1 && errno == EINTR);
		if (n <= 0)
			return 0;
	}
	req->dir[sizeof(req->dir) - 1] = '\0';
	req->expected[sizeof(req->expected) - 1] = '\0';
	req->rel[sizeof(req->rel) - 1] = '\0';
	return *given != -1;
}

static void __attribute__((noreturn)) lander_main(struct broker *b, int fd)
{
	int keep[2] = { fd, b->rootfd }, given, upperfd;
	struct land_req req;
	char type, *payload;
	size_t len;

	if (close_fds_from(3, keep, 2) != 0)
		_exit(1);
	/* What ps(1) shows for it. */
	(void)prctl(PR_SET_NAME, "airlock-lander");
	signal(SIGPIPE, SIG_IGN);
	applyjournal_watch(tell_apply, &fd);
	while (recv_req(fd, &req, &given)) {
		if (req.kind != LAND_RUN) {
			if (req.kind == LAND_PATCH)
				patch_work(b, fd, given, req.expected, &type,
				    &payload, &len);
			else
				read_work(
				    b, &req, given, &type, &payload, &len);
			close(given);
			send_frame(fd, type, payload, len);
			free(payload);
			continue;
		}
		upperfd = req.tmpfs
		    ? openat(given, "upper",
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		    : given;
		if (upperfd == -1) {
			type = 'U';
			payload = xstrdup("the upper layer cannot be opened");
			len = strlen(payload);
		} else
			land_work(
			    b, req.secrets, fd, upperfd, &type, &payload, &len);
		/* The upper layer goes before the answer: freeing a large
		 * one is work too (the tmpfs goes with its last descriptor,
		 * this one), and the loop's own clean-up then finds nothing. */
		if (upperfd != given && upperfd != -1)
			close(upperfd);
		close(given);
		if (req.dir[0] != '\0')
			applyjournal_rm_tree(AT_FDCWD, req.dir);
		send_frame(fd, type, payload, len);
		free(payload);
	}
	_exit(0);
}

/* The loop's side. */

static const char *
budget_entry(const struct manifest *m, const char *const *paths, size_t n,
    const char *limit)
{
	size_t i, j, len;

	if (strcmp(limit, "maxAddedDependencies") != 0)
		return ".";
	/* The file, or a directory on its way (ledger.c). */
	for (i = 0; i < n; i++)
		for (j = 0; j < m->ndependency_files; j++) {
			len = strlen(paths[i]);
			if (strncmp(paths[i], m->dependency_files[j], len) ==
				0 &&
			    (m->dependency_files[j][len] == '\0' ||
				m->dependency_files[j][len] == '/'))
				return paths[i];
		}
	return ".";
}

/*
 * The entries of a change_refused record: |refused|'s first ones, as many
 * as fit in CHANGE_REFUSED_LOG_BYTES of paths and rules as JSON writes
 * them (changeset_refused_few()), so that the
 * record always fits a line of the log (AUDIT_MAX_LINE): a run's paths
 * are the agent's to choose, and a record too large would not be written.
 */
#define CHANGE_REFUSED_LOG_BYTES (256 * 1024)

static json_t *
refused_for_log(json_t *refused)
{
	return changeset_refused_few(
	    refused, SIZE_MAX, CHANGE_REFUSED_LOG_BYTES);
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
	    json_pack("{s:O, s:s, s:s?, s:o, s:I}", "id", c->id, "tool",
		c->tool->name, "check", c->check != NULL ? c->check->id : NULL,
		"entries", refused_for_log(refused), "total",
		(json_int_t)total));
	json_decref(refused);
	return body;
}

static void lander_event(int, int, void *);

/* Forks the process; 0, or -1 with errno set. */
static int
lander_spawn(struct lander *l)
{
	int sv[2], e;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return -1;
	if ((l->pid = fork()) == -1) {
		e = errno;
		close(sv[0]);
		close(sv[1]);
		errno = e;
		return -1;
	}
	if (l->pid == 0) {
		close(sv[0]);
		lander_main(l->b, sv[1]);
	}
	close(sv[1]);
	l->fd = sv[0];
	l->len = 0;
	(void)fd_set_nonblock(l->fd, 1);
	if ((l->watch = loop_watch(
		 l->b->cfg.loop, l->fd, INT64_MAX, lander_event, l)) < 0)
		fatalx("too many watches");
	return 0;
}

/* Closes our end and reaps the process: it exits at the end of its
 * input, after an apply under way. */
static void
lander_reap(struct lander *l)
{
	if (l->pid == -1)
		return;
	if (l->watch > 0)
		loop_unwatch(l->b->cfg.loop, l->watch);
	l->watch = 0;
	/* It sees the end even where a child forked since (the agent's
	 * sandbox) still holds a copy of our end. */
	(void)shutdown(l->fd, SHUT_RDWR);
	close(l->fd);
	l->fd = -1;
	while (waitpid(l->pid, NULL, 0) == -1 && errno == EINTR)
		;
	l->pid = -1;
	l->len = 0;
}

struct lander *
lander_new(struct broker *b)
{
	struct lander *l = xcalloc(1, sizeof(*l));

	l->b = b;
	l->fd = -1;
	if (lander_spawn(l) != 0) {
		free(l);
		return NULL;
	}
	return l;
}

void
lander_free(struct lander *l)
{
	if (l == NULL)
		return;
	lander_reap(l);
	json_decref(l->out);
	json_decref(l->staged);
	free(l->buf);
	free(l);
}

static void
decide(struct lander *l, int rc, json_t *out)
{
	if (l->decided) {
		json_decref(out);
		return;
	}
	l->decided = 1;
	l->rc = rc;
	l->out = out;
}

static json_t *
nonsense(void)
{
	return tool_error("write_failed", 1, NULL,
	    "nothing was applied: the landing process answered nonsense");
}

/*
 * Writes change_landing for the set of |l| (|npaths| paths) and flushes
 * the batch: the workspace changes only once the log says it will.
 * Returns 1 when the record is on the disk, signed, else 0.
 */
static int
land_announced(struct lander *l, size_t npaths)
{
	struct broker *b = l->b;

	if (broker_audit(b, "change_landing",
		json_pack("{s:O, s:I, s:I}", "id", l->c->id, "entries",
		    (json_int_t)l->entries, "paths", (json_int_t)npaths)) != 0)
		return 0;
	return audit_flush(b->cfg.audit) == 0;
}

/* 'A': the budgets count the set's paths; the process is told. */
static void
admit(struct lander *l, char *payload, size_t len)
{
	struct call *c = l->c;
	struct broker *b = l->b;
	const char **paths;
	char limit[64], verdict = 'n';
	uint64_t count;
	size_t i, n = 0, off;
	int rc;

	if (len < sizeof(count) || payload[len - 1] != '\0') {
		decide(l, -1, nonsense());
		(void)write_all(l->fd, &verdict, 1);
		return;
	}
	memcpy(&count, payload, sizeof(count));
	l->entries = (size_t)count;
	for (off = sizeof(count); off < len; off += strlen(payload + off) + 1)
		n++;
	paths = xcalloc(n + 1, sizeof(*paths));
	for (i = 0, off = sizeof(count); off < len;
	     off += strlen(payload + off) + 1)
		paths[i++] = payload + off;
	/* A command's writes are an attempt at a failing gate, as a patch
	 * is; a check's own (its build output) are not. */
	broker_dependency_real(b);
	rc = ledger_admit_write(
	    b->ledger, paths, n, c->check == NULL, limit, sizeof(limit));
	if (rc == AL_ERR_BUDGET && l->kind == LAND_PATCH) {
		broker_budget_stop(b, limit);
		decide(l, -1,
		    tool_error("budget_exhausted", 0, NULL,
			"the run budget is exhausted (%s); nothing was written",
			limit));
	} else if (rc == AL_ERR_BUDGET) {
		json_t *refused = json_pack("[{s:s, s:s}]", "path",
		    budget_entry(b->m, paths, n, limit), "rule", limit);

		broker_budget_stop(b, limit);
		decide(l, -1, refusal(c, refused, 1));
	} else if (!land_announced(l, n)) {
		ledger_write_undone(b->ledger);
		decide(l, -1,
		    tool_error("audit_unavailable", 1, NULL,
			"the audit log cannot be written; nothing of the run was "
			"applied"));
	} else {
		verdict = 'y';
		l->said_yes = 1;
	}
	free(paths);
	if (write_all(l->fd, &verdict, 1) != 0)
		l->said_yes = 0; /* it is gone: it applies nothing */
}

/* A read's result from its 'O' frame (read_result()), or NULL. */
static json_t *
content_of(const char *payload, size_t len)
{
	const char *nul = memchr(payload, '\0', len);
	json_t *msg;
	size_t at;

	if (nul == NULL)
		return NULL;
	at = (size_t)(nul - payload);
	msg = json_loadb(payload, at, 0, NULL);
	if (!json_is_object(msg) ||
	    json_object_set_new(
		msg, "content", json_stringn(nul + 1, len - at - 1)) != 0) {
		json_decref(msg);
		return NULL;
	}
	return msg;
}

/*
 * The change_applied record's fields for |c|'s land of |entries| entries
 * whose 'O' frame said |msg| (NULL: nothing): the mode bits that did not
 * land, when a run's did not (changeset_dropped()).
 */
static json_t *
applied_fields(const struct call *c, size_t entries, const json_t *msg)
{
	json_t *f = json_pack(
	    "{s:O, s:I}", "id", c->id, "entries", (json_int_t)entries);
	json_t *dropped = json_object_get(msg, "modesDropped");

	if (json_is_array(dropped)) {
		json_object_set(f, "modesDropped", dropped);
		json_object_set(f, "modesDroppedTotal",
		    json_object_get(msg, "modesDroppedTotal"));
	}
	return f;
}

/* Handles one whole frame; 1 when it ended the land. */
static int
frame(struct lander *l, char type, char *payload, size_t len)
{
	struct call *c = l->c;
	json_t *msg, *refused;
	char text[600], *san;
	int rc;

	switch (type) {
	case 'A':
		if (!l->decided && !l->said_yes) {
			admit(l, payload, len);
			return 0;
		}
		/* A second set: it waits for a verdict, which is no. */
		decide(l, -1, nonsense());
		(void)write_all(l->fd, "n", 1);
		return 0;
	case 'T':
		if (!l->said_yes || l->trash[0] != '\0' || len == 0 ||
		    len >= sizeof(l->trash) || memchr(payload, '\0', len))
			decide(l, -1, nonsense());
		else
			memcpy(l->trash, payload, len);
		return 0;
	case 'C':
		if (l->trash[0] == '\0' || len != 0)
			decide(l, -1, nonsense());
		else
			l->committed = 1;
		return 0;
	case 'W':
		msg = json_loadb(payload, len, 0, NULL);
		if (!l->said_yes || l->kind == LAND_READ || l->staged != NULL ||
		    !json_is_object(msg)) {
			json_decref(msg);
			decide(l, -1, nonsense());
		} else
			l->staged = msg;
		return 0;
	case 'E':
		msg = len > 0 ? json_loadb(payload, len, 0, NULL) : NULL;
		if (len == 0 || json_is_object(msg)) {
			/* Nothing to land, but a mode the run set did not:
			 * the log says so, as for a set that landed (a run's
			 * chmod o+w of a directory was in no record). */
			if (json_is_array(json_object_get(msg, "modesDropped")))
				(void)broker_audit(l->b, "change_applied",
				    applied_fields(c, 0, msg));
			decide(l, 0, msg);
		} else {
			json_decref(msg);
			decide(l, -1, nonsense());
		}
		return 1;
	case 'N':
		decide(l, -1, nonsense());
		return 1;
	case 'U':
		/* The set could not be walked at all (an entry that cannot
		 * be read is refused by name: changeset_check()).  The why
		 * quotes the run's names: UTF-8, cut between characters (cut
		 * inside one, JSON could not hold it, and the refusal's
		 * NULL killed the broker). */
		san = utf8_sanitize(payload, len);
		utf8_fit(text, sizeof(text), san);
		free(san);
		decide(l, -1,
		    refusal(c,
			json_pack("[{s:s, s:s, s:s}]", "path", ".", "rule",
			    WP_RULE_UNREADABLE, "message", text),
			1));
		return 1;
	case 'R':
		msg = json_loadb(payload, len, 0, NULL);
		refused = json_object_get(msg, "refused");
		if (json_array_size(refused) > 0)
			decide(l, -1,
			    refusal(c, json_incref(refused),
				(size_t)json_integer_value(
				    json_object_get(msg, "total"))));
		else
			decide(l, -1, nonsense());
		json_decref(msg);
		return 1;
	case 'O':
		if (l->kind == LAND_READ) {
			msg = content_of(payload, len);
			if (json_is_object(msg))
				decide(l, 0, msg);
			else {
				json_decref(msg);
				decide(l, -1, nonsense());
			}
			return 1;
		}
		msg = l->kind == LAND_PATCH || len > 0
		    ? json_loadb(payload, len, 0, NULL)
		    : NULL;
		if (l->said_yes && !l->decided &&
		    (l->kind != LAND_PATCH || json_is_object(msg)) &&
		    (len == 0 || json_is_object(msg))) {
			(void)broker_audit(l->b, "change_applied",
			    applied_fields(c, l->entries, msg));
			decide(l, 0, msg);
		} else {
			json_decref(msg);
			decide(l, -1, nonsense());
		}
		return 1;
	case 'P':
		msg = l->kind != LAND_RUN ? json_loadb(payload, len, 0, NULL)
					  : NULL;
		if (json_is_string(json_object_get(msg, "errorClass"))) {
			/* After a yes: the patch was undone (patchland.h). */
			if (l->said_yes && !l->committed)
				ledger_write_undone(l->b->ledger);
			decide(l, -1, msg);
		} else {
			json_decref(msg);
			decide(l, -1, nonsense());
		}
		return 1;
	case 'F':
		if (!l->said_yes || len < sizeof(rc)) {
			decide(l, -1, nonsense());
			return 1;
		}
		memcpy(&rc, payload, sizeof(rc));
		/* The set was undone (changeset_apply()). */
		if (!l->committed)
			ledger_write_undone(l->b->ledger);
		snprintf(text, sizeof(text), "%.*s", (int)(len - sizeof(rc)),
		    payload + sizeof(rc));
		decide(l, -1,
		    tool_error("write_failed", rc == AL_ERR_IO, NULL,
			"nothing was applied: %s", text));
		return 1;
	}
	decide(l, -1, nonsense());
	return 1;
}

/* The land in flight is over: its outcome goes to its call. */
static void
finish(struct lander *l)
{
	struct call *c = l->c;
	landjob_fn fn = l->fn;
	json_t *out = l->out;
	int rc = l->rc;

	l->c = NULL;
	l->out = NULL;
	if (c == NULL) { /* abandoned */
		json_decref(out);
		return;
	}
	c->land = NULL;
	fn(c, rc, out);
}

/*
 * Handles the whole frames read.  Returns 0, or -1 for a frame too large
 * or frames the process should not have sent (it is then not trusted
 * with the next land).
 */
static int
frames(struct lander *l)
{
	uint64_t n;
	size_t off = 0;
	int rc = 0, end;

	while (l->len - off >= HEAD_LEN) {
		memcpy(&n, l->buf + off + 1, sizeof(n));
		if (n > FRAME_MAX || l->c == NULL) {
			rc = -1;
			break;
		}
		if (l->len - off - HEAD_LEN < n)
			break;
		end = frame(l, l->buf[off], l->buf + off + HEAD_LEN, (size_t)n);
		off += HEAD_LEN + (size_t)n;
		if (end) {
			if (l->len != off)
				rc = -1; /* more than one answer */
			finish(l);
			break;
		}
	}
	memmove(l->buf, l->buf + off, l->len - off);
	l->len -= off;
	return rc;
}

/*
 * The process of |l| was lost after a yes, and may have been applying:
 * an apply cut short is put back (changeset_broker_recover()), and the
 * call told what is in the workspace now.  The set landed when the
 * process said it passed the commit point ('C'), or when its trash
 * ('T') is found past it (killed between the two); then the call has
 * the outcome it would have had (a patch's result, 'W') and the log
 * change_applied, as for an 'O'.  Else nothing of it is in the
 * workspace (rolled back, or never begun).  The budgets counted it at
 * its 'A' either way, as they count an apply that fails ('F').
 */
static void
lost_after_yes(struct lander *l)
{
	struct call *c = l->c;
	json_t *fields;
	char err[512];
	const char *trash = l->trash[0] != '\0' ? l->trash : NULL;
	int finished = 0, recovered;

	recovered = changeset_broker_recover(
			l->b, trash, &finished, err, sizeof(err)) == 0;
	if (!l->committed && !finished) {
		if (recovered) /* rolled back, or never begun */
			ledger_write_undone(l->b->ledger);
		decide(l, -1,
		    recovered ? tool_error("write_failed", 1, NULL,
				    "nothing was applied: the landing "
				    "process was lost")
			      : tool_error("write_failed", 0, NULL,
				    "the landing process was lost and the "
				    "workspace could not be put back: %s",
				    err));
		return;
	}
	/* A run's mode bits that did not land, sent ahead ('W'). */
	fields = applied_fields(
	    c, l->entries, l->kind == LAND_RUN ? l->staged : NULL);
	json_object_set_new(fields, "landerLost", json_true());
	(void)broker_audit(l->b, "change_applied", fields);
	if (!recovered)
		decide(l, -1,
		    tool_error("write_failed", 0, NULL,
			"the changes were applied, but the landing process "
			"was lost and an interrupted apply could not be put "
			"back: %s",
			err));
	else if (l->kind == LAND_PATCH && l->staged == NULL)
		decide(l, -1,
		    tool_error("write_failed", 0, NULL,
			"the patch was applied, but its result was lost with "
			"the landing process: read the files again"));
	else
		decide(l, 0, json_incref(l->staged));
}

/* The process is lost (or no longer trusted): the land in flight, if any,
 * fails, rolled back if it may have been applying, unless it landed. */
static void
lander_lost(struct lander *l)
{
	lander_reap(l);
	if (l->c == NULL)
		return;
	if (!l->decided && l->said_yes)
		lost_after_yes(l);
	else
		decide(l, -1,
		    tool_error("write_failed", 1, NULL,
			"nothing was applied: the landing process was lost"));
	finish(l);
}

static void
lander_event(int fd, int why, void *arg)
{
	struct lander *l = arg;
	ssize_t n;

	(void)why;
	for (;;) {
		if (l->cap - l->len < 4096) {
			l->cap = l->cap * 2 + 4096;
			l->buf = xreallocarray(l->buf, l->cap, 1);
		}
		n = read(fd, l->buf + l->len, l->cap - l->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			break;
		if (n <= 0) {
			(void)frames(l);
			lander_lost(l);
			return;
		}
		l->len += (size_t)n;
	}
	if (frames(l) != 0) {
		/* Told nothing, it applies nothing; a new one lands next. */
		if (l->c != NULL)
			decide(l, -1, nonsense());
		lander_lost(l);
	}
}

/*
 * Hands |req| with the descriptor |given| to the lander for |c|; |fn| is
 * called when it ends.  Returns 0, or -1 after |fn| was called with the
 * error.
 */
static int
land_send(struct call *c, int given, struct land_req *req, landjob_fn fn)
{
	struct lander *l = c->b->lander;

	if ((l->pid == -1 && lander_spawn(l) != 0) ||
	    proxy_send_fd(l->fd, given, req, sizeof(*req)) != 0) {
		fn(c, -1,
		    tool_error("write_failed", 1, NULL,
			"nothing was applied: the landing process: %s",
			strerror(errno)));
		return -1;
	}
	l->c = c;
	l->fn = fn;
	l->said_yes = l->decided = l->committed = 0;
	l->rc = 0;
	l->out = NULL;
	l->entries = 0;
	l->kind = req->kind;
	l->trash[0] = '\0';
	json_decref(l->staged);
	l->staged = NULL;
	c->land = l;
	return 0;
}

void
landjob_start(struct call *c, landjob_fn fn)
{
	struct broker *b = c->b;
	struct land_req req;
	int given;

	if (c->changes_upper == NULL && c->changes_fd == -1) {
		fn(c, 0, NULL);
		return;
	}
	if (c->changes_fd != -1 && changeset_tmpfs_full(c->changes_fd)) {
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
	if ((given = c->changes_fd != -1
		    ? c->changes_fd
		    : open(c->changes_upper,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1) {
		fn(c, -1,
		    tool_error("write_failed", 0, NULL,
			"nothing was applied: upper layer: %s",
			strerror(errno)));
		return;
	}
	memset(&req, 0, sizeof(req));
	req.secrets = c->tool->nsecrets > 0;
	req.tmpfs = c->changes_fd != -1;
	if (c->changes != NULL)
		snprintf(req.dir, sizeof(req.dir), "%s", c->changes);
	if (land_send(c, given, &req, fn) != 0) {
		if (given != c->changes_fd)
			close(given);
		return;
	}
	/* The process holds the upper layer now (landjob.h). */
	close(given);
	c->changes_fd = -1;
}

void
landjob_start_patch(struct call *c, const char *patch, size_t len,
    const char *expected, landjob_fn fn)
{
	struct land_req req;
	int pfd;

	if ((pfd = memfd_create("airlock-patch", MFD_CLOEXEC)) == -1 ||
	    write_all(pfd, patch, len) != 0) {
		if (pfd != -1)
			close(pfd);
		fn(c, -1,
		    tool_error("internal", 1, NULL,
			"nothing was written: the patch cannot be handed to "
			"the landing process: %s",
			strerror(errno)));
		return;
	}
	memset(&req, 0, sizeof(req));
	req.kind = LAND_PATCH;
	snprintf(req.expected, sizeof(req.expected), "%s", expected);
	(void)land_send(c, pfd, &req, fn);
	close(pfd);
}

/* The outcome of a settled land goes to no one (landjob_settle()). */
static void
settled(struct call *c, int rc, json_t *out)
{
	(void)c;
	(void)rc;
	json_decref(out);
}

void
landjob_settle(struct call *c)
{
	struct lander *l = c->land;
	ssize_t n;

	if (l != NULL && l->c == c && l->said_yes && !l->decided &&
	    l->pid != -1) {
		l->fn = settled;
		(void)fd_set_nonblock(l->fd, 0);
		while (l->c == c) {
			if (l->cap - l->len < 4096) {
				l->cap = l->cap * 2 + 4096;
				l->buf = xreallocarray(l->buf, l->cap, 1);
			}
			n = read(l->fd, l->buf + l->len, l->cap - l->len);
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0) {
				(void)frames(l);
				lander_lost(l);
				break;
			}
			l->len += (size_t)n;
			if (frames(l) != 0) {
				if (l->c != NULL)
					decide(l, -1, nonsense());
				lander_lost(l);
				break;
			}
		}
	}
	landjob_abandon(c);
}

void
landjob_start_read(struct call *c, int fd, size_t tool, const char *rel,
    int64_t start, int64_t end, size_t size, size_t limit, landjob_fn fn)
{
	struct land_req req;

	memset(&req, 0, sizeof(req));
	req.kind = LAND_READ;
	req.tool = (uint32_t)tool;
	req.start = start;
	req.end = end;
	req.size = size;
	req.limit = limit;
	snprintf(req.rel, sizeof(req.rel), "%s", rel);
	(void)land_send(c, fd, &req, fn);
}

void
landjob_abandon(struct call *c)
{
	struct lander *l = c->land;

	/* The process ends the land when lander_free() closes its input. */
	if (l != NULL)
		l->c = NULL;
	c->land = NULL;
}
