/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* SHA-256, with the x86 SHA extensions when present: see sha256.h. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "common/sha256.h"

static int force_portable;

void
sha256_force_portable(int on)
{
	force_portable = on;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

#define HAVE_SHA_NI_PATH 1

/* FIPS 180-4 round constants. */
static const uint32_t K[64] = {
	0x428a2f98,
	0x71374491,
	0xb5c0fbcf,
	0xe9b5dba5,
	0x3956c25b,
	0x59f111f1,
	0x923f82a4,
	0xab1c5ed5,
	0xd807aa98,
	0x12835b01,
	0x243185be,
	0x550c7dc3,
	0x72be5d74,
	0x80deb1fe,
	0x9bdc06a7,
	0xc19bf174,
	0xe49b69c1,
	0xefbe4786,
	0x0fc19dc6,
	0x240ca1cc,
	0x2de92c6f,
	0x4a7484aa,
	0x5cb0a9dc,
	0x76f988da,
	0x983e5152,
	0xa831c66d,
	0xb00327c8,
	0xbf597fc7,
	0xc6e00bf3,
	0xd5a79147,
	0x06ca6351,
	0x14292967,
	0x27b70a85,
	0x2e1b2138,
	0x4d2c6dfc,
	0x53380d13,
	0x650a7354,
	0x766a0abb,
	0x81c2c92e,
	0x92722c85,
	0xa2bfe8a1,
	0xa81a664b,
	0xc24b8b70,
	0xc76c51a3,
	0xd192e819,
	0xd6990624,
	0xf40e3585,
	0x106aa070,
	0x19a4c116,
	0x1e376c08,
	0x2748774c,
	0x34b0bcb5,
	0x391c0cb3,
	0x4ed8aa4a,
	0x5b9cca4f,
	0x682e6ff3,
	0x748f82ee,
	0x78a5636f,
	0x84c87814,
	0x8cc70208,
	0x90befffa,
	0xa4506ceb,
	0xbef9a3f7,
	0xc67178f2,
};

/*
 * |n| 64-byte blocks into the state.  Four rounds per step, two
 * sha256rnds2 each; the message schedule runs three steps ahead
 * (sha256msg1 on steps 1-12, sha256msg2 on steps 3-14).  The state is
 * kept as ABEF/CDGH, as the instructions want it.
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void
blocks_ni(uint32_t st[8], const unsigned char *p, size_t n)
{
	const __m128i bswap =
	    _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i s0, s1, tmp, msg, w[4], abef, cdgh;
	int g;

	tmp = _mm_loadu_si128((const __m128i *)&st[0]);
	s1 = _mm_loadu_si128((const __m128i *)&st[4]);
	tmp = _mm_shuffle_epi32(tmp, 0xB1); /* CDAB */
	s1 = _mm_shuffle_epi32(s1, 0x1B); /* EFGH */
	s0 = _mm_alignr_epi8(tmp, s1, 8); /* ABEF */
	s1 = _mm_blend_epi16(s1, tmp, 0xF0); /* CDGH */
	for (; n > 0; n--, p += 64) {
		abef = s0;
		cdgh = s1;
		for (g = 0; g < 16; g++) {
			__m128i *cur = &w[g & 3];

			if (g < 4)
				*cur = _mm_shuffle_epi8(
				    _mm_loadu_si128(
					(const __m128i *)(p + 16 * g)),
				    bswap);
			msg = _mm_add_epi32(
			    *cur, _mm_loadu_si128((const __m128i *)&K[4 * g]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
			if (g >= 3 && g <= 14) {
				__m128i *next = &w[(g + 1) & 3];

				tmp = _mm_alignr_epi8(*cur, w[(g + 3) & 3], 4);
				*next = _mm_add_epi32(*next, tmp);
				*next = _mm_sha256msg2_epu32(*next, *cur);
			}
			msg = _mm_shuffle_epi32(msg, 0x0E);
			s0 = _mm_sha256rnds2_epu32(s0, s1, msg);
			if (g >= 1 && g <= 12)
				w[(g + 3) & 3] =
				    _mm_sha256msg1_epu32(w[(g + 3) & 3], *cur);
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	tmp = _mm_shuffle_epi32(s0, 0x1B); /* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xB1); /* DCHG */
	s0 = _mm_blend_epi16(tmp, s1, 0xF0); /* DCBA */
	s1 = _mm_alignr_epi8(s1, tmp, 8); /* HGFE */
	_mm_storeu_si128((__m128i *)&st[0], s0);
	_mm_storeu_si128((__m128i *)&st[4], s1);
}

static int
cpu_has_sha_ni(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || /* SSSE3 */
	    !(c & (1u << 19))) /* SSE4.1 */
		return 0;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
	    (b & (1u << 29)); /* SHA */
}

static void
sha256_ni(
    unsigned char out[SHA256_BYTES], const unsigned char *data, size_t len)
{
	uint32_t st[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	unsigned char last[128];
	size_t full = len / 64, rest = len % 64, nlast;
	uint64_t bits = (uint64_t)len * 8;
	int i;

	blocks_ni(st, data, full);
	/* The padding: 0x80, zeros, the length in bits (big-endian). */
	memset(last, 0, sizeof(last));
	memcpy(last, data + full * 64, rest);
	last[rest] = 0x80;
	nlast = rest + 1 + 8 <= 64 ? 64 : 128;
	for (i = 0; i < 8; i++)
		last[nlast - 1 - i] = (unsigned char)(bits >> (8 * i));
	blocks_ni(st, last, nlast / 64);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(st[i] >> 24);
		out[4 * i + 1] = (unsigned char)(st[i] >> 16);
		out[4 * i + 2] = (unsigned char)(st[i] >> 8);
		out[4 * i + 3] = (unsigned char)st[i];
	}
}
#endif

int
sha256_accelerated(void)
{
#ifdef HAVE_SHA_NI_PATH
	static int have = -1;

	if (have == -1)
		have = cpu_has_sha_ni();
	return have && !force_portable;
#else
	return 0;
#endif
}

void
sha256(unsigned char out[SHA256_BYTES], const void *data, size_t len)
{
#ifdef HAVE_SHA_NI_PATH
	if (sha256_accelerated()) {
		sha256_ni(out, data, len);
		return;
	}
#endif
	crypto_hash_sha256(out, data, len);
}
