/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * status: the agent's airlock/session/status requests.  A status carries
 * the workspace digest, so each waits for one (broker/wsjob.h) taken
 * off the loop: held while a change set lands (a digest of half a set is
 * no status), taken again when the workspace changed while it was read
 * (up to DIGEST_RETRIES times), and then answered with the session's
 * ledger, budgets, jobs and what the workspace index did.  A request in
 * flight counts as a call of its connection (k->ncalls), so it is
 * answered after the agent's end of input too; a cancel answers it at
 * once with an error.
 */
#ifndef AIRLOCK_STATUS_H
#define AIRLOCK_STATUS_H

#include <jansson.h>

struct broker;
struct conn;
struct jsonrpc_msg;

/* airlock/session/status (methods[], broker.c): answered when its digest
 * is in. */
void	status_request(struct conn *k, struct jsonrpc_msg *msg);

/* Digests again the requests held while a set landed. */
void	statuses_release(struct broker *b);

/*
 * Stops |k|'s status request |id| and answers it with an error; 1, or 0
 * when there is none.
 */
int	status_cancel(struct broker *b, struct conn *k, const json_t *id);

/* Drops every request unanswered (broker_free() only). */
void	statuses_free(struct broker *b);

#endif
