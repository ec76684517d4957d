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
#include "broker/audit_ship.h"
#include "common/paths.h"
#include "common/util.h"
#include "supervisor/exec_audit.h"
#include "supervisor/hostkey.h"
#include "supervisor/session.h"

struct exec_audit {
	pthread_t thread;
	int joined; /* 1: no thread to wait for */
	json_t *start;
	const struct manifest *m;
	char *workspace;
	struct audit_ship *ship;
	struct session sess;
	struct audit *log; /* NULL until exec_start is written */
	int rc; /* 0, or -1 with err */
	char err[PATH_MAX + 64];
	int finished; /* exec_end written (or tried) and the log closed */
	int end_rc;
};

/*
 * Makes the session, opens its log (its key certified by the host key,
 * its records copied to journald or syslog as audit.conf says, like
 * airlock run's) and writes exec_start to the disk.
 */
static void *
write_start(void *arg)
{
	struct exec_audit *x = arg;
	char hostpub[AUDIT_PUBKEY_HEX_LEN + 1], hostkey[PATH_MAX];
	char confdir[PATH_MAX], conf[PATH_MAX + 16];
	struct audit *a;
	json_t *fields;
	int rc;

	if (session_create(&x->sess, x->err, sizeof(x->err)) != 0)
		goto fail;
	if (hostkey_ensure(hostpub, x->err, sizeof(x->err)) != 0 ||
	    hostkey_path(hostkey, sizeof(hostkey)) != 0) {
		snprintf(x->err + strlen(x->err),
		    sizeof(x->err) - strlen(x->err), " (the audit host key)");
		goto fail;
	}
	if (paths_config_dir(confdir, sizeof(confdir)) != 0) {
		snprintf(x->err, sizeof(x->err),
		    "the configuration directory path is too long");
		goto fail;
	}
	snprintf(conf, sizeof(conf), "%s/audit.conf", confdir);
	if (audit_ship_load(conf, &x->ship, x->err, sizeof(x->err)) != 0)
		goto fail;
	audit_set_default_sink(
	    x->ship != NULL ? audit_ship_record : NULL, x->ship);
	if ((fields = session_start_fields("exec", x->m, x->workspace, NULL)) ==
	    NULL) {
		snprintf(x->err, sizeof(x->err), "out of memory");
		goto fail;
	}
	/* session_start and exec_start: one write, one sync. */
	rc = audit_open_certified_first(x->sess.audit_path, x->sess.id,
	    hostkey, fields, "exec_start", x->start, &a);
	json_decref(fields);
	if (rc != 0) {
		snprintf(x->err, sizeof(x->err),
		    "cannot write the audit log %s", x->sess.audit_path);
		goto fail;
	}
	x->log = a;
	return NULL;
fail:
	x->rc = -1;
	return NULL;
}

struct exec_audit *
exec_audit_begin(json_t *start, const struct manifest *m, const char *workspace)
{
	struct exec_audit *x;

	x = xcalloc(1, sizeof(*x));
	x->start = json_incref(start);
	x->m = m;
	x->workspace = xstrdup(workspace);
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
		/* Written with session_end: one signature, one sync. */
		audit_batch(x->log, 1);
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
	if (x->ship != NULL) {
		audit_set_default_sink(NULL, NULL);
		audit_ship_free(x->ship);
	}
	json_decref(x->start);
	free(x->workspace);
	free(x);
	return rc;
}
