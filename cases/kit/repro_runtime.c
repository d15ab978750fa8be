/* SPDX-License-Identifier: Apache-2.0 */
/* A reproducer written by nve-conform: it replays the shortest sequence of
 * table calls that nve-conform found disagreeing with its model (after the
 * earlier sequences of nve-conform's whose tables the failure needs, if
 * any, each from a fresh factory and ended as nve-conform ended it), against
 * the plugin named by the first argument (default: the file it was made
 * from), and checks every answer as nve-conform did.
 *
 * Build: cc -std=c11 -I INCLUDEDIR repro.c -ldl (INCLUDEDIR holds
 * plugin/nve_external_plugin.h, the ABI headers nve-conform installs).
 * Exit status: 1 while the defect persists, 0 once it is fixed, 2 when the
 * plugin cannot be loaded or a table made, 3 when every answer agreed but
 * an update_accumulate this program cannot sum (updates other than
 * float32, or a table of another dtype) succeeded, so that the keys it
 * touched went unchecked, or when it could not make a decoy device current
 * where nve-conform did, or when nve-conform could not see these steps
 * fail in a process of their own: inconclusive, never "fixed".
 *
 * Beside the answers it checks what nve-conform checks between them: the
 * capabilities read again after a step read as at produce, and a write
 * past max_row_size that the table refuses leaves a message in its
 * last_error.
 *
 * The rows differ from nve-conform's (the defect should not depend on
 * them); the host is the least one the contract allows: one context per
 * thread, tasks run in order on the calling thread. When the plugin links
 * a CUDA runtime, the program uses it as nve-conform did: device copies of
 * the buffers for a DEVICE table, its device current around each op, and
 * a decoy device (not device 0) current around factory creation, produce
 * and factory destroy, which must leave it current. A table of another of
 * the profile's configs is judged as nve-conform judges one: rows of the
 * size it declares, keys of its own size, never exact. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plugin/nve_external_plugin.h>

enum { FIND, INSERT, UPDATE, ACCUMULATE, ERASE, CLEAR, COUNTER, PRODUCE, DESTROY, DROP_FACTORY };
enum { NULL_MASK = 1, NULL_VALUES = 2, NULL_SIZES = 4 };

struct repro_step {
  int action, table, thread, nulls, read, resolved_every, dtype;
  int64_t n, first, pad, size; /* keys: repro_keys[first .. first + n) */
  uint64_t tag;
  int64_t probe_n; /* its read-back's keys: the probe_n after its own */
  int64_t extra;   /* the last extra of those are not its own keys */
  int config;      /* produce: 0 table_config, k repro_more_configs[k - 1] */
  int checks;      /* REREAD_CAPS | OVERSIZE_FIRST */
  uint64_t oversize_seed; /* the keys of that write */
};
enum { REREAD_CAPS = 1, OVERSIZE_FIRST = 2 };
/* A sequence of the steps, replayed from a fresh factory: the failing one
 * last, before it any earlier ones its failure needs. */
struct repro_sequence {
  size_t first, count; /* repro_steps[first .. first + count) */
  uint64_t seed;       /* its decoys' draws */
};

/* @DATA@ */

#define TABLES 3
#define PATTERN 0xa5
/* nve-conform's bounds on a table of another config: a buffer of at most
 * BUFFER_BYTES, read-backs of at most PROBE_MAX keys, rows wider than
 * ROW_MAX written ROW_WIDE bytes long. */
#define BUFFER_BYTES (16 << 20)
#define PROBE_MAX (256 + 16)
#define ROW_MAX (64 << 20)
#define ROW_WIDE 4096
#define OVERSIZE_BYTES (8 << 20)
#define OVERSIZE_STORED 64 /* keys stored before an update or accumulate past the row */
#define OVERSIZE_BYTE 0x3c  /* every byte of their rows */

/* ---- the CUDA runtime the plugin links, when it links one -------------------------- */

static struct {
  int (*get_count)(int *);
  int (*get)(int *);
  int (*set)(int);
  int (*alloc)(void **, size_t);
  int (*release)(void *);
  int (*copy)(void *, const void *, size_t, int); /* cudaMemcpy */
  int (*sync)(void);
  int (*stream_create)(void **);
  int count, home; /* its devices; the device current when the program began */
} cuda;
enum { TO_DEVICE = 1, TO_HOST = 2 }; /* cudaMemcpyKind */

/* The runtime's functions: from the CUDA runtime loaded for the whole
 * process before the plugin, as a host (and nve-conform) loads it, else
 * from the plugin's own dependencies. */
static void cuda_load(void)
{
  static const char *const names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
                                      "libcudart.so"};
  for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
    if (dlopen(names[i], RTLD_NOW | RTLD_GLOBAL))
      return;
}

static void cuda_find(void *so)
{
  if (dlsym(RTLD_DEFAULT, "cudaGetDeviceCount"))
    so = RTLD_DEFAULT;
  *(void **)&cuda.get_count = dlsym(so, "cudaGetDeviceCount");
  *(void **)&cuda.get = dlsym(so, "cudaGetDevice");
  *(void **)&cuda.set = dlsym(so, "cudaSetDevice");
  *(void **)&cuda.alloc = dlsym(so, "cudaMalloc");
  *(void **)&cuda.release = dlsym(so, "cudaFree");
  *(void **)&cuda.copy = dlsym(so, "cudaMemcpy");
  *(void **)&cuda.sync = dlsym(so, "cudaDeviceSynchronize");
  *(void **)&cuda.stream_create = dlsym(so, "cudaStreamCreate");
  if (!cuda.get_count || !cuda.get || !cuda.set || !cuda.alloc || !cuda.release ||
      !cuda.copy || !cuda.sync || cuda.get_count(&cuda.count) != 0 || cuda.get(&cuda.home) != 0)
    cuda.count = 0;
}

/* SplitMix64's finaliser: nve-conform draws the decoys and the keys of
 * its writes past the row with it. */
static uint64_t mix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Calls nve-conform made with a decoy device current that this program
 * could not make so (no runtime, or one of fewer than two devices): what
 * the failure needs when it is a decoy's (REPRO_NEEDS_DECOYS). */
static int decoys_missed;
static uint64_t sequence_seed; /* the current sequence's */

/* Makes a decoy device current before a bootstrap call of step s, as
 * nve-conform did (never device 0; salt: 1 factory creation, 2 produce, 3
 * factory destroy). Returns it, or -1 when none is made. */
static int decoy_before(const struct repro_step *s, int salt)
{
  if (!s || !REPRO_DECOYS)
    return -1; /* nve-conform made none */
  if (cuda.count < 2) {
    decoys_missed = 1;
    return -1;
  }
  uint64_t h = mix64(sequence_seed ^ (s->tag * 0x9e3779b97f4a7c15ull) ^ (uint64_t)salt);
  int decoy = 1 + (int)(h % (uint64_t)(cuda.count - 1));
  return cuda.set(decoy) == 0 ? decoy : -1;
}

static void defect(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The call must have left the decoy current; then the program's device again. */
static void decoy_after(int decoy, const char *call)
{
  if (decoy < 0)
    return;
  int now = -1;
  cuda.get(&now);
  if (now != decoy)
    defect("%s with device %d current (a decoy): device %d is current afterwards; the caller's "
           "device must be restored", call, decoy, now);
  cuda.set(cuda.home);
}

static void *device_alloc(size_t size)
{
  void *d = NULL;
  if (cuda.alloc(&d, size ? size : 1) != 0)
    return NULL;
  return d;
}

/* ---- the host's services --------------------------------------------------- */

struct context {
  struct {
    char name[64];
    void *p;
    size_t size;
  } scratch[32];
  int n;
  void *streams[2]; /* lookup, modify: the table's, set before each op */
};
static _Thread_local struct context thread_context;
static _Thread_local char service_error[256];

static nve_status_t svc_workers(nve_ext_context_t ctx, int64_t *out)
{
  (void)ctx;
  *out = 1;
  return NVE_SUCCESS;
}

static nve_status_t svc_execute(nve_ext_context_t ctx, int64_t n,
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

static nve_status_t svc_execute_wg(nve_ext_context_t ctx, int64_t n,
                                   nve_status_t (*task)(void *, int64_t), void *user,
                                   const int64_t *groups, int64_t ngroups, int64_t per_group)
{
  (void)groups, (void)ngroups, (void)per_group;
  return svc_execute(ctx, n, task, user);
}

static nve_status_t svc_lookup_stream(nve_ext_context_t ctx, void **out)
{
  *out = ((struct context *)ctx)->streams[0];
  return NVE_SUCCESS;
}

static nve_status_t svc_modify_stream(nve_ext_context_t ctx, void **out)
{
  *out = ((struct context *)ctx)->streams[1];
  return NVE_SUCCESS;
}

static nve_status_t svc_scratch(nve_ext_context_t ctx, const char *name, size_t size,
                                int32_t host_alloc, void **out)
{
  /* Host memory whatever host_alloc says, as nve-conform gives it. */
  struct context *c = (struct context *)ctx;
  (void)host_alloc;
  int i = 0;
  while (i < c->n && strncmp(c->scratch[i].name, name, sizeof(c->scratch[i].name) - 1) != 0)
    i++;
  if (i == c->n) {
    if (c->n == 32) {
      snprintf(service_error, sizeof(service_error), "get_scratch: too many names");
      return NVE_ERROR_OUT_OF_MEMORY;
    }
    snprintf(c->scratch[i].name, sizeof(c->scratch[i].name), "%s", name);
    c->n++;
  }
  if (c->scratch[i].size < size) {
    void *p = realloc(c->scratch[i].p, size);
    if (!p) {
      snprintf(service_error, sizeof(service_error), "get_scratch: out of memory");
      return NVE_ERROR_OUT_OF_MEMORY;
    }
    c->scratch[i].p = p;
    c->scratch[i].size = size;
  }
  *out = c->scratch[i].p;
  return NVE_SUCCESS;
}

static const char *svc_last_error(nve_ext_context_t ctx)
{
  (void)ctx;
  return service_error;
}

static const nve_ext_nve_services_t services = {
    sizeof(nve_ext_nve_services_t), svc_workers, svc_execute, svc_execute_wg, svc_lookup_stream,
    svc_modify_stream, svc_scratch, svc_last_error};

static nve_ext_context_t context(void) { return (nve_ext_context_t)&thread_context; }

/* ---- the model: what each key of each table may answer ------------------------- */

enum { ABSENT, PRESENT, ANY };
/* What a table's calls are made of. */
struct geometry {
  int64_t row, stride, key_size, invalid_key;
  nve_data_type_t dtype;
  int exact, other; /* other: of another config, its steps fitted to it */
};
/* What a table says of itself; read again, it must say the same. */
struct caps {
  nve_buffer_location_t location;
  int32_t device_id;
  int64_t max_row_size, key_size, invalid_key, counter_hits;
  nve_data_type_t dtype;
};
struct table {
  int alive;
  nve_ext_table_t t;
  struct caps caps;
  int on_device;    /* a DEVICE table: device copies of its buffers */
  void *streams[2]; /* its contexts' lookup and modify streams */
  struct geometry g;
  uint32_t *order;      /* distinct keys by their low half (4-byte keys) */
  uint32_t *same;       /* per distinct key: the first one with its bytes (4-byte keys) */
  unsigned char *state; /* per distinct key */
  unsigned char *rows;  /* per distinct key, g.row bytes */
  int64_t *known;       /* per distinct key: its rows' first bytes a hit must return */
  int64_t counter;
  int counter_known;
};
/* One call: a step's keys (indexes into repro_distinct), fitted to its table. */
struct call {
  const struct repro_step *s;
  const uint32_t *idx;
  int64_t n, pad, size;
};
static struct table tables[TABLES];
static nve_ext_table_factory_t factory;
static int factory_alive;
static size_t step_at, sequence_at;
/* 1 + the last step of the last sequence whose sums went unchecked; 0: none. */
static size_t unsummed_at;
static nve_data_type_t unsummed_dtype; /* that step's table's */

static void defect(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  const struct repro_sequence *q = &repro_sequences[sequence_at];
  if (repro_nsequences > 1)
    printf("sequence %zu of %zu, ", sequence_at + 1, repro_nsequences);
  printf("step %zu of %zu: ", step_at - q->first + 1, q->count);
  vprintf(fmt, ap);
  printf("\nthe defect persists\n");
  va_end(ap);
  exit(1);
}

/* Row i of a write with this tag: small integers in float32 tables, so
 * that sums stay exact; bytes otherwise. */
static void make_row(unsigned char *out, int64_t width, nve_data_type_t dtype, uint64_t tag,
                     int64_t i)
{
  for (int64_t e = 0; dtype == NVE_DTYPE_FLOAT32 && e + 4 <= width; e += 4) {
    float f = (float)((long)((tag * 131 + (uint64_t)i * 31 + (uint64_t)e * 7) % 1999) - 999);
    memcpy(out + e, &f, 4);
  }
  for (int64_t e = dtype == NVE_DTYPE_FLOAT32 ? width / 4 * 4 : 0; e < width; e++)
    out[e] = (unsigned char)(tag * 131 + (uint64_t)i * 31 + (uint64_t)e * 7 + 1);
}

/* The model's index of distinct key k in table t. */
static uint32_t slot_of(const struct table *t, uint32_t k) { return t->same ? t->same[k] : k; }

static int64_t key_value(const struct table *t, uint32_t k)
{
  int64_t v = repro_distinct[k];
  return t->g.key_size == 4 ? (int64_t)(int32_t)v : v;
}

static int is_invalid(const struct table *t, uint32_t k)
{
  int64_t invalid = t->g.key_size == 4 ? (int64_t)(int32_t)t->g.invalid_key : t->g.invalid_key;
  return key_value(t, k) == invalid;
}

static void *pack_keys(const struct table *t, const struct call *c)
{
  unsigned char *k = malloc((size_t)(c->n ? c->n : 1) * (size_t)t->g.key_size);
  if (!k)
    exit(2);
  for (int64_t i = 0; i < c->n; i++) {
    int64_t v = key_value(t, c->idx[i]);
    if (t->g.key_size == 4) {
      int32_t v32 = (int32_t)v;
      memcpy(k + 4 * i, &v32, 4);
    } else {
      memcpy(k + 8 * i, &v, 8);
    }
  }
  return k;
}

static int twice_in_batch(const struct table *t, const struct call *c, int64_t i)
{
  for (int64_t j = 0; j < c->n; j++)
    if (j != i && slot_of(t, c->idx[j]) == slot_of(t, c->idx[i]))
      return 1;
  return 0;
}

static void check_keys_unchanged(const struct table *t, const struct call *c, const void *keys)
{
  void *again = pack_keys(t, c);
  if (memcmp(again, keys, (size_t)c->n * (size_t)t->g.key_size) != 0)
    defect("the call changed its (const) keys buffer");
  free(again);
}

/* ---- what the host does around each op ------------------------------------------------ */

/* Before the op: a DEVICE table's device current and its streams in the
 * calling thread's context. */
static void enter(const struct table *t)
{
  thread_context.streams[0] = t->streams[0];
  thread_context.streams[1] = t->streams[1];
  if (t->on_device)
    cuda.set(t->caps.device_id);
}

static void leave(const struct table *t)
{
  if (t->on_device)
    cuda.sync();
}

/* A buffer of the op as the table takes it: host itself for a HOST table,
 * a device copy of it for a DEVICE table (NULL stays NULL). */
static void *lend(const struct table *t, const void *host, size_t len)
{
  if (!t->on_device || !host)
    return (void *)host;
  void *d = device_alloc(len);
  if (!d || cuda.copy(d, host, len, TO_DEVICE) != 0) {
    fprintf(stderr, "cannot copy %zu bytes to device %d\n", len, (int)t->caps.device_id);
    exit(2);
  }
  return d;
}

/* The table's bytes of a lent buffer back into host; the copy freed. */
static void take_back(const struct table *t, void *host, void *lent, size_t len)
{
  if (!t->on_device || !host)
    return;
  if (cuda.copy(host, lent, len, TO_HOST) != 0) {
    fprintf(stderr, "cannot copy %zu bytes from device %d\n", len, (int)t->caps.device_id);
    exit(2);
  }
  cuda.release(lent);
}

/* ---- writes ------------------------------------------------------------------------ */

static unsigned char *row_of(struct table *t, uint32_t k)
{
  return t->rows + (size_t)slot_of(t, k) * (size_t)t->g.row;
}

static void write_op(struct table *t, const struct call *c)
{
  const struct repro_step *s = c->s;
  int64_t stride = t->g.stride + c->pad, row = t->g.row;
  void *keys = pack_keys(t, c);
  unsigned char *rows = calloc((size_t)(c->n ? c->n : 1), (size_t)stride);
  if (!rows)
    exit(2);
  int64_t size = c->size > 0 && c->size < row ? c->size : row; /* a short write */
  for (int64_t i = 0; i < c->n; i++)
    make_row(rows + i * stride, size, t->g.dtype, s->tag, i);
  size_t klen = (size_t)c->n * (size_t)t->g.key_size, rlen = (size_t)(c->n * stride);
  enter(t);
  void *dk = lend(t, keys, klen), *dr = lend(t, rows, rlen);
  nve_status_t st = s->action == INSERT
                        ? t->t.ops->insert(t->t.self, context(), c->n, dk, stride, size, dr)
                        : t->t.ops->update(t->t.self, context(), c->n, dk, stride, size, dr);
  leave(t);
  take_back(t, keys, dk, klen);
  take_back(t, rows, dr, rlen);
  check_keys_unchanged(t, c, keys);
  for (int64_t i = 0; i < c->n; i++) {
    uint32_t k = slot_of(t, c->idx[i]);
    if (st != NVE_SUCCESS || twice_in_batch(t, c, i) || is_invalid(t, c->idx[i])) {
      t->state[k] = ANY;
    } else if (s->action == INSERT || t->state[k] == PRESENT) {
      t->state[k] = PRESENT;
      memcpy(row_of(t, k), rows + i * stride, (size_t)size);
      t->known[k] = size; /* the rest of the row is open after a short write */
    } else if (t->state[k] == ANY) {
      t->state[k] = ANY; /* present or not: either may hold */
    }
  }
  free(rows);
  free(keys);
}

static void accumulate_op(struct table *t, const struct call *c)
{
  const struct repro_step *s = c->s;
  void *keys = pack_keys(t, c);
  unsigned char *upd = calloc((size_t)(c->n ? c->n : 1), (size_t)(c->size ? c->size : 1));
  if (!upd)
    exit(2);
  for (int64_t i = 0; i < c->n; i++)
    make_row(upd + i * c->size, c->size, (nve_data_type_t)s->dtype, s->tag, i);
  size_t klen = (size_t)c->n * (size_t)t->g.key_size, ulen = (size_t)(c->n * c->size);
  enter(t);
  void *dk = lend(t, keys, klen), *du = lend(t, upd, ulen);
  nve_status_t st = t->t.ops->update_accumulate(t->t.self, context(), c->n, dk, c->size,
                                                c->size, du, (nve_data_type_t)s->dtype);
  leave(t);
  take_back(t, keys, dk, klen);
  take_back(t, upd, du, ulen);
  check_keys_unchanged(t, c, keys);
  int summable = t->g.dtype == NVE_DTYPE_FLOAT32 && s->dtype == NVE_DTYPE_FLOAT32;
  if (st == NVE_SUCCESS && !summable && c->n > 0) {
    /* nve-conform judged the earlier sequences' sums: only the last's
     * matter here. */
    if (sequence_at + 1 == repro_nsequences) {
      unsummed_at = step_at + 1;
      unsummed_dtype = t->g.dtype;
    }
  }
  for (int64_t i = 0; i < c->n; i++) {
    uint32_t k = slot_of(t, c->idx[i]);
    if (st != NVE_SUCCESS || !summable) {
      t->state[k] = ANY;
      continue;
    }
    if (t->state[k] != PRESENT)
      continue; /* missing keys are ignored; unknown ones stay unknown */
    for (int64_t e = 0; e + 4 <= c->size; e += 4) {
      float a, b;
      memcpy(&a, row_of(t, k) + e, 4);
      memcpy(&b, upd + i * c->size + e, 4);
      a += b;
      memcpy(row_of(t, k) + e, &a, 4);
    }
  }
  free(upd);
  free(keys);
}

static void erase_op(struct table *t, const struct call *c)
{
  void *keys = pack_keys(t, c);
  size_t klen = (size_t)c->n * (size_t)t->g.key_size;
  enter(t);
  void *dk = lend(t, keys, klen);
  nve_status_t st = c->s->action == ERASE ? t->t.ops->erase(t->t.self, context(), c->n, dk)
                                           : t->t.ops->clear(t->t.self, context());
  leave(t);
  take_back(t, keys, dk, klen);
  check_keys_unchanged(t, c, keys);
  free(keys);
  if (c->s->action == CLEAR) {
    memset(t->state, st == NVE_SUCCESS ? ABSENT : ANY, repro_ndistinct);
    t->counter_known = 0; /* the contract does not say what clear does to it */
    return;
  }
  for (int64_t i = 0; i < c->n; i++)
    t->state[slot_of(t, c->idx[i])] = st == NVE_SUCCESS ? ABSENT : ANY;
}

/* ---- reads ------------------------------------------------------------------------- */

static int bit(const uint64_t *m, int64_t i) { return (int)(m[i / 64] >> (i % 64) & 1); }

static void check_hit(struct table *t, const struct call *c, int64_t i, int hit,
                      const unsigned char *value, const int64_t *sizes)
{
  uint32_t k = slot_of(t, c->idx[i]);
  long long key = (long long)key_value(t, c->idx[i]);
  int64_t row = t->g.row;
  if (t->state[k] == ANY || is_invalid(t, c->idx[i]))
    return;
  if (hit && t->state[k] == ABSENT)
    defect("find: a hit for key %lld, which is not stored (index %lld)", key, (long long)i);
  if (!hit && t->state[k] == PRESENT && t->g.exact)
    defect("find: key %lld is stored and missed (index %lld), in a table that never evicts",
           key, (long long)i);
  int64_t known = t->known[k];
  if (hit && value && memcmp(value, row_of(t, k), (size_t)known))
    defect("find: key %lld (index %lld) came back with bytes other than the last written",
           key, (long long)i);
  /* After a short write: the bytes written or the row. */
  if (hit && sizes && (sizes[i] > row || sizes[i] < known || (known == row && sizes[i] != row)))
    defect("find: value_sizes[%lld] is %lld, not the size written (%lld) or the row (%lld)",
           (long long)i, (long long)sizes[i], (long long)known, (long long)row);
}

/* What byte at of a find's values holds before the call: unlike the same
 * byte of the slots beside it, so that a row copied from one slot into
 * another shows. */
static unsigned char fill_at(int64_t at)
{
  return (unsigned char)(PATTERN ^ (at * 151) ^ (at >> 7));
}

static int64_t find_op(struct table *t, const struct call *c, int nulls, int every)
{
  int64_t n = c->n, stride = t->g.stride + c->pad, words = (n + 63) / 64, hits = 0;
  void *keys = pack_keys(t, c);
  uint64_t *mask = calloc((size_t)(words ? words : 1), 8);
  /* A row and more past the last slot: a table writing one row too many
   * shows as a defect, not as this program's heap overrun. */
  int64_t tail = stride + 64;
  unsigned char *values = malloc((size_t)(n * stride + tail));
  int64_t *sizes = malloc((size_t)(n ? n : 1) * 8);
  if (!mask || !values || !sizes)
    exit(2);
  for (int64_t at = 0; at < n * stride + tail; at++)
    values[at] = fill_at(at);
  memset(sizes, PATTERN, (size_t)(n ? n : 1) * 8);
  for (int64_t i = 0; every && i < n; i += every)
    mask[i / 64] |= 1ull << (i % 64);
  size_t klen = (size_t)n * (size_t)t->g.key_size, mlen = (size_t)(words ? words : 1) * 8;
  size_t vlen = (size_t)(n * stride + tail), slen = (size_t)(n ? n : 1) * 8;
  uint64_t *hm = nulls & NULL_MASK ? NULL : mask;
  unsigned char *hv = nulls & NULL_VALUES ? NULL : values;
  int64_t *hs = nulls & NULL_SIZES ? NULL : sizes;
  enter(t);
  void *dk = lend(t, keys, klen), *dm = lend(t, hm, mlen), *dv = lend(t, hv, vlen),
       *ds = lend(t, hs, slen);
  nve_status_t st = t->t.ops->find(t->t.self, context(), n, dk, dm, stride, dv, ds);
  leave(t);
  take_back(t, keys, dk, klen);
  take_back(t, hm, dm, mlen);
  take_back(t, hv, dv, vlen);
  take_back(t, hs, ds, slen);
  check_keys_unchanged(t, c, keys);
  if (st != NVE_SUCCESS)
    defect("find: status %d for a valid call (n=%lld)", (int)st, (long long)n);
  for (int64_t b = 0; b < tail; b++)
    if (values[n * stride + b] != fill_at(n * stride + b))
      defect("find: byte %lld past the last value slot (n=%lld) was written", (long long)b,
             (long long)n);
  if (!(nulls & NULL_MASK) && n % 64 && mask[n / 64] >> (n % 64))
    defect("find: hit_mask bits at n (%lld) and above are set", (long long)n);
  for (int64_t i = 0; i < n; i++) {
    unsigned char *slot = values + i * stride;
    int resolved = every && i % every == 0;
    if (resolved) {
      for (int64_t b = 0; b < stride && !(nulls & NULL_VALUES); b++)
        if (slot[b] != fill_at(i * stride + b))
          defect("find: the slot of index %lld, resolved on entry, was written (byte %lld)",
                 (long long)i, (long long)b);
      if (!(nulls & NULL_MASK) && !bit(mask, i))
        defect("find: bit %lld was set on entry and is clear on return", (long long)i);
      continue;
    }
    int hit;
    if (!(nulls & NULL_MASK))
      hit = bit(mask, i);
    else if (!(nulls & NULL_SIZES))
      hit = sizes[i] > 0 && (unsigned char)sizes[i] != PATTERN;
    else
      continue;
    for (int64_t b = t->g.row; hit && b < stride && !(nulls & NULL_VALUES); b++)
      if (slot[b] != fill_at(i * stride + b))
        defect("find: byte %lld of slot %lld, between the row and the stride, was written",
               (long long)b, (long long)i);
    check_hit(t, c, i, hit, nulls & NULL_VALUES ? NULL : slot, nulls & NULL_SIZES ? NULL : sizes);
    hits += hit;
  }
  if (every || ((nulls & NULL_MASK) && (nulls & NULL_SIZES)))
    t->counter_known = 0; /* resolved keys leave the counter open; hits unseen */
  else
    t->counter += t->t.ops->lookup_counter_hits(t->t.self) ? hits : n - hits;
  free(mask);
  free(values);
  free(sizes);
  free(keys);
  return hits;
}

static void counter_op(struct table *t, const struct repro_step *s)
{
  if (!s->read) {
    enter(t);
    nve_status_t st = t->t.ops->reset_lookup_counter(t->t.self, context());
    leave(t);
    if (st != NVE_SUCCESS)
      defect("reset_lookup_counter: status %d", (int)st);
    t->counter = 0;
    t->counter_known = 1;
    return;
  }
  int64_t got = -1;
  enter(t);
  nve_status_t st = t->t.ops->get_lookup_counter(t->t.self, context(), &got);
  leave(t);
  if (st != NVE_SUCCESS)
    defect("get_lookup_counter: status %d", (int)st);
  if (t->counter_known && got != t->counter)
    defect("get_lookup_counter: %lld; the finds since the reset make it %lld", (long long)got,
           (long long)t->counter);
}

/* ---- steps fitted to a table of another config, as nve-conform fits them ---------- */

static int64_t keys_that_fit(int64_t stride)
{
  int64_t fit = BUFFER_BYTES / (stride + 16);
  return fit < 1 ? 1 : fit;
}

static int64_t width_of(int64_t dtype)
{
  switch (dtype) {
  case NVE_DTYPE_FLOAT32: return 4;
  case NVE_DTYPE_FLOAT64: return 8;
  case NVE_DTYPE_FLOAT16:
  case NVE_DTYPE_BFLOAT16: return 2;
  case NVE_DTYPE_E4M3:
  case NVE_DTYPE_E5M2: return 1;
  default: return 0;
  }
}

/* An accumulate's update size: as many whole elements of its dtype as the
 * row holds elements of its own, else as many as fit the row. */
static int64_t update_size_most(const struct table *t, int64_t dtype)
{
  int64_t rw = width_of(t->g.dtype), w = width_of(dtype), row = t->g.row;
  if (rw && w)
    return (row / rw < row / w ? row / rw : row / w) * w;
  return w ? row / w * w : row;
}

/* The step's call on t: its keys, fitted to t's buffers and rows. */
static struct call call_of(const struct table *t, const struct repro_step *s)
{
  struct call c = {s, repro_keys + s->first, s->n, s->pad, s->size};
  if (!t->g.other)
    return c;
  int64_t fit = keys_that_fit(t->g.stride + s->pad);
  c.n = s->n < fit ? s->n : fit;
  if (s->action == ACCUMULATE && c.size > update_size_most(t, s->dtype))
    c.size = update_size_most(t, s->dtype);
  return c;
}

/* The read-back of step s on t: its own keys as far as a buffer of t's
 * rows takes them, then the extra ones. */
static struct call probe_of(const struct table *t, const struct call *done, uint32_t *buf)
{
  const struct repro_step *s = done->s;
  struct call c = {s, repro_keys + s->first + s->n, s->probe_n, 0, 0};
  if (!t->g.other)
    return c;
  int64_t fit = keys_that_fit(t->g.stride);
  int64_t room = (fit < PROBE_MAX ? fit : PROBE_MAX) - s->extra, own = done->n < room ? done->n : room;
  own = own < 0 ? 0 : own;
  memcpy(buf, repro_keys + s->first, (size_t)own * sizeof(uint32_t));
  memcpy(buf + own, repro_keys + s->first + s->n + s->probe_n - s->extra,
         (size_t)s->extra * sizeof(uint32_t));
  c.idx = buf;
  c.n = own + s->extra;
  return c;
}

/* ---- tables, threads, the sequence ---------------------------------------------------- */

static nve_status_t (*nve_create)(const char *, nve_ext_table_factory_t *, const char **);

static struct caps caps_of(const nve_ext_table_t *t)
{
  struct caps c = {t->ops->preferred_buffer_location(t->self), t->ops->device_id(t->self),
                   t->ops->max_row_size(t->self), t->ops->key_size(t->self),
                   t->ops->invalid_key(t->self), t->ops->lookup_counter_hits(t->self),
                   t->ops->value_dtype(t->self)};
  return c;
}

/* The first capability in which a and b differ, or NULL. */
static const char *caps_differ(const struct caps *a, const struct caps *b)
{
  return a->location != b->location         ? "preferred_buffer_location"
       : a->device_id != b->device_id       ? "device_id"
       : a->max_row_size != b->max_row_size ? "max_row_size"
       : a->key_size != b->key_size         ? "key_size"
       : a->invalid_key != b->invalid_key   ? "invalid_key"
       : a->dtype != b->dtype               ? "value_dtype"
       : a->counter_hits != b->counter_hits ? "lookup_counter_hits"
                                            : NULL;
}

/* The table config's tables are as nve-conform saw them; another
 * config's are what the table declares, as nve-conform takes them. 0, or
 * -1 for a table nve-conform would count as refused. */
static int geometry_of(struct table *t, int config)
{
  struct geometry *g = &t->g;
  if (!config) {
    *g = (struct geometry){repro_row, repro_stride, REPRO_KEY_SIZE, repro_invalid_key,
                           repro_dtype, REPRO_EXACT, 0};
    return 0;
  }
  int64_t most = t->caps.max_row_size;
  g->key_size = t->caps.key_size;
  g->invalid_key = t->caps.invalid_key;
  g->dtype = t->caps.dtype;
  g->row = g->stride = most > ROW_MAX ? ROW_WIDE : most;
  g->exact = 0;
  g->other = 1;
  return (g->key_size == 4 || g->key_size == 8) && most > 0 ? 0 : -1;
}

/* Where the table wants its buffers, as nve-conform checks it: a DEVICE
 * table needs the runtime and one of its devices. 0, or -1 for a table
 * nve-conform would count as refused (or this program cannot feed). */
static int location_of(struct table *t)
{
  t->on_device = t->caps.location == NVE_BUFFER_LOCATION_DEVICE;
  t->streams[0] = t->streams[1] = NULL;
  if (!t->on_device)
    return t->caps.location == NVE_BUFFER_LOCATION_HOST && t->caps.device_id == -1 ? 0 : -1;
  if (t->caps.device_id < 0 || t->caps.device_id >= cuda.count)
    return -1;
  cuda.set(t->caps.device_id);
  for (int i = 0; i < 2 && cuda.stream_create; i++)
    if (cuda.stream_create(&t->streams[i]) != 0)
      t->streams[i] = NULL;
  return 0;
}

/* Distinct keys (by index) in the order of their low halves. */
static int by_low_half(const void *a, const void *b)
{
  int32_t x = (int32_t)repro_distinct[*(const uint32_t *)a];
  int32_t y = (int32_t)repro_distinct[*(const uint32_t *)b];
  if (x != y)
    return x < y ? -1 : 1;
  return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* For 4-byte keys: distinct keys with the same low half are one key. */
static void same_keys(struct table *t)
{
  t->same = t->order = NULL;
  if (t->g.key_size != 4 || !repro_ndistinct)
    return;
  uint32_t *order = t->order = malloc(repro_ndistinct * sizeof(uint32_t));
  t->same = malloc(repro_ndistinct * sizeof(uint32_t));
  if (!order || !t->same)
    exit(2);
  for (size_t k = 0; k < repro_ndistinct; k++)
    order[k] = (uint32_t)k;
  qsort(order, repro_ndistinct, sizeof(uint32_t), by_low_half);
  for (size_t i = 0; i < repro_ndistinct; i++)
    t->same[order[i]] = i && (int32_t)repro_distinct[order[i]] == (int32_t)repro_distinct[order[i - 1]]
                            ? t->same[order[i - 1]]
                            : order[i];
}

/* A table from the factory (made first when gone); s: the produce step,
 * whose bootstrap calls run with a decoy current (NULL: the first table). */
static int64_t next_id; /* of the next produce: 1 at each sequence's start, as in nve-conform */

static int open_table(struct table *t, int config, const struct repro_step *s)
{
  if (!factory_alive) {
    const char *err = NULL;
    int decoy = decoy_before(s, 1);
    nve_status_t st = nve_create(factory_config, &factory, &err);
    decoy_after(decoy, "factory creation");
    if (st != NVE_SUCCESS || !factory.self)
      return -1;
    factory_alive = 1;
  }
  memset(&t->t, 0, sizeof(t->t));
  const char *json = config > 0 && config <= (int)repro_nmore ? repro_more_configs[config - 1]
                                                               : table_config;
  int decoy = decoy_before(s, 2);
  nve_status_t st = factory.ops->produce(factory.self, next_id++, json, &t->t);
  decoy_after(decoy, "produce");
  if (st != NVE_SUCCESS || !t->t.self)
    return -1;
  t->caps = caps_of(&t->t);
  if (geometry_of(t, config > 0 && config <= (int)repro_nmore ? config : 0) != 0 ||
      location_of(t) != 0) {
    t->t.ops->destroy(t->t.self);
    return -1;
  }
  same_keys(t);
  size_t keys = repro_ndistinct ? repro_ndistinct : 1;
  t->state = calloc(keys, 1);
  t->rows = calloc(keys, (size_t)t->g.row);
  t->known = malloc(keys * sizeof(int64_t));
  if (!t->state || !t->rows || !t->known)
    exit(2);
  for (size_t k = 0; k < repro_ndistinct; k++)
    t->known[k] = t->g.row;
  t->alive = 1;
  t->counter_known = 0;
  return 0;
}

static void close_table(struct table *t)
{
  if (!t->alive)
    return;
  t->t.ops->destroy(t->t.self);
  free(t->same);
  free(t->order);
  free(t->state);
  free(t->rows);
  free(t->known);
  t->alive = 0;
}

/* ---- what nve-conform checks between the answers ----------------------------------- */

/* Whether the plugin's string at p has a first character: read through a
 * pipe, which reports a bad address as an error instead of a crash here. */
static int message_present(const char *p)
{
  int fd[2];
  char c = 0;
  if (!p || pipe(fd) != 0)
    return 0;
  int readable = write(fd[1], p, 1) == 1 && read(fd[0], &c, 1) == 1;
  close(fd[0]);
  close(fd[1]);
  return readable && c != 0;
}

static int by_value(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* The distinct keys that are key in t, open after a write the model does
 * not follow. */
static void forget_key(struct table *t, int64_t key)
{
  if (!t->order) {
    const int64_t *at = bsearch(&key, repro_distinct, repro_ndistinct, sizeof(int64_t), by_value);
    if (at)
      t->state[at - repro_distinct] = ANY;
    return;
  }
  for (size_t lo = 0, hi = repro_ndistinct; lo < hi;) { /* the order by low half */
    size_t mid = lo + (hi - lo) / 2;
    int32_t v = (int32_t)repro_distinct[t->order[mid]];
    if (v == (int32_t)key) {
      t->state[t->same[t->order[mid]]] = ANY;
      return;
    }
    if (v < (int32_t)key)
      lo = mid + 1;
    else
      hi = mid;
  }
}

/* The write past max_row_size that nve-conform made before the step: the
 * table may refuse it, with a message in its last_error. */
static void oversize_write(struct table *t, const struct call *c)
{
  const struct repro_step *s = c->s;
  int64_t most_row = t->caps.max_row_size;
  if (!(s->checks & OVERSIZE_FIRST) || most_row > ROW_MAX)
    return;
  int64_t size = most_row + 1, width = width_of(t->caps.dtype);
  if (s->action == ACCUMULATE) /* whole elements of the table's dtype, past the row */
    size = width > 0 ? (most_row / width + 1) * width : size;
  int64_t stride = size + 7, most = OVERSIZE_BYTES / stride > 0 ? OVERSIZE_BYTES / stride : 1;
  int64_t n = c->n < most ? c->n : most;
  int64_t *keys = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  unsigned char *raw = malloc((size_t)(n > 0 ? n : 1) * 8);
  unsigned char *rows = malloc((size_t)(n > 0 ? n : 1) * (size_t)stride);
  if (!keys || !raw || !rows)
    exit(2);
  uint64_t h = s->oversize_seed;
  for (int64_t i = 0; i < n; i++) {
    uint64_t v = mix64(h += 0x9e3779b97f4a7c15ull); /* SplitMix64, as nve-conform draws them */
    keys[i] = t->caps.key_size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
    if (keys[i] == t->caps.invalid_key)
      keys[i] ^= 1;
    memcpy(raw + i * t->caps.key_size, &keys[i], (size_t)t->caps.key_size);
  }
  const nve_ext_table_ops_t *ops = t->t.ops;
  size_t klen = (size_t)(n > 0 ? n : 0) * (size_t)t->caps.key_size;
  size_t rlen = (size_t)(n > 0 ? n : 0) * (size_t)stride;
  memset(rows, OVERSIZE_BYTE, rlen); /* every row, as nve-conform filled them */
  enter(t);
  void *dk = lend(t, raw, klen), *dr = lend(t, rows, rlen);
  int stored_ok = 1; /* else last_error may be that insert's: the message goes unjudged */
  if (s->action != INSERT) { /* its first keys stored first, as nve-conform did */
    int64_t stored = n < OVERSIZE_STORED ? n : OVERSIZE_STORED;
    stored_ok = ops->insert(t->t.self, context(), stored, dk, stride, most_row, dr) == NVE_SUCCESS;
    for (int64_t i = 0; i < stored; i++)
      forget_key(t, keys[i]);
  }
  nve_status_t st =
      s->action == UPDATE ? ops->update(t->t.self, context(), n, dk, stride, size, dr)
      : s->action == ACCUMULATE
          ? ops->update_accumulate(t->t.self, context(), n, dk, stride, size, dr, t->caps.dtype)
          : ops->insert(t->t.self, context(), n, dk, stride, size, dr);
  leave(t);
  take_back(t, raw, dk, klen);
  take_back(t, rows, dr, rlen);
  if (st != NVE_SUCCESS && stored_ok && !message_present(ops->last_error(t->t.self)))
    defect("a write of %lld keys with value_size %lld, past max_row_size (%lld), returned status "
           "%d and no message in last_error", (long long)n, (long long)size, (long long)most_row,
           (int)st);
  for (int64_t i = 0; st == NVE_SUCCESS && i < n; i++)
    forget_key(t, keys[i]);
  free(keys);
  free(raw);
  free(rows);
}

/* The capabilities read again after the step, several times: nve-conform
 * read them at other moments as well, and a value that drifts with the
 * reads shows within a few. */
static void reread_caps(struct table *t)
{
  struct caps now = t->caps;
  const char *what = NULL;
  for (int i = 0; i < 32 && !what; i++) {
    now = caps_of(&t->t);
    what = caps_differ(&now, &t->caps);
  }
  if (what)
    defect("the capabilities read again after the step: %s changed (max_row_size %lld -> %lld, "
           "key_size %lld -> %lld, invalid_key %lld -> %lld, device_id %d -> %d)", what,
           (long long)t->caps.max_row_size, (long long)now.max_row_size,
           (long long)t->caps.key_size, (long long)now.key_size, (long long)t->caps.invalid_key,
           (long long)now.invalid_key, (int)t->caps.device_id, (int)now.device_id);
}

static void table_step(struct table *t, const struct repro_step *s)
{
  struct call c = call_of(t, s);
  oversize_write(t, &c);
  switch (s->action) {
  case FIND: find_op(t, &c, s->nulls, s->resolved_every); break;
  case COUNTER: counter_op(t, s); break;
  case INSERT:
  case UPDATE: write_op(t, &c); break;
  case ACCUMULATE: accumulate_op(t, &c); break;
  default: erase_op(t, &c); break;
  }
  if (s->action != FIND && s->action != COUNTER) {
    uint32_t buf[PROBE_MAX];
    struct call probe = probe_of(t, &c, buf); /* read back what the op changed, as nve-conform did */
    find_op(t, &probe, 0, 0);
  }
  if (s->checks & REREAD_CAPS)
    reread_caps(t);
}

/* Two threads of the sequence's own, each running the steps handed to it. */
struct worker {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  const struct repro_step *job;
  int started, quit;
};
static struct worker workers[2];

static void *worker_main(void *arg)
{
  struct worker *w = arg;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (!w->job && !w->quit)
      pthread_cond_wait(&w->cond, &w->lock);
    if (w->quit)
      break;
    pthread_mutex_unlock(&w->lock);
    table_step(&tables[w->job->table], w->job);
    pthread_mutex_lock(&w->lock);
    w->job = NULL;
    pthread_cond_broadcast(&w->cond);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

static void on_thread(int which, const struct repro_step *s)
{
  struct worker *w = &workers[(which - 1) % 2];
  if (!w->started) {
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
      table_step(&tables[s->table], s);
      return;
    }
    w->started = 1;
  }
  pthread_mutex_lock(&w->lock);
  w->job = s;
  pthread_cond_broadcast(&w->cond);
  while (w->job)
    pthread_cond_wait(&w->cond, &w->lock);
  pthread_mutex_unlock(&w->lock);
}

/* The end of a sequence that is not the last, as nve-conform ended it:
 * its threads joined, its tables destroyed, then its factory. */
static void end_sequence(void)
{
  for (int i = 0; i < 2; i++) {
    struct worker *w = &workers[i];
    if (!w->started)
      continue;
    pthread_mutex_lock(&w->lock);
    w->quit = 1;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    memset(w, 0, sizeof(*w));
  }
  for (int i = 0; i < TABLES; i++)
    close_table(&tables[i]);
  if (factory_alive)
    factory.ops->destroy(factory.self);
  factory_alive = 0;
}

static void run_step(const struct repro_step *s)
{
  struct table *t = &tables[s->table];
  if (s->action == PRODUCE) {
    if (!t->alive)
      open_table(t, s->config, s);
  } else if (s->action == DESTROY) {
    close_table(t);
  } else if (s->action == DROP_FACTORY) {
    if (factory_alive) {
      int decoy = decoy_before(s, 3);
      factory.ops->destroy(factory.self);
      decoy_after(decoy, "factory destroy");
    }
    factory_alive = 0;
  } else if (t->alive) {
    if (s->thread)
      on_thread(s->thread, s);
    else
      table_step(t, s);
  }
}

int main(int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : plugin_default;
  if (REPRO_CUDA)
    cuda_load(); /* nve-conform ran with a runtime */
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return 2;
  }
  void (*set_services)(const nve_ext_nve_services_t *) =
      (void (*)(const nve_ext_nve_services_t *))dlsym(so, "nve_plugin_set_nve_services");
  nve_create = (nve_status_t(*)(const char *, nve_ext_table_factory_t *, const char **))dlsym(
      so, "nve_plugin_create_external_factory");
  if (!nve_create) {
    fprintf(stderr, "%s: no nve_plugin_create_external_factory\n", path);
    return 2;
  }
  if (set_services)
    set_services(&services);
  cuda_find(so);
  for (sequence_at = 0; sequence_at < repro_nsequences; sequence_at++) {
    const struct repro_sequence *q = &repro_sequences[sequence_at];
    sequence_seed = q->seed;
    next_id = 1;
    if (open_table(&tables[0], 0, NULL) != 0) {
      fprintf(stderr, "%s: no factory or table from the configs\n", path);
      return 2;
    }
    for (step_at = q->first; step_at < q->first + q->count; step_at++)
      run_step(&repro_steps[step_at]);
    if (sequence_at + 1 < repro_nsequences)
      end_sequence();
  }
  if (unsummed_at) {
    const struct repro_sequence *last = &repro_sequences[repro_nsequences - 1];
    printf("%zu steps agreed, but %sstep %zu's update_accumulate succeeded with sums this program "
           "cannot compute (dtype %d updates into a dtype %d table), so its keys went unchecked: "
           "inconclusive\n", repro_nsteps, repro_nsequences > 1 ? "the last sequence's " : "",
           unsummed_at - last->first, repro_steps[unsummed_at - 1].dtype, (int)unsummed_dtype);
    return 3;
  }
  if (decoys_missed && REPRO_NEEDS_DECOYS) {
    printf("%zu steps agreed, but nve-conform made their factory and table calls with a decoy "
           "device current, and this CUDA runtime has fewer than two devices: inconclusive\n",
           repro_nsteps);
    return 3;
  }
  if (!REPRO_STANDALONE) {
    printf("%zu steps agreed, but nve-conform could not replay them in a process of their own "
           "(its fresh replays hung or crashed), so they may fail only after tables it made "
           "before them: inconclusive\n", repro_nsteps);
    return 3;
  }
  printf("%zu steps agreed: the defect is gone\n", repro_nsteps);
  return 0;
}
