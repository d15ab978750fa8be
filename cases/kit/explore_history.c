/* SPDX-License-Identifier: Apache-2.0 */
/* The history of a case's replays (explore_history.h). Each replay keeps
 * a copy of its steps; the keys of a sequence are copied once, for all its
 * replays. */
#include "explore_history.h"

#include <stdlib.h>
#include <string.h>

#include "explore_fresh.h"

/* The most bytes of steps and keys the history keeps: past it, the case's
 * later failures get no reproducer of their earlier tables. */
#define HISTORY_MAX_BYTES ((size_t)64 << 20)

typedef struct arena_copy {
  uint64_t seed;
  size_t len;
  int64_t *keys;
} arena_copy;

static struct {
  nc_x_segment *segs;
  size_t n, cap;
  arena_copy *arenas;
  size_t narenas, arenas_cap;
  size_t bytes;
  int over; /* a replay went unrecorded */
} history;

/* The copy of q's keys, made when q is new to the history. */
static const int64_t *arena_of(const nc_x_seq *q)
{
  if (history.narenas) {
    const arena_copy *last = &history.arenas[history.narenas - 1];
    if (last->seed == q->seed && last->len == q->arena_len)
      return last->keys;
  }
  if (history.narenas == history.arenas_cap) {
    size_t cap = history.arenas_cap ? 2 * history.arenas_cap : 16;
    arena_copy *a = realloc(history.arenas, cap * sizeof(*a));
    if (!a)
      return NULL;
    history.arenas = a;
    history.arenas_cap = cap;
  }
  int64_t *keys = malloc((q->arena_len ? q->arena_len : 1) * sizeof(int64_t));
  if (!keys)
    return NULL;
  if (q->arena_len)
    memcpy(keys, q->arena, q->arena_len * sizeof(int64_t));
  history.arenas[history.narenas++] = (arena_copy){q->seed, q->arena_len, keys};
  history.bytes += q->arena_len * sizeof(int64_t);
  return keys;
}

void nc_x_history_broken(void) { history.over = 1; }

void nc_x_history_record(nc_case *c, const nc_x_seq *q, const nc_x_step *steps, size_t count,
                         unsigned toggles, int alone_slot, double took, int failed)
{
  if (!c->cfg->repro || !nc_x_fresh_available() || history.over)
    return;
  size_t more = count * sizeof(nc_x_step) + q->arena_len * sizeof(int64_t);
  if (history.bytes + more > HISTORY_MAX_BYTES) {
    history.over = 1;
    return;
  }
  if (history.n == history.cap) {
    size_t cap = history.cap ? 2 * history.cap : 64;
    nc_x_segment *s = realloc(history.segs, cap * sizeof(*s));
    if (!s) {
      history.over = 1;
      return;
    }
    history.segs = s;
    history.cap = cap;
  }
  const int64_t *arena = arena_of(q);
  nc_x_step *copy = malloc((count ? count : 1) * sizeof(nc_x_step));
  if (!arena || !copy) {
    free(copy);
    history.over = 1;
    return;
  }
  if (count)
    memcpy(copy, steps, count * sizeof(nc_x_step));
  nc_x_segment *s = &history.segs[history.n++];
  s->q = *q;
  s->q.steps = NULL;
  s->q.count = s->q.cap = 0;
  s->q.arena = (int64_t *)arena;
  s->steps = copy;
  s->count = count;
  s->toggles = toggles;
  s->alone_slot = alone_slot;
  s->took = took;
  s->failed = failed;
  history.bytes += count * sizeof(nc_x_step);
}

long nc_x_history_before(const nc_x_seq *q, const nc_x_segment **segs)
{
  *segs = history.segs;
  if (history.over || !history.n)
    return -1; /* none recorded: not even q's own replay */
  size_t i = history.n;
  while (i > 0 && history.segs[i - 1].q.seed == q->seed &&
         history.segs[i - 1].q.arena_len == q->arena_len)
    i--;
  return (long)i;
}
