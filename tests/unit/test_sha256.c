/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * common/sha256.c: the same digest as libsodium's SHA-256 on every length
 * up to 1100 bytes (every padding case: 55, 56, 63, 64 and beyond) and on
 * random lengths up to 64 KiB, on the SHA-NI path where the CPU has it
 * and on the portable path; plus the FIPS 180-4 examples.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/sha256.h"

static unsigned char buf[65536];

static void
fill(void)
{
	size_t i;
	uint32_t x = 0x12345678;

	for (i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
}

static void
against_sodium(void)
{
	unsigned char a[SHA256_BYTES], b[SHA256_BYTES];
	size_t len;
	int k;

	for (len = 0; len <= 1100; len++) {
		sha256(a, buf, len);
		crypto_hash_sha256(b, buf, len);
		ck_assert_msg(memcmp(a, b, sizeof(a)) == 0, "length %zu", len);
	}
	for (k = 0; k < 300; k++) {
		size_t off = (size_t)k % 64; /* unaligned starts too */

		len = (size_t)random() % (sizeof(buf) - off);
		sha256(a, buf + off, len);
		crypto_hash_sha256(b, buf + off, len);
		ck_assert_msg(memcmp(a, b, sizeof(a)) == 0, "length %zu", len);
	}
}

START_TEST(accelerated_path)
{
	fill();
	sha256_force_portable(0);
	if (!sha256_accelerated())
		printf(
		    "# this CPU has no SHA extensions: portable path only\n");
	against_sodium();
}
END_TEST

START_TEST(portable_path)
{
	fill();
	sha256_force_portable(1);
	ck_assert_int_eq(sha256_accelerated(), 0);
	against_sodium();
	sha256_force_portable(0);
}
END_TEST

START_TEST(fips_examples)
{
	static const struct {
		const char *msg, *hex;
	} ex[] = {
		{ "abc",
		    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "",
		    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	unsigned char md[SHA256_BYTES];
	char hex[2 * SHA256_BYTES + 1];
	size_t i;

	for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		sha256(md, ex[i].msg, strlen(ex[i].msg));
		sodium_bin2hex(hex, sizeof(hex), md, sizeof(md));
		ck_assert_str_eq(hex, ex[i].hex);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sha256");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	if (sodium_init() < 0)
		return 1;
	tcase_add_test(tc, accelerated_path);
	tcase_add_test(tc, portable_path);
	tcase_add_test(tc, fips_examples);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
