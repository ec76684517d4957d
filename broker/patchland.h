/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * patchland: apply_patch's work, done in the lander (broker/landjob.h),
 * off the broker's event loop.
 *
 * A patch of a few KiB may change 16 MiB of files: reading them, hashing
 * them for the base check, the two exchanges with the parser's jail
 * (broker/patchjail.h: JSON of every byte, both ways), the secret checks
 * and the synced writes took 1.4-1.7 s of the loop, and a ping waited
 * as long (DESIGN.md, invariant 7).  The lander, forked from the broker,
 * has its manifest, secrets and workspace: it prepares the patch
 * (patchland_prepare()), the loop counts where the changes land against
 * the budgets and writes change_landing, then the lander applies them
 * (patchland_apply(): all or nothing, journalled as wswrite.h says).
 * Meanwhile the loop holds every other reader and writer of the
 * workspace, as for a run's change set, and answers pings and approvals.
 *
 * writes_checked() is the check every write of the broker's passes
 * before the budgets see it, write_file's on the loop too.  Not for use
 * outside broker/.
 */
#ifndef AIRLOCK_PATCHLAND_H
#define AIRLOCK_PATCHLAND_H

#include <stddef.h>

#include <jansson.h>

struct broker;
struct patchland;
struct ws_change;

/* Bytes of files one patch may change, all of them together. */
#define PATCH_READ_MAX (16 * 1024 * 1024)
/* Bytes of one file the broker writes (write_file's content, a patched
 * file). */
#define WRITE_MAX (4 * 1024 * 1024)

/*
 * Checks changes[0..n) against the write policy and finds where each
 * lands beneath the workspace (wswrite_where(): the name the budgets
 * count).  Returns 0 with where[0..n) (each allocated; the caller frees
 * them), or -1 with *out an error body (denied, path_refused,
 * write_failed) and where[] freed.
 */
int writes_checked(struct broker *b, const struct ws_change *changes, size_t n,
    char **where, json_t **out);

/* The error body of wswrite_apply()'s code |rc|, *rule and message. */
json_t *writes_error(int rc, const char *rule, const char *err);

/*
 * Parses |patch| (|len| bytes) in the jail, reads the files it changes
 * (at most PATCH_READ_MAX bytes), checks them against |expected| (the
 * call's expectedBaseSha), has the jail apply it and checks the result:
 * no granted secret quoted or broken up, no file larger than WRITE_MAX
 * (too_large), the write policy (writes_checked()), no file changed
 * under two names (malformed_patch).
 * Returns 0 with *pl, or -1 with *out an error body.
 */
int patchland_prepare(struct broker *b, const char *patch, size_t len,
    const char *expected, struct patchland **pl, json_t **out);

/* Where the changes of |pl| land, *n of them (borrowed). */
const char *const *patchland_where(const struct patchland *pl, size_t *n);

/*
 * Writes the changes of |pl| (wswrite_apply()).  Returns 0 with *out
 * the call's result (patchland_result()), or -1 with *out an error
 * body; nothing was written then.
 */
int patchland_apply(struct patchland *pl, json_t **out);

/* The call's result once |pl| is written: {changedFiles, newSha}. */
json_t *patchland_result(const struct patchland *pl);

/* Frees |pl| (and ends its jail).  NULL is fine. */
void patchland_free(struct patchland *pl);

#endif
