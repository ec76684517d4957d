/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * sha256: SHA-256 with the x86 SHA extensions (SHA-NI) when the CPU has
 * them, else libsodium's crypto_hash_sha256 (portable C).  The digest is
 * the same either way (tests/unit/test_sha256.c checks every length up
 * to 1100 bytes and random lengths against libsodium, on both paths).
 * libsodium's SHA-256 costs 27 us per 4 KiB on the development machine,
 * the SHA-NI path about a fourth of that: read_file hashes every file it
 * returns (docs/PERFORMANCE.md).
 */
#ifndef AIRLOCK_SHA256_H
#define AIRLOCK_SHA256_H

#include <stddef.h>

#define SHA256_BYTES 32

/* out = SHA-256(data[0..len)). */
void sha256(unsigned char out[SHA256_BYTES], const void *data, size_t len);

/* 1 if the SHA-NI path is in use (the CPU has SHA, SSSE3 and SSE4.1). */
int sha256_accelerated(void);

/* Tests only: 1 makes sha256() use libsodium even where SHA-NI exists. */
void sha256_force_portable(int on);

#endif
