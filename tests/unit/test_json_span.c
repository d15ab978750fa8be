/* SPDX-License-Identifier: Apache-2.0 */
/* Values found in JSON text byte for byte: big integers, nesting, strings
 * with brackets and escapes, arrays, missing paths and broken text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "json_span.h"

static void expect_span(const char *text, const char *const *path, size_t depth,
                         const char *want)
{
  char *got = nc_json_value_text(text, path, depth);
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
}

static void test_big_integers_survive(void **state)
{
  (void)state;
  const char *text = "{\"table_config\": {\"capacity\": 1152921504606846976, \"x\": -0.5e-3}}";
  const char *path[] = {"table_config"};
  expect_span(text, path, 1, "{\"capacity\": 1152921504606846976, \"x\": -0.5e-3}");
  const char *inner[] = {"table_config", "capacity"};
  expect_span(text, inner, 2, "1152921504606846976");
}

static void test_strings_with_brackets_and_escapes(void **state)
{
  (void)state;
  const char *text = "{\"a\": \"}]\\\",{\", \"b\" : [1, {\"c\": \"\\\\\"}, [ ] ] , \"d\":true}";
  const char *a[] = {"a"}, *b[] = {"b"}, *d[] = {"d"}, *c[] = {"b", "#1", "c"};
  expect_span(text, a, 1, "\"}]\\\",{\"");
  expect_span(text, b, 1, "[1, {\"c\": \"\\\\\"}, [ ] ]");
  expect_span(text, d, 1, "true");
  expect_span(text, c, 3, "\"\\\\\"");
}

static void test_arrays_of_objects(void **state)
{
  (void)state;
  const char *text = "{\"failing_configs\": [{\"target\": \"table\", \"config\": {\"n\": 18446744073709551615}},"
                     " {\"config\": \"not JSON\", \"target\": \"factory\"}]}";
  const char *first[] = {"failing_configs", "#0", "config"};
  const char *second[] = {"failing_configs", "#1", "config"};
  expect_span(text, first, 3, "{\"n\": 18446744073709551615}");
  expect_span(text, second, 3, "\"not JSON\"");
}

static void test_first_member_wins(void **state)
{
  (void)state;
  const char *text = "{\"k\": 1, \"k\": 2}";
  const char *k[] = {"k"};
  expect_span(text, k, 1, "1");
}

static void test_missing_and_broken(void **state)
{
  (void)state;
  size_t start, len;
  const char *none[] = {"absent"}, *deep[] = {"a", "b"}, *idx[] = {"#3"}, *bad[] = {"#x"};
  assert_int_equal(nc_json_span("{\"a\": 1}", none, 1, &start, &len), -1);
  assert_int_equal(nc_json_span("{\"a\": 1}", deep, 2, &start, &len), -1);
  assert_int_equal(nc_json_span("[1, 2]", idx, 1, &start, &len), -1);
  assert_int_equal(nc_json_span("[1, 2]", bad, 1, &start, &len), -1);
  assert_int_equal(nc_json_span("{\"a\": [1, 2}", deep, 0, &start, &len), -1);
  assert_int_equal(nc_json_span("{\"a\": \"open", none, 0, &start, &len), -1);
  assert_int_equal(nc_json_span(NULL, none, 0, &start, &len), -1);
  assert_null(nc_json_value_text("{}", none, 1));
  /* The whole document, white space trimmed. */
  assert_int_equal(nc_json_span("  [1, 2]  ", none, 0, &start, &len), 0);
  assert_int_equal(start, 2);
  assert_int_equal(len, 6);
}

static void test_depth_is_bounded(void **state)
{
  (void)state;
  size_t n = 100000, start, len;
  char *text = malloc(2 * n + 1);
  memset(text, '[', n);
  memset(text + n, ']', n);
  text[2 * n] = '\0';
  assert_int_equal(nc_json_span(text, NULL, 0, &start, &len), -1);
  free(text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_big_integers_survive),
      cmocka_unit_test(test_strings_with_brackets_and_escapes),
      cmocka_unit_test(test_arrays_of_objects),
      cmocka_unit_test(test_first_member_wins),
      cmocka_unit_test(test_missing_and_broken),
      cmocka_unit_test(test_depth_is_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
