/* SPDX-License-Identifier: Apache-2.0 */
/* Shrinking a failing sequence of the explorer and finding, by replay,
 * what its failure depends on (explore.h). */
#ifndef NC_EXPLORE_SHRINK_H
#define NC_EXPLORE_SHRINK_H

#include "explore_run.h"

typedef struct nc_x_shrunk {
  nc_x_step *steps; /* the shortest failing sequence found (malloc'd) */
  size_t len;
  nc_x_failure fail; /* its failure */
  int replays;
  int timed_out;     /* stopped by the safety cap in time */
  unsigned depends;  /* NC_XT_* toggles under which it agrees: what it needs */
  /* Its steps were seen to fail in a process that made no table before
   * them, or no such process could be had (a real CUDA runtime,
   * --no-fork), or its failure is a check of one call's own result: a
   * reproducer of them alone that agrees means the defect is gone. 0: the
   * fresh replays were tried and could not tell (they hung or crashed). */
  int standalone;
  double slowest; /* seconds of its slowest replay in the case's process */
} nc_x_shrunk;

/* In depends, not a toggle: the sequence agrees in a process that made no
 * table before it (explore_fresh.h), so its failure needs the tables the
 * case's process made and destroyed earlier. */
#define NC_XD_EARLIER_TABLES 512u

/* Shrinks steps[0..len) (which fail with fail): steps of a kind, then
 * chunks, then each step's batch and call shape; then replays it with each
 * feature it uses switched off. view: toggles for every replay (0,
 * NC_XT_LEAKS, NC_XT_PLAIN_CALLS).
 * 0, or -1 when out of memory. */
int nc_x_shrink(nc_case *c, const nc_x_seq *q, const nc_x_step *steps, size_t len,
                const nc_x_failure *fail, unsigned view, double deadline, nc_x_shrunk *out);
void nc_x_shrunk_free(nc_x_shrunk *sh);

/* Drops chunks of items [0, *len - tail), halving their size (the last
 * tail items always stay), while go_on(ctx) allows another try:
 * without(ctx, start, end) tries the items but [start, end) and, where the
 * failure holds without them, keeps that (setting *len) and returns 1. */
void nc_x_drop_chunks(size_t *len, size_t tail, int (*go_on)(void *ctx),
                      int (*without)(void *ctx, size_t start, size_t end), void *ctx);
/* Copies src[0..n) but [start, end) (items of size bytes) to dst; returns
 * how many it copied. */
size_t nc_x_copy_without(void *dst, const void *src, size_t n, size_t size, size_t start,
                         size_t end);

#endif
