/* SPDX-License-Identifier: Apache-2.0 */
/* The seal of a C reproducer (lib/run/repro_out.h): only a file written
 * with the run's secret, unchanged, is copied to --repro DIR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "repro_out.h"

static const char body[] = "int main(void) { return 1; }\n";

static char *saved(const char *dir, const char *secret, const char *name)
{
  assert_int_equal(nc_repro_save(dir, secret, name, body, strlen(body)), 0);
  char path[512], err[256];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  char *text = nc_read_file(path, err, sizeof(err));
  assert_non_null(text);
  return text;
}

static void test_sealed_round_trip(void **state)
{
  (void)state;
  char dir[] = "/tmp/nc-repro-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *text = saved(dir, "secret", "repro-TBL-02.c");
  size_t len = 0;
  assert_true(nc_repro_sealed("secret", "repro-TBL-02.c", text, strlen(text), &len));
  assert_int_equal(len, strlen(body));
  /* Another secret, another name, a changed byte, a cut file: no seal. */
  assert_false(nc_repro_sealed("other", "repro-TBL-02.c", text, strlen(text), &len));
  assert_false(nc_repro_sealed("secret", "repro-TBL-03.c", text, strlen(text), &len));
  text[4] ^= 1;
  assert_false(nc_repro_sealed("secret", "repro-TBL-02.c", text, strlen(text), &len));
  text[4] ^= 1;
  assert_false(nc_repro_sealed("secret", "repro-TBL-02.c", text, strlen(text) - 1, &len));
  assert_false(nc_repro_sealed("secret", "repro-TBL-02.c", text, 3, &len));
  free(text);
  char path[512];
  snprintf(path, sizeof(path), "%s/repro-TBL-02.c", dir);
  unlink(path);
  rmdir(dir);
}

/* Only sealed files named repro-RULE.c (or repro-RULE-from-CASE.c)
 * reach the directory, without the seal line. */
static void test_collect_copies_only_sealed(void **state)
{
  (void)state;
  char scratch[] = "/tmp/nc-repro-XXXXXX", dest[600], path[700], err[256];
  assert_non_null(mkdtemp(scratch));
  snprintf(dest, sizeof(dest), "%s/out", scratch);
  free(saved(scratch, "s3cret", "repro-TBL-08.c"));
  snprintf(path, sizeof(path), "%s/repro-TBL-09.c", scratch);
  FILE *f = fopen(path, "w"); /* planted: no seal */
  assert_non_null(f);
  fputs(body, f);
  fclose(f);
  free(saved(scratch, "s3cret", "notes.c"));
  free(saved(scratch, "s3cret", "repro-LIF-02-from-TBL-07.c"));
  free(saved(scratch, "s3cret", "repro-TBL_02.c")); /* not a name a case writes */
  assert_int_equal(nc_repro_collect(scratch, "s3cret", dest, err, sizeof(err)), 2);
  snprintf(path, sizeof(path), "%s/repro-LIF-02-from-TBL-07.c", dest);
  assert_int_equal(access(path, F_OK), 0);
  snprintf(path, sizeof(path), "%s/repro-TBL-08.c", dest);
  char *copied = nc_read_file(path, err, sizeof(err));
  assert_non_null(copied);
  assert_string_equal(copied, body);
  free(copied);
  snprintf(path, sizeof(path), "%s/repro-TBL-09.c", dest);
  assert_int_equal(access(path, F_OK), -1);
  /* A destination that cannot be made is an error with a message. */
  assert_int_equal(nc_repro_collect(scratch, "s3cret", "/proc/nc-no/such", err, sizeof(err)), -1);
  assert_non_null(strstr(err, "--repro"));
  char cmd[800];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
  assert_int_equal(system(cmd), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sealed_round_trip),
      cmocka_unit_test(test_collect_copies_only_sealed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
