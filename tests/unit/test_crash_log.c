/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a case's crash log back (cases/kit/crash_log.c): the lines
 * lib/host/call_log.c writes, numbered tables and factories, keys and
 * config texts where the data holds them, and lines that do not fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "call_log.h"
#include "crash_log.h"

static unsigned char data[64];

static long long upto = -1;

static int parse(crash_log *l, const char *lines)
{
  memset(l, 0, sizeof(*l));
  l->data = malloc(sizeof(data));
  memcpy(l->data, data, sizeof(data));
  l->data_len = sizeof(data);
  char *text = strdup(lines);
  int rc = nc_crash_log_parse(l, text, upto);
  free(text);
  return rc;
}

/* A factory, two tables, calls with keys and NULL outputs, destroys. */
static void test_calls_and_numbers(void **state)
{
  (void)state;
  crash_log l;
  assert_int_equal(parse(&l, "create n=0 stride=0 size=0 dtype=0 config=0:2 status=0 t=f0 proc=0\n"
                             "produce n=0 stride=0 size=0 dtype=0 config=2:2 status=0 t=a1 proc=0\n"
                             "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=b2 proc=0\n"
                             "insert n=2 stride=136 size=128 dtype=0 t=b2 proc=0 keys=8 ks=8\n"
                             "find n=2 stride=136 size=0 dtype=0 hits=-1 nulls=4 t=a1 proc=0 keys=24 ks=8\n"
                             "update_accumulate n=1 stride=8 size=8 dtype=2 t=a1 proc=0 keys=40 ks=4\n"
                             "destroy n=0 stride=0 size=0 dtype=0 t=a1 proc=0\n"
                             "destroy_factory n=0 stride=0 size=0 dtype=0 t=f0 proc=0\n"),
                   0);
  assert_int_equal(l.n, 8);
  assert_int_equal(l.nfactories, 1);
  assert_int_equal(l.ntables, 2);
  assert_int_equal(l.calls[0].op, CR_CREATE);
  assert_int_equal(l.calls[0].at, 0);
  assert_int_equal(l.calls[0].len, 2);
  assert_int_equal(l.calls[2].at, -1); /* config=-: a NULL config */
  assert_int_equal(l.calls[3].op, CR_INSERT);
  assert_int_equal(l.calls[3].handle, 1); /* t=b2, the second table */
  assert_int_equal(l.calls[3].at, 8);
  assert_int_equal(l.calls[3].len, 16);
  assert_int_equal(l.calls[3].stride, 136);
  assert_int_equal(l.calls[3].size, 128);
  assert_int_equal(l.calls[4].op, CR_FIND);
  assert_int_equal(l.calls[4].handle, 0);
  assert_int_equal(l.calls[4].nulls, CR_NULL_SIZES);
  assert_int_equal(l.calls[5].op, CR_ACCUMULATE);
  assert_int_equal(l.calls[5].dtype, 2);
  assert_int_equal(l.calls[5].key_size, 4);
  assert_int_equal(l.calls[5].len, 4);
  assert_int_equal(l.calls[6].op, CR_DESTROY);
  assert_int_equal(l.calls[7].op, CR_DROP_FACTORY);
  assert_int_equal(l.calls[7].handle, 0);
  assert_false(l.keyless);
  nc_crash_log_free(&l);
}

/* A handle the plugin hands out again after a destroy is a new table;
 * calls name the latest one made with it. */
static void test_reused_handle(void **state)
{
  (void)state;
  crash_log l;
  assert_int_equal(parse(&l, "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                             "destroy n=0 stride=0 size=0 dtype=0 t=a1 proc=0\n"
                             "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                             "clear n=0 stride=0 size=0 dtype=0 t=a1 proc=0\n"),
                   0);
  assert_int_equal(l.n, 4);
  assert_int_equal(l.ntables, 2);
  assert_int_equal(l.calls[1].handle, 0);
  assert_int_equal(l.calls[3].handle, 1);
  nc_crash_log_free(&l);
}

/* Lines of no known op, and calls on a table the log did not see made,
 * are skipped; a call with keys but none logged (a DEVICE table's) marks
 * the log keyless. */
static void test_skipped_and_keyless(void **state)
{
  (void)state;
  crash_log l;
  assert_int_equal(parse(&l, "last_error n=0 stride=0 size=0 dtype=0 t=a1 proc=0\n"
                             "garbage\n"
                             "\n"
                             "find n=3 stride=8 size=0 dtype=0 hits=-1 nulls=0 t=77 proc=0\n"
                             "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                             "erase n=3 stride=0 size=0 dtype=0 t=a1 proc=0\n"),
                   0);
  assert_int_equal(l.n, 2);
  assert_int_equal(l.calls[1].op, CR_ERASE);
  assert_true(l.keyless);
  nc_crash_log_free(&l);
}

/* Keys or a config outside the data: the log cannot be used. */
static void test_outside_the_data(void **state)
{
  (void)state;
  crash_log l;
  assert_int_equal(parse(&l, "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                             "insert n=8 stride=8 size=8 dtype=0 t=a1 proc=0 keys=8 ks=8\n"),
                   -1);
  nc_crash_log_free(&l);
  assert_int_equal(parse(&l, "create n=0 stride=0 size=0 dtype=0 config=60:10 status=0 t=f0 proc=0\n"),
                   -1);
  nc_crash_log_free(&l);
  assert_int_equal(parse(&l, "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                             "insert n=-4 stride=8 size=8 dtype=0 t=a1 proc=0 keys=8 ks=8\n"),
                   -1);
  nc_crash_log_free(&l);
}

/* Key sizes other than 4 and 8 (a log plugin code rewrote): unusable; a
 * config on a call that takes keys is not where its keys are. */
static void test_forged_fields(void **state)
{
  (void)state;
  crash_log l;
  assert_int_equal(parse(&l, "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                             "find n=1 stride=8 size=0 dtype=0 hits=-1 nulls=0 t=a1 proc=0 keys=0 ks=1000\n"),
                   -1);
  nc_crash_log_free(&l);
  assert_int_equal(parse(&l, "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                             "erase n=2 stride=0 size=0 dtype=0 t=a1 proc=0 keys=0 ks=4 config=60:900\n"),
                   0);
  assert_int_equal(l.calls[1].at, 0);
  assert_int_equal(l.calls[1].len, 8);
  nc_crash_log_free(&l);
  assert_int_equal(parse(&l, "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                             "find n=0 stride=8 size=0 dtype=0 hits=-1 nulls=255 t=a1 proc=0\n"),
                   0);
  assert_int_equal(l.calls[1].nulls, CR_NULL_MASK | CR_NULL_VALUES | CR_NULL_SIZES);
  assert_false(l.keyless); /* no keys to hold */
  nc_crash_log_free(&l);
}

/* A log cut at its bound says so: its last call is not the process's. */
static void test_cut(void **state)
{
  (void)state;
  crash_log l;
  assert_int_equal(parse(&l, "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                             "cut\n"),
                   0);
  assert_true(l.cut);
  assert_int_equal(l.n, 1);
  nc_crash_log_free(&l);
}

/* Up to a line: the calls through it, the last one on it; where that line
 * is no call, the last call's line is another. */
static void test_upto(void **state)
{
  (void)state;
  crash_log l;
  const char *lines = "produce n=0 stride=0 size=0 dtype=0 config=- status=0 t=a1 proc=0\n"
                      "clear n=0 stride=0 size=0 dtype=0 t=a1 proc=0\n"
                      "cut\n"
                      "last_error n=0 stride=0 size=0 dtype=0 t=a1 proc=0\n"
                      "clear n=0 stride=0 size=0 dtype=0 t=a1 proc=0\n"
                      "clear n=0 stride=0 size=0 dtype=0 t=a1 proc=0\n";
  upto = 1;
  assert_int_equal(parse(&l, lines), 0);
  assert_int_equal(l.n, 2);
  assert_int_equal(l.last_line, 1);
  nc_crash_log_free(&l);
  upto = 3; /* "cut" is no line of the count */
  assert_int_equal(parse(&l, lines), 0);
  assert_int_equal(l.n, 3);
  assert_int_equal(l.last_line, 3);
  nc_crash_log_free(&l);
  upto = 2;
  assert_int_equal(parse(&l, lines), 0);
  assert_int_equal(l.last_line, 1);
  nc_crash_log_free(&l);
  upto = -1;
}

/* The callbacks whose calls the log holds: a process that ended in one
 * can be replayed up to it. */
static void test_holds(void **state)
{
  (void)state;
  assert_true(nc_call_log_holds("table find (n=5)"));
  assert_true(nc_call_log_holds("table update_accumulate (n=1)"));
  assert_true(nc_call_log_holds("table update (n=0)"));
  assert_true(nc_call_log_holds("table destroy"));
  assert_false(nc_call_log_holds("table last_error"));
  assert_false(nc_call_log_holds("table capabilities (preferred_buffer_location .. lookup_counter_hits)"));
  assert_false(nc_call_log_holds("table updated (n=1)"));
  assert_false(nc_call_log_holds("factory produce"));
  assert_false(nc_call_log_holds(""));
  assert_false(nc_call_log_holds(NULL));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_calls_and_numbers),
      cmocka_unit_test(test_reused_handle),
      cmocka_unit_test(test_skipped_and_keyless),
      cmocka_unit_test(test_outside_the_data),
      cmocka_unit_test(test_forged_fields),
      cmocka_unit_test(test_cut),
      cmocka_unit_test(test_upto),
      cmocka_unit_test(test_holds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
