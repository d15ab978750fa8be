/* SPDX-License-Identifier: Apache-2.0 */
/* The replays a case's process made, in order, with --repro: a failure
 * that shows only after tables the case made and destroyed before it
 * (NC_XD_EARLIER_TABLES) is replayed in a fresh process after them, cut
 * down to those it needs, and its reproducer replays those first. */
#ifndef NC_EXPLORE_HISTORY_H
#define NC_EXPLORE_HISTORY_H

#include "explore_run.h"

/* One replay: steps of a sequence under toggles, from a fresh factory. */
typedef struct nc_x_segment {
  nc_x_seq q; /* its header and keys (q.steps unused) */
  const nc_x_step *steps;
  size_t count;
  unsigned toggles;
  int alone_slot;
  double took; /* seconds it took here */
  int failed;  /* it disagreed (or leaked) here: count ends at the step that did */
} nc_x_segment;

/* Records a replay the case's process made (nothing without --repro or a
 * fresh replayer, and nothing once the history's memory bound is met). */
void nc_x_history_record(nc_case *c, const nc_x_seq *q, const nc_x_step *steps, size_t count,
                         unsigned toggles, int alone_slot, double took, int failed);
/* A replay that made part of its tables and could not go on: the
 * history cannot say what it did, and is incomplete from then on. */
void nc_x_history_broken(void);

/* The replays made before the current run of q's own (its first replay
 * and its shrinking's): *segs points at them (valid until the next
 * record). Returns how many, or -1 when the history is incomplete (not
 * recorded, or over its bound). */
long nc_x_history_before(const nc_x_seq *q, const nc_x_segment **segs);

#endif
