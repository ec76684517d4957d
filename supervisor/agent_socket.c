/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The broker's MCP socket in the agent's sandbox; see agent_socket.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "common/util.h"
#include "supervisor/agent_socket.h"

#ifndef NS_GET_PARENT
#define NS_GET_PARENT 0xb702 /* _IO(0xb7, 0x2) */
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

#define NS_DEPTH_MAX 32 /* the kernel nests pid namespaces 32 deep */

static int
fail(char *err, size_t errlen, const char *what, const char *path)
{
	snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
	return -1;
}

/* Writes the MCP client configuration that names "airlock connect". */
static int
write_config(int dirfd, const char *airlock_path)
{
	json_t *cfg;
	char *text;
	int fd, rc;

	cfg = json_pack("{s:{s:{s:s, s:[s]}}}", "mcpServers", "airlock",
	    "command", airlock_path, "args", "connect");
	if (cfg == NULL || (text = json_dumps(cfg, JSON_INDENT(2))) == NULL) {
		json_decref(cfg);
		errno = ENOMEM;
		return -1;
	}
	json_decref(cfg);
	fd = openat(
	    dirfd, "mcp.json", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	rc = fd == -1 ? -1 : write_all(fd, text, strlen(text));
	if (rc == 0)
		rc = write_all(fd, "\n", 1);
	if (fd != -1)
		close(fd);
	free(text);
	return rc == 0 ? 0 : -1;
}

int
agent_socket_open(struct agent_socket *as, const char *session_dir,
    const char *airlock_path, uid_t uid, gid_t gid, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	int dirfd;

	memset(as, 0, sizeof(*as));
	as->fd = -1;
	if (snprintf(as->dir, sizeof(as->dir), "%s/broker", session_dir) >=
	    (int)sizeof(as->dir)) {
		errno = ENAMETOOLONG;
		return fail(err, errlen, "broker directory", session_dir);
	}
	/* Searchable by the agent's uid, writable only by airlock. */
	if (mkdir(as->dir, 0755) == -1)
		return fail(err, errlen, "mkdir", as->dir);
	if ((dirfd = open(
		 as->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return fail(err, errlen, "open", as->dir);
	if (write_config(dirfd, airlock_path) != 0) {
		close(dirfd);
		return fail(err, errlen, "write mcp.json in", as->dir);
	}
	/*
	 * Bound through the directory's descriptor: the session path may be
	 * longer than sun_path, and nothing can swap the directory meanwhile.
	 */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path),
	    "/proc/self/fd/%d/mcp.sock", dirfd);
	if ((as->fd = socket(AF_UNIX,
		 SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(as->fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(as->fd, 16) == -1) {
		close(dirfd);
		return fail(err, errlen, "listen on mcp.sock in", as->dir);
	}
	/* Only the agent's uid may connect (and root, who may anyway). */
	if (fchmodat(dirfd, "mcp.sock", 0600, 0) == -1 ||
	    (geteuid() == 0 &&
		fchownat(dirfd, "mcp.sock", uid, gid, AT_SYMLINK_NOFOLLOW) ==
		    -1)) {
		close(dirfd);
		return fail(err, errlen, "permissions of mcp.sock in", as->dir);
	}
	close(dirfd);
	return 0;
}

/* The pid namespace of |pid| as an open descriptor, or -1. */
static int
open_pidns(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/ns/pid", (long)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int
agent_socket_pin(struct agent_socket *as, dev_t ns_dev, ino_t ns_ino)
{
	as->ns_dev = ns_dev;
	as->ns_ino = ns_ino;
	as->pinned = 1;
	return 0;
}

/* 1 if the namespace |fd| (consumed) is the pinned one or beneath it. */
static int
ns_within(const struct agent_socket *as, int fd)
{
	struct stat st;
	int depth, parent;

	for (depth = 0; fd != -1 && depth <= NS_DEPTH_MAX; depth++) {
		if (fstat(fd, &st) == 0 && st.st_dev == as->ns_dev &&
		    st.st_ino == as->ns_ino) {
			close(fd);
			return 1;
		}
		parent = ioctl(fd, NS_GET_PARENT);
		close(fd);
		fd = parent;
	}
	if (fd != -1)
		close(fd);
	return 0;
}

int
agent_socket_peer_ok(
    int fd, const struct ucred *cred, void *arg, char *why, size_t whylen)
{
	const struct agent_socket *as = arg;
	socklen_t len = sizeof(int);
	int pidfd = -1, nsfd, ok;

	if (!as->pinned) {
		snprintf(why, whylen, "the agent's sandbox is not up yet");
		return -1;
	}
	/*
	 * A pidfd for the peer pins it: if it is still alive after the
	 * namespace was read, its pid was not reused meanwhile.  Kernels
	 * before 6.5 lack SO_PEERPIDFD; pidfd_open then comes second best.
	 */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == -1)
		pidfd = (int)syscall(SYS_pidfd_open, cred->pid, 0);
	if (pidfd == -1) {
		snprintf(why, whylen, "pid %ld: %s", (long)cred->pid,
		    strerror(errno));
		return -1;
	}
	nsfd = open_pidns(cred->pid);
	ok = nsfd != -1 && ns_within(as, nsfd);
	if (ok && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == -1)
		ok = 0;
	close(pidfd);
	if (!ok) {
		snprintf(why, whylen, "pid %ld is not in the agent's sandbox",
		    (long)cred->pid);
		return -1;
	}
	return 0;
}

void
agent_socket_close(struct agent_socket *as)
{
	char path[PATH_MAX + 16];

	if (as->fd != -1) {
		close(as->fd);
		as->fd = -1;
	}
	if (as->dir[0] == '\0')
		return;
	snprintf(path, sizeof(path), "%s/mcp.sock", as->dir);
	(void)unlink(path);
	snprintf(path, sizeof(path), "%s/mcp.json", as->dir);
	(void)unlink(path);
	(void)rmdir(as->dir);
	as->dir[0] = '\0';
}
