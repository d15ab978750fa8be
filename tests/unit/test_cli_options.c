/* SPDX-License-Identifier: Apache-2.0 */
/* The command line's typed option rows: each row's type and range decide
 * what parses, the help names every word and range a row accepts, and no
 * two rows set the same member. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"

/* Parses the words of line (space-separated, at most 15) into c. */
static void parse_line(nc_cli *c, const char *line)
{
  static char buf[512];
  static char *argv[16];
  int argc = 0;
  snprintf(buf, sizeof(buf), "%s", line);
  argv[argc++] = "nve-conform";
  for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && argc < 15;
       w = strtok_r(NULL, " ", &save))
    argv[argc++] = w;
  argv[argc] = NULL;
  nc_cli_init(c);
  nc_cli_parse(c, argc, argv);
}

static void expect_error(const char *line, const char *words)
{
  nc_cli c;
  parse_line(&c, line);
  if (!c.error || !strstr(c.error, words))
    fail_msg("'%s': expected an error with '%s', got %s", line, words,
             c.error ? c.error : "none");
  free(c.error);
}

static void test_numbers_are_decimal_and_in_range(void **state)
{
  (void)state;
  nc_cli c;
  parse_line(&c, "--seed 010 --jobs 64 --timeout 0.1 --workers 256 p.so");
  assert_null(c.error);
  assert_int_equal(c.opt.seed, 10); /* not octal */
  assert_int_equal(c.opt.jobs, NC_MAX_JOBS);
  assert_true(c.opt.timeout_s == NC_MIN_TIMEOUT_S);
  assert_int_equal(c.opt.workers, NC_MAX_WORKERS);
  assert_string_equal(c.plugin, "p.so");
  expect_error("--seed 0x10 p.so", "non-negative decimal integer");
  expect_error("--seed -1 p.so", "non-negative decimal integer");
  expect_error("--seed 18446744073709551616 p.so", "non-negative decimal integer");
  expect_error("--jobs 65 p.so", "from 1 to 64");
  expect_error("--jobs 0 p.so", "from 1 to 64");
  expect_error("--workers 2.5 p.so", "whole number");
  expect_error("--timeout nan p.so", "decimal number");
  expect_error("--timeout 0x1p3 p.so", "decimal number");
  expect_error("--timeout 86401 p.so", "0.1 to 86400");
  expect_error("--sweep-k 0 p.so", "1 to 1000000");
}

static void test_words_lists_and_flags(void **state)
{
  (void)state;
  nc_cli c;
  parse_line(&c, "--color always --schedule reverse --sanitize none -r a,b -r c --stress p.so");
  assert_null(c.error);
  assert_int_equal(c.colour, NC_CLI_COLOUR_ALWAYS);
  assert_int_equal(c.opt.sanitize, 0);
  assert_int_equal(c.rules.n, 3);
  assert_string_equal(c.rules.items[2], "c");
  assert_int_equal(c.opt.stress, 1);
  assert_true(nc_cli_given(&c, "color"));
  assert_false(nc_cli_given(&c, "json"));
  parse_line(&c, "--colour never p.so"); /* the British spelling is the same row */
  assert_int_equal(c.colour, NC_CLI_COLOUR_NEVER);
  assert_true(nc_cli_given(&c, "color"));
  expect_error("--color sometimes p.so", "auto, never or always");
  expect_error("--sanitize bogus p.so", "none, valgrind or asan");
  parse_line(&c, "p.so");
  assert_int_equal(c.opt.sandbox, 0); /* auto by default */
  parse_line(&c, "--sandbox required p.so");
  assert_null(c.error);
  assert_int_equal(c.opt.sandbox, 1);
  parse_line(&c, "--sandbox off p.so");
  assert_int_equal(c.opt.sandbox, 2);
  expect_error("--sandbox maybe p.so", "auto, required or off");
  expect_error("-r , p.so", "needs a rule or family name");
  expect_error("--timeout", "needs an argument");
  expect_error("--bogus p.so", "unknown option '--bogus'");
  expect_error("a.so b.so", "one plugin at a time");
}

static void test_reports_have_one_flag_each(void **state)
{
  (void)state;
  nc_cli c;
  parse_line(&c, "--json a --junit b --tap c --sarif d --html e p.so");
  assert_null(c.error);
  const char *want[NC_CLI_REPORTS] = {"a", "b", "c", "d", "e"};
  const char *flag[NC_CLI_REPORTS] = {"--json", "--junit", "--tap", "--sarif", "--html"};
  for (int i = 0; i < NC_CLI_REPORTS; i++) {
    assert_string_equal(c.report_path[i], want[i]);
    assert_string_equal(nc_cli_report_flag(i), flag[i]);
  }
}

/* What --help says of a row, marks filled in. */
static char *help_text(const nc_cli_option *o)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  nc_cli_print_markdown(f);
  fclose(f);
  char key[80];
  snprintf(key, sizeof(key), "`--%s", o->name);
  char *row = strstr(text, key);
  assert_non_null(row);
  char *end = strchr(row, '\n');
  char *copy = strndup(row, (size_t)(end - row));
  free(text);
  return copy;
}

static void test_help_names_every_word_and_range(void **state)
{
  (void)state;
  for (size_t i = 0; i < nc_cli_option_count; i++) {
    const nc_cli_option *o = &nc_cli_options[i];
    char *help = help_text(o);
    if (o->type == NC_ARG_WORD) {
      assert_non_null(o->word);
      for (int w = 0; strcmp(o->word(w), "?") != 0; w++)
        if (!strstr(help, o->word(w)))
          fail_msg("--%s accepts '%s', which its help does not name", o->name, o->word(w));
    }
    if (o->type == NC_ARG_INT || o->type == NC_ARG_LONG || o->type == NC_ARG_NUMBER) {
      char range[64];
      snprintf(range, sizeof(range), "%.15g to %.15g", o->min, o->max);
      if (o->min >= o->max || !strstr(help, range))
        fail_msg("--%s takes %s, which its help does not say", o->name, range);
    }
    assert_null(strstr(help, "{range}")); /* every mark filled in */
    assert_null(strstr(help, "{words}"));
    assert_null(strstr(help, "{abi}"));
    free(help);
  }
}

static void test_rows_set_distinct_members(void **state)
{
  (void)state;
  assert_true(nc_cli_option_count <= NC_CLI_MAX_OPTIONS);
  for (size_t i = 0; i < nc_cli_option_count; i++) {
    assert_true((nc_cli_options[i].arg != NULL) == (nc_cli_options[i].type != NC_ARG_FLAG));
    for (size_t k = i + 1; k < nc_cli_option_count; k++) {
      if (nc_cli_options[i].member == nc_cli_options[k].member)
        fail_msg("--%s and --%s set the same member", nc_cli_options[i].name,
                 nc_cli_options[k].name);
      if (nc_cli_options[i].short_name &&
          nc_cli_options[i].short_name == nc_cli_options[k].short_name)
        fail_msg("--%s and --%s share -%c", nc_cli_options[i].name, nc_cli_options[k].name,
                 nc_cli_options[i].short_name);
    }
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numbers_are_decimal_and_in_range),
      cmocka_unit_test(test_words_lists_and_flags),
      cmocka_unit_test(test_reports_have_one_flag_each),
      cmocka_unit_test(test_help_names_every_word_and_range),
      cmocka_unit_test(test_rows_set_distinct_members),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
