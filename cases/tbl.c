/* SPDX-License-Identifier: Apache-2.0 */
/* TBL: table semantics against the model (rules.md "TBL", abi.md section 7).
 * Each case drives a table through lib/oracle.h's model with cases/
 * table_kit.h and records every disagreement as evidence of its rule.
 * TBL-11 (seeded random sequences) lives in tbl_random.c. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "common.h"
#include "table_kit.h"

/* Keys the targeted cases use: small, distinct, away from the edges. */
#define BASE 1000

static void note_hits(nc_case *c, int64_t hits, int64_t asked)
{
  if (hits == 0 && asked > 0)
    nc_skip(c, "inconclusive: the table returned no hit for %lld stored keys (insert is best "
            "effort); declare the table exact in a profile",
            (long long)asked);
}

void nc_case_tbl_01(nc_case *c)
{
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_open_table(c, &f, &t) != 0)
    return;
  nc_table_caps caps;
  nc_call_capabilities(&t, &caps);
  char why[160];
  if (nc_caps_problem(&caps, why, sizeof(why)))
    nc_fail(c, "table capabilities", "values the host accepts (abi.md §6 Capabilities)", "%s",
            why);
  else
    nc_note(c, "table capabilities", "values the host accepts",
            "key_size %lld, max_row_size %lld, dtype %d, location %d, device %d, counter counts "
            "%s",
            (long long)caps.key_size, (long long)caps.max_row_size, (int)caps.dtype,
            (int)caps.location, (int)caps.device_id, caps.counter_hits ? "hits" : "misses");
  nc_close_table(&f, &t);
}

void nc_case_tbl_02(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-02") != 0)
    return;
  enum { N = 200 };
  int64_t keys[2 * N];
  nc_tk_key_range(keys, 2 * N, BASE);
  int64_t hits = 0;
  /* Stored keys come back exactly; keys never written never hit. */
  if (nc_tk_insert(&k, N, keys, 0, 1, 0) == NVE_SUCCESS) {
    hits += nc_tk_find(&k, 2 * N, keys, NULL, NULL);
    /* A second write of the same keys, read twice: no stale bytes. */
    nc_tk_update(&k, N, keys, 0, 2, 0);
    hits += nc_tk_find(&k, N, keys, NULL, NULL);
    nc_tk_insert(&k, N / 2, keys + N, 0, 3, 0);
    nc_tk_update(&k, N, keys + N / 2, 0, 4, 0);
    hits += nc_tk_find(&k, 2 * N, keys, NULL, NULL);
  }
  note_hits(c, hits, 2 * N);
  nc_tk_close(&k, &f);
}

void nc_case_tbl_03(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-03") != 0)
    return;
  k.check_resolved = 1;
  k.check_values = 0; /* TBL-02's business; this case watches the resolved keys */
  enum { N = 130 };
  int64_t keys[N];
  nc_tk_key_range(keys, N, BASE);
  uint64_t resolved[(N + 63) / 64] = {0};
  for (int64_t i = 0; i < N; i += 3) /* stored and absent keys alike */
    resolved[i / 64] |= 1ull << (i % 64);
  if (nc_tk_insert(&k, N - 10, keys, 0, 1, 0) == NVE_SUCCESS) {
    nc_find_opts o = {.resolved = resolved};
    nc_tk_find(&k, N, keys, &o, NULL);
    resolved[0] = ~0ull; /* a whole word resolved */
    nc_tk_find(&k, N, keys, &o, NULL);
  }
  nc_tk_close(&k, &f);
}

void nc_case_tbl_04(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-04") != 0)
    return;
  k.check_bounds = 1;
  k.check_values = 0; /* TBL-02's business; this case watches the edges */
  static const int64_t sizes[] = {1, 63, 64, 65, 100, 1000};
  int64_t keys[1000];
  nc_tk_key_range(keys, 1000, BASE);
  int64_t gap = k.row + 12; /* a stride with a gap after each row */
  for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
    int64_t n = sizes[s];
    nc_tk_insert(&k, n, keys, s % 2 ? gap : 0, 10 + s, 0);
    nc_find_opts o = {.stride = s % 2 ? 0 : gap};
    nc_tk_find(&k, n + 7 > 1000 ? n : n + 7, keys, &o, NULL);
    nc_tk_update(&k, n, keys, gap, 20 + s, 0);
    if (k.caps.dtype == NVE_DTYPE_FLOAT32)
      nc_tk_accumulate(&k, n, keys, NVE_DTYPE_FLOAT32, k.row, 30 + s, 0);
    nc_tk_find(&k, n, keys, &o, NULL);
    nc_tk_erase(&k, n / 2, keys, 0);
  }
  nc_tk_close(&k, &f);
}

void nc_case_tbl_05(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-05") != 0)
    return;
  enum { N = 100 };
  int64_t keys[N];
  nc_tk_key_range(keys, N, BASE);
  k.check_values = 0; /* only acceptance: the answers are TBL-02's business */
  if (nc_tk_insert(&k, N / 2, keys, 0, 1, 0) == NVE_SUCCESS) {
    static const nc_find_opts variants[] = {
        {.null_values = 1}, {.null_sizes = 1}, {.null_mask = 1},
        {.null_values = 1, .null_sizes = 1}, {.null_mask = 1, .null_sizes = 1},
        {.null_mask = 1, .null_values = 1, .null_sizes = 1}};
    for (size_t v = 0; v < sizeof(variants) / sizeof(*variants); v++)
      nc_tk_find(&k, N, keys, &variants[v], NULL);
  }
  nc_tk_close(&k, &f);
}

void nc_case_tbl_06(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-06") != 0)
    return;
  enum { N = 100 };
  int64_t keys[N];
  nc_tk_key_range(keys, N, BASE);
  /* Half stored; the update names all: the other half must stay absent. */
  int64_t hits = 0;
  if (nc_tk_insert(&k, N / 2, keys, 0, 1, 0) == NVE_SUCCESS &&
      nc_tk_update(&k, N, keys, 0, 2, 0) == NVE_SUCCESS) {
    hits = nc_tk_find(&k, N, keys, NULL, NULL);
  }
  note_hits(c, hits, N / 2);
  nc_tk_close(&k, &f);
}

void nc_case_tbl_07(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-07") != 0)
    return;
  enum { N = 100 };
  int64_t keys[N];
  nc_tk_key_range(keys, N, BASE);
  if (k.caps.dtype != NVE_DTYPE_FLOAT32) {
    /* Only refusal can be checked: the model adds in float32 only. */
    nve_status_t s = nc_tk_accumulate(&k, N, keys, NVE_DTYPE_FLOAT32, k.row, 1, 1);
    nc_skip(c, "the table's dtype is %d, not float32: accumulate answered status %d and its "
            "result is not modelled",
            (int)k.caps.dtype, (int)s);
    nc_tk_close(&k, &f);
    return;
  }
  if (nc_tk_insert(&k, N / 2, keys, 0, 1, 0) == NVE_SUCCESS) {
    /* Float32 into existing keys; the missing half stays missing. */
    nc_tk_accumulate(&k, N, keys, NVE_DTYPE_FLOAT32, k.row, 2, 0);
    nc_tk_find(&k, N, keys, NULL, NULL);
    nc_tk_accumulate(&k, N / 2, keys, NVE_DTYPE_FLOAT32, k.row / 2 - (k.row / 2) % 4, 3, 0);
    nc_tk_find(&k, N, keys, NULL, NULL);
    /* Float16 updates: a table may refuse them; a success must add them. */
    int64_t halves = k.row / 4 * 2;
    nve_status_t s = nc_tk_accumulate(&k, N / 2, keys, NVE_DTYPE_FLOAT16, halves, 4, 1);
    nc_note(c, "update_accumulate (float16 updates into float32 rows)",
            "NVE_ERROR_NOT_IMPLEMENTED (or another failure), or the converted sums",
            "status %d%s", (int)s, s == NVE_SUCCESS ? "; sums checked by the next find" : "");
    nc_tk_find(&k, N, keys, NULL, NULL);
  }
  nc_tk_close(&k, &f);
}

void nc_case_tbl_08(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-08") != 0)
    return;
  enum { N = 100 };
  int64_t keys[N + 10];
  nc_tk_key_range(keys, N + 10, BASE);
  int64_t hits = 0;
  if (nc_tk_insert(&k, N, keys, 0, 1, 0) == NVE_SUCCESS) {
    /* Half of the stored keys and ten absent ones. */
    nc_tk_erase(&k, N / 2 + 10, keys + N / 2, 0);
    hits += nc_tk_find(&k, N + 10, keys, NULL, NULL);
    nc_tk_clear(&k, 0);
    nc_tk_find(&k, N + 10, keys, NULL, NULL);
    /* The table is usable after clear. */
    nc_tk_insert(&k, N, keys, 0, 2, 0);
    hits += nc_tk_find(&k, N, keys, NULL, NULL);
  }
  note_hits(c, hits, N);
  nc_tk_close(&k, &f);
}

/* The counter after a find: what it should have become, given the hits. */
static void expect_counter(nc_case *c, nc_tk *k, const char *when, int64_t want)
{
  int64_t got = -12345;
  nve_status_t s = nc_call_get_lookup_counter(&k->t, &got);
  if (s != NVE_SUCCESS)
    nc_fail(c, "get_lookup_counter", "NVE_SUCCESS", "status %d %s", (int)s, when);
  else if (got != want)
    nc_fail(c, "get_lookup_counter", "the counter as the contract defines it",
            "%lld %s; expected %lld", (long long)got, when, (long long)want);
}

void nc_case_tbl_09(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-09") != 0)
    return;
  enum { N = 150 };
  int64_t keys[N];
  nc_tk_key_range(keys, N, BASE);
  int counts_hits = k.caps.counter_hits != 0;
  k.check_values = 0; /* the counter only */
  nve_status_t s = nc_call_reset_lookup_counter(&k.t);
  if (s != NVE_SUCCESS)
    nc_fail(c, "reset_lookup_counter", "NVE_SUCCESS", "status %d", (int)s);
  expect_counter(c, &k, "after reset on a new table", 0);
  if (nc_tk_insert(&k, 100, keys, 0, 1, 0) == NVE_SUCCESS) {
    int64_t counted = 0;
    for (int round = 0; round < 2; round++) {
      int64_t n = round ? 60 : N;
      int64_t hits = nc_tk_find(&k, n, keys + (round ? 70 : 0), NULL, NULL);
      if (hits < 0)
        break;
      counted += counts_hits ? hits : n - hits;
      expect_counter(c, &k, round ? "after a second find" : "after a find", counted);
    }
    nc_call_reset_lookup_counter(&k.t);
    expect_counter(c, &k, "after a reset following finds", 0);
    nc_note(c, "the lookup counter", counts_hits ? "counts hits" : "counts misses",
            "checked after reset and after finds of %d and 60 keys", N);
  }
  nc_tk_close(&k, &f);
}

void nc_case_tbl_10(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-10") != 0)
    return;
  enum { N = 64 };
  int64_t keys[N];
  nc_tk_key_range(keys, N, BASE);
  if (nc_tk_insert(&k, N, keys, 0, 1, 0) == NVE_SUCCESS) {
    /* Every op with n == 0 (valid pointers), then the stored keys unchanged. */
    nc_tk_insert(&k, 0, keys, 0, 2, 0);
    nc_tk_update(&k, 0, keys, 0, 3, 0);
    if (k.caps.dtype == NVE_DTYPE_FLOAT32)
      nc_tk_accumulate(&k, 0, keys, NVE_DTYPE_FLOAT32, k.row, 4, 0);
    nc_tk_erase(&k, 0, keys, 0);
    nc_tk_find(&k, 0, keys, NULL, NULL);
    nc_tk_find(&k, N, keys, NULL, NULL);
  }
  nc_tk_close(&k, &f);
}

/* ---- TBL-12: concurrent finds ------------------------------------------------ */

#define READERS 4
#define STRESS_READERS 16
#define ROUNDS 12
#define STRESS_ROUNDS 60
#define STORED 4096

typedef struct reader {
  nc_tk k; /* a quiet copy sharing the model, which nobody changes now */
  const int64_t *keys;
  uint64_t seed;
  int rounds;
  int64_t keys_found;
  _Atomic int *go;
} reader;

static void *read_concurrently(void *arg)
{
  reader *r = arg;
  while (!*r->go)
    sched_yield();
  uint64_t s = r->seed;
  for (int round = 0; round < r->rounds && r->k.mismatches == 0; round++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    int64_t n = 1000 + (int64_t)((s >> 17) % 2000);
    int64_t first = (int64_t)((s >> 33) % (uint64_t)(STORED - n + 1));
    if (nc_tk_find(&r->k, n, r->keys + first, NULL, NULL) >= 0)
      r->keys_found += n;
  }
  return NULL;
}

void nc_case_tbl_12(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c, "TBL-12") != 0)
    return;
  int64_t *keys = malloc(STORED * sizeof(int64_t));
  if (!keys) {
    nc_harness_error(c, "out of memory");
    nc_tk_close(&k, &f);
    return;
  }
  nc_tk_key_range(keys, STORED, BASE);
  if (nc_tk_insert(&k, STORED, keys, 0, 1, 0) == NVE_SUCCESS &&
      nc_tk_find(&k, STORED, keys, NULL, NULL) >= 0) { /* pins the model */
    int nthreads = c->cfg->stress ? STRESS_READERS : READERS;
    int rounds = c->cfg->stress ? STRESS_ROUNDS : ROUNDS;
    reader readers[STRESS_READERS];
    pthread_t threads[STRESS_READERS];
    _Atomic int go = 0;
    int started = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < nthreads; i++) {
      readers[started] = (reader){k, keys, c->cfg->seed + (uint64_t)i, rounds, 0, &go};
      readers[started].k.quiet = 1;
      readers[started].k.observe = 0;
      if (pthread_create(&threads[started], NULL, read_concurrently, &readers[started]) == 0)
        started++;
    }
    go = 1; /* all at once */
    int64_t found = 0;
    for (int i = 0; i < started; i++) {
      pthread_join(threads[i], NULL);
      found += readers[i].keys_found;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (started < 2)
      nc_harness_error(c, "could start only %d reader thread(s)", started);
    for (int i = 0; i < started; i++)
      if (readers[i].k.mismatches)
        nc_fail(c, "find from several threads at once, each with its own context",
                "answers that agree with the model",
                "thread %d of %d: %lld wrong answer(s); first: %s", i, started,
                (long long)readers[i].k.mismatches, readers[i].k.mismatch);
    nc_note(c, "concurrent find", "agreement with the model",
            "%d threads x %d finds of 1000..2999 keys from %d stored: %lld keys checked in "
            "%.2f s (%.0f keys/s)",
            started, rounds, STORED, (long long)found, took, (double)found / took);
  }
  free(keys);
  nc_tk_close(&k, &f);
}
