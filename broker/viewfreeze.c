/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* viewfreeze: see viewfreeze.h. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "broker/broker_int.h"
#include "broker/cowview.h"
#include "broker/viewfreeze.h"
#include "common/log.h"

/* Makes the overlay whose root is |rootfd| read-only (|ro|) or writable
 * again; 0, or -1 with errno set. */
static int
view_set_readonly(int rootfd, int ro)
{
	int fd, rc, saved;

	if ((fd = fspick(rootfd, "", FSPICK_EMPTY_PATH | FSPICK_CLOEXEC)) == -1)
		return -1;
	rc = fsconfig(fd, FSCONFIG_SET_FLAG, ro ? "ro" : "rw", NULL, 0);
	if (rc == 0)
		rc = fsconfig(fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/* Whether the namespace |fd| is the one /proc/self/ns/|name| is. */
static int
ns_is_own(int fd, const char *name)
{
	char path[64];
	struct stat a, b;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * view_set_readonly() from a child that joined |userns| (unless it is
 * ours) and |mntns|: where the view was mounted, so that it holds the
 * capabilities the switch needs.  0, or -1 with errno set.
 */
static int
view_set_readonly_in(int rootfd, int userns, int mntns, int ro)
{
	pid_t pid;
	int status;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		if (!ns_is_own(userns, "user") &&
		    setns(userns, CLONE_NEWUSER) == -1)
			_exit(errno);
		if (setns(mntns, CLONE_NEWNS) == -1)
			_exit(errno);
		_exit(view_set_readonly(rootfd, ro) == 0 ? 0 : errno);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	errno = WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
	return -1;
}

/* The view read-only or writable: by the broker itself, else (EPERM:
 * not root) from within the view's namespaces. */
static int
view_switch(struct broker *b, int ro)
{
	if (view_set_readonly(b->rootfd, ro) == 0)
		return 0;
	if (errno != EPERM || b->view_userns == -1 || b->view_mntns == -1)
		return -1;
	return view_set_readonly_in(
	    b->rootfd, b->view_userns, b->view_mntns, ro);
}

void
viewfreeze_set_ns(struct broker *b, int userns, int mntns)
{
	if (b->view_userns != -1)
		close(b->view_userns);
	if (b->view_mntns != -1)
		close(b->view_mntns);
	b->view_userns = userns;
	b->view_mntns = mntns;
}

int
viewfreeze_needed(const struct call *c, size_t hosts)
{
	if (!cowview_active(c->b))
		return 0;
	/* A human's yes holds for the view the approver was shown: the run
	 * reads it as it goes (a script it sources after a while). */
	return (c->tool->nsecrets > 0 && hosts > 0) || c->approved[0] != '\0';
}

/* Why |c| needs the view still, for its refusals. */
static const char *
freeze_why(const struct call *c)
{
	return c->approved[0] != '\0'
	    ? "was approved by a human on the session's view as it was shown"
	    : "runs with a secret and the network";
}

int
viewfreeze_hold(struct call *c, json_t **out)
{
	struct broker *b = c->b;

	if (c->view_frozen)
		return 0;
	if (b->view_stuck) {
		*out = tool_error("sandbox_setup", 0, NULL,
		    "the session's view could not be made writable again "
		    "after an earlier run (view_thaw_failed); nothing was run");
		return -1;
	}
	if (b->view_frozen == 0) {
		/* A set landing writes the view: the run waits its turn. */
		if (b->landing != NULL) {
			*out = tool_error("busy", 1, NULL,
			    "%s %s, which needs the session's view still, and "
			    "a change set is landing in it; nothing was run; "
			    "retry",
			    c->tool->name, freeze_why(c));
			return -1;
		}
		if (view_switch(b, 1) == -1) {
			if (errno == EBUSY)
				*out = tool_error("busy", 1, NULL,
				    "%s %s, which needs the session's view "
				    "still, and a file of it is open for "
				    "writing; nothing was run; retry once "
				    "nothing writes the workspace",
				    c->tool->name, freeze_why(c));
			else
				*out = tool_error("sandbox_setup", 0, NULL,
				    "cannot make the session's view "
				    "read-only for %s: %s; nothing was run",
				    c->tool->name, strerror(errno));
			return -1;
		}
		(void)broker_audit(b, "view_frozen",
		    json_pack(
			"{s:O, s:s}", "id", c->id, "tool", c->tool->name));
	}
	b->view_frozen++;
	c->view_frozen = 1;
	return 0;
}

int
viewfreeze_release(struct call *c)
{
	struct broker *b = c->b;

	if (!c->view_frozen)
		return 0;
	c->view_frozen = 0;
	if (--b->view_frozen > 0)
		return 0;
	if (view_switch(b, 0) == -1) {
		/* Read-only for good: closed, not open. */
		log_warnx(
		    "the session's view stays read-only: %s", strerror(errno));
		(void)broker_audit(b, "view_thaw_failed",
		    json_pack(
			"{s:O, s:s}", "id", c->id, "error", strerror(errno)));
		b->view_stuck = 1;
		return 0;
	}
	(void)broker_audit(b, "view_thawed", json_pack("{s:O}", "id", c->id));
	return 1;
}

int
viewfreeze_active(const struct broker *b)
{
	return b->view_frozen > 0 || b->view_stuck;
}

int
viewfreeze_stuck(const struct broker *b)
{
	return b->view_stuck;
}
