/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * scratch: a parent directory for a unit test's scratch directories,
 * made and removed by the Check runner's own process (an unchecked
 * fixture), so that it goes however the tests end: a test that fails
 * skips its checked teardown (make mutants fails them on purpose).
 *
 *	tcase_add_unchecked_fixture(tc, scratch_make, scratch_remove);
 *
 * with scratch_prefix set first ("/tmp/NAME"); a checked setup then
 * makes its own directory under scratch_dir.  Include once per test.
 */
#ifndef AIRLOCK_TEST_SCRATCH_H
#define AIRLOCK_TEST_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>

static const char *scratch_prefix = "/tmp/airlock-unit";
static char scratch_dir[128];

static void
scratch_make(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "%s.XXXXXX",
	    scratch_prefix);
	if (mkdtemp(scratch_dir) == NULL)
		abort();
}

static void
scratch_remove(void)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch_dir);
	(void)!system(cmd);
}

#endif
