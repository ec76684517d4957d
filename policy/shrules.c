/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Deciding a command string under allow/ask/deny rules.  Everything here
 * leans one way: when in doubt a command is unresolvable, and an
 * unresolvable command is never allowed.  The lists of wrappers,
 * interpreters and code-running options are not exhaustive (the sandbox
 * stays the boundary; docs/SECURITY.md says what is not covered).
 */
#include "config.h"

#include <ctype.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/strlist.h"
#include "common/util.h"
#include "policy/shparse.h"
#include "policy/shrules.h"
#include "policy/writepolicy.h"

/*
 * Where the workspace's paths lead (shrules_decide_fs), and the working
 * directories a command of the string may run in, relative to the
 * workspace: "" and each place a cd before it may have gone (a cd may
 * fail, or be in a subshell: each is kept).  |lost|: more than CWDS_MAX.
 * At most ASKED_MAX paths of a string are asked about (each is a system
 * call in the broker); past them, a removal is unresolvable.
 */
#define CWDS_MAX 16
#define ASKED_MAX 1024
#define LINKS_MAX 64
struct fsctx {
	const struct shfs *fs;
	char cwds[CWDS_MAX][1024];
	size_t ncwds;
	int lost;
	size_t asked;
	/* links the string may make (follow_links): the link's absolute
	   path, lexically, and where it leads as written (NULL: not
	   known); |links_lost|: more than LINKS_MAX, or a name that is not
	   a fixed word */
	struct {
		char *name, *target;
	} links[LINKS_MAX];
	size_t nlinks;
	int links_lost;
};

/* fc->fs->where(rel), or SHFS_UNKNOWN past ASKED_MAX questions. */
static enum shfs_where
fs_where(struct fsctx *fc, const char *rel)
{
	if (++fc->asked > ASKED_MAX)
		return SHFS_UNKNOWN;
	return fc->fs->where(fc->fs->arg, rel);
}

/* The decision of one command. */
struct one {
	enum shdecision d;
	int rule;
	const char *why; /* unresolvable because, or NULL */
	char whybuf[96];
	const struct shword *words; /* the command as matched */
	size_t nwords;
	size_t script; /* a shell's script operand, or 0 */
	int stdin_prog; /* a shell or interpreter reading its program
				   from standard input or a descriptor */
	int depth; /* commands inside commands (raise_by_argv) */
	int walked; /* run by find -exec for each file beneath its
				   starting point: an operand that is the
				   starting point stands for its tree */
	int words_read; /* its words read as the program reads
				   them, the commands it runs among them
				   decided (find): no other word is one */
	int code_depth; /* code text inside commands (raise_by_code) */
	size_t spent; /* ...their words, for the outermost */
	size_t *budget; /* the outermost's spent, or NULL */
	struct fsctx *fc; /* where the workspace's paths lead, or
				   NULL */
};

static const char *const decision_names[] = { "allow", "ask", "deny" };

const char *
shdecision_name(enum shdecision d)
{
	return (unsigned)d < 3 ? decision_names[d] : "?";
}

int
shdecision_parse(const char *s)
{
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(s, decision_names[i]) == 0)
			return i;
	return -1;
}

static const char *
base_name(const char *s)
{
	const char *p = strrchr(s, '/');

	return p != NULL ? p + 1 : s;
}

static int
fixed(const struct shword *w)
{
	return w->text != NULL && (w->flags & SHW_NOT_FIXED) == 0 &&
	    strlen(w->text) == w->len;
}

static void set_why(struct one *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void check_set_name(const char *, struct one *);

static void
set_why(struct one *o, const char *fmt, ...)
{
	va_list ap;

	if (o->why != NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(o->whybuf, sizeof(o->whybuf), fmt, ap);
	va_end(ap);
	o->why = o->whybuf;
}

/* ---- paths ---- */

static int
has_dotdot(const char *p)
{
	const char *s = p;

	while ((s = strstr(s, "..")) != NULL) {
		if ((s == p || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
			return 1;
		s += 2;
	}
	return 0;
}

/* May a redirection or cd name |p|?  Beneath the workspace, or a device
   every command may use. */
static int
path_ok(const char *p, const char *ws, int devices)
{
	static const char *const devs[] = { "/dev/null", "/dev/stdin",
		"/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", NULL };
	size_t n;

	if (p[0] == '\0' || has_dotdot(p))
		return 0;
	if (p[0] != '/')
		return 1;
	if (devices && str_in_list(p, devs))
		return 1;
	if (devices && strncmp(p, "/dev/fd/", 8) == 0 && p[8] != '\0' &&
	    strspn(p + 8, "0123456789") == strlen(p + 8))
		return 1;
	if (ws == NULL || (n = strlen(ws)) == 0)
		return 0;
	while (n > 1 && ws[n - 1] == '/')
		n--;
	return strncmp(p, ws, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

static void
check_redirs(const struct shcmd *c, const char *ws, struct one *o)
{
	size_t i;

	for (i = 0; i < c->nredirs; i++) {
		const struct shredir *r = &c->redirs[i];
		const struct shword *t = &r->target;

		if (t->flags & SHW_CMDSUB)
			set_why(o, "a command substitution in a redirection");
		if (r->op == SHR_HEREDOC || r->op == SHR_HERESTR)
			continue;
		if ((r->op == SHR_DUPIN || r->op == SHR_DUPOUT) && fixed(t) &&
		    t->len > 0 &&
		    (strcmp(t->text, "-") == 0 ||
			strspn(t->text, "0123456789") == t->len))
			continue;
		if (r->op != SHR_IN && r->op != SHR_DUPIN &&
		    writepolicy_word_runs_on(t->text) != NULL)
			set_why(o,
			    "writes what runs later, outside any sandbox "
			    "(%.40s)",
			    t->text);
		else if (!fixed(t))
			set_why(o,
			    "a redirection target that is not a fixed "
			    "word");
		else if (!path_ok(t->text, ws, 1))
			set_why(o,
			    "a redirection outside the workspace (%.40s)",
			    t->text);
	}
}

/*
 * Whether |p| names a descriptor the command already holds: /dev/stdin,
 * /dev/fd/N, /proc/self/fd/N or /proc/thread-self/fd/N, also spelled
 * with doubled slashes or "." components.  A program read from one comes
 * from a pipe or a here-document, as from "-": "curl ... | sh
 * /dev/stdin", "| bash /proc/self/fd/0" and "sh /dev/fd/3 3<&0".
 */
static int
fd_path(const char *p)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/",
		"/proc/thread-self/fd/", NULL };
	char buf[64] = "";
	size_t i, o = 0, n;

	if (p[0] != '/')
		return 0;
	for (i = 0; p[i] != '\0'; i++) {
		if (p[i] == '/' && o > 0 && buf[o - 1] == '/')
			continue;
		if (p[i] == '.' && o > 0 && buf[o - 1] == '/' &&
		    (p[i + 1] == '/' || p[i + 1] == '\0'))
			continue;
		if (o + 1 >= sizeof(buf))
			return 0;
		buf[o++] = p[i];
	}
	buf[o] = '\0';
	if (strcmp(buf, "/dev/stdin") == 0)
		return 1;
	for (i = 0; dirs[i] != NULL; i++) {
		n = strlen(dirs[i]);
		if (strncmp(buf, dirs[i], n) == 0 && buf[n] != '\0' &&
		    strspn(buf + n, "0123456789") == strlen(buf + n))
			return 1;
	}
	return 0;
}

/* ---- bash arithmetic ---- */

/*
 * Where bash does arithmetic it evaluates a variable's value as an
 * expression, and an array subscript in it (or in a name a builtin is
 * given: unset, read, printf -v, test -v ...) runs its substitutions: with
 * x='a[$(git push)]', "echo $((x))" runs git push, and so does
 * "unset 'a[$(git push)]'" with no variable at all.  dash refuses both
 * ("Illegal number", "bad variable name"), but /bin/sh is bash on other
 * hosts (Fedora, macOS), so what bash would evaluate is unresolvable
 * here: arithmetic naming a variable, subscripts and offsets naming one,
 * indirection, and substitution text inside brackets.
 */

/*
 * Whether s[0..n) names a variable or holds an expansion of one: a
 * letter, '_', '`', or a '$' but those of the shell's own numbers ($#,
 * $?, $$, $!, $0-$9: "sh -c" has no arguments).
 */
static int
names_variable(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if ((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' || s[i] == '`')
			return 1;
		if (s[i] != '$')
			continue;
		if (i + 1 < n && s[i + 1] != '\0' &&
		    strchr("#?$!0123456789", s[i + 1]) != NULL)
			i++;
		else
			return 1;
	}
	return 0;
}

/* The index in s of the |close| matching the |open| at s[0], or the
 * length of s when it is not closed. */
static size_t
matching(const char *s, char open, char close)
{
	size_t i;
	int depth = 0;

	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == open)
			depth++;
		else if (s[i] == close && --depth == 0)
			return i;
	}
	return i;
}

/* Sets o->why if ${...} at p (p[0] == '$') is evaluated as bash
 * arithmetic on a variable's value, is an indirection, or runs commands
 * (bash 5.3's ${ cmd; }). */
static void
check_brace_param(const char *p, struct one *o)
{
	const char *q = p + 2, *end = p + 1 + matching(p + 1, '{', '}');
	size_t k;

	/* Bash 5.3 runs the commands in "${ cmd; }" and "${| cmd; }" (5.2
	 * and dash refuse them as bad substitutions). */
	if (*q == '|' || isspace((unsigned char)*q)) {
		set_why(o,
		    "${ ...; } or ${| ...; }: bash 5.3 runs the commands in "
		    "it");
		return;
	}
	if (*q == '!') {
		set_why(o, "an indirect expansion ${!...} (bash)");
		return;
	}
	if (*q == '#' && q + 1 < end && q[1] != '}')
		q++;
	if ((*q >= '0' && *q <= '9') || strchr("@*#?$!-", *q) != NULL)
		q++;
	while (q < end &&
	    ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		(*q >= '0' && *q <= '9') || *q == '_'))
		q++;
	if (q < end && *q == '[') {
		k = matching(q, '[', ']');
		if (!(k == 2 && (q[1] == '@' || q[1] == '*')) &&
		    names_variable(q + 1, k > 0 ? k - 1 : 0))
			set_why(o,
			    "an array subscript naming a variable: bash "
			    "evaluates its value as code");
		q += k + (q[k] != '\0');
	}
	/* ${NAME=value}, ${NAME:=value}: an assignment */
	if (q < end && (*q == '=' || (*q == ':' && q + 1 < end && q[1] == '=')))
		check_set_name(p + 2, o);
	if (q + 1 < end && q[0] == '@' && q[1] == 'P') {
		set_why(o,
		    "${...@P}: bash evaluates a value as a prompt and runs its "
		    "substitutions");
		return;
	}
	if (q < end && *q == ':' && q + 1 < end &&
	    strchr("-=?+", q[1]) == NULL && names_variable(q + 1, end - q - 1))
		set_why(o,
		    "a substring offset naming a variable: bash evaluates "
		    "its value as code");
}

/* Sets o->why if word |w| holds what bash would evaluate as above. */
static void
check_arith_word(const struct shword *w, struct one *o)
{
	const char *t = w->text, *p, *b;
	size_t i;
	int depth;

	if (t == NULL)
		return;
	if (strstr(t, "$[") != NULL)
		set_why(o, "$[...] is bash arithmetic");
	/* A subscript holding substitution text: a name given to a bash
	 * builtin evaluates it. */
	for (b = strchr(t, '['); b != NULL; b = strchr(b + 1, '['))
		for (p = b + 1; *p != '\0' && *p != ']'; p++)
			if (*p == '`' ||
			    (*p == '$' && (p[1] == '(' || p[1] == '{')))
				set_why(o,
				    "a substitution inside [...]: bash runs "
				    "it where the word is a variable's name");
	if (w->flags & SHW_ARITH)
		for (p = strstr(t, "$(("); p != NULL;
		     p = strstr(p + 1, "$((")) {
			for (i = 3, depth = 0; p[i] != '\0'; i++) {
				if (p[i] == '(')
					depth++;
				else if (p[i] == ')' && depth == 0 &&
				    p[i + 1] == ')')
					break;
				else if (p[i] == ')')
					depth--;
			}
			if (names_variable(p + 3, i - 3))
				set_why(o,
				    "arithmetic naming a variable: bash "
				    "evaluates its value as code");
		}
	if (w->flags & SHW_PARAM)
		for (p = strstr(t, "${"); p != NULL; p = strstr(p + 1, "${"))
			check_brace_param(p, o);
}

/*
 * bash translates $"..." through the message catalog TEXTDOMAIN and
 * TEXTDOMAINDIR name, and expands the translation as it does "...":
 * with a catalog the agent wrote, whose translation of "hi" is
 * $(git push), "echo $"hi"" runs git push (the variables set on an
 * earlier line, even by for loops).
 */
static void
check_locale_word(const struct shword *w, struct one *o)
{
	if (w->flags & SHW_LOCALE)
		set_why(o,
		    "$\"...\": bash translates it with a message catalog "
		    "and expands the translation");
}

/*
 * Whether word |w|, given to a bash builtin as a variable's name (NAME or
 * NAME=value), makes bash evaluate something: an expansion in the name,
 * or a subscript naming a variable.
 */
static int
name_evaluates(const char *s)
{
	size_t eq = strcspn(s, "="), b = strcspn(s, "[");

	if (strcspn(s, "$`") < eq)
		return 1;
	return b < eq && names_variable(s + b + 1, eq - b - 1);
}

/*
 * printf's options, up to its format: bash evaluates a subscript in the
 * NAME of "-v NAME" or "-vNAME", and a word there that is not fixed may
 * be such an option itself ("printf $o %s 1" with o='-vb[x]').
 */
static void
check_printf_v(const struct shword *w, size_t n, struct one *o)
{
	const char *a;
	size_t j;

	for (j = 1; j < n; j++) {
		if (!fixed(&w[j])) {
			set_why(o,
			    "printf with an option that is not a fixed word "
			    "(it may be -v and a name bash evaluates)");
			return;
		}
		a = w[j].text;
		if (strncmp(a, "-v", 2) != 0)
			return;
		if ((a[2] == '\0' && ++j < n &&
			(!fixed(&w[j]) || name_evaluates(w[j].text))) ||
		    (a[2] != '\0' && name_evaluates(a + 2)))
			set_why(o, "printf -v with a name bash evaluates");
	}
}

/*
 * test -v NAME (bash) evaluates a subscript in NAME.  A word that may
 * expand to several (split, a glob, braces) may hold both, and a single
 * word that is not fixed may be either: "test $a" with a='-v b[x]'.
 */
static void
check_test_v(const char *name, const struct shword *w, size_t n, struct one *o)
{
	size_t j;

	for (j = 1; j < n; j++)
		if (w[j].flags & (SHW_SPLIT | SHW_GLOB | SHW_BRACE)) {
			set_why(o,
			    "%s with a word that may expand to several (one "
			    "may be -v and a name bash evaluates)",
			    name);
			return;
		}
	for (j = 1; j + 1 < n; j++)
		if ((!fixed(&w[j]) || strcmp(w[j].text, "-v") == 0) &&
		    (!fixed(&w[j + 1]) || name_evaluates(w[j + 1].text)))
			set_why(o, "%s -v with a name bash evaluates", name);
}

/*
 * Bash builtins that evaluate arithmetic (let, declare -i), run a
 * command (mapfile -C) or take a variable's name, whose subscript bash
 * evaluates (unset, read, printf -v, test -v, declare, declare -n ...).  Tried with bash 5.2: printf's
 * numeric conversions, wait, kill, shift, return, exit, ulimit, export,
 * mapfile and getopts do not evaluate such a value.
 */
static void
check_bash_builtin(
    const char *name, const struct shword *w, size_t n, struct one *o)
{
	static const char *const takes_names[] = { "unset", "read", "declare",
		"typeset", "local", NULL };
	size_t j, k;

	if (strcmp(name, "let") == 0) {
		set_why(o,
		    "let is arithmetic: bash evaluates a variable's "
		    "value as code");
		return;
	}
	if (strcmp(name, "compgen") == 0 || strcmp(name, "complete") == 0) {
		for (j = 1; j < n; j++)
			if (!fixed(&w[j]) ||
			    (w[j].text[0] == '-' &&
				strpbrk(w[j].text, "CF") != NULL)) {
				set_why(o,
				    "%s -C or -F: bash runs a command or "
				    "function",
				    name);
				return;
			}
		/* -W WORDLIST: bash expands the word list as it does a
		   word, substitutions too ("compgen -W '$(git push)' x"
		   runs git push), so it may hold no expansion. */
		for (j = 1; j < n; j++) {
			const char *wl;

			if (w[j].text[0] != '-' ||
			    (wl = strchr(w[j].text, 'W')) == NULL)
				continue;
			wl = wl[1] != '\0' ? wl + 1
			    : j + 1 < n	   ? w[j + 1].text
					   : "";
			if (strpbrk(wl, "$`") != NULL) {
				set_why(o,
				    "%s -W with an expansion: bash expands "
				    "the word list, substitutions too",
				    name);
				return;
			}
		}
	}
	if (strcmp(name, "mapfile") == 0 || strcmp(name, "readarray") == 0)
		for (j = 1; j < n; j++)
			if (!fixed(&w[j]) ||
			    (w[j].text[0] == '-' &&
				strchr(w[j].text, 'C') != NULL)) {
				set_why(o,
				    "%s -C: bash evaluates a callback command",
				    name);
				return;
			}
	/* Builtins that set the variables they are given by name, also
	   as an option's attached value (read -aPATH), or unset them:
	   with PATH unset, dash and bash look a command up in the working
	   directory ("unset PATH; git status" runs the agent's ./git), and
	   bash's "wait -p PATH" sets it to a process id, a directory
	   the agent can make beforehand. */
	if (strcmp(name, "read") == 0 || strcmp(name, "mapfile") == 0 ||
	    strcmp(name, "readarray") == 0 || strcmp(name, "getopts") == 0 ||
	    strcmp(name, "unset") == 0 || strcmp(name, "wait") == 0)
		for (j = 1; j < n; j++) {
			check_set_name(w[j].text, o);
			for (k = 1; w[j].text[0] == '-' && k < w[j].len; k++)
				check_set_name(w[j].text + k, o);
		}
	if (strcmp(name, "printf") == 0)
		for (j = 1; j < n; j++) {
			if (strcmp(w[j].text, "-v") == 0 && j + 1 < n)
				check_set_name(w[j + 1].text, o);
			else if (strncmp(w[j].text, "-v", 2) == 0)
				check_set_name(w[j].text + 2, o);
		}
	/* bash's "jobs -x CMD ARGS" runs CMD, its jobspecs replaced by
	   process groups: a wrapper the rules do not see through. */
	if (strcmp(name, "jobs") == 0)
		for (j = 1; j < n; j++)
			if (!fixed(&w[j]) ||
			    (w[j].text[0] == '-' &&
				strchr(w[j].text, 'x') != NULL)) {
				set_why(o, "jobs -x runs a command (bash)");
				return;
			}
	/* set -k (shopt -os keyword): assignments among a command's
	   arguments go to its environment (git commit GIT_EDITOR=...).
	   History on (set -o history -H, shopt -os history histexpand):
	   bash expands "!" in the lines that follow before it reads them,
	   so "echo !!:1:t\'" pastes a piece of a line already run, quote
	   and all, and runs what the rules read as echo's argument. */
	if (strcmp(name, "set") == 0 || strcmp(name, "shopt") == 0)
		for (j = 1; j < n; j++) {
			if (fixed(&w[j]) &&
			    (strcmp(w[j].text, "history") == 0 ||
				strcmp(w[j].text, "histexpand") == 0 ||
				(w[j].text[0] == '-' &&
				    strchr(w[j].text, 'H') != NULL))) {
				set_why(o,
				    "%s %.12s: bash's history expansion "
				    "rewrites the lines that follow",
				    name, w[j].text);
				return;
			}
			if (!fixed(&w[j]) ||
			    strcmp(w[j].text, "keyword") == 0 ||
			    ((w[j].text[0] == '-' || w[j].text[0] == '+') &&
				strchr(w[j].text, 'k') != NULL)) {
				set_why(o,
				    "set -k: bash passes assignments among "
				    "the arguments in the environment");
				return;
			}
		}
	if (strcmp(name, "printf") == 0) {
		check_printf_v(w, n, o);
		return;
	}
	if (strcmp(name, "test") == 0 || strcmp(name, "[") == 0) {
		check_test_v(name, w, n, o);
		return;
	}
	if (!str_in_list(name, takes_names))
		return;
	for (j = 1; j < n; j++) {
		if (!fixed(&w[j]) ||
		    (w[j].text[0] != '-' && w[j].text[0] != '+'))
			continue;
		if (strcmp(name, "read") != 0 && strcmp(name, "unset") != 0 &&
		    strpbrk(w[j].text + 1, "in") != NULL) {
			set_why(o,
			    "%s %.8s: bash evaluates values as arithmetic "
			    "or names",
			    name, w[j].text);
			return;
		}
	}
	for (j = 1; j < n; j++)
		if (!(fixed(&w[j]) && w[j].text[0] == '-') &&
		    name_evaluates(w[j].text)) {
			set_why(o,
			    "%s given a name bash evaluates (an expansion, "
			    "or a subscript naming a variable)",
			    name);
			return;
		}
}

/* ---- assignments ---- */

/* Variables that change which program runs or what it runs. */
static int
dangerous_var(const char *name, size_t n)
{
	static const char *const exact[] = { "PATH", "ENV", "BASH_ENV",
		"CDPATH", "IFS", "PS4", "SHELLOPTS", "BASHOPTS", "GLOBIGNORE",
		"SHELL", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
		"PERL5LIB", "PERL5OPT", "PERLLIB", "RUBYOPT", "RUBYLIB",
		"NODE_OPTIONS", "NODE_PATH", "GIT_EXEC_PATH", "GIT_SSH",
		"GIT_SSH_COMMAND", "GIT_PAGER", "GIT_EDITOR", "GIT_ASKPASS",
		"PAGER", "EDITOR", "VISUAL", "GCONV_PATH", "PROMPT_COMMAND",
		"BASH_ALIASES", "BASH_CMDS", "GIT_EXTERNAL_DIFF",
		"GIT_SEQUENCE_EDITOR", "GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR",
		"MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEFILES", "MANPAGER",
		"LESSOPEN", "LESSCLOSE", "BROWSER", "SSH_ASKPASS",
		"SUDO_ASKPASS", "TAR_OPTIONS", "RSYNC_RSH",
		"RSYNC_CONNECT_PROG", "RUSTC", "RUSTC_WRAPPER",
		"RUSTC_WORKSPACE_WRAPPER", "RUSTDOC", "JAVA_TOOL_OPTIONS",
		"_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "HOME", "XDG_CONFIG_HOME",
		"GIT_DIR", "GIT_COMMON_DIR", "GIT_ALLOW_PROTOCOL", NULL };
	/* GIT_TEST_*: git's test hooks, read by every release
	   (GIT_TEST_FSMONITOR='cmd' git status runs cmd). */
	/* EMACSLOADPATH: emacs loads site-start.el from it, --batch too */
	static const char *const prefixes[] = { "LD_", "BASH_FUNC_",
		"GIT_CONFIG", "GIT_TEST_", "GIT_DIFFTOOL_EXTCMD", "DYLD_",
		"CARGO_TARGET_", "CARGO_BUILD_", "npm_config_", "NPM_CONFIG_",
		"EMACSLOADPATH", NULL };
	char buf[64];
	size_t i;

	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, name, n);
	buf[n] = '\0';
	if (str_in_list(buf, exact))
		return 1;
	for (i = 0; prefixes[i] != NULL; i++)
		if (strncmp(buf, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

/* The length of the variable's name at the start of |s|: "PATH" in
   "PATH=x", "PATH+=x", "PATH[0]=x" and "PATH". */
static size_t
name_len(const char *s)
{
	size_t n = 0;

	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
	    s[n] == '_' || (n > 0 && s[n] >= '0' && s[n] <= '9'))
		n++;
	return n;
}

/*
 * Bash's variables with the integer attribute from the start: bash
 * evaluates whatever is assigned to them as arithmetic, a variable's
 * value too, so that with x='a[$(git push)]' read from a file,
 * "RANDOM=x", "for OPTIND in x" or "read RANDOM <f" run git push.
 */
static int
integer_var(const char *name, size_t n)
{
	static const char *const ints[] = { "RANDOM", "SRANDOM", "OPTIND",
		"HISTCMD", NULL };
	size_t i;

	for (i = 0; ints[i] != NULL; i++)
		if (strlen(ints[i]) == n && strncmp(name, ints[i], n) == 0)
			return 1;
	return 0;
}

/* |s| names a variable that is set (by read, for, printf -v ...), as
   NAME or, where the value is known, NAME=value or NAME+=value. */
static void
check_set_name(const char *s, struct one *o)
{
	size_t n = name_len(s), v;

	if (n > 0 && dangerous_var(s, n))
		set_why(o, "setting %.*s changes what runs",
		    (int)(n < 40 ? n : 40), s);
	if (n == 0 || !integer_var(s, n))
		return;
	/* A number as written is all such a value may be. */
	v = n + (s[n] == '+') + 1;
	if (!((s[n] == '=' || (s[n] == '+' && s[n + 1] == '=')) &&
		strspn(s + v, "0123456789") == strlen(s + v)))
		set_why(o,
		    "setting %.*s to what may not be a number: bash "
		    "evaluates it as arithmetic",
		    (int)n, s);
}

static void
check_assignment(const struct shword *w, struct one *o)
{
	if (w->flags & SHW_CMDSUB)
		set_why(o, "a command substitution in an assignment");
	check_set_name(w->text, o);
}

/*
 * Builtins that take variables' names (export and the like also
 * NAME=value): a word that is not fixed may name any variable, PATH too:
 * "export $x" with x=PATH=., "export P*" or "unset P*" with a file of that
 * name in the working directory, "wait -p $x".  What is safe is an
 * assignment as written (SHW_ASSIGN) to a declaration builtin named
 * plainly, as the command's first word: neither dash nor bash splits or
 * globs its value (bash does when the builtin is quoted or behind
 * "command -p"), and "$!" to wait.
 */
static void
check_name_words(const struct shword *w, size_t n, int plain, struct one *o)
{
	static const char *const namers[] = { "unset", "read", "mapfile",
		"readarray", "getopts", "wait", "export", "readonly", "local",
		"declare", "typeset", NULL };
	static const char *const declarers[] = { "export", "readonly", "local",
		"declare", "typeset", NULL };
	const char *name = base_name(w[0].text);
	size_t j;

	if (!str_in_list(name, namers))
		return;
	plain = plain && w[0].flags == 0 && strcmp(w[0].text, name) == 0 &&
	    str_in_list(name, declarers);
	for (j = 1; j < n; j++) {
		if (fixed(&w[j]) || (plain && (w[j].flags & SHW_ASSIGN)))
			continue;
		if (strcmp(name, "wait") == 0 && strcmp(w[j].text, "$!") == 0 &&
		    (w[j].flags & SHW_NOT_FIXED) == SHW_PARAM)
			continue;
		set_why(o,
		    "%s given a word that is not fixed (it may name any "
		    "variable, PATH too)",
		    name);
		return;
	}
}

/* ---- wrappers seen through ---- */

/*
 * Whether a wrapper's word names it where the agent cannot put another
 * program: its bare name (looked up in PATH), /bin or /usr/bin.  A
 * wrapper named by another path may be anything of that name: with a
 * copy of sh as ./nohup, "./nohup git status" runs the file git as a
 * script, and an allow rule saw git status.
 */
static int
system_path(const char *s)
{
	size_t d = (size_t)(base_name(s) - s);

	return d == 0 || (d == 5 && strncmp(s, "/bin/", 5) == 0) ||
	    (d == 9 && strncmp(s, "/usr/bin/", 9) == 0);
}

/*
 * If words[i] is a wrapper that runs the rest of its words as a command,
 * returns the index of that command (> i); i if it is not one (or, like
 * "command -v", runs nothing); sets o->why and returns i for options it
 * does not know.
 */
static size_t
unwrap(const struct shword *w, size_t n, size_t i, struct one *o)
{
	static const char *const reserved[] = { "{", "}", "if", "then", "else",
		"elif", "fi", "while", "until", "for", "do", "done", "case",
		"esac", "select", "function", "coproc", "[[", NULL };
	const char *name = base_name(w[i].text);
	size_t j = i + 1, k;
	const char *a;

#define ARG_FIXED() \
	do { \
		if (!fixed(&w[j])) { \
			set_why( \
			    o, "a %s option that is not a fixed word", name); \
			return i; \
		} \
		a = w[j].text; \
	} while (0)

	if (strcmp(name, "env") == 0) {
		for (; j < n; j++) {
			ARG_FIXED();
			/* After "--" env still sets NAME=value operands:
			   "env -- X=1 git push" runs git push. */
			if (strcmp(a, "--") == 0) {
				for (j++; j < n; j++) {
					ARG_FIXED();
					if (strchr(a, '=') == NULL)
						break;
					check_assignment(&w[j], o);
				}
				break;
			}
			if (strcmp(a, "-i") == 0 || strcmp(a, "-") == 0 ||
			    strcmp(a, "--ignore-environment") == 0 ||
			    strcmp(a, "-0") == 0 || strcmp(a, "--null") == 0 ||
			    strncmp(a, "--unset=", 8) == 0 ||
			    (strncmp(a, "-u", 2) == 0 && a[2] != '\0'))
				continue;
			if (strcmp(a, "-u") == 0) {
				j++;
				continue;
			}
			if (a[0] == '-') {
				set_why(o, "env option %.20s", a);
				return i;
			}
			if (strchr(a, '=') != NULL) {
				check_assignment(&w[j], o);
				continue;
			}
			break;
		}
	} else if (strcmp(name, "command") == 0) {
		for (; j < n; j++) {
			ARG_FIXED();
			/* -p, also as -pp: runs what follows */
			if (a[0] == '-' && a[1] != '\0' &&
			    strspn(a + 1, "p") == strlen(a + 1))
				continue;
			if (strcmp(a, "--") == 0) {
				j++;
				break;
			}
			if (a[0] == '-' && strpbrk(a, "vV") != NULL)
				return i; /* -v, -V, -pv: a lookup */
			if (a[0] == '-') {
				set_why(o, "command option %.20s", a);
				return i;
			}
			break;
		}
	} else if (strcmp(name, "nice") == 0) {
		for (; j < n; j++) {
			ARG_FIXED();
			if (strcmp(a, "-n") == 0) {
				j++;
				continue;
			}
			if (strcmp(a, "--") == 0) {
				j++;
				break;
			}
			if (a[0] == '-' &&
			    (strspn(a + 1, "0123456789") == strlen(a + 1) ||
				strncmp(a, "-n", 2) == 0 ||
				strncmp(a, "--adjustment=", 13) == 0))
				continue;
			if (a[0] == '-') {
				set_why(o, "nice option %.20s", a);
				return i;
			}
			break;
		}
	} else if (strcmp(name, "nohup") == 0 || strcmp(name, "time") == 0) {
		for (; j < n; j++) {
			ARG_FIXED();
			if (strcmp(a, "--") == 0) {
				j++;
				break;
			}
			if (strcmp(name, "time") == 0 && strcmp(a, "-p") == 0)
				continue;
			if (a[0] == '-') {
				set_why(o, "%s option %.20s", name, a);
				return i;
			}
			break;
		}
		/* bash's time is a keyword and times a pipeline: "time !
		   git push" and "time X=1 git push" run git push, and
		   "time { ...; }" a group the reader took for words. */
		while (strcmp(name, "time") == 0 && j < n && fixed(&w[j]) &&
		    strcmp(w[j].text, "!") == 0)
			j++;
		if (strcmp(name, "time") == 0 && j < n &&
		    str_in_list(w[j].text, reserved)) {
			set_why(o,
			    "time before %.10s (a bash compound command)",
			    w[j].text);
			return i;
		}
		for (; strcmp(name, "time") == 0 && j < n && fixed(&w[j]) &&
		     (k = name_len(w[j].text)) > 0 &&
		     (w[j].text[k] == '=' ||
			 (w[j].text[k] == '+' && w[j].text[k + 1] == '='));
		     j++)
			check_assignment(&w[j], o);
	} else if (strcmp(name, "timeout") == 0) {
		for (; j < n; j++) {
			ARG_FIXED();
			if (strcmp(a, "--") == 0) {
				j++;
				break;
			}
			if (strcmp(a, "-s") == 0 || strcmp(a, "-k") == 0)
				j++;
			else if (strncmp(a, "-s", 2) == 0 ||
			    strncmp(a, "-k", 2) == 0 ||
			    strncmp(a, "--signal=", 9) == 0 ||
			    strncmp(a, "--kill-after=", 13) == 0 ||
			    strcmp(a, "--foreground") == 0 ||
			    strcmp(a, "--preserve-status") == 0 ||
			    strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)
				continue;
			else if (a[0] == '-') {
				set_why(o, "timeout option %.20s", a);
				return i;
			} else
				break;
		}
		j++; /* the duration */
	} else if (strcmp(name, "stdbuf") == 0) {
		for (; j < n; j++) {
			ARG_FIXED();
			if (strcmp(a, "--") == 0) {
				j++;
				break;
			}
			if (strcmp(a, "-i") == 0 || strcmp(a, "-o") == 0 ||
			    strcmp(a, "-e") == 0)
				j++;
			else if ((a[0] == '-' && a[1] != '\0' &&
				     strchr("ioe", a[1]) != NULL) ||
			    strncmp(a, "--input=", 8) == 0 ||
			    strncmp(a, "--output=", 9) == 0 ||
			    strncmp(a, "--error=", 8) == 0)
				continue;
			else if (a[0] == '-') {
				set_why(o, "stdbuf option %.20s", a);
				return i;
			} else
				break;
		}
	} else
		return i;
#undef ARG_FIXED
	/* Every word skipped on the way to the command, options' values
	   too (timeout -s, nice -n, env -u, stdbuf -o, a duration after
	   "--"), must be fixed: with x='5 dd ...', "timeout -- $x git
	   status" runs dd, and "nice -n $x" with no command after it too. */
	for (k = i + 1; k < j && k < n; k++)
		if (!fixed(&w[k])) {
			set_why(
			    o, "a %s option that is not a fixed word", name);
			return i;
		}
	return j < n ? j : i;
}

/* ---- commands that run code the rules cannot see ---- */

static int
is_shell(const char *name)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh",
		"ksh", "mksh", "lksh", "ash", "yash", "fish", "csh", "tcsh",
		"rbash", "posh", "pdksh", "oksh", NULL };

	return str_in_list(name, shells);
}

static int
is_interpreter(const char *name)
{
	static const char *const stems[] = { "python", "pypy", "perl", "ruby",
		"php", "lua", "luajit", "tclsh", "wish", NULL };
	static const char *const exact[] = { "node", "nodejs", "bun", "deno",
		"Rscript", "osascript", "pwsh", "powershell", "irb", "jshell",
		"ghci", "julia", "guile", NULL };
	size_t i, n;

	if (str_in_list(name, exact))
		return 1;
	for (i = 0; stems[i] != NULL; i++) {
		n = strlen(stems[i]);
		if (strncmp(name, stems[i], n) == 0 &&
		    strspn(name + n, "0123456789.") == strlen(name + n))
			return 1;
	}
	return 0;
}

/*
 * A word among the options of a program that reads code (a shell, an
 * interpreter, dc, gnuplot): one that is not fixed may be a code option,
 * and "-" (with |fds|, also a descriptor's path) is the program read
 * from standard input, which the rules match as "NAME -" where
 * |stdin_prog|.  Sets o->why and returns 1 for either.
 */
static int
program_word(const char *name, const struct shword *w, int fds, int stdin_prog,
    struct one *o)
{
	if (!fixed(w)) {
		set_why(
		    o, "%s with an argument that is not a fixed word", name);
		return 1;
	}
	if (strcmp(w->text, "-") != 0 && !(fds && fd_path(w->text)))
		return 0;
	set_why(o, "%s reading its program from %s", name,
	    strcmp(w->text, "-") == 0 ? "standard input" : "a descriptor");
	o->stdin_prog |= stdin_prog;
	return 1;
}

/* A shell: -c or -s or no script operand all run code the rules do not see. */
static void
check_shell(const struct shword *w, size_t n, struct one *o, int interp)
{
	static const char *const codemods[] = { "timeit", "code", "asyncio",
		"pdb", "idlelib", "idlelib.idle", NULL };
	const char *name = base_name(w[0].text);
	size_t j;

	for (j = 1; j < n; j++) {
		const char *a = w[j].text;

		if (program_word(name, &w[j], 0, 1, o))
			return;
		if (strcmp(a, "--") == 0) {
			j++;
			break;
		}
		if (a[0] != '-' && a[0] != '+')
			break;
		if (strncmp(a, "--", 2) == 0) {
			if (strncmp(a, "--eval", 6) == 0 ||
			    strncmp(a, "--print", 7) == 0 ||
			    strncmp(a, "--command", 9) == 0 ||
			    strncmp(a, "--exec", 6) == 0 ||
			    strncmp(a, "--init-file", 11) == 0 ||
			    strncmp(a, "--rcfile", 8) == 0) {
				set_why(o, "%s %.20s runs code text", name, a);
				return;
			}
			if (strcmp(a, "--version") == 0 ||
			    strcmp(a, "--help") == 0)
				return;
			continue;
		}
		if (!interp && strchr(a + 1, 'c') == NULL &&
		    strchr(a + 1, 's') != NULL) {
			set_why(o,
			    "%s reading its program from standard "
			    "input",
			    name);
			o->stdin_prog = 1;
			return;
		}
		if (strpbrk(a + 1, interp ? "cCeErpBR" : "c") != NULL) {
			set_why(o, "%s %.20s runs code text", name, a);
			return;
		}
		if (interp &&
		    (strcmp(a, "-V") == 0 || strcmp(a, "-h") == 0 ||
			strcmp(a, "-v") == 0))
			return;
		/* A module is an operand, but some evaluate code text
		   from their arguments or standard input: "python3 -m
		   timeit 'os.system(...)'" ran it as "python3 -c" does. */
		if (interp && strcmp(a, "-m") == 0 && j + 1 < n &&
		    fixed(&w[j + 1]) && str_in_list(w[j + 1].text, codemods)) {
			set_why(o, "%s -m %.20s runs code text", name,
			    w[j + 1].text);
			return;
		}
		if (interp && strcmp(a, "-m") == 0)
			return; /* a module, which is an operand */
		if (interp &&
		    (strcmp(a, "-W") == 0 || strcmp(a, "-X") == 0 ||
			strcmp(a, "-I") == 0 || strcmp(a, "-M") == 0))
			j++;
		if (!interp && strpbrk(a + 1, "o") != NULL)
			j++; /* -o OPTION */
	}
	if (j >= n || strcmp(w[j].text, "-") == 0 || fd_path(w[j].text)) {
		set_why(o, "%s reading its program from %s", name,
		    j >= n ? "standard input" : "a descriptor");
		o->stdin_prog = 1;
	} else if (!interp)
		o->script = j;
}

/* ---- options that run a command ---- */

/*
 * Whether |a| is the long option |opt| or, as getopt_long, argp and git
 * accept, an abbreviation of it at least |min| bytes long ("--to-comm"
 * is tar's --to-command), with or without "=VALUE".
 */
static int
long_opt(const char *a, const char *opt, size_t min)
{
	size_t n = strcspn(a, "=");

	return strncmp(a, "--", 2) == 0 && n >= min && n <= strlen(opt) &&
	    strncmp(a, opt, n) == 0;
}

/* Whether |a| is a cluster of short options holding |c| ("-ix", "-xCMD"). */
static int
short_opt(const char *a, int c)
{
	return a[0] == '-' && a[1] != '-' && a[1] != '\0' &&
	    strchr(a + 1, c) != NULL;
}

/* Whether |w| may expand to words the rules cannot see: an option. */
static int
may_be_option(const struct shword *w)
{
	if (fixed(w))
		return 0;
	if (w->flags & (SHW_PARAM | SHW_CMDSUB | SHW_ARITH))
		return 1;
	if ((w->flags & (SHW_GLOB | SHW_BRACE)) == 0)
		return 0;
	/* "*" matches a file named "-xgit push"; a glob after "src/" does
	   not. */
	if (strchr("*?[{", w->text[0]) != NULL)
		return 1;
	/* Nor does an option's name end where the reader thinks: "--upl*"
	   matches a file named "--upload-pack=CMD", and bash expands
	   "--u{p,p}load-pack=CMD" to that option, twice.  A pattern in
	   the value of a --NAME=VALUE (--grep=fix*) keeps the name. */
	return w->text[0] == '-' &&
	    !(w->text[1] == '-' &&
		strcspn(w->text, "=") < strcspn(w->text, "*?[{"));
}

/* Whether |w| expands to one word: not split, globbed or brace-expanded,
   and no "$@" or "${a[@]}" (quoted, as many words as there are). */
static int
one_word(const struct shword *w)
{
	return (w->flags & (SHW_SPLIT | SHW_GLOB | SHW_BRACE)) == 0 &&
	    strchr(w->text, '@') == NULL;
}

/* The index of git's subcommand: its first operand after the global
   options; |n| if there is none. */
static size_t
git_subcommand_at(const struct shword *w, size_t n)
{
	static const char *const takes_value[] = { "-C", "-c", "--git-dir",
		"--work-tree", "--namespace", "--super-prefix", "--config-env",
		"--attr-source", "--list-cmds", NULL };
	size_t j;

	for (j = 1; j < n; j++) {
		if (str_in_list(w[j].text, takes_value))
			j++;
		else if (w[j].text[0] != '-')
			return j;
	}
	return n;
}

static const char *
git_subcommand(const struct shword *w, size_t n)
{
	size_t j = git_subcommand_at(w, n);

	return j < n ? w[j].text : "";
}

/* ---- sed scripts ---- */

static void raise_by_text(const struct shell_rules *, const char *, size_t,
    const char *, int, enum shdecision *, int *);

/* Where the command text a sed script runs raises a decision. */
struct sedraise {
	const struct shell_rules *r;
	const char *ws;
	int depth;
	enum shdecision *d;
	int *rule;
};

/* The index of the delimiter |c| that ends the regex or replacement
   from s[i] (a backslash escapes the byte after it), or |len|. */
static size_t
sed_delim(const char *s, size_t len, size_t i, int c)
{
	for (; i < len && (unsigned char)s[i] != c; i++)
		if (s[i] == '\\')
			i++;
	return i < len ? i : len;
}

/* Skips one address at s[*i]: a number (first~step), $, /RE/ or \cREc
   with I and M flags, and +N or ~N after a comma.  -1: unreadable. */
static int
sed_addr(const char *s, size_t len, size_t *i)
{
	size_t k = *i;
	int c;

	if (k < len && (s[k] == '+' || s[k] == '~'))
		k++;
	if (k < len && isdigit((unsigned char)s[k])) {
		while (k < len && (isdigit((unsigned char)s[k]) || s[k] == '~'))
			k++;
	} else if (k < len && s[k] == '$')
		k++;
	else if (k < len && (s[k] == '/' || s[k] == '\\')) {
		c = s[k] == '/'	  ? '/'
		    : k + 1 < len ? (unsigned char)s[k + 1]
				  : '\n';
		k += s[k] == '/' ? 1 : 2;
		if (c == '\n' || c == '\\' ||
		    (k = sed_delim(s, len, k, c)) >= len)
			return -1;
		for (k++; k < len && (s[k] == 'I' || s[k] == 'M'); k++)
			;
	}
	*i = k;
	return 0;
}

/*
 * Reads the sed script s[0..len) as GNU sed does: addresses, commands,
 * blocks, labels, the text of a, i and c, the file of r, R, w and W, s
 * and y with any delimiter.  Returns 1 if the script runs commands: e
 * (its text, or with none the pattern space) or s's e flag (the
 * replacement); -1 if it cannot be read; 0 otherwise.  With |sr|, the
 * text of e and the replacement of s///e raise sr->d as code text.
 */
static int
sed_script(const char *s, size_t len, const struct sedraise *sr)
{
	size_t i = 0, k, e, m, o;
	int code = 0, cmd, c;
	char *t;

	for (;;) {
		while (i < len && (isspace((unsigned char)s[i]) || s[i] == ';'))
			i++;
		if (i >= len)
			return code;
		if (s[i] == '#') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		if (sed_addr(s, len, &i) != 0)
			return -1;
		while (i < len && isblank((unsigned char)s[i]))
			i++;
		if (i < len && s[i] == ',') {
			for (i++; i < len && isblank((unsigned char)s[i]); i++)
				;
			if (sed_addr(s, len, &i) != 0)
				return -1;
		}
		while (i < len && (isblank((unsigned char)s[i]) || s[i] == '!'))
			i++;
		if (i >= len)
			return -1;
		cmd = (unsigned char)s[i++];
		if (strchr("{}", cmd) != NULL)
			continue;
		if (strchr(":btTvaicrRwWe", cmd) != NULL) {
			/* to the end of the line (a label, b, t, T and v
			   also to a ';'); a, i and c's text continues past
			   an escaped newline */
			for (k = i; i < len && s[i] != '\n'; i++)
				if (strchr(":btTv", cmd) != NULL && s[i] == ';')
					break;
				else if (strchr("aic", cmd) != NULL &&
				    s[i] == '\\')
					i++;
			if (cmd == 'e') {
				code = 1;
				if (sr != NULL)
					raise_by_text(sr->r, s + k, i - k,
					    sr->ws, sr->depth, sr->d, sr->rule);
			}
			continue;
		}
		if (cmd == 's' || cmd == 'y') {
			if (i >= len || s[i] == '\n' || s[i] == '\\')
				return -1;
			c = (unsigned char)s[i++];
			if ((i = sed_delim(s, len, i, c)) >= len)
				return -1;
			k = ++i; /* the replacement */
			if ((e = sed_delim(s, len, i, c)) >= len)
				return -1;
			for (i = e + 1; cmd == 's' && i < len &&
			     strchr("gpiImMe0123456789", s[i]) != NULL;
			     i++) {
				if (s[i] != 'e')
					continue;
				code = 1;
				if (sr == NULL)
					continue;
				/* the replacement, escapes undone, runs */
				t = xreallocarray(NULL, e - k + 1, 1);
				for (m = k, o = 0; m < e; m++) {
					if (s[m] == '\\' && m + 1 < e)
						m++;
					t[o++] = s[m];
				}
				raise_by_text(sr->r, t, o, sr->ws, sr->depth,
				    sr->d, sr->rule);
				free(t);
			}
			if (cmd == 's' && i < len && s[i] == 'w') {
				while (i < len && s[i] != '\n')
					i++;
				continue;
			}
		} else if (strchr("lLqQ", cmd) != NULL) {
			while (i < len &&
			    (isblank((unsigned char)s[i]) ||
				isdigit((unsigned char)s[i])))
				i++;
		} else if (strchr("=dDgGhHnNpPxzF", cmd) == NULL)
			return -1;
		while (i < len && isblank((unsigned char)s[i]))
			i++;
		if (i < len && strchr(";\n}#", s[i]) == NULL)
			return -1;
	}
}

/* GNU sed, also by the name it has where the system's sed is another
   (gsed on the BSDs and macOS, from Homebrew or pkgsrc). */
static int
is_sed(const char *name)
{
	return strcmp(name, "sed") == 0 || strcmp(name, "gsed") == 0;
}

/*
 * sed's scripts, found as GNU sed finds them: -e SCRIPT, -eSCRIPT and
 * --expression (also in a cluster: -ne, and after operands), else the
 * first operand; -i's suffix is the rest of its cluster (-i.bak, -ie is
 * the suffix "e").  A script that runs commands (sed_script), one read
 * from a file (-f, --file), one that cannot be read, and an argument
 * that may expand to an option make the command unresolvable, unless
 * --sandbox forbids e, r and w.  With |sr|, the command text raises its
 * decision instead.
 */
static void
check_sed(
    const struct shword *w, size_t n, struct one *o, const struct sedraise *sr)
{
	const char *a, *why = NULL, *scr;
	size_t j, k;
	int opts = 1, given = 0, sandbox = 0, rc;

	for (j = 1; j < n; j++)
		if (fixed(&w[j]) && long_opt(w[j].text, "--sandbox", 4))
			sandbox = 1;
	for (j = 1; j < n && (why == NULL || sr != NULL); j++) {
		a = w[j].text;
		/* "dir/$x" in quotes is one word that begins "dir/" */
		if (opts && may_be_option(&w[j]) &&
		    ((w[j].flags & SHW_SPLIT) ||
			strchr("$`*?[{~-", a[0]) != NULL)) {
			why = "sed with an argument that is not a fixed word "
			      "(it may be an option that runs a command)";
			break;
		}
		if (!fixed(&w[j]) || !opts || a[0] != '-' || a[1] == '\0')
			continue;
		if (strcmp(a, "--") == 0) {
			opts = 0;
			continue;
		}
		scr = NULL;
		if (long_opt(a, "--expression", 3)) {
			given = 1;
			scr = strchr(a, '=') != NULL ? strchr(a, '=') + 1
			    : j + 1 < n		     ? w[++j].text
						     : NULL;
		} else if (long_opt(a, "--file", 4)) {
			given = 1;
			why = "sed -f reads a script the rules cannot see";
		} else if (a[1] != '-') {
			for (k = 1; a[k] != '\0'; k++) {
				if (a[k] == 'i')
					break; /* the rest is a suffix */
				if (a[k] == 'f') {
					given = 1;
					why = "sed -f reads a script the rules "
					      "cannot see";
					break;
				}
				if (a[k] == 'l') {
					j += a[k + 1] == '\0';
					break;
				}
				if (a[k] == 'e') {
					given = 1;
					scr = a[k + 1] != '\0' ? a + k + 1
					    : j + 1 < n	       ? w[++j].text
							       : NULL;
					break;
				}
			}
		}
		if (scr != NULL && !fixed(&w[j]))
			why = "a sed script that is not a fixed word";
		else if (scr != NULL &&
		    (rc = sed_script(scr, strlen(scr), sr)) != 0)
			why = rc < 0 ? "a sed script the rules cannot read"
				     : "a sed script that runs commands (e)";
	}
	for (j = 1, opts = 1; !given && why == NULL && j < n; j++) {
		a = w[j].text;
		if (opts && fixed(&w[j]) && strcmp(a, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && fixed(&w[j]) && a[0] == '-' && a[1] != '\0') {
			/* an option's value is the next word */
			if ((a[1] != '-' && strchr(a, 'i') == NULL &&
				a[strlen(a) - 1] == 'l') ||
			    (long_opt(a, "--line-length", 3) &&
				strchr(a, '=') == NULL))
				j++;
			continue;
		}
		if (!fixed(&w[j]))
			why = "a sed script that is not a fixed word";
		else if ((rc = sed_script(a, w[j].len, sr)) != 0)
			why = rc < 0 ? "a sed script the rules cannot read"
				     : "a sed script that runs commands (e)";
		break;
	}
	if (why != NULL && !sandbox && o != NULL)
		set_why(o, "%s", why);
}

/*
 * dc (whose "!" runs a command) and gnuplot (system(), "!"): a program
 * given as text (-e, --expression) or read from standard input (no file
 * operand, "-", a descriptor) is code the rules cannot see, as an
 * interpreter's is; a script file is an operand.
 */
static void
check_script_prog(
    const char *name, const struct shword *w, size_t n, struct one *o)
{
	size_t j;
	int file = 0;

	for (j = 1; j < n; j++) {
		const char *a = w[j].text;

		if (program_word(name, &w[j], 1, 0, o))
			return;
		if (short_opt(a, 'e') || long_opt(a, "--expression", 3)) {
			set_why(o, "%s %.20s runs code text", name, a);
			return;
		}
		if (strcmp(a, "-V") == 0 || strcmp(a, "-h") == 0 ||
		    long_opt(a, "--version", 5) || long_opt(a, "--help", 4))
			return;
		if (a[0] != '-' || strcmp(a, "-f") == 0 ||
		    strcmp(a, "-c") == 0 || strncmp(a, "--file=", 7) == 0)
			file = 1;
	}
	if (!file)
		set_why(o, "%s reading its program from standard input", name);
}

/*
 * Programs that run a command named by an option (find -exec, git rebase
 * -x, tar --to-command, make --eval ...): such an option, or an argument
 * that may expand to one, makes the command unresolvable.
 */
static void
check_code_options(
    const char *name, const struct shword *w, size_t n, struct one *o)
{
	static const char *const progs[] = { "find", "git", "tar", "rsync",
		"vi", "vim", "nvim", "ex", "make", "gmake", "sort", "zip", "rg",
		"cmake", "npm", "pnpm", "yarn", "npx", "pnpx", "split", "man",
		"emacs", "mvn", "mvnw", "ctest", NULL };
	const char *a, *sub = "";
	size_t j;
	int vim = 0;

	/* sqlite3's dot-commands (.shell, .system, .once '|cmd') and
	   edit() run programs; its -safe, first, forbids them all. */
	if (strcmp(name, "sqlite3") == 0 &&
	    !(n > 1 && fixed(&w[1]) &&
		(strcmp(w[1].text, "-safe") == 0 ||
		    strcmp(w[1].text, "--safe") == 0))) {
		set_why(
		    o, "sqlite3 without -safe first runs .shell and edit()");
		return;
	}
	if (strcmp(name, "dc") == 0 || strcmp(name, "gnuplot") == 0) {
		check_script_prog(name, w, n, o);
		return;
	}
	if (is_sed(name)) {
		check_sed(w, n, o, NULL);
		return;
	}
	if (!str_in_list(name, progs))
		return;
	if (strcmp(name, "git") == 0)
		sub = git_subcommand(w, n);
	vim = strcmp(name, "vi") == 0 || strcmp(name, "vim") == 0 ||
	    strcmp(name, "nvim") == 0 || strcmp(name, "ex") == 0;
	for (j = 1; j < n; j++) {
		a = w[j].text;
		/* a pattern in the value of mvn's -DNAME=VALUE keeps the
		   name (-Dtest=Foo*) */
		if (may_be_option(&w[j]) &&
		    !((strcmp(name, "mvn") == 0 || strcmp(name, "mvnw") == 0) &&
			strncmp(a, "-D", 2) == 0 &&
			strcspn(a, "=") < strcspn(a, "*?[{"))) {
			set_why(o,
			    "%s with an argument that is not a fixed word "
			    "(it may be an option that runs a command)",
			    name);
			return;
		}
		if (strcmp(name, "find") == 0 &&
		    (strcmp(a, "-exec") == 0 || strcmp(a, "-execdir") == 0 ||
			strcmp(a, "-ok") == 0 || strcmp(a, "-okdir") == 0))
			set_why(o, "find %s runs a command", a);
		/* clone's -c and --config set the new repository's
		   config before it fetches: "git clone --config
		   protocol.ext.allow=always 'ext::sudo id' d" runs sudo,
		   and so do -cNAME=VALUE and --conf=NAME=VALUE. */
		if (strcmp(name, "git") == 0 &&
		    (strcmp(a, "-c") == 0 || long_opt(a, "--config", 4) ||
			(strcmp(sub, "clone") == 0 && short_opt(a, 'c')) ||
			strncmp(a, "--config-env", 12) == 0 ||
			strncmp(a, "--exec-path", 11) == 0))
			set_why(o, "git %s can make git run code", a);
		if (strcmp(name, "git") == 0 &&
		    (long_opt(a, "--exec", 4) ||
			long_opt(a, "--upload-pack", 4) ||
			long_opt(a, "--receive-pack", 5) ||
			long_opt(a, "--open-files-in-pager", 4) ||
			long_opt(a, "--extcmd", 5) ||
			long_opt(a, "--sendmail-cmd", 5) ||
			long_opt(a, "--template", 5) ||
			(strcmp(sub, "rebase") == 0 && short_opt(a, 'x')) ||
			(strcmp(sub, "difftool") == 0 && short_opt(a, 'x')) ||
			(strcmp(sub, "grep") == 0 && short_opt(a, 'O')) ||
			((strcmp(sub, "clone") == 0 ||
			     strcmp(sub, "ls-remote") == 0) &&
			    short_opt(a, 'u')) ||
			(strcmp(sub, "bisect") == 0 && strcmp(a, "run") == 0) ||
			(strcmp(sub, "send-email") == 0 &&
			    (long_opt(a, "--to-cmd", 5) ||
				long_opt(a, "--cc-cmd", 5) ||
				long_opt(a, "--header-cmd", 4) ||
				long_opt(a, "--smtp-server", 4)))))
			set_why(o, "git %s %.20s runs a command", sub, a);
		if (strcmp(name, "tar") == 0 &&
		    (short_opt(a, 'I') || short_opt(a, 'F') ||
			long_opt(a, "--to-command", 5) ||
			long_opt(a, "--use-compress-program", 4) ||
			long_opt(a, "--checkpoint-action", 13) ||
			long_opt(a, "--info-script", 4) ||
			long_opt(a, "--new-volume-script", 4) ||
			long_opt(a, "--rsh-command", 4)))
			set_why(o, "tar %.24s runs a command", a);
		if (strcmp(name, "rsync") == 0 &&
		    (strcmp(a, "-e") == 0 || long_opt(a, "--rsh", 4) ||
			long_opt(a, "--rsync-path", 4)))
			set_why(o, "rsync %.16s runs a command", a);
		if (vim &&
		    (strcmp(a, "-c") == 0 || strcmp(a, "--cmd") == 0 ||
			strcmp(a, "-S") == 0 || a[0] == '+'))
			set_why(o, "%s %.16s runs editor commands", name, a);
		/* make evaluates --eval text, a makefile named by -f
		   (-f - reads a here-document), and a command-line NAME:=
		   or NAME!= value ($(shell ...)) at once; SHELL and
		   .SHELLFLAGS say what runs the recipes. */
		if ((strcmp(name, "make") == 0 || strcmp(name, "gmake") == 0) &&
		    (long_opt(a, "--eval", 4) || short_opt(a, 'E') ||
			short_opt(a, 'f') || long_opt(a, "--file", 4) ||
			long_opt(a, "--makefile", 4) ||
			strstr(a, ":=") != NULL || strstr(a, "!=") != NULL ||
			strncmp(a, "SHELL", 5) == 0 ||
			strncmp(a, ".SHELLFLAGS", 11) == 0 ||
			strncmp(a, "MAKEFLAGS", 9) == 0 ||
			strncmp(a, "MAKEFILES", 9) == 0))
			set_why(o, "make %.24s runs make code", a);
		if (strcmp(name, "sort") == 0 &&
		    long_opt(a, "--compress-program", 5))
			set_why(o, "sort %.24s runs a command", a);
		if (strcmp(name, "zip") == 0 &&
		    (strcmp(a, "-TT") == 0 ||
			long_opt(a, "--unzip-command", 4)))
			set_why(o, "zip %.24s runs a command", a);
		if (strcmp(name, "rg") == 0 && long_opt(a, "--pre", 5))
			set_why(o, "rg %.24s runs a command", a);
		/* split --filter runs its shell command on each piece; man
		   runs the pager of -P and the browser of -H */
		if (strcmp(name, "split") == 0 && long_opt(a, "--filter", 4))
			set_why(o, "split %.24s runs a command", a);
		if (strcmp(name, "man") == 0 &&
		    (short_opt(a, 'P') || short_opt(a, 'H') ||
			long_opt(a, "--pager", 4) || long_opt(a, "--html", 4)))
			set_why(o, "man %.24s runs a command", a);
		/* npm exec (also x), pnpm and yarn exec and dlx run any
		   command, from PATH too, also behind global options */
		if ((strcmp(name, "npm") == 0 || strcmp(name, "pnpm") == 0 ||
			strcmp(name, "yarn") == 0) &&
		    (strcmp(a, "exec") == 0 || strcmp(a, "dlx") == 0 ||
			(j == 1 && strcmp(a, "x") == 0)))
			set_why(o, "%s %.8s runs a command", name, a);
		if ((strcmp(name, "npx") == 0 || strcmp(name, "pnpx") == 0) &&
		    (strcmp(a, "-c") == 0 || long_opt(a, "--call", 6)))
			set_why(o, "%s %.8s runs code text", name, a);
		/* emacs evaluates --eval's Lisp (shell-command runs a
		   program); mvn exec:exec runs -Dexec.executable with
		   -Dexec.args; cmake -P and ctest -S run a CMake script
		   (execute_process), from a file or from standard input */
		if (strcmp(name, "emacs") == 0 &&
		    (long_opt(a, "--eval", 4) || strcmp(a, "-eval") == 0 ||
			long_opt(a, "--execute", 5) ||
			strcmp(a, "-execute") == 0))
			set_why(o, "emacs %.16s runs code text", a);
		/* ... and loads and runs Lisp from a file (the agent's, or
		   standard input: -l /dev/stdin) as sed -f reads a script:
		   -l, --load, --script, -x (a script's #! line), an
		   --init-directory's init.el, and calls a function by
		   name (-f batch-byte-compile, eshell-batch-file ...),
		   also abbreviated as emacs takes them */
		if (strcmp(name, "emacs") == 0 &&
		    (strcmp(a, "-l") == 0 || strcmp(a, "-load") == 0 ||
			long_opt(a, "--load", 4) || strcmp(a, "-script") == 0 ||
			long_opt(a, "--script", 4) || strcmp(a, "-x") == 0 ||
			long_opt(a, "--init-directory", 5) ||
			strcmp(a, "-f") == 0 || strcmp(a, "-funcall") == 0 ||
			long_opt(a, "--funcall", 5)))
			set_why(
			    o, "emacs %.20s runs Lisp the rules cannot see", a);
		if ((strcmp(name, "mvn") == 0 || strcmp(name, "mvnw") == 0) &&
		    (strstr(a, "exec.executable") != NULL ||
			strstr(a, "exec.args") != NULL))
			set_why(o, "mvn %.24s runs a command", a);
		if (((strcmp(name, "cmake") == 0 && strcmp(a, "-P") == 0) ||
			(strcmp(name, "ctest") == 0 &&
			    (strcmp(a, "-S") == 0 || strcmp(a, "-SP") == 0 ||
				strcmp(a, "-SR") == 0))) &&
		    j + 1 < n &&
		    (strcmp(w[j + 1].text, "-") == 0 || fd_path(w[j + 1].text)))
			set_why(o, "%s %s reads a script from a descriptor",
			    name, a);
		if (strcmp(name, "cmake") == 0 && strcmp(a, "-E") == 0 &&
		    j + 1 < n &&
		    (strcmp(w[j + 1].text, "env") == 0 ||
			strcmp(w[j + 1].text, "time") == 0 ||
			strcmp(w[j + 1].text, "chdir") == 0))
			set_why(
			    o, "cmake -E %.8s runs a command", w[j + 1].text);
	}
}

/*
 * |p|, a directory beneath the workspace |ws| as written (path_ok), as a
 * path relative to it: "src/x" for "src/x" and for ws + "/src/x"; -1 if
 * it does not fit.
 */
static int
ws_relative(const char *p, const char *ws, char *out, size_t outlen)
{
	size_t n;

	if (p[0] == '/') {
		n = strlen(ws);
		while (n > 1 && ws[n - 1] == '/')
			n--;
		p += n;
		p += strspn(p, "/");
	}
	return (size_t)snprintf(out, outlen, "%s", p) < outlen ? 0 : -1;
}

static int lexical_path(const char *, char *, size_t);
static int through_link(const struct fsctx *, const char *, const char *,
    size_t, int, char *, size_t);

/* Whether cd to |rel| (from the workspace |ws|, followed) goes through a
   link the string makes (follow_links), or one the rules lost. */
static int
cd_linked(const struct fsctx *fc, const char *ws, const char *rel)
{
	char wsn[4096], out[4096];

	if (fc->links_lost)
		return 1;
	if (fc->nlinks == 0)
		return 0;
	return lexical_path(ws, wsn, sizeof(wsn)) != 0 ||
	    through_link(fc, wsn, rel, strlen(rel), 0, out, sizeof(out)) != 0;
}

/* cd to |p| (path_ok) goes where the workspace's symlinks lead: out of
   it (cd r with r -> /etc) is outside, as "cd /etc" is; so is cd through
   a link the same string makes. */
static void
cd_leads(const char *p, const char *ws, struct one *o)
{
	struct fsctx *fc = o->fc;
	char rel[1024], buf[2100];
	size_t i;
	enum shfs_where wh;

	if (fc == NULL)
		return;
	if (ws_relative(p, ws, rel, sizeof(rel)) != 0) {
		set_why(o, "cd to a path too long to follow");
		return;
	}
	for (i = 0; i < (p[0] == '/' ? 1 : fc->ncwds); i++) {
		snprintf(buf, sizeof(buf), "%s%s%s/",
		    p[0] == '/' ? "" : fc->cwds[i],
		    p[0] == '/' || fc->cwds[i][0] == '\0' ? "" : "/", rel);
		if (cd_linked(fc, ws, buf)) {
			set_why(
			    o, "cd through a link the string makes (%.40s)", p);
			return;
		}
		wh = fs_where(fc, buf);
		if (wh == SHFS_OUT || wh == SHFS_UNKNOWN) {
			set_why(o,
			    "cd through a symlink that leads out of the "
			    "workspace (%.40s)",
			    p);
			return;
		}
	}
}

/*
 * After command |c|: a cd (or pushd) to a fixed directory beneath the
 * workspace adds, to each working directory the string may be in, that
 * directory beneath it (a relative one) or itself (an absolute one).
 */
static void
follow_cd(const struct shcmd *c, const char *ws, struct fsctx *fc)
{
	const struct shword *w = c->words;
	char rel[1024];
	size_t n = c->nwords, j, i, k;

	if (fc == NULL || c->header)
		return;
	/* the shell's own cd behind "command" or bash's "time" */
	while (n > 0 && fixed(&w[0]) &&
	    (strcmp(w[0].text, "command") == 0 ||
		strcmp(w[0].text, "time") == 0)) {
		for (w++, n--; n > 0 && fixed(&w[0]) && w[0].text[0] == '-';
		     w++, n--)
			;
	}
	if (n == 0 || !fixed(&w[0]) ||
	    (strcmp(w[0].text, "cd") != 0 && strcmp(w[0].text, "pushd") != 0))
		return;
	for (j = 1;
	     j < n && fixed(&w[j]) && w[j].len > 1 && w[j].text[0] == '-' &&
	     strspn(w[j].text + 1, "LPe@") == w[j].len - 1;
	     j++)
		;
	if (j < n && fixed(&w[j]) && strcmp(w[j].text, "--") == 0)
		j++;
	if (j >= n || !fixed(&w[j]) || w[j].text[0] == '-' ||
	    w[j].text[0] == '+' || !path_ok(w[j].text, ws, 0))
		return; /* unresolvable already */
	if (ws_relative(w[j].text, ws, rel, sizeof(rel)) != 0) {
		fc->lost = 1;
		return;
	}
	for (i = 0, k = fc->ncwds; i < (w[j].text[0] == '/' ? 1 : k); i++) {
		if (fc->ncwds == CWDS_MAX) {
			fc->lost = 1;
			return;
		}
		if ((size_t)snprintf(fc->cwds[fc->ncwds], sizeof(fc->cwds[0]),
			"%s%s%s", w[j].text[0] == '/' ? "" : fc->cwds[i],
			w[j].text[0] == '/' || fc->cwds[i][0] == '\0' ? ""
								      : "/",
			rel) >= sizeof(fc->cwds[0]))
			fc->lost = 1;
		else
			fc->ncwds++;
	}
}

/* |plain|: w[0] is the simple command's first word (no wrapper). */
static void
check_command(
    const struct shword *w, size_t n, const char *ws, int plain, struct one *o)
{
	static const char *const codeword[] = { "eval", "exec", "source", ".",
		"alias", "trap", "builtin", "hash", "enable", "fc", NULL };
	static const char *const runners[] = { "sudo", "doas", "su", "runuser",
		"pkexec", "setpriv", "chroot", "unshare", "nsenter", "setsid",
		"flock", "watch", "xargs", "parallel", "strace", "ltrace",
		"gdb", "valgrind", "busybox", "toybox", "ionice", "taskset",
		"chrt", "fakeroot", "proot", "firejail", "bwrap", "systemd-run",
		"script", "expect", "sg", "newgrp", "eatmydata", "faketime",
		"torsocks", "proxychains", "proxychains4", "dbus-launch",
		"xvfb-run", "catchsegv", "awk", "gawk", "mawk", "nawk", "env",
		/* util-linux, moreutils, daemontools, init helpers ...,
		   found on most hosts and run the rest of their words */
		"prlimit", "setarch", "linux32", "linux64", "i386", "x86_64",
		"uname26", "numactl", "cgexec", "capsh", "runcon", "ssh-agent",
		"dbus-run-session", "systemd-inhibit", "unbuffer", "chpst",
		"daemonize", "start-stop-daemon", "run-parts", "sem", "ifne",
		"chronic", "entr", "tini", "dumb-init", "nocache", "cpulimit",
		"lckdo", "with-lock-ex", "fakechroot",
		/* a program read from standard input or arguments:
		   m4's esyscmd, ed's !command; terminal multiplexers */
		"m4", "ed", "tmux", "screen", NULL };
	static const char *const setters[] = { "export", "readonly", "local",
		"declare", "typeset", NULL };
	const char *name;
	size_t j;

	if (!fixed(&w[0])) {
		set_why(o, "the command word is not a fixed word (%s)",
		    (w[0].flags & SHW_CMDSUB)	   ? "a substitution"
			: (w[0].flags & SHW_PARAM) ? "an expansion"
			: (w[0].flags & SHW_ARITH) ? "arithmetic"
			: (w[0].flags & SHW_GLOB)  ? "a glob"
			: (w[0].flags & SHW_BRACE) ? "a brace expansion"
			: (w[0].flags & SHW_TILDE) ? "a tilde"
			: (w[0].flags & SHW_ANSIC) ? "$'...' quoting"
						   : "a NUL");
		return;
	}
	if (w[0].flags & SHW_NONASCII) {
		set_why(o,
		    "a non-ASCII or control character in the command "
		    "word");
		return;
	}
	if (w[0].len == 0) {
		set_why(o, "an empty command word");
		return;
	}
	name = base_name(w[0].text);
	check_bash_builtin(name, w, n, o);
	check_name_words(w, n, plain, o);
	if (str_in_list(name, codeword)) {
		set_why(o, "%s runs code the rules cannot see", name);
		return;
	}
	if (str_in_list(name, runners)) {
		set_why(
		    o, "%s runs a command the rules do not see through", name);
		return;
	}
	if (is_shell(name)) {
		check_shell(w, n, o, 0);
		return;
	}
	if (is_interpreter(name)) {
		check_shell(w, n, o, 1);
		if (o->why == NULL &&
		    (strcmp(name, "deno") == 0 || strcmp(name, "bun") == 0) &&
		    n > 1 && fixed(&w[1]) && strcmp(w[1].text, "eval") == 0)
			set_why(o, "%s eval runs code text", name);
		return;
	}
	if (str_in_list(name, setters)) {
		for (j = 1; j < n; j++)
			if (!fixed(&w[j]) && (w[j].flags & SHW_CMDSUB))
				set_why(
				    o, "a command substitution in %s", name);
			else
				check_assignment(&w[j], o);
		return;
	}
	if (strcmp(name, "cd") == 0 || strcmp(name, "pushd") == 0 ||
	    strcmp(name, "popd") == 0) {
		/* Options (-L, -P, bash's -e and -@, also together), then
		   "--": the directory follows ("cd -- /etc" goes there, and
		   "cd --" home).  A directory that begins with "-" or "+"
		   is none ("cd -" is $OLDPWD, "pushd +1" the stack's). */
		for (j = 1; j < n && fixed(&w[j]) && w[j].len > 1 &&
		     w[j].text[0] == '-' &&
		     strspn(w[j].text + 1, "LPe@") == w[j].len - 1;
		     j++)
			;
		if (j < n && fixed(&w[j]) && strcmp(w[j].text, "--") == 0)
			j++;
		if (j >= n || strcmp(name, "popd") == 0)
			set_why(
			    o, "%s to a directory outside the workspace", name);
		else if (!fixed(&w[j]))
			set_why(o,
			    "%s to a directory that is not a fixed "
			    "word",
			    name);
		else if (w[j].text[0] == '-' || w[j].text[0] == '+' ||
		    !path_ok(w[j].text, ws, 0))
			set_why(o, "%s outside the workspace (%.40s)", name,
			    w[j].text);
		else
			cd_leads(w[j].text, ws, o);
		return;
	}
	check_code_options(name, w, n, o);
}

static void decide_cmd(const struct shell_rules *, const struct shcmd *,
    const char *, struct fsctx *, struct one *, int, size_t *, int);

/* ---- matching ---- */

/* Whether |t| (|n| bytes) begins |alt| as Gradle abbreviates a task:
   each camel-case part a prefix of the task's, or in any case. */
static int
camel_prefix(const char *t, size_t n, const char *alt)
{
	const char *q = alt;
	size_t i;

	if (n <= strlen(alt) && strncasecmp(t, alt, n) == 0)
		return 1;
	for (i = 0; i < n; i++, q++) {
		if (isupper((unsigned char)t[i]))
			while (*q != '\0' && !isupper((unsigned char)*q))
				q++;
		if (*q == '\0' || *q != t[i])
			return 0;
	}
	return 1;
}

/*
 * Whether |a|, a build tool's argument, names the task or goal |alt| of
 * an "anywhere" rule another way: by a task path or project
 * (":app:publish", "app/publish"), by a plugin's full name
 * ("org.apache.maven.plugins:maven-deploy-plugin:3.1.1:deploy" is
 * deploy, and ...:deploy-file is deploy:deploy-file), as one of sbt's
 * ";clean;publish" commands, or abbreviated as Gradle takes it, each
 * camel-case part a prefix of the task's ("pub", "pTS" is
 * publishToSonatype, "uA" uploadArchives).
 */
static int
task_match(const char *a, const char *alt)
{
	const char *p, *e, *t, *q;
	size_t n;

	if (a[0] == '-' || a[0] == '\0')
		return 0;
	if ((t = strrchr(alt, ':')) != NULL)
		alt = t + 1;
	for (p = a; *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		e = p + strcspn(p, ";");
		for (t = p, q = p; q < e; q++)
			if (*q == ':' || *q == '/')
				t = q + 1;
		while (t < e && *t == ' ')
			t++;
		n = (size_t)(e - t);
		while (n > 0 && t[n - 1] == ' ')
			n--;
		if (n > 0 && camel_prefix(t, n, alt))
			return 1;
	}
	return 0;
}

/* Whether |w|, a fixed word, is the first element of |r| (by its last
   path component for a rule that is not allow). */
static int
rule_match_word(const struct shrule *r, const struct shword *w)
{
	size_t k;

	for (k = 0; k < r->prefix[0].nalts; k++)
		if (strcmp(w->text, r->prefix[0].alts[k]) == 0 ||
		    (r->decision != SHD_ALLOW &&
			strcmp(base_name(w->text),
			    base_name(r->prefix[0].alts[k])) == 0))
			return 1;
	return 0;
}

/* Whether |w| is element |i| of |r|'s prefix: 1: it is, 0: it is not,
   2: it might be (a word that is not fixed). */
static int
elem_match(const struct shrule *r, size_t i, const struct shword *w)
{
	size_t k;

	/* A glob, tilde or $'...' as written (or decoded) matches a rule
	   that names it (rm -rf ~, rm -rf *), for rules that are not
	   allow. */
	if (!fixed(w) &&
	    (r->decision == SHD_ALLOW ||
		(w->flags & SHW_NOT_FIXED &
		    ~(SHW_GLOB | SHW_TILDE | SHW_BRACE | SHW_ANSIC)) != 0))
		return 2;
	for (k = 0; k < r->prefix[i].nalts; k++) {
		const char *alt = r->prefix[i].alts[k];

		if (strcmp(w->text, alt) == 0)
			return 1;
		if (i == 0 && r->decision != SHD_ALLOW &&
		    strcmp(base_name(w->text), base_name(alt)) == 0)
			return 1;
		if (i > 0 && r->anywhere && task_match(w->text, alt))
			return 1;
	}
	/* A glob, brace or tilde could still expand to the word; a glob
	   alone only if it matches it (bash's nocaseglob ignores case):
	   "--grep=fix*" is not "push". */
	if ((w->flags & SHW_NOT_FIXED) == SHW_GLOB) {
		for (k = 0; k < r->prefix[i].nalts; k++)
			if (fnmatch(w->text, r->prefix[i].alts[k],
				FNM_CASEFOLD) == 0)
				return 2;
		return 0;
	}
	return (w->flags & (SHW_NOT_FIXED & ~SHW_ANSIC)) != 0 ? 2 : 0;
}

/*
 * 1: matches, 0: does not, 2: might (a word that is not fixed).  An
 * "anywhere" rule finds the words of its prefix after the first at any
 * later positions, in order ("mvn clean deploy" is [mvn, deploy]).
 */
static int
rule_match(const struct shrule *r, const struct shword *w, size_t n)
{
	size_t i, j;
	int m, maybe = 0;

	if (r->anywhere) {
		if (n == 0 || (m = elem_match(r, 0, &w[0])) != 1)
			return n == 0 ? 0 : m;
		for (i = 1, j = 1; i < r->nprefix && j < n; j++)
			if ((m = elem_match(r, i, &w[j])) == 1)
				i++;
			else if (m == 2)
				maybe = 1;
		return i == r->nprefix ? 1 : maybe ? 2 : 0;
	}
	for (i = 0; i < r->nprefix; i++) {
		if (i >= n)
			return 0;
		if ((m = elem_match(r, i, &w[i])) != 1)
			return m;
	}
	if (r->exact && n > r->nprefix)
		return fixed(&w[r->nprefix]) ? 0 : 2;
	return 1;
}

/*
 * Decides |w| (the command word) with the words from |s| on, as if the
 * ones between were not there, by the rules that ask or deny and are
 * stricter than o->d; allow rules stay literal.
 */
static void
raise_at(const struct shell_rules *r, const struct shword *w, size_t n,
    size_t s, struct one *o)
{
	struct shword *t;
	size_t k;
	int m;

	if ((t = calloc(n - s + 1, sizeof(*t))) == NULL) {
		set_why(o, "out of memory");
		return;
	}
	t[0] = w[0];
	memcpy(t + 1, w + s, (n - s) * sizeof(*t));
	for (k = 0; k < r->nrules; k++) {
		if (r->rules[k].decision == SHD_ALLOW ||
		    r->rules[k].decision <= o->d ||
		    (m = rule_match(&r->rules[k], t, n - s + 1)) == 0)
			continue;
		if (m == 2)
			set_why(o,
			    "a word that is not fixed where rule %zu looks",
			    k + 1);
		else {
			o->d = r->rules[k].decision;
			o->rule = (int)k;
		}
	}
	free(t);
}

/*
 * How git push (send-pack, http-push) also spells the options the rules
 * name: "+main" forces, ":main" deletes, "-uf" holds -f, and "--forc"
 * and "--force-with-lease=main" are abbreviated or carry a value.
 */
static const char *
git_push_word(const char *a)
{
	static const char *const longs[] = { "--force", "--force-with-lease",
		"--mirror", "--delete", "--prune", NULL };
	size_t i;

	if (a[0] == '+')
		return "--force";
	if (a[0] == ':')
		return "--delete";
	if (a[0] != '-' || a[1] == '\0')
		return NULL;
	if (a[1] == '-') {
		for (i = 0; longs[i] != NULL; i++)
			if (long_opt(a, longs[i], 4))
				return longs[i];
		return NULL;
	}
	/* a cluster up to -o, whose value is the rest */
	for (i = 1; a[i] != '\0' && a[i] != 'o'; i++)
		if (a[i] == 'f')
			return "-f";
		else if (a[i] == 'd')
			return "-d";
	return NULL;
}

/*
 * git takes options after its subcommand's operands ("git push origin
 * main --force", "git reset HEAD~1 --hard"): a rule that asks or denies
 * decides git, the subcommand w[s] and the words from each later one on,
 * as if the ones between were not there; a push's word as the rules
 * spell it (git_push_word).
 */
static void
raise_git_later(const struct shell_rules *r, const struct shword *w, size_t n,
    size_t s, struct one *o)
{
	struct shword *t;
	const char *c;
	size_t j;
	int push;

	push = strcmp(w[s].text, "push") == 0 ||
	    strcmp(w[s].text, "send-pack") == 0 ||
	    strcmp(w[s].text, "http-push") == 0;
	t = xreallocarray(NULL, n + 1, sizeof(*t));
	for (j = s + 1; j < n; j++) {
		c = push && fixed(&w[j]) ? git_push_word(w[j].text) : NULL;
		if (c == NULL && j == s + 1)
			continue;
		t[0] = w[0];
		t[1] = w[s];
		memcpy(t + 2, w + j, (n - j) * sizeof(*t));
		if (c != NULL) {
			t[2].text = (char *)c;
			t[2].len = strlen(c);
			t[2].flags = 0;
		}
		raise_at(r, t, n - j + 2, 1, o);
	}
	free(t);
}

/*
 * Options before a subcommand move it out of a rule's place: "git
 * --no-pager push --force" and "git --git-dir=.git push" run git push,
 * "npm -w pkg publish" publishes, "cargo +nightly publish" and "docker
 * --context c push" too.  A rule that asks or denies still decides the
 * command word and the words from the subcommand on, if it is stricter.
 * git's options are known; for another program, whose options may or
 * may not take the next word as a value, each word that may be the
 * subcommand is tried: one after an option ("-w", "+nightly"), or after
 * an option's possible value.
 */
static void
raise_sub(const struct shell_rules *r, const struct shword *w, size_t n,
    struct one *o)
{
	size_t s, k;
	int value = 0;

	if (strcmp(base_name(w[0].text), "git") == 0) {
		s = git_subcommand_at(w, n);
		if (s > 1 && s < n)
			raise_at(r, w, n, s, o);
		if (s < n)
			raise_git_later(r, w, n, s, o);
		return;
	}
	for (k = 0; k < r->nrules; k++)
		if (r->rules[k].decision != SHD_ALLOW &&
		    r->rules[k].decision > o->d && r->rules[k].nprefix > 1 &&
		    rule_match_word(&r->rules[k], &w[0]))
			break;
	if (k == r->nrules || n < 3 || !fixed(&w[1]) ||
	    (w[1].text[0] != '-' && w[1].text[0] != '+'))
		return;
	for (s = 1; s < n; s++) {
		int opt = fixed(&w[s]) &&
		    (w[s].text[0] == '-' || w[s].text[0] == '+') &&
		    strcmp(w[s].text, "--") != 0;

		if (s > 32) {
			set_why(o, "more than 32 options before a subcommand");
			return;
		}
		if (!opt && s > 1)
			raise_at(r, w, n, s, o);
		if (strcmp(w[s].text, "--") == 0) {
			if (s + 1 < n)
				raise_at(r, w, n, s + 1, o);
			return;
		}
		/* the next word may be this option's value, or the
		   subcommand */
		if (opt)
			value = strchr(w[s].text, '=') == NULL;
		else if (value)
			value = 0;
		else
			return;
	}
}

/*
 * Whether chmod's mode |m| sets the setuid or setgid bit, as chmod reads
 * it: an octal number with 4 or 2 in its thousands digit ("4777",
 * "04777", "2755", also after + or =: "+4000", "=2755"), or a symbolic
 * clause of a comma list that adds or sets "s" ("u=rwxs", "+xs",
 * "a+rwxs", "o-w,u+s").  "u+s", "g+s" or NULL.
 */
static const char *
chmod_setid(const char *m)
{
	const char *c, *e, *p;
	unsigned long v;
	int u, g;

	if (m[0] != '\0' && strspn(m, "01234567") == strlen(m)) {
		v = strtoul(m, NULL, 8);
		if (v > 07777)
			return NULL;
		return (v & 04000) ? "u+s" : (v & 02000) ? "g+s" : NULL;
	}
	for (c = m; *c != '\0'; c = *e != '\0' ? e + 1 : e) {
		e = c + strcspn(c, ",");
		p = c + strspn(c, "ugoa");
		if (p > e)
			p = e;
		u = p == c || memchr(c, 'u', p - c) != NULL ||
		    memchr(c, 'a', p - c) != NULL;
		g = p == c || memchr(c, 'g', p - c) != NULL ||
		    memchr(c, 'a', p - c) != NULL;
		for (; p < e; p++) {
			if (*p != '+' && *p != '=')
				continue;
			/* "+4000", "=2755": an octal operand */
			v = strtoul(p + 1, NULL, 8);
			if (isdigit((unsigned char)p[1]) && (v & 06000) != 0)
				return (v & 04000) ? "u+s" : "g+s";
			for (p++; p < e && strchr("+-=", *p) == NULL; p++)
				if (*p == 's' && (u || g))
					return u ? "u+s" : "g+s";
			p--;
		}
	}
	return NULL;
}

/*
 * chmod's mode as chmod finds it, among its options (-R, -v, ...; a
 * word such as "-x,u+s" is a mode) and after "--": one that sets the
 * setuid or setgid bit is decided as "chmod u+s" (or g+s) by the rules
 * that ask or deny.  --reference copies a mode the rules cannot see.
 */
static void
raise_chmod(const struct shell_rules *r, const struct shword *w, size_t n,
    struct one *o)
{
	struct shword t[2];
	const char *a, *s = NULL;
	size_t j;
	int opts = 1;

	for (j = 1; j < n && s == NULL; j++) {
		if (!fixed(&w[j]))
			return; /* a rule's prefix meets it */
		a = w[j].text;
		if (opts && strcmp(a, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && long_opt(a, "--reference", 5)) {
			set_why(o,
			    "chmod %.20s copies a mode the rules cannot "
			    "see",
			    a);
			return;
		}
		if (opts && strncmp(a, "--", 2) == 0)
			continue;
		if (opts && a[0] == '-' &&
		    strspn(a + 1, "Rcfv") == strlen(a + 1))
			continue;
		s = chmod_setid(a);
		if (!opts || a[0] != '-')
			break; /* the mode; files follow */
	}
	if (s == NULL)
		return;
	t[0] = w[0];
	memset(&t[1], 0, sizeof(t[1]));
	t[1].text = (char *)s;
	t[1].len = strlen(s);
	raise_at(r, t, 2, 1, o);
}

/*
 * install's mode as install reads it (GNU's, BSD's): -m MODE, -mMODE, in a
 * cluster (-Dm4755, or -Dm and the next word), --mode=MODE or --mode MODE,
 * abbreviated (--mo), also after operands (GNU permutes them), past the
 * values of -g, -o, -S and -t.  install sets it as chmod does, so one
 * that sets the setuid or setgid bit is "chmod u+s" (or g+s) to the rules
 * that ask or deny.  A mode that is not a fixed word, an argument that
 * may expand to -m and a mode (but for one that expands to one word, with
 * no operand beside it: as an option it leaves none, and nothing is
 * made), and --strip-program (which install runs) are unresolvable.
 * mkdir, mknod and mkfifo set their -m / --mode as
 * install does (coreutils chmods after creating where the mode holds
 * the setuid or setgid bit): their arguments are read the same way (an
 * option only install has makes theirs fail, and run nothing).
 */
static void
raise_install(const struct shell_rules *r, const struct shword *w, size_t n,
    struct one *o)
{
	static const char *const longs[] = { "--group", "--mode", "--owner",
		"--suffix", "--target-directory", NULL };
	static const size_t mins[] = { 3, 3, 3, 4, 3 };
	struct shword t[2];
	const struct shword *mw, *lone = NULL;
	const char *a, *mode, *s;
	size_t j, k, i, maybe = 0, operands = 0;
	int opts = 1;

	for (j = 1; j < n; j++) {
		a = w[j].text;
		/* "dir/$x" in quotes is one word that begins "dir/" */
		if (opts && may_be_option(&w[j]) &&
		    ((w[j].flags & SHW_SPLIT) ||
			strchr("$`*?[{~-", a[0]) != NULL)) {
			maybe++;
			lone = &w[j];
			continue;
		}
		if (!fixed(&w[j]) || !opts || a[0] != '-' || a[1] == '\0') {
			operands++;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			opts = 0;
			continue;
		}
		if (long_opt(a, "--strip-program", 8)) {
			set_why(o, "%s %.24s runs a command",
			    base_name(w[0].text), a);
			return;
		}
		mode = NULL;
		mw = &w[j];
		if (a[1] == '-') {
			for (i = 0; longs[i] != NULL; i++)
				if (long_opt(a, longs[i], mins[i]))
					break;
			if (longs[i] == NULL)
				continue;
			if (strchr(a, '=') != NULL)
				mode = strchr(a, '=') + 1;
			else if (j + 1 < n)
				mode = (mw = &w[++j])->text;
			if (strcmp(longs[i], "--mode") != 0)
				continue;
		} else {
			for (k = 1; a[k] != '\0'; k++)
				if (strchr("gmoSt", a[k]) != NULL)
					break;
			if (a[k] == '\0')
				continue;
			if (a[k + 1] != '\0')
				mode = a + k + 1;
			else if (j + 1 < n)
				mode = (mw = &w[++j])->text;
			if (a[k] != 'm')
				continue;
		}
		if (mode == NULL)
			continue;
		if (!fixed(mw)) {
			set_why(o, "%s with a mode that is not a fixed word",
			    base_name(w[0].text));
			return;
		}
		if ((s = chmod_setid(mode)) == NULL)
			continue;
		memset(t, 0, sizeof(t));
		t[0].text = (char *)"chmod";
		t[0].len = 5;
		t[1].text = (char *)s;
		t[1].len = strlen(s);
		raise_at(r, t, 2, 1, o);
	}
	/* one word that is an option leaves no operand: nothing is made
	   ("mkdir -p \"$d\""); with an operand, or as more words, it may
	   be -m and a mode */
	if (maybe > 1 || (maybe == 1 && (operands > 0 || !one_word(lone))))
		set_why(o,
		    "%s with an argument that is not a fixed word (it may "
		    "be -m and a setuid mode)",
		    base_name(w[0].text));
}

/* |p| with doubled and trailing slashes and "." components gone and
   ".." climbing, as an absolute path, into out (PATH_MAX bytes); -1 if
   it does not fit. */
static int
lexical_path(const char *p, char *out, size_t outlen)
{
	const char *q, *e;
	size_t len = 0;

	out[0] = '\0';
	for (q = p; *q != '\0'; q = e) {
		q += strspn(q, "/");
		e = q + strcspn(q, "/");
		if (e == q || (e - q == 1 && q[0] == '.'))
			continue;
		if (e - q == 2 && q[0] == '.' && q[1] == '.') {
			while (len > 0 && out[--len] != '/')
				;
			out[len] = '\0';
			continue;
		}
		if (len + 1 + (size_t)(e - q) + 1 > outlen)
			return -1;
		out[len++] = '/';
		memcpy(out + len, q, e - q);
		len += e - q;
		out[len] = '\0';
	}
	if (len == 0)
		snprintf(out, outlen, "/");
	return 0;
}

/* ---- patterns ---- */

/*
 * Names no test can expect, for telling whether a pattern (find's test,
 * rm's glob) selects: it does not where it matches each of them
 * (beneath a starting point, for a path), as -name's "*" and "?*",
 * -path's "*" and (under ".") the dot, the slash and the star do.
 */
static const char *const odd_names[] = { "\001", "\001\002\003",
	"\001\002\003\004\005\006\007\016\017\020\021\022\023", NULL };

/*
 * Names a workspace holds: nor does a pattern select that matches a
 * quarter of them or more (-name '*[a-z]*', '[ -~]*', '*.*', -regex
 * '\./[a-z].*', rm -rf [a-z]*), though it misses the names no test
 * expects; one that selects ("*.o", "*.py", "build", -path "./build"
 * and what is below it) matches a few.
 */
static const char *const common_names[] = { "Makefile", "README.md", "LICENSE",
	"CHANGELOG", "Dockerfile", "main.c", "util.h", "app.py", "test_app.py",
	"index.js", "lib.rs", "main.go", "go.mod", "package.json", "Cargo.toml",
	"setup.cfg", "yarn.lock", "notes.txt", "x.tar.gz", ".gitignore", ".env",
	"src", "tests", "docs", "bin", "_build", "a", "Z", "0",
	"2024-01-01.log", "foo bar", "\303\251t\303\251.md", NULL };
#define NCOMMON_NAMES (sizeof(common_names) / sizeof(common_names[0]) - 1)

/* Whether the pattern |pat| of a name (fnmatch |flags|) selects nothing
   in particular: it matches each of odd_names or a quarter of
   common_names. */
static int
name_pattern_broad(const char *pat, int flags)
{
	size_t i, common;

	for (i = 0; odd_names[i] != NULL; i++)
		if (fnmatch(pat, odd_names[i], flags) != 0)
			break;
	if (odd_names[i] == NULL)
		return 1;
	for (common = 0, i = 0; i < NCOMMON_NAMES && common * 4 < NCOMMON_NAMES;
	     i++)
		common += fnmatch(pat, common_names[i], flags) == 0;
	return common * 4 >= NCOMMON_NAMES;
}

/*
 * Whether each component of the path pattern |p| (an empty one aside, as
 * a trailing '/' makes) selects nothing in particular
 * (name_pattern_broad, as the shell globs): a star, a '/' and a star
 * names all that the top directories hold, which rm -r removes and rm -f
 * of its files empties, at every depth the pattern goes down to; a star,
 * a '/' and "x", "*.o" or ".*" names files in particular.
 */
static int
path_pattern_broad(const char *p)
{
	char comp[256]; /* a name is 255 bytes at most */
	size_t n;

	for (; *p != '\0'; p += n + (p[n] == '/')) {
		if ((n = strcspn(p, "/")) == 0)
			continue;
		if (n >= sizeof(comp))
			return 0;
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (!name_pattern_broad(comp, FNM_PERIOD))
			return 0;
	}
	return 1;
}

/*
 * The directory of the last component that |p|'s byte |lit| is in (its
 * text to that component's '/', or "./" where there is none), into
 * |dir|; returns where that component begins, or (size_t)-1 if it does
 * not fit.
 */
static size_t
glob_dir(const char *p, size_t lit, char *dir, size_t dirlen)
{
	size_t k;

	for (k = lit; k > 0 && p[k - 1] != '/'; k--)
		;
	if (k + 3 > dirlen)
		return (size_t)-1;
	memcpy(dir, p, k);
	snprintf(dir + k, dirlen - k, "%s", k == 0 ? "./" : "");
	return k;
}

/*
 * Where rm -r (or find -delete) of the operand |a| leads as the runner
 * resolves it, asked of o->fc: the symlinks on the way are the
 * workspace's, which the agent may have made ("rm -rf r/" with r ->
 * ../.. removes what is there).  A relative operand is asked about as
 * written, ".." and all (the kernel follows a link before it climbs),
 * from each directory a cd before it may have gone to, where it is
 * beneath the workspace as the words read (one that climbs out is
 * decided by its words); an absolute one beneath the workspace by its
 * path there.  With a trailing slash (or "/.") its last component is
 * followed too, as rm follows it.  Out of the workspace, or where that
 * cannot be told: unresolvable.  Returns 1 if it is the workspace itself
 * (r -> .), which the rules name ".", unless |skip_ws|.
 */
static int
rm_leads(const struct shword *t, const char *a, const char *wsn, int skip_ws,
    struct one *o)
{
	struct fsctx *fc = o->fc;
	char q[4096], path[8192], lex[8192];
	const char *src;
	size_t n = strlen(a), wl = strlen(wsn), i;
	int follow = n > 0 &&
	    (a[n - 1] == '/' || (n > 1 && a[n - 1] == '.' && a[n - 2] == '/'));
	int root = 0;

	if (fc == NULL)
		return 0;
	if (a[0] != '/' && fc->lost) {
		set_why(o, "%s %s after more cd's than the rules follow",
		    t[0].text, t[1].text);
		return 0;
	}
	for (i = 0; i < (a[0] == '/' ? 1 : fc->ncwds); i++) {
		/* q: the path from the workspace as written; lex: where
		   the words put it */
		if (a[0] == '/')
			snprintf(path, sizeof(path), "%s", a);
		else
			snprintf(path, sizeof(path), "%s/%s%s%s", wsn,
			    fc->cwds[i], fc->cwds[i][0] == '\0' ? "" : "/", a);
		if (lexical_path(path, lex, sizeof(lex)) != 0 ||
		    strncmp(lex, wsn, wl) != 0 || lex[wl] != '/')
			continue;
		/* an absolute one spelt with the workspace's path as
		   written, else by where the words put it */
		if (a[0] != '/')
			src = path + wl + 1;
		else if (strncmp(a, wsn, wl) == 0 && a[wl] == '/')
			src = a + wl + 1;
		else
			src = NULL;
		if ((size_t)snprintf(q, sizeof(q), "%s%s",
			src != NULL ? src : lex + wl + 1,
			src == NULL && follow ? "/" : "") >= sizeof(q)) {
			set_why(o, "%s %s of a path too long to follow",
			    t[0].text, t[1].text);
			return 0;
		}
		switch (fs_where(fc, q)) {
		case SHFS_INSIDE:
			break;
		case SHFS_ROOT:
			root |= !skip_ws;
			break;
		case SHFS_OUT:
			set_why(o,
			    "%s %s through a symlink that leads out of the "
			    "workspace (%.40s)",
			    t[0].text, t[1].text, a);
			break;
		default:
			set_why(o,
			    "%s %s of %.40s: where it leads cannot be told",
			    t[0].text, t[1].text, a);
			break;
		}
	}
	return root;
}

/* Whether the workspace's top may be the working directory: no cd is
   known to have left it (the cd just before "&&" did: decide_string). */
static int
top_may_be_cwd(const struct fsctx *fc)
{
	size_t i;

	if (fc == NULL || fc->lost)
		return 1;
	for (i = 0; i < fc->ncwds; i++)
		if (fc->cwds[i][0] == '\0')
			return 1;
	return 0;
}

/*
 * Whether |w|, a removal's operand, names a path from a working directory
 * that is not the workspace's top (top_may_be_cwd: "cd build && rm -rf
 * *"): a fixed word or a glob, not absolute.  Such a word is no longer
 * what a rule names as written ("*" is build's files): raise_rm_place
 * resolves it from each working directory instead.
 */
static int
relative_to_cwd(const struct shword *w, const struct one *o)
{
	return !top_may_be_cwd(o->fc) &&
	    (w->flags & SHW_NOT_FIXED & ~(SHW_GLOB | SHW_BRACE)) == 0 &&
	    w->text[0] != '/';
}

/*
 * Decides the recursive removal of |a|, rm's operand (or find's starting
 * point with -delete), as t[0] t[1] PLACE (raise_rm), |wsn| the
 * workspace's lexical path; with |skip_ws| the workspace itself is no
 * PLACE.  A relative |a| is resolved from the workspace's top, or, where
 * the top is no working directory the command may run in
 * (top_may_be_cwd: "cd build && rm -rf *"), from each of them instead.
 */
static void
raise_rm_place(const struct shell_rules *r, struct shword *t, const char *a,
    const char *wsn, int skip_ws, struct one *o)
{
	char path[4096 + 70 + 4096], buf[8192];
	const char *place;
	size_t i, k, ups, depth, cwd = 0;
	int top = a[0] == '/' || top_may_be_cwd(o->fc);

	if (rm_leads(t, a, wsn, skip_ws, o)) {
		memset(&t[2], 0, sizeof(t[2]));
		t[2].text = (char *)".";
		t[2].len = 1;
		raise_at(r, t, 3, 1, o);
	}
	for (ups = 0, k = 0; a[k] != '\0'; k++)
		ups += a[k] == '.' && a[k + 1] == '.';
	for (depth = 0; depth <= (a[0] == '/' ? 0 : ups) && depth < 32;
	     depth += top || ++cwd >= o->fc->ncwds) {
		/* the directories cd went down are \001 */
		k = 0;
		if (a[0] != '/' && depth == 0 && !top)
			k = (size_t)snprintf(path, sizeof(path) - 4096,
			    "%s/%s/", wsn, o->fc->cwds[cwd]);
		else if (a[0] != '/') {
			k = strlen(wsn);
			memcpy(path, wsn, k);
			path[k++] = '/';
			for (i = 0; i < depth; i++) {
				path[k++] = '\001';
				path[k++] = '/';
			}
		}
		if (k + strlen(a) + 1 > sizeof(path))
			break;
		memcpy(path + k, a, strlen(a) + 1);
		if (lexical_path(path, buf, sizeof(buf)) != 0)
			break;
		if (strchr(buf, '\001') != NULL && strchr(a, '\001') == NULL)
			continue; /* beneath the working directory */
		k = strlen(buf);
		if (strcmp(buf, wsn) == 0)
			place = ".";
		else if (strcmp(buf, "/") == 0)
			place = "/";
		else if (strncmp(wsn, buf, k) == 0 && wsn[k] == '/')
			place = "..";
		else
			place = buf;
		if (skip_ws && strcmp(place, ".") == 0)
			continue;
		memset(&t[2], 0, sizeof(t[2]));
		t[2].text = (char *)place;
		t[2].len = strlen(place);
		raise_at(r, t, 3, 1, o);
	}
	/* PLACE may be |buf|, which ends here. */
	memset(&t[2], 0, sizeof(t[2]));
}

/*
 * A word that is "$PWD" or "${PWD}" and fixed text after a '/': the
 * working directory, "." and that text (rm_operand, find_start_point).
 * Its text has no other '$' or '`': the expansion is the $PWD, not text
 * quoted as '$PWD' beside another expansion.  Into out; 0, or -1 if it is
 * no such word.
 */
static int
pwd_operand(const struct shword *w, char *out, size_t outlen)
{
	const char *a = w->text, *rest;

	if ((w->flags & SHW_NOT_FIXED) != SHW_PARAM)
		return -1;
	if (strncmp(a, "$PWD", 4) == 0)
		rest = a + 4;
	else if (strncmp(a, "${PWD}", 6) == 0)
		rest = a + 6;
	else
		return -1;
	if ((rest[0] != '\0' && rest[0] != '/') ||
	    strpbrk(rest, "$`") != NULL ||
	    (size_t)snprintf(out, outlen, ".%s", rest) >= outlen)
		return -1;
	return 0;
}

/*
 * Whether |w| is "$PWD" or "${PWD}", then nothing or a '/' and text with
 * no other expansion but a glob ("$PWD"/a*.o): the working directory's,
 * which the runs-later and removal readers read as written.
 */
static int
pwd_prefixed(const struct shword *w)
{
	const char *rest;

	if ((w->flags & SHW_NOT_FIXED & ~SHW_GLOB) != SHW_PARAM)
		return 0;
	if (strncmp(w->text, "$PWD", 4) == 0)
		rest = w->text + 4;
	else if (strncmp(w->text, "${PWD}", 6) == 0)
		rest = w->text + 6;
	else
		return 0;
	return (rest[0] == '\0' || rest[0] == '/') &&
	    strpbrk(rest, "$`") == NULL;
}

/*
 * ---- links the string makes ----
 *
 * The workspace is asked about as the string starts (shrules_decide_fs),
 * so a link that a command of the same string makes is not there yet:
 * "ln -s / x && rm -rf x/" removes the root through x.  Before the
 * string is decided, each name its ln, link, cp and mv may make a link
 * of is recorded (from each directory a cd before it may have gone to,
 * whatever the order of the commands: a loop runs a later one again),
 * with where the link leads where the words say (ln -s TARGET NAME), or
 * not known (a hard link, which may be one to a symlink; what cp -r,
 * -a, -P, -s or -l and mv put there, which may be a symlink re-rooted).
 */

/* Records the link |lname| (absolute, as written) to |t| (ln's target
   word, NULL: not known): from the link's directory, or from |cwd|
   with |relative| (ln -r). */
static void
link_record(struct fsctx *fc, const char *lname, const char *t, const char *cwd,
    int relative)
{
	char lex[4096], tgt[8192];
	const char *slash = strrchr(lname, '/');
	int len;

	if (fc->nlinks == LINKS_MAX ||
	    lexical_path(lname, lex, sizeof(lex)) != 0) {
		fc->links_lost = 1;
		return;
	}
	if (t == NULL || t[0] == '/')
		len = snprintf(tgt, sizeof(tgt), "%s", t != NULL ? t : "");
	else if (relative)
		len = snprintf(tgt, sizeof(tgt), "%s/%s", cwd, t);
	else
		len = snprintf(tgt, sizeof(tgt), "%.*s/%s",
		    (int)(slash - lname), lname, t);
	if (len < 0 || (size_t)len >= sizeof(tgt)) {
		fc->links_lost = 1;
		return;
	}
	fc->links[fc->nlinks].name = xstrdup(lex);
	fc->links[fc->nlinks].target = t != NULL ? xstrdup(tgt) : NULL;
	fc->nlinks++;
}

/*
 * Records the links an ln, link, cp or mv of |ntargets| targets (or
 * sources) and the operand |name| makes: |name| itself (but with
 * |indir|, -t DIR, or more than one target), and |name|/BASE for each
 * target (name may be a directory), from each working directory.  With
 * |symbolic| (ln -s) a link leads to its target word; else not known.
 */
static void
link_names(struct fsctx *fc, const char *wsn, const char *name,
    const struct shword *const *targets, size_t ntargets, int indir,
    int symbolic, int relative)
{
	char cwd[4096 + 1024], lname[8192 + 1024];
	const char *t, *tb, *b;
	size_t i, k;

	for (i = 0; i < (name[0] == '/' ? 1 : fc->ncwds); i++) {
		snprintf(cwd, sizeof(cwd), "%s%s%s", wsn,
		    fc->cwds[i][0] == '\0' ? "" : "/", fc->cwds[i]);
		if ((size_t)snprintf(lname, sizeof(lname), "%s%s%s",
			name[0] == '/' ? "" : cwd, name[0] == '/' ? "" : "/",
			name) >= sizeof(lname) - 4096) {
			fc->links_lost = 1;
			return;
		}
		if (!indir && ntargets <= 1)
			link_record(fc, lname,
			    symbolic && ntargets == 1 ? targets[0]->text : NULL,
			    cwd, relative);
		for (k = 0; k < ntargets; k++) {
			t = targets[k]->text;
			for (tb = t + strlen(t); tb > t && tb[-1] == '/'; tb--)
				;
			for (b = tb; b > t && b[-1] != '/'; b--)
				;
			/* ln refuses ".." and "/" as a name's base */
			if (tb - b == 0 ||
			    (tb - b <= 2 && strspn(b, ".") >= (size_t)(tb - b)))
				continue;
			snprintf(lname + strlen(lname), 4096, "/%.*s",
			    (int)(tb - b), b);
			link_record(
			    fc, lname, symbolic ? t : NULL, cwd, relative);
			*strrchr(lname, '/') = '\0';
		}
	}
}

/*
 * After command |c| (a wrapper set aside): the links its ln, link, cp
 * or mv may make (link_names).  An operand that is not a fixed word
 * makes the links unknown (links_lost).  cp makes links with -s, -l,
 * and copies symlinks as they are with -r, -R, -a, -d, -P (and their
 * long forms, --preserve=links); mv moves one.
 */
static void
follow_links(const struct shcmd *c, const char *wsn, struct fsctx *fc)
{
	const struct shword *w = c->words, *ops[64];
	struct one scratch;
	const char *name, *a, *dir = NULL;
	size_t n = c->nwords, start = 0, next, j, nops = 0;
	int opts = 1, symbolic = 0, relative = 0, links = 0, ln, cp;

	if (fc == NULL || c->header || n == 0)
		return;
	memset(&scratch, 0, sizeof(scratch));
	while (start < n && fixed(&w[start]) &&
	    (next = unwrap(w, n, start, &scratch)) != start)
		start = next;
	if (start >= n || !fixed(&w[start]))
		return;
	name = base_name(w[start].text);
	ln = strcmp(name, "ln") == 0 || strcmp(name, "link") == 0;
	cp = strcmp(name, "cp") == 0;
	if (!ln && !cp && strcmp(name, "mv") != 0)
		return;
	links = !cp;
	for (j = start + 1; j < n; j++) {
		if (!fixed(&w[j])) {
			fc->links_lost = 1;
			return;
		}
		a = w[j].text;
		if (opts && strcmp(a, "--") == 0) {
			opts = 0;
			continue;
		}
		if (!opts || a[0] != '-' || a[1] == '\0') {
			if (nops == sizeof(ops) / sizeof(ops[0])) {
				fc->links_lost = 1;
				return;
			}
			ops[nops++] = &w[j];
			continue;
		}
		if (a[1] == '-') {
			if (long_opt(a, "--target-directory", 3) &&
			    strchr(a, '=') != NULL)
				dir = strchr(a, '=') + 1;
			else if (long_opt(a, "--target-directory", 3) &&
			    j + 1 < n)
				dir = w[++j].text;
			else if (long_opt(a, "--suffix", 4) &&
			    strchr(a, '=') == NULL)
				j++;
			symbolic |= ln && long_opt(a, "--symbolic", 4);
			relative |= ln && long_opt(a, "--relative", 4);
			links |= long_opt(a, "--symbolic-link", 4) ||
			    long_opt(a, "--link", 4) ||
			    long_opt(a, "--recursive", 4) ||
			    long_opt(a, "--archive", 3) ||
			    long_opt(a, "--no-dereference", 4) ||
			    (long_opt(a, "--preserve", 4) &&
				(strstr(a, "links") != NULL ||
				    strstr(a, "all") != NULL));
			continue;
		}
		for (a++; *a != '\0'; a++) {
			if (*a == 't' || *a == 'S') {
				if (a[1] != '\0' && *a == 't')
					dir = a + 1;
				else if (a[1] == '\0' && j + 1 < n)
					dir = *a == 't' ? w[++j].text
							: (j++, dir);
				break;
			}
			symbolic |= ln && *a == 's';
			relative |= ln && *a == 'r';
			links |= cp && strchr("slrRadP", *a) != NULL;
		}
	}
	/* a value taken (-t "$d") that is not a fixed word */
	for (j = start + 1; j < n; j++)
		if (!fixed(&w[j])) {
			fc->links_lost = 1;
			return;
		}
	if (!links || nops == 0)
		return;
	if (dir != NULL)
		link_names(fc, wsn, dir, ops, nops, 1, symbolic, relative);
	else if (nops == 1) /* ln TARGET: ./BASE */
		link_names(fc, wsn, ".", ops, 1, 1, symbolic, relative);
	else
		link_names(fc, wsn, ops[nops - 1]->text, ops, nops - 1, 0,
		    symbolic, relative);
}

/*
 * Whether |a|, a removal's operand, goes through a link the string makes
 * (follow_links), walked from |base| (absolute; "" for an absolute
 * operand): each component followed (one that more follow, or the last
 * one with a trailing "/" or "/."), from where ".." has climbed.  Its
 * text up to |lit| is fixed; past it, where |tail_follows| (an
 * expansion, a glob with a '/' after it), any link beneath the
 * directory reached may be followed.  0: it does not; 1:
 * through a link of known target, |out| the operand through it
 * (absolute, as written); 2: through one whose target is not known.
 */
static int
through_link(const struct fsctx *fc, const char *base, const char *a,
    size_t lit, int tail_follows, char *out, size_t outlen)
{
	char cur[8192];
	const char *q, *e;
	size_t i, len;

	if ((size_t)snprintf(cur, sizeof(cur), "%s", base) >= sizeof(cur))
		return 2;
	len = strlen(cur);
	for (q = a; (size_t)(q - a) < lit; q = e) {
		q += strspn(q, "/");
		e = q + strcspn(q, "/");
		if ((size_t)(e - a) > lit || e == q)
			break; /* the component holds what is not fixed */
		if (e - q == 1 && q[0] == '.')
			continue;
		if (e - q == 2 && q[0] == '.' && q[1] == '.') {
			while (len > 0 && cur[--len] != '/')
				;
			cur[len] = '\0';
			continue;
		}
		if (len + 1 + (size_t)(e - q) + 1 > sizeof(cur))
			return 2;
		cur[len++] = '/';
		memcpy(cur + len, q, e - q);
		len += e - q;
		cur[len] = '\0';
		if (*e != '/')
			continue; /* not followed: nothing comes after it */
		for (i = 0; i < fc->nlinks; i++) {
			if (strcmp(fc->links[i].name, len > 0 ? cur : "/") != 0)
				continue;
			if (fc->links[i].target == NULL)
				return 2;
			return (size_t)snprintf(out, outlen, "%s/%s",
				   fc->links[i].target,
				   e + strspn(e, "/")) < outlen
			    ? 1
			    : 2;
		}
	}
	if (a[lit] == '\0' || !tail_follows)
		return 0;
	/* an expansion, or a glob with a '/' after it: any link beneath
	   where the fixed part went may be followed */
	for (i = 0; i < fc->nlinks; i++)
		if (strncmp(fc->links[i].name, cur, len) == 0 &&
		    fc->links[i].name[len] == '/')
			return 2;
	return 0;
}

/*
 * Decides the recursive removal of |a| (|lit| bytes of it fixed) where
 * it goes through a link the string makes (through_link), from each
 * working directory: through one of known target, as the removal of
 * what the link leads to (raise_rm_place; out of the workspace is
 * unresolvable, as through a link the workspace holds); through one not
 * known, unresolvable.  At most 8 links are followed in turn.
 */
static void
raise_rm_linked(const struct shell_rules *r, struct shword *t, const char *a,
    size_t lit, int tail_follows, const char *wsn, int skip_ws, struct one *o)
{
	struct fsctx *fc = o->fc;
	char cur[4096], next[4096], lex[8192];
	const char *pre;
	size_t i, k, g, wl = strlen(wsn), tail = strlen(a) - lit;
	int rc;

	if (fc == NULL || (fc->nlinks == 0 && !fc->links_lost))
		return;
	if (fc->links_lost) {
		if (a[lit] != '\0' || strchr(a, '/') != NULL)
			set_why(o,
			    "%s %s of %.40s after links the rules cannot "
			    "tell were made",
			    t[0].text, t[1].text, a);
		return;
	}
	for (i = 0; i < (a[0] == '/' ? 1 : fc->ncwds); i++) {
		/* from the workspace, the working directory's own path
		   walked too (cd x with x a link the string makes) */
		pre = a[0] == '/' || fc->cwds[i][0] == '\0' ? "" : fc->cwds[i];
		if ((size_t)snprintf(cur, sizeof(cur), "%s%s%s", pre,
			pre[0] == '\0' ? "" : "/", a) >= sizeof(cur))
			rc = 2;
		else
			rc = through_link(fc, a[0] == '/' ? "" : wsn, cur,
			    lit + strlen(cur) - strlen(a), tail_follows, next,
			    sizeof(next));
		for (k = 0; rc == 1 && k < 8; k++) {
			snprintf(cur, sizeof(cur), "%s", next);
			rc = through_link(fc, "", cur, strlen(cur) - tail,
			    tail_follows, next, sizeof(next));
		}
		if (rc == 0 && k > 0) {
			if (lexical_path(cur, lex, sizeof(lex)) != 0 ||
			    strncmp(lex, wsn, wl) != 0 ||
			    (lex[wl] != '/' && lex[wl] != '\0'))
				set_why(o,
				    "%s %s of %.40s through a link the string "
				    "makes, that leads out of the workspace",
				    t[0].text, t[1].text, a);
			/* a glob there that selects nothing in particular:
			   what its directory holds (ln -s . s; s/ and a
			   star) */
			if (tail > 0 &&
			    strchr(cur + strlen(cur) - tail, '/') == NULL &&
			    (g = glob_dir(cur, strlen(cur) - tail, lex,
				 sizeof(lex))) != (size_t)-1 &&
			    name_pattern_broad(cur + g, FNM_PERIOD))
				raise_rm_place(r, t, lex, wsn, skip_ws, o);
			raise_rm_place(r, t, cur, wsn, skip_ws, o);
		} else if (rc != 0)
			set_why(o,
			    "%s %s of %.40s through a link the string makes, "
			    "to where the rules cannot tell",
			    t[0].text, t[1].text, a);
	}
}

/*
 * Decides the removal of the glob |w| (its text fixed for its first
 * |lit| bytes) where its directory, the fixed part to its last '/'
 * before the pattern, is known: where the pattern of the last component
 * selects nothing in particular (name_pattern_broad: a star, "?" and a
 * star, "[a-z]" and a star), as the removal of that directory ("./"
 * and a star, "src/../[a-z]" and a star are "rm -rf .", "//" and a star
 * "rm -rf /"), else by where the directory leads (rm_leads: "r/" and a
 * star, with r a symlink out of the workspace, is unresolvable).  A
 * glob before a '/' ("r?/", "src/[a-z]/x") may match a directory that
 * is such a symlink, which rm follows: with a workspace to ask,
 * unresolvable.
 */
static void
raise_rm_glob(const struct shell_rules *r, struct shword *t,
    const struct shword *w, size_t lit, const char *wsn, int skip_ws,
    struct one *o)
{
	char dir[4096];
	size_t k, wl = strlen(wsn);

	if ((w->flags & SHW_NOT_FIXED & ~(SHW_GLOB | SHW_BRACE)) != 0)
		return;
	if ((k = glob_dir(w->text, lit, dir, sizeof(dir))) == (size_t)-1) {
		set_why(o, "%s %s of a path too long to follow", t[0].text,
		    t[1].text);
		return;
	}
	if (strchr(w->text + lit, '/') != NULL) {
		if (o->fc != NULL &&
		    (dir[0] != '/' ||
			(strncmp(dir, wsn, wl) == 0 && dir[wl] == '/')))
			set_why(o,
			    "%s %s of %.40s: a directory the pattern matches "
			    "may be a symlink out of the workspace",
			    t[0].text, t[1].text, w->text);
		/* a star, a '/' and a star: all its directory holds
		   beneath the top ones (path_pattern_broad) */
		if (path_pattern_broad(w->text + k))
			raise_rm_place(r, t, dir, wsn, skip_ws, o);
		return;
	}
	if (name_pattern_broad(w->text + k, FNM_PERIOD))
		raise_rm_place(r, t, dir, wsn, skip_ws, o);
	else
		(void)rm_leads(t, dir, wsn, 1, o);
}

/* Decides the removal of the operand |w| as t[0] t[1] PLACE: a fixed
   word or a "$PWD/..." one resolved (raise_rm_place), "$HOME" as "~",
   another as written (a glob, a tilde ...). */
static void
raise_rm_operand(const struct shell_rules *r, struct shword *t,
    const struct shword *w, const char *wsn, int skip_ws, struct one *o)
{
	char pwd[4096];
	size_t lit;

	if (fixed(w)) {
		raise_rm_linked(r, t, w->text, w->len, 0, wsn, skip_ws, o);
		raise_rm_place(r, t, w->text, wsn, skip_ws, o);
		return;
	}
	if (pwd_operand(w, pwd, sizeof(pwd)) == 0) {
		raise_rm_linked(r, t, pwd, strlen(pwd), 0, wsn, skip_ws, o);
		raise_rm_place(r, t, pwd, wsn, skip_ws, o);
		return;
	}
	/* a glob matches no '/'; an expansion may make one */
	lit = strcspn(w->text, "*?[{$`\\~");
	raise_rm_linked(r, t, w->text, lit,
	    (w->flags & (SHW_NOT_FIXED & ~SHW_GLOB)) != 0 ||
		strchr(w->text + lit, '/') != NULL,
	    wsn, skip_ws, o);
	raise_rm_glob(r, t, w, lit, wsn, skip_ws, o);
	if (relative_to_cwd(w, o))
		return;
	memset(&t[2], 0, sizeof(t[2]));
	if ((w->flags & SHW_NOT_FIXED) == SHW_PARAM &&
	    (strcmp(w->text, "$HOME") == 0 || strcmp(w->text, "${HOME}") == 0))
		t[2].text = (char *)"~";
	else
		t[2] = *w;
	t[2].len = strlen(t[2].text);
	raise_at(r, t, 3, 1, o);
}

/*
 * A command that destroys each file its operand |w| names, but not a
 * directory (rm without -r, truncate -s0): a glob whose last component
 * selects nothing in particular (name_pattern_broad) destroys its
 * directory's files wholesale, and is decided as that directory's
 * removal, t[0] t[1] PLACE (raise_rm_place: rm -f * and truncate -s0 *
 * are rm -rf .); a fixed word, a narrow pattern (*.o), or a pattern
 * before a '/' names files.  An unquoted expansion ($f), which the shell
 * splits and globs (f='*'), is decided as written, where a rule that
 * asks or denies looks: unresolvable, as rm -f $f is.
 */
static void
raise_rm_files(const struct shell_rules *r, struct shword *t,
    const struct shword *w, const char *wsn, struct one *o)
{
	char dir[4096], pwd[4096];
	struct shword g;
	const char *rest;
	size_t lit, k;

	if (fixed(w))
		return;
	/* a glob as written, where a rule names it (~/ and a star); an
	   unquoted expansion, which may be one */
	if ((w->flags & SHW_SPLIT) ||
	    ((w->flags & SHW_GLOB) &&
		(w->flags & SHW_NOT_FIXED &
		    ~(SHW_GLOB | SHW_BRACE | SHW_TILDE)) == 0 &&
		!relative_to_cwd(w, o))) {
		t[2] = *w;
		raise_at(r, t, 3, 1, o);
	}
	/* "$PWD"/ and a pattern: the workspace's */
	g = *w;
	rest = strncmp(w->text, "$PWD/", 5) == 0  ? w->text + 4
	    : strncmp(w->text, "${PWD}/", 7) == 0 ? w->text + 6
						  : NULL;
	if ((w->flags & SHW_NOT_FIXED & ~(SHW_GLOB | SHW_BRACE)) == SHW_PARAM &&
	    rest != NULL && strpbrk(rest, "$`") == NULL &&
	    (size_t)snprintf(pwd, sizeof(pwd), ".%s", rest) < sizeof(pwd)) {
		g.text = pwd;
		g.len = strlen(pwd);
		g.flags &= ~SHW_PARAM;
	}
	if ((g.flags & SHW_NOT_FIXED & ~(SHW_GLOB | SHW_BRACE)) != 0 ||
	    (g.flags & SHW_GLOB) == 0)
		return;
	lit = strcspn(g.text, "*?[{");
	if ((k = glob_dir(g.text, lit, dir, sizeof(dir))) == (size_t)-1)
		return;
	/* a star, a '/' and a star empties every top directory as a
	   star empties the top (path_pattern_broad) */
	if (!path_pattern_broad(g.text + k))
		return; /* files in particular */
	raise_rm_place(r, t, dir, wsn, 0, o);
}

/*
 * Whether w[j] is an operand, as getopt_long reads the words after a
 * command word: before a "--" (which is none, and ends the options:
 * *opts 0), a fixed word that begins with '-' is an option.
 */
static int
is_operand(const struct shword *w, size_t j, int *opts)
{
	const char *a = w[j].text;

	if (*opts && fixed(&w[j]) && strcmp(a, "--") == 0) {
		*opts = 0;
		return 0;
	}
	return !(*opts && fixed(&w[j]) && a[0] == '-' && a[1] != '\0');
}

/*
 * rm's arguments as rm reads them: option clusters (-rfv), abbreviated
 * long options (--rec), "--", options after operands (GNU rm permutes
 * them).  A recursive removal is decided, for each operand, as "rm -rf
 * PLACE" (or "rm -r PLACE") by the rules that ask or deny, PLACE the
 * directory removed as the rules name it: doubled and trailing slashes
 * and "." components gone, ".." climbing; the workspace is "." (by its
 * absolute path, as "$PWD", "$PWD/", or climbed out of and back into:
 * ../ws), a directory above it "..", the root "/", another place its
 * absolute path.  A relative operand (and "$PWD/..." one) is resolved
 * from the workspace and from each depth beneath it that its ".."
 * components could climb out of (cd may have gone there first).
 * --no-preserve-root anywhere is "rm --no-preserve-root".  Without -r,
 * rm removes the files a glob names: one that selects nothing in
 * particular is its directory's removal (raise_rm_files: rm -f * is rm
 * -rf .); run by find -exec for each file (o->walked), rm is recursive
 * (find . -exec rm {} + is rm -r .).
 */
static void
raise_rm(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, struct one *o)
{
	char wsn[4096];
	struct shword t[3];
	const char *a, *opt;
	size_t j;
	int opts = 1, rec = 0, force = 0, npr = 0;

	for (j = 1; j < n; j++) {
		a = w[j].text;
		if (!fixed(&w[j]) || !opts || a[0] != '-' || a[1] == '\0')
			continue;
		if (strcmp(a, "--") == 0)
			opts = 0;
		else if (a[1] == '-') {
			rec |= long_opt(a, "--recursive", 3);
			force |= long_opt(a, "--force", 3);
			npr |= long_opt(a, "--no-preserve-root", 3);
		} else {
			rec |= strpbrk(a + 1, "rR") != NULL;
			force |= strchr(a + 1, 'f') != NULL;
		}
	}
	memset(t, 0, sizeof(t));
	t[0] = w[0];
	if (strcmp(base_name(w[0].text), "unlink") == 0) {
		t[0].text = (char *)"rm"; /* run by find -exec */
		t[0].len = 2;
	}
	if (npr) {
		t[1].text = (char *)"--no-preserve-root";
		t[1].len = strlen(t[1].text);
		raise_at(r, t, 2, 1, o);
	}
	if (ws == NULL || lexical_path(ws, wsn, sizeof(wsn)) != 0)
		return;
	rec |= o->walked;
	opt = force ? "-rf" : "-r";
	t[1].text = (char *)opt;
	t[1].len = strlen(opt);
	for (j = 1, opts = 1; j < n; j++) {
		if (!is_operand(w, j, &opts))
			continue;
		if (rec)
			raise_rm_operand(r, t, &w[j], wsn, 0, o);
		else
			raise_rm_files(r, t, &w[j], wsn, o);
	}
}

/* "rm -rf", as the removals that are not rm's own are named. */
static void
rm_rf_words(struct shword t[3])
{
	memset(t, 0, 3 * sizeof(*t));
	t[0].text = (char *)"rm";
	t[0].len = 2;
	t[1].text = (char *)"-rf";
	t[1].len = 3;
}

/*
 * The value of the option at w[*j], for a program whose short options in
 * |shortv| and long options |longv| (NULL-terminated, each abbreviated
 * to no fewer than |min| bytes) take one, as getopt_long reads it: the
 * rest of a cluster or of "--NAME=", else the next word (*j moves past
 * it), into *val.  Returns the short option, or the long one's first
 * letter after "--"; 0 if w[*j] is no such option.  A value that is not
 * a fixed word is "" with *fixedv 0.
 */
static int
opt_value(const struct shword *w, size_t n, size_t *j, const char *shortv,
    const char *const *longv, size_t min, const char **val, int *fixedv)
{
	const char *a = w[*j].text, *c;
	size_t k;

	*val = NULL;
	*fixedv = 1;
	c = NULL;
	if (a[1] == '-') {
		for (k = 0; longv[k] != NULL; k++)
			if (long_opt(a, longv[k], min))
				break;
		if (longv[k] == NULL)
			return 0;
		if (strchr(a, '=') != NULL) {
			*val = strchr(a, '=') + 1;
			return longv[k][2];
		}
	} else {
		for (c = a + 1; *c != '\0' && strchr(shortv, *c) == NULL; c++)
			;
		if (*c == '\0')
			return 0;
		if (c[1] != '\0') {
			*val = c + 1;
			return *c;
		}
	}
	if (*j + 1 >= n) {
		*val = "";
		return c != NULL ? *c : a[2];
	}
	++*j;
	*fixedv = fixed(&w[*j]);
	*val = *fixedv ? w[*j].text : "";
	return c != NULL ? *c : a[2];
}

/*
 * truncate to a size that may shrink a file destroys what it held:
 * "truncate -s0 *" empties each file a glob names, and is decided as rm
 * of them (raise_rm_files: a glob that selects nothing in particular is
 * rm -rf of its directory).  A size with "+", ">" or "%" in front only
 * grows a file; any other, or a reference's (-r), may shrink it.  One
 * that is not a fixed word may be either: where an operand would be a
 * removal a rule asks about or denies, the command is unresolvable.
 * Run by find -exec for each file, its operand stands for the tree
 * (find . -exec truncate -s0 {} + is rm -rf .).
 */
static void
raise_truncate(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, struct one *o)
{
	static const char *const longv[] = { "--size", "--reference", NULL };
	char wsn[4096];
	struct shword t[3];
	struct one scratch, *so = o;
	const char *v;
	size_t j, pass;
	int opts, shrink = 0, fv, c;

	if (ws == NULL || lexical_path(ws, wsn, sizeof(wsn)) != 0)
		return;
	rm_rf_words(t);
	for (pass = 0; pass < 2; pass++)
		for (j = 1, opts = 1; j < n; j++) {
			if (!is_operand(w, j, &opts)) {
				if (strcmp(w[j].text, "--") == 0)
					continue;
				c = opt_value(
				    w, n, &j, "sr", longv, 3, &v, &fv);
				if (c == 's')
					v += strspn(v, " \t");
				if (c == 'r' ||
				    (c == 's' && fv &&
					(strchr("+>%", v[0]) == NULL ||
					    v[0] == '\0')))
					shrink = 1;
				else if (c == 's' && !fv && !shrink)
					shrink = 2;
				continue;
			}
			if (pass == 0 || !shrink)
				continue;
			if (shrink == 2 && so == o) {
				scratch = *o;
				scratch.why = NULL;
				so = &scratch;
			}
			if (o->walked)
				raise_rm_operand(r, t, &w[j], wsn, 0, so);
			else
				raise_rm_files(r, t, &w[j], wsn, so);
		}
	if (so != o && scratch.d > o->d)
		set_why(o,
		    "truncate to a size that is not a fixed word, of what "
		    "rule %d names",
		    scratch.rule + 1);
}

/*
 * Whether mv's destination |dest|, beneath the workspace by its words,
 * may lead out of it: through a symlink the workspace holds or one the
 * string makes (rm_leads, raise_rm_linked, as for "dest/"), or where
 * that cannot be told: "mv * sub/" with sub -> /tmp moves the workspace
 * away.  The links the string makes are those recorded before one that
 * cannot be told (the mv's own glob is such a one: its links are
 * beneath |dest|, not on the way to it).
 */
static int
mv_dest_out(const struct shell_rules *r, const char *dest, const char *wsn,
    struct one *o)
{
	struct one scratch = *o;
	struct shword t[3];
	char d[4096];
	int lost = o->fc->links_lost;

	if ((size_t)snprintf(d, sizeof(d), "%s/", dest) >= sizeof(d))
		return 1;
	rm_rf_words(t);
	scratch.why = NULL;
	(void)rm_leads(t, d, wsn, 1, &scratch);
	o->fc->links_lost = 0;
	raise_rm_linked(r, t, d, strlen(d), 0, wsn, 1, &scratch);
	o->fc->links_lost = lost;
	return scratch.why != NULL || scratch.d > o->d;
}

/*
 * mv out of the workspace removes each source from it, as rm -r would:
 * "mv * /tmp" and "mv ./[star] ../x" are rm -rf . (raise_rm_operand),
 * "mv src /tmp" is rm -rf src.  The destination is the last operand, or
 * -t's directory; one beneath the workspace as the words read keeps
 * what it moves.  One that is not a fixed word may be either, and so
 * may one that leads through a link (mv_dest_out): where a source would
 * be a removal a rule asks about or denies, the command is unresolvable
 * ("mv * "$d"", "mv * r/" with r -> /tmp), as rm -rf r/ is.
 */
static void
raise_mv(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, struct one *o)
{
	static const char *const longv[] = { "--target-directory", "--suffix",
		NULL };
	char wsn[4096];
	struct shword t[3], *ops;
	struct one scratch;
	const char *a, *v, *dest = NULL;
	size_t j, nops = 0, nsrc;
	int opts = 1, fv, c, dest_fixed = 1, linked = 0;

	if (ws == NULL || lexical_path(ws, wsn, sizeof(wsn)) != 0)
		return;
	ops = xreallocarray(NULL, n, sizeof(*ops));
	for (j = 1; j < n; j++) {
		a = w[j].text;
		if (opts && fixed(&w[j]) && strcmp(a, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && fixed(&w[j]) && a[0] == '-' && a[1] != '\0') {
			/* -S and --suffix take a value; -t and
			   --target-directory the destination */
			c = opt_value(w, n, &j, "St", longv, 3, &v, &fv);
			if (c == 't') {
				dest = v;
				dest_fixed = fv;
			}
			continue;
		}
		ops[nops++] = w[j];
	}
	nsrc = nops;
	if (dest == NULL && nops >= 2) {
		nsrc = nops - 1;
		dest = ops[nsrc].text;
		dest_fixed = fixed(&ops[nsrc]);
	}
	if (dest != NULL && dest_fixed && path_ok(dest, ws, 0))
		linked = o->fc != NULL && mv_dest_out(r, dest, wsn, o);
	if (dest == NULL || (dest_fixed && path_ok(dest, ws, 0) && !linked)) {
		free(ops);
		return;
	}
	rm_rf_words(t);
	if (dest_fixed && !linked)
		for (j = 0; j < nsrc; j++)
			raise_rm_operand(r, t, &ops[j], wsn, 0, o);
	else {
		scratch = *o;
		scratch.why = NULL;
		for (j = 0; j < nsrc; j++)
			raise_rm_operand(r, t, &ops[j], wsn, 0, &scratch);
		if (scratch.d > o->d)
			set_why(o, "mv to %s, of what rule %d names",
			    linked ? "a place that may lead out of the "
				     "workspace through a link"
				   : "a place that is not a fixed word",
			    scratch.rule + 1);
	}
	free(ops);
}

/*
 * tee, without -a, truncates each file it names before it writes what it
 * reads: "tee *" empties every file at the top, as truncate -s0 * does,
 * and is decided as rm of them (raise_rm_files); run by find -exec for
 * each file, its operand stands for the tree.
 */
static void
raise_tee(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, struct one *o)
{
	char wsn[4096];
	struct shword t[3];
	const char *a;
	size_t j;
	int opts = 1;

	for (j = 1; j < n; j++) {
		a = w[j].text;
		if (!fixed(&w[j]) || a[0] != '-' || a[1] == '\0')
			continue;
		if (strcmp(a, "--") == 0)
			break;
		if (long_opt(a, "--append", 3) || short_opt(a, 'a'))
			return;
	}
	if (ws == NULL || lexical_path(ws, wsn, sizeof(wsn)) != 0)
		return;
	rm_rf_words(t);
	for (j = 1; j < n; j++) {
		if (!is_operand(w, j, &opts))
			continue;
		if (o->walked)
			raise_rm_operand(r, t, &w[j], wsn, 0, o);
		else
			raise_rm_files(r, t, &w[j], wsn, o);
	}
}

/*
 * sed -i (--in-place) without a backup suffix rewrites each file it
 * names with what its script prints, which the rules cannot tell: sed
 * -i d of "./" and a star empties every file at the top.  Where a file operand would
 * be a removal a rule asks about or denies (raise_rm_files, as for
 * truncate -s0; run by find -exec, of the tree), the command is
 * unresolvable; with -i.bak the files are kept.  The script is the first
 * operand but where -e, -f (--expression, --file) give it.
 */
static void
raise_sed_in_place(const struct shell_rules *r, const struct shword *w,
    size_t n, const char *ws, struct one *o)
{
	static const char *const longv[] = { "--expression", "--file",
		"--line-length", NULL };
	char wsn[4096];
	struct shword t[3];
	struct one scratch;
	const char *a, *v, *suffix = NULL;
	size_t j, k, pass;
	int opts, given = 0, fv, c, script;

	if (ws == NULL || lexical_path(ws, wsn, sizeof(wsn)) != 0)
		return;
	scratch = *o;
	scratch.why = NULL;
	rm_rf_words(t);
	for (pass = 0; pass < 2; pass++)
		for (j = 1, opts = 1, script = 0; j < n; j++) {
			a = w[j].text;
			if (is_operand(w, j, &opts)) {
				if (pass == 0 || (!given && !script++))
					continue; /* the script */
				if (o->walked)
					raise_rm_operand(
					    r, t, &w[j], wsn, 0, &scratch);
				else
					raise_rm_files(
					    r, t, &w[j], wsn, &scratch);
				continue;
			}
			if (strcmp(a, "--") == 0)
				continue;
			if (long_opt(a, "--in-place", 4)) {
				suffix = strchr(a, '=') != NULL
				    ? strchr(a, '=') + 1
				    : "";
				continue;
			}
			if (a[1] == '-') {
				c = opt_value(w, n, &j, "", longv, 3, &v, &fv);
				given |= c == 'e' || c == 'f';
				continue;
			}
			for (k = 1; a[k] != '\0'; k++) {
				if (a[k] == 'i') {
					suffix = a + k + 1; /* the rest */
					break;
				}
				if (strchr("efl", a[k]) != NULL) {
					given |= a[k] != 'l';
					j += a[k + 1] == '\0'; /* the value */
					break;
				}
			}
		}
	if (suffix != NULL && suffix[0] == '\0' && scratch.d > o->d)
		set_why(o,
		    "sed -i rewrites each file it names, which may empty "
		    "what rule %d names",
		    scratch.rule + 1);
}

/*
 * An archiver that removes what it archives, as rm does: tar
 * --remove-files, zip -m (--move) and 7z's -sdel.  Each word that is no
 * option is taken for an operand (the archive's name and an option's
 * value too, which errs towards a removal): tar, 7z and zip -r recurse
 * into a directory, as rm -r does ("tar -cf /tmp/x.tar --remove-files
 * ." and "zip -rm /tmp/x.zip ." are rm -rf .); zip without -r moves the
 * files a glob names (raise_rm_files: "zip -m x.zip *" is rm -f *).  A
 * pattern 7z or zip globs itself ('*') is a glob.  Operands relative to
 * another directory (tar -C, --directory) or read from a file (tar -T,
 * --files-from; zip -@, 7z's @list) are unresolvable.
 */
static void
raise_archiver(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, struct one *o)
{
	const char *name = base_name(w[0].text), *a;
	char wsn[4096];
	struct shword t[3], q;
	size_t j;
	int opts = 1, remove = 0, elsewhere = 0, rec, tar, zip;

	tar = strcmp(name, "tar") == 0;
	zip = strcmp(name, "zip") == 0;
	rec = !zip || o->walked;
	for (j = 1; j < n; j++) {
		a = w[j].text;
		if (!fixed(&w[j]))
			continue;
		elsewhere |= !tar && a[0] == '@';
		if (a[0] != '-' || a[1] == '\0')
			continue;
		if (tar) {
			remove |= long_opt(a, "--remove-files", 5);
			elsewhere |= long_opt(a, "--directory", 5) ||
			    long_opt(a, "--files-from", 8) ||
			    (a[1] != '-' &&
				(short_opt(a, 'C') || short_opt(a, 'T')));
		} else if (zip) {
			remove |= long_opt(a, "--move", 4) ||
			    (a[1] != '-' && short_opt(a, 'm'));
			rec |= long_opt(a, "--recurse-paths", 9) ||
			    (a[1] != '-' &&
				(short_opt(a, 'r') || short_opt(a, 'R')));
			elsewhere |= strcmp(a, "-@") == 0 ||
			    long_opt(a, "--names-stdin", 4);
		} else
			remove |= strcmp(a, "-sdel") == 0;
	}
	if (!remove || ws == NULL || lexical_path(ws, wsn, sizeof(wsn)) != 0)
		return;
	if (elsewhere) {
		set_why(o,
		    "%s removes what it archives, of names relative to "
		    "another directory, or read from a file",
		    name);
		return;
	}
	rm_rf_words(t);
	for (j = 1; j < n; j++) {
		if (!is_operand(w, j, &opts))
			continue;
		q = w[j];
		if (!tar && fixed(&q) && strpbrk(q.text, "*?[") != NULL)
			q.flags |= SHW_GLOB;
		if (rec)
			raise_rm_operand(r, t, &q, wsn, 0, o);
		else
			raise_rm_files(r, t, &q, wsn, o);
	}
}

static int find_is_workspace(const struct shword *, const char *);

/*
 * Whether the removal of |w| may be the workspace itself: a fixed word
 * or "$PWD" that names it, a glob whose directory does (a pattern that
 * selects nothing in particular), or a word that is not fixed.
 */
static int
may_be_workspace(const struct shword *w, const char *wsn)
{
	struct shword d;
	char dir[4096];
	size_t lit, k;

	if (fixed(w) || pwd_operand(w, dir, sizeof(dir)) == 0)
		return find_is_workspace(w, wsn);
	if ((w->flags & SHW_NOT_FIXED & ~(SHW_GLOB | SHW_BRACE)) != 0)
		return 1;
	lit = strcspn(w->text, "*?[{");
	if (strchr(w->text + lit, '/') != NULL ||
	    (k = glob_dir(w->text, lit, dir, sizeof(dir))) == (size_t)-1 ||
	    !name_pattern_broad(w->text + k, FNM_PERIOD))
		return 0;
	memset(&d, 0, sizeof(d));
	d.text = dir;
	d.len = strlen(dir);
	return find_is_workspace(&d, wsn);
}

/*
 * git rm and git clean remove files of the workspace.  "git rm -r"
 * (also "-rf", "-f -r") of a pathspec is rm -r of it, and so is a
 * pathspec git globs itself ('*' matches in every directory); without
 * -r, a shell glob names files (raise_rm_files): "git rm -rf .", "git rm
 * -r '*'" and "git rm -f -r *" are rm -rf . (--cached and -n remove
 * nothing); run by find -exec for each file, git rm is recursive.  git clean removes what git does not track beneath each
 * pathspec (the working directory where there is none), which the
 * rules cannot tell: of the workspace it is unresolvable, as find -mtime
 * +7 -delete is, and of a place above it rm -rf PLACE ("git clean -fdx"
 * waits for a human; "git clean -fd /" is rm -rf /).  git follows no
 * symlink to remove, so the workspace is not asked about.  A pathspec
 * read from a file, one with magic other than ":/" (the top, taken to
 * be the workspace), and -C, --work-tree or --git-dir before the
 * subcommand are unresolvable.
 */
static void
raise_git_rm(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, struct one *o)
{
	static const char *const longv[] = { "--exclude", NULL };
	static const struct shword dot = { (char *)".", 1, 0 };
	char wsn[4096];
	struct shword t[3], q;
	struct fsctx *fc;
	const char *a, *v, *sub;
	size_t j, s;
	int opts = 1, clean, rec = 0, dry = 0, cached = 0, fromfile = 0;
	int moved = 0;
	int fv, nps = 0;

	s = git_subcommand_at(w, n);
	if (s >= n || !fixed(&w[s]) || ws == NULL ||
	    lexical_path(ws, wsn, sizeof(wsn)) != 0)
		return;
	sub = w[s].text;
	clean = strcmp(sub, "clean") == 0;
	if (!clean && strcmp(sub, "rm") != 0)
		return;
	for (j = 1; j < s; j++)
		moved |= strcmp(w[j].text, "-C") == 0 ||
		    long_opt(w[j].text, "--work-tree", 11) ||
		    long_opt(w[j].text, "--git-dir", 9);
	/* options: wherever they are, up to "--" */
	for (j = s + 1; j < n; j++) {
		a = w[j].text;
		if (!opts || !fixed(&w[j]) || a[0] != '-' || a[1] == '\0')
			continue;
		if (strcmp(a, "--") == 0)
			opts = 0;
		else if (clean &&
		    opt_value(w, n, &j, "e", longv, 3, &v, &fv) != 0)
			continue;
		else if (long_opt(a, "--dry-run", 3) ||
		    long_opt(a, "--no-dry-run", 6))
			dry = a[2] == 'd'; /* the last one holds */
		else if (!clean &&
		    (long_opt(a, "--cached", 3) ||
			long_opt(a, "--no-cached", 6)))
			cached = a[2] == 'c';
		else if (long_opt(a, "--pathspec-from-file", 13))
			fromfile = 1;
		else if (a[1] != '-') {
			dry |= short_opt(a, 'n');
			rec |= short_opt(a, 'r');
		}
	}
	if (dry || cached)
		return;
	rec |= o->walked;
	if (fromfile || moved) {
		set_why(o, "git %s %s", sub,
		    fromfile ? "reads its pathspecs from a file"
			     : "after -C, --work-tree or --git-dir");
		return;
	}
	rm_rf_words(t);
	fc = o->fc;
	o->fc = NULL;
	for (j = s + 1, opts = 1; j <= n; j++) {
		if (j == n) {
			if (!clean || nps > 0)
				break;
			q = dot; /* the working directory */
		} else {
			if (!is_operand(w, j, &opts)) {
				if (clean && strcmp(w[j].text, "--") != 0)
					(void)opt_value(
					    w, n, &j, "e", longv, 3, &v, &fv);
				continue;
			}
			nps++;
			q = w[j];
		}
		if (fixed(&q) && q.text[0] == ':') {
			if (strncmp(q.text, ":/", 2) != 0 || q.text[2] == '(' ||
			    q.text[2] == ':') {
				set_why(o,
				    "git %s of a pathspec with magic (%.40s)",
				    sub, q.text);
				continue;
			}
			q.text += 2;
			q.len -= 2;
			if (q.len == 0)
				q = dot;
		}
		/* git globs a pathspec itself, in every directory */
		if (fixed(&q) && strpbrk(q.text, "*?[") != NULL)
			q.flags |= SHW_GLOB;
		if (clean && may_be_workspace(&q, wsn))
			set_why(o,
			    "git clean of the workspace removes the files "
			    "git does not track, which the rules cannot "
			    "tell");
		else if (clean)
			raise_rm_operand(r, t, &q, wsn, 1, o);
		else if (rec || (j < n && fixed(&w[j]) && (q.flags & SHW_GLOB)))
			raise_rm_operand(r, t, &q, wsn, 0, o);
		else
			raise_rm_files(r, t, &q, wsn, o);
	}
	o->fc = fc;
}

static void decide_words(const struct shell_rules *, const struct shword *,
    size_t, const char *, struct one *);
static size_t shell_code_at(const struct shword *, size_t);
static void raise_by_shell_args(const struct shell_rules *, const char *,
    size_t, const struct shword *, size_t, const char *, int, size_t *, int,
    enum shdecision *, int *);

/*
 * Decides w[0..n), a command that another runs (find -exec's, busybox's
 * applet), as a command of its own, and raises o to its decision where a
 * rule made it stricter.  The command running it stays what it was
 * (unresolvable: find -exec, busybox).  Nesting is bounded, and so are
 * the words of such commands one command holds (find's -exec commands,
 * once for each starting point, at each level), to four times the words
 * a string may have: past it, they are not decided, and the command is
 * unresolvable.  The code such a command runs (sh -c CODE) is read
 * too, each of its bytes counted as a word.
 */
#define INNER_WORDS_MAX (4 * SHPARSE_MAX_WORDS)
static void
raise_by_argv(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, int walked, struct one *o)
{
	struct one sub;
	size_t c;

	if (n == 0 || o->depth >= 4)
		return;
	if (o->budget == NULL)
		o->budget = &o->spent;
	if ((*o->budget += n) > INNER_WORDS_MAX) {
		set_why(o, "more than %d words of commands inside a command",
		    INNER_WORDS_MAX);
		return;
	}
	memset(&sub, 0, sizeof(sub));
	sub.depth = o->depth + 1;
	sub.walked = walked;
	sub.budget = o->budget;
	sub.fc = o->fc;
	sub.d = r->dflt;
	sub.rule = -1;
	decide_words(r, w, n, ws, &sub);
	/* the code it runs (find . -exec sh -c 'CODE' _ {} ;), with the
	   words it is given: of a command of the string itself, and read
	   one level down at most (raise_by_code's last), so that the work
	   stays bounded */
	if (sub.why != NULL && o->code_depth == 0 && sub.nwords > 0 &&
	    fixed(&sub.words[0]) && is_shell(base_name(sub.words[0].text)) &&
	    (c = shell_code_at(sub.words, sub.nwords)) > 0 &&
	    fixed(&sub.words[c])) {
		if ((*o->budget += sub.words[c].len) > INNER_WORDS_MAX)
			set_why(o,
			    "more than %d words of commands inside a command",
			    INNER_WORDS_MAX);
		else
			raise_by_shell_args(r, sub.words[c].text,
			    sub.words[c].len, sub.words + c + 1,
			    sub.nwords - c - 1, ws, 4, o->budget, walked,
			    &sub.d, &sub.rule);
	}
	if (sub.rule >= 0 && sub.d > o->d) {
		o->d = sub.d;
		o->rule = sub.rule;
	}
}

/*
 * find's command of -exec, -execdir, -ok or -okdir, w[0..n) up to its
 * ";" or "{} +", decided for the starting point |sp| (raise_by_argv):
 * each "{}" in a word is the path find found, the starting point first
 * (find / -exec rm -rf {} + removes "/").
 */
static void
raise_find_exec(const struct shell_rules *r, const struct shword *w, size_t n,
    const struct shword *sp, const char *ws, struct one *o)
{
	struct shword *t;
	const char *p, *q;
	size_t j, k, len;
	int brace;

	t = xreallocarray(NULL, n, sizeof(*t));
	for (j = 0; j < n; j++) {
		t[j] = w[j];
		if (w[j].text == NULL || strstr(w[j].text, "{}") == NULL)
			continue;
		for (k = 0, p = w[j].text; (p = strstr(p, "{}")) != NULL;
		     p += 2)
			k++;
		len = w[j].len + k * sp->len;
		t[j].text = xreallocarray(NULL, len + 1, 1);
		/* an unquoted "{}" is no brace expansion; another brace
		   may be */
		brace = 0;
		for (len = 0, p = w[j].text; (q = strstr(p, "{}")) != NULL;
		     p = q + 2) {
			brace |= strcspn(p, "{}") < (size_t)(q - p);
			memcpy(t[j].text + len, p, q - p);
			len += q - p;
			memcpy(t[j].text + len, sp->text, sp->len);
			len += sp->len;
		}
		memcpy(t[j].text + len, p, strlen(p) + 1);
		t[j].len = len + strlen(p);
		brace |= strpbrk(p, "{}") != NULL;
		if (!brace)
			t[j].flags &= ~SHW_BRACE;
		t[j].flags |= sp->flags;
	}
	raise_by_argv(r, t, n, ws, 1, o);
	for (j = 0; j < n; j++)
		if (t[j].text != w[j].text)
			free(t[j].text);
	free(t);
}

/* Whether find's starting point |sp| names the workspace (|wsn|, its
   lexical path), as rm's operand would: ".", "$PWD", its path. */
static int
find_is_workspace(const struct shword *sp, const char *wsn)
{
	char a[4096], path[8192], buf[8192];

	if (fixed(sp))
		snprintf(a, sizeof(a), "%s", sp->text);
	else if (pwd_operand(sp, a, sizeof(a)) != 0)
		return 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s",
		a[0] == '/' ? "" : wsn, a) >= sizeof(path) ||
	    lexical_path(path, buf, sizeof(buf)) != 0)
		return 0;
	return strcmp(buf, wsn) == 0;
}

/*
 * How far a part of find's expression narrows what an action after it
 * applies to: FX_NO (it may be every file, the starting point too),
 * FX_YES (only files a test selects, beneath the starting point), or
 * FX_MAYBE (a test the rules cannot tell, such as -mtime, or a command's
 * status).  Ordered so that "or" is the larger and "and" the smaller.
 */
enum fx_narrow {
	FX_NO,
	FX_MAYBE,
	FX_YES,
};

#define FX_MAX(a, b) ((a) > (b) ? (a) : (b))
#define FX_MIN(a, b) ((a) < (b) ? (a) : (b))

/* The names one find's patterns are tried on, at most: a few patterns
   beneath each of 32 starting points. */
#define FX_TRIES_MAX 2048

/* Reading find's expression: its words, the starting points, and what
   its actions met. */
struct fx {
	const struct shell_rules *r;
	const struct shword *w;
	size_t n, j;
	const struct shword *sp; /* starting points, ns of them */
	size_t ns;
	const char *ws, *wsn;
	struct one *o;
	int bad; /* a word find would not take there */
	int depth; /* of "(" and "!" */
	const char *regextype; /* the last -regextype's, or NULL */
	enum fx_narrow del; /* the least narrowed -delete */
	int has_del, has_exec;
	int follow_all; /* -follow: as -L */
	size_t tries; /* names a pattern was tried on (fx_pattern) */
};

/* Emacs's regex syntax (find's default) as POSIX's extended one: \( \)
   \| \{ \} are operators, ( ) | { } themselves; -1 for what has no
   counterpart (\w, \b, \<, \`, ...). */
static int
fx_emacs_ere(const char *p, char *out, size_t outlen)
{
	size_t i, o = 0, k;

	for (i = 0; p[i] != '\0'; i++) {
		if (o + 4 >= outlen)
			return -1;
		if (p[i] == '[') {
			k = matching(p + i, '[', ']');
			if (p[i + k] == '\0' || o + k + 2 >= outlen)
				return -1;
			memcpy(out + o, p + i, k + 1);
			o += k + 1;
			i += k;
		} else if (p[i] == '\\' && p[i + 1] != '\0' &&
		    strchr("()|{}", p[i + 1]) != NULL)
			out[o++] = p[++i];
		else if (strchr("()|{}", p[i]) != NULL) {
			out[o++] = '\\';
			out[o++] = p[i];
		} else if (p[i] == '\\' &&
		    (p[i + 1] == '\0' || isalnum((unsigned char)p[i + 1]) ||
			strchr("<>`'_=", p[i + 1]) != NULL))
			return -1;
		else if (p[i] == '\\') {
			out[o++] = p[i++];
			out[o++] = p[i];
		} else
			out[o++] = p[i];
	}
	out[o] = '\0';
	return 0;
}

/* Whether |re| matches all of |s|. */
static int
fx_re_full(const regex_t *re, const char *s)
{
	regmatch_t m;

	return regexec(re, s, 1, &m, 0) == 0 && m.rm_so == 0 &&
	    (size_t)m.rm_eo == strlen(s);
}

/* Whether the test of a path (fx_pattern's |kind| 1, or 2 with |re|
   compiled) matches |name| beneath the starting point |sp|, as find
   prints the path; |name2|, if not NULL, beneath |name|. */
static int
fx_matches(const regex_t *re, const char *pat, int kind, int icase,
    const struct shword *sp, const char *name, const char *name2)
{
	char path[4096 + 64];

	/* find joins them with a '/' unless the starting point ends in
	   one: "find ./" prints "./x" */
	snprintf(path, sizeof(path), "%.4000s%s%s%s%s", sp->text,
	    sp->len > 0 && sp->text[sp->len - 1] == '/' ? "" : "/", name,
	    name2 != NULL ? "/" : "", name2 != NULL ? name2 : "");
	if (kind == 2)
		return fx_re_full(re, path);
	return fnmatch(pat, path, icase ? FNM_CASEFOLD : 0) == 0;
}

/*
 * How far a test of a name (|kind| 0: -name, -iname), a path (1: -path,
 * -wholename) or a regex of the path (2: -regex, in x->regextype)
 * narrows: not (FX_NO) where, beneath some starting point, it matches
 * each probe (odd_names; a path also a probe two deep) or a quarter of
 * the common names (common_names); FX_YES where it does not; FX_MAYBE
 * where it cannot be read, or past FX_TRIES_MAX names tried.
 */
static enum fx_narrow
fx_pattern(struct fx *x, const char *pat, int kind, int icase)
{
	static const struct shword dot = { (char *)".", 1, 0 };
	char ere[4096];
	const struct shword *sp;
	regex_t re;
	size_t k, i, all, common;
	int ext = 1;

	/* bounded work: no long pattern or starting point, no
	   back-reference (whose matching may take exponential time), and
	   at most FX_TRIES_MAX names tried in one find */
	if (strlen(pat) > 512)
		return FX_MAYBE;
	x->tries += (NCOMMON_NAMES + 4) * (kind == 0 || x->ns == 0 ? 1 : x->ns);
	if (x->tries > FX_TRIES_MAX)
		return FX_MAYBE;
	for (i = 0; kind == 2 && pat[i] != '\0'; i++)
		if (pat[i] == '\\' && pat[++i] >= '1' && pat[i] <= '9')
			return FX_MAYBE;
		else if (pat[i] == '\0')
			break;
	if (kind == 0)
		return name_pattern_broad(pat, icase ? FNM_CASEFOLD : 0)
		    ? FX_NO
		    : FX_YES;
	for (k = 0; k < x->ns; k++)
		if (x->sp[k].len > 512)
			return FX_MAYBE;
	if (kind == 2) {
		if (x->regextype == NULL ||
		    strcmp(x->regextype, "emacs") == 0) {
			if (fx_emacs_ere(pat, ere, sizeof(ere)) != 0)
				return FX_MAYBE;
			pat = ere;
		} else if (strcmp(x->regextype, "posix-basic") == 0)
			ext = 0;
		else if (strcmp(x->regextype, "posix-extended") != 0)
			return FX_MAYBE;
		if (regcomp(&re, pat,
			(ext ? REG_EXTENDED : 0) | (icase ? REG_ICASE : 0)) !=
		    0)
			return FX_MAYBE;
	}
	for (all = 0, k = 0; !all && k < (x->ns > 0 ? x->ns : 1); k++) {
		sp = x->ns > 0 ? &x->sp[k] : &dot;
		for (all = 1, i = 0; all && odd_names[i] != NULL; i++)
			all = fx_matches(
			    &re, pat, kind, icase, sp, odd_names[i], NULL);
		if (all)
			all = fx_matches(&re, pat, kind, icase, sp,
			    odd_names[0], odd_names[0]);
		for (common = 0, i = 0;
		     !all && i < NCOMMON_NAMES && common * 4 < NCOMMON_NAMES;
		     i++)
			common += fx_matches(
			    &re, pat, kind, icase, sp, common_names[i], NULL);
		all |= common * 4 >= NCOMMON_NAMES;
	}
	if (kind == 2)
		regfree(&re);
	return all ? FX_NO : FX_YES;
}

/*
 * How far a test with a bound narrows (-size, -links, -perm, a time in
 * days or, for -amin, -cmin and -mmin, minutes): not (FX_NO) where the
 * bound holds for every file a workspace is likely to hold, -size -N
 * over a mebibyte (GNU find rounds a size up to its unit: -size -N is
 * N - 1 units at most) or +0, -links 1, +0 or -N, -perm -0 or /0 (no
 * bit asked for), a time within ten years (-mtime -3650); else it
 * cannot be told (FX_MAYBE): -mtime +7, -size +1M, -newer f.
 */
static enum fx_narrow
fx_bound(const char *name, const char *v)
{
	static const char units[] = "bcwkMG";
	static const unsigned long long bytes[] = { 512, 1, 2, 1024,
		1024 * 1024, 1024 * 1024 * 1024 };
	unsigned long long n, unit = 512;
	const char *u;
	char sign = 0, *end;

	if (strcmp(name, "-perm") == 0)
		return (v[0] == '-' || v[0] == '/') && v[1] != '\0' &&
			v[1 + strspn(v + 1, "0")] == '\0'
		    ? FX_NO
		    : FX_MAYBE;
	if (*v == '+' || *v == '-')
		sign = *v++;
	if (!isdigit((unsigned char)*v))
		return FX_MAYBE;
	/* a bound past the range is past every file's */
	n = strtoull(v, &end, 10);
	if (strcmp(name, "-size") == 0) {
		if (*end != '\0') {
			if ((u = strchr(units, *end)) == NULL || end[1] != '\0')
				return FX_MAYBE;
			unit = bytes[u - units];
		}
		return (sign == '-' && n > 0 &&
			   n - 1 >= (1024 * 1024 + unit - 1) / unit) ||
			(sign == '+' && n == 0)
		    ? FX_NO
		    : FX_MAYBE;
	}
	if (*end != '\0')
		return FX_MAYBE;
	if (strcmp(name, "-links") == 0)
		return (sign == 0 && n == 1) || (sign == '+' && n == 0) ||
			(sign == '-' && n >= 2)
		    ? FX_NO
		    : FX_MAYBE;
	return sign == '-' &&
		n >= (strstr(name, "min") != NULL ? 3650ULL * 24 * 60 : 3650)
	    ? FX_NO
	    : FX_MAYBE;
}

/* The primaries find takes, but the actions (fx_action) and operators:
   how many words follow, and how far a true one narrows. */
struct fx_primary {
	const char *name;
	int nargs;
	int narrow; /* an fx_narrow; tests by their argument:
				   -1 a name, -2 a path, -3 a regex, -4 a
				   file type; -5, -6, -7 as -1 to -3 but
				   ignoring case; -8 a bound (fx_bound) */
	int always_true;
};

static const struct fx_primary fx_primaries[] = {
	/* options and actions that are true for every file */
	{ "-depth", 0, FX_NO, 1 },
	{ "-d", 0, FX_NO, 1 },
	{ "-xdev", 0, FX_NO, 1 },
	{ "-mount", 0, FX_NO, 1 },
	{ "-noleaf", 0, FX_NO, 1 },
	{ "-ignore_readdir_race", 0, FX_NO, 1 },
	{ "-noignore_readdir_race", 0, FX_NO, 1 },
	{ "-warn", 0, FX_NO, 1 },
	{ "-nowarn", 0, FX_NO, 1 },
	{ "-daystart", 0, FX_NO, 1 },
	{ "-follow", 0, FX_NO, 1 },
	{ "-print", 0, FX_NO, 1 },
	{ "-print0", 0, FX_NO, 1 },
	{ "-ls", 0, FX_NO, 1 },
	{ "-true", 0, FX_NO, 1 },
	{ "-prune", 0, FX_NO, 1 },
	{ "-quit", 0, FX_NO, 1 },
	{ "-maxdepth", 1, FX_NO, 1 },
	{ "-mindepth", 1, FX_NO, 1 },
	{ "-regextype", 1, FX_NO, 1 },
	{ "-fprint", 1, FX_NO, 1 },
	{ "-fprint0", 1, FX_NO, 1 },
	{ "-fls", 1, FX_NO, 1 },
	{ "-printf", 1, FX_NO, 1 },
	{ "-fprintf", 2, FX_NO, 1 },
	/* tests */
	{ "-false", 0, FX_YES, 0 },
	{ "-empty", 0, FX_YES, 0 },
	{ "-samefile", 1, FX_YES, 0 },
	{ "-inum", 1, FX_YES, 0 },
	{ "-lname", 1, FX_YES, 0 },
	{ "-ilname", 1, FX_YES, 0 },
	{ "-name", 1, -1, 0 },
	{ "-iname", 1, -5, 0 },
	{ "-path", 1, -2, 0 },
	{ "-ipath", 1, -6, 0 },
	{ "-wholename", 1, -2, 0 },
	{ "-iwholename", 1, -6, 0 },
	{ "-regex", 1, -3, 0 },
	{ "-iregex", 1, -7, 0 },
	{ "-type", 1, -4, 0 },
	{ "-xtype", 1, -4, 0 },
	/* tests that hold for every file the agent may delete: it reads
	   and writes them all */
	{ "-readable", 0, FX_NO, 0 },
	{ "-writable", 0, FX_NO, 0 },
	/* tests that may hold for every file of a workspace (the agent
	   owns them all; times and sizes by a bound, -8, that fx_bound
	   reads) */
	{ "-nouser", 0, FX_MAYBE, 0 },
	{ "-nogroup", 0, FX_MAYBE, 0 },
	{ "-executable", 0, FX_MAYBE, 0 },
	{ "-size", 1, -8, 0 },
	{ "-perm", 1, -8, 0 },
	{ "-user", 1, FX_MAYBE, 0 },
	{ "-group", 1, FX_MAYBE, 0 },
	{ "-uid", 1, FX_MAYBE, 0 },
	{ "-gid", 1, FX_MAYBE, 0 },
	{ "-links", 1, -8, 0 },
	{ "-amin", 1, -8, 0 },
	{ "-atime", 1, -8, 0 },
	{ "-cmin", 1, -8, 0 },
	{ "-ctime", 1, -8, 0 },
	{ "-mmin", 1, -8, 0 },
	{ "-mtime", 1, -8, 0 },
	{ "-used", 1, -8, 0 },
	{ "-fstype", 1, FX_MAYBE, 0 },
	{ "-context", 1, FX_MAYBE, 0 },
	{ "-newer", 1, FX_MAYBE, 0 },
	{ "-anewer", 1, FX_MAYBE, 0 },
	{ "-cnewer", 1, FX_MAYBE, 0 },
	{ NULL, 0, FX_NO, 0 },
};

static void fx_comma(
    struct fx *, enum fx_narrow, enum fx_narrow *, enum fx_narrow *);

/*
 * -exec, -execdir, -ok or -okdir at x->j: its command, up to ";" or
 * "{} +", decided for each starting point (raise_find_exec): the
 * starting point itself where nothing narrows the files it runs for
 * (|reach| FX_NO), else a path beneath it.
 */
static void
fx_exec(struct fx *x, enum fx_narrow reach)
{
	static const struct shword dot = { (char *)".", 1, 0 };
	const struct shword *w = x->w, *sp;
	struct shword bw;
	char below[4096];
	size_t e, k, j = x->j;

	for (e = j + 1; e < x->n; e++)
		if (fixed(&w[e]) &&
		    (strcmp(w[e].text, ";") == 0 ||
			(strcmp(w[e].text, "+") == 0 &&
			    strcmp(w[e - 1].text, "{}") == 0)))
			break;
	x->bad |= e == x->n;
	for (k = 0; k < (x->ns > 0 ? x->ns : 1); k++) {
		sp = x->ns > 0 ? &x->sp[k] : &dot;
		/* narrowed, the workspace's files, not the workspace: a
		   path beneath it */
		if (reach != FX_NO && x->wsn[0] != '\0' &&
		    find_is_workspace(sp, x->wsn) &&
		    (size_t)snprintf(below, sizeof(below), "%s/{}", sp->text) <
			sizeof(below)) {
			bw = *sp;
			bw.text = below;
			bw.len = strlen(below);
			sp = &bw;
		}
		raise_find_exec(x->r, w + j + 1, e - j - 1, sp, x->ws, x->o);
	}
	x->j = e < x->n ? e + 1 : e;
}

/* One primary at x->j, reached as |reach| narrows: its truth's *N and
   its falsity's *F. */
static void
fx_primary(
    struct fx *x, enum fx_narrow reach, enum fx_narrow *N, enum fx_narrow *F)
{
	const struct fx_primary *p;
	const char *a = x->w[x->j].text, *v;

	*N = FX_NO;
	*F = FX_NO;
	if (strcmp(a, "-delete") == 0) {
		x->del = x->has_del ? FX_MIN(x->del, reach) : reach;
		x->has_del = 1;
		x->j++;
		return;
	}
	if (strcmp(a, "-exec") == 0 || strcmp(a, "-execdir") == 0 ||
	    strcmp(a, "-ok") == 0 || strcmp(a, "-okdir") == 0) {
		x->has_exec = 1;
		fx_exec(x, reach);
		*N = *F = FX_MAYBE; /* the command's status */
		return;
	}
	/* -newerXY is -newer to the rules */
	if (strncmp(a, "-newer", 6) == 0 && strlen(a) == 8)
		a = "-newer";
	for (p = fx_primaries; p->name != NULL; p++)
		if (strcmp(a, p->name) == 0)
			break;
	if (p->name == NULL || x->j + p->nargs >= x->n) {
		x->bad = 1; /* find refuses it: narrows nothing */
		x->j++;
		return;
	}
	v = p->nargs > 0 ? x->w[x->j + 1].text : "";
	x->j += 1 + p->nargs;
	if (strcmp(a, "-regextype") == 0)
		x->regextype = v;
	x->follow_all |= strcmp(a, "-follow") == 0;
	if (p->always_true) {
		*F = FX_YES; /* never false */
		return;
	}
	if (p->narrow == -8)
		*N = fx_bound(a, v);
	else if (p->narrow == -4) /* every regular file is no selection */
		*N = strchr(v, 'f') != NULL ? FX_NO
		    : strlen(v) == 1	    ? FX_YES
					    : FX_MAYBE;
	else if (p->narrow < 0)
		*N = fx_pattern(x, v, (-p->narrow - 1) % 4, p->narrow <= -5);
	else
		*N = (enum fx_narrow)p->narrow;
}

/* "!" and "(...)" or a primary. */
static void
fx_unary(
    struct fx *x, enum fx_narrow reach, enum fx_narrow *N, enum fx_narrow *F)
{
	const char *a;

	if (x->j >= x->n || ++x->depth > 64) {
		x->bad = 1;
		x->j = x->n;
		*N = *F = FX_NO;
		return;
	}
	a = x->w[x->j].text;
	if (strcmp(a, "!") == 0 || strcmp(a, "-not") == 0) {
		x->j++;
		fx_unary(x, reach, F, N);
	} else if (strcmp(a, "(") == 0) {
		x->j++;
		fx_comma(x, reach, N, F);
		if (x->j < x->n && strcmp(x->w[x->j].text, ")") == 0)
			x->j++;
		else
			x->bad = 1;
	} else
		fx_primary(x, reach, N, F);
	x->depth--;
}

/* Whether x->j ends an "and" list: ")", "-o", "," or the end. */
static int
fx_and_ends(const struct fx *x)
{
	const char *a;

	if (x->j >= x->n)
		return 1;
	a = x->w[x->j].text;
	return strcmp(a, ")") == 0 || strcmp(a, "-o") == 0 ||
	    strcmp(a, "-or") == 0 || strcmp(a, ",") == 0;
}

/* a [-a] b ...: b is reached where a held. */
static void
fx_and(struct fx *x, enum fx_narrow reach, enum fx_narrow *N, enum fx_narrow *F)
{
	enum fx_narrow n2, f2;

	fx_unary(x, reach, N, F);
	while (!fx_and_ends(x)) {
		if (strcmp(x->w[x->j].text, "-a") == 0 ||
		    strcmp(x->w[x->j].text, "-and") == 0)
			x->j++;
		fx_unary(x, FX_MAX(reach, *N), &n2, &f2);
		*F = FX_MIN(*F, FX_MAX(*N, f2));
		*N = FX_MAX(*N, n2);
	}
}

/* a -o b ...: b is reached where a failed. */
static void
fx_or(struct fx *x, enum fx_narrow reach, enum fx_narrow *N, enum fx_narrow *F)
{
	enum fx_narrow n2, f2;

	fx_and(x, reach, N, F);
	while (x->j < x->n &&
	    (strcmp(x->w[x->j].text, "-o") == 0 ||
		strcmp(x->w[x->j].text, "-or") == 0)) {
		x->j++;
		fx_and(x, FX_MAX(reach, *F), &n2, &f2);
		*N = FX_MIN(*N, FX_MAX(*F, n2));
		*F = FX_MAX(*F, f2);
	}
}

/* a , b ...: each is reached; the list is what its last is. */
static void
fx_comma(
    struct fx *x, enum fx_narrow reach, enum fx_narrow *N, enum fx_narrow *F)
{
	fx_or(x, reach, N, F);
	while (x->j < x->n && strcmp(x->w[x->j].text, ",") == 0) {
		x->j++;
		fx_or(x, reach, N, F);
	}
}

/*
 * find's arguments as find reads them: the options -H, -L, -P, -D DEBUG
 * and -OLEVEL, the starting points (up to the first word that begins
 * with '-', '(' or '!'; none is "."), then the expression, read as find
 * reads it (operators "!", -not, -a, -and, -o, -or, "," and
 * parentheses, with their precedence; each primary with the words it
 * takes), for how far what is true before each action narrows the
 * files it applies to.  A test narrows when it holds a character a name
 * must have (-name '*.o', -type f, -empty ...), not when it may hold for
 * every file (-name '*', a negated test, the other side of an -o, a time
 * or a size), nor for certain.  The command of each -exec, -execdir, -ok
 * and -okdir is decided as a command for each starting point
 * (raise_find_exec): find -exec stays unresolvable, but "find / -exec
 * rm -rf {} +" is denied as rm -rf / is.  With -delete, each starting
 * point is removed as rm -r removes it: "rm -rf PLACE" to the rules that
 * ask or deny (raise_rm), but for the workspace itself where a test
 * narrows the files deleted ("find . -name '*.o' -delete" selects;
 * "find . -delete" and "find . ! -name x -delete" are rm -rf .; "find .
 * -mtime +9 -delete" cannot be told, and is unresolvable); so, after a
 * test that narrows, -exec's "{}" is a path beneath the workspace, not
 * the workspace ("find . -name '*.o' -exec rm -rf {} +").  At most 32
 * starting points are decided so; more are unresolvable, and so is an
 * expression find would refuse.
 */
static void
raise_find(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, struct one *o)
{
	static const struct shword dot = { (char *)".", 1, 0 };
	char wsn[4096];
	struct shword t[3];
	struct fx x;
	struct shword spw;
	char spf[4096];
	enum fx_narrow N, F;
	size_t j, k, s0, ns;
	int follow = 0;

	if (ws == NULL || lexical_path(ws, wsn, sizeof(wsn)) != 0)
		wsn[0] = '\0';

	for (j = 1; j < n && fixed(&w[j]); j++) {
		if (strcmp(w[j].text, "-D") == 0)
			j++;
		else if (strcmp(w[j].text, "-H") == 0 ||
		    strcmp(w[j].text, "-L") == 0 ||
		    strcmp(w[j].text, "-P") == 0)
			follow = w[j].text[1] == 'H' ? 1
			    : w[j].text[1] == 'L'    ? 2
						     : 0;
		else if (strncmp(w[j].text, "-O", 2) != 0)
			break;
	}
	for (s0 = j; j < n &&
	     !(fixed(&w[j]) && w[j].text[0] != '\0' &&
		 strchr("-(!", w[j].text[0]) != NULL);
	     j++)
		;
	ns = j - s0;
	if (ns > 32) {
		set_why(o, "find with more than 32 starting points");
		return;
	}
	for (k = j; k < n; k++)
		if (fixed(&w[k]) && strcmp(w[k].text, "-files0-from") == 0) {
			/* the starting points read from a file */
			set_why(o,
			    "find -files0-from reads its starting points from "
			    "a file");
			return;
		}
	memset(&x, 0, sizeof(x));
	x.r = r;
	x.w = w;
	x.n = n;
	x.j = j;
	x.sp = w + s0;
	x.ns = ns;
	x.ws = ws;
	x.wsn = wsn;
	x.o = o;
	x.del = FX_YES;
	while (x.j < n) {
		fx_comma(&x, FX_NO, &N, &F);
		if (x.j < n) { /* a stray ")" */
			x.bad = 1;
			x.j++;
		}
	}
	if (x.bad)
		set_why(o, "find with an expression find would not take");
	else
		o->words_read = 1;
	/* -L (or -follow) goes through each link beneath the starting
	   points; -H through the starting points themselves */
	if ((follow == 2 || x.follow_all) && (x.has_del || x.has_exec))
		set_why(o,
		    "find -L follows the links beneath its starting "
		    "points, which the rules do not see");
	if (!x.has_del || wsn[0] == '\0')
		return;
	if (x.del == FX_MAYBE)
		for (k = 0; k < (ns > 0 ? ns : 1); k++)
			if (find_is_workspace(ns > 0 ? &w[s0 + k] : &dot, wsn))
				set_why(o,
				    "find -delete of the workspace's files, "
				    "narrowed by a test the rules cannot "
				    "tell");
	memset(t, 0, sizeof(t));
	t[0].text = (char *)"rm";
	t[0].len = 2;
	t[1].text = (char *)"-rf";
	t[1].len = 3;
	for (k = 0; k < (ns > 0 ? ns : 1); k++) {
		spw = ns > 0 ? w[s0 + k] : dot;
		if ((follow > 0 || x.follow_all) && fixed(&spw) &&
		    (size_t)snprintf(spf, sizeof(spf), "%s/", spw.text) <
			sizeof(spf)) {
			spw.text = spf; /* followed, as "sp/" is */
			spw.len = strlen(spf);
		}
		raise_rm_operand(r, t, &spw, wsn, x.del != FX_NO, o);
	}
}

/*
 * A command with a word that names a file that runs later, outside any
 * sandbox (writepolicy_word_runs_on(): .envrc, .bashrc, .npmrc,
 * .git/hooks/pre-commit, "of=.envrc"), a directory where such a file is
 * read (writepolicy_runs_on_beneath(): "cp x .git/hooks", "cd
 * .git/hooks", "ln -s d .cargo"), or what sets one up
 * (writepolicy_word_sets_up(): crontab, git's core.hooksPath) is
 * unresolvable, whatever program writes it (cp, mv, ln, install, tee,
 * sed -i, dd, git config, a script), but for one that only reads or
 * prints what it names (cat .envrc).  |w| is the command after its
 * wrappers, |all| (|nall| words) with them.
 */
static void
check_runs_later(const struct shword *w, size_t n, const struct shword *all,
    size_t nall, struct one *o)
{
	/* programs that only read, print or remove what they name */
	static const char *const readers[] = { "cat", "head", "tail", "grep",
		"egrep", "fgrep", "rg", "ls", "stat", "wc", "echo", "printf",
		"test", "[", "rm", "rmdir", "unlink", "truncate", NULL };
	/* find's primaries that write the file they are given */
	static const char *const find_writes[] = { "-fprint", "-fprint0",
		"-fprintf", "-fls", NULL };
	const char *t, *eq;
	size_t i;
	int find, cmd = w != NULL && n > 0; /* else an assignment alone */

	if (cmd && fixed(&w[0]) && str_in_list(base_name(w[0].text), readers))
		return;
	/* find's words are its expression (-exec's command is decided as
	   a command): only the file of -fprint, -fprintf and -fls */
	find = cmd && fixed(&w[0]) && strcmp(base_name(w[0].text), "find") == 0;
	/* not the command word (gradle) nor a wrapper's */
	for (i = cmd ? 1 : 0; i < nall; i++) {
		t = all[i].text;
		eq = strchr(t, '=');
		if ((cmd && &all[i] == w) ||
		    (find && !str_in_list(all[i - 1].text, find_writes)))
			continue;
		/* a glob or pattern whose last component selects nothing in
		   particular: mv * sub/ */
		if (strpbrk(base_name(t), "*?[") != NULL &&
		    name_pattern_broad(base_name(t), FNM_PERIOD))
			continue;
		if (writepolicy_word_runs_on(t) != NULL ||
		    writepolicy_runs_on_beneath(t) != NULL ||
		    (eq != NULL && writepolicy_runs_on_beneath(eq + 1) != NULL))
			set_why(o,
			    "names what runs later, outside any sandbox "
			    "(%.40s)",
			    t);
		else if (writepolicy_word_sets_up(t) != NULL)
			set_why(o,
			    "sets up what runs later, outside any sandbox "
			    "(%.40s)",
			    t);
	}
}

/*
 * A command that writes, empties or removes the files it names (cp, mv,
 * ln, install, tee, truncate, unlink, patch, ...; uniq's output) with a
 * word the rules cannot read as written (a parameter, brace or
 * arithmetic expansion: "$f" of a loop, read or printf -v,
 * "${x:-.envrc}", {.envrc,x}) is unresolvable, as a redirection to such
 * a word is: the file may be one that runs later, or each file of the
 * workspace in turn.  A glob is read as a pattern (check_runs_later, the
 * removal readers).  |w| is the command after its wrappers.
 */
static void
check_written_words(const struct shword *w, size_t n, struct one *o)
{
	static const char *const writers[] = { "cp", "mv", "ln", "link",
		"install", "tee", "truncate", "unlink", "patch", "sponge", "dd",
		"rsync", NULL };
	size_t i, nops;
	int opts = 1;

	if (n == 0 || !fixed(&w[0]))
		return;
	/* uniq writes its second operand (an option's value counted as
	   one, which errs towards asking) */
	if (strcmp(base_name(w[0].text), "uniq") == 0)
		for (i = 1, nops = 0; i < n; i++)
			if (is_operand(w, i, &opts) && ++nops > 1 &&
			    !fixed(&w[i]) &&
			    (w[i].flags & SHW_NOT_FIXED) != SHW_GLOB)
				set_why(o,
				    "uniq names a file it writes by a word "
				    "that is not fixed (%.40s)",
				    w[i].text);
	if (!str_in_list(base_name(w[0].text), writers))
		return;
	/* install -d makes directories (raise_install reads its -m) */
	if (strcmp(base_name(w[0].text), "install") == 0)
		for (i = 1; i < n && fixed(&w[i]) && w[i].text[0] == '-'; i++)
			if (strcmp(w[i].text, "-d") == 0 ||
			    strcmp(w[i].text, "--directory") == 0)
				return;
	for (i = 1; i < n; i++)
		if ((w[i].flags &
			(SHW_PARAM | SHW_CMDSUB | SHW_ARITH | SHW_BRACE |
			    SHW_ANSIC)) != 0 &&
		    !pwd_prefixed(&w[i]))
			set_why(o,
			    "%s names a file it writes by a word that is not "
			    "fixed (%.40s)",
			    base_name(w[0].text), w[i].text);
}

/*
 * A program that writes files named inside what it reads, which the rules
 * cannot see: tar and bsdtar extracting (-x, --extract, --get, an
 * old-style "xf"; not to standard output, -O), cpio -i and -p, unzip but
 * for listing, testing or printing (-l, -t, -v, -p, -c, -z, -Z), 7z's x
 * and e, patch but for --dry-run, and git apply but for --check, --stat,
 * --numstat and --summary alone.  An archive's members or a patch's
 * files may be ones that run later, outside any sandbox (tar xf a.tar
 * lands its .envrc), or every file of the workspace: unresolvable.  |w|
 * is the command after its wrappers.
 */
static void
check_extracts(const struct shword *w, size_t n, struct one *o)
{
	static const char *const tars[] = { "tar", "bsdtar", "gtar", NULL };
	static const char *const sevenz[] = { "7z", "7za", "7zr", "7zz", NULL };
	const char *name, *a;
	size_t j, s;
	int x = 0, quiet = 0, opts = 1;

	if (n < 2 || !fixed(&w[0]))
		return;
	name = base_name(w[0].text);
	for (j = 1; j < n; j++) {
		a = w[j].text;
		if (!fixed(&w[j]))
			continue;
		if (strcmp(a, "--") == 0)
			opts = 0;
		if (str_in_list(name, tars)) {
			x |= opts &&
			    (long_opt(a, "--extract", 5) ||
				long_opt(a, "--get", 5) || short_opt(a, 'x') ||
				(j == 1 && a[0] != '-' &&
				    strchr(a, 'x') != NULL));
			quiet |= opts &&
			    (long_opt(a, "--to-stdout", 5) ||
				short_opt(a, 'O') ||
				(j == 1 && a[0] != '-' &&
				    strchr(a, 'O') != NULL));
		} else if (strcmp(name, "cpio") == 0)
			x |= opts &&
			    (long_opt(a, "--extract", 4) ||
				long_opt(a, "--pass-through", 3) ||
				short_opt(a, 'i') || short_opt(a, 'p'));
		else if (strcmp(name, "unzip") == 0) {
			x = 1;
			quiet |= opts && strcmp(a, "--") != 0 && a[0] == '-' &&
			    strpbrk(a + 1, "ltvpczZ") != NULL;
		} else if (str_in_list(name, sevenz))
			x |= j == 1 &&
			    (strcmp(a, "x") == 0 || strcmp(a, "e") == 0);
		else if (strcmp(name, "patch") == 0) {
			x = 1;
			quiet |= opts && long_opt(a, "--dry-run", 4);
		}
	}
	if (strcmp(name, "git") == 0 && (s = git_subcommand_at(w, n)) < n &&
	    fixed(&w[s]) && strcmp(w[s].text, "apply") == 0) {
		x = 1;
		for (j = s + 1; j < n; j++)
			if (fixed(&w[j]) && strcmp(w[j].text, "--apply") == 0) {
				quiet = 0;
				break;
			} else if (fixed(&w[j]) &&
			    (strcmp(w[j].text, "--check") == 0 ||
				strcmp(w[j].text, "--stat") == 0 ||
				strcmp(w[j].text, "--numstat") == 0 ||
				strcmp(w[j].text, "--summary") == 0))
				quiet = 1;
	}
	if (x && !quiet)
		set_why(o,
		    "%s writes files named inside what it reads, which the "
		    "rules cannot see (one may run later, outside any "
		    "sandbox)",
		    name);
}

/*
 * A decompressor writes each operand's name without its suffix (gunzip
 * .envrc.gz writes .envrc): gunzip, unxz, unlzma, bunzip2, unzstd,
 * uncompress, and gzip, xz, lzma, bzip2, zstd, lz4 and brotli with -d
 * (--decompress, --uncompress), but not to standard output (-c,
 * --stdout, -t, -l).  An operand whose name so stripped (of its last
 * '.' extension) runs later, outside any sandbox (a pattern too, but
 * one that selects nothing in particular: *.gz), is unresolvable, and
 * so is one that is not a fixed word or a glob ("$f"), and a name
 * given by a suffix option (-S) or stored inside (gzip -N, --name).  |w| is the command after its wrappers.
 */
static void
check_decompressed(const struct shword *w, size_t n, struct one *o)
{
	static const char *const always[] = { "gunzip", "unxz", "unlzma",
		"bunzip2", "unzstd", "uncompress", NULL };
	static const char *const with_d[] = { "gzip", "xz", "lzma", "bzip2",
		"zstd", "lz4", "brotli", NULL };
	char out[4096];
	const char *name, *a, *dot;
	size_t j;
	int d, opts = 1, stdout_ = 0, named = 0;

	if (n < 2 || !fixed(&w[0]))
		return;
	name = base_name(w[0].text);
	d = str_in_list(name, always);
	if (!d && !str_in_list(name, with_d))
		return;
	for (j = 1; j < n; j++) {
		a = w[j].text;
		if (!fixed(&w[j]) || !opts || a[0] != '-' || a[1] == '\0')
			continue;
		if (strcmp(a, "--") == 0) {
			opts = 0;
			continue;
		}
		d |= long_opt(a, "--decompress", 4) ||
		    long_opt(a, "--uncompress", 4) ||
		    (a[1] != '-' && short_opt(a, 'd'));
		stdout_ |= long_opt(a, "--stdout", 5) ||
		    long_opt(a, "--to-stdout", 5) || long_opt(a, "--test", 4) ||
		    long_opt(a, "--list", 4) ||
		    (a[1] != '-' &&
			(short_opt(a, 'c') || short_opt(a, 't') ||
			    short_opt(a, 'l')));
		named |= long_opt(a, "--name", 4) ||
		    long_opt(a, "--suffix", 4) ||
		    (a[1] != '-' && (short_opt(a, 'N') || short_opt(a, 'S')));
	}
	if (!d || stdout_)
		return;
	if (named) {
		set_why(o,
		    "%s names what it writes by a suffix or the name stored "
		    "inside",
		    name);
		return;
	}
	for (j = 1, opts = 1; j < n; j++) {
		if (!is_operand(w, j, &opts))
			continue;
		a = w[j].text;
		if ((w[j].flags & SHW_NOT_FIXED & ~SHW_GLOB) != 0) {
			set_why(o,
			    "%s writes a name the rules cannot read (%.40s, "
			    "decompressed)",
			    name, a);
			continue;
		}
		dot = strrchr(base_name(a), '.');
		if (dot == NULL || (size_t)(dot - a) >= sizeof(out))
			continue;
		memcpy(out, a, (size_t)(dot - a));
		out[dot - a] = '\0';
		/* a pattern that selects nothing in particular (*.gz) */
		if (strpbrk(base_name(out), "*?[") != NULL &&
		    name_pattern_broad(base_name(out), FNM_PERIOD))
			continue;
		if (writepolicy_word_runs_on(out) != NULL ||
		    writepolicy_runs_on_beneath(out) != NULL)
			set_why(o,
			    "names what runs later, outside any sandbox "
			    "(%.40s, decompressed)",
			    out);
	}
}

/*
 * rm's words, where each working directory it may run in is beneath the
 * workspace's top (!top_may_be_cwd: "cd build && rm -rf *"), matched by
 * the rules that ask or deny with each operand relative_to_cwd() as the
 * path from the top ("build/" and a star, which no rule names), for each
 * working directory, the strictest deciding (raise_sub's too); allow
 * rules stay literal.  raise_rm decides what the operands remove.
 */
static void
match_rm_from_cwds(const struct shell_rules *r, const struct shword *w,
    size_t n, struct one *o)
{
	struct shword *t = xcalloc(n, sizeof(*t));
	char **paths = xcalloc(n, sizeof(*paths));
	size_t c, i, j;
	int opts, m;

	for (c = 0; c < o->fc->ncwds; c++) {
		memcpy(t, w, n * sizeof(*t));
		for (j = 1, opts = 1; j < n; j++) {
			if (!is_operand(w, j, &opts) ||
			    !relative_to_cwd(&w[j], o))
				continue;
			free(paths[j]);
			(void)xasprintf(
			    &paths[j], "%s/%s", o->fc->cwds[c], w[j].text);
			t[j].text = paths[j];
			t[j].len = strlen(paths[j]);
		}
		raise_sub(r, t, n, o);
		if (c > 0) {
			raise_at(r, t, n, 1, o);
			continue;
		}
		for (i = 0; i < r->nrules; i++) {
			m = rule_match(&r->rules[i],
			    r->rules[i].decision == SHD_ALLOW ? w : t, n);
			if (m == 0)
				continue;
			if (m == 2)
				set_why(o,
				    "a word that is not fixed where rule %zu "
				    "looks",
				    i + 1);
			else {
				o->d = r->rules[i].decision;
				o->rule = (int)i;
			}
			break;
		}
	}
	for (j = 0; j < n; j++)
		free(paths[j]);
	free(paths);
	free(t);
}

static void
decide_words(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, struct one *o)
{
	/* programs that set a new file's mode by -m as chmod would */
	static const char *const setmode_progs[] = { "install", "mkdir",
		"mknod", "mkfifo", NULL };
	/* archivers that may remove what they archive */
	static const char *const archivers[] = { "tar", "zip", "7z", "7za",
		"7zr", "7zz", NULL };
	size_t i, start = 0, next;
	int m, rm_below;

	while (start < n && fixed(&w[start]) &&
	    (next = unwrap(w, n, start, o)) != start) {
		if (!system_path(w[start].text))
			set_why(o,
			    "a wrapper named by a path (%.40s) may be "
			    "another program",
			    w[start].text);
		start = next;
	}
	/* Also when the command is already unresolvable: a shell reading
	   standard input is matched as "NAME -" whatever else it holds
	   (sh -s >$x). */
	check_command(w + start, n - start, ws, start == 0, o);
	check_runs_later(w + start, n - start, w, n, o);
	o->words = w + start;
	o->nwords = n - start;
	o->d = r->dflt;
	o->rule = -1;
	rm_below = fixed(&w[start]) &&
	    strcmp(base_name(w[start].text), "rm") == 0 &&
	    !top_may_be_cwd(o->fc);
	if (rm_below)
		match_rm_from_cwds(r, w + start, n - start, o);
	for (i = 0; i < r->nrules && !rm_below; i++) {
		if ((m = rule_match(&r->rules[i], w + start, n - start)) == 0)
			continue;
		if (m == 2) {
			set_why(o,
			    "a word that is not fixed where rule %zu "
			    "looks",
			    i + 1);
			break;
		}
		o->d = r->rules[i].decision;
		o->rule = (int)i;
		break;
	}
	if (fixed(&w[start]) && !rm_below)
		raise_sub(r, w + start, n - start, o);
	if (fixed(&w[start]) && strcmp(base_name(w[start].text), "chmod") == 0)
		raise_chmod(r, w + start, n - start, o);
	/* unlink run for each file by find -exec is rm's */
	if (fixed(&w[start]) &&
	    (strcmp(base_name(w[start].text), "rm") == 0 ||
		(o->walked && strcmp(base_name(w[start].text), "unlink") == 0)))
		raise_rm(r, w + start, n - start, ws, o);
	if (fixed(&w[start]) &&
	    str_in_list(base_name(w[start].text), setmode_progs))
		raise_install(r, w + start, n - start, o);
	if (fixed(&w[start]) && strcmp(base_name(w[start].text), "find") == 0)
		raise_find(r, w + start, n - start, ws, o);
	if (fixed(&w[start]) &&
	    strcmp(base_name(w[start].text), "truncate") == 0)
		raise_truncate(r, w + start, n - start, ws, o);
	if (fixed(&w[start]) && strcmp(base_name(w[start].text), "mv") == 0)
		raise_mv(r, w + start, n - start, ws, o);
	if (fixed(&w[start]) &&
	    str_in_list(base_name(w[start].text), archivers))
		raise_archiver(r, w + start, n - start, ws, o);
	if (fixed(&w[start]) && strcmp(base_name(w[start].text), "tee") == 0)
		raise_tee(r, w + start, n - start, ws, o);
	if (fixed(&w[start]) && is_sed(base_name(w[start].text)))
		raise_sed_in_place(r, w + start, n - start, ws, o);
	if (fixed(&w[start]) && strcmp(base_name(w[start].text), "git") == 0)
		raise_git_rm(r, w + start, n - start, ws, o);
	/* busybox and toybox run the applet their first operand names
	   (busybox rm -rf /home): unresolvable, and the applet's words a
	   command of their own */
	if (fixed(&w[start]) &&
	    (strcmp(base_name(w[start].text), "busybox") == 0 ||
		strcmp(base_name(w[start].text), "toybox") == 0) &&
	    start + 1 < n &&
	    !(fixed(&w[start + 1]) && w[start + 1].text[0] == '-'))
		raise_by_argv(
		    r, w + start + 1, n - start - 1, ws, o->walked, o);
	/* after the readers above, whose reasons say more */
	check_written_words(w + start, n - start, o);
	check_extracts(w + start, n - start, o);
	check_decompressed(w + start, n - start, o);
	/* A program read from standard input or a descriptor is "-" to
	   the rules that ask or deny: "sh /dev/stdin", "bash -x" and
	   "python3 -u" read what "sh -" does. */
	if (o->stdin_prog) {
		struct shword t[2];

		t[0] = w[start];
		memset(&t[1], 0, sizeof(t[1]));
		t[1].text = (char *)"-";
		t[1].len = 1;
		for (i = 0; i < r->nrules; i++)
			if (r->rules[i].decision != SHD_ALLOW &&
			    r->rules[i].decision > o->d &&
			    rule_match(&r->rules[i], t, 2) == 1) {
				o->d = r->rules[i].decision;
				o->rule = (int)i;
			}
	}
	/* A shell running a script file is the script, with its
	   arguments, to the rules that ask or deny: "sh ./mvnw deploy" is
	   "./mvnw deploy". */
	if (o->script > 0 && o->script < n - start)
		raise_at(r, w + start + o->script, n - start - o->script, 1, o);
	/*
	 * What an unresolvable command runs is unknown, but where its words
	 * hold a command a rule asks about or denies (sudo rm -rf /, xargs
	 * git push), that rule raises the decision.
	 */
	for (i = start + 1; o->why != NULL && !o->words_read && i < n; i++) {
		size_t k;

		for (k = 0; k < r->nrules; k++)
			if (r->rules[k].decision > o->d &&
			    rule_match(&r->rules[k], w + i, n - i) == 1) {
				o->d = r->rules[k].decision;
				o->rule = (int)k;
			}
	}
	/* The wrapper itself may be named by a rule (sudo: deny). */
	if (o->rule == -1 && start > 0)
		for (i = 0; i < r->nrules; i++)
			if (rule_match(&r->rules[i], w, n) == 1 &&
			    r->rules[i].decision > o->d) {
				o->d = r->rules[i].decision;
				o->rule = (int)i;
				break;
			}
}

/* Raises *d to the strictest rule a command of |code| matches, the
   commands inside its commands counted against |budget| (raise_by_argv;
   NULL: each command's own); with |walked|, each command is run by find
   -exec for each file (struct one's walked). */
static void
raise_by_text_in(const struct shell_rules *r, const char *code, size_t len,
    const char *ws, int depth, size_t *budget, int walked, enum shdecision *d,
    int *rule)
{
	struct shparse *p;
	struct one sub;
	size_t i;

	(void)shparse(code, len, &p);
	for (i = 0; i < p->ncmds; i++) {
		decide_cmd(
		    r, &p->cmds[i], ws, NULL, &sub, depth + 1, budget, walked);
		if (sub.rule >= 0 && sub.d > *d) {
			*d = sub.d;
			*rule = sub.rule;
		}
	}
	shparse_free(p);
}

/* Raises *d to the strictest rule a command of |code| matches. */
static void
raise_by_text(const struct shell_rules *r, const char *code, size_t len,
    const char *ws, int depth, enum shdecision *d, int *rule)
{
	raise_by_text_in(r, code, len, ws, depth, NULL, 0, d, rule);
}

/* Raises *d by the words w[0..n) joined by blanks, read as code text. */
static void
raise_by_words(const struct shell_rules *r, const struct shword *w, size_t n,
    const char *ws, int depth, enum shdecision *d, int *rule)
{
	char *code;
	size_t j, len;

	for (len = 0, j = 0; j < n; j++)
		len += w[j].len + 1;
	code = xreallocarray(NULL, len + 1, 1);
	for (len = 0, j = 0; j < n; j++) {
		memcpy(code + len, w[j].text, w[j].len);
		len += w[j].len;
		code[len++] = ' ';
	}
	raise_by_text(r, code, len, ws, depth, d, rule);
	free(code);
}

/* Raises *d by each fixed word of w[1..n) that reads as code: one that
   holds a blank, an operator character or a substitution.  Of a
   NAME=VALUE or --NAME=VALUE word, the value is read (alias x='sudo
   id', --exec='sudo id'); each byte once. */
static void
raise_by_words_as_code(const struct shell_rules *r, const struct shword *w,
    size_t n, const char *ws, int depth, enum shdecision *d, int *rule)
{
	static const char code[] = " \t\n;&|<>()`$";
	const char *t;
	size_t j, eq;

	for (j = 1; j < n; j++) {
		if (!fixed(&w[j]) || strpbrk(w[j].text, code) == NULL)
			continue;
		t = w[j].text;
		eq = strcspn(t, "=");
		if (t[eq] == '=' && strcspn(t, code) > eq)
			raise_by_text(r, t + eq + 1, w[j].len - eq - 1, ws,
			    depth, d, rule);
		else
			raise_by_text(r, t, w[j].len, ws, depth, d, rule);
	}
}

/* Raises *d by the here-documents and here-strings of |c|: the program
   of a shell that reads it from standard input or a descriptor. */
static void
raise_by_input(const struct shell_rules *r, const struct shcmd *c,
    const char *ws, int depth, enum shdecision *d, int *rule)
{
	const struct shredir *rd;
	size_t i;

	for (i = 0; c != NULL && i < c->nredirs; i++) {
		rd = &c->redirs[i];
		if (rd->op == SHR_HEREDOC && rd->body.text != NULL)
			raise_by_text(
			    r, rd->body.text, rd->body.len, ws, depth, d, rule);
		else if (rd->op == SHR_HERESTR && fixed(&rd->target))
			raise_by_text(r, rd->target.text, rd->target.len, ws,
			    depth, d, rule);
	}
}

/* The index of the code word of a shell's words w[0..n) after its -c
   (in a cluster: -ec), or 0. */
static size_t
shell_code_at(const struct shword *w, size_t n)
{
	size_t j;

	for (j = 1; j + 1 < n; j++)
		if (fixed(&w[j]) && w[j].text[0] == '-' &&
		    strchr(w[j].text, 'c') != NULL &&
		    strncmp(w[j].text, "--", 2) != 0)
			return j + 1;
	return 0;
}

/* Whether the fixed word |w| reads the same wherever it is spliced into
   shell code (no blank, quote, operator or expansion character). */
static int
splices_plainly(const struct shword *w)
{
	return fixed(w) &&
	    strspn(w->text,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789._/+,=:@%{}-") == w->len;
}

/*
 * Raises *d by the code of sh -c CODE NAME ARG... with its positional
 * parameters ($0 NAME, $1 ..., "$@", $*, ${N}) replaced by the words
 * given ("find . -exec sh -c 'rm -rf "$1"' _ {} \;" removes the
 * starting point): outside single quotes, where each word given splices
 * plainly (else the parameter is left as written).  With |walked| (the
 * shell run by find -exec for each file) the code's commands are too:
 * "find . -exec sh -c 'rm "$1"' _ {} \;" is find . -exec rm {} \;, rm
 * -r of the starting point.  Raising only: the code as written is
 * decided too.
 */
static void
raise_by_shell_args(const struct shell_rules *r, const char *code, size_t len,
    const struct shword *args, size_t nargs, const char *ws, int depth,
    size_t *budget, int walked, enum shdecision *d, int *rule)
{
	char *out;
	size_t i, k, o = 0, cap = len + 1, m, num;
	int sq = 0, dq = 0, all;

	/* each '$' may become every word given, with "" " between */
	for (m = 0, k = 0; k < nargs; k++)
		m += args[k].len + 3;
	for (i = 0; i < len; i++)
		if (code[i] == '$' && (cap += m) > 65536)
			return;
	out = xreallocarray(NULL, cap, 1);
	for (i = 0; i < len; i++) {
		if (sq || code[i] != '$' || i + 1 >= len) {
			if (code[i] == '\'' && !dq)
				sq = !sq;
			else if (code[i] == '"' && !sq)
				dq = !dq;
			else if (code[i] == '\\' && !sq && i + 1 < len)
				out[o++] = code[i++];
			out[o++] = code[i];
			continue;
		}
		/* $N, ${N}, $@, $* */
		m = 1;
		if (code[i + 1] == '{' && i + 2 < len &&
		    isdigit((unsigned char)code[i + 2]))
			m = 2;
		all = m == 1 && (code[i + 1] == '@' || code[i + 1] == '*');
		if (!all && !isdigit((unsigned char)code[i + m])) {
			out[o++] = code[i];
			continue;
		}
		num = all ? 1 : strtoul(code + i + m, NULL, 10);
		k = i + m +
		    (all	     ? 1
			    : m == 1 ? 1
				     : strspn(code + i + m, "0123456789"));
		if (m == 2 && (k >= len || code[k] != '}')) {
			out[o++] = code[i];
			continue;
		}
		k += m == 2;
		for (m = num; m < (all ? nargs : num + 1); m++)
			if (m < nargs && !splices_plainly(&args[m]))
				break;
		if (m < (all ? nargs : num + 1)) {
			out[o++] = code[i];
			continue; /* left as written */
		}
		for (m = num; m < (all ? nargs : num + 1) && m < nargs; m++) {
			if (m > num) {
				if (dq)
					out[o++] = '"';
				out[o++] = ' ';
				if (dq)
					out[o++] = '"';
			}
			memcpy(out + o, args[m].text, args[m].len);
			o += args[m].len;
		}
		i = k - 1;
	}
	raise_by_text_in(r, out, o, ws, depth, budget, walked, d, rule);
	free(out);
}

/*
 * Code text run by an unresolvable command, at its start or behind a
 * wrapper the rules do not see through: sh -c 'CODE' (xargs sh -c
 * 'CODE', find -exec sh -c 'CODE' ;), eval's words joined by blanks,
 * trap 'CODE' ..., npm exec -c 'CODE' (also --call and pnpm's
 * --shell-mode, the words after it joined), and the here-document or
 * here-string that a shell reading standard input or a descriptor runs
 * (bash <<EOF, source /dev/stdin <<EOF).  Any other unresolvable
 * command's words that read as code (a blank, an operator character, a
 * substitution) are read as code text too: a wrapper or builtin may run
 * them through a shell (watch 'CODE', script -c, flock -c, parallel,
 * env -S, mapfile -C and compgen -C's callbacks, bash's subscript in
 * test -v 'a[$(CODE)]').  The code is unresolvable as a
 * whole (the shell may be another one, with other options), but a
 * command in it that a rule asks about or denies still raises the
 * decision: eval 'sudo id' is denied as sudo id is.  Each word is read
 * once at each level, and |depth| bounds nesting, so that the work stays
 * linear in the string.
 */
static void
raise_by_code(const struct shell_rules *r, const struct shcmd *c,
    const struct one *o, const char *ws, int depth, enum shdecision *d,
    int *rule)
{
	static const char *const npms[] = { "npm", "npx", "pnpm", "pnpx",
		"yarn", NULL };
	const struct shword *w;
	const char *name;
	size_t j, k, n;

	if (depth > 4)
		return;
	if (o->stdin_prog) {
		raise_by_input(r, c, ws, depth, d, rule);
		return;
	}
	for (k = 0; k < o->nwords; k++) {
		w = o->words + k;
		n = o->nwords - k;
		if (!fixed(&w[0]))
			continue;
		name = base_name(w[0].text);
		if (strcmp(name, "eval") == 0) {
			raise_by_words(r, w + 1, n - 1, ws, depth, d, rule);
			return;
		}
		if (strcmp(name, "trap") == 0) {
			j = n > 1 && strcmp(w[1].text, "--") == 0 ? 2 : 1;
			if (j < n && fixed(&w[j]))
				raise_by_text(
				    r, w[j].text, w[j].len, ws, depth, d, rule);
			return;
		}
		if ((strcmp(name, "source") == 0 || strcmp(name, ".") == 0) &&
		    n > 1 && fixed(&w[1]) && fd_path(w[1].text)) {
			raise_by_input(r, c, ws, depth, d, rule);
			return;
		}
		/* sed's e command and s///e flag run their text */
		if (is_sed(name)) {
			struct sedraise sr = { r, ws, depth, d, rule };

			check_sed(w, n, NULL, &sr);
			return;
		}
		/* dc's "!" runs the rest of its line */
		if (strcmp(name, "dc") == 0) {
			for (j = 1; j < n; j++) {
				const char *t = w[j].text, *e;

				while (fixed(&w[j]) &&
				    (t = strchr(t, '!')) != NULL) {
					e = t + 1 + strcspn(t + 1, "\n");
					raise_by_text(r, t + 1, e - t - 1, ws,
					    depth, d, rule);
					t = e;
				}
			}
			return;
		}
		if (str_in_list(name, npms)) {
			for (j = 1; j < n; j++) {
				const char *a = w[j].text;

				if (strncmp(a, "--call=", 7) == 0) {
					raise_by_text(r, a + 7, w[j].len - 7,
					    ws, depth, d, rule);
					return;
				}
				if (strcmp(a, "-c") == 0 ||
				    strcmp(a, "--call") == 0 ||
				    strcmp(a, "--shell-mode") == 0) {
					raise_by_words(r, w + j + 1, n - j - 1,
					    ws, depth, d, rule);
					return;
				}
			}
			return;
		}
		if (!is_shell(name))
			continue;
		if (k > 0)
			raise_by_words_as_code(
			    r, o->words, k, ws, depth, d, rule);
		j = shell_code_at(w, n);
		if (j > 0 && fixed(&w[j])) {
			raise_by_text(
			    r, w[j].text, w[j].len, ws, depth, d, rule);
			raise_by_shell_args(r, w[j].text, w[j].len, w + j + 1,
			    n - j - 1, ws, depth, NULL, 0, d, rule);
		}
		return;
	}
	raise_by_words_as_code(r, o->words, o->nwords, ws, depth, d, rule);
}

static void
decide_cmd(const struct shell_rules *r, const struct shcmd *c, const char *ws,
    struct fsctx *fc, struct one *o, int depth, size_t *budget, int walked)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->walked = walked;
	o->budget = budget;
	o->fc = fc;
	o->code_depth = depth;
	o->why = c->why;
	o->d = r->dflt;
	o->rule = -1;
	for (i = 0; i < c->nassigns; i++) {
		/* f=.envrc; cp x $f */
		check_runs_later(NULL, 0, &c->assigns[i], 1, o);
		check_assignment(&c->assigns[i], o);
		check_arith_word(&c->assigns[i], o);
		check_locale_word(&c->assigns[i], o);
	}
	for (i = 0; i < c->nwords; i++) {
		if (c->words[i].flags & SHW_CMDSUB)
			set_why(o, "a command or process substitution");
		check_arith_word(&c->words[i], o);
		check_locale_word(&c->words[i], o);
	}
	for (i = 0; i < c->nredirs; i++) {
		check_arith_word(&c->redirs[i].target, o);
		if ((c->redirs[i].body.flags & SHW_QUOTED) == 0)
			check_arith_word(&c->redirs[i].body, o);
		check_locale_word(&c->redirs[i].target, o);
	}
	check_redirs(c, ws, o);
	/* "for NAME in ...": NAME is set */
	if (c->header && c->nwords > 0)
		check_set_name(c->words[0].text, o);
	if (c->header) {
		o->words = c->words;
		o->nwords = c->nwords;
	} else if (c->nwords > 0)
		decide_words(r, c->words, c->nwords, ws, o);
	else {
		o->words = c->assigns;
		o->nwords = c->nassigns;
	}
	if (o->why != NULL)
		raise_by_code(r, c, o, ws, depth, &o->d, &o->rule);
	if (o->why != NULL && o->d < r->unresolvable) {
		o->d = r->unresolvable;
		o->rule = -2;
	}
}

/* ---- verdicts ---- */

static void
safe_join(char *out, size_t outlen, const struct shword *w, size_t n)
{
	size_t i, k, o = 0;

	for (i = 0; i < n && o + 1 < outlen; i++) {
		if (i > 0)
			out[o++] = ' ';
		for (k = 0; k < w[i].len && o + 1 < outlen; k++) {
			unsigned char ch = (unsigned char)w[i].text[k];

			out[o++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
		}
	}
	out[o < outlen ? o : outlen - 1] = '\0';
	if (o + 1 >= outlen && outlen > 4)
		memcpy(out + outlen - 4, "...", 4);
}

static void
rule_text(const struct shrule *r, char *out, size_t outlen)
{
	size_t i, k, o = 0;
	int n;

	out[0] = '\0';
	for (i = 0; i < r->nprefix; i++)
		for (k = 0; k < r->prefix[i].nalts; k++) {
			n = snprintf(out + o, outlen - o, "%s%s",
			    k > 0	? "|"
				: i > 0 ? " "
					: "",
			    r->prefix[i].alts[k]);
			if (n < 0 || (size_t)n >= outlen - o)
				return;
			o += (size_t)n;
		}
}

static void
verdict_from(
    const struct shell_rules *r, const struct one *o, struct shverdict *v)
{
	char rt[128];

	v->decision = o->d;
	v->rule = o->rule;
	safe_join(v->command, sizeof(v->command), o->words, o->nwords);
	if (o->rule >= 0) {
		rule_text(&r->rules[o->rule], rt, sizeof(rt));
		snprintf(v->reason, sizeof(v->reason), "rule %d (%s): %s",
		    o->rule + 1, rt, shdecision_name(o->d));
	} else if (o->rule == -2)
		snprintf(v->reason, sizeof(v->reason), "unresolvable: %s: %s",
		    o->why, shdecision_name(o->d));
	else
		snprintf(v->reason, sizeof(v->reason),
		    "no rule matched: "
		    "default: %s",
		    shdecision_name(o->d));
}

/*
 * A string the parser cannot follow (case, ((...)), a quote bash and
 * dash end at different places, an unterminated group ...) is
 * unresolvable as a whole, but the shell may still run a command in it
 * that a rule denies: "case x in *) sudo id;; esac".  Its words, read
 * loosely (quotes and backslashes dropped, split at blanks and at every
 * operator character), raise *v to the strictest rule above it that
 * matches at any position, as an unresolvable command's words do.  At
 * most SHPARSE_MAX_WORDS words are read.
 */
static void
raise_loosely(const struct shell_rules *r, const char *cmd, size_t len,
    struct shverdict *v)
{
	struct shword *w;
	char *buf;
	size_t i, k, n = 0, o = 0;
	int in = 0;

	buf = xreallocarray(NULL, len + 1, 1);
	w = xreallocarray(NULL, SHPARSE_MAX_WORDS, sizeof(*w));
	for (i = 0; i <= len && n < SHPARSE_MAX_WORDS; i++) {
		unsigned char c = i < len ? (unsigned char)cmd[i] : ' ';

		if (c == '\'' || c == '"' || c == '\\')
			continue;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\0' ||
		    strchr(";&|()<>`{}", c) != NULL) {
			if (in) {
				buf[o++] = '\0';
				w[n].len = strlen(w[n].text);
				n++;
				in = 0;
			}
			continue;
		}
		if (!in) {
			memset(&w[n], 0, sizeof(w[n]));
			w[n].text = buf + o;
			in = 1;
		}
		buf[o++] = (char)c;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < r->nrules; k++)
			if (r->rules[k].decision > v->decision &&
			    rule_match(&r->rules[k], w + i, n - i) == 1) {
				struct one o1;

				memset(&o1, 0, sizeof(o1));
				o1.d = r->rules[k].decision;
				o1.rule = (int)k;
				o1.words = w + i;
				o1.nwords = n - i;
				verdict_from(r, &o1, v);
			}
	free(w);
	free(buf);
}

/*
 * Whether a cd of the string |p| goes where its words say, for all the
 * string may do to the shell: no function (cd() ...), alias, enable -n
 * cd, shopt's cdable_vars, DEBUG trap, set or eval and the like, nor a
 * command word that is not fixed, may make cd another command or go
 * elsewhere.
 */
static int
cd_as_written(const struct shparse *p)
{
	static const char *const shell_state[] = { "alias", "enable", "shopt",
		"set", "trap", "eval", "source", ".", "declare", "typeset",
		"local", "export", "readonly", "builtin", "command", "exec",
		"unset", "hash", NULL };
	const struct shcmd *c;
	size_t i;

	for (i = 0; i < p->ncmds; i++) {
		c = &p->cmds[i];
		if (c->why != NULL ||
		    (c->nwords > 0 &&
			(!fixed(&c->words[0]) ||
			    str_in_list(c->words[0].text, shell_state))))
			return 0;
	}
	return 1;
}

/*
 * The working directories of cmds[i], where it runs only after the cd
 * just before it succeeded in this shell ("cd build && rm -rf *", struct
 * shcmd's sep) and that cd went to the working directories
 * fc->cwds[from..to) (follow_cd): only those, into fc, with the others
 * kept in |saved| (restore_cwds).  Returns whether it did.
 */
static int
cwds_after_cd(const struct shparse *p, size_t i, int as_written, size_t from,
    size_t to, struct fsctx *fc, char (*saved)[1024], size_t *nsaved)
{
	if (fc == NULL || fc->lost || !as_written || i == 0 ||
	    p->cmds[i].sep != SHSEP_AND || p->cmds[i - 1].sep == SHSEP_OTHER ||
	    from >= to)
		return 0;
	memcpy(saved, fc->cwds, sizeof(fc->cwds));
	*nsaved = fc->ncwds;
	memmove(fc->cwds, fc->cwds + from, (to - from) * sizeof(fc->cwds[0]));
	fc->ncwds = to - from;
	return 1;
}

/* Decides |cmd| as |dialect| reads it. */
static void
decide_string(const struct shell_rules *r, const char *cmd, size_t len,
    const char *ws, const struct shfs *fs, int dialect, struct shverdict *v)
{
	struct shparse *p;
	struct fsctx *fc = NULL;
	struct one o;
	char wsn[4096], saved[CWDS_MAX][1024];
	size_t i, from = 0, to = 0, nsaved;
	int rc, have = 0, as_written, moved;

	memset(v, 0, sizeof(*v));
	if (fs != NULL) {
		fc = xcalloc(1, sizeof(*fc));
		fc->fs = fs;
		fc->ncwds = 1;
	}
	rc = shparse_as(cmd, len, dialect, &p);
	if (fc != NULL) {
		/* the links the string makes, before any command runs */
		if (ws == NULL || lexical_path(ws, wsn, sizeof(wsn)) != 0)
			fc->links_lost = 1;
		for (i = 0; i < p->ncmds && !fc->links_lost; i++) {
			follow_links(&p->cmds[i], wsn, fc);
			follow_cd(&p->cmds[i], ws, fc);
		}
		fc->ncwds = 1;
		fc->lost = 0;
		fc->cwds[0][0] = '\0';
	}
	as_written = cd_as_written(p);
	for (i = 0; i < p->ncmds; i++) {
		const struct shcmd *c = &p->cmds[i];

		moved = cwds_after_cd(
		    p, i, as_written, from, to, fc, saved, &nsaved);
		decide_cmd(r, c, ws, fc, &o, 0, NULL, 0);
		if (moved) {
			memcpy(fc->cwds, saved, sizeof(fc->cwds));
			fc->ncwds = nsaved;
		}
		from = fc != NULL ? fc->ncwds : 0;
		follow_cd(c, ws, fc);
		to = fc != NULL ? fc->ncwds : 0;
		if (c->header && o.why == NULL)
			continue; /* "for x in a b": runs nothing */
		if (!have || o.d > v->decision) {
			verdict_from(r, &o, v);
			have = 1;
		}
	}
	if (rc != 0 && (!have || r->unresolvable > v->decision)) {
		v->decision = r->unresolvable;
		v->rule = -2;
		snprintf(v->command, sizeof(v->command), "%s", "");
		snprintf(v->reason, sizeof(v->reason),
		    "unresolvable: the "
		    "shell parser cannot follow it (%s): %s",
		    p->err, shdecision_name(r->unresolvable));
		have = 1;
	}
	if (rc != 0)
		raise_loosely(r, cmd, len, v);
	if (!have) {
		v->decision = r->dflt;
		v->rule = -1;
		snprintf(v->reason, sizeof(v->reason),
		    "no command: default: "
		    "%s",
		    shdecision_name(r->dflt));
	}
	shparse_free(p);
	for (i = 0; fc != NULL && i < fc->nlinks; i++) {
		free(fc->links[i].name);
		free(fc->links[i].target);
	}
	free(fc);
}

/* The stricter of the readings of bash and dash, where they differ. */
enum shdecision
shrules_decide_fs(const struct shell_rules *r, const char *cmd, size_t len,
    const char *ws, const struct shfs *fs, struct shverdict *v)
{
	struct shverdict dash;

	decide_string(r, cmd, len, ws, fs, SHPARSE_BASH, v);
	if (shparse_dialects_differ(cmd, len)) {
		decide_string(r, cmd, len, ws, fs, SHPARSE_DASH, &dash);
		if (dash.decision > v->decision)
			*v = dash;
	}
	return v->decision;
}

enum shdecision
shrules_decide(const struct shell_rules *r, const char *cmd, size_t len,
    const char *ws, struct shverdict *v)
{
	return shrules_decide_fs(r, cmd, len, ws, NULL, v);
}

enum shdecision
shrules_decide_argv(const struct shell_rules *r, char *const *argv, size_t argc,
    const char *ws, struct shverdict *v)
{
	struct shword *w;
	struct one o;
	size_t i;

	memset(v, 0, sizeof(*v));
	w = calloc(argc + 1, sizeof(*w));
	if (w == NULL) {
		v->decision = SHD_DENY;
		return SHD_DENY;
	}
	for (i = 0; i < argc; i++) {
		w[i].text = argv[i];
		w[i].len = strlen(argv[i]);
	}
	memset(&o, 0, sizeof(o));
	o.d = r->dflt;
	o.rule = -1;
	if (argc > 0)
		decide_words(r, w, argc, ws, &o);
	if (o.why != NULL && o.d < r->unresolvable) {
		o.d = r->unresolvable;
		o.rule = -2;
	}
	verdict_from(r, &o, v);
	free(w);
	return v->decision;
}

static void
print_word(FILE *fp, const char *s)
{
	const char *p;

	fputc('"', fp);
	for (p = s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(fp, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			fprintf(fp, "\\x%02x", (unsigned char)*p);
		else
			fputc(*p, fp);
	}
	fputc('"', fp);
}

void
shrules_print(const struct shell_rules *r, FILE *fp, int indent)
{
	size_t i, j, k;

	if (r == NULL)
		return;
	fprintf(fp, "%*sdefault: %s\n", indent, "", shdecision_name(r->dflt));
	fprintf(fp, "%*sunresolvable: %s\n", indent, "",
	    shdecision_name(r->unresolvable));
	fprintf(fp, "%*srules:%s\n", indent, "", r->nrules == 0 ? " []" : "");
	for (i = 0; i < r->nrules; i++) {
		const struct shrule *ru = &r->rules[i];

		fprintf(fp, "%*s  - prefix: [", indent, "");
		for (j = 0; j < ru->nprefix; j++) {
			if (j > 0)
				fputs(", ", fp);
			if (ru->prefix[j].nalts == 1) {
				print_word(fp, ru->prefix[j].alts[0]);
				continue;
			}
			fputc('[', fp);
			for (k = 0; k < ru->prefix[j].nalts; k++) {
				if (k > 0)
					fputs(", ", fp);
				print_word(fp, ru->prefix[j].alts[k]);
			}
			fputc(']', fp);
		}
		fprintf(fp, "]\n%*s    decision: %s\n", indent, "",
		    shdecision_name(ru->decision));
		if (ru->exact)
			fprintf(fp, "%*s    exact: true\n", indent, "");
		if (ru->anywhere)
			fprintf(fp, "%*s    anywhere: true\n", indent, "");
		if (ru->comment != NULL) {
			fprintf(fp, "%*s    comment: ", indent, "");
			print_word(fp, ru->comment);
			fputc('\n', fp);
		}
	}
}

void
shrules_free(struct shell_rules *r)
{
	size_t i, j, k;

	if (r == NULL)
		return;
	for (i = 0; i < r->nrules; i++) {
		for (j = 0; j < r->rules[i].nprefix; j++) {
			for (k = 0; k < r->rules[i].prefix[j].nalts; k++)
				free(r->rules[i].prefix[j].alts[k]);
			free(r->rules[i].prefix[j].alts);
		}
		free(r->rules[i].prefix);
		free(r->rules[i].comment);
	}
	free(r->rules);
	free(r);
}
