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

#endif
