/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* trustkeys: the host keys named on a command line (trustkeys.h). */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/audit.h"
#include "broker/audit_verify.h"
#include "common/log.h"
#include "supervisor/trustkeys.h"

static int
trusted_add(struct trusted *t, const unsigned char pk[32], const char *from)
{
	if (t->n == TRUSTED_MAX) {
		log_warnx("%s: more than %d trusted keys", from, TRUSTED_MAX);
		return -1;
	}
	memcpy(t->keys[t->n++], pk, 32);
	return 0;
}

int
trusted_load_file(const char *path, struct trusted *t)
{
	char hex[AUDIT_PUBKEY_HEX_LEN + 1], *line = NULL, *p;
	unsigned char pk[32];
	struct stat st;
	size_t cap = 0, before = t->n, lineno = 0;
	FILE *fp;
	int rc = 0;

	if (stat(path, &st) == -1) {
		log_warn("%s", path);
		return -1;
	}
	if (S_ISREG(st.st_mode) && st.st_size == 32) {
		if (audit_key_public(path, 0, hex) != 0 ||
		    audit_parse_pubkey(hex, pk) != 0) {
			log_warnx("%s: cannot read the key", path);
			return -1;
		}
		return trusted_add(t, pk, path);
	}
	if ((fp = fopen(path, "re")) == NULL) {
		log_warn("%s", path);
		return -1;
	}
	while (rc == 0 && getline(&line, &cap, fp) > 0) {
		lineno++;
		p = line + strspn(line, " \t");
		p[strcspn(p, " \t\r\n")] = '\0';
		if (*p == '\0' || *p == '#')
			continue;
		if (audit_parse_pubkey(p, pk) != 0) {
			log_warnx("%s:%zu: not a public key (64 hex digits)",
			    path, lineno);
			rc = -1;
		} else
			rc = trusted_add(t, pk, path);
	}
	free(line);
	fclose(fp);
	if (rc == 0 && t->n == before) {
		log_warnx("%s: no public key in it", path);
		rc = -1;
	}
	return rc;
}

int
trusted_load_arg(const char *arg, const char *opt, struct trusted *t)
{
	unsigned char pk[32];

	if (strlen(arg) == 64 && audit_parse_pubkey(arg, pk) == 0)
		return trusted_add(t, pk, opt);
	if (access(arg, F_OK) == -1) {
		log_warnx("%s: not 64 hex digits nor a key file: %s", opt, arg);
		return -1;
	}
	return trusted_load_file(arg, t);
}

int
trusted_has(const struct trusted *t, const unsigned char pk[32])
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (sodium_memcmp(t->keys[i], pk, 32) == 0)
			return 1;
	return 0;
}
