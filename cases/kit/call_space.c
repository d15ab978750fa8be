/* SPDX-License-Identifier: Apache-2.0 */
#include "call_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "dtype.h"
#include "evidence.h"
#include "splitmix.h"
#include "threads.h"
#include "trace.h"
#include "violations.h"

const int64_t nc_space_batches[NC_SPACE_BATCHES] = {0,   1,    5,    63,   64,   65,   127,
                                                    128, 129,  1023, 1024, 1025, 4096, 4133};

static const char *const stride_names[NC_STRIDES] = {"the row", "row + 13", "2 x row + 8"};
static const char *const key_names[NC_KEY_CLASSES] = {"spread over the full width", "edges",
                                                      "each twice", "half already stored"};
static const char *const depth_names[NC_DEPTHS] = {"empty", "shallow", "deep",
                                                   "after erase and clear"};
static const char *const thread_names[NC_THREADS] = {"the caller's", "another thread",
                                                     "several at once"};
static const char *const find_names[NC_FIND_OUTPUTS] = {
    "every output", "NULL hit_mask", "NULL values", "NULL value_sizes", "some keys resolved"};
static const char *const dim_names[NC_DIMS] = {
    "batch",  "stride",       "keys",         "depth",         "failing",
    "thread", "find outputs", "update dtype", "lookup counter"};

static int dim_classes(nc_space_dim d)
{
  static const int counts[NC_DIMS] = {NC_SPACE_BATCHES, NC_STRIDES,  NC_KEY_CLASSES,
                                      NC_DEPTHS,        NC_SPACE_BATCHES, NC_THREADS,
                                      NC_FIND_OUTPUTS,  NC_SPACE_DTYPES, 1};
  return counts[d];
}

/* A class's name: the batch size for the batch dimensions. */
static const char *class_name(nc_space_dim d, int i, char *buf, size_t len)
{
  switch (d) {
  case NC_DIM_BATCH:
  case NC_DIM_FAILING: snprintf(buf, len, "%lld", (long long)nc_space_batches[i]); return buf;
  case NC_DIM_STRIDE: return stride_names[i];
  case NC_DIM_KEYS: return key_names[i];
  case NC_DIM_DEPTH: return depth_names[i];
  case NC_DIM_THREAD: return thread_names[i];
  case NC_DIM_FIND: return find_names[i];
  case NC_DIM_DTYPE: return nc_dtype_name((nve_data_type_t)(i + 1));
  case NC_DIM_COUNTER: return "after the read-back find";
  default: return "?";
  }
}

/* Live keys a deep table holds: thousands, fewer for wide rows, so that
 * its rows stay within a bound (the model keeps a copy of each). */
#define DEEP_KEYS 4096
#define DEEP_BYTES (32 << 20)
/* Keys a shallow table holds. */
#define SHALLOW_KEYS 64
/* A round that moves more row bytes than this runs at one depth only (each
 * depth still meets such a batch): wide rows cost no more than narrow. */
#define ROUND_BYTES (2 << 20)

const char *nc_space_op_name(nc_space_op op)
{
  return op >= 0 && op < NC_SPACE_OPS ? nc_swept_ops[op].name : "?";
}

/* Which class of each dimension round r uses: every class of each comes
 * up within the rounds, in different company. */
static nc_space_keys keys_of(int r) { return (nc_space_keys)(r % NC_KEY_CLASSES); }
static nc_space_stride stride_of(int r) { return (nc_space_stride)((r + r / 4) % NC_STRIDES); }
static nc_space_thread thread_of(int r) { return r % 3 == 1 ? NC_THREAD_OTHER : NC_THREAD_CALLER; }
static nc_space_find find_of(int r) { return (nc_space_find)((r + r / 5) % NC_FIND_OUTPUTS); }

/* A key of the table's width: 4-byte keys are signed 32-bit values. */
static int64_t narrow(const nc_tk *k, int64_t v)
{
  return k->caps.key_size == 4 ? (int64_t)(int32_t)v : v;
}

static int64_t invalid_key(const nc_tk *k) { return narrow(k, k->caps.invalid_key); }

/* A key spread over the full width, never the invalid key. */
static int64_t spread_key(const nc_tk *k, uint64_t *s)
{
  int64_t v;
  do
    v = narrow(k, (int64_t)nc_splitmix(s));
  while (v == invalid_key(k));
  return v;
}

/* n keys of class kc (the edges first, then spread keys). */
static void make_keys(const nc_tk *k, nc_space_keys kc, int64_t *keys, int64_t n, uint64_t *s)
{
  int64_t i = 0;
  if (kc == NC_KEYS_EDGES) {
    int64_t lo = k->caps.key_size == 4 ? INT32_MIN : INT64_MIN;
    int64_t hi = k->caps.key_size == 4 ? INT32_MAX : INT64_MAX;
    int64_t inv = invalid_key(k);
    const int64_t edges[] = {0, 1, -1, lo, hi, inv == lo ? hi - 1 : inv - 1,
                             inv == hi ? lo + 1 : inv + 1};
    for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]) && i < n; e++) {
      int64_t v = narrow(k, edges[e]);
      int dup = v == inv;
      for (int64_t j = 0; j < i && !dup; j++)
        dup = keys[j] == v;
      if (!dup)
        keys[i++] = v;
    }
  }
  for (; i < n; i++)
    keys[i] = spread_key(k, s);
  if (kc == NC_KEYS_DUPLICATES) /* each key twice: 0 0 1 1 2 2 ... */
    for (int64_t j = n - 1; j >= 0; j--)
      keys[j] = keys[j / 2];
}

static int64_t stride_bytes(const nc_tk *k, nc_space_stride sc)
{
  int64_t row = k->stride;
  return sc == NC_STRIDE_ODD_GAP ? row + 13 : sc == NC_STRIDE_WIDE ? 2 * row + 8 : row;
}

/* A table for a round: fresh (empty or shallow), or the sweep's deep one. */
typedef struct round_table {
  nve_ext_table_t t;
  nc_tk k;
  int open;
} round_table;

static int table_open(nc_case *c, const nve_ext_table_factory_t *f, round_table *rt)
{
  memset(rt, 0, sizeof(*rt));
  if (nc_produce_table(c, f, &rt->t) != 0)
    return -1;
  if (nc_tk_init(&rt->k, c, &rt->t) != 0) {
    nc_call_table_destroy(&rt->t);
    return -1;
  }
  rt->open = 1;
  return 0;
}

static void table_close(round_table *rt)
{
  if (!rt->open)
    return;
  nc_tk_done(&rt->k);
  nc_call_table_destroy(&rt->t);
  rt->open = 0;
}

/* Stores count other keys, in batches the rows allow. */
static int64_t fill(nc_tk *k, int64_t count, uint64_t *s, nc_space_coverage *cov)
{
  int64_t batch = nc_tk_batch(k, 1024), stored = 0;
  int64_t *keys = malloc((size_t)batch * sizeof(int64_t));
  for (int64_t done = 0; keys && done < count; done += batch) {
    int64_t n = count - done < batch ? count - done : batch;
    for (int64_t i = 0; i < n; i++)
      keys[i] = spread_key(k, s);
    if (nc_tk_insert(k, n, keys, 0, 900 + (uint64_t)done, 0) != NVE_SUCCESS)
      break;
    stored += n;
    cov->calls++;
  }
  free(keys);
  return stored;
}

/* Whether op has a call a table may refuse at every batch size: an insert,
 * update or accumulate whose size is past max_row_size. Host tables only
 * (the buffers are plain host memory). */
static int failing_possible(const nc_tk *k, nc_space_op op)
{
  return op != NC_SPACE_ERASE && k->caps.location == NVE_BUFFER_LOCATION_HOST &&
         k->caps.max_row_size <= NC_TK_ROW_MAX;
}

/* Why not, for the coverage. */
static void failing_impossible_why(const nc_tk *k, char *out, size_t len)
{
  if (k->caps.location != NVE_BUFFER_LOCATION_HOST)
    snprintf(out, len, "host tables only (the oversized rows are host memory)");
  else
    snprintf(out, len, "max_row_size is %lld bytes: a row past it does not fit the harness's "
             "buffers (%d MiB)", (long long)k->caps.max_row_size, NC_TK_ROW_MAX >> 20);
}

/* That call; a refusal must leave a message on this thread (ERR-02's, at
 * any batch size: a large call may fail on another path than a small one). */
static void failing_call(nc_tk *k, nc_space_op op, const int64_t *keys, int64_t n,
                         nc_space_coverage *cov, int b)
{
  if (!failing_possible(k, op))
    return;
  int64_t size = k->caps.max_row_size + 1;
  int64_t width = nc_dtype_width(k->caps.dtype);
  if (op == NC_SPACE_ACCUMULATE) /* a whole number of elements, past the row */
    size = width > 0 ? (k->caps.max_row_size / width + 1) * width : size;
  int64_t stride = size + 7;
  unsigned char *raw = malloc((size_t)(n > 0 ? n : 1) * 8);
  unsigned char *rows = calloc((size_t)(n > 0 ? n : 1), (size_t)stride);
  if (!raw || !rows) {
    free(raw);
    free(rows);
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t v = keys[i];
    memcpy(raw + i * k->caps.key_size, &v, (size_t)k->caps.key_size);
  }
  nve_status_t s;
  switch (op) {
  case NC_SPACE_UPDATE: s = nc_call_update(&k->t, n, raw, stride, size, rows); break;
  case NC_SPACE_ACCUMULATE:
    s = nc_call_update_accumulate(&k->t, n, raw, stride, size, rows, k->caps.dtype);
    break;
  default: s = nc_call_insert(&k->t, n, raw, stride, size, rows); break;
  }
  cov->calls++;
  cov->ran[NC_DIM_FAILING][b] = 1;
  char call[160], msg[256] = "";
  snprintf(call, sizeof(call), "%s (n=%lld, stride=%lld, size=%lld: past max_row_size)",
           nc_space_op_name(op), (long long)n, (long long)stride, (long long)size);
  if (s != NVE_SUCCESS) {
    long len = nc_read_plugin_string(nc_call_table_last_error(&k->t), msg, sizeof(msg));
    /* ERR-02's alone, whichever case made the call (-2, a message longer
     * than the bound, is for ERR-02's own case to judge). */
    if (len == 0 || len == -1)
      nc_violation_recordf(NC_RULE_ERR_02, "%s returned status %d and %s", call, (int)s,
                           len < 0 ? "an unreadable last_error" : "an empty last_error");
  }
  /* Refused or taken, those keys' rows are unknown now. */
  nc_oracle_forget(k->o, n, keys);
  free(raw);
  free(rows);
}

/* One round: the op on n keys of class kc at stride sc, on a table at its
 * depth, then a find of the same keys at the same stride with outputs fc. */
typedef struct round {
  nc_tk *k;
  nc_space_op op;
  const int64_t *keys;
  int64_t n, stride;
  nc_space_keys kc;
  nc_space_find fc;
  uint64_t tag;
  int64_t calls;       /* made */
  int counter_checked; /* the lookup counter was checked (plain finds; it answered) */
} round;

/* The counter around a plain read-back find: reset, find, read. It must
 * say the hits the find returned (host tables) or its misses (device
 * tables), in any batch, at any depth. A reset or read that fails is
 * TBL-09's own case to judge; a wrong count is TBL-09's, whichever case saw
 * it. Returns the find's hits, or -1. */
static int64_t counted_find(round *r, const nc_find_opts *o)
{
  nc_tk *k = r->k;
  if (nc_call_reset_lookup_counter(&k->t) != NVE_SUCCESS)
    return nc_tk_find(k, r->n, r->keys, o, NULL);
  int64_t before = k->mismatches, got = -1;
  int64_t hits = nc_tk_find(k, r->n, r->keys, o, NULL);
  r->calls += 2;
  if (hits < 0 || k->mismatches != before ||
      nc_call_get_lookup_counter(&k->t, &got) != NVE_SUCCESS)
    return hits; /* wrong answers are the find's rule's */
  r->counter_checked = 1;
  int64_t want = k->caps.counter_hits ? hits : r->n - hits;
  if (got != want)
    nc_fail_proven(k->c, NC_RULE_TBL_09, "get_lookup_counter",
                   "the counter as the contract defines it",
                   "%lld after a reset and a find of %lld keys with %lld hits; expected %lld",
                   (long long)got, (long long)r->n, (long long)hits, (long long)want);
  return hits;
}

static void read_back(round *r)
{
  nc_find_opts o = {.stride = r->stride};
  uint64_t *resolved = NULL;
  switch (r->fc) {
  case NC_FIND_NO_MASK: o.null_mask = 1; break;
  case NC_FIND_NO_VALUES: o.null_values = 1; break;
  case NC_FIND_NO_SIZES: o.null_sizes = 1; break;
  case NC_FIND_RESOLVED: /* every third key, as if a faster tier had it */
    resolved = calloc((size_t)(r->n + 63) / 64 + 1, sizeof(uint64_t));
    for (int64_t i = 0; resolved && i < r->n; i += 3)
      resolved[i / 64] |= 1ull << (i % 64);
    o.resolved = resolved;
    break;
  default: break;
  }
  if (r->fc == NC_FIND_ALL)
    counted_find(r, &o);
  else
    nc_tk_find(r->k, r->n, r->keys, &o, NULL);
  free(resolved);
  r->calls++;
}

static void run_round(round *r)
{
  nc_tk *k = r->k;
  int64_t n = r->n;
  /* What is stored before the op: half the keys, or (for the ops that
   * change existing keys) all of them. */
  if (r->kc == NC_KEYS_HALF_STORED || r->op != NC_SPACE_INSERT) {
    int64_t *some = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t)), m = 0;
    for (int64_t i = 0; some && i < n; i++)
      if (r->kc != NC_KEYS_HALF_STORED || i % 2 == 0)
        some[m++] = r->keys[i];
    /* Read back before the op: a row already wrong is the insert's
     * (TBL-02's), not the op's that would come next. */
    nc_find_opts before = {.stride = r->stride};
    if (some && nc_tk_insert(k, m, some, 0, r->tag + 1, 0) == NVE_SUCCESS &&
        nc_tk_find(k, m, some, &before, NULL) >= 0)
      r->calls += 2;
    free(some);
  }
  switch (r->op) {
  case NC_SPACE_INSERT: nc_tk_insert(k, n, r->keys, r->stride, r->tag, 0); break;
  case NC_SPACE_UPDATE: nc_tk_update(k, n, r->keys, r->stride, r->tag, 0); break;
  case NC_SPACE_ACCUMULATE: {
    int64_t size = nc_tk_update_size(k, k->caps.dtype, 0);
    nc_tk_accumulate_strided(k, n, r->keys, k->caps.dtype, size, size + (r->stride - k->stride),
                             r->tag, 0);
    break;
  }
  case NC_SPACE_ERASE: nc_tk_erase(k, n, r->keys, 0); break;
  default: break;
  }
  r->calls++;
  read_back(r);
}

static void *round_thread(void *arg)
{
  run_round(arg);
  return NULL;
}

/* The round on another thread, started for it and joined: a table must not
 * depend on the thread that made it or made its last call. 0, or -1 when no
 * thread could be started (the round did not run). */
static int run_round_elsewhere(round *r)
{
  pthread_t th;
  if (nc_thread_create(&th, round_thread, r) != 0)
    return -1;
  pthread_join(th, NULL);
  return 0;
}

void nc_space_sweep(nc_tk *k0, const nve_ext_table_factory_t *f, nc_space_op op,
                    nc_space_coverage *cov)
{
  memset(cov, 0, sizeof(*cov));
  nc_case *c = k0->c;
  cov->cap = nc_tk_batch(k0, nc_space_batches[NC_SPACE_BATCHES - 1]);
  cov->row = k0->stride;
  cov->failing_possible = failing_possible(k0, op);
  if (!cov->failing_possible)
    failing_impossible_why(k0, cov->failing_why, sizeof(cov->failing_why));
  if (op == NC_SPACE_ACCUMULATE && !nc_tk_update_size(k0, k0->caps.dtype, 0)) {
    snprintf(cov->whole_op, sizeof(cov->whole_op), "no update_size is a multiple of the table's "
             "%s element and fits its %lld-byte row",
             nc_dtype_name(k0->caps.dtype), (long long)k0->row);
    return;
  }
  int64_t *keys = malloc((size_t)(cov->cap > 0 ? cov->cap : 1) * sizeof(int64_t));
  uint64_t s = c->cfg->seed ^ (0x5ace0000ull + (uint64_t)op);
  round_table deep;
  memset(&deep, 0, sizeof(deep));
  int64_t deep_target = DEEP_BYTES / (k0->row > 0 ? k0->row : 1);
  deep_target = deep_target > DEEP_KEYS ? DEEP_KEYS : deep_target < 64 ? 64 : deep_target;
  int64_t last_n = 0; /* keys of the last round, still in keys */
  int cleared = 0;
  /* Every batch class at every depth; keys and strides vary by round. */
  for (int d = 0; keys && d < NC_DEPTHS; d++)
    for (int b = 0; b < NC_SPACE_BATCHES; b++) {
      int r = d * NC_SPACE_BATCHES + b;
      int64_t n = nc_space_batches[b];
      if (n > cov->cap)
        continue;
      if (n == 0)
        continue; /* TBL-10's class: its case makes every op with n == 0 */
      if (n * k0->row > ROUND_BYTES && b % NC_DEPTHS != d) {
        cov->thinned = 1;
        continue;
      }
      nc_trace_beat(0);
      round_table fresh, *rt = &fresh;
      if (d == NC_DEPTH_DEEP) {
        rt = &deep;
        if (!deep.open && table_open(c, f, &deep) == 0)
          cov->deep_keys = fill(&deep.k, deep_target, &s, cov);
      } else if (d == NC_DEPTH_CLEARED) {
        rt = &deep;
        if (deep.open && !cleared) { /* the last round's keys erased, then everything */
          nc_tk_erase(&deep.k, last_n, keys, 0);
          nc_tk_clear(&deep.k, 0);
          cov->calls += 2;
          cleared = 1;
        }
      } else if (table_open(c, f, &fresh) == 0 && d == NC_DEPTH_SHALLOW) {
        fill(&fresh.k, SHALLOW_KEYS, &s, cov);
      }
      if (!rt->open)
        break; /* the table could not be made: recorded */
      nc_space_keys kc = keys_of(r);
      nc_space_stride sc = stride_of(r);
      nc_space_thread tc = thread_of(r);
      int64_t stride = stride_bytes(&rt->k, sc);
      if ((size_t)n * (size_t)stride > NC_TK_BUFFER_BYTES) { /* too wide for a buffer */
        sc = NC_STRIDE_ROW;
        stride = rt->k.stride;
      }
      make_keys(&rt->k, kc, keys, n, &s);
      round rd = {&rt->k, op, keys, n, stride, kc, find_of(r), 1000 + (uint64_t)r * 10, 0, 0};
      if (tc != NC_THREAD_OTHER || run_round_elsewhere(&rd) != 0) {
        tc = NC_THREAD_CALLER;
        run_round(&rd);
      }
      cov->calls += rd.calls;
      if (!cov->ran[NC_DIM_FAILING][b]) {
        make_keys(&rt->k, NC_KEYS_SPREAD, keys, n, &s);
        failing_call(&rt->k, op, keys, n, cov, b);
      }
      cov->ran[NC_DIM_BATCH][b] = cov->ran[NC_DIM_STRIDE][sc] = cov->ran[NC_DIM_KEYS][kc] = 1;
      cov->ran[NC_DIM_DEPTH][d] = cov->ran[NC_DIM_THREAD][tc] = cov->ran[NC_DIM_FIND][rd.fc] = 1;
      cov->ran[NC_DIM_COUNTER][0] |= (unsigned char)rd.counter_checked;
      last_n = n;
      if (op == NC_SPACE_ACCUMULATE && k0->caps.dtype >= 1 && k0->caps.dtype <= NC_SPACE_DTYPES)
        cov->ran[NC_DIM_DTYPE][k0->caps.dtype - 1] = 1;
      if (rt == &fresh)
        table_close(&fresh);
    }
  table_close(&deep);
  free(keys);
}

/* How class i of dimension d was covered: "ran", or "elsewhere" with the
 * rule whose case makes such calls (*by), or "not run"; why it did not
 * run here goes to out. */
static const char *state_of(const nc_space_coverage *cov, nc_space_dim d, int i,
                            const char **by, char *out, size_t len)
{
  out[0] = '\0';
  *by = "";
  if (cov->ran[d][i])
    return "ran";
  int batch = d == NC_DIM_BATCH || d == NC_DIM_FAILING;
  if (cov->whole_op[0]) {
    snprintf(out, len, "%s", cov->whole_op);
  } else if (d == NC_DIM_FAILING && !cov->failing_possible) {
    snprintf(out, len, "%s", cov->failing_why);
  } else if (batch && nc_space_batches[i] == 0) {
    snprintf(out, len, "the case of n == 0 makes every op with it");
    *by = nc_rule_defs[NC_RULE_TBL_10].info.id;
    return "elsewhere";
  } else if (batch && nc_space_batches[i] > cov->cap) {
    snprintf(out, len, "rows of %lld bytes allow at most %lld keys per call", (long long)cov->row,
             (long long)cov->cap);
  } else if (d == NC_DIM_DTYPE && nc_dtype_width((nve_data_type_t)(i + 1)) > cov->row) {
    snprintf(out, len, "its %d-byte element is wider than the %lld-byte row",
             nc_dtype_width((nve_data_type_t)(i + 1)), (long long)cov->row);
  } else if (d == NC_DIM_DTYPE) {
    snprintf(out, len, "the accumulate case tries every dtype into the table's rows");
    *by = nc_rule_defs[NC_RULE_TBL_07].info.id;
    return "elsewhere";
  } else if (d == NC_DIM_COUNTER) {
    snprintf(out, len, "the table's counter did not answer (its case judges that)");
    *by = nc_rule_defs[NC_RULE_TBL_09].info.id;
    return "elsewhere";
  } else if (d == NC_DIM_THREAD && i == NC_THREAD_SEVERAL) {
    snprintf(out, len, "concurrent finds, each thread with its own context (the contract lets "
             "a table serialize modifying calls)");
    *by = nc_rule_defs[NC_RULE_TBL_12].info.id;
    return "elsewhere";
  } else {
    snprintf(out, len, "did not come up: the sweep ended early (a table could not be made)");
  }
  return "not run";
}

void nc_space_report(nc_case *c, nc_space_op op, const nc_space_coverage *cov)
{
  char summary[400];
  size_t at = 0;
  for (int d = 0; d < NC_DIMS && at < sizeof(summary); d++) {
    if ((d == NC_DIM_FAILING && op == NC_SPACE_ERASE) ||
        (d == NC_DIM_DTYPE && op != NC_SPACE_ACCUMULATE))
      continue; /* erase has no argument a table may refuse; only accumulate a dtype */
    int ran = 0;
    /* A refused call of n == 0 is no class: an empty call is valid. */
    for (int i = d == NC_DIM_FAILING; i < dim_classes((nc_space_dim)d); i++) {
      ran += cov->ran[d][i];
      char name[32], why[200];
      const char *by, *state = state_of(cov, (nc_space_dim)d, i, &by, why, sizeof(why));
      const char *f[] = {nc_space_op_name(op), dim_names[d],
                         class_name((nc_space_dim)d, i, name, sizeof(name)), state, why, by};
      nc_trace_record(NC_TAG_COVER, 6, f);
    }
    int w = snprintf(summary + at, sizeof(summary) - at, "%s%s %d/%d", at ? ", " : "",
                     dim_names[d], ran, dim_classes((nc_space_dim)d) - (d == NC_DIM_FAILING));
    at += w > 0 ? (size_t)w : 0;
  }
  char call[64];
  snprintf(call, sizeof(call), "call space of %s", nc_space_op_name(op));
  nc_note(c, call, "every class of every dimension",
          "%lld calls; classes run: %s (deep: %lld live keys)%s", (long long)cov->calls, summary,
          (long long)cov->deep_keys, cov->thinned ? "; batches of more than 2 MiB of rows at "
          "one depth each" : "");
  if (cov->whole_op[0])
    nc_note(c, call, "the op can be called", "%s", cov->whole_op);
}
