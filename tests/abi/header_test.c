/* SPDX-License-Identifier: Apache-2.0 */
/* Compiles the drop-in ABI headers as strict C11 and builds a plugin from
 * them: every static assert is evaluated, the authoring macro expands, and
 * a plugin written the way upstream's documentation shows compiles. */
#include <nve_c_api.h>
#include <plugin/nve_external_plugin.h>
#include <plugin/nve_plugin_common.h>

NVE_DEFINE_EXTERNAL_PLUGIN("header test", "nve-conform authors")

static void t_destroy(void *self) { (void)self; }
static nve_buffer_location_t t_loc(void *self) { (void)self; return NVE_BUFFER_LOCATION_HOST; }
static int32_t t_dev(void *self) { (void)self; return -1; }
static int64_t t_i64(void *self) { (void)self; return 8; }
static nve_data_type_t t_dtype(void *self) { (void)self; return NVE_DTYPE_FLOAT32; }
static nve_status_t t_reset(void *self, nve_ext_context_t ctx) { (void)self; (void)ctx; return NVE_SUCCESS; }
static nve_status_t t_get(void *self, nve_ext_context_t ctx, int64_t *c) { (void)self; (void)ctx; *c = 0; return NVE_SUCCESS; }
static nve_status_t t_find(void *self, nve_ext_context_t ctx, int64_t n, const void *k, uint64_t *m,
                           int64_t s, void *v, int64_t *vs)
{ (void)self; (void)ctx; (void)n; (void)k; (void)m; (void)s; (void)v; (void)vs; return NVE_SUCCESS; }
static nve_status_t t_ins(void *self, nve_ext_context_t ctx, int64_t n, const void *k, int64_t s,
                          int64_t z, const void *v)
{ (void)self; (void)ctx; (void)n; (void)k; (void)s; (void)z; (void)v; return NVE_SUCCESS; }
static nve_status_t t_acc(void *self, nve_ext_context_t ctx, int64_t n, const void *k, int64_t s,
                          int64_t z, const void *u, nve_data_type_t d)
{ (void)self; (void)ctx; (void)n; (void)k; (void)s; (void)z; (void)u; (void)d; return NVE_ERROR_NOT_IMPLEMENTED; }
static nve_status_t t_erase(void *self, nve_ext_context_t ctx, int64_t n, const void *k)
{ (void)self; (void)ctx; (void)n; (void)k; return NVE_SUCCESS; }
static const char *t_err(void *self) { (void)self; return ""; }

/* Positional initialisation, as upstream's plugin guide writes it. */
static const nve_ext_table_ops_t kOps = {sizeof(nve_ext_table_ops_t), t_destroy, t_loc, t_dev,
                                         t_i64, t_i64, t_i64, t_dtype, t_i64, t_reset, t_get,
                                         t_find, t_ins, t_ins, t_acc, t_erase, t_reset, t_err};

static nve_status_t f_produce(void *self, int64_t id, const char *json, nve_ext_table_t *out)
{
  (void)self; (void)id; (void)json;
  out->self = (void *)&kOps;
  out->ops = &kOps;
  return NVE_SUCCESS;
}

static const nve_ext_table_factory_ops_t kFactoryOps = {
    .struct_size = sizeof(nve_ext_table_factory_ops_t),
    .destroy = t_destroy, .produce = f_produce, .last_error = t_err};

nve_status_t nve_plugin_create_external_factory(const char *json, nve_ext_table_factory_t *out,
                                                const char **out_error)
{
  (void)json;
  out->self = (void *)&kFactoryOps;
  out->ops = &kFactoryOps;
  *out_error = NULL;
  const nve_ext_nve_services_t *svc = nve_plugin_nve_services();
  if (NVE_ABI_HAS_FIELD(svc, nve_ext_nve_services_t, get_scratch) && svc->get_scratch == NULL)
    return NVE_ERROR_RUNTIME;
  nve_key_type_t k = NVE_KEY_INT64;
  (void)k;
  return NVE_SUCCESS;
}

_Static_assert(NVE_PLUGIN_ABI_VERSION_MAJOR == 1u && NVE_PLUGIN_ABI_VERSION_MINOR == 0u, "1.0");
_Static_assert(NVE_ERROR_OUT_OF_MEMORY == 5 && NVE_DTYPE_QUINT8_ROWWISE_F16 == 10, "values");
