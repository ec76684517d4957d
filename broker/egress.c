/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "broker/egress.h"
#include "common/buf.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "proxy/ipc.h"
#include "runner/runner.h"

#define EGRESS_ATTACH_MS	5000
#define EGRESS_EVENT_MAX	8192

struct egress {
	struct loop	*loop;
	struct audit	*audit;
	pid_t		 pid;		/* 0 until started */
	int		 ctl;
	int		 ev;		/* read end of the proxy's events */
	int		 ev_watch;
	struct buf	*evbuf;
	json_t		*labels;	/* sandbox -> [key, who] */
	json_t		*denied;	/* sandbox -> [{host, port, ...}] */
	void		(*on_record)(void *);	/* egress_on_record() */
	void		*on_record_arg;
};

struct egress *
egress_new(struct loop *loop, struct audit *audit)
{
	struct egress *e = xcalloc(1, sizeof(*e));

	e->loop = loop;
	e->audit = audit;
	e->ctl = e->ev = -1;
	if ((e->labels = json_object()) == NULL ||
	    (e->denied = json_object()) == NULL)
		fatalx("json_object");
	return e;
}

#define EGRESS_DENIALS_MAX	16	/* kept per sandbox */

static void	egress_event(int, int, void *);

/* Is |h| an IP literal (IPv4 dotted digits, or IPv6 with a colon)? */
static int
is_ip_literal(const char *h)
{
	if (strchr(h, ':') != NULL)
		return 1;
	return h[0] != '\0' && strspn(h, "0123456789.") == strlen(h);
}

/*
 * A refused connection: says in its record which manifest key would
 * allow it, and keeps it for egress_denials().  A refusal that names no
 * destination (the connection cap's 429, sent before any request is
 * read) is one no manifest key allows: it is neither.
 */
static void
egress_note_denial(struct egress *e, json_t *j)
{
	const char	*sb = json_string_value(json_object_get(j, "sandbox"));
	const char	*host = json_string_value(json_object_get(j, "host"));
	const char	*addr = json_string_value(json_object_get(j, "address"));
	const char	*who;
	json_t		*label, *list, *d;
	char		 allow[400], dest[300];
	size_t		 n;
	int		 ip;

	if (sb == NULL || host == NULL || host[0] == '\0' ||
	    strcmp(json_string_value(
	    json_object_get(j, "decision")) != NULL ? json_string_value(
	    json_object_get(j, "decision")) : "", "deny") != 0)
		return;
	if ((label = json_object_get(e->labels, sb)) == NULL)
		return;
	/*
	 * A refusal that names an address refused that address (a literal,
	 * or what an allowed name resolved to: private, the machine's own):
	 * only an allowAddresses entry for it allows it, never the name
	 * again in network.
	 */
	if (addr != NULL && addr[0] != '\0')
		host = addr;
	ip = is_ip_literal(host);
	who = json_string_value(json_array_get(label, 1));
	/* "... --allow-host" is given the destination to write. */
	if (who != NULL && (n = strlen(who)) >= 12 &&
	    strcmp(who + n - 12, "--allow-host") == 0)
		snprintf(dest, sizeof(dest), " %s%s%s:%lld",
		    ip && strchr(host, ':') != NULL ? "[" : "", host,
		    ip && strchr(host, ':') != NULL ? "]" : "",
		    (long long)json_integer_value(json_object_get(j, "port")));
	else
		dest[0] = '\0';
	snprintf(allow, sizeof(allow), "%s.%s%s%s%s%s",
	    json_string_value(json_array_get(label, 0)),
	    ip ? "allowAddresses" : "network", who != NULL ? " (" : "",
	    who != NULL ? who : "", dest, who != NULL ? ")" : "");
	json_object_set_new(j, "allowWith", json_string(allow));
	if ((list = json_object_get(e->denied, sb)) == NULL) {
		list = json_array();
		json_object_set_new(e->denied, sb, list);
	}
	if (json_array_size(list) >= EGRESS_DENIALS_MAX)
		return;
	d = json_pack("{s:s, s:O, s:O, s:s}", "host", host, "port",
	    json_object_get(j, "port"), "reason", json_object_get(j, "reason"),
	    "allowWith", allow);
	if (d != NULL)
		json_array_append_new(list, d);
}

void
egress_label(struct egress *e, const char *sandbox, const char *key,
    const char *who)
{
	json_object_set_new(e->labels, sandbox, json_pack("[s, s?]", key,
	    who));
}

json_t *
egress_denials(struct egress *e, const char *sandbox)
{
	json_t *list;

	/* What the proxy has written so far (it writes a refusal first). */
	while (e->pid > 0 && e->ev_watch > 0) {
		struct pollfd pfd = { .fd = e->ev, .events = POLLIN };

		if (poll(&pfd, 1, 0) != 1)
			break;
		egress_event(e->ev, LOOP_READABLE, e);
	}
	list = json_object_get(e->denied, sandbox);
	if (list != NULL)
		json_incref(list);
	json_object_del(e->denied, sandbox);
	json_object_del(e->labels, sandbox);
	return list;
}

/* One connection the proxy reports: into the audit log as it is. */
static void
egress_event(int fd, int why, void *arg)
{
	struct egress	*e = arg;
	const char	*frame;
	size_t		 len;
	json_t		*j;
	int		 rc;

	(void)why;
	if (buf_fill(e->evbuf, fd) <= 0) {
		loop_unwatch(e->loop, e->ev_watch);
		e->ev_watch = 0;
		return;
	}
	while ((rc = buf_next_frame(e->evbuf, &frame, &len)) != 0) {
		if (rc < 0)
			continue;
		if ((j = json_loadb(frame, len, 0, NULL)) == NULL ||
		    !json_is_object(j)) {
			json_decref(j);
			continue;
		}
		egress_note_denial(e, j);
		if (audit_append(e->audit, "egress", j) != 0)
			log_warnx("cannot record an egress event");
		json_decref(j);
		if (e->on_record != NULL)
			e->on_record(e->on_record_arg);
	}
}

void
egress_on_record(struct egress *e, void (*fn)(void *), void *arg)
{
	e->on_record = fn;
	e->on_record_arg = arg;
}

static int
egress_start(struct egress *e, char *err, size_t errlen)
{
	struct proxy_limits	lim;
	char			why[256];
	int			evp[2], rc;

	if (e->pid > 0)
		return 0;
	if (pipe2(evp, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return AL_ERR_SYSTEM;
	}
	proxy_limits_default(&lim);
	if ((e->pid = proxy_spawn(&lim, evp[1], &e->ctl, why,
	    sizeof(why))) < 0) {
		rc = e->pid;
		e->pid = 0;
		close(evp[0]);
		close(evp[1]);
		snprintf(err, errlen, "cannot start the egress proxy: %s", why);
		return rc;
	}
	close(evp[1]);
	e->ev = evp[0];
	if ((e->evbuf = buf_new(EGRESS_EVENT_MAX)) == NULL)
		fatalx("out of memory");
	e->ev_watch = loop_watch(e->loop, e->ev, INT64_MAX, egress_event, e);
	return 0;
}

/* Is the host part of "host:port" an IP literal ("1.2.3.4" or "[v6]")? */
static int
host_is_ip(const char *hostport)
{
	const char	*colon = strrchr(hostport, ':');
	const char	*p;

	if (hostport[0] == '[')
		return 1;
	if (colon == NULL)
		return 0;
	for (p = hostport; p < colon; p++)
		if (!((*p >= '0' && *p <= '9') || *p == '.'))
			return 0;
	return 1;
}

int
egress_attach(struct egress *e, int sock, const char *sandbox,
    const struct net_allow *allow, char *err, size_t errlen)
{
	struct pollfd	  pfd = { .fd = sock, .events = POLLIN };
	const char	**ips;
	char		  msg[8];
	size_t		  len, i, n = 0;
	int		  lfd, rc;

	if ((rc = egress_start(e, err, errlen)) != 0)
		return rc;
	if (poll(&pfd, 1, EGRESS_ATTACH_MS) != 1 ||
	    proxy_recv_fd(sock, &lfd, msg, sizeof(msg), &len) != 1 ||
	    lfd == -1) {
		snprintf(err, errlen, "the sandbox did not hand over its "
		    "proxy listener");
		return AL_ERR_SYSTEM;
	}
	ips = xcalloc(allow->nhosts + 1, sizeof(*ips));
	for (i = 0; i < allow->nhosts; i++)
		if (host_is_ip(allow->hosts[i]))
			ips[n++] = allow->hosts[i];
	rc = proxy_ctl_add(e->ctl, lfd, sandbox,
	    (const char *const *)allow->hosts, ips, err, errlen);
	free(ips);
	close(lfd);
	return rc;
}

void
egress_detach(struct egress *e, const char *sandbox)
{
	if (e->pid > 0)
		(void)proxy_ctl_remove(e->ctl, sandbox);
}

void
egress_env(char ***envp)
{
	char	entries[PROXY_ENV_COUNT][PROXY_ENV_LEN];
	size_t	i;

	proxy_env(RUNNER_PROXY_PORT, entries);
	/* Over any of the same name (an agent.env pass-through). */
	for (i = 0; i < PROXY_ENV_COUNT; i++)
		env_put(envp, entries[i], 1);
}

/* proxy_stop()'s reader of the event pipe: 0 once it is at its end. */
static int
egress_drain(void *arg)
{
	struct egress *e = arg;

	egress_event(e->ev, LOOP_READABLE, e);
	return e->ev_watch > 0;
}

void
egress_free(struct egress *e)
{
	if (e == NULL)
		return;
	if (e->pid > 0) {
		close(e->ctl);
		/* Read meanwhile: its events are recorded; a proxy blocked
		 * on a full pipe would never see SIGTERM. */
		if (proxy_stop(e->pid, e->ev_watch > 0 ? e->ev : -1,
		    egress_drain, e, PROXY_STOP_MS) != 0)
			log_warnx("the egress proxy did not stop: killed");
		if (e->ev_watch > 0)
			loop_unwatch(e->loop, e->ev_watch);
		close(e->ev);
		buf_free(e->evbuf);
	}
	json_decref(e->labels);
	json_decref(e->denied);
	free(e);
}
