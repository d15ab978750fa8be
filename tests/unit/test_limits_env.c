/* SPDX-License-Identifier: Apache-2.0 */
/* NVE_CONFORM_LIMITS read strictly: every well-formed value, and each way
 * a value can be malformed refused with the defaults kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "limits_env.h"

static const nc_limits defaults = {100, 200, 300, 0};

/* Parses text over the defaults; the status, with l and err for checks. */
static int parse(const char *text, nc_limits *l, char *err)
{
  *l = defaults;
  err[0] = '\0';
  return nc_limits_parse(text, l, err, 200);
}

static void assert_defaults(const nc_limits *l)
{
  assert_int_equal(l->as_mib, 100);
  assert_int_equal(l->fsize_mib, 200);
  assert_int_equal(l->nproc, 300);
  assert_int_equal(l->total_mib, 0);
}

static void test_unset_and_empty_keep_defaults(void **state)
{
  (void)state;
  nc_limits l;
  char err[200];
  assert_int_equal(parse(NULL, &l, err), 0);
  assert_defaults(&l);
  assert_int_equal(parse("", &l, err), 0);
  assert_defaults(&l);
}

static void test_every_key(void **state)
{
  (void)state;
  nc_limits l;
  char err[200];
  assert_int_equal(parse("as=4096,fsize=16,nproc=64,total=8192", &l, err), 0);
  assert_int_equal(l.as_mib, 4096);
  assert_int_equal(l.fsize_mib, 16);
  assert_int_equal(l.nproc, 64);
  assert_int_equal(l.total_mib, 8192);
  assert_int_equal(parse("nproc=7", &l, err), 0); /* the others stay */
  assert_int_equal(l.nproc, 7);
  assert_int_equal(l.as_mib, 100);
}

static void test_zero_means_none(void **state)
{
  (void)state;
  nc_limits l;
  char err[200];
  assert_int_equal(parse("as=0,fsize=0", &l, err), 0);
  assert_int_equal(l.as_mib, 0);
  assert_int_equal(l.fsize_mib, 0);
}

/* text is refused, the reason says want, and the defaults stay. */
static void refused(const char *text, const char *want)
{
  nc_limits l;
  char err[200];
  assert_int_equal(parse(text, &l, err), -1);
  if (!strstr(err, want))
    fail_msg("'%s': '%s' does not say '%s'", text, err, want);
  assert_defaults(&l);
}

static void test_malformed(void **state)
{
  (void)state;
  refused("as=abc", "not a decimal number");
  refused("as=", "not a decimal number");
  refused("as=12x", "not a decimal number");
  refused("as=-1", "not a decimal number");
  refused("as=+1", "not a decimal number");
  refused("as= 1", "not a decimal number");
  refused("as=0x10", "not a decimal number");
  refused("as", "not KEY=NUMBER");
  refused("=5", "not KEY=NUMBER");
  refused("stack=1", "not KEY=NUMBER");
  refused("AS=1", "not KEY=NUMBER");
  refused(",", "empty item");
  refused("as=1,", "empty item");
  refused(",as=1", "empty item");
  refused("as=1,,nproc=2", "empty item");
}

static void test_overflow(void **state)
{
  (void)state;
  refused("as=99999999999999999999", "too large");
  refused("as=1099511627777", "too large"); /* 2^40 + 1 MiB */
  refused("nproc=2147483648", "too large");
  nc_limits l;
  char err[200];
  assert_int_equal(parse("as=1099511627776,nproc=2147483647", &l, err), 0);
  assert_int_equal(l.as_mib, NC_LIMITS_MAX_MIB);
  assert_int_equal(l.nproc, NC_LIMITS_MAX_NPROC);
}

static void test_duplicates(void **state)
{
  (void)state;
  refused("as=1,as=2", "as is given twice");
  refused("nproc=1,fsize=2,nproc=1", "nproc is given twice");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unset_and_empty_keep_defaults),
      cmocka_unit_test(test_every_key),
      cmocka_unit_test(test_zero_means_none),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_overflow),
      cmocka_unit_test(test_duplicates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
