/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * lookalike: see lookalike.h.  The one table of look-alikes: the
 * manifest's paths are refused by it, and vis (common/vis.c) marks by it
 * what a person is shown.  The tables hold the letters of Unicode's
 * confusables (UTS #39) that are drawn as an ASCII letter in the scripts
 * a reader takes for Latin (a subset: each one a reader cannot tell from
 * its ASCII letter in a usual font), and the forms of '/', '.', '*',
 * '?', '[', ']' and the backslash that a reader takes for path and glob
 * syntax.  A word's letters are judged once it ends, so a look-alike is
 * named whichever side of the Latin letters it stands.
 */
#include "config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/lookalike.h"

struct glyph {
	unsigned long cp;
	char ascii;
	const char *name;
};

/* Letters of Greek, Cyrillic, Armenian and Cherokee drawn as ASCII ones.
 * Both tables are sorted by code point: find() searches them. */
static const struct glyph letters[] = {
	{ 0x037F, 'J', "GREEK CAPITAL LETTER YOT" },
	{ 0x0391, 'A', "GREEK CAPITAL LETTER ALPHA" },
	{ 0x0392, 'B', "GREEK CAPITAL LETTER BETA" },
	{ 0x0395, 'E', "GREEK CAPITAL LETTER EPSILON" },
	{ 0x0396, 'Z', "GREEK CAPITAL LETTER ZETA" },
	{ 0x0397, 'H', "GREEK CAPITAL LETTER ETA" },
	{ 0x0399, 'I', "GREEK CAPITAL LETTER IOTA" },
	{ 0x039A, 'K', "GREEK CAPITAL LETTER KAPPA" },
	{ 0x039C, 'M', "GREEK CAPITAL LETTER MU" },
	{ 0x039D, 'N', "GREEK CAPITAL LETTER NU" },
	{ 0x039F, 'O', "GREEK CAPITAL LETTER OMICRON" },
	{ 0x03A1, 'P', "GREEK CAPITAL LETTER RHO" },
	{ 0x03A4, 'T', "GREEK CAPITAL LETTER TAU" },
	{ 0x03A5, 'Y', "GREEK CAPITAL LETTER UPSILON" },
	{ 0x03A7, 'X', "GREEK CAPITAL LETTER CHI" },
	{ 0x03B1, 'a', "GREEK SMALL LETTER ALPHA" },
	{ 0x03B9, 'i', "GREEK SMALL LETTER IOTA" },
	{ 0x03BA, 'k', "GREEK SMALL LETTER KAPPA" },
	{ 0x03BD, 'v', "GREEK SMALL LETTER NU" },
	{ 0x03BF, 'o', "GREEK SMALL LETTER OMICRON" },
	{ 0x03C1, 'p', "GREEK SMALL LETTER RHO" },
	{ 0x03C5, 'u', "GREEK SMALL LETTER UPSILON" },
	{ 0x03C7, 'x', "GREEK SMALL LETTER CHI" },
	{ 0x03F2, 'c', "GREEK LUNATE SIGMA SYMBOL" },
	{ 0x03F3, 'j', "GREEK LETTER YOT" },
	{ 0x03F9, 'C', "GREEK CAPITAL LUNATE SIGMA SYMBOL" },
	{ 0x0405, 'S', "CYRILLIC CAPITAL LETTER DZE" },
	{ 0x0406, 'I', "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I" },
	{ 0x0408, 'J', "CYRILLIC CAPITAL LETTER JE" },
	{ 0x0410, 'A', "CYRILLIC CAPITAL LETTER A" },
	{ 0x0412, 'B', "CYRILLIC CAPITAL LETTER VE" },
	{ 0x0415, 'E', "CYRILLIC CAPITAL LETTER IE" },
	{ 0x041A, 'K', "CYRILLIC CAPITAL LETTER KA" },
	{ 0x041C, 'M', "CYRILLIC CAPITAL LETTER EM" },
	{ 0x041D, 'H', "CYRILLIC CAPITAL LETTER EN" },
	{ 0x041E, 'O', "CYRILLIC CAPITAL LETTER O" },
	{ 0x0420, 'P', "CYRILLIC CAPITAL LETTER ER" },
	{ 0x0421, 'C', "CYRILLIC CAPITAL LETTER ES" },
	{ 0x0422, 'T', "CYRILLIC CAPITAL LETTER TE" },
	{ 0x0425, 'X', "CYRILLIC CAPITAL LETTER HA" },
	{ 0x0430, 'a', "CYRILLIC SMALL LETTER A" },
	{ 0x0435, 'e', "CYRILLIC SMALL LETTER IE" },
	{ 0x043E, 'o', "CYRILLIC SMALL LETTER O" },
	{ 0x0440, 'p', "CYRILLIC SMALL LETTER ER" },
	{ 0x0441, 'c', "CYRILLIC SMALL LETTER ES" },
	{ 0x0443, 'y', "CYRILLIC SMALL LETTER U" },
	{ 0x0445, 'x', "CYRILLIC SMALL LETTER HA" },
	{ 0x0455, 's', "CYRILLIC SMALL LETTER DZE" },
	{ 0x0456, 'i', "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I" },
	{ 0x0458, 'j', "CYRILLIC SMALL LETTER JE" },
	{ 0x0474, 'V', "CYRILLIC CAPITAL LETTER IZHITSA" },
	{ 0x0475, 'v', "CYRILLIC SMALL LETTER IZHITSA" },
	{ 0x04AE, 'Y', "CYRILLIC CAPITAL LETTER STRAIGHT U" },
	{ 0x04BB, 'h', "CYRILLIC SMALL LETTER SHHA" },
	{ 0x04C0, 'I', "CYRILLIC LETTER PALOCHKA" },
	{ 0x04CF, 'l', "CYRILLIC SMALL LETTER PALOCHKA" },
	{ 0x0501, 'd', "CYRILLIC SMALL LETTER KOMI DE" },
	{ 0x051A, 'Q', "CYRILLIC CAPITAL LETTER QA" },
	{ 0x051B, 'q', "CYRILLIC SMALL LETTER QA" },
	{ 0x051C, 'W', "CYRILLIC CAPITAL LETTER WE" },
	{ 0x051D, 'w', "CYRILLIC SMALL LETTER WE" },
	{ 0x0566, 'q', "ARMENIAN SMALL LETTER ZA" },
	{ 0x0570, 'h', "ARMENIAN SMALL LETTER HO" },
	{ 0x0578, 'n', "ARMENIAN SMALL LETTER VO" },
	{ 0x057D, 'u', "ARMENIAN SMALL LETTER SEH" },
	{ 0x0581, 'g', "ARMENIAN SMALL LETTER CO" },
	{ 0x0585, 'o', "ARMENIAN SMALL LETTER OH" },
	{ 0x13A2, 'T', "CHEROKEE LETTER I" },
	{ 0x13AA, 'A', "CHEROKEE LETTER GO" },
	{ 0x13AB, 'J', "CHEROKEE LETTER GU" },
	{ 0x13AC, 'E', "CHEROKEE LETTER GV" },
	{ 0x13B3, 'W', "CHEROKEE LETTER LA" },
	{ 0x13B7, 'M', "CHEROKEE LETTER LU" },
	{ 0x13BB, 'H', "CHEROKEE LETTER MI" },
	{ 0x13C0, 'G', "CHEROKEE LETTER NAH" },
	{ 0x13C3, 'Z', "CHEROKEE LETTER NO" },
	{ 0x13D9, 'V', "CHEROKEE LETTER DO" },
	{ 0x13DA, 'S', "CHEROKEE LETTER DU" },
	{ 0x13DE, 'L', "CHEROKEE LETTER TLE" },
	{ 0x13DF, 'C', "CHEROKEE LETTER TLI" },
	{ 0x13E2, 'P', "CHEROKEE LETTER TLV" },
	{ 0x13E6, 'K', "CHEROKEE LETTER TSO" },
	{ 0x13F4, 'B', "CHEROKEE LETTER YV" },
};

/* ASCII in another form: refused wherever it stands. */
static const struct glyph forms[] = {
	{ 0x01C0, 'l', "LATIN LETTER DENTAL CLICK" },
	{ 0x0237, 'j', "LATIN SMALL LETTER DOTLESS J" },
	{ 0x0251, 'a', "LATIN SMALL LETTER ALPHA" },
	{ 0x0261, 'g', "LATIN SMALL LETTER SCRIPT G" },
	{ 0x0269, 'i', "LATIN SMALL LETTER IOTA" },
	{ 0x1D04, 'c', "LATIN LETTER SMALL CAPITAL C" },
	{ 0x1D0F, 'o', "LATIN LETTER SMALL CAPITAL O" },
	{ 0x1D1C, 'u', "LATIN LETTER SMALL CAPITAL U" },
	{ 0x1D20, 'v', "LATIN LETTER SMALL CAPITAL V" },
	{ 0x1D21, 'w', "LATIN LETTER SMALL CAPITAL W" },
	{ 0x1D22, 'z', "LATIN LETTER SMALL CAPITAL Z" },
	{ 0x2024, '.', "ONE DOT LEADER" },
	{ 0x2044, '/', "FRACTION SLASH" },
	{ 0x204E, '*', "LOW ASTERISK" },
	{ 0x2102, 'C', "DOUBLE-STRUCK CAPITAL C" },
	{ 0x210A, 'g', "SCRIPT SMALL G" },
	{ 0x210B, 'H', "SCRIPT CAPITAL H" },
	{ 0x210C, 'H', "BLACK-LETTER CAPITAL H" },
	{ 0x210D, 'H', "DOUBLE-STRUCK CAPITAL H" },
	{ 0x210E, 'h', "PLANCK CONSTANT" },
	{ 0x2110, 'I', "SCRIPT CAPITAL I" },
	{ 0x2111, 'I', "BLACK-LETTER CAPITAL I" },
	{ 0x2112, 'L', "SCRIPT CAPITAL L" },
	{ 0x2113, 'l', "SCRIPT SMALL L" },
	{ 0x2115, 'N', "DOUBLE-STRUCK CAPITAL N" },
	{ 0x2119, 'P', "DOUBLE-STRUCK CAPITAL P" },
	{ 0x211A, 'Q', "DOUBLE-STRUCK CAPITAL Q" },
	{ 0x211B, 'R', "SCRIPT CAPITAL R" },
	{ 0x211C, 'R', "BLACK-LETTER CAPITAL R" },
	{ 0x211D, 'R', "DOUBLE-STRUCK CAPITAL R" },
	{ 0x2124, 'Z', "DOUBLE-STRUCK CAPITAL Z" },
	{ 0x2128, 'Z', "BLACK-LETTER CAPITAL Z" },
	{ 0x212A, 'K', "KELVIN SIGN" },
	{ 0x212C, 'B', "SCRIPT CAPITAL B" },
	{ 0x212D, 'C', "BLACK-LETTER CAPITAL C" },
	{ 0x212F, 'e', "SCRIPT SMALL E" },
	{ 0x2130, 'E', "SCRIPT CAPITAL E" },
	{ 0x2131, 'F', "SCRIPT CAPITAL F" },
	{ 0x2133, 'M', "SCRIPT CAPITAL M" },
	{ 0x2134, 'o', "SCRIPT SMALL O" },
	{ 0x2139, 'i', "INFORMATION SOURCE" },
	{ 0x2145, 'D', "DOUBLE-STRUCK ITALIC CAPITAL D" },
	{ 0x2146, 'd', "DOUBLE-STRUCK ITALIC SMALL D" },
	{ 0x2147, 'e', "DOUBLE-STRUCK ITALIC SMALL E" },
	{ 0x2148, 'i', "DOUBLE-STRUCK ITALIC SMALL I" },
	{ 0x2149, 'j', "DOUBLE-STRUCK ITALIC SMALL J" },
	{ 0x2160, 'I', "ROMAN NUMERAL ONE" },
	{ 0x2164, 'V', "ROMAN NUMERAL FIVE" },
	{ 0x2169, 'X', "ROMAN NUMERAL TEN" },
	{ 0x216C, 'L', "ROMAN NUMERAL FIFTY" },
	{ 0x216D, 'C', "ROMAN NUMERAL ONE HUNDRED" },
	{ 0x216E, 'D', "ROMAN NUMERAL FIVE HUNDRED" },
	{ 0x216F, 'M', "ROMAN NUMERAL ONE THOUSAND" },
	{ 0x2170, 'i', "SMALL ROMAN NUMERAL ONE" },
	{ 0x2174, 'v', "SMALL ROMAN NUMERAL FIVE" },
	{ 0x2179, 'x', "SMALL ROMAN NUMERAL TEN" },
	{ 0x217C, 'l', "SMALL ROMAN NUMERAL FIFTY" },
	{ 0x217D, 'c', "SMALL ROMAN NUMERAL ONE HUNDRED" },
	{ 0x217E, 'd', "SMALL ROMAN NUMERAL FIVE HUNDRED" },
	{ 0x217F, 'm', "SMALL ROMAN NUMERAL ONE THOUSAND" },
	{ 0x2215, '/', "DIVISION SLASH" },
	{ 0x2216, '\\', "SET MINUS" },
	{ 0x2217, '*', "ASTERISK OPERATOR" },
	{ 0x2571, '/',
	    "BOX DRAWINGS LIGHT DIAGONAL UPPER RIGHT TO LOWER LEFT" },
	{ 0x29F8, '/', "BIG SOLIDUS" },
	{ 0x29F9, '\\', "BIG REVERSE SOLIDUS" },
	{ 0xA731, 's', "LATIN LETTER SMALL CAPITAL S" },
	{ 0xFE52, '.', "SMALL FULL STOP" },
	{ 0xFE56, '?', "SMALL QUESTION MARK" },
	{ 0xFE61, '*', "SMALL ASTERISK" },
	{ 0xFE68, '\\', "SMALL REVERSE SOLIDUS" },
	{ 0xFF0A, '*', "FULLWIDTH ASTERISK" },
	{ 0xFF0E, '.', "FULLWIDTH FULL STOP" },
	{ 0xFF0F, '/', "FULLWIDTH SOLIDUS" },
	{ 0xFF1F, '?', "FULLWIDTH QUESTION MARK" },
	{ 0xFF3B, '[', "FULLWIDTH LEFT SQUARE BRACKET" },
	{ 0xFF3C, '\\', "FULLWIDTH REVERSE SOLIDUS" },
	{ 0xFF3D, ']', "FULLWIDTH RIGHT SQUARE BRACKET" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The scripts whose letters pass for Latin ones; bits of a mask. */
enum script {
	SC_NONE = 0, /* not a letter: digits, punctuation, marks */
	SC_LATIN = 1,
	SC_GREEK = 2,
	SC_CYRILLIC = 4,
	SC_ARMENIAN = 8,
	SC_CHEROKEE = 16,
	SC_FULLWIDTH = 32, /* fullwidth Latin letters */
	SC_OTHER = 64 /* any other: CJK, Arabic, Hebrew, symbols, ... */
};
#define SC_SLOTS 7

static const char *const script_letters[SC_SLOTS] = { "Latin letters",
	"Greek letters", "Cyrillic letters", "Armenian letters",
	"Cherokee letters", "fullwidth Latin letters", "letters" };

static const char *const script_letter[SC_SLOTS] = { "a Latin letter",
	"a Greek letter", "a Cyrillic letter", "an Armenian letter",
	"a Cherokee letter", "a fullwidth Latin letter", "a letter" };

/*
 * Punctuation and symbols beyond ASCII, and the spacing modifier
 * letters drawn as them (U+02BC drawn as "'", U+02D7 as '-'): not
 * letters of any script.  They do not end a word (the manifest's word
 * ends at ASCII punctuation: "config<U+00B7><Cyrillic key>" mixes two
 * scripts), but they end a run of letters judged whole: with U+2010
 * for its hyphen, "<Cyrillic ssh>-<Cyrillic key>" passed as one
 * Cyrillic word with a letter of its own, where with '-' its "ssh" was
 * refused.
 */
static int
punctuation(unsigned long cp)
{
	return (cp >= 0x80 && cp < 0xc0) || cp == 0xd7 || cp == 0xf7 ||
	    (cp >= 0x2b0 && cp <= 0x2ff) || (cp >= 0x2000 && cp <= 0x2bff) ||
	    (cp >= 0x3000 && cp <= 0x303f) || (cp >= 0xa700 && cp <= 0xa721) ||
	    (cp >= 0xa788 && cp <= 0xa78a) || (cp >= 0xfe10 && cp <= 0xfe6f) ||
	    (cp >= 0xff00 && cp <= 0xff0f) || (cp >= 0xff1a && cp <= 0xff20) ||
	    (cp >= 0xff3b && cp <= 0xff40) || (cp >= 0xff5b && cp <= 0xff65) ||
	    cp == 0x0589 || cp == 0x05c3 || cp == 0x055a || cp == 0x055b ||
	    cp == 0x055c || cp == 0x055d || cp == 0x055e || cp == 0x055f;
}

static enum script
script_of(unsigned long cp)
{
	if (cp < 0x80)
		return ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') ? SC_LATIN
								  : SC_NONE;
	if (punctuation(cp) || (cp >= 0x300 && cp <= 0x36f))
		return SC_NONE;
	if (cp <= 0x2af || (cp >= 0x1e00 && cp <= 0x1eff))
		return SC_LATIN;
	if ((cp >= 0x370 && cp <= 0x3ff) || (cp >= 0x1f00 && cp <= 0x1fff))
		return SC_GREEK;
	if ((cp >= 0x400 && cp <= 0x52f) || (cp >= 0x1c80 && cp <= 0x1c8f) ||
	    (cp >= 0x2de0 && cp <= 0x2dff) || (cp >= 0xa640 && cp <= 0xa69f))
		return SC_CYRILLIC;
	if (cp >= 0x531 && cp <= 0x58f)
		return SC_ARMENIAN;
	if ((cp >= 0x13a0 && cp <= 0x13ff) || (cp >= 0xab70 && cp <= 0xabbf))
		return SC_CHEROKEE;
	/* Fullwidth digits too: "log\uFF11" is Latin and fullwidth in one
	 * word, "\uFF11\uFF12" a word of look-alikes only. */
	if ((cp >= 0xff21 && cp <= 0xff3a) || (cp >= 0xff41 && cp <= 0xff5a) ||
	    (cp >= 0xff10 && cp <= 0xff19))
		return SC_FULLWIDTH;
	return SC_OTHER;
}

static int
slot(enum script s)
{
	int i;

	for (i = 0; i < SC_SLOTS; i++)
		if ((unsigned)s == 1U << i)
			return i;
	return 0;
}

static const struct glyph *
find(const struct glyph *t, size_t n, unsigned long cp)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t[mid].cp == cp)
			return &t[mid];
		if (t[mid].cp < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The character at |s| (|len| bytes left) into *cp; returns its length.
 * The manifest is UTF-8 (libyaml checked it); a stray byte is itself.
 */
static size_t
decode(const unsigned char *s, size_t len, unsigned long *cp)
{
	size_t nb, k;

	nb = s[0] < 0x80   ? 1
	    : s[0] >= 0xf0 ? 4
	    : s[0] >= 0xe0 ? 3
	    : s[0] >= 0xc0 ? 2
			   : 1;
	if (nb > len)
		nb = 1;
	*cp = nb == 1 ? s[0] : s[0] & (0x7f >> nb);
	for (k = 1; k < nb; k++)
		*cp = *cp << 6 | (s[k] & 0x3f);
	return nb;
}

/* A form refused anywhere: the table's, and ranges of whole blocks. */
static int
form_of(unsigned long cp, struct lookalike *out)
{
	const struct glyph *g;

	if ((g = find(forms, NELEM(forms), cp)) != NULL) {
		out->ascii = g->ascii;
		out->name = g->name;
		return 1;
	}
	if (cp >= 0x1d400 && cp <= 0x1d7ff) {
		out->name = "a mathematical letter or digit";
		return 1;
	}
	if (cp >= 0x2160 && cp <= 0x2188) {
		out->name = "a Roman numeral";
		return 1;
	}
	if (cp >= 0xa4d0 && cp <= 0xa4f7) {
		out->name = "a Lisu letter, drawn as a Latin capital";
		return 1;
	}
	return 0;
}

int
lookalike_form(unsigned long cp)
{
	struct lookalike f;

	return form_of(cp, &f);
}

int
lookalike_foreign(unsigned long cp)
{
	enum script sc = script_of(cp);

	return sc != SC_NONE && sc != SC_LATIN && sc != SC_OTHER;
}

/* What a letter of |sc| reads as, or 0 if it looks like no ASCII one. */
static char
letter_ascii(unsigned long cp, enum script sc, const char **name)
{
	const struct glyph *g;

	*name = NULL;
	if (sc == SC_FULLWIDTH)
		return (char)(cp - 0xfee0);
	if ((g = find(letters, NELEM(letters), cp)) == NULL)
		return 0;
	*name = g->name;
	return g->ascii;
}

/* The first letter of one word, per script. */
struct first {
	unsigned long cp;
	size_t index;
	int set;
};

static void
report(struct lookalike *out, enum lookalike_why why, unsigned long cp,
    size_t index)
{
	enum script sc = script_of(cp);
	const char *name;

	out->why = why;
	out->cp = cp;
	out->index = index;
	out->ascii = letter_ascii(cp, sc, &name);
	out->name = name != NULL ? name : script_letter[slot(sc)];
}

/*
 * The letter to name in a word of two scripts: the first that is
 * not Latin (with Latin there), else the first not of the first script.
 */
static const struct first *
mixed_letter(const struct first *first, unsigned conf, int first_conf)
{
	const struct first *best = NULL;
	int keep = (conf & SC_LATIN) != 0 ? 0 : first_conf, k;

	for (k = 0; k < SC_SLOTS - 1; k++)
		if (k != keep && first[k].set &&
		    (best == NULL || first[k].index < best->index))
			best = &first[k];
	return best;
}

/*
 * Whether a run of letters (mask |mask|, |alike| when each of its
 * letters of another script is a look-alike) is all look-alikes of one
 * script that passes for Latin.
 */
static int
whole_lookalike(unsigned mask, int alike)
{
	unsigned conf = mask & ~(unsigned)SC_OTHER;

	return conf != 0 && conf != SC_LATIN && (conf & (conf - 1)) == 0 &&
	    (mask & SC_OTHER) == 0 && alike;
}

int
lookalike_path(const char *s, size_t len, struct lookalike *out)
{
	const unsigned char *u = (const unsigned char *)s;
	const struct first *f;
	struct first first[SC_SLOTS], run_first;
	unsigned long cp;
	unsigned mask = 0, run_mask = 0, conf;
	size_t i = 0, nb, index = 0;
	int first_conf = -1, run_alike = 1, word_end, k;
	enum script sc;
	const char *name;

	memset(out, 0, sizeof(*out));
	memset(first, 0, sizeof(first));
	memset(&run_first, 0, sizeof(run_first));
	for (;;) {
		cp = '/';
		nb = 1;
		if (i < len)
			nb = decode(u + i, len - i, &cp);
		word_end = cp < 0x80 && !isalnum((int)cp);
		if (word_end || (!form_of(cp, out) && punctuation(cp))) {
			/* A word ends: its letters, all at once. */
			conf = mask & ~(unsigned)SC_OTHER;
			if (word_end && (conf & (conf - 1)) != 0) {
				f = mixed_letter(first, conf, first_conf);
				report(out, LOOKALIKE_MIXED, f->cp, f->index);
				out->among =
				    script_letters[(conf & SC_LATIN) != 0
					    ? 0
					    : first_conf];
				return 1;
			}
			/* A run of its letters ends, at punctuation too. */
			if (whole_lookalike(run_mask, run_alike)) {
				report(out, LOOKALIKE_WHOLE, run_first.cp,
				    run_first.index);
				return 1;
			}
			run_mask = 0;
			run_alike = 1;
			memset(&run_first, 0, sizeof(run_first));
			if (word_end) {
				if (i >= len)
					return 0;
				mask = 0;
				first_conf = -1;
				memset(first, 0, sizeof(first));
			}
		} else if (form_of(cp, out)) {
			out->why = LOOKALIKE_FORM;
			out->cp = cp;
			out->index = index;
			return 1;
		} else if ((sc = script_of(cp)) != SC_NONE) {
			k = slot(sc);
			if (!first[k].set) {
				first[k].set = 1;
				first[k].cp = cp;
				first[k].index = index;
			}
			if (first_conf < 0 && sc != SC_OTHER)
				first_conf = k;
			mask |= (unsigned)sc;
			if (!run_first.set && sc != SC_OTHER &&
			    sc != SC_LATIN) {
				run_first.set = 1;
				run_first.cp = cp;
				run_first.index = index;
			}
			run_mask |= (unsigned)sc;
			if (sc != SC_LATIN && sc != SC_OTHER &&
			    letter_ascii(cp, sc, &name) == 0)
				run_alike = 0;
		}
		i += nb;
		index++;
	}
}

void
lookalike_reads_as(const char *s, size_t len, char *buf, size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	struct lookalike f;
	unsigned long cp;
	size_t i, nb, o = 0;
	const char *name;
	char a;

	if (size == 0)
		return;
	for (i = 0; i < len; i += nb) {
		nb = decode(u + i, len - i, &cp);
		memset(&f, 0, sizeof(f));
		if (!form_of(cp, &f) || (a = f.ascii) == 0)
			a = letter_ascii(cp, script_of(cp), &name);
		if (a != 0) {
			if (o + 1 >= size)
				break;
			buf[o++] = a;
		} else {
			if (o + nb >= size)
				break;
			memcpy(buf + o, s + i, nb);
			o += nb;
		}
	}
	buf[o] = '\0';
}
