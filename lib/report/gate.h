/* SPDX-License-Identifier: Apache-2.0 */
/* Waivers and baselines: see gate.c. */
#ifndef NC_GATE_H
#define NC_GATE_H

#include <stddef.h>

#include "report.h"

/* Whether a waiver may apply to a rule. */
int nc_rule_waivable(const char *id);
/* Apply a waiver file / a baseline report to r. 0, or -1 with err. */
int nc_gate_apply_waivers(nc_report *r, const char *path, char *err, size_t errlen);
int nc_gate_apply_baseline(nc_report *r, const char *path, char *err, size_t errlen);

#endif
