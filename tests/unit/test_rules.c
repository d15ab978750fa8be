/* SPDX-License-Identifier: Apache-2.0 */
/* The rule table: IDs unique and well formed, every rule with its case,
 * lookups both ways, the waivable flags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "case_table.h"
#include "rules.h"

static void test_ids_are_unique_and_well_formed(void **state)
{
  (void)state;
  assert_int_equal(nc_rule_count(), NC_RULE_COUNT);
  for (int i = 0; i < NC_RULE_COUNT; i++) {
    const nc_rule_info *info = &nc_rule_defs[i].info;
    assert_int_equal(strlen(info->id), 6);
    assert_int_equal(info->id[3], '-');
    assert_int_equal(strncmp(info->id, info->family, 3), 0);
    assert_non_null(nc_case_fns[i]);
    assert_true(strlen(info->title) > 10);
    assert_true(strlen(info->clause) > 5);
    for (int k = i + 1; k < NC_RULE_COUNT; k++)
      assert_string_not_equal(info->id, nc_rule_defs[k].info.id);
  }
}

static void test_lookups(void **state)
{
  (void)state;
  assert_int_equal(nc_rule_parse("SYM-01"), NC_RULE_SYM_01);
  assert_string_equal(nc_rule_text(NC_RULE_TBL_11), "TBL-11");
  assert_int_equal(nc_rule_parse("SYM-99"), -1);
  assert_int_equal(nc_rule_parse(NULL), -1);
  assert_null(nc_rule_text((nc_rule)-1));
  assert_null(nc_rule_text(NC_RULE_COUNT));
  assert_non_null(nc_rule_find("SYM-01"));
  assert_null(nc_rule_find("SYM-99"));
  assert_ptr_equal(nc_rule_at(0), &nc_rule_defs[0].info);
  assert_null(nc_rule_at(nc_rule_count()));
}

/* The load probe must be a static-stage case: it opens the plugin itself. */
static void test_probe_is_file_stage(void **state)
{
  (void)state;
  assert_int_equal(nc_rule_defs[NC_PROBE_RULE].stage, NC_STAGE_FILE);
}

/* What a host cannot survive is not waivable; a SHOULD rule always is. */
static void test_waivable_flags(void **state)
{
  (void)state;
  assert_false(nc_rule_defs[NC_RULE_VER_01].waivable);
  assert_false(nc_rule_defs[NC_RULE_SVC_05].waivable);
  assert_true(nc_rule_defs[NC_RULE_TBL_11].waivable);
  for (int i = 0; i < NC_RULE_COUNT; i++)
    if (nc_rule_defs[i].info.severity == NC_SHOULD)
      assert_true(nc_rule_defs[i].waivable);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ids_are_unique_and_well_formed),
      cmocka_unit_test(test_lookups),
      cmocka_unit_test(test_probe_is_file_stage),
      cmocka_unit_test(test_waivable_flags),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
