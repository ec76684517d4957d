/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/ledger.h"
#include "broker/pins.h"
#include "common/errors.h"
#include "common/sha256.h"
#include "common/util.h"

#define LEDGER_MAX_KEYS		4096	/* idempotency keys remembered */
#define FINGERPRINT_LINES	5	/* error lines that make a fingerprint */

/*
 * A key is kept as its name (idem_name(): SHA-256 of TOOL NUL KEY), not
 * whole: a key is any string the contract allows, 256 KiB for a plain
 * string, and 4096 of them held a gigabyte of the broker's memory and
 * made each lookup compare as much (200 ms a call).
 */
struct idem {
	char	 name[SHA256_HEX_LEN + 1];
	char	 args[SHA256_HEX_LEN + 1];
	json_t	*result;
};

struct gate {
	char	*check;
	int	 ran;
	int	 exit_code;
	char	 ws[SHA256_HEX_LEN + 1];
	int64_t	 attempts;	/* patches since this gate last passed */
	int	 failing;	/* failed, and passed since only void */
	int	 last_tried;	/* the last write admitted counted one */
	json_t	*pinned;	/* pinned code changed when it ran, or NULL */
};

struct fingerprint {
	char	 fp[SHA256_HEX_LEN + 1];
	char	 last_ws[SHA256_HEX_LEN + 1];
	int64_t	 count;		/* distinct workspace digests seen failing */
};

struct ledger {
	const struct manifest	*m;
	int64_t			 started;
	int64_t			 steps;
	int64_t			 refused;	/* tools/call refused */
	double			 cost;
	unsigned char		(*changed)[SHA256_BYTES];	/* SHA-256
					   of each distinct path written,
					   sorted */
	size_t			 nchanged;
	char			*names;		/* the first paths of them,
					   NUL-terminated, for the carry */
	size_t			 names_len;
	size_t			 names_size;
	size_t			 nnames;
	size_t			 names_bytes;	/* as ledger_export() counts */
	int64_t			 changed_extra;	/* carried, paths unknown */
	int64_t			 deps;
	int64_t			 last_deps;	/* the last write admitted's */
	int			 last_open;	/* ... not taken back yet */
	int			 last_patch;	/* ... was an attempt */
	int			 last_output;	/* ... a check's output */
	int64_t			 patches;	/* attempts admitted since the
					   last check was digested */
	int64_t			 outputs;	/* checks' outputs, since */
	char			 check_ws[SHA256_HEX_LEN + 1];	/* its
					   digest ("": none yet this run) */
	char			**dep_real;	/* ledger_dependency_real() */
	size_t			 ndep_real;
	struct idem		*idem;
	size_t			 nidem;
	char			(*carried)[SHA256_HEX_LEN + 1];	/* keys of
					   earlier runs (idem_name()), sorted */
	size_t			 ncarried;
	struct gate		*gates;
	size_t			 ngates;
	struct fingerprint	*fps;
	size_t			 nfps;
	char			*stopped;
};

struct ledger *
ledger_new(const struct manifest *m, int64_t now_ms)
{
	struct ledger	*l = xcalloc(1, sizeof(*l));
	size_t		 i;

	l->m = m;
	l->started = now_ms;
	l->ngates = m->nchecks;
	l->gates = xcalloc(m->nchecks, sizeof(*l->gates));
	for (i = 0; i < m->nchecks; i++)
		l->gates[i].check = m->checks[i].id;
	return l;
}

void
ledger_free(struct ledger *l)
{
	size_t i;

	if (l == NULL)
		return;
	free(l->changed);
	free(l->names);
	for (i = 0; i < l->ndep_real; i++)
		free(l->dep_real[i]);
	free(l->dep_real);
	for (i = 0; i < l->nidem; i++)
		json_decref(l->idem[i].result);
	free(l->idem);
	free(l->carried);
	for (i = 0; i < l->ngates; i++)
		json_decref(l->gates[i].pinned);
	free(l->gates);
	free(l->fps);
	free(l->stopped);
	free(l);
}

const char *
ledger_stopped(const struct ledger *l)
{
	return l->stopped;
}

void
ledger_stop(struct ledger *l, const char *limit)
{
	if (l->stopped == NULL)
		l->stopped = xstrdup(limit);
}

static int
stop_with(struct ledger *l, const char *limit, char *out, size_t outlen)
{
	ledger_stop(l, limit);
	snprintf(out, outlen, "%s", limit);
	return AL_ERR_BUDGET;
}

int64_t
ledger_time_left(const struct ledger *l, int64_t now_ms)
{
	int64_t left;

	if (l->m->budget.max_elapsed_minutes < 0)
		return INT64_MAX;
	left = l->started + l->m->budget.max_elapsed_minutes * 60 * 1000 -
	    now_ms;
	return left > 0 ? left : 0;
}

int
ledger_admit(struct ledger *l, const struct tool *t, int64_t now_ms,
    size_t running, char *limit, size_t limitlen)
{
	const struct run_budget *b = &l->m->budget;

	if (l->stopped != NULL) {
		snprintf(limit, limitlen, "%s", l->stopped);
		return AL_ERR_BUDGET;
	}
	if (b->max_elapsed_minutes >= 0 &&
	    now_ms - l->started > b->max_elapsed_minutes * 60 * 1000)
		return stop_with(l, "maxElapsedMinutes", limit, limitlen);
	if (b->max_model_steps >= 0 && l->steps + 1 > b->max_model_steps)
		return stop_with(l, "maxModelSteps", limit, limitlen);
	if (b->max_tool_cost_usd >= 0 &&
	    l->cost + t->cost_usd > b->max_tool_cost_usd + 1e-9)
		return stop_with(l, "maxToolCostUsd", limit, limitlen);
	/* Whatever its declared sideEffect, a tool that starts a runner. */
	if ((t->side_effect == SIDE_EFFECT_SANDBOX_PROCESS ||
	    t->action == ACTION_RUN_CHECK || t->action == ACTION_EXEC ||
	    t->action == ACTION_COMMAND) &&
	    b->max_parallel_processes >= 0 &&
	    (int64_t)running >= b->max_parallel_processes) {
		snprintf(limit, limitlen, "maxParallelProcesses");
		return AL_ERR_LIMIT;
	}
	l->steps++;
	l->cost += t->cost_usd;
	return 0;
}

void
ledger_refused(struct ledger *l)
{
	l->refused++;
}

int64_t
ledger_refused_calls(const struct ledger *l)
{
	return l->refused;
}

int
ledger_refusals_spent(const struct ledger *l)
{
	return l->m->budget.max_refused_calls >= 0 &&
	    l->refused >= l->m->budget.max_refused_calls;
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
cmp_digest(const void *a, const void *b)
{
	return memcmp(a, b, SHA256_BYTES);
}

/*
 * Whether the path of SHA-256 |h| is among the first |n| changed paths
 * (sorted by digest): searched, not scanned, since a change set holds up
 * to 256k paths and the session every path it ever wrote (a scan per
 * path, and a comparison of each path with every other, stalled the
 * event loop for half a minute).  A path is kept as its digest, 32 bytes,
 * not whole: a run that made 20,000 files of 4 KiB paths held 78 MiB of
 * the broker's memory for the rest of the session, and every run as
 * much again.
 */
static int
is_changed(const struct ledger *l, size_t n,
    const unsigned char h[SHA256_BYTES])
{
	return n > 0 && bsearch(h, l->changed, n, sizeof(*l->changed),
	    cmp_digest) != NULL;
}

/*
 * Records the distinct paths v[0..nv) of digests h[0..nv), |fresh| of
 * them not changed before, and names each new one for the carry while
 * the names fit LEDGER_CARRY_PATH_BYTES (ledger_export() counts the rest).
 */
static void
add_changed(struct ledger *l, const char *const *v,
    unsigned char (*h)[SHA256_BYTES], size_t nv, size_t fresh)
{
	size_t i, len, jlen, old = l->nchanged;

	if (fresh == 0)
		return;
	l->changed = xreallocarray(l->changed, l->nchanged + fresh,
	    sizeof(*l->changed));
	for (i = 0; i < nv; i++) {
		if (is_changed(l, old, h[i]))
			continue;
		memcpy(l->changed[l->nchanged++], h[i], SHA256_BYTES);
		/* As the run_budget record writes it: a control character
		 * in 6 bytes (json_str_len()).  Counted by strlen(), 1000
		 * paths of them made a record over a line of the log, and
		 * the session could not be resumed. */
		len = strlen(v[i]);
		jlen = json_str_len(v[i]);
		if (l->names_bytes + jlen + 4 > LEDGER_CARRY_PATH_BYTES)
			continue;
		if (l->names_len + len + 1 > l->names_size) {
			while (l->names_len + len + 1 > l->names_size)
				l->names_size = l->names_size > 0 ?
				    l->names_size * 2 : 4096;
			l->names = xreallocarray(l->names, l->names_size, 1);
		}
		memcpy(l->names + l->names_len, v[i], len + 1);
		l->names_len += len + 1;
		l->names_bytes += jlen + 4;
		l->nnames++;
	}
	qsort(l->changed, l->nchanged, sizeof(*l->changed), cmp_digest);
}

/* Sorts |v|, drops its duplicates; returns how many are left. */
static size_t
sort_unique(const char **v, size_t n)
{
	size_t i, nv = 0;

	qsort(v, n, sizeof(*v), cmp_path);
	for (i = 0; i < n; i++)
		if (nv == 0 || strcmp(v[i], v[nv - 1]) != 0)
			v[nv++] = v[i];
	return nv;
}

/*
 * Whether a change of |path| changes dependency file |file|: it is the
 * file, or a directory on its way.  A run that made "deps" a link to
 * "evil" (where "deps" was a link to "vendor", or absent) and wrote
 * evil/package.json changed what deps/package.json holds, while its
 * change set named only "deps" and "evil/package.json": no dependency
 * was counted.  A directory on the way removed is counted by the files
 * it held as well; one whose mode changed counts too, erring toward a
 * count.
 */
static int
changes_file(const char *path, const char *file)
{
	size_t n = strlen(path);

	return strncmp(path, file, n) == 0 &&
	    (file[n] == '\0' || file[n] == '/');
}

static int
is_dependency_file(const struct ledger *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->m->ndependency_files; i++)
		if (changes_file(path, l->m->dependency_files[i]))
			return 1;
	for (i = 0; i < l->ndep_real; i++)
		if (changes_file(path, l->dep_real[i]))
			return 1;
	return 0;
}

void
ledger_dependency_real(struct ledger *l, const char *const *real, size_t n)
{
	size_t i;

	for (i = 0; i < l->ndep_real; i++)
		free(l->dep_real[i]);
	free(l->dep_real);
	l->dep_real = n > 0 ? xcalloc(n, sizeof(*l->dep_real)) : NULL;
	for (i = 0; i < n; i++)
		l->dep_real[i] = xstrdup(real[i]);
	l->ndep_real = n;
}

static int
gate_required(const struct manifest *m, const char *check)
{
	size_t i;

	for (i = 0; i < m->nrequired_gates; i++)
		if (strcmp(m->required_gates[i], check) == 0)
			return 1;
	return 0;
}

/*
 * One attempt more at every failing required gate: AL_ERR_BUDGET, the
 * session stopped, when it would go past maxPatchAttemptsPerGate.
 */
static int
attempt_admit(struct ledger *l, char *limit, size_t limitlen)
{
	int64_t	max = l->m->budget.max_patch_attempts_per_gate;
	size_t	i;

	if (max < 0)
		return 0;
	for (i = 0; i < l->ngates; i++) {
		const struct gate *g = &l->gates[i];

		if (g->failing && gate_required(l->m, g->check) &&
		    g->attempts + 1 > max)
			return stop_with(l, "maxPatchAttemptsPerGate", limit,
			    limitlen);
	}
	return 0;
}

int
ledger_admit_check(struct ledger *l, const char *ws_digest, int agent_writes,
    int seen, char *limit, size_t limitlen)
{
	size_t	i;
	int	edited, rc;

	/* Nothing the broker wrote since: the change is another's, whatever
	 * the watch saw (a write through a shared mapping it never sees). */
	edited = agent_writes && (seen || l->outputs == 0) &&
	    l->patches == 0 && l->check_ws[0] != '\0' &&
	    strcmp(l->check_ws, ws_digest) != 0;
	snprintf(l->check_ws, sizeof(l->check_ws), "%s", ws_digest);
	l->patches = l->outputs = 0;
	/* A session stopped already refuses the run (call_start_runner()). */
	if (!edited || l->stopped != NULL ||
	    l->m->budget.max_patch_attempts_per_gate < 0)
		return 0;
	if ((rc = attempt_admit(l, limit, limitlen)) != 0)
		return rc;
	for (i = 0; i < l->ngates; i++)
		l->gates[i].attempts += l->gates[i].failing;
	return 0;
}

int
ledger_admit_write(struct ledger *l, const char *const *paths, size_t n,
    int is_patch, char *limit, size_t limitlen)
{
	const struct run_budget	*b = &l->m->budget;
	const char		**v;
	unsigned char		(*h)[SHA256_BYTES];
	size_t			 i, nv, fresh = 0;
	int64_t			 deps = 0;
	int			 rc;

	l->last_open = 0;
	if (l->stopped != NULL) {
		snprintf(limit, limitlen, "%s", l->stopped);
		return AL_ERR_BUDGET;
	}
	/* Each path once, sorted: duplicates are neighbours. */
	v = xcalloc(n > 0 ? n : 1, sizeof(*v));
	if (n > 0)
		memcpy(v, paths, n * sizeof(*v));
	nv = sort_unique(v, n);
	h = xcalloc(nv > 0 ? nv : 1, sizeof(*h));
	for (i = 0; i < nv; i++) {
		sha256(h[i], v[i], strlen(v[i]));
		if (!is_changed(l, l->nchanged, h[i]))
			fresh++;
		if (is_dependency_file(l, v[i]))
			deps++;
	}
	if (b->max_changed_files >= 0 &&
	    (int64_t)(l->nchanged + fresh) + l->changed_extra >
	    b->max_changed_files) {
		rc = stop_with(l, "maxChangedFiles", limit, limitlen);
		goto out;
	}
	if (b->max_added_dependencies >= 0 &&
	    l->deps + deps > b->max_added_dependencies) {
		rc = stop_with(l, "maxAddedDependencies", limit, limitlen);
		goto out;
	}
	if (is_patch && (rc = attempt_admit(l, limit, limitlen)) != 0)
		goto out;
	for (i = 0; i < l->ngates; i++) {
		l->gates[i].last_tried = is_patch &&
		    b->max_patch_attempts_per_gate >= 0 && l->gates[i].failing;
		l->gates[i].attempts += l->gates[i].last_tried;
	}
	l->last_patch = is_patch != 0;
	l->patches += l->last_patch;
	l->last_output = !is_patch && nv > 0;
	l->outputs += l->last_output;
	add_changed(l, v, h, nv, fresh);
	l->deps += deps;
	l->last_deps = deps;
	l->last_open = 1;
	rc = 0;
out:
	free(h);
	free(v);
	return rc;
}

void
ledger_write_undone(struct ledger *l)
{
	size_t	 i;

	if (!l->last_open)
		return;
	l->last_open = 0;
	l->deps -= l->last_deps;
	if (l->last_patch && l->patches > 0)
		l->patches--;
	if (l->last_output && l->outputs > 0)
		l->outputs--;
	for (i = 0; i < l->ngates; i++)
		if (l->gates[i].last_tried && l->gates[i].attempts > 0)
			l->gates[i].attempts--;
}

/* What a key is kept and carried as: SHA-256 of TOOL NUL KEY. */
static void
idem_name(const char *tool, const char *key, char hex[SHA256_HEX_LEN + 1])
{
	size_t	 nt = strlen(tool), nk = strlen(key);
	char	*buf = xcalloc(1, nt + nk + 2);

	memcpy(buf, tool, nt + 1);
	memcpy(buf + nt + 1, key, nk + 1);
	sha256_hex(buf, nt + nk + 1, hex);
	free(buf);
}

static int
cmp_hex(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The key of this session named |hex| (idem_name()), or NULL. */
static struct idem *
idem_find(struct ledger *l, const char *hex)
{
	size_t	 i;

	for (i = 0; i < l->nidem; i++)
		if (strcmp(l->idem[i].name, hex) == 0)
			return &l->idem[i];
	return NULL;
}

int
ledger_replay(struct ledger *l, const char *tool, const char *key,
    const char *args_digest, json_t **result)
{
	struct idem	*e;
	char		 hex[SHA256_HEX_LEN + 1];

	*result = NULL;
	idem_name(tool, key, hex);
	if (l->ncarried > 0 &&
	    bsearch(hex, l->carried, l->ncarried, sizeof(*l->carried),
		cmp_hex) != NULL)
		return 3;
	if ((e = idem_find(l, hex)) == NULL)
		return 0;
	if (strcmp(e->args, args_digest) != 0)
		return AL_ERR_CONFLICT;
	*result = e->result;
	return *result != NULL ? 1 : 2;
}

void
ledger_remember(struct ledger *l, const char *tool, const char *key,
    const char *args_digest, json_t *result)
{
	struct idem	*e;
	char		 hex[SHA256_HEX_LEN + 1];

	idem_name(tool, key, hex);
	if ((e = idem_find(l, hex)) != NULL) {
		json_decref(e->result);
		e->result = result != NULL ? json_incref(result) : NULL;
		snprintf(e->args, sizeof(e->args), "%s", args_digest);
		return;
	}
	if (l->nidem == LEDGER_MAX_KEYS) {
		/* Forget the oldest key: a replay then runs again, visibly. */
		json_decref(l->idem[0].result);
		memmove(l->idem, l->idem + 1,
		    (l->nidem - 1) * sizeof(*l->idem));
		l->nidem--;
	}
	l->idem = xreallocarray(l->idem, l->nidem + 1, sizeof(*l->idem));
	e = &l->idem[l->nidem++];
	memcpy(e->name, hex, sizeof(e->name));
	snprintf(e->args, sizeof(e->args), "%s", args_digest);
	e->result = result != NULL ? json_incref(result) : NULL;
}

void
ledger_forget(struct ledger *l, const char *tool, const char *key)
{
	struct idem	*e;
	char		 hex[SHA256_HEX_LEN + 1];
	size_t		 i;

	idem_name(tool, key, hex);
	if ((e = idem_find(l, hex)) == NULL)
		return;
	i = (size_t)(e - l->idem);
	json_decref(e->result);
	memmove(l->idem + i, l->idem + i + 1,
	    (l->nidem - i - 1) * sizeof(*l->idem));
	l->nidem--;
}

/*
 * The fingerprint of a failure: the check, its status, and its first
 * error-looking lines with digits folded, so that line numbers, times and
 * counts that change between runs do not make a new fingerprint.
 */
static void
fingerprint(const char *check, int exit_code, const char *out, size_t len,
    char hex[SHA256_HEX_LEN + 1])
{
	char	*norm;
	size_t	 i, lines = 0, start = 0, n = 0;

	norm = xcalloc(1, strlen(check) + len + 64);
	n = (size_t)sprintf(norm, "%s\n%d\n", check, exit_code);
	for (i = 0; i <= len && lines < FINGERPRINT_LINES; i++) {
		size_t	 k;
		int	 hit;
		char	 line[512];
		size_t	 ll;

		if (i < len && out[i] != '\n')
			continue;
		ll = i - start < sizeof(line) - 1 ? i - start : sizeof(line) - 1;
		memcpy(line, out + start, ll);
		line[ll] = '\0';
		start = i + 1;
		hit = strstr(line, "FAIL") != NULL ||
		    strstr(line, "rror") != NULL ||
		    strstr(line, "assert") != NULL;
		if (!hit)
			continue;
		for (k = 0; k < ll; k++) {
			char c = line[k];

			if (isdigit((unsigned char)c)) {
				if (n > 0 && norm[n - 1] == '#')
					continue;
				c = '#';
			}
			norm[n++] = c;
		}
		norm[n++] = '\n';
		lines++;
	}
	/* With no error-looking line, the status alone is the fingerprint. */
	sha256_hex(norm, n, hex);
	free(norm);
}

static struct gate *
gate_find(struct ledger *l, const char *check)
{
	size_t i;

	for (i = 0; i < l->ngates; i++)
		if (strcmp(l->gates[i].check, check) == 0)
			return &l->gates[i];
	return NULL;
}

int
ledger_record_check(struct ledger *l, const char *check_id, int exit_code,
    const char *output, size_t outlen, const char *ws_digest,
    json_t *pinned_changed, char fingerprint_out[65])
{
	const struct run_budget	*b = &l->m->budget;
	struct gate		*g;
	struct fingerprint	*f = NULL;
	size_t			 i;

	fingerprint_out[0] = '\0';
	if ((g = gate_find(l, check_id)) != NULL) {
		g->ran = 1;
		g->exit_code = exit_code;
		snprintf(g->ws, sizeof(g->ws), "%s", ws_digest);
		json_decref(g->pinned);
		g->pinned = json_array_size(pinned_changed) > 0 ?
		    json_deep_copy(pinned_changed) : NULL;
		/*
		 * A pass that counts toward no gate (its pinned code
		 * changed, or no digest is bound to it) ends no failure:
		 * it ended the count of patch attempts, and an agent that
		 * wrote "exit 0" into the check's script, ran it, and put
		 * the script back patched uncounted from then on.
		 */
		if (exit_code != 0)
			g->failing = 1;
		else if (g->pinned == NULL && ws_digest[0] != '\0') {
			g->failing = 0;
			g->attempts = 0;
		}
	}
	if (exit_code == 0)
		return 0;
	fingerprint(check_id, exit_code, output, outlen, fingerprint_out);
	for (i = 0; i < l->nfps; i++)
		if (strcmp(l->fps[i].fp, fingerprint_out) == 0)
			f = &l->fps[i];
	if (f == NULL) {
		l->fps = xreallocarray(l->fps, l->nfps + 1, sizeof(*l->fps));
		f = &l->fps[l->nfps++];
		memset(f, 0, sizeof(*f));
		snprintf(f->fp, sizeof(f->fp), "%s", fingerprint_out);
	}
	/*
	 * The same failure on the same workspace is one attempt.  A run the
	 * workspace was written under has no digest (""): each counts, or
	 * an agent writing during every check would never be stopped.
	 */
	if (ws_digest[0] == '\0' || strcmp(f->last_ws, ws_digest) != 0) {
		f->count++;
		snprintf(f->last_ws, sizeof(f->last_ws), "%s", ws_digest);
	}
	if (b->stop_on_repeated_failure_fingerprint > 0 &&
	    f->count >= b->stop_on_repeated_failure_fingerprint) {
		ledger_stop(l, "stopOnRepeatedFailureFingerprint");
		return AL_ERR_BUDGET;
	}
	return 0;
}

int
ledger_acceptance_met(const struct ledger *l, const char *ws_digest)
{
	size_t i;

	if (l->m->nrequired_gates == 0)
		return 0;
	for (i = 0; i < l->m->nrequired_gates; i++) {
		const struct gate *g = NULL;
		size_t j;

		for (j = 0; j < l->ngates; j++)
			if (strcmp(l->gates[j].check,
			    l->m->required_gates[i]) == 0)
				g = &l->gates[j];
		if (g == NULL || !g->ran || g->exit_code != 0 ||
		    g->pinned != NULL || strcmp(g->ws, ws_digest) != 0)
			return 0;
	}
	return 1;
}

json_t *
ledger_budget_entry(double used, double limit)
{
	if (limit < 0)
		return json_pack("{s:f, s:n}", "used", used, "limit");
	return json_pack("{s:f, s:f}", "used", used, "limit", limit);
}

json_t *
ledger_status(const struct ledger *l, const char *ws_digest, int64_t now_ms)
{
	const struct run_budget	*b = &l->m->budget;
	json_t			*gates, *budgets, *st, *e, *pinned;
	int64_t			 attempts = 0, repeats = 0;
	size_t			 i;

	/* As ledger_admit_write() and ledger_record_check() count them. */
	for (i = 0; i < l->ngates; i++)
		if (l->gates[i].failing &&
		    gate_required(l->m, l->gates[i].check) &&
		    l->gates[i].attempts > attempts)
			attempts = l->gates[i].attempts;
	for (i = 0; i < l->nfps; i++)
		if (l->fps[i].count > repeats)
			repeats = l->fps[i].count;
	pinned = json_array();
	budgets = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
	    "maxModelSteps", ledger_budget_entry((double)l->steps,
	    (double)b->max_model_steps),
	    "maxElapsedMinutes", ledger_budget_entry((double)(now_ms - l->started) /
	    60000.0, (double)b->max_elapsed_minutes),
	    "maxChangedFiles", ledger_budget_entry((double)l->nchanged +
	    (double)l->changed_extra,
	    (double)b->max_changed_files),
	    "maxAddedDependencies", ledger_budget_entry((double)l->deps,
	    (double)b->max_added_dependencies),
	    "maxToolCostUsd", ledger_budget_entry(l->cost, b->max_tool_cost_usd),
	    "maxRefusedCalls", ledger_budget_entry((double)l->refused,
	    (double)b->max_refused_calls));
	json_object_set_new(budgets, "maxPatchAttemptsPerGate",
	    ledger_budget_entry((double)attempts,
	    (double)b->max_patch_attempts_per_gate));
	/* 0 stops nothing (ledger_record_check()). */
	json_object_set_new(budgets, "stopOnRepeatedFailureFingerprint",
	    ledger_budget_entry((double)repeats,
	    b->stop_on_repeated_failure_fingerprint > 0 ?
	    (double)b->stop_on_repeated_failure_fingerprint : -1));
	gates = json_array();
	for (i = 0; i < l->ngates; i++) {
		const struct gate *g = &l->gates[i];
		const char *state;

		if (!g->ran)
			state = "not_run";
		else if (strcmp(g->ws, ws_digest) != 0)
			state = "stale";
		else
			state = g->exit_code == 0 ? "pass" : "fail";
		e = json_pack("{s:s, s:s, s:b, s:I}",
		    "checkId", g->check, "state", state,
		    "required", gate_required(l->m, g->check),
		    "patchAttempts", (json_int_t)g->attempts);
		if (g->pinned != NULL) {
			json_object_set(e, "pinnedCodeChanged", g->pinned);
			if (gate_required(l->m, g->check) &&
			    strcmp(g->ws, ws_digest) == 0)
				pins_merge(pinned, g->pinned);
		}
		json_array_append_new(gates, e);
	}
	st = json_pack("{s:o, s:o, s:s, s:b, s:b, s:s?, s:o}",
	    "budgets", budgets, "gates", gates, "workspaceDigest", ws_digest,
	    "acceptanceMet", ledger_acceptance_met(l, ws_digest),
	    "stopped", l->stopped != NULL, "stopReason", l->stopped,
	    "pinnedCodeChanged", pinned);
	return st;
}

int64_t
ledger_steps(const struct ledger *l)
{
	return l->steps;
}

json_t *
ledger_export(const struct ledger *l, int64_t now_ms)
{
	json_t		 *paths, *gates, *fails, *keys;
	const char	**v;
	size_t		  i, off;
	int64_t		  extra = l->changed_extra;

	/* The paths named (add_changed()) in order, the rest counted. */
	v = xcalloc(l->nnames > 0 ? l->nnames : 1, sizeof(*v));
	for (i = 0, off = 0; i < l->nnames; i++) {
		v[i] = l->names + off;
		off += strlen(v[i]) + 1;
	}
	qsort(v, l->nnames, sizeof(*v), cmp_path);
	paths = json_array();
	for (i = 0; i < l->nnames; i++)
		json_array_append_new(paths, json_string(v[i]));
	free(v);
	extra += (int64_t)(l->nchanged - l->nnames);
	gates = json_array();
	for (i = 0; i < l->ngates; i++)
		if (l->gates[i].ran)
			json_array_append_new(gates, json_pack("{s:s, s:i, s:I, s:b}",
			    "checkId", l->gates[i].check,
			    "exitCode", l->gates[i].exit_code,
			    "patchAttempts", (json_int_t)l->gates[i].attempts,
			    "failing", l->gates[i].failing));
	fails = json_array();
	for (i = 0; i < l->nfps; i++)
		json_array_append_new(fails, json_pack("{s:s, s:I}",
		    "fingerprint", l->fps[i].fp,
		    "count", (json_int_t)l->fps[i].count));
	/* Every key used, in flight or done: past LEDGER_MAX_KEYS, those
	 * of earlier runs go first. */
	keys = json_array();
	i = l->ncarried + l->nidem > LEDGER_MAX_KEYS ?
	    l->ncarried + l->nidem - LEDGER_MAX_KEYS : 0;
	for (; i < l->ncarried + l->nidem; i++) {
		if (i < l->ncarried) {
			json_array_append_new(keys,
			    json_string(l->carried[i]));
			continue;
		}
		json_array_append_new(keys,
		    json_string(l->idem[i - l->ncarried].name));
	}
	return json_pack(
	    "{s:I, s:I, s:f, s:I, s:I, s:o, s:I, s:s?, s:o, s:o, s:o}",
	    "steps", (json_int_t)l->steps,
	    "refusedCalls", (json_int_t)l->refused,
	    "costUsd", l->cost,
	    "elapsedMs", (json_int_t)(now_ms - l->started),
	    "addedDependencies", (json_int_t)l->deps,
	    "changedFiles", paths,
	    "changedUncounted", (json_int_t)extra,
	    "stopped", l->stopped,
	    "gates", gates,
	    "failures", fails,
	    "idempotencyKeys", keys);
}

/* A count of |o|: a non-negative integer, or -1. */
static int64_t
carried_count(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	return json_integer_value(v);
}

static int
restore_fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "the carried budget has no valid %s", what);
	return AL_ERR_FORMAT;
}

int
ledger_restore(struct ledger *l, const json_t *carry, int64_t now_ms,
    char *err, size_t errlen)
{
	const json_t	*paths, *gates, *fails, *keys, *e, *v;
	const char	**pv;
	unsigned char	(*h)[SHA256_BYTES];
	struct gate	*g;
	size_t		 i, n;
	int64_t		 steps, refused, elapsed, deps, extra, count;

	steps = carried_count(carry, "steps");
	refused = carried_count(carry, "refusedCalls");
	elapsed = carried_count(carry, "elapsedMs");
	deps = carried_count(carry, "addedDependencies");
	extra = carried_count(carry, "changedUncounted");
	v = json_object_get(carry, "costUsd");
	if (!json_is_object(carry) || steps < 0 || refused < 0 ||
	    elapsed < 0 || deps < 0 || extra < 0 || !json_is_number(v) ||
	    json_number_value(v) < 0)
		return restore_fail(err, errlen, "counters");
	paths = json_object_get(carry, "changedFiles");
	gates = json_object_get(carry, "gates");
	fails = json_object_get(carry, "failures");
	keys = json_object_get(carry, "idempotencyKeys");
	if (!json_is_array(paths) || !json_is_array(gates) ||
	    !json_is_array(fails) || !json_is_array(keys) ||
	    json_array_size(keys) > LEDGER_MAX_KEYS)
		return restore_fail(err, errlen, "lists");
	for (i = 0; i < json_array_size(keys); i++)
		if (!is_sha256_hex(json_string_value(json_array_get(keys, i))))
			return restore_fail(err, errlen, "idempotency keys");
	e = json_object_get(carry, "stopped");
	if (e != NULL && !json_is_null(e) && !json_is_string(e))
		return restore_fail(err, errlen, "stop reason");
	/* A fresh ledger's first paths: sorted, each once. */
	n = json_array_size(paths);
	for (i = 0; i < n; i++)
		if (!json_is_string(json_array_get(paths, i)))
			return restore_fail(err, errlen, "changed files");
	if (l->nchanged == 0 && n > 0) {
		pv = xcalloc(n, sizeof(*pv));
		for (i = 0; i < n; i++)
			pv[i] = json_string_value(json_array_get(paths, i));
		n = sort_unique(pv, n);
		h = xcalloc(n, sizeof(*h));
		for (i = 0; i < n; i++)
			sha256(h[i], pv[i], strlen(pv[i]));
		add_changed(l, pv, h, n, n);
		free(h);
		free(pv);
	}
	for (i = 0; i < json_array_size(gates); i++) {
		e = json_array_get(gates, i);
		v = json_object_get(e, "checkId");
		count = carried_count(e, "patchAttempts");
		if (!json_is_string(v) || count < 0 ||
		    !json_is_integer(json_object_get(e, "exitCode")) ||
		    (g = gate_find(l, json_string_value(v))) == NULL)
			return restore_fail(err, errlen, "gates");
		g->ran = 1;
		g->exit_code = (int)json_integer_value(
		    json_object_get(e, "exitCode"));
		g->failing = g->exit_code != 0 ||
		    json_is_true(json_object_get(e, "failing"));
		/* Stale on every digest, "" included: never counts. */
		snprintf(g->ws, sizeof(g->ws), "carried");
		g->attempts = count;
	}
	for (i = 0; i < json_array_size(fails); i++) {
		struct fingerprint *f;

		e = json_array_get(fails, i);
		v = json_object_get(e, "fingerprint");
		count = carried_count(e, "count");
		if (!json_is_string(v) || count < 0 ||
		    strlen(json_string_value(v)) != SHA256_HEX_LEN)
			return restore_fail(err, errlen, "failures");
		l->fps = xreallocarray(l->fps, l->nfps + 1, sizeof(*l->fps));
		f = &l->fps[l->nfps++];
		memset(f, 0, sizeof(*f));
		snprintf(f->fp, sizeof(f->fp), "%s", json_string_value(v));
		f->count = count;
	}
	if (l->ncarried == 0 && json_array_size(keys) > 0) {
		n = json_array_size(keys);
		l->carried = xcalloc(n, sizeof(*l->carried));
		for (i = 0; i < n; i++)
			snprintf(l->carried[i], sizeof(l->carried[i]), "%s",
			    json_string_value(json_array_get(keys, i)));
		qsort(l->carried, n, sizeof(*l->carried), cmp_hex);
		l->ncarried = n;
	}
	l->steps += steps;
	l->refused += refused;
	l->cost += json_number_value(json_object_get(carry, "costUsd"));
	l->deps += deps;
	l->changed_extra += extra;
	l->started = now_ms - elapsed;
	if (json_is_string(e = json_object_get(carry, "stopped")))
		ledger_stop(l, json_string_value(e));
	return 0;
}
