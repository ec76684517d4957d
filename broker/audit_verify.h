/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_verify: proves an audit log's hash chain and signatures, and
 * reads its records for display.  No side effects beyond memory and the
 * FILE it is given.
 *
 * A log is valid when, for every line N (from 1):
 *   - it ends in a newline and is a JSON object with exactly the members
 *     event, fields, prev, seq, session, sig, time (no duplicates);
 *   - it ends in ,"sig":"BASE64"} and that signature verifies under the
 *     session key over the line with that member cut out;
 *   - seq is N, session is line 1's session, prev is the BLAKE2b-256 hex
 *     of line N-1 (64 zeros for line 1);
 *   - line 1 is "session_start" and carries the public key (which must
 *     equal the pinned key, if one is given); nothing follows
 *     "session_end".
 * A valid log whose last record is not "session_end" is OPEN: the
 * session is still running, crashed, or its tail was cut off.
 */
#ifndef AIRLOCK_AUDIT_VERIFY_H
#define AIRLOCK_AUDIT_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "broker/audit.h"

#define AUDIT_VERIFY_CLOSED	0	/* valid, ends with session_end */
#define AUDIT_VERIFY_BAD	1	/* tampered, truncated mid-line, unpinned */
#define AUDIT_VERIFY_OPEN	2	/* valid so far, no session_end yet */
#define AUDIT_VERIFY_UNTRUSTED	3	/* consistent or not, no trusted key */

struct audit_verify_result {
	int		status;		/* AUDIT_VERIFY_* */
	uint64_t	records;	/* records that verified */
	uint64_t	bad_line;	/* first bad line (1-based), or 0 */
	char		reason[256];	/* why bad_line is bad */
	char		session[129];
	char		pubkey[AUDIT_PUBKEY_HEX_LEN + 1];
	char		keykind[16];	/* "session" or "long-term"; escaped */
	char		hostkey[AUDIT_PUBKEY_HEX_LEN + 1]; /* certifier, or "" */
	char		trust[16];	/* "host-key", "direct" or "none" */
	char		command[16];	/* session_start's "command" (run,
					 * serve, exec: a session's own log),
					 * escaped, or "" (a commit log) */
	char		head[AUDIT_HASH_HEX_LEN + 1];	/* hash of last good line */
	char		first_time[64], last_time[64];
};

/*
 * Verifies the log read from |fp|.  |pin| is a 32-byte Ed25519 public
 * key the log must be signed with, or NULL to trust the key in
 * session_start (which proves only internal consistency).  |want_head|
 * is a line hash (64 lowercase hex) exported earlier from audit_head()
 * or a previous verification, which must be the hash of some line of
 * the log (so the log was not cut back below it), or NULL.  Fills *res
 * and returns res->status, or AL_ERR_SYSTEM if reading failed, or
 * AL_ERR_ALLOC.  Lines longer than AUDIT_MAX_LINE are BAD and never
 * held whole in memory.
 */
int	audit_verify_fp(FILE *fp, const unsigned char *pin,
	    const char *want_head, struct audit_verify_result *res)
	    __attribute__((warn_unused_result));

/*
 * As audit_verify_fp() against a list of trusted keys (|nkeys| 32-byte
 * Ed25519 public keys; none: trust the key in session_start).  The log
 * is trusted when session_start's "pubkey" is one of them (a log signed
 * directly with a long-term key) or when its "hostKey" is one of them
 * and "cert" is that key's signature over audit_cert_message() for the
 * log's session and "pubkey" (res->trust says which).  Otherwise the
 * result is AUDIT_VERIFY_UNTRUSTED at line 1, never CLOSED or OPEN: a
 * log re-signed under another key proves nothing.  Without trusted
 * keys, a "cert" present must still verify under "hostKey" (else BAD).
 */
int	audit_verify_fp_trusted(FILE *fp, const unsigned char (*keys)[32],
	    size_t nkeys, const char *want_head,
	    struct audit_verify_result *res)
	    __attribute__((warn_unused_result));

/*
 * Parses one line (without its newline) as a record object.  Returns a
 * new reference, or NULL if it is not a JSON object with integer "seq"
 * and string "event", "session" and "time".  Does not verify anything.
 */
json_t	*audit_record_parse(const char *line, size_t len);

/*
 * Parses an RFC 3339 time ("2026-11-30T10:00:00Z", with optional
 * fraction and a Z or +hh:mm offset) or a date ("2026-11-30", midnight
 * UTC) into milliseconds since the epoch.  Returns 0 or AL_ERR_FORMAT.
 */
int	audit_parse_time(const char *s, int64_t *ms);

/* Decodes 64 hex digits into |pk|.  Returns 0 or AL_ERR_FORMAT. */
int	audit_parse_pubkey(const char *hex, unsigned char pk[32]);

#endif
