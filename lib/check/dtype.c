/* SPDX-License-Identifier: Apache-2.0 */
#include "dtype.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* A binary float format narrower than float32: sign, ebits of exponent,
 * mbits of mantissa. ieee: the all-ones exponent holds infinities and
 * NaNs; otherwise (e4m3) it is an ordinary binade whose all-ones mantissa
 * is the only NaN, and there is no infinity. */
typedef struct small_float {
  int ebits, mbits, bias, ieee;
} small_float;

static const small_float half = {5, 10, 15, 1};
static const small_float bf16 = {8, 7, 127, 1};
static const small_float e4m3 = {4, 3, 7, 0};
static const small_float e5m2 = {5, 2, 15, 1};

static const small_float *format_of(nve_data_type_t t)
{
  switch (t) {
  case NVE_DTYPE_FLOAT16: return &half;
  case NVE_DTYPE_BFLOAT16: return &bf16;
  case NVE_DTYPE_E4M3: return &e4m3;
  case NVE_DTYPE_E5M2: return &e5m2;
  default: return NULL;
  }
}

int nc_dtype_width(nve_data_type_t t)
{
  switch (t) {
  case NVE_DTYPE_FLOAT32: return 4;
  case NVE_DTYPE_FLOAT64: return 8;
  case NVE_DTYPE_FLOAT16:
  case NVE_DTYPE_BFLOAT16: return 2;
  case NVE_DTYPE_E4M3:
  case NVE_DTYPE_E5M2: return 1;
  default: return 0;
  }
}

int nc_dtype_defined(int t) { return t >= NVE_DTYPE_UNKNOWN && t <= NVE_DTYPE_QUINT8_ROWWISE_F16; }

const char *nc_dtype_name(nve_data_type_t t)
{
  static const char *const names[] = {"unknown", "float32", "bfloat16", "float16",
                                      "e4m3", "e5m2", "float64", "qint8 rowwise f32",
                                      "qint8 rowwise f16", "quint8 rowwise f32",
                                      "quint8 rowwise f16"};
  return nc_dtype_defined((int)t) ? names[t] : "undefined";
}

static unsigned mantissa_mask(const small_float *f) { return (1u << f->mbits) - 1; }
static unsigned exponent_ones(const small_float *f) { return (1u << f->ebits) - 1; }

static double small_decode(const small_float *f, unsigned bits)
{
  unsigned man = bits & mantissa_mask(f);
  unsigned ex = (bits >> f->mbits) & exponent_ones(f);
  int negative = (bits >> (f->ebits + f->mbits)) & 1;
  double v;
  if (f->ieee && ex == exponent_ones(f))
    v = man ? NAN : INFINITY;
  else if (!f->ieee && ex == exponent_ones(f) && man == mantissa_mask(f))
    v = NAN;
  else if (ex == 0)
    v = ldexp((double)man, 1 - f->bias - f->mbits);
  else
    v = ldexp((double)(man | (1u << f->mbits)), (int)ex - f->bias - f->mbits);
  return negative ? -v : v;
}

static double small_max(const small_float *f)
{
  unsigned top = f->ieee ? exponent_ones(f) - 1 : exponent_ones(f);
  unsigned man = f->ieee ? mantissa_mask(f) : mantissa_mask(f) - 1;
  return ldexp((double)(man | (1u << f->mbits)), (int)top - f->bias - f->mbits);
}

/* Rounds v to f (nearest, ties to even); *exact says whether nothing was
 * lost. */
static unsigned small_encode(const small_float *f, double v, int *exact)
{
  unsigned sign = signbit(v) ? 1u << (f->ebits + f->mbits) : 0;
  unsigned nan = f->ieee ? sign | exponent_ones(f) << f->mbits | 1u << (f->mbits - 1)
                         : sign | exponent_ones(f) << f->mbits | mantissa_mask(f);
  *exact = 0;
  if (isnan(v))
    return nan;
  double a = fabs(v);
  if (a == 0) {
    *exact = 1;
    return sign;
  }
  int e2;
  frexp(a, &e2);
  int unbiased = e2 - 1, min_normal = 1 - f->bias;
  int quantum = (unbiased < min_normal ? min_normal : unbiased) - f->mbits;
  double scaled = ldexp(a, -quantum);
  double rounded = nearbyint(scaled);
  double value = ldexp(rounded, quantum);
  if (isinf(a) || value > small_max(f))
    return f->ieee ? sign | exponent_ones(f) << f->mbits : nan;
  *exact = rounded == scaled;
  if (value == 0)
    return sign;
  frexp(value, &e2);
  unbiased = e2 - 1;
  if (unbiased < min_normal)
    return sign | (unsigned)ldexp(value, f->mbits - min_normal);
  unsigned man = (unsigned)(ldexp(value, f->mbits - unbiased)) & mantissa_mask(f);
  return sign | (unsigned)(unbiased + f->bias) << f->mbits | man;
}

/* An element of f's bits at out: two bytes or one. */
static void small_store(const small_float *f, unsigned bits, void *out)
{
  if (f->ebits + f->mbits + 1 == 16) {
    uint16_t b = (uint16_t)bits;
    memcpy(out, &b, 2);
  } else {
    *(unsigned char *)out = (unsigned char)bits;
  }
}

double nc_dtype_decode(nve_data_type_t t, const void *p)
{
  if (t == NVE_DTYPE_FLOAT32) { /* the common case first: the fills and the model call it per element */
    float x;
    memcpy(&x, p, 4);
    return x;
  }
  const small_float *f = format_of(t);
  if (f) {
    unsigned bits = 0;
    if (f->ebits + f->mbits + 1 == 16) {
      uint16_t b;
      memcpy(&b, p, 2);
      bits = b;
    } else {
      bits = *(const unsigned char *)p;
    }
    return small_decode(f, bits);
  }
  if (t == NVE_DTYPE_FLOAT64) {
    double d;
    memcpy(&d, p, 8);
    return d;
  }
  float x;
  memcpy(&x, p, 4);
  return x;
}

int nc_dtype_encode(nve_data_type_t t, double v, void *out)
{
  if (t == NVE_DTYPE_FLOAT32) {
    float x = (float)v;
    memcpy(out, &x, 4);
    return (double)x == v;
  }
  const small_float *f = format_of(t);
  int exact = 0;
  if (f) {
    small_store(f, small_encode(f, v, &exact), out);
    return exact;
  }
  if (t == NVE_DTYPE_FLOAT64) {
    memcpy(out, &v, 8);
    return !isnan(v);
  }
  float x = (float)v;
  memcpy(out, &x, 4);
  return (double)x == v;
}

/* v, an integer of magnitude at most 2^(mbits+1) (exact in f): its bits,
 * built directly instead of rounded through frexp and ldexp. */
static unsigned small_int_bits(const small_float *f, int32_t v)
{
  unsigned sign = v < 0 ? 1u << (f->ebits + f->mbits) : 0;
  unsigned a = (unsigned)(v < 0 ? -(int64_t)v : v);
  if (a == 0)
    return sign;
  int top = 31 - __builtin_clz(a); /* a is in [2^top, 2^(top + 1)) */
  unsigned man = top <= f->mbits ? a << (f->mbits - top) : a >> (top - f->mbits);
  return sign | (unsigned)(top + f->bias) << f->mbits | (man & mantissa_mask(f));
}

int nc_dtype_encode_int(nve_data_type_t t, int32_t v, void *out)
{
  const small_float *f = format_of(t);
  long m = nc_dtype_exact_int(t);
  if (!f || v < -m || v > m)
    return nc_dtype_encode(t, (double)v, out);
  small_store(f, small_int_bits(f, v), out);
  return 1;
}

long nc_dtype_exact_int(nve_data_type_t t)
{
  switch (t) {
  case NVE_DTYPE_FLOAT32: return 1L << 24;
  case NVE_DTYPE_FLOAT64: return 1L << 53;
  default: break;
  }
  const small_float *f = format_of(t);
  return f ? 1L << (f->mbits + 1) : 0;
}
