/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock diff | commit | discard SESSION: what a copy-on-write session
 * changed (supervisor/cowsession.h), landing it in the real checkout, or
 * throwing it away.
 *
 * commit: the session is locked (no agent runs it meanwhile); the
 * manifest it began under is loaded again and must have the digest it
 * had; the change set is collected from the session's upper layer
 * against the checkout and put through the write policy
 * (changeset_check: every refused entry is named with its rule, and
 * nothing is applied), the run budget's maxChangedFiles and
 * maxAddedDependencies (counted as the broker counts them), and the
 * conflict check; with
 * agent.commitApproval: required the committing user must be one of
 * approvals.approvers.  Then a commit log is opened and a durable
 * "cow_commit" record with the diff's sha256 is written before anything
 * lands; changeset_apply() lands all or nothing; "cow_applied" (or
 * "cow_apply_failed") follows, and the session continues from the new
 * checkout.  A mode bit that does not land (changeset_dropped()) is
 * told on stderr and listed in cow_applied; a session whose only change
 * is one commits as 0 entries, to say and record it.  Each commit and discard gets its own signed log,
 * SESSION/commits/TIME-N.jsonl (the session's own log was closed when its
 * run ended), which "airlock audit verify" checks like any other.
 *
 * discard builds neither change set nor diff (what the agent left can
 * make either fail or stall): its record counts the upper layer's
 * entries, and the session is emptied at any depth.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/audit.h"
#include "broker/changeset.h"
#include "broker/ledger.h"
#include "broker/wswrite.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "common/vis.h"
#include "policy/manifest.h"
#include "policy/writepolicy.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"
#include "supervisor/cowdiff.h"
#include "supervisor/cowsession.h"
#include "supervisor/hostkey.h"

#define EXIT_REFUSED 1 /* policy, conflicts, approval: nothing applied */
#define EXIT_FAILED 1 /* the session or the checkout cannot be read */
/* At most this many modesDropped entries in cow_applied, and refused
 * or conflicting ones in cow_commit_refused (the count is whole). */
#define COW_DROPPED_RECORDED 1000
/* ... and as many as fit in this many bytes of paths as JSON writes them
 * (changeset_refused_few()): the record must fit a line of the log. */
#define COW_DROPPED_BYTES (256 * 1024)

/* What every command needs: the session, both roots, its change set. */
struct cow_ctx {
	struct cowsession *cs;
	int upperfd;
	int rootfd;
	struct changeset *set;
	char *diff;
	size_t difflen;
	char sha[SHA256_HEX_LEN + 1];
};

static void
ctx_free(struct cow_ctx *x)
{
	changeset_free(x->set);
	free(x->diff);
	if (x->upperfd != -1)
		close(x->upperfd);
	if (x->rootfd != -1)
		close(x->rootfd);
	cowsession_free(x->cs);
}

/*
 * Opens the session |id| (locked as |lock| says), both roots, and rolls
 * back an interrupted apply into the checkout: no change set, no diff.
 */
static int
ctx_open_session(struct cow_ctx *x, const char *id, int lock)
{
	char err[PATH_MAX + 256];
	json_t *report = NULL;
	int rc;

	memset(x, 0, sizeof(*x));
	x->upperfd = x->rootfd = -1;
	if ((rc = cowsession_open(id, lock, &x->cs, err, sizeof(err))) != 0) {
		log_warnx("%s", err);
		/* In use (AL_ERR_CONFLICT) or unreadable: both exit 1. */
		return rc == AL_ERR_NOT_FOUND ? EXIT_NOINPUT : EXIT_FAILED;
	}
	if ((x->upperfd = open(x->cs->upper,
		 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    (x->rootfd = open(x->cs->workspace,
		 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		log_warn("session %s", x->cs->id);
		return EXIT_FAILED;
	}
	/* An apply into the checkout that was killed half way (a commit, a
	 * run's change set) is rolled back before anything reads it; the
	 * manifest is not loaded yet: .git and airlock's names hold. */
	if ((rc = changeset_recover(
		 x->rootfd, NULL, &report, err, sizeof(err))) < 0) {
		log_warnx("%s: %s", x->cs->workspace, err);
		return EXIT_FAILED;
	}
	if (rc > 0)
		log_warnx("%s: rolled back %d interrupted apply(s)",
		    x->cs->workspace, rc);
	json_decref(report);
	return 0;
}

/* ctx_open_session(), then the change set and its diff. */
static int
ctx_open(struct cow_ctx *x, const char *id, int lock)
{
	char err[PATH_MAX + 256];
	int rc;

	if ((rc = ctx_open_session(x, id, lock)) != 0)
		return rc;
	if ((rc = changeset_collect(x->upperfd, x->rootfd, x->cs->userxattr,
		 &x->set, err, sizeof(err))) != 0 ||
	    (rc = cowdiff_text(x->set, x->upperfd, x->rootfd, &x->diff,
		 &x->difflen, err, sizeof(err))) != 0) {
		log_warnx("session %s: %s", x->cs->id, err);
		return EXIT_FAILED;
	}
	sha256_hex(x->diff, x->difflen, x->sha);
	return 0;
}

static void
usage(const char *cmd)
{
	cli_usage(cmd);
}

/* Parses the command line: the session id, and commit's --digest. */
static int
parse(int argc, char **argv, const char *cmd, const char **id,
    const char **digest)
{
	static const struct option opts[] = {
		{ "digest", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	*digest = NULL;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch == 'd' && strcmp(cmd, "commit") == 0)
			*digest = optarg;
		else {
			usage(cmd);
			return -1;
		}
	}
	if (argc - optind != 1) {
		usage(cmd);
		return -1;
	}
	/* A short one was refused as a session that changed since. */
	if (*digest != NULL && !is_sha256_hex(*digest)) {
		log_warnx("--digest %s: %s", *digest,
		    "not a sha256 (the 64 hex digits that airlock diff printed)");
		return -1;
	}
	*id = argv[optind];
	return 0;
}

/*
 * Tells of the mode bits of |set| that do not land (changeset_dropped()),
 * a line each, as airlock exec does: |landed| says "landed" (commit) or
 * "lands" (diff).  Returns them (NULL if none), *total their count.
 */
static json_t *
tell_dropped(const struct changeset *set, const char *landed, size_t *total)
{
	json_t *dropped, *d;
	const char *path;
	size_t i;

	dropped = changeset_dropped(
	    set, COW_DROPPED_RECORDED, COW_DROPPED_BYTES, total);
	json_array_foreach(dropped, i, d)
	{
		path = json_string_value(json_object_get(d, "path"));
		log_warnx("%s: mode %s %s as %s (%s)", path,
		    json_string_value(json_object_get(d, "mode")), landed,
		    json_string_value(json_object_get(d, "landed")),
		    strcmp(path, ".") == 0
			? "the checkout root's mode is the owner's"
			: "a world-write bit lands only where the checkout "
			  "had it, an inherited setgid bit never");
	}
	if (*total > json_array_size(dropped))
		log_warnx("... and %zu more modes %s without a bit",
		    *total - json_array_size(dropped), landed);
	return dropped;
}

int
cmd_diff(int argc, char **argv)
{
	struct cow_ctx x;
	const char *id, *digest;
	char *folded;
	size_t ndropped;
	int rc;

	log_init("airlock diff", 0);
	if (parse(argc, argv, "diff", &id, &digest) != 0)
		return EXIT_USAGE;
	if ((rc = ctx_open(&x, id, COWSESSION_NOLOCK)) == 0) {
		/* Folded to the terminal (vis_fold()); the digest is the
		 * text's, whatever the width. */
		if ((folded = vis_fold(x.diff, x.difflen,
			 term_columns(STDOUT_FILENO))) == NULL)
			fatalx("out of memory");
		if (fputs(folded, stdout) == EOF || fflush(stdout) == EOF)
			rc = EXIT_FAILED;
		free(folded);
		json_decref(tell_dropped(x.set, "lands", &ndropped));
		fprintf(stderr, "airlock: session %s: %zu %s, diff sha256 %s\n",
		    x.cs->id, changeset_count(x.set),
		    changeset_count(x.set) == 1 ? "entry" : "entries", x.sha);
	}
	ctx_free(&x);
	return rc;
}

/*
 * Opens a new signed log SESSION/commits/TIME-N.jsonl for one action,
 * its session key certified by the host key like a session's own log's
 * (broker/audit.h): the log is the only record of a commit, and an
 * uncertified one was UNTRUSTED under "audit verify --key", which a log
 * forged under any key of its own is too.
 */
static struct audit *
commit_log(const struct cowsession *cs, char *path, size_t pathlen)
{
	struct audit *a = NULL;
	char dir[PATH_MAX], stamp[64], hostkey[PATH_MAX], err[512] = "";
	char hostpub[AUDIT_PUBKEY_HEX_LEN + 1];
	int i;

	if (hostkey_ensure(hostpub, err, sizeof(err)) != 0 ||
	    hostkey_path(hostkey, sizeof(hostkey)) != 0) {
		log_warnx("audit host key: %s", err);
		return NULL;
	}
	snprintf(dir, sizeof(dir), "%s", cs->dir);
	*strrchr(dir, '/') = '\0';
	if ((size_t)snprintf(path, pathlen, "%s/commits", dir) >= pathlen ||
	    (mkdir(path, 0700) == -1 && errno != EEXIST))
		return NULL;
	format_rfc3339(now_wall_ms(), stamp);
	for (i = 0; i < 1000 && a == NULL; i++) {
		if ((size_t)snprintf(path, pathlen, "%s/commits/%.19s-%d.jsonl",
			dir, stamp, i) >= pathlen)
			return NULL;
		if (access(path, F_OK) == 0)
			continue;
		if (audit_open_certified(path, cs->id, hostkey, NULL, &a) != 0)
			a = NULL;
	}
	return a;
}

/*
 * Opens a new log for the session (its path into |logpath|) and writes
 * |event| durably: the workspace, the uid, and the fields of |extra|
 * (a commit's diff sha256 and entry count, a discard's count of the upper
 * layer; a new reference, consumed).  Returns the
 * open log, or NULL (said, with "nothing is |what|") when either fails:
 * no record, no change.
 */
static struct audit *
log_intent(const struct cow_ctx *x, const char *event, json_t *extra,
    const char *what, char *logpath, size_t logpathlen)
{
	struct audit *a;
	json_t *f;
	int rc = -1;

	f = json_pack("{s:s, s:I}", "workspace", x->cs->workspace, "uid",
	    (json_int_t)getuid());
	if ((a = commit_log(x->cs, logpath, logpathlen)) != NULL && f != NULL &&
	    extra != NULL && json_object_update(f, extra) == 0)
		rc = audit_append_durable(a, event, f);
	json_decref(f);
	json_decref(extra);
	if (rc != 0) {
		log_warnx(
		    "session %s: its log cannot be written: nothing is %s",
		    x->cs->id, what);
		audit_close(a);
		return NULL;
	}
	return a;
}

/*
 * Each refused entry on a line of its own, folded to the terminal's
 * width (vis_fold()): a path the session wrote, padded to the edge,
 * began a row of its own with what it held after, a line of airlock's.
 */
static void
print_refused(json_t *refused, const char *what)
{
	size_t i, width = term_columns(STDERR_FILENO);
	json_t *r;

	json_array_foreach(refused, i, r)
	{
		const char *path =
		    json_string_value(json_object_get(r, "path"));
		const char *rule =
		    json_string_value(json_object_get(r, "rule"));
		const char *why =
		    json_string_value(json_object_get(r, "reason"));
		char *vp = vis_str(path, 0);
		int rc;

		if (rule != NULL)
			rc = vis_fold_printf(stderr, width, "%s: %s: %s (%s)\n",
			    what, vp != NULL ? vp : "?", rule,
			    writepolicy_rule_text(rule));
		else
			rc =
			    vis_fold_printf(stderr, width, "%s: %s: %s\n", what,
				vp != NULL ? vp : "?", why != NULL ? why : "");
		free(vp);
		if (rc == -1)
			fatalx("out of memory");
	}
}

/* Records one refused commit in a log of its own. */
static void
log_refusal(const struct cowsession *cs, const char *sha, const char *why,
    json_t *entries)
{
	char path[PATH_MAX + 64];
	struct audit *a;
	json_t *f;

	if ((a = commit_log(cs, path, sizeof(path))) == NULL)
		return;
	f = json_pack("{s:s, s:s, s:s}", "workspace", cs->workspace,
	    "diffSha256", sha, "reason", why);
	/* The agent names them: as many as fit a line of the log. */
	if (entries != NULL) {
		json_object_set_new(f, "entries",
		    changeset_refused_few(
			entries, COW_DROPPED_RECORDED, COW_DROPPED_BYTES));
		json_object_set_new(f, "total",
		    json_integer((json_int_t)json_array_size(entries)));
	}
	if (audit_append(a, "cow_commit_refused", f) != 0)
		log_warnx("%s: the refusal could not be recorded", path);
	json_decref(f);
	audit_close(a);
}

static int
load_manifest(const struct cowsession *cs, struct manifest **m)
{
	char err[1024], hex[65];
	int rc;

	if (cs->manifest[0] == '\0')
		rc = manifest_load_default(m, err, sizeof(err));
	else
		rc = manifest_load(cs->manifest, m, err, sizeof(err));
	if (rc != 0) {
		log_warnx("the session's manifest: %s", err);
		return -1;
	}
	sodium_bin2hex(hex, sizeof(hex), (*m)->digest, sizeof((*m)->digest));
	if (strcmp(hex, cs->digest) != 0) {
		log_warnx("the manifest %s changed since session %s began "
			  "(sha256 %.16s... then, %.16s... now): nothing is "
			  "applied",
		    cs->manifest[0] ? cs->manifest : "<default>", cs->id,
		    cs->digest, hex);
		manifest_free(*m);
		*m = NULL;
		return -1;
	}
	return 0;
}

/*
 * With agent.commitApproval: required, the caller must be an approver:
 * its real uid listed in approvals.approvers, or its real gid or one of
 * its supplementary groups named there (group:NAME, @GID), as the broker
 * admits approvers (broker/approval.c is_approver()).  Before, only uids
 * were looked at, so that a member of a listed group, who may decide the
 * session's approvals, could not commit it.
 */
static int
approver_ok(const struct manifest *m, uid_t uid)
{
	gid_t gids[NGROUPS_MAX + 1];
	size_t i, j;
	int n;

	if (!m->agent.commit_approval)
		return 1;
	for (i = 0; i < m->approvals.napprovers; i++)
		if (m->approvals.approvers[i] == uid)
			return 1;
	if (m->approvals.ngroups == 0)
		return 0;
	gids[0] = getgid();
	if ((n = getgroups(NGROUPS_MAX, gids + 1)) < 0)
		return 0;
	for (i = 0; i < m->approvals.ngroups; i++)
		for (j = 0; j <= (size_t)n; j++)
			if (m->approvals.approver_groups[i] == gids[j])
				return 1;
	return 0;
}

/*
 * The run budget's file counts, by the broker's own ledger: 1 (|limit|
 * named) when landing |paths| in the checkout |rootfd| would go over
 * maxChangedFiles or maxAddedDependencies.  A dependency file that a
 * link of the checkout makes another file is that file too, as the
 * broker counts it: with requirements.txt -> requirements/base.txt, a
 * session that appended to requirements/base.txt landed with
 * maxAddedDependencies: 0.
 */
static int
over_budget(const struct manifest *m, int rootfd, const char **paths, size_t n,
    char *limit, size_t limitlen)
{
	struct ledger *l = ledger_new(m, now_monotonic_ms());
	char **real;
	size_t i, nreal;
	int rc;

	real = wswrite_dependency_real(
	    rootfd, m->dependency_files, m->ndependency_files, &nreal);
	ledger_dependency_real(l, (const char *const *)real, nreal);
	for (i = 0; i < nreal; i++)
		free(real[i]);
	free(real);
	rc = ledger_admit_write(l, paths, n, 0, limit, limitlen);
	ledger_free(l);
	return rc != 0;
}

int
cmd_commit(int argc, char **argv)
{
	struct cow_ctx x;
	struct manifest *m = NULL;
	struct audit *a = NULL;
	const char *id, *digest, **paths;
	char err[1024], logpath[PATH_MAX + 64], limit[64];
	json_t *refused, *f, *dropped;
	size_t ndropped;
	size_t n;
	int rc, arc;

	log_init("airlock commit", 0);
	if (parse(argc, argv, "commit", &id, &digest) != 0)
		return EXIT_USAGE;
	if ((rc = ctx_open(&x, id, COWSESSION_LOCK)) != 0)
		goto out;
	if (load_manifest(x.cs, &m) != 0) {
		rc = EXIT_REFUSED;
		goto out;
	}
	/* A session whose only change is a mode bit that does not land
	 * (chmod o+w of a directory) is committed all the same, as a run's
	 * change set is: the drop is told and recorded, and the session
	 * emptied; before, "nothing to commit" said nothing of it. */
	if (changeset_count(x.set) == 0 && !changeset_has_dropped(x.set)) {
		fprintf(stderr, "airlock: session %s has nothing to commit\n",
		    x.cs->id);
		rc = 0;
		goto out;
	}
	if (digest != NULL && strcmp(digest, x.sha) != 0) {
		log_warnx("session %s changed since its diff was read (sha256 "
			  "%s now, %s given): nothing is applied",
		    x.cs->id, x.sha, digest);
		rc = EXIT_REFUSED;
		goto out;
	}
	if ((refused = changeset_check(
		 x.set, &m->sandbox, x.rootfd, CHANGESET_MAX_BYTES)) != NULL) {
		print_refused(refused, "refused");
		log_warnx("session %s: %zu %s refused by the write policy: "
			  "nothing is applied",
		    x.cs->id, json_array_size(refused),
		    json_array_size(refused) == 1 ? "entry" : "entries");
		log_refusal(x.cs, x.sha, "policy", refused);
		json_decref(refused);
		rc = EXIT_REFUSED;
		goto out;
	}
	paths = changeset_paths(x.set, &n);
	if (over_budget(m, x.rootfd, paths, n, limit, sizeof(limit))) {
		free(paths);
		log_warnx("session %s changes %zu files, over runBudget.%s: "
			  "nothing is applied",
		    x.cs->id, n, limit);
		log_refusal(x.cs, x.sha, limit, NULL);
		rc = EXIT_REFUSED;
		goto out;
	}
	refused = cowsession_conflicts(x.cs, paths, n, &rc, err, sizeof(err));
	free(paths);
	if (rc != 0) {
		log_warnx("session %s: %s", x.cs->id, err);
		rc = EXIT_FAILED;
		goto out;
	}
	if (refused != NULL) {
		print_refused(refused, "conflict");
		log_warnx(
		    "session %s: %zu %s changed in the checkout since the "
		    "session began: nothing is applied (airlock diff "
		    "shows the session's side)",
		    x.cs->id, json_array_size(refused),
		    json_array_size(refused) == 1 ? "path" : "paths");
		log_refusal(x.cs, x.sha, "conflict", refused);
		json_decref(refused);
		rc = EXIT_REFUSED;
		goto out;
	}
	if (!approver_ok(m, getuid())) {
		log_warnx(
		    "session %s: agent.commitApproval is required and uid "
		    "%u is not one of approvals.approvers (nor in a group "
		    "named there): nothing is applied",
		    x.cs->id, (unsigned)getuid());
		log_refusal(x.cs, x.sha, "approval", NULL);
		rc = EXIT_REFUSED;
		goto out;
	}
	/* The evidence first: no record, no commit. */
	if ((a = log_intent(&x, "cow_commit",
		 json_pack("{s:s, s:I, s:b}", "diffSha256", x.sha, "entries",
		     (json_int_t)changeset_count(x.set), "approvalRequired",
		     m->agent.commit_approval),
		 "applied", logpath, sizeof(logpath))) == NULL) {
		rc = EXIT_FAILED;
		goto out;
	}
	if ((rc = changeset_apply(
		 x.set, x.upperfd, x.rootfd, err, sizeof(err))) != 0) {
		f = json_pack("{s:s}", "message", err);
		if (audit_append(a, "cow_apply_failed", f) != 0)
			log_warnx(
			    "%s: the failure could not be recorded", logpath);
		json_decref(f);
		log_warnx("session %s: nothing was applied: %s", x.cs->id, err);
		rc = EXIT_FAILED;
		goto out;
	}
	f = json_pack("{s:s}", "diffSha256", x.sha);
	/* The mode bits that did not land, as a run's change_applied. */
	if ((dropped = tell_dropped(x.set, "landed", &ndropped)) != NULL) {
		json_object_set_new(
		    f, "modesDroppedTotal", json_integer((json_int_t)ndropped));
		json_object_set_new(f, "modesDropped", dropped);
	}
	arc = audit_append(a, "cow_applied", f);
	json_decref(f);
	if (arc != 0)
		log_warnx("%s: the record of the applied commit could not be "
			  "written",
		    logpath);
	if (cowsession_clear(x.cs, err, sizeof(err)) != 0) {
		log_warnx("session %s: applied, but the session could not be "
			  "emptied: %s; discard it before resuming",
		    x.cs->id, err);
		rc = EXIT_FAILED;
		goto out;
	}
	fprintf(stderr,
	    "airlock: session %s: %zu %s applied to %s; diff sha256 %s; "
	    "log %s\n",
	    x.cs->id, changeset_count(x.set),
	    changeset_count(x.set) == 1 ? "entry" : "entries", x.cs->workspace,
	    x.sha, logpath);
	rc = 0;
out:
	audit_close(a);
	manifest_free(m);
	ctx_free(&x);
	return rc;
}

int
cmd_discard(int argc, char **argv)
{
	struct cow_ctx x;
	struct audit *a;
	const char *id, *digest;
	char err[1024], logpath[PATH_MAX + 64];
	unsigned long long count;
	int rc, complete;

	log_init("airlock discard", 0);
	if (parse(argc, argv, "discard", &id, &digest) != 0)
		return EXIT_USAGE;
	/* No change set and no diff: whatever the agent left that makes
	 * either fail or stall (a tree nested past their depth) must not
	 * keep a person from throwing the session away.  The record counts
	 * what the upper layer holds. */
	if ((rc = ctx_open_session(&x, id, COWSESSION_LOCK)) != 0)
		goto out;
	cowsession_count(x.cs, &count, &complete);
	if ((a = log_intent(&x, "cow_discard",
		 json_pack("{s:I, s:b}", "upperEntries", (json_int_t)count,
		     "counted", complete),
		 "discarded", logpath, sizeof(logpath))) == NULL) {
		rc = EXIT_FAILED;
		goto out;
	}
	audit_close(a);
	if (cowsession_clear(x.cs, err, sizeof(err)) != 0) {
		log_warnx("session %s: %s", x.cs->id, err);
		rc = EXIT_FAILED;
		goto out;
	}
	fprintf(stderr,
	    "airlock: session %s: %s%llu %s of its upper layer discarded; "
	    "log %s\n",
	    x.cs->id, complete ? "" : "at least ", count,
	    count == 1 ? "entry" : "entries", logpath);
	rc = 0;
out:
	ctx_free(&x);
	return rc;
}
