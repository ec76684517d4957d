/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * ledger: what the broker remembers about a session to enforce the run
 * budget and derive evidence.  Pure bookkeeping: no I/O, no clock (the
 * caller passes times), so every rule is unit-testable.
 *
 * - budgets: the seed's runBudget keys (-1 = no limit).  A hard limit,
 *   once exceeded, stops the session: ledger_stopped() then names it.
 * - idempotency: side-effecting calls carrying an idempotencyKey; a retry
 *   with the same key and arguments replays the stored result, the same
 *   key with other arguments is a conflict.
 * - gates: the last result of every check, bound to the digest of the
 *   workspace it ran against; a pass counts only on the current digest.
 * - failure fingerprints: a failing check's (check, status, normalized
 *   first error lines); the same fingerprint on N different workspace
 *   digests (that is, after patches) stops the session.
 */
#ifndef AIRLOCK_LEDGER_H
#define AIRLOCK_LEDGER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "policy/manifest.h"

struct ledger;

/* Returns a ledger for |m| (borrowed, must outlive it), started at |now_ms|. */
struct ledger	*ledger_new(const struct manifest *m, int64_t now_ms);
void		 ledger_free(struct ledger *l);

/*
 * Admits one tools/call of |t| at |now_ms| with |running| runners active:
 * counts the step and the tool's cost.  Returns 0; AL_ERR_BUDGET when a
 * hard limit is (now) exceeded (the session is stopped); AL_ERR_LIMIT when
 * only maxParallelProcesses is reached (retry later; not a stop).
 * limit[0..limitlen) names the limit.
 */
int	ledger_admit(struct ledger *l, const struct tool *t, int64_t now_ms,
	    size_t running, char *limit, size_t limitlen);

/*
 * Refused calls (runBudget.maxRefusedCalls).  ledger_refused() counts one;
 * ledger_refused_calls() returns the count; ledger_refusals_spent()
 * returns 1 once runBudget.maxRefusedCalls calls were refused: the
 * session must then be stopped before it answers another call.
 */
void	ledger_refused(struct ledger *l);
int64_t	ledger_refused_calls(const struct ledger *l);
int	ledger_refusals_spent(const struct ledger *l);

/*
 * The milliseconds left of runBudget.maxElapsedMinutes at |now_ms| (on
 * ledger_new()'s clock; 0 once it has passed), or INT64_MAX without one.
 */
int64_t	ledger_time_left(const struct ledger *l, int64_t now_ms);

/* Returns the limit that stopped the session, or NULL. */
const char *ledger_stopped(const struct ledger *l);

/* Stops the session because of |limit| (copied). */
void	ledger_stop(struct ledger *l, const char *limit);

/*
 * Where the dependency files really are when a link (the file's own or
 * a directory's above it) makes one of them another file: real[0..n),
 * workspace-relative, copied, replacing the list given before.  A write
 * there is a change of that dependency file: a run that made
 * requirements.txt a link to reqs.txt was counted once and then
 * appended to reqs.txt at will.
 */
void	ledger_dependency_real(struct ledger *l, const char *const *real,
	    size_t n);

/*
 * Before a workspace write of the files paths[0..n): checks the changed
 * files and added dependencies budgets, and, for an attempt (|is_patch|:
 * apply_patch, write_file, a command's change set; not a check's own
 * output), the attempts per failing gate.  Returns 0 (and records them), or
 * AL_ERR_BUDGET with the limit named (the session is stopped; nothing
 * recorded).  A path changes a dependency file when it is the file or a
 * directory on its way (a link retargeted there changes what the file
 * holds).  A changed path is kept as its SHA-256, and named for
 * ledger_export() only up to LEDGER_CARRY_PATH_BYTES as JSON writes
 * them (json_str_len()).
 */
int	ledger_admit_write(struct ledger *l, const char *const *paths,
	    size_t n, int is_patch, char *limit, size_t limitlen);

/*
 * Before a check runs on the workspace digest |ws_digest| (every check,
 * each once): whether the agent changed the workspace itself since the
 * last one.  An agent that writes the workspace (agent.workspace rw, or
 * its copy-on-write view) edits it with its own tools, in no call of the
 * broker's, and such edits between failing checks were no attempt at a
 * gate: maxPatchAttemptsPerGate was escaped by editing directly.  A
 * digest other than the last check's of this run, when the agent writes
 * the workspace (|agent_writes|) and nothing ledger_admit_write()
 * admitted wrote it since, or only a check's output did and the watches
 * |seen| a write that was not the broker's (or could not watch it all),
 * is one attempt at every failing gate: with no broker write between,
 * a write through a shared mapping, which no watch sees, counts too.
 * Returns 0 (also when the session was stopped before), or
 * AL_ERR_BUDGET with the limit named (the session is now stopped: the
 * check must not run).
 */
int	ledger_admit_check(struct ledger *l, const char *ws_digest,
	    int agent_writes, int seen, char *limit, size_t limitlen);

/*
 * The write ledger_admit_write() last admitted changed nothing (it
 * failed and was undone, or was never made): its added dependencies
 * and its patch attempts at failing gates are taken back (a disk full
 * once spent maxAddedDependencies on every retry of a write of
 * package.json).  Its changed paths stay counted: a path counts once,
 * so its retry costs nothing more.  Once per admitted write; a second
 * call does nothing.
 */
void	ledger_write_undone(struct ledger *l);

/*
 * Idempotency.  ledger_replay() looks up |key| for |tool|: returns 0 if
 * unseen; 1 with *result (borrowed) for the same arguments; 2 if the same
 * call is still in flight (remembered with a NULL result); 3 if an
 * earlier run of the session used it (ledger_restore(): its result is not
 * kept, and running the call again would repeat its effect);
 * AL_ERR_CONFLICT for other arguments.  ledger_remember() stores |result| (referenced; NULL
 * marks the call in flight), replacing what the key held.
 */
int	ledger_replay(struct ledger *l, const char *tool, const char *key,
	    const char *args_digest, json_t **result);
void	ledger_remember(struct ledger *l, const char *tool, const char *key,
	    const char *args_digest, json_t *result);
/* Forgets |key| for |tool|: the next call with it runs. */
void	ledger_forget(struct ledger *l, const char *tool, const char *key);

/*
 * Records a check result on workspace digest |ws_digest|.  |output| is
 * the command's output, used for the failure fingerprint.
 * |pinned_changed| (a JSON array of paths, borrowed; NULL or empty when
 * none) names the check's pinned code that differed from the session
 * start when it ran: such a result never counts toward acceptance, nor
 * does one on |ws_digest| "" (no digest bound); such a pass leaves a
 * failing gate failing (its patch attempts go on counting).
 * Returns 0, or AL_ERR_BUDGET if the fingerprint repeated too often (the
 * session is stopped).  *fingerprint_out (65 bytes) receives the
 * fingerprint of a failure, or "" for a pass.
 */
int	ledger_record_check(struct ledger *l, const char *check_id,
	    int exit_code, const char *output, size_t outlen,
	    const char *ws_digest, json_t *pinned_changed,
	    char fingerprint_out[65]);

/*
 * One budget of a status: {used, limit}, limit null when |limit| < 0 (no
 * limit).  Returns a new reference.
 */
json_t	*ledger_budget_entry(double used, double limit);

/*
 * The session's status for airlock/session/status: budgets used and
 * their limits, every gate's state on |ws_digest| (pass, fail, stale,
 * not_run) with the pinned code that had changed when it ran
 * (pinnedCodeChanged), acceptanceMet (all required gates pass on
 * |ws_digest| with their pinned code unchanged), and pinnedCodeChanged:
 * the changed files of the required gates on |ws_digest|.
 * Returns a new reference.
 */
json_t	*ledger_status(const struct ledger *l, const char *ws_digest,
	    int64_t now_ms);

/*
 * Returns 1 if every required gate passed on |ws_digest| with its pinned
 * code unchanged.
 */
int	ledger_acceptance_met(const struct ledger *l, const char *ws_digest);

/*
 * Carrying a session's budget into a resumed run (airlock run --resume).
 * ledger_export() returns what the session spent up to |now_ms| (a new
 * object, the "run_budget" audit record): steps, refused calls, cost,
 * elapsed milliseconds (this run's plus what it carried), added
 * dependencies, the changed paths (past LEDGER_CARRY_PATH_BYTES of them
 * only their number), the stop reason, every gate that ran (its last
 * exit code and patch attempts), every failure fingerprint's count and
 * the idempotency keys used (as SHA-256 of TOOL NUL KEY; the newest
 * LEDGER_MAX_KEYS, those of earlier runs dropped first).
 * ledger_restore() adds such an object to a fresh ledger at |now_ms|:
 * the counters go on from it; a gate is restored failed or passed but
 * bound to no workspace digest (stale: a pass never counts toward
 * acceptance in the resumed run), so its patch attempts keep counting;
 * a stop stays a stop; a carried idempotency key is refused
 * (ledger_replay()'s 3).  Returns 0, or AL_ERR_FORMAT (nothing to trust:
 * the ledger must not be used) with the reason in err[0..errlen).
 */
#define LEDGER_CARRY_PATH_BYTES	(256 * 1024)
json_t	*ledger_export(const struct ledger *l, int64_t now_ms);
int	ledger_restore(struct ledger *l, const json_t *carry, int64_t now_ms,
	    char *err, size_t errlen) __attribute__((warn_unused_result));

/* Returns the number of steps (tool calls) admitted so far. */
int64_t	ledger_steps(const struct ledger *l);

#endif
