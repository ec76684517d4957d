/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* strlist: see strlist.h. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "common/strlist.h"

int
str_in_list(const char *s, const char *const *list)
{
	size_t i;

	if (s == NULL)
		return 0;
	for (i = 0; list[i] != NULL; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}
