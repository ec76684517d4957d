/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_ship: copies of audit records for journald and syslog.
 *
 * The JSON-lines file (broker/audit.h) stays the source of truth: a copy
 * is sent only after its line is in the file, with a non-blocking send
 * (MSG_DONTWAIT) on a datagram socket, so an output that is missing,
 * full or slow never blocks the broker and never costs the file record;
 * a copy that cannot be sent is counted and dropped.
 *
 * Outputs come from a configuration file (docs/AUDIT.md, "Shipping"):
 *
 *	# one output per line
 *	journald
 *	syslog [SOCKET [FACILITY]]
 *
 * journald: the native protocol on /run/systemd/journal/socket (what
 * sd_journal_send() speaks, but never blocking), with MESSAGE,
 * PRIORITY, SYSLOG_IDENTIFIER=airlock, AIRLOCK_SESSION, AIRLOCK_EVENT,
 * AIRLOCK_SEQ, AIRLOCK_TOOL, AIRLOCK_DECISION (when the record has
 * them) and AIRLOCK_RECORD (the whole signed line, for verification).
 * Every value but AIRLOCK_RECORD's is escaped (common/vis.h): a refused
 * call's tool is the agent's text.
 * syslog: RFC 5424 with structured data [airlock@32473 session= event=
 * seq= tool= decision=] and the signed line as MSG, to SOCKET (default
 * /dev/log), facility local0 unless FACILITY (local0..local7, user,
 * daemon, auth, authpriv) says otherwise.
 */
#ifndef AIRLOCK_AUDIT_SHIP_H
#define AIRLOCK_AUDIT_SHIP_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct audit_ship;

/*
 * Reads the configuration in |path|.  A missing file is no outputs: 0
 * and *out NULL.  Returns 0 and *out (free with audit_ship_free()), or
 * AL_ERR_FORMAT with "PATH:LINE: why" in err[0..errlen) for a line it
 * does not understand (nothing is half-applied), AL_ERR_SYSTEM if the
 * file cannot be read, AL_ERR_ALLOC.
 */
int audit_ship_load(const char *path, struct audit_ship **out, char *err,
    size_t errlen) __attribute__((warn_unused_result));

/*
 * Sends one record (|rec| parsed, borrowed; |line| its signed line
 * without newline) to every output.  Never blocks; never fails: a copy
 * not sent is counted.  Matches the audit_sink type of broker/audit.h.
 */
void audit_ship_record(void *ship, const char *line, size_t len, json_t *rec);

/*
 * Returns 1 if record |rec| (borrowed) is a refusal, else 0: one of the
 * events that are refusals (approval_denied, sandbox_denial,
 * change_refused, secret_refused, escalation_refused, ...), a
 * "decision" of deny or invalid, or an "errorClass" of a call the broker
 * refused to run (path_refused, denied, busy, idempotency_conflict, ...;
 * not one that ran and failed, such as timeout).  What `airlock audit
 * --decision deny` lists, and what the copies send at PRIORITY 4
 * (warning).
 */
int audit_is_refusal(json_t *rec);

/* Copies not sent so far, over all outputs. */
uint64_t audit_ship_dropped(const struct audit_ship *s);

/* Number of outputs configured. */
size_t audit_ship_count(const struct audit_ship *s);

/*
 * 1 if the configuration says "sync exec-end": airlock exec waits for its
 * exec_end and session_end to be synced to the disk before it exits, not
 * only written (supervisor/exec_audit.h).  0 without the line (or |s|
 * NULL).
 */
int audit_ship_sync_exec_end(const struct audit_ship *s);

/* Closes the sockets and frees |s|.  NULL is fine. */
void audit_ship_free(struct audit_ship *s);

#endif
