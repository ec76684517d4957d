/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Letters of a manifest's path a reader takes for others
 * (common/lookalike.c): table-driven, each row a path and what is
 * refused in it, or nothing.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/lookalike.h"

#define NONE 0
#define FORM LOOKALIKE_FORM
#define MIXED LOOKALIKE_MIXED
#define WHOLE LOOKALIKE_WHOLE

static const struct {
	const char *name;
	const char *path;
	int why;
	unsigned long cp;
	size_t index;
	const char *reads; /* lookalike_reads_as() */
} rows[] = {
	/* Names in one script of their own are names. */
	{ "ascii", ".github/workflows/**", NONE, 0, 0, ".github/workflows/**" },
	{ "empty", "", NONE, 0, 0, "" },
	{ "accented latin", "caf\xc3\xa9/na\xc3\xafve", NONE, 0, 0, NULL },
	{ "turkish dotless i", "k\xc4\xb1rm\xc4\xb1z\xc4\xb1", NONE, 0, 0,
	    NULL },
	{ "cyrillic word with an ascii extension",
	    "\xd0\xbe\xd1\x82\xd1\x87\xd1\x91\xd1\x82.pdf", NONE, 0, 0, NULL },
	{ "greek word",
	    "\xce\x95\xce\xbb\xce\xbb\xce\xb7\xce\xbd\xce\xb9"
	    "\xce\xba\xce\xac",
	    NONE, 0, 0, NULL },
	{ "cjk beside fullwidth latin",
	    "\xe8\xb3\x87\xe6\x96\x99/\xef\xbc\xa1\xef\xbc\xa2\xe7\xa4\xbe",
	    NONE, 0, 0, NULL },
	{ "fullwidth digit", "\xe8\xb3\x87\xe6\x96\x99\xef\xbc\x91", NONE, 0, 0,
	    NULL },
	{ "cyrillic look-alikes beside one of their own",
	    "\xd1\x81\xd0\xbe\xd0\xbc", NONE, 0, 0, NULL },

	/* The attack: a Cyrillic i in .git, on either side of Latin. */
	{ "cyrillic i in .git", ".g\xd1\x96t/**", MIXED, 0x456, 2, ".git/**" },
	{ "cyrillic letter first", "\xd1\x96gnore/x", MIXED, 0x456, 0,
	    "ignore/x" },
	{ "second word",
	    "src/.vsc\xce\xbf"
	    "de",
	    MIXED, 0x3bf, 8, "src/.vscode" },
	{ "mixed but no look-alike", "report\xd0\x94", MIXED, 0x414, 6, NULL },
	{ "greek and cyrillic", "\xce\x91\xce\x92\xd0\x93", MIXED, 0x413, 2,
	    NULL },
	{ "fullwidth among latin", "g\xef\xbd\x89t", MIXED, 0xff49, 1, "git" },
	{ "whole word of look-alikes", "~/.\xd1\x95\xd1\x95\xd2\xbb", WHOLE,
	    0x455, 3, "~/.ssh" },
	{ "whole word between hyphens", "my-\xd1\x95\xd1\x95\xd2\xbb-key",
	    WHOLE, 0x455, 3, "my-ssh-key" },
	{ "whole word in a glob bracket", "[\xd0\xb0]bc", WHOLE, 0x430, 1,
	    "[a]bc" },
	{ "whole fullwidth word", "\xef\xbd\x87\xef\xbd\x89\xef\xbd\x94", WHOLE,
	    0xff47, 0, "git" },
	{ "fullwidth solidus", ".git\xef\xbc\x8fhooks", FORM, 0xff0f, 4,
	    ".git/hooks" },
	{ "division slash", ".idea\xe2\x88\x95**", FORM, 0x2215, 5,
	    ".idea/**" },
	{ "asterisk operator", ".idea/\xe2\x88\x97", FORM, 0x2217, 6,
	    ".idea/*" },
	{ "one dot leader", "\xe2\x80\xa4git", FORM, 0x2024, 0, ".git" },
	{ "mathematical g", "\xf0\x9d\x97\x80it", FORM, 0x1d5c0, 0, NULL },
	{ "roman numeral",
	    ".\xe2\x85\xb0"
	    "dea",
	    FORM, 0x2170, 1, ".idea" },
	{ "roman numeral of two letters", "\xe2\x85\xab", FORM, 0x216b, 0,
	    NULL },
	{ "ipa script g", ".\xc9\xa1it", FORM, 0x261, 1, ".git" },
	/* What vis's own table marked and this one did not (one table now,
	 * common/lookalike.h): a fullwidth digit among Latin letters, and a
	 * Lisu letter (each drawn as a Latin capital). */
	{ "fullwidth digit among latin", "log\xef\xbc\x91.txt", MIXED, 0xff11,
	    3, "log1.txt" },
	{ "small capital o among latin", "g\xe1\xb4\x8f\xe1\xb4\x8fgle", FORM,
	    0x1d0f, 1, "google" },
	{ "kelvin sign",
	    "\xe2\x84\xaa"
	    "ey",
	    FORM, 0x212a, 0, "Key" },
	{ "script small l", "htm\xe2\x84\x93", FORM, 0x2113, 3, "html" },
	{ "look-alikes before a hyphen beyond ascii",
	    "\xd1\x95\xd1\x95\xd2\xbb\xe2\x80\x90\xd0\xba\xd0\xb5\xd1\x83",
	    WHOLE, 0x455, 0, NULL },
	{ "before a modifier apostrophe", "\xd1\x95\xd1\x95\xd2\xbb\xca\xbc",
	    WHOLE, 0x455, 0, NULL },
	{ "a cyrillic word of its own in guillemets",
	    "\xc2\xab\xd0\xb6\xd0\xb0\xc2\xbb", NONE, 0, 0, NULL },
	{ "lisu letter", "\xea\x93\x93ocs", FORM, 0xa4d3, 0, NULL },
};

START_TEST(test_lookalike_table)
{
	struct lookalike la;
	char reads[256];
	int r;

	r = lookalike_path(rows[_i].path, strlen(rows[_i].path), &la);
	ck_assert_msg(
	    r == (rows[_i].why != NONE), "%s: returned %d", rows[_i].name, r);
	ck_assert_msg((int)la.why == rows[_i].why, "%s: why %d, want %d",
	    rows[_i].name, (int)la.why, rows[_i].why);
	ck_assert_msg(la.cp == rows[_i].cp, "%s: U+%04lX, want U+%04lX",
	    rows[_i].name, la.cp, rows[_i].cp);
	ck_assert_msg(la.index == rows[_i].index, "%s: at %zu, want %zu",
	    rows[_i].name, la.index, rows[_i].index);
	if (r != 0)
		ck_assert_msg(la.name != NULL, "%s: no name", rows[_i].name);
	if (rows[_i].reads != NULL) {
		lookalike_reads_as(
		    rows[_i].path, strlen(rows[_i].path), reads, sizeof(reads));
		ck_assert_str_eq(reads, rows[_i].reads);
	}
}
END_TEST

/* The names a message gives are Unicode's. */
START_TEST(test_lookalike_names_the_character)
{
	struct lookalike la;

	ck_assert_int_eq(lookalike_path(".g\xd1\x96t", 5, &la), 1);
	ck_assert_str_eq(
	    la.name, "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I");
	ck_assert_int_eq(la.ascii, 'i');
	ck_assert_str_eq(la.among, "Latin letters");
}
END_TEST

/* A cut character at the end, or a stray byte, is read as a byte; what
 * a path reads as is cut to its buffer. */
START_TEST(test_lookalike_cut_utf8_is_bytes)
{
	struct lookalike la;
	char reads[4];

	ck_assert_int_eq(lookalike_path("ab\xd1", 3, &la), 0);
	ck_assert_int_eq(lookalike_path("\x80\xff", 2, &la), 0);
	lookalike_reads_as("\xd1\x95\xd1\x95\xd1\x95\xd1\x95\xd1\x95", 10,
	    reads, sizeof(reads));
	ck_assert_str_eq(reads, "sss");
}
END_TEST

static Suite *
lookalike_suite(void)
{
	Suite *s = suite_create("lookalike");
	TCase *tc = tcase_create("lookalike");

	tcase_add_loop_test(
	    tc, test_lookalike_table, 0, sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, test_lookalike_names_the_character);
	tcase_add_test(tc, test_lookalike_cut_utf8_is_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(lookalike_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
