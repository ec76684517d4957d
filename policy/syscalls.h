/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * syscalls: system call names and numbers for the seccomp filters built
 * through libseccomp (the runner's, runner/seccomp.c, and the broker's
 * own, broker/selfsandbox.c), one table for both.
 *
 * libseccomp resolves names from a table of its own, and the version a
 * distribution ships may be older than the kernel (2.5.4 on Debian 12
 * knows no call past futex_requeue, 456): a deny rule whose name it
 * cannot resolve would be dropped, the call let through.  The calls
 * from 424 on (what libseccomp 2.5.0 to 2.5.4 may lack) are resolved
 * here too, from the kernel's common numbering,
 * which since 4.17 every architecture but alpha, ia64 and mips shares,
 * for the native ABI as for the i386 and x32 ones.  And a deny list was
 * audited against one kernel's table (Linux 6.18, up to file_setattr,
 * 469): the numbers past it are refused with ENOSYS, as by a kernel
 * without them, until the list is audited again.
 */
#ifndef AIRLOCK_SYSCALLS_H
#define AIRLOCK_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>

#include <seccomp.h>

/*
 * The number of the system call |name| on the native architecture: from
 * libseccomp (a negative pseudo-number for a call it knows but this
 * architecture lacks, which seccomp_rule_add() skips) or, for a call
 * newer than it, from the common table; __NR_SCMP_ERROR if neither
 * knows the name.
 */
int syscalls_resolve(const char *name);

/*
 * The number of |name| in the common table alone (424 to 469), whatever
 * libseccomp says; __NR_SCMP_ERROR if it is not there.
 */
int syscalls_common_number(const char *name);

/*
 * The name of system call |nr| of the ABI |arch| (an SCMP_ARCH_*, the
 * AUDIT_ARCH_* value a seccomp record or notification carries), from
 * libseccomp or the common table; x32's numbers are given without
 * __X32_SYSCALL_BIT, with |arch| SCMP_ARCH_X86_64 or SCMP_ARCH_X32.
 * NULL if unknown; the caller frees the name.
 */
char *syscalls_name(uint32_t arch, int nr);

/*
 * Adds to |ctx|, a filter of the native ABI whose default action allows,
 * an ENOSYS rule for each of the 32 numbers past the audited table
 * (470..501 on the architectures of the common numbering; none
 * elsewhere).  0, or -1 with the reason in err[0..errlen).
 */
int syscalls_refuse_unaudited(scmp_filter_ctx ctx, char *err, size_t errlen);

#endif
