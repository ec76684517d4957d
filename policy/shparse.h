/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * shparse: a POSIX shell command string split into the simple commands it
 * would run, for deciding on what will run rather than on the text
 * (policy/shrules.h).  Pure: no I/O, no globals, nothing executed.
 *
 * Covered: pipelines, &&, ||, ;, &, newlines, ! , subshells ( ), brace
 * groups { }, the reserved words of if/while/until/for (their bodies are
 * commands like any other), redirections with an optional fd number
 * (< > >> <> >| <& >& <<< and bash's &> &>>), here-documents (<< and <<-,
 * quoted or not), comments, line continuations, and every quoting form:
 * '...', "...", backslash, $'...' (with its escapes) and $"...".
 * Substitutions ($(...), `...`, <(...), >(...)) are parsed too: the
 * commands inside them are commands of the string.  Expansions are not
 * performed; a word records which ones it holds (SHW_*), and a command
 * records why it cannot be resolved to fixed words (shcmd.why).
 *
 * Not covered, and reported as a parse error (the whole string is then
 * unresolvable): case, select, coproc, [[ ]] containing operators,
 * arithmetic or ${...} holding a substitution, ${...} holding a '{',
 * $'...', a process substitution or (inside double quotes) a ' (bash
 * and dash end it at different places), bash's ((...)) and for ((...)),
 * a word directly before "(" that ends in @ ! * + ? (bash's extglob
 * reads "@(...)" as one word, with no comments in it), here-documents
 * left open at the end, a byte >= 0x80 right before a backslash (bash in
 * a GBK or Big5 locale reads the two as one character), $"..." inside
 * ${...}, and any quote, substitution or group left open.
 */
#ifndef AIRLOCK_SHPARSE_H
#define AIRLOCK_SHPARSE_H

#include <stddef.h>

#define SHPARSE_MAX_INPUT (256 * 1024) /* bytes of one string */
#define SHPARSE_MAX_DEPTH 64 /* nested groups/substitutions */
#define SHPARSE_MAX_WORDS 4096 /* words in the whole string */

/* What a word holds besides literal text (shword.flags). */
#define SHW_QUOTED 0x001 /* some part was quoted */
#define SHW_PARAM 0x002 /* $name, ${...}, $1, $@ ... */
#define SHW_CMDSUB 0x004 /* $(...), `...`, <(...), >(...) */
#define SHW_ARITH 0x008 /* $((...)) */
#define SHW_GLOB 0x010 /* unquoted * ? [ */
#define SHW_BRACE 0x020 /* unquoted { } , (bash brace expansion) */
#define SHW_TILDE 0x040 /* unquoted leading ~ */
#define SHW_NONASCII 0x080 /* a byte >= 0x80 or a control character */
#define SHW_ANSIC 0x100 /* $'...': bash decodes it, dash does not */
/* As written, an unquoted NAME and "=" (not "+="): given to export,
   readonly ..., an assignment whose value neither dash nor bash splits
   or globs.  Not a reason for a word not to be fixed. */
#define SHW_ASSIGN 0x200
/* An expansion outside double quotes ($x, $(...), `...`, $((...))):
   the shell splits its result into any number of words.  Not a reason
   for a word not to be fixed (the expansion is). */
#define SHW_SPLIT 0x400
/* bash's $"...": translated through the message catalog that TEXTDOMAIN
   and TEXTDOMAINDIR name (a file the agent may write), and the
   translation expanded as in "...", substitutions too. */
#define SHW_LOCALE 0x800
/* Flags that make the word's text differ from what will run. */
#define SHW_NOT_FIXED \
	(SHW_PARAM | SHW_CMDSUB | SHW_ARITH | SHW_GLOB | SHW_BRACE | \
	    SHW_TILDE | SHW_ANSIC)

struct shword {
	char *text; /* after quote removal, NUL-terminated;
					   expansions are left as written */
	size_t len;
	unsigned flags;
};

enum shredir_op {
	SHR_IN, /* <  */
	SHR_OUT, /* > and >| */
	SHR_APPEND, /* >> */
	SHR_INOUT, /* <> */
	SHR_DUPIN, /* <& */
	SHR_DUPOUT, /* >& */
	SHR_BOTH, /* &> and &>> (bash) */
	SHR_HEREDOC, /* << and <<-: target is the delimiter */
	SHR_HERESTR, /* <<< (bash) */
};

struct shredir {
	enum shredir_op op;
	struct shword target;
	struct shword body; /* SHR_HEREDOC: the body as written; with
					   an unquoted delimiter the shell expands
					   it like a word in "..." (flags
					   SHW_PARAM | SHW_ARITH), with a quoted
					   one it is text (SHW_QUOTED); else text
					   NULL */
};

/*
 * What comes before a command in its list, since the command pushed
 * before it (cmds[i - 1]): SHSEP_LIST, nothing but ";", "&", newlines
 * or a "(" after one of them (it begins an and-or list); SHSEP_AND, one
 * "&&" right after that command (it runs only where that command ran
 * in this shell and succeeded); SHSEP_OTHER, anything else (a "||", a
 * "|", a keyword such as "!", "{", "}" or "then", a subshell's ")", a
 * substitution's commands).
 */
enum shsep {
	SHSEP_OTHER,
	SHSEP_LIST,
	SHSEP_AND,
};

struct shcmd {
	struct shword *assigns; /* leading NAME=value words */
	size_t nassigns;
	struct shword *words; /* the command and its arguments */
	size_t nwords;
	struct shredir *redirs;
	size_t nredirs;
	int header; /* 1: a "for" header, not a command */
	enum shsep sep; /* what comes before it in its list */
	const char *why; /* static: why the parser alone
					   cannot resolve it, or NULL */
	size_t start, end; /* byte range in the input */
};

struct shparse {
	struct shcmd *cmds; /* in the order they appear */
	size_t ncmds;
	size_t consumed; /* bytes accounted for; == the input's
					   length when the parse succeeded */
	char err[128]; /* why the parse failed, or "" */
};

/*
 * Parses |len| bytes of |s| (need not be NUL-terminated).  Returns 0 with
 * *out set, or -1 with *out set and (*out)->err saying why: a parse that
 * failed still lists the commands found before the failure (a decision
 * may use them, but must not allow).  A NUL byte, more than
 * SHPARSE_MAX_INPUT bytes, SHPARSE_MAX_DEPTH levels or SHPARSE_MAX_WORDS
 * words fail.  Caller frees *out with shparse_free.
 */
int shparse(const char *s, size_t len, struct shparse **out);

/*
 * The dialects shparse_as reads.  They differ in one place: bash reads
 * "&>" and "&>>" as a redirection of both outputs, dash (and POSIX) as
 * "&" ending a command and a redirection starting the next, so that
 * "ls &>/dev/null git push" runs git push in dash.  A decision takes the
 * stricter of both readings (policy/shrules.c).
 */
#define SHPARSE_BASH 0 /* shparse's */
#define SHPARSE_DASH 1

/* shparse, reading |dialect|. */
int shparse_as(const char *s, size_t len, int dialect, struct shparse **out);

/* Whether the dialects may read |len| bytes of |s| differently. */
int shparse_dialects_differ(const char *s, size_t len);

void shparse_free(struct shparse *p);

#endif
