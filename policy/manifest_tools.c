/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * manifest_tools: the manifest's tools, loaded and checked: each tool's
 * contract (name, input type, side effect, authorization, action), its
 * command and the placeholders it may take, its secrets and its jobs
 * (manifest_int.h, parse_tools()).
 */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "policy/manifest_int.h"
#include "policy/types.h"

static const char *const tool_keys[] = { "name", "description", "input",
	"output", "sideEffect", "timeoutMs", "authorization", "action",
	"command", "costUsd", "secrets", "network", "allowAddresses",
	"inlineChars", "pin", "jobs", "rules", "default", "unresolvable",
	"escalation", NULL };
static const char *const secret_keys[] = { "name", "env", "file", NULL };

static const char *
base_name(const char *s)
{
	const char *p = strrchr(s, '/');

	return p != NULL ? p + 1 : s;
}

/*
 * Does argv run code text?  A shell (sh, bash, ...) given a -c flag, or
 * an interpreter given -c/-e/-p, anywhere in the command: behind env,
 * env -S "sh -c", busybox, timeout, nice, find -exec and the like.  The
 * fixed elements are split at blanks so "sh -c" inside one element counts
 * too.  Any awk counts: its program is an operand.  Such a command with a
 * placeholder would turn an agent's argument into code.  Errs on the side
 * of refusing (grep bash -c {x} is refused too).
 */
static int
runs_code_text(char *const *argv, size_t n)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh",
		"ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "rbash",
		"posh", "pdksh", "oksh", NULL };
	static const char *const interps[] = { "python", "perl", "ruby", "node",
		"nodejs", "php", "lua", "tclsh", "wish", "osascript", "pwsh",
		NULL };
	char name[NAME_MAX_LEN + 1], *copy, *tok, *save;
	char **toks;
	size_t i, j, k, ntoks = 0;
	int kind, found = 0;

	/* Tokens of the fixed elements; placeholders are the agent's. */
	toks = xcalloc(1, sizeof(*toks));
	for (i = 0; i < n; i++) {
		if (manifest_placeholder(argv[i], name, sizeof(name)))
			continue;
		copy = xstrdup(argv[i]);
		for (tok = strtok_r(copy, " \t\n", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			toks = xreallocarray(toks, ntoks + 2, sizeof(*toks));
			toks[ntoks++] = xstrdup(tok);
		}
		free(copy);
	}
	for (i = 0; i < ntoks && !found; i++) {
		const char *prog = base_name(toks[i]);

		kind = 0;
		for (j = 0; shells[j] != NULL; j++)
			if (strcmp(prog, shells[j]) == 0)
				kind = 1;
		for (j = 0; kind == 0 && interps[j] != NULL; j++)
			if (strncmp(prog, interps[j], strlen(interps[j])) == 0)
				kind = 2;
		if (strstr(prog, "awk") != NULL)
			found = 1;
		for (k = i + 1; kind != 0 && k < ntoks && !found; k++) {
			const char *a = toks[k];

			if (a[0] != '-' || a[1] == '-')
				continue;
			if (strchr(a + 1, 'c') != NULL ||
			    (kind == 2 && strpbrk(a + 1, "eEpr") != NULL))
				found = 1;
		}
	}
	for (i = 0; i < ntoks; i++)
		free(toks[i]);
	free(toks);
	return found;
}

int
manifest_placeholder(const char *s, char *name, size_t namelen)
{
	size_t len = strlen(s);

	if (len < 3 || s[0] != '{' || s[len - 1] != '}' || len - 2 >= namelen)
		return 0;
	memcpy(name, s + 1, len - 2);
	name[len - 2] = '\0';
	return ident_ok(name, 0);
}

/* Does |s| contain "{ident}" anywhere? */
static int
contains_placeholder(const char *s)
{
	const char *open, *close;
	char name[NAME_MAX_LEN + 1];

	for (open = s; (open = strchr(open, '{')) != NULL; open++) {
		if ((close = strchr(open, '}')) == NULL)
			return 0;
		if ((size_t)(close - open - 1) <= NAME_MAX_LEN &&
		    close - open > 1) {
			memcpy(name, open + 1, close - open - 1);
			name[close - open - 1] = '\0';
			if (ident_ok(name, 0))
				return 1;
		}
	}
	return 0;
}

static int
parse_command(
    struct lctx *c, struct tool *t, const struct ynode *n, const char *field)
{
	char g[FIELD_MAX], name[NAME_MAX_LEN + 1];
	size_t i, j;
	int any = 0;

	if (get_strlist(c, n, field, NULL, &t->command, &t->ncommand) != 0)
		return AL_ERR_FORMAT;
	if (t->ncommand == 0)
		return lctx_err(c, n, field, "empty argv");
	if (t->command[0][0] == '\0')
		return lctx_err(c, n->v[0], field, "empty program name");
	for (i = 0; i < t->ncommand; i++) {
		fldi(g, field, i);
		if (manifest_placeholder(t->command[i], name, sizeof(name))) {
			if (i == 0)
				return lctx_err(c, n->v[i], g,
				    "argv[0] must be "
				    "a fixed program, not a placeholder");
			for (j = 0; j < t->ninput; j++)
				if (strcmp(t->input[j].name, name) == 0)
					break;
			if (j == t->ninput)
				return lctx_err(c, n->v[i], g,
				    "placeholder {%s} "
				    "names no input field",
				    name);
			if (!t->input[j].required)
				return lctx_err(c, n->v[i], g,
				    "placeholder {%s} "
				    "names an optional input field",
				    name);
			if (t->input[j].type->kind == TYPE_LIST ||
			    t->input[j].type->kind == TYPE_OBJECT)
				return lctx_err(c, n->v[i], g,
				    "placeholder {%s} "
				    "has a list or object type; one argument "
				    "fills one argv element",
				    name);
			any = 1;
		} else if (contains_placeholder(t->command[i]))
			return lctx_err(c, n->v[i], g,
			    "a placeholder must be a "
			    "whole argv element");
	}
	if (any && runs_code_text(t->command, t->ncommand))
		return lctx_err(c, n, field,
		    "refusing a shell or interpreter "
		    "with -c/-e and a placeholder: the argument would become "
		    "code; give each argument its own argv element of a "
		    "program that is not a shell");
	return 0;
}

static int
parse_secrets(
    struct lctx *c, struct tool *t, const struct ynode *n, const char *field)
{
	char f[FIELD_MAX], g[FIELD_MAX];
	const struct ynode *e, *v;
	size_t i;

	if (want(c, n, field, Y_SEQ) != 0)
		return AL_ERR_FORMAT;
	if (n->n > LIST_MAX)
		return lctx_err(c, n, field, "more than %d items", LIST_MAX);
	t->secrets = xcalloc(n->n + 1, sizeof(*t->secrets));
	for (i = 0; i < n->n; i++) {
		struct secret_grant *s = &t->secrets[t->nsecrets++];

		e = n->v[i];
		fldi(f, field, i);
		if (check_keys(c, e, f, secret_keys) != 0)
			return AL_ERR_FORMAT;
		if ((v = ynode_get(e, "name")) == NULL)
			return lctx_err(c, e, f, "missing key \"name\"");
		if (get_str(c, v, fld(g, f, "name"), &s->name) != 0)
			return AL_ERR_FORMAT;
		if (!ident_ok(s->name, 1))
			return lctx_err(c, v, g,
			    "secret name must be "
			    "[A-Za-z_][A-Za-z0-9_.-]*");
		if ((v = ynode_get(e, "env")) != NULL &&
		    (chk_env_name(c, v, fld(g, f, "env")) != 0 ||
			get_str(c, v, g, &s->env) != 0))
			return AL_ERR_FORMAT;
		/* A file grant was loaded and then refused at every call
		 * (or, beside env:, silently not made): refused here. */
		if ((v = ynode_get(e, "file")) != NULL)
			return lctx_err(c, v, fld(g, f, "file"),
			    "file grants are not supported: grant the secret "
			    "through env:");
		if (s->env == NULL)
			return lctx_err(c, e, f, "missing key \"env\"");
	}
	return 0;
}

/*
 * tools[].jobs: {maxBlockMs, events: [{match: ERE} | {exit: any|nonzero}]}.
 * Only tools that run a process (exec, command) can have jobs.
 */
#define JOB_EVENTS_MAX 32
#define JOB_BLOCK_MAX_MS (3600LL * 1000)

static int
parse_jobs(struct lctx *c, struct tool *t, const struct ynode *n, const char *f)
{
	static const char *const keys[] = { "maxBlockMs", "events", NULL };
	static const char *const ev_keys[] = { "match", "exit", NULL };
	static const char *const exits[] = { "none", "any", "nonzero", NULL };
	const struct ynode *v, *seq;
	char g[FIELD_MAX], h[FIELD_MAX], k[FIELD_MAX];
	size_t i;
	int e;

	if (want(c, n, f, Y_MAP) != 0 || check_keys(c, n, f, keys) != 0)
		return AL_ERR_FORMAT;
	if (t->action != ACTION_EXEC && t->action != ACTION_COMMAND)
		return lctx_err(c, n, f,
		    "only tools with action exec or command "
		    "run background jobs");
	if ((v = ynode_get(n, "maxBlockMs")) == NULL)
		return lctx_err(c, n, f, "missing key \"maxBlockMs\"");
	if (get_int(c, v, fld(g, f, "maxBlockMs"), 1, JOB_BLOCK_MAX_MS,
		&t->jobs.max_block_ms) != 0)
		return AL_ERR_FORMAT;
	for (i = 0; i < t->ninput; i++)
		if (strcmp(t->input[i].name, "blockMs") == 0)
			return lctx_err(c, n, f,
			    "the input field blockMs is "
			    "airlock's when jobs: is set");
	if ((seq = ynode_get(n, "events")) == NULL || is_null(seq))
		return 0;
	fld(g, f, "events");
	if (want(c, seq, g, Y_SEQ) != 0)
		return AL_ERR_FORMAT;
	if (seq->n > JOB_EVENTS_MAX)
		return lctx_err(
		    c, seq, g, "more than %d rules", JOB_EVENTS_MAX);
	t->jobs.events = xcalloc(seq->n + 1, sizeof(*t->jobs.events));
	for (i = 0; i < seq->n; i++) {
		struct job_event_rule *r = &t->jobs.events[i];
		const struct ynode *m, *x;
		regex_t re;

		t->jobs.nevents = i + 1;
		fldi(h, g, i);
		if (want(c, seq->v[i], h, Y_MAP) != 0 ||
		    check_keys(c, seq->v[i], h, ev_keys) != 0)
			return AL_ERR_FORMAT;
		m = ynode_get(seq->v[i], "match");
		x = ynode_get(seq->v[i], "exit");
		if ((m == NULL) == (x == NULL))
			return lctx_err(c, seq->v[i], h,
			    "a rule has exactly one "
			    "of match: or exit:");
		if (m != NULL) {
			if (get_str(c, m, fld(k, h, "match"), &r->match) != 0)
				return AL_ERR_FORMAT;
			if (r->match[0] == '\0' ||
			    regcomp(&re, r->match, REG_EXTENDED | REG_NOSUB) !=
				0)
				return lctx_err(c, m, k,
				    "not a POSIX extended "
				    "regular expression");
			regfree(&re);
		} else {
			if (get_enum(c, x, fld(k, h, "exit"), exits, &e) != 0)
				return AL_ERR_FORMAT;
			if (e == JOB_EXIT_NONE)
				return lctx_err(c, x, k, "any or nonzero");
			r->exit = e;
		}
	}
	return 0;
}

static int
parse_tool(struct lctx *c, const struct ynode *e, size_t idx)
{
	char f[FIELD_MAX], g[FIELD_MAX];
	const struct ynode *n, *cmd;
	struct tool *t = &c->m->tools[idx];
	int v;
	size_t j;

	fldi(f, "tools", idx);
	if (check_keys(c, e, f, tool_keys) != 0)
		return AL_ERR_FORMAT;
	t->line = e->line;
	t->column = e->col;
	if ((n = ynode_get(e, "name")) == NULL)
		return lctx_err(c, e, f, "missing key \"name\"");
	if (get_str(c, n, fld(g, f, "name"), &t->name) != 0)
		return AL_ERR_FORMAT;
	/* The MCP/model APIs' tool-name syntax: no dots. */
	if (!ident_ok(t->name, 1) || strchr(t->name, '.') != NULL)
		return lctx_err(c, n, g,
		    "tool name must be [A-Za-z_][A-Za-z0-9_-]*, "
		    "at most %d",
		    NAME_MAX_LEN);
	for (j = 0; j < idx; j++)
		if (strcmp(c->m->tools[j].name, t->name) == 0)
			return lctx_err(c, n, g,
			    "duplicate tool name \"%s\" "
			    "(first at line %d)",
			    t->name, c->m->tools[j].line);
	if ((n = ynode_get(e, "description")) != NULL &&
	    get_str(c, n, fld(g, f, "description"), &t->description) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(e, "input")) != NULL &&
	    parse_fields(c, n, fld(g, f, "input"), 1, &t->input, &t->ninput) !=
		0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(e, "output")) != NULL &&
	    parse_fields(
		c, n, fld(g, f, "output"), 1, &t->output, &t->noutput) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(e, "sideEffect")) == NULL)
		return lctx_err(c, e, f, "missing key \"sideEffect\"");
	if (get_enum(c, n, fld(g, f, "sideEffect"), side_effect_names, &v) != 0)
		return AL_ERR_FORMAT;
	t->side_effect = v;
	if ((n = ynode_get(e, "timeoutMs")) == NULL)
		return lctx_err(c, e, f, "missing key \"timeoutMs\"");
	if (get_int(c, n, fld(g, f, "timeoutMs"), 1, TIMEOUT_MAX_MS,
		&t->timeout_ms) != 0)
		return AL_ERR_FORMAT;
	t->authorization = (t->side_effect == SIDE_EFFECT_NETWORK ||
			       t->side_effect == SIDE_EFFECT_EXTERNAL)
	    ? AUTHZ_APPROVAL
	    : AUTHZ_ALLOW;
	if ((n = ynode_get(e, "authorization")) != NULL) {
		if (get_enum(
			c, n, fld(g, f, "authorization"), authz_names, &v) != 0)
			return AL_ERR_FORMAT;
		t->authorization = v;
	}
	cmd = ynode_get(e, "command");
	if ((n = ynode_get(e, "action")) != NULL) {
		if (get_enum(c, n, fld(g, f, "action"), action_names, &v) != 0)
			return AL_ERR_FORMAT;
		t->action = v;
	} else if (cmd != NULL)
		t->action = ACTION_COMMAND;
	else {
		for (v = 0; action_names[v] != NULL; v++)
			if (v != ACTION_COMMAND &&
			    strcmp(action_names[v], t->name) == 0)
				break;
		if (action_names[v] == NULL)
			return lctx_err(c, e, f,
			    "unknown tool action; set action: "
			    "or command:");
		t->action = v;
	}
	if (cmd != NULL) {
		if (t->action != ACTION_COMMAND && t->action != ACTION_EXEC)
			return lctx_err(c, cmd, fld(g, f, "command"),
			    "only for "
			    "action command or exec");
		if (parse_command(c, t, cmd, fld(g, f, "command")) != 0)
			return AL_ERR_FORMAT;
	} else if (t->action == ACTION_COMMAND)
		return lctx_err(c, e, f, "action command needs command:");
	if ((n = ynode_get(e, "costUsd")) != NULL &&
	    get_num(c, n, fld(g, f, "costUsd"), 0, &t->cost_usd) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(e, "secrets")) != NULL && !is_null(n) &&
	    parse_secrets(c, t, n, fld(g, f, "secrets")) != 0)
		return AL_ERR_FORMAT;
	if (t->secrets == NULL)
		t->secrets = xcalloc(1, sizeof(*t->secrets));
	net_init(&t->network);
	t->pin = xcalloc(1, sizeof(char *));
	if (parse_net(c, e, f, &t->network) != 0 ||
	    parse_pin(c, e, f, &t->pin, &t->npin) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(e, "inlineChars")) != NULL &&
	    get_int(c, n, fld(g, f, "inlineChars"), INLINE_MIN, INLINE_MAX,
		&t->inline_chars) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(e, "jobs")) != NULL &&
	    parse_jobs(c, t, n, fld(g, f, "jobs")) != 0)
		return AL_ERR_FORMAT;
	if (manifest_escalation_tool(c, e, f, t) != 0)
		return AL_ERR_FORMAT;
	return manifest_rules_parse(c, e, f, t);
}

int
parse_tools(struct lctx *c, const struct ynode *seq)
{
	size_t i;

	if (want(c, seq, "tools", Y_SEQ) != 0)
		return AL_ERR_FORMAT;
	if (seq->n > LIST_MAX)
		return lctx_err(
		    c, seq, "tools", "more than %d tools", LIST_MAX);
	c->m->tools = xcalloc(seq->n + 1, sizeof(*c->m->tools));
	for (i = 0; i < seq->n; i++) {
		c->m->ntools = i + 1;
		if (parse_tool(c, seq->v[i], i) != 0)
			return AL_ERR_FORMAT;
	}
	return 0;
}
