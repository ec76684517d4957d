/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The escalation keys: a tool's "escalation: ask | off", the top-level
 * "escalation: {forbid: [CLASS...], expiresSeconds: N}", and
 * "sandbox.allowSyscalls: [NAME...]" (each a syscall the default seccomp
 * filter refuses unconditionally, taken off its deny list for every run).
 *
 *   tools:
 *     - name: build
 *       command: [make]
 *       escalation: ask         # the agent may ask to re-run a refused
 *                               # call with exactly what was denied
 *   escalation:
 *     forbid: [write, network]  # refused without asking a human
 *     expiresSeconds: 120       # default: approvals.ttlSeconds
 *   sandbox:
 *     allowSyscalls: [keyctl]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/manifest_int.h"
#include "policy/seccomp_policy.h"

#define ALLOW_SYSCALLS_MAX 64
#define EXPIRES_MAX_S (7 * 24 * 3600)

static const struct {
	const char *name;
	unsigned bit;
} classes[] = {
	{ "read", ESCALATE_CLASS_READ },
	{ "write", ESCALATE_CLASS_WRITE },
	{ "network", ESCALATE_CLASS_NETWORK },
	{ "syscall", ESCALATE_CLASS_SYSCALL },
	{ "limit", ESCALATE_CLASS_LIMIT },
	{ "protected", ESCALATE_CLASS_PROTECTED },
};

const char *
escalate_class_name(unsigned bit)
{
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (classes[i].bit == bit)
			return classes[i].name;
	return "?";
}

unsigned
escalate_class_parse(const char *s)
{
	size_t i;

	for (i = 0; s != NULL && i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strcmp(classes[i].name, s) == 0)
			return classes[i].bit;
	return 0;
}

int
manifest_escalation_tool(
    struct lctx *c, const struct ynode *e, const char *f, struct tool *t)
{
	const struct ynode *n;
	char g[256];

	if ((n = ynode_get(e, "escalation")) == NULL)
		return 0;
	snprintf(g, sizeof(g), "%s.escalation", f);
	if (n->kind != Y_SCALAR ||
	    (strcmp(n->s, "ask") != 0 && strcmp(n->s, "off") != 0))
		return lctx_err(c, n, g, "expected ask or off");
	t->escalation = strcmp(n->s, "ask") == 0;
	if (t->escalation && t->action != ACTION_COMMAND &&
	    t->action != ACTION_EXEC && t->action != ACTION_RUN_CHECK)
		return lctx_err(c, n, g,
		    "only for a tool that runs a command "
		    "(command, exec or run_check), not %s",
		    tool_action_name(t->action));
	return 0;
}

int
manifest_escalation_check(struct lctx *c)
{
	struct ynode at;
	char g[64];
	size_t i;

	for (i = 0; i < c->m->ntools; i++)
		if (c->m->tools[i].escalation)
			break;
	if (i == c->m->ntools)
		return 0;
	for (i = 0; i < c->m->ntools; i++)
		if (strcmp(c->m->tools[i].name, "escalate") == 0) {
			memset(&at, 0, sizeof(at));
			at.line = c->m->tools[i].line;
			at.col = c->m->tools[i].column;
			snprintf(g, sizeof(g), "tools[%zu].name", i);
			return lctx_err(c, &at, g,
			    "\"escalate\" is airlock's "
			    "built-in tool when a tool has escalation: ask");
		}
	return 0;
}

int
manifest_escalation_top(struct lctx *c, const struct ynode *n)
{
	struct escalation_policy *ep = &c->m->escalation;
	const struct ynode *v;
	char g[64];
	size_t i, j;

	if (is_null(n))
		return 0;
	if (n->kind != Y_MAP)
		return lctx_err(c, n, "escalation",
		    "expected a mapping with "
		    "forbid and expiresSeconds");
	/*
	 * Every key a scalar, known and given once: a key that is a list has
	 * no string to compare, and of a key given twice only the first was
	 * read, where other YAML readers keep the last ("forbid: []" above
	 * a later "forbid: [write]" forbade nothing).
	 */
	for (i = 0; i + 1 < n->n; i += 2) {
		const struct ynode *k = n->v[i];

		if (k->kind != Y_SCALAR)
			return lctx_err(
			    c, k, "escalation", "a key must be a scalar");
		if (strcmp(k->s, "forbid") != 0 &&
		    strcmp(k->s, "expiresSeconds") != 0)
			return lctx_err(c, k, "escalation",
			    "unknown key "
			    "\"%s\" (expected forbid or expiresSeconds)",
			    k->s);
		for (j = 0; j < i; j += 2)
			if (strcmp(n->v[j]->s, k->s) == 0) {
				snprintf(g, sizeof(g), "escalation.%s", k->s);
				return lctx_err(c, k, g, "duplicate key");
			}
	}
	if ((v = ynode_get(n, "forbid")) != NULL && !is_null(v)) {
		if (v->kind != Y_SEQ)
			return lctx_err(c, v, "escalation.forbid",
			    "expected a "
			    "list of read, write, network, syscall, limit, "
			    "protected");
		for (i = 0; i < v->n; i++) {
			unsigned bit = v->v[i]->kind == Y_SCALAR
			    ? escalate_class_parse(v->v[i]->s)
			    : 0;

			snprintf(g, sizeof(g), "escalation.forbid[%zu]", i);
			if (bit == 0)
				return lctx_err(c, v->v[i], g,
				    "expected read, "
				    "write, network, syscall, limit or "
				    "protected");
			ep->forbid |= bit;
		}
	}
	if ((v = ynode_get(n, "expiresSeconds")) != NULL) {
		char *end;
		long long x;

		/* Plain and without a leading zero (YAML 1.1 reads 010 as 8). */
		if (v->kind != Y_SCALAR || !v->plain || v->s[0] < '1' ||
		    v->s[0] > '9')
			return lctx_err(c, v, "escalation.expiresSeconds",
			    "expected an integer from 1 to %d", EXPIRES_MAX_S);
		x = strtoll(v->s, &end, 10);
		if (*end != '\0' || x < 1 || x > EXPIRES_MAX_S)
			return lctx_err(c, v, "escalation.expiresSeconds",
			    "expected an integer from 1 to %d", EXPIRES_MAX_S);
		ep->expires_s = x;
	}
	return 0;
}

int
seccomp_default_denies(const char *name)
{
	struct sandbox_policy sp;
	struct seccomp_policy *p;
	int denied;

	memset(&sp, 0, sizeof(sp));
	sp.seccomp = SECCOMP_PROFILE_DEFAULT;
	if (seccomp_policy_compile(&sp, &p) != 0)
		return 0;
	denied = seccomp_policy_denies(p, name);
	seccomp_policy_free(p);
	return denied;
}

int
manifest_allow_syscalls(struct lctx *c, const struct ynode *map)
{
	struct sandbox_policy *s = &c->m->sandbox;
	const struct ynode *n;
	char g[64];
	size_t i, j;

	if ((n = ynode_get(map, "allowSyscalls")) == NULL || is_null(n))
		return 0;
	if (n->kind != Y_SEQ)
		return lctx_err(c, n, "sandbox.allowSyscalls",
		    "expected a list of "
		    "syscall names");
	if (n->n > ALLOW_SYSCALLS_MAX)
		return lctx_err(c, n, "sandbox.allowSyscalls",
		    "more than %d "
		    "names",
		    ALLOW_SYSCALLS_MAX);
	s->allow_syscalls = xcalloc(n->n + 1, sizeof(*s->allow_syscalls));
	for (i = 0; i < n->n; i++) {
		const struct ynode *v = n->v[i];

		snprintf(g, sizeof(g), "sandbox.allowSyscalls[%zu]", i);
		if (v->kind != Y_SCALAR || v->len == 0 || v->len > 31 ||
		    strspn(v->s, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
			v->len)
			return lctx_err(c, v, g, "expected a syscall name");
		if (!seccomp_default_denies(v->s))
			return lctx_err(c, v, g,
			    "\"%s\" is not a syscall the "
			    "default seccomp filter refuses outright (unknown, "
			    "already allowed, or refused only for some "
			    "arguments)",
			    v->s);
		for (j = 0; j < s->nallow_syscalls; j++)
			if (strcmp(s->allow_syscalls[j], v->s) == 0)
				return lctx_err(
				    c, v, g, "\"%s\" is listed twice", v->s);
		s->allow_syscalls[s->nallow_syscalls++] = xstrdup(v->s);
	}
	return 0;
}

void
manifest_escalation_print(const struct manifest *m, FILE *fp)
{
	size_t i, n = 0;

	if (m->escalation.forbid == 0 && m->escalation.expires_s == 0)
		return;
	fputs("escalation:\n  forbid: [", fp);
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (m->escalation.forbid & classes[i].bit)
			fprintf(fp, "%s%s", n++ ? ", " : "", classes[i].name);
	fputs("]\n", fp);
	if (m->escalation.expires_s > 0)
		fprintf(fp, "  expiresSeconds: %lld\n",
		    (long long)m->escalation.expires_s);
}
