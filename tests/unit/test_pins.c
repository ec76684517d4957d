/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * pins: which workspace files are a command's code, and that nothing
 * outside the workspace is read to find out.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker/pins.h"
#include "common/errors.h"

static char ws[] = "/tmp/test_pins.XXXXXX";
static int rootfd = -1;

static void
put(const char *rel, const char *content)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", ws, rel);
	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	fputs(content, fp);
	fclose(fp);
}

static void
setup(void)
{
	char path[512];

	ck_assert_ptr_nonnull(mkdtemp(ws));
	snprintf(path, sizeof(path), "%s/tests", ws);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	put("deploy.sh", "echo deploy\n");
	put("tests/run.sh", "exit 1\n");
	put("tests/lib.sh", "true\n");
	put("Makefile", "test:\n");
	put("conftest.py", "\n");
	snprintf(path, sizeof(path), "%s/tools", ws);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tools/lib", ws);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tools/notpkg", ws);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tools/__pycache__", ws);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	put("tools/deploy.py", "import helper\n");
	put("tools/helper.py", "\n");
	put("tools/9lives.py", "\n");
	put("tools/data.txt", "\n");
	put("tools/lib/__init__.py", "\n");
	put("tools/lib/x.py", "\n");
	put("tools/notpkg/readme", "\n");
	put("tools/__pycache__/helper.cpython-311.pyc", "\n");
	put("tools/run.js", "\n");
	snprintf(path, sizeof(path), "%s/link.py", ws);
	ck_assert_int_eq(symlink("tools/deploy.py", path), 0);
	snprintf(path, sizeof(path), "%s/out.sh", ws);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof(path), "%s/tests/passwd", ws);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	rootfd = open(ws, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(rootfd, 0);
}

static void
teardown(void)
{
	char cmd[600];

	close(rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ws);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", ws);
	strcpy(ws, "/tmp/test_pins.XXXXXX");
}

static json_t *
collect(char *const *argv, char *const *pin)
{
	json_t *set;
	char err[256];

	ck_assert_int_eq(pins_collect(rootfd, ws, argv, pin, NULL, 1, &set, err,
			     sizeof(err)),
	    0);
	return set;
}

START_TEST(test_pins_argv_files_make_and_directories)
{
	static const struct {
		const char *argv[6];
		const char *pin[3];
		const char *want; /* sorted keys, "," separated */
	} rows[] = {
		{ { "sh", "deploy.sh", "staging", NULL }, { NULL },
		    "deploy.sh" },
		{ { "sh", "./tests/run.sh", "todo", NULL }, { NULL },
		    "tests/run.sh" },
		{ { "make", "test", NULL }, { NULL },
		    "GNUmakefile,Makefile,makefile" },
		{ { "true", NULL }, { "tests/", NULL },
		    "tests/lib.sh,tests/passwd,tests/run.sh" },
		{ { "true", NULL }, { "missing.sh", NULL }, "missing.sh" },
		{ { "sh", "out.sh", NULL }, { NULL }, "out.sh" },
		/* Python: what it imports from the script's directory
		 * first (sys.path[0]), not __pycache__ nor non-names. */
		{ { "python3", "tools/deploy.py", NULL }, { NULL },
		    "tools/deploy.py,tools/helper.py,tools/lib/__init__.py" },
		{ { "/usr/bin/env", "python3.11", "tools/deploy.py", NULL },
		    { NULL },
		    "tools/deploy.py,tools/helper.py,tools/lib/__init__.py" },
		{ { "sh", "tools/deploy.py", NULL }, { NULL },
		    "tools/deploy.py" },
		/* env's assignments and options before the program. */
		{ { "env", "PYTHONUNBUFFERED=1", "python3", "tools/deploy.py" },
		    { NULL },
		    "tools/deploy.py,tools/helper.py,tools/lib/__init__.py" },
		{ { "env", "-u", "conftest.py", "python3", "tools/deploy.py",
		      NULL },
		    { NULL },
		    "conftest.py,tools/deploy.py,tools/helper.py,"
		    "tools/lib/__init__.py" },
		/* -m: the module's own file and its package's modules,
		 * a package's __main__ recorded absent. */
		{ { "python3", "-m", "tools.deploy", NULL }, { NULL },
		    "conftest.py,link.py,tools/deploy.py,"
		    "tools/deploy/__main__.py,tools/helper.py,"
		    "tools/lib/__init__.py" },
		{ { "python3", "-Im", "pytest", NULL }, { NULL },
		    "conftest.py,link.py,pytest/__main__.py" },
		{ { "python3", "-Bc", "import tools.deploy", NULL }, { NULL },
		    "conftest.py,link.py" },
		/* An option's argument is not -e, nor the script. */
		{ { "python3", "-Wignore", "tools/deploy.py", NULL }, { NULL },
		    "tools/deploy.py,tools/helper.py,tools/lib/__init__.py" },
		{ { "python3", "-X", "conftest.py", "tools/deploy.py", NULL },
		    { NULL },
		    "conftest.py,tools/deploy.py,tools/helper.py,"
		    "tools/lib/__init__.py" },
		/* Its real directory: the symlink's target's. */
		{ { "python3", "link.py", NULL }, { NULL },
		    "link.py,tools/deploy.py,tools/helper.py,"
		    "tools/lib/__init__.py" },
		/* Node: node_modules from the script's directory up. */
		{ { "node", "tools/run.js", "conftest.py", NULL }, { NULL },
		    "conftest.py,node_modules,tools/node_modules,tools/run.js" },
		/* A preloaded file is no script: each file's, every one. */
		{ { "node", "-r", "conftest.py", "tools/run.js", NULL },
		    { NULL },
		    "conftest.py,node_modules,tools/node_modules,tools/run.js" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		json_t *set = collect(
		    (char *const *)rows[i].argv, (char *const *)rows[i].pin);
		json_t *keys = pins_changed(NULL, set);
		char got[512] = "";
		json_t *v;
		size_t j;

		json_array_foreach(keys, j, v)
		{
			if (j)
				strcat(got, ",");
			strcat(got, json_string_value(v));
		}
		ck_assert_msg(
		    strcmp(got, rows[i].want) == 0, "row %zu: %s", i, got);
		json_decref(keys);
		json_decref(set);
	}
}
END_TEST

START_TEST(test_pins_never_follow_a_symlink_out)
{
	const char *argv[] = { "sh", "out.sh", NULL };
	const char *pin[] = { "tests/", NULL };
	json_t *set = collect((char *const *)argv, (char *const *)pin);
	const char *a = json_string_value(json_object_get(set, "out.sh"));
	const char *b = json_string_value(json_object_get(set, "tests/passwd"));

	ck_assert_ptr_nonnull(a);
	ck_assert_msg(strncmp(a, "refused:", 8) == 0, "%s", a);
	ck_assert_str_eq(b, "symlink:/etc/passwd");
	json_decref(set);
}
END_TEST

START_TEST(test_pins_changed_names_edits_creations_and_removals)
{
	const char *pin[] = { "tests/", "Makefile", NULL };
	json_t *was = collect(NULL, (char *const *)pin), *now, *ch;

	put("tests/run.sh", "exit 0\n");
	put("tests/new.sh", "x\n");
	now = collect(NULL, (char *const *)pin);
	ch = pins_changed(was, now);
	ck_assert_uint_eq(json_array_size(ch), 2);
	ck_assert_str_eq(
	    json_string_value(json_array_get(ch, 0)), "tests/new.sh");
	ck_assert_str_eq(
	    json_string_value(json_array_get(ch, 1)), "tests/run.sh");
	json_decref(ch);
	ch = pins_changes(rootfd, was, now);
	ck_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(ch, "tests/run.sh"), "nowHead")),
	    "exit 0\n");
	ck_assert(json_is_null(json_object_get(
	    json_object_get(ch, "tests/new.sh"), "approvedSha")));
	json_decref(ch);
	ch = pins_changed(now, now);
	ck_assert_uint_eq(json_array_size(ch), 0);
	json_decref(ch);
	json_decref(was);
	json_decref(now);
}
END_TEST

START_TEST(test_pins_python_module_created_beside_the_script_is_a_change)
{
	const char *argv[] = { "python3", "tools/deploy.py", NULL };
	json_t *was = collect((char *const *)argv, NULL), *now, *ch;
	char path[512];

	put("tools/json.py", "x\n");
	snprintf(path, sizeof(path), "%s/tools/requests", ws);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	put("tools/requests/__init__.py", "x\n");
	now = collect((char *const *)argv, NULL);
	ch = pins_changed(was, now);
	ck_assert_uint_eq(json_array_size(ch), 2);
	ck_assert_str_eq(
	    json_string_value(json_array_get(ch, 0)), "tools/json.py");
	ck_assert_str_eq(json_string_value(json_array_get(ch, 1)),
	    "tools/requests/__init__.py");
	json_decref(ch);
	json_decref(was);
	json_decref(now);
}
END_TEST

/*
 * Only a tool granted a secret pins its interpreter's module search: a
 * check runs the agent's code by design (tests import what it writes),
 * and a new module beside its script must not make every gate stale.
 */
START_TEST(test_pins_check_pins_its_script_only)
{
	const char *argv[] = { "python3", "tools/deploy.py", NULL };
	const char *nargv[] = { "node", "tools/run.js", NULL };
	json_t *set, *keys;
	char err[256];

	ck_assert_int_eq(pins_collect(rootfd, ws, (char *const *)argv, NULL,
			     NULL, 0, &set, err, sizeof(err)),
	    0);
	keys = pins_changed(NULL, set);
	ck_assert_uint_eq(json_array_size(keys), 1);
	ck_assert_str_eq(
	    json_string_value(json_array_get(keys, 0)), "tools/deploy.py");
	json_decref(keys);
	json_decref(set);
	ck_assert_int_eq(pins_collect(rootfd, ws, (char *const *)nargv, NULL,
			     NULL, 0, &set, err, sizeof(err)),
	    0);
	keys = pins_changed(NULL, set);
	ck_assert_uint_eq(json_array_size(keys), 1);
	json_decref(keys);
	json_decref(set);
}
END_TEST

/* env -S (or -C) hides which program runs, and from where: a tool
 * granted a secret cannot be pinned, and is refused; a check, which
 * pins its argv's files only, is not. */
START_TEST(test_pins_refuse_env_that_hides_its_program)
{
	const char *argv[] = { "env", "-S", "python3 tools/deploy.py", NULL };
	json_t *set;
	char err[256];

	ck_assert_int_ne(pins_collect(rootfd, ws, (char *const *)argv, NULL,
			     NULL, 1, &set, err, sizeof(err)),
	    0);
	ck_assert_ptr_null(set);
	ck_assert_ptr_nonnull(strstr(err, "cannot tell which program"));
	ck_assert_int_eq(pins_collect(rootfd, ws, (char *const *)argv, NULL,
			     NULL, 0, &set, err, sizeof(err)),
	    0);
	json_decref(set);
}
END_TEST

START_TEST(test_pins_refuse_a_file_past_the_cap)
{
	const char *pin[] = { "big", NULL };
	char path[512], err[256];
	json_t *set;
	int fd;

	snprintf(path, sizeof(path), "%s/big", ws);
	ck_assert_int_ge(fd = open(path, O_WRONLY | O_CREAT, 0644), 0);
	/* Sparse: refused from its size, not read. */
	ck_assert_int_eq(ftruncate(fd, (off_t)1 << 30), 0);
	close(fd);
	ck_assert_int_eq(pins_collect(rootfd, ws, NULL, (char *const *)pin,
			     NULL, 1, &set, err, sizeof(err)),
	    AL_ERR_LIMIT);
	ck_assert_ptr_null(set);
	ck_assert_ptr_nonnull(strstr(err, "big"));
}
END_TEST

/* A name or a link's text that is not UTF-8: JSON cannot hold it, and
 * the set held no such key or value (fatalx() stopped the broker). */
START_TEST(test_pins_hold_names_and_links_that_are_not_utf8)
{
	const char *pin[] = { "tests/", NULL };
	char path[512], err[256];
	json_t *set, *set2, *changed;

	snprintf(path, sizeof(path), "%s/tests/\xff", ws);
	ck_assert_int_eq(close(open(path, O_WRONLY | O_CREAT, 0644)), 0);
	snprintf(path, sizeof(path), "%s/tests/l", ws);
	ck_assert_int_eq(symlink("\xfe", path), 0);
	ck_assert_int_eq(pins_collect(rootfd, ws, NULL, (char *const *)pin,
			     NULL, 1, &set, err, sizeof(err)),
	    0);
	ck_assert_ptr_nonnull(
	    json_object_get(set, "/not-utf-8/74657374732fff"));
	ck_assert_str_eq(json_string_value(json_object_get(set, "tests/l")),
	    "symlink-bytes:fe");
	/* One to one: another link text is a change. */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("\xfd", path), 0);
	ck_assert_int_eq(pins_collect(rootfd, ws, NULL, (char *const *)pin,
			     NULL, 1, &set2, err, sizeof(err)),
	    0);
	changed = pins_changed(set, set2);
	ck_assert_int_eq(json_array_size(changed), 1);
	ck_assert_str_eq(
	    json_string_value(json_array_get(changed, 0)), "tests/l");
	json_decref(changed);
	json_decref(set);
	json_decref(set2);
}
END_TEST

/*
 * A pinned path that cannot be read as a file of the workspace (a hard
 * link, whose other name may be written unseen; a symlink out) binds
 * nothing of what it holds: it is changed even against itself.  Its
 * "refused:..." digest stayed the same whatever was written through the
 * other name, and a check's hard-linked script rewritten to "exit 0"
 * counted toward its gate.
 */
START_TEST(test_pins_refused_path_is_always_changed)
{
	const char *argv[] = { "sh", "tests/run.sh", NULL };
	const char *pin[] = { "tests/", NULL };
	char path[512], other[512];
	json_t *set, *ch;

	snprintf(path, sizeof(path), "%s/tests/run.sh", ws);
	snprintf(other, sizeof(other), "%s.other", ws);
	ck_assert_int_eq(link(path, other), 0);
	set = collect((char *const *)argv, NULL);
	ch = pins_changed(set, set);
	ck_assert_uint_eq(json_array_size(ch), 1);
	ck_assert_str_eq(
	    json_string_value(json_array_get(ch, 0)), "tests/run.sh");
	json_decref(ch);
	json_decref(set);
	/* Inside a pinned directory too; and a symlink out (tests/passwd
	 * is pinned as its text, which binds it). */
	set = collect(NULL, (char *const *)pin);
	ch = pins_changed(set, set);
	ck_assert_uint_eq(json_array_size(ch), 1);
	ck_assert_str_eq(
	    json_string_value(json_array_get(ch, 0)), "tests/run.sh");
	json_decref(ch);
	json_decref(set);
	ck_assert_int_eq(unlink(other), 0);
	argv[1] = "out.sh";
	set = collect((char *const *)argv, NULL);
	ch = pins_changed(set, set);
	ck_assert_uint_eq(json_array_size(ch), 1);
	json_decref(ch);
	json_decref(set);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("pins");
	TCase *tc = tcase_create("pins");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pins_argv_files_make_and_directories);
	tcase_add_test(tc, test_pins_never_follow_a_symlink_out);
	tcase_add_test(tc, test_pins_refused_path_is_always_changed);
	tcase_add_test(
	    tc, test_pins_changed_names_edits_creations_and_removals);
	tcase_add_test(
	    tc, test_pins_python_module_created_beside_the_script_is_a_change);
	tcase_add_test(tc, test_pins_check_pins_its_script_only);
	tcase_add_test(tc, test_pins_refuse_env_that_hides_its_program);
	tcase_add_test(tc, test_pins_refuse_a_file_past_the_cap);
	tcase_add_test(tc, test_pins_hold_names_and_links_that_are_not_utf8);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
