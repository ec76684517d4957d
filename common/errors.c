/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include "common/errors.h"

const char *
al_strerror(int code)
{
	switch (code) {
	case AL_OK:			return "success";
	case AL_ERR_INTERNAL:		return "internal error";
	case AL_ERR_ALLOC:		return "out of memory";
	case AL_ERR_SYSTEM:		return "system call failed";
	case AL_ERR_LIMIT:		return "limit exceeded";
	case AL_ERR_FORMAT:		return "malformed input";
	case AL_ERR_UTF8:		return "invalid UTF-8";
	case AL_ERR_TYPE:		return "value does not match its type";
	case AL_ERR_PATH:		return "path escapes the workspace";
	case AL_ERR_NOT_FOUND:		return "not found";
	case AL_ERR_DENIED:		return "denied by policy";
	case AL_ERR_CONFLICT:		return "state changed (conflict)";
	case AL_ERR_TIMEOUT:		return "timed out";
	case AL_ERR_UNSUPPORTED:	return "not supported here";
	case AL_ERR_CRYPTO:		return "verification failed";
	case AL_ERR_BUDGET:		return "budget exhausted";
	case AL_ERR_IO:			return "could not write durable record";
	}
	return "unknown error";
}
