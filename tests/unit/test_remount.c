/* SPDX-License-Identifier: Apache-2.0 */
/* The lines of /proc/self/mountinfo as the sandbox's older mounts read
 * them (lib/run/sandbox_remount.c): the mount point, unescaped, and the
 * flags a read-only remount must keep. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/mount.h>

#include "sandbox_remount.h"

static long id;

static int parse(const char *line, char *point, size_t len, unsigned long *flags)
{
  id = -2;
  return nc_mountinfo_parse(line, &id, point, len, flags);
}

static void a_plain_line(void **state)
{
  (void)state;
  char point[64];
  unsigned long flags = 99;
  assert_int_equal(parse("25 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n",
                                      point, sizeof(point), &flags),
                   0);
  assert_string_equal(point, "/");
  assert_int_equal(id, 25);
  assert_int_equal(flags, MS_RELATIME);
}

static void every_kept_flag_and_no_other(void **state)
{
  (void)state;
  char point[64];
  unsigned long flags = 0;
  assert_int_equal(parse("30 25 0:5 / /dev/pts ro,nosuid,nodev,noexec,noatime,"
                                      "nodiratime - devpts devpts rw,gid=5\n",
                                      point, sizeof(point), &flags),
                   0);
  assert_string_equal(point, "/dev/pts");
  assert_int_equal(flags, MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME);
  assert_int_equal(parse("32 25 0:5 / /n rw,relatime,nosymfollow - x y rw\n", point,
                         sizeof(point), &flags),
                   0);
  assert_int_equal(flags, MS_RELATIME | 256 /* MS_NOSYMFOLLOW */);
  /* Strict atime is no option at all, and a remount must ask for it; the
   * super block's options do not count. */
  assert_int_equal(parse("31 25 0:6 / /mnt rw master:2 - tmpfs t rw,nosuid\n", point,
                                      sizeof(point), &flags),
                   0);
  assert_int_equal(flags, MS_STRICTATIME);
}

static void escaped_mount_points(void **state)
{
  (void)state;
  char point[64];
  unsigned long flags;
  assert_int_equal(parse("40 25 0:7 / /mnt/a\\040b\\011c\\134d rw - tmpfs t rw\n",
                                      point, sizeof(point), &flags),
                   0);
  assert_string_equal(point, "/mnt/a b\tc\\d");
  /* A backslash that starts no octal escape stays as it is, at the end too. */
  assert_int_equal(parse("41 25 0:7 / /x\\9\\ rw - tmpfs t rw\n", point,
                                      sizeof(point), &flags),
                   0);
  assert_string_equal(point, "/x\\9\\");
}

static void lines_that_are_not_one(void **state)
{
  (void)state;
  char point[8];
  unsigned long flags;
  assert_int_equal(parse("", point, sizeof(point), &flags), -1);
  assert_int_equal(parse("x25 1 8:1 / / rw - x y rw\n", point, sizeof(point), &flags), -1);
  assert_int_equal(parse("25 1 8:1 /\n", point, sizeof(point), &flags), -1);
  assert_int_equal(parse("25 1 8:1 / /\n", point, sizeof(point), &flags), -1);
  assert_int_equal(parse("25 1 8:1 / relative rw - x y rw\n", point, sizeof(point),
                                      &flags),
                   -1);
  /* A mount point longer than the buffer is refused, not cut. */
  assert_int_equal(parse("25 1 8:1 / /a/long/path rw - x y rw\n", point,
                                      sizeof(point), &flags),
                   -1);
  assert_int_equal(parse("25 1 8:1 / /a/b/c rw - x y rw\n", point, sizeof(point),
                                      &flags),
                   0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_plain_line),
      cmocka_unit_test(every_kept_flag_and_no_other),
      cmocka_unit_test(escaped_mount_points),
      cmocka_unit_test(lines_that_are_not_one),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
