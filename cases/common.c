/* SPDX-License-Identifier: Apache-2.0 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calls.h"
#include "guarded.h"
#include "violations.h"

int nc_create_factory(nc_case *c, nve_ext_table_factory_t *f)
{
  memset(f, 0, sizeof(*f));
  const char *err = NULL;
  nve_status_t s = nc_call_create_factory(c->plugin, c->cfg->factory_config, f, &err);
  if (s == NVE_SUCCESS)
    return 0;
  char msg[512] = "";
  if (err)
    nc_read_plugin_string(err, msg, sizeof(msg));
  nc_harness_error(c,
                   "factory creation with config %s failed (status %d: %s); give a config "
                   "the plugin accepts with --factory-config",
                   c->cfg->factory_config, (int)s, msg);
  return -1;
}

int nc_produce_table(nc_case *c, const nve_ext_table_factory_t *f, nve_ext_table_t *t)
{
  memset(t, 0, sizeof(*t));
  nve_status_t s = nc_call_produce(f, 1, c->cfg->table_config, t);
  if (s == NVE_SUCCESS)
    return 0;
  char msg[512] = "";
  nc_read_plugin_string(nc_call_factory_last_error(f), msg, sizeof(msg));
  nc_harness_error(c,
                   "produce with config %s failed (status %d: %s); give a config the plugin "
                   "accepts with --table-config",
                   c->cfg->table_config, (int)s, msg);
  return -1;
}

/* The cases that give a DEVICE table device buffers (LIF-03 runs the
 * host-buffer workload). */
static int feeds_device_buffers(const nc_case *c)
{
  const char *fam = c->def->info.family;
  return strcmp(fam, "DEV") == 0 || strcmp(fam, "TBL") == 0 ||
         (strcmp(fam, "LIF") == 0 && strcmp(c->def->info.id, "LIF-03") != 0);
}

int nc_open_table(nc_case *c, nve_ext_table_factory_t *f, nve_ext_table_t *t)
{
  if (nc_create_factory(c, f) != 0)
    return -1;
  if (!nc_handle_usable(f->self, f->ops, sizeof(nve_ext_table_factory_ops_t), NC_FACTORY_OPS_FNS)) {
    nc_skip(c, "blocked: the host rejects the factory handle (VER-03)");
    if (nc_destroy_known_good(f->ops))
      nc_call_factory_destroy(f);
    return -1;
  }
  if (nc_produce_table(c, f, t) != 0) {
    nc_call_factory_destroy(f);
    return -1;
  }
  if (!nc_handle_usable(t->self, t->ops, sizeof(nve_ext_table_ops_t), NC_TABLE_OPS_FNS)) {
    nc_skip(c, "blocked: the host rejects the table handle (VER-03)");
    if (nc_destroy_known_good(t->ops))
      nc_call_table_destroy(t);
    nc_call_factory_destroy(f);
    return -1;
  }
  /* The workload-based cases hand tables host buffers, which a DEVICE
   * table never sees from a host; the DEV, TBL and LIF cases give it
   * device buffers (cases/table_kit.c). */
  if (!feeds_device_buffers(c) &&
      t->ops->preferred_buffer_location(t->self) == NVE_BUFFER_LOCATION_DEVICE) {
    nc_skip(c, "a DEVICE table: this rule's checks use host buffers; the DEV, TBL and LIF "
               "rules check device tables with device buffers");
    nc_close_table(f, t);
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

#define BATCH 5000
#define ROW_CAP 256

static uint64_t next_random(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

typedef struct workload {
  const nve_ext_table_t *t;
  int64_t key_size, row;
  unsigned char *keys;
  float *values;
  uint64_t *mask;
  int64_t *sizes;
  float *out;
  nc_workload_result *res;
} workload;

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

/* A find of the first n keys, folded into the digest. */
static int find_and_digest(workload *w, int64_t n)
{
  size_t words = (size_t)(n + 63) / 64;
  memset(w->mask, 0, words * sizeof(uint64_t));
  memset(w->sizes, 0, (size_t)n * sizeof(int64_t));
  memset(w->out, 0, (size_t)(n * w->row));
  if (step(w, "find", nc_call_find(w->t, n, w->keys, w->mask, w->row, w->out, w->sizes)) != 0)
    return -1;
  uint64_t h = w->res->digest;
  h = fnv(h, w->mask, words * sizeof(uint64_t));
  for (int64_t i = 0; i < n; i++) {
    if (!(w->mask[i / 64] >> (i % 64) & 1))
      continue;
    int64_t size = w->sizes[i] < 0 || w->sizes[i] > w->row ? w->row : w->sizes[i];
    h = fnv(h, &w->sizes[i], sizeof(int64_t));
    h = fnv(h, (const char *)w->out + i * w->row, (size_t)size);
  }
  w->res->digest = h;
  return 0;
}

void nc_workload_run(const nve_ext_table_t *t, uint64_t seed, nc_workload_result *out)
{
  memset(out, 0, sizeof(*out));
  workload w = {t, nc_call_key_size(t), nc_call_max_row_size(t), NULL, NULL, NULL, NULL, NULL,
                out};
  if (w.key_size != 4 && w.key_size != 8) {
    out->status = NVE_ERROR_INVALID_ARGUMENT;
    snprintf(out->failed_op, sizeof(out->failed_op), "key_size");
    snprintf(out->message, sizeof(out->message), "key size %lld is not 4 or 8",
             (long long)w.key_size);
    return;
  }
  if (w.row > ROW_CAP)
    w.row = ROW_CAP;
  w.row -= w.row % 4;
  if (w.row <= 0)
    w.row = 4;
  /* Guarded like every buffer handed to a plugin: a stray write lands in a
   * guard page (recorded for TBL-04), not in the harness's heap. */
  nc_guarded g[5];
  int failed = nc_guarded_alloc(&g[0], "workload keys", (size_t)BATCH * 8) |
               nc_guarded_alloc(&g[1], "workload values", (size_t)(BATCH * w.row)) |
               nc_guarded_alloc(&g[2], "workload hit_mask", (size_t)(BATCH + 63) / 64 * 8) |
               nc_guarded_alloc(&g[3], "workload value_sizes", (size_t)BATCH * 8) |
               nc_guarded_alloc(&g[4], "workload find values", (size_t)(BATCH * w.row));
  w.keys = g[0].data;
  w.values = (float *)g[1].data;
  w.mask = (uint64_t *)g[2].data;
  w.sizes = (int64_t *)g[3].data;
  w.out = (float *)g[4].data;
  if (failed) {
    out->status = NVE_ERROR_OUT_OF_MEMORY;
    snprintf(out->failed_op, sizeof(out->failed_op), "harness allocation");
    goto done;
  }
  uint64_t rng = seed;
  for (int64_t i = 0; i < BATCH; i++) {
    /* Distinct keys: a seeded offset plus a stride, in the key's width. */
    uint64_t k = (seed % 100000) * 7 + (uint64_t)i * 13 + 1;
    memcpy(w.keys + i * w.key_size, &k, (size_t)w.key_size);
  }
  for (int64_t i = 0; i < BATCH * w.row / 4; i++)
    w.values[i] = (float)(next_random(&rng) % 1000) / 8.0f;
  int64_t half = BATCH / 2, quarter = BATCH / 4;
  if (step(&w, "reset_lookup_counter", nc_call_reset_lookup_counter(t)) != 0 ||
      step(&w, "insert", nc_call_insert(t, BATCH, w.keys, w.row, w.row, w.values)) != 0 ||
      find_and_digest(&w, BATCH) != 0)
    goto done;
  for (int64_t i = 0; i < half * w.row / 4; i++)
    w.values[i] += 1.0f;
  if (step(&w, "update", nc_call_update(t, half, w.keys, w.row, w.row, w.values)) != 0 ||
      find_and_digest(&w, BATCH) != 0 ||
      step(&w, "update_accumulate",
           nc_call_update_accumulate(t, quarter, w.keys + quarter * w.key_size, w.row, w.row,
                                     w.values, NVE_DTYPE_FLOAT32)) != 0 ||
      find_and_digest(&w, BATCH) != 0 ||
      step(&w, "erase", nc_call_erase(t, quarter, w.keys)) != 0 || find_and_digest(&w, BATCH) != 0)
    goto done;
  int64_t counter = 0;
  if (step(&w, "get_lookup_counter", nc_call_get_lookup_counter(t, &counter)) != 0)
    goto done;
  out->digest = fnv(out->digest, &counter, sizeof(counter));
  if (step(&w, "clear", nc_call_clear(t)) != 0 || find_and_digest(&w, BATCH) != 0)
    goto done;
done:
  for (int i = 0; i < 5; i++)
    nc_guarded_free(&g[i]);
}

void nc_workload_report(nc_case *c, const char *when, const nc_workload_result *w)
{
  if (w->status == NVE_SUCCESS)
    nc_note(c, when, "every operation succeeds", "%lld operations succeeded", (long long)w->ops);
  else
    nc_fail(c, when, "every operation succeeds", "%s returned status %d: %s", w->failed_op,
            (int)w->status, w->message[0] ? w->message : "(no message)");
}

int nc_has_handshake(nc_case *c)
{
  if (c->plugin->set_nve_services)
    return 1;
  nc_skip(c, "not applicable: the plugin does not export nve_plugin_set_nve_services (SYM-07)");
  return 0;
}

/* Time for plugin-owned threads to make their late calls before counting. */
#define LATE_USE_WAIT_US 100000

void nc_report_violations(nc_case *c, const char *rule, const char *call, const char *what)
{
  usleep(LATE_USE_WAIT_US);
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
  nc_workload_run(&t, c->cfg->seed, w);
  nc_workload_report(c, when, w);
  nc_close_table(&f, &t);
  return w->status;
}
