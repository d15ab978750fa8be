/* SPDX-License-Identifier: Apache-2.0 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "json_config.h"

static const char *const keys[] = {"max_row_size", "key_size", NULL};

static void test_reads_top_level_integers(void **state)
{
  (void)state;
  int64_t v[2] = {1, 2};
  char err[128];
  assert_int_equal(hm_json_read_ints(" {\"max_row_size\": 64, \"other\": [1, {\"key_size\": 3}],"
                                     " \"s\": \"a\\\"b\\u00e9\", \"f\": -1.5e3, \"n\": null}",
                                     keys, v, err, sizeof(err)),
                   0);
  assert_int_equal(v[0], 64);
  assert_int_equal(v[1], 2); /* the nested key_size is not top-level */
}

static void test_rejects_malformed_configs(void **state)
{
  (void)state;
  const char *bad[] = {"",       "[]",           "42",          "{",       "{\"a\":}",
                       "{} x",   "{\"a\" 1}",    "{'a': 1}",    "{\"a\":1,}", "nul",
                       "{\"max_row_size\": \"64\"}", "{\"max_row_size\": 1.5}", NULL};
  int64_t v[2];
  char err[128];
  for (size_t i = 0; bad[i]; i++)
    if (hm_json_read_ints(bad[i], keys, v, err, sizeof(err)) == 0)
      fail_msg("accepted malformed config %s", bad[i]);
  assert_int_equal(hm_json_read_ints(NULL, keys, v, err, sizeof(err)), -1);
}

static void test_nesting_limit(void **state)
{
  (void)state;
  size_t depth = 10000;
  char *deep = malloc(2 * depth + 16);
  strcpy(deep, "{\"a\":");
  size_t pos = strlen(deep);
  for (size_t i = 0; i < depth; i++)
    deep[pos++] = '[';
  for (size_t i = 0; i < depth; i++)
    deep[pos++] = ']';
  strcpy(deep + pos, "}");
  int64_t v[2];
  char err[128];
  assert_int_equal(hm_json_read_ints(deep, keys, v, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "nested"));
  free(deep);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_top_level_integers),
      cmocka_unit_test(test_rejects_malformed_configs),
      cmocka_unit_test(test_nesting_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
