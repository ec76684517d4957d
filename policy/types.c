/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * types: built-in and user types, validation of JSON values against them,
 * and JSON Schema derivation.  Pure code: no I/O.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/types.h"

#define PATH_MAX_LEN		4096	/* workspace_relative_path */
#define CHECK_ID_MAX_LEN	128	/* approved_check */
#define POINTER_MAX		1024	/* JSON pointer buffer in messages */

struct type_table {
	struct type	**v;
	size_t		  n;
	size_t		  cap;
};

static int
table_push(struct type_table *tt, struct type *t)
{
	struct type **nv;
	size_t ncap;

	if (tt->n == tt->cap) {
		ncap = tt->cap ? tt->cap * 2 : 32;
		if ((nv = reallocarray(tt->v, ncap, sizeof(*nv))) == NULL)
			return AL_ERR_ALLOC;
		tt->v = nv;
		tt->cap = ncap;
	}
	tt->v[tt->n++] = t;
	return 0;
}

static struct type *
builtin(const char *name, enum type_kind kind, enum type_format format)
{
	struct type *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	if ((t->name = strdup(name)) == NULL) {
		free(t);
		return NULL;
	}
	t->kind = kind;
	t->format = format;
	t->builtin = 1;
	t->max_length = TYPE_DEFAULT_MAX_STRING;
	t->max_items = TYPE_DEFAULT_MAX_ITEMS;
	return t;
}

struct type_table *
type_table_new(void)
{
	static const struct {
		const char		*name;
		enum type_kind		 kind;
		enum type_format	 format;
	} defs[] = {
		{ "string",			TYPE_STRING,	FORMAT_NONE },
		{ "integer",			TYPE_INTEGER,	FORMAT_NONE },
		{ "number",			TYPE_NUMBER,	FORMAT_NONE },
		{ "boolean",			TYPE_BOOLEAN,	FORMAT_NONE },
		{ "string_list",		TYPE_LIST,	FORMAT_NONE },
		{ "sha256",			TYPE_STRING,	FORMAT_SHA256 },
		{ "workspace_relative_path",	TYPE_STRING,	FORMAT_WORKSPACE_PATH },
		{ "unified_diff",		TYPE_STRING,	FORMAT_UNIFIED_DIFF },
		{ "approved_check",		TYPE_STRING,	FORMAT_APPROVED_CHECK },
		{ "approved_or_rejected",	TYPE_STRING,	FORMAT_APPROVAL },
	};
	struct type_table *tt;
	struct type *t;
	size_t i;

	if ((tt = calloc(1, sizeof(*tt))) == NULL)
		return NULL;
	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		if ((t = builtin(defs[i].name, defs[i].kind,
		    defs[i].format)) == NULL)
			goto fail;
		switch (t->format) {
		case FORMAT_SHA256:
			t->min_length = t->max_length = SHA256_HEX_LEN;
			break;
		case FORMAT_WORKSPACE_PATH:
			t->min_length = 1;
			t->max_length = PATH_MAX_LEN;
			break;
		case FORMAT_APPROVED_CHECK:
			t->min_length = 1;
			t->max_length = CHECK_ID_MAX_LEN;
			break;
		case FORMAT_APPROVAL:
			t->max_length = 16;
			if ((t->enumv = calloc(3, sizeof(char *))) == NULL ||
			    (t->enumv[0] = strdup("approved")) == NULL ||
			    (t->enumv[1] = strdup("rejected")) == NULL) {
				type_free(t);
				goto fail;
			}
			break;
		default:
			break;
		}
		if (table_push(tt, t) != 0) {
			type_free(t);
			goto fail;
		}
	}
	/* string_list's items is the table's own "string". */
	tt->v[4]->items = tt->v[0];
	return tt;
 fail:
	type_table_free(tt);
	return NULL;
}

void
type_free(struct type *t)
{
	size_t i;

	if (t == NULL)
		return;
	free(t->name);
	free(t->pattern);
	if (t->has_re)
		regfree(&t->re);
	strv_free(t->enumv);
	for (i = 0; i < t->nfields; i++)
		free(t->fields[i].name);
	free(t->fields);
	free(t);
}

void
type_table_free(struct type_table *tt)
{
	size_t i;

	if (tt == NULL)
		return;
	for (i = 0; i < tt->n; i++)
		type_free(tt->v[i]);
	free(tt->v);
	free(tt);
}

const struct type *
type_lookup(const struct type_table *tt, const char *name)
{
	size_t i;

	for (i = 0; i < tt->n; i++)
		if (strcmp(tt->v[i]->name, name) == 0)
			return tt->v[i];
	return NULL;
}

int
type_table_add(struct type_table *tt, struct type *t)
{
	if (type_lookup(tt, t->name) != NULL)
		return AL_ERR_CONFLICT;
	return table_push(tt, t);
}

size_t
type_table_count(const struct type_table *tt)
{
	return tt->n;
}

const struct type *
type_table_at(const struct type_table *tt, size_t i)
{
	return i < tt->n ? tt->v[i] : NULL;
}

/*
 * Syntax of a workspace-relative path: non-empty, relative, bounded, and
 * without a ".." component.  Resolution beneath the root (symlinks,
 * races) is path_resolve()'s job; this only refuses what no resolution
 * could make safe.  Returns NULL or a reason.
 */
const char *
type_path_syntax_error(const char *s, size_t len)
{
	const char *p, *end;

	if (len == 0)
		return "empty path";
	if (len > PATH_MAX_LEN)
		return "path longer than 4096 bytes";
	if (memchr(s, '\0', len) != NULL)
		return "path contains a NUL byte";
	if (s[0] == '/')
		return "absolute path";
	end = s + len;
	for (p = s; p < end; ) {
		const char *slash = memchr(p, '/', end - p);
		size_t clen = (slash ? slash : end) - p;

		if (clen == 2 && p[0] == '.' && p[1] == '.')
			return "'..' component";
		if (slash == NULL)
			break;
		p = slash + 1;
	}
	return NULL;
}

/*
 * Drops "." components, repeated and trailing slashes in place: the form
 * in which the broker compares a landed path (wswrite_where()).
 */
size_t
type_path_normalize(char *s)
{
	char *r = s, *w = s;

	while (*r != '\0') {
		size_t n = strcspn(r, "/");

		if (n > 0 && !(n == 1 && r[0] == '.')) {
			if (w != s)
				*w++ = '/';
			memmove(w, r, n);
			w += n;
		}
		r += n;
		while (*r == '/')
			r++;
	}
	*w = '\0';
	return (size_t)(w - s);
}

/* A check id: [A-Za-z0-9._:-], 1..128 bytes. */
int
type_check_id_valid(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		    c == '-' || c == ':'))
			return 0;
		if (i >= CHECK_ID_MAX_LEN)
			return 0;
	}
	return i > 0;
}

/*
 * A unified diff has, somewhere, a "--- " line directly followed by a
 * "+++ " line, and a "@@ " hunk header after it.  Enough to refuse text
 * that is not a patch before a patch tool sees it.
 */
static int
looks_like_unified_diff(const char *s, size_t len)
{
	const char *p = s, *end = s + len, *nl;
	int headers = 0;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!headers && (size_t)(end - p) > 4 && strncmp(p, "--- ", 4) == 0 &&
		    nl != NULL && (size_t)(end - nl - 1) > 4 &&
		    strncmp(nl + 1, "+++ ", 4) == 0)
			headers = 1;
		else if (headers && (size_t)(end - p) >= 3 &&
		    strncmp(p, "@@ ", 3) == 0)
			return 1;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return 0;
}

struct vctx {
	type_check_exists_fn	 check_exists;
	void			*arg;
	char			*err;
	size_t			 errlen;
	char			 ptr[POINTER_MAX];
	size_t			 plen;
};

/* Appends "/seg" (RFC 6901 escaped) to the pointer; truncates with "...". */
static void
ptr_push(struct vctx *c, const char *seg)
{
	size_t room;

	if (c->plen + 1 >= sizeof(c->ptr))
		return;
	c->ptr[c->plen++] = '/';
	for (; *seg != '\0'; seg++) {
		room = sizeof(c->ptr) - c->plen;
		if (room < 8) {
			memcpy(c->ptr + c->plen, "...", 3);
			c->plen += 3;
			break;
		}
		if (*seg == '~' || *seg == '/') {
			c->ptr[c->plen++] = '~';
			c->ptr[c->plen++] = *seg == '~' ? '0' : '1';
		} else
			c->ptr[c->plen++] = *seg;
	}
	c->ptr[c->plen] = '\0';
}

static int
verr(struct vctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
verr(struct vctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->errlen > 0)
		snprintf(c->err, c->errlen, "%s: %s",
		    c->plen ? c->ptr : "/", msg);
	return AL_ERR_TYPE;
}

static const char *
kind_name(enum type_kind k)
{
	switch (k) {
	case TYPE_STRING:	return "a string";
	case TYPE_INTEGER:	return "an integer";
	case TYPE_NUMBER:	return "a number";
	case TYPE_BOOLEAN:	return "a boolean";
	case TYPE_LIST:		return "a list";
	case TYPE_OBJECT:	return "an object";
	}
	return "?";
}

static int validate(struct vctx *, const struct type *, const json_t *, int);
static int validate_fields(struct vctx *, const struct type_field *, size_t,
    const json_t *, int);

static int
validate_string(struct vctx *c, const struct type *t, const json_t *v)
{
	const char *s = json_string_value(v), *why;
	size_t len = json_string_length(v), i;

	if (memchr(s, '\0', len) != NULL)
		return verr(c, "string contains a NUL byte");
	if (len > t->max_length)
		return verr(c, "longer than %zu bytes", t->max_length);
	if (len < t->min_length)
		return verr(c, "shorter than %zu bytes", t->min_length);
	switch (t->format) {
	case FORMAT_NONE:
		break;
	case FORMAT_WORKSPACE_PATH:
		if ((why = type_path_syntax_error(s, len)) != NULL)
			return verr(c, "not a workspace-relative path: %s", why);
		break;
	case FORMAT_SHA256:
		if (!is_sha256_hex(s))
			return verr(c, "not a sha256 (64 lowercase hex digits)");
		break;
	case FORMAT_UNIFIED_DIFF:
		if (!looks_like_unified_diff(s, len))
			return verr(c, "not a unified diff (needs ---, +++ "
			    "and @@ lines)");
		break;
	case FORMAT_APPROVED_CHECK:
		if (!type_check_id_valid(s))
			return verr(c, "not a check id");
		if (c->check_exists != NULL && !c->check_exists(s, c->arg))
			return verr(c, "not an approved check id");
		break;
	case FORMAT_APPROVAL:
		break;	/* enumv holds the two words */
	}
	if (t->enumv != NULL) {
		for (i = 0; t->enumv[i] != NULL; i++)
			if (strcmp(t->enumv[i], s) == 0)
				break;
		if (t->enumv[i] == NULL)
			return verr(c, "not one of the allowed values");
	}
	if (t->has_re && regexec(&t->re, s, 0, NULL, 0) != 0)
		return verr(c, "does not match the pattern of type %s", t->name);
	return 0;
}

static int
validate_number(struct vctx *c, const struct type *t, const json_t *v)
{
	double d;

	if (t->kind == TYPE_INTEGER) {
		if (json_is_integer(v))
			d = (double)json_integer_value(v);
		else if (json_is_real(v)) {
			/* 3.0 is an integer; 3.5 and 1e300 are not. */
			d = json_real_value(v);
			if (d != floor(d))
				return verr(c, "expected an integer");
			if (!(d >= -9223372036854775808.0 &&
			    d < 9223372036854775808.0))
				return verr(c, "integer out of range");
		} else
			return verr(c, "expected an integer");
	} else {
		if (!json_is_number(v))
			return verr(c, "expected a number");
		d = json_number_value(v);
		if (!isfinite(d))
			return verr(c, "expected a finite number");
	}
	if (t->has_min && d < t->min)
		return verr(c, "below the minimum %.17g", t->min);
	if (t->has_max && d > t->max)
		return verr(c, "above the maximum %.17g", t->max);
	return 0;
}

static int
validate(struct vctx *c, const struct type *t, const json_t *v, int depth)
{
	size_t i, save;
	char idx[32];
	int r;

	if (depth > TYPE_MAX_DEPTH)
		return verr(c, "nested deeper than %d", TYPE_MAX_DEPTH);
	switch (t->kind) {
	case TYPE_STRING:
		if (!json_is_string(v))
			return verr(c, "expected %s", kind_name(t->kind));
		return validate_string(c, t, v);
	case TYPE_INTEGER:
	case TYPE_NUMBER:
		return validate_number(c, t, v);
	case TYPE_BOOLEAN:
		if (!json_is_boolean(v))
			return verr(c, "expected %s", kind_name(t->kind));
		return 0;
	case TYPE_LIST:
		if (!json_is_array(v))
			return verr(c, "expected %s", kind_name(t->kind));
		if (json_array_size(v) > t->max_items)
			return verr(c, "more than %zu items", t->max_items);
		for (i = 0; i < json_array_size(v); i++) {
			save = c->plen;
			snprintf(idx, sizeof(idx), "%zu", i);
			ptr_push(c, idx);
			r = validate(c, t->items, json_array_get(v, i),
			    depth + 1);
			c->plen = save;
			c->ptr[c->plen] = '\0';
			if (r != 0)
				return r;
		}
		return 0;
	case TYPE_OBJECT:
		return validate_fields(c, t->fields, t->nfields, v, depth + 1);
	}
	return verr(c, "unknown type kind");
}

static int
validate_fields(struct vctx *c, const struct type_field *fields, size_t n,
    const json_t *obj, int depth)
{
	const char *key;
	json_t *val;
	size_t i, save;
	int r;

	if (depth > TYPE_MAX_DEPTH)
		return verr(c, "nested deeper than %d", TYPE_MAX_DEPTH);
	if (!json_is_object(obj))
		return verr(c, "expected an object");
	json_object_foreach((json_t *)obj, key, val) {
		for (i = 0; i < n; i++)
			if (strcmp(fields[i].name, key) == 0)
				break;
		save = c->plen;
		ptr_push(c, key);
		if (i == n)
			r = verr(c, "unknown field");
		else
			r = validate(c, fields[i].type, val, depth);
		c->plen = save;
		c->ptr[c->plen] = '\0';
		if (r != 0)
			return r;
	}
	for (i = 0; i < n; i++) {
		if (!fields[i].required ||
		    json_object_get(obj, fields[i].name) != NULL)
			continue;
		save = c->plen;
		ptr_push(c, fields[i].name);
		r = verr(c, "missing required field");
		c->plen = save;
		c->ptr[c->plen] = '\0';
		return r;
	}
	return 0;
}

int
type_validate(const struct type *t, const json_t *v,
    type_check_exists_fn check_exists, void *arg, char *err, size_t errlen)
{
	struct vctx c;

	memset(&c, 0, sizeof(c));
	c.check_exists = check_exists;
	c.arg = arg;
	c.err = err;
	c.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';
	if (t == NULL || v == NULL)
		return verr(&c, "no value");
	return validate(&c, t, v, 0);
}

int
type_validate_fields(const struct type_field *fields, size_t n,
    const json_t *obj, type_check_exists_fn check_exists, void *arg,
    char *err, size_t errlen)
{
	struct vctx c;

	memset(&c, 0, sizeof(c));
	c.check_exists = check_exists;
	c.arg = arg;
	c.err = err;
	c.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';
	if (obj == NULL)
		return verr(&c, "no value");
	return validate_fields(&c, fields, n, obj, 0);
}

/* Sets key to a new reference, dropping the object on failure. */
static int
put(json_t *o, const char *key, json_t *v)
{
	return v == NULL || json_object_set_new(o, key, v) != 0 ? -1 : 0;
}

static json_t *schema(const struct type *, int);

static json_t *
fields_schema(const struct type_field *fields, size_t n, int depth)
{
	json_t *o, *props, *req;
	size_t i;

	if ((o = json_object()) == NULL)
		return NULL;
	if (put(o, "type", json_string("object")) != 0 ||
	    (props = json_object()) == NULL ||
	    put(o, "properties", props) != 0 ||
	    (req = json_array()) == NULL)
		goto fail;
	for (i = 0; i < n; i++) {
		if (put(props, fields[i].name,
		    schema(fields[i].type, depth + 1)) != 0)
			goto fail_req;
		if (fields[i].required &&
		    json_array_append_new(req, json_string(fields[i].name)) != 0)
			goto fail_req;
	}
	if (put(o, "required", req) != 0 ||
	    put(o, "additionalProperties", json_false()) != 0)
		goto fail;
	return o;
 fail_req:
	json_decref(req);
 fail:
	json_decref(o);
	return NULL;
}

static json_t *
schema(const struct type *t, int depth)
{
	json_t *o, *a;
	char *anchored;
	size_t i;
	int r = 0;

	if (depth > TYPE_MAX_DEPTH)
		return NULL;
	if (t->kind == TYPE_OBJECT)
		return fields_schema(t->fields, t->nfields, depth);
	if ((o = json_object()) == NULL)
		return NULL;
	switch (t->kind) {
	case TYPE_STRING:
		r |= put(o, "type", json_string("string"));
		if (t->min_length > 0)
			r |= put(o, "minLength",
			    json_integer((json_int_t)t->min_length));
		r |= put(o, "maxLength", json_integer((json_int_t)t->max_length));
		switch (t->format) {
		case FORMAT_SHA256:
			r |= put(o, "pattern", json_string("^[0-9a-f]{64}$"));
			r |= put(o, "description", json_string(
			    "SHA-256 digest: 64 lowercase hex digits"));
			break;
		case FORMAT_WORKSPACE_PATH:
			r |= put(o, "description", json_string(
			    "Path relative to the workspace root: not absolute, "
			    "no '..' components, resolved beneath the root "
			    "(symlinks may not leave it)"));
			break;
		case FORMAT_UNIFIED_DIFF:
			r |= put(o, "description", json_string(
			    "Unified diff (---/+++ headers and @@ hunks), "
			    "paths relative to the workspace root"));
			break;
		case FORMAT_APPROVED_CHECK:
			r |= put(o, "pattern", json_string("^[A-Za-z0-9._:-]+$"));
			r |= put(o, "description", json_string(
			    "Id of a check approved in the manifest"));
			break;
		default:
			break;
		}
		if (t->pattern != NULL) {
			/* Matched against the whole value, as validated. */
			if (asprintf(&anchored, "^(%s)$", t->pattern) < 0)
				r = -1;
			else {
				r |= put(o, "pattern", json_string(anchored));
				free(anchored);
			}
		}
		if (t->enumv != NULL) {
			if ((a = json_array()) == NULL)
				r = -1;
			else {
				for (i = 0; t->enumv[i] != NULL; i++)
					r |= json_array_append_new(a,
					    json_string(t->enumv[i]));
				r |= put(o, "enum", a);
			}
		}
		break;
	case TYPE_INTEGER:
	case TYPE_NUMBER:
		r |= put(o, "type", json_string(t->kind == TYPE_INTEGER ?
		    "integer" : "number"));
		if (t->has_min)
			r |= put(o, "minimum", t->kind == TYPE_INTEGER ?
			    json_integer((json_int_t)t->min) : json_real(t->min));
		if (t->has_max)
			r |= put(o, "maximum", t->kind == TYPE_INTEGER ?
			    json_integer((json_int_t)t->max) : json_real(t->max));
		break;
	case TYPE_BOOLEAN:
		r |= put(o, "type", json_string("boolean"));
		break;
	case TYPE_LIST:
		r |= put(o, "type", json_string("array"));
		r |= put(o, "items", schema(t->items, depth + 1));
		r |= put(o, "maxItems", json_integer((json_int_t)t->max_items));
		break;
	case TYPE_OBJECT:
		break;
	}
	if (r != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *
type_schema(const struct type *t)
{
	return schema(t, 0);
}

json_t *
type_fields_schema(const struct type_field *fields, size_t n)
{
	return fields_schema(fields, n, 0);
}

int
type_set_pattern(struct type *t, const char *pattern, char *err, size_t errlen)
{
	char *anchored;
	int r;

	if (strlen(pattern) > TYPE_MAX_PATTERN) {
		snprintf(err, errlen, "pattern longer than %d bytes",
		    TYPE_MAX_PATTERN);
		return AL_ERR_LIMIT;
	}
	if (t->has_re) {
		regfree(&t->re);
		t->has_re = 0;
	}
	free(t->pattern);
	if ((t->pattern = strdup(pattern)) == NULL)
		return AL_ERR_ALLOC;
	if (asprintf(&anchored, "^(%s)$", pattern) < 0)
		return AL_ERR_ALLOC;
	r = regcomp(&t->re, anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	if (r != 0) {
		char msg[256];

		regerror(r, &t->re, msg, sizeof(msg));
		snprintf(err, errlen, "bad pattern: %s", msg);
		return AL_ERR_FORMAT;
	}
	t->has_re = 1;
	return 0;
}
