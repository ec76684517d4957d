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

#include "broker/audit.h"
#include "broker/cowview.h"
#include "broker/viewfreeze.h"
#include "common/errors.h"
#include "policy/manifest.h"
#include "proxy/ipc.h"
#include "runner/runner.h"
#include "supervisor/cowrun.h"
#include "supervisor/cowsession.h"
#include "supervisor/session.h"

/* How long the agent's sandbox may take to mount its workspace. */
#define VIEW_WAIT_MS 60000

void
cowrun_init(struct cowrun *cr)
{
	memset(cr, 0, sizeof(*cr));
	cr->sock[0] = cr->sock[1] = -1;
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
		if (rc != 0) {
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
	f = json_pack("{s:s, s:b, s:s}", "cowSession", cr->cs->id, "resumed",
	    cr->resumed, "upper", cr->cs->upper);
	rc = audit_append(a, "cow_session", f);
	json_decref(f);
	if (rc != 0) {
		snprintf(err, errlen, "the audit log cannot be written");
		goto fail;
	}
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
	if (cr->cs == NULL)
		return;
	fprintf(stderr,
	    "airlock: the agent's changes stay in session %s until you run "
	    "airlock diff|commit|discard %s\n",
	    cr->cs->id, cr->cs->id);
	cowsession_free(cr->cs);
	cr->cs = NULL;
}
