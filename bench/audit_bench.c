/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_bench: audit appends per second, medians over several runs.
 *
 * usage: audit_bench [-r RUNS] [-n RECORDS] [-s SYNC_RECORDS] DIR
 *
 * Modes (each a fresh file in DIR):
 *   plain            json_dumps + one write(2), no chain, no signature
 *   plain+fdatasync  the same, fdatasync(2) after every line
 *   signed           audit_append(): chain + Ed25519, AUDIT_SYNC_NONE
 *   signed+redact    the same with 4 secrets redacted from every record
 *   signed+key-sync  AUDIT_SYNC_KEY (the default): fdatasync after the
 *                    decision record of each request/decision/runner
 *                    quartet, i.e. 1 record in 4
 *   signed+fdatasync AUDIT_SYNC_ALL
 *   verify           audit_verify_fp() over a log of RECORDS records
 * and, last, redact_buf() throughput over 8 MiB of text with 4 secrets.
 * Sync modes use SYNC_RECORDS records (they are bounded by the disk).
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "common/errors.h"
#include "broker/audit.h"
#include "broker/audit_verify.h"
#include "broker/redact.h"

enum mode {
	M_PLAIN, M_PLAIN_SYNC, M_SIGNED, M_SIGNED_REDACT, M_SIGNED_KEY,
	M_SIGNED_ALL, M_VERIFY, M_COUNT
};

static const char *mode_names[] = {
	"plain", "plain+fdatasync", "signed", "signed+redact",
	"signed+key-sync", "signed+fdatasync", "verify"
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A realistic record: a tools/call request with a small argument. */
static json_t *
fields(int i)
{
	return json_pack("{s:s, s:i, s:{s:s, s:s}, s:s}", "tool", "read_file",
	    "request_id", i, "arguments", "path", "src/components/App.tsx",
	    "expectedBaseSha",
	    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	    "digest", "b5bb9d8014a0f9b1d61e21e796d78dccdf1352f23cd32812f4850b878ae4944c");
}

static const char *events[] = { "request", "decision", "runner_start",
    "runner_end" };

static double
run_plain(const char *path, int n, int sync)
{
	double t0, t;
	json_t *f;
	char *line;
	int fd, i;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
	if (fd == -1)
		return -1;
	t0 = now();
	for (i = 0; i < n; i++) {
		size_t len;

		f = fields(i);
		json_object_set_new(f, "event", json_string(events[i % 4]));
		line = json_dumps(f, JSON_COMPACT | JSON_SORT_KEYS);
		len = strlen(line);
		line[len - 1] = '}';
		if (write(fd, line, len) != (ssize_t)len)
			return -1;
		if (sync)
			fdatasync(fd);
		free(line);
		json_decref(f);
	}
	t = now() - t0;
	close(fd);
	return n / t;
}

static double
run_signed(const char *path, int n, int sync, const struct redact *r)
{
	struct audit *a;
	double t0, t;
	json_t *f;
	int i;

	unlink(path);
	if (audit_open(path, "bench", &a) != 0)
		return -1;
	audit_set_sync(a, sync);
	audit_set_redact(a, r);
	t0 = now();
	for (i = 0; i < n; i++) {
		f = fields(i);
		if (audit_append(a, events[i % 4], f) != 0)
			return -1;
		json_decref(f);
	}
	t = now() - t0;
	audit_set_sync(a, AUDIT_SYNC_NONE);
	audit_close(a);
	return n / t;
}

static double
run_verify(const char *path, int n)
{
	struct audit_verify_result res;
	double t0, t;
	FILE *fp;

	if (run_signed(path, n, AUDIT_SYNC_NONE, NULL) < 0)
		return -1;
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	t0 = now();
	if (audit_verify_fp(fp, NULL, NULL, &res) != AUDIT_VERIFY_CLOSED)
		return -1;
	t = now() - t0;
	fclose(fp);
	return res.records / t;
}

/* MB/s of redact_buf() over 8 MiB of text holding one secret. */
static double
run_redact(const struct redact *r)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 \n";
	size_t n = 8 << 20, i, outlen;
	double t0, t;
	char *buf, *out;

	if ((buf = malloc(n)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		buf[i] = alphabet[randombytes_uniform(sizeof(alphabet) - 1)];
	memcpy(buf + n / 2, "correct horse battery", 21);
	t0 = now();
	if (redact_buf(r, buf, n, &out, &outlen) != 1)
		return -1;
	t = now() - t0;
	free(out);
	free(buf);
	return n / t / 1e6;
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int runs = 5, n = 20000, nsync = 300, ch, m, i;
	double res[M_COUNT][64], med[M_COUNT];
	struct redact *r;
	char path[4096];

	while ((ch = getopt(argc, argv, "r:n:s:")) != -1) {
		switch (ch) {
		case 'r': runs = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 's': nsync = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: audit_bench [-r RUNS] "
			    "[-n RECORDS] [-s SYNC_RECORDS] DIR\n");
			return 64;
		}
	}
	if (argc - optind != 1 || runs < 1 || runs > 64 || n < 1 || nsync < 1)
		return 64;
	if (sodium_init() < 0 || (r = redact_new()) == NULL)
		return 1;
	if (redact_add(r, "GITHUB_TOKEN", "ghp_0123456789abcdefghijABCDEFGHIJ", 34) ||
	    redact_add(r, "NPM_TOKEN", "npm_abcdefabcdefabcdef0123", 26) ||
	    redact_add(r, "DB_PASSWORD", "correct horse battery", 21) ||
	    redact_add(r, "AWS_SECRET", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", 40))
		return 1;
	snprintf(path, sizeof(path), "%s/audit-bench.log", argv[optind]);
	/* Interleave the modes so drift on a shared machine hits all. */
	for (i = 0; i < runs; i++) {
		for (m = 0; m < M_COUNT; m++) {
			switch (m) {
			case M_PLAIN: res[m][i] = run_plain(path, n, 0); break;
			case M_PLAIN_SYNC: res[m][i] = run_plain(path, nsync, 1); break;
			case M_SIGNED: res[m][i] = run_signed(path, n,
			    AUDIT_SYNC_NONE, NULL); break;
			case M_SIGNED_REDACT: res[m][i] = run_signed(path, n,
			    AUDIT_SYNC_NONE, r); break;
			case M_SIGNED_KEY: res[m][i] = run_signed(path, nsync,
			    AUDIT_SYNC_KEY, NULL); break;
			case M_SIGNED_ALL: res[m][i] = run_signed(path, nsync,
			    AUDIT_SYNC_ALL, NULL); break;
			case M_VERIFY: res[m][i] = run_verify(path, n); break;
			}
			if (res[m][i] < 0) {
				fprintf(stderr, "%s failed\n", mode_names[m]);
				return 1;
			}
		}
	}
	unlink(path);
	printf("%-18s %12s %10s %s\n", "mode", "records/s", "vs plain",
	    "(median of runs)");
	for (m = 0; m < M_COUNT; m++) {
		qsort(res[m], (size_t)runs, sizeof(double), dcmp);
		med[m] = runs % 2 ? res[m][runs / 2] :
		    (res[m][runs / 2 - 1] + res[m][runs / 2]) / 2;
	}
	for (m = 0; m < M_COUNT; m++)
		printf("%-18s %12.0f %9.3fx  min %.0f max %.0f\n",
		    mode_names[m], med[m], med[m] / (m == M_PLAIN_SYNC ||
		    m == M_SIGNED_KEY || m == M_SIGNED_ALL ?
		    med[M_PLAIN_SYNC] : med[M_PLAIN]), res[m][0],
		    res[m][runs - 1]);
	printf("per record: signed %.1f us, plain %.1f us, fdatasync adds "
	    "%.0f us\n", 1e6 / med[M_SIGNED], 1e6 / med[M_PLAIN],
	    1e6 / med[M_PLAIN_SYNC] - 1e6 / med[M_PLAIN]);
	for (i = 0; i < runs; i++)
		if ((res[0][i] = run_redact(r)) < 0)
			return 1;
	qsort(res[0], (size_t)runs, sizeof(double), dcmp);
	printf("redact_buf, 4 secrets: %.1f MB/s (median)\n", res[0][runs / 2]);
	redact_free(r);
	return 0;
}
