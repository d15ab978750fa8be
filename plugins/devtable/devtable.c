/* SPDX-License-Identifier: Apache-2.0 */
/* nve-conform's reference DEVICE table, in C against the CUDA runtime API
 * (no kernels): the rows live in device memory on the device its table
 * config names ({"device": N, "max_row_size": B, "key_size": 4|8,
 * "capacity": C}); a host-side index maps keys to row slots. Every byte of
 * row data moves with cudaMemcpyAsync on the context's streams (lookup for
 * find, modify for the rest); the host only reads the keys, masks and
 * sizes it copied to itself. Creation, produce, factory destroy and the
 * first device_id query select what they need and restore the caller's
 * device; every other callback relies on the host having made the table's
 * device current. The lookup counter counts misses, as GPU tables do. */
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plugin/nve_external_plugin.h>

NVE_DEFINE_EXTERNAL_PLUGIN("nve-conform reference device table", "nve-conform authors")

static _Thread_local char error_text[512];

static nve_status_t fail(nve_status_t s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static nve_status_t fail(nve_status_t s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error_text, sizeof(error_text), fmt, ap);
  va_end(ap);
  return s;
}

static nve_status_t cuda_fail(cudaError_t e, const char *what)
{
  return fail(NVE_ERROR_CUDA, "%s: %s", what, cudaGetErrorString(e));
}

typedef struct dt_table {
  int device;
  int64_t key_size, row_size;
  size_t capacity, used;
  int64_t *keys; /* host index: slot -> key */
  int64_t *sizes; /* bytes stored; 0 = free slot */
  unsigned char *rows; /* device memory: capacity * row_size */
  _Atomic int64_t misses;
} dt_table;

/* ---- helpers ----------------------------------------------------------------------- */

static size_t hash(int64_t key) { return (size_t)((uint64_t)key * 0x9e3779b97f4a7c15ull >> 17); }

/* The slot holding key, or the free slot where it would go (*found 0),
 * or -1 when the table is full. */
static ptrdiff_t slot_of(const dt_table *t, int64_t key, int *found)
{
  for (size_t i = hash(key) % t->capacity, n = 0; n < t->capacity; i = (i + 1) % t->capacity, n++) {
    if (t->sizes[i] == 0) {
      *found = 0;
      return (ptrdiff_t)i;
    }
    if (t->keys[i] == key) {
      *found = 1;
      return (ptrdiff_t)i;
    }
  }
  *found = 0;
  return -1;
}

static int64_t key_at(const dt_table *t, const unsigned char *keys, int64_t i)
{
  if (t->key_size == 4) {
    int32_t k;
    memcpy(&k, keys + 4 * i, 4);
    return k;
  }
  int64_t k;
  memcpy(&k, keys + 8 * i, 8);
  return k;
}

static nve_status_t stream_of(nve_ext_context_t ctx, int modify, cudaStream_t *out)
{
  const nve_ext_nve_services_t *svc = nve_plugin_nve_services();
  *out = 0;
  /* An older host's table may end before the stream services: then the
   * default stream, as with no host services at all. */
  if (!svc || !(modify ? NVE_ABI_HAS_FIELD(svc, nve_ext_nve_services_t, get_modify_stream)
                       : NVE_ABI_HAS_FIELD(svc, nve_ext_nve_services_t, get_lookup_stream)))
    return NVE_SUCCESS;
  nve_status_t s = modify ? svc->get_modify_stream(ctx, (void **)out)
                          : svc->get_lookup_stream(ctx, (void **)out);
  return s == NVE_SUCCESS ? s : fail(s, "the host gave no stream");
}

/* Copies n keys from the device to a new host buffer. */
static nve_status_t keys_to_host(const dt_table *t, const void *keys, int64_t n,
                                 cudaStream_t stream, unsigned char **out)
{
  *out = malloc((size_t)(n * t->key_size) + 1);
  if (!*out)
    return fail(NVE_ERROR_OUT_OF_MEMORY, "out of memory for %lld keys", (long long)n);
  cudaError_t e = cudaMemcpyAsync(*out, keys, (size_t)(n * t->key_size), cudaMemcpyDeviceToHost,
                                  stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    free(*out);
    *out = NULL;
    return cuda_fail(e, "copying keys");
  }
  return NVE_SUCCESS;
}

/* The start of a modifying op: its stream (the context's modify stream)
 * and its keys on the host. */
static nve_status_t begin_modify(const dt_table *t, nve_ext_context_t ctx, const void *keys,
                                 int64_t n, cudaStream_t *stream, unsigned char **hkeys)
{
  *hkeys = NULL;
  nve_status_t s = stream_of(ctx, 1, stream);
  return s == NVE_SUCCESS ? keys_to_host(t, keys, n, *stream, hkeys) : s;
}

/* ---- capabilities -------------------------------------------------------------------- */

static void t_destroy(void *self)
{
  dt_table *t = self;
  cudaFree(t->rows); /* the host made the table's device current */
  free(t->keys);
  free(t->sizes);
  free(t);
}

static nve_buffer_location_t t_location(void *self) { (void)self; return NVE_BUFFER_LOCATION_DEVICE; }
static int32_t t_device_id(void *self) { return ((dt_table *)self)->device; }
static int64_t t_max_row_size(void *self) { return ((dt_table *)self)->row_size; }
static int64_t t_key_size(void *self) { return ((dt_table *)self)->key_size; }
static int64_t t_invalid_key(void *self) { (void)self; return -1; }
static nve_data_type_t t_dtype(void *self) { (void)self; return NVE_DTYPE_FLOAT32; }
static int64_t t_counter_hits(void *self) { (void)self; return 0; }

static nve_status_t t_reset(void *self, nve_ext_context_t ctx)
{
  (void)ctx;
  atomic_store(&((dt_table *)self)->misses, 0);
  return NVE_SUCCESS;
}

static nve_status_t t_counter(void *self, nve_ext_context_t ctx, int64_t *counter)
{
  (void)ctx;
  if (!counter)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "counter is NULL");
  *counter = atomic_load(&((dt_table *)self)->misses);
  return NVE_SUCCESS;
}

/* ---- find ------------------------------------------------------------------------------ */

static nve_status_t t_find(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                           uint64_t *mask, int64_t stride, void *values, int64_t *sizes)
{
  dt_table *t = self;
  if (n < 0 || (n > 0 && !keys) || (values && stride < 0))
    return fail(NVE_ERROR_INVALID_ARGUMENT, "find: bad arguments");
  if (n == 0)
    return NVE_SUCCESS;
  cudaStream_t stream;
  unsigned char *hkeys = NULL;
  size_t words = (size_t)(n + 63) / 64;
  uint64_t *hmask = calloc(words, 8);
  int64_t *hsizes = sizes ? malloc((size_t)n * 8) : NULL;
  nve_status_t s = stream_of(ctx, 0, &stream);
  if (s == NVE_SUCCESS && (!hmask || (sizes && !hsizes)))
    s = fail(NVE_ERROR_OUT_OF_MEMORY, "find: out of memory");
  if (s == NVE_SUCCESS)
    s = keys_to_host(t, keys, n, stream, &hkeys);
  cudaError_t e = cudaSuccess;
  if (s == NVE_SUCCESS && mask)
    e = cudaMemcpyAsync(hmask, mask, words * 8, cudaMemcpyDeviceToHost, stream);
  if (s == NVE_SUCCESS && sizes && e == cudaSuccess)
    e = cudaMemcpyAsync(hsizes, sizes, (size_t)n * 8, cudaMemcpyDeviceToHost, stream);
  if (s == NVE_SUCCESS && e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  int64_t misses = 0;
  for (int64_t i = 0; s == NVE_SUCCESS && e == cudaSuccess && i < n; i++) {
    uint64_t bit = 1ull << (i % 64);
    if (hmask[i / 64] & bit)
      continue; /* resolved on entry */
    int found;
    ptrdiff_t slot = slot_of(t, key_at(t, hkeys, i), &found);
    if (slot < 0 || !found) {
      misses++;
      continue;
    }
    int64_t size = t->sizes[slot] < stride ? t->sizes[slot] : stride;
    if (values)
      e = cudaMemcpyAsync((unsigned char *)values + i * stride, t->rows + slot * t->row_size,
                          (size_t)size, cudaMemcpyDeviceToDevice, stream);
    if (hsizes)
      hsizes[i] = size;
    hmask[i / 64] |= bit;
  }
  if (s == NVE_SUCCESS && mask && e == cudaSuccess)
    e = cudaMemcpyAsync(mask, hmask, words * 8, cudaMemcpyHostToDevice, stream);
  if (s == NVE_SUCCESS && sizes && e == cudaSuccess)
    e = cudaMemcpyAsync(sizes, hsizes, (size_t)n * 8, cudaMemcpyHostToDevice, stream);
  if (s == NVE_SUCCESS && e == cudaSuccess)
    e = cudaStreamSynchronize(stream); /* the host buffers go away below */
  if (s == NVE_SUCCESS && e != cudaSuccess)
    s = cuda_fail(e, "find");
  if (s == NVE_SUCCESS)
    atomic_fetch_add(&t->misses, misses);
  free(hkeys);
  free(hmask);
  free(hsizes);
  return s;
}

/* ---- modifications ------------------------------------------------------------------------- */

static nve_status_t write_rows(dt_table *t, nve_ext_context_t ctx, const char *op, int insert,
                               int64_t n, const void *keys, int64_t stride, int64_t size,
                               const void *values)
{
  if (n < 0 || (n > 0 && (!keys || !values)) || size < 0 || size > t->row_size ||
      (n > 1 && stride < size))
    return fail(NVE_ERROR_INVALID_ARGUMENT, "%s: bad arguments", op);
  if (n == 0)
    return NVE_SUCCESS;
  cudaStream_t stream;
  unsigned char *hkeys;
  nve_status_t s = begin_modify(t, ctx, keys, n, &stream, &hkeys);
  cudaError_t e = cudaSuccess;
  for (int64_t i = 0; s == NVE_SUCCESS && e == cudaSuccess && i < n; i++) {
    int64_t key = key_at(t, hkeys, i);
    int found;
    ptrdiff_t slot = slot_of(t, key, &found);
    if (!found && (!insert || slot < 0 || size == 0))
      continue; /* update never inserts; a full table drops the key (best effort) */
    if (!found) {
      t->keys[slot] = key;
      t->used++;
    }
    t->sizes[slot] = size;
    e = cudaMemcpyAsync(t->rows + slot * t->row_size, (const unsigned char *)values + i * stride,
                        (size_t)size, cudaMemcpyDeviceToDevice, stream);
  }
  if (s == NVE_SUCCESS && e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  if (s == NVE_SUCCESS && e != cudaSuccess)
    s = cuda_fail(e, op);
  free(hkeys);
  return s;
}

static nve_status_t t_insert(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                             int64_t stride, int64_t size, const void *values)
{
  return write_rows(self, ctx, "insert", 1, n, keys, stride, size, values);
}

static nve_status_t t_update(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                             int64_t stride, int64_t size, const void *values)
{
  return write_rows(self, ctx, "update", 0, n, keys, stride, size, values);
}

/* Without kernels, the sums are made on the host: each row and its update
 * come over, are added, and the row goes back. */
static nve_status_t t_accumulate(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                                 int64_t stride, int64_t size, const void *updates,
                                 nve_data_type_t dtype)
{
  dt_table *t = self;
  if (dtype != NVE_DTYPE_FLOAT32)
    return fail(NVE_ERROR_NOT_IMPLEMENTED, "update_accumulate: float32 updates only");
  if (n < 0 || (n > 0 && (!keys || !updates)) || size < 0 || size > t->row_size || size % 4 ||
      (n > 1 && stride < size))
    return fail(NVE_ERROR_INVALID_ARGUMENT, "update_accumulate: bad arguments");
  if (n == 0 || size == 0)
    return NVE_SUCCESS;
  cudaStream_t stream;
  unsigned char *hkeys = NULL;
  float *row = malloc((size_t)size), *add = malloc((size_t)size);
  nve_status_t s = row && add ? begin_modify(t, ctx, keys, n, &stream, &hkeys)
                              : fail(NVE_ERROR_OUT_OF_MEMORY, "update_accumulate: out of memory");
  cudaError_t e = cudaSuccess;
  for (int64_t i = 0; s == NVE_SUCCESS && e == cudaSuccess && i < n; i++) {
    int found;
    ptrdiff_t slot = slot_of(t, key_at(t, hkeys, i), &found);
    if (slot < 0 || !found)
      continue; /* missing keys are ignored */
    unsigned char *dst = t->rows + slot * t->row_size;
    e = cudaMemcpyAsync(row, dst, (size_t)size, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(add, (const unsigned char *)updates + i * stride, (size_t)size,
                          cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(stream);
    for (int64_t k = 0; e == cudaSuccess && k < size / 4; k++)
      row[k] += add[k];
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(dst, row, (size_t)size, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(stream);
    if (t->sizes[slot] < size)
      t->sizes[slot] = size;
  }
  if (s == NVE_SUCCESS && e != cudaSuccess)
    s = cuda_fail(e, "update_accumulate");
  free(hkeys);
  free(row);
  free(add);
  return s;
}

/* Removing a key from open addressing: the keys after it in its run are
 * put back, so that no lookup stops early. Rows stay where they are (a
 * moved key takes its row slot with it by copying on the device). */
static nve_status_t t_erase(void *self, nve_ext_context_t ctx, int64_t n, const void *keys)
{
  dt_table *t = self;
  if (n < 0 || (n > 0 && !keys))
    return fail(NVE_ERROR_INVALID_ARGUMENT, "erase: bad arguments");
  if (n == 0)
    return NVE_SUCCESS;
  cudaStream_t stream;
  unsigned char *hkeys;
  nve_status_t s = begin_modify(t, ctx, keys, n, &stream, &hkeys);
  cudaError_t e = cudaSuccess;
  for (int64_t i = 0; s == NVE_SUCCESS && e == cudaSuccess && i < n; i++) {
    int found;
    ptrdiff_t slot = slot_of(t, key_at(t, hkeys, i), &found);
    if (slot < 0 || !found)
      continue;
    t->sizes[slot] = 0;
    t->used--;
    for (size_t j = ((size_t)slot + 1) % t->capacity; t->sizes[j] != 0 && e == cudaSuccess;
         j = (j + 1) % t->capacity) {
      int64_t key = t->keys[j], size = t->sizes[j];
      t->sizes[j] = 0;
      int again;
      ptrdiff_t to = slot_of(t, key, &again);
      t->keys[to] = key;
      t->sizes[to] = size;
      if ((size_t)to != j)
        e = cudaMemcpyAsync(t->rows + to * t->row_size, t->rows + (ptrdiff_t)j * t->row_size,
                            (size_t)t->row_size, cudaMemcpyDeviceToDevice, stream);
    }
  }
  if (s == NVE_SUCCESS && e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  if (s == NVE_SUCCESS && e != cudaSuccess)
    s = cuda_fail(e, "erase");
  free(hkeys);
  return s;
}

static nve_status_t t_clear(void *self, nve_ext_context_t ctx)
{
  (void)ctx;
  dt_table *t = self;
  memset(t->sizes, 0, t->capacity * sizeof(int64_t));
  t->used = 0;
  return NVE_SUCCESS;
}

static const char *t_last_error(void *self) { (void)self; return error_text; }

static const nve_ext_table_ops_t table_ops = {
    sizeof(nve_ext_table_ops_t), t_destroy, t_location, t_device_id, t_max_row_size, t_key_size,
    t_invalid_key, t_dtype, t_counter_hits, t_reset, t_counter, t_find, t_insert, t_update,
    t_accumulate, t_erase, t_clear, t_last_error};

/* ---- factory ------------------------------------------------------------------------------------ */

/* An integer member of a flat JSON object, or fallback. */
static long long config_int(const char *json, const char *name, long long fallback)
{
  char pattern[64];
  snprintf(pattern, sizeof(pattern), "\"%s\"", name);
  const char *at = json ? strstr(json, pattern) : NULL;
  if (!at || !(at = strchr(at + strlen(pattern), ':')))
    return fallback;
  return strtoll(at + 1, NULL, 10);
}

static nve_status_t f_produce(void *self, int64_t id, const char *json, nve_ext_table_t *out)
{
  (void)self;
  (void)id;
  if (!out)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "produce: out_table is NULL");
  memset(out, 0, sizeof(*out));
  if (!json || json[0] != '{')
    return fail(NVE_ERROR_INVALID_ARGUMENT, "table config: not a JSON object");
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    return cuda_fail(e, "produce: counting devices");
  long long device = config_int(json, "device", 0), row = config_int(json, "max_row_size", 128),
            key = config_int(json, "key_size", 8), capacity = config_int(json, "capacity", 65536);
  if (device < 0 || device >= count)
    return fail(NVE_ERROR_INVALID_ARGUMENT, "table config: device %lld of %d", device, count);
  if (row <= 0 || row % 4 || row > (1 << 20) || (key != 4 && key != 8) || capacity < 16 ||
      capacity > (1 << 26))
    return fail(NVE_ERROR_INVALID_ARGUMENT, "table config: bad max_row_size, key_size or capacity");
  dt_table *t = calloc(1, sizeof(*t));
  if (!t)
    return fail(NVE_ERROR_OUT_OF_MEMORY, "produce: out of memory");
  *t = (dt_table){(int)device, key, row, (size_t)capacity, 0, NULL, NULL, NULL, 0};
  t->keys = malloc(t->capacity * sizeof(int64_t));
  t->sizes = calloc(t->capacity, sizeof(int64_t));
  int caller = 0;
  cudaGetDevice(&caller);
  e = cudaSetDevice(t->device); /* the rows belong on the table's device */
  if (e == cudaSuccess && t->keys && t->sizes)
    e = cudaMalloc((void **)&t->rows, t->capacity * (size_t)t->row_size);
  cudaSetDevice(caller);
  if (e != cudaSuccess || !t->keys || !t->sizes) {
    free(t->keys);
    free(t->sizes);
    free(t);
    return e != cudaSuccess ? cuda_fail(e, "produce: device memory")
                            : fail(NVE_ERROR_OUT_OF_MEMORY, "produce: out of memory");
  }
  out->self = t;
  out->ops = &table_ops;
  return NVE_SUCCESS;
}

static void f_destroy(void *self) { free(self); }
static const char *f_last_error(void *self) { (void)self; return error_text; }

static const nve_ext_table_factory_ops_t factory_ops = {sizeof(nve_ext_table_factory_ops_t),
                                                        f_destroy, f_produce, f_last_error};

NVE_C_API nve_status_t nve_plugin_create_external_factory(const char *json,
                                                          nve_ext_table_factory_t *out,
                                                          const char **out_error)
{
  if (!out || !out_error)
    return NVE_ERROR_INVALID_ARGUMENT;
  memset(out, 0, sizeof(*out));
  *out_error = NULL;
  if (json && json[0] != '{') {
    *out_error = "factory config: not a JSON object";
    return NVE_ERROR_INVALID_ARGUMENT;
  }
  void *self = malloc(1);
  if (!self) {
    *out_error = "out of memory";
    return NVE_ERROR_OUT_OF_MEMORY;
  }
  out->self = self;
  out->ops = &factory_ops;
  return NVE_SUCCESS;
}
