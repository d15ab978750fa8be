/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a profile into the run's configuration. */
#ifndef NC_PROFILE_H
#define NC_PROFILE_H

#include "run_config.h"
#include "report.h"

/* Reads opt->profile_path into cfg (and the report header); -1 after
 * recording a usage error in r. The configs it yields live until
 * nc_profile_release. */
int nc_profile_load(const nc_options *opt, nc_config *cfg, nc_report *r);
void nc_profile_release(void);

#endif
