/* SPDX-License-Identifier: Apache-2.0 */
/* The harness's rows: the same bytes on every machine and release (a
 * replay and a C reproducer regenerate them), whichever instruction set
 * the fill picked; values within the range; rows that differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "row_fill.h"

static uint64_t digest(const unsigned char *p, size_t n)
{
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Digests of five rows of tag 42, taken from the fill as it was before it
 * had a vector variant: a change of the stream shows here. */
static void test_rows_are_pinned(void **state)
{
  (void)state;
  static const struct {
    nve_data_type_t dtype;
    int64_t width, stride, end;
    long range;
    uint64_t digest;
  } pinned[] = {
      {NVE_DTYPE_FLOAT32, 8192, 8192, 8192, 999999, 0xe7157564fe571e20ull},
      {NVE_DTYPE_FLOAT32, 36, 40, 40, 999999, 0x6fcf8aaaa9a42d07ull},
      {NVE_DTYPE_FLOAT16, 130, 136, 136, 1024, 0x97dd0f90964d6286ull},
      {NVE_DTYPE_FLOAT64, 64, 64, 64, 999999, 0x5d999b55969d2b5bull},
      {NVE_DTYPE_UNKNOWN, 13, 16, 16, 0, 0x158072f8f79d387dull},
      {NVE_DTYPE_FLOAT32, 128, 128, 128, 499999, 0x5c2a7eac9225c7aaull},
  };
  for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
    size_t bytes = (size_t)(5 * pinned[i].stride);
    unsigned char *rows = calloc(1, bytes);
    assert_non_null(rows);
    nc_fill_values(rows, 5, pinned[i].stride, pinned[i].width, pinned[i].end, pinned[i].dtype, 42,
                   pinned[i].range);
    assert_int_equal(digest(rows, bytes), pinned[i].digest);
    free(rows);
  }
}

/* Every float32 element is an integer within the range, and a row of
 * another tag or index differs from it in most elements. */
static void test_values_in_range_and_distinct(void **state)
{
  (void)state;
  enum { N = 4, ELEMENTS = 1027 }; /* not a whole number of lanes */
  float a[N][ELEMENTS], b[N][ELEMENTS];
  nc_fill_rows((unsigned char *)a, N, sizeof(a[0]), sizeof(a[0]), NVE_DTYPE_FLOAT32, 7);
  nc_fill_rows((unsigned char *)b, N, sizeof(b[0]), sizeof(b[0]), NVE_DTYPE_FLOAT32, 8);
  long range = nc_row_value_range(NVE_DTYPE_FLOAT32);
  for (int i = 0; i < N; i++) {
    int same_tag = 0, same_row = 0;
    for (int e = 0; e < ELEMENTS; e++) {
      assert_true(a[i][e] == (float)(long)a[i][e]);
      assert_true(a[i][e] >= (float)-range - 1 && a[i][e] <= (float)range + 1);
      same_tag += a[i][e] == b[i][e];
      same_row += a[i][e] == a[(i + 1) % N][e];
    }
    assert_true(same_tag < ELEMENTS / 100);
    assert_true(same_row < ELEMENTS / 100);
  }
}

/* Rows are written up to end and no further: the stride's gap and what
 * follows the last row are left as they were. */
static void test_writes_stay_inside(void **state)
{
  (void)state;
  unsigned char buf[3 * 48 + 16];
  memset(buf, 0xee, sizeof(buf));
  nc_fill_values(buf, 3, 48, 36, 40, NVE_DTYPE_FLOAT32, 1, 999);
  for (int i = 0; i < 3; i++)
    for (int b = 40; b < 48; b++)
      assert_int_equal(buf[i * 48 + b], 0xee);
  for (size_t b = 3 * 48; b < sizeof(buf); b++)
    assert_int_equal(buf[b], 0xee);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_are_pinned),
      cmocka_unit_test(test_values_in_range_and_distinct),
      cmocka_unit_test(test_writes_stay_inside),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
