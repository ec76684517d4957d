/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * vis: escaping for the terminal.  One character at a time: a byte or a
 * whole UTF-8 sequence is either copied or replaced by its escape, so a
 * cut between characters (vis_fit) never splits either.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/lookalike.h"
#include "common/vis.h"

/* The longest escape of one character: "\u{E007F}" is 9 bytes. */
#define VIS_STEP_MAX 16

/*
 * Code points that are valid UTF-8 yet cannot be seen, or that move or
 * hide the text around them, or that look like a space but are another
 * byte to every program: Unicode's default-ignorable code points, the
 * space separators other than U+0020, and the braille blank.  Sorted;
 * inclusive ranges.
 */
struct vis_range {
	uint32_t lo, hi;
};

static const struct vis_range vis_hidden_ranges[] = {
	{ 0x0080, 0x009f }, /* C1 controls (NEL, CSI, ...) */
	{ 0x00a0, 0x00a0 }, /* no-break space */
	{ 0x00ad, 0x00ad }, /* soft hyphen */
	{ 0x034f, 0x034f }, /* combining grapheme joiner */
	{ 0x061c, 0x061c }, /* arabic letter mark */
	{ 0x115f, 0x1160 }, /* hangul fillers */
	{ 0x1680, 0x1680 }, /* ogham space mark */
	{ 0x17b4, 0x17b5 }, /* khmer inherent vowels */
	{ 0x180b, 0x180f }, /* mongolian variation selectors, vowel sep. */
	{ 0x2000, 0x200f }, /* en quad..hair space, zero-width, LRM, RLM */
	{ 0x2028, 0x202f }, /* line/paragraph separators, LRE..RLO, NNBSP */
	{ 0x205f, 0x206f }, /* math space, word joiner, invisibles, isolates */
	{ 0x2800, 0x2800 }, /* braille pattern blank */
	{ 0x3000, 0x3000 }, /* ideographic space */
	{ 0x3164, 0x3164 }, /* hangul filler */
	{ 0xfe00, 0xfe0f }, /* variation selectors: 256 of them hide bytes */
	{ 0xfeff, 0xfeff }, /* zero-width no-break space, BOM */
	{ 0xffa0, 0xffa0 }, /* halfwidth hangul filler */
	{ 0xfff0, 0xfffb }, /* reserved ignorables, interlinear annotation */
	{ 0x1bca0, 0x1bca3 }, /* shorthand format controls */
	{ 0x1d173, 0x1d17a }, /* musical symbol format controls */
	{ 0xe0000, 0xe0fff }, /* tags, variation selectors supplement */
};

/* Characters drawn as a double quote (VIS_QUOTED).  Sorted. */
static const struct vis_range vis_quote_ranges[] = {
	{ 0x02ba, 0x02ba }, /* modifier letter double prime */
	{ 0x02dd, 0x02dd }, /* double acute accent */
	{ 0x02ee, 0x02ee }, /* modifier letter double apostrophe */
	{ 0x05f4, 0x05f4 }, /* hebrew punctuation gershayim */
	{ 0x1cd3, 0x1cd3 }, /* vedic sign nihshvasa */
	{ 0x201c, 0x201f }, /* curly double quotes */
	{ 0x2033, 0x2033 }, /* double prime */
	{ 0x2036, 0x2036 }, /* reversed double prime */
	{ 0x3003, 0x3003 }, /* ditto mark */
	{ 0xff02, 0xff02 }, /* fullwidth quotation mark */
};

/*
 * A run of more than VIS_RUN_MAX blanks (spaces, and tabs where they are
 * kept) would show as nothing over whole lines: enough to push what
 * follows it, or what came before it, off the person's screen.  Such a
 * run is shown counted: "\s{N}" for N spaces, "\t" for each tab in it.
 */
#define VIS_RUN_MAX 32
/* The most spaces one "\s{N}" stands for (its escape fits a step). */
#define VIS_RUN_STEP 99999999

static int
vis_blank(unsigned char c, int flags)
{
	return c == ' ' || (c == '\t' && (flags & VIS_KEEP_TAB));
}

/* The number of blanks at p[0..avail), counting at most |stop|. */
static size_t
vis_blanks(const unsigned char *p, size_t avail, int flags, size_t stop)
{
	size_t n = 0;

	while (n < avail && n < stop && vis_blank(p[n], flags))
		n++;
	return n;
}

/* Whether |c| is in one of the sorted ranges r[0..n). */
static int
vis_in_ranges(uint32_t c, const struct vis_range *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (c < r[i].lo)
			return 0;
		if (c <= r[i].hi)
			return 1;
	}
	return 0;
}

static int
vis_hidden(uint32_t c)
{
	return vis_in_ranges(c, vis_hidden_ranges,
	    sizeof(vis_hidden_ranges) / sizeof(vis_hidden_ranges[0]));
}

/* Whether |c| is escaped under |flags| wherever it stands. */
static int
vis_escaped(uint32_t c, int flags)
{
	return vis_hidden(c) || lookalike_form(c) ||
	    ((flags & VIS_QUOTED) &&
		vis_in_ranges(c, vis_quote_ranges,
		    sizeof(vis_quote_ranges) / sizeof(vis_quote_ranges[0])));
}

/*
 * Returns the length of the valid UTF-8 sequence at p[0..avail) and its
 * code point in *cp, or 0 if p[0] does not start one (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF).
 */
static size_t
vis_utf8(const unsigned char *p, size_t avail, uint32_t *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;
		else if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	*cp = p[0] & (0x7f >> n);
	for (i = 1; i < n; i++)
		*cp = (*cp << 6) | (p[i] & 0x3f);
	return n;
}

/* The C-style letter for control byte |c|, or NUL if it has none. */
static char
vis_cstyle(unsigned char c)
{
	switch (c) {
	case '\a':
		return 'a';
	case '\b':
		return 'b';
	case '\t':
		return 't';
	case '\n':
		return 'n';
	case '\v':
		return 'v';
	case '\f':
		return 'f';
	case '\r':
		return 'r';
	case 0x1b:
		return 'e';
	}
	return '\0';
}

/*
 * Whether the blank at s[off] is in a run of more than VIS_RUN_MAX
 * blanks (looking both ways, so that every blank of a long run is
 * shown as one: a stateless step at its tail must not take the rest
 * for a short run).
 */
static int
vis_in_long_run(const unsigned char *s, size_t off, size_t len, int flags)
{
	size_t back = 0;

	while (back < off && back <= VIS_RUN_MAX &&
	    vis_blank(s[off - back - 1], flags))
		back++;
	return back +
	    vis_blanks(s + off, len - off, flags, VIS_RUN_MAX + 1 - back) >
	    VIS_RUN_MAX;
}

/*
 * Combining marks of the blocks that stack on any letter (the combining
 * diacritical marks and their supplements and extensions, the marks for
 * symbols, the half marks).  A few on one letter are text (Vietnamese
 * stacks two); hundreds draw over the lines above and below it, hiding
 * what is there ("Zalgo"), and carry data as variation selectors do.
 */
#define VIS_MARKS_MAX 2

static int
vis_mark(uint32_t c)
{
	return (c >= 0x0300 && c <= 0x036f) || (c >= 0x1ab0 && c <= 0x1aff) ||
	    (c >= 0x1dc0 && c <= 0x1dff) || (c >= 0x20d0 && c <= 0x20ff) ||
	    (c >= 0xfe20 && c <= 0xfe2f);
}

/*
 * Whether the VIS_MARKS_MAX characters before s[off] are all such marks
 * (each is two or three bytes of UTF-8).
 */
static int
vis_marks_before(const unsigned char *s, size_t off)
{
	uint32_t cp;
	size_t k, w;

	for (k = 0; k < VIS_MARKS_MAX; k++) {
		for (w = 2; w <= 3; w++)
			if (off >= w && vis_utf8(s + off - w, w, &cp) == w &&
			    vis_mark(cp))
				break;
		if (w > 3)
			return 0;
		off -= w;
	}
	return 1;
}

/*
 * A letter of another script drawn as a Latin one ("src/p\u{0430}y.py",
 * a Cyrillic a, shows as "src/pay.py" does, and is another file to every
 * program) is escaped by the rules and the table that refuse it in a
 * manifest's path (common/lookalike.h; a table of vis's own, narrower,
 * let "p\u{03B1}ypal", a Greek alpha, "p\u{0251}ypal", an IPA one, and
 * "src\u{2215}x", a division slash, reach the approval screen as they
 * read): ASCII in another form wherever it stands, and each letter of
 * the scripts that pass for Latin (Greek, Cyrillic, Armenian, Cherokee,
 * fullwidth) in a word lookalike_path() refuses: "p\u{0430}ypal" among
 * Latin letters, "\u{0440}\u{0430}\u{0443}" (Cyrillic letters that spell
 * "pay"), not a Russian or Greek word that has letters of its own.  A
 * word is what lookalike_path() reads as one: ASCII letters and digits,
 * and whatever beyond ASCII passes unescaped, punctuation, symbols and
 * marks too (a word cut at a middle dot or an em dash showed the
 * Cyrillic "key" of "config<U+00B7>key" raw, where the manifest
 * refused it).  Anything vis escapes ends a word, and so does a
 * backslash: the escaped text, read again, cuts the same
 * words, and those of a word whose letters were escaped hold none of
 * them (its escapes add only ASCII).  A word of more than VIS_WORD_MAX
 * characters is not judged: each such letter in it is escaped.
 */
#define VIS_WORD_MAX 64

/*
 * Whether |c|, at s[off], is a character of a word (see above): ASCII
 * letters and digits, and what passes unescaped beyond ASCII, as
 * lookalike_path() reads a word, punctuation and marks too ("config
 * U+00B7 and Cyrillic k, ie, u" is one word of two scripts to it: vis
 * cut it at the middle dot and showed a Cyrillic "key" raw).
 */
static int
vis_word_char(const unsigned char *s, size_t off, uint32_t c, int flags)
{
	if (c < 0x80)
		return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
		    (c >= 'a' && c <= 'z');
	return !(
	    vis_escaped(c, flags) || (vis_mark(c) && vis_marks_before(s, off)));
}

/*
 * The character that starts at s[off] (off < len), ASCII or valid UTF-8,
 * and its length; 0 if the bytes there are neither.
 */
static size_t
vis_char_at(const unsigned char *s, size_t off, size_t len, uint32_t *cp)
{
	if (s[off] < 0x80) {
		*cp = s[off];
		return 1;
	}
	return vis_utf8(s + off, len - off, cp);
}

/*
 * The character that ends just before s[off], and its length, or 0 if
 * the bytes there are not one whole character.
 */
static size_t
vis_char_before(const unsigned char *s, size_t off, uint32_t *cp)
{
	size_t w;

	for (w = 1; w <= 4 && w <= off; w++)
		if ((s[off - w] & 0xc0) != 0x80)
			return vis_char_at(s, off - w, off, cp) == w ? w : 0;
	return 0;
}

static int
vis_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/*
 * Whether s[i] is the letter or a hex digit of what reads as one of
 * vis's own escapes ("\t", "\x01"), after a backslash: not of a word.
 * The escaped text, read again, must cut the words it cut ("\x01" for a
 * control byte before "λλ" made "x01λλ" a word of Latin and Greek).
 */
static int
vis_escape_tail(const unsigned char *s, size_t i)
{
	return (i >= 1 && s[i - 1] == '\\' && s[i] != '\0' &&
		   strchr("xabtnvfre", s[i]) != NULL) ||
	    (i >= 2 && s[i - 2] == '\\' && s[i - 1] == 'x' && vis_hex(s[i])) ||
	    (i >= 3 && s[i - 3] == '\\' && s[i - 2] == 'x' &&
		vis_hex(s[i - 1]) && vis_hex(s[i]));
}

/*
 * What vis_lookalike_shown() found for the letters of s[start..end):
 * all of a word's letters take the same answer, so a text of Cyrillic
 * words is judged a word at a time, not a letter at a time (4 MiB of
 * them took 4 s).
 */
struct vis_memo {
	const unsigned char *s;
	size_t start, end;
	int shown;
};

/*
 * Whether the letter of |n| bytes at s[off], of a script that passes for
 * Latin, is to be escaped: its word is refused, or too long to judge.
 * Every letter of a word sees the whole word (or finds it too long),
 * so all of its letters are escaped or none; |memo| (NULL: none) holds
 * the last answer.
 */
static int
vis_lookalike_shown(const unsigned char *s, size_t off, size_t n, size_t len,
    int flags, struct vis_memo *memo)
{
	struct lookalike la;
	size_t start = off, end = off + n, back, ahead, w;
	uint32_t cp;
	int shown;

	if (memo != NULL && memo->s == s && off >= memo->start &&
	    off < memo->end)
		return memo->shown;

	for (back = 0;
	     back < VIS_WORD_MAX && (w = vis_char_before(s, start, &cp)) != 0 &&
	     vis_word_char(s, start - w, cp, flags) &&
	     !vis_escape_tail(s, start - w);
	     back++)
		start -= w;
	for (ahead = 0; ahead < VIS_WORD_MAX && end < len &&
	     (w = vis_char_at(s, end, len, &cp)) != 0 &&
	     vis_word_char(s, end, cp, flags) && !vis_escape_tail(s, end);
	     ahead++)
		end += w;
	shown = back + ahead + 1 > VIS_WORD_MAX ||
	    lookalike_path((const char *)s + start, end - start, &la);
	if (memo != NULL) {
		memo->s = s;
		memo->start = start;
		memo->end = end;
		memo->shown = shown;
	}
	return shown;
}

/*
 * Escapes the one character at s[off..len) (off < len) into out: |s|
 * is the whole text, for the blanks, marks and words around it (|memo|,
 * NULL or the caller's, holds the last word judged).  Returns the output
 * length; *used is the number of input bytes taken.
 */
static size_t
vis_step(const unsigned char *s, size_t off, size_t len, int flags, char *out,
    size_t *used, struct vis_memo *memo)
{
	const unsigned char *p = s + off;
	size_t avail = len - off;
	uint32_t cp;
	size_t n;

	*used = 1;
	if (p[0] == '\\') {
		if (flags & VIS_NOSLASH) {
			out[0] = '\\';
			return 1;
		}
		memcpy(out, "\\\\", 2);
		return 2;
	}
	/* In a long run of blanks (the rest of it, from here). */
	if (vis_blank(p[0], flags) && vis_in_long_run(s, off, len, flags)) {
		if (p[0] == '\t') {
			memcpy(out, "\\t", 2);
			return 2;
		}
		n = vis_blanks(p, avail, 0, VIS_RUN_STEP);
		if (n == 1) {
			out[0] = ' ';
			return 1;
		}
		*used = n;
		return (size_t)snprintf(out, VIS_STEP_MAX, "\\s{%zu}", n);
	}
	if ((p[0] == '\n' && (flags & VIS_KEEP_NL)) ||
	    (p[0] == '\t' && (flags & VIS_KEEP_TAB)) ||
	    (p[0] >= 0x20 && p[0] < 0x7f)) {
		out[0] = (char)p[0];
		return 1;
	}
	if ((out[1] = vis_cstyle(p[0])) != '\0') {
		out[0] = '\\';
		return 2;
	}
	if (p[0] < 0x80 || (n = vis_utf8(p, avail, &cp)) == 0)
		return (size_t)snprintf(out, VIS_STEP_MAX, "\\x%02x", p[0]);
	*used = n;
	if (vis_escaped(cp, flags) ||
	    (vis_mark(cp) && vis_marks_before(s, off)) ||
	    (lookalike_foreign(cp) &&
		vis_lookalike_shown(s, off, n, len, flags, memo)))
		return (size_t)snprintf(
		    out, VIS_STEP_MAX, "\\u{%04X}", (unsigned)cp);
	memcpy(out, p, n);
	return n;
}

/*
 * vis_buf() of the first |n| bytes of src[0..len), each character
 * escaped as it is in the whole (a look-alike's word may go on past
 * |n|): so the result is a prefix of the whole's escape.  |n| is at a
 * boundary vis_fit() gives, or |len|.
 */
static int
vis_escape(char *dst, size_t dstlen, const unsigned char *p, size_t n,
    size_t len, int flags, size_t *outlen)
{
	struct vis_memo memo = { NULL, 0, 0, 0 };
	char step[VIS_STEP_MAX];
	size_t off = 0, used, k, i;
	int rc = 0;

	if (outlen != NULL)
		*outlen = 0;
	for (i = 0; i < n; i += used) {
		k = vis_step(p, i, len, flags, step, &used, &memo);
		/* off + k + 1 <= dstlen, written so that it cannot wrap */
		if (rc == 0 && (dstlen == 0 || dstlen - 1 - off < k))
			rc = AL_ERR_LIMIT;
		if (rc == 0)
			memcpy(dst + off, step, k);
		off += k;
	}
	if (outlen != NULL)
		*outlen = off;
	if (dstlen > 0)
		dst[rc == 0 ? off : 0] = '\0';
	return rc;
}

int
vis_buf(char *dst, size_t dstlen, const char *src, size_t len, int flags,
    size_t *outlen)
{
	return vis_escape(
	    dst, dstlen, (const unsigned char *)src, len, len, flags, outlen);
}

/* The escape of src[0..n) in the context of src[0..len), malloc'd. */
static char *
vis_escape_dup(const char *src, size_t n, size_t len, int flags)
{
	char *dst;
	size_t cap;

	if (src == NULL) {
		src = "";
		n = len = 0;
	}
	if (n > (SIZE_MAX - 1) / VIS_MAX_EXPANSION)
		return NULL;
	cap = n * VIS_MAX_EXPANSION + 1;
	if ((dst = malloc(cap)) == NULL)
		return NULL;
	if (vis_escape(dst, cap, (const unsigned char *)src, n, len, flags,
		NULL) != 0) {
		free(dst);
		return NULL;
	}
	return dst;
}

char *
vis_dup(const char *src, size_t len, int flags)
{
	return vis_escape_dup(src, len, len, flags);
}

char *
vis_dup_fit(const char *src, size_t len, int flags, size_t max, size_t *used)
{
	size_t n;

	if (src == NULL) {
		src = "";
		len = 0;
	}
	n = vis_fit(src, len, flags, max);
	if (used != NULL)
		*used = n;
	return vis_escape_dup(src, n, len, flags);
}

char *
vis_str(const char *s, int flags)
{
	return vis_dup(s, s != NULL ? strlen(s) : 0, flags);
}

/*
 * When p[0..avail) starts a run of more than VIS_RUN_MAX blanks: its
 * escaped length, and in *used its length.  Else 0.
 */
static size_t
vis_run_len(const unsigned char *p, size_t avail, int flags, size_t *used)
{
	char step[VIS_STEP_MAX];
	size_t run, i, n, out = 0;

	if (vis_blanks(p, avail, flags, VIS_RUN_MAX + 1) <= VIS_RUN_MAX)
		return 0;
	run = vis_blanks(p, avail, flags, SIZE_MAX);
	for (i = 0; i < run; i += n)
		out += vis_step(p, i, run, flags, step, &n, NULL);
	*used = run;
	return out;
}

size_t
vis_fit(const char *src, size_t len, int flags, size_t max)
{
	const unsigned char *p = (const unsigned char *)src;
	struct vis_memo memo = { NULL, 0, 0, 0 };
	char step[VIS_STEP_MAX];
	size_t out = 0, used, n, i;

	for (i = 0; i < len; i += used) {
		/*
		 * A long run of blanks is shown by its length, so it is taken
		 * whole or not at all: its prefix alone would be shown
		 * otherwise.
		 */
		if (vis_blank(p[i], flags) &&
		    (i == 0 || !vis_blank(p[i - 1], flags)) &&
		    (n = vis_run_len(p + i, len - i, flags, &used)) > 0) {
			if (max - out < n)
				break;
			out += n;
			continue;
		}
		n = vis_step(p, i, len, flags, step, &used, &memo);
		if (max - out < n)
			break;
		out += n;
	}
	return i;
}

/*
 * The columns of the unit that starts at s[i] (of n bytes, set in
 * *used) when it starts at column |col|: a tab runs to the next multiple
 * of 8, an escape (backslash, "\xNN", "\u{...}", "\s{...}") is its
 * bytes, taken whole, and a character beyond ASCII counts as two, wide
 * or not: an estimate that errs wide folds a row early, never late.
 */
static size_t
fold_unit(const char *s, size_t i, size_t n, size_t col, size_t *used)
{
	const unsigned char *p = (const unsigned char *)s + i;
	size_t avail = n - i, k;

	*used = 1;
	if (p[0] == '\t')
		return 8 - col % 8;
	if (p[0] == '\\' && avail >= 2) {
		if (p[1] == 'x' && avail >= 4)
			*used = 4;
		else if ((p[1] == 'u' || p[1] == 's') && avail >= 3 &&
		    p[2] == '{') {
			for (k = 3; k < avail && k < 16 && p[k] != '}'; k++)
				;
			*used = k < avail && p[k] == '}' ? k + 1 : 2;
		} else
			*used = 2;
		return *used;
	}
	if (p[0] < 0x80)
		return 1;
	for (k = 1; k < avail && k < 4 && (p[k] & 0xc0) == 0x80; k++)
		;
	*used = k;
	return 2;
}

char *
vis_fold(const char *s, size_t len, size_t width)
{
	const size_t marklen = sizeof(VIS_FOLD_MARK) - 1;
	char *out = NULL;
	size_t outlen = 0, i, used, w, col = 0;
	FILE *fp;

	if (width < VIS_FOLD_MIN)
		width = VIS_FOLD_MIN;
	if ((fp = open_memstream(&out, &outlen)) == NULL)
		return NULL;
	for (i = 0; i < len; i += used) {
		if (s[i] == '\n') {
			used = 1;
			col = 0;
			fputc('\n', fp);
			continue;
		}
		w = fold_unit(s, i, len, col, &used);
		if (col > marklen && col + w > width) {
			fputc('\n', fp);
			fputs(VIS_FOLD_MARK, fp);
			col = marklen;
			w = fold_unit(s, i, len, col, &used);
		}
		fwrite(s + i, 1, used, fp);
		col += w;
	}
	if (fclose(fp) == EOF) {
		free(out);
		return NULL;
	}
	return out;
}

int
vis_fold_printf(FILE *fp, size_t width, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vis_fold_vprintf(fp, width, fmt, ap);
	va_end(ap);
	return rc;
}

int
vis_fold_vprintf(FILE *fp, size_t width, const char *fmt, va_list ap)
{
	char *s, *folded;
	int n;

	if ((n = vasprintf(&s, fmt, ap)) < 0)
		return -1;
	folded = vis_fold(s, (size_t)n, width);
	free(s);
	if (folded == NULL)
		return -1;
	(void)fputs(folded, fp);
	free(folded);
	return 0;
}
