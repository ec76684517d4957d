/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * patchjail: apply_patch's parser, kept out of the privileged process.
 *
 * The patch text comes from the model.  The broker never parses it: it
 * re-executes airlock as a fresh process (no inherited memory, so no keys
 * or secrets to steal) that confines itself with a seccomp filter allowing
 * little more than read, write and memory management, then parses the
 * patch (policy/diff.c) and applies it to contents the broker sends.
 *
 * Exchange, one JSON object per line on the child's stdin/stdout:
 *   broker -> jail  {"patch": TEXT}
 *   jail -> broker  {"files": [{"path": P, "kind": "modify|create|delete"}]}
 *                   or {"error": MESSAGE, "errorClass": CLASS}
 *   broker -> jail  {"contents": [TEXT or null, ...]}   (same order)
 *   jail -> broker  {"results": [TEXT or null, ...]}
 *                   or {"error": MESSAGE, "errorClass": CLASS}
 */
#ifndef AIRLOCK_PATCHJAIL_H
#define AIRLOCK_PATCHJAIL_H

#include <stddef.h>

#include <jansson.h>

struct patchjail;

/*
 * Starts the jail and has it parse |patch|.  Returns 0 with *out and
 * *files (a borrowed array of {"path","kind"} objects, valid until
 * patchjail_free); or AL_ERR_FORMAT / AL_ERR_PATH / AL_ERR_LIMIT with the
 * jail's message in err (the patch is refused); or AL_ERR_SYSTEM.
 */
int	patchjail_parse(const char *patch, size_t len, struct patchjail **out,
	    json_t **files, char *err, size_t errlen)
	    __attribute__((warn_unused_result));

/*
 * Sends the current contents (contents[i] NULL for an absent file) and
 * receives the new ones: *results is a borrowed array of strings or nulls
 * (a null result deletes the file).  Returns 0, AL_ERR_CONFLICT with the
 * failing hunk in err, or AL_ERR_SYSTEM / AL_ERR_FORMAT if the jail
 * misbehaved.
 */
int	patchjail_apply(struct patchjail *j, const char *const *contents,
	    const size_t *lens, size_t n, json_t **results, char *err,
	    size_t errlen) __attribute__((warn_unused_result));

/* Ends the jail (killing it if needed) and frees |j|.  NULL is fine. */
void	patchjail_free(struct patchjail *j);

/* The jail's side: "airlock __patch-jail".  Returns an exit status. */
int	patchjail_child_main(void);

#endif
