/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Unit tests for broker/secrets.c: the sealed credential store. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <check.h>

#include "common/errors.h"
#include "broker/redact.h"
#include "broker/secrets.h"

static char dir[] = "/tmp/test_secrets.XXXXXX";
static char store[300];

static void
setup(void)
{
	strcpy(dir, "/tmp/test_secrets.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(store, sizeof(store), "%s/home/deeper", dir);
}

static void
teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp;
	char *buf;

	ck_assert_ptr_nonnull(fp = fopen(path, "r"));
	buf = malloc(1 << 20);
	*len = fread(buf, 1, 1 << 20, fp);
	fclose(fp);
	return buf;
}

static int
file_mode(const char *d, const char *name)
{
	char path[400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	if (stat(path, &st) == -1)
		return -1;
	return st.st_mode & 07777;
}

static void
expect_value(struct secrets *s, const char *name, const void *want,
    size_t wantlen)
{
	unsigned char *v;
	size_t len;

	ck_assert_int_eq(secrets_get(s, name, &v, &len), 0);
	ck_assert_uint_eq(len, wantlen);
	ck_assert_int_eq(memcmp(v, want, len), 0);
	ck_assert_int_eq(v[len], '\0');
	secrets_value_free(v);
}

START_TEST(test_secrets_round_trip_with_key_file)
{
	static const char bin[] = "bin\0ary\xff";
	struct secrets *s;
	unsigned char *v;
	char **names, path[400], *raw;
	size_t n, len;

	ck_assert_int_eq(secrets_open(store, &s), 0);
	ck_assert_int_eq(file_mode(store, ""), 0700);
	ck_assert_int_eq(file_mode(store, SECRETS_KEYFILE), 0600);
	ck_assert_int_eq(secrets_set(s, "GITHUB_TOKEN", "ghp_plaintext_value",
	    19), 0);
	ck_assert_int_eq(secrets_set(s, "bin.ary-1", bin, sizeof(bin) - 1), 0);
	ck_assert_int_eq(secrets_set(s, "A", "first", 5), 0);
	ck_assert_int_eq(secrets_set(s, "A", "second value", 12), 0);
	ck_assert_int_eq(file_mode(store, SECRETS_STORE), 0600);
	expect_value(s, "GITHUB_TOKEN", "ghp_plaintext_value", 19);
	expect_value(s, "bin.ary-1", bin, sizeof(bin) - 1);
	expect_value(s, "A", "second value", 12);
	ck_assert_int_eq(secrets_list(s, &names, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(names[0], "A");
	ck_assert_str_eq(names[1], "GITHUB_TOKEN");
	ck_assert_str_eq(names[2], "bin.ary-1");
	ck_assert_ptr_null(names[3]);
	secrets_list_free(names);
	ck_assert_int_eq(secrets_remove(s, "A"), 0);
	ck_assert_int_eq(secrets_remove(s, "A"), AL_ERR_NOT_FOUND);
	ck_assert_int_eq(secrets_get(s, "A", &v, &len), AL_ERR_NOT_FOUND);
	ck_assert_ptr_null(v);
	secrets_close(s);

	/* The store on disk holds no plaintext; reopening finds the values. */
	snprintf(path, sizeof(path), "%s/%s", store, SECRETS_STORE);
	raw = slurp(path, &len);
	ck_assert_ptr_null(memmem(raw, len, "ghp_plaintext_value", 19));
	ck_assert_ptr_null(memmem(raw, len, "second value", 12));
	ck_assert_int_eq(memcmp(raw, "ALSECRT1\1", 9), 0);
	free(raw);
	ck_assert_int_eq(secrets_open(store, &s), 0);
	expect_value(s, "GITHUB_TOKEN", "ghp_plaintext_value", 19);
	ck_assert_int_eq(secrets_list(s, &names, &n), 0);
	ck_assert_uint_eq(n, 2);
	secrets_list_free(names);
	secrets_close(s);
	secrets_close(NULL);
}
END_TEST

START_TEST(test_secrets_tampered_store_does_not_open)
{
	struct secrets *s;
	char path[400];
	int fd;
	unsigned char c;

	ck_assert_int_eq(secrets_open(store, &s), 0);
	ck_assert_int_eq(secrets_set(s, "X", "value-1", 7), 0);
	secrets_close(s);
	snprintf(path, sizeof(path), "%s/%s", store, SECRETS_STORE);
	ck_assert_int_ne(fd = open(path, O_RDWR), -1);
	ck_assert_int_eq(pread(fd, &c, 1, 60), 1);
	c ^= 1;
	ck_assert_int_eq(pwrite(fd, &c, 1, 60), 1);
	close(fd);
	ck_assert_int_eq(secrets_open(store, &s), AL_ERR_CRYPTO);
	ck_assert_ptr_null(s);
}
END_TEST

START_TEST(test_secrets_other_key_does_not_open)
{
	struct secrets *s;
	char path[400];
	int fd;

	ck_assert_int_eq(secrets_open(store, &s), 0);
	ck_assert_int_eq(secrets_set(s, "X", "value-1", 7), 0);
	secrets_close(s);
	snprintf(path, sizeof(path), "%s/%s", store, SECRETS_KEYFILE);
	ck_assert_int_ne(fd = open(path, O_WRONLY), -1);
	ck_assert_int_eq(write(fd, "0123456789abcdef0123456789abcdef", 32), 32);
	close(fd);
	ck_assert_int_eq(secrets_open(store, &s), AL_ERR_CRYPTO);
}
END_TEST

START_TEST(test_secrets_refuses_open_permissions)
{
	struct secrets *s;
	char path[400];

	ck_assert_int_eq(secrets_open(store, &s), 0);
	secrets_close(s);
	snprintf(path, sizeof(path), "%s/%s", store, SECRETS_KEYFILE);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(secrets_open(store, &s), AL_ERR_DENIED);
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(chmod(store, 0777), 0);
	ck_assert_int_eq(secrets_open(store, &s), AL_ERR_DENIED);
}
END_TEST

START_TEST(test_secrets_passphrase_store)
{
	struct secrets *s;
	char path[400], *raw;
	size_t len;

	ck_assert_int_eq(secrets_open_passphrase(store, "correct horse", 13,
	    &s), 0);
	ck_assert_int_eq(secrets_set(s, "DB_PASSWORD", "hunter2hunter2", 14), 0);
	secrets_close(s);
	/* No key file: the key is the passphrase. */
	ck_assert_int_eq(file_mode(store, SECRETS_KEYFILE), -1);
	snprintf(path, sizeof(path), "%s/%s", store, SECRETS_STORE);
	raw = slurp(path, &len);
	ck_assert_int_eq(memcmp(raw, "ALSECRT1\2", 9), 0);
	ck_assert_ptr_null(memmem(raw, len, "hunter2", 7));
	free(raw);
	ck_assert_int_eq(secrets_open_passphrase(store, "correct horse", 13,
	    &s), 0);
	expect_value(s, "DB_PASSWORD", "hunter2hunter2", 14);
	secrets_close(s);
	ck_assert_int_eq(secrets_open_passphrase(store, "wrong horse", 11, &s),
	    AL_ERR_CRYPTO);
	ck_assert_int_eq(secrets_open(store, &s), AL_ERR_CONFLICT);
}
END_TEST

static const struct {
	const char	*name;
	int		 valid;
} names[] = {
	{ "GITHUB_TOKEN", 1 }, { "_x", 1 }, { "a.b-c_d9", 1 }, { "A", 1 },
	{ "", 0 }, { "9abc", 0 }, { "-x", 0 }, { ".x", 0 }, { "a b", 0 },
	{ "a/b", 0 }, { "a=b", 0 }, { "ä", 0 },
	{ "a123456789012345678901234567890123456789012345678901234567890123", 1 },
	{ "a1234567890123456789012345678901234567890123456789012345678901234", 0 },
};

START_TEST(test_secrets_name_validation)
{
	struct secrets *s;

	ck_assert_msg(secrets_name_valid(names[_i].name) == names[_i].valid,
	    "%s", names[_i].name);
	if (!names[_i].valid) {
		ck_assert_int_eq(secrets_open(store, &s), 0);
		ck_assert_int_eq(secrets_set(s, names[_i].name, "value", 5),
		    AL_ERR_FORMAT);
		secrets_close(s);
	}
}
END_TEST

START_TEST(test_secrets_value_limits)
{
	struct secrets *s;
	char *big;

	ck_assert_int_eq(secrets_open(store, &s), 0);
	ck_assert_int_eq(secrets_set(s, "E", "", 0), AL_ERR_LIMIT);
	big = calloc(1, SECRETS_MAX_VALUE + 1);
	ck_assert_int_eq(secrets_set(s, "B", big, SECRETS_MAX_VALUE + 1),
	    AL_ERR_LIMIT);
	ck_assert_int_eq(secrets_set(s, "B", big, SECRETS_MAX_VALUE), 0);
	free(big);
	secrets_close(s);
}
END_TEST

START_TEST(test_secrets_feed_the_redactor)
{
	const char *grant[] = { "TOKEN" }, *shortone[] = { "PIN" },
	    *missing[] = { "NOPE" }, *nul[] = { "KEY" };
	struct secrets *s;
	struct redact *r;
	char *out;
	size_t len;

	ck_assert_int_eq(secrets_open(store, &s), 0);
	ck_assert_int_eq(secrets_set(s, "TOKEN", "tok-123456", 10), 0);
	ck_assert_int_eq(secrets_set(s, "PIN", "123", 3), 0);
	ck_assert_ptr_nonnull(r = redact_new());
	ck_assert_int_eq(secrets_add_to_redact(s, grant, 1, r), 0);
	ck_assert_int_eq(secrets_add_to_redact(s, shortone, 1, r),
	    AL_ERR_LIMIT);
	ck_assert_int_eq(secrets_add_to_redact(s, missing, 1, r),
	    AL_ERR_NOT_FOUND);
	/* The environment would cut it at the NUL: "tok-abcdef" goes out. */
	ck_assert_int_eq(secrets_set(s, "KEY", "tok-abcdef\0ghij", 15), 0);
	ck_assert_int_eq(secrets_add_to_redact(s, nul, 1, r), AL_ERR_FORMAT);
	ck_assert_uint_eq(redact_count(r), 1);
	ck_assert_int_eq(redact_buf(r, "x tok-123456", 12, &out, &len), 1);
	ck_assert_str_eq(out, "x [REDACTED:TOKEN]");
	free(out);
	redact_free(r);
	secrets_close(s);
}
END_TEST

START_TEST(test_secrets_default_dir)
{
	char *d;

	setenv("AIRLOCK_HOME", "/srv/airlock-home", 1);
	ck_assert_int_eq(secrets_default_dir(&d), 0);
	ck_assert_str_eq(d, "/srv/airlock-home");
	free(d);
	unsetenv("AIRLOCK_HOME");
	setenv("XDG_STATE_HOME", "/xdg/state", 1);
	setenv("HOME", "/home/someone", 1);
	ck_assert_int_eq(secrets_default_dir(&d), 0);
	ck_assert_str_eq(d, geteuid() == 0 ? "/var/lib/airlock" :
	    "/xdg/state/airlock");
	free(d);
	unsetenv("XDG_STATE_HOME");
	ck_assert_int_eq(secrets_default_dir(&d), 0);
	ck_assert_str_eq(d, geteuid() == 0 ? "/var/lib/airlock" :
	    "/home/someone/.local/state/airlock");
	free(d);
}
END_TEST

static Suite *
secrets_suite(void)
{
	Suite *s = suite_create("secrets");
	TCase *tc = tcase_create("secrets");

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_secrets_round_trip_with_key_file);
	tcase_add_test(tc, test_secrets_tampered_store_does_not_open);
	tcase_add_test(tc, test_secrets_other_key_does_not_open);
	tcase_add_test(tc, test_secrets_refuses_open_permissions);
	tcase_add_test(tc, test_secrets_passphrase_store);
	tcase_add_loop_test(tc, test_secrets_name_validation, 0,
	    sizeof(names) / sizeof(names[0]));
	tcase_add_test(tc, test_secrets_value_limits);
	tcase_add_test(tc, test_secrets_feed_the_redactor);
	tcase_add_test(tc, test_secrets_default_dir);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(secrets_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
