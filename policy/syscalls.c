/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* syscalls: see syscalls.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/syscalls.h"

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

/*
 * The calls since the common numbering began (pidfd_send_signal, 424),
 * as in the kernel's scripts/syscall.tbl and arch/x86's tables, which
 * agree from 424 on: the oldest libseccomp configure accepts (2.5.0)
 * lacks those from about 440 (quotactl_fd, 443, came with 2.5.2), and
 * 2.5.4 those past futex_requeue (456).  A number a given architecture
 * leaves unused (memfd_secret on arm, map_shadow_stack on x32) names
 * nothing there.  Checked against libseccomp 2.5.4's tables for x86_64,
 * i386, x32, aarch64 and arm where it knows the name.
 */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || \
    defined(__arm__) || defined(__riscv) || defined(__powerpc__) || \
    defined(__s390__) || defined(__loongarch__)
static const struct {
	const char *name;
	int nr;
} newer_syscalls[] = {
	{ "pidfd_send_signal", 424 },
	{ "io_uring_setup", 425 },
	{ "io_uring_enter", 426 },
	{ "io_uring_register", 427 },
	{ "open_tree", 428 },
	{ "move_mount", 429 },
	{ "fsopen", 430 },
	{ "fsconfig", 431 },
	{ "fsmount", 432 },
	{ "fspick", 433 },
	{ "pidfd_open", 434 },
	{ "clone3", 435 },
	{ "close_range", 436 },
	{ "openat2", 437 },
	{ "pidfd_getfd", 438 },
	{ "faccessat2", 439 },
	{ "process_madvise", 440 },
	{ "epoll_pwait2", 441 },
	{ "mount_setattr", 442 },
	{ "quotactl_fd", 443 },
	{ "landlock_create_ruleset", 444 },
	{ "landlock_add_rule", 445 },
	{ "landlock_restrict_self", 446 },
	{ "memfd_secret", 447 },
	{ "process_mrelease", 448 },
	{ "futex_waitv", 449 },
	{ "set_mempolicy_home_node", 450 },
	{ "cachestat", 451 },
	{ "fchmodat2", 452 },
	{ "map_shadow_stack", 453 },
	{ "futex_wake", 454 },
	{ "futex_wait", 455 },
	{ "futex_requeue", 456 },
	{ "statmount", 457 },
	{ "listmount", 458 },
	{ "lsm_get_self_attr", 459 },
	{ "lsm_set_self_attr", 460 },
	{ "lsm_list_modules", 461 },
	{ "mseal", 462 },
	{ "setxattrat", 463 },
	{ "getxattrat", 464 },
	{ "listxattrat", 465 },
	{ "removexattrat", 466 },
	{ "open_tree_attr", 467 },
	{ "file_getattr", 468 },
	{ "file_setattr", 469 },
};
#define NNEWER (sizeof(newer_syscalls) / sizeof(newer_syscalls[0]))
/*
 * The deny lists were audited against Linux 6.18's table, whose last
 * call is file_setattr (469).  A call a later kernel adds would reach it
 * from a filter that allows what it does not name: the next
 * UNAUDITED_SPAN numbers get ENOSYS instead (the C libraries fall back).
 */
#define AUDITED_LAST_NR 469
#define UNAUDITED_SPAN 32
#else
#define AUDITED_LAST_NR 0
#define UNAUDITED_SPAN 0
static const struct {
	const char *name;
	int nr;
} newer_syscalls[1] = { { "", -1 } };
#define NNEWER 0
#endif

int
syscalls_common_number(const char *name)
{
	size_t i;

	for (i = 0; i < NNEWER; i++)
		if (strcmp(name, newer_syscalls[i].name) == 0)
			return newer_syscalls[i].nr;
	return __NR_SCMP_ERROR;
}

int
syscalls_resolve(const char *name)
{
	int nr;

	if ((nr = seccomp_syscall_resolve_name(name)) != __NR_SCMP_ERROR)
		return nr;
	return syscalls_common_number(name);
}

/*
 * 1 if |arch| numbers the calls of the table alike: the native ABI, and
 * on x86_64 the i386 and x32 ones.
 */
static int
common_numbering(uint32_t arch)
{
	if (NNEWER == 0)
		return 0;
	if (arch == seccomp_arch_native())
		return 1;
	return seccomp_arch_native() == SCMP_ARCH_X86_64 &&
	    (arch == SCMP_ARCH_X86 || arch == SCMP_ARCH_X32);
}

char *
syscalls_name(uint32_t arch, int nr)
{
	size_t i;
	char *name;

	if (arch == SCMP_ARCH_X32)
		nr |= __X32_SYSCALL_BIT; /* libseccomp's x32 numbers */
	if ((name = seccomp_syscall_resolve_num_arch(arch, nr)) != NULL ||
	    !common_numbering(arch))
		return name;
	nr &= ~__X32_SYSCALL_BIT;
	for (i = 0; i < NNEWER; i++)
		if (nr == newer_syscalls[i].nr)
			return strdup(newer_syscalls[i].name);
	return NULL;
}

int
syscalls_refuse_unaudited(scmp_filter_ctx ctx, char *err, size_t errlen)
{
	int nr, rc;

	for (nr = AUDITED_LAST_NR + 1; nr <= AUDITED_LAST_NR + UNAUDITED_SPAN;
	     nr++)
		if ((rc = seccomp_rule_add_exact(
			 ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0)) != 0) {
			snprintf(err, errlen, "seccomp rule for call %d: %s",
			    nr, strerror(-rc));
			return -1;
		}
	return 0;
}
