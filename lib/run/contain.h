/* SPDX-License-Identifier: Apache-2.0 */
/* Containment of case processes: what a plugin starts dies with its case.
 *
 * A case process is a child subreaper: a daemon the plugin detaches (fork,
 * setsid) is reparented to it, and it kills every child it has before it
 * ends. When the case is killed first, the run's process (also a
 * subreaper while nc_run runs) takes the orphans and kills every child that
 * is neither a running case nor one the calling program already had when
 * the run began, whatever the orphan did to its environment, session or
 * process group. Case processes also run under
 * resource limits: no core files, a bound on file size, address space and
 * processes (NVE_CONFORM_LIMITS raises them). */
#ifndef NC_CONTAIN_H
#define NC_CONTAIN_H

#include <stddef.h>
#include <sys/types.h>

/* The environment variable that marks a case process and its descendants:
 * its value is the pid of the run's process. */
#define NC_CASE_MARK "NVE_CONFORM_CASE_OF"

/* In a case process, before any plugin code: becomes a subreaper and sets
 * the resource limits. */
void nc_contain_case(void);
/* In a case process, at its end: kills and reaps every child it has,
 * reparented daemons included. */
void nc_contain_kill_children(void);

/* In a case process: 1 (and why) when plugin code lowered a resource
 * limit the harness needs since the case began, so that what the harness
 * can no longer do is the plugin's verdict, not the harness's ERROR. */
int nc_contain_limits_lowered(char *why, size_t len);

/* How many cases may run at once when want were asked: each keeps its own
 * address-space limit (as=), so that many must fit in the run's memory
 * (total=, none by default). When fewer, note says why. */
int nc_contain_max_jobs(int want, char *note, size_t notelen);

/* In the run's process: becomes a subreaper (and says whether it was one),
 * and later kills the orphans of its cases (processes whose parent it now
 * is and which carry its mark), except the cases still running (keep). */
int nc_contain_run_begin(void);
void nc_contain_run_end(int was_subreaper);
void nc_contain_reap_orphans(const pid_t *keep, size_t nkeep);
/* A child the run started itself (the sandbox's case server): never taken
 * for an orphan of a case. */
void nc_contain_known_child(pid_t pid);

/* In the run's process, before any case: 0 when NVE_CONFORM_LIMITS is
 * unset or well formed; else -1 with a message naming it in err. */
int nc_contain_limits_check(char *err, size_t len);

/* The limits a case process gets, as "name=value" text for the report. */
const char *nc_contain_limits_text(void);

#endif
