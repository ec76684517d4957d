/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* The broker's denial store and classes (broker/denials.c). */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker/denials.h"
#include "common/util.h"
#include "policy/manifest.h"

static json_t *
egress_list(size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a,
		    json_pack("{s:s, s:i, s:s, s:s}", "host", "10.0.0.5",
			"port", (int)(1000 + i), "reason", "not allowed",
			"allowWith", "tools[0].allowAddresses (tool fetch)"));
	return a;
}

START_TEST(test_denials_build_numbers_network_refusals)
{
	json_t *e = egress_list(2), *l = denials_build(e, NULL), *d;

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(json_array_size(l), 2);
	d = json_array_get(l, 1);
	ck_assert_str_eq(json_string_value(json_object_get(d, "denial")), "d2");
	ck_assert_str_eq(
	    json_string_value(json_object_get(d, "layer")), "network");
	ck_assert_str_eq(
	    json_string_value(json_object_get(d, "source")), "proxy");
	ck_assert_int_eq(json_integer_value(json_object_get(d, "port")), 1001);
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(d, "hint")),
		"add \"10.0.0.5:1001\" to tools[0].allowAddresses"));
	json_decref(e);
	json_decref(l);
}
END_TEST

START_TEST(test_denials_build_runner_denials_first_with_manifest_hints)
{
	struct runner_result res;
	json_t *e = egress_list(1), *l, *d;

	memset(&res, 0, sizeof(res));
	res.denials[0].layer = RUNNER_DENY_FS;
	snprintf(res.denials[0].source, sizeof(res.denials[0].source), "mount");
	snprintf(res.denials[0].path, sizeof(res.denials[0].path), "/opt/d");
	snprintf(res.denials[0].access, sizeof(res.denials[0].access), "read");
	res.denials[1] = res.denials[0];
	snprintf(res.denials[1].access, sizeof(res.denials[1].access), "write");
	res.denials[2].layer = RUNNER_DENY_SYSCALL;
	snprintf(
	    res.denials[2].source, sizeof(res.denials[2].source), "seccomp");
	snprintf(
	    res.denials[2].syscall, sizeof(res.denials[2].syscall), "unshare");
	res.denials[2].nr = 272;
	res.denials[3].layer = RUNNER_DENY_LIMIT;
	snprintf(
	    res.denials[3].source, sizeof(res.denials[3].source), "cgroup");
	snprintf(res.denials[3].limit, sizeof(res.denials[3].limit), "memory");
	res.denials[3].value = 64;
	res.ndenials = 4;
	l = denials_build(e, &res);
	ck_assert_int_eq(json_array_size(l), 5);
	d = json_array_get(l, 0);
	ck_assert_str_eq(
	    json_string_value(json_object_get(d, "layer")), "filesystem");
	ck_assert_str_eq(
	    json_string_value(json_object_get(d, "path")), "/opt/d");
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(d, "hint")),
		"add \"/opt/d\" to sandbox.readOnly"));
	d = json_array_get(l, 1);
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(d, "hint")),
		"no manifest key allows a write outside the workspace"));
	d = json_array_get(l, 2);
	ck_assert_int_eq(json_integer_value(json_object_get(d, "nr")), 272);
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(d, "hint")),
		"add unshare to sandbox.allowSyscalls"));
	d = json_array_get(l, 3);
	ck_assert_int_eq(json_integer_value(json_object_get(d, "value")), 64);
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(d, "hint")),
		"sandbox.limits.memoryMb"));
	d = json_array_get(l, 4);
	ck_assert_str_eq(json_string_value(json_object_get(d, "denial")), "d5");
	ck_assert_str_eq(
	    json_string_value(json_object_get(d, "layer")), "network");
	json_decref(e);
	json_decref(l);
}
END_TEST

START_TEST(test_denials_build_is_bounded_and_null_when_none)
{
	json_t *e = egress_list(30), *l = denials_build(e, NULL), *empty;

	ck_assert_int_eq(json_array_size(l), DENIALS_PER_CALL);
	ck_assert_str_eq(
	    json_string_value(json_object_get(
		json_array_get(l, DENIALS_PER_CALL - 1), "denial")),
	    "d20");
	empty = json_array();
	ck_assert_ptr_null(denials_build(empty, NULL));
	ck_assert_ptr_null(denials_build(NULL, NULL));
	json_decref(e);
	json_decref(l);
	json_decref(empty);
}
END_TEST

START_TEST(test_denials_store_drops_the_oldest)
{
	struct denials *d = denials_new();
	json_t *e = egress_list(1), *l = denials_build(e, NULL), *args, *id;
	struct denial_call *dc;
	int i;

	args = json_pack("{s:s}", "target", "x");
	for (i = 1; i <= DENIALS_CALLS_MAX + 6; i++) {
		id = json_integer(i);
		denials_remember(d, id, "fetch", args, l);
		json_decref(id);
	}
	for (i = 1; i <= DENIALS_CALLS_MAX + 6; i++) {
		id = json_integer(i);
		dc = denials_find(d, id);
		if (i <= 6)
			ck_assert_ptr_null(dc);
		else {
			ck_assert_ptr_nonnull(dc);
			ck_assert_str_eq(dc->tool, "fetch");
			ck_assert(json_equal(dc->args, args));
			ck_assert_ptr_nonnull(denial_call_get(dc, "d1"));
			ck_assert_ptr_null(denial_call_get(dc, "d2"));
		}
		json_decref(id);
	}
	/* 7 and "7" are different request ids. */
	id = json_string("7");
	ck_assert_ptr_null(denials_find(d, id));
	json_decref(id);
	/* A call id used again replaces its entry. */
	id = json_integer(70);
	dc = denials_find(d, id);
	json_object_set_new(dc->used, "d1", json_true());
	denials_remember(d, id, "other", args, l);
	dc = denials_find(d, id);
	ck_assert_str_eq(dc->tool, "other");
	ck_assert_ptr_null(json_object_get(dc->used, "d1"));
	json_decref(id);
	denials_free(d);
	json_decref(args);
	json_decref(e);
	json_decref(l);
}
END_TEST

static const char manifest_text[] = "tools: []\n"
				    "sandbox:\n"
				    "  protected: [.git, \"secrets/*\"]\n"
				    "  denyRead: [/srv/private, /srv/slash/]\n";

static const struct {
	const char *layer, *access, *path;
	unsigned want;
} rows[] = {
	{ "network", NULL, NULL, ESCALATE_CLASS_NETWORK },
	/* A network row's path is its host: the cloud's metadata service
	 * hands out the machine's credentials, never widened. */
	{ "network", NULL, "169.254.169.254", ESCALATE_CLASS_PROTECTED },
	{ "network", NULL, "fd00:ec2::254", ESCALATE_CLASS_PROTECTED },
	{ "network", NULL, "::ffff:169.254.169.254", ESCALATE_CLASS_PROTECTED },
	{ "network", NULL, "168.63.129.16", ESCALATE_CLASS_PROTECTED },
	{ "network", NULL, "169.254.169.253", ESCALATE_CLASS_NETWORK },
	{ "network", NULL, "127.0.0.1", ESCALATE_CLASS_NETWORK },
	{ "network", NULL, "metadata.google.internal", ESCALATE_CLASS_NETWORK },
	{ "syscall", NULL, NULL, ESCALATE_CLASS_SYSCALL },
	{ "limit", NULL, NULL, ESCALATE_CLASS_LIMIT },
	{ "filesystem", "read", "/opt/data/x", ESCALATE_CLASS_READ },
	{ "filesystem", "exec", "/opt/tool/bin/t", ESCALATE_CLASS_READ },
	{ "filesystem", "write", "/var/cache/x", ESCALATE_CLASS_WRITE },
	{ "filesystem", "read", "/home/u/.sshx/f", ESCALATE_CLASS_READ },
	{ "filesystem", "read", "/w/.git/config", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/other/repo/.git", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/home/u/.ssh/id_ed25519",
	    ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "write", "/root/.aws/credentials",
	    ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/home/u/.netrc", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/home/u/.gnupg", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/home/u/.docker/config.json",
	    ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/home/u/.kube/config",
	    ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/srv/private/a", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/srv/privately", ESCALATE_CLASS_READ },
	{ "filesystem", "read", "/srv/slash/a", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "write", "/w/secrets/key", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/opt/../home/u/.ssh",
	    ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/opt/./x", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "relative/path", ESCALATE_CLASS_PROTECTED },
	/* The host's secrets, kernel interfaces and sockets. */
	{ "filesystem", "read", "/etc/shadow", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/etc/ssh/ssh_host_ed25519_key",
	    ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/var/run/docker.sock",
	    ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "write", "/run/user/1000/bus",
	    ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/proc/kcore", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "write", "/sys/kernel/x", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/dev/mem", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/tmp/.X11-unix/X0", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", "/etc/shadowy", ESCALATE_CLASS_READ },
	{ "filesystem", "read", "/tmp/state-w18b/sessions/s1/audit.jsonl",
	    ESCALATE_CLASS_PROTECTED },
	{ "filesystem", NULL, "/opt/data/x", ESCALATE_CLASS_PROTECTED },
	{ "filesystem", "read", NULL, ESCALATE_CLASS_PROTECTED },
	{ "bogus", NULL, NULL, ESCALATE_CLASS_PROTECTED },
	{ NULL, NULL, NULL, ESCALATE_CLASS_PROTECTED },
};

START_TEST(test_denials_class_table)
{
	struct manifest *m;
	char err[256];
	size_t i;

	setenv("AIRLOCK_STATE_DIR", "/tmp/state-w18b", 1);
	ck_assert_int_eq(manifest_load_buffer("t.yaml", manifest_text,
			     strlen(manifest_text), &m, err, sizeof(err)),
	    0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int net = rows[i].layer != NULL &&
		    strcmp(rows[i].layer, "network") == 0;
		json_t *d = json_pack("{s:s?, s:s?, s:s?}", "layer",
		    rows[i].layer, "access", rows[i].access,
		    net ? "host" : "path", rows[i].path);

		ck_assert_msg(denials_class(m, "/w", d) == rows[i].want,
		    "row %zu (%s %s): got %s, want %s", i,
		    rows[i].layer ? rows[i].layer : "-",
		    rows[i].path ? rows[i].path : "-",
		    escalate_class_name(denials_class(m, "/w", d)),
		    escalate_class_name(rows[i].want));
		json_decref(d);
	}
	manifest_free(m);
}
END_TEST

/*
 * The approval's warnings: one string per network widening that is not
 * the internet, as approve prints it after "escalation "; a public
 * address, a host name and a filesystem widening get none.
 */
START_TEST(test_denials_warnings_mark_what_is_not_the_internet)
{
	json_t *w = json_pack("[{s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:i},"
			      " {s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:i},"
			      " {s:s, s:s, s:s}]",
	    "denial", "d1", "layer", "network", "host", "127.0.0.1", "port",
	    2375, "denial", "d2", "layer", "network", "host", "93.184.216.34",
	    "port", 443, "denial", "d3", "layer", "network", "host", "10.0.0.6",
	    "port", 80, "denial", "d4", "layer", "network", "host",
	    "db.internal", "port", 5432, "denial", "d5", "layer", "filesystem",
	    "path", "/opt/x");
	json_t *got = denials_warnings(w);
	char *text = json_dumps(got, JSON_COMPACT);

	ck_assert_str_eq(text,
	    "[\"d1 WIDENS TO THIS MACHINE'S SERVICES: 127.0.0.1 port 2375 is "
	    "loopback (127.0.0.0/8)\",\"d3 WIDENS TO THE LOCAL NETWORK'S "
	    "SERVICES: 10.0.0.6 port 80 is private (RFC 1918)\"]");
	free(text);
	json_decref(got);
	got = denials_warnings(NULL);
	ck_assert_int_eq(json_array_size(got), 0);
	json_decref(got);
	json_decref(w);
}
END_TEST

/* A filesystem write widening's warning (write_warning()), or "". */
static const char *
write_warned(const char *path, const char *access, char *desc, size_t len)
{
	json_t *d = json_pack("{s:s, s:s, s:s, s:s}", "denial", "d1", "layer",
	    "filesystem", "path", path, "access", access);
	const char *w = denials_warning(d, desc, len);

	json_decref(d);
	return w != NULL ? w : "";
}

/*
 * A write the run is let make that runs as code later, outside any
 * sandbox: a start-up file, a directory holding one or beneath which a
 * tool reads one, a home directory.  A log file, or a read, is none.
 */
START_TEST(test_denials_warning_marks_writes_that_run_later)
{
	char dir[] = "/tmp/test_denials.XXXXXX", p[256], desc[512];
	const char *runs = "WRITES WHAT RUNS LATER, OUTSIDE ANY SANDBOX";
	struct passwd *pw = getpwuid(0);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/home", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/home/.zshrc", dir);
	ck_assert_int_eq(close(open(p, O_CREAT | O_WRONLY, 0644)), 0);
	snprintf(p, sizeof(p), "%s/home/.bashrc", dir);
	ck_assert_str_eq(write_warned(p, "write", desc, sizeof(desc)), runs);
	ck_assert_str_eq(desc, "RUNS ON bash: every interactive shell runs it");
	ck_assert_str_eq(write_warned(p, "read", desc, sizeof(desc)), "");
	snprintf(p, sizeof(p), "%s/home", dir);
	ck_assert_str_eq(write_warned(p, "write", desc, sizeof(desc)), runs);
	ck_assert_str_eq(desc,
	    "it holds .zshrc: RUNS ON zsh: every interactive shell runs it");
	snprintf(p, sizeof(p), "%s/home/.vscode", dir);
	ck_assert_str_eq(write_warned(p, "write", desc, sizeof(desc)), runs);
	ck_assert_msg(
	    strncmp(desc, "beneath it, RUNS ON VS Code", 27) == 0, "%s", desc);
	snprintf(p, sizeof(p), "%s/log.txt", dir);
	ck_assert_str_eq(write_warned(p, "write", desc, sizeof(desc)), "");
	ck_assert_str_eq(write_warned(dir, "write", desc, sizeof(desc)), "");
	/* A home directory, where the run makes the start-up files. */
	ck_assert_ptr_nonnull(pw);
	ck_assert_str_eq(
	    write_warned(pw->pw_dir, "write", desc, sizeof(desc)), runs);
	ck_assert_msg(strncmp(desc, "a home directory", 16) == 0, "%s", desc);
	snprintf(p, sizeof(p), "%s/home/.zshrc", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/home", dir);
	rmdir(p);
	rmdir(dir);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("denials");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_denials_build_numbers_network_refusals);
	tcase_add_test(
	    tc, test_denials_build_runner_denials_first_with_manifest_hints);
	tcase_add_test(tc, test_denials_build_is_bounded_and_null_when_none);
	tcase_add_test(tc, test_denials_store_drops_the_oldest);
	tcase_add_test(tc, test_denials_class_table);
	tcase_add_test(tc, test_denials_warnings_mark_what_is_not_the_internet);
	tcase_add_test(tc, test_denials_warning_marks_writes_that_run_later);
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
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
