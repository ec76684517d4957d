/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * manifest_yaml: the manifest's YAML, read into a tree of nodes with their
 * positions, and the typed getters the section parsers (manifest.c,
 * manifest_rules.c, manifest_escalation.c) read fields with; every error
 * names file:line:col and the field's path (manifest_int.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/manifest_int.h"
#include "policy/types.h"

int
lctx_err(struct lctx *c, const struct ynode *n, const char *field,
    const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->errlen > 0)
		snprintf(c->err, c->errlen, "%s:%d:%d: %s: %s", c->file,
		    n != NULL ? n->line : 1, n != NULL ? n->col : 1,
		    *field != '\0' ? field : "manifest", msg);
	return AL_ERR_FORMAT;
}

/* Field paths: "a.b", "a[3]". */
const char *
fld(char *buf, const char *parent, const char *key)
{
	int n;

	if (parent == NULL || *parent == '\0')
		n = snprintf(buf, FIELD_MAX, "%s", key);
	else
		n = snprintf(buf, FIELD_MAX, "%s.%s", parent, key);
	if (n < 0)
		buf[0] = '\0';
	return buf;
}

const char *
fldi(char *buf, const char *parent, size_t i)
{
	if (snprintf(buf, FIELD_MAX, "%s[%zu]", parent, i) < 0)
		buf[0] = '\0';
	return buf;
}

/* ---- the YAML tree ---- */

void
ynode_free(struct ynode *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->n; i++)
		ynode_free(n->v[i]);
	free(n->v);
	free(n->s);
	free(n);
}

static void
ynode_push(struct ynode *parent, struct ynode *child)
{
	if (parent->n == parent->cap) {
		parent->cap = parent->cap ? parent->cap * 2 : 8;
		parent->v = xreallocarray(parent->v, parent->cap,
		    sizeof(*parent->v));
	}
	parent->v[parent->n++] = child;
}

static int
yerr_mark(struct lctx *c, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
yerr_mark(struct lctx *c, yaml_mark_t mark, const char *fmt, ...)
{
	struct ynode pos;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memset(&pos, 0, sizeof(pos));
	pos.line = (int)mark.line + 1;
	pos.col = (int)mark.column + 1;
	return lctx_err(c, &pos, "yaml", "%s", msg);
}

/*
 * Characters that show nothing, or reorder what follows them, where they
 * are: zero-width spaces and joiners, the directional marks, embeddings,
 * overrides and isolates ("Trojan Source"), the invisible operators and
 * a byte-order mark past the first character.  With one in a key, a
 * path, an argument or a comment, what loads is not what a reviewer
 * reads: ".git/\u200bhooks" protects nothing, an argv with U+202E shows
 * its words in another order.
 */
static int
invisible_char(unsigned long cp)
{
	return cp == 0x00ad || cp == 0x061c || cp == 0x180e ||
	    (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x206f) ||
	    cp == 0xfeff;
}

/* The first invisible_char() in the UTF-8 of |s|, or 0. */
static unsigned long
invisible_in(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned long cp;
	size_t i, k, nb;

	for (i = 0; i < len; i += nb) {
		nb = u[i] < 0x80 ? 1 : u[i] >= 0xf0 ? 4 : u[i] >= 0xe0 ? 3 :
		    u[i] >= 0xc0 ? 2 : 1;
		cp = nb == 1 ? u[i] : u[i] & (0x7f >> nb);
		for (k = 1; k < nb && i + k < len; k++)
			cp = cp << 6 | (u[i + k] & 0x3f);
		if (invisible_char(cp))
			return cp;
	}
	return 0;
}

/* Refuses any invisible_char() in |data|, naming its line and column. */
static int
ytext_check(struct lctx *c, const char *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	struct ynode pos;
	unsigned long cp;
	size_t i = 0, k, nb;
	int line = 1, col = 1;

	/* A byte-order mark opening the file is YAML's, not text. */
	if (len >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		i = 3;
	while (i < len) {
		if (s[i] == '\n' || s[i] == '\r') {
			if (s[i] == '\r' && i + 1 < len && s[i + 1] == '\n')
				i++;
			i++;
			line++;
			col = 1;
			continue;
		}
		nb = s[i] < 0x80 ? 1 : s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 :
		    s[i] >= 0xc0 ? 2 : 1;
		cp = nb == 1 ? s[i] : s[i] & (0x7f >> nb);
		for (k = 1; k < nb && i + k < len; k++)
			cp = cp << 6 | (s[i + k] & 0x3f);
		if (invisible_char(cp)) {
			memset(&pos, 0, sizeof(pos));
			pos.line = line;
			pos.col = col;
			return lctx_err(c, &pos, "yaml", "invisible or "
			    "reordering character U+%04lX (it makes what "
			    "loads differ from what a reader sees)", cp);
		}
		i += nb;
		col++;
	}
	return 0;
}

/*
 * The column of a scalar's first character in the file, when its text is
 * there character for character on one line (plain, or quoted with no
 * escape and no doubled quote); else 0.  libyaml counts columns in
 * characters, as ytext_check() does.
 */
static int
text_column(const yaml_event_t *ev)
{
	const unsigned char *v = ev->data.scalar.value;
	size_t i, nchars = 0, quotes;

	switch (ev->data.scalar.style) {
	case YAML_PLAIN_SCALAR_STYLE:
		quotes = 0;
		break;
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		quotes = 2;
		break;
	default:
		return 0;
	}
	if (ev->start_mark.line != ev->end_mark.line)
		return 0;
	for (i = 0; i < ev->data.scalar.length; i++)
		if ((v[i] & 0xc0) != 0x80)
			nchars++;
	if (ev->end_mark.column - ev->start_mark.column != nchars + quotes)
		return 0;
	return (int)ev->start_mark.column + 1 + (quotes != 0);
}

int
ytree_parse(struct lctx *c, const char *data, size_t len, struct ynode **out)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct ynode *stack[YAML_MAX_DEPTH], *n, *root = NULL;
	size_t depth = 0, nnodes = 0;
	unsigned long cp;
	int ndocs = 0, done = 0, r = 0;

	*out = NULL;
	if ((r = ytext_check(c, data, len)) != 0)
		return r;
	if (!yaml_parser_initialize(&p))
		return AL_ERR_ALLOC;
	yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
	/*
	 * UTF-8 only: libyaml took a UTF-16 file by its byte-order mark,
	 * and ytext_check(), which reads UTF-8, saw none of its characters.
	 */
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			if (p.context != NULL)
				r = yerr_mark(c, p.problem_mark, "%s %s",
				    p.problem ? p.problem : "error", p.context);
			else
				r = yerr_mark(c, p.problem_mark, "%s",
				    p.problem ? p.problem : "error");
			break;
		}
		n = NULL;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++ndocs > 1)
				r = yerr_mark(c, ev.start_mark,
				    "more than one YAML document");
			break;
		case YAML_ALIAS_EVENT:
			r = yerr_mark(c, ev.start_mark,
			    "aliases are not allowed");
			break;
		case YAML_SCALAR_EVENT:
			if (ev.data.scalar.anchor != NULL) {
				r = yerr_mark(c, ev.start_mark,
				    "anchors are not allowed");
				break;
			}
			if (ev.data.scalar.tag != NULL) {
				r = yerr_mark(c, ev.start_mark,
				    "tags are not allowed");
				break;
			}
			if (memchr(ev.data.scalar.value, '\0',
			    ev.data.scalar.length) != NULL) {
				r = yerr_mark(c, ev.start_mark,
				    "NUL byte in a scalar");
				break;
			}
			/* The same characters written as escapes ("\u200b"):
			   a reader of the file sees six letters, but check -v
			   and yq print the character, which shows nothing. */
			if ((cp = invisible_in((const char *)ev.data.scalar.value,
			    ev.data.scalar.length)) != 0) {
				r = yerr_mark(c, ev.start_mark, "invisible or "
				    "reordering character U+%04lX written as an "
				    "escape", cp);
				break;
			}
			n = xcalloc(1, sizeof(*n));
			n->kind = Y_SCALAR;
			n->s = xcalloc(1, ev.data.scalar.length + 1);
			memcpy(n->s, ev.data.scalar.value, ev.data.scalar.length);
			n->len = ev.data.scalar.length;
			n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			n->text_col = text_column(&ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if ((ev.type == YAML_SEQUENCE_START_EVENT ?
			    ev.data.sequence_start.anchor :
			    ev.data.mapping_start.anchor) != NULL) {
				r = yerr_mark(c, ev.start_mark,
				    "anchors are not allowed");
				break;
			}
			if ((ev.type == YAML_SEQUENCE_START_EVENT ?
			    ev.data.sequence_start.tag :
			    ev.data.mapping_start.tag) != NULL) {
				r = yerr_mark(c, ev.start_mark,
				    "tags are not allowed");
				break;
			}
			if (depth == YAML_MAX_DEPTH) {
				r = yerr_mark(c, ev.start_mark,
				    "nested deeper than %d", YAML_MAX_DEPTH);
				break;
			}
			n = xcalloc(1, sizeof(*n));
			n->kind = ev.type == YAML_SEQUENCE_START_EVENT ?
			    Y_SEQ : Y_MAP;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0)
				depth--;
			break;
		default:
			break;
		}
		if (n != NULL) {
			n->line = (int)ev.start_mark.line + 1;
			n->col = (int)ev.start_mark.column + 1;
			if (++nnodes > YAML_MAX_NODES) {
				ynode_free(n);
				r = yerr_mark(c, ev.start_mark,
				    "more than %d nodes", YAML_MAX_NODES);
			} else {
				if (depth > 0)
					ynode_push(stack[depth - 1], n);
				else if (root == NULL)
					root = n;
				else
					ynode_free(n);	/* cannot happen */
				if (n->kind != Y_SCALAR)
					stack[depth++] = n;
			}
		}
		yaml_event_delete(&ev);
		if (r != 0)
			break;
	}
	yaml_parser_delete(&p);
	if (r != 0) {
		ynode_free(root);
		return r;
	}
	*out = root;
	return 0;
}

/* ---- typed access to nodes ---- */

static const char *
kind_word(const struct ynode *n)
{
	switch (n->kind) {
	case Y_SCALAR:	return "a scalar";
	case Y_SEQ:	return "a list";
	case Y_MAP:	return "a mapping";
	}
	return "?";
}

int
want(struct lctx *c, const struct ynode *n, const char *field, enum ykind k)
{
	static const char *names[] = { "a scalar", "a list", "a mapping" };

	if (n->kind != k)
		return lctx_err(c, n, field, "expected %s, got %s", names[k],
		    kind_word(n));
	return 0;
}

/* A plain empty scalar ("key:" with nothing after it) or ~ / null. */
int
is_null(const struct ynode *n)
{
	return n->kind == Y_SCALAR && n->plain && (n->len == 0 ||
	    strcmp(n->s, "~") == 0 || strcmp(n->s, "null") == 0);
}

/*
 * Checks a mapping's keys: scalars, no duplicates, and (if |allowed| is
 * not NULL) each one of |allowed|.  Errors point at the key.
 */
/* A key of a mapping, for finding the repeated ones. */
struct key_ref {
	const char *s; /* NULL: not a scalar */
	size_t i; /* its index in the mapping's v */
};

/* By key text (non-scalars first, never equal), then by place. */
static int
cmp_key_ref(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	int d;

	if (x->s == NULL || y->s == NULL)
		d = (y->s == NULL) - (x->s == NULL);
	else
		d = strcmp(x->s, y->s);
	return d != 0 ? d : (x->i > y->i) - (x->i < y->i);
}

/*
 * The index in map->v of the first key (in the file's order) that an
 * earlier key of |map| repeats, or SIZE_MAX.  Sorted, not each key
 * compared with every earlier one: a mapping of 60,000 keys took 15 s
 * of the loader's CPU before its count was looked at.
 */
static size_t
first_duplicate_key(const struct ynode *map)
{
	size_t n = map->n / 2, i, dup = SIZE_MAX;
	struct key_ref *r;

	if (n < 2)
		return SIZE_MAX;
	r = xreallocarray(NULL, n, sizeof(*r));
	for (i = 0; i < n; i++) {
		r[i].s = map->v[2 * i]->kind == Y_SCALAR ? map->v[2 * i]->s
							 : NULL;
		r[i].i = 2 * i;
	}
	qsort(r, n, sizeof(*r), cmp_key_ref);
	/* In a run of equal keys the first is the earliest; the next one
	 * repeats it. */
	for (i = 1; i < n; i++)
		if (r[i].s != NULL && r[i - 1].s != NULL &&
		    strcmp(r[i].s, r[i - 1].s) == 0 && r[i].i < dup)
			dup = r[i].i;
	free(r);
	return dup;
}

int
check_keys(struct lctx *c, const struct ynode *map, const char *field,
    const char *const *allowed)
{
	char f[FIELD_MAX];
	size_t i, j, dup;

	if (want(c, map, field, Y_MAP) != 0)
		return AL_ERR_FORMAT;
	dup = first_duplicate_key(map);
	for (i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->v[i];

		if (k->kind != Y_SCALAR)
			return lctx_err(c, k, field, "a key must be a scalar");
		if (i == dup)
			return lctx_err(
			    c, k, fld(f, field, k->s), "duplicate key");
		if (allowed == NULL)
			continue;
		for (j = 0; allowed[j] != NULL; j++)
			if (strcmp(allowed[j], k->s) == 0)
				break;
		if (allowed[j] == NULL)
			return lctx_err(c, k, fld(f, field, k->s), "unknown key");
	}
	return 0;
}

const struct ynode *
ynode_get(const struct ynode *map, const char *key)
{
	size_t i;

	if (map == NULL || map->kind != Y_MAP)
		return NULL;
	for (i = 0; i + 1 < map->n; i += 2)
		if (map->v[i]->kind == Y_SCALAR &&
		    strcmp(map->v[i]->s, key) == 0)
			return map->v[i + 1];
	return NULL;
}

int
get_str(struct lctx *c, const struct ynode *n, const char *field, char **out)
{
	if (want(c, n, field, Y_SCALAR) != 0)
		return AL_ERR_FORMAT;
	if (is_null(n))
		return lctx_err(c, n, field, "expected a string, got nothing");
	free(*out);
	*out = xstrdup(n->s);
	return 0;
}

int
get_int(struct lctx *c, const struct ynode *n, const char *field,
    int64_t lo, int64_t hi, int64_t *out)
{
	long long v;
	char *end;
	size_t i;

	if (want(c, n, field, Y_SCALAR) != 0)
		return AL_ERR_FORMAT;
	for (i = 0; i < n->len; i++)
		if (!isdigit((unsigned char)n->s[i]) &&
		    !(i == 0 && n->s[i] == '-' && n->len > 1))
			return lctx_err(c, n, field, "expected an integer");
	if (!n->plain || n->len == 0 || strcmp(n->s, "-") == 0)
		return lctx_err(c, n, field, "expected an integer");
	/* YAML 1.1 reads 0100 as octal; refuse rather than guess. */
	if ((n->s[0] == '0' && n->len > 1) ||
	    (n->s[0] == '-' && n->s[1] == '0'))
		return lctx_err(c, n, field, "expected an integer without leading "
		    "zeros");
	errno = 0;
	v = strtoll(n->s, &end, 10);
	if (errno != 0 || *end != '\0')
		return lctx_err(c, n, field, "integer out of range");
	if (v < lo) {
		if (lo == 1)
			return lctx_err(c, n, field, "must be positive");
		if (lo == 0)
			return lctx_err(c, n, field, "must not be negative");
		return lctx_err(c, n, field, "must be at least %lld", (long long)lo);
	}
	if (v > hi)
		return lctx_err(c, n, field, "must be at most %lld", (long long)hi);
	*out = v;
	return 0;
}

int
get_num(struct lctx *c, const struct ynode *n, const char *field,
    double lo, double *out)
{
	double d;
	char *end;
	size_t i;

	if (want(c, n, field, Y_SCALAR) != 0)
		return AL_ERR_FORMAT;
	if (!n->plain || n->len == 0)
		return lctx_err(c, n, field, "expected a number");
	for (i = 0; i < n->len; i++)
		if (!isdigit((unsigned char)n->s[i]) && n->s[i] != '.' &&
		    n->s[i] != '-' && n->s[i] != '+' && n->s[i] != 'e' &&
		    n->s[i] != 'E')
			return lctx_err(c, n, field, "expected a number");
	errno = 0;
	d = strtod(n->s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(d))
		return lctx_err(c, n, field, "expected a number");
	if (d < lo)
		return lctx_err(c, n, field, lo == 0 ? "must not be negative" :
		    "must be at least %g", lo);
	*out = d;
	return 0;
}

/* A min or max bound of a user type: an integer for integers, else a number. */
int
get_bound(struct lctx *c, const struct ynode *n, const char *field,
    enum type_kind kind, double *out)
{
	int64_t iv = 0;

	if (kind != TYPE_INTEGER)
		return get_num(c, n, field, -INFINITY, out);
	if (get_int(c, n, field, INT64_MIN, INT64_MAX, &iv) != 0)
		return AL_ERR_FORMAT;
	*out = (double)iv;
	return 0;
}

int
get_bool(struct lctx *c, const struct ynode *n, const char *field, int *out)
{
	if (want(c, n, field, Y_SCALAR) != 0)
		return AL_ERR_FORMAT;
	if (n->plain && strcmp(n->s, "true") == 0)
		*out = 1;
	else if (n->plain && strcmp(n->s, "false") == 0)
		*out = 0;
	else
		return lctx_err(c, n, field, "expected true or false");
	return 0;
}

/* names[] is NULL-terminated; *out gets the index. */
int
get_enum(struct lctx *c, const struct ynode *n, const char *field,
    const char *const *names, int *out)
{
	char list[256];
	size_t i, off = 0;

	if (want(c, n, field, Y_SCALAR) != 0)
		return AL_ERR_FORMAT;
	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], n->s) == 0) {
			*out = (int)i;
			return 0;
		}
	list[0] = '\0';
	for (i = 0; names[i] != NULL && off < sizeof(list); i++)
		off += snprintf(list + off, sizeof(list) - off, "%s%s",
		    i ? ", " : "", names[i]);
	return lctx_err(c, n, field, "expected one of: %s", list);
}

/* A list of strings, each checked by |chk| if not NULL. */
int
get_strlist(struct lctx *c, const struct ynode *n, const char *field,
    str_check_fn chk, char ***out, size_t *nout)
{
	char f[FIELD_MAX], **v;
	size_t i;

	if (want(c, n, field, Y_SEQ) != 0)
		return AL_ERR_FORMAT;
	if (n->n > LIST_MAX)
		return lctx_err(c, n, field, "more than %d items", LIST_MAX);
	for (i = 0; i < n->n; i++) {
		fldi(f, field, i);
		if (want(c, n->v[i], f, Y_SCALAR) != 0)
			return AL_ERR_FORMAT;
		if (is_null(n->v[i]))
			return lctx_err(c, n->v[i], f,
			    "expected a string, got nothing");
		if (chk != NULL && chk(c, n->v[i], f) != 0)
			return AL_ERR_FORMAT;
	}
	v = xcalloc(n->n + 1, sizeof(*v));
	for (i = 0; i < n->n; i++)
		v[i] = xstrdup(n->v[i]->s);
	if (*out != NULL) {
		for (i = 0; (*out)[i] != NULL; i++)
			free((*out)[i]);
		free(*out);
	}
	*out = v;
	if (nout != NULL)
		*nout = n->n;
	return 0;
}


/* ---- value checks ---- */
