/* SPDX-License-Identifier: Apache-2.0 */
#include "table_kit.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_log.h"
#include "callback.h"
#include "common.h"
#include "cuda.h"
#include "device_feed.h"
#include "dtype.h"
#include "guarded.h"
#include "pool.h"
#include "repro_out.h"
#include "splitmix.h"
#include "trace.h"
#include "violations.h"

/* Canary salts of the output buffers, so that each region's pattern is its own. */
#define SALT_VALUES 3
#define SALT_SIZES 7

const char *nc_caps_problem(const nc_table_caps *caps, char *buf, size_t len)
{
  if (caps->key_size != 4 && caps->key_size != 8)
    snprintf(buf, len, "key_size is %lld; the host supports 4 and 8", (long long)caps->key_size);
  else if (caps->max_row_size <= 0)
    snprintf(buf, len, "max_row_size is %lld; it must be positive", (long long)caps->max_row_size);
  else if (caps->dtype < NVE_DTYPE_UNKNOWN || caps->dtype > NVE_DTYPE_QUINT8_ROWWISE_F16)
    snprintf(buf, len, "value_dtype is %d, outside nve_data_type_t", (int)caps->dtype);
  else
    return NULL;
  return buf;
}

const char *nc_caps_location_problem(const nc_table_caps *caps, int device_count, char *buf,
                                     size_t len)
{
  if (caps->location != NVE_BUFFER_LOCATION_HOST && caps->location != NVE_BUFFER_LOCATION_DEVICE)
    snprintf(buf, len, "preferred_buffer_location is %d, neither HOST nor DEVICE",
             (int)caps->location);
  else if (caps->device_id < -1)
    snprintf(buf, len, "device_id is %d, below -1", (int)caps->device_id);
  else if (caps->location == NVE_BUFFER_LOCATION_HOST && caps->device_id >= 0)
    snprintf(buf, len, "a HOST table reports device %d", (int)caps->device_id);
  else if (caps->location == NVE_BUFFER_LOCATION_DEVICE && caps->device_id < 0)
    snprintf(buf, len, "a DEVICE table reports device %d", (int)caps->device_id);
  else if (caps->location == NVE_BUFFER_LOCATION_DEVICE && device_count > 0 &&
           caps->device_id >= device_count)
    snprintf(buf, len, "a DEVICE table reports device %d; the runtime has %d device%s",
             (int)caps->device_id, device_count, device_count == 1 ? "" : "s");
  else
    return NULL;
  return buf;
}

static int tk_init(nc_tk *k, nc_case *c, const nve_ext_table_t *t, int profile_row);

int nc_tk_init(nc_tk *k, nc_case *c, const nve_ext_table_t *t) { return tk_init(k, c, t, 1); }

int nc_tk_init_other(nc_tk *k, nc_case *c, const nve_ext_table_t *t)
{
  return tk_init(k, c, t, 0);
}

static int tk_init(nc_tk *k, nc_case *c, const nve_ext_table_t *t, int profile_row)
{
  memset(k, 0, sizeof(*k));
  k->feed.device = -1; /* host buffers until the feed begins */
  k->failed_line = -1;
  k->c = c;
  k->t = *t;
  k->observe = 1;
  k->check_values = 1;
  /* Tasks in order on the calling thread: table verdicts must not depend
   * on task order, which SVC-07 checks on its own. Concurrent callers
   * (TBL-12) still run at once. */
  nc_pool_configure(c->cfg->workers, NC_SCHEDULE_INLINE, c->cfg->seed);
  nc_call_capabilities(t, &k->caps);
  char why[200];
  /* A table of another config that the host would reject, or that needs
   * device buffers without a CUDA runtime, is as if produce refused it;
   * the run's own is recorded. */
  if (profile_row ? nc_caps_block(c, &k->caps) != 0
                  : nc_caps_problem(&k->caps, why, sizeof(why)) ||
                        nc_caps_location_problem(&k->caps, 0, why, sizeof(why)) ||
                        (k->caps.location == NVE_BUFFER_LOCATION_DEVICE && !nc_cuda_loaded()))
    return -1;
  /* The harness writes rows of the size the table declares (or the
   * profile's row_size), with strides of at least max_row_size; shorter
   * rows for a table that declares more than the harness feeds. */
  k->stride = nc_value_stride(c, &k->caps);
  k->row = nc_value_size(c, &k->caps);
  if (!profile_row) /* the profile's row_size is the table config's */
    k->row = k->stride = k->caps.max_row_size > NC_TK_ROW_MAX ? NC_WIDE_ROW_WRITTEN
                                                              : k->caps.max_row_size;
  if (profile_row)
    nc_note_wide_rows(c, &k->caps);
  k->rng = (c->cfg->seed ^ 0x6b69745f73656564ull) * 131 + (uint64_t)c->rule;
  /* The profile's exact speaks of the table config's tables only. */
  k->o = nc_oracle_new((int)k->caps.key_size, k->row, k->caps.dtype,
                       profile_row && c->cfg->exact, k->caps.invalid_key);
  if (!k->o) {
    nc_harness_error(c, "out of memory for the table model");
    return -1;
  }
  /* A DEVICE table's buffers are copied to its device around each call,
   * and its contexts give streams on that device. */
  if (nc_feed_begin(c, k->caps.location, k->caps.device_id, &k->feed) != 0) {
    nc_oracle_free(k->o);
    k->o = NULL;
    return -1;
  }
  return 0;
}

void nc_tk_done(nc_tk *k)
{
  nc_oracle_free(k->o);
  k->o = NULL;
  nc_feed_end(&k->feed);
}

int nc_tk_open(nc_tk *k, nve_ext_table_factory_t *f, nc_case *c)
{
  nve_ext_table_t t;
  if (nc_open_table(c, f, &t) != 0)
    return -1;
  if (nc_tk_init(k, c, &t) != 0) {
    nc_close_table(f, &t);
    return -1;
  }
  return 0;
}

void nc_tk_close(nc_tk *k, const nve_ext_table_factory_t *f)
{
  nc_close_table(f, &k->t);
  nc_tk_done(k);
}

void nc_tk_keys(nc_tk *k, int64_t *keys, int64_t n, int64_t first)
{
  for (int64_t i = 0; i < n; i++)
    keys[i] = first + i;
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(nc_splitmix(&k->rng) % (uint64_t)(i + 1));
    int64_t t = keys[i];
    keys[i] = keys[j];
    keys[j] = t;
  }
}

int64_t nc_batch_for_rows(int64_t row, int64_t wanted)
{
  int64_t work = NC_BATCH_WORK_BYTES / (row > 0 ? row : 1), room = NC_TK_BUFFER_BYTES / (row + 16);
  int64_t n = wanted < work ? wanted : work;
  if (n < 64)
    n = wanted < 64 ? wanted : 64;
  return n < room ? n : room;
}

int64_t nc_tk_fit(int64_t stride)
{
  int64_t fit = NC_TK_BUFFER_BYTES / (stride + 16);
  return fit < 1 ? 1 : fit;
}

int64_t nc_tk_batch(nc_tk *k, int64_t wanted)
{
  int64_t fit = nc_tk_fit(k->stride);
  if (wanted <= fit)
    return wanted;
  if (!k->batch_noted++)
    nc_note(k->c, "batch size", "the batches the case asks for",
            "rows of %lld bytes: batches cut to %lld keys so that a buffer stays under %d MiB",
            (long long)k->stride, (long long)fit, NC_TK_BUFFER_BYTES >> 20);
  return fit;
}

/* A mismatch that any of owners may be charged with (the first that failed
 * on its own). */
static void mismatch_by(nc_tk *k, const nc_rule *owners, int nowners, const char *call,
                        const char *expected, const char *text)
{
  if (k->mismatches++ == 0 && k->quiet) {
    snprintf(k->mismatch, sizeof(k->mismatch), "%s: %s", call, text);
    k->nmismatch_owners = nowners < 2 ? nowners : 2;
    for (int i = 0; i < k->nmismatch_owners; i++)
      k->mismatch_owners[i] = owners[i];
  }
  if (k->quiet)
    return;
  if (k->proving && nowners == 1)
    nc_fail_proven(k->c, owners[0], call, expected, "%s", text);
  else
    nc_fail_owned_by(k->c, owners, nowners, call, expected, "%s", text);
}

void nc_tk_mismatch(nc_tk *k, nc_rule owner, const char *call, const char *expected,
                    const char *fmt, ...)
{
  char text[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  mismatch_by(k, &owner, 1, call, expected, text);
}

void nc_tk_rows(const nc_tk *k, int64_t n, int64_t stride, uint64_t tag, unsigned char *out)
{
  nc_fill_rows(out, n, stride, k->row, k->caps.dtype, tag);
}

int64_t nc_tk_update_size(const nc_tk *k, nve_data_type_t dtype, int half)
{
  int64_t row_width = nc_dtype_width(k->caps.dtype), width = nc_dtype_width(dtype);
  if (!row_width || !width)
    return 0;
  int64_t elements = k->row / row_width < k->row / width ? k->row / row_width : k->row / width;
  if (half && elements > 1)
    elements /= 2;
  return elements * width;
}

/* ", device D, thread T": where a call ran, for its evidence line. */
static const char *call_place(const nc_tk *k, char *buf, size_t len)
{
  if (k->feed.device >= 0)
    snprintf(buf, len, ", device %d, thread %d", k->feed.device, nc_callback_thread());
  else
    snprintf(buf, len, ", host, thread %d", nc_callback_thread());
  return buf;
}

/* ---- buffers ------------------------------------------------------------- */

/* The buffers of one call, and copies of its inputs to compare afterwards. */
typedef struct call_buffers {
  nc_guarded keys, rows, mask, values, sizes;
  unsigned char *keys_copy, *rows_copy, *mask_copy;
  int copies_level; /* of this thread's copy store; -1: none taken */
  size_t violations_before;
  /* A DEVICE table's copies of the buffers (canaries included), by the
   * order of the fields above; NULL for a HOST table. */
  unsigned char *device[5];
} call_buffers;

/* The guarded buffers of a call, in the order of call_buffers.device. */
static nc_guarded *buffer_at(call_buffers *b, int i)
{
  nc_guarded *all[5] = {&b->keys, &b->rows, &b->mask, &b->values, &b->sizes};
  return all[i];
}

/* A device copy covers the front canary's last NC_GUARD_FRONT bytes, the
 * data and the padding, so that stray device writes near the buffer show
 * as damage. */
static size_t mirror_size(const nc_guarded *g) { return NC_GUARD_FRONT + (g->size + 15) / 16 * 16; }

/* Before a DEVICE table's call: every buffer to its device. 0 or -1. */
static int to_device(nc_tk *k, call_buffers *b)
{
  if (k->feed.device < 0)
    return 0;
  nc_feed_enter(&k->feed);
  for (int i = 0; i < 5; i++) {
    nc_guarded *g = buffer_at(b, i);
    if (!g->data)
      continue;
    void *d = nc_feed_alloc(&k->feed, mirror_size(g));
    if (!d || nc_feed_put(d, g->data - NC_GUARD_FRONT, mirror_size(g)) != 0) {
      nc_feed_free(d);
      nc_harness_error(k->c, "could not copy a %zu-byte buffer to device %d", g->size,
                       k->feed.device);
      return -1;
    }
    b->device[i] = (unsigned char *)d;
  }
  return 0;
}

/* The pointer a call passes for g: its device copy, or g itself. */
static void *arg(call_buffers *b, int i)
{
  nc_guarded *g = buffer_at(b, i);
  if (!g->data)
    return NULL;
  return b->device[i] ? b->device[i] + NC_GUARD_FRONT : g->data;
}

/* After the call: everything back, for the same checks as a HOST table's. */
static void from_device(call_buffers *b)
{
  for (int i = 0; i < 5; i++) {
    nc_guarded *g = buffer_at(b, i);
    if (!b->device[i])
      continue;
    nc_feed_get(g->data - NC_GUARD_FRONT, b->device[i], mirror_size(g));
    nc_feed_free(b->device[i]);
    b->device[i] = NULL;
  }
}

/* The copies of a call's inputs live until the call's checks are done.
 * Each thread keeps its copy buffers for its next call, grown as needed:
 * a fresh allocation per call faulted its pages in every time. A control
 * call made from a call's checks (variant_at_fault, find_failed) takes
 * the next level; past COPY_LEVELS nesting the copies fail as out of
 * memory, which no caller reaches. */
#define COPY_LEVELS 3
enum { COPY_KEYS, COPY_ROWS, COPY_MASK, COPY_KINDS };

typedef struct copy_store {
  int taken; /* levels in use */
  unsigned char *at[COPY_LEVELS][COPY_KINDS];
  size_t room[COPY_LEVELS][COPY_KINDS];
} copy_store;

static pthread_key_t copies_key;
static pthread_once_t copies_once = PTHREAD_ONCE_INIT;

static void copies_drop(void *p)
{
  copy_store *st = p;
  for (int l = 0; l < COPY_LEVELS; l++)
    for (int i = 0; i < COPY_KINDS; i++)
      free(st->at[l][i]);
  free(st);
}

static void copies_key_make(void) { pthread_key_create(&copies_key, copies_drop); }

static copy_store *copies_here(void)
{
  pthread_once(&copies_once, copies_key_make);
  copy_store *st = pthread_getspecific(copies_key);
  if (!st && (st = calloc(1, sizeof(*st))) && pthread_setspecific(copies_key, st) != 0) {
    free(st);
    st = NULL;
  }
  return st;
}

static void copies_put_back(int level)
{
  copy_store *st = pthread_getspecific(copies_key);
  if (st && st->taken == level + 1)
    st->taken = level;
}

/* g's bytes in buffer kind of the store's level. */
static unsigned char *copy_of(copy_store *st, int level, int kind, const nc_guarded *g)
{
  size_t need = g->size ? g->size : 1;
  if (st->room[level][kind] < need) {
    free(st->at[level][kind]);
    st->room[level][kind] = 0;
    if (!(st->at[level][kind] = malloc(need)))
      return NULL;
    st->room[level][kind] = need;
  }
  memcpy(st->at[level][kind], g->data, g->size);
  return st->at[level][kind];
}

static void buffers_free(call_buffers *b)
{
  for (int i = 0; i < 5; i++)
    nc_feed_free(b->device[i]);
  nc_guarded_free(&b->keys);
  nc_guarded_free(&b->rows);
  nc_guarded_free(&b->mask);
  nc_guarded_free(&b->values);
  nc_guarded_free(&b->sizes);
  if (b->copies_level >= 0)
    copies_put_back(b->copies_level);
}

static int guarded(nc_tk *k, nc_guarded *g, const char *op, const char *what, size_t size)
{
  char name[48];
  snprintf(name, sizeof(name), "%s %s", op, what);
  /* Every buffer but hit_mask is written whole before the call (keys, rows,
   * the canary of the outputs): zeroing them first would be a wasted pass.
   * The canaries at the edges are read only by TBL-04's checks. */
  unsigned flags = (strcmp(what, "hit_mask") == 0 ? 0 : NC_GUARDED_UNZEROED) |
                   (k->check_bounds ? 0 : NC_GUARDED_NO_CANARIES);
  if (nc_guarded_alloc_with(g, name, size, flags) == 0)
    return 0;
  nc_harness_error(k->c, "out of memory mapping a %zu-byte buffer", size);
  return -1;
}

/* rows_size for a call that passes no rows (erase, find). */
#define NO_ROWS ((size_t)-1)

/* Keys (and rows) for a call, with copies to verify they stay unchanged. */
static int buffers_inputs(nc_tk *k, call_buffers *b, const char *op, int64_t n,
                          const int64_t *keys, size_t rows_size)
{
  memset(b, 0, sizeof(*b));
  b->keys.slot = b->rows.slot = b->mask.slot = b->values.slot = b->sizes.slot = -1;
  b->copies_level = -1;
  size_t ks = (size_t)k->caps.key_size;
  if (guarded(k, &b->keys, op, "keys", (size_t)n * ks) != 0)
    return -1;
  for (int64_t i = 0; i < n; i++) {
    if (ks == 4) {
      int32_t v = (int32_t)keys[i];
      memcpy(b->keys.data + 4 * i, &v, 4);
    } else {
      memcpy(b->keys.data + 8 * i, &keys[i], 8);
    }
  }
  /* Rows for every writing call, n == 0 too: a table may check its
   * pointers before it looks at n. */
  if (rows_size != NO_ROWS && guarded(k, &b->rows, op, "values", rows_size) != 0)
    return -1;
  b->violations_before = nc_violation_count(NC_RULE_TBL_04);
  return 0;
}

static int buffers_copy_inputs(nc_tk *k, call_buffers *b)
{
  copy_store *st = copies_here();
  if (st && st->taken < COPY_LEVELS) {
    int level = b->copies_level = st->taken++;
    b->keys_copy = copy_of(st, level, COPY_KEYS, &b->keys);
    b->rows_copy = b->rows.data ? copy_of(st, level, COPY_ROWS, &b->rows) : NULL;
    b->mask_copy = b->mask.data ? copy_of(st, level, COPY_MASK, &b->mask) : NULL;
  }
  if (!b->keys_copy || (b->rows.data && !b->rows_copy) || (b->mask.data && !b->mask_copy)) {
    nc_harness_error(k->c, "out of memory copying call inputs");
    return -1;
  }
  return 0;
}

/* An input the call changed is a TBL-04 violation, in whichever case it
 * happens (the case of TBL-04 reports it with its own evidence). */
static void check_unchanged(const char *call, const char *what, const nc_guarded *g,
                            const unsigned char *copy)
{
  if (!g->data || !copy || memcmp(g->data, copy, g->size) == 0)
    return;
  for (size_t i = 0; i < g->size; i++)
    if (g->data[i] != copy[i]) {
      nc_violation_recordf(NC_RULE_TBL_04, "%s modified its (const) %s buffer at offset %zu of %zu bytes",
                           call, what, i, g->size);
      return;
    }
}

/* Bits set in the input hit_mask must stay set (TBL-03), in every case. */
static void check_resolved_bits(const char *call, const call_buffers *b, int64_t n)
{
  if (!b->mask.data || !b->mask_copy)
    return;
  for (int64_t i = 0; i < n; i++) {
    uint64_t before, after;
    memcpy(&before, b->mask_copy + 8 * (i / 64), 8);
    memcpy(&after, b->mask.data + 8 * (i / 64), 8);
    if ((before >> (i % 64) & 1) && !(after >> (i % 64) & 1)) {
      nc_violation_recordf(NC_RULE_TBL_03, "%s: hit_mask bit %lld was set on entry and is clear on "
                           "return", call, (long long)i);
      return;
    }
  }
}

static void check_edges(nc_tk *k, const char *call, const char *what, const nc_guarded *g)
{
  char where[96];
  if (nc_guarded_edges_damaged(g, where, sizeof(where)))
    nc_tk_mismatch(k, NC_RULE_TBL_04, call, "nothing written outside the buffer",
                   "the %s buffer was written %s", what, where);
}

/* The checks common to every call: inputs unchanged (recorded in every
 * case), and for TBL-04 the canaries and guards. */
static void check_bounds(nc_tk *k, const char *call, call_buffers *b)
{
  check_unchanged(call, "keys", &b->keys, b->keys_copy);
  check_unchanged(call, "values", &b->rows, b->rows_copy);
  if (!k->check_bounds)
    return;
  check_edges(k, call, "keys", &b->keys);
  check_edges(k, call, "values", &b->rows);
  check_edges(k, call, "hit_mask", &b->mask);
  check_edges(k, call, "output values", &b->values);
  check_edges(k, call, "value_sizes", &b->sizes);
  size_t now = nc_violation_count(NC_RULE_TBL_04);
  for (size_t v = b->violations_before; v < now; v++) {
    const char *text = nc_violation_text(NC_RULE_TBL_04, v);
    nc_tk_mismatch(k, NC_RULE_TBL_04, call, "no access outside the call's buffers", "%s",
                   text ? text : "an input changed or a guard page was touched (the case "
                                 "keeps the text of its first few such records only)");
  }
}

static const char *status_text(nc_tk *k, char *buf, size_t len)
{
  buf[0] = '\0';
  nc_read_plugin_string(nc_call_table_last_error(&k->t), buf, len);
  return buf;
}

/* After a modifying op: the model follows a success, forgets on failure. */
static int after_modify(nc_tk *k, const char *call, nve_status_t s, int may_fail, int64_t n,
                        const void *keys)
{
  if (s == NVE_SUCCESS)
    return 1;
  if (!k->failed_ops++)
    snprintf(k->first_failed, sizeof(k->first_failed), "%s", call);
  k->failed_line = nc_call_log_last_line();
  k->failed_status = s;
  if (!may_fail) {
    nc_tk_note_refused(k, nc_op_owner(call), k->failed_line, s);
    char msg[256];
    nc_tk_mismatch(k, nc_op_owner(call), call, "NVE_SUCCESS for a valid call", "status %d (%s)",
                   (int)s, status_text(k, msg, sizeof(msg)));
  }
  if (keys)
    nc_oracle_forget(k->o, n, keys);
  else
    nc_oracle_forget_all(k->o);
  return 0;
}

/* The canary in the gaps between rows (bytes from..stride of each), as a
 * fill of the whole buffer with salt 11 would leave them. */
static void fill_stride_gaps(unsigned char *rows, int64_t n, int64_t stride, int64_t from)
{
  if (from >= stride)
    return;
  for (int64_t i = 0; i < n; i++)
    nc_canary_fill(rows + i * stride + from, (size_t)(stride - from),
                   11 + (size_t)(i * stride + from));
}

typedef nve_status_t (*rows_op)(const nve_ext_table_t *, int64_t, const void *, int64_t,
                                int64_t, const void *);

static nve_status_t write_rows(nc_tk *k, const char *op, rows_op call_op, int64_t n,
                               const int64_t *keys, int64_t stride, int64_t size, uint64_t tag,
                               int may_fail)
{
  if (stride < k->stride)
    stride = k->stride;
  call_buffers b;
  nve_status_t s = NVE_ERROR_OUT_OF_MEMORY;
  if (buffers_inputs(k, &b, op, n, keys, (size_t)(n * stride)) != 0)
    goto out;
  nc_tk_rows(k, n, stride, tag, b.rows.data);
  /* Past value_size the canary, as far as the stride: a table that reads
   * on returns bytes nobody wrote. */
  fill_stride_gaps(b.rows.data, n, stride, size);
  if (buffers_copy_inputs(k, &b) != 0 || to_device(k, &b) != 0)
    goto out;
  s = call_op(&k->t, n, arg(&b, 0), stride, size, arg(&b, 1));
  from_device(&b);
  char call[160], place[48];
  snprintf(call, sizeof(call), "%s (n=%lld, value_stride=%lld, value_size=%lld%s)", op,
           (long long)n, (long long)stride, (long long)size,
           call_place(k, place, sizeof(place)));
  check_bounds(k, call, &b);
  if (after_modify(k, call, s, may_fail, n, b.keys_copy)) {
    if (call_op == nc_call_insert)
      nc_oracle_insert_prefix(k->o, n, b.keys_copy, stride, size, b.rows_copy);
    else
      nc_oracle_update_prefix(k->o, n, b.keys_copy, stride, size, b.rows_copy);
  }
out:
  buffers_free(&b);
  return s;
}

nve_status_t nc_tk_insert(nc_tk *k, int64_t n, const int64_t *keys, int64_t stride,
                          uint64_t tag, int may_fail)
{
  return write_rows(k, "insert", nc_call_insert, n, keys, stride, k->row, tag, may_fail);
}

nve_status_t nc_tk_update(nc_tk *k, int64_t n, const int64_t *keys, int64_t stride,
                          uint64_t tag, int may_fail)
{
  return write_rows(k, "update", nc_call_update, n, keys, stride, k->row, tag, may_fail);
}

nve_status_t nc_tk_write_prefix(nc_tk *k, int update, int64_t n, const int64_t *keys,
                                int64_t stride, int64_t size, uint64_t tag, int may_fail)
{
  if (size <= 0 || size > k->row)
    size = k->row;
  return update ? write_rows(k, "update", nc_call_update, n, keys, stride, size, tag, may_fail)
                : write_rows(k, "insert", nc_call_insert, n, keys, stride, size, tag, may_fail);
}

/* The updates of an accumulate: size bytes of dtype elements per key, each
 * small (a quarter of the range) so that sums stay exact, then bytes up to
 * the stride. */
static void fill_updates(unsigned char *out, int64_t n, int64_t stride, int64_t size,
                         nve_data_type_t dtype, uint64_t tag)
{
  int64_t width = nc_dtype_width(dtype);
  long range = width ? nc_row_value_range(dtype) / 2 : 0;
  nc_fill_values(out, n, stride, size, stride, dtype, tag, range);
}

nve_status_t nc_tk_accumulate(nc_tk *k, int64_t n, const int64_t *keys, nve_data_type_t dtype,
                              int64_t size, uint64_t tag, int may_fail)
{
  return nc_tk_accumulate_strided(k, n, keys, dtype, size, 0, tag, may_fail);
}

nve_status_t nc_tk_accumulate_strided(nc_tk *k, int64_t n, const int64_t *keys,
                                      nve_data_type_t dtype, int64_t size, int64_t stride,
                                      uint64_t tag, int may_fail)
{
  if (stride < size || stride <= 0)
    stride = size > 0 ? size : 8;
  call_buffers b;
  nve_status_t s = NVE_ERROR_OUT_OF_MEMORY;
  if (buffers_inputs(k, &b, "update_accumulate", n, keys, (size_t)(n * stride)) != 0)
    goto out;
  fill_updates(b.rows.data, n, stride, size, dtype, tag);
  if (buffers_copy_inputs(k, &b) != 0 || to_device(k, &b) != 0)
    goto out;
  s = nc_call_update_accumulate(&k->t, n, arg(&b, 0), stride, size, arg(&b, 1), dtype);
  from_device(&b);
  char call[200], place[48];
  snprintf(call, sizeof(call), "update_accumulate (n=%lld, update_stride=%lld, update_size=%lld, "
           "%s updates, dtype %d%s)", (long long)n, (long long)stride, (long long)size,
           nc_dtype_name(dtype), (int)dtype, call_place(k, place, sizeof(place)));
  check_bounds(k, call, &b);
  if (after_modify(k, call, s, may_fail, n, b.keys_copy) &&
      nc_oracle_accumulate(k->o, n, b.keys_copy, stride, size, b.rows_copy, dtype) != 0)
    nc_oracle_forget(k->o, n, b.keys_copy); /* a sum the model cannot compute */
out:
  buffers_free(&b);
  return s;
}

nve_status_t nc_tk_erase(nc_tk *k, int64_t n, const int64_t *keys, int may_fail)
{
  call_buffers b;
  nve_status_t s = NVE_ERROR_OUT_OF_MEMORY;
  if (buffers_inputs(k, &b, "erase", n, keys, NO_ROWS) != 0 || buffers_copy_inputs(k, &b) != 0 ||
      to_device(k, &b) != 0)
    goto out;
  s = nc_call_erase(&k->t, n, arg(&b, 0));
  from_device(&b);
  char call[96], place[48];
  snprintf(call, sizeof(call), "erase (n=%lld%s)", (long long)n, call_place(k, place, sizeof(place)));
  check_bounds(k, call, &b);
  if (after_modify(k, call, s, may_fail, n, b.keys_copy))
    nc_oracle_erase(k->o, n, b.keys_copy);
out:
  buffers_free(&b);
  return s;
}

nve_status_t nc_tk_clear(nc_tk *k, int may_fail)
{
  nc_feed_enter(&k->feed);
  nve_status_t s = nc_call_clear(&k->t);
  if (after_modify(k, "clear", s, may_fail, 0, NULL))
    nc_oracle_clear(k->o);
  return s;
}

/* ---- find ------------------------------------------------------------------ */

static int bit(const uint64_t *mask, int64_t i) { return (int)(mask[i / 64] >> (i % 64) & 1); }

static void describe_wrong_bytes(const nc_tk *k, int64_t key, const unsigned char *got,
                                 int64_t offset, char *out, size_t len)
{
  const unsigned char *want = nc_oracle_expected(k->o, key);
  int64_t w = nc_dtype_width(k->caps.dtype);
  if (w && want && offset < k->row / w * w) {
    int64_t e = offset / w;
    /* Nine digits: a float32 that differs in its last bits reads apart. */
    snprintf(out, len, "first difference at byte %lld (%s element %lld): got %.9g, the last "
             "write stored %.9g",
             (long long)offset, nc_dtype_name(k->caps.dtype), (long long)e,
             nc_dtype_decode(k->caps.dtype, got + w * e),
             nc_dtype_decode(k->caps.dtype, want + w * e));
  } else {
    snprintf(out, len, "first difference at byte %lld: got 0x%02x, the last write stored 0x%02x",
             (long long)offset, got[offset], want ? want[offset] : 0);
  }
}

static nc_rule op_rule(nc_oracle_op op)
{
  switch (op) {
  case NC_ORACLE_OP_UPDATE: return NC_RULE_TBL_06;
  case NC_ORACLE_OP_ACCUMULATE: return NC_RULE_TBL_07;
  case NC_ORACLE_OP_ERASE:
  case NC_ORACLE_OP_CLEAR: return NC_RULE_TBL_08;
  default: return NC_RULE_TBL_02;
  }
}

/* The rules a wrong answer for key may break: the one of the op that last
 * changed the key (a hit after erase is TBL-08's, wrong bytes after an
 * update TBL-06's; TBL-02 for a key only ever inserted or never written),
 * and for a hit on a key that should be absent, also the erase or clear
 * that removed it before (a cleared key an update then "inserted" is
 * clear's defect or update's). Returns how many (1 or 2). */
static int answer_owners(const nc_tk *k, nc_oracle_verdict v, int64_t key, nc_rule owners[2])
{
  owners[0] = v == NC_ORACLE_WRONG_SIZE ? NC_RULE_TBL_02 : op_rule(nc_oracle_last_op(k->o, key));
  nc_oracle_op removed = nc_oracle_removed_by(k->o, key);
  if (v == NC_ORACLE_HIT_ABSENT && removed != NC_ORACLE_OP_NONE &&
      op_rule(removed) != owners[0]) {
    owners[1] = op_rule(removed);
    return 2;
  }
  return 1;
}

/* Whether a returned row is the canary the harness filled the output slot
 * with before the call: the plugin reported a hit and wrote nothing. */
static int unwritten(const unsigned char *bytes, int64_t row, size_t salt)
{
  return row > 0 && nc_canary_damage(bytes, (size_t)row, salt) < 0;
}

/* Whether a wrong answer of a find with a NULL output or keys resolved on
 * entry is that find's (TBL-05's, TBL-03's): a plain find of the key,
 * made now, reads it right. The first few wrong answers of a call are
 * tried; the rest are charged as the last. Records nothing itself. */
#define VARIANT_CONTROLS 4
static int variant_at_fault(nc_tk *k, int64_t key)
{
  if (k->find_rule == NC_RULE_TBL_02 || k->quiet || k->in_control)
    return 0;
  if (k->variant_controls >= VARIANT_CONTROLS)
    return k->variant_blamed;
  k->variant_controls++;
  nc_rule rule = k->find_rule;
  int observe = k->observe;
  int64_t before = k->mismatches;
  k->quiet = k->in_control = 1;
  k->observe = 0;
  k->variant_blamed = nc_tk_find(k, 1, &key, NULL, NULL) >= 0 && k->mismatches == before;
  k->mismatches = before;
  k->quiet = k->in_control = 0;
  k->observe = observe;
  k->find_rule = rule;
  return k->variant_blamed;
}

/* One key's answer: hit or miss, against the model. slot_salt: the canary
 * salt of its output slot. */
static void check_answer(nc_tk *k, const char *call, int64_t i, int64_t key, int hit,
                         const unsigned char *bytes, int64_t size, size_t slot_salt)
{
  int64_t offset = 0;
  nc_oracle_verdict v = nc_oracle_check(k->o, key, hit, bytes, size, &offset);
  /* Only a plain find teaches the model what the table holds: a find with
   * a NULL output or resolved keys is itself under test. */
  int learn = k->observe && k->find_rule == NC_RULE_TBL_02;
  if (v == NC_ORACLE_OK || !k->check_values) {
    if (learn)
      nc_oracle_observe(k->o, key, hit, bytes);
    return;
  }
  char detail[200] = "";
  nc_rule owners[2];
  int nowners = answer_owners(k, v, key, owners);
  if (hit && bytes && unwritten(bytes, k->row, slot_salt)) {
    owners[0] = NC_RULE_TBL_02; /* whatever the key's history: find did not write */
    nowners = 1;
    snprintf(detail, sizeof(detail), "slot not written: it still holds the harness's fill "
             "pattern");
  } else if (v == NC_ORACLE_WRONG_BYTES) {
    describe_wrong_bytes(k, key, bytes, offset, detail, sizeof(detail));
  } else if (v == NC_ORACLE_WRONG_SIZE) {
    snprintf(detail, sizeof(detail), "value_sizes says %lld; the row written is %lld bytes (after "
             "a short write: from its size up to the row)", (long long)size, (long long)k->row);
  }
  char text[600];
  snprintf(text, sizeof(text), "key %lld (index %lld): %s%s%s", (long long)key, (long long)i,
           nc_oracle_verdict_text(v), detail[0] ? "; " : "", detail);
  if (variant_at_fault(k, key)) {
    /* The find's outputs: the model stays as it was (a plain read agrees). */
    k->proving = 1;
    mismatch_by(k, &k->find_rule, 1, call,
                "the bytes last written for the key, or a miss where allowed", text);
    k->proving = 0;
    return;
  }
  if (owners[0] != NC_RULE_TBL_02 && !k->quiet && !k->in_control) {
    /* Charged to the op that last changed the key; whether find itself
     * reads that key wrong is tried once the find is over. */
    if (k->npending == NC_TK_PENDING) {
      k->pending_more++; /* settled with the last one kept */
      return;
    }
    nc_tk_pending *p = &k->pending[k->npending++];
    p->key = key;
    p->owners[0] = owners[0];
    p->owners[1] = owners[nowners - 1];
    p->nowners = nowners;
    snprintf(p->call, sizeof(p->call), "%s", call);
    snprintf(p->text, sizeof(p->text), "%s", text);
  } else {
    mismatch_by(k, owners, nowners, call,
                "the bytes last written for the key, or a miss where allowed", text);
  }
  /* Re-sync, so that one wrong answer is reported once. */
  if (learn)
    nc_oracle_observe(k->o, key, hit, bytes);
}

/* The control for a wrong answer charged to update, accumulate or erase:
 * the key written by a plain insert and read back. When that read is wrong
 * too, find (or insert) is at fault for the key, and TBL-02 owns the
 * first answer as well; when it is right, the op that changed the key
 * does. */
static void settle_pending(nc_tk *k)
{
  if (!k->npending || k->in_control)
    return;
  k->in_control = 1;
  int npending = k->npending;
  int64_t more = k->pending_more;
  k->npending = 0;
  k->pending_more = 0;
  static const nc_rule find_owner[] = {NC_RULE_TBL_02};
  const nc_rule *last = find_owner;
  int nlast = 1;
  const char *expected = "the bytes last written for the key, or a miss where allowed";
  for (int i = 0; i < npending; i++) {
    const nc_tk_pending *p = &k->pending[i];
    int64_t before = k->mismatches;
    int find_wrong = nc_tk_insert(k, 1, &p->key, 0, 0xc0417201u + (uint64_t)i, 1) == NVE_SUCCESS &&
                     nc_tk_find(k, 1, &p->key, NULL, NULL) >= 0 && k->mismatches > before;
    last = find_wrong ? find_owner : p->owners;
    nlast = find_wrong ? 1 : p->nowners;
    char text[700];
    snprintf(text, sizeof(text), "%s%s", p->text,
             find_wrong ? " (a plain insert of the key read back wrong too: find's or insert's "
                          "defect)"
                        : "");
    k->proving = !find_wrong; /* the control read the key right */
    mismatch_by(k, last, nlast, p->call, expected, text);
    k->proving = 0;
  }
  if (more) {
    char text[120];
    snprintf(text, sizeof(text), "%lld more answers of this call disagreed, charged as the last "
             "one above", (long long)more);
    mismatch_by(k, last, nlast, k->pending[npending - 1].call, expected, text);
  }
  k->in_control = 0;
}

/* Whether the 8 bytes of value_sizes[i] still hold their canary. */
static int size_untouched(const nc_guarded *sizes, int64_t i)
{
  return nc_canary_damage(sizes->data + 8 * i, 8, SALT_SIZES + 8 * (size_t)i) < 0;
}

static int nonzero_size(const nc_guarded *sizes, int64_t i)
{
  int64_t v;
  memcpy(&v, sizes->data + 8 * i, 8);
  return v != 0;
}

static int slot_untouched(const nc_guarded *values, int64_t i, int64_t stride)
{
  return nc_canary_damage(values->data + i * stride, (size_t)stride,
                          SALT_VALUES + (size_t)(i * stride)) < 0;
}

static void check_resolved_key(nc_tk *k, const char *call, call_buffers *b, int64_t i,
                               int64_t stride)
{
  if (!k->check_resolved)
    return;
  if (b->mask.data && !bit((const uint64_t *)b->mask.data, i))
    nc_tk_mismatch(k, NC_RULE_TBL_03, call, "resolved bits stay set", "bit %lld was set on entry and is clear "
                   "on return", (long long)i);
  if (b->values.data && !slot_untouched(&b->values, i, stride))
    nc_tk_mismatch(k, NC_RULE_TBL_03, call, "resolved keys' value slots untouched",
                   "the value slot of index %lld (resolved on entry) was written", (long long)i);
  if (b->sizes.data && !size_untouched(&b->sizes, i))
    nc_tk_mismatch(k, NC_RULE_TBL_03, call, "resolved keys' value_sizes untouched",
                   "value_sizes[%lld] (resolved on entry) was written", (long long)i);
}

static void check_gap(nc_tk *k, const char *call, call_buffers *b, int64_t i, int64_t stride,
                      int64_t size)
{
  int64_t from = size >= 0 ? size : k->caps.max_row_size;
  if (!k->check_bounds || !b->values.data || from >= stride)
    return;
  if (from < 0)
    from = 0;
  long at = nc_canary_damage(b->values.data + i * stride + from, (size_t)(stride - from),
                             SALT_VALUES + (size_t)(i * stride + from));
  if (at >= 0)
    nc_tk_mismatch(k, NC_RULE_TBL_04, call, "nothing written between value_size and value_stride",
                   "index %lld: byte %lld of its slot (value size %lld, stride %lld) was written",
                   (long long)i, (long long)(from + at), (long long)from, (long long)stride);
}

/* A valid find failed. With a NULL output or keys resolved on entry, a
 * plain find of the same keys, made now, decides whose failure it is: the
 * variant's rule (TBL-05, TBL-03) when the plain find succeeds, find's own
 * (TBL-02) when it fails too, so that a find failing for every caller is
 * blamed once, on TBL-02, and the variants' cases are blocked by it. */
static void find_failed(nc_tk *k, const char *call, nve_status_t s, int64_t n,
                        const int64_t *keys)
{
  long long line = nc_call_log_last_line(); /* before the control's line */
  char msg[256];
  status_text(k, msg, sizeof(msg)); /* before the control overwrites it */
  nc_rule owner = k->find_rule;
  int proven = 0;
  if (owner != NC_RULE_TBL_02 && !k->quiet && !k->in_control) {
    int observe = k->observe;
    int64_t before = k->mismatches, failed = k->failed_ops;
    k->quiet = k->in_control = 1;
    k->observe = 0;
    proven = nc_tk_find(k, n < 64 ? n : 64, keys, NULL, NULL) >= 0;
    k->mismatches = before;
    k->failed_ops = failed;
    k->quiet = k->in_control = 0;
    k->observe = observe;
    k->find_rule = owner;
    if (!proven)
      owner = NC_RULE_TBL_02;
  }
  k->proving = proven;
  k->failed_line = line;
  k->failed_status = s;
  /* Keys resolved on entry are not in the log: a replay finds them all. */
  if (owner != NC_RULE_TBL_03)
    nc_tk_note_refused(k, owner, line, s);
  nc_tk_mismatch(k, owner, call, "NVE_SUCCESS for a valid call", "status %d (%s)", (int)s, msg);
  k->proving = 0;
}

int64_t nc_tk_find(nc_tk *k, int64_t n, const int64_t *keys, const nc_find_opts *opts,
                   unsigned char *hits_out)
{
  static const nc_find_opts defaults;
  if (!opts)
    opts = &defaults;
  int64_t stride = opts->stride > 0 ? opts->stride : k->stride;
  size_t words = (size_t)(n + 63) / 64;
  if (!k->in_control)
    k->variant_controls = k->variant_blamed = 0;
  k->find_rule = opts->null_mask || opts->null_values || opts->null_sizes ? NC_RULE_TBL_05
                 : opts->resolved                                         ? NC_RULE_TBL_03
                                                                          : NC_RULE_TBL_02;
  call_buffers b;
  int64_t hits = -1;
  if (buffers_inputs(k, &b, "find", n, keys, NO_ROWS) != 0 ||
      (!opts->null_mask && guarded(k, &b.mask, "find", "hit_mask", words * 8) != 0) ||
      (!opts->null_values && guarded(k, &b.values, "find", "values", (size_t)(n * stride)) != 0) ||
      (!opts->null_sizes && guarded(k, &b.sizes, "find", "value_sizes", (size_t)n * 8) != 0))
    goto out;
  uint64_t *mask = (uint64_t *)b.mask.data;
  if (mask && opts->resolved)
    for (int64_t i = 0; i < n; i++)
      if (bit(opts->resolved, i))
        mask[i / 64] |= 1ull << (i % 64);
  if (b.values.data)
    nc_canary_fill(b.values.data, b.values.size, SALT_VALUES);
  if (b.sizes.data)
    nc_canary_fill(b.sizes.data, b.sizes.size, SALT_SIZES);
  if (buffers_copy_inputs(k, &b) != 0 || to_device(k, &b) != 0)
    goto out;
  nc_callback_claim(n == 0 ? NC_RULE_TBL_10 : k->find_rule); /* a crash here is that rule's */
  nve_status_t s = nc_call_find(&k->t, n, arg(&b, 0), arg(&b, 2), stride, arg(&b, 3), arg(&b, 4));
  nc_callback_claim(-1);
  from_device(&b);
  char call[200], place[48];
  snprintf(call, sizeof(call), "find (n=%lld, value_stride=%lld%s%s%s%s%s)", (long long)n,
           (long long)stride, opts->resolved ? ", some keys resolved" : "",
           opts->null_mask ? ", NULL hit_mask" : "", opts->null_values ? ", NULL values" : "",
           opts->null_sizes ? ", NULL value_sizes" : "", call_place(k, place, sizeof(place)));
  check_bounds(k, call, &b);
  check_resolved_bits(call, &b, n);
  if (s != NVE_SUCCESS) {
    if (!k->failed_ops++)
      snprintf(k->first_failed, sizeof(k->first_failed), "%s", call);
    if (!opts->may_fail)
      find_failed(k, call, s, n, keys);
    goto out;
  }
  if (mask && k->check_bounds && n % 64 != 0 && (mask[n / 64] >> (n % 64)) != 0)
    nc_tk_mismatch(k, NC_RULE_TBL_04, call, "hit_mask bits >= n stay zero",
                   "bits above %lld of the last word are set (word 0x%016llx)", (long long)n,
                   (unsigned long long)mask[n / 64]);
  hits = 0;
  for (int64_t i = 0; i < n; i++) {
    nc_oracle_prefetch_ahead(k->o, b.keys_copy, n, i);
    if (mask && opts->resolved && bit(opts->resolved, i)) {
      check_resolved_key(k, call, &b, i, stride);
      if (hits_out)
        hits_out[i] = 2;
      continue;
    }
    int hit;
    if (mask)
      hit = bit(mask, i);
    else if (b.sizes.data)
      hit = !size_untouched(&b.sizes, i) && nonzero_size(&b.sizes, i);
    else
      continue; /* values alone do not tell a hit from a miss that zeroes its slot */
    int64_t size = -1;
    if (hit && b.sizes.data)
      memcpy(&size, b.sizes.data + 8 * i, 8);
    const unsigned char *bytes = hit && b.values.data ? b.values.data + i * stride : NULL;
    int64_t key = nc_oracle_key(k->o, b.keys_copy, i);
    check_answer(k, call, i, key, hit, bytes, size, SALT_VALUES + (size_t)(i * stride));
    if (hit)
      check_gap(k, call, &b, i, stride, size);
    hits += hit;
    if (hits_out)
      hits_out[i] = (unsigned char)hit;
  }
out:
  buffers_free(&b);
  settle_pending(k);
  return hits;
}

void nc_note_refused_call(nc_rule owner, long long line, nve_status_t status)
{
  static atomic_int noted;
  if (line < 0 || !nc_call_log_crash() || atomic_exchange(&noted, 1))
    return;
  char at[24], code[16];
  snprintf(at, sizeof(at), "%lld", line);
  snprintf(code, sizeof(code), "%d", (int)status);
  const char *f[] = {at, code, nc_rule_text(owner)};
  nc_trace_record(NC_TAG_REFUSED_CALL, 3, f);
}

void nc_tk_note_refused(const nc_tk *k, nc_rule owner, long long line, nve_status_t status)
{
  if (!k->quiet && !k->in_control)
    nc_note_refused_call(owner, line, status);
}
