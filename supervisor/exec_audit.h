/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * exec_audit: the audit log of one "airlock exec".  Each exec is a
 * session of its own (session.h: a directory under the state directory
 * with a signed, hash-chained audit.log), holding two records:
 *
 *   exec_start  {command: "exec", argv, workspace, cwd, manifest,
 *                overrides: overrides_json() — the --allow-host, --env and
 *                --setenv names (never their values), --ro, --rw — and
 *                chdir}
 *   sandbox_denial  one per denial of the sandbox (exec_audit_denials():
 *               the shape airlock run writes, docs/DENIALS.md), before
 *   exec_end    {exitCode | signal | timedOut | setupFailed}, and
 *               changeSet {applied, refused, refusedTotal, error, dryRun}
 *               when the command wrote anything, and egress {connections,
 *               refused, overCap, denied} with --allow-host (cmd_exec.c)
 *
 * and the "session_start" and "session_end" that audit_open_certified()
 * and audit_close() write: the session key certified by the host key, the
 * records copied to journald or syslog when audit.conf says so, as for
 * airlock run (docs/AUDIT.md).
 *
 * The session is made and exec_start written by a writer process, forked
 * by exec_audit_begin() as soon as airlock exec knows it will run (the
 * caller must have no thread then).  It makes the session, reads the host
 * key and gathers session_start's fields while the caller loads the
 * manifest and prepares the sandbox, then writes exec_start, handed to it
 * by exec_audit_start(), while the sandbox is built: most of that time is
 * the disk's (the record is on it before exec_audit_ready() returns).  A
 * process, not a thread: the sandbox's child is cloned meanwhile, and a
 * copy of a thread's locks (glibc's time zone lock, the stdio list lock)
 * would stay held in it for ever.  The writer owns the log and its key
 * and writes exec_end and session_end when told (exec_audit_finish()),
 * or, if airlock exec dies first, exec_end {"supervisorLost": true}; it
 * ignores the terminal's signals, so the log is closed whatever happens
 * to the command.  A run called off before exec_audit_start() (a bad
 * manifest, say) leaves no session: the writer removes the one it made.
 * Once its exec is over, the writer may make the next session ahead and
 * wait for the next exec to adopt it instead of forking a writer of its
 * own (exec_spare.h); exec_audit_begin() adopts one when there is one.
 * Fail closed: the caller lets the command start only once
 * exec_audit_ready() has returned 0 (runner_request.gate); if the log
 * cannot be opened or the start record cannot be written, the command
 * does not run.
 */
#ifndef AIRLOCK_EXEC_AUDIT_H
#define AIRLOCK_EXEC_AUDIT_H

#include <stddef.h>

#include <jansson.h>

struct exec_audit;
struct runner_cgroup_ready;

struct manifest;

/*
 * Asks a spare writer to be this exec's (exec_spare.h), or forks one,
 * which starts making the session.  Never fails: an error is reported by
 * exec_audit_ready().  Free with exec_audit_end().
 */
struct exec_audit *exec_audit_begin(void);

/*
 * Takes the spare exec_audit_begin() asked for, or, if it refused or did
 * not answer, forks a writer after all: so the caller must still have no
 * other thread, and hands that one exec_start if exec_audit_start() has
 * given it.  The later it is called, the more of the caller's work
 * overlaps the spare's answer; exec_audit_ready() does it when the
 * caller has not (after exec_audit_start() only: a run called off never
 * forks a writer for nothing).
 */
void exec_audit_settle(struct exec_audit *x);

/*
 * Hands the writer exec_start with |start| (its fields; borrowed) and the
 * context session_start carries besides airlock run's
 * (session_start_context(): |m|, which may be NULL for the built-in
 * policy, and the canonical |workspace|); the session key is certified
 * by the host key.  Sent at once, to a spare before its answer is read
 * too (again to a writer of our own if it refuses).  Once; never fails:
 * an error is reported by
 * exec_audit_ready().  Without it, exec_audit_ready() refuses and
 * exec_audit_end() calls the run off.
 */
void exec_audit_start(struct exec_audit *x, json_t *start,
    const struct manifest *m, const char *workspace);

/*
 * Waits for exec_start.  Returns 0 once it is on the disk, or -1 with a
 * message in err[0..errlen).  May be called again (same answer).
 */
int exec_audit_ready(struct exec_audit *x, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/*
 * A fresh network namespace an adopted spare made ahead for this exec
 * (runner_request.netns_ahead), or -1.  Owned by |x|.
 */
int exec_audit_netns(const struct exec_audit *x);

/*
 * The empty cgroups the spare lends (runner_request.cgroup_ready), or
 * NULL; owned by |x|.  They come back to it with the rest as the
 * runner's cgroup_left (exec_audit_rmdir()).
 */
const struct runner_cgroup_ready *exec_audit_cgroups(
    const struct exec_audit *x);

/* The log's path ("" before exec_audit_ready() or when none was made). */
const char *exec_audit_path(const struct exec_audit *x);

/*
 * Hands exec_end with |end| (borrowed; may be NULL) to the writer, which
 * writes it with session_end and closes the log, once: a later call
 * hands nothing and returns the first one's answer.  It does not wait:
 * exec_audit_end() does, so the write and the sync overlap whatever the
 * caller does meanwhile (the sandbox's teardown); nothing that depends
 * on the record (the exit status) may leave before exec_audit_end().
 * When exec_start was not written there is no log and nothing is
 * written.  Returns 0, or -1 if the writer could not be told.
 */
int exec_audit_finish(struct exec_audit *x, json_t *end);

/*
 * The denials of the run, |list| (borrowed: a reference is kept), an
 * array of denial objects as airlock run records them ({id, tool,
 * denial, layer, source, ..., hint}: docs/DENIALS.md), which the writer
 * writes as sandbox_denial records just before exec_end, at most
 * EXEC_DENIALS_MAX, in the same batch.  They ride with exec_end under
 * EXEC_DENIALS_KEY, which the writer takes out of it.  Before
 * exec_audit_finish(): returns 0, or -1 once exec_end has been handed
 * over (they can no longer be written).  NULL |list|: nothing, 0.
 */
#define EXEC_DENIALS_KEY "sandboxDenials"
#define EXEC_DENIALS_MAX 20
int exec_audit_denials(struct exec_audit *x, json_t *list);

/*
 * Takes |fd| (-1: nothing) to hand to the writer with exec_end, which
 * closes it only once the exec has let go of it (as it exits): the
 * sandbox's mount namespace (runner_request.mntns_out), whose teardown
 * would otherwise be on the way to the exit status.  Closed at once when
 * exec_end has already been handed over or something is held already.
 */
void exec_audit_hold(struct exec_audit *x, int fd);

/*
 * Hands |fd| (taken; -1: nothing) to the writer after exec_end, for it to
 * close once the exec has let go of the connection, as exec_audit_hold()
 * does (only while the writer holds that): the upper layer's tmpfs, whose
 * last close unmounts it and waits for an RCU grace period.  Without a
 * writer told exec_end, closed at once.
 */
void exec_audit_hand(struct exec_audit *x, int fd);

/*
 * A runner_request.cgroup_left (runner.h), |arg| the exec_audit: the
 * run's empty cgroup |path| is removed by the writer after the exec is
 * over (handed with or after exec_end), off the way to the exit status;
 * without a writer told exec_end by exec_audit_end(), or outside the
 * initial pid namespace (whose init may end with us, and the writer with
 * it), here and now.
 */
#define EXEC_RMDIR_MAX 4
void exec_audit_rmdir(void *arg, const char *path);

/*
 * A runner_request.on_status (runner.h): exec_audit_finish() with the
 * command's exitCode or signal, as soon as it has ended, while the
 * sandbox is torn down (the same record exec_audit_end() would write).
 */
void exec_audit_on_status(void *arg, int wait_status);

/*
 * exec_audit_finish(x, end), waits for the writer to have written exec_end
 * and session_end (written and signed; synced too with "sync exec-end" in
 * audit.conf or outside the initial pid namespace, else by a sync the
 * writer had the kernel start before its answer, done even if the writer
 * is killed after it: docs/AUDIT.md),
 * hands it the network namespace made ahead and the cgroups to remove,
 * and frees |x| (NULL: nothing).  Returns 0, or -1 if a record could not
 * be written.
 */
int exec_audit_end(struct exec_audit *x, json_t *end);

/* A gate for runner_request (runner.h): exec_audit_ready(arg, ...). */
int exec_audit_gate(void *arg, char *err, size_t errlen);

#endif
