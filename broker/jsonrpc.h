/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * jsonrpc: decoding one untrusted frame into a JSON-RPC 2.0 message, and
 * encoding replies.  Pure code over bytes that common/buf.c delimited.
 *
 * Checks, in order: UTF-8 validity, nesting depth (before the parser sees
 * the text), JSON syntax with duplicate object keys refused, then the
 * JSON-RPC envelope.  Batches (arrays) are refused: MCP 2025-06-18 removed
 * them.  An id is a string or an integer from -(2^53-1) to 2^53-1: MCP
 * allows any integer, but jq and JavaScript round a larger one, and two
 * calls would read as one in the audit log (JSONRPC_INVALID_REQUEST).
 */
#ifndef AIRLOCK_JSONRPC_H
#define AIRLOCK_JSONRPC_H

#include <stddef.h>

#include <jansson.h>

#define JSONRPC_PARSE_ERROR	-32700
#define JSONRPC_INVALID_REQUEST	-32600
#define JSONRPC_METHOD_NOT_FOUND -32601
#define JSONRPC_INVALID_PARAMS	-32602
#define JSONRPC_INTERNAL_ERROR	-32603
#define JSONRPC_NOT_INITIALIZED	-32002	/* server-defined: before initialize */
#define JSONRPC_REFUSED		-32001	/* server-defined: broker refusing */

#define JSONRPC_MAX_DEPTH	64

enum jsonrpc_kind {
	JSONRPC_REQUEST,	/* has id and method */
	JSONRPC_NOTIFICATION,	/* method, no id */
	JSONRPC_RESPONSE,	/* id and result or error (from the agent) */
};

struct jsonrpc_msg {
	enum jsonrpc_kind	 kind;
	json_t			*root;		/* owned */
	json_t			*id;		/* borrowed from root, or NULL */
	const char		*method;	/* borrowed from root, or NULL */
	json_t			*params;	/* borrowed; object, array or NULL */
};

/*
 * Decodes |frame|.  Returns 0 with *msg filled (caller calls
 * jsonrpc_msg_clear), or a JSON-RPC error code (negative, as above) with
 * a message in err[0..errlen) and, where one could be recovered, *id_out
 * set to a new reference to the request id (else NULL).
 */
int	jsonrpc_decode(const char *frame, size_t len, struct jsonrpc_msg *msg,
	    json_t **id_out, char *err, size_t errlen);

void	jsonrpc_msg_clear(struct jsonrpc_msg *msg);

/*
 * Encoders.  Each returns a malloc'd NUL-terminated line ending in "\n"
 * (caller frees), or NULL on allocation failure.  |id| is borrowed; NULL
 * encodes as JSON null.  |result| and |data| are borrowed.
 */
char	*jsonrpc_encode_result(json_t *id, json_t *result);
char	*jsonrpc_encode_error(json_t *id, int code, const char *message,
	    json_t *data);
char	*jsonrpc_encode_notification(const char *method, json_t *params);

/*
 * A tools/call result of the fixed shape
 *   {"content":[{"type":"text","text":TEXT}, {"type":"text","text":X}...],
 *    "isError":B[,"structuredContent":STRUCTURED]}
 * where TEXT is structured[0..len) as a JSON string and, unless
 * |is_error|, STRUCTURED is the same bytes pasted as they are: the
 * structured JSON (compact, from jsonout_dumps()) is encoded once.  |extra|
 * holds |nextra| further text blocks (json strings, borrowed).  Returns the
 * line as jsonrpc_encode_result() does for the same json_t result.
 */
char	*jsonrpc_encode_tool_result(json_t *id, const char *structured,
	    size_t len, int is_error, json_t *const *extra, size_t nextra);

/* Returns 1 if |a| and |b| are the same JSON-RPC id, else 0. */
int	jsonrpc_id_equal(const json_t *a, const json_t *b);

#endif
