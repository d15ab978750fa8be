/* SPDX-License-Identifier: Apache-2.0 */
#include "calls.h"

#include <stdatomic.h>

#include <string.h>

#include "call_log.h"
#include "context.h"
#include "rules.h"
#include "violations.h"
#include "callback.h"
#include "device_watch.h"
#include "services.h"

/* ERR-01, for every family: a status outside the enum is recorded with
 * the callback that returned it (still named as the current callback). */
static nve_status_t checked(const char *callback, nve_status_t s)
{
  if (s < NVE_SUCCESS || s > NVE_ERROR_OUT_OF_MEMORY)
    nc_violation_recordf(NC_RULE_ERR_01, "%s returned %d, which is not a nve_status_t value", callback,
                         (int)s);
  return s;
}

/* Tables that said their buffers are HOST ones, with their key size (0:
 * not known yet): only their keys and hit_mask may be read here (a DEVICE
 * table's are device memory), for the call log. */
#define HOST_TABLES 16
static _Atomic(const void *) host_tables[HOST_TABLES];
static _Atomic int host_key_sizes[HOST_TABLES];

static void note_location(const void *self, nve_buffer_location_t location, int64_t key_size)
{
  int known = 0;
  for (int i = 0; i < HOST_TABLES; i++) {
    const void *was = self;
    int size = atomic_load(&host_key_sizes[i]);
    if (atomic_compare_exchange_strong(&host_tables[i], &was, NULL)) {
      known = size;
      break; /* forgotten; added again below when still HOST */
    }
  }
  if (location != NVE_BUFFER_LOCATION_HOST || !nc_call_log_on())
    return;
  for (int i = 0; i < HOST_TABLES; i++) {
    const void *none = NULL;
    if (atomic_load(&host_tables[i]) != NULL)
      continue;
    atomic_store(&host_key_sizes[i], key_size == 4 || key_size == 8 ? (int)key_size : known);
    if (atomic_compare_exchange_strong(&host_tables[i], &none, self))
      return;
  }
}

/* The key size of a HOST table (0: unknown), or -1 for any other. */
static int host_key_size(const void *self)
{
  for (int i = 0; i < HOST_TABLES; i++)
    if (atomic_load(&host_tables[i]) == self)
      return atomic_load(&host_key_sizes[i]);
  return -1;
}

/* The size of a call's keys for the log: 0 where they are not to be read. */
static int logged_key_size(const void *self)
{
  int size = nc_call_log_on() ? host_key_size(self) : 0;
  return size > 0 ? size : 0;
}

nve_status_t nc_call_create_factory(const nc_plugin *p, const char *json,
                                    nve_ext_table_factory_t *out, const char **out_error)
{
  nc_callback_enter("nve_plugin_create_external_factory");
  nve_status_t s = checked("nve_plugin_create_external_factory",
                           p->create_external_factory(json, out, out_error));
  nc_callback_leave();
  nc_call_log_config("create", s == NVE_SUCCESS && out ? out->self : NULL, 0, json, (int)s);
  return s;
}

nve_status_t nc_call_produce(const nve_ext_table_factory_t *f, int64_t table_id,
                             const char *json, nve_ext_table_t *out)
{
  nc_callback_enter("factory produce");
  nve_status_t s = checked("factory produce", f->ops->produce(f->self, table_id, json, out));
  nc_callback_leave();
  nc_call_log_config("produce", s == NVE_SUCCESS && out ? out->self : NULL, table_id, json,
                     (int)s);
  return s;
}

const char *nc_call_factory_last_error(const nve_ext_table_factory_t *f)
{
  nc_callback_enter("factory last_error");
  const char *s = f->ops->last_error(f->self);
  nc_callback_leave();
  return s;
}

void nc_call_factory_destroy(const nve_ext_table_factory_t *f)
{
  nc_call_log("destroy_factory", f->self, 0, NULL, 0, 0, 0, 0);
  nc_callback_enter("factory destroy");
  f->ops->destroy(f->self);
  nc_callback_leave();
}

void nc_call_set_services(const nc_plugin *p, const nve_ext_nve_services_t *svc)
{
  nc_callback_enter("nve_plugin_set_nve_services");
  p->set_nve_services(svc);
  nc_callback_leave();
  nc_services_note_handed(svc);
}

void nc_call_table_destroy(const nve_ext_table_t *t)
{
  nc_device_watch_forget(t->self);
  note_location(t->self, NVE_BUFFER_LOCATION_DEVICE, 0); /* forgotten */
  nc_call_log("destroy", t->self, 0, NULL, 0, 0, 0, 0);
  nc_callback_enter("table destroy");
  t->ops->destroy(t->self);
  nc_callback_leave();
}

/* Brackets one table operation: names it for crash attribution and gives it
 * a context that is retired afterwards. */
#define TABLE_OP(NAME, OWNER, CALL)                 \
  nve_ext_context_t ctx = nc_context_acquire(NAME); \
  if (!ctx)                                         \
    return NVE_ERROR_OUT_OF_MEMORY;                 \
  nc_callback_enter("table " NAME);                 \
  nc_callback_set_op_owner(OWNER);                  \
  nc_device_watch_begin(t->self);                   \
  nve_status_t s = checked("table " NAME, (CALL)); \
  nc_device_watch_end(ctx, nc_callback_current());  \
  nc_callback_set_op_owner(-1);                     \
  nc_callback_leave();                              \
  nc_context_release(ctx);                          \
  return s;

/* The same for the ops that take a batch: the callback's name gives n,
 * and a crash on an empty batch is TBL-10's, whichever op. */
#define TABLE_BATCH_OP(NAME, OWNER, N, CALL)                  \
  nve_ext_context_t ctx = nc_context_acquire(NAME);           \
  if (!ctx)                                                   \
    return NVE_ERROR_OUT_OF_MEMORY;                           \
  nc_callbackf_enter("table " NAME " (n=%lld)", (long long)(N)); \
  nc_callback_set_op_owner((N) == 0 ? NC_RULE_TBL_10 : (OWNER)); \
  nc_device_watch_begin(t->self);                             \
  nve_status_t s = checked("table " NAME, (CALL));           \
  nc_device_watch_end(ctx, nc_callback_current());            \
  nc_callback_set_op_owner(-1);                               \
  nc_callback_leave();                                        \
  nc_context_release(ctx);                                    \
  return s;

/* The keys a find reported found, for the call log; -1 without a mask. */
static int64_t hits_of(int64_t n, const uint64_t *hit_mask)
{
  if (!hit_mask || n <= 0)
    return -1;
  int64_t hits = 0;
  for (int64_t w = 0; w < n / 64; w++)
    hits += __builtin_popcountll(hit_mask[w]);
  if (n % 64)
    hits += __builtin_popcountll(hit_mask[n / 64] & ((1ull << (n % 64)) - 1));
  return hits;
}

/* Finds inside the plugin's find now, those that entered it, and those
 * that shared it with another find since the last reset. Counted around
 * the plugin's own call, not the wrapper's: a find whose wrapper merely
 * spanned another's (a thread preempted while it set up its context) did
 * not share the plugin, and TBL-12 needs finds that did. */
static atomic_int finds_now;
static atomic_llong finds_entered, finds_overlapped;

/* The frame below the plugin's: lib/run/sanitize.c names the op of a
 * memory error by it, so it is never inlined. */
__attribute__((noinline)) static nve_status_t
find_once(const nve_ext_table_t *t, nve_ext_context_t ctx, int64_t n, const void *keys,
          uint64_t *hit_mask, int64_t value_stride, void *values, int64_t *value_sizes)
{
  long long entered = atomic_fetch_add(&finds_entered, 1);
  int others = atomic_fetch_add(&finds_now, 1);
  nve_status_t s = t->ops->find(t->self, ctx, n, keys, hit_mask, value_stride, values,
                                value_sizes);
  int still = atomic_fetch_sub(&finds_now, 1) - 1;
  /* Another find inside as this one entered or left, or one that entered
   * (and maybe left) meanwhile. */
  if (others > 0 || still > 0 || atomic_load(&finds_entered) > entered + 1)
    atomic_fetch_add(&finds_overlapped, 1);
  return s;
}

static nve_status_t find_in_context(const nve_ext_table_t *t, int64_t n, const void *keys,
                                    uint64_t *hit_mask, int64_t value_stride, void *values,
                                    int64_t *value_sizes)
{
  TABLE_BATCH_OP("find", NC_RULE_TBL_02, n,
                 find_once(t, ctx, n, keys, hit_mask, value_stride, values, value_sizes))
}

nve_status_t nc_call_find(const nve_ext_table_t *t, int64_t n, const void *keys,
                          uint64_t *hit_mask, int64_t value_stride, void *values,
                          int64_t *value_sizes)
{
  int nulls = (hit_mask ? 0 : 1) | (values ? 0 : 2) | (value_sizes ? 0 : 4);
  /* A crash log has the line before the call: the call may not return. */
  int before = nc_call_log_crash();
  if (before)
    nc_call_log_find(t->self, n, keys, logged_key_size(t->self), value_stride, -1, nulls);
  nve_status_t s = find_in_context(t, n, keys, hit_mask, value_stride, values, value_sizes);
  if (!before && nc_call_log_on()) { /* after the call: how many rows it copied out */
    int key_size = logged_key_size(t->self);
    nc_call_log_find(t->self, n, keys, key_size, value_stride,
                     s == NVE_SUCCESS && host_key_size(t->self) >= 0 ? hits_of(n, hit_mask) : -1,
                     nulls);
  }
  return s;
}

int nc_op_rule(const char *op)
{
  static const struct {
    const char *op;
    nc_rule owner;
  } owners[] = {{"find", NC_RULE_TBL_02},
                {"insert", NC_RULE_TBL_02},
                {"update_accumulate", NC_RULE_TBL_07},
                {"update", NC_RULE_TBL_06},
                {"erase", NC_RULE_TBL_08},
                {"clear", NC_RULE_TBL_08},
                {"get_lookup_counter", NC_RULE_TBL_09},
                {"reset_lookup_counter", NC_RULE_TBL_09}};
  for (size_t i = 0; op && i < sizeof(owners) / sizeof(owners[0]); i++)
    if (strncmp(op, owners[i].op, strlen(owners[i].op)) == 0)
      return (int)owners[i].owner;
  return -1;
}

void nc_calls_overlap_reset(void)
{
  atomic_store(&finds_entered, 0);
  atomic_store(&finds_overlapped, 0);
}

long long nc_calls_overlapped(void) { return atomic_load(&finds_overlapped); }

nve_status_t nc_call_insert(const nve_ext_table_t *t, int64_t n, const void *keys,
                            int64_t value_stride, int64_t value_size, const void *values)
{
  nc_call_log("insert", t->self, n, keys, logged_key_size(t->self), value_stride, value_size, 0);
  TABLE_BATCH_OP("insert", NC_RULE_TBL_02, n, t->ops->insert(t->self, ctx, n, keys, value_stride, value_size, values))
}

nve_status_t nc_call_update(const nve_ext_table_t *t, int64_t n, const void *keys,
                            int64_t value_stride, int64_t value_size, const void *values)
{
  nc_call_log("update", t->self, n, keys, logged_key_size(t->self), value_stride, value_size, 0);
  TABLE_BATCH_OP("update", NC_RULE_TBL_06, n, t->ops->update(t->self, ctx, n, keys, value_stride, value_size, values))
}

nve_status_t nc_call_update_accumulate(const nve_ext_table_t *t, int64_t n, const void *keys,
                                       int64_t update_stride, int64_t update_size,
                                       const void *updates, nve_data_type_t dtype)
{
  nc_call_log("update_accumulate", t->self, n, keys, logged_key_size(t->self), update_stride,
              update_size, (int)dtype);
  TABLE_BATCH_OP("update_accumulate", NC_RULE_TBL_07, n, t->ops->update_accumulate(t->self, ctx, n, keys, update_stride,
                                                          update_size, updates, dtype))
}

nve_status_t nc_call_erase(const nve_ext_table_t *t, int64_t n, const void *keys)
{
  nc_call_log("erase", t->self, n, keys, logged_key_size(t->self), 0, 0, 0);
  TABLE_BATCH_OP("erase", NC_RULE_TBL_08, n, t->ops->erase(t->self, ctx, n, keys))
}

nve_status_t nc_call_clear(const nve_ext_table_t *t)
{
  nc_call_log("clear", t->self, 0, NULL, 0, 0, 0, 0);
  TABLE_OP("clear", NC_RULE_TBL_08, t->ops->clear(t->self, ctx))
}

nve_status_t nc_call_reset_lookup_counter(const nve_ext_table_t *t)
{
  nc_call_log("reset_lookup_counter", t->self, 0, NULL, 0, 0, 0, 0);
  TABLE_OP("reset_lookup_counter", NC_RULE_TBL_09, t->ops->reset_lookup_counter(t->self, ctx))
}

nve_status_t nc_call_get_lookup_counter(const nve_ext_table_t *t, int64_t *counter)
{
  nc_call_log("get_lookup_counter", t->self, 0, NULL, 0, 0, 0, 0);
  TABLE_OP("get_lookup_counter", NC_RULE_TBL_09, t->ops->get_lookup_counter(t->self, ctx, counter))
}

const char *nc_call_table_last_error(const nve_ext_table_t *t)
{
  nc_callback_enter("table last_error");
  const char *s = t->ops->last_error(t->self);
  nc_callback_leave();
  return s;
}

int64_t nc_call_key_size(const nve_ext_table_t *t)
{
  nc_callback_enter("table key_size");
  int64_t v = t->ops->key_size(t->self);
  nc_callback_leave();
  return v;
}

int64_t nc_call_max_row_size(const nve_ext_table_t *t)
{
  nc_callback_enter("table max_row_size");
  int64_t v = t->ops->max_row_size(t->self);
  nc_callback_leave();
  return v;
}

nve_buffer_location_t nc_call_location(const nve_ext_table_t *t)
{
  nc_callback_enter("table preferred_buffer_location");
  nve_buffer_location_t v = t->ops->preferred_buffer_location(t->self);
  nc_callback_leave();
  nc_device_watch_location(t->self, v);
  note_location(t->self, v, 0);
  return v;
}

int32_t nc_call_device_id(const nve_ext_table_t *t)
{
  nc_callback_enter("table device_id");
  int32_t v = t->ops->device_id(t->self);
  nc_callback_leave();
  nc_device_watch_device(t->self, v);
  return v;
}

const char *nc_caps_differ(const nc_table_caps *a, const nc_table_caps *b)
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

void nc_call_capabilities(const nve_ext_table_t *t, nc_table_caps *out)
{
  nc_callback_enter("table capabilities (preferred_buffer_location .. lookup_counter_hits)");
  out->location = t->ops->preferred_buffer_location(t->self);
  out->device_id = t->ops->device_id(t->self);
  out->max_row_size = t->ops->max_row_size(t->self);
  out->key_size = t->ops->key_size(t->self);
  out->invalid_key = t->ops->invalid_key(t->self);
  out->dtype = t->ops->value_dtype(t->self);
  out->counter_hits = t->ops->lookup_counter_hits(t->self);
  nc_callback_leave();
  nc_device_watch_location(t->self, out->location);
  note_location(t->self, out->location, out->key_size);
  nc_device_watch_device(t->self, out->device_id);
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

int nc_destroy_known_good(const void *ops)
{
  if (!ops)
    return 0;
  uint32_t size;
  memcpy(&size, ops, sizeof(size));
  return size >= 16 && nc_ops_fn(ops, 0) != NULL;
}

int nc_handle_usable(const void *self, const void *ops, uint32_t size_1_0, int nfns)
{
  if (!self || !ops)
    return 0;
  uint32_t size;
  memcpy(&size, ops, sizeof(size));
  if (size < size_1_0)
    return 0;
  for (int i = 0; i < nfns; i++)
    if (!nc_ops_fn(ops, i))
      return 0;
  return 1;
}
