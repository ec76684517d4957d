/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * denials: a run's refusals, deduplicated, and their text form.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "runner/denials.h"

static int
same(const struct runner_denial *a, const struct runner_denial *b)
{
	if (a->layer != b->layer || strcmp(a->source, b->source) != 0)
		return 0;
	switch (a->layer) {
	case RUNNER_DENY_FS:
		return strcmp(a->path, b->path) == 0 &&
		    strcmp(a->access, b->access) == 0;
	case RUNNER_DENY_SYSCALL:
		return strcmp(a->syscall, b->syscall) == 0 && a->nr == b->nr;
	case RUNNER_DENY_LIMIT:
		return strcmp(a->limit, b->limit) == 0 && a->value == b->value;
	}
	return 0;
}

int
runner_denial_add(
    struct runner_denial *list, size_t *n, const struct runner_denial *d)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (same(&list[i], d))
			return 0;
	if (*n >= RUNNER_DENIALS_MAX)
		return -1;
	list[(*n)++] = *d;
	return 1;
}

int
runner_denial_add_syscall(struct runner_denial *list, size_t *n,
    const char *source, const char *name, int nr)
{
	struct runner_denial d;

	memset(&d, 0, sizeof(d));
	d.layer = RUNNER_DENY_SYSCALL;
	snprintf(d.source, sizeof(d.source), "%s", source);
	snprintf(d.syscall, sizeof(d.syscall), "%s", name);
	d.nr = nr;
	return runner_denial_add(list, n, &d);
}

int
runner_denial_add_limit(struct runner_denial *list, size_t *n,
    const char *source, const char *limit, long long value)
{
	struct runner_denial d;

	memset(&d, 0, sizeof(d));
	d.layer = RUNNER_DENY_LIMIT;
	snprintf(d.source, sizeof(d.source), "%s", source);
	snprintf(d.limit, sizeof(d.limit), "%s", limit);
	d.value = value;
	return runner_denial_add(list, n, &d);
}

int
runner_denial_add_fs(struct runner_denial *list, size_t *n, const char *source,
    const char *path, const char *access)
{
	struct runner_denial d;

	memset(&d, 0, sizeof(d));
	if (strlen(path) >= sizeof(d.path))
		return -1;
	d.layer = RUNNER_DENY_FS;
	snprintf(d.source, sizeof(d.source), "%s", source);
	snprintf(d.path, sizeof(d.path), "%s", path);
	snprintf(d.access, sizeof(d.access), "%s", access);
	return runner_denial_add(list, n, &d);
}

const char *
runner_denial_layer_name(int layer)
{
	switch (layer) {
	case RUNNER_DENY_FS:
		return "filesystem";
	case RUNNER_DENY_SYSCALL:
		return "syscall";
	case RUNNER_DENY_LIMIT:
		return "limit";
	}
	return "unknown";
}

void
runner_denial_format(const struct runner_denial *d, char *out, size_t outlen)
{
	const char *layer = runner_denial_layer_name(d->layer);

	switch (d->layer) {
	case RUNNER_DENY_FS:
		snprintf(out, outlen, "%s %s %s (%s)", layer, d->access,
		    d->path, d->source);
		return;
	case RUNNER_DENY_SYSCALL:
		snprintf(
		    out, outlen, "%s %s (%s)", layer, d->syscall, d->source);
		return;
	case RUNNER_DENY_LIMIT:
		snprintf(out, outlen, "%s %s %lld (%s)", layer, d->limit,
		    d->value, d->source);
		return;
	}
	snprintf(out, outlen, "%s (%s)", layer, d->source);
}
