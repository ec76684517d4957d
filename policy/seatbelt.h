/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seatbelt: a macOS Seatbelt (SBPL) profile from a sandbox policy.
 *
 * Pure: the profile is built in memory and depends only on its inputs,
 * so it can be compared byte for byte with golden files.  On macOS it is
 * what sandbox-exec(1) is given (runner/seatbelt_exec.c); on Linux it is
 * only printed ("airlock profile --seatbelt").
 *
 * What the profile allows, and nothing else (deny default):
 *   - exec and fork, signals and process information within the sandbox;
 *     never the LaunchServices helpers (open(1), osascript(1), ...), whose
 *     children would run outside the sandbox;
 *   - the Mach services in seatbelt_mach_services[], each named (never an
 *     unfiltered mach-lookup; never launchservicesd);
 *   - the sysctls in seatbelt_sysctls[], by name or name prefix;
 *   - POSIX semaphores and shared memory by name prefix (Python's
 *     multiprocessing);
 *   - reading every file except the policy's deny_read paths and the
 *     user's credential stores (policy/sensitive.h, beneath HOME, and
 *     seatbelt_secret_paths[]) and the run's secrets (airlock's own
 *     directories: seatbelt_run_secrets()), which are not
 *     writable either, and which, with their ancestors in the workspace
 *     and the TMPDIR, are never unlinked or renamed (a name Seatbelt does
 *     not deny would read them);
 *   - writing beneath the workspace and the run's own temporary directory
 *     (its TMPDIR), writing data to /dev/null and to the run's terminal;
 *   - never writing the agent's own configuration in the home
 *     (agent.homeReadOnly: |sp|'s home_ro, "~" from the run's home, and
 *     what each resolves to through a link), a file entry as a literal,
 *     a directory's as a subpath; one in the workspace or the TMPDIR in
 *     every spelling, and neither it nor an ancestor there unlinked,
 *     renamed or made (a directory renamed into its place would bring a
 *     file); never reading nor writing beneath its scratch directories
 *     (agent.homeScratch), whose tmpfs the Linux runner mounts and
 *     Seatbelt cannot: what is there stays out of the session, and
 *     nothing the session writes is kept;
 *   - never writing a ".git", ".hg", ".jj" or ".sl" entry at any depth
 *     (directory or gitdir: file: policy/vcsdirs.h), the resolved
 *     gitdir: target of the workspace's .git file, or a
 *     sandbox.protected pattern at any depth, of the workspace and of
 *     the TMPDIR (on the same volume, whence a tree
 *     renamed into the workspace); never unlinking or renaming the
 *     workspace, nor unlinking, renaming or making a protected path's
 *     ancestor;
 *   - no network, or when the policy grants it only TCP to the egress
 *     proxy's loopback port.
 * Every path is first put in the form Seatbelt matches
 * (seatbelt_canonical()), and every name the rules above protect in the
 * workspace and the TMPDIR is matched in each spelling a case-insensitive
 * APFS volume takes for it (".GIT", ".\u017fl" for ".sl": seatbelt.c,
 * fold_other[]), as is the whole path of each secret and denied path
 * ("/USERS/dev/.SSH" for "/Users/dev/.ssh"; beneath the workspace or the
 * TMPDIR, the part below it).
 */
#ifndef AIRLOCK_SEATBELT_H
#define AIRLOCK_SEATBELT_H

#include <stddef.h>

#include "policy/manifest.h"

/* What one run adds to the policy.  Paths are absolute. */
struct seatbelt_run {
	const char *workspace; /* required; no trailing slash */
	const char *home; /* expands "~"; NULL: "~" paths are skipped */
	const char *tmpdir; /* the run's TMPDIR; NULL: the profile takes it
			       as the parameter TMPDIR (sandbox-exec -D) */
	const char *tty; /* the run's terminal device; NULL: none */
	const char *gitdir; /* the target of WORKSPACE/.git when that is a
			       "gitdir:" file; NULL: none */
	const char *const *hooks; /* the workspace's git hooks, relative
				     (git_hooks_list(), policy/githooks.h):
				     denied as the git directory is */
	size_t nhooks;
	const char *lintstaged; /* a hook runs lint-staged (git_hooks'):
				   its configs at any depth and every
				   package.json, denied; NULL: none */
	const char *husky_pkg; /* a husky v4 hook: this package.json,
				  relative, denied; NULL: none */
	int proxy_port; /* the egress proxy's loopback port; 0: the
			   parameter PROXY_PORT (only when network) */
	const char *const *secrets; /* absolute paths denied as the
				       credential stores are
				       (seatbelt_run_secrets()) */
	size_t nsecrets;
	const char *const *home_ro; /* absolute paths denied as |sp|'s
				       home_ro entries are: what they
				       resolve to through a symbolic link
				       (seatbelt_run_home()); a directory's
				       ends in '/' */
	size_t nhome_ro;
	const char *const *home_scratch; /* the same for |sp|'s
					    home_scratch entries */
	size_t nhome_scratch;
};

/* A named allowance and why it is there, for the profile's comments. */
struct seatbelt_grant {
	const char *name;
	const char *why;
};

/* NULL-terminated tables, exported for the tests and the docs. */
extern const struct seatbelt_grant seatbelt_mach_services[];
extern const struct seatbelt_grant seatbelt_network_mach_services[];
extern const struct seatbelt_grant seatbelt_sysctls[];
extern const struct seatbelt_grant seatbelt_sysctl_prefixes[];
extern const char *const seatbelt_secret_paths[];
extern const char *const seatbelt_launchservices_helpers[];

/*
 * What a run adds to the credential stores, into *out (*n paths;
 * seatbelt_run_secrets_free() frees them): airlock's own state, runtime
 * and config directories as this process finds them (common/paths.h:
 * AIRLOCK_STATE_DIR, XDG_STATE_HOME, ...), which hold the sealed
 * secrets' key and the audit host key and which no fixed list can name;
 * and, as the Linux runner does for denyRead, what each credential store
 * and each of |sp|'s deny_read paths ("~" from |home|) resolves to when
 * a symlink is on its way (realpath(3)): Seatbelt matches the resolved
 * name, so a ~/.aws linked to ~/dotfiles/aws is read there.  Links
 * beneath a store are not followed.  "~" comes from |run|'s home.
 *
 * A deny_read path named through a symbolic link that lies in the
 * workspace or the run's TMPDIR (|run|'s, resolved; a profile that takes
 * TMPDIR as a parameter knows only the workspace) is refused: the
 * sandbox may point the link elsewhere, and the next run's profile, made
 * from the name, would deny the decoy (sensitive_link_rewritable(), as
 * the Linux runner refuses it); so is one in a repository of the
 * workspace whose metadata no deny_read path masks
 * (sensitive_vcs_exposed(): its history may hold it).  Reads the
 * environment and the filesystem.  Returns 0, AL_ERR_LIMIT, or
 * AL_ERR_DENIED with the reason
 * in |err| (|errlen| bytes); on error *out is NULL.
 */
int seatbelt_run_secrets(const struct sandbox_policy *sp,
    const struct seatbelt_run *run, char ***out, size_t *n, char *err,
    size_t errlen) __attribute__((warn_unused_result));
void seatbelt_run_secrets_free(char **v, size_t n);

/*
 * What the agent's home entries (|sp|'s home_ro and home_scratch,
 * agent.homeReadOnly and agent.homeScratch, relative to |run|'s home)
 * resolve to now where a symbolic link is on their way, into *ro (*nro
 * paths) and *scratch (*nscratch; seatbelt_run_secrets_free() frees
 * each): a ~/.claude linked to ~/dotfiles/claude is written there, the
 * name Seatbelt matches.  Each link on the way is followed, a dangling
 * one too, and what does not exist yet is taken as named beneath the
 * last directory that does; a directory entry's ends in '/'.  An entry
 * whose way leads through a symbolic link in the workspace or the run's
 * TMPDIR (resolved) is refused, as sensitive_link_rewritable() has a
 * deny_read path refused: the sandbox could point the link elsewhere and
 * the next run's profile, made from the name, would protect the decoy.
 * No home, or one that is not absolute (seatbelt_profile() refuses
 * it): nothing.  Reads the filesystem.  Returns 0, AL_ERR_PATH (an
 * entry that cannot be resolved: too long, too many links), or
 * AL_ERR_DENIED, with the reason in |err| (|errlen| bytes); on error
 * both are NULL.
 */
int seatbelt_run_home(const struct sandbox_policy *sp,
    const struct seatbelt_run *run, char ***ro, size_t *nro, char ***scratch,
    size_t *nscratch, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/*
 * Both of the above for |run|: its secrets, home_ro and home_scratch
 * (and their counts) set to what seatbelt_run_secrets() and
 * seatbelt_run_home() find; seatbelt_run_paths_free() frees them.
 * Returns 0 or the first one's error, with the reason in |err|; on
 * error the three are NULL.
 */
int seatbelt_run_paths(const struct sandbox_policy *sp,
    struct seatbelt_run *run, char *err, size_t errlen)
    __attribute__((warn_unused_result));
void seatbelt_run_paths_free(struct seatbelt_run *run);

/*
 * Writes into |out| (|outlen| bytes) the path |path| as Seatbelt sees it
 * on macOS: "." and repeated '/' removed, the /tmp, /var and /etc
 * symlinks followed to /private, and the /System/Volumes/Data firmlinks
 * folded back.  Returns 0, or AL_ERR_PATH if |path| is not absolute,
 * has a ".." component, or does not fit.
 */
int seatbelt_canonical(const char *path, char *out, size_t outlen)
    __attribute__((warn_unused_result));

/*
 * Writes the profile for |sp| and |run| into *out (NUL-terminated,
 * caller frees).  Returns 0; AL_ERR_PATH if a path in |run| (a secret
 * too) is not absolute or holds '"', '\\' or a control character (they could not be
 * matched exactly), if the workspace is a system root ("/", /private/tmp,
 * /Users, ...) or the home directory or one of its ancestors (the shell's
 * start-up files would be writable), or if a protected pattern, a
 * hooks path or an agent home entry (|sp|'s home_ro, home_scratch) is
 * not relative to its directory; AL_ERR_ALLOC.  On error *out is NULL.
 */
int seatbelt_profile(
    const struct sandbox_policy *sp, const struct seatbelt_run *run, char **out)
    __attribute__((warn_unused_result));

#endif
