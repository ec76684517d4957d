/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Denials: the list (dedup, order, cap), its text form, the seccomp
 * program rewrite the child uses for notifications, the one-run syscall
 * allowances, and real runs that record a refused call.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/sandbox_defaults.h"
#include "runner/denials.h"
#include "runner/fsdenials.h"
#include "runner/runner.h"
#include "runner/runner_int.h"

START_TEST(test_list_dedups_in_order_of_first_occurrence)
{
	struct runner_denial list[RUNNER_DENIALS_MAX];
	size_t n = 0;

	ck_assert_int_eq(
	    runner_denial_add_syscall(list, &n, "seccomp", "keyctl", 250), 1);
	ck_assert_int_eq(
	    runner_denial_add_fs(list, &n, "mount", "/root/.npmrc", "read"), 1);
	ck_assert_int_eq(
	    runner_denial_add_syscall(list, &n, "seccomp", "keyctl", 250), 0);
	ck_assert_int_eq(
	    runner_denial_add_fs(list, &n, "mount", "/root/.npmrc", "write"),
	    1);
	ck_assert_int_eq(
	    runner_denial_add_limit(list, &n, "cgroup", "memory", 64), 1);
	ck_assert_int_eq(
	    runner_denial_add_limit(list, &n, "cgroup", "memory", 64), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(list[0].syscall, "keyctl");
	ck_assert_int_eq(list[0].nr, 250);
	ck_assert_str_eq(list[1].access, "read");
	ck_assert_str_eq(list[2].access, "write");
	ck_assert_int_eq(list[3].layer, RUNNER_DENY_LIMIT);
}
END_TEST

START_TEST(test_list_is_capped)
{
	struct runner_denial list[RUNNER_DENIALS_MAX];
	char name[16];
	size_t n = 0;
	int i;

	for (i = 0; i < RUNNER_DENIALS_MAX; i++) {
		snprintf(name, sizeof(name), "call%d", i);
		ck_assert_int_eq(
		    runner_denial_add_syscall(list, &n, "seccomp", name, i), 1);
	}
	ck_assert_int_eq(
	    runner_denial_add_syscall(list, &n, "seccomp", "one-too-many", 99),
	    -1);
	ck_assert_uint_eq(n, RUNNER_DENIALS_MAX);
	/* A duplicate is still a duplicate when full. */
	ck_assert_int_eq(
	    runner_denial_add_syscall(list, &n, "seccomp", "call3", 3), 0);
}
END_TEST

START_TEST(test_format_one_line_per_layer)
{
	struct runner_denial list[RUNNER_DENIALS_MAX];
	char line[RUNNER_DENIAL_TEXT_MAX];
	size_t n = 0;

	(void)runner_denial_add_fs(list, &n, "mount", "/root/.npmrc", "read");
	(void)runner_denial_add_syscall(list, &n, "seccomp", "keyctl", 250);
	(void)runner_denial_add_limit(list, &n, "cgroup", "memory", 64);
	runner_denial_format(&list[0], line, sizeof(line));
	ck_assert_str_eq(line, "filesystem read /root/.npmrc (mount)");
	runner_denial_format(&list[1], line, sizeof(line));
	ck_assert_str_eq(line, "syscall keyctl (seccomp)");
	runner_denial_format(&list[2], line, sizeof(line));
	ck_assert_str_eq(line, "limit memory 64 (cgroup)");
}
END_TEST

START_TEST(test_retarget_rewrites_only_returns)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};

	ck_assert_uint_eq(
	    runner_seccomp_retarget(
		f, 5, SECCOMP_RET_ERRNO | EPERM, SECCOMP_RET_USER_NOTIF),
	    2);
	ck_assert_uint_eq(f[0].k, SECCOMP_RET_ERRNO | EPERM);
	ck_assert_uint_eq(f[1].k, SECCOMP_RET_USER_NOTIF);
	ck_assert_uint_eq(f[2].k, SECCOMP_RET_ERRNO | ENOSYS);
	ck_assert_uint_eq(f[3].k, SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(f[4].k, SECCOMP_RET_USER_NOTIF);
	ck_assert_uint_eq(runner_seccomp_retarget(f, 5, SECCOMP_RET_USER_NOTIF,
			      SECCOMP_RET_ERRNO | EPERM),
	    2);
	ck_assert_uint_eq(f[1].k, SECCOMP_RET_ERRNO | EPERM);
}
END_TEST

START_TEST(test_the_real_program_has_eperm_returns_to_notify)
{
	struct sandbox_policy sp;
	const struct sock_fprog *prog;
	struct sock_filter *copy;
	char err[256];

	sandbox_policy_init_defaults(&sp);
	prog = runner_seccomp_program(&sp, err, sizeof(err));
	ck_assert_msg(prog != NULL, "%s", err);
	copy = malloc(prog->len * sizeof(*copy));
	memcpy(copy, prog->filter, prog->len * sizeof(*copy));
	ck_assert_uint_gt(
	    runner_seccomp_retarget(copy, prog->len, SECCOMP_RET_ERRNO | EPERM,
		SECCOMP_RET_USER_NOTIF),
	    0);
	free(copy);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

START_TEST(test_allow_accepts_only_deny_list_names)
{
	const char *ok[] = { "keyctl", "unshare" };
	const char *notdenied[] = { "keyctl", "read" };
	const char *unknown[] = { "no_such_call" };
	const char *clone3[] = { "clone3" };
	char err[256];

	ck_assert_int_eq(
	    runner_seccomp_check_allow(ok, 2, err, sizeof(err)), 0);
	ck_assert_int_lt(
	    runner_seccomp_check_allow(notdenied, 2, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "read"));
	ck_assert_ptr_nonnull(strstr(err, "not on the seccomp deny list"));
	ck_assert_int_lt(
	    runner_seccomp_check_allow(unknown, 1, err, sizeof(err)), 0);
	ck_assert_int_lt(
	    runner_seccomp_check_allow(clone3, 1, err, sizeof(err)), 0);
}
END_TEST

/* The host as the fs tests see it. */
static int
fake_exists(const char *path, void *arg)
{
	static const char *const host[] = { "/root", "/root/.npmrc", "/usr",
		"/usr/bin", "/etc", "/etc/shadow", "/ws", "/ws/.git", "/secret",
		"/secret/key", NULL };
	size_t i;

	(void)arg;
	for (i = 0; host[i] != NULL; i++)
		if (strcmp(path, host[i]) == 0)
			return 1;
	return 0;
}

static const char *const fs_ro[] = { "/usr", "/etc/passwd" };
static const char *const fs_rw[] = { "/data" };
static const char *const fs_deny[] = { "/secret" };
static const char *const fs_prot[] = { ".git" };

static size_t
fs_scan(const char *err, struct runner_denial *list, size_t *n)
{
	struct runner_fs_view v;

	memset(&v, 0, sizeof(v));
	v.workspace = "/ws";
	v.ro = fs_ro;
	v.nro = 2;
	v.rw = fs_rw;
	v.nrw = 1;
	v.deny = fs_deny;
	v.ndeny = 1;
	v.protected = fs_prot;
	v.nprotected = 1;
	v.exists = fake_exists;
	*n = 0;
	return runner_fs_denials(&v, "/ws/sub", err, strlen(err), list, n);
}

START_TEST(test_fs_each_message_form)
{
	struct runner_denial l[RUNNER_DENIALS_MAX];
	size_t n;

	ck_assert_uint_eq(fs_scan("cat: /root/.npmrc: No such file or "
				  "directory\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].path, "/root/.npmrc");
	ck_assert_str_eq(l[0].access, "read");
	ck_assert_str_eq(l[0].source, "mount");
	ck_assert_uint_eq(fs_scan("touch: cannot touch '/usr/x': Read-only "
				  "file system\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].path, "/usr/x");
	ck_assert_str_eq(l[0].access, "write");
	ck_assert_str_eq(l[0].source, "mount");
	ck_assert_uint_eq(fs_scan("touch: cannot touch \xe2\x80\x98/usr/y"
				  "\xe2\x80\x99: Permission denied\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].path, "/usr/y");
	ck_assert_str_eq(l[0].source, "landlock");
	ck_assert_uint_eq(fs_scan("PermissionError: [Errno 13] Permission "
				  "denied: '/root/.npmrc'\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].access, "read");
	ck_assert_uint_eq(fs_scan("sh: 1: cannot create /usr/bin/z: "
				  "Read-only file system\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].path, "/usr/bin/z");
	ck_assert_str_eq(l[0].access, "write");
	ck_assert_uint_eq(fs_scan("Error: EACCES: permission denied, open "
				  "'/secret/key'\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].path, "/secret/key");
	ck_assert_str_eq(l[0].access, "read");
	/* Relative to the command's directory, ".." resolved. */
	ck_assert_uint_eq(fs_scan("cat: ../../root/.npmrc: No such file or "
				  "directory\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].path, "/root/.npmrc");
	/* A protected path in the workspace. */
	ck_assert_uint_eq(fs_scan("touch: cannot touch '/ws/.git/config': "
				  "Read-only file system\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].path, "/ws/.git/config");
	ck_assert_str_eq(l[0].access, "write");
}
END_TEST

START_TEST(test_fs_allowed_or_missing_gives_nothing)
{
	struct runner_denial l[RUNNER_DENIALS_MAX];
	size_t n;

	/* Missing inside the workspace: a genuine missing file. */
	ck_assert_uint_eq(fs_scan("cat: nothere: No such file or directory\n"
				  "cat: /ws/a/b: No such file or directory\n",
			      l, &n),
	    0);
	/* Missing on the host too. */
	ck_assert_uint_eq(fs_scan("cat: /nowhere/x: No such file or "
				  "directory\n",
			      l, &n),
	    0);
	/* A readable path named with EACCES but no write: ambiguous. */
	ck_assert_uint_eq(
	    fs_scan("cat: /usr/bin: Permission denied\n", l, &n), 0);
	/* Writable places. */
	ck_assert_uint_eq(
	    fs_scan("touch: cannot touch '/ws/x': Permission "
		    "denied\ntouch: cannot touch '/tmp/x': Permission denied\n"
		    "touch: cannot touch '/data/x': Permission denied\n",
		l, &n),
	    0);
	/* No error marker: a path printed is not a refusal. */
	ck_assert_uint_eq(
	    fs_scan("reading /root/.npmrc\n/etc/shadow\n", l, &n), 0);
}
END_TEST

START_TEST(test_fs_never_wider_than_the_named_path)
{
	struct runner_denial l[RUNNER_DENIALS_MAX];
	size_t n;

	/* A forged report names /etc/shadow: the entry is that file only. */
	ck_assert_uint_eq(
	    fs_scan("cat: /etc/shadow: Permission denied\n", l, &n), 1);
	ck_assert_str_eq(l[0].path, "/etc/shadow");
	/* A quoted path with a space: no word of it becomes an entry. */
	ck_assert_uint_eq(fs_scan("touch: cannot touch '/usr/my file': "
				  "Read-only file system\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].path, "/usr/my file");
	/* "/.." stays at the root. */
	ck_assert_uint_eq(fs_scan("cat: /../../root/.npmrc: No such file or "
				  "directory\n",
			      l, &n),
	    1);
	ck_assert_str_eq(l[0].path, "/root/.npmrc");
}
END_TEST

START_TEST(test_fs_normalize)
{
	char out[64];

	ck_assert_int_eq(
	    runner_fs_normalize("/ws", "a/./b/../c", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/ws/a/c");
	ck_assert_int_eq(
	    runner_fs_normalize("/ws", "//x//y/", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/x/y");
	ck_assert_int_eq(
	    runner_fs_normalize("/ws", "../..", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/");
	ck_assert_int_eq(
	    runner_fs_normalize("/ws",
		"/aaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		out, sizeof(out)),
	    -1);
}
END_TEST

/*
 * runner_seccomp_culprit() of uid 65534 and pids above 100 over the
 * kernel log records recs[0..n), which must find one.
 */
static void
culprit_of(const char *const *recs, size_t n, char *call, size_t calllen,
    struct runner_denial *d)
{
	size_t i;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(write(sv[1], recs[i], strlen(recs[i])),
		    (ssize_t)strlen(recs[i]));
	close(sv[1]);
	memset(d, 0, sizeof(*d));
	ck_assert_int_eq(
	    runner_seccomp_culprit(sv[0], 65534, 100, call, calllen, d), 0);
	close(sv[0]);
}

/* The SIGSYS path: the culprit is read from kernel log records. */
START_TEST(test_seccomp_kill_in_the_log_becomes_a_denial)
{
	static const char *const recs[] = {
		/* Another uid's kill, and an older process's: not ours. */
		"6,1,2,-;audit: type=1326 audit(1.2:3): auid=0 uid=1000 "
		"gid=0 ses=1 pid=900 comm=\"x\" exe=\"/x\" sig=31 "
		"arch=40000003 syscall=20 compat=1 ip=0x0 code=0x80000000",
		"6,2,2,-;audit: type=1326 audit(1.2:3): auid=0 uid=65534 "
		"gid=0 ses=1 pid=10 comm=\"x\" exe=\"/x\" sig=31 "
		"arch=40000003 syscall=20 compat=1 ip=0x0 code=0x80000000",
		"6,3,2,-;audit: type=1326 audit(1.2:3): auid=0 uid=65534 "
		"gid=0 ses=1 pid=901 comm=\"x\" exe=\"/x\" sig=31 "
		"arch=40000003 syscall=20 compat=1 ip=0x0 code=0x80000000",
	};
	struct runner_denial d;
	char call[96];

	culprit_of(
	    recs, sizeof(recs) / sizeof(recs[0]), call, sizeof(call), &d);
	ck_assert_ptr_nonnull(strstr(call, "i386 ABI system call 20"));
	ck_assert_int_eq(d.layer, RUNNER_DENY_SYSCALL);
	ck_assert_str_eq(d.source, "seccomp");
	ck_assert_str_eq(d.syscall, "i386:getpid");
	ck_assert_int_eq(d.nr, 20);
}
END_TEST

/*
 * A kill of a call newer than libseccomp from a foreign ABI is named
 * from the common table, as natively: the i386 and x32 ABIs number the
 * calls from 424 on alike (x32 with __X32_SYSCALL_BIT).
 */
static const struct {
	const char *arch; /* as the audit record prints it */
	long nr;
	const char *call, *syscall;
} newer_kill_rows[] = {
	{ "c000003e", 0x40000000L + 458,
	    "x32 ABI system call 1073742282 (listmount)", "x32:listmount" },
	{ "c000003e", 0x40000000L + 467, "(open_tree_attr)",
	    "x32:open_tree_attr" },
	{ "40000003", 457, "i386 ABI system call 457 (statmount)",
	    "i386:statmount" },
	{ "40000003", 469, "(file_setattr)", "i386:file_setattr" },
	{ "c000003e", 0x40000000L + 39, "(getpid)", "x32:getpid" },
	{ "40000003", 20, "(getpid)", "i386:getpid" },
};

START_TEST(test_seccomp_kill_of_a_newer_foreign_call_is_named)
{
	struct runner_denial d;
	char rec[512], call[96];
	const char *recs[1] = { rec };

	snprintf(rec, sizeof(rec),
	    "6,1,2,-;audit: type=1326 audit(1.2:3): auid=0 uid=65534 "
	    "gid=0 ses=1 pid=901 comm=\"x\" "
	    "exe=\"/x\" sig=31 arch=%s syscall=%ld compat=1 ip=0x0 "
	    "code=0x80000000",
	    newer_kill_rows[_i].arch, newer_kill_rows[_i].nr);
	culprit_of(recs, 1, call, sizeof(call), &d);
	ck_assert_msg(strstr(call, newer_kill_rows[_i].call) != NULL,
	    "%s: hint %s", newer_kill_rows[_i].syscall, call);
	ck_assert_str_eq(d.syscall, newer_kill_rows[_i].syscall);
}
END_TEST

static char *
make_ws(void)
{
	char *ws = strdup("/tmp/airlock-unit-XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(ws));
	ck_assert_int_eq(chmod(ws, 0777), 0);
	return ws;
}

static void
rm_ws(char *ws)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ws);
	(void)!system(cmd);
	free(ws);
}

/* keyctl(0) through python: prints the errno name it got. */
#define KEYCTL_PY \
	"import ctypes,errno;l=ctypes.CDLL(None,use_errno=True);" \
	"r=l.syscall(250,0,0,0,0,0);" \
	"print(errno.errorcode.get(ctypes.get_errno(),'ok') if r<0 else 'ok')"

static int
run_py(const char *const *allow, size_t nallow, struct runner_result *res)
{
	char *const argv[] = { "python3", "-c", KEYCTL_PY, NULL };
	struct sandbox_policy sp;
	struct runner_request req;
	char *ws = make_ws();
	int rc;

	sandbox_policy_init_defaults(&sp);
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.workspace = ws;
	req.policy = &sp;
	req.stdin_fd = -1;
	req.allow_syscalls = allow;
	req.nallow_syscalls = nallow;
	rc = runner_run(&req, res);
	sandbox_policy_free_arrays(&sp);
	rm_ws(ws);
	return rc;
}

START_TEST(test_refused_call_is_recorded_and_sees_eperm)
{
	struct runner_result res;

	ck_assert_int_eq(run_py(NULL, 0, &res), 0);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_str_eq(res.out, "EPERM\n");
	ck_assert_uint_eq(res.ndenials, 1);
	ck_assert_int_eq(res.denials[0].layer, RUNNER_DENY_SYSCALL);
	ck_assert_str_eq(res.denials[0].syscall, "keyctl");
	ck_assert_str_eq(res.denials[0].source, "seccomp");
	ck_assert_int_eq(res.denials[0].nr, 250);
	runner_result_clear(&res);
}
END_TEST

START_TEST(test_allowed_call_for_one_run_goes_through)
{
	const char *allow[] = { "keyctl" };
	struct runner_result res;

	ck_assert_int_eq(run_py(allow, 1, &res), 0);
	ck_assert_int_eq(res.exit_code, 0);
	/* The kernel's own answer to keyctl(0, 0): not EPERM. */
	ck_assert_str_ne(res.out, "EPERM\n");
	ck_assert_uint_eq(res.ndenials, 0);
	runner_result_clear(&res);
	/* And the next run is back to the deny list. */
	ck_assert_int_eq(run_py(NULL, 0, &res), 0);
	ck_assert_str_eq(res.out, "EPERM\n");
	runner_result_clear(&res);
}
END_TEST

START_TEST(test_bad_allowance_fails_closed)
{
	const char *allow[] = { "keyctl", "openat" };
	struct runner_result res;

	ck_assert_int_lt(run_py(allow, 2, &res), 0);
	ck_assert_int_eq(res.setup_failed, 1);
	ck_assert_ptr_nonnull(strstr(res.setup_error, "openat"));
	ck_assert_ptr_null(res.out);
	runner_result_clear(&res);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("denials");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_list_dedups_in_order_of_first_occurrence);
	tcase_add_test(tc, test_list_is_capped);
	tcase_add_test(tc, test_format_one_line_per_layer);
	tcase_add_test(tc, test_retarget_rewrites_only_returns);
	tcase_add_test(tc, test_the_real_program_has_eperm_returns_to_notify);
	tcase_add_test(tc, test_allow_accepts_only_deny_list_names);
	tcase_add_test(tc, test_seccomp_kill_in_the_log_becomes_a_denial);
	tcase_add_loop_test(tc,
	    test_seccomp_kill_of_a_newer_foreign_call_is_named, 0,
	    (int)(sizeof(newer_kill_rows) / sizeof(newer_kill_rows[0])));
	tcase_add_test(tc, test_fs_each_message_form);
	tcase_add_test(tc, test_fs_allowed_or_missing_gives_nothing);
	tcase_add_test(tc, test_fs_never_wider_than_the_named_path);
	tcase_add_test(tc, test_fs_normalize);
	tcase_add_test(tc, test_refused_call_is_recorded_and_sees_eperm);
	tcase_add_test(tc, test_allowed_call_for_one_run_goes_through);
	tcase_add_test(tc, test_bad_allowance_fails_closed);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
