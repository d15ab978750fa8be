/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin/nve_external_plugin.h: the pure-C ABI of an external-mode NVE
 * plugin (ABI 1.0) -- tables and factories as an opaque self pointer plus a
 * size-prefixed vtable, the NVE services the host hands over, and the
 * NVE_DEFINE_EXTERNAL_PLUGIN authoring macro.
 *
 * Source compatible with the upstream header of the same name: the same
 * type, field, macro and function names, values and layouts.
 *
 * Rules every implementation keeps (the full text is nve-conform's
 * doc/contract.md, installed in its documentation directory): no language exception crosses any function pointer below;
 * creation and produce zero their output first, keep it zero on failure and
 * hand over a handle only with NVE_SUCCESS; last_error is per thread.
 *
 * Layout baseline: 64-bit ELF, 8-bit bytes, 32-bit int32_t, 64-bit
 * pointers, default struct layout. The assertions at the end of this file
 * turn an incompatible build (e.g. packing flags) into a compile error.
 */
#ifndef NVE_EXTERNAL_PLUGIN_H
#define NVE_EXTERNAL_PLUGIN_H

#include <stddef.h>

#include <plugin/nve_plugin_common.h>

#ifdef __cplusplus
#define NVE_ABI_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#include <stdalign.h>
#define NVE_ABI_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Where a table wants the buffers of its data operations. */
typedef int32_t nve_buffer_location_t;
enum {
  NVE_BUFFER_LOCATION_HOST = 0,
  NVE_BUFFER_LOCATION_DEVICE = 1,
};

/* True when PTR is non-NULL and its struct_size covers FIELD of TYPE.
 * Check it before reading any field a later minor appended. */
#define NVE_ABI_HAS_FIELD(PTR, TYPE, FIELD) \
  ((PTR) != NULL &&                         \
   (PTR)->struct_size >= offsetof(TYPE, FIELD) + sizeof(((TYPE*)0)->FIELD))

/* Host-owned per-operation context: valid only during the table callback it
 * was passed to; never kept, never used from another thread afterwards. */
typedef struct nve_ext_context_s* nve_ext_context_t;

/* A table's vtable. The capability getters (preferred_buffer_location ..
 * value_dtype, lookup_counter_hits) are infallible and constant; device_id is
 * also the device-bootstrap query. */
typedef struct nve_ext_table_ops_s {
  uint32_t struct_size; /* sizeof(nve_ext_table_ops_t) when the plugin was built */

  void (*destroy)(void* self);

  nve_buffer_location_t (*preferred_buffer_location)(void* self);
  int32_t (*device_id)(void* self); /* -1: host table; >= 0: device ordinal */
  int64_t (*max_row_size)(void* self);
  int64_t (*key_size)(void* self);
  int64_t (*invalid_key)(void* self);
  nve_data_type_t (*value_dtype)(void* self);

  int64_t (*lookup_counter_hits)(void* self); /* nonzero: the counter counts hits */
  nve_status_t (*reset_lookup_counter)(void* self, nve_ext_context_t ctx);
  nve_status_t (*get_lookup_counter)(void* self, nve_ext_context_t ctx, int64_t* counter);

  /* hit_mask, values and value_sizes may be NULL; other buffers may not. */
  nve_status_t (*find)(void* self, nve_ext_context_t ctx, int64_t n, const void* keys,
                       uint64_t* hit_mask, int64_t value_stride, void* values,
                       int64_t* value_sizes);
  nve_status_t (*insert)(void* self, nve_ext_context_t ctx, int64_t n, const void* keys,
                         int64_t value_stride, int64_t value_size, const void* values);
  nve_status_t (*update)(void* self, nve_ext_context_t ctx, int64_t n, const void* keys,
                         int64_t value_stride, int64_t value_size, const void* values);
  nve_status_t (*update_accumulate)(void* self, nve_ext_context_t ctx, int64_t n,
                                    const void* keys, int64_t update_stride,
                                    int64_t update_size, const void* updates,
                                    nve_data_type_t update_dtype);
  nve_status_t (*erase)(void* self, nve_ext_context_t ctx, int64_t n, const void* keys);
  nve_status_t (*clear)(void* self, nve_ext_context_t ctx);

  /* The calling thread's message for its last failed operation. */
  const char* (*last_error)(void* self);
} nve_ext_table_ops_t;

/* What produce fills in. */
typedef struct nve_ext_table_s {
  void* self;
  const nve_ext_table_ops_t* ops; /* plugin-owned, stable storage */
} nve_ext_table_t;

typedef struct nve_ext_table_factory_ops_s {
  uint32_t struct_size; /* sizeof(nve_ext_table_factory_ops_t) when built */
  void (*destroy)(void* self);
  /* Zeroes *out_table first; a nonzero handle only with NVE_SUCCESS. */
  nve_status_t (*produce)(void* self, int64_t table_id, const char* json_config,
                          nve_ext_table_t* out_table);
  const char* (*last_error)(void* self);
} nve_ext_table_factory_ops_t;

/* What the creation symbol fills in. */
typedef struct nve_ext_table_factory_s {
  void* self;
  const nve_ext_table_factory_ops_t* ops;
} nve_ext_table_factory_t;

/* The creation symbol of an external plugin. Zeroes *out_factory first and
 * hands over a nonzero handle only with NVE_SUCCESS. *out_error is NULL on
 * success; on failure it may point to plugin-owned thread-local text that
 * stays valid until the next creation call on that thread. */
NVE_C_API nve_status_t nve_plugin_create_external_factory(const char* json_config,
                                                          nve_ext_table_factory_t* out_factory,
                                                          const char** out_error);

/* Services the host offers a plugin. The table lives as long as the process. */
typedef struct nve_ext_nve_services_s {
  uint32_t struct_size; /* sizeof(nve_ext_nve_services_t) when the host was built */

  nve_status_t (*num_workers)(nve_ext_context_t ctx, int64_t* out_workers);
  /* Runs task(user, i) for every i in [0, num_tasks) and returns when all are
   * done; returns the first failing task status. Tasks must not throw. */
  nve_status_t (*execute_n)(nve_ext_context_t ctx, int64_t num_tasks,
                            nve_status_t (*task)(void* user, int64_t index), void* user);
  /* As execute_n; burst b of tasks_per_workgroup tasks goes to
   * workgroups[b % num_workgroups]. */
  nve_status_t (*execute_n_wg)(nve_ext_context_t ctx, int64_t num_tasks,
                               nve_status_t (*task)(void* user, int64_t index), void* user,
                               const int64_t* workgroups, int64_t num_workgroups,
                               int64_t tasks_per_workgroup);
  /* The context's CUDA streams, as an opaque cudaStream_t. */
  nve_status_t (*get_lookup_stream)(nve_ext_context_t ctx, void** out_stream);
  nve_status_t (*get_modify_stream)(nve_ext_context_t ctx, void** out_stream);
  /* A context-owned buffer of at least size bytes for name (host memory when
   * host_alloc != 0). Not thread-safe: never from inside a task. Growing a
   * name invalidates the pointers returned for it before. */
  nve_status_t (*get_scratch)(nve_ext_context_t ctx, const char* name, size_t size,
                              int32_t host_alloc, void** out_ptr);
  /* The calling thread's message for its last failed service call. */
  const char* (*last_error)(nve_ext_context_t ctx);
} nve_ext_nve_services_t;

/* Optional handshake; the host calls it after every load of the plugin.
 * It must be idempotent and thread-safe for the same pointer. */
NVE_C_API void nve_plugin_set_nve_services(const nve_ext_nve_services_t* services);

/* The services table registered by the handshake, or NULL before it. Defined
 * by NVE_DEFINE_EXTERNAL_PLUGIN. */
const nve_ext_nve_services_t* nve_plugin_nve_services(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---- The published ABI 1.0 layout ------------------------------------- */

#define NVE_ABI_ASSERT_OFFSET_(TYPE, FIELD, OFF) \
  NVE_ABI_STATIC_ASSERT(offsetof(TYPE, FIELD) == (OFF), #TYPE "." #FIELD " is at offset " #OFF)

NVE_ABI_STATIC_ASSERT(sizeof(void*) == 8, "the NVE plugin ABI needs 64-bit pointers");
NVE_ABI_STATIC_ASSERT(sizeof(int32_t) == 4, "int32_t is 32 bits");
NVE_ABI_STATIC_ASSERT(sizeof(nve_status_t) == 4, "nve_status_t is 32 bits");
NVE_ABI_STATIC_ASSERT(sizeof(nve_data_type_t) == 4, "nve_data_type_t is 32 bits");
NVE_ABI_STATIC_ASSERT(sizeof(nve_buffer_location_t) == 4, "nve_buffer_location_t is 32 bits");

NVE_ABI_STATIC_ASSERT(sizeof(nve_ext_table_ops_t) == 144, "nve_ext_table_ops_t is 144 bytes");
NVE_ABI_STATIC_ASSERT(alignof(nve_ext_table_ops_t) == 8, "nve_ext_table_ops_t is 8-aligned");
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, struct_size, 0);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, destroy, 8);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, preferred_buffer_location, 16);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, device_id, 24);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, max_row_size, 32);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, key_size, 40);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, invalid_key, 48);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, value_dtype, 56);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, lookup_counter_hits, 64);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, reset_lookup_counter, 72);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, get_lookup_counter, 80);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, find, 88);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, insert, 96);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, update, 104);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, update_accumulate, 112);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, erase, 120);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, clear, 128);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_ops_t, last_error, 136);

NVE_ABI_STATIC_ASSERT(sizeof(nve_ext_table_t) == 16, "nve_ext_table_t is 16 bytes");
NVE_ABI_STATIC_ASSERT(alignof(nve_ext_table_t) == 8, "nve_ext_table_t is 8-aligned");
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_t, self, 0);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_t, ops, 8);

NVE_ABI_STATIC_ASSERT(sizeof(nve_ext_table_factory_ops_t) == 32,
                      "nve_ext_table_factory_ops_t is 32 bytes");
NVE_ABI_STATIC_ASSERT(alignof(nve_ext_table_factory_ops_t) == 8,
                      "nve_ext_table_factory_ops_t is 8-aligned");
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_factory_ops_t, struct_size, 0);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_factory_ops_t, destroy, 8);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_factory_ops_t, produce, 16);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_factory_ops_t, last_error, 24);

NVE_ABI_STATIC_ASSERT(sizeof(nve_ext_table_factory_t) == 16,
                      "nve_ext_table_factory_t is 16 bytes");
NVE_ABI_STATIC_ASSERT(alignof(nve_ext_table_factory_t) == 8,
                      "nve_ext_table_factory_t is 8-aligned");
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_factory_t, self, 0);
NVE_ABI_ASSERT_OFFSET_(nve_ext_table_factory_t, ops, 8);

NVE_ABI_STATIC_ASSERT(sizeof(nve_ext_nve_services_t) == 64, "nve_ext_nve_services_t is 64 bytes");
NVE_ABI_STATIC_ASSERT(alignof(nve_ext_nve_services_t) == 8,
                      "nve_ext_nve_services_t is 8-aligned");
NVE_ABI_ASSERT_OFFSET_(nve_ext_nve_services_t, struct_size, 0);
NVE_ABI_ASSERT_OFFSET_(nve_ext_nve_services_t, num_workers, 8);
NVE_ABI_ASSERT_OFFSET_(nve_ext_nve_services_t, execute_n, 16);
NVE_ABI_ASSERT_OFFSET_(nve_ext_nve_services_t, execute_n_wg, 24);
NVE_ABI_ASSERT_OFFSET_(nve_ext_nve_services_t, get_lookup_stream, 32);
NVE_ABI_ASSERT_OFFSET_(nve_ext_nve_services_t, get_modify_stream, 40);
NVE_ABI_ASSERT_OFFSET_(nve_ext_nve_services_t, get_scratch, 48);
NVE_ABI_ASSERT_OFFSET_(nve_ext_nve_services_t, last_error, 56);

/* ---- Authoring helper ---------------------------------------------------- */

#ifdef __cplusplus
#include <atomic>
#define NVE_PLUGIN_ATOMIC_SERVICES_PTR_ std::atomic<const nve_ext_nve_services_t*>
#else
#include <stdatomic.h>
#define NVE_PLUGIN_ATOMIC_SERVICES_PTR_ const nve_ext_nve_services_t* _Atomic
#endif

/* Emits the five metadata symbols, the services handshake (an atomic store:
 * repeating it is harmless) and nve_plugin_nve_services(). Expand it exactly
 * once per shared object; the plugin still defines
 * nve_plugin_create_external_factory itself. */
#define NVE_DEFINE_EXTERNAL_PLUGIN(NAME_STR, AUTHOR_STR)                                     \
  static NVE_PLUGIN_ATOMIC_SERVICES_PTR_ nve_plugin_nve_services_ptr_;                       \
  NVE_C_API uint32_t nve_plugin_abi_version_major(void) { return NVE_PLUGIN_ABI_VERSION_MAJOR; } \
  NVE_C_API uint32_t nve_plugin_abi_version_minor(void) { return NVE_PLUGIN_ABI_VERSION_MINOR; } \
  NVE_C_API const char* nve_plugin_name(void) { return NAME_STR; }                           \
  NVE_C_API const char* nve_plugin_author(void) { return AUTHOR_STR; }                       \
  NVE_C_API nve_plugin_mode_t nve_plugin_mode(void) { return NVE_PLUGIN_MODE_EXTERNAL; }     \
  NVE_C_API void nve_plugin_set_nve_services(const nve_ext_nve_services_t* services) {       \
    nve_plugin_nve_services_ptr_ = services;                                                 \
  }                                                                                          \
  const nve_ext_nve_services_t* nve_plugin_nve_services(void) { return nve_plugin_nve_services_ptr_; }

#endif /* NVE_EXTERNAL_PLUGIN_H */
