/* SPDX-License-Identifier: Apache-2.0 */
/* The steps a replay under toggles makes (nc_x_bake, cases/kit/explore_run.c),
 * which a C reproducer lists for a replay it cannot toggle: each toggle
 * changes or drops the steps nc_x_replay changes or skips under it, and
 * nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "explore_run.h"

static nc_x_step step(int action, int slot, int64_t n)
{
  nc_x_step s;
  memset(&s, 0, sizeof(s));
  s.action = (uint8_t)action;
  s.slot = (uint8_t)slot;
  s.n = n;
  s.thread = 2;
  s.nulls = NC_X_NULL_VALUES;
  s.resolved_every = 3;
  s.stride_pad = 8;
  s.size = 12;
  s.config = 1;
  s.tag = 99;
  return s;
}

/* A little sequence of every kind of step. */
static size_t sequence(nc_x_step *out)
{
  size_t n = 0;
  out[n++] = step(NC_X_INSERT, 0, 5);
  out[n++] = step(NC_X_FIND, 0, 0); /* an empty batch */
  out[n++] = step(NC_X_PRODUCE, 1, 0);
  out[n++] = step(NC_X_UPDATE, 1, 4);
  out[n++] = step(NC_X_DROP_FACTORY, 0, 0);
  out[n++] = step(NC_X_FIND, 1, 7);
  return n;
}

static void test_no_toggles_keeps_every_step(void **state)
{
  (void)state;
  nc_x_step in[8], out[8];
  size_t n = sequence(in);
  assert_int_equal(nc_x_bake(in, n, 0, 0, out), (long)n);
  assert_memory_equal(in, out, n * sizeof(*in));
}

static void test_plain_calls(void **state)
{
  (void)state;
  nc_x_step in[8], out[8];
  size_t n = sequence(in);
  long k = nc_x_bake(in, n, NC_XT_PLAIN_CALLS, 0, out);
  assert_int_equal(k, (long)n - 1); /* the empty find is not made */
  for (long i = 0; i < k; i++) {
    assert_int_equal(out[i].nulls, 0);
    assert_int_equal(out[i].resolved_every, 0);
    assert_int_equal(out[i].stride_pad, 0);
    assert_int_equal(out[i].thread, 2); /* plain calls run on their threads */
    assert_true(out[i].action != NC_X_FIND || out[i].n > 0);
  }
  assert_int_equal(out[0].size, 0);  /* the insert writes whole rows */
  assert_int_equal(out[2].size, 0);  /* so does the update */
  assert_int_equal(out[1].config, 1); /* produce keeps its config */
}

static void test_alone_keeps_the_slot_and_the_drops(void **state)
{
  (void)state;
  nc_x_step in[8], out[8];
  size_t n = sequence(in);
  long k = nc_x_bake(in, n, NC_XT_ALONE, 1, out);
  assert_int_equal(k, 4);
  assert_int_equal(out[0].action, NC_X_PRODUCE);
  assert_int_equal(out[1].action, NC_X_UPDATE);
  assert_int_equal(out[2].action, NC_X_DROP_FACTORY);
  assert_int_equal(out[3].action, NC_X_FIND);
}

static void test_single_toggles(void **state)
{
  (void)state;
  nc_x_step in[8], out[8];
  size_t n = sequence(in);
  assert_int_equal(nc_x_bake(in, n, NC_XT_KEEP_FACTORY, 0, out), (long)n - 1);
  for (size_t i = 0; i < n - 1; i++)
    assert_int_not_equal(out[i].action, NC_X_DROP_FACTORY);
  nc_x_bake(in, n, NC_XT_MAIN_THREAD | NC_XT_ONE_CONFIG, 0, out);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(out[i].thread, 0);
    assert_int_equal(out[i].config, 0);
    assert_int_equal(out[i].nulls, NC_X_NULL_VALUES); /* untouched */
  }
  nc_x_bake(in, n, NC_XT_WHOLE_ROWS, 0, out);
  assert_int_equal(out[0].size, 0);
  assert_int_equal(out[5].size, 12); /* a find's size means nothing: untouched */
}

static void test_unsayable_toggles(void **state)
{
  (void)state;
  nc_x_step in[8], out[8];
  size_t n = sequence(in);
  assert_int_equal(nc_x_bake(in, n, NC_XT_KEEP_TABLES, 0, out), -1);
  assert_int_equal(nc_x_bake(in, n, NC_XT_LEAKS, 0, out), -1);
  assert_false(nc_x_bakeable(NC_XT_KEEP_TABLES | NC_XT_OUTPUTS));
  assert_true(nc_x_bakeable(NC_XT_PLAIN_CALLS | NC_XT_ALONE));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_toggles_keeps_every_step),
      cmocka_unit_test(test_plain_calls),
      cmocka_unit_test(test_alone_keeps_the_slot_and_the_drops),
      cmocka_unit_test(test_single_toggles),
      cmocka_unit_test(test_unsayable_toggles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
