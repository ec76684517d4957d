/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock audit: verify, show, tail and key for the audit log.
 * The checks live in broker/audit_verify.c; this file is argument
 * parsing and printing.  Every string from the log is agent-influenced,
 * so control characters are escaped before they reach a terminal.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include <sodium.h>

#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "common/vis.h"
#include "broker/audit.h"
#include "broker/audit_ship.h"
#include "broker/audit_verify.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"
#include "supervisor/hostkey.h"
#include "supervisor/session.h"
#include "supervisor/trustkeys.h"

#define EXIT_AUDIT_BAD		1
#define EXIT_AUDIT_OPEN		2
#define EXIT_AUDIT_UNTRUSTED	3
#define EXIT_AUDIT_NOINPUT	66	/* sysexits EX_NOINPUT */

static void
audit_usage(void)
{
	cli_usage("audit");
}

/*
 * Prints |s| escaped (common/vis.h: C0 and C1 controls, broken UTF-8,
 * bidi and zero-width characters) in at most |max| bytes, and "..." if
 * it was cut, so a log line cannot drive or disguise itself on the
 * reviewer's terminal.  |flags| is VIS_NOSLASH for JSON text.
 */
static void
put_safe(FILE *fp, const char *s, size_t max, int flags)
{
	size_t len, n;
	char *v;

	if (s == NULL)
		s = "";
	len = strlen(s);
	if ((v = vis_dup_fit(s, len, flags, max, &n)) == NULL)
		fatalx("out of memory");
	fputs(v, fp);
	free(v);
	if (n < len)
		fputs("...", fp);
}

/*
 * Prints the escaped text |v|, with |quote| each '"' as \" (vis
 * escaped each character drawn as one, VIS_QUOTED).
 */
static void
put_quoted_body(FILE *fp, const char *v, int quote)
{
	size_t i;

	for (i = 0; v[i] != '\0'; i++) {
		if (quote && v[i] == '"')
			fputs("\\\"", fp);
		else
			fputc(v[i], fp);
	}
}

/*
 * A string field's value, escaped and cut to |max| bytes, and quoted
 * ("...", a '"' in it as \" and a character drawn as one as \u{201D})
 * when it is empty or holds a space, '=' or '"'.  The agent chooses
 * many values (a refused call's tool name, a JSON-RPC id, a path): left
 * bare, "read_file decision=allow reason=ok" showed as fields of their
 * own, and a refused call read as an allowed one.  vis escaped every
 * backslash, and every blank but U+0020: a \" cannot be forged and
 * nothing else separates fields.  A string that would read bare as
 * another JSON value is quoted too: the JSON-RPC id "7" showed as
 * id=7, the integer 7's own form, and two calls read as one.
 */
static void
put_string(FILE *fp, const char *s, size_t max)
{
	size_t len, n;
	json_t *other;
	char *v;
	int bare;

	len = strlen(s);
	if ((v = vis_dup_fit(s, len, VIS_QUOTED, max, &n)) == NULL)
		fatalx("out of memory");
	bare = len > 0 && strpbrk(v, " =\"") == NULL;
	if (bare && n == len &&
	    (other = json_loads(v, JSON_DECODE_ANY, NULL)) != NULL) {
		bare = 0;
		json_decref(other);
	}
	if (bare) {
		fprintf(fp, "%s%s", v, n < len ? "..." : "");
		free(v);
		return;
	}
	fputc('"', fp);
	put_quoted_body(fp, v, 1);
	fprintf(fp, "%s\"", n < len ? "..." : "");
	free(v);
}

/*
 * A field's value: a string escaped (and quoted, put_string()); anything
 * else as compact JSON, whose own escapes stay (jansson escapes C0
 * controls) and whose raw C1, DEL, bidi and zero-width characters vis
 * escapes, and a character drawn as '"' too: in {"command":"ls\u{201D}
 * decision=allow"} it would seem to close the agent's string.
 */
static void
put_value(FILE *fp, json_t *v)
{
	size_t len, n;
	char *s, *e;

	if (json_is_string(v)) {
		put_string(fp, json_string_value(v), 80);
		return;
	}
	if ((s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_ENCODE_ANY)) == NULL)
		return;
	len = strlen(s);
	if ((e = vis_dup_fit(s, len, VIS_NOSLASH | VIS_QUOTED, 80,
	    &n)) == NULL)
		fatalx("out of memory");
	put_quoted_body(fp, e, 0);
	if (n < len)
		fputs("...", fp);
	free(e);
	free(s);
}

static void
print_header(void)
{
	printf("%-5s %-24s %-16s %-22s %s\n", "SEQ", "TIME", "EVENT",
	    "SESSION", "DETAILS");
}

/* Prints |s| escaped, cut to |width| ("..." marks a cut), padded to it. */
static void
put_col(FILE *fp, const char *s, int width)
{
	size_t len, n, used;
	char *v;

	if (s == NULL)
		s = "";
	len = strlen(s);
	if (vis_fit(s, len, 0, (size_t)width) < len)
		v = vis_dup_fit(s, len, 0, (size_t)width - 3, &n);
	else
		v = vis_dup_fit(s, len, 0, (size_t)width, &n);
	if (v == NULL)
		fatalx("out of memory");
	used = strlen(v) + (n < len ? 3 : 0);
	fprintf(fp, "%s%s%*s ", v, n < len ? "..." : "",
	    (int)((size_t)width - used), "");
	free(v);
}

#define AUDIT_MAX_SESSION_ID	128

/*
 * One record as a row, folded to |width| (vis_fold()): each value is cut
 * to 80 bytes, but a row holds many, and the terminal's own wrap began a
 * row with what the agent put at its edge (a JSON-RPC id, a path, a
 * refused call's tool name): "9     2026-... approval_granted", a
 * record of airlock's own to the eye.
 */
static void
print_record(json_t *rec, size_t width)
{
	json_t *fields = json_object_get(rec, "fields"), *v;
	const char *key;
	char *buf = NULL;
	size_t sess_len, len = 0;
	int first = 1;
	FILE *fp;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		fatal("open_memstream");
	fprintf(fp, "%-5lld ", (long long)json_integer_value(json_object_get(
	    rec, "seq")));
	put_col(fp, json_string_value(json_object_get(rec, "time")), 24);
	put_col(fp, json_string_value(json_object_get(rec, "event")), 16);
	/* The whole id, however long: it is what --session takes. */
	put_safe(fp, json_string_value(json_object_get(rec, "session")),
	    AUDIT_MAX_SESSION_ID, 0);
	sess_len = strlen(json_string_value(json_object_get(rec, "session")));
	fprintf(fp, "%*s ", sess_len < 22 ? (int)(22 - sess_len) : 0, "");
	if (json_is_object(fields)) {
		json_object_foreach(fields, key, v) {
			if (!first)
				fputc(' ', fp);
			first = 0;
			put_safe(fp, key, 40, 0);
			fputc('=', fp);
			put_value(fp, v);
		}
	}
	fputc('\n', fp);
	if (fclose(fp) == EOF || vis_fold_printf(stdout, width, "%s", buf) ==
	    -1)
		fatalx("out of memory");
	free(buf);
}

/*
 * --decision: what each value matches.  A record matches when its event
 * is one of |events| (any fields) or its "fields.decision" is one of
 * |values| (any event: decision, egress); "deny" is every refusal
 * (audit_is_refusal(), broker/audit_ship.h), a call refused as it ran
 * too (its "fields.errorClass": a path that resolves outside the
 * workspace, a denied path, a secret), whose decision record says
 * "allow".
 */
static const struct decision_kind {
	const char	*name;
	const char	*events[16];
	const char	*values[3];
	const char	*help;
} decision_kinds[] = {
	{ "allow", { "approval_granted", NULL }, { "allow", NULL },
	    "allowed by policy or by a human" },
	/* audit_is_refusal(): the copies send the same at warning. */
	{ "deny", { NULL }, { NULL },
	    "every refusal: by policy, by validation, when the call ran (a "
	    "path, a secret), by a human, by expiry, by the sandbox, a "
	    "budget or a limit (busy, a reused idempotency key)" },
	{ "invalid", { NULL }, { "invalid", NULL },
	    "arguments refused by validation" },
	{ "ask", { "approval_created", NULL }, { "approval_required", NULL },
	    "sent to a human for approval" },
	{ "approved", { "approval_granted", NULL }, { NULL },
	    "approved by a human" },
	{ "denied", { "approval_denied", NULL }, { NULL },
	    "denied by a human" },
	{ "expired", { "approval_expired", NULL }, { NULL },
	    "nobody decided in time" },
	{ NULL, { NULL }, { NULL }, NULL }
};

static const struct decision_kind *
decision_lookup(const char *name)
{
	size_t i;

	if (strcmp(name, "approval_required") == 0)
		name = "ask";
	for (i = 0; decision_kinds[i].name != NULL; i++)
		if (strcmp(decision_kinds[i].name, name) == 0)
			return &decision_kinds[i];
	return NULL;
}

static void
decision_list(FILE *fp)
{
	size_t i;

	for (i = 0; decision_kinds[i].name != NULL; i++)
		fprintf(fp, "  %-9s %s\n", decision_kinds[i].name,
		    decision_kinds[i].help);
}

static int
decision_match(const struct decision_kind *k, json_t *rec)
{
	const char *ev = json_string_value(json_object_get(rec, "event"));
	json_t *v = json_object_get(json_object_get(rec, "fields"),
	    "decision");
	size_t i;

	if (strcmp(k->name, "deny") == 0)
		return audit_is_refusal(rec);
	for (i = 0; ev != NULL && k->events[i] != NULL; i++)
		if (strcmp(ev, k->events[i]) == 0)
			return 1;
	for (i = 0; json_is_string(v) && k->values[i] != NULL; i++)
		if (strcmp(json_string_value(v), k->values[i]) == 0)
			return 1;
	return 0;
}

struct filter {
	const char	*session, *tool, *event;
	const struct decision_kind *decision;
	int64_t		 since, until;
	int		 has_since, has_until;
};

static int
field_is(json_t *rec, const char *name, const char *want)
{
	json_t *v = json_object_get(json_object_get(rec, "fields"), name);

	return json_is_string(v) && strcmp(json_string_value(v), want) == 0;
}

static int
filter_match(const struct filter *f, json_t *rec)
{
	int64_t t;

	if (f->session != NULL && strcmp(json_string_value(
	    json_object_get(rec, "session")), f->session) != 0)
		return 0;
	if (f->event != NULL && strcmp(json_string_value(
	    json_object_get(rec, "event")), f->event) != 0)
		return 0;
	if (f->tool != NULL && !field_is(rec, "tool", f->tool))
		return 0;
	if (f->decision != NULL && !decision_match(f->decision, rec))
		return 0;
	if (f->has_since || f->has_until) {
		if (audit_parse_time(json_string_value(json_object_get(rec,
		    "time")), &t) != 0)
			return 0;
		if (f->has_since && t < f->since)
			return 0;
		if (f->has_until && t > f->until)
			return 0;
	}
	return 1;
}

/*
 * Prints one line of the log (without newline) as a row folded to
 * |width|, or (|json|) as it is, JSON, never folded.
 */
static void
emit_line(const char *line, size_t len, int json, size_t width,
    const struct filter *f)
{
	json_t *rec;

	if ((rec = audit_record_parse(line, len)) == NULL) {
		printf("%s", json ? "" : "????? (unparseable line)\n");
		return;
	}
	if (f == NULL || filter_match(f, rec)) {
		if (json)
			printf("%.*s\n", (int)len, line);
		else
			print_record(rec, width);
	}
	json_decref(rec);
}

/*
 * Verdict counts for a directory, and the session key of each log that
 * verified with the first place it was found at: every log has a key of
 * its own, so a key seen twice is one log counted twice.
 */
struct tally {
	unsigned	closed, open, bad, untrusted, unreadable;
	char		(*keys)[AUDIT_PUBKEY_HEX_LEN + 1];
	char		**places;
	size_t		nkeys;
};

/* The place of the log with session key |pk| seen before, or NULL. */
static const char *
tally_seen(const struct tally *tl, const char *pk)
{
	size_t i;

	for (i = 0; i < tl->nkeys; i++)
		if (strcmp(tl->keys[i], pk) == 0)
			return tl->places[i];
	return NULL;
}

static void
tally_add(struct tally *tl, const char *pk, const char *place)
{
	char (*k)[AUDIT_PUBKEY_HEX_LEN + 1];
	char **p;

	if ((k = reallocarray(tl->keys, tl->nkeys + 1, sizeof(*k))) == NULL)
		fatal("reallocarray");
	tl->keys = k;
	if ((p = reallocarray(tl->places, tl->nkeys + 1, sizeof(*p))) == NULL)
		fatal("reallocarray");
	tl->places = p;
	snprintf(tl->keys[tl->nkeys], sizeof(*k), "%s", pk);
	if ((tl->places[tl->nkeys] = strdup(place)) == NULL)
		fatal("strdup");
	tl->nkeys++;
}

static void
tally_free(struct tally *tl)
{
	size_t i;

	for (i = 0; i < tl->nkeys; i++)
		free(tl->places[i]);
	free(tl->places);
	free(tl->keys);
}

static int
status_exit(int st)
{
	switch (st) {
	case AUDIT_VERIFY_CLOSED:
		return 0;
	case AUDIT_VERIFY_OPEN:
		return EXIT_AUDIT_OPEN;
	case AUDIT_VERIFY_UNTRUSTED:
		return EXIT_AUDIT_UNTRUSTED;
	default:
		return EXIT_AUDIT_BAD;
	}
}

/* The exit status of several verdicts: tampered, untrusted, open. */
static int
worst_exit(int a, int b)
{
	static const int order[] = { EXIT_AUDIT_NOINPUT, EXIT_AUDIT_BAD,
	    EXIT_AUDIT_UNTRUSTED, EXIT_AUDIT_OPEN, 0 };
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return a;
}

static const char *
trust_text(const struct audit_verify_result *res, int pinned)
{
	if (!pinned)
		return res->hostkey[0] != '\0' ? "certified by the host key "
		    "in the log, NOT pinned: proves internal consistency only" :
		    "NOT pinned: proves internal consistency only";
	if (strcmp(res->trust, "host-key") == 0)
		return "certified by a trusted host key";
	return "pinned";
}

/*
 * verify's report, a line at a time, folded to the width of the terminal
 * it goes to (vis_fold(); taken once, in audit_verify_cmd()): a file
 * name in a shipped directory, or a cause quoted from a tampered log,
 * padded to the terminal's edge began a row of its own, a verdict of
 * another log ("LOG: valid and closed") to the eye.
 */
static size_t verify_width;

static void verify_say(const char *, ...)
    __attribute__((format(printf, 1, 2)));

static void
verify_say(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vis_fold_vprintf(stdout, verify_width, fmt, ap);
	va_end(ap);
	if (rc == -1)
		fatalx("out of memory");
}

/*
 * Verifies |file| and prints its verdict under the name |path| (|file|
 * escaped: a file name in a shipped directory is anyone's to choose): a
 * full report, or (|brief|) one line.  Returns the exit status for it.
 */
static int
verify_file(const char *file, const char *path, const struct trusted *t,
    const char *head, int quiet, int brief, struct tally *tl)
{
	struct audit_verify_result res;
	FILE *fp;
	int rc;

	if ((fp = fopen(file, "re")) == NULL) {
		log_warn("%s", path);
		tl->unreadable++;
		return EXIT_AUDIT_NOINPUT;
	}
	rc = audit_verify_fp_trusted(fp, t->n > 0 ?
	    (const unsigned char (*)[32])t->keys : NULL, t->n, head, &res);
	fclose(fp);
	if (rc < 0) {
		log_warnx("%s: %s", path, al_strerror(rc));
		tl->unreadable++;
		return EXIT_AUDIT_NOINPUT;
	}
	/*
	 * A directory's logs: each at the place of its own session
	 * (DIR/ID/audit.jsonl, DIR/ID/commits/NAME.jsonl, a shipped
	 * DIR/ID.jsonl), and each once.
	 */
	if (brief && (rc == AUDIT_VERIFY_CLOSED || rc == AUDIT_VERIFY_OPEN)) {
		const char *first = tally_seen(tl, res.pubkey);

		if (!session_log_place_matches(file, res.session,
		    res.command[0] != '\0')) {
			rc = res.status = AUDIT_VERIFY_BAD;
			res.bad_line = 1;
			snprintf(res.reason, sizeof(res.reason), "the %s of "
			    "session %s is in another session's directory or "
			    "file, or in the place of another kind of log: "
			    "moved or replaced", res.command[0] != '\0' ?
			    "log" : "commit log", res.session);
		} else if (first != NULL) {
			rc = res.status = AUDIT_VERIFY_BAD;
			res.bad_line = 1;
			snprintf(res.reason, sizeof(res.reason), "the same log "
			    "as %s (session %s, same session key): a copy, "
			    "counted twice", first, res.session);
		} else
			tally_add(tl, res.pubkey, path);
	}
	if (rc == AUDIT_VERIFY_UNTRUSTED) {
		tl->untrusted++;
		verify_say("%s: %s\n", path, res.reason);
		return EXIT_AUDIT_UNTRUSTED;
	}
	if (rc == AUDIT_VERIFY_BAD) {
		tl->bad++;
		verify_say("%s: TAMPERED: line %llu: %s\n", path,
		    (unsigned long long)res.bad_line, res.reason);
		if (!quiet && !brief)
			verify_say(
			    "%s: %llu record(s) before line %llu verified\n",
			    path, (unsigned long long)res.records,
			    (unsigned long long)res.bad_line);
		return EXIT_AUDIT_BAD;
	}
	if (rc == AUDIT_VERIFY_OPEN)
		tl->open++;
	else
		tl->closed++;
	if (brief) {
		verify_say("%s: %s: session %s, %llu records, %s to %s, %s\n",
		    path,
		    rc == AUDIT_VERIFY_OPEN ? (audit_writer_active(file) ?
		    "valid, running" : "valid, OPEN (crashed or cut off)") :
		    "valid and closed", res.session,
		    (unsigned long long)res.records, res.first_time,
		    res.last_time, trust_text(&res, t->n > 0));
		return status_exit(rc);
	}
	if (rc == AUDIT_VERIFY_OPEN)
		verify_say("%s: valid so far but %s; %s\n", path, res.reason,
		    audit_writer_active(file) ? "a writer holds the log: the "
		    "session is still running" : "no writer holds the log: "
		    "the session crashed or its tail was cut off");
	else
		verify_say("%s: valid and closed\n", path);
	if (!quiet) {
		verify_say("  session  %s\n  records  %llu\n  from     %s\n"
		    "  to       %s\n  key      %s (%s, %s)\n",
		    res.session, (unsigned long long)res.records,
		    res.first_time, res.last_time, res.pubkey, res.keykind,
		    trust_text(&res, t->n > 0));
		if (res.hostkey[0] != '\0')
			verify_say("  host key %s\n", res.hostkey);
		verify_say("  head     %s\n", res.head);
	}
	return status_exit(rc);
}

static int
verify_one(const char *file, const struct trusted *t, const char *head,
    int quiet, int brief, struct tally *tl)
{
	char *path;
	int rc;

	if ((path = vis_str(file, 0)) == NULL)
		fatalx("out of memory");
	rc = verify_file(file, path, t, head, quiet, brief, tl);
	free(path);
	return rc;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Collects the logs under |dir| (sorted): DIR/audit.jsonl (a session
 * directory), DIR/NAME/audit.jsonl (a sessions directory), DIR/NAME.jsonl
 * (shipped copies) and DIR/sessions/NAME/audit.jsonl (a state directory),
 * and at each of those places the session's commit logs (copy-on-write
 * commits and discards, commits/NAME.jsonl: the only record of each).
 */
static int
collect_logs(const char *dir, char ***out, size_t *n)
{
	static const char *pats[] = { "audit.jsonl", "*/audit.jsonl",
	    "*.jsonl", "sessions/*/audit.jsonl", "commits/*.jsonl",
	    "*/commits/*.jsonl", "sessions/*/commits/*.jsonl", NULL };
	char pat[PATH_MAX];
	glob_t g;
	size_t i, j, cap = 0;
	char **v = NULL;

	*n = 0;
	for (i = 0; pats[i] != NULL; i++) {
		if (snprintf(pat, sizeof(pat), "%s/%s", dir, pats[i]) >=
		    (int)sizeof(pat)) {
			free(v);
			return -1;
		}
		if (glob(pat, 0, NULL, &g) != 0)
			continue;
		for (j = 0; j < g.gl_pathc; j++) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 16;
				char **nv = reallocarray(v, cap, sizeof(*v));

				if (nv == NULL)
					fatal("reallocarray");
				v = nv;
			}
			if ((v[(*n)++] = strdup(g.gl_pathv[j])) == NULL)
				fatal("strdup");
		}
		globfree(&g);
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_str);
	/* A session directory's audit.jsonl is also one of its *.jsonl:
	 * each log once. */
	for (i = j = 0; i < *n; i++) {
		if (j > 0 && strcmp(v[j - 1], v[i]) == 0)
			free(v[i]);
		else
			v[j++] = v[i];
	}
	*n = j;
	*out = v;
	return 0;
}

static int
verify_dir(const char *dir, const struct trusted *t, int quiet)
{
	struct tally tl;
	char **logs;
	size_t n, i;
	int status = 0;

	memset(&tl, 0, sizeof(tl));
	if (collect_logs(dir, &logs, &n) != 0) {
		log_warnx("%s: path too long", dir);
		return EXIT_USAGE;
	}
	if (n == 0) {
		log_warnx("%s: no audit logs in it (audit.jsonl, "
		    "*/audit.jsonl, *.jsonl, sessions/*/audit.jsonl)", dir);
		return EXIT_AUDIT_NOINPUT;
	}
	for (i = 0; i < n; i++) {
		status = worst_exit(status, verify_one(logs[i], t, NULL, quiet,
		    1, &tl));
		free(logs[i]);
	}
	free(logs);
	tally_free(&tl);
	verify_say("%zu session(s): %u valid and closed, %u open, %u tampered, "
	    "%u untrusted, %u unreadable%s\n", n, tl.closed, tl.open, tl.bad,
	    tl.untrusted, tl.unreadable, t->n > 0 ? "" :
	    " (no --key: internal consistency only)");
	return status;
}

static int
audit_verify_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "key-file", required_argument, NULL, 'K' },
		{ "head", required_argument, NULL, 'H' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 }
	};
	struct trusted t;
	struct tally tl;
	struct stat st;
	int ch, quiet = 0;
	const char *path, *head = NULL;
	unsigned char tmp[32];

	memset(&t, 0, sizeof(t));
	verify_width = term_columns(STDOUT_FILENO);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "k:K:H:q", opts, NULL)) != -1) {
		switch (ch) {
		case 'H':
			/* Same shape as a public key: 64 lowercase hex. */
			if (audit_parse_pubkey(optarg, tmp) != 0 ||
			    strspn(optarg, "0123456789abcdef") != 64) {
				log_warnx("--head: not 64 lowercase hex digits");
				return EXIT_USAGE;
			}
			head = optarg;
			break;
		case 'k':
			if (trusted_load_arg(optarg, "--key", &t) != 0)
				return EXIT_USAGE;
			break;
		case 'K':
			if (trusted_load_file(optarg, &t) != 0)
				return EXIT_USAGE;
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			audit_usage();
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		audit_usage();
		return EXIT_USAGE;
	}
	path = argv[optind];
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (head != NULL) {
			log_warnx("--head names one log: give a file");
			return EXIT_USAGE;
		}
		return verify_dir(path, &t, quiet);
	}
	memset(&tl, 0, sizeof(tl));
	return verify_one(path, &t, head, quiet, 0, &tl);
}

/*
 * Warns on stderr if |path| does not verify, or ends before session_end
 * with no writer holding it; show still prints.  A log cut back to a
 * batch's end verifies as open: show printed what was left of it, the
 * agent's last calls cut off, without a word.  Pinned to this host's
 * trusted.pub when it has one, as airlock sessions is: checked against
 * no key, a log re-signed under a key of one's own without the
 * certificate, records removed, was shown without a word.
 */
static void
warn_unverified(const char *path)
{
	unsigned char keys[HOSTKEY_MAX_TRUSTED][32];
	struct audit_verify_result res;
	size_t nkeys;
	FILE *fp;
	int rc;

	if ((fp = fopen(path, "re")) == NULL)
		return;
	nkeys = hostkey_trusted(keys, HOSTKEY_MAX_TRUSTED);
	rc = audit_verify_fp_trusted(fp, nkeys > 0 ?
	    (const unsigned char (*)[32])keys : NULL, nkeys, NULL, &res);
	fclose(fp);
	if (rc == AUDIT_VERIFY_UNTRUSTED)
		log_warnx("warning: %s is not signed nor certified by a key of "
		    "this host's trusted.pub: re-signed, or from another host "
		    "(airlock audit verify --key-file): %s", path, res.reason);
	else if (rc == AUDIT_VERIFY_BAD)
		log_warnx("warning: %s does not verify: line %llu: %s", path,
		    (unsigned long long)res.bad_line, res.reason);
	else if (rc == AUDIT_VERIFY_OPEN && !audit_writer_active(path))
		log_warnx("warning: %s has no session_end and no writer holds "
		    "it: the session crashed or its tail was cut off (%s)",
		    path, res.reason);
}

static int
audit_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "tool", required_argument, NULL, 't' },
		{ "decision", required_argument, NULL, 'd' },
		{ "event", required_argument, NULL, 'e' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	struct filter f;
	int ch, json = 0, i, status = 0;
	char *line = NULL;
	size_t cap = 0, width = term_columns(STDOUT_FILENO);
	ssize_t n;
	FILE *fp;

	memset(&f, 0, sizeof(f));
	optind = 1;
	while ((ch = getopt_long(argc, argv, "s:t:d:e:S:U:j", opts, NULL)) !=
	    -1) {
		switch (ch) {
		case 's': f.session = optarg; break;
		case 't': f.tool = optarg; break;
		case 'd':
			if ((f.decision = decision_lookup(optarg)) == NULL) {
				log_warnx("--decision: unknown value \"%s\"; "
				    "valid values:", optarg);
				decision_list(stderr);
				return EXIT_USAGE;
			}
			break;
		case 'e': f.event = optarg; break;
		case 'S':
			if (audit_parse_time(optarg, &f.since) != 0) {
				log_warnx("--since: not an RFC 3339 time");
				return EXIT_USAGE;
			}
			f.has_since = 1;
			break;
		case 'U':
			if (audit_parse_time(optarg, &f.until) != 0) {
				log_warnx("--until: not an RFC 3339 time");
				return EXIT_USAGE;
			}
			/* A bare date means the whole of that day. */
			if (strlen(optarg) == 10)
				f.until += 86400000 - 1;
			f.has_until = 1;
			break;
		case 'j': json = 1; break;
		default:
			audit_usage();
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		audit_usage();
		return EXIT_USAGE;
	}
	if (!json)
		print_header();
	for (i = optind; i < argc; i++) {
		if ((fp = fopen(argv[i], "re")) == NULL) {
			log_warn("%s", argv[i]);
			status = EXIT_AUDIT_NOINPUT;
			continue;
		}
		warn_unverified(argv[i]);
		while ((n = getline(&line, &cap, fp)) > 0) {
			if (line[n - 1] == '\n')
				n--;
			emit_line(line, (size_t)n, json, width, &f);
		}
		fclose(fp);
	}
	free(line);
	fflush(stdout);
	return status;
}

/* Reads what is new in |fd| and prints every complete line. */
static int
follow_drain(int fd, char **acc, size_t *acclen, int json, size_t width,
    int *ended)
{
	char buf[65536], *nl, *start;
	ssize_t n;
	size_t rest;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		if ((*acc = realloc(*acc, *acclen + (size_t)n + 1)) == NULL)
			fatal("realloc");
		memcpy(*acc + *acclen, buf, (size_t)n);
		*acclen += (size_t)n;
	}
	start = *acc;
	rest = *acclen;
	while (rest > 0 && (nl = memchr(start, '\n', rest)) != NULL) {
		json_t *rec;

		emit_line(start, (size_t)(nl - start), json, width, NULL);
		if ((rec = audit_record_parse(start, (size_t)(nl - start))) !=
		    NULL) {
			if (strcmp(json_string_value(json_object_get(rec,
			    "event")), "session_end") == 0)
				*ended = 1;
			json_decref(rec);
		}
		rest -= (size_t)(nl - start) + 1;
		start = nl + 1;
	}
	/*
	 * An incomplete line is not kept: it is read again from its start
	 * next time.  The broker may undo it (a write that failed part way)
	 * and append the next record before the follower looks again, and
	 * read on from behind the undone bytes that record came out
	 * mangled.
	 */
	if (rest > 0 && lseek(fd, -(off_t)rest, SEEK_CUR) == -1)
		return -1;
	*acclen = 0;
	fflush(stdout);
	return 0;
}

/*
 * Before each read of a followed log: 0 if |fd| still is the file at
 * |path| and holds everything read from it (follow_drain() leaves |fd|
 * at the end of the last complete line, so *acclen is 0 here and an
 * undone write is read again from its line's start).  A cut below what
 * was printed, or another file at |path|, stops the follower (1):
 * records shown are no longer in the log, and what comes next would be
 * read from the wrong place or not at all.
 */
static int
follow_check(int fd, const char *path, size_t *acclen)
{
	struct stat st, pst;
	off_t cur;

	if (fstat(fd, &st) == -1 || (cur = lseek(fd, 0, SEEK_CUR)) == -1) {
		log_warn("%s", path);
		return EXIT_AUDIT_NOINPUT;
	}
	if (stat(path, &pst) == -1 || pst.st_dev != st.st_dev ||
	    pst.st_ino != st.st_ino) {
		log_warnx("%s: no longer the file being followed (removed or "
		    "replaced): stopped", path);
		return 1;
	}
	if (st.st_size >= cur)
		return 0;
	if (st.st_size < cur - (off_t)*acclen) {
		log_warnx("%s: cut back to %lld bytes, below the %lld already "
		    "shown: records printed above are no longer in the log",
		    path, (long long)st.st_size,
		    (long long)(cur - (off_t)*acclen));
		return 1;
	}
	*acclen -= (size_t)(cur - st.st_size);
	if (lseek(fd, st.st_size, SEEK_SET) == -1) {
		log_warn("%s", path);
		return EXIT_AUDIT_NOINPUT;
	}
	return 0;
}

static int
audit_tail(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "lines", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	char **ring, *line = NULL, *acc = NULL;
	size_t cap = 0, acclen = 0, width = term_columns(STDOUT_FILENO);
	long nlines = 10, count = 0, i;
	off_t off = 0;
	int ch, follow = 0, json = 0, fd, ino, ended = 0, rc = 0;
	const char *path, *errstr;
	ssize_t n;
	FILE *fp;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "fn:j", opts, NULL)) != -1) {
		switch (ch) {
		case 'f': follow = 1; break;
		case 'j': json = 1; break;
		case 'n':
			errno = 0;
			nlines = strtol(optarg, (char **)&errstr, 10);
			if (errno != 0 || *errstr != '\0' || nlines < 0 ||
			    nlines > 100000) {
				log_warnx("-n: not a count");
				return EXIT_USAGE;
			}
			break;
		default:
			audit_usage();
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		audit_usage();
		return EXIT_USAGE;
	}
	path = argv[optind];
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (fp = fopen(path, "re")) == NULL) {
		log_warn("%s", path);
		return EXIT_AUDIT_NOINPUT;
	}
	/* The last |nlines| complete lines; |off| is where they end. */
	ring = calloc((size_t)nlines + 1, sizeof(char *));
	if (ring == NULL)
		fatal("calloc");
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] != '\n')
			break;	/* incomplete: left for the follower */
		if (nlines > 0) {
			free(ring[count % nlines]);
			if ((ring[count % nlines] = strndup(line, (size_t)n - 1))
			    == NULL)
				fatal("strndup");
		}
		count++;
		off += n;
	}
	if (lseek(fd, off, SEEK_SET) == -1)
		fatal("lseek");
	fclose(fp);
	free(line);
	if (!json)
		print_header();
	for (i = count > nlines ? count - nlines : 0; i < count; i++) {
		json_t *rec;
		char *l = ring[i % nlines];

		emit_line(l, strlen(l), json, width, NULL);
		if ((rec = audit_record_parse(l, strlen(l))) != NULL) {
			if (strcmp(json_string_value(json_object_get(rec,
			    "event")), "session_end") == 0)
				ended = 1;
			json_decref(rec);
		}
	}
	for (i = 0; i < nlines; i++)
		free(ring[i]);
	free(ring);
	fflush(stdout);
	if (!follow)
		return 0;

	/* Follow until session_end: nothing may follow it. */
	ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (ino != -1 && inotify_add_watch(ino, path, IN_MODIFY |
	    IN_CLOSE_WRITE) == -1) {
		close(ino);
		ino = -1;
	}
	while (!ended) {
		struct pollfd pfd = { .fd = ino, .events = POLLIN };
		char evbuf[4096];

		if ((rc = follow_check(fd, path, &acclen)) != 0)
			break;
		if (follow_drain(fd, &acc, &acclen, json, width, &ended) ==
		    -1) {
			log_warn("%s", path);
			rc = EXIT_AUDIT_NOINPUT;
			break;
		}
		if (ended)
			break;
		/* inotify wakes us; the timeout covers filesystems without it. */
		if (poll(&pfd, ino != -1 ? 1 : 0, 1000) > 0)
			while (read(ino, evbuf, sizeof(evbuf)) > 0)
				;
	}
	if (ino != -1)
		close(ino);
	free(acc);
	close(fd);
	return rc;
}

/*
 * airlock audit key [--rotate | KEYFILE]: the host key (created if
 * absent) or a key file of one's own; prints the public key.
 */
static int
audit_key(int argc, char **argv)
{
	char hex[AUDIT_PUBKEY_HEX_LEN + 1], old[AUDIT_PUBKEY_HEX_LEN + 1];
	char err[PATH_MAX + 128], path[PATH_MAX];
	int rc;

	if (argc == 1 || (argc == 2 && strcmp(argv[1], "--rotate") == 0)) {
		if (argc == 1)
			rc = hostkey_ensure(hex, err, sizeof(err));
		else
			rc = hostkey_rotate(old, hex, err, sizeof(err));
		if (rc != 0) {
			log_warnx("%s", err);
			return 1;
		}
		if (hostkey_path(path, sizeof(path)) == 0)
			fprintf(stderr, "host key %s%s%s\n", path, argc == 1 ?
			    "" : "; retired ", argc == 1 ? "" : old);
		printf("%s\n", hex);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		audit_usage();
		return EXIT_USAGE;
	}
	if ((rc = audit_key_public(argv[1], 1, hex)) != 0) {
		if (rc == AL_ERR_SYSTEM)
			log_warn("%s", argv[1]);
		else
			log_warnx("%s: %s", argv[1], rc == AL_ERR_DENIED ?
			    "must be a regular file owned by you, mode 0600" :
			    al_strerror(rc));
		return 1;
	}
	printf("%s\n", hex);
	return 0;
}

int
cmd_audit(int argc, char **argv)
{
	if (argc < 2) {
		audit_usage();
		return EXIT_USAGE;
	}
	if (sodium_init() < 0)
		fatalx("sodium_init");
	if (strcmp(argv[1], "verify") == 0)
		return audit_verify_cmd(argc - 1, argv + 1);
	if (strcmp(argv[1], "show") == 0)
		return audit_show(argc - 1, argv + 1);
	if (strcmp(argv[1], "tail") == 0)
		return audit_tail(argc - 1, argv + 1);
	if (strcmp(argv[1], "key") == 0)
		return audit_key(argc - 1, argv + 1);
	audit_usage();
	return EXIT_USAGE;
}
