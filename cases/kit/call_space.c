/* SPDX-License-Identifier: Apache-2.0 */
#include "call_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "dtype.h"
#include "trace.h"
#include "violations.h"

const int64_t nc_space_batches[NC_SPACE_BATCHES] = {0,   1,    5,    63,   64,   65,   127,
                                                    128, 129,  1023, 1024, 1025, 4096, 4133};

static const char *const stride_names[NC_STRIDES] = {"the row", "row + 13", "2 x row + 8"};
static const char *const key_names[NC_KEY_CLASSES] = {"spread over the full width", "edges",
                                                      "each twice", "half already stored"};
static const char *const depth_names[NC_DEPTHS] = {"empty", "shallow", "deep"};

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
  static const char *const names[NC_SPACE_OPS] = {"insert", "update", "update_accumulate",
                                                  "erase"};
  return op >= 0 && op < NC_SPACE_OPS ? names[op] : "?";
}

/* Which class of each dimension round r uses: every class of each comes
 * up within the rounds, in different company. */
static nc_space_keys keys_of(int r) { return (nc_space_keys)(r % NC_KEY_CLASSES); }
static nc_space_stride stride_of(int r) { return (nc_space_stride)((r + r / 4) % NC_STRIDES); }

static uint64_t mix(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

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
    v = narrow(k, (int64_t)mix(s));
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

/* An insert or update whose value_size is past max_row_size, which a table
 * may refuse; a refusal must leave a message on this thread (ERR-02's, at
 * any batch size: a large call may fail on another path than a small one).
 * Host tables only (the buffers are plain host memory). */
static void failing_call(nc_tk *k, nc_space_op op, const int64_t *keys, int64_t n,
                         nc_space_coverage *cov, int b)
{
  if (k->caps.location != NVE_BUFFER_LOCATION_HOST)
    return;
  int64_t size = k->caps.max_row_size + 1, stride = size + 7;
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
  nve_status_t s = op == NC_SPACE_UPDATE
                       ? nc_call_update(&k->t, n, raw, stride, size, rows)
                       : nc_call_insert(&k->t, n, raw, stride, size, rows);
  cov->calls++;
  cov->failing[b] = 1;
  char call[160], msg[256] = "";
  snprintf(call, sizeof(call), "%s (n=%lld, value_stride=%lld, value_size=%lld: past max_row_size)",
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
 * depth, then a find of the same keys at the same stride. */
static void run_round(nc_tk *k, nc_space_op op, const int64_t *keys, int64_t n, nc_space_keys kc,
                      int64_t stride, uint64_t tag, nc_space_coverage *cov)
{
  /* What is stored before the op: half the keys, or (for the ops that
   * change existing keys) all of them. */
  if (kc == NC_KEYS_HALF_STORED || op != NC_SPACE_INSERT) {
    int64_t *some = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t)), m = 0;
    for (int64_t i = 0; some && i < n; i++)
      if (kc != NC_KEYS_HALF_STORED || i % 2 == 0)
        some[m++] = keys[i];
    /* Read back before the op: a row already wrong is the insert's
     * (TBL-02's), not the op's that would come next. */
    nc_find_opts before = {.stride = stride};
    if (some && nc_tk_insert(k, m, some, 0, tag + 1, 0) == NVE_SUCCESS &&
        nc_tk_find(k, m, some, &before, NULL) >= 0)
      cov->calls += 2;
    free(some);
  }
  switch (op) {
  case NC_SPACE_INSERT: nc_tk_insert(k, n, keys, stride, tag, 0); break;
  case NC_SPACE_UPDATE: nc_tk_update(k, n, keys, stride, tag, 0); break;
  case NC_SPACE_ACCUMULATE: {
    int64_t size = nc_tk_update_size(k, k->caps.dtype, 0);
    nc_tk_accumulate_strided(k, n, keys, k->caps.dtype, size, size + (stride - k->stride), tag,
                             0);
    break;
  }
  case NC_SPACE_ERASE: nc_tk_erase(k, n, keys, 0); break;
  default: break;
  }
  nc_find_opts o = {.stride = stride};
  nc_tk_find(k, n, keys, &o, NULL);
  cov->calls += 2;
}

void nc_space_sweep(nc_tk *k0, const nve_ext_table_factory_t *f, nc_space_op op,
                    nc_space_coverage *cov)
{
  memset(cov, 0, sizeof(*cov));
  nc_case *c = k0->c;
  cov->cap = nc_tk_batch(k0, nc_space_batches[NC_SPACE_BATCHES - 1]);
  if (op == NC_SPACE_ACCUMULATE && !nc_tk_update_size(k0, k0->caps.dtype, 0)) {
    snprintf(cov->skipped, sizeof(cov->skipped), "no update_size is a multiple of the table's "
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
  int skipped_batches = 0;
  /* Every batch class at every depth; keys and strides vary by round. */
  for (int d = 0; keys && d < NC_DEPTHS; d++)
    for (int b = 0; b < NC_SPACE_BATCHES; b++) {
      int r = d * NC_SPACE_BATCHES + b;
      int64_t n = nc_space_batches[b];
      if (n > cov->cap) {
        skipped_batches = 1;
        continue;
      }
      if (n == 0)
        continue; /* TBL-10's class: its case makes every op with n == 0 */
      if (n * k0->row > ROUND_BYTES && b % NC_DEPTHS != d) {
        cov->thinned = 1;
        continue;
      }
      nc_trace_record("BEAT", 0, NULL);
      round_table fresh, *rt = &fresh;
      if (d == NC_DEPTH_DEEP) {
        rt = &deep;
        if (!deep.open && table_open(c, f, &deep) == 0)
          cov->deep_keys = fill(&deep.k, deep_target, &s, cov);
      } else if (table_open(c, f, &fresh) == 0 && d == NC_DEPTH_SHALLOW) {
        fill(&fresh.k, SHALLOW_KEYS, &s, cov);
      }
      if (!rt->open)
        break; /* the table could not be made: recorded */
      nc_space_keys kc = keys_of(r);
      nc_space_stride sc = stride_of(r);
      int64_t stride = stride_bytes(&rt->k, sc);
      if ((size_t)n * (size_t)stride > NC_TK_BUFFER_BYTES) { /* too wide for a buffer */
        sc = NC_STRIDE_ROW;
        stride = rt->k.stride;
      }
      make_keys(&rt->k, kc, keys, n, &s);
      run_round(&rt->k, op, keys, n, kc, stride, 1000 + (uint64_t)r * 10, cov);
      if (!cov->failing[b] && (op == NC_SPACE_INSERT || op == NC_SPACE_UPDATE)) {
        make_keys(&rt->k, NC_KEYS_SPREAD, keys, n, &s);
        failing_call(&rt->k, op, keys, n, cov, b);
      }
      cov->batch[b] = cov->stride[sc] = cov->keys[kc] = cov->depth[d] = 1;
      if (rt == &fresh)
        table_close(&fresh);
    }
  table_close(&deep);
  free(keys);
  size_t at = (size_t)snprintf(cov->skipped, sizeof(cov->skipped),
                               "n = 0 (TBL-10's case makes every op with it)");
  if (skipped_batches && at < sizeof(cov->skipped))
    at += (size_t)snprintf(cov->skipped + at, sizeof(cov->skipped) - at,
                           "; batches above %lld keys (the most that rows of %lld bytes allow "
                           "per call)", (long long)cov->cap, (long long)k0->stride);
  if (cov->thinned && at < sizeof(cov->skipped))
    snprintf(cov->skipped + at, sizeof(cov->skipped) - at,
             "; batches of more than 2 MiB of rows at one depth each");
}

static void list_classes(char *out, size_t len, const unsigned char *ran, int count,
                         const char *const *names, const int64_t *numbers)
{
  size_t at = 0;
  out[0] = '\0';
  for (int i = 0; i < count && at < len; i++) {
    if (!ran[i])
      continue;
    int w = numbers ? snprintf(out + at, len - at, "%s%lld", at ? " " : "", (long long)numbers[i])
                    : snprintf(out + at, len - at, "%s%s", at ? ", " : "", names[i]);
    at += w > 0 ? (size_t)w : 0;
  }
}

void nc_space_report(nc_case *c, nc_space_op op, const nc_space_coverage *cov)
{
  char batches[160], strides[96], keys[160], depths[64], failing[160];
  list_classes(batches, sizeof(batches), cov->batch, NC_SPACE_BATCHES, NULL, nc_space_batches);
  list_classes(strides, sizeof(strides), cov->stride, NC_STRIDES, stride_names, NULL);
  list_classes(keys, sizeof(keys), cov->keys, NC_KEY_CLASSES, key_names, NULL);
  list_classes(depths, sizeof(depths), cov->depth, NC_DEPTHS, depth_names, NULL);
  list_classes(failing, sizeof(failing), cov->failing, NC_SPACE_BATCHES, NULL, nc_space_batches);
  char call[64];
  snprintf(call, sizeof(call), "call space of %s", nc_space_op_name(op));
  nc_note(c, call, "every class of every dimension",
          "%lld calls; batches: %s; strides: %s; keys: %s; depths: %s (deep: %lld live keys); "
          "failing calls at batches: %s%s%s",
          (long long)cov->calls, batches[0] ? batches : "none", strides[0] ? strides : "none",
          keys[0] ? keys : "none", depths[0] ? depths : "none", (long long)cov->deep_keys,
          failing[0] ? failing : "none (not a host table, or not this op)",
          cov->skipped[0] ? "; not run: " : "", cov->skipped);
}
