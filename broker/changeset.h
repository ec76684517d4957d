/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * changeset: what a sandboxed run changed, checked and applied.
 *
 * A runner that may write sees the workspace as an overlay whose upper
 * layer is a directory airlock made in the session directory
 * (changeset_dir_new()).  When the run ends, changeset_collect() walks
 * that upper layer against the real workspace into entries: new and
 * modified files (whole: the overlay runs without metacopy), new
 * directories and mode changes, symlinks, special files, and deletions
 * (whiteouts, opaque directories, and anything an entry of another type
 * replaces), each deletion expanded to every file it removes.
 * changeset_check() puts every entry through writepolicy_check() and the
 * byte quota; changeset_apply() lands the whole set or nothing.  The walk
 * marks what it finds beneath a workspace directory holding a HEAD (a
 * git directory of any name: the git rule refuses writes there).
 *
 * Applying: every path is resolved beneath the workspace without
 * following any symlink; what is removed or replaced is first moved into
 * a trash directory inside the workspace (one rename, same filesystem);
 * new content is then created in place (moved from the upper layer when
 * on the same filesystem, else copied), and the filesystem synced once
 * before the commit point.  Before the first change, a journal of every
 * step is written and fsynced in the trash directory
 * (broker/applyjournal.h).  If a step fails, the steps are undone from
 * that journal and the trash is put back; if the applying process is
 * killed, the next start on that workspace does the same
 * (changeset_recover()).  Files land with mode & 0777, owned by the
 * replaced file's owner or, when new, by the workspace root's owner,
 * in its group (but in a setgid directory of the workspace, or beneath
 * a directory the set makes there: that directory's group);
 * the world-write bit only where the workspace had it on that path
 * already (the entries carry the mode that lands); no setuid, setgid or
 * sticky bit but those a workspace directory had already, kept when the
 * run changes its other bits, and the setgid bit a new directory
 * inherited from a setgid directory (any other is the run's, and
 * refused);
 * a moved file without the layer's extended attributes and with the
 * time of the apply.
 */
#ifndef AIRLOCK_CHANGESET_H
#define AIRLOCK_CHANGESET_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "policy/manifest.h"
#include "policy/writepolicy.h"

/* The byte quota of one run's change set: allocated bytes of its files. */
#define CHANGESET_MAX_BYTES (2LL * 1024 * 1024 * 1024)

struct broker;
struct changeset;
struct call;
struct runner_result;

/*
 * Walks the upper layer |upperfd| (a directory descriptor) against the
 * workspace |rootfd|.  |userxattr|: the overlay was mounted in a user
 * namespace (opaque directories carry user.overlay.opaque, not
 * trusted.overlay.opaque).  Returns 0 with *out (caller frees), or a
 * negative code with a message in err.
 */
int changeset_collect(int upperfd, int rootfd, int userxattr,
    struct changeset **out, char *err, size_t errlen)
    __attribute__((warn_unused_result));

void changeset_free(struct changeset *cs);

/* The number of entries, and the files among them (not directories). */
size_t changeset_count(const struct changeset *cs);

/*
 * The mode bits of the set that do not land, or NULL if none: a new
 * array of {path, mode: the upper layer's, landed: what lands} (octal
 * strings), one for each path that asked for a world-write bit the
 * workspace did not have there, or for a setgid bit a directory it made
 * got from its setgid directory; the first |max| of them (at most 1000),
 * as many as fit in |max_bytes| of paths as JSON writes them (the agent
 * chooses them: a record must fit a line of the audit log, and a
 * control character takes 6 bytes there).  *total gets how many there
 * are in all.
 * Recorded with the land (the change_applied audit record, the call's
 * result, exec_end, cow_applied), so that a mode a run set and did not
 * get is not dropped unsaid.
 */
/* Whether any mode bit of the set does not land (changeset_dropped()). */
int changeset_has_dropped(const struct changeset *cs);

json_t *changeset_dropped(
    const struct changeset *cs, size_t max, size_t max_bytes, size_t *total);

/*
 * Checks every entry against |p| and the set's file bytes against
 * |max_bytes| (<= 0: none), and refuses (rule "denied") an entry that
 * sandbox.denyRead hides in the workspace |rootfd| (wswrite_denied()),
 * as write_file does: a run created a denied path its sandbox showed as
 * absent, and it landed.  An entry this process cannot read (a run's
 * chmod 000 as an ordinary user) is refused, rule "unreadable", before
 * any other rule: the rest is still checked and named, and the set
 * lands only once the run leaves none.  Returns NULL if all pass, else a new array of
 * {path, rule} for each entry refused.
 */
json_t *changeset_check(const struct changeset *cs,
    const struct sandbox_policy *p, int rootfd, int64_t max_bytes);

/*
 * The first entries of |refused| (changeset_check()'s, or any array of
 * objects of strings: {path, rule}, {path, reason}) for a record of the
 * audit log: a new array of at most |max| of them, as many as fit in
 * |max_bytes| as JSON writes them (the run names the paths, and a
 * control character takes 6 bytes there), so that the record fits a
 * line of the log (AUDIT_MAX_LINE): one too large is not written.
 */
json_t *changeset_refused_few(
    const json_t *refused, size_t max, size_t max_bytes);

/*
 * The paths the set changes, for the budget counters (borrowed strings,
 * in a new array the caller frees); *n gets the count.  Every file it
 * writes or removes, every directory whose mode it changes, and every
 * directory it makes that holds nothing of the set (an empty one, or the
 * deepest of a chain of empty ones): a directory made to hold files is
 * counted by its files.
 */
const char **changeset_paths(const struct changeset *cs, size_t *n);

/*
 * One entry of a set, for showing it to a person (airlock diff).  The
 * strings are borrowed from |cs|.  |op|: CHANGESET_OP_NONE for a removed
 * path (kind WP_DELETE), _MKDIR a new directory, _CHMOD a directory's
 * mode change, _WRITE a file or symlink written whole.
 */
#define CHANGESET_OP_NONE 0
#define CHANGESET_OP_MKDIR 1
#define CHANGESET_OP_CHMOD 2
#define CHANGESET_OP_WRITE 3
struct changeset_item {
	const char *path;
	enum wp_kind kind;
	int op;
	mode_t mode;
	const char *target; /* WP_SYMLINK: the link's text */
	int unreadable; /* WP_FILE, WP_DIR: cannot be read here, so it is
			   refused (rule "unreadable"); a directory's
			   contents are not in the set */
};

/* Fills *out with entry |i|: 0, or AL_ERR_NOT_FOUND past the end. */
int changeset_item(
    const struct changeset *cs, size_t i, struct changeset_item *out);

/*
 * Applies |cs| (read from |upperfd|) to the workspace |rootfd| as
 * described above.  Returns 0, or a negative code with a message in err;
 * on failure nothing has changed.
 */
int changeset_apply(const struct changeset *cs, int upperfd, int rootfd,
    char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * What the set would do, one {"op", "path"} per entry, in order (a new
 * array): op is "write" (a file), "symlink", "mkdir", "chmod", "delete",
 * or the kind of a special file ("device", "fifo", "socket"), which
 * changeset_check() refuses.
 */
json_t *changeset_describe(const struct changeset *cs);

/*
 * An upper layer for one run outside the broker (airlock exec): a
 * detached tmpfs of CHANGESET_MAX_BYTES (mnt_fd, holding "upper" and
 * "work"; not root, made in a user namespace of our own); where that
 * cannot be made (logged once, with why), the directory |dir| (made here,
 * must not exist) holding them (upper, work); |dir| NULL: the tmpfs or
 * nothing.  changeset_upper_new() returns 0 or -1 with err;
 * changeset_upper_open() returns a descriptor of the upper directory or
 * -1; changeset_upper_full() says whether a tmpfs upper filled up (its
 * writes then failed with ENOSPC, so the set is not what the run meant);
 * changeset_upper_free() removes it all.
 */
struct changeset_upper {
	int mnt_fd; /* -1 unless a tmpfs */
	char *dir, *upper, *work;
};
int changeset_upper_new(
    const char *dir, struct changeset_upper *u, char *err, size_t errlen);
int changeset_upper_open(const struct changeset_upper *u);
int changeset_upper_full(const struct changeset_upper *u);
/*
 * Whether the tmpfs |mfd| filled up (or cannot tell: then 1): a run's
 * writes to it then failed with ENOSPC, and its set is not what it meant.
 */
int changeset_tmpfs_full(int mfd);
void changeset_upper_free(struct changeset_upper *u);

/*
 * Rolls back every interrupted apply in the workspace |rootfd|, as
 * applyjournal_recover() (its contract: returns the number of trash
 * directories handled with *report, or -1 with err when the workspace
 * cannot be put back or a journal names a path |p| refuses).  Every
 * command that applies change sets calls it on start, before anything
 * else touches the workspace.
 */
int changeset_recover(int rootfd, const struct sandbox_policy *p,
    json_t **report, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/*
 * The broker's side.  changeset_call_prepare() decides how the runner of
 * |c| sees the workspace: read-only when the tool's sideEffect is none,
 * else an overlay whose upper layer it creates in the session directory
 * or a detached tmpfs (c->changes, c->changes_fd).  Returns 0, or -1
 * with *out set to an error body.  The run's set lands through
 * broker/landjob.h.  changeset_call_clear() removes the upper layer;
 * safe to call twice.
 */
int changeset_call_prepare(struct call *c, json_t **out);
/*
 * changeset_recover() on the broker's workspace, each apply recovered
 * audited as an "apply_recovered" record.  *finished (when |finished|
 * is not NULL) says whether the trash directory |trash| (NULL: none)
 * was found past its commit point ("finished": its apply landed).
 * Returns 0, or -1 with err (the broker must not start).
 */
int changeset_broker_recover(struct broker *b, const char *trash, int *finished,
    char *err, size_t errlen);
void changeset_call_clear(struct call *c);

#endif
