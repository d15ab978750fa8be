/* SPDX-License-Identifier: Apache-2.0 */
/* The case functions, one per rule of the rule table (lib/rules/rules.h),
 * each in cases/<family>.c. */
#ifndef NC_CASES_H
#define NC_CASES_H

#include "case_api.h"

#define NC_DECLARE_CASE_FN(fam, num, sev, waivable, applies, stage, fn, title, clause) \
  void fn(nc_case *c);
NC_RULES(NC_DECLARE_CASE_FN)
#undef NC_DECLARE_CASE_FN

/* After SYM-06's checks, gathers what the host's loader concludes (the
 * report header and which later stages are reachable): cases/sym.c. */
void nc_load_probe(nc_case *c);

/* Every case above and the load probe, for nc_engine_use_cases. */
extern const nc_case_set nc_builtin_cases;

#endif
