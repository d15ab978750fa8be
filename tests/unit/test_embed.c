/* SPDX-License-Identifier: Apache-2.0 */
/* The library as a vendor's program embeds it: nc_run called twice from a
 * program with its own SIGCHLD handler and umask, which the runs must
 * leave as they were; an options struct from an older build (a smaller
 * struct_size) still runs; one never initialised is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nve_conform.h"

static char plugin[4096];
static void on_child(int signo) { (void)signo; }

static int run_sym(size_t struct_size)
{
  static const char *const rules[] = {"SYM-0[1-4]", NULL};
  nc_options opt;
  nc_options_init(&opt);
  opt.struct_size = struct_size;
  opt.plugin_path = plugin;
  opt.rule_globs = rules;
  opt.seed = 7;
  nc_report *r = nc_run(&opt);
  assert_non_null(r);
  int code = nc_report_exit_code(r);
  nc_report_free(r);
  return code;
}

static void test_twice_leaves_the_process_as_it_was(void **state)
{
  (void)state;
  struct sigaction mine, now;
  memset(&mine, 0, sizeof(mine));
  mine.sa_handler = on_child;
  sigaction(SIGCHLD, &mine, NULL);
  umask(027);
  assert_int_equal(run_sym(sizeof(nc_options)), 0);
  assert_int_equal(run_sym(sizeof(nc_options)), 0);
  sigaction(SIGCHLD, NULL, &now);
  assert_ptr_equal(now.sa_handler, on_child);
  mode_t mask = umask(022);
  assert_int_equal(mask, 027);
}

static void test_older_struct_runs(void **state)
{
  (void)state;
  /* A caller built before jobs and the later members existed. */
  assert_int_equal(run_sym(offsetof(nc_options, jobs)), 0);
}

static void test_uninitialised_options_are_refused(void **state)
{
  (void)state;
  assert_int_equal(run_sym(0), 2);
}

int main(void)
{
  const char *build = getenv("NC_BUILDDIR");
  snprintf(plugin, sizeof(plugin), "%s/staged/plugins/nve-plugin-hashmap.so", build ? build : ".");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_twice_leaves_the_process_as_it_was),
      cmocka_unit_test(test_older_struct_runs),
      cmocka_unit_test(test_uninitialised_options_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
