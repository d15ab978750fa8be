/* SPDX-License-Identifier: Apache-2.0 */
/* TBL-11: a seeded random sequence of every op, compared with the model
 * after every op; on a disagreement, the sequence is replayed on fresh
 * tables to find a short failing one (doc/rules.md#tbl-11).
 *
 * The sequence is generated up front from the seed, so that a replay of
 * any subsequence writes the same rows: ops are removed in chunks (largest
 * first) while the replay still disagrees, the way delta debugging does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "call_space.h"
#include "cases.h"
#include "common.h"
#include "table_kit.h"
#include "trace.h"

enum { OP_INSERT, OP_UPDATE, OP_ACCUMULATE, OP_ERASE, OP_FIND, OP_CLEAR };
/* Ops of a shrunk sequence listed one by one; the rest are counted. */
#define SHOWN_OPS 30

static const char *const op_names[] = {"insert", "update", "update_accumulate", "erase", "find",
                                       "clear"};

typedef struct rop {
  int kind;
  int64_t n, first; /* its keys: arena[first .. first + n) */
  uint64_t tag;
  int64_t stride_pad;  /* bytes added to the row for the stride */
  int resolved_every;  /* find: every k-th key resolved on entry (0: none) */
} rop;

typedef struct sequence {
  rop *ops;
  size_t count, ops_cap;
  int64_t *arena;
  size_t arena_len, arena_cap;
  int64_t pool[8]; /* edge keys */
} sequence;

typedef struct params {
  size_t ops;
  int64_t large, pool_keys;
  int64_t cap;     /* the most keys per call the table's rows allow (nc_tk_batch) */
  int64_t regular; /* the most keys of an ordinary batch */
} params;

static uint64_t rnd(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Bits needed for v > 0. */
static int bit_length(int64_t v)
{
  int b = 0;
  for (; v > 0; v >>= 1)
    b++;
  return b;
}

/* A size log-uniform in [lo, hi]: every power of two between them is as
 * likely as the next, so small batches and large ones both come up. */
static int64_t log_uniform(uint64_t *s, int64_t lo, int64_t hi)
{
  if (hi <= lo)
    return lo;
  int blo = bit_length(lo), bhi = bit_length(hi);
  int b = blo + (int)(rnd(s) % (uint64_t)(bhi - blo + 1));
  int64_t from = (int64_t)1 << (b - 1), n = from + (int64_t)(rnd(s) % (uint64_t)from);
  return n < lo ? lo : n > hi ? hi : n;
}

/* A quarter of the batches are the call space's batch classes (0, 1, around
 * a mask word and the parallel thresholds, 4096 and past it); some sit on
 * the edge of a mask word (64 x 2^u keys, one less or one more, up to the
 * large size), where a table that splits a find between tasks by mask
 * words goes wrong; the rest are log-uniform, mostly ordinary, a tenth
 * large. */
static int64_t batch_size(uint64_t *s, const params *p)
{
  uint64_t r = rnd(s) % 100;
  int64_t n;
  if (r < 25) {
    n = nc_space_batches[rnd(s) % NC_SPACE_BATCHES];
  } else if (r < 40) {
    int words = bit_length(p->large / 64 > 1 ? p->large / 64 : 1);
    n = 64 * ((int64_t)1 << (rnd(s) % (uint64_t)words)) + (int64_t)(rnd(s) % 3) - 1;
  } else if (r < 90) {
    n = log_uniform(s, 2, p->regular);
  } else {
    n = log_uniform(s, p->regular, p->large);
  }
  return n < p->cap ? n : p->cap;
}

/* Keys: mostly from a pool (so ops meet the same keys again), sometimes at
 * the edges of the key's range, the invalid key among them. */
static int64_t pick_key(uint64_t *s, const sequence *q, const params *p, int key_size)
{
  if (rnd(s) % 100 < 6)
    return q->pool[rnd(s) % 8];
  int64_t k = (int64_t)(rnd(s) % (uint64_t)p->pool_keys) * 7919 + 13;
  return key_size == 4 ? (int64_t)(int32_t)k : k;
}

/* A key drawn relative to what the sequence has met: a bit relative of a
 * key an earlier op used (stored, erased or looked up, whichever it is
 * now): +-1, the sign flipped, the top bit flipped, the same low half
 * under another high half or the reverse, or a neighbour of the invalid
 * key. A table that truncates, folds or sign-extends keys confuses such a
 * key with its original; a pool of small positive numbers never shows it. */
static int64_t relative_key(uint64_t *s, const sequence *q, size_t met, int key_size)
{
  int64_t k = q->arena[rnd(s) % met];
  int half = key_size * 4; /* bits in half a key */
  uint64_t low = (1ull << half) - 1, other = rnd(s) | 1;
  uint64_t v = (uint64_t)k;
  switch (rnd(s) % 7) {
  case 0: v += 1; break;
  case 1: v -= 1; break;
  case 2: v = 0 - v; break;
  case 3: v ^= 1ull << (key_size * 8 - 1); break;
  case 4: v ^= (other << half) & (key_size == 8 ? ~low : 0xffffffffull); break; /* same low half */
  case 5: v ^= other & low; break;                                          /* same high half */
  default: v = (uint64_t)q->pool[4] + (rnd(s) % 2 ? 1 : (uint64_t)-1); break;
  }
  return key_size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* Appends an op with room for n keys (q->arena + o->first); NULL when out
 * of memory. */
static rop *push_op(sequence *q, int kind, int64_t n)
{
  if (q->count == q->ops_cap) {
    size_t cap = q->ops_cap ? q->ops_cap * 2 : 256;
    rop *ops = realloc(q->ops, cap * sizeof(rop));
    if (!ops)
      return NULL;
    q->ops = ops;
    q->ops_cap = cap;
  }
  if (q->arena_len + (size_t)n > q->arena_cap) {
    size_t cap = (q->arena_cap + (size_t)n) * 2;
    int64_t *a = realloc(q->arena, cap * sizeof(int64_t));
    if (!a)
      return NULL;
    q->arena = a;
    q->arena_cap = cap;
  }
  rop *o = &q->ops[q->count++];
  memset(o, 0, sizeof(*o));
  o->kind = kind;
  o->n = n;
  o->tag = q->count;
  o->first = (int64_t)q->arena_len;
  q->arena_len += (size_t)n;
  return o;
}

static void sequence_start(sequence *q, const nc_tk *k)
{
  memset(q, 0, sizeof(*q));
  int64_t edges[8] = {0, -1, 1, -2, k->caps.invalid_key, INT64_MIN, INT64_MAX, 42};
  if (k->caps.key_size == 4) {
    edges[4] = (int32_t)k->caps.invalid_key;
    edges[5] = INT32_MIN;
    edges[6] = INT32_MAX;
  }
  memcpy(q->pool, edges, sizeof(edges));
}

/* The mixed sequence: every op, batches from 0 to large, keys from a small
 * pool (so ops meet the same keys again) and the edges. */
static int generate(sequence *q, const nc_tk *k, uint64_t seed, const params *p)
{
  sequence_start(q, k);
  int ks = (int)k->caps.key_size;
  uint64_t s = seed;
  int accumulate = nc_tk_update_size(k, k->caps.dtype, 0) > 0;
  for (size_t i = 0; i < p->ops; i++) {
    uint64_t r = rnd(&s) % 100;
    int kind = r < 26 ? OP_INSERT : r < 50 ? OP_FIND : r < 62 ? OP_UPDATE
             : r < 72 ? (accumulate ? OP_ACCUMULATE : OP_UPDATE) : r < 98 ? OP_ERASE : OP_CLEAR;
    int64_t n = kind == OP_CLEAR ? 0 : batch_size(&s, p);
    /* Accumulating a key twice in one batch leaves the order of float
     * sums open: such batches take consecutive, distinct pool keys. */
    if (kind == OP_ACCUMULATE && n > p->pool_keys)
      n = p->pool_keys;
    rop *o = push_op(q, kind, n);
    if (!o)
      return -1;
    o->stride_pad = rnd(&s) % 4 == 0 ? 4 * (int64_t)(rnd(&s) % 4) : 0;
    o->resolved_every = kind == OP_FIND && rnd(&s) % 3 == 0 ? 2 + (int)(rnd(&s) % 5) : 0;
    int64_t *keys = q->arena + o->first;
    if (kind == OP_ACCUMULATE) {
      uint64_t start = rnd(&s);
      for (int64_t j = 0; j < n; j++) {
        int64_t pk = (int64_t)((start + (uint64_t)j) % (uint64_t)p->pool_keys) * 7919 + 13;
        keys[j] = ks == 4 ? (int64_t)(int32_t)pk : pk;
      }
    } else {
      /* Keys met before this op: an eighth of the keys are their relatives. */
      size_t met = (size_t)o->first;
      for (int64_t j = 0; j < n; j++)
        keys[j] = met && rnd(&s) % 8 == 0 ? relative_key(&s, q, met, ks)
                                          : pick_key(&s, q, p, ks);
    }
  }
  return 0;
}

/* Key j of the deep sequence: apart from the mixed sequence's pool. */
static int64_t deep_key(int64_t j) { return j * 7919 + 1000003; }

/* Finds of keys deep_key(0 .. live) in batches of chunk: every stored row
 * read back. */
static int sweep(sequence *q, int64_t live, int64_t chunk)
{
  for (int64_t from = 0; from < live; from += chunk) {
    int64_t n = live - from < chunk ? live - from : chunk;
    rop *o = push_op(q, OP_FIND, n);
    if (!o)
      return -1;
    for (int64_t j = 0; j < n; j++)
      q->arena[o->first + j] = deep_key(from + j);
  }
  return 0;
}

/* The deep sequence: a table grown one key at a time past the sizes where
 * tables first resize, then in batches of a thousand to depth keys, every
 * row read back after each phase, then ordinary ops among that many live
 * keys. */
static int generate_deep(sequence *q, const nc_tk *k, uint64_t seed, int64_t depth,
                         int64_t chunk)
{
  sequence_start(q, k);
  uint64_t s = seed ^ 0xdee9;
  int64_t singles = depth < 700 ? depth : 700, live = 0;
  for (; live < singles; live++) {
    rop *o = push_op(q, OP_INSERT, 1);
    if (!o)
      return -1;
    q->arena[o->first] = deep_key(live);
  }
  if (sweep(q, live, chunk) != 0)
    return -1;
  while (live < depth) {
    int64_t n = depth - live < chunk ? depth - live : chunk;
    rop *o = push_op(q, OP_INSERT, n);
    if (!o)
      return -1;
    for (int64_t j = 0; j < n; j++)
      q->arena[o->first + j] = deep_key(live + j);
    live += n;
  }
  if (sweep(q, live, chunk) != 0)
    return -1;
  int accumulate = nc_tk_update_size(k, k->caps.dtype, 0) > 0;
  for (int i = 0; i < 200; i++) {
    uint64_t r = rnd(&s) % 100;
    int kind = r < 30 ? OP_FIND : r < 55 ? OP_UPDATE : r < 70 && accumulate ? OP_ACCUMULATE
             : r < 85 ? OP_INSERT : OP_ERASE;
    int64_t n = 1 + (int64_t)(rnd(&s) % (uint64_t)(chunk / 2 > 1 ? chunk / 2 : 1));
    rop *o = push_op(q, kind, n);
    if (!o)
      return -1;
    /* Consecutive keys from a random start: distinct, as accumulate needs. */
    int64_t from = (int64_t)(rnd(&s) % (uint64_t)live);
    for (int64_t j = 0; j < n; j++)
      q->arena[o->first + j] = deep_key((from + j) % live);
  }
  return sweep(q, live, chunk);
}

static void sequence_free(sequence *q)
{
  free(q->ops);
  free(q->arena);
}

/* After a modifying op: read back its keys and a few others. */
static void probe(nc_tk *k, const sequence *q, const rop *o, uint64_t *s)
{
  int64_t keys[256 + 16];
  int64_t room = nc_tk_batch(k, 256 + 16) - 16, n = o->n < room ? o->n : room;
  if (n < 0)
    n = 0;
  memcpy(keys, q->arena + o->first, (size_t)n * sizeof(int64_t));
  for (int j = 0; j < 16; j++) {
    size_t from = (size_t)(rnd(s) % (q->arena_len ? q->arena_len : 1));
    keys[n++] = q->arena_len ? q->arena[from] : j;
  }
  nc_tk_find(k, n, keys, NULL, NULL);
}

static void run_op(nc_tk *k, const sequence *q, const rop *o, uint64_t *s)
{
  const int64_t *keys = q->arena + o->first;
  int64_t stride = k->stride + o->stride_pad;
  switch (o->kind) {
  case OP_INSERT:
    nc_tk_insert(k, o->n, keys, stride, o->tag, 1);
    break;
  case OP_UPDATE:
    nc_tk_update(k, o->n, keys, stride, o->tag, 1);
    break;
  case OP_ACCUMULATE:
    nc_tk_accumulate(k, o->n, keys, k->caps.dtype, nc_tk_update_size(k, k->caps.dtype, 0),
                     o->tag, 1);
    break;
  case OP_ERASE:
    nc_tk_erase(k, o->n, keys, 1);
    break;
  case OP_CLEAR:
    nc_tk_clear(k, 1);
    break;
  case OP_FIND: {
    uint64_t *resolved = NULL;
    if (o->resolved_every && o->n > 0) {
      resolved = calloc((size_t)(o->n + 63) / 64, sizeof(uint64_t));
      for (int64_t j = 0; resolved && j < o->n; j += o->resolved_every)
        resolved[j / 64] |= 1ull << (j % 64);
    }
    nc_find_opts opts = {.resolved = resolved, .stride = stride};
    nc_tk_find(k, o->n, keys, &opts, NULL);
    free(resolved);
    return;
  }
  }
  probe(k, q, o, s);
}

/* Runs the ops at idx[0..count) on a fresh table. Returns the position of
 * the first op after which the table disagreed, count when none did, or -1
 * when no table could be made. */
static long replay(nc_case *c, const nve_ext_table_factory_t *f, const sequence *q,
                   const size_t *idx, size_t count, uint64_t seed, char *why, size_t whylen,
                   int64_t *keys_done, nc_rule *owners, int *nowners)
{
  nve_ext_table_t t;
  if (nc_produce_table(c, f, &t) != 0)
    return -1;
  nc_tk k;
  if (nc_tk_init(&k, c, &t) != 0) {
    nc_call_table_destroy(&t);
    return -1;
  }
  k.quiet = 1;
  uint64_t s = seed ^ 0x5eed;
  long failed_at = (long)count;
  for (size_t i = 0; i < count; i++) {
    nc_trace_record("BEAT", 0, NULL); /* progress: an op may take long on a loaded machine */
    run_op(&k, q, &q->ops[idx[i]], &s);
    if (keys_done)
      *keys_done += q->ops[idx[i]].n;
    if (k.mismatches) {
      snprintf(why, whylen, "%s", k.mismatch);
      if (owners) {
        *nowners = k.nmismatch_owners;
        memcpy(owners, k.mismatch_owners, sizeof(k.mismatch_owners));
      }
      failed_at = (long)i;
      break;
    }
  }
  /* Most ops failing would make the sequence say nothing. */
  if (failed_at == (long)count && count >= 20 && k.failed_ops * 2 > (int64_t)count) {
    snprintf(why, whylen, "%lld of %zu ops returned a failure for valid arguments (the first: "
             "%s)", (long long)k.failed_ops, count, k.first_failed);
    if (owners) {
      owners[0] = nc_op_owner(k.first_failed);
      *nowners = 1;
    }
    failed_at = (long)count - 1;
  }
  nc_tk_done(&k);
  nc_call_table_destroy(&t);
  return failed_at;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What a shrink works on: the sequence, the current failing subsequence
 * (idx[0..len)) and the text of its failure. */
typedef struct shrinking {
  nc_case *c;
  const nve_ext_table_factory_t *f;
  const sequence *q;
  uint64_t seed;
  size_t *idx, len;
  char *why;
  size_t whylen;
  int replays;
  double deadline; /* a safety cap only: the replay count bounds the work */
  int timed_out;   /* the cap stopped it (said in a note) */
} shrinking;

/* Replays a shrink may make: a bound in work, not in time, so that the
 * sequence it finds is the same on any machine. */
#define SHRINK_REPLAYS 120

static int shrink_more(shrinking *sh)
{
  if (sh->replays >= SHRINK_REPLAYS)
    return 0;
  if (now_s() >= sh->deadline)
    sh->timed_out = 1;
  return !sh->timed_out;
}

/* Replays trial[0..n); when it still fails, it becomes the current
 * sequence, cut after the op that now fails (it may fail earlier). */
static int try_trial(shrinking *sh, const size_t *trial, size_t n)
{
  char trial_why[768];
  long at = replay(sh->c, sh->f, sh->q, trial, n, sh->seed, trial_why, sizeof(trial_why), NULL,
                   NULL, NULL);
  sh->replays++;
  if (at < 0 || (size_t)at >= n)
    return 0;
  sh->len = (size_t)at + 1;
  memcpy(sh->idx, trial, sh->len * sizeof(size_t));
  snprintf(sh->why, sh->whylen, "%s", trial_why);
  return 1;
}

/* Removes chunks of ops while the replay still fails; idx/len shrink in
 * place. The last op (where the disagreement shows) is kept. */
static int shrink(nc_case *c, const nve_ext_table_factory_t *f, const sequence *q, size_t *idx,
                  size_t *len, uint64_t seed, double deadline, char *why, size_t whylen)
{
  size_t *trial = malloc(*len * sizeof(size_t));
  if (!trial)
    return 0;
  shrinking sh = {c, f, q, seed, idx, *len, why, whylen, 0, deadline, 0};
  /* First whole kinds of op at once (cheap, and often most of the way). */
  static const int kinds[] = {OP_FIND, OP_ACCUMULATE, OP_UPDATE, OP_CLEAR, OP_INSERT, OP_ERASE};
  for (size_t kd = 0; kd < sizeof(kinds) / sizeof(*kinds) && shrink_more(&sh); kd++) {
    size_t n = 0;
    for (size_t i = 0; i < sh.len; i++)
      if (q->ops[idx[i]].kind != kinds[kd] || i + 1 == sh.len)
        trial[n++] = idx[i];
    if (n < sh.len)
      try_trial(&sh, trial, n);
  }
  /* Then chunks, halving their size. */
  for (size_t chunk = sh.len / 2; chunk >= 1 && shrink_more(&sh); chunk /= 2) {
    int removed_any = 1;
    while (removed_any && shrink_more(&sh)) {
      removed_any = 0;
      for (size_t start = 0; start + 1 < sh.len && shrink_more(&sh);) {
        size_t end = start + chunk < sh.len - 1 ? start + chunk : sh.len - 1;
        size_t n = 0;
        for (size_t i = 0; i < sh.len; i++)
          if (i < start || i >= end)
            trial[n++] = idx[i];
        if (try_trial(&sh, trial, n))
          removed_any = 1;
        else
          start = end;
      }
    }
  }
  *len = sh.len;
  int replays = sh.replays;
  if (sh.timed_out)
    nc_note(c, "shrinking", "a bound in replays, not in time",
            "stopped by the safety cap in time after %d replays (a heavily loaded machine?): "
            "the sequence may be longer than the shortest", replays);
  free(trial);
  return replays;
}

static void describe_op(const sequence *q, const rop *o, char *out, size_t len)
{
  const int64_t *keys = q->arena + o->first;
  if (o->n == 0)
    snprintf(out, len, "%s n=0", op_names[o->kind]);
  else if (o->n == 1)
    snprintf(out, len, "%s n=1 key %lld", op_names[o->kind], (long long)keys[0]);
  else
    snprintf(out, len, "%s n=%lld keys %lld .. %lld (first, last)", op_names[o->kind],
             (long long)o->n, (long long)keys[0], (long long)keys[o->n - 1]);
}

/* Runs sequence q on fresh tables; on a disagreement, shrinks it and
 * reports. Returns 0 when it agreed, 1 when it failed, -1 when it could
 * not run. */
static int check_sequence(nc_case *c, const nve_ext_table_factory_t *f, sequence *q,
                          const char *what, uint64_t seed, int64_t largest)
{
  size_t *idx = malloc((q->count ? q->count : 1) * sizeof(size_t));
  if (!idx) {
    nc_harness_error(c, "out of memory for %zu ops", q->count);
    return -1;
  }
  for (size_t i = 0; i < q->count; i++)
    idx[i] = i;
  char why[768] = "";
  int64_t keys_done = 0;
  double t0 = now_s();
  nc_rule owners[2] = {c->rule, c->rule}; /* the rules the first disagreement may break */
  int nowners = 1;
  long at = replay(c, f, q, idx, q->count, seed, why, sizeof(why), &keys_done, owners, &nowners);
  double took = now_s() - t0;
  int rc = 0;
  if (at < 0) {
    rc = -1;
  } else if ((size_t)at == q->count) {
    nc_note(c, what, "agreement with the model after every op",
            "seed %llu: %zu ops (%lld keys, batches 0..%lld) agreed; %.0f ops/s, %.0f keys/s",
            (unsigned long long)seed, q->count, (long long)keys_done, (long long)largest,
            took > 0 ? (double)q->count / took : 0.0, took > 0 ? (double)keys_done / took : 0.0);
  } else {
    rc = 1;
    size_t original = (size_t)at + 1, len = original;
    char first_why[768];
    snprintf(first_why, sizeof(first_why), "%s", why);
    double budget = c->cfg->stress ? 600 : 200; /* a cap for a machine near a standstill */
    int replays = shrink(c, f, q, idx, &len, seed, now_s() + budget, why, sizeof(why));
    nc_fail_owned_by(c, owners, nowners, what, "agreement with the model after every op",
            "seed %llu: after op %zu of %zu (%s) the table disagreed: %s. Shortest failing "
            "sequence found: %zu ops (from %zu, %d replays on fresh tables); its failure: %s",
            (unsigned long long)seed, original, q->count, op_names[q->ops[at].kind], first_why,
            len, original, replays, why);
    for (size_t i = 0; i < len; i++) {
      char d[160];
      describe_op(q, &q->ops[idx[i]], d, sizeof(d));
      if (i < SHOWN_OPS || i + 1 == len)
        nc_note(c, "shortest failing sequence", "its ops, in order", "%zu/%zu: op #%zu %s",
                i + 1, len, idx[i] + 1, d);
      else if (i == SHOWN_OPS)
        nc_note(c, "shortest failing sequence", "its ops, in order", "... %zu more ops ...",
                len - SHOWN_OPS - 1);
    }
  }
  free(idx);
  return rc;
}

/* Live keys of the deep sequence: DEEP_KEYS, fewer when the model of that
 * many rows would exceed DEEP_MODEL_BYTES. */
#define DEEP_KEYS 5000
#define DEEP_MODEL_BYTES (96 << 20)

void nc_case_TBL_11(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  params p = c->cfg->stress ? (params){20000, 20000, 20000, 0, 200}
                            : (params){2000, 4096, 512, 0, 200};
  /* Wide rows: fewer keys per op and fewer ops, so that a sequence moves
   * about as many bytes as one of 4 KiB rows. */
  p.cap = nc_tk_batch(&k, p.large);
  int64_t wide = k.stride / 4096;
  if (wide > 1) {
    p.large = p.large / wide > 8 ? p.large / wide : 8;
    p.regular = p.regular / wide > 4 ? p.regular / wide : 4;
    if (!c->cfg->stress)
      p.ops = p.ops / (size_t)wide > 300 ? p.ops / (size_t)wide : 300;
    nc_note(c, "sequence size", "2000 ops of up to 4096 keys",
            "rows of %lld bytes: %zu ops, ordinary batches up to %lld keys and large ones up to "
            "%lld",
            (long long)k.row, p.ops, (long long)p.regular, (long long)p.large);
  }
  int64_t depth = DEEP_MODEL_BYTES / k.row < DEEP_KEYS ? DEEP_MODEL_BYTES / k.row : DEEP_KEYS;
  int64_t chunk = p.cap < 1000 ? p.cap : 1000;
  if (depth < DEEP_KEYS)
    nc_note(c, "deep sequence", "5000 live keys",
            "rows of %lld bytes: %lld live keys (the model's memory bound)", (long long)k.row,
            (long long)depth);
  uint64_t seed = c->cfg->seed;
  sequence q;
  if (generate(&q, &k, seed, &p) != 0)
    nc_harness_error(c, "out of memory generating %zu ops", p.ops);
  else if (check_sequence(c, &f, &q, "seeded random sequence", seed, p.large) == 0) {
    sequence_free(&q);
    if (generate_deep(&q, &k, seed, depth, chunk) != 0)
      nc_harness_error(c, "out of memory generating the deep sequence");
    else
      check_sequence(c, &f, &q, "deep sequence (grown one key at a time, then by thousands)",
                     seed, chunk);
  }
  sequence_free(&q);
  nc_tk_close(&k, &f);
}
