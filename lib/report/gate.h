/* SPDX-License-Identifier: Apache-2.0 */
/* The CI gate on top of a run: waivers (a failure a vendor accepts for a
 * while, with a reason) and baselines (only failures that are new since an
 * earlier report fail the gate). Both are read and checked before the run,
 * so a bad file costs no time, and applied to the finished report. */
#ifndef NC_GATE_H
#define NC_GATE_H

#include <stddef.h>

#include "report.h"

/* Whether a waiver may apply to a rule. */
int nc_rule_waivable(const char *id);

typedef struct nc_waiver {
  char **rules; /* globs */
  size_t nrules;
  char *reason, *issue, *plugin_sha256, *plugin_abi;
  char *expires; /* as written */
  long expires_day; /* days since 1970-01-01; -1: never */
} nc_waiver;

typedef struct nc_waivers {
  nc_waiver *list;
  size_t n;
} nc_waivers;

/* Reads and checks a waiver file. 0, or -1 with err. */
int nc_waivers_load(const char *path, nc_waivers *out, char *err, size_t errlen);
/* Marks the failures the waivers cover as WAIVED; notes the problems
 * (expired, another build, unused, a rule that cannot be waived). */
void nc_waivers_apply(const nc_waivers *w, nc_report *r);
void nc_waivers_free(nc_waivers *w);

typedef struct nc_baseline {
  char *sha256, *plugin_name; /* of the plugin the baseline report is for */
  struct nc_baseline_result {
    char *id, *verdict;
  } *results;
  size_t n;
} nc_baseline;

/* Reads and checks a baseline (an earlier --json report). 0, or -1 with
 * err. */
int nc_baseline_load(const char *path, nc_baseline *out, char *err, size_t errlen);
/* Whether the baseline is for this plugin: the same file (SHA-256), or,
 * with any_build, the same plugin name. 0, or -1 with err. */
int nc_baseline_matches(const nc_baseline *b, const char *sha256, const char *plugin_name,
                        int any_build, char *err, size_t errlen);
/* Marks the failures the baseline already had as known; notes new and
 * fixed ones. */
void nc_baseline_apply(const nc_baseline *b, nc_report *r);
void nc_baseline_free(nc_baseline *b);

#endif
