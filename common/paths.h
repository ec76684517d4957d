/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * paths: where airlock keeps its own files on the host.
 *
 *   state    sessions, audit logs, the audit host key, sealed secrets
 *   runtime  sockets of the running brokers (approvals)
 *   config   the host's configuration (audit.conf)
 *
 * Each is, first match wins:
 *   1. the environment: AIRLOCK_STATE_DIR (or AIRLOCK_HOME, the older
 *      name), AIRLOCK_RUNTIME_DIR, AIRLOCK_CONFIG_DIR; an absolute path;
 *   2. for root, the configured directories: LOCALSTATEDIR/lib/airlock,
 *      RUNSTATEDIR/airlock, SYSCONFDIR/airlock (./configure's
 *      --localstatedir, --runstatedir, --sysconfdir; PATHS_* below);
 *   3. for anyone else, the XDG directories: $XDG_STATE_HOME/airlock or
 *      ~/.local/state/airlock, $XDG_RUNTIME_DIR/airlock, and
 *      $XDG_CONFIG_HOME/airlock or ~/.config/airlock (HOME, else the
 *      password database);
 *   4. else /tmp/airlock-UID, /tmp/airlock-run-UID, /tmp/airlock-config-UID.
 *
 * None of them is ever bound into a sandbox.  Each function writes the
 * path to out[0..outlen) and returns 0 or AL_ERR_LIMIT.
 */
#ifndef AIRLOCK_PATHS_H
#define AIRLOCK_PATHS_H

#include <stddef.h>

#ifndef LOCALSTATEDIR
#define LOCALSTATEDIR "/var"
#endif
#ifndef RUNSTATEDIR
#define RUNSTATEDIR "/run"
#endif
#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

/* The compiled-in defaults for root. */
#define PATHS_STATE_DEFAULT LOCALSTATEDIR "/lib/airlock"
#define PATHS_RUNTIME_DEFAULT RUNSTATEDIR "/airlock"
#define PATHS_CONFIG_DEFAULT SYSCONFDIR "/airlock"

int paths_state_dir(char *out, size_t outlen);
int paths_runtime_dir(char *out, size_t outlen);
int paths_config_dir(char *out, size_t outlen);

/*
 * Which rule gave the directory: "environment (NAME)", "configured",
 * "XDG" or "fallback" (a static string), for `airlock paths`.
 */
const char *paths_state_source(void);
const char *paths_runtime_source(void);
const char *paths_config_source(void);

#endif
