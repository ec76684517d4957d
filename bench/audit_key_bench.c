/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_key_bench: what the host key costs a session, certified vs
 * signed directly with the long-term key (issue 15, "measure and
 * choose").  Each round opens one log per mode, interleaved in a
 * rotating order, appends RECORDS records and closes it; prints the
 * median and range of the open (session_start) and of the appends.
 *
 * usage: audit_key_bench [-r ROUNDS] [-n RECORDS] DIR
 *   fresh      audit_open(): a per-session key, no host key (before)
 *   direct     audit_open_with_key(): every record signed by the host key
 *   certified  audit_open_certified(): a per-session key certified by it
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "broker/audit.h"

#define MODES 3

static const char *names[MODES] = { "fresh", "direct", "certified" };

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
report(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	printf("  %-22s median %9.1f us  range %9.1f .. %9.1f\n", what,
	    v[n / 2], v[0], v[n - 1]);
}

int
main(int argc, char **argv)
{
	int rounds = 30, records = 200, ch, r, i, k, m;
	double *open_us[MODES], *rec_us[MODES], t0, t1;
	char path[4096], key[4096];
	struct audit *a;
	json_t *f;

	while ((ch = getopt(argc, argv, "r:n:")) != -1) {
		if (ch == 'r')
			rounds = atoi(optarg);
		else if (ch == 'n')
			records = atoi(optarg);
		else
			return 64;
	}
	if (argc - optind != 1 || rounds < 1 || records < 1)
		return 64;
	snprintf(key, sizeof(key), "%s/host.key", argv[optind]);
	for (m = 0; m < MODES; m++) {
		open_us[m] = calloc((size_t)rounds, sizeof(double));
		rec_us[m] = calloc((size_t)rounds, sizeof(double));
	}
	f = json_pack("{s:s, s:i, s:{s:s}}", "tool", "read_file", "request_id",
	    1, "arguments", "path", "src/app.ts");
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < MODES; k++) {
			m = (r + k) % MODES;
			snprintf(path, sizeof(path), "%s/%s-%d.jsonl",
			    argv[optind], names[m], r);
			t0 = now_us();
			if ((m == 0 ? audit_open(path, "bench", &a)
				    : m == 1
				    ? audit_open_with_key(
					  path, "bench", key, &a)
				    : audit_open_certified(
					  path, "bench", key, NULL, &a)) != 0) {
				fprintf(
				    stderr, "audit_key_bench: open %s\n", path);
				return 1;
			}
			t1 = now_us();
			audit_set_sync(a, AUDIT_SYNC_NONE);
			for (i = 0; i < records; i++)
				if (audit_append(a, "request", f) != 0)
					return 1;
			rec_us[m][r] = (now_us() - t1) / records;
			open_us[m][r] = t1 - t0;
			audit_close(a);
			unlink(path);
		}
	}
	printf("# %d rounds, %d records each, modes interleaved\n", rounds,
	    records);
	for (m = 0; m < MODES; m++) {
		printf("%s\n", names[m]);
		report("open (session_start)", open_us[m], rounds);
		report("per record", rec_us[m], rounds);
	}
	json_decref(f);
	return 0;
}
