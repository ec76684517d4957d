/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * conn: the agent's connections to the broker (struct conn,
 * broker_int.h): frames in, replies out.
 *
 * Input is read into a bounded buffer and split into frames, each handed
 * to broker_dispatch(); while the broker holds calls (a set lands) no
 * input is read (conns_pause_input()).  Replies never block the broker:
 * what the agent has not read is queued, and past a bound its input is
 * not read until it reads.  No reply leaves before the audit records it
 * follows: while the audit log holds an unsigned batch, replies are held
 * for broker_turn_end() (broker_int.h), which signs and writes the batch
 * and sends them, or replaces each by a refusal with its id if the batch
 * was lost.
 *
 * A connection lives while it is open or while a call it asked for is in
 * flight (the call answers through it); k->refs counts both, plus the
 * input handler while it works: a caller that may see |k| closed under
 * it takes a reference first and drops it with conn_unref().
 */
#ifndef AIRLOCK_CONN_H
#define AIRLOCK_CONN_H

#include <stddef.h>

#include <jansson.h>

struct broker;
struct conn;

/*
 * Starts serving a connection on in_fd/out_fd.  |primary| is the
 * connection the caller owns (its fds stay open; its end calls
 * cfg.on_close); others are accepted sockets the broker closes.
 */
struct conn	*conn_new(struct broker *b, int in_fd, int out_fd, int primary);

/* Sends |line| (owned; NULL is fatal: out of memory) to the agent, or
 * holds it for the audit batch it follows. */
void		 conn_send(struct conn *k, char *line);

/* Sends a JSON-RPC error with |id| (borrowed; NULL: null). */
void		 conn_error(struct conn *k, json_t *id, int code, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

/* Returns 1 if the request id |id| was used before on |k|; records it. */
int		 conn_id_seen(struct conn *k, const json_t *id);

/* Closes |k| once the replies held for it are sent; drops its open
 * reference. */
void		 conn_close(struct conn *k);

/* After the agent's end of input: closes |k| once no call of its is in
 * flight and every reply was read. */
void		 conn_maybe_close(struct conn *k);

/* Drops a reference; the last frees |k|. */
void		 conn_unref(struct conn *k);

/* Frees |k| whatever its references (broker_free() only). */
void		 conn_free(struct conn *k);

/* Stops reading every connection's input (calls are held). */
void		 conns_pause_input(struct broker *b);

/*
 * Accepts no more connections (the agent is cut off): the listening
 * socket is shut down, so that a later connect(2) is refused at once
 * (ECONNREFUSED) instead of waiting in its backlog for ever, and those
 * already waiting there are closed unserved.  NULL listener is fine.
 */
void		 conns_stop_listening(struct broker *b);

/* Reads agent input again: first the frames already read, then more. */
void		 conns_resume_input(struct broker *b);

/*
 * Handles one frame of |k|'s (methods[], broker.c): a decoded request
 * goes to its method, a bad one gets its JSON-RPC error.
 */
void		 broker_dispatch(struct conn *k, const char *frame, size_t len);

#endif
