/* SPDX-License-Identifier: Apache-2.0 */
/* The running digest that compares two runs' find results (SVC-07, the
 * allocation-failure sweeps): every byte counts, at every length and
 * alignment, and so does the digest it continues, so that a run's digest
 * is that of all its finds and not of its last one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"

enum { MOST = 700 };

/* Flipping any one bit of the data, at any length, changes the digest. */
static void test_every_bit_counts(void **state)
{
  (void)state;
  static unsigned char data[MOST + 1];
  for (size_t i = 0; i < sizeof(data); i++)
    data[i] = (unsigned char)(i * 37 + 11);
  for (size_t len = 1; len <= MOST; len += len < 80 ? 1 : 37)
    for (size_t at = 0; at < len; at += at < 40 ? 1 : 13)
      for (int bit = 0; bit < 8; bit += 3) {
        uint64_t before = nc_digest64(7, data + 1, len); /* unaligned */
        data[1 + at] ^= (unsigned char)(1u << bit);
        uint64_t after = nc_digest64(7, data + 1, len);
        data[1 + at] ^= (unsigned char)(1u << bit);
        assert_true(before != after);
      }
}

/* Different digests continued over the same bytes stay different, for
 * bytes that are all zeros too (the finds of an empty table). */
static void test_the_running_digest_counts(void **state)
{
  (void)state;
  static const unsigned char zeros[MOST];
  for (size_t len = 0; len <= MOST; len += len < 80 ? 1 : 37)
    for (uint64_t h = 1; h < 64; h++) {
      assert_true(nc_digest64(h, zeros, len) != nc_digest64(h ^ 1, zeros, len));
      assert_true(nc_digest64(h, zeros, len) != nc_digest64(h << 40, zeros, len));
    }
}

/* Two differences together do not cancel: the top bits of two words (the
 * signs of two float32 elements), at any two places. */
static void test_two_flips_count(void **state)
{
  (void)state;
  enum { WORDS = 24 };
  uint64_t data[WORDS];
  for (int i = 0; i < WORDS; i++)
    data[i] = 0x0123456789abcdefull * (uint64_t)(i + 1);
  uint64_t plain = nc_digest64(3, data, sizeof(data));
  for (int a = 0; a < WORDS; a++)
    for (int b = a + 1; b < WORDS; b++)
      for (int bit = 31; bit < 64; bit += 32) {
        data[a] ^= 1ull << bit;
        data[b] ^= 1ull << bit;
        assert_true(nc_digest64(3, data, sizeof(data)) != plain);
        data[a] ^= 1ull << bit;
        data[b] ^= 1ull << bit;
      }
}

static int compare_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Continued over the same bytes, distinct digests stay distinct: no two of
 * a few thousand random ones meet (lanes seeded from the running digest
 * once made most of them meet, and SVC-07 missed a race). */
static void test_no_digests_meet(void **state)
{
  (void)state;
  enum { DIGESTS = 4096 };
  static const unsigned char zeros[MOST];
  static uint64_t seen[DIGESTS];
  static const size_t lengths[] = {64, 96, 632, MOST};
  for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
    for (int high = 0; high < 2; high++) {
      /* Random digests, then ones that differ only in their high bits
       * (a word-wise multiply carries differences up, never down). */
      uint64_t h = 0x243f6a8885a308d3ull;
      for (int i = 0; i < DIGESTS; i++) {
        h = h * 6364136223846793005ull + 1442695040888963407ull;
        seen[i] = nc_digest64(high ? (uint64_t)(i + 1) << 40 : h, zeros, lengths[k]);
      }
      qsort(seen, DIGESTS, sizeof(seen[0]), compare_u64);
      for (int i = 1; i < DIGESTS; i++)
        assert_true(seen[i] != seen[i - 1]);
    }
  }
}

/* The same bytes give the same digest, wherever they lie in memory. */
static void test_same_bytes_same_digest(void **state)
{
  (void)state;
  unsigned char a[MOST + 8], b[MOST + 8];
  for (size_t i = 0; i < MOST; i++)
    a[i] = b[i + 3] = (unsigned char)(i * 13);
  for (size_t len = 0; len <= MOST; len += 19)
    assert_int_equal(nc_digest64(99, a, len), nc_digest64(99, b + 3, len));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_bit_counts),
      cmocka_unit_test(test_the_running_digest_counts),
      cmocka_unit_test(test_no_digests_meet),
      cmocka_unit_test(test_two_flips_count),
      cmocka_unit_test(test_same_bytes_same_digest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
