/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for the audit log verifier (broker/audit_verify.c).
 *
 * A valid, closed log is written once through broker/audit.c.  The first
 * input byte picks the mode:
 *
 *   even: the rest of the input is log text, verified as is (with and
 *         without the real key pinned): it must not crash, and it must
 *         not verify under the pinned key unless it is the real log or a
 *         line-boundary prefix of it;
 *   odd:  the rest is an edit applied to the valid log: 2 bytes of
 *         offset, 1 byte of length to delete, then the bytes to insert
 *         (at most 64).  If the edited log differs from the original, it
 *         must not verify as CLOSED, and it may be OPEN only if it is a
 *         prefix of the original that ends at a line boundary (the tail
 *         was cut off, which the verifier reports as OPEN by design).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "broker/audit.h"
#include "broker/audit_verify.h"
#include "common/errors.h"

static char *orig;
static size_t origlen;
static unsigned char pk[32];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/airlock-fuzz-audit.XXXXXX", path[256];
	struct audit *a;
	json_t *f;
	FILE *fp;
	long n;
	int i;

	if (sodium_init() < 0 || mkdtemp(dir) == NULL)
		abort();
	snprintf(path, sizeof(path), "%s/audit.log", dir);
	if (audit_open(path, "fuzz-session", &a) != 0)
		abort();
	audit_set_sync(a, AUDIT_SYNC_NONE);
	for (i = 0; i < 6; i++) {
		f = json_pack("{s:s, s:i, s:{s:s}, s:[s,s]}", "tool",
		    i % 2 ? "read_file" : "run_check", "request_id", i,
		    "arguments", "path", "src/app.ts", "argv", "npm", "test");
		if (f == NULL ||
		    audit_append(a, i % 3 ? "request" : "decision", f) != 0)
			abort();
		json_decref(f);
	}
	if (audit_parse_pubkey(audit_public_key(a), pk) != 0)
		abort();
	audit_close(a);
	if ((fp = fopen(path, "r")) == NULL || fseek(fp, 0, SEEK_END) != 0 ||
	    (n = ftell(fp)) <= 0 || fseek(fp, 0, SEEK_SET) != 0)
		abort();
	origlen = (size_t)n;
	if ((orig = malloc(origlen)) == NULL ||
	    fread(orig, 1, origlen, fp) != origlen)
		abort();
	fclose(fp);
	unlink(path);
	rmdir(dir);
	return 0;
}

static int
verify(const char *text, size_t len, const unsigned char *pin)
{
	struct audit_verify_result res;
	FILE *fp;
	int rc;

	/* fmemopen() refuses a zero-length buffer on older C libraries. */
	if ((fp = fmemopen(
		 len ? (void *)text : (void *)"", len ? len : 1, "r")) == NULL)
		abort();
	if (len == 0)
		(void)fgetc(fp);
	memset(&res, 'X', sizeof(res));
	rc = audit_verify_fp(fp, pin, NULL, &res);
	fclose(fp);
	if (rc < 0)
		return rc;
	if (rc != res.status ||
	    memchr(res.reason, '\0', sizeof(res.reason)) == NULL)
		abort();
	if (rc == AUDIT_VERIFY_BAD &&
	    (res.bad_line == 0 || res.reason[0] == '\0'))
		abort();
	return rc;
}

/* 1 if |text| is the original log cut at a line boundary (or all of it). */
static int
is_line_prefix(const char *text, size_t len)
{
	if (len > origlen || memcmp(text, orig, len) != 0)
		return 0;
	return len == 0 || text[len - 1] == '\n';
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	size_t off, del, ins, len;
	int rc;

	if (size < 1)
		return 0;
	if ((data[0] & 1) == 0) {
		text = (char *)data + 1;
		len = size - 1;
		(void)verify(text, len, NULL);
		rc = verify(text, len, pk);
		if (rc == AUDIT_VERIFY_CLOSED &&
		    (len != origlen || memcmp(text, orig, len) != 0))
			abort();
		if (rc == AUDIT_VERIFY_OPEN && !is_line_prefix(text, len))
			abort();
		return 0;
	}
	if (size < 4)
		return 0;
	off = ((size_t)data[1] << 8 | data[2]) % (origlen + 1);
	del = data[3];
	if (del > origlen - off)
		del = origlen - off;
	ins = size - 4 > 64 ? 64 : size - 4;
	len = origlen - del + ins;
	if ((text = malloc(len + 1)) == NULL)
		abort();
	memcpy(text, orig, off);
	memcpy(text + off, data + 4, ins);
	memcpy(text + off + ins, orig + off + del, origlen - off - del);
	if (len == origlen && memcmp(text, orig, len) == 0) {
		free(text);
		return 0;
	}
	rc = verify(text, len, (data[0] & 2) ? pk : NULL);
	if (rc == AUDIT_VERIFY_CLOSED) {
		fprintf(stderr,
		    "edited log verifies (off %zu del %zu ins "
		    "%zu)\n",
		    off, del, ins);
		abort();
	}
	if (rc == AUDIT_VERIFY_OPEN && !is_line_prefix(text, len)) {
		fprintf(stderr,
		    "edited log verifies as open (off %zu del %zu "
		    "ins %zu)\n",
		    off, del, ins);
		abort();
	}
	free(text);
	return 0;
}
