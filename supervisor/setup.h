/*
 * setup: what run, serve and exec share before they start serving: the
 * manifest (a file or the built-in default) and the canonical workspace.
 */
#ifndef AIRLOCK_SETUP_H
#define AIRLOCK_SETUP_H

#include <limits.h>

#include "policy/manifest.h"

/*
 * Loads |path|, or the built-in default manifest when |path| is NULL.
 * Returns the manifest, or prints the diagnostic and returns NULL.
 */
struct manifest	*setup_manifest(const char *path);

/*
 * Resolves |path| (default ".") to a canonical absolute directory in
 * out[PATH_MAX].  Refuses "/" and anything that is not a directory.
 * Returns 0, or prints why and returns -1.
 */
int		 setup_workspace(const char *path, char out[PATH_MAX]);

#endif
