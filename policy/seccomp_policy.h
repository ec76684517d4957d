/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seccomp_policy: the seccomp filter of a runner, as data.
 *
 * seccomp_policy_compile() turns a sandbox policy into a table of rules
 * {syscall name, action, optional argument test}.  It is pure: nothing
 * here talks to the kernel or to libseccomp, so the table can be tested
 * row by row with seccomp_policy_eval().  runner/ hands the table to
 * libseccomp and loads it.
 *
 * Semantics (matching libseccomp's): a call is matched against the rules
 * for its syscall; if any matches, its action applies, otherwise the
 * default action.  The compiler never emits two rules with different
 * actions for one syscall, so the order of rules does not matter.  Calls
 * from a foreign ABI (i386 via int 0x80, x32 numbers on x86_64) get the
 * bad-ABI action, which is always a kill.
 */
#ifndef AIRLOCK_SECCOMP_POLICY_H
#define AIRLOCK_SECCOMP_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "policy/manifest.h"

enum scp_action_kind {
	SCP_ALLOW,
	SCP_ERRNO,		/* fail with scp_action.err */
	SCP_KILL_PROCESS,
};

struct scp_action {
	enum scp_action_kind	kind;
	int			err;	/* SCP_ERRNO only */
};

enum scp_op {
	SCP_OP_EQ,		/* arg == datum */
	SCP_OP_GT,		/* arg > datum (unsigned 64-bit) */
	SCP_OP_MASKED_EQ,	/* (arg & mask) == datum */
};

struct scp_cond {
	unsigned	arg;		/* 0..5 */
	enum scp_op	op;
	uint64_t	mask;		/* SCP_OP_MASKED_EQ only */
	uint64_t	datum;
};

struct scp_rule {
	const char		*syscall;	/* static string */
	struct scp_action	 action;
	int			 has_cond;	/* 0: always matches */
	struct scp_cond		 cond;
};

struct seccomp_policy {
	enum seccomp_profile	 profile;
	struct scp_action	 default_action;
	struct scp_action	 badarch_action;
	struct scp_rule		*rules;
	size_t			 nrules;
};

/*
 * Compiles the filter for |sp| (its seccomp profile and network flag).
 * Returns 0 and sets *out (free with seccomp_policy_free), or AL_ERR_ALLOC.
 */
int	seccomp_policy_compile(const struct sandbox_policy *sp,
	    struct seccomp_policy **out) __attribute__((warn_unused_result));

void	seccomp_policy_free(struct seccomp_policy *p);

/*
 * Whether the filter of |sp| refuses setuid and setgid modes: when the
 * sandbox writes host paths directly (sp->host_writes, read_write binds,
 * a home), chmod, fchmod, fchmodat, fchmodat2, open, openat, creat,
 * mknod and mknodat asked for S_ISUID or S_ISGID fail with EPERM, and
 * openat2 (whose mode a filter cannot read) with ENOSYS; and setxattr,
 * lsetxattr, fsetxattr and setxattrat fail with EOPNOTSUPP (a
 * user.overlay.* attribute on the checkout steers later runners'
 * overlays; a filter cannot read the name).
 */
int	seccomp_policy_refuses_special_bits(const struct sandbox_policy *sp);

/*
 * Returns the action the table gives to |syscall| called with args[0..6),
 * from the native ABI.  Pure: used by the unit tests and for explaining
 * denials.
 */
struct scp_action seccomp_policy_eval(const struct seccomp_policy *p,
	    const char *syscall, const uint64_t args[6]);

/* Returns 1 if |syscall| is refused outright (for any arguments), else 0. */
int	seccomp_policy_denies(const struct seccomp_policy *p,
	    const char *syscall);

/* The syscalls the default profile refuses (NULL-terminated, static). */
extern const char *const seccomp_denied_syscalls[];

#endif
