/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_fields: the JSON a runner_start record carries about what runs
 * and under which sandbox.  Pure functions: no I/O; every result is a
 * new reference, or NULL when out of memory.
 *
 * Environment values are never recorded (they may hold granted
 * secrets): only the names.  Strings that are not UTF-8 are recorded as
 * "(not UTF-8)" so that one odd byte cannot drop the whole record.
 */
#ifndef AIRLOCK_AUDIT_FIELDS_H
#define AIRLOCK_AUDIT_FIELDS_H

#include <jansson.h>

#include "policy/manifest.h"

/* A NULL-terminated argv (or NULL) as an array of strings. */
json_t *audit_fields_argv(char *const *argv);

/* The names ("NAME" of each "NAME=value") of a NULL-terminated envp. */
json_t *audit_fields_env_names(char *const *envp);

/*
 * The sandbox a runner is asked for: network ("none" or "proxy"),
 * seccomp ("default" or "strict"), landlock (bool), workspace ("direct",
 * "cow" or "readonly"), readOnly, readWrite, denyRead and protected
 * (arrays of paths).
 */
json_t *audit_fields_sandbox(const struct sandbox_policy *p);

/* The resource limits, one integer member each (0: unlimited). */
json_t *audit_fields_limits(const struct resource_limits *l);

#endif
