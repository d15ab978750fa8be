/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin/nve_plugin_common.h: what every NVE plugin exports, whatever its
 * mode -- the ABI version it was built against, its name and author, and
 * the mode that selects its creation symbol.
 */
#ifndef NVE_PLUGIN_COMMON_H
#define NVE_PLUGIN_COMMON_H

#include <stdint.h>

#include <nve_c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NVE_PLUGIN_ABI_VERSION_MAJOR 1u
#define NVE_PLUGIN_ABI_VERSION_MINOR 0u

typedef int32_t nve_plugin_mode_t;
enum {
  NVE_PLUGIN_MODE_INTERNAL = 0, /* C++ ABI: same toolchain as the host */
  NVE_PLUGIN_MODE_EXTERNAL = 1, /* pure-C ABI: any toolchain */
  /* other values are reserved */
};

NVE_C_API uint32_t nve_plugin_abi_version_major(void);
NVE_C_API uint32_t nve_plugin_abi_version_minor(void);
NVE_C_API const char* nve_plugin_name(void);
NVE_C_API const char* nve_plugin_author(void);
NVE_C_API nve_plugin_mode_t nve_plugin_mode(void);

#ifdef __cplusplus
} /* extern "C" */
static_assert(sizeof(nve_plugin_mode_t) == 4, "nve_plugin_mode_t is 32 bits");
#else
_Static_assert(sizeof(nve_plugin_mode_t) == 4, "nve_plugin_mode_t is 32 bits");
#endif

#endif /* NVE_PLUGIN_COMMON_H */
