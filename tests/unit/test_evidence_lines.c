/* SPDX-License-Identifier: Apache-2.0 */
/* What the text, HTML and JUnit reports show of a result's evidence:
 * identical items folded with a count, notes only on request, at most
 * NC_EVIDENCE_SHOWN lines and the count of what did not fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "rules.h"

static nc_result *fresh(nc_report **r)
{
  *r = nc_report_new();
  assert_non_null(*r);
  nc_result *res = nc_report_add(*r, &nc_rule_defs[NC_RULE_TBL_04].info);
  assert_non_null(res);
  return res;
}

static void add(nc_result *res, const char *level, int which)
{
  char observed[32];
  snprintf(observed, sizeof(observed), "byte %d changed", which);
  nc_result_add_evidence(res, level, "find", "untouched", observed);
}

static void test_identical_items_fold(void **state)
{
  (void)state;
  nc_report *r;
  nc_result *res = fresh(&r);
  for (int i = 0; i < 5; i++)
    add(res, "fail", 1);
  add(res, "fail", 2);
  add(res, "fail", 1);
  nc_evidence_line lines[NC_EVIDENCE_SHOWN];
  size_t more, n = nc_evidence_lines(res, 0, lines, &more);
  assert_int_equal(n, 2);
  assert_int_equal(more, 0);
  assert_int_equal(lines[0].times, 6);
  assert_string_equal(lines[1].e->observed, "byte 2 changed");
  assert_int_equal(lines[1].times, 1);
  nc_report_free(r);
}

static void test_notes_only_on_request(void **state)
{
  (void)state;
  nc_report *r;
  nc_result *res = fresh(&r);
  add(res, "note", 1);
  add(res, "fail", 1); /* not the same item: another level */
  nc_evidence_line lines[NC_EVIDENCE_SHOWN];
  size_t more;
  assert_int_equal(nc_evidence_lines(res, 0, lines, &more), 1);
  assert_string_equal(lines[0].e->level, "fail");
  assert_int_equal(nc_evidence_lines(res, 1, lines, &more), 2);
  nc_report_free(r);
}

/* A flood: thousands of distinct items give 20 lines and the rest counted;
 * repeats of a shown line still fold into it. */
static void test_cap(void **state)
{
  (void)state;
  nc_report *r;
  nc_result *res = fresh(&r);
  for (int i = 0; i < 5000; i++)
    add(res, "fail", i);
  add(res, "fail", 0);
  nc_evidence_line lines[NC_EVIDENCE_SHOWN];
  size_t more, n = nc_evidence_lines(res, 1, lines, &more);
  assert_int_equal(n, NC_EVIDENCE_SHOWN);
  assert_int_equal(more, 5000 - NC_EVIDENCE_SHOWN);
  assert_int_equal(lines[0].times, 2);
  assert_string_equal(lines[NC_EVIDENCE_SHOWN - 1].e->observed, "byte 19 changed");
  nc_report_free(r);
}

/* A kind that comes after a flood of another still gets its line, in the
 * order the items came. */
static void test_every_kind_shows(void **state)
{
  (void)state;
  nc_report *r;
  nc_result *res = fresh(&r);
  for (int i = 0; i < 100; i++)
    add(res, "fail", i);
  nc_result_add_evidence(res, "fail", "update_accumulate (n=5, dtype 11)", "a failure status",
                         "NVE_SUCCESS");
  nc_result_add_evidence(res, "fail", "find (n=7)", "nothing written past the end", "byte 3");
  nc_evidence_line lines[NC_EVIDENCE_SHOWN];
  size_t more, n = nc_evidence_lines(res, 1, lines, &more);
  assert_int_equal(n, NC_EVIDENCE_SHOWN);
  assert_int_equal(more, 100 - (NC_EVIDENCE_SHOWN - 2));
  assert_string_equal(lines[0].e->observed, "byte 0 changed");
  assert_string_equal(lines[NC_EVIDENCE_SHOWN - 2].e->call, "update_accumulate (n=5, dtype 11)");
  assert_string_equal(lines[NC_EVIDENCE_SHOWN - 1].e->expected, "nothing written past the end");
  nc_report_free(r);
}

static void test_no_evidence(void **state)
{
  (void)state;
  nc_report *r;
  nc_result *res = fresh(&r);
  nc_evidence_line lines[NC_EVIDENCE_SHOWN];
  size_t more = 7;
  assert_int_equal(nc_evidence_lines(res, 1, lines, &more), 0);
  assert_int_equal(more, 0);
  nc_report_free(r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identical_items_fold),
      cmocka_unit_test(test_notes_only_on_request),
      cmocka_unit_test(test_cap),
      cmocka_unit_test(test_every_kind_shows),
      cmocka_unit_test(test_no_evidence),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
