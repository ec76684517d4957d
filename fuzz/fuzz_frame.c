/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for the agent-facing input path: common/buf.c framing
 * and broker/jsonrpc.c decoding, exactly as the broker runs them.
 *
 * The input is written to a memfd and read back through buf_fill() in
 * reads of varying size (the first input byte picks the read size), so
 * frames straddle reads the way they do on a socket.  Every frame is then
 * decoded with jsonrpc_decode().
 *
 * Invariants checked, beyond "does not crash":
 *   - a frame is NUL-free, NUL-terminated, no longer than the limit;
 *   - a decoded message has the fields its kind promises (a request has
 *     an id and a method, a notification a method and no id, a response
 *     an id and no method), and params is an object, array or NULL;
 *   - a refused frame gets one of the documented JSON-RPC codes and a
 *     terminated message;
 *   - the reply encoders produce one line that decodes as a response
 *     carrying the same id.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include "broker/jsonrpc.h"
#include "common/buf.h"
#include "common/errors.h"

#define FRAME_MAX 4096

static int
known_code(int code)
{
	return code == JSONRPC_PARSE_ERROR || code == JSONRPC_INVALID_REQUEST ||
	    code == JSONRPC_METHOD_NOT_FOUND ||
	    code == JSONRPC_INVALID_PARAMS || code == JSONRPC_INTERNAL_ERROR ||
	    code == JSONRPC_NOT_INITIALIZED || code == JSONRPC_REFUSED;
}

/* The reply to |id| must decode as a response with the same id. */
static void
check_reply(json_t *id)
{
	struct jsonrpc_msg back;
	json_t *rid = NULL, *res;
	char err[256], *line;
	size_t n;

	if ((res = json_pack("{s:b}", "ok", 1)) == NULL)
		return;
	line = jsonrpc_encode_result(id, res);
	json_decref(res);
	if (line == NULL)
		return;
	n = strlen(line);
	if (n == 0 || line[n - 1] != '\n' ||
	    memchr(line, '\n', n) != line + n - 1)
		abort();
	if (jsonrpc_decode(line, n - 1, &back, &rid, err, sizeof(err)) != 0)
		abort();
	if (back.kind != JSONRPC_RESPONSE || back.id == NULL ||
	    !jsonrpc_id_equal(back.id, id))
		abort();
	jsonrpc_msg_clear(&back);
	json_decref(rid);
	free(line);
	if ((line = jsonrpc_encode_error(
		 id, JSONRPC_INVALID_PARAMS, "x", NULL)) == NULL)
		return;
	n = strlen(line);
	if (jsonrpc_decode(line, n - 1, &back, &rid, err, sizeof(err)) != 0 ||
	    back.kind != JSONRPC_RESPONSE || !jsonrpc_id_equal(back.id, id))
		abort();
	jsonrpc_msg_clear(&back);
	json_decref(rid);
	free(line);
}

static void
decode(const char *frame, size_t len)
{
	struct jsonrpc_msg msg;
	json_t *id = NULL;
	char err[256];
	int rc;

	if (frame == NULL || frame[len] != '\0' || strlen(frame) != len ||
	    len > FRAME_MAX)
		abort();
	memset(err, 'X', sizeof(err));
	rc = jsonrpc_decode(frame, len, &msg, &id, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	if (rc != 0) {
		if (!known_code(rc) || err[0] == '\0')
			abort();
		if (id != NULL)
			check_reply(id);
		json_decref(id);
		return;
	}
	if (msg.root == NULL)
		abort();
	switch (msg.kind) {
	case JSONRPC_REQUEST:
		if (msg.id == NULL || msg.method == NULL)
			abort();
		break;
	case JSONRPC_NOTIFICATION:
		if (msg.id != NULL || msg.method == NULL)
			abort();
		break;
	case JSONRPC_RESPONSE:
		if (msg.id == NULL || msg.method != NULL)
			abort();
		break;
	default:
		abort();
	}
	if (msg.params != NULL && !json_is_object(msg.params) &&
	    !json_is_array(msg.params))
		abort();
	if (msg.id != NULL)
		check_reply(msg.id);
	jsonrpc_msg_clear(&msg);
	json_decref(id);
}

static void
drain(struct buf *b, int final)
{
	const char *frame;
	size_t len;
	int rc;

	for (;;) {
		frame = (const char *)1;
		len = 1;
		rc = final ? buf_final_frame(b, &frame, &len)
			   : buf_next_frame(b, &frame, &len);
		if (rc == 1)
			decode(frame, len);
		else if (rc == 0) {
			if (frame != NULL || len != 0)
				abort();
			return;
		} else if (rc == AL_ERR_LIMIT || rc == AL_ERR_FORMAT) {
			if (frame != NULL || len != 0)
				abort();
		} else
			abort();
		if (final)
			return;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf *b;
	size_t chunk, off;
	ssize_t n;
	int fd, p[2];

	if (size < 1)
		return 0;
	chunk = (data[0] & 0x3f) == 0 ? 1 : (size_t)(data[0] & 0x3f) * 64;
	data++;
	size--;
	if ((b = buf_new(FRAME_MAX)) == NULL)
		abort();
	/*
	 * A pipe delivers at most what was written in one go, so writing
	 * |chunk| bytes at a time and draining after each read cuts frames
	 * at arbitrary points.
	 */
	if (pipe(p) == -1)
		abort();
	for (off = 0; off < size; off += chunk) {
		size_t w = size - off < chunk ? size - off : chunk;

		if (write(p[1], data + off, w) != (ssize_t)w)
			abort();
		while ((n = buf_fill(b, p[0])) > 0) {
			drain(b, 0);
			if ((size_t)n >= w)
				break;
			w -= (size_t)n;
		}
		if (n < 0)
			abort();
	}
	close(p[1]);
	while ((n = buf_fill(b, p[0])) > 0)
		drain(b, 0);
	if (n != 0)
		abort();
	drain(b, 0);
	drain(b, 1);
	close(p[0]);
	buf_free(b);

	/* And once more through a memfd, in reads as large as buf takes. */
	if ((fd = memfd_create("fuzz", MFD_CLOEXEC)) == -1)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	if (lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if ((b = buf_new(FRAME_MAX)) == NULL)
		abort();
	while ((n = buf_fill(b, fd)) > 0)
		drain(b, 0);
	if (n != 0)
		abort();
	drain(b, 1);
	close(fd);
	buf_free(b);
	return 0;
}
