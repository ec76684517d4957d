/*
 * Pending approvals and the control socket.
 *
 * Safety of the privileged operations here: the socket is created in a
 * 0700 directory with a 0600 mode before listen(); every connection's
 * peer uid comes from the kernel (SO_PEERCRED), not from the client; a
 * client's bytes pass through the same bounded reader as the agent's; and
 * a decision names both the approval id and its digest.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/approval.h"
#include "common/buf.h"
#include "common/errors.h"
#include "common/paths.h"
#include "common/log.h"
#include "common/util.h"

#define APPROVAL_MAX_PENDING	64
#define CONTROL_MAX_CLIENTS	8
#define CONTROL_MAX_FRAME	(64 * 1024)

struct pending {
	char			 id[16];		/* "" when free */
	char			*tool;
	json_t			*args;
	json_t			*execution;	/* or NULL */
	json_t			*evidence;
	char			 digest[65];
	int64_t			 requested;		/* wall ms */
	int64_t			 expires;		/* wall ms */
	int			 watch;			/* expiry timer */
	approval_done_fn	 done;
	void			*arg;
	struct approvals	*owner;
};

struct client {
	int		 fd;		/* -1 when free */
	int		 watch;
	uid_t		 uid;
	struct buf	*in;
	struct approvals *owner;
};

struct approvals {
	const struct manifest	*m;
	char			 session[64];
	char			 path[PATH_MAX];
	struct loop		*loop;
	int			 lfd;
	int			 lwatch;
	approval_audit_fn	 audit;
	void			*audit_arg;
	struct pending		 p[APPROVAL_MAX_PENDING];
	struct client		 c[CONTROL_MAX_CLIENTS];
};

int
approvals_runtime_dir(char *out, size_t outlen)
{
	return paths_runtime_dir(out, outlen);
}

void
approvals_digest(const char *tool, json_t *args, json_t *execution,
    char hex[65])
{
	crypto_hash_sha256_state	 st;
	unsigned char			 md[32];
	char				*canon;

	canon = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_ENCODE_ANY);
	if (canon == NULL)
		fatalx("json_dumps");
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const unsigned char *)tool,
	    strlen(tool) + 1);
	crypto_hash_sha256_update(&st, (const unsigned char *)canon,
	    strlen(canon));
	free(canon);
	if (execution != NULL) {
		canon = json_dumps(execution, JSON_COMPACT | JSON_SORT_KEYS |
		    JSON_ENCODE_ANY);
		if (canon == NULL)
			fatalx("json_dumps");
		crypto_hash_sha256_update(&st, (const unsigned char *)"", 1);
		crypto_hash_sha256_update(&st, (const unsigned char *)canon,
		    strlen(canon));
		free(canon);
	}
	crypto_hash_sha256_final(&st, md);
	sodium_bin2hex(hex, 65, md, sizeof(md));
}

static int
is_approver(const struct approvals *a, uid_t uid)
{
	size_t i;

	/* With no approvers named, only the user running airlock decides. */
	if (a->m->approvals.napprovers == 0)
		return uid == geteuid();
	for (i = 0; i < a->m->approvals.napprovers; i++)
		if (a->m->approvals.approvers[i] == uid)
			return 1;
	return 0;
}

static void
uid_name(uid_t uid, char *out, size_t outlen)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL)
		snprintf(out, outlen, "%s (uid %u)", pw->pw_name,
		    (unsigned)uid);
	else
		snprintf(out, outlen, "uid %u", (unsigned)uid);
}

static json_t *
pending_json(const struct approvals *a, const struct pending *p)
{
	char	 req[64], exp[64];
	json_t	*j;

	format_rfc3339(p->requested, req);
	format_rfc3339(p->expires, exp);
	j = json_pack("{s:s, s:s, s:s, s:O, s:s, s:O, s:s, s:s}",
	    "id", p->id, "session", a->session, "tool", p->tool,
	    "arguments", p->args, "digest", p->digest,
	    "evidence", p->evidence != NULL ? p->evidence : json_null(),
	    "requestedAt", req, "expiresAt", exp);
	if (j != NULL && p->execution != NULL)
		json_object_set(j, "execution", p->execution);
	return j;
}

static void
pending_clear(struct pending *p)
{
	free(p->tool);
	json_decref(p->args);
	json_decref(p->execution);
	json_decref(p->evidence);
	memset(p, 0, sizeof(*p));
}

/* Ends |p| with |outcome|: audit, unregister, then tell the waiting call. */
static void
pending_finish(struct approvals *a, struct pending *p,
    enum approval_outcome outcome, const char *approver, const char *text)
{
	approval_done_fn	 done = p->done;
	void			*arg = p->arg;
	static const char	*events[] = {
		"approval_granted", "approval_denied", "approval_expired"
	};
	json_t			*f;

	f = json_pack("{s:s, s:s, s:s, s:s?, s:s?}", "approval", p->id,
	    "tool", p->tool, "digest", p->digest, "by", approver,
	    outcome == APPROVAL_DENIED ? "reason" : "note", text);
	a->audit(a->audit_arg, events[outcome], f);
	json_decref(f);
	if (p->watch > 0)
		loop_unwatch(a->loop, p->watch);
	pending_clear(p);
	done(arg, outcome, approver, text);
}

static void
pending_expired(int fd, int why, void *arg)
{
	struct pending *p = arg;

	(void)fd;
	(void)why;
	p->watch = 0;
	pending_finish(p->owner, p, APPROVAL_EXPIRED, NULL, NULL);
}

/* Runs the notify hook with the request on its stdin; never waits for it. */
static void
notify_hook(const struct approvals *a, const struct pending *p)
{
	char	*text;
	json_t	*j;
	int	 pfd[2];
	pid_t	 pid;

	if (a->m->approvals.notify == NULL || a->m->approvals.notify[0] == NULL)
		return;
	/*
	 * The payload stays JSON, for the hook to parse.  jansson escapes C0
	 * controls; JSON_ENSURE_ASCII escapes the rest (C1, bidi, zero-width)
	 * as \uXXXX too, so a hook that logs or shows the payload as it is
	 * cannot pass them to a terminal.
	 */
	j = pending_json(a, p);
	text = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(j);
	if (text == NULL || pipe2(pfd, O_CLOEXEC) == -1) {
		free(text);
		return;
	}
	/* Double fork: the hook is reparented and never becomes our zombie. */
	if ((pid = fork()) == 0) {
		if (fork() != 0)
			_exit(0);
		if (dup2(pfd[0], 0) == -1)
			_exit(127);
		(void)close_fds_from(3, NULL, 0);
		execvp(a->m->approvals.notify[0], a->m->approvals.notify);
		_exit(127);
	}
	close(pfd[0]);
	if (pid > 0) {
		(void)write_all(pfd[1], text, strlen(text));
		(void)write_all(pfd[1], "\n", 1);
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
	}
	close(pfd[1]);
	free(text);
}

const char *
approvals_request(struct approvals *a, const char *tool, json_t *args,
    json_t *execution, json_t *evidence, int64_t wait_ms,
    approval_done_fn done, void *arg)
{
	struct pending	*p = NULL;
	unsigned char	 rnd[4];
	int64_t		 ttl;
	size_t		 i;
	json_t		*f;

	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (a->p[i].id[0] == '\0') {
			p = &a->p[i];
			break;
		}
	if (p == NULL)
		return NULL;
	randombytes_buf(rnd, sizeof(rnd));
	snprintf(p->id, sizeof(p->id), "%02x%02x%02x%02x", rnd[0], rnd[1],
	    rnd[2], rnd[3]);
	p->tool = xstrdup(tool);
	p->args = json_deep_copy(args);
	p->execution = execution != NULL ? json_deep_copy(execution) : NULL;
	p->evidence = evidence != NULL ? json_deep_copy(evidence) : NULL;
	approvals_digest(tool, args, execution, p->digest);
	ttl = a->m->approvals.ttl_seconds > 0 ?
	    a->m->approvals.ttl_seconds * 1000 : 15 * 60 * 1000;
	if (wait_ms <= 0 || wait_ms > ttl)
		wait_ms = ttl;
	p->requested = now_wall_ms();
	p->expires = p->requested + wait_ms;
	p->done = done;
	p->arg = arg;
	p->owner = a;
	p->watch = loop_watch(a->loop, -1, now_monotonic_ms() + wait_ms,
	    pending_expired, p);
	f = pending_json(a, p);
	a->audit(a->audit_arg, "approval_created", f);
	json_decref(f);
	notify_hook(a, p);
	return p->id;
}

void
approvals_cancel(struct approvals *a, const char *id)
{
	size_t i;

	for (i = 0; i < APPROVAL_MAX_PENDING; i++) {
		if (strcmp(a->p[i].id, id) != 0 || id[0] == '\0')
			continue;
		if (a->p[i].watch > 0)
			loop_unwatch(a->loop, a->p[i].watch);
		pending_clear(&a->p[i]);
	}
}

/* The control socket. */

static void
client_close(struct client *c)
{
	if (c->fd == -1)
		return;
	loop_unwatch(c->owner->loop, c->watch);
	close(c->fd);
	buf_free(c->in);
	c->in = NULL;
	c->fd = -1;
}

static void
client_reply(struct client *c, json_t *reply)
{
	char *s = json_dumps(reply, JSON_COMPACT);

	json_decref(reply);
	if (s == NULL || write_all(c->fd, s, strlen(s)) != 0 ||
	    write_all(c->fd, "\n", 1) != 0)
		client_close(c);
	free(s);
}

static void
client_request(struct client *c, const char *frame, size_t len)
{
	struct approvals	*a = c->owner;
	json_t			*req, *list;
	const char		*op, *id, *digest, *text;
	char			 who[128];
	size_t			 i;

	uid_name(c->uid, who, sizeof(who));
	if (!utf8_valid(frame, len) ||
	    (req = json_loadb(frame, len, JSON_REJECT_DUPLICATES, NULL)) == NULL) {
		client_reply(c, json_pack("{s:s}", "error", "malformed request"));
		return;
	}
	op = json_string_value(json_object_get(req, "op"));
	if (op != NULL && strcmp(op, "pending") == 0) {
		list = json_array();
		for (i = 0; i < APPROVAL_MAX_PENDING; i++)
			if (a->p[i].id[0] != '\0')
				json_array_append_new(list,
				    pending_json(a, &a->p[i]));
		client_reply(c, json_pack("{s:s, s:o}", "session", a->session,
		    "pending", list));
		json_decref(req);
		return;
	}
	if (op == NULL || (strcmp(op, "approve") != 0 &&
	    strcmp(op, "deny") != 0)) {
		client_reply(c, json_pack("{s:s}", "error", "unknown op"));
		json_decref(req);
		return;
	}
	id = json_string_value(json_object_get(req, "id"));
	digest = json_string_value(json_object_get(req, "digest"));
	text = json_string_value(json_object_get(req,
	    strcmp(op, "approve") == 0 ? "note" : "reason"));
	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (id != NULL && a->p[i].id[0] != '\0' &&
		    strcmp(a->p[i].id, id) == 0)
			break;
	if (i == APPROVAL_MAX_PENDING) {
		client_reply(c, json_pack("{s:s}", "error",
		    "no such pending approval (decided, expired or unknown)"));
	} else if (digest == NULL || strcmp(digest, a->p[i].digest) != 0) {
		client_reply(c, json_pack("{s:s}", "error",
		    "digest does not match the pending action; refusing"));
	} else if (strcmp(op, "deny") == 0 && (text == NULL || text[0] == '\0')) {
		client_reply(c, json_pack("{s:s}", "error",
		    "a denial needs a reason"));
	} else {
		client_reply(c, json_pack("{s:b}", "ok", 1));
		pending_finish(a, &a->p[i], strcmp(op, "approve") == 0 ?
		    APPROVAL_GRANTED : APPROVAL_DENIED, who, text);
	}
	json_decref(req);
}

static void
client_input(int fd, int why, void *arg)
{
	struct client	*c = arg;
	const char	*frame;
	size_t		 len;
	ssize_t		 n;
	int		 rc;

	(void)why;
	if ((n = buf_fill(c->in, fd)) <= 0) {
		client_close(c);
		return;
	}
	while (c->fd != -1 && (rc = buf_next_frame(c->in, &frame, &len)) != 0) {
		if (rc < 0) {
			client_close(c);
			return;
		}
		client_request(c, frame, len);
	}
}

static void
control_accept(int fd, int why, void *arg)
{
	struct approvals	*a = arg;
	struct ucred		 cred;
	socklen_t		 clen = sizeof(cred);
	struct client		*c = NULL;
	char			 who[128];
	int			 cfd;
	size_t			 i;

	(void)why;
	if ((cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) == -1)
		return;
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1) {
		close(cfd);
		return;
	}
	if (!is_approver(a, cred.uid)) {
		json_t *f;

		uid_name(cred.uid, who, sizeof(who));
		f = json_pack("{s:s, s:i}", "peer", who, "pid", (int)cred.pid);
		a->audit(a->audit_arg, "approval_refused_peer", f);
		json_decref(f);
		(void)write_all(cfd, "{\"error\":\"not an approver\"}\n", 28);
		close(cfd);
		return;
	}
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		if (a->c[i].fd == -1) {
			c = &a->c[i];
			break;
		}
	if (c == NULL) {
		close(cfd);
		return;
	}
	c->fd = cfd;
	c->uid = cred.uid;
	c->owner = a;
	if ((c->in = buf_new(CONTROL_MAX_FRAME)) == NULL)
		fatalx("out of memory");
	c->watch = loop_watch(a->loop, cfd, INT64_MAX, client_input, c);
}

struct approvals *
approvals_new(const struct manifest *m, const char *session_id,
    struct loop *loop, approval_audit_fn audit, void *audit_arg, char *err,
    size_t errlen)
{
	struct approvals	*a;
	struct sockaddr_un	 sun;
	char			 dir[PATH_MAX];
	struct stat		 st;
	size_t			 i;
	mode_t			 old;

	if (approvals_runtime_dir(dir, sizeof(dir)) != 0 ||
	    (mkdir(dir, 0700) == -1 && errno != EEXIST) ||
	    lstat(dir, &st) == -1) {
		snprintf(err, errlen, "runtime directory %s: %s", dir,
		    strerror(errno));
		return NULL;
	}
	/* Fail closed if someone else could reach the sockets. */
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0077) != 0) {
		snprintf(err, errlen, "runtime directory %s must be a 0700 "
		    "directory owned by uid %u", dir, (unsigned)geteuid());
		return NULL;
	}
	a = xcalloc(1, sizeof(*a));
	a->m = m;
	a->loop = loop;
	a->audit = audit;
	a->audit_arg = audit_arg;
	snprintf(a->session, sizeof(a->session), "%s", session_id);
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		a->c[i].fd = -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (snprintf(a->path, sizeof(a->path), "%s/%s.sock", dir,
	    session_id) >= (int)sizeof(sun.sun_path)) {
		snprintf(err, errlen, "control socket path too long");
		free(a);
		return NULL;
	}
	memcpy(sun.sun_path, a->path, strlen(a->path) + 1);
	if ((a->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		free(a);
		return NULL;
	}
	old = umask(0177);
	if (bind(a->lfd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    chmod(a->path, 0600) == -1 || listen(a->lfd, 8) == -1) {
		umask(old);
		snprintf(err, errlen, "control socket %s: %s", a->path,
		    strerror(errno));
		close(a->lfd);
		free(a);
		return NULL;
	}
	umask(old);
	a->lwatch = loop_watch(loop, a->lfd, INT64_MAX, control_accept, a);
	return a;
}

void
approvals_free(struct approvals *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		client_close(&a->c[i]);
	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (a->p[i].id[0] != '\0') {
			if (a->p[i].watch > 0)
				loop_unwatch(a->loop, a->p[i].watch);
			pending_clear(&a->p[i]);
		}
	loop_unwatch(a->loop, a->lwatch);
	close(a->lfd);
	unlink(a->path);
	free(a);
}
