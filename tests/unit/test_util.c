/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* utc_time() (common/util.c) against glibc's gmtime_r(). */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int
main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_utc_time_edges);
	tcase_add_test(tc, test_utc_time_every_day);
	tcase_add_test(tc, test_format_rfc3339);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
