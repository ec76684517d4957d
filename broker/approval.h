/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * approval: human decisions on privileged actions, and the control
 * socket that humans reach them through.
 *
 * A call whose tool needs approval becomes a pending approval: an id, the
 * tool, its canonical arguments, a digest of exactly that action, the
 * evidence, and an expiry.  The call waits.  A human runs "airlock approve"
 * or "airlock deny", which connect to the session's control socket (unix,
 * 0600, in a 0700 runtime directory that no sandbox can see); the peer's
 * uid (SO_PEERCRED) must be an approver, and the client must echo the
 * digest it showed the human, so a decision can only apply to what was
 * shown.  A decision is used once; a missing, expired or ambiguous one
 * fails closed.
 *
 * Control protocol (one JSON object per line each way):
 *   {"op":"pending"}    -> {"pending":[APPROVAL...], "withdrawn":[ID...]}
 *   {"op":"approve","id":I,"digest":D,"note":N}  -> {"ok":true} | {"error":E}
 *   {"op":"deny","id":I,"digest":D,"reason":R}   -> {"ok":true} | {"error":E}
 *   {"op":"token","token":TOKEN}            -> {"ok":true} | {"error":E}
 * A peer that is not an approver may send only "token" (when keys are
 * pinned); anything else is answered with why it is refused.
 * APPROVAL = {id, session, tool, arguments, execution, digest, evidence,
 *             requestedAt, expiresAt}
 * EXECUTION = {argv, cwd, env, pinned}: what will run, as the digest
 * covers it; env holds names only, pinned maps each pinned file to the
 * SHA-256 of its content.  The broker checks it again when the decision
 * is granted and just before the runner starts; any difference voids the
 * approval and opens a new one whose evidence names what changed.
 */
#ifndef AIRLOCK_APPROVAL_H
#define AIRLOCK_APPROVAL_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>

#include <jansson.h>

#include "broker/egress.h"
#include "broker/loop.h"
#include "policy/manifest.h"

struct approvals;

enum approval_outcome {
	APPROVAL_GRANTED,
	APPROVAL_DENIED,
	APPROVAL_EXPIRED,
};

/*
 * Called once per pending approval with its outcome, the approver's name
 * (NULL when expired) and note or reason (may be NULL).
 */
typedef void (*approval_done_fn)(void *arg, enum approval_outcome outcome,
    const char *approver, const char *text);

/*
 * Called for every event worth an audit record (fields borrowed).
 * Returns 0 when the record is in the log, non-zero when it is not (the
 * log cannot be written, or the record is too large): an approval that
 * cannot be recorded is not created, a grant that cannot be recorded is
 * not given (fail closed).
 */
typedef int (*approval_audit_fn)(void *arg, const char *event,
    json_t *fields);

/*
 * Signs |msg| (len bytes) for the session: an attestation object
 * (broker/reqsig.h), or NULL when it cannot.
 */
typedef json_t *(*approval_attest_fn)(void *arg, const char *msg,
    size_t len);

/*
 * Creates the control socket for |session_id| in the runtime directory
 * and serves it on |loop|.  Returns the table, or NULL with err set.
 */
struct approvals *approvals_new(const struct manifest *m,
		    const char *session_id, struct loop *loop,
		    struct egress *egress, approval_audit_fn audit,
		    void *audit_arg, char *err, size_t errlen);

/*
 * Has each approval created from now on signed by |fn| (the session's
 * audit key: audit_attest()), and handed out with that signature as
 * "attestation" in the "pending" listing and the notify hook's "created"
 * payload (broker/reqsig.h).  Without one, or when |fn| fails, an
 * approval carries none, and airlock approve --sign --host-key refuses
 * to sign it.
 */
void		 approvals_set_attester(struct approvals *a,
		    approval_attest_fn fn, void *arg);

/* Removes the socket, expires nothing further, frees.  NULL is fine. */
void		 approvals_free(struct approvals *a);

/*
 * Carrying the session's denials into a resumed run (airlock run
 * --resume): approvals_denied_export() returns the actions a human
 * denied in this run or that it carried, each {"key": the action key
 * (approvals_action_key()), "approval": the id denied}, oldest first,
 * the newest 1024 at most (a new array; |a| NULL: empty).
 * approvals_denied_restore() adds such a list (borrowed) to |a|: those
 * actions are refused at once like one denied in this run (|a| NULL:
 * only checks the list).  Returns 0, or AL_ERR_FORMAT (no list, more
 * than 1024, a malformed entry) with nothing added and the reason in
 * err[0..errlen).
 */
json_t		*approvals_denied_export(const struct approvals *a);
int		 approvals_denied_restore(struct approvals *a,
		    const json_t *list, char *err, size_t errlen)
		    __attribute__((warn_unused_result));

/* Why approvals_request() asked nobody. */
enum approval_refusal {
	APPROVAL_REFUSED_BUSY,		/* too many approvals pending */
	APPROVAL_REFUSED_UNRECORDED,	/* approval_created not recorded */
	APPROVAL_REFUSED_DENIED,	/* a human denied this very action */
	APPROVAL_REFUSED_RATE,		/* 16 were asked in the last minute */
};

/*
 * Creates a pending approval for |tool| with |args| (borrowed; stored in
 * canonical form), |execution| (borrowed, may be NULL: what will run,
 * {argv, cwd, env, pinned}, see broker_int.h action_plan()) and
 * |evidence| (borrowed), waiting at most |wait_ms| (capped by the
 * manifest's ttlSeconds).  |done| runs exactly once, unless
 * approvals_withdraw() is called first.  Runs the notify hook (in its own
 * sandbox, broker/notify.h) on "created", and again when the approval is
 * granted, denied, expires or is withdrawn.  Returns the
 * approval's id (a static-lifetime string inside the table, valid until
 * |done| runs) or NULL with *refused set and |why| (whylen bytes) saying
 * why in words for the agent: APPROVAL_REFUSED_UNRECORDED when its
 * approval_created record could not be written (nothing is pending, and
 * the call must be refused), APPROVAL_REFUSED_BUSY when too many
 * approvals are pending, APPROVAL_REFUSED_DENIED when a human denied
 * the same action earlier in this session (approvals_action_key() of
 * the arguments, of a request_approval only its "action"; an
 * approval_repeat_refused record names that denial): a denied action is
 * not asked again, so that an agent cannot ask until a tired person says
 * yes.  Denying an approval also denies every other pending one of the
 * same action.  APPROVAL_REFUSED_RATE when 16 approvals were asked in
 * the last minute (an approval_rate_refused record says so): each asked
 * pages a person, and one withdrawn pages them again.
 */
const char	*approvals_request(struct approvals *a, const char *tool,
		    json_t *args, json_t *execution, json_t *evidence,
		    int64_t wait_ms, approval_done_fn done, void *arg,
		    enum approval_refusal *refused, char *why, size_t whylen);

/*
 * Applies a signed decision token (common/approver_token.h) that came
 * through |via| (words for the audit: "control socket, bob (uid 1001)",
 * "inbox:FILE").  The token must verify, its key be pinned by
 * approvals.keys and not revoked, name this session, an approval that is
 * pending, and that approval's digest, and not have expired.  Returns 0
 * when the decision was taken (its |done| has run), or AL_ERR_DENIED with
 * |why| set and an approval_token_refused audit record (a "refused"
 * class: malformed, bad_signature, revoked_key, unknown_key,
 * wrong_session, expired, replay, withdrawn, not_pending, wrong_digest).
 */
int		 approvals_token(struct approvals *a, json_t *token,
		    const char *via, char *why, size_t whylen);

/*
 * Withdraws the pending approval |id| because nothing will run it any
 * more (|why|: the call waiting for it was cancelled, the session
 * ended): it leaves the pending list,
 * its |done| is not called, an approval_withdrawn record {approval,
 * tool, digest, reason: |why|} is written, and a later approve or deny
 * of it (control socket, signed token) is refused with
 * APPROVAL_WITHDRAWN_MSG; the notify hook runs on "withdrawn" with
 * |why|; "pending" replies list the recently withdrawn
 * ids under "withdrawn" so that airlock approve can say so too.
 * Returns 0, AL_ERR_NOT_FOUND (not pending), or AL_ERR_IO when the
 * record could not be written (it is withdrawn all the same: nothing
 * can grant it any more).
 */
int		 approvals_withdraw(struct approvals *a, const char *id,
		    const char *why);

/* Why a decision on a withdrawn approval (%.16s: its id) is refused. */
#define APPROVAL_WITHDRAWN_MSG	"approval %.16s was withdrawn: the agent " \
	"cancelled the call (notifications/cancelled) before a human " \
	"decided; nothing was done and nothing will be"

/*
 * Whether anyone but the user running airlock may reach the session's
 * control socket: approvers name another user or a group, or keys are
 * pinned (a signed token may come from anyone).  Then the socket is 0666
 * and the runtime directory 0755, and SO_PEERCRED decides what each
 * peer may do; otherwise the socket is 0600.
 */
int		 approvals_shared(const struct manifest *m);

/*
 * Whether the approvals inbox |dir| (approvals.inbox) is safe to read
 * tokens from: a directory owned by root or by |uid| (the user running
 * airlock), not writable by group or others unless its sticky bit is
 * set.  Another user who could write it without the sticky bit could
 * remove or rename the tokens in it (a denial the approver sent, never
 * read) or fill it; its owner could do that and more.  |st| is its
 * fstat(2) or lstat(2).  Returns 1, or 0 with the reason, naming |dir|
 * and what to do, in why[0..whylen).  Pure.
 */
int		 approvals_inbox_safe(const char *dir, const struct stat *st,
		    uid_t uid, char *why, size_t whylen);

/* Writes the runtime directory (control sockets live there). */
int		 approvals_runtime_dir(char *out, size_t outlen);

/*
 * The digest that binds a decision to one execution: SHA-256 hex of
 * TOOL "\0" canonical-JSON(ARGS), followed, when |execution| is not
 * NULL, by "\0" canonical-JSON(EXECUTION): the resolved argv, the cwd,
 * the environment's names and the digests of the pinned code.  Pure.
 */
void		 approvals_digest(const char *tool, json_t *args,
		    json_t *execution, char hex[65]);

/*
 * What makes two requests the same action to the person asked: the
 * digest (approvals_digest()) of |tool|, |args| and |execution| without
 * its "workspace" member.  The workspace digest is a hex string nobody
 * reads: an agent that wrote a file between two asks changed it, but
 * asked the same question again.  Pure.
 */
void		 approvals_action_key(const char *tool, json_t *args,
		    json_t *execution, char hex[65]);

#endif
