/* SPDX-License-Identifier: Apache-2.0 */
/* The explorer's runner (explore_run.h): the tables of a sequence, each
 * with its model (table_kit.h), the factory, the lookup counters the
 * models expect, and steps on threads of their own. */
#include "explore_run.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "common.h"
#include "device_feed.h"
#include "cuda.h"
#include "dtype.h"
#include "explore_history.h"
#include "guarded.h"
#include "runner.h"
#include "splitmix.h"
#include "threads.h"
#include "trace.h"

/* A floor on the bytes per second a checked step moves on a loaded
 * machine: a call touches its keys and may rehash (or, destroyed, free)
 * every key the tables hold. */
#define SLOW_BYTES_PER_S 20e6

/* The least time between two of a replay's beats. */
#define BEAT_EVERY_S 0.1

/* Calls of one action that may all fail before that is a failure. */
#define NEVER_CALLS 4

typedef struct slot {
  int alive;
  nc_tk k;
  /* What the lookup counter may read: a range, as the contract leaves
   * open whether keys resolved on entry count, and a find whose hits are
   * unseen (or that failed) counts anything up to its keys; clear may or
   * may not reset the counter. Known from a successful reset on. */
  int64_t counter_lo, counter_hi;
  int counter_known;
  int config; /* the step's config: 0 the run's table config, k more_tables[k - 1] */
} slot;

/* A thread of the sequence's own that runs the steps handed to it, one at
 * a time: it lives as long as the tables, as a host's worker does, so a
 * table's per-thread state carries from one step to the next. */
typedef struct worker {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  void (*job)(void *);
  void *arg;
  int started, quit;
} worker;

#define NC_X_WORKERS 2

typedef struct world {
  nc_case *c;
  const nc_x_seq *q;
  unsigned toggles;
  int alone_slot;
  nve_ext_table_factory_t f;
  int factory_alive;
  slot s[NC_X_SLOTS];
  slot kept[NC_X_SLOTS * 4]; /* NC_XT_KEEP_TABLES: destroyed, in fact alive */
  int nkept;
  int64_t next_id;
  /* Where a lifecycle step's bootstrap call left a decoy device changed:
   * the step, and the failure to fill (nc_x_replay's). */
  long at;
  nc_x_failure *fail;
  int device; /* current when the sequence began (-1: no CUDA runtime) */
  nc_x_replay_stats stats;
  worker workers[NC_X_WORKERS];
  /* Calls with keys of each action, and how many of them failed. */
  int64_t calls[NC_X_ACTIONS], failed[NC_X_ACTIONS];
  char first_failed[NC_X_ACTIONS][200];
} world;

/* Whether an accumulate's updates are of the table's own dtype, which the
 * table must sum; it may refuse any other (doc/contract.md#update-accumulate). */
static int table_dtype(const slot *sl, const nc_x_step *st)
{
  return st->dtype == (int32_t)sl->k.caps.dtype;
}

/* A find of n keys counted into the slot's counter range: hits among the
 * keys unresolved on entry (-1: unseen, or the call failed), and resolved
 * keys resolved on entry. */
static void count_find(slot *sl, int64_t n, int64_t hits, int64_t resolved)
{
  if (hits < 0) {
    sl->counter_hi += n;
    return;
  }
  int64_t counted = sl->k.caps.counter_hits ? hits : n - resolved - hits;
  sl->counter_lo += counted;
  sl->counter_hi += counted + resolved;
}

int nc_x_probes(int action)
{
  return action == NC_X_INSERT || action == NC_X_UPDATE || action == NC_X_ACCUMULATE ||
         action == NC_X_ERASE || action == NC_X_CLEAR;
}

int64_t nc_x_probe_keys(const nc_x_seq *q, const nc_x_step *st, int64_t stride, int64_t *out)
{
  int64_t fit = nc_tk_fit(stride);
  int64_t room = (fit < NC_X_PROBE_MAX ? fit : NC_X_PROBE_MAX) - NC_X_PROBE_EXTRA;
  int64_t n = st->n < room ? st->n : room;
  if (n < 0)
    n = 0;
  memcpy(out, q->arena + st->first, (size_t)n * sizeof(int64_t));
  /* The extra keys follow from the step alone, so that a replay without
   * some other step probes this one the same way. */
  uint64_t rng = q->seed ^ (st->tag * 0x9e3779b97f4a7c15ull);
  for (int j = 0; j < NC_X_PROBE_EXTRA && q->arena_len; j++)
    out[n++] = q->arena[nc_splitmix(&rng) % q->arena_len];
  return n;
}

/* After a modifying op: read back its keys and a few others. */
static void probe(world *w, slot *sl, const nc_x_step *st)
{
  int64_t keys[NC_X_PROBE_MAX];
  int64_t n = nc_x_probe_keys(w->q, st, sl->k.stride, keys);
  count_find(sl, n, nc_tk_find(&sl->k, n, keys, NULL, NULL), 0);
}

static void find_step(world *w, slot *sl, const nc_x_step *st, int64_t stride)
{
  unsigned nulls = w->toggles & NC_XT_OUTPUTS ? 0 : st->nulls;
  uint64_t *resolved = NULL;
  int64_t nresolved = 0;
  if (st->resolved_every && !(w->toggles & NC_XT_NO_MASK) && !(nulls & NC_X_NULL_MASK) &&
      st->n > 0) {
    resolved = calloc((size_t)(st->n + 63) / 64, sizeof(uint64_t));
    for (int64_t j = 0; resolved && j < st->n; j += st->resolved_every, nresolved++)
      resolved[j / 64] |= 1ull << (j % 64);
  }
  nc_find_opts o = {.resolved = resolved,
                    .stride = stride,
                    .null_mask = (nulls & NC_X_NULL_MASK) != 0,
                    .null_values = (nulls & NC_X_NULL_VALUES) != 0,
                    .null_sizes = (nulls & NC_X_NULL_SIZES) != 0};
  int64_t hits = nc_tk_find(&sl->k, st->n, w->q->arena + st->first, &o, NULL);
  /* Without a hit mask and sizes the hits are unseen. */
  int seen = !(nulls & NC_X_NULL_MASK) || !(nulls & NC_X_NULL_SIZES);
  count_find(sl, st->n, seen ? hits : -1, nresolved);
  free(resolved);
}

static void counter_step(world *w, slot *sl, const nc_x_step *st)
{
  nc_tk *k = &sl->k;
  if (!st->read) {
    nve_status_t s = nc_call_reset_lookup_counter(&k->t);
    if (s != NVE_SUCCESS)
      nc_tk_mismatch(k, NC_RULE_TBL_09, "reset_lookup_counter", "NVE_SUCCESS", "status %d",
                     (int)s);
    sl->counter_lo = sl->counter_hi = 0;
    sl->counter_known = s == NVE_SUCCESS;
    return;
  }
  int64_t got = -12345;
  nve_status_t s = nc_call_get_lookup_counter(&k->t, &got);
  if (s != NVE_SUCCESS) {
    nc_tk_mismatch(k, NC_RULE_TBL_09, "get_lookup_counter", "NVE_SUCCESS", "status %d",
                   (int)s);
    return;
  }
  if (!sl->counter_known)
    return;
  w->stats.counter_reads++;
  if (sl->counter_lo > w->stats.counter_most)
    w->stats.counter_most = sl->counter_lo;
  if (got < sl->counter_lo || got > sl->counter_hi) {
    char expected[80];
    if (sl->counter_lo == sl->counter_hi)
      snprintf(expected, sizeof(expected), "%lld", (long long)sl->counter_lo);
    else
      snprintf(expected, sizeof(expected), "between %lld and %lld", (long long)sl->counter_lo,
               (long long)sl->counter_hi);
    nc_tk_mismatch(k, NC_RULE_TBL_09, "get_lookup_counter",
                   "the counter as the contract defines it",
                   "%lld; expected %s (%s of the finds since the last reset)", (long long)got,
                   expected, k->caps.counter_hits ? "the hits" : "the misses");
  }
}

/* A check of another rule found between the model's checks (the decoy
 * device, the capabilities): recorded as the step's failure, blamed on
 * that rule whatever it depends on. The first one found counts. */
static void direct_failure(world *w, nc_rule owner, const char *expected, const char *fmt,
                           ...) __attribute__((format(printf, 4, 5)));
static void direct_failure(world *w, nc_rule owner, const char *expected, const char *fmt, ...)
{
  if (w->fail->nowners || w->fail->why[0])
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->fail->why, sizeof(w->fail->why), fmt, ap);
  va_end(ap);
  w->fail->owners[0] = owner;
  w->fail->nowners = 1;
  w->fail->direct = 1;
  w->fail->expected = expected;
  w->fail->at = w->at;
}

/* One step in four (drawn from the step alone) reads the capabilities
 * again after its op, on the op's thread: they must read as at produce
 * (DEV-06), whatever the table went through since. */
int nc_x_rereads_caps(const nc_x_seq *q, const nc_x_step *st)
{
  return nc_mix64(q->seed ^ (st->tag * 0xc2b2ae3d27d4eb4full)) % 4 == 0;
}

static void reread_caps(world *w, slot *sl, const nc_x_step *st)
{
  if ((w->toggles & NC_XT_LEAKS) || !nc_x_rereads_caps(w->q, st))
    return;
  const nc_table_caps *was = &sl->k.caps;
  nc_table_caps now;
  nc_call_capabilities(&sl->k.t, &now);
  w->stats.caps_reads++;
  const char *what = nc_caps_differ(&now, was);
  if (!what)
    return;
  char d[240];
  nc_x_describe(w->q, st, d, sizeof(d));
  direct_failure(w, NC_RULE_DEV_06,
                 "the capabilities as at produce, whatever the table went through since",
                 "the capabilities read again after %s: %s changed (max_row_size %lld -> "
                 "%lld, key_size %lld -> %lld, invalid_key %lld -> %lld, device_id %d -> %d)",
                 d, what, (long long)was->max_row_size, (long long)now.max_row_size,
                 (long long)was->key_size, (long long)now.key_size,
                 (long long)was->invalid_key, (long long)now.invalid_key, (int)was->device_id,
                 (int)now.device_id);
}

int nc_x_oversize_possible(const nc_table_caps *caps)
{
  return (caps->location == NVE_BUFFER_LOCATION_HOST ||
          caps->location == NVE_BUFFER_LOCATION_DEVICE) &&
         caps->max_row_size <= NC_TK_ROW_MAX;
}

/* Where an oversized write's keys and rows go: the host buffers for a
 * HOST table; for a DEVICE table, copies on its device (made current, the
 * contexts' streams set, as before every op), freed by lent_free. 0, or -1
 * when the device is out of memory (the write is not made). */
typedef struct lent {
  const void *keys, *rows;
  void *dev[2];
} lent;

static int lend_write(nc_tk *k, const nc_guarded *raw, size_t klen, const nc_guarded *rows,
                      size_t rlen, lent *out)
{
  memset(out, 0, sizeof(*out));
  out->keys = raw->data;
  out->rows = rows->data;
  if (k->caps.location != NVE_BUFFER_LOCATION_DEVICE)
    return 0;
  nc_feed_enter(&k->feed);
  out->dev[0] = nc_feed_alloc(&k->feed, klen);
  out->dev[1] = nc_feed_alloc(&k->feed, rlen);
  if (!out->dev[0] || !out->dev[1] || nc_feed_put(out->dev[0], raw->data, klen) != 0 ||
      nc_feed_put(out->dev[1], rows->data, rlen) != 0)
    return -1;
  out->keys = out->dev[0];
  out->rows = out->dev[1];
  return 0;
}

static void lent_free(lent *l)
{
  nc_feed_free(l->dev[0]);
  nc_feed_free(l->dev[1]);
}

/* Before one write in eight of a sequence with NC_XF_OVERSIZE (drawn from
 * the step alone), the same op and batch size with a value_size past
 * max_row_size: a table may refuse it, and a refusal must leave a message
 * on the thread (ERR-02, at any batch size: a large call may fail on
 * another path than a small one). Its keys are drawn from the step alone
 * (no key of the sequence, but by chance), so that the model stays exact
 * for the sequence's keys; taken, their rows are unknown afterwards. */
int nc_x_oversized(const nc_x_seq *q, const nc_x_step *st)
{
  return (q->features & NC_XF_OVERSIZE) &&
         (st->action == NC_X_INSERT || st->action == NC_X_UPDATE ||
          st->action == NC_X_ACCUMULATE) &&
         nc_mix64(q->seed ^ (st->tag * 0x94d049bb133111ebull)) % 8 == 0;
}

nc_rule nc_x_oversize_owner(const nc_x_seq *q, const nc_x_step *steps, size_t len)
{
  for (size_t i = len; i-- > 0;)
    if (nc_x_oversized(q, &steps[i]))
      return nc_op_owner(nc_x_action_names[steps[i].action]);
  return NC_RULE_COUNT;
}

uint64_t nc_x_oversize_seed(const nc_x_seq *q, const nc_x_step *st)
{
  return q->seed ^ (st->tag * 0xbf58476d1ce4e5b9ull);
}

static void oversize_write(world *w, slot *sl, const nc_x_step *st)
{
  nc_tk *k = &sl->k;
  if ((w->toggles & (NC_XT_PLAIN_CALLS | NC_XT_NO_OVERSIZE)) || !nc_x_oversized(w->q, st) ||
      !nc_x_oversize_possible(&k->caps))
    return;
  int64_t size = k->caps.max_row_size + 1, width = nc_dtype_width(k->caps.dtype);
  if (st->action == NC_X_ACCUMULATE) /* whole elements of the table's dtype, past the row */
    size = width > 0 ? (k->caps.max_row_size / width + 1) * width : size;
  int64_t stride = size + 7;
  int64_t most = NC_X_OVERSIZE_BYTES / stride > 0 ? NC_X_OVERSIZE_BYTES / stride : 1;
  int64_t n = st->n < most ? st->n : most;
  /* Mapped buffers come from the guarded pool (mapping fresh pages on
   * every such write is most of its cost). */
  nc_guarded raw = {.slot = -1}, rows = {.slot = -1};
  lent to = {0};
  int64_t *keys = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  size_t klen = (size_t)(n * k->caps.key_size), rlen = (size_t)(n * stride);
  unsigned flags = NC_GUARDED_UNZEROED | NC_GUARDED_NO_CANARIES;
  if (keys && nc_guarded_alloc_with(&raw, "oversized write keys", klen, flags) == 0 &&
      nc_guarded_alloc_with(&rows, "oversized write values", rlen, flags) == 0) {
    uint64_t h = nc_x_oversize_seed(w->q, st);
    for (int64_t i = 0; i < n; i++) {
      uint64_t v = nc_splitmix(&h);
      keys[i] = k->caps.key_size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
      if (keys[i] == k->caps.invalid_key)
        keys[i] ^= 1;
      memcpy(raw.data + i * k->caps.key_size, &keys[i], (size_t)k->caps.key_size);
    }
    /* An update or accumulate changes stored keys only: on absent keys a
     * table that takes value_size past its row writes nothing, and is not
     * seen to. Its first keys are stored first (whole rows, a valid insert),
     * so that it writes past their rows, into their neighbours' where the
     * table keeps rows side by side; the model forgets those keys. */
    int stored_ok = 1; /* else its last_error may be the insert's: no ERR-02 judgement */
    int64_t stored = st->action == NC_X_INSERT      ? 0
                     : n < NC_X_OVERSIZE_STORED ? n
                                                : NC_X_OVERSIZE_STORED;
    /* Every row (and so every update) nonzero in every byte, the same in
     * the C reproducer: a sum of zeros past the row would change nothing,
     * and a zero spilled onto a neighbour's row would not show there
     * (its rows' first bytes are zeros). */
    memset(rows.data, NC_X_OVERSIZE_BYTE, rlen);
    if (lend_write(k, &raw, klen, &rows, rlen, &to) != 0) {
      nc_harness_error(k->c, "could not copy an oversized write's %zu bytes to device %d",
                       klen + rlen, k->feed.device);
      goto done;
    }
    if (stored) {
      stored_ok = nc_call_insert(&k->t, stored, to.keys, stride, k->caps.max_row_size,
                                 to.rows) == NVE_SUCCESS;
      nc_oracle_forget(k->o, stored, keys);
    }
    if (w->toggles & NC_XT_NO_PAST_ROW)
      goto done;
    nve_status_t s =
        st->action == NC_X_UPDATE ? nc_call_update(&k->t, n, to.keys, stride, size, to.rows)
        : st->action == NC_X_ACCUMULATE
            ? nc_call_update_accumulate(&k->t, n, to.keys, stride, size, to.rows,
                                        k->caps.dtype)
            : nc_call_insert(&k->t, n, to.keys, stride, size, to.rows);
    w->stats.oversize[s == NVE_SUCCESS]++;
    char msg[256] = "";
    long len = s == NVE_SUCCESS ? 1 : nc_read_plugin_string(nc_call_table_last_error(&k->t), msg,
                                                            sizeof(msg));
    /* -2, a message longer than the bound, is ERR-02's own case's to judge. */
    if (stored_ok && (len == 0 || len == -1))
      direct_failure(w, NC_RULE_ERR_02, "a message in last_error on the thread after a failed op",
                     "%s of %lld keys with value_size %lld (max_row_size %lld) and stride %lld "
                     "returned status %d and %s", nc_x_action_names[st->action], (long long)n,
                     (long long)size, (long long)k->caps.max_row_size, (long long)stride, (int)s,
                     len < 0 ? "an unreadable last_error" : "an empty last_error");
    if (s == NVE_SUCCESS)
      nc_oracle_forget(k->o, n, keys);
  }
done:
  lent_free(&to);
  free(keys);
  nc_guarded_free(&raw);
  nc_guarded_free(&rows);
}

static void table_op_only(world *w, slot *sl, const nc_x_step *st)
{
  oversize_write(w, sl, st);
  nc_tk *k = &sl->k;
  const int64_t *keys = w->q->arena + st->first;
  int64_t stride = k->stride + (w->toggles & NC_XT_PLAIN_STRIDE ? 0 : st->stride_pad);
  switch (st->action) {
  case NC_X_FIND: find_step(w, sl, st, stride); return;
  case NC_X_COUNTER: counter_step(w, sl, st); return;
  case NC_X_INSERT:
  case NC_X_UPDATE: {
    /* A short write may be refused (the contract is silent on it). */
    int64_t size = w->toggles & (NC_XT_PLAIN_CALLS | NC_XT_WHOLE_ROWS) ? 0 : st->size;
    int64_t failed = k->failed_ops;
    nve_status_t s = nc_tk_write_prefix(k, st->action == NC_X_UPDATE, st->n, keys, stride, size,
                                        st->tag, 1);
    if (size && size < k->row) {
      w->stats.short_writes[s == NVE_SUCCESS]++;
      k->failed_ops = failed;
    }
    break;
  }
  case NC_X_ACCUMULATE: {
    int64_t failed = k->failed_ops;
    int summed = nc_tk_accumulate(k, st->n, keys, (nve_data_type_t)st->dtype, st->size, st->tag,
                                  1) == NVE_SUCCESS;
    if (!table_dtype(sl, st)) {
      w->stats.other_dtype[summed]++;
      k->failed_ops = failed; /* another dtype may be refused: not a failed op */
    }
    break;
  }
  case NC_X_ERASE: nc_tk_erase(k, st->n, keys, 1); break;
  case NC_X_CLEAR:
    nc_tk_clear(k, 1);
    sl->counter_lo = 0; /* the contract does not say whether clear resets it */
    break;
  default: return;
  }
  probe(w, sl, st);
}

/* A step on a table of another config, fitted to it: no more keys than
 * one of its buffers holds, updates no longer than its rows take (the
 * generator drew the step for the run's table config). */
static const nc_x_step *fitted(const world *w, const slot *sl, const nc_x_step *st,
                               nc_x_step *local)
{
  if (!sl->config)
    return st;
  *local = *st;
  /* The stride of the call (a reproducer, which lists the steps of a
   * replay of plain strides with no pad, fits them alike). */
  int64_t fit = nc_tk_fit(sl->k.stride + (w->toggles & NC_XT_PLAIN_STRIDE ? 0 : st->stride_pad));
  local->n = st->n < fit ? st->n : fit;
  if (st->action == NC_X_ACCUMULATE) {
    /* The table's own update size, else whole updates within its row. */
    int64_t own = nc_tk_update_size(&sl->k, (nve_data_type_t)st->dtype, 0);
    int64_t width = nc_dtype_width((nve_data_type_t)st->dtype);
    int64_t most = own > 0 ? own : width > 0 ? sl->k.row / width * width : sl->k.row;
    local->size = st->size > most ? most : st->size;
  }
  return local;
}

/* The op, then the capabilities read again after it (on the same thread). */
static void table_op(world *w, slot *sl, const nc_x_step *st)
{
  nc_x_step local;
  st = fitted(w, sl, st, &local);
  table_op_only(w, sl, st);
  reread_caps(w, sl, st);
}

static void *worker_main(void *arg)
{
  worker *wk = arg;
  nc_alloc_warm_tls(); /* the loader's first touch of TLS is not the plugin's allocation */
  pthread_mutex_lock(&wk->lock);
  for (;;) {
    while (!wk->job && !wk->quit)
      pthread_cond_wait(&wk->cond, &wk->lock);
    if (!wk->job)
      break;
    pthread_mutex_unlock(&wk->lock);
    wk->job(wk->arg);
    pthread_mutex_lock(&wk->lock);
    wk->job = NULL;
    pthread_cond_broadcast(&wk->cond);
  }
  pthread_mutex_unlock(&wk->lock);
  return NULL;
}

/* Runs job(arg) on the worker and waits for it; -1 when no thread could
 * be started. */
static int worker_run(worker *wk, void (*job)(void *), void *arg)
{
  if (!wk->started) {
    pthread_mutex_init(&wk->lock, NULL);
    pthread_cond_init(&wk->cond, NULL);
    if (nc_thread_create(&wk->thread, worker_main, wk) != 0) {
      pthread_cond_destroy(&wk->cond);
      pthread_mutex_destroy(&wk->lock);
      return -1;
    }
    wk->started = 1;
  }
  pthread_mutex_lock(&wk->lock);
  wk->job = job;
  wk->arg = arg;
  pthread_cond_broadcast(&wk->cond);
  while (wk->job)
    pthread_cond_wait(&wk->cond, &wk->lock);
  pthread_mutex_unlock(&wk->lock);
  return 0;
}

static void worker_stop(worker *wk)
{
  if (!wk->started)
    return;
  pthread_mutex_lock(&wk->lock);
  wk->quit = 1;
  pthread_cond_broadcast(&wk->cond);
  pthread_mutex_unlock(&wk->lock);
  pthread_join(wk->thread, NULL);
  pthread_cond_destroy(&wk->cond);
  pthread_mutex_destroy(&wk->lock);
  wk->started = 0;
}

typedef struct thread_call {
  world *w;
  slot *sl;
  const nc_x_step *st;
} thread_call;

static void on_worker(void *arg)
{
  thread_call *t = arg;
  table_op(t->w, t->sl, t->st);
}

/* Runs a table op, on one of the sequence's threads when the step says
 * so (its calls then get that thread's contexts); the case waits for it. */
static void run_table_op(world *w, slot *sl, const nc_x_step *st)
{
  thread_call t = {w, sl, st};
  if (!st->thread || (w->toggles & NC_XT_MAIN_THREAD) ||
      worker_run(&w->workers[(st->thread - 1) % NC_X_WORKERS], on_worker, &t) != 0)
    table_op(w, sl, st);
}

static int open_slot(world *w, int i, const nve_ext_table_t *t, int config)
{
  slot *sl = &w->s[i];
  memset(sl, 0, sizeof(*sl));
  if ((config ? nc_tk_init_other(&sl->k, w->c, t) : nc_tk_init(&sl->k, w->c, t)) != 0) {
    nc_call_table_destroy(t);
    return -1;
  }
  sl->config = config;
  sl->k.quiet = 1;
  /* The model's slots at the size the plan says the table reaches. */
  if (w->q->slot_deepest[i] > 0)
    nc_oracle_reserve(sl->k.o, (size_t)w->q->slot_deepest[i]);
  /* Every check of every call: a sequence shows what a call did. The
   * leak view judges no answer, so it checks none. */
  int judged = !(w->toggles & NC_XT_LEAKS);
  sl->k.check_resolved = judged;
  sl->k.check_bounds = judged;
  sl->k.check_values = judged;
  sl->alive = 1;
  return 0;
}

static void close_slot(slot *sl)
{
  if (!sl->alive)
    return;
  nc_call_table_destroy(&sl->k.t);
  nc_tk_done(&sl->k);
  sl->alive = 0;
}

/* The bootstrap calls of the lifecycle steps (factory creation, produce,
 * factory destroy) run with a decoy device current, as a host may call
 * them: never device 0, drawn from the step alone so that a shrunk replay
 * makes the same one. Returns the decoy, or -1: no runtime with two
 * devices, or the leak view (which judges no call). */
static int decoy_before(world *w, const nc_x_step *st, int salt)
{
  int count = nc_cuda_loaded() ? nc_cuda_device_count() : 0;
  if (count < 2 || (w->toggles & NC_XT_LEAKS))
    return -1;
  uint64_t h = nc_mix64(w->q->seed ^ (st->tag * 0x9e3779b97f4a7c15ull) ^ (uint64_t)salt);
  int decoy = 1 + (int)(h % (uint64_t)(count - 1));
  if (nc_cuda_set_device(decoy) != 0)
    return -1;
  w->stats.decoys++;
  return decoy;
}

/* The call must have restored the decoy (DEV-02..04: the bootstrap calls
 * select their device themselves and give the caller's back); then the
 * device the world started with is current again. */
static void decoy_after(world *w, int decoy, nc_rule owner, const char *call)
{
  if (decoy < 0)
    return;
  int now = nc_cuda_get_device();
  if (now != decoy) {
    int alive = 0;
    for (int i = 0; i < NC_X_SLOTS; i++)
      alive += w->s[i].alive;
    direct_failure(w, owner, "the caller's current device as it was, after every bootstrap call",
                   "%s with device %d current (a decoy): device %d is current afterwards, with "
                   "%d table%s of the sequence alive; the caller's device must be restored",
                   call, decoy, now, alive, alive == 1 ? "" : "s");
  }
  nc_cuda_set_device(w->device);
}

/* Another table in slot i, from a new factory when the last one is gone. */
static void produce(world *w, const nc_x_step *st)
{
  int i = st->slot;
  if (w->s[i].alive)
    return;
  if (!w->factory_alive) {
    int decoy = decoy_before(w, st, 1);
    int made = nc_create_factory(w->c, &w->f) == 0;
    decoy_after(w, decoy, NC_RULE_DEV_02, "factory creation");
    if (!made)
      return;
    w->factory_alive = 1;
  }
  nve_ext_table_t t = {0};
  int decoy = decoy_before(w, st, 2);
  const nc_config *cfg = w->c->cfg;
  int config = st->config <= cfg->more_count && !(w->toggles & NC_XT_ONE_CONFIG) ? st->config : 0;
  nve_status_t s = nc_call_produce(&w->f, ++w->next_id,
                                   config ? cfg->more_tables[config - 1] : cfg->table_config, &t);
  decoy_after(w, decoy, NC_RULE_DEV_03, "produce");
  if (s != NVE_SUCCESS ||
      !nc_handle_usable(t.self, t.ops, sizeof(nve_ext_table_ops_t), NC_TABLE_OPS_FNS) ||
      open_slot(w, i, &t, config) != 0)
    w->stats.refused_produce++;
}

static void lifecycle(world *w, const nc_x_step *st)
{
  switch (st->action) {
  case NC_X_PRODUCE: produce(w, st); break;
  case NC_X_DESTROY:
    if ((w->toggles & NC_XT_KEEP_TABLES) && w->s[st->slot].alive &&
        w->nkept < NC_X_SLOTS * 4) {
      w->kept[w->nkept++] = w->s[st->slot];
      w->s[st->slot].alive = 0;
    } else {
      close_slot(&w->s[st->slot]);
    }
    break;
  case NC_X_DROP_FACTORY:
    if (w->factory_alive && !(w->toggles & NC_XT_KEEP_FACTORY)) {
      int decoy = decoy_before(w, st, 3);
      nc_call_factory_destroy(&w->f);
      decoy_after(w, decoy, NC_RULE_DEV_04, "factory destroy");
      w->factory_alive = 0;
    }
    break;
  default: break;
  }
}

static int world_open(world *w)
{
  if (nc_create_factory(w->c, &w->f) != 0)
    return -1;
  w->factory_alive = 1;
  nve_ext_table_t t;
  if (nc_produce_table(w->c, &w->f, &t) != 0 || open_slot(w, 0, &t, 0) != 0) {
    nc_call_factory_destroy(&w->f);
    return -1;
  }
  w->next_id = 1;
  return 0;
}

static void world_close(world *w)
{
  for (int i = 0; i < NC_X_WORKERS; i++)
    worker_stop(&w->workers[i]);
  for (int i = 0; i < NC_X_SLOTS; i++)
    close_slot(&w->s[i]);
  for (int i = 0; i < w->nkept; i++)
    close_slot(&w->kept[i]);
  if (w->factory_alive)
    nc_call_factory_destroy(&w->f);
}

static void take_failure(const slot *sl, long at, nc_x_failure *fail)
{
  fail->at = at;
  snprintf(fail->why, sizeof(fail->why), "%s", sl->k.mismatch);
  fail->nowners = sl->k.nmismatch_owners;
  memcpy(fail->owners, sl->k.mismatch_owners, sizeof(fail->owners));
}

static void count_call(world *w, const slot *sl, const nc_x_step *st, int64_t failed_before)
{
  /* Calls a table may refuse are not counted: another dtype, a short write. */
  if (st->n <= 0 || st->action > NC_X_ERASE ||
      (st->action == NC_X_ACCUMULATE && !table_dtype(sl, st)) ||
      ((st->action == NC_X_INSERT || st->action == NC_X_UPDATE) && st->size))
    return;
  w->calls[st->action]++;
  if (sl->k.failed_ops > failed_before && !w->failed[st->action]++) {
    size_t len = strnlen(sl->k.first_failed, sizeof(w->first_failed[0]) - 1);
    memcpy(w->first_failed[st->action], sl->k.first_failed, len);
    w->first_failed[st->action][len] = '\0';
  }
}

/* An action every call of which failed for valid arguments. */
static int never_succeeds(const world *w, nc_x_failure *fail)
{
  for (int a = 0; a <= NC_X_ERASE; a++)
    if (w->calls[a] >= NEVER_CALLS && w->failed[a] == w->calls[a]) {
      snprintf(fail->why, sizeof(fail->why),
               "every one of %lld %s calls returned a failure for valid arguments (the first: "
               "%s)", (long long)w->calls[a], nc_x_action_names[a], w->first_failed[a]);
      fail->owners[0] = nc_op_owner(nc_x_action_names[a]);
      fail->nowners = 1;
      return 1;
    }
  return 0;
}

/* Most ops failing for valid arguments, or every call of one action,
 * would make the sequence say nothing: that is a failure of its own. */
static void judge_failed_ops(world *w, size_t count, nc_x_failure *fail)
{
  if (never_succeeds(w, fail)) {
    fail->at = (long)count - 1;
    fail->counted = 1;
    return;
  }
  int64_t failed = 0;
  const char *first = NULL;
  for (int i = 0; i < NC_X_SLOTS; i++)
    if (w->s[i].alive && w->s[i].k.failed_ops) {
      failed += w->s[i].k.failed_ops;
      first = first ? first : w->s[i].k.first_failed;
    }
  if (count < 20 || failed * 2 <= (int64_t)count || !first)
    return;
  snprintf(fail->why, sizeof(fail->why),
           "%lld of %zu ops returned a failure for valid arguments (the first: %s)",
           (long long)failed, count, first);
  fail->owners[0] = nc_op_owner(first);
  fail->nowners = 1;
  fail->at = (long)count - 1;
  fail->counted = 1;
}

/* Seconds the step may take without being a hang (trace.h's beat). */
static double step_allowance(const world *w, const nc_x_step *st)
{
  double bytes = 0;
  for (int i = 0; i < NC_X_SLOTS; i++)
    if (w->s[i].alive)
      bytes += (double)(nc_oracle_entries(w->s[i].k.o) + (size_t)(i == st->slot ? st->n : 0)) *
               (double)(w->s[i].k.row + 8);
  return bytes / SLOW_BYTES_PER_S;
}

/* LIF-03's view of the sequence: what the plugin allocated in it and still
 * holds, everything destroyed and joined. */
static void judge_leaks(size_t count, nc_x_failure *fail)
{
  nc_alloc_stats st;
  nc_alloc_get_stats(&st);
  if (st.live <= 0)
    return;
  snprintf(fail->why, sizeof(fail->why),
           "%ld of the %ld blocks the plugin allocated (%ld bytes) still allocated after the "
           "tables and the factory were destroyed and the sequence's threads joined",
           st.live, st.allocations, st.live_bytes);
  fail->owners[0] = NC_RULE_LIF_03;
  fail->nowners = 1;
  fail->at = count ? (long)count - 1 : 0;
}

/* The toggles a replay acts under (those that imply others added). */
static unsigned acted(unsigned toggles)
{
  if (toggles & NC_XT_LEAKS)
    toggles |= NC_XT_PLAIN_CALLS;
  if (toggles & NC_XT_PLAIN_CALLS)
    toggles |= NC_XT_OUTPUTS | NC_XT_NO_MASK | NC_XT_PLAIN_STRIDE | NC_XT_WHOLE_ROWS;
  return toggles;
}

/* Whether a replay under toggles skips st (it is not run at all). */
static int skipped(const nc_x_step *st, unsigned toggles, int alone_slot)
{
  return ((toggles & NC_XT_ALONE) && st->action != NC_X_DROP_FACTORY && st->slot != alone_slot) ||
         ((toggles & NC_XT_PLAIN_CALLS) && st->n == 0 && st->action <= NC_X_ERASE);
}

int nc_x_bakeable(unsigned toggles) { return !(toggles & (NC_XT_KEEP_TABLES | NC_XT_LEAKS)); }

long nc_x_bake(const nc_x_step *in, size_t n, unsigned toggles, int alone_slot, nc_x_step *out)
{
  if (!nc_x_bakeable(toggles))
    return -1;
  toggles = acted(toggles);
  long k = 0;
  for (size_t i = 0; i < n; i++) {
    nc_x_step s = in[i];
    if (skipped(&s, toggles, alone_slot) ||
        ((toggles & NC_XT_KEEP_FACTORY) && s.action == NC_X_DROP_FACTORY))
      continue;
    s.thread = toggles & NC_XT_MAIN_THREAD ? 0 : s.thread;
    s.nulls = toggles & NC_XT_OUTPUTS ? 0 : s.nulls;
    s.resolved_every = toggles & NC_XT_NO_MASK ? 0 : s.resolved_every;
    s.stride_pad = toggles & NC_XT_PLAIN_STRIDE ? 0 : s.stride_pad;
    if ((toggles & NC_XT_WHOLE_ROWS) && (s.action == NC_X_INSERT || s.action == NC_X_UPDATE))
      s.size = 0;
    s.config = toggles & NC_XT_ONE_CONFIG ? 0 : s.config;
    out[k++] = s;
  }
  return k;
}

int nc_x_replay(nc_case *c, const nc_x_seq *q, const nc_x_step *steps, size_t count,
                unsigned toggles, int alone_slot, nc_x_failure *fail, nc_x_replay_stats *stats)
{
  toggles = acted(toggles);
  world w = {.c = c, .q = q, .toggles = toggles, .alone_slot = alone_slot, .fail = fail};
  w.device = nc_cuda_loaded() ? nc_cuda_get_device() : -1;
  fail->at = (long)count;
  fail->why[0] = '\0';
  fail->nowners = 0;
  fail->counted = 0;
  fail->direct = 0;
  fail->expected = NULL;
  int leaks = (toggles & NC_XT_LEAKS) != 0;
  double beat_at = -1, beat_allowance = 0, start = nc_now();
  if (leaks)
    nc_alloc_reset();
  if (world_open(&w) != 0) {
    nc_x_history_broken();
    return -1;
  }
  for (size_t i = 0; i < count && fail->at == (long)count; i++) {
    const nc_x_step *st = &steps[i];
    /* Progress, with the time the step may take (the runner judges the
     * silence after it by that): at most ten beats a second, unless the
     * tables grew to need a longer announcement, so that a long replay
     * does not fill the channel. */
    double allowance = step_allowance(&w, st), now = nc_now();
    if (now - beat_at >= BEAT_EVERY_S || allowance > 1.5 * beat_allowance) {
      nc_trace_beat(allowance);
      beat_at = now;
      beat_allowance = allowance;
    }
    if (skipped(st, toggles, alone_slot))
      continue;
    if (st->action >= NC_X_PRODUCE) {
      w.at = (long)i;
      lifecycle(&w, st);
      continue;
    }
    slot *sl = &w.s[st->slot];
    if (!sl->alive)
      continue;
    int64_t failed_before = sl->k.failed_ops;
    w.at = (long)i;
    run_table_op(&w, sl, st);
    w.stats.keys += st->n;
    count_call(&w, sl, st, failed_before);
    if (sl->k.mismatches && !leaks)
      take_failure(sl, (long)i, fail);
  }
  if (fail->at == (long)count && !leaks)
    judge_failed_ops(&w, count, fail);
  world_close(&w);
  if (leaks)
    judge_leaks(count, fail);
  /* A disagreement ends the replay at its step; a count or a leak is
   * judged after the last. */
  int failed = fail->at < (long)count;
  nc_x_history_record(c, q, steps, failed ? (size_t)fail->at + 1 : count, toggles, alone_slot,
                      nc_now() - start, failed);
  if (stats)
    *stats = w.stats;
  return 0;
}
