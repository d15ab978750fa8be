/* SPDX-License-Identifier: Apache-2.0 */
/* What plugin text and paths become before a report prints them: C0 and
 * C1 controls and bidirectional formatting never raw, everything else as
 * it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "text.h"
#include "verdict.h"

static void sanitized_is(const char *in, const char *want)
{
  char *got = nc_sanitized(in);
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
}

static void escaped_is(const char *in, int keep_lines, const char *want)
{
  char *got = nc_text_escaped(in, keep_lines);
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
}

static void test_unsafe_lengths(void **state)
{
  (void)state;
  assert_int_equal(nc_text_unsafe_len("\033"), 1);
  assert_int_equal(nc_text_unsafe_len("\177"), 1);
  assert_int_equal(nc_text_unsafe_len("\n"), 0);
  assert_int_equal(nc_text_unsafe_len("\t"), 0);
  assert_int_equal(nc_text_unsafe_len("a"), 0);
  assert_int_equal(nc_text_unsafe_len(""), 0);
  assert_int_equal(nc_text_unsafe_len("\xc2\x80"), 2); /* U+0080 */
  assert_int_equal(nc_text_unsafe_len("\xc2\x9f"), 2); /* U+009F */
  assert_int_equal(nc_text_unsafe_len("\xc2\xa0"), 0); /* U+00A0, no-break space */
  assert_int_equal(nc_text_unsafe_len("\xe2\x80\xaa"), 3); /* U+202A */
  assert_int_equal(nc_text_unsafe_len("\xe2\x80\xae"), 3); /* U+202E */
  assert_int_equal(nc_text_unsafe_len("\xe2\x80\xaf"), 0); /* U+202F */
  assert_int_equal(nc_text_unsafe_len("\xe2\x81\xa6"), 3); /* U+2066 */
  assert_int_equal(nc_text_unsafe_len("\xe2\x81\xa9"), 3); /* U+2069 */
  assert_int_equal(nc_text_unsafe_len("\xe2\x81\xaa"), 0); /* U+206A */
  assert_int_equal(nc_text_unsafe_len("\xe2\x80\x8f"), 3); /* RLM */
  assert_int_equal(nc_text_unsafe_len("\xe2\x82\xac"), 0); /* the euro sign */
}

static void test_sanitized(void **state)
{
  (void)state;
  sanitized_is("plain text", "plain text");
  sanitized_is("lines\nand\ttabs", "lines\nand\ttabs");
  sanitized_is("a\033[2Jb\007", "a?[2Jb?");
  sanitized_is("csi\xc2\x9b" "2J", "csi?2J");
  sanitized_is("abc\xe2\x80\xae" "fed", "abc?fed");
  sanitized_is("\xe2\x81\xa6iso\xe2\x81\xa9", "?iso?");
  sanitized_is("caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"); /* kept */
  sanitized_is("bad \xff utf8", "bad ? utf8");
  sanitized_is("", "");
  sanitized_is(NULL, "");
}

static void test_escaped(void **state)
{
  (void)state;
  escaped_is("/usr/lib/p.so", 0, "/usr/lib/p.so");
  escaped_is("a\033[2J\nb", 0, "a\\x1b[2J\\nb");
  escaped_is("a\tb\nc", 1, "a\tb\nc");
  escaped_is("x\xc2\x9by", 0, "x\\u009by");
  escaped_is("r\xe2\x80\xaes.os", 0, "r\\u202es.os");
  escaped_is("i\xe2\x81\xa7j", 0, "i\\u2067j");
  escaped_is("caf\xc3\xa9", 0, "caf\xc3\xa9");
  escaped_is("bad\xff\xc3\xa9", 0, "bad\\xff\\xc3\\xa9"); /* not UTF-8: every high byte */
  escaped_is("\177", 0, "\\x7f");
  escaped_is(NULL, 0, "");
}

static void transformed_is(char *(*f)(const char *), const char *in, const char *want)
{
  char *got = f(in);
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
}

/* Printed JSON: the characters no reader should get raw become \uHHHH
 * escapes, which decode to the same string; the rest is untouched. */
static void test_json_text_safe(void **state)
{
  (void)state;
  transformed_is(nc_json_text_safe, "{\n\t\"a\":\t\"b\"\n}", "{\n\t\"a\":\t\"b\"\n}");
  transformed_is(nc_json_text_safe, "\"r\xe2\x80\xaes\"", "\"r\\u202es\"");
  transformed_is(nc_json_text_safe, "\"x\xc2\x9by\"", "\"x\\u009by\"");
  transformed_is(nc_json_text_safe, "\"\xe2\x81\xa6\xe2\x80\x8f\"", "\"\\u2066\\u200f\"");
  transformed_is(nc_json_text_safe, "\"\177\"", "\"\\u007f\"");
  transformed_is(nc_json_text_safe, "\"caf\xc3\xa9 \xe2\x82\xac\"", "\"caf\xc3\xa9 \xe2\x82\xac\"");
  transformed_is(nc_json_text_safe, "\"\\u001b\"", "\"\\u001b\""); /* cJSON's own escapes */
  transformed_is(nc_json_text_safe, "", "");
}

/* A path as a URI reference: unreserved characters and '/' kept, the rest
 * percent-encoded, bytes of broken UTF-8 included. */
static void test_uri_path(void **state)
{
  (void)state;
  transformed_is(nc_uri_path, "/usr/lib/nve-plugin_x.1~a.so", "/usr/lib/nve-plugin_x.1~a.so");
  transformed_is(nc_uri_path, "/a b/%c#d?e", "/a%20b/%25c%23d%3Fe");
  transformed_is(nc_uri_path, "a\033[2J\nb", "a%1B%5B2J%0Ab");
  transformed_is(nc_uri_path, "r\xe2\x80\xaes", "r%E2%80%AEs");
  transformed_is(nc_uri_path, "bad\xff", "bad%FF");
  transformed_is(nc_uri_path, "", "");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unsafe_lengths),
      cmocka_unit_test(test_sanitized),
      cmocka_unit_test(test_escaped),
      cmocka_unit_test(test_json_text_safe),
      cmocka_unit_test(test_uri_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
