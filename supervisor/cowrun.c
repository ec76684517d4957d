/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* cowrun: see cowrun.h. */
#include "config.h"

#include <sys/socket.h>
#include <sys/utsname.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/approval.h"
#include "broker/audit.h"
#include "broker/audit_verify.h"
#include "broker/cowview.h"
#include "broker/ledger.h"
#include "broker/viewfreeze.h"
#include "common/errors.h"
#include "policy/manifest.h"
#include "proxy/ipc.h"
#include "runner/runner.h"
#include "supervisor/cowrun.h"
#include "supervisor/cowsession.h"
#include "supervisor/hostkey.h"
#include "supervisor/session.h"
#include "common/util.h"

/* How long the agent's sandbox may take to mount its workspace. */
#define VIEW_WAIT_MS 60000

void
cowrun_init(struct cowrun *cr)
{
	memset(cr, 0, sizeof(*cr));
	cr->sock[0] = cr->sock[1] = -1;
	cr->time_left_ms = INT64_MAX;
}

int
cowrun_kernel_ok(char *rel, size_t rellen)
{
	struct utsname u;
	int maj = 0, min = 0;

	if (uname(&u) == -1 || sscanf(u.release, "%d.%d", &maj, &min) != 2) {
		snprintf(rel, rellen, "unknown");
		return 0;
	}
	snprintf(rel, rellen, "%s", u.release);
	return maj > 5 || (maj == 5 && min >= 11);
}

/*
 * The run that last used the session: cs->dir/last_run, or the run
 * that made it (before any run wrote last_run).  0, or -1 said.
 */
static int
last_run(const struct cowsession *cs, char id[64], char *err, size_t errlen)
{
	char path[PATH_MAX + 16], buf[80];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/last_run", cs->dir);
	if ((fp = fopen(path, "re")) == NULL) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		snprintf(id, 64, "%s", cs->id);
		return 0;
	}
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (n == 0 || n >= 64 ||
	    strspn(buf,
		"0123456789abcdefghijklmnopqrstu"
		"vwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_") != n) {
		snprintf(err, errlen, "%s: not a session id", path);
		return -1;
	}
	memcpy(id, buf, n + 1);
	return 0;
}

/* Records |id| (this run) as the session's last run, durably. */
static int
set_last_run(
    const struct cowsession *cs, const char *id, char *err, size_t errlen)
{
	char path[PATH_MAX + 16], tmp[PATH_MAX + 16];
	FILE *fp;
	int ok;

	snprintf(path, sizeof(path), "%s/last_run", cs->dir);
	snprintf(tmp, sizeof(tmp), "%s/last_run.new", cs->dir);
	if ((fp = fopen(tmp, "we")) == NULL) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return AL_ERR_IO;
	}
	ok = fprintf(fp, "%s\n", id) > 0 && fflush(fp) == 0 &&
	    fsync(fileno(fp)) == 0;
	if (fclose(fp) != 0 || !ok || rename(tmp, path) == -1) {
		snprintf(err, errlen, "%s: cannot be written", path);
		(void)unlink(tmp);
		return AL_ERR_IO;
	}
	return 0;
}

/*
 * The "run_budget" record of the run |run|'s log, which must verify,
 * closed, under a trusted host key.  Returns 0 with *out (a new
 * reference), or a negative code said.
 */
static int
read_carry(const struct cowsession *cs, const char *run, json_t **out,
    char *err, size_t errlen)
{
	unsigned char keys[HOSTKEY_MAX_TRUSTED][32];
	struct audit_verify_result res;
	char path[PATH_MAX + 128], *slash, *line = NULL;
	size_t nkeys, cap = 0;
	ssize_t n;
	json_t *rec, *carry = NULL;
	FILE *fp;
	int rc;

	*out = NULL;
	/* STATE/sessions/ID/cow: the run's log is STATE/sessions/RUN. */
	snprintf(path, sizeof(path), "%s", cs->dir);
	if ((slash = strrchr(path, '/')) != NULL)
		*slash = '\0';
	if (slash == NULL || (slash = strrchr(path, '/')) == NULL) {
		snprintf(err, errlen, "%s: not a session directory", cs->dir);
		return AL_ERR_FORMAT;
	}
	snprintf(slash + 1, sizeof(path) - (size_t)(slash + 1 - path),
	    "%s/audit.jsonl", run);
	if ((nkeys = hostkey_trusted(keys, HOSTKEY_MAX_TRUSTED)) == 0) {
		snprintf(
		    err, errlen, "no trusted host key to verify %s with", path);
		return AL_ERR_CRYPTO;
	}
	if ((fp = fopen(path, "re")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	rc = audit_verify_fp_trusted(
	    fp, (const unsigned char(*)[32])keys, nkeys, NULL, &res);
	if (rc == AUDIT_VERIFY_OPEN) {
		snprintf(err, errlen,
		    "its last run %s did not end (its audit "
		    "log %s has no session_end): what it spent is unknown",
		    run, path);
		fclose(fp);
		return AL_ERR_CONFLICT;
	}
	if (rc != AUDIT_VERIFY_CLOSED ||
	    !session_log_matches(path, res.session) ||
	    strcmp(res.session, run) != 0) {
		snprintf(err, errlen,
		    "the audit log of its last run, %s, "
		    "does not verify%s%s",
		    path, res.reason[0] ? ": " : "", res.reason);
		fclose(fp);
		return rc < 0 ? rc : AL_ERR_CRYPTO;
	}
	rewind(fp);
	while ((n = getline(&line, &cap, fp)) > 0) {
		if ((rec = audit_record_parse(line, (size_t)n - 1)) == NULL)
			continue;
		if (strcmp(json_string_value(json_object_get(rec, "event")),
			"run_budget") == 0) {
			json_decref(carry);
			carry = json_incref(json_object_get(rec, "fields"));
		}
		json_decref(rec);
	}
	free(line);
	fclose(fp);
	if (carry == NULL) {
		snprintf(err, errlen,
		    "its last run %s recorded no run budget "
		    "in %s (an older airlock?)",
		    run, path);
		return AL_ERR_NOT_FOUND;
	}
	*out = carry;
	return 0;
}

/*
 * What the resumed session spent, from its last run's log, into
 * cr->carry; refused when it cannot be known or is spent.
 */
static int
carry_budget(
    struct cowrun *cr, const struct manifest *m, char *err, size_t errlen)
{
	struct ledger *l;
	char run[64], why[PATH_MAX + 512];
	const char *spent = NULL;
	int64_t now = now_monotonic_ms();
	int rc;

	if (last_run(cr->cs, run, why, sizeof(why)) != 0 ||
	    (rc = read_carry(cr->cs, run, &cr->carry, why, sizeof(why))) != 0) {
		snprintf(err, errlen,
		    "session %s cannot be resumed: %s; "
		    "airlock diff, commit or discard it",
		    cr->cs->id, why);
		return AL_ERR_CONFLICT;
	}
	l = ledger_new(m, now);
	if ((rc = ledger_restore(l, cr->carry, now, why, sizeof(why))) != 0 ||
	    (rc = approvals_denied_restore(NULL,
		 json_object_get(cr->carry, "deniedActions"), why,
		 sizeof(why))) != 0) {
		ledger_free(l);
		snprintf(err, errlen,
		    "session %s cannot be resumed: %s (run "
		    "%s)",
		    cr->cs->id, why, run);
		return rc;
	}
	cr->time_left_ms = ledger_time_left(l, now);
	if (ledger_stopped(l) != NULL)
		spent = ledger_stopped(l);
	else if (cr->time_left_ms == 0)
		spent = "maxElapsedMinutes";
	else if (m->budget.max_model_steps >= 0 &&
	    ledger_steps(l) >= m->budget.max_model_steps)
		spent = "maxModelSteps";
	else if (ledger_refusals_spent(l))
		spent = "maxRefusedCalls";
	if (spent != NULL)
		snprintf(err, errlen,
		    "session %s has spent its run budget "
		    "(runBudget.%s, as of run %s): it cannot be resumed; "
		    "airlock diff, commit or discard it",
		    cr->cs->id, spent, run);
	ledger_free(l);
	return spent != NULL ? AL_ERR_BUDGET : 0;
}

int
cowrun_prepare(struct cowrun *cr, const struct session *s, struct audit *a,
    const struct manifest *m, const char *workspace, const char *resume,
    struct runner_request *req, char *err, size_t errlen)
{
	char rel[128], real[PATH_MAX], digest[65];
	json_t *f;
	int rc;

	if (geteuid() != 0 && !cowrun_kernel_ok(rel, sizeof(rel))) {
		snprintf(err, errlen,
		    "a copy-on-write session needs overlayfs in a user "
		    "namespace (Linux 5.11 or later) when airlock is not "
		    "root; this kernel is %s",
		    rel);
		return AL_ERR_UNSUPPORTED;
	}
	if (resume != NULL) {
		if ((rc = cowsession_open(
			 resume, COWSESSION_LOCK, &cr->cs, err, errlen)) != 0)
			return rc;
		cr->resumed = 1;
		sodium_bin2hex(
		    digest, sizeof(digest), m->digest, sizeof(m->digest));
		if (realpath(workspace, real) == NULL ||
		    strcmp(real, cr->cs->workspace) != 0) {
			snprintf(err, errlen,
			    "session %s is of the workspace %s, not %s",
			    cr->cs->id, cr->cs->workspace, workspace);
			rc = AL_ERR_CONFLICT;
		} else if (strcmp(digest, cr->cs->digest) != 0) {
			snprintf(err, errlen,
			    "session %s began under another manifest (%s, "
			    "sha256 %.16s...); resume it with that one",
			    cr->cs->id,
			    cr->cs->manifest[0] ? cr->cs->manifest : "built-in",
			    cr->cs->digest);
			rc = AL_ERR_CONFLICT;
		} else if (cr->cs->userxattr != (geteuid() != 0)) {
			snprintf(err, errlen, "session %s was made %s root",
			    cr->cs->id, cr->cs->userxattr ? "without" : "as");
			rc = AL_ERR_CONFLICT;
		}
		if (rc == 0)
			rc = carry_budget(cr, m, err, errlen);
		if (rc != 0) {
			json_decref(cr->carry);
			cr->carry = NULL;
			cowsession_free(cr->cs);
			cr->cs = NULL;
			return rc;
		}
	} else if ((rc = cowsession_create(s->dir, s->id, workspace, m, &cr->cs,
			err, errlen)) != 0)
		return rc;
	if ((rc = cowsession_reset_work(cr->cs, err, errlen)) != 0)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cr->sock) ==
	    -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		rc = AL_ERR_SYSTEM;
		goto fail;
	}
	f = json_pack("{s:s, s:b, s:s, s:O?}", "cowSession", cr->cs->id,
	    "resumed", cr->resumed, "upper", cr->cs->upper, "carried",
	    cr->carry);
	rc = audit_append(a, "cow_session", f);
	json_decref(f);
	if (rc != 0) {
		snprintf(err, errlen, "the audit log cannot be written");
		goto fail;
	}
	/* Before the agent starts: a crash leaves this run's open log. */
	if ((rc = set_last_run(cr->cs, s->id, err, errlen)) != 0)
		goto fail;
	req->upper_dir = cr->cs->upper;
	req->work_dir = cr->cs->work;
	req->upper_durable = 1;
	req->send_view = 1;
	req->view_sock = cr->sock[1];
	return 0;
fail:
	cowrun_end(cr);
	return rc;
}

/*
 * One message from the agent's sandbox: the byte |tag| with a descriptor
 * (*fd, the caller's); 0, or -1 with *fd -1.
 */
static int
recv_tagged(int sock, char tag, int *fd)
{
	char msg[1];
	size_t len = 0;

	if (proxy_recv_fd(sock, fd, msg, sizeof(msg), &len) == 1 && *fd != -1 &&
	    len == 1 && msg[0] == tag)
		return 0;
	if (*fd != -1)
		close(*fd);
	*fd = -1;
	return -1;
}

int
cowrun_attach(struct cowrun *cr, struct broker *b, char *err, size_t errlen)
{
	struct pollfd pfd;
	int fd = -1, userns = -1, mntns = -1, rc;

	close(cr->sock[1]);
	cr->sock[1] = -1;
	pfd.fd = cr->sock[0];
	pfd.events = POLLIN;
	if ((rc = poll(&pfd, 1, VIEW_WAIT_MS)) <= 0) {
		snprintf(err, errlen,
		    "the agent's sandbox sent no view in %d s",
		    VIEW_WAIT_MS / 1000);
		return AL_ERR_TIMEOUT;
	}
	rc = recv_tagged(cr->sock[0], 'V', &fd);
	/* The namespaces it was made in follow it (viewfreeze_set_ns()). */
	if (rc == 0 &&
	    (recv_tagged(cr->sock[0], 'U', &userns) != 0 ||
		recv_tagged(cr->sock[0], 'M', &mntns) != 0))
		rc = -1;
	close(cr->sock[0]);
	cr->sock[0] = -1;
	if (rc != 0) {
		if (fd != -1)
			close(fd);
		if (userns != -1)
			close(userns);
		snprintf(err, errlen,
		    "the agent's sandbox could not be built (no view)");
		return AL_ERR_SYSTEM;
	}
	rc = cowview_attach(b, fd, cr->cs->upper);
	close(fd);
	if (rc != 0) {
		close(userns);
		close(mntns);
		snprintf(err, errlen, "%s", strerror(errno));
		return rc;
	}
	viewfreeze_set_ns(b, userns, mntns);
	return 0;
}

void
cowrun_end(struct cowrun *cr)
{
	int i;

	for (i = 0; i < 2; i++)
		if (cr->sock[i] != -1) {
			close(cr->sock[i]);
			cr->sock[i] = -1;
		}
	json_decref(cr->carry);
	cr->carry = NULL;
	if (cr->cs == NULL)
		return;
	fprintf(stderr,
	    "airlock: the agent's changes stay in session %s until you run "
	    "airlock diff|commit|discard %s\n",
	    cr->cs->id, cr->cs->id);
	cowsession_free(cr->cs);
	cr->cs = NULL;
}
