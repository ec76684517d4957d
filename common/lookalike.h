/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * lookalike: characters that a reader takes for other, ASCII ones: in a
 * manifest's path (refused: with ".g<U+0456>t/hooks" in
 * sandbox.protected, a Cyrillic i, a reviewer reads that .git is
 * protected, and nothing is: the pattern names another directory), and
 * in what a person is shown (common/vis.h marks them by the same rules:
 * its own, narrower table let "p<U+03B1>ypal", a Greek alpha, or
 * "src<U+2215>x" reach the approval screen unmarked).  Pure; no
 * allocation.
 *
 * A path is read word by word (a word: the letters and digits between
 * '/', '.', '-', a space or any other ASCII punctuation), and refused
 * for:
 *  - a character that is ASCII in another form wherever it stands:
 *    fullwidth path or glob punctuation ("\uFF0F" for '/', "\uFF0A"
 *    for '*'), the division and fraction slashes, dot leaders, asterisk
 *    operators, mathematical letters and digits and the letterlike
 *    symbols that fill their block's gaps (the Kelvin sign, a script
 *    l, a Planck h), Roman numerals, the Lisu letters (each drawn as a
 *    Latin capital), the IPA letters drawn as a, g, i, j, l, and the
 *    small capitals drawn as c, o, s, u, v, w, z (script_of() took
 *    them for no script's: "g<U+1D0F><U+1D0F>gle" passed);
 *  - letters of two of the scripts whose letters look like Latin ones
 *    (Latin, Greek, Cyrillic, Armenian, Cherokee, fullwidth Latin
 *    letters and digits) in one word: ".g<U+0456>t", "c<U+043E>nfig";
 *  - a run of letters all of one of those other scripts and each the
 *    look-alike of an ASCII letter: "<U+0455><U+0455><U+04BB>" reads
 *    as "ssh".  A run is a word, or the part of one between punctuation
 *    beyond ASCII (U+2010 for '-', U+02BC for '\'', a middle dot): with
 *    U+2010 for its hyphen, "<U+0455><U+0455><U+04BB>-<U+043A>..." (a
 *    Cyrillic "ssh-key") passed as one Cyrillic word with a letter of
 *    its own.
 * A word wholly in one script with letters of its own, such as Cyrillic
 * "<U+043E><U+0442><U+0447><U+0451><U+0442>" (in "<...>.pdf" too), Greek
 * or CJK, is taken, and so is a Latin one with accents
 * ("caf<U+00E9>"), or dotless i ("k<U+0131>rm<U+0131>z<U+0131>").
 */
#ifndef AIRLOCK_LOOKALIKE_H
#define AIRLOCK_LOOKALIKE_H

#include <stddef.h>

enum lookalike_why {
	LOOKALIKE_FORM = 1, /* ASCII in another form, anywhere */
	LOOKALIKE_MIXED, /* scripts mixed in one word */
	LOOKALIKE_WHOLE /* a word of look-alikes only */
};

struct lookalike {
	enum lookalike_why why;
	unsigned long cp; /* the character refused */
	char ascii; /* the ASCII character it reads as, or 0 */
	const char *name; /* its Unicode name, or a description */
	size_t index; /* its place in the string, from 0, in characters */
	const char *among; /* LOOKALIKE_MIXED: "Latin letters", ... */
};

/*
 * Returns 0 if the UTF-8 path |s| (|len| bytes) holds no look-alike;
 * else 1 with *out describing the first one refused.  *out is cleared
 * first.
 */
int lookalike_path(const char *s, size_t len, struct lookalike *out);

/*
 * Whether |cp| is ASCII in another form, refused (and marked by vis)
 * wherever it stands: the first kind above.
 */
int lookalike_form(unsigned long cp);

/*
 * Whether |cp| is a letter of one of the scripts, other than Latin, whose
 * letters pass for Latin ones (Greek, Cyrillic, Armenian, Cherokee,
 * fullwidth Latin): in a word lookalike_path() refuses, vis marks each.
 */
int lookalike_foreign(unsigned long cp);

/*
 * Writes to |buf| (|size| bytes) |s| with each look-alike character of
 * the table replaced by the ASCII one it reads as: what a reader sees.
 */
void lookalike_reads_as(const char *s, size_t len, char *buf, size_t size);

#endif
