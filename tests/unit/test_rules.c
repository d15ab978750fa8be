/* SPDX-License-Identifier: Apache-2.0 */
/* The rule table: IDs unique and well formed, every rule with its case,
 * lookups both ways, the waivable flags, every rule explained and citing
 * a contract anchor, and the page writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "case_table.h"
#include "cases.h"
#include "rule_page.h"
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
    assert_non_null(nc_builtin_cases.fns[i]);
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

/* The families are rules.def's NC_FAMILY entries: one for each family a
 * rule names, none without a rule, none twice, each with its page text. */
static void test_families(void **state)
{
  (void)state;
  for (size_t f = 0; f < nc_family_count; f++) {
    const nc_family_def *fam = &nc_family_defs[f];
    assert_int_equal(strlen(fam->family), 3);
    assert_true(strlen(fam->title) > 3);
    assert_true(strlen(fam->intro) > 20);
    int rules = 0;
    for (int i = 0; i < NC_RULE_COUNT; i++)
      rules += strcmp(nc_rule_defs[i].info.family, fam->family) == 0;
    assert_true(rules > 0);
    for (size_t g = f + 1; g < nc_family_count; g++)
      assert_string_not_equal(fam->family, nc_family_defs[g].family);
  }
  for (int i = 0; i < NC_RULE_COUNT; i++) {
    size_t f = 0;
    while (f < nc_family_count && strcmp(nc_family_defs[f].family, nc_rule_defs[i].info.family) != 0)
      f++;
    assert_true(f < nc_family_count); /* the rule's family has its NC_FAMILY entry */
  }
}

/* rules.h's lists name rules by rules.def's enum (the compiler holds the
 * names to the table); what it cannot see: a rule listed twice among the
 * slow ones, a swept op listed twice or named by two rules. */
static void test_rule_lists_of_rules_h(void **state)
{
  (void)state;
  int slow = 0;
  for (int i = 0; i < NC_RULE_COUNT; i++) {
    int rank = nc_rule_slow_rank((nc_rule)i);
    if (rank == NC_RULE_COUNT)
      continue;
    slow++;
    for (int k = i + 1; k < NC_RULE_COUNT; k++)
      assert_int_not_equal(rank, nc_rule_slow_rank((nc_rule)k));
  }
  assert_true(slow > 0);
  assert_int_equal(nc_swept_op_count, 4);
  for (size_t i = 0; i < nc_swept_op_count; i++)
    for (size_t k = i + 1; k < nc_swept_op_count; k++) {
      assert_string_not_equal(nc_swept_ops[i].name, nc_swept_ops[k].name);
      assert_int_not_equal(nc_swept_ops[i].rule, nc_swept_ops[k].rule);
    }
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

/* A rule without its explanation or its contract anchor would ship with
 * a page that says nothing. */
static void test_every_rule_is_explained(void **state)
{
  (void)state;
  for (int i = 0; i < NC_RULE_COUNT; i++) {
    const nc_rule_doc *d = &nc_rule_defs[i].doc;
    const char *id = nc_rule_text((nc_rule)i);
    if (!d->section || !d->why || !d->how || !d->mistakes || !d->fix || !d->fixture)
      fail_msg("%s has no explanation in lib/rules/rules.def", id);
    assert_true(strlen(d->why) > 40);
    assert_true(strlen(d->how) > 30);
    const char *anchor = nc_rule_anchor((nc_rule)i);
    if (!anchor || !*anchor || strspn(anchor, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(anchor))
      fail_msg("%s: clause '%s' is not doc/contract.md#anchor", id, nc_rule_defs[i].info.clause);
  }
  assert_null(nc_rule_anchor(NC_RULE_COUNT));
}

static void test_rule_page(void **state)
{
  (void)state;
  nc_strbuf b = {0};
  nc_rule_page(&b, NC_RULE_SVC_05, NC_PAGE_DOC);
  assert_false(b.failed);
  assert_non_null(strstr(b.data, "<a id=\"svc-05\"></a>\n### SVC-05: "));
  assert_non_null(strstr(b.data, "](contract.md#scratch)"));
  assert_non_null(strstr(b.data, "`svc05-stale-scratch`"));
  assert_int_equal(b.data[b.len - 1], '\n');
  assert_int_not_equal(b.data[b.len - 2], '\n');
  nc_strbuf_free(&b);

  /* In a terminal: no HTML, and no line longer than 78 columns outside
   * the code block unless it is one word (a long installed path). */
  nc_strbuf t = {0};
  nc_rule_page(&t, NC_RULE_OWN_01, NC_PAGE_TERMINAL);
  assert_null(strstr(t.data, "<a id="));
  int in_code = 0;
  for (char *line = t.data; *line;) {
    size_t len = strcspn(line, "\n");
    if (strncmp(line, "```", 3) == 0)
      in_code = !in_code;
    else if (!in_code && len > 78 && memchr(line, ' ', len)) /* one long word may not fit */
      fail_msg("line of %zu columns: %.*s", len, (int)len, line);
    line += len + (line[len] == '\n');
  }
  nc_strbuf_free(&t);

  char anchor[16];
  nc_rule_doc_anchor(NC_RULE_TBL_11, anchor);
  assert_string_equal(anchor, "tbl-11");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ids_are_unique_and_well_formed),
      cmocka_unit_test(test_lookups),
      cmocka_unit_test(test_families),
      cmocka_unit_test(test_rule_lists_of_rules_h),
      cmocka_unit_test(test_probe_is_file_stage),
      cmocka_unit_test(test_waivable_flags),
      cmocka_unit_test(test_every_rule_is_explained),
      cmocka_unit_test(test_rule_page),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
