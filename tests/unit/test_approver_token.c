/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Approver keys and signed decision tokens (common/approver_token.c). */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/approver_token.h"
#include "common/errors.h"
#include "common/util.h"

static unsigned char pk[32], sk[64], pk2[32], sk2[64];

static void
setup(void)
{
	ck_assert_int_ge(sodium_init(), 0);
	crypto_sign_keypair(pk, sk);
	crypto_sign_keypair(pk2, sk2);
}

static json_t *
token(void)
{
	return approver_token_sign("S1", "abcd0123",
	    "0000000000000000000000000000000000000000000000000000000000000001",
	    1, "ok", 2000000000, sk);
}

START_TEST(pk_roundtrip)
{
	char text[APPROVER_PK_TEXT];
	unsigned char back[32];

	approver_pk_encode(pk, text);
	ck_assert_int_eq(
	    strncmp(text, APPROVER_PK_PREFIX, strlen(APPROVER_PK_PREFIX)), 0);
	ck_assert_int_eq(approver_pk_decode(text, back), 0);
	ck_assert_int_eq(memcmp(back, pk, 32), 0);
	ck_assert_int_eq(
	    approver_pk_decode("airlock-ed25519:AAAA", back), AL_ERR_FORMAT);
	ck_assert_int_eq(approver_pk_decode(text + 1, back), AL_ERR_FORMAT);
	ck_assert_int_eq(approver_pk_decode(NULL, back), AL_ERR_FORMAT);
}
END_TEST

START_TEST(sign_verify)
{
	unsigned char got[32];
	char why[256];
	json_t *t = token();

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(approver_token_check(t, got, why, sizeof(why)), 0);
	ck_assert_int_eq(memcmp(got, pk, 32), 0);
	ck_assert_str_eq(
	    json_string_value(json_object_get(t, "decision")), "approve");
	json_decref(t);
}
END_TEST

/* Every signed member is covered: changing any one breaks the signature. */
START_TEST(tamper_each_member)
{
	static const char *const members[] = { "session", "approval", "digest",
		"text", NULL };
	unsigned char got[32];
	char why[256];
	size_t i;

	for (i = 0; members[i] != NULL; i++) {
		json_t *t = token();

		json_object_set_new(t, members[i], json_string("x"));
		ck_assert_int_eq(approver_token_check(t, got, why, sizeof(why)),
		    AL_ERR_CRYPTO);
		json_decref(t);
	}
	{
		json_t *t = token();

		json_object_set_new(t, "expires", json_integer(2000000001));
		ck_assert_int_eq(approver_token_check(t, got, why, sizeof(why)),
		    AL_ERR_CRYPTO);
		json_object_set_new(t, "expires", json_integer(2000000000));
		json_object_set_new(t, "decision", json_string("deny"));
		ck_assert_int_eq(approver_token_check(t, got, why, sizeof(why)),
		    AL_ERR_CRYPTO);
		json_decref(t);
	}
}
END_TEST

/* Claiming another key does not help: the signature is over the key too. */
START_TEST(swap_key)
{
	unsigned char got[32];
	char why[256], other[APPROVER_PK_TEXT];
	json_t *t = token();

	approver_pk_encode(pk2, other);
	json_object_set_new(t, "key", json_string(other));
	ck_assert_int_eq(
	    approver_token_check(t, got, why, sizeof(why)), AL_ERR_CRYPTO);
	json_decref(t);
}
END_TEST

START_TEST(malformed)
{
	unsigned char got[32];
	char why[256];
	json_t *t = token();

	json_object_set_new(t, "extra", json_true());
	ck_assert_int_eq(
	    approver_token_check(t, got, why, sizeof(why)), AL_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(why, "unknown member"));
	json_object_del(t, "extra");
	/* A member named with 30 euro signs: quoted cut between characters
	 * (64 bytes cut the 22nd in two), or the refusal is no JSON. */
	{
		char name[91];
		int i;

		for (i = 0; i < 30; i++)
			memcpy(name + 3 * i, "\xe2\x82\xac", 3);
		name[90] = '\0';
		json_object_set_new(t, name, json_true());
		ck_assert_int_eq(approver_token_check(t, got, why, sizeof(why)),
		    AL_ERR_FORMAT);
		ck_assert_int_eq(utf8_valid(why, strlen(why)), 1);
		ck_assert_uint_eq(
		    strlen(why), strlen("unknown member \"\"") + 63);
		json_object_del(t, name);
	}
	json_object_set_new(t, "version", json_integer(2));
	ck_assert_int_eq(
	    approver_token_check(t, got, why, sizeof(why)), AL_ERR_FORMAT);
	json_decref(t);
	t = token();
	json_object_set_new(t, "decision", json_string("maybe"));
	ck_assert_int_eq(
	    approver_token_check(t, got, why, sizeof(why)), AL_ERR_FORMAT);
	json_decref(t);
	t = token();
	json_object_set_new(t, "signature", json_string("!!"));
	ck_assert_int_eq(
	    approver_token_check(t, got, why, sizeof(why)), AL_ERR_FORMAT);
	json_decref(t);
	ck_assert_int_eq(
	    approver_token_check(json_null(), got, why, sizeof(why)),
	    AL_ERR_FORMAT);
}
END_TEST

/*
 * "expires" is compared in milliseconds: signed by a pinned key's holder
 * with another tool, -9223372036854776 (whose thousandfold wraps to near
 * INT64_MAX) would never expire, and 0 or less is no time at all.
 */
START_TEST(expires_out_of_range)
{
	static const json_int_t bad[] = { -9223372036854776LL,
		INT64_MAX / 1000 + 1, 0, -1 };
	unsigned char got[32];
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *t = approver_token_sign("S1", "abcd0123",
		    "0000000000000000000000000000000000000000000000000000000000000001",
		    1, "ok", bad[i], sk);

		ck_assert_ptr_nonnull(t);
		ck_assert_int_eq(approver_token_check(t, got, why, sizeof(why)),
		    AL_ERR_FORMAT);
		ck_assert_ptr_nonnull(strstr(why, "\"expires\" is not a time"));
		json_decref(t);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("approver_token");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, pk_roundtrip);
	tcase_add_test(tc, sign_verify);
	tcase_add_test(tc, tamper_each_member);
	tcase_add_test(tc, swap_key);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, expires_out_of_range);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
