/* SPDX-License-Identifier: Apache-2.0 */
/* The case table the engine runs: the function of each rule, in the order
 * of the rule table. */
#include "cases.h"

#define NC_CASE_FN(fam, num, sev, waivable, applies, stage, fn, title, clause) fn,

const nc_case_fn nc_case_fns[NC_RULE_COUNT] = {NC_RULES(NC_CASE_FN)};
