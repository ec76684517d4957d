/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "broker/approval.h"
#include "broker/secrets.h"
#include "common/log.h"
#include "common/util.h"
#include "supervisor/commands.h"
#include "policy/manifest_sig.h"
#include "supervisor/session.h"
#include "supervisor/setup.h"

struct manifest *
setup_manifest(const char *path)
{
	struct manifest	*m;
	char		 err[1024];
	int		 rc;

	if (path == NULL)
		rc = manifest_load_default(&m, err, sizeof(err));
	else
		rc = manifest_load_verified(path, &m, err, sizeof(err));
	if (rc != 0) {
		/* The manifest's words: escaped, folded (log_warnx()). */
		log_warnx("%s", err);
		return NULL;
	}
	return m;
}

int
setup_workspace(const char *path, char out[PATH_MAX])
{
	struct stat st;

	if (path == NULL)
		path = ".";
	if (realpath(path, out) == NULL) {
		int missing = errno == ENOENT;

		log_warn("workspace %s", path);
		return missing ? EXIT_NOINPUT : EXIT_USAGE;
	}
	if (stat(out, &st) == -1 || !S_ISDIR(st.st_mode)) {
		log_warnx("workspace %s is not a directory", out);
		return EXIT_USAGE;
	}
	if (strcmp(out, "/") == 0) {
		log_warnx("refusing / as the workspace");
		return EXIT_USAGE;
	}
	return setup_workspace_apart(out) == 0 ? 0 : EXIT_USAGE;
}

/*
 * |dir| canonical where it exists; where it does not yet, its nearest
 * existing ancestor canonical with the rest appended.
 */
static void
canonical_dir(const char *dir, char out[PATH_MAX])
{
	char	 head[PATH_MAX], *slash;

	if (realpath(dir, out) != NULL)
		return;
	snprintf(head, sizeof(head), "%s", dir);
	while ((slash = strrchr(head, '/')) != NULL && slash != head) {
		*slash = '\0';
		if (realpath(head, out) != NULL) {
			size_t n = strlen(out);

			snprintf(out + n, PATH_MAX - n, "%s", dir + strlen(head));
			return;
		}
	}
	snprintf(out, PATH_MAX, "%s", dir);
}

int
setup_workspace_apart(const char *ws)
{
	char	 dirs[3][PATH_MAX], real[PATH_MAX];
	char	*secrets = NULL;
	const char *what[3] = { "state (sessions, audit logs)",
	    "runtime (approvals)", "credential store" };
	size_t	 i;
	int	 bad = 0;

	if (session_state_dir(dirs[0], sizeof(dirs[0])) != 0 ||
	    approvals_runtime_dir(dirs[1], sizeof(dirs[1])) != 0 ||
	    secrets_default_dir(&secrets) != 0 ||
	    snprintf(dirs[2], sizeof(dirs[2]), "%s", secrets) >=
	    (int)sizeof(dirs[2])) {
		/* Fail closed: without the paths, no proof they are apart. */
		log_warnx("cannot tell where airlock's own directories are");
		free(secrets);
		return -1;
	}
	free(secrets);
	for (i = 0; i < 3 && !bad; i++) {
		canonical_dir(dirs[i], real);
		if (path_is_beneath(real, ws) || path_is_beneath(ws, real)) {
			log_warnx("refusing workspace %s: airlock's %s directory "
			    "%s %s it; runners would see or change it", ws,
			    what[i], real, path_is_beneath(real, ws) ? "is inside" :
			    "contains");
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* Adds |abs| beneath |ws|, workspace-relative, to |sp|'s protected paths. */
static void
protect_beneath(struct sandbox_policy *sp, const char *ws, const char *abs)
{
	const char *rel;
	size_t i;

	if (!path_is_beneath(abs, ws) || strcmp(abs, ws) == 0)
		return;
	rel = abs + strlen(ws) + (strcmp(ws, "/") != 0);
	for (i = 0; i < sp->nprotected; i++)
		if (strcmp(sp->protected[i], rel) == 0)
			return;
	sp->protected = xreallocarray(sp->protected, sp->nprotected + 2,
	    sizeof(*sp->protected));
	sp->protected[sp->nprotected++] = xstrdup(rel);
	sp->protected[sp->nprotected] = NULL;
}

void
setup_protect_manifest(struct manifest *m, const char *workspace)
{
	char ws[PATH_MAX], d[PATH_MAX], dir[PATH_MAX], name[PATH_MAX];
	char real[PATH_MAX];
	const char *sfx[2] = { "", ".sig" }, *base, *slash;
	size_t i;

	if (m->path == NULL || m->path[0] == '<' ||
	    realpath(workspace, ws) == NULL)
		return;
	/* The names as they stand in their directory, and what they are. */
	if ((slash = strrchr(m->path, '/')) == NULL) {
		base = m->path;
		snprintf(d, sizeof(d), ".");
	} else {
		base = slash + 1;
		snprintf(d, sizeof(d), "%.*s",
		    (int)(slash == m->path ? 1 : slash - m->path), m->path);
	}
	if (realpath(d, dir) == NULL)
		return;
	for (i = 0; i < 2; i++) {
		if (snprintf(name, sizeof(name), "%s/%s%s",
		    strcmp(dir, "/") == 0 ? "" : dir, base, sfx[i]) >=
		    (int)sizeof(name))
			continue;
		protect_beneath(&m->sandbox, ws, name);
		if (realpath(name, real) != NULL)
			protect_beneath(&m->sandbox, ws, real);
	}
}
