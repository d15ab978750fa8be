/* SPDX-License-Identifier: Apache-2.0 */
/* The case functions, one per rule of the rule table (lib/rules/rules.def):
 * the case of SYM-06 is nc_case_SYM_06, in cases/sym.c. */
#ifndef NC_CASES_H
#define NC_CASES_H

#include "case_api.h"

#define NC_RULE(fam, num, ...) void nc_case_##fam##_##num(nc_case *c);
#include "rules.def"
#undef NC_RULE

/* After SYM-06's checks, gathers what the host's loader concludes (the
 * report header and which later stages are reachable): cases/sym.c. */
void nc_load_probe(nc_case *c);

/* Every case above and the load probe, for nc_engine_use_cases. */
extern const nc_case_set nc_builtin_cases;

#endif
