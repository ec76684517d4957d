/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Table-driven tests of the compiled seccomp rule table. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "policy/sandbox_defaults.h"
#include "policy/seccomp_policy.h"
#include "policy/syscalls.h"

#define ALLOW	{ SCP_ALLOW, 0 }
#define EPERM_	{ SCP_ERRNO, EPERM }
#define ENOSYS_	{ SCP_ERRNO, ENOSYS }

struct row {
	const char		*syscall;
	uint64_t		 args[6];
	struct scp_action	 want;
};

static const struct row default_rows[] = {
	{ "read", { 0 }, ALLOW },
	{ "openat", { 0 }, ALLOW },
	{ "execve", { 0 }, ALLOW },
	{ "ptrace", { 0 }, EPERM_ },
	{ "process_vm_readv", { 0 }, EPERM_ },
	{ "process_vm_writev", { 0 }, EPERM_ },
	{ "mount", { 0 }, EPERM_ },
	{ "umount2", { 0 }, EPERM_ },
	{ "pivot_root", { 0 }, EPERM_ },
	{ "move_mount", { 0 }, EPERM_ },
	{ "open_tree", { 0 }, EPERM_ },
	{ "fsopen", { 0 }, EPERM_ },
	{ "fsmount", { 0 }, EPERM_ },
	{ "fsconfig", { 0 }, EPERM_ },
	{ "fspick", { 0 }, EPERM_ },
	{ "mount_setattr", { 0 }, EPERM_ },
	{ "unshare", { 0 }, EPERM_ },
	{ "setns", { 0 }, EPERM_ },
	{ "keyctl", { 0 }, EPERM_ },
	{ "add_key", { 0 }, EPERM_ },
	{ "request_key", { 0 }, EPERM_ },
	{ "bpf", { 0 }, EPERM_ },
	{ "perf_event_open", { 0 }, EPERM_ },
	{ "userfaultfd", { 0 }, EPERM_ },
	{ "io_uring_setup", { 0 }, EPERM_ },
	{ "io_uring_enter", { 0 }, EPERM_ },
	{ "io_uring_register", { 0 }, EPERM_ },
	{ "kexec_load", { 0 }, EPERM_ },
	{ "kexec_file_load", { 0 }, EPERM_ },
	{ "init_module", { 0 }, EPERM_ },
	{ "finit_module", { 0 }, EPERM_ },
	{ "delete_module", { 0 }, EPERM_ },
	{ "open_by_handle_at", { 0 }, EPERM_ },
	{ "name_to_handle_at", { 0 }, EPERM_ },
	{ "reboot", { 0 }, EPERM_ },
	{ "swapon", { 0 }, EPERM_ },
	{ "swapoff", { 0 }, EPERM_ },
	{ "acct", { 0 }, EPERM_ },
	{ "settimeofday", { 0 }, EPERM_ },
	{ "clock_settime", { 0 }, EPERM_ },
	{ "clock_adjtime", { 0 }, EPERM_ },
	{ "adjtimex", { 0 }, EPERM_ },
	{ "setgroups", { 0 }, EPERM_ },
	{ "clone3", { 0 }, ENOSYS_ },
	/* clone: plain fork/thread flags pass, any CLONE_NEW* is refused. */
	{ "clone", { 0x11 /* SIGCHLD */ }, ALLOW },
	{ "clone", { 0x3d0f00 /* pthread_create */ }, ALLOW },
	{ "clone", { 0x10000000 | 0x11 /* NEWUSER */ }, EPERM_ },
	{ "clone", { 0x20000 /* NEWNS */ }, EPERM_ },
	{ "clone", { 0x20000000 /* NEWPID */ }, EPERM_ },
	{ "clone", { 0x40000000 /* NEWNET */ }, EPERM_ },
	{ "clone", { 0x08000000 /* NEWIPC */ }, EPERM_ },
	{ "clone", { 0x04000000 /* NEWUTS */ }, EPERM_ },
	{ "clone", { 0x02000000 /* NEWCGROUP */ }, EPERM_ },
	/* personality: only PER_LINUX and the query. */
	{ "personality", { 0 }, ALLOW },
	{ "personality", { 0xffffffff }, ALLOW },
	{ "personality", { 0x0040000 /* ADDR_NO_RANDOMIZE */ }, EPERM_ },
	{ "personality", { 0x0400000 /* READ_IMPLIES_EXEC */ }, EPERM_ },
	{ "personality", { 8 /* PER_LINUX32 */ }, EPERM_ },
	{ "personality", { 0xfffffffe }, EPERM_ },
	{ "personality", { 0x7fffffff }, EPERM_ },
	{ "personality", { 1 }, EPERM_ },
	/* ioctl: TIOCSTI/TIOCLINUX refused, whatever the high bits say. */
	{ "ioctl", { 0, 0x5412 }, EPERM_ },
	{ "ioctl", { 0, 0xffffffff00005412ULL }, EPERM_ },
	{ "ioctl", { 0, 0x541c }, EPERM_ },
	{ "ioctl", { 0, 0x100000000000541cULL }, EPERM_ },
	{ "ioctl", { 0, 0x5423 /* TIOCSETD */ }, EPERM_ },
	{ "ioctl", { 0, 0xffffffff00005423ULL }, EPERM_ },
	{ "ioctl", { 0, 0x5424 /* TIOCGETD */ }, ALLOW },
	{ "ioctl", { 0, 0x540c /* TIOCEXCL */ }, EPERM_ },
	{ "ioctl", { 0, 0x540d /* TIOCNXCL */ }, ALLOW },
	{ "ioctl", { 0, 0x5401 /* TCGETS */ }, ALLOW },
	{ "ioctl", { 0, 0x5413 /* TIOCGWINSZ */ }, ALLOW },
	/* socket families. */
	{ "socket", { 1 }, ALLOW },
	{ "socket", { 2 }, ALLOW },
	{ "socket", { 10 }, ALLOW },
	{ "socket", { 0 }, EPERM_ },
	{ "socket", { 16 /* NETLINK */ }, EPERM_ },
	{ "socket", { 17 /* PACKET */ }, EPERM_ },
	{ "socket", { 38 /* ALG */ }, EPERM_ },
	{ "socket", { 40 /* VSOCK */ }, EPERM_ },
	{ "socket", { 3 }, EPERM_ },
	{ "socket", { 9 }, EPERM_ },
	{ "socket", { 0x100000001ULL }, EPERM_ },
	/* socketpair: AF_UNIX only (the family's create runs first). */
	{ "socketpair", { 1, 1 }, ALLOW },
	{ "socketpair", { 0 }, EPERM_ },
	{ "socketpair", { 16 /* NETLINK */ }, EPERM_ },
	{ "socketpair", { 30 /* TIPC: pairs */ }, EPERM_ },
	{ "socketpair", { 40 /* VSOCK */ }, EPERM_ },
	{ "socketpair", { 0x100000001ULL }, EPERM_ },
};

static const struct row strict_rows[] = {
	{ "read", { 0 }, ALLOW },
	{ "execve", { 0 }, ALLOW },
	{ "ptrace", { 0 }, EPERM_ },
	{ "mount", { 0 }, EPERM_ },
	{ "bpf", { 0 }, EPERM_ },
	{ "setgroups", { 0 }, EPERM_ },
	{ "name_to_handle_at", { 0 }, EPERM_ },
	{ "some_future_syscall", { 0 }, EPERM_ },
	{ "clone3", { 0 }, ENOSYS_ },
	{ "clone", { 0x11 }, ALLOW },
	{ "clone", { 0x10000011 }, EPERM_ },
	{ "personality", { 0 }, ALLOW },
	{ "personality", { 0xffffffff }, ALLOW },
	{ "personality", { 0x40000 }, EPERM_ },
	{ "socket", { 1 }, ALLOW },
	{ "socket", { 16 }, EPERM_ },
	{ "socketpair", { 1 }, ALLOW },
	{ "socketpair", { 30 /* TIPC */ }, EPERM_ },
	{ "socketpair", { 2 }, EPERM_ },
	{ "ioctl", { 0, 0x5401 }, ALLOW },
	{ "ioctl", { 0, 0x5412 }, EPERM_ },
	{ "ioctl", { 0, 0x541c }, EPERM_ },
	{ "ioctl", { 0, 0x5423 }, EPERM_ },
	{ "ioctl", { 0, 0x540c }, EPERM_ },
};

/*
 * A sandbox that writes host paths directly (an agent with
 * agent.workspace: rw): no setuid or setgid mode, in either profile; the
 * sticky bit and plain modes stay.  0x41 is O_WRONLY | O_CREAT.
 */
static const struct row host_rows[] = {
	{ "chmod", { 0, 04755 }, EPERM_ },
	{ "chmod", { 0, 02755 }, EPERM_ },
	{ "chmod", { 0, 06777 }, EPERM_ },
	{ "chmod", { 0, 0755 }, ALLOW },
	{ "chmod", { 0, 01777 }, ALLOW },
	{ "fchmod", { 3, 04755 }, EPERM_ },
	{ "fchmod", { 3, 0600 }, ALLOW },
	{ "fchmodat", { 3, 0, 02775 }, EPERM_ },
	{ "fchmodat", { 3, 0, 0644 }, ALLOW },
	{ "fchmodat2", { 3, 0, 04755, 0 }, EPERM_ },
	{ "fchmodat2", { 3, 0, 0755, 0 }, ALLOW },
	{ "open", { 0, 0x41, 04755 }, EPERM_ },
	{ "open", { 0, 0x41, 0644 }, ALLOW },
	{ "openat", { 3, 0, 0x41, 02755 }, EPERM_ },
	{ "openat", { 3, 0, 0, 0 }, ALLOW },
	{ "creat", { 0, 04755 }, EPERM_ },
	{ "mknod", { 0, 0100000 | 04755, 0 }, EPERM_ },
	{ "mknodat", { 3, 0, 0100000 | 02755, 0 }, EPERM_ },
	{ "mknodat", { 3, 0, 0100000 | 0644, 0 }, ALLOW },
	{ "openat2", { 0 }, ENOSYS_ },
	{ "read", { 0 }, ALLOW },
	{ "ptrace", { 0 }, EPERM_ },
};

static struct seccomp_policy *
compile_host(enum seccomp_profile prof, int host_writes)
{
	struct sandbox_policy sp;
	struct seccomp_policy *p;

	sandbox_policy_init_defaults(&sp);
	sp.seccomp = prof;
	sp.host_writes = host_writes;
	ck_assert_int_eq(seccomp_policy_compile(&sp, &p), 0);
	sandbox_policy_free_arrays(&sp);
	return p;
}

static struct seccomp_policy *
compile(enum seccomp_profile prof)
{
	struct sandbox_policy sp;
	struct seccomp_policy *p;

	sandbox_policy_init_defaults(&sp);
	sp.seccomp = prof;
	ck_assert_int_eq(seccomp_policy_compile(&sp, &p), 0);
	sandbox_policy_free_arrays(&sp);
	return p;
}

static void
check_row(const struct seccomp_policy *p, const struct row *r)
{
	struct scp_action a = seccomp_policy_eval(p, r->syscall, r->args);

	ck_assert_msg(a.kind == r->want.kind && a.err == r->want.err,
	    "%s(%#llx, %#llx): got kind %d err %d, want kind %d err %d",
	    r->syscall, (unsigned long long)r->args[0],
	    (unsigned long long)r->args[1], a.kind, a.err, r->want.kind,
	    r->want.err);
}

START_TEST(test_default_profile_gives_each_row_its_action)
{
	struct seccomp_policy *p = compile(SECCOMP_PROFILE_DEFAULT);

	check_row(p, &default_rows[_i]);
	seccomp_policy_free(p);
}
END_TEST

START_TEST(test_strict_profile_gives_each_row_its_action)
{
	struct seccomp_policy *p = compile(SECCOMP_PROFILE_STRICT);

	check_row(p, &strict_rows[_i]);
	seccomp_policy_free(p);
}
END_TEST

START_TEST(test_host_writes_refuse_special_bits)
{
	struct seccomp_policy *p;
	size_t i;

	p = compile_host(_i ? SECCOMP_PROFILE_STRICT : SECCOMP_PROFILE_DEFAULT,
	    1);
	for (i = 0; i < sizeof(host_rows) / sizeof(host_rows[0]); i++)
		check_row(p, &host_rows[i]);
	seccomp_policy_free(p);
	/* ... and only then: a change set's write policy sees the rest. */
	p = compile_host(_i ? SECCOMP_PROFILE_STRICT : SECCOMP_PROFILE_DEFAULT,
	    0);
	ck_assert_int_eq(seccomp_policy_eval(p, "chmod",
	    (const uint64_t[6]){ 0, 04755 }).kind, SCP_ALLOW);
	seccomp_policy_free(p);
}
END_TEST

START_TEST(test_foreign_abis_are_killed)
{
	struct seccomp_policy *p = compile(SECCOMP_PROFILE_DEFAULT);

	ck_assert_int_eq(p->badarch_action.kind, SCP_KILL_PROCESS);
	seccomp_policy_free(p);
	p = compile(SECCOMP_PROFILE_STRICT);
	ck_assert_int_eq(p->badarch_action.kind, SCP_KILL_PROCESS);
	seccomp_policy_free(p);
}
END_TEST

START_TEST(test_every_denied_syscall_is_denied_outright)
{
	struct seccomp_policy *p = compile(SECCOMP_PROFILE_DEFAULT);
	size_t i;

	for (i = 0; seccomp_denied_syscalls[i] != NULL; i++)
		ck_assert_msg(seccomp_policy_denies(p,
		    seccomp_denied_syscalls[i]), "%s",
		    seccomp_denied_syscalls[i]);
	ck_assert(!seccomp_policy_denies(p, "clone"));
	ck_assert(!seccomp_policy_denies(p, "write"));
	seccomp_policy_free(p);
}
END_TEST

START_TEST(test_one_action_per_syscall_so_rule_order_cannot_matter)
{
	struct seccomp_policy *p = compile_host(_i % 2 ?
	    SECCOMP_PROFILE_STRICT : SECCOMP_PROFILE_DEFAULT, _i >= 2);
	size_t i, j;

	for (i = 0; i < p->nrules; i++)
		for (j = i + 1; j < p->nrules; j++)
			if (strcmp(p->rules[i].syscall,
			    p->rules[j].syscall) == 0)
				ck_assert_msg(p->rules[i].action.kind ==
				    p->rules[j].action.kind &&
				    p->rules[i].action.err ==
				    p->rules[j].action.err, "%s",
				    p->rules[i].syscall);
	seccomp_policy_free(p);
}
END_TEST

/*
 * The table of calls libseccomp may lack (policy/syscalls.c) numbers
 * each as libseccomp does wherever it knows the name, from 424 (the
 * common numbering) to 469: a wrong number would be a rule for another
 * call, the named one let through.
 */
START_TEST(test_common_table_agrees_with_libseccomp)
{
	char *name;
	int nr, known = 0;

	for (nr = 424; nr <= 469; nr++) {
		if ((name = seccomp_syscall_resolve_num_arch(
		    seccomp_arch_native(), nr)) == NULL)
			continue;
		ck_assert_msg(syscalls_common_number(name) == nr,
		    "%s: %d in the table, %d in libseccomp", name,
		    syscalls_common_number(name), nr);
		free(name);
		known++;
	}
	ck_assert_int_gt(known, 30);
}
END_TEST

/* A name the runner cannot resolve would be a rule dropped: a call the
 * default profile lets through (libseccomp 2.5.4 knows none past 456). */
START_TEST(test_every_rule_names_a_syscall_of_this_architecture)
{
	struct seccomp_policy *p = compile_host(_i % 2 ?
	    SECCOMP_PROFILE_STRICT : SECCOMP_PROFILE_DEFAULT, _i >= 2);
	size_t i;

	for (i = 0; i < p->nrules; i++)
		ck_assert_msg(syscalls_resolve(
		    p->rules[i].syscall) != __NR_SCMP_ERROR, "%s",
		    p->rules[i].syscall);
	seccomp_policy_free(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("seccomp_policy");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_default_profile_gives_each_row_its_action,
	    0, sizeof(default_rows) / sizeof(default_rows[0]));
	tcase_add_loop_test(tc, test_strict_profile_gives_each_row_its_action,
	    0, sizeof(strict_rows) / sizeof(strict_rows[0]));
	tcase_add_loop_test(tc, test_host_writes_refuse_special_bits, 0, 2);
	tcase_add_test(tc, test_foreign_abis_are_killed);
	tcase_add_test(tc, test_every_denied_syscall_is_denied_outright);
	tcase_add_loop_test(tc,
	    test_one_action_per_syscall_so_rule_order_cannot_matter, 0, 4);
	tcase_add_loop_test(tc,
	    test_every_rule_names_a_syscall_of_this_architecture, 0, 4);
	tcase_add_test(tc, test_common_table_agrees_with_libseccomp);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
