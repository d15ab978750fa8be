/* SPDX-License-Identifier: Apache-2.0 */
/* From the caller's options to the run's configuration and the report's
 * header, with the defaults of nve_conform.h. */
#ifndef NC_OPTIONS_H
#define NC_OPTIONS_H

#include "run_config.h"
#include "report.h"

/* Fills cfg from opt and the header of r from cfg; -1 after recording a
 * usage error in r (a bad NVE_CONFORM_TIMEOUT_MULTIPLIER). */
int nc_config_from_options(const nc_options *opt, nc_config *cfg, nc_report *r);

#endif
