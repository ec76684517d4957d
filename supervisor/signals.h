/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * signals: SIGINT, SIGTERM and SIGHUP stop the loop (self-pipe; the mask
 * is never changed, so children start with nothing blocked).  SIGPIPE is
 * ignored: a closed agent shows up as a failed write.
 */
#ifndef AIRLOCK_SIGNALS_H
#define AIRLOCK_SIGNALS_H

#include "broker/loop.h"

/* Installs the handlers and a watch on |loop|; returns the watch id. */
int	signals_watch(struct loop *loop);

/* Removes the watch and restores the default dispositions. */
void	signals_unwatch(struct loop *loop, int id);

/* Returns the last stopping signal received, or 0. */
int	signals_received(void);

#endif
