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
  int mode_known;
  int32_t mode;
  char blocker_rule[16];
  char blocker[768];
} nc_probe_state;

/* Reads the probe's INFO records into the report header and ps. */
void nc_probe_read(const nc_child_result *cr, const nc_config *cfg, nc_report *r,
                   nc_probe_state *ps);

/* Why rule cannot run for this plugin, or NULL. Sets *owner to the rule
 * whose failure blocks it ("" when the block has no owner rule), or NULL
 * when the rule simply does not apply (internal mode). */
const char *nc_probe_blocked(nc_rule rule, const nc_config *cfg, const nc_probe_state *ps,
                             const char **owner, char *buf, size_t buflen);

#endif
