/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * A recursive-descent reader of the POSIX shell grammar, as much of it as
 * a decision needs: where each simple command starts and ends, and its
 * words after quote removal.  It errs towards seeing more commands than
 * the shell would run (a syntax error the shell would stop at is read
 * past), never fewer; whatever it cannot follow is an error, and an error
 * is never "allow" (policy/shrules.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "policy/shparse.h"

#define HEREDOC_MAX 16

enum tok_type { T_EOF, T_NEWLINE, T_WORD, T_OP, T_REDIR };

enum tok_op {
	OP_SEMI,
	OP_AMP,
	OP_PIPE,
	OP_AND,
	OP_OR,
	OP_DSEMI,
	OP_LPAREN,
	OP_RPAREN
};

struct tok {
	enum tok_type type;
	int op; /* enum tok_op or enum shredir_op */
	int strip; /* <<- */
	struct shword w; /* T_WORD */
	size_t start;
};

struct heredoc {
	char *delim;
	int quoted, strip, depth;
	size_t cmd; /* index in out->cmds, or SIZE_MAX: not
				   pushed yet */
	size_t redir; /* index in that command's redirs */
};

struct ps {
	const char *s;
	size_t len, pos;
	int depth;
	int failed;
	struct shparse *out;
	size_t nwords;
	struct tok cur;
	struct heredoc hd[HEREDOC_MAX];
	int nhd;
	int hd_due; /* a newline was read: the bodies
					   follow (read once the command
					   before it is pushed) */
	int dialect; /* SHPARSE_BASH or SHPARSE_DASH */
	int cond; /* inside bash's [[ ... ]] */
	int regex; /* the next word is the operand of
					   [[ =~: read as bash reads it */
	int after_cmd; /* the last token ended a command pushed
					   (no keyword since) */
	enum shsep sep; /* since then (struct shcmd's sep) */
};

/* A growing byte buffer for a word's text. */
struct wbuf {
	char *p;
	size_t len, cap;
};

static void parse_list(struct ps *, int);
static size_t skip_bnl(const struct ps *, size_t);
static int scan_word(struct ps *, struct shword *, int);

static void fail(struct ps *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
fail(struct ps *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = 1;
	va_start(ap, fmt);
	vsnprintf(ps->out->err, sizeof(ps->out->err), fmt, ap);
	va_end(ap);
}

static void
wb_add(struct wbuf *b, const char *s, size_t n)
{
	if (b->cap - b->len <= n) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
wb_addc(struct wbuf *b, char c)
{
	wb_add(b, &c, 1);
}

static int
at(const struct ps *ps, size_t off)
{
	return ps->pos + off < ps->len ? (unsigned char)ps->s[ps->pos + off]
				       : -1;
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static int
is_opchar(int c)
{
	return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ||
	    c == '<' || c == '>';
}

static int
is_name_start(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int
is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static void
word_free(struct shword *w)
{
	free(w->text);
	w->text = NULL;
}

static void
cmd_free(struct shcmd *c)
{
	size_t i;

	for (i = 0; i < c->nassigns; i++)
		free(c->assigns[i].text);
	for (i = 0; i < c->nwords; i++)
		free(c->words[i].text);
	for (i = 0; i < c->nredirs; i++) {
		free(c->redirs[i].target.text);
		free(c->redirs[i].body.text);
	}
	free(c->assigns);
	free(c->words);
	free(c->redirs);
}

void
shparse_free(struct shparse *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->ncmds; i++)
		cmd_free(&p->cmds[i]);
	free(p->cmds);
	free(p);
}

/*
 * Appends |c| (moved).  A here-document not yet bound to its command is
 * bound to it, unless |c| comes from inside `...` (|own| 0).
 */
static void
push_cmd(struct ps *ps, struct shcmd *c, int own)
{
	struct shparse *o = ps->out;
	int i;

	o->cmds = xreallocarray(o->cmds, o->ncmds + 1, sizeof(*o->cmds));
	for (i = 0; own && i < ps->nhd; i++)
		if (ps->hd[i].cmd == SIZE_MAX && ps->hd[i].depth == ps->depth)
			ps->hd[i].cmd = o->ncmds;
	o->cmds[o->ncmds++] = *c;
	memset(c, 0, sizeof(*c));
}

/* ---- substitutions ---- */

/*
 * $(...) and <(...) >(...): the commands inside are read in place, with
 * the same reader, up to the ')' that closes them.
 */
static void
scan_cmdsub(struct ps *ps)
{
	struct tok saved = ps->cur;

	if (++ps->depth > SHPARSE_MAX_DEPTH) {
		fail(ps, "nested more than %d deep", SHPARSE_MAX_DEPTH);
		return;
	}
	memset(&ps->cur, 0, sizeof(ps->cur));
	parse_list(ps, ')');
	if (!ps->failed && (ps->cur.type != T_OP || ps->cur.op != OP_RPAREN))
		fail(ps, "unterminated command substitution");
	/* ps->pos is just past the ')'. */
	word_free(&ps->cur.w);
	ps->cur = saved;
	ps->depth--;
}

/*
 * `...`: the text up to the closing backquote, with \$ \` \\ (and \" in
 * double quotes) unescaped, is a command string of its own.
 */
static void
scan_backquote(struct ps *ps, int in_dq)
{
	struct wbuf b = { NULL, 0, 0 };
	struct shparse *inner;
	size_t i, base = ps->pos;
	int c, rc;

	ps->pos++;
	for (;;) {
		if ((c = at(ps, 0)) == -1) {
			fail(ps, "unterminated `...`");
			free(b.p);
			return;
		}
		if (c == '`')
			break;
		if (c == '\\' && at(ps, 1) != -1 &&
		    (at(ps, 1) == '$' || at(ps, 1) == '`' ||
			at(ps, 1) == '\\' || (in_dq && at(ps, 1) == '"'))) {
			wb_addc(&b, (char)at(ps, 1));
			ps->pos += 2;
			continue;
		}
		wb_addc(&b, (char)c);
		ps->pos++;
	}
	ps->pos++;
	if (ps->depth + 1 > SHPARSE_MAX_DEPTH) {
		fail(ps, "nested more than %d deep", SHPARSE_MAX_DEPTH);
		free(b.p);
		return;
	}
	rc = shparse_as(b.p != NULL ? b.p : "", b.len, ps->dialect, &inner);
	free(b.p);
	for (i = 0; i < inner->ncmds; i++) {
		inner->cmds[i].start = base;
		inner->cmds[i].end = ps->pos;
		push_cmd(ps, &inner->cmds[i], 0);
	}
	inner->ncmds = 0;
	if (rc != 0)
		fail(ps, "in `...`: %s", inner->err);
	shparse_free(inner);
}

/* Does s[from..to) hold the start of a substitution (or a "$" the shell
   may join to one across a line continuation)? */
static int
holds_subst(const char *s, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (s[i] == '`' ||
		    (s[i] == '$' && i + 1 < to &&
			(s[i + 1] == '(' || s[i + 1] == '\\')))
			return 1;
	return 0;
}

/* $((...)): to the matching "))"; no substitutions inside. */
static void
scan_arith(struct ps *ps, struct wbuf *b)
{
	size_t start = ps->pos;
	int depth = 0, c;

	ps->pos += 3;
	for (;;) {
		if ((c = at(ps, 0)) == -1) {
			fail(ps, "unterminated $((...))");
			return;
		}
		if (c == '(')
			depth++;
		else if (c == ')') {
			if (depth == 0 && at(ps, 1) == ')')
				break;
			if (depth == 0) {
				fail(ps, "unbalanced $((...))");
				return;
			}
			depth--;
		}
		ps->pos++;
	}
	ps->pos += 2;
	if (holds_subst(ps->s, start + 3, ps->pos - 2)) {
		fail(ps, "a substitution inside $((...))");
		return;
	}
	wb_add(b, ps->s + start, ps->pos - start);
}

/*
 * From "${" at ps->pos to just past the '}' that closes it, where bash
 * and dash both close it: a '}' inside '...' or "..." or after a
 * backslash is text, "${" nests, and nothing else does (bash and dash
 * close "${x:-{}" at the first '}').  Whatever the two shells read
 * differently, or whatever would run, is a parse error: a single quote
 * inside double quotes (dash reads it as text, bash as a quote), a '{'
 * outside quotes, $'...' and substitutions (bash runs <(...) in
 * "${x:-<(...)}").
 */
static void
skip_brace_param(struct ps *ps, int in_dq, int level)
{
	const char *q;
	int c, d, dq = 0;

	if (level > SHPARSE_MAX_DEPTH) {
		fail(ps, "nested more than %d deep", SHPARSE_MAX_DEPTH);
		return;
	}
	ps->pos += 2;
	for (;;) {
		if ((c = at(ps, 0)) == -1) {
			fail(ps, "unterminated ${...}");
			return;
		}
		d = at(ps, skip_bnl(ps, 1));
		if (c == '\\') {
			if (at(ps, 1) == -1) {
				fail(ps, "unterminated ${...}");
				return;
			}
			ps->pos += 2;
			continue;
		}
		if (c == '"') {
			dq = !dq;
			ps->pos++;
			continue;
		}
		if (c == '\'' && (in_dq || dq)) {
			fail(ps,
			    "a ' inside \"${...}\" (bash reads a quote, dash "
			    "a character)");
			return;
		}
		if (c == '\'') {
			q = memchr(
			    ps->s + ps->pos + 1, '\'', ps->len - ps->pos - 1);
			if (q == NULL) {
				fail(ps, "unterminated '...' in ${...}");
				return;
			}
			ps->pos = (size_t)(q - ps->s) + 1;
			continue;
		}
		if (c == '$' && d == '{') {
			ps->pos += skip_bnl(ps, 1) - 1;
			skip_brace_param(ps, in_dq || dq, level + 1);
			if (ps->failed)
				return;
			continue;
		}
		if (c == '}' && !dq) {
			ps->pos++;
			return;
		}
		if (c == '{' && !dq) {
			fail(ps, "a { inside ${...}");
			return;
		}
		if (c == '`' ||
		    (c == '$' && (d == '(' || d == '\'' || d == '"')) ||
		    ((c == '<' || c == '>') && d == '(')) {
			fail(ps,
			    "a substitution, $'...' or $\"...\" inside "
			    "${...}");
			return;
		}
		ps->pos++;
	}
}

/* ${...}, appended as written. */
static void
scan_brace_param(struct ps *ps, struct wbuf *b, int in_dq)
{
	size_t start = ps->pos;

	skip_brace_param(ps, in_dq, 0);
	if (ps->failed)
		return;
	if (holds_subst(ps->s, start, ps->pos)) {
		fail(ps, "a substitution inside ${...}");
		return;
	}
	wb_add(b, ps->s + start, ps->pos - start);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void
add_utf8(struct wbuf *b, uint32_t cp)
{
	char u[4];

	if (cp < 0x80)
		wb_addc(b, (char)cp);
	else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		wb_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		wb_add(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | ((cp >> 18) & 0x07));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		wb_add(b, u, 4);
	}
}

/*
 * $'...' as bash reads it.  dash 0.5.12 (Debian's /bin/sh) reads "$"
 * and then an ordinary '...': the two end the quote at the same place
 * unless the text holds \' , so that escape is an error; the word is
 * marked SHW_ANSIC because its text is not what dash would run.
 */
static void
scan_ansic(struct ps *ps, struct wbuf *b)
{
	static const char simple[] =
	    "a\ab\be\033E\033f\fn\nr\rt\tv\v\\\\\"\"??";
	uint32_t v;
	const char *p;
	int c, d, i, max;

	ps->pos += 2;
	for (;;) {
		if ((c = at(ps, 0)) == -1) {
			fail(ps, "unterminated $'...'");
			return;
		}
		if (c == '\'') {
			ps->pos++;
			return;
		}
		if (c != '\\') {
			wb_addc(b, (char)c);
			ps->pos++;
			continue;
		}
		if ((c = at(ps, 1)) == -1) {
			fail(ps, "unterminated $'...'");
			return;
		}
		ps->pos += 2;
		if (c == '\'') {
			fail(ps,
			    "\\' inside $'...' (bash and dash end the "
			    "quote at different places)");
			return;
		}
		for (p = simple; *p != '\0'; p += 2)
			if (*p == c)
				break;
		if (*p != '\0') {
			wb_addc(b, p[1]);
			continue;
		}
		if (c >= '0' && c <= '7') {
			v = (uint32_t)(c - '0');
			for (i = 0; i < 2 && (d = at(ps, 0)) >= '0' && d <= '7';
			     i++, ps->pos++)
				v = v * 8 + (uint32_t)(d - '0');
			wb_addc(b, (char)(v & 0xff));
			continue;
		}
		if (c == 'x' || c == 'u' || c == 'U') {
			max = c == 'x' ? 2 : c == 'u' ? 4 : 8;
			v = 0;
			for (i = 0; i < max && (d = hexval(at(ps, 0))) >= 0;
			     i++, ps->pos++)
				v = v * 16 + (uint32_t)d;
			if (i == 0) {
				wb_addc(b, '\\');
				wb_addc(b, (char)c);
			} else if (c == 'x')
				wb_addc(b, (char)(v & 0xff));
			else if (v > 0x10ffff) {
				fail(ps, "\\%c escape out of range", c);
				return;
			} else
				add_utf8(b, v);
			continue;
		}
		/* \cX is a control character, but bash's reader pairs a
		   backslash with the one byte after it only: the quote in
		   $'\c' ends the string (so does dash's), and a backslash
		   after \c starts an escape of its own. */
		if (c == 'c' && (d = at(ps, 0)) != -1 && d != '\'' &&
		    d != '\\') {
			wb_addc(b, (char)(d & 0x1f));
			ps->pos++;
			continue;
		}
		wb_addc(b, '\\');
		wb_addc(b, (char)c);
	}
}

/* After '$' (at ps->pos): one expansion, appended as written. */
static void
scan_dollar(struct ps *ps, struct wbuf *b, unsigned *flags, int in_dq)
{
	size_t start = ps->pos;
	int c = at(ps, 1);

	/* The shell joins "$\<newline>(" into "$(": refused rather than
	   followed. */
	if (c == '\\' && at(ps, 2) == '\n') {
		fail(ps, "a line continuation after $");
		return;
	}
	if (c == '(' && at(ps, 2) == '(') {
		*flags |= SHW_ARITH;
		scan_arith(ps, b);
	} else if (c == '(') {
		*flags |= SHW_CMDSUB;
		ps->pos += 2;
		scan_cmdsub(ps);
		wb_add(b, ps->s + start, ps->pos - start);
	} else if (c == '{') {
		*flags |= SHW_PARAM;
		scan_brace_param(ps, b, in_dq);
	} else if (c == '\'' && !in_dq) {
		*flags |= SHW_ANSIC | SHW_QUOTED;
		scan_ansic(ps, b);
	} else if (c == '"' && !in_dq) {
		/* bash's $"..." (dash: a literal "$" and "...") */
		*flags |= SHW_ANSIC | SHW_LOCALE;
		ps->pos++;
	} else if (c != -1 && is_name_start(c)) {
		*flags |= SHW_PARAM;
		ps->pos++;
		while (is_name_char(at(ps, 0)))
			ps->pos++;
		wb_add(b, ps->s + start, ps->pos - start);
	} else if (c != -1 && strchr("0123456789@*#?$!-", c) != NULL) {
		*flags |= SHW_PARAM;
		ps->pos += 2;
		wb_add(b, ps->s + start, 2);
	} else {
		wb_addc(b, '$');
		ps->pos++;
	}
}

static void
scan_dquote(struct ps *ps, struct wbuf *b, unsigned *flags)
{
	int c, d;

	*flags |= SHW_QUOTED;
	ps->pos++;
	while (!ps->failed) {
		if ((c = at(ps, 0)) == -1) {
			fail(ps, "unterminated \"...\"");
			return;
		}
		if (c == '"') {
			ps->pos++;
			return;
		}
		if (c == '\\') {
			d = at(ps, 1);
			if (d == '\n') {
				ps->pos += 2;
				continue;
			}
			if (d == '$' || d == '`' || d == '"' || d == '\\') {
				wb_addc(b, (char)d);
				ps->pos += 2;
				continue;
			}
			wb_addc(b, '\\');
			ps->pos++;
			continue;
		}
		if (c == '$') {
			scan_dollar(ps, b, flags, 1);
			continue;
		}
		if (c == '`') {
			*flags |= SHW_CMDSUB;
			scan_backquote(ps, 1);
			wb_add(b, "`...`", 5);
			continue;
		}
		if (c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n'))
			*flags |= SHW_NONASCII;
		wb_addc(b, (char)c);
		ps->pos++;
	}
}

/*
 * Whether the word that started at |wstart| ends, at the '(' at ps->pos,
 * in a character bash's extglob reads as a pattern's start: "@(", "!(",
 * "*(", "+(", "?(" (also across a line continuation).  Bash then reads
 * to the matching ')' as part of the word, with no comments or
 * here-documents in it: after "shopt -s extglob" on an earlier line (or
 * inside [[ ]], where bash 5.2 always does), "echo @(x #) ; dd ...",
 * ends the pattern at the ')' and runs dd, where this reader saw a
 * comment.  Without extglob, and in dash, such a word is a syntax error
 * ("!(" aside, which is "!" and a subshell), so refusing costs nothing.
 */
static int
extglob_before(const struct ps *ps, size_t wstart)
{
	size_t k = ps->pos;

	while (k >= wstart + 2 && ps->s[k - 1] == '\n' && ps->s[k - 2] == '\\')
		k -= 2;
	return k > wstart && strchr("@!*+?", ps->s[k - 1]) != NULL;
}

/*
 * One word, from ps->pos.  Returns 0 with *w filled (caller frees
 * w->text), or -1 (ps->failed).
 *
 * |regex|: the word after =~ in bash's [[ ... ]].  Bash reads "|" and
 * "(" in it as text, and inside the parentheses blanks, newlines,
 * operators and "#" too, up to the matching ")": with "[[ x =~ (a #) ]];
 * sudo id", bash ran sudo where a reader taking "#" for a comment saw
 * none.  Quotes, escapes, $(...) and backquotes nest as in any word; a
 * ${ inside the parentheses, which bash does not pair there, fails.
 */
static int
scan_word(struct ps *ps, struct shword *w, int regex)
{
	struct wbuf b = { NULL, 0, 0 };
	size_t wstart = ps->pos;
	unsigned flags = 0;
	int c, braces = 0, group = 0;

	wb_add(&b, "", 0);
	while (!ps->failed && (c = at(ps, 0)) != -1) {
		if (ps->pos == wstart && (c == '<' || c == '>') &&
		    at(ps, 1) == '(') {
			flags |= SHW_CMDSUB;
			ps->pos += 2;
			scan_cmdsub(ps);
			wb_add(&b, ps->s + wstart, ps->pos - wstart);
			continue;
		}
		if (c == '(' && extglob_before(ps, wstart)) {
			fail(ps,
			    "a word directly before \"(\" (bash's extglob "
			    "reads @(...) as one word)");
			break;
		}
		if (regex &&
		    (c == '(' || c == ')' || c == '|' ||
			(group > 0 &&
			    (is_blank(c) || c == '\n' || is_opchar(c))))) {
			if (c == ')' && group == 0)
				break;
			if (c == '\n' && ps->nhd > 0) {
				fail(ps,
				    "a here-document inside [[ =~ (...) ]]");
				break;
			}
			group += c == '(' ? 1 : c == ')' ? -1 : 0;
			wb_addc(&b, (char)c);
			ps->pos++;
			continue;
		}
		if (regex && group > 0 && c == '$' && at(ps, 1) == '{') {
			fail(ps, "${ inside [[ =~ (...) ]]");
			break;
		}
		if (is_blank(c) || c == '\n' || is_opchar(c))
			break;
		switch (c) {
		case '\\':
			if (at(ps, 1) == '\n') {
				ps->pos += 2;
				break;
			}
			if (at(ps, 1) == -1) {
				wb_addc(&b, '\\');
				ps->pos++;
				break;
			}
			flags |= SHW_QUOTED;
			if (at(ps, 1) >= 0x80 || at(ps, 1) < 0x20)
				flags |= SHW_NONASCII;
			wb_addc(&b, (char)at(ps, 1));
			ps->pos += 2;
			break;
		case '\'': {
			const char *q = memchr(
			    ps->s + ps->pos + 1, '\'', ps->len - ps->pos - 1);
			size_t i;

			if (q == NULL) {
				fail(ps, "unterminated '...'");
				break;
			}
			flags |= SHW_QUOTED;
			for (i = ps->pos + 1; ps->s + i < q; i++)
				if ((unsigned char)ps->s[i] >= 0x80 ||
				    ((unsigned char)ps->s[i] < 0x20 &&
					ps->s[i] != '\t'))
					flags |= SHW_NONASCII;
			wb_add(&b, ps->s + ps->pos + 1,
			    (size_t)(q - ps->s) - ps->pos - 1);
			ps->pos = (size_t)(q - ps->s) + 1;
			break;
		}
		case '"':
			scan_dquote(ps, &b, &flags);
			break;
		case '$': {
			unsigned f = 0;

			scan_dollar(ps, &b, &f, 0);
			if (f & (SHW_PARAM | SHW_CMDSUB | SHW_ARITH))
				f |= SHW_SPLIT;
			flags |= f;
			break;
		}
		case '`':
			flags |= SHW_CMDSUB | SHW_SPLIT;
			scan_backquote(ps, 0);
			wb_add(&b, "`...`", 5);
			break;
		case '*':
		case '?':
		case '[':
			flags |= SHW_GLOB;
			wb_addc(&b, (char)c);
			ps->pos++;
			break;
		case '{':
		case '}':
			braces = 1;
			wb_addc(&b, (char)c);
			ps->pos++;
			break;
		case '~':
			if (ps->pos == wstart)
				flags |= SHW_TILDE;
			wb_addc(&b, (char)c);
			ps->pos++;
			break;
		default:
			if (c >= 0x80 || c < 0x20)
				flags |= SHW_NONASCII;
			wb_addc(&b, (char)c);
			ps->pos++;
			break;
		}
	}
	if (!ps->failed && group > 0)
		fail(ps, "unterminated \"(\" in [[ =~ ]]");
	if (ps->failed) {
		free(b.p);
		return -1;
	}
	/* "{" and "}" alone are the group words; anywhere else, bash may
	   expand them. */
	if (braces && ps->pos - wstart > 1)
		flags |= SHW_BRACE;
	if (++ps->nwords > SHPARSE_MAX_WORDS) {
		free(b.p);
		fail(ps, "more than %d words", SHPARSE_MAX_WORDS);
		return -1;
	}
	w->text = b.p;
	w->len = b.len;
	w->flags = flags;
	return 0;
}

/* ---- here-documents ---- */

/* At the start of a line after a newline: the pending bodies, in order. */
static void
read_heredocs(struct ps *ps)
{
	int i;

	for (i = 0; i < ps->nhd && !ps->failed; i++) {
		struct heredoc *h = &ps->hd[i];
		size_t dlen = strlen(h->delim);
		struct wbuf b = { NULL, 0, 0 };
		struct shword *body;

		if (h->depth != ps->depth) {
			fail(ps, "a here-document crosses a substitution");
			break;
		}
		for (;;) {
			const char *line = ps->s + ps->pos, *nl;
			size_t n, rest = ps->len - ps->pos;

			if (rest == 0) {
				fail(ps, "here-document \"%s\" is not closed",
				    h->delim);
				break;
			}
			nl = memchr(line, '\n', rest);
			n = nl != NULL ? (size_t)(nl - line) : rest;
			ps->pos += n + (nl != NULL);
			if (h->strip)
				while (n > 0 && *line == '\t') {
					line++;
					n--;
				}
			if (n == dlen && memcmp(line, h->delim, n) == 0)
				break;
			if (h->quoted) {
				wb_add(&b, line, n);
				wb_addc(&b, '\n');
				continue;
			}
			if (n > 0 && line[n - 1] == '\\') {
				fail(ps,
				    "a line continuation in an unquoted "
				    "here-document");
				break;
			}
			if (holds_subst(line, 0, n) && h->cmd != SIZE_MAX)
				ps->out->cmds[h->cmd].why = "a substitution in "
							    "a here-document";
			else if (h->cmd == SIZE_MAX &&
			    (holds_subst(line, 0, n) ||
				memchr(line, '$', n) != NULL))
				fail(ps, "a here-document of no command");
			/* Its expansions are the command's, as a word's
			   are: bash evaluates ${x@P}, $[x], ${a[x]} in a
			   body as in an argument (policy/shrules.c). */
			wb_add(&b, line, n);
			wb_addc(&b, '\n');
		}
		if (b.p != NULL && h->cmd != SIZE_MAX && !ps->failed) {
			body = &ps->out->cmds[h->cmd].redirs[h->redir].body;
			free(body->text);
			body->text = b.p;
			body->len = b.len;
			/* A quoted delimiter's body is text, kept for a
			   shell that reads it as its program. */
			body->flags =
			    h->quoted ? SHW_QUOTED : SHW_PARAM | SHW_ARITH;
		} else
			free(b.p);
	}
	for (i = 0; i < ps->nhd; i++)
		free(ps->hd[i].delim);
	ps->nhd = 0;
}

/* ---- tokens ---- */

/*
 * The offset past the line continuations at ps->pos + off: the shell
 * removes them before it reads operators, so "2\<newline>>" is "2>" and
 * "<<\<newline>-" is "<<-".
 */
static size_t
skip_bnl(const struct ps *ps, size_t off)
{
	while (at(ps, off) == '\\' && at(ps, off + 1) == '\n')
		off += 2;
	return off;
}

static void
next_token(struct ps *ps)
{
	static const struct {
		const char *s;
		enum tok_type type;
		int op, strip;
	} ops[] = {
		{ "&>>", T_REDIR, SHR_BOTH, 0 },
		{ "<<<", T_REDIR, SHR_HERESTR, 0 },
		{ "<<-", T_REDIR, SHR_HEREDOC, 1 },
		{ "&&", T_OP, OP_AND, 0 },
		{ "||", T_OP, OP_OR, 0 },
		{ ";;", T_OP, OP_DSEMI, 0 },
		{ "|&", T_OP, OP_PIPE, 0 },
		{ "&>", T_REDIR, SHR_BOTH, 0 },
		{ "<<", T_REDIR, SHR_HEREDOC, 0 },
		{ "<>", T_REDIR, SHR_INOUT, 0 },
		{ "<&", T_REDIR, SHR_DUPIN, 0 },
		{ ">>", T_REDIR, SHR_APPEND, 0 },
		{ ">&", T_REDIR, SHR_DUPOUT, 0 },
		{ ">|", T_REDIR, SHR_OUT, 0 },
		{ ";", T_OP, OP_SEMI, 0 },
		{ "&", T_OP, OP_AMP, 0 },
		{ "|", T_OP, OP_PIPE, 0 },
		{ "(", T_OP, OP_LPAREN, 0 },
		{ ")", T_OP, OP_RPAREN, 0 },
		{ "<", T_REDIR, SHR_IN, 0 },
		{ ">", T_REDIR, SHR_OUT, 0 },
	};
	struct tok *t = &ps->cur;
	size_t i, n, m, oend[3];
	char ob[3];
	int c, regex = ps->regex;

	ps->regex = 0;
	word_free(&t->w);
	memset(t, 0, sizeof(*t));
	if (ps->hd_due) {
		ps->hd_due = 0;
		read_heredocs(ps);
	}
	if (ps->failed) {
		t->type = T_EOF;
		return;
	}
	for (;;) {
		c = at(ps, 0);
		if (is_blank(c))
			ps->pos++;
		else if (c == '\\' && at(ps, 1) == '\n')
			ps->pos += 2;
		else if (c == '#') {
			while (at(ps, 0) != -1 && at(ps, 0) != '\n')
				ps->pos++;
		} else
			break;
	}
	t->start = ps->pos;
	if (c == -1) {
		t->type = T_EOF;
		return;
	}
	if (c == '\n') {
		ps->pos++;
		t->type = T_NEWLINE;
		ps->hd_due = ps->nhd > 0;
		return;
	}
	/* An fd number directly before a redirection belongs to it. */
	for (n = 0; at(ps, n) >= '0' && at(ps, n) <= '9';
	     n = skip_bnl(ps, n + 1))
		;
	if (n > 0 && (at(ps, n) == '<' || at(ps, n) == '>') &&
	    at(ps, skip_bnl(ps, n + 1)) != '(')
		ps->pos += n;
	c = at(ps, 0);
	if (is_opchar(c) && !((c == '<' || c == '>') && at(ps, 1) == '(') &&
	    !(regex && (c == '(' || c == '|'))) {
		/* Its characters, as the shell joins them. */
		for (m = 0, n = 0; m < sizeof(ob) && at(ps, n) != -1; m++) {
			ob[m] = (char)at(ps, n);
			oend[m] = n = skip_bnl(ps, n + 1);
		}
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			n = strlen(ops[i].s);
			/* dash: "&>" is "&" and then ">" */
			if (ps->dialect == SHPARSE_DASH && n > 1 &&
			    memcmp(ops[i].s, "&>", 2) == 0)
				continue;
			if (m >= n && memcmp(ob, ops[i].s, n) == 0)
				break;
		}
		if (i == sizeof(ops) / sizeof(ops[0])) {
			fail(ps, "an operator not in the table");
			t->type = T_EOF;
			return;
		}
		/* bash's ((...)) and for ((...)) are arithmetic, which
		   evaluates variables' values as code (dash: two
		   subshells). */
		if (ops[i].op == OP_LPAREN && ops[i].type == T_OP && m >= 2 &&
		    ob[1] == '(') {
			fail(ps, "((...)) (bash arithmetic)");
			t->type = T_EOF;
			return;
		}
		ps->pos += oend[strlen(ops[i].s) - 1];
		t->type = ops[i].type;
		t->op = ops[i].op;
		t->strip = ops[i].strip;
		return;
	}
	if (scan_word(ps, &t->w, regex) != 0) {
		t->type = T_EOF;
		return;
	}
	t->type = T_WORD;
}

/* ---- the grammar ---- */

static int
is_keyword(const struct shword *w, const char *kw)
{
	return w->flags == 0 && strcmp(w->text, kw) == 0;
}

/* NAME=... or (|plus|) NAME+=..., with NAME unquoted. */
static int
is_assignment_as(const struct ps *ps, const struct tok *t, int plus)
{
	const char *s = ps->s + t->start;
	size_t i, n = ps->len - t->start;

	if (n == 0 || !is_name_start((unsigned char)s[0]))
		return 0;
	/* PA\<newline>TH=x is PATH=x to the shell. */
	for (i = 1; i < n; i++)
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n')
			i++;
		else if (!is_name_char((unsigned char)s[i]))
			break;
	/* bash's NAME+=value appends, and is an assignment too. */
	if (plus && i + 1 < n && s[i] == '+' && s[i + 1] == '=')
		return 1;
	return i < n && s[i] == '=';
}

static int
is_assignment(const struct ps *ps, const struct tok *t)
{
	return is_assignment_as(ps, t, 1);
}

/*
 * Bash's [[ ... ]] (its first word, or after time and its -p), up to
 * its "]]", across the "&&" and "||" in it: the word after each =~ is
 * read as bash reads a regular expression (scan_word).  dash has no
 * [[, and refuses the "(" such a word may hold.
 */
static void
cond_word(struct ps *ps, const struct shcmd *c)
{
	const struct shword *w = &c->words[c->nwords - 1];
	size_t i;

	if (w->flags == SHW_GLOB && strcmp(w->text, "[[") == 0 &&
	    c->nassigns == 0 && c->nredirs == 0) {
		for (i = 0; i + 1 < c->nwords; i++)
			if (!is_keyword(&c->words[i], "time") &&
			    !is_keyword(&c->words[i], "-p"))
				break;
		if (i + 1 == c->nwords)
			ps->cond = 1;
	} else if (ps->cond && is_keyword(w, "]]"))
		ps->cond = 0;
	else if (ps->cond && is_keyword(w, "=~"))
		ps->regex = 1;
}

static void
add_word(struct shword **v, size_t *n, struct shword *w)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = *w;
	memset(w, 0, sizeof(*w));
}

static void
parse_redir(struct ps *ps, struct shcmd *c)
{
	struct shredir r;
	struct heredoc *h;
	int strip = ps->cur.strip;

	memset(&r, 0, sizeof(r));
	r.op = ps->cur.op;
	next_token(ps);
	if (ps->cur.type != T_WORD) {
		fail(ps, "a redirection without a target");
		return;
	}
	r.target = ps->cur.w;
	memset(&ps->cur.w, 0, sizeof(ps->cur.w));
	c->redirs =
	    xreallocarray(c->redirs, c->nredirs + 1, sizeof(*c->redirs));
	c->redirs[c->nredirs++] = r;
	if (r.op == SHR_HEREDOC) {
		if (r.target.len == 0 ||
		    (r.target.flags &
			(SHW_PARAM | SHW_CMDSUB | SHW_ARITH | SHW_ANSIC)) !=
			0) {
			fail(ps,
			    "a here-document delimiter must be a fixed "
			    "word");
			return;
		}
		if (ps->nhd == HEREDOC_MAX) {
			fail(ps, "more than %d here-documents on a line",
			    HEREDOC_MAX);
			return;
		}
		h = &ps->hd[ps->nhd++];
		h->delim = xstrdup(r.target.text);
		h->quoted = (r.target.flags & SHW_QUOTED) != 0;
		h->strip = strip;
		h->depth = ps->depth;
		h->cmd = SIZE_MAX;
		h->redir = c->nredirs - 1;
	}
	next_token(ps);
}

/*
 * A simple command, from the current token (a word or a redirection) to
 * the operator, newline or end that ends it.
 */
static void
parse_simple(struct ps *ps)
{
	static const char *const skip[] = { "if", "then", "else", "elif", "fi",
		"do", "done", "while", "until", "!", "{", "}", NULL };
	static const char *const unsupported[] = { "case", "esac", "select",
		"coproc", "function", NULL };
	struct shcmd c;
	size_t i, ncmds;

	memset(&c, 0, sizeof(c));
	ncmds = ps->out->ncmds;
	c.start = ps->cur.start;
	c.sep = ps->sep;
	ps->sep = SHSEP_OTHER;
	ps->after_cmd = 0;
	while (!ps->failed) {
		if (ps->cur.type == T_REDIR) {
			parse_redir(ps, &c);
			continue;
		}
		if (ps->cur.type != T_WORD)
			break;
		if (c.nwords == 0 && c.nassigns == 0 && c.nredirs == 0 &&
		    !c.header) {
			for (i = 0; skip[i] != NULL; i++)
				if (is_keyword(&ps->cur.w, skip[i]))
					break;
			if (skip[i] != NULL) {
				next_token(ps);
				c.start = ps->cur.start;
				c.sep = SHSEP_OTHER;
				continue;
			}
			for (i = 0; unsupported[i] != NULL; i++)
				if (is_keyword(&ps->cur.w, unsupported[i]))
					fail(ps, "\"%s\" is not supported",
					    unsupported[i]);
			if (ps->failed)
				break;
			if (is_keyword(&ps->cur.w, "for")) {
				c.header = 1;
				next_token(ps);
				continue;
			}
		}
		/* "for x do ...": the body starts at "do". */
		if (c.header && is_keyword(&ps->cur.w, "do"))
			break;
		/* bash's {NAME}>file sets NAME to the new fd (PATH too),
		   and evaluates NAME's subscript: a redirection, not a
		   word, that the rules cannot see through. */
		if (ps->cur.w.len > 2 && ps->cur.w.text[0] == '{' &&
		    ps->cur.w.text[ps->cur.w.len - 1] == '}' &&
		    (at(ps, skip_bnl(ps, 0)) == '<' ||
			at(ps, skip_bnl(ps, 0)) == '>'))
			c.why = "a {NAME} redirection (bash sets NAME)";
		if (c.nwords == 0 && !c.header && is_assignment(ps, &ps->cur))
			add_word(&c.assigns, &c.nassigns, &ps->cur.w);
		else {
			/* dash has no "+=": "export x+=$y" splits $y */
			if (is_assignment_as(ps, &ps->cur, 0))
				ps->cur.w.flags |= SHW_ASSIGN;
			add_word(&c.words, &c.nwords, &ps->cur.w);
			cond_word(ps, &c);
		}
		next_token(ps);
		/* NAME ( ) ...: a function definition. */
		if (c.nwords == 1 && !c.header && ps->cur.type == T_OP &&
		    ps->cur.op == OP_LPAREN) {
			next_token(ps);
			if (ps->cur.type != T_OP || ps->cur.op != OP_RPAREN) {
				fail(ps, "\"(\" after a command name");
				break;
			}
			c.why = "a function definition";
			next_token(ps);
			break;
		}
	}
	c.end = ps->cur.start;
	/* a substitution's commands came between */
	if (ps->out->ncmds != ncmds)
		c.sep = SHSEP_OTHER;
	ps->sep = SHSEP_OTHER;
	if (c.nwords > 0 || c.nassigns > 0 || c.nredirs > 0 || c.header ||
	    c.why != NULL) {
		ps->after_cmd = !c.header;
		push_cmd(ps, &c, 1);
	} else
		cmd_free(&c);
}

/*
 * A list: and-or lists and pipelines separated by operators and
 * newlines, up to the end or (|term| == ')') an unmatched ')', which is
 * left as the current token.  Separators are accepted liberally: where
 * the shell would refuse the syntax, it runs less than is read here.
 */
static void
parse_list(struct ps *ps, int term)
{
	struct shcmd g;

	next_token(ps);
	while (!ps->failed) {
		switch (ps->cur.type) {
		case T_EOF:
			if (term != 0)
				fail(ps, "unterminated \"(\"");
			return;
		case T_NEWLINE:
			if (ps->sep == SHSEP_AND)
				ps->sep = SHSEP_OTHER;
			else if (ps->after_cmd)
				ps->sep = SHSEP_LIST;
			ps->after_cmd = 0;
			next_token(ps);
			continue;
		case T_WORD:
		case T_REDIR:
			parse_simple(ps);
			continue;
		case T_OP:
			break;
		}
		switch (ps->cur.op) {
		case OP_RPAREN:
			if (term == ')')
				return;
			fail(ps, "unmatched \")\"");
			return;
		case OP_DSEMI:
			fail(ps, "\";;\" outside case");
			return;
		case OP_LPAREN:
			if (ps->sep != SHSEP_LIST)
				ps->sep = SHSEP_OTHER;
			ps->after_cmd = 0;
			if (++ps->depth > SHPARSE_MAX_DEPTH) {
				fail(ps, "nested more than %d deep",
				    SHPARSE_MAX_DEPTH);
				return;
			}
			parse_list(ps, ')');
			ps->depth--;
			if (ps->failed)
				return;
			/* The group's own redirections. */
			memset(&g, 0, sizeof(g));
			g.header = 1;
			g.start = ps->cur.start;
			next_token(ps);
			while (!ps->failed && ps->cur.type == T_REDIR)
				parse_redir(ps, &g);
			g.end = ps->cur.start;
			if (g.nredirs > 0)
				push_cmd(ps, &g, 1);
			else
				cmd_free(&g);
			ps->sep = SHSEP_OTHER;
			ps->after_cmd = 0;
			continue;
		case OP_AND:
			ps->sep = ps->after_cmd ? SHSEP_AND : SHSEP_OTHER;
			ps->after_cmd = 0;
			next_token(ps);
			continue;
		case OP_SEMI:
		case OP_AMP:
			ps->sep = ps->after_cmd || ps->sep == SHSEP_LIST
			    ? SHSEP_LIST
			    : SHSEP_OTHER;
			ps->after_cmd = 0;
			next_token(ps);
			continue;
		default:
			ps->sep = SHSEP_OTHER;
			ps->after_cmd = 0;
			next_token(ps);
			continue;
		}
	}
}

/*
 * Whether a byte >= 0x80 comes right before a backslash.  In a locale of
 * double-byte characters (GBK, Big5, Shift JIS: the agent may set
 * LC_ALL on an earlier line, even with a for loop), bash reads such a
 * byte and the backslash after it as one character, so that the quote
 * or newline the reader took as escaped is not: with LC_ALL=zh_CN.GBK,
 * 'echo "\xbf\"; git push<newline>echo "' runs git push.  dash reads
 * bytes.
 */
static int
byte_before_backslash(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++)
		if ((unsigned char)s[i] >= 0x80 && s[i + 1] == '\\')
			return 1;
	return 0;
}

int
shparse_dialects_differ(const char *s, size_t len)
{
	size_t i, j;

	for (i = 0; i < len; i++) {
		if (s[i] != '&')
			continue;
		for (j = i + 1; j + 1 < len && s[j] == '\\' && s[j + 1] == '\n';
		     j += 2)
			;
		if (j < len && s[j] == '>')
			return 1;
	}
	return 0;
}

int
shparse(const char *s, size_t len, struct shparse **out)
{
	return shparse_as(s, len, SHPARSE_BASH, out);
}

int
shparse_as(const char *s, size_t len, int dialect, struct shparse **out)
{
	struct ps ps;
	int i;

	memset(&ps, 0, sizeof(ps));
	ps.dialect = dialect;
	ps.s = s;
	ps.len = len;
	ps.out = *out = xcalloc(1, sizeof(**out));
	if (len > SHPARSE_MAX_INPUT)
		fail(&ps, "longer than %d bytes", SHPARSE_MAX_INPUT);
	else if (memchr(s, '\0', len) != NULL)
		fail(&ps, "a NUL byte");
	else if (byte_before_backslash(s, len))
		fail(&ps,
		    "a non-ASCII byte before a backslash (bash in a GBK, "
		    "Big5 or Shift JIS locale reads the two as one "
		    "character)");
	else {
		ps.sep = SHSEP_LIST;
		parse_list(&ps, 0);
		if (!ps.failed && ps.nhd > 0)
			fail(&ps, "here-document \"%s\" is not closed",
			    ps.hd[0].delim);
	}
	word_free(&ps.cur.w);
	for (i = 0; i < ps.nhd; i++)
		free(ps.hd[i].delim);
	if (ps.failed)
		return -1;
	if (ps.pos != len) {
		snprintf((*out)->err, sizeof((*out)->err), "%zu bytes not read",
		    len - ps.pos);
		return -1;
	}
	(*out)->consumed = ps.pos;
	return 0;
}
