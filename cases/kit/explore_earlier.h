/* SPDX-License-Identifier: Apache-2.0 */
/* The earlier replays a failure needs (NC_XD_EARLIER_TABLES): found by
 * replaying the case's history (explore_history.h) before the failing
 * steps in a fresh process, then cutting it down, whole replays first,
 * then their steps, so that its reproducer replays only what it needs. */
#ifndef NC_EXPLORE_EARLIER_H
#define NC_EXPLORE_EARLIER_H

#include "explore_history.h"

typedef struct nc_x_earlier {
  nc_x_segment *segs; /* their steps malloc'd, their keys the history's */
  size_t n;
  int timed_out; /* the safety cap in time stopped the cutting down */
} nc_x_earlier;

/* Finds the earlier replays after which steps[0..len) of q, replayed
 * with view, fail in a fresh process, none of those disagreeing. 1 with
 * *out filled; 0 when even the whole history (less the replays that
 * disagreed here or that a reproducer cannot make) does not make them
 * fail there (the tables they need were made otherwise, or the history is
 * incomplete); -1 when the replays could not tell. slowest: seconds of
 * the slowest replay of q here (a replay's allowance); *replays counts
 * those made. At most 120 replays, bounded in number, not in time: the
 * deadline is a safety cap. */
int nc_x_earlier_find(const nc_x_seq *q, const nc_x_step *steps, size_t len, unsigned view,
                      double deadline, double slowest, int *replays, nc_x_earlier *out);
void nc_x_earlier_free(nc_x_earlier *e);

#endif
