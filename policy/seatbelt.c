/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seatbelt: see seatbelt.h.  Later rules win over earlier ones in SBPL,
 * so each deny follows the allow it narrows.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <errno.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/paths.h"
#include "common/util.h"
#include "policy/githooks.h"
#include "policy/seatbelt.h"
#include "policy/sensitive.h"
#include "policy/vcsdirs.h"

/* Each Mach service a build or a test run needs, and who needs it. */
const struct seatbelt_grant seatbelt_mach_services[] = {
	{ "com.apple.system.opendirectoryd.libinfo",
	    "getpwuid(3), getgrgid(3): shells, git, ls -l, every toolchain" },
	{ NULL, NULL },
};

/* Only when the tool is granted network (through the egress proxy). */
const struct seatbelt_grant seatbelt_network_mach_services[] = {
	{ "com.apple.trustd.agent",
	    "certificate checks of TLS clients built on Security.framework "
	    "(curl, git, Go)" },
	{ NULL, NULL },
};

const struct seatbelt_grant seatbelt_sysctls[] = {
	{ "hw.activecpu", "CPU count: make -j, ninja, cargo, Node, Go" },
	{ "hw.byteorder", "libc, Python's sys.byteorder" },
	{ "hw.cachelinesize", "allocators, Rust, Go" },
	{ "hw.cpufamily", "CPU dispatch in compilers and libraries" },
	{ "hw.cputype", "toolchains choosing an architecture" },
	{ "hw.logicalcpu", "CPU count" },
	{ "hw.logicalcpu_max", "CPU count" },
	{ "hw.machine", "uname(3)" },
	{ "hw.memsize", "memory size: JVM, Node, test runners" },
	{ "hw.model", "uname -m on some releases, platform detection" },
	{ "hw.ncpu", "CPU count" },
	{ "hw.nperflevels", "performance/efficiency cores: Go, Rust" },
	{ "hw.pagesize", "getpagesize(3)" },
	{ "hw.physicalcpu", "CPU count" },
	{ "hw.physicalcpu_max", "CPU count" },
	{ "hw.tbfrequency", "mach_timebase_info: timers" },
	{ "kern.argmax", "xargs, shells: the argument limit" },
	{ "kern.hostname", "gethostname(3)" },
	{ "kern.maxfilesperproc", "the open files limit: Node, JVM" },
	{ "kern.maxproc", "the process limit" },
	{ "kern.osproductversion", "the macOS version: Python, Xcode tools" },
	{ "kern.osrelease", "uname(3)" },
	{ "kern.ostype", "uname(3)" },
	{ "kern.osversion", "uname(3), the build number" },
	{ "kern.usrstack64", "thread stacks: Go, Rust" },
	{ "kern.version", "uname(3)" },
	{ "machdep.cpu.brand_string", "CPU name: Node os.cpus(), test logs" },
	{ "sysctl.proc_cputype", "the process's architecture" },
	{ "sysctl.proc_translated", "Rosetta detection: Python, Node, rustc" },
	{ "vm.loadavg", "getloadavg(3): make -l, test runners" },
	{ NULL, NULL },
};

const struct seatbelt_grant seatbelt_sysctl_prefixes[] = {
	{ "hw.optional.", "CPU features: compilers, crypto libraries" },
	{ "hw.perflevel", "per-cluster CPU counts: Go, Rust" },
	{ "kern.proc.pid.",
	    "process information by pid: ps, psutil, "
	    "getppid checks" },
	{ NULL, NULL },
};

/* Secrets macOS adds to the credential stores every platform has
 * (sensitive_cred_stores[], beneath HOME): never readable whatever the
 * manifest says. */
const char *const seatbelt_secret_paths[] = { "~/Library/Keychains",
	"/Library/Keychains", "~/.local/state/airlock",
	/* root's state directory, as configured */
	(PATHS_STATE_DEFAULT), NULL };

/* Programs that ask LaunchServices to start something outside. */
const char *const seatbelt_launchservices_helpers[] = { "/usr/bin/open",
	"/usr/bin/osascript", "/usr/bin/lsappinfo", "/usr/bin/automator",
	"/usr/bin/shortcuts",
	/* lsregister, under LaunchServices.framework */
	"/System/Library/Frameworks/CoreServices.framework/Frameworks/LaunchServices.framework/Support/lsregister",
	NULL };

/* Symlinks in / that Seatbelt resolves before matching. */
static const char *const private_links[] = { "tmp", "var", "etc", NULL };

/* What /System/Volumes/Data/X is presented as: /X. */
static const char *const firmlinks[] = { "Applications", "Library", "Users",
	"Volumes", "cores", "opt", "private", "usr/local", NULL };

#define DATA_VOLUME "/System/Volumes/Data"

/* Roots too wide to be a workspace (canonical form). */
static const char *const wide_roots[] = { "/", "/private", "/private/tmp",
	"/private/var", "/private/var/folders", "/private/var/tmp",
	"/private/etc", "/Users", "/Library", "/System", "/Applications",
	"/Volumes", "/usr", "/opt", "/bin", "/sbin", NULL };

/* 1 if |path| is |dir| or beneath it; *rest gets what follows |dir|. */
static int
beneath(const char *path, const char *dir, const char **rest)
{
	size_t n;

	/* By hand: the analyzer cannot tell that a strncmp() match leaves
	 * path[n] within the string. */
	for (n = 0; dir[n] != '\0'; n++)
		if (path[n] != dir[n])
			return 0;
	if (path[n] != '\0' && path[n] != '/')
		return 0;
	*rest = path + n;
	return 1;
}

int
seatbelt_canonical(const char *path, char *out, size_t outlen)
{
	char norm[4096];
	const char *s = path, *rest;
	size_t n, len = 0, i;
	int w;

	if (path[0] != '/')
		return AL_ERR_PATH;
	while (*s != '\0') {
		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.')) {
			s += n;
			continue;
		}
		if (n == 2 && s[0] == '.' && s[1] == '.')
			return AL_ERR_PATH;
		if (len + 1 + n >= sizeof(norm))
			return AL_ERR_PATH;
		norm[len++] = '/';
		memcpy(norm + len, s, n);
		len += n;
		s += n;
	}
	if (len == 0)
		norm[len++] = '/';
	norm[len] = '\0';

	/* A firmlink first: /System/Volumes/Data/private/tmp is /private/tmp,
	 * which the symlink step then leaves alone. */
	if (beneath(norm, DATA_VOLUME, &rest) && rest[0] == '/')
		for (i = 0; firmlinks[i] != NULL; i++) {
			const char *r2;
			char dir[64];

			snprintf(dir, sizeof(dir), "/%s", firmlinks[i]);
			if (beneath(rest, dir, &r2)) {
				memmove(norm, rest, strlen(rest) + 1);
				break;
			}
		}
	for (i = 0; private_links[i] != NULL; i++) {
		char dir[16];

		snprintf(dir, sizeof(dir), "/%s", private_links[i]);
		if (beneath(norm, dir, &rest)) {
			w = snprintf(out, outlen, "/private%s", norm);
			return w < 0 || (size_t)w >= outlen ? AL_ERR_PATH : 0;
		}
	}
	w = snprintf(out, outlen, "%s", norm);
	return w < 0 || (size_t)w >= outlen ? AL_ERR_PATH : 0;
}

/* 1 if |s| can be written inside an SBPL string or regex literal. */
static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 ||
		    *s == 0x7f)
			return 0;
	return 1;
}

static void
quote(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

/* |s| as a regular expression matching itself. */
static void
re_literal(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		if (strchr(".^$*+?()[]{}|", *s) != NULL)
			fputc('\\', fp);
		fputc(*s, fp);
	}
}

/*
 * A case-insensitive APFS volume (macOS's default) compares names in
 * their canonical caseless form: case-folded NFD, Unicode's D145 (xnu,
 * bsd/sys/unicode.h: utf8_normalizeOptCaseFold()), with the full case
 * foldings (linux-apfs-rw's unicode.c and apfs-fuse's Unicode.cpp fold
 * after decomposing, one character into up to three).  So ".GIT" is
 * ".git" there, and so are these non-ASCII characters the ASCII they fold
 * to: every one that does (Unicode 14), each a name Seatbelt could be
 * given for a protected path: ".\u017fl" is ".sl", "hoo\u212as" is "hooks",
 * "con\ufb01g" is "config".
 */
static const struct {
	const char *ascii; /* what it folds to, lower case */
	const char *utf8;
} fold_other[] = {
	{ "k", "\xe2\x84\xaa" }, /* U+212A KELVIN SIGN */
	{ "s", "\xc5\xbf" }, /* U+017F LATIN SMALL LETTER LONG S */
	{ "ss", "\xc3\x9f" }, /* U+00DF LATIN SMALL LETTER SHARP S */
	{ "ss", "\xe1\xba\x9e" }, /* U+1E9E LATIN CAPITAL LETTER SHARP S */
	{ "ff", "\xef\xac\x80" }, /* U+FB00..FB06, the Latin ligatures */
	{ "fi", "\xef\xac\x81" }, { "fl", "\xef\xac\x82" },
	{ "ffi", "\xef\xac\x83" }, { "ffl", "\xef\xac\x84" },
	{ "st", "\xef\xac\x85" }, { "st", "\xef\xac\x86" },
	{ ";", "\xcd\xbe" }, /* U+037E GREEK QUESTION MARK (NFD: ';') */
	{ "`", "\xe1\xbf\xaf" }, /* U+1FEF GREEK VARIA (NFD: '`') */
};

#define NFOLD (sizeof(fold_other) / sizeof(fold_other[0]))

/*
 * An HFS+ volume (macOS can still make one, "Mac OS Extended") leaves
 * these code points out of the names it compares: its case-insensitive
 * comparison maps them to 0, ignored (Apple's TN1150, "Case-Insensitive
 * String Comparison Algorithm"), so ".g\u200cit" is ".git" there: git's
 * own is_hfs_dotgit() (utf8.c, next_hfs_char(): this list) is the fix for
 * CVE-2014-9390.  Rather than let one stand anywhere in every regex, the
 * profile denies every name holding one (an agent rarely needs them; a
 * Persian name with U+200C is the cost).
 */
static const char *const hfs_ignorable[] = {
	"\xe2\x80\x8c",
	"\xe2\x80\x8d",
	"\xe2\x80\x8e",
	"\xe2\x80\x8f",
	"\xe2\x80\xaa",
	"\xe2\x80\xab",
	"\xe2\x80\xac",
	"\xe2\x80\xad",
	"\xe2\x80\xae",
	"\xe2\x81\xaa",
	"\xe2\x81\xab",
	"\xe2\x81\xac",
	"\xe2\x81\xad",
	"\xe2\x81\xae",
	"\xe2\x81\xaf",
	"\xef\xbb\xbf",
	NULL,
};

/* A run of literal characters, to be matched as the volume folds it. */
struct fold_run {
	const char *s;
	size_t n;
	int open_head; /* a wildcard before it may take a ligature's start */
	int open_tail; /* a wildcard after it may take a ligature's end */
	int upper_first; /* "[Gg]" rather than "[gG]" (the goldens' forms) */
};

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/*
 * How many characters of the run from |i| fold_other[k] stands for, if
 * it begins its fold at offset |j| (0: nothing).  Whole, or cut at an
 * open end of the run: "f*" matches "\ufb01le", whose "i" the '*' takes.
 */
static size_t
fold_covers(const struct fold_run *r, size_t i, size_t k, size_t j)
{
	const char *t = fold_other[k].ascii;
	size_t len = strlen(t), c;

	if (j > 0 && !(r->open_head && i == 0))
		return 0;
	for (c = 0; j + c < len && i + c < r->n; c++)
		if (lower((unsigned char)r->s[i + c]) != t[j + c])
			break;
	if (c == 0 || (j + c < len && !(r->open_tail && i + c == r->n)))
		return 0;
	return c;
}

/* Does a character of fold_other stand for more than one of the run's
 * characters across the boundary before |b|? */
static int
fold_spans(const struct fold_run *r, size_t b)
{
	size_t i, k, j, c;

	for (i = 0; i < b; i++)
		for (k = 0; k < NFOLD; k++)
			for (j = 0; fold_other[k].ascii[j] != '\0'; j++)
				if ((c = fold_covers(r, i, k, j)) > 1 &&
				    i + c > b)
					return 1;
	return 0;
}

/* The run's character |i| alone: itself in either case, or a character
 * of fold_other standing for it alone. */
static void
fold_one(FILE *fp, const struct fold_run *r, size_t i)
{
	int c = (unsigned char)r->s[i], alts = 0;
	size_t k, j;
	char one[2] = { (char)c, '\0' };

	for (k = 0; k < NFOLD; k++)
		for (j = 0; fold_other[k].ascii[j] != '\0'; j++)
			if (fold_covers(r, i, k, j) == 1)
				alts++;
	if (alts > 0)
		fputc('(', fp);
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z' && r->upper_first)
		fprintf(fp, "[%c%c]", c & ~0x20, c | 0x20);
	else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
		fprintf(fp, "[%c%c]", c | 0x20, c & ~0x20);
	else
		re_literal(fp, one);
	for (k = 0; k < NFOLD; k++)
		for (j = 0; fold_other[k].ascii[j] != '\0'; j++)
			if (fold_covers(r, i, k, j) == 1)
				fprintf(fp, "|%s", fold_other[k].utf8);
	if (alts > 0)
		fputc(')', fp);
}

/* The run's characters [i, b) in every spelling: no character of
 * fold_other crosses b.  Exact up to FOLD_EXACT characters. */
#define FOLD_EXACT 8

static void
fold_seg(FILE *fp, const struct fold_run *r, size_t i, size_t b)
{
	size_t k, j, c;
	int multi = 0;

	for (; i < b; i++) {
		for (k = 0; k < NFOLD; k++)
			for (j = 0; fold_other[k].ascii[j] != '\0'; j++)
				if ((c = fold_covers(r, i, k, j)) > 1 &&
				    i + c <= b)
					multi = 1;
		if (multi)
			break;
		fold_one(fp, r, i);
	}
	if (i == b)
		return;
	fputc('(', fp);
	fold_one(fp, r, i);
	fold_seg(fp, r, i + 1, b);
	for (k = 0; k < NFOLD; k++)
		for (j = 0; fold_other[k].ascii[j] != '\0'; j++)
			if ((c = fold_covers(r, i, k, j)) > 1 && i + c <= b) {
				fprintf(fp, "|%s", fold_other[k].utf8);
				fold_seg(fp, r, i + c, b);
			}
	fputc(')', fp);
}

/* A long segment, matched loosely: any sequence of its characters'
 * spellings (more than the names it stands for; never fewer). */
static void
fold_loose(FILE *fp, const struct fold_run *r, size_t a, size_t b)
{
	size_t i, k, j, c;

	fputs("(", fp);
	for (i = a; i < b; i++) {
		if (i > a)
			fputc('|', fp);
		fold_one(fp, r, i);
		for (k = 0; k < NFOLD; k++)
			for (j = 0; fold_other[k].ascii[j] != '\0'; j++)
				if ((c = fold_covers(r, i, k, j)) > 1 &&
				    i + c <= b)
					fprintf(fp, "|%s", fold_other[k].utf8);
	}
	fputs(")+", fp);
}

/* |r|, ASCII, as a regular expression matching every name the volume
 * takes for it, cut into segments no character of fold_other crosses. */
static void
fold_ascii(FILE *fp, const struct fold_run *r)
{
	size_t a = 0, b;

	for (b = 1; b <= r->n; b++) {
		if (b < r->n && fold_spans(r, b))
			continue;
		if (b - a > FOLD_EXACT)
			fold_loose(fp, r, a, b);
		else
			fold_seg(fp, r, a, b);
		a = b;
	}
}

/* 1 + the index in fold_other of the character at s[i], or 0. */
static size_t
fold_other_at(const char *s, size_t n, size_t i)
{
	size_t k, len;

	for (k = 0; k < NFOLD; k++) {
		len = strlen(fold_other[k].utf8);
		if (len <= n - i && memcmp(s + i, fold_other[k].utf8, len) == 0)
			return k + 1;
	}
	return 0;
}

/*
 * A name that is not ASCII has other spellings there as well: NFC and
 * NFD ("zo\u00eb" and "zoe\u0308" are one name), the other case of a
 * non-ASCII letter ("ZO\u00cb"), its full folding ("\u0149" is
 * "\u02bcn").  Rather than carry Unicode's tables, a run of non-ASCII
 * characters is matched loosely, together with the ASCII character on
 * each side of it (the base a combining mark composes with; the 'n' of
 * U+0149's folding: no character's canonical caseless form has more
 * ASCII around its first non-ASCII one, Unicode 14), as any part of a
 * name holding a byte that is not printable ASCII: a character whose
 * canonical caseless form is not ASCII has a non-ASCII character in every
 * spelling.  Those of fold_other, whose form is ASCII, are first read as
 * that ("stra\u00dfe" is "strasse").  Matching more only denies more.
 */
#define RE_NON_ASCII "[^/]*[^/ -~][^/]*"

static void
re_fold(FILE *fp, const struct fold_run *r)
{
	char *t = xcalloc(r->n + 1, 1);
	struct fold_run seg = *r;
	size_t m = 0, i, k, a, c0, c1;

	/* No character of fold_other is shorter than its ASCII. */
	for (i = 0; i < r->n;) {
		if ((k = fold_other_at(r->s, r->n, i)) > 0) {
			memcpy(t + m, fold_other[k - 1].ascii,
			    strlen(fold_other[k - 1].ascii));
			m += strlen(fold_other[k - 1].ascii);
			i += strlen(fold_other[k - 1].utf8);
		} else
			t[m++] = r->s[i++];
	}
	seg.s = t;
	for (a = 0;; a = c1) {
		for (c0 = a; c0 < m && (unsigned char)t[c0] < 0x80; c0++)
			;
		if (c0 == m)
			break;
		for (c1 = c0; c1 < m && (unsigned char)t[c1] >= 0x80; c1++)
			;
		if (c0 > a && t[c0 - 1] != '/')
			c0--;
		if (c1 < m && t[c1] != '/')
			c1++;
		if (c0 > a) {
			seg.s = t + a;
			seg.n = c0 - a;
			seg.open_head = a == 0 ? r->open_head : 1;
			seg.open_tail = 1;
			fold_ascii(fp, &seg);
		}
		fputs(RE_NON_ASCII, fp);
	}
	seg.s = t + a;
	seg.n = m - a;
	seg.open_head = a == 0 ? r->open_head : 1;
	seg.open_tail = r->open_tail;
	fold_ascii(fp, &seg);
	free(t);
}

/*
 * One component of a protected pattern (an fnmatch(3) glob) as a regular
 * expression matching at least what the glob does, in every spelling a
 * case-insensitive volume takes (re_fold(): a ".VSCODE" or ".v\u017fcode"
 * made where no .vscode stands is the editor's .vscode): '*' within the
 * component, '?' and a bracket expression as any one character (up to
 * four bytes: a character of UTF-8; or none, as a ligature next to it may
 * stand for it).  Matching more only protects more.  A ligature standing
 * for letters on both sides of a wildcard ("s*s" named "\u00df") is
 * matched by re_glob()'s variants.
 */
/*
 * Where the bracket expression opening at c[i] closes, as fnmatch(3)
 * reads it: a ']' first (after '!' or '^') is a member, and "[:alpha:]",
 * "[.x.]" and "[=e=]" are members whole.  0 if it does not close: the
 * '[' is then an ordinary character.
 */
static size_t
bracket_end(const char *c, size_t i, size_t n)
{
	size_t j = i + 1, k;

	if (j < n && (c[j] == '!' || c[j] == '^'))
		j++;
	if (j < n && c[j] == ']')
		j++;
	while (j < n && c[j] != ']') {
		if (c[j] == '[' && j + 1 < n &&
		    (c[j + 1] == ':' || c[j + 1] == '.' || c[j + 1] == '=')) {
			for (k = j + 2; k + 1 < n; k++)
				if (c[k] == c[j + 1] && c[k + 1] == ']')
					break;
			if (k + 1 < n) {
				j = k + 2;
				continue;
			}
		}
		j++;
	}
	return j < n ? j : 0;
}

/* Is c[i] the start of a wildcard ('*', '?', a closed bracket)? */
static int
wildcard(const char *c, size_t i, size_t n)
{
	return c[i] == '*' || c[i] == '?' ||
	    (c[i] == '[' && bracket_end(c, i, n) != 0);
}

static void
glob_one(FILE *fp, const char *c, size_t n)
{
	char *lit = xcalloc(n + 1, 1);
	size_t i, m = 0;
	int after_wild = 0;
	struct fold_run r;

	for (i = 0; i <= n; i++) {
		if (i < n && !wildcard(c, i, n)) {
			if (c[i] == '\\' && i + 1 < n)
				i++;
			lit[m++] = c[i];
			continue;
		}
		if (m > 0) {
			r.s = lit;
			r.n = m;
			r.open_head = after_wild;
			r.open_tail = i < n;
			r.upper_first = 0;
			re_fold(fp, &r);
			m = 0;
		}
		if (i == n)
			break;
		if (c[i] == '*')
			fputs("[^/]*", fp);
		else {
			if (c[i] == '[')
				i = bracket_end(c, i, n);
			/* None when a ligature before or after takes it:
			 * "f?x" is "\ufb00x" (U+FB00 is "ff"). */
			fputs("[^/]?[^/]?[^/]?[^/]?", fp);
		}
		after_wild = 1;
	}
	free(lit);
}

/*
 * A character of fold_other can also stand for letters on both sides of
 * a wildcard that takes none or one of them: "s*s" matches "\u00df"
 * (folded "ss", the '*' empty), "f?i" and "f*f*i" match "\ufb03"
 * ("ffi").  glob_one() spells a character of fold_other within one run of
 * literals, or cut by the wildcard at its end, so each such stretch is
 * also written out ("ss", "ffi") in a glob of its own, which matches no
 * more than the pattern (a bracket written out as the letter it may not
 * hold matches more, which only denies more).
 */
#define GLOB_VARIANTS 32

struct glob_tok {
	size_t at, end; /* its bytes in the glob */
	int wild; /* 0: the literal ch; '*'; '?' (or a bracket) */
	char ch;
};

/* The tokens of glob |c| (|n| bytes) into |t| (n entries): how many. */
static size_t
glob_tokens(const char *c, size_t n, struct glob_tok *t)
{
	size_t i = 0, m = 0;

	while (i < n) {
		t[m].at = i;
		t[m].wild = 0;
		if (c[i] == '*' || c[i] == '?')
			t[m].wild = (unsigned char)c[i++];
		else if (wildcard(c, i, n)) {
			t[m].wild = '?';
			i = bracket_end(c, i, n) + 1;
		} else {
			if (c[i] == '\\' && i + 1 < n)
				i++;
			t[m].ch = c[i++];
		}
		t[m++].end = i;
	}
	return m;
}

struct glob_set {
	char *v[GLOB_VARIANTS];
	size_t n;
	int full; /* a variant did not fit */
};

static void
glob_add(struct glob_set *gs, char *g)
{
	size_t i;

	for (i = 0; i < gs->n; i++)
		if (strcmp(gs->v[i], g) == 0) {
			free(g);
			return;
		}
	if (gs->n == GLOB_VARIANTS) {
		gs->full = 1;
		free(g);
		return;
	}
	gs->v[gs->n++] = g;
}

/*
 * fold_other[k] from its letter |pos| on, against the tokens of |g| from
 * |q|: the stretch began at token |p| with its letter |j|; the last
 * literal it took so far is token |last|, its letter |lpos|.  Each
 * stretch that took a wildcard and a literal after it is written out.
 */
static void
glob_stretch(struct glob_set *gs, const char *g, const struct glob_tok *t,
    size_t nt, size_t k, size_t p, size_t j, size_t q, size_t pos, int wild,
    size_t last, size_t lpos)
{
	const char *a = fold_other[k].ascii;
	size_t glen = strlen(g);
	char *v;

	if (wild && last > p && last + 1 == q) {
		v = xcalloc(glen + 4, 1);
		snprintf(v, glen + 4, "%.*s%.*s%s", (int)t[p].at, g,
		    (int)(lpos + 1 - j), a + j, g + t[last].end);
		glob_add(gs, v);
	}
	if (a[pos] == '\0' || q == nt)
		return;
	if (!t[q].wild) {
		if (lower((unsigned char)t[q].ch) == a[pos])
			glob_stretch(gs, g, t, nt, k, p, j, q + 1, pos + 1,
			    wild, q, pos);
		return;
	}
	glob_stretch(gs, g, t, nt, k, p, j, q + 1, pos + 1, 1, last, lpos);
	if (t[q].wild == '*')
		glob_stretch(gs, g, t, nt, k, p, j, q + 1, pos, 1, last, lpos);
}

/* The component |c| (|n| bytes) of a protected pattern as a regex: each
 * of its variants (glob_stretch()), or any name if they do not fit. */
static void
re_glob(FILE *fp, const char *c, size_t n)
{
	struct glob_set gs = { { NULL }, 0, 0 };
	struct glob_tok *t = xcalloc(n + 1, sizeof(*t));
	size_t i, nt, p, k, j;
	char *g = xcalloc(n + 1, 1);

	memcpy(g, c, n);
	glob_add(&gs, g);
	for (i = 0; i < gs.n; i++) {
		g = gs.v[i];
		nt = glob_tokens(g, strlen(g), t);
		for (p = 0; p < nt; p++)
			for (k = 0; !t[p].wild && k < NFOLD; k++)
				for (j = 0; fold_other[k].ascii[j] != '\0'; j++)
					if (lower((unsigned char)t[p].ch) ==
					    fold_other[k].ascii[j])
						glob_stretch(&gs, g, t, nt, k,
						    p, j, p + 1, j + 1, 0, p,
						    j);
	}
	if (gs.full)
		fputs("[^/]+", fp);
	else if (gs.n == 1)
		glob_one(fp, gs.v[0], strlen(gs.v[0]));
	else {
		fputc('(', fp);
		for (i = 0; i < gs.n; i++) {
			if (i > 0)
				fputc('|', fp);
			glob_one(fp, gs.v[i], strlen(gs.v[i]));
		}
		fputc(')', fp);
	}
	for (i = 0; i < gs.n; i++)
		free(gs.v[i]);
	free(t);
}

static int
rel_ok(const char *rel)
{
	const char *s = rel;
	size_t n;

	if (*rel == '/' || *rel == '\0' || !printable(rel))
		return 0;
	while (*s != '\0') {
		n = strcspn(s, "/");
		if ((n == 2 && s[0] == '.' && s[1] == '.') ||
		    (n == 1 && s[0] == '.'))
			return 0;
		s += n;
		while (*s == '/')
			s++;
	}
	return 1;
}

/*
 * |p| with a leading "~" made |home| (written to |buf|), or |p| as it is;
 * NULL when there is no |home| for it or the path does not fit.
 */
static const char *
tilde(const char *p, const char *home, char buf[4096])
{
	if (p[0] != '~' || (p[1] != '/' && p[1] != '\0'))
		return p;
	if (home == NULL ||
	    (size_t)snprintf(buf, 4096, "%s%s", home, p + 1) >= 4096)
		return NULL;
	return buf;
}

/* Canonicalises the absolute |in| into |out|; "~" from |home|. */
static int
resolve(const char *in, const char *home, char *out, size_t outlen)
{
	char buf[4096];

	if ((in = tilde(in, home, buf)) == NULL)
		return home == NULL ? 1 : AL_ERR_PATH;
	if (seatbelt_canonical(in, out, outlen) != 0 || !printable(out))
		return AL_ERR_PATH;
	return 0;
}

/*
 * The |i|th secret path, as resolve() puts it in |out|: the credential
 * stores beneath HOME, seatbelt_secret_paths[], then the run's own;
 * -1 past the last.
 */
static int
secret(size_t i, const struct seatbelt_run *run, char *out, size_t outlen)
{
	char rel[256];
	size_t n, m;

	for (n = 0; sensitive_cred_stores[n] != NULL; n++)
		;
	if (i < n) {
		snprintf(rel, sizeof(rel), "~/%s", sensitive_cred_stores[i]);
		return resolve(rel, run->home, out, outlen);
	}
	i -= n;
	for (m = 0; seatbelt_secret_paths[m] != NULL; m++)
		;
	if (i < m)
		return resolve(
		    seatbelt_secret_paths[i], run->home, out, outlen);
	i -= m;
	if (i >= run->nsecrets)
		return -1;
	/* Absolute: a "~" here would be a directory named so. */
	if (run->secrets[i][0] != '/')
		return AL_ERR_PATH;
	return resolve(run->secrets[i], NULL, out, outlen);
}

/* Adds to |v| (*n entries) what |p| ("~" from |home|) resolves to, if
 * a symlink on its way makes that another name. */
static char **
add_target(char **v, size_t *n, const char *p, const char *home)
{
	char buf[4096], real[PATH_MAX], a[4096], b[4096];

	if ((p = tilde(p, home, buf)) == NULL)
		return v;
	if (p[0] != '/' || realpath(p, real) == NULL ||
	    seatbelt_canonical(p, a, sizeof(a)) != 0 ||
	    seatbelt_canonical(real, b, sizeof(b)) != 0 || strcmp(a, b) == 0)
		return v;
	v = xreallocarray(v, *n + 2, sizeof(*v));
	v[(*n)++] = xstrdup(real);
	v[*n] = NULL;
	return v;
}

/*
 * 1 when the deny_read path |p| ("~" from |run|'s home) leads through a
 * link in the workspace or the run's TMPDIR, named in |err|.
 */
static int
deny_through_link(
    const char *p, const struct seatbelt_run *run, char *err, size_t errlen)
{
	char buf[4096], link[4096], *roots[2];
	const char *e;
	int rc;

	if ((e = tilde(p, run->home, buf)) == NULL)
		return 0;
	roots[0] = realpath(run->workspace, NULL);
	roots[1] = run->tmpdir != NULL ? realpath(run->tmpdir, NULL) : NULL;
	rc = sensitive_link_rewritable(
	    e, (const char *const *)roots, 2, link, sizeof(link));
	free(roots[0]);
	free(roots[1]);
	if (rc)
		snprintf(err, errlen,
		    "denied path %s leads through the link %s, which a "
		    "sandbox may rewrite: name the path it leads to in "
		    "sandbox.denyRead",
		    p, link);
	return rc;
}

/*
 * Seatbelt denies by name as the Linux masks do: another name (a hard
 * link) of a denied file, or of one beneath a denied directory, is
 * refused (sensitive_deny_linked(), the runner's check).  0, or
 * AL_ERR_DENIED with err.
 */
static int
deny_linked(
    const struct sandbox_policy *sp, const char *home, char *err, size_t errlen)
{
	char **e;
	size_t i, n = 0;
	int rc = 0;

	e = xcalloc(sp->ndeny_read + 1, sizeof(*e));
	for (i = 0; i < sp->ndeny_read; i++) {
		const char *p = sp->deny_read[i];

		if (p[0] != '~' || (p[1] != '/' && p[1] != '\0'))
			e[n++] = xstrdup(p);
		else if (home != NULL)
			xasprintf(&e[n++], "%s%s", home, p + 1);
	}
	if (sensitive_deny_linked(e, n, SENSITIVE_LINKS_MAX, err, errlen) !=
	    NULL)
		rc = AL_ERR_DENIED;
	for (i = 0; i < n; i++)
		free(e[i]);
	free(e);
	return rc;
}

int
seatbelt_run_secrets(const struct sandbox_policy *sp,
    const struct seatbelt_run *run, char ***out, size_t *n, char *err,
    size_t errlen)
{
	int (*const dirs[])(char *, size_t) = { paths_state_dir,
		paths_runtime_dir, paths_config_dir };
	char buf[4096], rel[256], store[PATH_MAX], **v, *ws;
	const char *home = run->home, *d;
	size_t i, nd = sizeof(dirs) / sizeof(dirs[0]);

	*out = NULL;
	*n = 0;
	for (i = 0; i < sp->ndeny_read; i++)
		if (deny_through_link(sp->deny_read[i], run, err, errlen))
			return AL_ERR_DENIED;
	if (deny_linked(sp, home, err, errlen) != 0)
		return AL_ERR_DENIED;
	if ((ws = realpath(run->workspace, NULL)) != NULL) {
		d = sensitive_vcs_exposed(
		    ws, sp->deny_read, sp->ndeny_read, store, sizeof(store));
		free(ws);
		if (d != NULL) {
			snprintf(err, errlen, SENSITIVE_VCS_SHOWN, d, store);
			return AL_ERR_DENIED;
		}
	}
	v = xcalloc(nd + 1, sizeof(*v));
	for (i = 0; i < nd; i++) {
		if (dirs[i](buf, sizeof(buf)) != 0) {
			seatbelt_run_secrets_free(v, *n);
			*n = 0;
			snprintf(err, errlen,
			    "airlock's own directories cannot be named");
			return AL_ERR_LIMIT;
		}
		v[(*n)++] = xstrdup(buf);
	}
	for (i = 0; i < nd; i++)
		v = add_target(v, n, v[i], NULL);
	for (i = 0; sensitive_cred_stores[i] != NULL; i++) {
		snprintf(rel, sizeof(rel), "~/%s", sensitive_cred_stores[i]);
		v = add_target(v, n, rel, home);
	}
	for (i = 0; seatbelt_secret_paths[i] != NULL; i++)
		v = add_target(v, n, seatbelt_secret_paths[i], home);
	for (i = 0; i < sp->ndeny_read; i++)
		v = add_target(v, n, sp->deny_read[i], home);
	*out = v;
	return 0;
}

void
seatbelt_run_secrets_free(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Symbolic links follow_links() follows before giving up (Linux's). */
#define FOLLOW_MAX 40

/*
 * |path| (absolute) with every symbolic link on its way followed, a
 * dangling one too, into |out| (PATH_MAX bytes): what does not exist is
 * appended as named beneath the last directory that does.  A ".." is
 * taken once the directory before it is resolved, as the kernel takes
 * it.  Returns 0; 1 when a link followed lies in a directory beneath one
 * of roots[0..nroots) (resolved; NULL entries skipped), written to
 * |link| (PATH_MAX bytes); -1 when the path does not fit, a place on the
 * way cannot be looked at, or more than FOLLOW_MAX links are followed.
 */
static int
follow_links(const char *path, const char *const *roots, size_t nroots,
    char *out, char *link)
{
	char rest[PATH_MAX], target[PATH_MAX], next[PATH_MAX], *slash;
	const char *s;
	struct stat st;
	size_t len = 0, n, k;
	ssize_t t;
	int hops = 0, missing = 0;

	if ((size_t)snprintf(rest, sizeof(rest), "%s", path) >= sizeof(rest))
		return -1;
	out[0] = '\0';
	for (s = rest; *s != '\0';) {
		while (*s == '/')
			s++;
		if ((n = strcspn(s, "/")) == 0)
			break;
		if (!missing && n <= 2 && strncmp(s, "..", n) == 0) {
			if (n == 2 && (slash = strrchr(out, '/')) != NULL)
				*slash = '\0';
			len = strlen(out);
			s += n;
			continue;
		}
		if (len + 1 + n >= PATH_MAX)
			return -1;
		out[len] = '/';
		memcpy(out + len + 1, s, n);
		out[len + 1 + n] = '\0';
		s += n;
		if (!missing && lstat(out, &st) == -1) {
			if (errno != ENOENT)
				return -1;
			missing = 1;
		}
		if (missing || !S_ISLNK(st.st_mode)) {
			len += 1 + n;
			continue;
		}
		/* The directory it lies in, resolved: the sandbox's? */
		if ((size_t)snprintf(link, PATH_MAX, "%s", out) >= PATH_MAX)
			return -1;
		out[len] = '\0';
		for (k = 0; k < nroots; k++)
			if (roots[k] != NULL &&
			    path_is_beneath(len > 0 ? out : "/", roots[k]))
				return 1;
		if (++hops > FOLLOW_MAX ||
		    (t = readlink(link, target, sizeof(target) - 1)) <= 0)
			return -1;
		target[t] = '\0';
		if (target[0] == '/') {
			out[0] = '\0';
			len = 0;
		}
		if ((size_t)snprintf(next, sizeof(next), "%s/%s", target, s) >=
		    sizeof(next))
			return -1;
		memcpy(rest, next, strlen(next) + 1);
		s = rest;
	}
	if (len == 0)
		snprintf(out, PATH_MAX, "/");
	return 0;
}

/* 1 if the home entry |rel| names a directory (it ends in '/'). */
static int
home_dir_form(const char *rel)
{
	size_t n = strlen(rel);

	return n > 0 && rel[n - 1] == '/';
}

/*
 * Adds to |v| (*n entries) what the home entry |rel| of |home| resolves
 * to (follow_links()) if that is another name; |kind| names the list
 * in |err|.  0, or AL_ERR_PATH or AL_ERR_DENIED with err.
 */
static int
home_target(char ***v, size_t *n, const char *home, const char *rel,
    const char *kind, const char *const *roots, char *err, size_t errlen)
{
	char name[PATH_MAX], real[PATH_MAX], link[PATH_MAX], a[4096], b[4096];
	int rc;

	if ((size_t)snprintf(name, sizeof(name), "%s/%s", home, rel) >=
	    sizeof(name)) {
		snprintf(err, errlen, "%s ~/%s: too long", kind, rel);
		return AL_ERR_PATH;
	}
	if ((rc = follow_links(name, roots, 2, real, link)) == 1) {
		snprintf(err, errlen,
		    "%s ~/%s leads through the link %s, which a sandbox may "
		    "rewrite: link it to a place outside the workspace, or "
		    "make it a file or directory of its own",
		    kind, rel, link);
		return AL_ERR_DENIED;
	}
	if (rc != 0) {
		snprintf(err, errlen,
		    "%s ~/%s cannot be resolved (a link loop, a place that "
		    "cannot be looked at, or too long)",
		    kind, rel);
		return AL_ERR_PATH;
	}
	if (seatbelt_canonical(name, a, sizeof(a)) == 0 &&
	    seatbelt_canonical(real, b, sizeof(b)) == 0 && strcmp(a, b) == 0)
		return 0;
	*v = xreallocarray(*v, *n + 2, sizeof(**v));
	xasprintf(&(*v)[(*n)++], "%s%s", real,
	    home_dir_form(rel) && strcmp(real, "/") != 0 ? "/" : "");
	(*v)[*n] = NULL;
	return 0;
}

int
seatbelt_run_home(const struct sandbox_policy *sp,
    const struct seatbelt_run *run, char ***ro, size_t *nro, char ***scratch,
    size_t *nscratch, char *err, size_t errlen)
{
	char *roots[2];
	size_t i;
	int rc = 0;

	*ro = *scratch = NULL;
	*nro = *nscratch = 0;
	/* A home that is not absolute refuses the profile itself. */
	if (run->home == NULL || run->home[0] != '/' ||
	    sp->nhome_ro + sp->nhome_scratch == 0)
		return 0;
	roots[0] = realpath(run->workspace, NULL);
	roots[1] = run->tmpdir != NULL ? realpath(run->tmpdir, NULL) : NULL;
	for (i = 0; rc == 0 && i < sp->nhome_ro; i++)
		rc = home_target(ro, nro, run->home, sp->home_ro[i],
		    "agent.homeReadOnly", (const char *const *)roots, err,
		    errlen);
	for (i = 0; rc == 0 && i < sp->nhome_scratch; i++)
		rc = home_target(scratch, nscratch, run->home,
		    sp->home_scratch[i], "agent.homeScratch",
		    (const char *const *)roots, err, errlen);
	free(roots[0]);
	free(roots[1]);
	if (rc != 0) {
		seatbelt_run_secrets_free(*ro, *nro);
		seatbelt_run_secrets_free(*scratch, *nscratch);
		*ro = *scratch = NULL;
		*nro = *nscratch = 0;
	}
	return rc;
}

int
seatbelt_run_paths(const struct sandbox_policy *sp, struct seatbelt_run *run,
    char *err, size_t errlen)
{
	char **secrets, **ro, **scratch;
	size_t nsecrets, nro, nscratch;
	int rc;

	run->secrets = run->home_ro = run->home_scratch = NULL;
	run->nsecrets = run->nhome_ro = run->nhome_scratch = 0;
	if ((rc = seatbelt_run_secrets(
		 sp, run, &secrets, &nsecrets, err, errlen)) != 0)
		return rc;
	if ((rc = seatbelt_run_home(
		 sp, run, &ro, &nro, &scratch, &nscratch, err, errlen)) != 0) {
		seatbelt_run_secrets_free(secrets, nsecrets);
		return rc;
	}
	run->secrets = (const char *const *)secrets;
	run->nsecrets = nsecrets;
	run->home_ro = (const char *const *)ro;
	run->nhome_ro = nro;
	run->home_scratch = (const char *const *)scratch;
	run->nhome_scratch = nscratch;
	return 0;
}

void
seatbelt_run_paths_free(struct seatbelt_run *run)
{
	seatbelt_run_secrets_free((char **)run->secrets, run->nsecrets);
	seatbelt_run_secrets_free((char **)run->home_ro, run->nhome_ro);
	seatbelt_run_secrets_free(
	    (char **)run->home_scratch, run->nhome_scratch);
	run->secrets = run->home_ro = run->home_scratch = NULL;
	run->nsecrets = run->nhome_ro = run->nhome_scratch = 0;
}

static void
grants(FILE *fp, const char *op, const char *filter,
    const struct seatbelt_grant *g)
{
	size_t i;

	fprintf(fp, "(allow %s\n", op);
	for (i = 0; g[i].name != NULL; i++) {
		fprintf(fp, "    (%s ", filter);
		quote(fp, g[i].name);
		fprintf(fp, ")  ; %s\n", g[i].why);
	}
	fprintf(fp, ")\n");
}

/* "^WS(/.*)?/" : a path at any depth of the workspace; NULL: at any
 * depth of any directory (where the TMPDIR is a parameter). */
static void
re_any_depth(FILE *fp, const char *ws)
{
	if (ws == NULL) {
		fputs("#\"/", fp);
		return;
	}
	fputs("#\"^", fp);
	re_literal(fp, ws);
	fputs("(/.*)?/", fp);
}

/* |name| (ASCII) as a regex that takes it in every spelling a
 * case-insensitive volume does (re_fold()): ".hg" is "\\.[Hh][Gg]". */
static void
re_any_case(FILE *fp, const char *name)
{
	struct fold_run r = { name, strlen(name), 0, 0, 1 };

	re_fold(fp, &r);
}

/* The rules of one protected pattern: its paths and their ancestors. */
static void
protect(FILE *fp, const char *ws, const char *pat)
{
	const char *s, *comp[64];
	size_t n = 0, len[64], i, k;

	for (s = pat; *s != '\0' && n < 64;) {
		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		comp[n] = s;
		len[n] = strcspn(s, "/");
		s += len[n++];
	}
	fprintf(fp, "(deny file-write* (regex ");
	re_any_depth(fp, ws);
	for (i = 0; i < n; i++) {
		if (i > 0)
			fputc('/', fp);
		re_glob(fp, comp[i], len[i]);
	}
	fprintf(fp, "(/.*)?$\"))  ; %s\n", pat);
	/* Moving an ancestor away would take the path with it, and a
	 * directory renamed to a missing ancestor's name would bring one:
	 * a rename's new name is checked as a create, as a mkdir is. */
	for (k = 1; k < n; k++) {
		fprintf(
		    fp, "(deny file-write-unlink file-write-create (regex ");
		re_any_depth(fp, ws);
		for (i = 0; i < k; i++) {
			if (i > 0)
				fputc('/', fp);
			re_glob(fp, comp[i], len[i]);
		}
		fprintf(fp, "$\"))\n");
	}
}

/*
 * The rules of one git hooks path |rel| (a hooks directory, a config file
 * git's config includes: policy/githooks.h), at the workspace's top
 * only, in any case: the path and beneath, and no unlink, rename or
 * making of an ancestor (protect()).
 */
static void
protect_hooks(FILE *fp, const char *ws, const char *rel)
{
	const char *s;

	fputs("(deny file-write* (regex #\"^", fp);
	re_literal(fp, ws);
	fputc('/', fp);
	re_any_case(fp, rel);
	fprintf(fp, "(/.*)?$\"))  ; git hook: %s\n", rel);
	for (s = strchr(rel, '/'); s != NULL; s = strchr(s + 1, '/')) {
		char anc[4096];

		snprintf(anc, sizeof(anc), "%.*s", (int)(s - rel), rel);
		fputs("(deny file-write-unlink file-write-create (regex "
		      "#\"^",
		    fp);
		re_literal(fp, ws);
		fputc('/', fp);
		re_any_case(fp, anc);
		fputs("$\"))\n", fp);
	}
}

/*
 * A hook runs lint-staged: its config files at any depth (each staged
 * file takes the nearest) and every package.json (its "lint-staged"
 * key), anywhere in the workspace, not only beneath the working tree's
 * top: a directory written elsewhere and renamed there would carry its
 * files with it.  A profile cannot compare a key's value before and
 * after, as the change sets do, so package.json is denied whole.
 */
static void
protect_lintstaged(FILE *fp, const char *ws)
{
	size_t i;

	fputs("(deny file-write* (regex ", fp);
	re_any_depth(fp, ws);
	fputc('(', fp);
	for (i = 0; git_hooks_lintstaged_files[i] != NULL; i++) {
		re_any_case(fp, git_hooks_lintstaged_files[i]);
		fputc('|', fp);
	}
	re_any_case(fp, "package.json");
	fputs(")$\"))  ; lint-staged's configs, at any depth\n", fp);
}

/*
 * The first |len| bytes of |p| (canonical) as a regex matching them in
 * every spelling a case-insensitive volume takes (re_fold()): beneath a
 * writable root of |roots| (NULL: none), the root as written (the allow
 * of the root matches it so: another spelling of it is not writable) and
 * the rest in every spelling; elsewhere the whole path, since reading is
 * allowed under any name: "/Users/DEV/.SSH" is "/Users/dev/.ssh".
 */
static void
re_path(FILE *fp, const char *p, size_t len, const char *const *roots,
    size_t nroots)
{
	char buf[4096];
	const char *rest;
	struct fold_run r = { buf, 0, 0, 0, 1 };
	size_t i;

	snprintf(buf, sizeof(buf), "%.*s", (int)len, p);
	for (i = 0; i < nroots; i++)
		if (roots[i] != NULL && beneath(buf, roots[i], &rest)) {
			re_literal(fp, roots[i]);
			r.s = rest;
			break;
		}
	r.n = strlen(r.s);
	re_fold(fp, &r);
}

/* (deny OP) of |p| and beneath, in every spelling (re_path()). */
static void
deny_tree(FILE *fp, const char *op, const char *p, const char *const *roots,
    size_t nroots)
{
	fprintf(fp, "(deny %s (regex #\"^", op);
	re_path(fp, p, strlen(p), roots, nroots);
	fprintf(fp, "(/.*)?$\"))\n");
}

/*
 * A credential store or a denied path |p| (canonical): never written,
 * and neither it nor an ancestor of it in a writable |root| (NULL: none)
 * unlinked or renamed, in any spelling.  Seatbelt matches names: a file
 * moved elsewhere in the workspace would be read there under its new
 * name.
 */
static void
pin_ancestors(FILE *fp, const char *op, const char *p, const char *const *roots,
    size_t nroots)
{
	const char *rest, *s;
	size_t i;

	for (i = 0; i < nroots; i++) {
		if (roots[i] == NULL || !beneath(p, roots[i], &rest) ||
		    rest[0] == '\0')
			continue;
		for (s = rest; s != NULL; s = strchr(s + 1, '/')) {
			fprintf(fp, "(deny %s (regex #\"^", op);
			re_path(fp, p, (size_t)(s - p), roots, nroots);
			fprintf(fp, "$\"))\n");
		}
	}
}

static void
pin(FILE *fp, const char *p, const char *const *roots, size_t nroots)
{
	deny_tree(fp, "file-write*", p, roots, nroots);
	pin_ancestors(fp, "file-write-unlink", p, roots, nroots);
}

/*
 * An entry |p| (canonical; |dir|: a directory) of the agent's home, |rel|
 * in the comment: never written, a file as a literal, a directory (or
 * one holding a writable root) as a subpath: outside the writable |roots|
 * no other spelling is writable.  Beneath a root (a workspace holding
 * ~/.config, a dotfiles repository a link leads into), in every spelling
 * as well, and neither it nor an ancestor there unlinked, renamed or made:
 * a directory written elsewhere and renamed into its place would bring a
 * file with it, as for a protected pattern (protect()).  A scratch
 * directory (|scratch|) is not read either, in any spelling (reading is
 * allowed under every name): what an earlier session left there stays
 * out of this one, as under the Linux runner's tmpfs.
 */
static void
home_entry(FILE *fp, const char *p, int dir, int scratch, const char *rel,
    const char *const *roots, size_t nroots)
{
	const char *rest;
	size_t i;
	int below = 0, holds = 0;

	if (scratch)
		deny_tree(fp, "file-read*", p, NULL, 0);
	for (i = 0; i < nroots; i++)
		if (roots[i] != NULL) {
			below |= beneath(p, roots[i], &rest);
			holds |= beneath(roots[i], p, &rest);
		}
	fprintf(
	    fp, "(deny file-write* (%s ", dir || holds ? "subpath" : "literal");
	quote(fp, p);
	fprintf(fp, "))  ; %s\n", rel);
	if (!below)
		return;
	deny_tree(fp, "file-write*", p, roots, nroots);
	pin_ancestors(
	    fp, "file-write-unlink file-write-create", p, roots, nroots);
}

/*
 * The |i|th entry of the agent's home lists as resolve() puts it in
 * |out|: |sp|'s home_ro, then its home_scratch ("~/REL" from |run|'s
 * home), then |run|'s home_ro and home_scratch (absolute: what a link
 * leads them to); *rel gets the entry, *scratch which list it is in.
 * -1 past the last; AL_ERR_PATH for an entry that is not relative to
 * its directory (or not absolute) or cannot be written into a profile;
 * 1 for a home entry when there is no home (skipped).
 */
static int
home_path(const struct sandbox_policy *sp, const struct seatbelt_run *run,
    size_t i, char *out, size_t outlen, const char **rel, int *scratch)
{
	char buf[4096];
	size_t nsp = sp->nhome_ro + sp->nhome_scratch;

	if (i < nsp) {
		*scratch = i >= sp->nhome_ro;
		*rel = *scratch ? sp->home_scratch[i - sp->nhome_ro]
				: sp->home_ro[i];
		if (!rel_ok(*rel) ||
		    (size_t)snprintf(buf, sizeof(buf), "~/%s", *rel) >=
			sizeof(buf))
			return AL_ERR_PATH;
		return resolve(buf, run->home, out, outlen);
	}
	i -= nsp;
	if (i >= run->nhome_ro + run->nhome_scratch)
		return -1;
	*scratch = i >= run->nhome_ro;
	*rel =
	    *scratch ? run->home_scratch[i - run->nhome_ro] : run->home_ro[i];
	if ((*rel)[0] != '/')
		return AL_ERR_PATH;
	return resolve(*rel, NULL, out, outlen);
}

static int
is_git(const char *pat)
{
	return strcasecmp(pat, ".git") == 0 || strcasecmp(pat, ".git/") == 0;
}

int
seatbelt_profile(
    const struct sandbox_policy *sp, const struct seatbelt_run *run, char **out)
{
	char ws[4096] = "", path[4096] = "", tmp[4096] = "", *buf = NULL;
	const char *roots[2], *root;
	const char *rest;
	size_t len = 0, i, k;
	FILE *fp;
	int rc, scratch;

	*out = NULL;
	if (run->workspace == NULL ||
	    resolve(run->workspace, NULL, ws, sizeof(ws)) != 0 ||
	    run->workspace[strlen(run->workspace) - 1] == '/')
		return AL_ERR_PATH;
	for (i = 0; wide_roots[i] != NULL; i++)
		if (strcmp(ws, wide_roots[i]) == 0)
			return AL_ERR_PATH;
	/* The home directory or above it: ~/.zshrc would be writable. */
	if (run->home != NULL &&
	    resolve(run->home, NULL, path, sizeof(path)) == 0 &&
	    beneath(path, ws, &rest))
		return AL_ERR_PATH;
	for (i = 0; i < sp->nprotected; i++)
		if (!rel_ok(sp->protected[i]))
			return AL_ERR_PATH;
	for (i = 0; i < run->nhooks; i++)
		if (!rel_ok(run->hooks[i]) || strlen(run->hooks[i]) >= 4096)
			return AL_ERR_PATH;
	if (run->husky_pkg != NULL &&
	    (!rel_ok(run->husky_pkg) || strlen(run->husky_pkg) >= 4096))
		return AL_ERR_PATH;
	if ((run->home != NULL &&
		(run->home[0] != '/' || !printable(run->home))) ||
	    (run->tmpdir != NULL &&
		(resolve(run->tmpdir, NULL, path, sizeof(path)) != 0 ||
		    strcmp(path, "/") == 0)) ||
	    (run->tty != NULL &&
		resolve(run->tty, NULL, path, sizeof(path)) != 0) ||
	    (run->gitdir != NULL &&
		resolve(run->gitdir, NULL, path, sizeof(path)) != 0))
		return AL_ERR_PATH;
	for (i = 0; i < sp->ndeny_read; i++)
		if (resolve(sp->deny_read[i], run->home, path, sizeof(path)) ==
		    AL_ERR_PATH)
			return AL_ERR_PATH;
	/* A secret that cannot be written into the profile refuses it. */
	for (i = 0; (rc = secret(i, run, path, sizeof(path))) != -1; i++)
		if (rc == AL_ERR_PATH)
			return AL_ERR_PATH;
	/* So does an entry of the agent's home. */
	for (i = 0; (rc = home_path(sp, run, i, path, sizeof(path), &rest,
			 &scratch)) != -1;
	     i++)
		if (rc == AL_ERR_PATH)
			return AL_ERR_PATH;
	if ((fp = open_memstream(&buf, &len)) == NULL)
		return AL_ERR_ALLOC;

	fprintf(fp,
	    ";; airlock sandbox profile (generated; do not edit)\n"
	    "(version 1)\n(deny default)\n\n");

	fprintf(fp,
	    ";; processes: this sandbox's own, never through "
	    "LaunchServices\n"
	    "(allow process-exec)\n(allow process-fork)\n"
	    "(allow signal (target same-sandbox))\n"
	    "(allow process-info* (target same-sandbox))\n"
	    "(deny process-exec\n");
	for (i = 0; seatbelt_launchservices_helpers[i] != NULL; i++) {
		fprintf(fp, "    (literal ");
		quote(fp, seatbelt_launchservices_helpers[i]);
		fprintf(fp, ")\n");
	}
	fprintf(fp, ")\n\n");

	fprintf(fp,
	    ";; Mach services, each by name (never launchservicesd "
	    "or lsd)\n");
	grants(fp, "mach-lookup", "global-name", seatbelt_mach_services);
	if (sp->network)
		grants(fp, "mach-lookup", "global-name",
		    seatbelt_network_mach_services);
	fprintf(fp, "\n;; sysctls, each by name\n");
	grants(fp, "sysctl-read", "sysctl-name", seatbelt_sysctls);
	grants(
	    fp, "sysctl-read", "sysctl-name-prefix", seatbelt_sysctl_prefixes);
	fprintf(fp,
	    "\n;; POSIX IPC: Python's multiprocessing locks and "
	    "shared_memory\n"
	    "(allow ipc-posix-sem (ipc-posix-name-prefix \"/mp-\") "
	    "(ipc-posix-name-prefix \"mp-\"))\n"
	    "(allow ipc-posix-shm (ipc-posix-name-prefix \"/psm_\") "
	    "(ipc-posix-name-prefix \"psm_\"))\n\n");

	fprintf(fp,
	    ";; reading: everything but credential stores and the denied "
	    "paths\n(allow file-read*)\n");
	for (i = 0; (rc = secret(i, run, path, sizeof(path))) != -1; i++) {
		if (rc != 0)
			continue;
		deny_tree(fp, "file-read*", path, NULL, 0);
	}
	for (i = 0; i < sp->ndeny_read; i++) {
		if (resolve(sp->deny_read[i], run->home, path, sizeof(path)) !=
		    0)
			continue;
		deny_tree(fp, "file-read*", path, NULL, 0);
	}

	fprintf(fp,
	    "\n;; writing: the workspace and this run's TMPDIR\n"
	    "(allow file-write*\n    (subpath ");
	quote(fp, ws);
	if (run->tmpdir != NULL) {
		if ((rc = resolve(run->tmpdir, NULL, path, sizeof(path))) != 0)
			goto fail;
		fprintf(fp, ")\n    (subpath ");
		quote(fp, path);
		fprintf(fp, "))\n");
	} else
		fprintf(fp, ")\n    (subpath (param \"TMPDIR\")))\n");
	/* The workspace is written directly, seen by no write policy: no
	 * setuid or setgid file (Linux: seccomp_policy.h). */
	fprintf(fp, "(deny file-write-setugid)\n");
	fprintf(fp,
	    "(allow file-write-data\n"
	    "    (require-all (literal \"/dev/null\") "
	    "(vnode-type CHARACTER-DEVICE)))\n");
	if (run->tty != NULL) {
		if ((rc = resolve(run->tty, NULL, path, sizeof(path))) != 0)
			goto fail;
		fprintf(fp,
		    "(allow file-read-data file-write-data file-ioctl\n"
		    "    (require-all (literal ");
		quote(fp, path);
		fprintf(fp, ") (vnode-type CHARACTER-DEVICE)))\n");
	}

	/* HFS+ leaves them out of the names it compares (hfs_ignorable). */
	fprintf(fp,
	    "\n;; no name with a code point HFS+ ignores (U+200C..200F, "
	    "U+202A..202E,\n;; U+206A..206F, U+FEFF): there .g\\u200cit "
	    "is .git\n(deny file-read* file-write* (regex #\"(");
	for (i = 0; hfs_ignorable[i] != NULL; i++)
		fprintf(fp, "%s%s", i > 0 ? "|" : "", hfs_ignorable[i]);
	fprintf(fp, ")\"))\n");

	/* After the allow they narrow: in SBPL the last match wins. */
	fprintf(fp,
	    "\n;; credential stores and denied paths: not written, nor "
	    "moved away with an\n;; ancestor (a name Seatbelt would not "
	    "deny)\n");
	roots[0] = ws;
	roots[1] = NULL;
	if (run->tmpdir != NULL &&
	    resolve(run->tmpdir, NULL, tmp, sizeof(tmp)) == 0)
		roots[1] = tmp;
	for (i = 0; (rc = secret(i, run, path, sizeof(path))) != -1; i++)
		if (rc == 0)
			pin(fp, path, roots, 2);
	for (i = 0; i < sp->ndeny_read; i++)
		if (resolve(sp->deny_read[i], run->home, path, sizeof(path)) ==
		    0)
			pin(fp, path, roots, 2);

	if (sp->nhome_ro + sp->nhome_scratch > 0 && run->home != NULL)
		fprintf(fp,
		    "\n;; the agent's own configuration in its home "
		    "(agent.homeReadOnly), and where a\n;; link leads it: "
		    "not written, nor, in the workspace or TMPDIR, unlinked,\n"
		    ";; renamed or made with an ancestor; its scratch "
		    "directories (agent.homeScratch):\n;; neither read nor "
		    "written (no tmpfs here: what is there stays out, and\n"
		    ";; nothing written there stays)\n");
	for (i = 0; (rc = home_path(sp, run, i, path, sizeof(path), &rest,
			 &scratch)) != -1;
	     i++)
		if (rc == 0)
			home_entry(fp, path, home_dir_form(rest), scratch,
			    rest[0] == '/' ? "a link's target" : rest, roots,
			    2);

	fprintf(fp,
	    "\n;; protected: .git, .hg, .jj and .sl at any depth (directory "
	    "or gitdir:\n;; file), a HEAD (a bare repository's), the git "
	    "directory, the protected\n;; patterns at any depth; no unlink "
	    "or rename of an ancestor\n");
	/* In the workspace, then in the TMPDIR: on the same volume, a tree
	 * made there and renamed into the workspace brings what it holds. */
	for (k = 0; k < 2; k++) {
		root = k == 0 ? ws : roots[1];
		for (i = 0; vcs_dirs[i] != NULL; i++) {
			fprintf(fp, "(deny file-write* (regex ");
			re_any_depth(fp, root);
			re_any_case(fp, vcs_dirs[i]);
			fprintf(fp, "(/.*)?$\"))\n");
		}
		fprintf(fp, "(deny file-write* (regex ");
		re_any_depth(fp, root);
		fprintf(fp, "[Hh][Ee][Aa][Dd]$\"))\n");
		for (i = 0; i < sp->nprotected; i++)
			if (!is_git(sp->protected[i]))
				protect(fp, root, sp->protected[i]);
		if (run->lintstaged != NULL)
			protect_lintstaged(fp, root);
	}
	if (run->gitdir != NULL) {
		if ((rc = resolve(run->gitdir, NULL, path, sizeof(path))) != 0)
			goto fail;
		/* Outside the writable roots no spelling is writable. */
		if (beneath(path, ws, &rest) ||
		    (roots[1] != NULL && beneath(path, roots[1], &rest)))
			deny_tree(fp, "file-write*", path, roots, 2);
		else {
			fprintf(fp, "(deny file-write* (subpath ");
			quote(fp, path);
			fprintf(fp, "))\n");
		}
	}
	for (i = 0; i < run->nhooks; i++)
		protect_hooks(fp, ws, run->hooks[i]);
	if (run->husky_pkg != NULL)
		protect_hooks(fp, ws, run->husky_pkg);
	fprintf(fp, "(deny file-write-unlink (literal ");
	quote(fp, ws);
	fprintf(fp, "))\n");

	fprintf(fp, "\n;; network\n(deny network*)\n");
	if (sp->network) {
		if (run->proxy_port > 0)
			fprintf(fp,
			    "(allow network-outbound (remote tcp "
			    "\"localhost:%d\"))  ; the egress proxy\n",
			    run->proxy_port);
		else
			fprintf(fp,
			    "(allow network-outbound (remote tcp "
			    "(string-append \"localhost:\" "
			    "(param \"PROXY_PORT\"))))  ; the egress proxy\n");
	}
	if (fclose(fp) != 0) {
		free(buf);
		return AL_ERR_ALLOC;
	}
	*out = buf;
	return 0;
fail:
	fclose(fp);
	free(buf);
	return rc;
}
