/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "policy/sensitive.h"

/* Credential stores, as components at any depth. */
static const char *const cred_stores[] = { ".ssh", ".aws", ".gnupg", ".netrc",
	".docker", ".kube", ".config/gh", ".config/gcloud", ".azure",
	".git-credentials", ".npmrc", ".pypirc", ".config/hub",
	".password-store", ".local/share/keyrings", ".pgpass", NULL };

/* The host's secrets, kernel interfaces and sockets, as prefixes. */
static const char *const system_paths[] = { "/proc", "/sys", "/dev", "/boot",
	"/run", "/var/run", "/etc/shadow", "/etc/gshadow", "/etc/sudoers",
	"/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private", "/tmp/.X11-unix",
	"/tmp/.ICE-unix", NULL };

int
path_has_components(const char *p, const char *comp)
{
	size_t n = strlen(comp);
	const char *s;

	for (s = p; (s = strstr(s, comp)) != NULL; s++)
		if ((s == p || s[-1] == '/') && (s[n] == '\0' || s[n] == '/'))
			return 1;
	return 0;
}

/* Is |p| |dir| or beneath it? */
static int
beneath(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

const char *
sensitive_path(const char *path, char *buf, size_t len)
{
	size_t i;

	for (i = 0; cred_stores[i] != NULL; i++)
		if (path_has_components(path, cred_stores[i])) {
			snprintf(buf, len, "a credential store (~/%s)",
			    cred_stores[i]);
			return buf;
		}
	for (i = 0; system_paths[i] != NULL; i++)
		if (beneath(path, system_paths[i])) {
			snprintf(buf, len, "the host's %s", system_paths[i]);
			return buf;
		}
	return NULL;
}
