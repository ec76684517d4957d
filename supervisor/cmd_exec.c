/*
 * airlock exec: runs one command in a runner sandbox, with the caller's
 * stdin, stdout and stderr, and passes its exit status through.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "policy/sandbox_defaults.h"
#include "runner/runner.h"
#include "runner/seatbelt_exec.h"
#include "supervisor/commands.h"
#include "supervisor/setup.h"

#define EXIT_TIMEOUT	124	/* as timeout(1) */

static void
usage(void)
{
	fprintf(stderr, "usage: airlock exec [-v] [--manifest M] "
	    "[--workspace W] [--timeout MS]\n"
	    "           [--read-only PATH]... [--deny-read PATH]... "
	    "[--protect REL]...\n"
	    "           [--limit NAME=N]... [--strict] [--no-landlock] [--cow] "
	    "[--] CMD [ARGS]\n");
}

/* Extra policy paths from the command line (strings borrowed). */
struct extra {
	char	**v;
	size_t	  n;
};

static void
extra_add(struct extra *e, char *s)
{
	e->v = xreallocarray(e->v, e->n + 2, sizeof(*e->v));
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
}

/* Returns base[0..nbase) followed by the extras (a new array). */
static char **
merge(char **base, size_t nbase, const struct extra *e, size_t *np)
{
	char **v;
	size_t i;

	v = xcalloc(nbase + e->n + 1, sizeof(*v));
	for (i = 0; i < nbase; i++)
		v[i] = base[i];
	for (i = 0; i < e->n; i++)
		v[nbase + i] = e->v[i];
	*np = nbase + e->n;
	return v;
}

/* Sets one resource limit from "NAME=N"; 0 or -1. */
static int
set_limit(struct resource_limits *l, const char *spec)
{
	static const struct {
		const char	*name;
		size_t		 off;
	} names[] = {
		{ "cpu", offsetof(struct resource_limits, cpu_seconds) },
		{ "as", offsetof(struct resource_limits, address_space_mb) },
		{ "fsize", offsetof(struct resource_limits, file_size_mb) },
		{ "nofile", offsetof(struct resource_limits, open_files) },
		{ "nproc", offsetof(struct resource_limits, processes) },
		{ "memory", offsetof(struct resource_limits, memory_mb) },
		{ "cpu_percent",
		    offsetof(struct resource_limits, cpu_percent) },
		{ "tmp", offsetof(struct resource_limits, tmp_size_mb) },
	};
	const char *eq;
	char *end;
	long long v;
	size_t i;

	if ((eq = strchr(spec, '=')) == NULL)
		return -1;
	errno = 0;
	v = strtoll(eq + 1, &end, 10);
	if (errno != 0 || *end != '\0' || end == eq + 1 || v < 0)
		return -1;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == (size_t)(eq - spec) &&
		    strncmp(names[i].name, spec, eq - spec) == 0) {
			*(int64_t *)(void *)((char *)l + names[i].off) = v;
			return 0;
		}
	return -1;
}

/* The caller's directory relative to the workspace, or NULL. */
static char *
relative_cwd(const char *ws)
{
	char *cwd, *rws, *rel = NULL;
	size_t n;

	if ((cwd = getcwd(NULL, 0)) == NULL)
		return NULL;
	if ((rws = realpath(ws, NULL)) != NULL) {
		n = strlen(rws);
		if (strncmp(cwd, rws, n) == 0 && cwd[n] == '/')
			rel = xstrdup(cwd + n + 1);
	}
	free(cwd);
	free(rws);
	return rel;
}

int
cmd_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "read-only", required_argument, NULL, 'r' },
		{ "deny-read", required_argument, NULL, 'd' },
		{ "protect", required_argument, NULL, 'p' },
		{ "strict", no_argument, NULL, 'S' },
		{ "no-landlock", no_argument, NULL, 'L' },
		{ "cow", no_argument, NULL, 'C' },
		{ "limit", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct sandbox_policy defaults, eff;
	const struct sandbox_policy *policy;
	struct extra ro = { NULL, 0 }, deny = { NULL, 0 }, prot = { NULL, 0 };
	struct extra lim = { NULL, 0 };
	size_t i;
	int strict = 0, nolandlock = 0, cow = 0;
	struct manifest *m = NULL;
	struct runner_request req;
	struct runner_result res;
	const char *manifest = NULL, *workspace = ".", *term;
	char *env[6], *termvar = NULL, *cwd = NULL, layers[256], err[512];
	long long timeout = 0;
	char *end;
	int ch, rc, verbose = 0, n = 0;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+m:w:t:vh", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'm':
			manifest = optarg;
			break;
		case 'w':
			workspace = optarg;
			break;
		case 't':
			errno = 0;
			timeout = strtoll(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || timeout < 0) {
				log_warnx("exec: bad --timeout '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'r':
			extra_add(&ro, optarg);
			break;
		case 'd':
			extra_add(&deny, optarg);
			break;
		case 'p':
			extra_add(&prot, optarg);
			break;
		case 'S':
			strict = 1;
			break;
		case 'L':
			nolandlock = 1;
			break;
		case 'C':
			cow = 1;
			break;
		case 'l':
			extra_add(&lim, optarg);
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage();
		return EXIT_USAGE;
	}

	sandbox_policy_init_defaults(&defaults);
	policy = &defaults;
	if (manifest != NULL) {
		if (manifest_load(manifest, &m, err, sizeof(err)) != 0) {
			log_warnx("%s", err);
			sandbox_policy_free_arrays(&defaults);
			return EXIT_CONFIG;
		}
		policy = &m->sandbox;
	}
	eff = *policy;
	eff.read_only = merge(policy->read_only, policy->nread_only, &ro,
	    &eff.nread_only);
	eff.deny_read = merge(policy->deny_read, policy->ndeny_read, &deny,
	    &eff.ndeny_read);
	eff.protected = merge(policy->protected, policy->nprotected, &prot,
	    &eff.nprotected);
	if (strict)
		eff.seccomp = SECCOMP_PROFILE_STRICT;
	if (nolandlock)
		eff.landlock = 0;
	if (cow)
		eff.workspace = WORKSPACE_COW;
	for (i = 0; i < lim.n; i++)
		if (set_limit(&eff.limits, lim.v[i]) == -1) {
			log_warnx("exec: bad --limit '%s' (cpu, as, fsize, "
			    "nofile, nproc, memory, cpu_percent, tmp)",
			    lim.v[i]);
			rc = EXIT_USAGE;
			goto out;
		}

	env[n++] = "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:"
	    "/usr/sbin:/sbin";
	env[n++] = "HOME=/tmp";
	env[n++] = "TMPDIR=/tmp";
	env[n++] = "LANG=C.UTF-8";
	if ((term = getenv("TERM")) != NULL) {
		xasprintf(&termvar, "TERM=%s", term);
		env[n++] = termvar;
	}
	env[n] = NULL;

#ifdef __APPLE__
	{
		char *ws = realpath(workspace, NULL);

		/* No namespaces here: sandbox-exec with the Seatbelt profile;
		 * --timeout and the resource limits are not enforced. */
		if (ws == NULL || runner_seatbelt_exec(&eff, ws, argv) != 0)
			log_warn("exec: sandbox-exec");
		free(ws);
		rc = EXIT_SANDBOX;
		goto out;
	}
#endif
	{
		char real[PATH_MAX];

		if (setup_workspace(workspace, real) != 0) {
			rc = EXIT_USAGE;
			goto out;
		}
	}
	cwd = relative_cwd(workspace);
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.envp = env;
	req.workspace = workspace;
	req.cwd = cwd;
	req.policy = &eff;
	req.timeout_ms = timeout;
	req.output_cap = 0;
	req.stdin_fd = 0;
	req.passthrough = 1;

	rc = runner_run(&req, &res);
	if (verbose) {
		runner_layers_string(res.layers, layers, sizeof(layers));
		log_warnx("layers: %s; %lld ms", layers,
		    (long long)res.duration_ms);
	}
	if (res.setup_failed) {
		log_warnx("%s", res.setup_error[0] != '\0' ? res.setup_error :
		    "sandbox setup failed");
		rc = EXIT_SANDBOX;
	} else if (rc != 0) {
		log_warnx("exec: the runner failed");
		rc = EXIT_SANDBOX;
	} else if (res.timed_out) {
		log_warnx("%s: timed out after %lld ms", argv[0], timeout);
		rc = EXIT_TIMEOUT;
	} else if (res.exited)
		rc = res.exit_code;
	else
		rc = 128 + res.signal;
	if (res.hint[0] != '\0')
		log_warnx("%s: %s", argv[0], res.hint);
	runner_result_clear(&res);
out:
	free(cwd);
	free(termvar);
	free(eff.read_only);
	free(eff.deny_read);
	free(eff.protected);
	free(ro.v);
	free(deny.v);
	free(prot.v);
	free(lim.v);
	if (m != NULL)
		manifest_free(m);
	sandbox_policy_free_arrays(&defaults);
	return rc;
}
