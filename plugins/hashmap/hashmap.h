/* SPDX-License-Identifier: Apache-2.0 */
/* The reference host table: an open-addressing hash map of 4- or 8-byte
 * keys to rows of up to max_row_size bytes (float32 elements), in host
 * memory. It keeps the whole contract and serves as the conforming baseline
 * that fixtures break one rule at a time. */
#ifndef HM_HASHMAP_H
#define HM_HASHMAP_H

#include <plugin/nve_external_plugin.h>

#define HM_HIDDEN __attribute__((visibility("hidden")))

#ifdef __cplusplus
extern "C" {
#endif

/* The creation entry point behind nve_plugin_create_external_factory. */
HM_HIDDEN nve_status_t hm_create_factory(const char *json_config, nve_ext_table_factory_t *out,
                                         const char **out_error);

/* Thread-local error text shared by tables and factories. */
HM_HIDDEN nve_status_t hm_set_error(nve_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
HM_HIDDEN const char *hm_last_error(void);

/* Produces a table from a table config (used by the factory). */
HM_HIDDEN nve_status_t hm_table_create(const char *json_config, nve_ext_table_t *out);

#ifdef __cplusplus
}
#endif

#endif
