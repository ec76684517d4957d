/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/paths.h"
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

/*
 * Is |p| |dir| or beneath it?  Trailing slashes of |dir| do not count
 * ("/a/" holds "/a/b"), and "/" holds every absolute path.
 */
static int
beneath(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 0 && dir[n - 1] == '/')
		n--;
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

const char *
sensitive_forbidden(
    const char *path, char *const *deny, size_t ndeny, char *why, size_t whylen)
{
	char dir[PATH_MAX];
	size_t i;

	if (sensitive_path(path, why, whylen) != NULL)
		return why;
	for (i = 0; i < ndeny; i++)
		if (beneath(path, deny[i]))
			return "a denyRead path";
	if ((paths_state_dir(dir, sizeof(dir)) == 0 && beneath(path, dir)) ||
	    (paths_config_dir(dir, sizeof(dir)) == 0 && beneath(path, dir)) ||
	    (paths_runtime_dir(dir, sizeof(dir)) == 0 && beneath(path, dir)))
		return "airlock's own state";
	return NULL;
}

/* The walk of sensitive_plain_tree(): |dfd| is consumed. */
static int
plain_walk(int dfd, size_t *seen)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	int fd, ok = 1;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return 0;
	}
	while (ok && (errno = 0, e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++*seen > SENSITIVE_PLAIN_MAX ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
			-1) {
			ok = 0;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			ok = fd != -1 && plain_walk(fd, seen);
		} else
			ok = S_ISREG(st.st_mode) || S_ISLNK(st.st_mode);
	}
	if (errno != 0)
		ok = 0;
	closedir(d);
	return ok;
}

int
sensitive_plain_tree(const char *path)
{
	struct stat st;
	size_t seen = 0;
	int fd;

	if (stat(path, &st) == -1)
		return errno == ENOENT;
	if (S_ISREG(st.st_mode))
		return 1;
	if (!S_ISDIR(st.st_mode))
		return 0;
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 0;
	return plain_walk(fd, &seen);
}
