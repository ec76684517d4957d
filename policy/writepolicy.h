/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * writepolicy: the one set of rules every write to the workspace obeys.
 *
 * A write is described as an entry (a path and what it becomes); the
 * broker's own writes (write_file, apply_patch) and the change sets of
 * sandboxed runs (broker/changeset.c) are checked entry by entry here,
 * and nothing lands unless every entry passes.  Pure: no I/O, so every
 * rule is a row in tests/unit/test_writepolicy.c.
 *
 * The rules, each with the name a refusal carries:
 *   special_file  device nodes, FIFOs and sockets
 *   special_bits  setuid, setgid or sticky bits (files and directories)
 *   hard_link     a regular file with more than one link
 *   symlink       a symlink whose target is absolute or, read lexically
 *                 from the link's directory, leaves the workspace, or
 *                 has a ".." after a name (the name may be a symlink
 *                 that climbs: s/../../x with s -> ../..)
 *   symlink_length  a relative symlink whose text, or where it leads
 *                 (read from its directory, through the links on the
 *                 way where the caller follows them: target_too_long),
 *                 is over 4096 bytes or 512 names: where it leads
 *                 cannot be told (it was refused as symlink or
 *                 symlink_target, neither of which it need be)
 *   symlink_target  a symlink that leads (its target read from its
 *                 directory, through the links on the way where the
 *                 caller follows them: target_dest) to what the git,
 *                 airlock or protected rule guards, or to a protected
 *                 path's ancestor where its pattern begins (".github"
 *                 for ".github/workflows"): a build that later writes
 *                 out/pre-commit with out -> .git/hooks plants a hook.
 *                 So is one to the workspace root itself ("" as
 *                 target_dest): an archive unpacked into out/ with
 *                 out -> . names .git/hooks/pre-commit unseen.
 *   git           a ".git" component at any depth (a directory, or a
 *                 ".git" file with "gitdir:"), whether or not it exists,
 *                 or a ".hg", ".jj" or ".sl" (Mercurial and Sapling run
 *                 the hooks of their config, jj its pager and tools:
 *                 policy/vcsdirs.h), any case;
 *                 or a file or symlink named "HEAD" (any case), which
 *                 makes a directory of any name a bare repository; or
 *                 anything but a removal beneath such a directory in
 *                 the workspace, in a hooks directory of git's config
 *                 (core.hooksPath) or a file it includes
 *                 (policy/githooks.h) (in_git_dir: the caller looks)
 *   name          a path that is not valid UTF-8 (refusals, audit records
 *                 and the apply journal are JSON)
 *   airlock       a first component beginning with ".airlock-" (any case):
 *                 airlock's own names, above all an apply's trash and
 *                 journal, which the next start would roll back from
 *   agent_config  a first component that is an agent's own project
 *                 configuration (writepolicy_agent_config, any case),
 *                 whatever sandbox.protected says: airlock run's agent
 *                 sees each one at the workspace's top masked only as
 *                 the start found it (runner/child.c), and a host agent
 *                 runs what it holds (hooks, MCP servers)
 *   protected     a path matching a sandbox.protected pattern at any
 *                 depth (any case), or beneath one; or a non-directory (a file, a
 *                 symlink, a deletion) standing where a protected path's
 *                 ancestor is, which would replace the protected tree
 * The budgets (maxChangedFiles, maxAddedDependencies) and the byte quota
 * count a whole change set: see broker/changeset.h.
 */
#ifndef AIRLOCK_WRITEPOLICY_H
#define AIRLOCK_WRITEPOLICY_H

#include <sys/types.h>

#include "policy/manifest.h"

enum wp_kind {
	WP_FILE, /* a regular file, new or replaced */
	WP_DIR, /* a directory, new or with a mode change */
	WP_SYMLINK,
	WP_DELETE, /* the path is removed */
	WP_DEVICE, /* character or block device */
	WP_FIFO,
	WP_SOCKET,
};

struct wp_entry {
	const char *path; /* workspace-relative, no "." or ".."
					   components, no leading '/' */
	enum wp_kind kind;
	mode_t mode; /* permission and special bits */
	nlink_t nlink; /* WP_FILE: links in the change */
	const char *target; /* WP_SYMLINK: the link's text */
	int in_git_dir; /* the caller found a HEAD in a directory above
			   the path in the workspace: a git directory */
	/* WP_SYMLINK: where the link leads, workspace-relative ("" the
	 * root), as the caller resolved it through the links on the way;
	 * NULL: its target read lexically (writepolicy_link_resolve()). */
	const char *target_dest;
	int target_in_git_dir; /* WP_SYMLINK: the caller found where it
				  leads in a git directory or a hooks
				  directory of git's config, or could
				  not tell */
	int target_too_long; /* WP_SYMLINK: the caller could not follow
				it, a path on the way being too long */
};

#define WP_RULE_SPECIAL_FILE "special_file"
#define WP_RULE_SPECIAL_BITS "special_bits"
#define WP_RULE_HARD_LINK "hard_link"
#define WP_RULE_SYMLINK "symlink"
#define WP_RULE_SYMLINK_TARGET "symlink_target"
#define WP_RULE_SYMLINK_LENGTH "symlink_length"
#define WP_RULE_GIT "git"
#define WP_RULE_PROTECTED "protected"
#define WP_RULE_NAME "name"
#define WP_RULE_AIRLOCK "airlock"
#define WP_RULE_AGENT_CONFIG "agent_config"
/* Not writepolicy_check()'s: a secret-granted run's set (broker). */
#define WP_RULE_SECRET "secret"
/* Not writepolicy_check()'s: a path sandbox.denyRead hides, present or
 * not (broker/changeset.c, changeset_check()). */
#define WP_RULE_DENIED "denied"
/* Not writepolicy_check()'s: a file or directory of a run's set that
 * the one landing it cannot read (broker/changeset.c): what it holds
 * can be neither reviewed nor landed.  Path "." when the set could not
 * be walked at all (broker/landjob.c). */
#define WP_RULE_UNREADABLE "unreadable"

/*
 * The agents' own project configuration at the workspace's top, NULL
 * ended: Claude Code's .claude and .mcp.json, Codex's .codex, Gemini
 * CLI's .gemini and .env, opencode's .opencode, opencode.json and
 * opencode.jsonc (docs/WRAPPING.md).
 */
extern const char *const writepolicy_agent_config[];

/* The prefix of airlock's own names in the workspace root. */
#define WP_AIRLOCK_PREFIX ".airlock-"

/*
 * Returns NULL if |e| may be written under |p|, else the name of the
 * first rule it breaks (a static string, one of WP_RULE_*).
 */
const char *writepolicy_check(
    const struct sandbox_policy *p, const struct wp_entry *e);

/*
 * The path rules alone (git, protected) for writing or removing the file
 * |path|: NULL or the rule's name.  For the broker's writes, checked on
 * the path as given and on where it really resolves.
 */
const char *writepolicy_path(const struct sandbox_policy *p, const char *path);

/*
 * Where a symlink at workspace-relative |path| with text |target| leads,
 * read lexically from its directory, into |out| (|outlen| bytes):
 * workspace-relative, "" for the root.  0, or -1 when the target leaves
 * the workspace or could (the symlink rule), or -2 when it does not fit
 * (it or the path it leads to is over |outlen| bytes or 512 names: the
 * symlink_length rule).
 */
int writepolicy_link_resolve(
    const char *path, const char *target, char *out, size_t outlen);

/*
 * Not a rule: whether the file at workspace-relative |path| is one a
 * tool reads as its configuration and that names a program the tool
 * runs (.npmrc's script-shell, rust-toolchain.toml's path, a
 * site-packages .pth's import lines), or that a program runs as code
 * at the person's next ordinary action (a shell's start-up files,
 * .bashrc, .profile, .zshrc; .vscode/tasks.json on opening the
 * folder), so that landing it makes the person's next ordinary npm,
 * cargo, python or shell run code of the agent's, outside any sandbox.
 * Returns NULL, or a static "TOOL: what" for airlock diff's "RUNS ON"
 * line; any depth, any case.
 */
const char *writepolicy_runs_on(const char *path);

/* The most components of a path writepolicy_runs_on() looks at. */
#define WP_RUNS_ON_COMPS 3

/*
 * Not a rule: whether a tool reads a file of the kind
 * writepolicy_runs_on() names beneath |path|, for a symlink there: a
 * link named .cargo leads where cargo reads config.toml.  Returns NULL,
 * or the same static "TOOL: what"; any depth, any case.
 */
const char *writepolicy_runs_on_beneath(const char *path);

/*
 * The |i|th (from 0) of the names writepolicy_runs_on() marks that are
 * one plain name (".bashrc", ".npmrc"; no directory, no wildcard), and
 * in *runs its "TOOL: what"; NULL past the last.  For a directory a
 * widening lets a run write: which of them it holds.
 */
const char *writepolicy_runs_on_name(size_t i, const char **runs);

/*
 * What runs later that the shell word |w| names, a file of
 * writepolicy_runs_on()'s ("~/.bashrc", "of=.envrc",
 * "--output=.profile", and a glob whose last component matches one of
 * writepolicy_runs_on_name()'s, ">> ~/.b?shrc"), or NULL.
 */
const char *writepolicy_word_runs_on(const char *w);

/*
 * What runs later, outside any sandbox, that a command given the shell
 * word |w| sets up without naming a file: crontab's table, and git's
 * settings that name a program git runs ("git config core.hooksPath
 * h", "core.fsmonitor=prog"); NULL for any other word.
 */
const char *writepolicy_word_sets_up(const char *w);

/* Returns a sentence explaining |rule| (static), for messages. */
const char *writepolicy_rule_text(const char *rule);

#endif
