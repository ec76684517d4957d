/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * paths: airlock's state, runtime and config directories (paths.h).
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/paths.h"

static const char *
env_abs(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] == '/' ? v : NULL;
}

static const char *
home_dir(void)
{
	const char *h = env_abs("HOME");
	struct passwd *pw;

	if (h != NULL)
		return h;
	if ((pw = getpwuid(geteuid())) != NULL && pw->pw_dir[0] == '/')
		return pw->pw_dir;
	return NULL;
}

static int
put(char *out, size_t outlen, const char *a, const char *b)
{
	int n = snprintf(out, outlen, "%s%s", a, b);

	return n < 0 || (size_t)n >= outlen ? AL_ERR_LIMIT : 0;
}

/* Fills |out| by the rules in paths.h; returns the rule that applied. */
static const char *
resolve(int which, char *out, size_t outlen, int *rc)
{
	static const char *envs[3][2] = {
		{ "AIRLOCK_STATE_DIR", "AIRLOCK_HOME" },
		{ "AIRLOCK_RUNTIME_DIR", NULL },
		{ "AIRLOCK_CONFIG_DIR", NULL },
	};
	static const char *deflt[3] = { PATHS_STATE_DEFAULT,
		PATHS_RUNTIME_DEFAULT, PATHS_CONFIG_DEFAULT };
	static const char *xdg[3] = { "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
		"XDG_CONFIG_HOME" };
	static const char *xdghome[3] = { "/.local/state/airlock", NULL,
		"/.config/airlock" };
	static const char *fallback[3] = { "/tmp/airlock-", "/tmp/airlock-run-",
		"/tmp/airlock-config-" };
	static const char *src[3] = { "environment (AIRLOCK_STATE_DIR)",
		"environment (AIRLOCK_RUNTIME_DIR)",
		"environment (AIRLOCK_CONFIG_DIR)" };
	const char *v, *h;
	char uid[32];
	size_t i;

	for (i = 0; i < 2; i++) {
		if (envs[which][i] != NULL &&
		    (v = env_abs(envs[which][i])) != NULL) {
			*rc = put(out, outlen, v, "");
			return i == 0 ? src[which]
				      : "environment (AIRLOCK_HOME)";
		}
	}
	if (geteuid() == 0) {
		*rc = put(out, outlen, deflt[which], "");
		return "configured";
	}
	if ((v = env_abs(xdg[which])) != NULL) {
		*rc = put(out, outlen, v, "/airlock");
		return "XDG";
	}
	if (xdghome[which] != NULL && (h = home_dir()) != NULL) {
		*rc = put(out, outlen, h, xdghome[which]);
		return "XDG";
	}
	snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
	if ((*rc = put(out, outlen, fallback[which], uid)) != 0)
		return "fallback";
	return "fallback";
}

int
paths_state_dir(char *out, size_t outlen)
{
	int rc;

	(void)resolve(0, out, outlen, &rc);
	return rc;
}

int
paths_runtime_dir(char *out, size_t outlen)
{
	int rc;

	(void)resolve(1, out, outlen, &rc);
	return rc;
}

int
paths_config_dir(char *out, size_t outlen)
{
	int rc;

	(void)resolve(2, out, outlen, &rc);
	return rc;
}

static const char *
source(int which)
{
	char buf[4096];
	int rc;

	return resolve(which, buf, sizeof(buf), &rc);
}

const char *
paths_state_source(void)
{
	return source(0);
}

const char *
paths_runtime_source(void)
{
	return source(1);
}

const char *
paths_config_source(void)
{
	return source(2);
}
