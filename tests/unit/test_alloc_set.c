/* SPDX-License-Identifier: Apache-2.0 */
/* The set of live counted blocks behind the allocation rules
 * (lib/check/alloc.c): it starts small and grows as blocks come, and
 * every count stays right through its moves, deletions and resets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "alloc.h"

/* Addresses no allocator handed out: the set only compares them. */
static void *fake(size_t i) { return (void *)(uintptr_t)(0x10000000u + i * 48); }

static void expect_live(long blocks, long bytes)
{
  nc_alloc_stats st;
  nc_alloc_get_stats(&st);
  assert_int_equal(st.live, blocks);
  assert_int_equal(st.live_bytes, bytes);
}

static void test_blocks_counted_through_growth(void **state)
{
  (void)state;
  nc_alloc_reset();
  enum { N = 100000 }; /* far past the first set's size: several moves */
  for (size_t i = 0; i < N; i++)
    nc_alloc_remember(fake(i), 10);
  expect_live(N, 10L * N);
  for (size_t i = 0; i < N; i += 2)
    nc_alloc_forget(fake(i));
  expect_live(N / 2, 10L * (N / 2));
  for (size_t i = 1; i < N; i += 2)
    nc_alloc_forget(fake(i));
  expect_live(0, 0);
}

static void test_unknown_and_repeated_frees_change_nothing(void **state)
{
  (void)state;
  nc_alloc_reset();
  nc_alloc_remember(fake(1), 100);
  nc_alloc_forget(fake(2));
  nc_alloc_forget(NULL);
  expect_live(1, 100);
  nc_alloc_forget(fake(1));
  nc_alloc_forget(fake(1));
  expect_live(0, 0);
  assert_true(nc_alloc_recently_freed((char *)fake(1) + 50));
}

/* Blocks that come and go in turns leave deleted slots behind: the set
 * cleans them out and never fills up. */
static void test_churn_leaves_the_set_usable(void **state)
{
  (void)state;
  nc_alloc_reset();
  for (size_t round = 0; round < 50; round++) {
    for (size_t i = 0; i < 3000; i++)
      nc_alloc_remember(fake(round * 3000 + i), 1);
    for (size_t i = 0; i < 3000; i++)
      nc_alloc_forget(fake(round * 3000 + i));
  }
  nc_alloc_remember(fake(1u << 24), 7);
  expect_live(1, 7);
  nc_alloc_forget(fake(1u << 24));
  expect_live(0, 0);
}

static void test_reset_forgets_every_block(void **state)
{
  (void)state;
  nc_alloc_reset();
  for (size_t i = 0; i < 20000; i++)
    nc_alloc_remember(fake(i), 3);
  nc_alloc_reset();
  expect_live(0, 0);
  nc_alloc_forget(fake(5)); /* from before the reset: not in the set */
  expect_live(0, 0);
  nc_alloc_remember(fake(5), 4);
  expect_live(1, 4);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_blocks_counted_through_growth),
      cmocka_unit_test(test_unknown_and_repeated_frees_change_nothing),
      cmocka_unit_test(test_churn_leaves_the_set_usable),
      cmocka_unit_test(test_reset_forgets_every_block),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
