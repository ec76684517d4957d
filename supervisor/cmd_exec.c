/*
 * airlock exec: runs one command in a runner sandbox, with the caller's
 * stdin, stdout and stderr, and passes its exit status through.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "policy/sandbox_defaults.h"
#include "runner/runner.h"
#include "supervisor/commands.h"

#define EXIT_TIMEOUT	124	/* as timeout(1) */

static void
usage(void)
{
	fprintf(stderr, "usage: airlock exec [-v] [--manifest M] "
	    "[--workspace W] [--timeout MS] [--] CMD [ARGS]\n");
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct sandbox_policy defaults;
	const struct sandbox_policy *policy;
	struct manifest *m = NULL;
	struct runner_request req;
	struct runner_result res;
	const char *manifest = NULL, *workspace = ".", *term;
	char *env[6], *termvar = NULL, *cwd, layers[256], err[512];
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

	cwd = relative_cwd(workspace);
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.envp = env;
	req.workspace = workspace;
	req.cwd = cwd;
	req.policy = policy;
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
	if (res.hint[0] != '\0' && !res.timed_out)
		log_warnx("%s: %s", argv[0], res.hint);
	runner_result_clear(&res);
	free(cwd);
	free(termvar);
	if (m != NULL)
		manifest_free(m);
	sandbox_policy_free_arrays(&defaults);
	return rc;
}
