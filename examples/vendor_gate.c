/* SPDX-License-Identifier: Apache-2.0 */
/* A plugin vendor's own test program: runs the nve-conform suite on a
 * plugin through libnveconform and fails when a MUST rule fails. Build it
 * with `cc vendor_gate.c $(pkg-config --cflags --libs nve-conform)`. */
#include <stdio.h>

#include <nve_conform.h>

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s PLUGIN.so [RULE-GLOB]\n", argv[0]);
    return 2;
  }
  nc_options opt;
  nc_options_init(&opt);
  opt.plugin_path = argv[1];
  const char *rules[] = {argc > 2 ? argv[2] : "*", NULL};
  opt.rule_globs = rules;
  opt.seed = 42; /* a fixed seed: the same run every time */

  nc_report *r = nc_run(&opt);
  if (nc_report_error(r))
    fprintf(stderr, "nve-conform: %s\n", nc_report_error(r));
  else
    nc_report_print_summary(r, stdout);
  int code = nc_report_exit_code(r); /* 0 pass, 1 a MUST rule failed, 2 input, 3 harness */
  char err[256];
  if (nc_report_write_json(r, "vendor-report.json", err, sizeof(err)) != 0) {
    fprintf(stderr, "nve-conform: %s\n", err);
    code = code ? code : 3;
  }
  nc_report_free(r);
  return code;
}
