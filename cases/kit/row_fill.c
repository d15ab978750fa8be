/* SPDX-License-Identifier: Apache-2.0 */
/* The row fill (row_fill.h). The same loop is compiled twice, for the
 * baseline instruction set and for AVX2, and picked once by the CPU: the
 * rows are the same bytes either way (integer arithmetic, and conversions
 * of small integers to float are exact), three times as fast with AVX2. */
#include "row_fill.h"

#include <string.h>

#include "dtype.h"
#include "splitmix.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NC_FILL_AVX2 1
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

long nc_row_value_range(nve_data_type_t dtype)
{
  long m = nc_dtype_exact_int(dtype) / 2;
  return m > 999999 ? 999999 : m;
}

/* The values of one row: a stream of integers from a hash of (tag, row),
 * LANES at a time in independent lanes (each an odd-step sequence, its
 * bits folded once), so that the compiler fills a row with vector code.
 * Rows of different tags or indices differ everywhere; the values are
 * small integers that any float type holds exactly. */
#define LANES 8

typedef struct row_stream {
  uint32_t lane[LANES];
  uint32_t jump;
  int shift;    /* 32 - bits */
  int32_t half; /* values lie in [-half, half - 1] */
} row_stream;

/* The shift and offset that turn a lane's bits into integers within
 * [-range, range] (range >= 1; 0 gives bytes 0 .. 255): worked out once
 * per batch, not per row. */
typedef struct stream_scale {
  int shift;
  int32_t half;
} stream_scale;

static stream_scale scale_for(long range)
{
  int bits = 1;
  while (range > 0 && bits < 31 && (1L << bits) <= range)
    bits++;
  return (stream_scale){range > 0 ? 32 - bits : 24, range > 0 ? (int32_t)1 << (bits - 1) : 0};
}

/* The stream of row i of tag, its values scaled by sc. */
static ALWAYS_INLINE void stream_start(row_stream *s, uint64_t tag, int64_t i, stream_scale sc)
{
  uint64_t h = nc_mix64((tag * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)i * 0xc2b2ae3d27d4eb4full));
  uint32_t x = (uint32_t)h, step = (uint32_t)(h >> 32) | 1u;
  for (int l = 0; l < LANES; l++)
    s->lane[l] = x + (uint32_t)l * step;
  s->jump = step * LANES;
  s->shift = sc.shift;
  s->half = sc.half;
}

static ALWAYS_INLINE void stream_next(row_stream *s, int32_t v[LANES])
{
  for (int l = 0; l < LANES; l++) {
    uint32_t y = s->lane[l] ^ (s->lane[l] >> 13);
    v[l] = (int32_t)(y >> s->shift) - s->half;
    s->lane[l] += s->jump;
  }
}

/* elements values of type dtype (width w bytes each) at out. */
static ALWAYS_INLINE void stream_encode(row_stream *s, unsigned char *out, int64_t elements,
                                        nve_data_type_t dtype, int64_t w)
{
  int32_t v[LANES];
  int64_t e = 0;
  if (dtype == NVE_DTYPE_FLOAT32) { /* the common case, without the general encoder */
    float f[LANES];
    for (; e + LANES <= elements; e += LANES) { /* whole blocks: a fixed-size store */
      stream_next(s, v);
      for (int l = 0; l < LANES; l++)
        f[l] = (float)v[l];
      memcpy(out + 4 * e, f, sizeof(f));
    }
    if (e < elements) {
      stream_next(s, v);
      for (int l = 0; l < LANES; l++)
        f[l] = (float)v[l];
      memcpy(out + 4 * e, f, (size_t)(elements - e) * 4);
    }
    return;
  }
  for (; e < elements; e += LANES) {
    stream_next(s, v);
    int64_t m = elements - e < LANES ? elements - e : LANES;
    for (int64_t l = 0; l < m; l++)
      nc_dtype_encode_int(dtype, v[l], out + (e + l) * w);
  }
}

/* Bytes from..to of a row (what its elements leave): a stream of bytes. */
static ALWAYS_INLINE void stream_bytes(unsigned char *row, int64_t from, int64_t to,
                                       uint64_t tag, int64_t i)
{
  if (from >= to)
    return;
  row_stream s;
  stream_start(&s, tag ^ 0x5bd1e995u, i, scale_for(0));
  int32_t v[LANES];
  for (int64_t b = from; b < to; b += LANES) {
    stream_next(&s, v);
    for (int l = 0; l < LANES && b + l < to; l++)
      row[b + l] = (unsigned char)v[l];
  }
}

static ALWAYS_INLINE void fill_body(unsigned char *out, int64_t n, int64_t stride, int64_t width,
                                    int64_t end, nve_data_type_t dtype, uint64_t tag,
                                    stream_scale sc)
{
  int64_t w = nc_dtype_width(dtype), elements = w ? width / w : 0;
  for (int64_t i = 0; i < n; i++) {
    unsigned char *row = out + i * stride;
    if (elements) {
      row_stream s;
      stream_start(&s, tag, i, sc);
      stream_encode(&s, row, elements, dtype, w);
    }
    stream_bytes(row, elements * w, end, tag, i);
  }
}

static void fill_baseline(unsigned char *out, int64_t n, int64_t stride, int64_t width,
                          int64_t end, nve_data_type_t dtype, uint64_t tag, stream_scale sc)
{
  fill_body(out, n, stride, width, end, dtype, tag, sc);
}

#ifdef NC_FILL_AVX2
__attribute__((target("avx2"))) static void fill_avx2(unsigned char *out, int64_t n,
                                                      int64_t stride, int64_t width, int64_t end,
                                                      nve_data_type_t dtype, uint64_t tag,
                                                      stream_scale sc)
{
  fill_body(out, n, stride, width, end, dtype, tag, sc);
}
#endif

void nc_fill_values(unsigned char *out, int64_t n, int64_t stride, int64_t width, int64_t end,
                    nve_data_type_t dtype, uint64_t tag, long range)
{
  stream_scale sc = scale_for(range < 1 ? 1 : range);
#ifdef NC_FILL_AVX2
  if (__builtin_cpu_supports("avx2")) {
    fill_avx2(out, n, stride, width, end, dtype, tag, sc);
    return;
  }
#endif
  fill_baseline(out, n, stride, width, end, dtype, tag, sc);
}

void nc_fill_rows(unsigned char *out, int64_t n, int64_t stride, int64_t width,
                  nve_data_type_t dtype, uint64_t tag)
{
  nc_fill_values(out, n, stride, width, width, dtype, tag,
                 nc_dtype_width(dtype) ? nc_row_value_range(dtype) : 0);
}
