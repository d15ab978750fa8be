/* SPDX-License-Identifier: Apache-2.0 */
/* Whether plugin code can still run in a case process without being
 * called. Plugin code runs unasked only on a thread of its own, in a
 * signal handler it installed (its timers, a process it started), or in a
 * child process; when the case process has none of them, nothing can make
 * a late call and a case need not wait for one. */
#ifndef NC_QUIET_H
#define NC_QUIET_H

/* Before plugin code first runs in the process: notes the signal
 * handlers the harness and its runtime installed. */
void nc_quiet_begin(void);

/* 1 when, now, every thread of the process is the harness's, no child
 * process is alive, and every signal handler installed since
 * nc_quiet_begin is the harness's own code; else 0 (and 0 without
 * nc_quiet_begin). */
int nc_quiet_now(void);

#endif
