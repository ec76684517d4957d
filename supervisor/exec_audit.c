/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* exec_audit: the audit log of one "airlock exec" (exec_audit.h). */
#include "config.h"

#include <stdio.h>

#include "broker/audit.h"
#include "supervisor/exec_audit.h"

int
exec_audit_start(json_t *start, struct session *s, struct audit **out,
    char *err, size_t errlen)
{
	struct audit *a;

	*out = NULL;
	if (session_create(s, err, errlen) != 0)
		return -1;
	if (audit_open(s->audit_path, s->id, &a) != 0) {
		snprintf(
		    err, errlen, "cannot open the audit log %s", s->audit_path);
		return -1;
	}
	if (audit_append_durable(a, "exec_start", start) != 0) {
		snprintf(err, errlen, "cannot write the audit log %s",
		    s->audit_path);
		audit_close(a);
		return -1;
	}
	*out = a;
	return 0;
}

int
exec_audit_end(struct audit *a, json_t *end)
{
	int rc = 0;

	if (a == NULL)
		return 0;
	if (audit_append(a, "exec_end", end) != 0)
		rc = -1;
	audit_close(a);
	return rc;
}
