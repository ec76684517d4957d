/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * manifest_print: manifest_print_canonical() (manifest.h), the loaded
 * policy as the YAML the loader reads back to the same policy.  Apart
 * from the loader: it reads a struct manifest and the key tables the two
 * share (manifest_int.h), nothing of the YAML tree.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/approver_token.h"
#include "common/errors.h"
#include "policy/manifest.h"
#include "policy/manifest_int.h"
#include "policy/manifest_limits.h"
#include "policy/sandbox_defaults.h"
#include "policy/shrules.h"
#include "policy/types.h"

/* ---- the canonical printer ---- */

/* A double-quoted YAML scalar: escapes that the loader reads back. */
static void
pq(FILE *fp, const char *s)
{
	const unsigned char *p;

	fputc('"', fp);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		/* YAML line breaks beyond \n would be folded on reload. */
		if (p[0] == 0xc2 && p[1] == 0x85) {
			fputs("\\N", fp);
			p++;
			continue;
		}
		if (p[0] == 0xe2 && p[1] == 0x80 &&
		    (p[2] == 0xa8 || p[2] == 0xa9)) {
			fputs(p[2] == 0xa8 ? "\\L" : "\\P", fp);
			p += 2;
			continue;
		}
		if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
			fputs("\\uFEFF", fp);
			p += 2;
			continue;
		}
		switch (*p) {
		case '"':	fputs("\\\"", fp); break;
		case '\\':	fputs("\\\\", fp); break;
		case '\n':	fputs("\\n", fp); break;
		case '\t':	fputs("\\t", fp); break;
		case '\r':	fputs("\\r", fp); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(fp, "\\x%02x", *p);
			else
				fputc(*p, fp);
		}
	}
	fputc('"', fp);
}

static void
pstrv(FILE *fp, char *const *v)
{
	size_t i;

	fputc('[', fp);
	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (i)
			fputs(", ", fp);
		pq(fp, v[i]);
	}
	fputs("]\n", fp);
}

/*
 * sandbox.readOnly: the entries beyond the defaults when the list holds
 * every default, else the whole list with readOnlyReplace: true.
 */
static void
pread_only(FILE *fp, const struct sandbox_policy *sp)
{
	struct sandbox_policy d;
	size_t i, j, n = 0;
	int all = 1;

	sandbox_policy_init_defaults(&d);
	for (i = 0; i < d.nread_only && all; i++) {
		for (j = 0; j < sp->nread_only; j++)
			if (strcmp(sp->read_only[j], d.read_only[i]) == 0)
				break;
		all = j < sp->nread_only;
	}
	fprintf(fp, "  readOnlyReplace: %s\n  readOnly: [",
	    all ? "false" : "true");
	for (i = 0; i < sp->nread_only; i++) {
		for (j = 0; all && j < d.nread_only; j++)
			if (strcmp(sp->read_only[i], d.read_only[j]) == 0)
				break;
		if (all && j < d.nread_only)
			continue;
		if (n++)
			fputs(", ", fp);
		pq(fp, sp->read_only[i]);
	}
	fputs("]\n", fp);
	sandbox_policy_free_arrays(&d);
}

/* A net_allow as "network" and "allowAddresses" keys, at |indent|. */
static void
pnet(FILE *fp, const char *indent, const struct net_allow *na)
{
	size_t i, n = na->nhosts - na->naddresses;

	fprintf(fp, "%snetwork: [", indent);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(", ", fp);
		pq(fp, na->hosts[i]);
	}
	fprintf(fp, "]\n%sallowAddresses: ", indent);
	pstrv(fp, na->addresses);
}

/* The notify hook's events, in the loader's words. */
static const struct {
	unsigned bit;
	const char *name;
} notify_event_names[] = {
	{ NOTIFY_EV_CREATED, "created" },
	{ NOTIFY_EV_DECIDED, "decided" },
	{ NOTIFY_EV_EXPIRED, "expired" },
	{ NOTIFY_EV_WITHDRAWN, "withdrawn" },
};

/*
 * approvals: as the loader reads it back: groups among the approvers as
 * "group:GID", keys as {name, key} entries, revokedKeys, and notify as
 * a list when it is the command alone, else as a mapping.
 */
static void
papprovals(FILE *fp, const struct approval_policy *a)
{
	char pk[APPROVER_PK_TEXT], gid[32];
	size_t i, n = 0;
	int plain;

	fputs("approvals:\n  approvers: [", fp);
	for (i = 0; i < a->napprovers; i++)
		fprintf(fp, "%s%lu", n++ ? ", " : "",
		    (unsigned long)a->approvers[i]);
	for (i = 0; i < a->ngroups; i++) {
		fputs(n++ ? ", " : "", fp);
		snprintf(gid, sizeof(gid), "group:%lu",
		    (unsigned long)a->approver_groups[i]);
		pq(fp, gid);
	}
	fputs("]\n", fp);
	if (a->nkeys > 0)
		fputs("  keys:\n", fp);
	for (i = 0; i < a->nkeys; i++) {
		approver_pk_encode(a->keys[i].pk, pk);
		fputs("    - {", fp);
		if (a->keys[i].name != NULL) {
			fputs("name: ", fp);
			pq(fp, a->keys[i].name);
			fputs(", ", fp);
		}
		fputs("key: ", fp);
		pq(fp, pk);
		fputs("}\n", fp);
	}
	if (a->nrevoked > 0)
		fputs("  revokedKeys: [", fp);
	for (i = 0; i < a->nrevoked; i++) {
		approver_pk_encode(a->revoked[i], pk);
		fputs(i > 0 ? ", " : "", fp);
		pq(fp, pk);
	}
	if (a->nrevoked > 0)
		fputs("]\n", fp);
	if (a->inbox != NULL) {
		fputs("  inbox: ", fp);
		pq(fp, a->inbox);
		fputc('\n', fp);
	}
	fprintf(fp, "  ttlSeconds: %lld\n  maxAsksPerMinute: %lld\n",
	    (long long)a->ttl_seconds, (long long)a->max_asks_per_minute);
	plain = a->notify_net.nhosts == 0 && a->nnotify_env == 0 &&
	    a->notify_events == NOTIFY_EV_ALL &&
	    a->notify_timeout_ms == NOTIFY_TIMEOUT_MS_DEFAULT;
	if (a->notify == NULL || plain) {
		fputs("  notify: ", fp);
		pstrv(fp, a->notify);
		return;
	}
	fputs("  notify:\n    command: ", fp);
	pstrv(fp, a->notify);
	pnet(fp, "    ", &a->notify_net);
	fputs("    env: ", fp);
	pstrv(fp, a->notify_env);
	fputs("    events: [", fp);
	for (i = n = 0; i < sizeof(notify_event_names) /
	    sizeof(notify_event_names[0]); i++)
		if (a->notify_events & notify_event_names[i].bit)
			fprintf(fp, "%s%s", n++ ? ", " : "",
			    notify_event_names[i].name);
	fprintf(fp, "]\n    timeoutMs: %lld\n",
	    (long long)a->notify_timeout_ms);
}

/* The shortest decimal form that reads back as the same double. */
static void
pnum(FILE *fp, double d)
{
	char buf[64];
	int prec;

	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fprintf(fp, "%s\n", buf);
}

static void
pfields(FILE *fp, const char *indent, const char *key,
    const struct type_field *f, size_t n)
{
	size_t i;

	if (n == 0) {
		fprintf(fp, "%s%s: {}\n", indent, key);
		return;
	}
	fprintf(fp, "%s%s:\n", indent, key);
	for (i = 0; i < n; i++)
		fprintf(fp, "%s  %s: %s%s\n", indent, f[i].name,
		    f[i].type->name, f[i].required ? "" : "?");
}

static void
plimits(FILE *fp, const char *indent, const struct resource_limits *l)
{
	size_t i;

	fprintf(fp, "%slimits:\n", indent);
	for (i = 0; manifest_limit_keys[i] != NULL; i++)
		fprintf(fp, "%s  %s: %lld\n", indent, manifest_limit_keys[i],
		    (long long)*manifest_limit_slot((struct resource_limits *)l, i));
}

static void
ptype(FILE *fp, const struct type *t)
{
	size_t i, n;

	fprintf(fp, "  %s:\n    type: %s\n", t->name, manifest_type_kinds[t->kind]);
	switch (t->kind) {
	case TYPE_STRING:
		fprintf(fp, "    minLength: %zu\n    maxLength: %zu\n",
		    t->min_length, t->max_length);
		if (t->pattern != NULL) {
			fputs("    pattern: ", fp);
			pq(fp, t->pattern);
			fputc('\n', fp);
		}
		if (t->enumv != NULL) {
			fputs("    enum: ", fp);
			pstrv(fp, t->enumv);
		}
		break;
	case TYPE_INTEGER:
	case TYPE_NUMBER:
		if (t->has_min) {
			fputs("    min: ", fp);
			if (t->kind == TYPE_INTEGER)
				fprintf(fp, "%lld\n", (long long)t->min);
			else
				pnum(fp, t->min);
		}
		if (t->has_max) {
			fputs("    max: ", fp);
			if (t->kind == TYPE_INTEGER)
				fprintf(fp, "%lld\n", (long long)t->max);
			else
				pnum(fp, t->max);
		}
		break;
	case TYPE_BOOLEAN:
		break;
	case TYPE_LIST:
		fprintf(fp, "    items: %s\n    maxItems: %zu\n",
		    t->items->name, t->max_items);
		break;
	case TYPE_OBJECT:
		fputs("    fields:", fp);
		fputs(t->nfields ? "\n" : " {}\n", fp);
		for (i = 0; i < t->nfields; i++)
			fprintf(fp, "      %s: %s\n", t->fields[i].name,
			    t->fields[i].type->name);
		fputs("    required: [", fp);
		for (i = n = 0; i < t->nfields; i++)
			if (t->fields[i].required)
				fprintf(fp, "%s%s", n++ ? ", " : "",
				    t->fields[i].name);
		fputs("]\n", fp);
		break;
	}
}

int
manifest_print_canonical(const struct manifest *m, FILE *fp)
{
	size_t i, j, n;

	n = 0;
	for (i = 0; i < type_table_count(m->types); i++)
		if (!type_table_at(m->types, i)->builtin)
			n++;
	fputs(n ? "types:\n" : "types: {}\n", fp);
	for (i = 0; i < type_table_count(m->types); i++)
		if (!type_table_at(m->types, i)->builtin)
			ptype(fp, type_table_at(m->types, i));

	fputs(m->nchecks ? "checks:\n" : "checks: {}\n", fp);
	for (i = 0; i < m->nchecks; i++) {
		const struct check *ck = &m->checks[i];

		fputs("  ", fp);
		if (isalnum((unsigned char)ck->id[0]))
			fputs(ck->id, fp);
		else
			pq(fp, ck->id);
		fputs(":\n    argv: ", fp);
		pstrv(fp, ck->argv);
		fputs("    pin: ", fp);
		pstrv(fp, ck->pin);
		fputs("    env:", fp);
		fputs(ck->nenv ? "\n" : " {}\n", fp);
		for (j = 0; j < ck->nenv; j++) {
			const char *eq = strchr(ck->env[j], '=');

			fprintf(fp, "      %.*s: ", (int)(eq - ck->env[j]),
			    ck->env[j]);
			pq(fp, eq + 1);
			fputc('\n', fp);
		}
		fprintf(fp, "    timeoutMs: %lld\n", (long long)ck->timeout_ms);
		pnet(fp, "    ", &ck->network);
	}

	fputs(m->ntools ? "tools:\n" : "tools: []\n", fp);
	for (i = 0; i < m->ntools; i++) {
		const struct tool *t = &m->tools[i];

		fprintf(fp, "  - name: %s\n", t->name);
		if (t->description != NULL) {
			fputs("    description: ", fp);
			pq(fp, t->description);
			fputc('\n', fp);
		}
		fprintf(fp, "    action: %s\n", tool_action_name(t->action));
		if (t->command != NULL) {
			fputs("    command: ", fp);
			pstrv(fp, t->command);
		}
		pfields(fp, "    ", "input", t->input, t->ninput);
		pfields(fp, "    ", "output", t->output, t->noutput);
		fprintf(fp, "    sideEffect: %s\n    timeoutMs: %lld\n"
		    "    authorization: %s\n    costUsd: ",
		    side_effect_name(t->side_effect), (long long)t->timeout_ms,
		    authorization_name(t->authorization));
		pnum(fp, t->cost_usd);
		fputs("    secrets:", fp);
		fputs(t->nsecrets ? "\n" : " []\n", fp);
		for (j = 0; j < t->nsecrets; j++) {
			fprintf(fp, "      - name: %s\n", t->secrets[j].name);
			if (t->secrets[j].env != NULL)
				fprintf(fp, "        env: %s\n",
				    t->secrets[j].env);
			if (t->secrets[j].file != NULL) {
				fputs("        file: ", fp);
				pq(fp, t->secrets[j].file);
				fputc('\n', fp);
			}
		}
		pnet(fp, "    ", &t->network);
		if (t->inline_chars > 0)
			fprintf(fp, "    inlineChars: %lld\n",
			    (long long)t->inline_chars);
		if (t->jobs.max_block_ms > 0) {
			fprintf(fp, "    jobs:\n      maxBlockMs: %lld\n"
			    "      events:%s\n", (long long)t->jobs.max_block_ms,
			    t->jobs.nevents ? "" : " []");
			for (j = 0; j < t->jobs.nevents; j++) {
				if (t->jobs.events[j].match != NULL) {
					fputs("        - match: ", fp);
					pq(fp, t->jobs.events[j].match);
					fputc('\n', fp);
				} else
					fprintf(fp, "        - exit: %s\n",
					    t->jobs.events[j].exit ==
					    JOB_EXIT_ANY ? "any" : "nonzero");
			}
		}
		fputs("    pin: ", fp);
		pstrv(fp, t->pin);
		if (t->escalation)
			fputs("    escalation: ask\n", fp);
		shrules_print(t->shell_rules, fp, 4);
	}

	fputs("gates:\n  required: ", fp);
	pstrv(fp, m->required_gates);
	fputs("dependencyFiles: ", fp);
	pstrv(fp, m->dependency_files);
	fputs("forbidSideEffects: [", fp);
	for (i = n = 0; i < SIDE_EFFECT_COUNT; i++)
		if (m->forbid_side_effect[i])
			fprintf(fp, "%s%s", n++ ? ", " : "",
			    side_effect_name(i));
	fputs("]\n", fp);

	fputs("runBudget:\n", fp);
	for (i = 0; manifest_budget_keys[i] != NULL; i++) {
		int64_t *slot = manifest_budget_slot((struct run_budget *)&m->budget, i);

		fprintf(fp, "  %s: ", manifest_budget_keys[i]);
		if (slot != NULL)
			fprintf(fp, "%lld\n", (long long)*slot);
		else
			pnum(fp, m->budget.max_tool_cost_usd);
	}

	fprintf(fp, "sandbox:\n  uid: %lu\n  gid: %lu\n",
	    (unsigned long)m->sandbox.uid, (unsigned long)m->sandbox.gid);
	pread_only(fp, &m->sandbox);
	fputs("  denyRead: ", fp);
	pstrv(fp, m->sandbox.deny_read);
	fputs("  protected: ", fp);
	pstrv(fp, m->sandbox.protected);
	fprintf(fp, "  network: %s\n  seccomp: %s\n  landlock: %s\n"
	    "  workspace: %s\n",
	    m->sandbox.network ? "proxy" : "none",
	    m->sandbox.seccomp == SECCOMP_PROFILE_STRICT ? "strict" : "default",
	    m->sandbox.landlock ? "true" : "false",
	    m->sandbox.workspace == WORKSPACE_COW ? "cow" : "direct");
	plimits(fp, "  ", &m->sandbox.limits);
	if (m->sandbox.nallow_syscalls > 0) {
		fputs("  allowSyscalls: ", fp);
		pstrv(fp, m->sandbox.allow_syscalls);
	}
	manifest_escalation_print(m, fp);

	papprovals(fp, &m->approvals);

	fputs("agent:\n", fp);
	pnet(fp, "  ", &m->agent.network);
	fprintf(fp, "  workspace: %s\n",
	    m->agent.workspace_cow ? "cow" :
	    m->agent.workspace_writable ? "rw" : "ro");
	if (m->agent.commit_approval)
		fputs("  commitApproval: required\n", fp);
	fputs("  home: ", fp);
	if (m->agent.home != NULL)
		pq(fp, m->agent.home);
	else
		fputs("tmpfs", fp);
	fputs("\n  env: ", fp);
	pstrv(fp, m->agent.env_pass);
	plimits(fp, "  ", &m->agent.limits);

	fprintf(fp, "limits:\n  maxFrameBytes: %zu\n  enforce: %s\n",
	    m->max_frame_bytes,
	    limits_enforce_name(m->sandbox.limits.best_effort));
	fprintf(fp, "output:\n  inlineChars: %lld\n  failurePatterns: ",
	    (long long)m->output.inline_chars);
	pstrv(fp, m->output.failure_patterns);
	fprintf(fp, "  artifactQuotaMb: %lld\n",
	    (long long)m->output.artifact_quota_mb);
	return ferror(fp) ? AL_ERR_IO : 0;
}
