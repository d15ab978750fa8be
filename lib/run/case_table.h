/* SPDX-License-Identifier: Apache-2.0 */
/* What the engine knows of a case: the rule it checks, the run's
 * configuration, the plugin, and one function per rule. The functions live
 * in cases/ (cases/catalog.c: nc_builtin_cases) and the programs hand them
 * to the engine as data (nc_engine_use_cases): nothing under lib/ refers to
 * a symbol of cases/ (tests/e2e/layers.test checks the object files). */
#ifndef NC_CASE_TABLE_H
#define NC_CASE_TABLE_H

#include "run_config.h"
#include "loader.h"
#include "rules.h"

typedef struct nc_case {
  const nc_config *cfg;
  nc_rule rule;
  const nc_rule_def *def;
  nc_plugin *plugin; /* opened for stage >= NC_STAGE_OPEN, else NULL */
} nc_case;

typedef void (*nc_case_fn)(nc_case *c);

/* Evidence levels, as written on the channel. */
#define NC_LEVEL_FAIL "fail"   /* breaks the rule */
#define NC_LEVEL_WARN "warn"   /* breaks a SHOULD part of the rule */
#define NC_LEVEL_NOTE "note"   /* what was checked and held */
#define NC_LEVEL_ERROR "error" /* the harness could not check */

/* The cases a program runs: the case of each rule, in rule order, and the
 * load probe, which after SYM-06's checks gathers what the host's loader
 * concludes (the report header and which later stages are reachable). */
typedef struct nc_case_set {
  nc_case_fn fns[NC_RULE_COUNT];
  nc_case_fn load_probe;
  /* In place of the case (--repro), for one that plugin code ended: the
   * reproducer from its calls (cases/kit/crash_repro.h). */
  void (*crash_repro)(nc_case *c, const char *how);
} nc_case_set;

/* Hands the engine its cases (before nc_run_cases or a case process's
 * nc_case_process_main). */
void nc_engine_use_cases(const nc_case_set *set);

/* The rule whose case doubles as the load probe. */
#define NC_PROBE_RULE NC_RULE_SYM_06

#endif
