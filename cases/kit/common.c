/* SPDX-License-Identifier: Apache-2.0 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calls.h"
#include "cuda.h"
#include "device_feed.h"
#include "digest.h"
#include "dtype.h"
#include "guarded.h"
#include "quiet.h"
#include "runner.h"
#include "table_kit.h"
#include "violations.h"

/* Creation with the run's config, and its message on failure. */
static nve_status_t create_quietly(nc_case *c, nve_ext_table_factory_t *f, char *msg, size_t len)
{
  memset(f, 0, sizeof(*f));
  const char *err = NULL;
  msg[0] = '\0';
  nve_status_t s = nc_call_create_factory(c->plugin, c->cfg->factory_config, f, &err);
  if (s != NVE_SUCCESS && err)
    nc_read_plugin_string(err, msg, len);
  return s;
}

static nve_status_t produce_quietly(nc_case *c, const nve_ext_table_factory_t *f,
                                    nve_ext_table_t *t, char *msg, size_t len)
{
  memset(t, 0, sizeof(*t));
  msg[0] = '\0';
  nve_status_t s = nc_call_produce(f, 1, c->cfg->table_config, t);
  if (s != NVE_SUCCESS)
    nc_read_plugin_string(nc_call_factory_last_error(f), msg, len);
  return s;
}

int nc_create_factory(nc_case *c, nve_ext_table_factory_t *f)
{
  char msg[512];
  nve_status_t s = create_quietly(c, f, msg, sizeof(msg));
  if (s == NVE_SUCCESS)
    return 0;
  nc_refused(c, NC_REFUSED_CREATION, c->cfg->factory_config, (int)s, msg);
  return -1;
}

int nc_produce_table(nc_case *c, const nve_ext_table_factory_t *f, nve_ext_table_t *t)
{
  char msg[512];
  nve_status_t s = produce_quietly(c, f, t, msg, sizeof(msg));
  if (s == NVE_SUCCESS)
    return 0;
  nc_refused(c, NC_REFUSED_PRODUCE, c->cfg->table_config, (int)s, msg);
  return -1;
}

nc_refusal nc_config_refusal(nc_case *c)
{
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  char msg[512];
  if (create_quietly(c, &f, msg, sizeof(msg)) != NVE_SUCCESS) {
    /* A failed creation may leave a handle (OWN-01/02 judge that); the
     * host would not destroy it. */
    return NC_REFUSAL_CREATION;
  }
  nc_refusal r = NC_REFUSAL_NONE;
  if (!nc_handle_usable(f.self, f.ops, sizeof(nve_ext_table_factory_ops_t), NC_FACTORY_OPS_FNS))
    return r; /* VER-03's business: the cases say so */
  if (produce_quietly(c, &f, &t, msg, sizeof(msg)) != NVE_SUCCESS)
    r = NC_REFUSAL_PRODUCE;
  else if (nc_handle_usable(t.self, t.ops, sizeof(nve_ext_table_ops_t), NC_TABLE_OPS_FNS))
    nc_call_table_destroy(&t);
  nc_call_factory_destroy(&f);
  return r;
}

int64_t nc_value_size(const nc_case *c, const nc_table_caps *caps)
{
  if (c->cfg->row_size > 0)
    return c->cfg->row_size;
  return caps->max_row_size > NC_TK_ROW_MAX ? NC_WIDE_ROW_WRITTEN : caps->max_row_size;
}

int64_t nc_value_stride(const nc_case *c, const nc_table_caps *caps)
{
  return caps->max_row_size > NC_TK_ROW_MAX ? nc_value_size(c, caps) : caps->max_row_size;
}

void nc_note_wide_rows(nc_case *c, const nc_table_caps *caps)
{
  if (caps->max_row_size > NC_TK_ROW_MAX)
    nc_note(c, "max_row_size", "rows the harness can feed (at most 64 MiB)",
            "%lld bytes: rows of %lld bytes are written instead, with strides of the row, as a "
            "caller may (the contract lets rows be shorter than max_row_size)",
            (long long)caps->max_row_size, (long long)nc_value_size(c, caps));
}

/* Where the table differs from what the profile declares, or NULL. */
static const char *profile_mismatch(const nc_case *c, const nc_table_caps *caps, char *buf,
                                    size_t len)
{
  if (c->cfg->key_size && c->cfg->key_size != caps->key_size)
    snprintf(buf, len, "the profile declares key_size %d and the table reports %lld",
             c->cfg->key_size, (long long)caps->key_size);
  else if (c->cfg->row_size > 0 && caps->max_row_size > 0 && c->cfg->row_size > caps->max_row_size)
    snprintf(buf, len, "the profile's row_size %d is more than the table's max_row_size %lld",
             c->cfg->row_size, (long long)caps->max_row_size);
  else
    return NULL;
  return buf;
}

int nc_caps_block(nc_case *c, const nc_table_caps *caps)
{
  char why[200];
  if (profile_mismatch(c, caps, why, sizeof(why)))
    nc_harness_error(c, "%s: fix the profile or the table config", why);
  else if (nc_caps_problem(caps, why, sizeof(why)))
    nc_skip_blocked(c, NC_RULE_TBL_01, "the host rejects the table: %s", why);
  else if (nc_caps_location_problem(caps, 0, why, sizeof(why)))
    nc_skip_blocked(c, NC_RULE_DEV_01, "the host rejects the table: %s", why);
  else
    return 0;
  return -1;
}

int nc_open_table(nc_case *c, nve_ext_table_factory_t *f, nve_ext_table_t *t)
{
  if (nc_open_table_unchecked(c, f, t) != 0)
    return -1;
  nc_table_caps caps;
  nc_call_capabilities(t, &caps);
  if (nc_caps_block(c, &caps) != 0) {
    nc_close_table(f, t);
    return -1;
  }
  /* A DEVICE table takes device buffers only (cases/device_feed.h). */
  if (!nc_cuda_loaded() && caps.location == NVE_BUFFER_LOCATION_DEVICE) {
    nc_untested(c, "a DEVICE table needs device buffers, and no CUDA runtime was loaded (--cuda off)");
    nc_close_table(f, t);
    return -1;
  }
  return 0;
}

int nc_open_table_unchecked(nc_case *c, nve_ext_table_factory_t *f, nve_ext_table_t *t)
{
  if (nc_create_factory(c, f) != 0)
    return -1;
  if (!nc_handle_usable(f->self, f->ops, sizeof(nve_ext_table_factory_ops_t), NC_FACTORY_OPS_FNS)) {
    nc_skip_blocked(c, NC_RULE_VER_03, "the host rejects the factory handle");
    if (nc_destroy_known_good(f->ops))
      nc_call_factory_destroy(f);
    return -1;
  }
  if (nc_produce_table(c, f, t) != 0) {
    nc_call_factory_destroy(f);
    return -1;
  }
  if (!nc_handle_usable(t->self, t->ops, sizeof(nve_ext_table_ops_t), NC_TABLE_OPS_FNS)) {
    nc_skip_blocked(c, NC_RULE_VER_03, "the host rejects the table handle");
    if (nc_destroy_known_good(t->ops))
      nc_call_table_destroy(t);
    nc_call_factory_destroy(f);
    return -1;
  }
  return 0;
}

void nc_close_table(const nve_ext_table_factory_t *f, const nve_ext_table_t *t)
{
  nc_call_table_destroy(t);
  nc_call_factory_destroy(f);
}

/* ---- the workload ------------------------------------------------------- */

/* Keys per batch, fewer for wide rows (nc_batch_for_rows). */
#define BATCH 5000

/* The workload's buffers, by index; a DEVICE table gets device copies. */
enum { KEYS, VALUES, MASK, SIZES, OUT, BUFFERS };

typedef struct workload {
  nc_case *c;
  const nve_ext_table_t *t;
  int64_t key_size, row, stride, batch; /* row: the value size; stride: max_row_size */
  nve_data_type_t dtype;
  nc_guarded g[BUFFERS];
  void *dev[BUFFERS]; /* NULL for a HOST table */
  nc_device_feed feed;
  nc_workload_result *res;
} workload;

/* The pointer a call passes for buffer i. */
static void *arg(workload *w, int i) { return w->dev[i] ? w->dev[i] : w->g[i].data; }

/* Buffer i (its first size bytes) to or from the table's device; 0 or -1.
 * A no-op for a HOST table. */
static int to_table(workload *w, int i, size_t size)
{
  return w->dev[i] && nc_feed_put(w->dev[i], w->g[i].data, size) != 0 ? -1 : 0;
}

static int from_table(workload *w, int i, size_t size)
{
  return w->dev[i] && nc_feed_get(w->g[i].data, w->dev[i], size) != 0 ? -1 : 0;
}

static int step(workload *w, const char *op, nve_status_t s)
{
  w->res->ops++;
  if (s == NVE_SUCCESS)
    return 0;
  w->res->status = s;
  snprintf(w->res->failed_op, sizeof(w->res->failed_op), "%s", op);
  nc_read_plugin_string(nc_call_table_last_error(w->t), w->res->message,
                        sizeof(w->res->message));
  return -1;
}

/* The harness could not go on (a copy to or from the device failed). */
static int harness_failed(workload *w, const char *what)
{
  nc_harness_error(w->c, "the workload could not %s on device %d", what, w->feed.device);
  w->res->status = NVE_ERROR_RUNTIME;
  w->res->harness = 1;
  snprintf(w->res->failed_op, sizeof(w->res->failed_op), "harness: %s", what);
  return -1;
}

/* A find of the first n keys, folded into the digest. */
static int find_and_digest(workload *w, int64_t n)
{
  size_t words = (size_t)(n + 63) / 64;
  uint64_t *mask = (uint64_t *)w->g[MASK].data;
  int64_t *sizes = (int64_t *)w->g[SIZES].data;
  unsigned char *out = w->g[OUT].data;
  memset(mask, 0, words * sizeof(uint64_t));
  memset(sizes, 0, (size_t)n * sizeof(int64_t));
  memset(out, 0, (size_t)(n * w->stride));
  if (to_table(w, MASK, words * 8) || to_table(w, SIZES, (size_t)n * 8) ||
      to_table(w, OUT, (size_t)(n * w->stride)))
    return harness_failed(w, "copy find's buffers");
  nc_feed_enter(&w->feed);
  if (step(w, "find",
           nc_call_find(w->t, n, arg(w, KEYS), arg(w, MASK), w->stride, arg(w, OUT),
                        arg(w, SIZES))) != 0)
    return -1;
  if (from_table(w, MASK, words * 8) || from_table(w, SIZES, (size_t)n * 8) ||
      from_table(w, OUT, (size_t)(n * w->stride)))
    return harness_failed(w, "copy find's results back");
  uint64_t h = w->res->digest;
  h = nc_digest64(h, mask, words * sizeof(uint64_t));
  for (int64_t i = 0; i < n; i++) {
    if (!(mask[i / 64] >> (i % 64) & 1))
      continue;
    int64_t size = sizes[i] < 0 || sizes[i] > w->stride ? w->stride : sizes[i];
    h = nc_digest64(h, &sizes[i], sizeof(int64_t));
    h = nc_digest64(h, out + i * w->stride, (size_t)size);
  }
  w->res->digest = h;
  return 0;
}

/* Guarded host buffers (a stray write lands in a guard page, recorded for
 * TBL-04, not in the harness's heap) and, for a DEVICE table, their device
 * copies. 0 or -1. */
static int buffers_make(workload *w)
{
  static const char *const names[BUFFERS] = {"workload keys", "workload values",
                                             "workload hit_mask", "workload value_sizes",
                                             "workload find values"};
  const size_t sizes[BUFFERS] = {(size_t)w->batch * 8, (size_t)(w->batch * w->stride),
                                 (size_t)(w->batch + 63) / 64 * 8, (size_t)w->batch * 8,
                                 (size_t)(w->batch * w->stride)};
  int failed = 0;
  for (int i = 0; i < BUFFERS; i++) {
    failed |= nc_guarded_alloc(&w->g[i], names[i], sizes[i]);
    if (!failed && w->feed.device >= 0)
      failed |= !(w->dev[i] = nc_feed_alloc(&w->feed, sizes[i]));
  }
  if (!failed)
    return 0;
  nc_harness_error(w->c, "out of %s memory for the workload's buffers",
                   w->feed.device >= 0 ? "device or host" : "host");
  w->res->status = NVE_ERROR_OUT_OF_MEMORY;
  w->res->harness = 1;
  snprintf(w->res->failed_op, sizeof(w->res->failed_op), "harness allocation");
  return -1;
}

static void buffers_free(workload *w)
{
  for (int i = 0; i < BUFFERS; i++) {
    nc_feed_free(w->dev[i]);
    nc_guarded_free(&w->g[i]);
  }
}

/* The ops, in order; -1 at the first failure. */
static int run_ops(workload *w, uint64_t seed)
{
  const nve_ext_table_t *t = w->t;
  unsigned char *keys = w->g[KEYS].data, *values = w->g[VALUES].data;
  int64_t batch = w->batch;
  for (int64_t i = 0; i < batch; i++) {
    /* Distinct keys: a seeded offset plus a stride, in the key's width. */
    uint64_t k = (seed % 100000) * 7 + (uint64_t)i * 13 + 1;
    memcpy(keys + i * w->key_size, &k, (size_t)w->key_size);
  }
  nc_fill_rows(values, batch, w->stride, w->row, w->dtype, seed);
  if (to_table(w, KEYS, (size_t)(batch * w->key_size)) ||
      to_table(w, VALUES, (size_t)(batch * w->stride)))
    return harness_failed(w, "copy keys and rows");
  int64_t half = batch / 2, quarter = batch / 4;
  /* The lookup counter is TBL-09's business: when reset or read fails, the
   * workload leaves it out of its digest rather than failing its own rule. */
  nc_feed_enter(&w->feed);
  int counter_kept = nc_call_reset_lookup_counter(t) == NVE_SUCCESS;
  if (step(w, "insert", nc_call_insert(t, batch, arg(w, KEYS), w->stride, w->row, arg(w, VALUES))) != 0 ||
      find_and_digest(w, batch) != 0)
    return -1;
  nc_fill_rows(values, half, w->stride, w->row, w->dtype, seed + 1);
  if (to_table(w, VALUES, (size_t)(half * w->stride)))
    return harness_failed(w, "copy rows");
  nc_feed_enter(&w->feed);
  if (step(w, "update", nc_call_update(t, half, arg(w, KEYS), w->stride, w->row, arg(w, VALUES))) != 0 ||
      find_and_digest(w, batch) != 0)
    return -1;
  /* Updates of the table's own element type, where it has one; a refusal
   * of that combination is TBL-07's business, not the workload's. */
  int64_t width = nc_dtype_width(w->dtype);
  if (width && quarter > 0) {
    nc_feed_enter(&w->feed);
    nve_status_t s = nc_call_update_accumulate(
        t, quarter, (unsigned char *)arg(w, KEYS) + quarter * w->key_size, w->stride,
        w->row / width * width, arg(w, VALUES), w->dtype);
    if (s != NVE_ERROR_NOT_IMPLEMENTED && (step(w, "update_accumulate", s) != 0 ||
                                           find_and_digest(w, batch) != 0))
      return -1;
  }
  nc_feed_enter(&w->feed);
  if (step(w, "erase", nc_call_erase(t, quarter, arg(w, KEYS))) != 0 ||
      find_and_digest(w, batch) != 0)
    return -1;
  int64_t counter = 0;
  nc_feed_enter(&w->feed);
  if (!counter_kept || nc_call_get_lookup_counter(t, &counter) != NVE_SUCCESS)
    counter = -1;
  w->res->digest = nc_digest64(w->res->digest, &counter, sizeof(counter));
  nc_feed_enter(&w->feed);
  if (step(w, "clear", nc_call_clear(t)) != 0 || find_and_digest(w, batch) != 0)
    return -1;
  return 0;
}

void nc_workload_run(nc_case *c, const nve_ext_table_t *t, nc_workload_result *out)
{
  nc_workload_run_batch(c, t, BATCH, out);
}

void nc_workload_run_batch(nc_case *c, const nve_ext_table_t *t, int64_t most,
                           nc_workload_result *out)
{
  memset(out, 0, sizeof(*out));
  workload w;
  memset(&w, 0, sizeof(w));
  w.c = c;
  w.t = t;
  w.res = out;
  /* Geometry from the table (nc_open_table vouched for it): whole rows,
   * the stride a row, fewer keys for wide rows. */
  nc_table_caps caps;
  nc_call_capabilities(t, &caps);
  w.key_size = caps.key_size;
  w.stride = nc_value_stride(c, &caps);
  w.row = nc_value_size(c, &caps);
  w.dtype = caps.dtype;
  w.batch = nc_batch_for_rows(w.stride, most);
  nc_note_wide_rows(c, &caps);
  if (nc_feed_begin_for(c, t, &w.feed) != 0) {
    out->status = NVE_ERROR_RUNTIME;
    out->harness = 1;
    snprintf(out->failed_op, sizeof(out->failed_op), "harness: device streams");
    return;
  }
  if (buffers_make(&w) == 0)
    run_ops(&w, c->cfg->seed);
  buffers_free(&w);
  nc_feed_end(&w.feed);
}

void nc_workload_report(nc_case *c, const char *when, const nc_workload_result *w)
{
  if (w->harness)
    return; /* already an ERROR of the case */
  if (w->status == NVE_SUCCESS)
    nc_note(c, when, "every operation succeeds", "%lld operations succeeded", (long long)w->ops);
  else
    nc_fail_owned(c, nc_op_owner(w->failed_op), when, "every operation succeeds",
                  "%s returned status %d: %s", w->failed_op, (int)w->status,
                  w->message[0] ? w->message : "(no message)");
}

nc_rule nc_op_owner(const char *op)
{
  int rule = nc_op_rule(op);
  return rule >= 0 ? (nc_rule)rule : NC_RULE_TBL_02;
}

int nc_has_handshake(nc_case *c)
{
  if (c->plugin->set_nve_services)
    return 1;
  nc_not_applicable(c, "the plugin does not export nve_plugin_set_nve_services (%s)",
          nc_rule_text(NC_RULE_SYM_07));
  return 0;
}

/* Time for plugin-owned threads to make their late calls before counting. */
#define LATE_USE_WAIT_US 100000

void nc_report_violations(nc_case *c, nc_rule rule, const char *call, const char *what)
{
  /* Without a thread, handler or child of the plugin's, no call can come
   * late. The sleep resumes after signals a plugin's timer sends. */
  if (!nc_quiet_now())
    nc_sleep(LATE_USE_WAIT_US / 1e6);
  size_t n = nc_violation_count(rule);
  if (n == 0) {
    nc_note(c, call, what, "no violation");
    return;
  }
  for (size_t i = 0; i < 4; i++) {
    const char *text = nc_violation_text(rule, i);
    if (!text)
      break;
    nc_fail(c, call, what, "%s%s", text, i == 0 && n > 1 ? " (and more)" : "");
  }
  if (n > 4)
    nc_note(c, call, what, "%zu violations in all", n);
}

int nc_workload_on_new_table(nc_case *c, const char *when, nc_workload_result *w)
{
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_open_table(c, &f, &t) != 0)
    return -1;
  nc_workload_run(c, &t, w);
  nc_workload_report(c, when, w);
  nc_close_table(&f, &t);
  return w->status;
}
