#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
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
		rc = manifest_load(path, &m, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "airlock: %s\n", err);
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
		log_warn("workspace %s", path);
		return -1;
	}
	if (stat(out, &st) == -1 || !S_ISDIR(st.st_mode)) {
		log_warnx("workspace %s is not a directory", out);
		return -1;
	}
	if (strcmp(out, "/") == 0) {
		log_warnx("refusing / as the workspace");
		return -1;
	}
	return 0;
}
