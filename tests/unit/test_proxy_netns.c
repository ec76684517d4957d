/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The proxy wired the way the supervisor and runner will wire it: a
 * child in a fresh network namespace (only its own lo) creates the
 * listener, passes it out with SCM_RIGHTS, and the unprivileged proxy
 * process outside serves it.  From inside the netns the allowed loopback
 * server of the HOST namespace is reachable only through the proxy.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "proxy/ipc.h"
#include "proxy/proxy.h"
#include "tests/proxy_testsrv.h"

#define FAIL_ALLOWED	0x01
#define FAIL_DENIED	0x02
#define FAIL_DIRECT	0x04
#define FAIL_SETUP	0x08
#define FAIL_METADATA	0x10

/* Sends a request to the proxy listener inside the netns; returns the answer. */
static void
ask(uint16_t port, const char *req, char *out, size_t cap)
{
	int fd;

	out[0] = '\0';
	if ((fd = testsrv_connect("127.0.0.1", port)) == -1) {
		snprintf(out, cap, "connect to proxy: %s", strerror(errno));
		return;
	}
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
		close(fd);
		return;
	}
	(void)testsrv_read_all(fd, out, cap - 1, 5000);
	close(fd);
}

static void
add_diag(char *diag, size_t cap, const char *s)
{
	size_t n = strlen(diag);

	snprintf(diag + n, cap - n, "%.1000s\n", s);
}

/* The sandbox side; returns a FAIL_* mask, with details on |report|. */
static int
sandbox_child(int sock, uint16_t srv_port, int ns_flags)
{
	char req[256], resp[4096], diag[8192] = "";
	uint16_t port;
	int lfd, fd, fails = 0;
	char go;

	/* As root, or as the runner does it: a user namespace with it. */
	if (unshare(ns_flags) == -1 || proxy_lo_up() != 0)
		return FAIL_SETUP;
	if ((lfd = proxy_listener_in_current_netns(&port)) < 0)
		return FAIL_SETUP;
	if (proxy_send_fd(sock, lfd, &port, sizeof(port)) != 0)
		return FAIL_SETUP;
	close(lfd);
	if (read(sock, &go, 1) != 1)
		return FAIL_SETUP;

	/* (a) the allowed host-namespace server, through the proxy */
	snprintf(req, sizeof(req), "GET http://127.0.0.1:%u/hello HTTP/1.1\r\n"
	    "Host: x\r\n\r\n", srv_port);
	ask(port, req, resp, sizeof(resp));
	if (strstr(resp, "HTTP/1.1 200 OK") == NULL ||
	    strstr(resp, "hello from airlock test server") == NULL) {
		fails |= FAIL_ALLOWED;
		add_diag(diag, sizeof(diag), resp);
	}
	/* (b) a host outside the allowlist */
	ask(port, "CONNECT evil.example.com:443 HTTP/1.1\r\n\r\n", resp,
	    sizeof(resp));
	if (strstr(resp, "HTTP/1.1 403 Forbidden") == NULL ||
	    strstr(resp, "X-Airlock-Reason: host not in allowlist: "
	    "evil.example.com:443") == NULL) {
		fails |= FAIL_DENIED;
		add_diag(diag, sizeof(diag), resp);
	}
	/* ... and the metadata address, named as such */
	ask(port, "GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\n"
	    "Host: x\r\n\r\n", resp, sizeof(resp));
	if (strstr(resp, "X-Airlock-Reason: address 169.254.169.254 is cloud "
	    "metadata") == NULL) {
		fails |= FAIL_METADATA;
		add_diag(diag, sizeof(diag), resp);
	}
	/* (c) directly: this netns has only its own lo */
	fd = testsrv_connect("127.0.0.1", srv_port);
	if (fd != -1 || (errno != ECONNREFUSED && errno != ENETUNREACH)) {
		fails |= FAIL_DIRECT;
		snprintf(diag + strlen(diag), sizeof(diag) - strlen(diag),
		    "direct connect: fd %d errno %s\n", fd, strerror(errno));
	}
	if (write(sock, diag, strlen(diag) + 1) < 0)
		fails |= FAIL_SETUP;
	return fails;
}

static int
count_fds(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	/*
	 * Files a sanitizer runtime opens for itself (/proc/self/maps and the
	 * like) are not descriptors the proxy kept: count the rest.
	 */
	while ((de = readdir(d)) != NULL) {
		char link[384], target[256];
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", path, de->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = '\0';
			if (strncmp(target, "/proc/", 6) == 0)
				continue;
		}
		n++;
	}
	closedir(d);
	return n;
}

static int
proc_status_has(pid_t pid, const char *needle)
{
	char path[64], buf[4096];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* Fills kids[0..cap) with |pid|'s children; returns how many. */
static int
children_of(pid_t pid, pid_t *kids, int cap)
{
	char path[64];
	FILE *fp;
	long k;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)pid,
	    (long)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	while (n < cap && fscanf(fp, "%ld", &k) == 1)
		kids[n++] = (pid_t)k;
	fclose(fp);
	return n;
}

/* Is |pid| unprivileged and confined as the proxy is? */
static int
confined_as_proxy(pid_t pid)
{
	return proc_status_has(pid, "Uid:\t65533\t65533\t65533\t65533") &&
	    proc_status_has(pid, "NoNewPrivs:\t1")
#if !defined(__SANITIZE_ADDRESS__)
	    && proc_status_has(pid, "Seccomp:\t2")
#endif
	    ;
}

START_TEST(test_sandbox_reaches_allowed_host_only_through_proxy)
{
	struct proxy_limits lim;
	char ip_rule[64], err[256], diag[8192], events[16384];
	const char *allow[] = { "pypi.org:443", NULL };
	const char *allow_ip[] = { ip_rule, NULL };
	uint16_t srv_port, port;
	pid_t srv, px, child, kids[PROXY_RESOLVERS + 2];
	int evp[2], sv[2], ctl, lfd, status, i, j;
	size_t len;
	ssize_t n;

	ck_assert_int_gt(srv = testsrv_start(&srv_port, 30), 0);
	snprintf(ip_rule, sizeof(ip_rule), "127.0.0.1/32:%u", srv_port);
	ck_assert_int_eq(pipe(evp), 0);
	proxy_limits_default(&lim);
	ck_assert_int_gt(px = proxy_spawn(&lim, evp[1], &ctl, err,
	    sizeof(err)), 0);
	close(evp[1]);

	/* The proxy process runs unprivileged and confined. */
#if defined(__SANITIZE_ADDRESS__)
	for (i = 0; i < 500 && !proc_status_has(px, "NoNewPrivs:\t1"); i++)
#else
	for (i = 0; i < 500 && !proc_status_has(px, "Seccomp:\t2"); i++)
#endif
		usleep(20000);
	ck_assert_msg(proc_status_has(px, "Uid:\t65533\t65533\t65533\t65533"),
	    "proxy did not drop to uid 65533");
	ck_assert_msg(proc_status_has(px, "Gid:\t65533\t65533\t65533\t65533"),
	    "proxy did not drop to gid 65533");
	ck_assert(proc_status_has(px, "NoNewPrivs:\t1"));
#if !defined(__SANITIZE_ADDRESS__)
	ck_assert_msg(proc_status_has(px, "Seccomp:\t2"), "no seccomp filter");
#endif
	/*
	 * stdio, control socket, event pipe, one socket per resolver and
	 * one to the resolver keeper, once
	 * the proxy has settled (while it starts its resolvers a descriptor
	 * may be open for a moment; under a sanitizer and load that moment
	 * is long enough to be counted).
	 */
	for (i = 0; i < 500 && count_fds(px) > 6 + PROXY_RESOLVERS; i++)
		usleep(20000);
	ck_assert_int_le(count_fds(px), 6 + PROXY_RESOLVERS);

	/*
	 * Its one child, the resolver keeper (which may fork and kill), and
	 * the keeper's children, the resolvers, run unprivileged and
	 * confined too.
	 */
	ck_assert_int_eq(children_of(px, kids, 2), 1);
	/* The keeper forks them one by one (slowly under a sanitizer). */
	for (i = 0; i < 500 && children_of(kids[0], kids + 1,
	    PROXY_RESOLVERS + 1) < PROXY_RESOLVERS; i++)
		usleep(20000);
	ck_assert_int_eq(children_of(kids[0], kids + 1, PROXY_RESOLVERS + 1),
	    PROXY_RESOLVERS);
	for (j = 0; j <= PROXY_RESOLVERS; j++) {
		for (i = 0; i < 500 && !confined_as_proxy(kids[j]); i++)
			usleep(20000);
		ck_assert_msg(confined_as_proxy(kids[j]), "%s %ld is not "
		    "confined", j == 0 ? "the resolver keeper" : "resolver",
		    (long)kids[j]);
	}

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
	if ((child = fork()) == 0) {
		close(sv[0]);
		_exit(sandbox_child(sv[1], srv_port, _i == 0 ? CLONE_NEWNET :
		    CLONE_NEWUSER | CLONE_NEWNET));
	}
	ck_assert_int_gt(child, 0);
	close(sv[1]);
	ck_assert_int_eq(proxy_recv_fd(sv[0], &lfd, &port, sizeof(port), &len),
	    1);
	ck_assert_int_ge(lfd, 0);
	ck_assert_uint_eq(len, sizeof(port));
	ck_assert_int_eq(proxy_ctl_add(ctl, lfd, "sbx-1", allow, allow_ip, err,
	    sizeof(err)), 0);
	close(lfd);
	ck_assert_int_eq(write(sv[0], "g", 1), 1);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	n = read(sv[0], diag, sizeof(diag) - 1);
	diag[n > 0 ? n : 0] = '\0';
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "sandbox child failures 0x%x: %s", WEXITSTATUS(status), diag);

	/* Control protocol: duplicates, bad rules and removal. */
	ck_assert_int_eq(proxy_ctl_add(ctl, sv[0], "sbx-1", NULL, NULL, err,
	    sizeof(err)), AL_ERR_FORMAT);
	ck_assert_int_eq(proxy_ctl_add(ctl, sv[0], "sbx-2",
	    (const char *[]){ "*:443", NULL }, NULL, err, sizeof(err)),
	    AL_ERR_FORMAT);
	ck_assert_msg(strstr(err, "*:443") != NULL, "err: %s", err);
	ck_assert_int_eq(proxy_ctl_remove(ctl, "sbx-1"), 0);
	ck_assert_int_eq(proxy_ctl_remove(ctl, "sbx-1"), AL_ERR_NOT_FOUND);
	close(sv[0]);

	/* Closing the control socket stops the proxy. */
	close(ctl);
	ck_assert_int_eq(waitpid(px, &status, 0), px);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	n = read(evp[0], events, sizeof(events) - 1);
	events[n > 0 ? n : 0] = '\0';
	close(evp[0]);
	ck_assert_msg(strstr(events, "\"sandbox\":\"sbx-1\"") != NULL, "%s",
	    events);
	ck_assert_msg(strstr(events, "\"decision\":\"allow\"") != NULL, "%s",
	    events);
	ck_assert_msg(strstr(events, "\"reason\":\"host not in allowlist: "
	    "evil.example.com:443\"") != NULL, "%s", events);
	kill(-srv, SIGTERM);
	waitpid(srv, NULL, 0);
}
END_TEST

START_TEST(test_proxy_env_points_every_client_at_the_listener)
{
	char env[PROXY_ENV_COUNT][PROXY_ENV_LEN];
	const char *want[] = {
		"HTTP_PROXY=http://127.0.0.1:41234",
		"HTTPS_PROXY=http://127.0.0.1:41234",
		"ALL_PROXY=http://127.0.0.1:41234",
		"http_proxy=http://127.0.0.1:41234",
		"https_proxy=http://127.0.0.1:41234",
		"all_proxy=http://127.0.0.1:41234",
		"NO_PROXY=", "no_proxy=",
	};
	size_t i;

	proxy_env(41234, env);
	for (i = 0; i < PROXY_ENV_COUNT; i++)
		ck_assert_str_eq(env[i], want[i]);
	proxy_env(65535, env);
	ck_assert_str_eq(env[1], "HTTPS_PROXY=http://127.0.0.1:65535");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("proxy_netns");
	TCase *tc = tcase_create("netns");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 30);
	/* _i 0: netns only; _i 1: user namespace + netns */
	tcase_add_loop_test(tc,
	    test_sandbox_reaches_allowed_host_only_through_proxy, 0, 2);
	tcase_add_test(tc, test_proxy_env_points_every_client_at_the_listener);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
