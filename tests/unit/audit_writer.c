/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_writer: writes a real audit log through broker/audit.h for the
 * integration tests (tests/integration/audit_verify.sh).
 *
 * usage: audit_writer [-k KEYFILE] [-S SESSION] [-n N] [-o] [-H SECS]
 *                     [-F FILLER] LOG
 *   -n N        append N records after session_start (default 8)
 *   -b B        batch the N records: audit_flush() after every B-th
 *               (only it signed; the others covered by its chain)
 *   -o          leave the session open (exit without session_end)
 *   -H SECS     hold the open log (and its lock) for SECS before closing
 *   -x TEXT     append one more request whose "note" field is TEXT
 *   -E EV=JSON  append one more record of event EV with fields JSON
 *               (repeatable, after the -n records)
 *   -F FILLER   disk-full test: fill the filesystem with FILLER, show
 *               that appends fail closed, free the space, append again
 *   -K KIND     write only a session_start whose "key" is KIND, signed
 *               with a fresh key: a log anyone with a key of their own
 *               can write, whatever its bytes
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <sodium.h>

#include "common/errors.h"
#include "broker/audit.h"

static const char *tools[] = { "read_file", "run_check", "write_file" };
static const char *decisions[] = { "allow", "deny", "ask" };

static int
append_nth(struct audit *a, int i)
{
	const char *tool = tools[(i / 4) % 3];
	json_t *f;
	int rc;

	switch (i % 4) {
	case 0:
		f = json_pack("{s:s, s:i, s:{s:s}}", "tool", tool,
		    "request_id", i, "arguments", "path", "src/app.ts");
		rc = audit_append(a, "request", f);
		break;
	case 1:
		f = json_pack("{s:s, s:i, s:s}", "tool", tool, "request_id",
		    i - 1, "decision", decisions[(i / 4) % 3]);
		rc = audit_append(a, "decision", f);
		break;
	case 2:
		f = json_pack("{s:s, s:[s,s]}", "tool", tool, "argv", "npm",
		    "test");
		rc = audit_append(a, "runner_start", f);
		break;
	default:
		f = json_pack("{s:s, s:i, s:i}", "tool", tool, "exit", 0,
		    "elapsed_ms", 12);
		rc = audit_append(a, "runner_end", f);
		break;
	}
	json_decref(f);
	return rc;
}

/* Fills the filesystem under |filler|; returns 0 once it is full. */
static int
fill(const char *filler)
{
	static char block[4096];
	int fd;

	if ((fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		return -1;
	memset(block, 'x', sizeof(block));
	for (;;) {
		ssize_t n = write(fd, block, sizeof(block));

		if (n <= 0)
			break;
	}
	/* And the last partial page. */
	while (write(fd, block, 1) == 1)
		;
	close(fd);
	return errno == ENOSPC ? 0 : -1;
}

/* -K: LOG holds one signed session_start whose "key" is |kind|. */
static int
forge_start(const char *path, const char *session, const char *kind)
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];
	unsigned char sk[crypto_sign_SECRETKEYBYTES], sig[crypto_sign_BYTES];
	char pkhex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	char b64[sodium_base64_ENCODED_LEN(crypto_sign_BYTES,
	    sodium_base64_VARIANT_ORIGINAL)];
	char prev[65];
	json_t *rec;
	char *body;
	FILE *fp;
	int rc;

	if (sodium_init() < 0)
		return -1;
	crypto_sign_keypair(pk, sk);
	sodium_bin2hex(pkhex, sizeof(pkhex), pk, sizeof(pk));
	memset(prev, '0', 64);
	prev[64] = '\0';
	rec = json_pack("{s:s, s:{s:s, s:i, s:s, s:s}, s:s, s:i, s:s, s:s}",
	    "event", "session_start", "fields", "key", kind, "pid", 1,
	    "pubkey", pkhex, "version", PACKAGE_VERSION, "prev", prev, "seq", 1,
	    "session", session, "time", "2026-12-06T10:00:00.000Z");
	if (rec == NULL ||
	    (body = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS)) == NULL)
		return -1;
	json_decref(rec);
	crypto_sign_detached(sig, NULL, (unsigned char *)body, strlen(body),
	    sk);
	sodium_bin2base64(b64, sizeof(b64), sig, sizeof(sig),
	    sodium_base64_VARIANT_ORIGINAL);
	if ((fp = fopen(path, "w")) == NULL) {
		free(body);
		return -1;
	}
	fprintf(fp, "%.*s,\"sig\":\"%s\"}\n", (int)(strlen(body) - 1), body,
	    b64);
	free(body);
	rc = fclose(fp) == EOF ? -1 : 0;
	return rc;
}

static off_t
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == -1 ? -1 : st.st_size;
}

int
main(int argc, char **argv)
{
	const char *keyfile = NULL, *session = "test-session", *filler = NULL;
	const char *extra = NULL, *events[32], *kind = NULL;
	size_t nev = 0, k;
	struct audit *a;
	int ch, n = 8, leave_open = 0, hold = 0, i, rc, tries, batch = 0;
	off_t before;

	while ((ch = getopt(argc, argv, "b:k:S:n:oH:F:x:E:K:")) != -1) {
		switch (ch) {
		case 'k': keyfile = optarg; break;
		case 'S': session = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'b': batch = atoi(optarg); break;
		case 'o': leave_open = 1; break;
		case 'H': hold = atoi(optarg); break;
		case 'F': filler = optarg; break;
		case 'x': extra = optarg; break;
		case 'K': kind = optarg; break;
		case 'E':
			if (nev < 32)
				events[nev++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: audit_writer [-k KEYFILE] "
			    "[-S SESSION] [-n N] [-b B] [-o] [-H SECS] "
			    "[-F FILLER] LOG\n");
			return 64;
		}
	}
	if (argc - optind != 1)
		return 64;
	if (kind != NULL)
		return forge_start(argv[optind], session, kind) == 0 ? 0 : 1;
	rc = keyfile != NULL ?
	    audit_open_with_key(argv[optind], session, keyfile, &a) :
	    audit_open(argv[optind], session, &a);
	if (rc != 0) {
		fprintf(stderr, "audit_open: %s: %s\n", al_strerror(rc),
		    strerror(errno));
		return 1;
	}
	if (batch > 0)
		audit_batch(a, 1);
	for (i = 0; i < n; i++) {
		if ((rc = append_nth(a, i)) != 0) {
			fprintf(stderr, "append %d: %s\n", i, al_strerror(rc));
			return 1;
		}
		if (batch > 0 && (i + 1) % batch == 0 &&
		    (rc = audit_flush(a)) != 0) {
			fprintf(stderr, "flush %d: %s\n", i, al_strerror(rc));
			return 1;
		}
	}
	audit_batch(a, 0);
	if ((rc = audit_flush(a)) != 0) {
		fprintf(stderr, "flush: %s\n", al_strerror(rc));
		return 1;
	}
	for (k = 0; k < nev; k++) {
		const char *eq = strchr(events[k], '=');
		char ev[65];
		json_t *f;

		if (eq == NULL || eq - events[k] > 64 ||
		    (f = json_loads(eq + 1, 0, NULL)) == NULL) {
			fprintf(stderr, "-E %s: EVENT=JSON\n", events[k]);
			return 64;
		}
		snprintf(ev, sizeof(ev), "%.*s", (int)(eq - events[k]),
		    events[k]);
		if ((rc = audit_append(a, ev, f)) != 0) {
			fprintf(stderr, "append %s: %s\n", ev, al_strerror(rc));
			return 1;
		}
		json_decref(f);
	}
	if (extra != NULL) {
		json_t *f = json_pack("{s:s, s:s}", "tool", "note",
		    "note", extra);

		if ((rc = audit_append(a, "request", f)) != 0) {
			fprintf(stderr, "append: %s\n", al_strerror(rc));
			return 1;
		}
		json_decref(f);
	}
	if (filler != NULL) {
		if (fill(filler) != 0) {
			fprintf(stderr, "fill: %s\n", strerror(errno));
			return 1;
		}
		/* The log's last page may still have room: append until not. */
		for (tries = 0; tries < 10000; tries++) {
			before = file_size(audit_path(a));
			if ((rc = append_nth(a, i++)) != 0)
				break;
		}
		printf("full: rc=%s failing=%d size_unchanged=%d\n",
		    rc == AL_ERR_IO ? "AL_ERR_IO" : al_strerror(rc),
		    audit_failing(a), file_size(audit_path(a)) == before);
		rc = append_nth(a, i++);
		printf("still full: rc=%s failing=%d\n",
		    rc == AL_ERR_IO ? "AL_ERR_IO" : al_strerror(rc),
		    audit_failing(a));
		unlink(filler);
		rc = append_nth(a, i++);
		printf("freed: rc=%d failing=%d\n", rc, audit_failing(a));
		for (tries = 0; tries < 3 && rc == 0; tries++)
			rc = append_nth(a, i++);
		printf("after: rc=%d failing=%d\n", rc, audit_failing(a));
	}
	printf("head %s\npubkey %s\n", audit_head(a), audit_public_key(a));
	fflush(stdout);
	if (hold > 0)
		sleep((unsigned)hold);
	if (leave_open)
		_exit(0);
	audit_close(a);
	return 0;
}
