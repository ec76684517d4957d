/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
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
#include "supervisor/agent_bin.h"
#include "supervisor/agent_socket.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"
#include "supervisor/cowrun.h"
#include "supervisor/overrides.h"
#include "supervisor/service.h"
#include "supervisor/signals.h"

#define AGENT_FD	3

/*
 * Once the broker has cut the agent off (a budget that ends the session:
 * broker_on_cut_off()), the agent has this long to end by itself (an MCP
 * client sees its connection end); then its whole sandbox is killed.  Left
 * running, it kept the session open until maxElapsedMinutes, if any.
 */
#define AGENT_CUT_OFF_GRACE_MS	5000

struct run_state {
	struct loop		*loop;
	struct runner_proc	*agent;
	int			 agent_watch;
	int			 agent_done;
	int64_t			 kill_at;	/* cut off: killed then, or 0 */
	int			 killed;
	struct egress		*egress;	/* the agent's, or NULL */
	const char		*egress_id;
};

static void
run_usage(void)
{
	cli_usage("run");
}

/* The agent's next deadline: its own, or the end of its cut-off grace. */
static int64_t
agent_deadline(const struct run_state *rs)
{
	int64_t d = runner_proc_deadline(rs->agent);

	if (rs->kill_at != 0 && !rs->killed && rs->kill_at < d)
		d = rs->kill_at;
	return d;
}

static void
agent_event(int fd, int why, void *arg)
{
	struct run_state *rs = arg;

	(void)fd;
	(void)why;
	if (rs->kill_at != 0 && !rs->killed &&
	    now_monotonic_ms() >= rs->kill_at) {
		log_warnx("the agent did not end within %d s of its cut-off: "
		    "killed", AGENT_CUT_OFF_GRACE_MS / 1000);
		runner_proc_kill(rs->agent);
		rs->killed = 1;
	}
	if (runner_proc_step(rs->agent) != 0) {
		rs->agent_done = 1;
		loop_unwatch(rs->loop, rs->agent_watch);
		loop_stop(rs->loop);
	} else
		loop_set_deadline(rs->loop, rs->agent_watch,
		    agent_deadline(rs));
}

/* The broker cut the agent off (|why|, said already): it is stopped. */
static void
agent_cut_off(void *arg, const char *why)
{
	struct run_state *rs = arg;

	(void)why;
	/* Each connection to its proxy is a record too (maxAuditMiB). */
	if (rs->egress != NULL) {
		egress_detach(rs->egress, rs->egress_id);
		rs->egress = NULL;
	}
	if (rs->agent_done || rs->kill_at != 0)
		return;
	log_warnx("the session is over: stopping the agent (killed if it "
	    "has not ended within %d s)", AGENT_CUT_OFF_GRACE_MS / 1000);
	rs->kill_at = now_monotonic_ms() + AGENT_CUT_OFF_GRACE_MS;
	if (rs->agent_watch > 0)
		loop_set_deadline(rs->loop, rs->agent_watch,
		    agent_deadline(rs));
}

static void
broker_closed(void *arg)
{
	/* The agent closed its end; keep waiting for the agent itself. */
	(void)arg;
}

/* Appends |path| as it is (a symlink stays one) if it is not there yet. */
static void
add_bind(struct sandbox_policy *p, const char *path)
{
	size_t	 i;

	for (i = 0; i < p->nread_only; i++)
		if (strcmp(p->read_only[i], path) == 0)
			return;
	p->read_only = xreallocarray(p->read_only, p->nread_only + 2,
	    sizeof(*p->read_only));
	p->read_only[p->nread_only++] = xstrdup(path);
	p->read_only[p->nread_only] = NULL;
}

/* Appends |path|, resolved, to the agent's read-only binds. */
static void
add_read_only(struct sandbox_policy *p, const char *path)
{
	char	 real[PATH_MAX];

	if (path != NULL && realpath(path, real) != NULL)
		add_bind(p, real);
}

/*
 * Makes |dir| a home for uid:gid: created with its parents (mode
 * |parent_mode|) if missing, and never a directory someone else could have
 * prepared.  Returns 0, or -1 with the reason in why[0..whylen).
 */
static int
home_make(const char *dir, uid_t uid, gid_t gid, mode_t parent_mode,
    char *why, size_t whylen)
{
	struct stat st;
	char parent[PATH_MAX], *slash;

	if (snprintf(parent, sizeof(parent), "%s", dir) >= (int)sizeof(parent)) {
		snprintf(why, whylen, "path too long");
		return -1;
	}
	for (slash = parent + 1; (slash = strchr(slash, '/')) != NULL; slash++) {
		*slash = '\0';
		if (mkdir(parent, parent_mode) == -1 && errno != EEXIST) {
			snprintf(why, whylen, "%s: %s", parent, strerror(errno));
			return -1;
		}
		*slash = '/';
	}
	if (mkdir(dir, 0700) == 0) {
		if (geteuid() == 0 && chown(dir, uid, gid) == -1) {
			snprintf(why, whylen, "chown: %s", strerror(errno));
			return -1;
		}
	} else if (errno != EEXIST) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode) || st.st_uid != uid) {
		snprintf(why, whylen, "not a directory owned by uid %u",
		    (unsigned)uid);
		return -1;
	}
	return 0;
}

/*
 * The agent's persistent home (m->agent.home, or buf), or NULL when there
 * is none: HOME is then the sandbox's private /tmp.  A user other than
 * root usually cannot create the profiles' /var/lib/airlock-agents/NAME;
 * the per-user state directory stands in for it,
 * $XDG_STATE_HOME/airlock/agents/NAME (~/.local/state/airlock/agents/NAME).
 * Says in one line whenever the home is not the manifest's.
 */
static const char *
agent_home(const struct manifest *m, char *buf, size_t buflen)
{
	uid_t uid = geteuid() == 0 ? m->sandbox.uid : geteuid();
	gid_t gid = geteuid() == 0 ? m->sandbox.gid : getegid();
	const char *name, *xdg = getenv("XDG_STATE_HOME"), *h = getenv("HOME");
	char why[PATH_MAX + 64], why2[PATH_MAX + 64];
	int n;

	if (m->agent.home == NULL)
		return NULL;
	if (home_make(m->agent.home, uid, gid, 0755, why, sizeof(why)) == 0)
		return m->agent.home;
	if (geteuid() == 0) {
		log_warnx("agent home %s: %s; HOME is the sandbox's private "
		    "/tmp instead", m->agent.home, why);
		return NULL;
	}
	name = strrchr(m->agent.home, '/') + 1;
	if (xdg != NULL && xdg[0] == '/')
		n = snprintf(buf, buflen, "%s/airlock/agents/%s", xdg, name);
	else if (h != NULL && h[0] == '/')
		n = snprintf(buf, buflen, "%s/.local/state/airlock/agents/%s",
		    h, name);
	else
		n = -1;
	if (n < 0 || (size_t)n >= buflen || *name == '\0' ||
	    home_make(buf, uid, gid, 0700, why2, sizeof(why2)) != 0) {
		log_warnx("agent home %s: %s, and no per-user home either; "
		    "HOME is the sandbox's private /tmp", m->agent.home, why);
		return NULL;
	}
	log_warnx("agent home %s is not usable by uid %u (%s); using %s",
	    m->agent.home, (unsigned)uid, why, buf);
	return buf;
}

/* Adds |entry| to |*envp| unless its name is set there; frees it. */
static void
env_put_free(char ***envp, char *entry)
{
	env_put(envp, entry, 0);
	free(entry);
}

/* Passes |name| from airlock's environment, when set there. */
static void
env_pass(char ***envp, const char *name)
{
	const char	*v;
	char		*e;

	if ((v = getenv(name)) == NULL)
		return;
	xasprintf(&e, "%s=%s", name, v);
	env_put_free(envp, e);
}

/*
 * The agent's environment: a fixed base, AIRLOCK_*, and named
 * pass-throughs, each name once (a pass-through of a name already set,
 * HOME or TERM, is not added again).
 */
static char **
agent_env(const struct manifest *m, const struct session *s,
    const char *home, const char *agent_dir, const char *airlock_dir)
{
	static const char *pass[] = { "TERM", "LANG", "LC_ALL", "TZ", NULL };
	char	**env, *e;
	size_t	  i;

	env = xcalloc(1, sizeof(*env));
	/* The agent's own directory first, as on the host. */
	xasprintf(&e, "PATH=%s:%s:/usr/local/bin:/usr/bin:/bin", agent_dir,
	    airlock_dir);
	env_put_free(&env, e);
	/* Never a path that does not exist inside. */
	xasprintf(&e, "HOME=%s", home != NULL ? home : "/tmp");
	env_put_free(&env, e);
	xasprintf(&e, "AIRLOCK_FD=%d", AGENT_FD);
	env_put_free(&env, e);
	xasprintf(&e, "AIRLOCK_MCP_CONFIG=%s/mcp.json", SANDBOX_BROKER_DIR);
	env_put_free(&env, e);
	xasprintf(&e, "AIRLOCK_SESSION=%s", s->id);
	env_put_free(&env, e);
	for (i = 0; pass[i] != NULL; i++)
		env_pass(&env, pass[i]);
	for (i = 0; i < m->agent.nenv_pass; i++)
		env_pass(&env, m->agent.env_pass[i]);
	return env;
}

/*
 * An agent that writes the checkout directly (agent.workspace: rw, not a
 * copy-on-write session) can plant repository metadata anywhere in it (a
 * src/.git whose diff.external runs its command), and the runner cannot
 * tell that from a nested repository of the checkout's own: a run
 * granted a secret that runs git there would run the agent's command
 * with the secret.  So that pairing does not start.  Returns 0, or -1
 * after saying why (stderr and the log: run_refused).
 */
static int
secret_beside_rw_agent(const struct manifest *m, int host_writes,
    struct audit *a)
{
	const struct tool *t = NULL;
	char why[512];
	json_t *f;
	size_t i;

	if (!host_writes)
		return 0;
	for (i = 0; i < m->ntools && t == NULL; i++)
		if (m->tools[i].nsecrets > 0)
			t = &m->tools[i];
	if (t == NULL)
		return 0;
	snprintf(why, sizeof(why),
	    "the manifest grants a secret (%s: %s) and lets the agent write "
	    "the checkout directly (agent.workspace: rw): the agent could "
	    "plant repository metadata (a .git whose diff.external runs its "
	    "command) that a granted run would execute with the secret",
	    t->name, t->secrets[0].name);
	log_warnx("%s; use agent.workspace: cow (or airlock run --cow), "
	    "where runners cover what the agent planted, or ro", why);
	f = json_pack("{s:s}", "reason", why);
	if (audit_append(a, "run_refused", f) != 0)
		log_warnx("the audit log cannot be written");
	json_decref(f);
	return -1;
}

int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		OVERRIDES_LONGOPTS,
		{ "cow", no_argument, NULL, 'C' },
		{ "resume", required_argument, NULL, 'S' },
		{ "setup", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*mpath = NULL, *wpath = NULL, *resume = NULL;
	struct cowrun		 cow;
	int			 want_cow = 0, host_writes, setup = 0;
	char			 err[512], self[PATH_MAX], state[PATH_MAX];
	char			 ws_real[PATH_MAX], home_buf[PATH_MAX];
	char			 selfdir[PATH_MAX], *slash, **env;
	struct agent_bin	*ab;
	struct overrides	 ov;
	struct net_allow	 net;
	json_t			*ov_json;
	struct manifest		*m;
	struct session		*s;
	struct service		 sv;
	struct run_state	 rs;
	struct runner_request	 req;
	struct runner_result	 res;
	struct sandbox_policy	 policy;
	struct agent_socket	 as;
	dev_t			 ns_dev;
	ino_t			 ns_ino;
	int			 sv_fds[2], ch, verbose = 0, status, rc;
	int			 budget_stopped;
	int			 keep[1] = { AGENT_FD }, psock[2];
	size_t			 i, nwrites = 0;
	ssize_t			 n;
	const char		**writes;

	/* Nothing the caller left open may reach the agent or the runners. */
	if (close_fds_from(3, NULL, 0) != 0)
		fatal("closing inherited descriptors");
	log_init("airlock run", 0);
	if (session_state_dir(state, sizeof(state)) != 0)
		state[0] = '\0';
	overrides_init(&ov);
	while ((ch = getopt_long(argc, argv, "+m:w:v", opts, NULL)) != -1) {
		switch (overrides_option(&ov, ch, optarg, argc, argv, &optind,
		    state, err, sizeof(err))) {
		case 1:
			continue;
		case -1:
			log_warnx("%s", err);
			overrides_free(&ov);
			return EXIT_USAGE;
		}
		switch (ch) {
		case 'm': mpath = optarg; break;
		case 'w': wpath = optarg; break;
		case 'v': verbose++; break;
		case 'C': want_cow = 1; break;
		case 'S': resume = optarg; break;
		case 'H': setup = 1; break;
		default:
			run_usage();
			overrides_free(&ov);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		run_usage();
		overrides_free(&ov);
		return EXIT_USAGE;
	}
	log_init("airlock run", verbose);
	if (realpath(wpath != NULL ? wpath : ".", ws_real) != NULL &&
	    overrides_check_workspace(&ov, ws_real, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		overrides_free(&ov);
		return EXIT_USAGE;
	}
	/*
	 * The agent runs by the absolute path it has on the host's PATH (its
	 * cwd is the workspace), with its install tree and interpreter.
	 */
	if (agent_bin_resolve(argv[optind], getenv("PATH"), &ab, err,
	    sizeof(err)) != 0) {
		log_warnx("agent program %s", err);
		overrides_free(&ov);
		return EXIT_USAGE;
	}
	argv[optind] = ab->path;

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

	if ((ov_json = overrides_json(&ov)) == NULL)
		fatalx("out of memory");
	rc = service_open(&sv, "run", mpath, wpath, argv + optind, ov_json);
	json_decref(ov_json);
	if (rc != 0) {
		agent_bin_free(ab);
		overrides_free(&ov);
		return rc;
	}
	m = sv.m;
	s = &sv.session;
	/* Its writes land in the checkout as they are made, seen by no
	 * write policy. */
	host_writes = m->agent.workspace_writable && !want_cow &&
	    resume == NULL && !m->agent.workspace_cow;
	if (secret_beside_rw_agent(m, host_writes, sv.audit) != 0) {
		service_close(&sv);
		agent_bin_free(ab);
		overrides_free(&ov);
		return EXIT_CONFIG;
	}

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
	for (i = 0; i < ab->nbinds; i++) {
		log_info("bind ro %s (%s)", ab->binds[i].path,
		    ab->binds[i].why);
		add_bind(&policy, ab->binds[i].path);
	}
	for (i = 0; i < ov.nro; i++) {
		log_info("bind ro %s (--ro)", ov.ro[i]);
		add_bind(&policy, ov.ro[i]);
	}
	for (i = 0; i < ov.nrw; i++)
		log_info("bind rw %s (--rw)", ov.rw[i]);
	policy.read_write = ov.rw;
	policy.nread_write = ov.nrw;
	/* The broker's socket, for MCP clients that start "airlock connect". */
	if (agent_socket_open(&as, s->dir, self, m->sandbox.uid,
	    m->sandbox.gid, err, sizeof(err)) != 0) {
		log_warnx("the agent's broker socket: %s", err);
		agent_socket_close(&as);
		service_close(&sv);
		agent_bin_free(ab);
		overrides_free(&ov);
		return EXIT_SANDBOX;
	}
	policy.broker_dir = as.dir;
	policy.workspace = m->sandbox.workspace;
	policy.limits = m->agent.limits;
	/* A read-only agent changes files only through the broker's tools. */
	policy.workspace_readonly = !m->agent.workspace_writable;
	policy.home = agent_home(m, home_buf, sizeof(home_buf));
	/* The agent's own configuration there is read-only, but for the
	 * user's own setup session (airlock run --setup). */
	policy.home_ro = setup ? NULL : m->agent.home_ro;
	policy.nhome_ro = setup ? 0 : m->agent.nhome_ro;
	policy.home_scratch = setup ? NULL : m->agent.home_scratch;
	policy.nhome_scratch = setup ? 0 : m->agent.nhome_scratch;
	if (setup && policy.home != NULL)
		log_warnx("--setup: the agent's configuration in %s is "
		    "writable in this session", policy.home);
	/* No setuid or setgid file from such writes (seccomp_policy.h). */
	policy.host_writes = host_writes;
	env = agent_env(m, s, policy.home, ab->dir, selfdir);
	overrides_apply_env(&ov, &env);

	memset(&req, 0, sizeof(req));
	cowrun_init(&cow);
	if ((want_cow || resume != NULL || m->agent.workspace_cow) &&
	    (rc = cowrun_prepare(&cow, s, sv.audit, m, sv.workspace, resume,
	    &req, err, sizeof(err))) != 0) {
		log_warnx("%s", err);
		/* A session whose budget is spent: as a run it stopped. */
		status = rc == AL_ERR_BUDGET ? EXIT_BUDGET : EXIT_USAGE;
		agent_socket_close(&as);
		service_close(&sv);
		strv_free(env);
		for (i = 0; i < policy.nread_only; i++)
			free(policy.read_only[i]);
		free(policy.read_only);
		agent_bin_free(ab);
		overrides_free(&ov);
		return status;
	}
	/* In a copy-on-write session the agent writes its overlay. */
	if (cow.cs != NULL)
		policy.workspace_readonly = 0;
	/* A denied path the live binds cannot hide refuses the start
	 * (runner.c plan_deny_live()). */
	req.argv = argv + optind;
	req.envp = env;
	req.workspace = sv.workspace;
	/* The agent sees the broker's writes at once (runner.h). */
	req.live_workspace = 1;
	req.policy = &policy;
	req.timeout_ms = m->budget.max_elapsed_minutes > 0 ?
	    m->budget.max_elapsed_minutes * 60 * 1000 : 0;
	/* A resumed session has what its earlier runs left of it. */
	if (req.timeout_ms > 0 && cow.time_left_ms < req.timeout_ms)
		req.timeout_ms = cow.time_left_ms;
	sv.carry = cow.carry;
	sv.record_budget = cow.cs != NULL;
	req.stdin_fd = STDIN_FILENO;
	req.passthrough = 1;
	req.keep_fds = keep;
	req.nkeep_fds = 1;
	/* The agent's network: its hosts and the command line's, through
	 * the egress proxy only. */
	memset(&net, 0, sizeof(net));
	net.hosts = xcalloc(m->agent.network.nhosts + ov.nhosts + 1,
	    sizeof(*net.hosts));
	for (i = 0; i < m->agent.network.nhosts; i++)
		net.hosts[net.nhosts++] = m->agent.network.hosts[i];
	for (i = 0; i < ov.nhosts; i++)
		net.hosts[net.nhosts++] = ov.hosts[i];
	if (net.nhosts > 0) {
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
	/* What the agent writes besides the workspace, walked for hard
	 * links before it starts (broker/wslinks.h). */
	writes = xcalloc(ov.nrw + 2, sizeof(*writes));
	if (policy.home != NULL)
		writes[nwrites++] = policy.home;
	if (m->agent.home != NULL)
		writes[nwrites++] = m->agent.home;
	for (i = 0; i < ov.nrw; i++)
		writes[nwrites++] = ov.rw[i];
	sv.agent_writes = writes;
	sv.nagent_writes = nwrites;
	sv.agent_writes_known = 1;
	service_start_broker(&sv, sv_fds[1], sv_fds[1], broker_closed, &rs);
	free(writes);
	sv.agent_writes = NULL;

	if (runner_start(&req, &rs.agent, err, sizeof(err)) != 0) {
		char why[sizeof(err)];
		json_t *f;

		log_warnx("cannot start the agent: %s", err);
		/* Why (a denied path a live bind cannot hide, say), for
		 * the reviewer of the log; a path in it may not be UTF-8. */
		utf8_fit(why, sizeof(why), err);
		f = json_pack("{s:s}", "reason", why);
		if (f == NULL || audit_append(sv.audit, "run_refused", f) != 0)
			log_warnx("the audit log cannot be written");
		json_decref(f);
		agent_socket_close(&as);
		service_close(&sv);
		agent_bin_free(ab);
		overrides_free(&ov);
		free(net.hosts);
		return EXIT_SANDBOX;
	}
	close(AGENT_FD);
	if (cow.cs != NULL && cowrun_attach(&cow, sv.broker, err,
	    sizeof(err)) != 0) {
		log_warnx("the session's workspace view: %s", err);
		runner_proc_kill(rs.agent);
	}
	if (runner_proc_pidns(rs.agent, &ns_dev, &ns_ino) != 0 ||
	    agent_socket_pin(&as, ns_dev, ns_ino) != 0 ||
	    broker_listen(sv.broker, as.fd, agent_socket_peer_ok, &as) != 0) {
		log_warn("the agent's broker socket");
		runner_proc_kill(rs.agent);
	}
	if (req.use_proxy) {
		close(psock[1]);
		/* A refusal's audit record names what would allow it. */
		egress_label(sv.egress, s->id, "agent",
		    "or airlock run --allow-host");
		if (egress_attach(sv.egress, psock[0], s->id, &net,
		    err, sizeof(err)) != 0) {
			log_warnx("the agent's egress: %s", err);
			runner_proc_kill(rs.agent);
		}
		close(psock[0]);
		rs.egress = sv.egress;
		rs.egress_id = s->id;
	}
	rs.agent_watch = loop_watch(rs.loop, runner_proc_fd(rs.agent),
	    runner_proc_deadline(rs.agent), agent_event, &rs);
	broker_on_cut_off(sv.broker, agent_cut_off, &rs);
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
	} else if (res.unmasked[0] != '\0') {
		log_warnx("the agent's sandbox was killed: the host removed "
		    "or moved the denied directory %s (or one above it), "
		    "whose mask went with it", res.unmasked);
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

		if (f != NULL && res.unmasked[0] != '\0')
			json_object_set_new(f, "unmasked",
			    json_string(res.unmasked));
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
	cowrun_end(&cow);
	service_close(&sv);
	strv_free(env);
	for (i = 0; i < policy.nread_only; i++)
		free(policy.read_only[i]);
	free(policy.read_only);
	agent_bin_free(ab);
	overrides_free(&ov);
	free(net.hosts);
	return status;
}
