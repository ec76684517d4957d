/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cancel: notifications/cancelled {requestId, reason}.  The call of the
 * same connection with that id is stopped wherever it is (running,
 * waiting for a human, held, digesting, waiting to land, an idempotent
 * retry, waiting on a job, or a status waiting for its digest) and
 * nothing of it is done afterwards; a set already landing lands whole.
 * Each cancel is recorded: cancel_request {id, reason, stopped, state,
 * approval}.  The rules, state by state, are in cancel.c.
 */
#ifndef AIRLOCK_CANCEL_H
#define AIRLOCK_CANCEL_H

struct conn;
struct jsonrpc_msg;

/* notifications/cancelled (methods[], broker.c). */
void	cancel_request(struct conn *k, struct jsonrpc_msg *msg);

#endif
