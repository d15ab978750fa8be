/* SPDX-License-Identifier: Apache-2.0 */
/* The explorer's coverage (explore_cover.h). */
#include "explore_cover.h"

const char *const nc_x_shape_names[NC_XS_SHAPES] = {"plain", "wide stride", "resolved keys",
                                                    "NULL outputs", "another thread"};

int nc_x_bucket(int64_t n)
{
  int b = 0;
  for (; n > 0 && b < NC_X_BUCKETS - 1; n >>= 1)
    b++;
  return b;
}

static int takes_keys(int action)
{
  return action <= NC_X_ERASE && action != NC_X_CLEAR;
}

int nc_x_shape_applies(int action, int shape)
{
  if (!takes_keys(action))
    return 0;
  switch (shape) {
  case NC_XS_STRIDE: return action == NC_X_FIND || action == NC_X_INSERT || action == NC_X_UPDATE;
  case NC_XS_MASK:
  case NC_XS_NULLS: return action == NC_X_FIND;
  default: return 1;
  }
}

void nc_x_cover_add(nc_x_cover *c, const nc_x_step *s)
{
  if (!takes_keys(s->action))
    return;
  uint32_t *cell = c->cells[s->action][nc_x_bucket(s->n)];
  int plain = 1;
  if (s->stride_pad)
    cell[NC_XS_STRIDE]++, plain = 0;
  if (s->resolved_every)
    cell[NC_XS_MASK]++, plain = 0;
  if (s->nulls)
    cell[NC_XS_NULLS]++, plain = 0;
  if (s->thread)
    cell[NC_XS_THREAD]++, plain = 0;
  if (plain)
    cell[NC_XS_PLAIN]++;
}

int nc_x_cover_gap(const nc_x_cover *c, int action, int top, unsigned shapes, int *bucket,
                   int *shape)
{
  if (!takes_keys(action))
    return 0;
  /* The smallest first: cheap cells fill at once, and the budget decides
   * how far up the aims climb. */
  for (int b = 1; b <= top && b < NC_X_BUCKETS; b++)
    for (int s = 0; s < NC_XS_SHAPES; s++)
      if ((shapes >> s & 1) && nc_x_shape_applies(action, s) && !c->cells[action][b][s]) {
        *bucket = b;
        *shape = s;
        return 1;
      }
  return 0;
}

void nc_x_cover_count(const nc_x_cover *c, int top, int accumulate, int *reached, int *cells)
{
  *reached = *cells = 0;
  for (int a = 0; a < NC_X_ACTIONS; a++) {
    if (a == NC_X_ACCUMULATE && !accumulate)
      continue;
    for (int b = 1; b <= top && b < NC_X_BUCKETS; b++)
      for (int s = 0; s < NC_XS_SHAPES; s++)
        if (nc_x_shape_applies(a, s)) {
          (*cells)++;
          *reached += c->cells[a][b][s] != 0;
        }
  }
}
