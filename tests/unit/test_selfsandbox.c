/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The broker's own seccomp filter (broker/selfsandbox.c): each test forks,
 * applies the filter in the child, and attacks from there, so the test
 * process itself stays unfiltered.
 */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "broker/selfsandbox.h"
#include "policy/syscalls.h"

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

/* Runs |fn| in a child under the filter; returns its wait status. */
static int
in_sandbox(int (*fn)(long), long arg)
{
	char err[256];
	pid_t pid;
	int st;

	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		if (selfsandbox_apply(err, sizeof(err)) != 0) {
			fprintf(stderr, "%s\n", err);
			_exit(100);
		}
		_exit(fn(arg));
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return st;
}

/* A denied call: returns 0 if it failed with EPERM. */
struct denied_row {
	const char *name;
	long nr;
	long a0, a1, a2;
};

static const struct denied_row denied_rows[] = {
#ifndef __SANITIZE_ADDRESS__
	{ "ptrace(PTRACE_TRACEME)", SYS_ptrace, PTRACE_TRACEME, 0, 0 },
#endif
	{ "bpf(BPF_PROG_LOAD)", SYS_bpf, 5, 0, 0 },
	{ "io_uring_setup", SYS_io_uring_setup, 8, 0, 0 },
	{ "keyctl(KEYCTL_GET_KEYRING_ID)", SYS_keyctl, 0, -3, 0 },
	{ "add_key", SYS_add_key, 0, 0, 0 },
	{ "perf_event_open", SYS_perf_event_open, 0, 0, -1 },
	{ "userfaultfd", SYS_userfaultfd, 0, 0, 0 },
	{ "process_vm_readv", SYS_process_vm_readv, 1, 0, 0 },
	{ "init_module", SYS_init_module, 0, 0, 0 },
	{ "finit_module", SYS_finit_module, -1, 0, 0 },
	{ "kexec_load", SYS_kexec_load, 0, 0, 0 },
	{ "open_by_handle_at", SYS_open_by_handle_at, -1, 0, 0 },
	{ "clock_settime", SYS_clock_settime, 0, 0, 0 },
	{ "reboot", SYS_reboot, 0, 0, 0 },
	{ "swapoff", SYS_swapoff, 0, 0, 0 },
};

static int
call_denied(long i)
{
	const struct denied_row *r = &denied_rows[i];
	long rc;

	errno = 0;
	rc = syscall(r->nr, r->a0, r->a1, r->a2, 0, 0, 0);
	if (rc == -1 && errno == EPERM)
		return 0;
	fprintf(stderr, "%s: rc %ld errno %d\n", r->name, rc, errno);
	return 1;
}

START_TEST(test_broker_filter_refuses_dangerous_calls_with_eperm)
{
	int st = in_sandbox(call_denied, _i);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "%s was not refused with EPERM (status %#x)", denied_rows[_i].name,
	    st);
}
END_TEST

/*
 * A call past the audited table (Linux 6.18's, up to file_setattr, 469)
 * must fail with ENOSYS in the broker's filter, not reach the kernel.
 * This kernel lacks it and would say ENOSYS too, so a second filter
 * stands in for a later kernel that has it: it hands call |nr| to a
 * listener (SECCOMP_RET_USER_NOTIF), which answers EXDEV.  An ERRNO of
 * any filter takes precedence over USER_NOTIF: only a call the broker's
 * filter let through is answered.  0 if refused with ENOSYS.
 */
static int
answered_past_the_broker(int fd, pid_t pid)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct pollfd pfd = { fd, POLLIN, 0 };
	int i, st;

	for (i = 0; i < 200; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 20;
		if (poll(&pfd, 1, 10) != 1)
			continue;
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) == -1)
			continue;
		fprintf(stderr, "call %d passed the broker's filter\n",
		    req.data.nr);
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.error = -EXDEV;
		(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st)
							    : 21;
}

static int
unaudited_call(long nr)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { 4, insns };
	pid_t pid;
	long rc;
	int fd;

	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd == -1)
		return 10;
	if ((pid = fork()) == -1)
		return 11;
	if (pid == 0) {
		errno = 0;
		rc = syscall(nr, 0, 0, 0, 0, 0, 0);
		if (rc == -1 && errno == ENOSYS)
			_exit(0);
		fprintf(stderr, "call %ld: rc %ld errno %d\n", nr, rc, errno);
		_exit(rc == -1 && errno == EXDEV ? 2 : 3);
	}
	return answered_past_the_broker(fd, pid);
}

static const long unaudited_rows[] = { 470, 501 };

START_TEST(test_broker_filter_refuses_calls_past_the_audited_table)
{
	int st = in_sandbox(unaudited_call, unaudited_rows[_i]);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "call %ld was not refused with ENOSYS by the broker's filter "
	    "(status %#x)",
	    unaudited_rows[_i], st);
}
END_TEST

/* A name the filter cannot resolve would be a dropped rule. */
START_TEST(test_broker_denylist_names_resolve)
{
	const char *const *d = selfsandbox_denied();
	size_t i;

	for (i = 0; d[i] != NULL; i++)
		ck_assert_msg(syscalls_resolve(d[i]) != __NR_SCMP_ERROR,
		    "%s: no number", d[i]);
}
END_TEST

/* What runner set-up needs still works: namespaces, mounts, fork. */
static int
runner_setup(long arg)
{
	pid_t pid;
	int st;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
		return 1;
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		return 2;
	if (mount("tmpfs", "/mnt", "tmpfs", 0, "size=64k") == -1)
		return 3;
	if ((pid = fork()) == -1)
		return 4;
	if (pid == 0)
		_exit(getpid() > 0 ? 0 : 1);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return 5;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return 6;
	return 0;
}

START_TEST(test_broker_filter_keeps_namespaces_and_mounts_for_runners)
{
	int st = in_sandbox(runner_setup, 0);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "runner set-up failed under the broker filter (status %#x)", st);
}
END_TEST

static int
x32_call(long arg)
{
	syscall(__X32_SYSCALL_BIT | SYS_getpid);
	return 0;
}

static int
i386_call(long arg)
{
	long ret;

	/* The default action, not AddressSanitizer's SEGV report. */
	signal(SIGSEGV, SIG_DFL);
	/* getpid is 20 in the i386 table. */
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	return 0;
}

START_TEST(test_broker_filter_kills_x32_and_i386_calls)
{
	int st;

	st = in_sandbox(x32_call, 0);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
	    "x32 call not killed (status %#x)", st);
	/*
	 * Where the kernel offers the i386 ABI the filter kills the call
	 * with SIGSYS; where the machine has no int 0x80 (this PVM guest
	 * faults it with SIGSEGV even unfiltered) the call dies anyway.
	 * Either way it must not return.
	 */
	st = in_sandbox(i386_call, 0);
	ck_assert_msg(WIFSIGNALED(st) &&
		(WTERMSIG(st) == SIGSYS || WTERMSIG(st) == SIGSEGV),
	    "i386 call not killed (status %#x)", st);
}
END_TEST

static int
status_says_filtered(long arg)
{
	char line[256];
	FILE *fp;
	int found = 0;

	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		return 1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strcmp(line, "Seccomp:\t2\n") == 0)
			found = 1;
	fclose(fp);
	return found ? 0 : 2;
}

START_TEST(test_broker_filter_shows_in_proc_status)
{
	int st = in_sandbox(status_says_filtered, 0);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "Seccomp: 2 not in /proc/self/status (status %#x)", st);
}
END_TEST

START_TEST(test_broker_denylist_names_the_required_calls)
{
	static const char *must[] = { "bpf", "io_uring_setup", "keyctl",
		"perf_event_open", "userfaultfd", "kexec_load", "init_module",
		"process_vm_writev", "open_by_handle_at", NULL };
	const char *const *d = selfsandbox_denied();
	size_t i, j;

	for (i = 0; must[i] != NULL; i++) {
		for (j = 0; d[j] != NULL; j++)
			if (strcmp(d[j], must[i]) == 0)
				break;
		ck_assert_msg(d[j] != NULL, "%s not denied", must[i]);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("selfsandbox");
	TCase *tc = tcase_create("filter");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc,
	    test_broker_filter_refuses_dangerous_calls_with_eperm, 0,
	    (int)(sizeof(denied_rows) / sizeof(denied_rows[0])));
	tcase_add_loop_test(tc,
	    test_broker_filter_refuses_calls_past_the_audited_table, 0,
	    (int)(sizeof(unaudited_rows) / sizeof(unaudited_rows[0])));
	tcase_add_test(tc, test_broker_denylist_names_resolve);
	tcase_add_test(
	    tc, test_broker_filter_keeps_namespaces_and_mounts_for_runners);
	tcase_add_test(tc, test_broker_filter_kills_x32_and_i386_calls);
	tcase_add_test(tc, test_broker_filter_shows_in_proc_status);
	tcase_add_test(tc, test_broker_denylist_names_the_required_calls);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
