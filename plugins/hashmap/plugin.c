/* SPDX-License-Identifier: Apache-2.0 */
/* The exported face of the reference host plugin. */
#include "hashmap.h"

NVE_DEFINE_EXTERNAL_PLUGIN("nve-conform reference hashmap", "nve-conform authors")

NVE_C_API nve_status_t nve_plugin_create_external_factory(const char *json_config,
                                                          nve_ext_table_factory_t *out_factory,
                                                          const char **out_error)
{
  return hm_create_factory(json_config, out_factory, out_error);
}
