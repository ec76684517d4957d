/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * landlock: the filesystem, network and scope rules of a runner.
 *
 * The rules mirror the mount policy, so a mistake in one layer is caught
 * by the other: read and execute beneath "/" (which holds only what the
 * runner was given), read-write beneath the workspace and /tmp, write on
 * the few device files.  TCP bind and connect are refused unless the
 * policy grants network, and (ABI >= 6) abstract unix sockets and signals
 * are scoped to the sandbox.  .git and the protected paths are read-only
 * mounts: landlock cannot subtract a subtree from a grant, so the mount
 * layer alone keeps them read-only.
 *
 * Debian 12's <linux/landlock.h> predates ABI 4, so the constants are
 * defined here.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "runner/runner.h"
#include "runner/runner_int.h"

#define LL_CREATE_RULESET_VERSION	(1U << 0)
#define LL_RULE_PATH_BENEATH		1
#define LL_RULE_NET_PORT		2

#define LL_FS_EXECUTE		(1ULL << 0)
#define LL_FS_WRITE_FILE	(1ULL << 1)
#define LL_FS_READ_FILE		(1ULL << 2)
#define LL_FS_READ_DIR		(1ULL << 3)
#define LL_FS_REMOVE_DIR	(1ULL << 4)
#define LL_FS_REMOVE_FILE	(1ULL << 5)
#define LL_FS_MAKE_CHAR		(1ULL << 6)
#define LL_FS_MAKE_DIR		(1ULL << 7)
#define LL_FS_MAKE_REG		(1ULL << 8)
#define LL_FS_MAKE_SOCK		(1ULL << 9)
#define LL_FS_MAKE_FIFO		(1ULL << 10)
#define LL_FS_MAKE_BLOCK	(1ULL << 11)
#define LL_FS_MAKE_SYM		(1ULL << 12)
#define LL_FS_REFER		(1ULL << 13)	/* ABI 2 */
#define LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */

#define LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define LL_NET_CONNECT_TCP	(1ULL << 1)

#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)

struct ll_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;
	uint64_t	scoped;
};

struct ll_net_port_attr {
	uint64_t	allowed_access;
	uint64_t	port;
};

struct ll_path_beneath_attr {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((packed));

#define LL_FS_READ	(LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_FS_ALL_V1	((1ULL << 13) - 1)

int
runner_landlock_abi(void)
{
	static int abi = -1;

	if (abi == -1) {
		abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		    LL_CREATE_RULESET_VERSION);
		if (abi < 0)
			abi = 0;
	}
	return abi;
}

int
runner_landlock_missing(int abi, char *out, size_t outlen)
{
	static const struct {
		int abi;
		const char *what;
	} since[] = {
		{ 2, "rename and link across directories (refer)" },
		{ 3, "truncate" },
		{ 4, "TCP bind and connect" },
		{ 5, "ioctl on devices" },
		{ 6, "the abstract unix socket and signal scopes" },
	};
	const char *sep = " ";
	size_t i, len;
	int n;

	if (outlen == 0)
		return abi < 6;
	out[0] = '\0';
	if (abi <= 0) {
		snprintf(out, outlen, "the kernel has no landlock: the "
		    "runner runs without it");
		return 1;
	}
	if (abi >= 6)
		return 0;
	n = snprintf(out, outlen, "the kernel's landlock ABI is %d: no "
	    "landlock rule for", abi);
	len = n > 0 ? (size_t)n : 0;
	for (i = 0; i < sizeof(since) / sizeof(since[0]) && len < outlen;
	    i++) {
		if (abi >= since[i].abi)
			continue;
		n = snprintf(out + len, outlen - len, "%s%s", sep,
		    since[i].what);
		len += n > 0 ? (size_t)n : 0;
		sep = ", ";
	}
	return 1;
}

static uint64_t
fs_rights(int abi)
{
	uint64_t r = LL_FS_ALL_V1;

	if (abi >= 2)
		r |= LL_FS_REFER;
	if (abi >= 3)
		r |= LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= LL_FS_IOCTL_DEV;
	return r;
}

static int
add_path(int rfd, const char *path, uint64_t access)
{
	struct ll_path_beneath_attr pb;
	int fd, rc, e;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -1;
	pb.allowed_access = access;
	pb.parent_fd = fd;
	rc = syscall(SYS_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH, &pb, 0);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int
runner_landlock_apply(const struct runner_plan *p, const char **step)
{
	struct ll_ruleset_attr attr;
	uint64_t all, file_rw;
	size_t size;
	size_t i;
	int abi = p->landlock_abi, rfd, e;

	memset(&attr, 0, sizeof(attr));
	all = fs_rights(abi);
	attr.handled_access_fs = all;
	size = sizeof(uint64_t);
	if (abi >= 4) {
		size = 2 * sizeof(uint64_t);
		if (!p->policy->network || p->use_proxy)
			attr.handled_access_net = LL_NET_BIND_TCP |
			    LL_NET_CONNECT_TCP;
	}
	if (abi >= 6) {
		size = sizeof(attr);
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
	}
	*step = "landlock_create_ruleset";
	if ((rfd = syscall(SYS_landlock_create_ruleset, &attr, size, 0)) == -1)
		return -1;
	file_rw = LL_FS_READ_FILE | LL_FS_WRITE_FILE |
	    (all & (LL_FS_TRUNCATE | LL_FS_IOCTL_DEV));
	*step = "landlock_add_rule";
	if (add_path(rfd, "/", LL_FS_READ) == -1 ||
	    add_path(rfd, p->workspace, all) == -1 ||
	    add_path(rfd, "/tmp", all) == -1 ||
	    add_path(rfd, "/dev/shm", all) == -1 ||
	    (p->policy->home != NULL &&
	    add_path(rfd, p->policy->home, all) == -1))
		goto fail;
	/* The read-write binds: a file gets the rights a file can have. */
	for (i = 0; i < p->policy->nread_write; i++) {
		struct stat st;
		const char *rw = p->policy->read_write[i];

		if (stat(rw, &st) == -1 ||
		    add_path(rfd, rw, S_ISDIR(st.st_mode) ? all : file_rw) == -1)
			goto fail;
	}
	/* Through the proxy: TCP connect to its port, nothing else. */
	if (abi >= 4 && p->use_proxy) {
		struct ll_net_port_attr np;

		np.allowed_access = LL_NET_CONNECT_TCP;
		np.port = RUNNER_PROXY_PORT;
		if (syscall(SYS_landlock_add_rule, rfd, LL_RULE_NET_PORT, &np,
		    0) == -1)
			goto fail;
	}
	/* /dev is a read-only tmpfs holding only the five device nodes (and
	 * /dev/shm, granted above): one rule covers them. */
	if (add_path(rfd, "/dev", file_rw) == -1)
		goto fail;
	*step = "landlock_restrict_self";
	if (syscall(SYS_landlock_restrict_self, rfd, 0) == -1)
		goto fail;
	close(rfd);
	return 0;
fail:
	e = errno;
	close(rfd);
	errno = e;
	return -1;
}
