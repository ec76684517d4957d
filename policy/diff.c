/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/diff.h"

/*
 * The parser works on a private copy of the patch in which every line ends
 * in '\n'; hunks keep offsets into that copy, and diff_apply_file() walks
 * their bodies again, so the bytes applied are exactly the bytes that were
 * validated.
 */

struct diff_hunk {
	size_t		 old_start, old_count;	/* as written in the header */
	size_t		 new_start, new_count;
	size_t		 os;		/* 0-based old line it begins at */
	size_t		 hdr, hdrlen;	/* "@@ ... @@" in text */
	size_t		 body, bodyend;	/* body lines in text */
};

struct diff_file {
	char		*old_path;	/* NULL for /dev/null */
	char		*new_path;	/* NULL for /dev/null */
	enum diff_kind	 kind;
	size_t		 first_hunk;
	size_t		 nhunks;
	size_t		 added, removed;
	size_t		 added_bytes;	/* bound on the bytes '+' lines emit */
};

struct diff {
	char			*text;
	size_t			 len;
	struct diff_file	*files;
	size_t			 nfiles;
	struct diff_hunk	*hunks;
	size_t			 nhunks;
	size_t			 hunkcap;
};

struct parser {
	struct diff	*d;
	const char	*t;
	size_t		 len;
	size_t		 pos;		/* offset of the current line */
	size_t		 lineno;	/* 1-based number of the current line */
	char		*err;
	size_t		 errlen;
};

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Writes at most |max| bytes of s[0..n) to |out| as a C-style quoted
 * string, so that a message can show a hostile line safely, with its
 * carriage return and missing newline visible.
 */
static void
quote(char *out, size_t outlen, const char *s, size_t n, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;
	unsigned char c;

	if (outlen < 8)
		return;
	out[o++] = '"';
	for (i = 0; i < n && i < max && o + 6 < outlen; i++) {
		c = (unsigned char)s[i];
		if (c == '\n' || c == '\r' || c == '\t' || c == '"' ||
		    c == '\\') {
			out[o++] = '\\';
			out[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' :
			    c == '\t' ? 't' : (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 0xf];
		} else
			out[o++] = (char)c;
	}
	out[o++] = '"';
	if (i < n && o + 3 < outlen) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

/* Returns 1 with the current line (without '\n') in *s, *n; 0 at the end. */
static int
peek(const struct parser *p, const char **s, size_t *n)
{
	const char *nl;

	*s = NULL;
	*n = 0;
	if (p->pos >= p->len)
		return 0;
	*s = p->t + p->pos;
	nl = memchr(*s, '\n', p->len - p->pos);
	*n = (size_t)(nl - *s);
	return 1;
}

static void
advance(struct parser *p)
{
	const char *s;
	size_t n;

	if (peek(p, &s, &n)) {
		p->pos += n + 1;
		p->lineno++;
	}
}

static int
starts(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);

	return n >= pl && memcmp(s, prefix, pl) == 0;
}

/* Returns 1 if every line from the current one to the end is empty. */
static int
only_blank_left(const struct parser *p)
{
	size_t i;

	for (i = p->pos; i < p->len; i++)
		if (p->t[i] != '\n')
			return 0;
	return 1;
}

/* Reports an error at the current line, quoting it. */
static int
perr(struct parser *p, int rc, const char *what)
{
	char q[128];
	const char *s;
	size_t n;

	if (peek(p, &s, &n)) {
		quote(q, sizeof(q), s, n, 60);
		seterr(p->err, p->errlen, "patch line %zu: %s (line is %s%s)",
		    p->lineno, what, q, n > 0 && s[n - 1] == '\r' ?
		    "; CRLF line endings are allowed only in hunk lines" : "");
	} else
		seterr(p->err, p->errlen, "end of patch: %s", what);
	return rc;
}

/*
 * Checks a path after its a/ or b/ prefix is stripped: relative, no empty,
 * ".", ".." or ".git" component, no component with a leading or trailing
 * space, no backslash, no control character, valid UTF-8, bounded.  The
 * broker still resolves it beneath the workspace; this is the syntactic
 * half, refused before anything is read.
 */
static int
path_check(const char *s, size_t n, const char **why)
{
	size_t i, start, clen;

	*why = NULL;
	if (n == 0)
		return (*why = "empty path", AL_ERR_PATH);
	if (n > DIFF_MAX_PATH)
		return (*why = "path too long", AL_ERR_LIMIT);
	if (s[0] == '/')
		return (*why = "absolute path", AL_ERR_PATH);
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return (*why = "control character in path",
			    AL_ERR_PATH);
		if (s[i] == '\\')
			return (*why = "backslash in path", AL_ERR_PATH);
	}
	if (!utf8_valid(s, n))
		return (*why = "path is not valid UTF-8", AL_ERR_PATH);
	for (start = 0; start <= n; start = i + 1) {
		for (i = start; i < n && s[i] != '/'; i++)
			;
		clen = i - start;
		if (clen == 0)
			return (*why = "empty path component", AL_ERR_PATH);
		if (clen > DIFF_MAX_COMPONENT)
			return (*why = "path component too long",
			    AL_ERR_LIMIT);
		if ((clen == 1 && s[start] == '.') ||
		    (clen == 2 && memcmp(s + start, "..", 2) == 0))
			return (*why = "\".\" or \"..\" path component",
			    AL_ERR_PATH);
		/* "f " and "f" look alike to a reviewer; tools differ too. */
		if (s[start] == ' ' || s[i - 1] == ' ')
			return (*why = "path component begins or ends with a "
			    "space", AL_ERR_PATH);
		if (clen == 4 && strncasecmp(s + start, ".git", 4) == 0)
			return (*why = "\".git\" path component",
			    AL_ERR_PATH);
	}
	return 0;
}

/*
 * Parses the path of a "--- " or "+++ " line (s, n after the marker).
 * Sets *path to a new string without the prefix, or NULL for /dev/null.
 */
static int
header_path(struct parser *p, const char *s, size_t n, const char *prefix,
    char **path)
{
	const char *tab, *why;
	char msg[160];
	int rc;

	*path = NULL;
	if (n > 0 && s[0] == '"')
		return perr(p, AL_ERR_FORMAT,
		    "quoted (C-escaped) paths are not supported");
	if ((tab = memchr(s, '\t', n)) != NULL)
		n = (size_t)(tab - s);	/* a timestamp follows */
	if (n == 9 && memcmp(s, "/dev/null", 9) == 0)
		return 0;
	if (n < 2 || memcmp(s, prefix, 2) != 0) {
		snprintf(msg, sizeof(msg), "path must start with \"%s\" "
		    "(or be /dev/null)", prefix);
		return perr(p, AL_ERR_PATH, msg);
	}
	s += 2;
	n -= 2;
	if ((rc = path_check(s, n, &why)) != 0)
		return perr(p, rc, why);
	if ((*path = strndup(s, n)) == NULL)
		return AL_ERR_ALLOC;
	return 0;
}

/* Parses 1-9 decimal digits at s[*i]; more are refused as too large. */
static int
number(const char *s, size_t n, size_t *i, size_t *v)
{
	size_t digits = 0;

	*v = 0;
	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		if (++digits > 9)
			return AL_ERR_LIMIT;
		*v = *v * 10 + (size_t)(s[*i] - '0');
		(*i)++;
	}
	if (digits == 0)
		return AL_ERR_FORMAT;
	if (*v > DIFF_MAX_LINENO)
		return AL_ERR_LIMIT;
	return 0;
}

/* Parses "-A[,B] +C[,D] @@" after the leading "@@ ". */
static int
hunk_numbers(const char *s, size_t n, struct diff_hunk *h, size_t *hdrlen)
{
	size_t i = 3;
	int rc;

	if (i >= n || s[i++] != '-')
		return AL_ERR_FORMAT;
	if ((rc = number(s, n, &i, &h->old_start)) != 0)
		return rc;
	h->old_count = 1;
	if (i < n && s[i] == ',') {
		i++;
		if ((rc = number(s, n, &i, &h->old_count)) != 0)
			return rc;
	}
	if (n - i < 2 || s[i] != ' ' || s[i + 1] != '+')
		return AL_ERR_FORMAT;
	i += 2;
	if ((rc = number(s, n, &i, &h->new_start)) != 0)
		return rc;
	h->new_count = 1;
	if (i < n && s[i] == ',') {
		i++;
		if ((rc = number(s, n, &i, &h->new_count)) != 0)
			return rc;
	}
	if (n - i < 3 || memcmp(s + i, " @@", 3) != 0)
		return AL_ERR_FORMAT;
	i += 3;
	/* Only a section heading, set off by a space, may follow. */
	if (i < n && s[i] != ' ')
		return AL_ERR_FORMAT;
	*hdrlen = i;
	return 0;
}

static const char *
file_name(const struct diff_file *f)
{
	if (f->new_path != NULL)
		return f->new_path;
	if (f->old_path != NULL)
		return f->old_path;
	return "?";
}

/*
 * Parses one hunk starting at its "@@ " line.  *prev_end is the 0-based old
 * line after the previous hunk, *delta the new-minus-old line count of the
 * hunks so far; *last is set if the hunk ends a side without a newline, so
 * that no hunk may follow it.
 */
static int
parse_hunk(struct parser *p, struct diff_file *f, size_t *prev_end,
    long long *delta, int *last)
{
	struct diff *d = p->d;
	struct diff_hunk h, *nh;
	const char *s;
	size_t n, oldrem, newrem, hn, sn, hdrlen, hline;
	int rc, prev = 0, old_ended = 0, new_ended = 0;
	char msg[256];

	memset(&h, 0, sizeof(h));
	hn = f->nhunks + 1;
	(void)peek(p, &s, &n);
	hline = p->lineno;
	if ((rc = hunk_numbers(s, n, &h, &hdrlen)) != 0) {
		snprintf(msg, sizeof(msg), "file '%s' hunk %zu: %s",
		    file_name(f), hn, rc == AL_ERR_LIMIT ?
		    "number in hunk header too large" :
		    "malformed hunk header (want \"@@ -A,B +C,D @@\")");
		return perr(p, rc, msg);
	}
	if ((h.old_count > 0 && h.old_start == 0) ||
	    (h.new_count > 0 && h.new_start == 0)) {
		snprintf(msg, sizeof(msg), "file '%s' hunk %zu: line numbers "
		    "start at 1", file_name(f), hn);
		return perr(p, AL_ERR_FORMAT, msg);
	}
	if (h.old_count == 0 && h.new_count == 0) {
		snprintf(msg, sizeof(msg), "file '%s' hunk %zu: empty hunk",
		    file_name(f), hn);
		return perr(p, AL_ERR_FORMAT, msg);
	}
	/* With a count of 0 the start names the line before the hunk. */
	h.os = h.old_count > 0 ? h.old_start - 1 : h.old_start;
	sn = h.new_count > 0 ? h.new_start - 1 : h.new_start;
	if (f->nhunks > 0 && h.os < *prev_end) {
		snprintf(msg, sizeof(msg), "file '%s' hunk %zu: hunks overlap "
		    "or are out of order", file_name(f), hn);
		return perr(p, AL_ERR_FORMAT, msg);
	}
	if ((long long)sn != (long long)h.os + *delta) {
		snprintf(msg, sizeof(msg), "file '%s' hunk %zu: new start %zu "
		    "does not follow from old start %zu and the hunks before "
		    "it (expected %lld)", file_name(f), hn, h.new_start,
		    h.old_start, (long long)h.os + *delta +
		    (h.new_count > 0 ? 1 : 0));
		return perr(p, AL_ERR_FORMAT, msg);
	}
	if (d->nhunks >= DIFF_MAX_HUNKS) {
		snprintf(msg, sizeof(msg), "more than %d hunks in the patch",
		    DIFF_MAX_HUNKS);
		return perr(p, AL_ERR_LIMIT, msg);
	}
	h.hdr = p->pos;
	h.hdrlen = hdrlen;
	advance(p);
	h.body = p->pos;

	oldrem = h.old_count;
	newrem = h.new_count;
	for (;;) {
		if (!peek(p, &s, &n)) {
			if (oldrem == 0 && newrem == 0)
				break;
			snprintf(msg, sizeof(msg), "file '%s' hunk %zu (line "
			    "%zu): patch ends with %zu old and %zu new lines "
			    "of the hunk missing", file_name(f), hn, hline,
			    oldrem, newrem);
			return perr(p, AL_ERR_FORMAT, msg);
		}
		if (n > 0 && s[0] == '\\') {
			/* "\ No newline at end of file" for the line before. */
			/*
			 * Like git: "\ " and at least 12 bytes, so that a
			 * translated marker passes and a stray '\' does not.
			 */
			if (n < 12 || s[1] != ' ') {
				snprintf(msg, sizeof(msg), "file '%s' hunk %zu:"
				    " malformed \"\\ No newline at end of "
				    "file\" line", file_name(f), hn);
				return perr(p, AL_ERR_FORMAT, msg);
			}
			if (prev == 0) {
				snprintf(msg, sizeof(msg), "file '%s' hunk %zu:"
				    " \"\\ No newline\" marker without a line "
				    "before it", file_name(f), hn);
				return perr(p, AL_ERR_FORMAT, msg);
			}
			if (prev == ' ' || prev == '-')
				old_ended = 1;
			if (prev == ' ' || prev == '+')
				new_ended = 1;
			prev = 0;
			advance(p);
			continue;
		}
		if (oldrem == 0 && newrem == 0)
			break;
		prev = n == 0 ? ' ' : s[0];
		if (prev != ' ' && prev != '-' && prev != '+') {
			snprintf(msg, sizeof(msg), "file '%s' hunk %zu (line "
			    "%zu): expected %zu more old and %zu more new lines"
			    ", found a line not starting with ' ', '-', '+' "
			    "or '\\'", file_name(f), hn, hline, oldrem,
			    newrem);
			return perr(p, AL_ERR_FORMAT, msg);
		}
		if (((prev == ' ' || prev == '-') && old_ended) ||
		    ((prev == ' ' || prev == '+') && new_ended)) {
			snprintf(msg, sizeof(msg), "file '%s' hunk %zu: line "
			    "after the end of file (\"\\ No newline\")",
			    file_name(f), hn);
			return perr(p, AL_ERR_FORMAT, msg);
		}
		if (((prev == ' ' || prev == '-') && oldrem == 0) ||
		    ((prev == ' ' || prev == '+') && newrem == 0)) {
			snprintf(msg, sizeof(msg), "file '%s' hunk %zu (line "
			    "%zu): more %s lines than the header's count",
			    file_name(f), hn, hline, prev == '+' ? "new" :
			    prev == '-' ? "old" : "context");
			return perr(p, AL_ERR_FORMAT, msg);
		}
		if (prev != '+')
			oldrem--;
		if (prev != '-')
			newrem--;
		if (prev == '+') {
			f->added++;
			f->added_bytes += n;	/* n - 1 bytes and a '\n' */
		} else if (prev == '-')
			f->removed++;
		advance(p);
	}
	h.bodyend = p->pos;
	*last = old_ended || new_ended;
	*prev_end = h.os + h.old_count;
	*delta += (long long)h.new_count - (long long)h.old_count;

	if (d->nhunks == d->hunkcap) {
		n = d->hunkcap ? d->hunkcap * 2 : 16;
		if ((nh = reallocarray(d->hunks, n, sizeof(*nh))) == NULL)
			return AL_ERR_ALLOC;
		d->hunks = nh;
		d->hunkcap = n;
	}
	d->hunks[d->nhunks++] = h;
	f->nhunks++;
	return 0;
}

/*
 * Parses "diff --git a/P b/P".  The two paths must be equal: a header that
 * names two paths is a rename or copy, refused, and requiring equality is
 * also what makes a path with spaces unambiguous.
 */
static int
git_header(struct parser *p, char **path)
{
	const char *s, *why;
	size_t n, pn;
	int rc;

	*path = NULL;
	(void)peek(p, &s, &n);
	s += 11;
	n -= 11;
	if (n > 0 && s[0] == '"')
		return perr(p, AL_ERR_FORMAT,
		    "quoted (C-escaped) paths are not supported");
	pn = n >= 5 ? (n - 5) / 2 : 0;
	if (n < 5 || (n - 5) % 2 != 0 || memcmp(s, "a/", 2) != 0 ||
	    memcmp(s + 2 + pn, " b/", 3) != 0 ||
	    memcmp(s + 2, s + 5 + pn, pn) != 0)
		return perr(p, AL_ERR_FORMAT, "git header must read "
		    "\"diff --git a/PATH b/PATH\" with the same PATH twice "
		    "(renames and copies are not supported)");
	if ((rc = path_check(s + 2, pn, &why)) != 0)
		return perr(p, rc, why);
	if ((*path = strndup(s + 2, pn)) == NULL)
		return AL_ERR_ALLOC;
	return 0;
}

/* Checks the mode in a git extended header line; only regular files. */
static int
git_mode(struct parser *p, const char *m, size_t n, int allow_exec)
{
	if (n == 6 && memcmp(m, "100644", 6) == 0)
		return 0;
	if (n == 6 && memcmp(m, "100755", 6) == 0) {
		if (allow_exec)
			return 0;
		return perr(p, AL_ERR_FORMAT,
		    "creating executable files is not supported");
	}
	if (n == 6 && memcmp(m, "120000", 6) == 0)
		return perr(p, AL_ERR_FORMAT, "symbolic links are not "
		    "supported");
	if (n == 6 && memcmp(m, "160000", 6) == 0)
		return perr(p, AL_ERR_FORMAT, "submodules are not supported");
	return perr(p, AL_ERR_FORMAT, "unknown file mode");
}

/*
 * Parses the extended header lines after "diff --git" up to "--- ", the next
 * file or the end.  Sets *isnew / *isdel.
 */
static int
git_extended(struct parser *p, int *isnew, int *isdel)
{
	const char *s, *sp;
	size_t n;
	int rc, seen_index = 0;

	*isnew = *isdel = 0;
	while (peek(p, &s, &n) && !starts(s, n, "--- ") &&
	    !starts(s, n, "diff --git ") && !only_blank_left(p)) {
		if (starts(s, n, "index ")) {
			if (seen_index)
				return perr(p, AL_ERR_FORMAT,
				    "repeated index line");
			seen_index = 1;
			/* "index abc..def" or "index abc..def 100644" */
			if ((sp = memchr(s + 6, ' ', n - 6)) != NULL &&
			    (rc = git_mode(p, sp + 1,
			    n - (size_t)(sp + 1 - s), 1)) != 0)
				return rc;
		} else if (starts(s, n, "new file mode ")) {
			if (*isnew || *isdel)
				return perr(p, AL_ERR_FORMAT,
				    "conflicting git header lines");
			if ((rc = git_mode(p, s + 14, n - 14, 0)) != 0)
				return rc;
			*isnew = 1;
		} else if (starts(s, n, "deleted file mode ")) {
			if (*isnew || *isdel)
				return perr(p, AL_ERR_FORMAT,
				    "conflicting git header lines");
			if ((rc = git_mode(p, s + 18, n - 18, 1)) != 0)
				return rc;
			*isdel = 1;
		} else if (starts(s, n, "old mode ") ||
		    starts(s, n, "new mode "))
			return perr(p, AL_ERR_FORMAT,
			    "mode changes are not supported");
		else if (starts(s, n, "rename ") ||
		    starts(s, n, "similarity index ") ||
		    starts(s, n, "dissimilarity index "))
			return perr(p, AL_ERR_FORMAT,
			    "renames are not supported");
		else if (starts(s, n, "copy "))
			return perr(p, AL_ERR_FORMAT,
			    "copies are not supported");
		else if (starts(s, n, "GIT binary patch") ||
		    starts(s, n, "Binary files "))
			return perr(p, AL_ERR_FORMAT,
			    "binary patches are not supported");
		else
			return perr(p, AL_ERR_FORMAT,
			    "unexpected line in git header");
		advance(p);
	}
	return 0;
}

static int
parse_file(struct parser *p, struct diff_file *f)
{
	struct diff *d = p->d;
	const char *s;
	size_t n, i, prev_end = 0;
	long long delta = 0;
	char *gitpath = NULL, msg[256];
	int rc, git = 0, isnew = 0, isdel = 0, last = 0;

	(void)peek(p, &s, &n);
	if (starts(s, n, "diff --git ")) {
		if ((rc = git_header(p, &gitpath)) != 0)
			return rc;
		git = 1;
		advance(p);
		if ((rc = git_extended(p, &isnew, &isdel)) != 0)
			goto out;
		(void)peek(p, &s, &n);
	}
	if (starts(s, n, "Binary files ")) {
		rc = perr(p, AL_ERR_FORMAT, "binary patches are not supported");
		goto out;
	}
	if (!starts(s, n, "--- ")) {
		if (!git) {
			rc = perr(p, AL_ERR_FORMAT, "expected a file header "
			    "(\"diff --git\" or \"--- a/PATH\")");
			goto out;
		}
		if (!isnew && !isdel) {
			rc = perr(p, AL_ERR_FORMAT, "git header without a "
			    "content change (mode-only changes are not "
			    "supported)");
			goto out;
		}
		/* An empty file created or deleted: git writes no hunks. */
		f->kind = isnew ? DIFF_CREATE : DIFF_DELETE;
		if (isnew)
			f->new_path = gitpath;
		else
			f->old_path = gitpath;
		gitpath = NULL;
		f->first_hunk = d->nhunks;
		rc = 0;
		goto dup;
	}
	if ((rc = header_path(p, s + 4, n - 4, "a/", &f->old_path)) != 0)
		goto out;
	advance(p);
	if (!peek(p, &s, &n) || !starts(s, n, "+++ ")) {
		rc = perr(p, AL_ERR_FORMAT, "expected \"+++ b/PATH\" after "
		    "\"--- \"");
		goto out;
	}
	if ((rc = header_path(p, s + 4, n - 4, "b/", &f->new_path)) != 0)
		goto out;
	if (f->old_path == NULL && f->new_path == NULL) {
		rc = perr(p, AL_ERR_FORMAT, "both sides are /dev/null");
		goto out;
	}
	if (f->old_path == NULL)
		f->kind = DIFF_CREATE;
	else if (f->new_path == NULL)
		f->kind = DIFF_DELETE;
	else if (strcmp(f->old_path, f->new_path) != 0) {
		rc = perr(p, AL_ERR_FORMAT, "old and new paths differ "
		    "(renames are not supported)");
		goto out;
	} else
		f->kind = DIFF_MODIFY;
	if (git && (strcmp(gitpath, file_name(f)) != 0 ||
	    isnew != (f->kind == DIFF_CREATE) ||
	    isdel != (f->kind == DIFF_DELETE))) {
		rc = perr(p, AL_ERR_FORMAT, "file header does not agree with "
		    "its git header");
		goto out;
	}
	advance(p);

	f->first_hunk = d->nhunks;
	while (peek(p, &s, &n) && starts(s, n, "@@ ")) {
		if (last) {
			snprintf(msg, sizeof(msg), "file '%s' hunk %zu: hunk "
			    "after the end of file (\"\\ No newline\")",
			    file_name(f), f->nhunks + 1);
			rc = perr(p, AL_ERR_FORMAT, msg);
			goto out;
		}
		if ((rc = parse_hunk(p, f, &prev_end, &delta, &last)) != 0)
			goto out;
		/*
		 * A body line right after the counted lines means the header
		 * undercounts; say so rather than "expected a file header".
		 */
		if (peek(p, &s, &n) && n > 0 && (s[0] == ' ' || s[0] == '+' ||
		    (s[0] == '-' && !starts(s, n, "--- ")))) {
			const struct diff_hunk *h = &d->hunks[d->nhunks - 1];

			snprintf(msg, sizeof(msg), "file '%s' hunk %zu "
			    "(%.*s): more lines than the header counts",
			    file_name(f), f->nhunks, (int)h->hdrlen,
			    d->text + h->hdr);
			rc = perr(p, AL_ERR_FORMAT, msg);
			goto out;
		}
	}
	if (f->nhunks == 0) {
		snprintf(msg, sizeof(msg), "file '%s': expected a hunk "
		    "(\"@@ -A,B +C,D @@\")", file_name(f));
		rc = perr(p, AL_ERR_FORMAT, msg);
		goto out;
	}
	/*
	 * diff(1) and git write a create or a delete as one hunk, and git
	 * refuses more; two hunks at line 0 would be read differently.
	 */
	if (f->kind != DIFF_MODIFY && f->nhunks > 1) {
		snprintf(msg, sizeof(msg), "file '%s': a %s must be one hunk",
		    file_name(f), f->kind == DIFF_CREATE ? "new file" :
		    "deleted file");
		rc = perr(p, AL_ERR_FORMAT, msg);
		goto out;
	}
	for (i = 0; i < f->nhunks; i++) {
		const struct diff_hunk *h = &d->hunks[f->first_hunk + i];

		if (f->kind == DIFF_CREATE && (h->old_count != 0 ||
		    h->old_start != 0)) {
			snprintf(msg, sizeof(msg), "file '%s' hunk %zu: a new "
			    "file's hunk must read \"@@ -0,0 +...\"",
			    file_name(f), i + 1);
			rc = perr(p, AL_ERR_FORMAT, msg);
			goto out;
		}
		if (f->kind == DIFF_DELETE && (h->new_count != 0 ||
		    h->old_start != 1)) {
			snprintf(msg, sizeof(msg), "file '%s' hunk %zu: a "
			    "deleted file's hunk must read \"@@ -1,N +0,0 @@\"",
			    file_name(f), i + 1);
			rc = perr(p, AL_ERR_FORMAT, msg);
			goto out;
		}
	}
 dup:
	for (i = 0; i < d->nfiles; i++)
		if (strcmp(file_name(&d->files[i]), file_name(f)) == 0) {
			snprintf(msg, sizeof(msg), "file '%s' appears twice in "
			    "the patch", file_name(f));
			rc = perr(p, AL_ERR_FORMAT, msg);
			goto out;
		}
 out:
	free(gitpath);
	return rc;
}

void
diff_free(struct diff *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->nfiles; i++) {
		free(d->files[i].old_path);
		free(d->files[i].new_path);
	}
	free(d->files);
	free(d->hunks);
	free(d->text);
	free(d);
}

int
diff_parse(const char *text, size_t len, struct diff **out, char *err,
    size_t errlen)
{
	struct parser p;
	struct diff *d;
	struct diff_file *f;
	const char *nul;
	int rc;

	*out = NULL;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (len > DIFF_MAX_PATCH) {
		seterr(err, errlen, "patch is %zu bytes, more than the limit "
		    "of %d", len, DIFF_MAX_PATCH);
		return AL_ERR_LIMIT;
	}
	if (text == NULL && len > 0)
		return AL_ERR_INTERNAL;
	if (len > 0 && (nul = memchr(text, '\0', len)) != NULL) {
		seterr(err, errlen, "patch contains a NUL byte at offset %zu",
		    (size_t)(nul - text));
		return AL_ERR_FORMAT;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return AL_ERR_ALLOC;
	/* A copy in which the last line, too, ends in '\n'. */
	if ((d->text = malloc(len + 2)) == NULL) {
		free(d);
		return AL_ERR_ALLOC;
	}
	if (len > 0)
		memcpy(d->text, text, len);
	d->len = len;
	if (len > 0 && d->text[len - 1] != '\n')
		d->text[d->len++] = '\n';
	d->text[d->len] = '\0';
	if ((d->files = calloc(DIFF_MAX_FILES, sizeof(*d->files))) == NULL) {
		diff_free(d);
		return AL_ERR_ALLOC;
	}

	memset(&p, 0, sizeof(p));
	p.d = d;
	p.t = d->text;
	p.len = d->len;
	p.lineno = 1;
	p.err = err;
	p.errlen = errlen;
	while (p.pos < p.len && !only_blank_left(&p)) {
		if (d->nfiles == DIFF_MAX_FILES) {
			rc = perr(&p, AL_ERR_LIMIT, "more files than the "
			    "limit of 256");
			goto fail;
		}
		f = &d->files[d->nfiles];
		rc = parse_file(&p, f);
		/* Count it even on failure, so that diff_free() frees it. */
		d->nfiles++;
		if (rc != 0)
			goto fail;
	}
	if (d->nfiles == 0) {
		seterr(err, errlen, "patch is empty");
		rc = AL_ERR_FORMAT;
		goto fail;
	}
	*out = d;
	return 0;
 fail:
	if (rc == AL_ERR_ALLOC)
		seterr(err, errlen, "out of memory");
	diff_free(d);
	return rc;
}

size_t
diff_nfiles(const struct diff *d)
{
	return d->nfiles;
}

enum diff_kind
diff_file_kind(const struct diff *d, size_t i)
{
	return i < d->nfiles ? d->files[i].kind : DIFF_MODIFY;
}

const char *
diff_old_path(const struct diff *d, size_t i)
{
	return i < d->nfiles ? d->files[i].old_path : NULL;
}

const char *
diff_new_path(const struct diff *d, size_t i)
{
	return i < d->nfiles ? d->files[i].new_path : NULL;
}

const char *
diff_path(const struct diff *d, size_t i)
{
	return i < d->nfiles ? file_name(&d->files[i]) : NULL;
}

size_t
diff_file_nhunks(const struct diff *d, size_t i)
{
	return i < d->nfiles ? d->files[i].nhunks : 0;
}

void
diff_file_stat(const struct diff *d, size_t i, size_t *added, size_t *removed)
{
	if (added != NULL)
		*added = i < d->nfiles ? d->files[i].added : 0;
	if (removed != NULL)
		*removed = i < d->nfiles ? d->files[i].removed : 0;
}

struct applier {
	const struct diff	*d;
	const struct diff_file	*f;
	char			*out;
	size_t			 outlen, cap;
	char			*err;
	size_t			 errlen;
};

/* The length of the old line at old[pos], with its '\n' if it has one. */
static size_t
old_line(const char *old, size_t oldlen, size_t pos)
{
	const char *nl;

	if ((nl = memchr(old + pos, '\n', oldlen - pos)) == NULL)
		return oldlen - pos;
	return (size_t)(nl - (old + pos)) + 1;
}

static int
hunk_err(struct applier *a, size_t hn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
hunk_err(struct applier *a, size_t hn, const char *fmt, ...)
{
	const struct diff_hunk *h;
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (hn >= a->f->nhunks) {
		seterr(a->err, a->errlen, "file '%s' does not apply: %s",
		    file_name(a->f), what);
		return AL_ERR_CONFLICT;
	}
	h = &a->d->hunks[a->f->first_hunk + hn];
	seterr(a->err, a->errlen, "file '%s': hunk %zu (%.*s) does not apply: "
	    "%s", file_name(a->f), hn + 1, (int)h->hdrlen, a->d->text + h->hdr,
	    what);
	return AL_ERR_CONFLICT;
}

/*
 * Appends s[0..n) to the result.  Nothing may follow a line that has no
 * newline at end of file: that would glue two lines together.
 */
static int
emit(struct applier *a, size_t hn, const char *s, size_t n)
{
	if (n == 0)
		return 0;
	if (a->outlen > 0 && a->out[a->outlen - 1] != '\n')
		return hunk_err(a, hn, "text would follow a line that has no "
		    "newline at end of file");
	if (a->cap - a->outlen < n)
		return AL_ERR_INTERNAL;	/* the bound was computed wrong */
	memcpy(a->out + a->outlen, s, n);
	a->outlen += n;
	return 0;
}

int
diff_apply_file(const struct diff *d, size_t i, const char *old,
    size_t oldlen, char **newbuf, size_t *newlen, char *err, size_t errlen)
{
	struct applier a;
	const struct diff_hunk *h;
	const char *s, *nl, *next, *end;
	char qe[160], qf[160];
	size_t hn, pos = 0, line = 0, n, ln, want;
	int rc, nonl;
	char c;

	*newbuf = NULL;
	*newlen = 0;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (d == NULL || i >= d->nfiles || (old == NULL && oldlen > 0))
		return AL_ERR_INTERNAL;
	if (old == NULL)
		old = "";
	memset(&a, 0, sizeof(a));
	a.d = d;
	a.f = &d->files[i];
	a.err = err;
	a.errlen = errlen;
	if (a.f->kind == DIFF_CREATE && oldlen != 0) {
		seterr(err, errlen, "file '%s': the patch creates it, but it "
		    "exists and is not empty", file_name(a.f));
		return AL_ERR_CONFLICT;
	}
	/* Context comes from old, so old plus the added lines bound it. */
	if (oldlen > SIZE_MAX - a.f->added_bytes - 1)
		return AL_ERR_ALLOC;
	a.cap = oldlen + a.f->added_bytes;
	if ((a.out = malloc(a.cap + 1)) == NULL)
		return AL_ERR_ALLOC;

	for (hn = 0; hn < a.f->nhunks; hn++) {
		h = &d->hunks[a.f->first_hunk + hn];
		while (line < h->os) {
			if (pos == oldlen) {
				rc = hunk_err(&a, hn, "it starts at old line "
				    "%zu but the file has %zu lines",
				    h->old_start, line);
				goto fail;
			}
			ln = old_line(old, oldlen, pos);
			if ((rc = emit(&a, hn, old + pos, ln)) != 0)
				goto fail;
			pos += ln;
			line++;
		}
		end = d->text + h->bodyend;
		for (s = d->text + h->body; s < end; s = next) {
			nl = memchr(s, '\n', (size_t)(end - s));
			next = nl + 1;
			n = (size_t)(nl - s);
			c = n == 0 ? ' ' : s[0];
			if (c == '\\')
				continue;
			/* The line, without its prefix, and its newline. */
			nonl = next < end && *next == '\\';
			if (n > 0) {
				s++;
				n--;
			}
			want = n + (nonl ? 0 : 1);
			if (c == '+') {
				if ((rc = emit(&a, hn, s, want)) != 0)
					goto fail;
				continue;
			}
			ln = pos < oldlen ? old_line(old, oldlen, pos) : 0;
			if (pos == oldlen || ln != want ||
			    memcmp(old + pos, s, n) != 0 ||
			    (!nonl && old[pos + n] != '\n')) {
				quote(qe, sizeof(qe), s, want, 72);
				if (pos == oldlen)
					(void)snprintf(qf, sizeof(qf),
					    "end of file");
				else
					quote(qf, sizeof(qf), old + pos, ln,
					    72);
				rc = hunk_err(&a, hn, "old line %zu differs: "
				    "expected %s, found %s", line + 1, qe, qf);
				goto fail;
			}
			if (c == ' ' && (rc = emit(&a, hn, old + pos, ln)) != 0)
				goto fail;
			pos += ln;
			line++;
		}
	}
	if (a.f->kind == DIFF_DELETE && (a.outlen != 0 || pos != oldlen)) {
		seterr(err, errlen, "file '%s': the patch deletes it, but "
		    "lines remain that it does not remove (%zu bytes)",
		    file_name(a.f), a.outlen + (oldlen - pos));
		rc = AL_ERR_CONFLICT;
		goto fail;
	}
	if ((rc = emit(&a, a.f->nhunks > 0 ? a.f->nhunks - 1 : 0, old + pos,
	    oldlen - pos)) != 0)
		goto fail;
	a.out[a.outlen] = '\0';
	*newbuf = a.out;
	*newlen = a.outlen;
	return 0;
 fail:
	free(a.out);
	return rc;
}
