/* SPDX-License-Identifier: Apache-2.0 */
/* The table model: what it accepts and what it must refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "oracle.h"

#define ROW 8 /* two float32 elements */

/* The blocks the model holds: this program's malloc, calloc, realloc and
 * free are wrapped at link time (Makefile.am), so that a row the model
 * fails to free shows in a plain run, without valgrind. */
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);
static long live_blocks;

void *__wrap_malloc(size_t size)
{
  void *p = __real_malloc(size);
  live_blocks += p != NULL;
  return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
  void *p = __real_calloc(n, size);
  live_blocks += p != NULL;
  return p;
}

void *__wrap_realloc(void *p, size_t size)
{
  void *q = __real_realloc(p, size);
  live_blocks += (!p && q) - (p && !size && !q); /* realloc(p, 0) frees p (glibc) */
  return q;
}

void __wrap_free(void *p)
{
  live_blocks -= p != NULL;
  __real_free(p);
}

static void row_of(float a, float b, unsigned char *out)
{
  memcpy(out, &a, 4);
  memcpy(out + 4, &b, 4);
}

static nc_oracle_verdict check(nc_oracle *o, int64_t key, int hit, float a, float b)
{
  unsigned char row[ROW];
  row_of(a, b, row);
  return nc_oracle_check(o, key, hit, hit ? row : NULL, hit ? ROW : -1, NULL);
}

static void test_insert_then_find(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 0, -1);
  int64_t keys[2] = {5, 6};
  unsigned char rows[2 * ROW];
  row_of(1, 2, rows);
  row_of(3, 4, rows + ROW);
  nc_oracle_insert(o, 2, keys, ROW, rows);
  assert_int_equal(check(o, 5, 1, 1, 2), NC_ORACLE_OK);
  assert_int_equal(check(o, 6, 1, 1, 2), NC_ORACLE_WRONG_BYTES);
  assert_int_equal(check(o, 6, 0, 0, 0), NC_ORACLE_OK); /* evicted: allowed */
  assert_int_equal(check(o, 7, 1, 0, 0), NC_ORACLE_HIT_ABSENT);
  nc_oracle_free(o);
}

static nc_oracle_verdict check_sized(nc_oracle *o, int64_t key, float a, float b, int64_t size)
{
  unsigned char row[ROW];
  row_of(a, b, row);
  return nc_oracle_check(o, key, 1, row, size, NULL);
}

/* A write of one element of two: the first must come back, the second is
 * open, and value_sizes may say the bytes written or the row. */
static void test_short_write_leaves_the_tail_open(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 0, -1);
  int64_t key = 5;
  unsigned char row[ROW];
  row_of(1, 2, row);
  nc_oracle_insert_prefix(o, 1, &key, ROW, 4, row);
  assert_int_equal(check_sized(o, 5, 1, 2, 4), NC_ORACLE_OK);
  assert_int_equal(check_sized(o, 5, 1, 0, ROW), NC_ORACLE_OK);  /* zero padded */
  assert_int_equal(check_sized(o, 5, 1, 99, 4), NC_ORACLE_OK);   /* any tail */
  assert_int_equal(check_sized(o, 5, 7, 2, 4), NC_ORACLE_WRONG_BYTES);
  assert_int_equal(check_sized(o, 5, 1, 2, 3), NC_ORACLE_WRONG_SIZE); /* less than written */
  assert_int_equal(check_sized(o, 5, 1, 2, ROW + 4), NC_ORACLE_WRONG_SIZE);
  /* A short update of a whole row: its first element is the update's. */
  int64_t other = 6;
  nc_oracle_insert(o, 1, &other, ROW, row);
  row_of(3, 4, row);
  nc_oracle_update_prefix(o, 1, &other, ROW, 4, row);
  assert_int_equal(check_sized(o, 6, 3, 2, ROW), NC_ORACLE_OK);
  assert_int_equal(check_sized(o, 6, 1, 2, ROW), NC_ORACLE_WRONG_BYTES);
  /* A whole write closes the tail again, and only the row's size goes. */
  row_of(5, 6, row);
  nc_oracle_update(o, 1, &key, ROW, row);
  assert_int_equal(check_sized(o, 5, 5, 6, ROW), NC_ORACLE_OK);
  assert_int_equal(check_sized(o, 5, 5, 0, ROW), NC_ORACLE_WRONG_BYTES);
  assert_int_equal(check_sized(o, 5, 5, 6, 4), NC_ORACLE_WRONG_SIZE);
  nc_oracle_free(o);
}

/* A short write beside a whole one in the same batch (a duplicate key):
 * either may be kept, so the shorter's open tail holds for the key; sums
 * into an open tail are not predicted. */
static void test_short_write_candidates_and_sums(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 0, -1);
  int64_t key = 5;
  unsigned char row[ROW];
  row_of(1, 2, row);
  nc_oracle_insert(o, 1, &key, ROW, row);
  row_of(3, 4, row);
  nc_oracle_insert_prefix(o, 1, &key, ROW, 4, row); /* kept or overwritten */
  assert_int_equal(check_sized(o, 5, 1, 2, ROW), NC_ORACLE_OK);
  assert_int_equal(check_sized(o, 5, 3, 77, 4), NC_ORACLE_OK);
  assert_int_equal(check_sized(o, 5, 9, 2, ROW), NC_ORACLE_WRONG_BYTES);
  int64_t other = 6;
  row_of(1, 2, row);
  nc_oracle_insert_prefix(o, 1, &other, ROW, 4, row);
  unsigned char upd[ROW];
  row_of(10, 1e30f, upd); /* the second sum would not be exact: it is open anyway */
  assert_int_equal(nc_oracle_accumulate(o, 1, &other, ROW, ROW, upd, NVE_DTYPE_FLOAT32), 0);
  assert_int_equal(check_sized(o, 6, 11, 5, 4), NC_ORACLE_OK);
  assert_int_equal(check_sized(o, 6, 1, 5, 4), NC_ORACLE_WRONG_BYTES);
  /* A key whose op failed part-way may have been written short: any
   * size up to the row. */
  int64_t lost = 7;
  nc_oracle_forget(o, 1, &lost);
  assert_int_equal(check_sized(o, 7, 0, 0, 4), NC_ORACLE_OK);
  assert_int_equal(check_sized(o, 7, 0, 0, ROW + 1), NC_ORACLE_WRONG_SIZE);
  /* Two bytes of the first element known: a sum over it leaves it open. */
  int64_t cut = 8;
  row_of(1.1f, 2, row); /* low bytes not zero, unlike those of 123 below */
  nc_oracle_insert_prefix(o, 1, &cut, ROW, 2, row);
  row_of(1, 1, upd);
  assert_int_equal(nc_oracle_accumulate(o, 1, &cut, ROW, ROW, upd, NVE_DTYPE_FLOAT32), 0);
  assert_int_equal(check_sized(o, 8, 1.1f, 9, 2), NC_ORACLE_OK);
  assert_int_equal(check_sized(o, 8, 123, 9, ROW), NC_ORACLE_OK);
  nc_oracle_free(o);
}

/* n keys, first + step * i, and their rows (i, second). */
static void keys_and_rows(int n, int64_t first, int64_t step, float second, int64_t *keys,
                          unsigned char *rows)
{
  for (int i = 0; i < n; i++) {
    keys[i] = first + step * i;
    row_of((float)i, second, rows + i * ROW);
  }
}

/* A model made after another one was freed knows none of its keys, even
 * grown as large (the memory it grows into may be the earlier one's), and
 * a model knows none of its own keys after a clear. */
static void test_models_share_nothing(void **state)
{
  (void)state;
  enum { KEYS = 20000 };
  static int64_t keys[KEYS];
  static unsigned char rows[KEYS * ROW];
  keys_and_rows(KEYS, 1000, 1, 1, keys, rows);
  nc_oracle *first = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 1, -1);
  nc_oracle_insert(first, KEYS, keys, ROW, rows);
  assert_int_equal(check(first, 1000 + 77, 1, 77, 1), NC_ORACLE_OK);
  nc_oracle_free(first);
  nc_oracle *second = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 1, -1);
  keys_and_rows(KEYS, -5, -1, 1, keys, rows); /* other keys, as many: it grows as far */
  nc_oracle_insert(second, KEYS, keys, ROW, rows);
  for (int i = 0; i < KEYS; i += 97)
    assert_int_equal(check(second, 1000 + i, 1, (float)i, 1), NC_ORACLE_HIT_ABSENT);
  assert_int_equal(check(second, -5 - 77, 1, 77, 1), NC_ORACLE_OK);
  nc_oracle_clear(second);
  assert_int_equal(check(second, -5 - 77, 1, 77, 1), NC_ORACLE_HIT_ABSENT);
  assert_int_equal(nc_oracle_entries(second), 0);
  nc_oracle_free(second);
}

/* Room reserved ahead, before and after keys are in, keeps every key and
 * row; a clear of a large reserved model empties it. */
static void test_reserve_keeps_the_model(void **state)
{
  (void)state;
  enum { KEYS = 3000 };
  static int64_t keys[KEYS];
  static unsigned char rows[KEYS * ROW];
  keys_and_rows(KEYS, 3, 7, 2, keys, rows);
  nc_oracle *o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 1, -1);
  nc_oracle_reserve(o, 10);
  nc_oracle_insert(o, KEYS / 2, keys, ROW, rows);
  nc_oracle_reserve(o, 200000); /* with keys in: they move */
  nc_oracle_insert(o, KEYS - KEYS / 2, keys + KEYS / 2, ROW, rows + (KEYS / 2) * ROW);
  nc_oracle_reserve(o, 5); /* smaller than it is: nothing changes */
  assert_int_equal(nc_oracle_entries(o), KEYS);
  for (int i = 0; i < KEYS; i += 7) {
    assert_int_equal(check(o, keys[i], 1, (float)i, 2), NC_ORACLE_OK);
    assert_int_equal(check(o, keys[i], 1, (float)i, 3), NC_ORACLE_WRONG_BYTES);
  }
  assert_int_equal(check(o, 1, 1, 0, 2), NC_ORACLE_HIT_ABSENT);
  nc_oracle_clear(o);
  assert_int_equal(nc_oracle_entries(o), 0);
  assert_int_equal(check(o, keys[5], 1, 5, 2), NC_ORACLE_HIT_ABSENT);
  nc_oracle_insert(o, 1, keys + 5, ROW, rows + 5 * ROW);
  assert_int_equal(check(o, keys[5], 1, 5, 2), NC_ORACLE_OK);
  nc_oracle_free(o);
}

/* A key inserted again and again may hold any row written to it, up to
 * four; a fifth makes any bytes acceptable. The rows stay right as the
 * model makes room for them. */
static void test_candidates_grow_to_any(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 0, -1);
  int64_t key = 42, other = 43;
  unsigned char row[ROW];
  row_of(-1, -1, row);
  nc_oracle_insert(o, 1, &other, ROW, row); /* a neighbour in the pool */
  for (int r = 1; r <= 4; r++) {
    row_of((float)r, (float)(10 * r), row);
    nc_oracle_insert(o, 1, &key, ROW, row);
    for (int seen = 1; seen <= r; seen++)
      assert_int_equal(check(o, key, 1, (float)seen, (float)(10 * seen)), NC_ORACLE_OK);
    assert_int_equal(check(o, key, 1, 7, 7), NC_ORACLE_WRONG_BYTES);
  }
  assert_int_equal(check(o, other, 1, -1, -1), NC_ORACLE_OK);
  row_of(5, 50, row);
  nc_oracle_insert(o, 1, &key, ROW, row);
  assert_int_equal(check(o, key, 1, 7, 7), NC_ORACLE_OK); /* past four: any bytes */
  nc_oracle_free(o);
}

static void test_exact_table_may_not_miss(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 1, -1);
  int64_t keys[2] = {5, -1};
  unsigned char rows[2 * ROW];
  row_of(1, 2, rows);
  row_of(3, 4, rows + ROW);
  nc_oracle_insert(o, 2, keys, ROW, rows);
  assert_int_equal(check(o, 5, 0, 0, 0), NC_ORACLE_MISSING);
  assert_int_equal(check(o, -1, 0, 0, 0), NC_ORACLE_OK); /* the invalid key */
  nc_oracle_free(o);
}

static void test_update_never_inserts_and_reinsert_may_keep(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(4, ROW, NVE_DTYPE_FLOAT32, 0, -1);
  int32_t keys[2] = {1, 2};
  unsigned char rows[2 * ROW];
  row_of(1, 1, rows);
  row_of(2, 2, rows + ROW);
  nc_oracle_insert(o, 1, keys, ROW, rows);
  nc_oracle_update(o, 2, keys, ROW, rows + ROW); /* key 1 <- (2,2); key 2 stays absent */
  assert_int_equal(check(o, 1, 1, 2, 2), NC_ORACLE_OK);
  assert_int_equal(check(o, 1, 1, 1, 1), NC_ORACLE_WRONG_BYTES); /* stale */
  assert_int_equal(check(o, 2, 1, 2, 2), NC_ORACLE_HIT_ABSENT);
  nc_oracle_insert(o, 1, keys, ROW, rows); /* kept or overwritten */
  assert_int_equal(check(o, 1, 1, 2, 2), NC_ORACLE_OK);
  assert_int_equal(check(o, 1, 1, 1, 1), NC_ORACLE_OK);
  nc_oracle_free(o);
}

static void test_accumulate_erase_clear_forget(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 0, -1);
  int64_t keys[2] = {1, 2};
  unsigned char rows[2 * ROW];
  row_of(1, 2, rows);
  row_of(10, 20, rows + ROW);
  nc_oracle_insert(o, 1, keys, ROW, rows);
  assert_int_equal(nc_oracle_accumulate(o, 2, keys, ROW, ROW, rows, NVE_DTYPE_FLOAT32),
                   0);
  assert_int_equal(check(o, 1, 1, 2, 4), NC_ORACLE_OK);
  assert_int_equal(check(o, 2, 1, 1, 2), NC_ORACLE_HIT_ABSENT); /* missing keys ignored */
  uint16_t halves[2] = {0x3c00, 0xc000};                       /* 1.0 and -2.0 */
  assert_int_equal(nc_oracle_accumulate(o, 1, keys, 4, 4, halves, NVE_DTYPE_FLOAT16), 0);
  assert_int_equal(check(o, 1, 1, 3, 2), NC_ORACLE_OK);
  unsigned char fp8[2] = {0x38, 0xc0}; /* e4m3 1.0 and -2.0 */
  assert_int_equal(nc_oracle_accumulate(o, 1, keys, 2, 2, fp8, NVE_DTYPE_E4M3), 0);
  assert_int_equal(check(o, 1, 1, 4, 0), NC_ORACLE_OK);
  assert_int_equal(nc_oracle_accumulate(o, 1, keys, 4, 4, halves, NVE_DTYPE_QINT8_ROWWISE_F32),
                   -1);
  assert_int_equal(nc_oracle_accumulate(o, 1, keys, 4, 4, halves, (nve_data_type_t)99), -1);
  assert_int_equal(check(o, 1, 1, 4, 0), NC_ORACLE_OK); /* unchanged by the refused ones */
  nc_oracle_erase(o, 1, keys);
  assert_int_equal(check(o, 1, 1, 4, 0), NC_ORACLE_HIT_ABSENT);
  nc_oracle_insert(o, 1, keys, ROW, rows);
  nc_oracle_forget(o, 1, keys); /* a failed op: any bytes */
  assert_int_equal(check(o, 1, 1, 99, 99), NC_ORACLE_OK);
  nc_oracle_clear(o);
  assert_int_equal(check(o, 1, 1, 99, 99), NC_ORACLE_HIT_ABSENT);
  nc_oracle_forget_all(o);
  assert_int_equal(check(o, 7, 1, 5, 5), NC_ORACLE_OK);
  nc_oracle_free(o);
}

/* Rows of another element type: sums are computed in the row's type, and a
 * sum it cannot hold exactly leaves the bytes open. */
static void test_accumulate_into_narrow_rows(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, 4, NVE_DTYPE_FLOAT16, 0, -1);
  int64_t key = 3;
  uint16_t row[2] = {0x3c00, 0x6800}; /* 1.0 and 2048.0 */
  nc_oracle_insert(o, 1, &key, 4, row);
  float ups[2] = {2.0f, 0.0f};
  assert_int_equal(nc_oracle_accumulate(o, 1, &key, 8, 8, ups, NVE_DTYPE_FLOAT32), 0);
  uint16_t want[2] = {0x4200, 0x6800}; /* 3.0 and 2048.0 */
  assert_int_equal(nc_oracle_check(o, key, 1, want, 4, NULL), NC_ORACLE_OK);
  uint16_t wrong[2] = {0x3c00, 0x6800};
  assert_int_equal(nc_oracle_check(o, key, 1, wrong, 4, NULL), NC_ORACLE_WRONG_BYTES);
  ups[1] = 1.0f; /* 2049 is not a half: the result is not predicted */
  assert_int_equal(nc_oracle_accumulate(o, 1, &key, 8, 8, ups, NVE_DTYPE_FLOAT32), 0);
  assert_int_equal(nc_oracle_check(o, key, 1, wrong, 4, NULL), NC_ORACLE_OK);
  nc_oracle_free(o);
}

/* Opaque rows (no element type) are stored and compared, never summed. */
static void test_opaque_rows(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, 6, NVE_DTYPE_UNKNOWN, 0, -1);
  int64_t key = 9;
  unsigned char row[6] = {1, 2, 3, 4, 5, 6}, other[6] = {1, 2, 3, 4, 5, 7};
  nc_oracle_insert(o, 1, &key, 6, row);
  int64_t at = -1;
  assert_int_equal(nc_oracle_check(o, key, 1, other, 6, &at), NC_ORACLE_WRONG_BYTES);
  assert_int_equal(at, 5);
  assert_int_equal(nc_oracle_check(o, key, 1, row, 5, NULL), NC_ORACLE_WRONG_SIZE);
  assert_int_equal(nc_oracle_accumulate(o, 1, &key, 6, 4, row, NVE_DTYPE_FLOAT32), -1);
  nc_oracle_free(o);
}

/* What last changed a key, for charging a wrong answer to its op's rule. */
/* Observing an answer right after it was checked: an answer equal to the
 * key's row teaches nothing; one that differs (checked as wrong, observed
 * to re-sync), or one of several candidates, pins the row, even when it
 * sits at the address of an earlier right answer. */
static void test_observe_after_check(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 0, -1);
  int64_t key = 9;
  unsigned char rows[2 * ROW], answer[ROW];
  row_of(1, 2, rows);
  nc_oracle_insert(o, 1, &key, ROW, rows);
  row_of(1, 2, answer);
  assert_int_equal(nc_oracle_check(o, key, 1, answer, ROW, NULL), NC_ORACLE_OK);
  nc_oracle_observe(o, key, 1, answer);
  row_of(5, 6, answer); /* the same buffer, another answer */
  assert_int_equal(nc_oracle_check(o, key, 1, answer, ROW, NULL), NC_ORACLE_WRONG_BYTES);
  nc_oracle_observe(o, key, 1, answer);
  assert_int_equal(check(o, key, 1, 5, 6), NC_ORACLE_OK);
  assert_int_equal(check(o, key, 1, 1, 2), NC_ORACLE_WRONG_BYTES);
  /* Two rows for one key in one batch: the one read back is pinned. */
  int64_t twice[2] = {key, key};
  row_of(7, 8, rows);
  row_of(3, 4, rows + ROW);
  nc_oracle_insert(o, 2, twice, ROW, rows);
  row_of(3, 4, answer);
  assert_int_equal(nc_oracle_check(o, key, 1, answer, ROW, NULL), NC_ORACLE_OK);
  nc_oracle_observe(o, key, 1, answer);
  assert_int_equal(check(o, key, 1, 7, 8), NC_ORACLE_WRONG_BYTES);
  nc_oracle_free(o);
}

static void test_last_op(void **state)
{
  (void)state;
  nc_oracle *o = nc_oracle_new(8, 8, NVE_DTYPE_FLOAT32, 0, -1);
  int64_t a = 1, b = 2, never = 3;
  unsigned char row[8];
  row_of(1, 2, row);
  assert_int_equal(nc_oracle_last_op(o, never), NC_ORACLE_OP_NONE);
  nc_oracle_insert(o, 1, &a, 8, row);
  assert_int_equal(nc_oracle_last_op(o, a), NC_ORACLE_OP_INSERT);
  nc_oracle_update(o, 1, &a, 8, row);
  assert_int_equal(nc_oracle_last_op(o, a), NC_ORACLE_OP_UPDATE);
  nc_oracle_update(o, 1, &b, 8, row); /* an update of an absent key: still the update's */
  assert_int_equal(nc_oracle_last_op(o, b), NC_ORACLE_OP_UPDATE);
  assert_int_equal(nc_oracle_accumulate(o, 1, &a, 8, 8, row, NVE_DTYPE_FLOAT32), 0);
  assert_int_equal(nc_oracle_last_op(o, a), NC_ORACLE_OP_ACCUMULATE);
  nc_oracle_erase(o, 1, &a);
  assert_int_equal(nc_oracle_last_op(o, a), NC_ORACLE_OP_ERASE);
  nc_oracle_clear(o);
  assert_int_equal(nc_oracle_last_op(o, a), NC_ORACLE_OP_CLEAR);
  assert_int_equal(nc_oracle_last_op(o, never), NC_ORACLE_OP_CLEAR);
  nc_oracle_insert(o, 1, &a, 8, row);
  assert_int_equal(nc_oracle_last_op(o, a), NC_ORACLE_OP_INSERT);
  nc_oracle_forget_all(o); /* nothing is known, and nothing was cleared */
  assert_int_equal(nc_oracle_last_op(o, never), NC_ORACLE_OP_NONE);
  nc_oracle_free(o);
}

/* Keys of two and more rows hold blocks of their own, outside the row
 * pool: a clear and the model's end free every one, wherever the keys lie
 * in a large reserved array. */
static void test_every_row_freed(void **state)
{
  (void)state;
  long before = live_blocks;
  nc_oracle *o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 0, -1);
  nc_oracle_reserve(o, 100000);
  unsigned char rows[3 * ROW];
  /* rounds: (0) then forget_all, (1) then clear, (2) then the end; the
   * first model ends after round 2, the second after round 0 */
  for (int round = 0; round < 3; round++) {
    for (int64_t k = 0; k < 3000; k += 7) {
      int64_t keys[3] = {k * 977, k * 977, k * 977}; /* one key, three rows: kept or not */
      row_of((float)k, 1, rows);
      row_of((float)k, 2, rows + ROW);
      row_of((float)k, 3, rows + 2 * ROW);
      nc_oracle_insert(o, k % 2 ? 3 : 1, keys, ROW, rows);
    }
    if (round == 0) {
      assert_true(live_blocks > before + 200);
      nc_oracle_forget_all(o); /* then every key is unknown: no rows kept */
    } else if (round == 1) {
      nc_oracle_clear(o);
      for (int64_t k = 0; k < 3000; k += 7) /* every key cleared, the last one scanned too */
        assert_int_equal(check(o, k * 977, 1, (float)k, 1), NC_ORACLE_HIT_ABSENT);
    } else {
      assert_true(live_blocks > before + 200);
    }
  }
  nc_oracle_free(o);
  assert_int_equal(live_blocks, before);
  o = nc_oracle_new(8, ROW, NVE_DTYPE_FLOAT32, 0, -1);
  nc_oracle_reserve(o, 100000);
  for (int64_t k = 1; k < 3000; k += 14) {
    int64_t keys[2] = {k * 977, k * 977};
    row_of((float)k, 1, rows);
    row_of((float)k, 2, rows + ROW);
    nc_oracle_insert(o, 2, keys, ROW, rows);
  }
  assert_true(live_blocks > before + 200);
  nc_oracle_free(o);
  assert_int_equal(live_blocks, before);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_insert_then_find),
      cmocka_unit_test(test_exact_table_may_not_miss),
      cmocka_unit_test(test_update_never_inserts_and_reinsert_may_keep),
      cmocka_unit_test(test_accumulate_erase_clear_forget),
      cmocka_unit_test(test_accumulate_into_narrow_rows),
      cmocka_unit_test(test_opaque_rows),
      cmocka_unit_test(test_observe_after_check),
      cmocka_unit_test(test_last_op),
      cmocka_unit_test(test_models_share_nothing),
      cmocka_unit_test(test_reserve_keeps_the_model),
      cmocka_unit_test(test_candidates_grow_to_any),
      cmocka_unit_test(test_short_write_leaves_the_tail_open),
      cmocka_unit_test(test_short_write_candidates_and_sums),
      cmocka_unit_test(test_every_row_freed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
