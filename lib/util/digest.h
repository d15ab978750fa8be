/* SPDX-License-Identifier: Apache-2.0 */
/* A running 64-bit digest of bytes, for comparing the results of two runs
 * of the same calls (the workload's find results): not cryptographic,
 * only sensitive to every byte and to the digest it continues. */
#ifndef NC_DIGEST_H
#define NC_DIGEST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NC_DIGEST_PRIME 0x100000001b3ull

/* One word into a running digest. A multiply carries a difference only
 * upwards, so the high half is folded down after it: without that, the
 * top bits of two words (two floats' signs) cancelled each other. */
static inline uint64_t nc_digest_word(uint64_t h, uint64_t word)
{
  h = (h ^ word) * NC_DIGEST_PRIME;
  return h ^ (h >> 32);
}

/* FNV-1a over 8-byte words, then the odd bytes: wide rows are hashed a
 * word at a time, in four lanes of interleaved words, so that the
 * multiplies overlap rather than wait on one another. The lanes start
 * from constants of their own and are folded into h at the end: lanes
 * seeded from h would let it cancel out (the digest of a run would then
 * be that of its last find). */
static inline uint64_t nc_digest64(uint64_t h, const void *data, size_t len)
{
  const unsigned char *p = data;
  size_t i = 0;
  if (len >= 64) {
    /* Four scalars, not an array: as an array the compiler makes vector
     * code of it, whose 64-bit multiplies are emulated (three times
     * slower). */
    uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull, c = 0x9e3779b97f4a7c15ull,
             d = 0xc2b2ae3d27d4eb4full;
    for (; i + 32 <= len; i += 32) {
      uint64_t w[4];
      memcpy(w, p + i, sizeof(w));
      a = nc_digest_word(a, w[0]);
      b = nc_digest_word(b, w[1]);
      c = nc_digest_word(c, w[2]);
      d = nc_digest_word(d, w[3]);
    }
    h = nc_digest_word(nc_digest_word(nc_digest_word(nc_digest_word(h, a), b), c), d);
  }
  for (; i + 8 <= len; i += 8) {
    uint64_t word;
    memcpy(&word, p + i, 8);
    h = nc_digest_word(h, word);
  }
  for (; i < len; i++)
    h = (h ^ p[i]) * NC_DIGEST_PRIME;
  return h;
}

#endif
