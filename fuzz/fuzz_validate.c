/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * libFuzzer target for policy/types.c: validating a request's arguments
 * against the types a manifest declares.
 *
 * Two manifests are loaded once: the seed's Workboard manifest and
 * tests/golden/full.yaml (user types with bounds, patterns, enums, lists
 * and objects).  The first input byte picks a target: the input or the
 * output fields of one tool, or one type of the table; the rest is JSON
 * text, parsed as the broker parses arguments (duplicate keys refused).
 *
 * Invariants checked, beyond "does not crash":
 *   - err is always terminated, and holds a reason when validation fails;
 *   - validation is deterministic;
 *   - a value that validates still validates after a round trip through
 *     the canonical form json_dumps(JSON_SORT_KEYS) / json_loads.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/errors.h"
#include "policy/manifest.h"
#include "policy/types.h"

#ifndef FUZZ_SRCDIR
#define FUZZ_SRCDIR "."
#endif

static struct manifest *ms[2];

static int
check_exists(const char *id, void *arg)
{
	return manifest_check(arg, id) != NULL;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *files[] = { "tests/golden/workboard.yaml",
		"tests/golden/full.yaml" };
	char path[4096], err[512];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", FUZZ_SRCDIR, files[i]);
		if (manifest_load(path, &ms[i], err, sizeof(err)) != 0) {
			fprintf(stderr, "fuzz_validate: %s\n", err);
			exit(1);
		}
	}
	return 0;
}

/* Validates |v| against target |sel| of manifest |m|; returns rc. */
static int
validate(const struct manifest *m, unsigned sel, const json_t *v)
{
	const struct tool *t;
	char err[512];
	size_t ntargets = 2 * m->ntools + type_table_count(m->types);
	int rc;

	sel %= ntargets;
	memset(err, 'X', sizeof(err));
	if (sel < 2 * m->ntools) {
		t = &m->tools[sel / 2];
		if (sel % 2 == 0)
			rc = type_validate_fields(t->input, t->ninput, v,
			    check_exists, (void *)m, err, sizeof(err));
		else
			rc = type_validate_fields(t->output, t->noutput, v,
			    check_exists, (void *)m, err, sizeof(err));
	} else
		rc = type_validate(type_table_at(m->types, sel - 2 * m->ntools),
		    v, check_exists, (void *)m, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	if (rc != 0 && (rc != AL_ERR_TYPE || err[0] == '\0'))
		abort();
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct manifest *m;
	json_error_t jerr;
	json_t *v, *back;
	char *canon;
	unsigned sel;
	int rc;

	if (size < 1)
		return 0;
	m = ms[data[0] & 1];
	sel = data[0] >> 1;
	v = json_loadb((const char *)data + 1, size - 1,
	    JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (v == NULL)
		return 0;
	rc = validate(m, sel, v);
	if (validate(m, sel, v) != rc)
		abort();
	if (rc == 0) {
		canon = json_dumps(
		    v, JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_COMPACT);
		if (canon == NULL)
			abort();
		back = json_loads(
		    canon, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
		if (back == NULL) {
			fprintf(stderr, "canonical form does not parse: %s\n",
			    canon);
			abort();
		}
		if (validate(m, sel, back) != 0) {
			fprintf(stderr,
			    "canonical form does not validate: "
			    "%s\n",
			    canon);
			abort();
		}
		json_decref(back);
		free(canon);
	}
	json_decref(v);
	return 0;
}
