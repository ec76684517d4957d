/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * agent_socket: the broker's MCP socket inside the agent's sandbox.
 *
 * "airlock run" makes a directory of its own in the session directory
 * holding a listening unix socket (mcp.sock) and an MCP client
 * configuration (mcp.json) that names "airlock connect".  The runner binds
 * that directory read-only at SANDBOX_BROKER_DIR (/run/airlock) in the
 * agent's sandbox, so "airlock connect" reaches the broker with no
 * inherited descriptor and no environment: real agent CLIs start their MCP
 * servers with neither.  Nothing else sees the socket: the session
 * directory is 0700, runners and other sessions do not get the bind, and
 * every accepted peer must live in the agent's pid namespace (or one
 * nested in it).
 */
#ifndef AIRLOCK_AGENT_SOCKET_H
#define AIRLOCK_AGENT_SOCKET_H

#include <limits.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

struct agent_socket {
	char dir[PATH_MAX]; /* host directory bound at /run/airlock */
	int fd; /* listening, non-blocking; -1 when closed */
	dev_t ns_dev; /* the agent's pid namespace, once pinned */
	ino_t ns_ino;
	int pinned;
};

/*
 * Creates |session_dir|/broker with mcp.sock listening and mcp.json naming
 * |airlock_path| (the airlock binary as the sandbox sees it).  The socket
 * and the directory belong to |uid|:|gid| when airlock runs as root.
 * Returns 0, or -1 with the reason in err[0..errlen).
 */
int agent_socket_open(struct agent_socket *as, const char *session_dir,
    const char *airlock_path, uid_t uid, gid_t gid, char *err, size_t errlen);

/*
 * Records the agent's pid namespace (runner_proc_pidns()): from then on
 * only its processes may connect.  Returns 0.
 */
int agent_socket_pin(struct agent_socket *as, dev_t ns_dev, ino_t ns_ino);

/*
 * A broker_peer_fn: 0 if the peer of |fd| runs in the pinned pid
 * namespace or one beneath it, else -1 with why[0..whylen) set.  Refuses
 * everything until agent_socket_pin() succeeded.
 */
int agent_socket_peer_ok(
    int fd, const struct ucred *cred, void *arg, char *why, size_t whylen);

/* Closes the socket and removes the directory.  Safe to call twice. */
void agent_socket_close(struct agent_socket *as);

#endif
