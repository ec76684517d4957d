/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_forge: the key-substitution forgery, for the tests.  Reads a
 * real audit log, drops every record whose "fields" mention DROP (any
 * string member equal to it), and re-signs and re-chains what is left
 * under a fresh attacker key, so the result is internally consistent.
 *
 * usage: audit_forge [-m MODE] [-h HOSTKEYFILE] DROP IN OUT
 *   -m keep    keep the original "hostKey" and "cert" (default)
 *   -m strip   remove them (a log that claims no host key)
 *   -m self    certify the attacker key with HOSTKEYFILE (an attacker's
 *              own "host" key)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "broker/audit.h"

static int
mentions(json_t *fields, const char *drop)
{
	const char *k;
	json_t *v;

	json_object_foreach(fields, k, v)
	{
		if (json_is_string(v) &&
		    strcmp(json_string_value(v), drop) == 0)
			return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned char pk[32], sk[64], sig[64], md[32], hpk[32], hsk[64];
	unsigned char hseed[32];
	char pkhex[65], prev[65], b64[128], msg[512], hhex[65];
	const char *mode = "keep", *hostkey = NULL;
	char *line = NULL, *body;
	size_t cap = 0;
	ssize_t n;
	long long seq = 0;
	FILE *in, *out, *kf;
	json_t *rec, *f;
	int ch;

	while ((ch = getopt(argc, argv, "m:h:")) != -1) {
		switch (ch) {
		case 'm':
			mode = optarg;
			break;
		case 'h':
			hostkey = optarg;
			break;
		default:
			return 64;
		}
	}
	if (argc - optind != 3 || sodium_init() < 0)
		return 64;
	if ((in = fopen(argv[optind + 1], "r")) == NULL ||
	    (out = fopen(argv[optind + 2], "w")) == NULL)
		return 66;
	crypto_sign_keypair(pk, sk);
	sodium_bin2hex(pkhex, sizeof(pkhex), pk, 32);
	memset(prev, '0', 64);
	prev[64] = '\0';
	while ((n = getline(&line, &cap, in)) > 0) {
		if ((rec = json_loadb(line, (size_t)n, 0, NULL)) == NULL)
			return 65;
		f = json_object_get(rec, "fields");
		if (mentions(f, argv[optind])) {
			json_decref(rec);
			continue;
		}
		json_object_del(rec, "sig");
		json_object_set_new(rec, "seq", json_integer(++seq));
		json_object_set_new(rec, "prev", json_string(prev));
		if (strcmp(json_string_value(json_object_get(rec, "event")),
			"session_end") == 0)
			json_object_set_new(
			    f, "records", json_integer(seq - 1));
		if (seq == 1) {
			json_object_set_new(f, "pubkey", json_string(pkhex));
			if (strcmp(mode, "strip") == 0) {
				json_object_del(f, "hostKey");
				json_object_del(f, "cert");
			} else if (strcmp(mode, "self") == 0) {
				if (hostkey == NULL ||
				    (kf = fopen(hostkey, "r")) == NULL ||
				    fread(hseed, 1, 32, kf) != 32)
					return 66;
				fclose(kf);
				crypto_sign_seed_keypair(hpk, hsk, hseed);
				sodium_bin2hex(hhex, sizeof(hhex), hpk, 32);
				audit_cert_message(
				    json_string_value(
					json_object_get(rec, "session")),
				    pkhex, msg, sizeof(msg));
				crypto_sign_detached(sig, NULL,
				    (unsigned char *)msg, strlen(msg), hsk);
				sodium_bin2base64(b64, sizeof(b64), sig, 64,
				    sodium_base64_VARIANT_ORIGINAL);
				json_object_set_new(
				    f, "hostKey", json_string(hhex));
				json_object_set_new(
				    f, "cert", json_string(b64));
			}
		}
		body = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS);
		crypto_sign_detached(
		    sig, NULL, (unsigned char *)body, strlen(body), sk);
		sodium_bin2base64(
		    b64, sizeof(b64), sig, 64, sodium_base64_VARIANT_ORIGINAL);
		body[strlen(body) - 1] = '\0';
		snprintf(msg, sizeof(msg), ",\"sig\":\"%s\"}", b64);
		fprintf(out, "%s%s\n", body, msg);
		/* prev is the hash of the line as written, without newline. */
		{
			size_t blen = strlen(body) + strlen(msg);
			char *whole = malloc(blen + 1);

			snprintf(whole, blen + 1, "%s%s", body, msg);
			crypto_generichash(
			    md, 32, (unsigned char *)whole, blen, NULL, 0);
			sodium_bin2hex(prev, sizeof(prev), md, 32);
			free(whole);
		}
		free(body);
		json_decref(rec);
	}
	free(line);
	fclose(in);
	return fclose(out) == 0 ? 0 : 74;
}
