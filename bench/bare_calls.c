/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The floor for make bench-suite: replays a call log (NVE_CONFORM_CALL_LOG,
 * lib/host/call_log.h) against a plugin with nothing around the calls: no
 * guarded buffers, no model, no context bookkeeping, no case processes.
 * The services are the plainest that work (tasks run in a loop on the
 * calling thread, scratch is malloc). Each table the log names gets a
 * table of its own, made and destroyed where the log says, and each call
 * the very keys the harness passed (CALL_LOG.keys/); values are zeros.
 * What is measured is the plugin doing the same calls, on the same keys
 * and tables, as the harness made it do. A line without keys (a log of
 * an older build) takes keys from a fixed pool instead, a find whose line
 * says hits=H the H latest inserted and then keys never inserted.
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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
static uint64_t answers; /* the digest of the answers of the process being replayed */

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

/* A table of the log: the case process and handle that made it there. */
typedef struct table {
  uint64_t proc, id;
  int live;
  nve_ext_table_t t;
  int64_t key_size, invalid;
  uint64_t next_key, next_miss;
  int64_t *inserted; /* the latest keys inserted, a ring (made keys only) */
  uint64_t ninserted;
} table;

static nve_ext_table_factory_t factory;
static table *tables;
static size_t ntables;
static table plain; /* a log's lines that name no table (older logs) */

/* One call's buffers, shared by every table. */
static unsigned char *keys, *values, *sizes, *mask;
static size_t keys_cap, values_cap, side_cap;

static int grow(unsigned char **p, size_t *cap, size_t want)
{
  if (want <= *cap)
    return 0;
  free(*p);
  *p = calloc(1, want);
  *cap = *p ? want : 0;
  return *p ? 0 : -1;
}

/* The table a line names (live), or NULL. */
static table *table_of(uint64_t proc, uint64_t id)
{
  for (size_t i = 0; i < ntables; i++)
    if (tables[i].live && tables[i].proc == proc && tables[i].id == id)
      return &tables[i];
  return NULL;
}

/* A free entry for a new table, or NULL when out of memory. */
static table *new_table(void)
{
  for (size_t i = 0; i < ntables; i++)
    if (!tables[i].live)
      return &tables[i];
  table *more = realloc(tables, (ntables + 1) * sizeof(*tables));
  if (!more)
    return NULL;
  tables = more;
  memset(&tables[ntables], 0, sizeof(*tables));
  return &tables[ntables++];
}

static void destroy(table *tb)
{
  if (tb->t.ops)
    tb->t.ops->destroy(tb->t.self);
  free(tb->inserted);
  memset(tb, 0, sizeof(*tb));
}

/* Produces into tb with config; the plugin's status (-1: no table came
 * with NVE_SUCCESS). */
static int produce_status(table *tb, const char *config)
{
  destroy(tb);
  nve_status_t s = factory.ops->produce(factory.self, 0, config, &tb->t);
  if (s != NVE_SUCCESS || !tb->t.ops) {
    memset(&tb->t, 0, sizeof(tb->t));
    return s != NVE_SUCCESS ? (int)s : -1;
  }
  tb->live = 1;
  tb->key_size = tb->t.ops->key_size(tb->t.self);
  tb->invalid = tb->t.ops->invalid_key(tb->t.self);
  return 0;
}

static int produce(table *tb, const char *config) { return produce_status(tb, config) == 0 ? 0 : -1; }

/* ---- keys: the logged ones, or made up (a log without them) ---------------------- */

/* The case processes of the log: each one's keys file (FILE.keys/PROC,
 * opened when first needed) and the digest of its answers. Digests are
 * kept per process and summed at the end, so that the digest does not
 * depend on how the lines of cases run side by side interleaved. */
static const char *keys_dir;
static struct proc_state {
  uint64_t proc;
  int fd; /* -2: not opened yet */
  uint64_t answers;
} *procs;
static size_t nprocs;

static struct proc_state *proc_of(uint64_t proc)
{
  for (size_t i = 0; i < nprocs; i++)
    if (procs[i].proc == proc)
      return &procs[i];
  struct proc_state *more = realloc(procs, (nprocs + 1) * sizeof(*procs));
  if (!more)
    return NULL;
  procs = more;
  procs[nprocs] = (struct proc_state){proc, -2, 0};
  return &procs[nprocs++];
}

static int keys_fd(struct proc_state *ps)
{
  if (ps->fd == -2) {
    char path[4200];
    snprintf(path, sizeof(path), "%s/%016llx", keys_dir, (unsigned long long)ps->proc);
    ps->fd = open(path, O_RDONLY | O_CLOEXEC);
  }
  return ps->fd;
}

static uint64_t all_answers(void)
{
  uint64_t sum = 0;
  for (size_t i = 0; i < nprocs; i++)
    sum += nc_mix64(procs[i].answers);
  return sum;
}

static int read_blob(struct proc_state *ps, long long at, unsigned char *to, size_t len)
{
  int fd = keys_fd(ps);
  size_t done = 0;
  while (fd >= 0 && done < len) {
    ssize_t r = pread(fd, to + done, len - done, (off_t)at + (off_t)done);
    if (r <= 0)
      break;
    done += (size_t)r;
  }
  return done == len ? 0 : -1;
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

/* n made-up keys, none of them the invalid key (see key_for). */
static void make_keys(table *tb, int64_t n, int64_t hits)
{
  for (int64_t i = 0; i < n; i++) {
    int64_t k = key_for(tb, i, hits);
    if (k == tb->invalid)
      k++;
    if (tb->key_size == 4) {
      int32_t k32 = (int32_t)k;
      memcpy(keys + 4 * i, &k32, 4);
    } else {
      memcpy(keys + 8 * i, &k, 8);
    }
  }
}

/* The made-up keys of the insert just made, for the finds that hit. */
static int remember_inserted(table *tb, int64_t n)
{
  if (!tb->inserted && !(tb->inserted = malloc(KEY_POOL * sizeof(int64_t))))
    return -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t k;
    if (tb->key_size == 4) {
      int32_t k32;
      memcpy(&k32, keys + 4 * i, 4);
      k = k32;
    } else {
      memcpy(&k, keys + 8 * i, 8);
    }
    tb->inserted[tb->ninserted++ % KEY_POOL] = k;
  }
  return 0;
}

/* Row i of a write, from its key: 32-bit words with their top two bits and
 * those of their upper half clear, finite as float16, bfloat16, float32 and
 * float64 alike, below 2 in magnitude. */
static void fill_rows(const table *tb, int64_t n, int64_t stride, int64_t size)
{
  for (int64_t i = 0; i < n; i++) {
    uint64_t key = 0;
    memcpy(&key, keys + tb->key_size * i, (size_t)tb->key_size);
    unsigned char *row = values + i * stride;
    for (int64_t b = 0; b < size; b += 4) {
      uint32_t word = (uint32_t)nc_mix64(key * 0x100000001b3ull + (uint64_t)b) & 0x3fff3fffu;
      memcpy(row + b, &word, (size_t)(size - b < 4 ? size - b : 4));
    }
  }
}

/* What a find answered: the mask's bits for the n keys, then each hit's
 * size and bytes (no more than the stride, whatever size it claims). */
static void digest_find(int64_t n, int64_t stride)
{
  const uint64_t *bits = (const uint64_t *)mask;
  const int64_t *got = (const int64_t *)sizes;
  for (int64_t i = 0; i < n; i++) {
    int hit = (int)(bits[i / 64] >> (i % 64) & 1);
    digest_add((uint64_t)hit);
    if (!hit)
      continue;
    int64_t len = got[i] < 0 ? 0 : got[i] > stride ? stride : got[i];
    digest_add((uint64_t)got[i]);
    digest_bytes(values + i * stride, len);
  }
  if (n > 0 && n % 64) /* the bits past n stay zero */
    digest_add(bits[(n - 1) / 64] >> (n % 64));
}

/* Calls, keys and seconds in the calls, per op. */
#define OPS 16
static struct op_time {
  char op[32];
  long calls;
  long long keys;
  double seconds;
} op_times[OPS];

static void count_op(const char *op, int64_t n, double seconds)
{
  for (int i = 0; i < OPS; i++) {
    struct op_time *t = &op_times[i];
    if (t->op[0] && strcmp(t->op, op) != 0)
      continue;
    if (!t->op[0])
      snprintf(t->op, sizeof(t->op), "%s", op);
    t->calls++;
    t->keys += n;
    t->seconds += seconds;
    return;
  }
}

/* A line's table, its process, where its keys are (-1: not logged) and
 * its config (-2: the line has none, -1: config=-, the text NULL). */
typedef struct line_refs {
  int named;
  uint64_t id, proc;
  long long keys_at, config_at;
  size_t config_len;
} line_refs;

static line_refs refs_of(const char *line)
{
  line_refs r = {0, 0, 0, -1, -2, 0};
  const char *c = strstr(line, " config=");
  if (c && c[8] == '-')
    r.config_at = -1;
  else if (c && sscanf(c + 8, "%lld:%zu", &r.config_at, &r.config_len) != 2)
    r.config_at = -2;
  const char *t = strstr(line, " t="), *p = strstr(line, " proc="), *k = strstr(line, " keys=");
  if (t && p) {
    r.named = 1;
    r.id = strtoull(t + 3, NULL, 16);
    r.proc = strtoull(p + 6, NULL, 16);
  }
  if (k)
    r.keys_at = strtoll(k + 6, NULL, 10);
  return r;
}

/* The table a line is for: a new one for produce; NULL to skip the line
 * (a table the log did not see made, or a produce that failed there). */
static table *target(const char *op, const line_refs *r, const char *config, int *failed)
{
  if (!r->named)
    return strcmp(op, "produce") == 0 && produce(&plain, config) != 0 ? (*failed = 1, NULL) : &plain;
  if (strcmp(op, "produce") != 0)
    return table_of(r->proc, r->id);
  if (r->id == 0)
    return NULL;
  table *old = table_of(r->proc, r->id), *tb = old ? old : new_table();
  if (!tb || produce(tb, config) != 0) {
    *failed = 1;
    return NULL;
  }
  tb->proc = r->proc;
  tb->id = r->id;
  return tb;
}

static nve_status_t (*create)(const char *, nve_ext_table_factory_t *, const char **);

/* The digest of one answer, in its process's own. */
static void digest_answer(struct proc_state *ps, uint64_t a, uint64_t b)
{
  if (!digesting)
    return;
  answers = ps->answers;
  digest_add(a);
  digest_add(b);
  ps->answers = answers;
}

/* A factory creation or a produce with the config the log kept: the same
 * text again (a plugin that refuses or accepts other configs answers
 * otherwise). A produce the harness saw succeed gives the table of its
 * line; one that failed there is destroyed at once. 1, or -1 when the text
 * cannot be read. */
static int replay_config(const char *op, const line_refs *r, struct proc_state *ps)
{
  char *text = NULL;
  if (r->config_at >= 0) {
    if (!(text = malloc(r->config_len + 1)) ||
        read_blob(ps, r->config_at, (unsigned char *)text, r->config_len) != 0) {
      free(text);
      return -1;
    }
    text[r->config_len] = '\0';
  }
  if (strcmp(op, "create") == 0) {
    nve_ext_table_factory_t f = {0};
    const char *err = "unset";
    nve_status_t s = create(text, &f, &err);
    digest_answer(ps, (uint64_t)s, (uint64_t)(f.ops != NULL) << 1 | (err == NULL));
    if (s == NVE_SUCCESS && f.ops)
      f.ops->destroy(f.self);
    free(text);
    return 1;
  }
  table scratch_table, *tb = &scratch_table;
  memset(tb, 0, sizeof(*tb));
  if (r->id && !(tb = table_of(r->proc, r->id)) && !(tb = new_table())) {
    free(text);
    return -1;
  }
  int s = produce_status(tb, text);
  digest_answer(ps, (uint64_t)s, 0);
  if (r->id && s == 0) {
    tb->proc = r->proc;
    tb->id = r->id;
  } else {
    destroy(tb); /* a failure, or one the harness saw fail */
  }
  free(text);
  return 1;
}

/* Calls the op; its status (the counter read into *counter). */
static nve_status_t call(table *tb, const char *op, int64_t n, int64_t stride, int64_t size,
                         int dtype, int64_t *counter)
{
  void *self = tb->t.self;
  nve_ext_context_t ctx = (nve_ext_context_t)tb; /* any non-NULL handle */
  const nve_ext_table_ops_t *ops = tb->t.ops;
  if (strcmp(op, "find") == 0)
    return ops->find(self, ctx, n, keys, (uint64_t *)mask, stride, values, (int64_t *)sizes);
  if (strcmp(op, "insert") == 0)
    return ops->insert(self, ctx, n, keys, stride, size, values);
  if (strcmp(op, "update") == 0)
    return ops->update(self, ctx, n, keys, stride, size, values);
  if (strcmp(op, "update_accumulate") == 0)
    return ops->update_accumulate(self, ctx, n, keys, stride, size, values,
                                  (nve_data_type_t)dtype);
  if (strcmp(op, "erase") == 0)
    return ops->erase(self, ctx, n, keys);
  if (strcmp(op, "clear") == 0)
    return ops->clear(self, ctx);
  if (strcmp(op, "reset_lookup_counter") == 0)
    return ops->reset_lookup_counter(self, ctx);
  return ops->get_lookup_counter(self, ctx, counter);
}

static int known_op(const char *op)
{
  static const char *const ops[] = {"find",  "insert", "update", "update_accumulate",
                                    "erase", "clear",  "reset_lookup_counter",
                                    "get_lookup_counter"};
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
    if (strcmp(op, ops[i]) == 0)
      return 1;
  return 0;
}

/* One line of the log; 1 when it was a call, 0 when skipped, -1 on error. */
static int replay(const char *line, const char *config)
{
  char op[32];
  long long n, stride, size;
  int dtype;
  long long hits = -1;
  int fields = sscanf(line, "%31s n=%lld stride=%lld size=%lld dtype=%d hits=%lld", op, &n,
                      &stride, &size, &dtype, &hits);
  if (fields < 5)
    return 0;
  line_refs r = refs_of(line);
  struct proc_state *ps = proc_of(r.proc);
  if (!ps)
    return -1;
  if (r.config_at != -2 && (strcmp(op, "create") == 0 || strcmp(op, "produce") == 0))
    return replay_config(op, &r, ps);
  int failed = 0;
  table *tb = target(op, &r, config, &failed);
  if (failed)
    return -1;
  if (!tb)
    return 0;
  if (strcmp(op, "produce") == 0)
    return 1;
  if (strcmp(op, "destroy") == 0) {
    destroy(tb);
    return 1;
  }
  if (!known_op(op))
    return 0;
  int64_t count = n > 0 ? n : 0;
  long long width = stride > size ? stride : size;
  size_t bytes = (size_t)count * (size_t)(width > 0 ? width : 0) + (size_t)(size > 0 ? size : 0) + 8;
  size_t side = (size_t)count * 8 + 64;
  if (grow(&keys, &keys_cap, (size_t)count * 8 + 8) != 0 ||
      grow(&values, &values_cap, bytes) != 0 || grow(&sizes, &side_cap, side) != 0)
    return -1;
  free(mask);
  if (!(mask = calloc(1, side)))
    return -1;
  if (r.keys_at >= 0) {
    if (read_blob(ps, r.keys_at, keys, (size_t)count * (size_t)tb->key_size) != 0)
      return -1;
  } else {
    make_keys(tb, count, strcmp(op, "find") == 0 ? hits : -1);
  }
  if (strcmp(op, "insert") == 0 && r.keys_at < 0 && remember_inserted(tb, count) != 0)
    return -1;
  int writes = strcmp(op, "insert") == 0 || strcmp(op, "update") == 0 ||
               strcmp(op, "update_accumulate") == 0;
  if (digesting && writes && stride >= size)
    fill_rows(tb, count, stride, size);
  int64_t counter = 0;
  double t0 = cpu_now();
  nve_status_t status = call(tb, op, n, stride, size, dtype, &counter);
  if (per_op)
    count_op(op, count, cpu_now() - t0);
  if (digesting) {
    answers = ps->answers;
    digest_add((uint64_t)status);
    digest_add((uint64_t)counter);
    if (strcmp(op, "find") == 0 && status == NVE_SUCCESS && stride > 0)
      digest_find(count, stride);
    ps->answers = answers;
  }
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
  create = (nve_status_t(*)(const char *, nve_ext_table_factory_t *, const char **))dlsym(
      h, "nve_plugin_create_external_factory");
  FILE *log = fopen(argv[2], "r");
  if (!create || !log) {
    fprintf(stderr, "bare_calls: no creation symbol in %s, or cannot read %s\n", argv[1], argv[2]);
    return 1;
  }
  if (set_services)
    set_services(&services);
  static char dir[4200];
  snprintf(dir, sizeof(dir), "%s.keys", argv[2]);
  keys_dir = dir;
  const char *err = NULL;
  if (create("{}", &factory, &err) != NVE_SUCCESS || produce(&plain, config) != 0) {
    fprintf(stderr, "bare_calls: the plugin refused the configuration: %s\n", err ? err : "");
    return 1;
  }
  char line[400];
  long calls = 0;
  double t0 = now();
  while (fgets(line, sizeof(line), log)) {
    int r = replay(line, config);
    if (r < 0) {
      fprintf(stderr, "bare_calls: out of memory, produce failed, or the keys are missing from "
                      "%s, at: %s", keys_dir, line);
      return 1;
    }
    calls += r;
  }
  double seconds = now() - t0;
  fclose(log);
  if (digesting) {
    printf("digest: %016llx (%ld calls)\n", (unsigned long long)all_answers(), calls);
    return 0;
  }
  printf("bare: %ld calls in %.3f s\n", calls, seconds);
  for (int i = 0; i < OPS && op_times[i].op[0]; i++)
    printf("bare-op %s calls=%ld keys=%lld seconds=%.6f\n", op_times[i].op, op_times[i].calls,
           op_times[i].keys, op_times[i].seconds);
  return 0;
}
