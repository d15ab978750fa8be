/* SPDX-License-Identifier: Apache-2.0 */
/* Strict JSON inputs: one value and only white space after it, UTF-8
 * only, no member named twice in one object, and errors that say where. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "json_strict.h"

static void accepted(const char *text)
{
  char err[200] = "";
  cJSON *v = nc_json_parse_strict(text, err, sizeof(err));
  if (!v)
    fail_msg("'%s' refused: %s", text, err);
  cJSON_Delete(v);
}

static void refused(const char *text, const char *why)
{
  char err[200] = "";
  cJSON *v = nc_json_parse_strict(text, err, sizeof(err));
  if (v || !strstr(err, why))
    fail_msg("'%s': expected a refusal with '%s', got %s", text, why, v ? "a value" : err);
  cJSON_Delete(v);
}

static void test_one_value_and_white_space(void **state)
{
  (void)state;
  accepted("{\"a\": 1}");
  accepted("  [1, 2]\n\n\t ");
  refused("{\"a\": 1} x", "line 1, column 10");
  refused("{\"a\": 1}\n{\"b\": 2}", "line 2, column 1");
  refused("{\"a\": ", "ends early");
  refused("", "ends early");
}

static void test_members_once(void **state)
{
  (void)state;
  accepted("{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}"); /* one name in two objects */
  accepted("[{\"x\": 1}, {\"x\": 2}]");
  refused("{\"a\": 1, \"a\": 2}", "\"a\" is given twice");
  refused("{\"a\": [{\"y\": 1, \"z\": 2, \"y\": 3}]}", "\"y\" is given twice");
}

static void test_utf8_only(void **state)
{
  (void)state;
  accepted("{\"name\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}");
  refused("{\"name\": \"\xff\"}", "not UTF-8 (byte 0xff)");
  refused("{\"name\": \"\xc0\x80\"}", "not UTF-8"); /* overlong */
  refused("{\"name\": \"\xed\xa0\x80\"}", "not UTF-8"); /* a surrogate */
  refused("{\"name\": \"\xf4\x90\x80\x80\"}", "not UTF-8"); /* past U+10FFFF */
  refused("{\"name\": \"\xe2\x82\"}", "not UTF-8"); /* cut short */
  refused("{\n  \"name\": \"\xe9t\xe9\"\n}", "line 2, column 12"); /* Latin-1 */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_value_and_white_space),
      cmocka_unit_test(test_members_once),
      cmocka_unit_test(test_utf8_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
