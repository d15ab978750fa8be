// SPDX-License-Identifier: Apache-2.0
// The ABI headers compiled as C++: the same static asserts, the authoring
// macro with std::atomic, and value-initialised structs (C++ before 20 has
// no designated initialisers).
#include <nve_c_api.h>
#include <plugin/nve_external_plugin.h>

NVE_DEFINE_EXTERNAL_PLUGIN("header test (C++)", "nve-conform authors")

extern "C" NVE_C_API nve_status_t nve_plugin_create_external_factory(
    const char *json, nve_ext_table_factory_t *out, const char **out_error)
{
  (void)json;
  nve_ext_table_factory_ops_t ops{};
  ops.struct_size = sizeof(ops);
  static_assert(sizeof(ops) == 32, "factory ops");
  const nve_ext_nve_services_t *svc = nve_plugin_nve_services();
  if (NVE_ABI_HAS_FIELD(svc, nve_ext_nve_services_t, last_error) && !svc->last_error)
    return NVE_ERROR_RUNTIME;
  out->self = nullptr;
  out->ops = nullptr;
  *out_error = nullptr;
  return NVE_ERROR_NOT_IMPLEMENTED;
}
