/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* utc_time() (common/util.c) against glibc's gmtime_r(). */
#include "config.h"

#include <sys/mman.h>

#include <check.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "common/util.h"

static void
same_as_gmtime(int64_t t)
{
	struct tm want, got;
	time_t tt = (time_t)t;

	ck_assert_ptr_nonnull(gmtime_r(&tt, &want));
	utc_time(t, &got);
	ck_assert_msg(got.tm_year == want.tm_year && got.tm_mon == want.tm_mon &&
	    got.tm_mday == want.tm_mday && got.tm_hour == want.tm_hour &&
	    got.tm_min == want.tm_min && got.tm_sec == want.tm_sec &&
	    got.tm_wday == want.tm_wday,
	    "%lld: %d-%d-%d %d:%d:%d wday %d, gmtime_r %d-%d-%d %d:%d:%d "
	    "wday %d", (long long)t, got.tm_year, got.tm_mon, got.tm_mday,
	    got.tm_hour, got.tm_min, got.tm_sec, got.tm_wday, want.tm_year,
	    want.tm_mon, want.tm_mday, want.tm_hour, want.tm_min, want.tm_sec,
	    want.tm_wday);
}

START_TEST(test_utc_time_edges)
{
	/* The epoch, the days around it, leap days, century years (1900
	 * and 2100 are not leap years, 2000 is), and the year 2038. */
	static const int64_t edges[] = { 0, -1, 1, 86399, 86400, -86400,
		-86401, 951782400, 951868799, 951868800, 4107456000LL,
		4107542399LL, 4107542400LL, 2147483647LL, 2147483648LL,
		-2208988800LL, 1767225599LL, 1767225600LL, 253402300799LL };
	size_t i;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		same_as_gmtime(edges[i]);
}
END_TEST

START_TEST(test_utc_time_every_day)
{
	int64_t t;

	/* Every day from 1600 to 2400, at a time that moves through it. */
	for (t = -11676096000LL; t < 13569465600LL; t += 86400 + 3607)
		same_as_gmtime(t);
}
END_TEST

START_TEST(test_format_rfc3339)
{
	char out[64];

	format_rfc3339(951825845123LL, out);
	ck_assert_str_eq(out, "2000-02-29T12:04:05.123Z");
	format_rfc3339(0, out);
	ck_assert_str_eq(out, "1970-01-01T00:00:00.000Z");
}
END_TEST

/* A shmem file: data at [0, 4 KiB) and [1 MiB, 1 MiB + 4 KiB), 2 MiB long. */
START_TEST(test_fd_next_data)
{
	const off_t mib = 1024 * 1024, size = 2 * mib;
	char page[4096];
	off_t data, end;
	int fd, p[2];

	memset(page, 'x', sizeof(page));
	fd = memfd_create("extents", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, page, sizeof(page), 0), sizeof(page));
	ck_assert_int_eq(pwrite(fd, page, sizeof(page), mib), sizeof(page));
	ck_assert_int_eq(ftruncate(fd, size), 0);
	fd_next_data(fd, 0, size, &data, &end);
	ck_assert_int_eq(data, 0);
	ck_assert_int_eq(end, 4096);
	fd_next_data(fd, 100, size, &data, &end);
	ck_assert_int_eq(data, 100);
	ck_assert_int_eq(end, 4096);
	fd_next_data(fd, 4096, size, &data, &end);
	ck_assert_int_eq(data, mib);
	ck_assert_int_eq(end, mib + 4096);
	/* A hole to the end. */
	fd_next_data(fd, mib + 4096, size, &data, &end);
	ck_assert_int_eq(data, size);
	ck_assert_int_eq(end, size);
	/* A shorter |size| (the file grew since its stat): capped. */
	fd_next_data(fd, 4096, mib + 100, &data, &end);
	ck_assert_int_eq(data, mib);
	ck_assert_int_eq(end, mib + 100);
	close(fd);
	/* No SEEK_DATA (a pipe): the rest is one extent of data. */
	ck_assert_int_eq(pipe(p), 0);
	fd_next_data(p[0], 10, 50, &data, &end);
	ck_assert_int_eq(data, 10);
	ck_assert_int_eq(end, 50);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* utf8_trim(), utf8_fit(): cut between characters, never inside one. */
START_TEST(test_utf8_cut)
{
	char s[16], d[6];

	strcpy(s, "ab\xe2\x82");	/* a euro sign cut after 2 of 3 bytes */
	ck_assert_uint_eq(utf8_trim(s), 2);
	ck_assert_str_eq(s, "ab");
	strcpy(s, "a\xf0\x9f\x98");	/* an emoji cut after 3 of 4 */
	ck_assert_uint_eq(utf8_trim(s), 1);
	strcpy(s, "a\xe2\x82\xac");	/* whole: kept */
	ck_assert_uint_eq(utf8_trim(s), 4);
	strcpy(s, "abc");
	ck_assert_uint_eq(utf8_trim(s), 3);
	s[0] = '\0';
	ck_assert_uint_eq(utf8_trim(s), 0);
	/* 6 bytes hold a, a euro sign and one byte of the next: cut there. */
	utf8_fit(d, sizeof(d), "a\xe2\x82\xac\xe2\x82\xac");
	ck_assert_str_eq(d, "a\xe2\x82\xac");
	/* A byte that is not UTF-8 is U+FFFD; a character cut at the end of
	 * the source goes, not U+FFFD. */
	utf8_fit(s, sizeof(s), "\xff!\xe2\x82");
	ck_assert_str_eq(s, "\xef\xbf\xbd!");
}
END_TEST

/* json_str_len(): what jansson writes, escapes and all. */
START_TEST(test_json_str_len)
{
	static const char *const v[] = { "", "plain/path", "a\"b\\c",
		"\b\f\n\r\t", "\001\037\177", "z\xc3\xa9/\xe2\x80\xae" };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		json_t *j = json_string(v[i]);
		char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);

		/* The quotes are not counted. */
		ck_assert_uint_eq(json_str_len(v[i]), strlen(text) - 2);
		free(text);
		json_decref(j);
	}
}
END_TEST

/* env_put(): one entry per name; replace or keep; a prefix is no match. */
START_TEST(test_env_put)
{
	char **env = xcalloc(1, sizeof(*env));
	size_t i;

	env_put(&env, "HOME=/agent", 0);
	env_put(&env, "HOMEX=1", 0);
	env_put(&env, "HOME=/caller", 0);
	env_put(&env, "LANG=C", 0);
	env_put(&env, "LANG=fr", 1);
	env_put(&env, "EMPTY=", 1);
	ck_assert_str_eq(env[0], "HOME=/agent");
	ck_assert_str_eq(env[1], "HOMEX=1");
	ck_assert_str_eq(env[2], "LANG=fr");
	ck_assert_str_eq(env[3], "EMPTY=");
	ck_assert_ptr_null(env[4]);
	for (i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	/* 292k days compared with gmtime_r: 1.3 s of CPU on a slow VM,
	 * past Check's 4 s default there under a loaded distcheck. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_utc_time_edges);
	tcase_add_test(tc, test_utc_time_every_day);
	tcase_add_test(tc, test_format_rfc3339);
	tcase_add_test(tc, test_fd_next_data);
	tcase_add_test(tc, test_utf8_cut);
	tcase_add_test(tc, test_json_str_len);
	tcase_add_test(tc, test_env_put);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
