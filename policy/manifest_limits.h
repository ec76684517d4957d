/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * manifest_limits: limits.enforce, what happens when a cgroup limit
 * asked for (memoryMb, processes, cpuPercent in sandbox.limits or
 * agent.limits, or airlock exec --limit memory=, nproc=, cpu-percent=)
 * cannot be enforced, because no cgroup is delegated to airlock.
 *
 *   required     (the default) the run is refused, saying which limit and
 *                why; nothing starts.
 *   best-effort  the run starts without it; a warning goes to stderr and,
 *                in a broker session, a limits_not_enforced audit record.
 *
 * Defaults that were not asked for follow neither: a run without a
 * cgroup reports it by the missing "cgroup" layer.
 */
#ifndef AIRLOCK_MANIFEST_LIMITS_H
#define AIRLOCK_MANIFEST_LIMITS_H

/* 0 for "required", 1 for "best-effort", -1 for anything else (NULL too). */
int limits_enforce_parse(const char *s);

/* "required" or "best-effort". */
const char *limits_enforce_name(int best_effort);

/* The LIMIT_ASKED_* bit of a sandbox.limits key, or 0. */
unsigned limit_asked_bit(const char *key);

#endif
