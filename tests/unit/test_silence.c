/* SPDX-License-Identifier: Apache-2.0 */
/* When a silence is a hang (lib/run/silence.c): the timeout, the stretch
 * by load, announced allowances and the cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "silence.h"

static const nc_load idle = {.load1 = 0.1, .runnable = 0, .cpus = 2};
static const nc_load busy = {.load1 = 0.5, .runnable = 8, .cpus = 2}; /* 4x, load1 lagging */

static void test_idle_silence_is_a_hang_at_the_timeout(void **state)
{
  (void)state;
  nc_silence s;
  nc_silence_start(&s, 100, 5, 1000);
  assert_true(nc_silence_left(&s, 104.9, &idle) > 0);
  assert_true(nc_silence_left(&s, 105.0, &idle) <= 0);
}

static void test_progress_starts_the_silence_again(void **state)
{
  (void)state;
  nc_silence s;
  nc_silence_start(&s, 100, 5, 1000);
  nc_silence_progress(&s, 104, 0);
  assert_true(nc_silence_left(&s, 108.5, &idle) > 0);
  assert_true(nc_silence_left(&s, 109.0, &idle) <= 0);
}

static void test_runnable_tasks_stretch_before_the_load_average_does(void **state)
{
  (void)state;
  nc_silence s;
  nc_silence_start(&s, 0, 5, 1000);
  nc_silence_left(&s, 1, &busy);
  /* Four times as busy as the CPUs: 20 s of silence, not 5. */
  assert_true(nc_silence_left(&s, 6, NULL) > 0);
  assert_true(nc_silence_left(&s, 19.5, NULL) > 0);
  assert_true(nc_silence_left(&s, 20.0, NULL) <= 0);
}

static void test_an_announced_step_gets_its_allowance(void **state)
{
  (void)state;
  nc_silence s;
  nc_silence_start(&s, 0, 5, 1000);
  nc_silence_progress(&s, 10, 30);
  assert_true(nc_silence_left(&s, 39, &idle) > 0);
  assert_true(nc_silence_left(&s, 40, &idle) <= 0);
  /* The next progress without one: the timeout again. */
  nc_silence_progress(&s, 40, 0);
  assert_true(nc_silence_left(&s, 45, &idle) <= 0);
  /* Less than the timeout: the timeout. */
  nc_silence_progress(&s, 50, 1);
  assert_true(nc_silence_left(&s, 54, &idle) > 0);
}

static void test_a_record_without_announcement_keeps_a_longer_one(void **state)
{
  (void)state;
  nc_silence s;
  nc_silence_start(&s, 0, 5, 1000);
  nc_silence_progress(&s, 10, 30); /* the step may take until 40 */
  nc_silence_touch(&s, 11);        /* a record in the middle of it */
  assert_true(nc_silence_left(&s, 39, &idle) > 0);
  assert_true(nc_silence_left(&s, 40, &idle) <= 0);
  /* Near the end of the announced window, a record gives the timeout again. */
  nc_silence_progress(&s, 50, 30);
  nc_silence_touch(&s, 78);
  assert_true(nc_silence_left(&s, 82.5, &idle) > 0);
  assert_true(nc_silence_left(&s, 83, &idle) <= 0);
  /* Without an announcement, a record is plain progress. */
  nc_silence_start(&s, 100, 5, 1000);
  nc_silence_touch(&s, 103);
  assert_true(nc_silence_left(&s, 107.5, &idle) > 0);
  assert_true(nc_silence_left(&s, 108, &idle) <= 0);
}

static void test_nothing_passes_the_cap(void **state)
{
  (void)state;
  nc_silence s;
  nc_silence_start(&s, 0, 5, 12);
  nc_silence_progress(&s, 10, 100);
  nc_silence_left(&s, 10.5, &busy);
  assert_true(nc_silence_left(&s, 11.9, &busy) > 0);
  assert_true(nc_silence_left(&s, 12, &busy) <= 0);
}

static void test_stretch_has_a_ceiling(void **state)
{
  (void)state;
  nc_silence s;
  nc_load mad = {.load1 = 1e9, .runnable = 1e9, .cpus = 1};
  nc_silence_start(&s, 0, 1, 1e6);
  assert_true(nc_silence_left(&s, 19.9, &mad) > 0);
  assert_true(nc_silence_left(&s, 20.1, &mad) <= 0);
}

static double allowance_of(const char *line, const char *key)
{
  return nc_silence_allowance(line, strlen(line), strlen(key), 300);
}

static void test_allowance_parsing(void **state)
{
  (void)state;
  assert_true(allowance_of("K1:BEAT\t12.5", "K1") == 12.5);
  assert_true(allowance_of("BEAT\t3", "") == 3);
  assert_true(allowance_of("K1:BEAT", "K1") == 0);       /* a bare beat */
  assert_true(allowance_of("K1:BEAT\t", "K1") == 0);     /* no number */
  assert_true(allowance_of("K1:BEAT\t12x", "K1") == 0);  /* trailing bytes */
  assert_true(allowance_of("K1:BEAT\t-4", "K1") == 0);   /* negative */
  assert_true(allowance_of("K1:BEAT\tnan", "K1") == 0);
  assert_true(allowance_of("K1:BEAT\tinf", "K1") == 0);
  assert_true(allowance_of("K1:CHECK\t12", "K1") == 0);  /* another tag */
  assert_true(allowance_of("K1:BEATS\t12", "K1") == 0);
  assert_true(allowance_of("K1:BEAT\t1e9", "K1") == 300); /* the cap */
  assert_true(allowance_of("K1:BEAT\t11111111111111111111111111111111111", "K1") == 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_idle_silence_is_a_hang_at_the_timeout),
      cmocka_unit_test(test_progress_starts_the_silence_again),
      cmocka_unit_test(test_runnable_tasks_stretch_before_the_load_average_does),
      cmocka_unit_test(test_an_announced_step_gets_its_allowance),
      cmocka_unit_test(test_a_record_without_announcement_keeps_a_longer_one),
      cmocka_unit_test(test_nothing_passes_the_cap),
      cmocka_unit_test(test_stretch_has_a_ceiling),
      cmocka_unit_test(test_allowance_parsing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
