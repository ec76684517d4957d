/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * manifest_int: what the manifest loader's parts share (the YAML tree and
 * the load context), for the loaders of optional sections kept in files
 * of their own (policy/manifest_rules.c).  Not for other modules.
 */
#ifndef AIRLOCK_MANIFEST_INT_H
#define AIRLOCK_MANIFEST_INT_H

#include <stddef.h>
#include <stdint.h>

#include "policy/manifest.h"
#include "policy/types.h"

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	int line, col;
	char *s; /* Y_SCALAR: NUL-terminated text */
	size_t len;
	int plain; /* unquoted scalar */
	/* Y_SCALAR: the column of its text's first character when the text
	 * stands in the file as it loads, on one line (no escapes), else 0. */
	int text_col;
	struct ynode **v; /* Y_SEQ: items; Y_MAP: key, value, ... */
	size_t n, cap;
};

struct lctx {
	const char *file;
	char *err;
	size_t errlen;
	struct manifest *m;
};

/*
 * Sets c->err to "FILE:LINE:COLUMN: FIELD: message" for node |n| (NULL:
 * line 1) and returns AL_ERR_FORMAT.
 */
int lctx_err(struct lctx *c, const struct ynode *n, const char *field,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The value of |key| in mapping |map|, or NULL (also when |map| is not a
 * mapping). */
const struct ynode *ynode_get(const struct ynode *map, const char *key);

/*
 * The YAML reader and its typed getters (policy/manifest_yaml.c).  Each
 * getter returns 0, or AL_ERR_FORMAT with "FILE:LINE:COLUMN: FIELD:
 * problem" in c->err (lctx_err()); |field| is the field's path, made
 * with fld() and fldi() in a buffer of FIELD_MAX bytes.
 */
#define FIELD_MAX 512
#define LIST_MAX 1024 /* items in any list the manifest holds */
#define YAML_MAX_DEPTH 64
#define YAML_MAX_NODES 200000

/* Field paths: "parent.key", "parent[i]", written to |buf| (returned). */
const char *fld(char *buf, const char *parent, const char *key);
const char *fldi(char *buf, const char *parent, size_t i);

/*
 * Parses |data| (one YAML document; no anchors, aliases or tags; at most
 * YAML_MAX_DEPTH deep and YAML_MAX_NODES nodes) into *out (free it with
 * ynode_free()).
 */
int ytree_parse(
    struct lctx *c, const char *data, size_t len, struct ynode **out);
void ynode_free(struct ynode *n);

/* Node |n| is of kind |k|, or an error that names what it is instead. */
int want(
    struct lctx *c, const struct ynode *n, const char *field, enum ykind k);

/* A plain empty scalar ("key:" with nothing after it) or ~ / null. */
int is_null(const struct ynode *n);

/*
 * Checks a mapping's keys: scalars, no duplicates, and (if |allowed| is
 * not NULL) each one of |allowed|.  Errors point at the key.
 */
int check_keys(struct lctx *c, const struct ynode *map, const char *field,
    const char *const *allowed);

/* A scalar's text (*out: free it). */
int get_str(
    struct lctx *c, const struct ynode *n, const char *field, char **out);
/* An integer in [lo, hi]. */
int get_int(struct lctx *c, const struct ynode *n, const char *field,
    int64_t lo, int64_t hi, int64_t *out);
/* A finite number >= lo. */
int get_num(struct lctx *c, const struct ynode *n, const char *field, double lo,
    double *out);
/* A min or max bound of a user type: an integer for integers, else a number. */
int get_bound(struct lctx *c, const struct ynode *n, const char *field,
    enum type_kind kind, double *out);
/* true or false. */
int get_bool(
    struct lctx *c, const struct ynode *n, const char *field, int *out);
/* One of names[] (NULL-terminated); *out gets the index. */
int get_enum(struct lctx *c, const struct ynode *n, const char *field,
    const char *const *names, int *out);

/* A check of one string of a list: 0, or lctx_err(). */
typedef int (*str_check_fn)(struct lctx *, const struct ynode *, const char *);
/* A list of at most LIST_MAX strings, each checked by |chk| if not NULL
 * (*out NULL-terminated: free it with strv_free()). */
int get_strlist(struct lctx *c, const struct ynode *n, const char *field,
    str_check_fn chk, char ***out, size_t *nout);

/*
 * The shell-command rules of tool |t| from its mapping |e| (field path
 * |f|): the keys rules, default and unresolvable (policy/shrules.h).
 * Returns 0 (t->shell_rules set, or left NULL when none of the keys is
 * there) or AL_ERR_FORMAT with the message in c->err.
 */
int manifest_rules_parse(
    struct lctx *c, const struct ynode *e, const char *f, struct tool *t);

/*
 * policy/manifest_escalation.c.  Each returns 0, or AL_ERR_FORMAT with
 * "FILE:LINE:COLUMN: FIELD: problem" in c->err.
 *
 * manifest_escalation_tool: tool |t|'s "escalation: ask | off" from its
 * mapping |e| (field path |f|); called once t->action is known (ask only
 * for command, exec and run_check tools).
 * manifest_escalation_top: the top-level "escalation:" mapping |n|.
 * manifest_allow_syscalls: "allowSyscalls" of the sandbox mapping |map|.
 */
int manifest_escalation_tool(
    struct lctx *c, const struct ynode *e, const char *f, struct tool *t);
int manifest_escalation_top(struct lctx *c, const struct ynode *n);
/* No tool may be named escalate when some tool has escalation: ask. */
int manifest_escalation_check(struct lctx *c);
int manifest_allow_syscalls(struct lctx *c, const struct ynode *map);

/*
 * What the sections' loaders share with the tools' (manifest_tools.c).
 * NAME_MAX_LEN bounds tool, type and field names; TIMEOUT_MAX_MS any
 * timeoutMs; INLINE_MIN..INLINE_MAX output.inlineChars.
 */
#define NAME_MAX_LEN 64
#define TIMEOUT_MAX_MS (30LL * 86400 * 1000)
#define INLINE_MIN 1000
#define INLINE_MAX 1000000

/* The names of enum side_effect, enum authorization and enum
 * tool_action, in their order, NULL-terminated. */
extern const char *const side_effect_names[];
extern const char *const authz_names[];
extern const char *const action_names[];

/* 1 if |s| is a name: letters, digits and '_' (with |dots| also '-'
 * and '.'), not starting with a digit, shorter than NAME_MAX_LEN. */
int ident_ok(const char *s, int dots);
/* str_check_fn: an absolute path; an environment variable's name. */
int chk_abs_path(struct lctx *c, const struct ynode *n, const char *f);
int chk_env_name(struct lctx *c, const struct ynode *n, const char *f);
/* str_check_fn: a path, or a shell rule's word, with no letter a reader
 * takes for another (common/lookalike.h); the error names its column. */
int chk_lookalike(struct lctx *c, const struct ynode *n, const char *f);
int chk_lookalike_word(struct lctx *c, const struct ynode *n, const char *f);
/*
 * The "network" and "allowAddresses" keys of |map| into *na (set up by
 * net_init()), whose field path is |parent|.
 */
int parse_net(struct lctx *c, const struct ynode *map, const char *parent,
    struct net_allow *na);
void net_init(struct net_allow *na);
/* A field list: mapping name -> type reference ("name?" optional when
 * |optional_ok|). */
int parse_fields(struct lctx *c, const struct ynode *map, const char *field,
    int optional_ok, struct type_field **out, size_t *nout);
/* "pin": workspace paths whose content is a check's or tool's code. */
int parse_pin(struct lctx *c, const struct ynode *map, const char *parent,
    char ***pin, size_t *npin);
/* The "tools" sequence |seq| (manifest_tools.c). */
int parse_tools(struct lctx *c, const struct ynode *seq);

/*
 * The key tables the loader and the printer (manifest_print.c) share, in
 * the order both use: the type kinds (enum type_kind), runBudget's keys
 * and limits' keys, NULL-terminated, and the field each key is stored in
 * (NULL for a key that is not a number of its own).
 */
extern const char *const manifest_type_kinds[];
extern const char *const manifest_budget_keys[];
extern const char *const manifest_limit_keys[];
int64_t *manifest_budget_slot(struct run_budget *b, size_t i);
int64_t *manifest_limit_slot(struct resource_limits *l, size_t i);

#endif
