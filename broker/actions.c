/*
 * The built-in actions behind tools/call.  Each handler runs after the
 * arguments fit the tool's input contract and the call was allowed; it
 * returns the action's full result (broker.c projects and validates it)
 * or a structured error.
 *
 * Reads happen in the broker, through path_resolve(), which opens beneath
 * the workspace or refuses; anything that executes runs in a runner.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker/broker_int.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/path.h"

#define READ_FILE_MAX	(1024 * 1024)

/* The workspace-relative path argument of a call, or NULL. */
static const char *
arg_string(struct call *c, const char *name)
{
	return json_string_value(json_object_get(c->args, name));
}

/*
 * Reads a whole regular file beneath the workspace.  Returns 0 with
 * *data (caller frees) or ACTION_ERROR with *out set.
 */
static int
read_workspace_file(struct call *c, const char *rel, char **data,
    size_t *len, json_t **out)
{
	char		 err[256];
	struct stat	 st;
	int		 fd;
	size_t		 got = 0;
	char		*buf;

	*data = NULL;
	*len = 0;
	if (path_resolve(c->b->rootfd, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK,
	    &fd, err, sizeof(err)) != 0) {
		*out = tool_error("path_refused", 0, NULL, "%s", err);
		return ACTION_ERROR;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		*out = tool_error("not_a_file", 0, NULL,
		    "%s is not a regular file", rel);
		return ACTION_ERROR;
	}
	if (st.st_size > READ_FILE_MAX) {
		close(fd);
		*out = tool_error("too_large", 0, NULL,
		    "%s is %lld bytes; read_file returns at most %d",
		    rel, (long long)st.st_size, READ_FILE_MAX);
		return ACTION_ERROR;
	}
	buf = xcalloc(1, (size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*data = buf;
	*len = got;
	return 0;
}

static int
act_read_file(struct call *c, json_t **out)
{
	const char	*rel = arg_string(c, "path");
	char		*data, hex[SHA256_HEX_LEN + 1];
	size_t		 len;

	if (rel == NULL) {
		*out = tool_error("invalid_arguments", 0, NULL,
		    "read_file needs a path");
		return ACTION_ERROR;
	}
	if (read_workspace_file(c, rel, &data, &len, out) != 0)
		return ACTION_ERROR;
	if (!utf8_valid(data, len) || memchr(data, '\0', len) != NULL) {
		free(data);
		*out = tool_error("binary_file", 0, NULL,
		    "%s is not UTF-8 text; read_file returns text only", rel);
		return ACTION_ERROR;
	}
	sha256_hex(data, len, hex);
	*out = json_pack("{s:s%, s:s, s:s, s:I}", "content", data, len,
	    "sha256", hex, "path", rel, "size", (json_int_t)len);
	free(data);
	if (*out == NULL)
		fatalx("json_pack");
	return ACTION_DONE;
}

static char **
strv_copy(char *const *v)
{
	size_t	 n, i;
	char	**copy;

	for (n = 0; v != NULL && v[n] != NULL; n++)
		;
	copy = xcalloc(n + 1, sizeof(*copy));
	for (i = 0; i < n; i++)
		copy[i] = xstrdup(v[i]);
	return copy;
}

/* The environment of a check: a fixed base plus the check's pinned env. */
static char **
check_env(const struct check *chk, const char *workspace)
{
	static const char *base[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		"HOME=/tmp",
		"TMPDIR=/tmp",
		NULL
	};
	size_t	 n = 0, i;
	char	**env;

	env = xcalloc(sizeof(base) / sizeof(base[0]) + chk->nenv + 2,
	    sizeof(*env));
	for (i = 0; base[i] != NULL; i++)
		env[n++] = xstrdup(base[i]);
	xasprintf(&env[n++], "AIRLOCK_WORKSPACE=%s", workspace);
	for (i = 0; i < chk->nenv; i++)
		env[n++] = xstrdup(chk->env[i]);
	return env;
}

static int
act_run_check(struct call *c, json_t **out)
{
	const char	*id = arg_string(c, "checkId");
	int64_t		 timeout;

	if (id == NULL || (c->check = manifest_check(c->b->m, id)) == NULL) {
		*out = tool_error("invalid_arguments", 0, NULL,
		    "no such check: %s", id != NULL ? id : "(none)");
		return ACTION_ERROR;
	}
	c->argv = strv_copy(c->check->argv);
	c->envp = check_env(c->check, c->b->cfg.workspace);
	timeout = c->tool->timeout_ms;
	if (c->check->timeout_ms > 0 && c->check->timeout_ms < timeout)
		timeout = c->check->timeout_ms;
	return call_start_runner(c, timeout, out);
}

action_fn
action_handler(enum tool_action action)
{
	switch (action) {
	case ACTION_READ_FILE:
		return act_read_file;
	case ACTION_RUN_CHECK:
		return act_run_check;
	default:
		return NULL;
	}
}
