/* SPDX-License-Identifier: Apache-2.0 */
/* LIF: lifecycles (doc/rules.md "LIF"). A table outlives its factory, tables
 * are independent of each other, and the plugin survives being loaded and
 * unloaded again. LIF-03 (nothing leaks) is in own.c with the allocation
 * checks. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "call_log.h"
#include "cases.h"
#include "common.h"
#include "explore.h"
#include "explore_fresh.h"
#include "loader.h"
#include "pool.h"
#include "runner.h"
#include "services.h"
#include "table_kit.h"

#define KEYS 100
#define DEEP_KEYS 4096

/* Stores rows, rewrites some, reads them back. The ops whose meaning TBL
 * checks in detail (erase, clear, accumulate) are left to TBL, so that a
 * broken op fails its own rule rather than every lifecycle. */
static void exercise(nc_tk *k, uint64_t tag)
{
  int64_t keys[KEYS], n = nc_tk_batch(k, KEYS);
  nc_tk_keys(k, keys, n, 5000);
  if (nc_tk_insert(k, n, keys, 0, tag, 0) != NVE_SUCCESS)
    return;
  nc_tk_update(k, n / 2, keys, 0, tag + 1, 0);
  nc_tk_find(k, n, keys, NULL, NULL);
  nc_tk_insert(k, n - n / 2, keys + n / 2, 0, tag + 2, 0);
  nc_tk_find(k, n, keys, NULL, NULL);
}

void nc_case_LIF_01(nc_case *c)
{
  nc_x_fresh_start(c); /* before the case's first table */
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_open_table(c, &f, &t) != 0)
    return;
  nc_call_factory_destroy(&f); /* the host may drop the factory first */
  nc_tk k;
  if (nc_tk_init(&k, c, &t) == 0) {
    exercise(&k, 1);
    nc_tk_done(&k);
  }
  nc_call_table_destroy(&t);
  nc_explore_lifecycle(c);
}

/* A second table from f (table ID 2), checked as the first. */
static int second_table(nc_case *c, const nve_ext_table_factory_t *f, nc_tk *k)
{
  nve_ext_table_t t = {0};
  nve_status_t s = nc_call_produce(f, 2, c->cfg->table_config, &t);
  if (s != NVE_SUCCESS)
    nc_note_refused_call(NC_RULE_LIF_02, nc_call_log_last_line(), s);
  if (s != NVE_SUCCESS || !nc_handle_usable(t.self, t.ops, sizeof(nve_ext_table_ops_t),
                                            NC_TABLE_OPS_FNS)) {
    nc_fail(c, "produce (a second table)", "a second usable table", "status %d", (int)s);
    return -1;
  }
  if (nc_tk_init(k, c, &t) != 0) {
    nc_call_table_destroy(&t);
    return -1;
  }
  return 0;
}

/* Writes different rows for the same n keys into a and b, then changes
 * each alone: the models (one per table) notice any crosstalk. */
static void independent(nc_tk *a, nc_tk *b, int64_t n)
{
  n = nc_tk_batch(a, 2 * n) / 2;
  int64_t *keys = malloc((size_t)(2 * n) * sizeof(int64_t));
  if (!keys) {
    nc_harness_error(a->c, "out of memory for %lld keys", (long long)(2 * n));
    return;
  }
  nc_tk_keys(a, keys, 2 * n, 7000);
  if (nc_tk_insert(a, n, keys, 0, 1, 0) == NVE_SUCCESS &&
      nc_tk_insert(b, n, keys, 0, 2, 0) == NVE_SUCCESS) {
    nc_tk_insert(b, n / 2, keys + n, 0, 3, 0); /* keys a never saw */
    nc_tk_update(a, n, keys, 0, 4, 0);
    nc_tk_find(a, 2 * n, keys, NULL, NULL);
    nc_tk_find(b, 2 * n, keys, NULL, NULL);
    /* Removals in one table leave the other alone (only the untouched
     * table is read: erase and clear themselves are TBL-08's). */
    nc_tk_erase(b, n / 2, keys, 0);
    nc_tk_find(a, 2 * n, keys, NULL, NULL);
    nc_tk_clear(a, 0);
    nc_tk_find(b, n - n / 2, keys + n / 2, NULL, NULL);
  }
  free(keys);
}

void nc_case_LIF_02(nc_case *c)
{
  nc_x_fresh_start(c); /* before the case's first table */
  nve_ext_table_factory_t f1, f2;
  nc_tk a, b;
  if (nc_tk_open(&a, &f1, c) != 0)
    return;
  /* Two tables from one factory. */
  if (second_table(c, &f1, &b) == 0) {
    independent(&a, &b, KEYS);
    nc_call_table_destroy(&b.t);
    nc_tk_done(&b);
  }
  nc_tk_close(&a, &f1);
  /* One table from each of two factories alive at once. */
  if (nc_tk_open(&a, &f1, c) != 0)
    return;
  if (nc_tk_open(&b, &f2, c) == 0) {
    independent(&a, &b, KEYS);
    nc_tk_close(&b, &f2);
  }
  nc_tk_close(&a, &f1);
  /* Once at depth: thousands of keys in each of two tables. */
  if (nc_tk_open(&a, &f1, c) != 0)
    return;
  if (second_table(c, &f1, &b) == 0) {
    independent(&a, &b, DEEP_KEYS);
    nc_call_table_destroy(&b.t);
    nc_tk_done(&b);
  }
  nc_tk_close(&a, &f1);
  nc_explore_lifecycle(c);
}

/* ---- LIF-04 ------------------------------------------------------------------ */

#define CYCLES 5

static int thread_count(void)
{
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Waits up to half a second for the plugin's own threads to finish;
 * returns how many remain above baseline. */
static int lingering_threads(int baseline)
{
  int extra = 0;
  for (int i = 0; i < 50; i++) {
    extra = thread_count() - baseline;
    if (extra <= 0)
      return 0;
    nc_sleep(0.01);
  }
  return extra;
}

/* One load, use and unload. Returns 0, or -1 after recording a failure. */
static int cycle(nc_case *c, int round, nc_plugin *p, int baseline)
{
  char err[1024];
  if (nc_plugin_open(p, c->cfg->plugin_path, err, sizeof(err)) != 0) {
    nc_fail(c, "dlopen", "the plugin loads again", "cycle %d: %s", round, err);
    return -1;
  }
  nc_host_load load;
  nc_host_load_run(p, c->cfg->host_major, c->cfg->host_minor, nc_services_table(), &load);
  if (!load.accepted) {
    nc_fail(c, "host load", "the plugin is accepted again", "cycle %d: %s", round, load.reason);
    nc_plugin_close(p);
    return -1;
  }
  nc_plugin *was = c->plugin;
  c->plugin = p;
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) == 0) {
    exercise(&k, 100 + (uint64_t)round);
    nc_tk_close(&k, &f);
  }
  c->plugin = was;
  /* Unloading under a running plugin thread unmaps its code: it crashes
   * when it next runs. Say so, and leave the plugin loaded. */
  int extra = baseline >= 0 ? lingering_threads(baseline) : 0;
  if (extra > 0) {
    nc_fail(c, "dlclose", "no plugin thread still running when the host unloads the plugin",
            "cycle %d: %d thread(s) the plugin started still run after every table and factory "
            "was destroyed; unloading now would unmap their code (not unloaded)",
            round, extra);
    return -1;
  }
  nc_plugin_close(p);
  return 0;
}

void nc_case_LIF_04(nc_case *c)
{
  /* This process's own handle goes first, so that dlclose can unload; the
   * pool runs inline (as in every table case), so that every thread above
   * the baseline is the plugin's. */
  nc_plugin_close(c->plugin);
  nc_pool_configure(c->cfg->workers, NC_SCHEDULE_INLINE, c->cfg->seed);
  int baseline = thread_count(), still_loaded = 0;
  for (int round = 1; round <= CYCLES; round++) {
    nc_plugin p;
    if (cycle(c, round, &p, baseline) != 0)
      return;
    void *again = dlopen(c->cfg->plugin_path, RTLD_NOW | RTLD_NOLOAD);
    if (again) {
      still_loaded++;
      dlclose(again);
    }
  }
  nc_note(c, "load, create, use, destroy, unload", "stable across cycles",
          "%d cycles; the SO %s after dlclose", CYCLES,
          still_loaded ? "stayed mapped (RTLD_NODELETE or another reference)" : "was unmapped");
}
