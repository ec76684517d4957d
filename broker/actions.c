/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
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

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "broker/approvalflow.h"
#include "broker/broker_int.h"
#include "broker/cowview.h"
#include "broker/runcall.h"
#include "broker/viewfreeze.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "broker/fwatch.h"
#include "broker/jobs.h"
#include "broker/output.h"
#include "broker/egress.h"
#include "broker/escalate.h"
#include "broker/landjob.h"
#include "broker/patchland.h"
#include "broker/pins.h"
#include "broker/redact.h"
#include "broker/wsdigest.h"
#include "broker/wswrite.h"
#include "policy/writepolicy.h"
#include "policy/path.h"
#include "policy/sensitive.h"

#define READ_FILE_MAX	(16 * 1024 * 1024)	/* read whole, for sha256 */

/* Why a write is refused while a run approved by a human runs: it reads
 * the workspace its approver was shown (broker/runcall.h). */
#define APPROVED_RUNNING_MSG "nothing was written: a run a human " \
	"approved is running on the workspace the approver was shown, and " \
	"nothing is written beneath it until it ends; retry when it ends"

/* The workspace-relative path argument of a call, or NULL. */
static const char *
arg_string(struct call *c, const char *name)
{
	return json_string_value(json_object_get(c->args, name));
}

/*
 * The most read_file may return: its own cap, or less if the tool's
 * declared output type for "content" is shorter (a result that does not
 * fit its contract is refused later anyway; better to say why now).
 */
static size_t
read_limit(const struct call *c)
{
	size_t i, limit = READ_FILE_MAX;

	for (i = 0; i < c->tool->noutput; i++)
		if (strcmp(c->tool->output[i].name, "content") == 0 &&
		    c->tool->output[i].type->kind == TYPE_STRING &&
		    c->tool->output[i].type->max_length < limit)
			limit = c->tool->output[i].type->max_length;
	return limit;
}

/*
 * |rel| did not resolve (|err|): path_refused, saying "refused" when the
 * deepest place on its way is denied, so that an absent name in a denied
 * directory reads as a present one.
 */
static int
resolve_refused(struct call *c, const char *rel, const char *err,
    json_t **out)
{
	char text[512];
	const char *why;

	if ((why = wswrite_missing_denied(c->b->rootfd, rel,
	    c->b->m->sandbox.deny_read, c->b->m->sandbox.ndeny_read)) != NULL) {
		wswrite_denied_text(text, sizeof(text), rel, why);
		err = text;
	}
	*out = tool_error("path_refused", 0, NULL, "%s", err);
	return ACTION_ERROR;
}

/*
 * A workspace path the runner's sandbox masks (sandbox.denyRead, which
 * may name a path inside the workspace) is as absent for the broker's
 * reads and writes: |fd| is the open object (or the directory that is to
 * hold it).  Returns 0, or ACTION_ERROR with *out set.
 */
static int
deny_read_check(struct call *c, int fd, const char *rel, json_t **out)
{
	char text[512];
	const char *why;

	if ((why = sensitive_fd_denied(fd, c->b->m->sandbox.deny_read,
	    c->b->m->sandbox.ndeny_read)) == NULL)
		return 0;
	wswrite_denied_text(text, sizeof(text), rel, why);
	*out = tool_error("path_refused", 0, NULL, "%s", text);
	return ACTION_ERROR;
}

/*
 * Opens a regular file beneath the workspace, no larger than
 * READ_FILE_MAX.  Returns 0 with *fdp and *size, or ACTION_ERROR with
 * *out set.
 */
static int
open_workspace_file(struct call *c, const char *rel, int *fdp, size_t *size,
    json_t **out)
{
	char		 err[256];
	struct stat	 st;
	int		 fd;

	*fdp = -1;
	if (path_resolve(c->b->rootfd, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK,
	    &fd, err, sizeof(err)) != 0)
		return resolve_refused(c, rel, err, out);
	if (deny_read_check(c, fd, rel, out) != 0) {
		close(fd);
		return ACTION_ERROR;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		*out = tool_error("not_a_file", 0, NULL,
		    "%s is not a regular file", rel);
		return ACTION_ERROR;
	}
	if ((size_t)st.st_size > READ_FILE_MAX) {
		close(fd);
		*out = tool_error("too_large", 0, NULL,
		    "%s is %lld bytes; read_file reads files of at most %d",
		    rel, (long long)st.st_size, READ_FILE_MAX);
		return ACTION_ERROR;
	}
	*fdp = fd;
	*size = (size_t)st.st_size;
	return 0;
}

/*
 * Reads a whole regular file beneath the workspace.  Returns 0 with
 * *data (caller frees) or ACTION_ERROR with *out set.
 */
static int
read_workspace_file(struct call *c, const char *rel, char **data,
    size_t *len, json_t **out)
{
	size_t	size = 0;
	int	fd;

	*data = NULL;
	*len = 0;
	if (open_workspace_file(c, rel, &fd, &size, out) != 0)
		return ACTION_ERROR;
	*data = read_fd_upto(fd, size, len);
	close(fd);
	return 0;
}

/*
 * The end of a land a call made itself (a patch, a large file read):
 * the call is answered, then the next set lands or the calls held go
 * on.
 */
static void
own_land_over(struct call *c, int rc, json_t *out)
{
	struct broker *b = c->b;

	b->landing = NULL;
	call_complete(c, rc == 0 ? ACTION_DONE : ACTION_ERROR, out);
	lands_resume(b);
	if (b->landing == NULL)
		calls_release(b);
}

/*
 * A file larger than this is read, hashed, redacted and cut by the
 * lander (broker/landjob.h), off the loop, while the workspace's other
 * readers and writers are held: done on the loop, a read of a 4 MiB
 * file kept every other call, a ping too, waiting 0.2-0.3 s (16 MiB:
 * over a second).  One this size takes the loop some 15 ms.
 */
#define READ_ON_LOOP_MAX	(256 * 1024)

static int
act_read_file(struct call *c, json_t **out)
{
	struct broker	*b = c->b;
	const char	*rel = arg_string(c, "path");
	uintptr_t	 at = (uintptr_t)c->tool, tools = (uintptr_t)b->m->tools;
	int64_t		 start, end;
	size_t		 size, tool = 0;
	int		 fd, status, listed;

	if (rel == NULL) {
		*out = tool_error("invalid_arguments", 0, NULL,
		    "read_file needs a path");
		return ACTION_ERROR;
	}
	if (open_workspace_file(c, rel, &fd, &size, out) != 0)
		return ACTION_ERROR;
	start = output_line_arg(c->args, "startLine");
	end = output_line_arg(c->args, "endLine");
	/* The lander finds the tool by its place in the manifest. */
	listed = at >= tools && (at - tools) % sizeof(*c->tool) == 0 &&
	    (tool = (at - tools) / sizeof(*c->tool)) < b->m->ntools;
	/* Capped, or a line range: broker/output.c. */
	if (size <= READ_ON_LOOP_MAX || b->landing != NULL || !listed) {
		status = output_file(b, c->tool, start, end, rel, fd, size,
		    read_limit(c), out);
		close(fd);
		return status;
	}
	b->landing = c;
	landjob_start_read(c, fd, tool, rel, start, end, size, read_limit(c),
	    own_land_over);
	close(fd);
	return ACTION_PENDING;
}

static char **
strv_new(size_t n)
{
	return xcalloc(n + 1, sizeof(char *));
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
		/* Python reads no bytecode cache from the workspace, where
		 * the agent could forge one for a pinned module (and writes
		 * none there): nothing can lie beneath /dev/null. */
		"PYTHONPYCACHEPREFIX=/dev/null/pycache",
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

/*
 * A check is about to run on the digest |hex|: the agent's own edits
 * since the last check are an attempt at every failing gate
 * (ledger_admit_check(): a changed digest with no broker write between,
 * or with only a check's output and a write by others the watches saw
 * outside the broker's brackets).  Only an agent that writes the
 * workspace (rw, or its copy-on-write view) edits it outside the
 * broker, or one whose workspace holds a file with another name (a hard
 * link, c->ws_linked: a read-only agent wrote it through its name in a
 * --rw bind between failing checks, uncounted); what others wrote of a
 * read-only agent's workspace (a human's editor) is no attempt of its,
 * but with such a file it cannot be told from the agent's, and counts.
 * Returns 0, or -1 with |c| answered budget_exhausted: the session is
 * stopped and the check does not run.
 */
static int
check_admit_edits(struct call *c, const char *hex)
{
	struct broker	*b = c->b;
	char		 limit[64];
	int64_t		 foreign;
	int		 blind, seen;

	foreign = broker_ws_foreign(b, &blind);
	seen = blind || foreign != b->check_foreign;
	b->check_foreign = foreign;
	if (ledger_admit_check(b->ledger, hex,
	    cowview_active(b) || b->m->agent.workspace_writable ||
		call_ws_linked(c) > 0,
	    seen, limit, sizeof(limit)) == 0)
		return 0;
	broker_budget_stop(b, limit);
	call_complete(c, ACTION_ERROR, tool_error("budget_exhausted", 0, NULL,
	    "the run budget is exhausted (%s): the workspace was changed "
	    "outside the broker since the last check while a required gate "
	    "failed, one attempt more at it; %s did not run", limit,
	    c->check->id));
	return -1;
}

static void
run_check_digested(struct call *c, int rc, const char *hex)
{
	json_t	*out = NULL;
	int64_t	 timeout;
	int	 status;

	if (rc != 0) {
		/* Not retryable: the same workspace fails the same way. */
		call_complete(c, ACTION_ERROR, tool_error("workspace_undigestable",
		    0, NULL, "cannot digest the workspace: %s", hex));
		return;
	}
	snprintf(c->ws_digest, sizeof(c->ws_digest), "%s", hex);
	if (check_admit_edits(c, hex) != 0)
		return;
	/*
	 * Under a human's yes, this digest is what the check runs on, and
	 * what call_start_runner() compares with the one the approver was
	 * shown: the grant's was taken before it, and the workspace written
	 * in between (lib.sh, sourced by the pinned test.sh) ran unseen.
	 * One taken while the workspace was written matches nothing.
	 */
	if (json_object_get(c->binding, "workspace") != NULL)
		snprintf(c->granted_ws, sizeof(c->granted_ws), "%s",
		    c->digest_gen != -1 ? hex : "");
	/* A gate counts only on the code it had at session start. */
	json_decref(c->pinned_changed);
	c->pinned_changed = broker_pins_changed(c->b, c->check, NULL);
	c->argv = strv_copy(c->check->argv);
	c->envp = check_env(c->check, c->b->cfg.workspace);
	timeout = c->tool->timeout_ms;
	if (c->check->timeout_ms > 0 && c->check->timeout_ms < timeout)
		timeout = c->check->timeout_ms;
	if ((status = call_start_runner(c, timeout, &out)) != ACTION_PENDING)
		call_complete(c, status, out);
}

static int
act_run_check(struct call *c, json_t **out)
{
	const char	*id = arg_string(c, "checkId");

	if (id == NULL || (c->check = manifest_check(c->b->m, id)) == NULL) {
		*out = tool_error("invalid_arguments", 0, NULL,
		    "no such check: %s", id != NULL ? id : "(none)");
		return ACTION_ERROR;
	}
	/* The gate's result binds to the digest taken before it runs. */
	c->runs_after_digest = 1;
	return call_digest_new(c, run_check_digested, out);
}

/*
 * Writes write_file's change |ch| after the budget admits it; fills *out
 * with an error or returns 0.
 */
static int
commit_change(struct call *c, const struct ws_change *ch, json_t **out)
{
	const char	*where[1], *rule = NULL;
	char		*landing, limit[64], err[512];
	int		 rc;

	if (viewfreeze_active(c->b)) {
		*out = tool_error("busy", 1, NULL, "nothing was written: the "
		    "session's view is read-only while a run granted a secret "
		    "and the network uses it; retry when it ends");
		return ACTION_ERROR;
	}
	if (runcall_ws_still(c->b)) {
		*out = tool_error("busy", 1, NULL, APPROVED_RUNNING_MSG);
		return ACTION_ERROR;
	}
	if (writes_checked(c->b, ch, 1, &landing, out) != 0)
		return ACTION_ERROR;
	where[0] = landing;
	broker_dependency_real(c->b);
	/* An attempt at a failing gate, as a patch is. */
	rc = ledger_admit_write(c->b->ledger, where, 1, 1, limit,
	    sizeof(limit));
	free(landing);
	if (rc == AL_ERR_BUDGET) {
		broker_budget_stop(c->b, limit);
		*out = tool_error("budget_exhausted", 0, NULL,
		    "the run budget is exhausted (%s); nothing was written",
		    limit);
		return ACTION_ERROR;
	}
	/* A digest under way is taken again (call.c, call_digest_done()). */
	c->b->ws_gen++;
	/* The agent's own writes are not news to it (broker/fwatch.h). */
	fwatch_own_begin(c->b->fwatch);
	broker_writing(c->b, 1);
	rc = wswrite_apply(c->b->rootfd, &c->b->m->sandbox, ch, 1, &rule, err,
	    sizeof(err));
	broker_writing(c->b, 0);
	fwatch_own_end(c->b->fwatch);
	if (rc != 0) {
		/* Nothing was written (wswrite_apply() undid it). */
		ledger_write_undone(c->b->ledger);
		*out = writes_error(rc, rule, err);
		return ACTION_ERROR;
	}
	return 0;
}

static int
act_write_file(struct call *c, json_t **out)
{
	struct ws_change	 ch;
	json_t			*content = json_object_get(c->args, "content");
	char			 hex[SHA256_HEX_LEN + 1];

	memset(&ch, 0, sizeof(ch));
	ch.path = arg_string(c, "path");
	if (ch.path == NULL || !json_is_string(content)) {
		*out = tool_error("invalid_arguments", 0, NULL,
		    "write_file needs path and content");
		return ACTION_ERROR;
	}
	ch.content = json_string_value(content);
	ch.len = json_string_length(content);
	ch.may_exist = 1;
	if (ch.len > WRITE_MAX) {
		*out = tool_error("too_large", 0, NULL,
		    "content is larger than %d bytes", WRITE_MAX);
		return ACTION_ERROR;
	}
	if (commit_change(c, &ch, out) != 0)
		return ACTION_ERROR;
	sha256_hex(ch.content, ch.len, hex);
	*out = json_pack("{s:s, s:s, s:I, s:[s]}", "path", ch.path,
	    "sha256", hex, "bytes", (json_int_t)ch.len, "changedFiles",
	    ch.path);
	return ACTION_DONE;
}

/*
 * The end of a patch's land (broker/patchland.h): the workspace is the
 * others' again.
 */
static void
patch_landed(struct call *c, int rc, json_t *out)
{
	broker_writing(c->b, 0);
	if (c->job == NULL)
		fwatch_own_end(c->b->fwatch);
	c->b->ws_gen++;
	own_land_over(c, rc, out);
}

/*
 * apply_patch: the lander does the work (broker/patchland.h), while every
 * other reader and writer of the workspace is held, as for a run's
 * change set; the loop counts the budgets and answers.
 */
static int
act_apply_patch(struct call *c, json_t **out)
{
	struct broker	*b = c->b;
	const char	*expected = arg_string(c, "expectedBaseSha");
	json_t		*patch = json_object_get(c->args, "patch");
	char		 hex[SHA256_HEX_LEN + 1];

	if (!json_is_string(patch) || expected == NULL) {
		*out = tool_error("invalid_arguments", 0, NULL,
		    "apply_patch needs patch and expectedBaseSha");
		return ACTION_ERROR;
	}
	sha256_hex(json_string_value(patch), json_string_length(patch), hex);
	snprintf(c->patch_hash, sizeof(c->patch_hash), "%.16s", hex);
	if (viewfreeze_active(b)) {
		*out = tool_error("busy", 1, NULL, "nothing was written: the "
		    "session's view is read-only while a run granted a secret "
		    "and the network uses it; retry when it ends");
		return ACTION_ERROR;
	}
	if (runcall_ws_still(b)) {
		*out = tool_error("busy", 1, NULL, APPROVED_RUNNING_MSG);
		return ACTION_ERROR;
	}
	/* Calls are decided only when nothing lands (call_hold()); should
	 * one come all the same, it is refused, not run beside the land. */
	if (b->landing != NULL) {
		*out = tool_error("busy", 1, NULL, "nothing was written: a "
		    "change set is landing; retry");
		return ACTION_ERROR;
	}
	b->landing = c;
	b->ws_gen++;
	/* The agent's own writes are not news to it (broker/fwatch.h). */
	if (c->job == NULL)
		fwatch_own_begin(b->fwatch);
	broker_writing(b, 1);
	landjob_start_patch(c, json_string_value(patch),
	    json_string_length(patch), expected, patch_landed);
	return ACTION_PENDING;
}

#define LIST_MAX	1000

/* A directory sandbox.denyRead hides (|deny|) is listed, as the mask that
 * the sandbox shows in its place, but not walked. */
static int
list_walk(int dirfd, const char *prefix, int recursive,
    const struct sandbox_policy *deny, json_t *files, int *truncated)
{
	DIR		*d;
	struct dirent	*de;
	int		 fd;

	if ((fd = dup(dirfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return AL_ERR_SYSTEM;
	}
	while ((de = readdir(d)) != NULL && !*truncated) {
		char		 path[4096], *shown;
		struct stat	 st;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    (prefix[0] == '\0' && strcmp(de->d_name, ".git") == 0))
			continue;
		if (json_array_size(files) >= LIST_MAX) {
			*truncated = 1;
			break;
		}
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		snprintf(path, sizeof(path), "%s%s%s", prefix, de->d_name,
		    S_ISDIR(st.st_mode) ? "/" : "");
		/*
		 * A name that is not UTF-8 is listed with U+FFFD for each
		 * byte that is not, as search shows it: json_string()
		 * refused it, and the entry and all beneath it went
		 * unlisted, with nothing to say so.
		 */
		shown = utf8_sanitize(path, strlen(path));
		json_array_append_new(files, json_string(shown));
		free(shown);
		if (recursive && S_ISDIR(st.st_mode) &&
		    !sensitive_stat_denied(&st, deny->deny_read,
		    deny->ndeny_read)) {
			int sub = openat(dirfd, de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub != -1) {
				(void)list_walk(
				    sub, path, 1, deny, files, truncated);
				close(sub);
			}
		}
	}
	closedir(d);
	return 0;
}

static int
cmp_json_strings(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
	    json_string_value(*(json_t *const *)b));
}

static int
act_list_files(struct call *c, json_t **out)
{
	const char	*rel = arg_string(c, "path");
	json_t		*files, *sorted;
	char		 err[256], prefix[4096];
	json_t		**v;
	int		 fd, truncated = 0;
	size_t		 i, n;

	if (rel == NULL || strcmp(rel, ".") == 0)
		rel = ".";
	if (path_resolve(c->b->rootfd, rel, O_RDONLY | O_DIRECTORY, &fd, err,
	    sizeof(err)) != 0)
		return resolve_refused(c, rel, err, out);
	if (deny_read_check(c, fd, rel, out) != 0) {
		close(fd);
		return ACTION_ERROR;
	}
	snprintf(prefix, sizeof(prefix), "%s", strcmp(rel, ".") == 0 ? "" :
	    rel);
	if (prefix[0] != '\0' && prefix[strlen(prefix) - 1] != '/')
		strncat(prefix, "/", sizeof(prefix) - strlen(prefix) - 1);
	files = json_array();
	(void)list_walk(fd, prefix, json_is_true(json_object_get(c->args,
	    "recursive")), &c->b->m->sandbox, files, &truncated);
	close(fd);
	n = json_array_size(files);
	v = xcalloc(n ? n : 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = json_array_get(files, i);
	qsort(v, n, sizeof(*v), cmp_json_strings);
	sorted = json_array();
	for (i = 0; i < n; i++)
		json_array_append(sorted, v[i]);
	free(v);
	json_decref(files);
	*out = json_pack("{s:o, s:b}", "files", sorted, "truncated", truncated);
	return ACTION_DONE;
}


/* The environment of a tool command: the base, nothing of the caller's. */
static char **
tool_env(const char *workspace)
{
	static const struct check none;

	return check_env(&none, workspace);
}

#define SEARCH_MAX_MATCHES	200
#define SEARCH_LINE_MAX		512

/*
 * Whether a line of grep -F's |pattern| (each line is a pattern of its
 * own; an empty one matches every line) occurs in text[0..len), a file
 * as read_file shows it, outside every "[REDACTED:NAME]": there it occurs
 * in the file as it is, too.  |text| is changed: each such tag becomes
 * line breaks, which no pattern holds.
 */
static int
search_shown_matches(char *text, size_t len, const char *pattern)
{
	static const char	 tag[] = "[REDACTED:";
	const char		*p, *nl;
	char			*t = text, *end = text + len, *q;
	size_t			 n;

	while ((t = memmem(t, end - t, tag, sizeof(tag) - 1)) != NULL) {
		q = t + sizeof(tag) - 1;
		while (q < end && (isalnum((unsigned char)*q) || *q == '_' ||
		    *q == '.' || *q == '-'))
			q++;
		if (q < end && *q == ']')
			memset(t, '\n', q + 1 - t);
		t++;
	}
	for (p = pattern; p != NULL; p = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		n = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (n == 0 || memmem(text, len, p, n) != NULL)
			return 1;
	}
	return 0;
}

/*
 * Whether the workspace file |rel| holds a secret the session's redactor
 * knows, in any form it matches (or cannot be read whole to tell: then
 * it is taken to): 0 if not; else 1 if the search's pattern matches what
 * read_file shows of it outside every redaction, -1 if not.  Its matches
 * are withheld: grep gives a secret of several lines (a PEM key) back a
 * line at a time and a line is cut at SEARCH_LINE_MAX bytes, and the
 * redactor recognises neither piece.  Nor may the note that stands for
 * them tell more than read_file does: given whenever grep matched, it
 * told whether the secret held the pattern ("TOKEN=s", "TOKEN=t", ...),
 * the secret a byte at a time.
 */
static int
search_file_holds_secret(struct call *c, const char *rel)
{
	json_t	*err = NULL;
	char	*data, *clean;
	size_t	 len, cleanlen;
	int	 shown;

	if (read_workspace_file(c, rel, &data, &len, &err) != 0) {
		json_decref(err);
		return -1;
	}
	if (!redact_contains(c->b->cfg.redact, data, len)) {
		free(data);
		return 0;
	}
	if (redact_buf(c->b->cfg.redact, data, len, &clean, &cleanlen) < 0)
		fatalx("%s: out of memory redacting", __func__);
	free(data);
	shown = search_shown_matches(clean, cleanlen, arg_string(c,
	    "pattern"));
	free(clean);
	return shown ? 1 : -1;
}

/*
 * Why the workspace file |rel| (a name grep gave) is hidden by
 * sandbox.denyRead, or NULL: by its name, or as the object a denied path
 * is (a hard link to a denied file, which the runner's mask, made from
 * names, does not cover), or what it leads to (a link grep followed).
 * A name whose directory no longer resolves cannot be checked and is
 * taken to be hidden ("its place cannot be told").
 */
static const char *
search_file_denied(struct call *c, const char *rel)
{
	char		*const *deny = c->b->m->sandbox.deny_read;
	size_t		 ndeny = c->b->m->sandbox.ndeny_read;
	char		 base[PATH_MAX];
	const char	*why;
	struct stat	 st;
	int		 dirfd;

	if (ndeny == 0)
		return NULL;
	if (path_resolve_parent(c->b->rootfd, rel, &dirfd, base,
	    sizeof(base), NULL, 0) != 0)
		return "its place cannot be told";
	if ((why = sensitive_at_denied(dirfd, base, deny, ndeny)) == NULL &&
	    fstatat(dirfd, base, &st, 0) == 0 &&
	    sensitive_stat_denied(&st, deny, ndeny))
		why = "a denyRead path";
	close(dirfd);
	return why;
}

/*
 * How search shows the matches of the workspace file |rel| (a name grep
 * gave), in a session that holds secrets or denies paths: 0 as they are;
 * 1 as one note of its name (it holds a granted secret and the pattern
 * matches what read_file shows of it); -1 not at all: it holds a secret
 * and the pattern matches none of what read_file shows, or
 * sandbox.denyRead hides it (search_file_denied(): a hard link to a
 * denied file, made while the session ran, which read_file refuses).  A
 * denied file is named in no note: given only when grep matched it, a
 * note told whether the denied file held the pattern ("PIN=4" named the
 * link, "PIN=5" did not).
 */
static int
search_file_shown(struct call *c, const char *rel)
{
	if (search_file_denied(c, rel) != NULL)
		return -1;
	return redact_count(c->b->cfg.redact) > 0 ?
	    search_file_holds_secret(c, rel) : 0;
}

/* What search_add() carries from one line of grep's to the next. */
struct search_state {
	char	*last;		/* the file of the line before, or NULL */
	int	 withheld;	/* its matches are withheld */
	int	 cut;		/* the line before held no name's end */
};

/*
 * Appends grep -Z's line[0..len) ("FILE\0LINE:TEXT") to |matches| as
 * "FILE:LINE:TEXT", cut at SEARCH_LINE_MAX bytes; or, for a file that
 * holds a secret, one note in place of all its matches.  A file that
 * sandbox.denyRead hides (a hard link to a denied file: the runner's
 * mask hides names) is left out, note and all, as search_line_keep()
 * leaves it out: named only when grep matched it, the note told whether
 * the denied file held the pattern.  |st| remembers the file before
 * (grep gives a file's matches in a row).  When the session holds
 * secrets or denies paths, a file whose name holds a newline is dropped:
 * its name comes in pieces, the last of which may name another file,
 * and it cannot be checked.
 */
static void
search_add(struct call *c, json_t *matches, const char *line, size_t len,
    struct search_state *st)
{
	const char	*nul = memchr(line, '\0', len);
	int		 checked = redact_count(c->b->cfg.redact) > 0 ||
			    c->b->m->sandbox.ndeny_read > 0;
	int		 held;
	char		*buf, *clean;
	size_t		 n;

	if (checked && (nul == NULL || st->cut)) {
		st->cut = nul == NULL;
		return;
	}
	if (checked && (st->last == NULL || strcmp(st->last, line) != 0)) {
		free(st->last);
		st->last = xstrdup(line);
		held = search_file_shown(c, line);
		st->withheld = held != 0;
		if (held > 0) {
			clean = utf8_sanitize(line, nul - line);
			json_array_append_new(matches, json_sprintf(
			    "%s: matches withheld: the file holds a granted "
			    "secret (read_file shows it redacted)", clean));
			free(clean);
		}
	}
	if (checked && st->withheld)
		return;
	n = len < SEARCH_LINE_MAX ? len : SEARCH_LINE_MAX;
	buf = xcalloc(n + 1, 1);
	memcpy(buf, line, n);
	if (nul != NULL && nul < line + n)
		buf[nul - line] = ':';
	clean = utf8_sanitize(buf, n);
	json_array_append_new(matches, json_string(clean));
	free(clean);
	free(buf);
}

/*
 * grep's trouble (its stderr, err[0..len)) when all of it is paths that
 * sandbox.denyRead hides: the runner masks them (mode 0), so grep says
 * "grep: NAME: Permission denied" for each and exits 2.  Appends a note
 * for each such name to |notes| (the name is shown, as list_files shows
 * it; nothing of what it holds), up to SEARCH_MAX_MATCHES (then sets
 * *truncated), and returns 0; returns -1, leaving what it appended, when
 * any line is something else: the search failed.
 */
static int
search_skipped(struct call *c, const char *err, size_t len, json_t *notes,
    int *truncated)
{
	static const char	 pre[] = "grep: ", post[] = ": Permission denied";
	const char		*p, *end = err + len, *nl, *why;
	char			*name, *clean, text[512];
	size_t			 n;

	if (c->b->m->sandbox.ndeny_read == 0 || len == 0)
		return -1;
	for (p = err; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			return -1;	/* cut short */
		n = nl - p;
		if (n <= strlen(pre) + strlen(post) ||
		    memcmp(p, pre, strlen(pre)) != 0 ||
		    memcmp(nl - strlen(post), post, strlen(post)) != 0 ||
		    memchr(p, '\0', n) != NULL)
			return -1;
		n -= strlen(pre) + strlen(post);
		name = xcalloc(n + 1, 1);
		memcpy(name, p + strlen(pre), n);
		if ((why = search_file_denied(c, name)) == NULL ||
		    strcmp(why, "its place cannot be told") == 0) {
			free(name);
			return -1;
		}
		free(name);
		if (json_array_size(notes) >= SEARCH_MAX_MATCHES) {
			*truncated = 1;
			continue;
		}
		clean = utf8_sanitize(p + strlen(pre), n);
		wswrite_denied_text(text, sizeof(text), clean, why);
		json_array_append_new(notes, json_sprintf("%s; not searched",
		    text));
		free(clean);
	}
	return 0;
}

static int
search_finish(struct call *c, const struct runner_result *res, json_t *cmd,
    json_t **out)
{
	json_t			*matches = json_array();
	struct search_state	 st = { NULL, 0, 0 };
	const char		*p = res->out, *end = res->out + res->out_len, *nl;
	int			 truncated = res->truncated;

	/* grep: 0 found, 1 nothing found, 2 trouble: the paths it could
	 * not read are skipped when each is a denied one. */
	if (!res->exited || res->exit_code > 2 || (res->exit_code == 2 &&
	    search_skipped(c, res->err, res->err_len, matches,
	    &truncated) != 0)) {
		json_decref(matches);
		*out = tool_error("search_failed", 0, res->hint,
		    "search failed: %s", json_string_value(json_object_get(cmd,
		    "stderr")));
		return ACTION_ERROR;
	}
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (json_array_size(matches) >= SEARCH_MAX_MATCHES) {
			truncated = 1;
			break;
		}
		if (nl > p)
			search_add(c, matches, p, nl - p, &st);
	}
	free(st.last);
	*out = json_pack("{s:o, s:b}", "matches", matches, "truncated",
	    truncated);
	return ACTION_DONE;
}

/*
 * Whether the workspace path |rel| (a name grep gave), or a directory on
 * its way, may not be what it was when the search began at |since|
 * (CLOCK_REALTIME): written, replaced, renamed or made since (a ctime
 * before |since| is the kernel's word that none of that happened; a
 * coarse ctime lags by a tick at most, and grep reads nothing that soon
 * after: its sandbox is still being made), a symlink, or gone.
 */
static int
search_path_changed(struct call *c, const char *rel,
    const struct timespec *since)
{
	char		 path[PATH_MAX], *p;
	struct stat	 st;
	size_t		 n = strlen(rel);

	if (n >= sizeof(path))
		return 1;
	memcpy(path, rel, n + 1);
	for (;;) {
		if (fstatat(c->b->rootfd, path, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1 || S_ISLNK(st.st_mode) ||
		    st.st_ctim.tv_sec > since->tv_sec ||
		    (st.st_ctim.tv_sec == since->tv_sec &&
		    st.st_ctim.tv_nsec >= since->tv_nsec))
			return 1;
		if ((p = strrchr(path, '/')) == NULL)
			return 0;
		*p = '\0';
		if (path[0] == '\0' || strcmp(path, ".") == 0)
			return 0;
	}
}

/*
 * The runner's line_keep for search in a session holding secrets or
 * denying paths (runner/runner.h): grep's lines of a file holding a
 * granted secret are neither kept nor counted against the output cap;
 * one line of its name stands for them when its note is due
 * (search_file_holds_secret()).  Counted, they told what the secret held
 * all the same: with files of the agent's making that filled the cap to
 * its last byte, "truncated" came back for TOKEN=s and not for TOKEN=t,
 * and where grep read the secret's file first, the last line shown was
 * cut earlier.  A file sandbox.denyRead hides (a hard link to a denied
 * file, made while the session ran: the runner's mask hides names; or
 * one whose place cannot be told) is dropped whole, as read_file refuses
 * it: a note of its name, given only when grep matched it, told whether
 * the denied file held the pattern.
 *
 * The file is read here after grep read it: a write_file sent while the
 * search ran (grep holds its output until it has a buffer's worth, or
 * ends) put a decoy where the secret's file was, the decoy was checked,
 * and grep's lines of the secret's file, a PEM key's a line at a time,
 * were shown.  A file whose path changed since the search began is
 * dropped, checked after it was read.
 */
static int
search_line_keep(void *arg, const char *name)
{
	struct call	*c = arg;
	int		 held, verdict;

	held = search_file_shown(c, name);
	verdict = held == 0 ? 1 : held > 0 ? 2 : 0;
	return search_path_changed(c, name, &c->search_since) ? 0 : verdict;
}

static int
act_search(struct call *c, json_t **out)
{
	const char	*pattern = arg_string(c, "pattern");
	const char	*rel = arg_string(c, "path");
	int		 fd;
	char		 err[256];

	if (pattern == NULL || pattern[0] == '\0') {
		*out = tool_error("invalid_arguments", 0, NULL,
		    "search needs a non-empty pattern");
		return ACTION_ERROR;
	}
	if (rel == NULL)
		rel = ".";
	/* The path is checked here too, so that a refusal is explained. */
	if (path_resolve(c->b->rootfd, rel, O_PATH, &fd, err,
	    sizeof(err)) != 0)
		return resolve_refused(c, rel, err, out);
	if (deny_read_check(c, fd, rel, out) != 0) {
		close(fd);
		return ACTION_ERROR;
	}
	close(fd);
	c->argv = strv_new(10);
	c->argv[0] = xstrdup("grep");
	/* -Z: a NUL after each file's name, so that it is read back whole
	 * (search_add()). */
	c->argv[1] = xstrdup("-rnIFZ");
	c->argv[2] = xstrdup("--exclude-dir=.git");
	c->argv[3] = xstrdup("-m");
	c->argv[4] = xstrdup("50");
	c->argv[5] = xstrdup("-e");
	c->argv[6] = xstrdup(pattern);
	c->argv[7] = xstrdup("--");
	c->argv[8] = xstrdup(rel);
	c->envp = tool_env(c->b->cfg.workspace);
	c->finish = search_finish;
	if (redact_count(c->b->cfg.redact) > 0 ||
	    c->b->m->sandbox.ndeny_read > 0) {
		(void)clock_gettime(CLOCK_REALTIME, &c->search_since);
		c->line_keep = search_line_keep;
		/* Each file kept gives a match or a note, and no more than
		 * SEARCH_MAX_MATCHES are shown. */
		c->line_names_max = SEARCH_MAX_MATCHES + 1;
	}
	return call_start_runner(c, c->tool->timeout_ms, out);
}

static int
act_exec(struct call *c, json_t **out)
{
	const char *command = arg_string(c, "command");

	if (command == NULL) {
		*out = tool_error("invalid_arguments", 0, NULL,
		    "exec needs a command");
		return ACTION_ERROR;
	}
	c->argv = strv_new(3);
	c->argv[0] = xstrdup("/bin/sh");
	c->argv[1] = xstrdup("-c");
	c->argv[2] = xstrdup(command);
	c->envp = tool_env(c->b->cfg.workspace);
	return call_start_runner(c, c->tool->timeout_ms, out);
}

/*
 * Command tools: each "{name}" element of the template is replaced by one
 * typed argument, whole; nothing is ever joined into a shell string.  A
 * value that starts with '-' is refused unless the template has "--"
 * before it, so that an argument cannot become an option.  Returns the
 * argv (caller frees), or NULL with *out set.
 */
static char **
command_argv(struct call *c, json_t **out)
{
	const struct tool	*t = c->tool;
	char			**argv;
	size_t			 i, n = 0;
	int			 after_dashes = 0;

	argv = strv_new(t->ncommand);
	for (i = 0; i < t->ncommand; i++) {
		const char	*el = t->command[i];
		char		 name[256], num[64];
		json_t		*v;
		const char	*val;

		/*
		 * Literal unless the loader took it for a placeholder: an
		 * element such as "{/^#/!p}" or "{{.Name}}" was dropped here,
		 * and the agent's next argument took its place (sed's
		 * program, --format's template).
		 */
		if (!manifest_placeholder(el, name, sizeof(name))) {
			argv[n++] = xstrdup(el);
			if (strcmp(el, "--") == 0)
				after_dashes = 1;
			continue;
		}
		v = json_object_get(c->args, name);
		if (v == NULL)
			continue;	/* an optional argument left out */
		if (json_is_string(v))
			val = json_string_value(v);
		else if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
			    json_integer_value(v));
			val = num;
		} else if (json_is_boolean(v))
			val = json_is_true(v) ? "true" : "false";
		else {
			*out = tool_error("invalid_arguments", 0, NULL,
			    "argument %s cannot fill a command element", name);
			strv_free(argv);
			return NULL;
		}
		if (val[0] == '-' && !after_dashes) {
			*out = tool_error("invalid_arguments", 0, NULL,
			    "argument %s starts with '-' and would be read as "
			    "an option", name);
			strv_free(argv);
			return NULL;
		}
		argv[n++] = xstrdup(val);
	}
	return argv;
}

static int
act_command(struct call *c, json_t **out)
{
	if ((c->argv = command_argv(c, out)) == NULL)
		return ACTION_ERROR;
	c->envp = tool_env(c->b->cfg.workspace);
	return call_start_runner(c, c->tool->timeout_ms, out);
}

json_t *
action_plan(struct call *c, json_t **out)
{
	static const struct check	 none;
	const struct check		*ck = NULL;
	const struct net_allow		*allow = &c->tool->network;
	const char			*s;
	char				**argv = NULL, **env, err[512];
	json_t				*plan, *jargv, *jenv, *pins;
	size_t				 i;
	int				 rc;

	switch (c->tool->action) {
	case ACTION_COMMAND:
		if ((argv = command_argv(c, out)) == NULL)
			return NULL;
		break;
	case ACTION_EXEC:
		if ((s = arg_string(c, "command")) != NULL) {
			argv = strv_new(3);
			argv[0] = xstrdup("/bin/sh");
			argv[1] = xstrdup("-c");
			argv[2] = xstrdup(s);
		}
		break;
	case ACTION_RUN_CHECK:
		if ((s = arg_string(c, "checkId")) != NULL &&
		    (ck = manifest_check(c->b->m, s)) != NULL) {
			argv = strv_copy(ck->argv);
			allow = &ck->network;
		}
		break;
	default:
		break;
	}
	env = check_env(ck != NULL ? ck : &none, c->b->cfg.workspace);
	if (allow->nhosts > 0)
		egress_env(&env);
	jenv = json_array();
	for (i = 0; env[i] != NULL; i++)
		json_array_append_new(jenv, json_stringn(env[i],
		    strcspn(env[i], "=")));
	for (i = 0; i < c->tool->nsecrets; i++)
		if (c->tool->secrets[i].env != NULL)
			json_array_append_new(jenv,
			    json_string(c->tool->secrets[i].env));
	strv_free(env);
	jargv = argv != NULL ? json_array() : json_null();
	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		json_array_append_new(jargv, json_string(argv[i]));
	rc = pins_collect(c->b->rootfd, c->b->cfg.workspace, argv,
	    c->tool->pin, ck != NULL ? ck->pin : NULL, c->tool->nsecrets > 0,
	    &pins, err, sizeof(err));
	strv_free(argv);
	if (rc != 0) {
		json_decref(jargv);
		json_decref(jenv);
		*out = tool_error(rc == AL_ERR_LIMIT ? "pinned_code_too_large" :
		    "internal", 0, NULL, "%s: cannot hash its pinned code: %s",
		    c->tool->name, err);
		return NULL;
	}
	/* An escalated re-run: the exact widening is part of what runs. */
	plan = json_pack("{s:o, s:s, s:o, s:o, s:o*}", "argv", jargv, "cwd",
	    c->b->cfg.workspace, "env", jenv, "pinned", pins, "widening",
	    escalate_binding(c));
	if (plan == NULL)
		fatalx("json_pack");
	return plan;
}

/* request_approval: the agent asks a human; the decision is the result. */
static int
act_request_approval(struct call *c, json_t **out)
{
	json_t *ev = json_pack("{s:O?}", "evidenceUris",
	    json_object_get(c->args, "evidenceUris"));

	return call_await_approval(c, ev, out);
}

action_fn
action_handler(enum tool_action action)
{
	switch (action) {
	case ACTION_READ_FILE:
		return act_read_file;
	case ACTION_WRITE_FILE:
		return act_write_file;
	case ACTION_APPLY_PATCH:
		return act_apply_patch;
	case ACTION_LIST_FILES:
		return act_list_files;
	case ACTION_SEARCH:
		return act_search;
	case ACTION_RUN_CHECK:
		return act_run_check;
	case ACTION_EXEC:
		return act_exec;
	case ACTION_COMMAND:
		return act_command;
	case ACTION_REQUEST_APPROVAL:
		return act_request_approval;
	case ACTION_READ_OUTPUT:
		return output_act_read;
	case ACTION_JOB_OUTPUT:
		return jobs_act_output;
	case ACTION_JOB_KILL:
		return jobs_act_kill;
	default:
		return NULL;
	}
}
