/* SPDX-License-Identifier: Apache-2.0 */
/* The inside of a case process: load the CUDA runtime and the plugin as
 * the rule's stage needs, run the rule's case, and stream every violation
 * the instrumentation sees to the parent, whichever rule it breaks. */
#ifndef NC_CASE_CHILD_H
#define NC_CASE_CHILD_H

#include "case_table.h"
#include "runner.h"

/* Runs the case of rule in this process (probe: continue as the load
 * probe). Records go to the trace channel, which must be started. */
void nc_case_child_run(const nc_config *cfg, nc_rule rule, int probe);

/* In place of rule's case, for one that plugin code ended as how says
 * ("signal:N", "exit:N" or "hang"): the reproducer from its crash log
 * (--repro; the case set's crash_repro). */
void nc_case_child_crash_repro(const nc_config *cfg, nc_rule rule, const char *how);

/* The case runner program: nve-conform-case CONFIG RULE [probe | crash HOW], started
 * by the engine with its channel and callback page on the descriptors
 * runner.h names. Returns the process's exit status. */
int nc_case_process_main(int argc, char **argv);

/* Record tags on the channel for the run-wide evidence. */
#define NC_TAG_VIOLATION "VIOLATION" /* rule, text, case, callback, thread */
#define NC_TAG_VCOUNT "VCOUNT"       /* rule, how many in all (at the end) */
#define NC_TAG_OPENED "OPENED"       /* the plugin is about to be opened */

/* Sends the violations recorded in this process (its counts) to the
 * parent; a case process does it before it ends. */
void nc_case_child_send_counts(void);

/* In a process forked by a case (one isolated call): start counting
 * afresh, so that nothing the case saw before the fork is sent twice. */
void nc_case_child_forked(void);
/* Passes on to the parent the violations a forked child of this case
 * streamed (their rules count them whichever process saw them). */
void nc_case_child_forward(const nc_child_result *cr);

#endif
