/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ifaddrs.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker/denials.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/sensitive.h"
#include "policy/writepolicy.h"
#include "proxy/rules.h"

struct denials {
	struct denial_call calls[DENIALS_CALLS_MAX];
	size_t head; /* the oldest */
	size_t n;
};

struct denials *
denials_new(void)
{
	return xcalloc(1, sizeof(struct denials));
}

static void
call_clear(struct denial_call *dc)
{
	free(dc->key);
	free(dc->tool);
	json_decref(dc->args);
	json_decref(dc->list);
	json_decref(dc->used);
	memset(dc, 0, sizeof(*dc));
}

void
denials_free(struct denials *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < DENIALS_CALLS_MAX; i++)
		call_clear(&d->calls[i]);
	free(d);
}

/* Appends |o| (stolen) numbered d<n+1>, unless the list is full. */
static void
add(json_t *list, json_t *o)
{
	char id[16];

	if (o == NULL)
		fatalx("out of memory building a denial");
	if (json_array_size(list) >= DENIALS_PER_CALL) {
		json_decref(o);
		return;
	}
	snprintf(id, sizeof(id), "d%zu", json_array_size(list) + 1);
	json_object_set_new(o, "denial", json_string(id));
	json_array_append_new(list, o);
}

/* "host:port", with brackets around an IPv6 literal. */
static void
hostport(const char *host, json_int_t port, char *buf, size_t len)
{
	snprintf(buf, len, strchr(host, ':') != NULL ? "[%s]:%lld" : "%s:%lld",
	    host, (long long)port);
}

static void
add_network(json_t *list, json_t *egress)
{
	json_t *e;
	size_t i;
	char hp[300], hint[1024];

	json_array_foreach(egress, i, e)
	{
		const char *host =
		    json_string_value(json_object_get(e, "host"));
		const char *with =
		    json_string_value(json_object_get(e, "allowWith"));
		json_int_t port =
		    json_integer_value(json_object_get(e, "port"));

		if (host == NULL)
			continue;
		hostport(host, port, hp, sizeof(hp));
		snprintf(hint, sizeof(hint),
		    "the egress proxy refused %s "
		    "(not allowed); to allow it add \"%s\" to %s in the "
		    "manifest",
		    hp, hp,
		    with != NULL ? with
				 : "the tool's "
				   "network");
		add(list,
		    json_pack("{s:s, s:s, s:s, s:I, s:s?, s:s}", "layer",
			"network", "source", "proxy", "host", host, "port",
			port, "allowWith", with, "hint", hint));
	}
}

/* The manifest key that raises limit |name| (runner_denial.limit). */
static const char *
limit_key(const char *name)
{
	static const struct {
		const char *limit, *key;
	} keys[] = {
		{ "memory", "sandbox.limits.memoryMb" },
		{ "processes", "sandbox.limits.processes" },
		{ "cpu", "sandbox.limits.cpuSeconds" },
		{ "fileSize", "sandbox.limits.fileSizeMb" },
		{ "wallClock", "the tool's timeoutMs" },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].limit, name) == 0)
			return keys[i].key;
	return NULL;
}

static void
add_runner(json_t *list, const struct runner_result *res)
{
	char hint[PATH_MAX + 256];
	size_t i;

	for (i = 0; i < res->ndenials && i < RUNNER_DENIALS_MAX; i++) {
		const struct runner_denial *rd = &res->denials[i];

		switch (rd->layer) {
		case RUNNER_DENY_FS:
			/*
			 * The path is what the command's error line named:
			 * the agent's bytes.  One that is not UTF-8 cannot be
			 * a JSON string (nor a manifest's path): json_pack()
			 * failed and add() stopped the broker, so a script
			 * printing "touch: cannot touch '/opt/\xff':
			 * Read-only file system" ended the session at will,
			 * its last batch unwritten.  It is no denial.
			 */
			if (!utf8_valid(rd->path, strlen(rd->path)))
				break;
			if (strcmp(rd->access, "write") == 0)
				snprintf(hint, sizeof(hint),
				    "the sandbox (%s) "
				    "refused writing %s; no manifest key allows "
				    "a write outside the workspace: only a "
				    "one-call escalation or airlock exec --rw",
				    rd->source, rd->path);
			else
				snprintf(hint, sizeof(hint),
				    "the sandbox (%s) "
				    "refused %s %s; to allow it add \"%s\" to "
				    "sandbox.readOnly in the manifest",
				    rd->source,
				    strcmp(rd->access, "exec") == 0
					? "executing"
					: "reading",
				    rd->path, rd->path);
			add(list,
			    json_pack("{s:s, s:s, s:s, s:s, s:s}", "layer",
				"filesystem", "source", rd->source, "path",
				rd->path, "access", rd->access, "hint", hint));
			break;
		case RUNNER_DENY_SYSCALL:
			snprintf(hint, sizeof(hint),
			    "seccomp refused the "
			    "syscall %s (nr %d); to allow it add %s to "
			    "sandbox.allowSyscalls in the manifest",
			    rd->syscall, rd->nr, rd->syscall);
			add(list,
			    json_pack("{s:s, s:s, s:s, s:i, s:s}", "layer",
				"syscall", "source", rd->source, "syscall",
				rd->syscall, "nr", rd->nr, "hint", hint));
			break;
		case RUNNER_DENY_LIMIT:
			snprintf(hint, sizeof(hint),
			    "the %s limit (%lld) was "
			    "reached (%s); to raise it set %s in the manifest",
			    rd->limit, rd->value, rd->source,
			    limit_key(rd->limit) != NULL ? limit_key(rd->limit)
							 : "sandbox.limits");
			add(list,
			    json_pack("{s:s, s:s, s:s, s:I, s:s}", "layer",
				"limit", "source", rd->source, "limit",
				rd->limit, "value", (json_int_t)rd->value,
				"hint", hint));
			break;
		}
	}
}

json_t *
denials_build(json_t *egress, const struct runner_result *res)
{
	json_t *list = json_array();

	if (list == NULL)
		fatalx("json_array");
	if (res != NULL)
		add_runner(list, res);
	if (egress != NULL)
		add_network(list, egress);
	if (json_array_size(list) == 0) {
		json_decref(list);
		return NULL;
	}
	return list;
}

/* The call id as canonical JSON: 1 and "1" are different ids. */
static char *
id_key(json_t *id)
{
	char *k = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);

	if (k == NULL)
		fatalx("json_dumps");
	return k;
}

struct denial_call *
denials_find(struct denials *d, json_t *id)
{
	char *k;
	size_t i;
	struct denial_call *found = NULL;

	if (id == NULL || !(json_is_string(id) || json_is_integer(id)))
		return NULL;
	k = id_key(id);
	for (i = 0; i < d->n; i++) {
		struct denial_call *dc =
		    &d->calls[(d->head + i) % DENIALS_CALLS_MAX];

		if (strcmp(dc->key, k) == 0)
			found = dc;
	}
	free(k);
	return found;
}

void
denials_remember(
    struct denials *d, json_t *id, const char *tool, json_t *args, json_t *list)
{
	struct denial_call *dc;

	if ((dc = denials_find(d, id)) != NULL)
		call_clear(dc);
	else if (d->n == DENIALS_CALLS_MAX) {
		dc = &d->calls[d->head];
		call_clear(dc);
		d->head = (d->head + 1) % DENIALS_CALLS_MAX;
	} else
		dc = &d->calls[(d->head + d->n++) % DENIALS_CALLS_MAX];
	dc->key = id_key(id);
	dc->tool = xstrdup(tool);
	if ((dc->args = json_deep_copy(args)) == NULL ||
	    (dc->list = json_deep_copy(list)) == NULL ||
	    (dc->used = json_object()) == NULL)
		fatalx("out of memory remembering a denial");
}

json_t *
denial_call_get(const struct denial_call *dc, const char *did)
{
	json_t *v;
	size_t i;

	json_array_foreach(dc->list, i, v)
	{
		const char *s = json_string_value(json_object_get(v, "denial"));

		if (s != NULL && strcmp(s, did) == 0)
			return v;
	}
	return NULL;
}

/* The string |key| of |v|, or "?": never NULL. */
static const char *
str(json_t *v, const char *key)
{
	const char *s = json_string_value(json_object_get(v, key));

	return s != NULL ? s : "?";
}

/* What one denial was about, in a few words. */
static void
what(json_t *v, char *buf, size_t len)
{
	const char *layer = str(v, "layer");
	char hp[300];

	if (strcmp(layer, "network") == 0) {
		hostport(str(v, "host"),
		    json_integer_value(json_object_get(v, "port")), hp,
		    sizeof(hp));
		snprintf(buf, len, "network %s", hp);
	} else if (strcmp(layer, "filesystem") == 0)
		snprintf(buf, len, "%s %s", str(v, "access"), str(v, "path"));
	else if (strcmp(layer, "syscall") == 0)
		snprintf(buf, len, "syscall %s", str(v, "syscall"));
	else
		snprintf(buf, len, "limit %s (%lld)", str(v, "limit"),
		    (long long)json_integer_value(json_object_get(v, "value")));
}

void
denials_summary(json_t *list, char *buf, size_t len)
{
	json_t *v;
	size_t i, off = 0;
	char w[400];

	buf[0] = '\0';
	json_array_foreach(list, i, v)
	{
		int n;

		what(v, w, sizeof(w));
		n = snprintf(buf + off, len - off, "%s%s (%s)", i ? ", " : "",
		    w, str(v, "denial"));
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += n;
	}
}

/* Is |path| |dir| or beneath it? */
static int
beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

/*
 * The protected class: what no escalation may open, whatever the
 * manifest says.  A path that is not absolute and clean counts too.
 */
static int
path_protected_as_named(
    const struct manifest *m, const char *workspace, const char *path)
{
	char why[128];
	size_t i;

	if (path == NULL || path[0] != '/' || path_has_components(path, "..") ||
	    path_has_components(path, "."))
		return 1;
	if (path_has_components(path, ".git") ||
	    sensitive_forbidden(path, m->sandbox.deny_read,
		m->sandbox.ndeny_read, why, sizeof(why)) != NULL)
		return 1;
	if (workspace != NULL && beneath(path, workspace)) {
		const char *rel = path + strlen(workspace);

		while (*rel == '/')
			rel++;
		for (i = 0; i < m->sandbox.nprotected; i++) {
			const char *p = m->sandbox.protected[i];

			if (fnmatch(p, rel, 0) == 0 || beneath(rel, p))
				return 1;
		}
	}
	return 0;
}

/* Is |dir|, as named or as it resolves, strictly beneath |p|? */
static int
holds_dir(const char *p, const char *dir)
{
	char real[PATH_MAX];

	if (strcmp(p, "/") == 0)
		return 1;
	if (strcmp(p, dir) != 0 && beneath(dir, p))
		return 1;
	return realpath(dir, real) != NULL && strcmp(p, real) != 0 &&
	    beneath(real, p);
}

/*
 * A bind follows symlinks: the path as named and, when it resolves, what
 * it resolves to (a link to ~/.ssh is the store itself).  A path that
 * cannot be resolved for another reason than its absence is protected.
 * A bind is of a whole tree: a directory holding something protected
 * (sensitive_tree(): a credential store at any depth, a denyRead path,
 * airlock's own directories, a socket...) or the workspace is protected.
 */
static int
path_protected(
    const struct manifest *m, const char *workspace, const char *path)
{
	char real[PATH_MAX];

	if (path_protected_as_named(m, workspace, path))
		return 1;
	if (realpath(path, real) == NULL)
		return errno != ENOENT && errno != ENOTDIR;
	if (strcmp(real, path) != 0 &&
	    path_protected_as_named(m, workspace, real))
		return 1;
	/* A bind is of the whole tree: what it holds counts too (a home
	 * directory holds its ~/.ssh, a parent of the workspace its .git). */
	if (workspace != NULL &&
	    (holds_dir(real, workspace) || holds_dir(path, workspace)))
		return 1;
	return sensitive_tree(
		   real, m->sandbox.deny_read, m->sandbox.ndeny_read) != NULL;
}

int
denials_metadata(json_t *d)
{
	const char *host = json_string_value(json_object_get(d, "host"));
	unsigned char addr[16];
	int family;

	if (host == NULL)
		return 0;
	if (rules_parse_literal(host, &family, addr) != 0)
		return 0;
	return rules_classify(family, addr, NULL, 0) == ADDR_METADATA;
}

/* Is |addr| (|family|) one of this machine's interfaces' addresses? */
static int
addr_is_local(int family, const unsigned char *addr)
{
	struct ifaddrs *ifa, *i;
	const unsigned char *a;
	int found = 0;

	if (getifaddrs(&ifa) == -1)
		return 0;
	for (i = ifa; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != family)
			continue;
		if (family == AF_INET)
			a = (const unsigned char *)&(
			    (struct sockaddr_in *)(void *)i->ifa_addr)
				->sin_addr;
		else
			a = (const unsigned char *)&(
			    (struct sockaddr_in6 *)(void *)i->ifa_addr)
				->sin6_addr;
		found = memcmp(a, addr, family == AF_INET ? 4 : 16) == 0;
	}
	freeifaddrs(ifa);
	return found;
}

/* Whether a user's home directory (the passwd database's) is |p| or
 * beneath it. */
static int
holds_home(const char *p)
{
	struct passwd *pw;
	int found = 0;

	setpwent();
	while (!found && (pw = getpwent()) != NULL)
		found = pw->pw_dir != NULL && pw->pw_dir[0] == '/' &&
		    strcmp(pw->pw_dir, "/") != 0 &&
		    (strcmp(p, pw->pw_dir) == 0 || holds_dir(p, pw->pw_dir));
	endpwent();
	return found;
}

/*
 * What at |p|, a path a run may write, runs as code at someone's next
 * ordinary action, outside any sandbox (writepolicy_runs_on()), into
 * desc[0..desclen): 1, or 0 when nothing does.  A file the table names,
 * a directory a tool reads such a file beneath (.vscode), a directory
 * holding one of its plain names (.bashrc), or a home directory or one
 * above it (where the run makes ~/.bashrc).  Only the table's words go
 * into |desc|: |p| is the agent's.
 */
static int
runs_at(const char *p, char *desc, size_t desclen)
{
	const char *runs, *name;
	struct stat st;
	size_t i;
	int dfd, found = 0;

	if ((runs = writepolicy_runs_on(p)) != NULL) {
		snprintf(desc, desclen, "RUNS ON %s", runs);
		return 1;
	}
	if ((runs = writepolicy_runs_on_beneath(p)) != NULL) {
		snprintf(desc, desclen, "beneath it, RUNS ON %s", runs);
		return 1;
	}
	if (stat(p, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	if (holds_home(p)) {
		snprintf(desc, desclen,
		    "a home directory, or one holding homes: the run may make "
		    "a shell's start-up files (.bashrc, .profile, .zshrc), "
		    "which that user's next shell runs");
		return 1;
	}
	if ((dfd = open(p, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC)) ==
	    -1)
		return 0;
	for (i = 0;
	     !found && (name = writepolicy_runs_on_name(i, &runs)) != NULL; i++)
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			snprintf(desc, desclen, "it holds %s: RUNS ON %s", name,
			    runs);
			found = 1;
		}
	close(dfd);
	return found;
}

/* A filesystem write widening's warning (denials_warning()). */
static const char *
write_warning(json_t *d, char *desc, size_t desclen)
{
	const char *access = json_string_value(json_object_get(d, "access"));
	const char *path = json_string_value(json_object_get(d, "path"));
	const char *resolved =
	    json_string_value(json_object_get(d, "resolved"));
	char real[PATH_MAX];

	if (access == NULL || strcmp(access, "write") != 0 || path == NULL)
		return NULL;
	/* The bind follows links: the path as named, and where it leads. */
	if (runs_at(path, desc, desclen) ||
	    (resolved != NULL && runs_at(resolved, desc, desclen)) ||
	    (realpath(path, real) != NULL && runs_at(real, desc, desclen)))
		return "WRITES WHAT RUNS LATER, OUTSIDE ANY SANDBOX";
	return NULL;
}

/*
 * A yes opened 127.0.0.1:2375 (a Docker API: root on the host) or
 * 169.254.169.254 (the instance's cloud credentials) shown as one more
 * "network HOST port P" line; and a write of ~/.bashrc shown as one
 * more "read-write PATH" line, which bash ran at the person's next
 * shell, outside any sandbox.
 */
const char *
denials_warning(json_t *d, char *desc, size_t desclen)
{
	const char *host = json_string_value(json_object_get(d, "host"));
	const char *layer = json_string_value(json_object_get(d, "layer"));
	unsigned char addr[16];
	enum addr_class c;
	int family;

	if (desclen > 0)
		desc[0] = '\0';
	if (layer != NULL && strcmp(layer, "filesystem") == 0)
		return write_warning(d, desc, desclen);
	if (host == NULL || layer == NULL || strcmp(layer, "network") != 0)
		return NULL;
	if (rules_parse_literal(host, &family, addr) != 0)
		return NULL;
	c = rules_classify(family, addr, desc, desclen);
	if (c == ADDR_METADATA)
		return "WIDENS TO CLOUD METADATA (this machine's cloud "
		       "credentials)";
	if (c == ADDR_LOOPBACK || c == ADDR_UNSPECIFIED ||
	    c == ADDR_THIS_NETWORK)
		return "WIDENS TO THIS MACHINE'S SERVICES";
	if (addr_is_local(family, addr)) {
		snprintf(desc, desclen, "an address of this machine");
		return "WIDENS TO THIS MACHINE'S SERVICES";
	}
	if (c != ADDR_PUBLIC)
		return "WIDENS TO THE LOCAL NETWORK'S SERVICES";
	return NULL;
}

json_t *
denials_warnings(json_t *w)
{
	char desc[RULES_REASON_MAX], *line;
	const char *warn, *id;
	json_t *out = json_array(), *d;
	size_t i;

	if (out == NULL)
		fatalx("json_array");
	json_array_foreach(w, i, d)
	{
		if ((warn = denials_warning(d, desc, sizeof(desc))) == NULL)
			continue;
		id = json_string_value(json_object_get(d, "denial"));
		if (json_object_get(d, "host") == NULL)
			xasprintf(&line, "%s %s: %s", id != NULL ? id : "?",
			    warn, desc);
		else
			xasprintf(&line, "%s %s: %s port %lld is %s",
			    id != NULL ? id : "?", warn,
			    json_string_value(json_object_get(d, "host")),
			    (long long)json_integer_value(
				json_object_get(d, "port")),
			    desc);
		/* ASCII: an IP literal, airlock's denial id and words (a
		 * path's warning names none of it). */
		if (json_array_append_new(out, json_string(line)) != 0)
			fatalx("json_array_append_new");
		free(line);
	}
	return out;
}

unsigned
denials_class(const struct manifest *m, const char *workspace, json_t *d)
{
	const char *layer = json_string_value(json_object_get(d, "layer"));
	const char *access = json_string_value(json_object_get(d, "access"));

	if (layer == NULL)
		return ESCALATE_CLASS_PROTECTED;
	/* The cloud's metadata service hands out the machine's own
	 * credentials: a credential store, never widened to. */
	if (strcmp(layer, "network") == 0)
		return denials_metadata(d) ? ESCALATE_CLASS_PROTECTED
					   : ESCALATE_CLASS_NETWORK;
	if (strcmp(layer, "syscall") == 0)
		return ESCALATE_CLASS_SYSCALL;
	if (strcmp(layer, "limit") == 0)
		return ESCALATE_CLASS_LIMIT;
	if (strcmp(layer, "filesystem") != 0 || access == NULL)
		return ESCALATE_CLASS_PROTECTED;
	if (path_protected(
		m, workspace, json_string_value(json_object_get(d, "path"))))
		return ESCALATE_CLASS_PROTECTED;
	return strcmp(access, "write") == 0 ? ESCALATE_CLASS_WRITE
					    : ESCALATE_CLASS_READ;
}
