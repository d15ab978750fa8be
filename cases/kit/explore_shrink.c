/* SPDX-License-Identifier: Apache-2.0 */
/* Shrinking (explore_shrink.h). Replays are bounded in number, not in
 * time, so the sequence found is the same on any machine; the deadline is
 * a safety cap for a machine near a standstill. */
#include "explore_shrink.h"

#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "explore_fresh.h"
#include "runner.h"

/* Replays a shrink may make. */
#define SHRINK_REPLAYS 160

typedef struct shrinker {
  nc_case *c;
  const nc_x_seq *q;
  nc_x_shrunk *out;
  nc_x_step *trial;
  unsigned view; /* toggles of every replay (a view's) */
  double deadline;
  int fresh;      /* replays in a fresh process each (explore_fresh.h) */
  int replays_before; /* spent before this round of shrinking */
  double slowest; /* seconds of the slowest replay in this process */
} shrinker;

static double fresh_deadline(const shrinker *sh)
{
  double at = nc_now() + NC_X_FRESH_SLACK_S + NC_X_FRESH_FACTOR * sh->slowest;
  return at < sh->deadline ? at : sh->deadline;
}

/* One replay in a fresh process; 0, or -1 when it could not tell. */
static int fresh_replay(shrinker *sh, const nc_x_step *steps, size_t n, unsigned toggles,
                        int alone, nc_x_failure *f)
{
  sh->out->replays++;
  return nc_x_fresh_replay(sh->q, steps, n, toggles, alone, fresh_deadline(sh), f);
}

/* One replay, here or (in the fresh round) in a fresh process; 0, or -1
 * when it did not run. */
static int replay(shrinker *sh, const nc_x_step *steps, size_t n, unsigned toggles, int alone,
                  nc_x_failure *f)
{
  if (sh->fresh)
    return fresh_replay(sh, steps, n, toggles, alone, f);
  sh->out->replays++;
  double start = nc_now();
  int rc = nc_x_replay(sh->c, sh->q, steps, n, toggles, alone, f, NULL);
  double took = nc_now() - start;
  sh->slowest = took > sh->slowest ? took : sh->slowest;
  return rc;
}

static int more(shrinker *sh)
{
  if (sh->out->replays - sh->replays_before >= SHRINK_REPLAYS)
    return 0;
  if (nc_now() >= sh->deadline)
    sh->out->timed_out = 1;
  return !sh->out->timed_out;
}

/* Replays trial[0..n); when it still fails, it becomes the current
 * sequence, cut after the step that now fails. */
static int try_trial(shrinker *sh, size_t n)
{
  nc_x_failure f;
  if (n == 0)
    return 0;
  if (replay(sh, sh->trial, n, sh->view, 0, &f) != 0 || f.at >= (long)n || f.counted)
    return 0; /* a count of failed calls is not the failure being shrunk */
  sh->out->len = (size_t)f.at + 1;
  memcpy(sh->out->steps, sh->trial, sh->out->len * sizeof(nc_x_step));
  sh->out->fail = f;
  return 1;
}

/* Whether the last step must stay: it is where a table disagreed. A leak
 * shows after the last step, whichever it is. */
static int keep_last(const shrinker *sh) { return !(sh->view & NC_XT_LEAKS); }

/* Drops every step of one action at a time. */
static void drop_kinds(shrinker *sh)
{
  for (int a = 0; a < NC_X_ACTIONS && more(sh); a++) {
    nc_x_shrunk *o = sh->out;
    size_t n = 0;
    for (size_t i = 0; i < o->len; i++)
      if (o->steps[i].action != a || (i + 1 == o->len && keep_last(sh)))
        sh->trial[n++] = o->steps[i];
    if (n < o->len && n > 0)
      try_trial(sh, n);
  }
}

void nc_x_drop_chunks(size_t *len, size_t tail, int (*go_on)(void *ctx),
                      int (*without)(void *ctx, size_t start, size_t end), void *ctx)
{
  for (size_t chunk = *len / 2; chunk >= 1 && go_on(ctx); chunk /= 2)
    for (size_t start = 0; start + tail < *len && go_on(ctx);) {
      size_t last = *len - tail, end = start + chunk < last ? start + chunk : last;
      if (!without(ctx, start, end))
        start = end;
    }
}

size_t nc_x_copy_without(void *dst, const void *src, size_t n, size_t size, size_t start,
                         size_t end)
{
  memcpy(dst, src, start * size);
  memcpy((char *)dst + start * size, (const char *)src + end * size, (n - end) * size);
  return n - (end - start);
}

static int more_steps(void *sh) { return more(sh); }

static int steps_without(void *ctx, size_t start, size_t end)
{
  shrinker *sh = ctx;
  return try_trial(sh, nc_x_copy_without(sh->trial, sh->out->steps, sh->out->len,
                                         sizeof(nc_x_step), start, end));
}

/* Drops chunks of steps, halving their size. */
static void drop_chunks(shrinker *sh)
{
  nc_x_drop_chunks(&sh->out->len, (size_t)keep_last(sh), more_steps, steps_without, sh);
}

/* Tries step i with one change (applied by edit to the trial's copy). */
static int try_edit(shrinker *sh, size_t i, void (*edit)(nc_x_step *))
{
  nc_x_shrunk *o = sh->out;
  memcpy(sh->trial, o->steps, o->len * sizeof(nc_x_step));
  nc_x_step before = sh->trial[i];
  edit(&sh->trial[i]);
  if (!memcmp(&before, &sh->trial[i], sizeof(before)))
    return 0;
  return try_trial(sh, o->len);
}

static void halve(nc_x_step *s) { s->n /= 2; }
static void plain_thread(nc_x_step *s) { s->thread = 0; }
static void plain_outputs(nc_x_step *s) { s->nulls = 0; }
static void plain_mask(nc_x_step *s) { s->resolved_every = 0; }
static void plain_stride(nc_x_step *s) { s->stride_pad = 0; }
/* A whole row in place of a short write; the table config in place of
 * another (what is left is what the failure needs, and the reproducer
 * can replay a sequence whose tables are all of the table config). */
static void plain_size(nc_x_step *s)
{
  if (s->action == NC_X_INSERT || s->action == NC_X_UPDATE)
    s->size = 0;
}
static void plain_config(nc_x_step *s) { s->config = 0; }

/* Makes each step smaller and plainer, the last first. */
static void simplify_steps(shrinker *sh)
{
  static void (*const edits[])(nc_x_step *) = {plain_thread, plain_outputs, plain_mask,
                                               plain_stride, plain_size,   plain_config};
  for (size_t i = sh->out->len; i-- > 0 && more(sh);) {
    for (int h = 0; h < 8 && i < sh->out->len && sh->out->steps[i].n > 1 && more(sh); h++)
      if (!try_edit(sh, i, halve))
        break;
    for (size_t e = 0; e < sizeof(edits) / sizeof(*edits) && i < sh->out->len && more(sh); e++)
      try_edit(sh, i, edits[e]);
    if (i > sh->out->len)
      i = sh->out->len; /* it fails earlier now: go on from its new end */
  }
}

/* The toggles that switch off a feature the sequence uses. */
static unsigned used_features(const shrinker *sh)
{
  const nc_x_shrunk *o = sh->out;
  unsigned used = 0;
  int slot = o->steps[o->len - 1].slot;
  for (size_t i = 0; i < o->len; i++) {
    const nc_x_step *s = &o->steps[i];
    used |= (s->thread ? NC_XT_MAIN_THREAD : 0) | (s->nulls ? NC_XT_OUTPUTS : 0) |
            (s->resolved_every ? NC_XT_NO_MASK : 0) | (s->stride_pad ? NC_XT_PLAIN_STRIDE : 0) |
            (s->action == NC_X_DROP_FACTORY ? NC_XT_KEEP_FACTORY : 0) |
            (s->action == NC_X_DESTROY ? NC_XT_KEEP_TABLES : 0) |
            (s->slot != slot && s->action != NC_X_DROP_FACTORY ? NC_XT_ALONE : 0) |
            ((s->action == NC_X_INSERT || s->action == NC_X_UPDATE) && s->size
                 ? NC_XT_WHOLE_ROWS
                 : 0) |
            (s->action == NC_X_PRODUCE && s->config ? NC_XT_ONE_CONFIG : 0) |
            (!(sh->view & (NC_XT_PLAIN_CALLS | NC_XT_LEAKS)) && nc_x_oversized(sh->q, s)
                 ? NC_XT_NO_OVERSIZE | NC_XT_NO_PAST_ROW
                 : 0);
  }
  return used;
}

/* Replays the shortest sequence with each feature it uses switched off:
 * those without which it agrees are what the failure depends on. */
static void find_dependencies(shrinker *sh)
{
  nc_x_shrunk *o = sh->out;
  unsigned used = used_features(sh);
  for (unsigned t = 1; t <= NC_XT_NO_PAST_ROW; t <<= 1) {
    if (!(used & t)) /* the views and NC_XD_EARLIER_TABLES are never used features */
      continue;
    nc_x_failure f;
    if (replay(sh, o->steps, o->len, t | sh->view, o->steps[o->len - 1].slot, &f) == 0 &&
        f.at == (long)o->len)
      o->depends |= t;
  }
}

static void shrink_round(shrinker *sh)
{
  sh->replays_before = sh->out->replays;
  drop_kinds(sh);
  drop_chunks(sh);
  simplify_steps(sh);
  find_dependencies(sh);
}

/* Whether the shortest sequence agrees in a process that made no table
 * before it: twice, so that a defect that shows only now and then is not
 * taken for one that needs earlier tables. 1; 0 when it fails there; -1
 * when a replay could not tell (it hung or crashed). */
static int agrees_fresh(shrinker *sh)
{
  nc_x_shrunk *o = sh->out;
  for (int i = 0; i < 2; i++) {
    nc_x_failure f;
    if (fresh_replay(sh, o->steps, o->len, sh->view, 0, &f) != 0)
      return -1;
    if (f.at < (long)o->len)
      return 0;
  }
  return 1;
}

int nc_x_shrink(nc_case *c, const nc_x_seq *q, const nc_x_step *steps, size_t len,
                const nc_x_failure *fail, unsigned view, double deadline, nc_x_shrunk *out)
{
  memset(out, 0, sizeof(*out));
  out->steps = malloc((len ? len : 1) * sizeof(nc_x_step));
  nc_x_step *trial = malloc((len ? len : 1) * sizeof(nc_x_step));
  if (!out->steps || !trial) {
    free(out->steps);
    free(trial);
    out->steps = NULL;
    return -1;
  }
  memcpy(out->steps, steps, len * sizeof(nc_x_step));
  out->len = len;
  out->fail = *fail;
  shrinker sh = {c, q, out, trial, view, deadline, 0, 0, 0};
  shrink_round(&sh);
  /* Replays here start after every table the case made before: a shortest
   * sequence that agrees where none was made needs them. When the whole
   * sequence fails there too, it is shrunk again there, so that its steps
   * fail on their own (and a reproducer of them does); else the failure
   * needs the tables of earlier sequences. A leak and a rule's own check
   * are judged here only. */
  /* Whether the steps fail on their own is unknown where fresh replays
   * were tried and could not tell (one hung or crashed, now or earlier in
   * the case); where none was tried (a real CUDA runtime, --no-fork, a
   * sequence too large to send, the shrinking's time spent), the
   * reproducer is taken at its word, as the blame is. */
  int judged = !(view & NC_XT_LEAKS) && !out->fail.direct && !out->fail.counted;
  int tried = judged && nc_x_fresh_available() && nc_x_fresh_fits(q, out->len) &&
              deadline - nc_now() > NC_X_FRESH_SLACK_S;
  int fresh = tried ? agrees_fresh(&sh) : -1;
  out->standalone = !judged || fresh == 0 || (!tried && !nc_x_fresh_lost());
  if (fresh == 1) {
    nc_x_failure f;
    int ran = fresh_replay(&sh, steps, len, view, 0, &f) == 0;
    if (ran && f.at < (long)len && !f.counted) {
      out->len = (size_t)f.at + 1;
      memcpy(out->steps, steps, out->len * sizeof(nc_x_step));
      out->fail = f;
      out->depends = 0;
      sh.fresh = 1;
      shrink_round(&sh);
      out->standalone = 1;
    } else if (ran) {
      out->depends |= NC_XD_EARLIER_TABLES;
    } else { /* it could not tell: the blame stays this process's */
      out->standalone = 0;
    }
  }
  out->slowest = sh.slowest;
  free(trial);
  return 0;
}

void nc_x_shrunk_free(nc_x_shrunk *sh)
{
  free(sh->steps);
  sh->steps = NULL;
}
