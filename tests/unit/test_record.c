/* SPDX-License-Identifier: Apache-2.0 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
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

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_with_special_characters),
      cmocka_unit_test(test_long_fields_are_truncated_fairly),
      cmocka_unit_test(test_write_to_closed_descriptor_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
