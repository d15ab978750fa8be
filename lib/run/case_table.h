/* SPDX-License-Identifier: Apache-2.0 */
/* What the engine knows of a case: the rule it checks, the run's
 * configuration, the plugin, and one function per rule. The functions live
 * in cases/ (cases/catalog.c fills nc_case_fns from the rule table); the
 * engine only calls them, so nothing here includes a case header. */
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

/* The case of each rule, in rule order. */
extern const nc_case_fn nc_case_fns[NC_RULE_COUNT];

/* The rule whose case doubles as the load probe. */
#define NC_PROBE_RULE NC_RULE_SYM_06
/* After SYM-06's checks, gathers what the host's loader concludes (the
 * report header and which later stages are reachable). */
void nc_load_probe(nc_case *c);

#endif
