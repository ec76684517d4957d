/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* seatbelt: a macOS Seatbelt (SBPL) profile from a sandbox policy. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "policy/seatbelt.h"

/* Writes |s| as an SBPL string literal. */
static void
quote(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static int
rel_ok(const char *rel)
{
	const char *s = rel;
	size_t n;

	if (*rel == '/' || *rel == '\0')
		return 0;
	while (*s != '\0') {
		n = strcspn(s, "/");
		if ((n == 2 && s[0] == '.' && s[1] == '.') ||
		    (n == 1 && s[0] == '.'))
			return 0;
		s += n;
		while (*s == '/')
			s++;
	}
	return 1;
}

int
seatbelt_profile(const struct sandbox_policy *sp, const char *workspace,
    const char *home, char **out)
{
	char *buf = NULL, *path = NULL, *slash;
	size_t len = 0, i, wslen;
	FILE *fp;
	int rc = 0;

	*out = NULL;
	wslen = strlen(workspace);
	if (workspace[0] != '/' || wslen < 2 || workspace[wslen - 1] == '/')
		return AL_ERR_PATH;
	for (i = 0; i < sp->nprotected; i++)
		if (!rel_ok(sp->protected[i]))
			return AL_ERR_PATH;
	if ((fp = open_memstream(&buf, &len)) == NULL)
		return AL_ERR_ALLOC;

	fprintf(fp, ";; airlock sandbox profile (generated; do not edit)\n"
	    "(version 1)\n(deny default)\n\n"
	    ";; processes\n"
	    "(allow process-exec)\n(allow process-fork)\n"
	    "(allow signal (target same-sandbox))\n"
	    "(allow sysctl-read)\n(allow mach-lookup)\n"
	    "(allow ipc-posix-shm)\n\n");

	fprintf(fp, ";; reading: everything but the denied paths\n"
	    "(allow file-read*)\n");
	for (i = 0; i < sp->ndeny_read; i++) {
		const char *d = sp->deny_read[i];

		if (d[0] == '~' && (d[1] == '/' || d[1] == '\0')) {
			if (home == NULL)
				continue;
			fprintf(fp, "(deny file-read* (subpath ");
			free(path);
			if (asprintf(&path, "%s%s", home, d + 1) == -1) {
				path = NULL;
				rc = AL_ERR_ALLOC;
				goto done;
			}
			quote(fp, path);
			fprintf(fp, "))\n");
		} else if (d[0] == '/') {
			fprintf(fp, "(deny file-read* (subpath ");
			quote(fp, d);
			fprintf(fp, "))\n");
		}
	}

	fprintf(fp, "\n;; writing: the workspace, temporary files, /dev/null\n"
	    "(allow file-write*\n    (subpath ");
	quote(fp, workspace);
	fprintf(fp, ")\n    (subpath \"/private/tmp\")\n"
	    "    (subpath \"/private/var/folders\")\n"
	    "    (literal \"/dev/null\"))\n");

	fprintf(fp, "\n;; protected paths: no write, unlink or rename, "
	    "nor of any ancestor\n");
	for (i = 0; i < sp->nprotected; i++) {
		free(path);
		if (asprintf(&path, "%s/%s", workspace, sp->protected[i]) ==
		    -1) {
			path = NULL;
			rc = AL_ERR_ALLOC;
			goto done;
		}
		while ((slash = strrchr(path, '/')) != NULL && slash[1] == '\0')
			*slash = '\0';
		fprintf(fp, "(deny file-write* (subpath ");
		quote(fp, path);
		fprintf(fp, "))\n");
		/* Renaming a parent would carry the path out from under the
		 * rule; sandbox_check treats rename as unlink of the source. */
		while ((slash = strrchr(path, '/')) != NULL &&
		    (size_t)(slash - path) >= wslen) {
			*slash = '\0';
			fprintf(fp, "(deny file-write-unlink (literal ");
			quote(fp, path);
			fprintf(fp, "))\n");
		}
	}

	fprintf(fp, "\n;; network\n");
	if (sp->network)
		fprintf(fp, "(deny network*)\n(allow network-outbound "
		    "(remote ip \"localhost:*\"))\n");
	else
		fprintf(fp, "(deny network*)\n");
done:
	free(path);
	if (fclose(fp) != 0 && rc == 0)
		rc = AL_ERR_ALLOC;
	if (rc != 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}
