/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * notify: see notify.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker/notify.h"
#include "common/log.h"
#include "common/util.h"
#include "runner/runner.h"

#define NOTIFY_MAX_RUNNING 8
#define NOTIFY_OUTPUT_CAP 16384

struct hook {
	struct runner_proc *proc; /* NULL when free */
	struct runner_request req;
	char **envp;
	char event[16];
	char approval[32];
	char egress[64];
	int watch;
	struct notifier *owner;
};

struct notifier {
	const struct manifest *m;
	struct loop *loop;
	struct egress *egress;
	notify_audit_fn audit;
	void *audit_arg;
	struct sandbox_policy policy; /* the manifest's, adjusted */
	char emptydir[64]; /* the hook's "workspace" */
	int have_dir;
	unsigned long long seq;
	struct hook h[NOTIFY_MAX_RUNNING];
};

static void
strv_append(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

static void
hook_free_env(struct hook *h)
{
	strv_free(h->envp);
	h->envp = NULL;
}

/*
 * Whether a hook's output can go into the log as text: UTF-8 without a
 * NUL byte.  jansson writes a NUL as \u0000, which no reader of the log
 * (audit verify, JSON_ALLOW_NUL unset) parses back: a hook that printed
 * one made the honest log TAMPERED at that line, and nothing after it
 * was verified any more.
 */
static int
hook_text(const char *s, size_t len)
{
	return s != NULL && utf8_valid(s, len) && memchr(s, '\0', len) == NULL;
}

/* The run is over: audit it, release the slot. */
static void
hook_done(struct hook *h)
{
	struct notifier *n = h->owner;
	struct runner_result res;
	json_t *f, *out;
	int rc;

	if (h->egress[0] != '\0')
		egress_detach(n->egress, h->egress);
	memset(&res, 0, sizeof(res));
	rc = runner_proc_finish(h->proc, &res);
	h->proc = NULL;
	if (hook_text(res.out, res.out_len))
		out = json_stringn(res.out, res.out_len);
	else
		out = json_string(res.out_len > 0
			? "(output is not text: not UTF-8, or a NUL byte)"
			: "");
	f = json_pack("{s:s, s:s, s:b, s:i, s:i, s:b, s:o, s:s?}", "event",
	    h->event, "approval", h->approval, "exited", rc == 0 && res.exited,
	    "exitCode", res.exit_code, "signal", res.signal, "timedOut",
	    res.timed_out, "output", out, "setupError",
	    res.setup_failed ? res.setup_error : NULL);
	if (res.err_len > 0 && hook_text(res.err, res.err_len))
		json_object_set_new(
		    f, "stderr", json_stringn(res.err, res.err_len));
	n->audit(n->audit_arg, "approval_notify", f);
	json_decref(f);
	runner_result_clear(&res);
	hook_free_env(h);
	if (h->req.stdin_fd != -1)
		close(h->req.stdin_fd);
}

static void
hook_event(int fd, int why, void *arg)
{
	struct hook *h = arg;
	struct notifier *n = h->owner;

	(void)fd;
	(void)why;
	if (runner_proc_step(h->proc) == 0) {
		loop_set_deadline(
		    n->loop, h->watch, runner_proc_deadline(h->proc));
		return;
	}
	loop_unwatch(n->loop, h->watch);
	hook_done(h);
}

/* The clean environment: fixed variables, then the ones named. */
static char **
hook_env(const struct notifier *n, const char *event)
{
	const struct approval_policy *ap = &n->m->approvals;
	const char *v;
	char **envp = NULL, *s;
	size_t ne = 0, i;

	strv_append(&envp, &ne, xstrdup("PATH=/usr/local/bin:/usr/bin:/bin"));
	strv_append(&envp, &ne, xstrdup("LANG=C.UTF-8"));
	strv_append(&envp, &ne, xstrdup("HOME=/tmp"));
	strv_append(&envp, &ne, xstrdup("TMPDIR=/tmp"));
	xasprintf(&s, "AIRLOCK_NOTIFY_EVENT=%s", event);
	strv_append(&envp, &ne, s);
	for (i = 0; i < ap->nnotify_env; i++) {
		if ((v = getenv(ap->notify_env[i])) == NULL)
			continue;
		xasprintf(&s, "%s=%s", ap->notify_env[i], v);
		strv_append(&envp, &ne, s);
	}
	return envp;
}

void
notifier_fire(struct notifier *n, const char *event, const char *session,
    json_t *approval, const char *by, const char *text)
{
	const struct approval_policy *ap;
	struct hook *h = NULL;
	unsigned bit;
	char *payload, err[256];
	json_t *j, *f;
	size_t i;
	int fd, rc, psock[2] = { -1, -1 };

	if (n == NULL || n->m->approvals.notify == NULL)
		return;
	ap = &n->m->approvals;
	bit = strcmp(event, "created") == 0   ? NOTIFY_EV_CREATED
	    : strcmp(event, "expired") == 0   ? NOTIFY_EV_EXPIRED
	    : strcmp(event, "withdrawn") == 0 ? NOTIFY_EV_WITHDRAWN
					      : NOTIFY_EV_DECIDED;
	if ((ap->notify_events & bit) == 0)
		return;
	for (i = 0; i < NOTIFY_MAX_RUNNING; i++)
		if (n->h[i].proc == NULL) {
			h = &n->h[i];
			break;
		}
	if (h == NULL) {
		f = json_pack("{s:s, s:s?, s:s}", "event", event, "approval",
		    json_string_value(json_object_get(approval, "id")),
		    "setupError", "too many notify hooks are running");
		n->audit(n->audit_arg, "approval_notify", f);
		json_decref(f);
		return;
	}
	memset(h, 0, sizeof(*h));
	h->owner = n;
	snprintf(h->event, sizeof(h->event), "%s", event);
	snprintf(h->approval, sizeof(h->approval), "%s",
	    json_string_value(json_object_get(approval, "id")) != NULL
		? json_string_value(json_object_get(approval, "id"))
		: "");
	j = json_pack("{s:i, s:s, s:s, s:O}", "version", 1, "event", event,
	    "session", session, "approval", approval);
	if (by != NULL)
		json_object_set_new(j, "decision",
		    json_pack("{s:s, s:s?}", "by", by, "text", text));
	else if (strcmp(event, "withdrawn") == 0 && text != NULL)
		json_object_set_new(
		    j, "withdrawal", json_pack("{s:s}", "reason", text));
	/* ASCII only: a hook that shows it as it is cannot pass controls. */
	payload = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(j);
	if (payload == NULL)
		fatalx("json_dumps");
	/* The payload on stdin, from a sealed-size memory file. */
	if ((fd = memfd_create("airlock-notify", MFD_CLOEXEC)) == -1 ||
	    write_all(fd, payload, strlen(payload)) != 0 ||
	    write_all(fd, "\n", 1) != 0 || lseek(fd, 0, SEEK_SET) == -1) {
		snprintf(err, sizeof(err), "payload: %s", strerror(errno));
		free(payload);
		if (fd != -1)
			close(fd);
		goto fail;
	}
	free(payload);
	h->envp = hook_env(n, event);
	h->req.stdin_fd = fd;
	if (ap->notify_net.nhosts > 0) {
		if (n->egress == NULL ||
		    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, psock) ==
			-1) {
			snprintf(err, sizeof(err), "no egress for the hook");
			close(fd);
			hook_free_env(h);
			goto fail;
		}
		egress_env(&h->envp);
		h->req.use_proxy = 1;
		h->req.proxy_sock = psock[1];
	}
	h->req.argv = ap->notify;
	h->req.envp = h->envp;
	h->req.workspace = n->emptydir;
	h->req.workspace_readonly = 1;
	h->req.policy = &n->policy;
	h->req.timeout_ms = ap->notify_timeout_ms;
	h->req.output_cap = NOTIFY_OUTPUT_CAP;
	rc = runner_start(&h->req, &h->proc, err, sizeof(err));
	if (psock[1] != -1)
		close(psock[1]);
	if (rc == 0 && psock[0] != -1) {
		snprintf(h->egress, sizeof(h->egress), "notify-%llu", ++n->seq);
		if (egress_attach(n->egress, psock[0], h->egress,
			&ap->notify_net, err, sizeof(err)) != 0) {
			h->egress[0] = '\0';
			runner_proc_kill(h->proc);
			runner_proc_wait(h->proc);
			{
				struct runner_result res;

				memset(&res, 0, sizeof(res));
				(void)runner_proc_finish(h->proc, &res);
				runner_result_clear(&res);
			}
			h->proc = NULL;
			rc = -1;
		}
	}
	if (psock[0] != -1)
		close(psock[0]);
	if (rc != 0) {
		h->proc = NULL;
		close(fd);
		hook_free_env(h);
		goto fail;
	}
	h->watch = loop_watch(n->loop, runner_proc_fd(h->proc),
	    runner_proc_deadline(h->proc), hook_event, h);
	return;
fail:
	f = json_pack("{s:s, s:s, s:s}", "event", event, "approval",
	    h->approval, "setupError", err);
	n->audit(n->audit_arg, "approval_notify", f);
	json_decref(f);
	log_warnx("the notify hook could not start: %s", err);
}

struct notifier *
notifier_new(const struct manifest *m, struct loop *loop, struct egress *egress,
    notify_audit_fn audit, void *audit_arg, char *err, size_t errlen)
{
	struct notifier *n = xcalloc(1, sizeof(*n));

	n->m = m;
	n->loop = loop;
	n->egress = egress;
	n->audit = audit;
	n->audit_arg = audit_arg;
	if (m->approvals.notify == NULL)
		return n;
	/* The tools' sandbox, with the hook's own network and no workspace. */
	n->policy = m->sandbox;
	n->policy.network = m->approvals.notify_net.nhosts > 0;
	n->policy.workspace_readonly = 1;
	n->policy.read_write = NULL;
	n->policy.nread_write = 0;
	n->policy.protected = NULL;
	n->policy.nprotected = 0;
	n->policy.home = NULL;
	n->policy.broker_dir = NULL;
	snprintf(
	    n->emptydir, sizeof(n->emptydir), "/tmp/airlock-notify.XXXXXX");
	if (mkdtemp(n->emptydir) == NULL || chmod(n->emptydir, 0555) == -1) {
		snprintf(
		    err, errlen, "notify hook directory: %s", strerror(errno));
		free(n);
		return NULL;
	}
	n->have_dir = 1;
	return n;
}

/*
 * At the end of a session the hooks still running (a "decided" or
 * "expired" one, typically) are let finish, each within its own timeout,
 * which the runner enforces: a notification is not lost to teardown.
 */
void
notifier_free(struct notifier *n)
{
	struct pollfd pfd;
	int64_t left;
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < NOTIFY_MAX_RUNNING; i++) {
		struct hook *h = &n->h[i];

		if (h->proc == NULL)
			continue;
		loop_unwatch(n->loop, h->watch);
		while (runner_proc_step(h->proc) == 0) {
			pfd.fd = runner_proc_fd(h->proc);
			pfd.events = POLLIN;
			left =
			    runner_proc_deadline(h->proc) - now_monotonic_ms();
			if (left < 0)
				left = 0;
			if (left > 1000)
				left = 1000;
			(void)poll(&pfd, 1, (int)left);
		}
		hook_done(h);
	}
	if (n->have_dir)
		(void)rmdir(n->emptydir);
	free(n);
}
