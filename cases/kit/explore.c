/* SPDX-License-Identifier: Apache-2.0 */
/* The explorer's driver (explore.h): the budget, the series of sequences,
 * the verdict and what the exploration reached. */
#include "explore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda.h"
#include "explore_cover.h"
#include "explore_earlier.h"
#include "explore_repro.h"
#include "explore_shrink.h"
#include "explore_view.h"
#include "runner.h"
#include "splitmix.h"
#include "table_kit.h"

/* What each effort explores: its budget in seconds at the nominal rate,
 * the deepest table and the largest batch it aims for, and the model's
 * memory bound. */
typedef struct nc_x_effort {
  double budget_s;
  int64_t depth, batch, model_bytes;
} effort_plan;

static const effort_plan plans[] = {
    [NC_EFFORT_DEFAULT] = {0.4, 65536, 65536, 96 << 20},
    [NC_EFFORT_QUICK] = {0.15, 16384, 8192, 32 << 20},
    [NC_EFFORT_DEEP] = {30, 4194304, 262144, (int64_t)1 << 30},
};

/* The largest batch on a device table under the simulated runtime. */
#define SIM_DEVICE_BATCH 4096
#define SIM_DEVICE_DEPTH 8192
/* Steps of the longest shrunk failure still charged to the op's rule. */
#define SHORT_FAILURE 4
/* Ops of a shrunk sequence listed one by one; the rest are counted. */
#define SHOWN_STEPS 30
/* The long sequence: every table action, one table (no lifecycle events
 * that would start its history again), and this much work in small calls. */
#define NC_XF_LONG                                                                             \
  (NC_XF_ALL & ~(NC_XF_ACTION(NC_X_PRODUCE) | NC_XF_ACTION(NC_X_DESTROY) |                   \
                 NC_XF_ACTION(NC_X_DROP_FACTORY)))
#define LONG_WORK 100000
/* The fixed sequences' seed, and the first one's work. */
#define FIXED_SEQUENCES 3
#define FIXED_SEED 0x6e76652d636f6e66ull
#define FIRST_WORK 40000

/* The fewest checked keys a budget buys, however long the rows. */
#define MIN_BUDGET_KEYS 1024

/* Live keys of the first sequence; each next one doubles them, up to the
 * effort's deepest table. */
#define FIRST_DEPTH 512

typedef struct reach {
  int sequences, swarms;
  size_t steps;
  int64_t keys, deepest, largest, threaded, drops, produce_after_drop, destroys_with_others;
  int64_t other_configs;
  int64_t keys_by[NC_X_ACTIONS][NC_XK_CLASSES];
  int refused_produce;
  int64_t other_dtype[2]; /* accumulates in another dtype: refused, summed */
  int64_t short_writes[2]; /* inserts and updates short of the row: refused, taken */
  int64_t counter_reads, counter_most, caps_reads, decoys;
  nc_x_cover cover;
} reach;

/* A random subset of the features: each on with even odds, find always,
 * and keys either stored or fresh. */
static uint32_t swarm(uint64_t seed)
{
  uint32_t f = (uint32_t)nc_mix64(seed) & NC_XF_ALL;
  f |= NC_XF_ACTION(NC_X_FIND);
  if (!(f & (NC_XF_CLASS(NC_XK_STORED) | NC_XF_CLASS(NC_XK_FRESH))))
    f |= NC_XF_CLASS(NC_XK_FRESH);
  if ((f & NC_XF_ACTION(NC_X_DESTROY)) && !(f & NC_XF_ACTION(NC_X_PRODUCE)))
    f &= ~NC_XF_ACTION(NC_X_DESTROY);
  if (nc_mix64(seed ^ 1) % 8)
    f |= NC_XF_ACTION(NC_X_INSERT);
  return f;
}

/* A batch ceiling log-uniform between 4 and most. */
static int64_t small_batches(uint64_t seed, int64_t most)
{
  int bits = 2;
  while (bits < 62 && ((int64_t)1 << (bits + 1)) <= most)
    bits++;
  int64_t n = (int64_t)1 << (2 + nc_mix64(seed ^ 3) % (uint64_t)(bits - 1));
  return n < most ? n : most;
}

static int table_shape(nc_case *c, nc_x_table_shape *sh, int64_t batch)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return -1;
  *sh = (nc_x_table_shape){.key_size = (int)k.caps.key_size,
                           .invalid_key = k.caps.invalid_key,
                           .row = k.row,
                           .stride = k.stride,
                           .cap = nc_tk_batch(&k, batch),
                           .dtype = k.caps.dtype,
                           .update_size = nc_tk_update_size(&k, k.caps.dtype, 0),
                           .update_half = nc_tk_update_size(&k, k.caps.dtype, 1)};
  sh->accumulate = sh->update_size > 0;
  sh->host = k.caps.location == NVE_BUFFER_LOCATION_HOST;
  sh->max_row_size = k.caps.max_row_size;
  sh->oversize_possible = nc_x_oversize_possible(&k.caps);
  sh->more_configs = (int)c->cfg->more_count;
  for (int d = NVE_DTYPE_FLOAT32; d <= NVE_DTYPE_QUINT8_ROWWISE_F16; d++) {
    sh->dtype_update_size[d] = nc_tk_update_size(&k, (nve_data_type_t)d, 0);
    sh->dtype_update_half[d] = nc_tk_update_size(&k, (nve_data_type_t)d, 1);
  }
  /* The simulated runtime copies a device table's buffers byte by byte: a
   * batch of tens of thousands of keys takes seconds there. */
  if (k.caps.location == NVE_BUFFER_LOCATION_DEVICE && c->cfg->cuda_mode == NC_CUDA_SIM &&
      sh->cap > SIM_DEVICE_BATCH) {
    sh->cap = SIM_DEVICE_BATCH;
    sh->depth_max = SIM_DEVICE_DEPTH;
    nc_note(c, "exploration", "batches and tables up to the effort's largest",
            "a device table on the simulated CUDA runtime: batches up to %d keys, tables up to "
            "%d keys", SIM_DEVICE_BATCH, SIM_DEVICE_DEPTH);
  }
  nc_tk_close(&k, &f);
  return 0;
}

static void add_reach(reach *r, const nc_x_seq *q, const nc_x_replay_stats *st)
{
  r->sequences++;
  r->swarms += q->features != NC_XF_ALL;
  r->steps += q->count;
  r->keys += st->keys;
  r->deepest = q->deepest > r->deepest ? q->deepest : r->deepest;
  r->largest = q->largest > r->largest ? q->largest : r->largest;
  r->threaded += q->threaded;
  r->drops += q->drops_with_tables;
  r->produce_after_drop += q->produce_after_drop;
  r->other_configs += q->other_configs;
  r->destroys_with_others += q->destroys_with_others;
  r->refused_produce += st->refused_produce;
  r->other_dtype[0] += st->other_dtype[0];
  r->other_dtype[1] += st->other_dtype[1];
  r->short_writes[0] += st->short_writes[0];
  r->short_writes[1] += st->short_writes[1];
  r->counter_reads += st->counter_reads;
  r->counter_most = st->counter_most > r->counter_most ? st->counter_most : r->counter_most;
  r->caps_reads += st->caps_reads;
  r->decoys += st->decoys;
  for (int a = 0; a < NC_X_ACTIONS; a++)
    for (int k = 0; k < NC_XK_CLASSES; k++)
      r->keys_by[a][k] += q->keys_by[a][k];
}

/* The rule a dependency of the failure belongs to; the case's own rule
 * for those that belong to the op (a thread, a stride). */
nc_rule nc_x_dependency_rule(unsigned depends, nc_rule own, const char **what)
{
  static const struct {
    unsigned toggle;
    nc_rule rule;
    const char *what;
  } order[] = {
      {NC_XD_EARLIER_TABLES, NC_RULE_LIF_02,
       "tables the case's process made and destroyed before this sequence"},
      {NC_XT_KEEP_FACTORY, NC_RULE_LIF_01, "the factory destroyed before the table"},
      {NC_XT_ALONE, NC_RULE_LIF_02, "another table alive at the same time"},
      {NC_XT_KEEP_TABLES, NC_RULE_LIF_02, "a table destroyed before this one was produced"},
      {NC_XT_OUTPUTS, NC_RULE_TBL_05, "a find with NULL optional outputs"},
      {NC_XT_NO_MASK, NC_RULE_TBL_03, "keys resolved on entry"},
      /* the op's whose write it was: nc_x_oversize_owner */
      {NC_XT_NO_PAST_ROW, NC_RULE_COUNT, "a write past max_row_size before a step"},
      /* without the write it still fails: only the keys stored for it count */
      {NC_XT_NO_OVERSIZE, NC_RULE_COUNT, "the keys stored before a write past max_row_size"},
      {NC_XT_MAIN_THREAD, NC_RULE_COUNT, "a call from another thread"},
      {NC_XT_PLAIN_STRIDE, NC_RULE_COUNT, "a stride wider than the row"},
      {NC_XT_WHOLE_ROWS, NC_RULE_COUNT, "a write short of the row"},
      {NC_XT_ONE_CONFIG, NC_RULE_COUNT, "a table of another of the profile's configs"},
  };
  for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++)
    if (depends & order[i].toggle) {
      *what = order[i].what;
      return order[i].rule == NC_RULE_COUNT ? own : order[i].rule;
    }
  *what = NULL;
  return own;
}

void nc_x_note_steps(nc_case *c, const nc_x_seq *q, const nc_x_shrunk *sh)
{
  for (size_t i = 0; i < sh->len; i++) {
    char d[240];
    nc_x_describe(q, &sh->steps[i], d, sizeof(d));
    if (i < SHOWN_STEPS || i + 1 == sh->len)
      nc_note(c, "shortest failing sequence", "its steps, in order", "%zu/%zu: %s", i + 1,
              sh->len, d);
    else if (i == SHOWN_STEPS)
      nc_note(c, "shortest failing sequence", "its steps, in order", "... %zu more steps ...",
              sh->len - SHOWN_STEPS - 1);
  }
}

/* The failure, blamed on the rule of the feature it needs (proven by the
 * replays without it), or else on the op's. */
static void report_failure(nc_case *c, const nc_x_seq *q, const nc_x_table_shape *shape,
                           int seqno, uint64_t seed, const nc_x_failure *first,
                           const nc_x_shrunk *sh, double cap_at)
{
  const char *what;
  nc_rule owner = nc_x_dependency_rule(sh->depends, NC_RULE_COUNT, &what);
  if (owner == NC_RULE_COUNT && (sh->depends & NC_XT_NO_PAST_ROW))
    owner = nc_x_oversize_owner(q, sh->steps, sh->len);
  char call[200], needs[200] = "";
  snprintf(call, sizeof(call), "explored sequence %d (seed %llu), step %ld of %zu (%s)", seqno,
           (unsigned long long)seed, first->at + 1, q->count,
           nc_x_action_names[q->steps[first->at].action]);
  if (what)
    snprintf(needs, sizeof(needs), "; it needs %s (replayed without it, %s)", what,
             sh->fail.direct ? "the check holds" : "the tables agree");
  const char *expected = sh->fail.direct && sh->fail.expected
                             ? sh->fail.expected
                             : "agreement with the model after every step";
  const char *fmt = sh->fail.direct
                        ? "%s. Shortest failing sequence: %zu step(s) (from %ld, %d replays on "
                          "fresh tables); its failure: %s%s"
                        : "the table disagreed: %s. Shortest failing sequence: %zu steps (from "
                          "%ld, %d replays on fresh tables); its failure: %s%s";
  /* A failure a few calls show is the op's own: its rule fails with the
   * evidence, wherever its own case looked. A longer history is the
   * sequence's (this rule's, unless the op's rule fails on its own). */
  /* The counter's answer is a function of the finds since its reset: a
   * long history is its input, not a sign of the sequence's state. */
  int history_is_input = sh->fail.at >= 0 && (size_t)sh->fail.at < sh->len &&
                         sh->steps[sh->fail.at].action == NC_X_COUNTER;
  if (owner == NC_RULE_COUNT && (sh->len <= SHORT_FAILURE || history_is_input) &&
      sh->fail.nowners == 1)
    owner = sh->fail.owners[0];
  if (sh->fail.direct)
    owner = sh->fail.owners[0];
  /* In an op's directed view a longer history is the sequences' rule's,
   * as it is in TBL-11's own exploration. */
  if (owner == NC_RULE_COUNT && c->rule != NC_RULE_TBL_11)
    owner = NC_RULE_TBL_11;
  if (owner != NC_RULE_COUNT && owner != c->rule) {
    nc_fail_proven(c, owner, call, expected, fmt, first->why, sh->len, first->at + 1,
                   sh->replays, sh->fail.why, needs);
  } else {
    nc_rule own = c->rule;
    const nc_rule *owners = sh->fail.nowners ? sh->fail.owners : &own;
    nc_fail_owned_by(c, owners, sh->fail.nowners ? sh->fail.nowners : 1, call, expected, fmt,
                     first->why, sh->len, first->at + 1, sh->replays, sh->fail.why, needs);
  }
  if (sh->timed_out)
    nc_note(c, "shrinking", "a bound in replays, not in time",
            "stopped by the safety cap in time after %d replays (a heavily loaded machine?): "
            "the sequence may be longer than the shortest", sh->replays);
  nc_x_note_steps(c, q, sh);
  nc_rule blamed = owner != NC_RULE_COUNT ? owner
                 : sh->fail.nowners ? sh->fail.owners[0] : c->rule;
  nc_x_note_repro(c, q, sh, 0, shape, blamed, cap_at);
}

static void note_no_repro(nc_case *c, const char *why)
{
  nc_note(c, "C reproducer", "a program that fails while the defect persists", "none: %s", why);
}

void nc_x_note_repro(nc_case *c, const nc_x_seq *q, const nc_x_shrunk *sh, unsigned view,
                     const nc_x_table_shape *shape, nc_rule blamed, double cap_at)
{
  if (!c->cfg->repro)
    return;
  nc_x_earlier e = {0};
  int standalone = sh->standalone, replays = 0;
  if (sh->depends & NC_XD_EARLIER_TABLES) {
    int found = nc_x_earlier_find(q, sh->steps, sh->len, view, cap_at, sh->slowest, &replays, &e);
    if (found == 0) {
      note_no_repro(c, "these steps fail only after tables the case made before them, and "
                       "nve-conform found no replays of its own after which they fail in a "
                       "process of their own (the tables they need were made otherwise, or its "
                       "record of them was full)");
      return;
    }
    if (found < 0) {
      note_no_repro(c, "these steps fail only after tables the case made before them, and "
                       "the replays that would find which could not tell (one hung or "
                       "crashed, or the safety cap in time came first)");
      return;
    }
    standalone = 1; /* they failed after those, in a fresh process */
  }
  nc_x_segment *segs = malloc((e.n + 1) * sizeof(*segs));
  if (!segs) {
    nc_x_earlier_free(&e);
    nc_harness_error(c, "out of memory writing a reproducer");
    return;
  }
  if (e.n)
    memcpy(segs, e.segs, e.n * sizeof(*segs));
  segs[e.n] = (nc_x_segment){*q, sh->steps, sh->len, view, 0, 0, 0};
  size_t before = 0;
  for (size_t k = 0; k < e.n; k++)
    before += e.segs[k].count;
  char name[64], first[300] = "";
  if (e.n)
    snprintf(first, sizeof(first), "; it first replays %zu of the case's earlier sequences (%zu "
             "steps; found in %d replays in fresh processes%s), each on fresh tables, after "
             "which these steps fail in a process of their own", e.n, before, replays,
             e.timed_out ? ", stopped by the safety cap in time: perhaps more than needed" : "");
  if (nc_x_write_repro(c, segs, e.n + 1, shape, blamed, standalone, name, sizeof(name)) == 0)
    nc_note(c, "C reproducer", "a program that fails while the defect persists",
            "%s in the --repro directory: cc -std=c11 -I INCLUDEDIR %s -ldl; ./a.out [plugin.so] "
            "exits 1 while the defect persists, %s%s", name, name,
            standalone ? "0 once it is fixed (3: inconclusive)"
                       : "else 3 (inconclusive): nve-conform could not replay these steps in a "
                         "process of their own, so they may need tables the case made before "
                         "them",
            first);
  else if (e.n)
    note_no_repro(c, "these steps fail only after earlier sequences of the case, and the "
                     "program could not be written (more keys than a reproducer holds, or no "
                     "room in the run's scratch directory)");
  free(segs);
  nc_x_earlier_free(&e);
}

/* Action x relation pairs the exploration reached, and a list of those it
 * did not. */
static int pairs_reached(const reach *r, const nc_x_table_shape *sh, char *missing, size_t len)
{
  int n = 0;
  size_t at = 0;
  missing[0] = '\0';
  for (int a = 0; a <= NC_X_ERASE; a++)
    for (int k = 0; k < NC_XK_CLASSES; k++) {
      if (a == NC_X_CLEAR || (a == NC_X_ACCUMULATE && k != NC_XK_STORED && k != NC_XK_FRESH))
        continue; /* clear takes no keys; accumulate only distinct stored and fresh ones */
      if (r->keys_by[a][k]) {
        n++;
      } else if (at < len) {
        int w = snprintf(missing + at, len - at, "%s%s x %s%s", at ? ", " : "",
                         nc_x_action_names[a], nc_x_class_names[k],
                         a == NC_X_ACCUMULATE && !sh->accumulate ? " (no summable dtype)" : "");
        at += w > 0 ? (size_t)w : 0;
      }
    }
  return n;
}

static void report_reach(nc_case *c, const reach *r, const nc_x_table_shape *sh,
                         const char *budget, int64_t quota, const char *stopped)
{
  char missing[600];
  int pairs = pairs_reached(r, sh, missing, sizeof(missing));
  int cells, reached;
  nc_x_cover_count(&r->cover, nc_x_bucket(r->largest), sh->accumulate, &reached, &cells);
  nc_note(c, "exploration", "every action and relation at least once",
          "%s (%lld checked keys): %d sequences (%d of them swarm subsets), %zu steps, %lld keys "
          "in calls; stopped by %s",
          budget, (long long)quota, r->sequences, r->swarms, r->steps, (long long)r->keys,
          stopped);
  nc_note(c, "exploration reached", "deep tables, large batches, every pair",
          "deepest table %lld live keys, largest batch %lld keys, %d action x relation pairs "
          "(%s%s), %d of %d action x batch size x call shape cells up to that batch, %lld steps "
          "on another thread, %lld factory drops with tables alive, %lld produces after a drop, "
          "%lld destroys beside other tables, %lld accumulates in another dtype than the "
          "table's (%lld summed, %lld refused)",
          (long long)r->deepest, (long long)r->largest, pairs, *missing ? "not reached: " : "all",
          missing, reached, cells, (long long)r->threaded, (long long)r->drops, (long long)r->produce_after_drop,
          (long long)r->destroys_with_others, (long long)(r->other_dtype[0] + r->other_dtype[1]),
          (long long)r->other_dtype[1], (long long)r->other_dtype[0]);
  if (r->refused_produce)
    nc_note(c, "exploration", "another table when asked",
            "%d produce calls for another table were refused; steps on those tables did not "
            "run", r->refused_produce);
  nc_note(c, "exploration reached", "the counter after long counted runs, the capabilities "
          "between steps", "%lld lookup counter reads judged, the longest run %lld counted "
          "keys; %lld capability re-reads", (long long)r->counter_reads,
          (long long)r->counter_most, (long long)r->caps_reads);
  if (nc_cuda_loaded() && nc_cuda_device_count() >= 2)
    nc_note(c, "exploration reached", "a decoy device around every bootstrap call",
            "%lld factory creations, produces and factory destroys in the sequences' orders, "
            "each with a decoy device current (never device 0), which each must leave current",
            (long long)r->decoys);
  else
    nc_note(c, "exploration not reached", "a decoy device around every bootstrap call",
            "%s", nc_cuda_loaded() ? "the CUDA runtime has one device: no decoy"
                                   : "no CUDA runtime loaded (--cuda off): no decoy");
  if (sh->more_configs)
    nc_note(c, "exploration reached", "tables of another config beside the first",
            "%lld produces with one of the profile's %d more_table_configs",
            (long long)r->other_configs, sh->more_configs);
  else
    nc_note(c, "exploration not reached", "tables of another config beside the first",
            "every produce used the table config (a profile's more_table_configs adds others)");
  if (r->short_writes[0] + r->short_writes[1])
    nc_note(c, "exploration reached", "writes shorter than the row",
            "%lld inserts and updates with a value_size short of the row (%lld taken, %lld "
            "refused)", (long long)(r->short_writes[0] + r->short_writes[1]),
            (long long)r->short_writes[1], (long long)r->short_writes[0]);
  else
    nc_note(c, "exploration not reached", "writes shorter than the row",
            "no sequence drew one (the row holds one element, or no swarm enabled them)");
}

/* Sequence j of the run: its seed, features, depth and batch ceilings;
 * returns its work goal. The first three are the same in every run,
 * whatever the seed, so that what they catch every run catches: every
 * feature on a shallow table, a long history of small calls, and every
 * feature at the deepest table. The rest are swarm subsets drawn from the
 * run's seed, each twice as deep as the one before, up to depth_cap. */
static int64_t plan_sequence(nc_x_seq *q, int j, uint64_t run_seed, const effort_plan *plan,
                             int64_t depth_cap, int64_t left)
{
  memset(q, 0, sizeof(*q));
  int64_t depth = j == 0   ? 4 * FIRST_DEPTH
                : j == 1   ? 2 * FIRST_DEPTH
                : j == 2   ? depth_cap
                : j < 30   ? (int64_t)FIRST_DEPTH << (j - 3)
                           : depth_cap;
  q->seed = j < FIXED_SEQUENCES ? nc_mix64(FIXED_SEED + (uint64_t)j)
                                : nc_mix64(run_seed + 0x9e3779b97f4a7c15ull * (uint64_t)(j + 1));
  q->features = j == 1 ? NC_XF_LONG : j < FIXED_SEQUENCES ? NC_XF_ALL : swarm(q->seed);
  q->even = j < FIXED_SEQUENCES;
  q->depth_goal = depth < depth_cap ? depth : depth_cap;
  q->growth_max = q->depth_goal < plan->batch ? q->depth_goal : plan->batch;
  /* Half the swarm sequences keep their batches small, and so take many
   * more steps for the same work: long histories of small calls. */
  q->batch_max = j == 1 ? 16
               : j < FIXED_SEQUENCES || nc_mix64(q->seed ^ 2) % 2 ? q->growth_max
                                                           : small_batches(q->seed, q->growth_max);
  int64_t goal = j == 0 ? FIRST_WORK : j == 1 ? LONG_WORK
               : 6 * q->depth_goal > 20000 ? 6 * q->depth_goal : 20000;
  return goal < left ? goal : left;
}

int nc_x_explore_sequence(nc_case *c, nc_x_seq *q, const nc_x_table_shape *shape, int seqno,
                          double cap_at, nc_x_replay_stats *st)
{
  nc_x_failure fail;
  if (nc_x_replay(c, q, q->steps, q->count, 0, 0, &fail, st) != 0)
    return -1;
  if (fail.at == (long)q->count)
    return 0;
  if (fail.counted) { /* a count over the whole sequence: no step to shrink to */
    int mine = c->rule == NC_RULE_TBL_11;
    for (int i = 0; i < fail.nowners; i++)
      mine |= fail.owners[i] == c->rule;
    if (mine || !fail.nowners)
      nc_fail_owned_by(c, fail.owners, fail.nowners, "explored sequence", "calls with valid "
                       "arguments succeed", "sequence %d (seed %llu), %zu steps: %s", seqno,
                       (unsigned long long)q->seed, q->count, fail.why);
    else /* another op's calls failed in an op's directed view: that op's rule's */
      nc_fail_proven(c, fail.owners[0], "explored sequence", "calls with valid arguments "
                     "succeed", "sequence %d (seed %llu), %zu steps: %s", seqno,
                     (unsigned long long)q->seed, q->count, fail.why);
    return 1;
  }
  nc_x_shrunk sh;
  if (nc_x_shrink(c, q, q->steps, (size_t)fail.at + 1, &fail, 0, cap_at, &sh) != 0) {
    nc_harness_error(c, "out of memory shrinking a sequence of %ld steps", fail.at + 1);
    return -1;
  }
  report_failure(c, q, shape, seqno, q->seed, &fail, &sh, cap_at);
  nc_x_shrunk_free(&sh);
  return 1;
}

/* The deepest table the model's memory bound and the effort allow. Long
 * rows buy fewer keys (keys_for_budget), and so a shallower table: the
 * budget goes to many calls of every action rather than to growth. */
static int64_t deepest_table(const effort_plan *plan, const nc_x_table_shape *shape)
{
  int64_t depth = plan->model_bytes / (shape->row + 64);
  depth = depth < plan->depth ? depth : plan->depth;
  int64_t per_key = shape->row / NC_EXPLORE_ROW_BYTES;
  if (per_key > 1) /* at least 16 keys, within the model's bound */
    depth = depth / per_key > 16 ? depth / per_key : depth < 16 ? depth : 16;
  return shape->depth_max && depth > shape->depth_max ? shape->depth_max : depth;
}

static const effort_plan *plan_of(const nc_config *cfg)
{
  int e = cfg->effort;
  if (e == NC_EFFORT_DEFAULT && cfg->stress)
    e = NC_EFFORT_DEEP;
  return &plans[e >= 0 && e <= NC_EFFORT_DEEP ? e : NC_EFFORT_DEFAULT];
}

/* The checked keys a budget buys: at the nominal rate, each key of a row
 * longer than NC_EXPLORE_ROW_BYTES counting as row / NC_EXPLORE_ROW_BYTES
 * (filling, moving and comparing rows is most of a call at large rows). */
static int64_t keys_for_budget(double budget_s, const nc_x_table_shape *shape)
{
  double per_key = (double)shape->row / NC_EXPLORE_ROW_BYTES;
  int64_t nominal = (int64_t)(budget_s * NC_EXPLORE_KEYS_PER_S);
  int64_t keys = (int64_t)((double)nominal / (per_key > 1 ? per_key : 1));
  /* Enough for every action and relation, whatever the row. */
  int64_t least = nominal < MIN_BUDGET_KEYS ? nominal : MIN_BUDGET_KEYS;
  return keys > least ? keys : least;
}

void nc_explore(nc_case *c)
{
  nc_x_view v;
  if (nc_x_view_start(c, 1, &v) != 0)
    return;
  const effort_plan *plan = v.plan;
  const nc_x_table_shape shape = v.shape;
  double budget_s = v.budget_s, cap_at = v.cap_at;
  int64_t quota = v.quota, depth_cap = v.depth_cap;
  char budget[120];
  snprintf(budget, sizeof(budget), "budget %.3g s at the nominal %.0f checked keys/s (%s)%s",
           budget_s, NC_EXPLORE_KEYS_PER_S,
           c->cfg->budget_s > 0 ? "--budget" : nc_effort_name((int)(plan - plans)),
           shape.row > NC_EXPLORE_ROW_BYTES ? ", a key of a long row counting as several" : "");
  const char *stopped = "the budget";
  static reach r; /* large (the coverage cells): one per case process */
  memset(&r, 0, sizeof(r));
  int64_t spent = 0;
  for (int j = 0; spent < quota; j++) {
    if (nc_now() > cap_at) {
      stopped = "the safety cap in time (a heavily loaded machine?)";
      break;
    }
    nc_x_seq q;
    int64_t goal = plan_sequence(&q, j, c->cfg->seed, plan, depth_cap, quota - spent);
    uint64_t seed = q.seed;
    int rc = nc_x_generate(&q, &shape, seed, goal, &r.cover);
    nc_x_replay_stats st;
    if (rc != 0)
      nc_harness_error(c, "out of memory generating sequence %d", j + 1);
    else if ((rc = nc_x_explore_sequence(c, &q, &shape, j + 1, cap_at, &st)) >= 0)
      add_reach(&r, &q, &st);
    spent += q.work > 0 ? q.work : 1;
    int64_t depth = q.depth_goal;
    nc_x_seq_free(&q);
    if (rc != 0)
      return;
    if (depth >= depth_cap && r.deepest >= depth_cap)
      stopped = "the budget, at the model's memory bound or the effort's deepest table";
  }
  report_reach(c, &r, &shape, budget, quota, stopped);
}

int nc_x_view_start(nc_case *c, int share, nc_x_view *v)
{
  v->plan = plan_of(c->cfg);
  double budget_s = (c->cfg->budget_s > 0 ? c->cfg->budget_s : v->plan->budget_s) / share;
  if (table_shape(c, &v->shape, v->plan->batch) != 0)
    return -1;
  v->budget_s = budget_s;
  v->quota = keys_for_budget(budget_s, &v->shape);
  v->depth_cap = deepest_table(v->plan, &v->shape);
  v->cap_at = nc_now() + 60 + 20 * budget_s; /* only for a machine near a standstill */
  return 0;
}

int64_t nc_x_view_sequence(const nc_x_view *v, nc_x_seq *q, int j, uint64_t salt, int64_t left,
                           uint32_t features)
{
  /* The first is TBL-11's fixed one with every feature (the same at any
   * seed), at a quarter of the deepest table and an eighth of the view's
   * work: every view grows a table through its resizes. Then swarm
   * subsets from the salted seed. */
  int64_t goal = j == 0 ? plan_sequence(q, 2, salt, v->plan, v->depth_cap, left)
                        : plan_sequence(q, FIXED_SEQUENCES + j - 1, salt, v->plan, v->depth_cap,
                                        left);
  if (j == 0) {
    q->depth_goal = v->depth_cap / 4 > 1 ? v->depth_cap / 4 : 1;
    q->growth_max = q->growth_max < q->depth_goal ? q->growth_max : q->depth_goal;
    q->batch_max = q->batch_max < q->growth_max ? q->batch_max : q->growth_max;
    goal = goal < v->quota / 8 ? goal : v->quota / 8 > 1 ? v->quota / 8 : 1;
  }
  q->features |= features;
  return goal;
}
