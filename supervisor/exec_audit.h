/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * exec_audit: the audit log of one "airlock exec".  Each exec is a
 * session of its own (session.h: a directory under the state directory
 * with a signed, hash-chained audit.log), holding two records:
 *
 *   exec_start  {command: "exec", argv, workspace, cwd, manifest,
 *                overrides: overrides_json() — the --allow-host, --env and
 *                --setenv names (never their values), --ro, --rw — and
 *                chdir}
 *   exec_end    {exitCode | signal | timedOut | setupFailed}
 *
 * and the "session_end" that audit_close() appends.  Fail closed: if the
 * log cannot be opened or the start record cannot be written, the command
 * does not run.
 */
#ifndef AIRLOCK_EXEC_AUDIT_H
#define AIRLOCK_EXEC_AUDIT_H

#include <stddef.h>

#include <jansson.h>

#include "supervisor/session.h"

struct audit;

/*
 * Creates the session and writes exec_start.  |start| (borrowed) holds the
 * record's fields.  Returns 0 and *out (close with exec_audit_end()), or
 * -1 with a message in err[0..errlen).
 */
int exec_audit_start(json_t *start, struct session *s, struct audit **out,
    char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * Writes exec_end with |end| (borrowed; may be NULL) and closes the log.
 * Returns 0, or -1 if the record could not be written.
 */
int exec_audit_end(struct audit *a, json_t *end);

#endif
