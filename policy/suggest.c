/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * suggest: denials -> manifest changes.  See suggest.h.  Every denial
 * becomes a reference (call id, denial id) on one value of one entry; an
 * entry is one manifest key (or one kind of note), so the output has one
 * change per key with each value once, whatever the number of denials.
 */
#include "config.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/strlist.h"
#include "policy/seccomp_policy.h"
#include "policy/sensitive.h"
#include "policy/suggest.h"
#include "policy/yamledit.h"
#include "proxy/rules.h"

#define SUGGEST_MAX_ENTRIES 256
#define SUGGEST_MAX_VALUES 256
#define SUGGEST_MAX_REFS 64
#define SUGGEST_MAX_RUNNERS 4096 /* running at once */
#define SUGGEST_MAX_REQUESTS (1 << 20) /* calls numbered in one log */

struct sref {
	char *call;
	char *denial; /* "d1", or "" (an egress record) */
};

struct sval {
	char *value; /* list item, or the note's subject */
	long long num; /* limit in force (RAISE) */
	char *weak; /* why it weakens, or NULL */
	struct sref refs[SUGGEST_MAX_REFS];
	size_t nrefs;
	size_t nmore; /* refs past the cap */
};

struct sentry {
	enum suggest_kind kind;
	char layer[16];
	char *key;
	char *path[8];
	size_t npath;
	char *tool;
	const char *what; /* "read", "connect to", ... */
	struct sval vals[SUGGEST_MAX_VALUES];
	size_t nvals;
};

struct runner {
	char *call, *tool, *check;
};

struct escal {
	char *call, *approval, *outcome;
};

struct planner {
	const struct suggest_ctx *ctx;
	char **req; /* call id of each request */
	size_t nreq, capreq;
	struct sentry *e[SUGGEST_MAX_ENTRIES];
	size_t ne;
	struct runner *run;
	size_t nrun, caprun;
	struct escal *esc;
	size_t nesc, capesc;
	size_t denials;
	size_t dropped;
	int oom;
	char *err;
	size_t errlen;
};

static const char *const bad_syscalls[] = { "ptrace", "bpf", "mount", "umount",
	"umount2", "move_mount", "fsmount", "fsopen", "open_tree", "pivot_root",
	"keyctl", "add_key", "request_key", "init_module", "finit_module",
	"delete_module", "perf_event_open", "userfaultfd", "unshare", "setns",
	"process_vm_readv", "process_vm_writev", "iopl", "ioperm", "swapon",
	"swapoff", "reboot", "pidfd_getfd", "kcmp", "quotactl_fd", "nfsservctl",
	"fanotify_init", NULL };

/* The runner's limit names -> sandbox.limits keys. */
static const struct {
	const char *name, *key, *unit;
} limit_keys[] = { { "memory", "memoryMb", "MB" },
	{ "processes", "processes", "processes" }, { "cpu", "cpuSeconds", "s" },
	{ "fileSize", "fileSizeMb", "MB" }, { "wallClock", "timeoutMs", "ms" },
	{ NULL, NULL, NULL } };

static char *
pstrdup(struct planner *pl, const char *s)
{
	char *d;

	if ((d = strdup(s != NULL ? s : "")) == NULL)
		pl->oom = 1;
	return d;
}

static int fail(struct planner *pl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(struct planner *pl, const char *fmt, ...)
{
	va_list ap;

	if (pl->err != NULL && pl->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(pl->err, pl->errlen, fmt, ap);
		va_end(ap);
	}
	return AL_ERR_FORMAT;
}

/* A call id (the JSON-RPC id: number or string) as text. */
static char *
call_text(struct planner *pl, json_t *id)
{
	char buf[64], *s;

	if (json_is_string(id))
		return pstrdup(pl, json_string_value(id));
	if (json_is_integer(id)) {
		snprintf(buf, sizeof(buf), "%lld",
		    (long long)json_integer_value(id));
		return pstrdup(pl, buf);
	}
	if (id == NULL)
		return pstrdup(pl, "?");
	if ((s = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY)) == NULL)
		pl->oom = 1;
	return s;
}

static int
path_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return p[0] == '/';
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* |p| is |dir|, beneath it, or one of its parents. */
static int
path_overlaps(const char *p, const char *dir)
{
	return path_under(p, dir) || path_under(dir, p);
}

/* Why reading |p|, as named, weakens a protected class, or NULL. */
static char *
read_weakens_named(struct planner *pl, const char *p)
{
	const struct suggest_ctx *c = pl->ctx;
	char buf[4600], what[128];
	size_t i;

	if (sensitive_path(p, what, sizeof(what)) != NULL) {
		snprintf(buf, sizeof(buf), "%s is in %s", p, what);
		return pstrdup(pl, buf);
	}
	if (c->home != NULL && c->home[0] == '/' && path_under(c->home, p)) {
		snprintf(buf, sizeof(buf),
		    "%s holds the home directory %s "
		    "and its credential stores",
		    p, c->home);
		return pstrdup(pl, buf);
	}
	if (path_has_components(p, ".git")) {
		snprintf(buf, sizeof(buf), "%s is in a .git directory", p);
		return pstrdup(pl, buf);
	}
	for (i = 0; i < c->ndeny_read; i++)
		if (c->deny_read[i][0] == '/' &&
		    path_overlaps(p, c->deny_read[i])) {
			snprintf(buf, sizeof(buf),
			    "%s overlaps "
			    "sandbox.denyRead %s",
			    p, c->deny_read[i]);
			return pstrdup(pl, buf);
		}
	for (i = 0; i < c->nstate_dirs; i++)
		if (path_overlaps(p, c->state_dirs[i])) {
			snprintf(buf, sizeof(buf),
			    "%s overlaps airlock's own "
			    "directory %s",
			    p, c->state_dirs[i]);
			return pstrdup(pl, buf);
		}
	if (c->workspace != NULL && path_under(p, c->workspace)) {
		size_t wl = strlen(c->workspace);
		const char *rel = p[wl] == '/' ? p + wl + 1 : "";

		for (i = 0; i < c->nprotected; i++)
			if (fnmatch(c->protected[i], rel,
				FNM_PATHNAME | FNM_LEADING_DIR) == 0 ||
			    path_overlaps(rel, c->protected[i])) {
				snprintf(buf, sizeof(buf),
				    "%s is the "
				    "protected path %s",
				    p, c->protected[i]);
				return pstrdup(pl, buf);
			}
	}
	/* A parent of the workspace or of / itself holds .git too. */
	if (c->workspace != NULL && path_under(c->workspace, p) &&
	    strcmp(c->workspace, p) != 0) {
		snprintf(buf, sizeof(buf),
		    "%s holds the workspace and its "
		    ".git",
		    p);
		return pstrdup(pl, buf);
	}
	return NULL;
}

/*
 * Why reading |p| weakens a protected class, or NULL: as named, as it
 * resolves now (a bind follows symbolic links: a link to ~/.ssh is the
 * store), and where the agent can make it resolve elsewhere later (its
 * own home, on the host).
 */
static char *
read_weakens(struct planner *pl, const char *p)
{
	const struct suggest_ctx *c = pl->ctx;
	char real[PATH_MAX], buf[4600], *why;
	const char *tree;

	if ((why = read_weakens_named(pl, p)) != NULL)
		return why;
	if (realpath(p, real) != NULL && strcmp(real, p) != 0 &&
	    (why = read_weakens_named(pl, real)) != NULL) {
		snprintf(buf, sizeof(buf), "%s leads to %s: %s", p, real, why);
		free(why);
		return pstrdup(pl, buf);
	}
	/* As an escalation's protected class: a bind still connects. */
	if (!sensitive_plain_tree(p)) {
		snprintf(buf, sizeof(buf),
		    "%s is or holds a socket, device or FIFO, which a "
		    "read-only bind still lets the runner use (or holds more "
		    "than %d entries, or cannot be read whole, to tell)",
		    p, SENSITIVE_PLAIN_MAX);
		return pstrdup(pl, buf);
	}
	/*
	 * A bind is of the whole tree, as an escalation's protected class
	 * has it: a credential store at any depth (a CI box's
	 * /srv/ci/deploy/.ssh), a denyRead path or airlock's own directories
	 * beneath it are bound with it, not only in $HOME.
	 */
	if ((tree = sensitive_tree(realpath(p, real) != NULL ? real : p,
		 (char *const *)c->deny_read, c->ndeny_read)) != NULL) {
		snprintf(buf, sizeof(buf),
		    "%s %s, which a read-only bind of it opens too", p, tree);
		return pstrdup(pl, buf);
	}
	if (c->agent_home != NULL && c->agent_home[0] == '/' &&
	    path_overlaps(p, c->agent_home)) {
		snprintf(buf, sizeof(buf),
		    "%s is in the agent's home %s, which the agent writes: a "
		    "link it makes there leads the bind anywhere",
		    p, c->agent_home);
		return pstrdup(pl, buf);
	}
	return NULL;
}

/*
 * Why connecting to |host| weakens a protected class, or NULL: an IP
 * literal of a class the egress proxy refuses unless allowAddresses
 * names it (rules_classify(): loopback, private, link-local, the cloud's
 * metadata...).  An agent reaches such an address from its tool just to
 * be refused, and the suggestion proposed 169.254.169.254:80 (the
 * instance's credentials) or 127.0.0.1:2375 (a host's Docker API)
 * plain, which --apply wrote without --allow-weakening.
 */
static char *
net_weakens(struct planner *pl, const char *host)
{
	unsigned char addr[16];
	char desc[RULES_REASON_MAX], buf[RULES_REASON_MAX + 512];
	int family;

	if (rules_parse_literal(host, &family, addr) != 0)
		return NULL;
	if (rules_classify(family, addr, desc, sizeof(desc)) == ADDR_PUBLIC)
		return NULL;
	snprintf(buf, sizeof(buf),
	    "%s is a %s address, which only allowAddresses opens", host, desc);
	return pstrdup(pl, buf);
}

static char *
syscall_weakens(struct planner *pl, const char *s)
{
	char buf[128];

	/* And every one the default profile refuses outright: each is
	   there for what it opens (mount_setattr as mount, io_uring...). */
	if (!str_in_list(s, bad_syscalls) &&
	    !str_in_list(s, seccomp_denied_syscalls) &&
	    strncmp(s, "kexec", 5) != 0)
		return NULL;
	snprintf(buf, sizeof(buf), "%s is a dangerous system call", s);
	return pstrdup(pl, buf);
}

/* The entry for (kind, key, tool), made if new. */
static struct sentry *
entry_get(struct planner *pl, enum suggest_kind kind, const char *layer,
    const char *key, const char *const *path, size_t npath, const char *tool,
    const char *what)
{
	struct sentry *e;
	size_t i;

	for (i = 0; i < pl->ne; i++) {
		e = pl->e[i];
		if (e->kind == kind && strcmp(e->key, key) == 0 &&
		    strcmp(e->what, what) == 0 &&
		    ((e->tool == NULL && tool == NULL) ||
			(e->tool != NULL && tool != NULL &&
			    strcmp(e->tool, tool) == 0)))
			return e;
	}
	if (pl->ne == SUGGEST_MAX_ENTRIES)
		return NULL;
	if ((e = calloc(1, sizeof(*e))) == NULL) {
		pl->oom = 1;
		return NULL;
	}
	e->kind = kind;
	snprintf(e->layer, sizeof(e->layer), "%s", layer);
	e->key = pstrdup(pl, key);
	for (i = 0; i < npath && i < 8; i++)
		e->path[i] = pstrdup(pl, path[i]);
	e->npath = i;
	e->tool = tool != NULL ? pstrdup(pl, tool) : NULL;
	e->what = what;
	pl->e[pl->ne++] = e;
	return e;
}

/* Adds a reference to |value| of |e| (made if new). */
static struct sval *
entry_ref(struct planner *pl, struct sentry *e, const char *value,
    const char *call, const char *denial)
{
	struct sval *v = NULL;
	size_t i;

	if (e == NULL) {
		if (!pl->oom) {
			pl->dropped++;
			pl->denials++;
		}
		return NULL;
	}
	for (i = 0; i < e->nvals; i++)
		if (strcmp(e->vals[i].value, value) == 0)
			v = &e->vals[i];
	if (v == NULL) {
		if (e->nvals == SUGGEST_MAX_VALUES) {
			pl->dropped++;
			pl->denials++;
			return NULL;
		}
		v = &e->vals[e->nvals++];
		v->value = pstrdup(pl, value);
	}
	/*
	 * One refusal, however many records say so: the same (call, id)
	 * again (an escalation naming it), or the egress proxy's record
	 * (no id) and the broker's (with one) of the same call.
	 */
	for (i = 0; i < v->nrefs; i++) {
		if (strcmp(v->refs[i].call, call) != 0)
			continue;
		if (strcmp(v->refs[i].denial, denial) == 0 || denial[0] == '\0')
			return v;
		if (v->refs[i].denial[0] == '\0') {
			free(v->refs[i].denial);
			v->refs[i].denial = pstrdup(pl, denial);
			return v;
		}
	}
	pl->denials++;
	if (v->nrefs == SUGGEST_MAX_REFS) {
		v->nmore++;
		return v;
	}
	v->refs[v->nrefs].call = pstrdup(pl, call);
	v->refs[v->nrefs].denial = pstrdup(pl, denial);
	v->nrefs++;
	return v;
}

static const char *
str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/*
 * Splits an allowWith ("tools[1].network (tool fetch)", "checks.a.b.
 * network", "agent.allowAddresses") into YAML path components and the
 * tool's name.  Returns the number of components, or 0 if malformed.
 */
static size_t
split_allow(const char *allow, char *buf, size_t buflen, char **comp,
    char *tool, size_t toollen)
{
	char *leaf, *paren, *p;
	size_t n = 0;

	tool[0] = '\0';
	if (snprintf(buf, buflen, "%s", allow) >= (int)buflen)
		return 0;
	if ((paren = strstr(buf, " (")) != NULL) {
		*paren = '\0';
		if (strncmp(paren + 2, "tool ", 5) == 0) {
			snprintf(tool, toollen, "%s", paren + 7);
			tool[strcspn(tool, ")")] = '\0';
		}
	}
	if ((leaf = strrchr(buf, '.')) == NULL ||
	    (strcmp(leaf + 1, "network") != 0 &&
		strcmp(leaf + 1, "allowAddresses") != 0))
		return 0;
	*leaf++ = '\0';
	if (strncmp(buf, "tools[", 6) == 0 && (p = strchr(buf, ']')) != NULL &&
	    p[1] == '\0') {
		static char idx[32];

		snprintf(idx, sizeof(idx), "%s", buf + 5);
		comp[n++] = "tools";
		comp[n++] = idx;
	} else if (strncmp(buf, "checks.", 7) == 0 && buf[7] != '\0') {
		comp[n++] = "checks";
		comp[n++] = buf + 7;
	} else if (strcmp(buf, "agent") == 0) {
		comp[n++] = "agent";
	} else
		return 0;
	comp[n++] = leaf;
	return n;
}

/*
 * The call of the latest running runner of |tool| (or check), or "?":
 * for an egress record whose "sandbox" names no call.
 */
static const char *
runner_call(struct planner *pl, const char *tool, const char *check)
{
	size_t i;

	for (i = pl->nrun; i-- > 0;) {
		struct runner *r = &pl->run[i];

		if ((tool != NULL && strcmp(r->tool, tool) == 0) ||
		    (check != NULL && r->check != NULL &&
			strcmp(r->check, check) == 0))
			return r->call;
	}
	return "?";
}

/* One denial object in the contract's form, of call |call|. */
static int
add_denial(struct planner *pl, json_t *d, const char *call, const char *tool)
{
	const char *layer = str(d, "layer"), *denial = str(d, "denial");
	char vbuf[4200];
	struct sentry *e;
	struct sval *v;

	if (denial == NULL)
		denial = "";
	if (tool == NULL)
		tool = str(d, "tool");
	if (strcmp(layer, "filesystem") == 0) {
		const char *p = str(d, "path"), *acc = str(d, "access");
		static const char *const ro[] = { "sandbox", "readOnly" };

		if (p == NULL || p[0] != '/' || acc == NULL)
			return fail(pl,
			    "call %s: a filesystem denial needs an "
			    "absolute \"path\" and an \"access\"",
			    call);
		if (strcmp(acc, "write") == 0) {
			e = entry_get(pl, SUGGEST_NOTE, layer, "write", NULL, 0,
			    NULL, "write");
			entry_ref(pl, e, p, call, denial);
			return 0;
		}
		if (strcmp(acc, "read") != 0 && strcmp(acc, "exec") != 0)
			return fail(
			    pl, "call %s: unknown access \"%s\"", call, acc);
		e = entry_get(pl, SUGGEST_ADD, layer, "sandbox.readOnly", ro, 2,
		    NULL, "read");
		if ((v = entry_ref(pl, e, p, call, denial)) != NULL &&
		    v->weak == NULL)
			v->weak = read_weakens(pl, p);
		return 0;
	}
	if (strcmp(layer, "network") == 0) {
		const char *host = str(d, "host"), *allow = str(d, "allowWith");
		json_t *port = json_object_get(d, "port");
		char buf[512], tbuf[128], *comp[4], synth[256];
		const char *const *cp = (const char *const *)comp;
		size_t n;

		/* No key named: the tool's own, found by its name. */
		if (allow == NULL && tool != NULL && host != NULL) {
			snprintf(synth, sizeof(synth), "tools[?].%s (tool %s)",
			    strspn(host, "0123456789.") == strlen(host) ||
				    strchr(host, ':') != NULL
				? "allowAddresses"
				: "network",
			    tool);
			allow = synth;
		}
		if (host == NULL || !json_is_integer(port) || allow == NULL ||
		    (n = split_allow(allow, buf, sizeof(buf), comp, tbuf,
			 sizeof(tbuf))) == 0)
			return fail(pl,
			    "call %s: a network denial needs "
			    "\"host\", \"port\" and an \"allowWith\" naming a "
			    "network or allowAddresses key",
			    call);
		snprintf(vbuf, sizeof(vbuf), "%s%s%s:%lld",
		    strchr(host, ':') != NULL ? "[" : "", host,
		    strchr(host, ':') != NULL ? "]" : "",
		    (long long)json_integer_value(port));
		{
			char key[512];

			snprintf(key, sizeof(key), "%s", allow);
			key[strcspn(key, " ")] = '\0';
			if (tbuf[0] == '\0' && tool != NULL &&
			    strcmp(comp[0], "tools") == 0)
				snprintf(tbuf, sizeof(tbuf), "%s", tool);
			if (strncmp(key, "tools[?]", 8) == 0)
				snprintf(key, sizeof(key), "tools[%s].%s", tbuf,
				    comp[n - 1]);
			e = entry_get(pl, SUGGEST_ADD, layer, key, cp, n,
			    tbuf[0] != '\0' ? tbuf : NULL, "connections to");
		}
		if ((v = entry_ref(pl, e, vbuf, call, denial)) != NULL &&
		    v->weak == NULL)
			v->weak = net_weakens(pl, host);
		return 0;
	}
	if (strcmp(layer, "syscall") == 0) {
		const char *s = str(d, "syscall");
		static const char *const sc[] = { "sandbox", "allowSyscalls" };

		if (s == NULL || s[0] == '\0' ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
			strlen(s))
			return fail(pl,
			    "call %s: a syscall denial needs a "
			    "\"syscall\" name",
			    call);
		e = entry_get(pl, SUGGEST_ADD, layer, "sandbox.allowSyscalls",
		    sc, 2, NULL, "the system call");
		if ((v = entry_ref(pl, e, s, call, denial)) != NULL &&
		    v->weak == NULL)
			v->weak = syscall_weakens(pl, s);
		return 0;
	}
	if (strcmp(layer, "limit") == 0) {
		const char *l = str(d, "limit");
		json_t *val = json_object_get(d, "value");
		char key[256];
		size_t i;

		for (i = 0; l != NULL && limit_keys[i].name != NULL; i++)
			if (strcmp(limit_keys[i].name, l) == 0)
				break;
		if (l == NULL || limit_keys[i].name == NULL ||
		    !json_is_integer(val) || json_integer_value(val) <= 0 ||
		    json_integer_value(val) > (1LL << 40))
			return fail(pl,
			    "call %s: a limit denial needs a known "
			    "\"limit\" and a positive \"value\"",
			    call);
		if (strcmp(l, "wallClock") == 0) {
			const char *tp[] = { "tools", "[?]", "timeoutMs" };

			if (tool == NULL)
				return fail(pl,
				    "call %s: a wallClock denial "
				    "needs its \"tool\"",
				    call);
			snprintf(key, sizeof(key), "tools[%s].timeoutMs", tool);
			e = entry_get(pl, SUGGEST_RAISE, layer, key, tp, 3,
			    tool, "timeoutMs");
		} else {
			const char *lp[] = { "sandbox", "limits",
				limit_keys[i].key };

			snprintf(key, sizeof(key), "sandbox.limits.%s",
			    limit_keys[i].key);
			e = entry_get(pl, SUGGEST_RAISE, layer, key, lp, 3,
			    NULL, limit_keys[i].key);
		}
		snprintf(vbuf, sizeof(vbuf), "%lld",
		    (long long)json_integer_value(val));
		if ((v = entry_ref(pl, e, vbuf, call, denial)) != NULL)
			v->num = json_integer_value(val);
		return 0;
	}
	return fail(pl, "call %s: unknown denial layer \"%s\"", call,
	    layer != NULL ? layer : "(none)");
}

static void
runner_add(struct planner *pl, json_t *f)
{
	struct runner *r;

	if (pl->nrun == SUGGEST_MAX_RUNNERS)
		return;
	if (pl->nrun == pl->caprun) {
		size_t cap = pl->caprun ? pl->caprun * 2 : 16;
		struct runner *nr = reallocarray(pl->run, cap, sizeof(*nr));

		if (nr == NULL) {
			pl->oom = 1;
			return;
		}
		pl->run = nr;
		pl->caprun = cap;
	}
	r = &pl->run[pl->nrun++];
	r->call = call_text(pl, json_object_get(f, "id"));
	r->tool = pstrdup(pl, str(f, "tool"));
	r->check =
	    str(f, "check") != NULL ? pstrdup(pl, str(f, "check")) : NULL;
}

/* The broker numbers its calls in "request" order (egress "sandbox"). */
static void
request_add(struct planner *pl, json_t *f)
{
	if (pl->nreq == SUGGEST_MAX_REQUESTS)
		return;
	if (pl->nreq == pl->capreq) {
		size_t cap = pl->capreq ? pl->capreq * 2 : 16;
		char **nr = reallocarray(pl->req, cap, sizeof(*nr));

		if (nr == NULL) {
			pl->oom = 1;
			return;
		}
		pl->req = nr;
		pl->capreq = cap;
	}
	pl->req[pl->nreq++] = call_text(pl, json_object_get(f, "id"));
}

/*
 * The call an egress record's "sandbox" ("SESSION-N") names: the Nth
 * request of the session, or NULL.
 */
static const char *
egress_call(struct planner *pl, json_t *rec, json_t *f)
{
	const char *sb = str(f, "sandbox"), *sess = str(rec, "session");
	size_t sl;
	char *end;
	unsigned long long n;

	if (sb == NULL || sess == NULL ||
	    strncmp(sb, sess, (sl = strlen(sess))) != 0 || sb[sl] != '-' ||
	    sb[sl + 1] < '1' || sb[sl + 1] > '9')
		return NULL;
	n = strtoull(sb + sl + 1, &end, 10);
	if (*end != '\0' || n == 0 || n > pl->nreq)
		return NULL;
	return pl->req[n - 1];
}

static void
runner_end(struct planner *pl, json_t *f)
{
	char *call = call_text(pl, json_object_get(f, "id"));
	size_t i;

	/* Only running ones are kept: a long session stays small. */
	for (i = 0; call != NULL && i < pl->nrun; i++)
		if (strcmp(pl->run[i].call, call) == 0) {
			free(pl->run[i].call);
			free(pl->run[i].tool);
			free(pl->run[i].check);
			memmove(&pl->run[i], &pl->run[i + 1],
			    (pl->nrun - i - 1) * sizeof(pl->run[0]));
			pl->nrun--;
			break;
		}
	free(call);
}

static struct escal *
escal_get(struct planner *pl, const char *call)
{
	size_t i;

	for (i = 0; i < pl->nesc; i++)
		if (strcmp(pl->esc[i].call, call) == 0)
			return &pl->esc[i];
	if (pl->nesc == pl->capesc) {
		size_t cap = pl->capesc ? pl->capesc * 2 : 8;
		struct escal *ne = reallocarray(pl->esc, cap, sizeof(*ne));

		if (ne == NULL) {
			pl->oom = 1;
			return NULL;
		}
		pl->esc = ne;
		pl->capesc = cap;
	}
	memset(&pl->esc[pl->nesc], 0, sizeof(pl->esc[0]));
	pl->esc[pl->nesc].call = pstrdup(pl, call);
	return &pl->esc[pl->nesc++];
}

/*
 * airlock exec's refused connections (exec_end's egress.denied, with
 * --allow-host): its network is --allow-host alone, no manifest key, so
 * each destination is a note, never a change.  The cap's 429 names
 * none: left out, as for a session.
 */
static int
exec_egress(struct planner *pl, json_t *f)
{
	json_t *d, *port;
	const char *host;
	char hp[320];
	size_t i;

	json_array_foreach(
	    json_object_get(json_object_get(f, "egress"), "denied"), i, d)
	{
		host = str(d, "host");
		port = json_object_get(d, "port");
		if (host == NULL || host[0] == '\0' || !json_is_integer(port))
			continue;
		snprintf(hp, sizeof(hp),
		    strchr(host, ':') != NULL ? "[%s]:%lld" : "%s:%lld", host,
		    (long long)json_integer_value(port));
		entry_ref(pl,
		    entry_get(pl, SUGGEST_NOTE, "network", "exec-network", NULL,
			0, NULL, "exec-network"),
		    hp, "1", "");
	}
	return pl->oom ? AL_ERR_ALLOC : 0;
}

static int
plan_record(struct planner *pl, json_t *rec)
{
	const char *ev = str(rec, "event");
	json_t *f = json_object_get(rec, "fields"), *d;
	char *call;
	size_t i;
	int rc = 0;

	if (ev == NULL || !json_is_object(f))
		return 0;
	if (strcmp(ev, "runner_start") == 0) {
		runner_add(pl, f);
		return 0;
	}
	if (strcmp(ev, "request") == 0) {
		request_add(pl, f);
		return 0;
	}
	if (strcmp(ev, "runner_end") == 0) {
		runner_end(pl, f);
		return 0;
	}
	if (strcmp(ev, "exec_end") == 0)
		return exec_egress(pl, f);
	if (strcmp(ev, "sandbox_denial") == 0) {
		call = call_text(pl, json_object_get(f, "id"));
		if (call == NULL)
			return AL_ERR_ALLOC;
		if (str(f, "layer") != NULL)
			rc = add_denial(pl, f, call, str(f, "tool"));
		else {
			/* An older record: only the runner's hint. */
			struct sentry *e = entry_get(pl, SUGGEST_NOTE,
			    "unknown", "hint", NULL, 0, NULL, "hint");
			char note[1200];

			snprintf(note, sizeof(note), "tool %s: %s",
			    str(f, "tool") != NULL ? str(f, "tool") : "?",
			    str(f, "hint") != NULL ? str(f, "hint") : "");
			entry_ref(pl, e, note, call, "");
		}
		free(call);
		return rc;
	}
	if (strcmp(ev, "egress") == 0) {
		const char *allow = str(f, "allowWith");
		char buf[512], tbuf[128], *comp[4];
		json_t *dd;
		const char *who;

		if (str(f, "decision") == NULL ||
		    strcmp(str(f, "decision"), "deny") != 0 || allow == NULL)
			return 0;
		if (split_allow(
			allow, buf, sizeof(buf), comp, tbuf, sizeof(tbuf)) == 0)
			return 0;
		if ((who = egress_call(pl, rec, f)) == NULL)
			who = runner_call(pl, tbuf[0] != '\0' ? tbuf : NULL,
			    strcmp(comp[0], "checks") == 0 ? comp[1] : NULL);
		if ((dd = json_pack("{s:s, s:O?, s:O?, s:s}", "layer",
			 "network", "host", json_object_get(f, "host"), "port",
			 json_object_get(f, "port"), "allowWith", allow)) ==
		    NULL)
			return AL_ERR_ALLOC;
		rc = add_denial(pl, dd, who, tbuf[0] != '\0' ? tbuf : NULL);
		json_decref(dd);
		return rc;
	}
	if (strcmp(ev, "escalation_request") == 0) {
		struct escal *es;

		call = call_text(pl, json_object_get(f, "callId"));
		if (call == NULL)
			return AL_ERR_ALLOC;
		if ((es = escal_get(pl, call)) != NULL && es->approval == NULL)
			es->approval = pstrdup(pl, str(f, "approval"));
		json_array_foreach(json_object_get(f, "widening"), i, d)
		{
			if (!json_is_object(d) || str(d, "layer") == NULL)
				continue;
			if ((rc = add_denial(pl, d, call, str(f, "tool"))) != 0)
				break;
		}
		free(call);
		return rc;
	}
	if (strcmp(ev, "escalation_decision") == 0) {
		struct escal *es;

		call = call_text(pl, json_object_get(f, "callId"));
		if (call == NULL)
			return AL_ERR_ALLOC;
		if ((es = escal_get(pl, call)) != NULL &&
		    str(f, "outcome") != NULL) {
			free(es->outcome);
			es->outcome = pstrdup(pl, str(f, "outcome"));
		}
		free(call);
		return 0;
	}
	if (strcmp(ev, "escalation_refused") == 0) {
		struct escal *es;
		char why[160];

		call = call_text(pl, json_object_get(f, "callId"));
		if (call == NULL)
			return AL_ERR_ALLOC;
		snprintf(why, sizeof(why), "refused: %s%s%s",
		    str(f, "reason") != NULL ? str(f, "reason") : "?",
		    str(f, "class") != NULL ? " " : "",
		    str(f, "class") != NULL ? str(f, "class") : "");
		if ((es = escal_get(pl, call)) != NULL) {
			free(es->outcome);
			es->outcome = pstrdup(pl, why);
		}
		free(call);
	}
	return 0;
}

/* Appends "(call 3: d1 d2; call 5)" for |v|. */
static void
refs_text(
    const struct planner *pl, const struct sval *v, char *out, size_t outlen)
{
	size_t i, j, len = 0;
	int first = 1;

#define PUT(...) \
	do { \
		int n_ = snprintf(out + len, outlen - len, __VA_ARGS__); \
		if (n_ > 0 && (size_t)n_ < outlen - len) \
			len += (size_t)n_; \
	} while (0)
	out[0] = '\0';
	PUT("(");
	for (i = 0; i < v->nrefs; i++) {
		int seen = 0, anyd = 0;

		for (j = 0; j < i; j++)
			if (strcmp(v->refs[j].call, v->refs[i].call) == 0)
				seen = 1;
		if (seen)
			continue;
		PUT("%scall %s", first ? "" : "; ", v->refs[i].call);
		first = 0;
		for (j = i; j < v->nrefs; j++)
			if (strcmp(v->refs[j].call, v->refs[i].call) == 0 &&
			    v->refs[j].denial[0] != '\0') {
				PUT("%s%s", anyd ? " " : ": ",
				    v->refs[j].denial);
				anyd = 1;
			}
		for (j = 0; j < pl->nesc; j++)
			if (strcmp(pl->esc[j].call, v->refs[i].call) == 0)
				PUT(", escalation %s%s%s",
				    pl->esc[j].approval != NULL
					? pl->esc[j].approval
					: "",
				    pl->esc[j].approval != NULL &&
					    pl->esc[j].approval[0] != '\0'
					? " "
					: "",
				    pl->esc[j].outcome != NULL
					? pl->esc[j].outcome
					: "asked");
	}
	if (v->nmore > 0)
		PUT(" and %zu more", v->nmore);
	PUT(")");
#undef PUT
}

/*
 * Why entry |e| weakens: every value's reason, joined by "; ", or NULL.
 * Each is named: with only the first, a human accepting a socket's
 * directory was not told that the next value was a credential store.
 */
static char *
weak_join(struct planner *pl, const struct sentry *e)
{
	char *out = NULL, *n;
	size_t i, len = 0, add;

	for (i = 0; i < e->nvals; i++) {
		if (e->vals[i].weak == NULL)
			continue;
		add = strlen(e->vals[i].weak) + 2;
		if ((n = realloc(out, len + add + 1)) == NULL) {
			free(out);
			pl->oom = 1;
			return NULL;
		}
		out = n;
		snprintf(out + len, add + 1, "%s%s", len > 0 ? "; " : "",
		    e->vals[i].weak);
		len += strlen(out + len);
	}
	return out;
}

/* Builds the public change for entry |e|. */
static int
finish_entry(
    struct planner *pl, const struct sentry *e, struct suggest_change *c)
{
	char reason[8192], refs[1024], *wk = NULL;
	size_t i, len = 0;
	long long maxv = 0;

#define PUT(...) \
	do { \
		int n_ = \
		    snprintf(reason + len, sizeof(reason) - len, __VA_ARGS__); \
		if (n_ > 0 && (size_t)n_ < sizeof(reason) - len) \
			len += (size_t)n_; \
	} while (0)
	memset(c, 0, sizeof(*c));
	c->kind = e->kind;
	snprintf(c->layer, sizeof(c->layer), "%s", e->layer);
	c->key = pstrdup(pl, e->key);
	for (i = 0; i < e->npath; i++)
		c->path[i] = pstrdup(pl, e->path[i]);
	c->npath = e->npath;
	c->tool = e->tool != NULL ? pstrdup(pl, e->tool) : NULL;
	reason[0] = '\0';
	switch (e->kind) {
	case SUGGEST_ADD:
		PUT("airlock suggest: allow %s ", e->what);
		if ((c->values = calloc(e->nvals, sizeof(char *))) == NULL)
			return AL_ERR_ALLOC;
		for (i = 0; i < e->nvals; i++) {
			c->values[c->nvalues++] = pstrdup(pl, e->vals[i].value);
			refs_text(pl, &e->vals[i], refs, sizeof(refs));
			PUT("%s%s %s", i > 0 ? ", " : "", e->vals[i].value,
			    refs);
		}
		if (e->tool != NULL)
			PUT(" for tool %s", e->tool);
		wk = weak_join(pl, e);
		break;
	case SUGGEST_RAISE:
		for (i = 0; i < e->nvals; i++)
			if (e->vals[i].num > maxv)
				maxv = e->vals[i].num;
		c->number = maxv * 2;
		PUT("airlock suggest: raise %s from %lld to %lld, twice the "
		    "limit that stopped ",
		    e->key, maxv, c->number);
		for (i = 0; i < e->nvals; i++) {
			refs_text(pl, &e->vals[i], refs, sizeof(refs));
			PUT("%s%s", i > 0 ? ", " : "", refs);
		}
		break;
	case SUGGEST_NOTE:
		if (strcmp(e->key, "write") == 0)
			PUT("not expressible: writes outside the workspace "
			    "have no manifest key (a one-run escalation or "
			    "--rw only): ");
		else if (strcmp(e->key, "exec-network") == 0)
			PUT("not expressible: airlock exec reaches only its "
			    "--allow-host destinations, no manifest key "
			    "(name the host with --allow-host): ");
		else
			PUT("not expressible: the sandbox refused something "
			    "the runner did not name: ");
		for (i = 0; i < e->nvals; i++) {
			refs_text(pl, &e->vals[i], refs, sizeof(refs));
			PUT("%s%s %s", i > 0 ? ", " : "", e->vals[i].value,
			    refs);
		}
		break;
	}
	if (wk != NULL) {
		PUT(" # WEAKENS: %s", wk);
		c->weakens = wk;
	}
#undef PUT
	c->reason = pstrdup(pl, reason);
	return pl->oom ? AL_ERR_ALLOC : 0;
}

static void
planner_clear(struct planner *pl)
{
	size_t i, j, k;

	for (i = 0; i < pl->ne; i++) {
		struct sentry *e = pl->e[i];

		free(e->key);
		free(e->tool);
		for (j = 0; j < e->npath; j++)
			free(e->path[j]);
		for (j = 0; j < e->nvals; j++) {
			free(e->vals[j].value);
			free(e->vals[j].weak);
			for (k = 0; k < e->vals[j].nrefs; k++) {
				free(e->vals[j].refs[k].call);
				free(e->vals[j].refs[k].denial);
			}
		}
		free(e);
	}
	for (i = 0; i < pl->nrun; i++) {
		free(pl->run[i].call);
		free(pl->run[i].tool);
		free(pl->run[i].check);
	}
	free(pl->run);
	for (i = 0; i < pl->nreq; i++)
		free(pl->req[i]);
	free(pl->req);
	for (i = 0; i < pl->nesc; i++) {
		free(pl->esc[i].call);
		free(pl->esc[i].approval);
		free(pl->esc[i].outcome);
	}
	free(pl->esc);
}

/* Does an entry other than |skip| name call |call|? */
static int
call_named(
    const struct planner *pl, const struct sentry *skip, const char *call)
{
	size_t i, j, k;

	for (i = 0; i < pl->ne; i++) {
		if (pl->e[i] == skip)
			continue;
		for (j = 0; j < pl->e[i]->nvals; j++)
			for (k = 0; k < pl->e[i]->vals[j].nrefs; k++)
				if (strcmp(pl->e[i]->vals[j].refs[k].call,
					call) == 0)
					return 1;
	}
	return 0;
}

/*
 * A hint-only sandbox_denial of a call whose denials are known from
 * their own records (the egress proxy's) says nothing more: dropped.
 */
static void
prune_hints(struct planner *pl)
{
	struct sentry *e = NULL;
	size_t i, k;

	for (i = 0; i < pl->ne; i++)
		if (pl->e[i]->kind == SUGGEST_NOTE &&
		    strcmp(pl->e[i]->key, "hint") == 0)
			e = pl->e[i];
	if (e == NULL)
		return;
	for (i = 0; i < e->nvals;) {
		struct sval *v = &e->vals[i];

		for (k = 0; k < v->nrefs; k++)
			if (!call_named(pl, e, v->refs[k].call))
				break;
		if (k < v->nrefs || v->nrefs == 0) {
			i++;
			continue;
		}
		pl->denials -= v->nrefs + v->nmore;
		free(v->value);
		free(v->weak);
		for (k = 0; k < v->nrefs; k++) {
			free(v->refs[k].call);
			free(v->refs[k].denial);
		}
		memmove(v, v + 1, (e->nvals - i - 1) * sizeof(*v));
		e->nvals--;
	}
	if (e->nvals > 0)
		return;
	for (i = 0; i < pl->ne; i++)
		if (pl->e[i] == e) {
			free(e->key);
			free(e->tool);
			for (k = 0; k < e->npath; k++)
				free(e->path[k]);
			free(e);
			memmove(&pl->e[i], &pl->e[i + 1],
			    (pl->ne - i - 1) * sizeof(pl->e[0]));
			pl->ne--;
			break;
		}
}

struct suggest_planner {
	struct planner pl;
};

int
suggest_planner_new(const struct suggest_ctx *ctx, struct suggest_planner **out)
{
	static const struct suggest_ctx none;
	struct suggest_planner *sp;

	if ((*out = sp = calloc(1, sizeof(*sp))) == NULL)
		return AL_ERR_ALLOC;
	sp->pl.ctx = ctx != NULL ? ctx : &none;
	return 0;
}

int
suggest_planner_feed(
    struct suggest_planner *sp, json_t *rec, char *err, size_t errlen)
{
	int rc;

	sp->pl.err = err;
	sp->pl.errlen = errlen;
	rc = plan_record(&sp->pl, rec);
	if (rc == 0 && sp->pl.oom)
		rc = AL_ERR_ALLOC;
	sp->pl.err = NULL;
	sp->pl.errlen = 0;
	return rc;
}

void
suggest_planner_free(struct suggest_planner *sp)
{
	if (sp == NULL)
		return;
	planner_clear(&sp->pl);
	free(sp);
}

int
suggest_planner_finish(struct suggest_planner *sp, struct suggest_plan **out)
{
	struct planner *pl = &sp->pl;
	struct suggest_plan *p;
	size_t n, pass;
	int rc = 0;

	*out = NULL;
	prune_hints(pl);
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		suggest_planner_free(sp);
		return AL_ERR_ALLOC;
	}
	p->denials = pl->denials;
	p->dropped = pl->dropped;
	if (pl->ne > 0 &&
	    (p->changes = calloc(pl->ne, sizeof(*p->changes))) == NULL)
		rc = AL_ERR_ALLOC;
	/* Changes first, then notes, each in order of first denial. */
	for (pass = 0; rc == 0 && pass < 2; pass++)
		for (n = 0; rc == 0 && n < pl->ne; n++) {
			if ((pl->e[n]->kind == SUGGEST_NOTE) != (pass == 1))
				continue;
			rc = finish_entry(pl, pl->e[n], &p->changes[p->n++]);
		}
	suggest_planner_free(sp);
	if (rc != 0) {
		suggest_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int
suggest_plan(json_t *records, const struct suggest_ctx *ctx,
    struct suggest_plan **out, char *err, size_t errlen)
{
	struct suggest_planner *sp;
	json_t *rec;
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = suggest_planner_new(ctx, &sp)) != 0)
		return rc;
	json_array_foreach(records, i, rec)
	{
		if ((rc = suggest_planner_feed(sp, rec, err, errlen)) != 0) {
			suggest_planner_free(sp);
			return rc;
		}
	}
	return suggest_planner_finish(sp, out);
}

void
suggest_plan_free(struct suggest_plan *p)
{
	size_t i, j;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++) {
		struct suggest_change *c = &p->changes[i];

		free(c->key);
		free(c->tool);
		free(c->reason);
		free(c->weakens);
		for (j = 0; j < c->npath; j++)
			free(c->path[j]);
		for (j = 0; j < c->nvalues; j++)
			free(c->values[j]);
		free(c->values);
	}
	free(p->changes);
	free(p);
}

size_t
suggest_plan_weakens(const struct suggest_plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		if (p->changes[i].weakens != NULL)
			n++;
	return n;
}

int
suggest_apply(
    const struct suggest_plan *p, struct yamledit *ye, char *err, size_t errlen)
{
	const char *path[8];
	const char *const tools[] = { "tools" };
	char idx[32], num[32];
	const char *cur;
	size_t i, j;
	long t;
	int rc, changed = 0;

	for (i = 0; i < p->n; i++) {
		const struct suggest_change *c = &p->changes[i];

		if (c->kind == SUGGEST_NOTE)
			continue;
		for (j = 0; j < c->npath; j++)
			path[j] = c->path[j];
		if (c->npath >= 2 && strcmp(c->path[0], "tools") == 0 &&
		    c->tool != NULL) {
			if ((t = yamledit_find_item(
				 ye, tools, 1, "name", c->tool)) < 0) {
				snprintf(err, errlen,
				    "%s: the manifest has no "
				    "tool named %s",
				    c->key, c->tool);
				return AL_ERR_NOT_FOUND;
			}
			snprintf(idx, sizeof(idx), "[%ld]", t);
			path[1] = idx;
		}
		if (c->kind == SUGGEST_ADD)
			rc = yamledit_seq_add(ye, path, c->npath,
			    (const char *const *)c->values, c->nvalues,
			    c->reason, err, errlen);
		else {
			cur = yamledit_get_scalar(ye, path, c->npath);
			if (cur != NULL && strtoll(cur, NULL, 10) >= c->number)
				continue;
			snprintf(num, sizeof(num), "%lld", c->number);
			rc = yamledit_set_scalar(
			    ye, path, c->npath, num, c->reason, err, errlen);
		}
		if (rc < 0) {
			char why[512];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s: %s", c->key, why);
			return rc;
		}
		if (rc > 0)
			changed++;
	}
	return changed;
}

json_t *
suggest_plan_json(const struct suggest_plan *p)
{
	json_t *o, *ch, *notes, *c, *vals;
	size_t i, j;

	o = json_pack("{s:I, s:I, s:[], s:[]}", "denials",
	    (json_int_t)p->denials, "dropped", (json_int_t)p->dropped,
	    "changes", "notes");
	if (o == NULL)
		return NULL;
	ch = json_object_get(o, "changes");
	notes = json_object_get(o, "notes");
	for (i = 0; i < p->n; i++) {
		const struct suggest_change *x = &p->changes[i];

		if (x->kind == SUGGEST_NOTE) {
			json_array_append_new(notes,
			    json_pack("{s:s, s:s}", "layer", x->layer, "reason",
				x->reason));
			continue;
		}
		c = json_pack("{s:s, s:s, s:s, s:s}", "kind",
		    x->kind == SUGGEST_ADD ? "add" : "raise", "key", x->key,
		    "layer", x->layer, "reason", x->reason);
		if (c == NULL)
			continue;
		if (x->tool != NULL)
			json_object_set_new(c, "tool", json_string(x->tool));
		if (x->kind == SUGGEST_ADD) {
			vals = json_array();
			for (j = 0; j < x->nvalues; j++)
				json_array_append_new(
				    vals, json_string(x->values[j]));
			json_object_set_new(c, "values", vals);
		} else
			json_object_set_new(
			    c, "value", json_integer(x->number));
		json_object_set_new(c, "weakens",
		    x->weakens != NULL ? json_string(x->weakens) : json_null());
		json_array_append_new(ch, c);
	}
	return o;
}
