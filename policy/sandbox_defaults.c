/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* sandbox_defaults: the safe default sandbox policy. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "policy/sandbox_defaults.h"

const char *const sandbox_system_dirs[] = {
	"/usr", "/bin", "/lib", "/lib32", "/lib64", "/libx32", "/sbin", NULL
};

/* Only what name resolution, the dynamic linker and TLS need. */
const char *const sandbox_etc_entries[] = {
	"passwd", "group", "hosts", "resolv.conf", "nsswitch.conf",
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "host.conf",
	"alternatives", "ssl", "ca-certificates", "protocols", "services",
	NULL
};

static char **
strv_new(const char *const *src, size_t *countp)
{
	char **v;
	size_t i, n;

	for (n = 0; src != NULL && src[n] != NULL; n++)
		;
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = xstrdup(src[i]);
	*countp = n;
	return v;
}

/* The system directories and /etc entries, as absolute paths. */
static char **
system_list(size_t *countp)
{
	char **v;
	size_t i, n = 0, ndirs, netc;

	for (ndirs = 0; sandbox_system_dirs[ndirs] != NULL; ndirs++)
		;
	for (netc = 0; sandbox_etc_entries[netc] != NULL; netc++)
		;
	v = xcalloc(ndirs + netc + 1, sizeof(*v));
	for (i = 0; i < ndirs; i++)
		v[n++] = xstrdup(sandbox_system_dirs[i]);
	for (i = 0; i < netc; i++)
		xasprintf(&v[n++], "/etc/%s", sandbox_etc_entries[i]);
	*countp = n;
	return v;
}

void
sandbox_policy_init_defaults(struct sandbox_policy *p)
{
	static const char *const protected[] = { ".git", ".vscode", ".idea",
		".devcontainer", ".devcontainer.json", NULL };

	memset(p, 0, sizeof(*p));
	p->uid = 65534;
	p->gid = 65534;
	p->read_only = system_list(&p->nread_only);
	p->deny_read = strv_new(NULL, &p->ndeny_read);
	p->protected = strv_new(protected, &p->nprotected);
	p->network = 0;
	p->seccomp = SECCOMP_PROFILE_DEFAULT;
	p->landlock = 1;
	p->workspace = WORKSPACE_DIRECT;
	p->limits.cpu_seconds = 60;
	p->limits.address_space_mb = 0;	/* RLIMIT_AS breaks JITs, Go */
	p->limits.file_size_mb = 1024;
	p->limits.open_files = 256;
	p->limits.processes = 256;
	p->limits.memory_mb = 1024;
	p->limits.cpu_percent = 100;
	p->limits.tmp_size_mb = 64;
	p->limits.output_bytes = 1024 * 1024;
}

static void
list_clear(char ***vp, size_t *np)
{
	strv_free(*vp);
	*vp = NULL;
	*np = 0;
}

void
sandbox_policy_free_arrays(struct sandbox_policy *p)
{
	list_clear(&p->read_only, &p->nread_only);
	list_clear(&p->deny_read, &p->ndeny_read);
	list_clear(&p->protected, &p->nprotected);
}

/*
 * Drops the empty and "." components of the absolute path |e| in place
 * ("/a//./b" is "/a/b"): a denied path absent on the host is matched by
 * its name alone, with no inode to compare.
 */
static void
lexical_clean(char *e)
{
	char *r = e, *w = e;

	while (*r != '\0') {
		if (r[0] == '/' && (r[1] == '/' ||
		    (r[1] == '.' && (r[2] == '/' || r[2] == '\0')))) {
			r += r[1] == '/' ? 1 : 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
	if (e[0] == '\0') {
		e[0] = '/';
		e[1] = '\0';
	}
}

const char *
sandbox_deny_read_path(const char *s, const char *home, char **out)
{
	const char *p;
	char *e;
	size_t n;

	*out = NULL;
	if (s[0] == '~' && (s[1] == '/' || s[1] == '\0')) {
		if (home == NULL || home[0] != '/')
			return "\"~\" needs $HOME to be an absolute path";
		xasprintf(&e, "%s%s", home, s + 1);
	} else if (s[0] == '/')
		e = xstrdup(s);
	else
		return "expected an absolute path (or ~ with an absolute $HOME)";
	for (p = e; (p = strstr(p, "/..")) != NULL; p += 3)
		if (p[3] == '/' || p[3] == '\0') {
			free(e);
			return "'..' component";
		}
	lexical_clean(e);
	for (n = strlen(e); n > 1 && e[n - 1] == '/'; n--)
		e[n - 1] = '\0';
	*out = e;
	return NULL;
}
