/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * udiff: Myers' greedy diff over lines, then hunks with three lines of
 * context.  See udiff.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "policy/udiff.h"

#define CONTEXT 3

struct line {
	const char *s;
	size_t len; /* with its break */
};

struct lines {
	struct line *v;
	size_t n;
};

static int
split(const char *t, size_t len, struct lines *l)
{
	size_t i, start = 0, cap = 16;

	l->n = 0;
	if ((l->v = calloc(cap, sizeof(*l->v))) == NULL)
		return AL_ERR_ALLOC;
	for (i = 0; i <= len; i++) {
		if (i < len && t[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		if (l->n == cap) {
			struct line *nv =
			    reallocarray(l->v, cap * 2, sizeof(*nv));

			if (nv == NULL)
				return AL_ERR_ALLOC;
			l->v = nv;
			cap *= 2;
		}
		l->v[l->n].s = t + start;
		l->v[l->n].len = (i < len ? i + 1 : i) - start;
		l->n++;
		start = i + 1;
	}
	return 0;
}

static int
line_eq(const struct line *a, const struct line *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

/* An edit script: for each step, '=', '-' or '+'. */
struct script {
	char *op;
	size_t n;
};

/*
 * Myers: V[k] is the furthest x on diagonal k after d edits; each d's V
 * is kept to walk back.  Memory is O(D * (N + M)) with D capped.
 */
static int
myers(const struct lines *a, const struct lines *b, struct script *sc)
{
	long n = (long)a->n, m = (long)b->n, max = n + m, off = max;
	long d, k, x, y, dmax;
	long *v, **trace;
	int rc = AL_ERR_LIMIT;

	dmax = max < UDIFF_MAX_EDITS ? max : UDIFF_MAX_EDITS;
	if ((v = calloc((size_t)(2 * max + 2), sizeof(*v))) == NULL)
		return AL_ERR_ALLOC;
	if ((trace = calloc((size_t)dmax + 1, sizeof(*trace))) == NULL) {
		free(v);
		return AL_ERR_ALLOC;
	}
	for (d = 0; d <= dmax; d++) {
		if ((trace[d] = malloc((size_t)(2 * max + 2) * sizeof(*v))) ==
		    NULL) {
			rc = AL_ERR_ALLOC;
			break;
		}
		memcpy(trace[d], v, (size_t)(2 * max + 2) * sizeof(*v));
		for (k = -d; k <= d; k += 2) {
			if (k == -d ||
			    (k != d && v[off + k - 1] < v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < n && y < m && line_eq(&a->v[x], &b->v[y])) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= n && y >= m)
				goto found;
		}
	}
	goto out;
found:
	/* Walk back from (n, m) through the saved V's. */
	if ((sc->op = malloc((size_t)(n + m + 1))) == NULL) {
		rc = AL_ERR_ALLOC;
		goto out;
	}
	sc->n = 0;
	x = n;
	y = m;
	for (; d >= 0; d--) {
		long *pv = trace[d], pk, px, py;

		k = x - y;
		if (d == 0) {
			while (x > 0 && y > 0) {
				sc->op[sc->n++] = '=';
				x--;
				y--;
			}
			break;
		}
		if (k == -d || (k != d && pv[off + k - 1] < pv[off + k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = pv[off + pk];
		py = px - pk;
		while (x > px && y > py) {
			sc->op[sc->n++] = '=';
			x--;
			y--;
		}
		sc->op[sc->n++] = x == px ? '+' : '-';
		x = px;
		y = py;
	}
	/* Reverse into forward order. */
	for (k = 0; k < (long)sc->n / 2; k++) {
		char t = sc->op[k];

		sc->op[k] = sc->op[sc->n - 1 - (size_t)k];
		sc->op[sc->n - 1 - (size_t)k] = t;
	}
	rc = 0;
out:
	for (k = 0; k <= dmax; k++)
		free(trace[k]);
	free(trace);
	free(v);
	return rc;
}

struct obuf {
	char *s;
	size_t len, cap;
	int bad;
};

static void
put(struct obuf *o, const char *s, size_t n)
{
	if (o->bad || n == 0)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *ns = realloc(o->s, cap);

		if (ns == NULL) {
			free(o->s);
			o->s = NULL;
			o->bad = 1;
			return;
		}
		o->s = ns;
		o->cap = cap;
	}
	memcpy(o->s + o->len, s, n);
	o->len += n;
	o->s[o->len] = '\0';
}

static void
put_line(struct obuf *o, char tag, const struct line *l)
{
	put(o, &tag, 1);
	put(o, l->s, l->len);
	if (l->len == 0 || l->s[l->len - 1] != '\n')
		put(o, "\n\\ No newline at end of file\n", 29);
}

static void
put_range(struct obuf *o, char tag, size_t start, size_t len)
{
	char buf[64];

	if (len == 1)
		snprintf(buf, sizeof(buf), "%c%zu", tag, start + 1);
	else
		snprintf(buf, sizeof(buf), "%c%zu,%zu", tag,
		    len == 0 ? start : start + 1, len);
	put(o, buf, strlen(buf));
}

int
udiff_make(const char *old, size_t oldlen, const char *new, size_t newlen,
    const char *oldlabel, const char *newlabel, char **out)
{
	struct lines a = { 0 }, b = { 0 };
	struct script sc = { 0 };
	struct obuf o = { 0 };
	size_t i, j, ai, bi, end, hs, he;
	int rc;

	*out = NULL;
	if ((rc = split(old, oldlen, &a)) != 0 ||
	    (rc = split(new, newlen, &b)) != 0 ||
	    (rc = myers(&a, &b, &sc)) != 0)
		goto done;
	for (i = 0; i < sc.n && sc.op[i] == '='; i++)
		;
	if (i < sc.n) {
		put(&o, "--- ", 4);
		put(&o, oldlabel, strlen(oldlabel));
		put(&o, "\n+++ ", 5);
		put(&o, newlabel, strlen(newlabel));
		put(&o, "\n", 1);
	}
	/* ai, bi: line numbers at op i. */
	ai = bi = 0;
	i = 0;
	while (i < sc.n) {
		size_t na = 0, nb = 0, a0, b0, s;

		if (sc.op[i] == '=') {
			i++;
			ai++;
			bi++;
			continue;
		}
		/* A hunk: from CONTEXT before i to where CONTEXT * 2 '='
		   in a row (or the end) follow the last change. */
		hs = i;
		he = i;
		for (j = i; j < sc.n; j++) {
			if (sc.op[j] != '=') {
				he = j + 1;
				continue;
			}
			if (j - he + 1 > 2 * CONTEXT)
				break;
		}
		s = hs >= CONTEXT ? CONTEXT : hs;
		/* Context lines before are '=' (else they'd be in it). */
		for (j = 0; j < s && sc.op[hs - 1 - j] == '='; j++)
			;
		s = j;
		a0 = ai - s;
		b0 = bi - s;
		end = he;
		for (j = 0; j < CONTEXT && end < sc.n && sc.op[end] == '='; j++)
			end++;
		for (j = hs - s; j < end; j++) {
			if (sc.op[j] != '+')
				na++;
			if (sc.op[j] != '-')
				nb++;
		}
		put(&o, "@@ ", 3);
		put_range(&o, '-', a0, na);
		put(&o, " ", 1);
		put_range(&o, '+', b0, nb);
		put(&o, " @@\n", 4);
		ai = a0;
		bi = b0;
		for (j = hs - s; j < end; j++) {
			if (sc.op[j] == '=') {
				put_line(&o, ' ', &a.v[ai]);
				ai++;
				bi++;
			} else if (sc.op[j] == '-')
				put_line(&o, '-', &a.v[ai++]);
			else
				put_line(&o, '+', &b.v[bi++]);
		}
		i = end;
	}
	if (!o.bad && o.s == NULL && (o.s = calloc(1, 1)) == NULL)
		o.bad = 1; /* equal texts: an empty diff */
	if (o.bad)
		rc = AL_ERR_ALLOC;
done:
	free(a.v);
	free(b.v);
	free(sc.op);
	if (rc != 0) {
		free(o.s);
		return rc;
	}
	*out = o.s;
	return 0;
}
