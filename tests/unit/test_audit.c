/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Unit tests for broker/audit.c and broker/audit_verify.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>
#include <jansson.h>
#include <sodium.h>

#include "common/errors.h"
#include "broker/audit.h"
#include "broker/audit_verify.h"
#include "broker/redact.h"

static char dir[] = "/tmp/test_audit.XXXXXX";
static char logpath[256];

static void
setup(void)
{
	strcpy(dir, "/tmp/test_audit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
}

static void
teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Writes a closed log of session_start, |n| requests, session_end. */
static void
write_log(const char *path, const char *session, int n)
{
	struct audit *a;
	json_t *f;
	int i;

	ck_assert_int_eq(audit_open(path, session, &a), 0);
	audit_set_sync(a, AUDIT_SYNC_NONE);
	for (i = 0; i < n; i++) {
		f = json_pack("{s:s, s:i}", "tool", "read_file", "n", i);
		ck_assert_int_eq(audit_append(a, "request", f), 0);
		json_decref(f);
	}
	audit_close(a);
}

static int
verify_path(const char *path, const unsigned char *pin,
    struct audit_verify_result *res)
{
	FILE *fp;
	int rc;

	ck_assert_ptr_nonnull(fp = fopen(path, "r"));
	rc = audit_verify_fp(fp, pin, NULL, res);
	fclose(fp);
	return rc;
}

/* Lines of a file, each with its newline. */
struct lines {
	char	*l[64];
	int	 n;
};

static void
read_lines(const char *path, struct lines *ls)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;

	memset(ls, 0, sizeof(*ls));
	ck_assert_ptr_nonnull(fp = fopen(path, "r"));
	while (getline(&line, &cap, fp) > 0 && ls->n < 64)
		ls->l[ls->n++] = strdup(line);
	free(line);
	fclose(fp);
}

static void
write_lines(const char *path, struct lines *ls)
{
	FILE *fp;
	int i;

	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	for (i = 0; i < ls->n; i++)
		fputs(ls->l[i], fp);
	fclose(fp);
}

static void
free_lines(struct lines *ls)
{
	int i;

	for (i = 0; i < ls->n; i++)
		free(ls->l[i]);
}

/* Mutations of a 6-record log (start, 4 requests, end); |other| is a
 * log of another session. */
static void
m_edit_value(struct lines *ls, struct lines *other)
{
	char *p = strstr(ls->l[2], "read_file");

	p[0] = 'R';
}

static void
m_edit_sig(struct lines *ls, struct lines *other)
{
	char *p = strstr(ls->l[3], "\"sig\":\"") + 10;

	*p = *p == 'A' ? 'B' : 'A';
}

static void
m_delete_middle(struct lines *ls, struct lines *other)
{
	free(ls->l[2]);
	memmove(&ls->l[2], &ls->l[3], (size_t)(ls->n - 3) * sizeof(char *));
	ls->n--;
}

static void
m_delete_first(struct lines *ls, struct lines *other)
{
	free(ls->l[0]);
	memmove(&ls->l[0], &ls->l[1], (size_t)(ls->n - 1) * sizeof(char *));
	ls->n--;
}

static void
m_insert_foreign(struct lines *ls, struct lines *other)
{
	memmove(&ls->l[3], &ls->l[2], (size_t)(ls->n - 2) * sizeof(char *));
	ls->l[2] = strdup(other->l[2]);
	ls->n++;
}

static void
m_duplicate(struct lines *ls, struct lines *other)
{
	memmove(&ls->l[3], &ls->l[2], (size_t)(ls->n - 2) * sizeof(char *));
	ls->l[2] = strdup(ls->l[3]);
	ls->n++;
}

static void
m_swap(struct lines *ls, struct lines *other)
{
	char *t = ls->l[2];

	ls->l[2] = ls->l[3];
	ls->l[3] = t;
}

static void
m_drop_last(struct lines *ls, struct lines *other)
{
	free(ls->l[--ls->n]);
}

static void
m_partial_last(struct lines *ls, struct lines *other)
{
	char *l = ls->l[ls->n - 1];

	l[strlen(l) / 2] = '\0';
}

/* Same members and values, other order: the signature covers bytes. */
static void
m_reorder_keys(struct lines *ls, struct lines *other)
{
	char out[4096], *rest, *sig;

	/* {"event":"request",REST...,"sig":...} -> {REST...,"event":"request","sig":...} */
	ck_assert_int_eq(strncmp(ls->l[1], "{\"event\":\"request\",", 19), 0);
	rest = ls->l[1] + 19;
	ck_assert_ptr_nonnull(sig = strstr(rest, ",\"sig\""));
	snprintf(out, sizeof(out), "{%.*s,\"event\":\"request\"%s",
	    (int)(sig - rest), rest, sig);
	free(ls->l[1]);
	ls->l[1] = strdup(out);
}

static void
m_append_after_end(struct lines *ls, struct lines *other)
{
	ls->l[ls->n] = strdup(ls->l[1]);
	ls->n++;
}

static void
m_replace_log(struct lines *ls, struct lines *other)
{
	int i;

	for (i = 0; i < ls->n; i++)
		free(ls->l[i]);
	for (i = 0; i < other->n; i++)
		ls->l[i] = strdup(other->l[i]);
	ls->n = other->n;
}

static void
m_huge_line(struct lines *ls, struct lines *other)
{
	size_t n = AUDIT_MAX_LINE + 10;
	char *big = malloc(n + 2);

	memset(big, 'x', n);
	big[n] = '\n';
	big[n + 1] = '\0';
	free(ls->l[2]);
	ls->l[2] = big;
}

static const struct {
	const char	*name;
	void		(*mutate)(struct lines *, struct lines *);
	int		 status;
	uint64_t	 line;
	const char	*reason;
	int		 pin;
} tamper[] = {
	{ "untouched", NULL, AUDIT_VERIFY_CLOSED, 0, "", 0 },
	{ "edited field value", m_edit_value, AUDIT_VERIFY_BAD, 3,
	    "signature does not verify", 0 },
	{ "edited signature", m_edit_sig, AUDIT_VERIFY_BAD, 4,
	    "signature does not verify", 0 },
	{ "deleted middle record", m_delete_middle, AUDIT_VERIFY_BAD, 3,
	    "seq 4, expected 3", 0 },
	{ "deleted first record", m_delete_first, AUDIT_VERIFY_BAD, 1,
	    "not session_start", 0 },
	{ "inserted from another session", m_insert_foreign, AUDIT_VERIFY_BAD,
	    3, "inserted from another log", 0 },
	{ "duplicated record", m_duplicate, AUDIT_VERIFY_BAD, 4,
	    "seq 3, expected 4", 0 },
	{ "swapped records", m_swap, AUDIT_VERIFY_BAD, 3, "seq 4, expected 3",
	    0 },
	{ "last record removed", m_drop_last, AUDIT_VERIFY_OPEN, 0,
	    "open (no session_end yet)", 0 },
	{ "partial last line", m_partial_last, AUDIT_VERIFY_BAD, 6,
	    "incomplete last record", 0 },
	{ "members reordered", m_reorder_keys, AUDIT_VERIFY_BAD, 2,
	    "signature does not verify", 0 },
	{ "record after session_end", m_append_after_end, AUDIT_VERIFY_BAD, 7,
	    "after session_end", 0 },
	{ "whole log replaced, key pinned", m_replace_log, AUDIT_VERIFY_UNTRUSTED, 1,
	    "not the pinned key", 1 },
	{ "untouched, key pinned", NULL, AUDIT_VERIFY_CLOSED, 0, "", 1 },
	{ "a line over the limit", m_huge_line, AUDIT_VERIFY_BAD, 3,
	    "longer than", 0 },
};

START_TEST(test_audit_verify_detects_tampering)
{
	struct audit_verify_result res;
	struct lines ls, other;
	unsigned char pin[32];
	char tampered[300], otherpath[300];
	int rc;

	write_log(logpath, "s1", 4);
	snprintf(otherpath, sizeof(otherpath), "%s/other", dir);
	write_log(otherpath, "s2", 4);
	read_lines(logpath, &ls);
	read_lines(otherpath, &other);
	ck_assert_int_eq(ls.n, 6);
	if (tamper[_i].mutate != NULL)
		tamper[_i].mutate(&ls, &other);
	snprintf(tampered, sizeof(tampered), "%s/tampered", dir);
	write_lines(tampered, &ls);

	/* The pin is the original log's session key. */
	{
		struct audit_verify_result r0;

		ck_assert_int_eq(verify_path(logpath, NULL, &r0), 0);
		ck_assert_int_eq(audit_parse_pubkey(r0.pubkey, pin), 0);
	}
	rc = verify_path(tampered, tamper[_i].pin ? pin : NULL, &res);
	ck_assert_msg(rc == tamper[_i].status, "%s: status %d want %d (%s)",
	    tamper[_i].name, rc, tamper[_i].status, res.reason);
	ck_assert_msg(res.bad_line == tamper[_i].line, "%s: line %llu want %llu",
	    tamper[_i].name, (unsigned long long)res.bad_line,
	    (unsigned long long)tamper[_i].line);
	ck_assert_msg(strstr(res.reason, tamper[_i].reason) != NULL,
	    "%s: reason '%s' lacks '%s'", tamper[_i].name, res.reason,
	    tamper[_i].reason);
	free_lines(&ls);
	free_lines(&other);
}
END_TEST

START_TEST(test_audit_record_format)
{
	struct audit_verify_result res;
	struct lines ls;
	unsigned char md[32];
	char hex[65];
	json_t *rec;

	write_log(logpath, "sess-1", 1);
	read_lines(logpath, &ls);
	ck_assert_int_eq(ls.n, 3);
	rec = audit_record_parse(ls.l[1], strlen(ls.l[1]) - 1);
	ck_assert_ptr_nonnull(rec);
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "seq")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(rec, "event")),
	    "request");
	ck_assert_str_eq(json_string_value(json_object_get(rec, "session")),
	    "sess-1");
	ck_assert_int_eq(strlen(json_string_value(json_object_get(rec,
	    "time"))), 24);
	/* prev is BLAKE2b-256 of line 1 without its newline. */
	crypto_generichash(md, 32, (unsigned char *)ls.l[0],
	    strlen(ls.l[0]) - 1, NULL, 0);
	sodium_bin2hex(hex, sizeof(hex), md, 32);
	ck_assert_str_eq(json_string_value(json_object_get(rec, "prev")), hex);
	json_decref(rec);
	ck_assert_ptr_nonnull(strstr(ls.l[0], "\"prev\":\"0000000000000000"));
	ck_assert_ptr_nonnull(strstr(ls.l[2], "{\"event\":\"session_end\""));
	ck_assert_int_eq(verify_path(logpath, NULL, &res), AUDIT_VERIFY_CLOSED);
	ck_assert_uint_eq(res.records, 3);
	ck_assert_str_eq(res.session, "sess-1");
	ck_assert_str_eq(res.keykind, "session");
	free_lines(&ls);
}
END_TEST

START_TEST(test_audit_open_refuses_existing_log_and_second_writer)
{
	struct audit *a, *b;
	struct stat st;

	ck_assert_int_eq(audit_open(logpath, "s", &a), 0);
	ck_assert_int_eq(stat(logpath, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	/* The log's descriptor never survives exec into a runner or agent. */
	{
		char link[64], target[300];
		ssize_t n;
		int fd, found = 0;

		for (fd = 3; fd < 64; fd++) {
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			if ((n = readlink(link, target, sizeof(target) - 1)) <= 0)
				continue;
			target[n] = '\0';
			if (strcmp(target, logpath) != 0)
				continue;
			found = 1;
			ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
		}
		ck_assert_int_eq(found, 1);
	}
	/* Locked by a: a second writer is refused. */
	ck_assert_int_eq(audit_open(logpath, "s", &b), AL_ERR_SYSTEM);
	ck_assert_int_eq(errno, EWOULDBLOCK);
	ck_assert_ptr_null(b);
	audit_close(a);
	/* One file is one session. */
	ck_assert_int_eq(audit_open(logpath, "s2", &b), AL_ERR_SYSTEM);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_int_eq(audit_open(logpath, "", &b), AL_ERR_FORMAT);
	ck_assert_int_eq(audit_open(logpath, "a b", &b), AL_ERR_FORMAT);
}
END_TEST

START_TEST(test_audit_append_refuses_bad_events)
{
	struct audit *a;
	json_t *arr = json_array();

	ck_assert_int_eq(audit_open(logpath, "s", &a), 0);
	ck_assert_int_eq(audit_append(a, "Bad Event", NULL), AL_ERR_FORMAT);
	ck_assert_int_eq(audit_append(a, "", NULL), AL_ERR_FORMAT);
	ck_assert_int_eq(audit_append(a, "session_start", NULL), AL_ERR_FORMAT);
	ck_assert_int_eq(audit_append(a, "session_end", NULL), AL_ERR_FORMAT);
	ck_assert_int_eq(audit_append(a, "request", arr), AL_ERR_TYPE);
	ck_assert_int_eq(audit_append(a, "budget_stop", NULL), 0);
	ck_assert_int_eq(audit_failing(a), 0);
	ck_assert_uint_eq(audit_seq(a), 2);
	json_decref(arr);
	audit_close(a);
}
END_TEST

/*
 * Runs in a child of the test: RLIMIT_FSIZE would also stop Check from
 * writing its own results.  Returns a failure code, 0 if all held.
 */
static int
fail_closed_child(void)
{
	struct audit *a;
	struct rlimit rl;
	struct stat st;
	json_t *f;
	char head[65];
	off_t size;
	int i;

	signal(SIGXFSZ, SIG_IGN);
	if (audit_open(logpath, "s", &a) != 0)
		return 10;
	f = json_pack("{s:s}", "pad", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	if (audit_append(a, "request", f) != 0 || stat(logpath, &st) != 0)
		return 11;
	size = st.st_size;
	snprintf(head, sizeof(head), "%s", audit_head(a));
	/* The next line can be only partly written. */
	if (getrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 12;
	rl.rlim_cur = (rlim_t)size + 100;	/* the hard limit stays */
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 12;
	for (i = 0; i < 3; i++) {
		if (audit_append(a, "request", f) != AL_ERR_IO)
			return 13;
		if (audit_failing(a) != 1)
			return 14;
		if (stat(logpath, &st) != 0 || st.st_size != size)
			return 15;	/* not cut back */
		if (strcmp(audit_head(a), head) != 0)
			return 16;	/* chain moved */
	}
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 17;
	if (audit_append(a, "request", f) != 0 || audit_failing(a) != 0)
		return 18;
	json_decref(f);
	audit_close(a);
	return 0;
}

START_TEST(test_audit_append_fails_closed_and_recovers)
{
	struct audit_verify_result res;
	pid_t pid;
	int status;

	if ((pid = fork()) == 0)
		_exit(fail_closed_child());
	ck_assert_int_ne(pid, -1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "fail-closed step %d failed", WEXITSTATUS(status));
	ck_assert_int_eq(verify_path(logpath, NULL, &res), AUDIT_VERIFY_CLOSED);
	ck_assert_uint_eq(res.records, 4);
}
END_TEST

START_TEST(test_audit_long_term_key_is_pinnable)
{
	struct audit_verify_result res;
	char keyfile[300], hex[65], hex2[65];
	unsigned char pin[32];
	struct audit *a;
	struct stat st;

	snprintf(keyfile, sizeof(keyfile), "%s/key", dir);
	ck_assert_int_eq(audit_key_public(keyfile, 0, hex), AL_ERR_NOT_FOUND);
	ck_assert_int_eq(audit_open_with_key(logpath, "s", keyfile, &a), 0);
	ck_assert_int_eq(stat(keyfile, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(st.st_size, 32);
	ck_assert_int_eq(audit_key_public(keyfile, 0, hex), 0);
	ck_assert_str_eq(audit_public_key(a), hex);
	audit_close(a);
	ck_assert_int_eq(audit_parse_pubkey(hex, pin), 0);
	ck_assert_int_eq(verify_path(logpath, pin, &res), AUDIT_VERIFY_CLOSED);
	ck_assert_str_eq(res.keykind, "long-term");
	/* The same key signs the next session. */
	snprintf(logpath, sizeof(logpath), "%s/log2", dir);
	ck_assert_int_eq(audit_open_with_key(logpath, "s", keyfile, &a), 0);
	ck_assert_int_eq(audit_key_public(keyfile, 1, hex2), 0);
	ck_assert_str_eq(hex, hex2);
	audit_close(a);
	ck_assert_int_eq(verify_path(logpath, pin, &res), AUDIT_VERIFY_CLOSED);
	/* A key others can read is refused. */
	ck_assert_int_eq(chmod(keyfile, 0640), 0);
	snprintf(logpath, sizeof(logpath), "%s/log3", dir);
	ck_assert_int_eq(audit_open_with_key(logpath, "s", keyfile, &a),
	    AL_ERR_DENIED);
	ck_assert_int_eq(chmod(keyfile, 0600), 0);
	ck_assert_int_eq(truncate(keyfile, 31), 0);
	ck_assert_int_eq(audit_open_with_key(logpath, "s", keyfile, &a),
	    AL_ERR_FORMAT);
}
END_TEST

START_TEST(test_audit_host_key_certifies_session_key)
{
	struct audit_verify_result res;
	char keyfile[300], other[300], hex[65], ohex[65];
	unsigned char keys[2][32];
	struct audit *a;
	json_t *extra;
	FILE *fp;

	snprintf(keyfile, sizeof(keyfile), "%s/host.key", dir);
	snprintf(other, sizeof(other), "%s/other.key", dir);
	ck_assert_int_eq(audit_key_public(other, 1, ohex), 0);
	/* The caller's context cannot replace the key members. */
	extra = json_pack("{s:s, s:s, s:s}", "user", "alice", "pubkey",
	    "00", "cert", "forged");
	ck_assert_int_eq(audit_open_certified(logpath, "s", keyfile, extra,
	    &a), 0);
	json_decref(extra);
	ck_assert_int_eq(audit_key_public(keyfile, 0, hex), 0);
	/* The session key is its own, not the host key. */
	ck_assert_str_ne(audit_public_key(a), hex);
	audit_close(a);
	ck_assert_int_eq(audit_parse_pubkey(hex, keys[0]), 0);
	ck_assert_int_eq(audit_parse_pubkey(ohex, keys[1]), 0);

	ck_assert_ptr_nonnull(fp = fopen(logpath, "r"));
	ck_assert_int_eq(audit_verify_fp_trusted(fp,
	    (const unsigned char (*)[32])keys, 1, NULL, &res),
	    AUDIT_VERIFY_CLOSED);
	fclose(fp);
	ck_assert_str_eq(res.trust, "host-key");
	ck_assert_str_eq(res.hostkey, hex);
	/* A list of trusted keys: any one of them will do. */
	ck_assert_ptr_nonnull(fp = fopen(logpath, "r"));
	ck_assert_int_eq(audit_verify_fp_trusted(fp,
	    (const unsigned char (*)[32])keys, 2, NULL, &res),
	    AUDIT_VERIFY_CLOSED);
	fclose(fp);
	/* Only the other key trusted: untrusted at line 1. */
	ck_assert_ptr_nonnull(fp = fopen(logpath, "r"));
	ck_assert_int_eq(audit_verify_fp_trusted(fp,
	    (const unsigned char (*)[32])keys + 1, 1, NULL, &res),
	    AUDIT_VERIFY_UNTRUSTED);
	fclose(fp);
	ck_assert_int_eq(res.bad_line, 1);
	/* No trusted key: consistent, the certificate checked. */
	ck_assert_int_eq(verify_path(logpath, NULL, &res),
	    AUDIT_VERIFY_CLOSED);
	ck_assert_str_eq(res.trust, "none");
	ck_assert_str_eq(res.hostkey, hex);
}
END_TEST

/* The log at logpath verifies, closed, trusting the host key |keyfile|. */
static void
verify_host_key(const char *keyfile, struct audit_verify_result *res)
{
	unsigned char key[1][32];
	char hex[65];
	FILE *fp;

	ck_assert_int_eq(audit_key_public(keyfile, 0, hex), 0);
	ck_assert_int_eq(audit_parse_pubkey(hex, key[0]), 0);
	ck_assert_ptr_nonnull(fp = fopen(logpath, "r"));
	ck_assert_int_eq(audit_verify_fp_trusted(fp,
	    (const unsigned char (*)[32])key, 1, NULL, res),
	    AUDIT_VERIFY_CLOSED);
	fclose(fp);
	ck_assert_str_eq(res->trust, "host-key");
}

/*
 * audit_open_certified_first(): session_start and the first record in
 * one write (session_start unsigned, covered by the first record's
 * signature), the log verifying under the host key; session_start or
 * session_end as the first record is refused before any file is made.
 */
START_TEST(test_audit_first_record_goes_with_session_start)
{
	struct audit_verify_result res;
	char keyfile[300], line[4096];
	struct audit *a;
	json_t *f;
	FILE *fp;
	int n = 0;

	snprintf(keyfile, sizeof(keyfile), "%s/host.key", dir);
	f = json_pack("{s:s}", "command", "exec");
	ck_assert_int_eq(audit_open_certified_first(logpath, "s", keyfile,
	    NULL, "session_end", f, &a), AL_ERR_FORMAT);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(access(logpath, F_OK), -1);
	ck_assert_int_eq(audit_open_certified_first(logpath, "s", keyfile,
	    NULL, "exec_start", f, &a), 0);
	json_decref(f);
	/* Both on the disk before the open returns: one line each. */
	ck_assert_ptr_nonnull(fp = fopen(logpath, "r"));
	while (fgets(line, sizeof(line), fp) != NULL) {
		n++;
		if (n == 1)
			ck_assert_ptr_null(strstr(line, "\"sig\""));
		else
			ck_assert_ptr_nonnull(strstr(line, "\"sig\""));
	}
	fclose(fp);
	ck_assert_int_eq(n, 2);
	audit_close(a);
	verify_host_key(keyfile, &res);
}
END_TEST

/*
 * audit_prepare_certified() then audit_begin_first(): nothing is written
 * before the begin (a prepared log refuses records and a second writer),
 * the log then verifies under the host key as the one-step open's does,
 * and audit_abandon() removes a log only while it is still empty.
 */
START_TEST(test_audit_prepared_log_begins_or_is_abandoned)
{
	struct audit_verify_result res;
	char keyfile[300];
	struct audit *a, *b;
	struct stat st;
	json_t *f, *extra;
	FILE *fp;

	snprintf(keyfile, sizeof(keyfile), "%s/host.key", dir);
	f = json_pack("{s:s}", "command", "exec");
	extra = json_pack("{s:s, s:s}", "user", "alice", "cert", "forged");
	ck_assert_int_eq(audit_prepare_certified(logpath, "s", keyfile, &a),
	    0);
	/* Opened, locked, empty: no record yet, and no second writer. */
	ck_assert_int_eq(stat(logpath, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	ck_assert_int_eq(audit_open(logpath, "s", &b), AL_ERR_SYSTEM);
	ck_assert_int_eq(audit_append(a, "exec_start", f), AL_ERR_INTERNAL);
	ck_assert_int_eq(audit_begin_first(a, extra, "session_end", f),
	    AL_ERR_FORMAT);
	ck_assert_int_eq(stat(logpath, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	ck_assert_int_eq(audit_begin_first(a, extra, "exec_start", f), 0);
	/* Begun once only. */
	ck_assert_int_eq(audit_begin_first(a, extra, "exec_start", f),
	    AL_ERR_INTERNAL);
	audit_close(a);
	verify_host_key(keyfile, &res);
	ck_assert_int_eq(res.records, 3);
	/* Abandoned unbegun: the empty log goes... */
	ck_assert_int_eq(unlink(logpath), 0);
	ck_assert_int_eq(audit_prepare_certified(logpath, "s", keyfile, &a),
	    0);
	audit_abandon(a);
	ck_assert_int_eq(access(logpath, F_OK), -1);
	/* ...but not a file put in its place, nor one with bytes in it. */
	ck_assert_int_eq(audit_prepare_certified(logpath, "s", keyfile, &a),
	    0);
	ck_assert_int_eq(unlink(logpath), 0);
	ck_assert_ptr_nonnull(fp = fopen(logpath, "w"));
	fclose(fp);
	audit_abandon(a);
	ck_assert_int_eq(access(logpath, F_OK), 0);
	ck_assert_int_eq(unlink(logpath), 0);
	ck_assert_int_eq(audit_prepare_certified(logpath, "s", keyfile, &a),
	    0);
	ck_assert_ptr_nonnull(fp = fopen(logpath, "a"));
	fputs("x", fp);
	fclose(fp);
	audit_abandon(a);
	ck_assert_int_eq(access(logpath, F_OK), 0);
	json_decref(f);
	json_decref(extra);
}
END_TEST

/*
 * Runs in a child of the test (RLIMIT_FSIZE): the first write of each
 * one-step open fails, and the log it made must not stay behind as an
 * empty file.  Returns a failure code, 0 if all held.
 */
static int
failed_open_child(const char *keyfile)
{
	struct audit *a = NULL;
	struct rlimit rl;
	json_t *f;

	signal(SIGXFSZ, SIG_IGN);
	f = json_pack("{s:s}", "command", "exec");
	if (getrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 10;
	rl.rlim_cur = 64;	/* the host key's 32 bytes fit, no record */
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 11;
	if (audit_open_certified_first(logpath, "s", keyfile, NULL,
	    "exec_start", f, &a) != AL_ERR_IO || a != NULL)
		return 12;
	if (access(logpath, F_OK) != -1 || errno != ENOENT)
		return 13;
	if (audit_open_certified(logpath, "s", keyfile, NULL, &a) !=
	    AL_ERR_IO || access(logpath, F_OK) != -1)
		return 14;
	if (audit_open(logpath, "s", &a) != AL_ERR_IO ||
	    access(logpath, F_OK) != -1)
		return 15;
	json_decref(f);
	return 0;
}

/* A one-step open whose first write fails leaves no log file. */
START_TEST(test_audit_failed_open_leaves_no_log)
{
	char keyfile[300];
	pid_t pid;
	int status;

	snprintf(keyfile, sizeof(keyfile), "%s/host.key", dir);
	if ((pid = fork()) == 0)
		_exit(failed_open_child(keyfile));
	ck_assert_int_ne(pid, -1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "failed-open step %d failed", WEXITSTATUS(status));
	ck_assert_int_eq(access(logpath, F_OK), -1);
}
END_TEST

START_TEST(test_audit_redacts_fields)
{
	struct redact *r;
	struct audit *a;
	struct lines ls;
	json_t *f;

	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(redact_add(r, "TOKEN", "ghp_supersecret", 15), 0);
	ck_assert_int_eq(audit_open(logpath, "s", &a), 0);
	audit_set_redact(a, r);
	f = json_pack("{s:s}", "stdout", "token is ghp_supersecret!");
	ck_assert_int_eq(audit_append(a, "runner_end", f), 0);
	/* The caller's tree is untouched. */
	ck_assert_str_eq(json_string_value(json_object_get(f, "stdout")),
	    "token is ghp_supersecret!");
	json_decref(f);
	audit_close(a);
	redact_free(r);
	read_lines(logpath, &ls);
	ck_assert_ptr_null(strstr(ls.l[1], "ghp_supersecret"));
	ck_assert_ptr_nonnull(strstr(ls.l[1], "token is [REDACTED:TOKEN]!"));
	free_lines(&ls);
}
END_TEST

/*
 * A record over AUDIT_MAX_LINE is refused, and leaves a short
 * record_too_large in its place (event, size, digest of the fields, id):
 * an agent that makes a record too large cannot make it vanish.
 */
START_TEST(test_audit_too_large_leaves_a_trace)
{
	struct audit_verify_result res;
	struct audit *a;
	struct lines ls;
	json_t *f, *rec;
	char *big;
	FILE *fp;

	big = malloc(AUDIT_MAX_LINE + 2);
	ck_assert_ptr_nonnull(big);
	memset(big, 'p', AUDIT_MAX_LINE + 1);
	big[AUDIT_MAX_LINE + 1] = '\0';
	ck_assert_int_eq(audit_open(logpath, "s", &a), 0);
	f = json_pack("{s:i, s:s}", "id", 7, "path", big);
	ck_assert_int_eq(audit_append(a, "change_refused", f), AL_ERR_LIMIT);
	ck_assert_int_eq(audit_failing(a), 0);
	json_decref(f);
	/* A too large id is not copied. */
	f = json_pack("{s:s}", "id", big);
	ck_assert_int_eq(audit_append(a, "request", f), AL_ERR_LIMIT);
	json_decref(f);
	free(big);
	audit_close(a);
	read_lines(logpath, &ls);
	ck_assert_int_eq(ls.n, 4);
	ck_assert_ptr_nonnull(rec = json_loads(ls.l[1], 0, NULL));
	ck_assert_str_eq(json_string_value(json_object_get(rec, "event")),
	    "record_too_large");
	f = json_object_get(rec, "fields");
	ck_assert_str_eq(json_string_value(json_object_get(f, "event")),
	    "change_refused");
	ck_assert_int_eq(json_integer_value(json_object_get(f, "id")), 7);
	ck_assert_int_gt(json_integer_value(json_object_get(f, "bytes")),
	    AUDIT_MAX_LINE);
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(f,
	    "fieldsDigest"))), 64);
	json_decref(rec);
	ck_assert_ptr_nonnull(rec = json_loads(ls.l[2], 0, NULL));
	f = json_object_get(rec, "fields");
	ck_assert_str_eq(json_string_value(json_object_get(f, "event")),
	    "request");
	ck_assert_ptr_null(json_object_get(f, "id"));
	json_decref(rec);
	free_lines(&ls);
	ck_assert_ptr_nonnull(fp = fopen(logpath, "r"));
	ck_assert_int_eq(audit_verify_fp(fp, NULL, NULL, &res),
	    AUDIT_VERIFY_CLOSED);
	fclose(fp);
}
END_TEST

/* Exhaustive: flipping any one bit of any byte is caught. */
START_TEST(test_audit_every_byte_edit_is_detected)
{
	struct audit_verify_result res;
	static const unsigned char flips[] = { 0x01, 0x20 };
	unsigned char *buf;
	size_t len, i, f;
	FILE *fp;
	long sz;

	write_log(logpath, "s", 2);
	ck_assert_ptr_nonnull(fp = fopen(logpath, "r"));
	fseek(fp, 0, SEEK_END);
	sz = ftell(fp);
	rewind(fp);
	len = (size_t)sz;
	buf = malloc(len);
	ck_assert_uint_eq(fread(buf, 1, len, fp), len);
	fclose(fp);
	for (i = 0; i < len; i++) {
		for (f = 0; f < sizeof(flips); f++) {
			buf[i] ^= flips[f];
			ck_assert_ptr_nonnull(fp = fmemopen(buf, len, "r"));
			ck_assert_msg(audit_verify_fp(fp, NULL, NULL, &res) ==
			    AUDIT_VERIFY_BAD, "byte %zu ^ 0x%02x accepted", i,
			    flips[f]);
			fclose(fp);
			buf[i] ^= flips[f];
		}
	}
	ck_assert_ptr_nonnull(fp = fmemopen(buf, len, "r"));
	ck_assert_int_eq(audit_verify_fp(fp, NULL, NULL, &res),
	    AUDIT_VERIFY_CLOSED);
	fclose(fp);
	free(buf);
}
END_TEST

static const struct {
	const char	*in;
	int		 rc;
	int64_t		 ms;
} times[] = {
	{ "1970-01-01T00:00:00Z", 0, 0 },
	{ "1970-01-01T00:00:01.5Z", 0, 1500 },
	{ "1970-01-01T00:00:01.123456Z", 0, 1123 },
	{ "1970-01-02", 0, 86400000 },
	{ "1970-01-01T01:00:00+01:00", 0, 0 },
	{ "2026-11-30T10:00:00.000Z", 0, 1796032800000LL },
	{ "2026-11-30T10:00:00", AL_ERR_FORMAT, 0 },
	{ "2026-13-01", AL_ERR_FORMAT, 0 },
	{ "yesterday", AL_ERR_FORMAT, 0 },
	{ "", AL_ERR_FORMAT, 0 },
};

START_TEST(test_audit_parse_time)
{
	int64_t ms;

	ck_assert_msg(audit_parse_time(times[_i].in, &ms) == times[_i].rc,
	    "%s", times[_i].in);
	if (times[_i].rc == 0)
		ck_assert_msg(ms == times[_i].ms, "%s: %lld", times[_i].in,
		    (long long)ms);
}
END_TEST

static Suite *
audit_suite(void)
{
	Suite *s = suite_create("audit");
	TCase *tc = tcase_create("audit");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_audit_verify_detects_tampering, 0,
	    sizeof(tamper) / sizeof(tamper[0]));
	tcase_add_test(tc, test_audit_record_format);
	tcase_add_test(tc, test_audit_every_byte_edit_is_detected);
	tcase_add_test(tc, test_audit_open_refuses_existing_log_and_second_writer);
	tcase_add_test(tc, test_audit_append_refuses_bad_events);
	tcase_add_test(tc, test_audit_append_fails_closed_and_recovers);
	tcase_add_test(tc, test_audit_long_term_key_is_pinnable);
	tcase_add_test(tc, test_audit_host_key_certifies_session_key);
	tcase_add_test(tc, test_audit_first_record_goes_with_session_start);
	tcase_add_test(tc, test_audit_prepared_log_begins_or_is_abandoned);
	tcase_add_test(tc, test_audit_failed_open_leaves_no_log);
	tcase_add_test(tc, test_audit_redacts_fields);
	tcase_add_test(tc, test_audit_too_large_leaves_a_trace);
	tcase_add_loop_test(tc, test_audit_parse_time, 0,
	    sizeof(times) / sizeof(times[0]));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(audit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
