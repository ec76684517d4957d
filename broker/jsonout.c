/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* JSON text written directly, as jansson writes it: see jsonout.h. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/jsonout.h"
#include "common/log.h"
#include "common/util.h"

void
jsonout_init(struct jsonout *o, size_t hint)
{
	o->cap = hint < 64 ? 64 : hint;
	o->p = xreallocarray(NULL, o->cap, 1);
	o->len = 0;
	o->p[0] = '\0';
}

void
jsonout_free(struct jsonout *o)
{
	free(o->p);
	o->p = NULL;
	o->len = o->cap = 0;
}

char *
jsonout_take(struct jsonout *o)
{
	char *p = o->p;

	o->p = NULL;
	o->len = o->cap = 0;
	return p;
}

/* Room for |n| more bytes and the NUL. */
static void
reserve(struct jsonout *o, size_t n)
{
	size_t cap;

	if (n >= SIZE_MAX / 2 - o->len)
		fatalx("%s: text too large", __func__);
	if (o->len + n + 1 <= o->cap)
		return;
	cap = o->cap ? o->cap : 64;
	while (cap < o->len + n + 1)
		cap *= 2;
	o->p = xreallocarray(o->p, cap, 1);
	o->cap = cap;
}

void
jsonout_raw(struct jsonout *o, const char *s, size_t n)
{
	reserve(o, n);
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

void
jsonout_lit(struct jsonout *o, const char *s)
{
	jsonout_raw(o, s, strlen(s));
}

/* 1 for the bytes jansson escapes: '"', '\\' and below 0x20. */
static const unsigned char esc[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x00 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x10 */
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20: '"' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x30 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x40 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50: '\\' */
};

void
jsonout_string(struct jsonout *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s, *end = p + n, *run;
	char *w;

	/* At most 6 bytes per input byte (\u00XX), and the quotes. */
	if (n > (SIZE_MAX - 8) / 6)
		fatalx("%s: string too large", __func__);
	reserve(o, n * 6 + 2);
	w = o->p + o->len;
	*w++ = '"';
	while (p < end) {
		for (run = p; p < end && !esc[*p]; p++)
			;
		if (p > run) {
			memcpy(w, run, (size_t)(p - run));
			w += p - run;
		}
		if (p == end)
			break;
		*w++ = '\\';
		switch (*p) {
		case '"':
			*w++ = '"';
			break;
		case '\\':
			*w++ = '\\';
			break;
		case '\b':
			*w++ = 'b';
			break;
		case '\f':
			*w++ = 'f';
			break;
		case '\n':
			*w++ = 'n';
			break;
		case '\r':
			*w++ = 'r';
			break;
		case '\t':
			*w++ = 't';
			break;
		default:
			*w++ = 'u';
			*w++ = '0';
			*w++ = '0';
			*w++ = hex[*p >> 4];
			*w++ = hex[*p & 15];
			break;
		}
		p++;
	}
	*w++ = '"';
	*w = '\0';
	o->len = (size_t)(w - o->p);
}

static int
value(struct jsonout *o, const json_t *v, int depth)
{
	char num[32];
	int n;

	if (depth > JSONOUT_MAX_DEPTH)
		return -1;
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		void *it;
		int first = 1;

		jsonout_raw(o, "{", 1);
		for (it = json_object_iter((json_t *)v); it != NULL;
		     it = json_object_iter_next((json_t *)v, it)) {
			if (!first)
				jsonout_raw(o, ",", 1);
			first = 0;
			jsonout_string(o, json_object_iter_key(it),
			    json_object_iter_key_len(it));
			jsonout_raw(o, ":", 1);
			if (value(o, json_object_iter_value(it), depth + 1) !=
			    0)
				return -1;
		}
		jsonout_raw(o, "}", 1);
		return 0;
	}
	case JSON_ARRAY: {
		size_t i, size = json_array_size(v);

		jsonout_raw(o, "[", 1);
		for (i = 0; i < size; i++) {
			if (i > 0)
				jsonout_raw(o, ",", 1);
			if (value(o, json_array_get(v, i), depth + 1) != 0)
				return -1;
		}
		jsonout_raw(o, "]", 1);
		return 0;
	}
	case JSON_STRING:
		jsonout_string(o, json_string_value(v), json_string_length(v));
		return 0;
	case JSON_INTEGER:
		n = snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
		    json_integer_value(v));
		jsonout_raw(o, num, (size_t)n);
		return 0;
	case JSON_TRUE:
		jsonout_raw(o, "true", 4);
		return 0;
	case JSON_FALSE:
		jsonout_raw(o, "false", 5);
		return 0;
	case JSON_NULL:
		jsonout_raw(o, "null", 4);
		return 0;
	case JSON_REAL: {
		/* Rare in replies: jansson's own number formatting. */
		char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		if (t == NULL)
			return -1;
		jsonout_lit(o, t);
		free(t);
		return 0;
	}
	}
	return -1;
}

int
jsonout_value(struct jsonout *o, const json_t *v)
{
	size_t mark = o->len;

	if (v == NULL || value(o, v, 0) != 0) {
		o->len = mark;
		if (o->p != NULL)
			o->p[mark] = '\0';
		return -1;
	}
	return 0;
}

char *
jsonout_dumps(const json_t *v)
{
	struct jsonout o;

	jsonout_init(&o, 256);
	if (jsonout_value(&o, v) != 0) {
		jsonout_free(&o);
		return NULL;
	}
	return jsonout_take(&o);
}
