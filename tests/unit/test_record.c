/* SPDX-License-Identifier: Apache-2.0 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/* Writes records into a pipe and reads them back through the parser. */
static void test_round_trip_with_special_characters(void **state)
{
  (void)state;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  const char *fields[] = {"tab\there", "new\nline", "back\\slash", ""};
  assert_int_equal(nc_record_write(fds[1], "CHECK", 4, fields), 0);
  assert_int_equal(nc_record_write(fds[1], "END", 0, NULL), 0);
  close(fds[1]);
  nc_record_reader r;
  nc_record_reader_init(&r);
  char buf[8192];
  ssize_t n;
  while ((n = read(fds[0], buf, 3)) > 0) /* tiny reads: records arrive in pieces */
    assert_int_equal(nc_record_reader_feed(&r, buf, (size_t)n), 0);
  close(fds[0]);
  nc_record rec;
  assert_int_equal(nc_record_reader_next(&r, &rec), 1);
  assert_string_equal(rec.tag, "CHECK");
  assert_int_equal(rec.nfields, 4);
  assert_string_equal(rec.fields[0], "tab\there");
  assert_string_equal(rec.fields[1], "new\nline");
  assert_string_equal(rec.fields[2], "back\\slash");
  assert_string_equal(rec.fields[3], "");
  nc_record_clear(&rec);
  assert_int_equal(nc_record_reader_next(&r, &rec), 1);
  assert_string_equal(rec.tag, "END");
  assert_int_equal(rec.nfields, 0);
  nc_record_clear(&rec);
  assert_int_equal(nc_record_reader_next(&r, &rec), 0);
  nc_record_reader_free(&r);
}

/* A huge field is truncated so the record stays one atomic pipe write, and
 * the fields after it survive. */
static void test_long_fields_are_truncated_fairly(void **state)
{
  (void)state;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  char *big = malloc(20000);
  memset(big, 'x', 19999);
  big[19999] = '\0';
  const char *fields[] = {big, "tail"};
  assert_int_equal(nc_record_write(fds[1], "CHECK", 2, fields), 0);
  close(fds[1]);
  char buf[NC_RECORD_MAX + 16];
  ssize_t n = read(fds[0], buf, sizeof(buf));
  close(fds[0]);
  assert_true(n > 0 && n <= NC_RECORD_MAX);
  nc_record_reader r;
  nc_record_reader_init(&r);
  nc_record_reader_feed(&r, buf, (size_t)n);
  nc_record rec;
  assert_int_equal(nc_record_reader_next(&r, &rec), 1);
  assert_int_equal(rec.nfields, 2);
  assert_string_equal(rec.fields[1], "tail");
  assert_true(strlen(rec.fields[0]) > 1000);
  nc_record_clear(&rec);
  nc_record_reader_free(&r);
  free(big);
}

static void test_write_to_closed_descriptor_fails(void **state)
{
  (void)state;
  assert_int_equal(nc_record_write(-1, "END", 0, NULL), -1);
}

/* Records fed a few bytes at a time, taken as they complete: every one
 * comes out whole and in order while the reader keeps moving its start
 * (and compacting) underneath. */
static void test_reader_takes_records_fed_in_pieces(void **state)
{
  (void)state;
  nc_record_reader r;
  nc_record_reader_init(&r);
  char stream[20000];
  size_t len = 0;
  for (int i = 0; i < 1000; i++)
    len += (size_t)snprintf(stream + len, sizeof(stream) - len, "T%d\tf%d\n", i, i * 7);
  int next = 0;
  for (size_t at = 0; at < len; at += 13) {
    size_t n = len - at < 13 ? len - at : 13;
    assert_int_equal(nc_record_reader_feed(&r, stream + at, n), 0);
    nc_record rec;
    while (nc_record_reader_next(&r, &rec)) {
      char tag[16], field[16];
      snprintf(tag, sizeof(tag), "T%d", next);
      snprintf(field, sizeof(field), "f%d", next * 7);
      assert_string_equal(rec.tag, tag);
      assert_int_equal(rec.nfields, 1);
      assert_string_equal(rec.fields[0], field);
      nc_record_clear(&rec);
      next++;
    }
    assert_true(r.len - r.start < 64); /* what is left is one partial record */
  }
  assert_int_equal(next, 1000);
  nc_record_reader_free(&r);
}

static void test_keyed_lines(void **state)
{
  (void)state;
  assert_true(nc_record_line_keyed("abc:SETTLED", 11, "abc"));
  assert_false(nc_record_line_keyed("abd:SETTLED", 11, "abc"));
  assert_false(nc_record_line_keyed("abcSETTLED", 10, "abc"));
  assert_false(nc_record_line_keyed("abc", 3, "abc"));
  assert_false(nc_record_line_keyed("", 0, "abc"));
  assert_false(nc_record_line_keyed("SETTLED", 7, "")); /* no key, nothing is keyed */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_with_special_characters),
      cmocka_unit_test(test_long_fields_are_truncated_fairly),
      cmocka_unit_test(test_write_to_closed_descriptor_fails),
      cmocka_unit_test(test_reader_takes_records_fed_in_pieces),
      cmocka_unit_test(test_keyed_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
