/* SPDX-License-Identifier: Apache-2.0 */
/* The lifecycle rules' views of the explorer (explore.h): sequences with
 * every lifecycle event on (the factory destroyed while tables live,
 * tables beside tables, calls from other threads), each judged for its
 * own rule. LIF-03 judges what the plugin still holds once everything is
 * gone; LIF-01 and LIF-02 judge the disagreements whose blame replays
 * show they need a lifecycle event, and leave the rest to the rules of
 * the ops (those cases report them): a failure is blamed once. */
#include "explore.h"

#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "explore_view.h"
#include "runner.h"

/* The views' seeds, fixed, apart from TBL-11's and from each other's; a
 * quarter of TBL-11's budget each. */
#define LEAK_SALT 0x6c6966652d30330aull
#define LIF01_SALT 0x6c6966652d30310aull
#define LIF02_SALT 0x6c6966652d30320aull
#define VIEW_SHARE 4
/* Every lifecycle event, on top of each sequence's draw. */
#define LIFECYCLE_EVENTS                                                                       \
  (NC_XF_ACTION(NC_X_PRODUCE) | NC_XF_ACTION(NC_X_DESTROY) | NC_XF_ACTION(NC_X_DROP_FACTORY) |  \
   NC_XF_THREADS)
/* Sequences a lifecycle view lets a failure of another rule cut short
 * before it stops. */
#define CUT_SHORT_MAX 2

static void report_leak(nc_case *c, const nc_x_seq *q, int seqno, uint64_t seed,
                        const nc_x_shrunk *sh)
{
  const char *what;
  nc_x_dependency_rule(sh->depends, c->rule, &what);
  char call[200], needs[200] = "";
  snprintf(call, sizeof(call), "explored lifecycle %d (seed %llu): %zu steps, then every table, "
           "the factory and the threads gone", seqno, (unsigned long long)seed, q->count);
  if (what)
    snprintf(needs, sizeof(needs), "; it needs %s (replayed without it, nothing is left)", what);
  nc_fail(c, call, "no memory allocated by the plugin left",
          "%s. Shortest leaking sequence: %zu step%s (%d replays on fresh tables)%s",
          sh->fail.why, sh->len, sh->len == 1 ? "" : "s", sh->replays, needs);
  nc_x_note_steps(c, q, sh);
}

/* Shrinks q's failure in view (NC_XT_LEAKS or NC_XT_PLAIN_CALLS); 0, or
 * -1 (recorded). */
static int shrink(nc_case *c, nc_x_seq *q, size_t len, const nc_x_failure *fail, unsigned view,
                  double cap_at, nc_x_shrunk *sh)
{
  if (nc_x_shrink(c, q, q->steps, len, fail, view, cap_at, sh) == 0)
    return 0;
  nc_harness_error(c, "out of memory shrinking a sequence of %zu steps", len);
  return -1;
}

/* Replays q twice in the leak view: the first makes the one-time
 * allocations (lazily built globals, this thread's storage), the second
 * is judged. 1 when it leaked (reported), 0 when not, -1 when it could not
 * run. */
static int leak_one(nc_case *c, nc_x_seq *q, const nc_x_view *v, int seqno, uint64_t seed)
{
  nc_x_failure fail;
  if (nc_x_replay(c, q, q->steps, q->count, NC_XT_LEAKS, 0, &fail, NULL) != 0 ||
      nc_x_replay(c, q, q->steps, q->count, NC_XT_LEAKS, 0, &fail, NULL) != 0)
    return -1;
  if (fail.at == (long)q->count)
    return 0;
  nc_x_shrunk sh;
  if (shrink(c, q, q->count, &fail, NC_XT_LEAKS, v->cap_at, &sh) != 0)
    return -1;
  report_leak(c, q, seqno, seed, &sh);
  nc_x_shrunk_free(&sh);
  return 1;
}

/* Replays q as TBL-11 does, with plain calls. A disagreement that needs
 * a lifecycle event of this case's rule is its FAIL (1); one that does not
 * is the op's rule's and only cuts the sequence short (2, noted); 0 when
 * it agreed, -1 when it could not run. */
static int lifecycle_one(nc_case *c, nc_x_seq *q, const nc_x_view *v, int seqno,
                         uint64_t seed)
{
  nc_x_failure fail;
  if (nc_x_replay(c, q, q->steps, q->count, NC_XT_PLAIN_CALLS, 0, &fail, NULL) != 0)
    return -1;
  if (fail.at == (long)q->count)
    return 0;
  if (fail.counted)
    return 2; /* failed calls counted over the whole run: the ops' rules judge them */
  nc_x_shrunk sh;
  if (shrink(c, q, (size_t)fail.at + 1, &fail, NC_XT_PLAIN_CALLS, v->cap_at, &sh) != 0)
    return -1;
  const char *what;
  nc_rule owner = nc_x_dependency_rule(sh.depends, NC_RULE_COUNT, &what);
  if (sh.fail.direct)
    owner = sh.fail.owners[0]; /* another rule's own check: TBL-11's sequences judge it */
  if (owner != c->rule) {
    nc_note(c, "explored lifecycles", "sequences that agree with the model",
            "sequence %d (seed %llu) cut short at step %ld by a failure that is not this "
            "rule's (%s): the rules of its ops judge it", seqno, (unsigned long long)seed,
            fail.at + 1, sh.fail.why);
    nc_x_shrunk_free(&sh);
    return 2;
  }
  nc_fail(c, "explored lifecycle", "agreement with the model whatever the order of produces "
          "and destroys", "sequence %d (seed %llu), step %ld of %zu: %s. Shortest failing "
          "sequence: %zu steps (%d replays on fresh tables); it needs %s (replayed without it, "
          "the tables agree)", seqno, (unsigned long long)seed, fail.at + 1, q->count,
          fail.why, sh.len, sh.replays, what);
  nc_x_note_steps(c, q, &sh);
  nc_x_note_repro(c, q, &sh, NC_XT_PLAIN_CALLS, &v->shape, c->rule, v->cap_at);
  nc_x_shrunk_free(&sh);
  return 1;
}

typedef int (*view_one)(nc_case *c, nc_x_seq *q, const nc_x_view *v, int seqno, uint64_t seed);

/* Runs the view's sequences (each replayed replays times) until its
 * budget is spent, a failure of its rule is reported or too many were cut
 * short; notes what it reached. */
static void run_view(nc_case *c, uint64_t salt, view_one one, int replays, const char *judged)
{
  nc_x_view v;
  if (nc_x_view_start(c, VIEW_SHARE, &v) != 0)
    return;
  int64_t spent = 0, drops = 0, after_drop = 0, beside = 0, deepest = 0;
  size_t steps = 0;
  int j = 0, cut = 0;
  for (; spent < v.quota && nc_now() <= v.cap_at && cut < CUT_SHORT_MAX; j++) {
    nc_x_seq q;
    /* The same sequences at any seed: a view's verdict is the same in every
     * run (TBL-11's swarm is where the run's seed explores). */
    int64_t goal = nc_x_view_sequence(&v, &q, j, salt, v.quota - spent, LIFECYCLE_EVENTS);
    uint64_t seed = q.seed;
    int rc = nc_x_generate(&q, &v.shape, seed, goal, NULL);
    if (rc != 0)
      nc_harness_error(c, "out of memory generating sequence %d", j + 1);
    else
      rc = one(c, &q, &v, j + 1, seed);
    spent += q.work > 0 ? replays * q.work : 1;
    steps += q.count;
    drops += q.drops_with_tables;
    after_drop += q.produce_after_drop;
    beside += q.destroys_with_others;
    deepest = q.deepest > deepest ? q.deepest : deepest;
    nc_x_seq_free(&q);
    cut += rc == 2;
    if (rc != 0 && rc != 2)
      return;
  }
  char cut_text[80] = "";
  if (cut)
    snprintf(cut_text, sizeof(cut_text), " (%d of them cut short by other rules' failures)", cut);
  nc_note(c, "explored lifecycles", "every order of produces and destroys",
          "%d sequences%s, %zu steps, tables up to %lld keys: %lld factory drops with tables "
          "alive, %lld produces after a drop, %lld destroys beside other tables; %s",
          j, cut_text, steps, (long long)deepest, (long long)drops, (long long)after_drop,
          (long long)beside, judged);
}

void nc_explore_leaks(nc_case *c)
{
  run_view(c, LEAK_SALT, leak_one, 2, "nothing left after any");
}

void nc_explore_lifecycle(nc_case *c)
{
  /* LIF-01 and LIF-02 each draw their own sequences: the same ones twice
   * would spend the second budget on nothing new. */
  run_view(c, c->rule == NC_RULE_LIF_02 ? LIF02_SALT : LIF01_SALT, lifecycle_one, 1,
           "no disagreement that needs one");
}
