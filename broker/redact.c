/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * redact: secret values and their common encodings become
 * "[REDACTED:NAME]".  Every derived form lives in one sodium_malloc'd
 * block per secret, so it sits behind guard pages and is wiped on free.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/errors.h"
#include "broker/redact.h"

#define REDACT_MAX_SECRETS	1024
#define REDACT_MAX_DEPTH	256

struct redact_form {
	const unsigned char	*p;
	size_t			 len;
	size_t			 secret;	/* index into secrets */
	int			 wrap;		/* FORM_LINES, FORM_DUMP */
};

#define FORM_LINES	0x1	/* may be broken into lines */
#define FORM_DUMP	0x2	/* hex: may be laid out as a hex dump */
#define FORM_CHARS	0x4	/* od -c's fields: may change lines */
#define FORM_UNDER	0x8	/* ... past a line under each (DUMP_UNDER) */
#define FORM_SED	0x10	/* may be broken by "\\" and a line break */
#define FORM_DEC	0x20	/* decimal: a dump's gap at each "," (dec_gap()) */
#define FORM_WIDE	0x40	/* ... its numbers zero-padded to DEC_WIDE */
#define FORM_BITS	0x80	/* bits: may be laid out as xxd -b does */
#define FORM_QP		0x100	/* may be broken by "=" and a line break */
#define FORM_SPACED	0x200	/* radix text: " ", "-" or "\\n" between 2 */
#define FORM_INDENT	0x400	/* its lines may be indented (LINE_INDENT) */

/*
 * A value of several lines (a PEM key) printed in an indented block
 * (a YAML block scalar: "key: |" and each line 4 spaces in), and a
 * radix text's lines so (base64 | sed 's/^/    /'): up to LINE_INDENT
 * blanks after each line break.
 */
#define LINE_INDENT	16

/*
 * A hex dump (xxd, hexdump -C, od -t x1, bytes.hex(":")): between two
 * bytes at most DUMP_SEP of " ", ":", "-" or "," (hexdump -e '/1
 * "%02x,"', hexdump -x's 4 spaces between words); or a C array's or an
 * escaped string's prefix ("0x", "0X" or "\\x", xxd -i), after an
 * optional "," and up to 2 spaces or a line break and up to DUMP_INDENT
 * blanks; or a change of line: the rest of the line (separators, the
 * ASCII column) in printable bytes, a line break, the next line's
 * offset (up to OFF_DIGITS hex digits), ":" and up to 4 spaces after it
 * (hexdump -x) in at most DUMP_OFF.  The rest of a line is at most
 * DUMP_COL bytes on the
 * match's first line (xxd -c 256 and od -t x1z -w256 end a line with
 * 258 and 260; xxd takes no more than 256), and on a later one the bytes the match took on it and
 * DUMP_PAD (a line there is the secret's alone, its ASCII column as
 * wide as it: xxd -c 4 changes lines every 4 bytes).  A match that
 * changed lines takes the rest of its last line too, at most DUMP_REST
 * printable bytes (a line of 256 bytes, od -t x1z -w256's 1025 past
 * its first byte): its ASCII column shows the secret's tail.  Where a
 * line's ASCII column begins with the hex digit the match needs, both
 * the separators and the change of line may be right: a match tries the
 * change of line first, at most DUMP_FORKS times (the secret's hex had
 * been given out whole when the separators were taken).
 */
#define DUMP_SEP	4
#define COL_SEP		2	/* separators before an ASCII column */
#define OFF_DIGITS	12	/* a line's offset: hex digits */
#define DUMP_INDENT	6
/* A C array's or escaped string's gap: ",\r\n", blanks, "\\u00" at most. */
#define DUMP_PREFIX	(1 + 2 + DUMP_INDENT + 4)
#define DUMP_COL	264
#define DUMP_PAD	8
#define DUMP_OFF	(OFF_DIGITS + 1 + 4)
#define DUMP_REST	1040
#define DUMP_FORKS	64	/* ways a match of a form may try */
/*
 * od -t x1 -c prints a line of characters under each line of hex, and
 * od -c -t x1 a line of hex under each of characters: a change of line
 * of the hex form (not its words) or od -c's, od -a's or od -b's fields
 * (FORM_UNDER) may pass one such line, at most DUMP_UNDER bytes on
 * the match's first line (od -t x1 -c -w64's 263; a wider line's
 * would lengthen every held-back tail by 3 bytes a byte) and on a later
 * one, when the match took UNDER_MIN bytes or more on it, DUMP_OFF and
 * 4 more than 4 for each (od's fields are 4 columns wide).  A match
 * that passed one takes the
 * rest of its last line (at most DUMP_UNDER bytes, or DUMP_REST past
 * an ASCII column) and the line under it too: it shows the secret's
 * tail.  Each byte of these bounds is a byte of every running job's
 * held-back tail (redact_longest()).
 */
#define DUMP_UNDER	272
#define UNDER_MIN	4

struct redact_secret {
	char		 tag[REDACT_MAX_NAME + 16];	/* "[REDACTED:NAME]" */
	size_t		 taglen;
	unsigned char	*block;		/* sodium_malloc: all forms */
	size_t		 used, cap;
	size_t		 vlen;		/* the raw value: block[0..vlen) */
};

struct redact {
	struct redact_secret	*secrets;
	size_t			 nsecrets;
	struct redact_form	*forms;	/* by first 2 bytes, longest first */
	size_t			 nforms;
	size_t			 start[257];	/* forms[start[c]..start[c+1]) begin with c */
	/* forms[by_pair[k]..by_pair[k + 1]) begin with c0, c1: k = c0 << 8 | c1 */
	uint32_t		 by_pair[256 * 256 + 1];
	uint64_t		 pairs[256 * 4];	/* pair_may() */
	/* A radix text's bytes 0 and 1, a separator between: pair_may(). */
	uint64_t		 spaced[256 * 4];
	/* pairs, and a radix text's byte 0 and a separator: pair_may(). */
	uint64_t		 gate[256 * 4];
	int			 dec_short;	/* a decimal form begins "N," */
};

struct redact *
redact_new(void)
{
	if (sodium_init() < 0)
		return NULL;
	return calloc(1, sizeof(struct redact));
}

void
redact_free(struct redact *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nsecrets; i++)
		sodium_free(r->secrets[i].block);	/* wipes */
	free(r->secrets);
	free(r->forms);
	free(r);
}

int
redact_grantable(size_t len)
{
	return len >= REDACT_MIN_LEN && len <= REDACT_MAX_LEN;
}

size_t
redact_count(const struct redact *r)
{
	return r == NULL ? 0 : r->nsecrets;
}

int
redact_holds(const struct redact *r, const char *name, const void *value,
    size_t len)
{
	const struct redact_secret *s;
	size_t i, nl = strlen(name);

	for (i = 0; r != NULL && i < r->nsecrets; i++) {
		s = &r->secrets[i];
		/* The tag is "[REDACTED:" NAME "]". */
		if (s->taglen != nl + 11 || memcmp(s->tag + 10, name, nl) != 0)
			continue;
		if (s->vlen == len && sodium_memcmp(s->block, value, len) == 0)
			return 1;
	}
	return 0;
}

static int
name_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > REDACT_MAX_NAME)
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

/* Reserves |n| bytes in the secret's block; the caller fills them. */
static unsigned char *
form_reserve(struct redact_secret *s, size_t n)
{
	unsigned char *p;

	if (s->cap - s->used < n)
		return NULL;
	p = s->block + s->used;
	return p;
}

/*
 * Commits the |n| bytes at the end of the block as a form, unless an
 * identical form of the same secret is already there (e.g. base64url
 * equals base64 when neither '+' nor '/' occurs).  A |wrap| form (hex,
 * base64) also matches with a line break between two of its characters:
 * base64(1) breaks its lines at 76 columns, xxd -p at 60.
 */
static int
form_commit_wrap(struct redact *r, size_t si, size_t n, int wrap)
{
	struct redact_secret *s = &r->secrets[si];
	const unsigned char *p = s->block + s->used;
	struct redact_form *nf;
	size_t i;

	if (n == 0)
		return 0;
	/*
	 * The secret's forms are the last ones until redact_add() sorts
	 * them: only they are looked at (all of them were, and 256 secrets
	 * took 0.65 s to add).
	 */
	for (i = r->nforms; i-- > 0 && r->forms[i].secret == si; )
		if (r->forms[i].len == n &&
		    memcmp(r->forms[i].p, p, n) == 0) {
			r->forms[i].wrap |= wrap;
			return 0;
		}
	nf = reallocarray(r->forms, r->nforms + 1, sizeof(*nf));
	if (nf == NULL)
		return AL_ERR_ALLOC;
	r->forms = nf;
	r->forms[r->nforms].p = p;
	r->forms[r->nforms].len = n;
	r->forms[r->nforms].secret = si;
	r->forms[r->nforms].wrap = wrap;
	r->nforms++;
	s->used += n;
	return 0;
}

static int
form_commit(struct redact *r, size_t si, size_t n)
{
	return form_commit_wrap(r, si, n, 0);
}

static int
is_unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	    c == '~';
}

/*
 * Percent-encoding; the bytes in |keep| (not NUL) are left as they are:
 * "/" as Python's urllib.parse.quote leaves it (safe="/", for a URL's
 * path), "!'()*" as JavaScript's encodeURIComponent does.
 */
static size_t
percent_encode(unsigned char *dst, const unsigned char *v, size_t len,
    int lower, int plus, const char *keep)
{
	const char *digits = lower ? "0123456789abcdef" : "0123456789ABCDEF";
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (is_unreserved(v[i]) ||
		    (v[i] != '\0' && strchr(keep, v[i]) != NULL))
			dst[o++] = v[i];
		else if (plus && v[i] == ' ')
			dst[o++] = '+';
		else {
			dst[o++] = '%';
			dst[o++] = digits[v[i] >> 4];
			dst[o++] = digits[v[i] & 0xf];
		}
	}
	return o;
}

/* The value's hex, lowercase (it matches uppercase too: hex_eq()). */
static size_t
hex_encode(unsigned char *dst, const unsigned char *v, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		dst[2 * i] = digits[v[i] >> 4];
		dst[2 * i + 1] = digits[v[i] & 0xf];
	}
	return 2 * len;
}

/*
 * The value's hex as a dump of little-endian words of |word| bytes (2:
 * od -x, hexdump; 4: od -t x4, xxd -e; 8: od -t x8) prints it, each
 * word's bytes reversed, when the value begins at byte |off| of a word:
 * "??" stands for the hex of a byte of a word that is not the value's
 * (form_eq() takes any hex digit for it).  The "??" before the value's
 * first byte and after its last are left out: the form begins and ends
 * with a byte of the value.
 */
static size_t
hex_words(unsigned char *dst, const unsigned char *v, size_t len,
    size_t word, size_t off)
{
	static const char digits[] = "0123456789abcdef";
	size_t w, b, o = 0, first = SIZE_MAX, last = 0;

	/* Byte b of the dumped stream is the value's byte b - off. */
	for (w = 0; w < off + len; w += word)
		for (b = w + word; b-- > w; ) {
			if (b < off || b - off >= len) {
				dst[o++] = '?';
				dst[o++] = '?';
				continue;
			}
			if (first == SIZE_MAX)
				first = o;
			dst[o++] = (unsigned char)digits[v[b - off] >> 4];
			dst[o++] = (unsigned char)digits[v[b - off] & 0xf];
			last = o;
		}
	memmove(dst, dst + first, last - first);
	return last - first;
}

/*
 * The value as a hex dump's ASCII column shows it (xxd, hexdump -C,
 * od -t x1z): a byte outside " " to "~" as ".", the dots before its
 * first shown byte and after its last left out.  0 (no form) when it
 * shows every byte as it is (the raw form), or fewer than
 * REDACT_MIN_LEN of them: a column of dots is no secret.
 */
static size_t
ascii_column(unsigned char *dst, const unsigned char *v, size_t len)
{
	size_t i, o = 0, shown = 0, dots = 0, end = 0;

	for (i = 0; i < len; i++) {
		if (v[i] >= 0x20 && v[i] < 0x7f) {
			dst[o++] = v[i];
			end = o;
			shown++;
		} else if (o > 0) {
			dst[o++] = '.';
			dots++;
		} else
			dots++;
	}
	return dots == 0 || shown < REDACT_MIN_LEN ? 0 : end;
}

/* Writes |c| as 3 octal digits (od -b, od -c, \ooo); returns 3. */
static size_t
octal3(unsigned char *dst, unsigned char c)
{
	dst[0] = (unsigned char)('0' + (c >> 6));
	dst[1] = (unsigned char)('0' + ((c >> 3) & 7));
	dst[2] = (unsigned char)('0' + (c & 7));
	return 3;
}

/*
 * Writes the field u[0..w) (w <= 4) right-aligned in 4 columns, as od -c
 * and od -a print a byte, or, for the |first| field of a form, without
 * its padding; returns the bytes written.
 */
static size_t
put_field(unsigned char *dst, const void *u, size_t w, int first)
{
	size_t o = 0;

	if (!first) {
		memset(dst, ' ', 4 - w);
		o = 4 - w;
	}
	memcpy(dst + o, u, w);
	return o + w;
}

/*
 * The value as od -c and hexdump -c print it: each byte in a field of 4
 * columns, right-aligned: a printable byte as it is, NUL, BEL, BS, FF,
 * LF, CR, HT and VT as \0 \a \b \f \n \r \t \v, any other as 3 octal
 * digits.  The first field's padding is left out: the form begins with
 * the value's first byte.  A change of line may stand before a field
 * (FORM_CHARS, chars_line()).
 */
static size_t
char_fields(unsigned char *dst, const unsigned char *v, size_t len)
{
	static const char named[8] = "\0\a\b\f\n\r\t\v", names[] = "0abfnrtv";
	const char *e;
	unsigned char u[3];
	size_t i, w, o = 0;

	for (i = 0; i < len; i++) {
		if (v[i] >= 0x20 && v[i] < 0x7f) {
			u[0] = v[i];
			w = 1;
		} else if ((e = memchr(named, v[i], sizeof(named))) != NULL) {
			u[0] = '\\';
			u[1] = (unsigned char)names[e - named];
			w = 2;
		} else
			w = octal3(u, v[i]);
		o += put_field(dst + o, u, w, i == 0);
	}
	return o;
}

/*
 * The value as od -b prints it: each byte as 3 octal digits, a space
 * between two (a change of line may stand before a space: FORM_CHARS).
 */
static size_t
octal_fields(unsigned char *dst, const unsigned char *v, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (i > 0)
			dst[o++] = ' ';
		o += octal3(dst + o, v[i]);
	}
	return o;
}

/*
 * The value as od -a prints it: each byte, its high bit dropped, in a
 * field of 4 columns, right-aligned: a control byte, the space and DEL
 * by their ASCII names ("nul", "sp", "del"), any other as it is.  The
 * first field's padding is left out, as char_fields() does.
 */
static size_t
named_fields(unsigned char *dst, const unsigned char *v, size_t len)
{
	static const char names[33][4] = { "nul", "soh", "stx", "etx", "eot",
	    "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr", "so", "si",
	    "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em",
	    "sub", "esc", "fs", "gs", "rs", "us", "sp" };
	unsigned char c;
	const char *u;
	size_t i, o = 0;
	char one[2] = { 0, 0 };

	for (i = 0; i < len; i++) {
		c = v[i] & 0x7f;
		if (c <= ' ')
			u = names[c];
		else if (c == 0x7f)
			u = "del";
		else {
			one[0] = (char)c;
			u = one;
		}
		o += put_field(dst + o, u, strlen(u), i == 0);
	}
	return o;
}

/*
 * The value with |sep| after each of its bytes but the last, as
 * `sed 's/./& /g'`, `fold -w 1` or a loop printing a character a line
 * print it.
 */
static size_t
spaced(unsigned char *dst, const unsigned char *v, size_t len,
    unsigned char sep)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (i > 0)
			dst[o++] = sep;
		dst[o++] = v[i];
	}
	return o;
}

/*
 * The value as sed's l command prints it (sed -n l): "\\" doubled, \a
 * \b \f \r \t \v by name, any other byte outside " " to "~" as \ooo, a
 * line break as "$" and the break.  sed breaks a line longer than 69
 * with "\\" and a line break (FORM_SED).
 */
static size_t
sed_l(unsigned char *dst, const unsigned char *v, size_t len)
{
	static const char named[] = "\a\b\f\r\t\v\\", names[] = "abfrtv\\";
	const char *e;
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (v[i] == '\n') {
			dst[o++] = '$';
			dst[o++] = '\n';
		} else if ((e = memchr(named, v[i], sizeof(named) - 1)) !=
		    NULL) {
			dst[o++] = '\\';
			dst[o++] = (unsigned char)names[e - named];
		} else if (v[i] < 0x20 || v[i] > 0x7e) {
			dst[o++] = '\\';
			o += octal3(dst + o, v[i]);
		} else
			dst[o++] = v[i];
	}
	return o;
}

/*
 * The value as quoted-printable (RFC 2045; Python's quopri, Perl's
 * encode_qp) prints it: "=" and each byte outside " " to "~" but a tab
 * as "=" and 2 uppercase hex digits, the others as they are.  Its soft
 * line breaks, "=" and a line break every 76 columns, a match takes
 * (FORM_QP).
 */
static size_t
quoted_printable(unsigned char *dst, const unsigned char *v, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (v[i] == '=' || ((v[i] < 0x20 || v[i] > 0x7e) &&
		    v[i] != '\t')) {
			dst[o++] = '=';
			dst[o++] = (unsigned char)hex[v[i] >> 4];
			dst[o++] = (unsigned char)hex[v[i] & 0xf];
		} else
			dst[o++] = v[i];
	}
	return o;
}

/*
 * The value as cat -v prints it: a control byte as "^" and the byte
 * 0x40 above it ("^A", DEL as "^?"), a byte over 0x7f as "M-" and the
 * same for its low 7 bits; a tab and a line break as they are, or, when
 * |all| (cat -A), as "^I" and as "$" and the break.
 */
static size_t
caret_notation(unsigned char *dst, const unsigned char *v, size_t len,
    int all)
{
	unsigned char c;
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (v[i] == '\n' && all)
			dst[o++] = '$';
		if (v[i] == '\n' || (v[i] == '\t' && !all)) {
			dst[o++] = v[i];
			continue;
		}
		c = v[i] & 0x7f;
		if (v[i] > 0x7f) {
			dst[o++] = 'M';
			dst[o++] = '-';
		}
		if (c < 0x20 || c == 0x7f) {
			dst[o++] = '^';
			c = c == 0x7f ? '?' : (unsigned char)(c + 0x40);
		}
		dst[o++] = c;
	}
	return o;
}

/*
 * The value's bytes in decimal with "," between two (FORM_DEC: a
 * decimal dump's gap matches there, dec_gap()), each byte over 0x7f
 * negative when |sign| (od -t d1, a Java byte[]).
 */
static size_t
decimal_list(unsigned char *dst, const unsigned char *v, size_t len,
    int sign)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++)
		o += (size_t)sprintf((char *)dst + o, "%s%d", i > 0 ? "," : "",
		    sign && v[i] > 0x7f ? v[i] - 256 : v[i]);
	return o;
}

/*
 * The value's bytes in octal with "," between two (FORM_DEC), as
 * hexdump -e '/1 "%o "' prints them (od -b's fields hold them padded).
 */
static size_t
octal_list(unsigned char *dst, const unsigned char *v, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++)
		o += (size_t)sprintf((char *)dst + o, "%s%o", i > 0 ? "," : "",
		    v[i]);
	return o;
}

/* The magnitude of the negative word |x| of |word| bytes (2^(8 word) - x). */
static unsigned long long
word_negated(unsigned long long x, size_t word)
{
	/* No shift by 64: the two's complement of the word's bits. */
	return ((~x) & (~0ULL >> (64 - 8 * word))) + 1;
}

/*
 * The numbers of the little-endian words of |word| (2, 4 or 8) bytes
 * that lie inside the value when it begins at byte |off| of a word,
 * with "," between two (FORM_DEC | FORM_WIDE), as od -t u2 (od -d),
 * od -t d2, od -t u4, od -t d4 (od -i), od -t u8, od -t d8 (od -l) and
 * hexdump -d print them in decimal (|base| 10, negative when |sign| and
 * the top bit is set) and od -o and hexdump -o in octal (8).  The bytes
 * of the words the value shares with its neighbours are no part of it.
 * 0 (no form) when the whole words hold fewer than REDACT_MIN_LEN bytes.
 */
static size_t
word_numbers(unsigned char *dst, const unsigned char *v, size_t len,
    size_t word, size_t off, int base, int sign)
{
	size_t from = (word - off) % word, i, b, o = 0;
	unsigned long long x;

	if (len < from || (len - from) / word * word < REDACT_MIN_LEN)
		return 0;
	for (i = from; i + word <= len; i += word) {
		for (x = 0, b = word; b-- > 0; )
			x = x << 8 | v[i + b];
		if (i > from)
			dst[o++] = ',';
		if (base == 8)
			o += (size_t)sprintf((char *)dst + o, "%llo", x);
		else if (sign && (x >> (8 * word - 1)) != 0)
			o += (size_t)sprintf((char *)dst + o, "-%llu",
			    word_negated(x, word));
		else
			o += (size_t)sprintf((char *)dst + o, "%llu", x);
	}
	return o;
}

/*
 * The value's bits, 8 binary digits a byte, the most significant first
 * (|msb|: basenc --base2msbf) or the least (basenc --base2lsbf).
 */
static size_t
binary_encode(unsigned char *dst, const unsigned char *v, size_t len,
    int msb)
{
	size_t i, b;

	for (i = 0; i < len; i++)
		for (b = 0; b < 8; b++)
			dst[8 * i + b] = (unsigned char)('0' +
			    ((v[i] >> (msb ? 7 - b : b)) & 1));
	return 8 * len;
}

/* The value's bytes in reverse order (rev(1)). */
static size_t
reversed(unsigned char *dst, const unsigned char *v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = v[len - 1 - i];
	return len;
}

/*
 * The value with its ASCII letters all raised (|upper|: tr a-z A-Z) or
 * all lowered (tr A-Z a-z), the other bytes as they are.
 */
static size_t
case_folded(unsigned char *dst, const unsigned char *v, size_t len,
    int upper)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (upper && v[i] >= 'a' && v[i] <= 'z')
			dst[i] = (unsigned char)(v[i] - 0x20);
		else if (!upper && v[i] >= 'A' && v[i] <= 'Z')
			dst[i] = (unsigned char)(v[i] + 0x20);
		else
			dst[i] = v[i];
	return len;
}

/*
 * RFC 4648 base32 of v[0..len) in the alphabet |digits| (32 characters),
 * "=" padded to 8 characters when |pad|: character i holds bits [5i, 5i
 * + 5) of the value.
 */
static size_t
base32_encode(unsigned char *dst, const unsigned char *v, size_t len,
    const char *digits, int pad)
{
	size_t i, b, o = 0, bits = 8 * len;

	for (b = 0; b < bits; b += 5) {
		unsigned int x = 0;

		for (i = b; i < b + 5; i++) {
			x <<= 1;
			if (i < bits)
				x |= (v[i / 8] >> (7 - i % 8)) & 1;
		}
		dst[o++] = (unsigned char)digits[x];
	}
	for (; pad && o % 8 != 0; )
		dst[o++] = '=';
	return o;
}

/*
 * The value with each ASCII letter moved |shift| (1 to 25) places round
 * its case's alphabet, the other bytes as they are: a Caesar shift (13:
 * rot13, tr A-Za-z N-ZA-Mn-za-m; 3: tr a-z d-za-c).
 */
static size_t
letter_shift(unsigned char *dst, const unsigned char *v, size_t len,
    unsigned int shift)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if ((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z'))
			dst[i] = (unsigned char)((v[i] & 0xe0) + ((v[i] & 0x1f) -
			    1 + shift) % 26 + 1);
		else
			dst[i] = v[i];
	}
	return len;
}

/*
 * The value with each byte from "!" to "~" moved |shift| (1 to 93)
 * places round those 94, the other bytes (a space) as they are: rot47
 * (47, tr '!-~' 'P-~!-O').
 */
static size_t
printable_shift(unsigned char *dst, const unsigned char *v, size_t len,
    unsigned int shift)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = v[i] >= '!' && v[i] <= '~' ?
		    (unsigned char)('!' + (v[i] - '!' + shift) % 94) : v[i];
	return len;
}

/*
 * base85 of v[0..len) in the alphabet |digits| (85 characters): each
 * group of 4 bytes, big-endian, as 5 digits, the most significant
 * first; a last group of n < 4 bytes padded with zeros and cut to n + 1
 * digits (Python's base64.b85encode and a85encode, basenc --z85).
 */
static size_t
base85_encode(unsigned char *dst, const unsigned char *v, size_t len,
    const char *digits)
{
	unsigned char g[5];
	uint32_t x;
	size_t i, d, n, o = 0;

	for (i = 0; i < len; i += 4) {
		n = len - i < 4 ? len - i : 4;
		for (x = 0, d = 0; d < 4; d++)
			x = x << 8 | (d < n ? v[i + d] : 0);
		for (d = 5; d-- > 0; x /= 85)
			g[d] = (unsigned char)digits[x % 85];
		memcpy(dst + o, g, n + 1);
		o += n + 1;
	}
	return o;
}

/*
 * Bitcoin's base58 of v[0..len) (base58, Python's base58 module): the
 * value as one big-endian number in the digits
 * "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", a "1"
 * for each leading zero byte; at most 2 * len + 1 bytes.  |len| is at
 * most BASE58_MAX (the division is quadratic).  No part of it depends
 * on a part of the value alone: only a value encoded by itself is
 * caught.
 */
#define BASE58_MAX	1024
static size_t
base58_encode(unsigned char *dst, const unsigned char *v, size_t len)
{
	static const char digits[] =
	    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
	size_t i, j, n = 0, zeros = 0;
	unsigned int carry;

	for (; zeros < len && v[zeros] == 0; zeros++)
		;
	/* dst[0..n) holds the number in base 58, least significant first. */
	for (i = zeros; i < len; i++) {
		carry = v[i];
		for (j = 0; j < n; j++) {
			carry += (unsigned int)dst[j] << 8;
			dst[j] = (unsigned char)(carry % 58);
			carry /= 58;
		}
		for (; carry > 0; carry /= 58)
			dst[n++] = (unsigned char)(carry % 58);
	}
	for (i = 0; i < zeros; i++)
		dst[n++] = 0;
	for (i = 0; i < n / 2; i++) {
		unsigned char t = dst[i];

		dst[i] = dst[n - 1 - i];
		dst[n - 1 - i] = t;
	}
	for (i = 0; i < n; i++)
		dst[i] = (unsigned char)digits[dst[i]];
	return n;
}

/*
 * The value as a JSON string's inside, as jq, jansson and Python's json
 * print it: '"' and '\\' escaped, \b \f \n \r \t by name, other
 * control bytes as \u00xx (lowercase, also uppercase when |upper|), the
 * rest as is.  A PEM key printed by a tool that prints JSON is one line
 * with "\n" between its lines, none of them a form of the key.
 */
static size_t
json_escape(unsigned char *dst, const unsigned char *v, size_t len,
    int upper)
{
	static const char from[] = "\b\f\n\r\t\"\\", to[] = "bfnrt\"\\";
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	const char *e;
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if ((e = memchr(from, v[i], sizeof(from) - 1)) != NULL) {
			dst[o++] = '\\';
			dst[o++] = (unsigned char)to[e - from];
		} else if (v[i] >= 0x20)
			dst[o++] = v[i];
		else {
			dst[o++] = '\\';
			dst[o++] = 'u';
			dst[o++] = '0';
			dst[o++] = '0';
			dst[o++] = (unsigned char)digits[v[i] >> 4];
			dst[o++] = (unsigned char)digits[v[i] & 0xf];
		}
	}
	return o;
}

#define JSON_ASCII	0x1	/* a character over 0x7f as \\uxxxx */
#define JSON_SLASH	0x2	/* "/" as "\\/" */
#define JSON_HTML	0x4	/* "<", ">", "&" as \\u003c, \\u003e, \\u0026 */

/* Writes \uxxxx for the UTF-16 code unit |u|, lowercase; returns 6. */
static size_t
json_u(unsigned char *dst, unsigned int u)
{
	static const char digits[] = "0123456789abcdef";

	dst[0] = '\\';
	dst[1] = 'u';
	dst[2] = (unsigned char)digits[(u >> 12) & 0xf];
	dst[3] = (unsigned char)digits[(u >> 8) & 0xf];
	dst[4] = (unsigned char)digits[(u >> 4) & 0xf];
	dst[5] = (unsigned char)digits[u & 0xf];
	return 6;
}

/*
 * The value as a JSON string's inside, as other printers print it:
 * Python's json with its default ensure_ascii (JSON_ASCII: a password's
 * accented letter as \u00e9), PHP's json_encode (JSON_ASCII |
 * JSON_SLASH: a token's "/" as "\/"), Go's encoding/json (JSON_HTML: a
 * password's "&" as \u0026).  Control bytes as json_escape() writes
 * them, lowercase; a byte that begins no UTF-8 character as it is.
 */
static size_t
json_escape_as(unsigned char *dst, const unsigned char *v, size_t len,
    int flags)
{
	static const char ctl[] = "\b\f\n\r\t\"\\", nm[] = "bfnrt\"\\";
	const char *e;
	unsigned int c;
	size_t i, n, k, o = 0;

	for (i = 0; i < len; i++) {
		n = v[i] >= 0xf0 && v[i] < 0xf5 ? 4 : v[i] >= 0xe0 ? 3 :
		    v[i] >= 0xc2 ? 2 : 1;
		if (n > 1 && (flags & JSON_ASCII) && v[i] < 0xf5 &&
		    len - i >= n) {
			c = v[i] & (0xff >> (n + 1));
			for (k = 1; k < n && (v[i + k] & 0xc0) == 0x80; k++)
				c = c << 6 | (v[i + k] & 0x3f);
			if (k == n && c >= 0x80 && (c < 0xd800 || c > 0xdfff) &&
			    c <= 0x10ffff) {
				if (c > 0xffff) {
					o += json_u(dst + o, 0xd800 +
					    ((c - 0x10000) >> 10));
					o += json_u(dst + o, 0xdc00 +
					    ((c - 0x10000) & 0x3ff));
				} else
					o += json_u(dst + o, c);
				i += n - 1;
				continue;
			}
		}
		if ((e = memchr(ctl, v[i], sizeof(ctl) - 1)) != NULL) {
			dst[o++] = '\\';
			dst[o++] = (unsigned char)nm[e - ctl];
		} else if (v[i] == '/' && (flags & JSON_SLASH)) {
			dst[o++] = '\\';
			dst[o++] = '/';
		} else if (v[i] < 0x20 || ((flags & JSON_HTML) &&
		    (v[i] == '<' || v[i] == '>' || v[i] == '&')))
			o += json_u(dst + o, v[i]);
		else
			dst[o++] = v[i];
	}
	return o;
}

/*
 * The value as a shell prints it quoted: inside single quotes, each "'"
 * as |q| ("'\\''": bash's xtrace, set and alias; "'\"'\"'": Python's
 * shlex.quote), or inside double quotes (|q| NULL) with "\\" before each
 * '$', '`', '"' and '\\' (bash's export -p and declare -p).  A script
 * that traces itself printed a password holding a quote in pieces.
 */
static size_t
shell_quote(unsigned char *dst, const unsigned char *v, size_t len,
    const char *q)
{
	size_t i, j, o = 0, ql = q != NULL ? strlen(q) : 0;

	for (i = 0; i < len; i++) {
		if (q != NULL && v[i] == '\'') {
			for (j = 0; j < ql; j++)
				dst[o++] = (unsigned char)q[j];
			continue;
		}
		if (q == NULL && v[i] != '\0' &&
		    strchr("$`\"\\", v[i]) != NULL)
			dst[o++] = '\\';
		dst[o++] = v[i];
	}
	return o;
}

/*
 * The value as bash's printf %q prints it when it holds no control byte:
 * a backslash before each byte of bash's set (shquote.c), before "~"
 * after ":" or "=", and, when |first| (the value begins a word), before
 * a leading "#" or "~".
 */
static size_t
backslash_quote(unsigned char *dst, const unsigned char *v, size_t len,
    int first)
{
	static const char special[] = " \t\n!\"$&'()*,;<>?[\\]^`{|}";
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if ((v[i] != '\0' && strchr(special, v[i]) != NULL) ||
		    (i == 0 && first && (v[i] == '#' || v[i] == '~')) ||
		    (i > 0 && v[i] == '~' && (v[i - 1] == ':' ||
		    v[i - 1] == '=')))
			dst[o++] = '\\';
		dst[o++] = v[i];
	}
	return o;
}

/*
 * The inside of bash's $'...', as printf %q, ${var@Q} and declare -p
 * print a value that holds a control byte (a PEM key's line breaks):
 * "\\" and "'" escaped, ESC as \E, \a \b \f \n \r \t \v by name, other
 * control bytes as \ooo, and bytes over 0x7f as they are (a UTF-8
 * locale) or, when |high|, as \ooo too (the C locale).
 */
static size_t
ansic_quote(unsigned char *dst, const unsigned char *v, size_t len,
    int high)
{
	static const char esc[] = "\033\a\b\f\n\r\t\v\\'", name[] = "Eabfnrtv\\'";
	const char *e;
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if ((e = memchr(esc, v[i], sizeof(esc) - 1)) != NULL) {
			dst[o++] = '\\';
			dst[o++] = (unsigned char)name[e - esc];
		} else if (v[i] < 0x20 || v[i] == 0x7f ||
		    (high && v[i] > 0x7f)) {
			dst[o++] = '\\';
			o += octal3(dst + o, v[i]);
		} else
			dst[o++] = v[i];
	}
	return o;
}

/*
 * A binary-to-text encoding of |bits| bits a character (6: base64, 5:
 * base32), padded to |chars| characters for each |group| bytes: |encode|
 * writes |len| bytes of |v| at |dst| (|room| bytes, radix_room()),
 * padded or not, and returns the characters written.  |arg| is its
 * own: the alphabet, the variant.
 */
struct radix {
	unsigned	 bits;
	size_t		 group, chars;
	size_t		(*encode)(unsigned char *dst, size_t room,
			    const unsigned char *v, size_t len, int pad,
			    const void *arg);
};

/* What |rx| writes of |len| bytes at most, padded, with a NUL. */
static size_t
radix_room(const struct radix *rx, size_t len)
{
	return rx->chars * ((len + rx->group - 1) / rx->group) + 1;
}

/*
 * Encodes v[0..len) at byte |k| of a stream in |rx| (with |arg|) into
 * |enc| (|room| bytes; |tmp| holds k + len bytes) and returns how many
 * of its characters depend on the value alone, from *first on, or 0
 * when they are fewer than REDACT_MIN_INNER.
 */
static size_t
radix_fragment(const struct radix *rx, const void *arg,
    const unsigned char *v, size_t len, size_t k, unsigned char *tmp,
    unsigned char *enc, size_t room, size_t *first)
{
	size_t last;

	memset(tmp, 0, k);
	memcpy(tmp + k, v, len);
	(void)rx->encode(enc, room, tmp, k + len, 0, arg);
	*first = (8 * k + rx->bits - 1) / rx->bits;
	last = (8 * (k + len)) / rx->bits;
	return last < *first + REDACT_MIN_INNER ? 0 : last - *first;
}

/*
 * The fragments of v[0..len) in |rx| at each alignment of a longer
 * stream (add_radix_forms()).
 */
static int
add_radix_fragments(struct redact *r, size_t si, const unsigned char *v,
    size_t len, const struct radix *rx, const void *arg)
{
	struct redact_secret *s = &r->secrets[si];
	unsigned char *tmp, *enc, *dst;
	size_t k, first, n, room = radix_room(rx, len + rx->group - 1);
	int rc = 0;

	if ((tmp = sodium_malloc(len + rx->group - 1)) == NULL)
		return AL_ERR_ALLOC;
	if ((enc = sodium_malloc(room)) == NULL) {
		sodium_free(tmp);
		return AL_ERR_ALLOC;
	}
	for (k = 0; k < rx->group && rc == 0; k++) {
		if ((n = radix_fragment(rx, arg, v, len, k, tmp, enc, room,
		    &first)) == 0)
			continue;
		if ((dst = form_reserve(s, n)) == NULL) {
			rc = AL_ERR_INTERNAL;
			break;
		}
		memcpy(dst, enc + first, n);
		rc = form_commit_wrap(r, si, n, FORM_LINES | FORM_SPACED);
	}
	sodium_free(enc);
	sodium_free(tmp);
	return rc;
}

/*
 * The value in the encoding |rx| (with |arg|), padded and not, and the
 * characters that depend only on the secret when it starts at byte |k|
 * (0 to |group| - 1) of an encoded stream, when they are at least
 * REDACT_MIN_INNER: character i covers bits [bits * i, bits * (i + 1)),
 * the secret bits [8k, 8(k + len)).
 */
static int
add_radix_forms(struct redact *r, size_t si, const unsigned char *v,
    size_t len, const struct radix *rx, const void *arg)
{
	struct redact_secret *s = &r->secrets[si];
	unsigned char *dst;
	size_t room = radix_room(rx, len);
	int pad, rc;

	for (pad = 1; pad >= 0; pad--) {
		if ((dst = form_reserve(s, room)) == NULL)
			return AL_ERR_INTERNAL;
		if ((rc = form_commit_wrap(r, si, rx->encode(dst, room, v, len,
		    pad, arg), FORM_LINES | FORM_SPACED)) != 0)
			return rc;
	}
	return add_radix_fragments(r, si, v, len, rx, arg);
}

/* base64 in libsodium's variants |arg| (padded, unpadded). */
static size_t
base64_radix(unsigned char *dst, size_t room, const unsigned char *v,
    size_t len, int pad, const void *arg)
{
	const int *variant = arg;

	sodium_bin2base64((char *)dst, room, v, len, variant[pad ? 0 : 1]);
	return strlen((char *)dst);
}

/* base32 in the alphabet |arg| (base32_encode()). */
static size_t
base32_radix(unsigned char *dst, size_t room, const unsigned char *v,
    size_t len, int pad, const void *arg)
{
	(void)room;
	return base32_encode(dst, v, len, arg, pad);
}

static const struct radix base64_rx = { 6, 3, 4, base64_radix };
static const struct radix base32_rx = { 5, 5, 8, base32_radix };

/*
 * base64 of base64: the secret's base64 fragment at each alignment
 * (add_radix_fragments()), its own fragments in base64 at each
 * alignment: a Kubernetes secret's .dockerconfigjson (kubectl create
 * secret docker-registry -o yaml) is the base64 of JSON that holds
 * "auth": base64("user:token").
 */
static int
add_base64_twice_forms(struct redact *r, size_t si, const unsigned char *v,
    size_t len)
{
	static const int variant[2] = { sodium_base64_VARIANT_ORIGINAL,
	    sodium_base64_VARIANT_ORIGINAL_NO_PADDING };
	unsigned char *tmp, *enc;
	size_t k, first, n, room = radix_room(&base64_rx, len + 2);
	int rc = 0;

	if ((tmp = sodium_malloc(len + 2)) == NULL)
		return AL_ERR_ALLOC;
	if ((enc = sodium_malloc(room)) == NULL) {
		sodium_free(tmp);
		return AL_ERR_ALLOC;
	}
	for (k = 0; k < 3 && rc == 0; k++)
		if ((n = radix_fragment(&base64_rx, variant, v, len, k, tmp,
		    enc, room, &first)) > 0)
			rc = add_radix_fragments(r, si, enc + first, n,
			    &base64_rx, variant);
	sodium_free(enc);
	sodium_free(tmp);
	return rc;
}

/*
 * base64 (|variant_pad|, |variant_nopad|: the original alphabet or the
 * URL-safe one) and its fragments (add_radix_forms()).
 */
static int
add_base64_forms(struct redact *r, size_t si, const unsigned char *v,
    size_t len, int variant_pad, int variant_nopad)
{
	const int variant[2] = { variant_pad, variant_nopad };

	return add_radix_forms(r, si, v, len, &base64_rx, variant);
}

/*
 * base32 in the alphabet |digits| (base32(1) and basenc --base32: RFC
 * 4648's, and lowered, as Python's b32encode().lower() prints it;
 * basenc --base32hex: its "extended hex") and its fragments
 * (add_radix_forms()).
 */
static int
add_base32_forms(struct redact *r, size_t si, const unsigned char *v,
    size_t len, const char *digits)
{
	return add_radix_forms(r, si, v, len, &base32_rx, digits);
}

/*
 * base85 in the alphabet |digits|: the whole value (a last group of
 * fewer than 4 bytes cut, as Python prints it), and the groups that lie
 * inside the secret when it starts at byte |k| (0..3) of an encoded
 * stream, 5 characters each, when there is one.
 */
static int
add_base85_forms(struct redact *r, size_t si, const unsigned char *v,
    size_t len, const char *digits)
{
	struct redact_secret *s = &r->secrets[si];
	unsigned char *dst;
	size_t k, from;
	int rc;

	dst = form_reserve(s, 5 * (len / 4 + 1));
	if ((rc = form_commit_wrap(r, si, base85_encode(dst, v, len, digits),
	    FORM_LINES | FORM_SPACED)) != 0)
		return rc;
	for (k = 0; k < 4; k++) {
		/* The first group inside the secret begins at its byte from. */
		from = (4 - k) % 4;
		if (len - from < 4)
			continue;
		dst = form_reserve(s, 5 * (len / 4));
		if ((rc = form_commit_wrap(r, si, base85_encode(dst, v + from,
		    (len - from) / 4 * 4, digits), FORM_LINES | FORM_SPACED)) != 0)
			return rc;
	}
	return 0;
}

static int
form_cmp(const void *a, const void *b)
{
	const struct redact_form *x = a, *y = b;

	if (x->p[0] != y->p[0])
		return x->p[0] < y->p[0] ? -1 : 1;
	if (x->p[1] != y->p[1])
		return x->p[1] < y->p[1] ? -1 : 1;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->secret < y->secret ? -1 : x->secret > y->secret;
}

/*
 * Is |c| a separator a radix text (FORM_SPACED: base64, base32, base85,
 * base58) may hold between two of its characters, as one printed in
 * groups shows it (sed 's/..../& /g', a TOTP key "JBSW Y3DP")?
 */
static int
radix_spacer(unsigned char c)
{
	return c == ' ' || c == '-';
}

/* Sets, and pair_bit() reads, the bit of c0, c1 in the pair table |t|. */
static void
pair_bit_set(uint64_t *t, unsigned char c0, unsigned char c1)
{
	t[c0 * 4 + c1 / 64] |= (uint64_t)1 << (c1 % 64);
}

static int
pair_bit(const uint64_t *t, unsigned char c0, unsigned char c1)
{
	return (t[c0 * 4 + c1 / 64] >> (c1 % 64)) & 1;
}

static void
pair_set(struct redact *r, unsigned char c0, unsigned char c1)
{
	pair_bit_set(r->pairs, c0, c1);
}

/*
 * A hex dump form matches uppercase hex too: its first two bytes with
 * either or both of their letters raised.
 */
static void
pair_set_upper(struct redact *r, unsigned char c0, unsigned char c1)
{
	unsigned char u0 = c0 >= 'a' && c0 <= 'f' ? c0 - 0x20 : c0;
	unsigned char u1 = c1 >= 'a' && c1 <= 'f' ? c1 - 0x20 : c1;

	pair_set(r, u0, c1);
	pair_set(r, c0, u1);
	pair_set(r, u0, u1);
	pair_set(r, u0, 0x1b);
	pair_set(r, u0, 0x9b);
	pair_set(r, u0, '\n');
	pair_set(r, u0, '\r');
}

/*
 * Can a form begin with in[i], in[i + 1]: its first two bytes, or its
 * first byte and an escape sequence, or (a wrapped form) a line break?
 * Or a radix text with a separator between its first two bytes (or a
 * line break after it): in[i], in[i + 2] (a word's last letter and a
 * space, in text, are not enough).  Inline: it is called at every byte
 * (a call there took 10% more instructions over a build log, and a test
 * of a separator before the look-up 8%).
 */
static inline int
pair_may(const struct redact *r, const unsigned char *in, size_t len,
    size_t i)
{
	/* One look-up at most bytes: gate holds every pair that may. */
	return len - i >= 2 && pair_bit(r->gate, in[i], in[i + 1]) &&
	    (pair_bit(r->pairs, in[i], in[i + 1]) || (len - i >= 3 &&
	    pair_bit(r->spaced, in[i], in[i + 2])));
}

/*
 * Sorts the forms by their first byte, then their second, then longest
 * first (forms[0..sorted) are so already: one secret's forms added are
 * merged with them, not all sorted again), and rebuilds the first-byte
 * index, the first-two-bytes one (by_pair: match_from() searched each
 * byte's forms, more of them with each encoding) and the pairs
 * pair_may() takes.
 */
static void
forms_index(struct redact *r, size_t sorted)
{
	const struct redact_form *fm;
	struct redact_form *all;
	size_t f, c, a, b;

	/* The new forms sorted, then merged with the sorted ones before. */
	qsort(r->forms + sorted, r->nforms - sorted, sizeof(*r->forms),
	    form_cmp);
	if (sorted > 0 && sorted < r->nforms &&
	    (all = reallocarray(NULL, r->nforms, sizeof(*all))) != NULL) {
		for (f = 0, a = 0, b = sorted; f < r->nforms; f++)
			all[f] = b == r->nforms || (a < sorted &&
			    form_cmp(&r->forms[a], &r->forms[b]) <= 0) ?
			    r->forms[a++] : r->forms[b++];
		memcpy(r->forms, all, r->nforms * sizeof(*all));
		free(all);
	} else if (sorted > 0)
		qsort(r->forms, r->nforms, sizeof(*r->forms), form_cmp);
	memset(r->pairs, 0, sizeof(r->pairs));
	memset(r->spaced, 0, sizeof(r->spaced));
	memset(r->gate, 0, sizeof(r->gate));
	r->dec_short = 0;
	for (c = 0, f = 0; c < 256; c++) {
		r->start[c] = f;
		for (; f < r->nforms && r->forms[f].p[0] == c; f++) {
			fm = &r->forms[f];
			pair_set(r, fm->p[0], fm->p[1]);
			if (fm->wrap & FORM_DUMP)
				pair_set_upper(r, fm->p[0], fm->p[1]);
			pair_set(r, fm->p[0], 0x1b);
			pair_set(r, fm->p[0], 0x9b);
			if (fm->wrap & (FORM_LINES | FORM_CHARS | FORM_DEC)) {
				pair_set(r, fm->p[0], '\n');
				pair_set(r, fm->p[0], '\r');
			}
			/* A first number of one digit: any separator after. */
			if ((fm->wrap & FORM_DEC) && fm->p[1] == ',') {
				pair_set(r, fm->p[0], ' ');
				pair_set(r, fm->p[0], ';');
				pair_set(r, fm->p[0], '\t');
				pair_set(r, fm->p[0], '\\');	/* \7\141 */
				r->dec_short = 1;
			}
			if (fm->wrap & FORM_SED)
				pair_set(r, fm->p[0], '\\');
			if (fm->wrap & FORM_QP)
				pair_set(r, fm->p[0], '=');
			if (fm->wrap & FORM_SPACED) {
				pair_set(r, fm->p[0], '\\');	/* "\\n" */
				pair_bit_set(r->spaced, fm->p[0], fm->p[1]);
				pair_bit_set(r->spaced, fm->p[0], '\n');
				pair_bit_set(r->spaced, fm->p[0], '\r');
				pair_bit_set(r->gate, fm->p[0], ' ');
				pair_bit_set(r->gate, fm->p[0], '-');
			}
		}
	}
	r->start[256] = r->nforms;
	for (c = 0; c < 256 * 4; c++)
		r->gate[c] |= r->pairs[c];
	for (c = 0, f = 0; c < 256 * 256; c++) {
		for (; f < r->nforms && (size_t)(r->forms[f].p[0] << 8 |
		    r->forms[f].p[1]) < c; f++)
			;
		r->by_pair[c] = (uint32_t)f;
	}
	r->by_pair[256 * 256] = (uint32_t)r->nforms;
}

int
redact_add(struct redact *r, const char *name, const void *value, size_t len)
{
	const unsigned char *v = value;
	struct redact_secret *ns, *s;
	unsigned char *dst;
	size_t si, n, w, cap, sorted = r->nforms;
	int rc;

	if (!name_valid(name))
		return AL_ERR_FORMAT;
	if (!redact_grantable(len))
		return AL_ERR_LIMIT;
	if (r->nsecrets >= REDACT_MAX_SECRETS)
		return AL_ERR_LIMIT;
	ns = reallocarray(r->secrets, r->nsecrets + 1, sizeof(*ns));
	if (ns == NULL)
		return AL_ERR_ALLOC;
	r->secrets = ns;
	si = r->nsecrets;
	s = &r->secrets[si];
	memset(s, 0, sizeof(*s));
	s->taglen = (size_t)snprintf(s->tag, sizeof(s->tag), "[REDACTED:%s]",
	    name);
	/*
	 * raw + 2 hex + 2 swapped hex (2 * len + 4) + 5 percent + 5 JSON (6 * len each) + 3 shell-quoted
	 * (5 * len at most) + 2 backslash-quoted (2 * len) + 2 $'...' (4 *
	 * len) + 4 whole base64 + 6 fragments; each but JSON and shell at
	 * most 3 * len + 8 bytes with its NUL; and 12 hex forms in 4- and
	 * 8-byte words (2 * (len + 16) each, "??" included) and the ASCII
	 * column (len); and od -c's fields (4 * len); od -b's and od -a's
	 * fields (4 * len each), 2 spaced (2 * len each), the reversed value
	 * (len), 2 whole base32 and 5 fragments (2 * len + 8 at most each),
	 * sed -n l's, cat -v's and cat -A's (4 * len each), 2 decimal lists
	 * (5 * len each and sprintf's NUL), rot13 (len); 2 more alphabets'
	 * base32 (7 forms each), 3 alphabets' base85 (5 forms each, 2 * len +
	 * 8 at most) and base58 (2 * len + 1); 25 Caesar shifts and rot47
	 * (len each); lowercase base32hex (7 forms); the octal list (5 * len
	 * + 1), 30 lists of words' numbers (4 * len + 1 at most each); 2
	 * binary (8 * len each); the value raised and lowered (len each);
	 * quoted-printable (3 * len); 9 of base64 twice (16 * (len + 2) / 9
	 * + 1 at most each).
	 */
	cap = 32 * (3 * len + 8) + 13 * (2 * len + 32) + 4 * len +
	    13 * len + 7 * (2 * len + 8) + 12 * len + 2 * (5 * len + 1) +
	    len + 14 * (2 * len + 8) + 15 * (2 * len + 8) + 2 * len + 1 +
	    26 * len + 7 * (2 * len + 8) + 5 * len + 1 + 30 * (4 * len + 1) +
	    16 * len + 2 * len + 3 * len + 9 * (2 * len + 8);
	if ((s->block = sodium_malloc(cap)) == NULL)
		return AL_ERR_ALLOC;
	s->cap = cap;
	r->nsecrets++;

	dst = form_reserve(s, len);
	memcpy(dst, v, len);
	if ((rc = form_commit_wrap(r, si, len, memchr(v, '\n', len) != NULL ?
	    FORM_INDENT : 0)) != 0)
		goto fail;
	s->vlen = len;
	dst = form_reserve(s, 2 * len);
	if ((rc = form_commit_wrap(r, si, hex_encode(dst, v, len),
	    FORM_LINES | FORM_DUMP | FORM_UNDER)) != 0)
		goto fail;
	/*
	 * Little-endian words of 2, 4 and 8 bytes, at each offset (a hex
	 * form in lowercase matches uppercase too: hex_eq()).
	 */
	for (w = 2; w <= 8; w *= 2)
		for (n = 0; n < w; n++) {
			dst = form_reserve(s, 2 * (len + 2 * w));
			if ((rc = form_commit_wrap(r, si, hex_words(dst, v, len,
			    w, n), FORM_LINES | FORM_DUMP)) != 0)
				goto fail;
		}
	dst = form_reserve(s, len);
	if ((rc = form_commit(r, si, ascii_column(dst, v, len))) != 0)
		goto fail;
	dst = form_reserve(s, 4 * len);
	if ((rc = form_commit_wrap(r, si, char_fields(dst, v, len),
	    FORM_CHARS | FORM_UNDER)) != 0)
		goto fail;
	dst = form_reserve(s, 4 * len);
	if ((rc = form_commit_wrap(r, si, octal_fields(dst, v, len),
	    FORM_CHARS | FORM_UNDER)) != 0)
		goto fail;
	dst = form_reserve(s, 4 * len);
	if ((rc = form_commit_wrap(r, si, named_fields(dst, v, len),
	    FORM_CHARS | FORM_UNDER)) != 0)
		goto fail;
	dst = form_reserve(s, 2 * len);
	if ((rc = form_commit(r, si, spaced(dst, v, len, ' '))) != 0)
		goto fail;
	dst = form_reserve(s, 2 * len);
	if ((rc = form_commit(r, si, spaced(dst, v, len, '\n'))) != 0)
		goto fail;
	dst = form_reserve(s, len);
	if ((rc = form_commit(r, si, reversed(dst, v, len))) != 0)
		goto fail;
	/* Its letters all raised, all lowered (the value itself: no form). */
	for (n = 0; n < 2; n++) {
		dst = form_reserve(s, len);
		if ((rc = form_commit(r, si, case_folded(dst, v, len,
		    (int)n))) != 0)
			goto fail;
	}
	dst = form_reserve(s, 4 * len);
	if ((rc = form_commit_wrap(r, si, sed_l(dst, v, len), FORM_SED)) != 0)
		goto fail;
	dst = form_reserve(s, 5 * len + 1);
	if ((rc = form_commit_wrap(r, si, decimal_list(dst, v, len, 0),
	    FORM_DEC)) != 0)
		goto fail;
	dst = form_reserve(s, 5 * len + 1);
	if ((rc = form_commit_wrap(r, si, decimal_list(dst, v, len, 1),
	    FORM_DEC)) != 0)
		goto fail;
	dst = form_reserve(s, 5 * len + 1);
	if ((rc = form_commit_wrap(r, si, octal_list(dst, v, len),
	    FORM_DEC)) != 0)
		goto fail;
	/* Words of 2, 4 and 8 bytes in decimal and (2) octal, at each offset. */
	for (w = 2; w <= sizeof(uint64_t); w *= 2)
		for (n = 0; n < w; n++) {
			dst = form_reserve(s, 4 * len + 1);
			if ((rc = form_commit_wrap(r, si, word_numbers(dst, v, len,
			    w, n, 10, 0), FORM_DEC | FORM_WIDE)) != 0)
				goto fail;
			dst = form_reserve(s, 4 * len + 1);
			if ((rc = form_commit_wrap(r, si, word_numbers(dst, v, len,
			    w, n, 10, 1), FORM_DEC | FORM_WIDE)) != 0)
				goto fail;
			if (w != 2)
				continue;
			dst = form_reserve(s, 4 * len + 1);
			if ((rc = form_commit_wrap(r, si, word_numbers(dst, v, len,
			    w, n, 8, 0), FORM_DEC | FORM_WIDE)) != 0)
				goto fail;
		}
	dst = form_reserve(s, 8 * len);
	if ((rc = form_commit_wrap(r, si, binary_encode(dst, v, len, 1),
	    FORM_LINES | FORM_BITS)) != 0)
		goto fail;
	dst = form_reserve(s, 8 * len);
	if ((rc = form_commit_wrap(r, si, binary_encode(dst, v, len, 0),
	    FORM_LINES)) != 0)
		goto fail;
	/* Caesar shifts: of the letters (rot13 too), of "!" to "~" (rot47). */
	for (n = 1; n < 26; n++) {
		dst = form_reserve(s, len);
		if ((rc = form_commit(r, si, letter_shift(dst, v, len,
		    (unsigned int)n))) != 0)
			goto fail;
	}
	dst = form_reserve(s, len);
	if ((rc = form_commit(r, si, printable_shift(dst, v, len, 47))) != 0)
		goto fail;

	dst = form_reserve(s, 4 * len);
	if ((rc = form_commit(r, si, caret_notation(dst, v, len, 0))) != 0)
		goto fail;
	dst = form_reserve(s, 4 * len);
	if ((rc = form_commit(r, si, caret_notation(dst, v, len, 1))) != 0)
		goto fail;
	dst = form_reserve(s, 3 * len);
	if ((rc = form_commit(r, si,
	    percent_encode(dst, v, len, 0, 0, ""))) != 0)
		goto fail;
	dst = form_reserve(s, 3 * len);
	if ((rc = form_commit(r, si,
	    percent_encode(dst, v, len, 1, 0, ""))) != 0)
		goto fail;
	dst = form_reserve(s, 3 * len);
	if ((rc = form_commit(r, si,
	    percent_encode(dst, v, len, 0, 1, ""))) != 0)
		goto fail;
	dst = form_reserve(s, 3 * len);
	if ((rc = form_commit(r, si, percent_encode(dst, v, len, 0, 0, "/"))) !=
	    0)
		goto fail;
	dst = form_reserve(s, 3 * len);
	if ((rc = form_commit(r, si,
	    percent_encode(dst, v, len, 0, 0, "!'()*"))) != 0)
		goto fail;
	/* The value itself when it holds no "=" and no control byte. */
	dst = form_reserve(s, 3 * len);
	if ((rc = form_commit_wrap(r, si, quoted_printable(dst, v, len),
	    FORM_QP)) != 0)
		goto fail;
	dst = form_reserve(s, 6 * len);
	if ((rc = form_commit(r, si, json_escape(dst, v, len, 0))) != 0)
		goto fail;
	dst = form_reserve(s, 6 * len);
	if ((rc = form_commit(r, si, json_escape(dst, v, len, 1))) != 0)
		goto fail;
	dst = form_reserve(s, 6 * len);
	if ((rc = form_commit(r, si,
	    json_escape_as(dst, v, len, JSON_ASCII))) != 0)
		goto fail;
	dst = form_reserve(s, 6 * len);
	if ((rc = form_commit(r, si,
	    json_escape_as(dst, v, len, JSON_ASCII | JSON_SLASH))) != 0)
		goto fail;
	dst = form_reserve(s, 6 * len);
	if ((rc = form_commit(r, si,
	    json_escape_as(dst, v, len, JSON_HTML))) != 0)
		goto fail;
	dst = form_reserve(s, 4 * len);
	if ((rc = form_commit(r, si, shell_quote(dst, v, len, "'\\''"))) != 0)
		goto fail;
	dst = form_reserve(s, 5 * len);
	if ((rc = form_commit(r, si, shell_quote(dst, v, len, "'\"'\"'"))) !=
	    0)
		goto fail;
	dst = form_reserve(s, 2 * len);
	if ((rc = form_commit(r, si, shell_quote(dst, v, len, NULL))) != 0)
		goto fail;
	dst = form_reserve(s, 2 * len);
	if ((rc = form_commit(r, si, backslash_quote(dst, v, len, 1))) != 0)
		goto fail;
	dst = form_reserve(s, 2 * len);
	if ((rc = form_commit(r, si, backslash_quote(dst, v, len, 0))) != 0)
		goto fail;
	dst = form_reserve(s, 4 * len);
	if ((rc = form_commit(r, si, ansic_quote(dst, v, len, 0))) != 0)
		goto fail;
	dst = form_reserve(s, 4 * len);
	if ((rc = form_commit(r, si, ansic_quote(dst, v, len, 1))) != 0)
		goto fail;
	if ((rc = add_base64_forms(r, si, v, len,
	    sodium_base64_VARIANT_ORIGINAL,
	    sodium_base64_VARIANT_ORIGINAL_NO_PADDING)) != 0)
		goto fail;
	if ((rc = add_base64_forms(r, si, v, len,
	    sodium_base64_VARIANT_URLSAFE,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING)) != 0)
		goto fail;
	if ((rc = add_base64_twice_forms(r, si, v, len)) != 0)
		goto fail;
	if ((rc = add_base32_forms(r, si, v, len,
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")) != 0 ||
	    (rc = add_base32_forms(r, si, v, len,
	    "abcdefghijklmnopqrstuvwxyz234567")) != 0 ||
	    (rc = add_base32_forms(r, si, v, len,
	    "0123456789ABCDEFGHIJKLMNOPQRSTUV")) != 0 ||
	    (rc = add_base32_forms(r, si, v, len,
	    "0123456789abcdefghijklmnopqrstuv")) != 0)
		goto fail;
	/* Z85 (basenc --z85), RFC 1924 (Python's b85encode), Ascii85. */
	if ((rc = add_base85_forms(r, si, v, len, "0123456789abcdefghijklmnopq"
	    "rstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")) != 0 ||
	    (rc = add_base85_forms(r, si, v, len, "0123456789ABCDEFGHIJKLMNOPQ"
	    "RSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~")) != 0 ||
	    (rc = add_base85_forms(r, si, v, len, "!\"#$%&'()*+,-./0123456789:"
	    ";<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstu")) != 0)
		goto fail;
	if (len <= BASE58_MAX) {
		dst = form_reserve(s, 2 * len + 1);
		if ((rc = form_commit_wrap(r, si, base58_encode(dst, v, len),
		    FORM_LINES | FORM_SPACED)) != 0)
			goto fail;
	}
	forms_index(r, sorted);
	return 0;
 fail:
	/* Drop the half-built secret and its forms. */
	for (n = 0; n < r->nforms; ) {
		if (r->forms[n].secret == si)
			r->forms[n] = r->forms[--r->nforms];
		else
			n++;
	}
	forms_index(r, 0);
	sodium_free(s->block);
	r->nsecrets--;
	return rc;
}

/* Is |c| an uppercase hex digit (a dump form may match it, xxd -u)? */
static int
is_upper_hex(unsigned char c)
{
	return c >= 'A' && c <= 'F';
}

/* |c| with an uppercase hex digit lowered: the byte a dump form holds. */
static unsigned char
hex_lower(unsigned char c)
{
	return is_upper_hex(c) ? (unsigned char)(c | 0x20) : c;
}

/*
 * Is |c| the hex digit |want| (lowercase) in either case, or any hex
 * digit for a "?"?
 */
static int
hex_eq(unsigned char want, unsigned char c)
{
	c = hex_lower(c);
	if (want == '?')
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
	return c == want;
}

/*
 * Does |c| stand for byte |j| of |fm|: the same byte, or, in a hex form,
 * the digit in the other case or, for a "?" (hex_words()), any hex digit?
 * The same byte is tried first, without a call: most tries end at a byte
 * of a form's that is not the input's (8% fewer instructions on random
 * hex).
 */
static inline int
form_eq(const struct redact_form *fm, size_t j, unsigned char c)
{
	if (fm->p[j] == c)
		return 1;	/* a literal "?" for "?" too, as form_match() */
	return (fm->wrap & FORM_DUMP) && hex_eq(fm->p[j], c);
}

/* Returns the length of the line break at in[k..len): "\n", "\r\n", or 0. */
static size_t
line_break(const unsigned char *in, size_t len, size_t k)
{
	if (in[k] == '\n')
		return 1;
	if (in[k] == '\r' && k + 1 < len && in[k + 1] == '\n')
		return 2;
	return 0;
}

/*
 * Returns the length of a line's indent at in[k..len), at most
 * LINE_INDENT bytes: blanks, and the marks a comment or a quote puts
 * before a line ("# ", "> ", "// ", " * ", "; "), up to |want|, the
 * byte the match needs next (a base64 line may begin with "/").
 */
static size_t
indent_len(const unsigned char *in, size_t len, size_t k, unsigned char want)
{
	static const unsigned char mark[256] = {
		[' '] = 1, ['\t'] = 1, ['#'] = 1, ['>'] = 1, ['/'] = 1,
		[';'] = 1, ['*'] = 1,
	};
	size_t n;

	for (n = 0; k + n < len && n < LINE_INDENT && in[k + n] != want &&
	    mark[in[k + n]]; n++)
		;
	return n;
}

/*
 * Returns the length of the line break escaped as a JSON or C string
 * escapes it at in[k..len): "\\n" or "\\r\\n" (jq -Rs . of base64(1)'s
 * lines, Python's json.dumps() of base64.encodebytes()), or 0, setting
 * *more if in[k..len) is the beginning of one.
 */
static size_t
escaped_break(const unsigned char *in, size_t len, size_t k, int *more)
{
	static const char crlf[] = "\\r\\n";
	size_t n;

	if (in[k] != '\\')
		return 0;
	if (k + 1 < len && in[k + 1] == 'n')
		return 2;
	for (n = 1; k + n < len && n < 4 && in[k + n] == (unsigned char)crlf[n];
	    n++)
		;
	if (n == 4)
		return 4;
	if (k + n == len)
		*more = 1;
	return 0;
}

/*
 * Returns the length of the terminal escape sequence at in[k..len) when
 * it is at most |max| bytes, else 0, setting *more if in[k..len) is the
 * beginning of one that more bytes could complete:
 *   - CSI: ESC "[" or the 8-bit 0x9b, parameter and intermediate bytes,
 *     a final byte (colours);
 *   - a string: ESC "]" (OSC: a hyperlink, a title), "P", "^" or "_",
 *     up to BEL or ESC "\";
 *   - ESC, intermediate bytes and a final byte (ESC "(" "B" selects a
 *     charset: tput sgr0 prints it);
 *   - ESC and one byte of 0x30-0x7e (ESC "7") unless that byte is
 *     |want|, the byte the match needs next; else a lone ESC.
 */
static size_t
esc_len(const unsigned char *in, size_t len, size_t k, size_t max,
    unsigned char want, int *more)
{
	size_t n, seq = 0;
	unsigned char c;

	*more = 0;
	if (max == 0 || (in[k] != 0x1b && in[k] != 0x9b))
		return 0;
	if (in[k] == 0x9b)
		c = '[', n = 1;
	else if (k + 1 == len) {
		*more = 1;
		return 0;
	} else
		c = in[k + 1], n = 2;
	if (c != '[' && c != ']' && c != 'P' && c != '^' && c != '_' &&
	    (c < 0x20 || c > 0x2f)) {
		if (c >= 0x30 && c <= 0x7e && c != want)
			return max >= 2 ? 2 : 0;
		return 1;	/* a lone ESC */
	}
	for (; seq == 0 && k + n < len && n < max; n++) {
		if (c == '[') {
			if (in[k + n] >= 0x40 && in[k + n] <= 0x7e)
				seq = n + 1;
			else if (in[k + n] < 0x20 || in[k + n] > 0x3f)
				break;
		} else if (c == ']' || c == 'P' || c == '^' || c == '_') {
			if (in[k + n] == 0x07)
				seq = n + 1;
			else if (in[k + n] != 0x1b)
				continue;
			else if (k + n + 1 == len) {
				*more = n + 2 <= max;
				return 0;
			} else if (in[k + n + 1] == '\\' && n + 2 <= max)
				seq = n + 2;
			else
				break;
		} else {
			if (in[k + n] >= 0x30 && in[k + n] <= 0x7e)
				seq = n + 1;
			else if (in[k + n] < 0x20 || in[k + n] > 0x2f)
				break;
		}
	}
	if (seq == 0 && k + n == len) {
		*more = n < max;
		return 0;
	}
	if (in[k] == 0x9b)
		return seq;
	/*
	 * A lone ESC before the byte the match needs, when the sequence it
	 * would begin is not followed by it ("$" then ESC "$" "W": a
	 * charset).
	 */
	if (seq == 0 || (c == want && (k + seq == len ||
	    (in[k + seq] != want && in[k + seq] != 0x1b &&
	    in[k + seq] != 0x9b))))
		return 1;
	return seq;
}

/*
 * xxd -e prints the bytes a dump's last word lacks as two spaces each,
 * before the hex of the bytes it has.  Returns the length of the spaces
 * at in[k..len) when they are 1 or 2 of a separator and then 2 to 2 * |q|
 * for that many "??" characters of the form, followed by a hex digit,
 * setting *pad to the characters they stand for; else 0, setting *more
 * if in[k..len) is all spaces.
 */
static size_t
word_pad(const unsigned char *in, size_t len, size_t k, size_t q,
    size_t *pad, int *more)
{
	size_t n;

	*pad = 0;
	for (n = 0; k + n < len && n <= 2 * q + 2 && in[k + n] == ' '; n++)
		;
	if (k + n == len) {
		*more = n <= 2 * q + 2;
		return 0;
	}
	*pad = n - 1 - (n - 1) % 2;
	if (q == 0 || n < 3 || *pad > 2 * q || !hex_eq('?', in[k + n])) {
		*pad = 0;
		return 0;
	}
	return n;
}

/*
 * Is |c| a hex dump's separator between two bytes: " " (xxd -g1, od -t
 * x1), ":" (bytes.hex(":")), "-" (hexdump -C's middle), "," (hexdump -e
 * '/1 "%02x,"')?
 */
static int
dump_sep(unsigned char c)
{
	return c == ' ' || c == ':' || c == '-' || c == ',';
}

/* Does |c| begin the byte |want| of a match: it, or an escape sequence? */
static int
dump_next(unsigned char want, unsigned char c)
{
	return hex_eq(want, c) || c == 0x1b || c == 0x9b;
}

/*
 * The prefixes an escaped or encoded string puts before each byte's hex
 * digits: a C array's "0x" (xxd -i), C's and Python's "\\x", JSON's and
 * JavaScript's "\\u00" (every byte so: \u0041), a URL's "%" and
 * quoted-printable's "=" (every byte percent- or =-encoded: %41, =41),
 * an HTML entity's "&#x" (&#x41;, after the ";" that ends the one
 * before).
 */
static const struct {
	const char	*s;
	size_t		 len;
} hex_prefixes[] = {
	{ "0x", 2 }, { "0X", 2 }, { "\\x", 2 }, { "\\u00", 4 }, { "%", 1 },
	{ "=", 1 }, { "&#x", 3 }, { "&#X", 3 },
};

/*
 * Returns the length of a C array's or an escaped string's gap between
 * two bytes at in[k..len), if the byte after it is |want| or an escape
 * sequence (xxd -i: ", 0x" and ",\n  0x"; "\\x", "%", "&#x"): an
 * optional "," or ";", up to 2 spaces or a line break and up to
 * DUMP_INDENT blanks, then one of hex_prefixes[]; else 0, setting *more
 * if in[k..len) is the beginning of one.
 */
static size_t
prefix_gap(const unsigned char *in, size_t len, size_t k, unsigned char want,
    int *more)
{
	size_t n = 0, b, d, p, m;
	unsigned char c;

	*more = 0;
	if (in[k] == ',' || in[k] == ';')
		n++;
	if (k + n < len && (b = line_break(in, len, k + n)) > 0) {
		n += b;
		for (d = 0; k + n < len && d < DUMP_INDENT &&
		    (in[k + n] == ' ' || in[k + n] == '\t'); d++)
			n++;
	} else
		for (d = 0; k + n < len && d < 2 && in[k + n] == ' '; d++)
			n++;
	if (k + n == len || (in[k + n] == '\r' && k + n + 1 == len)) {
		*more = 1;
		return 0;
	}
	/* Most gaps tried are none: a byte no prefix begins with ends it. */
	c = in[k + n];
	if (c != '0' && c != '\\' && c != '%' && c != '=' && c != '&')
		return 0;
	for (p = 0; p < sizeof(hex_prefixes) / sizeof(*hex_prefixes); p++) {
		if ((unsigned char)hex_prefixes[p].s[0] != c)
			continue;
		m = hex_prefixes[p].len;
		for (d = 1; d < m && k + n + d < len &&
		    in[k + n + d] == (unsigned char)hex_prefixes[p].s[d]; d++)
			;
		if (k + n + d == len) {
			*more = 1;	/* the prefix, or the byte after it */
			continue;
		}
		if (d == m && dump_next(want, in[k + n + m]))
			return n + m;
	}
	return 0;
}

/*
 * Returns the length of a line of at most |max| printable bytes at
 * in[k..len), its line break included (a line under another, od -t x1
 * -c: DUMP_UNDER); else 0, setting *more if in[k..len) may be the
 * beginning of one.
 */
static size_t
under_line(const unsigned char *in, size_t len, size_t k, size_t max,
    int *more)
{
	size_t n, b;

	*more = 0;
	for (n = 0; k + n < len && n <= max && in[k + n] >= 0x20 &&
	    in[k + n] < 0x7f; n++)
		;
	if (n > max)
		return 0;
	if (k + n == len || (in[k + n] == '\r' && k + n + 1 == len)) {
		*more = 1;
		return 0;
	}
	if ((b = line_break(in, len, k + n)) == 0)
		return 0;
	return n + b;
}

/* Does a line's rest p[0..n) hold more than separators: an ASCII column? */
static int
rest_shown(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!dump_sep(p[i]))
			return 1;
	return 0;
}

/*
 * Returns the length of the gap between two bytes of a hex dump at
 * in[k..len), if the byte after it is |want| or an escape sequence:
 * separators, a C array's prefix (prefix_gap()), or (when |col| > 0) a
 * change of line whose line's rest is at most |col| bytes; else 0,
 * setting *more if in[k..len) is the beginning of one.  *changed is set
 * for a change of line: 2 when the line's rest held more than
 * separators (an ASCII column), else 1.  When the form has |q| bytes of "??" there, the
 * gap may end in a last word's padding (word_pad()): *pad is set to the
 * form's characters it stands for.  |mode| GAP_LINES takes a change of
 * line only, GAP_LINES | GAP_BARE one whose next line has no offset.
 * When |under| > 0 a change of line may pass a line of at most |under|
 * bytes (under_line()) when the next one is not the dump's: *changed
 * has GAP_UNDER set then.
 */
#define GAP_LINES	0x1
#define GAP_BARE	0x2
#define GAP_CHANGED	0x1	/* *changed: a change of line */
#define GAP_COLUMN	0x2	/* ... past an ASCII column */
#define GAP_UNDER	0x4	/* ... past a line under the line */

static size_t
dump_gap(const unsigned char *in, size_t len, size_t k, unsigned char want,
    size_t col, size_t q, int mode, size_t under, size_t *pad, int *more,
    int *changed)
{
	size_t n, d, w, nl, rest, u;
	int pmore = 0, lines_only = mode & GAP_LINES, passed = 0;

	*more = *changed = 0;
	*pad = 0;
	for (n = 0; k + n < len && n < DUMP_SEP && dump_sep(in[k + n]); n++)
		;
	/*
	 * Not a C array's "0x" after its "," (prefix_gap()).  An odd run
	 * of 3 before a word the form cuts is xxd -e's separator and the 2
	 * spaces of a byte it lacks (word_pad()); hexdump -x's 4 are
	 * separators.
	 */
	if (!lines_only && n > 0 && k + n < len && dump_next(want, in[k + n]) &&
	    !(in[k + n] == '0' && k + n + 1 < len &&
	    (in[k + n + 1] | 0x20) == 'x')) {
		if (q > 0 && n == 3 &&
		    (w = word_pad(in, len, k, q, pad, more)) > 0)
			return w;
		return n;
	}
	if (!lines_only && (w = prefix_gap(in, len, k, want, &pmore)) > 0)
		return w;
	if (!lines_only && q > 0 &&
	    (w = word_pad(in, len, k, q, pad, more)) > 0)
		return w;
	if (*more || (!lines_only && pmore)) {
		*more = 1;
		return 0;
	}
	/*
	 * The rest of the line, its ASCII column: it begins with two
	 * separators (xxd's "  ", hexdump -C's "  |", od's "  >") or is
	 * separators alone (a scan of it at each byte a hex form's match
	 * stopped at halved the throughput; after a single space, xxd's
	 * next group).
	 */
	if (col == 0 || k + n == len)
		goto end;
	if (n < COL_SEP && in[k + n] != '\r' && in[k + n] != '\n')
		return 0;
	for (n = 0; k + n < len && n <= col && in[k + n] >= 0x20 &&
	    in[k + n] < 0x7f; n++)
		;
	if (n > col || k + n == len)
		goto end;
	rest = n;
	if (in[k + n] == '\r' && k + n + 1 < len && in[k + n + 1] == '\n')
		n++;
	else if (in[k + n] == '\r' && k + n + 1 == len) {
		*more = 1;
		return 0;
	}
	if (in[k + n++] != '\n')
		return 0;
	nl = n;
	/* No offset (hexdump -e '4/4 "%08X "'). */
	if (mode & GAP_BARE) {
		if (k + n == len)
			goto end;
		if (!dump_next(want, in[k + n]))
			return 0;
		*changed = GAP_CHANGED | rest_shown(in + k, rest) << 1;
		return n;
	}
 next:
	/* The next line's offset, ":" (xxd), one to four spaces. */
	for (d = 0; k + n < len && d < OFF_DIGITS && ((in[k + n] >= '0' &&
	    in[k + n] <= '9') || ((in[k + n] | 0x20) >= 'a' &&
	    (in[k + n] | 0x20) <= 'f')); d++)
		n++;
	if (k + n < len && d > 0 && in[k + n] == ':')
		n++;
	if (d > 0 && q > 0 && (w = word_pad(in, len, k + n, q, pad,
	    more)) > 0) {
		*changed = GAP_CHANGED | rest_shown(in + k, rest) << 1 |
		    passed << 2;
		return n + w;
	}
	if (*more)
		return 0;
	for (d = 0; k + n < len && d < 4 && in[k + n] == ' '; d++)
		n++;
	if (k + n == len)
		goto end;
	if (d == 0 || !dump_next(want, in[k + n])) {
		if (!dump_next(want, in[k + nl])) {
			/* A line under this one (od -t x1 -c), once. */
			if (passed || under == 0)
				return 0;
			if ((u = under_line(in, len, k + nl, under, more)) == 0)
				return 0;
			n = nl += u;
			passed = 1;
			goto next;
		}
		n = nl;		/* no offset */
	}
	*changed = GAP_CHANGED | rest_shown(in + k, rest) << 1 | passed << 2;
	return n;
 end:
	*more = k + n == len;
	return 0;
}

/*
 * Returns the length of od -c's or hexdump -c's change of line at
 * in[k..len), up to the |pad| spaces before the next field, field[0..
 * flen) followed by a space or the line's end (not a line of hex's
 * "2e" for a field "2"): a
 * line break, the next line's offset (1 to 12 hex digits, an optional
 * ":") or none, and the spaces past |pad| (od -t x1 -c's lines of
 * characters have no offset, blanks in its place); when |under| > 0
 * and the next line is not so, it may be a line of at most |under|
 * bytes under this one (od -c -t x1, under_line()), setting *passed;
 * else 0, setting *more if in[k..len) is the beginning of one.
 */
static size_t
chars_line(const unsigned char *in, size_t len, size_t k,
    const unsigned char *field, size_t flen, size_t pad, size_t under,
    int *more, int *passed)
{
	size_t n, m, d, sp, u, f;

	*more = *passed = 0;
	if (in[k] == '\r' && k + 1 == len) {
		*more = 1;
		return 0;
	}
	if ((n = line_break(in, len, k)) == 0)
		return 0;
	for (;;) {
		m = n;
		for (d = 0; k + m < len && d < OFF_DIGITS &&
		    hex_eq('?', in[k + m]); d++)
			m++;
		if (k + m < len && d > 0 && in[k + m] == ':')
			m++;
		for (sp = 0; k + m + sp < len && in[k + m + sp] == ' '; sp++)
			;
		if (k + m + sp == len) {
			*more = 1;
			return 0;
		}
		/* The whole field, then a space or the line's end. */
		f = k + m + sp;
		for (d = 0; d < flen && f + d < len && in[f + d] == field[d];
		    d++)
			;
		if (sp >= pad && f + d == len) {
			*more = 1;
			return 0;
		}
		if (sp >= pad && d == flen && (in[f + d] == ' ' ||
		    in[f + d] == '\r' || in[f + d] == '\n'))
			return m + sp - pad;
		if (*passed || under == 0)
			return 0;
		if ((u = under_line(in, len, k + n, under, more)) == 0)
			return 0;
		n += u;
		*passed = 1;
	}
}

/*
 * sed's break of a long line in a match of |fm| at in[k..len), before
 * byte |j| of the form: "\\" and a line break (2), or the line break
 * alone when the "\\" before it was taken for the form's own (1: no
 * byte of sed_l()'s is a "\\" before a line break); else 0, setting
 * *more if in[k..len) is a "\\" that may begin one.
 */
static size_t
sed_break(const struct redact_form *fm, const unsigned char *in,
    size_t len, size_t j, size_t k, int *more)
{
	*more = 0;
	if (in[k] == '\\' && k + 1 == len) {
		*more = 1;
		return 0;
	}
	if (in[k] == '\\' && in[k + 1] == '\n')
		return 2;
	if (in[k] == '\n' && k > 0 && in[k - 1] == '\\' &&
	    fm->p[j - 1] == '\\')
		return 1;
	return 0;
}

/*
 * quoted-printable's soft line break in a match of |fm| at in[k..len),
 * before byte |j| of the form: "=" and a line break (3 or 2), or the
 * line break alone when the "=" before it was taken for the form's own
 * (a break before a "=3D"); else 0, setting *more if in[k..len) may
 * begin one.
 */
static size_t
qp_break(const struct redact_form *fm, const unsigned char *in,
    size_t len, size_t j, size_t k, int *more)
{
	size_t b;

	*more = 0;
	if (in[k] != '=')
		return k > 0 && in[k - 1] == '=' && fm->p[j - 1] == '=' ?
		    line_break(in, len, k) : 0;
	if (k + 1 == len || (in[k + 1] == '\r' && k + 2 == len)) {
		*more = 1;
		return 0;
	}
	return (b = line_break(in, len, k + 1)) > 0 ? 1 + b : 0;
}

/*
 * od -c's change of line in a match of the fields |fm| at in[k..len),
 * before byte |j| of the form (a field's padding): chars_line() for the
 * field there, passing a line under the line (FORM_UNDER): at most
 * DUMP_UNDER on the match's first line (|took| SIZE_MAX), and on a
 * later one, when the match took UNDER_MIN fields or more on it (|took|
 * bytes of the form), DUMP_OFF and 4 more than those.
 */
static size_t
chars_change(const struct redact_form *fm, const unsigned char *in,
    size_t len, size_t j, size_t k, size_t took, int *more, int *passed)
{
	size_t pad, under, flen;

	*more = *passed = 0;
	for (pad = 0; j + pad < fm->len && fm->p[j + pad] == ' '; pad++)
		;
	for (flen = 0; j + pad + flen < fm->len &&
	    fm->p[j + pad + flen] != ' '; flen++)
		;
	if (pad == 0 || flen == 0)
		return 0;
	under = !(fm->wrap & FORM_UNDER) ? 0 : took == SIZE_MAX ?
	    DUMP_UNDER : took < 4 * UNDER_MIN - 3 ? 0 : DUMP_OFF + 4 + took;
	return chars_line(in, len, k, fm->p + j + pad, flen, pad, under, more,
	    passed);
}

/*
 * Can a gap inside a match of |fm| begin with |c|: an escape sequence,
 * a line break (a wrapped form, a dump's or od -c's change of line), a
 * dump's separator or prefix (dump_gap())?  Most bytes that stop a
 * match cannot, and are not looked at further (a form of fields or of
 * spaced characters that begins "c " is not tried at each "c -" of a
 * build log).
 */
/*
 * hexdump (with no -v) prints a run of a byte its format repeats (-e
 * '/1 "%02x "', '/1 "%d,"') once, then "*" and a line break for all
 * the copies after it.  Returns the length of up to |seps| separators,
 * "*" and a line break at in[k..len), else 0, setting *more if
 * in[k..len) may begin one.
 */
static size_t
squeezed(const unsigned char *in, size_t len, size_t k, size_t seps,
    int (*is_sep)(unsigned char), int *more)
{
	size_t n, b;

	for (n = 0; k + n < len && n < seps && is_sep(in[k + n]); n++)
		;
	if (k + n < len && in[k + n] != '*')
		return 0;
	if (k + n == len || k + ++n == len ||
	    (in[k + n] == '\r' && k + n + 1 == len)) {
		*more = 1;
		return 0;
	}
	return (b = line_break(in, len, k + n)) > 0 ? n + b : 0;
}

#define GAP_ANY	0x8000	/* gap_begins[]: a gap of any form */

static int
gap_may_begin(const struct redact_form *fm, unsigned char c)
{
	/*
	 * The forms a gap beginning with each byte may be in, looked up
	 * (a switch of these cases was a jump table, whose indirect branch
	 * the predictor missed at a third of the tries on random hex).
	 */
	static const unsigned short gap_begins[256] = {
		[0x1b] = GAP_ANY, [0x9b] = GAP_ANY,
		['\r'] = FORM_LINES | FORM_DUMP | FORM_CHARS | FORM_DEC |
		    FORM_INDENT,
		['\n'] = FORM_LINES | FORM_DUMP | FORM_CHARS | FORM_DEC,
		['\\'] = FORM_DUMP | FORM_SED | FORM_DEC | FORM_SPACED | FORM_BITS,
		[' '] = FORM_DUMP | FORM_DEC | FORM_BITS | FORM_SPACED |
		    FORM_INDENT,
		[','] = FORM_DUMP | FORM_DEC,
		[';'] = FORM_DUMP | FORM_DEC | FORM_INDENT,
		['\t'] = FORM_DEC | FORM_INDENT,
		['%'] = FORM_DUMP, ['='] = FORM_DUMP | FORM_QP,
		['&'] = FORM_DUMP | FORM_DEC,
		[':'] = FORM_DUMP, ['-'] = FORM_DUMP | FORM_SPACED,
		['0'] = FORM_DUMP,
		['*'] = FORM_DUMP | FORM_DEC | FORM_INDENT,
		['#'] = FORM_INDENT, ['>'] = FORM_INDENT, ['/'] = FORM_INDENT,
	};

	return (gap_begins[c] & ((unsigned int)fm->wrap | GAP_ANY)) != 0;
}

/* log2 of the characters of a byte in |fm|: 2 of hex, 8 of bits. */
static unsigned int
form_unit(const struct redact_form *fm)
{
	return (fm->wrap & FORM_BITS) ? 3 : 1;
}

/*
 * Matches |fm| at in[i..len).  Between two of its characters may stand
 * terminal escape sequences (esc_len()), REDACT_MAX_ESC bytes of them in
 * all (grep --color=always colours a match inside the secret, a logger a
 * word, ls a hyperlink), in a wrapped form at most one line break, and
 * between two bytes of a hex form a hex dump's gap (dump_gap()).
 * Returns the number of bytes the match takes, or 0, setting *partial
 * if in[i..len) is the beginning of the form but not all of it (a "\r"
 * or an escape sequence at the end may go on), or all of it in a hex
 * dump whose last line may go on.
 */
/* Where a match stands: byte j of the form at byte k of the input. */
struct match_at {
	size_t	j, k, esc, changes, last;
	int	broke;		/* a gap or a break taken before byte j */
	int	column;		/* a change of line passed an ASCII column */
	int	under;		/* ... a line under its line (DUMP_UNDER) */
};

static size_t
form_match_from(const struct redact_form *fm, const unsigned char *in,
    size_t len, size_t i, struct match_at at, int *forks, int *partial)
{
	struct match_at alt;
	size_t j = at.j, k = at.k, esc = at.esc, changes = at.changes;
	size_t last = at.last, n, m, q, pad, br, col, under, rest, took;
	int broke = at.broke, column = at.column, more, pend, changed, edge;
	int altmore, altchanged, altpartial, passed, below = at.under;
	int squeeze = 0;	/* a squeezed copy begun */

	for (; j < fm->len; j++, k++, broke = 0) {
		/* A dump's gaps fall between two bytes (xxd -b's too). */
		edge = (fm->wrap & FORM_DUMP) ? j % 2 == 0 :
		    (fm->wrap & FORM_BITS) && j % 8 == 0;
		for (; j > 0 && k < len && !form_eq(fm, j, in[k]); ) {
			more = 0;
			/*
			 * The value's line indented (FORM_INDENT), and its line
			 * break printed as "\r\n" (unix2dos, a MIME body).
			 */
			if ((fm->wrap & FORM_INDENT) && !broke &&
			    fm->p[j - 1] == '\n' && (n = indent_len(in, len,
			    k, fm->p[j])) > 0) {
				k += n;
				broke = 1;
				continue;
			}
			if ((fm->wrap & FORM_INDENT) && fm->p[j] == '\n' &&
			    in[k] == '\r' && (k + 1 == len || in[k + 1] == '\n')) {
				k++;
				continue;
			}
			if ((fm->wrap & FORM_SED) && !broke &&
			    (n = sed_break(fm, in, len, j, k, &more)) > 0) {
				/* The "\\" taken for the form's: again. */
				if (in[k] == '\n')
					j--;
				k += n;
				broke = 1;
				continue;
			}
			if ((fm->wrap & FORM_SED) && more) {
				k = len;	/* a break begun */
				continue;
			}
			if ((fm->wrap & FORM_QP) && !broke &&
			    ((n = qp_break(fm, in, len, j, k, &more)) > 0 ||
			    more)) {
				/* The "=" taken for the form's: again. */
				if (in[k] != '=')
					j--;
				k = more ? len : k + n;
				broke = 1;
				continue;
			}
			if (!gap_may_begin(fm, in[k]))
				break;
			more = 0;
			/*
			 * hexdump's "*" for the copies of the byte before it
			 * (the hex form alone, not its words): the form's
			 * copies of that byte, if any, are in it.
			 */
			if (edge && !broke && j >= 2 && (fm->wrap & FORM_UNDER) &&
			    (n = squeezed(in, len, k, DUMP_SEP, dump_sep,
			    &squeeze)) > 0) {
				k += n;
				for (; j < fm->len && fm->p[j] == fm->p[j - 2] &&
				    fm->p[j + 1] == fm->p[j - 1]; j += 2)
					;
				broke = 1;
				if (j == fm->len)
					goto whole;
				continue;
			}
			/* The "??" bytes here, that a last word may lack. */
			for (q = 0; edge && j + q < fm->len &&
			    fm->p[j + q] == '?'; q++)
				;
			/*
			 * A line's rest: the first line's any ASCII column, a
			 * later one's that of the bytes the match took on it.
			 */
			took = (j >> form_unit(fm)) - last;
			col = changes == 0 ? DUMP_COL : took + DUMP_PAD;
			under = !(fm->wrap & FORM_UNDER) ? 0 : changes == 0 ?
			    DUMP_UNDER : took < UNDER_MIN ? 0 :
			    DUMP_OFF + 4 + 4 * took;
			if (edge && !broke && (n = dump_gap(in, len, k,
			    fm->p[j], col, q / 2, 0, under, &pad, &more,
			    &changed)) > 0) {
				/*
				 * The hex digit after separators may be the
				 * ASCII column's first character (after two
				 * spaces: xxd): the match may also go on at the
				 * next line.  A line's offset may be the next
				 * line's hex, with no offset (hexdump -e); not
				 * the next line's bits (xxd -b prints one on
				 * each: a bits form, a byte of ASCII beginning
				 * "0", would try every line's offset for them
				 * and spend the forks a "0" or "1" its ASCII
				 * column shows needs).
				 */
				if ((changed || n >= 2) && *forks > 0 &&
				    (!changed || !(fm->wrap & FORM_BITS)) &&
				    (alt.k = dump_gap(in, len, k, fm->p[j], col,
				    q / 2, changed ? GAP_LINES | GAP_BARE :
				    GAP_LINES, under, &alt.j, &altmore,
				    &altchanged)) > 0 && alt.k != n) {
					alt.j += j;
					alt.k += k;
					alt.esc = esc;
					alt.changes = changes + 1;
					alt.last = alt.j >> form_unit(fm);
					alt.broke = 1;
					alt.column = column ||
					    (altchanged & GAP_COLUMN);
					alt.under = below ||
					    (altchanged & GAP_UNDER);
					(*forks)--;
					altpartial = 0;
					if ((m = form_match_from(fm, in, len, i,
					    alt, forks, &altpartial)) > 0)
						return m;
					*partial |= altpartial;
				}
				k += n;
				j += pad;
				broke = 1;
				if (changed) {
					changes++;
					last = j >> form_unit(fm);
					column |= (changed & GAP_COLUMN) != 0;
					below |= (changed & GAP_UNDER) != 0;
				}
				continue;
			}
			/* od -c's change of line, before a field's padding. */
			if ((fm->wrap & FORM_CHARS) && !broke &&
			    (in[k] == '\n' || in[k] == '\r') &&
			    (n = chars_change(fm, in, len, j, k, changes == 0 ?
			    SIZE_MAX : j - last, &more, &passed)) > 0) {
				k += n;
				broke = 1;
				changes++;
				last = j;
				below |= passed;
				continue;
			}
			pend = more || squeeze;
			if ((fm->wrap & FORM_LINES) && !broke &&
			    (br = line_break(in, len, k)) > 0) {
				/* A radix text's line indented. */
				k += br;
				if (fm->wrap & FORM_SPACED)
					k += indent_len(in, len, k, fm->p[j]);
				broke = 1;
			} else if ((fm->wrap & FORM_SPACED) && !broke &&
			    radix_spacer(in[k])) {
				/* ... and a line break after it (fold -w). */
				k++;
				if (k < len && (br = line_break(in, len, k)) > 0)
					k += br + indent_len(in, len, k + br,
					    fm->p[j]);
				broke = 1;
			} else if (((fm->wrap & FORM_SPACED) || edge) && !broke &&
			    (br = escaped_break(in, len, k, &pend)) > 0) {
				k += br;
				broke = 1;
			} else if ((fm->wrap & FORM_LINES) && !broke &&
			    k + 1 == len && in[k] == '\r')
				k++;	/* a break begun */
			else if ((n = esc_len(in, len, k, REDACT_MAX_ESC - esc,
			    fm->p[j], &more)) > 0) {
				k += n;
				esc += n;
			} else if (more || pend)
				k = len;
			else
				break;
		}
		if (k == len) {
			*partial = 1;
			return 0;
		}
		if (!form_eq(fm, j, in[k]))
			return 0;
	}
	/*
	 * A dump's last line: its ASCII column holds the secret's tail (a
	 * dump with none, xxd -p, hexdump -e, keeps the rest of the line).
	 */
 whole:
	rest = column ? DUMP_REST : below ? DUMP_UNDER : 0;
	for (n = 0; k + n < len && n < rest && in[k + n] >= 0x20 &&
	    in[k + n] < 0x7f; n++)
		;
	if (rest > 0 && k + n == len && n < rest)
		*partial = 1;
	/* ... and the line under it (od -t x1 -c): the secret's tail. */
	if (below && k + n < len && (m = line_break(in, len, k + n)) > 0) {
		n += m;
		for (m = 0; k + n < len && m < DUMP_UNDER &&
		    in[k + n] >= 0x20 && in[k + n] < 0x7f; m++)
			n++;
		if (k + n == len && m < DUMP_UNDER)
			*partial = 1;
	}
	return k + n - i;
}

/*
 * Returns the length of the number tok[0..n) at in[k..len), with the
 * zeros that pad it to |width| characters (3: printf "%03d", hexdump
 * -e '/1 "%03d "': "090", "-01"; DEC_WIDE: a word's, hexdump -d's
 * "08293", od -o's "020145"), or 0, setting *partial when in[k..len)
 * is cut short of it.  No number begins with a 0: the zeros are
 * padding.
 */
static size_t
token_at(const unsigned char *in, size_t len, size_t k,
    const unsigned char *tok, size_t n, size_t width, int *partial)
{
	size_t d, z, sign = tok[0] == '-';

	/* The padding of a negative number follows its sign ("-01"). */
	if (sign && (k == len || in[k] != '-')) {
		*partial |= k == len;
		return 0;
	}
	for (z = 0; z + n < width && k + sign + z < len &&
	    in[k + sign + z] == '0'; z++)
		;
	for (d = sign; d < n && k + z + d < len && in[k + z + d] == tok[d];
	    d++)
		;
	if (d < n && k + z + d == len)
		*partial = 1;
	return d == n ? z + n : 0;
}

/* Is |c| a decimal dump's separator (a list's ", ", od's spaces)? */
static int
dec_sep(unsigned char c)
{
	return c == ' ' || c == ',' || c == ';' || c == '\t';
}

/*
 * Returns the length of an escaped string's gap at in[k..len): "\\"
 * before each byte's octal (\132\161, every byte as printf '\ooo'
 * reads it) or ";&#" between two HTML entities (&#90;&#113;); else 0,
 * setting *partial if in[k..len) is the beginning of one.
 */
static size_t
dec_escape(const unsigned char *in, size_t len, size_t k, int *partial)
{
	static const char *const gaps[] = { "\\", ";&#" };
	size_t p, m, d;

	for (p = 0; p < sizeof(gaps) / sizeof(*gaps); p++) {
		m = strlen(gaps[p]);
		for (d = 0; d < m && k + d < len &&
		    in[k + d] == (unsigned char)gaps[p][d]; d++)
			;
		if (d == m)
			return m;
		*partial |= k + d == len;
	}
	return 0;
}

/*
 * Returns the length of a decimal dump's gap at in[k..len) followed by
 * the token tok[0..n): up to DEC_SEP separators (", " as Python's
 * list(bytes), "," as a Node Buffer's JSON, od -t u1's and hexdump -e
 * '/1 "%d "''s spaces), then a line break or at least one of them; after
 * a line break the next line's offset (up to 12 hex digits and an
 * optional ":", od -t u1, od -t d1), then up to DEC_INDENT blanks (jq's
 * indent, od -A n's padding), or those blanks alone (hexdump -e '/1
 * "%d\n"'); or an escaped string's gap (dec_escape()).  Else 0, setting
 * *partial if in[k..len) may begin one.
 */
#define DEC_SEP		4
#define DEC_INDENT	16
#define DEC_WIDE	6	/* a word's number padded (od -o: 6 digits) */
#define DEC_GAP		(DEC_SEP + 2 + DUMP_OFF + DEC_INDENT)

static size_t
dec_gap(const unsigned char *in, size_t len, size_t k,
    const unsigned char *tok, size_t n, size_t width, int *partial)
{
	size_t g, m, d, b, sep;

	if ((g = dec_escape(in, len, k, partial)) > 0)
		return token_at(in, len, k + g, tok, n, width, partial) > 0 ?
		    g : 0;
	for (g = 0; k + g < len && g < DEC_SEP && dec_sep(in[k + g]); g++)
		;
	sep = g;
	if (k + g == len || (in[k + g] == '\r' && k + g + 1 == len)) {
		*partial = 1;
		return 0;
	}
	if ((b = line_break(in, len, k + g)) == 0)
		return sep > 0 && token_at(in, len, k + g, tok, n, width,
		    partial) > 0 ? g : 0;
	g += b;
	/* With an offset, then without one. */
	for (m = g, d = 0; k + m < len && d < OFF_DIGITS &&
	    hex_eq('?', in[k + m]); d++)
		m++;
	if (d > 0 && k + m < len && in[k + m] == ':')
		m++;
	for (b = 0; k + m < len && b < DEC_INDENT && (in[k + m] == ' ' ||
	    in[k + m] == '\t'); b++)
		m++;
	if (d > 0 && b > 0 && token_at(in, len, k + m, tok, n, width,
	    partial) > 0)
		return m;
	for (b = 0; k + g < len && b < DEC_INDENT && (in[k + g] == ' ' ||
	    in[k + g] == '\t'); b++)
		g++;
	return token_at(in, len, k + g, tok, n, width, partial) > 0 ? g : 0;
}

/*
 * Matches the decimal form |fm| (its bytes' numbers with "," between
 * two) at in[i..len): each number as it is, not within a longer one,
 * and a decimal dump's gap (dec_gap()) between two.  Returns the number
 * of bytes the match takes, or 0, setting *partial if in[i..len) is the
 * beginning of one, or all of it with nothing after to tell whether its
 * last number goes on.
 */
static size_t
dec_match(const struct redact_form *fm, const unsigned char *in,
    size_t len, size_t i, int *partial)
{
	size_t j = 0, t, k = i, g, z;
	size_t width = (fm->wrap & FORM_WIDE) ? DEC_WIDE : 3;
	int copies = 0;		/* the match ends in hexdump's "*" */

	/* Not within a longer number: before it, a digit other than padding. */
	for (z = i; z > 0 && i - z < width - 1 && in[z - 1] == '0'; z--)
		;
	if (z > 0 && in[z - 1] >= '0' && in[z - 1] <= '9')
		return 0;
	for (;;) {
		for (t = j; t < fm->len && fm->p[t] != ','; t++)
			;
		if ((z = token_at(in, len, k, fm->p + j, t - j, width,
		    partial)) == 0)
			return 0;
		k += z;
		if (t == fm->len)
			break;
		/*
		 * hexdump's "*" for the copies of this number: the form's
		 * copies of it, if any, are in it, and the next number
		 * follows its line break.
		 */
		if ((g = squeezed(in, len, k, DEC_SEP, dec_sep, partial)) > 0) {
			k += g;
			for (g = t - j; t < fm->len && fm->len - t - 1 >= g &&
			    memcmp(fm->p + t + 1, fm->p + j, g) == 0 &&
			    (t + 1 + g == fm->len || fm->p[t + 1 + g] == ',');
			    t += g + 1)
				;
			if (t == fm->len) {
				copies = 1;
				break;
			}
			j = t + 1;
			continue;
		}
		for (j = t + 1, t = j; t < fm->len && fm->p[t] != ','; t++)
			;
		if ((g = dec_gap(in, len, k, fm->p + j, t - j, width,
		    partial)) == 0)
			return 0;
		k += g;
	}
	if (k == len && !copies)
		*partial = 1;
	return !copies && k < len && in[k] >= '0' && in[k] <= '9' ? 0 : k - i;
}

static size_t
form_match(const struct redact_form *fm, const unsigned char *in,
    size_t len, size_t i, int *partial)
{
	struct match_at at = { 0, i, 0, 0, 0, 0, 0, 0 };
	int forks = DUMP_FORKS;

	*partial = 0;
	if (fm->wrap & FORM_DEC)
		return dec_match(fm, in, len, i, partial);
	if (len - i >= fm->len && memcmp(fm->p, in + i, fm->len) == 0)
		return fm->len;
	return form_match_from(fm, in, len, i, at, &forks, partial);
}

/*
 * Can |n| bytes hold no match of |fm|?  A dump's or a decimal list's
 * may be shorter than the form: hexdump prints a repeated byte once and
 * "*" for its copies ("115 *\n" for "115 115 "), at the input's end too.
 */
static int
too_short(const struct redact_form *fm, size_t n)
{
	return n < fm->len && !(fm->wrap & (FORM_DUMP | FORM_DEC));
}

/*
 * May byte |j| of |fm| be at in[k], or a gap it may take begin there?  A
 * radix text's separator is followed by that byte, a line break or an
 * escape sequence (in text, a space after a word's first two letters
 * that begin a form's is no try).
 */
static inline int
byte_may(const struct redact_form *fm, const unsigned char *in, size_t len,
    size_t k, size_t j)
{
	unsigned char c;

	if (form_eq(fm, j, in[k]))
		return 1;
	if (!gap_may_begin(fm, in[k]))
		return 0;
	if (!(fm->wrap & FORM_SPACED) || !radix_spacer(in[k]) || k + 1 >= len)
		return 1;
	c = in[k + 1];
	return c == fm->p[j] || c == '\n' || c == '\r' || c == 0x1b ||
	    c == 0x9b;
}

/*
 * Returns the first (the longest) of the forms that begin with |c0|,
 * |c1| that matches at in[i], or NULL; *span is the number of bytes its
 * match takes.  |dump_only| tries the hex dump forms only, |spaced| the
 * radix texts (FORM_SPACED) only, whose byte 1 is at in[i + 2], after a
 * separator.  Inlined in each of match_from()'s 3 calls: a call there
 * took 8% more instructions over a build log.
 */
static inline __attribute__((always_inline)) const struct redact_form *
pair_match(const struct redact *r, const unsigned char *in, size_t len,
    size_t i, unsigned char c0, unsigned char c1, int dump_only, int spaced,
    size_t *span)
{
	const struct redact_form *fm;
	size_t f, hi = r->by_pair[(c0 << 8 | c1) + 1];
	int partial;

	for (f = r->by_pair[c0 << 8 | c1]; f < hi; f++) {
		fm = &r->forms[f];
		/*
		 * Byte 1 matched as it is: a byte 2 that is not the form's and
		 * begins no gap ends the match there (most tries end so).  A
		 * radix text's is past its separator; too_short() made sure
		 * in[i..len) holds the form's 4 or more bytes.
		 */
		if ((dump_only && !(fm->wrap & FORM_DUMP)) ||
		    (spaced && !(fm->wrap & FORM_SPACED)) ||
		    too_short(fm, len - i) ||
		    !byte_may(fm, in, len, spaced ? i + 3 : i + 2, 2))
			continue;
		if ((*span = form_match(fm, in, len, i, &partial)) > 0)
			return fm;
	}
	return NULL;
}

/*
 * Returns the longest of the forms that begin with byte |c0| (and, when
 * the input's next byte begins no escape sequence or break, |c1|) that
 * matches at in[i], or NULL; *span is the number of bytes its match
 * takes.  |dump_only| tries the hex dump forms only (c0 and c1 lowered
 * from the input's uppercase: a dump form matches either case).
 */
static const struct redact_form *
match_from(const struct redact *r, const unsigned char *in, size_t len,
    size_t i, unsigned char c0, unsigned char c1, int dump_only,
    size_t *span)
{
	const struct redact_form *fm, *best = NULL;
	size_t f, lo, hi, n;
	int partial;

	lo = r->start[c0];
	hi = r->start[c0 + 1];
	/*
	 * A separator at byte 1 (FORM_SPACED): the forms whose byte 1 it is,
	 * and the radix texts whose byte 1 follows it; a line break after
	 * it, every form.
	 */
	if (radix_spacer(c1) && len - i > 2 && in[i + 2] != '\n' &&
	    in[i + 2] != '\r') {
		best = pair_match(r, in, len, i, c0, c1, dump_only, 0, span);
		fm = dump_only ? NULL : pair_match(r, in, len, i, c0, in[i + 2],
		    0, 1, &n);
		if (fm != NULL && (best == NULL || fm->len > best->len)) {
			best = fm;
			*span = n;
		}
		return best;
	}
	if (c1 == 0x1b || c1 == 0x9b || c1 == '\n' || c1 == '\r' ||
	    c1 == '\\' || c1 == '=' || radix_spacer(c1)) {
		/* Byte 1 may begin a sequence or a break: every form. */
		for (f = lo; f < hi; f++) {
			fm = &r->forms[f];
			if (too_short(fm, len - i) || (fm->p[1] != c1 &&
			    (c1 == '\n' || c1 == '\r') &&
			    !(fm->wrap & (FORM_LINES | FORM_CHARS | FORM_DEC |
			    FORM_INDENT))) ||
			    (fm->p[1] != c1 && c1 == '\\' &&
			    !(fm->wrap & (FORM_SED | FORM_DEC | FORM_SPACED))) ||
			    (fm->p[1] != c1 && c1 == '=' &&
			    !(fm->wrap & FORM_QP)) ||
			    (fm->p[1] != c1 && radix_spacer(c1) &&
			    !(fm->wrap & FORM_SPACED)) ||
			    (dump_only && !(fm->wrap & FORM_DUMP)))
				continue;
			if (best != NULL && (fm->len < best->len ||
			    (fm->len == best->len &&
			    fm->secret >= best->secret)))
				continue;
			if ((n = form_match(fm, in, len, i, &partial)) > 0) {
				best = fm;
				*span = n;
			}
		}
		return best;
	}
	/* Else the forms whose byte 1 is c1, the longest first. */
	return pair_match(r, in, len, i, c0, c1, dump_only, 0, span);
}

/*
 * Returns the longest form that starts at in[i], or NULL; *span is the
 * number of bytes its match takes.  A hex dump form is held in
 * lowercase and matches uppercase hex too (xxd -u, hexdump -e "%08X"):
 * where in[i] or in[i + 1] is an uppercase hex digit, the dump forms
 * that begin with them lowered are tried too.
 */
static const struct redact_form *
match_at(const struct redact *r, const unsigned char *in, size_t len,
    size_t i, size_t *span)
{
	const struct redact_form *fm, *up;
	size_t n = 0;

	fm = match_from(r, in, len, i, in[i], in[i + 1], 0, span);
	/*
	 * A decimal form whose first number is one digit is held with a ","
	 * after it: tried too where another separator follows the digit.
	 */
	if (fm == NULL && r->dec_short && in[i] >= '0' && in[i] <= '9' &&
	    in[i + 1] != ',' && dec_sep(in[i + 1]))
		fm = match_from(r, in, len, i, in[i], ',', 0, span);
	if (!is_upper_hex(in[i]) && !is_upper_hex(in[i + 1]))
		return fm;
	up = match_from(r, in, len, i, hex_lower(in[i]), hex_lower(in[i + 1]),
	    1, &n);
	if (up == NULL || (fm != NULL && (fm->len > up->len ||
	    (fm->len == up->len && fm->secret <= up->secret))))
		return fm;
	*span = n;
	return up;
}

/*
 * Does in[i..len) hold the beginning of a form, but not all of it (the
 * stream it is from may still be growing)?  A dump form's beginning in
 * uppercase too.
 */
static int
partial_at(const struct redact *r, const unsigned char *in, size_t len,
    size_t i)
{
	size_t f;
	int partial;

	for (f = r->start[in[i]]; f < r->start[in[i] + 1]; f++) {
		(void)form_match(&r->forms[f], in, len, i, &partial);
		if (partial)
			return 1;
	}
	if (!is_upper_hex(in[i]))
		return 0;
	for (f = r->start[hex_lower(in[i])]; f < r->start[hex_lower(in[i]) + 1];
	    f++) {
		if (!(r->forms[f].wrap & FORM_DUMP))
			continue;
		(void)form_match(&r->forms[f], in, len, i, &partial);
		if (partial)
			return 1;
	}
	return 0;
}

/* Returns the number of line breaks in p[0..n). */
static size_t
line_count(const unsigned char *p, size_t n)
{
	const unsigned char *e = p + n;
	size_t c = 0;

	while ((p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		c++;
		p++;
	}
	return c;
}

size_t
redact_longest(const struct redact *r)
{
	size_t i, n, longest = 0;

	/*
	 * A wrapped form takes up to 2 more bytes between characters (a
	 * break, a dump's separators), a radix text 3 + LINE_INDENT (a
	 * separator, a break and an indent; an escaped "\\r\\n" is 4), a value
	 * of several lines LINE_INDENT and a "\\r" at each of its breaks, any
	 * form REDACT_MAX_ESC more of
	 * escape sequences; a hex dump (and xxd -b's bits, 8 characters
	 * a byte), between two bytes, a C array's or an escaped string's
	 * prefix (DUMP_PREFIX) or a change of line: the first up to
	 * DUMP_COL + DUMP_OFF more, a later one the bytes the match took on
	 * its line and DUMP_PAD + DUMP_OFF (8 more for a "\r\n" and a last
	 * word's padding), and the rest of its last line; od -c's fields, a
	 * line break and an offset before any field but the first (each at
	 * least 2 bytes); a FORM_UNDER form, passing lines under its lines
	 * (od -t x1 -c), the first and the last DUMP_UNDER and a line break,
	 * a later one, after UNDER_MIN bytes or more, DUMP_OFF + 4 and 4 for
	 * each byte the match took on its line (in od -c's fields, a byte's
	 * 4 bytes of the form), and od -c's rest of its last line.
	 */
	_Static_assert(DUMP_PREFIX <= DUMP_PAD + DUMP_OFF + 8,
	    "a C array's prefix fits the bound of a change of line");
	for (i = 0; r != NULL && i < r->nforms; i++) {
		n = ((r->forms[i].wrap & FORM_SPACED) ? r->forms[i].len +
		    (r->forms[i].len - 1) * (3 + LINE_INDENT) :
		    (r->forms[i].wrap & FORM_LINES) ?
		    3 * r->forms[i].len - 2 : r->forms[i].len) + REDACT_MAX_ESC;
		if (r->forms[i].wrap & FORM_INDENT)
			n += (LINE_INDENT + 1) * line_count(r->forms[i].p,
			    r->forms[i].len);
		if (r->forms[i].wrap & FORM_DUMP)
			n += DUMP_COL + DUMP_OFF + 8 + r->forms[i].len / 2 *
			    (1 + DUMP_PAD + DUMP_OFF + 8) + DUMP_REST;
		if (r->forms[i].wrap & FORM_BITS)
			n += DUMP_COL + DUMP_OFF + 8 + r->forms[i].len / 8 *
			    (1 + DUMP_PAD + DUMP_OFF + 8) + DUMP_REST;
		if (r->forms[i].wrap & FORM_CHARS)
			n += (r->forms[i].len / 2 + 1) * (2 + DUMP_OFF);
		if (r->forms[i].wrap & FORM_SED)
			n += 2 * r->forms[i].len;
		if (r->forms[i].wrap & FORM_QP)
			n += 3 * r->forms[i].len;
		if (r->forms[i].wrap & FORM_DEC)
			n += (r->forms[i].len / 2 + 1) * DEC_GAP;
		if (r->forms[i].wrap & FORM_WIDE)
			n += (r->forms[i].len / 2 + 1) * DEC_WIDE;
		if ((r->forms[i].wrap & (FORM_UNDER | FORM_DUMP)) ==
		    (FORM_UNDER | FORM_DUMP))
			n += 2 * (DUMP_UNDER + 2) + r->forms[i].len / 2 /
			    UNDER_MIN * (DUMP_OFF + 4) + 2 * r->forms[i].len;
		if ((r->forms[i].wrap & (FORM_UNDER | FORM_CHARS)) ==
		    (FORM_UNDER | FORM_CHARS))
			n += 3 * DUMP_UNDER + 4 + ((r->forms[i].len / 4 + 1) /
			    UNDER_MIN + 1) * (DUMP_OFF + 4) + r->forms[i].len;
		if (n > longest)
			longest = n;
	}
	return longest;
}

int
redact_contains(const struct redact *r, const void *inp, size_t len)
{
	const unsigned char *in = inp;
	size_t i, span;

	if (r == NULL || r->nforms == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (pair_may(r, in, len, i) &&
		    match_at(r, in, len, i, &span) != NULL)
			return 1;
	return 0;
}

size_t
redact_settled(const struct redact *r, const void *inp, size_t len)
{
	const unsigned char *in = inp;
	size_t i, span;

	if (r == NULL || r->nforms == 0)
		return len;
	/* The scan of redact_buf(), stopping where a form may begin. */
	for (i = 0; i < len; ) {
		if (r->start[in[i]] == r->start[in[i] + 1] &&
		    !is_upper_hex(in[i])) {
			i++;
			continue;
		}
		if (partial_at(r, in, len, i))
			return i;
		if (pair_may(r, in, len, i) &&
		    match_at(r, in, len, i, &span) != NULL)
			i += span;
		else
			i++;
	}
	return len;
}

size_t
redact_release(const struct redact *r, const void *inp, size_t len)
{
	const unsigned char *in = inp;
	size_t i, span, keep = redact_longest(r);

	if (keep == 0)
		return len;
	keep--;
	if (len <= keep)
		return 0;
	/* The scan of redact_buf(), up to the held-back tail. */
	for (i = 0; i < len - keep; ) {
		if (pair_may(r, in, len, i) &&
		    match_at(r, in, len, i, &span) != NULL)
			i += span;
		else
			i++;
	}
	return i;
}

size_t
redact_release_lines(const struct redact *r, const void *inp, size_t len)
{
	const unsigned char *in = inp;
	size_t i, span, line = 0, keep = redact_longest(r);

	if (keep == 0) {
		for (i = len; i > 0 && in[i - 1] != '\n'; i--)
			;
		return i;
	}
	keep--;
	if (len <= keep)
		return 0;
	/*
	 * The scan of redact_release(); a line ends past a "\n" the scan
	 * stands on (a match's last byte too), never inside a match.
	 */
	for (i = 0; i < len - keep; i++) {
		if (pair_may(r, in, len, i) &&
		    match_at(r, in, len, i, &span) != NULL)
			i += span - 1;
		if (in[i] == '\n')
			line = i + 1;
	}
	return line;
}

/* Appends src[0..n) to the growing output. */
static int
out_put(char **buf, size_t *cap, size_t *o, const void *src, size_t n)
{
	char *nb;
	size_t ncap;

	if (*cap - *o < n + 1) {
		ncap = *cap * 2 + n + 1;
		if ((nb = realloc(*buf, ncap)) == NULL)
			return AL_ERR_ALLOC;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *o, src, n);
	*o += n;
	return 0;
}

int
redact_buf(const struct redact *r, const void *inp, size_t len, char **out,
    size_t *outlen)
{
	const unsigned char *in = inp;
	const struct redact_form *fm;
	size_t i, o = 0, cap, run = 0, count = 0, span = 0;
	char *buf;

	*out = NULL;
	*outlen = 0;
	cap = len + 1;
	if ((buf = malloc(cap)) == NULL)
		return AL_ERR_ALLOC;
	/* Unmatched bytes in[run..i) are copied in one go. */
	for (i = 0; i < len; ) {
		if (r == NULL || !pair_may(r, in, len, i) ||
		    (fm = match_at(r, in, len, i, &span)) == NULL) {
			i++;
			continue;
		}
		if (out_put(&buf, &cap, &o, in + run, i - run) != 0 ||
		    out_put(&buf, &cap, &o, r->secrets[fm->secret].tag,
		    r->secrets[fm->secret].taglen) != 0) {
			free(buf);
			return AL_ERR_ALLOC;
		}
		i += span;
		run = i;
		count++;
	}
	if (out_put(&buf, &cap, &o, in + run, len - run) != 0) {
		free(buf);
		return AL_ERR_ALLOC;
	}
	buf[o] = '\0';
	*out = buf;
	*outlen = o;
	return count > INT32_MAX ? INT32_MAX : (int)count;
}

static int
redact_json_depth(const struct redact *r, json_t *v, int depth)
{
	const char *key;
	json_t *child, *tmp;
	char *out;
	size_t i, outlen;
	int n, total = 0;

	if (depth > REDACT_MAX_DEPTH)
		return AL_ERR_LIMIT;
	switch (json_typeof(v)) {
	case JSON_STRING:
		n = redact_buf(r, json_string_value(v), json_string_length(v),
		    &out, &outlen);
		if (n < 0)
			return n;
		if (n > 0 && json_string_setn(v, out, outlen) != 0) {
			/* Not UTF-8 after replacement: drop the whole string. */
			if (json_string_set(v, "[REDACTED]") != 0) {
				free(out);
				return AL_ERR_ALLOC;
			}
		}
		free(out);
		return n;
	case JSON_ARRAY:
		json_array_foreach(v, i, child) {
			if ((n = redact_json_depth(r, child, depth + 1)) < 0)
				return n;
			total += n;
		}
		return total;
	case JSON_OBJECT:
		json_object_foreach(v, key, child) {
			if ((n = redact_json_depth(r, child, depth + 1)) < 0)
				return n;
			total += n;
		}
		/* Keys: rename after the values are done. */
		json_object_foreach_safe(v, tmp, key, child) {
			n = redact_buf(r, key, strlen(key), &out, &outlen);
			if (n < 0)
				return n;
			if (n > 0) {
				json_incref(child);
				json_object_del(v, key);
				if (json_object_set_new(v, out, child) != 0) {
					free(out);
					return AL_ERR_ALLOC;
				}
				total += n;
			}
			free(out);
		}
		return total;
	default:
		return 0;
	}
}

int
redact_json(const struct redact *r, json_t *root)
{
	if (r == NULL || r->nsecrets == 0 || root == NULL)
		return 0;
	return redact_json_depth(r, root, 0);
}
