/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock exec: runs one command in a runner sandbox, with the caller's
 * stdin, stdout and stderr, and passes its exit status through.
 */
#include "config.h"

#include <dirent.h>
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "broker/changeset.h"
#include "broker/denials.h"
#include "broker/egress.h"
#include "common/errors.h"
#include "common/log.h"
#include "broker/audit.h"
#include "common/buf.h"
#include "common/util.h"
#include "common/vis.h"
#include "policy/manifest.h"
#include "policy/manifest_sig.h"
#include "policy/writepolicy.h"
#include "policy/sandbox_defaults.h"
#include "proxy/ipc.h"
#include "proxy/proxy.h"
#include "runner/denials.h"
#include "runner/runner.h"
#include "runner/seatbelt_exec.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"
#include "supervisor/exec_audit.h"
#include "supervisor/overrides.h"
#include "supervisor/session.h"
#include "supervisor/setup.h"


static void
usage(void)
{
	cli_usage("exec");
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

/* Frees |e|'s strings (which it owns) and its array. */
static void
extra_free_all(struct extra *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
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
 * What the sandbox refused, one line each on stderr.  A path comes from
 * the command's own report and may hold any byte: log_warnx() escapes
 * the whole line (common/vis.h).
 */
static void
print_denials(const struct runner_result *res)
{
	char line[RUNNER_DENIAL_TEXT_MAX];
	size_t i;

	for (i = 0; i < res->ndenials; i++) {
		runner_denial_format(&res->denials[i], line, sizeof(line));
		log_warnx("denied: %s", line);
	}
}

/*
 * The run's denials as airlock run records them (denials_build(), with
 * the call's "id" and "tool": docs/DENIALS.md), for the audit log
 * (exec_audit_denials()), so that airlock suggest reads an exec's as it
 * reads a session's: call 1 of tool "exec", numbered d1...  A wallClock
 * limit is left out: --timeout is no manifest key, and exec_end says
 * timedOut.  Network refusals are exec_end's "egress" (--allow-host is
 * no manifest key either).  NULL when there are none.
 */
static json_t *
exec_denials(const struct runner_result *res)
{
	const char *limit;
	json_t *list, *d, *out;
	char id[16];
	size_t i;

	if (res->setup_failed || (list = denials_build(NULL, res)) == NULL)
		return NULL;
	if ((out = json_array()) == NULL)
		fatalx("out of memory");
	json_array_foreach (list, i, d) {
		limit = json_string_value(json_object_get(d, "limit"));
		if (limit != NULL && strcmp(limit, "wallClock") == 0)
			continue;
		snprintf(id, sizeof(id), "d%zu", json_array_size(out) + 1);
		if (json_object_set_new(d, "denial", json_string(id)) != 0 ||
		    json_object_set_new(d, "id", json_integer(1)) != 0 ||
		    json_object_set_new(d, "tool", json_string("exec")) != 0 ||
		    json_array_append(out, d) != 0)
			fatalx("out of memory");
	}
	json_decref(list);
	if (json_array_size(out) == 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* At most this many refused connections are recorded in exec_end. */
#define EGRESS_REFUSED_RECORDED	64
#define EGRESS_EVENT_LINE_MAX	8192	/* a proxy record's line */

/*
 * The egress proxy of one exec: a process, its control socket, and the
 * read end of its event pipe, whose connection records are counted and
 * whose refusals are kept for exec_end and for stderr.
 */
struct exec_proxy {
	pid_t		 pid;		/* -1: none */
	int		 ctl;
	int		 ev;		/* -1: none */
	struct buf	*evbuf;
	json_int_t	 connections, refused;
	json_int_t	 over_cap;	/* closed over the cap, no reply (and
					   no record of their own) */
	json_t		*denied;	/* the first refusals */
};

/*
 * Starts the proxy: before the audit writer's thread exists, since a
 * fork() while it runs would copy the locks it holds (glibc's time zone
 * lock, say) into a child that can never take them.  0 or -1.
 */
static int
exec_proxy_start(struct exec_proxy *xp)
{
	struct proxy_limits lim;
	char why[256];
	int evp[2];

	xp->ctl = -1;
	if (pipe2(evp, O_CLOEXEC) == -1 || fd_set_nonblock(evp[0], 1) != 0)
		fatal("pipe");
	if ((xp->evbuf = buf_new(EGRESS_EVENT_LINE_MAX)) == NULL ||
	    (xp->denied = json_array()) == NULL)
		fatalx("out of memory");
	xp->ev = evp[0];
	proxy_limits_default(&lim);
	xp->pid = proxy_spawn(&lim, evp[1], &xp->ctl, why, sizeof(why));
	close(evp[1]);
	if (xp->pid < 0) {
		log_warnx("exec: cannot start the egress proxy: %s", why);
		xp->pid = -1;
		return -1;
	}
	return 0;
}

/*
 * Reads what the proxy reported (one JSON line per connection, or per
 * batch of connections closed over its cap; a denial is written before
 * the client can read it): counts every connection and keeps the first
 * refusals.  Drained while the command runs, or the proxy
 * would stall on a full pipe.  Returns 0 at end of file (or on an
 * error: nothing more can be read), 1 otherwise.
 */
static int
exec_proxy_events(struct exec_proxy *xp)
{
	const char *frame, *decision, *event;
	json_int_t over;
	size_t len;
	json_t *j;
	ssize_t n;
	int rc;

	if (xp->ev == -1)
		return 0;
	n = buf_fill(xp->evbuf, xp->ev);
	while ((rc = buf_next_frame(xp->evbuf, &frame, &len)) != 0) {
		if (rc < 0 || (j = json_loadb(frame, len, 0, NULL)) == NULL)
			continue;
		event = json_string_value(json_object_get(j, "event"));
		if (event != NULL && strcmp(event, "proxy.over_cap") == 0) {
			over = json_integer_value(json_object_get(j,
			    "connections"));
			xp->connections += over;
			xp->refused += over;
			xp->over_cap += over;
			json_decref(j);
			continue;
		}
		decision = json_string_value(json_object_get(j, "decision"));
		xp->connections++;
		/* Refused: the proxy answered with an error of its own. */
		if ((decision == NULL || strcmp(decision, "allow") != 0) &&
		    json_integer_value(json_object_get(j, "status")) != 0) {
			xp->refused++;
			if (json_array_size(xp->denied) <
			    EGRESS_REFUSED_RECORDED)
				json_array_append_new(xp->denied, json_pack(
				    "{s:O*, s:O*, s:O*, s:O*, s:O*, s:O*, s:O*}",
				    "host", json_object_get(j, "host"),
				    "port", json_object_get(j, "port"),
				    "address", json_object_get(j, "address"),
				    "method", json_object_get(j, "method"),
				    "decision", json_object_get(j, "decision"),
				    "status", json_object_get(j, "status"),
				    "reason", json_object_get(j, "reason")));
		}
		json_decref(j);
	}
	return n > 0 ? 1 : 0;
}

/* proxy_stop()'s reader of the event pipe: 0 once it is at its end. */
static int
exec_proxy_drain(void *arg)
{
	return exec_proxy_events(arg);
}

static void
exec_proxy_stop(struct exec_proxy *xp)
{
	if (xp->pid != -1) {
		if (xp->ctl != -1)
			close(xp->ctl);
		if (proxy_stop(xp->pid, xp->ev, exec_proxy_drain, xp,
		    PROXY_STOP_MS) != 0)
			log_warnx("the egress proxy did not stop: killed");
	}
	xp->pid = -1;
	xp->ctl = -1;
	if (xp->ev != -1)
		close(xp->ev);
	xp->ev = -1;
	buf_free(xp->evbuf);
	xp->evbuf = NULL;
}

/*
 * After the command: stops the proxy, names each refused connection on
 * stderr (escaped, like the sandbox's denials) and returns exec_end's
 * "egress" {connections, refused, overCap, denied: the first refusals}.
 */
static json_t *
exec_proxy_report(struct exec_proxy *xp)
{
	const char *host;
	json_t *d;
	size_t i;

	exec_proxy_stop(xp);
	json_array_foreach (xp->denied, i, d) {
		host = json_string_value(json_object_get(d, "host"));
		host = host != NULL ? host : "";
		/* The cap's 429 comes before any request: no destination. */
		if (host[0] == '\0') {
			log_warnx("denied: network (proxy): %s",
			    json_string_value(json_object_get(d, "reason")) !=
			    NULL ? json_string_value(json_object_get(d,
			    "reason")) : "");
			continue;
		}
		log_warnx("denied: network %s%s%s:%lld (proxy): %s",
		    strchr(host, ':') != NULL ? "[" : "", host,
		    strchr(host, ':') != NULL ? "]" : "",
		    (long long)json_integer_value(json_object_get(d, "port")),
		    json_string_value(json_object_get(d, "reason")) != NULL ?
		    json_string_value(json_object_get(d, "reason")) : "");
	}
	if (xp->refused - xp->over_cap >
	    (json_int_t)json_array_size(xp->denied))
		log_warnx("denied: network: %lld more connections (proxy)",
		    (long long)(xp->refused - xp->over_cap -
		    (json_int_t)json_array_size(xp->denied)));
	if (xp->over_cap > 0)
		log_warnx("denied: network: %lld connections over the proxy's "
		    "cap closed without a reply (proxy)",
		    (long long)xp->over_cap);
	return json_pack("{s:I, s:I, s:I, s:O}", "connections",
	    xp->connections, "refused", xp->refused, "overCap", xp->over_cap,
	    "denied", xp->denied);
}

/*
 * runner_run() with the egress proxy |xp| serving |hosts| (--allow-host):
 * the proxy lives as long as the command; its connection records are
 * read meanwhile (exec_proxy_events()) for exec_end and stderr.  The
 * same returns as runner_run().
 */
static int
run_with_proxy(struct runner_request *req, char *const *hosts,
    struct exec_proxy *xp, struct runner_result *res)
{
	struct runner_proc *p;
	struct pollfd pfd, pfds[2];
	const char **ips;
	char msg[8];
	size_t i, n = 0, len;
	int64_t now, dl;
	int psock[2], ctl = xp->ctl, lfd = -1, rc, timeout;

	runner_result_reset(res);
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
		pfds[0].fd = runner_proc_fd(p);
		pfds[0].events = POLLIN;
		pfds[1].fd = xp->ev;
		pfds[1].events = POLLIN;
		dl = runner_proc_deadline(p);
		now = now_monotonic_ms();
		timeout = dl == INT64_MAX ? -1 : dl <= now ? 0 :
		    dl - now > INT_MAX ? INT_MAX : (int)(dl - now);
		if (poll(pfds, 2, timeout) == -1 && errno != EINTR)
			break;
		/* The proxy's records, or it stalls on a full pipe. */
		if (pfds[1].revents != 0 && exec_proxy_events(xp) == 0) {
			close(xp->ev);
			xp->ev = -1;
		}
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
	return rc;
}

/*
 * Rolls back an apply a killed airlock left in |ws| (changeset_recover),
 * saying so on stderr.  Returns 0, or EXIT_APPLY when it cannot be put
 * back.
 */
static int
exec_recover(const char *ws, const struct sandbox_policy *policy)
{
	json_t *report, *v;
	char err[512];
	size_t i;
	int fd, rc;

	if ((fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		log_warn("exec: %s", ws);
		return EXIT_USAGE;
	}
	rc = changeset_recover(fd, policy, &report, err, sizeof(err));
	close(fd);
	if (rc < 0) {
		log_warnx("exec: an interrupted apply cannot be rolled back: "
		    "%s", err);
		return EXIT_APPLY;
	}
	json_array_foreach (report, i, v) {
		log_warnx("exec: an interrupted apply (%s): %s",
		    json_string_value(json_object_get(v, "trash")),
		    json_string_value(json_object_get(v, "action")));
	}
	json_decref(report);
	return 0;
}

/*
 * The run's upper layer: a tmpfs (root or not), else a new directory in
 * the state directory or, where that cannot be made (a HOME not the
 * caller's), in /tmp.
 */
static int
exec_upper(const char *state, struct changeset_upper *u)
{
	char dir[PATH_MAX], err[512];
	const char *bases[2] = { state, "/tmp" };
	size_t i;

	err[0] = '\0';
	/* A tmpfs: no directory to make first. */
	if (changeset_upper_new(NULL, u, err, sizeof(err)) == 0)
		return 0;
	for (i = 0; i < 2; i++) {
		if (bases[i][0] == '\0' || (i == 0 && mkdir(state, 0700) == -1 &&
		    errno != EEXIST))
			continue;
		/* A unique name (mkdtemp), made again by
		 * changeset_upper_new(), which refuses one that exists. */
		if (snprintf(dir, sizeof(dir), "%s/airlock-exec-XXXXXX",
		    bases[i]) >= (int)sizeof(dir) || mkdtemp(dir) == NULL ||
		    rmdir(dir) == -1)
			continue;
		if (changeset_upper_new(dir, u, err, sizeof(err)) == 0)
			return 0;
	}
	log_warnx("exec: no upper layer could be made%s%s",
	    err[0] != '\0' ? ": " : "", err);
	return -1;
}

/*
 * After the command: the change set it left in |u| is checked against
 * |policy| and applied to |ws| (or, |dryrun|, listed).  Returns |rc| (the
 * command's status) when the set applied or was empty, EXIT_NOPERM when
 * an entry broke a rule (each named on stderr, nothing applied), or
 * EXIT_APPLY when it could not be read or applied (nothing applied).
 * A command |cut_off| mid-way (why: its timeout, its memory limit; NULL:
 * it ended on its own) has none of its set applied, and |rc| returned.
 */
/*
 * The command's end as soon as it is known (runner_request.on_status):
 * exec_end goes to the audit log's writer while the sandbox is torn
 * down, unless there is a change set to land: then exec_end waits to say
 * what landed (exec_land()).  |upper| NULL: no overlay.  With the egress
 * proxy it waits too, for what the proxy reported.
 */
struct exec_status {
	struct exec_audit *xa;
	const struct changeset_upper *upper;
	const char *workspace;
	int egress;
	int *mntns; /* runner_request.mntns_out: goes with exec_end */
};

/* Whether the upper layer |u| holds nothing and its root has the mode of
 * workspace |ws| (a run's chmod of "." is told: changeset_collect()), or
 * cannot tell: then 0. */
static int
upper_empty(const struct changeset_upper *u, const char *ws)
{
	struct dirent *de;
	struct stat ust, wst;
	DIR *d;
	int fd, empty = 1;

	if ((fd = changeset_upper_open(u)) == -1)
		return 0;
	if (fstat(fd, &ust) == -1 || stat(ws, &wst) == -1 ||
	    (ust.st_mode & 07777) != (wst.st_mode & 07777)) {
		close(fd);
		return 0;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while (empty && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	return empty;
}

static void
exec_on_status(void *arg, int wait_status)
{
	struct exec_status *st = arg;

	if (st->egress)
		return;
	if (st->upper == NULL || upper_empty(st->upper, st->workspace)) {
		exec_audit_hold(st->xa, *st->mntns);
		*st->mntns = -1;
		exec_audit_on_status(st->xa, wait_status);
	}
}

/* At most this many refused entries are recorded in exec_end, in at
 * most this many bytes as JSON writes them (changeset_refused_few()):
 * 64 paths of 4 KiB of control characters made an exec_end of 1.5 MiB,
 * over a line of the log, and it was not written. */
#define LAND_REFUSED_RECORDED 64
#define LAND_REFUSED_BYTES (256 * 1024)

/* exec_end's changeSet: {applied: n} and what stopped it, if anything. */
static json_t *
land_record(size_t applied, const char *error, json_t *refused, int dryrun)
{
	json_t *r = json_pack("{s:I}", "applied", (json_int_t)applied), *few;

	if (r == NULL)
		fatalx("out of memory");
	/*
	 * UTF-8, U+FFFD for a byte that is not: the error quotes a name the
	 * command wrote, and json_string() of one that is not UTF-8 failed,
	 * leaving the record without the reason nothing was applied.
	 */
	if (error != NULL) {
		char *valid = utf8_sanitize(error, strlen(error));

		json_object_set_new(r, "error", json_string(valid));
		free(valid);
	}
	if (dryrun)
		json_object_set_new(r, "dryRun", json_true());
	if (refused != NULL) {
		few = changeset_refused_few(refused, LAND_REFUSED_RECORDED,
		    LAND_REFUSED_BYTES);
		json_object_set_new(r, "refused", few);
		json_object_set_new(r, "refusedTotal",
		    json_integer((json_int_t)json_array_size(refused)));
	}
	return r;
}

/*
 * Tells of the mode bits of |cs| that did not land (changeset_dropped()):
 * a line on stderr for each of the first LAND_REFUSED_RECORDED, and
 * exec_end's changeSet |r| (NULL: the command wrote nothing) gets them
 * as modesDropped, with modesDroppedTotal.
 */
static void
land_dropped(json_t *r, const struct changeset *cs)
{
	json_t *dropped, *d;
	const char *path;
	size_t i, n;

	dropped = changeset_dropped(cs, LAND_REFUSED_RECORDED,
	    LAND_REFUSED_BYTES, &n);
	for (i = 0; i < json_array_size(dropped); i++) {
		d = json_array_get(dropped, i);
		path = json_string_value(json_object_get(d, "path"));
		log_warnx("exec: %s: mode %s landed as %s (%s)", path,
		    json_string_value(json_object_get(d, "mode")),
		    json_string_value(json_object_get(d, "landed")),
		    strcmp(path, ".") == 0
			? "the workspace root's mode is the owner's"
			: "a world-write bit lands only where the workspace "
			  "had it, an inherited setgid bit never");
	}
	if (r != NULL && n > 0) {
		json_object_set(r, "modesDropped", dropped);
		json_object_set_new(
		    r, "modesDroppedTotal", json_integer((json_int_t)n));
	}
	json_decref(dropped);
}

static int
exec_land(const char *ws, const struct changeset_upper *u,
    const struct sandbox_policy *policy, int dryrun, int rc,
    const char *cut_off, json_t **landed)
{
	struct changeset *cs = NULL;
	json_t *refused = NULL, *v, *e;
	char err[512];
	size_t i, width;
	int rootfd, upperfd = -1, ret = EXIT_APPLY;

	*landed = NULL;
	if ((rootfd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (upperfd = changeset_upper_open(u)) == -1) {
		snprintf(err, sizeof(err), "%s", strerror(errno));
		log_warn("exec: nothing was applied");
		*landed = land_record(0, err, NULL, 0);
		goto done;
	}
	if (changeset_upper_full(u)) {
		log_warnx("exec: nothing was applied: the command's writes "
		    "filled the %lld MiB upper layer and failed with ENOSPC",
		    CHANGESET_MAX_BYTES / (1024 * 1024));
		*landed = land_record(0, "the upper layer was full", NULL, 0);
		ret = EXIT_NOPERM;
		goto done;
	}
	if (changeset_collect(upperfd, rootfd, geteuid() != 0, &cs, err,
	    sizeof(err)) != 0) {
		log_warnx("exec: nothing was applied: %s", err);
		*landed = land_record(0, err, NULL, 0);
		goto done;
	}
	/* Cut off mid-way: what it wrote is half of what it meant to. */
	if (cut_off != NULL && changeset_count(cs) > 0) {
		log_warnx("exec: nothing was applied: the command %s", cut_off);
		*landed = land_record(0, "the command was cut off", NULL, 0);
		ret = rc;
		goto done;
	}

	/*
	 * Each entry on a line of its own, folded to the terminal's width
	 * (vis_fold()): a name the command wrote, padded to the edge, began
	 * a row of its own with what it held after, a line of airlock's.
	 */
	if (dryrun) {
		width = term_columns(STDERR_FILENO);
		v = changeset_describe(cs);
		json_array_foreach (v, i, e) {
			char *vp = vis_str(json_string_value(
			    json_object_get(e, "path")), 0);

			if (vis_fold_printf(stderr, width,
			    "airlock exec: would apply: %s %s\n",
			    json_string_value(json_object_get(e, "op")),
			    vp != NULL ? vp : "?") == -1)
				fatalx("out of memory");
			free(vp);
		}
		json_decref(v);
	}
	if ((refused = changeset_check(cs, policy, rootfd, CHANGESET_MAX_BYTES)) !=
	    NULL) {
		width = term_columns(STDERR_FILENO);
		json_array_foreach (refused, i, v) {
			const char *rule = json_string_value(
			    json_object_get(v, "rule"));
			/* The run named it: escaped for the terminal. */
			char *vp = vis_str(json_string_value(
			    json_object_get(v, "path")), 0);

			if (vis_fold_printf(stderr, width,
			    "airlock exec: refused: %s: %s (%s)\n",
			    vp != NULL ? vp : "?", rule,
			    writepolicy_rule_text(rule)) == -1)
				fatalx("out of memory");
			free(vp);
		}
		log_warnx("exec: nothing was applied: %zu %s refused "
		    "(the command exited %d)", json_array_size(refused),
		    json_array_size(refused) == 1 ? "entry" : "entries", rc);
		*landed = land_record(0, NULL, refused, dryrun);
		ret = EXIT_NOPERM;
		goto done;
	}
	if (dryrun) {
		log_warnx("exec: --dry-run: nothing was applied");
		*landed = land_record(0, NULL, NULL, 1);
		ret = rc;
		goto done;
	}
	if (changeset_apply(cs, upperfd, rootfd, err, sizeof(err)) != 0) {
		log_warnx("exec: nothing was applied: %s", err);
		*landed = land_record(0, err, NULL, 0);
		goto done;
	}
	/* A command that wrote nothing adds nothing to exec_end (a mode
	 * bit that did not land is something: chmod o+w of a directory). */
	if (changeset_count(cs) > 0 || changeset_has_dropped(cs))
		*landed = land_record(changeset_count(cs), NULL, NULL, 0);
	land_dropped(*landed, cs);
	ret = rc;
done:
	json_decref(refused);
	changeset_free(cs);
	if (upperfd != -1)
		close(upperfd);
	if (rootfd != -1)
		close(rootfd);
	return ret;
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

/*
 * --chdir DIR: |dir| (absolute, or relative to the workspace |ws|) must
 * exist inside the workspace, which the sandbox sees at the same path.
 * Sets *cwdp to its workspace-relative form (NULL for the workspace
 * itself).  Returns 0, EXIT_NOINPUT or EXIT_USAGE.
 */
static int
chdir_in(const char *dir, const char *ws, char **cwdp)
{
	char want[2 * PATH_MAX], real[PATH_MAX];

	*cwdp = NULL;
	if (dir[0] == '/')
		snprintf(want, sizeof(want), "%s", dir);
	else
		snprintf(want, sizeof(want), "%s/%s", ws, dir);
	if (realpath(want, real) == NULL) {
		int missing = errno == ENOENT;

		log_warn("exec: --chdir %s", dir);
		return missing ? EXIT_NOINPUT : EXIT_USAGE;
	}
	if (strcmp(real, ws) == 0)
		return 0;
	if (!path_is_beneath(real, ws)) {
		log_warnx("exec: --chdir %s: not inside the workspace %s", dir,
		    ws);
		return EXIT_USAGE;
	}
	*cwdp = xstrdup(real + strlen(ws) + 1);
	return 0;
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
		{ "dry-run", no_argument, NULL, 'n' },
		{ "limit", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "chdir", required_argument, NULL, 'c' },
		OVERRIDES_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct sandbox_policy defaults, eff;
	const struct sandbox_policy *policy;
	struct extra ro = { NULL, 0 }, deny = { NULL, 0 }, prot = { NULL, 0 };
	struct extra lim = { NULL, 0 };
	size_t i;
	int strict = 0, nolandlock = 0, cow = 0, dryrun = 0;
	struct changeset_upper upper = { -1, NULL, NULL, NULL };
	int overlay = 0;
	struct manifest *m = NULL;
	struct runner_request req;
	struct runner_result *res = NULL;
	const char *manifest = NULL, *workspace = ".", *chdir_arg = NULL;
	char **env = NULL, *cwd = NULL, layers[256], err[512];
	char state[PATH_MAX], ws_real[PATH_MAX], logpath[PATH_MAX];
	struct exec_audit *xa = NULL;
	struct exec_proxy xp = { -1, -1, -1, NULL, 0, 0, 0, NULL };
	json_t *start, *jend, *jargv, *landed = NULL, *egress, *denied = NULL;
	struct exec_status xst;
	struct overrides ov;
	long long timeout = 0;
	char *end;
	int ch, rc, verbose = 0, audited, mntns = -1;

	if (session_state_dir(state, sizeof(state)) != 0)
		state[0] = '\0';
	overrides_init(&ov);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+m:w:t:vh", longopts,
	    NULL)) != -1) {
		switch (overrides_option(&ov, ch, optarg, argc, argv, &optind,
		    state, err, sizeof(err))) {
		case 1:
			continue;
		case -1:
			log_warnx("exec: %s", err);
			rc = EXIT_USAGE;
			goto out_early;
		}
		switch (ch) {
		case 'c':
			chdir_arg = optarg;
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
		case 'd': {
			/* As sandbox.denyRead: anything else would mask
			 * nothing. */
			const char *why;
			char *abs;

			if ((why = sandbox_deny_read_path(optarg,
			    getenv("HOME"), &abs)) != NULL) {
				log_warnx("exec: --deny-read %s: %s", optarg,
				    why);
				rc = EXIT_USAGE;
				goto out_early;
			}
			extra_add(&deny, abs);
			break;
		}
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
		case 'n':
			dryrun = 1;
			break;
		case 'l':
			extra_add(&lim, optarg);
			break;
		case 'h':
			(void)cli_help("exec", stdout);
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
	if (cow && dryrun) {
		log_warnx("exec: --cow and --dry-run exclude each other");
		rc = EXIT_USAGE;
		goto out_early;
	}
	if (argc < 1) {
		usage();
		rc = EXIT_USAGE;
		goto out_early;
	}
#ifndef __APPLE__
	/*
	 * The audit log's writer, first: it makes the session while we load
	 * the manifest and prepare the sandbox (exec_audit.h), and the fork
	 * is cheapest while this process is small.
	 */
	xa = exec_audit_begin();
#endif
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
		if (manifest_load_verified(manifest, &m, err,
		    sizeof(err)) != 0) {
			log_warnx("%s", err);
			sandbox_policy_free_arrays(&defaults);
			rc = EXIT_CONFIG;
			goto out_early;
		}
		setup_protect_manifest(m, workspace);
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

	/* The command's whole environment: nothing else of ours. */
	env = overrides_exec_env(&ov, getenv);

#ifdef __APPLE__
	{
		char *ws;

		/* What needs a bind or the proxy is refused, not dropped
		 * (a --ro is in |ro| too: what is left is a --read-only). */
		if (overrides_check_seatbelt(&ov, err, sizeof(err)) != 0) {
			log_warnx("exec: %s", err);
			rc = EXIT_USAGE;
			goto out;
		}
		if (ro.n > 0) {
			log_warnx("exec: --read-only %s: not on macOS (nothing "
			    "is bound there)", ro.v[0]);
			rc = EXIT_USAGE;
			goto out;
		}
		ws = realpath(workspace, NULL);
		/* The agent's own configuration in the home, read-only, and
		 * its scratch directories (agent.homeReadOnly,
		 * agent.homeScratch), as "airlock run" has them on Linux. */
		if (m != NULL) {
			eff.home_ro = m->agent.home_ro;
			eff.nhome_ro = m->agent.nhome_ro;
			eff.home_scratch = m->agent.home_scratch;
			eff.nhome_scratch = m->agent.nhome_scratch;
		}
		/* No namespaces here: sandbox-exec with the Seatbelt profile;
		 * --timeout and the resource limits are not enforced. */
		if (ws == NULL ||
		    runner_seatbelt_exec(&eff, ws, argv, env) != 0)
			log_warn("exec: sandbox-exec");
		free(ws);
		rc = EXIT_SANDBOX;
		goto out;
	}
#endif
	if ((rc = setup_workspace(workspace, ws_real)) != 0)
		goto out;
	if (chdir_arg != NULL) {
		if ((rc = chdir_in(chdir_arg, ws_real, &cwd)) != 0)
			goto out;
	} else
		cwd = relative_cwd(workspace);
	if ((start = json_pack("{s:s, s:s, s:s, s:s, s:s?}", "command", "exec",
	    "workspace", ws_real, "cwd", cwd != NULL ? cwd : ".", "manifest",
	    manifest != NULL ? manifest : SESSION_NO_MANIFEST, "chdir",
	    chdir_arg)) == NULL)
		fatalx("out of memory");
	jargv = json_array();
	for (i = 0; argv[i] != NULL; i++)
		json_array_append_new(jargv, json_string(argv[i]));
	json_object_set_new(start, "argv", jargv);
	json_object_set_new(start, "overrides", overrides_json(&ov));
	/*
	 * The session and its exec_start record are made by a process of
	 * their own while the sandbox is prepared and built; the command
	 * starts only once the record is on the disk (req.gate).
	 */
	if (ov.nhosts > 0) {
		/* Before the proxy's thread: it may fork the writer. */
		exec_audit_settle(xa);
		if (exec_proxy_start(&xp) != 0) {
			json_decref(start);
			rc = EXIT_SANDBOX;
			goto out;
		}
	}
	exec_audit_start(xa, start, m, ws_real);
	json_decref(start);
	if (eff.workspace != WORKSPACE_COW && !eff.workspace_readonly) {
		if ((rc = exec_recover(workspace, &eff)) != 0)
			goto out_audit;
		if (exec_upper(state, &upper) != 0) {
			rc = EXIT_SANDBOX;
			goto out_audit;
		}
		overlay = 1;
	}
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
	req.scan_stderr = 1;	/* for the filesystem denials */
	/* The manifest's sandbox.allowSyscalls, as in a session. */
	req.allow_syscalls = (const char *const *)eff.allow_syscalls;
	req.nallow_syscalls = eff.nallow_syscalls;
	/* Fail closed: no record, no run. */
	req.gate = exec_audit_gate;
	req.gate_arg = xa;
	/* The spare's answer, as late as can be: the work above overlaps
	 * it.  Before any thread (runner_start()'s): it may fork the
	 * writer.  Then the network namespace it made ahead, if any. */
	exec_audit_settle(xa);
	req.netns_fd = exec_audit_netns(xa);
	req.netns_ahead = req.netns_fd != -1;
	req.cgroup_ready = exec_audit_cgroups(xa);
	/* exec_end as soon as the command has ended (the same record). */
	xst.xa = xa;
	xst.upper = overlay ? &upper : NULL;
	xst.workspace = workspace;
	xst.egress = ov.nhosts > 0;
	xst.mntns = &mntns;
	req.mntns_out = &mntns;
	/* The empty cgroups too: removed by the writer, after us. */
	req.cgroup_left = exec_audit_rmdir;
	req.cgroup_left_arg = xa;
	req.on_status = exec_on_status;
	req.status_arg = &xst;
	if (overlay && upper.mnt_fd != -1) {
		req.upper_mnt = 1;
		req.upper_fd = upper.mnt_fd;
	} else if (overlay) {
		req.upper_dir = upper.upper;
		req.work_dir = upper.work;
	}

	/* On the heap: of its 64 KiB only the pages written are faulted in. */
	if ((res = malloc(sizeof(*res))) == NULL)
		fatal("malloc");
	if (ov.nhosts > 0)
		rc = run_with_proxy(&req, ov.hosts, &xp, res);
	else
		rc = runner_run(&req, res);
	audited = exec_audit_ready(xa, err, sizeof(err)) == 0;
	if (verbose && audited)
		log_warnx("audit log %s", exec_audit_path(xa));
	if (verbose) {
		runner_layers_string(res->layers, layers, sizeof(layers));
		log_warnx("layers: %s; %lld ms", layers,
		    (long long)res->duration_ms);
	}
	if (!audited) {
		/* The gate refused: nothing of the command's ran. */
		log_warnx("exec: %s", err);
		rc = EXIT_SANDBOX;
	} else if (res->setup_failed) {
		log_warnx("%s", res->setup_error[0] != '\0' ? res->setup_error :
		    "sandbox setup failed");
		rc = EXIT_SANDBOX;
	} else if (rc != 0) {
		log_warnx("exec: the runner failed");
		rc = EXIT_SANDBOX;
	} else if (res->timed_out) {
		log_warnx("%s: timed out after %lld ms", argv[0], timeout);
		rc = EXIT_TIMEOUT;
	} else if (res->exited)
		rc = res->exit_code;
	else
		rc = 128 + res->signal;
	if (res->hint[0] != '\0')
		log_warnx("%s: %s", argv[0], res->hint);
	print_denials(res);
	/* Before exec_end: runner_request.on_status did not hand it over
	 * early for a run that may have had any (runner.h). */
	if (audited && (denied = exec_denials(res)) != NULL &&
	    exec_audit_denials(xa, denied) != 0)
		log_warnx("exec: the sandbox's denials are not in the audit "
		    "log: its end was written already");
	json_decref(denied);
	egress = ov.nhosts > 0 ? exec_proxy_report(&xp) : NULL;
	if (overlay && !res->setup_failed)
		rc = exec_land(workspace, &upper, &eff, dryrun, rc,
		    res->timed_out ? "timed out" : res->oom_killed ?
		    "was killed at its memory limit" : NULL, &landed);
	jend = res->setup_failed || res->timed_out ?
	    json_pack("{s:b, s:b}", "setupFailed", res->setup_failed != 0,
	    "timedOut", res->timed_out != 0) :
	    res->exited ? json_pack("{s:i}", "exitCode", res->exit_code) :
	    json_pack("{s:i}", "signal", res->signal);
	if (landed != NULL)
		json_object_set_new(jend, "changeSet", landed);
	if (egress != NULL)
		json_object_set_new(jend, "egress", egress);
	snprintf(logpath, sizeof(logpath), "%s", exec_audit_path(xa));
	exec_audit_hold(xa, mntns);
	mntns = -1;
	/* The upper layer, done with: the writer drops it after us. */
	if (overlay) {
		(void)exec_audit_finish(xa, jend);
		exec_audit_hand(xa, upper.mnt_fd != -1 ?
		    fcntl(upper.mnt_fd, F_DUPFD_CLOEXEC, 0) : -1);
		changeset_upper_free(&upper);
	}
	if (exec_audit_end(xa, jend) != 0)
		log_warnx("exec: cannot write the audit log %s", logpath);
	xa = NULL;
	json_decref(jend);
	runner_result_clear(res);
out_audit:
	/* Stopped before the runner: the record says the setup failed. */
	if (xa != NULL) {
		jend = json_pack("{s:b, s:b}", "setupFailed", 1, "timedOut", 0);
		exec_audit_hold(xa, mntns);
		mntns = -1;
		(void)exec_audit_end(xa, jend);
		json_decref(jend);
		xa = NULL;
	}
out:
	free(res);
	if (mntns != -1)
		close(mntns);
	/* Called off before exec_start: the writer leaves no session. */
	(void)exec_audit_end(xa, NULL);
	xa = NULL;
	exec_proxy_stop(&xp);
	json_decref(xp.denied);
	if (overlay)
		changeset_upper_free(&upper);
	strv_free(env);
	free(cwd);
	free(eff.read_only);
	free(eff.deny_read);
	free(eff.protected);
	free(ro.v);
	extra_free_all(&deny);
	free(prot.v);
	free(lim.v);
	if (m != NULL)
		manifest_free(m);
	sandbox_policy_free_arrays(&defaults);
	overrides_free(&ov);
	return rc;
out_early:
	(void)exec_audit_end(xa, NULL);
	free(ro.v);
	extra_free_all(&deny);
	free(prot.v);
	free(lim.v);
	overrides_free(&ov);
	return rc;
}
