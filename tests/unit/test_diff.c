/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Unit tests for policy/diff: the strict unified-diff engine behind
 * apply_patch.  Most tests are rows: a patch, what parsing it must give,
 * and for each file the old content and the result (or the refusal) of
 * applying it.  A round-trip property test feeds diff(1) output back in.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "common/errors.h"
#include "policy/diff.h"

struct frow {
	const char	*path;		/* diff_path() */
	enum diff_kind	 kind;
	const char	*old;		/* NULL: absent file */
	const char	*new;		/* expected result when rc == 0 */
	int		 rc;		/* diff_apply_file() */
	const char	*err;		/* substring of the apply error */
};

struct row {
	const char	*name;
	const char	*patch;
	size_t		 patchlen;	/* 0: strlen(patch) */
	int		 rc;		/* diff_parse() */
	const char	*err;		/* substring of the parse error */
	size_t		 nfiles;
	struct frow	 f[3];
};

#define P_MOD	"--- a/f.txt\n+++ b/f.txt\n"
#define TEN	"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
#define NONL	"\\ No newline at end of file\n"

static const struct row rows[] = {
	/* Accepted forms, applied exactly. */
	{ "modify_one_line",
	    P_MOD "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb\nc\n", "a\nB\nc\n", 0, NULL } } },
	{ "modify_with_git_header",
	    "diff --git a/src/x.c b/src/x.c\nindex 83db48f..bf269f4 100644\n"
	    "--- a/src/x.c\n+++ b/src/x.c\n@@ -1,2 +1,2 @@\n-int x;\n"
	    "+long x;\n int y;\n", 0, 0, NULL, 1,
	    { { "src/x.c", DIFF_MODIFY, "int x;\nint y;\n",
	    "long x;\nint y;\n", 0, NULL } } },
	{ "modify_executable_file_keeps_mode",
	    "diff --git a/run.sh b/run.sh\nindex 1..2 100755\n"
	    "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-a\n+b\n", 0, 0, NULL,
	    1, { { "run.sh", DIFF_MODIFY, "a\n", "b\n", 0, NULL } } },
	{ "create_file",
	    "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n",
	    0, 0, NULL, 1,
	    { { "new.txt", DIFF_CREATE, NULL, "hello\nworld\n", 0, NULL } } },
	{ "create_file_git",
	    "diff --git a/d/n b/d/n\nnew file mode 100644\n"
	    "index 0000000..e69de29\n--- /dev/null\n+++ b/d/n\n"
	    "@@ -0,0 +1 @@\n+x\n", 0, 0, NULL, 1,
	    { { "d/n", DIFF_CREATE, NULL, "x\n", 0, NULL } } },
	{ "create_empty_file_git_header_only",
	    "diff --git a/empty b/empty\nnew file mode 100644\n"
	    "index 0000000..e69de29\n", 0, 0, NULL, 1,
	    { { "empty", DIFF_CREATE, NULL, "", 0, NULL } } },
	{ "create_refused_when_file_has_content",
	    "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n", 0, 0, NULL,
	    1, { { "new.txt", DIFF_CREATE, "old\n", NULL, AL_ERR_CONFLICT,
	    "exists" } } },
	{ "delete_file",
	    "--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", 0, 0,
	    NULL, 1, { { "old.txt", DIFF_DELETE, "a\nb\n", "", 0, NULL } } },
	{ "delete_file_git",
	    "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n"
	    "index 78981922..0000000\n--- a/old.txt\n+++ /dev/null\n"
	    "@@ -1 +0,0 @@\n-a\n", 0, 0, NULL, 1,
	    { { "old.txt", DIFF_DELETE, "a\n", "", 0, NULL } } },
	{ "delete_empty_file_git_header_only",
	    "diff --git a/e b/e\ndeleted file mode 100644\n"
	    "index e69de29..0000000\n", 0, 0, NULL, 1,
	    { { "e", DIFF_DELETE, "", "", 0, NULL } } },
	{ "delete_refused_when_lines_remain",
	    "--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", 0, 0,
	    NULL, 1, { { "old.txt", DIFF_DELETE, "a\nb\nc\n", NULL,
	    AL_ERR_CONFLICT, "the patch deletes it, but lines remain" } } },
	{ "delete_of_empty_file_refused_when_file_has_content",
	    "diff --git a/e b/e\ndeleted file mode 100644\n", 0, 0, NULL, 1,
	    { { "e", DIFF_DELETE, "x\n", NULL, AL_ERR_CONFLICT,
	    "the patch deletes it, but lines remain" } } },
	{ "multiple_hunks",
	    P_MOD "@@ -1,3 +1,3 @@\n-1\n+one\n 2\n 3\n"
	    "@@ -8,3 +8,4 @@\n 8\n 9\n+9.5\n 10\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, TEN,
	    "one\n2\n3\n4\n5\n6\n7\n8\n9\n9.5\n10\n", 0, NULL } } },
	{ "multiple_hunks_new_start_follows_delta",
	    P_MOD "@@ -1,2 +1,3 @@\n 1\n+1.5\n 2\n"
	    "@@ -5,2 +6,2 @@\n-5\n+five\n 6\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "1\n2\n3\n4\n5\n6\n",
	    "1\n1.5\n2\n3\n4\nfive\n6\n", 0, NULL } } },
	{ "multiple_files",
	    "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
	    "diff --git a/b/c.txt b/b/c.txt\nnew file mode 100644\n"
	    "--- /dev/null\n+++ b/b/c.txt\n@@ -0,0 +1 @@\n+c\n"
	    "--- a/d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n", 0, 0, NULL, 3,
	    { { "a.txt", DIFF_MODIFY, "a\n", "A\n", 0, NULL },
	      { "b/c.txt", DIFF_CREATE, NULL, "c\n", 0, NULL },
	      { "d.txt", DIFF_DELETE, "d\n", "", 0, NULL } } },
	{ "no_newline_on_old_side",
	    P_MOD "@@ -1,2 +1,2 @@\n a\n-b\n" NONL "+c\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb", "a\nc\n", 0, NULL } } },
	{ "no_newline_on_new_side",
	    P_MOD "@@ -1,2 +1,2 @@\n a\n-b\n+c\n" NONL, 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb\n", "a\nc", 0, NULL } } },
	{ "no_newline_on_both_sides",
	    P_MOD "@@ -1,2 +1,2 @@\n a\n-b\n" NONL "+c\n" NONL, 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb", "a\nc", 0, NULL } } },
	{ "no_newline_on_context_line",
	    P_MOD "@@ -1,2 +1,2 @@\n-a\n+x\n b\n" NONL, 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb", "x\nb", 0, NULL } } },
	{ "no_newline_marker_refused_when_file_has_newline",
	    P_MOD "@@ -1,2 +1,2 @@\n a\n-b\n" NONL "+c\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb\n", NULL, AL_ERR_CONFLICT,
	    "old line 2 differs: expected \"b\", found \"b\\n\"" } } },
	{ "missing_marker_refused_when_file_lacks_newline",
	    P_MOD "@@ -1,2 +1,2 @@\n a\n-b\n+c\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb", NULL, AL_ERR_CONFLICT,
	    "expected \"b\\n\", found \"b\"" } } },
	{ "new_side_without_newline_refused_when_old_continues",
	    P_MOD "@@ -1 +1 @@\n-a\n+c\n" NONL, 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb\n", NULL, AL_ERR_CONFLICT,
	    "no newline at end of file" } } },
	{ "append_after_line_without_newline_refused",
	    P_MOD "@@ -1,0 +2 @@\n+b\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a", NULL, AL_ERR_CONFLICT,
	    "no newline at end of file" } } },
	{ "crlf_content_preserved",
	    P_MOD "@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", 0,
	    NULL } } },
	{ "crlf_file_refuses_lf_patch",
	    P_MOD "@@ -1,2 +1,2 @@\n a\n-b\n+B\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\r\nb\r\n", NULL, AL_ERR_CONFLICT,
	    "expected \"a\\n\", found \"a\\r\\n\"" } } },
	{ "zero_context_hunk",
	    P_MOD "@@ -2 +2 @@\n-b\n+B\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb\nc\n", "a\nB\nc\n", 0, NULL } } },
	{ "pure_insertion_after_line",
	    P_MOD "@@ -1,0 +2 @@\n+x\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb\n", "a\nx\nb\n", 0, NULL } } },
	{ "pure_insertion_at_start",
	    P_MOD "@@ -0,0 +1 @@\n+x\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n", "x\na\n", 0, NULL } } },
	{ "append_at_end",
	    P_MOD "@@ -1,0 +2,2 @@\n+b\n+c\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n", "a\nb\nc\n", 0, NULL } } },
	{ "pure_deletion_middle",
	    P_MOD "@@ -2 +1,0 @@\n-b\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb\nc\n", "a\nc\n", 0, NULL } } },
	{ "hunk_header_omitted_counts",
	    P_MOD "@@ -1 +1 @@\n-a\n+b\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n", "b\n", 0, NULL } } },
	{ "hunk_header_section_heading",
	    P_MOD "@@ -1 +1 @@ int main(void)\n-a\n+b\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n", "b\n", 0, NULL } } },
	{ "bare_empty_line_is_empty_context",
	    P_MOD "@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n\nb\n", "a\n\nB\n", 0, NULL } } },
	{ "timestamps_after_tab_ignored",
	    "--- a/f.txt\t2024-01-01 00:00:00.000000000 +0000\n"
	    "+++ b/f.txt\t2024-01-02 00:00:00.000000000 +0000\n"
	    "@@ -1 +1 @@\n-a\n+b\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n", "b\n", 0, NULL } } },
	{ "path_with_space",
	    "diff --git a/my file b/my file\n--- a/my file\t\n"
	    "+++ b/my file\t\n@@ -1 +1 @@\n-a\n+b\n", 0, 0, NULL, 1,
	    { { "my file", DIFF_MODIFY, "a\n", "b\n", 0, NULL } } },
	{ "utf8_path",
	    "--- a/d\xc3\xa9j\xc3\xa0.txt\n+++ b/d\xc3\xa9j\xc3\xa0.txt\n"
	    "@@ -1 +1 @@\n-a\n+b\n", 0, 0, NULL, 1,
	    { { "d\xc3\xa9j\xc3\xa0.txt", DIFF_MODIFY, "a\n", "b\n", 0,
	    NULL } } },
	{ "patch_without_final_newline",
	    P_MOD "@@ -1 +1 @@\n-a\n+b", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n", "b\n", 0, NULL } } },
	{ "trailing_blank_lines_after_patch",
	    P_MOD "@@ -1 +1 @@\n-a\n+b\n\n\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n", "b\n", 0, NULL } } },
	{ "dotfile_and_dotdot_prefix_names_allowed",
	    "--- a/.github/..x/.env\n+++ b/.github/..x/.env\n"
	    "@@ -1 +1 @@\n-a\n+b\n", 0, 0, NULL, 1,
	    { { ".github/..x/.env", DIFF_MODIFY, "a\n", "b\n", 0, NULL } } },
	{ "huge_start_applies_as_conflict",
	    P_MOD "@@ -99999999 +99999999 @@\n-a\n+b\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n", NULL, AL_ERR_CONFLICT,
	    "starts at old line 99999999 but the file has 1 lines" } } },

	/* Exact application: no fuzz, no offset. */
	{ "context_mismatch_names_hunk_and_line",
	    P_MOD "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nx\nc\n", NULL, AL_ERR_CONFLICT,
	    "file 'f.txt': hunk 1 (@@ -1,3 +1,3 @@) does not apply: old line "
	    "2 differs: expected \"b\\n\", found \"x\\n\"" } } },
	{ "offset_hunk_refused_no_fuzz",
	    P_MOD "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "z\na\nb\nc\n", NULL, AL_ERR_CONFLICT,
	    "old line 1 differs: expected \"a\\n\", found \"z\\n\"" } } },
	{ "whitespace_difference_refused",
	    P_MOD "@@ -1 +1 @@\n-a b\n+c\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a  b\n", NULL, AL_ERR_CONFLICT,
	    "expected \"a b\\n\", found \"a  b\\n\"" } } },
	{ "second_hunk_failure_names_hunk_2",
	    P_MOD "@@ -1,3 +1,3 @@\n-1\n+one\n 2\n 3\n"
	    "@@ -8,3 +8,4 @@\n 8\n 9\n+9.5\n 10\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "1\n2\n3\n4\n5\n6\n7\n8\nnine\n10\n",
	    NULL, AL_ERR_CONFLICT, "hunk 2 (@@ -8,3 +8,4 @@) does not apply:"
	    " old line 9 differs" } } },
	{ "hunk_past_end_of_file",
	    P_MOD "@@ -10 +10 @@\n-a\n+b\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb\nc\n", NULL, AL_ERR_CONFLICT,
	    "starts at old line 10 but the file has 3 lines" } } },
	{ "context_runs_past_end_of_file",
	    P_MOD "@@ -2,2 +2,2 @@\n-b\n+B\n c\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\nb\n", NULL, AL_ERR_CONFLICT,
	    "found end of file" } } },
	{ "hostile_line_quoted_in_error",
	    P_MOD "@@ -1 +1 @@\n-a\n+b\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "\x1b[31m\"\n", NULL, AL_ERR_CONFLICT,
	    "found \"\\x1b[31m\\\"\\n\"" } } },

	/* Malformed hunks. */
	{ "malformed_hunk_header",
	    P_MOD "@@ -1,2 +1,2\n a\n", 0, AL_ERR_FORMAT,
	    "file 'f.txt' hunk 1: malformed hunk header", 0, { { 0 } } },
	{ "hunk_header_text_glued_to_at_signs",
	    P_MOD "@@ -1 +1 @@x\n-a\n+b\n", 0, AL_ERR_FORMAT,
	    "malformed hunk header", 0, { { 0 } } },
	{ "hunk_header_negative_count",
	    P_MOD "@@ -1,-2 +1 @@\n-a\n+b\n", 0, AL_ERR_FORMAT,
	    "malformed hunk header", 0, { { 0 } } },
	{ "hunk_header_missing_new_range",
	    P_MOD "@@ -1 @@\n-a\n", 0, AL_ERR_FORMAT,
	    "malformed hunk header", 0, { { 0 } } },
	{ "hunk_count_overflow",
	    P_MOD "@@ -1,99999999999 +1 @@\n-a\n+b\n", 0, AL_ERR_LIMIT,
	    "too large", 0, { { 0 } } },
	{ "hunk_start_overflow",
	    P_MOD "@@ -18446744073709551617 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_LIMIT, "too large", 0, { { 0 } } },
	{ "hunk_count_above_limit",
	    P_MOD "@@ -1,100000001 +1 @@\n-a\n+b\n", 0, AL_ERR_LIMIT,
	    "too large", 0, { { 0 } } },
	{ "hunk_count_too_small",
	    P_MOD "@@ -1 +1 @@\n a\n-b\n+c\n", 0, AL_ERR_FORMAT,
	    "hunk 1 (@@ -1 +1 @@): more lines than the header counts", 0,
	    { { 0 } } },
	{ "hunk_count_too_large",
	    P_MOD "@@ -1,3 +1,3 @@\n a\n-b\n+c\n", 0, AL_ERR_FORMAT,
	    "file 'f.txt' hunk 1 (line 3): patch ends with 1 old and 1 new",
	    0, { { 0 } } },
	{ "hunk_old_count_exceeded",
	    P_MOD "@@ -1 +1,2 @@\n-a\n-b\n+c\n", 0, AL_ERR_FORMAT,
	    "more old lines than the header's count", 0, { { 0 } } },
	{ "hunk_too_short_before_next_header",
	    P_MOD "@@ -1,2 +1,2 @@\n-a\n+b\n@@ -5 +5 @@\n-x\n+y\n", 0,
	    AL_ERR_FORMAT, "expected 1 more old and 1 more new lines", 0,
	    { { 0 } } },
	{ "hunk_with_unknown_line_prefix",
	    P_MOD "@@ -1 +1 @@\n*a\n+b\n", 0, AL_ERR_FORMAT,
	    "not starting with ' ', '-', '+'", 0, { { 0 } } },
	{ "empty_hunk",
	    P_MOD "@@ -1,0 +1,0 @@\n", 0, AL_ERR_FORMAT, "empty hunk", 0,
	    { { 0 } } },
	{ "line_zero_with_count",
	    P_MOD "@@ -0,1 +1 @@\n-a\n+b\n", 0, AL_ERR_FORMAT,
	    "line numbers start at 1", 0, { { 0 } } },
	{ "wrong_new_start",
	    P_MOD "@@ -1,2 +1,3 @@\n 1\n+1.5\n 2\n"
	    "@@ -5,2 +5,2 @@\n-5\n+five\n 6\n", 0, AL_ERR_FORMAT,
	    "hunk 2: new start 5 does not follow from old start 5 and the "
	    "hunks before it (expected 6)", 0, { { 0 } } },
	{ "overlapping_hunks",
	    P_MOD "@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n"
	    "@@ -2,2 +2,2 @@\n-2\n+deux\n 3\n", 0, AL_ERR_FORMAT,
	    "hunk 2: hunks overlap or are out of order", 0, { { 0 } } },
	{ "out_of_order_hunks",
	    P_MOD "@@ -5 +5 @@\n-5\n+five\n@@ -1 +1 @@\n-1\n+one\n", 0,
	    AL_ERR_FORMAT, "hunks overlap or are out of order", 0, { { 0 } } },
	{ "no_newline_marker_first_in_hunk",
	    P_MOD "@@ -1 +1 @@\n" NONL "-a\n+b\n", 0, AL_ERR_FORMAT,
	    "marker without a line before it", 0, { { 0 } } },
	{ "no_newline_marker_translated",
	    P_MOD "@@ -1 +1 @@\n-a\n+b\n"
	    "\\ Kein Zeilenumbruch am Dateiende.\n", 0, 0, NULL, 1,
	    { { "f.txt", DIFF_MODIFY, "a\n", "b", 0, NULL } } },
	{ "no_newline_marker_bare_backslash",
	    P_MOD "@@ -1 +1 @@\n-a\n+b\n\\\n", 0, AL_ERR_FORMAT,
	    "malformed \"\\ No newline at end of file\" line", 0, { { 0 } } },
	{ "no_newline_marker_too_short",
	    P_MOD "@@ -1 +1 @@\n-a\n+b\n\\ Nile\n", 0, AL_ERR_FORMAT,
	    "malformed", 0, { { 0 } } },
	{ "line_after_no_newline_marker",
	    P_MOD "@@ -1,2 +1,2 @@\n-a\n" NONL " b\n+c\n", 0, AL_ERR_FORMAT,
	    "line after the end of file", 0, { { 0 } } },
	{ "hunk_after_no_newline_marker",
	    P_MOD "@@ -1 +1 @@\n-a\n+b\n" NONL "@@ -3 +3 @@\n-c\n+d\n", 0,
	    AL_ERR_FORMAT, "hunk 2: hunk after the end of file", 0,
	    { { 0 } } },
	{ "file_header_without_hunks",
	    P_MOD, 0, AL_ERR_FORMAT, "file 'f.txt': expected a hunk", 0,
	    { { 0 } } },
	{ "missing_new_file_header",
	    "--- a/f.txt\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_FORMAT,
	    "expected \"+++ b/PATH\"", 0, { { 0 } } },
	{ "create_hunk_with_old_lines",
	    "--- /dev/null\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_FORMAT,
	    "a new file's hunk must read \"@@ -0,0 +...\"", 0, { { 0 } } },
	{ "create_hunk_not_at_start",
	    "--- /dev/null\n+++ b/x\n@@ -3,0 +4 @@\n+a\n", 0, AL_ERR_FORMAT,
	    "a new file's hunk must read", 0, { { 0 } } },
	{ "delete_hunk_with_new_lines",
	    "--- a/x\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_FORMAT,
	    "a deleted file's hunk must read", 0, { { 0 } } },
	{ "create_in_two_hunks",
	    "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+x\n+\n"
	    "@@ -0,0 +3,2 @@\n+x\n+B\n", 0, AL_ERR_FORMAT,
	    "file 'n': a new file must be one hunk", 0, { { 0 } } },
	{ "delete_in_two_hunks",
	    "--- a/n\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
	    "@@ -2 +0,0 @@\n-y\n", 0, AL_ERR_FORMAT,
	    "a deleted file must be one hunk", 0, { { 0 } } },
	{ "delete_not_from_line_1",
	    "--- a/old.txt\n+++ /dev/null\n@@ -2 +1,0 @@\n-b\n", 0,
	    AL_ERR_FORMAT, "a deleted file's hunk must read", 0, { { 0 } } },
	{ "both_sides_dev_null",
	    "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n", 0,
	    AL_ERR_FORMAT, "both sides are /dev/null", 0, { { 0 } } },

	/* Whole-patch shape. */
	{ "empty_patch", "", 0, AL_ERR_FORMAT, "patch is empty", 0, { { 0 } } },
	{ "blank_patch", "\n\n", 0, AL_ERR_FORMAT, "patch is empty", 0,
	    { { 0 } } },
	{ "prose_before_patch",
	    "Here is the fix:\n" P_MOD "@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_FORMAT, "patch line 1: expected a file header", 0,
	    { { 0 } } },
	{ "prose_between_files",
	    P_MOD "@@ -1 +1 @@\n-a\n+b\n\nand also:\n"
	    "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_FORMAT,
	    "patch line 6: expected a file header", 0, { { 0 } } },
	{ "embedded_nul",
	    P_MOD "@@ -1 +1 @@\n-a\0\n+b\n", sizeof(P_MOD) - 1 + 19,
	    AL_ERR_FORMAT, "NUL byte at offset 38", 0, { { 0 } } },
	{ "duplicate_path",
	    P_MOD "@@ -1 +1 @@\n-a\n+b\n" P_MOD "@@ -3 +3 @@\n-c\n+d\n", 0,
	    AL_ERR_FORMAT, "file 'f.txt' appears twice", 0, { { 0 } } },
	{ "duplicate_path_create_and_modify",
	    "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+x\n"
	    P_MOD "@@ -1 +1 @@\n-x\n+y\n", 0, AL_ERR_FORMAT,
	    "appears twice", 0, { { 0 } } },

	/* Paths. */
	{ "path_traversal_dotdot",
	    "--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "\"..\" path component", 0, { { 0 } } },
	{ "path_traversal_after_prefix",
	    "--- a/../../x\n+++ b/../../x\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_PATH, "\"..\"", 0, { { 0 } } },
	{ "path_traversal_in_middle",
	    "--- a/src/../../x\n+++ b/src/../../x\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_PATH, "\"..\"", 0, { { 0 } } },
	{ "path_traversal_new_side_only",
	    "--- /dev/null\n+++ b/x/..\n@@ -0,0 +1 @@\n+a\n", 0, AL_ERR_PATH,
	    "\"..\"", 0, { { 0 } } },
	{ "path_absolute_without_prefix",
	    "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_PATH, "path must start with \"a/\"", 0, { { 0 } } },
	{ "path_absolute_after_prefix",
	    "--- a//etc/passwd\n+++ b//etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_PATH, "absolute path", 0, { { 0 } } },
	{ "path_without_prefix",
	    "--- f.txt\n+++ f.txt\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "path must start with \"a/\"", 0, { { 0 } } },
	{ "path_swapped_prefixes",
	    "--- b/f.txt\n+++ a/f.txt\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "path must start with \"a/\"", 0, { { 0 } } },
	{ "path_dot_component",
	    "--- a/./x\n+++ b/./x\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "\".\" or \"..\"", 0, { { 0 } } },
	{ "path_empty_component",
	    "--- a/x//y\n+++ b/x//y\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "empty path component", 0, { { 0 } } },
	{ "path_trailing_slash",
	    "--- a/x/\n+++ b/x/\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "empty path component", 0, { { 0 } } },
	{ "path_empty_after_prefix",
	    "--- a/\n+++ b/\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "empty path", 0, { { 0 } } },
	{ "path_backslash_traversal",
	    "--- a/..\\..\\x\n+++ b/..\\..\\x\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_PATH, "backslash in path", 0, { { 0 } } },
	{ "path_control_character",
	    "--- a/x\x1by\n+++ b/x\x1by\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_PATH, "control character", 0, { { 0 } } },
	{ "path_carriage_return",
	    "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "control character", 0, { { 0 } } },
	{ "crlf_patch_headers_refused_with_hint",
	    "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n", 0,
	    AL_ERR_PATH, "CRLF line endings are allowed only in hunk lines", 0,
	    { { 0 } } },
	{ "path_trailing_space",
	    "--- /dev/null\n+++ b/f \n@@ -0,0 +1 @@\n+x\n", 0, AL_ERR_PATH,
	    "begins or ends with a space", 0, { { 0 } } },
	{ "path_component_leading_space",
	    "--- a/ d/f\n+++ b/ d/f\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "begins or ends with a space", 0, { { 0 } } },
	{ "path_invalid_utf8",
	    "--- a/x\xff\n+++ b/x\xff\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH,
	    "not valid UTF-8", 0, { { 0 } } },
	{ "path_overlong_utf8_slash",
	    "--- a/x\xc0\xafy\n+++ b/x\xc0\xafy\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_PATH, "not valid UTF-8", 0, { { 0 } } },
	{ "path_git_directory",
	    "--- a/.git/hooks/pre-commit\n+++ b/.git/hooks/pre-commit\n"
	    "@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH, "\".git\"", 0,
	    { { 0 } } },
	{ "path_git_directory_case_folded",
	    "--- a/sub/.GiT/config\n+++ b/sub/.GiT/config\n"
	    "@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_PATH, "\".git\"", 0, { { 0 } } },
	{ "path_quoted",
	    "--- \"a/x\\ty\"\n+++ \"b/x\\ty\"\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_FORMAT, "quoted (C-escaped) paths", 0, { { 0 } } },
	{ "git_header_path_traversal",
	    "diff --git a/../x b/../x\nnew file mode 100644\n", 0,
	    AL_ERR_PATH, "\"..\"", 0, { { 0 } } },

	/* Refused patch forms. */
	{ "rename_by_file_headers",
	    "--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_FORMAT,
	    "renames are not supported", 0, { { 0 } } },
	{ "rename_git",
	    "diff --git a/x b/y\nsimilarity index 100%\nrename from x\n"
	    "rename to y\n", 0, AL_ERR_FORMAT,
	    "renames and copies are not supported", 0, { { 0 } } },
	{ "rename_git_same_name_lines",
	    "diff --git a/x b/x\nrename from x\nrename to x\n", 0,
	    AL_ERR_FORMAT, "renames are not supported", 0, { { 0 } } },
	{ "copy_git",
	    "diff --git a/x b/x\ncopy from x\ncopy to x\n", 0, AL_ERR_FORMAT,
	    "copies are not supported", 0, { { 0 } } },
	{ "mode_change",
	    "diff --git a/x b/x\nold mode 100644\nnew mode 100755\n", 0,
	    AL_ERR_FORMAT, "mode changes are not supported", 0, { { 0 } } },
	{ "symlink_creation",
	    "diff --git a/l b/l\nnew file mode 120000\nindex 0..1\n"
	    "--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc/shadow\n" NONL, 0,
	    AL_ERR_FORMAT, "symbolic links are not supported", 0, { { 0 } } },
	{ "symlink_retarget",
	    "diff --git a/l b/l\nindex 1..2 120000\n--- a/l\n+++ b/l\n"
	    "@@ -1 +1 @@\n-x\n+/etc\n", 0, AL_ERR_FORMAT,
	    "symbolic links are not supported", 0, { { 0 } } },
	{ "submodule",
	    "diff --git a/m b/m\nindex 1..2 160000\n--- a/m\n+++ b/m\n"
	    "@@ -1 +1 @@\n-Subproject commit 1\n+Subproject commit 2\n", 0,
	    AL_ERR_FORMAT, "submodules are not supported", 0, { { 0 } } },
	{ "executable_creation",
	    "diff --git a/x.sh b/x.sh\nnew file mode 100755\n", 0,
	    AL_ERR_FORMAT, "creating executable files", 0, { { 0 } } },
	{ "binary_git",
	    "diff --git a/b.png b/b.png\nindex 1..2 100644\n"
	    "GIT binary patch\nliteral 1\nIcmZo*00001\n", 0, AL_ERR_FORMAT,
	    "binary patches are not supported", 0, { { 0 } } },
	{ "binary_files_differ",
	    "Binary files a/b.png and b/b.png differ\n", 0, AL_ERR_FORMAT,
	    "binary patches are not supported", 0, { { 0 } } },
	{ "binary_files_differ_git",
	    "diff --git a/b.png b/b.png\nindex 1..2 100644\n"
	    "Binary files a/b.png and b/b.png differ\n", 0, AL_ERR_FORMAT,
	    "binary patches are not supported", 0, { { 0 } } },
	{ "git_header_mode_only",
	    "diff --git a/x b/x\nindex 1..2 100644\n", 0, AL_ERR_FORMAT,
	    "without a content change", 0, { { 0 } } },
	{ "git_header_disagrees_with_file_header",
	    "diff --git a/x b/x\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_FORMAT, "does not agree with its git header", 0, { { 0 } } },
	{ "git_header_new_file_but_modify",
	    "diff --git a/x b/x\nnew file mode 100644\n--- a/x\n+++ b/x\n"
	    "@@ -1 +1 @@\n-a\n+b\n", 0, AL_ERR_FORMAT,
	    "does not agree with its git header", 0, { { 0 } } },
	{ "git_header_unknown_line",
	    "diff --git a/x b/x\nfrobnicate\n--- a/x\n+++ b/x\n", 0,
	    AL_ERR_FORMAT, "unexpected line in git header", 0, { { 0 } } },
	{ "git_header_malformed",
	    "diff --git a/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", 0,
	    AL_ERR_FORMAT, "git header must read", 0, { { 0 } } },
};

#define NROWS	(sizeof(rows) / sizeof(rows[0]))

START_TEST(test_diff_rows)
{
	const struct row *r = &rows[_i];
	struct diff *d = NULL;
	char err[1024], *out;
	size_t len, i, outlen;
	int rc;

	len = r->patchlen ? r->patchlen : strlen(r->patch);
	memset(err, 'X', sizeof(err));
	rc = diff_parse(r->patch, len, &d, err, sizeof(err));
	ck_assert_msg(rc == r->rc, "%s: parse returned %d (%s), want %d",
	    r->name, rc, err, r->rc);
	ck_assert_msg(memchr(err, '\0', sizeof(err)) != NULL,
	    "%s: error not terminated", r->name);
	if (r->err != NULL)
		ck_assert_msg(strstr(err, r->err) != NULL,
		    "%s: parse error \"%s\" lacks \"%s\"", r->name, err,
		    r->err);
	if (rc != 0) {
		ck_assert_msg(d == NULL, "%s: *out set on failure", r->name);
		ck_assert_msg(err[0] != '\0', "%s: no message", r->name);
		return;
	}
	ck_assert_msg(diff_nfiles(d) == r->nfiles, "%s: %zu files, want %zu",
	    r->name, diff_nfiles(d), r->nfiles);
	for (i = 0; i < r->nfiles; i++) {
		const struct frow *f = &r->f[i];

		ck_assert_msg(strcmp(diff_path(d, i), f->path) == 0,
		    "%s: file %zu path '%s', want '%s'", r->name, i,
		    diff_path(d, i), f->path);
		ck_assert_msg(diff_file_kind(d, i) == f->kind,
		    "%s: file %zu kind %d, want %d", r->name, i,
		    diff_file_kind(d, i), f->kind);
		ck_assert((diff_old_path(d, i) == NULL) ==
		    (f->kind == DIFF_CREATE));
		ck_assert((diff_new_path(d, i) == NULL) ==
		    (f->kind == DIFF_DELETE));
		err[0] = 'X';
		rc = diff_apply_file(d, i, f->old, f->old ? strlen(f->old) : 0,
		    &out, &outlen, err, sizeof(err));
		ck_assert_msg(rc == f->rc, "%s: file %zu apply returned %d "
		    "(%s), want %d", r->name, i, rc, err, f->rc);
		if (f->err != NULL)
			ck_assert_msg(strstr(err, f->err) != NULL,
			    "%s: apply error \"%s\" lacks \"%s\"", r->name,
			    err, f->err);
		if (rc != 0) {
			ck_assert(out == NULL && outlen == 0);
			continue;
		}
		ck_assert_msg(err[0] == '\0', "%s: message on success",
		    r->name);
		ck_assert_msg(outlen == strlen(f->new) &&
		    memcmp(out, f->new, outlen) == 0 && out[outlen] == '\0',
		    "%s: file %zu result \"%s\", want \"%s\"", r->name, i,
		    out, f->new);
		free(out);
	}
	diff_free(d);
}
END_TEST

START_TEST(test_diff_stat_counts_added_and_removed_lines)
{
	static const char p[] = P_MOD "@@ -1,3 +1,4 @@\n-1\n+one\n+uno\n 2\n"
	    " 3\n@@ -9,2 +10,1 @@\n-9\n 10\n";
	struct diff *d;
	size_t added, removed;

	ck_assert_int_eq(diff_parse(p, sizeof(p) - 1, &d, NULL, 0), 0);
	diff_file_stat(d, 0, &added, &removed);
	ck_assert_uint_eq(added, 2);
	ck_assert_uint_eq(removed, 2);
	ck_assert_uint_eq(diff_file_nhunks(d, 0), 2);
	diff_free(d);
}
END_TEST

START_TEST(test_diff_refuses_patch_over_size_limit)
{
	char *big, err[256];
	struct diff *d = (struct diff *)1;

	big = malloc(DIFF_MAX_PATCH + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, '+', DIFF_MAX_PATCH + 1);
	ck_assert_int_eq(diff_parse(big, DIFF_MAX_PATCH + 1, &d, err,
	    sizeof(err)), AL_ERR_LIMIT);
	ck_assert_ptr_null(d);
	ck_assert_ptr_nonnull(strstr(err, "more than the limit"));
	free(big);
}
END_TEST

/* Builds a patch of |nfiles| files of |nhunks| one-line hunks each. */
static char *
many(size_t nfiles, size_t nhunks, size_t *len)
{
	size_t cap = nfiles * (64 + nhunks * 48) + 1, o = 0, i, j;
	char *s = malloc(cap);

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < nfiles; i++) {
		o += (size_t)snprintf(s + o, cap - o,
		    "--- a/f%zu\n+++ b/f%zu\n", i, i);
		for (j = 0; j < nhunks; j++)
			o += (size_t)snprintf(s + o, cap - o,
			    "@@ -%zu +%zu @@\n-a\n+b\n", 2 * j + 1, 2 * j + 1);
	}
	*len = o;
	return s;
}

START_TEST(test_diff_file_and_hunk_limits)
{
	struct diff *d;
	char *s, err[256];
	size_t len;

	s = many(DIFF_MAX_FILES, 1, &len);
	ck_assert_int_eq(diff_parse(s, len, &d, err, sizeof(err)), 0);
	ck_assert_uint_eq(diff_nfiles(d), DIFF_MAX_FILES);
	diff_free(d);
	free(s);

	s = many(DIFF_MAX_FILES + 1, 1, &len);
	ck_assert_int_eq(diff_parse(s, len, &d, err, sizeof(err)),
	    AL_ERR_LIMIT);
	ck_assert_ptr_nonnull(strstr(err, "more files than the limit"));
	free(s);

	s = many(1, DIFF_MAX_HUNKS, &len);
	ck_assert_int_eq(diff_parse(s, len, &d, err, sizeof(err)), 0);
	diff_free(d);
	free(s);

	s = many(1, DIFF_MAX_HUNKS + 1, &len);
	ck_assert_int_eq(diff_parse(s, len, &d, err, sizeof(err)),
	    AL_ERR_LIMIT);
	ck_assert_ptr_nonnull(strstr(err, "hunks in the patch"));
	free(s);
}
END_TEST

START_TEST(test_diff_apply_bad_arguments)
{
	static const char p[] = P_MOD "@@ -1 +1 @@\n-a\n+b\n";
	struct diff *d;
	char *out;
	size_t outlen;

	ck_assert_int_eq(diff_parse(p, sizeof(p) - 1, &d, NULL, 0), 0);
	ck_assert_int_eq(diff_apply_file(d, 1, "a\n", 2, &out, &outlen, NULL,
	    0), AL_ERR_INTERNAL);
	ck_assert_int_eq(diff_apply_file(d, 0, NULL, 2, &out, &outlen, NULL,
	    0), AL_ERR_INTERNAL);
	ck_assert_ptr_null(out);
	/* A tiny error buffer is still terminated. */
	{
		char small[8];

		ck_assert_int_eq(diff_apply_file(d, 0, "x\n", 2, &out,
		    &outlen, small, sizeof(small)), AL_ERR_CONFLICT);
		ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	}
	diff_free(d);
	diff_free(NULL);
}
END_TEST

/*
 * Round trip: random old and new texts, diffed by diff(1) with the a/ b/
 * labels git uses, must parse and apply back to exactly the new text.
 * Texts use a tiny alphabet so that hunks have shared context, and now and
 * then CRLF lines or a missing final newline.
 */
static unsigned int seed = 12345;

static unsigned int
rnd(unsigned int n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) % n;
}

static size_t
gen_text(char *buf, size_t cap)
{
	static const char *words[] = { "a", "b", "c", "", "  x", "int y;",
	    "}", "\t{", "--- a/f.txt", "+++ b/f.txt", "@@ -1 +1 @@",
	    "\\ No newline at end of file", "diff --git a/f b/f", " ", "-" };
	size_t nwords = sizeof(words) / sizeof(words[0]);
	size_t nlines = rnd(30), i, o = 0;
	int crlf = rnd(4) == 0;

	for (i = 0; i < nlines && o + 32 < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s",
		    words[rnd(nwords)], crlf && rnd(2) ? "\r\n" : "\n");
	if (o > 0 && rnd(4) == 0)
		o--;	/* no newline at end of file */
	return o;
}

static size_t
mutate(const char *old, size_t oldlen, char *buf, size_t cap)
{
	size_t i = 0, o = 0, ln;
	const char *nl;

	while (i < oldlen && o + 64 < cap) {
		nl = memchr(old + i, '\n', oldlen - i);
		ln = nl ? (size_t)(nl - (old + i)) + 1 : oldlen - i;
		switch (rnd(8)) {
		case 0:		/* delete */
			break;
		case 1:		/* insert before */
			o += (size_t)snprintf(buf + o, cap - o, "new%u\n",
			    rnd(3));
			/* FALLTHROUGH */
		default:
			memcpy(buf + o, old + i, ln);
			o += ln;
		}
		i += ln;
	}
	if (rnd(3) == 0)
		o += (size_t)snprintf(buf + o, cap - o, "tail\n");
	if (o > 0 && buf[o - 1] == '\n' && rnd(5) == 0)
		o--;
	return o;
}

static void
write_file(const char *path, const char *s, size_t n)
{
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(s, 1, n, fp), n);
	ck_assert_int_eq(fclose(fp), 0);
}

/* Runs diff(1) and returns its output, or NULL if the texts are equal. */
static char *
run_diff(const char *args, size_t *len)
{
	char cmd[512], *out;
	size_t cap = 1 << 20, n;
	FILE *fp;

	snprintf(cmd, sizeof(cmd), "diff %s", args);
	ck_assert_ptr_nonnull(fp = popen(cmd, "r"));
	ck_assert_ptr_nonnull(out = malloc(cap));
	n = fread(out, 1, cap, fp);
	ck_assert_uint_lt(n, cap);
	(void)pclose(fp);
	*len = n;
	if (n == 0) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * No fuzz: changing any one old line that a hunk covers (as context or as
 * a removed line) must make the patch refuse, naming that hunk.  Returns 1
 * if a covered line was changed and the patch refused.
 */
static int
change_covered_line(const struct diff *d, const char *patch, size_t plen,
    const char *old, size_t oldlen)
{
	size_t start[64], count[64], num[64], nh = 0, seen = 0, h, pos, line;
	size_t target, n;
	char *copy, *out, err[512], want[32];
	const char *s, *e, *nl;
	size_t outlen;
	int rc;

	/* The hunks' old ranges, read from the headers diff(1) wrote. */
	for (s = patch, e = patch + plen; s < e && nh < 64; s = nl + 1) {
		if ((nl = memchr(s, '\n', (size_t)(e - s))) == NULL)
			break;
		if (strncmp(s, "@@ -", 4) != 0)
			continue;
		seen++;
		if (sscanf(s, "@@ -%zu,%zu", &start[nh], &count[nh]) != 2)
			count[nh] = 1;
		num[nh] = seen;
		if (count[nh] > 0)	/* a pure insertion covers no line */
			nh++;
	}
	if (nh == 0)
		return 0;
	h = rnd((unsigned int)nh);
	target = start[h] - 1 + rnd((unsigned int)count[h]);
	copy = malloc(oldlen + 2);
	ck_assert_ptr_nonnull(copy);
	for (pos = 0, line = 0; line < target; line++)
		pos = (size_t)((const char *)memchr(old + pos, '\n',
		    oldlen - pos) - old) + 1;
	nl = memchr(old + pos, '\n', oldlen - pos);
	n = nl ? (size_t)(nl - old) : oldlen;	/* end of the line's text */
	memcpy(copy, old, n);
	copy[n] = 'Z';
	memcpy(copy + n + 1, old + n, oldlen - n);
	rc = diff_apply_file(d, 0, copy, oldlen + 1, &out, &outlen, err,
	    sizeof(err));
	free(copy);
	ck_assert_msg(rc == AL_ERR_CONFLICT, "changed old line %zu in hunk "
	    "%zu, apply returned %d", target + 1, num[h], rc);
	snprintf(want, sizeof(want), "hunk %zu (", num[h]);
	ck_assert_msg(strstr(err, want) != NULL, "\"%s\" lacks \"%s\"", err,
	    want);
	snprintf(want, sizeof(want), "old line %zu differs", target + 1);
	ck_assert_msg(strstr(err, want) != NULL, "\"%s\" lacks \"%s\"", err,
	    want);
	return 1;
}

START_TEST(test_diff_round_trip_with_diff_u)
{
	char dir[] = "/tmp/test_diff.XXXXXX", po[64], pn[64], args[256];
	char old[2048], new[2048], err[512], *patch, *out;
	size_t oldlen, newlen, plen, outlen;
	struct diff *d;
	int iter, applied = 0, refused = 0, ctx;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(po, sizeof(po), "%s/old", dir);
	snprintf(pn, sizeof(pn), "%s/new", dir);
	for (iter = 0; iter < 300; iter++) {
		oldlen = gen_text(old, sizeof(old));
		newlen = mutate(old, oldlen, new, sizeof(new));
		write_file(po, old, oldlen);
		write_file(pn, new, newlen);
		ctx = (int)rnd(4);
		snprintf(args, sizeof(args), "-U%d --label a/f.txt --label "
		    "b/f.txt %s %s", ctx, po, pn);
		if ((patch = run_diff(args, &plen)) == NULL)
			continue;
		ck_assert_msg(diff_parse(patch, plen, &d, err, sizeof(err)) ==
		    0, "iteration %d: %s\n%.*s", iter, err, (int)plen, patch);
		ck_assert_int_eq(diff_file_kind(d, 0), DIFF_MODIFY);
		ck_assert_msg(diff_apply_file(d, 0, old, oldlen, &out, &outlen,
		    err, sizeof(err)) == 0, "iteration %d: %s\n%.*s", iter,
		    err, (int)plen, patch);
		ck_assert_msg(outlen == newlen && memcmp(out, new, newlen) == 0,
		    "iteration %d: result differs\n%.*s", iter, (int)plen,
		    patch);
		free(out);
		refused += change_covered_line(d, patch, plen, old, oldlen);
		diff_free(d);
		free(patch);
		applied++;
	}
	ck_assert_int_gt(applied, 240);
	ck_assert_int_gt(refused, 100);

	/* Create and delete, with /dev/null on one side. */
	for (iter = 0; iter < 30; iter++) {
		do
			newlen = gen_text(new, sizeof(new));
		while (newlen == 0);
		write_file(pn, new, newlen);
		snprintf(args, sizeof(args), "-u --label /dev/null --label "
		    "b/n.txt /dev/null %s", pn);
		ck_assert_ptr_nonnull(patch = run_diff(args, &plen));
		ck_assert_msg(diff_parse(patch, plen, &d, err, sizeof(err)) ==
		    0, "create %d: %s", iter, err);
		ck_assert_int_eq(diff_file_kind(d, 0), DIFF_CREATE);
		ck_assert_int_eq(diff_apply_file(d, 0, NULL, 0, &out, &outlen,
		    err, sizeof(err)), 0);
		ck_assert(outlen == newlen && memcmp(out, new, newlen) == 0);
		free(out);
		diff_free(d);
		free(patch);

		snprintf(args, sizeof(args), "-u --label a/n.txt --label "
		    "/dev/null %s /dev/null", pn);
		ck_assert_ptr_nonnull(patch = run_diff(args, &plen));
		ck_assert_msg(diff_parse(patch, plen, &d, err, sizeof(err)) ==
		    0, "delete %d: %s", iter, err);
		ck_assert_int_eq(diff_file_kind(d, 0), DIFF_DELETE);
		ck_assert_int_eq(diff_apply_file(d, 0, new, newlen, &out,
		    &outlen, err, sizeof(err)), 0);
		ck_assert_uint_eq(outlen, 0);
		free(out);
		diff_free(d);
		free(patch);
	}
	unlink(po);
	unlink(pn);
	rmdir(dir);
}
END_TEST

static Suite *
diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_diff_rows, 0, NROWS);
	tcase_add_test(tc, test_diff_stat_counts_added_and_removed_lines);
	tcase_add_test(tc, test_diff_refuses_patch_over_size_limit);
	tcase_add_test(tc, test_diff_file_and_hunk_limits);
	tcase_add_test(tc, test_diff_apply_bad_arguments);
	tcase_add_test(tc, test_diff_round_trip_with_diff_u);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(diff_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
