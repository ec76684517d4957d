/*
 * airlock exec: runs one command in a runner sandbox, with the caller's
 * stdin, stdout and stderr, and passes its exit status through.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "broker/egress.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "policy/sandbox_defaults.h"
#include "proxy/ipc.h"
#include "proxy/proxy.h"
#include "runner/runner.h"
#include "runner/seatbelt_exec.h"
#include "supervisor/commands.h"
#include "supervisor/overrides.h"
#include "supervisor/session.h"
#include "supervisor/setup.h"

#define EXIT_TIMEOUT	124	/* as timeout(1) */

static void
usage(void)
{
	fprintf(stderr, "usage: airlock exec [-v] [--manifest M] "
	    "[--workspace W] [--timeout MS]\n"
	    "           [--read-only PATH]... [--deny-read PATH]... "
	    "[--protect REL]...\n"
	    "           [--limit NAME=N]... [--strict] [--no-landlock] [--cow]\n"
	    "           [--allow-host HOST[:PORT]]... [--env NAME[=VALUE]]... "
	    "[--ro PATH]...\n"
	    "           [--rw PATH]... [--] CMD [ARGS]\n");
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
			if (strcmp(names[i].name, "memory") == 0)
				l->asked |= LIMIT_ASKED_MEMORY;
			else if (strcmp(names[i].name, "nproc") == 0)
				l->asked |= LIMIT_ASKED_PIDS;
			else if (strcmp(names[i].name, "cpu_percent") == 0)
				l->asked |= LIMIT_ASKED_CPU;
			return 0;
		}
	return -1;
}

/* Is the host of "host:port" an IP literal?  Then it is an IP rule too. */
static int
host_is_ip(const char *hostport)
{
	const char *colon = strrchr(hostport, ':'), *p;

	if (hostport[0] == '[')
		return 1;
	for (p = hostport; colon != NULL && p < colon; p++)
		if (!((*p >= '0' && *p <= '9') || *p == '.'))
			return 0;
	return colon != NULL;
}

/*
 * runner_run() with airlock's egress proxy serving |hosts| (--allow-host):
 * the proxy process lives as long as the command, its connection records
 * go nowhere (exec keeps no audit log).  The same returns as runner_run().
 */
static int
run_with_proxy(struct runner_request *req, char *const *hosts,
    struct runner_result *res)
{
	struct proxy_limits lim;
	struct runner_proc *p;
	struct pollfd pfd;
	const char **ips;
	char msg[8];
	size_t i, n = 0, len;
	int64_t now, dl;
	int psock[2], ctl = -1, evfd, lfd = -1, rc, timeout, status;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if ((evfd = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1)
		fatal("/dev/null");
	proxy_limits_default(&lim);
	pid = proxy_spawn(&lim, evfd, &ctl);
	close(evfd);
	if (pid < 0) {
		snprintf(res->setup_error, sizeof(res->setup_error),
		    "cannot start the egress proxy");
		res->setup_failed = 1;
		return AL_ERR_SYSTEM;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, psock) == -1)
		fatal("socketpair");
	req->use_proxy = 1;
	req->proxy_sock = psock[1];
	rc = runner_start(req, &p, res->setup_error, sizeof(res->setup_error));
	close(psock[1]);
	if (rc != 0) {
		res->setup_failed = 1;
		goto done;
	}
	pfd.fd = psock[0];
	pfd.events = POLLIN;
	ips = xcalloc(1, sizeof(*ips));
	for (i = 0; hosts[i] != NULL; i++)
		if (host_is_ip(hosts[i])) {
			ips = xreallocarray(ips, n + 2, sizeof(*ips));
			ips[n++] = hosts[i];
			ips[n] = NULL;
		}
	if (poll(&pfd, 1, 5000) != 1 ||
	    proxy_recv_fd(psock[0], &lfd, msg, sizeof(msg), &len) != 1 ||
	    lfd == -1 ||
	    proxy_ctl_add(ctl, lfd, "exec", (const char *const *)hosts, ips,
	    res->setup_error, sizeof(res->setup_error)) != 0) {
		/* No way out at all, then: the command must not run. */
		if (res->setup_error[0] == '\0')
			snprintf(res->setup_error, sizeof(res->setup_error),
			    "the sandbox did not hand over its proxy listener");
		runner_proc_kill(p);
	}
	free(ips);
	if (lfd != -1)
		close(lfd);
	for (;;) {
		if ((rc = runner_proc_step(p)) != 0)
			break;
		pfd.fd = runner_proc_fd(p);
		dl = runner_proc_deadline(p);
		now = now_monotonic_ms();
		timeout = dl == INT64_MAX ? -1 : dl <= now ? 0 :
		    dl - now > INT_MAX ? INT_MAX : (int)(dl - now);
		if (poll(&pfd, 1, timeout) == -1 && errno != EINTR)
			break;
	}
	{
		char keep[sizeof(res->setup_error)];

		/* runner_proc_finish() clears *res; keep a refusal's reason. */
		memcpy(keep, res->setup_error, sizeof(keep));
		rc = runner_proc_finish(p, res) == 0 && rc >= 0 ? 0 :
		    AL_ERR_SYSTEM;
		if (keep[0] != '\0' && !res->setup_failed) {
			memcpy(res->setup_error, keep, sizeof(keep));
			res->setup_failed = 1;
		}
	}
done:
	close(psock[0]);
	close(ctl);
	kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	return rc;
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
		{ "allow-host", required_argument, NULL, 'A' },
		{ "env", required_argument, NULL, 'E' },
		{ "ro", required_argument, NULL, 'R' },
		{ "rw", required_argument, NULL, 'W' },
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
	char **env = NULL, *cwd = NULL, layers[256], err[512];
	char state[PATH_MAX], ws_real[PATH_MAX];
	struct overrides ov;
	enum override_kind kind;
	long long timeout = 0;
	char *end;
	int ch, rc, verbose = 0, n = 0;

	if (session_state_dir(state, sizeof(state)) != 0)
		state[0] = '\0';
	overrides_init(&ov);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+m:w:t:vh", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'A':
		case 'E':
		case 'R':
		case 'W':
			kind = ch == 'A' ? OVERRIDE_ALLOW_HOST :
			    ch == 'E' ? OVERRIDE_ENV :
			    ch == 'R' ? OVERRIDE_RO : OVERRIDE_RW;
			if (overrides_add(&ov, kind, optarg, state, getenv,
			    err, sizeof(err)) != 0) {
				log_warnx("exec: %s", err);
				rc = EXIT_USAGE;
				goto out_early;
			}
			break;
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
				rc = EXIT_USAGE;
				goto out_early;
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
			rc = 0;
			goto out_early;
		default:
			usage();
			rc = EXIT_USAGE;
			goto out_early;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage();
		rc = EXIT_USAGE;
		goto out_early;
	}
	if (realpath(workspace, ws_real) != NULL &&
	    overrides_check_workspace(&ov, ws_real, err, sizeof(err)) != 0) {
		log_warnx("exec: %s", err);
		rc = EXIT_USAGE;
		goto out_early;
	}
	for (i = 0; i < ov.nro; i++)
		extra_add(&ro, ov.ro[i]);

	sandbox_policy_init_defaults(&defaults);
	policy = &defaults;
	if (manifest != NULL) {
		if (manifest_load(manifest, &m, err, sizeof(err)) != 0) {
			log_warnx("%s", err);
			sandbox_policy_free_arrays(&defaults);
			rc = EXIT_CONFIG;
			goto out_early;
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
	eff.read_write = ov.rw;
	eff.nread_write = ov.nrw;
	for (i = 0; i < lim.n; i++)
		if (set_limit(&eff.limits, lim.v[i]) == -1) {
			log_warnx("exec: bad --limit '%s' (cpu, as, fsize, "
			    "nofile, nproc, memory, cpu_percent, tmp)",
			    lim.v[i]);
			rc = EXIT_USAGE;
			goto out;
		}

	env = xcalloc(6, sizeof(*env));
	env[n++] = xstrdup("PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:"
	    "/usr/sbin:/sbin");
	env[n++] = xstrdup("HOME=/tmp");
	env[n++] = xstrdup("TMPDIR=/tmp");
	env[n++] = xstrdup("LANG=C.UTF-8");
	if ((term = getenv("TERM")) != NULL)
		xasprintf(&env[n++], "TERM=%s", term);
	env[n] = NULL;
	overrides_apply_env(&ov, &env);
	if (ov.nhosts > 0)
		egress_env(&env);

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

	if (ov.nhosts > 0)
		rc = run_with_proxy(&req, ov.hosts, &res);
	else
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
	for (i = 0; env != NULL && env[i] != NULL; i++)
		free(env[i]);
	free(env);
	free(cwd);
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
	overrides_free(&ov);
	return rc;
out_early:
	free(ro.v);
	free(deny.v);
	free(prot.v);
	free(lim.v);
	overrides_free(&ov);
	return rc;
}
