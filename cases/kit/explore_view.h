/* SPDX-License-Identifier: Apache-2.0 */
/* What the explorer's driver (explore.c) and the lifecycle rules' views
 * (explore_views.c) share: the effort's plan on this table, the
 * sequences (lifecycle events always on), and the blame and the steps of
 * a failure in the report's words. */
#ifndef NC_EXPLORE_VIEW_H
#define NC_EXPLORE_VIEW_H

#include "explore_shrink.h"

struct nc_x_effort;

typedef struct nc_x_view {
  const struct nc_x_effort *plan;
  nc_x_table_shape shape;
  double budget_s;   /* its share of the effort's (or --budget's) seconds */
  int64_t quota;     /* checked keys of the view's budget */
  int64_t depth_cap; /* the deepest table */
  double cap_at;     /* the safety cap in time (a machine near a standstill) */
} nc_x_view;

/* The plan for case c with 1/share of the effort's budget (TBL-11's own
 * is share 1); 0, or
 * -1 when no table could be made (recorded). */
int nc_x_view_start(nc_case *c, int share, nc_x_view *v);
/* Plans sequence j of the view (seeds from salt, features enabled on top
 * of its draw) into q; returns its work goal, at most left. */
int64_t nc_x_view_sequence(const nc_x_view *v, nc_x_seq *q, int j, uint64_t salt, int64_t left,
                           uint32_t features);
/* Replays q; on a disagreement, shrinks it, finds what it depends on and
 * records the FAIL on the rule blamed (seqno names it in the report).
 * 1 when it failed, 0 when it agreed, -1 when it could not run; st gets
 * the replay's figures when it ran. */
int nc_x_explore_sequence(nc_case *c, nc_x_seq *q, const nc_x_table_shape *shape, int seqno,
                          double cap_at, nc_x_replay_stats *st);

/* The rule a dependency (NC_XT_* toggles a failure needs) belongs to, own
 * for those of the op; *what names the dependency, or NULL for none. */
nc_rule nc_x_dependency_rule(unsigned depends, nc_rule own, const char **what);
/* The shortest failing sequence as notes, step by step. */
void nc_x_note_steps(nc_case *c, const nc_x_seq *q, const nc_x_shrunk *sh);
/* With --repro, the C reproducer of the failure (its steps replayed with
 * view's toggles, after the case's earlier replays it needs where it
 * needs earlier tables: explore_earlier.h, within cap_at), charged to
 * blamed, and a note of it or of why there is none. */
void nc_x_note_repro(nc_case *c, const nc_x_seq *q, const nc_x_shrunk *sh, unsigned view,
                     const nc_x_table_shape *shape, nc_rule blamed, double cap_at);

#endif
