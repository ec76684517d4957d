/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock approver keygen FILE: an approver's Ed25519 key pair, made on
 * the approver's own machine.  The secret key stays in FILE (0600); the
 * public key, in FILE.pub and on stdout, goes into the manifest's
 * approvals.keys.  See common/approver_token.h for the formats.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "common/approver_token.h"
#include "common/log.h"
#include "policy/manifest_sig.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"

static int
sign_manifest(const char *keypath, const char *manifest)
{
	unsigned char sk[64];
	char err[PATH_MAX + 256];
	int rc;

	if (approver_secret_load(keypath, sk, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		return 1;
	}
	rc = manifest_sign(manifest, sk, err, sizeof(err));
	sodium_memzero(sk, sizeof(sk));
	if (rc != 0) {
		log_warnx("%s", err);
		return 1;
	}
	printf("signed %s: %s.sig\n", manifest, manifest);
	return 0;
}

int
cmd_approver(int argc, char **argv)
{
	char pub[APPROVER_PK_TEXT], err[512];

	log_init("airlock approver", 0);
	if (argc == 5 && strcmp(argv[1], "sign-manifest") == 0 &&
	    strcmp(argv[2], "--key") == 0)
		return sign_manifest(argv[3], argv[4]);
	if (argc != 3 || strcmp(argv[1], "keygen") != 0 || argv[2][0] == '-') {
		cli_usage("approver");
		return EXIT_USAGE;
	}
	if (approver_keygen(argv[2], pub, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		return 1;
	}
	printf("%s\n", pub);
	fprintf(stderr,
	    "secret key: %s (keep it on this machine)\n"
	    "public key: %s.pub (add it to approvals.keys)\n",
	    argv[2], argv[2]);
	return 0;
}
