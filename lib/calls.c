/* SPDX-License-Identifier: Apache-2.0 */
#include "calls.h"

#include <string.h>

#include "trace.h"

nve_status_t nc_call_create_factory(const nc_plugin *p, const char *json,
                                    nve_ext_table_factory_t *out, const char **out_error)
{
  nc_trace_enter("nve_plugin_create_external_factory");
  nve_status_t s = p->create_external_factory(json, out, out_error);
  nc_trace_leave();
  return s;
}

nve_status_t nc_call_produce(const nve_ext_table_factory_t *f, int64_t table_id,
                             const char *json, nve_ext_table_t *out)
{
  nc_trace_enter("factory produce");
  nve_status_t s = f->ops->produce(f->self, table_id, json, out);
  nc_trace_leave();
  return s;
}

const char *nc_call_factory_last_error(const nve_ext_table_factory_t *f)
{
  nc_trace_enter("factory last_error");
  const char *s = f->ops->last_error(f->self);
  nc_trace_leave();
  return s;
}

void nc_call_factory_destroy(const nve_ext_table_factory_t *f)
{
  nc_trace_enter("factory destroy");
  f->ops->destroy(f->self);
  nc_trace_leave();
}

void nc_call_table_destroy(const nve_ext_table_t *t)
{
  nc_trace_enter("table destroy");
  t->ops->destroy(t->self);
  nc_trace_leave();
}

const char *const nc_table_ops_names[NC_TABLE_OPS_FNS] = {
    "destroy",        "preferred_buffer_location", "device_id",    "max_row_size",
    "key_size",       "invalid_key",               "value_dtype",  "lookup_counter_hits",
    "reset_lookup_counter", "get_lookup_counter",  "find",         "insert",
    "update",         "update_accumulate",         "erase",        "clear",
    "last_error"};

const char *const nc_factory_ops_names[NC_FACTORY_OPS_FNS] = {"destroy", "produce",
                                                             "last_error"};

/* The 1.0 function pointers sit at 8-byte steps after struct_size. */
const void *nc_ops_fn(const void *ops, int i)
{
  const void *fn;
  memcpy(&fn, (const char *)ops + 8 + 8 * (size_t)i, sizeof(fn));
  return fn;
}
