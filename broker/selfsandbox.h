/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * selfsandbox: the broker's own seccomp filter, applied once start-up is
 * done, in the spirit of pledge(2).
 *
 * The broker forks runners, and a runner's set-up needs clone() with
 * namespace flags, unshare(), mount(), pivot_root(), seccomp() and
 * landlock; a filter installed in the broker is inherited by every child.
 * So this is a DENYLIST of what neither the broker nor any runner set-up
 * ever needs: debugging and memory access to other processes (ptrace,
 * process_vm_readv/writev, pidfd_getfd, kcmp), kernel modules and kexec,
 * bpf, perf_event_open, userfaultfd, io_uring, the kernel keyring, the
 * clock, reboot, swap, accounting, quotas, handle-based opens (which
 * bypass path checks: open_by_handle_at), and the legacy ioperm/iopl,
 * uselib, lookup_dcookie, nfsservctl, vhangup, syslog.  Each fails with
 * EPERM.  The numbers past the audited table (policy/syscalls.h: 470 to
 * 501) fail with ENOSYS.  Foreign ABIs (i386 through int 0x80, x32
 * system call numbers) kill the process.  no_new_privs is set, as
 * seccomp requires of an unprivileged caller.
 *
 * The filter cannot be removed: it is inherited across fork and execve
 * and outlives the broker's descendants.  Under AddressSanitizer, ptrace
 * stays allowed, because LeakSanitizer stops the world with ptrace when
 * the process exits (see docs/PRIVSEP.md).
 */
#ifndef AIRLOCK_SELFSANDBOX_H
#define AIRLOCK_SELFSANDBOX_H

#include <stddef.h>

/*
 * Installs the filter on the calling process (all its threads).  Returns
 * 0 (under valgrind, which cannot load a filter, 0 without one, with a
 * note in err), or AL_ERR_SYSTEM with the reason in err[0..errlen),
 * among them a denied name no table knows (never a rule left out).  The
 * caller decides whether to go on without it; "airlock serve" and
 * "airlock run" stop (fail closed).
 */
int selfsandbox_apply(char *err, size_t errlen)
    __attribute__((warn_unused_result));

/*
 * The names of the denied system calls, NULL-terminated (static), for
 * tests and docs/PRIVSEP.md.
 */
const char *const *selfsandbox_denied(void);

#endif
