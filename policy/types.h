/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * types: the manifest's type system, and validation of JSON values
 * against it.  Pure code: no I/O.
 *
 * Built-in types carry the seed's names.  User types (the manifest's
 * "types:" section) refine a base kind with bounds.  Every string and list
 * is bounded: a type that does not set a bound gets the default one, so no
 * unbounded value ever reaches a tool.
 */
#ifndef AIRLOCK_TYPES_H
#define AIRLOCK_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <regex.h>

#include <jansson.h>

#define TYPE_DEFAULT_MAX_STRING	(256 * 1024)	/* bytes */
#define TYPE_DEFAULT_MAX_ITEMS	1024
#define TYPE_MAX_DEPTH		16		/* nesting of lists/objects */
#define TYPE_MAX_EXPANSION	10000		/* nodes of one type's expanded
						   JSON Schema (shared subtypes
						   counted each time used) */

enum type_kind {
	TYPE_STRING,
	TYPE_INTEGER,
	TYPE_NUMBER,
	TYPE_BOOLEAN,
	TYPE_LIST,
	TYPE_OBJECT,
};

/* What a built-in string type means beyond its kind. */
enum type_format {
	FORMAT_NONE,
	FORMAT_WORKSPACE_PATH,	/* workspace_relative_path: syntax checked here,
				   resolution is path_resolve()'s job */
	FORMAT_SHA256,		/* 64 lowercase hex digits */
	FORMAT_UNIFIED_DIFF,	/* text that starts like a unified diff */
	FORMAT_APPROVED_CHECK,	/* a check id defined in the manifest */
	FORMAT_APPROVAL,	/* "approved" or "rejected" */
};

struct type_field {
	char			*name;
	const struct type	*type;		/* borrowed from the type table */
	int			 required;
};

struct type {
	char			*name;		/* "string", or the user's name */
	enum type_kind		 kind;
	enum type_format	 format;
	int			 builtin;
	/* TYPE_STRING */
	size_t			 min_length;
	size_t			 max_length;	/* always set (> 0) */
	char			*pattern;	/* POSIX ERE as written; matched
						   against the whole value
						   (compiled as ^(pattern)$) */
	regex_t			 re;
	int			 has_re;
	char			**enumv;	/* NULL-terminated, or NULL */
	/* TYPE_INTEGER / TYPE_NUMBER */
	int			 has_min, has_max;
	double			 min, max;
	/* TYPE_LIST */
	const struct type	*items;		/* borrowed */
	size_t			 max_items;	/* always set (> 0) */
	/* TYPE_OBJECT */
	struct type_field	*fields;
	size_t			 nfields;
	int			 line, column;	/* where defined; 0 for built-ins */
};

struct type_table;

/* Returns a table holding the built-in types, or NULL on allocation failure. */
struct type_table	*type_table_new(void);
/* Frees the table and every type in it. NULL is fine. */
void			 type_table_free(struct type_table *);

/* Returns the type named |name| (borrowed), or NULL. */
const struct type	*type_lookup(const struct type_table *, const char *name);

/*
 * Adds |t| (the table takes ownership) under t->name.  Returns 0, or
 * AL_ERR_CONFLICT if the name is taken (|t| is then not taken).
 */
int			 type_table_add(struct type_table *, struct type *t);

/* Iteration: returns the |i|th type in insertion order (built-ins first). */
size_t			 type_table_count(const struct type_table *);
const struct type	*type_table_at(const struct type_table *, size_t i);

/* Frees a type that is not (yet) in a table. */
void			 type_free(struct type *t);

/*
 * Callback used for FORMAT_APPROVED_CHECK: returns 1 if |id| names a check.
 */
typedef int (*type_check_exists_fn)(const char *id, void *arg);

/*
 * Validates |v| against |t|.  Returns 0, or AL_ERR_TYPE with a message in
 * err[0..errlen) naming the offending JSON pointer, RFC 6901 escaped
 * ("/items/3/path: expected a string"; the root value itself is shown as
 * "/").  Strings never contain NUL; lengths are in bytes.
 * |check_exists| may be NULL, in which case approved_check is only checked
 * for syntax.
 */
int	type_validate(const struct type *t, const json_t *v,
	    type_check_exists_fn check_exists, void *arg,
	    char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * Validates a JSON object against a list of fields (a tool's input or
 * output): every required field present, no unknown field, each value of
 * its type.  Same returns as type_validate().
 */
int	type_validate_fields(const struct type_field *fields, size_t n,
	    const json_t *obj, type_check_exists_fn check_exists, void *arg,
	    char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * Sets t->pattern to a copy of |pattern| and compiles "^(pattern)$" with
 * REG_EXTENDED|REG_NOSUB into t->re: a pattern always matches the whole
 * value.  Returns 0, AL_ERR_LIMIT if longer than TYPE_MAX_PATTERN, or
 * AL_ERR_FORMAT with regerror()'s text in err.
 */
#define TYPE_MAX_PATTERN	1024
int	type_set_pattern(struct type *t, const char *pattern,
	    char *err, size_t errlen);

/*
 * Syntax of a workspace-relative path (s[0..len)): non-empty, at most
 * 4096 bytes, no NUL, not absolute, no ".." component.  Returns NULL if
 * valid, else a static reason ("absolute path").
 */
const char	*type_path_syntax_error(const char *s, size_t len);

/*
 * Rewrites the workspace-relative path |s| (valid for
 * type_path_syntax_error()) in place in its one spelling: no "."
 * component, no empty one ("a//b", "a/").  Returns the new length; 0
 * when |s| names the workspace itself (".", "./").
 */
size_t		type_path_normalize(char *s);

/* Returns 1 if |s| is a check id: 1..128 of [A-Za-z0-9._:-]. */
int		 type_check_id_valid(const char *s);

/* Returns a new JSON Schema object for |t| (caller owns the reference). */
json_t	*type_schema(const struct type *t);

/* Returns a JSON Schema "object" for a field list (caller owns it). */
json_t	*type_fields_schema(const struct type_field *fields, size_t n);

#endif
