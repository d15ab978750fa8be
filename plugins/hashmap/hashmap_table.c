/* SPDX-License-Identifier: Apache-2.0 */
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "json_config.h"

/* Keys per execute_n task in find: a multiple of 64, so that every hit-mask
 * word belongs to exactly one task. */
#define FIND_CHUNK 1024

enum { SLOT_EMPTY = 0, SLOT_USED = 1, SLOT_DELETED = 2 };

typedef struct hm_table {
  int64_t key_size;
  int64_t row_size; /* bytes */
  size_t capacity;  /* a power of two */
  size_t used, deleted;
  unsigned char *state;
  int64_t *keys;
  int64_t *sizes; /* bytes stored per slot */
  unsigned char *rows;
  _Atomic int64_t hits;
} hm_table;

static _Thread_local char error_text[512];

nve_status_t hm_set_error(nve_status_t status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error_text, sizeof(error_text), fmt, ap);
  va_end(ap);
  return status;
}

const char *hm_last_error(void) { return error_text; }

static uint64_t mix(uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  return k ^ (k >> 33);
}

static int64_t key_at(const hm_table *t, const void *keys, int64_t i)
{
  if (t->key_size == 4) {
    int32_t k;
    memcpy(&k, (const char *)keys + 4 * i, 4);
    return k;
  }
  int64_t k;
  memcpy(&k, (const char *)keys + 8 * i, 8);
  return k;
}

/* The slot holding key, or -1. */
static ptrdiff_t lookup(const hm_table *t, int64_t key)
{
  size_t mask = t->capacity - 1;
  for (size_t i = mix((uint64_t)key) & mask, probes = 0; probes < t->capacity;
       i = (i + 1) & mask, probes++) {
    if (t->state[i] == SLOT_EMPTY)
      return -1;
    if (t->state[i] == SLOT_USED && t->keys[i] == key)
      return (ptrdiff_t)i;
  }
  return -1;
}

static int alloc_slots(hm_table *t, size_t capacity)
{
  t->state = calloc(capacity, 1);
  t->keys = calloc(capacity, sizeof(int64_t));
  t->sizes = calloc(capacity, sizeof(int64_t));
  t->rows = calloc(capacity, (size_t)t->row_size);
  if (!t->state || !t->keys || !t->sizes || !t->rows) {
    free(t->state);
    free(t->keys);
    free(t->sizes);
    free(t->rows);
    return -1;
  }
  t->capacity = capacity;
  t->used = t->deleted = 0;
  return 0;
}

/* Doubles (or just cleans) the table when it is 70% occupied. */
static nve_status_t make_room(hm_table *t)
{
  if ((t->used + t->deleted + 1) * 10 < t->capacity * 7)
    return NVE_SUCCESS;
  hm_table old = *t;
  size_t capacity = t->used * 2 + 2 > t->capacity ? t->capacity * 2 : t->capacity;
  if (alloc_slots(t, capacity) != 0) {
    *t = old;
    return hm_set_error(NVE_ERROR_OUT_OF_MEMORY, "hashmap: out of memory growing to %zu slots",
                        capacity);
  }
  for (size_t i = 0; i < old.capacity; i++) {
    if (old.state[i] != SLOT_USED)
      continue;
    size_t mask = t->capacity - 1, j = mix((uint64_t)old.keys[i]) & mask;
    while (t->state[j] == SLOT_USED)
      j = (j + 1) & mask;
    t->state[j] = SLOT_USED;
    t->keys[j] = old.keys[i];
    t->sizes[j] = old.sizes[i];
    memcpy(t->rows + j * (size_t)t->row_size, old.rows + i * (size_t)old.row_size,
           (size_t)t->row_size);
    t->used++;
  }
  free(old.state);
  free(old.keys);
  free(old.sizes);
  free(old.rows);
  return NVE_SUCCESS;
}

/* The slot for key, claiming a free one if absent; -1 when out of memory. */
static ptrdiff_t upsert_slot(hm_table *t, int64_t key)
{
  ptrdiff_t found = lookup(t, key);
  if (found >= 0)
    return found;
  if (make_room(t) != NVE_SUCCESS)
    return -1;
  size_t mask = t->capacity - 1, i = mix((uint64_t)key) & mask;
  while (t->state[i] == SLOT_USED)
    i = (i + 1) & mask;
  if (t->state[i] == SLOT_DELETED)
    t->deleted--;
  t->state[i] = SLOT_USED;
  t->keys[i] = key;
  t->sizes[i] = 0;
  memset(t->rows + i * (size_t)t->row_size, 0, (size_t)t->row_size);
  t->used++;
  return (ptrdiff_t)i;
}

/* ---- capabilities ------------------------------------------------------- */

static void table_destroy(void *self)
{
  hm_table *t = self;
  free(t->state);
  free(t->keys);
  free(t->sizes);
  free(t->rows);
  free(t);
}

static nve_buffer_location_t table_location(void *self)
{
  (void)self;
  return NVE_BUFFER_LOCATION_HOST;
}

static int32_t table_device_id(void *self)
{
  (void)self;
  return -1;
}

static int64_t table_max_row_size(void *self) { return ((hm_table *)self)->row_size; }
static int64_t table_key_size(void *self) { return ((hm_table *)self)->key_size; }

static int64_t table_invalid_key(void *self)
{
  (void)self;
  return -1; /* reported for hosts; the map stores every key value anyway */
}

static nve_data_type_t table_dtype(void *self)
{
  (void)self;
  return NVE_DTYPE_FLOAT32;
}

static int64_t table_counter_hits(void *self)
{
  (void)self;
  return 1;
}

static nve_status_t table_reset_counter(void *self, nve_ext_context_t ctx)
{
  (void)ctx;
  atomic_store(&((hm_table *)self)->hits, 0);
  return NVE_SUCCESS;
}

static nve_status_t table_get_counter(void *self, nve_ext_context_t ctx, int64_t *counter)
{
  (void)ctx;
  if (!counter)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "get_lookup_counter: counter is NULL");
  *counter = atomic_load(&((hm_table *)self)->hits);
  return NVE_SUCCESS;
}

/* ---- find ----------------------------------------------------------------- */

typedef struct find_job {
  hm_table *t;
  int64_t n;
  const void *keys;
  uint64_t *hit_mask;
  int64_t stride;
  unsigned char *values;
  int64_t *sizes;
} find_job;

static nve_status_t find_range(find_job *j, int64_t begin, int64_t end)
{
  int64_t hits = 0;
  for (int64_t i = begin; i < end; i++) {
    uint64_t bit = 1ull << (i % 64);
    if (j->hit_mask && (j->hit_mask[i / 64] & bit))
      continue;
    ptrdiff_t slot = lookup(j->t, key_at(j->t, j->keys, i));
    if (slot < 0)
      continue;
    int64_t size = j->t->sizes[slot];
    if (j->values) {
      if (size > j->stride)
        size = j->stride;
      memcpy(j->values + i * j->stride, j->t->rows + (size_t)slot * (size_t)j->t->row_size,
             (size_t)size);
    }
    if (j->sizes)
      j->sizes[i] = size;
    if (j->hit_mask)
      j->hit_mask[i / 64] |= bit;
    hits++;
  }
  atomic_fetch_add(&j->t->hits, hits);
  return NVE_SUCCESS;
}

static nve_status_t find_task(void *user, int64_t index)
{
  find_job *j = user;
  int64_t begin = index * FIND_CHUNK;
  int64_t end = begin + FIND_CHUNK < j->n ? begin + FIND_CHUNK : j->n;
  return find_range(j, begin, end);
}

static nve_status_t table_find(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                               uint64_t *hit_mask, int64_t value_stride, void *values,
                               int64_t *value_sizes)
{
  hm_table *t = self;
  if (n < 0)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "find: n is negative (%lld)", (long long)n);
  if (n == 0)
    return NVE_SUCCESS;
  if (!keys || (values && value_stride < 0))
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "find: NULL keys or negative stride");
  find_job j = {t, n, keys, hit_mask, value_stride, values, value_sizes};
  const nve_ext_nve_services_t *svc = nve_plugin_nve_services();
  if (n > FIND_CHUNK && NVE_ABI_HAS_FIELD(svc, nve_ext_nve_services_t, execute_n) &&
      svc->execute_n) {
    nve_status_t s = svc->execute_n(ctx, (n + FIND_CHUNK - 1) / FIND_CHUNK, find_task, &j);
    if (s != NVE_SUCCESS)
      return hm_set_error(s, "find: execute_n failed: %s",
                          svc->last_error ? svc->last_error(ctx) : "no message");
    return NVE_SUCCESS;
  }
  return find_range(&j, 0, n);
}

/* ---- modifications ---------------------------------------------------------- */

static nve_status_t check_rows(hm_table *t, const char *op, int64_t n, const void *keys,
                               int64_t stride, int64_t size, const void *values)
{
  if (n < 0)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "%s: n is negative (%lld)", op, (long long)n);
  if (n > 0 && (!keys || !values))
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "%s: NULL keys or values", op);
  if (size < 0 || size > t->row_size)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT,
                        "%s: value_size %lld is outside 0..max_row_size %lld", op,
                        (long long)size, (long long)t->row_size);
  if (n > 1 && stride < size)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "%s: value_stride %lld < value_size %lld", op,
                        (long long)stride, (long long)size);
  return NVE_SUCCESS;
}

static void store(hm_table *t, ptrdiff_t slot, const void *src, int64_t size)
{
  unsigned char *row = t->rows + (size_t)slot * (size_t)t->row_size;
  memcpy(row, src, (size_t)size);
  memset(row + size, 0, (size_t)(t->row_size - size));
  t->sizes[slot] = size;
}

static nve_status_t table_insert(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                                 int64_t stride, int64_t size, const void *values)
{
  (void)ctx;
  hm_table *t = self;
  nve_status_t s = check_rows(t, "insert", n, keys, stride, size, values);
  if (s != NVE_SUCCESS)
    return s;
  for (int64_t i = 0; i < n; i++) {
    ptrdiff_t slot = upsert_slot(t, key_at(t, keys, i));
    if (slot < 0)
      return NVE_ERROR_OUT_OF_MEMORY; /* make_room set the message */
    store(t, slot, (const char *)values + i * stride, size);
  }
  return NVE_SUCCESS;
}

static nve_status_t table_update(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                                 int64_t stride, int64_t size, const void *values)
{
  (void)ctx;
  hm_table *t = self;
  nve_status_t s = check_rows(t, "update", n, keys, stride, size, values);
  if (s != NVE_SUCCESS)
    return s;
  for (int64_t i = 0; i < n; i++) {
    ptrdiff_t slot = lookup(t, key_at(t, keys, i));
    if (slot >= 0)
      store(t, slot, (const char *)values + i * stride, size);
  }
  return NVE_SUCCESS;
}

static nve_status_t table_accumulate(void *self, nve_ext_context_t ctx, int64_t n,
                                     const void *keys, int64_t stride, int64_t size,
                                     const void *updates, nve_data_type_t dtype)
{
  (void)ctx;
  hm_table *t = self;
  if (dtype != NVE_DTYPE_FLOAT32)
    return hm_set_error(NVE_ERROR_NOT_IMPLEMENTED,
                        "update_accumulate: dtype %d is not supported (float32 only)", (int)dtype);
  nve_status_t s = check_rows(t, "update_accumulate", n, keys, stride, size, updates);
  if (s != NVE_SUCCESS)
    return s;
  if (size % (int64_t)sizeof(float) != 0)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT,
                        "update_accumulate: update_size %lld is not a multiple of 4",
                        (long long)size);
  for (int64_t i = 0; i < n; i++) {
    ptrdiff_t slot = lookup(t, key_at(t, keys, i));
    if (slot < 0)
      continue;
    unsigned char *row = t->rows + (size_t)slot * (size_t)t->row_size;
    const unsigned char *src = (const unsigned char *)updates + i * stride;
    for (int64_t e = 0; e < size; e += (int64_t)sizeof(float)) {
      float a, b;
      memcpy(&a, row + e, sizeof(a));
      memcpy(&b, src + e, sizeof(b));
      a += b;
      memcpy(row + e, &a, sizeof(a));
    }
    if (t->sizes[slot] < size)
      t->sizes[slot] = size;
  }
  return NVE_SUCCESS;
}

static nve_status_t table_erase(void *self, nve_ext_context_t ctx, int64_t n, const void *keys)
{
  (void)ctx;
  hm_table *t = self;
  if (n < 0 || (n > 0 && !keys))
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "erase: negative n or NULL keys");
  for (int64_t i = 0; i < n; i++) {
    ptrdiff_t slot = lookup(t, key_at(t, keys, i));
    if (slot < 0)
      continue;
    t->state[slot] = SLOT_DELETED;
    t->used--;
    t->deleted++;
  }
  return NVE_SUCCESS;
}

static nve_status_t table_clear(void *self, nve_ext_context_t ctx)
{
  (void)ctx;
  hm_table *t = self;
  memset(t->state, SLOT_EMPTY, t->capacity);
  t->used = t->deleted = 0;
  return NVE_SUCCESS;
}

static const char *table_last_error(void *self)
{
  (void)self;
  return hm_last_error();
}

static const nve_ext_table_ops_t table_ops = {
    sizeof(nve_ext_table_ops_t), table_destroy,      table_location,     table_device_id,
    table_max_row_size,          table_key_size,     table_invalid_key,  table_dtype,
    table_counter_hits,          table_reset_counter, table_get_counter, table_find,
    table_insert,                table_update,       table_accumulate,   table_erase,
    table_clear,                 table_last_error,
};

nve_status_t hm_table_create(const char *json_config, nve_ext_table_t *out)
{
  static const char *const keys[] = {"max_row_size", "key_size", "initial_capacity", NULL};
  int64_t values[] = {128, 8, 64};
  char err[256];
  if (hm_json_read_ints(json_config, keys, values, err, sizeof(err)) != 0)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "table config: %s", err);
  if (values[0] <= 0 || values[0] > (1 << 20) || values[0] % 4 != 0)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT,
                        "table config: max_row_size must be a positive multiple of 4 up to 1 MiB");
  if (values[1] != 4 && values[1] != 8)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "table config: key_size must be 4 or 8");
  size_t capacity = 16;
  while (capacity < (size_t)values[2] && capacity < ((size_t)1 << 30))
    capacity *= 2;
  hm_table *t = calloc(1, sizeof(*t));
  if (!t)
    return hm_set_error(NVE_ERROR_OUT_OF_MEMORY, "produce: out of memory");
  t->row_size = values[0];
  t->key_size = values[1];
  if (alloc_slots(t, capacity) != 0) {
    free(t);
    return hm_set_error(NVE_ERROR_OUT_OF_MEMORY, "produce: out of memory for %zu slots",
                        capacity);
  }
  out->self = t;
  out->ops = &table_ops;
  return NVE_SUCCESS;
}
