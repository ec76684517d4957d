/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for policy/shparse.c and policy/shrules.c: deciding a
 * shell command string.
 *
 * The input is the command string, decided under two rule sets: a small
 * one whose default is ask (so that only allow rules can allow), and the
 * shipped contrib/manifests/shell-rules.yaml (default allow).
 *
 * Invariants checked, beyond "does not crash" and "does not leak":
 *   - under the default-ask set, a string is allowed only if the parse
 *     succeeded and accounted for every byte, and every simple command
 *     in it is resolvable (no substitution, no reason to doubt it, every
 *     file a redirection names a fixed word) and, decided again on its fixed leading
 *     words as a plain argv, is matched by an allow rule;
 *   - under both sets, no command in the string, decided on its own
 *     words, gets a stricter decision than the whole string (the
 *     strictest part wins);
 *   - a verdict always says why (a non-empty reason) and names the rule
 *     it reports;
 *   - a workspace that answers where a path leads (shrules_decide_fs,
 *     here by a hash of the path) only makes a decision stricter, never
 *     looser, and its verdict says why too.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/manifest.h"
#include "policy/shparse.h"
#include "policy/shrules.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int LLVMFuzzerInitialize(int *, char ***);

static const char small[] =
    "tools:\n"
    "  - name: sh\n"
    "    action: exec\n"
    "    input: { command: string }\n"
    "    sideEffect: sandbox_process\n"
    "    timeoutMs: 1000\n"
    "    default: ask\n"
    "    rules:\n"
    "      - { prefix: [rm, -rf, /], decision: deny }\n"
    "      - { prefix: [git, push], decision: ask }\n"
    "      - { prefix: [git, [status, diff]], decision: allow }\n"
    "      - { prefix: [ls], decision: allow }\n"
    "      - { prefix: [echo], decision: allow }\n"
    "      - { prefix: [cat], decision: allow }\n"
    "      - { prefix: [make, test], decision: allow }\n";

static struct manifest *msmall, *mshipped;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[512];

	(void)argc;
	(void)argv;
	if (manifest_load_buffer("small.yaml", small, sizeof(small) - 1,
		&msmall, err, sizeof(err)) != 0 ||
	    manifest_load(FUZZ_SRCDIR "/contrib/manifests/shell-rules.yaml",
		&mshipped, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_shparse: %s\n", err);
		abort();
	}
	return 0;
}

static int
all_fixed(const struct shword *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((w[i].flags & (SHW_NOT_FIXED | SHW_NONASCII)) != 0 ||
		    strlen(w[i].text) != w[i].len)
			return 0;
	return 1;
}

static int
any_subst(const struct shcmd *c)
{
	size_t i;

	for (i = 0; i < c->nwords; i++)
		if (c->words[i].flags & SHW_CMDSUB)
			return 1;
	for (i = 0; i < c->nassigns; i++)
		if (c->assigns[i].flags & SHW_CMDSUB)
			return 1;
	for (i = 0; i < c->nredirs; i++)
		if (c->redirs[i].target.flags & SHW_CMDSUB)
			return 1;
	return 0;
}

static char **
argv_of(const struct shcmd *c)
{
	char **v = calloc(c->nwords + 1, sizeof(*v));
	size_t i;

	if (v == NULL)
		abort();
	for (i = 0; i < c->nwords; i++)
		v[i] = c->words[i].text;
	return v;
}

/* Whether a command of |p| runs right after a "cd ... &&". */
static int
runs_after_cd(const struct shparse *p)
{
	size_t i;

	for (i = 1; i < p->ncmds; i++)
		if (p->cmds[i].sep == SHSEP_AND && p->cmds[i - 1].nwords > 0 &&
		    strcmp(p->cmds[i - 1].words[0].text, "cd") == 0)
			return 1;
	return 0;
}

/* A workspace whose every path leads somewhere, by a hash of it. */
static enum shfs_where
hashed_where(void *arg, const char *rel)
{
	unsigned h = 5381;

	(void)arg;
	while (*rel != '\0')
		h = h * 33 + (unsigned char)*rel++;
	return (enum shfs_where)(h % 4);
}

static void
check_set(const struct shell_rules *r, const char *s, size_t len,
    int only_rules_allow)
{
	struct shfs fs = { hashed_where, NULL };
	struct shverdict v, sub;
	struct shparse *p;
	size_t i, j, k;
	int rc;
	char **argv;

	(void)shrules_decide(r, s, len, "/ws", &v);
	if (v.reason[0] == '\0' || v.rule >= (int)r->nrules || v.rule < -2)
		abort();
	rc = shparse(s, len, &p);
	/* The workspace only adds what it knows: never looser, but where a
	 * command runs right after "cd DIR &&", which only the workspace
	 * tells (it is decided in DIR then, not at the top). */
	if ((shrules_decide_fs(r, s, len, "/ws", &fs, &sub) < v.decision &&
		!runs_after_cd(p)) ||
	    sub.reason[0] == '\0' || sub.rule >= (int)r->nrules ||
	    sub.rule < -2)
		abort();
	if (v.rule >= 0 && v.decision != r->rules[v.rule].decision &&
	    v.decision != r->unresolvable)
		abort();
	if (only_rules_allow && v.decision == SHD_ALLOW) {
		if (rc != 0 || p->consumed != len)
			abort();
		for (i = 0; i < p->ncmds; i++) {
			const struct shcmd *c = &p->cmds[i];

			if (c->why != NULL || any_subst(c))
				abort();
			/* A file named by a redirection is a fixed word
			   (here-documents and here-strings are data). */
			for (j = 0; j < c->nredirs; j++)
				if (c->redirs[j].op != SHR_HEREDOC &&
				    c->redirs[j].op != SHR_HERESTR &&
				    (c->redirs[j].target.flags &
					SHW_NOT_FIXED) != 0)
					abort();
			if (c->header || c->nwords == 0)
				continue;
			/* Matched on its fixed words, before any expansion. */
			for (k = 0; k < c->nwords &&
			     (c->words[k].flags & SHW_NOT_FIXED) == 0 &&
			     strlen(c->words[k].text) == c->words[k].len;
			     k++)
				;
			if (k == 0)
				abort();
			argv = argv_of(c);
			if (shrules_decide_argv(r, argv, k, "/ws", &sub) !=
				SHD_ALLOW ||
			    sub.rule < 0)
				abort();
			free(argv);
		}
	}
	for (i = 0; i < p->ncmds; i++) {
		const struct shcmd *c = &p->cmds[i];

		if (c->header || c->nwords == 0 ||
		    !all_fixed(c->words, c->nwords))
			continue;
		argv = argv_of(c);
		if (shrules_decide_argv(r, argv, c->nwords, "/ws", &sub) >
		    v.decision)
			abort();
		free(argv);
	}
	shparse_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;

	if (msmall == NULL)
		LLVMFuzzerInitialize(NULL, NULL);
	check_set(msmall->tools[0].shell_rules, s, size, 1);
	check_set(mshipped->tools[0].shell_rules, s, size, 0);
	return 0;
}
