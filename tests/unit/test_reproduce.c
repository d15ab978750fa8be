/* SPDX-License-Identifier: Apache-2.0 */
/* Reproduction lines: the options that differ from the defaults, shell
 * quoting, and the rule added when another case's observation decided the
 * verdict; and the settings table they come from (run_settings.h): every
 * option it names is the command line's, and a configuration written for a
 * case reads back the same. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "cli_options.h"
#include "config_io.h"
#include "options.h"
#include "plugin/nve_plugin_common.h"
#include "record.h"
#include "report.h"
#include "reproduce.h"
#include "run_settings.h"

/* What nc_options_init's defaults become for the cases: the reproduction
 * line of such a run names the seed alone. */
static nc_config defaults(const char *plugin)
{
  nc_options opt;
  nc_options_init(&opt);
  opt.seed = 7;
  nc_config cfg;
  nc_report *r = nc_report_new();
  assert_int_equal(nc_config_from_options(&opt, &cfg, r), 0);
  nc_report_free(r);
  strcpy(cfg.plugin_path, plugin);
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
              "nve-conform --rule TBL-02 --seed 7 --workers 2 --timeout 1.5 --sim-devices 3 "
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

/* A configuration where every setting differs from its default. */
static nc_config changed(void)
{
  nc_config cfg = defaults("/p/plugin.so");
  cfg.factory_config = "{\"rows\":8}";
  cfg.table_config = "{\"device\":1}";
  cfg.profile_path = "/p/profile.json";
  cfg.host_major = 1;
  cfg.host_minor = NVE_PLUGIN_ABI_VERSION_MINOR + 1;
  cfg.workers = 3;
  cfg.schedule = NC_SCHEDULE_REVERSE;
  cfg.sweep_k = 12;
  cfg.stress = 1;
  cfg.effort = NC_EFFORT_DEEP;
  cfg.budget_s = 2.5;
  cfg.sanitize = 1;
  cfg.sandbox = 2; /* off */
  cfg.cuda_asked = 2;
  cfg.sim_devices = 2;
  cfg.timeout_asked = 2.5;
  cfg.timeout_s = 7.5;
  cfg.seed = 18446744073709551615ull;
  strcpy(cfg.cache_dir, "/tmp/cache");
  cfg.key_size = 4;
  cfg.row_size = 64;
  cfg.exact = 1;
  cfg.cuda_mode = 2;
  cfg.no_fork = 1;
  cfg.evidence_all = 1;
  for (int i = 0; i < 4; i++)
    cfg.plugin_file[i] = 1000ull + (unsigned long long)i;
  return cfg;
}

static char *formatted(const nc_setting *s, const nc_config *cfg)
{
  nc_strbuf b = {0};
  nc_setting_format(s, cfg, &b);
  return b.data ? b.data : strdup("");
}

static void test_options_are_the_command_lines(void **state)
{
  (void)state;
  for (size_t i = 0; i < nc_setting_count; i++) {
    const nc_setting *s = &nc_settings[i];
    if (!s->option)
      continue;
    const nc_cli_option *o = NULL;
    for (size_t k = 0; k < nc_cli_option_count; k++)
      if (strcmp(nc_cli_options[k].name, s->option) == 0)
        o = &nc_cli_options[k];
    if (!o)
      fail_msg("setting %s names --%s, which the command line does not have", s->key, s->option);
    if ((s->kind == NC_SET_FLAG) != (o->arg == NULL))
      fail_msg("--%s: a flag in one table, an option with an argument in the other", s->option);
  }
}

static void test_every_option_reaches_the_line(void **state)
{
  (void)state;
  nc_config cfg = changed();
  char *line = nc_reproduce_line(&cfg, "SVC-07");
  assert_non_null(line);
  for (size_t i = 0; i < nc_setting_count; i++) {
    char want[64];
    if (!nc_settings[i].option)
      continue;
    snprintf(want, sizeof(want), " --%s ", nc_settings[i].option);
    if (nc_settings[i].kind == NC_SET_FLAG)
      want[strlen(want) - 1] = '\0';
    if (!strstr(line, want))
      fail_msg("'%s' has no%s", line, want);
  }
  assert_non_null(strstr(line, " --host-abi 1."));
  assert_non_null(strstr(line, " --schedule reverse "));
  assert_non_null(strstr(line, " --sanitize valgrind "));
  assert_non_null(strstr(line, " --effort deep "));
  assert_non_null(strstr(line, " --budget 2.5 "));
  assert_non_null(strstr(line, " --sandbox off "));
  free(line);
}

static void test_configuration_reads_back(void **state)
{
  (void)state;
  nc_config cfg = changed(), back;
  cfg.failing[0].target = 1;
  cfg.failing[0].json = "{\"bad\":true}";
  cfg.failing[0].status = 3;
  cfg.failing_count = 1;
  int fd = memfd_create("config", 0);
  assert_true(fd >= 0);
  assert_int_equal(nc_config_write_fd(&cfg, fd), 0);
  char why[256] = "";
  assert_int_equal(nc_config_read_fd(fd, &back, why, sizeof(why)), 0);
  for (size_t i = 0; i < nc_setting_count; i++) {
    char *a = formatted(&nc_settings[i], &cfg), *b = formatted(&nc_settings[i], &back);
    if (strcmp(a, b) != 0)
      fail_msg("%s: wrote '%s', read back '%s'", nc_settings[i].key, a, b);
    free(a);
    free(b);
  }
  assert_int_equal(back.failing_count, 1);
  assert_string_equal(back.failing[0].json, "{\"bad\":true}");
  assert_int_equal(back.failing[0].status, 3);
  nc_config_read_release(&back);
  close(fd);
}

static void test_incomplete_configuration_is_refused(void **state)
{
  (void)state;
  int fd = memfd_create("config", 0);
  assert_true(fd >= 0);
  const char *f[] = {"/p/plugin.so"};
  assert_int_equal(nc_record_write_whole(fd, "plugin_path", 1, f), 0);
  nc_config back;
  char why[256] = "";
  assert_int_equal(nc_config_read_fd(fd, &back, why, sizeof(why)), -1);
  assert_non_null(strstr(why, "incomplete"));
  const char *bad[] = {"many"};
  assert_int_equal(nc_record_write_whole(fd, "workers", 1, bad), 0);
  assert_int_equal(nc_config_read_fd(fd, &back, why, sizeof(why)), -1);
  assert_non_null(strstr(why, "malformed"));
  close(fd);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options_are_the_command_lines),
      cmocka_unit_test(test_every_option_reaches_the_line),
      cmocka_unit_test(test_configuration_reads_back),
      cmocka_unit_test(test_incomplete_configuration_is_refused),
      cmocka_unit_test(test_defaults_are_left_out),
      cmocka_unit_test(test_quoting),
      cmocka_unit_test(test_also),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
