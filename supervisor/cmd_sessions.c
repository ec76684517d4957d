/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock sessions: list the sessions in the state directory, pin them,
 * and prune old ones (retention).
 *
 *   airlock sessions [list] [--json]
 *   airlock sessions pin ID [NOTE...]
 *   airlock sessions unpin ID
 *   airlock sessions prune --older-than AGE [--dry-run]
 *
 * A session is STATE/sessions/ID/ (supervisor/session.h).  Pinned: the
 * file PINNED exists in it (written by "pin", holding the time, the user
 * and the note).  prune never removes a pinned session nor one whose log
 * a writer still holds (running), and removes nothing outside
 * STATE/sessions.  Every string from a log is escaped before printing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <sodium.h>

#include "broker/audit.h"
#include "broker/audit_verify.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "common/vis.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"
#include "supervisor/hostkey.h"
#include "supervisor/session.h"

struct row {
	char id[128];
	char user[64], agent[64];
	char start[64], end[64];
	const char *status, *verified;
	uint64_t records;
	int pinned, running;
	int64_t start_ms;
};

static void
sessions_usage(void)
{
	cli_usage("sessions");
}

static int
sessions_dir(char *out, size_t outlen)
{
	char state[PATH_MAX];
	int n;

	if (session_state_dir(state, sizeof(state)) != 0)
		return -1;
	n = snprintf(out, outlen, "%s/sessions", state);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static int
id_valid(const char *id)
{
	size_t n = strlen(id);

	return n > 0 && n < 128 && id[0] != '.' &&
	    strspn(id,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"0123456789-_.") == n;
}

static void
copy_str(char *out, size_t outlen, json_t *v)
{
	snprintf(
	    out, outlen, "%s", json_is_string(v) ? json_string_value(v) : "-");
}

/* Reads what the list shows about the session in |dir|. */
static void
read_row(const char *dir, const char *id, unsigned char keys[][32],
    size_t nkeys, struct row *r)
{
	struct audit_verify_result res;
	char path[PATH_MAX + 32], *line = NULL;
	json_t *rec, *f, *argv;
	struct stat st;
	size_t cap = 0;
	ssize_t n;
	FILE *fp;
	int rc;

	memset(r, 0, sizeof(*r));
	snprintf(r->id, sizeof(r->id), "%s", id);
	snprintf(r->user, sizeof(r->user), "-");
	snprintf(r->agent, sizeof(r->agent), "-");
	snprintf(r->start, sizeof(r->start), "-");
	snprintf(r->end, sizeof(r->end), "-");
	snprintf(path, sizeof(path), "%s/PINNED", dir);
	r->pinned = access(path, F_OK) == 0;
	if (stat(dir, &st) == 0)
		r->start_ms = (int64_t)st.st_mtime * 1000;
	snprintf(path, sizeof(path), "%s/audit.jsonl", dir);
	if ((fp = fopen(path, "re")) == NULL) {
		r->status = "no-log";
		r->verified = "-";
		return;
	}
	if ((n = getline(&line, &cap, fp)) > 0 &&
	    (rec = audit_record_parse(
		 line, (size_t)(line[n - 1] == '\n' ? n - 1 : n))) != NULL) {
		f = json_object_get(rec, "fields");
		copy_str(r->user, sizeof(r->user), json_object_get(f, "user"));
		argv = json_object_get(f, "agentArgv");
		if (json_is_string(json_array_get(argv, 0))) {
			const char *a = json_string_value(
				       json_array_get(argv, 0)),
				   *slash = strrchr(a, '/');

			snprintf(r->agent, sizeof(r->agent), "%s",
			    slash != NULL ? slash + 1 : a);
		} else
			copy_str(r->agent, sizeof(r->agent),
			    json_object_get(f, "command"));
		copy_str(
		    r->start, sizeof(r->start), json_object_get(rec, "time"));
		(void)audit_parse_time(r->start, &r->start_ms);
		json_decref(rec);
	}
	free(line);
	rewind(fp);
	rc = audit_verify_fp_trusted(fp,
	    nkeys > 0 ? (const unsigned char(*)[32])keys : NULL, nkeys, NULL,
	    &res);
	fclose(fp);
	/* The log of another session copied over this one's verifies on its
	 * own: this session's is gone (airlock audit verify DIR says so).
	 * So does one of its commit logs (the same id, no "command"). */
	if ((rc == AUDIT_VERIFY_CLOSED || rc == AUDIT_VERIFY_OPEN) &&
	    (strcmp(res.session, id) != 0 || res.command[0] == '\0'))
		rc = AUDIT_VERIFY_BAD;
	r->records = res.records;
	r->running = audit_writer_active(path);
	switch (rc) {
	case AUDIT_VERIFY_CLOSED:
		r->status = "closed";
		snprintf(r->end, sizeof(r->end), "%s", res.last_time);
		break;
	case AUDIT_VERIFY_OPEN:
		r->status = r->running ? "running" : "open";
		break;
	case AUDIT_VERIFY_UNTRUSTED:
		r->status = "untrusted";
		break;
	case AUDIT_VERIFY_BAD:
		r->status = "tampered";
		break;
	default:
		r->status = "unreadable";
		break;
	}
	if (rc == AUDIT_VERIFY_CLOSED || rc == AUDIT_VERIFY_OPEN)
		r->verified = nkeys == 0		 ? "no-key"
		    : strcmp(res.trust, "host-key") == 0 ? "host-key"
							 : "direct";
	else
		r->verified = "NO";
}

static char *
esc(const char *s)
{
	char *v = vis_dup(s, strlen(s), 0);

	if (v == NULL)
		fatalx("out of memory");
	return v;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The session directories, sorted (oldest first: ids start with time). */
static int
list_dirs(glob_t *g)
{
	char dir[PATH_MAX], pat[PATH_MAX + 8];

	if (sessions_dir(dir, sizeof(dir)) != 0) {
		log_warnx("state directory path too long");
		return -1;
	}
	snprintf(pat, sizeof(pat), "%s/*/", dir);
	memset(g, 0, sizeof(*g));
	if (glob(pat, GLOB_MARK, NULL, g) != 0)
		g->gl_pathc = 0;
	else
		qsort(g->gl_pathv, g->gl_pathc, sizeof(char *), cmp_str);
	return 0;
}

static const char *
base_of(char *path)
{
	size_t n = strlen(path);
	char *slash;

	if (n > 1 && path[n - 1] == '/')
		path[n - 1] = '\0';
	slash = strrchr(path, '/');
	return slash != NULL ? slash + 1 : path;
}

static int
sessions_list(int argc, char **argv)
{
	unsigned char keys[HOSTKEY_MAX_TRUSTED][32];
	size_t nkeys, i;
	struct row r;
	glob_t g;
	int json = 0, j;
	json_t *o;
	char *s;

	for (j = 1; j < argc; j++) {
		if (strcmp(argv[j], "--json") == 0)
			json = 1;
		else {
			sessions_usage();
			return EXIT_USAGE;
		}
	}
	if (list_dirs(&g) != 0)
		return EXIT_USAGE;
	nkeys = hostkey_trusted(keys, HOSTKEY_MAX_TRUSTED);
	if (!json)
		printf("%-22s %-10s %-12s %-24s %-24s %-9s %7s %-8s %s\n", "ID",
		    "USER", "AGENT", "START", "END", "STATUS", "RECORDS",
		    "VERIFIED", "PINNED");
	for (i = 0; i < g.gl_pathc; i++) {
		char *dir = g.gl_pathv[i];
		const char *id;

		dir[strlen(dir) - 1] = '\0';
		id = base_of(dir);
		read_row(dir, id, keys, nkeys, &r);
		if (json) {
			o = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s, s:I, "
				      "s:s, s:b}",
			    "id", r.id, "user", r.user, "agent", r.agent,
			    "start", r.start, "end",
			    strcmp(r.end, "-") != 0 ? r.end : NULL, "status",
			    r.status, "records", (json_int_t)r.records,
			    "verified", r.verified, "pinned", r.pinned);
			if (o == NULL ||
			    (s = json_dumps(o, JSON_COMPACT)) == NULL)
				fatalx("out of memory");
			printf("%s\n", s);
			free(s);
			json_decref(o);
			continue;
		}
		{
			char *eid = esc(r.id), *eu = esc(r.user);
			char *ea = esc(r.agent), *es = esc(r.start);
			char *ee = esc(r.end);

			printf("%-22s %-10s %-12s %-24s %-24s %-9s %7llu "
			       "%-8s %s\n",
			    eid, eu, ea, es, ee, r.status,
			    (unsigned long long)r.records, r.verified,
			    r.pinned ? "yes" : "-");
			free(eid);
			free(eu);
			free(ea);
			free(es);
			free(ee);
		}
	}
	globfree(&g);
	return 0;
}

static int
session_path(const char *id, char *out, size_t outlen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!id_valid(id)) {
		log_warnx("%s: not a session id", id);
		return EXIT_USAGE;
	}
	if (sessions_dir(dir, sizeof(dir)) != 0 ||
	    snprintf(out, outlen, "%s/%s", dir, id) >= (int)outlen) {
		log_warnx("state directory path too long");
		return EXIT_USAGE;
	}
	if (lstat(out, &st) == -1 || !S_ISDIR(st.st_mode)) {
		log_warnx(
		    "%s: no such session (airlock sessions lists them)", id);
		return 66;
	}
	return 0;
}

static int
sessions_pin(int argc, char **argv, int pin)
{
	char path[PATH_MAX], file[PATH_MAX + 16], when[64], note[1024] = "";
	struct passwd *pw;
	FILE *fp;
	int rc, i;

	if (argc < 2 || (!pin && argc != 2)) {
		sessions_usage();
		return EXIT_USAGE;
	}
	if ((rc = session_path(argv[1], path, sizeof(path))) != 0)
		return rc;
	snprintf(file, sizeof(file), "%s/PINNED", path);
	if (!pin) {
		if (unlink(file) == -1 && errno != ENOENT) {
			log_warn("%s", file);
			return 1;
		}
		printf("unpinned %s\n", argv[1]);
		return 0;
	}
	for (i = 2; i < argc; i++) {
		if (strlen(note) + strlen(argv[i]) + 2 >= sizeof(note))
			break;
		if (i > 2)
			strcat(note, " ");
		strcat(note, argv[i]);
	}
	format_rfc3339(now_wall_ms(), when);
	pw = getpwuid(getuid());
	if ((fp = fopen(file, "we")) == NULL) {
		log_warn("%s", file);
		return 1;
	}
	fprintf(fp, "pinned %s by %s%s%s\n", when,
	    pw != NULL ? pw->pw_name : "?", note[0] ? ": " : "", note);
	if (fclose(fp) != 0) {
		log_warn("%s", file);
		return 1;
	}
	printf("pinned %s: prune keeps it until unpinned\n", argv[1]);
	return 0;
}

/* "30d", "12h", "90m", "2w", "45s" into milliseconds. */
static int
parse_age(const char *s, int64_t *ms)
{
	char *end;
	long long n;
	int64_t unit;

	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || end == s || n < 0 || end[0] == '\0' || end[1] != '\0')
		return -1;
	switch (end[0]) {
	case 's':
		unit = 1000;
		break;
	case 'm':
		unit = 60 * 1000;
		break;
	case 'h':
		unit = 3600 * 1000;
		break;
	case 'd':
		unit = 86400 * 1000LL;
		break;
	case 'w':
		unit = 7 * 86400 * 1000LL;
		break;
	default:
		return -1;
	}
	if (n > INT64_MAX / unit)
		return -1;
	*ms = n * unit;
	return 0;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) == -1 ? -1 : 0;
	return unlink(path) == -1 ? -1 : 0;
}

static int
sessions_prune(int argc, char **argv)
{
	static const struct option opts[] = { { "older-than", required_argument,
						  NULL, 'o' },
		{ "dry-run", no_argument, NULL, 'n' }, { NULL, 0, NULL, 0 } };
	unsigned char keys[HOSTKEY_MAX_TRUSTED][32];
	int64_t age = -1, now = now_wall_ms();
	const char *agestr = NULL;
	unsigned removed = 0, kept = 0, failed = 0;
	int ch, dry = 0;
	struct row r;
	size_t i;
	glob_t g;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:n", opts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			agestr = optarg;
			if (parse_age(optarg, &age) != 0) {
				log_warnx("--older-than: \"%s\" is not an age "
					  "(a number and s, m, h, d or w: 30d)",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			dry = 1;
			break;
		default:
			sessions_usage();
			return EXIT_USAGE;
		}
	}
	if (age < 0 || optind != argc) {
		log_warnx("prune needs --older-than AGE (e.g. 30d)");
		return EXIT_USAGE;
	}
	if (list_dirs(&g) != 0)
		return EXIT_USAGE;
	for (i = 0; i < g.gl_pathc; i++) {
		char *dir = g.gl_pathv[i];
		const char *id;

		dir[strlen(dir) - 1] = '\0';
		id = base_of(dir);
		read_row(dir, id, keys, 0, &r);
		if (now - r.start_ms < age)
			continue;
		if (r.pinned || r.running) {
			printf("kept %s (%s)\n", id,
			    r.pinned ? "pinned" : "running");
			kept++;
			continue;
		}
		if (dry) {
			printf("would remove %s (started %s)\n", id, r.start);
			removed++;
			continue;
		}
		/* The dir's own path, as listed: nothing outside it. */
		if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0) {
			log_warn("%s", dir);
			failed++;
			continue;
		}
		printf("removed %s (started %s)\n", id, r.start);
		removed++;
	}
	globfree(&g);
	printf("%s%u session(s) older than %s, %u kept (pinned or "
	       "running)%s\n",
	    dry ? "would remove " : "removed ", removed, agestr, kept,
	    failed ? ", some could not be removed" : "");
	return failed ? 1 : 0;
}

int
cmd_sessions(int argc, char **argv)
{
	if (sodium_init() < 0)
		fatalx("sodium_init");
	if (argc < 2 || strcmp(argv[1], "--json") == 0)
		return sessions_list(argc, argv);
	if (strcmp(argv[1], "list") == 0)
		return sessions_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "pin") == 0)
		return sessions_pin(argc - 1, argv + 1, 1);
	if (strcmp(argv[1], "unpin") == 0)
		return sessions_pin(argc - 1, argv + 1, 0);
	if (strcmp(argv[1], "prune") == 0)
		return sessions_prune(argc - 1, argv + 1);
	sessions_usage();
	return EXIT_USAGE;
}
