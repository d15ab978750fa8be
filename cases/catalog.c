/* SPDX-License-Identifier: Apache-2.0 */
#include "catalog.h"

#include <string.h>

#define NC_CASE_ROW(id, family, sev, applies, stage, fn, title, clause) \
  {{id, #family, sev, title, clause}, applies, stage, fn},

const nc_case_def nc_case_table[] = {NC_CASES(NC_CASE_ROW)};
const size_t nc_case_count = sizeof(nc_case_table) / sizeof(nc_case_table[0]);

const nc_case_def *nc_case_lookup(const char *id)
{
  for (size_t i = 0; i < nc_case_count; i++)
    if (strcmp(nc_case_table[i].info.id, id) == 0)
      return &nc_case_table[i];
  return NULL;
}

size_t nc_rule_count(void) { return nc_case_count; }

const nc_rule_info *nc_rule_at(size_t i) { return i < nc_case_count ? &nc_case_table[i].info : NULL; }

const nc_rule_info *nc_rule_find(const char *id)
{
  const nc_case_def *d = nc_case_lookup(id);
  return d ? &d->info : NULL;
}
