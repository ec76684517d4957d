/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* conn: the agent's connections to the broker (conn.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/audit.h"
#include "broker/broker.h"
#include "broker/broker_int.h"
#include "broker/conn.h"
#include "broker/fwatch.h"
#include "broker/jsonrpc.h"
#include "broker/loop.h"
#include "common/buf.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"

/*
 * The request ids already used in this session (MCP forbids reuse),
 * stored as keyed 64-bit SipHash digests of their JSON text so that the
 * agent cannot aim collisions, in an open-addressing table.
 */
#define IDSET_MAX_CAP	(1 << 14)	/* slots: 128 KiB, 8192 ids */
struct idset {
	uint64_t	*slot;
	size_t		 cap;		/* a power of two */
	size_t		 n;
	unsigned char	 key[crypto_shorthash_KEYBYTES];
};

static struct idset *
idset_new(void)
{
	struct idset *s = xcalloc(1, sizeof(*s));

	s->cap = 256;
	s->slot = xcalloc(s->cap, sizeof(*s->slot));
	randombytes_buf(s->key, sizeof(s->key));
	return s;
}

static void
idset_free(struct idset *s)
{
	if (s == NULL)
		return;
	free(s->slot);
	free(s);
}

static void
idset_put(struct idset *s, uint64_t h)
{
	size_t i = h & (s->cap - 1);

	while (s->slot[i] != 0 && s->slot[i] != h)
		i = (i + 1) & (s->cap - 1);
	if (s->slot[i] == 0) {
		s->slot[i] = h;
		s->n++;
	}
}

/* Returns 1 if |id| was seen before; records it either way. */
static int
idset_seen(struct idset *s, const json_t *id)
{
	unsigned char	 md[crypto_shorthash_BYTES];
	char		*text;
	uint64_t	 h;
	size_t		 i;

	if ((text = json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT)) == NULL)
		fatalx("json_dumps");
	crypto_shorthash(md, (unsigned char *)text, strlen(text), s->key);
	free(text);
	memcpy(&h, md, sizeof(h));
	h |= 1;			/* 0 marks a free slot */
	for (i = h & (s->cap - 1); s->slot[i] != 0; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == h)
			return 1;
	if (s->n + 1 > s->cap / 2 && s->cap >= IDSET_MAX_CAP) {
		/* Bounded memory: forget the ids seen so far, start over. */
		memset(s->slot, 0, s->cap * sizeof(*s->slot));
		s->n = 0;
	}
	if (s->n + 1 > s->cap / 2) {
		uint64_t	*old = s->slot;
		size_t		 oldcap = s->cap, j;

		s->cap *= 2;
		s->slot = xcalloc(s->cap, sizeof(*s->slot));
		s->n = 0;
		for (j = 0; j < oldcap; j++)
			if (old[j] != 0)
				idset_put(s, old[j]);
		free(old);
	}
	idset_put(s, h);
	return 0;
}

/*
 * A connection lives while it is open or while a call it asked for is in
 * flight (the call answers through it); |refs| counts both, plus the
 * input handler while it works, so that nothing frees a connection under
 * its own feet.
 */
void
conn_free(struct conn *k)
{
	struct broker *b = k->b;

	TAILQ_REMOVE(&b->conns, k, entry);
	b->nconns--;
	buf_free(k->in);
	idset_free(k->ids);
	free(k->oq);
	free(k->wq);
	if (k->out_own != -1)
		close(k->out_own);
	if (!k->primary) {
		close(k->in_fd);
		if (k->out_fd != k->in_fd)
			close(k->out_fd);
	}
	free(k);
}

void
conn_unref(struct conn *k)
{
	if (--k->refs == 0)
		conn_free(k);
}

void
conn_close(struct conn *k)
{
	struct broker *b = k->b;

	if (k->closed)
		return;
	/* Held replies go first, once their records are signed. */
	if (k->oqlen > 0) {
		k->refs++;
		broker_turn_end(b);
		if (k->closed) {	/* closed there: the agent went away */
			conn_unref(k);
			return;
		}
		k->refs--;
	}
	k->closed = 1;
	/* What the agent did not read goes with it. */
	k->wqlen = k->wqoff = 0;
	if (k->out_watch > 0) {
		loop_unwatch(b->cfg.loop, k->out_watch);
		k->out_watch = 0;
	}
	/* A socket peer (airlock connect) sees the end of the replies. */
	(void)shutdown(k->out_fd, SHUT_WR);
	if (k->in_watch > 0) {
		loop_unwatch(b->cfg.loop, k->in_watch);
		k->in_watch = 0;
	}
	if (k->primary && b->cfg.on_close != NULL)
		b->cfg.on_close(b->cfg.arg);
	if (!k->primary)
		(void)broker_audit(b, "disconnect", json_pack("{s:I}", "conn",
		    (json_int_t)k->seq));
	conn_unref(k);
}

/*
 * After end of input: close once no call of this connection is in flight
 * and the agent has been sent every reply (conn_output() comes back).
 */
void
conn_maybe_close(struct conn *k)
{
	if (!k->input_done || k->ncalls != 0 || k->closed)
		return;
	if (k->oqlen > 0) {
		k->refs++;
		broker_turn_end(k->b);
		k->refs--;
		if (k->closed)
			return;
	}
	if (k->wqlen == 0)
		conn_close(k);
}

#define CONN_HOLD_MAX	(64 * 1024)	/* bytes of replies held, at most */

/*
 * Replies are written without ever blocking: an agent that stops reading
 * them must not stop the broker (the loop, its timers, the other
 * connections).  What does not fit is queued for conn_output(); past
 * CONN_OUT_MAX queued, no more input is read from that connection until
 * the agent reads (conn_frames()), so the queue stays bounded and no reply
 * is lost.
 */
#define CONN_OUT_MAX	(1024 * 1024)

static void	conn_frames(struct conn *);
static void	conn_input(int, int, void *);

/* Writes what fits now: bytes written, or -1 (the agent went away). */
static ssize_t
conn_out_try(struct conn *k, const char *p, size_t len)
{
	ssize_t n;

	do {
		if (k->out_sock)
			n = send(k->out_fd, p, len, MSG_DONTWAIT |
			    MSG_NOSIGNAL);
		else
			n = write(k->out_own != -1 ? k->out_own : k->out_fd,
			    p, len);
	} while (n == -1 && errno == EINTR);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	return n;
}

/* Reads |k|'s input again once its replies were read (conn_output()). */
static void
conn_out_resume(struct conn *k)
{
	struct broker *b = k->b;

	k->out_full = 0;
	if (k->closed)
		return;
	if (b->input_paused) {
		/* conns_resume_input() takes it from here. */
		if (!k->eof)
			k->in_paused = 1;
		return;
	}
	conn_frames(k);
	if (!k->closed && !k->eof && !k->out_full && !b->input_paused &&
	    k->in_watch == 0 &&
	    (k->in_watch = loop_watch(b->cfg.loop, k->in_fd, INT64_MAX,
	    conn_input, k)) < 0)
		fatalx("loop_watch");
	if (!k->closed && b->input_paused && !k->eof && k->in_watch == 0)
		k->in_paused = 1;
}

static void
conn_output(int fd, int why, void *arg)
{
	struct conn	*k = arg;
	ssize_t		 n;

	(void)fd;
	(void)why;
	k->refs++;
	if ((n = conn_out_try(k, k->wq + k->wqoff, k->wqlen)) < 0) {
		log_debug("agent stopped reading: %s", strerror(errno));
		conn_close(k);
	} else {
		k->wqoff += (size_t)n;
		k->wqlen -= (size_t)n;
		if (k->wqlen == 0) {
			k->wqoff = 0;
			loop_unwatch(k->b->cfg.loop, k->out_watch);
			k->out_watch = 0;
		}
		if (k->out_full && k->wqlen < CONN_OUT_MAX / 2)
			conn_out_resume(k);
		conn_maybe_close(k);
	}
	conn_unref(k);
}

/*
 * Sends |len| bytes to the agent, or queues what it has not read yet.
 * Returns 0, or -1 if the agent went away (the caller closes |k|).
 */
static int
conn_write(struct conn *k, const char *p, size_t len)
{
	ssize_t n;

	if (k->wqlen == 0) {
		if ((n = conn_out_try(k, p, len)) < 0)
			return -1;
		p += n;
		len -= (size_t)n;
		k->wqoff = 0;
	}
	if (len == 0)
		return 0;
	if (k->wqoff > 0 && k->wqoff + k->wqlen + len > k->wqcap) {
		memmove(k->wq, k->wq + k->wqoff, k->wqlen);
		k->wqoff = 0;
	}
	if (k->wqoff + k->wqlen + len > k->wqcap) {
		size_t cap = k->wqcap ? k->wqcap : 65536;

		while (cap < k->wqoff + k->wqlen + len)
			cap *= 2;
		k->wq = xreallocarray(k->wq, cap, 1);
		k->wqcap = cap;
	}
	memcpy(k->wq + k->wqoff + k->wqlen, p, len);
	k->wqlen += len;
	if (k->out_watch == 0 && (k->out_watch = loop_watch_writable(
	    k->b->cfg.loop, k->out_fd, conn_output, k)) < 0)
		fatalx("loop_watch_writable");
	if (k->wqlen >= CONN_OUT_MAX && !k->out_full) {
		/* No more input from |k| until the agent reads. */
		k->out_full = 1;
		if (k->in_watch > 0) {
			loop_unwatch(k->b->cfg.loop, k->in_watch);
			k->in_watch = 0;
		}
		k->in_paused = 0;
	}
	return 0;
}

/*
 * Sends |line| (owned) to the agent at the end of the loop's turn
 * (broker_turn_end()): the turn's audit records are signed and written
 * first (a batch, broker/audit.h), so no reply leaves before the records
 * it follows, and the replies of a turn leave in one write (a pipelined
 * agent's pings, 64 in flight, took a send() each).
 */
void
conn_send(struct conn *k, char *line)
{
	size_t len;

	if (line == NULL)
		fatalx("out of memory encoding a reply");
	len = strlen(line);
	/* A bound on what is held: sign the batch and send what waits. */
	if (!k->closed && k->oqlen > 0 && k->oqlen + len > CONN_HOLD_MAX)
		broker_turn_end(k->b);
	if (!k->closed) {
		if (k->oqlen + len > k->oqcap) {
			size_t cap = k->oqcap ? k->oqcap : 65536;

			while (cap < k->oqlen + len)
				cap *= 2;
			k->oq = xreallocarray(k->oq, cap, 1);
			k->oqcap = cap;
		}
		memcpy(k->oq + k->oqlen, line, len);
		k->oqlen += len;
	}
	free(line);
}

/*
 * The audit batch that the |len| bytes of replies held for |k| follow was
 * lost: each reply is replaced by a refusal with its id (a notification
 * is dropped), as when a record cannot be written at once.
 */
static void
conn_withhold(struct conn *k, size_t len)
{
	char	*p = k->oq, *end = k->oq + len, *nl;
	json_t	*msg, *id;

	for (; p < end && !k->closed; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((msg = json_loadb(p, (size_t)(nl - p), 0, NULL)) == NULL)
			fatalx("a held reply is not JSON");
		id = json_object_get(msg, "id");
		if (id != NULL && !json_is_null(id)) {
			char *line = jsonrpc_encode_error(id, JSONRPC_REFUSED,
			    "audit log cannot be written; result withheld",
			    NULL);

			if (line == NULL)
				fatalx("out of memory encoding a reply");
			if (conn_write(k, line, strlen(line)) != 0) {
				log_debug("agent stopped reading: %s",
				    strerror(errno));
				free(line);
				json_decref(msg);
				conn_close(k);
				return;
			}
			free(line);
		}
		json_decref(msg);
	}
}

void
broker_turn_end(void *arg)
{
	struct broker	*b = arg;
	struct conn	*k, *next;
	int		 ok = 1;

	/* The next turn's first result reads the inotify queue again. */
	fwatch_turn_end(b->fwatch);
	if (b->cfg.audit != NULL) {
		ok = audit_flush(b->cfg.audit) == 0;
		if (audit_lost(b->cfg.audit))
			ok = 0;
	}
	if (!ok)
		log_warnx("audit log %s cannot be written: held replies "
		    "withheld", audit_path(b->cfg.audit));
	for (k = TAILQ_FIRST(&b->conns); k != NULL; k = next) {
		k->refs++;
		if (k->oqlen > 0) {
			size_t len = k->oqlen;

			/* Emptied first: conn_close() comes back here. */
			k->oqlen = 0;
			if (!ok)
				conn_withhold(k, len);
			else if (!k->closed &&
			    conn_write(k, k->oq, len) != 0) {
				log_debug("agent stopped reading: %s",
				    strerror(errno));
				conn_close(k);
			}
		}
		next = TAILQ_NEXT(k, entry);
		conn_unref(k);
	}
}

void
conn_error(struct conn *k, json_t *id, int code, const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	conn_send(k, jsonrpc_encode_error(id, code, msg, NULL));
}

void
conns_pause_input(struct broker *b)
{
	struct conn	*k;

	b->input_paused = 1;
	TAILQ_FOREACH(k, &b->conns, entry)
		if (k->in_watch > 0) {
			loop_unwatch(b->cfg.loop, k->in_watch);
			k->in_watch = 0;
			k->in_paused = 1;
		}
}

/* Reads agent input again: first the frames already read, then more. */
void
conns_resume_input(struct broker *b)
{
	struct conn	*k, *next;

	b->input_paused = 0;
	for (k = TAILQ_FIRST(&b->conns); k != NULL; k = next) {
		k->refs++;
		if (k->in_paused && !b->input_paused) {
			k->in_paused = 0;
			conn_frames(k);
			if (b->input_paused)
				k->in_paused = 1;
			else if (!k->closed && !k->eof && !k->out_full) {
				k->in_watch = loop_watch(b->cfg.loop, k->in_fd,
				    INT64_MAX, conn_input, k);
				if (k->in_watch < 0)
					fatalx("loop_watch");
			}
		}
		next = TAILQ_NEXT(k, entry);
		conn_unref(k);
	}
}

/*
 * Handles the whole frames read from |k|, and at the end of its input the
 * unterminated tail; stops while input is paused (conns_pause_input()), leaving
 * the rest for conns_resume_input().
 */
static void
conn_frames(struct conn *k)
{
	struct broker	*b = k->b;
	const char	*frame;
	size_t		 len;
	int		 rc;

	for (;;) {
		if (k->closed || b->input_paused || k->out_full)
			return;
		rc = buf_next_frame(k->in, &frame, &len);
		if (rc == 0 && k->eof && !k->input_done) {
			rc = buf_final_frame(k->in, &frame, &len);
			/*
			 * The agent is done sending; calls in flight still
			 * get their results (it may have only half-closed),
			 * then we close.
			 */
			k->input_done = 1;
		}
		if (rc == 0)
			break;
		if (rc == AL_ERR_LIMIT)
			conn_error(k, NULL, JSONRPC_INVALID_REQUEST,
			    "frame exceeds %zu bytes", b->m->max_frame_bytes);
		else if (rc == AL_ERR_FORMAT)
			conn_error(k, NULL, JSONRPC_PARSE_ERROR,
			    "frame contains a NUL byte");
		else if (len > 0)
			broker_dispatch(k, frame, len);
	}
	if (k->input_done)
		conn_maybe_close(k);
}

static void
conn_input(int fd, int why, void *arg)
{
	struct conn	*k = arg;
	struct broker	*b = k->b;
	ssize_t		 n;

	(void)why;
	k->refs++;		/* a write error may close k while we work */
	if ((n = buf_fill(k->in, fd)) <= 0) {
		if (n < 0)
			log_warn("reading from the agent");
		k->eof = 1;
		if (k->in_watch > 0) {
			loop_unwatch(b->cfg.loop, k->in_watch);
			k->in_watch = 0;
		}
	}
	conn_frames(k);
	conn_unref(k);
}

/*
 * Makes writing to the agent never block (conn_write()): a socket is sent
 * to with MSG_DONTWAIT; a pipe (airlock serve's stdout) is opened again,
 * non-blocking, so that the flag does not reach whoever shares the
 * pipe's description (stderr, the client).  Anything else (a file, a
 * terminal) is written as it is.
 */
static void
conn_out_open(struct conn *k)
{
	struct stat	st;
	char		path[64];

	k->out_own = -1;
	if (fstat(k->out_fd, &st) == -1)
		return;
	if (S_ISSOCK(st.st_mode)) {
		k->out_sock = 1;
		return;
	}
	if (!S_ISFIFO(st.st_mode))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", k->out_fd);
	k->out_own = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (k->out_own == -1 && fd_set_nonblock(k->out_fd, 1) != 0)
		fatal("cannot make the agent's pipe non-blocking");
}

/*
 * Starts serving a connection on in_fd/out_fd.  |primary| is the
 * connection the caller owns (its fds stay open; its end calls
 * cfg.on_close); others are accepted sockets the broker closes.
 */
struct conn *
conn_new(struct broker *b, int in_fd, int out_fd, int primary)
{
	struct conn *k;

	k = xcalloc(1, sizeof(*k));
	k->b = b;
	k->in_fd = in_fd;
	k->out_fd = out_fd;
	k->primary = primary;
	k->state = BROKER_STATE_NEW;
	k->refs = 1;		/* open */
	k->seq = ++b->conn_seq;
	conn_out_open(k);
	if ((k->in = buf_new(b->m->max_frame_bytes > 0 ?
	    b->m->max_frame_bytes : 1024 * 1024)) == NULL)
		fatalx("cannot allocate a frame buffer");
	k->ids = idset_new();
	/* While calls are held (conns_pause_input()), not read yet. */
	if (b->input_paused)
		k->in_paused = 1;
	else if ((k->in_watch = loop_watch(b->cfg.loop, in_fd, INT64_MAX,
	    conn_input, k)) < 0)
		fatalx("loop_watch");
	TAILQ_INSERT_TAIL(&b->conns, k, entry);
	b->nconns++;
	return k;
}

static void
broker_accept(int fd, int why, void *arg)
{
	struct broker	*b = arg;
	struct ucred	 cred;
	socklen_t	 len = sizeof(cred);
	char		 why_not[256];
	struct conn	*k;
	int		 s;

	(void)why;
	if ((s = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) == -1) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("accept");
		return;
	}
	/* Its "connect" record would be one more past the limit. */
	if (broker_audit_spent(b)) {
		close(s);
		broker_audit_cut_off(b, NULL, NULL);
		return;
	}
	memset(&cred, 0, sizeof(cred));
	why_not[0] = '\0';
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1)
		snprintf(why_not, sizeof(why_not), "SO_PEERCRED: %s",
		    strerror(errno));
	else if (b->nconns >= BROKER_MAX_CONNS)
		snprintf(why_not, sizeof(why_not), "%d connections are open",
		    BROKER_MAX_CONNS);
	else if (b->peer_ok != NULL && b->peer_ok(s, &cred, b->peer_arg,
	    why_not, sizeof(why_not)) != 0 && why_not[0] == '\0')
		snprintf(why_not, sizeof(why_not), "peer refused");
	if (why_not[0] != '\0') {
		log_warnx("refused a connection from pid %ld: %s",
		    (long)cred.pid, why_not);
		(void)broker_audit(b, "connection_refused", json_pack(
		    "{s:I, s:I, s:s}", "pid", (json_int_t)cred.pid, "uid",
		    (json_int_t)cred.uid, "reason", why_not));
		close(s);
		return;
	}
	k = conn_new(b, s, s, 0);
	if (broker_audit(b, "connect", json_pack("{s:I, s:I, s:I}", "conn",
	    (json_int_t)k->seq, "pid", (json_int_t)cred.pid, "uid",
	    (json_int_t)cred.uid)) != 0)
		conn_close(k);
}

void
conns_stop_listening(struct broker *b)
{
	int s;

	if (b->listen_watch > 0) {
		loop_unwatch(b->cfg.loop, b->listen_watch);
		b->listen_watch = 0;
	}
	if (b->listen_fd == -1)
		return;
	if (shutdown(b->listen_fd, SHUT_RDWR) == -1)
		log_warn("shutting down the agent's broker socket");
	/* The listener is non-blocking (agent_socket_open()). */
	while ((s = accept4(b->listen_fd, NULL, NULL, SOCK_CLOEXEC)) != -1)
		close(s);
	b->listen_fd = -1;
}

int
broker_listen(struct broker *b, int fd, broker_peer_fn peer_ok, void *arg)
{
	if (b->listen_watch > 0)
		return AL_ERR_INTERNAL;
	b->listen_fd = fd;
	b->peer_ok = peer_ok;
	b->peer_arg = arg;
	b->listen_watch = loop_watch(b->cfg.loop, fd, INT64_MAX, broker_accept,
	    b);
	return b->listen_watch < 0 ? AL_ERR_LIMIT : 0;
}


int
conn_id_seen(struct conn *k, const json_t *id)
{
	return idset_seen(k->ids, id);
}
