/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * shrules: allow / ask / deny rules for the command strings of an exec
 * tool, decided on the simple commands the string would run
 * (policy/shparse.h), never on its text.  Pure: no I/O.
 *
 * A rule is a prefix of words; each element is one word or a set of
 * alternatives.  A simple command matches a rule when its first words,
 * after quote removal, leading VAR=value assignments and the wrappers
 * env, command, nice, nohup, timeout, time and stdbuf (with their own
 * options) are set aside, equal the prefix (with "exact", no more words
 * follow; with "anywhere", an ask or deny rule's words after the first may
 * be found at any later positions, in order: "mvn clean deploy" is
 * [mvn, deploy]; also by a word's last ':' or '/' component, in sbt's
 * ';'-separated commands, and as Gradle abbreviates a task: ":app:publish",
 * "pTS").  A shell running a script file is also the script with its
 * arguments.  chmod's mode is read as chmod reads it: one that sets
 * the setuid or setgid bit is "chmod u+s" (or g+s) to ask and deny
 * rules, and so is the -m of install, mkdir, mknod and mkfifo; rm's
 * arguments as rm reads them: a recursive removal is "rm -rf PLACE" for
 * each operand, PLACE the directory removed ("." the workspace by any
 * name, "$PWD/" too, ".." above it, "/" the root; a glob whose last
 * component selects nothing in particular, matching a quarter of the
 * names a workspace commonly holds, its directory: "rm -rf src/../" and
 * a star is rm -rf .), and so is find -delete's starting point (not the
 * workspace where a test that narrows holds before it, find's
 * expression read as find reads it: "find . ! -name x -delete", "-name
 * '*[a-z]*'", "-type f" and "-size -100G" are rm -rf .; a test the
 * rules cannot tell, -mtime +7, is unresolvable); the command of find
 * -exec (each {} the starting point; a sh -c's $1, "$@" the words
 * given) and busybox's applet are
 * decided as commands by ask and deny rules, find and busybox staying
 * unresolvable (so is find with -files0-from, more than 32 starting
 * points, an expression find refuses, or -L or -follow with -delete or
 * -exec, and a command holding more than 16384 words of such commands;
 * find -H's starting points are followed; of a find whose expression
 * was read, no word but -exec's command is a command).  Other removals
 * are "rm -rf PLACE" too: rm without -r, truncate to a size that may
 * shrink and git rm without -r, of a glob that selects nothing in
 * particular, its directory (rm -f * is rm -rf .); mv to a destination
 * outside the workspace, each source (unresolvable where that
 * destination, or truncate's size, is not a fixed word, or where |fs| or
 * a link the string makes says the destination leads through a symlink,
 * and a rule would ask or deny); git rm -r, and a pathspec git globs, each pathspec; an
 * rm, truncate, tee, mv, git rm or zip -m that find -exec runs is recursive (find .
 * -exec rm {} + is rm -r ., and so is a shell's code find -exec runs
 * with the path given: sh -c 'rm "$1"' _ {}); tar --remove-files, zip
 * -m and 7z -sdel, each word that is no option (recursive but for zip
 * without -r; names relative to another directory or read from a file:
 * unresolvable); tee without -a, as truncate -s0; sed -i without a
 * suffix, unresolvable where truncate -s0 of its files would be asked
 * about or denied; an unquoted expansion a non-recursive removal names,
 * as written (truncate -s0 $f, as rm -f $f); git clean of the workspace,
 * which removes what git does not track, is unresolvable.  The
 * command word
 * also matches by its last path component
 * and the rule's ("/usr/bin/git" is "git"), except for allow rules.  The first rule that
 * matches decides; no rule: the default.  A command the rules cannot see
 * through (shrules_decide's list of causes) is "unresolvable", which is
 * never allow.  The string's decision is the strictest of its commands'
 * (deny > ask > allow); an empty string gets the default.  Where bash and
 * dash read the string differently ("&>"), the stricter reading counts.
 */
#ifndef AIRLOCK_SHRULES_H
#define AIRLOCK_SHRULES_H

#include <stddef.h>
#include <stdio.h>

/* In order of strictness. */
enum shdecision {
	SHD_ALLOW,
	SHD_ASK,
	SHD_DENY,
};

struct shrule_elem {
	char **alts; /* NULL-terminated, at least one */
	size_t nalts;
};

struct shrule {
	struct shrule_elem *prefix;
	size_t nprefix;
	int exact; /* no further words */
	int anywhere; /* prefix[1..] at any later words, in order */
	enum shdecision decision;
	char *comment; /* may be NULL */
	int line; /* in the manifest */
};

struct shell_rules {
	struct shrule *rules;
	size_t nrules;
	enum shdecision dflt; /* no rule matched */
	enum shdecision unresolvable; /* ASK or DENY, never ALLOW */
};

/* What decided a string. */
struct shverdict {
	enum shdecision decision;
	int rule; /* index of the deciding rule, -1: the
					   default, -2: unresolvable */
	char command[160]; /* the deciding command's words (or
					   the string's head), vis-safe
					   ASCII */
	char reason[256]; /* "rule 3 (git push): ask",
					   "unresolvable: eval runs code text",
					   ... */
};

/*
 * Decides |len| bytes of |cmd| under |r|.  |workspace| is the absolute
 * path of the workspace (redirection targets must stay beneath it).
 * Returns the decision, also in v->decision.  Unresolvable, besides a
 * parse error: command or process substitution anywhere in a command; an
 * expansion, glob, brace, tilde, $'...' or non-ASCII byte in the command
 * word; an assignment that changes how commands are found or run (PATH,
 * ENV, BASH_ENV, IFS, LD_*, HOME, BASH_CMDS, ...), however it is set
 * (NAME+=, export, read, for NAME, printf -v, ${NAME:=}, set -k,
 * wait -p) or unset; an assignment to bash's integer variables (RANDOM,
 * SRANDOM, OPTIND, HISTCMD) of what may not be a number (bash evaluates
 * it as arithmetic); bash's history expansion turned on (set -H, set -o
 * history), which rewrites the lines that follow; bash's jobs -x; a word
 * that is not fixed given to a builtin that takes variables' names
 * (export $x, unset P*), but for an unquoted NAME=... given to export
 * and the like named plainly; printf -v or test -v with a name bash
 * evaluates, or a word that may be one among printf's options or in test;
 * eval, exec, source, ., alias, trap, builtin, hash, enable, fc, a
 * function definition; wrappers that run
 * another command they are not seen through (sudo, doas, su, xargs,
 * find -exec, chroot, setsid, flock, watch, nsenter, unshare, busybox,
 * ...); a wrapper seen through whose option value or operand is not a
 * fixed word (timeout -- $x, nice -n $x), or that is named by a path
 * other than /bin or /usr/bin (./nohup); a shell with -c or -s or
 * reading a script from stdin; an
 * interpreter with a code option (python -c, node -e, perl -e, ruby -e,
 * php -r, guile -c, ...) or none at all; dc -e and gnuplot -e, or with
 * no file; emacs --eval, -l, --load, --script, -x, -f; install
 * --strip-program or a mode that is not a fixed word; mvn
 * -Dexec.executable=; a sed (or gsed) script that runs
 * commands (e, s///e; its text is read as code), read from a file (-f)
 * or not readable; awk; an option that
 * runs a command (git --upload-pack, rebase -x, make --eval, -f or NAME:=, tar
 * --to-command, sort --compress-program, ..., also abbreviated) or an
 * argument of such a program that may expand to one; cd to a place
 * outside the workspace;
 * a redirection target that is not a fixed word, or outside the
 * workspace (other than /dev/null, /dev/std{in,out,err}, /dev/fd/N,
 * /dev/tty, /dev/zero); a redirection target, or a word of a command
 * other than one that only reads, prints or removes (cat, grep, ls,
 * echo, rm, ...; of find, the file of -fprint and -fls), that names a
 * file that runs later outside any sandbox (writepolicy_word_runs_on(),
 * or a directory where one is read, writepolicy_runs_on_beneath(); a
 * glob that selects nothing in particular aside), or that sets one up
 * (writepolicy_word_sets_up()), an assignment's value too; a word with
 * a parameter, brace or arithmetic expansion ("$f" of a loop or read,
 * "${x:-.envrc}", {.envrc,x}; not "$PWD"/x) given to a command that
 * writes, empties or removes the files it names (cp, mv, ln, link,
 * install but -d, tee, truncate, unlink, patch, sponge, dd, rsync;
 * uniq's output); a
 * program that writes files named inside what it reads (tar and bsdtar
 * extracting but to standard output, cpio -i and -p, unzip but listing,
 * testing or printing, 7z x and e, patch but --dry-run, git apply but
 * --check, --stat, --numstat or --summary alone); a decompressor
 * (gunzip, gzip -d, xz -d, ...) whose operand without its last extension
 * names what runs later (gunzip .envrc.gz), is not a fixed word or a
 * glob, or whose output -S or -N names.  An
 * argument that is not a fixed word stops
 * matching there: a rule whose prefix reaches it might match, and the
 * command is unresolvable.
 */
enum shdecision shrules_decide(const struct shell_rules *r, const char *cmd,
    size_t len, const char *workspace, struct shverdict *v);

/* Where a path of the workspace leads, as a runner would resolve it. */
enum shfs_where {
	SHFS_INSIDE, /* beneath the workspace, or not there */
	SHFS_ROOT, /* the workspace itself */
	SHFS_OUT, /* outside it: a symlink or ".." on the way */
	SHFS_UNKNOWN, /* cannot be told (a loop, an error) */
};

/*
 * The file system beneath the workspace, for what the rules cannot tell
 * from words: |where| is given a path relative to the workspace as an
 * operand spells it (".." components may occur); its last component is
 * followed only when it ends in "/" or "/.".
 */
struct shfs {
	enum shfs_where (*where)(void *arg, const char *rel);
	void *arg;
};

/*
 * shrules_decide, and where |fs| (may be NULL) says that a recursive
 * removal's operand beneath the workspace (rm -r, find -delete and the
 * -exec command decided for a starting point) goes through a symlink out
 * of it, or cannot tell, the command is unresolvable; an operand that
 * leads to the workspace itself is "." (rm -rf r/ with r -> .); so is a
 * glob's fixed directory (rm -rf r/ and a star), and a glob before a "/"
 * (r?/), which may match such a link, is unresolvable.  A
 * relative operand is asked about from each directory a cd earlier in
 * the string may have gone to (more than 16: unresolvable), and only
 * from those a cd went to where the command runs only after that cd
 * succeeded in this shell (cd build && find . -delete; not after "||",
 * "|", "!", a subshell, or in a string that may redefine cd); there
 * rm's relative operands are matched by the rules that ask or deny as
 * the paths from the top they are (cd build && rm -rf and a star is rm
 * -rf build/ and a star, not the rule's star; allow rules stay
 * literal), and so is cd's directory (one out of the workspace is unresolvable).  The
 * workspace is asked about as the string starts, so the names the
 * string's ln, link, cp (-s, -l, -r, -a, -P, -d) and mv may link are
 * recorded first: a removal through one is that of where the link leads
 * (ln -s / x && rm -rf x/ is rm -rf /), or unresolvable where that is
 * out of the workspace or not known (mv, a hard link; more than 64
 * names, or one that is not a fixed word).
 */
enum shdecision shrules_decide_fs(const struct shell_rules *r, const char *cmd,
    size_t len, const char *workspace, const struct shfs *fs,
    struct shverdict *v);

/*
 * Decides one argv (already words: no parsing, no redirections), as
 * shrules_decide decides one simple command; |workspace| as there.
 */
enum shdecision shrules_decide_argv(const struct shell_rules *r,
    char *const *argv, size_t argc, const char *workspace, struct shverdict *v);

/* "allow", "ask", "deny"; shdecision_parse returns -1 for others. */
const char *shdecision_name(enum shdecision);
int shdecision_parse(const char *);

/* Writes the rules in canonical manifest form, indented by |indent|. */
void shrules_print(const struct shell_rules *r, FILE *fp, int indent);

/* Frees.  NULL is fine. */
void shrules_free(struct shell_rules *r);

#endif
