/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A vendor's NVE table plugin in one file, as examples/cmake-vendor builds
 * it: an open-addressing hash map (linear probing) of 4- or 8-byte keys to
 * rows of up to max_row_size bytes of float32, in host memory. It is the
 * reference hashmap (plugins/hashmap) cut down to what a plugin needs, and
 * it keeps the whole contract. Table config: {"max_row_size": B,
 * "key_size": 4|8}; the factory config must be a JSON object.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plugin/nve_external_plugin.h>

NVE_DEFINE_EXTERNAL_PLUGIN("cmake-vendor example table", "nve-conform authors")

/* ---- errors: one message per thread, as the contract asks ------------------ */

static _Thread_local char error_text[256];

static nve_status_t fail(nve_status_t s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static nve_status_t fail(nve_status_t s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error_text, sizeof(error_text), fmt, ap);
  va_end(ap);
  return s;
}

static const char *last_error(void *self)
{
  (void)self;
  return error_text;
}

/* ---- config: a flat JSON object of integer members ------------------------- */

static const char *skip_ws(const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

/* Reads the members names[i] into values[i]; other integer members are
 * ignored. 0, or -1 with the reason in error_text. */
static int read_config(const char *json, const char *const *names, long long *values)
{
  const char *p = skip_ws(json ? json : "{}");
  if (*p++ != '{')
    return fail(NVE_ERROR_INVALID_ARGUMENT, "config: not a JSON object"), -1;
  p = skip_ws(p);
  if (*p == '}')
    return *skip_ws(p + 1) ? (fail(NVE_ERROR_INVALID_ARGUMENT, "config: text after '}'"), -1) : 0;
  for (;;) {
    char name[32];
    size_t n = 0;
    if (*p++ != '"')
      return fail(NVE_ERROR_INVALID_ARGUMENT, "config: a member name must be a string"), -1;
    while (*p && *p != '"' && n + 1 < sizeof(name))
      name[n++] = *p++;
    name[n] = '\0';
    if (*p++ != '"')
      return fail(NVE_ERROR_INVALID_ARGUMENT, "config: member name too long or unterminated"), -1;
    p = skip_ws(p);
    if (*p++ != ':')
      return fail(NVE_ERROR_INVALID_ARGUMENT, "config: ':' expected after \"%s\"", name), -1;
    char *end;
    long long v = strtoll(skip_ws(p), &end, 10);
    if (end == skip_ws(p))
      return fail(NVE_ERROR_INVALID_ARGUMENT, "config: \"%s\" must be an integer", name), -1;
    for (size_t i = 0; names[i]; i++)
      if (strcmp(name, names[i]) == 0)
        values[i] = v;
    p = skip_ws(end);
    if (*p == '}')
      return *skip_ws(p + 1) ? (fail(NVE_ERROR_INVALID_ARGUMENT, "config: text after '}'"), -1) : 0;
    if (*p++ != ',')
      return fail(NVE_ERROR_INVALID_ARGUMENT, "config: ',' or '}' expected after \"%s\"", name), -1;
    p = skip_ws(p);
  }
}

/* ---- the table -------------------------------------------------------------- */

enum { SLOT_EMPTY, SLOT_USED, SLOT_DELETED };

typedef struct table {
  int64_t key_size, row_size;
  size_t capacity, used, deleted; /* capacity: a power of two */
  unsigned char *state, *rows;
  int64_t *keys, *sizes;
  _Atomic int64_t hits;
} table;

static uint64_t mix(uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  return k ^ (k >> 33);
}

static int64_t key_at(const table *t, const void *keys, int64_t i)
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

static unsigned char *row_of(const table *t, size_t slot)
{
  return t->rows + slot * (size_t)t->row_size;
}

/* The slot holding key, or -1. */
static ptrdiff_t lookup(const table *t, int64_t key)
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

static void free_slots(table *t)
{
  free(t->state);
  free(t->keys);
  free(t->sizes);
  free(t->rows);
}

static int alloc_slots(table *t, size_t capacity)
{
  t->state = calloc(capacity, 1);
  t->keys = calloc(capacity, sizeof(int64_t));
  t->sizes = calloc(capacity, sizeof(int64_t));
  t->rows = calloc(capacity, (size_t)t->row_size);
  if (!t->state || !t->keys || !t->sizes || !t->rows) {
    free_slots(t);
    return -1;
  }
  t->capacity = capacity;
  t->used = t->deleted = 0;
  return 0;
}

/* Rehashes into twice the slots (or as many, to drop deleted ones) when
 * 70% are taken; the table is unchanged when memory runs out. */
static nve_status_t make_room(table *t)
{
  if ((t->used + t->deleted + 1) * 10 < t->capacity * 7)
    return NVE_SUCCESS;
  table old = *t;
  size_t capacity = t->used * 2 + 2 > t->capacity ? t->capacity * 2 : t->capacity;
  if (alloc_slots(t, capacity) != 0) {
    *t = old;
    return fail(NVE_ERROR_OUT_OF_MEMORY, "out of memory growing to %zu slots", capacity);
  }
  for (size_t i = 0; i < old.capacity; i++) {
    if (old.state[i] != SLOT_USED)
      continue;
    size_t j = mix((uint64_t)old.keys[i]) & (t->capacity - 1);
    while (t->state[j] == SLOT_USED)
      j = (j + 1) & (t->capacity - 1);
    t->state[j] = SLOT_USED;
    t->keys[j] = old.keys[i];
    t->sizes[j] = old.sizes[i];
    memcpy(row_of(t, j), row_of(&old, i), (size_t)t->row_size);
    t->used++;
  }
  free_slots(&old);
  return NVE_SUCCESS;
}

static void table_destroy(void *self)
{
  free_slots(self);
  free(self);
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

static int64_t table_max_row_size(void *self) { return ((table *)self)->row_size; }
static int64_t table_key_size(void *self) { return ((table *)self)->key_size; }

static int64_t table_invalid_key(void *self)
{
  (void)self;
  return -1;
}

static nve_data_type_t table_dtype(void *self)
{
  (void)self;
  return NVE_DTYPE_FLOAT32;
}

static int64_t table_counter_hits(void *self)
{
  (void)self;
  return 1; /* the lookup counter counts hits */
}

static nve_status_t table_reset_counter(void *self, nve_ext_context_t ctx)
{
  (void)ctx;
  atomic_store(&((table *)self)->hits, 0);
  return NVE_SUCCESS;
}

static nve_status_t table_get_counter(void *self, nve_ext_context_t ctx, int64_t *counter)
{
  (void)ctx;
  if (!counter)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "get_lookup_counter: counter is NULL");
  *counter = atomic_load(&((table *)self)->hits);
  return NVE_SUCCESS;
}

static nve_status_t table_find(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                               uint64_t *hit_mask, int64_t stride, void *values, int64_t *sizes)
{
  (void)ctx;
  table *t = self;
  if (n < 0)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "find: n is negative (%lld)", (long long)n);
  if (n == 0)
    return NVE_SUCCESS;
  if (!keys || (values && stride < 0))
    return fail(NVE_ERROR_INVALID_ARGUMENT, "find: NULL keys or negative stride");
  int64_t hits = 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t bit = 1ull << (i % 64);
    if (hit_mask && (hit_mask[i / 64] & bit))
      continue; /* resolved by the caller already */
    ptrdiff_t slot = lookup(t, key_at(t, keys, i));
    if (slot < 0)
      continue;
    int64_t size = t->sizes[slot] < stride || !values ? t->sizes[slot] : stride;
    if (values)
      memcpy((unsigned char *)values + i * stride, row_of(t, (size_t)slot), (size_t)size);
    if (sizes)
      sizes[i] = size;
    if (hit_mask)
      hit_mask[i / 64] |= bit;
    hits++;
  }
  atomic_fetch_add(&t->hits, hits);
  return NVE_SUCCESS;
}

static nve_status_t check_rows(const table *t, const char *op, int64_t n, const void *keys,
                               int64_t stride, int64_t size, const void *values)
{
  if (n < 0)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "%s: n is negative (%lld)", op, (long long)n);
  if (n > 0 && (!keys || !values))
    return fail(NVE_ERROR_INVALID_ARGUMENT, "%s: NULL keys or values", op);
  if (size < 0 || size > t->row_size)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "%s: value_size %lld is outside 0..%lld", op,
                (long long)size, (long long)t->row_size);
  if (n > 1 && stride < size)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "%s: value_stride %lld < value_size %lld", op,
                (long long)stride, (long long)size);
  return NVE_SUCCESS;
}

static void store(table *t, size_t slot, const void *src, int64_t size)
{
  memcpy(row_of(t, slot), src, (size_t)size);
  memset(row_of(t, slot) + size, 0, (size_t)(t->row_size - size));
  t->sizes[slot] = size;
}

static nve_status_t table_insert(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                                 int64_t stride, int64_t size, const void *values)
{
  (void)ctx;
  table *t = self;
  nve_status_t s = check_rows(t, "insert", n, keys, stride, size, values);
  for (int64_t i = 0; s == NVE_SUCCESS && i < n; i++) {
    int64_t key = key_at(t, keys, i);
    ptrdiff_t slot = lookup(t, key);
    if (slot < 0 && (s = make_room(t)) == NVE_SUCCESS) {
      size_t j = mix((uint64_t)key) & (t->capacity - 1);
      while (t->state[j] == SLOT_USED)
        j = (j + 1) & (t->capacity - 1);
      if (t->state[j] == SLOT_DELETED)
        t->deleted--;
      t->state[j] = SLOT_USED;
      t->keys[j] = key;
      t->used++;
      slot = (ptrdiff_t)j;
    }
    if (s == NVE_SUCCESS)
      store(t, (size_t)slot, (const char *)values + i * stride, size);
  }
  return s;
}

static nve_status_t table_update(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                                 int64_t stride, int64_t size, const void *values)
{
  (void)ctx;
  table *t = self;
  nve_status_t s = check_rows(t, "update", n, keys, stride, size, values);
  for (int64_t i = 0; s == NVE_SUCCESS && i < n; i++) {
    ptrdiff_t slot = lookup(t, key_at(t, keys, i));
    if (slot >= 0)
      store(t, (size_t)slot, (const char *)values + i * stride, size);
  }
  return s;
}

static nve_status_t table_accumulate(void *self, nve_ext_context_t ctx, int64_t n,
                                     const void *keys, int64_t stride, int64_t size,
                                     const void *updates, nve_data_type_t dtype)
{
  (void)ctx;
  table *t = self;
  if (dtype != NVE_DTYPE_FLOAT32)
    return fail(NVE_ERROR_NOT_IMPLEMENTED, "update_accumulate: only float32 (not dtype %d)",
                (int)dtype);
  nve_status_t s = check_rows(t, "update_accumulate", n, keys, stride, size, updates);
  if (s == NVE_SUCCESS && size % (int64_t)sizeof(float) != 0)
    s = fail(NVE_ERROR_INVALID_ARGUMENT, "update_accumulate: size %lld is not a multiple of 4",
             (long long)size);
  for (int64_t i = 0; s == NVE_SUCCESS && i < n; i++) {
    ptrdiff_t slot = lookup(t, key_at(t, keys, i));
    if (slot < 0)
      continue;
    unsigned char *row = row_of(t, (size_t)slot);
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
  return s;
}

static nve_status_t table_erase(void *self, nve_ext_context_t ctx, int64_t n, const void *keys)
{
  (void)ctx;
  table *t = self;
  if (n < 0 || (n > 0 && !keys))
    return fail(NVE_ERROR_INVALID_ARGUMENT, "erase: negative n or NULL keys");
  for (int64_t i = 0; i < n; i++) {
    ptrdiff_t slot = lookup(t, key_at(t, keys, i));
    if (slot < 0) /* not stored: nothing to erase */
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
  table *t = self;
  memset(t->state, SLOT_EMPTY, t->capacity);
  t->used = t->deleted = 0;
  return NVE_SUCCESS;
}

static const nve_ext_table_ops_t table_ops = {
    sizeof(nve_ext_table_ops_t), table_destroy,       table_location,    table_device_id,
    table_max_row_size,          table_key_size,      table_invalid_key, table_dtype,
    table_counter_hits,          table_reset_counter, table_get_counter, table_find,
    table_insert,                table_update,        table_accumulate,  table_erase,
    table_clear,                 last_error,
};

/* ---- the factory -------------------------------------------------------------- */

static void factory_destroy(void *self) { (void)self; }

static nve_status_t factory_produce(void *self, int64_t table_id, const char *json_config,
                                    nve_ext_table_t *out)
{
  (void)self;
  (void)table_id;
  if (!out)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "produce: out_table is NULL");
  memset(out, 0, sizeof(*out));
  static const char *const names[] = {"max_row_size", "key_size", NULL};
  long long v[] = {128, 8};
  if (read_config(json_config, names, v) != 0)
    return NVE_ERROR_INVALID_ARGUMENT;
  if (v[0] <= 0 || v[0] > (1 << 20) || v[0] % 4 != 0)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "max_row_size must be a multiple of 4 in 4..1 MiB");
  if (v[1] != 4 && v[1] != 8)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "key_size must be 4 or 8");
  table *t = calloc(1, sizeof(*t));
  if (!t)
    return fail(NVE_ERROR_OUT_OF_MEMORY, "produce: out of memory");
  t->row_size = v[0];
  t->key_size = v[1];
  if (alloc_slots(t, 64) != 0) {
    free(t);
    return fail(NVE_ERROR_OUT_OF_MEMORY, "produce: out of memory");
  }
  out->self = t;
  out->ops = &table_ops;
  return NVE_SUCCESS;
}

static const nve_ext_table_factory_ops_t factory_ops = {
    sizeof(nve_ext_table_factory_ops_t), factory_destroy, factory_produce, last_error};

/* The factory keeps no state: one static object serves every creation. */
static char factory_self;

NVE_C_API nve_status_t nve_plugin_create_external_factory(const char *json_config,
                                                          nve_ext_table_factory_t *out_factory,
                                                          const char **out_error)
{
  if (out_factory)
    memset(out_factory, 0, sizeof(*out_factory));
  if (out_error)
    *out_error = NULL;
  static const char *const none[] = {NULL};
  nve_status_t s = NVE_SUCCESS;
  if (!out_factory || !out_error)
    s = fail(NVE_ERROR_INVALID_ARGUMENT, "create: out_factory or out_error is NULL");
  else if (read_config(json_config, none, NULL) != 0)
    s = NVE_ERROR_INVALID_ARGUMENT;
  if (s != NVE_SUCCESS) {
    if (out_error)
      *out_error = error_text;
    return s;
  }
  out_factory->self = &factory_self;
  out_factory->ops = &factory_ops;
  return NVE_SUCCESS;
}
