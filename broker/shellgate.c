/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The shell rules in the request path.  The decision is made once, on
 * the exact string the runner will be given (sh -c COMMAND); "ask" sends
 * the call down the ordinary approval path, whose digest binds the
 * human's decision to that string (action_plan: argv).  The rules are
 * pure; where a recursive removal's operand goes is asked of the
 * workspace here (where_beneath).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/openat2.h>

#include "broker/shellgate.h"
#include "policy/shrules.h"

/*
 * Without openat2 (an old kernel, a seccomp filter): |p|'s components
 * looked at without following any, so that a path with no symlink and no
 * ".." on the way is inside; one with either cannot be told.
 */
static enum shfs_where
where_walk(int rootfd, char *p)
{
	struct stat st;
	char *s, c;

	for (s = p;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (strcmp(p, "..") == 0 ||
		    (s - p >= 3 && strcmp(s - 3, "/..") == 0))
			return SHFS_UNKNOWN;
		if (*p != '\0') {
			if (fstatat(rootfd, p, &st, AT_SYMLINK_NOFOLLOW) != 0)
				return errno == ENOENT || errno == ENOTDIR
				    ? SHFS_INSIDE
				    : SHFS_UNKNOWN;
			if (S_ISLNK(st.st_mode))
				return SHFS_UNKNOWN;
		}
		*s = c;
		if (c == '\0')
			return SHFS_INSIDE;
	}
}

/*
 * Where |rel| leads beneath the workspace (b->rootfd: the agent's view in
 * a copy-on-write session) as the runner's kernel resolves it: openat2
 * beneath the root, symlinks followed, the last component only where
 * |rel| ends in "/" or "/." (shrules.h).  Nothing there is inside: the
 * removal finds nothing (or what the string makes, which no check here
 * can see).
 */
static enum shfs_where
where_beneath(void *arg, const char *rel)
{
	const struct broker *b = arg;
	struct open_how how;
	struct stat st, root;
	char p[4096];
	size_t n = strlen(rel);
	int fd, tries, follow;

	if (n >= sizeof(p))
		return SHFS_UNKNOWN;
	memcpy(p, rel, n + 1);
	follow = n > 0 &&
	    (p[n - 1] == '/' || (n > 1 && p[n - 1] == '.' && p[n - 2] == '/'));
	if (!follow) {
		/* rm removes the last component itself: its directory */
		while (n > 0 && p[n - 1] != '/')
			n--;
		p[n] = '\0';
		if (n == 0)
			return SHFS_INSIDE;
	}
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	for (tries = 0;; tries++) {
		fd = (int)syscall(SYS_openat2, b->rootfd, p, &how, sizeof(how));
		if (fd >= 0 ||
		    !((errno == EAGAIN || errno == EINTR) && tries < 16))
			break;
	}
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		return where_walk(b->rootfd, p);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? SHFS_INSIDE
		    : errno == EXDEV			   ? SHFS_OUT
							   : SHFS_UNKNOWN;
	if (fstat(fd, &st) != 0 || fstat(b->rootfd, &root) != 0) {
		close(fd);
		return SHFS_UNKNOWN;
	}
	close(fd);
	/* the directory of a last component not followed may be the root
	   (r/x with r -> .): what is removed is beneath it */
	return follow && st.st_dev == root.st_dev && st.st_ino == root.st_ino
	    ? SHFS_ROOT
	    : SHFS_INSIDE;
}

enum authorization
shellgate_decide(struct broker *b, struct call *c, json_t **out)
{
	const struct tool *t = c->tool;
	json_t *cmd;
	struct shverdict v;
	struct shfs fs;
	enum authorization rule;

	c->shell_rule[0] = '\0';
	if (t->action != ACTION_EXEC || t->shell_rules == NULL)
		return t->authorization;
	cmd = json_object_get(c->args, "command");
	if (!json_is_string(cmd) ||
	    strlen(json_string_value(cmd)) != json_string_length(cmd)) {
		snprintf(c->shell_rule, sizeof(c->shell_rule),
		    "the command "
		    "is not a string without NUL bytes");
		*out = tool_error(
		    "denied", 0, NULL, "%s: %s", t->name, c->shell_rule);
		return AUTHZ_DENY;
	}
	fs.where = where_beneath;
	fs.arg = b;
	(void)shrules_decide_fs(t->shell_rules, json_string_value(cmd),
	    json_string_length(cmd), b->cfg.workspace, &fs, &v);
	if (v.command[0] != '\0')
		snprintf(c->shell_rule, sizeof(c->shell_rule), "%s, on `%s`",
		    v.reason, v.command);
	else
		snprintf(c->shell_rule, sizeof(c->shell_rule), "%s", v.reason);
	switch (v.decision) {
	case SHD_DENY:
		*out = tool_error("denied", 0, NULL,
		    "%s: the shell rules "
		    "deny this command: %s",
		    t->name, c->shell_rule);
		return AUTHZ_DENY;
	case SHD_ASK:
		rule = AUTHZ_APPROVAL;
		break;
	default:
		rule = AUTHZ_ALLOW;
		break;
	}
	if (t->authorization == AUTHZ_DENY)
		return AUTHZ_DENY;
	if (t->authorization == AUTHZ_APPROVAL)
		return AUTHZ_APPROVAL;
	return rule;
}
