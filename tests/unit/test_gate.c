/* SPDX-License-Identifier: Apache-2.0 */
/* Waiver and baseline files: what is accepted, what is refused and why,
 * and the bounded reading of input files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "gate.h"

static char dir[64];

static int make_dir(void **state)
{
  (void)state;
  snprintf(dir, sizeof(dir), "/tmp/nc-gate-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static const char *file_with(const char *name, const char *text)
{
  static char path[128];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static void expect_waiver_error(const char *text, const char *why)
{
  nc_waivers w;
  char err[512] = "";
  assert_int_equal(nc_waivers_load(file_with("w.json", text), &w, err, sizeof(err)), -1);
  if (!strstr(err, why))
    fail_msg("'%s' does not say '%s'", err, why);
}

static void test_waivers_accepted(void **state)
{
  (void)state;
  nc_waivers w;
  char err[512];
  const char *text = "{\"waivers\": [{\"rules\": [\"SYM-07\", \"SVC-0*\"], \"reason\": \"later\","
                     " \"expires\": \"2099-12-31\", \"issue\": \"X-1\"}, {\"rules\": \"TBL-12\","
                     " \"reason\": \"known\"}]}";
  assert_int_equal(nc_waivers_load(file_with("w.json", text), &w, err, sizeof(err)), 0);
  assert_int_equal(w.n, 2);
  assert_int_equal(w.list[0].nrules, 2);
  assert_true(w.list[0].expires_day > 0);
  assert_int_equal(w.list[1].expires_day, -1);
  assert_string_equal(w.list[1].rules[0], "TBL-12");
  nc_waivers_free(&w);
}

static void test_waivers_refused(void **state)
{
  (void)state;
  expect_waiver_error("[{\"rules\": [\"SYM-07\"]}]", "needs a \"reason\"");
  expect_waiver_error("[{\"rules\": [], \"reason\": \"r\"}]", "must name at least one rule");
  expect_waiver_error("[{\"rules\": [\"SYM-07\"], \"reason\": \"r\", \"expires\": \"garbage\"}]",
                      "calendar date");
  expect_waiver_error("[{\"rules\": [\"SYM-07\"], \"reason\": \"r\", \"expires\": \"2027-02-29\"}]",
                      "calendar date");
  expect_waiver_error("[{\"rules\": [\"SYM-07\"], \"reason\": 5}]", "must be a string");
  expect_waiver_error("[{\"rules\": [7], \"reason\": \"r\"}]", "not a rule or glob");
  expect_waiver_error("[5]", "not a JSON object");
  expect_waiver_error("{\"waiver\": []}", "expected a JSON array");
  expect_waiver_error("5", "expected a JSON array");
  /* A misspelt member would silently drop what it meant (a waiver that
   * never expires): it is an error that names the member. */
  expect_waiver_error("[{\"rules\": [\"SYM-07\"], \"reason\": \"r\", \"expire\": \"2020-01-01\"}]",
                      "unknown member \"expire\"");
  expect_waiver_error("{\"waivers\": [], \"comment\": \"x\"}", "unknown member \"comment\"");
}

/* Broken JSON is named as such, with where it breaks; an unreadable file
 * with why. */
static void test_broken_json(void **state)
{
  (void)state;
  expect_waiver_error("not JSON", "is not valid JSON (line 1, column 1:");
  expect_waiver_error("", "is not valid JSON (line 1, column 1:");
  expect_waiver_error("{\"waivers\": [\n  {\"rules\": [\"SYM-07\"],,}\n]}",
                      "is not valid JSON (line 2, column 25:");
  expect_waiver_error("[{\"rules\": [\"SYM-07\"], \"reason\": \"r\"}", "is not valid JSON (line 1");
  /* Strict: nothing after the value, no member twice, UTF-8 only. */
  expect_waiver_error("{\"waivers\": []} {}", "something after the value");
  expect_waiver_error("{\"waivers\": [], \"waivers\": []}", "\"waivers\" is given twice");
  expect_waiver_error("{\"waivers\": [{\"reason\": \"caf\xe9\"}]}", "not UTF-8");
  nc_baseline b;
  char err[512] = "";
  assert_int_equal(nc_baseline_load(file_with("b.json", "{\"header\":\n\n}}"), &b, err,
                                    sizeof(err)),
                   -1);
  if (!strstr(err, "baseline '") || !strstr(err, "is not valid JSON (line 3, column 1:"))
    fail_msg("'%s'", err);
  assert_int_equal(nc_baseline_load("/nonexistent/b.json", &b, err, sizeof(err)), -1);
  if (!strstr(err, "baseline: ") || !strstr(err, "cannot open"))
    fail_msg("'%s'", err);
  nc_waivers w;
  assert_int_equal(nc_waivers_load("/nonexistent/w.json", &w, err, sizeof(err)), -1);
  if (!strstr(err, "waivers: ") || !strstr(err, "cannot open"))
    fail_msg("'%s'", err);
}

static void test_baselines(void **state)
{
  (void)state;
  nc_baseline b;
  char err[512];
  const char *good = "{\"schema\": \"nve-conform-report/1\", \"header\": {\"plugin\": {\"sha256\": \"ab\", \"name\": \"p\"}}, "
                     "\"results\": [{\"id\": \"SYM-01\", \"verdict\": \"FAIL\"}, "
                     "{\"id\": \"ZZZ-99\", \"verdict\": \"PASS\"}]}";
  assert_int_equal(nc_baseline_load(file_with("b.json", good), &b, err, sizeof(err)), 0);
  assert_int_equal(b.n, 2);
  assert_int_equal(nc_baseline_matches(&b, "AB", "q", 0, err, sizeof(err)), 0);
  assert_int_equal(nc_baseline_matches(&b, "cd", "p", 0, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "another file"));
  assert_int_equal(nc_baseline_matches(&b, "cd", "p", 1, err, sizeof(err)), 0);
  assert_int_equal(nc_baseline_matches(&b, "cd", "q", 1, err, sizeof(err)), -1);
  nc_baseline_free(&b);
  const char *bad_verdict = "{\"schema\": \"nve-conform-report/1\", \"header\": {\"plugin\": {\"sha256\": \"ab\"}}, "
                            "\"results\": [{\"id\": \"SYM-01\", \"verdict\": \"MAYBE\"}]}";
  assert_int_equal(nc_baseline_load(file_with("b.json", bad_verdict), &b, err, sizeof(err)), -1);
  const char *bad_id = "{\"schema\": \"nve-conform-report/1\", \"header\": {\"plugin\": {\"sha256\": \"ab\"}}, "
                       "\"results\": [{\"id\": \"sym-1\", \"verdict\": \"PASS\"}]}";
  assert_int_equal(nc_baseline_load(file_with("b.json", bad_id), &b, err, sizeof(err)), -1);
  const char *no_header = "{\"results\": []}";
  assert_int_equal(nc_baseline_load(file_with("b.json", no_header), &b, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "not an nve-conform JSON report"));
  const char *other_schema = "{\"schema\": \"nve-conform-report/999\", \"header\": {\"plugin\": "
                             "{\"sha256\": \"ab\"}}, \"results\": []}";
  assert_int_equal(nc_baseline_load(file_with("b.json", other_schema), &b, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "schema 'nve-conform-report/999'"));
}

static void test_read_file_bounds(void **state)
{
  (void)state;
  char err[512];
  char *text = nc_read_file(file_with("t.txt", "hello"), err, sizeof(err));
  assert_non_null(text);
  assert_string_equal(text, "hello");
  free(text);
  assert_null(nc_read_file("/dev/zero", err, sizeof(err)));
  assert_non_null(strstr(err, "not a regular file"));
  assert_null(nc_read_file(dir, err, sizeof(err)));
  assert_null(nc_read_file("/nonexistent/file", err, sizeof(err)));
  assert_non_null(strstr(err, "cannot open"));
  char big[128];
  snprintf(big, sizeof(big), "%s/big", dir);
  FILE *f = fopen(big, "w");
  fclose(f);
  assert_int_equal(truncate(big, (off_t)NC_INPUT_MAX + 1), 0);
  assert_null(nc_read_file(big, err, sizeof(err)));
  assert_non_null(strstr(err, "larger than"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_waivers_accepted),
      cmocka_unit_test(test_waivers_refused),
      cmocka_unit_test(test_baselines),
      cmocka_unit_test(test_broken_json),
      cmocka_unit_test(test_read_file_bounds),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
