/* SPDX-License-Identifier: Apache-2.0 */
/* Cutting a failure's earlier replays down (explore_earlier.h). Like the
 * shrinking of the steps, bounded in replays, not in time, with the
 * deadline as a safety cap. */
#include "explore_earlier.h"

#include <stdlib.h>
#include <string.h>

#include "explore_fresh.h"
#include "explore_shrink.h"
#include "runner.h"

/* Fresh replays the search may make. */
#define EARLIER_REPLAYS 120

typedef struct search {
  const nc_x_seq *q;
  const nc_x_step *steps;
  size_t len;
  unsigned view;
  double deadline, slowest;
  int *replays, made;
  nc_x_segment *trial; /* the candidate replays */
} search;

/* Whether another replay may be made: within the bound, the replayer
 * still there, and time left before the safety cap (a stop by it is
 * noted). */
static int more(search *s, nc_x_earlier *e)
{
  if (s->made >= EARLIER_REPLAYS || !nc_x_fresh_available())
    return 0;
  if (nc_now() + NC_X_FRESH_SLACK_S >= s->deadline)
    e->timed_out = 1;
  return !e->timed_out;
}

/* Whether q's steps fail in a fresh process after segs[0..n): 1, 0, or
 * -1 when the replay could not tell. */
static int fails_after(search *s, const nc_x_segment *segs, size_t n)
{
  double allowance = s->slowest;
  for (size_t i = 0; i < n; i++)
    allowance += segs[i].took;
  double at = nc_now() + NC_X_FRESH_SLACK_S + NC_X_FRESH_FACTOR * allowance;
  nc_x_failure f;
  s->made++;
  (*s->replays)++;
  int rc = nc_x_fresh_replay_after(segs, n, s->q, s->steps, s->len, s->view, 0,
                                   at < s->deadline ? at : s->deadline, &f);
  if (rc < 0)
    return -1;
  /* An earlier replay that disagrees would end the reproducer there. */
  return rc == 0 && f.at < (long)s->len && !f.counted;
}

/* What dropping chunks works on: e's replays, or the steps of replay k. */
typedef struct chunks {
  search *s;
  nc_x_earlier *e;
  size_t k;
  nc_x_step *scratch;
} chunks;

static int more_chunks(void *ctx)
{
  chunks *ch = ctx;
  return more(ch->s, ch->e);
}

static int replays_without(void *ctx, size_t start, size_t end)
{
  chunks *ch = ctx;
  nc_x_earlier *e = ch->e;
  size_t n = nc_x_copy_without(ch->s->trial, e->segs, e->n, sizeof(*e->segs), start, end);
  /* At least one stays: without any, the steps agreed. */
  if (n == 0 || fails_after(ch->s, ch->s->trial, n) != 1)
    return 0;
  memcpy(e->segs, ch->s->trial, n * sizeof(*e->segs));
  e->n = n;
  return 1;
}

static int steps_without(void *ctx, size_t start, size_t end)
{
  chunks *ch = ctx;
  nc_x_segment *seg = &ch->e->segs[ch->k];
  size_t n = nc_x_copy_without(ch->scratch, seg->steps, seg->count, sizeof(nc_x_step), start,
                               end);
  memcpy(ch->s->trial, ch->e->segs, ch->e->n * sizeof(*ch->s->trial));
  ch->s->trial[ch->k].steps = ch->scratch;
  ch->s->trial[ch->k].count = n;
  if (fails_after(ch->s, ch->s->trial, ch->e->n) != 1)
    return 0;
  memcpy((nc_x_step *)seg->steps, ch->scratch, n * sizeof(nc_x_step));
  seg->count = n;
  return 1;
}

/* Drops chunks of e's replays, halving their size, where the steps still
 * fail without them. */
static void drop_replays(search *s, nc_x_earlier *e)
{
  chunks ch = {s, e, 0, NULL};
  nc_x_drop_chunks(&e->n, 0, more_chunks, replays_without, &ch);
}

/* Drops chunks of the steps of each of e's replays (owned copies by
 * then), halving their size. A replay of no steps stays: it made a
 * factory and a table. */
static void drop_steps(search *s, nc_x_earlier *e, nc_x_step *scratch)
{
  for (size_t k = 0; k < e->n && more(s, e); k++) {
    chunks ch = {s, e, k, scratch};
    nc_x_drop_chunks(&e->segs[k].count, 0, more_chunks, steps_without, &ch);
  }
}

/* Gives each of e's replays a copy of its steps of its own. 0, or -1. */
static int own_steps(nc_x_earlier *e, size_t *most)
{
  *most = 1;
  for (size_t k = 0; k < e->n; k++) {
    nc_x_segment *seg = &e->segs[k];
    nc_x_step *copy = malloc((seg->count ? seg->count : 1) * sizeof(*copy));
    if (!copy) {
      e->n = k;
      return -1;
    }
    memcpy(copy, seg->steps, seg->count * sizeof(*copy));
    seg->steps = copy;
    *most = seg->count > *most ? seg->count : *most;
  }
  return 0;
}

int nc_x_earlier_find(const nc_x_seq *q, const nc_x_step *steps, size_t len, unsigned view,
                      double deadline, double slowest, int *replays, nc_x_earlier *out)
{
  memset(out, 0, sizeof(*out));
  const nc_x_segment *history;
  long nbefore = nc_x_history_before(q, &history);
  if (nbefore <= 0)
    return 0;
  search s = {q, steps, len, view, deadline, slowest, replays, 0, NULL};
  out->segs = malloc((size_t)nbefore * sizeof(*out->segs));
  s.trial = malloc((size_t)nbefore * sizeof(*s.trial));
  if (!out->segs || !s.trial) {
    free(s.trial);
    free(out->segs);
    out->segs = NULL;
    return -1;
  }
  /* Replays that disagreed here (a view's sequences cut short by another
   * rule's failure, their shrinking's) would end the reproducer before
   * the steps, and those a reproducer cannot make (nc_x_bake) are seldom
   * what a failure needs: the search starts without them. */
  for (long i = 0; i < nbefore; i++)
    if (!history[i].failed && nc_x_bakeable(history[i].toggles))
      out->segs[out->n++] = history[i];
  /* None left: the steps alone agreed in a fresh process already. */
  int found = !out->n ? 0 : more(&s, out) ? fails_after(&s, out->segs, out->n) : -1;
  size_t most;
  if (found == 1) {
    /* Every set kept from here on failed when it was tried. */
    drop_replays(&s, out);
    nc_x_step *scratch = NULL;
    if (own_steps(out, &most) != 0 || !(scratch = malloc(most * sizeof(*scratch))))
      found = -1;
    else
      drop_steps(&s, out, scratch);
    free(scratch);
  } else {
    out->n = 0; /* the steps are the history's: none to free */
  }
  free(s.trial);
  if (found != 1)
    nc_x_earlier_free(out);
  return found;
}

void nc_x_earlier_free(nc_x_earlier *e)
{
  for (size_t k = 0; k < e->n; k++)
    free((void *)e->segs[k].steps);
  free(e->segs);
  e->segs = NULL;
  e->n = 0;
}
