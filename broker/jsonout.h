/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * jsonout: JSON text written straight into a growing buffer, byte for
 * byte what jansson's json_dumps(v, JSON_COMPACT) writes (no ASCII
 * escaping, no slash escaping, objects in their iteration order), without
 * jansson's per-code-point dump.  The broker's replies are written with
 * it (broker/jsonrpc.c): a tool result's structured JSON is encoded once
 * and the same bytes are pasted into the reply as structuredContent and,
 * escaped once more, as its text block.
 *
 * Escaping is jansson's: '"' and '\\' and the control characters below
 * 0x20 (\b \f \n \r \t by name, the others as \u00XX in upper-case hex);
 * every other byte is copied.  Strings are not validated again: they must
 * be valid UTF-8, as every string jansson's checked constructors make is
 * (json_string(), json_pack(), the parser).  tests/unit/test_jsonout.c
 * checks every byte value and random trees against jansson's own output.
 *
 * Out of memory is fatal (fatalx), as elsewhere in the broker.  Not for
 * use outside broker/.
 */
#ifndef AIRLOCK_JSONOUT_H
#define AIRLOCK_JSONOUT_H

#include <stddef.h>

#include <jansson.h>

#define JSONOUT_MAX_DEPTH 2048

struct jsonout {
	char *p; /* owned; NUL-terminated after every append */
	size_t len, cap;
};

/* An empty buffer with room for |hint| bytes. */
void jsonout_init(struct jsonout *o, size_t hint);
/* Frees the buffer; |o| may be reused after jsonout_init(). */
void jsonout_free(struct jsonout *o);
/* Hands the NUL-terminated text to the caller (to free()); |o| is empty. */
char *jsonout_take(struct jsonout *o);

/* Appends |n| raw bytes (already JSON text, or punctuation). */
void jsonout_raw(struct jsonout *o, const char *s, size_t n);
/* Appends a NUL-terminated raw string. */
void jsonout_lit(struct jsonout *o, const char *s);
/* Appends s[0..n) as a quoted JSON string (s valid UTF-8). */
void jsonout_string(struct jsonout *o, const char *s, size_t n);
/*
 * Appends |v| as json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) would.
 * Returns 0, or -1 for a cycle or nesting deeper than JSONOUT_MAX_DEPTH
 * (jansson refuses a cycle too): |o| is then left as it was.
 */
int jsonout_value(struct jsonout *o, const json_t *v);

/* json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) as a new string, or NULL. */
char *jsonout_dumps(const json_t *v);

#endif
