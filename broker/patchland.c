/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * apply_patch's work in the lander; see patchland.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/broker_int.h"
#include "broker/patchjail.h"
#include "broker/patchland.h"
#include "broker/redact.h"
#include "broker/wsdigest.h"
#include "broker/wswrite.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "policy/path.h"
#include "policy/writepolicy.h"

struct patchland {
	struct broker *b;
	struct patchjail *j; /* holds the results ch[].content points to */
	size_t n;
	char **paths; /* as the patch names them */
	char **old; /* their contents now, NULL for an absent file */
	size_t *lens;
	struct ws_change *ch;
	char **where; /* where each lands (writes_checked()) */
};

static void
free_strings(char **v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

int
writes_checked(struct broker *b, const struct ws_change *changes, size_t n,
    char **where, json_t **out)
{
	const struct sandbox_policy *p = &b->m->sandbox;
	const char *rule, *why;
	char err[512], text[512];
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		where[i] = NULL;
	for (i = 0; i < n; i++) {
		/* The one write policy, as for every run's change set. */
		if ((rule = wswrite_rule(p, &changes[i], changes[i].path)) !=
		    NULL) {
			*out = tool_error("denied", 0, NULL, "%s: %s",
			    changes[i].path, writepolicy_rule_text(rule));
			json_object_set_new(*out, "rule", json_string(rule));
			goto refused;
		}
		/*
		 * Counted by the file it lands on, as a change set's are:
		 * "./requirements.txt" or "link/requirements.txt" (link ->
		 * ".") rewrote a dependency file that the budget, comparing
		 * names, counted as none.
		 */
		where[i] = xcalloc(1, PATH_REL_MAX + 1);
		if ((rc = wswrite_where(b->rootfd, changes[i].path, where[i],
			 PATH_REL_MAX + 1, err, sizeof(err))) == 0)
			continue;
		/* As wswrite_apply() would refuse it; "refused" where the
		 * deepest place on its way is denied (actions.c). */
		if ((why = wswrite_missing_denied(b->rootfd, changes[i].path,
			 p->deny_read, p->ndeny_read)) != NULL) {
			wswrite_denied_text(
			    text, sizeof(text), changes[i].path, why);
			*out = tool_error("path_refused", 0, NULL, "%s", text);
		} else
			*out = tool_error(
			    rc == AL_ERR_PATH ? "path_refused" : "write_failed",
			    0, NULL, "nothing was written: %s", err);
		goto refused;
	}
	/* Whatever wswrite_apply() would refuse (a target that is a
	 * directory, a link or linked twice), before the budgets count it:
	 * two write_file calls of a directory named package.json spent
	 * maxAddedDependencies: 2 and stopped the session. */
	rule = NULL;
	if ((rc = wswrite_check(
		 b->rootfd, p, changes, n, &rule, err, sizeof(err))) != 0) {
		*out = writes_error(rc, rule, err);
		goto refused;
	}
	return 0;
refused:
	for (i = 0; i < n; i++) {
		free(where[i]);
		where[i] = NULL;
	}
	return -1;
}

json_t *
writes_error(int rc, const char *rule, const char *err)
{
	json_t *out = tool_error(rc == AL_ERR_PATH ? "path_refused"
		: rc == AL_ERR_DENIED		   ? "denied"
		: rc == AL_ERR_CONFLICT		   ? "conflict"
						   : "write_failed",
	    rc == AL_ERR_IO, NULL, "nothing was written: %s", err);

	if (rc == AL_ERR_DENIED && rule != NULL)
		json_object_set_new(out, "rule", json_string(rule));
	return out;
}

/*
 * Whether a file old[0..n) of a patch holds a secret the session's
 * redactor knows, in any form it matches.
 */
static int
holds_secret(const struct patchland *pl)
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		if (pl->old[i] != NULL &&
		    redact_contains(pl->b->cfg.redact, pl->old[i], pl->lens[i]))
			return 1;
	return 0;
}

/*
 * A hunk that does not apply is told with the file's line it met
 * ("found ..."), C-escaped and cut at 72 bytes: a line of a granted PEM
 * key, or a token's head before the cut, is no form the redactor
 * knows.  When a file of the patch holds a secret, |err| keeps only what
 * comes before the first " does not apply" (the file, the hunk and its
 * header: the agent's own text), or none of it.
 */
static void
err_unquoted(char *err, size_t errlen)
{
	static const char why[] = ": a file of the patch holds a granted "
				  "secret, so no line of it is quoted "
				  "(read_file shows it redacted)";
	char *p;

	if ((p = strstr(err, " does not apply")) != NULL)
		snprintf(
		    p, errlen - (size_t)(p - err), " does not apply%s", why);
	else
		snprintf(err, errlen, "a hunk does not apply%s", why);
}

/*
 * Whether new[0..newlen), what a patch makes of old[0..oldlen), holds
 * fewer granted secrets whole (in the forms the redactor matches) than
 * old did.  A patch keeps the bytes it does not touch, and a hunk that
 * only adds lines quotes none: one inserted inside a PEM key (or that
 * changed its guessable BEGIN line) left the key's other lines in a file
 * read_file then showed unredacted.  The agent, who sees the secret as
 * a tag only, can make no new one.
 */
static int
breaks_secret(const struct redact *r, const char *old, size_t oldlen,
    const char *new, size_t newlen)
{
	char *clean;
	size_t cleanlen;
	int was, now;

	if (old == NULL || new == NULL || !redact_contains(r, old, oldlen))
		return 0;
	if ((was = redact_buf(r, old, oldlen, &clean, &cleanlen)) < 0)
		fatalx("%s: out of memory redacting", __func__);
	free(clean);
	if ((now = redact_buf(r, new, newlen, &clean, &cleanlen)) < 0)
		fatalx("%s: out of memory redacting", __func__);
	free(clean);
	return now < was;
}

/*
 * Reads the files the jail's parse named (|files|) into |pl|, each as
 * write_file could write it, no more than PATCH_READ_MAX in all.
 * Returns 0, or -1 with *out set.
 */
static int
read_files(struct patchland *pl, json_t *files, json_t **out)
{
	struct broker *b = pl->b;
	size_t i, left = PATCH_READ_MAX;
	char err[1024];
	int rc;

	for (i = 0; i < pl->n; i++) {
		json_t *f = json_array_get(files, i);
		const char *kind =
		    json_string_value(json_object_get(f, "kind"));
		const char *path =
		    json_string_value(json_object_get(f, "path"));

		/* Copied: the jail's next reply replaces this one. */
		if (path == NULL || kind == NULL) {
			*out = tool_error("internal", 0, NULL,
			    "the patch parser answered nonsense");
			return -1;
		}
		pl->paths[i] = xstrdup(path);
		/* No file is read past what the patch has left to read. */
		if ((rc = wswrite_read(b->rootfd, path,
			 left < WRITE_MAX ? left : WRITE_MAX, &pl->old[i],
			 &pl->lens[i], b->m->sandbox.deny_read,
			 b->m->sandbox.ndeny_read, err, sizeof(err))) != 0) {
			if (rc == AL_ERR_LIMIT && left < WRITE_MAX)
				*out = tool_error("too_large", 0, NULL,
				    "patch refused: the files it changes hold "
				    "more than %d bytes in all (%s goes over); "
				    "nothing was read further: split the patch",
				    PATCH_READ_MAX, path);
			else
				*out = tool_error(
				    "path_refused", 0, NULL, "%s", err);
			return -1;
		}
		left -= pl->lens[i];
		if (pl->old[i] != NULL &&
		    !utf8_valid(pl->old[i], pl->lens[i])) {
			*out = tool_error("binary_file", 0, NULL,
			    "%s is not UTF-8 text; apply_patch edits text only",
			    path);
			return -1;
		}
		pl->ch[i].path = pl->paths[i];
		pl->ch[i].must_exist = strcmp(kind, "create") != 0;
		if (!pl->ch[i].must_exist && pl->old[i] != NULL) {
			*out = tool_error("conflict", 0, NULL,
			    "the patch creates %s, which already exists", path);
			return -1;
		}
		if (pl->ch[i].must_exist && pl->old[i] == NULL) {
			*out = tool_error("conflict", 0, NULL,
			    "the patch changes %s, which does not exist", path);
			return -1;
		}
	}
	return 0;
}

/*
 * Whether two files of |pl| land on one (the parser refuses a name
 * given twice, not "d/x" and "l/x" with l -> d): the second rename of
 * wswrite_apply() failed, the patch was refused write_failed,
 * retryable, after the budgets had counted it, and an agent sent it
 * again and again uncounted by runBudget.maxRefusedCalls.  Refused
 * here, before the budgets see it, as the parser refuses a name given
 * twice; 1 with *out set.
 */
static int
lands_twice(const struct patchland *pl, json_t **out)
{
	size_t i, j;

	for (i = 0; i < pl->n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(pl->where[i], pl->where[j]) == 0) {
				*out = tool_error("malformed_patch", 0, NULL,
				    "patch refused: %s and %s are the same "
				    "file (%s); change each file once",
				    pl->paths[j], pl->paths[i], pl->where[i]);
				return 1;
			}
	return 0;
}

/*
 * The jail parses, the files are read and checked against expectedBaseSha
 * as they are now, the jail applies, the result is checked.
 */
int
patchland_prepare(struct broker *b, const char *patch, size_t len,
    const char *expected, struct patchland **plp, json_t **out)
{
	struct patchland *pl = xcalloc(1, sizeof(*pl));
	json_t *files, *results;
	char err[1024], base[SHA256_HEX_LEN + 1];
	size_t i;
	int rc;

	*plp = NULL;
	pl->b = b;
	if ((rc = patchjail_parse(
		 patch, len, &pl->j, &files, err, sizeof(err))) != 0) {
		*out = tool_error(rc == AL_ERR_SYSTEM ? "internal"
			: rc == AL_ERR_PATH	      ? "path_refused"
						      : "malformed_patch",
		    rc == AL_ERR_SYSTEM, NULL, "patch refused: %s", err);
		goto refused;
	}
	pl->n = json_array_size(files);
	pl->paths = xcalloc(pl->n + 1, sizeof(*pl->paths));
	pl->old = xcalloc(pl->n + 1, sizeof(*pl->old));
	pl->lens = xcalloc(pl->n + 1, sizeof(*pl->lens));
	pl->ch = xcalloc(pl->n + 1, sizeof(*pl->ch));
	pl->where = xcalloc(pl->n + 1, sizeof(*pl->where));
	if (read_files(pl, files, out) != 0)
		goto refused;
	wsdigest_files(b->cfg.redact, b->digest_key,
	    (const char *const *)pl->paths, (const char *const *)pl->old,
	    pl->lens, pl->n, base);
	if (strcmp(base, expected) != 0) {
		*out = tool_error("base_mismatch", 0, NULL,
		    "expectedBaseSha %.12s... does not match the current "
		    "content (%.12s...): read the files again and rebase the "
		    "patch",
		    expected, base);
		goto refused;
	}
	if ((rc = patchjail_apply(pl->j, (const char *const *)pl->old, pl->lens,
		 pl->n, &results, err, sizeof(err))) != 0) {
		if (holds_secret(pl))
			err_unquoted(err, sizeof(err));
		*out = tool_error(rc == AL_ERR_CONFLICT ? "patch_conflict"
			: rc == AL_ERR_LIMIT		? "too_large"
							: "internal",
		    0, NULL, "patch refused: %s", err);
		goto refused;
	}
	for (i = 0; i < pl->n; i++) {
		json_t *r = json_array_get(results, i);

		pl->ch[i].content = json_string_value(r);
		pl->ch[i].len = json_is_string(r) ? json_string_length(r) : 0;
		/* A result may be the old file and the patch: a 4 MiB file
		 * with a line added landed larger than write_file may
		 * write, and no later patch could read it (read_files()). */
		if (pl->ch[i].len > WRITE_MAX) {
			*out = tool_error("too_large", 0, NULL,
			    "patch refused: %s would be %zu bytes, more than "
			    "the %d a file the broker writes may hold (as "
			    "write_file); nothing was written",
			    pl->paths[i], pl->ch[i].len, WRITE_MAX);
			goto refused;
		}
		if (breaks_secret(b->cfg.redact, pl->old[i], pl->lens[i],
			pl->ch[i].content, pl->ch[i].len)) {
			*out = tool_error("denied", 0, NULL,
			    "%s: nothing was written: the patch breaks up a "
			    "granted secret the file holds (read_file shows it "
			    "as a [REDACTED:...] tag); change the lines around "
			    "it, not inside it",
			    pl->paths[i]);
			goto refused;
		}
	}
	if (writes_checked(b, pl->ch, pl->n, pl->where, out) != 0 ||
	    lands_twice(pl, out))
		goto refused;
	*plp = pl;
	return 0;
refused:
	patchland_free(pl);
	return -1;
}

const char *const *
patchland_where(const struct patchland *pl, size_t *n)
{
	*n = pl->n;
	return (const char *const *)pl->where;
}

json_t *
patchland_result(const struct patchland *pl)
{
	const char **contents;
	json_t *changed;
	char newsha[SHA256_HEX_LEN + 1];
	size_t i, *lens;

	contents = xcalloc(pl->n + 1, sizeof(*contents));
	lens = xcalloc(pl->n + 1, sizeof(*lens));
	for (i = 0; i < pl->n; i++) {
		contents[i] = pl->ch[i].content;
		lens[i] = pl->ch[i].len;
	}
	wsdigest_files(pl->b->cfg.redact, pl->b->digest_key,
	    (const char *const *)pl->paths, contents, lens, pl->n, newsha);
	free(contents);
	free(lens);
	changed = json_array();
	for (i = 0; i < pl->n; i++)
		json_array_append_new(changed, json_string(pl->paths[i]));
	return json_pack(
	    "{s:o, s:s}", "changedFiles", changed, "newSha", newsha);
}

int
patchland_apply(struct patchland *pl, json_t **out)
{
	struct broker *b = pl->b;
	const char *rule = NULL;
	char err[512];
	int rc;

	if ((rc = wswrite_apply(b->rootfd, &b->m->sandbox, pl->ch, pl->n, &rule,
		 err, sizeof(err))) != 0) {
		*out = writes_error(rc, rule, err);
		return -1;
	}
	*out = patchland_result(pl);
	return 0;
}

void
patchland_free(struct patchland *pl)
{
	if (pl == NULL)
		return;
	free_strings(pl->paths, pl->n);
	free_strings(pl->old, pl->n);
	free_strings(pl->where, pl->n);
	free(pl->lens);
	free(pl->ch);
	patchjail_free(pl->j);
	free(pl);
}
