/* SPDX-License-Identifier: Apache-2.0 */
/* What the explorer's calls covered: cells of action x batch size (powers
 * of two) x call shape. The generator aims part of its steps at the
 * cells still empty, smallest first, so that a run reaches every action
 * in every shape at as large a batch as its budget allows, which blind
 * draws reach rarely. */
#ifndef NC_EXPLORE_COVER_H
#define NC_EXPLORE_COVER_H

#include "explore_seq.h"

/* Batch sizes by bit length: 0, 1, 2-3, 4-7, ... */
#define NC_X_BUCKETS 24

typedef enum {
  NC_XS_PLAIN,  /* the least stride, every output, no key resolved, the case's thread */
  NC_XS_STRIDE, /* a stride wider than the row */
  NC_XS_MASK,   /* keys resolved on entry */
  NC_XS_NULLS,  /* NULL optional outputs */
  NC_XS_THREAD, /* on a thread of its own */
  NC_XS_SHAPES
} nc_x_shape;

typedef struct nc_x_cover {
  uint32_t cells[NC_X_ACTIONS][NC_X_BUCKETS][NC_XS_SHAPES];
} nc_x_cover;

int nc_x_bucket(int64_t n);
/* Whether a call of action can have shape at all. */
int nc_x_shape_applies(int action, int shape);
void nc_x_cover_add(nc_x_cover *c, const nc_x_step *s);
/* The smallest bucket <= top with an empty cell of action in one of the
 * shapes (bits of nc_x_shape) enabled: 1 and *bucket, *shape; else 0. */
int nc_x_cover_gap(const nc_x_cover *c, int action, int top, unsigned shapes, int *bucket,
                   int *shape);
/* Cells reached and cells there are, for the key-taking actions up to
 * bucket top (accumulate only when summable). */
void nc_x_cover_count(const nc_x_cover *c, int top, int accumulate, int *reached, int *cells);

extern const char *const nc_x_shape_names[NC_XS_SHAPES];

#endif
