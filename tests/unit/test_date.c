/* SPDX-License-Identifier: Apache-2.0 */
/* ISO 8601 calendar dates: valid ones, impossible days, and everything
 * that only looks like a date. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "date.h"

static void test_valid_dates(void **state)
{
  (void)state;
  long d;
  assert_int_equal(nc_date_parse("1970-01-01", &d), 0);
  assert_int_equal(d, 0);
  assert_int_equal(nc_date_parse("2000-03-01", &d), 0);
  assert_int_equal(d, 11017);
  assert_int_equal(nc_date_parse("2024-02-29", &d), 0); /* a leap year */
  assert_int_equal(nc_date_parse("2000-02-29", &d), 0); /* divisible by 400 */
  long a, b;
  assert_int_equal(nc_date_parse("2026-12-31", &a), 0);
  assert_int_equal(nc_date_parse("2027-01-01", &b), 0);
  assert_int_equal(b - a, 1);
}

static void test_impossible_days(void **state)
{
  (void)state;
  long d;
  assert_int_equal(nc_date_parse("2027-02-29", &d), -1);
  assert_int_equal(nc_date_parse("1900-02-29", &d), -1); /* a century, not 400 */
  assert_int_equal(nc_date_parse("2027-02-30", &d), -1);
  assert_int_equal(nc_date_parse("2027-04-31", &d), -1);
  assert_int_equal(nc_date_parse("2027-13-01", &d), -1);
  assert_int_equal(nc_date_parse("2027-00-10", &d), -1);
  assert_int_equal(nc_date_parse("2027-01-00", &d), -1);
}

static void test_not_dates(void **state)
{
  (void)state;
  long d;
  const char *bad[] = {"garbage", "", "2027-1-01", "2027-01-1", "27-01-01", "2027/01/01",
                       "2027-01-01T00:00:00Z", " 2027-01-01", "2027-01-01 ", "+2027-01-01",
                       "2027-0a-01"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    assert_int_equal(nc_date_parse(bad[i], &d), -1);
  assert_int_equal(nc_date_parse(NULL, &d), -1);
}

static void test_today_is_after_the_epoch(void **state)
{
  (void)state;
  long d;
  assert_int_equal(nc_date_parse("2026-01-01", &d), 0);
  assert_true(nc_date_today() > d);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_dates),
      cmocka_unit_test(test_impossible_days),
      cmocka_unit_test(test_not_dates),
      cmocka_unit_test(test_today_is_after_the_epoch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
