/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock check [-v] MANIFEST: validate a manifest and summarise it; with
 * -v, also print the canonical form (after a "---" line).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "policy/manifest.h"
#include "policy/shrules.h"
#include "policy/types.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"

static void
print_fields(const char *label, const struct type_field *f, size_t n)
{
	size_t i;

	printf("    %s:", label);
	if (n == 0)
		printf(" (none)");
	for (i = 0; i < n; i++)
		printf(" %s: %s%s%s", f[i].name, f[i].type->name,
		    f[i].required ? "" : "?", i + 1 < n ? "," : "");
	printf("\n");
}

static void
print_summary(const struct manifest *m)
{
	char hex[65];
	size_t i, j;

	sodium_bin2hex(hex, sizeof(hex), m->digest, sizeof(m->digest));
	printf("manifest %s: ok\n", m->path);
	printf("sha256 %s\n", hex);
	printf("tools: %zu\n", m->ntools);
	for (i = 0; i < m->ntools; i++) {
		const struct tool *t = &m->tools[i];

		printf("  %s\n", t->name);
		printf("    action: %s\n", tool_action_name(t->action));
		if (t->command != NULL) {
			printf("    command:");
			for (j = 0; j < t->ncommand; j++)
				printf(" %s", t->command[j]);
			printf("\n");
		}
		print_fields("input", t->input, t->ninput);
		print_fields("output", t->output, t->noutput);
		printf("    sideEffect: %s%s\n", side_effect_name(t->side_effect),
		    m->forbid_side_effect[t->side_effect] ?
		    " (forbidden by forbidSideEffects: calls are denied)" : "");
		printf("    authorization: %s\n",
		    authorization_name(manifest_tool_authorization(m, t)));
		printf("    timeoutMs: %lld\n", (long long)t->timeout_ms);
		if (t->shell_rules != NULL)
			printf("    shell rules: %zu (default %s, unresolvable "
			    "%s)\n", t->shell_rules->nrules,
			    shdecision_name(t->shell_rules->dflt),
			    shdecision_name(t->shell_rules->unresolvable));
	}
	printf("checks: %zu\n", m->nchecks);
	for (i = 0; i < m->nchecks; i++) {
		printf("  %s:", m->checks[i].id);
		for (j = 0; m->checks[i].argv[j] != NULL; j++)
			printf(" %s", m->checks[i].argv[j]);
		printf("\n");
	}
	printf("required gates:");
	for (i = 0; i < m->nrequired_gates; i++)
		printf(" %s", m->required_gates[i]);
	printf("%s\n", m->nrequired_gates ? "" : " (none)");
}

static int
usage(void)
{
	cli_usage("check");
	return EXIT_USAGE;
}

int
cmd_check(int argc, char **argv)
{
	struct manifest *m;
	char err[1024];
	int ch, verbose = 0;

	optind = 1;
	while ((ch = getopt(argc, argv, "v")) != -1) {
		switch (ch) {
		case 'v':
			verbose = 1;
			break;
		default:
			return usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		return usage();
	if (manifest_load(argv[0], &m, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return EXIT_CONFIG;
	}
	print_summary(m);
	if (verbose) {
		printf("---\n");
		if (manifest_print_canonical(m, stdout) != 0) {
			manifest_free(m);
			return EXIT_CONFIG;
		}
	}
	manifest_free(m);
	if (fflush(stdout) != 0)
		return 1;
	return 0;
}
