/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The floor for make bench-suite: replays a call log (NVE_CONFORM_CALL_LOG,
 * lib/host/call_log.h) against a plugin with nothing around the calls: no
 * guarded buffers, no model, no context bookkeeping, no case processes.
 * The services are the plainest that work (tasks run in a loop on the
 * calling thread, scratch is malloc). Keys come from a fixed pool, values
 * are zeros; a find whose line says hits=H looks up H keys inserted
 * before (the latest) and the rest never inserted, so that it copies as
 * many rows out as the harness's did. What is measured is the plugin
 * doing the same calls, in the same sizes, as the harness made it do.
 *
 * Usage: bare_calls [--per-op] [--digest] PLUGIN.so CALL_LOG [TABLE_CONFIG_JSON]
 * Prints: "bare: CALLS calls in SECONDS s"; with --per-op, then for each op
 * "bare-op OP calls=N keys=K seconds=S": the process CPU time inside that
 * op's calls (two clock reads a call, which a run timed as a whole leaves
 * out).
 * With --digest it prints only "digest: HEX", a hash of every answer the
 * plugin gave (statuses, hit masks, sizes and bytes found, counters), and
 * the rows written carry values drawn from their keys (finite in every
 * float dtype, so that sums stay comparable). make mutation-score compares
 * a mutant's digest with the unmutated plugin's: the same digest on the same
 * calls means the mutant is probably equivalent for what the suite asks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/nve_external_plugin.h"
#include "plugin/nve_plugin_common.h"

#include "host_malloc.h"
#include "splitmix.h"

#define KEY_POOL 50000

/* ---- the plainest services ------------------------------------------------------- */

static nve_status_t num_workers(nve_ext_context_t ctx, int64_t *out)
{
  (void)ctx;
  *out = 1;
  return NVE_SUCCESS;
}

static nve_status_t execute_n(nve_ext_context_t ctx, int64_t n,
                              nve_status_t (*task)(void *, int64_t), void *user)
{
  (void)ctx;
  nve_status_t first = NVE_SUCCESS;
  for (int64_t i = 0; i < n; i++) {
    nve_status_t s = task(user, i);
    if (s != NVE_SUCCESS && first == NVE_SUCCESS)
      first = s;
  }
  return first;
}

static nve_status_t execute_n_wg(nve_ext_context_t ctx, int64_t n,
                                 nve_status_t (*task)(void *, int64_t), void *user,
                                 const int64_t *wg, int64_t nwg, int64_t per_wg)
{
  (void)wg, (void)nwg, (void)per_wg;
  return execute_n(ctx, n, task, user);
}

static nve_status_t no_stream(nve_ext_context_t ctx, void **out)
{
  (void)ctx;
  *out = NULL;
  return NVE_SUCCESS;
}

/* Scratch: a few named buffers that only grow. */
static struct {
  char name[64];
  void *p;
  size_t size;
} scratch[16];

static nve_status_t get_scratch(nve_ext_context_t ctx, const char *name, size_t size,
                                int32_t host_alloc, void **out)
{
  (void)ctx, (void)host_alloc;
  for (int i = 0; i < 16; i++) {
    if (scratch[i].p && strcmp(scratch[i].name, name) != 0)
      continue;
    if (!scratch[i].p)
      snprintf(scratch[i].name, sizeof(scratch[i].name), "%s", name);
    if (scratch[i].size < size) {
      free(scratch[i].p);
      scratch[i].p = malloc(size ? size : 1);
      scratch[i].size = scratch[i].p ? size : 0;
    }
    *out = scratch[i].p;
    return scratch[i].p ? NVE_SUCCESS : NVE_ERROR_OUT_OF_MEMORY;
  }
  return NVE_ERROR_OUT_OF_MEMORY;
}

static const char *services_error(nve_ext_context_t ctx)
{
  (void)ctx;
  return "";
}

static const nve_ext_nve_services_t services = {
    sizeof(nve_ext_nve_services_t), num_workers, execute_n, execute_n_wg, no_stream, no_stream,
    get_scratch, services_error};

/* ---- replaying --------------------------------------------------------------------- */

static double clock_seconds(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void) { return clock_seconds(CLOCK_MONOTONIC); }

static int per_op; /* --per-op */
static int digesting; /* --digest */
static uint64_t answers; /* the digest of every answer so far */

static void digest_add(uint64_t word) { answers = nc_mix64(answers ^ word) + 0x9e3779b97f4a7c15ull; }

static void digest_bytes(const unsigned char *p, int64_t len)
{
  uint64_t word = 0;
  for (int64_t i = 0; i < len; i++) {
    word = word << 8 | p[i];
    if (i % 8 == 7 || i == len - 1) {
      digest_add(word);
      word = 0;
    }
  }
  digest_add((uint64_t)len);
}
static double cpu_now(void) { return per_op ? clock_seconds(CLOCK_PROCESS_CPUTIME_ID) : 0; }

typedef struct table {
  nve_ext_table_factory_t factory;
  nve_ext_table_t t;
  int64_t key_size, invalid;
  unsigned char *keys, *values, *sizes, *mask;
  size_t keys_cap, values_cap;
  uint64_t next_key, next_miss;
  int64_t inserted[KEY_POOL]; /* the latest keys inserted, a ring */
  uint64_t ninserted;
} table;

static int grow(unsigned char **p, size_t *cap, size_t want)
{
  if (want <= *cap)
    return 0;
  free(*p);
  *p = calloc(1, want);
  *cap = *p ? want : 0;
  return *p ? 0 : -1;
}

/* Key i of a batch of n with hits keys inserted before: those first (the
 * latest inserted), then keys never inserted; hits < 0: all from the pool. */
static int64_t key_for(table *tb, int64_t i, int64_t hits)
{
  uint64_t have = tb->ninserted < KEY_POOL ? tb->ninserted : KEY_POOL;
  if (hits >= 0 && i < hits && (uint64_t)i < have)
    return tb->inserted[(tb->ninserted - 1 - (uint64_t)i) % KEY_POOL];
  if (hits >= 0) /* above the pool's keys, below 2^31: never inserted */
    return (int64_t)(tb->next_miss++ % 200000) * 7919 + 13 + (int64_t)KEY_POOL * 7919;
  return (int64_t)(tb->next_key++ % KEY_POOL) * 7919 + 13;
}

/* n keys, none of them the invalid key (see key_for). */
static int make_keys(table *tb, int64_t n, int64_t hits)
{
  size_t need = (size_t)n * 8 + 8;
  if (grow(&tb->keys, &tb->keys_cap, need) != 0)
    return -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t k = key_for(tb, i, hits);
    if (k == tb->invalid)
      k++;
    if (tb->key_size == 4) {
      int32_t k32 = (int32_t)k;
      memcpy(tb->keys + 4 * i, &k32, 4);
    } else {
      memcpy(tb->keys + 8 * i, &k, 8);
    }
  }
  return 0;
}

/* Row i of a write, from its key: 32-bit words with their top two bits and
 * those of their upper half clear, finite as float16, bfloat16, float32 and
 * float64 alike, below 2 in magnitude. */
static void fill_rows(table *tb, int64_t n, int64_t stride, int64_t size)
{
  for (int64_t i = 0; i < n; i++) {
    uint64_t key = 0;
    memcpy(&key, tb->keys + tb->key_size * i, (size_t)tb->key_size);
    unsigned char *row = tb->values + i * stride;
    for (int64_t b = 0; b < size; b += 4) {
      uint32_t word = (uint32_t)nc_mix64(key * 0x100000001b3ull + (uint64_t)b) & 0x3fff3fffu;
      memcpy(row + b, &word, (size_t)(size - b < 4 ? size - b : 4));
    }
  }
}

/* What a find answered: the mask's bits for the n keys, then each hit's
 * size and bytes (no more than the stride, whatever size it claims). */
static void digest_find(const table *tb, int64_t n, int64_t stride)
{
  const uint64_t *mask = (const uint64_t *)tb->mask;
  const int64_t *sizes = (const int64_t *)tb->sizes;
  for (int64_t i = 0; i < n; i++) {
    int hit = (int)(mask[i / 64] >> (i % 64) & 1);
    digest_add((uint64_t)hit);
    if (!hit)
      continue;
    int64_t len = sizes[i] < 0 ? 0 : sizes[i] > stride ? stride : sizes[i];
    digest_add((uint64_t)sizes[i]);
    digest_bytes(tb->values + i * stride, len);
  }
  if (n > 0 && n % 64) /* the bits past n stay zero */
    digest_add(mask[(n - 1) / 64] >> (n % 64));
}

/* The keys of the insert just made, for the finds that hit. */
static void remember_inserted(table *tb, int64_t n)
{
  for (int64_t i = 0; i < n; i++) {
    int64_t k;
    if (tb->key_size == 4) {
      int32_t k32;
      memcpy(&k32, tb->keys + 4 * i, 4);
      k = k32;
    } else {
      memcpy(&k, tb->keys + 8 * i, 8);
    }
    tb->inserted[tb->ninserted++ % KEY_POOL] = k;
  }
}

static int produce(table *tb, const char *config)
{
  if (tb->t.ops)
    tb->t.ops->destroy(tb->t.self);
  memset(&tb->t, 0, sizeof(tb->t));
  if (tb->factory.ops->produce(tb->factory.self, 0, config, &tb->t) != NVE_SUCCESS || !tb->t.ops)
    return -1;
  tb->key_size = tb->t.ops->key_size(tb->t.self);
  tb->ninserted = 0; /* a new table holds nothing */
  tb->invalid = tb->t.ops->invalid_key(tb->t.self);
  return 0;
}

/* Calls, keys and seconds in the calls, per op. */
#define OPS 16
static struct op_time {
  char op[32];
  long calls;
  long long keys;
  double seconds;
} op_times[OPS];

static void count_op(const char *op, int64_t keys, double seconds)
{
  for (int i = 0; i < OPS; i++) {
    struct op_time *t = &op_times[i];
    if (t->op[0] && strcmp(t->op, op) != 0)
      continue;
    if (!t->op[0])
      snprintf(t->op, sizeof(t->op), "%s", op);
    t->calls++;
    t->keys += keys;
    t->seconds += seconds;
    return;
  }
}

/* One line of the log; 1 when it was a call, 0 when skipped, -1 on error. */
static int replay(table *tb, const char *line, const char *config)
{
  char op[32];
  long long n, stride, size;
  int dtype;
  long long hits = -1;
  int fields = sscanf(line, "%31s n=%lld stride=%lld size=%lld dtype=%d hits=%lld", op, &n,
                      &stride, &size, &dtype, &hits);
  if (fields < 5)
    return 0;
  if (strcmp(op, "produce") == 0)
    return produce(tb, config) == 0 ? 1 : -1;
  int64_t keys = n > 0 ? n : 0;
  long long width = stride > size ? stride : size;
  size_t bytes = (size_t)keys * (size_t)(width > 0 ? width : 0) + (size_t)(size > 0 ? size : 0) + 8;
  if (make_keys(tb, keys, strcmp(op, "find") == 0 ? hits : -1) != 0 || grow(&tb->values, &tb->values_cap, bytes) != 0)
    return -1;
  size_t side = (size_t)keys * 8 + 64;
  free(tb->sizes);
  free(tb->mask);
  tb->sizes = calloc(1, side);
  tb->mask = calloc(1, side);
  if (!tb->sizes || !tb->mask)
    return -1;
  void *self = tb->t.self;
  nve_ext_context_t ctx = (nve_ext_context_t)tb; /* any non-NULL handle */
  const nve_ext_table_ops_t *ops = tb->t.ops;
  int writes = strcmp(op, "insert") == 0 || strcmp(op, "update") == 0 ||
               strcmp(op, "update_accumulate") == 0;
  if (digesting && writes && stride >= size)
    fill_rows(tb, keys, stride, size);
  nve_status_t status = NVE_SUCCESS;
  int64_t counter = 0;
  double t0 = cpu_now();
  if (strcmp(op, "find") == 0)
    status = ops->find(self, ctx, n, tb->keys, (uint64_t *)tb->mask, stride, tb->values,
                       (int64_t *)tb->sizes);
  else if (strcmp(op, "insert") == 0) {
    status = ops->insert(self, ctx, n, tb->keys, stride, size, tb->values);
    remember_inserted(tb, keys);
  }
  else if (strcmp(op, "update") == 0)
    status = ops->update(self, ctx, n, tb->keys, stride, size, tb->values);
  else if (strcmp(op, "update_accumulate") == 0)
    status = ops->update_accumulate(self, ctx, n, tb->keys, stride, size, tb->values,
                                    (nve_data_type_t)dtype);
  else if (strcmp(op, "erase") == 0)
    status = ops->erase(self, ctx, n, tb->keys);
  else if (strcmp(op, "clear") == 0)
    status = ops->clear(self, ctx);
  else if (strcmp(op, "get_lookup_counter") == 0)
    status = ops->get_lookup_counter(self, ctx, &counter);
  else
    return 0;
  if (digesting) {
    digest_add((uint64_t)status);
    digest_add((uint64_t)counter);
    if (strcmp(op, "find") == 0 && status == NVE_SUCCESS && stride > 0)
      digest_find(tb, keys, stride);
  }
  if (per_op)
    count_op(op, keys, cpu_now() - t0);
  return 1;
}

int main(int argc, char **argv)
{
  nc_host_malloc_settings(); /* as the case processes have it */
  for (; argc > 1 && strncmp(argv[1], "--", 2) == 0; argv++, argc--) {
    if (strcmp(argv[1], "--per-op") == 0)
      per_op = 1;
    else if (strcmp(argv[1], "--digest") == 0)
      digesting = 1;
    else
      break;
  }
  if (argc < 3 || argv[1][0] == '-') {
    fprintf(stderr,
            "usage: bare_calls [--per-op] [--digest] PLUGIN.so CALL_LOG [TABLE_CONFIG_JSON]\n");
    return 2;
  }
  const char *config = argc > 3 ? argv[3] : "{}";
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "bare_calls: %s\n", dlerror());
    return 1;
  }
  void (*set_services)(const nve_ext_nve_services_t *) =
      (void (*)(const nve_ext_nve_services_t *))dlsym(h, "nve_plugin_set_nve_services");
  nve_status_t (*create)(const char *, nve_ext_table_factory_t *, const char **) =
      (nve_status_t(*)(const char *, nve_ext_table_factory_t *, const char **))dlsym(
          h, "nve_plugin_create_external_factory");
  FILE *log = fopen(argv[2], "r");
  if (!create || !log) {
    fprintf(stderr, "bare_calls: no creation symbol in %s, or cannot read %s\n", argv[1], argv[2]);
    return 1;
  }
  if (set_services)
    set_services(&services);
  table tb;
  memset(&tb, 0, sizeof(tb));
  const char *err = NULL;
  if (create("{}", &tb.factory, &err) != NVE_SUCCESS || produce(&tb, config) != 0) {
    fprintf(stderr, "bare_calls: the plugin refused the configuration: %s\n", err ? err : "");
    return 1;
  }
  char line[256];
  long calls = 0;
  double t0 = now();
  while (fgets(line, sizeof(line), log)) {
    int r = replay(&tb, line, config);
    if (r < 0) {
      fprintf(stderr, "bare_calls: out of memory, or produce failed, at: %s", line);
      return 1;
    }
    calls += r;
  }
  double seconds = now() - t0;
  fclose(log);
  if (digesting) {
    printf("digest: %016llx (%ld calls)\n", (unsigned long long)answers, calls);
    return 0;
  }
  printf("bare: %ld calls in %.3f s\n", calls, seconds);
  for (int i = 0; i < OPS && op_times[i].op[0]; i++)
    printf("bare-op %s calls=%ld keys=%lld seconds=%.6f\n", op_times[i].op, op_times[i].calls,
           op_times[i].keys, op_times[i].seconds);
  return 0;
}
