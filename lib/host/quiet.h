/* SPDX-License-Identifier: Apache-2.0 */
/* Whether plugin code can still run in a case process without being
 * called. Plugin code runs unasked only on a thread of its own, in a
 * signal handler it installed (for its timers, or for signals a process
 * of its sends), or in another process (a child, or one cloned beside
 * this one, which may share its memory); when the case process has none
 * of them and no timer is armed, nothing can make a late call and a case
 * need not wait for one. */
#ifndef NC_QUIET_H
#define NC_QUIET_H

/* Before plugin code first runs in the process: notes the signal
 * handlers the harness and its runtime installed. */
void nc_quiet_begin(void);

/* 1 when, now, every thread of the process is the harness's, no child
 * process exists and no process shares this one's parent, no signal
 * handler was set since nc_quiet_begin (the harness sets none after it)
 * and no interval or POSIX timer is armed; else 0 (and 0 without
 * nc_quiet_begin). */
int nc_quiet_now(void);

#endif
