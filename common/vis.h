/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * vis: bytes from the agent made safe to show a person on a terminal.
 *
 * Anything that came from the agent or its workspace (a diff, a tool's
 * arguments, a JSON-RPC id, a log field) may carry bytes that drive the
 * terminal instead of being shown: ESC[1A ESC[2K moves up and erases the
 * line above, so a diff can hide its own backdoor line; a bidirectional
 * override (Trojan Source) makes code read differently from how it runs;
 * a zero-width or tag character hides text outright.  vis escapes them,
 * after OpenBSD vis(3) with VIS_CSTYLE, so that what the person reads is
 * every byte that is there:
 *
 *   BEL BS HT LF VT FF CR ESC   \a \b \t \n \v \f \r \e
 *   other C0 controls, DEL      \xNN (two lowercase hex digits)
 *   bytes that are not UTF-8    \xNN (each byte of the broken sequence)
 *   C1 controls U+0080..U+009F  \u{0085}
 *   invisible format characters \u{202E} (at least four uppercase hex
 *                               digits): bidi embeddings, overrides,
 *                               isolates and marks (U+061C, U+200E,
 *                               U+200F, U+202A..U+202E, U+2066..U+2069),
 *                               zero-width characters (U+200B..U+200D,
 *                               U+2060..U+2064, U+FEFF), line and
 *                               paragraph separators (U+2028, U+2029),
 *                               the soft hyphen U+00AD, U+180E,
 *                               U+206A..U+206F, U+FFF9..U+FFFB, the
 *                               Hangul fillers, and the rest of
 *                               Unicode's default-ignorable code points:
 *                               the variation selectors (U+FE00..U+FE0F,
 *                               U+E0100..U+E01EF: 256 of them carry a
 *                               byte each, unseen), the tag characters
 *                               U+E0000..U+E007F, U+034F, U+17B4,
 *                               U+17B5, U+180B..U+180F, U+FFF0..U+FFF8,
 *                               U+1BCA0..U+1BCA3, U+1D173..U+1D17A and
 *                               U+E0080..U+E0FFF
 *   spaces but U+0020           \u{00A0}: U+00A0, U+1680, U+2000..U+200A,
 *                               U+202F, U+205F, U+3000, and the braille
 *                               blank U+2800 (a space to the eye, another
 *                               byte to every program, and a run of them
 *                               would hide text as a run of spaces does)
 *   a third combining mark in   \u{0301}: U+0300..U+036F, U+1AB0..U+1AFF,
 *   a row, and every one after  U+1DC0..U+1DFF, U+20D0..U+20FF,
 *                               U+FE20..U+FE2F (hundreds on one letter
 *                               draw over the lines around it)
 *   more than 32 blanks in a    \s{N} for N spaces, \t for each tab:
 *   row (spaces, and tabs       a run that long shows as nothing over
 *   where they are kept)        whole lines, enough to push what follows
 *                               (or came before) off the screen
 *   what a manifest's path is   \u{0430}: by common/lookalike.h's
 *   refused for as a look-alike table and rule, one for both: ASCII
 *   of ASCII                    in another form anywhere (fullwidth
 *                               punctuation, the division slash, Roman
 *                               numerals, mathematical letters, Lisu,
 *                               IPA a g i j l); each Greek, Cyrillic,
 *                               Armenian, Cherokee or fullwidth letter
 *                               of a word lookalike_path() refuses:
 *                               "p\u{0430}ypal", "config\u{0436}" and
 *                               "\u{0440}\u{0430}\u{0443}" (Cyrillic "pay")
 *                               are shown so, a Russian or Greek word
 *                               with letters of its own is not.  A word
 *                               is the manifest's: ASCII letters and
 *                               digits, and all that passes unescaped
 *                               beyond ASCII ("config\u{00B7}" and a
 *                               Cyrillic "key" is one word); anything
 *                               escaped or a backslash ends it;
 *                               in a word of more than 64 characters
 *                               each such letter is escaped
 *   backslash                   \\ (so that an escape cannot be forged)
 *
 * Everything else, including all other valid printable UTF-8, passes
 * unchanged.  The escaped text is printable ASCII plus that UTF-8 (plus
 * newlines and tabs when the flags keep them).  The module is pure: no
 * I/O, no global state.
 */
#ifndef AIRLOCK_VIS_H
#define AIRLOCK_VIS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Flags.  With none, the output is one line: newlines and tabs are
 * escaped too.
 */
#define VIS_KEEP_NL 0x01 /* "\n" passes unchanged: multi-line text */
#define VIS_KEEP_TAB 0x02 /* "\t" passes unchanged */
/*
 * Backslash passes unchanged.  Only for text that is already escaped
 * JSON (json_dumps output), where a backslash always starts a JSON
 * escape and "\u{" or "\x" cannot occur, so vis's escapes stay
 * unambiguous.
 */
#define VIS_NOSLASH 0x04
/*
 * The text is shown between double quotes (a JSON string, a quoted
 * field of airlock audit show): each character drawn as a double quote
 * is escaped too, \u{201D} (U+02BA, U+02DD, U+02EE, U+05F4, U+1CD3,
 * U+201C..U+201F, U+2033, U+2036, U+3003, U+FF02): in
 * {"url":"a\u{201D},\u{201D}path\u{201D}:\u{201D}README.md"} they
 * would seem to close the agent's string and open a key of their own.
 * The one table of them (airlock audit show kept its own).  The '"'
 * itself is the caller's (JSON's \", audit's \").
 */
#define VIS_QUOTED 0x08
#define VIS_MULTILINE (VIS_KEEP_NL | VIS_KEEP_TAB)

/* One input byte becomes at most this many output bytes. */
#define VIS_MAX_EXPANSION 4

/*
 * Escapes src[0..len) (which may contain NUL bytes, shown as \x00) into
 * dst, NUL-terminated.  Returns 0 and sets *outlen (if not NULL) to the
 * escaped length without the NUL; or AL_ERR_LIMIT if dst[0..dstlen) is
 * too small for all of it, with *outlen set to the size that would have
 * been needed (without the NUL) and dst set to "" (if dstlen > 0):
 * never a silently truncated result.  A dstlen of VIS_MAX_EXPANSION *
 * len + 1 is always enough.
 */
int vis_buf(char *dst, size_t dstlen, const char *src, size_t len, int flags,
    size_t *outlen);

/*
 * Returns the escaped form of src[0..len) as a malloc'd NUL-terminated
 * string (caller frees), or NULL if memory runs out or |len| is too
 * large to escape.  A NULL |src| is taken as "".
 */
char *vis_dup(const char *src, size_t len, int flags);

/* vis_dup(s, strlen(s), flags); a NULL |s| gives "". */
char *vis_str(const char *s, int flags);

/*
 * For a column of at most |max| output bytes: returns how many leading
 * bytes of src[0..len) can be escaped within |max| bytes without
 * splitting a character or an escape.  The caller shows that prefix and
 * marks the cut itself (the result is < len when something was left
 * out).
 */
size_t vis_fit(const char *src, size_t len, int flags, size_t max);

/*
 * The escape of the vis_fit() prefix of src[0..len), at most |max|
 * bytes, malloc'd (NULL if memory runs out), and the prefix's length in
 * *used (if not NULL).  Each character is escaped as it is in the whole
 * (whether a look-alike is shown depends on the rest of its word), so
 * the result is a prefix of vis_dup(src, len, flags): escape a cut with
 * this, not with vis_dup() of the cut alone.
 */
char *vis_dup_fit(
    const char *src, size_t len, int flags, size_t max, size_t *used);

/*
 * A line wider than the terminal wraps, and the terminal starts its next
 * row with whatever the text holds there: an agent pads its reason, or a
 * diff line, to the edge of an 80-column screen and writes "  evidence:"
 * or " if (pw == ...)" after it, and that row reads as a line of
 * airlock's own or as unchanged code.  So what is shown is folded first:
 * each row after a line's first begins with VIS_FOLD_MARK, which no line
 * shown begins with.
 */
#define VIS_FOLD_MARK ">> "
#define VIS_FOLD_MIN 20

/*
 * Returns s[0..len) (text ready to show: escaped, lines ending in "\n")
 * folded into rows of at most |width| columns (at least VIS_FOLD_MIN),
 * every row after a line's first beginning with VIS_FOLD_MARK; malloc'd
 * (caller frees), NULL if memory runs out.  An escape is never split,
 * a tab runs to the next multiple of 8, and a character beyond ASCII
 * counts as two columns.
 */
char *vis_fold(const char *s, size_t len, size_t width);

/*
 * Writes the text that |fmt| and its arguments make (escaped already,
 * lines ending in "\n") to |fp|, folded as vis_fold() folds it to
 * |width| (term_columns() of |fp|'s descriptor, taken once per command):
 * the one way a line that quotes the agent is printed for a person.
 * Returns 0, or -1 if memory runs out; a failed write is left in |fp|'s
 * error indicator, as fprintf() leaves it.
 */
int vis_fold_printf(FILE *fp, size_t width, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* vis_fold_printf() with a va_list. */
int vis_fold_vprintf(FILE *fp, size_t width, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
