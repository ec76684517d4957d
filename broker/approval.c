/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Pending approvals and the control socket.
 *
 * Safety of the privileged operations here: the socket is created in a
 * 0700 directory with a 0600 mode before listen(); every connection's
 * peer uid comes from the kernel (SO_PEERCRED), not from the client; a
 * client's bytes pass through the same bounded reader as the agent's; and
 * a decision names both the approval id and its digest.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/inotify.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/approval.h"
#include "broker/notify.h"
#include "broker/reqsig.h"
#include "common/approver_token.h"
#include "common/buf.h"
#include "common/errors.h"
#include "common/paths.h"
#include "common/log.h"
#include "common/util.h"

#define APPROVAL_MAX_PENDING	64
#define CONTROL_MAX_CLIENTS	8
/*
 * With approver keys pinned the socket is open to every local user, for
 * the tokens they carry: such a peer (not an approver) may hold only
 * CONTROL_MAX_OTHERS of the slots, and each for CONTROL_OTHER_MS, so
 * that idle connections cannot keep the approvers out.
 */
#define CONTROL_MAX_OTHERS	(CONTROL_MAX_CLIENTS / 2)
#define CONTROL_OTHER_MS	5000
#define CONTROL_MAX_FRAME	(64 * 1024)
#define DECIDED_RING		256	/* ids remembered to name a replay */
#define WITHDRAWN_RING		64	/* ids remembered to name a withdrawal */
/*
 * Actions a human denied, remembered for the rest of the session: one
 * asked again is refused at once (approvals_request()).  Each entry took
 * a person's denial to make, so the ring is not the agent's to flush.
 */
#define DENIED_RING		1024
/*
 * Approvals a session may ask of people per minute (a rolling minute):
 * each pages them through the notify hook, and its withdrawal (the
 * agent cancelled the call) pages them again.  A cancel is retryable
 * and counts toward no budget, so an agent that asked and cancelled in
 * a loop, with new arguments each time (none denied), paged without
 * end.
 */
#define ASK_WINDOW_MS		60000
#define INBOX_MAX_FILES		64	/* files taken per inbox event */
/*
 * Entries looked at per inbox event: sessions started from one manifest
 * share an inbox, and another session's tokens stay in it for that
 * session (inbox_foreign()), so they must not count against
 * INBOX_MAX_FILES (before, 64 such files kept a session from its own).
 */
#define INBOX_MAX_SCAN		4096
/*
 * Refusals of peers and tokens are recorded at most REFUSALS_BURST at
 * once and then one a second: the socket is open to every local user
 * when approvers name another user or a group, or keys are pinned, and
 * one who reconnected in a loop wrote 300 signed, synced records a
 * second (140 KB/s) until the state directory was full and the session
 * refused every call.  The refusals not recorded are counted in the
 * next one that is ("suppressed").
 */
#define REFUSALS_BURST		20

struct pending {
	char			 id[16];		/* "" when free */
	char			*tool;
	json_t			*args;
	json_t			*execution;	/* or NULL */
	json_t			*evidence;
	json_t			*attestation;	/* reqsig.h, or NULL */
	char			 digest[65];
	char			 key[65];	/* approvals_action_key() */
	int64_t			 requested;		/* wall ms */
	int64_t			 expires;		/* wall ms */
	int			 watch;			/* expiry timer */
	approval_done_fn	 done;
	void			*arg;
	struct approvals	*owner;
};

/*
 * A client of the control socket.  Answers are sent without blocking
 * (MSG_DONTWAIT): a client that stops reading must not stop the broker.  An answer that does not
 * fit waits in |out|, and the client's next request is read only once
 * it has read that answer, so at most one answer waits per client.
 */
struct client {
	int		 fd;		/* -1 when free */
	int		 watch;		/* input, or only the deadline */
	int		 out_watch;	/* room to write |out|, or 0 */
	int64_t		 deadline;	/* INT64_MAX for an approver */
	uid_t		 uid;
	int		 approver;	/* may list and decide */
	char		 why[384];	/* why not, when not */
	struct buf	*in;
	char		*out;		/* an answer not yet read, or NULL */
	size_t		 outoff, outlen;
	struct approvals *owner;
};

struct approvals {
	const struct manifest	*m;
	char			 session[64];
	char			 path[PATH_MAX];
	struct loop		*loop;
	int			 lfd;
	int			 lwatch;
	approval_audit_fn	 audit;
	void			*audit_arg;
	approval_attest_fn	 attest;	/* or NULL */
	void			*attest_arg;
	struct pending		 p[APPROVAL_MAX_PENDING];
	struct client		 c[CONTROL_MAX_CLIENTS];
	char			 decided[DECIDED_RING][16];
	size_t			 ndecided;
	char			 withdrawn[WITHDRAWN_RING][16];
	size_t			 nwithdrawn;
	struct {
		char		 key[65];	/* approvals_action_key() */
		char		 id[16];	/* the approval denied */
	}			 denied[DENIED_RING];
	size_t			 ndenied;
	/* When the last approvals were asked (monotonic ms), a ring. */
	int64_t			 asked[APPROVALS_MAX_ASKS_PER_MINUTE];
	size_t			 nasked;
	int			 refusals;	/* records that may be written now */
	int64_t			 refusals_at;	/* when one was last added, ms */
	json_int_t		 suppressed;	/* refusals not recorded since */
	int			 inbox_fd;	/* the inbox directory, or -1 */
	int			 inotify_fd;	/* or -1 */
	int			 inbox_watch;
	struct notifier		*notify;
};

int
approvals_runtime_dir(char *out, size_t outlen)
{
	return paths_runtime_dir(out, outlen);
}

void
approvals_digest(const char *tool, json_t *args, json_t *execution,
    char hex[65])
{
	crypto_hash_sha256_state	 st;
	unsigned char			 md[32];
	char				*canon;

	canon = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_ENCODE_ANY);
	if (canon == NULL)
		fatalx("json_dumps");
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const unsigned char *)tool,
	    strlen(tool) + 1);
	crypto_hash_sha256_update(&st, (const unsigned char *)canon,
	    strlen(canon));
	free(canon);
	if (execution != NULL) {
		canon = json_dumps(execution, JSON_COMPACT | JSON_SORT_KEYS |
		    JSON_ENCODE_ANY);
		if (canon == NULL)
			fatalx("json_dumps");
		crypto_hash_sha256_update(&st, (const unsigned char *)"", 1);
		crypto_hash_sha256_update(&st, (const unsigned char *)canon,
		    strlen(canon));
		free(canon);
	}
	crypto_hash_sha256_final(&st, md);
	sodium_bin2hex(hex, 65, md, sizeof(md));
}

void
approvals_action_key(const char *tool, json_t *args, json_t *execution,
    char hex[65])
{
	json_t *e = NULL;

	if (json_is_object(execution) &&
	    json_object_get(execution, "workspace") != NULL) {
		if ((e = json_copy(execution)) == NULL)
			fatalx("json_copy");
		json_object_del(e, "workspace");
		execution = e;
	}
	approvals_digest(tool, args, execution, hex);
	json_decref(e);
}

/* The approval a human denied with action key |key|, or NULL. */
static const char *
denied_before(const struct approvals *a, const char *key)
{
	size_t i, n = a->ndenied < DENIED_RING ? a->ndenied : DENIED_RING;

	for (i = 0; i < n; i++)
		if (strcmp(a->denied[i].key, key) == 0)
			return a->denied[i].id;
	return NULL;
}

static void uid_name(uid_t uid, char *out, size_t outlen);

/* Remembers that approval |id| denied the action |key|, once. */
static void
denied_add(struct approvals *a, const char *key, const char *id)
{
	size_t slot;

	if (denied_before(a, key) != NULL)
		return;
	slot = a->ndenied++ % DENIED_RING;
	snprintf(a->denied[slot].key, sizeof(a->denied[slot].key), "%s", key);
	snprintf(a->denied[slot].id, sizeof(a->denied[slot].id), "%s", id);
}

json_t *
approvals_denied_export(const struct approvals *a)
{
	json_t *list = json_array();
	size_t i, n;

	if (list == NULL)
		fatalx("json_array");
	if (a == NULL)
		return list;
	/* Oldest first: a restore adds them in the order they were made. */
	n = a->ndenied < DENIED_RING ? a->ndenied : DENIED_RING;
	for (i = a->ndenied - n; i < a->ndenied; i++)
		json_array_append_new(list, json_pack("{s:s, s:s}", "key",
		    a->denied[i % DENIED_RING].key, "approval",
		    a->denied[i % DENIED_RING].id));
	return list;
}

int
approvals_denied_restore(struct approvals *a, const json_t *list,
    char *err, size_t errlen)
{
	const json_t *e;
	const char *key, *id;
	size_t i;

	if (!json_is_array(list) || json_array_size(list) > DENIED_RING) {
		snprintf(err, errlen, "the carried budget has no valid list "
		    "of denied actions (deniedActions; an older airlock?)");
		return AL_ERR_FORMAT;
	}
	for (i = 0; i < json_array_size(list); i++) {
		e = json_array_get(list, i);
		key = json_string_value(json_object_get(e, "key"));
		id = json_string_value(json_object_get(e, "approval"));
		if (!is_sha256_hex(key) || id == NULL || id[0] == '\0' ||
		    strlen(id) >= sizeof(a->denied[0].id) ||
		    strspn(id, "0123456789abcdef") != strlen(id)) {
			snprintf(err, errlen, "the carried budget has an "
			    "invalid denied action (deniedActions[%zu])", i);
			return AL_ERR_FORMAT;
		}
	}
	for (i = 0; a != NULL && i < json_array_size(list); i++) {
		e = json_array_get(list, i);
		denied_add(a, json_string_value(json_object_get(e, "key")),
		    json_string_value(json_object_get(e, "approval")));
	}
	return 0;
}


/*
 * Records the refusal |event| with |f| (borrowed) unless refusals come
 * faster than REFUSALS_BURST then one a second: then it is counted, and
 * the count goes with the next one recorded.
 */
static void
refusal_audit(struct approvals *a, const char *event, json_t *f)
{
	int64_t now = now_monotonic_ms();
	int64_t add;

	if ((add = (now - a->refusals_at) / 1000) > 0) {
		a->refusals = add >= REFUSALS_BURST - a->refusals ?
		    REFUSALS_BURST : a->refusals + (int)add;
		a->refusals_at = now;
	}
	if (a->refusals == 0) {
		a->suppressed++;
		return;
	}
	a->refusals--;
	if (a->suppressed > 0 && json_is_object(f))
		json_object_set_new(f, "suppressed",
		    json_integer(a->suppressed));
	if (a->audit(a->audit_arg, event, f) == 0)
		a->suppressed = 0;
}

/* The session's approvers as the manifest names them, for a refusal. */
static void
approver_list(const struct approvals *a, char *out, size_t outlen)
{
	const struct approval_policy *ap = &a->m->approvals;
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; ap->approver_names != NULL && ap->approver_names[i] != NULL;
	    i++) {
		int n = snprintf(out + len, outlen - len, "%s%s", i ? ", " : "",
		    ap->approver_names[i]);

		if (n < 0 || (size_t)n >= outlen - len)
			break;
		len += (size_t)n;
	}
}

/*
 * Whether the peer (uid, and the groups the kernel reports for it) may
 * list and decide; when not, |why| says so in words the refused person
 * can act on.
 */
static int
is_approver(const struct approvals *a, uid_t uid, const gid_t *gids,
    size_t ngids, char *why, size_t whylen)
{
	const struct approval_policy *ap = &a->m->approvals;
	char who[128], owner[128], list[256];
	size_t i, j;

	/* With no approvers named, only the user running airlock decides. */
	if (ap->napprovers == 0 && ap->ngroups == 0) {
		if (uid == geteuid())
			return 1;
		uid_name(uid, who, sizeof(who));
		uid_name(geteuid(), owner, sizeof(owner));
		if (snprintf(why, whylen, "not an approver: session %s names "
		    "no approvers, so only the user who started it, %s, "
		    "decides; you are %s", a->session, owner, who) < 0)
			why[0] = '\0';
		return 0;
	}
	for (i = 0; i < ap->napprovers; i++)
		if (ap->approvers[i] == uid)
			return 1;
	for (i = 0; i < ap->ngroups; i++)
		for (j = 0; j < ngids; j++)
			if (ap->approver_groups[i] == gids[j])
				return 1;
	uid_name(uid, who, sizeof(who));
	approver_list(a, list, sizeof(list));
	if (snprintf(why, whylen, "not an approver: %s is neither listed nor "
	    "in a listed group of session %s's approvers (%s)", who,
	    a->session, list) < 0)
		why[0] = '\0';
	return 0;
}

static void
uid_name(uid_t uid, char *out, size_t outlen)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL)
		snprintf(out, outlen, "%s (uid %u)", pw->pw_name,
		    (unsigned)uid);
	else
		snprintf(out, outlen, "uid %u", (unsigned)uid);
}

static json_t *
pending_json(const struct approvals *a, const struct pending *p)
{
	char	 req[64], exp[64];
	json_t	*j;

	format_rfc3339(p->requested, req);
	format_rfc3339(p->expires, exp);
	j = json_pack("{s:s, s:s, s:s, s:O, s:s, s:O, s:s, s:s}",
	    "id", p->id, "session", a->session, "tool", p->tool,
	    "arguments", p->args, "digest", p->digest,
	    "evidence", p->evidence != NULL ? p->evidence : json_null(),
	    "requestedAt", req, "expiresAt", exp);
	if (j != NULL && p->execution != NULL)
		json_object_set(j, "execution", p->execution);
	return j;
}

/* pending_json() as the session hands it out: signed (reqsig.h). */
static json_t *
pending_attested(const struct approvals *a, const struct pending *p)
{
	json_t *j = pending_json(a, p);

	if (j != NULL && p->attestation != NULL)
		json_object_set(j, REQSIG_MEMBER, p->attestation);
	return j;
}

static void
pending_clear(struct pending *p)
{
	free(p->tool);
	json_decref(p->args);
	json_decref(p->execution);
	json_decref(p->evidence);
	json_decref(p->attestation);
	memset(p, 0, sizeof(*p));
}

/*
 * Ends |p| with |outcome|: audit, unregister, then tell the waiting call.
 * A grant the audit log cannot record is not given: |p| stays pending (it
 * may still be denied, or expire) and AL_ERR_IO is returned.  A denial or
 * an expiry ends the approval even unrecorded: nothing runs.
 */
static int
pending_finish(struct approvals *a, struct pending *p,
    enum approval_outcome outcome, const char *approver, const char *text)
{
	approval_done_fn	 done = p->done;
	void			*arg = p->arg;
	static const char	*events[] = {
		"approval_granted", "approval_denied", "approval_expired"
	};
	json_t			*f;
	int			 rc;

	f = json_pack("{s:s, s:s, s:s, s:s?, s:s?}", "approval", p->id,
	    "tool", p->tool, "digest", p->digest, "by", approver,
	    outcome == APPROVAL_DENIED ? "reason" : "note", text);
	rc = a->audit(a->audit_arg, events[outcome], f);
	json_decref(f);
	if (rc != 0 && outcome == APPROVAL_GRANTED)
		return AL_ERR_IO;
	f = pending_json(a, p);
	notifier_fire(a->notify, outcome == APPROVAL_GRANTED ? "granted" :
	    outcome == APPROVAL_DENIED ? "denied" : "expired", a->session, f,
	    approver, text);
	json_decref(f);
	memcpy(a->decided[a->ndecided++ % DECIDED_RING], p->id, sizeof(p->id));
	if (outcome == APPROVAL_DENIED)
		denied_add(a, p->key, p->id);
	if (p->watch > 0)
		loop_unwatch(a->loop, p->watch);
	pending_clear(p);
	done(arg, outcome, approver, text);
	return 0;
}

/*
 * After a human denied approval |id| (action key |key|, copied by the
 * caller: the slot is gone), denies every other pending approval of the
 * same action with the same words: an agent that asked one thing many
 * times must not leave the copies of a "no" waiting for a "yes".
 */
static void
deny_same(struct approvals *a, const char *key, const char *id,
    const char *approver, const char *text)
{
	char by[512];
	size_t i;

	if (snprintf(by, sizeof(by), "%s (the same action as approval %s)",
	    approver != NULL ? approver : "?", id) < 0)
		by[0] = '\0';
	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (a->p[i].id[0] != '\0' && strcmp(a->p[i].key, key) == 0)
			(void)pending_finish(a, &a->p[i], APPROVAL_DENIED, by,
			    text);
}

/* pending_finish(), and a denial denies the same action pending again. */
static int
pending_decide(struct approvals *a, struct pending *p,
    enum approval_outcome outcome, const char *approver, const char *text)
{
	char key[65], id[16];
	int rc;

	memcpy(key, p->key, sizeof(key));
	memcpy(id, p->id, sizeof(id));
	if ((rc = pending_finish(a, p, outcome, approver, text)) == 0 &&
	    outcome == APPROVAL_DENIED)
		deny_same(a, key, id, approver, text);
	return rc;
}

static void
pending_expired(int fd, int why, void *arg)
{
	struct pending *p = arg;

	(void)fd;
	(void)why;
	p->watch = 0;
	(void)pending_finish(p->owner, p, APPROVAL_EXPIRED, NULL, NULL);
}

static int
was_decided(const struct approvals *a, const char *id)
{
	size_t i, n = a->ndecided < DECIDED_RING ? a->ndecided : DECIDED_RING;

	for (i = 0; i < n; i++)
		if (strcmp(a->decided[i], id) == 0)
			return 1;
	return 0;
}

/* Is |id| another pending request's, or one decided in this session? */
static int
id_in_use(const struct approvals *a, const struct pending *p, const char *id)
{
	size_t i;

	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (&a->p[i] != p && strcmp(a->p[i].id, id) == 0)
			return 1;
	return was_decided(a, id);
}

/*
 * The arguments that say what |tool| asks for: all of them, but of a
 * request_approval only its "action": its "reason" and "evidenceUris"
 * are the agent's case for it, like a call's _meta.reason, and a new
 * case for an action denied is the same question again.  Returns |args|
 * or a new object in *made (else NULL there), which the caller frees.
 */
static json_t *
request_asked(const struct approvals *a, const char *tool, json_t *args,
    json_t **made)
{
	const struct tool *t = manifest_tool(a->m, tool);

	*made = NULL;
	if (t == NULL || t->action != ACTION_REQUEST_APPROVAL ||
	    !json_is_object(args))
		return args;
	if ((*made = json_pack("{s:O?}", "action",
	    json_object_get(args, "action"))) == NULL)
		fatalx("json_pack");
	return *made;
}

const char *
approvals_request(struct approvals *a, const char *tool, json_t *args,
    json_t *execution, json_t *evidence, int64_t wait_ms,
    approval_done_fn done, void *arg, enum approval_refusal *refused,
    char *why, size_t whylen)
{
	struct pending	*p = NULL;
	unsigned char	 rnd[4];
	char		*msg, key[65], digest[65];
	const char	*was;
	int64_t		 ttl, since;
	size_t		 i, asks;
	json_t		*f, *kargs;
	int		 rc;

	*refused = APPROVAL_REFUSED_BUSY;
	snprintf(why, whylen, "too many approvals are pending");
	/*
	 * Asked again after a human said no: refused without asking, or an
	 * agent could ask until a tired person clicked yes (approval
	 * fatigue).  Recorded, even if the record fails: nothing runs.
	 */
	approvals_action_key(tool, request_asked(a, tool, args, &kargs),
	    execution, key);
	json_decref(kargs);
	if ((was = denied_before(a, key)) != NULL) {
		*refused = APPROVAL_REFUSED_DENIED;
		snprintf(why, whylen, "a human denied this same %s call in "
		    "this session (approval %s); airlock does not ask again "
		    "for it: nobody was asked and nothing was done (change "
		    "the approach, or ask for something else)", tool, was);
		approvals_digest(tool, args, execution, digest);
		f = json_pack("{s:s, s:s, s:s, s:s}", "tool", tool, "digest",
		    digest, "deniedApproval", was, "reason",
		    "denied_before");
		(void)a->audit(a->audit_arg, "approval_repeat_refused", f);
		json_decref(f);
		return NULL;
	}
	/* The oldest of the last approvals.maxAsksPerMinute asked, within
	 * the minute. */
	asks = (size_t)a->m->approvals.max_asks_per_minute;
	if (asks < 1 || asks > APPROVALS_MAX_ASKS_PER_MINUTE)
		asks = 1;	/* the loader's bounds; fail closed */
	since = a->nasked < asks ? ASK_WINDOW_MS : now_monotonic_ms() -
	    a->asked[(a->nasked - asks) % APPROVALS_MAX_ASKS_PER_MINUTE];
	if (since < ASK_WINDOW_MS) {
		*refused = APPROVAL_REFUSED_RATE;
		snprintf(why, whylen, "%zu approvals were asked of a human in "
		    "the last minute, the most a session may ask "
		    "(approvals.maxAsksPerMinute; each pages a person, and a "
		    "withdrawn one pages them again): nobody was asked and "
		    "nothing was done; ask again in %lld seconds", asks,
		    (long long)((ASK_WINDOW_MS - since + 999) / 1000));
		approvals_digest(tool, args, execution, digest);
		f = json_pack("{s:s, s:s, s:I, s:i, s:s}", "tool", tool,
		    "digest", digest, "asked", (json_int_t)asks,
		    "windowSeconds", ASK_WINDOW_MS / 1000, "reason",
		    "approval_rate");
		(void)a->audit(a->audit_arg, "approval_rate_refused", f);
		json_decref(f);
		return NULL;
	}
	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (a->p[i].id[0] == '\0') {
			p = &a->p[i];
			break;
		}
	if (p == NULL)
		return NULL;
	memcpy(p->key, key, sizeof(key));
	/* Never an id this session knows: a token for the old request would
	 * name the new one. */
	do {
		randombytes_buf(rnd, sizeof(rnd));
		snprintf(p->id, sizeof(p->id), "%02x%02x%02x%02x", rnd[0],
		    rnd[1], rnd[2], rnd[3]);
	} while (id_in_use(a, p, p->id));
	p->tool = xstrdup(tool);
	p->args = json_deep_copy(args);
	p->execution = execution != NULL ? json_deep_copy(execution) : NULL;
	p->evidence = evidence != NULL ? json_deep_copy(evidence) : NULL;
	approvals_digest(tool, args, execution, p->digest);
	ttl = a->m->approvals.ttl_seconds > 0 ?
	    a->m->approvals.ttl_seconds * 1000 : 15 * 60 * 1000;
	if (wait_ms <= 0 || wait_ms > ttl)
		wait_ms = ttl;
	p->requested = now_wall_ms();
	p->expires = p->requested + wait_ms;
	p->done = done;
	p->arg = arg;
	p->owner = a;
	p->watch = loop_watch(a->loop, -1, now_monotonic_ms() + wait_ms,
	    pending_expired, p);
	f = pending_json(a, p);
	/* Signed once: what it says does not change while it waits. */
	if (f != NULL && a->attest != NULL &&
	    (msg = reqsig_message(f)) != NULL) {
		p->attestation = a->attest(a->attest_arg, msg, strlen(msg));
		free(msg);
	}
	/* Not in the log, not asked: no human sees it, nothing can grant it. */
	if ((rc = a->audit(a->audit_arg, "approval_created", f)) != 0) {
		json_decref(f);
		if (p->watch > 0)
			loop_unwatch(a->loop, p->watch);
		pending_clear(p);
		*refused = APPROVAL_REFUSED_UNRECORDED;
		snprintf(why, whylen, "the audit log cannot record this "
		    "approval request (the log cannot be written, or the "
		    "request is too large to record); nobody was asked and "
		    "nothing was done");
		return NULL;
	}
	if (p->attestation != NULL)
		json_object_set(f, REQSIG_MEMBER, p->attestation);
	notifier_fire(a->notify, "created", a->session, f, NULL, NULL);
	json_decref(f);
	a->asked[a->nasked++ % APPROVALS_MAX_ASKS_PER_MINUTE] =
	    now_monotonic_ms();
	return p->id;
}

int
approvals_withdraw(struct approvals *a, const char *id, const char *why)
{
	struct pending	*p = NULL;
	json_t		*f;
	size_t		 i;
	int		 rc;

	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (id[0] != '\0' && strcmp(a->p[i].id, id) == 0) {
			p = &a->p[i];
			break;
		}
	if (p == NULL)
		return AL_ERR_NOT_FOUND;
	f = json_pack("{s:s, s:s, s:s, s:s}", "approval", p->id, "tool",
	    p->tool, "digest", p->digest, "reason", why);
	rc = a->audit(a->audit_arg, "approval_withdrawn", f);
	json_decref(f);
	/* Approvers' channels drop it: nobody is asked any more. */
	f = pending_json(a, p);
	notifier_fire(a->notify, "withdrawn", a->session, f, NULL, why);
	json_decref(f);
	/* Withdrawn even unrecorded: like a denial, it ends in nothing run. */
	memcpy(a->withdrawn[a->nwithdrawn++ % WITHDRAWN_RING], p->id,
	    sizeof(p->id));
	if (p->watch > 0)
		loop_unwatch(a->loop, p->watch);
	pending_clear(p);
	return rc != 0 ? AL_ERR_IO : 0;
}

static int
was_withdrawn(const struct approvals *a, const char *id)
{
	size_t i, n = a->nwithdrawn < WITHDRAWN_RING ? a->nwithdrawn :
	    WITHDRAWN_RING;

	for (i = 0; id != NULL && i < n; i++)
		if (strcmp(a->withdrawn[i], id) == 0)
			return 1;
	return 0;
}

/* Signed decision tokens (common/approver_token.h). */

static int
key_in(const unsigned char pk[32], const unsigned char (*set)[32], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (sodium_memcmp(set[i], pk, 32) == 0)
			return 1;
	return 0;
}

int
approvals_token(struct approvals *a, json_t *tok, const char *via, char *why,
    size_t whylen)
{
	const struct approval_policy *ap = &a->m->approvals;
	unsigned char	 pk[32];
	char		 pktext[APPROVER_PK_TEXT], by[256];
	char		 idq[17], sessq[65];
	const char	*id, *session, *digest, *decision, *text, *name = NULL;
	const char	*cls = NULL;
	struct pending	*p = NULL;
	int64_t		 expires;
	size_t		 i;
	json_t		*f;
	int		 rc;

	why[0] = '\0';
	id = json_string_value(json_object_get(tok, "approval"));
	if ((rc = approver_token_check(tok, pk, why, whylen)) != 0) {
		cls = rc == AL_ERR_CRYPTO ? "bad_signature" : "malformed";
		goto refuse;
	}
	approver_pk_encode(pk, pktext);
	session = json_string_value(json_object_get(tok, "session"));
	/* Quoted in a refusal, which is JSON: cut between characters. */
	utf8_fit(idq, sizeof(idq), id);
	utf8_fit(sessq, sizeof(sessq), session);
	digest = json_string_value(json_object_get(tok, "digest"));
	decision = json_string_value(json_object_get(tok, "decision"));
	text = json_string_value(json_object_get(tok, "text"));
	expires = json_integer_value(json_object_get(tok, "expires"));
	if (key_in(pk, (const unsigned char (*)[32])ap->revoked, ap->nrevoked)) {
		cls = "revoked_key";
		snprintf(why, whylen, "the signing key is revoked "
		    "(approvals.revokedKeys)");
		goto refuse;
	}
	for (i = 0; i < ap->nkeys; i++)
		if (sodium_memcmp(ap->keys[i].pk, pk, 32) == 0) {
			name = ap->keys[i].name;
			break;
		}
	if (i == ap->nkeys) {
		cls = "unknown_key";
		snprintf(why, whylen, "the signing key is not pinned by this "
		    "session's manifest (approvals.keys)");
		goto refuse;
	}
	if (strcmp(session, a->session) != 0) {
		cls = "wrong_session";
		snprintf(why, whylen, "the token is for session %s, not %s",
		    sessq, a->session);
		goto refuse;
	}
	if (expires * 1000 <= now_wall_ms()) {
		cls = "expired";
		snprintf(why, whylen, "the token expired at %lld (unix time)",
		    (long long)expires);
		goto refuse;
	}
	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (a->p[i].id[0] != '\0' && strcmp(a->p[i].id, id) == 0) {
			p = &a->p[i];
			break;
		}
	if (p == NULL && was_withdrawn(a, id)) {
		cls = "withdrawn";
		snprintf(why, whylen, APPROVAL_WITHDRAWN_MSG, id);
		goto refuse;
	}
	if (p == NULL) {
		cls = was_decided(a, id) ? "replay" : "not_pending";
		snprintf(why, whylen, was_decided(a, id) ?
		    "replay: approval %.16s was already decided" :
		    "no such pending approval %.16s (decided, expired or "
		    "unknown)", idq);
		goto refuse;
	}
	if (strcmp(digest, p->digest) != 0) {
		cls = "wrong_digest";
		snprintf(why, whylen, "the token's digest does not match the "
		    "pending action; it was signed for another action");
		goto refuse;
	}
	if (strcmp(decision, "deny") == 0 && (text == NULL || text[0] == '\0')) {
		cls = "malformed";
		snprintf(why, whylen, "a denial needs a reason");
		goto refuse;
	}
	if (snprintf(by, sizeof(by), "%s%skey %s (signed token via %s)",
	    name != NULL ? name : "", name != NULL ? ", " : "", pktext,
	    via) < 0)
		by[0] = '\0';
	if (pending_decide(a, p, strcmp(decision, "approve") == 0 ?
	    APPROVAL_GRANTED : APPROVAL_DENIED, by, text) != 0) {
		snprintf(why, whylen, "the audit log cannot record the grant; "
		    "approval %s stays pending and nothing was done", idq);
		return AL_ERR_IO;
	}
	return 0;
refuse:
	f = json_pack("{s:s, s:s, s:s, s:s?}", "refused", cls, "reason", why,
	    "via", via, "approval", id);
	if (cls != NULL && strcmp(cls, "malformed") != 0 &&
	    strcmp(cls, "bad_signature") != 0)
		json_object_set_new(f, "key", json_string(pktext));
	refusal_audit(a, "approval_token_refused", f);
	json_decref(f);
	return AL_ERR_DENIED;
}

/*
 * Whether |tok| is another session's to take: it names another session,
 * its signature verifies and it has not expired.  Sessions started from
 * one manifest watch one inbox: such a token is left where it is for the
 * session it names (before, whichever session scanned first refused it
 * as wrong_session and removed it, so that a denial was lost and the
 * action stayed pending).  Anything else is this session's to apply or
 * refuse, and remove: a token for another session that is malformed,
 * badly signed or expired is of use to no one.
 */
static int
inbox_foreign(const struct approvals *a, json_t *tok)
{
	const char	*session;
	unsigned char	 pk[32];
	char		 why[256];

	session = json_string_value(json_object_get(tok, "session"));
	if (session == NULL || strcmp(session, a->session) == 0 ||
	    approver_token_check(tok, pk, why, sizeof(why)) != 0)
		return 0;
	return json_integer_value(json_object_get(tok, "expires")) * 1000 >
	    now_wall_ms();
}

/*
 * The inbox: every regular file that appears in the directory is read as
 * one token (at most APPROVER_TOKEN_MAX bytes), applied or refused (both
 * audited), and removed, unless it is another session's token
 * (inbox_foreign()): that stays.  Names beginning with "." are left
 * alone, so a carrier can write ".tmp" and rename(2) it in.  Returns 1
 * when the file was taken, 0 when it was left.
 */
static int
inbox_file(struct approvals *a, const char *name)
{
	char		 buf[APPROVER_TOKEN_MAX + 1], via[300], why[512];
	struct stat	 st;
	ssize_t		 n;
	size_t		 got = 0;
	json_t		*tok;
	int		 fd;

	if (name[0] == '.' || strlen(name) > 200)
		return 0;
	snprintf(via, sizeof(via), "inbox:%s", name);
	fd = openat(a->inbox_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > APPROVER_TOKEN_MAX) {
		tok = NULL;
	} else {
		while (got < sizeof(buf) - 1 &&
		    (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
			got += (size_t)n;
		tok = utf8_valid(buf, got) ? json_loadb(buf, got,
		    JSON_REJECT_DUPLICATES, NULL) : NULL;
	}
	if (fd != -1)
		close(fd);
	if (tok != NULL && inbox_foreign(a, tok)) {
		json_decref(tok);
		return 0;
	}
	if (tok == NULL) {
		json_t *f = json_pack("{s:s, s:s, s:s}", "refused", "malformed",
		    "reason", "not a regular file holding one JSON token",
		    "via", via);

		refusal_audit(a, "approval_token_refused", f);
		json_decref(f);
	} else {
		if (approvals_token(a, tok, via, why, sizeof(why)) != 0)
			log_warnx("approval token %s refused: %s", name, why);
		json_decref(tok);
	}
	(void)unlinkat(a->inbox_fd, name, 0);
	return 1;
}

/*
 * Takes at most INBOX_MAX_FILES files of the first INBOX_MAX_SCAN
 * entries: another session's tokens, left in place, do not count.
 */
static void
inbox_scan(struct approvals *a)
{
	struct dirent	*de;
	DIR		*d;
	char		 name[256];
	size_t		 taken = 0, seen = 0;
	int		 fd;

	if ((fd = dup(a->inbox_fd)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	rewinddir(d);
	/* Removing the entry just read does not upset readdir(3). */
	while (taken < INBOX_MAX_FILES && seen < INBOX_MAX_SCAN &&
	    (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		seen++;
		snprintf(name, sizeof(name), "%s", de->d_name);
		taken += (size_t)inbox_file(a, name);
	}
	closedir(d);
}

static void
inbox_event(int fd, int why, void *arg)
{
	struct approvals	*a = arg;
	char			 buf[4096];

	(void)why;
	/* Drain the events; the directory itself says what is there. */
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	inbox_scan(a);
}

int
approvals_inbox_safe(const char *dir, const struct stat *st, uid_t uid,
    char *why, size_t whylen)
{
	if (!S_ISDIR(st->st_mode)) {
		snprintf(why, whylen, "approvals.inbox %s is not a directory",
		    dir);
		return 0;
	}
	if (st->st_uid != 0 && st->st_uid != uid) {
		snprintf(why, whylen, "approvals.inbox %s belongs to uid %lu, "
		    "not to root or to the user running airlock (uid %lu): "
		    "its owner could remove the tokens in it (a denial never "
		    "read) or fill it; chown it", dir,
		    (unsigned long)st->st_uid, (unsigned long)uid);
		return 0;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    (st->st_mode & S_ISVTX) == 0) {
		snprintf(why, whylen, "approvals.inbox %s is writable by %s "
		    "(mode %04o) without the sticky bit: another user could "
		    "remove or rename the tokens in it (a denial never read); "
		    "chmod g-w,o-w it, or +t for a carrier of another user",
		    dir, (st->st_mode & S_IWOTH) != 0 ? "others" : "its group",
		    (unsigned)(st->st_mode & 07777));
		return 0;
	}
	return 1;
}

/* Opens and watches the inbox.  Returns 0 or -1 with |err| set. */
static int
inbox_open(struct approvals *a, char *err, size_t errlen)
{
	const char	*dir = a->m->approvals.inbox;
	char		 watched[64];
	struct stat	 st;

	if (dir == NULL)
		return 0;
	if ((mkdir(dir, 0700) == -1 && errno != EEXIST) ||
	    (a->inbox_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(a->inbox_fd, &st) == -1) {
		snprintf(err, errlen, "approvals.inbox %s: %s", dir,
		    strerror(errno));
		return -1;
	}
	if (!approvals_inbox_safe(dir, &st, geteuid(), err, errlen))
		return -1;
	/* The directory just checked, not what the path names by now. */
	snprintf(watched, sizeof(watched), "/proc/self/fd/%d", a->inbox_fd);
	if ((a->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1 ||
	    inotify_add_watch(a->inotify_fd, watched, IN_CLOSE_WRITE |
	    IN_MOVED_TO) == -1) {
		snprintf(err, errlen, "approvals.inbox %s: inotify: %s", dir,
		    strerror(errno));
		return -1;
	}
	a->inbox_watch = loop_watch(a->loop, a->inotify_fd, INT64_MAX,
	    inbox_event, a);
	return 0;
}

/* The control socket. */

static void
client_close(struct client *c)
{
	if (c->fd == -1)
		return;
	loop_unwatch(c->owner->loop, c->watch);
	if (c->out_watch > 0)
		loop_unwatch(c->owner->loop, c->out_watch);
	c->watch = c->out_watch = 0;
	close(c->fd);
	buf_free(c->in);
	c->in = NULL;
	free(c->out);
	c->out = NULL;
	c->outoff = c->outlen = 0;
	c->fd = -1;
}

static void	client_input(int, int, void *);
static void	client_output(int, int, void *);

/*
 * Sends what fits of the waiting answer.  0 when all of it is sent, 1
 * when some waits for room, -1 when the client is gone (closed here).
 */
static int
client_flush(struct client *c)
{
	ssize_t n;

	while (c->outlen > 0) {
		n = send(c->fd, c->out + c->outoff, c->outlen,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (n <= 0) {
			client_close(c);
			return -1;
		}
		c->outoff += (size_t)n;
		c->outlen -= (size_t)n;
	}
	free(c->out);
	c->out = NULL;
	c->outoff = 0;
	return 0;
}

/*
 * Waits for room to send the rest of the answer, and reads no request
 * meanwhile; the client's deadline (a peer that is not an approver)
 * still closes it.
 */
static void
client_hold(struct client *c)
{
	struct loop *l = c->owner->loop;

	loop_unwatch(l, c->watch);
	c->watch = c->deadline != INT64_MAX ?
	    loop_watch(l, -1, c->deadline, client_input, c) : 0;
	if ((c->deadline != INT64_MAX && c->watch < 0) ||
	    (c->out_watch = loop_watch_writable(l, c->fd, client_output,
	    c)) < 0) {
		c->out_watch = 0;
		client_close(c);
	}
}

static void
client_reply(struct client *c, json_t *reply)
{
	char *s = json_dumps(reply, JSON_COMPACT);
	size_t len;

	json_decref(reply);
	if (s == NULL) {
		client_close(c);
		return;
	}
	len = strlen(s);
	c->out = xreallocarray(s, len + 1, 1);
	c->out[len] = '\n';
	c->outoff = 0;
	c->outlen = len + 1;
	if (client_flush(c) == 1)
		client_hold(c);
}

static void
client_request(struct client *c, const char *frame, size_t len)
{
	struct approvals	*a = c->owner;
	json_t			*req, *list, *wlist;
	const char		*op, *id, *digest, *text;
	char			 who[128];
	size_t			 i;

	uid_name(c->uid, who, sizeof(who));
	if (!utf8_valid(frame, len) ||
	    (req = json_loadb(frame, len, JSON_REJECT_DUPLICATES, NULL)) == NULL) {
		client_reply(c, json_pack("{s:s}", "error", "malformed request"));
		return;
	}
	op = json_string_value(json_object_get(req, "op"));
	if (!c->approver && (op == NULL || strcmp(op, "token") != 0)) {
		json_t *f = json_pack("{s:s, s:s, s:s}", "peer", who,
		    "op", op != NULL ? op : "?", "reason", c->why);

		refusal_audit(a, "approval_refused_peer", f);
		json_decref(f);
		client_reply(c, json_pack("{s:s, s:s}", "error", c->why,
		    "session", a->session));
		json_decref(req);
		return;
	}
	if (op != NULL && strcmp(op, "token") == 0) {
		char why[512], via[160];

		snprintf(via, sizeof(via), "control socket, %s", who);
		if (a->m->approvals.nkeys == 0)
			client_reply(c, json_pack("{s:s}", "error", "this "
			    "session pins no approver keys (approvals.keys)"));
		else if (approvals_token(a, json_object_get(req, "token"), via,
		    why, sizeof(why)) == 0)
			client_reply(c, json_pack("{s:b}", "ok", 1));
		else
			client_reply(c, json_pack("{s:s}", "error", why));
		json_decref(req);
		return;
	}
	if (op != NULL && strcmp(op, "pending") == 0) {
		list = json_array();
		for (i = 0; i < APPROVAL_MAX_PENDING; i++)
			if (a->p[i].id[0] != '\0')
				json_array_append_new(list,
				    pending_attested(a, &a->p[i]));
		wlist = json_array();
		for (i = 0; i < a->nwithdrawn && i < WITHDRAWN_RING; i++)
			json_array_append_new(wlist,
			    json_string(a->withdrawn[i]));
		client_reply(c, json_pack("{s:s, s:o, s:o}", "session",
		    a->session, "pending", list, "withdrawn", wlist));
		json_decref(req);
		return;
	}
	if (op == NULL || (strcmp(op, "approve") != 0 &&
	    strcmp(op, "deny") != 0)) {
		client_reply(c, json_pack("{s:s}", "error", "unknown op"));
		json_decref(req);
		return;
	}
	id = json_string_value(json_object_get(req, "id"));
	digest = json_string_value(json_object_get(req, "digest"));
	text = json_string_value(json_object_get(req,
	    strcmp(op, "approve") == 0 ? "note" : "reason"));
	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (id != NULL && a->p[i].id[0] != '\0' &&
		    strcmp(a->p[i].id, id) == 0)
			break;
	if (i == APPROVAL_MAX_PENDING && was_withdrawn(a, id)) {
		char msg[256];

		snprintf(msg, sizeof(msg), APPROVAL_WITHDRAWN_MSG, id);
		client_reply(c, json_pack("{s:s}", "error", msg));
	} else if (i == APPROVAL_MAX_PENDING) {
		client_reply(c, json_pack("{s:s}", "error",
		    "no such pending approval (decided, expired or unknown)"));
	} else if (digest == NULL || strcmp(digest, a->p[i].digest) != 0) {
		client_reply(c, json_pack("{s:s}", "error",
		    "digest does not match the pending action; refusing"));
	} else if (strcmp(op, "deny") == 0 && (text == NULL || text[0] == '\0')) {
		client_reply(c, json_pack("{s:s}", "error",
		    "a denial needs a reason"));
	} else if (pending_decide(a, &a->p[i], strcmp(op, "approve") == 0 ?
	    APPROVAL_GRANTED : APPROVAL_DENIED, who, text) != 0) {
		client_reply(c, json_pack("{s:s}", "error",
		    "the audit log cannot record the grant; the approval stays "
		    "pending and nothing was done"));
	} else
		client_reply(c, json_pack("{s:b}", "ok", 1));
	json_decref(req);
}

/* Answers the requests read so far, one at a time: each once the client
 * has read the answer before it. */
static void
client_frames(struct client *c)
{
	const char	*frame;
	size_t		 len;
	int		 rc;

	while (c->fd != -1 && c->out == NULL &&
	    (rc = buf_next_frame(c->in, &frame, &len)) != 0) {
		if (rc < 0) {
			client_close(c);
			return;
		}
		client_request(c, frame, len);
	}
}

static void
client_input(int fd, int why, void *arg)
{
	struct client	*c = arg;

	/* A peer that is not an approver had its time. */
	if ((why & LOOP_READABLE) == 0 || buf_fill(c->in, fd) <= 0) {
		client_close(c);
		return;
	}
	client_frames(c);
}

/* Room to send the waiting answer: then the requests read meanwhile. */
static void
client_output(int fd, int why, void *arg)
{
	struct client	*c = arg;
	struct loop	*l = c->owner->loop;

	(void)fd;
	(void)why;
	if (client_flush(c) != 0)
		return;
	loop_unwatch(l, c->out_watch);
	loop_unwatch(l, c->watch);
	c->out_watch = 0;
	if ((c->watch = loop_watch(l, c->fd, c->deadline, client_input,
	    c)) < 0) {
		c->watch = 0;
		client_close(c);
		return;
	}
	client_frames(c);
}

/*
 * The peer's groups as the kernel recorded them at connect(2): its
 * primary gid and, with SO_PEERGROUPS (Linux 4.13), the supplementary
 * ones.  Returns the count written into |gids| (at most |max|).
 */
static size_t
peer_groups(int fd, gid_t primary, gid_t *gids, size_t max)
{
	socklen_t	len = (socklen_t)((max - 1) * sizeof(gid_t));
	size_t		n = 0;

	gids[n++] = primary;
#ifdef SO_PEERGROUPS
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, gids + 1, &len) == 0)
		n += len / sizeof(gid_t);
#else
	(void)fd;
	(void)len;
#endif
	return n;
}

static void
control_accept(int fd, int why, void *arg)
{
	struct approvals	*a = arg;
	struct ucred		 cred;
	socklen_t		 clen = sizeof(cred);
	struct client		*c = NULL;
	gid_t			 gids[1024];
	char			 who[128], whynot[384];
	int			 cfd, ok;
	size_t			 i, ngids, nothers;

	(void)why;
	if ((cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) == -1)
		return;
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1) {
		close(cfd);
		return;
	}
	ngids = peer_groups(cfd, cred.gid, gids, sizeof(gids) / sizeof(gids[0]));
	ok = is_approver(a, cred.uid, gids, ngids, whynot, sizeof(whynot));
	/* Without pinned keys a non-approver can do nothing here: say why. */
	if (!ok && a->m->approvals.nkeys == 0) {
		json_t *f, *r;
		char *s;

		uid_name(cred.uid, who, sizeof(who));
		f = json_pack("{s:s, s:i, s:s}", "peer", who, "pid",
		    (int)cred.pid, "reason", whynot);
		refusal_audit(a, "approval_refused_peer", f);
		json_decref(f);
		r = json_pack("{s:s, s:s}", "error", whynot, "session",
		    a->session);
		if ((s = json_dumps(r, JSON_COMPACT)) != NULL) {
			(void)write_all(cfd, s, strlen(s));
			(void)write_all(cfd, "\n", 1);
		}
		free(s);
		json_decref(r);
		close(cfd);
		return;
	}
	for (i = 0, nothers = 0; i < CONTROL_MAX_CLIENTS; i++)
		if (a->c[i].fd == -1) {
			if (c == NULL)
				c = &a->c[i];
		} else if (!a->c[i].approver)
			nothers++;
	if (c == NULL || (!ok && nothers >= CONTROL_MAX_OTHERS)) {
		static const char busy[] =
		    "{\"error\":\"busy: too many clients\"}\n";

		(void)write_all(cfd, busy, sizeof(busy) - 1);
		close(cfd);
		return;
	}
	c->fd = cfd;
	c->uid = cred.uid;
	c->approver = ok;
	if (snprintf(c->why, sizeof(c->why), "%s", ok ? "" : whynot) < 0)
		c->why[0] = '\0';
	c->owner = a;
	if ((c->in = buf_new(CONTROL_MAX_FRAME)) == NULL)
		fatalx("out of memory");
	c->deadline = ok ? INT64_MAX : now_monotonic_ms() + CONTROL_OTHER_MS;
	c->out_watch = 0;
	if ((c->watch = loop_watch(a->loop, cfd, c->deadline, client_input,
	    c)) < 0) {
		c->watch = 0;
		client_close(c);
	}
}

int
approvals_shared(const struct manifest *m)
{
	const struct approval_policy *ap = &m->approvals;
	size_t i;

	if (ap->ngroups > 0 || ap->nkeys > 0)
		return 1;
	for (i = 0; i < ap->napprovers; i++)
		if (ap->approvers[i] != geteuid())
			return 1;
	return 0;
}

struct approvals *
approvals_new(const struct manifest *m, const char *session_id,
    struct loop *loop, struct egress *egress, approval_audit_fn audit,
    void *audit_arg, char *err, size_t errlen)
{
	struct approvals	*a;
	struct sockaddr_un	 sun;
	char			 dir[PATH_MAX];
	struct stat		 st;
	size_t			 i;
	mode_t			 old;
	int			 shared;

	if (approvals_runtime_dir(dir, sizeof(dir)) != 0 ||
	    (mkdir(dir, 0700) == -1 && errno != EEXIST) ||
	    lstat(dir, &st) == -1) {
		snprintf(err, errlen, "runtime directory %s: %s", dir,
		    strerror(errno));
		return NULL;
	}
	/*
	 * Fail closed if someone else could plant or replace a socket.  Others
	 * may pass through the directory (each socket's mode and the peer's
	 * credentials decide who gets in), but only we may write to it.
	 */
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0022) != 0) {
		snprintf(err, errlen, "runtime directory %s must be a directory "
		    "owned by uid %u that no one else can write to", dir,
		    (unsigned)geteuid());
		return NULL;
	}
	shared = approvals_shared(m);
	if (shared && (st.st_mode & 0005) != 0005 && chmod(dir, 0755) == -1) {
		snprintf(err, errlen, "runtime directory %s: %s", dir,
		    strerror(errno));
		return NULL;
	}
	a = xcalloc(1, sizeof(*a));
	a->m = m;
	a->loop = loop;
	a->audit = audit;
	a->audit_arg = audit_arg;
	snprintf(a->session, sizeof(a->session), "%s", session_id);
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		a->c[i].fd = -1;
	a->inbox_fd = a->inotify_fd = -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (snprintf(a->path, sizeof(a->path), "%s/%s.sock", dir,
	    session_id) >= (int)sizeof(sun.sun_path)) {
		snprintf(err, errlen, "control socket path too long");
		free(a);
		return NULL;
	}
	memcpy(sun.sun_path, a->path, strlen(a->path) + 1);
	if ((a->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		free(a);
		return NULL;
	}
	old = umask(0177);
	if (bind(a->lfd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    chmod(a->path, shared ? 0666 : 0600) == -1 ||
	    listen(a->lfd, 8) == -1) {
		umask(old);
		snprintf(err, errlen, "control socket %s: %s", a->path,
		    strerror(errno));
		close(a->lfd);
		free(a);
		return NULL;
	}
	umask(old);
	a->lwatch = loop_watch(loop, a->lfd, INT64_MAX, control_accept, a);
	if (inbox_open(a, err, errlen) != 0 || (a->notify = notifier_new(m,
	    loop, egress, audit, audit_arg, err, errlen)) == NULL) {
		approvals_free(a);
		return NULL;
	}
	/* Tokens that arrived before the session: nothing they name waits. */
	if (a->inbox_fd != -1)
		inbox_scan(a);
	return a;
}

void
approvals_set_attester(struct approvals *a, approval_attest_fn fn, void *arg)
{
	a->attest = fn;
	a->attest_arg = arg;
}

void
approvals_free(struct approvals *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		client_close(&a->c[i]);
	for (i = 0; i < APPROVAL_MAX_PENDING; i++)
		if (a->p[i].id[0] != '\0') {
			if (a->p[i].watch > 0)
				loop_unwatch(a->loop, a->p[i].watch);
			pending_clear(&a->p[i]);
		}
	notifier_free(a->notify);
	if (a->inbox_watch > 0)
		loop_unwatch(a->loop, a->inbox_watch);
	if (a->inotify_fd != -1)
		close(a->inotify_fd);
	if (a->inbox_fd != -1)
		close(a->inbox_fd);
	loop_unwatch(a->loop, a->lwatch);
	close(a->lfd);
	unlink(a->path);
	free(a);
}
