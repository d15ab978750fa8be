/* SPDX-License-Identifier: Apache-2.0 */
/* The count of finds that shared the plugin's find with another
 * (lib/host/calls.c), which TBL-12 runs its readers until: only time
 * inside the plugin's own call counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>

#include "calls.h"
#include "threads.h"

/* What the fake table's find does once inside: wait until `want` finds
 * are inside at once, or, on the outer thread, until the other thread's
 * find has been and gone. */
static atomic_int arrived, left; /* finds that entered; finds that returned */
static int want_inside, wait_for_left;
static _Thread_local int outer;

static nve_status_t fake_find(void *self, nve_ext_context_t ctx, int64_t n, const void *keys,
                              uint64_t *mask, int64_t stride, void *values, int64_t *sizes)
{
  (void)self, (void)ctx, (void)n, (void)keys, (void)mask, (void)stride, (void)values,
      (void)sizes;
  atomic_fetch_add(&arrived, 1);
  while (atomic_load(&arrived) < want_inside)
    ;
  while (outer && wait_for_left && atomic_load(&left) < 1)
    ;
  return NVE_SUCCESS;
}

static nve_ext_table_ops_t ops = {.find = fake_find};
static nve_ext_table_t table = {.self = &table, .ops = &ops};

static void one_find(void)
{
  int64_t key = 1;
  assert_int_equal(nc_call_find(&table, 1, &key, NULL, 8, NULL, NULL), NVE_SUCCESS);
}

static void *find_then_leave(void *arg)
{
  (void)arg;
  while (wait_for_left && atomic_load(&arrived) < 1)
    ; /* the outer find first */
  one_find();
  atomic_fetch_add(&left, 1);
  return NULL;
}

static void reset(int inside_at_once, int wait_left)
{
  atomic_store(&arrived, 0);
  atomic_store(&left, 0);
  want_inside = inside_at_once;
  wait_for_left = wait_left;
  nc_calls_overlap_reset();
}

static void test_finds_one_after_another_do_not_overlap(void **state)
{
  (void)state;
  reset(1, 0);
  for (int i = 0; i < 5; i++)
    one_find();
  assert_int_equal(nc_calls_overlapped(), 0);
}

/* A find on another thread beside one on this thread; with outer_waits,
 * this thread's find waits inside until the other's has been and gone. */
static void finds_on_two_threads(int outer_waits)
{
  pthread_t t;
  assert_int_equal(nc_thread_create(&t, find_then_leave, NULL), 0);
  outer = outer_waits;
  one_find();
  outer = 0;
  pthread_join(t, NULL);
}

/* Both inside at once: each saw the other as it entered or left. */
static void test_finds_inside_together_both_count(void **state)
{
  (void)state;
  reset(2, 0);
  finds_on_two_threads(0);
  assert_int_equal(nc_calls_overlapped(), 2);
}

/* One find enters and leaves while the other is inside: the inner one saw
 * the outer as it entered, the outer one counts it by the entries made
 * meanwhile, though it was gone when the outer one left. */
static void test_find_entered_and_left_meanwhile_counts(void **state)
{
  (void)state;
  reset(1, 1);
  finds_on_two_threads(1);
  assert_int_equal(nc_calls_overlapped(), 2);
}

static void test_reset_clears_the_count(void **state)
{
  (void)state;
  reset(2, 0);
  finds_on_two_threads(0);
  assert_true(nc_calls_overlapped() > 0);
  reset(1, 0);
  assert_int_equal(nc_calls_overlapped(), 0);
  one_find();
  assert_int_equal(nc_calls_overlapped(), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_finds_one_after_another_do_not_overlap),
      cmocka_unit_test(test_finds_inside_together_both_count),
      cmocka_unit_test(test_find_entered_and_left_meanwhile_counts),
      cmocka_unit_test(test_reset_clears_the_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
