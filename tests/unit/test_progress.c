/* SPDX-License-Identifier: Apache-2.0 */
/* The progress line's text (harness/progress.c): the counts, the cases
 * running, the time so far, and what gives way when the terminal is
 * narrow; and when lines mode prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "progress.h"

static const char *const three[] = {"TBL-11", "TBL-12", "LIF-04"};

static void test_the_whole_line(void **state)
{
  (void)state;
  char buf[200];
  nc_progress_format(buf, sizeof(buf), 0, 12, 58, three, 3, 4.25);
  assert_string_equal(buf, "[12/58 rules] 3 running: TBL-11 TBL-12 LIF-04, 4.2 s");
  nc_progress_format(buf, sizeof(buf), 0, 0, 58, NULL, 0, 0);
  assert_string_equal(buf, "[0/58 rules] 0 running, 0.0 s");
  nc_progress_format(buf, sizeof(buf), 0, 58, 58, three, 1, 125.0);
  assert_string_equal(buf, "[58/58 rules] 1 running: TBL-11, 2m05s");
}

static void test_narrow_terminals(void **state)
{
  (void)state;
  char buf[200];
  /* The IDs that do not fit become a count; the elapsed time stays. */
  nc_progress_format(buf, sizeof(buf), 44, 12, 58, three, 3, 4.25);
  assert_string_equal(buf, "[12/58 rules] 3 running: TBL-11 +2, 4.2 s");
  assert_true(strlen(buf) <= 44);
  nc_progress_format(buf, sizeof(buf), 34, 12, 58, three, 3, 4.25);
  assert_string_equal(buf, "[12/58 rules] 3 running +3, 4.2 s");
  /* Narrower than the counts: cut, never past the width. */
  nc_progress_format(buf, sizeof(buf), 10, 12, 58, three, 3, 4.25);
  assert_string_equal(buf, "[12/58 rul");
  /* Never past the buffer either. */
  char small[16];
  nc_progress_format(small, sizeof(small), 0, 12, 58, three, 3, 4.25);
  assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void test_lines_every_ten_seconds(void **state)
{
  (void)state;
  assert_false(nc_progress_due(100.0, 100.0));
  assert_false(nc_progress_due(100.0, 109.9));
  assert_true(nc_progress_due(100.0, 110.0));
  assert_true(nc_progress_due(100.0, 250.0));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_whole_line),
      cmocka_unit_test(test_narrow_terminals),
      cmocka_unit_test(test_lines_every_ten_seconds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
