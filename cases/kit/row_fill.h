/* SPDX-License-Identifier: Apache-2.0 */
/* The rows the harness writes: distinct for every (tag, i), small
 * integers in the element type where there is one (so that sums are
 * exact), bytes otherwise and past the last whole element. Every checked
 * write fills its rows here, so this is on the explorer's hot path. */
#ifndef NC_ROW_FILL_H
#define NC_ROW_FILL_H

#include <stdint.h>

#include "nve_c_api.h"

/* The largest magnitude of the integers written as dtype's elements: half
 * the exact range (so a sum of two stays exact), at most 999999. */
long nc_row_value_range(nve_data_type_t dtype);

/* n rows, stride apart: the elements of dtype (integers within
 * [-range, range]; range 0 gives bytes) that fit in width bytes, then
 * bytes up to end. */
void nc_fill_values(unsigned char *out, int64_t n, int64_t stride, int64_t width, int64_t end,
                    nve_data_type_t dtype, uint64_t tag, long range);

/* n rows of width bytes, stride apart, of dtype, within its value range. */
void nc_fill_rows(unsigned char *out, int64_t n, int64_t stride, int64_t width,
                  nve_data_type_t dtype, uint64_t tag);

#endif
