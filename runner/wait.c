/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <poll.h>

#include "runner/runner.h"

void
runner_proc_wait(struct runner_proc *p)
{
	struct pollfd pfd;

	for (;;) {
		pfd.fd = runner_proc_fd(p);
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, 100);
		if (runner_proc_step(p) != 0)
			return;
	}
}
