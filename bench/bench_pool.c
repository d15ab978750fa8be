/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make bench: is the harness's NVE services pool a fair stand-in for NVE's?
 * Three ratios, each the median of repeated runs measured in this process,
 * so machine noise cancels:
 *   barrier    round trip of an execute_n with empty tasks, against an
 *              OpenMP parallel for on the same number of threads (lower is
 *              better; target <= 1.5)
 *   copy       throughput of tasks that copy rows, against the same loop
 *              under OpenMP (target >= 0.95)
 *   find       find throughput through the harness's call wrappers (context
 *              issue and retirement, callback naming), against direct
 *              vtable calls on the reference plugin (target >= 0.95)
 * Usage: bench_pool PLUGIN.so [THREADS]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calls.h"
#include "context.h"
#include "loader.h"
#include "pool.h"
#include "services.h"

#define REPEATS 9

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return v[n / 2];
}

/* Lets the threads of the other pool stop spinning before a measurement:
 * on a small machine, idle spinners steal the cores being measured. */
static void quiesce(void)
{
  struct timespec ts = {0, 30 * 1000 * 1000};
  nanosleep(&ts, NULL);
}

/* An opaque sink, so the empty tasks are not optimised away. */
static void (*volatile sink)(int64_t);
static void touch(int64_t i) { (void)i; }

static nve_status_t empty_task(void *arg, int64_t i)
{
  (void)arg;
  sink(i);
  return NVE_SUCCESS;
}

typedef struct copy_job {
  const char *src;
  char *dst;
  size_t chunk;
} copy_job;

static nve_status_t copy_task(void *arg, int64_t i)
{
  copy_job *j = arg;
  memcpy(j->dst + (size_t)i * j->chunk, j->src + (size_t)i * j->chunk, j->chunk);
  return NVE_SUCCESS;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: bench_pool PLUGIN.so [THREADS]\n");
    return 2;
  }
  int threads = argc > 2 ? atoi(argv[2]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (threads < 1)
    threads = 1;
  sink = touch;
  nc_pool_configure(threads, NC_SCHEDULE_POOL, 1);
  omp_set_num_threads(threads);
  printf("bench: %d threads (pool and OpenMP alike), median of %d runs\n", threads, REPEATS);

  /* Barrier round trips. */
  enum { BARRIERS = 20000 };
  double pool_t[REPEATS], omp_t[REPEATS];
  for (int r = 0; r < REPEATS; r++) {
    quiesce();
    double t0 = now();
    for (int k = 0; k < BARRIERS; k++)
      nc_pool_run(threads, empty_task, NULL);
    pool_t[r] = (now() - t0) / BARRIERS;
    quiesce();
    t0 = now();
    for (int k = 0; k < BARRIERS; k++) {
#pragma omp parallel for
      for (int i = 0; i < threads; i++)
        sink(i);
    }
    omp_t[r] = (now() - t0) / BARRIERS;
  }
  double pb = median(pool_t, REPEATS), ob = median(omp_t, REPEATS);
  printf("barrier: pool %.2f us, OpenMP %.2f us per round trip; ratio %.2f (target <= 1.5)\n",
         pb * 1e6, ob * 1e6, pb / ob);

  /* Memory-bound tasks: copy 128 MiB in 64 KiB rows. */
  size_t chunk = 64 * 1024, rows = 2048;
  char *src = malloc(chunk * rows), *dst = malloc(chunk * rows);
  if (!src || !dst)
    return 3;
  memset(src, 7, chunk * rows);
  memset(dst, 0, chunk * rows);
  copy_job job = {src, dst, chunk};
  for (int r = 0; r < REPEATS; r++) {
    /* Alternate which goes first, so neither always meets a warmer cache. */
    for (int turn = 0; turn < 2; turn++) {
      quiesce();
      double t0 = now();
      if ((r + turn) % 2 == 0) {
        nc_pool_run((int64_t)rows, copy_task, &job);
        pool_t[r] = (double)(chunk * rows) / (now() - t0);
      } else {
#pragma omp parallel for schedule(dynamic)
        for (size_t i = 0; i < rows; i++)
          memcpy(dst + i * chunk, src + i * chunk, chunk);
        omp_t[r] = (double)(chunk * rows) / (now() - t0);
      }
    }
  }
  double pc = median(pool_t, REPEATS), oc = median(omp_t, REPEATS);
  printf("copy: pool %.2f GB/s, OpenMP %.2f GB/s; ratio %.3f (target >= 0.95)\n", pc / 1e9,
         oc / 1e9, pc / oc);
  free(src);
  free(dst);

  /* find through the wrappers against direct calls. */
  nc_plugin p;
  char err[512];
  if (nc_plugin_open(&p, argv[1], err, sizeof(err)) != 0 || !p.create_external_factory) {
    fprintf(stderr, "bench: cannot load %s: %s\n", argv[1], err);
    return 3;
  }
  p.set_nve_services(nc_services_table());
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  const char *e;
  if (nc_call_create_factory(&p, "{}", &f, &e) || nc_call_produce(&f, 1, "{}", &t))
    return 3;
  enum { KEYS = 65536, BATCH = 512, FINDS = 4000 };
  int64_t row = t.ops->max_row_size(t.self);
  int64_t *keys = malloc(KEYS * sizeof(int64_t));
  float *values = calloc((size_t)KEYS, (size_t)row);
  uint64_t mask[BATCH / 64];
  for (int64_t i = 0; i < KEYS; i++)
    keys[i] = i * 31 + 7;
  nc_call_insert(&t, KEYS, keys, row, row, values);
  nve_ext_context_t ctx = nc_context_acquire("bench");
  for (int r = 0; r < REPEATS; r++) {
    for (int turn = 0; turn < 2; turn++) {
      quiesce();
      double t0 = now();
      int direct = (r + turn) % 2 == 0;
      for (int k = 0; k < FINDS; k++) {
        memset(mask, 0, sizeof(mask));
        const int64_t *batch = keys + (k * BATCH) % KEYS;
        if (direct)
          t.ops->find(t.self, ctx, BATCH, batch, mask, row, values, NULL);
        else
          nc_call_find(&t, BATCH, batch, mask, row, values, NULL);
      }
      (direct ? omp_t : pool_t)[r] = FINDS / (now() - t0);
    }
  }
  double wf = median(pool_t, REPEATS), df = median(omp_t, REPEATS);
  printf("find: wrappers %.0f, direct %.0f finds of %d keys per second; ratio %.3f "
         "(target >= 0.95)\n",
         wf, df, BATCH, wf / df);
  nc_context_release(ctx);
  nc_call_table_destroy(&t);
  nc_call_factory_destroy(&f);
  free(keys);
  free(values);
  nc_pool_shutdown();
  return 0;
}
