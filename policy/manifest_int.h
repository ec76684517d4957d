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

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	int line, col;
	char *s; /* Y_SCALAR: NUL-terminated text */
	size_t len;
	int plain; /* unquoted scalar */
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
