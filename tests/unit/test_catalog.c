/* SPDX-License-Identifier: Apache-2.0 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "catalog.h"

/* IDs are unique, well-formed, and name their family. */
static void test_ids_are_unique_and_well_formed(void **state)
{
  (void)state;
  assert_true(nc_rule_count() > 0);
  for (size_t i = 0; i < nc_case_count; i++) {
    const nc_case_def *d = &nc_case_table[i];
    assert_int_equal(strlen(d->info.id), 6);
    assert_int_equal(strncmp(d->info.id, d->info.family, 3), 0);
    assert_non_null(d->fn);
    assert_true(strlen(d->info.title) > 10);
    assert_true(strlen(d->info.clause) > 5);
    for (size_t k = i + 1; k < nc_case_count; k++)
      assert_string_not_equal(d->info.id, nc_case_table[k].info.id);
  }
}

static void test_lookup(void **state)
{
  (void)state;
  assert_non_null(nc_rule_find("SYM-01"));
  assert_null(nc_rule_find("SYM-99"));
  assert_ptr_equal(nc_rule_at(0), &nc_case_table[0].info);
  assert_null(nc_rule_at(nc_rule_count()));
  assert_non_null(nc_case_lookup(NC_PROBE_RULE));
}

/* The load probe must be a static-stage case: it opens the plugin itself. */
static void test_probe_is_file_stage(void **state)
{
  (void)state;
  assert_int_equal(nc_case_lookup(NC_PROBE_RULE)->stage, NC_STAGE_FILE);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ids_are_unique_and_well_formed),
      cmocka_unit_test(test_lookup),
      cmocka_unit_test(test_probe_is_file_stage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
