/* SPDX-License-Identifier: Apache-2.0 */
/* The cases the programs hand the engine: the function of each rule, in
 * the order of the rule table, and the load probe; and nc_run, which runs
 * them (the library's entry point: the engine under lib/ knows no case). */
#include "cases.h"
#include "crash_repro.h"
#include "suite.h"

#define NC_RULE(fam, num, ...) nc_case_##fam##_##num,
const nc_case_set nc_builtin_cases = {{
#include "rules.def"
                                      },
                                      nc_load_probe, nc_crash_repro};
#undef NC_RULE

nc_report *nc_run(const nc_options *opt)
{
  nc_engine_use_cases(&nc_builtin_cases);
  return nc_run_cases(opt);
}
