/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * secrets: the sealed credential store.
 *
 * One file, DIR/secrets.db, holds every secret in one
 * crypto_secretbox_easy box (XSalsa20-Poly1305) under a 32-byte key.
 * The key is either DIR/secrets.key (32 random bytes, mode 0600, created
 * on first use) or derived from a passphrase with Argon2id
 * (crypto_pwhash), whose salt and limits are in the store's header.
 * Every change rewrites the store through a temporary file, fsync and
 * rename(2), under an exclusive flock(2) on DIR, so a crash leaves the
 * old or the new store, never a mixture.
 *
 * Layout: "ALSECRT1", kdf (1 = key file, 2 = Argon2id), 7 zero bytes;
 * for Argon2id a 16-byte salt, opslimit and memlimit (u64 little
 * endian); a 24-byte nonce; the box.  Inside the box: u32 count, then
 * per secret u8 name length, name, u32 value length, value.
 *
 * The key and every decrypted byte live in sodium_malloc'd memory
 * (guard pages, mlock'd where the limit allows), kept PROT_NONE between
 * uses, and are wiped on free.
 */
#ifndef AIRLOCK_SECRETS_H
#define AIRLOCK_SECRETS_H

#include <stddef.h>

struct secrets;
struct redact;

#define SECRETS_MAX_NAME	64
#define SECRETS_MAX_VALUE	65536
#define SECRETS_MAX_COUNT	1024
#define SECRETS_STORE		"secrets.db"
#define SECRETS_KEYFILE		"secrets.key"
#define SECRETS_PASSPHRASE_ENV	"AIRLOCK_PASSPHRASE"

/*
 * Returns 1 if |name| matches [A-Za-z_][A-Za-z0-9_.-]{0,63}, else 0.
 */
int	secrets_name_valid(const char *name);

/*
 * Writes the default store directory to *out (caller frees):
 * the state directory, paths_state_dir() (common/paths.h).
 * Returns 0, AL_ERR_NOT_FOUND (no home directory) or AL_ERR_ALLOC.
 */
int	secrets_default_dir(char **out);

/*
 * Opens the store in |dir| (created 0700 with its parents if absent)
 * sealed with the key file, creating the key on first use.  Returns 0
 * and *out; AL_ERR_DENIED if |dir| or the key file is writable or
 * readable by others or not ours; AL_ERR_CONFLICT if the store is sealed
 * with a passphrase; AL_ERR_CRYPTO if the store does not open with the
 * key; AL_ERR_FORMAT for a damaged header; AL_ERR_SYSTEM; AL_ERR_ALLOC.
 */
int	secrets_open(const char *dir, struct secrets **out)
	    __attribute__((warn_unused_result));

/*
 * As secrets_open(), but the key is Argon2id(pass[0..len)).  A new
 * store gets a fresh salt.  AL_ERR_CONFLICT if the store is sealed with
 * the key file; AL_ERR_CRYPTO for a wrong passphrase.
 */
int	secrets_open_passphrase(const char *dir, const char *pass, size_t len,
	    struct secrets **out) __attribute__((warn_unused_result));

/* Wipes the key and frees |s|.  NULL is fine. */
void	secrets_close(struct secrets *s);

/*
 * Copies the value of |name| into new sodium_malloc'd memory *value
 * (NUL-terminated for convenience; *len excludes the NUL); the caller
 * releases it with secrets_value_free().  Returns 0, AL_ERR_NOT_FOUND,
 * AL_ERR_CRYPTO (store changed under a different key), AL_ERR_SYSTEM,
 * AL_ERR_ALLOC.  *value and *len are cleared first.
 */
int	secrets_get(struct secrets *s, const char *name, unsigned char **value,
	    size_t *len) __attribute__((warn_unused_result));

/* Wipes and frees a value from secrets_get().  NULL is fine. */
void	secrets_value_free(unsigned char *value);

/*
 * Stores value[0..len) under |name|, replacing any old value.  Returns
 * 0; AL_ERR_FORMAT for a bad name; AL_ERR_LIMIT if len is 0 or more than
 * SECRETS_MAX_VALUE, or the store is full; AL_ERR_SYSTEM; AL_ERR_ALLOC.
 */
int	secrets_set(struct secrets *s, const char *name, const void *value,
	    size_t len) __attribute__((warn_unused_result));

/* Removes |name|.  Returns 0, AL_ERR_NOT_FOUND, AL_ERR_SYSTEM, ... */
int	secrets_remove(struct secrets *s, const char *name)
	    __attribute__((warn_unused_result));

/*
 * Lists the names, sorted, into *names (a NULL-terminated array; caller
 * frees with secrets_list_free()) and *n.  Returns 0 or an error.
 */
int	secrets_list(struct secrets *s, char ***names, size_t *n)
	    __attribute__((warn_unused_result));
void	secrets_list_free(char **names);

/*
 * Adds the secrets names[0..n) to the redactor |r|.  Returns 0,
 * AL_ERR_NOT_FOUND for an unknown name, AL_ERR_LIMIT for a value too
 * short to redact, AL_ERR_FORMAT for a value holding a NUL byte (an
 * environment variable would carry only the bytes before it, which no
 * redactor recognises), so that neither can be granted; or another
 * error.
 */
int	secrets_add_to_redact(struct secrets *s, const char *const *names,
	    size_t n, struct redact *r) __attribute__((warn_unused_result));

#endif
