/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * excerpt: head + failure lines + tail of a long text, within a cap.
 *
 * Everything is measured in bytes of valid UTF-8, so a result of at most
 * |cap| bytes is at most |cap| characters whatever the text.  The budget
 * is spent in order of what explains a failure best: the lines matching a
 * failure pattern (at most half), then the head (two fifths of the rest),
 * then the tail (what is left: a failing build's summary is at its end).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "broker/excerpt.h"
#include "common/log.h"
#include "common/util.h"

const char *const excerpt_default_patterns[] = { "error", "fail", "panic",
	"assert", "traceback", "exception", NULL };

#define MARKER_RESERVE 560 /* bytes kept for the marker line */
#define LABEL_RESERVE 80 /* bytes kept for each region's label */
#define LINE_SHOWN_MAX 1000 /* longest line shown whole */
#define CUT_MARK " [...]"

enum { KEEP_NONE, KEEP_HEAD, KEEP_MATCH, KEEP_TAIL };

struct text {
	char *s; /* sanitized, NUL-terminated */
	size_t len;
	size_t *off; /* start of each line */
	size_t *llen; /* length of each line, without its \n */
	size_t n; /* lines */
};

struct out {
	char *s;
	size_t len, cap;
};

static void
out_add(struct out *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 1024;
		b->s = xreallocarray(b->s, 1, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void out_printf(struct out *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
out_printf(struct out *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("%s: out of memory", __func__);
	out_add(b, s, (size_t)n);
	free(s);
}

size_t
excerpt_count_lines(const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	size_t n = 0;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	if (len > 0 && data[len - 1] != '\n')
		n++;
	return n;
}

int
excerpt_lines(const char *data, size_t len, size_t start, size_t end,
    size_t *off, size_t *n)
{
	size_t i = 0, line = 1, from;

	*off = 0;
	*n = 0;
	if (start == 0 || (end != 0 && end < start))
		return -1;
	while (line < start && i < len) {
		const char *nl = memchr(data + i, '\n', len - i);

		if (nl == NULL)
			return -1;
		i = (size_t)(nl - data) + 1;
		line++;
	}
	if (line < start || i >= len)
		return -1;
	from = i;
	while (i < len && (end == 0 || line <= end)) {
		const char *nl = memchr(data + i, '\n', len - i);

		i = nl == NULL ? len : (size_t)(nl - data) + 1;
		line++;
	}
	*off = from;
	*n = i - from;
	return 0;
}

static void
text_init(struct text *t, const char *data, size_t len)
{
	size_t i, start = 0, slots = 64;
	char *tmp;

	/* A NUL would end the string: it shows as a space. */
	if (memchr(data, '\0', len) == NULL)
		t->s = utf8_sanitize(data, len);
	else {
		tmp = xcalloc(1, len + 1);
		for (i = 0; i < len; i++)
			tmp[i] = data[i] == '\0' ? ' ' : data[i];
		t->s = utf8_sanitize(tmp, len);
		free(tmp);
	}
	t->len = strlen(t->s);
	t->n = 0;
	t->off = xcalloc(slots, sizeof(*t->off));
	t->llen = xcalloc(slots, sizeof(*t->llen));
	for (i = 0; i <= t->len; i++) {
		if (i < t->len && t->s[i] != '\n')
			continue;
		if (i == t->len && start == t->len)
			break;
		if (t->n == slots) {
			slots *= 2;
			t->off = xreallocarray(t->off, slots, sizeof(*t->off));
			t->llen =
			    xreallocarray(t->llen, slots, sizeof(*t->llen));
		}
		t->off[t->n] = start;
		t->llen[t->n] = i - start;
		t->n++;
		start = i + 1;
	}
}

static void
text_clear(struct text *t)
{
	free(t->s);
	free(t->off);
	free(t->llen);
}

/* Bytes of line |i| as shown: cut at a character boundary if too long. */
static size_t
shown_len(const struct text *t, size_t i, size_t linemax)
{
	size_t n = t->llen[i];

	if (n <= linemax)
		return n;
	n = linemax;
	while (n > 0 && ((unsigned char)t->s[t->off[i] + n] & 0xc0) == 0x80)
		n--;
	return n;
}

/* What line |i| costs in the result, with its newline and cut mark. */
static size_t
line_cost(const struct text *t, size_t i, size_t linemax)
{
	size_t n = shown_len(t, i, linemax);

	return n + 1 + (n < t->llen[i] ? sizeof(CUT_MARK) - 1 : 0);
}

static void
emit_line(struct out *b, const struct text *t, size_t i, size_t linemax)
{
	size_t n = shown_len(t, i, linemax);

	out_add(b, t->s + t->off[i], n);
	if (n < t->llen[i])
		out_add(b, CUT_MARK, sizeof(CUT_MARK) - 1);
	out_add(b, "\n", 1);
}

static int
line_matches(const struct text *t, size_t i, const char *const *pats)
{
	char *line;
	int hit = 0;

	line = xcalloc(1, t->llen[i] + 1);
	memcpy(line, t->s + t->off[i], t->llen[i]);
	for (; *pats != NULL && !hit; pats++)
		if ((*pats)[0] != '\0' && strcasestr(line, *pats) != NULL)
			hit = 1;
	free(line);
	return hit;
}

/* Cuts b to at most |cap| bytes, at a character boundary. */
static void
out_clamp(struct out *b, size_t cap)
{
	if (b->len <= cap)
		return;
	b->len = cap;
	while (b->len > 0 && ((unsigned char)b->s[b->len] & 0xc0) == 0x80)
		b->len--;
	b->s[b->len] = '\0';
}

static void
marker(struct out *b, const struct excerpt_opts *o, size_t cut_lines,
    size_t total_lines, size_t cut_bytes, size_t total_bytes)
{
	out_printf(b,
	    "[airlock: %zu of %zu lines (%zu of %zu bytes) not "
	    "shown",
	    cut_lines, total_lines, cut_bytes, total_bytes);
	if (o->uri != NULL && o->uri[0] != '\0')
		out_printf(b, "; full text: %.200s", o->uri);
	if (o->how != NULL && o->how[0] != '\0')
		out_printf(b, "; %.160s", o->how);
	out_add(b, "]\n", 2);
}

char *
excerpt_make(const char *data, size_t len, const struct excerpt_opts *o,
    struct excerpt_info *info)
{
	const char *const *pats =
	    o->patterns != NULL ? o->patterns : excerpt_default_patterns;
	struct text t;
	struct out b = { NULL, 0, 0 };
	size_t cap = o->cap < EXCERPT_CAP_MIN ? EXCERPT_CAP_MIN : o->cap;
	size_t first = o->first_line ? o->first_line : 1;
	size_t budget, fbudget, used = 0, hbudget, i, j, linemax;
	size_t shown_lines = 0, shown_bytes = 0, matches = 0;
	unsigned char *keep;
	int gap_seen = 0;

	text_init(&t, data, len);
	if (info != NULL) {
		memset(info, 0, sizeof(*info));
		info->bytes = len;
		info->lines = t.n;
	}
	if (t.len <= cap) {
		char *whole = t.s;

		t.s = NULL;
		text_clear(&t);
		return whole;
	}
	budget = cap - MARKER_RESERVE;
	linemax = budget / 8 < LINE_SHOWN_MAX ? budget / 8 : LINE_SHOWN_MAX;
	if (linemax < 16)
		linemax = 16;
	keep = xcalloc(t.n ? t.n : 1, 1);

	/* The lines that say why it failed, from anywhere. */
	if (o->failed && !o->head_only) {
		fbudget = budget / 2;
		for (i = 0; i < t.n; i++) {
			size_t lo, hi, cost = LABEL_RESERVE;

			if (!line_matches(&t, i, pats))
				continue;
			lo = i > o->context ? i - o->context : 0;
			hi = i + o->context < t.n ? i + o->context : t.n - 1;
			for (j = lo; j <= hi; j++)
				if (keep[j] == KEEP_NONE)
					cost += line_cost(&t, j, linemax);
			if (used + cost > fbudget)
				break;
			for (j = lo; j <= hi; j++)
				keep[j] = KEEP_MATCH;
			used += cost;
			matches++;
		}
	}
	/* The head, then the tail with what is left. */
	hbudget = o->head_only ? budget - used : (budget - used) * 2 / 5;
	for (i = 0, j = 0; i < t.n; i++) {
		size_t cost = keep[i] ? 0 : line_cost(&t, i, linemax);

		if (j + cost > hbudget)
			break;
		if (keep[i] == KEEP_NONE)
			keep[i] = KEEP_HEAD;
		j += cost;
	}
	used += j;
	if (!o->head_only) {
		used += LABEL_RESERVE;
		for (i = t.n; i > 0; i--) {
			size_t cost =
			    keep[i - 1] ? 0 : line_cost(&t, i - 1, linemax);

			if (used + cost > budget)
				break;
			if (keep[i - 1] == KEEP_NONE)
				keep[i - 1] = KEEP_TAIL;
			used += cost;
		}
	}

	for (i = 0; i < t.n; i++)
		if (keep[i]) {
			shown_lines++;
			shown_bytes += t.llen[i] + 1;
		}
	if (shown_bytes > t.len)
		shown_bytes = t.len;
	for (i = 0; i < t.n; i++) {
		if (keep[i] == KEEP_NONE)
			continue;
		if (i > 0 && keep[i - 1] == KEEP_NONE) {
			/* A region after a gap: the marker once, then a label. */
			if (!gap_seen)
				marker(&b, o, t.n - shown_lines, t.n,
				    t.len - shown_bytes, t.len);
			gap_seen = 1;
			for (j = i; j + 1 < t.n && keep[j + 1]; j++)
				;
			out_printf(&b, "[airlock: lines %zu-%zu of %zu%s]\n",
			    first + i, first + j, first + t.n - 1,
			    keep[i] == KEEP_MATCH ? ", around a failure line"
				: j + 1 == t.n	  ? ", the end"
						  : "");
		}
		emit_line(&b, &t, i, linemax);
	}
	if (!gap_seen)
		marker(
		    &b, o, t.n - shown_lines, t.n, t.len - shown_bytes, t.len);
	out_clamp(&b, cap);
	if (info != NULL) {
		info->truncated = 1;
		info->matches = matches;
	}
	free(keep);
	text_clear(&t);
	return b.s;
}

char *
excerpt_grep(const char *data, size_t len, const char *pattern,
    const struct excerpt_opts *o, struct excerpt_info *info)
{
	const char *pats[2] = { pattern, NULL };
	struct text t;
	struct out b = { NULL, 0, 0 };
	size_t cap = o->cap < EXCERPT_CAP_MIN ? EXCERPT_CAP_MIN : o->cap;
	size_t first = o->first_line ? o->first_line : 1;
	size_t i, j, lo, hi, last = 0, nmatch = 0, left = 0, linemax;
	int any = 0, full = 0;

	text_init(&t, data, len);
	linemax = (cap - MARKER_RESERVE / 2) / 8 < LINE_SHOWN_MAX
	    ? (cap - MARKER_RESERVE / 2) / 8
	    : LINE_SHOWN_MAX;
	out_add(&b, "", 0);
	for (i = 0; i < t.n; i++) {
		struct out g = { NULL, 0, 0 };

		if (pattern[0] == '\0' || !line_matches(&t, i, pats))
			continue;
		nmatch++;
		if (full) {
			left++;
			continue;
		}
		lo = i > o->context ? i - o->context : 0;
		hi = i + o->context < t.n ? i + o->context : t.n - 1;
		if (any && lo < last)
			lo = last;
		if (any && lo > last)
			out_add(&g, "--\n", 3);
		for (j = lo; j <= hi; j++) {
			int hit = j == i || line_matches(&t, j, pats);

			out_printf(&g, "%zu%c", first + j, hit ? ':' : '-');
			emit_line(&g, &t, j, linemax);
		}
		if (b.len + g.len + MARKER_RESERVE / 2 > cap) {
			full = 1;
			left++;
			free(g.s);
			continue;
		}
		if (g.s != NULL)
			out_add(&b, g.s, g.len);
		free(g.s);
		last = hi + 1;
		any = 1;
		/* A match inside the context just shown is not shown twice. */
		while (i + 1 < t.n && i + 1 < last) {
			i++;
			if (line_matches(&t, i, pats))
				nmatch++;
		}
	}
	if (left > 0) {
		out_printf(
		    &b, "[airlock: %zu more matching lines not shown", left);
		if (o->uri != NULL && o->uri[0] != '\0')
			out_printf(&b, "; full text: %.300s", o->uri);
		if (o->how != NULL && o->how[0] != '\0')
			out_printf(&b, "; %.150s", o->how);
		out_add(&b, "]\n", 2);
	}
	out_clamp(&b, cap);
	if (info != NULL) {
		memset(info, 0, sizeof(*info));
		info->bytes = len;
		info->lines = t.n;
		info->truncated = left > 0;
		info->matches = nmatch;
	}
	text_clear(&t);
	return b.s;
}
