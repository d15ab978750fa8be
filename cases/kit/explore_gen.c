/* SPDX-License-Identifier: Apache-2.0 */
/* The explorer's generator (explore_seq.h): steps drawn relative to the
 * state the sequence has built so far, as generated (which keys each
 * table holds, which were erased, which tables and factory are alive). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore_cover.h"
#include "explore_seq.h"
#include "dtype.h"
#include "splitmix.h"

const char *const nc_x_action_names[NC_X_ACTIONS] = {
    "find",  "insert", "update",  "update_accumulate", "erase",
    "clear", "counter", "produce", "destroy",           "drop factory"};
const char *const nc_x_class_names[NC_XK_CLASSES] = {"stored", "erased", "fresh",
                                                     "relative", "edge", "elsewhere"};

#define ERASED_RING 4096
#define DEAD_RING 4096
/* The weight of an action a directed view favours, against 1, 2 or 4. */
#define FAVOURED 8
/* Steps of one sequence at most, whatever its work goal. */
#define MAX_STEPS 20000


/* ---- the keys a table holds, as generated: a set with random picks ---- */

typedef struct keyset {
  int64_t *keys; /* dense: keys[0 .. len) */
  size_t len, cap;
  uint32_t *slots; /* position + 1, 0 empty; linear probing */
  size_t mask;
} keyset;

static size_t ks_slot(const keyset *s, int64_t k)
{
  size_t i = nc_mix64((uint64_t)k) & s->mask;
  while (s->slots[i] && s->keys[s->slots[i] - 1] != k)
    i = (i + 1) & s->mask;
  return i;
}

static int ks_grow(keyset *s)
{
  size_t nslots = s->mask ? (s->mask + 1) * 2 : 1024;
  uint32_t *slots = calloc(nslots, sizeof(uint32_t));
  int64_t *keys = realloc(s->keys, nslots / 2 * sizeof(int64_t));
  if (!slots || !keys) {
    free(slots);
    if (keys)
      s->keys = keys;
    return -1;
  }
  free(s->slots);
  s->slots = slots;
  s->keys = keys;
  s->cap = nslots / 2;
  s->mask = nslots - 1;
  for (size_t p = 0; p < s->len; p++)
    s->slots[ks_slot(s, s->keys[p])] = (uint32_t)(p + 1);
  return 0;
}

static int ks_add(keyset *s, int64_t k)
{
  if (s->len == s->cap && ks_grow(s) != 0)
    return -1;
  size_t i = ks_slot(s, k);
  if (!s->slots[i]) {
    s->keys[s->len++] = k;
    s->slots[i] = (uint32_t)s->len;
  }
  return 0;
}

/* Removes k: backward-shift deletion keeps every probe chain whole, and
 * the last key moves into k's place in the dense array. */
static void ks_del(keyset *s, int64_t k)
{
  if (!s->len)
    return;
  size_t hole = ks_slot(s, k);
  if (!s->slots[hole])
    return;
  size_t pos = s->slots[hole] - 1, j = hole;
  for (;;) {
    j = (j + 1) & s->mask;
    if (!s->slots[j])
      break;
    size_t home = nc_mix64((uint64_t)s->keys[s->slots[j] - 1]) & s->mask;
    if (((j - home) & s->mask) >= ((j - hole) & s->mask)) {
      s->slots[hole] = s->slots[j];
      hole = j;
    }
  }
  s->slots[hole] = 0;
  size_t last = s->len - 1;
  if (pos != last) {
    int64_t moved = s->keys[last];
    s->slots[ks_slot(s, moved)] = (uint32_t)(pos + 1);
    s->keys[pos] = moved;
  }
  s->len--;
}

static void ks_clear(keyset *s)
{
  if (s->slots)
    memset(s->slots, 0, (s->mask + 1) * sizeof(uint32_t));
  s->len = 0;
}

static void ks_free(keyset *s)
{
  free(s->keys);
  free(s->slots);
}

/* ---- the generator's state ---------------------------------------------- */

typedef struct gen {
  const nc_x_table_shape *sh;
  nc_x_seq *q;
  uint64_t s;
  keyset stored[NC_X_SLOTS];
  int alive[NC_X_SLOTS], factory_alive, oom;
  int64_t erased[ERASED_RING], dead[DEAD_RING];
  size_t nerased, ndead;
  uint64_t fresh, salt;
  int dense; /* fresh keys are small and dense (else spread over the width) */
  int emphasis[NC_X_ACTIONS]; /* a swarm's weight on each action: 1, 2 or 4 */
  /* Whether a table's lookup counter is open: not reset since produce.
   * The runner knows the counter only from a reset on (explore_run.c), so
   * a table's first counter step is a reset rather than a read it could
   * not judge. */
  int counter_open[NC_X_SLOTS];
  nc_x_cover *cover;          /* the run's, across sequences (may be NULL) */
  int64_t edges[10];
} gen;

static int on(const gen *g, uint32_t feature) { return (g->q->features & feature) != 0; }

static int64_t narrow(const gen *g, uint64_t v)
{
  return g->sh->key_size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

static int64_t fresh_key(gen *g)
{
  uint64_t i = g->fresh++;
  return narrow(g, g->dense ? i * 7 + 1000003 + (g->salt & 0xffff) : nc_mix64(i ^ g->salt));
}

/* A bit relative of key k: +-1, the sign or the top bit flipped, one half
 * kept under another other half, or the invalid key's neighbour. */
static int64_t relative_of(gen *g, int64_t k)
{
  int ks = g->sh->key_size, half = ks * 4;
  uint64_t low = (1ull << half) - 1, other = nc_splitmix(&g->s) | 1, v = (uint64_t)k;
  switch (nc_splitmix(&g->s) % 7) {
  case 0: v += 1; break;
  case 1: v -= 1; break;
  case 2: v = 0 - v; break;
  case 3: v ^= 1ull << (ks * 8 - 1); break;
  case 4: v ^= (other << half) & (ks == 8 ? ~low : 0xffffffffull); break;
  case 5: v ^= other & low; break;
  default: v = (uint64_t)g->sh->invalid_key + (nc_splitmix(&g->s) % 2 ? 1 : (uint64_t)-1); break;
  }
  return narrow(g, v);
}

static int has_elsewhere(const gen *g, int slot)
{
  for (int i = 0; i < NC_X_SLOTS; i++)
    if (i != slot && g->stored[i].len)
      return 1;
  return g->ndead > 0;
}

static int64_t elsewhere_key(gen *g, int slot)
{
  int i = (int)(nc_splitmix(&g->s) % (NC_X_SLOTS + 1));
  if (i < NC_X_SLOTS && i != slot && g->stored[i].len)
    return g->stored[i].keys[nc_splitmix(&g->s) % g->stored[i].len];
  if (g->ndead)
    return g->dead[nc_splitmix(&g->s) % (g->ndead < DEAD_RING ? g->ndead : DEAD_RING)];
  for (i = 0; i < NC_X_SLOTS; i++)
    if (i != slot && g->stored[i].len)
      return g->stored[i].keys[nc_splitmix(&g->s) % g->stored[i].len];
  return fresh_key(g);
}

/* Whether keys of class k can be drawn for slot now. */
static int available(const gen *g, int k, int slot)
{
  if (!on(g, NC_XF_CLASS(k)))
    return 0;
  switch (k) {
  case NC_XK_STORED:
  case NC_XK_RELATIVE: return g->stored[slot].len > 0;
  case NC_XK_ERASED: return g->nerased > 0;
  case NC_XK_ELSEWHERE: return has_elsewhere(g, slot);
  default: return 1;
  }
}

static const int class_weight[NC_XK_CLASSES] = {40, 12, 25, 10, 3, 10};

static int pick_class(gen *g, int slot)
{
  int total = 0, w[NC_XK_CLASSES];
  for (int k = 0; k < NC_XK_CLASSES; k++)
    total += w[k] = available(g, k, slot) ? class_weight[k] : 0;
  if (!total)
    return NC_XK_FRESH;
  int r = (int)(nc_splitmix(&g->s) % (uint64_t)total);
  for (int k = 0; k < NC_XK_CLASSES; k++)
    if ((r -= w[k]) < 0)
      return k;
  return NC_XK_FRESH;
}

static int64_t key_of(gen *g, int k, int slot)
{
  const keyset *st = &g->stored[slot];
  switch (k) {
  case NC_XK_STORED: return st->keys[nc_splitmix(&g->s) % st->len];
  case NC_XK_RELATIVE: return relative_of(g, st->keys[nc_splitmix(&g->s) % st->len]);
  case NC_XK_ERASED:
    return g->erased[nc_splitmix(&g->s) % (g->nerased < ERASED_RING ? g->nerased : ERASED_RING)];
  case NC_XK_EDGE: return g->edges[nc_splitmix(&g->s) % 10];
  case NC_XK_ELSEWHERE: return elsewhere_key(g, slot);
  default: return fresh_key(g);
  }
}

static void note_erased(gen *g, int64_t k) { g->erased[g->nerased++ % ERASED_RING] = k; }
static void note_dead(gen *g, int64_t k) { g->dead[g->ndead++ % DEAD_RING] = k; }

/* ---- sizes ---------------------------------------------------------------- */

/* Batch sizes where tables typically change paths: empty, one, a few,
 * around a 64-bit mask word, both sides of common parallel thresholds
 * (128, 1024), and one above 4096 that is no multiple of 64. */
static const int64_t edge_batches[] = {0,   1,    5,    63,   64,   65,   127,
                                       128, 129,  1023, 1024, 1025, 4096, 4133};
#define EDGE_BATCHES (sizeof(edge_batches) / sizeof(*edge_batches))

static int bit_length(int64_t v)
{
  int b = 0;
  for (; v > 0; v >>= 1)
    b++;
  return b;
}

/* Log-uniform in [lo, hi]: every power of two between them as likely. */
static int64_t log_uniform(gen *g, int64_t lo, int64_t hi)
{
  if (hi <= lo)
    return lo;
  int blo = bit_length(lo), bhi = bit_length(hi);
  int b = blo + (int)(nc_splitmix(&g->s) % (uint64_t)(bhi - blo + 1));
  int64_t from = (int64_t)1 << (b - 1), n = from + (int64_t)(nc_splitmix(&g->s) % (uint64_t)from);
  return n < lo ? lo : n > hi ? hi : n;
}

/* A batch of at most hi keys: the edge sizes above, a mask
 * word's edges (64 x 2^u keys and one either side), near the ceiling (the
 * paths a table takes only for its largest batches), else log-uniform. */
static int64_t batch_size(gen *g, int64_t hi)
{
  uint64_t r = nc_splitmix(&g->s) % 100;
  int64_t n;
  if (r < 3) {
    n = 0;
  } else if (r < 20) {
    n = edge_batches[nc_splitmix(&g->s) % EDGE_BATCHES];
  } else if (r < 35) {
    int words = bit_length(hi / 64 > 1 ? hi / 64 : 1);
    /* One draw per statement: the order of two in one expression is the
     * compiler's, and a seed must give one sequence with any compiler
     * (these keep the order GCC chose). */
    int64_t word = (int64_t)1 << (nc_splitmix(&g->s) % (uint64_t)words);
    n = 64 * word + (int64_t)(nc_splitmix(&g->s) % 3) - 1;
  } else if (r < 50) {
    n = log_uniform(g, hi / 4 > 1 ? hi / 4 : 1, hi); /* near the ceiling */
  } else {
    n = log_uniform(g, 1, hi);
  }
  return n < 0 ? 0 : n > hi ? hi : n;
}

/* ---- steps ---------------------------------------------------------------- */

static nc_x_step *push_step(gen *g, int action, int slot, int64_t n)
{
  nc_x_seq *q = g->q;
  if (q->count == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 256;
    nc_x_step *steps = realloc(q->steps, cap * sizeof(nc_x_step));
    if (!steps)
      return NULL;
    q->steps = steps;
    q->cap = cap;
  }
  if (q->arena_len + (size_t)n > q->arena_cap) {
    size_t cap = (q->arena_cap + (size_t)n) * 2;
    int64_t *a = realloc(q->arena, cap * sizeof(int64_t));
    if (!a)
      return NULL;
    q->arena = a;
    q->arena_cap = cap;
  }
  nc_x_step *st = &q->steps[q->count++];
  memset(st, 0, sizeof(*st));
  st->action = (uint8_t)action;
  st->slot = (uint8_t)slot;
  st->n = n;
  st->tag = q->count;
  st->first = (int64_t)q->arena_len;
  q->arena_len += (size_t)n;
  if (n > q->largest)
    q->largest = n;
  return st;
}

/* Distinct keys for an accumulate (the order of float sums within a batch
 * is open): a run of stored keys, then fresh ones. */
static void accumulate_keys(gen *g, nc_x_step *st, int64_t *keys)
{
  const keyset *ks = &g->stored[st->slot];
  int64_t from = ks->len ? (int64_t)(nc_splitmix(&g->s) % ks->len) : 0, j = 0;
  int64_t stored = (int64_t)ks->len < st->n ? (int64_t)ks->len : st->n;
  if (!on(g, NC_XF_CLASS(NC_XK_FRESH))) {
    st->n = stored;
    g->q->arena_len = (size_t)(st->first + st->n); /* every key in the arena is written */
  }
  for (; j < stored; j++)
    keys[j] = ks->keys[(size_t)(from + j) % ks->len];
  for (; j < st->n; j++)
    keys[j] = fresh_key(g);
  g->q->keys_by[st->action][NC_XK_STORED] += stored;
  g->q->keys_by[st->action][NC_XK_FRESH] += st->n - stored;
  st->classes = (uint8_t)((stored ? 1u << NC_XK_STORED : 0) |
                          (st->n > stored ? 1u << NC_XK_FRESH : 0));
}

/* The keys of a step: half the batches from one class, the others mixed;
 * some with a key twice. A growing table's inserts take fresh keys. */
static void draw_keys(gen *g, nc_x_step *st, int64_t *keys, int growing, int aimed)
{
  if (st->action == NC_X_ACCUMULATE) {
    accumulate_keys(g, st, keys);
    return;
  }
  int one = growing && on(g, NC_XF_CLASS(NC_XK_FRESH)) ? NC_XK_FRESH
          : aimed && available(g, NC_XK_STORED, st->slot) ? NC_XK_STORED
          : nc_splitmix(&g->s) % 2 ? pick_class(g, st->slot) : -1;
  for (int64_t j = 0; j < st->n; j++) {
    int k = one >= 0 ? one : pick_class(g, st->slot);
    keys[j] = key_of(g, k, st->slot);
    st->classes |= (uint8_t)(1u << k);
    g->q->keys_by[st->action][k]++;
  }
  if (on(g, NC_XF_DUPLICATES) && st->n >= 2 && nc_splitmix(&g->s) % 4 == 0)
    for (int64_t d = 0; d < st->n / 8 + 1; d++) {
      uint64_t from = nc_splitmix(&g->s) % (uint64_t)st->n; /* one draw per statement */
      keys[nc_splitmix(&g->s) % (uint64_t)st->n] = keys[from];
    }
}

/* What the step does to the generated state. */
static void apply(gen *g, const nc_x_step *st, const int64_t *keys)
{
  keyset *ks = &g->stored[st->slot];
  switch (st->action) {
  case NC_X_INSERT:
    for (int64_t j = 0; j < st->n && !g->oom; j++)
      g->oom = ks_add(ks, keys[j]) != 0;
    break;
  case NC_X_ERASE:
    for (int64_t j = 0; j < st->n; j++) {
      ks_del(ks, keys[j]);
      note_erased(g, keys[j]);
    }
    break;
  case NC_X_DESTROY:
    for (size_t j = 0; j < ks->len && j < DEAD_RING; j++)
      note_dead(g, ks->keys[nc_splitmix(&g->s) % ks->len]);
    g->alive[st->slot] = 0;
    ks_clear(ks);
    break;
  case NC_X_CLEAR:
    for (size_t j = 0; j < ks->len && j < ERASED_RING; j++)
      note_erased(g, ks->keys[nc_splitmix(&g->s) % ks->len]);
    ks_clear(ks);
    break;
  default:
    break;
  }
  if ((int64_t)ks->len > g->q->deepest)
    g->q->deepest = (int64_t)ks->len;
  if ((int64_t)ks->len > g->q->slot_deepest[st->slot])
    g->q->slot_deepest[st->slot] = (int64_t)ks->len;
}

/* ---- actions ---------------------------------------------------------------- */

static const int action_weight[NC_X_ACTIONS] = {22, 24, 12, 8, 12, 1, 6, 3, 2, 3};

static int free_slot(const gen *g)
{
  for (int i = 0; i < NC_X_SLOTS; i++)
    if (!g->alive[i])
      return i;
  return -1;
}

/* The slot a table op works on: mostly the deepest table alive. */
static int pick_slot(gen *g)
{
  int alive[NC_X_SLOTS], n = 0, deepest = -1;
  for (int i = 0; i < NC_X_SLOTS; i++)
    if (g->alive[i]) {
      alive[n++] = i;
      if (deepest < 0 || g->stored[i].len > g->stored[deepest].len)
        deepest = i;
    }
  if (!n)
    return -1;
  return nc_splitmix(&g->s) % 10 < 7 ? deepest : alive[nc_splitmix(&g->s) % (uint64_t)n];
}

static int usable(const gen *g, int a, int any_alive)
{
  if (a != NC_X_FIND && !on(g, NC_XF_ACTION(a)))
    return 0;
  switch (a) {
  case NC_X_ACCUMULATE: return any_alive && g->sh->accumulate && g->sh->update_size > 0;
  case NC_X_PRODUCE: return free_slot(g) >= 0;
  case NC_X_DROP_FACTORY: return any_alive && g->factory_alive;
  default: return any_alive;
  }
}

static int pick_action(gen *g, int growing)
{
  int any = 0, total = 0, w[NC_X_ACTIONS];
  for (int i = 0; i < NC_X_SLOTS; i++)
    any |= g->alive[i];
  for (int a = 0; a < NC_X_ACTIONS; a++) {
    w[a] = usable(g, a, any) ? action_weight[a] * g->emphasis[a] : 0;
    if (a == NC_X_INSERT && growing)
      w[a] *= 4;
    total += w[a];
  }
  if (!total)
    return -1;
  int r = (int)(nc_splitmix(&g->s) % (uint64_t)total);
  for (int a = 0; a < NC_X_ACTIONS; a++)
    if ((r -= w[a]) < 0)
      return a;
  return -1;
}

static int64_t stride_pad(gen *g)
{
  if (!on(g, NC_XF_STRIDE) || nc_splitmix(&g->s) % 4)
    return 0;
  static const int64_t pads[] = {4, 8, 12, 64};
  int i = (int)(nc_splitmix(&g->s) % 5);
  return i < 4 ? pads[i] : g->sh->row; /* or twice the row */
}

/* One accumulate in four of a sequence with NC_XF_DTYPES takes updates of
 * another dtype whose elements fit the row: the table sums them or
 * refuses them (doc/contract.md#update-accumulate). Drawn from the step
 * alone, not from the sequence's stream, so that switching the feature
 * changes no other step. */
static void other_dtype(const gen *g, nc_x_step *st)
{
  const nc_x_table_shape *sh = g->sh;
  uint64_t h = nc_mix64(g->q->seed ^ (st->tag * 0xd1b54a32d192ed03ull));
  if (!on(g, NC_XF_DTYPES) || h % 4)
    return;
  int choices[NVE_DTYPE_QUINT8_ROWWISE_F16 + 1], n = 0;
  for (int d = NVE_DTYPE_FLOAT32; d <= NVE_DTYPE_QUINT8_ROWWISE_F16; d++)
    if (d != (int)sh->dtype && sh->dtype_update_size[d] > 0)
      choices[n++] = d;
  if (!n)
    return;
  int d = choices[(h >> 8) % (uint64_t)n];
  st->dtype = d;
  st->size = sh->dtype_update_half[d] > 0 && (h >> 40) % 2 ? sh->dtype_update_half[d]
                                                            : sh->dtype_update_size[d];
}

/* One insert or update in four of a sequence with NC_XF_SHORT writes
 * fewer bytes than the row: one element, about half the row, or all but
 * one element, so that it lands short of what the key holds (a whole
 * row) or, after another short write, shorter, longer or level with it.
 * Drawn from the step alone, as other_dtype is. */
static void short_write(const gen *g, nc_x_step *st)
{
  const nc_x_table_shape *sh = g->sh;
  int64_t w = nc_dtype_width(sh->dtype) > 0 ? nc_dtype_width(sh->dtype) : 1;
  uint64_t h = nc_mix64(g->q->seed ^ (st->tag * 0x8cb92ba72f3d8dd7ull));
  if (!on(g, NC_XF_SHORT) || h % 4 || sh->row < 2 * w)
    return;
  int64_t sizes[3] = {w, sh->row / 2 / w * w, sh->row - w};
  st->size = sizes[(h >> 8) % 3];
}

/* The shape of a table op's call, drawn before its keys. */
static void shape_call(gen *g, nc_x_step *st)
{
  if (on(g, NC_XF_THREADS) && nc_splitmix(&g->s) % 5 == 0)
    st->thread = (uint8_t)(1 + nc_splitmix(&g->s) % 2); /* one of the sequence's two threads */
  if (st->action == NC_X_FIND) {
    if (on(g, NC_XF_MASK) && nc_splitmix(&g->s) % 3 == 0)
      st->resolved_every = 2 + (int32_t)(nc_splitmix(&g->s) % 5);
    if (on(g, NC_XF_NULLS) && nc_splitmix(&g->s) % 3 == 0)
      st->nulls = (uint8_t)(1 + nc_splitmix(&g->s) % 7);
  }
  if (st->action == NC_X_ACCUMULATE) {
    st->dtype = (int32_t)g->sh->dtype;
    st->size = g->sh->update_half > 0 && nc_splitmix(&g->s) % 2 ? g->sh->update_half
                                                       : g->sh->update_size;
    other_dtype(g, st);
  } else if (st->action != NC_X_ERASE) {
    st->stride_pad = stride_pad(g);
    if (st->action == NC_X_INSERT || st->action == NC_X_UPDATE)
      short_write(g, st);
  }
  if (st->action == NC_X_COUNTER)
    st->read = nc_splitmix(&g->s) % 8 != 0; /* resets few: long counted runs */
  if (st->thread)
    g->q->threaded++;
}

static int64_t live_keys(const gen *g)
{
  int64_t most = 0;
  for (int i = 0; i < NC_X_SLOTS; i++)
    if (g->alive[i] && (int64_t)g->stored[i].len > most)
      most = (int64_t)g->stored[i].len;
  return most;
}

static int lifecycle_step(gen *g, int a)
{
  int alive = 0;
  for (int i = 0; i < NC_X_SLOTS; i++)
    alive += g->alive[i];
  int slot = a == NC_X_PRODUCE ? free_slot(g) : a == NC_X_DESTROY ? pick_slot(g) : 0;
  nc_x_step *st = push_step(g, a, slot, 0);
  if (!st)
    return -1;
  if (a == NC_X_PRODUCE) {
    /* Drawn from the step alone, as short_write is. */
    uint64_t h = nc_mix64(g->q->seed ^ (st->tag * 0xa0761d6478bd642full));
    if (on(g, NC_XF_CONFIGS) && g->sh->more_configs > 0 && h % 2) {
      st->config = (uint8_t)(1 + (h >> 8) % (uint64_t)g->sh->more_configs);
      g->q->other_configs++;
    }
    if (!g->factory_alive)
      g->q->produce_after_drop++;
    g->factory_alive = 1;
    g->alive[slot] = 1;
    g->counter_open[slot] = 1;
  } else if (a == NC_X_DESTROY) {
    g->q->destroys_with_others += alive > 1;
    apply(g, st, NULL);
  } else {
    g->q->drops_with_tables++;
    g->factory_alive = 0;
  }
  return 0;
}

/* One step of action a; 0, or -1 when out of memory. */
/* The call shapes this sequence enables (bits of nc_x_shape). */
static unsigned enabled_shapes(const gen *g)
{
  return 1u << NC_XS_PLAIN | (on(g, NC_XF_STRIDE) ? 1u << NC_XS_STRIDE : 0) |
         (on(g, NC_XF_MASK) ? 1u << NC_XS_MASK : 0) | (on(g, NC_XF_NULLS) ? 1u << NC_XS_NULLS : 0) |
         (on(g, NC_XF_THREADS) ? 1u << NC_XS_THREAD : 0);
}

/* Gives the step exactly the one shape. */
static void force_shape(gen *g, nc_x_step *st, int shape)
{
  if (shape == NC_XS_THREAD && !st->thread)
    g->q->threaded++;
  st->thread = shape == NC_XS_THREAD ? (uint8_t)(1 + nc_splitmix(&g->s) % 2) : 0;
  st->stride_pad = shape == NC_XS_STRIDE ? 4 * (int64_t)(1 + nc_splitmix(&g->s) % 4) : 0;
  st->resolved_every = shape == NC_XS_MASK ? 2 + (int32_t)(nc_splitmix(&g->s) % 5) : 0;
  st->nulls = shape == NC_XS_NULLS ? (uint8_t)(1 + nc_splitmix(&g->s) % 7) : 0;
}

/* A third of the key-taking steps aim at the smallest empty coverage cell
 * of their action: a batch size of that bucket, that shape, stored keys. */
static int aim(gen *g, int a, int64_t hi, int64_t *n, int *shape)
{
  int bucket;
  if (!g->cover || hi < 2 || nc_splitmix(&g->s) % 3 ||
      !nc_x_cover_gap(g->cover, a, nc_x_bucket(hi), enabled_shapes(g), &bucket, shape))
    return 0;
  int64_t lo = (int64_t)1 << (bucket - 1), top = ((int64_t)1 << bucket) - 1;
  top = top < hi ? top : hi;
  *n = lo + (int64_t)(nc_splitmix(&g->s) % (uint64_t)(top - lo + 1));
  return 1;
}

/* A counter step on a table whose counter is open is a reset. */
static void track_counter(gen *g, nc_x_step *st)
{
  if (st->action != NC_X_COUNTER)
    return;
  if (g->counter_open[st->slot])
    st->read = 0;
  g->counter_open[st->slot] = 0;
}

static int table_step(gen *g, int a, int growing)
{
  int slot = pick_slot(g), shape = 0;
  int64_t hi = g->q->batch_max < g->sh->cap ? g->q->batch_max : g->sh->cap, n = 0;
  int aimed = aim(g, a, hi, &n, &shape);
  if (aimed) {
    /* n and shape are set */
  } else if (a == NC_X_INSERT && growing && nc_splitmix(&g->s) % 2) {
    int64_t grow = g->q->growth_max < g->sh->cap ? g->q->growth_max : g->sh->cap;
    n = g->q->depth_goal - (int64_t)g->stored[slot].len;
    n = n < grow ? n : grow;
  } else if (a != NC_X_CLEAR && a != NC_X_COUNTER) {
    n = batch_size(g, hi);
  }
  if (a == NC_X_INSERT && !growing && !aimed && n > 64)
    n = 64; /* deep enough: the goal bounds the model's memory */
  nc_x_step *st = push_step(g, a, slot, n);
  if (!st)
    return -1;
  shape_call(g, st);
  if (aimed)
    force_shape(g, st, shape);
  track_counter(g, st);
  int64_t *keys = g->q->arena + st->first;
  draw_keys(g, st, keys, growing && a == NC_X_INSERT, aimed);
  apply(g, st, keys);
  if (g->cover)
    nc_x_cover_add(g->cover, st);
  int modifies = a != NC_X_FIND && a != NC_X_COUNTER;
  g->q->work += st->n + (modifies ? (st->n < 256 ? st->n : 256) + 16 : 0);
  return g->oom ? -1 : 0;
}

/* The read-back's first batch of a table of len keys: one past the
 * largest power of two below len (and within chunk), so that every table
 * deep enough is read once with a batch of 2^k + 1 stored keys. A table
 * that splits a batch into tasks of a power of two (2^j <= 2^k) is then
 * left one stored key past its last whole task, the one a wrong task count
 * drops; keys the random batches hold there may all be absent. */
static int64_t first_read_back(int64_t len, int64_t chunk)
{
  int64_t most = len < chunk ? len : chunk, power = 1;
  while (power * 2 < most)
    power *= 2;
  return power + 1 <= most && power >= 2 ? power + 1 : most;
}

/* Reads back every key each live table holds, in batches. */
static int final_sweep(gen *g)
{
  int64_t chunk = g->q->growth_max < g->sh->cap ? g->q->growth_max : g->sh->cap;
  for (int i = 0; i < NC_X_SLOTS; i++) {
    if (!g->alive[i])
      continue;
    const keyset *ks = &g->stored[i];
    int64_t n = 0;
    for (size_t from = 0; from < ks->len; from += (size_t)n) {
      int64_t left = (int64_t)(ks->len - from);
      n = from == 0 ? first_read_back(left, chunk) : left < chunk ? left : chunk;
      nc_x_step *st = push_step(g, NC_X_FIND, i, n);
      if (!st)
        return -1;
      memcpy(g->q->arena + st->first, ks->keys + from, (size_t)n * sizeof(int64_t));
      st->classes = 1u << NC_XK_STORED;
      g->q->keys_by[NC_X_FIND][NC_XK_STORED] += n;
      if (g->cover)
        nc_x_cover_add(g->cover, st);
      g->q->work += n;
    }
  }
  return 0;
}

/* The fixed sequences (even) end with each lifecycle event they enable
 * that their draws missed: another table beside the first, then the
 * factory dropped while tables live, so that every run reaches those
 * paths whatever its seed. The final sweep then reads the tables that
 * outlive their factory. */
static int every_lifecycle_event(gen *g)
{
  nc_x_seq *q = g->q;
  if (!q->even)
    return 0;
  int beside = 0;
  for (int i = 0; i < NC_X_SLOTS; i++)
    beside += g->alive[i];
  if (beside < 2 && on(g, NC_XF_ACTION(NC_X_PRODUCE)) && free_slot(g) >= 0 &&
      lifecycle_step(g, NC_X_PRODUCE) != 0)
    return -1;
  if (!q->drops_with_tables && on(g, NC_XF_ACTION(NC_X_DROP_FACTORY)) && g->factory_alive &&
      lifecycle_step(g, NC_X_DROP_FACTORY) != 0)
    return -1;
  return 0;
}

static void gen_start(gen *g, nc_x_seq *q, const nc_x_table_shape *sh, uint64_t seed)
{
  memset(g, 0, sizeof(*g));
  g->sh = sh;
  g->q = q;
  g->s = seed;
  g->salt = nc_splitmix(&g->s);
  g->dense = nc_splitmix(&g->s) % 2;
  g->alive[0] = g->factory_alive = 1;
  g->counter_open[0] = 1;
  for (int a = 0; a < NC_X_ACTIONS; a++) {
    g->emphasis[a] = q->even ? 1 : 1 << (nc_splitmix(&g->s) % 3);
    if (q->favoured & NC_XF_ACTION(a)) /* after the draw: the stream stays the same */
      g->emphasis[a] = FAVOURED;
  }
  int64_t inv = sh->invalid_key;
  int64_t edges[10] = {0, -1, 1, -2, inv, inv + 1, inv - 1, INT64_MIN, INT64_MAX, 42};
  if (sh->key_size == 4) {
    edges[7] = INT32_MIN;
    edges[8] = INT32_MAX;
  }
  for (int i = 0; i < 10; i++)
    g->edges[i] = narrow(g, (uint64_t)edges[i]);
}

int nc_x_generate(nc_x_seq *q, const nc_x_table_shape *sh, uint64_t seed, int64_t work_goal,
                  nc_x_cover *cover)
{
  gen g;
  gen_start(&g, q, sh, seed);
  g.cover = cover;
  int rc = 0;
  while (rc == 0 && q->count < MAX_STEPS) {
    int64_t live = live_keys(&g);
    int growing = live < q->depth_goal && on(&g, NC_XF_ACTION(NC_X_INSERT));
    if (q->work >= 3 * work_goal || (q->work >= work_goal && !growing))
      break;
    int a = pick_action(&g, growing);
    if (a < 0)
      break;
    rc = a >= NC_X_PRODUCE ? lifecycle_step(&g, a) : table_step(&g, a, growing);
  }
  if (rc == 0)
    rc = every_lifecycle_event(&g);
  if (rc == 0)
    rc = final_sweep(&g);
  for (int i = 0; i < NC_X_SLOTS; i++)
    ks_free(&g.stored[i]);
  return rc;
}

void nc_x_seq_free(nc_x_seq *q)
{
  free(q->steps);
  free(q->arena);
  q->steps = NULL;
  q->arena = NULL;
  q->count = q->cap = q->arena_len = q->arena_cap = 0;
}

/* Appends to out[len] at *at, never past its end. */
static void add(char *out, size_t len, int *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *out, size_t len, int *at, const char *fmt, ...)
{
  if (*at < 0 || (size_t)*at >= len)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out + *at, len - (size_t)*at, fmt, ap);
  va_end(ap);
  *at = n < 0 ? (int)len : *at + n;
}

void nc_x_describe(const nc_x_seq *q, const nc_x_step *s, char *out, size_t len)
{
  const int64_t *keys = q->arena + s->first;
  int at = 0;
  out[0] = '\0';
  add(out, len, &at, "%s table %d", nc_x_action_names[s->action], s->slot + 1);
  if (s->action <= NC_X_ERASE && s->action != NC_X_CLEAR) {
    add(out, len, &at, " n=%lld", (long long)s->n);
    if (s->n == 1)
      add(out, len, &at, " key %lld", (long long)keys[0]);
    else if (s->n > 1)
      add(out, len, &at, " keys %lld .. %lld", (long long)keys[0], (long long)keys[s->n - 1]);
  }
  if (s->action == NC_X_COUNTER)
    add(out, len, &at, s->read ? " read" : " reset");
  if (s->action == NC_X_PRODUCE && s->config)
    add(out, len, &at, " with more_table_configs #%d", s->config - 1);
  if (s->action == NC_X_ACCUMULATE)
    add(out, len, &at, " %s updates, update_size %lld", nc_dtype_name((nve_data_type_t)s->dtype),
        (long long)s->size);
  if (s->resolved_every)
    add(out, len, &at, ", every %d-th key resolved on entry", s->resolved_every);
  if (s->nulls)
    add(out, len, &at, ", NULL%s%s%s", s->nulls & NC_X_NULL_MASK ? " hit_mask" : "",
        s->nulls & NC_X_NULL_VALUES ? " values" : "",
        s->nulls & NC_X_NULL_SIZES ? " value_sizes" : "");
  if ((s->action == NC_X_INSERT || s->action == NC_X_UPDATE) && s->size)
    add(out, len, &at, ", value_size %lld (short of the row)", (long long)s->size);
  if (s->stride_pad)
    add(out, len, &at, ", stride row+%lld", (long long)s->stride_pad);
  if (s->thread)
    add(out, len, &at, ", on the sequence's thread %d", s->thread);
}
