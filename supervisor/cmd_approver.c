/*
 * airlock approver keygen FILE: an approver's Ed25519 key pair, made on
 * the approver's own machine.  The secret key stays in FILE (0600); the
 * public key, in FILE.pub and on stdout, goes into the manifest's
 * approvals.keys.  See common/approver_token.h for the formats.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/approver_token.h"
#include "common/log.h"
#include "supervisor/commands.h"

int
cmd_approver(int argc, char **argv)
{
	char pub[APPROVER_PK_TEXT], err[512];

	log_init("airlock approver", 0);
	if (argc != 3 || strcmp(argv[1], "keygen") != 0 || argv[2][0] == '-') {
		fprintf(stderr, "usage: airlock approver keygen FILE\n");
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
