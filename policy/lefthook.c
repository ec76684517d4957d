/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* lefthook: the paths a lefthook config extends with (lefthook.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/log.h"
#include "common/util.h"
#include "policy/lefthook.h"

/* The keys, and which kind of path each names. */
static int
key_of(const char *name, enum lefthook_key *key)
{
	if (strcmp(name, "extends") == 0)
		*key = LEFTHOOK_EXTENDS;
	else if (strcmp(name, "source_dir") == 0 ||
	    strcmp(name, "source_dir_local") == 0)
		*key = LEFTHOOK_SOURCE_DIR;
	else if (strcmp(name, "rc") == 0)
		*key = LEFTHOOK_RC;
	else
		return 0;
	return 1;
}

/* The values of |v|, a key's: a string, or a list's strings. */
static int
yaml_values(yaml_document_t *d, yaml_node_t *v, enum lefthook_key key,
    lefthook_path_fn fn, void *arg)
{
	yaml_node_item_t *it;
	yaml_node_t *item;
	int rc = 0;

	if (v->type == YAML_SCALAR_NODE)
		return fn(arg, key, (const char *)v->data.scalar.value);
	if (v->type != YAML_SEQUENCE_NODE)
		return 0;
	for (it = v->data.sequence.items.start;
	     rc == 0 && it < v->data.sequence.items.top; it++)
		if ((item = yaml_document_get_node(d, *it)) != NULL &&
		    item->type == YAML_SCALAR_NODE)
			rc =
			    fn(arg, key, (const char *)item->data.scalar.value);
	return rc;
}

/*
 * The keys of mapping |m|, and of the mappings a merge key ("<<", which
 * lefthook's YAML reader honours) brings into it, |depth| deep.
 */
static int
yaml_mapping(yaml_document_t *d, yaml_node_t *m, int depth, lefthook_path_fn fn,
    void *arg, char *err, size_t errlen)
{
	yaml_node_pair_t *pair;
	yaml_node_item_t *it;
	yaml_node_t *k, *v, *item;
	enum lefthook_key key;
	int rc = 0;

	if (depth > 8) {
		/* (Or a mapping that merges itself.) */
		snprintf(err, errlen, "merge keys nest more than 8 deep");
		return -1;
	}
	for (pair = m->data.mapping.pairs.start;
	     rc == 0 && pair < m->data.mapping.pairs.top; pair++) {
		k = yaml_document_get_node(d, pair->key);
		v = yaml_document_get_node(d, pair->value);
		if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE)
			continue;
		if (key_of((const char *)k->data.scalar.value, &key)) {
			rc = yaml_values(d, v, key, fn, arg);
			continue;
		}
		if (strcmp((const char *)k->data.scalar.value, "<<") != 0)
			continue;
		if (v->type == YAML_MAPPING_NODE)
			rc =
			    yaml_mapping(d, v, depth + 1, fn, arg, err, errlen);
		else if (v->type == YAML_SEQUENCE_NODE)
			for (it = v->data.sequence.items.start;
			     rc == 0 && it < v->data.sequence.items.top; it++)
				if ((item = yaml_document_get_node(d, *it)) !=
					NULL &&
				    item->type == YAML_MAPPING_NODE)
					rc = yaml_mapping(d, item, depth + 1,
					    fn, arg, err, errlen);
	}
	return rc;
}

/* YAML and JSON: the root mapping's keys. */
static int
from_yaml(const char *text, size_t len, lefthook_path_fn fn, void *arg,
    char *err, size_t errlen)
{
	yaml_parser_t p;
	yaml_document_t d;
	yaml_node_t *root;
	int rc = 0;

	if (!yaml_parser_initialize(&p))
		fatalx("out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &d)) {
		snprintf(err, errlen, "%s at line %zu",
		    p.problem != NULL ? p.problem : "not YAML",
		    p.problem_mark.line + 1);
		yaml_parser_delete(&p);
		return -1;
	}
	root = yaml_document_get_root_node(&d);
	if (root != NULL && root->type == YAML_MAPPING_NODE)
		rc = yaml_mapping(&d, root, 0, fn, arg, err, errlen);
	yaml_document_delete(&d);
	yaml_parser_delete(&p);
	return rc;
}

/* JSON with comments: the comments blanked (strings kept), then JSON. */
static int
from_jsonc(const char *text, size_t len, lefthook_path_fn fn, void *arg,
    char *err, size_t errlen)
{
	char *s = xcalloc(1, len + 1);
	size_t i;
	int rc, in_str = 0;

	memcpy(s, text, len);
	s[len] = '\0';
	for (i = 0; i < len; i++) {
		if (in_str) {
			if (s[i] == '\\' && i + 1 < len)
				i++;
			else if (s[i] == '"')
				in_str = 0;
		} else if (s[i] == '"')
			in_str = 1;
		else if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				s[i++] = ' ';
		} else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
			s[i++] = ' ';
			s[i] = ' ';
			while (++i < len &&
			    !(s[i] == '*' && i + 1 < len && s[i + 1] == '/'))
				if (s[i] != '\n')
					s[i] = ' ';
			if (i < len)
				s[i++] = ' ';
			if (i < len)
				s[i] = ' ';
		}
	}
	rc = from_yaml(s, len, fn, arg, err, errlen);
	free(s);
	return rc;
}

/* TOML, read lexically: a cursor over the text. */
struct toml {
	const char *s, *end;
	char *err;
	size_t errlen;
};

static int
toml_fail(struct toml *t, const char *what)
{
	snprintf(t->err, t->errlen, "%s", what);
	return -1;
}

/* Blanks, and comments with |newlines|. */
static void
toml_skip(struct toml *t, int newlines)
{
	while (t->s < t->end) {
		if (*t->s == ' ' || *t->s == '\t' ||
		    (newlines && (*t->s == '\n' || *t->s == '\r')))
			t->s++;
		else if (*t->s == '#' && newlines)
			while (t->s < t->end && *t->s != '\n')
				t->s++;
		else
			break;
	}
}

/* Appends |c| to the string being read (when it is kept). */
static void
put_char(char **buf, size_t *n, size_t *cap, char c)
{
	if (*buf == NULL)
		return;
	if (*n + 1 >= *cap) {
		*cap *= 2;
		*buf = xreallocarray(*buf, *cap, 1);
	}
	(*buf)[(*n)++] = c;
}

/*
 * A string at the cursor (basic, literal, or either multi-line) into
 * |out| (allocated) when |out| is not NULL.  0, or -1: not closed, or an
 * escape this reader does not decode (\u, \U).
 */
static int
toml_string(struct toml *t, char **out)
{
	char q = *t->s, *buf = NULL, c;
	size_t n = 0, cap = 64;
	int multi;

	multi = t->end - t->s >= 3 && t->s[1] == q && t->s[2] == q;
	t->s += multi ? 3 : 1;
	if (out != NULL)
		buf = xcalloc(1, cap);
	for (;;) {
		if (t->s >= t->end || (!multi && *t->s == '\n')) {
			free(buf);
			return toml_fail(t, "a string is not closed");
		}
		if (*t->s == q &&
		    (!multi ||
			(t->end - t->s >= 3 && t->s[1] == q && t->s[2] == q))) {
			t->s += multi ? 3 : 1;
			break;
		}
		c = *t->s;
		if (c == '\\' && q == '"' && t->s + 1 < t->end) {
			t->s++;
			switch (*t->s) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case '"':
				c = '"';
				break;
			case '\\':
				c = '\\';
				break;
			case '\n':
				/* A line-ending backslash: the blanks go. */
				while (t->s + 1 < t->end &&
				    strchr(" \t\r\n", t->s[1]) != NULL)
					t->s++;
				t->s++;
				continue;
			default:
				free(buf);
				return toml_fail(t,
				    "a string escape this "
				    "reader does not decode");
			}
		}
		put_char(&buf, &n, &cap, c);
		t->s++;
	}
	if (out != NULL) {
		buf[n] = '\0';
		*out = buf;
	}
	return 0;
}

/*
 * A value at the cursor.  With |emit|, each string it is, or each string
 * item of the array it is, goes to |fn|.  0, |fn|'s non-zero return, or
 * -1 (malformed).
 */
static int
toml_value(struct toml *t, int depth, int emit, enum lefthook_key key,
    lefthook_path_fn fn, void *arg)
{
	char *str, open, close;
	int rc;

	if (depth > 64)
		return toml_fail(t, "values nest too deep");
	if (t->s >= t->end)
		return toml_fail(t, "a key has no value");
	if (*t->s == '"' || *t->s == '\'') {
		if (toml_string(t, emit ? &str : NULL) != 0)
			return -1;
		if (!emit)
			return 0;
		rc = fn(arg, key, str);
		free(str);
		return rc;
	}
	if (*t->s == '[' || *t->s == '{') {
		open = *t->s++;
		close = open == '[' ? ']' : '}';
		for (;;) {
			toml_skip(t, 1);
			if (t->s >= t->end)
				return toml_fail(t,
				    "an array or table is "
				    "not closed");
			if (*t->s == close) {
				t->s++;
				return 0;
			}
			if (*t->s == ',') {
				t->s++;
				continue;
			}
			if (open == '{') {
				/* key = value: the key's text passed over. */
				while (t->s < t->end &&
				    strchr("=,}\n", *t->s) == NULL) {
					if (*t->s != '"' && *t->s != '\'')
						t->s++;
					else if (toml_string(t, NULL) != 0)
						return -1;
				}
				if (t->s < t->end && *t->s == '=') {
					t->s++;
					toml_skip(t, 0);
				} else
					continue;
			}
			if ((rc = toml_value(t, depth + 1,
				 emit && open == '[' && depth == 0, key, fn,
				 arg)) != 0)
				return rc;
		}
	}
	/* A number, a boolean, a date: to the end of the item. */
	if (strchr(",]}#\n", *t->s) != NULL)
		return toml_fail(t, "a value is missing");
	while (t->s < t->end && strchr(",]}#\n", *t->s) == NULL)
		t->s++;
	return 0;
}

static int
from_toml(const char *text, size_t len, lefthook_path_fn fn, void *arg,
    char *err, size_t errlen)
{
	struct toml t = { text, text + len, err, errlen };
	enum lefthook_key key = LEFTHOOK_EXTENDS;
	char *name, bare[64];
	size_t n;
	int rc, parts, ours;

	/* (The scans below stop at characters, and a NUL is none.) */
	if (memchr(text, '\0', len) != NULL)
		return toml_fail(&t, "a NUL byte");
	for (;;) {
		toml_skip(&t, 1);
		/* The first table ends the top-level keys. */
		if (t.s >= t.end || *t.s == '[')
			return 0;
		/* The key: its parts, dotted. */
		parts = 0;
		ours = 0;
		for (;;) {
			name = NULL;
			if (t.s >= t.end)
				return toml_fail(&t, "a key has no value");
			if (*t.s == '"' || *t.s == '\'') {
				if (toml_string(&t, &name) != 0)
					return -1;
			} else {
				for (n = 0;
				     t.s < t.end && n < sizeof(bare) - 1 &&
				     strchr(" \t=.#\n", *t.s) == NULL;
				     n++)
					bare[n] = *t.s++;
				bare[n] = '\0';
				if (n == 0)
					return toml_fail(&t,
					    "a line is not "
					    "key = value");
				name = xstrdup(bare);
			}
			ours = parts++ == 0 && key_of(name, &key);
			free(name);
			toml_skip(&t, 0);
			if (t.s < t.end && *t.s == '.') {
				t.s++;
				toml_skip(&t, 0);
				continue;
			}
			break;
		}
		if (t.s >= t.end || *t.s != '=')
			return toml_fail(&t, "a line is not key = value");
		t.s++;
		toml_skip(&t, 0);
		if ((rc = toml_value(
			 &t, 0, ours && parts == 1, key, fn, arg)) != 0)
			return rc;
		toml_skip(&t, 0);
		if (t.s < t.end && *t.s == '#')
			while (t.s < t.end && *t.s != '\n')
				t.s++;
		if (t.s < t.end && *t.s != '\n' && *t.s != '\r')
			return toml_fail(&t, "text after a value");
	}
}

int
lefthook_paths(const char *text, size_t len, const char *ext,
    lefthook_path_fn fn, void *arg, char *err, size_t errlen)
{
	if (strcmp(ext, "yml") == 0 || strcmp(ext, "yaml") == 0 ||
	    strcmp(ext, "json") == 0)
		return from_yaml(text, len, fn, arg, err, errlen);
	if (strcmp(ext, "jsonc") == 0)
		return from_jsonc(text, len, fn, arg, err, errlen);
	if (strcmp(ext, "toml") == 0)
		return from_toml(text, len, fn, arg, err, errlen);
	snprintf(err, errlen, "not a lefthook config format: %s", ext);
	return -1;
}
