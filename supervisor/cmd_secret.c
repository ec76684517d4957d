/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock secret: set, list and rm in the sealed credential store.
 * A value only ever arrives on stdin (never argv, which any local user
 * can read in /proc) and is held in sodium_malloc'd memory.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <sodium.h>

#include "common/errors.h"
#include "common/log.h"
#include "broker/redact.h"
#include "broker/secrets.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"

#define PASS_MAX	4096

static void
secret_usage(void)
{
	cli_usage("secret");
}

/*
 * Reads at most |max| bytes from |fd| into |buf| until EOF (or, if
 * |line|, the first newline).  Returns the length, or -1 on error or if
 * the input is longer than |max|.
 */
static ssize_t
read_bounded(int fd, unsigned char *buf, size_t max, int line)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (len == max + 1)
			return -1;
		n = read(fd, buf + len, line ? 1 : max + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
		if (line && buf[len - 1] == '\n')
			break;
	}
	if (len > max)
		return -1;
	return (ssize_t)len;
}

/* Reads the value: echo off on a terminal, else all of stdin. */
static ssize_t
read_value(const char *name, unsigned char *buf, size_t max)
{
	struct termios t, saved;
	ssize_t n;
	int tty = isatty(STDIN_FILENO);

	if (tty) {
		fprintf(stderr, "value for %s: ", name);
		if (tcgetattr(STDIN_FILENO, &saved) == 0) {
			t = saved;
			t.c_lflag &= ~(tcflag_t)ECHO;
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &t);
		}
		n = read_bounded(STDIN_FILENO, buf, max, 1);
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
		fputc('\n', stderr);
	} else
		n = read_bounded(STDIN_FILENO, buf, max, 0);
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	return n;
}

static int
open_store(const char *dir, int passfd, struct secrets **s)
{
	char *pass, *env;
	ssize_t n = -1;
	int rc;

	if (passfd >= 0 || ((env = getenv(SECRETS_PASSPHRASE_ENV)) != NULL &&
	    *env != '\0')) {
		if ((pass = sodium_malloc(PASS_MAX + 2)) == NULL)
			fatalx("sodium_malloc");
		if (passfd >= 0)
			n = read_bounded(passfd, (unsigned char *)pass,
			    PASS_MAX, 1);
		else if ((n = (ssize_t)strlen(env)) <= PASS_MAX)
			memcpy(pass, env, (size_t)n);
		else
			n = -1;
		if (passfd < 0) {
			sodium_memzero(env, strlen(env));
			unsetenv(SECRETS_PASSPHRASE_ENV);
		}
		if (n > 0 && pass[n - 1] == '\n')
			n--;
		if (n <= 0) {
			sodium_free(pass);
			log_warnx("no passphrase (or longer than %d bytes)",
			    PASS_MAX);
			return -1;
		}
		rc = secrets_open_passphrase(dir, pass, (size_t)n, s);
		sodium_free(pass);
	} else
		rc = secrets_open(dir, s);
	switch (rc) {
	case 0:
		return 0;
	case AL_ERR_SYSTEM:
		log_warn("%s", dir);
		break;
	case AL_ERR_DENIED:
		log_warnx("%s: the store directory and key must be owned by "
		    "you and private (0700/0600)", dir);
		break;
	case AL_ERR_CONFLICT:
		log_warnx("%s: the store is sealed with %s", dir, passfd >= 0 ||
		    getenv(SECRETS_PASSPHRASE_ENV) != NULL ? "the key file; "
		    "do not give a passphrase" : "a passphrase; set "
		    SECRETS_PASSPHRASE_ENV " or use --passphrase-fd");
		break;
	case AL_ERR_CRYPTO:
		log_warnx("%s: the store does not open with this key or "
		    "passphrase", dir);
		break;
	default:
		log_warnx("%s: %s", dir, al_strerror(rc));
	}
	return -1;
}

int
cmd_secret(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "passphrase-fd", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct secrets *s = NULL;
	char *dir = NULL, **names, *end;
	unsigned char *value;
	const char *verb;
	int ch, passfd = -1, rc, status = 0;
	ssize_t n;
	size_t i, count;
	long l;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+d:p:", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			free(dir);
			if ((dir = strdup(optarg)) == NULL)
				fatal("strdup");
			break;
		case 'p':
			errno = 0;
			l = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || l < 0 || l > 1024) {
				log_warnx("--passphrase-fd: not a descriptor");
				return EXIT_USAGE;
			}
			passfd = (int)l;
			break;
		default:
			secret_usage();
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		secret_usage();
		return EXIT_USAGE;
	}
	verb = argv[0];
	if ((strcmp(verb, "set") == 0 || strcmp(verb, "rm") == 0) ?
	    argc != 2 : (strcmp(verb, "list") != 0 || argc != 1)) {
		secret_usage();
		return EXIT_USAGE;
	}
	if (argc == 2 && !secrets_name_valid(argv[1])) {
		log_warnx("%s: a name is [A-Za-z_][A-Za-z0-9_.-]{0,63}",
		    argv[1]);
		return EXIT_USAGE;
	}
	if (sodium_init() < 0)
		fatalx("sodium_init");
	if (dir == NULL && (rc = secrets_default_dir(&dir)) != 0) {
		log_warnx("no store directory: set AIRLOCK_HOME");
		return 1;
	}
	if (open_store(dir, passfd, &s) != 0) {
		free(dir);
		return 1;
	}

	if (strcmp(verb, "set") == 0) {
		if ((value = sodium_malloc(SECRETS_MAX_VALUE + 2)) == NULL)
			fatalx("sodium_malloc");
		n = read_value(argv[1], value, SECRETS_MAX_VALUE + 1);
		if (n < 0 || n > SECRETS_MAX_VALUE) {
			log_warnx("cannot read the value from stdin (at most "
			    "%d bytes)", SECRETS_MAX_VALUE);
			status = 1;
		} else if (n == 0) {
			log_warnx("refusing an empty value: give the value on "
			    "stdin, e.g. printf %%s \"$TOKEN\" | airlock "
			    "secret set %s", argv[1]);
			status = 1;
		} else if (memchr(value, '\0', (size_t)n) != NULL) {
			log_warnx("refusing a value with a NUL byte: %s is "
			    "granted through the environment, which would cut "
			    "it there", argv[1]);
			status = 1;
		} else if ((rc = secrets_set(s, argv[1], value, (size_t)n)) !=
		    0) {
			if (rc == AL_ERR_SYSTEM)
				log_warn("%s", dir);
			else
				log_warnx("%s: %s", argv[1], al_strerror(rc));
			status = 1;
		} else if (!redact_grantable((size_t)n))
			log_warnx("warning: %s is shorter than %d bytes: it is "
			    "stored, but too short to redact, so no tool can "
			    "be granted it", argv[1], REDACT_MIN_LEN);
		sodium_free(value);
	} else if (strcmp(verb, "rm") == 0) {
		if ((rc = secrets_remove(s, argv[1])) != 0) {
			log_warnx("%s: %s", argv[1], rc == AL_ERR_NOT_FOUND ?
			    "no such secret" : al_strerror(rc));
			status = rc == AL_ERR_NOT_FOUND ? EXIT_NOINPUT : 1;
		}
	} else {
		if ((rc = secrets_list(s, &names, &count)) != 0) {
			log_warnx("%s: %s", dir, al_strerror(rc));
			status = 1;
		} else {
			for (i = 0; i < count; i++)
				printf("%s\n", names[i]);
			secrets_list_free(names);
		}
	}
	secrets_close(s);
	free(dir);
	return status;
}
