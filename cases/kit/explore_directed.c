/* SPDX-License-Identifier: Apache-2.0 */
/* The ops' directed views of the explorer (explore.h): after its targeted
 * checks, each op's case (insert in TBL-02, update in TBL-06,
 * update_accumulate in TBL-07, erase in TBL-08) runs the explorer's
 * sequences with its op weighted up, and reports what they covered of
 * that op's calls: batch sizes, call shapes, key relations, writes past
 * max_row_size. A disagreement is shrunk and blamed as in TBL-11's
 * exploration, on the rule of what it depends on, so a failure is
 * charged once whichever view met it. */
#include "explore.h"

#include <stdio.h>
#include <string.h>

#include "common.h"
#include "explore_cover.h"
#include "explore_view.h"
#include "runner.h"
#include "trace.h"

/* A quarter of TBL-11's budget per op. */
#define DIRECTED_SHARE 4
/* The views' seeds, fixed (the same sequences at any --seed: TBL-11's
 * swarm is where the run's seed explores), one per op. */
#define DIRECTED_SALT 0x6469726563746564ull

typedef struct directed {
  nc_x_action op;
  const char *name; /* the op as the coverage names it (rules.h's swept ops) */
  nc_x_cover cover;
  int64_t keys_by[NC_XK_CLASSES];
  int64_t oversize[2], other_dtype[2], steps, sequences, deepest, largest;
} directed;

/* The action whose view rule's case runs (rules.h's NC_SWEPT_OPS); -1
 * when the rule runs none. */
static int op_of(nc_rule rule, const char **name)
{
  switch (rule) {
#define NC_SWEPT_CASE(op, action, fam, num) \
  case NC_RULE_##fam##_##num:               \
    *name = op;                             \
    return NC_X_##action;
    NC_SWEPT_OPS(NC_SWEPT_CASE)
#undef NC_SWEPT_CASE
  default: return -1;
  }
}

static void add(directed *d, const nc_x_seq *q, const nc_x_replay_stats *st)
{
  d->sequences++;
  for (int k = 0; k < NC_XK_CLASSES; k++)
    d->keys_by[k] += q->keys_by[d->op][k];
  for (size_t i = 0; i < q->count; i++)
    d->steps += q->steps[i].action == d->op;
  for (int i = 0; i < 2; i++) {
    d->oversize[i] += st->oversize[i];
    d->other_dtype[i] += st->other_dtype[i];
  }
  d->deepest = q->deepest > d->deepest ? q->deepest : d->deepest;
  d->largest = q->largest > d->largest ? q->largest : d->largest;
}

static void cover_record(const directed *d, const char *dim, const char *cls, int ran,
                         const char *why)
{
  const char *f[] = {d->name, dim, cls, ran ? "ran" : "not run", ran ? "" : why, ""};
  nc_trace_record(NC_TAG_COVER, 6, f);
}

/* Writes past max_row_size: ran, or why not. */
static void cover_oversize(const directed *d, const nc_x_view *v, const char *unreached)
{
  if (d->op == NC_X_ERASE)
    return;
  char why[160];
  if (!v->shape.oversize_possible)
    snprintf(why, sizeof(why), "max_row_size is %lld bytes: a row past it does not fit the "
             "harness's buffers", (long long)v->shape.max_row_size);
  else
    snprintf(why, sizeof(why), "%s", unreached);
  cover_record(d, "refused", "value_size past max_row_size", d->oversize[0] + d->oversize[1] > 0,
               why);
}

/* The coverage as COVER records (the report's coverage section) and one
 * note in the case's evidence. */
static void report_cover(nc_case *c, const directed *d, const nc_x_view *v)
{
  char unreached[120], cls[48];
  snprintf(unreached, sizeof(unreached), "not drawn within the view's budget (%.3g s at the "
           "nominal rate)", v->budget_s);
  int top = nc_x_bucket(v->shape.cap), batches = 0, shapes = 0, shapes_all = 0, keys = 0;
  for (int b = 0; b <= top; b++) {
    int ran = 0;
    for (int s = 0; s < NC_XS_SHAPES; s++)
      ran |= d->cover.cells[d->op][b][s] != 0;
    if (b < 2)
      snprintf(cls, sizeof(cls), "%d", b);
    else
      snprintf(cls, sizeof(cls), "%lld-%lld", 1ll << (b - 1), (1ll << b) - 1);
    cover_record(d, "batch", cls, ran, unreached);
    batches += ran;
  }
  for (int s = 0; s < NC_XS_SHAPES; s++) {
    if (!nc_x_shape_applies(d->op, s))
      continue;
    int ran = 0;
    for (int b = 0; b <= top; b++)
      ran |= d->cover.cells[d->op][b][s] != 0;
    cover_record(d, "shape", nc_x_shape_names[s], ran, unreached);
    shapes += ran;
    shapes_all++;
  }
  int classes = d->op == NC_X_ACCUMULATE ? 2 : NC_XK_CLASSES; /* distinct stored and fresh keys */
  for (int k = 0; k < NC_XK_CLASSES; k++) {
    if (d->op == NC_X_ACCUMULATE && k != NC_XK_STORED && k != NC_XK_FRESH)
      continue;
    cover_record(d, "keys", nc_x_class_names[k], d->keys_by[k] > 0, unreached);
    keys += d->keys_by[k] > 0;
  }
  cover_oversize(d, v, unreached);
  if (d->op == NC_X_ACCUMULATE)
    cover_record(d, "dtype", "another dtype than the table's",
                 d->other_dtype[0] + d->other_dtype[1] > 0, unreached);
  char call[64];
  snprintf(call, sizeof(call), "explored calls of %s", d->name);
  nc_note(c, call, "every batch size, call shape and key relation of the op",
          "%lld sequences, %lld %s calls; batch sizes %d/%d, shapes %d/%d, key relations %d/%d; "
          "largest batch %lld, deepest table %lld keys; %lld writes past max_row_size "
          "(%lld refused)", (long long)d->sequences, (long long)d->steps, d->name, batches,
          top + 1, shapes, shapes_all, keys, classes, (long long)d->largest,
          (long long)d->deepest, (long long)(d->oversize[0] + d->oversize[1]),
          (long long)d->oversize[0]);
}

void nc_explore_directed(nc_case *c)
{
  static directed d; /* the coverage cells: one per case process */
  memset(&d, 0, sizeof(d));
  int op = op_of(c->rule, &d.name);
  if (op < 0) {
    nc_harness_error(c, "%s has no op to explore", nc_rule_defs[c->rule].info.id);
    return;
  }
  d.op = (nc_x_action)op;
  nc_x_view v;
  if (nc_x_view_start(c, DIRECTED_SHARE, &v) != 0)
    return;
  uint32_t favoured = NC_XF_ACTION(op) | (op == NC_X_ERASE ? NC_XF_ACTION(NC_X_CLEAR) : 0);
  uint64_t salt = DIRECTED_SALT + (uint64_t)op;
  int64_t spent = 0;
  for (int j = 0; spent < v.quota && nc_now() <= v.cap_at; j++) {
    nc_x_seq q;
    int64_t goal = nc_x_view_sequence(&v, &q, j, salt, v.quota - spent, favoured);
    q.favoured = favoured;
    nc_x_replay_stats st;
    int rc = nc_x_generate(&q, &v.shape, q.seed, goal, &d.cover);
    if (rc != 0)
      nc_harness_error(c, "out of memory generating sequence %d", j + 1);
    else if ((rc = nc_x_explore_sequence(c, &q, &v.shape, j + 1, v.cap_at, &st)) >= 0)
      add(&d, &q, &st);
    spent += q.work > 0 ? q.work : 1;
    nc_x_seq_free(&q);
    if (rc != 0)
      return;
  }
  report_cover(c, &d, &v);
}
