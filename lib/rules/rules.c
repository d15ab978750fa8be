/* SPDX-License-Identifier: Apache-2.0 */
#include "rules.h"

#include <string.h>

#define NC_RULE(fam, num, sev, waivable, applies, stage, title, clause, ...) \
  {{#fam "-" #num, #fam, sev, title, clause}, waivable, applies, stage, {__VA_ARGS__}},
const nc_rule_def nc_rule_defs[NC_RULE_COUNT] = {
#include "rules.def"
};
#undef NC_RULE

#define NC_RULE(...)
#define NC_FAMILY(fam, title, intro) {#fam, title, intro},
const nc_family_def nc_family_defs[] = {
#include "rules.def"
};
#undef NC_RULE
const size_t nc_family_count = sizeof(nc_family_defs) / sizeof(nc_family_defs[0]);

#define CONTRACT_PREFIX "doc/contract.md#"

const char *nc_rule_anchor(nc_rule rule)
{
  if ((int)rule < 0 || rule >= NC_RULE_COUNT)
    return NULL;
  const char *clause = nc_rule_defs[rule].info.clause;
  if (strncmp(clause, CONTRACT_PREFIX, strlen(CONTRACT_PREFIX)) != 0)
    return NULL;
  return clause + strlen(CONTRACT_PREFIX);
}

const char *nc_rule_text(nc_rule rule)
{
  return (int)rule >= 0 && rule < NC_RULE_COUNT ? nc_rule_defs[rule].info.id : NULL;
}

int nc_rule_parse(const char *id)
{
  for (int i = 0; id && i < NC_RULE_COUNT; i++)
    if (strcmp(nc_rule_defs[i].info.id, id) == 0)
      return i;
  return -1;
}

size_t nc_rule_count(void) { return NC_RULE_COUNT; }

const nc_rule_info *nc_rule_at(size_t i) { return i < NC_RULE_COUNT ? &nc_rule_defs[i].info : NULL; }

const nc_rule_info *nc_rule_find(const char *id)
{
  int r = nc_rule_parse(id);
  return r < 0 ? NULL : &nc_rule_defs[r].info;
}

#define NC_SWEPT_ROW(name, action, fam, num) {name, NC_RULE_##fam##_##num},
const nc_swept_op nc_swept_ops[] = {NC_SWEPT_OPS(NC_SWEPT_ROW)};
#undef NC_SWEPT_ROW
const size_t nc_swept_op_count = sizeof(nc_swept_ops) / sizeof(nc_swept_ops[0]);

int nc_rule_slow_rank(nc_rule rule)
{
#define NC_SLOW_ROW(fam, num) NC_RULE_##fam##_##num,
  static const nc_rule slow[] = {NC_SLOW_RULES(NC_SLOW_ROW)};
#undef NC_SLOW_ROW
  for (size_t i = 0; i < sizeof(slow) / sizeof(slow[0]); i++)
    if (slow[i] == rule)
      return (int)i;
  return NC_RULE_COUNT;
}
