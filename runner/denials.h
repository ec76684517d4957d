/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * denials: the list of what a run's sandbox refused (struct
 * runner_denial, runner/runner.h), kept deduplicated and in order of
 * first occurrence, and its one-line text form.
 *
 * Pure: nothing here talks to the kernel, so it is unit-tested directly.
 */
#ifndef AIRLOCK_RUNNER_DENIALS_H
#define AIRLOCK_RUNNER_DENIALS_H

#include <stddef.h>

#include "runner/runner.h"

/*
 * Appends |d| to list[0..*n) unless an equal entry is there already (same
 * layer and source and the same path+access, syscall or limit) or the
 * list holds RUNNER_DENIALS_MAX entries.  Returns 1 if appended, 0 if a
 * duplicate, -1 if the list is full.
 */
int runner_denial_add(
    struct runner_denial *list, size_t *n, const struct runner_denial *d);

/* Shorthands building one entry and adding it (same returns). */
int runner_denial_add_syscall(struct runner_denial *list, size_t *n,
    const char *source, const char *name, int nr);
int runner_denial_add_limit(struct runner_denial *list, size_t *n,
    const char *source, const char *limit, long long value);
int runner_denial_add_fs(struct runner_denial *list, size_t *n,
    const char *source, const char *path, const char *access);

/* The name of |layer| in results: "filesystem", "syscall", "limit". */
const char *runner_denial_layer_name(int layer);

/*
 * Writes the entry as one line of text without a newline, e.g.
 * "filesystem read /root/.npmrc (mount)", "syscall keyctl (seccomp)",
 * "limit memory 64 (cgroup)".  The path is written as is: escape the
 * line before printing it to a terminal.
 */
#define RUNNER_DENIAL_TEXT_MAX 4200
void runner_denial_format(
    const struct runner_denial *d, char *out, size_t outlen);

#endif
