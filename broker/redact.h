/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * redact: replace secret values, and the usual encodings of them, with
 * "[REDACTED:NAME]" in buffers and JSON trees.
 *
 * For each secret the redactor matches, byte for byte:
 *   - the raw value, and a value of several lines (a PEM key) with up
 *     to LINE_INDENT (16) bytes of blanks and a comment's or a quote's
 *     marks ("#", ">", "/", ";", "*") after each of its line breaks, as
 *     a YAML block scalar indents it ("key: |", sed 's/^/    /'), a
 *     config comments it out ("# ", "// ") or a mail quotes it ("> "),
 *     and with a "\r" before each (unix2dos, a MIME body);
 *   - hex in either case (mixed too: xxd -u, hexdump -e "%08X"), and in
 *     little-endian words of 2 bytes (od -x, hexdump with no option),
 *     4 (od -t x4, xxd -e) and 8 (od -t x8, xxd -e -g 8), each word's
 *     bytes reversed, the value at any byte of a word (the spaces xxd -e
 *     prints for the bytes a cut last word lacks stand for them);
 *   - the value as od -c and hexdump -c print it, each byte in a field
 *     of 4 columns (a control byte as \n or \ooo), over lines with an
 *     offset before each or none; as od -a prints it (its names: "sp",
 *     "nl", the high bit dropped) and as od -b prints it (3 octal digits
 *     and a space a byte);
 *   - base32 (RFC 4648, padded or not, and the part that is the value's
 *     alone at byte offset 0 to 4 of a longer stream) in uppercase and
 *     lowercase, and base32hex (basenc --base32hex) in uppercase and
 *     lowercase;
 *     base85 in the alphabets of Z85 (basenc --z85), RFC 1924 (Python's
 *     b85encode, git) and Ascii85 (Python's a85encode, btoa), the value
 *     alone (its last group cut) and the groups of 4 bytes that lie
 *     inside it at byte offset 0 to 3 of a longer stream; base58 (the
 *     value alone, up to 1024 bytes); each Caesar shift of its letters,
 *     both cases (rot13: tr A-Za-z N-ZA-Mn-za-m, and the other 24: tr
 *     A-Za-z D-ZA-Cd-za-c), and rot47 (tr '!-~' 'P-~!-O'); its bits,
 *     8 binary digits a byte, either end first (basenc --base2msbf,
 *     --base2lsbf), the first laid out as xxd -b prints it (a hex
 *     dump's gaps and changes of line between two bytes' 8 digits);
 *     the value reversed (rev), with a space or a line break between its
 *     characters (sed 's/./& /g', fold -w 1, grep -o .), its letters all
 *     raised or all lowered (tr a-z A-Z, tr A-Z a-z);
 *   - its bytes in decimal, unsigned or signed (od -t d1, a Java
 *     byte[]), with a decimal dump's gap between two: up to 4 of " ",
 *     ",", ";" or a tab, or a line break, an optional offset (up to 12
 *     hex digits, an optional ":") and up to 16 blanks (Python's
 *     list(bytes), a Node Buffer's JSON, jq's indented arrays, od -t u1,
 *     od -t d1, hexdump -e '/1 "%d "' and '/1 "%u\n"') or an escaped
 *     string's ("\" before each octal, \132\161; ";&#" between two
 *     HTML entities, &#90;&#113;), each number
 *     as it is or zero-padded to 3 characters (printf "%03d": "090",
 *     "-01"), not within a longer number; as hexdump with no -v prints
 *     a repeated byte, once and then "*" and a line break for its
 *     copies (the hex form too); its bytes in octal the same way
 *     (hexdump -e '/1 "%o "'); the numbers of the little-endian words
 *     of 2, 4 and 8 bytes that lie inside it at each offset, the same
 *     way, in decimal, unsigned or signed (od -d, od -t u2, od -t d2,
 *     od -t u4, od -i, od -t u8, od -t d8, od -l, hexdump -d) and (2
 *     bytes) octal (od with no option, od -o, hexdump -o),
 *     each zero-padded to up to 6 characters (hexdump -d's "08293"),
 *     when they hold 4 bytes or more;
 *   - the value as sed -n l prints it ("\\" doubled, \a \b \f \r \t \v,
 *     other bytes outside " " to "~" as \ooo, a line break as "$" and
 *     the break), a long line broken anywhere with "\\" and a line break;
 *     as cat -v ("^A", "M-^I", "^?") and cat -A (a tab as "^I" too, a
 *     line's end as "$") print it;
 *   - the value as a hex dump's ASCII column shows it, a byte outside
 *     " " to "~" as "." (xxd, hexdump -C, od -t x1z), when it holds
 *     such a byte and shows 4 or more as they are;
 *   - quoted-printable (RFC 2045: "=" and each byte outside " " to "~"
 *     but a tab as "=XX"; the value itself when it holds neither), with
 *     its soft line breaks ("=" and a line break) anywhere in the match
 *     (python3 -m quopri, Perl's encode_qp);
 *   - percent-encoding (RFC 3986: every byte outside A-Z a-z 0-9 - . _ ~
 *     as %XX, uppercase and lowercase hex digits), the form-encoding
 *     variant where a space is "+", and two that leave some bytes as they
 *     are: "/" (Python's urllib.parse.quote) and "!'()*" (JavaScript's
 *     encodeURIComponent);
 *   - the inside of a JSON string as jq, jansson and Python's json print
 *     it: '"' and backslash escaped, the five named control escapes, any
 *     other control byte as a \u00XX escape in lowercase or uppercase hex
 *     (a PEM key in a tool's JSON is one line); and as Python's json
 *     (ensure_ascii: a character over U+007F as lowercase \uxxxx, or a
 *     surrogate pair), PHP's json_encode (that, and "/" as "\/") and Go's
 *     encoding/json ("<", ">", "&" as \u003c, \u003e, \u0026) print it;
 *   - the value as a shell prints it quoted: inside single quotes with
 *     each "'" as "'\\''" (bash's xtrace, set, alias) or "'\"'\"'"
 *     (Python's shlex.quote), and inside double quotes with a backslash
 *     before each '$', '`', '"' and backslash (export -p, declare -p);
 *   - the value as bash's printf %q prints it: a backslash before each
 *     byte of bash's special set (a leading '#' or '~' with or without
 *     one), and the inside of $'...' (printf %q, ${var@Q} and declare -p
 *     of a value holding a control byte): "\\" and "'" escaped, the named
 *     escapes (\E for ESC), other control bytes as \ooo, bytes over 0x7f
 *     as they are or as \ooo (the C locale);
 *   - base64 and base64url, with and without "=" padding;
 *   - the inner part of base64/base64url when the value is embedded in a
 *     longer encoded stream at byte offset 0, 1 or 2 modulo 3 (so
 *     "Basic base64(user:secret)" and `echo secret | base64` are caught),
 *     when that inner part is at least REDACT_MIN_INNER characters long
 *     (a 4-byte secret's is 4 or 5);
 *   - base64 of base64: the inner part of the value's base64 at each
 *     byte offset, inside a longer base64 stream at each byte offset
 *     the same way (a Kubernetes .dockerconfigjson's "auth", base64 of
 *     "user:token", is inside the base64 of the JSON);
 *   - each of these radix texts (base64, base32, base85, base58) also
 *     with one " " or "-" between two of its characters, and a line
 *     break after it, as one printed in groups shows it (sed 's/..../&
 *     /g', a TOTP key's "JBSW Y3DP", fold -w 20 of that), up to
 *     LINE_INDENT bytes of such an indent after a line break (base64 |
 *     sed 's/^/    /', a YAML folded value), or a line
 *     break escaped as a JSON string escapes it ("\\n", "\\r\\n": jq -Rs .
 *     of base64(1)'s lines, Python's json.dumps() of encodebytes());
 * A hex or base64 form also matches broken into lines, with one "\n" or
 * "\r\n" between any two of its characters (base64(1) breaks at 76
 * columns, xxd -p at 60), so a match may take up to 3 * len - 2 bytes
 * (a radix text's, with a separator before each break and an indent
 * after it, (4 + LINE_INDENT) * len - 3 - LINE_INDENT).  The hex form and the bits (most significant
 * first) also match a line break escaped as in a JSON string between
 * two bytes (xxd -p | jq -Rs ., basenc --base2msbf -w 64 | jq -Rs .).
 * A hex form also matches laid out as a hex dump: between two bytes up
 * to 4 of " ", ":", "-" or "," (xxd and its -g1, hexdump -C, od -t x1,
 * od -x, hexdump -x, Python's bytes.hex(":"), hexdump -e '/1 "%02x,"'),
 * or a C
 * array's or an escaped string's
 * prefix ("0x", "0X", "\x"; every byte escaped: "\u00" as JSON's,
 * "%" percent-encoded, "=" quoted-printable, "&#x" an HTML entity)
 * after an optional "," or ";" and up to 2 spaces or a line break and
 * an indent (xxd -i), or a change of line: the rest of
 * the line (its ASCII column, after 2 separators, or none) in printable
 * bytes, at most 264 on the match's first line (xxd -c 256, od -t x1z
 * -w256) and on a later one as many as the bytes the match took on it
 * and 8 (a line there is the secret's alone: xxd -c 4, xxd -c 1), a line
 * break, the next line's offset (up to 12 hex digits, an optional ":",
 * 1 to 4 spaces) or none (hexdump -e '4/4 "%08X " "\n"').  A match that
 * changed lines past an ASCII column runs on to the end of its last line
 * (at most 1040 printable bytes: a line of 256), whose ASCII column shows
 * the secret's tail (a dump without one, xxd -p, keeps the line's rest).
 * The hex form (not its words) and od -c's, od -a's and od -b's fields
 * also pass a line under each of their lines (od -t x1 -c prints one of
 * characters under each line of hex, od -c -t x1 one of hex under each
 * of characters; up to 64 bytes a line), and a match that passed one
 * takes the rest of its last line and the line under it.
 * Any form also matches with terminal escape sequences between two of
 * its characters, up to REDACT_MAX_ESC bytes of them in one match: CSI
 * (ESC "[" or 0x9b ..., colours: grep --color=always colours the part
 * of a secret its pattern matched, a logger a word), OSC and the other
 * strings (ESC "]", "P", "^" or "_" up to BEL or ESC "\": a terminal
 * hyperlink, a title), ESC, intermediate bytes and a final byte (ESC
 * "(" "B", as tput sgr0 prints), ESC and one other byte, a lone ESC.
 * Longer matches win over shorter ones at the same position.
 *
 * A secret shorter than REDACT_MIN_LEN bytes is refused (AL_ERR_LIMIT):
 * it is too short to redact without destroying unrelated text, so it is
 * ungrantable.  The redactor does not catch other transformations
 * (compression, encryption, substitutions other than those shifts (a
 * shift of one case's letters alone, tr a-z d-za-c; a shift of "!" to
 * "~" other than rot47, or of " " to "~"), other separators between
 * the characters (a radix text's: other than one " " or "-" and a
 * line break), base58 of a value over 1024
 * bytes or inside a longer
 * stream, base85 of a value that holds no group of 4 bytes of its own
 * (under 7 bytes, at an offset), escape sequences inside a decimal
 * dump, the bytes of a word the value shares with its neighbours (in
 * od -t u2's or od -t u4's numbers, 1 to 3 bytes at each end, od -t
 * u8's 1 to 7), octal words of 4 (od -t o4), two of the
 * a value's lines indented past LINE_INDENT bytes or by other bytes
 * (a line number, "| ", a diff's "+"), or with its line breaks changed otherwise
 * ("\r" alone, taken out), an escaped line break inside a byte's hex or bits, or in a dump with
 * offsets or an ASCII column (hexdump -C | jq -Rs .), two of the
 * transformations above at once but base64 twice (rev and tr a-z A-Z,
 * rev then base64, base64 then hex: each pair another form a secret),
 * an escape of a
 * byte's hex in one digit (&#xa;), JavaScript's \u{5a}, an HTML
 * entity's or an octal escape's number zero-padded past 3 digits,
 * splitting across
 * two writes, JSON
 * escapes other than those above: uppercase \uXXXX for a non-ASCII
 * character, a \uXXXX spelling of another printable one (of some
 * bytes, not every one); UTF-16, more
 * escape sequences than above (a hyperlink whose URL takes it past
 * REDACT_MAX_ESC bytes), other escape sequences: 8-bit C1 controls other
 * than CSI (0x9d), zero-width characters between the characters, a hex
 * dump whose first line's ASCII column is past 264 bytes (od -w512)
 * or whose last line's rest is past 1040, od -t x1 -c of more than 64
 * bytes a line or in words (od -t x2 -c), the ASCII
 * column of a secret dumped on one line that shows fewer than 4 of its
 * bytes; other shell quoting: zsh's or Python's repr()); see
 * docs/AUDIT.md.
 *
 * All derived forms are held in sodium_malloc'd memory and wiped by
 * redact_free().
 */
#ifndef AIRLOCK_REDACT_H
#define AIRLOCK_REDACT_H

#include <stddef.h>

#include <jansson.h>

#define REDACT_MIN_LEN		4	/* bytes; shorter secrets are ungrantable */
#define REDACT_MIN_INNER	4	/* chars of an unaligned base64 fragment */
#define REDACT_MAX_ESC		1024	/* bytes of escape sequences in a match */
#define REDACT_MAX_LEN		65536	/* bytes of one secret value */
#define REDACT_MAX_NAME		64

struct redact;

/* Returns an empty redactor, or NULL on allocation failure. */
struct redact	*redact_new(void);

/* Wipes every derived form and frees |r|.  NULL is fine. */
void		 redact_free(struct redact *r);

/*
 * Returns 1 if a value of |len| bytes can be granted (redacted safely),
 * else 0.
 */
int		 redact_grantable(size_t len);

/*
 * Adds secret |name| with value[0..len) (copied into guarded memory).
 * Returns 0; AL_ERR_LIMIT if len < REDACT_MIN_LEN or > REDACT_MAX_LEN;
 * AL_ERR_FORMAT if |name| is empty, longer than REDACT_MAX_NAME or has a
 * character outside [A-Za-z0-9_.-]; AL_ERR_ALLOC.
 */
int		 redact_add(struct redact *r, const char *name, const void *value,
		    size_t len) __attribute__((warn_unused_result));

/* Returns the number of secrets held. */
size_t		 redact_count(const struct redact *r);

/*
 * Returns 1 if |r| holds the secret |name| with exactly the value
 * value[0..len) (the value it redacts), else 0 (NULL |r| too).  What a
 * runner is handed must be what the redactor hides.
 */
int		 redact_holds(const struct redact *r, const char *name,
		    const void *value, size_t len);

/*
 * Redacts in[0..len) into a new NUL-terminated buffer *out (caller
 * frees with free(); it holds no secret) of *outlen bytes.  Returns the
 * number of replacements (>= 0) or AL_ERR_ALLOC.  *out and *outlen are
 * cleared first.  A NULL or empty |r| copies the input.
 */
int		 redact_buf(const struct redact *r, const void *in, size_t len,
		    char **out, size_t *outlen) __attribute__((warn_unused_result));

/*
 * Returns the most bytes a match of any form held may take, line breaks
 * included (0 when none): a scan of a stream in pieces that scans the
 * last redact_longest() - 1 bytes of each piece again with the next finds
 * every form.
 */
size_t		 redact_longest(const struct redact *r);

/* Returns 1 if in[0..len) holds a secret or one of its forms, else 0. */
int		 redact_contains(const struct redact *r, const void *in,
		    size_t len);

/*
 * Returns how many leading bytes of in[0..len), a stream that may still
 * grow, can be redacted and given out now: the rest begins like a secret
 * (or one of its forms) that more bytes could complete, and a read that
 * cut there would give out a piece the redactor cannot recognise.  No
 * form matched in the settled bytes runs past them.  len for a NULL or
 * empty |r|.
 */
size_t		 redact_settled(const struct redact *r, const void *in,
		    size_t len);

/*
 * Returns how many leading bytes of in[0..len), a stream that may still
 * grow, to give out now, whatever they hold: all but the last
 * redact_longest() - 1, and past those only to the end of a form that
 * begins before them (every such form is whole in in[0..len)).  Unlike
 * redact_settled(), what is held back does not depend on whether the
 * tail begins like a secret: text the agent has a tool echo, held back
 * only when it was the beginning of a secret, told it the secret a byte
 * at a time.  len for a NULL or empty |r|.
 */
size_t		 redact_release(const struct redact *r, const void *in,
		    size_t len);

/*
 * Returns how many leading bytes of in[0..len), a stream that may still
 * grow, to give out now as whole lines: the end of the last line break
 * in what redact_release() gives out that no form matched runs across
 * (0 if none).  What is held back does not depend on whether the tail
 * begins like a secret, as for redact_release().  The last line break
 * in[0..len) holds, for a NULL or empty |r|.
 */
size_t		 redact_release_lines(const struct redact *r, const void *in,
		    size_t len);

/*
 * Redacts every string in the tree |root| in place: string values,
 * and object keys.  Returns the number of replacements or AL_ERR_ALLOC.
 */
int		 redact_json(const struct redact *r, json_t *root)
		    __attribute__((warn_unused_result));

#endif
