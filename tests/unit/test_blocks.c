/* SPDX-License-Identifier: Apache-2.0 */
/* Blocks as data: a SKIP "blocked by" carries its owner in blocked_by, and
 * what becomes of it (kept, inconclusive, ERROR, or a failure charged to
 * its owner) follows that field alone; a reason whose text names another
 * rule changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_table.h"
#include "record.h"
#include "runner.h"
#include "report.h"
#include "rules.h"
#include "verdict.h"

static const nc_rule_info *rule(nc_rule r) { return &nc_rule_defs[r].info; }

/* A report of the given rules, each with the given verdict. */
static nc_report *report_of(const nc_rule *rules, const nc_verdict *verdicts, size_t n)
{
  nc_report *r = nc_report_new();
  assert_non_null(r);
  for (size_t i = 0; i < n; i++) {
    nc_result *res = nc_report_add(r, rule(rules[i]));
    assert_non_null(res);
    res->verdict = verdicts[i];
    res->executed = 1;
  }
  return r;
}

/* res failed with one item of evidence, owned by owner (proven: by a
 * control); then the settling a run does, joining proven owners. */
static void owned_by(nc_result *res, nc_rule owner, int proven)
{
  nc_result_add_evidence(res, NC_LEVEL_FAIL, "find (key 7)", "row 7 as stored", "zeros");
  res->failure_owners[0] = rule(owner);
  res->nfailure_owners = 1;
  res->owner_proven = proven;
}

static void settle(nc_report *r, int (*could_run)(const nc_rule_info *, void *))
{
  nc_join_proven_owners(r, could_run, NULL);
  nc_attribute_blocks(r);
  nc_settle_unowned_blocks(r);
}

static void test_set_blocked_writes_the_reason_once(void **state)
{
  (void)state;
  nc_report *r = nc_report_new();
  nc_result *res = nc_report_add(r, rule(NC_RULE_TBL_06));
  res->verdict = NC_VERDICT_FAIL;
  nc_result_set_blocked(res, rule(NC_RULE_TBL_02), "find: row 3 wrong");
  assert_int_equal(res->verdict, NC_VERDICT_SKIP);
  assert_int_equal(res->skip, NC_SKIP_BLOCKED);
  assert_ptr_equal(res->blocked_by, rule(NC_RULE_TBL_02));
  assert_string_equal(res->blocked_why, "find: row 3 wrong");
  char want[128];
  snprintf(want, sizeof(want), "blocked by %s: find: row 3 wrong", rule(NC_RULE_TBL_02)->id);
  assert_string_equal(res->reason, want);

  nc_result_set_blocked(res, NULL, "loading the plugin timed out");
  assert_null(res->blocked_by);
  assert_string_equal(res->reason, "blocked: loading the plugin timed out");
  assert_string_equal(res->blocked_why, "loading the plugin timed out");
  nc_report_free(r);
}

/* TBL-06 blocked by TBL-02, settled after TBL-02 got owner_verdict. */
static nc_report *settled_block(nc_verdict owner_verdict)
{
  const nc_rule rules[] = {NC_RULE_TBL_02, NC_RULE_TBL_06};
  const nc_verdict v[] = {owner_verdict, NC_VERDICT_PASS};
  nc_report *r = report_of(rules, v, 2);
  nc_result_set_blocked(&r->results[1], rule(NC_RULE_TBL_02), "find: row 3 wrong");
  nc_settle_unowned_blocks(r);
  return r;
}

static void test_block_by_a_failed_rule_stays(void **state)
{
  (void)state;
  nc_report *r = settled_block(NC_VERDICT_FAIL);
  assert_int_equal(r->results[1].verdict, NC_VERDICT_SKIP);
  assert_ptr_equal(r->results[1].blocked_by, rule(NC_RULE_TBL_02));
  nc_report_free(r);
}

static void test_block_by_a_passed_rule_is_inconclusive(void **state)
{
  (void)state;
  nc_report *r = settled_block(NC_VERDICT_PASS);
  const nc_result *res = &r->results[1];
  assert_int_equal(res->verdict, NC_VERDICT_SKIP);
  assert_int_equal(res->skip, NC_SKIP_UNTESTED);
  assert_null(res->blocked_by);
  char want[160];
  snprintf(want, sizeof(want), "inconclusive: %s: find: row 3 wrong (%s passed in its own case)",
           rule(NC_RULE_TBL_02)->id, rule(NC_RULE_TBL_02)->id);
  assert_string_equal(res->reason, want);
  nc_report_free(r);
}

static void test_block_nobody_owns_is_an_error(void **state)
{
  (void)state;
  const nc_rule rules[] = {NC_RULE_TBL_06, NC_RULE_TBL_07};
  const nc_verdict v[] = {NC_VERDICT_PASS, NC_VERDICT_PASS};
  nc_report *r = report_of(rules, v, 2);
  nc_result_set_blocked(&r->results[0], NULL, "loading the plugin timed out");
  /* the owner was not selected: nothing in this report failed it */
  nc_result_set_blocked(&r->results[1], rule(NC_RULE_TBL_02), "find: row 3 wrong");
  nc_settle_unowned_blocks(r);
  assert_int_equal(r->results[0].verdict, NC_VERDICT_ERROR);
  assert_int_equal(r->results[1].verdict, NC_VERDICT_ERROR);
  nc_report_free(r);
}

/* The reason's text is never read: one naming a failed rule does not make
 * a block, and a block's fate follows blocked_by whatever its text says. */
static void test_reason_text_decides_nothing(void **state)
{
  (void)state;
  const nc_rule rules[] = {NC_RULE_TBL_02, NC_RULE_TBL_06, NC_RULE_TBL_07, NC_RULE_TBL_08};
  const nc_verdict v[] = {NC_VERDICT_FAIL, NC_VERDICT_PASS, NC_VERDICT_SKIP, NC_VERDICT_PASS};
  nc_report *r = report_of(rules, v, 4);
  char lie[64];
  snprintf(lie, sizeof(lie), "blocked by %s: it says so", rule(NC_RULE_TBL_02)->id);
  nc_result_set_reason(&r->results[2], "%s", lie); /* a plain SKIP */
  nc_result_set_blocked(&r->results[3], rule(NC_RULE_TBL_06), "a row wrong");
  nc_result_set_reason(&r->results[3], "%s", lie); /* the text names the failed rule */
  nc_settle_unowned_blocks(r);
  assert_int_equal(r->results[2].verdict, NC_VERDICT_SKIP);
  assert_string_equal(r->results[2].reason, lie);
  assert_int_equal(r->results[3].verdict, NC_VERDICT_SKIP);
  assert_int_equal(r->results[3].skip, NC_SKIP_UNTESTED); /* TBL-06 passed: inconclusive */
  nc_report_free(r);
}

/* A failure a case charged to another rule (nc_fail_owned) becomes a block
 * by that rule when it failed on its own, and the owner notes where else
 * it showed; when the owner held, the failure stays the case's. */
static void test_owned_failure_becomes_a_block(void **state)
{
  (void)state;
  const nc_rule rules[] = {NC_RULE_TBL_02, NC_RULE_LIF_02, NC_RULE_TBL_08, NC_RULE_TBL_11};
  const nc_verdict v[] = {NC_VERDICT_FAIL, NC_VERDICT_FAIL, NC_VERDICT_PASS, NC_VERDICT_FAIL};
  nc_report *r = report_of(rules, v, 4);
  for (size_t i = 1; i < 4; i += 2) {
    nc_result *res = &r->results[i];
    nc_result_add_evidence(res, NC_LEVEL_FAIL, "find (key 7)", "row 7 as stored", "zeros");
    res->failure_owners[0] = rule(i == 1 ? NC_RULE_TBL_02 : NC_RULE_TBL_08);
    res->nfailure_owners = 1;
  }
  size_t owner_evidence = r->results[0].nevidence;
  nc_attribute_blocks(r);
  nc_settle_unowned_blocks(r);

  const nc_result *blocked = &r->results[1];
  assert_int_equal(blocked->verdict, NC_VERDICT_SKIP);
  assert_ptr_equal(blocked->blocked_by, rule(NC_RULE_TBL_02));
  assert_string_equal(blocked->blocked_why, "find (key 7): zeros (expected row 7 as stored)");
  assert_int_equal(r->results[0].verdict, NC_VERDICT_FAIL);
  assert_int_equal(r->results[0].nevidence, owner_evidence + 1);
  assert_string_equal(r->results[0].evidence[owner_evidence].level, NC_LEVEL_NOTE);

  /* TBL-08 passed on its own and nothing proved the defect its: the case
   * that saw it keeps its failure */
  assert_int_equal(r->results[3].verdict, NC_VERDICT_FAIL);
  assert_int_equal(r->results[3].skip, NC_SKIP_UNTESTED);
  nc_report_free(r);
}

/* Two views, each proving the other's op at fault (a stale read another
 * thread's write shows: TBL-02's view blames the accumulate, TBL-07's the
 * insert), and a third charged to one of them: one root cause, the first
 * of the cycle by ID, fails; the others are blocked by it (before, each
 * was blocked by the other and both read "inconclusive"). */
static void test_cycle_of_blame_is_one_failure(void **state)
{
  (void)state;
  const nc_rule rules[] = {NC_RULE_TBL_02, NC_RULE_TBL_07, NC_RULE_TBL_08};
  const nc_rule owner[] = {NC_RULE_TBL_07, NC_RULE_TBL_02, NC_RULE_TBL_07};
  const nc_verdict v[] = {NC_VERDICT_FAIL, NC_VERDICT_FAIL, NC_VERDICT_FAIL};
  nc_report *r = report_of(rules, v, 3);
  for (size_t i = 0; i < 3; i++) {
    nc_result *res = &r->results[i];
    nc_result_add_evidence(res, NC_LEVEL_FAIL, "find (key 7)", "row 7 as stored", "stale");
    res->failure_owners[0] = rule(owner[i]);
    res->nfailure_owners = 1;
    res->owner_proven = 1;
  }
  nc_attribute_blocks(r);
  nc_settle_unowned_blocks(r);
  assert_int_equal(r->results[0].verdict, NC_VERDICT_FAIL);
  for (size_t i = 1; i < 3; i++) {
    assert_int_equal(r->results[i].verdict, NC_VERDICT_SKIP);
    assert_int_equal(r->results[i].skip, NC_SKIP_BLOCKED);
    assert_ptr_equal(r->results[i].blocked_by, rule(NC_RULE_TBL_02));
  }
  nc_report_free(r);
}

/* --rule TBL-12 alone, and its control proved the wrong answer the find's
 * own (TBL-02, not selected): TBL-02 joins the report, before TBL-12 and
 * failed by the proof, TBL-12 is blocked by it, and the run exits 1. Before,
 * TBL-12 kept a WARN for a defect not its own, and the run exited 0. */
static void test_proven_owner_not_selected_joins(void **state)
{
  (void)state;
  const nc_rule rules[] = {NC_RULE_TBL_12};
  const nc_verdict v[] = {NC_VERDICT_WARN};
  nc_report *r = report_of(rules, v, 1);
  owned_by(&r->results[0], NC_RULE_TBL_02, 1);
  r->results[0].reproduce = strdup("nve-conform --rule TBL-12 --seed 1 p.so");
  settle(r, NULL);

  assert_int_equal(r->nresults, 2);
  const nc_result *owner = &r->results[0], *reader = &r->results[1];
  assert_ptr_equal(owner->rule, rule(NC_RULE_TBL_02));
  assert_int_equal(owner->verdict, NC_VERDICT_FAIL);
  assert_true(owner->not_selected);
  assert_false(owner->executed);
  assert_non_null(strstr(owner->reason, "not selected"));
  assert_string_equal(owner->reproduce, "nve-conform --rule TBL-12,TBL-02 --seed 1 p.so");
  assert_ptr_equal(reader->rule, rule(NC_RULE_TBL_12));
  assert_int_equal(reader->verdict, NC_VERDICT_SKIP);
  assert_ptr_equal(reader->blocked_by, rule(NC_RULE_TBL_02));
  assert_int_equal(nc_report_exit_code(r), 1);

  /* An owner merely named, not proven, joins nothing: the case keeps it */
  const nc_verdict w[] = {NC_VERDICT_WARN};
  nc_report *q = report_of(rules, w, 1);
  owned_by(&q->results[0], NC_RULE_TBL_02, 0);
  settle(q, NULL);
  assert_int_equal(q->nresults, 1);
  assert_int_equal(q->results[0].verdict, NC_VERDICT_WARN);
  nc_report_free(q);
  nc_report_free(r);
}

static int never(const nc_rule_info *rule, void *arg)
{
  (void)rule;
  (void)arg;
  return 0;
}

/* A proven owner whose own case could not have judged this plugin (N/A by
 * what it declared, or blocked) joins nothing: a full run would not fail
 * it either, and the case that saw the defect keeps its failure. */
static void test_proven_owner_that_could_not_run_stays_out(void **state)
{
  (void)state;
  const nc_rule rules[] = {NC_RULE_TBL_11};
  const nc_verdict v[] = {NC_VERDICT_FAIL};
  nc_report *r = report_of(rules, v, 1);
  owned_by(&r->results[0], NC_RULE_TBL_07, 1);
  settle(r, never);
  assert_int_equal(r->nresults, 1);
  assert_int_equal(r->results[0].verdict, NC_VERDICT_FAIL);
  nc_report_free(r);
}

/* Proofs in a chain: TBL-06's case proves its defect TBL-11's, and
 * TBL-11's proves its LIF-02's, which the filter left out. Every case is
 * blocked by LIF-02, the end of the chain, whatever the order of the
 * rules (TBL-06 comes first: it used to be charged to TBL-11 before
 * LIF-02 failed, and then read "inconclusive: TBL-11 passed in its own
 * case", which it had not). */
static void test_chain_of_proofs_ends_in_one_failure(void **state)
{
  (void)state;
  const nc_rule rules[] = {NC_RULE_TBL_06, NC_RULE_TBL_11};
  const nc_rule owner[] = {NC_RULE_TBL_11, NC_RULE_LIF_02};
  const nc_verdict v[] = {NC_VERDICT_FAIL, NC_VERDICT_FAIL};
  nc_report *r = report_of(rules, v, 2);
  for (size_t i = 0; i < 2; i++)
    owned_by(&r->results[i], owner[i], 1);
  settle(r, NULL);
  assert_int_equal(r->nresults, 3);
  for (size_t i = 0; i < 2; i++) {
    assert_int_equal(r->results[i].skip, NC_SKIP_BLOCKED);
    assert_ptr_equal(r->results[i].blocked_by, rule(NC_RULE_LIF_02));
  }
  assert_ptr_equal(r->results[2].rule, rule(NC_RULE_LIF_02));
  assert_int_equal(r->results[2].verdict, NC_VERDICT_FAIL);
  nc_report_free(r);
}

static nc_record record_of(const char *tag, size_t n, const char *const *fields)
{
  nc_record rec = {.tag = strdup(tag), .nfields = n};
  for (size_t i = 0; i < n; i++)
    rec.fields[i] = strdup(fields[i]);
  return rec;
}

/* A case whose control proved a find's defect TBL-02's, and which then
 * crashed in an erase TBL-08 owns: the crash is its verdict, owned by
 * TBL-08 only if TBL-08 fails on its own. The proof must not outlive the
 * failure it was for: TBL-08, not selected, joins nothing and is failed by
 * no find's evidence, and the crash stays in view. */
static void test_crash_drops_an_earlier_proof(void **state)
{
  (void)state;
  nc_config cfg = {.timeout_s = 5};
  const char *opened[] = {"x"};
  const char *check[] = {"fail", "explored sequence 3, step 9 (find)", "agreement with the model",
                         "a hit with bytes never written", "!TBL-02"};
  const char *crash[] = {"11", "erase", "at 0x1234", "TBL-08"};
  nc_record recs[] = {record_of("OPENED", 1, opened), record_of("CHECK", 5, check),
                      record_of("CRASH", 4, crash)};
  nc_child_result cr = {.records = recs, .nrecords = 3, .cap = 3, .signo = 11, .exit_code = -1};
  snprintf(cr.phase, sizeof(cr.phase), "erase");
  nc_report *r = nc_report_new();
  nc_result *res = nc_report_add(r, rule(NC_RULE_TBL_11));
  res->executed = 1;
  nc_derive_result(res, &cr, &cfg);
  assert_false(res->owner_proven);
  settle(r, NULL);
  assert_int_equal(r->nresults, 1);
  assert_int_equal(r->results[0].verdict, NC_VERDICT_FAIL);
  assert_non_null(r->results[0].crash);
  for (size_t i = 0; i < 3; i++) {
    free(recs[i].tag);
    for (size_t f = 0; f < recs[i].nfields; f++)
      free(recs[i].fields[f]);
  }
  nc_report_free(r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_set_blocked_writes_the_reason_once),
      cmocka_unit_test(test_block_by_a_failed_rule_stays),
      cmocka_unit_test(test_block_by_a_passed_rule_is_inconclusive),
      cmocka_unit_test(test_block_nobody_owns_is_an_error),
      cmocka_unit_test(test_reason_text_decides_nothing),
      cmocka_unit_test(test_owned_failure_becomes_a_block),
      cmocka_unit_test(test_cycle_of_blame_is_one_failure),
      cmocka_unit_test(test_proven_owner_not_selected_joins),
      cmocka_unit_test(test_proven_owner_that_could_not_run_stays_out),
      cmocka_unit_test(test_chain_of_proofs_ends_in_one_failure),
      cmocka_unit_test(test_crash_drops_an_earlier_proof),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
