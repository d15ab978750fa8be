/* SPDX-License-Identifier: Apache-2.0 */
/* Guarded buffers (lib/check/guarded.c): the canary pattern is the same
 * however it is written (whole or in pieces, any salt), every changed byte
 * of it is found, and a buffer's edges report a write before its start or
 * into its padding, on fresh mappings and on reused ones, zeroed or not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "guarded.h"

/* Byte i of the pattern with salt s, as guarded.c defines it. */
static unsigned char expected_byte(size_t i, size_t s)
{
  return (unsigned char)(0xa5u ^ ((i + s) * 131u));
}

static void test_fill_is_the_pattern(void **state)
{
  (void)state;
  size_t lens[] = {0, 1, 15, 255, 256, 257, 4095, 4096, 4097, 10000};
  size_t salts[] = {0, 3, 11, 255, 256, 1000};
  unsigned char *b = malloc(10000);
  assert_non_null(b);
  for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
    for (size_t s = 0; s < sizeof(salts) / sizeof(salts[0]); s++) {
      memset(b, 0, 10000);
      nc_canary_fill(b, lens[l], salts[s]);
      for (size_t i = 0; i < lens[l]; i++)
        assert_int_equal(b[i], expected_byte(i, salts[s]));
      assert_int_equal(nc_canary_damage(b, lens[l], salts[s]), -1);
    }
  free(b);
}

/* A fill of a piece at offset off with salt + off is that piece of the
 * whole fill: what the table kit relies on to fill only the stride gaps. */
static void test_pieces_match_the_whole(void **state)
{
  (void)state;
  unsigned char whole[9000], pieces[9000];
  nc_canary_fill(whole, sizeof(whole), 11);
  memset(pieces, 0, sizeof(pieces));
  for (size_t off = 0; off < sizeof(pieces); off += 700)
    nc_canary_fill(pieces + off, sizeof(pieces) - off < 700 ? sizeof(pieces) - off : 700, 11 + off);
  assert_memory_equal(whole, pieces, sizeof(whole));
}

static void test_damage_is_found_anywhere(void **state)
{
  (void)state;
  unsigned char b[9000];
  size_t at[] = {0, 1, 255, 256, 4095, 4096, 4097, 8999};
  for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
    nc_canary_fill(b, sizeof(b), 7);
    b[at[k]] ^= 1;
    assert_int_equal(nc_canary_damage(b, sizeof(b), 7), (long)at[k]);
  }
}

/* Writes one byte at offset (negative: before the start) of a fresh buffer
 * of size bytes; returns whether its edges then say damaged. */
static int edges_after_write(size_t size, long offset, unsigned flags)
{
  nc_guarded g;
  char what[96] = "";
  assert_int_equal(nc_guarded_alloc_with(&g, "test values", size, flags), 0);
  assert_int_equal(nc_guarded_edges_damaged(&g, what, sizeof(what)), 0);
  g.data[offset] ^= 0x5a;
  int damaged = nc_guarded_edges_damaged(&g, what, sizeof(what));
  g.data[offset] ^= 0x5a;
  nc_guarded_free(&g);
  return damaged;
}

static void test_edges_catch_writes_outside(void **state)
{
  (void)state;
  /* Twice each: the second buffer is a reused mapping. */
  for (int round = 0; round < 2; round++) {
    assert_true(edges_after_write(100, -1, 0));
    assert_true(edges_after_write(100, -NC_GUARD_FRONT, 0));
    assert_true(edges_after_write(100, 100, 0)); /* padding up to 112 */
    assert_true(edges_after_write(100, 111, NC_GUARDED_UNZEROED));
    assert_true(edges_after_write(5000, -1, NC_GUARDED_UNZEROED));
    assert_false(edges_after_write(100, 0, 0));
    assert_false(edges_after_write(100, 99, 0));
    /* Without canaries the edges are not checked (nothing to compare). */
    assert_false(edges_after_write(100, -1, NC_GUARDED_NO_CANARIES));
  }
}

/* The data of nc_guarded_alloc reads as zeros, also in a reused mapping
 * whose earlier user left bytes behind. */
static void test_data_is_zeroed(void **state)
{
  (void)state;
  for (int round = 0; round < 3; round++) {
    nc_guarded g;
    assert_int_equal(nc_guarded_alloc(&g, "test keys", 3000), 0);
    for (size_t i = 0; i < 3000; i++)
      assert_int_equal(g.data[i], 0);
    memset(g.data, 0xee, 3000);
    nc_guarded_free(&g);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fill_is_the_pattern),
      cmocka_unit_test(test_pieces_match_the_whole),
      cmocka_unit_test(test_damage_is_found_anywhere),
      cmocka_unit_test(test_edges_catch_writes_outside),
      cmocka_unit_test(test_data_is_zeroed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
