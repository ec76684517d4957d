/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * vcsdirs: the names of version-control metadata directories whose
 * contents make the tool run commands when a person later runs it in or
 * beneath them: git (.git: config such as core.fsmonitor, hooks),
 * Mercurial (.hg: the [hooks] of hgrc), Sapling (.sl: the same [hooks]
 * in .sl/config) and Jujutsu (.jj: .jj/repo/config.toml's ui.pager,
 * ui.editor, merge and diff tools).  A sandbox writes none of them at
 * any depth (policy/writepolicy.c, policy/seatbelt.c), and a session's
 * runner takes the workspace root's from the real checkout and masks
 * the ones the agent planted deeper (runner/child.c).
 */
#ifndef AIRLOCK_POLICY_VCSDIRS_H
#define AIRLOCK_POLICY_VCSDIRS_H

#define VCS_DIRS 4

/* ".git", ".hg", ".jj", ".sl", then NULL. */
extern const char *const vcs_dirs[VCS_DIRS + 1];

/* 1 if |name| (one path component) is one of vcs_dirs in any case (a
 * case-insensitive checkout takes ".GIT" for ".git"), else 0. */
int vcs_dir_name(const char *name);

/* 1 if |name| is one of vcs_dirs exactly, else 0. */
int vcs_dir_exact(const char *name);

#endif
