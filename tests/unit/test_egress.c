/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * broker/egress.c against a real proxy process: a sandbox floods the
 * proxy with refused connections while the broker is not reading (a
 * long call, the end of the session), until the proxy blocks on its
 * full event pipe.  egress_free() must still return, and every refusal
 * the sandbox was told about must be in the audit log.  Before the fix
 * the broker waited for a proxy that was waiting for it: the session
 * never ended and its session_end was never written.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "broker/audit.h"
#include "broker/egress.h"
#include "broker/loop.h"
#include "common/util.h"
#include "proxy/ipc.h"
#include "tests/proxy_testsrv.h"
#include "tests/unit/scratch.h"

/* Refused connections tried at most; a few hundred fill a pipe. */
#define FLOOD_MAX	3000

/*
 * The sandbox: a network namespace of its own, its listener handed to
 * the broker, then one refused CONNECT after another until one gets no
 * answer within 3 s (the proxy is stuck writing its event).  Writes
 * "ANSWERED STUCK" on |sock| and exits.
 */
static void __attribute__((noreturn))
sandbox_flood(int sock)
{
	char req[160], resp[1024], msg[64], go;
	uint16_t port;
	int lfd, fd, answered = 0, stuck = 0;

	if (unshare(CLONE_NEWNET) == -1 || proxy_lo_up() != 0 ||
	    (lfd = proxy_listener_in_current_netns(&port)) < 0 ||
	    proxy_send_fd(sock, lfd, &port, sizeof(port)) != 0)
		_exit(2);
	close(lfd);
	if (read(sock, &go, 1) != 1)
		_exit(2);
	while (answered < FLOOD_MAX && !stuck) {
		if ((fd = testsrv_connect("127.0.0.1", port)) == -1)
			_exit(3);
		snprintf(req, sizeof(req), "CONNECT refused-%d.example.com:443 "
		    "HTTP/1.1\r\n\r\n", answered);
		if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0)
			_exit(3);
		if (testsrv_read_all(fd, resp, sizeof(resp) - 1, 3000) > 0 &&
		    strstr(resp, " 403 ") != NULL)
			answered++;
		else
			stuck = 1;
		close(fd);
	}
	snprintf(msg, sizeof(msg), "%d %d", answered, stuck);
	(void)!write(sock, msg, strlen(msg) + 1);
	_exit(0);
}

/* Counts the lines of |path| that hold |needle|. */
static int
count_lines(const char *path, const char *needle)
{
	char line[8192];
	FILE *fp;
	int n = 0;

	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strstr(line, needle) != NULL)
			n++;
	fclose(fp);
	return n;
}

START_TEST(test_free_returns_with_the_proxy_stuck_on_a_full_pipe)
{
	char *hosts[] = { "allowed.example.com:443", NULL };
	struct net_allow allow = { hosts, 1, &hosts[1], 0 };
	char logpath[256], err[256], msg[64];
	struct loop *loop;
	struct audit *a;
	struct egress *e;
	int sv[2], status, answered, stuck, records;
	int64_t t0, took;
	pid_t child;
	ssize_t n;

	snprintf(logpath, sizeof(logpath), "%s/audit.jsonl", scratch_dir);
	ck_assert_ptr_nonnull(loop = loop_new());
	ck_assert_int_eq(audit_open(logpath, "egress-test", &a), 0);
	ck_assert_ptr_nonnull(e = egress_new(loop, a));
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
	if ((child = fork()) == 0) {
		close(sv[0]);
		sandbox_flood(sv[1]);
	}
	ck_assert_int_gt(child, 0);
	close(sv[1]);
	ck_assert_msg(egress_attach(e, sv[0], "sbx-flood", &allow, err,
	    sizeof(err)) == 0, "egress_attach: %s", err);
	ck_assert_int_eq(write(sv[0], "g", 1), 1);

	/* The loop never runs: nothing reads the proxy's events. */
	n = read(sv[0], msg, sizeof(msg) - 1);
	ck_assert_int_gt(n, 0);
	msg[n] = '\0';
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(sscanf(msg, "%d %d", &answered, &stuck), 2);
	/* The attack worked: the proxy stopped answering, its pipe full. */
	ck_assert_msg(stuck == 1, "the proxy answered all %d", answered);
	/* Some 190 events fill the pipe's 64 KiB: stuck any sooner, the
	 * proxy was slow, not blocked. */
	ck_assert_int_gt(answered, 150);
	fprintf(stderr, "the proxy stopped answering after %d refusals\n",
	    answered);

	t0 = now_monotonic_ms();
	egress_free(e);
	took = now_monotonic_ms() - t0;
	/* Drained, not killed: it stops as soon as it can write. */
	ck_assert_msg(took < 4000, "egress_free took %lld ms",
	    (long long)took);
	close(sv[0]);
	ck_assert_int_eq(audit_end(a), 0);
	audit_close(a);
	loop_free(loop);

	/* Nothing the sandbox was told was refused is missing. */
	records = count_lines(logpath, "\"event\":\"egress\"");
	ck_assert_msg(records >= answered, "%d egress records for %d refusals",
	    records, answered);
	ck_assert_int_ge(count_lines(logpath, "refused-0.example.com"), 1);
	ck_assert_int_ge(count_lines(logpath, "\"event\":\"session_end\""), 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("egress");
	TCase *tc = tcase_create("free");
	SRunner *sr;
	int failed;

	scratch_prefix = "/tmp/airlock-egress";
	/* The old egress_free() never returned: the timeout fails it. */
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, scratch_make, scratch_remove);
	tcase_add_test(tc, test_free_returns_with_the_proxy_stuck_on_a_full_pipe);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
