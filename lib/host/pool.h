/* SPDX-License-Identifier: Apache-2.0 */
/* The thread pool behind execute_n and execute_n_wg: a caller and
 * workers-1 helper threads take task indices from a shared counter, and the
 * call returns when every index has run (a synchronous barrier).
 *
 * Adversarial schedules show whether a plugin's results depend on how a
 * pool happens to order its tasks: all on the caller in order, in reverse
 * order, in a seeded random order, or with random delays. */
#ifndef NC_POOL_H
#define NC_POOL_H

#include <stdint.h>

#include "nve_c_api.h"

typedef enum {
  NC_SCHEDULE_POOL = 0, /* helpers and caller, ascending indices */
  NC_SCHEDULE_INLINE,   /* the caller alone, ascending */
  NC_SCHEDULE_REVERSE,  /* helpers and caller, descending */
  NC_SCHEDULE_SHUFFLE,  /* helpers and caller, a seeded permutation */
  NC_SCHEDULE_DELAYS,   /* helpers and caller, random pauses before tasks */
  NC_SCHEDULE_COUNT_
} nc_schedule;

const char *nc_schedule_name(nc_schedule s);
/* Parses a schedule name; returns -1 when unknown. */
int nc_schedule_parse(const char *name);

/* Sets the pool size (>= 1) and schedule; starts or stops helpers. Not to
 * be called while tasks run. Returns 0, or -1 if a thread could not start. */
int nc_pool_configure(int workers, nc_schedule schedule, uint64_t seed);
int nc_pool_workers(void);

typedef nve_status_t (*nc_pool_task)(void *arg, int64_t index);

/* Runs task(arg, i) for every i in [0, count) and returns the first status
 * other than NVE_SUCCESS (as returned), or NVE_SUCCESS. Called from inside
 * a task, it runs the tasks inline (a nested barrier would deadlock). */
nve_status_t nc_pool_run(int64_t count, nc_pool_task task, void *arg);

/* Nonzero on a thread that is running a pool task right now. */
int nc_pool_in_task(void);

/* Stops the helpers (for a clean exit). */
void nc_pool_shutdown(void);
/* In a child forked while helpers ran: the pool has none any more. */
void nc_pool_after_fork(void);

#endif
