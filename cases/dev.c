/* SPDX-License-Identifier: Apache-2.0 */
/* DEV: device bootstrap (doc/rules.md "DEV",
 * doc/contract.md#device-bootstrap). Creation, produce, factory destroy and the first device_id
 * query run before the host knows the table's device: each must restore
 * the caller's current device. The harness makes a decoy device (not 0)
 * current before each and checks it after, on the calling thread, under
 * the real runtime or cudasim (lib/cuda.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "threads.h"
#include "cases.h"
#include "common.h"
#include "cuda.h"
#include "device_feed.h"
#include "dtype.h"
#include "table_kit.h"
#include "callback.h"
#include "services.h"
#include "violations.h"

/* The location and device of a table from the run's configs, from a
 * factory and table made and destroyed for the purpose. 0, or -1 after
 * recording why not. */
static int probe_caps(nc_case *c, nc_table_caps *caps)
{
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_open_table_unchecked(c, &f, &t) != 0)
    return -1;
  nc_call_capabilities(&t, caps);
  nc_close_table(&f, &t);
  return 0;
}

/* Under the simulation, a plugin whose own copy of the runtime answers
 * (linked statically) talks to the real driver, not to cudasim: nothing
 * about its devices can be checked without a GPU. */
static int runtime_is_static(nc_case *c)
{
  if (!nc_cuda_simulated() || !c->plugin)
    return 0;
  for (size_t i = 0; i < c->cfg->elf.needed_count; i++)
    if (strncmp(c->cfg->elf.needed[i], "libcudart.so", 12) == 0)
      return 0;
  void *fn = dlsym(c->plugin->dl, "cudaGetDeviceCount");
  Dl_info where;
  if (!fn || !dladdr(fn, &where) || !where.dli_fname)
    return 0;
  char mine[PATH_MAX], theirs[PATH_MAX];
  if (!realpath(where.dli_fname, theirs) || !realpath(c->plugin->opened_path, mine))
    return 0;
  if (strcmp(mine, theirs) != 0)
    return 0;
  nc_untested(c, "the plugin links the CUDA runtime statically, so its calls bypass the simulated "
             "runtime: check it on a GPU (--cuda real, ci/gpu-check)");
  return 1;
}

/* The decoys a bootstrap check makes current before the call: devices
 * other than 0 (the runtime's default, which a careless "restore" sets)
 * and other than the table's, at least two where the count allows (fewer,
 * then 0 as well, on machines with few devices). */
#define MAX_DECOYS 3

typedef struct decoys {
  int device[MAX_DECOYS];
  int n;
  int table_device;
} decoys;

/* Fills d for a check of a table: the decoys, and the table's device (-1
 * for a HOST table, whose bootstrap calls must leave the current device
 * alone all the same). -1 after recording why not: no runtime to switch
 * devices with, DEV-01 failing, a HOST table where device_only is set
 * (DEV-07..09 concern device memory), or, when decoys are needed, one
 * device. Without need, one device gives the table's own. */
static int decoys_for(nc_case *c, int need, int device_only, decoys *d)
{
  memset(d, 0, sizeof(*d));
  if (!nc_cuda_loaded()) {
    nc_untested(c, "no CUDA runtime was loaded (--cuda off), so no decoy device can be made "
                   "current: run with --cuda sim or on a GPU");
    return -1;
  }
  if (runtime_is_static(c))
    return -1;
  nc_table_caps caps;
  if (probe_caps(c, &caps) != 0)
    return -1;
  char why[160];
  if (nc_caps_location_problem(&caps, nc_cuda_device_count(), why, sizeof(why))) {
    nc_skip_blocked(c, NC_RULE_DEV_01, "the host rejects the table: %s", why);
    return -1;
  }
  if (caps.location == NVE_BUFFER_LOCATION_HOST && device_only) {
    nc_not_applicable(c, "a HOST table (device -1): the rule concerns device memory and the "
                         "table's device");
    return -1;
  }
  d->table_device = caps.device_id; /* -1 for a HOST table */
  int count = nc_cuda_device_count();
  for (int dev = 1; dev < count && d->n < MAX_DECOYS; dev++)
    if (dev != caps.device_id)
      d->device[d->n++] = dev;
  if (d->n < 2 && caps.device_id > 0 && d->n < MAX_DECOYS)
    d->device[d->n++] = 0; /* a second decoy where only device 0 is left */
  if (d->n == 0) {
    if (!need) {
      d->device[d->n++] = caps.device_id >= 0 ? caps.device_id : 0;
      return 0;
    }
    nc_untested(c, "inconclusive: the runtime has one device, so no decoy other than device 0 "
                   "can be made current (try --cuda sim)");
    return -1;
  }
  if (d->n < 2)
    nc_note(c, "decoy devices", "two decoys, neither device 0 nor the table's",
            "the runtime has %d device(s): only device %d could be a decoy", count, d->device[0]);
  return 0;
}

static int make_current(nc_case *c, int device)
{
  int e = nc_cuda_set_device(device);
  if (e != 0)
    nc_harness_error(c, "cudaSetDevice(%d) failed with error %d", device, e);
  return e == 0 ? 0 : -1;
}

/* After a bootstrap call: the caller's device must be current again. */
static void expect_current(nc_case *c, const char *call, int decoy)
{
  int now = nc_cuda_get_device();
  if (now != decoy)
    nc_fail(c, call, "the caller's current device restored",
            "device %d is current afterwards; the caller had made device %d current", now, decoy);
  else
    nc_note(c, call, "the caller's current device restored", "device %d, as before", decoy);
}

void nc_case_DEV_01(nc_case *c)
{
  if (runtime_is_static(c))
    return;
  nc_table_caps caps;
  if (probe_caps(c, &caps) != 0)
    return;
  int count = nc_cuda_device_count();
  char why[160];
  if (nc_caps_location_problem(&caps, count, why, sizeof(why)))
    nc_fail(c, "preferred_buffer_location and device_id",
            "HOST with -1, or DEVICE with 0 <= id < device count", "%s", why);
  else
    nc_note(c, "preferred_buffer_location and device_id", "agree", "%s, device %d (%s)",
            caps.location == NVE_BUFFER_LOCATION_HOST ? "HOST" : "DEVICE", (int)caps.device_id,
            nc_cuda_describe());
  if (caps.location == NVE_BUFFER_LOCATION_DEVICE && !count)
    nc_untested(c, "inconclusive: a DEVICE table and no CUDA runtime to count devices (--cuda off)");
}

void nc_case_DEV_02(nc_case *c)
{
  decoys d;
  if (decoys_for(c, 1, 0, &d) != 0)
    return;
  for (int i = 0; i < d.n && make_current(c, d.device[i]) == 0; i++) {
    nve_ext_table_factory_t f;
    if (nc_create_factory(c, &f) != 0)
      return;
    expect_current(c, "nve_plugin_create_external_factory", d.device[i]);
    nc_call_factory_destroy(&f);
  }
}

void nc_case_DEV_03(nc_case *c)
{
  decoys d;
  nve_ext_table_factory_t f;
  if (decoys_for(c, 1, 0, &d) != 0 || nc_create_factory(c, &f) != 0)
    return;
  for (int i = 0; i < d.n && make_current(c, d.device[i]) == 0; i++) {
    nve_ext_table_t t;
    if (nc_produce_table(c, &f, &t) != 0)
      break;
    expect_current(c, "factory produce", d.device[i]);
    nc_call_table_destroy(&t);
  }
  nc_call_factory_destroy(&f);
}

void nc_case_DEV_04(nc_case *c)
{
  decoys d;
  if (decoys_for(c, 1, 0, &d) != 0)
    return;
  for (int i = 0; i < d.n; i++) {
    nve_ext_table_factory_t f;
    nve_ext_table_t t;
    if (nc_open_table(c, &f, &t) != 0)
      return;
    nc_call_table_destroy(&t);
    if (make_current(c, d.device[i]) != 0)
      return;
    nc_call_factory_destroy(&f);
    expect_current(c, "factory destroy", d.device[i]);
  }
}

void nc_case_DEV_05(nc_case *c)
{
  decoys d;
  if (decoys_for(c, 1, 0, &d) != 0)
    return;
  for (int i = 0; i < d.n; i++) {
    nve_ext_table_factory_t f;
    nve_ext_table_t t;
    /* Unchecked: the checks read device_id, and this query must be the first. */
    if (nc_open_table_unchecked(c, &f, &t) != 0)
      return;
    if (make_current(c, d.device[i]) == 0) {
      nc_callback_enter("table device_id (the first query)");
      int32_t id = t.ops->device_id(t.self);
      nc_callback_leave();
      expect_current(c, "the first device_id query", d.device[i]);
      nc_note(c, "device_id", "the table's device", "%d", (int)id);
    }
    nc_close_table(&f, &t);
  }
}

/* ---- DEV-06: capabilities are constant ------------------------------------------ */

#define CAP_READS 50
#define CAP_THREADS 4

typedef struct cap_reader {
  const nve_ext_table_t *t;
  nc_table_caps first;
  int differ;
  char what[200];
} cap_reader;

static void compare_caps(cap_reader *r, const nc_table_caps *now, int read)
{
  if (r->differ++ > 0)
    return;
  snprintf(r->what, sizeof(r->what),
           "read %d: location %d, device %d, max_row_size %lld, key_size %lld, invalid_key %lld, "
           "dtype %d, counter_hits %lld",
           read, (int)now->location, (int)now->device_id, (long long)now->max_row_size,
           (long long)now->key_size, (long long)now->invalid_key, (int)now->dtype,
           (long long)now->counter_hits);
}

static void *read_caps(void *arg)
{
  cap_reader *r = arg;
  for (int i = 0; i < CAP_READS; i++) {
    nc_table_caps now;
    nc_call_capabilities(r->t, &now);
    if (nc_caps_differ(&now, &r->first))
      compare_caps(r, &now, i + 2);
  }
  return NULL;
}

void nc_case_DEV_06(nc_case *c)
{
  /* Every table, HOST ones too: a host caches the capabilities. */
  if (runtime_is_static(c))
    return;
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_open_table(c, &f, &t) != 0)
    return;
  cap_reader readers[CAP_THREADS + 1];
  pthread_t threads[CAP_THREADS];
  memset(readers, 0, sizeof(readers));
  nc_call_capabilities(&t, &readers[0].first);
  for (int i = 0; i <= CAP_THREADS; i++) {
    readers[i].t = &t;
    readers[i].first = readers[0].first;
  }
  read_caps(&readers[0]); /* this thread, then others at once */
  int started = 0;
  for (int i = 0; i < CAP_THREADS; i++)
    if (nc_thread_create(&threads[i], read_caps, &readers[i + 1]) == 0)
      started++;
  for (int i = 0; i < started; i++)
    pthread_join(threads[i], NULL);
  for (int i = 0; i <= started; i++)
    if (readers[i].differ)
      nc_fail(c, "table capabilities", "the same answers on every read",
              "%s differs from the first read (%d of %d reads on %s)", readers[i].what,
              readers[i].differ, CAP_READS, i ? "another thread" : "the first thread");
  nc_note(c, "table capabilities", "constant", "%d reads on 1 + %d threads", CAP_READS,
          started);
  nc_close_table(&f, &t);
}

/* ---- DEV-07..09: table callbacks with device buffers ---------------------------- */

#define ROUND_KEYS 64

/* One round's geometry, from the table: its key size, whole rows of its
 * max_row_size (fewer keys for wide rows), its element type. */
typedef struct round_shape {
  int64_t keys, key_size, row, update_size;
  nve_data_type_t dtype;
} round_shape;

/* Device buffers for one round of table callbacks, on the table's device. */
typedef struct device_buffers {
  round_shape shape;
  void *keys, *rows, *mask, *out, *sizes;
} device_buffers;

static void buffers_release(device_buffers *b)
{
  void *all[] = {b->keys, b->rows, b->mask, b->out, b->sizes};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
    nc_feed_free(all[i]);
  memset(b, 0, sizeof(*b));
}

/* A device copy of size bytes at host (host NULL: zeros) on the feed's
 * device, or NULL. */
static void *device_copy(const nc_device_feed *feed, const void *host, size_t size)
{
  void *dev = nc_feed_alloc(feed, size);
  void *zeros = host ? NULL : calloc(1, size ? size : 1);
  if (dev && (host || zeros) && nc_feed_put(dev, host ? host : zeros, size) == 0) {
    free(zeros);
    return dev;
  }
  free(zeros);
  nc_feed_free(dev);
  return NULL;
}

static int buffers_make(nc_case *c, const nc_device_feed *feed, const nc_table_caps *caps,
                        device_buffers *b)
{
  round_shape *sh = &b->shape;
  sh->key_size = caps->key_size;
  sh->row = nc_value_stride(c, caps);
  sh->dtype = caps->dtype;
  sh->keys = NC_TK_BUFFER_BYTES / (sh->row + 16) < ROUND_KEYS ? NC_TK_BUFFER_BYTES / (sh->row + 16)
                                                             : ROUND_KEYS;
  int64_t width = nc_dtype_width(sh->dtype);
  sh->update_size = width ? sh->row / width * width : 0;
  if (sh->keys < 1) {
    nc_untested(c, "max_row_size is %lld bytes: more than the harness feeds", (long long)sh->row);
    return -1;
  }
  unsigned char keys[ROUND_KEYS * 8];
  for (int64_t i = 0; i < sh->keys; i++) {
    int64_t k = 1000 + i;
    if (sh->key_size == 4) {
      int32_t k4 = (int32_t)k;
      memcpy(keys + 4 * i, &k4, 4);
    } else {
      memcpy(keys + 8 * i, &k, 8);
    }
  }
  size_t row_bytes = (size_t)(sh->keys * sh->row);
  unsigned char *rows = malloc(row_bytes ? row_bytes : 1);
  if (rows)
    nc_fill_rows(rows, sh->keys, sh->row, sh->row, sh->dtype, 7);
  b->keys = device_copy(feed, keys, (size_t)(sh->keys * sh->key_size));
  b->rows = rows ? device_copy(feed, rows, row_bytes) : NULL;
  b->mask = device_copy(feed, NULL, 8 * (size_t)((sh->keys + 63) / 64));
  b->out = device_copy(feed, NULL, row_bytes);
  b->sizes = device_copy(feed, NULL, 8 * (size_t)sh->keys);
  free(rows);
  if (b->keys && b->rows && b->mask && b->out && b->sizes)
    return 0;
  nc_harness_error(c, "could not make device buffers on device %d", feed->device);
  buffers_release(b);
  return -1;
}

/* Every table callback once with device buffers, the table's device made
 * current (after `other`) around each, as the host does; failures of
 * callbacks are recorded when `report` is set. Returns how many failed;
 * *hits (may be NULL) gets how many of the keys just inserted find hit. */
static int device_round(nc_case *c, const nve_ext_table_t *t, int device, int other,
                        const device_buffers *b, int report, int *hits)
{
  const round_shape *sh = &b->shape;
  int failed = 0;
  if (hits)
    *hits = -1;
  for (int op = 0; op < 7; op++) {
    nc_cuda_set_device(other);
    nc_cuda_set_device(device);
    nve_status_t s;
    const char *name;
    switch (op) {
    case 0: name = "reset_lookup_counter"; s = nc_call_reset_lookup_counter(t); break;
    case 1:
      name = "insert";
      s = nc_call_insert(t, sh->keys, b->keys, sh->row, sh->row, b->rows);
      break;
    case 2:
      name = "find";
      s = nc_call_find(t, sh->keys, b->keys, b->mask, sh->row, b->out, b->sizes);
      uint64_t mask[(ROUND_KEYS + 63) / 64];
      if (s == NVE_SUCCESS && hits &&
          nc_feed_get(mask, b->mask, 8 * (size_t)((sh->keys + 63) / 64)) == 0) {
        *hits = 0;
        for (int64_t w = 0; w < (sh->keys + 63) / 64; w++)
          *hits += __builtin_popcountll(mask[w]);
      }
      break;
    case 3:
      name = "update";
      s = nc_call_update(t, sh->keys, b->keys, sh->row, sh->row, b->rows);
      break;
    case 4:
      /* Updates of the table's own element type, where it has one; a
       * refusal of the combination is TBL-07's business. */
      name = "update_accumulate";
      s = sh->update_size ? nc_call_update_accumulate(t, sh->keys, b->keys, sh->row,
                                                      sh->update_size, b->rows, sh->dtype)
                          : NVE_SUCCESS;
      break;
    case 5: name = "erase"; s = nc_call_erase(t, sh->keys / 2, b->keys); break;
    default: name = "clear"; s = nc_call_clear(t); break;
    }
    if (s != NVE_SUCCESS && !(op == 4 && s == NVE_ERROR_NOT_IMPLEMENTED)) {
      failed++;
      if (report) {
        char msg[256] = "";
        nc_read_plugin_string(nc_call_table_last_error(t), msg, sizeof(msg));
        nc_fail(c, name, "NVE_SUCCESS with the table's device current",
                "status %d (%s); device %d was made current after device %d", (int)s, msg,
                device, other);
      }
    }
  }
  return failed;
}

/* A DEVICE table with its streams and buffers, for DEV-07..09. */
typedef struct device_setup {
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  int device, other; /* the table's device; the first decoy */
  decoys decoys;
  nc_device_feed feed; /* the contexts' streams on the table's device */
  device_buffers b;
} device_setup;

static int setup_open(nc_case *c, device_setup *d)
{
  memset(d, 0, sizeof(*d));
  if (decoys_for(c, 0, 1, &d->decoys) != 0 || nc_open_table(c, &d->f, &d->t) != 0)
    return -1;
  d->other = d->decoys.device[0];
  nc_table_caps caps;
  nc_call_capabilities(&d->t, &caps);
  d->device = caps.device_id;
  if (nc_feed_begin(c, NVE_BUFFER_LOCATION_DEVICE, d->device, &d->feed) != 0) {
    nc_close_table(&d->f, &d->t);
    return -1;
  }
  if (buffers_make(c, &d->feed, &caps, &d->b) != 0) {
    nc_close_table(&d->f, &d->t);
    nc_feed_end(&d->feed);
    return -1;
  }
  return 0;
}

static void setup_close(device_setup *d)
{
  nc_cuda_set_device(d->other);
  nc_cuda_set_device(d->device); /* the host destroys a table on its device */
  nc_call_table_destroy(&d->t);
  nc_call_factory_destroy(&d->f);
  buffers_release(&d->b);
  nc_feed_end(&d->feed);
}

void nc_case_DEV_07(nc_case *c)
{
  device_setup d;
  if (setup_open(c, &d) != 0)
    return;
  if (!nc_cuda_simulated())
    nc_note(c, "device memory", "no host access",
            "under the real runtime a host access crashes, and that is what is reported");
  device_round(c, &d.t, d.device, d.other, &d.b, 0, NULL);
  nc_report_violations(c, NC_RULE_DEV_07, "table callbacks with device buffers",
                       "no host access to device memory");
  setup_close(&d);
}

/* DEV-08 over a window of cudasim's whole-process watch: allocations on
 * another device than the table's. */
static void window_allocations(nc_case *c, const char *when, const int *allocs, int ndev,
                               int device)
{
  for (int dev = 0; dev < ndev && dev < 16; dev++)
    if (dev != device && allocs[dev])
      nc_fail(c, when, "device memory on the table's device",
              "%d allocation(s) on device %d; the table reports device %d", allocs[dev], dev,
              device);
}

/* The same for streams other than the contexts' (given), judged only where
 * the plugin could ask for them. */
static void window_streams(nc_case *c, const char *when, void *const *streams, int nstreams,
                           void *const given[2])
{
  for (int i = 0; i < nstreams && nc_services_streams_offered(); i++)
    if (!streams[i])
      nc_fail(c, when, "async work on the context's streams", "work on the default stream");
    else if (streams[i] != given[0] && streams[i] != given[1])
      nc_fail(c, when, "async work on the context's streams",
              "work on stream %p, which the host did not give", streams[i]);
}

void nc_case_DEV_08(nc_case *c)
{
  if (!nc_cuda_simulated()) {
    decoys d;
    if (decoys_for(c, 0, 1, &d) >= 0)
      nc_untested(c, "the real runtime does not report which device each allocation and copy used; "
                 "the simulation does (--cuda sim)");
    return;
  }
  int ndev = nc_cuda_device_count(), allocs[16];
  void *streams[8];
  device_setup d;
  if (setup_open(c, &d) != 0)
    return;
  /* produce runs before the host knows the new table's device, while the
   * caller has any device current: a decoy, so that a produce allocating
   * on the current device rather than its table's shows. Its allocations
   * are judged against the first table's device, over every thread (it
   * has no context, so its streams are its own choice). */
  if (make_current(c, d.other) != 0) {
    setup_close(&d);
    return;
  }
  nc_cuda_watch_take(allocs, 16, streams, 8); /* forget the set-up */
  nve_ext_table_t t2;
  int made = nc_produce_table(c, &d.f, &t2) == 0;
  nc_cuda_watch_take(allocs, 16, streams, 8);
  window_allocations(c, "produce", allocs, ndev, d.device);
  /* Table callbacks: the call wrappers watch the calling thread (in every
   * case); here the streams of the other threads too (tasks, the plugin's
   * own). */
  device_round(c, &d.t, d.device, d.other, &d.b, 0, NULL);
  int nstreams = nc_cuda_watch_take(allocs, 16, streams, 8);
  nc_report_violations(c, NC_RULE_DEV_08, "table callbacks with device buffers",
                       "allocations on the table's device, async work on the context's streams");
  if (nc_violation_count(NC_RULE_DEV_08) == 0)
    window_streams(c, "table callbacks, on any thread", streams, nstreams, d.feed.streams);
  if (made)
    nc_call_table_destroy(&t2);
  setup_close(&d);
}

void nc_case_DEV_09(nc_case *c)
{
  device_setup d;
  if (setup_open(c, &d) != 0)
    return;
  int hits = -1, launches = nc_cuda_unsupported_calls(), failed = 0;
  /* A round after each decoy: the table's device made current after it. */
  for (int i = 0; i < d.decoys.n && !failed; i++)
    failed = device_round(c, &d.t, d.device, d.decoys.device[i], &d.b, 0, &hits);
  if (nc_cuda_unsupported_calls() > launches) {
    nc_untested(c, "the table launches kernels, which the simulated runtime cannot run: check it on "
               "a GPU (--cuda real, ci/gpu-check)");
    setup_close(&d);
    return;
  }
  if (failed) /* again, now recording each failure */
    for (int i = 0; i < d.decoys.n; i++)
      device_round(c, &d.t, d.device, d.decoys.device[i], &d.b, 1, &hits);
  else
    nc_note(c, "every table callback", "works with the table's device made current",
            "device %d made current after each of %d decoy(s), 7 callbacks on %lld keys of %lld "
            "bytes; find hit %d of the keys just inserted (insert is best effort)",
            d.device, d.decoys.n, (long long)d.b.shape.keys, (long long)d.b.shape.row, hits);
  setup_close(&d);
}
