/* SPDX-License-Identifier: Apache-2.0 */
/* The text report's coverage section: a line per swept op whose rule was
 * selected, with the classes covered per dimension (run here, or in the
 * rule's case that makes them), the rules whose cases made the rest, what
 * ran nowhere grouped by why, a PASS on part of the space said as such,
 * and an op whose case made no sweep listed as not run, with why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "rules.h"

static const nc_rule_info *rule(nc_rule r) { return &nc_rule_defs[r].info; }

/* The section as a string (the caller frees it). */
static char *printed(const nc_report *r)
{
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  assert_non_null(out);
  nc_report_print_coverage(r, out);
  fclose(out);
  return text;
}

static void add_batches(nc_result *res, const char *op, int ran, int elsewhere, int capped)
{
  static const char *const n[] = {"0", "1", "4096", "4133"};
  for (int i = 0; i < 4; i++) {
    nc_cover_state s = i == 0 && elsewhere ? NC_COVER_ELSEWHERE
                       : i >= 2 && capped  ? NC_COVER_NOT_RUN
                       : ran               ? NC_COVER_RAN
                                           : NC_COVER_NOT_RUN;
    const char *why = s == NC_COVER_ELSEWHERE ? "n == 0 is its case's"
                      : s == NC_COVER_NOT_RUN ? "rows allow 2044 keys"
                                              : NULL;
    nc_result_add_cover(res, op, "batch", n[i], s, why,
                        s == NC_COVER_ELSEWHERE ? rule(NC_RULE_TBL_10) : NULL);
  }
  nc_result_add_cover(res, op, "thread", "another thread", NC_COVER_RAN, NULL, NULL);
}

static void test_nothing_without_sweeps(void **state)
{
  (void)state;
  nc_report *r = nc_report_new();
  nc_report_add(r, rule(NC_RULE_SYM_01))->verdict = NC_VERDICT_PASS;
  char *text = printed(r);
  assert_string_equal(text, "");
  free(text);
  nc_report_free(r);
}

static void test_full_coverage_names_other_cases(void **state)
{
  (void)state;
  nc_report *r = nc_report_new();
  nc_result *res = nc_report_add(r, rule(NC_RULE_TBL_02));
  res->verdict = NC_VERDICT_PASS;
  add_batches(res, "insert", 1, 1, 0);
  char *text = printed(r);
  /* The class run in TBL-10's case counts as covered, and says where. */
  assert_non_null(strstr(text, "insert            TBL-02 PASS     batch 4/4, thread 1/1; also in "
                               "TBL-10\n"));
  assert_null(strstr(text, "not run"));
  assert_null(strstr(text, "part of the space"));
  free(text);
  nc_report_free(r);
}

static void test_own_case_is_not_elsewhere(void **state)
{
  (void)state;
  nc_report *r = nc_report_new();
  nc_result *res = nc_report_add(r, rule(NC_RULE_TBL_07));
  res->verdict = NC_VERDICT_PASS;
  nc_result_add_cover(res, "update_accumulate", "batch", "1", NC_COVER_RAN, NULL, NULL);
  nc_result_add_cover(res, "update_accumulate", "update dtype", "bfloat16", NC_COVER_ELSEWHERE,
                      "its case's", rule(NC_RULE_TBL_07));
  char *text = printed(r);
  /* Made by the sweeping rule's own case: covered, and no "also in" itself. */
  assert_non_null(strstr(text, "update_accumulate TBL-07 PASS     batch 1/1, update dtype 1/1\n"));
  free(text);
  nc_report_free(r);
}

static void test_thin_pass_says_so(void **state)
{
  (void)state;
  nc_report *r = nc_report_new();
  nc_result *res = nc_report_add(r, rule(NC_RULE_TBL_08));
  res->verdict = NC_VERDICT_PASS;
  add_batches(res, "erase", 1, 1, 1);
  char *text = printed(r);
  /* The capped classes together, with their one reason. */
  assert_non_null(strstr(text, "; not run: batch 4096, 4133 (rows allow 2044 keys) -- a PASS on "
                               "part of the space\n"));
  free(text);
  /* A FAIL is not called a partial PASS. */
  res->verdict = NC_VERDICT_FAIL;
  text = printed(r);
  assert_null(strstr(text, "part of the space"));
  free(text);
  nc_report_free(r);
}

static void test_op_that_never_ran(void **state)
{
  (void)state;
  nc_report *r = nc_report_new();
  nc_result *res = nc_report_add(r, rule(NC_RULE_TBL_07));
  res->verdict = NC_VERDICT_PASS;
  nc_result_add_cover(res, "update_accumulate", "batch", "1", NC_COVER_NOT_RUN, "no size fits",
                      NULL);
  nc_result_add_cover(res, "update_accumulate", "stride", "the row", NC_COVER_NOT_RUN,
                      "no size fits", NULL);
  char *text = printed(r);
  assert_non_null(strstr(text, "update_accumulate TBL-07 PASS     not run: no size fits"));
  assert_null(strstr(text, "batch 0/1")); /* no counts for an op that never ran */
  free(text);
  nc_report_free(r);
}

static void test_an_op_without_a_sweep_is_listed(void **state)
{
  (void)state;
  nc_report *r = nc_report_new();
  nc_result *res = nc_report_add(r, rule(NC_RULE_TBL_02));
  res->verdict = NC_VERDICT_FAIL;
  add_batches(res, "insert", 1, 0, 0);
  nc_result *blocked = nc_report_add(r, rule(NC_RULE_TBL_06));
  nc_result_set_blocked(blocked, rule(NC_RULE_TBL_02), "insert failed");
  char *text = printed(r);
  assert_non_null(strstr(text, "  insert            TBL-02 FAIL     batch"));
  char want[160];
  snprintf(want, sizeof(want), "  update            TBL-06 BLOCKED  not run: blocked by %s: "
           "insert failed\n", rule(NC_RULE_TBL_02)->id);
  assert_non_null(strstr(text, want));
  /* TBL-07 and TBL-08 were not selected: no line for their ops. */
  assert_null(strstr(text, "update_accumulate"));
  assert_null(strstr(text, "erase"));
  assert_string_equal(nc_cover_state_name(NC_COVER_ELSEWHERE), "elsewhere");
  free(text);
  nc_report_free(r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nothing_without_sweeps),
      cmocka_unit_test(test_full_coverage_names_other_cases),
      cmocka_unit_test(test_own_case_is_not_elsewhere),
      cmocka_unit_test(test_thin_pass_says_so),
      cmocka_unit_test(test_op_that_never_ran),
      cmocka_unit_test(test_an_op_without_a_sweep_is_listed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
