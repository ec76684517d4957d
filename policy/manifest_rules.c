/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The rules, default and unresolvable keys of an exec tool: allow / ask /
 * deny decisions on the commands of its command string.
 *
 *   rules:
 *     - prefix: [git, push]            # words, after quote removal
 *       decision: ask
 *     - prefix: [rm, [-rf, -fr], /]    # a list element: any of these
 *       decision: deny
 *       comment: why this rule exists
 *     - prefix: [sh]
 *       exact: true                    # "sh" and nothing after it
 *       decision: deny
 *     - prefix: [mvn, deploy]
 *       anywhere: true                 # "mvn clean deploy" too (not allow)
 *       decision: ask
 *   default: allow                     # no rule matched (default: ask)
 *   unresolvable: ask                  # ask or deny, never allow
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/manifest_int.h"
#include "policy/shrules.h"

#define RULES_MAX 1024
#define PREFIX_MAX 32
#define ALTS_MAX 64
#define WORD_MAX 256

static int
decision(struct lctx *c, const struct ynode *n, const char *field, int *out)
{
	if (n->kind != Y_SCALAR || (*out = shdecision_parse(n->s)) < 0)
		return lctx_err(c, n, field, "expected allow, ask or deny");
	return 0;
}

/* One prefix word: printable ASCII or UTF-8, no NUL, bounded. */
static int
word(struct lctx *c, const struct ynode *n, const char *field, char **out)
{
	size_t i;

	if (n->kind != Y_SCALAR)
		return lctx_err(c, n, field, "expected a word");
	if (n->len == 0 || n->len > WORD_MAX || strlen(n->s) != n->len)
		return lctx_err(c, n, field,
		    "a word must be 1 to %d bytes, no "
		    "NUL",
		    WORD_MAX);
	for (i = 0; i < n->len; i++)
		if ((unsigned char)n->s[i] < 0x20 || n->s[i] == 0x7f)
			return lctx_err(c, n, field,
			    "a control character in a "
			    "word");
	/* A deny rule's "<U+0455>udo" (a Cyrillic s) denied no sudo. */
	if (chk_lookalike_word(c, n, field) != 0)
		return AL_ERR_FORMAT;
	*out = xstrdup(n->s);
	return 0;
}

static int
parse_rule(
    struct lctx *c, const struct ynode *e, const char *field, struct shrule *r)
{
	static const char *const keys[] = { "prefix", "decision", "exact",
		"anywhere", "comment", NULL };
	char f[700], g[740];
	const struct ynode *n, *p;
	size_t i, j;
	int d = 0;

	if (e->kind != Y_MAP)
		return lctx_err(c, e, field,
		    "expected a mapping with prefix and "
		    "decision");
	for (i = 0; i + 1 < e->n; i += 2) {
		for (j = 0; keys[j] != NULL; j++)
			if (e->v[i]->kind == Y_SCALAR &&
			    strcmp(e->v[i]->s, keys[j]) == 0)
				break;
		snprintf(f, sizeof(f), "%s.%s", field,
		    e->v[i]->kind == Y_SCALAR ? e->v[i]->s : "?");
		if (keys[j] == NULL)
			return lctx_err(c, e->v[i], f,
			    "unknown key (expected "
			    "prefix, decision, exact, anywhere, comment)");
		for (j = 0; j < i; j += 2)
			if (strcmp(e->v[j]->s, e->v[i]->s) == 0)
				return lctx_err(c, e->v[i], f, "duplicate key");
	}
	r->line = e->line;
	snprintf(f, sizeof(f), "%s.prefix", field);
	if ((p = ynode_get(e, "prefix")) == NULL)
		return lctx_err(c, e, field, "missing key \"prefix\"");
	if (p->kind != Y_SEQ || p->n == 0 || p->n > PREFIX_MAX)
		return lctx_err(c, p, f,
		    "expected a list of 1 to %d words (or "
		    "lists of alternative words)",
		    PREFIX_MAX);
	r->prefix = xcalloc(p->n, sizeof(*r->prefix));
	for (i = 0; i < p->n; i++) {
		struct shrule_elem *el = &r->prefix[r->nprefix++];

		snprintf(g, sizeof(g), "%s[%zu]", f, i);
		n = p->v[i];
		if (n->kind == Y_SEQ) {
			if (n->n == 0 || n->n > ALTS_MAX)
				return lctx_err(c, n, g,
				    "a list of 1 to %d "
				    "alternatives",
				    ALTS_MAX);
			el->alts = xcalloc(n->n + 1, sizeof(char *));
			for (j = 0; j < n->n; j++) {
				if (word(c, n->v[j], g, &el->alts[j]) != 0)
					return AL_ERR_FORMAT;
				el->nalts++;
			}
		} else {
			el->alts = xcalloc(2, sizeof(char *));
			if (word(c, n, g, &el->alts[0]) != 0)
				return AL_ERR_FORMAT;
			el->nalts = 1;
		}
	}
	snprintf(f, sizeof(f), "%s.decision", field);
	if ((n = ynode_get(e, "decision")) == NULL)
		return lctx_err(c, e, field, "missing key \"decision\"");
	if (decision(c, n, f, &d) != 0)
		return AL_ERR_FORMAT;
	r->decision = d;
	if ((n = ynode_get(e, "exact")) != NULL) {
		snprintf(f, sizeof(f), "%s.exact", field);
		if (n->kind != Y_SCALAR || !n->plain ||
		    (strcmp(n->s, "true") != 0 && strcmp(n->s, "false") != 0))
			return lctx_err(c, n, f, "expected true or false");
		r->exact = strcmp(n->s, "true") == 0;
	}
	/* anywhere: the words after the first at any later positions.  Not
	   for allow, which would allow "mvn deploy -Dx=test" by its test,
	   nor with exact, which asks for no word between. */
	if ((n = ynode_get(e, "anywhere")) != NULL) {
		snprintf(f, sizeof(f), "%s.anywhere", field);
		if (n->kind != Y_SCALAR || !n->plain ||
		    (strcmp(n->s, "true") != 0 && strcmp(n->s, "false") != 0))
			return lctx_err(c, n, f, "expected true or false");
		r->anywhere = strcmp(n->s, "true") == 0;
		if (r->anywhere && (r->decision == SHD_ALLOW || r->exact))
			return lctx_err(c, n, f,
			    "anywhere is for ask and deny rules without "
			    "exact");
	}
	if ((n = ynode_get(e, "comment")) != NULL) {
		snprintf(f, sizeof(f), "%s.comment", field);
		if (n->kind != Y_SCALAR || strlen(n->s) != n->len ||
		    n->len > 1024)
			return lctx_err(c, n, f,
			    "expected a string of at most "
			    "1024 bytes");
		r->comment = xstrdup(n->s);
	}
	return 0;
}

int
manifest_rules_parse(
    struct lctx *c, const struct ynode *e, const char *f, struct tool *t)
{
	const struct ynode *rules, *dflt, *unres, *any;
	struct shell_rules *r;
	char g[600], h[640];
	size_t i;
	int d = 0;

	rules = ynode_get(e, "rules");
	dflt = ynode_get(e, "default");
	unres = ynode_get(e, "unresolvable");
	if ((any = rules != NULL ? rules : dflt != NULL ? dflt : unres) == NULL)
		return 0;
	snprintf(g, sizeof(g), "%s.%s", f,
	    any == rules      ? "rules"
		: any == dflt ? "default"
			      : "unresolvable");
	if (t->action != ACTION_EXEC)
		return lctx_err(c, any, g, "only for a tool with action exec");
	r = t->shell_rules = xcalloc(1, sizeof(*r));
	r->dflt = SHD_ASK;
	r->unresolvable = SHD_ASK;
	if (dflt != NULL) {
		snprintf(g, sizeof(g), "%s.default", f);
		if (decision(c, dflt, g, &d) != 0)
			return AL_ERR_FORMAT;
		r->dflt = d;
	}
	if (unres != NULL) {
		snprintf(g, sizeof(g), "%s.unresolvable", f);
		if (decision(c, unres, g, &d) != 0)
			return AL_ERR_FORMAT;
		if (d == SHD_ALLOW)
			return lctx_err(c, unres, g,
			    "cannot be allow: a command "
			    "the parser cannot resolve to fixed words is "
			    "never allowed (ask or deny)");
		r->unresolvable = d;
	}
	if (rules == NULL)
		return 0;
	snprintf(g, sizeof(g), "%s.rules", f);
	if (rules->kind != Y_SEQ)
		return lctx_err(c, rules, g, "expected a list of rules");
	if (rules->n > RULES_MAX)
		return lctx_err(c, rules, g, "more than %d rules", RULES_MAX);
	r->rules = xcalloc(rules->n + 1, sizeof(*r->rules));
	for (i = 0; i < rules->n; i++) {
		snprintf(h, sizeof(h), "%s[%zu]", g, i);
		r->nrules++;
		if (parse_rule(c, rules->v[i], h, &r->rules[i]) != 0)
			return AL_ERR_FORMAT;
	}
	return 0;
}
