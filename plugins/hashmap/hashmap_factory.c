/* SPDX-License-Identifier: Apache-2.0 */
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "json_config.h"

typedef struct hm_factory {
  int64_t tables_made;
} hm_factory;

static void factory_destroy(void *self) { free(self); }

static nve_status_t factory_produce(void *self, int64_t table_id, const char *json_config,
                                    nve_ext_table_t *out_table)
{
  (void)table_id;
  if (!out_table)
    return hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "produce: out_table is NULL");
  memset(out_table, 0, sizeof(*out_table));
  nve_status_t s = hm_table_create(json_config, out_table);
  if (s == NVE_SUCCESS)
    ((hm_factory *)self)->tables_made++;
  return s;
}

static const char *factory_last_error(void *self)
{
  (void)self;
  return hm_last_error();
}

static const nve_ext_table_factory_ops_t factory_ops = {
    sizeof(nve_ext_table_factory_ops_t), factory_destroy, factory_produce, factory_last_error};

nve_status_t hm_create_factory(const char *json_config, nve_ext_table_factory_t *out,
                               const char **out_error)
{
  if (!out || !out_error) {
    if (out_error)
      *out_error = hm_last_error();
    if (out)
      memset(out, 0, sizeof(*out));
    hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "create: out_factory or out_error is NULL");
    return NVE_ERROR_INVALID_ARGUMENT;
  }
  memset(out, 0, sizeof(*out));
  *out_error = NULL;
  static const char *const no_keys[] = {NULL};
  char err[256];
  if (hm_json_read_ints(json_config, no_keys, NULL, err, sizeof(err)) != 0) {
    hm_set_error(NVE_ERROR_INVALID_ARGUMENT, "factory config: %s", err);
    *out_error = hm_last_error();
    return NVE_ERROR_INVALID_ARGUMENT;
  }
  hm_factory *f = calloc(1, sizeof(*f));
  if (!f) {
    hm_set_error(NVE_ERROR_OUT_OF_MEMORY, "create: out of memory");
    *out_error = hm_last_error();
    return NVE_ERROR_OUT_OF_MEMORY;
  }
  out->self = f;
  out->ops = &factory_ops;
  return NVE_SUCCESS;
}
