/* SPDX-License-Identifier: Apache-2.0 */
/* The element types of nve_data_type_t that the harness can read and
 * write: float32, float64, float16, bfloat16 and the two 8-bit floats
 * (e4m3 as CUDA's __nv_fp8_e4m3: no infinities, NaN at 0x7f; e5m2 as
 * __nv_fp8_e5m2: IEEE-like). Encoding rounds to nearest, ties to even, and
 * says whether it was exact, so the table model can tell sums it can
 * predict from sums whose rounding a table may do its own way. The
 * row-wise quantised types have a layout the contract does not define;
 * they are not convertible here. */
#ifndef NC_DTYPE_H
#define NC_DTYPE_H

#include <stdint.h>

#include "nve_c_api.h"

/* Bytes per element of a convertible dtype; 0 for every other value. */
int nc_dtype_width(nve_data_type_t t);
/* Whether t is one of the values nve_data_type_t defines (UNKNOWN too). */
int nc_dtype_defined(int t);
/* "float16", "e4m3", ... ("dtype 42" style text for others is the caller's). */
const char *nc_dtype_name(nve_data_type_t t);

/* The element of dtype t at p, as a double (t convertible). */
double nc_dtype_decode(nve_data_type_t t, const void *p);
/* Writes v as an element of t at out (rounded to nearest even; beyond the
 * range: infinity where t has one, else NaN). Returns 1 when the written
 * element decodes to exactly v, 0 otherwise. */
int nc_dtype_encode(nve_data_type_t t, double v, void *out);
/* nc_dtype_encode of the integer v, the same bytes and result; quicker
 * for the narrow floats where v is exact (the fills write millions). */
int nc_dtype_encode_int(nve_data_type_t t, int32_t v, void *out);
/* The largest integer m such that every integer in [-m, m] is exact in t. */
long nc_dtype_exact_int(nve_data_type_t t);

#endif
