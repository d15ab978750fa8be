/* SPDX-License-Identifier: Apache-2.0 */
/* The three kinds of SKIP and what each means for the exit code: a rule
 * that does not apply is excused, a rule blocked by a failed rule leaves
 * the verdict to that rule, and a MUST rule nothing tested (untested, or
 * blocked by a refused config) makes the run incomplete (exit 3) unless a
 * waiver names it. The derivation of a case's records into those kinds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_child.h"
#include "runner.h"
#include "case_table.h"
#include "evidence.h"
#include "gate.h"
#include "report.h"
#include "rules.h"
#include "verdict.h"

static const nc_rule_info *rule(nc_rule r) { return &nc_rule_defs[r].info; }

/* A report of two MUST rules that passed and one result to vary. */
static nc_report *report_with(nc_rule varied)
{
  nc_report *r = nc_report_new();
  assert_non_null(r);
  const nc_rule rules[] = {NC_RULE_SYM_01, NC_RULE_SYM_03, varied};
  for (size_t i = 0; i < 3; i++) {
    nc_result *res = nc_report_add(r, rule(rules[i]));
    assert_non_null(res);
    res->verdict = NC_VERDICT_PASS;
  }
  return r;
}

static void test_not_applicable_is_excused(void **state)
{
  (void)state;
  nc_report *r = report_with(NC_RULE_DEV_07);
  nc_result_set_skip(&r->results[2], NC_SKIP_NOT_APPLICABLE, "a HOST table");
  assert_false(nc_result_untested(&r->results[2]));
  assert_string_equal(nc_result_label(&r->results[2]), "N/A");
  assert_int_equal(nc_report_exit_code(r), NC_EXIT_PASS);
  assert_int_equal(nc_report_count_skips(r, NC_SKIP_NOT_APPLICABLE), 1);
  nc_report_free(r);
}

static void test_untested_must_is_incomplete(void **state)
{
  (void)state;
  nc_report *r = report_with(NC_RULE_ERR_04);
  nc_result_set_skip(&r->results[2], NC_SKIP_UNTESTED, "inconclusive: %d calls tried", 5);
  assert_true(nc_result_untested(&r->results[2]));
  assert_string_equal(nc_result_label(&r->results[2]), "UNTESTED");
  assert_string_equal(r->results[2].reason, "inconclusive: 5 calls tried");
  assert_int_equal(nc_report_exit_code(r), NC_EXIT_INCOMPLETE);
  assert_int_equal(nc_report_count_untested(r), 1);
  nc_report_free(r);
}

static void test_untested_should_leaves_the_exit_code(void **state)
{
  (void)state;
  nc_report *r = report_with(NC_RULE_TBL_12); /* a SHOULD rule */
  assert_int_equal(r->results[2].rule->severity, NC_SHOULD);
  nc_result_set_skip(&r->results[2], NC_SKIP_UNTESTED, "not under valgrind");
  assert_true(nc_result_untested(&r->results[2]));
  assert_int_equal(nc_report_exit_code(r), NC_EXIT_PASS);
  nc_report_free(r);
}

static void test_a_failure_outranks_incomplete(void **state)
{
  (void)state;
  nc_report *r = report_with(NC_RULE_ERR_04);
  nc_result_set_skip(&r->results[2], NC_SKIP_UNTESTED, "inconclusive");
  r->results[0].verdict = NC_VERDICT_FAIL;
  assert_int_equal(nc_report_exit_code(r), NC_EXIT_FAIL);
  nc_report_free(r);
}

static void test_blocked_by_a_rule_is_not_untested(void **state)
{
  (void)state;
  nc_report *r = report_with(NC_RULE_TBL_06);
  r->results[0].verdict = NC_VERDICT_FAIL;
  nc_result_set_blocked(&r->results[2], rule(NC_RULE_SYM_01), "no author");
  assert_false(nc_result_untested(&r->results[2]));
  assert_string_equal(nc_result_label(&r->results[2]), "BLOCKED");
  nc_report_free(r);
}

static void test_blocked_by_the_refusal_is_untested(void **state)
{
  (void)state;
  nc_report *r = report_with(NC_RULE_TBL_02);
  nc_result_set_refused(&r->results[2], "produce with config {}: status 1 (no)");
  assert_true(nc_result_untested(&r->results[2]));
  assert_string_equal(nc_result_label(&r->results[2]), "BLOCKED");
  assert_string_equal(r->results[2].reason,
                      "blocked by the refused config: produce with config {}: status 1 (no)");
  /* A refusal no rule owns stays a block (never an ERROR) and names the
   * run's root cause. */
  nc_settle_unowned_blocks(r);
  assert_int_equal(r->results[2].verdict, NC_VERDICT_SKIP);
  nc_find_refusal(r);
  assert_non_null(r->refusal);
  assert_string_equal(r->refusal, "produce with config {}: status 1 (no)");
  assert_int_equal(nc_report_exit_code(r), NC_EXIT_INCOMPLETE);
  nc_report_free(r);
}

/* Waivers: only one that names an untested rule (not a glob) excuses it. */
static int waive(nc_report *r, const char *rules_json)
{
  char path[] = "/tmp/test_skip_kinds_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  char text[300];
  int len = snprintf(text, sizeof(text),
                     "[{\"rules\": %s, \"reason\": \"no GPU in CI\", \"expires\": \"2999-01-01\"}]",
                     rules_json);
  assert_int_equal(write(fd, text, (size_t)len), len);
  close(fd);
  nc_waivers w;
  char err[300];
  int rc = nc_waivers_load(path, &w, err, sizeof(err));
  unlink(path);
  assert_int_equal(rc, 0);
  nc_waivers_apply(&w, r);
  nc_waivers_free(&w);
  return nc_report_exit_code(r);
}

static void test_a_waiver_naming_an_untested_rule_excuses_it(void **state)
{
  (void)state;
  nc_report *r = report_with(NC_RULE_ERR_04);
  nc_result_set_skip(&r->results[2], NC_SKIP_UNTESTED, "inconclusive");
  char names[64];
  snprintf(names, sizeof(names), "[\"%s\"]", rule(NC_RULE_ERR_04)->id);
  assert_int_equal(waive(r, names), NC_EXIT_PASS);
  assert_int_equal(r->results[2].verdict, NC_VERDICT_WAIVED);
  assert_string_equal(nc_waived_from_label(&r->results[2]), "UNTESTED");
  nc_report_free(r);
}

static void test_a_glob_does_not_excuse_an_untested_rule(void **state)
{
  (void)state;
  nc_report *r = report_with(NC_RULE_ERR_04);
  nc_result_set_skip(&r->results[2], NC_SKIP_UNTESTED, "inconclusive");
  assert_int_equal(waive(r, "[\"ERR-*\"]"), NC_EXIT_INCOMPLETE);
  assert_int_equal(r->results[2].verdict, NC_VERDICT_SKIP);
  nc_report_free(r);
}

/* ---- records into kinds ------------------------------------------------------- */

static nc_record rec(const char *tag, size_t n, const char *a, const char *b, const char *c,
                     const char *d)
{
  nc_record x;
  memset(&x, 0, sizeof(x));
  x.tag = (char *)tag;
  x.nfields = n;
  const char *f[] = {a, b, c, d};
  for (size_t i = 0; i < n && i < 4; i++)
    x.fields[i] = (char *)f[i];
  return x;
}

/* What a case that recorded these and settled derives to. */
static void derive(nc_result *res, nc_record *records, size_t n)
{
  static nc_config cfg;
  nc_child_result cr;
  memset(&cr, 0, sizeof(cr));
  cr.records = records;
  cr.nrecords = n;
  cr.ended = 1;
  memset(res, 0, sizeof(*res));
  res->rule = rule(NC_RULE_ERR_04);
  nc_derive_result(res, &cr, &cfg);
}

static void test_skip_records_carry_their_kind(void **state)
{
  (void)state;
  nc_result res;
  nc_record na[] = {rec("SKIP", 2, "a HOST table", NC_SKIP_WORD_NA, NULL, NULL),
                    rec("SETTLED", 0, NULL, NULL, NULL, NULL)};
  derive(&res, na, 2);
  assert_int_equal(res.skip, NC_SKIP_NOT_APPLICABLE);
  nc_result_release(&res);
  nc_record untested[] = {rec("SKIP", 2, "one device", NC_SKIP_WORD_UNTESTED, NULL, NULL),
                          rec("SETTLED", 0, NULL, NULL, NULL, NULL)};
  derive(&res, untested, 2);
  assert_int_equal(res.verdict, NC_VERDICT_SKIP);
  assert_int_equal(res.skip, NC_SKIP_UNTESTED);
  nc_result_release(&res);
  /* A record of unknown kind is no excuse. */
  nc_record odd[] = {rec("SKIP", 1, "why not", NULL, NULL, NULL),
                     rec("SETTLED", 0, NULL, NULL, NULL, NULL)};
  derive(&res, odd, 2);
  assert_int_equal(res.skip, NC_SKIP_UNTESTED);
  nc_result_release(&res);
}

static void test_a_refusal_is_a_block_unless_the_case_judged(void **state)
{
  (void)state;
  nc_result res;
  nc_record refused[] = {rec(NC_TAG_REFUSED, 4, "produce", "{\"x\":1}", "3", "no tables"),
                         rec("SETTLED", 0, NULL, NULL, NULL, NULL)};
  derive(&res, refused, 2);
  assert_int_equal(res.verdict, NC_VERDICT_SKIP);
  assert_int_equal(res.skip, NC_SKIP_BLOCKED);
  assert_true(res.refused);
  assert_null(res.blocked_by);
  assert_string_equal(res.blocked_why, "produce with config {\"x\":1}: status 3 (no tables)");
  nc_result_release(&res);
  /* A failure of its own, seen on other calls, is the verdict. */
  nc_record failed[] = {rec(NC_TAG_REFUSED, 4, "produce", "{}", "3", "no tables"),
                        rec("CHECK", 4, NC_LEVEL_FAIL, "last_error", "a message", "\"\""),
                        rec("SETTLED", 0, NULL, NULL, NULL, NULL)};
  derive(&res, failed, 3);
  assert_int_equal(res.verdict, NC_VERDICT_FAIL);
  assert_false(res.refused);
  nc_result_release(&res);
}

/* A case's own failure is its first evidence line and its reason, before
 * the failures other rules own. */
static void test_own_failures_come_first(void **state)
{
  (void)state;
  nc_result res;
  nc_record mixed[] = {
      rec("CHECK", 4, NC_LEVEL_FAIL, "find (n=100)", "NVE_SUCCESS", "status 3"),
      rec("CHECK", 4, NC_LEVEL_FAIL, "update_accumulate (dtype 0)", "a failure", "NVE_SUCCESS"),
      rec("SETTLED", 0, NULL, NULL, NULL, NULL)};
  mixed[0].fields[4] = (char *)rule(NC_RULE_TBL_02)->id; /* owned by TBL-02 */
  mixed[0].nfields = 5;
  derive(&res, mixed, 3);
  assert_int_equal(res.verdict, NC_VERDICT_FAIL);
  assert_int_equal(res.nevidence, 2);
  assert_string_equal(res.evidence[0].call, "update_accumulate (dtype 0)");
  assert_string_equal(res.reason, "update_accumulate (dtype 0): NVE_SUCCESS (expected a failure)");
  nc_result_release(&res);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_not_applicable_is_excused),
      cmocka_unit_test(test_untested_must_is_incomplete),
      cmocka_unit_test(test_untested_should_leaves_the_exit_code),
      cmocka_unit_test(test_a_failure_outranks_incomplete),
      cmocka_unit_test(test_blocked_by_a_rule_is_not_untested),
      cmocka_unit_test(test_blocked_by_the_refusal_is_untested),
      cmocka_unit_test(test_a_waiver_naming_an_untested_rule_excuses_it),
      cmocka_unit_test(test_a_glob_does_not_excuse_an_untested_rule),
      cmocka_unit_test(test_skip_records_carry_their_kind),
      cmocka_unit_test(test_a_refusal_is_a_block_unless_the_case_judged),
      cmocka_unit_test(test_own_failures_come_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
