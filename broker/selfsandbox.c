/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * selfsandbox: see selfsandbox.h.  Why a denylist and not an allowlist:
 * the broker's children inherit the filter before they build their own
 * sandbox, and that set-up uses most of the kernel's process, mount and
 * namespace interface.  What is listed here is what turns a bug in the
 * broker into a bigger one (reading another process's memory, loading
 * kernel code, the io_uring and bpf attack surface, the keyring that may
 * hold other users' secrets), and nothing airlock calls.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <seccomp.h>

#include "broker/selfsandbox.h"
#include "common/errors.h"
#include "policy/syscalls.h"

/*
 * Valgrind cannot run seccomp(2) (it has no handler for it), so under
 * valgrind the filter is skipped, and only there: RUNNING_ON_VALGRIND is
 * a no-op instruction sequence that yields 0 on a real CPU, which nothing
 * the agent sends can change.
 */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/* clang-format off */
static const char *const denied[] = {
#ifndef __SANITIZE_ADDRESS__
	"ptrace",		/* LeakSanitizer needs it; see the header */
#endif
	"process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	"kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module",
	"bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"keyctl", "add_key", "request_key",
	"reboot", "swapon", "swapoff", "acct",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"open_by_handle_at", "name_to_handle_at",
	"lookup_dcookie", "quotactl", "quotactl_fd",
	"iopl", "ioperm", "uselib", "nfsservctl", "vhangup", "syslog",
	"fanotify_init",
	NULL
};
/* clang-format on */

const char *const *
selfsandbox_denied(void)
{
	return denied;
}

static int
fail(char *err, size_t errlen, const char *what, int rc)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "seccomp: %s: %s", what, strerror(-rc));
	return AL_ERR_SYSTEM;
}

int
selfsandbox_apply(char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	size_t i;
	int nr, rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (RUNNING_ON_VALGRIND) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen,
			    "seccomp: not applied under "
			    "valgrind");
		return 0;
	}
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return fail(err, errlen, "seccomp_init", -ENOMEM);
	/*
	 * Only the native ABI is in the filter, so i386 (int 0x80) and x32
	 * calls take the bad-architecture action: kill the whole process.
	 */
	if ((rc = seccomp_attr_set(
		 ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) != 0) {
		seccomp_release(ctx);
		return fail(err, errlen, "bad-ABI action", rc);
	}
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1)) != 0 ||
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1)) != 0) {
		seccomp_release(ctx);
		return fail(err, errlen, "attributes", rc);
	}
	for (i = 0; denied[i] != NULL; i++) {
		/*
		 * A name neither libseccomp nor the common table knows is
		 * a rule that would be dropped: stop, not filter less.  A
		 * call this architecture lacks has a pseudo-number, which
		 * seccomp_rule_add() skips.
		 */
		if ((nr = syscalls_resolve(denied[i])) == __NR_SCMP_ERROR) {
			seccomp_release(ctx);
			if (err != NULL && errlen > 0)
				snprintf(err, errlen,
				    "seccomp: %s: a system call neither "
				    "libseccomp nor policy/syscalls.c knows",
				    denied[i]);
			return AL_ERR_SYSTEM;
		}
		if ((rc = seccomp_rule_add(
			 ctx, SCMP_ACT_ERRNO(EPERM), nr, 0)) != 0) {
			seccomp_release(ctx);
			return fail(err, errlen, denied[i], rc);
		}
	}
	if ((rc = syscalls_refuse_unaudited(ctx, err, errlen)) != 0) {
		seccomp_release(ctx);
		return AL_ERR_SYSTEM;
	}
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0)
		return fail(err, errlen, "load", rc);
	return 0;
}
