/* SPDX-License-Identifier: Apache-2.0 */
/* The keys a modifying step's read-back finds (cases/kit/explore_run.c),
 * which the C reproducer lists too: the step's first keys, as many as fit
 * beside the extra ones, then NC_X_PROBE_EXTRA keys of the sequence drawn
 * from the step alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "explore_run.h"

#define ARENA 1000

static int64_t arena[ARENA];

static nc_x_seq sequence(uint64_t seed)
{
  nc_x_seq q;
  memset(&q, 0, sizeof(q));
  for (int i = 0; i < ARENA; i++)
    arena[i] = 5000 + i;
  q.arena = arena;
  q.arena_len = ARENA;
  q.seed = seed;
  return q;
}

static nc_x_step step(int64_t first, int64_t n, uint64_t tag)
{
  nc_x_step s;
  memset(&s, 0, sizeof(s));
  s.action = NC_X_INSERT;
  s.first = first;
  s.n = n;
  s.tag = tag;
  return s;
}

static int in_arena(int64_t key) { return key >= 5000 && key < 5000 + ARENA; }

static void test_own_keys_then_extra(void **state)
{
  (void)state;
  nc_x_seq q = sequence(7);
  nc_x_step s = step(10, 5, 3);
  int64_t out[NC_X_PROBE_MAX];
  int64_t n = nc_x_probe_keys(&q, &s, 128, out);
  assert_int_equal(n, 5 + NC_X_PROBE_EXTRA);
  for (int i = 0; i < 5; i++)
    assert_int_equal(out[i], arena[10 + i]);
  for (int64_t i = 5; i < n; i++)
    assert_true(in_arena(out[i]));
}

static void test_own_keys_capped(void **state)
{
  (void)state;
  nc_x_seq q = sequence(7);
  nc_x_step s = step(0, 900, 3);
  int64_t out[NC_X_PROBE_MAX];
  assert_int_equal(nc_x_probe_keys(&q, &s, 128, out), NC_X_PROBE_MAX);
  /* Rows so wide that a call holds 20 keys: 4 of the step's, 16 extra. */
  int64_t stride = (16 << 20) / 20 - 16;
  assert_int_equal(nc_x_probe_keys(&q, &s, stride, out), 20);
  assert_int_equal(out[3], arena[3]);
  /* Wider still: none of the step's own, the extra ones still. */
  assert_int_equal(nc_x_probe_keys(&q, &s, (int64_t)1 << 26, out), NC_X_PROBE_EXTRA);
}

/* The extra keys follow from the sequence's seed and the step's tag alone:
 * a replay without some other step reads the same keys back. */
static void test_extra_keys_from_the_step_alone(void **state)
{
  (void)state;
  nc_x_seq q = sequence(11);
  nc_x_step a = step(0, 3, 42), b = step(500, 3, 42), c = step(0, 3, 43);
  int64_t ka[NC_X_PROBE_MAX], kb[NC_X_PROBE_MAX], kc[NC_X_PROBE_MAX];
  nc_x_probe_keys(&q, &a, 128, ka);
  nc_x_probe_keys(&q, &b, 128, kb);
  nc_x_probe_keys(&q, &c, 128, kc);
  assert_memory_equal(ka + 3, kb + 3, NC_X_PROBE_EXTRA * sizeof(int64_t));
  assert_memory_not_equal(ka + 3, kc + 3, NC_X_PROBE_EXTRA * sizeof(int64_t));
  nc_x_seq other = sequence(12);
  nc_x_probe_keys(&other, &a, 128, kc);
  assert_memory_not_equal(ka + 3, kc + 3, NC_X_PROBE_EXTRA * sizeof(int64_t));
}

static void test_which_steps_probe(void **state)
{
  (void)state;
  assert_true(nc_x_probes(NC_X_INSERT) && nc_x_probes(NC_X_UPDATE) &&
              nc_x_probes(NC_X_ACCUMULATE) && nc_x_probes(NC_X_ERASE) &&
              nc_x_probes(NC_X_CLEAR));
  assert_false(nc_x_probes(NC_X_FIND) || nc_x_probes(NC_X_COUNTER) ||
               nc_x_probes(NC_X_PRODUCE) || nc_x_probes(NC_X_DESTROY) ||
               nc_x_probes(NC_X_DROP_FACTORY));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_own_keys_then_extra),
      cmocka_unit_test(test_own_keys_capped),
      cmocka_unit_test(test_extra_keys_from_the_step_alone),
      cmocka_unit_test(test_which_steps_probe),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
