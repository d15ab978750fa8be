/* SPDX-License-Identifier: Apache-2.0 */
/* TBL: table semantics against the model (doc/rules.md "TBL",
 * doc/contract.md#table-semantics).
 * Each case drives a table through lib/oracle.h's model with cases/
 * table_kit.h and records every disagreement as evidence of its rule.
 * After its targeted checks, each op's case runs the explorer's view of
 * its op (nc_explore_directed); TBL-11 is the explorer's whole swarm. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "threads.h"
#include "cases.h"
#include "common.h"
#include "dtype.h"
#include "calls.h"
#include "runner.h"
#include "sanitize.h"
#include "explore.h"
#include "explore_fresh.h"
#include "table_kit.h"
#include "trace.h"

/* Keys the targeted cases use: small, distinct, away from the edges. */
#define BASE 1000

/* n keys from BASE in the kit's seeded order (an ERROR of the case when
 * out of memory); free() them. */
static int64_t *keys_for(nc_tk *k, int64_t n)
{
  int64_t *keys = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  if (keys)
    nc_tk_keys(k, keys, n, BASE);
  else
    nc_harness_error(k->c, "out of memory for %lld keys", (long long)n);
  return keys;
}

static void note_hits(nc_case *c, int64_t hits, int64_t asked)
{
  if (hits == 0 && asked > 0)
    nc_untested(c, "inconclusive: the table returned no hit for %lld stored keys (insert is best "
            "effort); declare the table exact in a profile",
            (long long)asked);
}

void nc_case_TBL_01(nc_case *c)
{
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_open_table_unchecked(c, &f, &t) != 0)
    return;
  nc_table_caps caps;
  nc_call_capabilities(&t, &caps);
  char why[160];
  if (nc_caps_problem(&caps, why, sizeof(why)))
    nc_fail(c, "table capabilities", "values the host accepts (doc/contract.md#capabilities)", "%s",
            why);
  else
    nc_note(c, "table capabilities", "values the host accepts",
            "key_size %lld, max_row_size %lld, dtype %d, location %d, device %d, counter counts "
            "%s",
            (long long)caps.key_size, (long long)caps.max_row_size, (int)caps.dtype,
            (int)caps.location, (int)caps.device_id, caps.counter_hits ? "hits" : "misses");
  nc_close_table(&f, &t);
}

void nc_case_TBL_02(nc_case *c)
{
  nc_x_fresh_start(c); /* before the case's first table */
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  int64_t N = nc_tk_batch(&k, 400) / 2, *keys = keys_for(&k, 2 * N), hits = 0;
  if (!keys) {
    nc_tk_close(&k, &f);
    return;
  }
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
  free(keys);
  nc_tk_close(&k, &f);
  nc_explore_directed(c); /* then the op's calls, generated */
}

void nc_case_TBL_03(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  k.check_resolved = 1;
  k.check_values = 0; /* TBL-02's business; this case watches the resolved keys */
  int64_t N = nc_tk_batch(&k, 130), *keys = keys_for(&k, N);
  uint64_t resolved[(130 + 63) / 64] = {0};
  for (int64_t i = 0; i < N; i += 3) /* stored and absent keys alike */
    resolved[i / 64] |= 1ull << (i % 64);
  if (keys && nc_tk_insert(&k, N - N / 13, keys, 0, 1, 0) == NVE_SUCCESS) {
    nc_find_opts o = {.resolved = resolved};
    nc_tk_find(&k, N, keys, &o, NULL);
    resolved[0] = N >= 64 ? ~0ull : (1ull << N) - 1; /* a whole word resolved */
    nc_tk_find(&k, N, keys, &o, NULL);
  }
  free(keys);
  nc_tk_close(&k, &f);
}

void nc_case_TBL_04(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  k.check_bounds = 1;
  k.check_values = 0; /* TBL-02's business; this case watches the edges */
  static const int64_t sizes[] = {1, 63, 64, 65, 100, 1000};
  int64_t gap = k.stride + 12; /* a stride with a gap after each row */
  int64_t most = nc_tk_batch(&k, 1007) * k.stride / gap, *keys = keys_for(&k, most);
  /* Accumulate into the table's own element type, when it has one. */
  int64_t update = nc_tk_update_size(&k, k.caps.dtype, 0);
  for (size_t s = 0; keys && s < sizeof(sizes) / sizeof(*sizes) && sizes[s] <= most; s++) {
    int64_t n = sizes[s];
    nc_tk_insert(&k, n, keys, s % 2 ? gap : 0, 10 + s, 0);
    nc_find_opts o = {.stride = s % 2 ? 0 : gap};
    nc_tk_find(&k, n + 7 > most ? n : n + 7, keys, &o, NULL);
    nc_tk_update(&k, n, keys, gap, 20 + s, 0);
    if (update)
      nc_tk_accumulate(&k, n, keys, k.caps.dtype, update, 30 + s, 1);
    nc_tk_find(&k, n, keys, &o, NULL);
    nc_tk_erase(&k, n / 2, keys, 0);
  }
  free(keys);
  nc_tk_close(&k, &f);
}

void nc_case_TBL_05(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  int64_t N = nc_tk_batch(&k, 100), *keys = keys_for(&k, N);
  k.check_values = 0; /* only acceptance: the answers are TBL-02's business */
  if (keys && nc_tk_insert(&k, N / 2, keys, 0, 1, 0) == NVE_SUCCESS) {
    static const nc_find_opts variants[] = {
        {.null_values = 1}, {.null_sizes = 1}, {.null_mask = 1},
        {.null_values = 1, .null_sizes = 1}, {.null_mask = 1, .null_sizes = 1},
        {.null_mask = 1, .null_values = 1, .null_sizes = 1}};
    for (size_t v = 0; v < sizeof(variants) / sizeof(*variants); v++)
      nc_tk_find(&k, N, keys, &variants[v], NULL);
  }
  free(keys);
  nc_tk_close(&k, &f);
}

void nc_case_TBL_06(nc_case *c)
{
  nc_x_fresh_start(c); /* before the case's first table */
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  int64_t N = nc_tk_batch(&k, 100), *keys = keys_for(&k, N);
  /* Half stored; the update names all: the other half must stay absent. */
  int64_t hits = 0;
  if (keys && nc_tk_insert(&k, N / 2, keys, 0, 1, 0) == NVE_SUCCESS &&
      nc_tk_update(&k, N, keys, 0, 2, 0) == NVE_SUCCESS) {
    hits = nc_tk_find(&k, N, keys, NULL, NULL);
  }
  note_hits(c, hits, N / 2);
  free(keys);
  nc_tk_close(&k, &f);
  nc_explore_directed(c); /* then the op's calls, generated */
}

/* One accumulate of updates of dtype into freshly stored keys (half of
 * them stored), then a find that checks the sums. Returns its status. */
/* One dtype's round: fresh rows for half the keys, then an accumulate of
 * updates of dtype into all of them, then a find that checks the sums.
 * Returns -1 when the rows could not be written (the insert's failure is
 * TBL-02's, already recorded), 0 when no update_size fits (*s untouched),
 * else 1 with the accumulate's status in *s. */
static int accumulate_round(nc_tk *k, const int64_t *keys, int64_t n, int dtype, uint64_t tag,
                            nve_status_t *s, int64_t *size)
{
  *size = nc_tk_update_size(k, (nve_data_type_t)dtype, 0);
  if (!*size && nc_dtype_width((nve_data_type_t)dtype))
    return 0; /* an element wider than the row: no size is a multiple of it */
  if (!*size) /* no element type the harness knows: a plausible size */
    *size = k->row >= 4 ? k->row / 4 * 4 : k->row;
  /* Fresh rows first: a failed accumulate may have left any bytes. */
  if (nc_tk_insert(k, n / 2, keys, 0, tag, 0) != NVE_SUCCESS)
    return -1;
  k->failed_line = -1; /* an accumulate refused before it reached the plugin has none */
  *s = nc_tk_accumulate(k, n, keys, (nve_data_type_t)dtype, *size, tag + 1, 1);
  /* float32 into a float32 table must succeed (the caller fails it): the
   * refused call is this one, not the find after it. */
  if (*s != NVE_SUCCESS && dtype == NVE_DTYPE_FLOAT32 && k->caps.dtype == NVE_DTYPE_FLOAT32)
    nc_tk_note_refused(k, NC_RULE_TBL_07, k->failed_line, *s);
  nc_tk_find(k, n, keys, NULL, NULL);
  return 1;
}

void nc_case_TBL_07(nc_case *c)
{
  nc_x_fresh_start(c); /* before the case's first table */
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  int64_t own_width = nc_dtype_width(k.caps.dtype);
  if (!own_width) {
    nc_untested(c, "the table's values are %s (dtype %d): the harness cannot compute sums in that "
            "type, so accumulate is not modelled",
            nc_dtype_name(k.caps.dtype), (int)k.caps.dtype);
    nc_tk_close(&k, &f);
    return;
  }
  if (k.row < own_width) { /* what the table declared leaves nothing to add into */
    nc_not_applicable(c, "the %lld-byte row holds no whole %s element (%lld bytes), the table's "
                         "own type: update_accumulate has no element to add into",
                      (long long)k.row, nc_dtype_name(k.caps.dtype), (long long)own_width);
    nc_tk_close(&k, &f);
    return;
  }
  int64_t N = nc_tk_batch(&k, 100), *keys = keys_for(&k, N);
  int accepted = 0, sent = 0;
  /* Every defined dtype and two undefined values; the sums of each success
   * are checked by the find that follows it. */
  static const int dtypes[] = {NVE_DTYPE_FLOAT32,         NVE_DTYPE_BFLOAT16,
                               NVE_DTYPE_FLOAT16,         NVE_DTYPE_E4M3,
                               NVE_DTYPE_E5M2,            NVE_DTYPE_FLOAT64,
                               NVE_DTYPE_QINT8_ROWWISE_F32, NVE_DTYPE_QINT8_ROWWISE_F16,
                               NVE_DTYPE_QUINT8_ROWWISE_F32, NVE_DTYPE_QUINT8_ROWWISE_F16,
                               NVE_DTYPE_UNKNOWN,          11,
                               999};
  for (size_t i = 0; keys && i < sizeof(dtypes) / sizeof(*dtypes); i++) {
    int d = dtypes[i];
    /* A float32 table must take float32 updates; every other combination
     * may be refused (doc/contract.md#update-accumulate). */
    int required = d == NVE_DTYPE_FLOAT32 && k.caps.dtype == NVE_DTYPE_FLOAT32;
    nve_status_t s = NVE_SUCCESS;
    int64_t size = 0;
    int round = accumulate_round(&k, keys, N, d, 100 + 10 * i, &s, &size);
    char call[160];
    snprintf(call, sizeof(call), "update_accumulate (n=%lld, update_size=%lld, %s values, %s "
             "updates, dtype %d)", (long long)N, (long long)size, nc_dtype_name(k.caps.dtype),
             nc_dtype_name((nve_data_type_t)d), d);
    if (round < 0)
      break; /* no rows to add into: the insert's failure blocks the rest */
    if (round == 0) {
      nc_note(c, call, "update_size a multiple of the dtype's element size",
              "not sent: a %s element (%lld bytes) is larger than the %lld-byte row",
              nc_dtype_name((nve_data_type_t)d), (long long)nc_dtype_width((nve_data_type_t)d),
              (long long)k.row);
      continue;
    }
    sent++;
    if (s == NVE_SUCCESS) {
      accepted++;
      if (!nc_dtype_defined(d) || d == NVE_DTYPE_UNKNOWN)
        nc_fail(c, call, "a failure status: there is no conversion from this dtype",
                "NVE_SUCCESS");
      else if (!nc_dtype_width((nve_data_type_t)d))
        nc_note(c, call, "a failure, or the converted sums",
                "NVE_SUCCESS; the layout of row-wise quantised updates is not defined, so the "
                "sums are not checked");
      else
        nc_note(c, call, "a failure, or the converted sums",
                "NVE_SUCCESS; the sums were checked by the next find");
    } else if (required) {
      char msg[256] = "";
      nc_read_plugin_string(nc_call_table_last_error(&k.t), msg, sizeof(msg));
      nc_fail(c, call, "NVE_SUCCESS: float32 updates into a float32 table", "status %d (%s)",
              (int)s, msg);
    } else {
      nc_note(c, call, "a failure, or the converted sums", "status %d: refused", (int)s);
    }
  }
  if (keys && !accepted && !k.mismatches && sent == 0)
    nc_untested(c, "inconclusive: no update dtype's element fits the %lld-byte row, so no "
                   "update_accumulate was sent", (long long)k.row);
  else if (keys && !accepted && !k.mismatches)
    nc_note(c, "update_accumulate", "a failure, or the converted sums",
            "the table refused all %d dtypes it was sent, which a %s table may do: no sum was "
            "checked", sent, nc_dtype_name(k.caps.dtype));
  int explore = keys && accepted;
  free(keys);
  nc_tk_close(&k, &f);
  if (explore)
    nc_explore_directed(c); /* then the op's calls, generated */
}

void nc_case_TBL_08(nc_case *c)
{
  nc_x_fresh_start(c); /* before the case's first table */
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  int64_t N = nc_tk_batch(&k, 110) - 10, *keys = keys_for(&k, N + 10), hits = 0;
  if (keys && N > 0 && nc_tk_insert(&k, N, keys, 0, 1, 0) == NVE_SUCCESS) {
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
  free(keys);
  nc_tk_close(&k, &f);
  nc_explore_directed(c); /* then the op's calls, generated */
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

void nc_case_TBL_09(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  int64_t N = nc_tk_batch(&k, 150), *keys = keys_for(&k, N);
  int counts_hits = k.caps.counter_hits != 0;
  nve_status_t s = nc_call_reset_lookup_counter(&k.t);
  if (s != NVE_SUCCESS)
    nc_fail(c, "reset_lookup_counter", "NVE_SUCCESS", "status %d", (int)s);
  expect_counter(c, &k, "after reset on a new table", 0);
  if (keys && nc_tk_insert(&k, N * 2 / 3, keys, 0, 1, 0) == NVE_SUCCESS) {
    int64_t counted = 0;
    for (int round = 0; round < 2; round++) {
      int64_t n = round ? N * 2 / 5 : N;
      int64_t hits = nc_tk_find(&k, n, keys + (round ? N * 7 / 15 : 0), NULL, NULL);
      /* Wrong answers are the find's rule's (recorded); the counter is
       * judged only against answers that agree with the model. */
      if (hits < 0 || k.mismatches)
        break;
      counted += counts_hits ? hits : n - hits;
      expect_counter(c, &k, round ? "after a second find" : "after a find", counted);
    }
    nc_call_reset_lookup_counter(&k.t);
    if (!k.mismatches)
      expect_counter(c, &k, "after a reset following finds", 0);
    nc_note(c, "the lookup counter", counts_hits ? "counts hits" : "counts misses",
            "checked after reset and after finds of %lld and %lld keys", (long long)N,
            (long long)(N * 2 / 5));
  }
  free(keys);
  nc_tk_close(&k, &f);
}

void nc_case_TBL_10(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  int64_t N = nc_tk_batch(&k, 64), *keys = keys_for(&k, N);
  if (keys && nc_tk_insert(&k, N, keys, 0, 1, 0) == NVE_SUCCESS) {
    /* Every op with n == 0 (valid, non-NULL pointers), then the stored
     * keys unchanged. */
    nc_tk_insert(&k, 0, keys, 0, 2, 0);
    nc_tk_update(&k, 0, keys, 0, 3, 0);
    if (k.caps.dtype == NVE_DTYPE_FLOAT32) /* the one combination a table must take */
      nc_tk_accumulate(&k, 0, keys, NVE_DTYPE_FLOAT32, nc_tk_update_size(&k, NVE_DTYPE_FLOAT32, 0),
                       4, 0);
    nc_tk_erase(&k, 0, keys, 0);
    nc_tk_find(&k, 0, keys, NULL, NULL);
    nc_tk_find(&k, N, keys, NULL, NULL);
  }
  free(keys);
  nc_tk_close(&k, &f);
}

/* ---- TBL-12: concurrent finds ------------------------------------------------ */

#define READERS 4
#define STRESS_READERS 16
#define ROUNDS 12
#define STRESS_ROUNDS 60
#define STORED 4096
/* At most, for the readers' finds to overlap: CPU seconds of the case
 * process, which a busy machine hands out more slowly but not fewer of, so
 * that the readers get the same chance to overlap under any load. */
#define OVERLAP_CPU_S 2.0
/* The least wall time between two beats while the readers run. */
#define READERS_BEAT_S 0.5

typedef struct reader {
  nc_tk k; /* a quiet copy sharing the model, which nobody changes now */
  const int64_t *keys;
  int64_t stored;
  uint64_t seed;
  int rounds;
  long long overlaps_wanted;
  int first; /* beats for all */
  int64_t keys_checked;
  int64_t last_from, last_n; /* the latest find: the first wrong one, once there is one */
  _Atomic int *go;
} reader;

static double process_cpu_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Once the rounds are done: whether to go on for more overlaps. The
 * first reader beats, so that a slow machine's longer wait is not taken
 * for a hang. */
static int want_more_overlap(reader *r, double until_cpu, double *beat_at)
{
  if (nc_calls_overlapped() >= r->overlaps_wanted || process_cpu_s() >= until_cpu)
    return 0;
  double now = nc_now();
  if (r->first && now - *beat_at >= READERS_BEAT_S) {
    nc_trace_beat(0);
    *beat_at = now;
  }
  return 1;
}

static void *read_concurrently(void *arg)
{
  reader *r = arg;
  while (!*r->go)
    sched_yield();
  uint64_t s = r->seed;
  int64_t most = nc_tk_batch(&r->k, 2999) < r->stored ? nc_tk_batch(&r->k, 2999) : r->stored;
  int64_t least = most / 3 > 0 ? most / 3 : 1;
  /* The rounds, and more until as many finds as all the rounds make
   * shared the plugin with another (a loaded machine may run the readers
   * one after another), within a bound: a race is caught by overlapped
   * finds, not by the count of rounds. */
  double until_cpu = process_cpu_s() + OVERLAP_CPU_S, beat_at = nc_now();
  for (int round = 0; r->k.mismatches == 0 &&
                      (round < r->rounds || want_more_overlap(r, until_cpu, &beat_at));
       round++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    int64_t n = least + (int64_t)((s >> 17) % (uint64_t)(most - least + 1));
    int64_t first = (int64_t)((s >> 33) % (uint64_t)(r->stored - n + 1));
    r->last_from = first;
    r->last_n = n;
    if (nc_tk_find(&r->k, n, r->keys + first, NULL, NULL) >= 0)
      r->keys_checked += n;
  }
  return NULL;
}

/* The control for a reader's wrong answers: its find made again by one
 * thread alone, on a fresh table of the same factory filled as this one
 * was (the racing readers may have damaged this one: a cache shared by
 * finds, a rehash inside find). 1 when that find is wrong too: the
 * defect is then the find's own, and ctl holds its first mismatch. */
static int wrong_alone(nc_case *c, const nve_ext_table_factory_t *f, const reader *r,
                       nc_tk *ctl)
{
  nve_ext_table_t t;
  memset(&t, 0, sizeof(t));
  if (nc_call_produce(f, 1, c->cfg->table_config, &t) != NVE_SUCCESS || !t.ops ||
      nc_tk_init(ctl, c, &t) != 0) {
    if (t.ops)
      nc_call_table_destroy(&t);
    return 0; /* no control: the failure stays the case's own */
  }
  ctl->quiet = 1;
  ctl->observe = 0;
  int wrong = nc_tk_insert(ctl, r->stored, r->keys, 0, 1, 0) == NVE_SUCCESS &&
              nc_tk_find(ctl, r->last_n, r->keys + r->last_from, NULL, NULL) >= 0 &&
              ctl->mismatches > 0;
  nc_call_table_destroy(&t);
  nc_tk_done(ctl);
  return wrong;
}

/* The readers' wrong answers: concurrency's (this rule's), unless the
 * control shows a reader's find wrong alone; that defect is charged to
 * its owner once, proven, and the other readers' answers are not judged
 * (this rule is then blocked by it). */
static void judge_readers(nc_case *c, const nve_ext_table_factory_t *f, const reader *readers,
                          int started)
{
  for (int i = 0; i < started; i++) {
    const reader *r = &readers[i];
    if (!r->k.mismatches)
      continue;
    nc_tk ctl;
    if (wrong_alone(c, f, r, &ctl)) {
      static const char expected[] = "answers that agree with the model";
      if (ctl.nmismatch_owners == 1)
        nc_fail_proven(c, ctl.mismatch_owners[0], "find (one thread alone, fresh table)",
                       expected, "%s (reader thread %d of %d met it first, among other threads; "
                       "the same find on a fresh table filled alike, by one thread alone, is "
                       "wrong too)", ctl.mismatch, i + 1, started);
      else
        nc_fail_owned_by(c, ctl.mismatch_owners, ctl.nmismatch_owners,
                         "find (one thread alone, fresh table)", expected,
                         "%s (reader thread %d of %d met it first, among other threads)",
                         ctl.mismatch, i + 1, started);
      return;
    }
    nc_fail(c, "find from several threads at once, each with its own context",
            "answers that agree with the model",
            "reader thread %d of %d: %lld wrong answer(s) in %lld keys it checked; first: %s "
            "(the same find on a fresh table, by one thread alone, agrees)",
            i + 1, started, (long long)r->k.mismatches, (long long)r->keys_checked,
            r->k.mismatch);
  }
}

void nc_case_TBL_12(nc_case *c)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  if (c->cfg->sanitize == NC_SANITIZE_VALGRIND) {
    nc_untested(c, "not under valgrind, which runs one thread at a time: concurrency is judged "
               "without --sanitize");
    nc_tk_close(&k, &f);
    return;
  }
  int64_t stored = nc_tk_batch(&k, STORED), *keys = keys_for(&k, stored);
  /* The serial find pins the model; when it already disagrees, that is
   * the op's own rule's defect (recorded), and concurrency is not judged. */
  if (keys && nc_tk_insert(&k, stored, keys, 0, 1, 0) == NVE_SUCCESS &&
      nc_tk_find(&k, stored, keys, NULL, NULL) >= 0 && k.mismatches == 0) {
    int nthreads = c->cfg->stress ? STRESS_READERS : READERS;
    int rounds = c->cfg->stress ? STRESS_ROUNDS : ROUNDS;
    reader readers[STRESS_READERS];
    pthread_t threads[STRESS_READERS];
    _Atomic int go = 0;
    int started = 0;
    nc_calls_overlap_reset();
    for (int i = 0; i < nthreads; i++) {
      readers[started] = (reader){.k = k,
                                  .keys = keys,
                                  .stored = stored,
                                  .seed = c->cfg->seed + (uint64_t)i,
                                  .rounds = rounds,
                                  .overlaps_wanted = (long long)nthreads * rounds,
                                  .first = started == 0,
                                  .go = &go};
      /* Each reader counts only its own disagreements. */
      readers[started].k.quiet = 1;
      readers[started].k.observe = 0;
      readers[started].k.mismatches = 0;
      readers[started].k.mismatch[0] = '\0';
      if (nc_thread_create(&threads[started], read_concurrently, &readers[started]) == 0)
        started++;
    }
    go = 1; /* all at once */
    for (int i = 0; i < started; i++)
      pthread_join(threads[i], NULL);
    if (started < 2)
      nc_harness_error(c, "could start only %d reader thread(s)", started);
    judge_readers(c, &f, readers, started);
    /* How many more rounds ran, how many finds overlapped and how fast
     * they went depend on the scheduler and the machine's load: the
     * report says none of it, so it reads the same at any job count. */
    nc_note(c, "concurrent find", "agreement with the model",
            "%d threads x %d finds or more from %lld stored keys, each thread with its own "
            "context", started, rounds, (long long)stored);
  }
  free(keys);
  nc_tk_close(&k, &f);
}

/* TBL-11: the explorer (cases/kit/explore.h), at the run's effort. */
void nc_case_TBL_11(nc_case *c)
{
  nc_x_fresh_start(c);
  nc_explore(c);
}
