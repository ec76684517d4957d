/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * buf: the one bounded reader for bytes that come from the agent.
 *
 * A struct buf accumulates bytes read from a file descriptor and hands
 * them out as newline-terminated frames.  It never holds more than |max|
 * bytes of one frame: a longer frame is discarded up to its newline and
 * reported once as AL_ERR_LIMIT, after which reading resumes with the
 * next frame.  Frames with an embedded NUL are reported as AL_ERR_FORMAT.
 */
#ifndef AIRLOCK_BUF_H
#define AIRLOCK_BUF_H

#include <stddef.h>
#include <sys/types.h>

struct buf;

/* Returns a reader that accepts frames of at most |max| bytes, or NULL. */
struct buf	*buf_new(size_t max);

/* Frees |b|; buf_free(NULL) is a no-op.  Held bytes are wiped. */
void		 buf_free(struct buf *b);

/*
 * Reads once from |fd| into |b| (restarting on EINTR).  Returns the
 * number of bytes read, 0 at end of file, or AL_ERR_SYSTEM.
 */
ssize_t		 buf_fill(struct buf *b, int fd);

/*
 * Takes the next complete frame.  Returns 1 and sets *frame (borrowed,
 * NUL-terminated, without the newline; valid until the next call on |b|)
 * and *len; 0 if no complete frame is held yet; AL_ERR_LIMIT for a frame
 * that was longer than the limit (its bytes are dropped); AL_ERR_FORMAT
 * for a frame that contained a NUL byte.  *frame and *len are cleared
 * before any check.
 */
int		 buf_next_frame(struct buf *b, const char **frame, size_t *len);

/*
 * At end of input: returns 1 with the unterminated tail as a frame if
 * one is held, else 0, with the same rules as buf_next_frame().
 */
int		 buf_final_frame(struct buf *b, const char **frame, size_t *len);

#endif
