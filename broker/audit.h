/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit: the append-only, hash-chained and signed record of a session.
 *
 * One JSON object per line.  Each record carries "seq" (from 1), "time"
 * (RFC 3339), "session", "event", the event's own fields, "prev" (the
 * BLAKE2b-256 hex of the previous line, or 64 zeros for the first) and
 * "sig" (Ed25519 over the line without "sig", base64).  The first record
 * of a session ("session_start") carries the public key.
 *
 * Fail closed: if a record cannot be written durably, audit_append()
 * returns AL_ERR_IO and the broker refuses requests until a later append
 * succeeds.
 */
#ifndef AIRLOCK_AUDIT_H
#define AIRLOCK_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct audit;
struct redact;

#define AUDIT_PUBKEY_HEX_LEN	64	/* Ed25519 public key, hex */
#define AUDIT_SIG_B64_LEN	89	/* Ed25519 signature, base64, NUL */
#define AUDIT_HASH_HEX_LEN	64	/* BLAKE2b-256, hex */
#define AUDIT_MAX_LINE		(1024 * 1024)	/* bytes of one record */

/*
 * Opens (creating, mode 0600) the log at |path| for session |session_id|
 * with a fresh Ed25519 signing key held in sodium_malloc'd memory.
 * Returns 0 and *out, or AL_ERR_SYSTEM/AL_ERR_ALLOC, or AL_ERR_IO when
 * session_start cannot be written: then the file it made is removed
 * (audit_abandon()), as by every audit_open*() below.
 */
int	audit_open(const char *path, const char *session_id,
	    struct audit **out) __attribute__((warn_unused_result));

/*
 * Appends one record: |event| plus the members of |fields| (borrowed;
 * may be NULL).  Returns 0 or AL_ERR_IO (the record is not written and
 * the chain is unchanged, so a later append can succeed).
 */
int	audit_append(struct audit *a, const char *event, json_t *fields)
	    __attribute__((warn_unused_result));

/*
 * As audit_append(), and in AUDIT_SYNC_KEY mode the record also reaches
 * the disk before this returns: the broker uses it for the decision that
 * precedes a side effect, so the evidence survives a crash during it.
 */
int	audit_append_durable(struct audit *a, const char *event,
	    json_t *fields) __attribute__((warn_unused_result));

/* Returns 1 if the last append failed (the broker is refusing), else 0. */
int	audit_failing(const struct audit *a);

/* Returns the log's path (borrowed). */
const char *audit_path(const struct audit *a);

/* The log's file was moved to |path| (its directory renamed, the file
 * kept open): later syncs and audit_abandon() use it.  0 or AL_ERR_ALLOC. */
int audit_moved(struct audit *a, const char *path);

/*
 * Batched signing.  While a batch is open (audit_batch(a, 1)),
 * audit_append() chains each record ("seq", "prev") and keeps it in
 * memory; audit_flush() writes all of them in one write(2), only the
 * newest carrying "sig": its signature covers the older ones through the
 * "prev" chain.  A record that must reach the disk now (a key event, a
 * durable append, AUDIT_SYNC_ALL), a full batch (128 records or 64 KiB)
 * and any append with the batch closed flush at once, so they are written and signed on return as before.
 * The caller must call audit_flush() before any outside effect of a
 * pending record (a reply, a runner start) and must not let those
 * effects happen if it fails; the broker does it at the end of each
 * event-loop turn (broker/loop.h).
 *
 * audit_flush() returns 0 (also with nothing pending) or, as
 * audit_append(), AL_ERR_IO/AL_ERR_ALLOC: the pending records are then
 * dropped, the file cut back to the last signed record and the loss
 * remembered until audit_lost().  audit_lost() returns 1 once if a batch
 * was dropped since the last call (its effects must not leave), else 0.
 */
void	audit_batch(struct audit *a, int on);
int	audit_flush(struct audit *a) __attribute__((warn_unused_result));
int	audit_lost(struct audit *a);

/*
 * Appends "session_end" with every record still pending, on the disk
 * (fdatasync) unless syncing is off: 0, or AL_ERR_* if it or a pending
 * record could not be written.  Once; later calls, and audit_close(),
 * return or keep that answer and append nothing more.
 */
int	audit_end(struct audit *a);

/*
 * Forces what was written to the disk (fdatasync), for a log whose
 * records were written with syncing off (audit_set_sync()): 0, or
 * AL_ERR_IO.  Nothing is cut back: the records' effects have left.
 */
int	audit_sync(struct audit *a) __attribute__((warn_unused_result));

/*
 * The log's descriptor, for a sync made by other means than audit_sync()
 * (airlock exec's writer has the kernel start it: exec_audit.c), or -1
 * once a write failed (audit_sync() would fail).  Owned by |a|.
 */
int	audit_sync_fd(const struct audit *a);

/* audit_end() unless called already, closes, wipes the key.  NULL is
 * fine. */
void	audit_close(struct audit *a);

/*
 * 1 if another process holds the writer's lock on the log at |path| (an
 * audit_open*() holds it, LOCK_EX, until audit_close()): its session
 * still runs.  0 if none does, or the log cannot be opened.
 */
int	audit_writer_active(const char *path);

/*
 * Additions (audit branch).
 *
 * audit_open() also returns AL_ERR_IO if "session_start" cannot be
 * written, and AL_ERR_SYSTEM with errno EEXIST if |path| already holds
 * records (one file is one session) or EWOULDBLOCK if another writer
 * holds it.  The file is opened O_APPEND|O_CLOEXEC and held with an
 * exclusive flock(2) until audit_close(), so "airlock audit verify" can
 * tell a running session from a truncated one.
 *
 * audit_append() also returns AL_ERR_FORMAT for an event name outside
 * [a-z][a-z0-9_]{0,63} or for "session_start"/"session_end" (written by
 * open and close only), AL_ERR_TYPE if |fields| is not an object,
 * AL_ERR_LIMIT for a line over AUDIT_MAX_LINE (a short record_too_large
 * naming the event, its size, the SHA-256 of its fields and its "id" is
 * written in its place; AL_ERR_IO if even that fails), AL_ERR_ALLOC.
 * These leave audit_failing() unchanged; the broker must treat
 * any non-zero return as "not recorded" and refuse the request.  The
 * members of |fields| are written under "fields", not merged into the
 * record.  Every record is chained, and signed or covered by the
 * signature of a later record of its batch; see docs/AUDIT.md.
 */

/*
 * Like audit_open(), but signs with the long-term Ed25519 key in
 * |keyfile| (a 32-byte seed, mode 0600, owned by the caller), so that a
 * verifier can pin its public key.  Creates |keyfile| with a fresh seed
 * if it does not exist.  Returns 0 and *out; AL_ERR_DENIED if the key
 * file is readable by group or others or not owned by the euid;
 * AL_ERR_FORMAT if it is not 32 bytes; AL_ERR_SYSTEM; AL_ERR_ALLOC;
 * AL_ERR_IO.
 */
int	audit_open_with_key(const char *path, const char *session_id,
	    const char *keyfile, struct audit **out)
	    __attribute__((warn_unused_result));

/*
 * Like audit_open(), with a fresh per-session key that the long-term
 * host key in |hostkey| (as for audit_open_with_key(); created if
 * absent) certifies: session_start also carries "hostKey" (its public
 * key, hex) and "cert" (base64 Ed25519 signature by the host key over
 * audit_cert_message() for this session and session key).  The host
 * key's secret is wiped before this returns; only the session key stays
 * in memory.  The members of |extra| (borrowed, an object or NULL) are
 * added to session_start's fields, except where they would replace one
 * of its own (pubkey, key, pid, version, hostKey, cert).  Returns as
 * audit_open_with_key(), or AL_ERR_TYPE if |extra| is not an object.
 */
int	audit_open_certified(const char *path, const char *session_id,
	    const char *hostkey, json_t *extra, struct audit **out)
	    __attribute__((warn_unused_result));

/*
 * As audit_open_certified(), and the session's first record, |first|
 * with |first_fields| (borrowed; may be NULL), goes out with
 * session_start: one write(2), one signature (the first record's; its
 * "prev" covers session_start), one fdatasync(2), as
 * audit_append_durable() would make it.  When that fails neither record
 * is in the file, the file is removed and nothing is opened.  AL_ERR_FORMAT for a name
 * audit_append() refuses.
 */
int	audit_open_certified_first(const char *path, const char *session_id,
	    const char *hostkey, json_t *extra, const char *first,
	    json_t *first_fields, struct audit **out)
	    __attribute__((warn_unused_result));

/*
 * audit_open_certified_first() in two steps, so that what needs none of
 * the records can be done before they are known.
 *
 * audit_prepare_certified() makes the session key and its certificate
 * (the host key is read and wiped as audit_open_certified() does), and
 * opens, locks and checks the log (empty, a regular file).  Nothing is
 * written: the log is not a session's log yet, and audit_append() and
 * audit_close() refuse it.  Returns as audit_open_certified().
 *
 * audit_begin_first() writes session_start with the members of |extra|
 * and |first| as audit_open_certified_first() does, and returns as it.
 * After it succeeds |a| is an open log; after it fails neither record is
 * in the file and |a| only wants audit_abandon().
 *
 * audit_abandon() frees a prepared log that was never begun, or whose
 * begin failed, and removes its file when it is still empty and still
 * the file at its path (a file with any byte in it is evidence, and
 * stays).
 */
int	audit_prepare_certified(const char *path, const char *session_id,
	    const char *hostkey, struct audit **out)
	    __attribute__((warn_unused_result));
int	audit_begin_first(struct audit *a, json_t *extra, const char *first,
	    json_t *first_fields) __attribute__((warn_unused_result));
void	audit_abandon(struct audit *a);

#define AUDIT_CERT_CONTEXT	"airlock-audit-cert-v1"

/*
 * Writes the certificate message ("airlock-audit-cert-v1\nSESSION\n
 * PUBKEY_HEX") to out[0..outlen).  Returns 0 or AL_ERR_LIMIT.
 */
int	audit_cert_message(const char *session_id, const char *pk_hex,
	    char *out, size_t outlen);

/*
 * Loads (creating if |create| and absent) the long-term key |keyfile|
 * and writes its public key as lowercase hex to |hex|.  Returns 0 or an
 * error as for audit_open_with_key(); AL_ERR_NOT_FOUND if absent and
 * !create.
 */
int	audit_key_public(const char *keyfile, int create,
	    char hex[AUDIT_PUBKEY_HEX_LEN + 1])
	    __attribute__((warn_unused_result));

/*
 * Reads the 32 random bytes in the key file |keyfile| into |seed|,
 * making the key (mode 0600, fsynced, under flock) first when |create|
 * and the file is absent or empty (what a process killed as it made
 * the key leaves).  The file must be a regular file of the euid's,
 * private (AL_ERR_DENIED), of 32 bytes (AL_ERR_FORMAT).  Returns 0,
 * AL_ERR_NOT_FOUND if absent and !create, or AL_ERR_SYSTEM (errno).
 */
int	audit_keyfile_load(const char *keyfile, int create,
	    unsigned char seed[32]) __attribute__((warn_unused_result));

/* Returns the session's public key, lowercase hex (borrowed). */
const char *audit_public_key(const struct audit *a);

/*
 * Signs |msg| (len bytes) with the session key, for what the session
 * hands out beside its log (a pending approval: broker/reqsig.h).  The
 * caller's message must begin with its own context line, so that no
 * such signature can pass for a record's (records are JSON objects).
 * Returns {"sessionKey", "hostKey", "cert", "signature"} (hex, hex,
 * base64, base64), or NULL: no log, a log whose key the host key did not
 * certify, or out of memory.
 */
json_t	*audit_attest(const struct audit *a, const char *msg, size_t len);

/*
 * Returns the BLAKE2b-256 hex of the last record written (borrowed):
 * export it with the public key to detect deletion of the whole tail.
 */
const char *audit_head(const struct audit *a);

/* Returns the seq of the last record written (0 before session_start). */
uint64_t audit_seq(const struct audit *a);
/*
 * Returns the bytes of the log's records: those written and those of the
 * open batch, still to be written (runBudget.maxAuditMiB).
 */
uint64_t audit_size(const struct audit *a);

/*
 * When each record reaches the disk.  AUDIT_SYNC_KEY (the default):
 * write(2) of the whole line always completes before audit_append()
 * returns, and fdatasync(2) runs after session_start, session_end,
 * approval_*, budget_stop, sandbox_denial and every record
 * written with audit_append_durable().  AUDIT_SYNC_ALL:
 * after every record.  AUDIT_SYNC_NONE: never (benchmarks, tests).
 */
#define AUDIT_SYNC_NONE		0
#define AUDIT_SYNC_KEY		1
#define AUDIT_SYNC_ALL		2
void	audit_set_sync(struct audit *a, int mode);

/*
 * Redacts every string of each later record's fields with |r|
 * (borrowed; must outlive |a|; NULL turns redaction off).
 */
void	audit_set_redact(struct audit *a, const struct redact *r);

/*
 * A sink gets a copy of each record after its line is in the file:
 * |line| (the line, without newline, |len| bytes; signed if it ends its
 * batch) and |rec| (the
 * record without "sig"), both borrowed for the call.  It must not block
 * and cannot fail the append (broker/audit_ship.h is one).
 */
typedef void (*audit_sink)(void *arg, const char *line, size_t len,
    json_t *rec);

/*
 * Sets the sink of every log opened after this call in this process
 * (so that session_start is shipped too); NULL turns it off.  |arg| is
 * borrowed and must outlive those logs.
 */
void	audit_set_default_sink(audit_sink fn, void *arg);

#endif
