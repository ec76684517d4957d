/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * redact_bench: MB/s of redact_buf() over 16 MiB of each of four texts,
 * with the 4 secrets of audit_bench, one of them once in the middle:
 *   build   a build log (compiler lines, paths, numbers);
 *   hex     random lowercase hex digits in lines of 64;
 *   xxd     an xxd dump of random bytes;
 *   xxd-u   the same dump in uppercase (xxd -u).
 * Prints the median of |runs| (argv[1], 5 by default) for each; argv[2]
 * MiB instead of 16, argv[3] one text by name (valgrind --tool=callgrind
 * counts a text's instructions, the same from run to run).  To
 * compare two trees, build this in each and run the two binaries in
 * turn (docs/PERFORMANCE.md, "Redaction throughput").
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "broker/redact.h"

static size_t bench_len = 16u << 20;
#define BENCH_LEN	bench_len

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift: the same texts in every build. */
static uint64_t rng = 88172645463325252ULL;

static uint32_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

static void
fill_build(char *b, size_t n)
{
	size_t o = 0;
	int w;

	while (o < n) {
		w = snprintf(b + o, n - o, "[%4u/%4u] cc -O2 -Wall -Iinclude "
		    "-c src/module_%u/file_%u.c -o build/file_%u.o  # %u ms\n",
		    next() % 9999, 9999u, next() % 97, next() % 1000,
		    next() % 1000, next() % 5000);
		if (w < 0 || (size_t)w >= n - o)
			break;
		o += (size_t)w;
	}
	memset(b + o, '\n', n - o);
}

static void
fill_hex(char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (i + 1) % 65 == 0 ? '\n' : "0123456789abcdef"[next() % 16];
}

static void
fill_xxd(char *b, size_t n, int upper)
{
	const char *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned char line[16];
	size_t o = 0, off = 0, i;
	int w;

	while (n - o > 80) {
		for (i = 0; i < 16; i++)
			line[i] = (unsigned char)next();
		w = snprintf(b + o, n - o, "%08zx:", off);
		o += (size_t)w;
		for (i = 0; i < 16; i++) {
			if (i % 2 == 0)
				b[o++] = ' ';
			b[o++] = d[line[i] >> 4];
			b[o++] = d[line[i] & 0xf];
		}
		b[o++] = ' ';
		b[o++] = ' ';
		for (i = 0; i < 16; i++)
			b[o++] = isprint(line[i]) ? (char)line[i] : '.';
		b[o++] = '\n';
		off += 16;
	}
	memset(b + o, '\n', n - o);
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
	static const char *const names[] = { "build", "hex", "xxd", "xxd-u" };
	static const char secret[] = "correct horse battery";
	struct redact *r;
	double res[32], t0;
	char *buf, *out;
	size_t outlen;
	int c, i, runs = argc > 1 ? atoi(argv[1]) : 5;

	if (argc > 2)
		bench_len = (size_t)atoi(argv[2]) << 20;
	if (runs < 1 || runs > 32 || bench_len == 0 || sodium_init() < 0 ||
	    (r = redact_new()) == NULL)
		return 1;
	if (redact_add(r, "GITHUB_TOKEN", "ghp_0123456789abcdefghijABCDEFGHIJ",
	    34) || redact_add(r, "NPM_TOKEN", "npm_abcdefabcdefabcdef0123", 26) ||
	    redact_add(r, "DB_PASSWORD", secret, 21) ||
	    redact_add(r, "AWS_SECRET",
	    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", 40) ||
	    (buf = malloc(BENCH_LEN)) == NULL) {
		redact_free(r);
		return 1;
	}
	for (c = 0; c < 4; c++) {
		if (argc > 3 && strcmp(argv[3], names[c]) != 0)
			continue;
		if (c == 0)
			fill_build(buf, BENCH_LEN);
		else if (c == 1)
			fill_hex(buf, BENCH_LEN);
		else
			fill_xxd(buf, BENCH_LEN, c == 3);
		memcpy(buf + BENCH_LEN / 2, secret, sizeof(secret) - 1);
		for (i = 0; i < runs; i++) {
			t0 = now();
			if (redact_buf(r, buf, BENCH_LEN, &out, &outlen) < 1) {
				fprintf(stderr, "redact_bench: %s: no redaction\n",
				    names[c]);
				free(buf);
				redact_free(r);
				return 1;
			}
			res[i] = BENCH_LEN / (now() - t0) / 1e6;
			free(out);
		}
		qsort(res, (size_t)runs, sizeof(res[0]), dcmp);
		printf("%-6s %6.1f MB/s (median of %d; min %.1f max %.1f)\n",
		    names[c], res[runs / 2], runs, res[0], res[runs - 1]);
	}
	redact_free(r);
	free(buf);
	return 0;
}
