/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Escaping for the terminal (common/vis.c): table-driven. */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/lookalike.h"
#include "common/vis.h"

#define ONE 0
#define ML VIS_MULTILINE

static const struct {
	const char *name;
	const char *in;
	size_t len; /* 0: strlen(in) */
	int flags;
	const char *want;
} rows[] = {
	/* Plain text and valid UTF-8 pass unchanged. */
	{ "ascii", "def check(user, pw):", 0, ONE, "def check(user, pw):" },
	{ "empty", "", 0, ONE, "" },
	{ "utf8 latin", "caf\xc3\xa9 na\xc3\xafve", 0, ONE,
	    "caf\xc3\xa9 na\xc3\xafve" },
	{ "utf8 cjk and emoji", "\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", 0,
	    ONE, "\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80" },
	/*
	 * Spaces other than U+0020 look like one and are another byte to
	 * every program (git\u00a0push is one word); a run of them hides
	 * text as spaces do.
	 */
	{ "nbsp",
	    "a\xc2\xa0"
	    "b",
	    0, ONE, "a\\u{00A0}b" },
	{ "unicode spaces",
	    "\xe1\x9a\x80\xe2\x80\x80\xe2\x80\x8a\xe2\x80\xaf\xe2\x81\x9f"
	    "\xe3\x80\x80\xe2\xa0\x80",
	    0, ONE,
	    "\\u{1680}\\u{2000}\\u{200A}\\u{202F}\\u{205F}\\u{3000}"
	    "\\u{2800}" },

	/* The attack: cursor up, erase line. */
	{ "csi erase line", "+\x1b[1A\x1b[2K    return True", 0, ML,
	    "+\\e[1A\\e[2K    return True" },
	{ "c style controls", "\a\b\t\n\v\f\r\x1b", 0, ONE,
	    "\\a\\b\\t\\n\\v\\f\\r\\e" },
	{ "other c0 as hex", "\x01\x02\x1f\x7f", 0, ONE,
	    "\\x01\\x02\\x1f\\x7f" },
	{ "nul byte inside", "a\0b", 3, ONE, "a\\x00b" },
	{ "backslash doubled", "C:\\x41 \\e", 0, ONE, "C:\\\\x41 \\\\e" },
	{ "noslash keeps json escapes", "\"\\u001b[1A\"\x7f", 0, VIS_NOSLASH,
	    "\"\\u001b[1A\"\\x7f" },

	/* Newlines and tabs: kept only when asked. */
	{ "single line escapes newline", "a\nb\tc", 0, ONE, "a\\nb\\tc" },
	{ "multi line keeps newline and tab", "a\nb\tc\n", 0, ML, "a\nb\tc\n" },
	{ "keep nl but not tab", "a\n\t", 0, VIS_KEEP_NL, "a\n\\t" },
	{ "cr is escaped even in multi line", "ok\rno\n", 0, ML, "ok\\rno\n" },

	/* C1 controls (8-bit CSI, NEL) are escaped as code points. */
	{ "c1 csi",
	    "\xc2\x9b"
	    "2K",
	    0, ONE, "\\u{009B}2K" },
	{ "c1 nel",
	    "a\xc2\x85"
	    "b",
	    0, ONE, "a\\u{0085}b" },
	{ "c1 first and last", "\xc2\x80\xc2\x9f", 0, ONE,
	    "\\u{0080}\\u{009F}" },

	/* Trojan Source: bidi controls. */
	{ "rlo", "/* \xe2\x80\xae } \xe2\x81\xa6 */", 0, ONE,
	    "/* \\u{202E} } \\u{2066} */" },
	{ "lre rle pdf lro",
	    "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac"
	    "\xe2\x80\xad",
	    0, ONE, "\\u{202A}\\u{202B}\\u{202C}\\u{202D}" },
	{ "isolates", "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", 0,
	    ONE, "\\u{2066}\\u{2067}\\u{2068}\\u{2069}" },
	{ "lrm rlm alm", "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 0, ONE,
	    "\\u{200E}\\u{200F}\\u{061C}" },

	/* Invisible characters that hide or split text. */
	{ "zero width",
	    "a\xe2\x80\x8b"
	    "b\xe2\x80\x8c\xe2\x80\x8d",
	    0, ONE, "a\\u{200B}b\\u{200C}\\u{200D}" },
	{ "line and paragraph separators", "\xe2\x80\xa8\xe2\x80\xa9", 0, ML,
	    "\\u{2028}\\u{2029}" },
	{ "bom and word joiner", "\xef\xbb\xbfx\xe2\x81\xa0", 0, ONE,
	    "\\u{FEFF}x\\u{2060}" },
	{ "soft hyphen", "pass\xc2\xadword", 0, ONE, "pass\\u{00AD}word" },
	{ "tag characters", "\xf3\xa0\x80\x81\xf3\xa0\x81\xbf", 0, ONE,
	    "\\u{E0001}\\u{E007F}" },
	{ "hangul filler", "\xe3\x85\xa4", 0, ONE, "\\u{3164}" },
	/* Variation selectors: 256 code points, one byte each, unseen. */
	{ "variation selectors",
	    "ok\xef\xb8\x80\xef\xb8\x8f\xf3\xa0\x84\x80\xf3\xa0\x87\xaf", 0,
	    ONE, "ok\\u{FE00}\\u{FE0F}\\u{E0100}\\u{E01EF}" },
	{ "other default ignorables",
	    "\xcd\x8f\xe1\x9e\xb4\xe1\xa0\x8b\xe1\xa0\x8f\xef\xbf\xb0"
	    "\xf0\x9b\xb2\xa0\xf0\x9d\x85\xb3\xf3\xa0\xbf\xbf",
	    0, ONE,
	    "\\u{034F}\\u{17B4}\\u{180B}\\u{180F}\\u{FFF0}\\u{1BCA0}"
	    "\\u{1D173}\\u{E0FFF}" },
	{ "neighbours stay",
	    "\xe2\x80\x90\xe2\x81\xb0\xef\xb8\x90\xe2\xa0\x81\xcd\x90", 0, ONE,
	    "\xe2\x80\x90\xe2\x81\xb0\xef\xb8\x90\xe2\xa0\x81\xcd\x90" },

	/*
	 * Long runs of blanks: shown counted, so that they cannot push a
	 * command's start or end off the screen.  32 stay as they are.
	 */
	{ "32 spaces stay", "a                                b", 0, ONE,
	    "a                                b" },
	{ "33 spaces counted", "a                                 b", 0, ONE,
	    "a\\s{33}b" },
	{ "a long run at the end",
	    "rm -rf ~;                                  ", 0, ONE,
	    "rm -rf ~;\\s{34}" },
	{ "tabs escaped in one line anyway",
	    "a\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\tb",
	    0, ONE,
	    "a\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t"
	    "\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\tb" },
	{ "a long run of kept tabs",
	    "+\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"
	    "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\tx",
	    0, ML,
	    "+\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t"
	    "\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\tx" },
	/* Every blank of a long run is shown, its tail too. */
	{ "a long mixed run", "+ \t                                \tx", 0, ML,
	    "+ \\t\\s{32}\\tx" },
	{ "kept newlines end a run",
	    "                     \n                     \n", 0, ML,
	    "                     \n                     \n" },
	/* Combining marks: two on a letter are text, more stack over lines. */
	{ "two marks stay", "e\xcc\xa3\xcc\x82 \xe1\xaa\xb0\xe1\xb7\x80", 0,
	    ONE, "e\xcc\xa3\xcc\x82 \xe1\xaa\xb0\xe1\xb7\x80" },
	{ "zalgo",
	    "a\xcc\x81\xcc\x81\xcc\x81\xe2\x83\x90\xef\xb8\xa0"
	    "b\xcc\x81",
	    0, ONE, "a\xcc\x81\xcc\x81\\u{0301}\\u{20D0}\\u{FE20}b\xcc\x81" },
	{ "backslash s is not a run", "\\s{40}", 0, ONE, "\\\\s{40}" },

	/*
	 * Look-alikes: a letter of another script drawn as a Latin one, in
	 * a word with no other non-ASCII letter.  Each of these names
	 * another file or program than the one it shows.
	 */
	{ "cyrillic a among latin", "src/p\xd0\xb0ypal.py", 0, ONE,
	    "src/p\\u{0430}ypal.py" },
	{ "a command word", "git \xd1\x80ush", 0, ONE, "git \\u{0440}ush" },
	{ "whole word of look-alikes", "\xd1\x80\xd0\xb0\xd1\x83/x", 0, ONE,
	    "\\u{0440}\\u{0430}\\u{0443}/x" },
	{ "greek capital",
	    "\xce\x97"
	    "ello",
	    0, ONE, "\\u{0397}ello" },
	{ "fullwidth and math letters", "\xef\xbd\x90 \xf0\x9d\x90\x9a", 0, ONE,
	    "\\u{FF50} \\u{1D41A}" },
	{ "russian and greek words stay",
	    "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 "
	    "\xce\xba\xce\xb1\xce\xbb\xce\xb7",
	    0, ONE,
	    "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 "
	    "\xce\xba\xce\xb1\xce\xbb\xce\xb7" },
	{ "latin accents stay", "na\xc3\xafve caf\xc3\xa9", 0, ONE,
	    "na\xc3\xafve caf\xc3\xa9" },
	/*
	 * The manifest's table and rules (common/lookalike.h): each of these
	 * a manifest's path is refused for, and vis's own narrower table
	 * showed raw.
	 */
	{ "greek alpha among latin", "p\xce\xb1ypal", 0, ONE,
	    "p\\u{03B1}ypal" },
	{ "ipa alpha, anywhere", "p\xc9\x91ypal", 0, ONE, "p\\u{0251}ypal" },
	{ "division slash", "src\xe2\x88\x95x", 0, ONE, "src\\u{2215}x" },
	{ "fullwidth solidus",
	    "a\xef\xbc\x8f"
	    "b",
	    0, ONE, "a\\u{FF0F}b" },
	{ "roman numeral",
	    "\xe2\x85\xa0"
	    "d",
	    0, ONE, "\\u{2160}d" },
	{ "cherokee letters that spell AB", "\xe1\x8e\xaa\xe1\x8f\xb4", 0, ONE,
	    "\\u{13AA}\\u{13F4}" },
	{ "cyrillic a beside a latin accent",
	    "c\xd0\xb0"
	    "f\xc3\xa9",
	    0, ONE, "c\\u{0430}f\xc3\xa9" },
	{ "each cyrillic letter of a mixed word", "config\xd0\xb6", 0, ONE,
	    "config\\u{0436}" },
	{ "fullwidth digit in a latin word", "log\xef\xbc\x91", 0, ONE,
	    "log\\u{FF11}" },
	/* vis's own escapes end a word read again: "\x01" before a Greek
	 * word is not "x01" of Latin letters beside it. */
	{ "an escape ends the word", "\x01\xce\xbb\xce\xbb", 0, ONE,
	    "\\x01\xce\xbb\xce\xbb" },
	{ "a tab escape too", "\t\xce\xbb", 0, ONE, "\\t\xce\xbb" },
	{ "a cjk word keeps its fullwidth digit",
	    "\xe7\xac\xac\xef\xbc\x91\xe7\xab\xa0", 0, ONE,
	    "\xe7\xac\xac\xef\xbc\x91\xe7\xab\xa0" },
	/* A backslash, a mark or an escape ends the word (so that the
	 * escaped text cuts the same words when read again). */
	{ "a word ends at a backslash", "\xd0\xb0\xd0\xb1\\x", 0, ONE,
	    "\xd0\xb0\xd0\xb1\\\\x" },
	{ "and at an escaped character", "\xd0\xb1\x01\xd0\xb0", 0, ONE,
	    "\xd0\xb1\\x01\\u{0430}" },
	/* VIS_QUOTED: what is drawn as '"' (airlock audit show's table). */
	{ "a curly quote, quoted", "a\xe2\x80\x9d", 0, VIS_QUOTED,
	    "a\\u{201D}" },
	{ "a fullwidth quote, quoted", "\xef\xbc\x82", 0, VIS_QUOTED,
	    "\\u{FF02}" },
	{ "a curly quote elsewhere", "a\xe2\x80\x9d", 0, ONE, "a\xe2\x80\x9d" },
	{ "an escaped quote ends a word", "\xd1\x80\xd0\xb0\xd1\x83\xca\xba", 0,
	    VIS_QUOTED, "\\u{0440}\\u{0430}\\u{0443}\\u{02BA}" },
	/* Not at punctuation beyond ASCII: the manifest's word goes on. */
	{ "a middle dot does not end a word",
	    "config\xc2\xb7\xd0\xba\xd0\xb5\xd1\x83", 0, ONE,
	    "config\xc2\xb7\\u{043A}\\u{0435}\\u{0443}" },
	{ "nor an em dash", "paypal\xe2\x80\x94\xd0\xb6\xd0\xb0", 0, ONE,
	    "paypal\xe2\x80\x94\\u{0436}\\u{0430}" },
	{ "a russian word in guillemets is a russian word",
	    "\xc2\xab\xd0\xb6\xd0\xb0\xc2\xbb", 0, ONE,
	    "\xc2\xab\xd0\xb6\xd0\xb0\xc2\xbb" },

	/* Bytes that are not UTF-8: each one as \xNN. */
	{ "lone continuation",
	    "a\x80"
	    "b",
	    0, ONE, "a\\x80b" },
	{ "lone lead", "\xc3", 0, ONE, "\\xc3" },
	{ "lead then ascii", "\xc3(", 0, ONE, "\\xc3(" },
	{ "overlong slash", "\xc0\xaf", 0, ONE, "\\xc0\\xaf" },
	{ "overlong three byte", "\xe0\x80\xaf", 0, ONE, "\\xe0\\x80\\xaf" },
	{ "surrogate", "\xed\xa0\x80", 0, ONE, "\\xed\\xa0\\x80" },
	{ "above u+10ffff", "\xf4\x90\x80\x80", 0, ONE,
	    "\\xf4\\x90\\x80\\x80" },
	{ "truncated at end", "ok\xe2\x80", 0, ONE, "ok\\xe2\\x80" },
	{ "ff and fe", "\xff\xfe", 0, ONE, "\\xff\\xfe" },
	{ "broken sequence then valid", "\xe2\x80\xe2\x80\xae", 0, ONE,
	    "\\xe2\\x80\\u{202E}" },
};

START_TEST(test_vis_table)
{
	size_t len = rows[_i].len != 0 ? rows[_i].len : strlen(rows[_i].in);
	char *got = vis_dup(rows[_i].in, len, rows[_i].flags), *again;

	ck_assert_msg(got != NULL, "%s: NULL", rows[_i].name);
	ck_assert_msg(strcmp(got, rows[_i].want) == 0, "%s: got \"%s\"",
	    rows[_i].name, got);
	/* Already safe: a second pass (backslashes left alone) is a no-op. */
	again = vis_dup(got, strlen(got), rows[_i].flags | VIS_NOSLASH);
	ck_assert_msg(again != NULL && strcmp(again, got) == 0,
	    "%s: again \"%s\"", rows[_i].name, again);
	free(again);
	free(got);
}
END_TEST

/*
 * A word of more than 64 characters is not judged: each letter of the
 * scripts that pass for Latin in it is escaped, so all of a word's
 * letters take one answer (a Cyrillic zhe then 70 Cyrillic a: judged
 * 64 at a time, the a's far from the zhe were a word of look-alikes and
 * the zhe's a Russian word).
 */
START_TEST(test_vis_long_word_is_escaped_whole)
{
	char in[2 + 70 * 2 + 1], want[8 + 70 * 8 + 1], *got;
	size_t i;

	memcpy(in, "\xd0\xb6", 2);
	memcpy(want, "\\u{0436}", 8);
	for (i = 0; i < 70; i++) {
		memcpy(in + 2 + 2 * i, "\xd0\xb0", 2);
		memcpy(want + 8 + 8 * i, "\\u{0430}", 8);
	}
	in[sizeof(in) - 1] = '\0';
	want[sizeof(want) - 1] = '\0';
	got = vis_dup(in, strlen(in), ONE);
	ck_assert_str_eq(got, want);
	free(got);
	/* 64 of them are judged: a Russian word's. */
	in[2 + 63 * 2] = '\0';
	got = vis_dup(in, strlen(in), ONE);
	ck_assert_str_eq(got, in);
	free(got);
}
END_TEST

/* What comes out is printable: no byte below 0x20 but kept ones, no DEL. */
START_TEST(test_vis_output_has_no_control_bytes)
{
	char in[256], *got;
	const unsigned char *p;
	int i;

	for (i = 0; i < 256; i++)
		in[i] = (char)i;
	got = vis_dup(in, sizeof(in), ONE);
	ck_assert_ptr_nonnull(got);
	for (p = (const unsigned char *)got; *p != '\0'; p++)
		ck_assert_msg(*p >= 0x20 && *p < 0x7f, "byte %02x", *p);
	free(got);
	got = vis_dup(in, sizeof(in), ML);
	ck_assert_ptr_nonnull(got);
	for (p = (const unsigned char *)got; *p != '\0'; p++)
		ck_assert_msg(
		    (*p >= 0x20 && *p < 0x7f) || *p == '\n' || *p == '\t',
		    "byte %02x", *p);
	free(got);
}
END_TEST

START_TEST(test_vis_buf_refuses_to_truncate)
{
	char dst[8];
	size_t n = 99;

	ck_assert_int_eq(
	    vis_buf(dst, sizeof(dst), "\x1b[1A\x1b[2K", 8, ONE, &n),
	    AL_ERR_LIMIT);
	ck_assert_str_eq(dst, "");
	ck_assert_uint_eq(n, 10); /* the size that was needed */
	ck_assert_int_eq(vis_buf(dst, sizeof(dst), "abcdefg", 7, ONE, &n), 0);
	ck_assert_str_eq(dst, "abcdefg");
	ck_assert_uint_eq(n, 7);
	ck_assert_int_eq(
	    vis_buf(dst, sizeof(dst), "abcdefgh", 8, ONE, &n), AL_ERR_LIMIT);
	ck_assert_str_eq(dst, "");
	ck_assert_int_eq(vis_buf(NULL, 0, "a\\", 2, ONE, &n), AL_ERR_LIMIT);
	ck_assert_uint_eq(n, 3);
}
END_TEST

START_TEST(test_vis_worst_case_fits_the_bound)
{
	/* Every byte of invalid UTF-8 costs VIS_MAX_EXPANSION. */
	char in[64], dst[sizeof(in) * VIS_MAX_EXPANSION + 1];
	size_t n;

	memset(in, 0xff, sizeof(in));
	ck_assert_int_eq(vis_buf(dst, sizeof(dst), in, sizeof(in), ONE, &n), 0);
	ck_assert_uint_eq(n, sizeof(in) * VIS_MAX_EXPANSION);
	memset(in, 0, sizeof(in));
	for (n = 0; n + 2 <= sizeof(in); n += 2)
		memcpy(in + n, "\xc2\x85", 2);
	ck_assert_int_eq(vis_buf(dst, sizeof(dst), in, sizeof(in), ONE, &n), 0);
}
END_TEST

START_TEST(test_vis_dup_null_and_huge)
{
	char *s = vis_dup(NULL, 5, ONE);

	ck_assert_str_eq(s, "");
	free(s);
	s = vis_str(NULL, ONE);
	ck_assert_str_eq(s, "");
	free(s);
	ck_assert_ptr_null(vis_dup("x", SIZE_MAX / 2, ONE));
}
END_TEST

/* vis_fit cuts between characters, never inside an escape or a sequence. */
START_TEST(test_vis_fit_never_splits)
{
	static const char s[] = "ab\x1b[2K\xe2\x80\xae\xc3\xa9z";
	size_t len = sizeof(s) - 1;

	ck_assert_uint_eq(vis_fit(s, len, ONE, 0), 0);
	ck_assert_uint_eq(vis_fit(s, len, ONE, 2), 2);
	ck_assert_uint_eq(vis_fit(s, len, ONE, 3), 2); /* not half of \e */
	ck_assert_uint_eq(vis_fit(s, len, ONE, 4), 3);
	ck_assert_uint_eq(vis_fit(s, len, ONE, 7), 6); /* ab\e[2K */
	ck_assert_uint_eq(vis_fit(s, len, ONE, 14), 6); /* \u{202E} is 8 */
	ck_assert_uint_eq(vis_fit(s, len, ONE, 15), 9);
	ck_assert_uint_eq(vis_fit(s, len, ONE, 16), 9); /* not half of é */
	ck_assert_uint_eq(vis_fit(s, len, ONE, 17), 11);
	ck_assert_uint_eq(vis_fit(s, len, ONE, 100), len);
}
END_TEST

/*
 * Whatever a manifest's path is refused for (lookalike_path()), vis
 * marks: every code point up to U+2FFFF, alone, between Latin letters,
 * after a Latin word and doubled, is escaped by vis wherever the
 * manifest's check refuses the text.  And the escape, read again,
 * is no longer refused.
 */
START_TEST(test_vis_marks_what_the_manifest_refuses)
{
	/* Before the character, after it, and whether it comes twice. */
	static const struct {
		const char *pre, *post;
		int twice;
	} ctx[] = { { "", "", 0 }, { "a", "b", 0 }, { "config", "", 0 },
		{ "", "", 1 } };
	struct lookalike la;
	char ch[5], text[64];
	uint32_t cp;
	size_t n, k, len;
	char *v;

	for (cp = 0x80; cp <= 0x2ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
		ch[0] = (char)(n == 2 ? 0xc0 | (cp >> 6)
			: n == 3      ? 0xe0 | (cp >> 12)
				      : 0xf0 | (cp >> 18));
		for (k = 1; k < n; k++)
			ch[k] =
			    (char)(0x80 | ((cp >> (6 * (n - 1 - k))) & 0x3f));
		ch[n] = '\0';
		for (k = 0; k < sizeof(ctx) / sizeof(ctx[0]); k++) {
			snprintf(text, sizeof(text), "%s%s%s%s", ctx[k].pre, ch,
			    ctx[k].twice ? ch : "", ctx[k].post);
			len = strlen(text);
			if (!lookalike_path(text, len, &la))
				continue;
			v = vis_dup(text, len, ONE);
			ck_assert_ptr_nonnull(v);
			ck_assert_msg(strstr(v, "\\u{") != NULL,
			    "U+%04X in \"%s\": refused, shown as \"%s\"",
			    (unsigned)cp, text, v);
			ck_assert_msg(!lookalike_path(v, strlen(v), &la),
			    "U+%04X in \"%s\": its escape \"%s\" is refused",
			    (unsigned)cp, text, v);
			free(v);
		}
	}
}
END_TEST

/*
 * A word is the manifest's: whatever vis shows unescaped between Latin
 * letters and a Cyrillic "key" ("config" U+00B7 "\u043A\u0435\u0443")
 * leaves them one word, and when lookalike_path() refuses it each
 * Cyrillic letter is escaped (vis cut its words at punctuation and
 * symbols beyond ASCII, and showed the "key" raw).
 */
START_TEST(test_vis_word_is_the_manifests_word)
{
	struct lookalike la;
	char ch[5], text[64];
	uint32_t cp;
	size_t n, k, len;
	char *v, *c;

	for (cp = 0x80; cp <= 0x2ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
		ch[0] = (char)(n == 2 ? 0xc0 | (cp >> 6)
			: n == 3      ? 0xe0 | (cp >> 12)
				      : 0xf0 | (cp >> 18));
		for (k = 1; k < n; k++)
			ch[k] =
			    (char)(0x80 | ((cp >> (6 * (n - 1 - k))) & 0x3f));
		ch[n] = '\0';
		if ((c = vis_str(ch, ONE)) == NULL || strstr(c, "\\") != NULL) {
			free(c);
			continue; /* escaped: it ends the word, as shown */
		}
		free(c);
		snprintf(
		    text, sizeof(text), "config%s\xd0\xba\xd0\xb5\xd1\x83", ch);
		len = strlen(text);
		if (!lookalike_path(text, len, &la))
			continue;
		v = vis_dup(text, len, ONE);
		ck_assert_ptr_nonnull(v);
		ck_assert_msg(strstr(v, "\\u{043A}\\u{0435}\\u{0443}") != NULL,
		    "U+%04X between config and a Cyrillic key: refused, "
		    "shown as \"%s\"",
		    (unsigned)cp, v);
		free(v);
	}
}
END_TEST

/*
 * A cut through a word is escaped as in the whole: a look-alike whose
 * word goes on with a letter of its own script stays, though the cut
 * alone would show it escaped; and the result is never longer than
 * asked for.
 */
START_TEST(test_vis_dup_fit_escapes_as_in_the_whole)
{
	/* Cyrillic o, then be (no look-alike): a Russian word's start. */
	static const char s[] = "\xd0\xbe\xd0\xb1";
	/* p, Cyrillic a, y: the cut after the a. */
	static const char t[] = "p\xd0\xb0y";
	size_t used;
	char *v;

	v = vis_dup_fit(s, 4, ONE, 2, &used);
	ck_assert_uint_eq(used, 2);
	ck_assert_str_eq(v, "\xd0\xbe");
	free(v);
	v = vis_dup(s, 2, ONE);
	ck_assert_str_eq(v, "\\u{043E}");
	free(v);
	v = vis_dup_fit(t, 4, ONE, 9, &used);
	ck_assert_uint_eq(used, 3);
	ck_assert_str_eq(v, "p\\u{0430}");
	free(v);
	v = vis_dup_fit(t, 4, ONE, 8, &used);
	ck_assert_uint_eq(used, 1);
	ck_assert_str_eq(v, "p");
	free(v);
	v = vis_dup_fit(NULL, 3, ONE, 8, &used);
	ck_assert_uint_eq(used, 0);
	ck_assert_str_eq(v, "");
	free(v);
}
END_TEST

/*
 * A line wider than the terminal is folded: no row is wider, and every
 * row after a line's first begins with the mark, so that what the
 * agent put at the terminal's edge ("  evidence:", code that looks
 * unchanged) never begins a row of its own.
 */
static const struct {
	const char *name;
	const char *in;
	size_t width;
	const char *want;
} folds[] = {
	{ "short lines pass", "ab\ncd\n", 20, "ab\ncd\n" },
	{ "exactly the width passes", "0123456789012345678\n", 19 + 1,
	    "0123456789012345678\n" },
	{ "a wide line is folded, its rows marked",
	    "  reason:    x......  evidence:  {gates}\n", 20,
	    "  reason:    x......\n" VIS_FOLD_MARK
	    "  evidence:  {gat\n" VIS_FOLD_MARK "es}\n" },
	{ "a diff line's tail is no context line",
	    "+a = 1; /* ...... */ if (pw) ok();\n", 20,
	    "+a = 1; /* ...... */\n" VIS_FOLD_MARK " if (pw) ok();\n" },
	{ "an escape is not split", "0123456789012345\\u{202E}x", 20,
	    "0123456789012345\n" VIS_FOLD_MARK "\\u{202E}x" },
	{ "a tab runs to its stop", "\t\t\tabcdef", 28,
	    "\t\t\tabcd\n" VIS_FOLD_MARK "ef" },
	{ "non-ASCII counts two, never split", "0123456789012345678\xc3\xa9",
	    20, "0123456789012345678\n" VIS_FOLD_MARK "\xc3\xa9" },
	{ "a width below the least is the least", "012345678901234567890", 5,
	    "01234567890123456789\n" VIS_FOLD_MARK "0" },
};

START_TEST(test_vis_fold_marks_every_row_after_the_first)
{
	char *v = vis_fold(folds[_i].in, strlen(folds[_i].in), folds[_i].width);

	ck_assert_msg(v != NULL, "%s", folds[_i].name);
	ck_assert_msg(strcmp(v, folds[_i].want) == 0, "%s: got \"%s\"",
	    folds[_i].name, v);
	free(v);
}
END_TEST

/* vis_fold_printf() writes what vis_fold() makes of the formatted text. */
START_TEST(test_vis_fold_printf_folds_what_it_formats)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(vis_fold_printf(fp, 20, "refused: %s: %s\n",
			     "x......  evidence: ok", "git"),
	    0);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_str_eq(
	    buf, "refused: x......  ev\n" VIS_FOLD_MARK "idence: ok: git\n");
	free(buf);
}
END_TEST

static Suite *
vis_suite(void)
{
	Suite *s = suite_create("vis");
	TCase *tc = tcase_create("vis");

	/* Two tests walk every code point to U+2FFFF (the suite: 0.7 s of
	 * CPU), over Check's 4 s default on a loaded machine. */
	tcase_set_timeout(tc, 60);

	tcase_add_loop_test(
	    tc, test_vis_table, 0, sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, test_vis_output_has_no_control_bytes);
	tcase_add_test(tc, test_vis_buf_refuses_to_truncate);
	tcase_add_test(tc, test_vis_worst_case_fits_the_bound);
	tcase_add_test(tc, test_vis_dup_null_and_huge);
	tcase_add_test(tc, test_vis_fit_never_splits);
	tcase_add_test(tc, test_vis_dup_fit_escapes_as_in_the_whole);
	tcase_add_test(tc, test_vis_marks_what_the_manifest_refuses);
	tcase_add_test(tc, test_vis_word_is_the_manifests_word);
	tcase_add_test(tc, test_vis_long_word_is_escaped_whole);
	tcase_add_loop_test(tc, test_vis_fold_marks_every_row_after_the_first,
	    0, sizeof(folds) / sizeof(folds[0]));
	tcase_add_test(tc, test_vis_fold_printf_folds_what_it_formats);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(vis_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
