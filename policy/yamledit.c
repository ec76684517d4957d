/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * yamledit: text edits located with libyaml's event marks.  See
 * yamledit.h.  Marks are turned into byte offsets from their line and
 * column (libyaml counts columns in characters, not bytes), through a
 * table of line starts that treats "\r\n", "\r" and "\n" as one break,
 * as libyaml does.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "common/errors.h"
#include "policy/yamledit.h"

#define YE_MAX_DEPTH 64
#define YE_MAX_NODES 200000

enum ynode_kind { YN_SCALAR, YN_SEQ, YN_MAP, YN_ALIAS };

struct ynode {
	enum ynode_kind kind;
	int flow; /* a flow collection */
	int anchored;
	int props; /* a tag or an anchor: start is theirs */
	int style; /* a scalar's yaml_scalar_style_t */
	size_t start, end; /* byte offsets in the text */
	char *value; /* a scalar's value */
	struct ynode **kids; /* a map: key, value, key, value... */
	size_t nkids;
};

struct yamledit {
	char *text;
	size_t len;
	size_t *lines; /* byte offset of each line's start */
	size_t nlines;
	struct ynode *root;
	size_t nnodes;
	const char *eol; /* "\n" or "\r\n", from the first break */
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void
node_free(struct ynode *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->value);
	free(n);
}

static int
index_lines(struct yamledit *ye)
{
	size_t i, cap = 64;

	free(ye->lines);
	if ((ye->lines = calloc(cap, sizeof(*ye->lines))) == NULL)
		return AL_ERR_ALLOC;
	ye->nlines = 1;
	ye->lines[0] = 0;
	for (i = 0; i < ye->len; i++) {
		if (ye->text[i] != '\n' && ye->text[i] != '\r')
			continue;
		if (ye->text[i] == '\r' && i + 1 < ye->len &&
		    ye->text[i + 1] == '\n')
			i++;
		if (ye->nlines == cap) {
			size_t *nl =
			    reallocarray(ye->lines, cap * 2, sizeof(*nl));

			if (nl == NULL)
				return AL_ERR_ALLOC;
			ye->lines = nl;
			cap *= 2;
		}
		ye->lines[ye->nlines++] = i + 1;
	}
	return 0;
}

/* A mark's byte offset: its line's start plus |column| characters. */
static size_t
mark_offset(const struct yamledit *ye, const yaml_mark_t *m)
{
	size_t off, col;

	if (m->line >= ye->nlines)
		return ye->len;
	off = ye->lines[m->line];
	for (col = 0; col < m->column && off < ye->len; col++) {
		off++;
		while (off < ye->len &&
		    ((unsigned char)ye->text[off] & 0xc0) == 0x80)
			off++;
	}
	return off;
}

static struct ynode *
node_new(struct yamledit *ye, enum ynode_kind kind, const yaml_mark_t *m)
{
	struct ynode *n;

	if (++ye->nnodes > YE_MAX_NODES || (n = calloc(1, sizeof(*n))) == NULL)
		return NULL;
	n->kind = kind;
	n->start = mark_offset(ye, m);
	return n;
}

static int
node_add(struct ynode *parent, struct ynode *kid)
{
	struct ynode **nk;

	if ((nk = reallocarray(parent->kids, parent->nkids + 1, sizeof(*nk))) ==
	    NULL)
		return AL_ERR_ALLOC;
	parent->kids = nk;
	parent->kids[parent->nkids++] = kid;
	return 0;
}

/*
 * Reads one node whose first event is |ev| (consumed by the caller's
 * yaml_parser_parse) and its children.  Returns 0 with *out set.
 */
static int
read_node(struct yamledit *ye, yaml_parser_t *p, yaml_event_t *ev, int depth,
    struct ynode **out, char *err, size_t errlen)
{
	struct ynode *n = NULL, *kid;
	yaml_event_t kev;
	int rc;

	*out = NULL;
	if (depth > YE_MAX_DEPTH) {
		seterr(err, errlen, "nesting deeper than %d", YE_MAX_DEPTH);
		return AL_ERR_LIMIT;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if ((n = node_new(ye, YN_SCALAR, &ev->start_mark)) == NULL)
			return AL_ERR_ALLOC;
		n->end = mark_offset(ye, &ev->end_mark);
		n->style = ev->data.scalar.style;
		n->anchored = ev->data.scalar.anchor != NULL;
		if ((n->value = strndup((char *)ev->data.scalar.value,
			 ev->data.scalar.length)) == NULL) {
			node_free(n);
			return AL_ERR_ALLOC;
		}
		*out = n;
		return 0;
	case YAML_ALIAS_EVENT:
		if ((n = node_new(ye, YN_ALIAS, &ev->start_mark)) == NULL)
			return AL_ERR_ALLOC;
		n->end = mark_offset(ye, &ev->end_mark);
		*out = n;
		return 0;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		break;
	default:
		seterr(err, errlen, "unexpected YAML event %d", ev->type);
		return AL_ERR_FORMAT;
	}
	if (ev->type == YAML_SEQUENCE_START_EVENT) {
		n = node_new(ye, YN_SEQ, &ev->start_mark);
		if (n != NULL) {
			n->flow = ev->data.sequence_start.style ==
			    YAML_FLOW_SEQUENCE_STYLE;
			n->anchored = ev->data.sequence_start.anchor != NULL;
		}
	} else {
		n = node_new(ye, YN_MAP, &ev->start_mark);
		if (n != NULL) {
			n->flow = ev->data.mapping_start.style ==
			    YAML_FLOW_MAPPING_STYLE;
			n->anchored = ev->data.mapping_start.anchor != NULL;
			n->props =
			    n->anchored || ev->data.mapping_start.tag != NULL;
		}
	}
	if (n == NULL)
		return AL_ERR_ALLOC;
	for (;;) {
		if (!yaml_parser_parse(p, &kev)) {
			seterr(err, errlen, "line %zu, column %zu: %s",
			    p->problem_mark.line + 1,
			    p->problem_mark.column + 1,
			    p->problem != NULL ? p->problem : "bad YAML");
			node_free(n);
			return AL_ERR_FORMAT;
		}
		if (kev.type == YAML_SEQUENCE_END_EVENT ||
		    kev.type == YAML_MAPPING_END_EVENT) {
			n->end = mark_offset(ye, &kev.end_mark);
			yaml_event_delete(&kev);
			break;
		}
		rc = read_node(ye, p, &kev, depth + 1, &kid, err, errlen);
		yaml_event_delete(&kev);
		if (rc == 0 && (rc = node_add(n, kid)) != 0)
			node_free(kid);
		if (rc != 0) {
			node_free(n);
			return rc;
		}
	}
	*out = n;
	return 0;
}

static int
parse_text(struct yamledit *ye, char *err, size_t errlen)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct ynode *root = NULL;
	int rc = 0, stage = 0;

	node_free(ye->root);
	ye->root = NULL;
	ye->nnodes = 0;
	if ((rc = index_lines(ye)) != 0)
		return rc;
	if (!yaml_parser_initialize(&p))
		return AL_ERR_ALLOC;
	yaml_parser_set_input_string(
	    &p, (const unsigned char *)ye->text, ye->len);
	while (rc == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			seterr(err, errlen, "line %zu, column %zu: %s",
			    p.problem_mark.line + 1, p.problem_mark.column + 1,
			    p.problem != NULL ? p.problem : "bad YAML");
			rc = AL_ERR_FORMAT;
			break;
		}
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT) {
			if (stage++ > 0) {
				seterr(err, errlen,
				    "more than one YAML "
				    "document");
				rc = AL_ERR_UNSUPPORTED;
			}
		} else if (ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT ||
		    ev.type == YAML_SCALAR_EVENT ||
		    ev.type == YAML_ALIAS_EVENT) {
			if (root != NULL) { /* one document, one top */
				seterr(err, errlen, "more than one top node");
				rc = AL_ERR_UNSUPPORTED;
			} else
				rc = read_node(
				    ye, &p, &ev, 0, &root, err, errlen);
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	if (rc != 0) {
		node_free(root);
		return rc;
	}
	if (root == NULL || root->kind != YN_MAP) {
		node_free(root);
		seterr(err, errlen, "the top of the file is not a mapping");
		return AL_ERR_UNSUPPORTED;
	}
	ye->root = root;
	return 0;
}

int
yamledit_new(const char *text, size_t len, struct yamledit **out, char *err,
    size_t errlen)
{
	struct yamledit *ye;
	const char *nl;
	int rc;

	*out = NULL;
	if (len > YAMLEDIT_MAX_TEXT) {
		seterr(err, errlen, "larger than %d bytes", YAMLEDIT_MAX_TEXT);
		return AL_ERR_LIMIT;
	}
	if ((ye = calloc(1, sizeof(*ye))) == NULL ||
	    (ye->text = malloc(len + 1)) == NULL) {
		free(ye);
		return AL_ERR_ALLOC;
	}
	memcpy(ye->text, text, len);
	ye->text[len] = '\0';
	ye->len = len;
	if (memchr(ye->text, '\0', len) != NULL) {
		seterr(err, errlen, "a NUL byte in the text");
		yamledit_free(ye);
		return AL_ERR_FORMAT;
	}
	/* New lines end as the file's first line does: LF, CRLF or CR. */
	nl = ye->text + strcspn(ye->text, "\r\n");
	ye->eol = *nl == '\r' ? (nl[1] == '\n' ? "\r\n" : "\r") : "\n";
	if ((rc = parse_text(ye, err, errlen)) != 0) {
		yamledit_free(ye);
		return rc;
	}
	*out = ye;
	return 0;
}

void
yamledit_free(struct yamledit *ye)
{
	if (ye == NULL)
		return;
	node_free(ye->root);
	free(ye->lines);
	free(ye->text);
	free(ye);
}

const char *
yamledit_text(const struct yamledit *ye, size_t *len)
{
	if (len != NULL)
		*len = ye->len;
	return ye->text;
}

/* "[N]" -> N, else -1. */
static long
comp_index(const char *c)
{
	char *end;
	long v;

	if (c[0] != '[' || !isdigit((unsigned char)c[1]))
		return -1;
	v = strtol(c + 1, &end, 10);
	if (end[0] != ']' || end[1] != '\0' || v < 0)
		return -1;
	return v;
}

static struct ynode *
map_get(const struct ynode *m, const char *key, size_t *keyidx)
{
	size_t i;

	for (i = 0; i + 1 < m->nkids; i += 2)
		if (m->kids[i]->kind == YN_SCALAR &&
		    strcmp(m->kids[i]->value, key) == 0) {
			if (keyidx != NULL)
				*keyidx = i;
			return m->kids[i + 1];
		}
	return NULL;
}

/*
 * Walks |path| from the root.  Returns the number of components found
 * (npath: *at is the node; fewer: *at is the mapping the next key is
 * missing from), or a negative code.
 */
static int
walk(struct yamledit *ye, const char *const *path, size_t npath,
    struct ynode **at, char *err, size_t errlen)
{
	struct ynode *n = ye->root, *next;
	size_t i;
	long idx;

	for (i = 0; i < npath; i++) {
		if (n->kind == YN_ALIAS) {
			seterr(err, errlen,
			    "the path goes through an alias "
			    "at component %zu (%s): edit it by hand",
			    i, path[i]);
			return AL_ERR_UNSUPPORTED;
		}
		if ((idx = comp_index(path[i])) >= 0) {
			if (n->kind != YN_SEQ || (size_t)idx >= n->nkids) {
				seterr(err, errlen, "no item %s", path[i]);
				return AL_ERR_NOT_FOUND;
			}
			n = n->kids[idx];
			continue;
		}
		if (n->kind != YN_MAP) {
			seterr(err, errlen, "%s: the parent is not a mapping",
			    path[i]);
			return AL_ERR_UNSUPPORTED;
		}
		if ((next = map_get(n, path[i], NULL)) == NULL) {
			*at = n;
			return (int)i;
		}
		n = next;
	}
	if (n->kind == YN_ALIAS) {
		seterr(err, errlen, "the value is an alias: edit it by hand");
		return AL_ERR_UNSUPPORTED;
	}
	*at = n;
	return (int)npath;
}

const char *
yamledit_get_scalar(struct yamledit *ye, const char *const *path, size_t npath)
{
	struct ynode *n;

	if (walk(ye, path, npath, &n, NULL, 0) != (int)npath ||
	    n->kind != YN_SCALAR)
		return NULL;
	return n->value;
}

long
yamledit_find_item(struct yamledit *ye, const char *const *path, size_t npath,
    const char *key, const char *value)
{
	struct ynode *n, *v;
	size_t i;

	if (walk(ye, path, npath, &n, NULL, 0) != (int)npath ||
	    n->kind != YN_SEQ)
		return -1;
	for (i = 0; i < n->nkids; i++)
		if (n->kids[i]->kind == YN_MAP &&
		    (v = map_get(n->kids[i], key, NULL)) != NULL &&
		    v->kind == YN_SCALAR && strcmp(v->value, value) == 0)
			return (long)i;
	return -1;
}

/* A growing string; |bad| set on allocation failure. */
struct sbuf {
	char *s;
	size_t len, cap;
	int bad;
};

static void
sb_addn(struct sbuf *b, const char *s, size_t n)
{
	char *ns;

	if (b->bad)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;

		if ((ns = realloc(b->s, cap)) == NULL) {
			/* Nothing half-built survives: the caller sees bad. */
			free(b->s);
			b->s = NULL;
			b->bad = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
sb_add(struct sbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

static void
sb_indent(struct sbuf *b, size_t n)
{
	while (n-- > 0)
		sb_add(b, " ");
}

/*
 * The length of the line break YAML 1.1 (and so libyaml) reads at |s|
 * beyond CR and LF: NEL U+0085, LS U+2028, PS U+2029 in UTF-8; else 0.
 * Written raw, one ends a comment (what follows is YAML, though a
 * terminal or an editor shows it on the comment's line) and folds into
 * a space inside a quoted scalar.
 */
static size_t
yaml_break(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (p[0] == 0xc2 && p[1] == 0x85)
		return 2;
	if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
		return 3;
	return 0;
}

/* A C1 control U+0080..U+009F in UTF-8 at |s| (libyaml refuses them raw). */
static int
c1_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	return p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
}

/* A plain scalar that reads back as the same string, in any context. */
static int
plain_safe(const char *s, int flow)
{
	static const char *words[] = { "null", "true", "false", "yes", "no",
		"on", "off", "y", "n", NULL };
	const char *p;
	char *end;
	size_t i;

	if (s[0] == '\0' || strchr("-?:,[]{}#&*!|>'\"%@`~ ", s[0]) != NULL)
		return 0;
	for (p = s; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) &&
		    strchr("/._+-:@~", *p) == NULL)
			return 0;
	if (flow && strchr(s, ':') != NULL)
		return 0;
	if (s[strlen(s) - 1] == ':')
		return 0;
	for (i = 0; words[i] != NULL; i++)
		if (strcasecmp(s, words[i]) == 0)
			return 0;
	(void)strtod(s, &end);
	if (*end == '\0')
		return 0;
	return 1;
}

/* Writes |s| as a scalar: plain if allowed and safe, else quoted. */
static void
sb_scalar(struct sbuf *b, const char *s, int style, int flow)
{
	const unsigned char *p;
	char hex[8];

	if ((style == YAML_PLAIN_SCALAR_STYLE || style == 0) &&
	    plain_safe(s, flow)) {
		sb_add(b, s);
		return;
	}
	if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE) {
		for (p = (const unsigned char *)s; *p != '\0'; p++)
			if (*p < 0x20 || *p == 0x7f ||
			    c1_control((const char *)p) ||
			    yaml_break((const char *)p) > 0)
				break;
		if (*p == '\0') {
			sb_add(b, "'");
			for (p = (const unsigned char *)s; *p != '\0'; p++) {
				if (*p == '\'')
					sb_add(b, "'");
				sb_addn(b, (const char *)p, 1);
			}
			sb_add(b, "'");
			return;
		}
	}
	sb_add(b, "\"");
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\') {
			sb_add(b, "\\");
			sb_addn(b, (const char *)p, 1);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(hex, sizeof(hex), "\\x%02x", *p);
			sb_add(b, hex);
		} else if (yaml_break((const char *)p) == 3) {
			/* LS, PS: escaped, or they fold into a space. */
			sb_add(b, p[2] == 0xa8 ? "\\L" : "\\P");
			p += 2;
		} else if (c1_control((const char *)p)) {
			/* NEL (which would fold) and the other C1s. */
			snprintf(hex, sizeof(hex), "\\x%02x", p[1]);
			sb_add(b, hex);
			p++;
		} else
			sb_addn(b, (const char *)p, 1);
	}
	sb_add(b, "\"");
}

/* Start of the line holding |pos|. */
static size_t
line_start(const struct yamledit *ye, size_t pos)
{
	while (
	    pos > 0 && ye->text[pos - 1] != '\n' && ye->text[pos - 1] != '\r')
		pos--;
	return pos;
}

/*
 * The indentation (spaces) of the line holding |pos|; -1 if a tab comes
 * before its first other character.
 */
static long
line_indent(const struct yamledit *ye, size_t pos)
{
	size_t s = line_start(ye, pos), i;

	for (i = s; i < ye->len && ye->text[i] == ' '; i++)
		;
	if (i < ye->len && ye->text[i] == '\t')
		return -1;
	return (long)(i - s);
}

/* Where a block node's content ends: its last scalar, or a flow node. */
static size_t
content_end(const struct ynode *n)
{
	while ((n->kind == YN_SEQ || n->kind == YN_MAP) && !n->flow &&
	    n->nkids > 0)
		n = n->kids[n->nkids - 1];
	return n->end;
}

/* The offset just after the line break that ends the line at |pos|. */
static size_t
after_line(const struct yamledit *ye, size_t pos, int *need_eol)
{
	*need_eol = 0;
	if (pos > 0 && (ye->text[pos - 1] == '\n' || ye->text[pos - 1] == '\r'))
		return pos;
	while (pos < ye->len && ye->text[pos] != '\n' && ye->text[pos] != '\r')
		pos++;
	if (pos == ye->len) {
		*need_eol = 1;
		return pos;
	}
	if (ye->text[pos] == '\r' && pos + 1 < ye->len &&
	    ye->text[pos + 1] == '\n')
		pos++;
	return pos + 1;
}

/* Replaces text[at..at+oldlen) with |s|, then parses the new text. */
static int
splice(struct yamledit *ye, size_t at, size_t oldlen, const char *s, char *err,
    size_t errlen)
{
	size_t n = strlen(s), newlen = ye->len - oldlen + n;
	char *nt, *old = ye->text;
	size_t oldtlen = ye->len;
	int rc;

	if (newlen > YAMLEDIT_MAX_TEXT) {
		seterr(err, errlen, "the result is larger than %d bytes",
		    YAMLEDIT_MAX_TEXT);
		return AL_ERR_LIMIT;
	}
	if ((nt = malloc(newlen + 1)) == NULL)
		return AL_ERR_ALLOC;
	memcpy(nt, old, at);
	memcpy(nt + at, s, n);
	memcpy(nt + at + n, old + at + oldlen, oldtlen - at - oldlen);
	nt[newlen] = '\0';
	ye->text = nt;
	ye->len = newlen;
	if ((rc = parse_text(ye, err, errlen)) != 0) {
		/* Keep the old text: the edit is a bug, not a result. */
		char why[256];

		snprintf(why, sizeof(why), "%s", err != NULL ? err : "");
		ye->text = old;
		ye->len = oldtlen;
		free(nt);
		(void)parse_text(ye, NULL, 0);
		seterr(err, errlen, "the edited text does not parse (%s)", why);
		return AL_ERR_FORMAT;
	}
	free(old);
	return 0;
}

/* "# COMMENT" + eol at |indent|, for the line starting at |ls|. */
static void
sb_comment(struct sbuf *b, const struct yamledit *ye, size_t indent,
    const char *comment)
{
	const char *p;

	if (comment == NULL)
		return;
	sb_indent(b, indent);
	sb_add(b, "# ");
	/* One line: a break in the comment would end it (NEL, LS and PS
	   too: what followed would be YAML, shown as part of the comment);
	   other controls are not allowed in YAML. */
	for (p = comment; *p != '\0'; p++) {
		size_t bl;

		if (*p == '\n' || *p == '\r' || *p == '\t')
			sb_add(b, " ");
		else if ((bl = yaml_break(p)) > 0) {
			sb_add(b, " ");
			p += bl - 1;
		} else if ((unsigned char)*p < 0x20 || *p == 0x7f ||
		    c1_control(p)) {
			sb_add(b, "?"); /* YAML refuses them in comments */
			p += c1_control(p) ? 1 : 0;
		} else
			sb_addn(b, p, 1);
	}
	sb_add(b, ye->eol);
}

/* Adds |comment| as its own line above the line holding |pos|. */
static int
comment_above(struct yamledit *ye, size_t pos, const char *comment, char *err,
    size_t errlen)
{
	struct sbuf b = { 0 };
	long ind;
	int rc;

	if (comment == NULL)
		return 0;
	if ((ind = line_indent(ye, pos)) < 0) {
		seterr(err, errlen, "a tab indents the line to edit");
		return AL_ERR_UNSUPPORTED;
	}
	sb_comment(&b, ye, (size_t)ind, comment);
	if (b.bad)
		return AL_ERR_ALLOC;
	rc = splice(ye, line_start(ye, pos), 0, b.s, err, errlen);
	free(b.s);
	return rc;
}

/*
 * Writes the missing keys path[from..npath) and the final value in block
 * form at |indent|: a sequence of |items| or the scalar |value|.
 */
static void
sb_block_tail(struct sbuf *b, const struct yamledit *ye,
    const char *const *path, size_t from, size_t npath, size_t indent,
    const char *const *items, size_t nitems, const char *value)
{
	size_t i;

	for (i = from; i < npath; i++) {
		sb_indent(b, indent);
		sb_scalar(b, path[i], YAML_PLAIN_SCALAR_STYLE, 0);
		sb_add(b, ":");
		if (i + 1 == npath && value != NULL) {
			sb_add(b, " ");
			sb_add(b, value);
		}
		sb_add(b, ye->eol);
		indent += 2;
	}
	for (i = 0; value == NULL && i < nitems; i++) {
		sb_indent(b, indent);
		sb_add(b, "- ");
		sb_scalar(b, items[i], YAML_PLAIN_SCALAR_STYLE, 0);
		sb_add(b, ye->eol);
	}
}

/* The same in flow form: "k: {k2: [a, b]}". */
static void
sb_flow_tail(struct sbuf *b, const char *const *path, size_t from, size_t npath,
    const char *const *items, size_t nitems, const char *value)
{
	size_t i;

	for (i = from; i < npath; i++) {
		sb_scalar(b, path[i], YAML_PLAIN_SCALAR_STYLE, 1);
		sb_add(b, ": ");
		if (i + 1 < npath)
			sb_add(b, "{");
	}
	if (value != NULL)
		sb_add(b, value);
	else {
		sb_add(b, "[");
		for (i = 0; i < nitems; i++) {
			if (i > 0)
				sb_add(b, ", ");
			sb_scalar(b, items[i], YAML_PLAIN_SCALAR_STYLE, 1);
		}
		sb_add(b, "]");
	}
	for (i = from; i + 1 < npath; i++)
		sb_add(b, "}");
}

/* Adds the missing keys path[from..) to mapping |m|. */
static int
add_missing(struct yamledit *ye, struct ynode *m, const char *const *path,
    size_t from, size_t npath, const char *const *items, size_t nitems,
    const char *value, const char *comment, char *err, size_t errlen)
{
	struct sbuf b = { 0 };
	size_t i, at, ls, q;
	long ind;
	int rc, need_eol;

	for (i = from; i < npath; i++)
		if (comp_index(path[i]) >= 0) {
			seterr(err, errlen, "no item %s", path[i]);
			return AL_ERR_NOT_FOUND;
		}
	if (m->anchored) {
		seterr(err, errlen,
		    "%s's parent mapping has an anchor (&): its "
		    "aliases would change too; edit it by hand",
		    path[from]);
		return AL_ERR_UNSUPPORTED;
	}
	if (m->flow || m->nkids == 0) {
		/* Before the closing brace: ", k: v" or "k: v". */
		if (!m->flow || m->end == 0 || ye->text[m->end - 1] != '}') {
			seterr(err, errlen, "cannot add %s here", path[from]);
			return AL_ERR_UNSUPPORTED;
		}
		at = m->nkids > 0 ? m->kids[m->nkids - 1]->end : m->end - 1;
		if (m->nkids > 0)
			sb_add(&b, ", ");
		sb_flow_tail(&b, path, from, npath, items, nitems, value);
		if (b.bad)
			return AL_ERR_ALLOC;
		rc = splice(ye, at, 0, b.s, err, errlen);
		free(b.s);
		if (rc == 0)
			rc = comment_above(ye, at, comment, err, errlen);
		return rc;
	}
	if ((ind = line_indent(ye, m->kids[0]->start)) < 0) {
		seterr(err, errlen, "a tab indents the mapping to edit");
		return AL_ERR_UNSUPPORTED;
	}
	/*
	 * The mapping's column: where libyaml starts it (its first key, after
	 * "- " when the map is an item, or the "?" of an explicit key); with
	 * a tag or an anchor, which that start would be, its first key's.
	 */
	ls = line_start(ye, m->props ? m->kids[0]->start : m->start);
	q = m->props ? m->kids[0]->start : m->start;
	ind = (long)(q - ls);
	at = after_line(ye, content_end(m->kids[m->nkids - 1]), &need_eol);
	if (need_eol)
		sb_add(&b, ye->eol);
	sb_comment(&b, ye, (size_t)ind, comment);
	sb_block_tail(
	    &b, ye, path, from, npath, (size_t)ind, items, nitems, value);
	if (b.bad)
		return AL_ERR_ALLOC;
	rc = splice(ye, at, 0, b.s, err, errlen);
	free(b.s);
	return rc;
}

static int
seq_add(struct yamledit *ye, const char *const *path, size_t npath,
    const char *const *items, size_t nitems, const char *comment, char *err,
    size_t errlen)
{
	struct ynode *n;
	struct sbuf b = { 0 };
	const char **want;
	size_t i, j, nwant = 0, at, dash;
	int found, rc, need_eol, style;

	if (npath == 0 || npath > YAMLEDIT_MAX_PATH) {
		seterr(err, errlen, "bad path length %zu", npath);
		return AL_ERR_INTERNAL;
	}
	if ((found = walk(ye, path, npath, &n, err, errlen)) < 0)
		return found;
	if ((want = calloc(nitems + 1, sizeof(*want))) == NULL)
		return AL_ERR_ALLOC;
	for (i = 0; i < nitems; i++) {
		for (j = 0; j < nwant; j++)
			if (strcmp(want[j], items[i]) == 0)
				break;
		if (j == nwant)
			want[nwant++] = items[i];
	}
	if ((size_t)found < npath) {
		rc = add_missing(ye, n, path, (size_t)found, npath, want, nwant,
		    NULL, comment, err, errlen);
		free(want);
		return rc < 0 ? rc : (int)nwant;
	}
	if (n->kind != YN_SEQ) {
		free(want);
		seterr(err, errlen, "%s is %s, not a list", path[npath - 1],
		    n->kind == YN_SCALAR && n->value[0] == '\0' ? "empty (null)"
								: "not a list");
		return AL_ERR_UNSUPPORTED;
	}
	/* Only what is not there yet. */
	for (i = 0; i < nwant;) {
		for (j = 0; j < n->nkids; j++)
			if (n->kids[j]->kind == YN_SCALAR &&
			    strcmp(n->kids[j]->value, want[i]) == 0)
				break;
		if (j < n->nkids)
			want[i] = want[--nwant];
		else
			i++;
	}
	if (nwant == 0) {
		free(want);
		return 0;
	}
	if (n->anchored) {
		free(want);
		seterr(err, errlen,
		    "%s has an anchor (&): its aliases would "
		    "change too; edit it by hand",
		    path[npath - 1]);
		return AL_ERR_UNSUPPORTED;
	}
	style = n->nkids > 0 && n->kids[0]->kind == YN_SCALAR
	    ? n->kids[0]->style
	    : YAML_PLAIN_SCALAR_STYLE;
	if (n->flow) {
		at = n->nkids > 0 ? n->kids[n->nkids - 1]->end : n->start + 1;
		for (i = 0; i < nwant; i++) {
			if (i > 0 || n->nkids > 0)
				sb_add(&b, ", ");
			sb_scalar(&b, want[i], style, 1);
		}
		if (b.bad) {
			free(want);
			return AL_ERR_ALLOC;
		}
		rc = splice(ye, at, 0, b.s, err, errlen);
		free(b.s);
		if (rc == 0)
			rc = comment_above(ye, at, comment, err, errlen);
		free(want);
		return rc < 0 ? rc : (int)nwant;
	}
	/* A block sequence: "- item" lines at the first item's dash. */
	dash = n->kids[0]->start > 0 ? n->kids[0]->start - 1 : 0;
	while (dash > 0 && ye->text[dash] != '-')
		dash--;
	if (line_indent(ye, dash) < 0) {
		free(want);
		seterr(err, errlen, "a tab indents the list to edit");
		return AL_ERR_UNSUPPORTED;
	}
	dash -= line_start(ye, dash);
	at = after_line(ye, content_end(n), &need_eol);
	if (need_eol)
		sb_add(&b, ye->eol);
	sb_comment(&b, ye, dash, comment);
	for (i = 0; i < nwant; i++) {
		sb_indent(&b, dash);
		sb_add(&b, "- ");
		sb_scalar(&b, want[i], style, 0);
		sb_add(&b, ye->eol);
	}
	free(want);
	if (b.bad)
		return AL_ERR_ALLOC;
	rc = splice(ye, at, 0, b.s, err, errlen);
	free(b.s);
	return rc < 0 ? rc : (int)i;
}

static int
set_scalar(struct yamledit *ye, const char *const *path, size_t npath,
    const char *value, const char *comment, char *err, size_t errlen)
{
	struct ynode *n;
	size_t at;
	int found, rc;

	if (npath == 0 || npath > YAMLEDIT_MAX_PATH) {
		seterr(err, errlen, "bad path length %zu", npath);
		return AL_ERR_INTERNAL;
	}
	if ((found = walk(ye, path, npath, &n, err, errlen)) < 0)
		return found;
	if ((size_t)found < npath) {
		rc = add_missing(ye, n, path, (size_t)found, npath, NULL, 0,
		    value, comment, err, errlen);
		return rc < 0 ? rc : 1;
	}
	if (n->kind != YN_SCALAR || n->value[0] == '\0') {
		seterr(err, errlen, "%s is not a value", path[npath - 1]);
		return AL_ERR_UNSUPPORTED;
	}
	if (strcmp(n->value, value) == 0)
		return 0;
	if (n->anchored) {
		seterr(err, errlen,
		    "%s has an anchor (&): its aliases would "
		    "change too; edit it by hand",
		    path[npath - 1]);
		return AL_ERR_UNSUPPORTED;
	}
	at = n->start;
	if ((rc = splice(ye, at, n->end - n->start, value, err, errlen)) != 0)
		return rc;
	rc = comment_above(ye, at, comment, err, errlen);
	return rc < 0 ? rc : 1;
}

/*
 * Did the edit land where it was meant to?  The text parses (splice made
 * sure), but a YAML quirk (explicit keys, properties, odd indentation)
 * could put a well-formed line under another parent.  Walk the path
 * again: it must reach a list holding every item, or the scalar.
 */
static int
landed(struct yamledit *ye, const char *const *path, size_t npath,
    const char *const *items, size_t nitems, const char *value)
{
	struct ynode *n;
	size_t i, j;

	if (walk(ye, path, npath, &n, NULL, 0) != (int)npath)
		return 0;
	if (value != NULL)
		return n->kind == YN_SCALAR && strcmp(n->value, value) == 0;
	if (n->kind != YN_SEQ)
		return 0;
	for (i = 0; i < nitems; i++) {
		for (j = 0; j < n->nkids; j++)
			if (n->kids[j]->kind == YN_SCALAR &&
			    strcmp(n->kids[j]->value, items[i]) == 0)
				break;
		if (j == n->nkids)
			return 0;
	}
	return 1;
}

/* Runs one edit; on failure or a misplaced result, the old text stays. */
static int
edit(struct yamledit *ye, const char *const *path, size_t npath,
    const char *const *items, size_t nitems, const char *value,
    const char *comment, char *err, size_t errlen)
{
	char *saved;
	size_t savedlen = ye->len;
	int rc;

	if ((saved = malloc(ye->len + 1)) == NULL)
		return AL_ERR_ALLOC;
	memcpy(saved, ye->text, ye->len + 1);
	if (value != NULL)
		rc = set_scalar(ye, path, npath, value, comment, err, errlen);
	else
		rc = seq_add(
		    ye, path, npath, items, nitems, comment, err, errlen);
	if (rc > 0 && !landed(ye, path, npath, items, nitems, value)) {
		seterr(err, errlen,
		    "%s: the edit would not land there in this "
		    "file's layout: edit it by hand",
		    path[npath - 1]);
		rc = AL_ERR_UNSUPPORTED;
	}
	if (rc < 0 &&
	    (ye->len != savedlen || memcmp(ye->text, saved, savedlen) != 0)) {
		free(ye->text);
		ye->text = saved;
		ye->len = savedlen;
		saved = NULL;
		if (parse_text(ye, NULL, 0) != 0)
			rc = AL_ERR_INTERNAL;
	}
	free(saved);
	return rc;
}

int
yamledit_seq_add(struct yamledit *ye, const char *const *path, size_t npath,
    const char *const *items, size_t nitems, const char *comment, char *err,
    size_t errlen)
{
	if (npath == 0 || npath > YAMLEDIT_MAX_PATH) {
		seterr(err, errlen, "bad path length %zu", npath);
		return AL_ERR_INTERNAL;
	}
	return edit(ye, path, npath, items, nitems, NULL, comment, err, errlen);
}

int
yamledit_set_scalar(struct yamledit *ye, const char *const *path, size_t npath,
    const char *value, const char *comment, char *err, size_t errlen)
{
	if (npath == 0 || npath > YAMLEDIT_MAX_PATH || value == NULL) {
		seterr(err, errlen, "bad path length %zu", npath);
		return AL_ERR_INTERNAL;
	}
	return edit(ye, path, npath, NULL, 0, value, comment, err, errlen);
}
