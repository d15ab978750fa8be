/* SPDX-License-Identifier: Apache-2.0 */
/* The harness's large zeroed allocations (lib/util/big_alloc.c): zeroed
 * on either side of the threshold, a large one starting on a huge-page
 * boundary, every byte writable, freed by the size it was made with, and
 * an overflowing request refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "big_alloc.h"

static void check_zeroed_and_writable(size_t n, size_t size)
{
  unsigned char *p = nc_big_calloc(n, size);
  assert_non_null(p);
  size_t bytes = n * size;
  for (size_t i = 0; i < bytes; i += 4093)
    assert_int_equal(p[i], 0);
  assert_int_equal(p[bytes - 1], 0);
  memset(p, 0x5a, bytes); /* every byte is ours */
  if (bytes >= NC_BIG_BYTES)
    assert_int_equal((uintptr_t)p % NC_BIG_BYTES, 0);
  nc_big_free(p, bytes);
}

static void test_small_and_large(void **state)
{
  (void)state;
  size_t sizes[] = {1, 4096, NC_BIG_BYTES - 1, NC_BIG_BYTES, NC_BIG_BYTES + 1,
                    3 * NC_BIG_BYTES + 12345};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    check_zeroed_and_writable(sizes[i], 1);
  check_zeroed_and_writable(NC_BIG_BYTES / 24 + 7, 24); /* n x size crossing it */
}

static void test_reuse_reads_zero(void **state)
{
  (void)state;
  /* A freed large block must not come back dirty. */
  for (int round = 0; round < 4; round++)
    check_zeroed_and_writable(NC_BIG_BYTES + 4096, 1);
}

static void test_overflow_refused(void **state)
{
  (void)state;
  assert_null(nc_big_calloc(SIZE_MAX / 2, 3));
  nc_big_free(NULL, NC_BIG_BYTES); /* nothing to free: no crash */
}

static void test_advise_is_harmless(void **state)
{
  (void)state;
  unsigned char buf[64] = {1};
  nc_big_advise(buf, sizeof(buf)); /* under the threshold: not a call */
  assert_int_equal(buf[0], 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_and_large),
      cmocka_unit_test(test_reuse_reads_zero),
      cmocka_unit_test(test_overflow_refused),
      cmocka_unit_test(test_advise_is_harmless),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
