/* SPDX-License-Identifier: Apache-2.0 */
/* The load probe's findings, and the rules they block. */
#ifndef NC_PROBE_H
#define NC_PROBE_H

#include <stdint.h>

#include "run_config.h"
#include "report.h"
#include "rules.h"
#include "runner.h"

/* What the load probe found out about the plugin. */
typedef struct nc_probe_state {
  int opened;
  int loaded;
  int file_changed; /* loading it changed its file: no case can test what was hashed */
  int mode_known;
  int32_t mode;
  const nc_rule_info *blocker_rule; /* the rule whose failure blocker is, or NULL */
  char blocker[768];
} nc_probe_state;

/* Reads the probe's INFO records into the report header and ps. */
void nc_probe_read(const nc_child_result *cr, const nc_config *cfg, nc_report *r,
                   nc_probe_state *ps);

/* Why rule cannot run for this plugin, or NULL. *blocked says whether that
 * is a block (a failure kept it from running) rather than a rule that does
 * not apply (internal mode); *owner is the rule whose failure it is, or
 * NULL when no rule owns it. */
const char *nc_probe_blocked(nc_rule rule, const nc_config *cfg, const nc_probe_state *ps,
                             int *blocked, const nc_rule_info **owner, char *buf,
                             size_t buflen);

#endif
