/* SPDX-License-Identifier: Apache-2.0 */
/* Element conversions: known bit patterns of each format, rounding to
 * nearest even, the range edges, and the exactness flag the model relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "dtype.h"

static unsigned encode_bits(nve_data_type_t t, double v, int *exact)
{
  unsigned char out[8] = {0};
  *exact = nc_dtype_encode(t, v, out);
  if (nc_dtype_width(t) == 2) {
    uint16_t b;
    memcpy(&b, out, 2);
    return b;
  }
  return out[0];
}

static double decode_bits(nve_data_type_t t, unsigned bits)
{
  unsigned char in[8] = {0};
  if (nc_dtype_width(t) == 2) {
    uint16_t b = (uint16_t)bits;
    memcpy(in, &b, 2);
  } else {
    in[0] = (unsigned char)bits;
  }
  return nc_dtype_decode(t, in);
}

static void test_widths_and_names(void **state)
{
  (void)state;
  assert_int_equal(nc_dtype_width(NVE_DTYPE_FLOAT32), 4);
  assert_int_equal(nc_dtype_width(NVE_DTYPE_FLOAT64), 8);
  assert_int_equal(nc_dtype_width(NVE_DTYPE_BFLOAT16), 2);
  assert_int_equal(nc_dtype_width(NVE_DTYPE_E5M2), 1);
  assert_int_equal(nc_dtype_width(NVE_DTYPE_UNKNOWN), 0);
  assert_int_equal(nc_dtype_width(NVE_DTYPE_QINT8_ROWWISE_F32), 0);
  assert_int_equal(nc_dtype_width((nve_data_type_t)99), 0);
  assert_true(nc_dtype_defined(NVE_DTYPE_QUINT8_ROWWISE_F16));
  assert_false(nc_dtype_defined(11));
  assert_false(nc_dtype_defined(-1));
  assert_string_equal(nc_dtype_name(NVE_DTYPE_E4M3), "e4m3");
  assert_string_equal(nc_dtype_name((nve_data_type_t)42), "undefined");
}

static void test_half(void **state)
{
  (void)state;
  int exact;
  assert_int_equal(encode_bits(NVE_DTYPE_FLOAT16, 1.0, &exact), 0x3c00);
  assert_true(exact);
  assert_int_equal(encode_bits(NVE_DTYPE_FLOAT16, -2.0, &exact), 0xc000);
  assert_int_equal(encode_bits(NVE_DTYPE_FLOAT16, 65504.0, &exact), 0x7bff);
  assert_true(exact);
  assert_int_equal(encode_bits(NVE_DTYPE_FLOAT16, 1e6, &exact), 0x7c00); /* infinity */
  assert_false(exact);
  /* 2049 lies halfway between 2048 and 2050: ties go to the even 2048. */
  assert_int_equal(encode_bits(NVE_DTYPE_FLOAT16, 2049.0, &exact), 0x6800);
  assert_false(exact);
  assert_int_equal(encode_bits(NVE_DTYPE_FLOAT16, 2051.0, &exact), 0x6802); /* to 2052 */
  /* The smallest subnormal. */
  assert_int_equal(encode_bits(NVE_DTYPE_FLOAT16, ldexp(1, -24), &exact), 0x0001);
  assert_true(exact);
  assert_true(decode_bits(NVE_DTYPE_FLOAT16, 0x0001) == ldexp(1, -24));
  assert_true(isinf(decode_bits(NVE_DTYPE_FLOAT16, 0xfc00)));
  assert_true(isnan(decode_bits(NVE_DTYPE_FLOAT16, 0x7e00)));
  assert_true(decode_bits(NVE_DTYPE_FLOAT16, 0x3555) > 0.333 &&
              decode_bits(NVE_DTYPE_FLOAT16, 0x3555) < 0.334);
}

static void test_bfloat16(void **state)
{
  (void)state;
  int exact;
  assert_int_equal(encode_bits(NVE_DTYPE_BFLOAT16, 1.0, &exact), 0x3f80);
  assert_int_equal(encode_bits(NVE_DTYPE_BFLOAT16, -3.0, &exact), 0xc040);
  assert_true(exact);
  assert_int_equal(encode_bits(NVE_DTYPE_BFLOAT16, 257.0, &exact), 0x4380); /* 256, tie to even */
  assert_false(exact);
  assert_true(decode_bits(NVE_DTYPE_BFLOAT16, 0x4380) == 256.0);
  assert_int_equal(nc_dtype_exact_int(NVE_DTYPE_BFLOAT16), 256);
}

static void test_e4m3(void **state)
{
  (void)state;
  int exact;
  assert_int_equal(encode_bits(NVE_DTYPE_E4M3, 1.0, &exact), 0x38);
  assert_int_equal(encode_bits(NVE_DTYPE_E4M3, 448.0, &exact), 0x7e);
  assert_true(exact);
  assert_true(decode_bits(NVE_DTYPE_E4M3, 0x7e) == 448.0);
  assert_true(isnan(decode_bits(NVE_DTYPE_E4M3, 0x7f)));
  assert_true(decode_bits(NVE_DTYPE_E4M3, 0x78) == 256.0); /* the top binade is ordinary */
  assert_int_equal(encode_bits(NVE_DTYPE_E4M3, 1000.0, &exact), 0x7f); /* no infinity: NaN */
  assert_false(exact);
  assert_int_equal(encode_bits(NVE_DTYPE_E4M3, -16.0, &exact), 0xd8);
  assert_true(exact);
  assert_int_equal(encode_bits(NVE_DTYPE_E4M3, 17.0, &exact), 0x58); /* 16: tie to even */
  assert_false(exact);
  assert_true(decode_bits(NVE_DTYPE_E4M3, 0x01) == ldexp(1, -9));
  assert_int_equal(nc_dtype_exact_int(NVE_DTYPE_E4M3), 16);
}

static void test_e5m2(void **state)
{
  (void)state;
  int exact;
  assert_int_equal(encode_bits(NVE_DTYPE_E5M2, 1.0, &exact), 0x3c);
  assert_int_equal(encode_bits(NVE_DTYPE_E5M2, 57344.0, &exact), 0x7b);
  assert_true(exact);
  assert_true(isinf(decode_bits(NVE_DTYPE_E5M2, 0x7c)));
  assert_int_equal(encode_bits(NVE_DTYPE_E5M2, 1e9, &exact), 0x7c);
  assert_int_equal(encode_bits(NVE_DTYPE_E5M2, 7.0, &exact), 0x47);
  assert_true(exact);
  assert_int_equal(encode_bits(NVE_DTYPE_E5M2, 9.0, &exact), 0x48); /* 8 */
  assert_false(exact);
  assert_int_equal(nc_dtype_exact_int(NVE_DTYPE_E5M2), 8);
}

static void test_wide_floats(void **state)
{
  (void)state;
  unsigned char out[8];
  assert_true(nc_dtype_encode(NVE_DTYPE_FLOAT32, 16777216.0, out));
  assert_false(nc_dtype_encode(NVE_DTYPE_FLOAT32, 16777217.0, out));
  assert_true(nc_dtype_decode(NVE_DTYPE_FLOAT32, out) == 16777216.0);
  assert_true(nc_dtype_encode(NVE_DTYPE_FLOAT64, 16777217.0, out));
  assert_true(nc_dtype_decode(NVE_DTYPE_FLOAT64, out) == 16777217.0);
}

/* The floating formats with an exact integer range. */
static const nve_data_type_t floats[] = {NVE_DTYPE_FLOAT32, NVE_DTYPE_BFLOAT16, NVE_DTYPE_FLOAT16,
                                         NVE_DTYPE_E4M3,    NVE_DTYPE_E5M2,     NVE_DTYPE_FLOAT64};

/* Every small integer within the exact range round-trips in every format. */
static void test_exact_integers_round_trip(void **state)
{
  (void)state;
  for (size_t i = 0; i < sizeof(floats) / sizeof(floats[0]); i++) {
    long m = nc_dtype_exact_int(floats[i]);
    long top = m < 3000 ? m : 3000;
    for (long v = -top; v <= top; v++) {
      unsigned char out[8];
      assert_true(nc_dtype_encode(floats[i], (double)v, out));
      assert_true(nc_dtype_decode(floats[i], out) == (double)v);
    }
  }
}

/* The integer encoder writes what the general one writes, inside each
 * type's exact range, at its edges and beyond them (where it defers). */
static void test_integer_encoder_agrees(void **state)
{
  (void)state;
  for (size_t i = 0; i < sizeof(floats) / sizeof(floats[0]); i++) {
    long m = nc_dtype_exact_int(floats[i]);
    long top = m < 5000 ? 2 * m + 3 : 5000;
    int w = nc_dtype_width(floats[i]);
    for (long v = -top; v <= top; v++) {
      unsigned char want[8] = {0}, got[8] = {0};
      int want_exact = nc_dtype_encode(floats[i], (double)v, want);
      int got_exact = nc_dtype_encode_int(floats[i], (int32_t)v, got);
      assert_int_equal(got_exact, want_exact);
      assert_memory_equal(got, want, (size_t)w);
    }
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_widths_and_names), cmocka_unit_test(test_half),
      cmocka_unit_test(test_bfloat16),         cmocka_unit_test(test_e4m3),
      cmocka_unit_test(test_e5m2),             cmocka_unit_test(test_wide_floats),
      cmocka_unit_test(test_exact_integers_round_trip),
      cmocka_unit_test(test_integer_encoder_agrees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
