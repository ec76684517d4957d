/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* The bounded frame reader (common/buf.c): table-driven. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/errors.h"

/* Feeds |in| through a pipe in |chunk|-byte writes; collects what comes out. */
static void
run(size_t max, const char *in, size_t inlen, size_t chunk, char *out,
    size_t outlen)
{
	struct buf	*b = buf_new(max);
	const char	*frame;
	size_t		 len, off = 0;
	int		 p[2], rc;
	ssize_t		 n;

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(pipe(p), 0);
	out[0] = '\0';
	for (;;) {
		if (off < inlen) {
			size_t k = inlen - off < chunk ? inlen - off : chunk;

			ck_assert_int_eq(write(p[1], in + off, k), (ssize_t)k);
			off += k;
			if (off == inlen)
				close(p[1]);
		}
		n = buf_fill(b, p[0]);
		ck_assert_int_ge(n, 0);
		for (;;) {
			rc = n == 0 ? buf_final_frame(b, &frame, &len) :
			    buf_next_frame(b, &frame, &len);
			if (rc == 0)
				break;
			if (rc == AL_ERR_LIMIT)
				strncat(out, "[LIMIT]", outlen - strlen(out) - 1);
			else if (rc == AL_ERR_FORMAT)
				strncat(out, "[NUL]", outlen - strlen(out) - 1);
			else {
				ck_assert_uint_eq(strlen(frame), len);
				strncat(out, "<", outlen - strlen(out) - 1);
				strncat(out, frame, outlen - strlen(out) - 1);
				strncat(out, ">", outlen - strlen(out) - 1);
			}
			if (n == 0 && rc == 1)
				break;
		}
		if (n == 0)
			break;
	}
	close(p[0]);
	buf_free(b);
}

static const struct row {
	const char	*name;
	size_t		 max;
	const char	*in;
	size_t		 inlen;		/* 0: strlen(in) */
	const char	*want;
} rows[] = {
	{ "one frame", 16, "abc\n", 0, "<abc>" },
	{ "two frames", 16, "abc\ndef\n", 0, "<abc><def>" },
	{ "empty line is a frame", 16, "\nx\n", 0, "<><x>" },
	{ "tail without newline at EOF", 16, "abc\ndef", 0, "<abc><def>" },
	{ "exactly max bytes is served", 4, "abcd\nxy\n", 0, "<abcd><xy>" },
	{ "max plus one is refused once", 4, "abcde\nxy\n", 0, "[LIMIT]<xy>" },
	{ "a long frame is skipped whole", 4, "aaaaaaaaaaaaaaaaaaaa\nok\n", 0,
	    "[LIMIT]<ok>" },
	{ "two long frames, two reports", 3, "aaaaa\nbbbbbb\nc\n", 0,
	    "[LIMIT][LIMIT]<c>" },
	{ "a long tail at EOF", 3, "ok\naaaaaaa", 0, "<ok>[LIMIT]" },
	{ "NUL inside a frame", 16, "a\0b\nok\n", 7, "[NUL]<ok>" },
};

START_TEST(test_buf_frames_table)
{
	const struct row	*r = &rows[_i];
	size_t			 chunk;
	char			 out[512];

	/* Every split of the input into writes gives the same frames. */
	for (chunk = 1; chunk <= 8; chunk++) {
		run(r->max, r->in, r->inlen ? r->inlen : strlen(r->in), chunk,
		    out, sizeof(out));
		ck_assert_msg(strcmp(out, r->want) == 0,
		    "%s (chunk %zu): got %s, want %s", r->name, chunk, out,
		    r->want);
	}
}
END_TEST

START_TEST(test_buf_refuses_absurd_limits)
{
	ck_assert_ptr_null(buf_new(0));
	ck_assert_ptr_null(buf_new((size_t)1 << 40));
	buf_free(NULL);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("buf");
	TCase	*tc = tcase_create("frames");
	SRunner	*sr;
	int	 failed;

	tcase_add_loop_test(tc, test_buf_frames_table, 0,
	    sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, test_buf_refuses_absurd_limits);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
