/* SPDX-License-Identifier: Apache-2.0 */
/* The run (nc_run, nve_conform.h), and what a program that runs cases in
 * its own process needs when plugin code ends that process. */
#ifndef NC_SUITE_H
#define NC_SUITE_H

#include "report.h"

/* nc_run (nve_conform.h) with the cases handed over by nc_engine_use_cases
 * (case_table.h); cases/catalog.c defines nc_run as this on the built-in
 * cases. */
nc_report *nc_run_cases(const nc_options *opt);

/* Under --no-fork, when plugin code ends the process (exit or _exit) in
 * the middle of a case: the report so far, that case failed with status,
 * for the program to write before it goes. NULL when no case runs here. */
nc_report *nc_run_cut_short(int status);

#endif
