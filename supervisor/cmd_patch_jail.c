/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* airlock __patch-jail: the confined side of broker/patchjail.c. */
#include "config.h"

#include "broker/patchjail.h"
#include "common/log.h"
#include "supervisor/commands.h"

int
cmd_patch_jail(int argc, char **argv)
{
	(void)argv;
	log_init("airlock patch-jail", 0);
	if (argc != 1)
		return EXIT_USAGE;
	return patchjail_child_main();
}
