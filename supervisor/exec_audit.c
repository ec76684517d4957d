/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* exec_audit: the audit log of one "airlock exec" (exec_audit.h). */
#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "broker/audit.h"
#include "common/util.h"
#include "supervisor/exec_audit.h"
#include "supervisor/session.h"

struct exec_audit {
	pthread_t thread;
	int joined; /* 1: no thread to wait for */
	json_t *start;
	struct session sess;
	struct audit *log; /* NULL until exec_start is written */
	int rc; /* 0, or -1 with err */
	char err[PATH_MAX + 64];
	int finished; /* exec_end written (or tried) and the log closed */
	int end_rc;
};

/* Makes the session, opens its log and writes exec_start to the disk. */
static void *
write_start(void *arg)
{
	struct exec_audit *x = arg;
	struct audit *a;

	if (session_create(&x->sess, x->err, sizeof(x->err)) != 0)
		goto fail;
	if (audit_open(x->sess.audit_path, x->sess.id, &a) != 0) {
		snprintf(x->err, sizeof(x->err), "cannot open the audit log %s",
		    x->sess.audit_path);
		goto fail;
	}
	if (audit_append_durable(a, "exec_start", x->start) != 0) {
		snprintf(x->err, sizeof(x->err),
		    "cannot write the audit log "
		    "%s",
		    x->sess.audit_path);
		audit_close(a);
		goto fail;
	}
	x->log = a;
	return NULL;
fail:
	x->rc = -1;
	return NULL;
}

struct exec_audit *
exec_audit_begin(json_t *start)
{
	struct exec_audit *x;

	x = xcalloc(1, sizeof(*x));
	x->start = json_incref(start);
	/* No thread to be had: the same work, here and now. */
	if (pthread_create(&x->thread, NULL, write_start, x) != 0) {
		x->joined = 1;
		(void)write_start(x);
	}
	return x;
}

int
exec_audit_ready(struct exec_audit *x, char *err, size_t errlen)
{
	if (!x->joined) {
		if (pthread_join(x->thread, NULL) != 0) {
			/* Cannot tell whether the record was written. */
			x->rc = -1;
			snprintf(x->err, sizeof(x->err),
			    "the audit log's "
			    "writer was lost");
		}
		x->joined = 1;
	}
	if (x->rc != 0)
		snprintf(err, errlen, "%s", x->err);
	return x->rc;
}

const char *
exec_audit_path(const struct exec_audit *x)
{
	return x->joined ? x->sess.audit_path : "";
}

int
exec_audit_gate(void *arg, char *err, size_t errlen)
{
	return exec_audit_ready(arg, err, errlen);
}

int
exec_audit_finish(struct exec_audit *x, json_t *end)
{
	char err[8];

	if (x->finished)
		return x->end_rc;
	x->finished = 1;
	if (exec_audit_ready(x, err, sizeof(err)) == 0) {
		if (audit_append(x->log, "exec_end", end) != 0)
			x->end_rc = -1;
		audit_close(x->log);
		x->log = NULL;
	}
	return x->end_rc;
}

void
exec_audit_on_status(void *arg, int wait_status)
{
	json_t *end;

	if (WIFEXITED(wait_status))
		end = json_pack("{s:i}", "exitCode", WEXITSTATUS(wait_status));
	else if (WIFSIGNALED(wait_status))
		end = json_pack("{s:i}", "signal", WTERMSIG(wait_status));
	else
		return;
	if (end != NULL)
		(void)exec_audit_finish(arg, end);
	json_decref(end);
}

int
exec_audit_end(struct exec_audit *x, json_t *end)
{
	int rc;

	if (x == NULL)
		return 0;
	rc = exec_audit_finish(x, end);
	json_decref(x->start);
	free(x);
	return rc;
}
