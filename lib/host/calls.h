/* SPDX-License-Identifier: Apache-2.0 */
/* Every call from a case into plugin code goes through these wrappers:
 * they name the callback for crash attribution (trace.h) and are the one
 * place where later checks on every call (statuses, device, allocations)
 * hook in. */
#ifndef NC_CALLS_H
#define NC_CALLS_H

#include "loader.h"

nve_status_t nc_call_create_factory(const nc_plugin *p, const char *json,
                                    nve_ext_table_factory_t *out, const char **out_error);
nve_status_t nc_call_produce(const nve_ext_table_factory_t *f, int64_t table_id,
                             const char *json, nve_ext_table_t *out);
const char *nc_call_factory_last_error(const nve_ext_table_factory_t *f);
void nc_call_factory_destroy(const nve_ext_table_factory_t *f);
/* The services handshake (the plugin exports it), remembering the table
 * handed over. */
void nc_call_set_services(const nc_plugin *p, const nve_ext_nve_services_t *svc);
void nc_call_table_destroy(const nve_ext_table_t *t);

/* Table operations. Each issues a fresh context for the call and retires it
 * when the call returns (see context.h). */
/* The rule that owns a table op, by the op's name or a call naming it
 * ("find", "erase (n=5)", "update_accumulate", "get_lookup_counter"):
 * TBL-02 for find and insert, TBL-06 update, TBL-07 update_accumulate,
 * TBL-08 erase and clear, TBL-09 the lookup counter; -1 for no table op. */
int nc_op_rule(const char *op);

/* How many finds shared plugin code with another find since the reset:
 * whether concurrent finds really overlapped, and how often (TBL-12). */
void nc_calls_overlap_reset(void);
long long nc_calls_overlapped(void);
nve_status_t nc_call_find(const nve_ext_table_t *t, int64_t n, const void *keys,
                          uint64_t *hit_mask, int64_t value_stride, void *values,
                          int64_t *value_sizes);
nve_status_t nc_call_insert(const nve_ext_table_t *t, int64_t n, const void *keys,
                            int64_t value_stride, int64_t value_size, const void *values);
nve_status_t nc_call_update(const nve_ext_table_t *t, int64_t n, const void *keys,
                            int64_t value_stride, int64_t value_size, const void *values);
nve_status_t nc_call_update_accumulate(const nve_ext_table_t *t, int64_t n, const void *keys,
                                       int64_t update_stride, int64_t update_size,
                                       const void *updates, nve_data_type_t dtype);
nve_status_t nc_call_erase(const nve_ext_table_t *t, int64_t n, const void *keys);
nve_status_t nc_call_clear(const nve_ext_table_t *t);
nve_status_t nc_call_reset_lookup_counter(const nve_ext_table_t *t);
nve_status_t nc_call_get_lookup_counter(const nve_ext_table_t *t, int64_t *counter);
const char *nc_call_table_last_error(const nve_ext_table_t *t);
int64_t nc_call_key_size(const nve_ext_table_t *t);
int64_t nc_call_max_row_size(const nve_ext_table_t *t);
nve_buffer_location_t nc_call_location(const nve_ext_table_t *t);
int32_t nc_call_device_id(const nve_ext_table_t *t);

/* The infallible capability queries, read once as the host does. */
typedef struct nc_table_caps {
  nve_buffer_location_t location;
  int32_t device_id;
  int64_t max_row_size, key_size, invalid_key;
  nve_data_type_t dtype;
  int64_t counter_hits;
} nc_table_caps;
void nc_call_capabilities(const nve_ext_table_t *t, nc_table_caps *out);
/* The name of the first capability that differs between a and b (as its
 * callback is named), or NULL when they agree. */
const char *nc_caps_differ(const nc_table_caps *a, const nc_table_caps *b);

/* Names of the 1.0 function-pointer fields, in layout order. */
#define NC_TABLE_OPS_FNS 17
#define NC_FACTORY_OPS_FNS 3
extern const char *const nc_table_ops_names[NC_TABLE_OPS_FNS];
extern const char *const nc_factory_ops_names[NC_FACTORY_OPS_FNS];
/* The i-th function pointer of a vtable (of either kind). */
const void *nc_ops_fn(const void *ops, int i);
/* Whether a host may destroy a handle it rejects: its vtable covers
 * destroy (at offset 8 in both kinds) and destroy is set (doc/contract.md#handle-validity). */
int nc_destroy_known_good(const void *ops);
/* The host's acceptance test of a handle: self and ops set, struct_size
 * covering the 1.0 struct, none of its nfns function pointers NULL. */
int nc_handle_usable(const void *self, const void *ops, uint32_t size_1_0, int nfns);

#endif
