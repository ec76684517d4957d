/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/errors.h"

/*
 * The frame being accumulated lives in data[0..len).  |start| is where
 * the next frame begins after one was handed out; |discarding| is set
 * while the rest of an over-long frame is being skipped.
 */
struct buf {
	char	*data;
	size_t	 cap;		/* max + 1 for the newline, + 1 for a NUL */
	size_t	 max;		/* bytes of one frame, without its newline */
	size_t	 room;		/* max + 1: what a frame and its newline take */
	size_t	 len;
	size_t	 start;
	size_t	 touched;	/* bytes of data written so far: what to wipe */
	int	 discarding;
	int	 overflowed;	/* an over-long frame awaits its report */
};

struct buf *
buf_new(size_t max)
{
	struct buf *b;

	if (max == 0 || max > (1UL << 30))
		return NULL;
	if ((b = calloc(1, sizeof(*b))) == NULL)
		return NULL;
	b->max = max;
	b->room = max + 1;
	b->cap = max + 2;
	if ((b->data = malloc(b->cap)) == NULL) {
		free(b);
		return NULL;
	}
	return b;
}

void
buf_free(struct buf *b)
{
	if (b == NULL)
		return;
	/* Only what was written: the rest was never touched, and wiping
	 * all of a patch applier's 64 MiB cap faulted in 16k pages on the
	 * broker's loop for every apply_patch (100-300 ms of a ping's
	 * wait on a guest where a fault costs 10 us). */
	explicit_bzero(b->data, b->touched);
	free(b->data);
	free(b);
}

/* Notes that data[0..len] (a frame's NUL may follow its bytes) was
 * written. */
static void
buf_touch(struct buf *b, size_t len)
{
	if (len + 1 > b->touched)
		b->touched = len + 1 < b->cap ? len + 1 : b->cap;
}

/* Drops the frame that was handed out last, moving the rest down. */
static void
buf_compact(struct buf *b)
{
	if (b->start == 0)
		return;
	memmove(b->data, b->data + b->start, b->len - b->start);
	b->len -= b->start;
	b->start = 0;
}

ssize_t
buf_fill(struct buf *b, int fd)
{
	char	 scratch[4096];
	ssize_t	 n;
	size_t	 room;

	buf_compact(b);
	room = b->room - b->len;
	for (;;) {
		if (room == 0 || b->discarding)
			n = read(fd, scratch, sizeof(scratch) < b->max ?
			    sizeof(scratch) : b->max);
		else
			n = read(fd, b->data + b->len, room);
		if (n >= 0)
			break;
		if (errno != EINTR)
			return AL_ERR_SYSTEM;
	}
	if (n == 0)
		return 0;
	if (room == 0 || b->discarding) {
		char *nl = memchr(scratch, '\n', (size_t)n);

		/* The held bytes are part of the over-long frame: drop them. */
		if (!b->discarding) {
			b->discarding = 1;
			b->overflowed = 1;
			b->len = 0;
		}
		if (nl != NULL) {
			size_t rest = (size_t)n - (size_t)(nl + 1 - scratch);

			b->discarding = 0;
			/* We read at most |max| bytes, so |rest| fits. */
			memcpy(b->data, nl + 1, rest);
			b->len = rest;
			buf_touch(b, rest);
		}
		return n;
	}
	b->len += (size_t)n;
	buf_touch(b, b->len);
	if (b->len == b->room && memchr(b->data, '\n', b->len) == NULL) {
		b->discarding = 1;
		b->overflowed = 1;
		b->len = 0;
	}
	return n;
}

static int
buf_emit(struct buf *b, size_t end, size_t next, const char **frame,
    size_t *len)
{
	b->data[end] = '\0';
	b->start = next;
	if (memchr(b->data, '\0', end) != NULL)
		return AL_ERR_FORMAT;
	*frame = b->data;
	*len = end;
	return 1;
}

int
buf_next_frame(struct buf *b, const char **frame, size_t *len)
{
	char *nl;

	*frame = NULL;
	*len = 0;
	if (b->overflowed && !b->discarding) {
		b->overflowed = 0;
		return AL_ERR_LIMIT;
	}
	buf_compact(b);
	if (b->discarding || b->len == 0)
		return 0;
	if ((nl = memchr(b->data, '\n', b->len)) == NULL)
		return 0;
	return buf_emit(b, (size_t)(nl - b->data), (size_t)(nl - b->data) + 1,
	    frame, len);
}

int
buf_final_frame(struct buf *b, const char **frame, size_t *len)
{
	*frame = NULL;
	*len = 0;
	if (b->overflowed) {
		b->overflowed = 0;
		b->discarding = 0;
		b->len = 0;
		return AL_ERR_LIMIT;
	}
	buf_compact(b);
	if (b->len == 0)
		return 0;
	return buf_emit(b, b->len, b->len, frame, len);
}
