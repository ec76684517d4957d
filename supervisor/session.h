/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * session: where a session's records live on the host.
 *
 * State directory: paths_state_dir() (common/paths.h: $AIRLOCK_STATE_DIR
 * or $AIRLOCK_HOME; else LOCALSTATEDIR/lib/airlock for root; else
 * $XDG_STATE_HOME/airlock or ~/.local/state/airlock).  A session gets
 * STATE/sessions/ID/ with audit.jsonl, trace.txt and artifacts/, all 0700
 * or 0600, and none of it is visible inside any sandbox.
 */
#ifndef AIRLOCK_SESSION_H
#define AIRLOCK_SESSION_H

#include <limits.h>

#include <jansson.h>

struct session {
	char	id[64];
	char	dir[PATH_MAX];
	char	audit_path[PATH_MAX];
	char	trace_path[PATH_MAX];
};

/* Writes the state directory's path to out[0..outlen).  0 or AL_ERR_LIMIT. */
int	session_state_dir(char *out, size_t outlen);

/*
 * Creates a new session directory with a fresh id ("YYYYmmddTHHMMSS-xxxxxx")
 * and its artifacts/ (broker/artifact.h).  Returns 0, or a negative code
 * with a message in err[0..errlen).
 */
int	session_create(struct session *s, char *err, size_t errlen);

/*
 * A session made ahead (exec_spare.h): session_create() under
 * STATE/spare/ instead, with no artifacts/ (an exec keeps none), its log
 * named SESSION_SPARE_LOG, out of sight of
 * everything that lists sessions or looks for logs, until
 * session_publish() renames it to STATE/sessions/ID (the same id), its
 * log to audit.jsonl, and updates |s|'s paths.  Both return 0 or a negative code with a
 * message in err[0..errlen); after a failed publish |s| names the
 * directory where it still is.
 */
#define SESSION_SPARE_LOG	"spare.jsonl"
int	session_create_spare(struct session *s, char *err, size_t errlen);
int	session_publish(struct session *s, char *err, size_t errlen);

/*
 * 0 if |file| is a session directory's log (DIR/ID/audit.jsonl, as
 * session_create() makes it) and |session| (the log's own id, from
 * verifying it) is not ID, or the directory's name cannot be had; else
 * 1 (any other file name: 1).  A whole log of another session copied or
 * linked over this one's verifies on its own: whoever reads a session by
 * its directory checks this too.
 */
int	session_log_matches(const char *file, const char *session);

/*
 * For a log found in a directory being verified: 1 if |session| (the
 * log's own id) is the one its place names and the log is of the kind
 * the place holds, else 0.  |own_log| says the log is a session's own
 * (its session_start names the command, run, serve or exec), not a
 * commit log.  DIR/ID/audit.jsonl as session_log_matches(), a session's
 * own log; DIR/ID/commits/NAME.jsonl a commit log of session ID; any
 * other NAME.jsonl (a shipped copy, one file per session, named by it)
 * session NAME's own log.  Each verifies on its own: without this, a
 * shipped session's copy replaced by another session's left every file
 * "valid" and that session gone, and a session's log replaced by one of
 * its commit logs (the same session id) showed the session closed with
 * nothing the agent did in it.
 */
int	session_log_place_matches(const char *file, const char *session,
	    int own_log);

struct audit;
struct manifest;

/* What "manifest" says when airlock exec runs without one. */
#define SESSION_NO_MANIFEST	"(built-in defaults)"

/*
 * The part of session_start's fields that names the policy and the
 * workspace: manifest (its path, or SESSION_NO_MANIFEST when |m| is NULL),
 * manifestDigest (with |m|) and workspace.  NULL when out of memory.
 */
json_t	*session_start_context(const struct manifest *m,
	    const char *workspace);

/*
 * The context session_start carries (a new object, or NULL when out of
 * memory): host, user, uid, gid, command, manifest, manifestDigest (when
 * |m| is not NULL: NULL is airlock exec's built-in policy),
 * workspace, agentArgv (when |agent_argv| is not NULL), cwd.
 */
json_t	*session_start_fields(const char *command, const struct manifest *m,
	    const char *workspace, char *const *agent_argv);

/*
 * Appends the session_config record (after audit_open's session_start): command, manifest path and digest,
 * workspace, session directory, the agent's argv (may be NULL), and the
 * command line's overrides of the policy as "overrides" (a JSON object,
 * borrowed; may be NULL).
 * Returns 0 or AL_ERR_IO.
 */
int	session_record_start(struct audit *a, const char *command,
	    const struct manifest *m, const char *workspace,
	    const struct session *s, char *const *agent_argv,
	    json_t *overrides);

#endif
