/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* vcsdirs: version-control metadata directories (vcsdirs.h). */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "policy/vcsdirs.h"

const char *const vcs_dirs[VCS_DIRS + 1] = { ".git", ".hg", ".jj", ".sl",
	NULL };

/* 1 if |cmp| finds |name| equal to one of vcs_dirs. */
static int
vcs_find(const char *name, int (*cmp)(const char *, const char *))
{
	size_t i;

	for (i = 0; vcs_dirs[i] != NULL; i++)
		if (cmp(name, vcs_dirs[i]) == 0)
			return 1;
	return 0;
}

int
vcs_dir_name(const char *name)
{
	return vcs_find(name, strcasecmp);
}

int
vcs_dir_exact(const char *name)
{
	return vcs_find(name, strcmp);
}
