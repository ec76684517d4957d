/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * overrides: the command line's additions to a run's policy (see
 * overrides.h).  Everything is checked here, before any sandbox exists,
 * so that a bad override stops the run with a message naming its flag.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "broker/egress.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "proxy/rules.h"
#include "supervisor/overrides.h"

#define ENV_NAME_MAX 128

static const char *const flag_names[] = {
	[OVERRIDE_ALLOW_HOST] = "--allow-host",
	[OVERRIDE_ENV] = "--env",
	[OVERRIDE_RO] = "--ro",
	[OVERRIDE_RW] = "--rw",
};

/* What airlock itself sets in a sandbox's environment. */
static const char *const reserved_env[] = { "HTTP_PROXY", "HTTPS_PROXY",
	"ALL_PROXY", "NO_PROXY", NULL };

static const char *const system_paths[] = { "/proc", "/sys", "/dev", NULL };

static char **
strv_new(void)
{
	return xcalloc(1, sizeof(char *));
}

static void
strv_push(char ***vp, size_t *np, char *s)
{
	*vp = xreallocarray(*vp, *np + 2, sizeof(**vp));
	(*vp)[(*np)++] = s;
	(*vp)[*np] = NULL;
}

void
overrides_init(struct overrides *o)
{
	memset(o, 0, sizeof(*o));
	o->hosts = strv_new();
	o->env = strv_new();
	o->ro = strv_new();
	o->rw = strv_new();
}

static int
add_host(struct overrides *o, const char *arg, char *err, size_t errlen)
{
	struct rules *r;
	const char *end;
	char *entry, why[RULES_REASON_MAX];
	int rc;

	/* A port is there when a ':' follows the host (after "]" for v6). */
	end = arg[0] == '[' ? strchr(arg, ']') : arg;
	if (end != NULL && strchr(end, ':') != NULL)
		entry = xstrdup(arg);
	else
		xasprintf(&entry, "%s:443", arg);
	if ((r = rules_new()) == NULL)
		fatalx("out of memory");
	rc = rules_add_host(r, entry, why, sizeof(why));
	rules_free(r);
	if (rc != 0) {
		snprintf(err, errlen, "--allow-host %s: %s", arg, why);
		free(entry);
		return AL_ERR_FORMAT;
	}
	strv_push(&o->hosts, &o->nhosts, entry);
	return 0;
}

static int
env_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > ENV_NAME_MAX || isdigit((unsigned char)s[0]))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

static int
add_env(struct overrides *o, const char *arg, char *(*getenv_fn)(const char *),
    char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq != NULL ? (size_t)(eq - arg) : strlen(arg), i;
	char name[ENV_NAME_MAX + 1], *v, *entry;

	if (!env_name_ok(arg, n)) {
		snprintf(err, errlen,
		    "--env %s: not an environment variable "
		    "name",
		    arg);
		return AL_ERR_FORMAT;
	}
	memcpy(name, arg, n);
	name[n] = '\0';
	for (i = 0; reserved_env[i] != NULL; i++)
		if (strcasecmp(name, reserved_env[i]) == 0)
			break;
	if (reserved_env[i] != NULL || strncmp(name, "AIRLOCK_", 8) == 0) {
		snprintf(err, errlen, "--env %s: set by airlock itself", name);
		return AL_ERR_DENIED;
	}
	if (eq != NULL)
		entry = xstrdup(arg);
	else if ((v = getenv_fn(name)) != NULL)
		xasprintf(&entry, "%s=%s", name, v);
	else {
		snprintf(err, errlen,
		    "--env %s: not set in the environment "
		    "(use --env %s=VALUE)",
		    name, name);
		return AL_ERR_NOT_FOUND;
	}
	o->env_given =
	    xreallocarray(o->env_given, o->nenv + 1, sizeof(*o->env_given));
	o->env_given[o->nenv] = eq != NULL;
	strv_push(&o->env, &o->nenv, entry);
	return 0;
}

static int
add_path(struct overrides *o, enum override_kind k, const char *arg,
    const char *state_dir, char *err, size_t errlen)
{
	const char *flag = flag_names[k];
	char real[PATH_MAX], state[PATH_MAX];
	size_t i;

	if (realpath(arg, real) == NULL) {
		snprintf(err, errlen, "%s %s: %s", flag, arg, strerror(errno));
		return AL_ERR_NOT_FOUND;
	}
	if (strcmp(real, "/") == 0) {
		snprintf(err, errlen,
		    "%s %s: refusing to bind the whole file "
		    "system",
		    flag, arg);
		return AL_ERR_DENIED;
	}
	for (i = 0; system_paths[i] != NULL; i++)
		if (path_is_beneath(real, system_paths[i])) {
			snprintf(err, errlen,
			    "%s %s: refusing to bind %s "
			    "(the sandbox has its own)",
			    flag, arg, system_paths[i]);
			return AL_ERR_DENIED;
		}
	/* The state holds the audit log, keys and secrets of every session. */
	if (state_dir != NULL && *state_dir != '\0') {
		if (realpath(state_dir, state) == NULL)
			snprintf(state, sizeof(state), "%s", state_dir);
		if (path_is_beneath(real, state) ||
		    path_is_beneath(state, real)) {
			snprintf(err, errlen,
			    "%s %s: refusing to expose "
			    "airlock's state directory %s",
			    flag, arg, state);
			return AL_ERR_DENIED;
		}
	}
	if (k == OVERRIDE_RO)
		strv_push(&o->ro, &o->nro, xstrdup(real));
	else
		strv_push(&o->rw, &o->nrw, xstrdup(real));
	return 0;
}

int
overrides_add(struct overrides *o, enum override_kind k, const char *arg,
    const char *state_dir, char *(*getenv_fn)(const char *), char *err,
    size_t errlen)
{
	switch (k) {
	case OVERRIDE_ALLOW_HOST:
		return add_host(o, arg, err, errlen);
	case OVERRIDE_ENV:
		return add_env(o, arg, getenv_fn, err, errlen);
	case OVERRIDE_RO:
	case OVERRIDE_RW:
		return add_path(o, k, arg, state_dir, err, errlen);
	}
	snprintf(err, errlen, "unknown override");
	return AL_ERR_INTERNAL;
}

int
overrides_option(struct overrides *o, int ch, const char *arg, int argc,
    char **argv, int *optindp, const char *state_dir, char *err, size_t errlen)
{
	char *nv;
	int rc;

	if (ch == OVERRIDE_OPT_BASE + 0x80) {
		if (*optindp >= argc) {
			snprintf(
			    err, errlen, "--setenv %s: needs NAME VALUE", arg);
			return -1;
		}
		if (arg[0] == '\0' || strchr(arg, '=') != NULL) {
			snprintf(err, errlen, "--setenv %s: bad NAME", arg);
			return -1;
		}
		xasprintf(&nv, "%s=%s", arg, argv[(*optindp)++]);
		rc = overrides_add(
		    o, OVERRIDE_ENV, nv, state_dir, getenv, err, errlen);
		free(nv);
		return rc == 0 ? 1 : -1;
	}
	if (ch < OVERRIDE_OPT_BASE + OVERRIDE_ALLOW_HOST ||
	    ch > OVERRIDE_OPT_BASE + OVERRIDE_RW)
		return 0;
	rc = overrides_add(o, (enum override_kind)(ch - OVERRIDE_OPT_BASE), arg,
	    state_dir, getenv, err, errlen);
	return rc == 0 ? 1 : -1;
}

int
overrides_check_workspace(
    const struct overrides *o, const char *workspace, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < o->nrw; i++)
		if (path_is_beneath(o->rw[i], workspace) ||
		    path_is_beneath(workspace, o->rw[i])) {
			snprintf(err, errlen,
			    "--rw %s: refusing a read-write "
			    "bind over the workspace %s (its changes go "
			    "through airlock)",
			    o->rw[i], workspace);
			return AL_ERR_DENIED;
		}
	return 0;
}

int
overrides_empty(const struct overrides *o)
{
	return o->nhosts == 0 && o->nenv == 0 && o->nro == 0 && o->nrw == 0;
}

static json_t *
strv_json(char *const *v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && v[i] != NULL; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

json_t *
overrides_json(const struct overrides *o)
{
	json_t *j, *env;
	size_t i, n;

	if ((env = json_array()) == NULL)
		return NULL;
	for (i = 0; i < o->nenv; i++) {
		n = strcspn(o->env[i], "=");
		json_array_append_new(env,
		    json_pack("{s:s%, s:s}", "name", o->env[i], n, "source",
			o->env_given[i] ? "commandLine" : "caller"));
	}
	j = json_pack("{s:o, s:o, s:o, s:o}", "allowHosts", strv_json(o->hosts),
	    "env", env, "readOnly", strv_json(o->ro), "readWrite",
	    strv_json(o->rw));
	return j;
}

void
overrides_apply_env(const struct overrides *o, char ***envp)
{
	size_t i;

	for (i = 0; i < o->nenv; i++)
		env_put(envp, o->env[i], 1);
}

char **
overrides_exec_env(const struct overrides *o, char *(*getenv_fn)(const char *))
{
	char **env, *term;
	size_t n = 0;

	env = xcalloc(6, sizeof(*env));
	env[n++] = xstrdup("PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:"
			   "/usr/sbin:/sbin");
	env[n++] = xstrdup("HOME=/tmp");
	env[n++] = xstrdup("TMPDIR=/tmp");
	env[n++] = xstrdup("LANG=C.UTF-8");
	if ((term = getenv_fn("TERM")) != NULL)
		xasprintf(&env[n++], "TERM=%s", term);
	env[n] = NULL;
	overrides_apply_env(o, &env);
	if (o->nhosts > 0)
		egress_env(&env);
	return env;
}

int
overrides_check_seatbelt(const struct overrides *o, char *err, size_t errlen)
{
	const struct {
		enum override_kind k;
		char *const *v;
		size_t n;
		const char *why;
	} refused[] = {
		{ OVERRIDE_RW, o->rw, o->nrw,
		    "the Seatbelt profile lets the command write only the "
		    "workspace and its TMPDIR" },
		{ OVERRIDE_RO, o->ro, o->nro,
		    "nothing is bound there: the command reads what the "
		    "Seatbelt profile does not deny" },
		{ OVERRIDE_ALLOW_HOST, o->hosts, o->nhosts,
		    "no egress proxy there yet" },
	};
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (refused[i].n > 0) {
			snprintf(err, errlen, "%s %s: not on macOS (%s)",
			    flag_names[refused[i].k], refused[i].v[0],
			    refused[i].why);
			return AL_ERR_DENIED;
		}
	return 0;
}

void
overrides_free(struct overrides *o)
{
	strv_free(o->hosts);
	strv_free(o->env);
	free(o->env_given);
	strv_free(o->ro);
	strv_free(o->rw);
	memset(o, 0, sizeof(*o));
}
