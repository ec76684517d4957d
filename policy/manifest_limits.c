/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* limits.enforce; see manifest_limits.h. */
#include "config.h"

#include <string.h>

#include "policy/manifest.h"
#include "policy/manifest_limits.h"

int
limits_enforce_parse(const char *s)
{
	if (s == NULL)
		return -1;
	if (strcmp(s, "required") == 0)
		return 0;
	if (strcmp(s, "best-effort") == 0)
		return 1;
	return -1;
}

const char *
limits_enforce_name(int best_effort)
{
	return best_effort ? "best-effort" : "required";
}

unsigned
limit_asked_bit(const char *key)
{
	if (strcmp(key, "memoryMb") == 0)
		return LIMIT_ASKED_MEMORY;
	if (strcmp(key, "processes") == 0)
		return LIMIT_ASKED_PIDS;
	if (strcmp(key, "cpuPercent") == 0)
		return LIMIT_ASKED_CPU;
	return 0;
}
