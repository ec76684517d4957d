/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The runner library: the compiled seccomp program (run through a small
 * classic-BPF interpreter, table-driven, including the foreign ABIs this
 * machine's kernel cannot even enter), and captured runs.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/sandbox_defaults.h"
#include "runner/runner.h"
#include "policy/syscalls.h"
#include "runner/runner_int.h"

/* Runs |prog| on seccomp_data; returns the SECCOMP_RET_* value. */
static uint32_t
bpf_run(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	const unsigned char *data = (const unsigned char *)d;
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS];
	unsigned pc = 0;

	memset(M, 0, sizeof(M));
	while (pc < prog->len) {
		const struct sock_filter *f = &prog->filter[pc++];

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			ck_assert_uint_le(f->k + 4, sizeof(*d));
			memcpy(&A, data + f->k, 4);
			break;
		case BPF_LD | BPF_MEM:
			A = M[f->k];
			break;
		case BPF_LDX | BPF_MEM:
			X = M[f->k];
			break;
		case BPF_ST:
			M[f->k] = A;
			break;
		case BPF_STX:
			M[f->k] = X;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			A &= f->k;
			break;
		case BPF_ALU | BPF_OR | BPF_K:
			A |= f->k;
			break;
		case BPF_MISC | BPF_TAX:
			X = A;
			break;
		case BPF_MISC | BPF_TXA:
			A = X;
			break;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += A == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += A > f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += A >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (A & f->k) ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			ck_abort_msg("unsupported BPF opcode %#x", f->code);
		}
	}
	ck_abort_msg("BPF program fell off the end");
	return 0;
}

#define KILL	SECCOMP_RET_KILL_PROCESS
#define ALLOW	SECCOMP_RET_ALLOW
#define EPERM_	(SECCOMP_RET_ERRNO | EPERM)
#define ENOSYS_	(SECCOMP_RET_ERRNO | ENOSYS)

struct bpf_row {
	uint32_t	 arch;
	const char	*syscall;	/* resolved for |arch|, or "#NR" */
	uint32_t	 nr_bits;	/* ORed into the number (x32) */
	uint64_t	 a0, a1;
	uint32_t	 want;
};

static const struct bpf_row bpf_rows[] = {
	{ AUDIT_ARCH_X86_64, "read", 0, 0, 0, ALLOW },
	{ AUDIT_ARCH_X86_64, "execve", 0, 0, 0, ALLOW },
	{ AUDIT_ARCH_X86_64, "ptrace", 0, 0, 0, EPERM_ },
	{ AUDIT_ARCH_X86_64, "mount", 0, 0, 0, EPERM_ },
	{ AUDIT_ARCH_X86_64, "bpf", 0, 0, 0, EPERM_ },
	{ AUDIT_ARCH_X86_64, "io_uring_setup", 0, 0, 0, EPERM_ },
	{ AUDIT_ARCH_X86_64, "clone3", 0, 0, 0, ENOSYS_ },
	{ AUDIT_ARCH_X86_64, "clone", 0, 0x11, 0, ALLOW },
	{ AUDIT_ARCH_X86_64, "clone", 0, 0x10000011, 0, EPERM_ },
	{ AUDIT_ARCH_X86_64, "ioctl", 0, 0, 0x5412, EPERM_ },
	{ AUDIT_ARCH_X86_64, "ioctl", 0, 0, 0xffffffff00005412ULL, EPERM_ },
	{ AUDIT_ARCH_X86_64, "ioctl", 0, 0, 0x5401, ALLOW },
	{ AUDIT_ARCH_X86_64, "socket", 0, 16, 0, EPERM_ },
	{ AUDIT_ARCH_X86_64, "socket", 0, 2, 0, ALLOW },
	{ AUDIT_ARCH_X86_64, "personality", 0, 0xffffffff, 0, ALLOW },
	{ AUDIT_ARCH_X86_64, "personality", 0, 0x40000, 0, EPERM_ },
	/* Calls newer than libseccomp 2.5.4 (resolved by the runner). */
	{ AUDIT_ARCH_X86_64, "listmount", 0, 0, 0, EPERM_ },
	{ AUDIT_ARCH_X86_64, "statmount", 0, 0, 0, EPERM_ },
	{ AUDIT_ARCH_X86_64, "open_tree_attr", 0, 0, 0, EPERM_ },
	{ AUDIT_ARCH_X86_64, "mseal", 0, 0, 0, ALLOW },
	{ AUDIT_ARCH_X86_64, "file_setattr", 0, 0, 0, ALLOW },
	/* Past the audited table (file_setattr, 469): ENOSYS. */
	{ AUDIT_ARCH_X86_64, "#470", 0, 0, 0, ENOSYS_ },
	{ AUDIT_ARCH_X86_64, "#501", 0, 0, 0, ENOSYS_ },
	/* x32 numbers through the 64-bit entry: killed. */
	{ AUDIT_ARCH_X86_64, "getpid", 0x40000000, 0, 0, KILL },
	{ AUDIT_ARCH_X86_64, "read", 0x40000000, 0, 0, KILL },
	{ AUDIT_ARCH_X86_64, "ptrace", 0x40000000, 0, 0, KILL },
	/* i386 (int 0x80): every call killed, even harmless ones. */
	{ AUDIT_ARCH_I386, "getpid", 0, 0, 0, KILL },
	{ AUDIT_ARCH_I386, "read", 0, 0, 0, KILL },
	{ AUDIT_ARCH_I386, "ptrace", 0, 0, 0, KILL },
	{ AUDIT_ARCH_I386, "mount", 0, 0, 0, KILL },
	{ AUDIT_ARCH_I386, "socketcall", 0, 0, 0, KILL },
};

START_TEST(test_compiled_filter_gives_each_row_its_action)
{
	const struct bpf_row *r = &bpf_rows[_i];
	const struct sock_fprog *prog;
	struct sandbox_policy sp;
	struct seccomp_data d;
	char err[256];
	int nr;

	sandbox_policy_init_defaults(&sp);
	prog = runner_seccomp_program(&sp, err, sizeof(err));
	ck_assert_msg(prog != NULL, "%s", err);
	if (r->syscall[0] == '#')
		nr = atoi(r->syscall + 1);
	else if (r->arch == AUDIT_ARCH_I386)
		nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86,
		    r->syscall);
	else
		nr = syscalls_resolve(r->syscall);
	ck_assert_int_ge(nr, 0);
	memset(&d, 0, sizeof(d));
	d.arch = r->arch;
	d.nr = nr | r->nr_bits;
	d.args[0] = r->a0;
	d.args[1] = r->a1;
	ck_assert_msg(bpf_run(prog, &d) == r->want,
	    "%s (arch %#x, nr %#x): got %#x, want %#x", r->syscall, r->arch,
	    d.nr, bpf_run(prog, &d), r->want);
	sandbox_policy_free_arrays(&sp);
}
END_TEST

/*
 * The programs compiled at build time (tools/seccomp_gen) are what
 * libseccomp gives now, instruction for instruction, and are the ones in
 * use: a stale one would enforce an old policy.
 */
START_TEST(test_prebuilt_filter_is_a_fresh_compile)
{
	static const enum seccomp_profile profiles[] = {
		SECCOMP_PROFILE_DEFAULT, SECCOMP_PROFILE_STRICT
	};
	const struct sock_fprog *prog;
	struct sock_fprog *fresh;
	struct sandbox_policy sp;
	char err[256];

	sandbox_policy_init_defaults(&sp);
	sp.seccomp = profiles[_i % 2];
	sp.host_writes = _i >= 2;
	prog = runner_seccomp_program(&sp, err, sizeof(err));
	ck_assert_msg(prog != NULL, "%s", err);
	ck_assert_msg(runner_seccomp_is_prebuilt(prog),
	    "the build-time program is not in use");
	fresh = runner_seccomp_program_allowing(&sp, NULL, 0, err,
	    sizeof(err));
	ck_assert_msg(fresh != NULL, "%s", err);
	ck_assert_uint_eq(prog->len, fresh->len);
	ck_assert(memcmp(prog->filter, fresh->filter,
	    prog->len * sizeof(*prog->filter)) == 0);
	runner_seccomp_program_free(fresh);
	sandbox_policy_free_arrays(&sp);
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

static int
run_sh(const char *script, size_t cap, int64_t timeout,
    struct runner_result *res)
{
	char *const argv[] = { "sh", "-c", (char *)script, NULL };
	struct sandbox_policy sp;
	struct runner_request req;
	char *ws = make_ws();
	int rc;

	sandbox_policy_init_defaults(&sp);
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.workspace = ws;
	req.policy = &sp;
	req.timeout_ms = timeout;
	req.output_cap = cap;
	req.stdin_fd = -1;
	rc = runner_run(&req, res);
	sandbox_policy_free_arrays(&sp);
	rm_ws(ws);
	return rc;
}

START_TEST(test_run_captures_stdout_and_stderr_separately)
{
	struct runner_result res;

	ck_assert_int_eq(run_sh("echo out; echo err >&2; exit 3", 0, 0,
	    &res), 0);
	ck_assert_int_eq(res.exited, 1);
	ck_assert_int_eq(res.exit_code, 3);
	ck_assert_str_eq(res.out, "out\n");
	ck_assert_str_eq(res.err, "err\n");
	ck_assert_int_eq(res.truncated, 0);
	ck_assert(res.layers & RUNNER_LAYER_SECCOMP);
	ck_assert(res.layers & RUNNER_LAYER_USERNS);
	runner_result_clear(&res);
}
END_TEST

START_TEST(test_run_truncates_output_at_the_cap_and_drains_the_rest)
{
	struct runner_result res;

	ck_assert_int_eq(run_sh("head -c 1000000 /dev/zero | tr '\\0' x; "
	    "echo done >&2", 1000, 0, &res), 0);
	ck_assert_int_eq(res.exited, 1);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_uint_le(res.out_len + res.err_len, 1000);
	ck_assert_int_eq(res.truncated, 1);
	runner_result_clear(&res);
}
END_TEST

START_TEST(test_run_explains_a_read_only_denial)
{
	struct runner_result res;

	ck_assert_int_eq(run_sh("echo x > /usr/evil", 0, 0, &res), 0);
	ck_assert_int_ne(res.exit_code, 0);
	ck_assert_ptr_nonnull(strstr(res.hint,
	    "this may be blocked by the sandbox, not a command error"));
	ck_assert_ptr_nonnull(strstr(res.hint, "EROFS"));
	runner_result_clear(&res);
}
END_TEST

START_TEST(test_run_kills_the_tree_at_the_deadline)
{
	struct runner_result res;

	ck_assert_int_eq(run_sh("sleep 30 & sleep 30", 0, 200, &res), 0);
	ck_assert_int_eq(res.timed_out, 1);
	ck_assert_int_eq(res.signal, SIGKILL);
	ck_assert_int_lt(res.duration_ms, 5000);
	ck_assert_ptr_nonnull(strstr(res.hint, "wall-clock limit"));
	runner_result_clear(&res);
}
END_TEST

START_TEST(test_setup_failure_is_reported_not_run)
{
	char *const argv[] = { "true", NULL };
	struct sandbox_policy sp;
	struct runner_request req;
	struct runner_result res;
	char *ws = make_ws();

	sandbox_policy_init_defaults(&sp);
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.workspace = ws;
	req.cwd = "no/such/dir";
	req.policy = &sp;
	req.stdin_fd = -1;
	ck_assert_int_eq(runner_run(&req, &res), 0);
	ck_assert_int_eq(res.setup_failed, 1);
	ck_assert_int_eq(res.exited, 0);
	ck_assert_ptr_nonnull(strstr(res.setup_error, "chdir"));
	ck_assert_ptr_nonnull(strstr(res.setup_error, "No such file"));
	ck_assert_uint_eq(res.layers, 0);
	runner_result_clear(&res);
	sandbox_policy_free_arrays(&sp);
	rm_ws(ws);
}
END_TEST

/*
 * An entry of sandbox_policy.exact (an escalation's widening, checked
 * just before the run) is bound only as it was checked: a symlink swapped
 * into its source since fails the run, and nothing is bound through it.
 */
static int
run_exact(const char *named, const char *src, struct runner_result *res)
{
	char script[512];
	char *argv[] = { "sh", "-c", script, NULL };
	struct sandbox_policy sp;
	struct runner_request req;
	struct exact_bind eb = { named, src };
	char **saved, *ro[2] = { (char *)named, NULL };
	size_t nsaved;
	char *ws = make_ws();
	int rc;

	snprintf(script, sizeof(script), "cat '%s'", named);
	sandbox_policy_init_defaults(&sp);
	saved = sp.read_only;
	nsaved = sp.nread_only;
	sp.read_only = ro;
	sp.nread_only = 1;
	sp.exact = &eb;
	sp.nexact = 1;
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.workspace = ws;
	req.policy = &sp;
	req.stdin_fd = -1;
	rc = runner_run(&req, res);
	sp.read_only = saved;
	sp.nread_only = nsaved;
	sandbox_policy_free_arrays(&sp);
	rm_ws(ws);
	return rc;
}

/*
 * The exact-bind test's directory: made before its test case's tests
 * are forked, removed after they end, whatever became of them.  A failed
 * check ends a forked test at once (_exit): neither the test's own
 * clean-up nor a checked fixture's teardown, which runs in the test's
 * process after it returns, runs then, and each failure left a
 * /var/tmp/airlock-exact-* behind.  An unchecked fixture runs in the
 * runner's own process, where the test's end does not reach.
 */
static char exact_dir[] = "/var/tmp/airlock-exact-XXXXXX";

static void
exact_dir_make(void)
{
	ck_assert_ptr_nonnull(mkdtemp(exact_dir));
	ck_assert_int_eq(chmod(exact_dir, 0755), 0);
}

static void
exact_dir_remove(void)
{
	char cmd[512];

	if (strstr(exact_dir, "XXXXXX") != NULL)
		return; /* never made */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", exact_dir);
	(void)!system(cmd);
}

START_TEST(test_exact_bind_follows_no_symlink)
{
	const char *dir = exact_dir;
	char path[256], src[256], cmd[512];
	struct runner_result res;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/real %s/secret && "
	    "echo REAL >%s/real/f && echo SECRET >%s/secret/f && "
	    "ln -s secret %s/link && chmod -R a+rX %s", dir, dir, dir, dir,
	    dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/real/f", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	fclose(f);

	/* As checked: bound, read. */
	ck_assert_int_eq(run_exact(path, path, &res), 0);
	ck_assert_int_eq(res.setup_failed, 0);
	ck_assert_str_eq(res.out, "REAL\n");
	runner_result_clear(&res);

	/* A symlink in the source since the check: the run fails closed. */
	snprintf(src, sizeof(src), "%s/link/f", dir);
	ck_assert_int_eq(run_exact(path, src, &res), 0);
	ck_assert_int_eq(res.setup_failed, 1);
	ck_assert_ptr_nonnull(strstr(res.setup_error, "no symlink followed"));
	ck_assert_ptr_null(strstr(res.out != NULL ? res.out : "", "SECRET"));
	runner_result_clear(&res);
}
END_TEST

START_TEST(test_async_api_runs_to_completion)
{
	char *const argv[] = { "sh", "-c", "echo async", NULL };
	struct sandbox_policy sp;
	struct runner_request req;
	struct runner_result res;
	struct runner_proc *p;
	char *ws = make_ws(), err[256];
	int rc, steps = 0;

	sandbox_policy_init_defaults(&sp);
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.workspace = ws;
	req.policy = &sp;
	req.stdin_fd = -1;
	ck_assert_int_eq(runner_start(&req, &p, err, sizeof(err)), 0);
	ck_assert_int_ge(runner_proc_fd(p), 0);
	ck_assert(runner_proc_deadline(p) == INT64_MAX);
	while ((rc = runner_proc_step(p)) == 0 && steps++ < 100000)
		usleep(100);
	ck_assert_int_eq(rc, 1);
	ck_assert_int_eq(runner_proc_finish(p, &res), 0);
	ck_assert_str_eq(res.out, "async\n");
	runner_result_clear(&res);
	sandbox_policy_free_arrays(&sp);
	rm_ws(ws);
}
END_TEST

START_TEST(test_only_kept_fds_reach_the_command)
{
	char *const argv[] = { "sh", "-c",
	    "echo kept >&9; echo kept; ls /proc/self/fd | sort -n | "
	    "tr '\\n' ' '", NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", "MARK=1", NULL };
	struct sandbox_policy sp;
	struct runner_request req;
	struct runner_result res;
	char *ws = make_ws(), buf[16];
	int kept[2], leaked[2], keep[1];
	ssize_t n;

	ck_assert_int_eq(pipe(kept), 0);
	ck_assert_int_eq(pipe(leaked), 0);	/* not close-on-exec */
	ck_assert_int_eq(dup2(kept[1], 9), 9);
	keep[0] = 9;
	sandbox_policy_init_defaults(&sp);
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.envp = envp;
	req.workspace = ws;
	req.policy = &sp;
	req.stdin_fd = -1;
	req.keep_fds = keep;
	req.nkeep_fds = 1;
	ck_assert_int_eq(runner_run(&req, &res), 0);
	ck_assert_int_eq(res.exit_code, 0);
	/* 0, 1, 2, the directory ls itself opens (3), and the kept 9:
	 * not the two ends of |leaked|, although they lack FD_CLOEXEC. */
	ck_assert_str_eq(res.out, "kept\n0 1 2 3 9 ");
	(void)leaked;
	close(9);
	close(kept[1]);
	n = read(kept[0], buf, sizeof(buf) - 1);
	ck_assert_int_eq(n, 5);
	close(leaked[0]);
	close(leaked[1]);
	runner_result_clear(&res);
	sandbox_policy_free_arrays(&sp);
	rm_ws(ws);
}
END_TEST

/* A kernel of an older landlock ABI is told what it leaves out. */
START_TEST(test_landlock_missing_names_what_an_abi_lacks)
{
	char buf[256];

	ck_assert_int_eq(runner_landlock_missing(0, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "the kernel has no landlock: the runner runs "
	    "without it");
	ck_assert_int_eq(runner_landlock_missing(2, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "the kernel's landlock ABI is 2: no landlock "
	    "rule for truncate, TCP bind and connect, ioctl on devices, the "
	    "abstract unix socket and signal scopes");
	ck_assert_int_eq(runner_landlock_missing(5, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "the kernel's landlock ABI is 5: no landlock "
	    "rule for the abstract unix socket and signal scopes");
	ck_assert_int_eq(runner_landlock_missing(6, buf, sizeof(buf)), 0);
	ck_assert_int_eq(runner_landlock_missing(7, buf, sizeof(buf)), 0);
	ck_assert_int_eq(runner_landlock_missing(1, buf, 8), 1);
	ck_assert_str_eq(buf, "the ker");
}
END_TEST

START_TEST(test_layers_string_names_layers)
{
	char buf[64];

	runner_layers_string(RUNNER_LAYER_SECCOMP | RUNNER_LAYER_LANDLOCK,
	    buf, sizeof(buf));
	ck_assert_str_eq(buf, "seccomp,landlock");
	runner_layers_string(0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
}
END_TEST

/*
 * The idmap holder, a clone that shares our memory, reads only its own
 * pipe.  It used to take the pipe's descriptors from
 * runner_idmap_userns()'s stack, and when it first ran after that
 * function had returned (on a loaded machine), it closed and read
 * whatever numbers had been written there since: a read of one byte
 * takes a whole message off a SEQPACKET socket, and airlock exec waited
 * for ever for the audit writer's answer the holder had eaten
 * (cgroup_v1_born.sh hung about once in 40 runs under load).  Made
 * certain here: at SCHED_FIFO on one CPU the holder, FIFO too, runs only
 * once we sleep, and before that the stack below us is filled with the
 * numbers of two sockets, each with a message waiting.  Both messages
 * must still be there.
 */
static void __attribute__((noinline))
fill_stack(int a, int b)
{
	volatile int fill[8192];
	size_t i;

	for (i = 0; i < sizeof(fill) / sizeof(fill[0]); i++)
		fill[i] = i % 2 == 0 ? a : b;
}

START_TEST(test_idmap_holder_reads_only_its_pipe)
{
	struct sched_param sp = { .sched_priority = 1 };
	int a[2], b[2], cpu;
	char buf[16];
	cpu_set_t one;

	ck_assert_int_ne(cpu = sched_getcpu(), -1);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == -1) {
		ck_assert_int_eq(errno, EPERM);
		fprintf(stderr, "# SKIP test_idmap_holder_reads_only_its_pipe: "
		    "SCHED_FIFO needs CAP_SYS_NICE\n");
		return;
	}
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
	    0, a), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
	    0, b), 0);
	ck_assert_int_eq(send(a[1], "answer-a", 8, 0), 8);
	ck_assert_int_eq(send(b[1], "answer-b", 8, 0), 8);
	ck_assert_int_ne(runner_idmap_userns(getuid(), getgid(), 65534,
	    65534), -1);
	fill_stack(a[0], b[0]);
	/* The holder runs now, and exits once it has read its pipe's end. */
	usleep(300000);
	ck_assert_int_eq(recv(a[0], buf, sizeof(buf), MSG_DONTWAIT), 8);
	ck_assert_int_eq(recv(b[0], buf, sizeof(buf), MSG_DONTWAIT), 8);
}
END_TEST

/* How each kind of run sees the workspace (plan_ws_view()): only the
 * agent's sandbox and a writable run with no change set bind it live,
 * where a denied path must be an existing directory (plan_deny_live()). */
static const struct {
	int live, upper, lower_upper, ro_req, ro_policy, cow;
	enum plan_ws_view view;
} ws_rows[] = {
	/* The agent's sandbox, ro or rw. */
	{ 1, 0, 0, 0, 1, 0, PLAN_WS_LIVE },
	{ 1, 0, 0, 0, 0, 0, PLAN_WS_LIVE },
	/* A copy-on-write agent: its session's layer. */
	{ 1, 1, 1, 0, 0, 0, PLAN_WS_OVERLAY },
	/* A runner with a change set; a cow one with none. */
	{ 0, 1, 0, 0, 0, 0, PLAN_WS_OVERLAY },
	{ 0, 0, 0, 0, 0, 1, PLAN_WS_OVERLAY },
	/* A sideEffect: none tool, a read-only manifest. */
	{ 0, 0, 0, 1, 0, 0, PLAN_WS_OVERLAY_RO },
	{ 0, 0, 0, 0, 1, 0, PLAN_WS_OVERLAY_RO },
	/* sandbox.workspace: direct with no change set. */
	{ 0, 0, 0, 0, 0, 0, PLAN_WS_LIVE },
};

START_TEST(test_workspace_view_of_each_kind_of_run)
{
	struct sandbox_policy sp;
	struct runner_plan pl;

	memset(&sp, 0, sizeof(sp));
	memset(&pl, 0, sizeof(pl));
	sp.workspace = ws_rows[_i].cow ? WORKSPACE_COW : WORKSPACE_DIRECT;
	sp.workspace_readonly = ws_rows[_i].ro_policy;
	pl.policy = &sp;
	pl.live_workspace = ws_rows[_i].live;
	pl.upper_fd = -1;
	pl.upper_dir = ws_rows[_i].upper ? "/state/upper" : NULL;
	pl.lower_upper = ws_rows[_i].lower_upper ? "/state/layer" : NULL;
	pl.workspace_readonly = ws_rows[_i].ro_req;
	ck_assert_int_eq(plan_ws_view(&pl), ws_rows[_i].view);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("runner");
	TCase *tc = tcase_create("core");
	TCase *exact = tcase_create("exact");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_compiled_filter_gives_each_row_its_action,
	    0, sizeof(bpf_rows) / sizeof(bpf_rows[0]));
	tcase_add_loop_test(tc, test_prebuilt_filter_is_a_fresh_compile, 0,
	    4);
	tcase_add_loop_test(tc, test_workspace_view_of_each_kind_of_run, 0,
	    sizeof(ws_rows) / sizeof(ws_rows[0]));
	tcase_add_test(tc, test_run_captures_stdout_and_stderr_separately);
	tcase_add_test(tc,
	    test_run_truncates_output_at_the_cap_and_drains_the_rest);
	tcase_add_test(tc, test_run_explains_a_read_only_denial);
	tcase_add_test(tc, test_run_kills_the_tree_at_the_deadline);
	tcase_add_test(tc, test_setup_failure_is_reported_not_run);
	tcase_add_test(tc, test_async_api_runs_to_completion);
	tcase_add_test(tc, test_layers_string_names_layers);
	tcase_add_test(tc, test_landlock_missing_names_what_an_abi_lacks);
	tcase_add_test(tc, test_only_kept_fds_reach_the_command);
	tcase_add_test(tc, test_idmap_holder_reads_only_its_pipe);
	suite_add_tcase(s, tc);
	tcase_set_timeout(exact, 30);
	tcase_add_unchecked_fixture(exact, exact_dir_make, exact_dir_remove);
	tcase_add_test(exact, test_exact_bind_follows_no_symlink);
	suite_add_tcase(s, exact);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
