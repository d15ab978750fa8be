/* SPDX-License-Identifier: Apache-2.0 */
/* Reproduction lines: the options that differ from the defaults, shell
 * quoting, and the rule added when another case's observation decided the
 * verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/nve_plugin_common.h"
#include "reproduce.h"

static nc_config defaults(const char *plugin)
{
  nc_config cfg;
  memset(&cfg, 0, sizeof(cfg));
  strcpy(cfg.plugin_path, plugin);
  cfg.factory_config = "{}";
  cfg.table_config = "{}";
  cfg.host_major = NVE_PLUGIN_ABI_VERSION_MAJOR;
  cfg.host_minor = NVE_PLUGIN_ABI_VERSION_MINOR;
  cfg.workers = NC_DEFAULT_WORKERS;
  cfg.sim_devices = NC_DEFAULT_SIM_DEVICES;
  cfg.timeout_asked = NC_DEFAULT_TIMEOUT_S;
  cfg.seed = 7;
  return cfg;
}

static void expect_line(char *line, const char *want)
{
  assert_non_null(line);
  assert_string_equal(line, want);
  free(line);
}

static void test_defaults_are_left_out(void **state)
{
  (void)state;
  nc_config cfg = defaults("/p/plugin.so");
  expect_line(nc_reproduce_line(&cfg, "SYM-01"), "nve-conform --rule SYM-01 --seed 7 /p/plugin.so");
  cfg.workers = 2;
  cfg.sim_devices = 3;
  cfg.timeout_asked = 1.5;
  expect_line(nc_reproduce_line(&cfg, "TBL-02"),
              "nve-conform --rule TBL-02 --workers 2 --sim-devices 3 --timeout 1.5 --seed 7 "
              "/p/plugin.so");
}

static void test_quoting(void **state)
{
  (void)state;
  nc_config cfg = defaults("/my plugins/it's.so");
  cfg.table_config = "{\"device\":1}";
  expect_line(nc_reproduce_line(&cfg, "DEV-08"),
              "nve-conform --rule DEV-08 --table-config '{\"device\":1}' --seed 7 "
              "'/my plugins/it'\\''s.so'");
}

static void test_also(void **state)
{
  (void)state;
  expect_line(nc_reproduce_also("nve-conform --rule ERR-01 --seed 7 p.so", "OWN-01"),
              "nve-conform --rule ERR-01,OWN-01 --seed 7 p.so");
  /* Not a single-rule reproduction line: left alone. */
  assert_null(nc_reproduce_also(NULL, "OWN-01"));
  assert_null(nc_reproduce_also("nve-conform --rule ERR-01 p.so", NULL));
  assert_null(nc_reproduce_also("nve-conform --rule ERR-01,OWN-01 --seed 7 p.so", "TBL-02"));
  assert_null(nc_reproduce_also("nve-conform --rule  --seed 7 p.so", "TBL-02"));
  assert_null(nc_reproduce_also("nve-conform --rule ERR-01", "TBL-02"));
  assert_null(nc_reproduce_also("nve-conform --family ERR p.so", "TBL-02"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults_are_left_out),
      cmocka_unit_test(test_quoting),
      cmocka_unit_test(test_also),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
