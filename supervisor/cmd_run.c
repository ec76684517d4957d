/*
 * airlock run: start the agent in its own sandbox with the broker's
 * socket on fd 3 and listening at /run/airlock/mcp.sock, serve it, and
 * tear everything down when it ends.
 *
 * Order of teardown: the agent's whole tree (its pid namespace), then
 * every runner the broker still has, then the audit log.  Nothing started
 * here outlives this process: the sandboxes die with their parent.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker/audit.h"
#include "broker/broker.h"
#include "broker/loop.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "runner/runner.h"
#include "supervisor/agent_socket.h"
#include "supervisor/commands.h"
#include "supervisor/service.h"
#include "supervisor/signals.h"

#define AGENT_FD	3

struct run_state {
	struct loop		*loop;
	struct runner_proc	*agent;
	int			 agent_watch;
	int			 agent_done;
};

static void
run_usage(void)
{
	fprintf(stderr, "usage: airlock run [--manifest M] [--workspace W] "
	    "[-v] -- AGENT [ARGS...]\n");
}

static void
agent_event(int fd, int why, void *arg)
{
	struct run_state *rs = arg;

	(void)fd;
	(void)why;
	if (runner_proc_step(rs->agent) != 0) {
		rs->agent_done = 1;
		loop_unwatch(rs->loop, rs->agent_watch);
		loop_stop(rs->loop);
	} else
		loop_set_deadline(rs->loop, rs->agent_watch,
		    runner_proc_deadline(rs->agent));
}

static void
broker_closed(void *arg)
{
	/* The agent closed its end; keep waiting for the agent itself. */
	(void)arg;
}

/* Appends |path| to the agent's read-only binds if it is not there yet. */
static void
add_read_only(struct sandbox_policy *p, const char *path)
{
	char	 real[PATH_MAX];
	size_t	 i;

	if (path == NULL || realpath(path, real) == NULL)
		return;
	for (i = 0; i < p->nread_only; i++)
		if (strcmp(p->read_only[i], real) == 0)
			return;
	p->read_only = xreallocarray(p->read_only, p->nread_only + 2,
	    sizeof(*p->read_only));
	p->read_only[p->nread_only++] = xstrdup(real);
	p->read_only[p->nread_only] = NULL;
}

/* Finds |prog| in $PATH as execvp would; returns a static buffer or NULL. */
static const char *
find_program(const char *prog)
{
	static char	 path[PATH_MAX];
	const char	*env = getenv("PATH");
	char		*copy, *dir, *save = NULL;

	if (strchr(prog, '/') != NULL)
		return prog;
	if (env == NULL)
		env = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(env);
	for (dir = strtok_r(copy, ":", &save); dir != NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, prog);
		if (access(path, X_OK) == 0) {
			free(copy);
			return path;
		}
	}
	free(copy);
	return NULL;
}

/*
 * The agent's persistent home: created for the runner's uid if missing,
 * and never a directory someone else could have prepared.  Returns 0, or
 * -1 (then the agent gets a tmpfs home) after saying why.
 */
static int
agent_home(const struct manifest *m)
{
	struct stat st;
	uid_t uid = geteuid() == 0 ? m->sandbox.uid : geteuid();
	gid_t gid = geteuid() == 0 ? m->sandbox.gid : getegid();

	char parent[PATH_MAX], *slash;

	/* Parents as needed (root-owned, like any system directory). */
	snprintf(parent, sizeof(parent), "%s", m->agent.home);
	for (slash = parent + 1; (slash = strchr(slash, '/')) != NULL; slash++) {
		*slash = '\0';
		if (mkdir(parent, 0755) == -1 && errno != EEXIST) {
			log_warn("agent home %s", parent);
			return -1;
		}
		*slash = '/';
	}
	if (mkdir(m->agent.home, 0700) == 0) {
		if (geteuid() == 0 && chown(m->agent.home, uid, gid) == -1) {
			log_warn("chown %s", m->agent.home);
			return -1;
		}
	} else if (errno != EEXIST) {
		log_warn("agent home %s", m->agent.home);
		return -1;
	}
	if (lstat(m->agent.home, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != uid) {
		log_warnx("agent home %s must be a directory owned by uid %u",
		    m->agent.home, (unsigned)uid);
		return -1;
	}
	return 0;
}

/* The agent's environment: a fixed base, AIRLOCK_*, and named pass-throughs. */
static char **
agent_env(const struct manifest *m, const struct session *s,
    const char *airlock_dir)
{
	static const char *pass[] = { "TERM", "LANG", "LC_ALL", "TZ", NULL };
	char	**env;
	size_t	  n = 0, i;
	const char *v;

	env = xcalloc(16 + m->agent.nenv_pass, sizeof(*env));
	xasprintf(&env[n++], "PATH=%s:/usr/local/bin:/usr/bin:/bin",
	    airlock_dir);
	xasprintf(&env[n++], "HOME=%s", m->agent.home != NULL ?
	    m->agent.home : "/tmp");
	xasprintf(&env[n++], "AIRLOCK_FD=%d", AGENT_FD);
	xasprintf(&env[n++], "AIRLOCK_MCP_CONFIG=%s/mcp.json",
	    SANDBOX_BROKER_DIR);
	xasprintf(&env[n++], "AIRLOCK_SESSION=%s", s->id);
	for (i = 0; pass[i] != NULL; i++)
		if ((v = getenv(pass[i])) != NULL)
			xasprintf(&env[n++], "%s=%s", pass[i], v);
	for (i = 0; i < m->agent.nenv_pass; i++)
		if ((v = getenv(m->agent.env_pass[i])) != NULL)
			xasprintf(&env[n++], "%s=%s", m->agent.env_pass[i], v);
	return env;
}

int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*mpath = NULL, *wpath = NULL, *prog;
	char			 err[512], self[PATH_MAX];
	char			 selfdir[PATH_MAX], *slash, **env;
	char			 agent_path[PATH_MAX];
	struct manifest		*m;
	struct session		*s;
	struct service		 sv;
	struct run_state	 rs;
	struct runner_request	 req;
	struct runner_result	 res;
	struct sandbox_policy	 policy;
	struct agent_socket	 as;
	int			 sv_fds[2], ch, verbose = 0, status, rc;
	int			 budget_stopped;
	int			 keep[1] = { AGENT_FD }, psock[2];
	size_t			 i;
	ssize_t			 n;

	/* Nothing the caller left open may reach the agent or the runners. */
	if (close_fds_from(3, NULL, 0) != 0)
		fatal("closing inherited descriptors");
	while ((ch = getopt_long(argc, argv, "+m:w:v", opts, NULL)) != -1) {
		switch (ch) {
		case 'm': mpath = optarg; break;
		case 'w': wpath = optarg; break;
		case 'v': verbose++; break;
		default:
			run_usage();
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		run_usage();
		return EXIT_USAGE;
	}
	log_init("airlock run", verbose);
	/* The agent runs by its absolute path: its cwd is the workspace. */
	if ((prog = find_program(argv[optind])) == NULL ||
	    realpath(prog, agent_path) == NULL || access(agent_path, X_OK) != 0) {
		log_warnx("agent program %s not found or not executable",
		    argv[optind]);
		return EXIT_USAGE;
	}
	argv[optind] = agent_path;

	/* The socketpair first, so that the agent's end can be fd 3. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv_fds) == -1)
		fatal("socketpair");
	if (sv_fds[0] != AGENT_FD) {
		if (sv_fds[1] == AGENT_FD) {
			int t = sv_fds[0];

			sv_fds[0] = sv_fds[1];
			sv_fds[1] = t;
		} else if (dup3(sv_fds[0], AGENT_FD, O_CLOEXEC) == -1)
			fatal("dup3");
		else {
			close(sv_fds[0]);
			sv_fds[0] = AGENT_FD;
		}
	}

	if ((rc = service_open(&sv, "run", mpath, wpath, argv + optind)) != 0)
		return rc;
	m = sv.m;
	s = &sv.session;

	/* The agent's sandbox: the runners' policy, plus what it must run. */
	policy = m->sandbox;
	policy.read_only = xcalloc(m->sandbox.nread_only + 1,
	    sizeof(*policy.read_only));
	policy.nread_only = 0;
	for (i = 0; i < m->sandbox.nread_only; i++)
		add_read_only(&policy, m->sandbox.read_only[i]);
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		fatal("readlink /proc/self/exe");
	self[n] = '\0';
	snprintf(selfdir, sizeof(selfdir), "%s", self);
	if ((slash = strrchr(selfdir, '/')) != NULL && slash != selfdir)
		*slash = '\0';
	add_read_only(&policy, self);
	add_read_only(&policy, prog);
	/* The broker's socket, for MCP clients that start "airlock connect". */
	if (agent_socket_open(&as, s->dir, self, m->sandbox.uid,
	    m->sandbox.gid, err, sizeof(err)) != 0) {
		log_warnx("the agent's broker socket: %s", err);
		agent_socket_close(&as);
		service_close(&sv);
		return EXIT_SANDBOX;
	}
	policy.broker_dir = as.dir;
	policy.workspace = m->sandbox.workspace;
	policy.limits = m->agent.limits;
	/* A read-only agent changes files only through the broker's tools. */
	policy.workspace_readonly = !m->agent.workspace_writable;
	if (m->agent.home != NULL && agent_home(m) == 0)
		policy.home = m->agent.home;
	env = agent_env(m, s, selfdir);

	memset(&req, 0, sizeof(req));
	req.argv = argv + optind;
	req.envp = env;
	req.workspace = sv.workspace;
	req.policy = &policy;
	req.timeout_ms = m->budget.max_elapsed_minutes > 0 ?
	    m->budget.max_elapsed_minutes * 60 * 1000 : 0;
	req.stdin_fd = STDIN_FILENO;
	req.passthrough = 1;
	req.keep_fds = keep;
	req.nkeep_fds = 1;
	/* The agent's network: its hosts, through the egress proxy only. */
	if (m->agent.network.nhosts > 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
		    psock) == -1)
			fatal("socketpair");
		req.use_proxy = 1;
		req.proxy_sock = psock[1];
		egress_env(&env);
		req.envp = env;
	}

	memset(&rs, 0, sizeof(rs));
	rs.loop = sv.loop;
	service_start_broker(&sv, sv_fds[1], sv_fds[1], broker_closed, &rs);

	if (runner_start(&req, &rs.agent, err, sizeof(err)) != 0) {
		log_warnx("cannot start the agent: %s", err);
		agent_socket_close(&as);
		service_close(&sv);
		return EXIT_SANDBOX;
	}
	close(AGENT_FD);
	if (agent_socket_pin(&as, runner_proc_pid(rs.agent)) != 0 ||
	    broker_listen(sv.broker, as.fd, agent_socket_peer_ok, &as) != 0) {
		log_warn("the agent's broker socket");
		runner_proc_kill(rs.agent);
	}
	if (req.use_proxy) {
		close(psock[1]);
		if (egress_attach(sv.egress, psock[0], s->id, &m->agent.network,
		    err, sizeof(err)) != 0) {
			log_warnx("the agent's egress: %s", err);
			runner_proc_kill(rs.agent);
		}
		close(psock[0]);
	}
	rs.agent_watch = loop_watch(rs.loop, runner_proc_fd(rs.agent),
	    runner_proc_deadline(rs.agent), agent_event, &rs);
	log_info("session %s; audit log %s", s->id, s->audit_path);

	if (loop_run(rs.loop) != 0)
		log_warn("event loop");
	if (!rs.agent_done) {
		if (signals_received() != 0)
			log_warnx("signal %d: stopping the agent",
			    signals_received());
		runner_proc_kill(rs.agent);
		runner_proc_wait(rs.agent);
	}
	memset(&res, 0, sizeof(res));
	(void)runner_proc_finish(rs.agent, &res);
	budget_stopped = broker_budget_stopped(sv.broker);
	broker_free(sv.broker);
	sv.broker = NULL;
	agent_socket_close(&as);

	if (res.setup_failed) {
		log_warnx("the agent's sandbox could not be built: %s",
		    res.setup_error);
		status = EXIT_SANDBOX;
	} else if (res.exited)
		status = res.exit_code;
	else
		status = 128 + res.signal;
	{
		json_t *f = json_pack("{s:b, s:i, s:i, s:b, s:I}",
		    "exited", res.exited, "exitCode", res.exit_code,
		    "signal", res.signal, "timedOut", res.timed_out,
		    "durationMs", (json_int_t)res.duration_ms);

		if (audit_append(sv.audit, "agent_end", f) != 0)
			log_warnx("cannot record the agent's end in %s",
			    s->audit_path);
		json_decref(f);
	}
	if (budget_stopped)
		status = EXIT_BUDGET;
	runner_result_clear(&res);
	fprintf(stderr, "airlock: session %s ended; audit log %s\n", s->id,
	    s->audit_path);
	service_close(&sv);
	for (i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
	for (i = 0; i < policy.nread_only; i++)
		free(policy.read_only[i]);
	free(policy.read_only);
	return status;
}
